//! `gamerec svg`: every option reaches the picture (read back from the SVG),
//! PNG output, and exit codes for bad input (1) and bad usage (2).

use crate::util::cli;

use crate::common;

use common::{elements, with_class};

fn svg_of(args: &[&str]) -> Vec<common::Element> {
    let out = cli(args).run();
    gamerec_testkit::assert_success(&out, "gamerec svg");
    elements(std::str::from_utf8(&out.stdout).unwrap())
}

fn squares_with(els: &[common::Element], class: &str) -> Vec<String> {
    with_class(els, class)
        .iter()
        .map(|e| e.attr("data-square").to_owned())
        .collect()
}

const CHECK_FEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";

#[test]
fn fen_with_every_chess_option() {
    let els = svg_of(&["svg", CHECK_FEN]);
    assert_eq!(els[0].attr("width"), "400");
    assert_eq!(with_class(&els, "piece").len(), 32);
    assert_eq!(squares_with(&els, "check"), ["e1"]);
    assert_eq!(with_class(&els, "coord").len(), 16);
    assert!(!els[0].has_class("flipped"));
    let els = svg_of(&[
        "svg",
        CHECK_FEN,
        "--size",
        "250",
        "--flip",
        "--no-coords",
        "--arrows",
        "e2e4,d8h4:red,Bb1c3",
        "--squares",
        "e4:yellow,Gf3,h4",
    ]);
    assert_eq!(els[0].attr("width"), "250");
    assert!(els[0].has_class("flipped"));
    assert!(with_class(&els, "coord").is_empty());
    let arrows: Vec<(String, String, String)> = with_class(&els, "arrow")
        .iter()
        .map(|a| {
            (
                a.classes()[1].to_owned(),
                a.attr("data-from").to_owned(),
                a.attr("data-to").to_owned(),
            )
        })
        .collect();
    let expect = [
        ("green", "e2", "e4"),
        ("red", "d8", "h4"),
        ("blue", "b1", "c3"),
    ];
    assert_eq!(
        arrows,
        expect.map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    );
    let marks: Vec<(String, String)> = with_class(&els, "mark")
        .iter()
        .map(|m| (m.classes()[1].to_owned(), m.attr("data-square").to_owned()))
        .collect();
    assert_eq!(
        marks,
        [("yellow", "e4"), ("green", "f3"), ("red", "h4")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // An EPD line draws too; a placement that is no legal position as well.
    let els = svg_of(&["svg", "4k3/8/8/8/8/8/8/4K3 w - - bm Kd2; id \"x\";"]);
    assert_eq!(with_class(&els, "piece").len(), 2);
    let els = svg_of(&["svg", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert!(with_class(&els, "piece").is_empty());
}

#[test]
fn pgn_game_at_a_ply() {
    let dir = gamerec_testkit::temp_dir("svg-cli");
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n\n1. d4 d5 *\n\n[Event \"b\"]\n\n1. e4 {[%csl Ye4][%cal Gg1f3]} e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    )
    .unwrap();
    let p = pgn.to_str().unwrap();
    let els = svg_of(&["svg", p, "--game", "2", "--ply", "1"]);
    assert_eq!(squares_with(&els, "lastmove"), ["e2", "e4"]);
    assert_eq!(squares_with(&els, "mark"), ["e4"]);
    assert_eq!(with_class(&els, "arrow")[0].attr("data-to"), "f3");
    // Default: the end of the main line (mate: e8 in check).
    let els = svg_of(&["svg", p, "--game", "2"]);
    assert_eq!(squares_with(&els, "check"), ["e8"]);
    assert_eq!(squares_with(&els, "lastmove"), ["h5", "f7"]);
    let els = svg_of(&["svg", p, "--ply", "0"]);
    assert_eq!(with_class(&els, "piece").len(), 32);
    assert!(with_class(&els, "lastmove").is_empty());
    // Extra arrows join the comment's.
    let els = svg_of(&["svg", p, "--game", "2", "--ply", "1", "--arrows", "d2d4"]);
    assert_eq!(with_class(&els, "arrow").len(), 2);
    let out = cli(&["svg", p, "--ply", "9"]).run();
    assert_eq!(out.status.code(), Some(1));
    let out = cli(&["svg", p, "--game", "5"]).run();
    assert_eq!(out.status.code(), Some(1));
    let out = cli(&["svg", p, "--node", "3"]).run();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn sgf_node_with_numbers_and_marks() {
    let dir = gamerec_testkit::temp_dir("svg-cli-sgf");
    let sgf = dir.join("g.sgf");
    std::fs::write(
        &sgf,
        "(;GM[1]FF[4]SZ[13];B[dd];W[jj];B[dj]TR[dd]LB[jd:a](;W[jd])(;W[gg]))",
    )
    .unwrap();
    let s = sgf.to_str().unwrap();
    let els = svg_of(&["svg", s]);
    assert_eq!(els[0].attr("data-width"), "13");
    assert_eq!(with_class(&els, "stone").len(), 4);
    assert_eq!(with_class(&els, "last-move")[0].attr("data-point"), "jd");
    let els = svg_of(&[
        "svg",
        s,
        "--node",
        "3",
        "--numbers",
        "1-3",
        "--no-coords",
        "--size",
        "300",
    ]);
    let numbers: Vec<(&str, &str)> = with_class(&els, "move-number")
        .iter()
        .map(|e| (e.attr("data-point"), e.text.as_str()))
        .collect();
    assert_eq!(numbers, [("dd", "1"), ("jj", "2"), ("dj", "3")]);
    assert_eq!(with_class(&els, "triangle")[0].attr("data-point"), "dd");
    assert_eq!(with_class(&els, "label")[0].text, "a");
    assert!(with_class(&els, "coord").is_empty());
    assert_eq!(els[0].attr("width"), "300");
    let els = svg_of(&["svg", s, "--node", "4,2"]);
    assert_eq!(with_class(&els, "last-move")[0].attr("data-point"), "gg");
    let els = svg_of(&["svg", s, "--ply", "1"]);
    assert_eq!(with_class(&els, "stone").len(), 1);
    assert_eq!(cli(&["svg", s, "--node", "9"]).run().status.code(), Some(1));
    assert_eq!(cli(&["svg", s, "--flip"]).run().status.code(), Some(2));
    assert_eq!(
        cli(&["svg", s, "--numbers", "x"]).run().status.code(),
        Some(2)
    );
}

#[test]
fn png_output() {
    let dir = gamerec_testkit::temp_dir("svg-cli-png");
    let out = dir.join("b.png");
    let o = cli(&[
        "svg",
        CHECK_FEN,
        "--size",
        "160",
        "-o",
        out.to_str().unwrap(),
    ])
    .run();
    gamerec_testkit::assert_success(&o, "svg -o x.png");
    let png = std::fs::read(&out).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 160);
    let o = cli(&["svg", CHECK_FEN, "--png"]).run();
    assert_eq!(&o.stdout[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn bad_input_and_usage() {
    assert_eq!(cli(&["svg", "not a fen"]).run().status.code(), Some(1));
    assert_eq!(
        cli(&["svg", CHECK_FEN, "--arrows", "e2"])
            .run()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        cli(&["svg", CHECK_FEN, "--squares", "e4:pink"])
            .run()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        cli(&["svg", CHECK_FEN, "--ply", "3"]).run().status.code(),
        Some(2)
    );
    assert_eq!(
        cli(&["svg", CHECK_FEN, "--size", "0"]).run().status.code(),
        Some(2)
    );
}

/// `-` reads stdin once: SGF and PGN by content, an EPD/FEN line too; a
/// `.epd` file draws its first position.
#[test]
fn stdin_and_epd_files() {
    let run = |stdin: &[u8], extra: &[&str]| {
        let mut args = vec!["svg", "-"];
        args.extend_from_slice(extra);
        let out = gamerec_testkit::run(env!("CARGO_BIN_EXE_gamerec"), &args, stdin);
        gamerec_testkit::assert_success(&out, "gamerec svg -");
        elements(std::str::from_utf8(&out.stdout).unwrap())
    };
    let els = run(b"(;GM[1]FF[4]SZ[9];B[ee];W[cc])", &[]);
    assert_eq!(with_class(&els, "stone").len(), 2);
    let els = run(b"[Event \"x\"]\n\n1. e4 e5 *\n", &["--ply", "1"]);
    assert_eq!(squares_with(&els, "lastmove"), ["e2", "e4"]);
    let els = run(format!("{CHECK_FEN}\n").as_bytes(), &[]);
    assert_eq!(squares_with(&els, "check"), ["e1"]);
    let dir = gamerec_testkit::temp_dir("svg-cli-epd");
    let epd = dir.join("p.epd");
    std::fs::write(
        &epd,
        "\n4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"a\";\n8/8/8/8/8/8/8/8 w - -\n",
    )
    .unwrap();
    let els = svg_of(&["svg", epd.to_str().unwrap()]);
    assert_eq!(with_class(&els, "piece").len(), 3);
}
