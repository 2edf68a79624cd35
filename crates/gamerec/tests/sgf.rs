//! SGF: syntax, escapes, charsets, SGFC and libsgfcplusplus test files, GNU Go
//! FF[1]/FF[3] files, Go and Othello rules, upgrade, and the whole corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gamerec::diag::Severity;
use gamerec::sgf::{
    self, Collection, Color, NodeId, ParseOptions, Parsed, Point, Prop, Value, WriteOptions, go,
    othello, replay,
};
use gamerec_testkit::corpus;

fn parse(src: &[u8]) -> Parsed {
    sgf::parse(src, &ParseOptions::default())
}

fn parse_file(rel: &str) -> Parsed {
    let bytes = std::fs::read(corpus(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    parse(&bytes)
}

fn errors(p: &Parsed) -> Vec<String> {
    p.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.location, d.message))
        .collect()
}

fn text(c: &Collection, n: NodeId, prop: Prop) -> String {
    c.text_of(n, prop)
        .unwrap_or_else(|| panic!("no text {prop:?}"))
        .to_string()
}

/// All comments of all games, in file order.
fn comments(c: &Collection) -> Vec<String> {
    let mut out = Vec::new();
    for &r in &c.roots {
        for n in c.preorder(r) {
            for p in c.properties(n).filter(|p| p.prop() == Prop::C) {
                out.push(c.value_text(p.value()));
            }
        }
    }
    out
}

fn assert_round_trip(c: &Collection, what: &str) {
    let out = sgf::write(c, &WriteOptions::default());
    let again = parse(&out);
    // Malformed values are kept verbatim, so their errors come back; syntax
    // errors must not.
    let syntax = [
        "illegal char",
        "empty variation",
        "missing",
        "without",
        "unexpected",
        "variation starts",
        "node after",
    ];
    assert!(
        !errors(&again)
            .iter()
            .any(|e| syntax.iter().any(|s| e.contains(s))),
        "{what}: re-reading the output gave errors {:?}\n{}",
        errors(&again),
        String::from_utf8_lossy(&out)
    );
    assert!(
        again.collection == *c,
        "{what}: parse(write(x)) != x\n{}",
        String::from_utf8_lossy(&out)
    );
    let out2 = sgf::write(&again.collection, &WriteOptions::default());
    assert_eq!(out, out2, "{what}: writing is not idempotent");
}

// ---------------------------------------------------------------- syntax

#[test]
fn text_before_first_tree_is_ignored_and_whitespace_anywhere() {
    let p = parse(b"Some (prose) here [aa]\n ( \n ; FF [4] \n GM[1]\t;\nB\n[aa]\r\n;W[bb] )");
    assert!(errors(&p).is_empty(), "{:?}", errors(&p));
    let c = &p.collection;
    assert_eq!(c.roots.len(), 1);
    let line = c.main_line(c.roots[0]);
    assert_eq!(line.len(), 3);
    assert_eq!(
        c.get(line[1], Prop::B).unwrap().value(),
        Value::Point(Point::new(0, 0))
    );
}

#[test]
fn collection_of_several_games_and_variations() {
    let src = b"(;FF[4]GM[1]SZ[19];B[aa];W[bb](;B[cc]N[Var A];W[dd];B[ad];W[bd])\n(;B[hh]N[Var B];W[hg])\n(;B[gg]N[Var C];W[gh];B[hh](;W[hg]N[Var A];B[kk])(;W[kl]N[Var B])))(;GM[1];B[aa])";
    let p = parse(src);
    assert!(errors(&p).is_empty());
    let c = &p.collection;
    assert_eq!(c.roots.len(), 2);
    let w_bb = c.main_line(c.roots[0])[2];
    let names: Vec<String> = c.children(w_bb).map(|n| text(c, n, Prop::N)).collect();
    assert_eq!(names, ["Var A", "Var B", "Var C"]);
    assert_round_trip(c, "variations");
}

#[test]
fn escapes_in_text_and_simple_text() {
    let p = parse(b"(;C[a \\] b \\\\ c \\: d \\x]N[x\\]y])");
    let c = &p.collection;
    let r = c.roots[0];
    assert_eq!(text(c, r, Prop::C), "a ] b \\ c : d x");
    assert_eq!(text(c, r, Prop::N), "x]y");
    assert_round_trip(c, "escapes");
}

#[test]
fn soft_and_hard_line_breaks_and_white_space() {
    // FF[4] 3.2.1 example.
    let src = "(;FF[4]C[Meijin NR: yeah, k4 is won\\\nderful\nsweat NR: thank you! :\\)\ndada NR: yup.\tI like it :)\\\n\njansteen 4d: Can anyone\\\n explain [me\\] k4?]N[a\r\nb\\\r\nc])";
    let p = parse(src.as_bytes());
    let c = &p.collection;
    let r = c.roots[0];
    assert_eq!(
        text(c, r, Prop::C),
        "Meijin NR: yeah, k4 is wonderful\nsweat NR: thank you! :)\ndada NR: yup. I like it :)\njansteen 4d: Can anyone explain [me] k4?"
    );
    // SimpleText: hard breaks become spaces, soft breaks vanish (CRLF as one).
    assert_eq!(text(c, r, Prop::N), "a bc");
    assert_round_trip(c, "line breaks");
}

#[test]
fn compose_values_escape_colons_and_keep_compressed_lists() {
    let src = b"(;FF[4]GM[1]SZ[19]AP[My\\:App:1.0]LB[aa:x\\:y:z][bb:two]AR[aa:cc]LN[bb:dd]MA[aa:cc][dd]FG[257:Fig\\: 1];B[dd])";
    let p = parse(src);
    assert!(errors(&p).is_empty(), "{:?}", errors(&p));
    let c = &p.collection;
    let r = c.roots[0];
    let ap = c.get(r, Prop::AP).unwrap().value();
    assert_eq!(c.value_text(ap), "My:App:1.0");
    let lb = c.get(r, Prop::LB).unwrap();
    assert_eq!(c.value_text(lb.values()[0]), "aa:x:y:z");
    assert_eq!(
        c.get(r, Prop::AR).unwrap().value(),
        Value::PointPair(Point::new(0, 0), Point::new(2, 2))
    );
    assert_eq!(
        c.get(r, Prop::MA).unwrap().values()[0],
        Value::Rect(Point::new(0, 0), Point::new(2, 2))
    );
    assert!(matches!(
        c.get(r, Prop::FG).unwrap().value(),
        Value::Figure(257, _)
    ));
    let out = String::from_utf8(sgf::write(c, &WriteOptions::default())).unwrap();
    assert!(out.contains("MA[aa:cc][dd]"), "{out}");
    assert!(out.contains("AP[My\\:App:1.0]"), "{out}");
    assert!(out.contains("LB[aa:x\\:y\\:z][bb:two]"), "{out}");
    let expanded = String::from_utf8(sgf::write(
        c,
        &WriteOptions {
            expand_point_lists: true,
            ..WriteOptions::default()
        },
    ))
    .unwrap();
    assert!(
        expanded.contains("MA[aa][ba][ca][ab][bb][cb][ac][bc][cc][dd]"),
        "{expanded}"
    );
    assert_round_trip(c, "compose");
}

#[test]
fn sizes_stay_as_written() {
    let p = parse(b"(;FF[4]SZ[19])(;FF[4]SZ[19:13])");
    let out = String::from_utf8(sgf::write(&p.collection, &WriteOptions::default())).unwrap();
    assert!(out.contains("SZ[19]") && out.contains("SZ[19:13]"), "{out}");
    let info = p.collection.game_info(p.collection.roots[1]);
    assert_eq!((info.width, info.height), (19, 13));
}

#[test]
fn old_long_property_names_and_missing_ff() {
    let p = parse(b"(;GaMe[1]CoPyright[me]AddBlack[aa][bb];Black[cc];thisisaWhitemove[kk]bbrWyryrerwLerreoi[10.3])");
    assert!(errors(&p).is_empty(), "{:?}", errors(&p));
    let c = &p.collection;
    let r = c.roots[0];
    assert_eq!(c.game_info(r).ff, 1, "missing FF means FF[1]");
    assert_eq!(text(c, r, Prop::CP), "me");
    assert_eq!(c.get(r, Prop::AB).unwrap().values().len(), 2);
    let line = c.main_line(r);
    assert!(c.get(line[1], Prop::B).is_some());
    assert_eq!(
        c.get(line[2], Prop::W).unwrap().value(),
        Value::Point(Point::new(10, 10))
    );
    assert_eq!(c.get(line[2], Prop::WL).unwrap().value(), Value::Real(10.3));
}

