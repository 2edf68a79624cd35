//! The push API of the PGN reader: a [`Visitor`] receives the tokens of one
//! game at a time as borrowed slices and decides, token by token, whether to
//! go on, skip the rest of the game or fail it with a reason.

use std::borrow::Cow;
use std::ops::ControlFlow;

use crate::diag::{Code, Severity};
use crate::model::GameResult;

/// Why a visitor stops reading the current game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Skip the rest of the game quietly (the game still ends normally).
    SkipGame,
    /// The game is invalid here: the reader records an error at the current
    /// token with this reason and resynchronises at the next game.
    Error(String),
    /// Like [`Stop::Error`], with the kind of problem (the reader's
    /// [`Problem::code`]): a SAN syntax error stays distinct from an
    /// illegal move.
    Invalid(Code, String),
}

/// What every visitor method returns: go on, or [`Stop`].
pub type Flow = ControlFlow<Stop>;

/// Whether to skip a variation (answer of [`Visitor::begin_variation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Skip(pub bool);

/// A tag value as written between its quotes, escapes not yet resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawValue<'a>(pub &'a [u8]);

impl<'a> RawValue<'a> {
    /// The bytes as written (with `\"` and `\\` escapes).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The value with `\"` and `\\` resolved (a backslash before any other
    /// byte is kept). Borrows when there is no escape.
    pub fn unescape(&self) -> Cow<'a, [u8]> {
        if memchr::memchr(b'\\', self.0).is_none() {
            return Cow::Borrowed(self.0);
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut i = 0;
        while i < self.0.len() {
            let b = self.0[i];
            if b == b'\\' && matches!(self.0.get(i + 1), Some(b'"' | b'\\')) {
                out.push(self.0[i + 1]);
                i += 2;
            } else {
                out.push(b);
                i += 1;
            }
        }
        Cow::Owned(out)
    }
}

/// Where a game starts (given to [`Visitor::begin_game`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameStart {
    /// 0-based number of the game in this reader.
    pub index: u64,
    /// Byte offset of its first token.
    pub offset: u64,
}

/// One problem found in a game, at a byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Warning or error (an error fails the game).
    pub severity: Severity,
    /// Byte offset of the offending token in the input.
    pub offset: u64,
    /// What is wrong and what was expected.
    pub message: String,
    /// The kind of problem ([`Code::Syntax`] for the reader's own errors).
    pub code: Code,
}

/// How a game ended (given to [`Visitor::end_game`]).
#[derive(Debug, Clone, Copy)]
pub struct GameEnd<'r> {
    /// 0-based number of the game in this reader.
    pub index: u64,
    /// Byte offset of its first token.
    pub offset: u64,
    /// The termination marker, if one was read.
    pub result: Option<GameResult>,
    /// Whether an error failed the game.
    pub failed: bool,
    /// Warnings and (at most one) error of this game, in input order.
    pub problems: &'r [Problem],
}

/// Receives one game at a time from a [`SliceReader`](super::SliceReader)
/// or [`Reader`](super::Reader). Every method except [`Visitor::end_game`]
/// has a default that accepts and ignores its token.
///
/// Slices borrow the reader's buffer: nothing is allocated per token. Move
/// numbers, periods and whitespace are not delivered.
pub trait Visitor {
    /// What [`Visitor::end_game`] makes of a game.
    type Output;

    /// A game begins. `Break(Stop::SkipGame)` skips it entirely.
    fn begin_game(&mut self, start: GameStart) -> Flow {
        let _ = start;
        Flow::Continue(())
    }

    /// A tag pair; `name` as written, `value` with escapes unresolved.
    fn tag(&mut self, name: &[u8], value: RawValue<'_>) -> Flow {
        let _ = (name, value);
        Flow::Continue(())
    }

    /// The tag section is over; movetext follows.
    fn begin_movetext(&mut self) -> Flow {
        Flow::Continue(())
    }

    /// A move as written (SAN, possibly with a suffix annotation like `!?`),
    /// at byte `offset`.
    fn san(&mut self, san: &[u8], offset: u64) -> Flow {
        let _ = (san, offset);
        Flow::Continue(())
    }

    /// A Numeric Annotation Glyph `$n`.
    fn nag(&mut self, nag: u8) -> Flow {
        let _ = nag;
        Flow::Continue(())
    }

    /// Whether [`Visitor::comment`] wants comment text. When `false` the
    /// reader only finds each comment's end (fast, and bounded memory).
    fn wants_comments(&self) -> bool {
        true
    }

    /// A comment without its delimiters (`{...}` or `;...` to the line end).
    fn comment(&mut self, text: &[u8]) -> Flow {
        let _ = text;
        Flow::Continue(())
    }

    /// A variation `(` opens after a move; answer `Skip(true)` to skip it.
    fn begin_variation(&mut self) -> ControlFlow<Stop, Skip> {
        ControlFlow::Continue(Skip(false))
    }

    /// The variation closes with `)`.
    fn end_variation(&mut self) -> Flow {
        Flow::Continue(())
    }

    /// The game is over (always called once per [`Visitor::begin_game`]).
    fn end_game(&mut self, end: GameEnd<'_>) -> Self::Output;
}

/// A visitor that reads nothing: it finds game boundaries only.
#[derive(Debug, Default, Clone, Copy)]
pub struct SkipAll;

impl Visitor for SkipAll {
    type Output = ();
    fn begin_game(&mut self, _: GameStart) -> Flow {
        Flow::Break(Stop::SkipGame)
    }
    fn wants_comments(&self) -> bool {
        false
    }
    fn end_game(&mut self, _: GameEnd<'_>) {}
}
