//! SGF through the binary: `check`, `convert` (SGF, JSON, FF[4]), `show`,
//! `sgf upgrade`.

use crate::util::cli;

fn temp(name: &str, content: &str) -> String {
    let p = gamerec_testkit::temp_dir("sgf-cli").join(name);
    std::fs::write(&p, content).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn check_reports_illegal_moves_with_paths_and_exit_codes() {
    let good = temp("good.sgf", "(;FF[4]GM[1]SZ[9];B[ee];W[ce])");
    let (code, out, _) = cli(&["check", &good]).run().code_and_text();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("1 games, 3 nodes, 0 errors; 0 with errors, 0 warnings"),
        "{out}"
    );
    let bad = temp(
        "bad.sgf",
        "(;FF[4]GM[1]SZ[9];B[ee];W[ce]\n(;B[ee])(;B[aa];W[ee]))",
    );
    let (code, out, _) = cli(&["check", &good, &bad]).run().code_and_text();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{bad}:2:3: error: game 1, main line move 3: illegal move B[ee]: the point is occupied"
        )),
        "{out}"
    );
    assert!(
        out.contains("game 1, main line move 3, variation 2, move 4: illegal move W[ee]"),
        "{out}"
    );
    assert!(out.contains("2 games, "), "{out}");
    let (code, _, err) = cli(&["check", "/no/such/file.sgf"]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
}

#[test]
fn convert_to_sgf_and_json_and_upgrade() {
    let src = temp(
        "old.sgf",
        "(;FF[3]SZ[19]DT[1994/3/12]L[aa][bb];B[tt];W[dd]C[a\\]b])",
    );
    let (code, out, err) = cli(&["convert", &src]).run().code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("L[aa][bb]") && out.contains(";B[tt]") && out.contains("C[a\\]b]"),
        "{out}"
    );
    let (code, json, _) = cli(&["convert", &src, "--to", "json"])
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    assert!(
        json.starts_with("{\"format\":\"sgf\",\"games\":["),
        "{json}"
    );
    assert!(
        json.contains("{\"id\":\"C\",\"values\":[\"a]b\"]}"),
        "{json}"
    );
    let (code, up, err) = cli(&["sgf", "upgrade", &src]).run().code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(
        up.contains("FF[4]")
            && up.contains("LB[aa:A][bb:B]")
            && up.contains(";B[]")
            && up.contains("DT[1994-03-12]"),
        "{up}"
    );
    let out_path = temp("new.sgf", "");
    let (code, _, _) = cli(&["convert", &src, "--ff4", "-o", &out_path])
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), up);
    let (_, help, _) = cli(&["sgf", "upgrade", "--help"]).run().code_and_text();
    assert!(help.contains("Examples:"), "{help}");
}

#[test]
fn show_draws_the_board_at_a_node() {
    let src = temp(
        "show.sgf",
        "(;FF[4]GM[1]SZ[5];B[cc];W[bc](;B[dc])(;B[cb]C[var]))",
    );
    let (code, out, _) = cli(&["show", &src, "--node", "3,2"]).run().code_and_text();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("game 1, main line move 3, variation 2"),
        "{out}"
    );
    assert!(out.contains("  3 . O X . . 3"), "{out}");
    assert!(
        out.contains("  4 . . X< . . 4") || out.contains("  4 . . X<. . 4"),
        "{out}"
    );
    assert!(out.contains("C[var]"), "{out}");
    let (code, _, err) = cli(&["show", &src, "--node", "9"]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
}

#[test]
fn check_compares_re_with_the_final_territory_marks_and_show_counts_them() {
    // Black walls column b, White column d; c is dame; a and e are marked.
    let game = |re: &str| {
        format!(
            "(;FF[4]GM[1]SZ[5]KM[0.5]RU[Chinese]RE[{re}]\nAB[ba][bb][bc][bd][be]AW[da][db][dc][dd][de]\n;B[];W[]\n;TB[aa][ab][ac][ad][ae]TW[ea][eb][ec][ed][ee])"
        )
    };
    let good = temp("re-good.sgf", &game("W+0.5"));
    let (code, out, _) = cli(&["check", &good]).run().code_and_text();
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors; 0 with errors, 0 warnings"), "{out}");
    let bad = temp("re-bad.sgf", &game("B+3"));
    let (code, out, _) = cli(&["check", &bad]).run().code_and_text();
    assert_eq!(code, 0, "a warning only: {out}");
    assert!(
        out.contains(&format!(
            "{bad}:1:36: warning: game 1, root node: RE[B+3] but the final TB/TW marks count W+0.5"
        )) && out.contains("[sgf:result-vs-score]"),
        "{out}"
    );
    let (code, out, _) = cli(&["show", &good]).run().code_and_text();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Score (TB/TW): W+0.5 (area: B 10 W 10.5, komi 0.5)"),
        "{out}"
    );
}

