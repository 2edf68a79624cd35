//! Reading EPD: one record per line, precise errors, recovery at the next
//! line.
//!
//! The reader accepts what the standard describes and, without loss, the
//! deviations real files show: extra whitespace (spaces, tabs), a trailing
//! NUL (the spec's internal terminator), a missing final `;`, empty
//! operations (`;;`), operations out of order, six-field FEN lines (the
//! counters become `hmvc`/`fmvn`), unquoted strings (`id BK.01`), a check
//! sign written apart from its move (`bm Qd1 +`), moves in coordinate
//! notation (`bm e2e4`), and a missing `;` before a standard opcode
//! (`bm Rc8+ dm 26`). Each tolerance that departs from the standard is
//! reported as a warning; anything that cannot be read is an error and the
//! line yields no record.

use std::str::FromStr;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};

use super::basetypes::{
    check_string, parse_clock, parse_date, parse_identifier, parse_integer_in, parse_opcode,
    parse_time,
};
use super::opcodes::{Opcode, STANDARD, Shape};
use super::record::{EpdMove, EpdPosition, EpdRecord, Operand, Operation};
use crate::diag::{Code, Diagnostic, LineCol, MAX_LISTED, Severity};
use crate::excerpt::excerpt;
use crate::fen::read_epd_position;
use crate::model::{PlyMove, play_ply};
use crate::san::{ReadOptions, read_san};

/// The outcome of reading one line.
#[derive(Debug, Clone)]
pub struct LineRead<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The line as written, without its line end.
    pub text: &'a str,
    /// The record, unless the line is blank or has an error.
    pub record: Option<EpdRecord>,
    /// Warnings and errors, with line and column (no path).
    pub diagnostics: Vec<Diagnostic>,
}

impl LineRead<'_> {
    /// Whether the line holds nothing but whitespace.
    pub fn is_blank(&self) -> bool {
        self.record.is_none() && self.diagnostics.is_empty()
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Reads every line of `text` (LF, CRLF or CR line ends).
pub fn read_lines(text: &str) -> impl Iterator<Item = LineRead<'_>> {
    let bytes = text.as_bytes();
    let mut pos = 0usize;
    let mut number = 0u64;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r' {
            end += 1;
        }
        pos = end;
        if pos < bytes.len() {
            if bytes[pos] == b'\r' && bytes.get(pos + 1) == Some(&b'\n') {
                pos += 1;
            }
            pos += 1;
        }
        number += 1;
        let line = &text[start..end];
        let (record, diagnostics) = read_line(line, number);
        Some(LineRead {
            number,
            text: line,
            record,
            diagnostics,
        })
    })
}

/// The error of a line left out for its size, at its first column.
fn too_large(line: u64, message: String) -> Diagnostic {
    Diagnostic::new(Severity::Error, LineCol { line, column: 1 }, message).with_code(Code::TooLarge)
}

/// The longest line [`read_lines_from`] reads (64 MiB, the bound of the
/// file reader's lines); a longer one is skipped and reported.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// One line read from a stream by [`read_lines_from`]: [`LineRead`] with
/// the text owned.
#[derive(Debug, Clone)]
pub struct OwnedLineRead {
    /// 1-based line number.
    pub number: u64,
    /// The line as written (decoded), without its line end; empty for a
    /// line past [`MAX_LINE_BYTES`], which is not kept.
    pub text: String,
    /// The record, unless the line is blank or has an error.
    pub record: Option<EpdRecord>,
    /// Errors and warnings for this line.
    pub diagnostics: Vec<Diagnostic>,
}

impl OwnedLineRead {
    /// Whether the line is blank (no record, no diagnostics).
    pub fn is_blank(&self) -> bool {
        self.record.is_none() && self.diagnostics.is_empty()
    }
}

/// The lines of a stream read as [`read_lines`] reads text, one at a time
/// (memory: the longest line, at most [`MAX_LINE_BYTES`]): lines end at
/// `\n`, `\r\n` or a lone `\r`; each line is decoded by itself ([`decode`]:
/// UTF-8, else Windows-1252, a byte-order mark dropped).
pub fn read_lines_from<R: std::io::BufRead>(input: R) -> StreamLines<R> {
    StreamLines {
        input,
        number: 0,
        buf: Vec::new(),
        after_cr: false,
        done: false,
    }
}

/// The iterator of [`read_lines_from`].
#[derive(Debug)]
pub struct StreamLines<R> {
    input: R,
    number: u64,
    buf: Vec<u8>,
    /// The last line ended at `\r`: a `\n` right after it belongs to it.
    after_cr: bool,
    done: bool,
}

impl<R: std::io::BufRead> StreamLines<R> {
    /// The next line's bytes into `buf`, without its end; `None` at the
    /// end, else whether the line was past the bound (consumed to its end
    /// and left empty) and whether the stream ended it.
    fn next_bytes(&mut self) -> std::io::Result<Option<(bool, bool)>> {
        self.buf.clear();
        // One byte more than a line may hold: room for its end.
        let max = MAX_LINE_BYTES + 1;
        let (n, _) = read_line_any_end(&mut self.input, &mut self.buf, max, &mut self.after_cr)?;
        if n == 0 {
            return Ok(None);
        }
        let ended = matches!(self.buf.last(), Some(b'\n' | b'\r'));
        if ended {
            self.buf.pop();
        } else if n == max {
            skip_line(&mut self.input, true, &mut self.after_cr)?;
            self.buf = Vec::new();
            return Ok(Some((true, false)));
        }
        Ok(Some((false, !ended)))
    }
}

/// The bytes `input` holds next (empty at its end), read again when a read
/// is interrupted.
fn filled<R: std::io::BufRead + ?Sized>(input: &mut R) -> std::io::Result<&[u8]> {
    loop {
        match input.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            // Asked again to return it (the buffer is kept: no read).
            Ok(_) => return input.fill_buf(),
        }
    }
}

/// Reads a line ending at `\n`, `\r\n` or a lone `\r` into `buf`, its end
/// included, at most `max` bytes: the bytes of the line (0 at the end of
/// the input), and 1 when a `\n` was first consumed as the end of the last
/// line (`after_cr`: it ended at `\r`).
pub(crate) fn read_line_any_end<R: std::io::BufRead + ?Sized>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    after_cr: &mut bool,
) -> std::io::Result<(usize, usize)> {
    let (mut n, mut lf) = (0, 0);
    loop {
        let chunk = filled(input)?;
        if chunk.is_empty() {
            return Ok((n, lf));
        }
        if *after_cr {
            *after_cr = false;
            if chunk[0] == b'\n' {
                input.consume(1);
                lf = 1;
                continue;
            }
        }
        let look = &chunk[..chunk.len().min(max - n)];
        match memchr::memchr2(b'\n', b'\r', look) {
            Some(i) => {
                buf.extend_from_slice(&look[..=i]);
                *after_cr = look[i] == b'\r';
                input.consume(i + 1);
                return Ok((n + i + 1, lf));
            }
            None => {
                let k = look.len();
                buf.extend_from_slice(look);
                input.consume(k);
                n += k;
                if n == max {
                    return Ok((n, lf));
                }
            }
        }
    }
}

