//! The streaming decode of the games and positions tables (rows filled
//! from the reader's events) equals the decode through the model (a `Game`
//! per game, the games table's movetext exported again), column by column
//! and row by row: on every corpus PGN, on 16 MB of the TCEC corpus, and
//! on hand-made games that take the streaming path's every branch and
//! fallback; the positions table also with its filters.

use std::io::Read;
use std::path::Path;

use arrow_array::RecordBatch;
use gamerec_arrow::decode::{decode_streaming_for_test, decode_through_model_for_test};
use gamerec_arrow::{Options, PositionFilter, Table};
use gamerec_testkit::{corpus, files_with_extension};

/// The tables and filters compared.
fn all_options() -> Vec<Options> {
    let positions = |min_rating, time_control: Option<&str>| Options {
        table: Table::Positions,
        filter: PositionFilter {
            min_rating,
            time_control: time_control.map(str::to_owned),
        },
        ..Options::default()
    };
    vec![
        Options::default(),
        positions(None, None),
        positions(Some(1800), None),
        positions(None, Some("blitz")),
    ]
}

/// Compares the two decodes of `data` for every table and filter; returns
/// the rows of the games table.
fn assert_same(data: &[u8], last: bool, what: &str) -> usize {
    let mut games = 0;
    for opts in all_options() {
        let what = format!("{what} ({:?}, {:?})", opts.table, opts.filter);
        let (model, model_built, model_failed) = decode_through_model_for_test(data, last, &opts);
        let (streamed, built, failed) = decode_streaming_for_test(data, last, &opts);
        assert_eq!(
            (built, failed),
            (model_built, model_failed),
            "{what}: games built and failed"
        );
        assert_batches_equal(&model, &streamed, &what);
        if opts.table == Table::Games {
            games = model.num_rows();
        }
    }
    games
}

/// The streaming decode of the games table.
fn decode_games_streaming(data: &[u8], last: bool) -> (RecordBatch, u64, u64) {
    decode_streaming_for_test(data, last, &Options::default())
}

fn assert_batches_equal(model: &RecordBatch, streamed: &RecordBatch, what: &str) {
    assert_eq!(model.schema(), streamed.schema(), "{what}: schema");
    assert_eq!(model.num_rows(), streamed.num_rows(), "{what}: rows");
    for (i, field) in model.schema().fields().iter().enumerate() {
        let (a, b) = (model.column(i), streamed.column(i));
        if a == b {
            continue;
        }
        for row in 0..model.num_rows() {
            let (x, y) = (a.slice(row, 1), b.slice(row, 1));
            assert!(
                x.as_ref() == y.as_ref(),
                "{what}: column {} row {row}: {x:?} != {y:?}",
                field.name()
            );
        }
        panic!("{what}: column {} differs", field.name());
    }
}

#[test]
fn streaming_and_model_decodes_agree_on_every_corpus_pgn() {
    let files = files_with_extension(&corpus("pgn"), "pgn");
    assert!(files.len() > 100);
    let mut rows = 0;
    for path in &files {
        let data = std::fs::read(path).expect("read");
        rows += assert_same(&data, true, &path.display().to_string());
    }
    assert!(rows > 5_000, "{rows}");
}

/// The first `limit` bytes of a zstd file, cut after the last whole game.
fn zstd_prefix(path: &Path, limit: usize) -> Vec<u8> {
    let read = gamerec::io::Input::file(path).open(None).expect("open");
    let mut data = Vec::with_capacity(limit);
    read.take(limit as u64)
        .read_to_end(&mut data)
        .expect("decompress");
    if let Some(cut) = memchr::memmem::rfind(&data, b"\n[Event ") {
        data.truncate(cut + 1);
    }
    data
}

#[test]
fn streaming_and_model_decodes_agree_on_tcec_games() {
    let data = zstd_prefix(&corpus("pgn/tcec-2011-2021.pgn.zst"), 16 << 20);
    let rows = assert_same(&data, true, "tcec");
    assert!(rows > 500, "{rows}");
}

