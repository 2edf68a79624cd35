//! `gamerec html`: the pages are self-contained and hold every node; in
//! headless Chromium, the board after key presses is the game's position
//! (read from the DOM) and the screenshots show a board (kept under
//! `target/screenshots/`).

use crate::util::cli;

use crate::{cdp, common};

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{elements, with_class};
use gamerec::model::{Game, NodeId};
use shakmaty::Position;

const PGN: &str = r#"[Event "Viewer test"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]

{Opening comment} 1. e4 {[%clk 0:05:00] [%eval 0.3]} e5 {[%clk 0:04:58] [%eval 0.25]}
2. Nf3 {[%clk 0:04:55][%eval 0.4][%csl Re5][%cal Gf3e5]} Nc6 {[%clk 0:04:50][%eval 0.35]}
(2... d6 {Philidor} 3. d4 (3. Bc4 Be7) 3... exd4) 3. Bc4 $1 {[%clk 0:04:40][%eval 0.5]}
Nf6 $6 {[%clk 0:04:30][%eval 1.2]} 4. Ng5 {[%clk 0:04:20][%eval 1.1]} d5 5. exd5 Nxd5 $2
6. Nxf7 {The Fried Liver} Kxf7 7. Qf3+ Ke6 8. Nc3 1-0

[Event "Second"]
[White "Gamma"]
[Black "Delta"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1
"#;

const SGF: &str = "(;GM[1]FF[4]SZ[9]PB[Black]PW[White]KM[6.5]RE[W+R];B[ee]C[centre];W[cc]TR[ee]\
(;B[gc];W[cg];B[gg]LB[ee:A])(;B[cg];W[gc]))";

fn site(name: &str) -> PathBuf {
    let dir = gamerec_testkit::temp_dir(name);
    std::fs::write(dir.join("games.pgn"), PGN).unwrap();
    std::fs::write(dir.join("joseki.sgf"), SGF).unwrap();
    let out = dir.join("site");
    let o = cli(&[
        "html",
        dir.join("games.pgn").to_str().unwrap(),
        dir.join("joseki.sgf").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
    .run();
    gamerec_testkit::assert_success(&o, "gamerec html");
    out
}

fn games() -> Vec<Game> {
    let (games, problems) = gamerec::pgn::read_games(PGN.as_bytes());
    assert!(problems.is_empty(), "{problems:?}");
    games
}

/// The embedded JSON of a page.
fn page_data(html: &str) -> serde_json::Value {
    let start = html.find("id=\"games-data\">").unwrap() + "id=\"games-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn pages_are_self_contained_and_hold_every_node() {
    let out = site("html-pages");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("href=\"games.html\"") && index.contains("href=\"joseki.html\""));
    let html = std::fs::read_to_string(out.join("games.html")).unwrap();
    for external in ["src=\"http", "href=\"http", "<link", "url(http", "import "] {
        assert!(!html.contains(external), "external asset: {external}");
    }
    let data = page_data(&html);
    let games = games();
    assert_eq!(data.as_array().unwrap().len(), 2);
    let g = &data[0];
    assert_eq!(g["nodes"].as_array().unwrap().len(), games[0].tree.len());
    assert_eq!(g["title"], "Alpha – Beta");
    assert_eq!(g["result"], "1-0");
    // Every node's board is the position the library computes.
    for i in 0..games[0].tree.len() {
        let pos = games[0].position_at(NodeId(i as u32));
        assert_eq!(g["nodes"][i]["b"], pos.board().to_string(), "node {i}");
    }
    let second = &g["nodes"][2];
    assert_eq!(second["s"], "e5");
    assert_eq!(second["clk"], 298.0);
    assert_eq!(second["evc"], 25);
    let nf3 = &g["nodes"][3];
    assert_eq!(nf3["csl"][0], serde_json::json!(["e5", "red"]));
    assert_eq!(nf3["cal"][0], serde_json::json!(["f3", "e5", "green"]));
    assert!(
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["nag"] == "!")
    );
    assert!(
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["post"] == "Philidor")
    );
    assert_eq!(g["nodes"][0]["pre"], "Opening comment");
    let sgf = page_data(&std::fs::read_to_string(out.join("joseki.html")).unwrap());
    let go = &sgf[0];
    assert_eq!(go["kind"], "go");
    assert_eq!(go["w"], 9);
    assert_eq!(go["nodes"].as_array().unwrap().len(), 8);
    assert_eq!(go["nodes"][1]["s"], "B E5");
    assert_eq!(go["nodes"][1]["post"], "centre");
}

/// Headless Chromium from the Debian package (each run gets a fresh
/// profile: two instances cannot share one).
fn chromium() -> Option<(PathBuf, Vec<String>)> {
    let bin = gamerec_testkit::peer("chromium")?;
    let args = gamerec_testkit::CHROMIUM_HEADLESS
        .iter()
        .chain(&[
            "--disable-quic",
            "--hide-scrollbars",
            "--window-size=1300,820",
        ])
        .map(|s| s.to_string())
        .collect();
    Some((bin, args))
}

