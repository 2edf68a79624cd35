//! Whole events on loopback with built-in engines behind bridges: records,
//! standings, concurrency, faults that stay in their own game, restart.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gamerec_referee::director::{Live, RunOptions, SavedGame, run_event};
use gamerec_referee::event::EventConfig;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

fn opts(live: Live) -> RunOptions {
    RunOptions {
        live,
        ..RunOptions::default()
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("argus-{name}-{}", std::process::id()));
    gamerec_testkit::remove_at_exit(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(extra: &str, players: &str) -> EventConfig {
    EventConfig::parse(&format!(
        "event = \"Loopback\"\nsite = \"127.0.0.1\"\ndate = \"2026.11.22\"\nreset_delay = 0.01\nconclude_delay = 0.01\n{extra}\n{players}"
    ))
    .unwrap()
}

const TWO_ENGINES: &str = "[[player]]\nname = \"alpha\"\nengine = \"builtin:1\"\n[[player]]\nname = \"beta\"\nengine = \"builtin:2\"\n";

/// Checks games.pgn: tags, [%clk] after every move, legal moves, results.
fn check_pgn(dir: &Path, games: usize) -> String {
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), games, "{pgn}");
    for tag in [
        "[Site ",
        "[Date ",
        "[Round ",
        "[White ",
        "[Black ",
        "[Result ",
        "[TimeControl ",
        "[Termination ",
        "[PlyCount ",
    ] {
        assert_eq!(pgn.matches(tag).count(), games, "{tag}");
    }
    // The export writer wraps lines anywhere in a comment, inside commands too.
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    for game in flat.split("[Event ").skip(1) {
        let plies: usize = game
            .split("[PlyCount \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            game.matches("[%emt ").count(),
            plies,
            "a move time after every move"
        );
        if !game.contains("[TimeControl \"-\"]") {
            assert_eq!(
                game.matches("[%clk ").count(),
                plies,
                "a clock after every move"
            );
        }
        let result = game
            .split("[Result \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(
            game.trim_end().ends_with(result),
            "movetext ends with the result"
        );
    }
    assert!(pgn.lines().all(|l| l.len() < 80), "export lines are short");
    // Every move replays legally.
    let (read, problems) = gamerec::pgn::read_games(pgn.as_bytes());
    assert!(
        problems
            .iter()
            .all(|p| p.severity != gamerec::diag::Severity::Error),
        "{problems:?}"
    );
    assert_eq!(read.len(), games);
    pgn
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_of_builtin_engines_writes_records() {
    let dir = temp_dir("match");
    let cfg = config(
        "time_control = \"40/60+1\"\npairing = \"match\"\ngames = 4\nconcurrency = 2",
        TWO_ENGINES,
    );
    let live = Live::default();
    let summary = timeout(
        Duration::from_secs(120),
        run_event(
            &cfg,
            &dir,
            None,
            opts(live.clone()),
            CancellationToken::new(),
            None,
        ),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!((summary.finished, summary.total), (4, 4));
    let pgn = check_pgn(&dir, 4);
    assert!(pgn.contains("[White \"alpha\"]") && pgn.contains("[White \"beta\"]"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("standings.json")).unwrap())
            .unwrap();
    assert_eq!(json["games_played"], 4);
    let total: f64 = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["points"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 4.0, "points add up to games");
    assert!(
        std::fs::read_to_string(dir.join("standings.txt"))
            .unwrap()
            .contains("alpha")
    );
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert!(log.contains("refcom respond;") && log.contains("refreq reply;"));
    assert!(log.lines().all(|l| l.starts_with("20")), "timestamped");
    assert!(live.snapshot_json().contains("\"games\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_games() {
    let dir = temp_dir("fifty");
    let cfg = config(
        "time_control = \"300+1\"\npairing = \"match\"\ngames = 50\nconcurrency = 50",
        TWO_ENGINES,
    );
    let summary = timeout(
        Duration::from_secs(300),
        run_event(
            &cfg,
            &dir,
            None,
            opts(Live::default()),
            CancellationToken::new(),
            None,
        ),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(summary.finished, 50);
    check_pgn(&dir, 50);
    std::fs::remove_dir_all(&dir).unwrap();
}

async fn client(
    addr: std::net::SocketAddr,
    name: &str,
) -> (
    tokio::io::Lines<BufReader<tokio::net::tcp::OwnedReadHalf>>,
    tokio::net::tcp::OwnedWriteHalf,
) {
    let s = TcpStream::connect(addr).await.unwrap();
    let (r, mut w) = s.into_split();
    w.write_all(
        format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"x\" \"{name}\";\n").as_bytes(),
    )
    .await
    .unwrap();
    (BufReader::new(r).lines(), w)
}

/// Waits for a `respond` addressed to this client.
async fn await_respond(
    lines: &mut tokio::io::Lines<BufReader<tokio::net::tcp::OwnedReadHalf>>,
) -> String {
    for _ in 0..100 {
        let line = timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if line.contains("refcom respond;") {
            return line;
        }
    }
    panic!("no respond");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faulty_clients_affect_only_their_own_games() {
    let dir = temp_dir("faults");
    let players = "[[player]]\nname = \"engine\"\nengine = \"builtin:1\"\n\
                   [[player]]\nname = \"garbler\"\n[[player]]\nname = \"sleeper\"\n[[player]]\nname = \"quitter\"\n[[player]]\nname = \"engine2\"\nengine = \"builtin:1\"\n";
    let cfg = config(
        "time_control = \"3\"\npairing = \"gauntlet\"\nrounds = 1\nconcurrency = 4\ngrace = 0.5",
        players,
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let run = tokio::spawn({
        let dir = dir.clone();
        async move {
            run_event(
                &cfg,
                &dir,
                Some(listener),
                opts(Live::default()),
                CancellationToken::new(),
                None,
            )
            .await
        }
    });
    // engine is White against each of the four others.
    let (mut g_lines, mut g_w) = client(addr, "garbler").await;
    let (mut s_lines, _s_w) = client(addr, "sleeper").await;
    let (mut q_lines, q_w) = client(addr, "quitter").await;
    let garbler = tokio::spawn(async move {
        await_respond(&mut g_lines).await;
        g_w.write_all(b"\x00\x01 not a record at all\n")
            .await
            .unwrap();
        // Drain until the referee disconnects.
        while let Ok(Ok(Some(_))) = timeout(Duration::from_secs(30), g_lines.next_line()).await {}
    });
    let sleeper = tokio::spawn(async move {
        await_respond(&mut s_lines).await;
        while let Ok(Ok(Some(_))) = timeout(Duration::from_secs(30), s_lines.next_line()).await {}
    });
    let quitter = tokio::spawn(async move {
        await_respond(&mut q_lines).await;
        drop(q_w);
        drop(q_lines);
    });
    let summary = timeout(Duration::from_secs(60), run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    for t in [garbler, sleeper, quitter] {
        timeout(Duration::from_secs(30), t).await.unwrap().unwrap();
    }
    assert_eq!(summary.finished, 4);
    let pgn = check_pgn(&dir, 4);
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    let find = |name: &str| {
        *games
            .iter()
            .find(|g| g.contains(&format!("\"{name}\"]")))
            .unwrap()
    };
    assert!(find("garbler").contains("[Termination \"rules infraction\"]"));
    assert!(find("sleeper").contains("[Termination \"time forfeit\"]"));
    assert!(find("quitter").contains("[Termination \"abandoned\"]"));
    let engine_game = find("engine2");
    assert!(
        !engine_game.contains("abandoned") && !engine_game.contains("rules infraction"),
        "{engine_game}"
    );
    assert!(engine_game.contains("[PlyCount \""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_resumes_unfinished_games() {
    let dir = temp_dir("restart");
    let players =
        "[[player]]\nname = \"engine\"\nengine = \"builtin:1\"\n[[player]]\nname = \"human\"\n";
    let cfg = config(
        "time_control = \"-\"\npairing = \"match\"\ngames = 1",
        players,
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let cancel = CancellationToken::new();
    let run = tokio::spawn({
        let (dir, cfg, cancel) = (dir.clone(), cfg.clone(), cancel.clone());
        async move {
            run_event(
                &cfg,
                &dir,
                Some(listener),
                opts(Live::default()),
                cancel,
                None,
            )
            .await
        }
    });
    // "human" plays Black: answer two moves, then the referee goes down.
    let (mut lines, mut w) = client(addr, "human").await;
    let mut pos = shakmaty::Chess::default();
    for reply in ["e5", "Nc6"] {
        let respond = await_respond(&mut lines).await;
        let r = gamerec_referee::wire::read_record(&respond).unwrap();
        pos = gamerec::model::play_ply(r.chess(), r.moves("sm")[0]);
        let fields = gamerec_referee::game_rules::epd_fields(&pos);
        w.write_all(format!("{fields} refreq reply; sm {reply};\n").as_bytes())
            .await
            .unwrap();
    }
    await_respond(&mut lines).await;
    let _ = pos;
    cancel.cancel();
    let first = timeout(Duration::from_secs(30), run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first.finished, 0);
    let saved: SavedGame =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state/game-0001.json")).unwrap())
            .unwrap();
    assert_eq!(saved.moves.len(), 5, "{saved:?}");
    assert!(saved.ending.is_none());

    // Second run: the human reconnects and gets the moves replayed with execute.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let run = tokio::spawn({
        let dir = dir.clone();
        async move {
            run_event(
                &cfg,
                &dir,
                Some(listener),
                opts(Live::default()),
                CancellationToken::new(),
                None,
            )
            .await
        }
    });
    let (mut lines, mut w) = client(addr, "human").await;
    let mut executes = 0;
    let respond = loop {
        let line = timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if line.contains("refcom execute;") {
            executes += 1;
        }
        if line.contains("refcom respond;") {
            break line;
        }
    };
    assert_eq!(executes, 4, "all but the last move replayed with execute");
    let r = gamerec_referee::wire::read_record(&respond).unwrap();
    let pos = gamerec::model::play_ply(r.chess(), r.moves("sm")[0]);
    w.write_all(
        format!(
            "{} refreq reply; resign;\n",
            gamerec_referee::game_rules::epd_fields(&pos)
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let second = timeout(Duration::from_secs(30), run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(second.finished, 1);
    let pgn = check_pgn(&dir, 1);
    assert!(
        pgn.contains("1. ") && pgn.contains("[PlyCount \"5\"]"),
        "{pgn}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