/// Games that take each branch of the streaming path, and each reason to
/// fall back to the model.
const EDGE_CASES: &[(&str, &str)] = &[
    (
        "plain",
        "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n",
    ),
    ("no tags", "1. d4 d5 *\n"),
    (
        "no result",
        "[Event \"a\"]\n\n1. e4 e5\n\n[Event \"b\"]\n\n1. d4 *\n",
    ),
    (
        "result from tag",
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4#\n",
    ),
    (
        "comments and clocks",
        "1. e4 { [%clk 0:03:00] } 1... e5 { [%eval 0.17] [%clk 0:02:59.5] } 2. Nf3 {[%emt 0:00:01]}\n{ plain\n text } { two } *\n",
    ),
    (
        "eval mate",
        "1. e4 { [%eval #-3] } e5 { [%eval #4,20] } *\n",
    ),
    (
        "nags after comments",
        "1. e4 {a} $1 {b} $14 e5! 2. Nf3!? {c} Nc6?? *\n",
    ),
    (
        "root comments",
        "[Event \"x\"]\n{ before } ; line comment\n1. e4 e5 *\n",
    ),
    ("comments only", "[Event \"x\"]\n\n{ nothing else } *\n"),
    (
        "tags only then game",
        "[Event \"x\"]\n1. [Event \"y\"]\n1. e4 *\n",
    ),
    (
        "non-canonical san",
        "1. Ng1f3 Ng8-f6 2. e2e4 Nxe4 3. Qe2 Nf6 4. Qxe7+ Bxe7 5. 0-0 0-0 *\n",
    ),
    (
        "wrong check marks",
        "1. e4+ e5# 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 *\n",
    ),
    ("suffix annotations", "1. e4!! e5?? 2. Nf3!? Nc6?! *\n"),
    ("null moves", "1. e4 -- 2. d4 Z0 *\n"),
    (
        "promotion",
        "[FEN \"8/P6k/8/8/8/8/8/K7 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. a8=Q Kg6 2. Qa6+ *\n",
    ),
    (
        "black to move",
        "[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n\n1... e5 2. Nf3 { x } Nc6 *\n",
    ),
    ("bad fen", "[FEN \"not a fen\"]\n\n1. e4 *\n\n1. e4 *\n"),
    ("illegal move", "1. e4 e5 2. Ke3 *\n\n1. d4 *\n"),
    (
        "variations",
        "1. e4 (1. d4 d5 (1... Nf6 2. c4)) 1... e5 {x} (1... c5 {y}) 2. Nf3 *\n",
    ),
    ("variation then nag", "1. e4 (1. d4) $1 e5 *\n"),
    ("comment after variation", "1. e4 (1. d4) {after} e5 *\n"),
    ("empty variation", "1. e4 () e5 *\n"),
    ("semicolon with brace", "1. e4 ; a } brace\ne5 *\n"),
    ("latin-1 tag", "[White \"M\u{fc}ller\"]\n\n1. e4 *\n"),
    ("latin-1 comment", "1. e4 {caf\u{e9}} *\n"),
    ("utf-8", "[White \"Müller\"]\n\n1. e4 {café ♞} *\n"),
    ("escaped tag", "[Event \"a \\\"b\\\" \\\\ c\"]\n\n1. e4 *\n"),
    (
        "typed tags",
        "[WhiteElo \"1500\"]\n[WhiteElo \"1600\"]\n[BlackElo \"?\"]\n[UTCDate \"2024.01.31\"]\n[UTCTime \"12:00:01\"]\n[TimeControl \"300+3\"]\n[WhiteRatingDiff \"+5\"]\n[Variant \"Chess960\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. g3 O-O 10. O-O *\n",
    ),
    (
        "castling standard",
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O *\n",
    ),
    ("en passant", "1. e4 a6 2. e5 d5 3. exd6 e.p. *\n"),
    ("move numbers everywhere", "1.e4 1...e5 2.Nf3 2...Nc6 *\n"),
    ("escape line", "% skipped\n1. e4 *\n"),
];

#[test]
fn streaming_and_model_decodes_agree_on_edge_cases() {
    for &(what, text) in EDGE_CASES {
        let data = latin1_bytes(text);
        assert_same(&data, true, what);
        assert_same(&data, false, what);
    }
    let all: Vec<u8> = EDGE_CASES
        .iter()
        .flat_map(|(_, t)| {
            let mut d = latin1_bytes(t);
            d.push(b'\n');
            d
        })
        .collect();
    assert_same(&all, true, "all edge cases in one chunk");
}

#[test]
fn a_tag_section_cut_off_at_the_end_is_left_out_by_both() {
    let data = b"1. e4 *\n\n[Event \"cut\"]\n[Site \"x";
    let (batch, built, failed) = decode_games_streaming(data, true);
    assert_eq!((batch.num_rows(), built, failed), (1, 1, 1));
    let data = b"1. e4 *\n\n[Event \"cut\"]\n";
    assert_same(data, true, "cut after a whole tag");
    let (_, built, failed) = decode_games_streaming(data, true);
    assert_eq!((built, failed), (1, 1));
}

/// Text with U+0080..U+00FF taken as single bytes (Latin-1), the rest UTF-8.
fn latin1_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for c in text.chars() {
        let code = u32::from(c);
        if (0x80..=0xff).contains(&code) && !text.contains('♞') {
            out.push(code as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}