fn profile() -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = gamerec_testkit::temp_dir(&format!("html-chromium-profile-{n}"));
    format!("--user-data-dir={}", dir.display())
}

fn dump_dom(chrome: &(PathBuf, Vec<String>), url: &str) -> String {
    let out = Command::new(&chrome.0)
        .args(&chrome.1)
        .arg(profile())
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&out, "chromium --dump-dom");
    String::from_utf8(out.stdout).unwrap()
}

/// Keeps a screenshot under target/screenshots/ and returns its pixels.
pub fn screenshot(chrome: &(PathBuf, Vec<String>), url: &str, name: &str) -> Vec<[u8; 3]> {
    let dir = gamerec_testkit::repo_root()
        .join("target")
        .join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(name);
    let out = Command::new(&chrome.0)
        .args(&chrome.1)
        .arg(profile())
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&out, "chromium --screenshot");
    decode_png(&std::fs::read(&png).unwrap())
}

/// RGB pixels of an 8-bit PNG (through resvg's tiny-skia decoder).
fn decode_png(bytes: &[u8]) -> Vec<[u8; 3]> {
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(bytes).unwrap();
    pixmap
        .pixels()
        .iter()
        .map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        })
        .collect()
}

/// The `#board` element and what is drawn in it, from a DOM dump.
fn board(dom: &str) -> Vec<common::Element> {
    let start = dom.find("<div id=\"board\"").expect("board div");
    let end = start + dom[start..].find("</svg>").expect("board svg") + "</svg>".len();
    let mut text = dom[start..end].to_owned();
    text.push_str("</div>");
    elements(&text)
}

fn url(page: &Path, fragment: &str) -> String {
    format!("file://{}#{fragment}", page.display())
}

fn count_near(pixels: &[[u8; 3]], rgb: [u8; 3]) -> usize {
    pixels
        .iter()
        .filter(|p| p.iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= 6))
        .count()
}

/// The pieces on the page's board are the library's position at the node
/// the keys lead to; the last move and check are highlighted there.
fn assert_chess_board(dom: &str, game: &Game, node: NodeId) {
    let els = board(dom);
    assert_eq!(els[0].attr("data-node"), node.0.to_string());
    let pos = game.position_at(node);
    let mut drawn: Vec<(String, String)> = with_class(&els, "piece")
        .iter()
        .map(|p| {
            (
                p.attr("data-square").to_owned(),
                p.attr("data-piece").to_owned(),
            )
        })
        .collect();
    drawn.sort();
    let mut expected: Vec<(String, String)> = pos
        .board()
        .clone()
        .into_iter()
        .map(|(sq, p)| (sq.to_string(), p.char().to_string()))
        .collect();
    expected.sort();
    assert_eq!(drawn, expected);
    if let Some(ply) = &game.tree.node(node).ply
        && let gamerec::model::PlyMove::Move(mv) = ply.mv
    {
        let (from, to) = gamerec_view::chess::move_squares(&mv).unwrap();
        let mut last: Vec<String> = with_class(&els, "lastmove")
            .iter()
            .map(|e| e.attr("data-square").to_owned())
            .collect();
        last.sort();
        let mut want = vec![from.to_string(), to.to_string()];
        want.sort();
        assert_eq!(last, want);
    }
    let check: Vec<&str> = with_class(&els, "check")
        .iter()
        .map(|e| e.attr("data-square"))
        .collect();
    let want: Vec<String> = gamerec_view::chess::check_square(&pos)
        .map(|s| s.to_string())
        .into_iter()
        .collect();
    assert_eq!(check, want);
}

