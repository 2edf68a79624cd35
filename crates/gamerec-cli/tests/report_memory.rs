//! Peak memory of `gamerec report` on result files of many records. In the
//! `memory` test binary (see `memory.rs`).

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

/// Peak resident memory allowed, in MB (measured: about 15).
const LIMIT_MB: u64 = 32;

/// A result file of `n` records, every one missed, in 5,000 suites.
fn write_run(path: &Path, n: usize) {
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..n {
        writeln!(
            out,
            "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id \"S{}.{i}\"; pm Kg2; acn {i}; acms {}; solved 0;",
            i % 5000,
            i % 1000
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// `report` held every record of every run (and each file's whole text):
/// two runs of 500,000 records (94 MB) took 497 MB and wrote a 130 MB
/// page. Now each run is tallied
/// as it is read: totals, the first 1,000 suites (the rest in one
/// `(other suites)` line), the first 1,000 misses and differing positions
/// listed and the rest counted ("and N more"), the first run's first
/// 20,000 records compared with the other run.
#[test]
fn report_tallies_runs_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("report-memory");
    let n = 500_000;
    let (a, b) = (dir.join("a.epd"), dir.join("b.epd"));
    write_run(&a, n);
    write_run(&b, n);
    let html = dir.join("r.html");
    let stderr = dir.join("stderr.txt");
    let (text, mb) = gamerec_testkit::run_measured_stderr_to(
        env!("CARGO_BIN_EXE_gamerec"),
        &[
            "report",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ],
        &stderr,
    );
    eprintln!("report of two runs of {n} records: {mb} MB");
    assert!(
        text.starts_with(&format!("a: 0/{n} solved (0.0%), ")),
        "{text}"
    );
    assert!(text.contains("  (other suites) "), "{text}");
    assert!(text.contains(&format!(" … (+{})", n - 40)), "{text}");
    assert!(
        text.lines().count() < 2_100,
        "{} lines",
        text.lines().count()
    );
    // The page, read a line at a time: each run's misses listed up to 1,000.
    let page = std::io::BufReader::new(std::fs::File::open(&html).unwrap());
    let mut more = 0;
    for line in page.lines() {
        more += line
            .unwrap()
            .matches(&format!(">and {} more<", n - 1000))
            .count();
    }
    assert_eq!(more, 2);
    assert!(mb < LIMIT_MB, "report: {mb} MB");
}
