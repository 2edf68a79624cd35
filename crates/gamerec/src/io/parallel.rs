//! The parallel chunked PGN reader.
//!
//! An input is cut into chunks of whole games; every thread (the calling
//! one included) takes the next chunk and runs a job over it (a
//! [`Visitor`] through [`visit_chunk`]); results are handed back in input
//! order, so output never depends on the thread count. A plain file is
//! memory-mapped and planned in ranges ([`RangePlanner`]: 256 KiB with
//! several threads, 1 MiB with one) and its pages are given back once read
//! (memory stays at about `3 x threads` chunks in flight); stdin and
//! compressed input are cut by one [`Chunker`] in order. A chunk whose last
//! game was cut off (the cut guessed wrong) is read again joined to the next.
//!
//! * [`read_pgn`]: generic over the job; `gamerec check` runs a
//!   [`crate::pgn::Checker`] and counts, [`read_pgn_games`] builds owned games.
//!
//! ```
//! use gamerec::io::{Input, parallel};
//! let dir = std::env::temp_dir().join(format!("gamerec-par-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("a.pgn");
//! std::fs::write(&path, "1. e4 e5 1-0\n\n1. d4 d5 *\n".repeat(1000)).unwrap();
//! let opts = parallel::Options { threads: 2, ..parallel::Options::default() };
//! let mut games = 0;
//! parallel::read_pgn_games(&Input::file(&path), &opts, |settled| {
//!     games += settled.value.len();
//!     std::ops::ControlFlow::Continue(())
//! }).unwrap();
//! assert_eq!(games, 2000);
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

use crate::diag::{Code, Diagnostic, LineCol, LineIndex, NotListed, Severity};
use crate::model::Game;
use crate::pgn::stream::{DEFAULT_CHUNK_SIZE, count_lines, line_at};
use crate::pgn::{
    BufferPool, Chunk, ChunkRange, ChunkView, Chunker, GameBuilder, Planned, Problem, RangePlanner,
    SliceReader, Visitor,
};

use super::input::{EndAtError, Input, OpenError, counting, take_cut};
use super::looks_like_text;
use super::read::{Item, first_line_excerpt};

/// How to read in parallel.
#[derive(Debug, Clone)]
pub struct Options {
    /// Threads parsing (the calling one included); at least 1.
    pub threads: usize,
    /// Drop the text of huge comments while reading (for jobs that ignore
    /// comments, like checking): a 100 MB comment then costs a few MB.
    pub elide_comments: bool,
    /// Raw input bytes read so far, counted here (for a progress bar).
    pub read_bytes: Option<Arc<AtomicU64>>,
    /// Chunk size (default: 256 KiB for mapped files read by several
    /// threads, else 1 MiB); tests use tiny ones.
    pub chunk_size: Option<usize>,
    /// Stop once this many errors were found while no game read cleanly
    /// (the input is clearly not PGN): one more diagnostic says so.
    pub max_errors: u64,
    /// The bound on one game's bytes: a larger game is reported
    /// ([`Code::TooLarge`]) and left out, and the rest is read
    /// ([`DEFAULT_MAX_GAME_BYTES`]).
    pub max_game_bytes: u64,
    /// Where to start: the bytes before `resume.offset` are skipped (game
    /// numbers, lines and offsets still count from the input's start).
    pub resume: Resume,
    /// Where the reading is in the decompressed input: the end of the last
    /// chunk handed on (at the end, the input's decompressed length).
    pub decoded_to: Option<Arc<AtomicU64>>,
}

/// A place in an input to read on from: its byte offset (of the
/// decompressed bytes; a game starts there) and the games before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume {
    /// Bytes before the place.
    pub offset: u64,
    /// Games before the place.
    pub games: u64,
}

/// The default bound on one game's bytes: 64 MiB.
pub const DEFAULT_MAX_GAME_BYTES: u64 = 64 << 20;

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: default_threads(),
            elide_comments: false,
            read_bytes: None,
            chunk_size: None,
            max_errors: 20,
            max_game_bytes: DEFAULT_MAX_GAME_BYTES,
            resume: Resume::default(),
            decoded_to: None,
        }
    }
}

/// All cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// A diagnostic located within its chunk (made a [`Diagnostic`] once the
/// chunk's place in the input is known).
#[derive(Debug, Clone)]
pub struct Found {
    severity: Severity,
    code: Code,
    offset: u64,
    line: u64,
    column: u64,
    message: String,
    game: u64,
    game_line: u64,
    first_line: String,
    /// For the message standing for a game's notes not listed, what it
    /// counts ([`Report::game_not_listed`]).
    not_listed: Option<Box<NotListed>>,
}

