//! ChessBase DOS formats: CBF/CBI game files and FBK opening files.
//!
//! Specs: `chessbase-cbf-cbi-fbk-1993.txt` and the facts gathered in
//! `chessbase-notes.md`. Multi-byte integers are big-endian.
//!
//! * [`read_cbf`] / [`write_cbf`]: a CBI index and its CBF game file to and
//!   from [`Game`]s.
//! * [`read_fbk`] / [`write_fbk`]: an opening tree to and from one game whose
//!   variations are the tree.
//!
//! Readers never panic and bound every length field by the input; each
//! problem is an [`Issue`] with a byte offset. Writers report, per game,
//! everything that does not fit (never cutting silently).
//!
//! What maps to what (CBF):
//!
//! | CBF | model |
//! |---|---|
//! | player text `White-Black` (cp850) | `White`, `Black` (split at the first ` - `, else the first `-`); raw text in `CBPlayers` when the split does not give it back |
//! | source text | `Event`, with a `(digits./\)` group as `Round`; raw text in `CBSource` when needed; `Site` is `?` |
//! | year (127 = none) | `Date` `YYYY.??.??` |
//! | result 0/1/2 | `0-1`, `1/2-1/2`, `1-0` |
//! | result 3 + variant in bits 2-5 | nearest result (`+-` 1-0, `-+` 0-1, `=` 1/2-1/2, else `*`), the variant's position NAG on the last main-line move (a root comment when there is none), raw byte in `CBResult` |
//! | Elo byte x > 0 | `WhiteElo`/`BlackElo` = 1600 + 5x |
//! | ECO1/ECO2 | `ECO` `A00`..`E99`, sub-code in `CBEcoSub` when not 0 |
//! | marked, deleted, version bit | `CBMarked`, `CBDeleted`, `CBVersion` = `1` |
//! | magic byte | `CBMagic` when it is not the public checksum |
//! | move count byte | `CBMoveCount` when it differs from the main line |
//! | start position | `SetUp` `1`, `FEN` |
//! | move/position/extra evaluation | NAGs (`[%cbeval M P E]` comment command when NAGs cannot give the triple back) |
//! | comment text | the move's comment after it (177-182 as K Q N B R P, 0xFE as a line break) |

pub mod comments;
pub mod fbk;
pub mod header;
pub mod index;
pub mod moves;
pub mod order;
pub mod reader;
pub mod setup;
pub mod text;
pub mod writer;

use std::fmt;

pub use fbk::{FbkCheck, FbkWriter, check_fbk, check_fbk_each, read_fbk, write_fbk};
pub use reader::{read_cbf, read_cbf_each, read_cbf_game, read_cbf_while};
pub use writer::{CbfFiles, CbfWriter, write_cbf};

use crate::diag::{MAX_LISTED, NotListed, Severity};
#[cfg(doc)]
use crate::model::Game;

/// Which file of a pair an [`Issue`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The CBI index.
    Index,
    /// The CBF game file (or the only file of FBK and PGC).
    Data,
}

/// One problem found reading or writing a binary game file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Warning (read or written with a loss or repair) or error (a game or
    /// record could not be read or written).
    pub severity: Severity,
    /// Which file the offset is in.
    pub file: FileKind,
    /// Byte offset in that file (for writers: of the game being written, if known).
    pub offset: u64,
    /// The 1-based game number, if the issue belongs to one game.
    pub game: Option<usize>,
    /// What is wrong, and what was expected.
    pub message: String,
    /// For the issue standing for a game's issues past [`MAX_LISTED`]
    /// (a writer lists the first of one game's warnings), what it counts.
    pub not_listed: Option<Box<NotListed>>,
}

impl Issue {
    /// The errors and warnings it stands for: itself, or what it counts
    /// ([`Issue::not_listed`]).
    pub fn counts(&self) -> (u64, u64) {
        NotListed::counts_of(self.severity, self.not_listed.as_deref())
    }

