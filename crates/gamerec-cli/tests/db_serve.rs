//! `gamerec serve`: the HTTP answers equal `find --tree --to json` with the
//! same filters on corpus PGNs, carry the lichess explorer's fields, export
//! games as PGN, refuse bad requests, bound connections per address and the
//! request head, and stop cleanly on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gamerec_testkit::{assert_success, corpus, run, temp_dir};

const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

/// A database of two corpus files (lichess games with TimeControl, TWIC
/// classical games without) and its index.
fn database(dir: &Path) -> PathBuf {
    let mut data = std::fs::read(corpus("pgn/lichess_db_1000k.pgn")).unwrap();
    data.extend_from_slice(b"\n");
    data.extend(std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap());
    let db = dir.join("db.pgn");
    std::fs::write(&db, data).unwrap();
    let out = run(GAMEREC, &["index", db.to_str().unwrap()], b"");
    assert_success(&out, "gamerec index");
    db
}

struct Server {
    child: Child,
    addr: String,
    stderr: BufReader<std::process::ChildStderr>,
}

impl Server {
    fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(GAMEREC)
            .args(["serve", db.to_str().unwrap(), "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim()
            .trim_end_matches('/')
            .to_string();
        Server {
            child,
            addr,
            stderr,
        }
    }

    /// (status, body) of a raw request.
    fn raw(&self, request: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(request).unwrap();
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            return (0, buf);
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_string();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, buf[end + 4..].to_vec())
    }

    fn get(&self, target: &str) -> (u16, String) {
        let (status, body) = self.raw(
            format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        );
        (status, String::from_utf8(body).unwrap())
    }