impl Found {
    fn diagnostic(&self, name: &str, line_base: u64, game_base: u64) -> Diagnostic {
        let game = self.game + game_base + 1;
        let mut d = Diagnostic::new(
            self.severity,
            LineCol {
                line: self.line + line_base,
                column: self.column,
            },
            self.message.clone(),
        )
        .with_path(name)
        .with_code(self.code)
        .with_offset(self.offset)
        .with_game(game);
        d.note = Some(
            format!(
                "game {game}, line {}: {}",
                self.game_line + line_base,
                self.first_line
            )
            .into(),
        );
        d.not_listed = self.not_listed.clone();
        d
    }
}

/// What a job made of one chunk.
#[derive(Debug, Default)]
pub struct Report<T> {
    /// Games read.
    pub games: u64,
    /// Whether the chunk's last game was cut off (the chunk is then read
    /// again joined to the next one).
    pub truncated: bool,
    /// Problems found, located in the chunk.
    pub found: Vec<Found>,
    /// Problems with the game just read (pushed by the job's `each`),
    /// located at its start.
    pub game_notes: Vec<(Severity, Code, String)>,
    /// Problems with the game just read past those the job listed in
    /// `game_notes` (see [`crate::diag::MAX_LISTED`]), counted: their code,
    /// the message standing for them and what it counts. Shown after the
    /// game's notes, at its start.
    pub game_not_listed: Option<(Code, String, NotListed)>,
    /// Whether [`Settled::lines_before`] is wanted even with no diagnostics
    /// (costs a count of the lines before the chunk).
    pub needs_lines: bool,
    /// Whatever the job collects.
    pub value: T,
}

/// Where the game given to `each` of [`visit_chunk`] was read.
#[derive(Debug, Clone, Copy)]
pub struct GameAt<'a> {
    /// The chunk.
    pub chunk: ChunkView<'a>,
    /// The game's byte offset in the input.
    pub offset: u64,
    /// Whether it is the input's last game and was cut off (no
    /// termination marker before the end of the input).
    pub cut_at_end: bool,
}

