//! A real match: stockfish (weakened) against fairymax through bridges on
//! loopback, checked for legal PGN (by python-chess when present) and for
//! clocks that add up.

use std::path::Path;
use std::time::Duration;

use gamerec_referee::app::{MatchOptions, run_match};
use gamerec_referee::clock::parse_clk_value;
use gamerec_testkit::{peer, python_chess};

/// Seconds of each `[%cmd h:mm:ss]` in order of appearance.
fn command_values(game: &str, cmd: &str) -> Vec<Duration> {
    game.split(&format!("[%{cmd} "))
        .skip(1)
        .filter_map(|rest| parse_clk_value(rest.split(']').next()?))
        .collect()
}

/// Each side's `[%clk]` follows from the previous one, the move time and
/// the increment, within the one-second rounding of both values.
fn check_clocks(game: &str, base: u64, increment: u64) {
    let clk = command_values(game, "clk");
    let emt = command_values(game, "emt");
    assert_eq!(clk.len(), emt.len());
    for side in 0..2 {
        let mut expected = Duration::from_secs(base);
        for i in (side..clk.len()).step_by(2) {
            let next = (expected + Duration::from_secs(increment)).saturating_sub(emt[i]);
            let diff = next.abs_diff(clk[i]);
            assert!(
                diff <= Duration::from_secs(2),
                "ply {}: clock {:?}, expected {:?}",
                i + 1,
                clk[i],
                next
            );
            expected = clk[i];
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
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(pgn)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let _ = std::fs::remove_dir_all(&dir);
    let (summary, dir) = run_match(MatchOptions {
        engines: [
            format!("uci:{}|Skill Level=1", stockfish.display()),
            format!("xboard:{}", fairymax.display()),
        ],
        games: 4,
        time_control: "10".into(),
        concurrency: 2,
        dir: Some(dir),
        openings: None,
        event: "Loopback match".into(),
        verbose: false,
    })
    .unwrap();
    assert_eq!((summary.finished, summary.total), (4, 4));
    let points: f64 = summary.standings.players.iter().map(|p| p.points).sum();
    assert_eq!(points, 4.0);
    let path = dir.join("games.pgn");
    let pgn = std::fs::read_to_string(&path).unwrap();
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 4);
    for game in &games {
        assert!(game.contains("[White \"stockfish\"]") || game.contains("[White \"fairymax\"]"));
        check_clocks(game, 10, 0);
    }
    check_with_python_chess(&path, 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clock_check_catches_inconsistent_clocks() {
    let good = "1. e4 {[%clk 0:00:09] [%emt 0:00:01]} 1... e5 {[%clk 0:00:08] [%emt 0:00:02]} 2. Nf3 {[%clk 0:00:05] [%emt 0:00:04]}";
    check_clocks(good, 10, 0);
    let bad = good.replace("[%clk 0:00:05]", "[%clk 0:00:09]");
    assert!(std::panic::catch_unwind(|| check_clocks(&bad, 10, 0)).is_err());
}
