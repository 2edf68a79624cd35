#![no_main]
//! Move text as the referee reads it from clients, state files and books
//! (`game_rules::parse_move`, through `GameState::replay_move` or
//! `play_book_move`), and the positions of referee records
//! (`game_rules::position_from_fields`). The first byte picks the start
//! position (low two bits and bit 4), book moves or timed ones (bit 2), and
//! the counters given with the position (bits 3, 5 to 7); the rest, as
//! lossy UTF-8, is one move text a line, each played in turn:
//! - a move read is legal, and its SAN and its UCI read back to it;
//! - the game plays it with the same SAN, and fails where the reader does;
//! - an error is short and quotes the text (`gamerec::excerpt`);
//! - the first line, as a position's fields, gives a position with the
//!   counters given, whose own fields give it back.
use std::time::Duration;

use gamerec::excerpt::excerpt;
use gamerec::shakmaty::san::SanPlus;
use gamerec::shakmaty::{CastlingMode, Chess, Position};
use gamerec_referee::clock::Clocks;
use gamerec_referee::game_rules::{GameState, epd_fields, parse_move, position_from_fields};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;

const POSITIONS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/3pP3/8/2N5/8/R3K1NR w KQ d6 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];

const COUNTERS: [(u32, u32); 8] = [
    (0, 1),
    (99, 40),
    (150, 1),
    (0, 0),
    (100, 1_000_000),
    (u32::MAX, u32::MAX),
    (7, 2),
    (1, u32::MAX),
];

fn check_error(text: &str, e: &str) {
    common::check_message("move", e);
    assert!(e.contains(&format!("'{}'", excerpt(text))), "{e}");
}

fn fields(text: &str, (hmvc, fmvn): (u32, u32)) {
    let Ok(pos) = position_from_fields(text, hmvc, fmvn) else {
        return;
    };
    assert_eq!(pos.halfmoves(), hmvc);
    assert_eq!(pos.fullmoves().get(), fmvn.max(1));
    let again = position_from_fields(&epd_fields(&pos), hmvc, fmvn).expect("its own fields");
    let fen = |p: &Chess| gamerec::fen::write_fen(p, CastlingMode::Standard);
    assert_eq!(fen(&again), fen(&pos));
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let index = usize::from(selector & 3) + usize::from(selector >> 4 & 1) * 4;
    let (start, mode) =
        gamerec::fen::read_fen(POSITIONS[index % POSITIONS.len()]).expect("a fixed FEN");
    let book = selector & 4 != 0;
    let counters = usize::from(selector >> 3 & 1) | usize::from(selector >> 5) << 1;
    if let Some(first) = text.lines().next() {
        fields(first, COUNTERS[counters % COUNTERS.len()]);
    }
    let mut state = GameState::new(start, Clocks::new("300".parse().expect("a time control")));
    for line in text.lines() {
        let pos = state.position().clone();
        let read = parse_move(&pos, line);
        let played = if book {
            state.play_book_move(line)
        } else {
            state.replay_move(line, Duration::from_millis(10))
        };
        match read {
            Ok(mv) => {
                assert!(pos.is_legal(mv), "{line:?}");
                let san = SanPlus::from_move(pos.clone(), mv).to_string();
                assert_eq!(parse_move(&pos, &san), Ok(mv), "{san}");
                let uci = mv.to_uci(mode).to_string();
                assert_eq!(parse_move(&pos, &uci), Ok(mv), "{uci}");
                assert_eq!(played, Ok(()));
                let last = state.played().last().expect("a move played");
                assert_eq!((last.mv, last.san.as_str()), (mv, san.as_str()));
            }
            Err(e) => {
                check_error(line, &e);
                assert_eq!(played, Err(e));
                assert_eq!(
                    epd_fields(state.position()),
                    epd_fields(&pos),
                    "{line:?} failed but moved"
                );
            }
        }
    }
});
