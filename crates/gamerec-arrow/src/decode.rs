//! Inputs to record batches, in input order, decoded by several threads.
//!
//! Each input goes through the library's parallel PGN reader
//! ([`gamerec::io::parallel::read_pgn`]: a plain file is memory-mapped and
//! cut in ranges, compressed input and stdin by one chunker; results come
//! back in input order with bounded memory); the job run on each chunk
//! builds one record batch of the chosen table. The reading runs on its own
//! thread and hands the batches over a bounded channel, so a consumer
//! (Parquet writer, Python) pulls them as an iterator.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use gamerec::diag::{Code, Diagnostic, Severity};
use gamerec::io::parallel::{self, GameAt, Report, visit_chunk};
use gamerec::io::read::{CUT_OFF_TAG_SECTION, is_cut_off_tag_section};
use gamerec::io::{Format, Input, OpenError, ReadOptions, Reader, Record};
use gamerec::model::Game;
use gamerec::pgn::{ChunkView, GameBuilder};

use crate::games::GamesBuilder;
use crate::lineage;
use crate::positions::{PositionFilter, PositionsBuilder};
use crate::visit::{GameRows, Outcome, PositionRows, RowsVisitor, Sink};

/// Which table to build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Table {
    /// One row per game.
    #[default]
    Games,
    /// One row per main-line ply.
    Positions,
}

impl std::str::FromStr for Table {
    type Err = String;
    fn from_str(s: &str) -> Result<Table, String> {
        match s {
            "games" => Ok(Table::Games),
            "positions" => Ok(Table::Positions),
            _ => Err(format!("unknown table {s:?}: expected games or positions")),
        }
    }
}

/// What to decode and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The table built.
    pub table: Table,
    /// Decoding threads (at least 1).
    pub threads: usize,
    /// Games given rows (in either table): the others are read, checked
    /// and counted, but get no row.
    pub filter: PositionFilter,
    /// Names for the inputs, by position, in messages and the `source`
    /// column (a URL whose local copy is read); the path where missing.
    pub names: Vec<String>,
    /// The bound on one game's bytes: a larger game is reported and left
    /// out ([`parallel::DEFAULT_MAX_GAME_BYTES`]).
    pub max_game_bytes: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            table: Table::Games,
            threads: 1,
            filter: PositionFilter::default(),
            names: Vec::new(),
            max_game_bytes: parallel::DEFAULT_MAX_GAME_BYTES,
        }
    }
}

/// One decoded chunk of an input.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The rows of its games (numbered across all inputs by `game_id`).
    pub batch: RecordBatch,
    /// Games read, as `gamerec check` counts them: with those that failed
    /// and those the filter left out.
    pub games: u64,
    /// Games that failed to read (left out; counted in `games`).
    pub failed: u64,
    /// Warnings and errors, in input order, with path, line and column.
    pub problems: Vec<Diagnostic>,
}

/// An input that could not be opened or read to its end (`PATH: reason`).
pub type InputError = OpenError;

/// What the job makes of one chunk.
#[derive(Default)]
struct Part {
    batch: Option<RecordBatch>,
    built: u64,
    failed: u64,
    /// Where each game given an id (from 0) starts in the input.
    offsets: Vec<u64>,
}

enum Rows {
    Games(Box<GamesBuilder>),
    Positions(Box<PositionsBuilder>),
}