    /// Sends SIGTERM; returns the exit status and the rest of stderr.
    fn stop(mut self) -> (std::process::ExitStatus, String, Duration) {
        let t = Instant::now();
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if t.elapsed() > Duration::from_secs(30) {
                let _ = self.child.kill();
                panic!("serve did not stop on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut rest = String::new();
        let _ = self.stderr.read_to_string(&mut rest);
        (status, rest, t.elapsed())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cli(db: &Path, args: &[&str]) -> String {
    let mut all = vec!["find", db.to_str().unwrap(), "--to", "json"];
    all.extend_from_slice(args);
    let out = run(GAMEREC, &all, b"");
    assert_success(&out, &format!("gamerec {}", all.join(" ")));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn http_answers_equal_the_cli_and_follow_the_lichess_explorer() {
    let dir = temp_dir("db-serve");
    let db = database(&dir);
    let eco = corpus("pgn/eco.pgn");
    let eco = eco.to_str().unwrap();
    let server = Server::start(&db, &["--eco-file", eco]);
    // A name from the database for the player filter.
    let player = "Meridyan";
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR_b_KQkq_-_0_1";
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("".into(), vec!["--tree", "--limit", "12"]),
        (
            "play=e2e4,c7c5&moves=5&topGames=2&recentGames=3".into(),
            vec![
                "--tree",
                "--moves",
                "e2e4,c7c5",
                "--limit",
                "5",
                "--top-games",
                "2",
                "--recent-games",
                "3",
            ],
        ),
        (
            format!("fen={after_e4}&speeds=blitz,bullet&ratings=1600,1800,2000&moves=30"),
            vec![
                "--tree",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                "--speeds",
                "blitz,bullet",
                "--ratings",
                "1600,1800,2000",
                "--limit",
                "30",
            ],
        ),
        (
            "play=d2d4&since=2025-01&until=2025-12&recentGames=10".into(),
            vec![
                "--tree",
                "--moves",
                "d4",
                "--since",
                "2025-01",
                "--until",
                "2025-12",
                "--limit",
                "12",
                "--recent-games",
                "10",
            ],
        ),
        (
            "play=e2e4,e7e5,g1f3&ratings=2500&topGames=15&moves=12".into(),
            vec![
                "--tree",
                "--moves",
                "e4 e5 Nf3",
                "--ratings",
                "2500",
                "--top-games",
                "15",
                "--limit",
                "12",
            ],
        ),
        (
            format!("player={player}&moves=12"),
            vec!["--tree", "--player", player, "--limit", "12"],
        ),
        (
            "variant=standard&speeds=classical&until=2016-12&play=c2c4&moves=12".into(),
            vec![
                "--tree",
                "--moves",
                "c4",
                "--speeds",
                "classical",
                "--until",
                "2016-12",
                "--limit",
                "12",
            ],
        ),
    ];
    let mut nonempty = 0;
    for (query, args) in &cases {
        let mut args = args.clone();
        args.extend_from_slice(&["--eco-file", eco]);
        let want = cli(&db, &args);
        for route in ["/lichess", "/masters"] {
            let (status, got) = server.get(&format!("{route}?{query}"));
            assert_eq!(status, 200, "{route}?{query}: {got}");
            assert_eq!(got.trim(), want.trim(), "{route}?{query} against {args:?}");
        }
        let v: serde_json::Value = serde_json::from_str(&want).unwrap();
        for k in [
            "white",
            "draws",
            "black",
            "moves",
            "topGames",
            "recentGames",
            "opening",
        ] {
            assert!(v.get(k).is_some(), "{query}: no {k} in {want}");
        }
        for m in v["moves"].as_array().unwrap() {
            for k in [
                "uci",
                "san",
                "averageRating",
                "white",
                "draws",
                "black",
                "game",
            ] {
                assert!(m.get(k).is_some(), "{query}: no moves[].{k}");
            }
        }
        if v["moves"].as_array().is_some_and(|m| !m.is_empty()) {
            nonempty += 1;
        }
    }
    assert!(nonempty >= 5, "only {nonempty} answers with moves");
    // The opening of 1. e4 c5 is named; top games carry players.
    let (_, sic) = server.get("/lichess?play=e2e4,c7c5&topGames=1");
    let v: serde_json::Value = serde_json::from_str(&sic).unwrap();
    assert_eq!(v["opening"]["eco"], "B20", "{sic}");
    let top = &v["topGames"][0];
    assert!(
        top["white"]["name"].is_string() && top["id"].is_string(),
        "{sic}"
    );

    // Game export by id: game 1 is the first lichess game.
    let (status, pgn) = server.get("/game/export/1");
    assert_eq!(status, 200);
    assert!(
        pgn.contains("[Site \"https://lichess.org/ENPo6ReH\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("1. e4 {") && pgn.contains("3. Nc3 {"), "{pgn}");
    let id = top["id"].as_str().unwrap();
    let (status, pgn) = server.get(&format!("/game/{id}.pgn"));
    assert_eq!(status, 200);
    let white = top["white"]["name"].as_str().unwrap();
    assert!(pgn.contains(&format!("[White \"{white}\"]")), "{pgn}");
    for bad in [
        "/game/export/0",
        "/game/export/999999",
        "/game/export/x",
        "/nothing",
    ] {
        assert_eq!(server.get(bad).0, 404, "{bad}");
    }
    for bad in [
        "/lichess?fen=notafen",
        "/lichess?play=e2e5",
        "/lichess?ratings=1500",
        "/lichess?speeds=fast",
        "/lichess?since=2020-13",
        "/lichess?moves=-1",
        "/lichess?variant=atomic",
    ] {
        let (status, body) = server.get(bad);
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.starts_with("{\"error\":"), "{bad}: {body}");
    }
    let (status, _) =
        server.raw(b"POST /lichess HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab");
    assert_eq!(status, 405);
    // The page is served, self-contained.
    let (status, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("<html") && !page.contains("http://") && !page.contains("https://"));
    let (status, _, took) = server.stop();
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connections_are_bounded_and_sigterm_stops_cleanly() {
    let dir = temp_dir("db-serve-bounds");
    let db = dir.join("db.pgn");
    std::fs::copy(corpus("pgn/lichess_db_1000k.pgn"), &db).unwrap();
    assert_success(
        &run(GAMEREC, &["index", db.to_str().unwrap()], b""),
        "index",
    );
    // Not loopback: refused without --allow-remote.
    let out = run(
        GAMEREC,
        &["serve", db.to_str().unwrap(), "--listen", "0.0.0.0:0"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));

    let server = Server::start(&db, &["--max-per-address", "3"]);
    // Three idle connections hold the address's slots...
    let idle: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // ...so a fourth is closed without an answer.
    let (status, body) = server.get("/lichess");
    assert_eq!(status, 0, "a fourth connection was served: {body}");
    drop(idle);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.get("/lichess").0, 200, "slots are given back");
    // A request head over the bound is refused.
    let long = format!(
        "GET /lichess?fen={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "x".repeat(40_000)
    );
    let (status, _) = server.raw(long.as_bytes());
    assert_ne!(status, 200, "an oversized request was answered");
    assert_eq!(server.get("/lichess?moves=1").0, 200, "the server lives on");
    // An idle connection does not hold SIGTERM up.
    let _held = TcpStream::connect(&server.addr).unwrap();
    let (status, rest, took) = server.stop();
    assert!(status.success(), "{status}: {rest}");
    assert!(rest.contains("stopped"), "{rest}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
