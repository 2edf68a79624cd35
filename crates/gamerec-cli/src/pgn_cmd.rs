//! `gamerec check` and `gamerec convert` over PGN inputs, through the
//! library's parallel reader ([`gamerec::io::parallel`]).

use std::ffi::OsString;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Result, bail};
use gamerec::diag::{Code, Severity};
use gamerec::io::parallel::{self, Report, Settled, visit_chunk};
use gamerec::io::read::{CUT_OFF_TAG_SECTION, is_cut_off_tag_section};
use gamerec::io::write::unrepresentable_warning;
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{
    CheckOptions, Checker, ChunkView, Encoding, GameBuilder, WriteOptions, write_game_json,
};

use crate::input::{Input, is_broken_pipe, open_output};
use crate::progress::Progress;
use gamerec::io::Format;

/// What `check` asks of the PGN inputs (from `check_cmd::CheckArgs`).
#[derive(Debug)]
pub struct CheckArgs {
    /// Input files (`-` for stdin).
    pub inputs: Vec<OsString>,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// Check only main-line moves (skip variations).
    pub mainline_only: bool,
    /// Do not print warnings (only errors).
    pub quiet: bool,
    /// Also warn on tag values that break their formats.
    pub strict: bool,
}

/// Output format of the PGN-to-text conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// PGN export format.
    Pgn,
    /// JSON Lines, one game per line.
    Json,
}

/// What `convert` asks of PGN inputs written as PGN or JSON (from
/// `check_cmd::ConvertArgs`).
#[derive(Debug)]
pub struct ConvertArgs {
    /// Input files (`-` for stdin).
    pub inputs: Vec<OsString>,
    /// Output file (default: stdout).
    pub output: Option<PathBuf>,
    /// Output format (default: by the output's extension, else pgn).
    pub to: Option<To>,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// Text encoding of PGN output.
    pub encoding: Encoding,
    /// Remove embedded `[%...]` commands from comments.
    pub strip_commands: bool,
    /// Do not print warnings (only errors).
    pub quiet: bool,
}

