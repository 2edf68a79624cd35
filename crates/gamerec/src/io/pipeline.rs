//! The one pipeline under every verb that reads chess games: inputs of any
//! chess format (by extension or content, compressed or not, files or
//! stdin) are read in parallel where the format allows (PGN), each game is
//! handed to a transform on the worker threads, and the results come back
//! in input order with one stream of [`Diagnostic`]s and one [`Tally`].
//!
//! ```text
//! inputs ──▶ Format ──▶ PGN: parallel::read_pgn (N threads) ─┐
//!                  └──▶ others: Reader (in order) ───────────┼─▶ work(&Item) ─▶ emit (input order)
//!                                                             └─▶ diagnostics ─▶ Tally
//! ```
//!
//! Every verb counts the same way: a game is counted when the reader meets
//! it, whether or not it could be read; a game "with errors" has at least
//! one error diagnostic; an input that cannot be opened or is cut short (a
//! truncated compressed file) is "not read". So `check`, `convert`,
//! `filter`, `to_arrow` and the rest agree on the same input at any thread
//! count.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::diag::{Code, Diagnostic, LineCol, Severity};

use super::parallel::{self, Report, Settled};
use super::read::{Item, ReadOptions, Reader};
use super::{Format, Input, OpenError};
use crate::pgn::ChunkView;

/// The counts every verb reports, in one shape ([`fmt::Display`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Inputs given.
    pub inputs: u64,
    /// Inputs that could not be opened, or could not be read to their end.
    pub inputs_not_read: u64,
    /// Games met (read or not).
    pub games: u64,
    /// Games with at least one error.
    pub games_with_errors: u64,
    /// EPD/FEN records met (read or not).
    pub records: u64,
    /// Records with at least one error.
    pub records_with_errors: u64,
    /// Moves checked (`check`).
    pub moves: Option<u64>,
    /// Nodes read (SGF).
    pub nodes: Option<u64>,
    /// Games or records written (verbs with an output).
    pub written: Option<u64>,
    /// Error diagnostics.
    pub errors: u64,
    /// Warning diagnostics.
    pub warnings: u64,
}

impl Tally {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Tally) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            }
        }
        self.inputs += other.inputs;
        self.inputs_not_read += other.inputs_not_read;
        self.games += other.games;
        self.games_with_errors += other.games_with_errors;
        self.records += other.records;
        self.records_with_errors += other.records_with_errors;
        self.moves = sum(self.moves, other.moves);
        self.nodes = sum(self.nodes, other.nodes);
        self.written = sum(self.written, other.written);
        self.errors += other.errors;
        self.warnings += other.warnings;
    }

    /// Counts one diagnostic.
    pub fn count(&mut self, d: &Diagnostic) {
        let (errors, warnings) = d.counts();
        self.errors += errors;
        self.warnings += warnings;
    }

    /// The exit code the verbs use: 2 when an input was not read, 1 when
    /// the input had errors, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.inputs_not_read > 0 {
            2
        } else if self.errors > 0 {
            1
        } else {
            0
        }
    }
}

