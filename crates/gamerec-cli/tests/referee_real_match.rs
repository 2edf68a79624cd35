//! A real match through the CLI: `gamerec match` runs stockfish (weakened)
//! against fairymax through bridges on loopback at 5+0.05; `gamerec check
//! --strict` accepts the PGN without a warning, python-chess (when present)
//! agrees, stockfish never loses on time, and every side's `[%clk]` follows
//! from the TimeControl to the millisecond: remaining = previous - elapsed +
//! time added, never below zero.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use gamerec::model::Game;
use gamerec::pgn::commands::{KnownCommand, node_commands};
use gamerec_referee::clock::{TimeControl, parse_time_control};
use gamerec_testkit::{peer, python_chess};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

/// The `[%clk]` and `[%emt]` values after each main-line move.
fn clocks_and_times(game: &Game) -> Vec<(Duration, Duration)> {
    game.tree
        .mainline()
        .map(|id| {
            let commands = node_commands(game.tree.node(id));
            let clk = commands.iter().find_map(|c| match c {
                KnownCommand::Clk(d) => Some(*d),
                _ => None,
            });
            let emt = commands.iter().find_map(|c| match c {
                KnownCommand::Emt(d) => Some(*d),
                _ => None,
            });
            (
                clk.unwrap_or_else(|| panic!("move without [%clk]")),
                emt.unwrap_or_else(|| panic!("move without [%emt]")),
            )
        })
        .collect()
}

/// Each side's `[%clk]` is exactly its previous clock minus the move's
/// `[%emt]` plus the time the control adds after that move (the referee
/// keeps milliseconds and writes them all); a clock is never negative (a
/// fallen flag ends the game instead).
fn check_clocks(game: &Game) {
    let control = parse_time_control(game.tags.get("TimeControl").expect("TimeControl tag"))
        .expect("a TimeControl the referee runs");
    let start = control.initial_time().expect("a timed control");
    let values = clocks_and_times(game);
    let first_white = shakmaty::Position::turn(&game.start).is_white();
    for side in 0..2 {
        let mut previous = start;
        let mut move_number = 0u32;
        for (ply, &(clk, emt)) in values.iter().enumerate().skip(side).step_by(2) {
            move_number += 1;
            let added = control
                .time_added_after_move(move_number)
                .unwrap_or_default();
            let remaining = (previous + added)
                .checked_sub(emt)
                .unwrap_or_else(|| panic!("ply {}: clock below zero", ply + 1));
            assert!(
                remaining == clk,
                "{} ply {}: [%clk] {clk:?}, expected {remaining:?} ({previous:?} - {emt:?} + {added:?})",
                if (side == 0) == first_white {
                    "White"
                } else {
                    "Black"
                },
                ply + 1,
            );
            previous = clk;
        }
    }
}

fn check_with_python_chess(pgn: &Path, games: usize) {
    let Some(python) = python_chess() else {
        return;
    };
    let script = r#"
import sys, chess.pgn
n = 0
with open(sys.argv[1]) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        assert not g.errors, g.errors
        board = g.board()
        for mv in g.mainline_moves():
            assert board.is_legal(mv), mv
            board.push(mv)
        assert int(g.headers["PlyCount"]) == board.ply()
        assert g.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        if board.is_checkmate():
            assert g.headers["Result"] == ("0-1" if board.turn else "1-0")
        n += 1
print(n)
"#;
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(pgn)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&out, "gamerec");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        games.to_string()
    );
}

#[test]
fn stockfish_against_fairymax_four_games() {
    let (Some(stockfish), Some(fairymax)) = (peer("stockfish"), peer("fairymax")) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("argus-real-{}", std::process::id()));
    gamerec_testkit::remove_at_exit(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("match.pgn");
    let out = Command::new(BIN)
        .arg("match")
        // Move Overhead: stockfish's allowance for the transport of its
        // move, raised from 10 ms for a machine shared with builds; the
        // clocks it is sent stay exact.
        .arg(format!(
            "uci:{}|Skill Level=1|Move Overhead=150",
            stockfish.display()
        ))
        .arg(format!("xboard:{}", fairymax.display()))
        .args(["--games", "4", "--tc", "5+0.05", "--concurrency", "2", "-o"])
        .arg(&pgn)
        .arg("--dir")
        .arg(dir.join("event"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("4 of 4 games played"), "{stderr}");

    let check = Command::new(BIN)
        .args(["check", "--strict"])
        .arg(&pgn)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&check, "gamerec check --strict");
    let warnings = String::from_utf8_lossy(&check.stderr);
    assert!(!warnings.contains("warning"), "{warnings}");

    let games = crate::util::read_pgn(&pgn);
    assert_eq!(games.len(), 4);
    for game in &games {
        let white = game.tags.get("White").unwrap_or_default();
        assert!(white == "stockfish" || white == "fairymax", "{white}");
        assert_eq!(game.tags.get("TimeControl"), Some("5+0.05"));
        let termination = game.tags.get("Termination").unwrap_or_default();
        let result = game.tags.get("Result").unwrap_or_default();
        let stockfish_lost = if white == "stockfish" {
            result == "0-1"
        } else {
            result == "1-0"
        };
        assert!(
            !(termination == "time forfeit" && stockfish_lost),
            "stockfish lost on time"
        );
        check_clocks(game);
    }
    check_with_python_chess(&pgn, 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clock_check_catches_inconsistent_clocks() {
    let game = |movetext: &str| {
        let text = format!("[TimeControl \"10+1\"]\n\n{movetext} *\n");
        gamerec::pgn::read_games(text.as_bytes()).0.remove(0)
    };
    let good = "1. e4 {[%clk 0:00:10] [%emt 0:00:01]} 1... e5 {[%clk 0:00:09] [%emt 0:00:02]} 2. Nf3 {[%clk 0:00:07] [%emt 0:00:04]}";
    check_clocks(&game(good));
    let bad = good.replace("[%clk 0:00:07]", "[%clk 0:00:03]");
    assert!(std::panic::catch_unwind(|| check_clocks(&game(&bad))).is_err());
    let negative = good.replace("[%emt 0:00:04]", "[%emt 0:00:20]");
    assert!(std::panic::catch_unwind(|| check_clocks(&game(&negative))).is_err());
    assert!(matches!(
        parse_time_control("40/60:30"),
        Ok(TimeControl::Periods(_))
    ));
}
