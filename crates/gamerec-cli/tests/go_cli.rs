//! `gamerec match` for Go and `gamerec sgf analyze` (GNU Go parts skip
//! when `gnugo` is missing unless GAMEREC_REQUIRE_PEERS=1).

use crate::util::cli;

#[test]
fn go_match_writes_sgf_and_resumes() {
    let dir = gamerec_testkit::temp_dir("go-cli-match");
    let run = dir.join("run");
    let _ = std::fs::remove_dir_all(&run);
    let out = dir.join("games.sgf");
    let o = cli(&[
        "match",
        "random:1",
        "weak:2",
        "--size",
        "9",
        "--komi",
        "7",
        "--games",
        "2",
        "--tc",
        "20+1x3",
        "--dir",
        run.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ])
    .run();
    let (code, _, stderr) = gamerec_testkit::code_and_text(&o);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Results of random:1 vs weak:2"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("(;GM[1]").count(), 2);
    assert!(text.contains("BL[") && text.contains("WL[") && text.contains("OT[3x1 byo-yomi]"));
    // Resuming a finished Go match plays nothing and prints the same games.
    let o = cli(&["match", "--resume", run.to_str().unwrap(), "-q"]).run();
    let (code, stdout, stderr) = gamerec_testkit::code_and_text(&o);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, text);
    // Bad options are errors with exit 2.
    for bad in [
        &["match", "random", "weak", "--tc", "10+5"][..],
        &["match", "random", "weak", "--size", "30"],
        &["match", "random", "weak", "--handicap", "1"],
        &["match", "random", "gtp:"],
    ] {
        let o = cli(bad).run();
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sgf_analyze_annotates_moves_with_gnugo() {
    let Some(gnugo) = gamerec_testkit::peer("gnugo") else {
        return;
    };
    let dir = gamerec_testkit::temp_dir("go-cli-analyze");
    let input = dir.join("game.sgf");
    std::fs::write(
        &input,
        "(;GM[1]FF[4]SZ[9]KM[7]C[start];B[ee]C[centre];W[cc](;B[gg])(;B[gc]))",
    )
    .unwrap();
    let out = dir.join("out.sgf");
    let engine = format!("gtp:{} --mode gtp --level 0", gnugo.display());
    let o = cli(&[
        "sgf",
        "analyze",
        input.to_str().unwrap(),
        "--engine",
        &engine,
        "-o",
        out.to_str().unwrap(),
    ])
    .run();
    let (code, _, stderr) = gamerec_testkit::code_and_text(&o);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("estimate_score"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    // Three main-line moves, each with a value; the variation is kept.
    assert_eq!(text.matches("V[").count(), 3, "{text}");
    assert!(text.contains("centre\n\nestimate_score: "), "{text}");
    assert!(
        text.contains("B[gc]") && text.contains("C[start]"),
        "{text}"
    );
    let parsed = gamerec::sgf::parse(text.as_bytes(), &gamerec::sgf::ParseOptions::default());
    assert_eq!(parsed.error_count(), 0);
    // A built-in player cannot analyse.
    let o = cli(&[
        "sgf",
        "analyze",
        input.to_str().unwrap(),
        "--engine",
        "weak",
    ])
    .run();
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
