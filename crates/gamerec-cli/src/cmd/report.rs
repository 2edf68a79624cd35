//! `gamerec report`: Gastric-style reports over `epd solve` result files,
//! a text summary on stdout and an HTML page (`gamerec_view::report`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use gamerec_engine::results::Run;
use gamerec_view::report;

use crate::cmd::epd_engine::read_input;

// `gamerec report`.
#[derive(Args, Debug)]
#[command(
    after_help = "Reads result files of `gamerec epd solve` (or any EPD with pm and bm/am),\nprints a text summary and writes a self-contained HTML report with inline\nSVG charts: solved per suite, solutions against time, node and time\ndistributions, STS theme scores, and the runs side by side.\n\nExamples:\n  gamerec report wac-builtin.epd wac-stockfish.epd -o wac.html\n  gamerec report sts-run.epd --title 'STS, 1 s'"
)]
pub struct ReportArgs {
    /// Result EPD files, one run each.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// HTML output file.
    #[arg(short, long, default_value = "report.html")]
    output: PathBuf,
    /// Report title.
    #[arg(long, default_value = "gamerec report")]
    title: String,
}

/// Runs `gamerec report`.
pub fn run_report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    let mut errors = 0;
    // Messages go to stderr; if it cannot be written the run stops and
    // fails (no report that leaves its errors unsaid).
    let mut err = io::stderr().lock();
    for path in &args.inputs {
        let text = read_input(path)?;
        let label = path
            .file_stem()
            .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned());
        let (run, skipped) = Run::read(&label, &text);
        for mut d in skipped {
            errors += d.counts().0;
            d.path = Some(path.display().to_string());
            writeln!(err, "{d}").context("writing stderr")?;
        }
        if run.records.is_empty() {
            bail!("{}: no EPD records", path.display());
        }
        runs.push(run);
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(report::text_summary(&runs).as_bytes())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        return Err(e).context("writing stdout");
    }
    gamerec::io::write_atomic(&args.output, report::html_report(&args.title, &runs))?;
    writeln!(err, "wrote {}", args.output.display()).context("writing stderr")?;
    if errors > 0 {
        writeln!(
            err,
            "{errors} error(s): the lines with them are left out of the report"
        )
        .context("writing stderr")?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