/// Reads all games of a chunk with `visitor`, calling `each` per game
/// with its output and where it was read.
pub fn visit_chunk<V: Visitor, T: Default>(
    chunk: ChunkView<'_>,
    visitor: &mut V,
    mut each: impl FnMut(V::Output, GameAt<'_>, &mut Report<T>),
) -> Report<T> {
    let mut report = Report::default();
    let mut reader =
        SliceReader::with_offset(chunk.data, chunk.offset).followed_by_game(chunk.followed_by_game);
    let mut index: Option<LineIndex> = None;
    let has_oversized = chunk.oversized().next().is_some();
    if has_oversized {
        report_oversized(chunk, &mut report, &mut index, |at| at == 0);
    }
    while let Some(out) = reader.read_game(visitor) {
        report.truncated = reader.truncated();
        report.games += 1;
        let at = GameAt {
            chunk,
            offset: reader.game_offset(),
            cut_at_end: report.truncated && chunk.last,
        };
        each(out, at, &mut report);
        let problems: &[Problem] = reader.problems();
        let game_notes = std::mem::take(&mut report.game_notes);
        let not_listed = report.game_not_listed.take();
        if problems.is_empty() && game_notes.is_empty() && not_listed.is_none() {
            continue;
        }
        let at_start = reader.game_offset();
        // A note on the game, placed at its start.
        let noted = |severity, code, message| Problem {
            severity,
            offset: at_start,
            message,
            code,
        };
        let mut problems: Vec<(Problem, Option<Box<NotListed>>)> =
            problems.iter().map(|p| (p.clone(), None)).collect();
        problems.extend(
            game_notes
                .into_iter()
                .map(|(severity, code, message)| (noted(severity, code, message), None)),
        );
        if let Some((code, message, n)) = not_listed {
            problems.push((noted(n.severity(), code, message), Some(Box::new(n))));
        }
        let index = index.get_or_insert_with(|| LineIndex::new(chunk.data));
        let game = report.games - 1;
        let start = (reader.game_offset() - chunk.offset) as usize;
        // The game's first line, read once for all its problems: up to the
        // game's end, which every reading of the input puts at the same
        // place (a chunk may end right after it, in the middle of the line).
        let gl = chunk.line_col(index, start as u64);
        let game_bytes = &chunk.data[..reader.position().max(start)];
        let text = first_line_excerpt(line_at(game_bytes, start));
        for (p, not_listed) in problems {
            let rel = p.offset - chunk.offset;
            let lc = chunk.line_col(index, rel);
            report.found.push(Found {
                severity: p.severity,
                code: p.code,
                offset: p.offset,
                line: lc.line,
                column: lc.column,
                message: p.message,
                game,
                game_line: gl.line,
                first_line: text.clone(),
                not_listed,
            });
        }
    }
    if has_oversized {
        report_oversized(chunk, &mut report, &mut index, |at| at > 0);
    }
    report
}

/// Counts and reports the games of `chunk` left out for their size (those
/// whose place in the data passes `which`).
fn report_oversized<T>(
    chunk: ChunkView<'_>,
    report: &mut Report<T>,
    index: &mut Option<LineIndex>,
    which: impl Fn(usize) -> bool,
) {
    let index = index.get_or_insert_with(|| LineIndex::new(chunk.data));
    for (e, offset, lc) in chunk.oversized_at(index) {
        if which(e.at) {
            report.found.push(Found {
                severity: Severity::Error,
                code: Code::TooLarge,
                offset,
                line: lc.line,
                column: lc.column,
                message: format!(
                    "game of {} bytes is larger than the bound of one game: not read \
                     (--max-game-bytes sets the bound)",
                    e.len
                ),
                game: report.games,
                game_line: lc.line,
                first_line: first_line_excerpt(e.head()),
                not_listed: None,
            });
            report.games += 1;
        }
    }
}

/// A game may grow to this size inside one comment before `check` stops
/// holding the comment's text (`Chunker::eliding_comments`).
const CHECK_COMMENT_LIMIT: usize = 4 * DEFAULT_CHUNK_SIZE;

/// A unit of work: a chunk read already, or a range of a memory-mapped
/// plain file (read in place by the thread that takes it).
enum Piece {
    Read(Chunk),
    Range(ChunkRange),
}

impl Piece {
    /// The piece's bytes; `map` is the mapped file (if any).
    fn view<'a>(&'a self, map: &'a [u8]) -> ChunkView<'a> {
        match self {
            Piece::Read(chunk) => chunk.view(),
            Piece::Range(range) => range.view(map),
        }
    }

    /// This piece with the next one joined to it (a game ran across the
    /// cut between them): two ranges make one range, anything else is
    /// copied into one chunk.
    fn join(self, next: Piece, map: &[u8]) -> Piece {
        match (self, next) {
            (Piece::Range(a), Piece::Range(b)) => Piece::Range(ChunkRange {
                start: a.start,
                end: b.end,
                last: b.last,
                followed_by_game: b.followed_by_game,
                column: a.column,
            }),
            (a, b) => {
                let mut chunk = a.into_chunk(map);
                chunk.append(b.into_chunk(map));
                Piece::Read(chunk)
            }
        }
    }

    /// The piece as an owned chunk (a range's bytes copied from `map`).
    fn into_chunk(self, map: &[u8]) -> Chunk {
        match self {
            Piece::Read(chunk) => chunk,
            Piece::Range(range) => range.chunk(range.view(map).data.to_vec()),
        }
    }

    fn set_last(&mut self) {
        match self {
            Piece::Read(chunk) => chunk.last = true,
            Piece::Range(range) => range.last = true,
        }
    }
}

/// A plain file mapped into memory (its bytes are read in place, by as many
/// threads as parse them).
struct Mapped {
    file: File,
    map: memmap2::Mmap,
}

impl Mapped {
    fn open(input: &Input) -> Result<Option<Mapped>, OpenError> {
        let Some((file, len)) = input.open_plain()? else {
            return Ok(None);
        };
        // SAFETY: the map is only read. Should another program truncate the
        // file while it is being read, reading the lost pages faults, as it
        // does for every tool that maps its input (ripgrep, ...).
        let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file) }
            .map_err(|e| OpenError::new(input.name.clone(), e))?;
        Ok(Some(Mapped { file, map }))
    }

    fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Gives back the pages of `range`, read and done with, so resident
    /// memory stays at the pieces in flight. Everything before `range` must
    /// be done with too (the block it starts in is given back, the block it
    /// ends in is kept).
    fn release(&self, range: std::ops::Range<u64>) {
        #[cfg(unix)]
        {
            // Whole 64 KiB blocks: page-aligned whatever the page size.
            const BLOCK: u64 = 64 << 10;
            let start = range.start / BLOCK * BLOCK;
            let end = range.end / BLOCK * BLOCK;
            if end > start {
                // SAFETY: a read-only shared file mapping: dropped pages are
                // read again from the file if touched.
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        start as usize,
                        (end - start) as usize,
                    )
                };
            }
        }
        #[cfg(not(unix))]
        let _ = range;
    }
}

