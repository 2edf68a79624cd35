//! Result files of `epd solve` (or any EPD file with `pm` and `bm`/`am`)
//! read back as [`Run`]s: per position the verdict, nodes, time and STS
//! points; per run the score, per suite and per STS theme. `gamerec
//! report` renders them with `gamerec_view::report`.

use std::collections::BTreeMap;

use gamerec::diag::{Diagnostic, MAX_LISTED, NotListed, Severity};
use gamerec::epd::{self, EpdRecord};

/// One analysed position of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRecord {
    /// `id` operand (or `#line`).
    pub id: String,
    /// Suite: the id up to its last `.` (`WAC.001` → `WAC`).
    pub suite: String,
    /// `solved` opcode, else computed from `pm` against `bm`/`am`.
    pub solved: Option<bool>,
    /// Predicted move.
    pub pm: Option<String>,
    /// Best moves wanted.
    pub bm: Vec<String>,
    /// Moves to avoid.
    pub am: Vec<String>,
    /// Nodes (`acn`).
    pub nodes: Option<u64>,
    /// Time in ms (`acms`, else `acs` × 1000).
    pub time_ms: Option<u64>,
    /// When the final solution was first found (`sltm`), else `time_ms`.
    pub solution_ms: Option<u64>,
    /// STS points for `pm` (from `c0 "move=points, …"`), out of 100.
    pub sts_points: Option<u32>,
}

/// One result file.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Label (file name without extension).
    pub label: String,
    /// Records in file order.
    pub records: Vec<ResultRecord>,
}

fn strip_suffix(m: &str) -> &str {
    m.trim_end_matches(['+', '#', '!', '?'])
}

impl Run {
    /// Reads a result file's text; lines that are not EPD are skipped
    /// ([`Run::read`] says which).
    pub fn parse(label: &str, text: &str) -> Run {
        Run::read(label, text).0
    }

    /// Reads a result file's text (lines end at LF, CRLF or a lone CR),
    /// with the errors of the lines it could not read as records: each such
    /// line is left out of the run, so its errors are what the caller
    /// reports (at most [`MAX_LISTED`] of them; the rest are counted in one
    /// last message). Blank lines and `#` lines are skipped quietly.
    pub fn read(label: &str, text: &str) -> (Run, Vec<Diagnostic>) {
        let mut records = Vec::new();
        let mut errors = Vec::new();
        let mut not_listed = NotListed::default();
        let mut first_not_listed = None;
        for line in epd::read_lines(text) {
            let t = line.text.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let Some(rec) = line.record else {
                for d in line.diagnostics {
                    if d.severity != Severity::Error {
                        continue;
                    }
                    if errors.len() < MAX_LISTED {
                        errors.push(d);
                    } else {
                        first_not_listed.get_or_insert(d.location);
                        not_listed.count(d.severity);
                    }
                }
                continue;
            };
            let n = line.number;
            let id = first(&rec, "id").unwrap_or_else(|| format!("#{n}"));
            let suite = match id.rfind('.') {
                Some(i) if i > 0 => id[..i].to_string(),
                _ => label.to_string(),
            };
            let pm = first(&rec, "pm");
            let bm = operands(&rec, "bm");
            let am = operands(&rec, "am");
            let solved = match first(&rec, "solved").as_deref() {
                Some("1") => Some(true),
                Some("0") => Some(false),
                _ => pm
                    .as_ref()
                    .filter(|_| !bm.is_empty() || !am.is_empty())
                    .map(|p| {
                        let p = strip_suffix(p);
                        (bm.is_empty() || bm.iter().any(|b| strip_suffix(b) == p))
                            && !am.iter().any(|a| strip_suffix(a) == p)
                    }),
            };
            let nodes = first(&rec, "acn").and_then(|v| v.parse().ok());
            let time_ms = first(&rec, "acms")
                .and_then(|v| v.parse().ok())
                .or_else(|| {
                    first(&rec, "acs")
                        .and_then(|v| v.parse::<u64>().ok())
                        .and_then(|s| s.checked_mul(1000))
                });
            let solution_ms = first(&rec, "sltm").and_then(|v| v.parse().ok()).or(time_ms);
            let sts_points = pm.as_ref().and_then(|p| sts_points(&rec, strip_suffix(p)));
            records.push(ResultRecord {
                id,
                suite,
                solved,
                pm,
                bm,
                am,
                nodes,
                time_ms,
                solution_ms,
                sts_points,
            });
        }
        if let Some(location) = first_not_listed {
            let mut d = Diagnostic::new(
                not_listed.severity(),
                location,
                not_listed.message("the EPD reader", "file"),
            );
            d.not_listed = Some(Box::new(not_listed));
            errors.push(d);
        }
        let run = Run {
            label: label.to_string(),
            records,
        };
        (run, errors)
    }

    /// Records with a verdict, and how many were solved.
    pub fn score(&self) -> (usize, usize) {
        let judged = self.records.iter().filter(|r| r.solved.is_some()).count();
        let solved = self
            .records
            .iter()
            .filter(|r| r.solved == Some(true))
            .count();
        (solved, judged)
    }

