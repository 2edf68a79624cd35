//! Engines that fail during a match (issue #23, "game ends told truly"):
//! a UCI engine (a small python-chess script) that, in its first process
//! only, crashes, stops answering or plays an illegal move at its third
//! search. Each fault costs exactly that game, with the right termination
//! and reason in the PGN, the live output and the event stream; the engine
//! is restarted and the other games play normally; the final report and
//! `report.json` count the fault against that engine. A second test checks
//! the relay figures (the engine's clock runs from `go` to `bestmove`).

use std::path::{Path, PathBuf};
use std::process::Command;

use gamerec::model::Game;
use gamerec_testkit::python_chess;

use crate::util::{json, read_pgn};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

fn fresh_dir(name: &str) -> PathBuf {
    crate::util::fresh_dir("mfault", name)
}

/// A UCI engine in Python: plays the first legal move in UCI order (after
/// captures), answers at once (MODE `slow`: after a second, its second
/// search after three). With MODE `crash`, `stall` or `illegal` its first
/// process (no MARKER file yet) fails at its third `go`: exits with status
/// 3, stops reading and answering, or answers a move that is not legal (a
/// piece moving onto its own piece); with `idle-crash` it exits 0.2 s after
/// its second move.
const ENGINE: &str = r#"
import os, sys, threading, time, chess
mode, marker = sys.argv[1], sys.argv[2]
faulty = mode not in ("none", "slow") and not os.path.exists(marker)
if faulty:
    open(marker, "w").close()
board = chess.Board()
searches = 0
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        out("id name faulty-" + mode); out("uciok")
    elif words[0] == "isready":
        out("readyok")
    elif words[0] == "position":
        if words[1] == "startpos":
            board = chess.Board(); rest = words[2:]
        else:
            board = chess.Board(" ".join(words[2:8])); rest = words[8:]
        if rest and rest[0] == "moves":
            for m in rest[1:]:
                board.push_uci(m)
    elif words[0] == "go":
        searches += 1
        if mode == "slow":
            # Its second search is the one an idle crash must cut short:
            # three seconds leave a margin on a loaded machine.
            time.sleep(3.0 if searches == 2 else 1.0)
        if faulty and mode == "idle-crash" and searches == 2:
            # Exits while the opponent thinks about its second move.
            threading.Timer(0.2, lambda: os._exit(3)).start()
        if faulty and searches == 3:
            if mode == "crash":
                os._exit(3)
            if mode == "stall":
                time.sleep(120)
            if mode == "illegal":
                own = [s for s in chess.SQUARES if board.color_at(s) == board.turn]
                for a in own:
                    for b in own:
                        if a != b:
                            out("bestmove " + chess.square_name(a) + chess.square_name(b))
                            break
                    else:
                        continue
                    break
                continue
        moves = sorted(board.legal_moves, key=lambda m: (not board.is_capture(m), m.uci()))
        out("info depth 1 score cp 0")
        out("bestmove " + (moves[0].uci() if moves else "0000"))
    elif words[0] == "quit":
        break
"#;

fn engine_script(dir: &Path) -> PathBuf {
    let path = dir.join("engine.py");
    std::fs::write(&path, ENGINE).unwrap();
    path
}

/// Runs a 4-game match of the Python engine (MODE) against the built-in
/// engine; returns (status success, stderr, PGN games, report.json).
fn run_match(
    dir: &Path,
    python: &Path,
    mode: &str,
    tc: &str,
) -> (bool, String, Vec<Game>, serde_json::Value) {
    let script = engine_script(dir);
    let marker = dir.join("marker");
    let out = Command::new(BIN)
        .arg("match")
        .arg(format!(
            "uci:{} {} {mode} {}",
            python.display(),
            script.display(),
            marker.display()
        ))
        .arg("builtin:1")
        .args(["--names", "py,builtin", "--games", "4", "--tc", tc])
        .args(["--max-moves", "12", "--events"])
        .arg(dir.join("events.jsonl"))
        .arg("--engine-log")
        .arg(dir.join("io.log"))
        .arg("--dir")
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let games = read_pgn(&dir.join("out.pgn"));
    let report = json(&dir.join("run/report.json"));
    (out.status.success(), stderr, games, report)
}

fn engine<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no engine {name} in {report}"))
}