/// Consumes the rest of a line past a bound, its end included: `\n`, or
/// with `cr_ends` also a lone `\r` (then `after_cr` is set); the bytes
/// consumed.
pub(crate) fn skip_line<R: std::io::BufRead + ?Sized>(
    input: &mut R,
    cr_ends: bool,
    after_cr: &mut bool,
) -> std::io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let chunk = filled(input)?;
        if chunk.is_empty() {
            return Ok(skipped);
        }
        let end = if cr_ends {
            memchr::memchr2(b'\n', b'\r', chunk)
        } else {
            memchr::memchr(b'\n', chunk)
        };
        let (used, done) = match end {
            Some(i) => {
                *after_cr = chunk[i] == b'\r';
                (i + 1, true)
            }
            None => (chunk.len(), false),
        };
        input.consume(used);
        skipped += used as u64;
        if done {
            return Ok(skipped);
        }
    }
}

impl<R: std::io::BufRead> Iterator for StreamLines<R> {
    type Item = std::io::Result<OwnedLineRead>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let overlong = match self.next_bytes() {
            // A byte-order mark alone is no line, as in the text read whole.
            Ok(Some((false, true))) if self.number == 0 && self.buf == b"\xEF\xBB\xBF" => {
                self.done = true;
                return None;
            }
            Ok(Some((overlong, _))) => overlong,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.number += 1;
        let number = self.number;
        if overlong {
            let d = too_large(
                number,
                format!("line longer than {MAX_LINE_BYTES} bytes: skipped"),
            );
            return Some(Ok(OwnedLineRead {
                number,
                text: String::new(),
                record: None,
                diagnostics: vec![d],
            }));
        }
        let text = decode(&self.buf).into_owned();
        let (record, mut diagnostics) = read_line(&text, number);
        if !diagnostics.is_empty() {
            // Columns of the line's bytes (no offsets: the lines' starts
            // are not counted here).
            let places = LinePlaces::new(&self.buf, &text);
            for d in &mut diagnostics {
                if d.location.column > 0 {
                    d.location.column = places.byte(d.location.column as usize - 1) + 1;
                }
            }
        }
        Some(Ok(OwnedLineRead {
            number,
            text,
            record,
            diagnostics,
        }))
    }
}

/// Reads every record of `text`, stopping at the first error.
// The error is returned once per call, not passed along a hot path.
#[allow(clippy::result_large_err)]
pub fn read_all(text: &str) -> Result<Vec<EpdRecord>, Diagnostic> {
    let mut out = Vec::new();
    for line in read_lines(text) {
        if let Some(err) = line
            .diagnostics
            .into_iter()
            .find(|d| d.severity == Severity::Error)
        {
            return Err(err);
        }
        out.extend(line.record);
    }
    Ok(out)
}

impl FromStr for EpdRecord {
    type Err = Diagnostic;

    /// Reads one record (warnings are dropped; the first error is returned).
    fn from_str(s: &str) -> Result<EpdRecord, Diagnostic> {
        let (record, diagnostics) = read_line(s, 1);
        match record {
            Some(r) => Ok(r),
            None => Err(diagnostics
                .into_iter()
                .find(|d| d.severity == Severity::Error)
                .unwrap_or_else(|| Diagnostic {
                    severity: Severity::Error,
                    path: None,
                    location: LineCol { line: 1, column: 1 },
                    message: "expected an EPD record, found an empty line".into(),
                    ..Diagnostic::default()
                })),
        }
    }
}

/// The most tokens (the position's fields, opcodes, operands: a quoted
/// string is one) a record read from a file may hold. Each token takes a
/// hundred bytes and more once read, so a line of `a;` as long as the
/// file reader's line bound (64 MiB) would take gigabytes; a line with
/// more is reported as too large and skipped, as an overlong line is. No
/// real record comes near it: a `pv` of a whole game is a few hundred
/// operands.
pub const MAX_RECORD_TOKENS: usize = 100_000;

/// Whether `line` holds more than [`MAX_RECORD_TOKENS`] tokens. A line
/// shorter than that many bytes is not looked at; a longer one is scanned
/// once, up to the token past the bound.
pub fn too_many_tokens(line: &str) -> bool {
    if line.len() <= MAX_RECORD_TOKENS {
        return false;
    }
    let bytes = line.as_bytes();
    let (mut tokens, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b if is_space(b) || b == b';' || b == 0 => i += 1,
            b'"' => {
                // A string, escapes skipped, to its closing quote (or the
                // end of an unterminated one).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                tokens += 1;
            }
            _ => {
                while i < bytes.len() && !is_space(bytes[i]) && !matches!(bytes[i], b';' | b'"') {
                    i += 1;
                }
                tokens += 1;
            }
        }
        if tokens > MAX_RECORD_TOKENS {
            return true;
        }
    }
    false
}

/// Reads one line (without line end) as a record. Blank lines give no
/// record and no diagnostics; a line of more than [`MAX_RECORD_TOKENS`]
/// tokens gives no record and one error (too large).
pub fn read_line(line: &str, number: u64) -> (Option<EpdRecord>, Vec<Diagnostic>) {
    if too_many_tokens(line) {
        let d = too_large(
            number,
            format!(
                "record of more than {MAX_RECORD_TOKENS} fields, opcodes and operands: skipped"
            ),
        );
        return (None, vec![d]);
    }
    read_line_unbounded(line, number)
}

/// [`read_line`] without the bound on tokens.
fn read_line_unbounded(line: &str, number: u64) -> (Option<EpdRecord>, Vec<Diagnostic>) {
    let mut ctx = LineReader {
        bytes: line.as_bytes(),
        text: line,
        pos: 0,
        end: line.len(),
        number,
        diags: Vec::new(),
    };
    let record = ctx.read().ok();
    let record = if ctx.diags.iter().any(|d| d.severity == Severity::Error) {
        None
    } else {
        record
    };
    (record, ctx.finish())
}