#[test]
fn passes_tt_and_empty() {
    let p = parse(b"(;FF[3]SZ[19];B[tt];W[])(;FF[4]SZ[25];B[tt];W[])");
    let c = &p.collection;
    let a = c.main_line(c.roots[0]);
    assert_eq!(c.get(a[1], Prop::B).unwrap().value(), Value::Pass);
    assert_eq!(c.get(a[2], Prop::W).unwrap().value(), Value::Pass);
    let b = c.main_line(c.roots[1]);
    assert_eq!(
        c.get(b[1], Prop::B).unwrap().value(),
        Value::Point(Point::new(19, 19)),
        "tt is a point on 25x25"
    );
    let out = String::from_utf8(sgf::write(c, &WriteOptions::default())).unwrap();
    assert!(
        out.contains(";B[tt];W[tt]"),
        "FF[3] passes written tt: {out}"
    );
    assert!(out.contains(";B[tt];W[]"), "{out}");
    assert_round_trip(c, "passes");
}

#[test]
fn typed_values_of_every_type() {
    let src = b"(;FF[4]GM[1]SZ[19]CA[UTF-8]ST[2]KM[6.5]HA[2]AB[dd][pp]PL[W]DT[2024-01-02]RE[W+R]TM[3600]OT[3x30 byo-yomi]
        ;W[qq]WL[299.5]OW[3]TE[2]V[-3.5]GB[1]HO[2]DD[]VW[aa:ss]PM[2]MN[7]
        ;B[pq]IT[]DO[]KO[]BM[1]TB[aa][bb]TW[]SQ[cc]TR[dd]CR[ee]SL[ff]UC[1]DM[2])";
    let p = parse(src);
    let c = &p.collection;
    let line = c.main_line(c.roots[0]);
    let v = |n: usize, prop: Prop| c.get(line[n], prop).unwrap().value();
    assert_eq!(v(0, Prop::KM), Value::Real(6.5));
    assert_eq!(v(0, Prop::HA), Value::Number(2));
    assert_eq!(v(0, Prop::PL), Value::Color(Color::White));
    assert_eq!(v(1, Prop::TE), Value::Double(2));
    assert_eq!(v(1, Prop::V), Value::Real(-3.5));
    assert_eq!(v(1, Prop::DD), Value::None);
    assert_eq!(v(2, Prop::IT), Value::None);
    assert_eq!(v(2, Prop::BM), Value::Double(1));
    assert!(matches!(v(0, Prop::OT), Value::Text(_)));
    // The pair BM/IT/DO in one node is against FF[4] restrictions, but no value is malformed.
    assert!(
        p.diagnostics
            .iter()
            .all(|d| !d.message.contains("expected")),
        "{:?}",
        p.diagnostics
    );
    assert_round_trip(c, "typed");
}

#[test]
fn unknown_and_malformed_values_are_kept_verbatim() {
    let src = b"(;FF[4]GM[1]XY[some \\] thing][two]KM[five and a half];B[z9]C[ok])";
    let p = parse(src);
    let c = &p.collection;
    let r = c.roots[0];
    let xy = c.get_named(r, "XY").unwrap();
    assert_eq!(c.value_text(xy.values()[0]), "some \\] thing");
    assert_eq!(xy.values().len(), 2);
    assert!(matches!(c.get(r, Prop::KM).unwrap().value(), Value::Raw(_)));
    let e = errors(&p);
    assert!(e.iter().any(|m| m.contains("B[z9]")), "{e:?}");
    let out = String::from_utf8(sgf::write(c, &WriteOptions::default())).unwrap();
    assert!(
        out.contains("XY[some \\] thing][two]KM[five and a half]") && out.contains("B[z9]"),
        "{out}"
    );
    assert_round_trip(c, "verbatim");
}

#[test]
fn recovery_reports_line_and_column_and_reads_the_rest() {
    // Stray ')', junk between trees, then an unclosed value at end of file.
    let src = b"(;GM[1];B[aa])\n)\njunk\n(;GM[1];B[bb]\n;W[cc]C[never closed";
    let p = parse(src);
    let e: Vec<_> = p
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.severity,
                d.location.line,
                d.location.column,
                d.message.clone(),
            )
        })
        .collect();
    assert!(
        e.iter()
            .any(|d| d.0 == Severity::Error && d.1 == 2 && d.2 == 1 && d.3.contains("')'")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|d| d.1 == 5 && d.2 == 8 && d.3.contains("missing ']'")),
        "{e:?}"
    );
    let c = &p.collection;
    assert_eq!(c.roots.len(), 2);
    let line = c.main_line(c.roots[1]);
    assert_eq!(line.len(), 3);
    assert_eq!(text(c, line[2], Prop::C), "never closed");
    assert_round_trip(c, "recovered");
}

#[test]
fn missing_semicolon_empty_variation_and_values_without_id() {
    let p = parse(b"(;GM[1]()(B[aa])[x];W[bb])");
    let e = errors(&p);
    assert!(e.iter().any(|m| m.contains("empty variation")), "{e:?}");
    assert!(e.iter().any(|m| m.contains("missing ';'")), "{e:?}");
    assert!(e.iter().any(|m| m.contains("without a property")), "{e:?}");
    assert!(
        e.iter().any(|m| m.contains("node after a variation")),
        "{e:?}"
    );
    let c = &p.collection;
    assert_eq!(c.children(c.roots[0]).count(), 2);
}

#[test]
fn deep_and_wide_trees_need_no_recursion() {
    let depth = 100_000;
    let mut s = String::from("(;GM[1]SZ[19]");
    for i in 0..depth {
        s.push_str(if i % 2 == 0 { "(;B[aa]" } else { "(;W[ss]" });
    }
    s.push_str(&")".repeat(depth + 1));
    let p = parse(s.as_bytes());
    assert!(errors(&p).is_empty());
    assert_eq!(p.collection.node_count(), depth + 1);
    assert_round_trip(&p.collection, "deep");
    let json = sgf::json::to_json(&p.collection);
    assert!(json.len() > depth * 10);
    let wide = 10_000;
    let mut s = String::from("(;GM[1]");
    for _ in 0..wide {
        s.push_str("(;B[dd];W[pp])");
    }
    s.push(')');
    let p = parse(s.as_bytes());
    assert_eq!(p.collection.children(p.collection.roots[0]).count(), wide);
    assert_round_trip(&p.collection, "wide");
    let errs: usize = replay::check_game(&p.collection, p.collection.roots[0], 1).len();
    assert_eq!(errs, 0);
}

// ---------------------------------------------------------------- charsets

#[test]
fn every_charset_file_of_libsgfcplusplus() {
    let cases: &[(&str, &str)] = &[
        ("encoding-chinese-gb18030.sgf", "围棋是一种古老的游戏"),
        ("encoding-chinese-gbk.sgf", "围棋是一种古老的游戏"),
        ("encoding-cyrillic-windows.sgf", "Го - древн"),
        ("encoding-japanese-iso2022jp.sgf", "Goは古代のゲームで"),
        ("encoding-japanese-macos.sgf", "Goは古代のゲームで"),
        ("encoding-japanese-shiftjis.sgf", "Goは古代のゲームで"),
        ("encoding-korean-macos.sgf", "바둑은 중국에서 잊"),
        (
            "encoding-simplifiedchinese-gb2312.sgf",
            "围棋是一种古老的游戏",
        ),
        (
            "encoding-simplifiedchinese-macos.sgf",
            "围棋是一种古老的游戏",
        ),
        (
            "encoding-traditionalchinese-big5.sgf",
            "圍棋是一種古老的遊戲",
        ),
        (
            "encoding-traditionalchinese-macos.sgf",
            "圍棋是一種古老的遊戲",
        ),
        ("encoding-utf16-nobom.sgf", "गो एक प्रा"),
        ("encoding-utf16-withbom.sgf", "गो एक प्रा"),
        ("encoding-utf8-nobom.sgf", "गो एक प्रा"),
        ("encoding-utf8-withbom.sgf", "गो एक प्रा"),
        ("encoding-western-isolatin1.sgf", "Ää Àà Ââ Å"),
        ("encoding-western-isolatin9.sgf", "Šš Žž"),
        ("encoding-western-macosroman.sgf", "ƒ ‰ ™"),
        ("encoding-western-windowslatin1.sgf", "ƒ ‰ ™"),
    ];
    for (file, expected) in cases {
        let p = parse_file(&format!("sgf/libsgfcplusplus-tests/{file}"));
        assert!(errors(&p).is_empty(), "{file}: {:?}", errors(&p));
        assert!(p.diagnostics.is_empty(), "{file}: {:?}", p.diagnostics);
        let cs = comments(&p.collection);
        assert!(
            cs.last().unwrap().starts_with(expected),
            "{file}: {:?}",
            cs.last()
        );
        assert!(
            cs[0].starts_with("BBEdit calls the encoding"),
            "{file}: {:?}",
            cs[0]
        );
        // Written back as UTF-8 with CA[UTF-8]; texts unchanged.
        let out = sgf::write(&p.collection, &WriteOptions::default());
        assert!(
            String::from_utf8(out.clone())
                .unwrap()
                .contains("CA[UTF-8]")
        );
        assert_round_trip(&p.collection, file);
    }
}

