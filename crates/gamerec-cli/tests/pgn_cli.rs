//! `gamerec check` and `gamerec convert` end to end.

use crate::util::cli;

#[test]
fn check_prints_diagnostics_then_the_summary() {
    let text = b"[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n\n[Event \"b\"]\n1. d4 d5 1-0\n\n1. e4 & *\n";
    let (code, out, _) = cli(&["check", "-"]).stdin(text).run().code_and_text();
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
    assert_eq!(
        lines[2],
        "3 games, 5 moves, 2 errors; 2 with errors, 0 warnings"
    );
    let (code, out, _) = cli(&["check", "-"])
        .stdin(b"1. e4 e5 *\n")
        .run()
        .code_and_text();
    assert_eq!(
        (code, out.as_str()),
        (0, "1 games, 2 moves, 0 errors; 0 with errors, 0 warnings\n")
    );
}

#[test]
fn check_same_answer_with_any_thread_count_and_compression() {
    let corpus = gamerec_testkit::corpus("pgn/lichess-studies/mate_in_4.pgn");
    let path = corpus.to_str().unwrap();
    let (c1, o1, _) = cli(&["check", "--threads", "1", path])
        .run()
        .code_and_text();
    let (c2, o2, _) = cli(&["check", "--threads", "3", path])
        .run()
        .code_and_text();
    assert_eq!((c1, &o1), (c2, &o2));
    let data = std::fs::read(&corpus).unwrap();
    let dir = gamerec_testkit::temp_dir("pgn-cli");
    let zst = dir.join("m4.pgn.zst");
    std::fs::write(&zst, zstd_compress(&data)).unwrap();
    let (c3, o3, _) = cli(&["check", zst.to_str().unwrap()]).run().code_and_text();
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
    let (code, first, _) = cli(&["convert", corpus.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    let (_, second, _) = cli(&["convert", "-"])
        .stdin(first.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(first, second);
    let (code, json, _) = cli(&["convert", "--to", "json", "-"])
        .stdin(first.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    let games = first.matches("\n[Event ").count() + 1;
    assert_eq!(json.lines().count(), games);
    assert!(json.starts_with("{\"tags\":[[\"Event\","), "{json}");
    assert!(json.contains("\"uci\":\"e2e4\"") || json.contains("\"uci\":\"d2d4\""));
}

#[test]
fn tcec_archive_checks_clean() {
    let corpus = gamerec_testkit::corpus("pgn/tcec-2011-2021.pgn.zst");
    let (code, out, _) = cli(&["check", "-q", corpus.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "5280 games, 725157 moves, 0 errors; 0 with errors, 0 warnings\n"
    );
}

#[test]
#[ignore = "minutes: converts 149 MB twice"]
fn tcec_archive_export_is_idempotent() {
    let corpus = gamerec_testkit::corpus("pgn/tcec-2011-2021.pgn.zst");
    let (code, first, _) = cli(&["convert", "-q", corpus.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    let (_, second, _) = cli(&["convert", "-q", "-"])
        .stdin(first.as_bytes())
        .run()
        .code_and_text();
    assert!(first == second);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = cli(&["check", "/nonexistent/x.pgn"]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = cli(&["check", "--help"]).run().code_and_text();
    assert_eq!(code, 0);
}

#[test]
fn latin1_export_warns_about_characters_it_cannot_hold() {
    let text =
        "[Event \"Łódź\"]\n[White \"Müller\"]\n1. e4 {a ♞ move} e5 *\n\n[Event \"b\"]\n1. d4 *\n";
    let (code, out, err) = cli(&["convert", "--encoding", "latin-1", "-"])
        .stdin(text.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    let warnings: Vec<_> = err
        .lines()
        .filter(|l| !l.starts_with("gamerec convert: "))
        .collect();
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
    let (code, out, err) = cli(&["convert", "-"])
        .stdin(text.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(
        (code, err.as_str()),
        (
            0,
            "gamerec convert: 2 games, 0 errors; 0 with errors, 0 warnings, 2 written\n"
        )
    );
    assert!(out.contains("Łódź") && out.contains('♞'));
}

/// A multi-megabyte input with diagnostics all through it, a comment that
/// holds what looks like a game end and a game start (a wrong cut), and a
/// 6 MB comment (no cut for longer than the range planner plans, so the
/// rest of the file is read in order): every way of reading it (one
/// thread, several, stdin, zstd) must print the same diagnostics with the
/// same line:column and the same summary.
#[test]
fn check_reports_the_same_lines_whichever_way_a_large_input_is_read() {
    let mut human = std::fs::read(gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn")).unwrap();
    human.extend(std::fs::read(gamerec_testkit::corpus("pgn/twic1599_1000k.pgn")).unwrap());
    let starts: Vec<usize> = (0..human.len())
        .filter(|&i| human[i..].starts_with(b"[Event ") && (i == 0 || human[i - 1] == b'\n'))
        .chain([human.len()])
        .collect();
    let games: Vec<&[u8]> = starts.windows(2).map(|w| &human[w[0]..w[1]]).collect();
    assert!(games.len() > 1000, "{} games", games.len());
    let mut text = Vec::new();
    let mut injected = 0;
    for round in 0..3 {
        for (i, game) in games.iter().enumerate() {
            text.extend_from_slice(game);
            if i % 401 == round * 3 {
                injected += 2;
                text.extend_from_slice(b"\n[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n\n1. e4 & *\n\n");
            }
            if i % 13 == 7 {
                text.extend_from_slice(
                    b"[Event \"fake cut\"]\n\n1. e4 {ends 1-0\n[Event \"no\"]\n} e5 2. Ke2 *\n\n",
                );
            }
        }
        if round == 1 {
            text.extend_from_slice(b"[Event \"huge\"]\n\n1. e4 {");
            for _ in 0..(6 << 20) / 64 {
                text.extend_from_slice(b"a long comment line: 1-0 [Event \"x\"] not a game end \n");
                text.extend_from_slice(b"1-0\n");
            }
            text.extend_from_slice(b"} e5 2. Qh9 *\n\n");
            injected += 1;
        }
    }
    let dir = gamerec_testkit::temp_dir("pgn-large-check");
    let crlf: Vec<u8> = text
        .iter()
        .flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        })
        .collect();
    for (name, text) in [("lf", &text), ("crlf", &crlf)] {
        let path = dir.join(format!("large-{name}.pgn"));
        std::fs::write(&path, text).unwrap();
        let zst = dir.join(format!("large-{name}.pgn.zst"));
        std::fs::write(&zst, zstd_compress(text)).unwrap();
        let p = path.to_str().unwrap();
        let (code, one, _) = cli(&["check", "-t", "1", p]).run().code_and_text();
        assert_eq!(code, 1);
        let errors = one.lines().filter(|l| l.contains(": error: ")).count();
        assert_eq!(errors, injected, "{one}");
        assert!(
            one.lines()
                .any(|l| l.contains(": error: ") && l.contains("Qh9")),
            "the error after the huge comment is reported"
        );
        for threads in ["2", "3"] {
            let (c, out, _) = cli(&["check", "-t", threads, p]).run().code_and_text();
            assert_eq!((c, &out), (code, &one), "{name} --threads {threads}");
        }
        let (c, out, _) = cli(&["check", "-t", "2", zst.to_str().unwrap()])
            .run()
            .code_and_text();
        let z = zst.to_str().unwrap();
        assert_eq!((c, out.replace(z, p)), (code, one.clone()), "{name} zstd");
        let (c, out, _) = cli(&["check", "-t", "2", "-"])
            .stdin(text)
            .run()
            .code_and_text();
        assert_eq!((c, out.replace("<stdin>", p)), (code, one), "{name} stdin");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn convert_refuses_to_write_over_its_input() {
    let dir = gamerec_testkit::temp_dir("pgn-convert-onto-input");
    let path = dir.join("games.pgn");
    let text = b"[Event \"a\"]\n\n1. e4 e5 *\n";
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = cli(&["convert", p, "-o", p]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the output is an input too"), "{err}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        text,
        "the input is left alone"
    );
    let other = dir.join("out.pgn");
    let (code, _, err) = cli(&["convert", p, "-o", other.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
