#![no_main]
//! gamerec's JSON Lines read back (`io::Reader` on a `.jsonl` input, one
//! game per line): any bytes give games and diagnostics, never a panic,
//! however deep the variations. A game read (of standard chess: the reader
//! plays every game by standard rules) writes as a JSON line
//! (`pgn::write_game_json`) that reads back to the same game.
use gamerec::io::Format;
use gamerec::io::{ReadOptions, Reader, Record};
use gamerec::model::Game;
use gamerec::pgn::json::no_commands;
use gamerec::pgn::write_game_json;
use libfuzzer_sys::fuzz_target;

fn read(bytes: &[u8]) -> Vec<Game> {
    let opts = ReadOptions {
        format: Some(Format::Json),
        max_errors: u64::MAX,
        ..ReadOptions::default()
    };
    let mut games = Vec::new();
    for item in Reader::from_bytes("fuzz.jsonl", bytes, &opts) {
        let Ok(item) = item else { break };
        if let Record::Game(g) = item.record {
            games.push(g);
        }
    }
    games
}

fuzz_target!(|data: &[u8]| {
    for game in read(data) {
        if game.variant().is_some() {
            continue;
        }
        let mut written = String::new();
        write_game_json(&game, &no_commands, &mut written);
        let back = read(written.as_bytes());
        assert_eq!(back.len(), 1, "written game unreadable:\n{written}");
        assert!(back[0] == game, "{written}");
    }
});
