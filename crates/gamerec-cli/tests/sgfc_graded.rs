//! `gamerec check` graded against SGFC on SGFC's own test files: every
//! message SGFC gives (written down in `data/sgfc_expected.tsv` from the
//! captures that come with its test files) must be matched by a report of
//! the same kind on the same line, except the known gaps listed there; and
//! every report gamerec makes beyond SGFC's must be listed there too.

use gamerec::sgf::checks::check_from_id;
use std::collections::BTreeMap;

/// One SGFC message.
#[derive(Debug)]
struct Expected {
    file: String,
    line: u64,
    column: u64,
    number: u32,
    error: bool,
    status: String,
}

/// One report of `gamerec check`.
#[derive(Debug)]
struct Report {
    line: u64,
    column: u64,
    error: bool,
    id: String,
}

fn table() -> (Vec<Expected>, Vec<(String, u64, String)>) {
    let text = include_str!("data/sgfc_expected.tsv");
    let mut expected = Vec::new();
    let mut extras = Vec::new();
    for row in text.lines() {
        if row.starts_with('#') || row.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = row.split('\t').collect();
        if f[0] == "extra" {
            extras.push((f[1].to_string(), f[2].parse().unwrap(), f[3].to_string()));
            continue;
        }
        assert!(f.len() >= 7, "bad row {row:?}");
        expected.push(Expected {
            file: f[0].to_string(),
            line: f[2].parse().unwrap(),
            column: f[3].parse().unwrap(),
            number: f[4].parse().unwrap(),
            error: f[5] == "E",
            status: f[6].to_string(),
        });
    }
    (expected, extras)
}

fn check(path: &str) -> Vec<Report> {
    let (_, out, _) = gamerec_testkit::code_and_text(&gamerec_testkit::run(
        env!("CARGO_BIN_EXE_gamerec"),
        &["check", path],
        b"",
    ));
    let mut reports = Vec::new();
    for l in out.lines() {
        let Some(rest) = l.strip_prefix(path).and_then(|r| r.strip_prefix(':')) else {
            continue;
        };
        let mut parts = rest.splitn(4, ':');
        let (Some(line), Some(column), Some(sev)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(id) = l
            .rsplit_once("[sgf:")
            .and_then(|(_, id)| id.strip_suffix(']'))
        else {
            panic!("{path}: a report without its check: {l}");
        };
        reports.push(Report {
            line: line.parse().unwrap(),
            column: column.parse().unwrap(),
            error: sev.trim() == "error",
            id: id.to_string(),
        });
    }
    reports
}

#[test]
fn check_agrees_with_sgfc_on_its_test_files() {
    let (expected, listed_extras) = table();
    let mut by_file: BTreeMap<&str, Vec<&Expected>> = BTreeMap::new();
    for e in &expected {
        by_file.entry(e.file.as_str()).or_default().push(e);
    }
    let (mut graded, mut agree, mut same_column, mut same_severity) = (0, 0, 0, 0);
    let (mut gaps, mut options) = (0, 0);
    let mut failures = Vec::new();
    let mut extras = Vec::new();
    for (file, rows) in &by_file {
        let path = gamerec_testkit::corpus(&format!("sgf/sgfc-test-files/{file}"));
        let path = path.to_string_lossy().into_owned();
        let reports = check(&path);
        for r in &reports {
            assert!(
                check_from_id(&r.id).is_some(),
                "{file}: unknown check {}",
                r.id
            );
        }
        // One report answers one message: pairs of the same kind on the same
        // line, nearest columns first.
        let rows: Vec<&Expected> = rows
            .iter()
            .copied()
            .filter(|e| {
                if e.status == "option" {
                    options += 1;
                }
                e.status != "option"
            })
            .collect();
        let mut pairs = Vec::new();
        for (k, e) in rows.iter().enumerate() {
            for (i, r) in reports.iter().enumerate() {
                if check_from_id(&r.id).is_some_and(|c| c.sgfc().contains(&e.number))
                    && (e.line == 0 || r.line == e.line)
                {
                    pairs.push((r.column.abs_diff(e.column), k, i));
                }
            }
        }
        pairs.sort();
        let mut used = vec![false; reports.len()];
        let mut answer: Vec<Option<usize>> = vec![None; rows.len()];
        for (_, k, i) in pairs {
            if !used[i] && answer[k].is_none() {
                used[i] = true;
                answer[k] = Some(i);
            }
        }
        for (e, pick) in rows.iter().zip(answer) {
            graded += 1;
            match (pick, e.status.as_str()) {
                (Some(i), "agree") => {
                    agree += 1;
                    same_column += usize::from(e.line == 0 || reports[i].column == e.column);
                    same_severity += usize::from(reports[i].error == e.error);
                }
                (None, "gap") => gaps += 1,
                (Some(i), _) => failures.push(format!(
                    "{file}:{}:{}: SGFC {} listed as a gap is now matched by {:?}: update the table",
                    e.line, e.column, e.number, reports[i]
                )),
                (None, _) => failures.push(format!(
                    "{file}:{}:{}: SGFC {} not reported",
                    e.line, e.column, e.number
                )),
            }
        }
        for (i, r) in reports.iter().enumerate() {
            if !used[i] {
                extras.push((file.to_string(), r.line, r.id.clone()));
            }
        }
    }
    let mut listed = listed_extras.clone();
    listed.sort();
    extras.sort();
    if listed != extras {
        failures.push(format!(
            "reports SGFC does not make: got {extras:?}, listed {listed:?}"
        ));
    }
    eprintln!(
        "SGFC messages graded: {graded}; agree {agree} (same column {same_column}, same severity \
         {same_severity}); known gaps {gaps}; needing an SGFC option: {options}; gamerec extras: {}",
        extras.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(agree >= 80, "{agree}");
}
