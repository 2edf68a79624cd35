//! Result files of `epd solve` (or any EPD file with `pm` and `bm`/`am`)
//! read back as [`Run`]s: per position the verdict, nodes, time and STS
//! points; per run the score, per suite and per STS theme. `gamerec
//! report` renders them with `gamerec_view::report`.

use std::collections::{BTreeMap, HashMap};

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
        let mut errors = LineErrors::default();
        for line in epd::read_lines(text) {
            if let Some(rec) =
                errors.line(label, line.number, line.text, line.record, line.diagnostics)
            {
                records.push(rec);
            }
        }
        let run = Run {
            label: label.to_string(),
            records,
        };
        (run, errors.finish())
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

/// The errors of the lines of one result file left out of its run: the
/// first [`MAX_LISTED`] kept, the rest counted in one last message.
#[derive(Debug, Default)]
pub struct LineErrors {
    errors: Vec<Diagnostic>,
    not_listed: NotListed,
    first_not_listed: Option<gamerec::diag::LineCol>,
}

impl LineErrors {
    /// One line of a result file: its record, or `None` (blank, `#`, or
    /// not an EPD record: its errors kept).
    pub fn line(
        &mut self,
        label: &str,
        number: u64,
        text: &str,
        record: Option<EpdRecord>,
        diagnostics: Vec<Diagnostic>,
    ) -> Option<ResultRecord> {
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') {
            return None;
        }
        let Some(rec) = record else {
            for d in diagnostics {
                if d.severity != Severity::Error {
                    continue;
                }
                if self.errors.len() < MAX_LISTED {
                    self.errors.push(d);
                } else {
                    self.first_not_listed.get_or_insert(d.location);
                    self.not_listed.count(d.severity);
                }
            }
            return None;
        };
        Some(ResultRecord::of(label, number, &rec))
    }

    /// The errors, the last one counting those not listed.
    pub fn finish(self) -> Vec<Diagnostic> {
        let mut errors = self.errors;
        if let Some(location) = self.first_not_listed {
            let mut d = Diagnostic::new(
                self.not_listed.severity(),
                location,
                self.not_listed.message("the EPD reader", "file"),
            );
            d.not_listed = Some(Box::new(self.not_listed));
            errors.push(d);
        }
        errors
    }
}

impl ResultRecord {
    /// The result record of the EPD record on line `n` of run `label`.
    pub fn of(label: &str, n: u64, rec: &EpdRecord) -> ResultRecord {
        let id = first(rec, "id").unwrap_or_else(|| format!("#{n}"));
        let suite = match id.rfind('.') {
            Some(i) if i > 0 => id[..i].to_string(),
            _ => label.to_string(),
        };
        let pm = first(rec, "pm");
        let bm = operands(rec, "bm");
        let am = operands(rec, "am");
        let solved = match first(rec, "solved").as_deref() {
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
        let nodes = first(rec, "acn").and_then(|v| v.parse().ok());
        let time_ms = first(rec, "acms").and_then(|v| v.parse().ok()).or_else(|| {
            first(rec, "acs")
                .and_then(|v| v.parse::<u64>().ok())
                .and_then(|s| s.checked_mul(1000))
        });
        let solution_ms = first(rec, "sltm").and_then(|v| v.parse().ok()).or(time_ms);
        let sts_points = pm.as_ref().and_then(|p| sts_points(rec, strip_suffix(p)));
        ResultRecord {
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
        }
    }

    /// The STS theme of the record's suite (after `) `).
    pub fn theme(&self) -> &str {
        self.suite
            .split_once(") ")
            .map_or(self.suite.as_str(), |(_, t)| t)
    }
}

/// Names a report lists (suites, STS themes, missed positions, positions
/// where runs differ), as for the lines left out: past these, a count.
pub const LISTED: usize = 1_000;

/// Solution times a [`Summary`] keeps exactly; past this, each to three
/// significant digits (a step of the curve at most 1% early).
const EXACT_TIMES: usize = 1 << 16;

/// Records of the first run [`Compare`] holds to compare with the other
/// runs by id; later ones are counted.
pub const COMPARED: usize = 20_000;

/// The histogram bucket of a value: 0 for zero, then k + 1 for
/// `10^k <= v < 10^(k+1)` (21 buckets).
pub fn log_bucket(v: u64) -> usize {
    if v == 0 { 0 } else { v.ilog10() as usize + 1 }
}

/// One run tallied record by record, in memory bounded whatever the
/// number of records: totals, per suite and STS theme (the first
/// `listed` of each, the rest in one tally), the first `listed` misses
/// and their count, the node and time histograms and the solution times
/// (to three significant digits past [`EXACT_TIMES`]).
#[derive(Debug, Clone)]
pub struct Summary {
    /// Label (file name without extension).
    pub label: String,
    /// Records read.
    pub records: u64,
    /// Records solved.
    pub solved: usize,
    /// Records with a verdict.
    pub judged: usize,
    /// Nodes, summed (saturating).
    pub nodes: u64,
    /// Time in ms, summed (saturating).
    pub ms: u64,
    suites: Vec<(String, usize, usize)>,
    suite_at: HashMap<String, usize>,
    /// Solved and judged of the suites past the listed ones.
    pub other_suites: Option<(usize, usize)>,
    themes: BTreeMap<String, (u32, u32)>,
    /// Points and maximum of the STS themes past the listed ones.
    pub other_themes: Option<(u32, u32)>,
    /// The first misses, in file order.
    pub missed: Vec<ResultRecord>,
    /// Misses in all.
    pub missed_count: usize,
    times: Vec<u64>,
    coarse: Option<BTreeMap<u64, usize>>,
    /// Records per [`log_bucket`] of their nodes.
    pub node_buckets: [usize; 21],
    /// Records per [`log_bucket`] of their time.
    pub time_buckets: [usize; 21],
    listed: usize,
}

impl Summary {
    /// An empty summary listing at most `listed` of each kind of name.
    pub fn new(label: &str, listed: usize) -> Summary {
        Summary {
            label: label.to_string(),
            records: 0,
            solved: 0,
            judged: 0,
            nodes: 0,
            ms: 0,
            suites: Vec::new(),
            suite_at: HashMap::new(),
            other_suites: None,
            themes: BTreeMap::new(),
            other_themes: None,
            missed: Vec::new(),
            missed_count: 0,
            times: Vec::new(),
            coarse: None,
            node_buckets: [0; 21],
            time_buckets: [0; 21],
            listed,
        }
    }

