//! Go and Othello boards: stones, last move, move numbers, labels and marks
//! read back from the SVG and compared with the SGF node.

use crate::common;

use common::{elements, with_class};
use gamerec::sgf::replay::{find_node, play_to};
use gamerec::sgf::{Collection, NodeId, ParseOptions, Point, parse};
use gamerec_view::diagram::{DiagramOptions, sgf_svg};

fn collection(sgf: &str) -> Collection {
    let parsed = parse(sgf.as_bytes(), &ParseOptions::default());
    assert_eq!(parsed.error_count(), 0, "{:?}", parsed.diagnostics);
    parsed.collection
}

fn node(coll: &Collection, path: &str) -> NodeId {
    find_node(coll, path).unwrap().1
}

/// The stones drawn, as (SGF point, colour), sorted.
fn drawn_stones(svg: &str) -> Vec<(String, String)> {
    let els = elements(svg);
    let mut out: Vec<(String, String)> = with_class(&els, "stone")
        .iter()
        .map(|e| {
            let color = if e.has_class("black") { "B" } else { "W" };
            (e.attr("data-point").to_owned(), color.to_owned())
        })
        .collect();
    out.sort();
    out
}

/// The stones of the replayed position, in the same form.
fn expected_stones(coll: &Collection, n: NodeId) -> Vec<(String, String)> {
    let (state, _) = play_to(coll, n).unwrap();
    let (w, h) = state.position.size();
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let p = Point::new(x as u8, y as u8);
            if let Some(c) = state.position.get(p) {
                out.push((p.to_string(), c.letter().to_string()));
            }
        }
    }
    out.sort();
    out
}

const GAME: &str = "(;GM[1]FF[4]SZ[9]AB[cc]AW[gg]\
;B[ee];W[ef];B[df];W[aa];B[ff];W[ba];B[eg]C[black captures ef]\
TR[ee]CR[df]SQ[ff]MA[hh:hi]LB[dc:A][dd:long label]\
(;W[fg])(;W[dh]))";

/// Stones of every node equal the replayed position; the captured stone is
/// gone; the last move is ringed.
#[test]
fn stones_and_last_move_follow_the_game() {
    let coll = collection(GAME);
    for path in ["0", "1", "2", "5", "7", "8", "8,2"] {
        let n = node(&coll, path);
        let svg = sgf_svg(&coll, n, &DiagramOptions::default()).unwrap();
        assert_eq!(drawn_stones(&svg), expected_stones(&coll, n), "{path}");
    }
    let svg = sgf_svg(&coll, node(&coll, "7"), &DiagramOptions::default()).unwrap();
    let stones = drawn_stones(&svg);
    assert!(!stones.iter().any(|(p, _)| p == "ef"), "ef captured");
    assert!(stones.contains(&("cc".into(), "B".into())));
    assert!(stones.contains(&("gg".into(), "W".into())));
    let els = elements(&svg);
    let last = with_class(&els, "last-move");
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].attr("data-point"), "eg");
    let els = elements(&sgf_svg(&coll, node(&coll, "8,2"), &DiagramOptions::default()).unwrap());
    assert_eq!(with_class(&els, "last-move")[0].attr("data-point"), "dh");
    let opts = DiagramOptions {
        last_move: false,
        ..DiagramOptions::default()
    };
    let els = elements(&sgf_svg(&coll, node(&coll, "7"), &opts).unwrap());
    assert!(with_class(&els, "last-move").is_empty());
    let els = elements(&sgf_svg(&coll, node(&coll, "0"), &DiagramOptions::default()).unwrap());
    assert!(with_class(&els, "last-move").is_empty());
}

