//! `gamerec match` as an engine-testing runner: a real 20-game match on
//! loopback (stockfish against fairymax, 5+0.05, two at a time), resume
//! after SIGKILL, the SPRT stopping a match, merged reports, adjudication,
//! and the JSON Lines stream.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gamerec::model::Game;
use gamerec::pgn::commands::{KnownCommand, node_commands};
use gamerec_referee::clock::parse_time_control;
use gamerec_testkit::peer;

use crate::util::{json, read_pgn};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

fn fresh_dir(name: &str) -> PathBuf {
    crate::util::fresh_dir("match", name)
}

fn events(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Each side's clocks: start + time added - the sum of its `[%emt]` equals
/// its `[%clk]` to the millisecond (the referee charges whole milliseconds
/// and writes them; a slack of a millisecond a move is allowed), the PGN
/// carries fractions of a second, and no clock goes below zero.
fn check_clocks_add_up(game: &Game) {
    let control = parse_time_control(game.tags.get("TimeControl").unwrap()).unwrap();
    let start = control.initial_time().unwrap();
    let mut per_side: [Vec<(Duration, Duration)>; 2] = [Vec::new(), Vec::new()];
    for (ply, id) in game.tree.mainline().enumerate() {
        let commands = node_commands(game.tree.node(id));
        let clk = commands.iter().find_map(|c| match c {
            KnownCommand::Clk(d) => Some(*d),
            _ => None,
        });
        let emt = commands.iter().find_map(|c| match c {
            KnownCommand::Emt(d) => Some(*d),
            _ => None,
        });
        per_side[ply % 2].push((clk.expect("[%clk]"), emt.expect("[%emt]")));
    }
    let fractions = per_side
        .iter()
        .flatten()
        .any(|(c, e)| c.subsec_millis() != 0 || e.subsec_millis() != 0);
    assert!(fractions, "clocks are written to the millisecond");
    let resolution = Duration::from_millis(1);
    for side in &per_side {
        let mut used = Duration::ZERO;
        let mut added = Duration::ZERO;
        for (n, &(clk, emt)) in side.iter().enumerate() {
            used += emt;
            added += control
                .time_added_after_move(n as u32 + 1)
                .unwrap_or_default();
            let expected = (start + added).saturating_sub(used);
            assert!(
                (start + added) + resolution * (n as u32 + 1) >= used,
                "move {}: the clock went below zero",
                n + 1
            );
            let slack = resolution * (n as u32 + 2);
            assert!(
                expected.abs_diff(clk) <= slack,
                "move {}: [%clk] {clk:?}, start + added - used = {expected:?} (slack {slack:?})",
                n + 1
            );
        }
    }
}

/// The real match of issue 14: stockfish against fairymax, 20 games at
/// 5+0.05 two at a time on loopback; stockfish never loses on time, the PGN
/// passes `check --strict`, the clocks add up, report.json and the event
/// stream count the 20 games once.
#[test]
fn stockfish_against_fairymax_twenty_games_at_5_plus_005() {
    let (Some(stockfish), Some(fairymax)) = (peer("stockfish"), peer("fairymax")) else {
        return;
    };
    let dir = fresh_dir("real");
    let pgn = dir.join("out.pgn");
    let jsonl = dir.join("events.jsonl");
    let out = Command::new(BIN)
        .arg("match")
        // Move Overhead as engine testers set it on a loaded machine: the
        // clocks stockfish is sent are exact, its own margin is 10 ms.
        .arg(format!(
            "uci:{}|Threads=1|Hash=16|Move Overhead=150",
            stockfish.display()
        ))
        .arg(format!("xboard:{}", fairymax.display()))
        .args(["--names", "stockfish,fairymax"])
        .args(["--games", "20", "--tc", "5+0.05", "--concurrency", "2"])
        .args(["--pgn-engine-data", "--quiet", "-o"])
        .arg(&pgn)
        .arg("--events")
        .arg(&jsonl)
        .arg("--dir")
        .arg(dir.join("run"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("Games: 20 of 20 scheduled"), "{stderr}");

    let check = Command::new(BIN)
        .args(["check", "--strict"])
        .arg(&pgn)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&check, "gamerec check --strict");
    let check_text = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    let warnings: Vec<&str> = check_text
        .lines()
        .filter(|l| l.contains("warning") && !l.contains(" with errors, "))
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");

    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 20);
    for game in &games {
        // Each game is played out: no player answers for another game.
        assert_ne!(
            game.tags.get("Termination"),
            Some("rules infraction"),
            "{}",
            gamerec::pgn::writer::export_string(game, &Default::default())
        );
        assert_eq!(game.tags.get("TimeControl"), Some("5+0.05"));
        let duration = game.tags.get("GameDuration").expect("GameDuration");
        assert!(
            duration.len() == 8 && duration.starts_with("00:0"),
            "{duration}"
        );
        let result = game.tags.get("Result").unwrap();
        let termination = game.tags.get("Termination").unwrap();
        let stockfish_white = game.tags.get("White") == Some("stockfish");
        let stockfish_lost = result == if stockfish_white { "0-1" } else { "1-0" };
        assert!(
            !(stockfish_lost && termination == "time forfeit"),
            "stockfish lost on time:\n{}",
            gamerec::pgn::writer::export_string(game, &Default::default())
        );
        check_clocks_add_up(game);
    }
    // Per-move engine data on request.
    let first = &games[0];
    let annotated = first
        .tree
        .mainline()
        .filter(|id| {
            node_commands(first.tree.node(*id))
                .iter()
                .any(|c| matches!(c, KnownCommand::Eval(_)))
        })
        .count();
    assert!(annotated > 0, "no [%eval] in the PGN");

    let report = json(&dir.join("run/report.json"));
    assert_eq!(report["games"], 20);
    let p = &report["pairings"][0];
    let tri = &p["trinomial"];
    let total = tri["wins"].as_u64().unwrap()
        + tri["draws"].as_u64().unwrap()
        + tri["losses"].as_u64().unwrap();
    assert_eq!(total, 20);
    let pairs: u64 = p["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 10);

    let stream = events(&jsonl);
    let ends: BTreeSet<u64> = stream
        .iter()
        .filter(|e| e["type"] == "game_end")
        .map(|e| e["game"].as_u64().unwrap())
        .collect();
    assert_eq!(ends.len(), 20);
    let moves = stream.iter().filter(|e| e["type"] == "move").count();
    let plies: usize = games.iter().map(|g| g.tree.mainline().count()).sum();
    assert_eq!(moves, plies, "one move event per ply");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn write_openings(dir: &Path) -> PathBuf {
    let path = dir.join("openings.epd");
    std::fs::write(
        &path,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
         rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
         rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
         rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - hmvc 1; fmvn 2;\n",
    )
    .unwrap();
    path
}

/// Resume: the match process is killed with SIGKILL while games are in
/// flight; `--resume` plays what is missing. The final PGN has every game
/// once, report.json counts each once, and game pairs share their opening
/// with colours reversed.
#[test]
fn resume_after_sigkill_plays_every_game_once() {
    let dir = fresh_dir("resume");
    let run = dir.join("run");
    let openings = write_openings(&dir);
    let games = 12;
    let mut child = Command::new(BIN)
        .args([
            "match",
            "builtin:4",
            "builtin:3",
            "--tc",
            "60+1",
            "--concurrency",
            "2",
        ])
        .args(["--games", &games.to_string(), "--openings"])
        .arg(&openings)
        .args(["--openings-order", "random", "--seed", "7", "--quiet"])
        .arg("--dir")
        .arg(&run)
        .arg("-o")
        .arg(dir.join("first.pgn"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for two finished games and a game in flight, then SIGKILL.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the match made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the match ended before the kill"
        );
        let finished = std::fs::read_to_string(run.join("report.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|r| r["games"].as_u64())
            .unwrap_or(0);
        let in_flight = std::fs::read_dir(run.join("state"))
            .map(|d| {
                d.flatten().any(|e| {
                    std::fs::read_to_string(e.path())
                        .is_ok_and(|t| t.contains("\"ending\":null") && t.contains("\"san\""))
                })
            })
            .unwrap_or(false);
        if finished >= 2 && in_flight {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = json(&run.join("report.json"))["games"].as_u64().unwrap();
    assert!(before < games, "killed too late: {before} games done");

    let pgn = dir.join("final.pgn");
    let out = Command::new(BIN)
        .args(["match", "--quiet", "--resume"])
        .arg(&run)
        .arg("-o")
        .arg(&pgn)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("Games: {games} of {games} scheduled")),
        "{stderr}"
    );

    let final_games = read_pgn(&pgn);
    assert_eq!(final_games.len(), games as usize);
    let mut by_round: BTreeMap<String, Vec<&Game>> = BTreeMap::new();
    for g in &final_games {
        by_round
            .entry(g.tags.get("Round").unwrap().to_owned())
            .or_default()
            .push(g);
    }
    assert_eq!(by_round.len(), games as usize / 2);
    for (round, pair) in &by_round {
        assert_eq!(pair.len(), 2, "round {round}: each game once");
        assert_eq!(pair[0].tags.get("White"), pair[1].tags.get("Black"));
        assert_eq!(pair[0].tags.get("FEN"), pair[1].tags.get("FEN"));
        assert!(
            pair[0].tags.get("FEN").is_some(),
            "openings are set up by FEN"
        );
    }
    let report = json(&run.join("report.json"));
    assert_eq!(report["games"], games);
    let p = &report["pairings"][0];
    let pairs: u64 = p["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, games / 2);

    // The same run twice is refused; told to, merging it with itself
    // doubles every count.
    let refused = Command::new(BIN)
        .args(["match", "report", "--json"])
        .arg(&run)
        .arg(run.join("report.json"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let merged = Command::new(BIN)
        .args(["match", "report", "--json", "--allow-duplicates"])
        .arg(&run)
        .arg(run.join("report.json"))
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&merged, "gamerec match report");
    let m: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(m["games"], 2 * games);
    assert_eq!(
        m["pairings"][0]["trinomial"]["wins"],
        2 * p["trinomial"]["wins"].as_u64().unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The SPRT stops a lopsided match long before its last game; the report
/// says H1 and the PGN holds only finished games.
#[test]
fn sprt_stops_the_match_when_decided() {
    let dir = fresh_dir("sprt");
    let out = Command::new(BIN)
        .args([
            "match",
            "builtin:3",
            "builtin:1",
            "--games",
            "400",
            "--tc",
            "60+1",
        ])
        .args(["--concurrency", "2", "--sprt", "0", "200", "0.05", "0.05"])
        .args(["--sprt-model", "logistic", "--quiet", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("H1 accepted"), "{stderr}");
    let report = json(&dir.join("run/report.json"));
    assert_eq!(report["decision"], "h1");
    let played = report["games"].as_u64().unwrap();
    assert!(
        played < 100,
        "{played} games: the SPRT did not stop the match"
    );
    let games = read_pgn(&dir.join("out.pgn"));
    assert_eq!(games.len() as u64, played);
    assert!(games.iter().all(|g| g.tags.get("Result") != Some("*")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Adjudication: with a maximum of 10 moves every game is drawn at move
/// 10 (Termination "adjudication"); round robin over three engines.
#[test]
fn max_moves_adjudication_in_a_round_robin() {
    let dir = fresh_dir("adjudication");
    let out = Command::new(BIN)
        .args([
            "match",
            "builtin:1",
            "builtin:2",
            "builtin:3",
            "--games",
            "2",
        ])
        .args(["--tc", "60+1", "--max-moves", "10", "--quiet", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let games = read_pgn(&dir.join("out.pgn"));
    assert_eq!(games.len(), 6);
    let mut pairings = BTreeSet::new();
    for g in &games {
        let (w, b) = (g.tags.get("White").unwrap(), g.tags.get("Black").unwrap());
        pairings.insert(if w < b { (w, b) } else { (b, w) });
        if g.tags.get("Termination") == Some("adjudication") {
            assert_eq!(g.tags.get("Result"), Some("1/2-1/2"));
            assert_eq!(g.tree.mainline().count(), 20);
        } else {
            assert!(g.tree.mainline().count() < 20);
        }
    }
    assert_eq!(pairings.len(), 3);
    assert!(
        stderr.contains("Results of builtin:1 vs builtin:3"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A UCI wrapper around stockfish that, in its first process only (a
/// marker file), crashes (`crash`) or stops answering (`stall`) at its
/// fifth `go`. Its searches go to depth 6 (no clock management involved).
fn faulty_engine(dir: &Path, stockfish: &Path, mode: &str) -> PathBuf {
    let script = dir.join(format!("{mode}.sh"));
    let marker = dir.join(format!("{mode}.first"));
    let fault = if mode == "crash" {
        "exit 3"
    } else {
        "sleep 30"
    };
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/bash
faulty=0
if [ ! -e "{marker}" ]; then touch "{marker}"; faulty=1; fi
coproc SF {{ exec "{stockfish}"; }}
exec 3<&"${{SF[0]}}" 4>&"${{SF[1]}}"
cat <&3 &
n=0
while IFS= read -r line; do
  case "$line" in
    go*) n=$((n+1)); if [ $faulty = 1 ] && [ $n -ge 5 ]; then kill $SF_PID; {fault}; fi
         line="go depth 6";;
  esac
  echo "$line" >&4
  [ "$line" = quit ] && break
done
wait $SF_PID
"#,
            marker = marker.display(),
            stockfish = stockfish.display(),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// An engine that crashes loses that game (`abandoned`); one that stops
/// answering loses it on time; either way its bridge restarts it and the
/// match plays every other game normally.
#[test]
fn crashed_or_stalled_engine_loses_only_that_game_and_restarts() {
    let Some(stockfish) = peer("stockfish") else {
        return;
    };
    for (mode, termination) in [("crash", "abandoned"), ("stall", "time forfeit")] {
        let dir = fresh_dir(mode);
        let engine = faulty_engine(&dir, &stockfish, mode);
        let jsonl = dir.join("events.jsonl");
        let out = Command::new(BIN)
            .arg("match")
            .arg(format!("uci:{}|Skill Level=0", engine.display()))
            .arg("builtin:1")
            .args(["--names", "faulty,builtin", "--games", "4", "--tc", "3+0.1"])
            .args(["--max-moves", "30", "--quiet", "--events"])
            .arg(&jsonl)
            .arg("--dir")
            .arg(dir.join("run"))
            .arg("-o")
            .arg(dir.join("out.pgn"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{mode}: {stderr}");
        let games = read_pgn(&dir.join("out.pgn"));
        assert_eq!(games.len(), 4, "{mode}");
        let first = &games[0];
        assert_eq!(first.tags.get("Termination"), Some(termination), "{mode}");
        assert_eq!(
            first.tags.get("Result"),
            Some("0-1"),
            "{mode}: faulty had White"
        );
        assert_eq!(
            first.tree.mainline().count(),
            8,
            "{mode}: fault at its fifth move"
        );
        for g in &games[1..] {
            let t = g.tags.get("Termination").unwrap();
            assert!(t == "normal" || t == "adjudication", "{mode}: {t}");
        }
        let restarts = events(&jsonl)
            .iter()
            .filter(|e| e["type"] == "engine_restart")
            .count();
        assert!(restarts >= 1, "{mode}: no engine_restart event");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Openings from a Polyglot book: every game starts from a position two
/// book plies deep, both games of a pair from the same one.
#[test]
fn polyglot_book_openings_with_plies() {
    use gamerec::polyglot::{encode_move, key};
    use shakmaty::uci::UciMove;
    use shakmaty::{Chess, Position};
    let dir = fresh_dir("book");
    let mut entries: Vec<(u64, u16, u16)> = Vec::new();
    let mut add = |moves: &[&str], reply: &str, weight: u16| {
        let mut pos = Chess::default();
        for m in moves {
            let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
        }
        let mv = reply.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        entries.push((key(&pos), encode_move(&mv), weight));
    };
    add(&[], "e2e4", 10);
    add(&[], "d2d4", 10);
    add(&["e2e4"], "c7c5", 5);
    add(&["d2d4"], "g8f6", 5);
    entries.sort_unstable();
    let mut bytes = Vec::new();
    for (k, m, w) in entries {
        bytes.extend(k.to_be_bytes());
        bytes.extend(m.to_be_bytes());
        bytes.extend(w.to_be_bytes());
        bytes.extend(0u32.to_be_bytes());
    }
    let book = dir.join("book.bin");
    std::fs::write(&book, bytes).unwrap();
    let out = Command::new(BIN)
        .args([
            "match",
            "builtin:1",
            "builtin:2",
            "--games",
            "8",
            "--tc",
            "60+1",
        ])
        .args([
            "--max-moves",
            "5",
            "--openings-plies",
            "2",
            "--seed",
            "3",
            "--quiet",
        ])
        .arg("--openings")
        .arg(&book)
        .arg("--dir")
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let games = read_pgn(&dir.join("out.pgn"));
    assert_eq!(games.len(), 8);
    // The book's moves are kept as the games' first moves, marked `book`
    // (no clock), and the game starts from the standard position.
    let opening = |game: &Game| {
        let mut sans = Vec::new();
        for (i, node) in game.tree.mainline().enumerate() {
            let n = game.tree.node(node);
            let comment: String = n.comments_after.iter().map(|c| c.text.clone()).collect();
            if i < 2 {
                assert_eq!(comment, "book", "ply {i}");
                sans.push(n.ply.as_ref().unwrap().san.clone());
            } else {
                assert!(comment.contains("[%clk"), "ply {i}: {comment}");
            }
        }
        // Five moves each after the book (--max-moves 5), unless mated.
        assert!(game.tree.mainline().count() <= 12);
        sans.join(" ")
    };
    let mut seen = BTreeSet::new();
    for pair in games.chunks(2) {
        assert_eq!(pair[0].tags.get("FEN"), None);
        let line = opening(&pair[0]);
        assert_eq!(opening(&pair[1]), line);
        assert!(line == "e4 c5" || line == "d4 Nf6", "{line}");
        seen.insert(line);
    }
    assert_eq!(
        seen.len(),
        2,
        "both book lines are drawn over 4 pairs with seed 3"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--http`: the spectator page's `/state` shows the match's games while
/// it runs.
#[test]
fn http_serves_the_spectator_state_during_a_match() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = fresh_dir("http");
    let mut child = Command::new(BIN)
        .args([
            "match",
            "builtin:5",
            "builtin:4",
            "--games",
            "2",
            "--tc",
            "60+1",
        ])
        .args(["--http", "127.0.0.1:0", "--quiet", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let address = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.strip_prefix("match: spectator page at http://")
                .map(|a| a.trim_end_matches('/').to_owned())
        })
        .expect("the spectator page's address on stderr");
    let mut state = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let mut socket = std::net::TcpStream::connect(&address).unwrap();
        socket
            .write_all(b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        let _ = socket.read_to_string(&mut response);
        if response.contains("\"white\":\"builtin:5\"") {
            state = response;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(state.starts_with("HTTP/1.1 200"), "{state}");
    assert!(state.contains("\"games\""), "{state}");
    for _ in lines.by_ref() {}
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--ponder`: the UCI engine gets `go ponder` after its moves and
/// `ponderhit` when the expected reply comes (logged by a wrapper); the
/// games are played out normally.
#[test]
fn ponder_sends_go_ponder_and_ponderhit() {
    let Some(stockfish) = peer("stockfish") else {
        return;
    };
    let dir = fresh_dir("ponder");
    let log = dir.join("stdin.log");
    let wrapper = dir.join("logging.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/bash\ntee -a \"{}\" | \"{}\"\n",
            log.display(),
            stockfish.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(BIN)
        .arg("match")
        .arg(format!("uci:{}|Threads=1", wrapper.display()))
        .arg("builtin:1")
        .args([
            "--names",
            "stockfish,builtin",
            "--games",
            "2",
            "--tc",
            "10+0.1",
        ])
        .args(["--ponder", "--max-moves", "40", "--quiet", "--dir"])
        .arg(dir.join("run"))
        .arg("-o")
        .arg(dir.join("out.pgn"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let sent = std::fs::read_to_string(&log).unwrap();
    let ponders = sent.lines().filter(|l| l.starts_with("go ponder")).count();
    let hits = sent.lines().filter(|l| *l == "ponderhit").count();
    assert!(ponders > 5, "{ponders} ponder searches");
    assert!(hits > 0, "no ponderhit in {ponders} ponder searches");
    assert!(sent.contains("setoption name Ponder value true"));
    for game in read_pgn(&dir.join("out.pgn")) {
        let t = game.tags.get("Termination").unwrap();
        assert!(t == "normal" || t == "adjudication", "{t}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
