//! EPD: every opcode of section 6 (valid and invalid operands), the reader's
//! tolerances and errors, registers, and the normalize/purge golden files.

use gamerec::diag::Severity;
use gamerec::epd::{
    self, EpdPosition, EpdRecord, Evaluation, Opcode, Operand, Operation, Registers,
    normalized_line, read_line,
};
use shakmaty::{Chess, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// Reads `START ops`; Ok(canonical line) or Err(first error "col: message").
fn read(ops: &str) -> Result<String, String> {
    read_full(&format!("{START} {ops}"))
}

fn read_full(line: &str) -> Result<String, String> {
    let (record, diags) = read_line(line, 1);
    match record {
        Some(r) => Ok(r.to_string()),
        None => Err(diags
            .iter()
            .find(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.location.column, d.message))
            .unwrap_or_default()),
    }
}

fn warnings(line: &str) -> Vec<String> {
    read_line(line, 1)
        .1
        .into_iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.message)
        .collect()
}

#[track_caller]
fn ok(ops: &str, canonical_ops: &str) {
    assert_eq!(read(ops), Ok(format!("{START} {canonical_ops}")), "{ops}");
}

#[track_caller]
fn err(ops: &str, expected: &str) {
    match read(ops) {
        Ok(line) => panic!("{ops}: expected an error containing `{expected}`, read {line}"),
        Err(msg) => assert!(msg.contains(expected), "{ops}: `{msg}` lacks `{expected}`"),
    }
}

#[test]
fn acn_and_acs_take_one_non_negative_integer() {
    ok("acn 0;", "acn 0;");
    ok("acn 12345678901;", "acn 12345678901;");
    ok("acs +17;", "acs 17;");
    err("acn -1;", "out of range");
    err("acs;", "found no operand");
    err("acn 1 2;", "exactly one operand");
    err("acn x;", "expected an integer");
    err("acs \"5\";", "found a string");
}

#[test]
fn am_and_bm_take_playable_moves() {
    ok("bm e4 Nf3;", "bm e4 Nf3;");
    ok("am;", "am;");
    ok("bm Ng1f3;", "bm Nf3;");
    err("bm e5;", "not a legal move");
    err("am Qxx9;", "not a legal move");
    err("bm \"e4\";", "found a string");
    err("bm --;", "null move");
}

#[test]
fn comments_and_variation_names_take_zero_or_one_string() {
    ok("c0 \"hello world\";", "c0 \"hello world\";");
    ok("c9;", "c9;");
    ok("v3 \"Najdorf\";", "v3 \"Najdorf\";");
    ok("v0;", "v0;");
    err("c1 \"a\" \"b\";", "one string operand");
    let long = "x".repeat(256);
    err(&format!("c2 \"{long}\";"), "fewer than 256 bytes");
    ok(
        &format!("c2 \"{}\";", &long[..255]),
        &format!("c2 \"{}\";", &long[..255]),
    );
    err("c0 \"open;", "unterminated string");
}

#[test]
fn cc_takes_two_clocks() {
    ok(
        "cc 000:01:02:03 001:00:00:59;",
        "cc 000:01:02:03 001:00:00:59;",
    );
    err("cc 000:01:02:03;", "two clock values");
    err("cc 000:24:00:00 000:00:00:00;", "out of range");
    err("cc 0:01:02:03 000:00:00:00;", "ddd:hh:mm:ss");
}

#[test]
fn ce_is_restricted_to_minus_32768_through_32766() {
    ok("ce -32768;", "ce -32768;");
    ok("ce 32766;", "ce 32766;");
    ok("ce +15;", "ce 15;");
    err("ce 32767;", "out of range");
    err("ce -32769;", "out of range");
    err("ce 1.5;", "expected an integer");
    let rec: EpdRecord = format!("{START} ce 32758;").parse().unwrap();
    assert_eq!(rec.evaluation(), Some(Evaluation::MateIn(5)));
}

#[test]
fn dm_rc_tcgs_take_a_positive_integer() {
    ok("dm 3;", "dm 3;");
    ok("rc 1;", "rc 1;");
    ok("tcgs 12;", "tcgs 12;");
    err("dm 0;", "out of range");
    err("rc 0;", "out of range");
    err("tcgs -4;", "out of range");
}