/// The operations of `line` found by lexing alone (no check of the
/// position or of operand types): each opcode with the byte range of its
/// operation. `None` when the line does not lex (or is blank), or holds
/// more than [`MAX_RECORD_TOKENS`] tokens.
pub fn operation_spans(line: &str) -> Option<Vec<(String, std::ops::Range<usize>)>> {
    if too_many_tokens(line) {
        return None;
    }
    let mut ctx = LineReader {
        bytes: line.as_bytes(),
        text: line,
        pos: 0,
        end: line.len(),
        number: 1,
        diags: Vec::new(),
    };
    while ctx.end > 0 && (is_space(ctx.bytes[ctx.end - 1]) || ctx.bytes[ctx.end - 1] == 0) {
        ctx.end -= 1;
    }
    for _ in 0..4 {
        ctx.skip_space();
        if ctx.pos >= ctx.end || ctx.bytes[ctx.pos] == b';' {
            return None;
        }
        ctx.token();
    }
    ctx.read_fen_counters();
    let raw = ctx.read_operations().ok()?;
    Some(raw.into_iter().map(|r| (r.opcode, r.at..r.end)).collect())
}

/// An operand as written: its text (a string's escapes resolved), whether
/// it was quoted, and its byte column.
#[derive(Debug, Clone)]
struct RawOperand {
    text: String,
    quoted: bool,
    at: usize,
}

#[derive(Debug, Clone)]
struct RawOp {
    opcode: String,
    at: usize,
    /// One past the operation's `;` (or its last operand).
    end: usize,
    operands: Vec<RawOperand>,
}

/// Marker: the line was rejected (the reason is in the diagnostics).
struct Rejected;

struct LineReader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    end: usize,
    number: u64,
    diags: Vec<Diagnostic>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

const FIELD_NAMES: [&str; 4] = [
    "piece placement",
    "active color",
    "castling availability",
    "en passant target square",
];

impl<'a> LineReader<'a> {
    /// The diagnostics, the count of those not listed given its text.
    fn finish(mut self) -> Vec<Diagnostic> {
        if let Some(d) = self.diags.last_mut()
            && let Some(n) = d.not_listed.as_deref().copied()
        {
            d.message = n.message("the reader", "record");
        }
        self.diags
    }

    fn report(&mut self, severity: Severity, at: usize, message: impl Into<String>) {
        if self.diags.len() >= MAX_LISTED {
            // Counted in one message (see [`MAX_LISTED`]), given its text
            // by [`LineReader::finish`].
            if self.diags.len() == MAX_LISTED {
                self.diags.push(Diagnostic {
                    location: LineCol {
                        line: self.number,
                        column: at as u64 + 1,
                    },
                    not_listed: Some(Box::default()),
                    ..Diagnostic::default()
                });
            }
            if let Some(d) = self.diags.last_mut()
                && let Some(n) = &mut d.not_listed
            {
                n.count(severity);
                d.severity = n.severity();
            }
            return;
        }
        self.diags.push(Diagnostic {
            severity,
            path: None,
            location: LineCol {
                line: self.number,
                column: at as u64 + 1,
            },
            message: message.into(),
            code: if severity == Severity::Error {
                Code::Syntax
            } else {
                Code::Other
            },
            ..Diagnostic::default()
        });
    }

    fn error(&mut self, at: usize, message: impl Into<String>) -> Rejected {
        self.report(Severity::Error, at, message);
        Rejected
    }

    fn warn(&mut self, at: usize, message: impl Into<String>) {
        self.report(Severity::Warning, at, message);
    }

    fn skip_space(&mut self) {
        while self.pos < self.end && is_space(self.bytes[self.pos]) {
            self.pos += 1;
        }
    }

    /// A token up to whitespace, `;` or the end of the line.
    fn token(&mut self) -> (usize, &'a str) {
        let start = self.pos;
        while self.pos < self.end && !is_space(self.bytes[self.pos]) && self.bytes[self.pos] != b';'
        {
            self.pos += 1;
        }
        (start, &self.text[start..self.pos])
    }

    fn peek_token(&self, from: usize) -> (usize, usize) {
        let mut s = from;
        while s < self.end && is_space(self.bytes[s]) {
            s += 1;
        }
        let mut e = s;
        while e < self.end && !is_space(self.bytes[e]) && self.bytes[e] != b';' {
            e += 1;
        }
        (s, e)
    }

    fn read(&mut self) -> Result<EpdRecord, Rejected> {
        // Trailing whitespace and NUL terminators are not part of the record.
        while self.end > 0 && (is_space(self.bytes[self.end - 1]) || self.bytes[self.end - 1] == 0)
        {
            self.end -= 1;
        }
        if let Some(nul) = self.bytes[..self.end].iter().position(|&b| b == 0) {
            return Err(self.error(nul, "NUL byte inside the record"));
        }
        self.skip_space();
        if self.pos >= self.end {
            return Err(Rejected);
        }
        let mut fields = [(0usize, ""); 4];
        for (i, name) in FIELD_NAMES.iter().enumerate() {
            self.skip_space();
            if self.pos >= self.end || self.bytes[self.pos] == b';' {
                let at = self.pos;
                return Err(self.error(
                    at,
                    format!(
                        "expected the {name} field (an EPD record starts with four position fields)"
                    ),
                ));
            }
            let (at, tok) = self.token();
            fields[i] = (at, tok);
        }
        let position = self.read_position(&fields)?;
        let counters = self.read_fen_counters();
        let raw = self.read_operations()?;
        self.type_record(position, counters, raw)
    }

