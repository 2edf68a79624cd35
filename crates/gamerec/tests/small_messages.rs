//! Issue 18 item 5: a message quotes the offending token up to a fixed
//! length, with an ellipsis and the token's length, and escapes control
//! bytes. Before, a 1 MB bad move made a 2 MB message (the token twice) and
//! a 1 MB EPD opcode or SGF property name a 1 MB line.

use gamerec::diag::Severity;
use gamerec::{epd, fen, pgn, san, sgf};

/// Long enough that a whole copy could never pass for an excerpt.
const HUGE: usize = 1 << 20;
/// Generous bound on a message that quotes one token and some context.
const SMALL: usize = 600;

fn assert_small(message: &str, len: usize) {
    assert!(
        message.len() < SMALL,
        "{} bytes: {}…",
        message.len(),
        &message[..SMALL]
    );
    assert!(message.contains("…"), "{message}");
    assert!(message.contains(&format!("({len} bytes)")), "{message}");
}

#[test]
fn a_huge_bad_move_in_pgn_gives_a_short_message() {
    let text = format!("[Event \"x\"]\n\n1. e4 N{} *\n", "a".repeat(HUGE));
    let (_, problems) = pgn::read_games(text.as_bytes());
    let error = problems
        .iter()
        .find(|p| p.severity == Severity::Error)
        .expect("an error");
    assert_small(&error.message, HUGE + 1);
    // The checker (what `gamerec check` runs) says the same.
    let pos = shakmaty::Chess::default();
    let e = san::read_san(
        &pos,
        format!("N{}", "a".repeat(HUGE)).as_bytes(),
        &Default::default(),
    )
    .unwrap_err();
    assert_small(&e.to_string(), HUGE + 1);
}

#[test]
fn a_huge_epd_opcode_or_operand_gives_a_short_message() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let cases = [
        (format!("{start} {} 1;", "x".repeat(HUGE)), HUGE),
        (format!("{start} bm N{};", "a".repeat(HUGE)), HUGE + 1),
        (format!("{start} acn {};", "9".repeat(HUGE)), HUGE),
        (
            format!("{}/8/8/8/8/8/8/8 w - - id \"x\";", "p".repeat(HUGE)),
            0,
        ),
    ];
    for (line, len) in cases {
        let (record, diagnostics) = epd::read_line(&line, 1);
        assert!(record.is_none());
        let error = diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .expect("an error");
        if len > 0 {
            assert_small(&error.message, len);
        } else {
            assert!(error.message.len() < SMALL, "{}", &error.message[..SMALL]);
        }
    }
}

#[test]
fn a_huge_sgf_property_name_gives_a_short_message() {
    let name = "Q".repeat(HUGE);
    let text = format!("(;GM[1]FF[4]{name}[x];B[aa]{name})");
    let parsed = sgf::parse(text.as_bytes(), &sgf::ParseOptions::default());
    assert!(!parsed.diagnostics.is_empty());
    for d in &parsed.diagnostics {
        assert!(d.message.len() < SMALL, "{}", &d.message[..SMALL]);
    }
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains(&format!("({HUGE} bytes)")))
    );
}

#[test]
fn a_huge_fen_field_gives_a_short_message() {
    let fen_text = format!("8/8/8/8/8/8/8/K1k5 w - - 0 {}", "9x".repeat(HUGE / 2));
    let e = fen::read_fen(&fen_text).unwrap_err();
    assert_small(&e.to_string(), HUGE);
}

#[test]
fn control_bytes_in_a_token_are_escaped() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let (_, diagnostics) = epd::read_line(&format!("{start} bm Nf\u{1}3;"), 1);
    let message = &diagnostics[0].message;
    assert!(message.contains("Nf\\x013"), "{message}");
    assert!(!message.bytes().any(|b| b < 0x20), "{message:?}");
    let e = fen::read_fen("8/8/8/8/8/8/8/K1k5 w\u{1b}[2J - - 0 1").unwrap_err();
    assert!(!e.to_string().bytes().any(|b| b < 0x20), "{e}");
    let parsed = sgf::parse(b"(;GM[1]FF[4]SZ[19]\x01\x1b[2J;B[aa])", &Default::default());
    for d in &parsed.diagnostics {
        assert!(!d.message.bytes().any(|b| b < 0x20), "{:?}", d.message);
    }
}