/// One shape for every verb, `check`'s line extended:
/// `3 games, 120 moves, 1 errors; 1 with errors, 0 warnings, 2 written`.
/// Before the `;`: games (and records, moves, nodes where they apply),
/// errors, and `N files not read` when inputs were not read whole; after
/// it: games (or records) with errors, warnings, and what the verb wrote.
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.games > 0 || self.records == 0 {
            parts.push(format!("{} games", self.games));
        }
        if self.records > 0 {
            parts.push(format!("{} records", self.records));
        }
        if let Some(m) = self.moves {
            parts.push(format!("{m} moves"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        parts.push(format!("{} errors", self.errors));
        if self.inputs_not_read > 0 {
            parts.push(format!(
                "{} file{} not read",
                self.inputs_not_read,
                if self.inputs_not_read == 1 { "" } else { "s" }
            ));
        }
        write!(
            f,
            "{}; {} with errors, {} warnings",
            parts.join(", "),
            self.games_with_errors + self.records_with_errors,
            self.warnings
        )?;
        if let Some(w) = self.written {
            write!(f, ", {w} written")?;
        }
        Ok(())
    }
}

/// Counts games with errors among diagnostics that come in game order.
#[derive(Debug, Default)]
pub struct ErrorGames {
    last: Option<(Option<String>, u64)>,
}

impl ErrorGames {
    /// Whether `d` is the first error of a game not counted yet (games are
    /// told apart by the diagnostic's path and game number).
    pub fn is_new(&mut self, d: &Diagnostic) -> bool {
        if !d.is_error() {
            return false;
        }
        let Some(game) = d.game else { return false };
        if let Some((path, last)) = &self.last
            && *last == game
            && path.as_deref() == d.path.as_deref()
        {
            return false;
        }
        self.last = Some((d.path.clone(), game));
        true
    }
}

/// The diagnostic for an input that could not be opened or read: the path
/// named once, the operating system's words after it.
pub fn open_error(e: &OpenError) -> Diagnostic {
    let text = e.source.to_string();
    let message = text
        .strip_prefix(&format!("{}: ", e.name))
        .unwrap_or(&text)
        .to_string();
    Diagnostic::new(Severity::Error, LineCol::default(), message)
        .with_path(e.name.as_str())
        .with_code(Code::Io)
}

/// [`open_error`] for an input read part of the way: says how many games
/// (or records) were read before the error.
pub fn cut_short(e: &OpenError, met: u64, unit: &str) -> Diagnostic {
    let mut d = open_error(e);
    if met > 0 {
        d.message = format!("{} (after {met} {unit} read)", d.message);
    }
    d
}

/// How to run the pipeline.
#[derive(Debug, Clone)]
pub struct Options {
    /// Threads reading and transforming (at least 1).
    pub threads: usize,
    /// The input format (default: by extension, else by content).
    pub format: Option<Format>,
    /// The bound on one game's bytes (see [`parallel::Options::max_game_bytes`]).
    pub max_game_bytes: u64,
    /// Errors with nothing read cleanly before an input is given up as not
    /// of its format.
    pub max_errors: u64,
    /// Raw bytes read so far over all inputs (for a progress bar).
    pub read_bytes: Option<Arc<AtomicU64>>,
    /// Chunk size for the parallel reader (tests use small ones).
    pub chunk_size: Option<usize>,
    /// Where to start in each PGN input (an index appending to itself
    /// reads on from the games it has).
    pub resume: parallel::Resume,
    /// Where the reading of a PGN input is in its decompressed bytes (see
    /// [`parallel::Options::decoded_to`]).
    pub decoded_to: Option<Arc<AtomicU64>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: parallel::default_threads(),
            format: None,
            max_game_bytes: parallel::DEFAULT_MAX_GAME_BYTES,
            max_errors: 20,
            read_bytes: None,
            chunk_size: None,
            resume: parallel::Resume::default(),
            decoded_to: None,
        }
    }
}

/// One game (or record) through the pipeline, in input order.
#[derive(Debug)]
pub struct Out<T> {
    /// Which input (index into the inputs given).
    pub input: usize,
    /// Its number in its input (from 1; failed games count too).
    pub number: u64,
    /// Its number over all inputs (from 1; failed games count too).
    pub overall: u64,
    /// Its first line in the input.
    pub line: u64,
    /// Its byte offset in the (decompressed) input.
    pub offset: u64,
    /// What the transform made of it.
    pub value: T,
}

/// What a run ended with: the tally, and whether `emit` stopped it.
#[derive(Debug, Clone, Default)]
pub struct Ran {
    /// The counts.
    pub tally: Tally,
    /// Whether `emit` or the diagnostic sink asked to stop.
    pub stopped: bool,
}