    fn read_position(&mut self, fields: &[(usize, &'a str); 4]) -> Result<EpdPosition, Rejected> {
        let (turn_at, turn) = fields[1];
        if turn != "w" && turn != "b" {
            return Err(self.error(
                turn_at,
                format!(
                    "active color field `{}`: expected `w` or `b`",
                    excerpt(turn)
                ),
            ));
        }
        let (castle_at, castle) = fields[2];
        if castle != "-" && !castle.bytes().all(|b| b"KQkqABCDEFGHabcdefgh".contains(&b)) {
            return Err(self.error(
                castle_at,
                format!(
                    "castling availability field `{}`: expected `-` or letters from `KQkq`",
                    excerpt(castle)
                ),
            ));
        }
        let (ep_at, mut ep) = fields[3];
        if ep.len() > 1 && ep.starts_with('-') && ep[1..].bytes().all(|b| b.is_ascii_digit()) {
            // `- -0 1`: the space between `-` and the halfmove clock is
            // missing. Read the digits as the fifth field.
            let (s, e) = self.peek_token(self.pos);
            if e > s && self.bytes[s..e].iter().all(u8::is_ascii_digit) {
                self.warn(ep_at + 1, format!("missing space after `-` in `{ep}`"));
                self.pos = ep_at + 1;
                ep = "-";
            }
        }
        let ep_ok = ep == "-"
            || (ep.len() == 2
                && (b'a'..=b'h').contains(&ep.as_bytes()[0])
                && matches!(ep.as_bytes()[1], b'3' | b'6'));
        if !ep_ok {
            return Err(self.error(
                ep_at,
                format!(
                    "en passant target square field `{}`: expected `-` or a square on rank 3 or 6",
                    excerpt(ep)
                ),
            ));
        }
        let joined = format!("{} {} {} {}", fields[0].1, turn, castle, ep);
        match read_epd_position(&joined) {
            Ok((chess, castling_mode)) => Ok(EpdPosition {
                chess,
                castling_mode,
            }),
            Err(e) => {
                // Map the column in `joined` back to the line.
                let mut col = e.column;
                let mut at = fields[0].0;
                for (start, text) in fields.iter() {
                    if col <= text.len() {
                        at = start + col;
                        break;
                    }
                    col -= text.len() + 1;
                }
                let what = if e.is_syntax() {
                    "bad position"
                } else {
                    "illegal position"
                };
                Err(self.error(at, format!("{what}: {}: {}", e.field.name(), e.message)))
            }
        }
    }

    /// The halfmove clock and fullmove number of a six-field FEN line.
    fn read_fen_counters(&mut self) -> Option<(usize, u32, usize, u32)> {
        let (s5, e5) = self.peek_token(self.pos);
        let (s6, e6) = self.peek_token(e5);
        let digits = |s: usize, e: usize| {
            e > s && e - s <= 9 && self.bytes[s..e].iter().all(u8::is_ascii_digit)
        };
        if !(digits(s5, e5) && digits(s6, e6)) {
            return None;
        }
        let hmvc: u32 = self.text[s5..e5].parse().ok()?;
        let fmvn: u32 = self.text[s6..e6].parse().ok()?;
        self.pos = e6;
        Some((s5, hmvc, s6, fmvn))
    }

    fn read_operations(&mut self) -> Result<Vec<RawOp>, Rejected> {
        let mut ops = Vec::new();
        loop {
            self.skip_space();
            if self.pos >= self.end {
                return Ok(ops);
            }
            if self.bytes[self.pos] == b';' {
                self.pos += 1; // an empty operation
                continue;
            }
            let at = self.pos;
            if self.bytes[at] == b'"' {
                return Err(self.error(at, "expected an opcode, found a string"));
            }
            let start = self.pos;
            while self.pos < self.end
                && !is_space(self.bytes[self.pos])
                && !matches!(self.bytes[self.pos], b';' | b'"')
            {
                self.pos += 1;
            }
            let opcode = self.text[start..self.pos].to_string();
            if let Err(msg) = parse_opcode(&opcode) {
                return Err(self.error(at, msg));
            }
            if self.pos < self.end && self.bytes[self.pos] == b'"' {
                let p = self.pos;
                return Err(self.error(p, "expected a space between opcode and string operand"));
            }
            let mut operands = Vec::new();
            loop {
                self.skip_space();
                if self.pos >= self.end {
                    break;
                }
                match self.bytes[self.pos] {
                    b';' => {
                        self.pos += 1;
                        break;
                    }
                    b'"' => operands.push(self.read_string()?),
                    _ => {
                        let (at, tok) = self.token();
                        operands.push(RawOperand {
                            text: tok.to_string(),
                            quoted: false,
                            at,
                        });
                    }
                }
            }
            ops.push(RawOp {
                opcode,
                at,
                end: self.pos,
                operands,
            });
        }
    }

    fn read_string(&mut self) -> Result<RawOperand, Rejected> {
        let at = self.pos;
        let mut i = at + 1;
        let mut value = String::new();
        let mut run = i;
        loop {
            if i >= self.end {
                return Err(self.error(at, "unterminated string: expected a closing `\"`"));
            }
            match self.bytes[i] {
                b'"' => {
                    value.push_str(&self.text[run..i]);
                    i += 1;
                    break;
                }
                b'\\'
                    if matches!(self.bytes.get(i + 1), Some(b'"') | Some(b'\\'))
                        && i + 1 < self.end =>
                {
                    value.push_str(&self.text[run..i]);
                    value.push(self.bytes[i + 1] as char);
                    i += 2;
                    run = i;
                }
                _ => i += 1,
            }
        }
        self.pos = i;
        if self.pos < self.end && !is_space(self.bytes[self.pos]) && self.bytes[self.pos] != b';' {
            let p = self.pos;
            return Err(self.error(
                p,
                "expected a space or `;` after the closing `\"` of a string",
            ));
        }
        if let Err(msg) = check_string(&value) {
            return Err(self.error(at, msg));
        }
        Ok(RawOperand {
            text: value,
            quoted: true,
            at,
        })
    }

    fn type_record(
        &mut self,
        mut position: EpdPosition,
        counters: Option<(usize, u32, usize, u32)>,
        raw: Vec<RawOp>,
    ) -> Result<EpdRecord, Rejected> {
        let raw = self.split_missing_semicolons(raw);
        let mut ops: Vec<Operation> = Vec::with_capacity(raw.len() + 2);
        let mut spans: Vec<usize> = Vec::with_capacity(raw.len() + 2);
        let mut failed = false;
        // The opcodes read so far: a set, so a line of many is read in
        // linear time.
        let mut opcodes: std::collections::HashSet<Opcode> =
            std::collections::HashSet::with_capacity(raw.len());
        for r in raw {
            let opcode = Opcode::new(&r.opcode);
            if !opcodes.insert(opcode.clone()) {
                self.error(
                    r.at,
                    format!("opcode `{opcode}` appears twice: at most once per record (5.1)"),
                );
                failed = true;
                continue;
            }
            match self.type_operation(&position.chess, opcode, r.at, r.operands) {
                Ok(op) => {
                    ops.push(op);
                    spans.push(r.at);
                }
                Err(Rejected) => failed = true,
            }
        }
        if let Some((h_at, hmvc, f_at, fmvn)) = counters {
            for (at, opcode, value) in [(h_at, Opcode::Hmvc, hmvc), (f_at, Opcode::Fmvn, fmvn)] {
                match ops.iter().find(|o| o.opcode == opcode) {
                    Some(op)
                        if op.operands.first() != Some(&Operand::Integer(i64::from(value))) =>
                    {
                        self.warn(
                            at,
                            format!("FEN counter {value} differs from the `{opcode}` operation, which is kept"),
                        );
                    }
                    Some(_) => {}
                    None => {
                        if opcode == Opcode::Fmvn && value == 0 {
                            self.warn(at, "FEN fullmove number 0 read as 1");
                            ops.push(Operation::integer(opcode, 1));
                        } else {
                            ops.push(Operation::integer(opcode, i64::from(value)));
                        }
                        spans.push(at);
                    }
                }
            }
        }
        if failed {
            return Err(Rejected);
        }
        self.check_semantics(&ops, &spans);
        let record_clocks = |name: &str| {
            ops.iter()
                .find(|o| o.opcode.as_str() == name)
                .and_then(|o| match o.operands.first() {
                    Some(Operand::Integer(i)) => u32::try_from(*i).ok(),
                    _ => None,
                })
        };
        let hmvc = record_clocks("hmvc");
        let fmvn = record_clocks("fmvn");
        if hmvc.is_some() || fmvn.is_some() {
            position.chess = with_counters(&position.chess, position.castling_mode, hmvc, fmvn);
        }
        Ok(EpdRecord { position, ops })
    }

    /// Splits `bm Rc8+ dm 26` into `bm Rc8+;` and `dm 26;` when a standard
    /// opcode appears among the operands of a standard opcode with typed
    /// (non-string) operands. One pass over the operands: a record of many
    /// such opcodes is split in linear time (splitting the rest off again
    /// at each one copied it, and kept each copy's room).
    fn split_missing_semicolons(&mut self, raw: Vec<RawOp>) -> Vec<RawOp> {
        /// Whether `text`, an operand of an opcode of `shape`, starts the
        /// next operation.
        fn splits(shape: &Shape, o: &RawOperand) -> bool {
            let typed = matches!(
                shape,
                Shape::None
                    | Shape::Integer { .. }
                    | Shape::MoveSet
                    | Shape::Move
                    | Shape::MoveSequence
                    | Shape::Identifier(_)
                    | Shape::Clocks
                    | Shape::Timestamp
            );
            let is_move = matches!(shape, Shape::MoveSet | Shape::Move | Shape::MoveSequence);
            typed
                && !o.quoted
                && is_standard_mnemonic(&o.text)
                && !(is_move && is_pawn_square(&o.text))
        }
        let mut out = Vec::with_capacity(raw.len());
        for op in raw {
            let end = op.end;
            let mut shape = Opcode::new(&op.opcode).shape();
            let mut current = RawOp {
                opcode: op.opcode,
                at: op.at,
                end,
                operands: Vec::with_capacity(op.operands.len()),
            };
            for o in op.operands {
                if splits(&shape, &o) {
                    self.warn(o.at, format!("missing `;` before opcode `{}`", o.text));
                    current.end = o.at;
                    out.push(current);
                    shape = Opcode::new(&o.text).shape();
                    current = RawOp {
                        opcode: o.text,
                        at: o.at,
                        end,
                        operands: Vec::new(),
                    };
                } else {
                    current.operands.push(o);
                }
            }
            out.push(current);
        }
        out
    }

    fn type_operation(
        &mut self,
        chess: &Chess,
        opcode: Opcode,
        at: usize,
        mut operands: Vec<RawOperand>,
    ) -> Result<Operation, Rejected> {
        let shape = opcode.shape();
        let count = operands.len();
        let name = opcode.as_str().to_string();
        let mut typed = Vec::with_capacity(count);
        match shape {
            Shape::None => {
                if let Some(o) = operands.first() {
                    return Err(self.error(o.at, format!("`{name}` takes no operands")));
                }
            }
            Shape::Integer { min, max } => {
                let o = self.exactly_one(&name, at, &operands, "an integer")?;
                if o.quoted {
                    return Err(
                        self.error(o.at, format!("`{name}` takes an integer, found a string"))
                    );
                }
                match parse_integer_in(&o.text, min, max) {
                    Ok(v) => typed.push(Operand::Integer(v)),
                    Err(msg) => return Err(self.error(o.at, format!("`{name}`: {msg}"))),
                }
            }
            Shape::MoveSet | Shape::Move | Shape::MoveSequence => {
                self.glue_suffixes(&name, &mut operands)?;
                if shape == Shape::Move {
                    self.exactly_one(&name, at, &operands, "a move")?;
                }
                let mut pos = chess.clone();
                for o in &operands {
                    if o.quoted {
                        return Err(
                            self.error(o.at, format!("`{name}` takes moves, found a string"))
                        );
                    }
                    let mv = self.resolve_move(&pos, &name, o)?;
                    let epd_move = EpdMove::new(&pos, mv);
                    if shape == Shape::MoveSequence {
                        pos = play_ply(&pos, mv);
                    }
                    typed.push(Operand::Move(epd_move));
                }
            }
            Shape::String | Shape::OptionalString => {
                if count == 0 {
                    if shape == Shape::String {
                        return Err(self.error(at, format!("`{name}` takes one string operand")));
                    }
                } else if let Some(s) = self.one_string(&name, &operands)? {
                    typed.push(Operand::String(s));
                }
            }
            Shape::StringPair => {
                if count != 2 {
                    return Err(self.error(
                        at,
                        format!(
                            "`{name}` takes two string operands (address, name), found {count}"
                        ),
                    ));
                }
                for o in &operands {
                    if !o.quoted {
                        self.warn(o.at, format!("`{name}`: string operand not quoted"));
                        if let Err(msg) = check_string(&o.text) {
                            return Err(self.error(o.at, format!("`{name}`: {msg}")));
                        }
                    }
                    typed.push(Operand::String(o.text.clone()));
                }
            }
            Shape::Clocks => {
                if count != 2 {
                    return Err(self.error(
                        at,
                        format!("`{name}` takes two clock values (White, Black), found {count}"),
                    ));
                }
                for o in &operands {
                    match parse_clock(&o.text) {
                        Ok(c) if !o.quoted => typed.push(Operand::Clock(c)),
                        Ok(_) => {
                            return Err(self.error(
                                o.at,
                                format!("`{name}`: expected a clock value, found a string"),
                            ));
                        }
                        Err(msg) => return Err(self.error(o.at, format!("`{name}`: {msg}"))),
                    }
                }
            }
            Shape::Timestamp => {
                if count != 2 {
                    return Err(self.error(
                        at,
                        format!("`{name}` takes a date and a time of day, found {count} operands"),
                    ));
                }
                match parse_date(&operands[0].text) {
                    Ok(d) => typed.push(Operand::Date(d)),
                    Err(msg) => return Err(self.error(operands[0].at, format!("`{name}`: {msg}"))),
                }
                match parse_time(&operands[1].text) {
                    Ok(t) => typed.push(Operand::Time(t)),
                    Err(msg) => return Err(self.error(operands[1].at, format!("`{name}`: {msg}"))),
                }
            }
            Shape::TagPairs => {
                if !count.is_multiple_of(2) {
                    return Err(self.error(
                        at,
                        format!("`ptp` takes tag name/value pairs: found an odd number ({count}) of operands"),
                    ));
                }
                let mut seen = std::collections::HashSet::new();
                for pair in operands.chunks(2) {
                    let (tag, value) = (&pair[0], &pair[1]);
                    if tag.quoted {
                        return Err(self.error(
                            tag.at,
                            "`ptp`: expected a tag name identifier, found a string",
                        ));
                    }
                    if let Err(msg) = parse_identifier(&tag.text) {
                        return Err(self.error(tag.at, format!("`ptp` tag name: {msg}")));
                    }
                    if !value.quoted {
                        if let Err(msg) = check_string(&value.text) {
                            return Err(self.error(value.at, format!("`ptp`: {msg}")));
                        }
                        self.warn(
                            value.at,
                            format!("`ptp`: value of tag `{}` not quoted", tag.text),
                        );
                    }
                    if !seen.insert(tag.text.as_str()) {
                        self.warn(
                            tag.at,
                            format!("`ptp`: tag `{}` given more than once (6.20)", tag.text),
                        );
                    }
                    typed.push(Operand::Identifier(tag.text.clone()));
                    typed.push(Operand::String(value.text.clone()));
                }
            }
            Shape::Identifier(allowed) => {
                let o = self.exactly_one(&name, at, &operands, "an identifier")?;
                if o.quoted {
                    self.warn(
                        o.at,
                        format!("`{name}` operand is an identifier and is not quoted (6.23/6.24)"),
                    );
                }
                if !allowed.contains(&o.text.as_str()) {
                    return Err(self.error(
                        o.at,
                        format!(
                            "`{name}` operand `{}`: expected one of {}",
                            o.text,
                            allowed.join(", ")
                        ),
                    ));
                }
                typed.push(Operand::Identifier(o.text.clone()));
            }
            Shape::Any => {
                for o in operands {
                    typed.push(if o.quoted {
                        Operand::String(o.text)
                    } else {
                        Operand::Raw(o.text)
                    });
                }
            }
        }
        Ok(Operation {
            opcode,
            operands: typed,
        })
    }

    fn exactly_one<'o>(
        &mut self,
        name: &str,
        at: usize,
        operands: &'o [RawOperand],
        what: &str,
    ) -> Result<&'o RawOperand, Rejected> {
        match operands {
            [one] => Ok(one),
            [] => Err(self.error(at, format!("`{name}` takes {what}, found no operand"))),
            [_, second, ..] => Err(self.error(
                second.at,
                format!(
                    "`{name}` takes exactly one operand ({what}), found {}",
                    operands.len()
                ),
            )),
        }
    }

