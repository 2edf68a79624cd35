//! `gamerec check` and `gamerec convert` end to end.

fn gamerec(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let output = gamerec_testkit::run(
        env!("CARGO_BIN_EXE_gamerec"),
        args,
        stdin.unwrap_or_default(),
    );
    gamerec_testkit::code_and_text(&output)
}

#[test]
fn check_prints_diagnostics_then_the_summary() {
    let text = b"[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n\n[Event \"b\"]\n1. d4 d5 1-0\n\n1. e4 & *\n";
    let (code, out, _) = gamerec(&["check", "-"], Some(text));
    assert_eq!(code, 1);
    let lines: Vec<_> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("<stdin>:3:13: error: illegal move Ke3"),
        "{out}"
    );
    assert!(
        lines[0].contains("(game 1, line 1: [Event \"a\"])"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("<stdin>:8:7: error: unexpected character '&'"),
        "{out}"
    );
    assert!(lines[1].contains("game 3"), "{out}");
    assert_eq!(lines[2], "3 games, 5 moves, 2 errors");
    let (code, out, _) = gamerec(&["check", "-"], Some(b"1. e4 e5 *\n"));
    assert_eq!((code, out.as_str()), (0, "1 games, 2 moves, 0 errors\n"));
}

#[test]
fn check_same_answer_with_any_thread_count_and_compression() {
    let corpus = gamerec_testkit::corpus("pgn/lichess-studies/mate_in_4.pgn");
    let path = corpus.to_str().unwrap();
    let (c1, o1, _) = gamerec(&["check", "--threads", "1", path], None);
    let (c2, o2, _) = gamerec(&["check", "--threads", "3", path], None);
    assert_eq!((c1, &o1), (c2, &o2));
    let data = std::fs::read(&corpus).unwrap();
    let dir = std::env::temp_dir().join(format!("gamerec-pgn-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let zst = dir.join("m4.pgn.zst");
    std::fs::write(&zst, zstd_compress(&data)).unwrap();
    let (c3, o3, _) = gamerec(&["check", zst.to_str().unwrap()], None);
    assert_eq!(c3, c1);
    assert_eq!(o3.lines().last(), o1.lines().last());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn zstd_compress(data: &[u8]) -> Vec<u8> {
    // The CLI crate links zstd; the test reuses it through the binary's
    // dependency set (dev builds share it).
    zstd::encode_all(data, 1).unwrap()
}

#[test]
fn convert_to_pgn_is_idempotent_and_json_has_one_line_per_game() {
    let corpus = gamerec_testkit::corpus("pgn/pgn-extract-tests/infiles/fischer.pgn");
    let (code, first, _) = gamerec(&["convert", corpus.to_str().unwrap()], None);
    assert_eq!(code, 0);
    let (_, second, _) = gamerec(&["convert", "-"], Some(first.as_bytes()));
    assert_eq!(first, second);
    let (code, json, _) = gamerec(&["convert", "--to", "json", "-"], Some(first.as_bytes()));
    assert_eq!(code, 0);
    let games = first.matches("\n[Event ").count() + 1;
    assert_eq!(json.lines().count(), games);
    assert!(json.starts_with("{\"tags\":[[\"Event\","), "{json}");
    assert!(json.contains("\"uci\":\"e2e4\"") || json.contains("\"uci\":\"d2d4\""));
}

#[test]
fn tcec_archive_checks_clean() {
    let corpus = gamerec_testkit::corpus("pgn/tcec-2011-2021.pgn.zst");
    let (code, out, _) = gamerec(&["check", "-q", corpus.to_str().unwrap()], None);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "5280 games, 725157 moves, 0 errors\n");
}

#[test]
#[ignore = "converts 149 MB twice; run with --ignored"]
fn tcec_archive_export_is_idempotent() {
    let corpus = gamerec_testkit::corpus("pgn/tcec-2011-2021.pgn.zst");
    let (code, first, _) = gamerec(&["convert", "-q", corpus.to_str().unwrap()], None);
    assert_eq!(code, 0);
    let (_, second, _) = gamerec(&["convert", "-q", "-"], Some(first.as_bytes()));
    assert!(first == second);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = gamerec(&["check", "/nonexistent/x.pgn"], None);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = gamerec(&["check", "--help"], None);
    assert_eq!(code, 0);
}

#[test]
fn latin1_export_warns_about_characters_it_cannot_hold() {
    let text =
        "[Event \"Łódź\"]\n[White \"Müller\"]\n1. e4 {a ♞ move} e5 *\n\n[Event \"b\"]\n1. d4 *\n";
    let (code, out, err) = gamerec(
        &["convert", "--encoding", "latin-1", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(code, 0, "{err}");
    let warnings: Vec<_> = err.lines().collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert_eq!(
        warnings[0],
        "<stdin>:1:1: warning: latin-1 cannot represent 'Ł' U+0141, 'ź' U+017A, '♞' U+265E: \
         written as ? (game 1, line 1: [Event \"Łódź\"])"
    );
    // What Latin-1 holds is written in Latin-1; the rest as `?`.
    assert!(out.contains("[Event \"?\u{fffd}d?\"]"), "{out}");
    assert!(out.contains("[White \"M\u{fffd}ller\"]"), "{out}");
    assert!(out.contains("{a ? move}"), "{out}");
    // UTF-8 output holds everything: no warning.
    let (code, out, err) = gamerec(&["convert", "-"], Some(text.as_bytes()));
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains("Łódź") && out.contains('♞'));
}
