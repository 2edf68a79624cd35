//! Streaming over any [`Read`]: the input is cut into chunks of whole games
//! ([`Chunker`]), each read with the zero-copy [`SliceReader`]. Memory stays
//! at a few chunks whatever the input size; chunks are also the unit of
//! parallel work (games of one chunk are read in order by one thread).
//!
//! A chunk ends just before a `[` that starts a line and follows a
//! termination marker, the usual start of the next game. That guess can be
//! wrong only when the marker and the `[` sit inside an open comment,
//! string or variation; the reader of the chunk then reports its last game
//! as [`truncated`](SliceReader::truncated), and the caller reads that chunk
//! again joined to the next one ([`Chunk::append`]). [`Reader`] does this
//! for you.
//!
//! Games with no tag sections (`1. e4 e5 1-0` and the next game's moves
//! right after) or no termination markers give no such cut: a chunk then
//! ends where the reader itself ends its last whole game, an exact cut at
//! a line start. A chunk cut before a line-start `[` is
//! [`Chunk::followed_by_game`], so a game without a marker at its end is
//! not taken as cut off.

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use memchr::{memchr, memchr_iter, memchr2, memrchr_iter};

use super::reader::SliceReader;
use super::visitor::{Flow, GameEnd, GameStart, Problem, SkipAll, Stop, Visitor};
use crate::diag::{LineCol, LineIndex};

/// The most of a line that [`line_at`] gives: more than 60 characters of
/// any text, so an excerpt cut to 60 still shows that the line goes on.
pub const LINE_AT_MAX: usize = 256;

/// Default chunk size: 1 MiB.
pub const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// A run of whole games (usually) cut from a larger input.
#[derive(Debug, Clone, Default)]
pub struct Chunk {
    /// The bytes.
    pub data: Vec<u8>,
    /// Byte offset of `data[0]` in the input.
    pub offset: u64,
    /// Whether this chunk reaches the end of the input.
    pub last: bool,
    /// Input bytes left out of `data` (the insides of oversized comments,
    /// see [`Chunker::eliding_comments`]), in order; usually none.
    pub elided: Vec<Elision>,
    /// The input goes on right after this chunk with a game start (a
    /// line-start `[`): a game without a termination marker at its end
    /// ends there (read with [`SliceReader::followed_by_game`]).
    pub followed_by_game: bool,
    /// Input bytes on the line of `data[0]` before it: 0 when the chunk
    /// starts a line, as nearly every chunk does (see [`last_game_end`]).
    /// Columns on the chunk's first line count from there.
    pub column: u64,
}

/// Bytes of the input a [`Chunker`] left out of a chunk: the text of a
/// brace comment too large to hold, when the consumer does not need it.
/// `data[..at]` ends inside the comment and `data[at..]` resumes at its
/// closing `}` (or the chunk ends there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elision {
    /// Position in [`Chunk::data`] where the bytes were taken out.
    pub at: usize,
    /// How many bytes were taken out.
    pub len: u64,
    /// Line ends among them.
    pub lines: u64,
    /// Bytes after the last of those line ends (all of them if none).
    pub last_line_len: u64,
    /// Whether the last byte taken out is a CR (a LF right after it in
    /// `data` does not start another line).
    ends_with_cr: bool,
    /// Whether these bytes are a whole game left out for being larger than
    /// the chunker's bound ([`Chunker::max_game_bytes`]): readers count it as
    /// a game and report it ([`ChunkView::oversized`]).
    pub oversized: bool,
    /// The start of an oversized game's first line, for its message
    /// ([`Elision::head`]).
    head: [u8; ELISION_HEAD],
    head_len: u8,
}

/// How much of an oversized game's first line an [`Elision`] keeps: enough
/// for a message's excerpt (60 characters).
const ELISION_HEAD: usize = 64;

impl Default for Elision {
    fn default() -> Elision {
        Elision {
            at: 0,
            len: 0,
            lines: 0,
            last_line_len: 0,
            ends_with_cr: false,
            oversized: false,
            head: [0; ELISION_HEAD],
            head_len: 0,
        }
    }
}

impl Elision {
    /// The first bytes (up to 64) of an oversized game's first line; empty
    /// for other elisions.
    pub fn head(&self) -> &[u8] {
        &self.head[..usize::from(self.head_len)]
    }

    /// Keeps the start of `line` (up to its first line end) as
    /// [`Elision::head`].
    fn keep_head(&mut self, line: &[u8]) {
        let line = &line[..memchr::memchr2(b'\n', b'\r', line).unwrap_or(line.len())];
        let n = line.len().min(ELISION_HEAD);
        self.head[..n].copy_from_slice(&line[..n]);
        self.head_len = n as u8;
    }

    fn account(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut lines = count_lines(bytes);
        if self.ends_with_cr && bytes[0] == b'\n' {
            lines -= 1; // CR LF split between two reads: one line end, counted as two
        }
        self.lines += lines;
        self.len += bytes.len() as u64;
        match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(i) => self.last_line_len = (bytes.len() - i - 1) as u64,
            None => self.last_line_len += bytes.len() as u64,
        }
        self.ends_with_cr = bytes.last() == Some(&b'\r');
    }

    /// Adds the bytes of `other`, which follow these in the input.
    fn absorb(&mut self, other: &Elision) {
        // A CR LF split across the two would count twice; not known here
        // without the bytes (a rare shift of one line).
        self.lines += other.lines;
        self.len += other.len;
        if other.lines > 0 {
            self.last_line_len = other.last_line_len;
        } else {
            self.last_line_len += other.len;
        }
        if other.len > 0 {
            self.ends_with_cr = other.ends_with_cr;
        }
    }
}

