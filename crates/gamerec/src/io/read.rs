//! One reader for every chess format: games or records as a stream.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;

use crate::chessbase::{self, FileKind, Issue};
use crate::diag::{Code, Diagnostic, LineCol, LineIndex, Severity};
use crate::epd::{self, EpdRecord};
use crate::model::Game;
use crate::pgc;
use crate::pgn::stream::{Chunk, Chunker, chunk_is_whole, line_at};
use crate::pgn::{GameBuilder, Problem, SliceReader};
use crate::sgf;

use super::binary::{Bytes, Streamed, stream_binary, stream_pgc_bytes};
use super::input::{Cut, EndAtError, Input, OpenError, take_cut};
use super::{Format, looks_like_text};

/// One item of a chess file.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A game (PGN, JSON, PGC, CBF, FBK).
    Game(Game),
    /// A position record (EPD; FEN lines are read as EPD records with
    /// `hmvc`/`fmvn`).
    Position(EpdRecord),
}

impl Record {
    /// The item as a game (a position becomes a game starting there, see
    /// [`epd::convert::record_to_game`]), with what that conversion lost.
    pub fn to_game(&self) -> epd::convert::Converted<Game> {
        match self {
            Record::Game(g) => epd::convert::Converted {
                value: g.clone(),
                warnings: Vec::new(),
            },
            Record::Position(r) => epd::convert::record_to_game(r),
        }
    }
}

/// A record and where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The game or record.
    pub record: Record,
    /// Its 1-based number in the input.
    pub number: u64,
    /// The 1-based line it starts on (0 where the format has no lines).
    pub line: u64,
    /// The byte offset it starts at (0 where unknown).
    pub offset: u64,
}

/// How to read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The format (default: by the input's extension, else by content).
    pub format: Option<Format>,
    /// Stop once this many errors were found while no item read cleanly:
    /// the input is then clearly not of its format (one diagnostic says so).
    pub max_errors: u64,
    /// The bound on one PGN game's bytes: a larger game is reported
    /// ([`Code::TooLarge`]) and left out, and the rest is read.
    pub max_game_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            format: None,
            max_errors: 20,
            max_game_bytes: super::parallel::DEFAULT_MAX_GAME_BYTES,
        }
    }
}

/// The longest EPD/FEN/JSON line read whole; longer lines are reported and
/// skipped (memory stays bounded).
const MAX_LINE: usize = 64 << 20;

enum Source {
    Pgn(Box<PgnStream>),
    Lines {
        input: Box<dyn BufRead + Send>,
        line: u64,
        offset: u64,
        buf: Vec<u8>,
        /// EPD, FEN and JSON lines end at `\n`, `\r\n` or a lone `\r` (as
        /// the PGN reader's; JSON cannot hold a raw `\r` inside a string).
        /// The last line ended at `\r`: a `\n` right after it is its end.
        after_cr: bool,
    },
    Loaded(std::vec::IntoIter<Game>),
    /// A PGC or CBF file read game by game on its own thread.
    Binary {
        items: Receiver<Streamed>,
        thread: Option<JoinHandle<()>>,
    },
    Done,
}

struct PgnStream {
    chunker: Chunker<Box<dyn BufRead + Send>>,
    max_game: u64,
    /// Games of the chunk left out for their size, still to hand on
    /// (their offset, line, column, size and first line's excerpt).
    oversized: Vec<(u64, u64, u64, u64, String)>,
    /// Whether the chunk's last game runs past the bound unended.
    overrun: bool,
    chunk: Chunk,
    pos: usize,
    games: u64,
    line_base: u64,
    index: Option<LineIndex>,
}

/// A game read by [`PgnStream::next_game`] (`None` when it failed).
struct PgnGame {
    game: Option<Game>,
    diagnostics: Vec<Diagnostic>,
    number: u64,
    line: u64,
    offset: u64,
}