    /// Adds `issue` to the issues of one game being written, or, when
    /// [`MAX_LISTED`] are listed, counts it in the issue after them (so a
    /// game of a million NAGs the target cannot hold takes the memory of
    /// its NAGs, not of a million messages). [`Issue::name_not_listed`]
    /// gives that issue its text.
    pub(crate) fn push_listed(issues: &mut Vec<Issue>, issue: Issue) {
        if issues.len() < MAX_LISTED {
            issues.push(issue);
            return;
        }
        if issues.len() == MAX_LISTED {
            issues.push(Issue {
                message: String::new(),
                not_listed: Some(Box::default()),
                ..issue.clone()
            });
        }
        if let Some(last) = issues.last_mut()
            && let Some(n) = &mut last.not_listed
        {
            n.count(issue.severity);
            last.severity = n.severity();
        }
    }

    /// Gives the issue counting those past [`MAX_LISTED`] of one game
    /// ([`Issue::push_listed`]), if any, its text; `what` names the source.
    pub(crate) fn name_not_listed(issues: &mut [Issue], what: &str) {
        if let Some(last) = issues.get_mut(MAX_LISTED)
            && let Some(n) = &last.not_listed
        {
            last.message = n.message(what, "game");
        }
    }

    /// An error.
    pub fn error(
        file: FileKind,
        offset: u64,
        game: Option<usize>,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            severity: Severity::Error,
            file,
            offset,
            game,
            message: message.into(),
            not_listed: None,
        }
    }

    /// A warning.
    pub fn warning(
        file: FileKind,
        offset: u64,
        game: Option<usize>,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            severity: Severity::Warning,
            file,
            offset,
            game,
            message: message.into(),
            not_listed: None,
        }
    }
}

impl fmt::Display for Issue {
    /// `byte OFFSET: SEVERITY: game N: MESSAGE` (prefix it with the path).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}: ", self.offset, self.severity)?;
        if let Some(g) = self.game {
            write!(f, "game {g}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Games read from a binary file, with every problem found.
#[derive(Debug, Clone, Default)]
pub struct ReadOutcome {
    /// The games that could be read (a game with an error in its moves keeps
    /// the moves before the error).
    pub games: Vec<crate::model::Game>,
    /// Problems, in file order.
    pub issues: Vec<Issue>,
}

impl ReadOutcome {
    /// Whether any issue is an error.
    pub fn has_errors(&self) -> bool {
        self.issues.iter().any(|i| i.severity == Severity::Error)
    }

    /// Adds one item of a streaming read.
    pub fn push(&mut self, item: ReadItem) {
        match item {
            ReadItem::Game(g) => self.games.push(g),
            ReadItem::Issue(i) => self.issues.push(i),
        }
    }
}

/// One item of a streaming read ([`read_cbf_each`], [`crate::pgc::read_pgc_each`]):
/// a game, or a problem, in file order. A game's issues come before it.
#[derive(Debug, Clone)]
pub enum ReadItem {
    /// A game read (possibly with errors reported before it).
    Game(crate::model::Game),
    /// A problem.
    Issue(Issue),
}

/// Where a streaming reader sends its items; once the receiver says stop,
/// it takes nothing more and the reader ends at its next item.
pub(crate) struct Sink<'f> {
    f: &'f mut dyn FnMut(ReadItem) -> std::ops::ControlFlow<()>,
    errors: bool,
    stopped: bool,
}

impl<'f> Sink<'f> {
    pub(crate) fn new(f: &'f mut dyn FnMut(ReadItem) -> std::ops::ControlFlow<()>) -> Sink<'f> {
        Sink {
            f,
            errors: false,
            stopped: false,
        }
    }

    fn send(&mut self, item: ReadItem) {
        if !self.stopped {
            self.stopped = (self.f)(item).is_break();
        }
    }

    pub(crate) fn game(&mut self, game: crate::model::Game) {
        self.send(ReadItem::Game(game));
    }

    pub(crate) fn issue(&mut self, issue: Issue) {
        self.errors |= issue.severity == Severity::Error;
        self.send(ReadItem::Issue(issue));
    }

    pub(crate) fn has_errors(&self) -> bool {
        self.errors
    }

    /// Whether the receiver asked to stop.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
pub(crate) mod tests;