impl Chunk {
    /// Joins the following chunk to this one.
    pub fn append(&mut self, next: Chunk) {
        debug_assert_eq!(self.offset + self.input_len(), next.offset);
        let shift = self.data.len();
        self.elided.extend(next.elided.iter().map(|e| Elision {
            at: e.at + shift,
            ..*e
        }));
        self.data.extend_from_slice(&next.data);
        self.last = next.last;
        self.followed_by_game = next.followed_by_game;
    }

    /// How many input bytes the chunk covers (elided bytes included).
    pub fn input_len(&self) -> u64 {
        self.view().input_len()
    }

    /// Line ends in the input the chunk covers (elided ones included).
    pub fn lines(&self) -> u64 {
        self.view().lines()
    }

    /// Line and column, within the chunk's input, of position `at` of
    /// [`Chunk::data`]; `index` is `LineIndex::new(&self.data)`. Elided
    /// bytes count as they stood in the input.
    pub fn line_col(&self, index: &LineIndex, at: u64) -> LineCol {
        self.view().line_col(index, at)
    }

    /// The chunk as a borrowed [`ChunkView`].
    pub fn view(&self) -> ChunkView<'_> {
        ChunkView {
            data: &self.data,
            offset: self.offset,
            last: self.last,
            elided: &self.elided,
            followed_by_game: self.followed_by_game,
            column: self.column,
        }
    }
}

/// A chunk whose bytes are borrowed: from a [`Chunk`] ([`Chunk::view`]),
/// or straight from a memory-mapped file.
#[derive(Debug, Clone, Copy)]
pub struct ChunkView<'a> {
    /// The bytes.
    pub data: &'a [u8],
    /// Byte offset of `data[0]` in the input.
    pub offset: u64,
    /// Whether this chunk reaches the end of the input.
    pub last: bool,
    /// Input bytes left out of `data` ([`Chunk::elided`]).
    pub elided: &'a [Elision],
    /// A game starts right after `data` ([`Chunk::followed_by_game`]).
    pub followed_by_game: bool,
    /// Input bytes on the line of `data[0]` before it ([`Chunk::column`]).
    pub column: u64,
}

impl ChunkView<'_> {
    /// The games left out of this chunk for being larger than the bound
    /// ([`Chunker::max_game_bytes`]): each is a game to count and report
    /// (an error), placed before `data[at..]`.
    pub fn oversized(&self) -> impl Iterator<Item = &Elision> {
        self.elided.iter().filter(|e| e.oversized)
    }

    /// [`ChunkView::oversized`] with where each game stood: its byte
    /// offset in the input and its line and column (lines of the chunk;
    /// `index` is [`LineIndex::new`] of its data).
    pub fn oversized_at<'s>(
        &'s self,
        index: &'s LineIndex,
    ) -> impl Iterator<Item = (&'s Elision, u64, LineCol)> + 's {
        let mut before = 0u64; // elided bytes before the one at hand
        self.elided.iter().enumerate().filter_map(move |(k, e)| {
            let offset = self.offset + e.at as u64 + before;
            before += e.len;
            e.oversized.then(|| {
                let earlier = ChunkView {
                    elided: &self.elided[..k],
                    ..*self
                };
                (e, offset, earlier.line_col(index, e.at as u64))
            })
        })
    }

    /// How many input bytes the chunk covers (elided bytes included).
    pub fn input_len(&self) -> u64 {
        self.data.len() as u64 + self.elided.iter().map(|e| e.len).sum::<u64>()
    }

    /// Line ends in the input the chunk covers (elided ones included).
    pub fn lines(&self) -> u64 {
        count_lines(self.data) + self.elided.iter().map(|e| e.lines).sum::<u64>()
    }

    /// Line and column, within the chunk's input, of position `at` of
    /// `data`; `index` is `LineIndex::new(data)`. Elided bytes count as
    /// they stood in the input.
    pub fn line_col(&self, index: &LineIndex, at: u64) -> LineCol {
        let here = index.line_col(at);
        let mut line = here.line;
        let mut column = here.column;
        if here.line == 1 {
            column += self.column;
        }
        for e in self.elided.iter().take_while(|e| e.at as u64 <= at) {
            line += e.lines;
            if index.line_col(e.at as u64).line == here.line {
                // Same line of data as the elision: the column counts the
                // elided bytes of that line too.
                column = if e.lines > 0 {
                    e.last_line_len + (at - e.at as u64) + 1
                } else {
                    column + e.len
                };
            }
        }
        LineCol { line, column }
    }

    /// Input bytes on the last line of the chunk: the [`Chunk::column`] of
    /// the chunk that follows it.
    pub fn end_column(&self) -> u64 {
        if !self.elided.is_empty() {
            let index = LineIndex::new(self.data);
            return self.line_col(&index, self.data.len() as u64).column - 1;
        }
        match memchr::memrchr2(b'\n', b'\r', self.data) {
            Some(i) => (self.data.len() - i - 1) as u64,
            None => self.column + self.data.len() as u64,
        }
    }
}

/// Spare chunk buffers, shared between a [`Chunker`] and whoever consumes
/// its chunks (reusing them spares the allocator and the page faults).
#[derive(Debug, Clone, Default)]
pub struct BufferPool(Arc<Mutex<Vec<Vec<u8>>>>);

impl BufferPool {
    /// Returns a buffer for reuse (at most a few are kept). Its bytes are
    /// kept as they are: refilling a buffer that is already initialised
    /// costs no zeroing and no page faults.
    pub fn give(&self, buf: Vec<u8>) {
        if let Ok(mut spare) = self.0.lock()
            && spare.len() < 64
        {
            spare.push(buf);
        }
    }

    fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().ok()?.pop()
    }
}

/// Cuts an input into [`Chunk`]s at probable game boundaries.
pub struct Chunker<R> {
    pool: BufferPool,
    inner: R,
    carry: Vec<u8>,
    offset: u64,
    size: usize,
    eof: bool,
    elide_after: Option<usize>,
    elided: Vec<Elision>,
    peak: usize,
    max_game: Option<u64>,
    column: u64,
}