impl PgnStream {
    /// The next game and its diagnostics; `None` at the end of the input.
    fn next_game(&mut self) -> std::io::Result<Option<PgnGame>> {
        loop {
            if !self.oversized.is_empty() {
                let (offset, line, column, len, first) = self.oversized.remove(0);
                self.games += 1;
                let number = self.games;
                let mut d = Diagnostic::new(
                    Severity::Error,
                    LineCol { line, column },
                    format!(
                        "game of {len} bytes is larger than the bound of one game: not read \
                         (--max-game-bytes sets the bound)"
                    ),
                )
                .with_code(Code::TooLarge)
                .with_offset(offset)
                .with_game(number);
                d.note = Some(format!("game {number}, line {line}: {first}").into());
                return Ok(Some(PgnGame {
                    game: None,
                    diagnostics: vec![d],
                    number,
                    line,
                    offset,
                }));
            }
            let mut reader =
                SliceReader::resume(&self.chunk.data, self.chunk.offset, self.pos, self.games)
                    .followed_by_game(self.chunk.followed_by_game);
            let mut builder = GameBuilder::default();
            if let Some(game) = reader.read_game(&mut builder) {
                self.pos = reader.position();
                self.games = reader.games();
                let start = reader.game_offset();
                let rel = start - self.chunk.offset;
                let truncated = reader.truncated() && self.chunk.last;
                let problems: Vec<Problem> = reader.problems().to_vec();
                let index = self
                    .index
                    .get_or_insert_with(|| LineIndex::new(&self.chunk.data));
                let at = self.chunk.line_col(index, rel);
                let line = at.line + self.line_base;
                // The game's first line, up to the game's end (a chunk may
                // end there, in the middle of the line).
                let first = first_line_excerpt(line_at(&self.chunk.data[..self.pos], rel as usize));
                let number = self.games;
                let note: Box<str> = format!("game {number}, line {line}: {first}").into();
                let mut diagnostics = Vec::new();
                for p in &problems {
                    let lc = self
                        .chunk
                        .line_col(index, p.offset.saturating_sub(self.chunk.offset));
                    let mut d = Diagnostic::new(
                        p.severity,
                        LineCol {
                            line: lc.line + self.line_base,
                            column: lc.column,
                        },
                        p.message.clone(),
                    )
                    .with_code(p.code)
                    .with_offset(p.offset)
                    .with_game(number);
                    d.note = Some(note.clone());
                    diagnostics.push(d);
                }
                if self.overrun && reader.truncated() && !self.chunk.last {
                    let d = Diagnostic::new(
                        Severity::Error,
                        LineCol { line, column: 1 },
                        format!(
                            "game runs past the bound of {} bytes without ending \
                             (an unclosed comment or variation?): read up to the bound",
                            self.max_game
                        ),
                    )
                    .with_code(Code::TooLarge)
                    .with_offset(start)
                    .with_game(number);
                    diagnostics.push(d);
                }
                let game = match game {
                    Some(g) if is_cut_off_tag_section(&g, truncated) => {
                        let mut d = Diagnostic::new(
                            Severity::Error,
                            LineCol {
                                line,
                                column: at.column,
                            },
                            CUT_OFF_TAG_SECTION,
                        )
                        .with_code(Code::Truncated)
                        .with_offset(start)
                        .with_game(number);
                        d.note = Some(note);
                        diagnostics.push(d);
                        None
                    }
                    g => g,
                };
                return Ok(Some(PgnGame {
                    game,
                    diagnostics,
                    number,
                    line,
                    offset: start,
                }));
            }
            let Some(mut chunk) = self.chunker.next_chunk()? else {
                return Ok(None);
            };
            self.overrun = false;
            while !chunk_is_whole(&chunk) {
                if chunk.input_len() > self.max_game {
                    self.overrun = true;
                    break;
                }
                match self.chunker.next_chunk()? {
                    Some(next) => chunk.append(next),
                    None => chunk.last = true,
                }
            }
            self.line_base += self.chunk.lines();
            // Games left out for their size (always at the start of an
            // otherwise empty chunk, or after the data of a joined one).
            let view = chunk.view();
            if view.oversized().next().is_some() {
                let index = LineIndex::new(&chunk.data);
                for (e, offset, lc) in view.oversized_at(&index) {
                    self.oversized.push((
                        offset,
                        self.line_base + lc.line,
                        lc.column,
                        e.len,
                        first_line_excerpt(e.head()),
                    ));
                }
            }
            let done = std::mem::replace(&mut self.chunk, chunk);
            self.chunker.pool().give(done.data);
            self.pos = 0;
            self.index = None;
        }
    }
}

/// Reads the games or records of one input of any chess format, one at a
/// time (PGN, EPD, FEN and JSON stream; PGC, CBF and FBK files are read
/// whole through their modules, then handed out). Diagnostics found along
/// the way are collected: take them with [`Reader::take_diagnostics`].
///
/// ```
/// use gamerec::io::{Format, Reader, ReadOptions, Record};
/// let text = &b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n1. d4 Kd7 *\n"[..];
/// let opts = ReadOptions { format: Some(Format::Pgn), ..ReadOptions::default() };
/// let mut reader = Reader::from_bytes("t.pgn", text, &opts);
/// let items: Vec<_> = reader.by_ref().collect::<Result<_, _>>().unwrap();
/// assert_eq!(items.len(), 1); // the second game has an illegal move
/// assert!(matches!(items[0].record, Record::Game(_)));
/// let diags = reader.take_diagnostics();
/// assert!(diags[0].to_string().starts_with("t.pgn:5:7: error: illegal move Kd7"));
/// ```
pub struct Reader {
    name: String,
    format: Format,
    source: Source,
    diagnostics: Vec<Diagnostic>,
    count: u64,
    /// Games or records met, read or not.
    met: u64,
    clean: u64,
    errors: u64,
    max_errors: u64,
    /// Where a read error is kept once the stream ended at it.
    cut: Option<Cut>,
}

