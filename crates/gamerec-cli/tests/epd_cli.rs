//! `gamerec epd normalize|purge|check`: output, diagnostics, exit status.

use crate::util::cli;

const GOOD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"a\"; bm Nf3 e4;\n";
const BAD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"b\"; bm e5;\n";

#[test]
fn normalize_writes_canonical_lines_and_reports_errors() {
    let out = cli(&["epd", "normalize"]).stdin(GOOD).run();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf3 e4; id \"a\";\n"
    );
    let out = cli(&["epd", "normalize"])
        .stdin(format!("{GOOD}{BAD}"))
        .run();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().nth(1), Some(BAD.trim_end()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("<stdin>:2:65: error: "), "{stderr}");
    assert!(stderr.contains("error: `bm`: `e5`"), "{stderr}");
}

#[test]
fn purge_removes_operations() {
    let out = cli(&["epd", "purge", "id"])
        .stdin(format!("{GOOD}{BAD}"))
        .run();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf3 e4;\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5;\n"
    );
    let out = cli(&["epd", "purge", "9bad"]).stdin(GOOD).run();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_prints_diagnostics_and_summary() {
    let out = cli(&["epd", "check"]).stdin(format!("{GOOD}\n{BAD}")).run();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("<stdin>:3:"), "{stdout}");
    assert_eq!(lines.last(), Some(&"2 records, 1 errors"));
    let out = cli(&["epd", "check"]).stdin(GOOD).run();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 records, 0 errors\n"
    );
    let out = cli(&["epd", "check", "/no/such/file.epd"]).run();
    assert_eq!(out.status.code(), Some(2));
    for verb in ["normalize", "purge", "check"] {
        let out = cli(&["epd", verb, "--help"]).run();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Examples:"),
            "{verb}"
        );
    }
}

#[test]
fn convert_between_fen_and_epd() {
    let dir = gamerec_testkit::temp_dir("epd-cli");
    let epd_path = dir.join("a.epd");
    std::fs::write(&epd_path, format!("{GOOD}{BAD}")).unwrap();
    let fen_path = dir.join("a.fen");
    let out = cli(&[
        "convert",
        epd_path.to_str().unwrap(),
        "-o",
        fen_path.to_str().unwrap(),
    ])
    .run();
    assert_eq!(out.status.code(), Some(1), "one record has an error");
    let fen = std::fs::read_to_string(&fen_path).unwrap();
    assert_eq!(
        fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("dropped"));
    std::fs::write(&fen_path, "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39\n").unwrap();
    let out = cli(&["convert", fen_path.to_str().unwrap()]).run();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "4k3/8/8/8/8/8/4P3/4K3 w - - hmvc 5; fmvn 39;\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_between_pgn_and_epd() {
    let dir = gamerec_testkit::temp_dir("epd-pgn");
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Event \"E\"]\n[Round \"2\"]\n[White \"W\"]\n\n1. e4 {good} e5 (1... c5) 2. Nf3 *\n",
    )
    .unwrap();
    let out = cli(&["convert", pgn.to_str().unwrap(), "--to", "epd"]).run();
    assert_eq!(out.status.code(), Some(0));
    let epd = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = epd.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[1],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - sm e5; c0 \"good\"; id \"E.2.1\"; hmvc 0; fmvn 1;"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("variations"));
    let out = cli(&[
        "convert",
        pgn.to_str().unwrap(),
        "--to",
        "epd",
        "--variations",
        "--ptp",
    ])
    .run();
    let epd = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(epd.lines().count(), 6);
    assert!(epd.contains("ptp Event \"E\" Round \"2\" White \"W\""));
    assert!(epd.contains("sm c5;"));

    let epd_path = dir.join("r.epd");
    std::fs::write(
        &epd_path,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - pv e4 e5; bm e4; ptp White \"X\";\n",
    )
    .unwrap();
    let out = cli(&["convert", epd_path.to_str().unwrap(), "--to", "pgn"]).run();
    assert_eq!(out.status.code(), Some(0));
    let pgn_text = String::from_utf8_lossy(&out.stdout);
    assert!(pgn_text.contains("[White \"X\"]"), "{pgn_text}");
    assert!(pgn_text.contains("[SetUp \"1\"]"), "{pgn_text}");
    assert!(pgn_text.contains("{bm e4;} 1. e4 e5 *"), "{pgn_text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_epd_to_epd_writes_the_canonical_form() {
    let dir = gamerec_testkit::temp_dir("epd-to-epd");
    let input = dir.join("in.epd");
    std::fs::write(
        &input,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -   id \"x\" ;bm  Ng1f3 e4;\nnot a record\n",
    )
    .unwrap();
    let output = dir.join("out.epd");
    let out = cli(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ])
    .run();
    assert_eq!(out.status.code(), Some(1), "the bad line is an error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("in.epd:2:"));
    let written = std::fs::read_to_string(&output).unwrap();
    assert_eq!(
        written,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf3 e4; id \"x\";\nnot a record\n"
    );
    let again = cli(&["convert", output.to_str().unwrap(), "--to", "epd"]).run();
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        written,
        "idempotent"
    );
}

#[test]
fn compressed_epd_is_read_by_extension() {
    use std::io::Write as _;
    let dir = gamerec_testkit::temp_dir("epd-gz");
    let path = dir.join("suite.epd.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(format!("{GOOD}{BAD}").as_bytes()).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let out = cli(&["check", p]).run();
    assert_eq!(out.status.code(), Some(1), "BAD's bm is illegal");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 records, "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = cli(&["epd", "normalize", p]).run();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let out = cli(&["convert", p, "--to", "fen"]).run();
    assert_eq!(out.status.code(), Some(1), "BAD is reported again");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("rnbqkbnr/"));
}