#[test]
fn the_json_dump_converts_back_to_the_same_sgf() {
    let src = temp(
        "tree.sgf",
        "(;FF[4]GM[1]SZ[9]C[a \\] b]AP[x\\:y:1](;B[ee]LB[dd:q\\:r](;W[ce])(;W[cc];B[dd]))(;B[aa];W[]))",
    );
    let dir = gamerec_testkit::temp_dir("sgf-cli-json");
    let json = dir.join("tree.json").to_string_lossy().into_owned();
    let back = dir.join("back.sgf").to_string_lossy().into_owned();
    let direct = dir.join("direct.sgf").to_string_lossy().into_owned();
    assert_eq!(
        cli(&["convert", &src, "-o", &json]).run().code_and_text().0,
        0
    );
    let (code, _, err) = cli(&["convert", &json, "-o", &back]).run().code_and_text();
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        cli(&["convert", &src, "-o", &direct])
            .run()
            .code_and_text()
            .0,
        0
    );
    assert_eq!(
        std::fs::read_to_string(&back).unwrap(),
        std::fs::read_to_string(&direct).unwrap()
    );
    // Chess JSON is still refused as SGF.
    let chess = temp("chess.json", "{\"white\":\"a\",\"moves\":[]}\n");
    let (code, _, err) = cli(&["convert", &chess, "-o", &back]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot convert chess games to SGF"), "{err}");
}

#[test]
fn convert_and_positions_write_the_go_tables() {
    let dir = gamerec_testkit::temp_dir("sgf-cli-tables");
    let a = dir.join("a.sgf");
    std::fs::write(
        &a,
        "(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[ce])(;GM[1]FF[4]SZ[9];B[aa])",
    )
    .unwrap();
    let sub = dir.join("more");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("b.sgf"), "(;GM[1]SZ[9];B[ee];W[ee])").unwrap();
    let games = dir.join("go.parquet").to_string_lossy().into_owned();
    let moves = dir.join("moves.arrow").to_string_lossy().into_owned();
    let (code, _, err) = cli(&[
        "convert",
        a.to_str().unwrap(),
        sub.to_str().unwrap(),
        "-o",
        &games,
    ])
    .run()
    .code_and_text();
    assert_eq!(code, 1, "the illegal move in b.sgf: {err}");
    assert!(err.contains("illegal move W[ee]"), "{err}");
    assert!(
        err.contains("gamerec convert: 3 games, 1 errors; 1 with errors, 0 warnings, 3 written"),
        "{err}"
    );
    let (code, _, err) = cli(&["positions", a.to_str().unwrap(), "-o", &moves])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("3 rows from 2 games"), "{err}");
    // Go and chess inputs cannot share a table; the old table stays.
    let pgn = temp("x.pgn", "1. e4 *\n");
    let (code, _, err) = cli(&["convert", a.to_str().unwrap(), &pgn, "-o", &games])
        .run()
        .code_and_text();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot share one table"), "{err}");
    assert!(std::fs::metadata(&games).is_ok());
}

/// `check` and the Go tables count games with errors alike: two errors in
/// the second of three games make one game with errors.
#[test]
fn check_and_tables_count_a_game_with_two_errors_once() {
    let dir = gamerec_testkit::temp_dir("sgf-cli-with-errors");
    let a = dir.join("three.sgf");
    std::fs::write(
        &a,
        "(;GM[1]FF[4]SZ[9];B[ee])(;GM[1]FF[4]SZ[9];B[ee];W[ee];B[ee])(;GM[1]FF[4]SZ[9];B[aa])",
    )
    .unwrap();
    let (code, out, err) = cli(&["check", a.to_str().unwrap()]).run().code_and_text();
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("3 games, ") && out.contains(" 2 errors; 1 with errors"),
        "{out}{err}"
    );
    let table = dir.join("go.parquet").to_string_lossy().into_owned();
    let (code, _, err) = cli(&["convert", a.to_str().unwrap(), "-o", &table])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("gamerec convert: 3 games, 2 errors; 1 with errors"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A game broken at each node lists the first 1,000 messages of the parser
/// and of the rule check, then one count of the rest; the summary counts
/// every error (SGF, EPD; the Go games table's `errors` column too).
#[test]
fn check_lists_a_thousand_messages_a_game_and_counts_them_all() {
    let text = gamerec_testkit::sgf_broken_at_every_node(1500);
    let sgf = temp("broken.sgf", &text);
    let (code, out, _) = cli(&["check", &sgf]).run().code_and_text();
    assert_eq!(code, 1, "{out}");
    // 1,500 bad values, 1,498 moves on occupied points.
    assert!(
        out.ends_with("1 games, 1501 nodes, 2998 errors; 1 with errors, 0 warnings\n"),
        "{}",
        &out[out.len().saturating_sub(300)..]
    );
    assert_eq!(out.lines().count(), 2 * 1000 + 2 + 1);
    assert!(
        out.contains("error: and 500 more errors from the parser in this game, not listed (each game lists the first 1000) [sgf:not-listed]"),
        "{out}"
    );
    assert!(
        out.contains(": game 1, main line move 1003: and 498 more errors from the rule check in this game, not listed (each game lists the first 1000) [sgf:not-listed]"),
        "{out}"
    );
    let table = gamerec_testkit::temp_dir("sgf-cli").join("broken.parquet");
    let (code, _, err) = cli(&["convert", &sgf, "-o", table.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("gamerec convert: 1 games, 2998 errors; 1 with errors, 0 warnings, 1 written"),
        "{err}"
    );
    let epd = temp(
        "broken.epd",
        &format!("{}\n", gamerec_testkit::epd_repeated_opcode(1301)),
    );
    let (code, out, _) = cli(&["check", &epd]).run().code_and_text();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.ends_with("1 records, 1300 errors; 1 with errors, 0 warnings\n"),
        "{out}"
    );
    assert!(
        out.contains("error: and 300 more errors from the reader in this record, not listed (each record lists the first 1000)"),
        "{out}"
    );
}
