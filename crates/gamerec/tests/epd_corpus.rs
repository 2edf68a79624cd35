//! Every EPD file of `shared/corpus/epd` reads without a false error.
//!
//! Where a file truly breaks the standard, `tests/data/epd/corpus-errors.txt`
//! names the line and why (`file:line: reason`); the test requires exactly
//! those lines to be rejected, each with a message containing the reason.
//! Normalisation is idempotent over every file, and every record read
//! survives write and re-read unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gamerec::diag::Severity;
use gamerec::epd::{self, EpdRecord, normalized_line};

fn epd_files() -> Vec<PathBuf> {
    let root = gamerec_testkit::corpus("epd");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "epd") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn rel(path: &Path) -> String {
    let root = gamerec_testkit::corpus("epd");
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `file:line` -> expected reason, from corpus-errors.txt.
fn expected_errors() -> BTreeMap<(String, u64), String> {
    let text = include_str!("data/epd/corpus-errors.txt");
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.split(" # ").next().unwrap_or(line).trim();
        let (place, reason) = line.split_once(": ").expect("file:line: reason");
        let (file, num) = place.rsplit_once(':').expect("file:line");
        map.insert(
            (file.to_string(), num.parse().expect("line number")),
            reason.trim().to_string(),
        );
    }
    map
}

#[test]
fn every_corpus_file_reads_without_false_errors() {
    let files = epd_files();
    if files.is_empty() {
        assert!(
            !gamerec_testkit::peers_required(),
            "corpus missing: {}",
            gamerec_testkit::corpus("epd").display()
        );
        eprintln!("skipped: corpus not found");
        return;
    }
    assert!(files.len() >= 40, "found only {} files", files.len());
    let expected = expected_errors();
    let mut seen = BTreeMap::new();
    let mut records = 0usize;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let text = epd::decode(&bytes);
        let name = rel(path);
        for line in epd::read_lines(&text) {
            if line.record.is_some() {
                records += 1;
            }
            if let Some(err) = line
                .diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
            {
                seen.insert((name.clone(), line.number), err.to_string());
            }
        }
    }
    let mut problems = Vec::new();
    for (key, msg) in &seen {
        match expected.get(key) {
            None => problems.push(format!("unexpected error {}:{}: {msg}", key.0, key.1)),
            Some(reason) if !msg.contains(reason.as_str()) => problems.push(format!(
                "{}:{}: error `{msg}` does not contain `{reason}`",
                key.0, key.1
            )),
            Some(_) => {}
        }
    }
    for (key, reason) in &expected {
        if !seen.contains_key(key) {
            problems.push(format!(
                "{}:{}: expected an error ({reason}), read fine",
                key.0, key.1
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(records > 30_000, "{records} records");
}

#[test]
fn destruction_test_gives_errors_not_panics() {
    for name in [
        "whittington/destruction-test.epd",
        "whittington/destructive.epd",
    ] {
        let path = gamerec_testkit::corpus(&format!("epd/{name}"));
        let Ok(bytes) = std::fs::read(&path) else {
            assert!(!gamerec_testkit::peers_required(), "missing {name}");
            return;
        };
        let text = epd::decode(&bytes);
        let lines: Vec<_> = epd::read_lines(&text).collect();
        let errors = lines.iter().filter(|l| l.has_errors()).count();
        assert!(errors > 50, "{name}: only {errors} error lines");
        for l in &lines {
            for d in &l.diagnostics {
                assert_eq!(d.location.line, l.number);
                assert!(d.location.column >= 1);
                assert!(!d.message.is_empty());
            }
        }
    }
    // The lines the file itself marks "should be OK" / "not a problem" that
    // are records (the start position with extra whitespace, leading
    // spaces, odd move counters) read.
    let path = gamerec_testkit::corpus("epd/whittington/destruction-test.epd");
    if let Ok(bytes) = std::fs::read(path) {
        let text = epd::decode(&bytes);
        let lines: Vec<_> = epd::read_lines(&text).collect();
        for n in [1, 6, 7, 9, 10] {
            let rec = lines[n - 1]
                .record
                .as_ref()
                .unwrap_or_else(|| panic!("line {n}: {:?}", lines[n - 1].diagnostics));
            assert_eq!(
                rec.position.to_fields(),
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
            );
        }
        let line9 = lines[8].record.as_ref().unwrap();
        assert_eq!(line9.integer("hmvc"), Some(400));
        assert_eq!(line9.integer("fmvn"), Some(500));
    }
}

#[test]
fn normalize_is_idempotent_and_records_round_trip() {
    for path in epd_files() {
        let bytes = std::fs::read(&path).unwrap();
        let text = epd::decode(&bytes);
        for line in epd::read_lines(&text) {
            let Some(record) = line.record else { continue };
            let once = normalized_line(&record);
            let reread: EpdRecord = once.parse().unwrap_or_else(|e| {
                panic!(
                    "{}:{}: normalized line unreadable: {e}\n{once}",
                    rel(&path),
                    line.number
                )
            });
            assert_eq!(
                normalized_line(&reread),
                once,
                "{}:{}",
                rel(&path),
                line.number
            );
            let written = record.to_string();
            let back: EpdRecord = written.parse().unwrap();
            assert_eq!(back, record, "{}:{}", rel(&path), line.number);
        }
    }
}