    /// One string operand; unquoted words are joined with single spaces.
    fn one_string(
        &mut self,
        name: &str,
        operands: &[RawOperand],
    ) -> Result<Option<String>, Rejected> {
        match operands {
            [] => Ok(None),
            [one] if one.quoted => Ok(Some(one.text.clone())),
            _ if operands.iter().all(|o| !o.quoted) => {
                let joined = operands
                    .iter()
                    .map(|o| o.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.warn(
                    operands[0].at,
                    format!("`{name}`: string operand not quoted"),
                );
                if let Err(msg) = check_string(&joined) {
                    return Err(self.error(operands[0].at, format!("`{name}`: {msg}")));
                }
                Ok(Some(joined))
            }
            [_, second, ..] => Err(self.error(
                second.at,
                format!(
                    "`{name}` takes one string operand, found {}",
                    operands.len()
                ),
            )),
            [_] => Ok(None),
        }
    }

    /// Joins `+`, `#`, `!`, `?` written apart from a move to that move.
    fn glue_suffixes(
        &mut self,
        name: &str,
        operands: &mut Vec<RawOperand>,
    ) -> Result<(), Rejected> {
        // Built anew in one pass: removing each suffix in place would move
        // all the operands after it (quadratic in a line of many).
        let mut glued: Vec<RawOperand> = Vec::with_capacity(operands.len());
        let mut rest = std::mem::take(operands).into_iter().peekable();
        while let Some(o) = rest.next() {
            let is_suffix = !o.quoted
                && !o.text.is_empty()
                && (o.text.bytes().all(|b| b"+#!?".contains(&b))
                    || (o.text.starts_with('=')
                        && o.text[1..].bytes().all(|b| b"QRBNqrbn+#!?".contains(&b))));
            if !is_suffix {
                glued.push(o);
                continue;
            }
            let Some(mv) = glued.last_mut() else {
                return Err(self.error(o.at, format!("`{name}`: `{}` is not a move", o.text)));
            };
            let mut suffix = o;
            if suffix.text == "="
                && let Some(next) = rest.next_if(|next| {
                    !next.quoted
                        && next.text.len() == 1
                        && b"QRBNqrbn".contains(&next.text.as_bytes()[0])
                })
            {
                suffix.text.push_str(&next.text.to_ascii_uppercase());
            }
            mv.text.push_str(&suffix.text);
            self.warn(
                suffix.at,
                format!("`{}` written apart from its move", suffix.text),
            );
        }
        *operands = glued;
        Ok(())
    }

    fn resolve_move(
        &mut self,
        pos: &Chess,
        name: &str,
        o: &RawOperand,
    ) -> Result<PlyMove, Rejected> {
        match read_san(pos, o.text.as_bytes(), &ReadOptions::default()) {
            Ok(read) if read.mv == PlyMove::Null => Err(self.error(
                o.at,
                format!(
                    "`{name}`: a null move `{}` is not playable",
                    excerpt(&o.text)
                ),
            )),
            Ok(read) => {
                if !read.tolerated.is_empty() {
                    self.warn(
                        o.at,
                        format!(
                            "`{name}`: `{}` is not standard SAN ({}); EPD requires SAN (5.2.2)",
                            excerpt(&o.text),
                            read.tolerated
                        ),
                    );
                }
                if read.nag.is_some() {
                    self.warn(
                        o.at,
                        format!(
                            "`{name}`: annotation on move `{}` dropped",
                            excerpt(&o.text)
                        ),
                    );
                }
                Ok(read.mv)
            }
            Err(san_err) => {
                if let Some(fixed) = repair_san(&o.text)
                    && let Ok(read) = read_san(pos, fixed.as_bytes(), &ReadOptions::default())
                    && read.mv != PlyMove::Null
                {
                    self.warn(
                        o.at,
                        format!(
                            "`{name}`: `{}` is not standard SAN, read as `{}`",
                            excerpt(&o.text),
                            excerpt(&fixed)
                        ),
                    );
                    return Ok(read.mv);
                }
                if let Ok(uci) = UciMove::from_ascii(o.text.as_bytes())
                    && let Ok(m) = uci.to_move(pos)
                {
                    self.warn(
                        o.at,
                        format!(
                            "`{name}`: move `{}` is in coordinate notation; EPD requires SAN (5.2.2)",
                            excerpt(&o.text)
                        ),
                    );
                    return Ok(PlyMove::Move(m));
                }
                Err(self.error(
                    o.at,
                    format!(
                        "`{name}`: `{}` is not a legal move here: {san_err}",
                        excerpt(&o.text)
                    ),
                ))
            }
        }
    }

    /// The cross-operation checks of section 6; errors are added to the
    /// diagnostics.
    fn check_semantics(&mut self, ops: &[Operation], spans: &[usize]) {
        let find = |name: &str| {
            ops.iter()
                .position(|o| o.opcode.as_str() == name)
                .map(|i| (&ops[i], spans[i]))
        };
        for (single, seq) in [("pm", "pv"), ("sm", "sv")] {
            if let (Some((one, at)), Some((line, _))) = (find(single), find(seq)) {
                let first = line.move_list().next();
                let m = one.move_list().next();
                if let (Some(first), Some(m)) = (first, m)
                    && first.mv != m.mv
                {
                    self.error(
                        at,
                        format!(
                            "`{single} {}` differs from the first `{seq}` move `{}` (6.19, 6.26)",
                            m.san, first.san
                        ),
                    );
                }
            }
        }
        let conflicts = [
            ("draw_accept", "draw_reject"),
            ("draw_claim", "draw_offer"),
            ("resign", "draw_accept"),
            ("resign", "draw_claim"),
            ("resign", "draw_offer"),
            ("resign", "draw_reject"),
        ];
        for (a, b) in conflicts {
            if let (Some(_), Some((_, at))) = (find(a), find(b)) {
                self.error(
                    at,
                    format!("`{b}` conflicts with `{a}` on the same record (6.9-6.12, 6.25)"),
                );
            }
        }
        if let Some((_, at)) = find("draw_offer")
            && find("sm").is_none()
        {
            self.error(
                at,
                "`draw_offer` requires an `sm` operation on the same record (6.11)",
            );
        }
        // 6.10 requires `sm` with `draw_claim`, but 8 step 10 has a client
        // claim a draw with no move to play (insufficient material): a
        // warning, so referee replies read.
        if let Some((_, at)) = find("draw_claim")
            && find("sm").is_none()
        {
            self.warn(
                at,
                "`draw_claim` without an `sm` operation (6.10 requires one; 8 step 10 allows none)",
            );
        }
    }
}

/// A repair for two common SAN slips: a promotion without `=` (`c8N`) and
/// a capture without `x` (`Ne4` onto an occupied square).
fn repair_san(text: &str) -> Option<String> {
    let core = text.trim_end_matches(['+', '#', '!', '?']);
    let suffix = &text[core.len()..];
    let b = core.as_bytes();
    let n = b.len();
    if n >= 3
        && b"QRBNqrbn".contains(&b[n - 1])
        && matches!(b[n - 2], b'1' | b'8')
        && (b'a'..=b'h').contains(&b[n - 3])
    {
        return Some(format!(
            "{}={}{suffix}",
            &core[..n - 1],
            (b[n - 1] as char).to_ascii_uppercase()
        ));
    }
    if n >= 3
        && !core.contains('x')
        && b"KQRBN".contains(&b[0])
        && (b'a'..=b'h').contains(&b[n - 2])
        && (b'1'..=b'8').contains(&b[n - 1])
    {
        return Some(format!("{}x{}{suffix}", &core[..n - 2], &core[n - 2..]));
    }
    None
}

fn is_standard_mnemonic(text: &str) -> bool {
    let b = text.as_bytes();
    (b.len() == 2 && matches!(b[0], b'c' | b'v') && b[1].is_ascii_digit())
        || STANDARD.iter().any(|(name, _)| *name == text)
}

/// `c2`..`c7` could be a pawn move rather than a comment opcode.
fn is_pawn_square(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 2 && b[0] == b'c' && (b'2'..=b'7').contains(&b[1])
}

/// `chess` with its halfmove clock and fullmove number replaced.
pub(crate) fn with_counters(
    chess: &Chess,
    mode: CastlingMode,
    hmvc: Option<u32>,
    fmvn: Option<u32>,
) -> Chess {
    let mut setup = chess.to_setup(EnPassantMode::Always);
    if let Some(h) = hmvc {
        setup.halfmoves = h;
    }
    if let Some(f) = fmvn.and_then(std::num::NonZeroU32::new) {
        setup.fullmoves = f;
    }
    Chess::from_setup(setup, mode).unwrap_or_else(|_| chess.clone())
}

/// Decodes file bytes: UTF-8 (a BOM is skipped), else Windows-1252, the
/// encoding of older EPD files.
pub fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => {
            encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
        }
    }
}

