//! The SGF parser: bytes in, [`Collection`] and diagnostics out.
//!
//! One pass over the input builds the arena tree and records each value as a
//! byte range; when a game tree closes, a second pass over that game types
//! every value (knowing the game's `FF`, `GM`, `SZ` and `CA`) and checks
//! each node. Nesting is tracked on an explicit stack, never by recursion.

use crate::excerpt::excerpt;
use encoding_rs::{Encoding, UTF_8};

use super::charset::{self, FileDecoding};
use super::props::{Prop, PropKind, ValueType};
use super::tree::{Collection, GameInfo, NONE, NodeId, Point, Property, Str, Value};
use crate::diag::{Diagnostic, LineCol, LineIndex, Severity};

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
}

impl SgfDiagnostic {
    /// As a [`Diagnostic`] for input `path`.
    pub fn to_diagnostic(&self, path: Option<&str>) -> Diagnostic {
        Diagnostic {
            severity: self.severity,
            path: path.map(str::to_string),
            location: self.location,
            message: self.message.clone(),
            offset: Some(self.offset),
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
}

impl Parsed {
    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Builds [`Parsed::lines`] if [`parse_unindexed`] skipped it; `bytes`
    /// and `options` must be the ones parsed.
    pub fn index_lines(&mut self, bytes: &[u8], options: &ParseOptions) {
        if !self.lines_indexed {
            let (text, _) = charset::prepare(bytes, options.charset);
            self.lines = LineIndex::new(&text);
            self.lines_indexed = true;
        }
    }

    /// A diagnostic at byte `offset` of the parsed input.
    pub fn diagnostic_at(&self, severity: Severity, offset: u64, message: String) -> SgfDiagnostic {
        SgfDiagnostic {
            severity,
            offset,
            location: self.lines.line_col(offset),
            message,
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
    parse_with(bytes, options, false, buffers)
}

fn parse_indexing(bytes: &[u8], options: &ParseOptions, always_index: bool) -> Parsed {
    parse_with(bytes, options, always_index, &mut ParseBuffers::default())
}

fn parse_with(
    bytes: &[u8],
    options: &ParseOptions,
    always_index: bool,
    buffers: &mut ParseBuffers,
) -> Parsed {
    let (text, decoding) = charset::prepare(bytes, options.charset);
    let mut coll = std::mem::take(&mut buffers.coll);
    coll.clear();
    // About one node, property and value per 7 bytes in game records.
    coll.nodes.reserve(text.len() / 6);
    coll.props.reserve(text.len() / 6);
    coll.values.reserve(text.len() / 6);
    let mut diags = std::mem::take(&mut buffers.diags);
    diags.clear();
    let mut raw = std::mem::take(&mut buffers.raw);
    raw.clear();
    raw.reserve(text.len() / 4);
    let mut lowercase_ids = std::mem::take(&mut buffers.lowercase_ids);
    lowercase_ids.clear();
    let mut p = Parser {
        src: &text,
        pos: 0,
        coll,
        diags,
        raw,
        lowercase_ids,
        decoding,
        quick_moves: QUICK_MOVES.with(|q| q.get()),
    };
    if text.len() >= u32::MAX as usize {
        p.diag(
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
        ..
    } = p;
    buffers.raw = raw;
    buffers.lowercase_ids = lowercase_ids;
    let lines_indexed = always_index || !diags.is_empty();
    let lines = if lines_indexed {
        LineIndex::new(&text)
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
    /// Value byte ranges of the current game, parallel to its future values.
    raw: Vec<(u32, u32)>,
    lowercase_ids: Vec<u32>,
    decoding: FileDecoding,
    /// Whether [`Parser::quick_move`] is used (off only in tests comparing
    /// it with the general path).
    quick_moves: bool,
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
    fn diag(&mut self, severity: Severity, offset: usize, message: String) {
        self.diags.push(SgfDiagnostic {
            severity,
            offset: offset as u64,
            location: LineCol { line: 0, column: 0 },
            message,
        });
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
        let mut game_first_prop = 0usize;
        let mut junk_at: Option<usize> = None;
        let mut seen_game = false;
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
                        if seen_game && src[self.pos..at].iter().any(|&b| !is_space(b)) {
                            let first = self.pos;
                            if src[first] == b')' {
                                self.diag(
                                    Severity::Error,
                                    first,
                                    "unexpected ')' outside any game tree (ignored)".into(),
                                );
                            } else {
                                self.diag(
                                    Severity::Warning,
                                    first,
                                    "text between game trees ignored".into(),
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
                                    Severity::Error,
                                    at,
                                    "unexpected ')' outside any game tree (ignored)".into(),
                                );
                            } else {
                                self.diag(
                                    Severity::Warning,
                                    at,
                                    "text after the last game tree ignored".into(),
                                );
                            }
                        } else {
                            self.diag(
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
                game_first_prop = self.coll.props.len();
                self.raw.clear();
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
                            Severity::Error,
                            self.pos,
                            "empty variation '()' (ignored)".into(),
                        );
                    }
                    cur = frame.parent;
                    open_node = NONE;
                    self.pos += 1;
                    if stack.is_empty() {
                        self.finish_game(game_first_node, game_first_prop, general_props);
                    }
                }
                b';' => {
                    let top = stack.last_mut().expect("non-empty stack");
                    if top.had_subtree {
                        top.had_subtree = false;
                        let at = self.pos;
                        self.diag(
                            Severity::Error,
                            at,
                            "node after a variation: missing '(' assumed (read as a new variation)"
                                .into(),
                        );
                    }
                    top.has_node = true;
                    // A run of nodes holding one move each (`quick_move`)
                    // is read here without the dispatch: no junk is
                    // pending, no subtree comes in between.
                    loop {
                        let parent = (cur != NONE).then_some(NodeId(cur));
                        let id = self.coll.push_node(parent, self.pos as u32);
                        cur = id.0;
                        open_node = id.0;
                        self.pos += 1;
                        if !(self.quick_moves
                            && self.quick_move(id.0)
                            && src.get(self.pos) == Some(&b';'))
                        {
                            break;
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
                            Severity::Error,
                            start,
                            format!("property {name} without any value (ignored)"),
                        );
                        continue;
                    }
                    if open_node == NONE {
                        let top = stack.last_mut().expect("non-empty stack");
                        top.has_node = true;
                        top.had_subtree = false;
                        self.diag(
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
                    let base = self.coll.values.len() as u32;
                    let values_start = base + self.raw.len() as u32;
                    let mut n = 0u32;
                    while self.pos < len && src[self.pos] == b'[' {
                        let (s, e, closed) = self.read_value();
                        self.raw.push((s, e));
                        n += 1;
                        if !closed {
                            unclosed_value = true;
                            break;
                        }
                        self.skip_space();
                    }
                    general_props |= open_node as usize != game_first_node;
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
                    Severity::Error,
                    len,
                    format!("unexpected end of file: {} missing ')'", stack.len()),
                );
            }
            self.finish_game(game_first_node, game_first_prop, general_props);
        }
        let _ = cur;
    }

    /// Fast path for the commonest node, `;B[xy]` or `;W[xy]` (any two
    /// bytes but `]` and `\\`) with no other value or property: reads the
    /// property at `pos` into the fresh node `node` exactly as the general
    /// path of [`Parser::run`] would (and returns true), or leaves
    /// everything to it.
    #[inline]
    fn quick_move(&mut self, node: u32) -> bool {
        let src = self.src;
        let at = self.pos;
        let Some(&[c, open, x, y, close]) = src.get(at..at + 5) else {
            return false;
        };
        let prop = match c {
            b'B' => Prop::B,
            b'W' => Prop::W,
            _ => return false,
        };
        if open != b'[' || close != b']' || matches!(x, b']' | b'\\') || matches!(y, b']' | b'\\') {
            return false;
        }
        let mut end = at + 5;
        while end < src.len() && is_space(src[end]) {
            end += 1;
        }
        if src.get(end) == Some(&b'[') {
            return false;
        }
        let values_start = self.coll.values.len() as u32 + self.raw.len() as u32;
        self.raw.push((at as u32 + 2, at as u32 + 4));
        self.coll.props.push(Property {
            prop,
            name: Str::default(),
            values_start,
            values_len: 1,
            offset: at as u32,
        });
        self.coll.nodes[node as usize].props_len += 1;
        self.pos = end;
        true
    }

    fn flush_junk(&mut self, junk_at: &mut Option<usize>) {
        if let Some(at) = junk_at.take() {
            let end = self.pos.min(self.src.len());
            let text = excerpt(self.src[at..end].trim_ascii_end());
            self.diag(
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
                        Severity::Error,
                        start - 1,
                        "value not closed before end of file: missing ']'".into(),
                    );
                    return (start as u32, src.len() as u32, false);
                }
            }
        }
    }

    /// Types every value of the game just read and checks its nodes.
    /// `general_props`: whether a node other than the root has properties
    /// read by the general path (else only the root needs node checks).
    fn finish_game(&mut self, first_node: usize, first_prop: usize, general_props: bool) {
        if first_node >= self.coll.nodes.len() {
            // A tree without nodes: `()`.
            self.raw.clear();
            return;
        }
        let src = self.src;
        let root = first_node;
        // Root facts from the raw root values.
        let mut info = GameInfo {
            ff: 1,
            gm: 1,
            width: 0,
            height: 0,
        };
        let mut ff_seen = false;
        let mut size: Option<(u32, u32)> = None;
        let mut ca: Option<(u32, Vec<u8>)> = None;
        let base = self.coll.values.len() as u32;
        let rn = self.coll.nodes[root];
        for p in &self.coll.props[rn.props_start as usize..(rn.props_start + rn.props_len) as usize]
        {
            if p.values_len == 0 {
                continue;
            }
            let (s, e) = self.raw[(p.values_start - base) as usize];
            let v = trim(&src[s as usize..e as usize]);
            match p.prop {
                Prop::FF => {
                    if let Some(n) = parse_number(v) {
                        ff_seen = true;
                        info.ff = n.clamp(0, 1000) as u32;
                    }
                }
                Prop::GM => {
                    if let Some(n) = parse_number(v) {
                        info.gm = n.clamp(0, 1_000_000) as u32;
                    }
                }
                Prop::SZ => {
                    if let Some(n) = parse_number(v) {
                        size = Some((n.clamp(0, 1000) as u32, n.clamp(0, 1000) as u32));
                    } else if let Some((a, b)) = split_compose(v)
                        && let (Some(a), Some(b)) = (parse_number(trim(a)), parse_number(trim(b)))
                    {
                        size = Some((a.clamp(0, 1000) as u32, b.clamp(0, 1000) as u32));
                    }
                }
                Prop::CA => ca = Some((p.offset, v.to_vec())),
                _ => {}
            }
        }
        let _ = ff_seen;
        let default = if info.gm == 2 { 8 } else { 19 };
        let (w, h) = size.unwrap_or((default, default));
        info.width = w;
        info.height = h;
        if info.ff > 4 || info.ff == 0 {
            self.diag(
                Severity::Error,
                rn.offset as usize,
                format!("unknown file format FF[{}] (read as FF[4])", info.ff),
            );
            info.ff = 4;
        }
        if info.letter_points() && (w > 52 || h > 52 || w == 0 || h == 0) {
            self.diag(
                Severity::Error,
                rn.offset as usize,
                format!("board size {w}x{h} out of range 1x1..52x52"),
            );
        } else if info.gm == 1 && info.ff < 4 && (w > 19 || w != h) {
            self.diag(
                Severity::Warning,
                rn.offset as usize,
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
                                    self.diag(Severity::Warning, *off as usize, format!("unknown charset CA[{}]: text read as UTF-8 or ISO-8859-1", excerpt(label)));
                                }
                                None
                            }
                        }
                    }
                }
            }
        };
        if info.ff == 4 {
            for i in std::mem::take(&mut self.lowercase_ids) {
                self.diag(
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
            malformed_charset: false,
        };
        let small = info.width <= 19 && info.height <= 19;
        let letters = info.letter_points();
        for pi in first_prop..self.coll.props.len() {
            let p = self.coll.props[pi];
            // Fast path: a move of two letters.
            if letters && (p.prop == Prop::B || p.prop == Prop::W) && p.values_len == 1 {
                let (s, e) = self.raw[(p.values_start - base) as usize];
                if e - s == 2
                    && let Some(pt) = Point::from_letters(&src[s as usize..e as usize])
                {
                    let v = if small && pt == Point::new(19, 19) {
                        Value::Pass
                    } else {
                        Value::Point(pt)
                    };
                    self.coll.values.push(v);
                    continue;
                }
            }
            let vt = Collection::value_type(p.prop, &info);
            let game_info = p.prop.kind() == PropKind::GameInfo;
            for k in 0..p.values_len {
                let (s, e) = self.raw[(p.values_start - base + k) as usize];
                let v = self.type_value(p.prop, vt, s as usize, e as usize, game_info, &mut ctx);
                self.coll.values.push(v);
            }
        }
        self.raw.clear();
        if ctx.malformed_charset {
            self.diag(
                Severity::Warning,
                rn.offset as usize,
                "text not valid in the game's charset (replaced with U+FFFD)".into(),
            );
        }
        let nodes_end = if general_props {
            self.coll.nodes.len()
        } else {
            first_node + 1
        };
        self.check_nodes(first_node, nodes_end, &info);
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
        let invalid = |this: &mut Self, ctx: &mut TypeCtx, what: &str| -> Value {
            let shown = excerpt(raw);
            let n = name(&this.coll);
            this.diag(
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
                Value::Text(self.push_text(raw, vt == ValueType::SimpleText, ctx))
            }
            ValueType::Move => {
                if t.is_empty() {
                    if ctx.info.ff < 4 {
                        self.diag(
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
                    if vt == ValueType::PointList {
                        self.diag(
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

    /// Stores a value verbatim (escapes kept), decoded to UTF-8.
    fn push_raw(&mut self, raw: &[u8], ctx: &mut TypeCtx) -> Str {
        let (s, bad) = charset::decode(raw, ctx.enc);
        ctx.malformed_charset |= bad;
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
            ctx.malformed_charset |= bad;
            normalise_breaks_into(&s, simple, &mut self.coll.text);
            return Str {
                start,
                len: self.coll.text.len() as u32 - start,
            };
        }
        let (s, bad) = charset::decode(raw, ctx.enc);
        ctx.malformed_charset |= bad;
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

    /// Node-level checks of nodes `first_node..end` of one game.
    fn check_nodes(&mut self, first_node: usize, end: usize, info: &GameInfo) {
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
            let mut seen_unknown: Vec<&str> = Vec::new();
            let (mut has_move, mut has_setup, mut has_b, mut has_w) = (false, false, false, false);
            let mut msgs: Vec<(Severity, u32, String)> = Vec::new();
            let props =
                &self.coll.props[n.props_start as usize..(n.props_start + n.props_len) as usize];
            for p in props {
                if p.prop == Prop::Unknown {
                    let name = self.coll.str(p.name);
                    if seen_unknown.contains(&name) {
                        msgs.push((
                            Severity::Error,
                            p.offset,
                            format!("property {} appears twice in one node", excerpt(name)),
                        ));
                    } else {
                        seen_unknown.push(name);
                    }
                    msgs.push((
                        Severity::Warning,
                        p.offset,
                        format!("unknown property {} (kept)", excerpt(name)),
                    ));
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
                        sev,
                        p.offset,
                        format!("property {} appears twice in one node", p.prop.name()),
                    ));
                }
                seen |= bit;
                let vt = Collection::value_type(p.prop, info);
                if p.values_len > 1 && !vt.is_list() && p.prop != Prop::VW {
                    msgs.push((
                        Severity::Error,
                        p.offset,
                        format!(
                            "property {} may have only one value ({} found)",
                            p.prop.name(),
                            p.values_len
                        ),
                    ));
                }
                match p.prop.kind() {
                    PropKind::Move => has_move = true,
                    PropKind::Setup => has_setup = true,
                    PropKind::Root if !is_root => {
                        msgs.push((
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
                        Severity::Warning,
                        p.offset,
                        format!("property {} is not defined in FF[4] (kept)", p.prop.name()),
                    ));
                }
            }
            if has_b && has_w {
                msgs.push((
                    Severity::Error,
                    n.offset,
                    "black and white move in one node".into(),
                ));
            }
            if has_move && has_setup && info.ff == 4 {
                msgs.push((
                    Severity::Warning,
                    n.offset,
                    "setup and move properties mixed in one node".into(),
                ));
            }
            for (sev, off, m) in msgs {
                self.diag(sev, off as usize, m);
            }
        }
    }
}

struct TypeCtx {
    info: GameInfo,
    enc: Option<&'static Encoding>,
    malformed_charset: bool,
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