impl Reader {
    /// Opens `input` (decompressing it) and reads it in `opts.format`, else
    /// the format its extension names, else the one its content shows
    /// (PGN when nothing fits).
    pub fn open(input: &Input, opts: &ReadOptions) -> Result<Reader, OpenError> {
        let by_name = opts.format.or_else(|| input.format_by_name());
        if let Some(table) = by_name.filter(|f| f.is_table()) {
            return Err(OpenError::new(
                input.name.clone(),
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "a {table} table: tables are read by `gamerec convert` (to games), \
                         `gamerec positions` and the Python package"
                    ),
                ),
            ));
        }
        if matches!(by_name, Some(Format::Cbf | Format::Fbk | Format::Pgc)) {
            return Reader::open_binary(input, by_name.unwrap_or(Format::Pgc), opts);
        }
        let mut stream = input.open(None)?;
        let head = stream
            .fill_buf()
            .map_err(|e| OpenError::new(input.name.clone(), e))?;
        let format = by_name
            .or_else(|| Format::sniff(head))
            .unwrap_or(Format::Pgn);
        if format == Format::Pgc {
            if input.path.is_some() {
                return Reader::open_binary(input, format, opts);
            }
            // Stdin cannot be opened again: what was read to tell its
            // format is still in `stream`.
            let data = Bytes::read(&mut stream, &input.name)?;
            let (items, thread) = stream_pgc_bytes(&input.name, data)?;
            let mut reader = Reader::new(&input.name, format, Source::Done, opts);
            reader.source = Source::Binary {
                items,
                thread: Some(thread),
            };
            return Ok(reader);
        }
        let mut reader = Reader::new(&input.name, format, Source::Done, opts);
        if !head.is_empty() && !looks_like_text(head) {
            reader.push(
                Diagnostic::new(
                    Severity::Error,
                    LineCol::default(),
                    format!("binary data, not {format} text: not read"),
                )
                .with_code(Code::WrongFormat),
            );
            return Ok(reader);
        }
        let stream = EndAtError::new(stream);
        reader.cut = Some(stream.cut());
        let stream: Box<dyn BufRead + Send> =
            Box::new(std::io::BufReader::with_capacity(1 << 16, stream));
        reader.source = Reader::text_source(format, stream, opts);
        Ok(reader)
    }

    /// Reads `bytes` (already decompressed) named `name`.
    pub fn from_bytes(name: &str, bytes: &[u8], opts: &ReadOptions) -> Reader {
        let format = opts
            .format
            .or_else(|| Format::from_path(Path::new(name)))
            .or_else(|| Format::sniff(bytes))
            .unwrap_or(Format::Pgn);
        let mut reader = Reader::new(name, format, Source::Done, opts);
        match format {
            Format::Pgc | Format::Fbk => {
                let out = if format == Format::Pgc {
                    pgc::read_pgc(bytes)
                } else {
                    chessbase::read_fbk(bytes)
                };
                reader.loaded(out, None);
            }
            Format::Cbf | Format::Sgf | Format::Parquet | Format::Arrow => reader.push(
                Diagnostic::new(
                    Severity::Error,
                    LineCol::default(),
                    format!("{format} is not read from bytes (open the file)"),
                )
                .with_code(Code::WrongFormat),
            ),
            _ => {
                let stream: Box<dyn BufRead + Send> =
                    Box::new(std::io::Cursor::new(bytes.to_vec()));
                reader.source = Reader::text_source(format, stream, opts);
            }
        }
        reader
    }

    fn new(name: &str, format: Format, source: Source, opts: &ReadOptions) -> Reader {
        Reader {
            name: name.to_string(),
            format,
            source,
            diagnostics: Vec::new(),
            count: 0,
            met: 0,
            clean: 0,
            errors: 0,
            max_errors: opts.max_errors.max(1),
            cut: None,
        }
    }

    fn text_source(format: Format, stream: Box<dyn BufRead + Send>, opts: &ReadOptions) -> Source {
        match format {
            Format::Pgn => Source::Pgn(Box::new(PgnStream {
                chunker: Chunker::new(stream).max_game_bytes(opts.max_game_bytes),
                max_game: opts.max_game_bytes,
                oversized: Vec::new(),
                overrun: false,
                chunk: Chunk::default(),
                pos: 0,
                games: 0,
                line_base: 0,
                index: None,
            })),
            _ => Source::Lines {
                input: stream,
                line: 0,
                offset: 0,
                buf: Vec::new(),
                after_cr: false,
            },
        }
    }

    fn open_binary(input: &Input, format: Format, opts: &ReadOptions) -> Result<Reader, OpenError> {
        let mut reader = Reader::new(&input.name, format, Source::Done, opts);
        if format == Format::Fbk {
            // One tree: the whole file is the game.
            let mut data = Bytes::open(input)?;
            reader.loaded(chessbase::read_fbk(data.bytes()), None);
            if let Some(e) = data.take_cut() {
                reader.cut = Some(Cut::new(std::sync::Mutex::new(Some(e))));
            }
            return Ok(reader);
        }
        if format == Format::Cbf
            && let Some(path) = &input.path
        {
            reader.name = cbf_pair_to_read(path).0.display().to_string();
        }
        let (items, thread) = stream_binary(input, format)?;
        reader.source = Source::Binary {
            items,
            thread: Some(thread),
        };
        Ok(reader)
    }

    /// The next game of a binary file read on its own thread; its problems
    /// are kept as they come.
    fn next_binary(&mut self, report: &mut Report<'_>) -> Option<Item> {
        loop {
            self.deliver(report);
            let Source::Binary { items, thread } = &mut self.source else {
                return None;
            };
            match items.recv() {
                Ok(Streamed::Game(game)) => {
                    self.count += 1;
                    self.clean += 1;
                    return Some(Item {
                        record: Record::Game(game),
                        number: self.count,
                        line: 0,
                        offset: 0,
                    });
                }
                Ok(Streamed::Diagnostic(d)) => self.push(d),
                // Said once the games before the cut are read.
                Ok(Streamed::Cut(e)) => {
                    self.cut = Some(Cut::new(std::sync::Mutex::new(Some(e.source))));
                }
                Err(_) => {
                    // The reading thread ended: pass a panic on, as if the
                    // reading had run here.
                    if let Some(Err(panic)) = thread.take().map(JoinHandle::join) {
                        std::panic::resume_unwind(panic);
                    }
                    self.source = Source::Done;
                    return None;
                }
            }
        }
    }

    fn loaded(&mut self, out: chessbase::ReadOutcome, index_name: Option<String>) {
        for issue in &out.issues {
            let d = issue_diagnostic(issue, &self.name, index_name.as_deref());
            if d.is_error() {
                self.errors += 1;
            }
            self.diagnostics.push(d);
        }
        self.clean = out.games.len() as u64;
        self.source = Source::Loaded(out.games.into_iter());
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Items handed out so far.
    pub fn items_read(&self) -> u64 {
        self.count
    }

    /// Games or records met so far, whether they could be read or not
    /// (what every verb counts as read).
    pub fn items_met(&self) -> u64 {
        self.met.max(self.count)
    }

    /// Errors found so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// The diagnostics found since the last call, in input order.
    pub fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diagnostics)
    }

    /// The next item, as [`Iterator::next`], with every diagnostic handed
    /// to `report` in input order (any held before first) as soon as its
    /// game or record is done with. [`Iterator::next`] reads past a run of
    /// games that fail to read in one call, holding all their diagnostics
    /// for [`Reader::take_diagnostics`]; this holds none, so memory stays
    /// bounded however long the run.
    pub fn next_reporting(
        &mut self,
        report: &mut dyn FnMut(Diagnostic),
    ) -> Option<Result<Item, OpenError>> {
        let mut report = Some(report);
        let next = self.next_item(&mut report);
        self.deliver(&mut report);
        next
    }

    /// Hands the diagnostics held to `report`, when there is one.
    fn deliver(&mut self, report: &mut Report<'_>) {
        if let Some(report) = report {
            for d in self.diagnostics.drain(..) {
                report(d);
            }
        }
    }

    fn push(&mut self, mut d: Diagnostic) {
        if d.path.is_none() {
            d.path = Some(self.name.clone());
        }
        if d.is_error() {
            self.errors += 1;
        }
        self.diagnostics.push(d);
    }

    /// Stops reading (the input is clearly not of its format) once too
    /// many errors were found and nothing read cleanly.
    fn give_up_if_hopeless(&mut self) -> bool {
        if self.clean == 0 && self.errors >= self.max_errors {
            let n = self.errors;
            self.push(
                Diagnostic::new(
                    Severity::Error,
                    LineCol::default(),
                    format!(
                        "stopped after {n} errors and no {} read cleanly: this does not look like {}",
                        self.format.unit().0,
                        self.format
                    ),
                )
                .with_code(Code::TooManyErrors),
            );
            self.source = Source::Done;
            return true;
        }
        false
    }

    fn next_pgn(&mut self, report: &mut Report<'_>) -> Result<Option<Item>, OpenError> {
        loop {
            self.deliver(report);
            let Source::Pgn(s) = &mut self.source else {
                return Ok(None);
            };
            let Some(read) = s
                .next_game()
                .map_err(|e| OpenError::new(self.name.clone(), e))?
            else {
                self.source = Source::Done;
                return Ok(None);
            };
            let PgnGame {
                game,
                diagnostics,
                number,
                line,
                offset,
            } = read;
            self.met = number;
            let failed = diagnostics.iter().any(Diagnostic::is_error);
            for d in diagnostics {
                self.push(d);
            }
            if !failed {
                self.clean += 1;
            }
            match game {
                Some(g) => {
                    self.count += 1;
                    return Ok(Some(Item {
                        record: Record::Game(g),
                        number,
                        line,
                        offset,
                    }));
                }
                None => {
                    if self.give_up_if_hopeless() {
                        return Ok(None);
                    }
                }
            }
        }
    }

    fn next_line(&mut self, report: &mut Report<'_>) -> Result<Option<Item>, OpenError> {
        loop {
            self.deliver(report);
            let Source::Lines {
                input,
                line,
                offset,
                buf,
                after_cr,
            } = &mut self.source
            else {
                return Ok(None);
            };
            buf.clear();
            let (n, lf) = epd::reader::read_line_any_end(input, buf, MAX_LINE, after_cr)
                .map_err(|e| OpenError::new(self.name.clone(), e))?;
            *offset += lf as u64;
            if n == 0 {
                self.source = Source::Done;
                return Ok(None);
            }
            *line += 1;
            let (number, start) = (*line, *offset);
            *offset += n as u64;
            if n == MAX_LINE && !matches!(buf.last(), Some(b'\n' | b'\r')) {
                self.met += 1;
                // Skip the rest of an overlong line.
                let skipped = epd::reader::skip_line(input, true, after_cr)
                    .map_err(|e| OpenError::new(self.name.clone(), e))?;
                *offset += skipped;
                let d = Diagnostic::new(
                    Severity::Error,
                    LineCol {
                        line: number,
                        column: 1,
                    },
                    format!("line longer than {MAX_LINE} bytes: skipped"),
                )
                .with_offset(start)
                .with_game(self.met)
                .with_code(Code::TooLarge);
                self.push(d);
                if self.give_up_if_hopeless() {
                    return Ok(None);
                }
                continue;
            }
            let decoded = epd::decode(buf);
            let utf8 = matches!(decoded, std::borrow::Cow::Borrowed(_));
            let text = decoded.into_owned();
            let text = text.trim_end_matches(['\n', '\r']);
            // Messages give the line's byte as column and offset.
            let places = epd::reader::LinePlaces::decoded(buf, text, utf8);
            let placed = |d: Diagnostic| places.place(d, start);
            if text.trim().is_empty() {
                continue;
            }
            self.met += 1;
            let met = self.met;
            let record = match self.format {
                Format::Epd => {
                    let (record, diags) = epd::read_line(text, number);
                    for d in diags {
                        self.push(placed(d).with_game(met));
                    }
                    record.map(Record::Position)
                }
                Format::Fen => match epd::convert::fen_to_record(text) {
                    Ok(r) => Some(Record::Position(r)),
                    Err(e) => {
                        let d = Diagnostic::new(
                            Severity::Error,
                            LineCol {
                                line: number,
                                column: e.column as u64 + 1,
                            },
                            e.message,
                        );
                        self.push(placed(d).with_game(met).with_code(Code::Position));
                        None
                    }
                },
                _ => {
                    let (game, problems) = match super::json::read_game(text) {
                        Ok((g, warnings)) => (Some(Record::Game(g)), warnings),
                        Err(e) => (None, vec![e]),
                    };
                    for p in problems {
                        let d = Diagnostic::new(
                            p.severity,
                            LineCol {
                                line: number,
                                column: p.at as u64 + 1,
                            },
                            p.message,
                        );
                        let d = placed(d).with_game(met).with_code(p.code);
                        let d = Diagnostic {
                            not_listed: p.not_listed.map(Box::new),
                            ..d
                        };
                        self.push(d);
                    }
                    game
                }
            };
            let Some(record) = record else {
                if self.give_up_if_hopeless() {
                    return Ok(None);
                }
                continue;
            };
            self.count += 1;
            self.clean += 1;
            return Ok(Some(Item {
                record,
                number: self.count,
                line: number,
                offset: start,
            }));
        }
    }
}

