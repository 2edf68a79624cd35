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
use gamerec::diag::{Code, NotListed, Severity};
use gamerec::io::parallel::{self, Report, Settled, visit_chunk};
use gamerec::io::pipeline::{self, ErrorGames, Tally};
use gamerec::io::write::unrepresentable_warning;
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{CheckOptions, Checker, ChunkView, Encoding, WriteOptions, write_game_json};

use crate::input::{Input, is_broken_pipe, open_output};
use crate::progress::Progress;
use gamerec::io::Format;

/// What `check` asks of the PGN inputs (from `cmd::check::CheckArgs`).
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
    /// The bound on one game's bytes.
    pub max_game_bytes: u64,
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
/// `cmd::convert::ConvertArgs`).
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
    /// The bound on one game's bytes.
    pub max_game_bytes: u64,
}

/// Runs `job` over the chunks of every input with the library's parallel
/// reader, handing the results to `emit` in input order, with a progress
/// bar over all inputs.
fn run<T, J, E>(
    inputs: &[Input],
    threads: usize,
    elide_comments: bool,
    max_game_bytes: u64,
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
            max_game_bytes,
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
            gamerec::say!("{}", pipeline::cut_short(&e, games_here, "games"));
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

/// `gamerec check` of PGN inputs: prints each diagnostic, returns the
/// counts.
pub fn check(args: CheckArgs) -> Result<Checked> {
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
                if checked.tag_warnings_not_listed > 0 {
                    let n = NotListed {
                        errors: 0,
                        warnings: checked.tag_warnings_not_listed,
                    };
                    let message = n.message("the tag check", "game");
                    report.game_not_listed = Some((Code::Value, message, n));
                }
            },
        )
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut tally = Tally {
        moves: Some(0),
        ..Tally::default()
    };
    let mut errs = ErrorGames::default();
    let mut unreadable = 0u64;
    let mut write_failed = None;
    run(
        &inputs,
        thread_count(args.threads),
        true,
        args.max_game_bytes,
        job,
        &mut unreadable,
        |_, settled| {
            tally.games += settled.games;
            *tally.moves.get_or_insert(0) += settled.value;
            for d in &settled.diagnostics {
                tally.count(d);
                if errs.is_new(d) {
                    tally.games_with_errors += 1;
                }
                if !d.is_error() && args.quiet {
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
    tally.inputs = inputs.len() as u64;
    tally.inputs_not_read = unreadable;
    match write_failed {
        Some(e) if is_broken_pipe(&e) => Ok(Checked::PipeClosed),
        Some(e) => Err(e.into()),
        None => match out.flush() {
            Ok(()) => Ok(Checked::Done(tally)),
            Err(e) if is_broken_pipe(&e) => Ok(Checked::PipeClosed),
            Err(e) => Err(e.into()),
        },
    }
}

/// What `check` of PGN inputs ended with.
pub enum Checked {
    /// The counts (the caller prints the summary line).
    Done(Tally),
    /// Standard output was closed (a pipe into `head`): success.
    PipeClosed,
}

/// `gamerec convert` of PGN inputs to PGN or JSON, through the library's
/// pipeline (games rendered on the reading threads, written in order).
pub fn convert(args: ConvertArgs) -> Result<ExitCode> {
    let inputs = Input::from_args(&args.inputs);
    let to = args.to.unwrap_or_else(|| match &args.output {
        Some(p) if gamerec::io::output_format(None, Some(p), None) == Ok(Format::Json) => To::Json,
        _ => To::Pgn,
    });
    let opts = WriteOptions {
        encoding: args.encoding,
        ..WriteOptions::default()
    };
    // A game rendered, and the warning of what its encoding could not hold.
    let render = |item: gamerec::io::Item| -> (Vec<u8>, Option<(String, String)>) {
        let gamerec::io::Record::Game(mut game) = item.record else {
            return (Vec::new(), None);
        };
        let mut out = Vec::new();
        if args.strip_commands {
            gamerec::pgn::commands::strip_game_commands(&mut game);
        }
        let game = &game;
        match to {
            To::Pgn => {
                let text = export_string(game, &opts);
                if opts.encoding.encode_to(&text, &mut out) > 0 {
                    // The note names the game by its first line, as the
                    // reader's diagnostics do.
                    let first = game
                        .tags
                        .iter()
                        .next()
                        .map(|t| format!("[{} \"{}\"]", t.name, t.value))
                        .unwrap_or_default();
                    let warning = unrepresentable_warning(opts.encoding, &text);
                    return (out, Some((warning, first)));
                }
            }
            To::Json => {
                let mut text = String::new();
                write_game_json(
                    game,
                    &gamerec::pgn::commands::write_commands_json,
                    &mut text,
                );
                out.extend_from_slice(text.as_bytes());
            }
        }
        (out, None)
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
    let total = inputs.iter().map(Input::size).sum::<Option<u64>>();
    let progress = Progress::new(total);
    let popts = pipeline::Options {
        threads: thread_count(args.threads),
        format: Some(Format::Pgn),
        max_game_bytes: args.max_game_bytes,
        read_bytes: Some(progress.read_bytes.clone()),
        ..pipeline::Options::default()
    };
    let mut write_failed = None;
    let (mut written, mut losses) = (0u64, 0u64);
    // Diagnostics go to stderr; if it cannot be written the run stops and
    // says so (nothing is lost unsaid).
    let stderr_failed = std::cell::RefCell::new(None);
    let tell = |d: &gamerec::diag::Diagnostic| -> ControlFlow<()> {
        match writeln!(io::stderr().lock(), "{d}") {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                *stderr_failed.borrow_mut() = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let ran = pipeline::read_games(
        &inputs,
        &popts,
        render,
        |o| {
            progress.update(o.overall);
            let (text, loss) = o.value;
            if let Some((message, first)) = loss {
                losses += 1;
                if !args.quiet {
                    let mut d = gamerec::diag::Diagnostic::new(
                        Severity::Warning,
                        gamerec::diag::LineCol {
                            line: o.line,
                            column: 1,
                        },
                        message,
                    )
                    .with_path(inputs[o.input].name.as_str())
                    .with_code(Code::Loss)
                    .with_game(o.number);
                    d.note = Some(format!("game {}, line {}: {first}", o.number, o.line).into());
                    tell(&d)?;
                }
            }
            if let Err(e) = out.write_all(&text) {
                write_failed = Some(e);
                return ControlFlow::Break(());
            }
            written += 1;
            ControlFlow::Continue(())
        },
        |d| {
            if d.is_error() || !args.quiet {
                tell(&d)?;
            }
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    if let Some(e) = stderr_failed.into_inner() {
        // The messages could not be told: the output is not put in place.
        return Err(anyhow::Error::new(e).context("writing diagnostics to stderr"));
    }
    let flushed = match write_failed {
        Some(e) => Err(e),
        // An input could not be read (exit 2): a file output is not put
        // into place, the old one stays.
        None => out.finish_if(ran.tally.inputs_not_read == 0),
    };
    if let Err(e) = flushed {
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }
    let mut tally = ran.tally;
    tally.warnings += losses;
    tally.written = Some(written);
    gamerec::say!("gamerec convert: {tally}");
    Ok(ExitCode::from(tally.exit_code()))
}
