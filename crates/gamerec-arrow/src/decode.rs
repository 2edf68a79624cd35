//! Inputs to record batches, in input order, decoded by several threads.
//!
//! One reading thread cuts each input into chunks of whole games
//! ([`gamerec::pgn::Chunker`]); worker threads parse a chunk each into one
//! record batch; the consumer puts batches back in input order and numbers
//! the games. At most `2 × threads + 1` chunks are in flight (read, being
//! decoded or waiting for their turn), so memory does not grow with the
//! input. With one thread everything runs in the caller's thread.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
use gamerec::diag::LineIndex;
use gamerec::diag::Severity;
use gamerec::pgn::stream::chunk_is_whole;
use gamerec::pgn::{Chunk, Chunker, GameBuilder, SliceReader};

use crate::games::GamesBuilder;
use crate::positions::{PositionFilter, PositionsBuilder};

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
    /// Decoding threads (0 or 1: the caller's thread only).
    pub threads: usize,
    /// Games taken into the positions table.
    pub filter: PositionFilter,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            table: Table::Games,
            threads: 1,
            filter: PositionFilter::default(),
        }
    }
}

/// A problem found in an input, with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The input's path as given.
    pub path: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column in bytes.
    pub column: u64,
    /// Byte offset in the (decompressed) input.
    pub offset: u64,
    /// An error (the game was left out) rather than a warning.
    pub error: bool,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.error { "error" } else { "warning" };
        write!(
            f,
            "{}:{}:{}: {kind}: {}",
            self.path, self.line, self.column, self.message
        )
    }
}

/// One decoded chunk of an input.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The rows of its games (numbered across all inputs by `game_id`).
    pub batch: RecordBatch,
    /// Games read (including those the filter left out).
    pub games: u64,
    /// Games that failed to read (left out).
    pub failed: u64,
    /// Warnings and errors, in input order.
    pub problems: Vec<Diagnostic>,
}

/// An input that could not be opened or read to its end.
#[derive(Debug)]
pub struct InputError {
    /// The input's path as given.
    pub path: PathBuf,
    /// Why.
    pub error: std::io::Error,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

/// A chunk of whole games of one input.
struct Piece {
    path: Arc<str>,
    chunk: Chunk,
    line_base: u64,
}

type Item = Result<Decoded, InputError>;

/// The input being cut: its name, path, chunker and lines before the next chunk.
struct OpenInput {
    name: Arc<str>,
    path: PathBuf,
    chunker: Chunker<Box<dyn Read + Send>>,
    line_base: u64,
}

/// Cuts the inputs into pieces of whole games, one input after another.
struct Pieces {
    paths: std::vec::IntoIter<PathBuf>,
    current: Option<OpenInput>,
}

impl Pieces {
    fn new(paths: Vec<PathBuf>) -> Pieces {
        Pieces {
            paths: paths.into_iter(),
            current: None,
        }
    }

    /// The next piece, an input error, or `None` when all inputs are read.
    fn next_piece(&mut self) -> Option<Result<Piece, InputError>> {
        loop {
            if self.current.is_none() {
                let path = self.paths.next()?;
                match crate::source::open(&path) {
                    Ok(read) => {
                        let name: Arc<str> = path.display().to_string().into();
                        self.current = Some(OpenInput {
                            name,
                            path,
                            chunker: Chunker::new(read),
                            line_base: 0,
                        });
                    }
                    Err(error) => return Some(Err(InputError { path, error })),
                }
            }
            let input = self.current.as_mut()?;
            match whole_chunk(&mut input.chunker) {
                Ok(Some(chunk)) => {
                    let piece = Piece {
                        path: input.name.clone(),
                        line_base: input.line_base,
                        chunk,
                    };
                    input.line_base += piece.chunk.lines();
                    return Some(Ok(piece));
                }
                Ok(None) => self.current = None,
                Err(error) => {
                    let path = input.path.clone();
                    self.current = None;
                    return Some(Err(InputError { path, error }));
                }
            }
        }
    }
}

fn whole_chunk<R: Read>(chunker: &mut Chunker<R>) -> std::io::Result<Option<Chunk>> {
    let Some(mut chunk) = chunker.next_chunk()? else {
        return Ok(None);
    };
    while !chunk_is_whole(&chunk) {
        match chunker.next_chunk()? {
            Some(next) => chunk.append(next),
            None => chunk.last = true,
        }
    }
    Ok(Some(chunk))
}

enum Rows {
    Games(Box<GamesBuilder>),
    Positions(Box<PositionsBuilder>),
}

/// Parses one piece into a batch; game ids start at 0 in the piece.
fn decode(piece: &Piece, opts: &Options) -> Decoded {
    let chunk = &piece.chunk;
    let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset);
    let mut builder = GameBuilder::default();
    let mut rows = match opts.table {
        Table::Games => Rows::Games(Box::default()),
        Table::Positions => Rows::Positions(Box::default()),
    };
    let mut games = 0u64;
    let mut failed = 0u64;
    let mut problems = Vec::new();
    let mut index: Option<LineIndex> = None;
    while let Some(out) = reader.read_game(&mut builder) {
        for problem in reader.problems() {
            let index = index.get_or_insert_with(|| LineIndex::new(&chunk.data));
            let at = chunk.line_col(index, problem.offset.saturating_sub(chunk.offset));
            problems.push(Diagnostic {
                path: piece.path.to_string(),
                line: at.line + piece.line_base,
                column: at.column,
                offset: problem.offset,
                error: problem.severity == Severity::Error,
                message: problem.message.clone(),
            });
        }
        let Some(mut game) = out else {
            failed += 1;
            continue;
        };
        let id = games;
        games += 1;
        match &mut rows {
            Rows::Games(b) => b.append(id, &mut game),
            Rows::Positions(b) => {
                if opts.filter.accepts(&game) {
                    b.append(id, &game);
                }
            }
        }
    }
    let batch = match rows {
        Rows::Games(b) => b.finish(),
        Rows::Positions(b) => b.finish(),
    };
    Decoded {
        batch,
        games,
        failed,
        problems,
    }
}