impl Iterator for Reader {
    type Item = Result<Item, OpenError>;

    /// The next game or record; an `Err` when the input cannot be read on
    /// (a truncated compressed file, a read error), after which the reader
    /// is done. Items read before the error were handed out already.
    fn next(&mut self) -> Option<Result<Item, OpenError>> {
        self.next_item(&mut None)
    }
}

/// Where [`Reader::next_reporting`] hands diagnostics (`None`: they are
/// held for [`Reader::take_diagnostics`]).
type Report<'a> = Option<&'a mut dyn FnMut(Diagnostic)>;

impl Reader {
    /// The next item; diagnostics go to `report` as they are found when it
    /// is given, else are held.
    fn next_item(&mut self, report: &mut Report<'_>) -> Option<Result<Item, OpenError>> {
        let next = match &mut self.source {
            Source::Pgn(_) => self.next_pgn(report),
            Source::Lines { .. } => self.next_line(report),
            Source::Binary { .. } => Ok(self.next_binary(report)),
            Source::Loaded(games) => Ok(games.next().map(|g| {
                self.count += 1;
                Item {
                    record: Record::Game(g),
                    number: self.count,
                    line: 0,
                    offset: 0,
                }
            })),
            Source::Done => Ok(None),
        };
        match next {
            Ok(None) => {
                // The stream ended at a read error: say so after the items.
                let cut = self.cut.take()?;
                take_cut(&cut).map(|e| Err(OpenError::new(self.name.clone(), e)))
            }
            Ok(item) => item.map(Ok),
            Err(e) => {
                self.source = Source::Done;
                Some(Err(e))
            }
        }
    }
}