#[test]
fn charset_override_and_default() {
    // No CA: valid UTF-8 is read as UTF-8, anything else as ISO-8859-1.
    let p = parse("(;C[h\u{e9}])".as_bytes());
    assert_eq!(comments(&p.collection), ["hé"]);
    let p = parse(b"(;C[h\xe9])");
    assert_eq!(comments(&p.collection), ["hé"]);
    // The option overrides CA.
    let src = b"(;CA[UTF-8]C[\xce\xa7])";
    let p = sgf::parse(
        src,
        &ParseOptions {
            charset: sgf::charset::encoding_for_label("ISO-8859-7"),
        },
    );
    assert_eq!(comments(&p.collection), ["Ξ§"]);
    assert_eq!(
        sgf::charset::encoding_for_label("ISO8859_1").map(|e| e.name()),
        Some("windows-1252")
    );
    assert_eq!(
        sgf::charset::encoding_for_label("EUC-CN").map(|e| e.name()),
        Some("GBK")
    );
}

#[test]
fn escaping_files_of_sgfc_and_libsgfcplusplus() {
    // libsgfcplusplus: the values its test output shows.
    let p = parse_file("sgf/libsgfcplusplus-tests/escaping.sgf");
    let c = &p.collection;
    let r = c.roots[0];
    let ap = c.get(r, Prop::AP).unwrap().value();
    let Value::Application(a, b) = ap else {
        panic!("{ap:?}")
    };
    assert_eq!(
        c.str(a),
        "First : SimpleText : value : in : composed : value : with : [neces\\sary] : escape : characters"
    );
    assert_eq!(
        c.str(b),
        "Second : SimpleText : value : in : composed : value : with : unneccessary : escape : characters"
    );
    let cs = comments(c);
    assert_eq!(
        cs[0],
        "Text : value : with : unneccessary : escape : characters"
    );
    assert_eq!(
        cs[1],
        "Text : value : with : [neces\\sary] : escape : characters"
    );
    // GM[19]: moves and points are kept verbatim.
    let line = c.main_line(r);
    assert!(matches!(
        c.get(line[5], Prop::B).unwrap().value(),
        Value::Raw(_)
    ));
    assert_round_trip(c, "libsgfc escaping");
    let p = parse_file("sgf/sgfc-test-files/escaping.sgf");
    assert!(errors(&p).is_empty(), "{:?}", errors(&p));
    let cs = comments(&p.collection);
    assert_eq!(
        cs[0],
        "Text : value 中: with 中 unneccessary : escape : characters中"
    );
    assert_round_trip(&p.collection, "sgfc escaping");
}

// ---------------------------------------------------------------- SGFC

#[test]
fn sgfc_test_sgf_reports_errors_where_sgfc_does() {
    let p = parse_file("sgf/sgfc-test-files/test.sgf");
    // SGFC's critical syntax errors (test-output.txt) are on these lines:
    // 8 illegal chars, 12 empty variation, 13 too many values, 20 property
    // without value, 21 illegal variation start, 36 missing ';', 54 values
    // without id, 66 node outside variation, 67 missing ';', 76 end of file.
    let err_lines: Vec<u64> = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.location.line)
        .collect();
    for line in [
        8, 12, 13, 14, 15, 20, 21, 23, 25, 28, 36, 37, 54, 66, 67, 76,
    ] {
        assert!(
            err_lines.contains(&line),
            "no error on line {line}: {:?}",
            errors(&p)
        );
    }
    // Warnings SGFC gives: unknown properties (31, 35), lowercase id (16), obsolete L/M (40).
    let warn_lines: Vec<u64> = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.location.line)
        .collect();
    for line in [16, 31, 35, 40] {
        assert!(
            warn_lines.contains(&line),
            "no warning on line {line}: {:?}",
            p.diagnostics
        );
    }
    // And illegal moves found by replay: SGFC's warning 58 (line 58, occupied point).
    let c = &p.collection;
    let rule_lines: Vec<u64> = c
        .roots
        .iter()
        .enumerate()
        .flat_map(|(g, &r)| replay::check_game(c, r, g + 1))
        .map(|e| p.lines.line_col(e.offset as u64).line)
        .collect();
    assert!(rule_lines.contains(&58), "{rule_lines:?}");
    assert_round_trip(c, "test.sgf");
}

#[test]
fn sgfc_strict_reorder_and_mixed_encoding() {
    let p = parse_file("sgf/sgfc-test-files/strict.sgf");
    assert!(
        errors(&p).is_empty(),
        "SGFC reports no errors without -r: {:?}",
        errors(&p)
    );
    assert_eq!(p.collection.roots.len(), 11);
    let p = parse_file("sgf/sgfc-test-files/reorder.sgf");
    assert_eq!(p.collection.roots.len(), 2);
    assert_round_trip(&p.collection, "reorder");
    // Per-game charsets (SGFC -E2): UTF-16LE text, ISO-8859-15, none, GB18030, Shift_JIS.
    let p = parse_file("sgf/sgfc-test-files/mixed-encoding.sgf");
    let cs = comments(&p.collection);
    assert_eq!(cs.len(), 5, "{cs:?}");
    assert!(
        cs[0].starts_with("hallö! DÜ! ßüper dich zu s"),
        "{:?}",
        cs[0]
    );
    assert_eq!(cs[1], "hallö! DÜ! ßüper dich zu s€h€n-");
    // GB18030 characters whose trail byte is `\` or `]` were escaped byte
    // by byte (`DF 5C 5C`, `93 5C 5D`): read as SGFC and sgfmill read them
    // (it came out as `指揬]權`, then written `指揬\]權`).
    assert_eq!(
        cs[3],
        "Cho Chikun (Cho Chihun, Japanese: 趙 治勲, Korean: 조치훈)\n交通運輸\n指揮權"
    );
    assert_eq!(cs[4], "Yen: \\");
    assert_round_trip(&p.collection, "mixed-encoding");
}