#[test]
fn viewer_keys_step_through_the_game_in_chromium() {
    let Some(chrome) = chromium() else {
        return;
    };
    let out = site("html-chromium");
    let page = out.join("games.html");
    let games = games();
    let main: Vec<NodeId> = games[0].tree.mainline().collect();
    let right = |n: usize| vec!["ArrowRight"; n].join(",");
    // Five steps from the start: after 3. Bc4.
    let dom = dump_dom(&chrome, &url(&page, &format!("keys={}", right(5))));
    assert_chess_board(&dom, &games[0], main[4]);
    assert!(dom.contains("class=\"move current\" data-node=\"") || dom.contains("move current"));
    // End, then one back; Home.
    let dom = dump_dom(&chrome, &url(&page, "keys=End,ArrowLeft"));
    assert_chess_board(&dom, &games[0], main[main.len() - 2]);
    let dom = dump_dom(&chrome, &url(&page, "keys=End,Home"));
    assert_chess_board(&dom, &games[0], NodeId::ROOT);
    // Into the variation 2... d6 with ArrowDown, then on to 3. d4.
    let dom = dump_dom(
        &chrome,
        &url(
            &page,
            "keys=ArrowRight,ArrowRight,ArrowRight,ArrowRight,ArrowDown,ArrowRight",
        ),
    );
    let d6 = games[0].tree.node(main[2]).variations()[0];
    let d4 = games[0].tree.node(d6).main_child().unwrap();
    assert_chess_board(&dom, &games[0], d4);
    // At 2. Nf3 the comment's arrow and square are drawn.
    let dom = dump_dom(&chrome, &url(&page, &format!("keys={}", right(3))));
    let els = board(&dom);
    assert_eq!(with_class(&els, "arrow")[0].attr("data-from"), "f3");
    assert_eq!(with_class(&els, "mark")[0].attr("data-square"), "e5");
    // The second game, mated at the end; the graphs are only where data is.
    let dom = dump_dom(&chrome, &url(&page, "game=2&keys=End"));
    let g2_end = games[1].tree.mainline().last().unwrap();
    assert_chess_board(&dom, &games[1], g2_end);
    assert!(!dom.contains("id=\"eval-graph\""));
    let dom = dump_dom(&chrome, &url(&page, "keys=ArrowRight,f"));
    assert!(board(&dom)[1].has_class("flipped"));
    assert!(dom.contains("id=\"eval-graph\"") && dom.contains("id=\"clock-graph\""));
    // Screenshot: the board's light and dark squares fill a large area and
    // the last-move highlight shows.
    let pixels = screenshot(
        &chrome,
        &url(&page, &format!("keys={}", right(9))),
        "viewer-chess.png",
    );
    assert!(
        count_near(&pixels, [0xf0, 0xd9, 0xb5]) > 60_000,
        "light squares"
    );
    assert!(
        count_near(&pixels, [0xb5, 0x88, 0x63]) > 60_000,
        "dark squares"
    );
    assert!(
        count_near(&pixels, [0xcd, 0xd2, 0x6a]) + count_near(&pixels, [0xaa, 0xa2, 0x3a]) > 5_000
    );
}

#[test]
fn go_viewer_in_chromium() {
    let Some(chrome) = chromium() else {
        return;
    };
    let out = site("html-chromium-go");
    let page = out.join("joseki.html");
    let parsed = gamerec::sgf::parse(SGF.as_bytes(), &gamerec::sgf::ParseOptions::default());
    let coll = &parsed.collection;
    for (keys, path) in [
        ("End", "5"),
        ("ArrowRight,ArrowRight", "2"),
        ("ArrowRight,ArrowRight,ArrowRight,ArrowDown", "3,2"),
    ] {
        let dom = dump_dom(&chrome, &url(&page, &format!("keys={keys}")));
        let els = board(&dom);
        let mut drawn: Vec<(String, bool)> = with_class(&els, "stone")
            .iter()
            .map(|e| (e.attr("data-point").to_owned(), e.has_class("black")))
            .collect();
        drawn.sort();
        let node = gamerec::sgf::replay::find_node(coll, path).unwrap().1;
        let (state, _) = gamerec::sgf::replay::play_to(coll, node).unwrap();
        let mut want = Vec::new();
        for y in 0..9u8 {
            for x in 0..9u8 {
                let p = gamerec::sgf::Point::new(x, y);
                if let Some(c) = state.position.get(p) {
                    want.push((p.to_string(), c == gamerec::sgf::Color::Black));
                }
            }
        }
        want.sort();
        assert_eq!(drawn, want, "{keys}");
        if keys == "End" {
            assert_eq!(with_class(&els, "label")[0].text, "A");
            assert_eq!(with_class(&els, "last-move")[0].attr("data-point"), "gg");
        }
    }
    let pixels = screenshot(&chrome, &url(&page, "keys=End"), "viewer-go.png");
    assert!(
        count_near(&pixels, [0xdc, 0xb3, 0x5c]) > 100_000,
        "the wooden board"
    );
}

/// The pieces on the page's board as (square, letter), sorted.
fn dom_pieces(browser: &mut cdp::Browser) -> Vec<(String, String)> {
    let v = browser.eval(
        "JSON.stringify([...document.querySelectorAll('#board .piece')].map(p => [p.dataset.square, p.dataset.piece]))",
    );
    let mut pieces: Vec<(String, String)> = serde_json::from_str(v.as_str().unwrap()).unwrap();
    pieces.sort();
    pieces
}

fn position_pieces(game: &Game, node: NodeId) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = game
        .position_at(node)
        .board()
        .clone()
        .into_iter()
        .map(|(sq, p)| (sq.to_string(), p.char().to_string()))
        .collect();
    out.sort();
    out
}