impl<R: Read> Chunker<R> {
    /// Chunks of about [`DEFAULT_CHUNK_SIZE`] bytes.
    pub fn new(inner: R) -> Chunker<R> {
        Chunker::with_size(inner, DEFAULT_CHUNK_SIZE)
    }

    /// Chunks of about `size` bytes (at least 1).
    pub fn with_size(inner: R, size: usize) -> Chunker<R> {
        Chunker {
            pool: BufferPool::default(),
            inner,
            carry: Vec::new(),
            offset: 0,
            size: size.max(1),
            eof: false,
            elide_after: None,
            elided: Vec::new(),
            peak: 0,
            max_game: None,
            column: 0,
        }
    }

    /// Bounds the bytes of one game: a game that runs past `limit` bytes
    /// (its elided comments included) with no game boundary in sight is
    /// left out whole, read past up to the next probable game start, and
    /// handed on as an [`Elision`] marked `oversized` in an otherwise empty
    /// chunk, so memory stays at about `limit` whatever the input holds.
    /// A run of whitespace that long is left out without a report.
    pub fn max_game_bytes(mut self, limit: u64) -> Chunker<R> {
        self.max_game = Some(limit.max(1));
        self
    }

    /// Leaves out the text of a brace comment once a game outgrows `limit`
    /// bytes inside it, so memory stays bounded whatever the comment's size
    /// (a 100 MB comment costs no more than a small one). For consumers
    /// that do not read comments, like [`crate::pgn::Checker`]: the chunk
    /// keeps the `{` and the `}` and records the gap
    /// ([`Chunk::elided`]) so line and column numbers stay exact.
    pub fn eliding_comments(mut self, limit: usize) -> Chunker<R> {
        self.elide_after = Some(limit.max(1));
        self
    }

    /// Numbers the input's bytes from `offset` on (for a chunker that takes
    /// over an input part-way, see [`RangePlanner`]): chunk offsets and so
    /// diagnostics' offsets count from there.
    pub fn starting_at(mut self, offset: u64) -> Chunker<R> {
        self.offset = offset;
        self
    }

    /// The input's first byte stands `column` bytes into its line (a
    /// chunker that takes over part-way through a line, see
    /// [`Planned::Rest`]): columns on that line count from there.
    pub fn starting_at_column(mut self, column: u64) -> Chunker<R> {
        self.column = column;
        self
    }

    /// Takes its buffers from `pool` (shared with other producers of chunks).
    pub fn with_pool(mut self, pool: BufferPool) -> Chunker<R> {
        self.pool = pool;
        self
    }

    /// The largest buffer (in bytes) this chunker has filled so far.
    pub fn peak_buffer(&self) -> usize {
        self.peak
    }

    /// The pool that [`Chunker::next_chunk`] takes its buffers from: give
    /// finished chunks' `data` back to it.
    pub fn pool(&self) -> BufferPool {
        self.pool.clone()
    }