/// TR, CR, SQ, MA (a compressed list too) and LB appear on their points.
#[test]
fn marks_and_labels() {
    let coll = collection(GAME);
    let n = node(&coll, "7");
    let els = elements(&sgf_svg(&coll, n, &DiagramOptions::default()).unwrap());
    let at = |class: &str| -> Vec<String> {
        with_class(&els, class)
            .iter()
            .filter(|e| e.has_class("mark"))
            .map(|e| e.attr("data-point").to_owned())
            .collect()
    };
    assert_eq!(at("triangle"), ["ee"]);
    assert_eq!(at("circle"), ["df"]);
    assert_eq!(at("square"), ["ff"]);
    assert_eq!(at("cross"), ["hh", "hi"]);
    // A mark on a black stone is white, on an empty point black.
    let tr = with_class(&els, "triangle")[0];
    assert_eq!(tr.attr("stroke"), "#fff");
    assert_eq!(with_class(&els, "cross")[0].attr("stroke"), "#000");
    let labels: Vec<(&str, &str)> = with_class(&els, "label")
        .iter()
        .map(|e| (e.attr("data-point"), e.text.as_str()))
        .collect();
    assert_eq!(labels, [("dc", "A"), ("dd", "long label")]);
    let opts = DiagramOptions {
        marks: false,
        ..DiagramOptions::default()
    };
    let els = elements(&sgf_svg(&coll, n, &opts).unwrap());
    assert!(with_class(&els, "mark").is_empty() && with_class(&els, "label").is_empty());
}

/// Move numbers for a range: only the moves in range whose stone is still
/// on the board, with the right number; the last move's ring gives way to
/// its number.
#[test]
fn move_numbers_for_a_range() {
    let coll = collection(GAME);
    let n = node(&coll, "7");
    let numbers = |range| {
        let opts = DiagramOptions {
            move_numbers: Some(range),
            ..DiagramOptions::default()
        };
        let svg = sgf_svg(&coll, n, &opts).unwrap();
        let els = elements(&svg);
        let mut v: Vec<(String, u32)> = with_class(&els, "move-number")
            .iter()
            .map(|e| (e.attr("data-point").to_owned(), e.text.parse().unwrap()))
            .collect();
        v.sort_by_key(|x| x.1);
        (v, with_class(&els, "last-move").len())
    };
    let (all, rings) = numbers(1..=9);
    // Move 2 (W ef) was captured by move 7.
    let expect: Vec<(String, u32)> = [
        ("ee", 1),
        ("df", 3),
        ("aa", 4),
        ("ff", 5),
        ("ba", 6),
        ("eg", 7),
    ]
    .iter()
    .map(|&(p, k)| (p.to_owned(), k))
    .collect();
    assert_eq!(all, expect);
    assert_eq!(rings, 0);
    let (some, rings) = numbers(3..=5);
    assert_eq!(
        some.iter().map(|x| x.1).collect::<Vec<_>>(),
        [3, 4, 5],
        "{some:?}"
    );
    assert_eq!(rings, 1);
}

/// Any board size, rectangular boards included; coordinates skip I.
#[test]
fn board_sizes_and_coordinates() {
    for (sz, w, h) in [
        ("19", 19, 19),
        ("13", 13, 13),
        ("7:11", 7, 11),
        ("25", 25, 25),
        ("2", 2, 2),
    ] {
        let coll = collection(&format!("(;GM[1]FF[4]SZ[{sz}];B[ab];W[ba])"));
        let n = node(&coll, "2");
        let svg = sgf_svg(&coll, n, &DiagramOptions::default()).unwrap();
        let els = elements(&svg);
        assert_eq!(els[0].attr("data-width"), w.to_string());
        assert_eq!(els[0].attr("data-height"), h.to_string());
        let lines = els.iter().filter(|e| e.name == "line").count();
        assert_eq!(lines, w + h, "{sz}");
        let cols: Vec<&str> = with_class(&els, "column")
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(cols.len(), 2 * w);
        assert!(!cols.contains(&"I"));
        assert_eq!(cols[0], "A");
        let rows: Vec<&str> = with_class(&els, "row")
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(rows[0], h.to_string(), "top row is the highest number");
        assert_eq!(drawn_stones(&svg), expected_stones(&coll, n));
        // Height follows the board's shape.
        let px_w: f64 = els[0].f("width");
        let px_h: f64 = els[0].f("height");
        assert!((px_h / px_w - (h as f64 + 2.0) / (w as f64 + 2.0)).abs() < 0.01);
        let stars = with_class(&els, "star").len();
        assert_eq!(
            stars,
            gamerec_view::diagram::star_points(w as u32, h as u32).len(),
            "{w}x{h}"
        );
        match (w, h) {
            (19, 19) => assert_eq!(stars, 9),
            (9, 9) | (13, 13) => assert_eq!(stars, 5),
            _ => {}
        }
        let bare = DiagramOptions {
            coordinates: false,
            ..DiagramOptions::default()
        };
        let els = elements(&sgf_svg(&coll, n, &bare).unwrap());
        assert!(with_class(&els, "coord").is_empty());
    }
}