impl Rows {
    fn new(table: Table) -> Rows {
        match table {
            Table::Games => Rows::Games(Box::default()),
            Table::Positions => Rows::Positions(Box::default()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Rows::Games(b) => b.len(),
            Rows::Positions(b) => b.len(),
        }
    }

    fn append(&mut self, id: u64, game: &mut Game, filter: &PositionFilter) {
        if !filter.accepts(game) {
            return;
        }
        match self {
            Rows::Games(b) => b.append(id, game),
            Rows::Positions(b) => b.append(id, game),
        }
    }

    fn finish(self) -> RecordBatch {
        match self {
            Rows::Games(b) => b.finish(),
            Rows::Positions(b) => b.finish(),
        }
    }
}

/// The job run on each chunk: its games as one batch, game ids from 0.
fn decode(chunk: ChunkView<'_>, opts: &Options) -> Report<Part> {
    match opts.table {
        Table::Games if opts.filter.is_none() => {
            decode_streaming(chunk, GamesBuilder::default(), GamesBuilder::finish)
        }
        Table::Games => {
            let rows = GameRows {
                rows: GamesBuilder::default(),
                filter: &opts.filter,
            };
            decode_streaming(chunk, rows, |r| r.rows.finish())
        }
        Table::Positions => {
            let rows = PositionRows {
                rows: PositionsBuilder::default(),
                filter: &opts.filter,
            };
            decode_streaming(chunk, rows, |r| r.rows.finish())
        }
    }
}

/// A table of a chunk, filled from the reader's events ([`RowsVisitor`]).
fn decode_streaming<S: Sink>(
    chunk: ChunkView<'_>,
    rows: S,
    finish: impl FnOnce(S) -> RecordBatch,
) -> Report<Part> {
    let mut visitor = RowsVisitor::new(chunk, rows);
    let mut failed = 0u64;
    let mut report = visit_chunk(
        chunk,
        &mut visitor,
        |outcome: Outcome, _: GameAt<'_>, report: &mut Report<Part>| match outcome {
            Outcome::Row => {}
            Outcome::Failed => failed += 1,
            Outcome::CutOff => {
                let note = (Severity::Error, Code::Truncated, CUT_OFF_TAG_SECTION.into());
                report.game_notes.push(note);
                failed += 1;
            }
        },
    );
    let built = visitor.rows;
    let offsets = std::mem::take(&mut visitor.offsets);
    report.value = Part {
        batch: Some(finish(visitor.out)),
        built,
        failed,
        offsets,
    };
    report
}

/// A chunk's games built as [`Game`]s, then turned into rows of the table:
/// the reference the streaming decode is tested against.
fn decode_through_model(chunk: ChunkView<'_>, opts: &Options) -> Report<Part> {
    let mut builder = GameBuilder::default();
    let mut rows = Rows::new(opts.table);
    let mut built = 0u64;
    let mut failed = 0u64;
    let mut offsets = Vec::new();
    let mut report = visit_chunk(
        chunk,
        &mut builder,
        |game: Option<Game>, at: GameAt<'_>, report: &mut Report<Part>| {
            let Some(mut game) = game else {
                failed += 1;
                return;
            };
            if is_cut_off_tag_section(&game, at.cut_at_end) {
                let note = (Severity::Error, Code::Truncated, CUT_OFF_TAG_SECTION.into());
                report.game_notes.push(note);
                failed += 1;
                return;
            }
            rows.append(built, &mut game, &opts.filter);
            built += 1;
            offsets.push(at.offset);
        },
    );
    let batch = rows.finish();
    report.value = Part {
        batch: Some(batch),
        built,
        failed,
        offsets,
    };
    report
}

/// A table of a PGN chunk built through the model (a [`Game`] per game;
/// the games table's movetext exported again): what the streaming decode
/// must equal. For tests and benchmarks; the batch, games read and games
/// failed.
#[doc(hidden)]
pub fn decode_through_model_for_test(
    data: &[u8],
    last: bool,
    opts: &Options,
) -> (RecordBatch, u64, u64) {
    let part = decode_through_model(chunk_of(data, last), opts).value;
    (part.batch.expect("a batch"), part.built, part.failed)
}

/// A table of a PGN chunk by the streaming decode; as
/// [`decode_through_model_for_test`].
#[doc(hidden)]
pub fn decode_streaming_for_test(
    data: &[u8],
    last: bool,
    opts: &Options,
) -> (RecordBatch, u64, u64) {
    let part = decode(chunk_of(data, last), opts).value;
    (part.batch.expect("a batch"), part.built, part.failed)
}

fn chunk_of(data: &[u8], last: bool) -> ChunkView<'_> {
    ChunkView {
        data,
        offset: 0,
        last,
        elided: &[],
        followed_by_game: false,
        column: 0,
    }
}

/// Renumbers the `game_id` column (the first) from `base`.
fn renumber(batch: RecordBatch, base: u64) -> RecordBatch {
    if base == 0 || batch.num_rows() == 0 {
        return batch;
    }
    let Some(ids) = batch.column(0).as_any().downcast_ref::<Int64Array>() else {
        return batch;
    };
    let base = base as i64;
    let ids: ArrayRef = Arc::new(ids.unary::<_, arrow_array::types::Int64Type>(|v| v + base));
    let mut columns = batch.columns().to_vec();
    columns[0] = ids;
    RecordBatch::try_new(batch.schema(), columns).expect("the same column type and length")
}