    /// The next chunk, `None` at the end of the input.
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        // A reused buffer's stale bytes are overwritten, never zeroed again.
        let mut buf = self.pool.take().unwrap_or_default();
        let mut len = self.carry.len();
        if buf.len() < len {
            buf.resize(len, 0);
        }
        buf[..len].copy_from_slice(&self.carry);
        self.carry.clear();
        let mut want = self.size.max(len);
        loop {
            if !self.eof && len < want {
                len = self.fill(&mut buf, len, want)?;
            }
            self.peak = self.peak.max(len);
            if self.eof {
                buf.truncate(len);
                if buf.is_empty() && self.elided.is_empty() {
                    self.pool.give(buf);
                    return Ok(None);
                }
                return Ok(Some(self.emit(buf, true)));
            }
            if let Some(cut) = find_cut(&buf[..len]).or_else(|| last_game_end(&buf[..len])) {
                self.carry.extend_from_slice(&buf[cut..len]);
                buf.truncate(cut);
                return Ok(Some(self.emit(buf, false)));
            }
            if let Some(max) = self.max_game {
                let held = len as u64 + self.elided.iter().map(|e| e.len).sum::<u64>();
                if held >= max {
                    if ends_after_marker(&buf[..len]) {
                        // Whole games, then whitespace: not one huge game.
                        let end = before_split_line_end(&buf[..len]);
                        self.carry.extend_from_slice(&buf[end..len]);
                        buf.truncate(end);
                        return Ok(Some(self.emit(buf, false)));
                    }
                    let (lead, open_escape) = blank_lead(&buf[..len], self.column == 0);
                    if lead > 0 && self.elided.is_empty() {
                        // Whitespace and escape lines before the next game:
                        // a chunk of their own.
                        self.carry.extend_from_slice(&buf[lead..len]);
                        buf.truncate(lead);
                        return Ok(Some(self.emit(buf, false)));
                    }
                    if open_escape && self.elided.is_empty() {
                        return self.skip_escape_line(buf, len).map(Some);
                    }
                    return self.skip_game(buf, len).map(Some);
                }
            }
            if let Some(limit) = self.elide_after
                && len >= limit
                && let Some(open) = open_comment(&buf[..len])
            {
                len = self.elide_comment(&mut buf, open, len)?;
                want = len.max(self.size);
                continue;
            }
            want = len * 2;
            if let Some(max) = self.max_game {
                // Never ask for more than the bound (and a block to spare).
                want = want.min(max as usize + 1).max(len + 1);
            }
        }
    }

    /// Leaves out the game that starts at `buf[0]` and has outgrown the
    /// bound: reads on to the first probable game start after it and hands
    /// on an empty chunk whose one elision is the game (marked `oversized`,
    /// unless it was only whitespace). What follows the game start becomes
    /// the next chunk's beginning.
    fn skip_game(&mut self, buf: Vec<u8>, len: usize) -> io::Result<Chunk> {
        // Everything held so far, in input order: data and elisions.
        let mut gap = Elision::default();
        let mut blank = true;
        let mut at = 0;
        let elided = std::mem::take(&mut self.elided);
        let data = &buf[..elided.first().map_or(len, |e| e.at.min(len))];
        if let Some(start) = data.iter().position(|b| !b.is_ascii_whitespace()) {
            gap.keep_head(&data[start..]);
        }
        for e in &elided {
            gap.account(&buf[at..e.at.min(len)]);
            gap.absorb(e);
            blank = false; // an elision is a comment's text
            at = e.at.min(len);
        }
        // Keep a tail as the context of the first boundary after it.
        const TAIL: usize = 4096;
        let mut window: Vec<u8> = Vec::with_capacity(TAIL + (1 << 16));
        let rest = &buf[at..len];
        let keep = rest.len().min(TAIL);
        let (old, tail) = rest.split_at(rest.len() - keep);
        blank &= old.iter().all(u8::is_ascii_whitespace);
        gap.account(old);
        window.extend_from_slice(tail);
        let mut checked = 0; // `[`s before this position of `window` were tried
        let block = self.size.clamp(4096, 1 << 20);
        let resume = loop {
            let cuts = [
                find_first_cut(&window, checked),
                find_first_tagless_start(&window, checked),
            ];
            if let Some(cut) = cuts.into_iter().flatten().min() {
                break Some(cut);
            }
            if self.eof {
                break None;
            }
            // Drop what cannot hold a boundary any more (keep the tail).
            if window.len() > TAIL {
                let drop = window.len() - TAIL;
                blank &= window[..drop].iter().all(u8::is_ascii_whitespace);
                gap.account(&window[..drop]);
                window.drain(..drop);
            }
            checked = window.len();
            let start = window.len();
            let got = self.fill(&mut window, start, start + block)?;
            window.truncate(got);
        };
        let end = resume.unwrap_or(window.len());
        blank &= window[..end].iter().all(u8::is_ascii_whitespace);
        gap.account(&window[..end]);
        self.carry.clear();
        self.carry.extend_from_slice(&window[end..]);
        gap.oversized = !blank;
        gap.at = 0;
        Ok(self.emit_gap(buf, len, gap))
    }

    /// Leaves out the escape line (`%` at a line start) that starts at
    /// `buf[0]` and has outgrown the bound: reads on to its line end and
    /// hands on an empty chunk whose one elision is the line. An escape
    /// line is no game (the standard ignores it): no report, as for a run
    /// of whitespace, and the game after it is read.
    fn skip_escape_line(&mut self, buf: Vec<u8>, len: usize) -> io::Result<Chunk> {
        let mut gap = Elision::default();
        gap.account(&buf[..len]);
        let block = self.size.clamp(4096, 1 << 20);
        let mut window = Vec::new();
        while !self.eof {
            let got = self.fill(&mut window, 0, block)?;
            if let Some(end) = memchr2(b'\n', b'\r', &window[..got]) {
                gap.account(&window[..end]);
                self.carry.clear();
                self.carry.extend_from_slice(&window[end..got]);
                break;
            }
            gap.account(&window[..got]);
        }
        Ok(self.emit_gap(buf, len, gap))
    }

    /// Hands on an empty chunk whose one elision is `gap` (bytes left out
    /// after `len` bytes of `buf` were held), giving `buf` back its usual
    /// size.
    fn emit_gap(&mut self, mut buf: Vec<u8>, len: usize, gap: Elision) -> Chunk {
        buf.clear();
        buf.shrink_to(self.size);
        self.peak = self.peak.max(len);
        self.elided = vec![gap];
        let last = self.eof && self.carry.is_empty();
        self.emit(buf, last)
    }

    fn emit(&mut self, data: Vec<u8>, last: bool) -> Chunk {
        let followed_by_game = !last && game_starts_at(&data, &self.carry);
        let chunk = Chunk {
            offset: self.offset,
            last,
            data,
            elided: std::mem::take(&mut self.elided),
            followed_by_game,
            column: self.column,
        };
        self.offset += chunk.input_len();
        self.column = chunk.view().end_column();
        chunk
    }

    /// Drops `buf[open..len]`, the start of a comment still open at the end
    /// of the buffer, and the input after it up to its `}`; returns the new
    /// length of `buf` (ending with the `}` and whatever followed it, or
    /// at `open` if the input ended first).
    fn elide_comment(&mut self, buf: &mut Vec<u8>, open: usize, len: usize) -> io::Result<usize> {
        let mut gap = Elision {
            at: open,
            ..Elision::default()
        };
        gap.account(&buf[open..len]);
        let block = self.size.max(4096);
        loop {
            let end = self.fill(buf, open, open + block)?;
            let read = &buf[open..end];
            if let Some(close) = memchr(b'}', read) {
                gap.account(&read[..close]);
                buf.copy_within(open + close..end, open);
                self.elided.push(gap);
                return Ok(end - close);
            }
            gap.account(read);
            let held: u64 = self.elided.iter().map(|e| e.len).sum::<u64>() + gap.len;
            if self.eof || self.max_game.is_some_and(|max| open as u64 + held >= max) {
                // The end, or a game past the bound: the caller skips it.
                self.elided.push(gap);
                return Ok(open);
            }
        }
    }

    /// Reads into `buf[len..want]` until it is full or the input ends
    /// (then `eof` is set); returns the new length of valid data.
    fn fill(&mut self, buf: &mut Vec<u8>, mut len: usize, want: usize) -> io::Result<usize> {
        if buf.len() < want {
            buf.resize(want, 0);
        }
        while len < want {
            match self.inner.read(&mut buf[len..want]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(len)
    }
}

/// Bytes `start..end` of a seekable input, planned as one chunk by a
/// [`RangePlanner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRange {
    /// Offset of the first byte.
    pub start: u64,
    /// Offset just past the last byte.
    pub end: u64,
    /// Whether the range reaches the end of the input.
    pub last: bool,
    /// A game starts right after the range ([`Chunk::followed_by_game`]).
    pub followed_by_game: bool,
    /// Input bytes on the line of `start` before it ([`Chunk::column`]).
    pub column: u64,
}

