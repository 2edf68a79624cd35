//! The SGF parser: bytes in, [`Collection`] and diagnostics out.
//!
//! One pass over the input builds the arena tree and records each value as a
//! byte range; when a game tree closes, a second pass over that game types
//! every value (knowing the game's `FF`, `GM`, `SZ` and `CA`) and checks
//! each node. Nesting is tracked on an explicit stack, never by recursion.

use crate::excerpt::excerpt;
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

use super::charset::{self, FileDecoding};
use super::checks::{self, SgfCheck};
use super::props::{Prop, PropKind, ValueType};
use super::tree::{Collection, GameInfo, NONE, NodeId, Point, Property, Str, Value};
use crate::diag::{Code, Diagnostic, LineCol, LineIndex, MAX_LISTED, NotListed, Severity};

/// Options for [`parse`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    /// Decode the whole input with this charset, ignoring `CA` and BOMs.
    pub charset: Option<&'static Encoding>,
}

/// A problem found while reading SGF.
#[derive(Debug, Clone, PartialEq)]
pub struct SgfDiagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// Byte offset in the (decoded) input.
    pub offset: u64,
    /// Line and column of `offset`.
    pub location: LineCol,
    /// What is wrong and what was expected.
    pub message: String,
    /// The kind of problem (a stable identifier, SGFC's number).
    pub check: SgfCheck,
    /// For a [`SgfCheck::NotListed`] message, the messages it counts.
    pub not_listed: NotListed,
}

impl SgfDiagnostic {
    /// The errors and warnings it stands for: itself, or the messages a
    /// [`SgfCheck::NotListed`] message counts.
    pub fn counts(&self) -> (u64, u64) {
        NotListed::counts_of(
            self.severity,
            (self.check == SgfCheck::NotListed).then_some(&self.not_listed),
        )
    }

    /// As a [`Diagnostic`] for input `path`: the message ends with the
    /// check's identifier, `[sgf:ID]`.
    pub fn to_diagnostic(&self, path: Option<&str>) -> Diagnostic {
        let message = if self.check == SgfCheck::Other {
            self.message.clone()
        } else {
            format!("{} [sgf:{}]", self.message, self.check.id())
        };
        let code = match self.check {
            SgfCheck::IllegalMove | SgfCheck::MoveNotPoint | SgfCheck::OffBoard => {
                Code::IllegalMove
            }
            SgfCheck::BadBytes | SgfCheck::UnknownCharset | SgfCheck::MixedCharsets => {
                Code::Encoding
            }
            SgfCheck::Truncated => Code::Truncated,
            SgfCheck::TooLarge => Code::TooLarge,
            SgfCheck::BadValue
            | SgfCheck::BadRootValue
            | SgfCheck::BadCompose
            | SgfCheck::ComposeExpected
            | SgfCheck::EmptyValue
            | SgfCheck::GameInfoFormat
            | SgfCheck::BoardSize => Code::Value,
            SgfCheck::Other
            | SgfCheck::Rules
            | SgfCheck::ResultVsScore
            | SgfCheck::UnknownProperty
            | SgfCheck::NotInFf
            | SgfCheck::ObsoleteProperty
            | SgfCheck::MixedFf
            | SgfCheck::MixedGames
            | SgfCheck::NotGo
            | SgfCheck::MoveInRoot
            | SgfCheck::SetupNoEffect
            | SgfCheck::DuplicatePoint
            | SgfCheck::OneCellArrow
            | SgfCheck::AnnotationConflict
            | SgfCheck::MoveAnnotationConflict
            | SgfCheck::AnnotationWithoutMove
            | SgfCheck::GameInfoTwice
            | SgfCheck::SetupAndMove
            | SgfCheck::BlackAndWhite
            | SgfCheck::DuplicateProperty
            | SgfCheck::RootOutsideRoot => Code::Other,
            _ => Code::Syntax,
        };
        Diagnostic {
            severity: self.severity,
            path: path.map(str::to_string),
            location: self.location,
            message,
            offset: Some(self.offset),
            code,
            not_listed: (self.check == SgfCheck::NotListed).then(|| Box::new(self.not_listed)),
            ..Diagnostic::default()
        }
    }
}

/// The result of [`parse`]: everything that could be read, and what was wrong.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The game trees.
    pub collection: Collection,
    /// Problems, in input order per kind.
    pub diagnostics: Vec<SgfDiagnostic>,
    /// How the input was decoded.
    pub decoding: FileDecoding,
    /// Line starts of the parsed text, for placing later diagnostics
    /// (empty after [`parse_unindexed`] until [`Parsed::index_lines`]).
    pub lines: LineIndex,
    lines_indexed: bool,
    /// After [`parse_part`]: where the next part starts in the bytes
    /// parsed (`None`: they were read to their end).
    pub rest: Option<usize>,
    /// Whether this is a part ([`parse_part`]): its bytes are its text.
    in_part: bool,
}

impl Parsed {
    /// Number of errors (those not listed too).
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().map(|d| d.counts().0 as usize).sum()
    }

    /// Builds [`Parsed::lines`] if [`parse_unindexed`] skipped it; `bytes`
    /// and `options` must be the ones parsed.
    pub fn index_lines(&mut self, bytes: &[u8], options: &ParseOptions) {
        if !self.lines_indexed {
            let text = match self.in_part {
                true => std::borrow::Cow::Borrowed(bytes),
                false => charset::prepare(bytes, options.charset).0,
            };
            let len = self.rest.unwrap_or(text.len()).min(text.len());
            self.lines = LineIndex::new(&text[..len]);
            self.lines_indexed = true;
        }
    }

    /// A diagnostic at byte `offset` of the parsed input.
    pub fn diagnostic_at(
        &self,
        check: SgfCheck,
        severity: Severity,
        offset: u64,
        message: String,
    ) -> SgfDiagnostic {
        SgfDiagnostic {
            severity,
            offset,
            location: self.lines.line_col(offset),
            message,
            check,
            not_listed: NotListed::default(),
        }
    }

    /// A rule error of the replay ([`super::replay::check_game_notes`]) as
    /// a diagnostic of this input: `path: message`, placed at its offset.
    pub fn rule_diagnostic(&self, e: super::replay::RuleError) -> SgfDiagnostic {
        let severity = if e.warning {
            Severity::Warning
        } else {
            Severity::Error
        };
        let message = format!("{}: {}", e.path, e.message);
        SgfDiagnostic {
            not_listed: e.not_listed,
            ..self.diagnostic_at(e.check, severity, u64::from(e.offset), message)
        }
    }
}

/// Parses an SGF collection from raw bytes (any charset).
pub fn parse(bytes: &[u8], options: &ParseOptions) -> Parsed {
    parse_indexing(bytes, options, true)
}

/// Like [`parse`], but builds the line index only when the parse reported
/// something: for callers that mostly see clean files (`gamerec check`).
/// Call [`Parsed::index_lines`] before [`Parsed::diagnostic_at`].
pub fn parse_unindexed(bytes: &[u8], options: &ParseOptions) -> Parsed {
    parse_indexing(bytes, options, false)
}

/// Memory kept from one parse to the next, for callers that parse many
/// files in a row (`gamerec check`): see [`parse_unindexed_reusing`] and
/// [`ParseBuffers::recycle`].
#[derive(Debug, Default)]
pub struct ParseBuffers {
    coll: Collection,
    diags: Vec<SgfDiagnostic>,
    raw: Vec<(u32, u32)>,
    lowercase_ids: Vec<u32>,
    untyped: Vec<u32>,
}

impl ParseBuffers {
    /// New, empty buffers.
    pub fn new() -> ParseBuffers {
        ParseBuffers::default()
    }

    /// Takes back the memory of a result that is no longer needed.
    pub fn recycle(&mut self, parsed: Parsed) {
        self.coll = parsed.collection;
        self.diags = parsed.diagnostics;
    }
}

/// Like [`parse_unindexed`], reusing the memory of `buffers` (the result is
/// the same).
pub fn parse_unindexed_reusing(
    bytes: &[u8],
    options: &ParseOptions,
    buffers: &mut ParseBuffers,
) -> Parsed {
    parse_with(bytes, options, false, buffers, None)
}

fn parse_indexing(bytes: &[u8], options: &ParseOptions, always_index: bool) -> Parsed {
    parse_with(
        bytes,
        options,
        always_index,
        &mut ParseBuffers::default(),
        None,
    )
}

/// About the bytes of a part, for callers reading large files in parts
/// ([`parse_part`]): a part is whole game trees, at least this many bytes
/// (but the last), or one game tree larger than this.
pub const PART_BYTES: usize = 8 << 20;

/// What the earlier parts of a file leave to the next ([`parse_part`]):
/// the first game's facts for the file-level checks, and whether a game
/// was met.
#[derive(Debug, Clone, Default)]
pub struct PartState {
    first_game: Option<(u32, u32, Option<&'static Encoding>)>,
    mixed_told: (bool, bool),
    seen_game: bool,
}

/// Whether `bytes` (a whole file) may be read in parts ([`parse_part`]):
/// it is read game by game in each game's charset (no `options.charset`,
/// no byte-order mark, not UTF-16, no whole-file charset in its first
/// `CA`), so its text is its bytes.
pub fn parts_allowed(bytes: &[u8], options: &ParseOptions) -> bool {
    options.charset.is_none()
        && matches!(
            charset::prepare(bytes, None),
            (std::borrow::Cow::Borrowed(text), FileDecoding::PerGame) if text.len() == bytes.len()
        )
}

/// Parses the start of `bytes` (the rest of a file that
/// [`parts_allowed`]) up to the end of the first game tree that ends at or
/// past byte `stop_after`: a file of many games is read a part at a time,
/// in the memory of a part, with the messages the whole file gives
/// ([`Parsed::rest`]: where the next part starts; `state` carries what the
/// parts share). Offsets and line:col are the part's: add its place in the
/// file.
pub fn parse_part(
    bytes: &[u8],
    options: &ParseOptions,
    state: &mut PartState,
    stop_after: usize,
    buffers: &mut ParseBuffers,
) -> Parsed {
    parse_with(bytes, options, false, buffers, Some((state, stop_after)))
}

/// Where a part ([`parse_part`]) starts in its file, to place its
/// messages there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartPlace {
    /// Bytes before the part.
    pub offset: u64,
    /// Lines before the part's first line.
    pub lines: u64,
    /// Bytes of the part's first line before the part.
    pub column: u64,
}

