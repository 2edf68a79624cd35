//! Gastric-style reports (EPD spec 3.3) over result files of `epd solve`
//! (or any EPD file with `pm` and `bm`/`am`): a text summary and a
//! self-contained HTML page with inline SVG charts, several runs side by side.

use std::collections::BTreeMap;
use std::fmt::Write as _;

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
    /// Reads a result file's text; lines that are not EPD are skipped.
    pub fn parse(label: &str, text: &str) -> Run {
        let mut records = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let (Some(rec), _) = epd::read_line(t, 1) else {
                continue;
            };
            let id = first(&rec, "id").unwrap_or_else(|| format!("#{}", n + 1));
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
                        .map(|s| s * 1000)
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
        Run {
            label: label.to_string(),
            records,
        }
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
                e.0 += p;
                e.1 += 100;
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
            return pts.trim().parse().ok();
        }
    }
    any.then_some(0)
}

/// The text summary.
pub fn text_summary(runs: &[Run]) -> String {
    let mut s = String::new();
    for run in runs {
        let (solved, judged) = run.score();
        let nodes: u64 = run.records.iter().filter_map(|r| r.nodes).sum();
        let ms: u64 = run.records.iter().filter_map(|r| r.time_ms).sum();
        let _ = writeln!(
            s,
            "{}: {solved}/{judged} solved ({:.1}%), {} nodes, {:.1} s",
            run.label,
            pct(solved, judged),
            nodes,
            ms as f64 / 1000.0
        );
        for (suite, a, b) in run.suites() {
            let _ = writeln!(s, "  {suite:<32} {a:>5}/{b:<5} {:>5.1}%", pct(a, b));
        }
        let themes = run.sts_themes();
        if !themes.is_empty() {
            let (a, b) = themes.iter().fold((0, 0), |(x, y), t| (x + t.1, y + t.2));
            let _ = writeln!(s, "  STS score {a}/{b}");
        }
        let missed: Vec<&str> = run
            .records
            .iter()
            .filter(|r| r.solved == Some(false))
            .map(|r| r.id.as_str())
            .collect();
        if !missed.is_empty() {
            let shown = missed
                .iter()
                .take(40)
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            let more = if missed.len() > 40 {
                format!(" … (+{})", missed.len() - 40)
            } else {
                String::new()
            };
            let _ = writeln!(s, "  missed: {shown}{more}");
        }
    }
    s
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Solutions against time: a cumulative step curve per run on a log time axis.
fn cumulative_svg(runs: &[Run]) -> String {
    let (w, h, ml, mb, mt, mr) = (640.0, 320.0, 50.0, 40.0, 10.0, 10.0);
    let max_n = runs
        .iter()
        .map(|r| r.records.len())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let times: Vec<u64> = runs
        .iter()
        .flat_map(|r| r.records.iter().filter_map(|x| x.solution_ms))
        .collect();
    let tmax = times.iter().copied().max().unwrap_or(1000).max(10) as f64;
    let (lmin, lmax) = (0.0f64, tmax.log10().ceil().max(1.0));
    let x = |ms: f64| ml + (ms.max(1.0).log10() - lmin) / (lmax - lmin) * (w - ml - mr);
    let y = |n: f64| h - mb - n / max_n * (h - mb - mt);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="cumulative" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = write!(
        s,
        r##"<rect x="{ml}" y="{mt}" width="{}" height="{}" fill="#fafafa" stroke="#ccc"/>"##,
        w - ml - mr,
        h - mb - mt
    );
    for d in 0..=(lmax as i32) {
        let ms = 10f64.powi(d);
        let label = if ms >= 1000.0 {
            format!("{}s", ms / 1000.0)
        } else {
            format!("{ms}ms")
        };
        let _ = write!(
            s,
            r##"<line x1="{0}" x2="{0}" y1="{mt}" y2="{1}" stroke="#ddd"/><text x="{0}" y="{2}" font-size="11" text-anchor="middle">{label}</text>"##,
            x(ms),
            h - mb,
            h - mb + 15.0
        );
    }
    for k in 0..=4 {
        let n = max_n * f64::from(k) / 4.0;
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="end">{:.0}</text>"##,
            ml - 4.0,
            y(n) + 4.0,
            n
        );
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" font-size="12" text-anchor="middle">time to solution</text>"#,
        (w + ml) / 2.0,
        h - 5.0
    );
    for (i, run) in runs.iter().enumerate() {
        let mut t: Vec<u64> = run
            .records
            .iter()
            .filter(|r| r.solved == Some(true))
            .filter_map(|r| r.solution_ms)
            .collect();
        t.sort_unstable();
        let mut pts = format!("{:.1},{:.1}", x(1.0), y(0.0));
        for (k, ms) in t.iter().enumerate() {
            let _ = write!(
                pts,
                " {:.1},{:.1} {:.1},{:.1}",
                x(*ms as f64),
                y(k as f64),
                x(*ms as f64),
                y(k as f64 + 1.0)
            );
        }
        let _ = write!(pts, " {:.1},{:.1}", x(tmax), y(t.len() as f64));
        let _ = write!(
            s,
            r#"<polyline class="series" fill="none" stroke="{}" stroke-width="2" points="{pts}"/>"#,
            COLORS[i % COLORS.len()]
        );
    }
    s.push_str("</svg>");
    s
}