impl ChunkRange {
    /// The view of these bytes: `input` is the whole input.
    pub fn view<'a>(&self, input: &'a [u8]) -> ChunkView<'a> {
        ChunkView {
            data: &input[self.start as usize..self.end as usize],
            offset: self.start,
            last: self.last,
            elided: &[],
            followed_by_game: self.followed_by_game,
            column: self.column,
        }
    }

    /// The chunk of these bytes: `data` must hold `input[start..end]`.
    pub fn chunk(&self, data: Vec<u8>) -> Chunk {
        debug_assert_eq!(data.len() as u64, self.end - self.start);
        Chunk {
            data,
            offset: self.start,
            last: self.last,
            elided: Vec::new(),
            followed_by_game: self.followed_by_game,
            column: self.column,
        }
    }
}

/// What [`RangePlanner::next_range`] planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planned {
    /// The next chunk's bytes.
    Range(ChunkRange),
    /// No probable game end within the planner's limit after `start` (a
    /// huge comment, or games with no termination markers): read the rest
    /// of the input from `start` with a [`Chunker`], which bounds memory.
    /// The planner plans nothing more.
    Rest {
        /// Where the rest starts (a planned chunk boundary).
        start: u64,
        /// Input bytes on the line of `start` before it
        /// ([`Chunker::starting_at_column`]).
        column: u64,
    },
}

/// Cuts an input held in memory (a memory-mapped file, say) into chunks
/// at probable game boundaries by the same rule as [`Chunker`], looking only
/// at a small window of the input before each cut. The chunks are then read
/// in place by the threads that parse them, so no single thread copies or
/// scans the whole input: this is what lets the parsing scale with threads.
///
/// A cut can guess wrong just as a [`Chunker`]'s can; the reader of such a
/// chunk reports it [`truncated`](SliceReader::truncated) and the caller
/// joins it to the next one ([`Chunk::append`]).
#[derive(Debug)]
pub struct RangePlanner {
    len: u64,
    next: u64,
    size: u64,
    limit: u64,
    column: u64,
    /// Planning starts part-way ([`RangePlanner::starting_at`]): the column
    /// of the start is read off the input first.
    resumed: bool,
}

/// Bytes searched before a nominal chunk end for the cut near it (then
/// twice as many, and so on).
const CUT_WINDOW: u64 = 16 << 10;

impl RangePlanner {
    /// Bytes before [`RangePlanner::next_nominal_end`] that the planner's
    /// first few windows search (64 KiB: enough for most cuts, games of
    /// engine matches with long comments included).
    pub const LOOKAHEAD: u64 = 4 * CUT_WINDOW;

    /// A planner over an input of `len` bytes, for chunks of about `size`
    /// bytes; a chunk is never planned larger than 16 x `size` (see
    /// [`Planned::Rest`]).
    pub fn new(len: u64, size: usize) -> RangePlanner {
        let size = size.max(1) as u64;
        RangePlanner {
            len,
            next: 0,
            size,
            limit: size.saturating_mul(16),
            column: 0,
            resumed: false,
        }
    }

    /// Plans no range in which a game could run past `max` bytes (the bound
    /// on one game, [`Chunker::max_game_bytes`]): where no game ends
    /// within `max` bytes the planner gives up ([`Planned::Rest`]), and the
    /// chunker that reads the rest applies the bound as it does on any
    /// stream, so a mapped file and the same bytes on stdin read alike.
    pub fn max_game_bytes(mut self, max: u64) -> RangePlanner {
        let max = max.max(1);
        self.size = self.size.min(max);
        self.limit = self.limit.min(max);
        self
    }

    /// Plans from `offset` on (the bytes before it are not read): for an
    /// input read again from where an earlier reading stopped.
    pub fn starting_at(mut self, offset: u64) -> RangePlanner {
        self.next = offset.min(self.len);
        self.resumed = self.next > 0;
        self
    }

    /// Where the next cut is first looked for: the next chunk's nominal
    /// end (the input's length at most). The bytes just before it are the
    /// ones [`RangePlanner::next_range`] reads first.
    pub fn next_nominal_end(&self) -> u64 {
        self.next.saturating_add(self.size).min(self.len)
    }

    /// The range from `start` to `cut` of `input`; planning goes on at
    /// `cut`.
    fn cut_at(&mut self, input: &[u8], start: u64, cut: u64) -> Planned {
        self.next = cut;
        let range = ChunkRange {
            start,
            end: cut,
            last: false,
            followed_by_game: game_starts_at(
                &input[start as usize..cut as usize],
                &input[cut as usize..],
            ),
            column: self.column,
        };
        self.column = range.view(input).end_column();
        Planned::Range(range)
    }