    /// The summary of a run read whole, every name listed.
    pub fn of_run(run: &Run) -> Summary {
        let mut s = Summary::new(&run.label, usize::MAX);
        for r in &run.records {
            s.add(r);
        }
        s
    }

    /// Tallies one record.
    pub fn add(&mut self, r: &ResultRecord) {
        self.records += 1;
        self.nodes = self.nodes.saturating_add(r.nodes.unwrap_or(0));
        self.ms = self.ms.saturating_add(r.time_ms.unwrap_or(0));
        if let Some(n) = r.nodes {
            self.node_buckets[log_bucket(n)] += 1;
        }
        if let Some(t) = r.time_ms {
            self.time_buckets[log_bucket(t)] += 1;
        }
        if let Some(solved) = r.solved {
            self.judged += 1;
            self.solved += usize::from(solved);
            let tally = match self.suite_at.get(&r.suite) {
                Some(&i) => Some(&mut self.suites[i]),
                None if self.suites.len() < self.listed => {
                    self.suite_at.insert(r.suite.clone(), self.suites.len());
                    self.suites.push((r.suite.clone(), 0, 0));
                    self.suites.last_mut()
                }
                None => None,
            };
            match tally {
                Some(t) => {
                    t.1 += usize::from(solved);
                    t.2 += 1;
                }
                None => {
                    let o = self.other_suites.get_or_insert((0, 0));
                    o.0 += usize::from(solved);
                    o.1 += 1;
                }
            }
            if solved {
                if let Some(t) = r.solution_ms {
                    self.add_time(t);
                }
            } else {
                self.missed_count += 1;
                if self.missed.len() < self.listed {
                    self.missed.push(r.clone());
                }
            }
        }
        if let Some(p) = r.sts_points {
            let theme = r.theme();
            let e = if let Some(e) = self.themes.get_mut(theme) {
                e
            } else if self.themes.len() < self.listed {
                self.themes.entry(theme.to_string()).or_default()
            } else {
                self.other_themes.get_or_insert((0, 0))
            };
            e.0 = e.0.saturating_add(p);
            e.1 = e.1.saturating_add(100);
        }
    }

    fn add_time(&mut self, t: u64) {
        if self.coarse.is_none() && self.times.len() < EXACT_TIMES {
            self.times.push(t);
            return;
        }
        let coarse = self.coarse.get_or_insert_with(BTreeMap::new);
        for t in self.times.drain(..).chain([t]) {
            *coarse.entry(three_digits(t)).or_default() += 1;
        }
        self.times = Vec::new();
    }

    /// Solved and judged per suite, suites in first-seen order (those
    /// past the listed ones in [`Summary::other_suites`]).
    pub fn suites(&self) -> &[(String, usize, usize)] {
        &self.suites
    }

    /// STS per theme: (theme, points, max points), by name.
    pub fn sts_themes(&self) -> impl Iterator<Item = (&str, u32, u32)> {
        self.themes.iter().map(|(k, &(a, b))| (k.as_str(), a, b))
    }

    /// Whether the run has STS points.
    pub fn has_sts(&self) -> bool {
        !self.themes.is_empty()
    }

