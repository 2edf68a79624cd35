//! `gamerec epd analyze|mate|solve`: the EPD verbs that run an engine
//! (pfga, pfms, pfts).

use std::fs;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use gamerec_engine::analysis::{self, Outcome, Progress, Verb};
use gamerec_engine::{Clock, EngineSpec, Limits};

// EPD verbs that run an engine.
#[derive(Subcommand, Debug)]
pub enum EpdEngineCommand {
    /// General analysis (pfga): add pv, ce, pm, sm, acn, acs (+ acd, acms).
    #[command(
        after_help = "Examples:\n  gamerec epd analyze --depth 8 suite.epd -o analysed.epd\n  gamerec epd analyze --engine uci:stockfish --movetime 1s --jobs 2 suite.epd"
    )]
    Analyze(EngineRunArgs),
    /// Mate search (pfms): add dm and pm where a forced mate in at most N moves exists.
    #[command(
        after_help = "Records with dm <= N are skipped, so running N = 1, 2, 3... in turn\nreproduces the EPD spec's iterative use. The builtin engine proves mates\nexactly (every defence); other engines are asked with `go mate N` / depth.\n\nExamples:\n  gamerec epd mate --moves 3 problems.epd -o solved.epd\n  for n in 1 2 3; do gamerec epd mate --moves $n -o out.epd in.epd && mv out.epd in.epd; done"
    )]
    Mate {
        /// Fullmove mate length N.
        #[arg(long, value_name = "N")]
        moves: u32,
        #[command(flatten)]
        run: EngineRunArgs,
    },
    /// Target search (pfts): add pm (and pv, ce, acn, acs) and `solved 1|0` against bm/am.
    #[command(
        after_help = "Examples:\n  gamerec epd solve --movetime 1s wac.epd -o wac-builtin.epd\n  gamerec epd solve --engine uci:/usr/games/stockfish --movetime 1s wac.epd -o wac-sf.epd\n  gamerec report wac-builtin.epd wac-sf.epd -o wac.html"
    )]
    Solve(EngineRunArgs),
}

/// Engine choice, limits and run control shared by the verbs.
#[derive(Args, Debug)]
pub struct EngineRunArgs {
    /// EPD input files (`-` for stdin).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Engine: `builtin`, `uci:COMMAND` or `xboard:COMMAND`.
    #[arg(long, default_value = "builtin")]
    engine: String,
    /// Engine option NAME=VALUE (repeatable), e.g. Hash=128.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Time per position: `500ms`, `1s`, `1.5s`, `2m`; a bare number is
    /// milliseconds, as in UCI's `go movetime` (`--movetime 200` = 200 ms).
    #[arg(long, value_parser = parse_duration)]
    movetime: Option<Duration>,
    /// Treat --movetime as a soft limit: the engine budgets around it from a clock.
    #[arg(long, requires = "movetime")]
    soft: bool,
    /// Nodes per position.
    #[arg(long)]
    nodes: Option<u64>,
    /// Depth (plies) per position.
    #[arg(long)]
    depth: Option<u32>,
    /// Positions searched in parallel (one engine each).
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// Skip the records already in the output file and append the rest.
    #[arg(long, requires = "output")]
    resume: bool,
    /// No progress bar on stderr.
    #[arg(long)]
    quiet: bool,
}

/// Parses `500ms`, `1s`, `1.5s`, `2m`, or a number of milliseconds (as
/// UCI's `go movetime` counts).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else {
        (s, 0.001)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("bad duration `{s}` (try 500ms, 1s, 2m)"))?;
    if !(v.is_finite() && v > 0.0 && v * scale < 1e7) {
        return Err(format!("duration `{s}` out of range"));
    }
    Ok(Duration::from_secs_f64(v * scale))
}

fn limits(a: &EngineRunArgs) -> Limits {
    let mut l = Limits {
        depth: a.depth,
        nodes: a.nodes,
        ..Limits::default()
    };
    match (a.movetime, a.soft) {
        (Some(t), true) => {
            l.clock = Some(Clock {
                white: t * 20,
                black: t * 20,
                moves_to_go: Some(20),
                ..Clock::default()
            });
        }
        (Some(t), false) => l.movetime = Some(t),
        _ => {}
    }
    l
}