#[test]
fn draw_and_resign_opcodes_take_no_operands_and_do_not_conflict() {
    ok("draw_accept;", "draw_accept;");
    ok("draw_reject;", "draw_reject;");
    ok("resign;", "resign;");
    ok("draw_offer; sm e4;", "draw_offer; sm e4;");
    ok("draw_claim; sm Nf3;", "draw_claim; sm Nf3;");
    err("resign now;", "takes no operands");
    err("draw_accept; draw_reject;", "conflicts with `draw_accept`");
    err(
        "draw_claim; draw_offer; sm e4;",
        "conflicts with `draw_claim`",
    );
    err("resign; draw_offer; sm e4;", "conflicts with `resign`");
    err("draw_offer;", "requires an `sm`");
    ok("draw_claim;", "draw_claim;");
    assert!(
        warnings(&format!("{START} draw_claim;"))
            .iter()
            .any(|w| w.contains("without an `sm`"))
    );
}

#[test]
fn eco_and_nic_take_zero_or_one_string() {
    ok("eco \"B90\";", "eco \"B90\";");
    ok("eco;", "eco;");
    ok("nic \"SI 2.1\";", "nic \"SI 2.1\";");
    err("nic \"a\" \"b\";", "one string operand");
}

#[test]
fn fmvn_and_hmvc_set_the_counters() {
    let rec: EpdRecord = format!("{START} hmvc 7; fmvn 12;").parse().unwrap();
    assert_eq!(rec.chess().halfmoves(), 7);
    assert_eq!(rec.chess().fullmoves().get(), 12);
    ok("hmvc 0;", "hmvc 0;");
    err("fmvn 0;", "out of range");
    err("hmvc -1;", "out of range");
}

#[test]
fn id_takes_one_string() {
    ok("id \"WAC.001\";", "id \"WAC.001\";");
    err("id;", "one string operand");
    err("id \"a\" \"b\";", "one string operand");
    // Unquoted words are joined (a warning, not an error).
    ok("id BK.01;", "id \"BK.01\";");
    ok("id ERET 015 - Endspiel;", "id \"ERET 015 - Endspiel\";");
}

#[test]
fn noop_takes_anything() {
    ok("noop;", "noop;");
    ok("noop 1 x \"s\" e4;", "noop 1 x \"s\" e4;");
}

#[test]
fn pm_and_pv_agree() {
    ok("pm e4;", "pm e4;");
    ok("pv e4 e5 Nf3 Nc6;", "pv e4 e5 Nf3 Nc6;");
    ok("pv;", "pv;");
    ok("pm e4; pv e4 e5;", "pm e4; pv e4 e5;");
    err("pm e4; pv d4 d5;", "differs from the first `pv` move");
    err("pm e4 d4;", "exactly one operand");
    err("pm;", "found no operand");
    err("pv e4 e4;", "not a legal move");
}

#[test]
fn sm_and_sv_agree() {
    ok("sm Nf3;", "sm Nf3;");
    ok("sv Nf3 d5 g3;", "sv Nf3 d5 g3;");
    ok("sm Nf3; sv Nf3 d5;", "sm Nf3; sv Nf3 d5;");
    err("sm e4; sv d4;", "differs from the first `sv` move");
    err("sv e4 Nf3 Nf6;", "not a legal move");
}

#[test]
fn ptp_takes_tag_string_pairs() {
    ok(
        "ptp Event \"Argus test\" Round \"1\";",
        "ptp Event \"Argus test\" Round \"1\";",
    );
    ok("ptp;", "ptp;");
    err("ptp Event;", "odd number");
    err("ptp \"Event\" \"x\";", "tag name identifier");
    err("ptp Bad-Tag \"x\";", "tag name");
    let line = format!("{START} ptp White \"A\" White \"B\";");
    assert!(warnings(&line).iter().any(|w| w.contains("more than once")));
    let rec: EpdRecord = format!("{START} ptp White \"Fischer\" Black \"Spassky\";")
        .parse()
        .unwrap();
    assert_eq!(
        rec.tag_pairs(),
        vec![
            ("White".into(), "Fischer".into()),
            ("Black".into(), "Spassky".into())
        ]
    );
}

#[test]
fn refcom_and_refreq_take_their_listed_identifiers() {
    for cmd in [
        "conclude",
        "disconnect",
        "execute",
        "fault",
        "inform",
        "reset",
        "respond",
    ] {
        ok(&format!("refcom {cmd};"), &format!("refcom {cmd};"));
    }
    for req in ["fault", "reply", "sign_off", "sign_on"] {
        ok(&format!("refreq {req};"), &format!("refreq {req};"));
    }
    err("refcom reply;", "expected one of");
    err("refreq respond;", "expected one of");
    err("refcom;", "found no operand");
    let rec: EpdRecord = format!("{START} refcom respond;").parse().unwrap();
    assert_eq!(rec.identifier("refcom"), Some("respond"));
}