/// The message about a tag section cut off at the end of the input.
pub const CUT_OFF_TAG_SECTION: &str =
    "the input ends after this game's tags, before any move or result: game left out";

/// Whether a game read at the very end of the input is only a tag section
/// cut off before any move, comment or result (not a game: the rest was lost).
pub fn is_cut_off_tag_section(game: &Game, truncated_at_end: bool) -> bool {
    truncated_at_end
        && game.result.is_none()
        && game.tree.len() == 1
        && game.tree.root().comments_before.is_empty()
        && !game.tags.is_empty()
}

/// A game's first line for messages: at most 60 characters, lossily decoded.
pub(crate) fn first_line_excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    if text.chars().count() > 60 {
        text.chars().take(57).collect::<String>() + "..."
    } else {
        text.into_owned()
    }
}

/// The `.cbf` and `.cbi` paths of a pair named by either (the extension's
/// case is kept: `X.CBF` pairs with `X.CBI`).
pub fn cbf_pair(path: &Path) -> (PathBuf, PathBuf) {
    let upper = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.chars().all(|c| c.is_ascii_uppercase()));
    let (cbf, cbi) = if upper {
        ("CBF", "CBI")
    } else {
        ("cbf", "cbi")
    };
    (path.with_extension(cbf), path.with_extension(cbi))
}