/// A grouped histogram over log10 buckets.
fn histogram_svg(
    id: &str,
    runs: &[Run],
    value: impl Fn(&ResultRecord) -> Option<u64>,
    unit: &str,
) -> String {
    let (w, h, ml, mb, mt) = (640.0, 260.0, 50.0, 40.0, 10.0);
    let bucket = |v: u64| (v.max(1) as f64).log10().floor() as usize;
    let nb = runs
        .iter()
        .flat_map(|r| r.records.iter().filter_map(&value))
        .map(bucket)
        .max()
        .unwrap_or(0)
        + 1;
    let counts: Vec<Vec<usize>> = runs
        .iter()
        .map(|r| {
            let mut c = vec![0; nb];
            for v in r.records.iter().filter_map(&value) {
                c[bucket(v)] += 1;
            }
            c
        })
        .collect();
    let max_c = counts.iter().flatten().copied().max().unwrap_or(1).max(1) as f64;
    let gw = (w - ml - 10.0) / nb as f64;
    let bw = (gw * 0.8) / runs.len().max(1) as f64;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{id}" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    for (b, label) in (0..nb).map(|b| (b, format!("≥1e{b}{unit}"))) {
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">{label}</text>"#,
            ml + gw * (b as f64 + 0.5),
            h - mb + 15.0
        );
    }
    for k in 0..=4 {
        let n = max_c * f64::from(k) / 4.0;
        let yy = h - mb - n / max_c * (h - mb - mt);
        let _ = write!(
            s,
            r##"<line x1="{ml}" x2="{w}" y1="{yy:.1}" y2="{yy:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="11" text-anchor="end">{n:.0}</text>"##,
            ml - 4.0,
            yy + 4.0
        );
    }
    for (i, c) in counts.iter().enumerate() {
        for (b, &n) in c.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let bh = n as f64 / max_c * (h - mb - mt);
            let _ = write!(
                s,
                r#"<rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {n}</title></rect>"#,
                ml + gw * b as f64 + gw * 0.1 + bw * i as f64,
                h - mb - bh,
                bw,
                bh,
                COLORS[i % COLORS.len()],
                esc(&runs[i].label)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// The HTML report: self-contained, no scripts or network.
pub fn html_report(title: &str, runs: &[Run]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{t}</title><style>
body{{font-family:sans-serif;margin:2em;color:#222}} table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}} th{{background:#f0f0f0}} td.l,th.l{{text-align:left}}
.ok{{color:#2ca02c}} .miss{{color:#d62728}} .key span{{display:inline-block;width:1em;height:1em;margin:0 4px 0 12px;vertical-align:middle}}
</style></head><body><h1>{t}</h1>"#,
        t = esc(title)
    );
    s.push_str(r#"<p class="key">"#);
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(
            s,
            r#"<span style="background:{}"></span>{}"#,
            COLORS[i % COLORS.len()],
            esc(&r.label)
        );
    }
    s.push_str("</p><h2>Solved per suite</h2><table id=\"suites\"><tr><th class=\"l\">suite</th>");
    for r in runs {
        let _ = write!(s, "<th>{}</th>", esc(&r.label));
    }
    s.push_str("</tr>");
    let mut suites: Vec<String> = Vec::new();
    for r in runs {
        for (su, _, _) in r.suites() {
            if !suites.contains(&su) {
                suites.push(su);
            }
        }
    }
    for su in suites.iter().map(Some).chain([None]) {
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td>",
            su.map_or("<b>total</b>".to_string(), |x| esc(x))
        );
        for r in runs {
            let (a, b) = match su {
                Some(su) => r
                    .suites()
                    .into_iter()
                    .find(|x| &x.0 == su)
                    .map_or((0, 0), |x| (x.1, x.2)),
                None => r.score(),
            };
            let _ = write!(s, "<td>{a}/{b} ({:.1}%)</td>", pct(a, b));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    if runs.iter().any(|r| !r.sts_themes().is_empty()) {
        s.push_str("<h2>STS themes</h2><table id=\"sts\"><tr><th class=\"l\">theme</th>");
        for r in runs {
            let _ = write!(s, "<th>{}</th>", esc(&r.label));
        }
        s.push_str("</tr>");
        let mut themes: Vec<String> = Vec::new();
        for r in runs {
            for (t, _, _) in r.sts_themes() {
                if !themes.contains(&t) {
                    themes.push(t);
                }
            }
        }
        for t in &themes {
            let _ = write!(s, "<tr><td class=\"l\">{}</td>", esc(t));
            for r in runs {
                let (a, b) = r
                    .sts_themes()
                    .into_iter()
                    .find(|x| &x.0 == t)
                    .map_or((0, 0), |x| (x.1, x.2));
                let _ = write!(s, "<td>{a}/{b}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    s.push_str("<h2>Solutions against time</h2>");
    s.push_str(&cumulative_svg(runs));
    s.push_str("<h2>Node counts</h2>");
    s.push_str(&histogram_svg("nodes", runs, |r| r.nodes, ""));
    s.push_str("<h2>Time per position</h2>");
    s.push_str(&histogram_svg("times", runs, |r| r.time_ms, "ms"));
    // Side by side: every position where the runs disagree, then the misses.
    if runs.len() > 1 {
        s.push_str("<h2>Where the runs differ</h2><table id=\"diff\"><tr><th class=\"l\">id</th><th class=\"l\">bm</th>");
        for r in runs {
            let _ = write!(s, "<th>{}</th>", esc(&r.label));
        }
        s.push_str("</tr>");
        for rec in &runs[0].records {
            let verdicts: Vec<Option<&ResultRecord>> = runs
                .iter()
                .map(|r| r.records.iter().find(|x| x.id == rec.id))
                .collect();
            let first = verdicts[0].and_then(|v| v.solved);
            if verdicts.iter().all(|v| v.and_then(|v| v.solved) == first) {
                continue;
            }
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>",
                esc(&rec.id),
                esc(&rec.bm.join(" "))
            );
            for v in verdicts {
                let cell = match v {
                    Some(v) if v.solved == Some(true) => format!(
                        "<span class=\"ok\">✓ {}</span>",
                        esc(v.pm.as_deref().unwrap_or(""))
                    ),
                    Some(v) => format!(
                        "<span class=\"miss\">✗ {}</span>",
                        esc(v.pm.as_deref().unwrap_or(""))
                    ),
                    None => "—".into(),
                };
                let _ = write!(s, "<td>{cell}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    for r in runs {
        let _ = write!(
            s,
            "<h2>Missed by {}</h2><table class=\"missed\"><tr><th class=\"l\">id</th><th class=\"l\">bm</th><th class=\"l\">am</th><th class=\"l\">pm</th><th>nodes</th><th>ms</th></tr>",
            esc(&r.label)
        );
        for rec in r.records.iter().filter(|x| x.solved == Some(false)) {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&rec.id),
                esc(&rec.bm.join(" ")),
                esc(&rec.am.join(" ")),
                esc(rec.pm.as_deref().unwrap_or("")),
                rec.nodes.map_or(String::new(), |n| n.to_string()),
                rec.time_ms.map_or(String::new(), |n| n.to_string())
            );
        }
        s.push_str("</table>");
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.1"; pm Ra8+; acn 100; acms 20; solved 1; sltm 5;
6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.2"; pm Kf2; acn 5000; acms 900; solved 0;
6k1/8/8/8/8/8/8/R5K1 w - - am Kf2; id "U.1"; pm Kf2; acn 10; acs 1;
"#;

    #[test]
    fn summarises_runs() {
        let run = Run::parse("a", A);
        assert_eq!(run.score(), (1, 3));
        assert_eq!(run.suites(), vec![("T".into(), 1, 2), ("U".into(), 0, 1)]);
        assert_eq!(run.records[2].time_ms, Some(1000));
        assert_eq!(run.records[0].solution_ms, Some(5));
        let text = text_summary(std::slice::from_ref(&run));
        assert!(text.contains("a: 1/3 solved (33.3%)"), "{text}");
        assert!(text.contains("missed: T.2 U.1"), "{text}");
        let html = html_report(
            "t",
            &[
                run.clone(),
                Run::parse("b", &A.replace("solved 0", "solved 1")),
            ],
        );
        assert!(
            html.contains("<svg")
                && html.contains("id=\"cumulative\"")
                && html.contains("id=\"diff\"")
        );
        assert!(
            !html.contains("src=") && !html.contains("href="),
            "no external resources"
        );
        assert!(!html.contains("<script"));
    }

    #[test]
    fn scores_sts_themes() {
        let line = r#"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; c0 "f5=100, Bf2=46, Bg4=23"; pm Bf2;"#;
        let run = Run::parse("x", line);
        assert_eq!(run.records[0].sts_points, Some(46));
        assert_eq!(run.sts_themes(), vec![("Undermine".into(), 46, 100)]);
    }
}