/// Othello: the standard start, flips after a move, cells instead of lines.
#[test]
fn othello_board() {
    let coll = collection("(;GM[2]FF[4]SZ[8];B[dc];W[cc])");
    for path in ["0", "1", "2"] {
        let n = node(&coll, path);
        let svg = sgf_svg(&coll, n, &DiagramOptions::default()).unwrap();
        assert!(svg.contains("class=\"othello-board\""));
        assert_eq!(drawn_stones(&svg), expected_stones(&coll, n), "{path}");
    }
    let svg = sgf_svg(&coll, node(&coll, "0"), &DiagramOptions::default()).unwrap();
    assert_eq!(drawn_stones(&svg).len(), 4);
    let els = elements(&svg);
    assert_eq!(els.iter().filter(|e| e.name == "line").count(), 18);
}

/// Games without a board are refused with a message.
#[test]
fn unsupported_games_are_an_error() {
    let coll = collection("(;GM[3]FF[4];B[aa])");
    let err = sgf_svg(&coll, node(&coll, "1"), &DiagramOptions::default()).unwrap_err();
    assert!(err.to_string().contains("GM[3]"));
}

/// Real files: the last node of each main line draws the replayed stones.
#[test]
fn corpus_games_draw_their_positions() {
    let dir = gamerec_testkit::corpus("sgf");
    let files = gamerec_testkit::files_with_extension(&dir, "sgf");
    assert!(files.len() > 10, "corpus at {}", dir.display());
    let mut drawn = 0;
    for file in files.iter().step_by((files.len() / 60).max(1)) {
        let data = std::fs::read(file).unwrap();
        let coll = parse(&data, &ParseOptions::default()).collection;
        for &root in &coll.roots {
            let last = *coll.main_line(root).last().unwrap();
            let Ok(svg) = sgf_svg(&coll, last, &DiagramOptions::default()) else {
                continue;
            };
            assert_eq!(
                drawn_stones(&svg),
                expected_stones(&coll, last),
                "{}",
                file.display()
            );
            drawn += 1;
        }
    }
    assert!(drawn > 20, "{drawn}");
}

#[test]
fn territory_is_drawn_and_a_circle_mark_is_not_the_last_move() {
    let coll =
        collection("(;FF[4]GM[1]SZ[5]AB[ba][bb]AW[da][db];B[cc]CR[cc][aa]TB[aa][ab]TW[ea:eb][bb])");
    let n = node(&coll, "1");
    let els = elements(&sgf_svg(&coll, n, &DiagramOptions::default()).unwrap());
    let points = |class: &str, other: &str| -> Vec<String> {
        with_class(&els, class)
            .iter()
            .filter(|e| e.has_class(other))
            .map(|e| e.attr("data-point").to_owned())
            .collect()
    };
    assert_eq!(points("territory", "black"), ["aa", "ab"]);
    // A white territory mark on a black stone: the stone is dead.
    assert_eq!(points("territory", "white"), ["ea", "eb", "bb"]);
    assert_eq!(with_class(&els, "territory")[0].attr("fill"), "#111");
    // The last move is a filled dot; a CR mark on it stays a ring.
    let last = with_class(&els, "last-move");
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].attr("data-point"), "cc");
    assert_ne!(last[0].attr("fill"), "none");
    assert_eq!(points("mark", "circle"), ["cc", "aa"]);
    let opts = DiagramOptions {
        marks: false,
        ..DiagramOptions::default()
    };
    let els = elements(&sgf_svg(&coll, n, &opts).unwrap());
    assert!(with_class(&els, "territory").is_empty());
}