/// Reads every game and record of `inputs`, runs `work` on each (on the
/// reading threads for PGN; it takes the item), and hands the results to `emit` in input
/// order. Every diagnostic (reading problems, inputs not read, inputs of
/// a format that holds no chess) goes to `diagnostic`, in input order
/// too. Either callback may stop the run with `ControlFlow::Break`.
pub fn read_games<T, W, E, D>(
    inputs: &[Input],
    opts: &Options,
    work: W,
    mut emit: E,
    mut diagnostic: D,
) -> Ran
where
    T: Send,
    W: Fn(Item) -> T + Sync,
    E: FnMut(Out<T>) -> ControlFlow<()>,
    D: FnMut(Diagnostic) -> ControlFlow<()>,
{
    let mut ran = Ran::default();
    let total_read = opts.read_bytes.clone();
    let mut done_before = 0u64;
    for (index, input) in inputs.iter().enumerate() {
        let met_before = ran.tally.games + ran.tally.records;
        ran.tally.inputs += 1;
        let mut tally = Tally::default();
        let mut errs = ErrorGames::default();
        let mut stop = false;
        let format = opts
            .format
            .or_else(|| input.format())
            .unwrap_or(Format::Pgn);
        let mut report = |d: Diagnostic, tally: &mut Tally, errs: &mut ErrorGames| {
            // An input not read is counted as such, not as an error in it.
            if d.code != Code::Io {
                tally.count(&d);
            }
            if errs.is_new(&d) {
                if is_record_format(format) {
                    tally.records_with_errors += 1;
                } else {
                    tally.games_with_errors += 1;
                }
            }
            diagnostic(d).is_break()
        };
        if format == Format::Sgf {
            let d = Diagnostic::new(
                Severity::Error,
                LineCol::default(),
                "SGF holds Go and Othello games, not chess: this verb reads PGN, JSON, \
                 EPD, FEN, PGC, CBF and FBK (`gamerec check` and `convert` read SGF)",
            )
            .with_path(input.name.as_str())
            .with_code(Code::WrongFormat);
            tally.inputs_not_read += 1;
            stop |= report(d, &mut tally, &mut errs);
        } else if format == Format::Pgn {
            let read_bytes = Arc::new(AtomicU64::new(0));
            let popts = parallel::Options {
                threads: opts.threads.max(1),
                elide_comments: false,
                read_bytes: Some(read_bytes.clone()),
                chunk_size: opts.chunk_size,
                max_errors: opts.max_errors,
                max_game_bytes: opts.max_game_bytes,
                resume: opts.resume,
                decoded_to: opts.decoded_to.clone(),
            };
            let job = |chunk: ChunkView<'_>| -> Report<Vec<Out<T>>> {
                let games = parallel::games_job(chunk);
                Report {
                    games: games.games,
                    truncated: games.truncated,
                    found: games.found,
                    game_notes: games.game_notes,
                    game_not_listed: games.game_not_listed,
                    needs_lines: games.needs_lines,
                    value: games
                        .value
                        .into_iter()
                        .map(|item| {
                            let (number, line, offset) = (item.number, item.line, item.offset);
                            Out {
                                input: index,
                                number,
                                overall: 0,
                                line,
                                offset,
                                value: work(item),
                            }
                        })
                        .collect(),
                }
            };
            let result = parallel::read_pgn(input, &popts, job, |settled: Settled<Vec<Out<T>>>| {
                if let Some(total) = &total_read {
                    total.store(
                        done_before + read_bytes.load(Ordering::Relaxed),
                        Ordering::Relaxed,
                    );
                }
                tally.games += settled.games;
                // Diagnostics and games in input order: a game's
                // diagnostics come before it.
                let mut diags = settled.diagnostics.into_iter().peekable();
                for mut out in settled.value {
                    out.number += settled.games_before;
                    out.overall = met_before + out.number;
                    out.line += settled.lines_before;
                    while let Some(d) = diags.next_if(|d| d.game.is_some_and(|g| g <= out.number)) {
                        if report(d, &mut tally, &mut errs) {
                            stop = true;
                            return ControlFlow::Break(());
                        }
                    }
                    if emit(out).is_break() {
                        stop = true;
                        return ControlFlow::Break(());
                    }
                }
                for d in diags {
                    if report(d, &mut tally, &mut errs) {
                        stop = true;
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            });
            done_before += read_bytes.load(Ordering::Relaxed);
            if let Err(e) = result {
                tally.inputs_not_read += 1;
                let d = cut_short(&e, tally.games, "games");
                stop |= report(d, &mut tally, &mut errs);
            }
        } else if opts.resume != parallel::Resume::default() {
            let d = Diagnostic::new(
                Severity::Error,
                LineCol::default(),
                "reading on from a byte offset works on PGN only",
            )
            .with_path(input.name.as_str())
            .with_code(Code::WrongFormat);
            tally.inputs_not_read += 1;
            stop |= report(d, &mut tally, &mut errs);
        } else {
            let ropts = ReadOptions {
                format: Some(format),
                max_errors: opts.max_errors,
                max_game_bytes: opts.max_game_bytes,
            };
            match Reader::open(input, &ropts) {
                Err(e) => {
                    tally.inputs_not_read += 1;
                    stop |= report(open_error(&e), &mut tally, &mut errs);
                }
                Ok(mut reader) => {
                    let mut failed = None;
                    loop {
                        // Diagnostics are reported as the reader finds
                        // them: a run of games that fail to read holds
                        // none of its messages.
                        let next = reader.next_reporting(&mut |d| {
                            stop |= report(d.with_path(input.name.as_str()), &mut tally, &mut errs);
                        });
                        let Some(next) = next else { break };
                        match next {
                            Ok(item) => {
                                let (number, line, offset) = (item.number, item.line, item.offset);
                                let out = Out {
                                    input: index,
                                    number,
                                    overall: met_before + number,
                                    line,
                                    offset,
                                    value: work(item),
                                };
                                stop |= emit(out).is_break();
                            }
                            Err(e) => {
                                failed = Some(e);
                                break;
                            }
                        }
                        if stop {
                            break;
                        }
                    }
                    for d in reader.take_diagnostics() {
                        stop |= report(d.with_path(input.name.as_str()), &mut tally, &mut errs);
                    }
                    let met = reader.items_met();
                    if is_record_format(format) {
                        tally.records += met;
                    } else {
                        tally.games += met;
                    }
                    if let Some(e) = failed {
                        tally.inputs_not_read += 1;
                        let unit = if is_record_format(format) {
                            "records"
                        } else {
                            "games"
                        };
                        let d = cut_short(&e, met, unit);
                        stop |= report(d, &mut tally, &mut errs);
                    }
                }
            }
        }
        ran.tally.add(&tally);
        if stop {
            ran.stopped = true;
            break;
        }
    }
    ran.tally.inputs = inputs.len() as u64;
    ran
}

/// Runs `work` on each of `items` on `threads` threads (each thread with
/// its own scratch state `S`, kept between items), and hands the results to
/// `emit` in the items' order. `emit` may stop the run with
/// `ControlFlow::Break`. For inputs read whole, one per item (bulk checks of
/// many small SGF, EPD or binary files); items are handed out in batches so
/// threads seldom wake one another, and the calling thread is one of the
/// `threads`: it emits what is ready in order between its own batches.
pub fn map_in_order<I, S, T, W, E>(items: &[I], threads: usize, work: W, mut emit: E)
where
    I: Sync,
    S: Default,
    T: Send,
    W: Fn(&I, &mut S) -> T + Sync,
    E: FnMut(T) -> ControlFlow<()>,
{
    // Small enough that the threads end close together (the last batch
    // is the tail one thread runs alone), large enough that taking one is
    // rare: on 2,400 small SGF files, 8 against 32 took 4.6% off the wall
    // time at the same CPU; 4 gained nothing more (BENCHMARKS.md).
    const BATCH: usize = 8;
    // No thread without a batch to take.
    let threads = threads.clamp(1, 64).min(items.len().div_ceil(BATCH).max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // The next batch's items, while any are left and nobody said stop.
    let take = || {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let start = next.fetch_add(BATCH, Ordering::Relaxed);
        (start < items.len()).then(|| start..(start + BATCH).min(items.len()))
    };
    let run = |range: std::ops::Range<usize>, scratch: &mut S| -> (usize, Vec<T>) {
        let start = range.start;
        (
            start,
            items[range]
                .iter()
                .map(|item| work(item, scratch))
                .collect(),
        )
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<T>)>(threads * 2);
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let tx = tx.clone();
            let (take, run) = (&take, &run);
            scope.spawn(move || {
                let mut scratch = S::default();
                while let Some(range) = take() {
                    if tx.send(run(range, &mut scratch)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut scratch = S::default();
        let mut pending = std::collections::BTreeMap::new();
        let mut want = 0;
        let mut taking = true;
        'run: while want < items.len() {
            while let Ok((i, batch)) = rx.try_recv() {
                pending.insert(i, batch);
            }
            // In input order.
            while let Some(batch) = pending.remove(&want) {
                want += batch.len();
                for result in batch {
                    if emit(result).is_break() {
                        stop.store(true, Ordering::Relaxed);
                        break 'run;
                    }
                }
            }
            if want >= items.len() {
                break;
            }
            if taking {
                match take() {
                    Some(range) => {
                        let (i, batch) = run(range, &mut scratch);
                        pending.insert(i, batch);
                    }
                    None => taking = false,
                }
                continue;
            }
            // Nothing left to take: wait for the other threads' batches.
            match rx.recv() {
                Ok((i, batch)) => {
                    pending.insert(i, batch);
                }
                Err(_) => break,
            }
        }
        // Dropping the receiver (end of scope) lets blocked senders go.
        drop(rx);
    });
}

/// Whether the format's unit is a record (EPD, FEN) rather than a game.
pub fn is_record_format(format: Format) -> bool {
    matches!(format, Format::Epd | Format::Fen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results come in the items' order, once each, whatever the thread
    /// count and however long each item takes; each thread keeps its
    /// scratch state.
    #[test]
    fn map_in_order_keeps_the_order_on_any_thread_count() {
        for n in [0usize, 1, 7, 8, 9, 31, 32, 33, 200, 1000] {
            let items: Vec<usize> = (0..n).collect();
            for threads in [1, 2, 3, 8] {
                let mut out = Vec::new();
                map_in_order(
                    &items,
                    threads,
                    |&i, seen: &mut usize| {
                        *seen += 1;
                        if i % 37 == 0 {
                            std::thread::sleep(std::time::Duration::from_micros(200));
                        }
                        (i, *seen)
                    },
                    |(i, seen)| {
                        assert!(seen >= 1);
                        out.push(i);
                        ControlFlow::Continue(())
                    },
                );
                assert_eq!(out, items, "{n} items on {threads} threads");
            }
        }
    }

    /// `emit` stopping the run stops it: nothing after the stop is emitted,
    /// and the threads end (the call returns).
    #[test]
    fn map_in_order_stops_when_emit_says_so() {
        let items: Vec<usize> = (0..5000).collect();
        for threads in [1, 2, 4] {
            let mut out = Vec::new();
            map_in_order(
                &items,
                threads,
                |&i, _: &mut ()| i,
                |i| {
                    out.push(i);
                    if i == 100 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            assert_eq!(out, (0..=100).collect::<Vec<_>>(), "{threads} threads");
        }
    }
}