#[test]
fn tcri_and_tcsi_take_two_strings() {
    ok(
        "tcri \"sje@mv.mv.com\" \"Spector\";",
        "tcri \"sje@mv.mv.com\" \"Spector\";",
    );
    ok("tcsi \"a@b\" \"Zarkov\";", "tcsi \"a@b\" \"Zarkov\";");
    err("tcsi \"a@b\";", "two string operands");
    // Found by fuzzing: an unquoted operand with a control character.
    err("tcsi \u{18}b@x \"o\";", "control character");
    err("ptp White \u{1};", "control character");
}

#[test]
fn ts_takes_a_date_and_a_time() {
    ok("ts 1995.11.26 23:59:00;", "ts 1995.11.26 23:59:00;");
    err("ts 1995.11.26;", "date and a time");
    err("ts 1995.13.26 12:00:00;", "out of range");
    err("ts 1995.11.26 12:00;", "hh:mm:ss");
}

#[test]
fn unknown_and_private_opcodes_round_trip_untouched() {
    ok("Ae \"Stockish 15\";", "Ae \"Stockish 15\";");
    ok("D4 23441;", "D4 23441;");
    ok("zz_custom b a 3 \"q\\\"x\";", "zz_custom b a 3 \"q\\\"x\";");
    // Normalisation leaves their operand order alone.
    let rec: EpdRecord = format!("{START} Xy c b a;").parse().unwrap();
    assert_eq!(normalized_line(&rec), format!("{START} Xy c b a;"));
}

#[test]
fn opcode_syntax() {
    err("18 knights;", "must start with a letter");
    err("eval=mate;", "contains `=`");
    err("abcdefghijklmnop 1;", "longer than 15");
    err("bm e4; bm d4;", "appears twice");
}

#[test]
fn position_field_errors_name_the_field_and_column() {
    assert_eq!(
        read_full("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR K KQkq -"),
        Err("45: active color field `K`: expected `w` or `b`".into())
    );
    assert!(
        read_full("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -0")
            .unwrap_err()
            .starts_with("52: en passant target square field `-0`")
    );
    // `-0 1`: a missing space before the halfmove clock is tolerated.
    assert_eq!(
        read_full("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -0 1"),
        Ok(format!("{START} hmvc 0; fmvn 1;"))
    );
    assert!(read_full("startpos").unwrap_err().contains("active color"));
    assert!(
        read_full("rnbqkbnr/ppppippp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")
            .unwrap_err()
            .starts_with("14: bad position: piece placement")
    );
    assert!(
        read_full("8/8/8/8/8/8/8/8 w - -")
            .unwrap_err()
            .contains("illegal position")
    );
}

#[test]
fn tolerances_are_warnings() {
    // Extra whitespace, tabs, a trailing NUL, missing final semicolon,
    // empty operations.
    let canonical = format!("{START} bm e4; id \"x\";");
    for line in [
        format!("  {START}   bm  e4 ;\tid \"x\"  "),
        format!("{START} bm e4; id \"x\"\0"),
        format!("{START} ; bm e4;; id \"x\";"),
    ] {
        assert_eq!(read_full(&line), Ok(canonical.clone()), "{line:?}");
        assert!(warnings(&line).is_empty(), "{line:?}");
    }
    // Six-field FEN: counters become hmvc/fmvn.
    assert_eq!(
        read_full(&format!("{START} 3 17; bm e4")),
        Ok(format!("{START} bm e4; hmvc 3; fmvn 17;"))
    );
    assert_eq!(
        read_full(&format!("{START} 0 1")),
        Ok(format!("{START} hmvc 0; fmvn 1;"))
    );
    // A check sign apart from its move; an annotation; coordinate notation.
    let w = warnings(&format!("{START} bm e4 + ;"));
    assert!(w[0].contains("apart from its move"), "{w:?}");
    assert_eq!(read("bm Nf3 !;"), Ok(format!("{START} bm Nf3;")));
    assert_eq!(read("bm e2e4 g1f3;"), Ok(format!("{START} bm e4 Nf3;")));
    let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -";
    assert_eq!(
        read_full(&format!("{castle} bm e1g1;")),
        Ok(format!("{castle} bm O-O;"))
    );
    assert!(warnings(&format!("{castle} bm e1g1;"))[0].contains("EPD requires SAN"));
    // Common SAN slips: promotion without `=`, capture without `x`.
    let promo = "8/2P5/8/8/8/8/8/k6K w - -";
    assert_eq!(
        read_full(&format!("{promo} bm c8N;")),
        Ok(format!("{promo} bm c8=N;"))
    );
    assert!(warnings(&format!("{promo} bm c8N;"))[0].contains("not standard SAN"));
    // A missing semicolon before a standard opcode.
    assert_eq!(read("bm e4 dm 26"), Ok(format!("{START} bm e4; dm 26;")));
    assert!(warnings(&format!("{START} bm e4 dm 26"))[0].contains("missing `;`"));
    // Operations out of order are accepted as they are.
    assert_eq!(
        read("id \"a\"; bm e4;"),
        Ok(format!("{START} id \"a\"; bm e4;"))
    );
}