/// Where one input's chunks come from: a plain file is planned in ranges
/// (read in place, in parallel); anything else, or the rest of a file the
/// planner gives up on, is cut by one [`Chunker`] in order.
struct Source<'f> {
    planned: Option<(Plan<'f>, RangePlanner)>,
    /// Where the planner will look for its next cut (see [`touch_ahead`]).
    ahead: &'f AtomicU64,
    chunker: Option<Chunker<Box<dyn io::Read + Send + 'f>>>,
    elide_comments: bool,
    chunk_size: Option<usize>,
    max_game: u64,
    pool: BufferPool,
    read_bytes: Arc<AtomicU64>,
}

/// Input held in memory, planned in ranges.
#[derive(Clone, Copy)]
enum Plan<'f> {
    /// A mapped file.
    Mapped(&'f Mapped),
    /// Bytes in memory.
    Bytes(&'f [u8]),
}

impl<'f> Plan<'f> {
    fn bytes(&self) -> &'f [u8] {
        match *self {
            Plan::Mapped(m) => m.bytes(),
            Plan::Bytes(b) => b,
        }
    }

    /// The input from `start` on, to read in order.
    fn rest(&self, start: u64) -> io::Result<Box<dyn io::Read + Send + 'f>> {
        match *self {
            Plan::Mapped(m) => {
                let mut rest = m.file.try_clone()?;
                rest.seek(SeekFrom::Start(start))?;
                Ok(Box::new(rest))
            }
            Plan::Bytes(b) => Ok(Box::new(&b[start as usize..])),
        }
    }
}

impl<'f> Source<'f> {
    fn next(&mut self) -> io::Result<Option<Piece>> {
        if let Some(chunker) = &mut self.chunker {
            return Ok(chunker.next_chunk()?.map(Piece::Read));
        }
        let Some((mapped, planner)) = &mut self.planned else {
            return Ok(None);
        };
        let planned = planner.next_range(mapped.bytes());
        self.ahead
            .store(planner.next_nominal_end(), Ordering::Relaxed);
        match planned {
            None => Ok(None),
            Some(Planned::Range(range)) => Ok(Some(Piece::Range(range))),
            Some(Planned::Rest { start, column }) => {
                let reader = counting(mapped.rest(start)?, self.read_bytes.clone());
                self.chunker = Some(
                    chunker_for(
                        reader,
                        self.elide_comments,
                        self.pool.clone(),
                        start,
                        self.chunk_size,
                        self.max_game,
                    )
                    .starting_at_column(column),
                );
                self.next()
            }
        }
    }
}

fn chunker_for<'f>(
    reader: Box<dyn io::Read + Send + 'f>,
    elide_comments: bool,
    pool: BufferPool,
    start: u64,
    size: Option<usize>,
    max_game: u64,
) -> Chunker<Box<dyn io::Read + Send + 'f>> {
    let chunker = match size {
        Some(size) => Chunker::with_size(reader, size),
        None => Chunker::new(reader),
    };
    let chunker = chunker
        .with_pool(pool)
        .starting_at(start)
        .max_game_bytes(max_game);
    if elide_comments {
        chunker.eliding_comments(CHECK_COMMENT_LIMIT)
    } else {
        chunker
    }
}

/// A piece's number in the input and what reading it gave: the piece, its
/// report, and its line count where it was counted.
type Done<T> = (u64, io::Result<(Piece, Report<T>, Option<u64>)>);

/// The input's pieces, handed out in order to whichever thread asks.
struct Feed<'f> {
    /// `None` once the input is used up, failed, or the work stopped.
    source: Option<Source<'f>>,
    seq: u64,
}

/// Maps the pages the planner reads first when it next plans (those just
/// before `end`, its next nominal cut), if they are in `map`: it reads them
/// while it holds the feed, and a page fault there would keep the other
/// threads waiting.
fn touch_ahead(map: &[u8], end: u64) {
    const PAGE: usize = 4096;
    let end = (end as usize).min(map.len());
    let start = end.saturating_sub(RangePlanner::LOOKAHEAD as usize);
    for at in (start..end).step_by(PAGE) {
        std::hint::black_box(map[at]);
    }
}