/// Reads a file or stdin (`-`), decompressed (.gz, .bz2, .zst by magic).
pub(crate) fn read_input(path: &Path) -> anyhow::Result<String> {
    let bytes = gamerec::io::Input::from_arg(path.as_os_str()).read_all()?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Runs an EPD engine verb; exit 1 when some records had errors.
pub fn run_epd(cmd: EpdEngineCommand) -> anyhow::Result<ExitCode> {
    let (verb, args) = match cmd {
        EpdEngineCommand::Analyze(a) => (Verb::Analyze, a),
        EpdEngineCommand::Mate { moves, run } => {
            if moves == 0 {
                bail!("--moves must be at least 1");
            }
            (Verb::Mate { moves }, run)
        }
        EpdEngineCommand::Solve(a) => (Verb::Solve, a),
    };
    let spec: EngineSpec = args.engine.parse()?;
    let mut options = Vec::new();
    for o in &args.options {
        options
            .push(gamerec_engine::option_setting(o).map_err(|e| anyhow::anyhow!("--option {e}"))?);
    }
    let lim = limits(&args);
    if lim == Limits::default() && !matches!(verb, Verb::Mate { .. }) {
        bail!("give a limit: --movetime, --depth or --nodes");
    }
    // Inputs: (file, line number, text).
    let mut origin = Vec::new();
    let mut lines = Vec::new();
    for path in &args.inputs {
        let text = read_input(path)?;
        for (n, l) in text.lines().enumerate() {
            origin.push((path.clone(), n + 1));
            lines.push(l.to_string());
        }
    }
    // --resume: the output is always a prefix of the inputs, in order.
    let mut skip = 0;
    if args.resume
        && let Some(out) = &args.output
        && out.exists()
    {
        let done = fs::read_to_string(out).with_context(|| format!("reading {}", out.display()))?;
        let complete = if done.ends_with('\n') {
            done.as_str()
        } else {
            &done[..done.rfind('\n').map_or(0, |i| i + 1)]
        };
        for (i, l) in complete.lines().enumerate() {
            let same = lines
                .get(i)
                .is_some_and(|input| position_key(input) == position_key(l));
            if !same {
                bail!(
                    "{}: line {} does not match input record {}; cannot resume",
                    out.display(),
                    i + 1,
                    i + 1
                );
            }
            skip = i + 1;
        }
        // Drop a partial last line.
        gamerec::io::write_atomic(out, complete)?;
    }
    let todo: Vec<String> = lines[skip..].to_vec();
    let mut sink: Box<dyn Write> = match &args.output {
        Some(p) => {
            let f = fs::OpenOptions::new()
                .create(true)
                .append(args.resume)
                .write(true)
                .truncate(!args.resume)
                .open(p)
                .with_context(|| format!("opening {}", p.display()))?;
            Box::new(BufWriter::new(f))
        }
        None => Box::new(BufWriter::new(io::stdout().lock())),
    };
    let show_progress = !args.quiet && io::stderr().is_terminal();
    let started = Instant::now();
    let mut errors = 0usize;
    let mut write_err: Option<io::Error> = None;
    let config = analysis::RunConfig {
        engine: spec,
        options,
        verb,
        limits: lim,
        jobs: args.jobs,
    };
    analysis::run(
        &config,
        todo,
        |i, out: Outcome| {
            if let Some(e) = &out.error {
                let (path, line) = &origin[skip + i];
                gamerec::say!(
                    "{}{}:{line}:1: error: {e}",
                    if show_progress { "\r\x1b[K" } else { "" },
                    path.display()
                );
                errors += 1;
            }
            if write_err.is_none() {
                // Each record is flushed so --resume can pick up after a kill.
                if let Err(e) = writeln!(sink, "{}", out.line).and_then(|_| sink.flush()) {
                    write_err = Some(e);
                }
            }
        },
        |p: Progress| {
            if show_progress {
                progress_bar(&p, verb, started);
            }
        },
    )?;
    if show_progress {
        gamerec::say!();
    }
    if let Some(e) = write_err {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e).context("writing output");
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The four position fields, to match output records with inputs.
fn position_key(line: &str) -> String {
    line.split_whitespace()
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

fn progress_bar(p: &Progress, verb: Verb, started: Instant) {
    let width = 30;
    let filled = (p.done * width)
        .checked_div(p.total)
        .unwrap_or(width)
        .min(width);
    let elapsed = started.elapsed().as_secs_f64();
    let eta = if p.done > 0 {
        elapsed / p.done as f64 * (p.total - p.done) as f64
    } else {
        0.0
    };
    let solved = if verb == Verb::Solve {
        format!(" solved {}", p.solved)
    } else {
        String::new()
    };
    gamerec::say_text!(
        "\r[{}{}] {}/{}{solved} eta {:.0}s ",
        "=".repeat(filled),
        " ".repeat(width - filled),
        p.done,
        p.total,
        eta
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("200").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("1000").unwrap(), Duration::from_secs(1));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1e30").is_err());
    }
}