/// Where the places of a line's decoded text ([`decode`]) are among its
/// bytes, for messages: a column of the text becomes the column of the
/// byte (the same byte of UTF-8; of Windows-1252, a byte a character),
/// counted after a byte-order mark (as the EPD text reader counts them),
/// and the offset is that byte's in the input (the mark counted).
pub struct LinePlaces {
    bom: u64,
    /// Per byte of the text, its character's byte in the line (after the
    /// mark); `None` when the line was UTF-8 (the same byte).
    map: Option<Vec<u32>>,
    len: usize,
}

impl LinePlaces {
    /// The places of `text`, decoded from the line's bytes `raw`.
    pub fn new(raw: &[u8], text: &str) -> LinePlaces {
        let body = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
        LinePlaces::decoded(raw, text, std::str::from_utf8(body).is_ok())
    }

    /// [`LinePlaces::new`] when the decoding said whether the line was
    /// UTF-8 (the places of a UTF-8 line cost nothing to work out).
    pub fn decoded(raw: &[u8], text: &str, utf8: bool) -> LinePlaces {
        let bom = if raw.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let map = (!utf8).then(|| {
            let mut map = Vec::with_capacity(text.len() + 1);
            for (n, c) in text.chars().enumerate() {
                map.extend(std::iter::repeat_n(n as u32, c.len_utf8()));
            }
            map.push(text.chars().count() as u32);
            map
        });
        LinePlaces {
            bom,
            map,
            len: text.len(),
        }
    }