    /// The next chunk of `input` (the whole input, of the length the
    /// planner was made for); `None` once the input is planned.
    pub fn next_range(&mut self, input: &[u8]) -> Option<Planned> {
        let start = self.next;
        if start >= self.len {
            return None;
        }
        if std::mem::take(&mut self.resumed) {
            let before = &input[..start as usize];
            self.column = match memchr::memrchr2(b'\n', b'\r', before) {
                Some(i) => (before.len() - i - 1) as u64,
                None => before.len() as u64,
            };
        }
        let mut span = self.size;
        while span <= self.limit {
            let end = start.saturating_add(span);
            if end >= self.len {
                self.next = self.len;
                return Some(Planned::Range(ChunkRange {
                    start,
                    end: self.len,
                    last: true,
                    followed_by_game: false,
                    column: self.column,
                }));
            }
            let mut width = CUT_WINDOW;
            loop {
                let low = end.saturating_sub(width).max(start);
                // A window from the chunk's start starts at a cut.
                let window = &input[low as usize..end as usize];
                if let Some(cut) = find_cut_in(window, low == start) {
                    let cut = low + cut as u64;
                    if cut > start {
                        return Some(self.cut_at(input, start, cut));
                    }
                }
                if low == start {
                    break;
                }
                width = width.saturating_mul(2);
            }
            // No `[` after a marker to cut before (games without tag
            // sections or markers): where the reader ends the span's last
            // whole game.
            let span_bytes = &input[start as usize..end as usize];
            if let Some(cut) = last_game_end(span_bytes) {
                return Some(self.cut_at(input, start, start + cut as u64));
            }
            span = span.saturating_mul(2);
        }
        self.next = self.len;
        Some(Planned::Rest {
            start,
            column: self.column,
        })
    }
}