/// Issue 18: the charset's name is read before decoding, so `CA[UTF-16LE]`
/// (ASCII bytes) is not itself decoded as UTF-16 (it came out as `呕ⵆ㘱䕌`).
#[test]
fn charset_names_are_read_before_decoding() {
    let p = parse_file("sgf/sgfc-test-files/mixed-encoding.sgf");
    let c = &p.collection;
    let names: Vec<String> = c
        .roots
        .iter()
        .filter_map(|&r| c.get(r, Prop::CA).map(|p| c.value_text(p.value())))
        .collect();
    assert_eq!(names, ["UTF-16LE", "ISO-8859-15", "GB18030", "SHIFT_JIS"]);
    let json = sgf::json::to_json(c);
    assert!(
        json.contains(r#"{"id":"CA","values":["UTF-16LE"]}"#),
        "{}",
        &json[..300]
    );
    assert!(json.contains("ßüper dich zu s€h€n-"), "{}", &json[..300]);
}

// ---------------------------------------------------------------- GNU Go FF[1] / FF[3]

#[test]
fn gnugo_ff1_and_ff3_files() {
    let mut seen = [0usize; 5];
    for path in sgf_files(&corpus("sgf/gnugo")) {
        let bytes = std::fs::read(&path).unwrap();
        let p = parse(&bytes);
        for &r in &p.collection.roots {
            let ff = p.collection.game_info(r).ff as usize;
            seen[ff.min(4)] += 1;
        }
    }
    assert!(
        seen[1] >= 9 && seen[3] >= 500 && seen[4] >= 1000,
        "{seen:?}"
    );
    // An FF[3] file with tt passes and the whole tree.
    let p = parse_file("sgf/gnugo/regression/games/nngs/gnugo-3.1.18-Rufus-200201051408.sgf");
    let c = &p.collection;
    assert!(c.game_info(c.roots[0]).ff >= 3);
}

// ---------------------------------------------------------------- rules

fn go_board(rows: &[&str]) -> go::Board {
    let mut b = go::Board::new(rows[0].len() as u32, rows.len() as u32);
    let mut changes = Vec::new();
    for (y, r) in rows.iter().enumerate() {
        for (x, ch) in r.bytes().enumerate() {
            let c = match ch {
                b'X' => Some(Color::Black),
                b'O' => Some(Color::White),
                _ => continue,
            };
            changes.push((Point::new(x as u8, y as u8), c));
        }
    }
    b.setup(&changes).unwrap();
    b
}

#[test]
fn go_captures_suicide_and_ko() {
    // Capture of a two-stone chain.
    let mut b = go_board(&[".XX..", "XOOX.", ".XX..", ".....", "....."]);
    assert_eq!(b.get(Point::new(1, 1)), Some(Color::White));
    let out = b.play(Color::Black, Some(Point::new(0, 0)));
    assert_eq!(out.captured, 0);
    // The white chain at b2-c2 has no liberties left after black plays... it already had none? check:
    let mut b = go_board(&[".XX..", "XOO..", ".XX..", ".....", "....."]);
    let out = b.play(Color::Black, Some(Point::new(3, 1)));
    assert_eq!((out.captured, out.illegal), (2, None));
    assert_eq!(b.get(Point::new(1, 1)), None);
    assert_eq!(b.captures(Color::Black), 2);
    // Suicide: illegal, executed anyway (stone removed, prisoner for White).
    let mut b = go_board(&[".O...", "O....", ".....", ".....", "....."]);
    assert_eq!(
        b.check(Color::Black, Point::new(0, 0)),
        Err(go::Illegal::Suicide)
    );
    let out = b.play(Color::Black, Some(Point::new(0, 0)));
    assert_eq!(out.illegal, Some(go::Illegal::Suicide));
    assert_eq!(b.get(Point::new(0, 0)), None);
    assert_eq!(b.captures(Color::White), 1);
    // Not suicide when it captures.
    let mut b = go_board(&["XO...", "O....", ".....", ".....", "....."]);
    let _ = b.setup(&[(Point::new(0, 0), None)]);
    let mut b2 = go_board(&[".OX..", "OX...", "X....", ".....", "....."]);
    let out = b2.play(Color::White, Some(Point::new(0, 0)));
    assert_eq!(
        out.illegal,
        Some(go::Illegal::Suicide),
        "corner with no capture"
    );
    let _ = &mut b;
    // Simple ko: capture, immediate recapture illegal, legal after a move elsewhere.
    let mut b = go_board(&[".XO..", "XO.O.", ".XO..", ".....", "....."]);
    let out = b.play(Color::White, Some(Point::new(0, 1)));
    assert_eq!(out.captured, 0);
    let mut b = go_board(&["..XO.", ".X.XO", "..XO.", ".....", "....."]);
    // White plays c2 (2,1) capturing the black stone at d2 (3,1).
    let out = b.play(Color::White, Some(Point::new(2, 1)));
    assert_eq!(out.captured, 1, "{out:?}");
    assert_eq!(b.ko(), Some((Point::new(3, 1), Color::Black)));
    assert_eq!(
        b.check(Color::Black, Point::new(3, 1)),
        Err(go::Illegal::Ko)
    );
    let out = b.play(Color::Black, Some(Point::new(4, 4)));
    assert_eq!(out.illegal, None);
    b.play(Color::White, Some(Point::new(0, 4)));
    assert_eq!(b.check(Color::Black, Point::new(3, 1)), Ok(()));
    // Occupied point.
    assert_eq!(
        b.check(Color::Black, Point::new(2, 0)),
        Err(go::Illegal::Occupied)
    );
    // Off the board (52x52 is the maximum).
    let b = go::Board::new(52, 52);
    assert_eq!(b.check(Color::Black, Point::new(51, 51)), Ok(()));
    assert_eq!(
        go::Board::new(9, 9).check(Color::Black, Point::new(9, 0)),
        Err(go::Illegal::OffBoard)
    );
}

#[test]
fn check_reports_illegal_moves_with_node_paths() {
    let src = b"(;GM[1]SZ[9];B[aa];W[bb](;B[aa])(;B[cc];W[cc]))";
    let p = parse(src);
    let c = &p.collection;
    let errs = replay::check_game(c, c.roots[0], 1);
    let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "game 1, main line move 3",
            "game 1, main line move 3, variation 2, move 4"
        ],
        "{errs:?}"
    );
    assert!(errs[0].message.contains("occupied"));
    // Paths can be read back.
    for e in &errs {
        assert_eq!(replay::find_node(c, &e.path), Some((0, e.node)));
    }
    assert_eq!(
        replay::find_node(c, "3,2"),
        replay::find_node(c, "game 1, main line move 3, variation 2")
    );
    // KO property: executing an illegal move on purpose is not reported.
    let p = parse(b"(;GM[1]SZ[9];B[aa];W[aa]KO[])");
    assert!(replay::check_game(&p.collection, p.collection.roots[0], 1).is_empty());
}

#[test]
fn play_to_node_setup_handicap_and_final_position() {
    let p = parse(b"(;GM[1]SZ[9]HA[2]AB[cc][gg];W[ee];B[dd]AE[cc];W[bb]AW[aa:ab])");
    let c = &p.collection;
    let last = *c.main_line(c.roots[0]).last().unwrap();
    let (state, errs) = replay::play_to(c, last).unwrap();
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(state.position.get(Point::new(2, 2)), None, "AE removed it");
    assert_eq!(
        state.position.get(Point::new(0, 1)),
        Some(Color::White),
        "rectangle setup"
    );
    assert_eq!(state.moves, 3);
    assert_eq!(state.to_play, Color::Black);
    // HA never places stones (FF[4]: "HA itself doesn't add any stones"):
    // free placement in later nodes is no error.
    let p = parse(b"(;GM[1]SZ[19]HA[4];AB[dd][pp][dp][pd];W[qq])");
    let c = &p.collection;
    let (state, errs) = replay::play_to(c, *c.main_line(c.roots[0]).last().unwrap()).unwrap();
    assert!(errs.is_empty(), "{errs:?}");
    let replay::Position::Go(b) = &state.position else {
        panic!()
    };
    assert_eq!(b.count(Color::Black), 4);
    let p = parse(b"(;GM[1]SZ[19]HA[2];B[pd];B[dp];W[pp])");
    let c = &p.collection;
    let (state, errs) = replay::play_to(c, *c.main_line(c.roots[0]).last().unwrap()).unwrap();
    assert!(errs.is_empty(), "{errs:?}");
    let replay::Position::Go(b) = &state.position else {
        panic!()
    };
    assert_eq!(b.count(Color::Black), 2, "no stone but the two played");
    assert_eq!(b.get(Point::new(15, 15)), Some(Color::White));
    // 52x52 boards with upper-case coordinates.
    let p = parse(b"(;FF[4]GM[1]SZ[52];B[ZZ];W[Aa])");
    let c = &p.collection;
    let (state, errs) = replay::play_to(c, *c.main_line(c.roots[0]).last().unwrap()).unwrap();
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(state.position.get(Point::new(51, 51)), Some(Color::Black));
}

#[test]
fn othello_flips_passes_and_legality() {
    let mut b = othello::Board::standard(8, 8);
    assert_eq!(b.count(Color::Black), 2);
    // Black d3 (3,2) flips d4 (3,3).
    assert_eq!(b.play(Color::Black, Some(Point::new(3, 2))), Ok(1));
    assert_eq!(b.get(Point::new(3, 3)), Some(Color::Black));
    assert_eq!(
        b.play(Color::White, Some(Point::new(0, 0))),
        Err(othello::Illegal::NoFlip)
    );
    assert_eq!(
        b.play(Color::White, None),
        Err(othello::Illegal::PassWithMoves)
    );
    // A pass is legal without moves.
    let mut b = othello::Board::empty(8, 8);
    b.set(Point::new(0, 0), Some(Color::Black));
    assert_eq!(b.play(Color::White, None), Ok(0));
    // Through SGF: GM[2] with the standard start.
    let p = parse(b"(;FF[4]GM[2]SZ[8];B[dc];W[cc];B[bb])");
    let c = &p.collection;
    let errs = replay::check_game(c, c.roots[0], 1);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].message.contains("flips no disc") && errs[0].path.ends_with("move 3"),
        "{errs:?}"
    );
}

// ---------------------------------------------------------------- upgrade

#[test]
fn upgrade_ff3_to_ff4() {
    let src = b"(;FF[3]GM[1]SZ[19:19]DT[12th and 13th march 94]RE[black wins by 5 1/2 points]TM[2h]KI[11]VW[aa][ee]
        ;B[dd]TE[1]BM[1];W[tt]L[aa][bb]M[dd][ee];AB[cc]W[qq];B[pp]C[x])";
    let p = parse(src);
    let (c, notes) = sgf::upgrade::upgrade(&p.collection);
    assert!(notes.is_empty(), "{notes:?}");
    let out = String::from_utf8(sgf::write(&c, &WriteOptions::default())).unwrap();
    for want in [
        "FF[4]",
        "SZ[19]",
        "DT[1994-03-12,13]",
        "RE[B+5.5]",
        "TM[7200]",
        "KM[5.5]",
        "VW[aa:ee]",
        "IT[]",
        "W[]",
        "LB[aa:A][bb:B]",
        "MA[ee]",
        "TR[dd]",
        ";AB[cc]\n;W[qq]",
    ] {
        assert!(
            out.replace('\n', "").contains(&want.replace('\n', "")),
            "missing {want}: {out}"
        );
    }
    assert_round_trip(&c, "upgraded");
    let p = parse(b"(;FF[1]RE[john wins]DT[a sunny afternoon])");
    let (_, notes) = sgf::upgrade::upgrade(&p.collection);
    assert_eq!(notes.len(), 2, "{notes:?}");
}

