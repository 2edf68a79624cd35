//! Positions in input and the diagnostics every parser reports.
//!
//! Parsers track byte offsets ([`Span`]); line and column are computed only
//! when a diagnostic is shown ([`LineIndex`]). A [`Diagnostic`] renders as
//! `path:line:col: error: message`, the form every `check` verb prints.
//!
//! [`Diagnostic`] is the one diagnostic type of the library's readers and
//! writers (through [`crate::io`]): path, line, column, byte offset,
//! severity, a stable [`Code`] that keeps the typed cause (a SAN syntax error
//! is [`Code::SanSyntax`], an illegal move [`Code::IllegalMove`]), and the
//! message. Messages are shown with control bytes escaped ([`escape_controls`]).

use std::fmt;

/// A half-open byte range `start..end` in one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u64,
    /// Offset one past the last byte.
    pub end: u64,
}

impl Span {
    /// A span from `start` to `end`.
    pub const fn new(start: u64, end: u64) -> Span {
        Span { start, end }
    }

    /// An empty span at `offset`.
    pub const fn at(offset: u64) -> Span {
        Span {
            start: offset,
            end: offset,
        }
    }
}

/// A 1-based line and column (column counted in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, in bytes.
    pub column: u64,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Maps byte offsets of one in-memory input to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u64>,
}