impl PartPlace {
    /// The place of the part after `part` (the bytes of this one).
    pub fn after(self, part: &[u8]) -> PartPlace {
        // Line ends as [`LineIndex`] counts them: LF, CRLF, lone CR (a
        // part ends at a `)`, so no CRLF is split).
        let (mut lines, mut last_end) = (0u64, None);
        for i in memchr::memchr2_iter(b'\n', b'\r', part) {
            if part[i] == b'\r' && part.get(i + 1) == Some(&b'\n') {
                continue;
            }
            lines += 1;
            last_end = Some(i);
        }
        let column = match last_end {
            Some(i) => (part.len() - i - 1) as u64,
            None => self.column + part.len() as u64,
        };
        PartPlace {
            offset: self.offset + part.len() as u64,
            lines: self.lines + lines,
            column,
        }
    }

    /// Moves `d`, placed in the part, to its place in the file.
    pub fn place(&self, d: &mut SgfDiagnostic) {
        if d.location.line <= 1 {
            d.location.column += self.column;
        }
        d.location.line += self.lines;
        d.offset += self.offset;
    }
}

/// Reads an SGF stream (stdin, a decompressed file) a part at a time, as
/// [`parse_part`] reads a file in memory: at most a few parts' bytes are
/// held. A stream that cannot be read in parts ([`parts_allowed`], from its
/// first bytes) is read whole and given as one part.
pub struct StreamParts<R> {
    input: R,
    buf: Vec<u8>,
    /// Bytes of `buf` before this are done with (the parts given).
    start: usize,
    eof: bool,
    /// `None` until the stream's first bytes have been looked at.
    in_parts: Option<bool>,
    state: PartState,
    place: PartPlace,
    done: bool,
}

impl<R: std::io::Read> StreamParts<R> {
    /// Parts of `input`.
    pub fn new(input: R) -> StreamParts<R> {
        StreamParts {
            input,
            buf: Vec::new(),
            start: 0,
            eof: false,
            in_parts: None,
            state: PartState::default(),
            place: PartPlace::default(),
            done: false,
        }
    }

    /// Reads until `want` bytes past `start` are held, or the end.
    fn fill(&mut self, want: usize) -> std::io::Result<()> {
        use std::io::Read;
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        if !self.eof && self.buf.len() < want {
            let missing = (want - self.buf.len()) as u64;
            let n = (&mut self.input).take(missing).read_to_end(&mut self.buf)?;
            self.eof = (n as u64) < missing;
        }
        Ok(())
    }

    /// The next part: its parse (lines indexed), its bytes and its place
    /// in the stream; `None` after the last.
    pub fn next_part(
        &mut self,
        options: &ParseOptions,
        buffers: &mut ParseBuffers,
    ) -> std::io::Result<Option<(Parsed, &[u8], PartPlace)>> {
        if self.done {
            return Ok(None);
        }
        let mut want = 2 * PART_BYTES;
        loop {
            self.fill(want)?;
            let in_parts = *self
                .in_parts
                .get_or_insert_with(|| parts_allowed(&self.buf, options));
            if !in_parts && !self.eof {
                // Read whole: everything first.
                want = self.buf.len().saturating_mul(2).max(want);
                continue;
            }
            let before = self.state.clone();
            let avail = &self.buf[self.start..];
            let parsed = match in_parts {
                true => parse_with(
                    avail,
                    options,
                    true,
                    buffers,
                    Some((&mut self.state, PART_BYTES)),
                ),
                false => parse_with(avail, options, true, buffers, None),
            };
            let end = match parsed.rest {
                Some(n) => n,
                None if self.eof => avail.len(),
                None => {
                    // A game tree past the bytes held: read on, parse again.
                    self.state = before;
                    buffers.recycle(parsed);
                    want = self.buf.len().saturating_mul(2);
                    continue;
                }
            };
            let place = self.place;
            let part = self.start..self.start + end;
            self.place = place.after(&self.buf[part.clone()]);
            self.start = part.end;
            self.done = parsed.rest.is_none();
            return Ok(Some((parsed, &self.buf[part], place)));
        }
    }
}

fn parse_with(
    bytes: &[u8],
    options: &ParseOptions,
    always_index: bool,
    buffers: &mut ParseBuffers,
    part: Option<(&mut PartState, usize)>,
) -> Parsed {
    let (text, decoding) = match part {
        // Read game by game: the bytes are the text ([`parts_allowed`]).
        Some(_) => (std::borrow::Cow::Borrowed(bytes), FileDecoding::PerGame),
        None => charset::prepare(bytes, options.charset),
    };
    let in_part = part.is_some();
    let (carry, stop_after) = match &part {
        Some((state, stop)) => ((**state).clone(), *stop),
        None => (PartState::default(), usize::MAX),
    };
    let mut coll = std::mem::take(&mut buffers.coll);
    coll.clear();
    // About one node, property and value per 7 bytes in game records (of
    // a part: its bound, and a little more for its last game).
    let expected = text.len().min(stop_after.saturating_add(1 << 16));
    room_for(&mut coll.nodes, expected / 6);
    room_for(&mut coll.props, expected / 6);
    room_for(&mut coll.values, expected / 6);
    let mut diags = std::mem::take(&mut buffers.diags);
    diags.clear();
    let mut raw = std::mem::take(&mut buffers.raw);
    raw.clear();
    room_for(&mut raw, expected / 4);
    let mut lowercase_ids = std::mem::take(&mut buffers.lowercase_ids);
    lowercase_ids.clear();
    let mut untyped = std::mem::take(&mut buffers.untyped);
    untyped.clear();
    let mut p = Parser {
        src: &text,
        pos: 0,
        coll,
        diags,
        raw,
        lowercase_ids,
        untyped,
        game_root: NONE,
        move_typing: MoveTyping::Unknown,
        root_read: None,
        decoding,
        quick_moves: QUICK_MOVES.with(|q| q.get()),
        first_game: carry.first_game,
        mixed_told: carry.mixed_told,
        carry: carry.clone(),
        stop_after,
        rest: None,
        point_bits: Vec::new(),
        game_diags: 0,
        not_listed: None,
    };
    if let FileDecoding::Whole(enc) = decoding
        && enc != UTF_8
    {
        // Bytes the whole-file decoding replaced (not U+FFFD written as such).
        const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();
        if let Some(i) = memchr::memmem::find(&text, REPLACEMENT)
            && memchr::memmem::find(bytes, REPLACEMENT).is_none()
        {
            let n = memchr::memmem::find_iter(&text, REPLACEMENT).count();
            p.diag(
                SgfCheck::BadBytes,
                Severity::Warning,
                i,
                format!(
                    "bytes not valid in {} ({n} replaced with U+FFFD)",
                    enc.name()
                ),
            );
        }
    }
    if text.len() >= u32::MAX as usize {
        p.diag(
            SgfCheck::TooLarge,
            Severity::Error,
            0,
            "input larger than 4 GiB is not supported".into(),
        );
    } else {
        p.run();
    }
    let Parser {
        coll,
        mut diags,
        raw,
        lowercase_ids,
        untyped,
        first_game,
        mixed_told,
        carry,
        rest,
        ..
    } = p;
    if let Some((state, _)) = part {
        *state = PartState {
            first_game,
            mixed_told,
            seen_game: carry.seen_game,
        };
    }
    buffers.raw = raw;
    buffers.lowercase_ids = lowercase_ids;
    buffers.untyped = untyped;
    let len = rest.unwrap_or(text.len());
    let lines_indexed = always_index || !diags.is_empty();
    let lines = if lines_indexed {
        LineIndex::new(&text[..len])
    } else {
        LineIndex::empty()
    };
    for d in &mut diags {
        d.location = lines.line_col(d.offset);
    }
    Parsed {
        collection: coll,
        diagnostics: diags,
        decoding,
        lines,
        lines_indexed,
        rest,
        in_part,
    }
}

/// Room for `n` items in the empty vector `v`, kept from an earlier parse:
/// when it has too little, a new allocation (at least twice the old one)
/// replaces it, since growing it in place would copy the old allocation
/// whole (the unused bytes too, touching every page).
fn room_for<T>(v: &mut Vec<T>, n: usize) {
    debug_assert!(v.is_empty());
    if v.capacity() < n {
        let at_least = 2 * v.capacity();
        *v = Vec::new();
        *v = Vec::with_capacity(n.max(at_least));
    }
}

/// Verbatim value text with every `]` escaped and no dangling `\` at the
/// end, as the writer needs it (unchanged when it already is).
fn repair_escapes(s: &str) -> std::borrow::Cow<'_, str> {
    let mut escaped = false;
    let mut ok = true;
    for b in s.bytes() {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b']') => ok = false,
            _ => {}
        }
    }
    if ok && !escaped {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    let mut escaped = false;
    for c in s.chars() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, ']') => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    if escaped {
        out.push('\\');
    }
    std::borrow::Cow::Owned(out)
}

/// How [`Parser::quick_move`] types the moves of a game: known once the
/// root (whose `GM` and `SZ` decide it) is complete.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MoveTyping {
    /// Not yet worked out (the root is still being read).
    Unknown,
    /// Points of two letters; `[tt]` is a pass when the flag is set (boards
    /// up to 19x19).
    Letters(bool),
    /// Other games: typed by [`Parser::finish_game`].
    Later,
}

/// What [`Parser::root_facts`] reads from a game's root.
struct RootFacts<'a> {
    /// `FF` (unchecked), `GM` and the board size (the default when `SZ` is
    /// missing or unusable).
    info: GameInfo,
    /// The offset of the root's first property (else of the root).
    first_offset: u32,
    ff_at: u32,
    gm_at: u32,
    sz_at: u32,
    /// An `SZ` below 1: its offset and text.
    bad_size: Option<(u32, String)>,
    /// `CA`: its offset and raw value (in the file's bytes).
    ca: Option<(u32, &'a [u8])>,
}