// ---------------------------------------------------------------- the corpus

fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    gamerec_testkit::files_with_extension(dir, "sgf")
}

/// Files of the corpus that break a rule, with the rule (a substring of the
/// first error reported for them).
const KNOWN_BAD: &[(&str, &str)] = &[
    (
        "gnugo/regression/games/buzco1.sgf",
        "black and white move in one node",
    ),
    ("gnugo/regression/games/owl42.sgf", "missing ')'"),
    (
        "gnugo/regression/games/nngs/gnugo-3.1.18-Rufus-200201051408.sgf",
        "appears twice",
    ),
    (
        "gnugo/regression/games/trevor/trevor_31.sgf",
        "may have only one value",
    ),
    (
        "gnugo/regression/games/semeai/semeai7.sgf",
        "PL[1]: expected B or W",
    ),
    (
        "gnugo/regression/games/semeai/semeai8.sgf",
        "PL[2]: expected B or W",
    ),
    (
        "gnugo/regression/games/life_and_death/ld9_variations.sgf",
        "PL[1]: expected B or W",
    ),
    (
        "gnugo/regression/games/arend/constructed3.sgf",
        "PL[1]: expected B or W",
    ),
    (
        "gnugo/regression/games/arend/constructed5.sgf",
        "PL[2]: expected B or W",
    ),
    (
        "gnugo/regression/games/arend/constructed6.sgf",
        "PL[2]: expected B or W",
    ),
    (
        "pro/aeb-selection/Oza/Title/Oza-1988-1.sgf",
        "retakes the ko",
    ),
    (
        "pro/aeb-selection/Meijin/Title/Mei-1980-4.sgf",
        "retakes the ko",
    ),
    (
        "pro/aeb-selection/Tengen/Title/Ten-1997-3.sgf",
        "retakes the ko",
    ),
];

/// Parse, round trip and replay; returns the errors (syntax and rules).
fn check_bytes(bytes: &[u8], what: &str) -> Vec<String> {
    let p = parse(bytes);
    assert_round_trip(&p.collection, what);
    let mut errs = errors(&p);
    let c = &p.collection;
    // Broken rules only: the replay's warnings (unknown `RU` values, game
    // information below a node) are notes, not defects of the record.
    for (g, &r) in c.roots.iter().enumerate() {
        for e in replay::check_game(c, r, g + 1) {
            if !e.warning {
                errs.push(format!("{}: {}", e.path, e.message));
            }
        }
    }
    errs
}

#[test]
fn every_corpus_file_parses_round_trips_and_replays() {
    let root = corpus("sgf");
    let mut bad = BTreeMap::new();
    let mut files = 0;
    for dir in ["gnugo", "libsgfcplusplus-tests", "pro/aeb-selection"] {
        for path in sgf_files(&root.join(dir)) {
            let rel = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(&path).unwrap();
            let errs = check_bytes(&bytes, &rel);
            files += 1;
            if !errs.is_empty() {
                bad.insert(rel, errs);
            }
        }
    }
    assert!(files > 4600, "{files}");
    for (file, rule) in KNOWN_BAD {
        let errs = bad
            .remove(*file)
            .unwrap_or_else(|| panic!("{file} no longer breaks: {rule}"));
        assert!(
            errs.iter().any(|e| e.contains(rule)),
            "{file}: expected {rule}, got {errs:?}"
        );
    }
    assert!(bad.is_empty(), "unexpected errors: {bad:#?}");
    // SGFC's own test files: each parses and round-trips (their errors are tested above).
    for path in sgf_files(&root.join("sgfc-test-files")) {
        let bytes = std::fs::read(&path).unwrap();
        check_bytes(&bytes, &path.to_string_lossy());
    }
}

