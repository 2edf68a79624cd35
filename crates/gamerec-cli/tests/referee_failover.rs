//! Process-level referee tests on 127.0.0.1: killing the primary hands the
//! event over to an `--observe` instance with no move lost; serial mode over
//! FIFOs; `gamerec match` writes PGN; the spectator page renders in headless
//! Chromium.

use crate::cdp;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

struct Reaper(Vec<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("argus-cli-{name}-{}", std::process::id()));
    gamerec_testkit::remove_at_exit(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn saved_moves(dir: &Path, game: u32) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(format!("state/game-{game:04}.json"))) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    v["moves"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m["san"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn observer_takes_over_when_the_primary_is_killed() {
    let dir = temp_dir("failover");
    let (p1, p2) = (free_port(), free_port());
    std::fs::write(
        dir.join("EVENT.toml"),
        "event = \"Fail-over\"\ntime_control = \"-\"\npairing = \"match\"\ngames = 2\n\
         reset_delay = 0.05\nconclude_delay = 0.05\ngrace = 20\n\
         [[player]]\nname = \"one\"\n[[player]]\nname = \"two\"\n",
    )
    .unwrap();
    let event = dir.join("EVENT.toml");
    let event = event.to_str().unwrap();
    let (a1, a2) = (format!("127.0.0.1:{p1}"), format!("127.0.0.1:{p2}"));
    let mut primary = spawn(&["referee", "serve", "--event", event, "--listen", &a1]);
    // The observer takes over from a primary it cannot reach: start it only
    // once the primary listens (a slow start on a busy machine had the
    // observer run the event too, both writing the same directory).
    assert!(
        wait_until(Duration::from_secs(30), || {
            std::net::TcpStream::connect(&a1).is_ok()
        }),
        "the primary never listened"
    );
    let observer = spawn(&[
        "referee",
        "serve",
        "--event",
        event,
        "--listen",
        &a2,
        "--observe",
        &a1,
    ]);
    let both = format!("{a1},{a2}");
    let bridges = [
        spawn(&["bridge", "--engine", "builtin:3", "--name", "one", &both]),
        spawn(&["bridge", "--engine", "builtin:3", "--name", "two", &both]),
    ];
    let mut reaper = Reaper(Vec::new());
    // Kill the primary in the middle of game 1.
    assert!(
        wait_until(Duration::from_secs(60), || saved_moves(&dir, 1).len() >= 6),
        "game 1 never got going"
    );
    primary.kill().unwrap();
    primary.wait().unwrap();
    let before = saved_moves(&dir, 1);
    reaper.0.push(observer);
    reaper.0.extend(bridges);
    // The observer resumes and finishes both games.
    assert!(
        wait_until(Duration::from_secs(120), || {
            std::fs::read_to_string(dir.join("standings.json"))
                .is_ok_and(|s| s.contains("\"games_played\": 2"))
        }),
        "the observer did not finish the event"
    );
    let after = saved_moves(&dir, 1);
    assert!(after.len() >= before.len());
    assert_eq!(&after[..before.len()], &before[..], "no move lost");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event \"Fail-over\"]").count(), 2);
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert!(log.contains("game 1 resumes after"), "{log}");
    drop(reaper);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `gamerec referee serve` process killed with SIGKILL mid-game and
/// started again on the same event directory resumes the unfinished game
/// from its recorded moves (replayed to the bridges with `execute`) and
/// completes the event with PGN that `gamerec check` accepts.
#[test]
fn referee_restarted_after_sigkill_resumes_the_game() {
    let dir = temp_dir("sigkill");
    let port = free_port();
    std::fs::write(
        dir.join("EVENT.toml"),
        "event = \"Restart\"\ntime_control = \"-\"\npairing = \"match\"\ngames = 2\n\
         reset_delay = 0.05\nconclude_delay = 0.05\ngrace = 20\n\
         [[player]]\nname = \"one\"\n[[player]]\nname = \"two\"\n",
    )
    .unwrap();
    let event = dir.join("EVENT.toml");
    let event = event.to_str().unwrap();
    let address = format!("127.0.0.1:{port}");
    let serve = || spawn(&["referee", "serve", "--event", event, "--listen", &address]);
    let mut first = serve();
    let mut reaper = Reaper(vec![
        spawn(&["bridge", "--engine", "builtin:3", "--name", "one", &address]),
        spawn(&["bridge", "--engine", "builtin:3", "--name", "two", &address]),
    ]);
    assert!(
        wait_until(Duration::from_secs(60), || saved_moves(&dir, 1).len() >= 6),
        "game 1 never got going"
    );
    // Child::kill is SIGKILL on Unix: no handler runs, nothing is flushed.
    first.kill().unwrap();
    first.wait().unwrap();
    let before = saved_moves(&dir, 1);
    assert!(
        !std::fs::read_to_string(dir.join("standings.json"))
            .unwrap_or_default()
            .contains("\"games_played\": 2"),
        "the event ended before the kill"
    );
    reaper.0.push(serve());
    assert!(
        wait_until(Duration::from_secs(120), || {
            std::fs::read_to_string(dir.join("standings.json"))
                .is_ok_and(|s| s.contains("\"games_played\": 2"))
        }),
        "the restarted referee did not finish the event"
    );
    let after = saved_moves(&dir, 1);
    assert!(after.len() >= before.len());
    assert_eq!(&after[..before.len()], &before[..], "no move lost");
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert!(
        log.contains(&format!("game 1 resumes after {} moves", before.len())),
        "{log}"
    );
    assert!(
        log.contains("refcom execute"),
        "moves replayed with execute"
    );
    let pgn_path = dir.join("games.pgn");
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    assert_eq!(pgn.matches("[Event \"Restart\"]").count(), 2);
    let (games, _) = gamerec::pgn::read_games(pgn.as_bytes());
    let game1 = games
        .iter()
        .find(|g| g.tags.get("Round") == Some("1"))
        .expect("game 1 in the PGN");
    let sans: Vec<String> = game1
        .tree
        .mainline()
        .filter_map(|id| game1.tree.node(id).ply.as_ref().map(|p| p.san.clone()))
        .collect();
    assert_eq!(sans, after, "the PGN of game 1 is its recorded moves");
    let check = Command::new(BIN)
        .arg("check")
        .arg(&pgn_path)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&check, "gamerec check");
    drop(reaper);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn serial_clients_over_fifos() {
    let dir = temp_dir("serial");
    let mut fifos = Vec::new();
    for name in ["a.in", "a.out", "b.in", "b.out"] {
        let p = dir.join(name);
        let ok = Command::new("mkfifo").arg(&p).status().unwrap().success();
        assert!(ok);
        fifos.push(p.to_str().unwrap().to_owned());
    }
    std::fs::write(
        dir.join("EVENT.toml"),
        "event = \"Serial\"\ntime_control = \"60\"\npairing = \"match\"\ngames = 1\n\
         reset_delay = 0.05\nconclude_delay = 0.05\n\
         [[player]]\nname = \"left\"\n[[player]]\nname = \"right\"\n",
    )
    .unwrap();
    let event = dir.join("EVENT.toml");
    let port = free_port().to_string();
    let listen = format!("127.0.0.1:{port}");
    let serial_a = format!("{}:{}", fifos[0], fifos[1]);
    let serial_b = format!("{}:{}", fifos[2], fifos[3]);
    let referee = Command::new(BIN)
        .args([
            "referee",
            "serve",
            "--event",
            event.to_str().unwrap(),
            "--listen",
            &listen,
        ])
        .args(["--serial", &serial_a, "--serial", &serial_b])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The clients: the referee reads a.in and writes a.out.
    let client = |name: &'static str, input: String, output: String| {
        std::thread::spawn(move || {
            use std::io::{BufRead, BufReader, Write};
            let mut to_referee = std::fs::OpenOptions::new()
                .write(true)
                .open(&input)
                .unwrap();
            let from_referee = BufReader::new(std::fs::File::open(&output).unwrap());
            writeln!(
                to_referee,
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"s\" \"{name}\";"
            )
            .unwrap();
            let mut seen = Vec::new();
            for line in from_referee.lines() {
                let Ok(line) = line else { break };
                if line.contains("refcom respond;") {
                    // Resign at once: the protocol round trip is what is tested.
                    let fields: Vec<&str> = line.split_whitespace().take(4).collect();
                    let mut pos = fields.join(" ");
                    if line.contains(" sm ") {
                        // After the opponent's move the position differs; use the
                        // fools-proof start: only White ever moves first here.
                        pos = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3".into();
                    }
                    let reply = if name == "left" { "sm e4;" } else { "resign;" };
                    writeln!(to_referee, "{pos} refreq reply; {reply}").unwrap();
                }
                let done = line.contains("refcom disconnect;");
                seen.push(line);
                if done {
                    break;
                }
            }
            seen
        })
    };
    let left = client("left", fifos[0].clone(), fifos[1].clone());
    let right = client("right", fifos[2].clone(), fifos[3].clone());
    let left = left.join().unwrap();
    let right = right.join().unwrap();
    let output = referee.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(left.iter().any(|l| l.contains("refcom conclude;")));
    assert!(
        right
            .iter()
            .any(|l| l.contains("ptp") && l.contains("Result \"1-0\""))
    );
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(
        pgn.contains("1. e4 ") && pgn.contains("black resigns"),
        "{pgn}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_command_writes_pgn() {
    let dir = temp_dir("match");
    let out = dir.join("m.pgn");
    let status = Command::new(BIN)
        .args([
            "match",
            "builtin:1",
            "builtin:2",
            "--games",
            "2",
            "--tc",
            "40/30+1",
            "-o",
        ])
        .arg(&out)
        .arg("--dir")
        .arg(dir.join("event"))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&status, "gamerec");
    assert!(String::from_utf8_lossy(&status.stderr).contains("2 of 2 games played"));
    let pgn = std::fs::read_to_string(&out).unwrap();
    assert_eq!(pgn.matches("[TimeControl \"40/30+1\"]").count(), 2);
    assert!(pgn.contains("[White \"builtin:1\"]") && pgn.contains("[White \"builtin:2\"]"));
    // An engine that cannot start: exit 2, and the match directory it
    // named itself (in TMPDIR) is gone again.
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let bad = Command::new(BIN)
        .args(["match", "builtin", "nonsense", "--games", "1"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let why = String::from_utf8_lossy(&bad.stderr);
    assert!(
        why.contains(&format!("match: directory {}", tmp.display())),
        "{why}"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "a failed match left {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `GET path` on 127.0.0.1:`port`; the response body, or `None` when the
/// server does not answer.
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
}

/// The first server-sent event of `GET /events` (up to its blank line).
fn sse_first_event(port: u16) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while seen.len() < 1 << 20 {
        let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
        seen.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&seen);
        if let Some(start) = text.find("data: ")
            && let Some(len) = text[start..].find("\n\n")
        {
            return Some(text[start..start + len].to_string());
        }
    }
    None
}

#[test]
fn spectator_page_renders_live_games_in_chromium() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let dir = temp_dir("spectator");
    let (port, http) = (free_port(), free_port());
    let event = dir.join("EVENT.toml");
    let mut toml = String::from(
        "event = \"Spectator check\"\nsite = \"127.0.0.1\"\ntime_control = \"40/600\"\n\
         pairing = \"round-robin\"\nrounds = 50\nconcurrency = 2\nreset_delay = 0.1\n\
         conclude_delay = 0.1\n",
    );
    for (name, depth) in [("alpha", 4), ("beta", 3), ("gamma", 4), ("delta", 3)] {
        toml.push_str(&format!(
            "[[player]]\nname = \"{name}\"\nengine = \"builtin:{depth}\"\n"
        ));
    }
    std::fs::write(&event, toml).unwrap();
    let _reaper = Reaper(vec![spawn(&[
        "referee",
        "serve",
        "--event",
        event.to_str().unwrap(),
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--http",
        &format!("127.0.0.1:{http}"),
    ])]);
    assert!(
        wait_until(Duration::from_secs(30), || {
            http_get(http, "/state").is_some_and(|s| s.contains("\"moves\":[\""))
        }),
        "no game started"
    );
    // The live feed: server-sent events, each a JSON state of the games.
    let first = sse_first_event(http).expect("an event on /events");
    assert!(
        first.starts_with("data: {") && first.contains("\"games\""),
        "{first}"
    );
    // The page in a browser: its script connects to the event stream and
    // draws the state (boards, players, clocks, the moves so far). Waited
    // for, then read from the DOM as drawn.
    let mut browser = cdp::Browser::launch(
        &chromium,
        dir.join("profile"),
        &format!("http://127.0.0.1:{http}/"),
        (1300, 900),
    );
    browser.wait_for(
        "document.getElementById('status')?.textContent === 'live' && \
         document.querySelector('#games .board .sq')",
    );
    let drawn = browser
        .eval("document.getElementById('layout').outerHTML")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        drawn.contains(r#"<div class="board" data-fen=""#),
        "{drawn}"
    );
    assert!(drawn.contains(r#"<section class="game"#), "{drawn}");
    for name in ["alpha", "beta", "gamma", "delta"] {
        assert!(drawn.contains(name), "{name} missing: {drawn}");
    }
    assert!(drawn.contains(r#"class="clock"#), "{drawn}");
    assert!(drawn.contains(r#"<td class="n">1.</td>"#), "{drawn}");
}

/// `referee serve` ends by itself when its event is over and prints the
/// standings, even while its console (stdin) stays open and silent.
#[test]
fn serve_ends_with_its_event_and_prints_the_standings() {
    let dir = temp_dir("serve-ends");
    let event = dir.join("EVENT.toml");
    std::fs::write(
        &event,
        "event = \"Ends\"\ntime_control = \"60+1\"\npairing = \"match\"\ngames = 2\n\
         reset_delay = 0.05\nconclude_delay = 0.05\n\
         [[player]]\nname = \"north\"\nengine = \"builtin:2\"\n\
         [[player]]\nname = \"south\"\nengine = \"builtin:2\"\n",
    )
    .unwrap();
    let port = free_port();
    let mut child = Command::new(BIN)
        .args(["referee", "serve", "--event", event.to_str().unwrap()])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Keep the console open (a terminal would be) while the event runs.
    let console = child.stdin.take();
    let ended = wait_until(Duration::from_secs(60), || {
        child.try_wait().ok().flatten().is_some()
    });
    let mut reaper = Reaper(Vec::new());
    if !ended {
        reaper.0.push(child);
        panic!("referee serve did not end with its event");
    }
    drop(console);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{:?}", output.status);
    let standings = String::from_utf8_lossy(&output.stdout);
    assert!(
        standings.contains("north") && standings.contains("south"),
        "{standings}"
    );
    assert!(standings.contains("points"), "{standings}");
    drop(reaper);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `match --tc 10+0.1` (seconds, as engine testers write it) records
/// `[TimeControl "10+0.1"]`, which its own `check --strict` accepts.
#[test]
fn match_time_control_passes_the_strict_check() {
    let dir = temp_dir("match-tc");
    let out = dir.join("m.pgn");
    let run = Command::new(BIN)
        .args(["match", "builtin:1", "builtin:2", "--games", "2"])
        .args(["--tc", "10+0.1", "-o"])
        .arg(&out)
        .arg("--dir")
        .arg(dir.join("event"))
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&run, "gamerec match");
    let pgn = std::fs::read_to_string(&out).unwrap();
    assert_eq!(pgn.matches("[TimeControl \"10+0.1\"]").count(), 2);
    let check = Command::new(BIN)
        .args(["check", "--strict"])
        .arg(&out)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&check, "gamerec check --strict");
    let report = String::from_utf8_lossy(&check.stderr);
    assert!(!report.contains("warning"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under a game clock the built-in engine (no depth given) keeps time
/// through the referee: at 3+0.1 its moves take measurable time, the clock
/// moves, no flag falls, and each side uses between 20% and 90% of what it
/// was given (3 s plus its increments). (The engine's own test plays
/// 2+0.05; here the referee, bridges and other tests share the cores.)
#[test]
fn builtin_keeps_time_in_a_match() {
    use gamerec::pgn::commands::{KnownCommand, node_commands};
    let dir = temp_dir("builtin-clock");
    let out = dir.join("m.pgn");
    let run = Command::new(BIN)
        .args(["match", "builtin", "builtin", "--games", "1"])
        .args(["--tc", "3+0.1", "-o"])
        .arg(&out)
        .arg("--dir")
        .arg(dir.join("event"))
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&run, "gamerec match");
    let text = std::fs::read(&out).unwrap();
    let (games, _) = gamerec::pgn::read_games(&text);
    assert_eq!(games.len(), 1);
    for game in &games {
        assert_ne!(game.tags.get("Termination"), Some("time forfeit"));
        let mut used = [Duration::ZERO; 2];
        let mut moves = [0u32; 2];
        let mut timed = 0;
        for (ply, id) in game.tree.mainline().enumerate() {
            for command in node_commands(game.tree.node(id)) {
                if let KnownCommand::Emt(emt) = command {
                    used[ply % 2] += emt;
                    moves[ply % 2] += 1;
                    timed += usize::from(emt >= Duration::from_millis(5));
                }
            }
        }
        let plies = game.tree.mainline().count();
        assert!(
            timed * 2 > plies,
            "{timed} of {plies} moves took 5 ms or more"
        );
        if moves[1] < 10 {
            continue; // too short a game to judge
        }
        for side in 0..2 {
            let given = Duration::from_secs(3) + Duration::from_millis(100) * moves[side];
            let share = used[side].as_secs_f64() / given.as_secs_f64();
            assert!(
                (0.2..=0.9).contains(&share),
                "side {side}: {:?} of {given:?} over {} moves",
                used[side],
                moves[side]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An engine still searching when its flag falls does not leak its move
/// into the next game: the bridge stops the search when the referee moves
/// on and drops the move. (Before, the late reply reached game 2 as a
/// reply out of turn, and game 2 was lost for a rules infraction.)
#[test]
fn a_move_too_late_for_one_game_never_reaches_the_next() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("late-move");
    let slow = dir.join("slow.sh");
    std::fs::write(
        &slow,
        "#!/bin/bash\nm=e2e4\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    \
         uci) echo \"id name slow\"; echo uciok ;;\n    isready) echo readyok ;;\n    \
         position) if [[ \"$rest\" == *\" moves \"* ]]; then m=e7e5; else m=e2e4; fi ;;\n    \
         go) sleep 1.5; echo \"bestmove $m\" ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.join("m.pgn");
    let run = Command::new(BIN)
        .arg("match")
        .arg(format!("uci:{}", slow.display()))
        .args(["builtin:1", "--games", "2", "--tc", "1", "-o"])
        .arg(&out)
        .arg("--dir")
        .arg(dir.join("event"))
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&run, "gamerec match");
    let pgn = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        pgn.matches("[Termination \"time forfeit\"]").count(),
        2,
        "{pgn}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