/// Renumbers the `game_id` column (the first) from `base`.
fn renumber(decoded: &mut Decoded, base: u64) {
    if base == 0 || decoded.batch.num_rows() == 0 {
        return;
    }
    let batch = &decoded.batch;
    let Some(ids) = batch.column(0).as_any().downcast_ref::<UInt64Array>() else {
        return;
    };
    let ids: ArrayRef = Arc::new(
        ids.iter()
            .map(|v| v.map(|v| v + base))
            .collect::<UInt64Array>(),
    );
    let mut columns = batch.columns().to_vec();
    columns[0] = ids;
    decoded.batch =
        RecordBatch::try_new(batch.schema(), columns).expect("the same column type and length");
}

enum Engine {
    Inline {
        pieces: Pieces,
        opts: Options,
    },
    Parallel {
        results: Receiver<(u64, Item)>,
        credits: SyncSender<()>,
        waiting: BTreeMap<u64, Item>,
        next: u64,
    },
}

/// Record batches of the chosen table from the inputs, in input order: an
/// iterator of [`Decoded`] chunks and [`InputError`]s (an input that cannot
/// be read is reported and the next one is read).
pub struct Batches {
    engine: Engine,
    next_game_id: u64,
}

impl Batches {
    /// Decodes `paths` (`-` is standard input) with `opts`.
    pub fn new(paths: Vec<PathBuf>, opts: Options) -> Batches {
        let pieces = Pieces::new(paths);
        let threads = opts.threads.max(1);
        if threads == 1 {
            return Batches {
                engine: Engine::Inline { pieces, opts },
                next_game_id: 0,
            };
        }
        let in_flight = 2 * threads + 1;
        let (credits, credit_rx) = sync_channel::<()>(in_flight);
        for _ in 0..in_flight {
            let _ = credits.send(());
        }
        let (results_tx, results) = sync_channel::<(u64, Item)>(in_flight);
        let (work_tx, work_rx) = sync_channel::<(u64, Piece)>(threads);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let opts = Arc::new(opts);
        for _ in 0..threads {
            let work_rx = Arc::clone(&work_rx);
            let results_tx = results_tx.clone();
            let opts = Arc::clone(&opts);
            std::thread::spawn(move || {
                loop {
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((seq, piece))) = next else { return };
                    let decoded = decode(&piece, &opts);
                    if results_tx.send((seq, Ok(decoded))).is_err() {
                        return;
                    }
                }
            });
        }
        std::thread::spawn(move || {
            let mut pieces = pieces;
            let mut seq = 0u64;
            while credit_rx.recv().is_ok() {
                let Some(next) = pieces.next_piece() else {
                    return;
                };
                let sent = match next {
                    Ok(piece) => work_tx.send((seq, piece)).is_ok(),
                    Err(e) => results_tx.send((seq, Err(e))).is_ok(),
                };
                if !sent {
                    return;
                }
                seq += 1;
            }
        });
        Batches {
            engine: Engine::Parallel {
                results,
                credits,
                waiting: BTreeMap::new(),
                next: 0,
            },
            next_game_id: 0,
        }
    }

    /// Decodes one input with `opts`.
    pub fn of_path(path: &Path, opts: Options) -> Batches {
        Batches::new(vec![path.to_path_buf()], opts)
    }
}

impl Iterator for Batches {
    type Item = Result<Decoded, InputError>;

    fn next(&mut self) -> Option<Item> {
        let item = match &mut self.engine {
            Engine::Inline { pieces, opts } => {
                pieces.next_piece()?.map(|piece| decode(&piece, opts))
            }
            Engine::Parallel {
                results,
                credits,
                waiting,
                next,
            } => loop {
                if let Some(item) = waiting.remove(next) {
                    *next += 1;
                    let _ = credits.try_send(());
                    break item;
                }
                let (seq, item) = results.recv().ok()?;
                waiting.insert(seq, item);
            },
        };
        Some(item.map(|mut decoded| {
            renumber(&mut decoded, self.next_game_id);
            self.next_game_id += decoded.games;
            decoded
        }))
    }
}
