//! Gastric-style reports (EPD spec 3.3) over result files of `epd solve`:
//! a text summary and a self-contained HTML page with inline SVG charts,
//! several runs side by side. The runs are read by
//! [`gamerec_engine::results`].

use std::collections::{HashMap, HashSet};

use gamerec_engine::results::{COMPARED, Compare, Run, Summary};

/// The text summary.
pub fn text_summary(runs: &[Run]) -> String {
    summary_text(&runs.iter().map(Summary::of_run).collect::<Vec<_>>())
}

/// The text summary of runs tallied record by record (suites past the
/// listed ones in one `(other suites)` line).
pub fn summary_text(runs: &[Summary]) -> String {
    let mut s = String::new();
    for run in runs {
        let (solved, judged) = (run.solved, run.judged);
        putln!(
            s,
            "{}: {solved}/{judged} solved ({:.1}%), {} nodes, {:.1} s",
            run.label,
            pct(solved, judged),
            run.nodes,
            run.ms as f64 / 1000.0
        );
        let other = run.other_suites.map(|(a, b)| ("(other suites)", a, b));
        for (suite, a, b) in run
            .suites()
            .iter()
            .map(|(su, a, b)| (su.as_str(), *a, *b))
            .chain(other)
        {
            putln!(s, "  {suite:<32} {a:>5}/{b:<5} {:>5.1}%", pct(a, b));
        }
        if run.has_sts() {
            let (a, b) = run
                .sts_themes()
                .map(|(_, a, b)| (a, b))
                .chain(run.other_themes)
                .fold((0u32, 0u32), |(x, y), t| {
                    (x.saturating_add(t.0), y.saturating_add(t.1))
                });
            putln!(s, "  STS score {a}/{b}");
        }
        if run.missed_count > 0 {
            let shown = run
                .missed
                .iter()
                .take(40)
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let more = if run.missed_count > 40 {
                format!(" … (+{})", run.missed_count - 40)
            } else {
                String::new()
            };
            putln!(s, "  missed: {shown}{more}");
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

/// Axis ticks at round values: a step of 1, 2 or 5 × 10^k (at least
/// `min_step`) giving about `want` intervals over `0..=max`, and the axis
/// top (a multiple of the step at or above `max`). Every tick is a label
/// that shows exactly its value.
pub fn nice_ticks(max: f64, want: u32, min_step: f64) -> (f64, Vec<f64>) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = (max / f64::from(want.max(1))).max(min_step);
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude)
        .max(min_step);
    let intervals = (max / step - 1e-9).ceil().max(1.0) as u32;
    let ticks: Vec<f64> = (0..=intervals).map(|k| f64::from(k) * step).collect();
    (f64::from(intervals) * step, ticks)
}

/// A tick value as text: no trailing zeros (`0.5`, `2`, `150`).
fn tick_label(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Chart geometry: the SVG fills its container's width (`width="100%"`)
/// and keeps its proportions through the view box.
const CHART_W: f64 = 720.0;

/// Solutions against time: a cumulative step curve per run on a log time
/// axis (ticks at powers of ten), counts on a linear axis with round ticks.
fn cumulative_svg(runs: &[Summary]) -> String {
    let (w, h, ml, mb, mt, mr) = (CHART_W, 340.0, 56.0, 44.0, 12.0, 16.0);
    let solved: Vec<Vec<(u64, usize)>> = runs.iter().map(Summary::solution_steps).collect();
    let counts: Vec<usize> = solved
        .iter()
        .map(|t| t.iter().map(|&(_, n)| n).sum())
        .collect();
    let most = counts.iter().copied().max().unwrap_or(0);
    let (top, yticks) = nice_ticks(most as f64, 5, 1.0);
    let tmax = solved
        .iter()
        .flatten()
        .map(|&(t, _)| t)
        .max()
        .unwrap_or(1000)
        .max(10) as f64;
    // Times below 1 ms (0 included) are drawn at the axis' left end, 1 ms.
    let lmax = tmax.log10().ceil().max(1.0);
    let x = |ms: f64| ml + ms.max(1.0).log10() / lmax * (w - ml - mr);
    let y = |n: f64| h - mb - n / top * (h - mb - mt);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="cumulative" width="100%" viewBox="0 0 {w} {h}">"#
    );
    put!(
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
        put!(
            s,
            r##"<line class="tick x" x1="{0:.1}" x2="{0:.1}" y1="{mt}" y2="{1}" stroke="#ddd"/><text class="tick-label x" data-value="{ms}" x="{0:.1}" y="{2}" font-size="12" text-anchor="middle">{label}</text>"##,
            x(ms),
            h - mb + 6.0,
            h - mb + 19.0
        );
    }
    for &n in &yticks {
        put!(
            s,
            r##"<line class="tick y" x1="{x1}" x2="{x2}" y1="{yy:.1}" y2="{yy:.1}" stroke="#e4e4e4"/><text class="tick-label y" data-value="{n}" x="{tx}" y="{ty:.1}" font-size="12" text-anchor="end">{label}</text>"##,
            x1 = ml - 5.0,
            x2 = w - mr,
            yy = y(n),
            tx = ml - 8.0,
            ty = y(n) + 4.0,
            label = tick_label(n)
        );
    }
    put!(
        s,
        r#"<text x="{}" y="{}" font-size="13" text-anchor="middle">time to solution (log scale)</text><text x="14" y="{}" font-size="13" text-anchor="middle" transform="rotate(-90 14 {})">positions solved</text>"#,
        (w + ml) / 2.0,
        h - 6.0,
        (h - mb + mt) / 2.0,
        (h - mb + mt) / 2.0
    );
    for (i, t) in solved.iter().enumerate() {
        let mut pts = format!("{:.1},{:.1}", x(1.0), y(0.0));
        let mut k = 0;
        for &(ms, n) in t {
            put!(
                pts,
                " {:.1},{:.1} {:.1},{:.1}",
                x(ms as f64),
                y(k as f64),
                x(ms as f64),
                y((k + n) as f64)
            );
            k += n;
        }
        put!(pts, " {:.1},{:.1}", x(tmax), y(counts[i] as f64));
        put!(
            s,
            r#"<polyline class="series" fill="none" stroke="{}" stroke-width="2.5" points="{pts}"/>"#,
            COLORS[i % COLORS.len()]
        );
    }
    s.push_str("</svg>");
    s
}

pub use gamerec_engine::results::log_bucket;

/// A bucket's label: `0`, then half-open decades `1–10`, `10–100`,
/// `100–1k`, `1k–10k`, … (a bar counts values from its lower bound up to,
/// not including, its upper bound).
pub fn bucket_label(b: usize, unit: &str) -> String {
    fn short(exp: u32) -> String {
        let (base, suffix) = match exp {
            0..=2 => (10u64.pow(exp), ""),
            3..=5 => (10u64.pow(exp - 3), "k"),
            6..=8 => (10u64.pow(exp - 6), "M"),
            9..=11 => (10u64.pow(exp - 9), "G"),
            _ => (10u64.pow(exp - 12), "T"),
        };
        format!("{base}{suffix}")
    }
    if b == 0 {
        return format!("0{unit}");
    }
    let exp = (b - 1) as u32;
    format!("{}–{}{unit}", short(exp), short(exp + 1))
}

/// A grouped histogram over decade buckets (zero has its own bucket), or
/// `None` when no run has a value.
fn histogram_svg(
    id: &str,
    runs: &[Summary],
    buckets: impl Fn(&Summary) -> &[usize; 21],
    unit: &str,
    caption: &str,
) -> Option<String> {
    let (w, h, ml, mb, mt, mr) = (CHART_W, 280.0, 56.0, 44.0, 12.0, 16.0);
    let used = |b: usize| runs.iter().any(|r| buckets(r)[b] > 0);
    let lo = (0..21).find(|&b| used(b))?;
    let hi = (0..21).rev().find(|&b| used(b))?;
    let nb = hi - lo + 1;
    let counts: Vec<Vec<usize>> = runs.iter().map(|r| buckets(r)[lo..=hi].to_vec()).collect();
    let max_c = counts.iter().flatten().copied().max().unwrap_or(0);
    let (top, yticks) = nice_ticks(max_c as f64, 5, 1.0);
    let y = |n: f64| h - mb - n / top * (h - mb - mt);
    let gw = (w - ml - mr) / nb as f64;
    let bw = (gw * 0.8) / runs.len().max(1) as f64;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{id}" width="100%" viewBox="0 0 {w} {h}">"#
    );
    for &n in &yticks {
        put!(
            s,
            r##"<line class="tick y" x1="{x1}" x2="{x2}" y1="{yy:.1}" y2="{yy:.1}" stroke="#e4e4e4"/><text class="tick-label y" data-value="{n}" x="{tx}" y="{ty:.1}" font-size="12" text-anchor="end">{label}</text>"##,
            x1 = ml - 5.0,
            x2 = w - mr,
            yy = y(n),
            tx = ml - 8.0,
            ty = y(n) + 4.0,
            label = tick_label(n)
        );
    }
    for b in 0..nb {
        put!(
            s,
            r#"<text class="bucket" x="{:.1}" y="{}" font-size="12" text-anchor="middle">{}</text>"#,
            ml + gw * (b as f64 + 0.5),
            h - mb + 17.0,
            bucket_label(b + lo, unit)
        );
    }
    put!(
        s,
        r#"<text x="{}" y="{}" font-size="13" text-anchor="middle">{}</text>"#,
        (w + ml) / 2.0,
        h - 6.0,
        esc(caption)
    );
    for (i, c) in counts.iter().enumerate() {
        for (b, &n) in c.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let bh = n as f64 / top * (h - mb - mt);
            put!(
                s,
                r#"<rect class="bar" data-bucket="{}" data-count="{n}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {n}</title></rect>"#,
                b + lo,
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
    Some(s)
}

/// The HTML report: self-contained, no scripts or network.
pub fn html_report(title: &str, runs: &[Run]) -> String {
    let summaries: Vec<Summary> = runs.iter().map(Summary::of_run).collect();
    let compare = (runs.len() > 1).then(|| {
        let mut c = Compare::new(runs.len(), usize::MAX);
        for (i, run) in runs.iter().enumerate() {
            for r in &run.records {
                c.add(i, r);
            }
        }
        c
    });
    html_page(title, &summaries, compare.as_ref(), usize::MAX)
}

/// The HTML report of runs tallied record by record: each table lists at
/// most `listed` positions and counts the rest in a last row.
pub fn html_page(
    title: &str,
    runs: &[Summary],
    compare: Option<&Compare>,
    listed: usize,
) -> String {
    let mut s = String::new();
    put!(
        s,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{t}</title><style>
body{{font-family:"DejaVu Sans",sans-serif;margin:1.5em 2em;color:#222}} table{{border-collapse:collapse;margin:1em 0}}
.charts{{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:0 2.5em}} .charts svg{{display:block;max-width:100%;height:auto}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}} th{{background:#f0f0f0}} td.l,th.l{{text-align:left}}
.ok{{color:#2ca02c}} .miss{{color:#d62728}} .key span{{display:inline-block;width:1em;height:1em;margin:0 4px 0 12px;vertical-align:middle}}
</style></head><body><h1>{t}</h1>"#,
        t = esc(title)
    );
    s.push_str(r#"<p class="key">"#);
    for (i, r) in runs.iter().enumerate() {
        put!(
            s,
            r#"<span style="background:{}"></span>{}"#,
            COLORS[i % COLORS.len()],
            esc(&r.label)
        );
    }
    s.push_str("</p><h2>Solved per suite</h2><table id=\"suites\"><tr><th class=\"l\">suite</th>");
    for r in runs {
        put!(s, "<th>{}</th>", esc(&r.label));
    }
    s.push_str("</tr>");
    // Each run's suites looked up in a map (a run of many suites makes a
    // report in linear time).
    let by_suite: Vec<HashMap<&str, (usize, usize)>> = runs
        .iter()
        .map(|r| {
            r.suites()
                .iter()
                .map(|(su, a, b)| (su.as_str(), (*a, *b)))
                .collect()
        })
        .collect();
    let mut suites: Vec<&str> = Vec::new();
    let mut listed_suites = HashSet::new();
    for (su, _, _) in runs.iter().flat_map(|r| r.suites()) {
        if listed_suites.insert(su.as_str()) {
            suites.push(su);
        }
    }
    let other = runs.iter().any(|r| r.other_suites.is_some());
    for row in suites
        .iter()
        .map(|su| Row::Suite(su))
        .chain(other.then_some(Row::Other))
        .chain([Row::Total])
    {
        put!(
            s,
            "<tr><td class=\"l\">{}</td>",
            match row {
                Row::Suite(x) => esc(x),
                Row::Other => "<i>other suites</i>".to_string(),
                Row::Total => "<b>total</b>".to_string(),
            }
        );
        for (r, by_suite) in runs.iter().zip(&by_suite) {
            let (a, b) = match row {
                Row::Suite(su) => by_suite.get(su).copied().unwrap_or((0, 0)),
                Row::Other => r.other_suites.unwrap_or((0, 0)),
                Row::Total => (r.solved, r.judged),
            };
            put!(s, "<td>{a}/{b} ({:.1}%)</td>", pct(a, b));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    if runs.iter().any(Summary::has_sts) {
        s.push_str("<h2>STS themes</h2><table id=\"sts\"><tr><th class=\"l\">theme</th>");
        for r in runs {
            put!(s, "<th>{}</th>", esc(&r.label));
        }
        s.push_str("</tr>");
        let by_theme: Vec<HashMap<&str, (u32, u32)>> = runs
            .iter()
            .map(|r| r.sts_themes().map(|(t, a, b)| (t, (a, b))).collect())
            .collect();
        let mut themes: Vec<&str> = Vec::new();
        let mut listed_themes = HashSet::new();
        for (t, _, _) in runs.iter().flat_map(Summary::sts_themes) {
            if listed_themes.insert(t) {
                themes.push(t);
            }
        }
        let other = runs.iter().any(|r| r.other_themes.is_some());
        for t in themes.iter().map(|t| Some(*t)).chain(other.then_some(None)) {
            let name = t.map_or("<i>other themes</i>".to_string(), esc);
            put!(s, "<tr><td class=\"l\">{name}</td>");
            for (r, by_theme) in runs.iter().zip(&by_theme) {
                let (a, b) = match t {
                    Some(t) => by_theme.get(t).copied().unwrap_or((0, 0)),
                    None => r.other_themes.unwrap_or((0, 0)),
                };
                put!(s, "<td>{a}/{b}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    s.push_str("<div class=\"charts\">");
    if runs.iter().any(|r| r.solved > 0) {
        s.push_str("<section><h2>Solutions against time</h2>");
        s.push_str(&cumulative_svg(runs));
        s.push_str("</section>");
    }
    let node_caption =
        "nodes searched per position (bars: from the lower bound up to, not including, the upper)";
    if let Some(svg) = histogram_svg("nodes", runs, |r| &r.node_buckets, "", node_caption) {
        s.push_str("<section><h2>Node counts</h2>");
        s.push_str(&svg);
        s.push_str("</section>");
    }
    let time_caption =
        "time per position (bars: from the lower bound up to, not including, the upper)";
    if let Some(svg) = histogram_svg("times", runs, |r| &r.time_buckets, " ms", time_caption) {
        s.push_str("<section><h2>Time per position</h2>");
        s.push_str(&svg);
        s.push_str("</section>");
    }
    s.push_str("</div>");
    // Side by side: every position where the runs disagree, then the misses.
    if let Some(compare) = compare.filter(|_| runs.len() > 1) {
        let mut rows = String::new();
        let mut differ = 0usize;
        for (id, bm, verdicts) in compare.differing() {
            differ += 1;
            if differ > listed {
                continue;
            }
            put!(
                rows,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>",
                esc(id),
                esc(bm)
            );
            for v in verdicts {
                let cell = match v {
                    Some((Some(true), pm)) => format!(
                        "<span class=\"ok\">✓ {}</span>",
                        esc(pm.as_deref().unwrap_or(""))
                    ),
                    Some((_, pm)) => format!(
                        "<span class=\"miss\">✗ {}</span>",
                        esc(pm.as_deref().unwrap_or(""))
                    ),
                    None => "—".into(),
                };
                put!(rows, "<td>{cell}</td>");
            }
            rows.push_str("</tr>");
        }
        if differ > listed {
            put!(
                rows,
                "<tr class=\"more\"><td class=\"l\" colspan=\"{}\">and {} more</td></tr>",
                runs.len() + 2,
                differ - listed
            );
        }
        s.push_str("<h2>Where the runs differ</h2>");
        if rows.is_empty() {
            s.push_str("<p id=\"diff-none\">The runs agree on every position.</p>");
        } else {
            s.push_str("<table id=\"diff\"><tr><th class=\"l\">id</th><th class=\"l\">bm</th>");
            for r in runs {
                put!(s, "<th>{}</th>", esc(&r.label));
            }
            s.push_str("</tr>");
            s.push_str(&rows);
            s.push_str("</table>");
        }
        if compare.not_compared > 0 {
            put!(
                s,
                "<p class=\"not-compared\">Compared: the first {} positions of {}; {} more not compared.</p>",
                COMPARED,
                esc(&runs[0].label),
                compare.not_compared
            );
        }
    }
    for r in runs {
        if r.missed_count == 0 {
            put!(
                s,
                "<h2>Missed by {}</h2><p class=\"none-missed\">No position missed.</p>",
                esc(&r.label)
            );
            continue;
        }
        put!(
            s,
            "<h2>Missed by {}</h2><table class=\"missed\"><tr><th class=\"l\">id</th><th class=\"l\">bm</th><th class=\"l\">am</th><th class=\"l\">pm</th><th>nodes</th><th>ms</th></tr>",
            esc(&r.label)
        );
        for rec in r.missed.iter().take(listed) {
            put!(
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
        if r.missed_count > r.missed.len().min(listed) {
            put!(
                s,
                "<tr class=\"more\"><td class=\"l\" colspan=\"6\">and {} more</td></tr>",
                r.missed_count - r.missed.len().min(listed)
            );
        }
        s.push_str("</table>");
    }
    s.push_str("</body></html>\n");
    s
}

/// A row of the suites table.
#[derive(Clone, Copy)]
enum Row<'a> {
    Suite(&'a str),
    Other,
    Total,
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamerec_engine::results::ResultRecord;

    const A: &str = r#"6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.1"; pm Ra8+; acn 100; acms 20; solved 1; sltm 5;
6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id "T.2"; pm Kf2; acn 5000; acms 900; solved 0;
6k1/8/8/8/8/8/8/R5K1 w - - am Kf2; id "U.1"; pm Kf2; acn 10; acs 1;
"#;

    /// Seen while writing the `engine_lines` fuzz target, confirmed through
    /// it: nodes and times of a run's records, each a valid EPD integer,
    /// overflowed when summed (a panic in `gamerec report`).
    #[test]
    fn sums_of_large_numbers_saturate() {
        let line = "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8; pm Ra8; acn 9223372036854775807; acms 9223372036854775807;\n";
        let run = Run::parse("big", &line.repeat(3));
        assert_eq!(run.records.len(), 3);
        let text = text_summary(std::slice::from_ref(&run));
        assert!(text.contains(&format!("{} nodes", u64::MAX)), "{text}");
        let _ = html_report("big", &[run]);
    }

    /// Each suite and STS theme was looked up by working out every run's
    /// suites again, and each record by searching every run for its id:
    /// `gamerec report` of two runs of 5,000 suites took 28 s.
    #[test]
    fn many_suites_and_records_are_reported_in_linear_time() {
        const N: usize = 20_000;
        gamerec_testkit::finishes("report", 30, || {
            let run = |label: &str, solved: bool| Run {
                label: label.into(),
                records: (0..N)
                    .map(|i| ResultRecord {
                        id: format!("STS(v1.0) T{i}.1"),
                        suite: format!("STS(v1.0) T{i}"),
                        solved: Some(solved == (i % 2 == 0)),
                        pm: Some("e4".into()),
                        bm: vec!["e4".into()],
                        am: Vec::new(),
                        nodes: Some(1),
                        time_ms: Some(1),
                        solution_ms: Some(1),
                        sts_points: Some(10),
                    })
                    .collect(),
            };
            let html = html_report("t", &[run("a", true), run("b", false)]);
            assert_eq!(
                html.matches("<tr><td class=\"l\">STS(v1.0) T").count(),
                3 * N
            );
        });
    }

    #[test]
    fn summarises_runs() {
        let run = Run::parse("a", A);
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
    fn ticks_are_round_and_cover_the_data() {
        assert_eq!(
            nice_ticks(7.0, 4, 1.0),
            (8.0, vec![0.0, 2.0, 4.0, 6.0, 8.0])
        );
        assert_eq!(
            nice_ticks(10.0, 5, 1.0).1,
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(nice_ticks(3.0, 5, 1.0).1, vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(nice_ticks(0.0, 5, 1.0), (1.0, vec![0.0, 1.0]));
        assert_eq!(nice_ticks(130.0, 5, 1.0).1, vec![0.0, 50.0, 100.0, 150.0]);
        for max in [1.0, 2.5, 7.0, 9.9, 40.0, 123.0, 999.0, 12345.0] {
            let (top, ticks) = nice_ticks(max, 5, 1.0);
            assert!(top >= max && ticks.len() >= 2 && ticks.len() <= 12, "{max}");
            let step = ticks[1];
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0].iter().any(|m| (m - mantissa).abs() < 1e-9),
                "{step}"
            );
            assert_eq!(*ticks.last().unwrap(), top);
        }
    }

    #[test]
    fn zero_has_its_own_bucket() {
        assert_eq!(log_bucket(0), 0);
        assert_eq!(log_bucket(1), 1);
        assert_eq!(log_bucket(9), 1);
        assert_eq!(log_bucket(10), 2);
        assert_eq!(log_bucket(999), 3);
        assert_eq!(log_bucket(1000), 4);
        assert_eq!(log_bucket(u64::MAX), 20);
        assert_eq!(bucket_label(0, " ms"), "0 ms");
        assert_eq!(bucket_label(1, ""), "1–10");
        assert_eq!(bucket_label(3, ""), "100–1k");
        assert_eq!(bucket_label(5, ""), "10k–100k");
        assert_eq!(bucket_label(7, ""), "1M–10M");
    }

    /// Each tick label says the value of the line it sits on: labels are
    /// the `data-value`s, and the lines are evenly spaced in value.
    #[test]
    fn chart_labels_match_their_ticks() {
        let zero =
            "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id \"Z.1\"; pm Ra8+; acn 0; acms 0; solved 1;\n";
        let run = Run::parse("a", &format!("{A}{zero}"));
        let html = html_report("t", std::slice::from_ref(&run));
        let mut labels = 0;
        for part in html
            .split("<text class=\"tick-label y\" data-value=\"")
            .skip(1)
        {
            let value = &part[..part.find('"').unwrap()];
            let text = &part[part.find('>').unwrap() + 1..part.find('<').unwrap()];
            let v: f64 = value.parse().unwrap();
            assert_eq!(text, tick_label(v));
            assert_eq!(v, v.round(), "counts are whole numbers");
            labels += 1;
        }
        assert!(labels >= 6, "{labels}");
        // The zero-millisecond position is counted in a "0 ms" bucket.
        let times = &html[html.find("id=\"times\"").unwrap()..];
        assert!(times.contains(">0 ms</text>"), "{times}");
        assert!(times.contains("data-bucket=\"0\" data-count=\"1\""));
    }

    /// Two runs that agree get a sentence, not a table with only a header;
    /// a run that misses nothing says so; a run without node counts has no
    /// node chart.
    #[test]
    fn no_empty_sections() {
        let solved = A
            .replace("solved 0", "solved 1")
            .replace("am Kf2", "bm Kf2");
        let a = Run::parse("a", &solved);
        let b = Run::parse("b", &solved);
        let html = html_report("t", &[a, b]);
        assert!(html.contains("The runs agree on every position."));
        assert!(!html.contains("id=\"diff\""));
        assert!(html.contains("No position missed."));
        assert!(!html.contains("class=\"missed\""));
        let bare = Run::parse(
            "c",
            "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id \"T.1\"; pm Kf2;",
        );
        let html = html_report("t", &[bare]);
        assert!(!html.contains("Node counts") && !html.contains("Time per position"));
        assert!(!html.contains("Solutions against time"));
        assert!(html.contains("class=\"missed\""));
    }
}
