//! Positions in input and the diagnostics every parser reports.
//!
//! Parsers track byte offsets ([`Span`]); line and column are computed only
//! when a diagnostic is shown ([`LineIndex`]). A [`Diagnostic`] renders as
//! `path:line:col: error: message`, the form every `check` verb prints.

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; the data was read as written.
    Warning,
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

/// One message about one place in one input, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The input's name (a path, or `<stdin>`), if known.
    pub path: Option<String>,
    /// Where, as line and column.
    pub location: LineCol,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{path}:")?;
        }
        write!(f, "{}: {}: {}", self.location, self.severity, self.message)
    }
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
        let d = Diagnostic {
            severity: Severity::Error,
            path: Some("a.pgn".into()),
            location: LineCol { line: 3, column: 7 },
            message: "illegal move".into(),
        };
        assert_eq!(d.to_string(), "a.pgn:3:7: error: illegal move");
    }
}