    /// The solved positions' solution times, ascending, as (time, how
    /// many solved at it).
    pub fn solution_steps(&self) -> Vec<(u64, usize)> {
        match &self.coarse {
            Some(c) => c.iter().map(|(&t, &n)| (t, n)).collect(),
            None => {
                let mut t = self.times.clone();
                t.sort_unstable();
                t.into_iter().map(|t| (t, 1)).collect()
            }
        }
    }
}

/// `t` to three significant digits, rounded down.
fn three_digits(t: u64) -> u64 {
    if t < 1000 {
        return t;
    }
    let unit = 10u64.pow(t.ilog10() - 2);
    t / unit * unit
}

/// Reads a result file as a stream, line by line (as [`Run::read`] reads
/// text): each record is tallied in a [`Summary`] listing `listed` names
/// of each kind and handed to `each`; the errors of the lines left out
/// come back as [`Run::read`] gives them. Memory is bounded whatever the
/// number of records.
pub fn read_summary(
    label: &str,
    input: impl std::io::BufRead,
    listed: usize,
    mut each: impl FnMut(&ResultRecord),
) -> std::io::Result<(Summary, Vec<Diagnostic>)> {
    let mut summary = Summary::new(label, listed);
    let mut errors = LineErrors::default();
    for line in epd::reader::read_lines_from(input) {
        let line = line?;
        if let Some(rec) = errors.line(
            label,
            line.number,
            &line.text,
            line.record,
            line.diagnostics,
        ) {
            summary.add(&rec);
            each(&rec);
        }
    }
    Ok((summary, errors.finish()))
}

/// One run's verdict on a position and the move it played.
pub type Verdict = Option<(Option<bool>, Option<String>)>;

/// The positions of the first run compared with the other runs by id
/// (each run's first record of an id), holding the first `COMPARED`
/// records of the first run.
#[derive(Debug, Clone)]
pub struct Compare {
    runs: usize,
    at: HashMap<String, usize>,
    verdicts: Vec<Vec<Verdict>>,
    rows: Vec<(usize, String, String)>,
    held: usize,
    /// Records of the first run past the ones held, not compared.
    pub not_compared: u64,
}

impl Compare {
    /// A comparison of `runs` runs holding `held` records of the first.
    pub fn new(runs: usize, held: usize) -> Compare {
        Compare {
            runs,
            at: HashMap::new(),
            verdicts: Vec::new(),
            rows: Vec::new(),
            held,
            not_compared: 0,
        }
    }

    /// Adds a record of run `run` (0-based; the first run's records first).
    pub fn add(&mut self, run: usize, r: &ResultRecord) {
        let verdict = Some((r.solved, r.pm.clone()));
        if run == 0 {
            if self.rows.len() >= self.held {
                self.not_compared += 1;
                return;
            }
            let next = self.verdicts.len();
            let e = *self.at.entry(r.id.clone()).or_insert(next);
            if e == next {
                self.verdicts.push(vec![None; self.runs]);
                self.verdicts[e][0] = verdict;
            }
            self.rows.push((e, r.id.clone(), r.bm.join(" ")));
        } else if let Some(&e) = self.at.get(&r.id)
            && self.verdicts[e][run].is_none()
        {
            self.verdicts[e][run] = verdict;
        }
    }

    /// The first run's positions where the runs' verdicts differ: id, best
    /// moves, and each run's verdict.
    pub fn differing(&self) -> impl Iterator<Item = (&str, &str, &[Verdict])> {
        self.rows.iter().filter_map(|(e, id, bm)| {
            let v = &self.verdicts[*e];
            let first = v[0].as_ref().and_then(|v| v.0);
            let differ = v.iter().any(|x| x.as_ref().and_then(|x| x.0) != first);
            differ.then_some((id.as_str(), bm.as_str(), v.as_slice()))
        })
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

    /// A run streamed and tallied says what the run read whole says; with
    /// a bound on the names listed, the rest are counted.
    #[test]
    fn summaries_stream_and_bound_what_they_list() {
        let whole = Summary::of_run(&Run::parse("a", A));
        let (read, errors) = read_summary("a", A.as_bytes(), usize::MAX, |_| {}).expect("reads");
        assert!(errors.is_empty());
        assert_eq!((read.solved, read.judged, read.records), (1, 3, 3));
        assert_eq!(read.suites(), whole.suites());
        assert_eq!(read.missed, whole.missed);
        assert_eq!(read.solution_steps(), vec![(5, 1)]);
        let (one, _) = read_summary("a", A.as_bytes(), 1, |_| {}).expect("reads");
        assert_eq!(one.suites(), &[("T".to_string(), 1, 2)]);
        assert_eq!(one.other_suites, Some((0, 1)));
        assert_eq!((one.missed.len(), one.missed_count), (1, 2));
        // Past EXACT_TIMES solution times, three significant digits.
        let mut many = Summary::new("m", 1);
        let mut rec = Run::parse("a", A).records[0].clone();
        for t in 0..=EXACT_TIMES as u64 {
            rec.solution_ms = Some(123_456 + t % 2);
            many.add(&rec);
        }
        assert_eq!(many.solution_steps(), vec![(123_000, EXACT_TIMES + 1)]);
    }

    #[test]
    fn runs_are_compared_on_the_first_records_held() {
        let a = Run::parse("a", A);
        let b = Run::parse("b", &A.replace("solved 0", "solved 1"));
        let mut c = Compare::new(2, 2);
        for (i, run) in [&a, &b].into_iter().enumerate() {
            for r in &run.records {
                c.add(i, r);
            }
        }
        let ids: Vec<&str> = c.differing().map(|(id, _, _)| id).collect();
        assert_eq!(ids, ["T.2"]);
        assert_eq!(c.not_compared, 1);
    }
}