impl LineIndex {
    /// Indexes the line starts of `text` (LF, CRLF and lone CR all end a line).
    pub fn new(text: &[u8]) -> LineIndex {
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                b'\n' => line_starts.push(i as u64 + 1),
                b'\r' => {
                    if text.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    line_starts.push(i as u64 + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex { line_starts }
    }

    /// An index of no text (allocates nothing): every offset is on line 1.
    pub fn empty() -> LineIndex {
        LineIndex {
            line_starts: Vec::new(),
        }
    }

    /// The line and column of byte `offset`.
    pub fn line_col(&self, offset: u64) -> LineCol {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            // Only for the empty index.
            Err(0) => {
                return LineCol {
                    line: 1,
                    column: offset + 1,
                };
            }
            Err(i) => i - 1,
        };
        LineCol {
            line: line as u64 + 1,
            column: offset - self.line_starts[line] + 1,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Severity {
    /// Worth knowing; the data was read as written.
    Warning,
    #[default]
    /// The data could not be read as written (a game, record or node was
    /// rejected or repaired).
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What kind of problem a diagnostic reports: a stable code (its
/// [`Code::as_str`] never changes meaning) that keeps the typed cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Code {
    /// Not classified further (see the message).
    #[default]
    Other,
    /// The text breaks the format's syntax.
    Syntax,
    /// A move that is not SAN (or any notation the reader knows).
    SanSyntax,
    /// A well-formed move that no legal move matches.
    IllegalMove,
    /// A move that matches more than one legal move.
    AmbiguousMove,
    /// A FEN or EPD position that cannot be read or is not legal.
    Position,
    /// A tag, property or operation value that breaks its format.
    Value,
    /// The input ends inside a game or record.
    Truncated,
    /// Text that is not valid in the declared or detected encoding.
    Encoding,
    /// A conversion had to drop or change something the target cannot hold.
    Loss,
    /// The input is clearly not of the format it was read as.
    WrongFormat,
    /// Reading stopped after too many errors.
    TooManyErrors,
    /// The input could not be opened or read (an operating-system error).
    Io,
    /// A game or record larger than the reader's bound, left out.
    TooLarge,
    /// A game of a chess variant the library does not play (its `Variant`
    /// tag), left out.
    UnsupportedVariant,
}

impl Code {
    /// The stable spelling, e.g. `illegal-move`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::Other => "other",
            Code::Syntax => "syntax",
            Code::SanSyntax => "san-syntax",
            Code::IllegalMove => "illegal-move",
            Code::AmbiguousMove => "ambiguous-move",
            Code::Position => "position",
            Code::Value => "value",
            Code::Truncated => "truncated",
            Code::Encoding => "encoding",
            Code::Loss => "loss",
            Code::WrongFormat => "wrong-format",
            Code::TooManyErrors => "too-many-errors",
            Code::Io => "io",
            Code::TooLarge => "too-large",
            Code::UnsupportedVariant => "unsupported-variant",
        }
    }
}

impl From<crate::san::SanErrorKind> for Code {
    fn from(kind: crate::san::SanErrorKind) -> Code {
        match kind {
            crate::san::SanErrorKind::Syntax => Code::SanSyntax,
            crate::san::SanErrorKind::Illegal => Code::IllegalMove,
            crate::san::SanErrorKind::Ambiguous => Code::AmbiguousMove,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message about one place in one input, ready to show.
///
/// Build one with [`Diagnostic::new`] and the `with_*` methods (or a struct
/// literal ending in `..Diagnostic::default()`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The input's name (a path, or `<stdin>`), if known.
    pub path: Option<String>,
    /// Where, as line and column.
    pub location: LineCol,
    /// What is wrong and what was expected.
    pub message: String,
    /// Byte offset in the input (of the decompressed bytes), if known.
    pub offset: Option<u64>,
    /// The kind of problem.
    pub code: Code,
    /// The 1-based number of the game or record it belongs to, if any.
    pub game: Option<u64>,
    /// Where that game or record starts, shown after the message as
    /// `(game N, line L: first line)` by readers that know it.
    pub note: Option<Box<str>>,
    /// For a message standing for the messages of a game or record past
    /// [`MAX_LISTED`], what it counts.
    pub not_listed: Option<Box<NotListed>>,
}

/// The most messages one source (the SGF parser, the SGF rule check, the
/// EPD reader) lists for one game or record; the rest are counted in one
/// message ([`Diagnostic::not_listed`]), so a game broken at each of a
/// million nodes takes the memory of its nodes, not of a million messages.
pub const MAX_LISTED: usize = 1000;

/// Messages past [`MAX_LISTED`] in one game or record, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotListed {
    /// Errors not listed.
    pub errors: u64,
    /// Warnings not listed.
    pub warnings: u64,
}

impl NotListed {
    /// The errors and warnings a message of `severity` stands for: itself,
    /// or the messages `not_listed` counts when it is such a message.
    pub fn counts_of(severity: Severity, not_listed: Option<&NotListed>) -> (u64, u64) {
        match not_listed {
            Some(n) => (n.errors, n.warnings),
            None if severity == Severity::Error => (1, 0),
            None => (0, 1),
        }
    }

    /// Counts one more message of `severity`.
    pub fn count(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }

    /// The severity of the message standing for them: an error if any is.
    pub fn severity(&self) -> Severity {
        if self.errors > 0 {
            Severity::Error
        } else {
            Severity::Warning
        }
    }

    /// The message standing for them, e.g. `and 1398 more errors from
    /// the rule check in this game, not listed (each game lists the first
    /// 1000)`; `what` names the source, `unit` the game or record.
    pub fn message(&self, what: &str, unit: &str) -> String {
        let part = |n: u64, what: &str| match n {
            0 => None,
            1 => Some(format!("1 more {what}")),
            n => Some(format!("{n} more {what}s")),
        };
        let parts: Vec<String> = [part(self.errors, "error"), part(self.warnings, "warning")]
            .into_iter()
            .flatten()
            .collect();
        format!(
            "and {} from {what} in this {unit}, not listed (each {unit} lists the first {MAX_LISTED})",
            parts.join(" and ")
        )
    }
}

impl Diagnostic {
    /// The errors and warnings it stands for: itself, or what it counts
    /// ([`Diagnostic::not_listed`]).
    pub fn counts(&self) -> (u64, u64) {
        NotListed::counts_of(self.severity, self.not_listed.as_deref())
    }

    /// A diagnostic at `location` (no path, offset or game).
    pub fn new(severity: Severity, location: LineCol, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            location,
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    /// With the input's name.
    pub fn with_path(mut self, path: impl Into<String>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }

    /// With a code.
    pub fn with_code(mut self, code: Code) -> Diagnostic {
        self.code = code;
        self
    }

    /// With a byte offset.
    pub fn with_offset(mut self, offset: u64) -> Diagnostic {
        self.offset = Some(offset);
        self
    }

    /// With the game or record number it belongs to.
    pub fn with_game(mut self, game: u64) -> Diagnostic {
        self.game = Some(game);
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: severity: message` (`path:byte N: ...` when the line
    /// is unknown (0) but the offset known, `path: ...` when neither is),
    /// control bytes escaped, then the note.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut prefix = false;
        if let Some(path) = &self.path {
            write!(f, "{}:", escape_controls(path))?;
            prefix = true;
        }
        if self.location.line > 0 {
            write!(f, "{}:", self.location)?;
            prefix = true;
        } else if let Some(offset) = self.offset {
            // Binary formats: no lines, a byte offset.
            write!(f, "byte {offset}:")?;
            prefix = true;
        }
        if prefix {
            f.write_str(" ")?;
        }
        write!(f, "{}: {}", self.severity, escape_controls(&self.message))?;
        if let Some(note) = &self.note {
            write!(f, " ({})", escape_controls(note))?;
        }
        Ok(())
    }
}

/// `text` with control characters (C0 but tab, DEL, C1) written as `\xHH` /
/// `\u{HHHH}`, so no message can move a terminal's cursor or change its
/// colours. Borrowed when there is nothing to escape.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && c != '\t';
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            if (c as u32) < 0x100 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push_str(&format!("\\u{{{:04x}}}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Set once a write to stderr failed (other than a reader gone away).
static STDERR_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes `args` to stderr, as `eprint!` does, but never panics: a failed
/// write (a full disk behind `2>file`) is remembered for
/// [`stderr_failed`], so the program can still end with an error code.
/// A broken pipe (the reader went away) is not a failure. Use [`say!`]
/// (a line) or [`say_text!`] (text as it is).
///
/// [`say!`]: crate::say
/// [`say_text!`]: crate::say_text
pub fn say(args: fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = std::io::stderr().lock().write_fmt(args)
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        STDERR_FAILED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether a write through [`say`] failed (a message was lost).
pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Like `eprintln!`, without the panic when stderr cannot be written
/// ([`diag::say`](crate::diag::say)).
#[macro_export]
macro_rules! say {
    () => {
        $crate::diag::say(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::diag::say(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Like `eprint!`, without the panic when stderr cannot be written
/// ([`diag::say`](crate::diag::say)).
#[macro_export]
macro_rules! say_text {
    ($($arg:tt)*) => {
        $crate::diag::say(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_handles_all_line_ends() {
        let idx = LineIndex::new(b"ab\ncd\r\nef\rgh");
        assert_eq!(idx.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(4), LineCol { line: 2, column: 2 });
        assert_eq!(idx.line_col(7), LineCol { line: 3, column: 1 });
        assert_eq!(idx.line_col(11), LineCol { line: 4, column: 2 });
    }

    #[test]
    fn diagnostic_renders_like_a_compiler() {
        let d = Diagnostic::new(
            Severity::Error,
            LineCol { line: 3, column: 7 },
            "illegal move",
        )
        .with_path("a.pgn");
        assert_eq!(d.to_string(), "a.pgn:3:7: error: illegal move");
        let no_line = Diagnostic::new(Severity::Warning, LineCol::default(), "x").with_path("b");
        assert_eq!(no_line.to_string(), "b: warning: x");
    }

    #[test]
    fn control_bytes_are_escaped_in_messages() {
        let d = Diagnostic::new(
            Severity::Error,
            LineCol { line: 1, column: 1 },
            "bad \u{1b}[31m\0 é\ttab",
        );
        assert_eq!(d.to_string(), "1:1: error: bad \\x1b[31m\\x00 é\ttab");
    }
}