/// Record batches of the chosen table from the inputs, in input order: an
/// iterator of [`Decoded`] chunks and [`InputError`]s (an input that cannot
/// be read is reported and the next one is read).
pub struct Batches {
    results: Receiver<Result<Decoded, InputError>>,
}

impl Batches {
    /// Decodes `paths` (`-` is standard input) with `opts`.
    pub fn new(paths: Vec<PathBuf>, opts: Options) -> Batches {
        let threads = opts.threads.max(1);
        let (tx, results) = sync_channel(2 * threads);
        std::thread::spawn(move || {
            let read_opts = parallel::Options {
                threads,
                max_game_bytes: opts.max_game_bytes,
                ..parallel::Options::default()
            };
            let mut next_id = 0u64;
            let games = opts.table == Table::Games;
            // SGF files (and directories of them) make the Go tables.
            let (paths, names) = crate::go::expand_directories(paths, &opts.names);
            if paths.first().is_some_and(|p| crate::go::is_sgf_path(p)) {
                crate::go::read_go(&paths, &names, &opts, &tx);
                return;
            }
            for (i, path) in paths.into_iter().enumerate() {
                let mut input = Input::from_arg(path.as_os_str());
                if let Some(name) = names.get(i).filter(|n| !n.is_empty()) {
                    input.name = name.clone();
                }
                if crate::go::is_sgf_path(&path) {
                    if tx.send(Err(crate::go::mixed_error(&input))).is_err() {
                        return;
                    }
                    continue;
                }
                if crate::FileKind::of_path(&path) == Some(crate::FileKind::Parquet) {
                    match read_table(&input, &path, &opts, &mut next_id, &tx) {
                        ControlFlow::Continue(()) => continue,
                        ControlFlow::Break(()) => return,
                    }
                }
                if input.format_by_name().is_some_and(|f| f != Format::Pgn) {
                    match read_any(&input, &opts, &mut next_id, &tx) {
                        ControlFlow::Continue(()) => continue,
                        ControlFlow::Break(()) => return,
                    }
                }
                let mut stopped = false;
                let mut met = 0u64;
                let mut error_games = gamerec::io::pipeline::ErrorGames::default();
                let read = parallel::read_pgn(
                    &input,
                    &read_opts,
                    |chunk| decode(chunk, &opts),
                    |settled| {
                        met += settled.games;
                        let part = settled.value;
                        // Games with errors as the pipeline counts them:
                        // a game too large to decode counts too.
                        let failed = settled
                            .diagnostics
                            .iter()
                            .filter(|d| error_games.is_new(d))
                            .count() as u64;
                        let batch = match part.batch {
                            Some(b) => {
                                match lineage::append(b, games, &input.name, &part.offsets) {
                                    Ok(b) => renumber(b, next_id),
                                    Err(e) => {
                                        let e = OpenError::new(
                                            input.name.clone(),
                                            std::io::Error::other(e.to_string()),
                                        );
                                        stopped = tx.send(Err(e)).is_err();
                                        return ControlFlow::Break(());
                                    }
                                }
                            }
                            // Nothing decoded, but maybe something to say
                            // (binary data read as PGN).
                            None if settled.diagnostics.is_empty() => {
                                return ControlFlow::Continue(());
                            }
                            None => RecordBatch::new_empty(match opts.table {
                                Table::Games => crate::schema::games(),
                                Table::Positions => crate::schema::positions(),
                            }),
                        };
                        next_id += part.built;
                        let decoded = Decoded {
                            batch,
                            games: settled.games,
                            failed,
                            problems: settled.diagnostics,
                        };
                        if tx.send(Ok(decoded)).is_err() {
                            stopped = true;
                            return ControlFlow::Break(());
                        }
                        ControlFlow::Continue(())
                    },
                );
                if stopped {
                    return;
                }
                if let Err(e) = read
                    && tx.send(Err(cut_short(e, met))).is_err()
                {
                    return;
                }
            }
        });
        Batches { results }
    }

    /// Decodes one input with `opts`.
    pub fn of_path(path: &Path, opts: Options) -> Batches {
        Batches::new(vec![path.to_path_buf()], opts)
    }
}

impl Iterator for Batches {
    type Item = Result<Decoded, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.results.recv().ok()
    }
}