#[test]
fn string_escapes_round_trip() {
    let line = format!("{START} c0 \"say \\\"hi\\\" at C:\\dir\";");
    let rec: EpdRecord = line.parse().unwrap();
    assert_eq!(rec.string("c0"), Some("say \"hi\" at C:\\dir"));
    assert_eq!(rec.to_string(), line);
}

#[test]
fn errors_recover_at_the_next_line() {
    let text = format!("{START} bm e5;\n{START} bm e4;\r\n\n{START} ce x\n{START} id \"ok\"");
    let lines: Vec<_> = epd::read_lines(&text).collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].has_errors() && lines[0].record.is_none());
    assert_eq!(lines[0].diagnostics[0].location.line, 1);
    assert!(lines[1].record.is_some());
    assert!(lines[2].is_blank());
    assert!(lines[3].has_errors());
    assert_eq!(lines[3].diagnostics[0].location.line, 4);
    assert!(lines[4].record.is_some());
}

#[test]
fn long_lines_are_accepted() {
    let comment = "y".repeat(250);
    let ops: String = (0..10).map(|n| format!(" c{n} \"{comment}\";")).collect();
    let line = format!("{START}{ops} pv{}", " Nf3 Nf6 Ng1 Ng8".repeat(300));
    assert!(line.len() > 4096);
    let rec: EpdRecord = line.parse().unwrap();
    assert_eq!(rec.moves("pv").len(), 1200);
}

#[test]
fn builder_api() {
    let pos = Chess::default();
    let e4 = gamerec::san::read_san(&pos, b"e4", &Default::default())
        .unwrap()
        .mv;
    let mut rec = EpdRecord::new(EpdPosition::new(pos.clone()))
        .with(Operation::moves(Opcode::Bm, &pos, &[e4]))
        .with(Operation::integer(Opcode::Ce, epd::ce_mate_in(2)))
        .with(Operation::string(Opcode::Id, "t.1"))
        .with(Operation::identifier(Opcode::Refcom, "respond"))
        .with(Operation::flag(Opcode::Resign));
    rec.set(Operation::integer(Opcode::Ce, 25));
    assert_eq!(
        rec.to_string(),
        format!("{START} bm e4; ce 25; id \"t.1\"; refcom respond; resign;")
    );
    assert!(rec.remove("resign"));
    assert!(!rec.has("resign"));
    assert_eq!(rec.moves("bm"), vec![e4]);
    assert_eq!(rec.integer("ce"), Some(25));
    assert_eq!(rec.get(&Opcode::Id).map(|o| o.operands.len()), Some(1));
    let again: EpdRecord = rec.to_string().parse().unwrap();
    assert_eq!(again, rec);
    rec.set_clocks();
    assert_eq!(rec.integer("fmvn"), Some(1));
    let seq = Operation::sequence(Opcode::Pv, &pos, &[e4]);
    assert!(matches!(&seq.operands[0], Operand::Move(m) if m.san == "e4"));
}

#[test]
fn registers_follow_6_5_and_6_32() {
    let recs: Vec<EpdRecord> = [
        "c0 \"game\"; c1 \"first\"; c2 \"second\"; v0 \"Sicilian\"; eco \"B90\";",
        "c1 \"new first\";",
        "c2;",
        "c0; v1 \"Najdorf\"; nic \"SI 1\";",
        "eco;",
    ]
    .iter()
    .map(|ops| format!("{START} {ops}").parse().unwrap())
    .collect();
    let states: Vec<Registers> = epd::scan(&recs).map(|(_, r)| r).collect();
    assert_eq!(states[0].comment(0), Some("game"));
    assert_eq!(states[0].comment(2), Some("second"));
    assert_eq!(states[0].eco(), Some("B90"));
    // c1 nulls c1..c9 then sets c1; c0 untouched.
    assert_eq!(states[1].comment(0), Some("game"));
    assert_eq!(states[1].comment(1), Some("new first"));
    assert_eq!(states[1].comment(2), None);
    // c2 without operand nulls c2..c9 only.
    assert_eq!(states[2].comment(1), Some("new first"));
    // c0 without operand nulls everything.
    assert_eq!(states[3].comments().count(), 0);
    assert_eq!(states[3].variation(0), Some("Sicilian"));
    assert_eq!(states[3].variation(1), Some("Najdorf"));
    assert_eq!(states[3].nic(), Some("SI 1"));
    assert_eq!(states[3].eco(), Some("B90"));
    assert_eq!(states[4].eco(), None);
    // Out-of-order operations are processed in ASCII order (c0 before c3).
    let rec: EpdRecord = format!("{START} c3 \"x\"; c0 \"y\";").parse().unwrap();
    let mut regs = Registers::new();
    regs.apply(&rec);
    assert_eq!(regs.comment(3), Some("x"));
    regs.reset();
    assert_eq!(regs, Registers::new());
}