struct Frame {
    /// The node the tree's first node hangs under (`NONE` for a game root).
    parent: u32,
    has_node: bool,
    had_subtree: bool,
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    coll: Collection,
    diags: Vec<SgfDiagnostic>,
    /// Value byte ranges of the current game, parallel to its values
    /// (which start at `coll.values.len() - raw.len()`).
    raw: Vec<(u32, u32)>,
    lowercase_ids: Vec<u32>,
    /// The properties of the current game whose values are placeholders
    /// until [`Parser::finish_game`] types them (all but the moves
    /// [`Parser::quick_move`] typed as it read them), in order.
    untyped: Vec<u32>,
    /// The current game's root node.
    game_root: u32,
    /// How [`Parser::quick_move`] types moves in the current game.
    move_typing: MoveTyping,
    /// The current game's root facts once [`Parser::root_move_typing`]
    /// has read them (the root is complete then), for
    /// [`Parser::finish_game`].
    root_read: Option<RootFacts<'a>>,
    decoding: FileDecoding,
    /// Whether [`Parser::quick_move`] is used (off only in tests comparing
    /// it with the general path).
    quick_moves: bool,
    /// The first game's FF, GM and charset (`None`: the default), for the
    /// file-level checks (SGFC 45, 53, 74), and whether 45/53 were told.
    first_game: Option<(u32, u32, Option<&'static Encoding>)>,
    mixed_told: (bool, bool),
    /// What the file's earlier parts leave to this one.
    carry: PartState,
    /// Stop after the game tree that ends at or past this byte.
    stop_after: usize,
    /// Where the next part starts, when the parse stopped early.
    rest: Option<usize>,
    /// Scratch bit sets for [`Parser::check_points`].
    point_bits: Vec<u64>,
    /// Messages listed for the current game (see [`MAX_LISTED`]).
    game_diags: usize,
    /// The current game's [`SgfCheck::NotListed`] message, once it has one.
    not_listed: Option<usize>,
}

thread_local! {
    /// Tests turn the fast paths off to compare them with the general path.
    static QUICK_MOVES: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Parses with the fast paths off: the general path only (for tests
/// comparing the two).
#[doc(hidden)]
pub fn parse_general_path(bytes: &[u8], options: &ParseOptions) -> Parsed {
    QUICK_MOVES.with(|q| q.set(false));
    let p = parse(bytes, options);
    QUICK_MOVES.with(|q| q.set(true));
    p
}

#[inline]
fn is_space(c: u8) -> bool {
    c <= b' '
}

impl<'a> Parser<'a> {
    fn diag(&mut self, check: SgfCheck, severity: Severity, offset: usize, message: String) {
        if self.game_diags >= MAX_LISTED {
            // Counted in one message (see [`MAX_LISTED`]).
            let i = *self.not_listed.get_or_insert_with(|| {
                self.diags.push(SgfDiagnostic {
                    severity,
                    offset: offset as u64,
                    location: LineCol { line: 0, column: 0 },
                    message: String::new(),
                    check: SgfCheck::NotListed,
                    not_listed: NotListed::default(),
                });
                self.diags.len() - 1
            });
            let d = &mut self.diags[i];
            d.not_listed.count(severity);
            d.severity = d.not_listed.severity();
            return;
        }
        self.game_diags += 1;
        self.diags.push(SgfDiagnostic {
            severity,
            offset: offset as u64,
            location: LineCol { line: 0, column: 0 },
            message,
            check,
            not_listed: NotListed::default(),
        });
    }

    /// Ends the count of one game's messages (at the next game, or the
    /// input's end): the message of those not listed gets its text.
    fn end_game_diags(&mut self) {
        if let Some(i) = self.not_listed.take() {
            let d = &mut self.diags[i];
            d.message = d.not_listed.message("the parser", "game");
        }
        self.game_diags = 0;
    }

    fn run(&mut self) {
        let src = self.src;
        let len = src.len();
        let mut stack: Vec<Frame> = Vec::new();
        let mut cur: u32 = NONE; // last node of the current sequence
        let mut open_node: u32 = NONE; // node receiving properties
        let mut game_first_node = 0usize;
        // Whether the general path gave a property to a node other than the
        // current game's root (if not, every other node holds at most one
        // move read by `quick_move`, which no node rule can object to).
        let mut general_props = false;
        let mut junk_at: Option<usize> = None;
        let mut seen_game = self.carry.seen_game;
        let mut unclosed_value = false;

        while self.pos < len {
            let c = src[self.pos];
            if is_space(c) {
                self.pos += 1;
                continue;
            }
            if stack.is_empty() {
                // Between game trees: a tree starts at '(' followed by ';'
                // (or by a property: missing ';'); other '(' are prose.
                let mut k = self.pos;
                let found = loop {
                    match memchr::memchr(b'(', &src[k..]) {
                        Some(i) => {
                            if starts_tree(&src[k + i + 1..]) {
                                break Some(k + i);
                            }
                            k += i + 1;
                        }
                        None => break None,
                    }
                };
                match found {
                    Some(at) => {
                        if !seen_game
                            && let Some(i) = memchr::memchr(b'[', &src[self.pos..at])
                            && src[self.pos + i..at].contains(&b']')
                        {
                            self.diag(
                                SgfCheck::DataBeforeTree,
                                Severity::Warning,
                                self.pos + i,
                                "SGF-like data before the first game tree '(;' (ignored)".into(),
                            );
                        }
                        if seen_game && src[self.pos..at].iter().any(|&b| !is_space(b)) {
                            let first = self.pos;
                            if src[first] == b')' {
                                self.diag(
                                    SgfCheck::UnexpectedClose,
                                    Severity::Error,
                                    first,
                                    "unexpected ')' outside any game tree (ignored)".into(),
                                );
                            } else {
                                let text = excerpt(src[first..at].trim_ascii_end());
                                self.diag(
                                    SgfCheck::TextOutsideTrees,
                                    Severity::Warning,
                                    first,
                                    format!("text between game trees ignored: \"{text}\""),
                                );
                            }
                        }
                        self.pos = at;
                    }
                    None => {
                        if seen_game {
                            let at = self.pos;
                            if src[at] == b')' {
                                self.diag(
                                    SgfCheck::UnexpectedClose,
                                    Severity::Error,
                                    at,
                                    "unexpected ')' outside any game tree (ignored)".into(),
                                );
                            } else {
                                let text = excerpt(src[at..].trim_ascii_end());
                                self.diag(
                                    SgfCheck::TextOutsideTrees,
                                    Severity::Warning,
                                    at,
                                    format!("text after the last game tree ignored: \"{text}\""),
                                );
                            }
                        } else {
                            self.diag(
                                SgfCheck::NoGameTree,
                                Severity::Error,
                                0,
                                "no SGF game tree found: expected '(;'".into(),
                            );
                        }
                        self.pos = len;
                        break;
                    }
                }
                // Start a game tree.
                self.end_game_diags();
                self.pos += 1;
                seen_game = true;
                stack.push(Frame {
                    parent: NONE,
                    has_node: false,
                    had_subtree: false,
                });
                cur = NONE;
                open_node = NONE;
                game_first_node = self.coll.nodes.len();
                general_props = false;
                self.raw.clear();
                self.untyped.clear();
                self.game_root = game_first_node as u32;
                self.move_typing = MoveTyping::Unknown;
                self.root_read = None;
                self.lowercase_ids.clear();
                continue;
            }
            if junk_at.is_some() && matches!(c, b'(' | b')' | b';' | b'[') {
                self.flush_junk(&mut junk_at);
            }
            match c {
                b'(' => {
                    let top = stack.last_mut().expect("non-empty stack");
                    if !top.has_node {
                        // Like SGFC: the '(' alone is dropped; the next ')' closes the outer tree.
                        self.diag(
                            SgfCheck::VariationBeforeNode,
                            Severity::Error,
                            self.pos,
                            "variation starts before any node (ignored)".into(),
                        );
                    } else {
                        top.had_subtree = true;
                        stack.push(Frame {
                            parent: cur,
                            has_node: false,
                            had_subtree: false,
                        });
                    }
                    open_node = NONE;
                    self.pos += 1;
                }
                b')' => {
                    let frame = stack.pop().expect("non-empty stack");
                    if !frame.has_node {
                        self.diag(
                            SgfCheck::EmptyVariation,
                            Severity::Error,
                            self.pos,
                            "empty variation '()' (ignored)".into(),
                        );
                    }
                    cur = frame.parent;
                    open_node = NONE;
                    self.pos += 1;
                    if stack.is_empty() {
                        self.finish_game(game_first_node, general_props);
                        if self.pos >= self.stop_after && self.pos < len {
                            // A part ends with a game tree ([`parse_part`]).
                            self.rest = Some(self.pos);
                            break;
                        }
                    }
                }
                b';' => {
                    let top = stack.last_mut().expect("non-empty stack");
                    if top.had_subtree {
                        top.had_subtree = false;
                        let at = self.pos;
                        self.diag(
                            SgfCheck::NodeOutsideVariation,
                            Severity::Error,
                            at,
                            "node after a variation: missing '(' assumed (read as a new variation)"
                                .into(),
                        );
                    }
                    top.has_node = true;
                    let parent = (cur != NONE).then_some(NodeId(cur));
                    let id = self.coll.push_node(parent, self.pos as u32);
                    cur = id.0;
                    open_node = id.0;
                    self.pos += 1;
                    if self.quick_moves && self.quick_move(id.0) {
                        // A run of nodes holding one move each is read here
                        // without the dispatch: no junk is pending, no
                        // subtree comes in between, and each node is the
                        // only child of the one before (which has none
                        // yet). Any other node is left at its ';'.
                        while src.get(self.pos) == Some(&b';') {
                            let at = self.pos + 1;
                            let Some((prop, x, y, end)) = self.scan_quick_move(at) else {
                                break;
                            };
                            let id = self.coll.push_move_node(cur, self.pos as u32);
                            self.store_quick_move(at, prop, x, y, true);
                            cur = id;
                            open_node = id;
                            self.pos = end;
                        }
                    }
                }
                b'[' => {
                    let at = self.pos;
                    while self.pos < len && src[self.pos] == b'[' {
                        let (_, _, closed) = self.read_value();
                        if !closed {
                            unclosed_value = true;
                        }
                        self.skip_space();
                    }
                    self.diag(
                        SgfCheck::ValuesWithoutId,
                        Severity::Error,
                        at,
                        "values without a property identifier (deleted)".into(),
                    );
                }
                b'A'..=b'Z' | b'a'..=b'z' => {
                    let start = self.pos;
                    let mut end = start;
                    let mut upper = 0usize;
                    while end < len && src[end].is_ascii_alphabetic() {
                        if src[end].is_ascii_uppercase() {
                            upper += 1;
                        }
                        end += 1;
                    }
                    if upper == 0 {
                        junk_at.get_or_insert(start);
                        self.pos = end;
                        continue;
                    }
                    self.flush_junk(&mut junk_at);
                    self.pos = end;
                    self.skip_space();
                    if self.pos >= len || src[self.pos] != b'[' {
                        let name = excerpt(&src[start..end]);
                        self.diag(
                            SgfCheck::NoValues,
                            Severity::Error,
                            start,
                            format!("property {name} without any value (ignored)"),
                        );
                        continue;
                    }
                    if end - start > 100 {
                        self.diag(
                            SgfCheck::LongPropertyId,
                            Severity::Error,
                            start,
                            format!(
                                "property identifier longer than 100 letters ({}) deleted",
                                end - start
                            ),
                        );
                        while self.pos < len && src[self.pos] == b'[' {
                            let (_, _, closed) = self.read_value();
                            if !closed {
                                unclosed_value = true;
                                break;
                            }
                            self.skip_space();
                        }
                        continue;
                    }
                    if upper > 2 {
                        let name = excerpt(&src[start..end]);
                        self.diag(
                            SgfCheck::PropertyIdOver2,
                            Severity::Warning,
                            end,
                            format!("property identifier {name} has more than two letters"),
                        );
                    }
                    if open_node == NONE {
                        // SGFC tells a game tree's start (36) from a variation's (67).
                        let missing_semi = if stack.len() == 1 {
                            SgfCheck::MissingSemicolon
                        } else {
                            SgfCheck::MissingSemicolonInVariation
                        };
                        let top = stack.last_mut().expect("non-empty stack");
                        top.has_node = true;
                        top.had_subtree = false;
                        self.diag(
                            missing_semi,
                            Severity::Error,
                            start,
                            "property outside a node: missing ';' assumed".into(),
                        );
                        let parent = (cur != NONE).then_some(NodeId(cur));
                        let id = self.coll.push_node(parent, start as u32);
                        cur = id.0;
                        open_node = id.0;
                    }
                    let ident = &src[start..end];
                    let (prop, name) = if upper == end - start {
                        let p = Prop::from_ident(ident);
                        let name = if p == Prop::Unknown {
                            self.coll
                                .intern(std::str::from_utf8(ident).unwrap_or_default())
                        } else {
                            Str::default()
                        };
                        (p, name)
                    } else {
                        self.lowercase_ids.push(start as u32);
                        let up: Vec<u8> = ident
                            .iter()
                            .copied()
                            .filter(u8::is_ascii_uppercase)
                            .collect();
                        let p = Prop::from_ident(&up);
                        let name = if p == Prop::Unknown {
                            self.coll
                                .intern(std::str::from_utf8(&up).unwrap_or_default())
                        } else {
                            Str::default()
                        };
                        (p, name)
                    };
                    let values_start = self.coll.values.len() as u32;
                    let mut n = 0u32;
                    while self.pos < len && src[self.pos] == b'[' {
                        let (s, e, closed) = self.read_value();
                        self.raw.push((s, e));
                        // A placeholder: `finish_game` types it.
                        self.coll.values.push(Value::None);
                        n += 1;
                        if !closed {
                            unclosed_value = true;
                            break;
                        }
                        self.skip_space();
                    }
                    general_props |= open_node as usize != game_first_node;
                    self.untyped.push(self.coll.props.len() as u32);
                    self.coll.props.push(Property {
                        prop,
                        name,
                        values_start,
                        values_len: n,
                        offset: start as u32,
                    });
                    self.coll.nodes[open_node as usize].props_len += 1;
                }
                _ => {
                    junk_at.get_or_insert(self.pos);
                    self.pos += 1;
                }
            }
        }
        self.flush_junk(&mut junk_at);
        if !stack.is_empty() {
            if !unclosed_value {
                self.diag(
                    SgfCheck::Truncated,
                    Severity::Error,
                    len,
                    format!("unexpected end of file: {} missing ')'", stack.len()),
                );
            }
            self.finish_game(game_first_node, general_props);
        }
        self.end_game_diags();
        self.carry.seen_game = seen_game;
        let _ = cur;
    }

    /// Fast path for the commonest node, `;B[xy]` or `;W[xy]` (any two
    /// bytes but `]` and `\\`) with no other value or property: reads the
    /// property at `pos` into the fresh node `node` exactly as the general
    /// path of [`Parser::run`] would (and returns true), or leaves
    /// everything to it.
    #[inline]
    fn quick_move(&mut self, node: u32) -> bool {
        let Some((prop, x, y, end)) = self.scan_quick_move(self.pos) else {
            return false;
        };
        self.store_quick_move(self.pos, prop, x, y, node != self.game_root);
        self.coll.nodes[node as usize].props_len += 1;
        self.pos = end;
        true
    }

    /// The move property [`Parser::quick_move`] takes at `at`, if any: the
    /// property, its two bytes and where the next thing after it starts.
    #[inline(always)]
    fn scan_quick_move(&self, at: usize) -> Option<(Prop, u8, u8, usize)> {
        let src = self.src;
        let Some(&[c, open, x, y, close]) = src.get(at..at + 5) else {
            return None;
        };
        let prop = match c {
            b'B' => Prop::B,
            b'W' => Prop::W,
            _ => return None,
        };
        if open != b'[' || close != b']' || matches!(x, b']' | b'\\') || matches!(y, b']' | b'\\') {
            return None;
        }
        let mut end = at + 5;
        while end < src.len() && is_space(src[end]) {
            end += 1;
        }
        if src.get(end) == Some(&b'[') {
            return None;
        }
        Some((prop, x, y, end))
    }

    /// Stores the move property at `at` that [`Parser::scan_quick_move`]
    /// took, as the last property of the last node; `below_root`: that node
    /// is not the game's root.
    #[inline(always)]
    fn store_quick_move(&mut self, at: usize, prop: Prop, x: u8, y: u8, below_root: bool) {
        let values_start = self.coll.values.len() as u32;
        // Typed here as `finish_game` would type it, once the root (which
        // decides how) is complete: below the root. Lowercase letters only
        // (`finish_game` types the rest).
        let (px, py) = (x.wrapping_sub(b'a'), y.wrapping_sub(b'a'));
        let mut typed = false;
        if px < 26 && py < 26 && below_root {
            if self.move_typing == MoveTyping::Unknown {
                self.move_typing = self.root_move_typing();
            }
            if let MoveTyping::Letters(small) = self.move_typing {
                self.coll.values.push(if small && px == 19 && py == 19 {
                    Value::Pass
                } else {
                    Value::Point(Point::new(px, py))
                });
                typed = true;
            }
        }
        if !typed {
            self.untyped.push(self.coll.props.len() as u32);
            self.coll.values.push(Value::None);
        }
        self.raw.push((at as u32 + 2, at as u32 + 4));
        self.coll.props.push(Property {
            prop,
            name: Str::default(),
            values_start,
            values_len: 1,
            offset: at as u32,
        });
    }

    /// How the current game's moves are typed, from its complete root
    /// (whose facts are kept for [`Parser::finish_game`]).
    fn root_move_typing(&mut self) -> MoveTyping {
        let facts = self.root_facts(self.game_root as usize);
        let typing = if facts.info.letter_points() {
            MoveTyping::Letters(facts.info.width <= 19 && facts.info.height <= 19)
        } else {
            MoveTyping::Later
        };
        self.root_read = Some(facts);
        typing
    }

    /// The game facts of the root node `root` of the current game, from its
    /// raw values (`FF` before the check of its range).
    fn root_facts(&self, root: usize) -> RootFacts<'a> {
        let src = self.src;
        let rn = self.coll.nodes[root];
        let mut info = GameInfo {
            ff: 1,
            gm: 1,
            width: 0,
            height: 0,
        };
        let mut size: Option<(u32, u32)> = None;
        // Offsets of FF, GM and SZ in the root (else the root's first property).
        let first_offset = if rn.props_len > 0 {
            self.coll.props[rn.props_start as usize].offset
        } else {
            rn.offset
        };
        let (mut ff_at, mut gm_at, mut sz_at) = (first_offset, first_offset, rn.offset);
        let mut bad_size: Option<(u32, String)> = None;
        let mut ca: Option<(u32, &'a [u8])> = None;
        let base = (self.coll.values.len() - self.raw.len()) as u32;
        for p in &self.coll.props[rn.props_start as usize..(rn.props_start + rn.props_len) as usize]
        {
            if p.values_len == 0 {
                continue;
            }
            let (s, e) = self.raw[(p.values_start - base) as usize];
            let v = trim(&src[s as usize..e as usize]);
            match p.prop {
                Prop::FF => {
                    ff_at = p.offset;
                    if let Some(n) = parse_number(v) {
                        info.ff = n.clamp(0, 1000) as u32;
                    }
                }
                Prop::GM => {
                    gm_at = p.offset;
                    if let Some(n) = parse_number(v) {
                        info.gm = n.clamp(0, 1_000_000) as u32;
                    }
                }
                Prop::SZ => {
                    sz_at = p.offset;
                    if let Some(n) = parse_number(v)
                        && n < 1
                    {
                        // As SGFC: an unusable size is the default one.
                        bad_size = Some((p.offset, excerpt(v).to_string()));
                    } else if let Some(n) = parse_number(v) {
                        size = Some((n.clamp(0, 1000) as u32, n.clamp(0, 1000) as u32));
                    } else if let Some((a, b)) = split_compose(v)
                        && let (Some(a), Some(b)) = (parse_number(trim(a)), parse_number(trim(b)))
                    {
                        size = Some((a.clamp(0, 1000) as u32, b.clamp(0, 1000) as u32));
                    }
                }
                Prop::CA => ca = Some((p.offset, v)),
                _ => {}
            }
        }
        let default = if info.gm == 2 { 8 } else { 19 };
        let (w, h) = size.unwrap_or((default, default));
        info.width = w;
        info.height = h;
        RootFacts {
            info,
            first_offset,
            ff_at,
            gm_at,
            sz_at,
            bad_size,
            ca,
        }
    }

    fn flush_junk(&mut self, junk_at: &mut Option<usize>) {
        if let Some(at) = junk_at.take() {
            let end = self.pos.min(self.src.len());
            let text = excerpt(self.src[at..end].trim_ascii_end());
            self.diag(
                SgfCheck::IllegalChars,
                Severity::Error,
                at,
                format!("illegal characters \"{text}\" in game tree (ignored)"),
            );
        }
    }

    #[inline]
    fn skip_space(&mut self) {
        while self.pos < self.src.len() && is_space(self.src[self.pos]) {
            self.pos += 1;
        }
    }

    /// Reads `[...]` at `pos`; returns the content range and whether `]` was found.
    #[inline]
    fn read_value(&mut self) -> (u32, u32, bool) {
        let src = self.src;
        let start = self.pos + 1;
        let mut i = start;
        // Short values (moves, numbers) without memchr set-up cost.
        let quick_end = (start + 8).min(src.len());
        while i < quick_end {
            match src[i] {
                b']' => {
                    self.pos = i + 1;
                    return (start as u32, i as u32, true);
                }
                b'\\' => break,
                _ => i += 1,
            }
        }
        loop {
            match memchr::memchr2(b']', b'\\', &src[i.min(src.len())..]) {
                Some(k) => {
                    let j = i + k;
                    if src[j] == b'\\' {
                        i = j + 2;
                        if i > src.len() {
                            // A lone backslash at end of input.
                            self.pos = src.len();
                            self.diag(
                                SgfCheck::Truncated,
                                Severity::Error,
                                start - 1,
                                "value not closed before end of file: missing ']'".into(),
                            );
                            return (start as u32, j as u32, false);
                        }
                    } else {
                        self.pos = j + 1;
                        return (start as u32, j as u32, true);
                    }
                }
                None => {
                    self.pos = src.len();
                    self.diag(
                        SgfCheck::Truncated,
                        Severity::Error,
                        start - 1,
                        "value not closed before end of file: missing ']'".into(),
                    );
                    return (start as u32, src.len() as u32, false);
                }
            }
        }
    }

    /// Types the values of the game just read that [`Parser::quick_move`]
    /// left as placeholders, and checks its nodes.
    /// `general_props`: whether a node other than the root has properties
    /// read by the general path (else only the root needs node checks).
    fn finish_game(&mut self, first_node: usize, general_props: bool) {
        if first_node >= self.coll.nodes.len() {
            // A tree without nodes: `()`.
            self.raw.clear();
            self.untyped.clear();
            return;
        }
        let src = self.src;
        let base = (self.coll.values.len() - self.raw.len()) as u32;
        let RootFacts {
            mut info,
            first_offset,
            ff_at,
            gm_at,
            sz_at,
            bad_size,
            ca,
        } = match self.root_read.take() {
            Some(facts) if first_node == self.game_root as usize => facts,
            _ => self.root_facts(first_node),
        };
        let (w, h) = (info.width, info.height);
        if let Some((at, v)) = bad_size {
            self.diag(
                SgfCheck::BadRootValue,
                Severity::Error,
                at as usize,
                format!("SZ[{v}]: not a board size (read as {w}x{h})"),
            );
        }
        if info.ff > 4 || info.ff == 0 {
            self.diag(
                SgfCheck::UnknownFf,
                Severity::Error,
                ff_at as usize,
                format!("unknown file format FF[{}] (read as FF[4])", info.ff),
            );
            info.ff = 4;
        }
        if info.letter_points() && (w > 52 || h > 52 || w == 0 || h == 0) {
            self.diag(
                SgfCheck::BoardSize,
                Severity::Error,
                sz_at as usize,
                format!("board size {w}x{h} out of range 1x1..52x52"),
            );
        } else if info.gm == 1 && info.ff < 4 && (w > 19 || w != h) {
            self.diag(
                SgfCheck::NotInFf,
                Severity::Warning,
                sz_at as usize,
                format!("board size {w}x{h} is not defined in FF[{}]", info.ff),
            );
        }
        let enc: Option<&'static Encoding> = match self.decoding {
            FileDecoding::Whole(_) => Some(UTF_8),
            FileDecoding::PerGame => {
                match &ca {
                    None => None,
                    Some((off, label)) => {
                        let label_s = String::from_utf8_lossy(label);
                        match charset::encoding_for_label(&label_s) {
                            Some(e) => Some(e),
                            None => {
                                if !label_s.trim().is_empty() {
                                    self.diag(SgfCheck::UnknownCharset, Severity::Warning, *off as usize, format!("unknown charset CA[{}]: text read as UTF-8 or ISO-8859-1", excerpt(label)));
                                }
                                None
                            }
                        }
                    }
                }
            }
        };
        if !super::replay::supported(info.gm) {
            self.diag(
                SgfCheck::NotGo,
                Severity::Warning,
                gm_at as usize,
                format!(
                    "game GM[{}] is neither Go nor Othello: moves and positions are not checked",
                    info.gm
                ),
            );
        }
        let ca_at = ca.as_ref().map_or(first_offset, |(o, _)| *o);
        let label_enc = ca
            .as_ref()
            .and_then(|(_, l)| charset::encoding_for_label(&String::from_utf8_lossy(l)));
        match self.first_game {
            None => self.first_game = Some((info.ff, info.gm, label_enc)),
            Some((ff, gm, first_enc)) => {
                if ff != info.ff && !self.mixed_told.0 {
                    self.mixed_told.0 = true;
                    self.diag(
                        SgfCheck::MixedFf,
                        Severity::Warning,
                        ff_at as usize,
                        format!(
                            "FF[{}] in a file whose first game is FF[{ff}] (troubles some programs)",
                            info.ff
                        ),
                    );
                }
                if gm != info.gm && !self.mixed_told.1 {
                    self.mixed_told.1 = true;
                    self.diag(
                        SgfCheck::MixedGames,
                        Severity::Warning,
                        gm_at as usize,
                        format!(
                            "GM[{}] in a file whose first game is GM[{gm}] (troubles some programs)",
                            info.gm
                        ),
                    );
                }
                if first_enc != label_enc {
                    let name = |e: Option<&'static Encoding>| e.map_or("no CA", |e| e.name());
                    self.diag(
                        SgfCheck::MixedCharsets,
                        Severity::Warning,
                        ca_at as usize,
                        format!(
                            "charset {} here, {} in the file's first game (troubles most programs)",
                            name(label_enc),
                            name(first_enc)
                        ),
                    );
                }
            }
        }
        if info.ff == 4 {
            for i in std::mem::take(&mut self.lowercase_ids) {
                self.diag(
                    SgfCheck::LowercaseId,
                    Severity::Warning,
                    i as usize,
                    "lowercase letters in a property identifier are not allowed in FF[4] (removed)"
                        .into(),
                );
            }
        }
        self.lowercase_ids.clear();

        // Type all values, property by property (values stay parallel to raw).
        let mut ctx = TypeCtx {
            info,
            enc,
            malformed_charset: None,
            ascii: ca
                .as_ref()
                .is_some_and(|(_, l)| charset::is_ascii_label(&String::from_utf8_lossy(l))),
        };
        let small = info.width <= 19 && info.height <= 19;
        let letters = info.letter_points();
        let pass = Point::new(19, 19);
        // The values `quick_move` did not type, property by property (in
        // place of their placeholders).
        let untyped = std::mem::take(&mut self.untyped);
        for &pi in &untyped {
            let p = self.coll.props[pi as usize];
            // Moves of two letters (as `quick_move` types them).
            if letters && matches!(p.prop, Prop::B | Prop::W) && p.values_len == 1 {
                let (s, e) = self.raw[(p.values_start - base) as usize];
                if let Some(pt) = Point::from_letters(&src[s as usize..e as usize]) {
                    self.coll.values[p.values_start as usize] = if small && pt == pass {
                        Value::Pass
                    } else {
                        Value::Point(pt)
                    };
                    continue;
                }
            }
            let vt = Collection::value_type(p.prop, &info);
            let game_info = p.prop.kind() == PropKind::GameInfo;
            for k in 0..p.values_len {
                let (s, e) = self.raw[(p.values_start - base + k) as usize];
                let v = self.type_value(p.prop, vt, s as usize, e as usize, game_info, &mut ctx);
                self.coll.values[(p.values_start + k) as usize] = v;
            }
        }
        self.untyped = untyped;
        self.untyped.clear();
        if let Some((at, n)) = ctx.malformed_charset {
            let name = if ctx.ascii {
                "US-ASCII"
            } else {
                enc.map_or("UTF-8", |e| e.name())
            };
            self.diag(
                SgfCheck::BadBytes,
                Severity::Warning,
                at,
                format!("bytes not valid in {name} ({n} value(s); replaced with U+FFFD)"),
            );
        }
        let nodes_end = if general_props {
            self.coll.nodes.len()
        } else {
            first_node + 1
        };
        self.check_nodes(first_node, nodes_end, &info, base);
        self.raw.clear();
    }

    fn type_value(
        &mut self,
        prop: Prop,
        vt: ValueType,
        s: usize,
        e: usize,
        game_info: bool,
        ctx: &mut TypeCtx,
    ) -> Value {
        let src = self.src;
        let raw = &src[s..e];
        let bad_sev =
            if game_info || matches!(prop, Prop::AP | Prop::BL | Prop::WL | Prop::OB | Prop::OW) {
                Severity::Warning
            } else {
                Severity::Error
            };
        let name = |coll: &Collection| -> String {
            let _ = coll;
            prop.name().to_string()
        };
        if prop == Prop::Unknown {
            return Value::Raw(self.push_raw(raw, ctx));
        }
        let t = trim(raw);
        let check = if matches!(prop, Prop::GM | Prop::SZ | Prop::FF) {
            SgfCheck::BadRootValue
        } else if matches!(
            vt,
            ValueType::PointPairList | ValueType::LabelList | ValueType::Application
        ) {
            if split_compose(raw).is_some() {
                SgfCheck::BadCompose
            } else {
                SgfCheck::ComposeExpected
            }
        } else {
            SgfCheck::BadValue
        };
        let invalid = |this: &mut Self, ctx: &mut TypeCtx, what: &str| -> Value {
            let shown = excerpt(raw);
            let n = name(&this.coll);
            this.diag(
                check,
                bad_sev,
                s - 1,
                format!("{n}[{shown}]: expected {what} (kept as written)"),
            );
            Value::Raw(this.push_raw(raw, ctx))
        };
        match vt {
            // The charset's own name is read before decoding (it is ASCII):
            // `CA[UTF-16LE]` must not be decoded as UTF-16.
            ValueType::Text | ValueType::SimpleText if prop == Prop::CA => {
                let enc = ctx.enc.take();
                let value = self.push_text(raw, true, ctx);
                ctx.enc = enc;
                Value::Text(value)
            }
            ValueType::Text | ValueType::SimpleText => {
                let v = self.push_text(raw, vt == ValueType::SimpleText, ctx);
                if t.is_empty() {
                    self.diag(
                        SgfCheck::EmptyValue,
                        Severity::Warning,
                        s - 1,
                        format!("{}[]: empty text", prop.name()),
                    );
                } else if matches!(prop, Prop::DT | Prop::RE) {
                    let text = self.coll.str(v);
                    let ok = if prop == Prop::DT {
                        checks::dt_is_valid(text)
                    } else {
                        checks::re_is_valid(text)
                    };
                    if !ok {
                        let shown = excerpt(self.coll.str(v).as_bytes()).to_string();
                        let what = if prop == Prop::DT {
                            "dates YYYY-MM-DD[,...]"
                        } else {
                            "0, B+score, W+R, Void, ?..."
                        };
                        self.diag(
                            SgfCheck::GameInfoFormat,
                            Severity::Warning,
                            s - 1,
                            format!("{}[{shown}]: not in FF[4]'s format ({what})", prop.name()),
                        );
                    }
                }
                Value::Text(v)
            }
            ValueType::Move => {
                if t.is_empty() {
                    if ctx.info.ff < 4 {
                        self.diag(
                            SgfCheck::Ff4Pass,
                            Severity::Warning,
                            s - 1,
                            format!(
                                "{}[]: pass written the FF[4] way in an FF[{}] file",
                                prop.name(),
                                ctx.info.ff
                            ),
                        );
                    }
                    return Value::Pass;
                }
                if !ctx.info.letter_points() {
                    return Value::Raw(self.push_raw(raw, ctx));
                }
                match Point::from_letters(t) {
                    Some(p)
                        if p == Point::new(19, 19)
                            && ctx.info.width <= 19
                            && ctx.info.height <= 19 =>
                    {
                        Value::Pass
                    }
                    Some(p) => Value::Point(p),
                    None => invalid(self, ctx, "a move (two letters, or [] for a pass)"),
                }
            }
            ValueType::Point => {
                if !ctx.info.letter_points() {
                    return Value::Raw(self.push_raw(raw, ctx));
                }
                match Point::from_letters(t) {
                    Some(p) => Value::Point(p),
                    None => invalid(self, ctx, "a point"),
                }
            }
            ValueType::PointList | ValueType::EPointList => {
                if t.is_empty() {
                    // FF[4]: AB and AW are lists of stones (not empty).
                    if vt == ValueType::PointList || matches!(prop, Prop::AB | Prop::AW) {
                        self.diag(
                            SgfCheck::EmptyValue,
                            Severity::Warning,
                            s - 1,
                            format!("{}[]: empty value in a point list", prop.name()),
                        );
                    }
                    return Value::None;
                }
                if !ctx.info.letter_points() {
                    return Value::Raw(self.push_raw(raw, ctx));
                }
                if let Some(p) = Point::from_letters(t) {
                    return Value::Point(p);
                }
                if let Some((a, b)) = split_compose(t)
                    && let (Some(a), Some(b)) =
                        (Point::from_letters(trim(a)), Point::from_letters(trim(b)))
                {
                    if ctx.info.ff < 4 {
                        self.diag(
                            SgfCheck::NotInFf,
                            Severity::Warning,
                            s - 1,
                            format!(
                                "{}: compressed point list in an FF[{}] file",
                                prop.name(),
                                ctx.info.ff
                            ),
                        );
                    }
                    if a.x > b.x || a.y > b.y {
                        self.diag(
                            SgfCheck::BadValue,
                            Severity::Error,
                            s - 1,
                            format!(
                                "{}[{a}:{b}]: rectangle corners must be upper-left:lower-right",
                                prop.name()
                            ),
                        );
                    }
                    return Value::Rect(a, b);
                }
                invalid(self, ctx, "a point or a rectangle ul:lr")
            }
            ValueType::PointPairList => {
                if !ctx.info.letter_points() {
                    return Value::Raw(self.push_raw(raw, ctx));
                }
                if let Some((a, b)) = split_compose(t)
                    && let (Some(a), Some(b)) =
                        (Point::from_letters(trim(a)), Point::from_letters(trim(b)))
                {
                    return Value::PointPair(a, b);
                }
                invalid(self, ctx, "two points point:point")
            }
            ValueType::LabelList => {
                if !ctx.info.letter_points() {
                    return Value::Raw(self.push_raw(raw, ctx));
                }
                if let Some((a, b)) = split_compose(raw)
                    && let Some(p) = Point::from_letters(trim(a))
                {
                    let text = self.push_text(b, true, ctx);
                    return Value::Label(p, text);
                }
                invalid(self, ctx, "a label point:text")
            }
            ValueType::Number => match parse_number(t) {
                Some(n) => Value::Number(n),
                None => invalid(self, ctx, "a number"),
            },
            ValueType::Real => match parse_real(t) {
                Some(r) => Value::Real(r),
                None => invalid(self, ctx, "a real number"),
            },
            ValueType::Double => match t {
                b"1" => Value::Double(1),
                b"2" => Value::Double(2),
                b"" => {
                    self.diag(
                        SgfCheck::BadValue,
                        bad_sev,
                        s - 1,
                        format!("{}[]: expected 1 or 2 (empty kept)", prop.name()),
                    );
                    Value::None
                }
                _ => invalid(self, ctx, "1 or 2"),
            },
            ValueType::Color => match t {
                b"B" => Value::Color(super::tree::Color::Black),
                b"W" => Value::Color(super::tree::Color::White),
                _ => invalid(self, ctx, "B or W"),
            },
            ValueType::None => {
                if t.is_empty() {
                    Value::None
                } else {
                    invalid(self, ctx, "an empty value []")
                }
            }
            ValueType::Figure => {
                if t.is_empty() {
                    return Value::None;
                }
                if let Some((a, b)) = split_compose(raw)
                    && let Some(n) = parse_number(trim(a))
                {
                    let text = self.push_text(b, true, ctx);
                    return Value::Figure(n, text);
                }
                invalid(self, ctx, "[] or flags:name")
            }
            ValueType::Application => {
                if let Some((a, b)) = split_compose(raw) {
                    let a = self.push_text(a, true, ctx);
                    let b = self.push_text(b, true, ctx);
                    return Value::Application(a, b);
                }
                invalid(self, ctx, "name:version")
            }
            ValueType::Size => {
                if let Some(n) = parse_number(t) {
                    return Value::Number(n);
                }
                if let Some((a, b)) = split_compose(t)
                    && let (Some(a), Some(b)) = (parse_number(trim(a)), parse_number(trim(b)))
                    && a >= 0
                    && b >= 0
                {
                    if a == b {
                        self.diag(
                            SgfCheck::SquareAsRectangle,
                            Severity::Warning,
                            s - 1,
                            format!("SZ[{a}:{b}]: square board written as rectangle"),
                        );
                    }
                    return Value::Size(
                        a.min(u32::MAX as i64) as u32,
                        b.min(u32::MAX as i64) as u32,
                    );
                }
                invalid(self, ctx, "a size n or columns:rows")
            }
        }
    }

    /// Notes a value (a slice of the input) with invalid bytes.
    fn note_bad(&mut self, raw: &[u8], bad: bool, ctx: &mut TypeCtx) {
        if let Some(i) = memchr::memchr(0, raw) {
            let utf16 = ctx
                .enc
                .is_some_and(|e| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE);
            if !utf16 {
                let base = (raw.as_ptr() as usize).wrapping_sub(self.src.as_ptr() as usize);
                let at = if base <= self.src.len() { base + i } else { 0 };
                self.diag(
                    SgfCheck::NulByte,
                    Severity::Warning,
                    at,
                    "zero byte in a value: binary data?".into(),
                );
            }
        }
        let bad = bad || (ctx.ascii && !raw.is_ascii());
        if !bad {
            return;
        }
        let base = (raw.as_ptr() as usize).wrapping_sub(self.src.as_ptr() as usize);
        let base = if base <= self.src.len() { base } else { 0 };
        match &mut ctx.malformed_charset {
            Some((_, n)) => *n += 1,
            None => {
                let at = charset::first_malformed(raw, ctx.enc, ctx.ascii).unwrap_or(0);
                ctx.malformed_charset = Some((base + at, 1));
            }
        }
    }

    /// Stores a value verbatim (escapes kept), decoded to UTF-8.
    fn push_raw(&mut self, raw: &[u8], ctx: &mut TypeCtx) -> Str {
        let (s, bad) = charset::decode(raw, ctx.enc);
        self.note_bad(raw, bad, ctx);
        match s {
            std::borrow::Cow::Borrowed(s) => self.coll.intern(s),
            // A multi-byte character may have swallowed the `\` that
            // escaped a `]` in the raw bytes: re-pair the escapes so the
            // verbatim value still reads back as one value.
            std::borrow::Cow::Owned(s) => self.coll.intern(&repair_escapes(&s)),
        }
    }

    /// Stores a Text/SimpleText value: decoded, unescaped, line breaks
    /// normalised (soft breaks removed; hard breaks `\n`, or spaces in
    /// SimpleText; other white space becomes a space).
    fn push_text(&mut self, raw: &[u8], simple: bool, ctx: &mut TypeCtx) -> Str {
        let start = self.coll.text.len() as u32;
        // Most values: printable ASCII without escapes, stored as they are
        // (the same in every charset but UTF-16; nothing to decode, unescape
        // or report).
        if plain_ascii(raw) && !ctx.enc.is_some_and(|e| e == UTF_16LE || e == UTF_16BE) {
            let text = std::str::from_utf8(raw).unwrap_or_default();
            self.coll.text.push_str(text);
            return Str {
                start,
                len: text.len() as u32,
            };
        }
        if let Some(enc) = ctx.enc
            && charset::must_decode_whole_file(enc)
            && raw.contains(&b'\\')
        {
            // A game in a multi-byte charset read byte by byte (not the
            // file's first game): as SGFC and sgfmill do, the escapes are
            // bytes (a trail byte `\` or `]` of a character was escaped as
            // a byte), so they are removed before the value is decoded.
            let bytes = unescape_bytes(raw);
            let (s, bad) = charset::decode(&bytes, Some(enc));
            self.note_bad(raw, bad, ctx);
            normalise_breaks_into(&s, simple, &mut self.coll.text);
            return Str {
                start,
                len: self.coll.text.len() as u32 - start,
            };
        }
        let (s, bad) = charset::decode(raw, ctx.enc);
        self.note_bad(raw, bad, ctx);
        let out = &mut self.coll.text;
        if !s.bytes().any(|b| b == b'\\' || b < b' ') {
            out.push_str(&s);
        } else {
            unescape_into(&s, simple, out);
        }
        Str {
            start,
            len: self.coll.text.len() as u32 - start,
        }
    }

    /// Node-level checks of nodes `first_node..end` of one game; `base` is
    /// the index of the game's first value (`self.raw` is parallel to its
    /// values from there).
    fn check_nodes(&mut self, first_node: usize, end: usize, info: &GameInfo, base: u32) {
        // Whether a node or one above it holds game information: built the
        // first time a node below the root has some.
        let mut info_above: Option<Vec<bool>> = None;
        for ni in first_node..end {
            let n = self.coll.nodes[ni];
            let is_root = ni == first_node;
            // Fast path: one move property with one value (almost every
            // node of a game record) breaks none of the rules below.
            if n.props_len == 1 && !is_root {
                let p = &self.coll.props[n.props_start as usize];
                if matches!(p.prop, Prop::B | Prop::W) && p.values_len == 1 {
                    continue;
                }
            }
            let mut seen: u128 = 0;
            // A set: a node of many unknown properties is checked in
            // linear time.
            let mut seen_unknown: std::collections::HashSet<&str> =
                std::collections::HashSet::new();
            let (mut has_move, mut has_setup, mut has_b, mut has_w) = (false, false, false, false);
            let mut msgs: Vec<(SgfCheck, Severity, u32, String)> = Vec::new();
            // The first of BM/DO/IT/TE and of GB/GW/DM/UC seen, and the
            // first game-information property.
            let mut move_annotation: Option<Prop> = None;
            let mut position_annotation: Option<Prop> = None;
            let mut game_info: Option<u32> = None;
            let mut point_values = false;
            let props =
                &self.coll.props[n.props_start as usize..(n.props_start + n.props_len) as usize];
            for p in props {
                if p.prop == Prop::Unknown {
                    let name = self.coll.str(p.name);
                    if !seen_unknown.insert(name) {
                        msgs.push((
                            SgfCheck::DuplicateProperty,
                            Severity::Error,
                            p.offset,
                            format!("property {} appears twice in one node", excerpt(name)),
                        ));
                    }
                    if name == "KI" {
                        msgs.push((
                            SgfCheck::ObsoleteProperty,
                            Severity::Warning,
                            p.offset,
                            "obsolete property KI (komi; `sgf upgrade` turns it into KM)".into(),
                        ));
                    } else {
                        msgs.push((
                            SgfCheck::UnknownProperty,
                            Severity::Warning,
                            p.offset,
                            format!("unknown property {} (kept)", excerpt(name)),
                        ));
                    }
                    continue;
                }
                let bit = 1u128 << (p.prop as u8);
                if seen & bit != 0 {
                    // Two moves or two root values conflict: an error. Others
                    // (lists, texts, game info) merge without loss: a warning.
                    let sev = if matches!(p.prop.kind(), PropKind::Move | PropKind::Root) {
                        Severity::Error
                    } else {
                        Severity::Warning
                    };
                    msgs.push((
                        SgfCheck::DuplicateProperty,
                        sev,
                        p.offset,
                        format!("property {} appears twice in one node", p.prop.name()),
                    ));
                }
                seen |= bit;
                let vt = Collection::value_type(p.prop, info);
                if p.values_len > 1 && !vt.is_list() && p.prop != Prop::VW {
                    // At the second value, as SGFC.
                    let at = self
                        .raw
                        .get((p.values_start - base + 1) as usize)
                        .map_or(p.offset, |r| r.0 - 1);
                    msgs.push((
                        SgfCheck::TooManyValues,
                        Severity::Error,
                        at,
                        format!(
                            "property {} may have only one value ({} found)",
                            p.prop.name(),
                            p.values_len
                        ),
                    ));
                }
                match p.prop {
                    Prop::BM | Prop::DO | Prop::IT | Prop::TE => match move_annotation {
                        Some(first) if first != p.prop => msgs.push((
                            SgfCheck::MoveAnnotationConflict,
                            Severity::Error,
                            p.offset,
                            format!(
                                "{} and {} in one node (only one of BM, DO, IT, TE is allowed)",
                                first.name(),
                                p.prop.name()
                            ),
                        )),
                        _ => move_annotation = Some(p.prop),
                    },
                    Prop::GB | Prop::GW | Prop::DM | Prop::UC => match position_annotation {
                        Some(first) if first != p.prop => msgs.push((
                            SgfCheck::AnnotationConflict,
                            Severity::Error,
                            p.offset,
                            format!(
                                "{} and {} in one node (only one of GB, GW, DM, UC is allowed)",
                                first.name(),
                                p.prop.name()
                            ),
                        )),
                        _ => position_annotation = Some(p.prop),
                    },
                    Prop::VW if p.values_len > 1 => {
                        let vals = &self.coll.values
                            [p.values_start as usize..(p.values_start + p.values_len) as usize];
                        if vals.iter().any(|v| matches!(v, Value::None)) {
                            msgs.push((
                                SgfCheck::BadView,
                                Severity::Error,
                                p.offset,
                                "VW: values after an empty value [] (which shows the whole board)"
                                    .into(),
                            ));
                        } else if info.ff < 4 && p.values_len != 2 {
                            msgs.push((
                                SgfCheck::BadView,
                                Severity::Warning,
                                p.offset,
                                format!(
                                    "VW: {} values (FF[{}] takes two corners; a point list is FF[4])",
                                    p.values_len, info.ff
                                ),
                            ));
                        }
                    }
                    Prop::AR | Prop::LN => {
                        for k in 0..p.values_len {
                            let vi = (p.values_start + k) as usize;
                            if let Some(Value::PointPair(a, b)) = self.coll.values.get(vi)
                                && a == b
                            {
                                let at = self
                                    .raw
                                    .get((p.values_start - base + k) as usize)
                                    .map_or(p.offset, |r| r.0 - 1);
                                msgs.push((
                                    SgfCheck::OneCellArrow,
                                    Severity::Error,
                                    at,
                                    format!("{}[{a}:{b}]: from a point to itself", p.prop.name()),
                                ));
                            }
                        }
                    }
                    Prop::AB
                    | Prop::AW
                    | Prop::AE
                    | Prop::CR
                    | Prop::MA
                    | Prop::SL
                    | Prop::SQ
                    | Prop::TR
                    | Prop::TB
                    | Prop::TW
                    | Prop::LB => point_values = true,
                    _ => {}
                }
                if p.prop.kind() == PropKind::GameInfo && game_info.is_none() {
                    game_info = Some(p.offset);
                }
                match p.prop.kind() {
                    PropKind::Move => has_move = true,
                    PropKind::Setup => has_setup = true,
                    PropKind::Root if !is_root => {
                        msgs.push((
                            SgfCheck::RootOutsideRoot,
                            Severity::Error,
                            p.offset,
                            format!("root property {} outside the root node", p.prop.name()),
                        ));
                    }
                    _ => {}
                }
                has_b |= p.prop == Prop::B;
                has_w |= p.prop == Prop::W;
                if info.ff == 4 && !p.prop.in_ff(4) && p.prop != Prop::Unknown {
                    msgs.push((
                        SgfCheck::NotInFf,
                        Severity::Warning,
                        p.offset,
                        format!("property {} is not defined in FF[4] (kept)", p.prop.name()),
                    ));
                }
            }
            if has_b && has_w {
                msgs.push((
                    SgfCheck::BlackAndWhite,
                    Severity::Error,
                    n.offset,
                    "black and white move in one node".into(),
                ));
            }
            if has_move && has_setup && info.ff == 4 {
                msgs.push((
                    SgfCheck::SetupAndMove,
                    Severity::Warning,
                    n.offset,
                    "setup and move properties mixed in one node".into(),
                ));
            }
            if (has_b || has_w) && is_root {
                let at = props
                    .iter()
                    .find(|p| matches!(p.prop, Prop::B | Prop::W))
                    .map_or(n.offset, |p| p.offset);
                msgs.push((
                    SgfCheck::MoveInRoot,
                    Severity::Warning,
                    at,
                    "move in the root node".into(),
                ));
            }
            if !(has_b || has_w) {
                for p in props {
                    if matches!(p.prop, Prop::BM | Prop::DO | Prop::IT | Prop::TE | Prop::KO) {
                        msgs.push((
                            SgfCheck::AnnotationWithoutMove,
                            Severity::Error,
                            p.offset,
                            format!("{} in a node that has no move", p.prop.name()),
                        ));
                    }
                }
            }
            if let Some(at) = game_info
                && !is_root
            {
                let above = info_above.get_or_insert_with(|| self.game_info_above(first_node, end));
                let parent = n.parent as usize;
                if parent != NONE as usize && parent >= first_node && above[parent - first_node] {
                    msgs.push((
                        SgfCheck::GameInfoTwice,
                        Severity::Error,
                        at,
                        "game information below a node that already has some".into(),
                    ));
                }
            }
            if point_values && info.letter_points() {
                let mut bits = std::mem::take(&mut self.point_bits);
                self.check_points(props, base, &mut msgs, &mut bits);
                self.point_bits = bits;
            }
            for (check, sev, off, m) in msgs {
                self.diag(check, sev, off as usize, m);
            }
        }
    }

    /// For each node of `first_node..end`: whether it or a node above it
    /// holds a game-information property.
    fn game_info_above(&self, first_node: usize, end: usize) -> Vec<bool> {
        let mut out = vec![false; end - first_node];
        for ni in first_node..end {
            let n = self.coll.nodes[ni];
            let own = self.coll.props
                [n.props_start as usize..(n.props_start + n.props_len) as usize]
                .iter()
                .any(|p| p.prop.kind() == PropKind::GameInfo);
            let parent = n.parent as usize;
            let inherited =
                parent != NONE as usize && parent >= first_node && out[parent - first_node];
            out[ni - first_node] = own || inherited;
        }
        out
    }

    /// The same point twice in one node: in markup (`CR`, `MA`, `SL`, `SQ`,
    /// `TR` together), setup (`AB`, `AW`, `AE` together), `TB`, `TW` or `LB`.
    fn check_points(
        &self,
        props: &[Property],
        base: u32,
        msgs: &mut Vec<(SgfCheck, Severity, u32, String)>,
        bits: &mut Vec<u64>,
    ) {
        const WORDS: usize = 52 * 52 / 64 + 1;
        bits.clear();
        bits.resize(5 * WORDS, 0);
        // The property first holding each point is not remembered: the
        // message names the group.
        for p in props {
            let (group, what) = match p.prop {
                Prop::CR | Prop::MA | Prop::SL | Prop::SQ | Prop::TR => (0, "markup"),
                Prop::AB | Prop::AW | Prop::AE => (1, "setup"),
                Prop::TB => (2, "TB"),
                Prop::TW => (3, "TW"),
                Prop::LB => (4, "LB"),
                _ => continue,
            };
            for k in 0..p.values_len {
                let (a, b) = match self.coll.values[(p.values_start + k) as usize] {
                    Value::Point(a) => (a, a),
                    Value::Rect(a, b) => (a, b),
                    Value::Label(a, _) => (a, a),
                    _ => continue,
                };
                let mut twice: Option<Point> = None;
                for y in a.y.min(b.y)..=a.y.max(b.y) {
                    for x in a.x.min(b.x)..=a.x.max(b.x) {
                        let i = usize::from(y) * 52 + usize::from(x);
                        let (w, m) = (group * WORDS + i / 64, 1u64 << (i % 64));
                        if bits[w] & m != 0 {
                            twice.get_or_insert(Point::new(x, y));
                        }
                        bits[w] |= m;
                    }
                }
                if let Some(pt) = twice {
                    let at = self
                        .raw
                        .get((p.values_start - base + k) as usize)
                        .map_or(p.offset, |r| r.0 - 1);
                    msgs.push((
                        SgfCheck::DuplicatePoint,
                        Severity::Error,
                        at,
                        format!(
                            "{}: point {pt} appears twice in the node's {what}",
                            p.prop.name()
                        ),
                    ));
                }
            }
        }
    }
}

struct TypeCtx {
    info: GameInfo,
    enc: Option<&'static Encoding>,
    /// The first value with bytes invalid in the charset (offset of the
    /// first such byte) and how many values have some.
    malformed_charset: Option<(usize, u32)>,
    /// `CA` names US-ASCII: bytes over 0x7F are invalid.
    ascii: bool,
}

/// Whether `raw` is printable ASCII (DEL included) without `\\`: a text
/// value with nothing to decode, unescape or normalise. Branch-free over
/// blocks of 32 bytes, so long comments are scanned at SIMD speed.
#[inline]
fn plain_ascii(raw: &[u8]) -> bool {
    raw.chunks(32).all(|block| {
        block.iter().fold(true, |ok, &b| {
            ok & (b.wrapping_sub(b' ') < 0x60) & (b != b'\\')
        })
    })
}

/// Removes SGF escapes from raw bytes: `\\` and a line break (with its
/// CRLF/LFCR partner) is a soft break, removed; `\\` and any other byte is
/// that byte.
fn unescape_bytes(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match raw.get(i) {
            Some(&n @ (b'\n' | b'\r')) => {
                i += 1;
                if let Some(&m) = raw.get(i)
                    && (m == b'\n' || m == b'\r')
                    && m != n
                {
                    i += 1;
                }
            }
            Some(&n) => {
                out.push(n);
                i += 1;
            }
            None => {}
        }
    }
    out
}

/// Text already unescaped: hard line breaks become `\n` (a space in
/// SimpleText), other white space a space.
fn normalise_breaks_into(s: &str, simple: bool, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\r' => {
                if let Some(&m) = chars.peek()
                    && (m == '\n' || m == '\r')
                    && m != c
                {
                    chars.next();
                }
                out.push(if simple { ' ' } else { '\n' });
            }
            '\t' | '\x0b' | '\x0c' => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Unescapes SGF text into `out` (see [`Parser::push_text`]).
pub(crate) fn unescape_into(s: &str, simple: bool, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('\n' | '\r')) => {
                    // Soft line break: removed (with its CRLF/LFCR partner).
                    if let Some(&m) = chars.peek()
                        && (m == '\n' || m == '\r')
                        && m != n
                    {
                        chars.next();
                    }
                }
                Some('\t' | '\x0b' | '\x0c') => out.push(' '),
                Some(n) => out.push(n),
                None => {}
            },
            '\n' | '\r' => {
                if let Some(&m) = chars.peek()
                    && (m == '\n' || m == '\r')
                    && m != c
                {
                    chars.next();
                }
                out.push(if simple { ' ' } else { '\n' });
            }
            '\t' | '\x0b' | '\x0c' => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Whether the text after a top-level `(` starts a game tree: `;`, or a