/// The CBF/CBI pair to read for `path`, which names either file, plain or
/// compressed: `x.cbf.gz` reads `x.cbf.gz` with `x.cbi.gz` (each file
/// compressed or not: the one that is there).
pub fn cbf_pair_to_read(path: &Path) -> (PathBuf, PathBuf) {
    let suffix = path
        .extension()
        .filter(|_| super::Compression::from_path(path) != super::Compression::None);
    let Some(suffix) = suffix else {
        return cbf_pair(path);
    };
    let (cbf, cbi) = cbf_pair(&path.with_extension(""));
    let pick = |plain: PathBuf| {
        let mut compressed = plain.clone().into_os_string();
        compressed.push(".");
        compressed.push(suffix);
        let compressed = PathBuf::from(compressed);
        if !compressed.exists() && plain.exists() {
            plain
        } else {
            compressed
        }
    };
    (pick(cbf), pick(cbi))
}

/// A binary format's issue as a diagnostic: `path:byte N: severity: game G: message`.
pub fn issue_diagnostic(issue: &Issue, data_name: &str, index_name: Option<&str>) -> Diagnostic {
    let path = match (issue.file, index_name) {
        (FileKind::Index, Some(cbi)) => cbi,
        _ => data_name,
    };
    let message = match issue.game {
        Some(g) => format!("game {g}: {}", issue.message),
        None => issue.message.clone(),
    };
    let code = if issue.severity == Severity::Warning && issue.message.contains("not") {
        Code::Loss
    } else {
        Code::Other
    };
    let mut d = Diagnostic::new(issue.severity, LineCol::default(), message)
        .with_path(path)
        .with_offset(issue.offset)
        .with_code(code);
    d.game = issue.game.map(|g| g as u64);
    d.not_listed = issue.not_listed.clone();
    d
}

