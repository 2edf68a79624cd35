//! `gamerec report`: Gastric-style reports over `epd solve` result files,
//! a text summary on stdout and an HTML page (`gamerec_view::report`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use gamerec_engine::results::{self, LISTED};
use gamerec_view::report;

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

/// Runs `gamerec report`. Each file is read as a stream and tallied
/// (memory bounded whatever the number of records: each table lists the
/// first [`LISTED`] positions and counts the rest; the first run's first
/// [`results::COMPARED`] records are compared with the other runs).
pub fn run_report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    let mut compare = (args.inputs.len() > 1)
        .then(|| results::Compare::new(args.inputs.len(), results::COMPARED));
    let mut errors = 0;
    // Messages go to stderr; if it cannot be written the run stops and
    // fails (no report that leaves its errors unsaid).
    let mut err = io::stderr().lock();
    for (i, path) in args.inputs.iter().enumerate() {
        let input = gamerec::io::Input::from_arg(path.as_os_str());
        let label = path
            .file_stem()
            .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned());
        let (run, skipped) = results::read_summary(&label, input.open(None)?, LISTED, |r| {
            if let Some(c) = &mut compare {
                c.add(i, r);
            }
        })
        .map_err(|e| gamerec::io::OpenError::new(input.name.as_str(), e))?;
        for mut d in skipped {
            errors += d.counts().0;
            d.path = Some(path.display().to_string());
            writeln!(err, "{d}").context("writing stderr")?;
        }
        if run.records == 0 {
            bail!("{}: no EPD records", path.display());
        }
        runs.push(run);
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(report::summary_text(&runs).as_bytes())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        return Err(e).context("writing stdout");
    }
    gamerec::io::write_atomic(
        &args.output,
        report::html_page(&args.title, &runs, compare.as_ref(), LISTED),
    )?;
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