    /// The line's byte (from 0, after a byte-order mark) at byte `at` of
    /// the text.
    pub fn byte(&self, at: usize) -> u64 {
        let at = at.min(self.len);
        self.map.as_ref().map_or(at as u64, |m| u64::from(m[at]))
    }

    /// `d` (its column one of the text's, 0 for the whole line) with the
    /// byte's column, and its offset in the input: `line_start` plus the
    /// byte's place in the line.
    pub fn place(&self, mut d: Diagnostic, line_start: u64) -> Diagnostic {
        if d.location.column == 0 {
            return d.with_offset(line_start);
        }
        let at = self.byte(d.location.column as usize - 1);
        d.location.column = at + 1;
        d.with_offset(line_start + self.bom + at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamerec_testkit::finishes;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    /// A stream gives the lines of the same text read whole: every kind of
    /// line end, blank lines, a last line with and without its end, read
    /// through buffers of every small size (ends split across them).
    #[test]
    fn a_stream_reads_the_lines_of_the_text() {
        let texts = [
            format!("{START} bm e4;\n\n{START} id \"x\";\r\n{START} c0 \"é\";\r\rbad\n"),
            format!("\u{feff}{START} bm e4;\r\n{START} bm d4;"),
            "\r\n\r\n\n".to_string(),
            String::new(),
            "\u{feff}".to_string(),
            "\u{feff}\n".to_string(),
        ];
        for text in &texts {
            // As the whole file is read: decoded (the mark dropped), then split.
            let decoded = decode(text.as_bytes());
            let expected: Vec<_> = read_lines(&decoded)
                .map(|l| (l.number, l.text.to_string(), l.record, l.diagnostics))
                .collect();
            for capacity in [1, 2, 3, 7, 64, 8192] {
                let input = std::io::BufReader::with_capacity(capacity, text.as_bytes());
                let got: Vec<_> = read_lines_from(input)
                    .map(|l| {
                        let l = l.unwrap();
                        (l.number, l.text, l.record, l.diagnostics)
                    })
                    .collect();
                assert_eq!(got, expected, "{text:?} through {capacity} bytes");
            }
        }
    }

    /// A line past [`MAX_LINE_BYTES`] is skipped and reported (not held),
    /// and the next line is read.
    #[test]
    fn a_stream_skips_an_overlong_line() {
        let mut text = vec![b'x'; MAX_LINE_BYTES + 1];
        text.extend_from_slice(format!("\r\n{START} bm e4;\n").as_bytes());
        let lines: Vec<_> = read_lines_from(std::io::BufReader::new(&text[..]))
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].text.is_empty() && lines[0].record.is_none());
        assert_eq!(lines[0].diagnostics[0].code, Code::TooLarge);
        assert_eq!(lines[1].number, 2);
        assert!(lines[1].record.is_some());
    }