/// An SGF file read whole: the collection and its diagnostics (with the
/// input's path).
pub struct SgfRead {
    /// What the parser read.
    pub parsed: sgf::Parsed,
    /// Its diagnostics, ready to show.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads an SGF input (decompressed) with `options`.
pub fn read_sgf(input: &Input, options: &sgf::ParseOptions) -> Result<SgfRead, OpenError> {
    let bytes = input.read_all()?;
    let parsed = sgf::parse(&bytes, options);
    let diagnostics = parsed
        .diagnostics
        .iter()
        .map(|d| d.to_diagnostic(Some(&input.name)))
        .collect();
    Ok(SgfRead {
        parsed,
        diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &[u8]) -> (Vec<Item>, Vec<Diagnostic>) {
        let mut r = Reader::from_bytes(name, text, &ReadOptions::default());
        let items = r.by_ref().collect::<Result<Vec<_>, _>>().expect("reads");
        (items, r.take_diagnostics())
    }

    #[test]
    fn pgn_items_carry_game_number_and_line() {
        let (items, diags) = read(
            "a.pgn",
            b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 Ke7 *\n\n[Event \"c\"]\n\n1. c4 *\n",
        );
        assert_eq!(items.len(), 2);
        assert_eq!((items[1].number, items[1].line), (3, 9));
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, Code::IllegalMove);
        assert_eq!(diags[0].game, Some(2));
        assert_eq!(diags[0].location.line, 7);
        assert!(
            diags[0]
                .to_string()
                .starts_with("a.pgn:7:7: error: illegal move Ke7")
        );
        assert!(
            diags[0]
                .to_string()
                .ends_with("(game 2, line 5: [Event \"b\"])")
        );
        let (_, diags) = read("b.pgn", b"1. e4 Zz9 *\n");
        assert_eq!(diags[0].code, Code::SanSyntax);
    }

    /// `next_reporting` hands on the diagnostics `next` and
    /// `take_diagnostics` give, in the same order, each before the item
    /// that follows it, and holds none.
    #[test]
    fn next_reporting_hands_on_the_same_diagnostics_as_found() {
        let mut text = String::from("[Event \"a\"]\n\n1. e4 e5 1-0\n\n");
        for i in 0..50 {
            text.push_str(&format!("[Event \"b{i}\"]\n\n1. e4 Kd7 *\n\n"));
        }
        text.push_str("[Event \"c\"]\n[Date \"x\"]\n\n1. d4 1-0\n\n1. Kd7 *\n");
        let (items, expected) = read("t.pgn", text.as_bytes());
        let opts = ReadOptions {
            format: Some(Format::Pgn),
            max_errors: u64::MAX,
            ..ReadOptions::default()
        };
        let mut reader = Reader::from_bytes("t.pgn", text.as_bytes(), &opts);
        let mut got: Vec<String> = Vec::new();
        let mut numbers = Vec::new();
        while let Some(item) = reader.next_reporting(&mut |d| got.push(d.to_string())) {
            let item = item.unwrap();
            // Every diagnostic of the games before this one is out.
            let before = expected
                .iter()
                .filter(|d| d.game < Some(item.number))
                .count();
            assert_eq!(got.len(), before, "at game {}", item.number);
            numbers.push(item.number);
        }
        assert!(reader.take_diagnostics().is_empty());
        let expected: Vec<String> = expected.iter().map(ToString::to_string).collect();
        assert_eq!(got, expected);
        assert_eq!(numbers, items.iter().map(|i| i.number).collect::<Vec<_>>());
        assert_eq!(numbers, [1, 52]);
    }

    #[test]
    fn pgn_cut_after_its_tags_is_no_game() {
        let (items, diags) = read(
            "cut.pgn",
            b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n[Site \"x\"]\n",
        );
        assert_eq!(items.len(), 1);
        assert!(
            diags
                .iter()
                .any(|d| d.code == Code::Truncated && d.is_error()),
            "{diags:?}"
        );
    }

    #[test]
    fn binary_data_read_as_text_stops_at_once() {
        let mut junk = vec![0u8, 0x1b, 7, 1, 2, 3];
        junk.extend(b"[Event \"x\"]".repeat(10));
        let dir = gamerec_testkit::temp_dir("io-read");
        let path = dir.join("junk.pgn");
        std::fs::write(&path, &junk).unwrap();
        let mut r = Reader::open(&Input::file(&path), &ReadOptions::default()).unwrap();
        assert_eq!(r.by_ref().count(), 0);
        let diags = r.take_diagnostics();
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, Code::WrongFormat);
    }

    #[test]
    fn text_that_is_not_the_format_stops_after_a_bound() {
        let text = "this is not a chess game ) ) )\n".repeat(1000);
        let (items, diags) = read("x.epd", text.as_bytes());
        assert!(items.is_empty());
        assert_eq!(diags.last().map(|d| d.code), Some(Code::TooManyErrors));
        assert!(diags.len() <= 40, "{}", diags.len());
    }

    #[test]
    fn epd_fen_and_json_lines() {
        let (items, diags) = read(
            "s.epd",
            b"8/8/8/8/8/8/8/K1k5 w - - bm Ka2; id \"x\";\n\nbad line\n",
        );
        assert_eq!(items.len(), 1);
        assert_eq!((items[0].number, items[0].line), (1, 1));
        assert_eq!(diags[0].location.line, 3);
        let (items, _) = read("p.fen", b"8/8/8/8/8/8/8/K1k5 w - - 0 1\n");
        assert!(matches!(items[0].record, Record::Position(_)));
        let (items, diags) = read(
            "g.json",
            b"{\"tags\":[[\"Event\",\"x\"]],\"start\":null,\"comments\":[],\"moves\":[{\"san\":\"e4\"}],\"result\":\"*\"}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        let Record::Game(g) = &items[0].record else {
            panic!()
        };
        assert_eq!(g.tree.mainline_len(), 1);
    }

    /// EPD lines end at `\n`, `\r\n` or a lone `\r`, as `epd::read_lines`
    /// (and so `check` and the EPD verbs) read them: the same records, line
    /// numbers and byte offsets, whatever the buffer's size.
    #[test]
    fn epd_lines_end_as_the_epd_reader_ends_them() {
        let text = b"8/8/8/8/8/8/8/K1k5 w - - id \"a\";\r8/8/8/8/8/8/8/K1k5 w - - id \"b\";\r\n\r\
                     8/8/8/8/8/8/8/K1k5 w - - id \"c\";\n\n8/8/8/8/8/8/8/K1k5 w - - bm x;\r";
        let (items, diags) = read("s.epd", text);
        let lines: Vec<(u64, u64)> = items.iter().map(|i| (i.line, i.offset)).collect();
        assert_eq!(lines, [(1, 0), (2, 33), (4, 68)]);
        assert_eq!((diags.len(), diags[0].location.line), (1, 6), "{diags:?}");
        let expected: Vec<u64> = crate::epd::read_lines(std::str::from_utf8(text).unwrap())
            .filter(|l| l.record.is_some())
            .map(|l| l.number)
            .collect();
        assert_eq!(expected, [1, 2, 4]);
        for capacity in 1..8 {
            let mut input = std::io::BufReader::with_capacity(capacity, &text[..]);
            let (mut after_cr, mut lines, mut offset) = (false, Vec::new(), 0);
            loop {
                let mut buf = Vec::new();
                let (n, lf) = crate::epd::reader::read_line_any_end(
                    &mut input,
                    &mut buf,
                    1 << 20,
                    &mut after_cr,
                )
                .unwrap();
                offset += lf;
                if n == 0 {
                    break;
                }
                lines.push((offset, String::from_utf8(buf).unwrap()));
                offset += n;
            }
            let starts: Vec<usize> = lines.iter().map(|l| l.0).collect();
            assert_eq!(starts, [0, 33, 67, 68, 101, 102], "capacity {capacity}");
            assert_eq!(lines[2].1, "\r");
            assert!(lines[5].1.ends_with("bm x;\r"));
        }
    }

    /// A JSON Lines fault is placed at its own column (not column 1), and
    /// what the reader drops is warned at its member.
    #[test]
    fn json_line_faults_have_their_column() {
        let game = r#"{"tags":[],"moves":[{"san":"e4"}],"result":"*"}"#;
        let text = format!("{game}\n{}\n", game.replace("\"e4\"", "e4"));
        let (items, diags) = read("g.jsonl", text.as_bytes());
        assert_eq!(items.len(), 1);
        assert_eq!(diags.len(), 1, "{diags:?}");
        let col = game.find("\"e4").unwrap() as u64 + 1;
        assert_eq!((diags[0].location.line, diags[0].location.column), (2, col));
        assert_eq!(diags[0].message, "expected value: `e4}],\"result\":\"*\"}`");
        let (items, diags) = read(
            "g.jsonl",
            br#"{"foo":1,"moves":[{"san":"e4","nags":[999]}]}"#,
        );
        assert_eq!(items.len(), 1);
        let at: Vec<(Severity, u64)> = diags
            .iter()
            .map(|d| (d.severity, d.location.column))
            .collect();
        assert_eq!(
            at,
            [(Severity::Warning, 8), (Severity::Warning, 39)],
            "{diags:?}"
        );
    }

    /// JSON Lines end where EPD and PGN lines end: a lone `\r` too (old Mac
    /// files), whose records were read as one.
    #[test]
    fn json_lines_end_at_a_lone_cr() {
        let game = r#"{"tags":[],"moves":[{"san":"e4"}],"result":"*"}"#;
        let text = format!("{game}\r{game}\r\n\r{game}\r");
        let (items, diags) = read("g.jsonl", text.as_bytes());
        assert!(diags.is_empty(), "{diags:?}");
        let lines: Vec<(u64, u64)> = items.iter().map(|i| (i.line, i.offset)).collect();
        let n = game.len() as u64;
        assert_eq!(lines, [(1, 0), (2, n + 1), (4, 2 * n + 4)]);
    }

    /// A FEN line's fault is placed at its column in the line, blanks
    /// before the FEN counted (they were not: column 20 for 23).
    #[test]
    fn fen_line_faults_count_the_blanks_before_the_fen() {
        let (items, diags) = read(
            "p.fen",
            b"8/8/8/8/8/8/8/K1k5 w - - 0 1\n \t 8/8/8/8/8/8/8/K1k5 x - - 0 1\n",
        );
        assert_eq!(items.len(), 1);
        let at: Vec<(u64, u64)> = diags
            .iter()
            .map(|d| (d.location.line, d.location.column))
            .collect();
        assert_eq!(at, [(2, 23)], "{diags:?}");
    }

    /// EPD, FEN and JSON Lines messages give the fault's byte: its column
    /// in the line's bytes (after a byte-order mark) and its offset in the
    /// input. The offset was the line's start, and a Windows-1252 line
    /// (read as UTF-8 text, two bytes for `é`) put the column elsewhere.
    #[test]
    fn line_faults_are_placed_at_their_byte() {
        // Input name, lines before, the line, and the fault's first bytes.
        type Case<'a> = (&'a str, &'a [u8], &'a [u8], &'a [u8]);
        let cases: [Case; 6] = [
            (
                "e.epd",
                b"8/8/8/8/8/8/8/K1k5 w - - bm Ka2;\n",
                b"8/8/8/8/8/8/8/K1k5 w - - c0 \"\xe9\xe9\"; bm Zz9;\n",
                b"Zz9",
            ),
            (
                "e.epd",
                b"",
                b"\xEF\xBB\xBF8/8/8/8/8/8/8/K1k5 w - - bm Zz9;\n",
                b"Zz9",
            ),
            (
                "e.epd",
                b"8/8/8/8/8/8/8/K1k5 w - -\n",
                b"8/8/8/8/8/8/8/K1k5 w - - c0 \"\xc3\xa9\"; bm Zz9;\n",
                b"Zz9",
            ),
            (
                "p.fen",
                b"8/8/8/8/8/8/8/K1k5 w - - 0 1\n",
                b"8/8/8/8/8/8/8/K1k5 w - - 0 1 \xe9 x\n",
                b"\xe9 x",
            ),
            (
                "p.fen",
                b"",
                b"\xEF\xBB\xBF8/8/8/8/8/8/8/K1k5 w - - 0 1 x\n",
                b" x",
            ),
            (
                "g.jsonl",
                b"",
                b"{\"tags\":{\"Event\":\"\xe9\xe9\"},\"moves\":[Zz9]}\n",
                b"Zz9",
            ),
        ];
        for (name, before, line, fault) in cases {
            let text = [before, line].concat();
            let (_, diags) = read(name, &text);
            assert_eq!(diags.len(), 1, "{name}: {diags:?}");
            let mut at = line.windows(fault.len()).position(|w| w == fault).unwrap() as u64;
            if fault.starts_with(b" ") {
                at += 1;
            }
            // A byte-order mark is in the offset, not in the column.
            let bom = if line.starts_with(b"\xEF\xBB\xBF") {
                3
            } else {
                0
            };
            let d = &diags[0];
            let want_line = if before.is_empty() { 1 } else { 2 };
            assert_eq!(
                (d.location.line, d.location.column, d.offset),
                (want_line, at + 1 - bom, Some(before.len() as u64 + at)),
                "{name} {:?}: {d:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
