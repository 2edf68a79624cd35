//! `gamerec check` and `gamerec convert` over PGN inputs.
//!
//! Inputs are cut into chunks of whole games ([`Chunker`]); worker threads
//! read chunks in parallel and the results are emitted in input order. A
//! chunk whose last game was cut off (the cut guessed wrong) is read again
//! joined to the next one, so results never depend on the thread count.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use gamerec::diag::{LineIndex, Severity};
use gamerec::pgn::stream::line_at;
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{
    CheckOptions, Checker, Chunk, Chunker, Encoding, GameBuilder, Problem, SliceReader, Visitor,
    WriteOptions, write_game_json,
};

use crate::input::{Format, Input, is_broken_pipe, open_output};
use crate::progress::Progress;

/// Check that every game reads and every move is legal.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec check games.pgn
  gamerec check --threads 1 a.pgn b.pgn.zst
  zcat big.pgn.gz | gamerec check -

Prints every diagnostic as `path:line:col: error: ...`, then
`N games, M moves, E errors` (M counts main-line moves). Exit 1 if E > 0.")]
pub struct CheckArgs {
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Check only main-line moves (skip variations).
    #[arg(long)]
    pub mainline_only: bool,
    /// Do not print warnings (only errors).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Also warn on tag values that break their formats (Date, Round,
    /// TimeControl, ...; PGN standard sections 8.1 and 9).
    #[arg(long)]
    pub strict: bool,
}

/// Output format of `convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum To {
    /// PGN export format.
    Pgn,
    /// JSON Lines, one game per line.
    Json,
}

/// Convert games to PGN export format or JSON Lines.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec convert messy.pgn -o clean.pgn
  gamerec convert a.pgn b.pgn.gz --to json > games.jsonl
  gamerec convert old.pgn --encoding latin-1 -o old-latin1.pgn