    /// Duplicate opcodes and `ptp` tag names are found through a set, not
    /// by comparing each with every one before (700,000 opcodes did not
    /// end): lines past the token bound, read without it.
    #[test]
    fn many_opcodes_and_ptp_tags_are_read_in_linear_time() {
        const N: usize = 300_000;
        finishes("EPD opcodes", 60, || {
            let ops: String = (0..N).map(|i| format!(" x{i} \"x\";")).collect();
            let (record, diags) = read_line_unbounded(&format!("{START}{ops}"), 1);
            assert!(diags.is_empty(), "{:?}", &diags[..1]);
            assert_eq!(record.expect("a record").ops.len(), N);
        });
        finishes("EPD ptp", 60, || {
            let pairs: String = (0..N).map(|i| format!(" T{i} \"x\"")).collect();
            let (record, diags) = read_line_unbounded(&format!("{START} ptp{pairs};"), 1);
            assert!(diags.is_empty(), "{:?}", &diags[..1]);
            assert!(record.is_some());
        });
    }

    /// A record of [`MAX_RECORD_TOKENS`] tokens is read; one more, in any
    /// form (an opcode, an operand, a string with spaces counted once), is
    /// refused as too large before anything is read.
    #[test]
    fn a_record_past_the_token_bound_is_refused() {
        // The position's four fields, then opcodes with one operand each.
        let ops = (MAX_RECORD_TOKENS - 4) / 2;
        let distinct =
            |n: usize| -> String { (0..n).map(|i| format!(" x{i} \"a b c\";")).collect() };
        let at_bound = format!("{START}{}", distinct(ops));
        assert!(!too_many_tokens(&at_bound));
        let (record, diags) = read_line(&at_bound, 7);
        assert_eq!(record.expect("read").ops.len(), ops);
        assert!(
            diags.iter().all(|d| d.code != Code::TooLarge),
            "{:?}",
            &diags[..1]
        );
        for past in [
            format!("{at_bound} noop;"),
            format!("{at_bound}\tnoop"),
            format!("{START}{} noop", distinct(ops)),
            format!("{START} pv{}", " e4".repeat(MAX_RECORD_TOKENS)),
            format!("{START}{}", "a;".repeat(MAX_RECORD_TOKENS)),
        ] {
            assert!(too_many_tokens(&past));
            let (record, diags) = read_line(&past, 7);
            assert!(record.is_none());
            assert_eq!(diags.len(), 1, "{diags:?}");
            assert_eq!(diags[0].code, Code::TooLarge);
            assert_eq!(diags[0].location, LineCol { line: 7, column: 1 });
            assert!(
                diags[0].message.contains("more than 100000"),
                "{}",
                diags[0].message
            );
            assert_eq!(operation_spans(&past), None);
        }
        // A long string is one token, however many words it holds.
        let comment = format!("{START} c0 \"{}\";", "word ".repeat(3 * MAX_RECORD_TOKENS));
        assert!(!too_many_tokens(&comment));
        let (_, diags) = read_line(&comment, 1);
        assert!(diags.iter().all(|d| d.code != Code::TooLarge), "{diags:?}");
        let escaped = format!("{START} c0 \"{}\";", "\\\" x ".repeat(MAX_RECORD_TOKENS));
        assert!(!too_many_tokens(&escaped));
    }

    /// A streamed line's messages give the column of the fault's byte: a
    /// Windows-1252 line is read as UTF-8 text (two bytes for `é`), and
    /// its columns were the text's (40 here for the byte's 38). A
    /// byte-order mark is not counted, as the text reader does not.
    #[test]
    fn streamed_lines_give_the_column_of_the_byte() {
        let text: &[u8] = b"8/8/8/8/8/8/8/K1k5 w - - c0 \"\xe9\xe9\"; bm Zz9;\n\xEF\xBB\xBF8/8/8/8/8/8/8/K1k5 w - - bm Zz9;\n";
        let columns: Vec<u64> = read_lines_from(text)
            .flat_map(|line| line.unwrap().diagnostics)
            .map(|d| d.location.column)
            .collect();
        assert_eq!(columns, [38, 29]);
        // The same as the text reader's (the fuzz target compares them:
        // counting the mark gave 5 for its 2 here).
        for line in ["\u{FEFF}8/8/8/8/8/8/8/K1k5 w - - bm Zz9;", "\u{FEFF}\u{1a}"] {
            let whole: Vec<u64> = read_lines(&decode(line.as_bytes()))
                .flat_map(|l| l.diagnostics)
                .map(|d| d.location.column)
                .collect();
            let streamed: Vec<u64> = read_lines_from(line.as_bytes())
                .flat_map(|l| l.unwrap().diagnostics)
                .map(|d| d.location.column)
                .collect();
            assert_eq!(whole, streamed, "{line:?}");
        }
    }
}
