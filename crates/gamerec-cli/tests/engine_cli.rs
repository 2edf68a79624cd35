//! `gamerec epd analyze|mate|solve` and `gamerec report` end to end.

use crate::util::cli;

use std::path::{Path, PathBuf};

/// Runs `gamerec ARGS... INPUT -o OUTPUT`, asserts success and returns what
/// it wrote to OUTPUT.
fn run_into(args: &[&str], input: &Path, output: &Path) -> String {
    let mut all = args.to_vec();
    all.extend([input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    cli(&all).run_ok().into_output();
    std::fs::read_to_string(output).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    gamerec_testkit::temp_dir("engine-cli").join(name)
}

fn wac_head(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(gamerec_testkit::corpus("epd/arasan/wac.epd")).unwrap();
    text.lines().take(n).map(str::to_string).collect()
}

fn write(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// Opcodes of a record (after the four position fields).
fn ops(line: &str) -> Vec<String> {
    let rest: String = line
        .split_whitespace()
        .skip(4)
        .collect::<Vec<_>>()
        .join(" ");
    rest.split(';')
        .filter_map(|op| op.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A record without its timing operations (which vary run to run).
fn untimed(line: &str) -> String {
    line.split(';')
        .filter(|op| !["acms", "acs", "sltm"].contains(&op.split_whitespace().next().unwrap_or("")))
        .collect::<Vec<_>>()
        .join(";")
}

#[test]
fn analyze_adds_pfga_operations_in_input_order() {
    let mut lines = wac_head(3);
    lines.push("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - id \"mated\";".into());
    lines.push("k7/2Q5/1K6/8/8/8/8/8 b - - id \"stalemate\";".into());
    let input = tmp("analyze-in.epd");
    write(&input, &lines);
    let out = cli(&[
        "epd",
        "analyze",
        "--depth",
        "4",
        "--jobs",
        "2",
        input.to_str().unwrap(),
    ])
    .run_ok()
    .into_output();
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), 5);
    for (i, l) in got.iter().enumerate().take(3) {
        assert!(l.starts_with(&lines[i][..20]), "order kept");
        let o = ops(l);
        for want in ["bm", "id", "pv", "ce", "pm", "sm", "acn", "acs"] {
            assert!(o.iter().any(|x| x == want), "{want} missing in {l}");
        }
    }
    assert!(
        got[3].contains("pv;") && got[3].contains("ce -32767;") && !got[3].contains("pm "),
        "{}",
        got[3]
    );
    assert!(
        got[4].contains("pv;") && got[4].contains("ce 0;"),
        "{}",
        got[4]
    );
}

#[test]
fn mate_runs_iteratively_like_pfms() {
    let lines = vec![
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - id \"m1\";".to_string(),
        "1k6/8/1K6/8/8/8/8/R7 w - - id \"m2\";".to_string(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"none\";".to_string(),
    ];
    let input = tmp("mate-in.epd");
    write(&input, &lines);
    let pass1 = tmp("mate-1.epd");
    let t1 = run_into(&["epd", "mate", "--moves", "1"], &input, &pass1);
    let l1: Vec<&str> = t1.lines().collect();
    assert!(
        l1[0].contains("dm 1;") && l1[0].contains("pm Qxf7#;"),
        "{}",
        l1[0]
    );
    assert!(!l1[1].contains("dm "));
    let pass2 = tmp("mate-2.epd");
    let t2 = run_into(&["epd", "mate", "--moves", "2"], &pass1, &pass2);
    let l2: Vec<&str> = t2.lines().collect();
    assert_eq!(l2[0], l1[0], "solved by pass 1: untouched");
    assert!(l2[1].contains("dm 2;"), "{}", l2[1]);
    assert!(
        !l2[2].contains("dm "),
        "the start position has no mate in 2"
    );
}

#[test]
fn solve_marks_records_and_resume_continues() {
    let lines = wac_head(6);
    let input = tmp("solve-in.epd");
    write(&input, &lines);
    let output = tmp("solve-out.epd");
    let full = run_into(
        &["epd", "solve", "--nodes", "30000", "--jobs", "2"],
        &input,
        &output,
    );
    let full_lines: Vec<&str> = full.lines().collect();
    assert_eq!(full_lines.len(), 6);
    assert!(
        full_lines
            .iter()
            .all(|l| l.contains("solved 1;") || l.contains("solved 0;"))
    );
    // Simulate a run killed after two records (and half a line).
    let partial = format!(
        "{}\n{}\n{}",
        full_lines[0],
        full_lines[1],
        &full_lines[2][..30]
    );
    std::fs::write(&output, partial).unwrap();
    let resumed = run_into(
        &["epd", "solve", "--nodes", "30000", "--resume"],
        &input,
        &output,
    );
    let rl: Vec<&str> = resumed.lines().collect();
    assert_eq!(rl.len(), 6);
    assert_eq!(rl[..2], full_lines[..2]);
    // Node-limited builtin search is deterministic (timings aside).
    let strip = |v: &[&str]| v.iter().map(|l| untimed(l)).collect::<Vec<_>>();
    assert_eq!(strip(&rl), strip(&full_lines));
    // Resuming a finished file does nothing.
    cli(&[
        "epd",
        "solve",
        "--nodes",
        "30000",
        "--resume",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ])
    .run_ok()
    .into_output();
    assert_eq!(std::fs::read_to_string(&output).unwrap(), resumed);
}

#[test]
fn bad_records_are_reported_and_passed_through() {
    let mut lines = wac_head(1);
    lines.push("this is not epd".into());
    lines.push("8/8/8/8/8/8/8/8 w - - id \"no kings\";".into());
    let input = tmp("bad-in.epd");
    write(&input, &lines);
    let out = cli(&["epd", "analyze", "--depth", "2", input.to_str().unwrap()])
        .run()
        .into_output();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad-in.epd:2:1: error:"), "{err}");
    assert!(err.contains("bad-in.epd:3:1: error:"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got[1], lines[1]);
    assert_eq!(got[2], lines[2]);
}

#[test]
fn usage_errors_exit_2() {
    let input = tmp("usage.epd");
    write(&input, &wac_head(1));
    let p = input.to_str().unwrap();
    assert_eq!(
        cli(&["epd", "analyze", p]).run().status.code(),
        Some(2),
        "no limit"
    );
    assert_eq!(
        cli(&["epd", "analyze", "--depth", "2", "--engine", "nope", p])
            .run()
            .into_output()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        cli(&[
            "epd",
            "analyze",
            "--depth",
            "2",
            "--engine",
            "uci:/nonexistent",
            p
        ])
        .run()
        .into_output()
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        cli(&["epd", "analyze", "--depth", "2", "/nonexistent.epd"])
            .run()
            .into_output()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        cli(&["epd", "analyze", "--movetime", "soon", p])
            .run()
            .into_output()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn solve_with_stockfish_and_xboard_engines() {
    let input = tmp("peers-in.epd");
    let lines: Vec<String> = wac_head(5)
        .into_iter()
        .filter(|l| !l.contains("WAC.002"))
        .take(3)
        .collect();
    write(&input, &lines);
    if let Some(sf) = gamerec_testkit::peer("stockfish") {
        let engine = format!("uci:{}", sf.display());
        let out = cli(&[
            "epd",
            "solve",
            "--engine",
            &engine,
            "--option",
            "Hash=16",
            "--depth",
            "10",
            input.to_str().unwrap(),
        ])
        .run()
        .into_output();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches("solved 1;").count(), 3, "{text}");
    }
    if let Some(fm) = gamerec_testkit::peer("fairymax") {
        let engine = format!("xboard:{}", fm.display());
        let out = cli(&[
            "epd",
            "analyze",
            "--engine",
            &engine,
            "--depth",
            "4",
            input.to_str().unwrap(),
        ])
        .run_ok()
        .into_output();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches(" pm ").count(), 3, "{text}");
    }
}

#[test]
fn report_summarises_runs_side_by_side() {
    let a = tmp("run-a.epd");
    let b = tmp("run-b.epd");
    let line = |id: &str, solved: u8| {
        format!(
            "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id \"{id}\"; pm Kf2; acn 1000; acms 50; solved {solved};"
        )
    };
    write(&a, &[line("S.1", 1), line("S.2", 0), line("T.1", 1)]);
    write(&b, &[line("S.1", 1), line("S.2", 1), line("T.1", 0)]);
    let html = tmp("report.html");
    let out = cli(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ])
    .run_ok()
    .into_output();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("run-a: 2/3 solved"), "{text}");
    assert!(text.contains("run-b: 2/3 solved"), "{text}");
    assert!(text.contains("missed: S.2"), "{text}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"diff\"") && page.contains("S.2") && page.contains("T.1"));
    assert_eq!(
        cli(&["report", "/nonexistent.epd"]).run().status.code(),
        Some(2)
    );
}

/// `--movetime 200` is 200 ms (a bare number is milliseconds, as in UCI):
/// WAC.011, which never returned under `--movetime 1000` when bare numbers
/// were seconds, is answered within 400 ms, two positions at a time.
#[test]
fn bare_movetime_is_milliseconds_and_is_kept() {
    let lines = vec![
        r#"r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - id "WAC.011";"#.to_string(),
        wac_head(1)[0].clone(),
    ];
    let input = tmp("movetime-in.epd");
    write(&input, &lines);
    let out = cli(&[
        "epd",
        "analyze",
        "--movetime",
        "200",
        "--jobs",
        "2",
        input.to_str().unwrap(),
    ])
    .run_ok()
    .into_output();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2);
    for line in text.lines() {
        let rec: gamerec::epd::EpdRecord = line.parse().unwrap();
        let ms: u64 = rec.op("acms").expect("acms").operands[0]
            .text()
            .parse()
            .unwrap();
        assert!(ms <= 400, "{ms} ms: {line}");
    }
}