/// Real key presses (DevTools `Input.dispatchKeyEvent`): after each, the
/// board in the page is the game's position at the node the key leads to;
/// a screenshot after the presses shows the board and the move highlight.
#[test]
fn viewer_follows_real_key_presses_over_devtools() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let out = site("html-devtools");
    let games = games();
    let game = &games[0];
    let main: Vec<NodeId> = game.tree.mainline().collect();
    let profile = gamerec_testkit::temp_dir("html-devtools-profile");
    let mut browser = cdp::Browser::launch(
        &chromium,
        profile,
        &url(&out.join("games.html"), ""),
        (1300, 820),
    );
    browser.wait_for("document.querySelector('#board svg')");
    assert_eq!(
        dom_pieces(&mut browser),
        position_pieces(game, NodeId::ROOT)
    );
    let d6 = game.tree.node(main[2]).variations()[0];
    let steps: Vec<(&str, NodeId)> = vec![
        ("ArrowRight", main[0]),
        ("ArrowRight", main[1]),
        ("ArrowRight", main[2]),
        ("ArrowRight", main[3]),
        ("ArrowDown", d6),
        ("ArrowRight", game.tree.node(d6).main_child().unwrap()),
        ("ArrowLeft", d6),
        ("ArrowUp", main[3]),
        ("End", *main.last().unwrap()),
        ("ArrowLeft", main[main.len() - 2]),
        ("Home", NodeId::ROOT),
    ];
    for (key, node) in steps {
        browser.press(key);
        let shown = browser.eval("document.getElementById('board').dataset.node");
        assert_eq!(shown, node.0.to_string(), "after {key}");
        assert_eq!(
            dom_pieces(&mut browser),
            position_pieces(game, node),
            "after {key}"
        );
    }
    for _ in 0..9 {
        browser.press("ArrowRight");
    }
    assert_eq!(dom_pieces(&mut browser), position_pieces(game, main[8]));
    let current = browser.eval("document.querySelector('#moves .move.current').textContent");
    assert_eq!(current, "exd5");
    browser.press("f");
    assert_eq!(
        browser.eval("document.querySelector('#board svg').classList.contains('flipped')"),
        true
    );
    browser.press("f");
    let png = browser.screenshot();
    let dir = gamerec_testkit::repo_root()
        .join("target")
        .join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("viewer-after-keys.png"), &png).unwrap();
    let pixels = decode_png(&png);
    assert!(
        count_near(&pixels, [0xf0, 0xd9, 0xb5]) > 60_000,
        "light squares"
    );
    assert!(
        count_near(&pixels, [0xcd, 0xd2, 0x6a]) + count_near(&pixels, [0xaa, 0xa2, 0x3a]) > 5_000,
        "last move"
    );
    // The game list: a click on the second game loads it.
    browser.eval("document.querySelectorAll('#game-list li')[1].click()");
    browser.press("End");
    assert_eq!(
        dom_pieces(&mut browser),
        position_pieces(&games[1], games[1].tree.mainline().last().unwrap())
    );
}

/// Go boards follow real key presses too: the stones in the page are the
/// replayed position after each key.
#[test]
fn go_viewer_follows_real_key_presses_over_devtools() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let out = site("html-devtools-go");
    let parsed = gamerec::sgf::parse(SGF.as_bytes(), &gamerec::sgf::ParseOptions::default());
    let coll = &parsed.collection;
    let profile = gamerec_testkit::temp_dir("html-devtools-go-profile");
    let mut browser = cdp::Browser::launch(
        &chromium,
        profile,
        &url(&out.join("joseki.html"), ""),
        (1100, 800),
    );
    browser.wait_for("document.querySelector('#board svg')");
    for (key, path) in [
        ("ArrowRight", "1"),
        ("ArrowRight", "2"),
        ("ArrowRight", "3"),
        ("ArrowDown", "3,2"),
        ("ArrowRight", "3,2,4"),
        ("Home", "0"),
        ("End", "5"),
    ] {
        browser.press(key);
        let v = browser.eval(
            "JSON.stringify([...document.querySelectorAll('#board .stone')].map(s => [s.dataset.point, s.classList.contains('black')]))",
        );
        let mut drawn: Vec<(String, bool)> = serde_json::from_str(v.as_str().unwrap()).unwrap();
        drawn.sort();
        let node = gamerec::sgf::replay::find_node(coll, path).unwrap().1;
        let (state, _) = gamerec::sgf::replay::play_to(coll, node).unwrap();
        let mut want = Vec::new();
        for y in 0..9u8 {
            for x in 0..9u8 {
                let p = gamerec::sgf::Point::new(x, y);
                if let Some(c) = state.position.get(p) {
                    want.push((p.to_string(), c == gamerec::sgf::Color::Black));
                }
            }
        }
        want.sort();
        assert_eq!(drawn, want, "after {key} (node {path})");
    }
}
