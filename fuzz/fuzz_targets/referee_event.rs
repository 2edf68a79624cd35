#![no_main]
//! What the referee reads from its operator and its event directory. The
//! first byte picks the reader (modulo 5) and, for state files, the time
//! control and opening of the game (high four bits); the rest, as lossy
//! UTF-8, is the text:
//! - console lines, one per line (`director::Command::parse`): a line reads
//!   as its words do, a game number given is the line's, messages are short;
//! - an EVENT.toml (`event::EventConfig::parse`): an accepted event has
//!   what `parse` promises (its `listen` address is read, not looked up:
//!   a name is looked up when the referee binds), and its schedule
//!   (without the openings file)
//!   pairs two of its players in each of at most `MAX_GAMES` games;
//! - an EPD or a PGN book (`event::read_openings`): every opening plays as
//!   book moves from its start and leaves a game to play;
//! - a game's state file (`director::SavedGame`, `restore`): a restored
//!   game has the saved moves and ending, saves (`saved_game`) to a file
//!   that restores to the same, and its PGN (`export::game_pgn`) reads back
//!   with the same moves and result.
//!
//! Every error message stays short whatever the text holds.
use std::path::Path;

use gamerec::model::GameResult;
use gamerec::shakmaty::{Color, Position};
use gamerec_referee::clock::Clocks;
use gamerec_referee::director::{Command, SavedGame, restore, saved_game};
use gamerec_referee::event::{EventConfig, MAX_GAMES, read_openings};
use gamerec_referee::game_rules::{GameState, Outcome};
use gamerec_referee::game_runner::GameSpec;
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;
use common::check_message;

fn console(text: &str) {
    for line in text.lines() {
        let parsed = Command::parse(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(parsed, Command::parse(&words.join(" ")), "{line:?}");
        match &parsed {
            Ok(Command::Abort(n, _) | Command::Adjourn(n)) => {
                assert_eq!(words.get(1).and_then(|w| w.parse().ok()), Some(*n));
            }
            Ok(_) => assert_eq!(words.len(), 1, "{line:?}"),
            Err(e) => check_message("console", e),
        }
    }
}

fn event(text: &str) {
    let mut config = match EventConfig::parse(text) {
        Ok(c) => c,
        Err(e) => return check_message("event", &e.0),
    };
    assert!(config.players.len() >= 2);
    let mut names: Vec<&str> = config.players.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), config.players.len());
    assert!(names.iter().all(|n| (1..=100).contains(&n.len())));
    config.time_control().expect("an accepted time control");
    config.timing().expect("accepted delays");
    for p in &config.players {
        if let Some(engine) = &p.engine {
            engine
                .parse::<gamerec_engine::EngineSetup>()
                .expect("an accepted engine");
        }
    }
    // The openings file is read from disk: not here.
    config.openings = None;
    match config.schedule(Path::new("/nonexistent")) {
        Ok(games) => {
            assert!(games.len() <= MAX_GAMES);
            for (i, g) in games.iter().enumerate() {
                assert_eq!(g.number as usize, i + 1);
                assert_ne!(g.white, g.black);
                assert!(names.contains(&g.white.as_str()) && names.contains(&g.black.as_str()));
            }
        }
        Err(e) => check_message("schedule", &e.0),
    }
}

fn openings(text: &str, pgn: bool) {
    let openings = match read_openings(text, pgn) {
        Ok(o) => o,
        Err(e) => return check_message("openings", &e),
    };
    assert!(!openings.is_empty());
    for (start, moves) in openings {
        assert!(!pgn || !moves.is_empty());
        let mut state = GameState::new(start, Clocks::new("-".parse().expect("untimed")));
        for san in &moves {
            state.play_book_move(san).expect("a book move");
        }
        assert!(!state.position().is_game_over());
    }
}

/// The spec of game 1 of a fixed event under one of a few time controls,
/// with or without an opening.
fn spec(select: u8) -> GameSpec {
    let tc = ["-", "300", "40/60+1", "*180"][usize::from(select & 3)];
    let text = format!(
        "event = \"Fuzz\"\ndate = \"2026.11.28\"\ntime_control = \"{tc}\"\npairing = \"match\"\n\
         [[player]]\nname = \"w\"\n[[player]]\nname = \"b\"\n"
    );
    let config = EventConfig::parse(&text).expect("a fixed event");
    let mut spec = config
        .schedule(Path::new("/nonexistent"))
        .expect("a fixed schedule")
        .swap_remove(0);
    if select & 4 != 0 {
        spec.opening = vec!["e4".to_owned(), "c5".to_owned()].into();
    }
    spec
}

fn sans(state: &GameState) -> Vec<&str> {
    state.played().iter().map(|p| p.san.as_str()).collect()
}

fn state_file(select: u8, text: &str) {
    let Ok(saved) = serde_json::from_str::<SavedGame>(text) else {
        return;
    };
    let spec = spec(select);
    let state = match restore(&spec, Some(&saved)) {
        Ok(s) => s,
        Err(e) => return check_message("state", &e.0),
    };
    assert_eq!(state.played().len(), saved.moves.len());
    assert_eq!(state.ending(), saved.ending.as_ref());
    // Saved again, written and read: the same game.
    let again = saved_game(&spec, &state);
    let written = serde_json::to_string(&again).expect("a state written");
    let read: SavedGame = serde_json::from_str(&written).expect("a state read back");
    assert_eq!(read, again, "{written}");
    let back = restore(&spec, Some(&read)).expect("a saved state restores");
    assert_eq!(sans(&back), sans(&state));
    assert_eq!(back.ending(), state.ending());
    assert_eq!(saved_game(&spec, &back), again);
    // Its PGN reads back with the same moves and result.
    let pgn = gamerec_referee::export::game_pgn(&spec, &state);
    let (games, _) = gamerec::pgn::read_games(pgn.as_bytes());
    assert_eq!(games.len(), 1, "{pgn}");
    let game = &games[0];
    let read_sans: Vec<&str> = game
        .tree
        .mainline()
        .filter_map(|id| game.tree.node(id).ply.as_ref().map(|p| p.san.as_str()))
        .collect();
    assert_eq!(read_sans, sans(&state), "{pgn}");
    let result = match state.ending().map(|e| e.outcome) {
        Some(Outcome::Win(Color::White)) => GameResult::WhiteWins,
        Some(Outcome::Win(Color::Black)) => GameResult::BlackWins,
        Some(Outcome::Draw) => GameResult::Draw,
        Some(Outcome::Unfinished) | None => GameResult::Unknown,
    };
    assert_eq!(game.result, Some(result), "{pgn}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match selector % 5 {
        0 => console(&text),
        1 => event(&text),
        2 => openings(&text, false),
        3 => openings(&text, true),
        _ => state_file(selector >> 4, &text),
    }
});
