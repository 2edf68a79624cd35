//! `gamerec check` and `gamerec convert` over PGN inputs.
//!
//! Inputs are cut into chunks of whole games ([`Chunker`]); worker threads
//! read chunks in parallel and the results are emitted in input order. A
//! chunk whose last game was cut off (the cut guessed wrong) is read again
//! joined to the next one, so results never depend on the thread count.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::io::{Seek, SeekFrom};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use gamerec::diag::{LineIndex, Severity};
use gamerec::pgn::stream::{DEFAULT_CHUNK_SIZE, count_lines, line_at};
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{
    BufferPool, CheckOptions, Checker, Chunk, ChunkRange, ChunkView, Chunker, Encoding,
    GameBuilder, Planned, Problem, RangePlanner, SliceReader, Visitor, WriteOptions,
    write_game_json,
};

use crate::input::{Format, Input, counting, is_broken_pipe, open_output};
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
    moves: u64,
    truncated: bool,
    found: Vec<Found>,
    out: Vec<u8>,
    /// Warnings about the game just read, located at its start.
    game_warnings: Vec<String>,
}

/// Reads all games of a chunk with `visitor`, calling `each` per game.
fn read_chunk<V: Visitor>(
    chunk: ChunkView<'_>,
    visitor: &mut V,
    mut each: impl FnMut(V::Output, &mut Report),
) -> Report {
    let mut report = Report::default();
    let mut reader = SliceReader::with_offset(chunk.data, chunk.offset);
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
        let index = index.get_or_insert_with(|| LineIndex::new(chunk.data));
        let game = report.games - 1;
        let start = (reader.game_offset() - chunk.offset) as usize;
        for p in &problems {
            let rel = p.offset - chunk.offset;
            let lc = chunk.line_col(index, rel);
            let gl = chunk.line_col(index, start as u64);
            let mut text = String::from_utf8_lossy(line_at(chunk.data, start)).into_owned();
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
    fn open(input: &Input) -> io::Result<Option<Mapped>> {
        let Some((file, len)) = input.open_plain()? else {
            return Ok(None);
        };
        // SAFETY: the map is only read. Should another program truncate the
        // file while it is being read, reading the lost pages faults, as it
        // does for every tool that maps its input (ripgrep, ...).
        let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file)? };
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
    planned: Option<(&'f Mapped, RangePlanner)>,
    /// Where the planner will look for its next cut (see [`touch_ahead`]).
    ahead: &'f AtomicU64,
    chunker: Option<Chunker<Box<dyn io::Read + Send>>>,
    elide_comments: bool,
    pool: BufferPool,
    read_bytes: Arc<AtomicU64>,
}

impl Source<'_> {
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
            Some(Planned::Rest { start }) => {
                let mut rest = mapped.file.try_clone()?;
                rest.seek(SeekFrom::Start(start))?;
                let reader = counting(Box::new(rest), self.read_bytes.clone());
                self.chunker = Some(chunker_for(
                    reader,
                    self.elide_comments,
                    self.pool.clone(),
                    start,
                ));
                self.next()
            }
        }
    }
}

fn chunker_for(
    reader: Box<dyn io::Read + Send>,
    elide_comments: bool,
    pool: BufferPool,
    start: u64,
) -> Chunker<Box<dyn io::Read + Send>> {
    let chunker = Chunker::new(reader).with_pool(pool).starting_at(start);
    if elide_comments {
        chunker.eliding_comments(CHECK_COMMENT_LIMIT)
    } else {
        chunker
    }
}

/// A piece's number in the input and what reading it gave: the piece, its
/// report, and its line count where it was counted.
type Done = (u64, io::Result<(Piece, Report, Option<u64>)>);

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

