//! The referee's live spectator page in headless Chromium: an event of
//! built-in engines runs with `--http`; the page, loaded mid-event, draws
//! each game's board as its FEN says, lists the moves, shows both clocks,
//! and fills the window (a screenshot kept in target/screenshots/).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Referee(Child);

impl Drop for Referee {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

/// One attribute of an HTML start tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

#[test]
fn spectator_page_shows_live_boards_in_chromium() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let dir = gamerec_testkit::temp_dir("spectator-chromium");
    std::fs::write(
        dir.join("EVENT.toml"),
        r#"event = "Spectator test"
site = "127.0.0.1"
time_control = "40/600"
pairing = "round-robin"
rounds = 10
concurrency = 2
reset_delay = 0.2
conclude_delay = 0.2
[[player]]
name = "alpha"
engine = "builtin:3"
[[player]]
name = "beta"
engine = "builtin:3"
[[player]]
name = "gamma"
engine = "builtin:3"
"#,
    )
    .unwrap();
    let (port, http) = (free_port(), free_port());
    let _referee = Referee(
        Command::new(env!("CARGO_BIN_EXE_gamerec"))
            .args(["referee", "serve", "--event"])
            .arg(dir.join("EVENT.toml"))
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(["--http", &format!("127.0.0.1:{http}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    loop {
        if http_get(http, "/state").is_some_and(|s| s.contains("\"moves\":[\"")) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no moves played");
        std::thread::sleep(Duration::from_millis(200));
    }
    let chrome = |extra: &[String]| {
        let profile = gamerec_testkit::temp_dir(&format!("spectator-profile-{}", extra[0].len()));
        let out = Command::new(&chromium)
            .args(gamerec_testkit::CHROMIUM_HEADLESS)
            .args([
                "--disable-quic",
                "--hide-scrollbars",
                "--window-size=1300,900",
                "--virtual-time-budget=3000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(format!("http://127.0.0.1:{http}/#once"))
            .output()
            .unwrap();
        gamerec_testkit::assert_success(&out, "chromium");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let dom = chrome(&["--dump-dom".to_owned()]);
    std::fs::write(dir.join("dom.html"), &dom).unwrap();
    // The games as drawn (the script's text holds the same markup).
    let main = &dom[dom.find("<main id=\"games\">").expect("games")..];
    let main = &main[..main.find("</main>").expect("end of games")];
    let boards: Vec<&str> = main.split("<div class=\"board\"").skip(1).collect();
    assert!(!boards.is_empty(), "no board in the page");
    for board in &boards {
        let head = &board[..board.find('>').unwrap()];
        let fen = attr(&format!(" {head}"), "data-fen")
            .unwrap()
            .replace("&amp;", "&");
        let setup = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut expected: Vec<(String, String)> = setup
            .as_setup()
            .board
            .clone()
            .into_iter()
            .map(|(sq, p)| (sq.to_string(), p.char().to_string()))
            .collect();
        expected.sort();
        // The 64 squares of this board and the pieces on them.
        let mut drawn = Vec::new();
        let mut squares = 0;
        for cell in board.split("<div class=\"sq ").skip(1).take(64) {
            let tag = &cell[..cell.find('>').unwrap()];
            squares += 1;
            if let Some(p) = attr(tag, "data-piece") {
                drawn.push((attr(tag, "data-square").unwrap().to_owned(), p.to_owned()));
            }
        }
        assert_eq!(squares, 64);
        drawn.sort();
        assert_eq!(drawn, expected, "{fen}");
    }
    assert!(main.contains("class=\"moves\"") && main.contains("<td class=\"n\">1.</td>"));
    assert!(main.matches("class=\"clock").count() >= 2 * boards.len());
    assert!(dom.contains("Standings") || boards.len() == 1);
    let shots = gamerec_testkit::repo_root()
        .join("target")
        .join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("spectator.png");
    chrome(&[format!("--screenshot={}", png.display())]);
    let bytes = std::fs::read(&png).unwrap();
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&bytes).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1300, 900));
    let count = |rgb: [u8; 3]| {
        pixmap
            .pixels()
            .iter()
            .filter(|p| {
                let c = p.demultiply();
                [c.red(), c.green(), c.blue()]
                    .iter()
                    .zip(rgb)
                    .all(|(a, b)| a.abs_diff(b) <= 6)
            })
            .count()
    };
    // A large board: light and dark squares cover well over 100,000 px
    // (the old page's 272-px boards had about 37,000 each).
    let light = count([0xf0, 0xd9, 0xb5]);
    let dark = count([0xb5, 0x88, 0x63]);
    assert!(
        light + dark > 200_000,
        "boards too small: {light} + {dark} px"
    );
}

/// Serves the page and one fixed `/state` snapshot from a thread (each
/// connection: one request, one response).
fn serve_fixed(state: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
                if stream.read(&mut byte).unwrap_or(0) == 0 {
                    break;
                }
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split_whitespace().nth(1).unwrap_or("");
            let (kind, body) = match path {
                "/" => ("text/html; charset=utf-8", gamerec_referee::spectator::PAGE),
                "/state" => ("application/json", state),
                _ => ("text/plain", ""),
            };
            let status = if path == "/" || path == "/state" {
                "200 OK"
            } else {
                "404 Not Found"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// With evaluations and the last move in the snapshot, the page shows the
/// engines' last evaluations by their clocks and highlights the move.
#[test]
fn spectator_page_shows_evaluations_and_last_move() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    const STATE: &str = r#"{"games":[{"number":1,"round":"1","white":"alpha","black":"beta",
"fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2","moves":["e4","e5"],
"white_ms":299000,"black_ms":25000,"turn":"white","result":"*","reason":null,
"last_move":"e7e5","white_eval":{"cp":35,"depth":12},"black_eval":{"mate":-3}}],"standings":null}"#;
    let port = serve_fixed(STATE);
    let profile = gamerec_testkit::temp_dir("spectator-fixed-profile");
    let out = Command::new(&chromium)
        .args(gamerec_testkit::CHROMIUM_HEADLESS)
        .args(["--disable-quic", "--virtual-time-budget=2000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("http://127.0.0.1:{port}/#once"))
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&out, "chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let main = &dom[dom.find("<main id=\"games\">").expect("games")..];
    let main = &main[..main.find("</main>").unwrap()];
    assert!(main.contains(">+0.35 d12</span>"), "{main}");
    assert!(main.contains(">#-3</span>"), "{main}");
    let highlighted: Vec<String> = main
        .split("<div class=\"sq ")
        .skip(1)
        .filter(|c| c.starts_with("l hl\"") || c.starts_with("d hl\""))
        .map(|c| {
            let tag = format!(" {}", &c[..c.find('>').unwrap()]);
            attr(&tag, "data-square").unwrap().to_owned()
        })
        .collect();
    assert_eq!(highlighted, ["e7", "e5"]);
    // Clocks as m:ss; the side to move's clock runs (it ticked down during
    // the page's virtual time), a low clock is marked.
    let run = r#"class="clock run" data-side="white" data-ms="299000">"#;
    let shown = &main[main.find(run).expect("running clock") + run.len()..];
    let shown = &shown[..shown.find('<').unwrap()];
    assert!(shown.starts_with("4:5") && shown < "4:59", "{shown}");
    assert!(
        main.contains(r#"class="clock low" data-side="black" data-ms="25000">0:25<"#),
        "{main}"
    );
    assert!(
        main.contains(r#"<td class="n">1.</td><td>e4</td><td class="last">e5</td>"#),
        "{main}"
    );
}