/// Runs `job` over the chunks of every input with the library's parallel
/// reader, handing the results to `emit` in input order, with a progress
/// bar over all inputs.
fn run<T, J, E>(
    inputs: &[Input],
    threads: usize,
    elide_comments: bool,
    job: J,
    unreadable: &mut u64,
    mut emit: E,
) -> Result<()>
where
    T: Send + Default,
    J: Fn(ChunkView<'_>) -> Report<T> + Sync,
    E: FnMut(&Input, Settled<T>) -> ControlFlow<()>,
{
    let total = inputs.iter().map(Input::size).sum::<Option<u64>>();
    let progress = Progress::new(total);
    let mut games_seen = 0;
    for input in inputs {
        if let Some(format) = input.format().filter(|f| *f != Format::Pgn) {
            bail!(
                "{}: {format} input is read by `convert`, not here",
                input.name
            );
        }
        let read_bytes = Arc::new(AtomicU64::new(0));
        let done_before = progress.read_bytes.load(Ordering::Relaxed);
        let opts = parallel::Options {
            threads,
            elide_comments,
            read_bytes: Some(read_bytes.clone()),
            ..parallel::Options::default()
        };
        let mut stop = false;
        let mut games_here = 0u64;
        let read = parallel::read_pgn(input, &opts, &job, |settled| {
            games_seen += settled.games;
            games_here += settled.games;
            progress.read_bytes.store(
                done_before + read_bytes.load(Ordering::Relaxed),
                Ordering::Relaxed,
            );
            progress.update(games_seen);
            let flow = emit(input, settled);
            stop |= flow.is_break();
            flow
        });
        if let Err(e) = read {
            // Reported once; the other inputs are still read.
            *unreadable += 1;
            if games_here > 0 {
                eprintln!("gamerec: {e} (after {games_here} games read)");
            } else {
                eprintln!("gamerec: {e}");
            }
        }
        if stop {
            break;
        }
    }
    progress.finish();
    Ok(())
}

fn thread_count(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// `gamerec check`.
pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let inputs = Input::from_args(&args.inputs);
    let opts = CheckOptions {
        variations: !args.mainline_only,
        strict: args.strict,
        ..CheckOptions::default()
    };
    let job = |chunk: ChunkView<'_>| {
        let mut checker = Checker::new(opts.clone());
        visit_chunk(
            chunk,
            &mut checker,
            |checked, _, report: &mut Report<u64>| {
                report.value += checked.moves;
                report.game_notes.extend(
                    checked
                        .tag_warnings
                        .iter()
                        .map(|w| (Severity::Warning, Code::Value, w.to_string())),
                );
            },
        )
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut games, mut moves, mut errors) = (0u64, 0u64, 0u64);
    let mut unreadable = 0u64;
    let mut write_failed = None;
    run(
        &inputs,
        thread_count(args.threads),
        true,
        job,
        &mut unreadable,
        |_, settled| {
            games += settled.games;
            moves += settled.value;
            for d in &settled.diagnostics {
                if d.is_error() {
                    errors += 1;
                } else if args.quiet {
                    continue;
                }
                if let Err(e) = writeln!(out, "{d}") {
                    write_failed = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        },
    )?;
    if let Some(e) = write_failed {
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }
    let not_read = match unreadable {
        0 => String::new(),
        1 => ", 1 file not read".into(),
        n => format!(", {n} files not read"),
    };
    let summary = writeln!(
        out,
        "{games} games, {moves} moves, {errors} errors{not_read}"
    )
    .and_then(|_| out.flush());
    if let Err(e) = summary
        && !is_broken_pipe(&e)
    {
        return Err(e.into());
    }
    Ok(if unreadable > 0 {
        ExitCode::from(2)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `gamerec convert`.
pub fn convert(args: ConvertArgs) -> Result<ExitCode> {
    let inputs = Input::from_args(&args.inputs);
    let to = args.to.unwrap_or_else(|| match &args.output {
        Some(p) if Format::from_path(p) == Some(Format::Json) => To::Json,
        _ => To::Pgn,
    });
    let opts = WriteOptions {
        encoding: args.encoding,
        ..WriteOptions::default()
    };
    let job = |chunk: ChunkView<'_>| {
        let mut builder = GameBuilder::default();
        visit_chunk(
            chunk,
            &mut builder,
            |game, at, report: &mut Report<Vec<u8>>| {
                let Some(mut game) = game else { return };
                if is_cut_off_tag_section(&game, at.cut_at_end) {
                    report.game_notes.push((
                        Severity::Error,
                        Code::Truncated,
                        CUT_OFF_TAG_SECTION.into(),
                    ));
                    return;
                }
                if args.strip_commands {
                    gamerec::pgn::commands::strip_game_commands(&mut game);
                }
                match to {
                    To::Pgn => {
                        let text = export_string(&game, &opts);
                        if opts.encoding.encode_to(&text, &mut report.value) > 0 {
                            report.game_notes.push((
                                Severity::Warning,
                                Code::Loss,
                                unrepresentable_warning(opts.encoding, &text),
                            ));
                        }
                    }
                    To::Json => {
                        let mut text = String::new();
                        write_game_json(
                            &game,
                            &gamerec::pgn::commands::write_commands_json,
                            &mut text,
                        );
                        report.value.extend_from_slice(text.as_bytes());
                    }
                }
            },
        )
    };
    if let Some(output) = &args.output
        && let Some(input) = inputs.iter().find(|i| i.is_same_file(output))
    {
        bail!(
            "{}: the output is an input too (it would be emptied before it is read)",
            input.name
        );
    }
    let mut out = open_output(args.output.as_deref())?;
    let mut errors = 0u64;
    let mut unreadable = 0u64;
    let mut write_failed = None;
    let stderr = io::stderr();
    run(
        &inputs,
        thread_count(args.threads),
        false,
        job,
        &mut unreadable,
        |_, settled| {
            for d in &settled.diagnostics {
                if d.is_error() {
                    errors += 1;
                } else if args.quiet {
                    continue;
                }
                let _ = writeln!(stderr.lock(), "{d}");
            }
            if let Err(e) = out.write_all(&settled.value) {
                write_failed = Some(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        },
    )?;
    let flushed = match write_failed {
        Some(e) => Err(e),
        // An input could not be read (exit 2): a file output is not put
        // into place, the old one stays.
        None => out.finish_if(unreadable == 0),
    };
    if let Err(e) = flushed {
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }
    Ok(if unreadable > 0 {
        ExitCode::from(2)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