/// property identifier and `[` (a missing `;`), after optional white space.
fn starts_tree(rest: &[u8]) -> bool {
    let mut i = 0;
    while i < rest.len() && is_space(rest[i]) {
        i += 1;
    }
    match rest.get(i) {
        Some(b';') => true,
        Some(c) if c.is_ascii_uppercase() => {
            while i < rest.len() && rest[i].is_ascii_alphabetic() {
                i += 1;
            }
            while i < rest.len() && is_space(rest[i]) {
                i += 1;
            }
            rest.get(i) == Some(&b'[')
        }
        _ => false,
    }
}

/// Splits a compose value at its first unescaped `:`.
pub(crate) fn split_compose(v: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut i = 0;
    while i < v.len() {
        match v[i] {
            b'\\' => i += 2,
            b':' => return Some((&v[..i], &v[i + 1..])),
            _ => i += 1,
        }
    }
    None
}

fn trim(v: &[u8]) -> &[u8] {
    v.trim_ascii()
}

/// Parses an SGF Number: `[+-]digits`.
pub(crate) fn parse_number(v: &[u8]) -> Option<i64> {
    let digits = match v.first()? {
        b'+' | b'-' => &v[1..],
        _ => v,
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: i64 = 0;
    for &d in digits {
        n = n * 10 + (d - b'0') as i64;
    }
    Some(if v[0] == b'-' { -n } else { n })
}

/// Parses an SGF Real: `[+-]digits[.digits]`.
pub(crate) fn parse_real(v: &[u8]) -> Option<f64> {
    let body = match v.first()? {
        b'+' | b'-' => &v[1..],
        _ => v,
    };
    let (int, frac) = match memchr::memchr(b'.', body) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    if int.is_empty() || !int.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if let Some(f) = frac
        && (f.is_empty() || !f.iter().all(u8::is_ascii_digit))
    {
        return None;
    }
    if frac.is_none() && int.len() <= 18 {
        return parse_number(v).map(|n| n as f64);
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ascii_takes_exactly_the_values_stored_as_written() {
        // Every byte on its own, and at each place of a long value (the
        // check works on blocks of 32 bytes).
        for b in 0..=255u8 {
            let expected = (b' '..=0x7f).contains(&b) && b != b'\\';
            assert_eq!(plain_ascii(&[b]), expected, "byte {b:#x}");
            for at in [0, 31, 32, 33, 70] {
                let mut v = vec![b'a'; 71];
                v[at] = b;
                assert_eq!(plain_ascii(&v), expected, "byte {b:#x} at {at}");
            }
        }
        assert!(plain_ascii(b""));
    }

    #[test]
    fn text_values_read_the_same_on_the_plain_path_and_the_general_one() {
        // Plain values next to ones that need unescaping, line breaks,
        // decoding or a report.
        let src = "(;FF[4]CA[UTF-8]GM[1]SZ[19]PB[Plain Name]PW[Tab\there]\
                   GN[a\\]b]C[line\nbreak]DT[2001-02-03]RE[B+R]EV[caf\u{e9}]\
                   ;B[aa]C[ok ~ \u{7f}])";
        let parsed = parse(src.as_bytes(), &ParseOptions::default());
        let c = &parsed.collection;
        let root = c.roots[0];
        let text = |p: Prop| c.text_of(root, p).map(str::to_string);
        assert_eq!(text(Prop::PB).as_deref(), Some("Plain Name"));
        assert_eq!(text(Prop::PW).as_deref(), Some("Tab here"));
        assert_eq!(text(Prop::GN).as_deref(), Some("a]b"));
        assert_eq!(text(Prop::C).as_deref(), Some("line\nbreak"));
        assert_eq!(text(Prop::EV).as_deref(), Some("caf\u{e9}"));
        assert_eq!(text(Prop::DT).as_deref(), Some("2001-02-03"));
        let child = c.first_child(root).expect("a move node");
        assert_eq!(c.text_of(child, Prop::C), Some("ok ~ \u{7f}"));
        assert_eq!(parsed.diagnostics.len(), 0, "{:?}", parsed.diagnostics);
    }

    /// Text between or after game trees is quoted (it was not).
    #[test]
    fn text_outside_game_trees_is_quoted() {
        let src = b"(;GM[1]SZ[9])\n  some notes\x01 here \n(;GM[1]SZ[9])\n trailer \n";
        let parsed = parse(src, &ParseOptions::default());
        let shown: Vec<(u64, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.offset, d.message.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    16,
                    "text between game trees ignored: \"some notes\\x01 here\""
                ),
                (49, "text after the last game tree ignored: \"trailer\""),
            ]
        );
    }
}