/// The next piece of the input and its number; `None` when there is none.
fn take_piece(feed: &Mutex<Feed<'_>>) -> Option<(u64, io::Result<Piece>)> {
    let mut feed = feed.lock().ok()?;
    let next = feed.source.as_mut()?.next();
    let seq = feed.seq;
    match next {
        Ok(Some(piece)) => {
            feed.seq += 1;
            Some((seq, Ok(piece)))
        }
        Ok(None) => {
            feed.source = None;
            None
        }
        Err(e) => {
            feed.source = None;
            feed.seq += 1;
            Some((seq, Err(e)))
        }
    }
}

/// Line numbers of a mapped input, counted lazily: the lines of pieces
/// with nothing to report are counted only once a later piece needs its
/// line numbers (most inputs never do).
struct LineCount {
    /// Lines before `counted_to`.
    lines: u64,
    counted_to: u64,
}

impl LineCount {
    /// Counts up to `offset` (a piece boundary) and returns the lines
    /// before it.
    fn before(&mut self, offset: u64, map: &[u8]) -> u64 {
        if offset > self.counted_to {
            self.lines += count_lines(&map[self.counted_to as usize..offset as usize]);
            self.counted_to = offset;
        }
        self.lines
    }
}

/// What [`read_pgn`] hands back per chunk, in input order.
#[derive(Debug)]
pub struct Settled<T> {
    /// Games read in the input before this chunk.
    pub games_before: u64,
    /// Lines before this chunk (counted only if the chunk has diagnostics
    /// or its job set [`Report::needs_lines`]; else 0).
    pub lines_before: u64,
    /// Games read in this chunk.
    pub games: u64,
    /// The chunk's problems, located in the input (path, line, column,
    /// byte offset, game number and its first line).
    pub diagnostics: Vec<Diagnostic>,
    /// What the job collected.
    pub value: T,
}

/// Runs `job` over the chunks of `input` with `opts.threads` threads and
/// hands the results to `emit` in input order. `emit` may stop the reading
/// with `ControlFlow::Break`. Errors: the input cannot be opened or read
/// (for a truncated compressed file, after every chunk before the cut was
/// emitted).
pub fn read_pgn<T, J, E>(input: &Input, opts: &Options, job: J, emit: E) -> Result<(), OpenError>
where
    T: Send + Default,
    J: Fn(ChunkView<'_>) -> Report<T> + Sync,
    E: FnMut(Settled<T>) -> ControlFlow<()>,
{
    let read_bytes = opts
        .read_bytes
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicU64::new(0)));
    let mapped = Mapped::open(input)?;
    match &mapped {
        Some(m) => {
            if !looks_like_text(m.bytes()) {
                return not_text(&input.name, emit);
            }
            run(
                &input.name,
                Some(Plan::Mapped(m)),
                None,
                opts,
                read_bytes,
                job,
                emit,
            )
        }
        None => {
            let mut stream = input.open(Some(read_bytes.clone()))?;
            let head = stream
                .fill_buf()
                .map_err(|e| OpenError::new(input.name.clone(), e))?;
            if !looks_like_text(head) {
                return not_text(&input.name, emit);
            }
            let stream = EndAtError::new(stream);
            let cut = stream.cut();
            let stream: Box<dyn io::Read + Send> = Box::new(stream);
            run(&input.name, None, Some(stream), opts, read_bytes, job, emit)?;
            // A truncated compressed file: every game before the cut was
            // read and emitted; now the error.
            match take_cut(&cut) {
                Some(e) => Err(OpenError::new(input.name.clone(), e)),
                None => Ok(()),
            }
        }
    }
}

/// Reports binary data read as PGN in one diagnostic, and reads nothing.
fn not_text<T: Default, E>(name: &str, mut emit: E) -> Result<(), OpenError>
where
    E: FnMut(Settled<T>) -> ControlFlow<()>,
{
    let d = Diagnostic::new(
        Severity::Error,
        LineCol::default(),
        "binary data, not PGN text: not read",
    )
    .with_path(name)
    .with_code(Code::WrongFormat);
    let _ = emit(Settled {
        games_before: 0,
        lines_before: 0,
        games: 0,
        diagnostics: vec![d],
        value: T::default(),
    });
    Ok(())
}

/// [`read_pgn`] over bytes in memory named `name` (planned in ranges, as a
/// mapped file is).
pub fn read_pgn_bytes<T, J, E>(
    name: &str,
    data: &[u8],
    opts: &Options,
    job: J,
    emit: E,
) -> Result<(), OpenError>
where
    T: Send + Default,
    J: Fn(ChunkView<'_>) -> Report<T> + Sync,
    E: FnMut(Settled<T>) -> ControlFlow<()>,
{
    let read_bytes = opts
        .read_bytes
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicU64::new(0)));
    run(
        name,
        Some(Plan::Bytes(data)),
        None,
        opts,
        read_bytes,
        job,
        emit,
    )
}