    /// Per suite: (solved, judged), suites in first-seen order.
    pub fn suites(&self) -> Vec<(String, usize, usize)> {
        let mut order: Vec<String> = Vec::new();
        let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for r in &self.records {
            if r.solved.is_none() {
                continue;
            }
            if !m.contains_key(&r.suite) {
                order.push(r.suite.clone());
            }
            let e = m.entry(r.suite.clone()).or_default();
            e.1 += 1;
            if r.solved == Some(true) {
                e.0 += 1;
            }
        }
        order
            .into_iter()
            .map(|s| (s.clone(), m[&s].0, m[&s].1))
            .collect()
    }

    /// STS per theme: (theme, points, max points), if the run has STS data.
    pub fn sts_themes(&self) -> Vec<(String, u32, u32)> {
        let mut m: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        for r in &self.records {
            if let Some(p) = r.sts_points {
                let theme = r
                    .suite
                    .split_once(") ")
                    .map_or(r.suite.as_str(), |(_, t)| t)
                    .to_string();
                let e = m.entry(theme).or_default();
                e.0 = e.0.saturating_add(p);
                e.1 = e.1.saturating_add(100);
            }
        }
        m.into_iter().map(|(k, (a, b))| (k, a, b)).collect()
    }
}

/// The operands of `opcode` as text (strings unquoted, moves in SAN).
fn operands(rec: &EpdRecord, opcode: &str) -> Vec<String> {
    rec.op(opcode)
        .map(|op| op.operands.iter().map(|o| o.text()).collect())
        .unwrap_or_default()
}

/// The first operand of `opcode` as text.
fn first(rec: &EpdRecord, opcode: &str) -> Option<String> {
    rec.op(opcode)?.operands.first().map(|o| o.text())
}

/// STS scoring: `c0 "f5=100, Bf2=46, …"` gives the points per move.
fn sts_points(rec: &EpdRecord, pm: &str) -> Option<u32> {
    let c0 = first(rec, "c0")?;
    if !c0.contains('=') {
        return None;
    }
    let mut any = false;
    for part in c0.split(',') {
        let (mv, pts) = part.trim().split_once('=')?;
        any = true;
        if strip_suffix(mv.trim()) == pm {
            // Out of 100: more is no STS score.
            return pts.trim().parse().ok().filter(|&p| p <= 100);
        }
    }
    any.then_some(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.1"; pm Ra8+; acn 100; acms 20; solved 1; sltm 5;
6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.2"; pm Kf2; acn 5000; acms 900; solved 0;
6k1/8/8/8/8/8/8/R5K1 w - - am Kf2; id "U.1"; pm Kf2; acn 10; acs 1;
"#;

    #[test]
    fn reads_runs() {
        let run = Run::parse("a", A);
        assert_eq!(run.score(), (1, 3));
        assert_eq!(run.suites(), vec![("T".into(), 1, 2), ("U".into(), 0, 1)]);
        assert_eq!(run.records[2].time_ms, Some(1000));
        assert_eq!(run.records[0].solution_ms, Some(5));
    }

    /// Seen while writing the `engine_lines` fuzz target, confirmed through
    /// it: `acs` seconds too many for milliseconds, and STS points of
    /// 2^32 - 1 summed per theme, overflowed (a panic in `gamerec report`).
    #[test]
    fn numbers_too_large_are_no_values() {
        let text = "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"S) x.1\"; acs 18446744073709552; c0 \"Ra8=4294967295\";\n\
                    6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"S) x.2\"; c0 \"Ra8=100\";\n\
                    6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"S) x.3\"; c0 \"Ra8=101\";\n";
        let run = Run::parse("x", text);
        assert_eq!(run.records[0].time_ms, None);
        let points: Vec<_> = run.records.iter().map(|r| r.sts_points).collect();
        assert_eq!(points, [None, Some(100), None]);
        assert_eq!(run.sts_themes(), vec![("x".into(), 100, 100)]);
    }

    #[test]
    fn scores_sts_themes() {
        let line = r#"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; c0 "f5=100, Bf2=46, Bg4=23"; pm Bf2;"#;
        let run = Run::parse("x", line);
        assert_eq!(run.records[0].sts_points, Some(46));
        assert_eq!(run.sts_themes(), vec![("Undermine".into(), 46, 100)]);
    }

    /// A line the EPD reader rejects was left out of the run without a word
    /// (`epd solve` copies such records unchanged into its results), and
    /// lines ending at a lone CR were read as one line.
    #[test]
    fn lines_left_out_are_reported() {
        let text = "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"T.1\"; acn 99999999999999999999;\r\
                    6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"T.2\";\r\
                    # a comment\r\
                    6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Kg2; id \"T.3\";\r";
        let (run, errors) = Run::read("x", text);
        let ids: Vec<_> = run.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["T.2", "T.3"]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].location.line, 1);
        assert!(errors[0].message.contains("out of range"), "{errors:?}");

        let bad = "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; id \"\0\";\n";
        let (run, errors) = Run::read("x", &bad.repeat(MAX_LISTED + 500));
        assert!(run.records.is_empty());
        assert_eq!(errors.len(), MAX_LISTED + 1);
        let last = &errors[MAX_LISTED];
        assert_eq!(last.counts(), (500, 0));
        assert_eq!(last.location.line, MAX_LISTED as u64 + 1);
    }
}