/// An input read part of the way: the error says how many games were read
/// first (as [`gamerec::io::pipeline::cut_short`] does).
fn cut_short(e: InputError, met: u64) -> InputError {
    if met == 0 {
        return e;
    }
    let kind = e.source.kind();
    let message = format!("{} (after {met} games read)", e.source);
    OpenError::new(e.name, std::io::Error::new(kind, message))
}

/// Games per batch when reading formats other than PGN.
const GAMES_PER_BATCH: usize = 1024;
/// Diagnostics held before they go on in a batch of their own (see
/// `read_any`).
const PROBLEMS_PER_BATCH: usize = 1024;

/// Reads a non-PGN chess input (JSON, PGC, CBF, FBK, EPD: positions become
/// games starting there) with the library's one reader, in batches.
/// `Break` when the consumer is gone.
fn read_any(
    input: &Input,
    opts: &Options,
    next_id: &mut u64,
    tx: &std::sync::mpsc::SyncSender<Result<Decoded, InputError>>,
) -> ControlFlow<()> {
    let ropts = ReadOptions {
        max_game_bytes: opts.max_game_bytes,
        ..ReadOptions::default()
    };
    let mut reader = match Reader::open(input, &ropts) {
        Ok(r) => r,
        Err(e) => {
            return if tx.send(Err(e)).is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
    };
    let mut rows = Rows::new(opts.table);
    let mut built = 0u64;
    let mut offsets = Vec::new();
    let mut games_in_rows = 0usize;
    let mut error = None;
    // Games met before this batch, as the pipeline counts them: read or not.
    let mut met_before = 0u64;
    let games = opts.table == Table::Games;
    // The diagnostics of the batch being built. A run of records that fail
    // to read adds no row: past PROBLEMS_PER_BATCH its diagnostics go on in
    // a batch of no rows (the next batch counts the failed records), so
    // memory holds at most that many however long the run.
    let mut problems = Vec::new();
    let mut gone = false;
    let no_rows = match lineage::append(Rows::new(opts.table).finish(), games, &input.name, &[]) {
        Ok(b) => b,
        Err(e) => {
            let e = OpenError::new(input.name.clone(), std::io::Error::other(e.to_string()));
            tx.send(Err(e)).ok(); // the consumer may be gone: stop either way
            return ControlFlow::Break(());
        }
    };
    loop {
        let item = reader.next_reporting(&mut |d| {
            problems.push(d);
            if problems.len() >= PROBLEMS_PER_BATCH && !gone {
                let decoded = Decoded {
                    batch: no_rows.clone(),
                    games: 0,
                    failed: 0,
                    problems: std::mem::take(&mut problems),
                };
                gone = tx.send(Ok(decoded)).is_err();
            }
        });
        if gone {
            return ControlFlow::Break(());
        }
        let done = match item {
            None => true,
            Some(Err(e)) => {
                error = Some(e);
                true
            }
            Some(Ok(item)) => {
                let mut game = match item.record {
                    Record::Game(g) => g,
                    other @ Record::Position(_) => other.to_game().value,
                };
                rows.append(built, &mut game, &opts.filter);
                built += 1;
                // Formats without offsets (0 past the first record): the
                // record number stands in (see lineage::UNKNOWN).
                offsets.push(if item.offset == 0 && item.number > 1 {
                    lineage::UNKNOWN | item.number
                } else {
                    item.offset
                });
                games_in_rows += 1;
                false
            }
        };
        if done || games_in_rows >= GAMES_PER_BATCH || rows.len() >= 64 * GAMES_PER_BATCH {
            let problems = std::mem::take(&mut problems);
            // A game may have several errors: the games that failed are
            // those met and not handed out.
            let met = reader.items_met().max(met_before + built);
            let failed = met - met_before - built;
            met_before = met;
            let batch = std::mem::replace(&mut rows, Rows::new(opts.table)).finish();
            let batch = match lineage::append(batch, games, &input.name, &offsets) {
                Ok(b) => renumber(b, *next_id),
                Err(e) => {
                    let e =
                        OpenError::new(input.name.clone(), std::io::Error::other(e.to_string()));
                    tx.send(Err(e)).ok(); // the consumer may be gone: stop either way
                    return ControlFlow::Break(());
                }
            };
            offsets.clear();
            let decoded = Decoded {
                batch,
                games: built + failed,
                failed,
                problems,
            };
            *next_id += built;
            built = 0;
            games_in_rows = 0;
            if tx.send(Ok(decoded)).is_err() {
                return ControlFlow::Break(());
            }
        }
        if done {
            break;
        }
    }
    if let Some(e) = error
        && tx.send(Err(e)).is_err()
    {
        return ControlFlow::Break(());
    }
    ControlFlow::Continue(())
}

/// Reads a Parquet table of games: a lichess dataset file (`movetext`
/// and tag columns, [`crate::hf`]) or a gamerec games table; `offset` is
/// the row number. `Break` when the consumer is gone.
fn read_table(
    input: &Input,
    path: &Path,
    opts: &Options,
    next_id: &mut u64,
    tx: &std::sync::mpsc::SyncSender<Result<Decoded, InputError>>,
) -> ControlFlow<()> {
    let fail = |e: crate::Error| {
        let e = OpenError::new(input.name.clone(), std::io::Error::other(e.to_string()));
        if tx.send(Err(e)).is_err() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let batches = match crate::hf::open(path) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    let games = opts.table == Table::Games;
    let mut first_row = 0u64;
    for batch in batches {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        let rows_in = batch.num_rows() as u64;
        let parts = if batch.schema().column_with_name("game_id").is_some() {
            vec![own_table_part(&batch, opts, &input.name, first_row)]
        } else {
            hf_parts(&batch, opts, &input.name, first_row)
        };
        first_row += rows_in;
        for part in parts {
            let part = match part {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            let given = part.rows.len() as u64;
            let batch = match lineage::append(part.batch, games, &input.name, &part.rows) {
                Ok(b) => renumber(b, *next_id),
                Err(e) => return fail(e.into()),
            };
            *next_id += given;
            let decoded = Decoded {
                batch,
                games: part.games,
                failed: part.failed,
                problems: part.problems,
            };
            if tx.send(Ok(decoded)).is_err() {
                return ControlFlow::Break(());
            }
        }
    }
    ControlFlow::Continue(())
}

/// A batch of a lichess dataset file decoded in `opts.threads` slices of
/// consecutive rows, each on a thread of its own; the parts in row order.
fn hf_parts(
    batch: &RecordBatch,
    opts: &Options,
    name: &str,
    first_row: u64,
) -> Vec<Result<crate::hf::Part, crate::Error>> {
    let rows = batch.num_rows();
    let threads = opts.threads.clamp(1, rows.div_ceil(256).max(1));
    if threads == 1 {
        return vec![crate::hf::decode(batch, opts, name, first_row)];
    }
    let step = rows.div_ceil(threads);
    std::thread::scope(|scope| {
        let jobs: Vec<_> = (0..rows)
            .step_by(step)
            .map(|at| {
                let slice = batch.slice(at, step.min(rows - at));
                scope.spawn(move || crate::hf::decode(&slice, opts, name, first_row + at as u64))
            })
            .collect();
        jobs.into_iter()
            .map(|job| job.join().expect("a decoding thread does not panic"))
            .collect()
    })
}

/// The rows of a batch of a gamerec games table read as input.
fn own_table_part(
    batch: &RecordBatch,
    opts: &Options,
    name: &str,
    first_row: u64,
) -> Result<crate::hf::Part, crate::Error> {
    let games = crate::read::games_of_batch(batch)?;
    let mut rows = Rows::new(opts.table);
    let mut given = Vec::with_capacity(games.len());
    let mut problems = Vec::new();
    let n = games.len() as u64;
    for (i, (_, game)) in games.into_iter().enumerate() {
        let row = first_row + i as u64;
        match game {
            Ok(mut game) => {
                rows.append(given.len() as u64, &mut game, &opts.filter);
                given.push(row);
            }
            // The row is left out; the rows after it are read on.
            Err(why) => problems.push(Diagnostic {
                severity: Severity::Error,
                path: Some(name.to_owned()),
                message: format!("row {row}: {why}"),
                game: Some(row + 1),
                ..Diagnostic::default()
            }),
        }
    }
    Ok(crate::hf::Part {
        batch: rows.finish(),
        games: n,
        failed: problems.len() as u64,
        rows: given,
        problems,
    })
}

/// Whether a diagnostic is an error (its game was left out).
pub fn is_error(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
}