/// The final comment of a game's last move (the referee's reason).
fn last_comment(game: &Game) -> String {
    let last = game.tree.mainline().last().expect("a move");
    let node = game.tree.node(last);
    node.comments_after
        .iter()
        .map(|c| c.text.clone())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn crash_stall_and_illegal_move_each_cost_exactly_one_game() {
    let Some(python) = python_chess() else {
        eprintln!("skipped: no Python with python-chess (set GAMEREC_PYTHON)");
        return;
    };
    for (mode, termination, reason, counter) in [
        (
            "crash",
            "abandoned",
            "white's engine crashed (exit status: 3)",
            "crashes",
        ),
        ("stall", "time forfeit", "white lost on time (", "timeouts"),
        (
            "illegal",
            "rules infraction",
            "white played an illegal move '",
            "illegal_moves",
        ),
    ] {
        let dir = fresh_dir(mode);
        let (ok, stderr, games, report) = run_match(&dir, &python, mode, "3+0.05");
        assert!(ok, "{mode}: {stderr}");
        assert_eq!(games.len(), 4, "{mode}: {stderr}");
        // Game 1: the faulty engine has White and fails at its third move.
        let first = &games[0];
        assert_eq!(first.tags.get("White"), Some("py"), "{mode}");
        assert_eq!(
            first.tags.get("Termination"),
            Some(termination),
            "{mode}: {stderr}"
        );
        assert_eq!(first.tags.get("Result"), Some("0-1"), "{mode}");
        assert_eq!(
            first.tree.mainline().count(),
            4,
            "{mode}: two moves each, then the fault"
        );
        let comment = last_comment(first);
        assert!(comment.contains(reason), "{mode}: comment {comment:?}");
        if mode == "stall" {
            assert!(comment.contains("ms over"), "{mode}: {comment:?}");
        }
        // The others play normally (the restarted engine).
        for g in &games[1..] {
            let t = g.tags.get("Termination").unwrap();
            assert!(t == "normal" || t == "adjudication", "{mode}: {t}");
        }
        // The live output says how each game ended.
        let finished: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("Finished game "))
            .collect();
        assert_eq!(finished.len(), 4, "{mode}: {stderr}");
        assert!(
            finished
                .iter()
                .any(|l| l.starts_with("Finished game 1 (py vs builtin): 0-1 {")
                    && l.contains(termination)
                    && l.contains(reason)),
            "{mode}: {finished:?}"
        );
        // Counted against the faulty engine only, in report.json and in
        // the final report.
        let py = engine(&report, "py");
        let builtin = engine(&report, "builtin");
        for c in ["crashes", "timeouts", "illegal_moves"] {
            let want = u64::from(c == counter);
            assert_eq!(py[c], want, "{mode}: py {c}: {py}");
            assert_eq!(builtin[c], 0, "{mode}: builtin {c}: {builtin}");
        }
        assert_eq!(py["games"], 4, "{mode}: {py}");
        assert_eq!(
            py["wins"].as_u64().unwrap()
                + py["draws"].as_u64().unwrap()
                + py["losses"].as_u64().unwrap(),
            4
        );
        assert!(py["losses"].as_u64().unwrap() >= 1, "{mode}: {py}");
        assert_eq!(
            py["wins"], builtin["losses"],
            "{mode}: W/L mirror: {report}"
        );
        assert!(py["moves"].as_u64().unwrap() >= 4, "{mode}: {py}");
        assert!(builtin["avg_move_ms"].as_f64().is_some(), "{builtin}");
        let label = match counter {
            "crashes" => "Crashed: 1",
            "timeouts" => "Timeouts: 1",
            _ => "Illegal moves: 1",
        };
        let line = stderr
            .lines()
            .find(|l| l.starts_with("Engine py: "))
            .unwrap_or_else(|| panic!("{mode}: no engine line: {stderr}"));
        assert!(line.contains(label), "{mode}: {line}");
        assert!(line.contains("Avg time per move: "), "{line}");
        // The restart is in the event stream.
        let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
        if mode != "illegal" {
            assert!(events.contains("\"engine_restart\""), "{mode}");
        }
        assert!(
            events.contains(&format!("\"termination\":\"{termination}\"")),
            "{mode}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The engine's clock runs from `go` written to `bestmove` read: the
/// relay's overhead per move (the referee's measure less the engine's) is
/// measured and reported with mean, p50, p99 and max, in report.json and
/// the final report; each move's charged time is what the engine took,
/// not more.
#[test]
fn relay_overhead_is_measured_and_not_charged() {
    let Some(python) = python_chess() else {
        eprintln!("skipped: no Python with python-chess (set GAMEREC_PYTHON)");
        return;
    };
    let dir = fresh_dir("relay");
    let (ok, stderr, games, report) = run_match(&dir, &python, "none", "10+0.1");
    assert!(ok, "{stderr}");
    assert_eq!(games.len(), 4);
    let relay = &report["relay"];
    let latency = &report["referee_latency"];
    for (what, s) in [("relay", relay), ("referee_latency", latency)] {
        let f = |k: &str| {
            s[k].as_f64()
                .unwrap_or_else(|| panic!("{what}.{k} missing: {report}"))
        };
        let (mean, p50, p99, max) = (f("mean_ms"), f("p50_ms"), f("p99_ms"), f("max_ms"));
        assert!(s["moves"].as_u64().unwrap() >= 20, "{what}: {s}");
        assert!(0.0 <= p50 && p50 <= p99 && p99 <= max, "{what}: {s}");
        assert!(mean <= max && mean > 0.0, "{what}: {s}");
        // Loopback and in-process: well under a second even on a busy
        // machine (the figures are sane, not a speed test).
        assert!(max < 1000.0, "{what}: {s}");
    }
    // Both engines answer within milliseconds: with the relay not charged
    // the average charged time per move stays small.
    for e in report["engines"].as_array().unwrap() {
        assert!(e["avg_move_ms"].as_f64().unwrap() < 500.0, "{e}");
    }
    let line = stderr
        .lines()
        .find(|l| l.starts_with("Relay overhead per move: mean "))
        .unwrap_or_else(|| panic!("no relay line: {stderr}"));
    for part in [" p50 ", " p99 ", " max "] {
        assert!(line.contains(part), "{line}");
    }
    // Each move's state carries its relay figure: charged + relay is the
    // referee's measure, so the relay is never negative and the charged
    // time is the engine's own.
    let state = json(&dir.join("run/state/game-0001.json"));
    let moves = state["moves"].as_array().unwrap();
    assert!(
        moves.iter().filter(|m| m.get("relay_us").is_some()).count() >= moves.len() - 1,
        "{state}"
    );
    // The engine I/O log has what the Python engine was sent and said.
    let io = std::fs::read_to_string(dir.join("io.log")).unwrap();
    assert!(io.lines().any(|l| l.ends_with(" > uci")), "{io}");
    assert!(io.lines().any(|l| l.contains(" < bestmove ")), "{io}");
    assert!(io.lines().any(|l| l.contains(" > go ")), "{io}");
    // `match report` refuses the same run twice unless told; report.json
    // names the run and its time control.
    assert_eq!(report["time_control"], "10+0.1");
    assert!(
        report["run"].as_str().is_some_and(|r| r.len() == 32),
        "{report}"
    );
    let run = dir.join("run");
    let twice = Command::new(BIN)
        .args(["match", "report"])
        .arg(&run)
        .arg(run.join("report.json"))
        .output()
        .unwrap();
    assert!(!twice.status.success());
    let why = String::from_utf8_lossy(&twice.stderr);
    assert!(why.contains("given twice"), "{why}");
    let allowed = Command::new(BIN)
        .args(["match", "report", "--allow-duplicates"])
        .arg(&run)
        .arg(&run)
        .output()
        .unwrap();
    assert!(allowed.status.success());
    assert!(String::from_utf8_lossy(&allowed.stdout).contains("Games: 8 of 8 scheduled"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Milliseconds of a log line's timestamp (`2026-11-26T02:01:43.546Z ...`).
fn log_ms(line: &str) -> u64 {
    let t = &line[11..23]; // HH:MM:SS.mmm
    let h: u64 = t[0..2].parse().unwrap();
    let m: u64 = t[3..5].parse().unwrap();
    let s: u64 = t[6..8].parse().unwrap();
    let ms: u64 = t[9..12].parse().unwrap();
    ((h * 60 + m) * 60 + s) * 1000 + ms
}

/// `--noswap` keeps the first engine White in both games of a pair;
/// `--wait` rests the engines between games; `--engine-log` is opened.
#[test]
fn noswap_and_wait() {
    let dir = fresh_dir("noswap");
    let out = Command::new(BIN)
        .args(["match", "builtin:1", "builtin:1", "--names", "a,b"])
        .args(["--games", "2", "--tc", "10+0.1", "--max-moves", "4"])
        .args(["--noswap", "--wait", "400", "-q", "--engine-log"])
        .arg(dir.join("io.log"))
        .arg("--dir")
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = read_pgn(&dir.join("out.pgn"));
    let whites: Vec<_> = games.iter().map(|g| g.tags.get("White")).collect();
    assert_eq!(whites, [Some("a"), Some("a")]);
    let log = std::fs::read_to_string(dir.join("run/log.txt")).unwrap();
    let at = |what: &str| {
        log.lines()
            .find(|l| l.contains(what))
            .map(log_ms)
            .unwrap_or_else(|| panic!("no {what:?} in the log"))
    };
    let gap = at("game 2: a - b starts") - at("game 1: a - b ends");
    assert!(gap >= 400, "{gap} ms between the games");
    // The built-in engines have no process: the I/O log is created, empty.
    assert!(dir.join("io.log").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An engine that exits while its opponent thinks is seen at once (its
/// process is waited on), not at its next search: the game ends before the
/// opponent's (slow) reply is played.
#[test]
fn a_crash_between_searches_is_seen_at_once() {
    let Some(python) = python_chess() else {
        eprintln!("skipped: no Python with python-chess (set GAMEREC_PYTHON)");
        return;
    };
    let dir = fresh_dir("idle");
    let script = engine_script(&dir);
    let engine = |mode: &str| {
        format!(
            "uci:{} {} {mode} {}",
            python.display(),
            script.display(),
            dir.join(format!("marker-{mode}")).display()
        )
    };
    let out = Command::new(BIN)
        .arg("match")
        .args([engine("idle-crash"), engine("slow")])
        .args(["--names", "crasher,slow", "--games", "2", "--tc", "20+0.1"])
        .args(["--max-moves", "3", "-q", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let games = read_pgn(&dir.join("out.pgn"));
    assert_eq!(games.len(), 2);
    let first = &games[0];
    assert_eq!(first.tags.get("Termination"), Some("abandoned"));
    assert_eq!(first.tags.get("Result"), Some("0-1"));
    // crasher's two moves and slow's first: slow's second never came.
    assert_eq!(first.tree.mainline().count(), 3, "{stderr}");
    let comment = last_comment(first);
    assert!(
        comment.contains("white's engine crashed (exit status: 3)"),
        "{comment:?}"
    );
    assert_ne!(games[1].tags.get("Termination"), Some("abandoned"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--each` gives every engine the same options, before its own: a wrong
/// one stops the match at the start, naming it; a right one is saved in
/// match.json with each engine.
#[test]
fn each_sets_options_of_every_engine() {
    let dir = fresh_dir("each");
    let run = |each: &str, sub: &str| {
        Command::new(BIN)
            .args(["match", "builtin:1", "builtin:1|Hash=2", "--names", "a,b"])
            .args(["--games", "2", "--tc", "10+0.1", "--max-moves", "2", "-q"])
            .args(["--each", each, "--dir"])
            .arg(dir.join(sub))
            .arg("-o")
            .arg(dir.join(format!("{sub}.pgn")))
            .output()
            .unwrap()
    };
    let bad = run("NoSuchOption=1", "bad");
    assert!(!bad.status.success());
    let why = String::from_utf8_lossy(&bad.stderr);
    assert!(why.contains("NoSuchOption"), "{why}");
    let good = run("Hash=1", "good");
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let config = json(&dir.join("good/match.json"));
    assert_eq!(config["engines"][0]["spec"], "builtin:1|Hash=1");
    assert_eq!(config["engines"][1]["spec"], "builtin:1|Hash=1|Hash=2");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `go` lines of one engine process in an `--engine-log` file.
fn go_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(" > go").map(|(_, rest)| format!("go{rest}")))
        .collect()
}

/// Per-engine limits (`--limits`): the limited engine's every `go` carries
/// its depth (and no clock), the other engine keeps the match's clock; a
/// limited engine with its own `tc` gets the clock, its nodes and movetime
/// and its own increment; the PGN has each side's control and `gamerec
/// check` reads it back; the report says each engine's limits.
#[test]
fn per_engine_limits_reach_go_the_pgn_and_the_report() {
    let Some(python) = python_chess() else {
        eprintln!("skipped: no Python with python-chess (set GAMEREC_PYTHON)");
        return;
    };
    let dir = fresh_dir("limits");
    let script = engine_script(&dir);
    let run = |name: &str, limits: &[&str]| {
        let mut cmd = Command::new(BIN);
        cmd.arg("match")
            .arg(format!(
                "uci:{} {} none {}",
                python.display(),
                script.display(),
                dir.join("marker").display()
            ))
            .arg("builtin:1")
            .args(["--names", "py,builtin", "--games", "2", "--tc", "60+1"])
            .args(["--max-moves", "4", "-q", "--engine-log"])
            .arg(dir.join(format!("{name}.log")))
            .arg("--dir")
            .arg(dir.join(name))
            .arg("-o")
            .arg(dir.join(format!("{name}.pgn")));
        for l in limits {
            cmd.args(["--limits", l]);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let check = Command::new(BIN)
            .arg("check")
            .arg(dir.join(format!("{name}.pgn")))
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
        (stderr, read_pgn(&dir.join(format!("{name}.pgn"))))
    };

    // py at depth 1 (untimed), the built-in engine at 60+1.
    let (stderr, games) = run("depth", &["1:depth=1"]);
    let gos = go_lines(&dir.join("depth.log"));
    assert_eq!(gos.len(), 8, "{gos:?}");
    assert!(gos.iter().all(|g| g == "go depth 1"), "{gos:?}");
    assert!(
        stderr.contains("Limits of py: depth=1 (clock -)"),
        "{stderr}"
    );
    for game in &games {
        let py_white = game.tags.get("White") == Some("py");
        let (py, builtin) = if py_white {
            ("WhiteTimeControl", "BlackTimeControl")
        } else {
            ("BlackTimeControl", "WhiteTimeControl")
        };
        assert_eq!(game.tags.get(py), Some("-"));
        assert_eq!(game.tags.get(builtin), Some("60+1"));
        assert_eq!(game.tags.get("TimeControl"), None);
        // Only the timed side's moves carry its clock.
        for (i, node) in game.tree.mainline().enumerate() {
            let text: String = game
                .tree
                .node(node)
                .comments_after
                .iter()
                .map(|c| c.text.clone())
                .collect();
            let py_moved = (i % 2 == 0) == py_white;
            assert_eq!(text.contains("[%clk"), !py_moved, "ply {i}: {text}");
        }
    }

    // py with its own 10+0.1, nodes and movetime; the built-in at depth 1.
    let (stderr, games) = run("own", &["py:tc=10+0.1,nodes=500,st=0.25", "2:depth=1"]);
    let gos = go_lines(&dir.join("own.log"));
    assert_eq!(gos.len(), 8, "{gos:?}");
    for g in &gos {
        assert!(g.starts_with("go wtime "), "{g}");
        assert!(g.ends_with(" nodes 500 movetime 250"), "{g}");
        assert!(
            g.contains(" winc 100 binc 0 ") || g.contains(" winc 0 binc 100 "),
            "{g}"
        );
    }
    assert!(
        stderr.contains("Limits of py: tc=10+0.1,nodes=500,st=0.25 (clock 10+0.1)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Limits of builtin: depth=1 (clock -)"),
        "{stderr}"
    );
    let white = &games[0];
    assert_eq!(white.tags.get("White"), Some("py"));
    assert_eq!(white.tags.get("WhiteTimeControl"), Some("10+0.1"));
    assert_eq!(white.tags.get("BlackTimeControl"), Some("-"));
    let config = json(&dir.join("own/match.json"));
    assert_eq!(config["limits"][0]["nodes"], 500);
    assert_eq!(config["limits"][1]["depth"], 1);

    // Bad limits are usage errors.
    for bad in ["3:depth=1", "nobody:depth=1", "1:speed=3", "1depth=1"] {
        let out = Command::new(BIN)
            .args(["match", "builtin:1", "builtin:1", "--limits", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--limits"),
            "{bad}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Chess960 (`--variant fischerandom`) and DFRC (`--openings dfrc`): the
/// built-in engines play from start positions drawn by the seed; the PGN
/// has `[Variant "Chess960"]`, SetUp and FEN, and `gamerec check` replays
/// it without error, as python-chess does (when GAMEREC_PYTHON has it).
#[test]
fn chess960_and_dfrc_games_replay_in_gamerec_and_python_chess() {
    let dir = fresh_dir("960");
    for (name, how) in [
        ("c960", ["--variant", "fischerandom"]),
        ("dfrc", ["--openings", "dfrc"]),
    ] {
        let out = Command::new(BIN)
            .args(["match", "builtin:1", "builtin:1", "--names", "a,b"])
            .args(["--games", "4", "--tc", "10+0.1", "--max-moves", "40"])
            .args(how)
            .args(["--seed", "5", "-q", "--dir"])
            .arg(dir.join(name))
            .arg("-o")
            .arg(dir.join(format!("{name}.pgn")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let pgn = dir.join(format!("{name}.pgn"));
        let check = Command::new(BIN).arg("check").arg(&pgn).output().unwrap();
        assert!(check.status.success(), "{check:?}");
        let games = read_pgn(&pgn);
        assert_eq!(games.len(), 4);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.tags.get("Variant"), Some("Chess960"), "game {i}");
            assert_eq!(g.tags.get("SetUp"), Some("1"));
            let fen = g.tags.get("FEN").unwrap();
            let (white, black) = (
                fen.split(['/', ' ']).nth(7).unwrap(),
                fen.split('/').next().unwrap(),
            );
            if name == "c960" {
                assert_eq!(white.to_lowercase(), black, "{fen}");
            }
        }
        // DFRC: over the pairs, some position has different back ranks.
        if name == "dfrc" {
            assert!(games.iter().any(|g| {
                let fen = g.tags.get("FEN").unwrap();
                fen.split(['/', ' ']).nth(7).unwrap().to_lowercase()
                    != fen.split('/').next().unwrap()
            }));
        }
        let Some(python) = python_chess() else {
            eprintln!(
                "python-chess part skipped: no Python with python-chess (set GAMEREC_PYTHON)"
            );
            continue;
        };
        let script = r#"
import sys, chess.pgn
n = 0
with open(sys.argv[1]) as f:
    while (game := chess.pgn.read_game(f)) is not None:
        assert game.headers["Variant"] == "Chess960", game.headers
        board = game.board()
        assert board.chess960, board.fen()
        assert not game.errors, game.errors
        for mv in game.mainline_moves():
            assert board.is_legal(mv), (board.fen(), mv)
            board.push(mv)
        n += 1
print(n)
"#;
        let out = Command::new(&python)
            .arg("-c")
            .arg(script)
            .arg(&pgn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "4");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Stockfish plays Chess960: UCI_Chess960 is set once per game (not before
/// every search), castling goes out king-takes-rook, and the games check.
#[test]
fn stockfish_plays_chess960() {
    let Some(stockfish) = gamerec_testkit::peer("stockfish") else {
        return;
    };
    let dir = fresh_dir("sf960");
    let out = Command::new(BIN)
        .arg("match")
        .arg(format!("uci:{}|Hash=16", stockfish.display()))
        .arg("builtin:1")
        .args(["--games", "2", "--tc", "2+0.02", "--max-moves", "30"])
        .args(["--variant", "chess960", "--seed", "7", "-q", "--engine-log"])
        .arg(dir.join("io.log"))
        .arg("--dir")
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(dir.join("io.log")).unwrap();
    let set = log
        .lines()
        .filter(|l| l.ends_with("> setoption name UCI_Chess960 value true"))
        .count();
    assert_eq!(set, 1, "one engine process, told once");
    let check = Command::new(BIN)
        .arg("check")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
    let games = read_pgn(&dir.join("out.pgn"));
    assert_eq!(games.len(), 2);
    assert!(
        games
            .iter()
            .all(|g| g.tags.get("Variant") == Some("Chess960"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An XBoard engine without `fischerandom` in its variants is refused a
/// Chess960 game with a clear message (it would play other moves than
/// the board's), not charged illegal moves.
#[test]
fn xboard_engine_without_fischerandom_is_refused_chess960() {
    let Some(fairymax) = gamerec_testkit::peer("fairymax") else {
        return;
    };
    let dir = fresh_dir("fm960");
    let out = Command::new(BIN)
        .arg("match")
        .arg(format!("xboard:{}", fairymax.display()))
        .arg("builtin:1")
        .args(["--names", "fm,bi", "--games", "2", "--tc", "2+0.02"])
        .args(["--variant", "chess960", "-q", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let games = read_pgn(&dir.join("out.pgn"));
    if games
        .iter()
        .any(|g| g.tags.get("Termination") == Some("normal"))
    {
        eprintln!("skipped: this fairymax plays fischerandom");
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    assert!(
        stderr.contains("does not play Chess960 (no fischerandom in its variants)"),
        "{stderr}"
    );
    let report = json(&dir.join("run/report.json"));
    assert_eq!(engine(&report, "fm")["illegal_moves"], 0, "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}