fn run<'f, T, J, E>(
    name: &str,
    plan: Option<Plan<'f>>,
    stream: Option<Box<dyn io::Read + Send + 'f>>,
    opts: &Options,
    read_bytes: Arc<AtomicU64>,
    job: J,
    mut emit: E,
) -> Result<(), OpenError>
where
    T: Send + Default,
    J: Fn(ChunkView<'_>) -> Report<T> + Sync,
    E: FnMut(Settled<T>) -> ControlFlow<()>,
{
    let threads = opts.threads.max(1);
    let elide_comments = opts.elide_comments;
    let fail = |e: io::Error| OpenError::new(name.to_string(), e);
    let pool = BufferPool::default();
    let ahead = AtomicU64::new(0);
    let mut source = Source {
        planned: None,
        ahead: &ahead,
        chunker: None,
        elide_comments,
        chunk_size: opts.chunk_size,
        max_game: opts.max_game_bytes,
        pool: pool.clone(),
        read_bytes: read_bytes.clone(),
    };
    let mapped = match plan {
        Some(Plan::Mapped(m)) => Some(m),
        _ => None,
    };
    if let Some(plan) = plan {
        let size = opts.chunk_size.unwrap_or(if threads > 1 {
            PARALLEL_CHUNK_SIZE
        } else {
            DEFAULT_CHUNK_SIZE
        });
        let planner =
            RangePlanner::new(plan.bytes().len() as u64, size).max_game_bytes(opts.max_game_bytes);
        source.planned = Some((plan, planner.starting_at(opts.resume.offset)));
    }
    let mut lines = LineCount {
        lines: 0,
        counted_to: 0,
    };
    if let Some(mut stream) = stream {
        let mut column = 0;
        if opts.resume.offset > 0 {
            // Read past the bytes before the place, counting their lines.
            (lines.lines, column) =
                skip_counting_lines(&mut stream, opts.resume.offset).map_err(fail)?;
            lines.counted_to = opts.resume.offset;
        }
        source.chunker = Some(
            chunker_for(
                stream,
                elide_comments,
                pool.clone(),
                opts.resume.offset,
                opts.chunk_size,
                opts.max_game_bytes,
            )
            .starting_at_column(column),
        );
    }
    let map = plan.map_or(&[][..], |p| p.bytes());
    let mut game_base = opts.resume.games;
    let (mut errors_seen, mut clean_games) = (0u64, 0u64);
    let mut carry: Option<Piece> = None;
    let mut unreleased: Option<u64> = None;
    let mut stop = false;
    // Merges cut-off pieces, emits reports in order, frees what is done.
    let mut settle = |piece: Piece, report: Report<T>, counted: Option<u64>, stop: &mut bool| {
        let (piece, report, counted) = match carry.take() {
            Some(c) => {
                let joined = c.join(piece, map);
                let view = joined.view(map);
                let report = job(view);
                let counted = Some(view.lines());
                (joined, report, counted)
            }
            None => (piece, report, counted),
        };
        let view = piece.view(map);
        let mut report = report;
        let mut counted = counted;
        if report.truncated && !view.last {
            if view.input_len() <= opts.max_game_bytes {
                carry = Some(piece);
                return;
            }
            // A game that never ends (an unclosed comment or variation):
            // past the bound, the rest is read as new games.
            let lines = view.lines();
            counted = Some(lines);
            report.found.push(Found {
                severity: Severity::Error,
                code: Code::TooLarge,
                offset: view.offset + view.input_len(),
                line: lines + 1,
                column: 1,
                message: format!(
                    "game runs past the bound of {} bytes without ending \
                     (an unclosed comment or variation?): read up to here",
                    opts.max_game_bytes
                ),
                game: report.games.saturating_sub(1),
                game_line: lines + 1,
                first_line: String::new(),
                not_listed: None,
            });
        }
        let (start, end) = (view.offset, view.offset + view.input_len());
        if let Some(to) = &opts.decoded_to {
            to.store(end, Ordering::Relaxed);
        }
        let counted_before = lines.counted_to;
        let line_base = match counted {
            Some(_) => lines.before(start, map),
            None => 0, // nothing to report: not needed
        };
        let mut games = report.games;
        // Clearly not PGN: errors in every game so far, up to the bound.
        // The reading stops at the game of the last of those errors, as
        // the sequential reader does: the chunk's diagnostics, games and
        // value past it are dropped (the value holds nothing of the games
        // before it, which all failed), so where the chunks were cut, and
        // so the thread count, changes nothing.
        let mut hopeless = false;
        if clean_games == 0 {
            let mut next_game = 0;
            for (i, f) in report.found.iter().enumerate() {
                if f.game > next_game {
                    break; // a game before this one read cleanly
                }
                if f.severity == Severity::Error {
                    errors_seen += 1;
                    next_game = f.game + 1;
                    if errors_seen >= opts.max_errors.max(1) {
                        hopeless = true;
                        games = games.min(f.game + 1);
                        report.found.truncate(i + 1);
                        report.value = T::default();
                        break;
                    }
                }
            }
        }
        let mut failed_games: Vec<u64> = report
            .found
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.game)
            .collect();
        failed_games.dedup();
        clean_games += games - (failed_games.len() as u64).min(games);
        let mut settled = Settled {
            games_before: game_base,
            lines_before: line_base,
            games,
            diagnostics: report
                .found
                .iter()
                .map(|f| f.diagnostic(name, line_base, game_base))
                .collect(),
            value: report.value,
        };
        if hopeless {
            settled.diagnostics.push(
                Diagnostic::new(
                    Severity::Error,
                    LineCol::default(),
                    format!(
                        "stopped after {errors_seen} errors and no game read cleanly: \
                         this does not look like PGN"
                    ),
                )
                .with_path(name)
                .with_code(Code::TooManyErrors),
            );
        }
        if emit(settled).is_break() || hopeless {
            *stop = true;
        }
        if let Some(n) = counted {
            lines.lines = line_base + n;
            lines.counted_to = end;
        }
        match piece {
            Piece::Read(chunk) => pool.give(chunk.data),
            Piece::Range(range) => {
                read_bytes.fetch_add(range.end - range.start, Ordering::Relaxed);
                if let Some(m) = &mapped {
                    // Pages counted for line numbers just now are done with too.
                    let from = match counted {
                        Some(_) => counted_before.min(start),
                        None => start,
                    };
                    let from = unreleased.map_or(from, |u: u64| u.min(from));
                    // In batches: each release interrupts every thread.
                    if end - from >= RELEASE_BATCH {
                        m.release(from..end);
                        unreleased = None;
                    } else {
                        unreleased = Some(from);
                    }
                }
            }
        }
        game_base += games;
    };
    // Every thread, this one included, takes the next piece of the input
    // and parses it; this thread also settles the results in input
    // order between its pieces, so no thread is woken just to pass
    // results on. At most `threads * 3` pieces are out at once (memory).
    let feed = Mutex::new(Feed {
        source: Some(source),
        seq: 0,
    });
    let work = |seq: u64, piece: io::Result<Piece>| -> Done<T> {
        let done = piece.map(|piece| {
            let view = piece.view(map);
            let report = job(view);
            // Lines are needed for reports, and are counted here (in
            // parallel) for pieces read in order, which are not kept.
            let counted =
                (matches!(piece, Piece::Read(_)) || report.needs_lines || !report.found.is_empty())
                    .then(|| view.lines());
            (piece, report, counted)
        });
        (seq, done)
    };
    std::thread::scope(|s| -> Result<(), OpenError> {
        let (res_tx, res_rx) = channel::<Done<T>>();
        let (slot_tx, slot_rx) = sync_channel::<()>(threads * 3);
        for index in 1..threads {
            let (res_tx, slot_tx) = (res_tx.clone(), slot_tx.clone());
            let (feed, work, ahead) = (&feed, &work, &ahead);
            let parent_core = super::cpu::current();
            s.spawn(move || {
                super::cpu::spread(parent_core, index);
                while slot_tx.send(()).is_ok() {
                    touch_ahead(map, ahead.load(Ordering::Relaxed));
                    let Some((seq, piece)) = take_piece(feed) else {
                        break;
                    };
                    if res_tx.send(work(seq, piece)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(res_tx);
        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        let mut all_taken = false;
        let mut workers_gone = false;
        let outcome = loop {
            while let Ok((seq, done)) = res_rx.try_recv() {
                pending.insert(seq, done);
            }
            let mut settled = Ok(());
            while let Some(done) = pending.remove(&next) {
                next += 1;
                let _ = slot_rx.try_recv();
                settled = match done {
                    Ok((piece, report, counted)) => {
                        settle(piece, report, counted, &mut stop);
                        Ok(())
                    }
                    Err(e) => Err(fail(e)),
                };
                if stop || settled.is_err() {
                    break;
                }
            }
            if stop || settled.is_err() {
                break settled;
            }
            if !all_taken && (workers_gone || slot_tx.try_send(()).is_ok()) {
                touch_ahead(map, ahead.load(Ordering::Relaxed));
                match take_piece(&feed) {
                    Some((seq, piece)) => {
                        let (seq, done) = work(seq, piece);
                        pending.insert(seq, done);
                    }
                    None => all_taken = true,
                }
                continue;
            }
            if workers_gone {
                break if pending.is_empty() {
                    Ok(())
                } else {
                    Err(fail(io::Error::other("a chunk's result was lost")))
                };
            }
            match res_rx.recv() {
                Ok((seq, done)) => {
                    pending.insert(seq, done);
                }
                Err(_) => workers_gone = true,
            }
        };
        // Stop the workers: nothing more to take, no room for results.
        if let Ok(mut feed) = feed.lock() {
            feed.source = None;
        }
        drop(slot_rx);
        drop(res_rx);
        outcome
    })?;
    if let Some(mut piece) = carry.take() {
        // Unreachable in practice: the last piece is never carried.
        piece.set_last();
        let view = piece.view(map);
        let report = job(view);
        let line_base = lines.before(view.offset, map);
        let _ = emit(Settled {
            games_before: game_base,
            lines_before: line_base,
            games: report.games,
            diagnostics: report
                .found
                .iter()
                .map(|f| f.diagnostic(name, line_base, game_base))
                .collect(),
            value: report.value,
        });
    }
    Ok(())
}

/// Reads and drops the first `n` bytes of `stream`; returns their lines and
/// the bytes after the last of them (the column of byte `n`).
/// An input shorter than `n` is an error.
fn skip_counting_lines(stream: &mut (dyn io::Read + Send + '_), n: u64) -> io::Result<(u64, u64)> {
    let mut buf = vec![0u8; 1 << 16];
    let (mut left, mut lines, mut column) = (n, 0u64, 0u64);
    let mut after_cr = false;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let got = match stream.read(&mut buf[..want]) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the input ends before byte {n}, where the reading was to go on"),
                ));
            }
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let read = &buf[..got];
        lines += count_lines(read);
        if after_cr && read[0] == b'\n' {
            lines -= 1; // one CR LF split between two reads
        }
        after_cr = read[got - 1] == b'\r';
        column = match memchr::memrchr2(b'\n', b'\r', read) {
            Some(i) => (got - i - 1) as u64,
            None => column + got as u64,
        };
        left -= got as u64;
    }
    Ok((lines, column))
}

/// Mapped pages are given back once this many bytes are done with.
const RELEASE_BATCH: u64 = 4 << 20;

/// Chunk size of plain files read by several threads: small enough that
/// the last chunks of an input spread over the threads, large enough that
/// handing them out costs nothing measurable.
const PARALLEL_CHUNK_SIZE: usize = 256 << 10;

/// Reads the games of a PGN input in parallel into owned games, handed to
/// `emit` per chunk in input order (each as an [`Item`] with its number,
/// line and offset in the input). Games that fail to read are left out and
/// reported in the diagnostics; so is a tag section cut off at the end of
/// the input.
pub fn read_pgn_games<E>(input: &Input, opts: &Options, mut emit: E) -> Result<(), OpenError>
where
    E: FnMut(Settled<Vec<Item>>) -> ControlFlow<()>,
{
    read_pgn(input, opts, games_job, |mut settled| {
        for item in &mut settled.value {
            item.number += settled.games_before;
            item.line += settled.lines_before;
        }
        emit(settled)
    })
}

/// The job of [`read_pgn_games`]: owned games with their number and line
/// within the chunk.
pub fn games_job(chunk: ChunkView<'_>) -> Report<Vec<Item>> {
    let mut builder = GameBuilder::default();
    let mut index: Option<LineIndex> = None;
    let mut report = visit_chunk(
        chunk,
        &mut builder,
        |game: Option<Game>, at: GameAt<'_>, report: &mut Report<Vec<Item>>| {
            let number = report.games;
            let Some(game) = game else { return };
            if super::read::is_cut_off_tag_section(&game, at.cut_at_end) {
                report.game_notes.push((
                    Severity::Error,
                    Code::Truncated,
                    super::read::CUT_OFF_TAG_SECTION.into(),
                ));
                return;
            }
            let index = index.get_or_insert_with(|| LineIndex::new(at.chunk.data));
            let line = at.chunk.line_col(index, at.offset - at.chunk.offset).line;
            report.value.push(Item {
                record: super::read::Record::Game(game),
                number,
                line,
                offset: at.offset,
            });
        },
    );
    report.needs_lines = true;
    report
}