/// Where the text of a brace comment still open at the end of `buf` starts
/// (just after its `{`), following the reader's lexical rules: `;` comments
/// and `%` lines run to the line end, tag values are quoted strings.
fn open_comment(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut in_tag = false;
    while i < buf.len() {
        match buf[i] {
            b'{' => match memchr(b'}', &buf[i + 1..]) {
                Some(j) => i += j + 2,
                None => return Some(i + 1),
            },
            b';' => i += memchr2(b'\n', b'\r', &buf[i..])?,
            b'%' if i == 0 || matches!(buf[i - 1], b'\n' | b'\r') => {
                i += memchr2(b'\n', b'\r', &buf[i..])?;
            }
            b'[' => {
                in_tag = true;
                i += 1;
            }
            b']' => {
                in_tag = false;
                i += 1;
            }
            b'"' if in_tag => {
                i += 1;
                while i < buf.len() && !matches!(buf[i], b'"' | b'\n' | b'\r') {
                    i += if buf[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// The last offset in `buf` (not 0) where a game probably ends: before a
/// line-start `[` right after a termination marker, or right after a marker
/// followed only by comments up to such a `[` (`1-0 {took 5 h}`, `;` lines):
/// those comments then start the next chunk, as they start the next game's
/// tag section when the whole input is read.
fn find_cut(buf: &[u8]) -> Option<usize> {
    find_cut_in(buf, true)
}

/// [`find_cut`] over `buf`, which starts at a game boundary (`bounded`) or
/// anywhere in the input (a window: a marker at its very start is then not
/// known to stand alone and is not taken).
fn find_cut_in(buf: &[u8], bounded: bool) -> Option<usize> {
    memrchr_iter(b'[', buf).find_map(|i| cut_before(buf, i, bounded))
}

/// The first probable game boundary in `buf` whose `[` stands at or after
/// `from` (`buf` may start anywhere in the input, as a window does).
fn find_first_cut(buf: &[u8], from: usize) -> Option<usize> {
    memchr_iter(b'[', &buf[from.min(buf.len())..])
        .map(|i| i + from)
        .find_map(|i| cut_before(buf, i, false))
}

/// The first place in `buf` at or after `from` where a game without a tag
/// section probably starts: a line that starts `1.`, after a termination
/// marker standing alone (after whitespace, `)`, `}` or `.`) and nothing but
/// whitespace; or, for games written one after another on one line, blanks
/// and `1.` right after such a marker on its line (the place returned is
/// then just after the marker, as [`last_game_end`] cuts there). For
/// resuming after a game too large to read, where `buf` starts inside that
/// game and the reader cannot be run from a boundary.
fn find_first_tagless_start(buf: &[u8], from: usize) -> Option<usize> {
    let after_marker = |i: usize| {
        buf[..i]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .is_some_and(|end| ends_with_marker(&buf[..=end], false))
    };
    memchr_iter(b'1', &buf[from.min(buf.len())..])
        .map(|i| i + from)
        .find_map(|i| {
            if i == 0 || buf.get(i + 1) != Some(&b'.') {
                return None;
            }
            if matches!(buf[i - 1], b'\n' | b'\r') {
                return after_marker(i).then_some(i);
            }
            let blanks = buf[..i]
                .iter()
                .rposition(|&b| b != b' ' && b != b'\t')
                .map_or(0, |p| p + 1);
            (blanks > 0 && blanks < i && ends_with_marker(&buf[..blanks], false)).then_some(blanks)
        })
}

/// Whether `buf` (starting at a game boundary) ends with a termination
/// marker and nothing but whitespace after it.
fn ends_after_marker(buf: &[u8]) -> bool {
    let Some(end) = buf.iter().rposition(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    ends_with_marker(&buf[..=end], true)
}

/// Whether `text` ends with a termination marker standing alone: after
/// whitespace, `)`, `}` or `.`, or at the start of `text` when it starts at
/// a game boundary (`bounded`; a window that starts anywhere in the input
/// does not know what stands before).
fn ends_with_marker(text: &[u8], bounded: bool) -> bool {
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"]
        .into_iter()
        .any(|m| {
            text.ends_with(m) && {
                let start = text.len() - m.len();
                (start == 0 && bounded)
                    || start > 0 && {
                        let b = text[start - 1];
                        b.is_ascii_whitespace() || matches!(b, b')' | b'}' | b'.')
                    }
            }
        })
}

/// Where to cut if the `[` at `buf[i]` starts the next game: `i`, or the
/// end of the termination marker when comments stand between it and the
/// `[`; `None` if `buf[i]` does not look like a game start.
fn cut_before(buf: &[u8], i: usize, bounded: bool) -> Option<usize> {
    let trimmed = |text: &[u8]| {
        text.iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map(|e| e + 1)
    };
    if i == 0 || !matches!(buf[i - 1], b'\n' | b'\r') {
        return None;
    }
    let mut end = trimmed(&buf[..i])?;
    let mut stripped = false;
    // Comments between the marker and the `[` (a few, to stay linear).
    for _ in 0..8 {
        let line_end = memchr::memrchr2(b'\n', b'\r', &buf[..end]);
        let line_start = line_end.map_or(0, |p| p + 1);
        let line = &buf[line_start..end];
        let first = line.iter().position(|b| !b.is_ascii_whitespace());
        // An escape line: `%` in the first column of a line known to start.
        let escape = line_end.is_some() && line.first() == Some(&b'%');
        if escape || first.is_some_and(|f| line[f] == b';') {
            end = trimmed(&buf[..line_start]).unwrap_or(0);
        } else if buf[end - 1] == b'}' {
            let open = memchr::memrchr(b'{', &buf[..end])?;
            end = trimmed(&buf[..open]).unwrap_or(0);
        } else {
            break;
        }
        stripped = true;
        if end == 0 {
            return None;
        }
    }
    ends_with_marker(&buf[..end], bounded).then_some(if stripped { end } else { i })
}

/// Where the reading of `buf` from its start (a game boundary) ends the
/// last game it reads whole: the start of the line after it if it ends on
/// a line of its own (nothing but blanks after its marker, or a game
/// without a marker ended by the next game's line-start `[`), else right
/// after its marker if blanks and more text follow on its line (games
/// without tag sections written one after another on one line); the later
/// of the two. The next game's reading starts there. `None` if there is no
/// such place before the end of `buf`.
///
/// The cut for games without tag sections or termination markers, which
/// [`find_cut`] cannot see: exact (the reader's own game ends), at the cost
/// of a reading of `buf`. A cut in the middle of a line starts the next
/// chunk with a blank (never a `%` that a line start would make an escape
/// line), and that chunk's [`Chunk::column`] keeps its columns exact.
fn last_game_end(buf: &[u8]) -> Option<usize> {
    let mut reader = SliceReader::new(buf);
    let mut end = None;
    let mut mid_line = None;
    while let Some(failed) = reader.read_game(&mut FailedOrNot) {
        if reader.truncated() {
            break;
        }
        if failed {
            // Where a failed game ends depends on where it failed, which
            // depends on the visitor (an illegal move fails a game that
            // `SkipAll` reads on): no cut. A game that did not fail here
            // ends at the same place for every visitor, whatever came
            // before (no marker stands between its start and its end).
            continue;
        }
        let at = reader.position();
        if at < buf.len() && at > 0 && buf[at] == b'[' && matches!(buf[at - 1], b'\n' | b'\r') {
            // Ended by the next game's tags (no termination marker).
            end = Some(at);
            continue;
        }
        let blanks = buf[at..]
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .map_or(buf.len(), |n| at + n);
        let next_line = match &buf[blanks..] {
            [b'\r', b'\n', ..] => blanks + 2,
            [b'\n', ..] => blanks + 1,
            [b'\r', next, ..] if *next != b'\n' => blanks + 1,
            [] => continue,
            _ => {
                if blanks > at && ends_with_marker(&buf[..at], true) {
                    mid_line = Some(at);
                }
                continue;
            }
        };
        if next_line < buf.len() {
            end = Some(next_line);
        }
    }
    end.max(mid_line)
}

/// The leading part of `buf` that holds no game: whitespace and whole
/// escape lines (`%` at a line start; `line_start`: `buf[0]` starts a
/// line). Its end (before a last CR, see [`before_split_line_end`], when
/// it is all of `buf`), and whether an escape line that `buf` does not end
/// starts there.
fn blank_lead(buf: &[u8], line_start: bool) -> (usize, bool) {
    let mut i = 0;
    loop {
        let Some(n) = buf[i..].iter().position(|b| !b.is_ascii_whitespace()) else {
            return (before_split_line_end(buf).max(i), false);
        };
        i += n;
        let starts_line = if i == 0 {
            line_start
        } else {
            matches!(buf[i - 1], b'\n' | b'\r')
        };
        if buf[i] != b'%' || !starts_line {
            return (i, false);
        }
        match memchr2(b'\n', b'\r', &buf[i..]) {
            Some(end) => i += end,
            None => return (i, true),
        }
    }
}

/// Whether the input `after` a chunk's bytes `data` starts a game: a `[`
/// at a line start ([`Chunk::followed_by_game`]).
fn game_starts_at(data: &[u8], after: &[u8]) -> bool {
    after.first() == Some(&b'[') && matches!(data.last(), Some(b'\n' | b'\r'))
}

/// Where to end a chunk that ends `buf` with whitespace whose next byte is
/// not known: before a last `\r`, which with a `\n` after it is one line
/// end (cut between them, each chunk would count one: a line too many).
fn before_split_line_end(buf: &[u8]) -> usize {
    match buf {
        [.., b'\r'] if buf.len() > 1 => buf.len() - 1,
        _ => buf.len(),
    }
}

/// Finds game boundaries as [`SkipAll`] does, and says whether each game
/// failed (a syntax error: the reading then goes on to the next marker).
struct FailedOrNot;

impl Visitor for FailedOrNot {
    type Output = bool;
    fn begin_game(&mut self, _: GameStart) -> Flow {
        Flow::Break(Stop::SkipGame)
    }
    fn wants_comments(&self) -> bool {
        false
    }
    fn end_game(&mut self, end: GameEnd<'_>) -> bool {
        end.failed
    }
}

/// Counts line ends (LF, CRLF, lone CR) in `data`.
pub fn count_lines(data: &[u8]) -> u64 {
    let lf = memchr_iter(b'\n', data).count() as u64;
    let lone_cr = memchr_iter(b'\r', data)
        .filter(|&i| data.get(i + 1) != Some(&b'\n'))
        .count() as u64;
    lf + lone_cr
}

/// Whether the chunk reads to its end with no game cut off. Always true
/// for the last chunk.
pub fn chunk_is_whole(chunk: &Chunk) -> bool {
    if chunk.last {
        return true;
    }
    let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset)
        .followed_by_game(chunk.followed_by_game);
    let mut truncated = false;
    while reader.read_game(&mut SkipAll).is_some() {
        truncated = reader.truncated();
    }
    !truncated
}

/// Reads games from any [`Read`] with bounded memory: a [`Chunker`] and a
/// [`SliceReader`] per chunk.
///
/// ```
/// use gamerec::pgn::{Reader, SkipAll};
/// let mut reader = Reader::new(&b"1. e4 e5 1-0\n\n[Event \"b\"]\n1. d4 *\n"[..]);
/// let mut games = 0;
/// while reader.read_game(&mut SkipAll)?.is_some() {
///     games += 1;
/// }
/// assert_eq!(games, 2);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Reader<R> {
    chunker: Chunker<R>,
    chunk: Chunk,
    pos: usize,
    games: u64,
    line_base: u64,
    index: Option<LineIndex>,
    problems: Vec<Problem>,
}

impl<R: Read> Reader<R> {
    /// A reader over `inner` (wrap slow sources in nothing: reads are large).
    pub fn new(inner: R) -> Reader<R> {
        Reader::from_chunker(Chunker::new(inner))
    }

    /// A reader over a chunker of a chosen chunk size.
    pub fn from_chunker(chunker: Chunker<R>) -> Reader<R> {
        Reader {
            chunker,
            chunk: Chunk::default(),
            pos: 0,
            games: 0,
            line_base: 0,
            index: None,
            problems: Vec::new(),
        }
    }

    /// Reads the next game into `visitor`; `None` at the end of the input.
    pub fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> io::Result<Option<V::Output>> {
        loop {
            let mut reader =
                SliceReader::resume(&self.chunk.data, self.chunk.offset, self.pos, self.games)
                    .followed_by_game(self.chunk.followed_by_game);
            if let Some(out) = reader.read_game(visitor) {
                self.pos = reader.position();
                self.games = reader.games();
                self.problems.clear();
                self.problems.extend_from_slice(reader.problems());
                return Ok(Some(out));
            }
            if !self.next_chunk()? {
                return Ok(None);
            }
        }
    }

    fn next_chunk(&mut self) -> io::Result<bool> {
        let Some(mut chunk) = self.chunker.next_chunk()? else {
            return Ok(false);
        };
        while !chunk_is_whole(&chunk) {
            match self.chunker.next_chunk()? {
                Some(next) => chunk.append(next),
                None => chunk.last = true,
            }
        }
        self.line_base += self.chunk.lines();
        let done = std::mem::replace(&mut self.chunk, chunk);
        self.chunker.pool.give(done.data);
        self.pos = 0;
        self.index = None;
        Ok(true)
    }

    /// The problems of the game read last.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Line and column of `offset`, which must lie in the chunk of the game
    /// read last (any offset from its [`Problem`]s does).
    pub fn line_col(&mut self, offset: u64) -> LineCol {
        let index = self
            .index
            .get_or_insert_with(|| LineIndex::new(&self.chunk.data));
        let rel = offset.saturating_sub(self.chunk.offset);
        let lc = self.chunk.line_col(index, rel);
        LineCol {
            line: lc.line + self.line_base,
            column: lc.column,
        }
    }

    /// The first line of the game starting at `offset` (the game read
    /// last), as much of it as [`line_at`] gives and no further than the
    /// game's end (for diagnostics).
    pub fn line_text(&self, offset: u64) -> &[u8] {
        line_at(
            &self.chunk.data[..self.pos],
            offset.saturating_sub(self.chunk.offset) as usize,
        )
    }
}

/// The line of `data` that starts at `at` (without its line end), at most
/// [`LINE_AT_MAX`] bytes of it: the start of a game's first line, which a
/// message quotes (60 characters). A game that starts on a long line (games
/// one after another on one line) costs no more than any other.
pub fn line_at(data: &[u8], at: usize) -> &[u8] {
    let rest = data.get(at..).unwrap_or(&[]);
    let rest = &rest[..rest.len().min(LINE_AT_MAX)];
    let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_after_a_marker_or_a_comment_after_one() {
        assert_eq!(find_cut(b"1. e4 1-0\n\n[Event \"b\"]\n"), Some(11));
        assert_eq!(find_cut(b"1. e4 1-0 {took 5 h}\n\n[E \"b\"]\n"), Some(9));
        assert_eq!(find_cut(b"1. e4 1-0\n; {a\n; b }\n\n[E \"b\"]\n"), Some(9));
        assert_eq!(find_cut(b"1-0\n; a\n[E \"b\"]\n"), Some(3));
        assert_eq!(find_cut(b"1. e4 {1-0}\n[E \"b\"]\n"), None);
        assert_eq!(find_cut(b"1. e4 {a}\n[E \"b\"]\n"), None);
        assert_eq!(find_cut(b"[A \"1\"]\n[B \"2\"]\n"), None);
    }

    #[test]
    fn a_game_s_first_line_is_quoted_from_a_bounded_part() {
        // Each game's message quotes its first line: on a line of a million
        // games, reading to the line's end for each made `sort` quadratic.
        let line = "1. e4 e5 1-0 ".repeat(100_000);
        assert_eq!(line_at(line.as_bytes(), 13).len(), LINE_AT_MAX);
        assert_eq!(line_at(b"1. e4 *\r\n1. d4 *", 0), b"1. e4 *");
        assert_eq!(line_at(b"1. e4 *", 9), b"");
    }
}