fn tarball_games(step: usize) -> (usize, BTreeMap<String, Vec<String>>) {
    let file = std::fs::File::open(corpus("sgf/pro/aeb-games-full.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut bad = BTreeMap::new();
    let mut games = 0;
    let mut index = 0;
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".sgf") {
            continue;
        }
        index += 1;
        if index % step != 0 {
            continue;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
        let errs = check_bytes(&bytes, &name);
        games += 1;
        if !errs.is_empty() {
            bad.insert(name, errs);
        }
    }
    (games, bad)
}

#[test]
fn tarball_sample_parses_round_trips_and_replays() {
    let (games, bad) = tarball_games(97);
    assert!(games > 700, "{games}");
    // Records with broken rules are rare; each is listed with its rule.
    assert!(bad.len() * 100 < games, "{bad:#?}");
    for errs in bad.values() {
        assert!(errs.iter().all(|e| e.contains("illegal move")), "{bad:#?}");
    }
}

#[test]
#[ignore = "minutes: reads all 71,934 games (about a minute in release, longer in debug)"]
fn tarball_all_games() {
    let (games, bad) = tarball_games(1);
    assert_eq!(games, 71_934);
    for (name, errs) in &bad {
        eprintln!("{name}: {}", errs[0]);
    }
    // 60 of 71,934 records are flawed: 50 have illegal moves (mostly ko
    // retakes, several ending in a forfeit; `unusual/quadruple_ko_6.sgf`
    // repeats a position under Chinese rules' positional superko), these 5
    // have damaged syntax and these 5 game information (`ID[1]` and the
    // like) after the moves.
    let defects: &[(&str, &str)] = &[
        ("games/FMeijin/27/13.sgf", "game information below a node"),
        ("games/FMeijin/27/P04.sgf", "game information below a node"),
        (
            "games/ProAma/ProAmaHoninbo/16.sgf",
            "game information below a node",
        ),
        (
            "games/Shusai/Shusai-721.sgf",
            "game information below a node",
        ),
        (
            "games/Shusaku/Shusaku-number/2.sgf",
            "game information below a node",
        ),
        (
            "games/FHoninbo/Title/FHon-2006-4.sgf",
            "LT[60]: expected an empty value",
        ),
        ("games/Gosei/48/Q05.sgf", "MN[306 moves]: expected a number"),
        (
            "games/Honinbo/64/P11.sgf",
            "LT[60]: expected an empty value",
        ),
        ("games/Meijin/39/36.sgf", "unexpected ')'"),
        ("games/NHK/27/21.sgf", "unexpected ')'"),
    ];
    let mut bad = bad;
    for (name, rule) in defects {
        let errs = bad
            .remove(*name)
            .unwrap_or_else(|| panic!("{name} no longer breaks: {rule}"));
        assert!(errs.iter().any(|e| e.contains(rule)), "{name}: {errs:?}");
    }
    assert_eq!(bad.len(), 50, "games with illegal moves");
    for errs in bad.values() {
        assert!(errs.iter().all(|e| e.contains("illegal move")), "{bad:#?}");
    }
}

// ------------------------------------------------ fast paths vs general path

/// The parser's fast paths (moves `;B[xy]`) give exactly what the general
/// path gives: same arena, offsets, values and diagnostics.
fn assert_fast_path_same(bytes: &[u8], what: &str) {
    let fast = sgf::parse(bytes, &ParseOptions::default());
    let general = sgf::parser::parse_general_path(bytes, &ParseOptions::default());
    assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{what}");
}

#[test]
fn fast_path_parse_equals_general_path_on_the_corpus() {
    let root = corpus("sgf");
    let mut files = 0;
    for dir in [
        "gnugo",
        "libsgfcplusplus-tests",
        "pro/aeb-selection",
        "sgfc-test-files",
    ] {
        for path in sgf_files(&root.join(dir)) {
            assert_fast_path_same(&std::fs::read(&path).unwrap(), &path.to_string_lossy());
            files += 1;
        }
    }
    assert!(files > 4600, "{files}");
    // Every 13th game of the 71,934-game tarball.
    let file = std::fs::File::open(corpus("sgf/pro/aeb-games-full.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut sampled = 0;
    for (k, entry) in archive.entries().unwrap().enumerate() {
        let mut entry = entry.unwrap();
        if k % 13 != 0 {
            continue;
        }
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
        assert_fast_path_same(&bytes, &name);
        sampled += 1;
    }
    assert!(sampled > 5000, "{sampled}");
}

#[test]
fn fast_path_parse_equals_general_path_on_damaged_moves() {
    for src in [
        &b"(;B[aa] [bb])"[..],
        b"(;B[aa]\n[bb];W[cc])",
        b"(;B[a]];W[b\\]])",
        b"(;B[\\]a];W[a\\])",
        b"(;W[ab]C[x];B[tt])",
        b"(;FF[3];B[aa];W[tt];B[])",
        b"(;B[aa]",
        b"(;B[aa",
        b"(;B[a",
        b"(;Bb[aa];bB[cc])",
        b"(;B[aa]W[bb])",
        b"(;B[a\nb];W[\r\n])",
        b"(;GM[2];B[dc];W[zz])",
        b"(;SZ[25];B[aa];W[tt])",
        b"(;B[aa]x;W[bb]();B[cc])",
        b"(;B[aa])(;W[bb])",
        b";B[aa]",
    ] {
        assert_fast_path_same(src, &String::from_utf8_lossy(src));
    }
    // Random damage to a real game: bytes inserted, deleted or replaced
    // with SGF's own characters.
    let game = std::fs::read(corpus("sgf/pro/aeb-selection/Meijin/Title/Mei-1980-4.sgf")).unwrap();
    let alphabet = b";[]()\\BWab \n:";
    let mut seed = 1u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for round in 0..3000 {
        let mut bytes = game.clone();
        for _ in 0..1 + next(8) {
            let at = next(bytes.len());
            let c = alphabet[next(alphabet.len())];
            match next(3) {
                0 => bytes.insert(at, c),
                1 => {
                    bytes.remove(at);
                }
                _ => bytes[at] = c,
            }
        }
        assert_fast_path_same(&bytes, &format!("round {round}"));
    }
}

// ---------------------------------------------------------------- properties

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_round_trip(data in proptest::collection::vec(any::<u8>(), 0..400)) {
            let p = sgf::parse(&data, &ParseOptions::default());
            let out = sgf::write(&p.collection, &WriteOptions::default());
            let q = sgf::parse(&out, &ParseOptions::default());
            prop_assert!(q.collection == p.collection);
        }

        #[test]
        fn sgf_like_input_round_trips(parts in proptest::collection::vec(
            prop::sample::select(vec!["(", ")", ";", "B[aa]", "W[tt]", "C[x\\]y]", "AB[aa:cc]", "LB[dd:a\\:b]", "XX[?]", "[zz]", " ", "\n", "KM[6.5]", "FF[3]", "FF[4]", "SZ[9]"]),
            0..60)) {
            let src: String = parts.concat();
            let p = sgf::parse(src.as_bytes(), &ParseOptions::default());
            let out = sgf::write(&p.collection, &WriteOptions::default());
            let q = sgf::parse(&out, &ParseOptions::default());
            prop_assert!(q.collection == p.collection, "{}\n{}", src, String::from_utf8_lossy(&out));
        }
    }
}

/// Fuzz finding: the writer's column carried over from one game to the
/// next, so a game whose root gains `CA[UTF-8]` broke its root line in a
/// different place on the second write (write was not idempotent).
#[test]
fn writer_line_breaks_do_not_depend_on_previous_games() {
    let long_line = ";B[aa]".repeat(13); // ends the first game near column 80
    let src = format!("(;GM[1]{long_line})\n(;W[ab];C[caf\u{e9}])");
    let once = sgf::write(&parse(src.as_bytes()).collection, &WriteOptions::default());
    let again = parse(&once);
    assert!(errors(&again).is_empty(), "{:?}", errors(&again));
    let twice = sgf::write(&again.collection, &WriteOptions::default());
    assert_eq!(
        String::from_utf8_lossy(&once),
        String::from_utf8_lossy(&twice)
    );
    assert!(String::from_utf8_lossy(&once).contains("\n(;CA[UTF-8]W[ab]\n"));
}

/// Fuzz finding: in a game whose own `CA` is a multi-byte charset (not the
/// file's first `CA`, so values are decoded one by one), a character whose
/// second byte is `\` swallowed the escape of a `]`. A value kept verbatim
/// must still read back as one value after writing.
#[test]
fn verbatim_value_keeps_its_brackets_escaped_after_decoding() {
    // Shift_JIS 表 is 0x95 0x5C: its second byte looks like an escape.
    let src = b"(;FF[4]CA[UTF-8]GM[1];B[aa])(;FF[4]CA[Shift_JIS]GM[1];B[\x95\\]x])";
    let first = parse(src);
    let game2 = first.collection.roots[1];
    let mv = first.collection.first_child(game2).expect("move node");
    let Some(Value::Raw(s)) = first.collection.get(mv, Prop::B).map(|p| p.value()) else {
        panic!("expected the malformed move kept verbatim");
    };
    assert_eq!(first.collection.str(s), "\u{8868}\\]x");
    let out = sgf::write(&first.collection, &WriteOptions::default());
    let again = parse(&out);
    assert!(
        again.collection == first.collection,
        "{}",
        String::from_utf8_lossy(&out)
    );
    // The fuzzer's own case: GB18030, the value unclosed at end of file.
    let src = b"(;CA[]CA[GB18030]\x01W[\xdf\\])";
    let first = parse(src);
    let out = sgf::write(&first.collection, &WriteOptions::default());
    assert!(
        parse(&out).collection == first.collection,
        "{}",
        String::from_utf8_lossy(&out)
    );
}

/// Fuzz finding: an empty move value in a game other than Go or Othello
/// (here `GM[0]`, FF[1]) was written back as `[tt]`, which such a game
/// reads as a verbatim value, not as a pass.
#[test]
fn pass_in_other_games_is_written_as_empty_value() {
    let first = parse(b"(GM[0]B[");
    let out = sgf::write(&first.collection, &WriteOptions::default());
    assert!(
        !String::from_utf8_lossy(&out).contains("tt"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert!(
        parse(&out).collection == first.collection,
        "{}",
        String::from_utf8_lossy(&out)
    );
    // Go keeps the FF[1]..FF[3] spelling.
    let go = parse(b"(;FF[3];B[])");
    let out = sgf::write(&go.collection, &WriteOptions::default());
    assert!(String::from_utf8_lossy(&out).contains("B[tt]"));
}

// ------------------------------------------------- SGFC-level node checks

/// (check id, line, column) of every diagnostic of `src`, rule notes included.
fn checks_of(src: &[u8]) -> Vec<(String, u64, u64)> {
    let p = parse(src);
    let mut out: Vec<(String, u64, u64)> = p
        .diagnostics
        .iter()
        .map(|d| (d.check.id().to_string(), d.location.line, d.location.column))
        .collect();
    let c = &p.collection;
    for (g, &r) in c.roots.iter().enumerate() {
        for e in replay::check_game_notes(c, r, g + 1) {
            let lc = p.lines.line_col(e.offset as u64);
            out.push((e.check.id().to_string(), lc.line, lc.column));
        }
    }
    out
}

fn has(found: &[(String, u64, u64)], id: &str, line: u64, column: u64) -> bool {
    found
        .iter()
        .any(|(i, l, c)| i == id && *l == line && *c == column)
}

#[test]
fn node_rules_of_ff4_are_checked_where_they_break() {
    // Markup on one point twice, across properties and through a rectangle.
    let f = checks_of(b"(;FF[4]SZ[9];B[aa]CR[bb]SQ[ab:cc])");
    assert!(has(&f, "duplicate-point", 1, 27), "{f:?}");
    // Setup on one point twice, territory twice, a label point twice.
    let f = checks_of(b"(;FF[4]SZ[9]AB[aa]AE[aa];TB[cc][cc]LB[dd:x][dd:y])");
    assert!(has(&f, "duplicate-point", 1, 21), "{f:?}");
    assert!(has(&f, "duplicate-point", 1, 32), "{f:?}");
    assert!(has(&f, "duplicate-point", 1, 44), "{f:?}");
    // TB and TW are checked each on its own.
    let f = checks_of(b"(;FF[4]SZ[9];B[aa];TB[cc]TW[cc])");
    assert!(!f.iter().any(|x| x.0 == "duplicate-point"), "{f:?}");
    // A one-point arrow and line.
    let f = checks_of(b"(;FF[4]SZ[9];B[aa]AR[cc:cc]LN[dd:de])");
    assert!(has(&f, "one-point-arrow", 1, 21), "{f:?}");
    assert_eq!(f.iter().filter(|x| x.0 == "one-point-arrow").count(), 1);
    // KO and TE without a move; TE+BM; DM+UC; GB+GW.
    let f = checks_of(b"(;FF[4]SZ[9];KO[];TE[1];B[aa]TE[1]BM[1];W[bb]DM[1]UC[1];B[cc]GB[1]GW[1])");
    assert!(has(&f, "annotation-without-move", 1, 14), "{f:?}");
    assert!(has(&f, "annotation-without-move", 1, 19), "{f:?}");
    assert!(has(&f, "move-annotation-conflict", 1, 35), "{f:?}");
    assert!(has(&f, "annotation-conflict", 1, 51), "{f:?}");
    assert!(has(&f, "annotation-conflict", 1, 67), "{f:?}");
    // Game information twice on a line, but fine in two variations.
    let f = checks_of(b"(;FF[4]PB[x];B[aa]PW[y])");
    assert!(has(&f, "game-info-twice", 1, 19), "{f:?}");
    let f = checks_of(b"(;FF[4](;PB[x];B[aa])(;PB[y];B[bb]))");
    assert!(!f.iter().any(|x| x.0 == "game-info-twice"), "{f:?}");
    // DT and RE formats; a good file says nothing.
    let f = checks_of(b"(;FF[4]DT[2024/01/02]RE[W+3 1/2])");
    assert!(has(&f, "game-info-format", 1, 10), "{f:?}");
    assert!(has(&f, "game-info-format", 1, 24), "{f:?}");
    let f = checks_of(b"(;FF[4]GM[1]SZ[9]DT[2024-01-02,03]RE[W+3.5]KM[6.5];B[aa];W[bb])");
    assert!(f.is_empty(), "{f:?}");
    // Setup that changes nothing: a note, not an error.
    let f = checks_of(b"(;FF[4]SZ[9]AB[aa];AB[aa]AE[bb])");
    assert!(has(&f, "setup-no-effect", 1, 20), "{f:?}");
    assert!(has(&f, "setup-no-effect", 1, 26), "{f:?}");
    let p = parse(b"(;FF[4]SZ[9]AB[aa];AB[aa]AE[bb])");
    let rules = replay::check_game_notes(&p.collection, p.collection.roots[0], 1);
    assert!(rules.iter().all(|e| e.warning), "{rules:?}");
    assert!(replay::check_game(&p.collection, p.collection.roots[0], 1).is_empty());
}

#[test]
fn bytes_invalid_in_the_declared_charset_are_warned_with_their_position() {
    // US-ASCII: a Latin-1 byte in the second node's comment.
    let f = checks_of(b"(;FF[4]CA[US-ASCII]SZ[9]\n;C[ok]\n;C[caf\xe9])");
    assert!(has(&f, "bad-bytes", 3, 7), "{f:?}");
    // UTF-8: a lone continuation byte.
    let f = checks_of(b"(;FF[4]CA[UTF-8]\n;N[a\x80b])");
    assert!(has(&f, "bad-bytes", 2, 5), "{f:?}");
    // Shift_JIS decoded as a whole: the replacement character's place.
    let f = checks_of(b"(;FF[4]CA[Shift_JIS]\n;C[\x82\xa0\xff])");
    assert!(f.iter().any(|x| x.0 == "bad-bytes"), "{f:?}");
    // Valid text says nothing.
    let f = checks_of("(;FF[4]CA[UTF-8]C[指揮權])".as_bytes());
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn game_at_maps_offsets_to_the_game_tree_whose_root_precedes_them() {
    let src = b"junk (;GM[1];B[aa]) \n(;GM[1];W[bb])(;GM[1])";
    let p = parse(src);
    let c = &p.collection;
    assert_eq!(c.roots.len(), 3);
    assert_eq!(
        c.game_at(0),
        Some(0),
        "before the first root: the first game"
    );
    assert_eq!(c.game_at(7), Some(0));
    let root = |k: usize| u64::from(c.node(c.roots[k]).offset);
    assert_eq!(c.game_at(root(1) - 1), Some(0));
    assert_eq!(c.game_at(root(1)), Some(1));
    assert_eq!(c.game_at(root(2)), Some(2));
    assert_eq!(c.game_at(u64::MAX), Some(2));
    assert_eq!(Collection::new().game_at(0), None);
}

// ------------------------------------------------ the replay's walk, checked

/// A random game tree (a few moves a node, variations up to `levels`
/// deep, setup, passes, `PL`, `KO`) on a small board where captures, ko
/// and repeated positions are common, under rules chosen by `seed`.
fn random_tree(seed: u64, levels: u32) -> String {
    let mut x = seed | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let rules = ["", "RU[Japanese]", "RU[Chinese]", "RU[NZ]", "RU[AGA]"];
    let othello = next(8) == 0;
    let size = if othello { 6 } else { 3 + next(4) };
    let mut s = if othello {
        format!("(;FF[4]GM[2]SZ[{size}]")
    } else {
        format!("(;FF[4]GM[1]SZ[{size}]{}", rules[next(5) as usize])
    };
    fn tree(s: &mut String, next: &mut dyn FnMut(u64) -> u64, size: u64, level: u32, levels: u32) {
        let point = |next: &mut dyn FnMut(u64) -> u64| {
            let (a, b) = (next(size), next(size));
            format!("{}{}", (b'a' + a as u8) as char, (b'a' + b as u8) as char)
        };
        for _ in 0..1 + next(6) {
            s.push(';');
            let c = if next(2) == 0 { 'B' } else { 'W' };
            match next(16) {
                0 => s.push_str(&format!("A{c}[{}]", point(next))),
                1 => s.push_str(&format!("AE[{}]", point(next))),
                2 => s.push_str(&format!("{c}[]")),
                3 => s.push_str(&format!("PL[{c}]{c}[{}]", point(next))),
                4 => s.push_str(&format!("KO[]{c}[{}]", point(next))),
                _ => s.push_str(&format!("{c}[{}]", point(next))),
            }
        }
        if level < levels {
            let children = [0, 1, 1, 2, 2, 3][next(6) as usize];
            for _ in 0..children {
                s.push('(');
                tree(s, next, size, level + 1, levels);
                s.push(')');
            }
        }
    }
    tree(&mut s, &mut next, size, 0, levels);
    s.push(')');
    s
}

/// What `check_game` must report: each node's errors found by playing the
/// line from the root to it alone, in pre-order (first children first).
fn naive_check(coll: &Collection, root: NodeId) -> Vec<(NodeId, String, u32, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let (_, mine) = replay::play_to(coll, node).expect("a game with rules");
        let before = coll
            .parent(node)
            .map_or(0, |p| replay::play_to(coll, p).expect("rules").1.len());
        for (offset, message) in mine.into_iter().skip(before) {
            out.push((node, replay::node_path(coll, node, 1), offset, message));
        }
        let children: Vec<_> = coll.children(node).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// `all` as the walk lists it: the first [`gamerec::diag::MAX_LISTED`],
/// then one message counting the rest, at the first of them.
fn listed(mut all: Vec<(NodeId, String, u32, String)>) -> Vec<(NodeId, String, u32, String)> {
    let max = gamerec::diag::MAX_LISTED;
    if all.len() > max {
        let more = all.len() - max;
        let (node, path, offset, _) = all[max].clone();
        all.truncate(max);
        all.push((
            node,
            path,
            offset,
            format!(
                "and {more} more error{} from the rule check in this game, not listed (each game lists the first {max})",
                if more == 1 { "" } else { "s" }
            ),
        ));
    }
    all
}

fn walk_check(coll: &Collection, root: NodeId) -> Vec<(NodeId, String, u32, String)> {
    replay::check_game(coll, root, 1)
        .into_iter()
        .map(|e| (e.node, e.path, e.offset, e.message))
        .collect()
}

/// The walk keeps a state at some branches only and plays nodes again to
/// come back to the others, and keeps the superko record as a log: it
/// must find what playing each line from the root finds, and the node
/// paths kept from node to node must be `node_path`'s.
#[test]
fn replay_walk_equals_playing_each_line_from_the_root() {
    let mut checked = 0;
    for seed in 1..400u64 {
        let levels = 2 + (seed % 9) as u32;
        let src = random_tree(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), levels);
        let parsed = parse(src.as_bytes());
        let coll = &parsed.collection;
        let root = coll.roots[0];
        let all = naive_check(coll, root);
        checked += all.len();
        let want = listed(all);
        assert_eq!(walk_check(coll, root), want, "{src}");
        assert_eq!(
            replay::check_game_general_path(coll, root, 1)
                .into_iter()
                .map(|e| (e.node, e.path, e.offset, e.message))
                .collect::<Vec<_>>(),
            want,
            "{src}"
        );
    }
    assert!(
        checked > 1000,
        "the random trees broke few rules: {checked}"
    );
}

/// Deep trees that branch at every move, under superko (the walk comes
/// back to branches far below its last kept state) and with a rule broken
/// at every node (a long path for each).
#[test]
fn replay_walk_equals_playing_each_line_on_deep_branching_trees() {
    for rules in ["RU[Chinese]", "RU[Japanese]"] {
        let mut s = format!("(;FF[4]GM[1]SZ[5]{rules}");
        let n = 120;
        for i in 0..n {
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            let p = ["aa", "bb", "ab", "ba", "cc", "tt"][i % 6];
            s.push_str(&format!("(;{c}[{p}])(;{c}[{p}]"));
        }
        s.push_str(&")".repeat(n + 1));
        let parsed = parse(s.as_bytes());
        let coll = &parsed.collection;
        let root = coll.roots[0];
        let want = naive_check(coll, root);
        assert!(want.len() > n, "{}", want.len());
        assert_eq!(walk_check(coll, root), listed(want));
    }
}

/// A path of more than 16 branch points shows the first and last 8.
#[test]
fn long_node_paths_are_elided_in_the_middle() {
    let mut s = String::from("(;FF[4]GM[1]SZ[19]");
    for i in 0..30 {
        s.push_str(&format!("(;B[tt])(;C[{i}]"));
    }
    s.push_str(&")".repeat(31));
    let parsed = parse(s.as_bytes());
    let coll = &parsed.collection;
    let mut node = coll.roots[0];
    while let Some(last) = coll.children(node).last() {
        node = last;
    }
    let path = replay::node_path(coll, node, 1);
    let mut paths = replay::NodePaths::default();
    assert_eq!(paths.path(coll, node, 1), path);
    assert_eq!(
        path,
        "game 1, main line move 1, variation 2, move 2, variation 2, move 3, variation 2, \
         move 4, variation 2, move 5, variation 2, move 6, variation 2, move 7, variation 2, \
         move 8, variation 2, ..., move 23, variation 2, move 24, variation 2, move 25, \
         variation 2, move 26, variation 2, move 27, variation 2, move 28, variation 2, \
         move 29, variation 2, move 30, variation 2"
    );
    let short = coll.children(coll.roots[0]).nth(1).expect("two children");
    let short = coll.first_child(short).expect("a move");
    assert_eq!(
        replay::node_path(coll, short, 2),
        "game 2, main line move 1, variation 2, move 2"
    );
}

/// A setup that changes nothing names its first 8 points and counts the
/// others: a compressed list covers thousands (a 1 MB file of
/// `;AE[aa:ZZ]` nodes held 2.9 GB of messages).
#[test]
fn setup_without_effect_names_a_few_points() {
    let parsed = parse(b"(;FF[4]GM[1]SZ[19];AB[aa:ss];AB[aa:ss];AW[ab][bb])");
    let notes = replay::check_game_notes(&parsed.collection, parsed.collection.roots[0], 1);
    let messages: Vec<_> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        ["AB[aa][ba][ca][da][ea][fa][ga][ha] (and 353 more) has no effect: already black"]
    );
    let parsed = parse(b"(;FF[4]GM[1]SZ[19]AB[aa];AB[aa][bb]AE[cc])");
    let notes = replay::check_game_notes(&parsed.collection, parsed.collection.roots[0], 1);
    let messages: Vec<_> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "AB[aa] has no effect: already black",
            "AE[cc] has no effect: already empty"
        ]
    );
}

/// What `check` shows of one part (`parsed` from `part`, at `place`, after
/// `games` games): its messages (the parser's and the rules') placed in the
/// file, added to `shown`; its games and nodes added to the counts.
fn shown_part(
    parsed: &mut Parsed,
    part: &[u8],
    place: &sgf::PartPlace,
    games: &mut usize,
    nodes: &mut usize,
    shown: &mut Vec<String>,
) {
    parsed.index_lines(part, &ParseOptions::default());
    let mut diags = std::mem::take(&mut parsed.diagnostics);
    for (g, &root) in parsed.collection.roots.iter().enumerate() {
        for e in replay::check_game_notes(&parsed.collection, root, *games + g + 1) {
            diags.push(parsed.rule_diagnostic(e));
        }
    }
    diags.sort_by_key(|d| d.offset);
    for mut d in diags {
        place.place(&mut d);
        shown.push(format!(
            "{} @{}: {:?} {}",
            d.location, d.offset, d.severity, d.message
        ));
    }
    *games += parsed.collection.roots.len();
    *nodes += parsed.collection.node_count();
}

/// What reading `bytes` gives, as `check` shows it: games, nodes, and every
/// message (the parser's and the rules') placed in the file. Read whole
/// (`stop_after` `None`) or a part at a time.
fn read_as_check(bytes: &[u8], stop_after: Option<usize>) -> (usize, usize, Vec<String>) {
    let options = ParseOptions::default();
    let (mut games, mut nodes, mut shown) = (0, 0, Vec::new());
    let mut state = sgf::PartState::default();
    let mut buffers = sgf::ParseBuffers::new();
    let mut place = sgf::PartPlace::default();
    let mut start = 0;
    loop {
        let part = &bytes[start..];
        let mut parsed = match stop_after {
            Some(n) => sgf::parse_part(part, &options, &mut state, n, &mut buffers),
            None => sgf::parse(part, &options),
        };
        shown_part(
            &mut parsed,
            part,
            &place,
            &mut games,
            &mut nodes,
            &mut shown,
        );
        match parsed.rest {
            Some(n) => {
                place = place.after(&part[..n]);
                start += n;
            }
            None => return (games, nodes, shown),
        }
    }
}

/// A reader giving at most 4,097 bytes a read (as a pipe does).
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(4097);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// [`read_as_check`] of a stream read a part at a time
/// ([`sgf::StreamParts`]).
fn read_stream_as_check(bytes: &[u8]) -> (usize, usize, Vec<String>) {
    let options = ParseOptions::default();
    let (mut games, mut nodes, mut shown) = (0, 0, Vec::new());
    let mut buffers = sgf::ParseBuffers::new();
    let mut parts = sgf::StreamParts::new(Trickle(bytes));
    while let Some((mut parsed, part, place)) = parts.next_part(&options, &mut buffers).unwrap() {
        shown_part(
            &mut parsed,
            part,
            &place,
            &mut games,
            &mut nodes,
            &mut shown,
        );
    }
    (games, nodes, shown)
}

/// A stream (stdin, a compressed file) read a part at a time gives what
/// the bytes give read whole: many games; a game tree larger than the
/// bytes held (read on and parsed again); one whose value never closes;
/// and a stream decoded whole (UTF-16), given as one part.
#[test]
fn a_stream_read_in_parts_reads_as_whole() {
    let game = std::fs::read(gamerec_testkit::repo_root().join("samples/go-19x19.sgf")).unwrap();
    let many: Vec<u8> = std::iter::repeat_n(&game[..], (20 << 20) / game.len())
        .flatten()
        .copied()
        .collect();
    let huge = format!(
        "(;GM[1]FF[4]SZ[19]C[{}];B[aa];B[aa])\n",
        "x".repeat(20 << 20)
    );
    let mut big_tree = many.clone();
    big_tree.extend_from_slice(huge.as_bytes());
    big_tree.extend_from_slice(&game);
    let mut unclosed = many.clone();
    unclosed.extend_from_slice(b"(;GM[1]C[never closed ;B[aa]");
    let utf16: Vec<u8> = "\u{feff}(;GM[1]FF[4]CA[UTF-16]SZ[9];B[aa];W[aa])"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for (what, bytes) in [
        ("many", &many),
        ("a large tree", &big_tree),
        ("unclosed", &unclosed),
        ("UTF-16", &utf16),
    ] {
        let whole = read_as_check(bytes, None);
        assert!(whole.0 > 0, "{what}");
        let streamed = read_stream_as_check(bytes);
        assert_eq!((streamed.0, streamed.1), (whole.0, whole.1), "{what}");
        assert_eq!(streamed.2, whole.2, "{what}");
    }
}

/// A file of many games read a part at a time (what keeps `check` of a
/// large collection in bounded memory) gives what it gives read whole: the
/// same games, nodes and messages at the same places, the file-level
/// checks (mixed FF, GM, charsets across games) included. On the corpus's
/// files joined into one (CRLF, lone CR and mid-line tree ends included),
/// cut after every game and at larger steps.
#[test]
fn a_collection_read_in_parts_reads_as_whole() {
    let mut files = gamerec_testkit::files_with_extension(&corpus("sgf"), "sgf");
    files.sort();
    let options = ParseOptions::default();
    // Two files: every third of the corpus (damaged files too, whose
    // unclosed values swallow the games after them), and every file
    // without errors (many games).
    let (mut some, mut clean) = (Vec::new(), Vec::new());
    let seps: [&[u8]; 4] = [b"\n", b"\r\n", b"\r", b" "];
    for (i, path) in files.iter().enumerate() {
        let bytes = std::fs::read(path).expect("read");
        if !sgf::parts_allowed(&bytes, &options) || bytes.starts_with(b"\xEF\xBB\xBF") {
            continue;
        }
        let sep = seps[i % seps.len()];
        if i % 3 == 0 {
            some.extend_from_slice(&bytes);
            some.extend_from_slice(sep);
        }
        if parse(&bytes).error_count() == 0 {
            clean.extend_from_slice(&bytes);
            clean.extend_from_slice(sep);
        }
    }
    some.extend_from_slice(b"trailer ) (");
    for (joined, games) in [(some, 300), (clean, 2000)] {
        assert!(sgf::parts_allowed(&joined, &options));
        let whole = read_as_check(&joined, None);
        assert!(
            whole.0 > games && whole.2.len() > 1000,
            "{} games, {} messages",
            whole.0,
            whole.2.len()
        );
        for stop in [0, 5_000, 200_000] {
            let parts = read_as_check(&joined, Some(stop));
            assert_eq!((parts.0, parts.1), (whole.0, whole.1), "cut at {stop}");
            for (a, b) in parts.2.iter().zip(&whole.2) {
                assert_eq!(a, b, "cut at {stop}");
            }
            assert_eq!(parts.2.len(), whole.2.len(), "cut at {stop}");
        }
    }
}