/// Runs `job` over the chunks of every input with `threads` workers and
/// hands the reports to `emit` in input order, with the lines and games
/// before the chunk. With `elide_comments` the text of huge comments is not
/// held (for jobs that ignore comments).
fn run<J, E>(
    inputs: &[Input],
    threads: usize,
    elide_comments: bool,
    job: J,
    mut emit: E,
) -> Result<()>
where
    J: Fn(ChunkView<'_>) -> Report + Sync,
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
        let read_bytes = Arc::new(AtomicU64::new(0));
        let done_before = progress.read_bytes.load(Ordering::Relaxed);
        let mapped = Mapped::open(input)?;
        let pool = BufferPool::default();
        let ahead = AtomicU64::new(0);
        let mut source = Source {
            planned: None,
            ahead: &ahead,
            chunker: None,
            elide_comments,
            pool: pool.clone(),
            read_bytes: read_bytes.clone(),
        };
        match &mapped {
            Some(m) => {
                let size = if threads > 1 {
                    PARALLEL_CHUNK_SIZE
                } else {
                    DEFAULT_CHUNK_SIZE
                };
                source.planned = Some((m, RangePlanner::new(m.bytes().len() as u64, size)));
            }
            None => {
                let reader = input.open(Some(read_bytes.clone()))?;
                source.chunker = Some(chunker_for(reader, elide_comments, pool.clone(), 0));
            }
        }
        let map = mapped.as_ref().map_or(&[][..], Mapped::bytes);
        let mut lines = LineCount {
            lines: 0,
            counted_to: 0,
        };
        let mut game_base = 0u64;
        let mut carry: Option<Piece> = None;
        let mut unreleased: Option<u64> = None;
        let mut stop = false;
        // Merges cut-off pieces, emits reports in order, frees what is done.
        let mut settle =
            |piece: Piece, report: Report, counted: Option<u64>, stop: &mut bool| -> Result<()> {
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
                if report.truncated && !view.last {
                    carry = Some(piece);
                    return Ok(());
                }
                let (start, end) = (view.offset, view.offset + view.input_len());
                let counted_before = lines.counted_to;
                let line_base = match counted {
                    Some(_) => lines.before(start, map),
                    None => 0, // nothing to report: not needed
                };
                let games = report.games;
                if !emit(input, report, line_base, game_base)? {
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
                games_seen += games;
                progress.read_bytes.store(
                    done_before + read_bytes.load(Ordering::Relaxed),
                    Ordering::Relaxed,
                );
                progress.update(games_seen);
                Ok(())
            };
        // Every thread, this one included, takes the next piece of the input
        // and parses it; this thread also settles the results in input
        // order between its pieces, so no thread is woken just to pass
        // results on. At most `threads * 3` pieces are out at once (memory).
        let feed = Mutex::new(Feed {
            source: Some(source),
            seq: 0,
        });
        let work = |seq: u64, piece: io::Result<Piece>| -> Done {
            let done = piece.map(|piece| {
                let view = piece.view(map);
                let report = job(view);
                // Lines are needed for reports, and are counted here (in
                // parallel) for pieces read in order, which are not kept.
                let counted = (matches!(piece, Piece::Read(_)) || !report.found.is_empty())
                    .then(|| view.lines());
                (piece, report, counted)
            });
            (seq, done)
        };
        std::thread::scope(|s| -> Result<()> {
            let (res_tx, res_rx) = channel::<Done>();
            let (slot_tx, slot_rx) = sync_channel::<()>(threads * 3);
            for index in 1..threads {
                let (res_tx, slot_tx) = (res_tx.clone(), slot_tx.clone());
                let (feed, work, ahead) = (&feed, &work, &ahead);
                let parent_core = crate::cpu::current();
                s.spawn(move || {
                    crate::cpu::spread(parent_core, index);
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
                        Ok((piece, report, counted)) => settle(piece, report, counted, &mut stop),
                        Err(e) => Err(anyhow::Error::new(e).context(input.name.clone())),
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
                        Err(anyhow::anyhow!("{}: a chunk's result was lost", input.name))
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
            let _ = emit(input, report, line_base, game_base)?;
        }
        if stop {
            break;
        }
    }
    progress.finish();
    Ok(())
}

/// Mapped pages are given back once this many bytes are done with.
const RELEASE_BATCH: u64 = 4 << 20;

/// Chunk size of plain files read by several threads: small enough that
/// the last chunks of an input spread over the threads, large enough that
/// handing them out costs nothing measurable.
const PARALLEL_CHUNK_SIZE: usize = 256 << 10;

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
    let job = |chunk: ChunkView<'_>| {
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
    let job = |chunk: ChunkView<'_>| {
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