Games that fail to read are reported on stderr and left out (exit 1).")]
pub struct ConvertArgs {
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Output format (default: by the output's extension, else pgn).
    #[arg(long)]
    pub to: Option<To>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Text encoding of PGN output: utf-8 or latin-1.
    #[arg(long, default_value = "utf-8")]
    pub encoding: Encoding,
    /// Remove embedded `[%...]` commands from comments (presentation output).
    #[arg(long)]
    pub strip_commands: bool,
    /// Do not print warnings (only errors).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A diagnostic located within its chunk.
struct Found {
    severity: Severity,
    line: u64,
    column: u64,
    message: String,
    game: u64,
    game_line: u64,
    first_line: String,
}

/// What reading one chunk produced.
#[derive(Default)]
struct Report {
    games: u64,
    lines: u64,
    moves: u64,
    truncated: bool,
    found: Vec<Found>,
    out: Vec<u8>,
    /// Warnings about the game just read, located at its start.
    game_warnings: Vec<String>,
}

/// Reads all games of a chunk with `visitor`, calling `each` per game.
fn read_chunk<V: Visitor>(
    chunk: &Chunk,
    visitor: &mut V,
    mut each: impl FnMut(V::Output, &mut Report),
) -> Report {
    let mut report = Report {
        lines: chunk.lines(),
        ..Report::default()
    };
    let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset);
    let mut index: Option<LineIndex> = None;
    while let Some(out) = reader.read_game(visitor) {
        report.truncated = reader.truncated();
        report.games += 1;
        each(out, &mut report);
        let problems: &[Problem] = reader.problems();
        let game_warnings = std::mem::take(&mut report.game_warnings);
        if problems.is_empty() && game_warnings.is_empty() {
            continue;
        }
        let at_start = reader.game_offset();
        let game_problems = game_warnings.into_iter().map(|message| Problem {
            severity: Severity::Warning,
            offset: at_start,
            message,
        });
        let problems: Vec<Problem> = problems.iter().cloned().chain(game_problems).collect();
        let index = index.get_or_insert_with(|| LineIndex::new(&chunk.data));
        let game = report.games - 1;
        let start = (reader.game_offset() - chunk.offset) as usize;
        for p in &problems {
            let rel = p.offset - chunk.offset;
            let lc = chunk.line_col(index, rel);
            let gl = chunk.line_col(index, start as u64);
            let mut text = String::from_utf8_lossy(line_at(&chunk.data, start)).into_owned();
            if text.chars().count() > 60 {
                text = text.chars().take(57).collect::<String>() + "...";
            }
            report.found.push(Found {
                severity: p.severity,
                line: lc.line,
                column: lc.column,
                message: p.message.clone(),
                game,
                game_line: gl.line,
                first_line: text,
            });
        }
    }
    report
}

/// A game may grow to this size inside one comment before `check` stops
/// holding the comment's text (`Chunker::eliding_comments`).
const CHECK_COMMENT_LIMIT: usize = 4 * gamerec::pgn::stream::DEFAULT_CHUNK_SIZE;

/// Runs `job` over the chunks of every input with `threads` workers and
/// hands the reports to `emit` in input order. With `elide_comments` the
/// text of huge comments is not held (for jobs that ignore comments).
fn run<J, E>(
    inputs: &[Input],
    threads: usize,
    elide_comments: bool,
    job: J,
    mut emit: E,
) -> Result<()>
where
    J: Fn(&Chunk) -> Report + Sync,
    E: FnMut(&Input, Report, u64, u64) -> Result<bool>,
{
    let total = inputs.iter().map(Input::size).sum::<Option<u64>>();
    let progress = Progress::new(total);
    let mut games_seen = 0;
    for input in inputs {
        if !matches!(input.format, Format::Pgn | Format::Unknown) {
            // Hook for other formats (EPD, SGF, ChessBase, PGC): their verbs
            // dispatch here once they exist.
            bail!(
                "{}: {:?} input is not supported by this verb yet",
                input.name,
                input.format
            );
        }
        let reader = input.open(Some(progress.read_bytes.clone()))?;
        let mut chunker = Chunker::new(reader);
        if elide_comments {
            chunker = chunker.eliding_comments(CHECK_COMMENT_LIMIT);
        }
        let pool = chunker.pool();
        let mut line_base = 0u64;
        let mut game_base = 0u64;
        let mut carry: Option<Chunk> = None;
        let mut stop = false;
        // Sequencing shared by both modes: merge cut-off chunks, emit in order.
        let mut settle = |chunk: Chunk, report: Report, stop: &mut bool| -> Result<()> {
            let (chunk, report) = match carry.take() {
                Some(mut c) => {
                    c.append(chunk);
                    let r = job(&c);
                    (c, r)
                }
                None => (chunk, report),
            };
            if report.truncated && !chunk.last {
                carry = Some(chunk);
                return Ok(());
            }
            let lines = report.lines;
            let games = report.games;
            pool.give(chunk.data);
            if !emit(input, report, line_base, game_base)? {
                *stop = true;
            }
            line_base += lines;
            game_base += games;
            games_seen += games;
            progress.update(games_seen);
            Ok(())
        };
        if threads <= 1 {
            while let Some(chunk) = chunker.next_chunk().with_context(|| input.name.clone())? {
                let report = job(&chunk);
                settle(chunk, report, &mut stop)?;
                if stop {
                    break;
                }
            }
        } else {
            std::thread::scope(|s| -> Result<()> {
                let (job_tx, job_rx) = sync_channel::<(u64, Chunk)>(threads);
                let job_rx = Arc::new(Mutex::new(job_rx));
                let (res_tx, res_rx) = channel::<(u64, Chunk, Report)>();
                let (slot_tx, slot_rx) = sync_channel::<()>(threads * 3);
                let feeder = s.spawn(move || -> io::Result<()> {
                    let mut seq = 0;
                    while let Some(chunk) = chunker.next_chunk()? {
                        if slot_tx.send(()).is_err() || job_tx.send((seq, chunk)).is_err() {
                            break;
                        }
                        seq += 1;
                    }
                    Ok(())
                });
                for _ in 0..threads {
                    let job_rx = Arc::clone(&job_rx);
                    let res_tx = res_tx.clone();
                    let job = &job;
                    s.spawn(move || {
                        loop {
                            let next = job_rx.lock().map(|rx| rx.recv());
                            let Ok(Ok((seq, chunk))) = next else { break };
                            let report = job(&chunk);
                            if res_tx.send((seq, chunk, report)).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(res_tx);
                let mut pending = BTreeMap::new();
                let mut next = 0u64;
                let mut outcome = Ok(());
                for (seq, chunk, report) in res_rx.iter() {
                    pending.insert(seq, (chunk, report));
                    while let Some((chunk, report)) = pending.remove(&next) {
                        next += 1;
                        let _ = slot_rx.recv();
                        if outcome.is_ok() && !stop {
                            outcome = settle(chunk, report, &mut stop);
                        }
                    }
                    if stop || outcome.is_err() {
                        break;
                    }
                }
                drop(slot_rx);
                drop(res_rx);
                let fed = feeder.join().unwrap_or(Ok(()));
                outcome?;
                if !stop {
                    fed.with_context(|| input.name.clone())?;
                }
                Ok(())
            })?;
        }
        if let Some(chunk) = carry.take() {
            // Unreachable in practice: the last chunk is never carried.
            let mut chunk = chunk;
            chunk.last = true;
            let report = job(&chunk);
            let _ = emit(input, report, line_base, game_base)?;
        }
        if stop {
            break;
        }
    }
    progress.finish();
    Ok(())
}

fn render(input: &Input, f: &Found, line_base: u64, game_base: u64) -> String {
    format!(
        "{}:{}:{}: {}: {} (game {}, line {}: {})",
        input.name,
        f.line + line_base,
        f.column,
        f.severity,
        f.message,
        f.game + game_base + 1,
        f.game_line + line_base,
        f.first_line
    )
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
    let job = |chunk: &Chunk| {
        let mut checker = Checker::new(opts.clone());
        read_chunk(chunk, &mut checker, |checked, report| {
            report.moves += checked.moves;
            report
                .game_warnings
                .extend(checked.tag_warnings.iter().map(ToString::to_string));
        })
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut games, mut moves, mut errors) = (0u64, 0u64, 0u64);
    let mut write_failed = None;
    run(
        &inputs,
        thread_count(args.threads),
        true,
        job,
        |input, report, lb, gb| {
            games += report.games;
            moves += report.moves;
            for f in &report.found {
                if f.severity == Severity::Error {
                    errors += 1;
                } else if args.quiet {
                    continue;
                }
                if let Err(e) = writeln!(out, "{}", render(input, f, lb, gb)) {
                    write_failed = Some(e);
                    return Ok(false);
                }
            }
            Ok(true)
        },
    )?;
    if let Some(e) = write_failed {
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }
    let summary =
        writeln!(out, "{games} games, {moves} moves, {errors} errors").and_then(|_| out.flush());
    if let Err(e) = summary
        && !is_broken_pipe(&e)
    {
        return Err(e.into());
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The warning for characters the output encoding cannot hold, naming
/// them (`'ł' U+0142`; at most 5, then how many more).
fn unrepresentable_warning(encoding: Encoding, text: &str) -> String {
    let chars = encoding.unrepresentable(text);
    let mut names: Vec<String> = chars
        .iter()
        .take(5)
        .map(|&c| format!("'{c}' U+{:04X}", u32::from(c)))
        .collect();
    if chars.len() > 5 {
        names.push(format!("{} more", chars.len() - 5));
    }
    format!(
        "{encoding} cannot represent {}: written as ?",
        names.join(", ")
    )
}

/// `gamerec convert`.
pub fn convert(args: ConvertArgs) -> Result<ExitCode> {
    let inputs = Input::from_args(&args.inputs);
    let to = args.to.unwrap_or_else(|| match &args.output {
        Some(p) if Format::of_path(p) == Format::Json => To::Json,
        _ => To::Pgn,
    });
    let opts = WriteOptions {
        encoding: args.encoding,
        ..WriteOptions::default()
    };
    let job = |chunk: &Chunk| {
        let mut builder = GameBuilder::default();
        read_chunk(chunk, &mut builder, |game, report| {
            let Some(mut game) = game else { return };
            if args.strip_commands {
                gamerec::pgn::commands::strip_game_commands(&mut game);
            }
            match to {
                To::Pgn => {
                    let text = export_string(&game, &opts);
                    if opts.encoding.encode_to(&text, &mut report.out) > 0 {
                        report
                            .game_warnings
                            .push(unrepresentable_warning(opts.encoding, &text));
                    }
                }
                To::Json => {
                    let mut text = String::new();
                    write_game_json(
                        &game,
                        &gamerec::pgn::commands::write_commands_json,
                        &mut text,
                    );
                    report.out.extend_from_slice(text.as_bytes());
                }
            }
        })
    };
    let mut out = open_output(args.output.as_deref())?;
    let mut errors = 0u64;
    let mut write_failed = None;
    let stderr = io::stderr();
    run(
        &inputs,
        thread_count(args.threads),
        false,
        job,
        |input, report, lb, gb| {
            for f in &report.found {
                if f.severity == Severity::Error {
                    errors += 1;
                } else if args.quiet {
                    continue;
                }
                let _ = writeln!(stderr.lock(), "{}", render(input, f, lb, gb));
            }
            if let Err(e) = out.write_all(&report.out) {
                write_failed = Some(e);
                return Ok(false);
            }
            Ok(true)
        },
    )?;
    let flushed = match write_failed {
        Some(e) => Err(e),
        None => out.flush(),
    };
    if let Err(e) = flushed {
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