fn data(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/epd")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The verbs' line handling: records rewritten, blank lines dropped, lines
/// with errors copied unchanged.
fn apply(
    text: &str,
    edit: impl Fn(&mut EpdRecord) -> String,
    fallback: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::new();
    for line in epd::read_lines(text) {
        match line.record {
            Some(mut r) => out.push_str(&edit(&mut r)),
            None if line.is_blank() => continue,
            None => out.push_str(&fallback(line.text).unwrap_or_else(|| line.text.to_string())),
        }
        out.push('\n');
    }
    out
}

#[test]
fn normalize_golden() {
    let got = apply(
        &data("normalize-input.epd"),
        |r| normalized_line(r),
        |_| None,
    );
    assert_eq!(got, data("normalize-expected.epd"));
    // Idempotent.
    assert_eq!(apply(&got, |r| normalized_line(r), |_| None), got);
}

#[test]
fn purge_golden() {
    let got = apply(
        &data("purge-input.epd"),
        |r| {
            epd::purge(r, &["c0", "id"]);
            r.to_string()
        },
        |line| epd::purge::purge_line(line, &["c0", "id"]),
    );
    assert_eq!(got, data("purge-expected.epd"));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn operation() -> impl Strategy<Value = Operation> {
        let text = "[ -~]{0,40}";
        prop_oneof![
            (-32768i64..=32766).prop_map(|v| Operation::integer(Opcode::Ce, v)),
            (0i64..=i64::MAX).prop_map(|v| Operation::integer(Opcode::Acn, v)),
            (1i64..=500).prop_map(|v| Operation::integer(Opcode::Dm, v)),
            text.prop_map(|s| Operation::string(Opcode::Id, s)),
            (0u8..10, text).prop_map(|(n, s)| Operation::string(Opcode::Comment(n), s)),
            (0u8..10).prop_map(|n| Operation::flag(Opcode::VariationName(n))),
            (
                "[A-Z][A-Za-z0-9_]{0,14}",
                proptest::collection::vec("[!-:<-~]{1,8}", 0..4)
            )
                .prop_filter("not a quoted token", |(_, ops)| {
                    ops.iter().all(|o| !o.starts_with('"'))
                })
                .prop_map(|(name, ops)| Operation::new(
                    name.as_str(),
                    ops.into_iter().map(Operand::Raw).collect()
                )),
            Just(Operation::flag(Opcode::Resign)),
            Just(Operation::identifier(Opcode::Refreq, "sign_on")),
        ]
    }

    proptest! {
        #[test]
        fn records_built_by_api_round_trip(ops in proptest::collection::vec(operation(), 0..8)) {
            let mut rec = EpdRecord::new(EpdPosition::new(Chess::default()));
            for op in ops {
                rec.set(op);
            }
            let line = rec.to_string();
            let back: EpdRecord = line.parse().map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
            prop_assert_eq!(&back, &rec);
            let once = normalized_line(&rec);
            let again: EpdRecord = once.parse().map_err(|e| TestCaseError::fail(format!("{e}: {once}")))?;
            prop_assert_eq!(normalized_line(&again), once);
        }

        #[test]
        fn reader_never_panics(line in "[ -~\t]{0,200}") {
            let text = format!("{START} {line}");
            let (record, diags) = read_line(&text, 7);
            for d in &diags {
                prop_assert_eq!(d.location.line, 7);
                prop_assert!(d.location.column as usize <= text.len() + 1);
            }
            if let Some(r) = record {
                let back: EpdRecord = r.to_string().parse().map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(back, r);
            }
            let _ = read_line(&line, 1);
        }
    }
}
