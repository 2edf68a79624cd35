//! The legality checker behind `gamerec check`: a [`Visitor`] that resolves
//! and plays every move, variations included (each from the position before
//! the move it replaces), without building a game tree.

use std::ops::ControlFlow;

use shakmaty::{Chess, Position};

use super::visitor::{Flow, GameEnd, GameStart, RawValue, Skip, Stop, Visitor};
use crate::fen::read_fen;
use crate::model::{PlyMove, Tags, play_ply};
use crate::pgn::tags::{TagWarning, check_tags};
use crate::san::{Language, ReadOptions, read_canonical_move, read_san};

/// What the checker verifies.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Check the moves of variations too (default). When `false` variations
    /// are skipped, the work `pgn-reader`-based checkers do.
    pub variations: bool,
    /// Options for reading SAN.
    pub san: ReadOptions,
    /// Also check tag values against their formats
    /// ([`crate::pgn::tags::check_tags`]; `gamerec check --strict`).
    pub strict: bool,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            variations: true,
            san: ReadOptions::default(),
            strict: false,
        }
    }
}

/// Counts of one checked game.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checked {
    /// Main-line moves resolved and played.
    pub moves: u64,
    /// Whether an error failed the game.
    pub failed: bool,
    /// Tag values that break their formats (only with `strict`).
    pub tag_warnings: Vec<TagWarning>,
}

/// Resolves and plays every move of every game it visits.
#[derive(Debug, Clone, Default)]
pub struct Checker {
    opts: CheckOptions,
    start: Option<Chess>,
    pos: Chess,
    before: Chess,
    stack: Vec<(Chess, Chess)>,
    moves: u64,
    tags: Tags,
}

impl Checker {
    /// A checker with these options.
    pub fn new(opts: CheckOptions) -> Checker {
        Checker {
            opts,
            ..Checker::default()
        }
    }

    fn play(&mut self, mv: PlyMove) {
        if self.opts.variations {
            self.before.clone_from(&self.pos);
        }
        match mv {
            PlyMove::Move(m) => self.pos.play_unchecked(m),
            PlyMove::Null => self.pos = play_ply(&self.pos, mv),
        }
    }
}

impl Visitor for Checker {
    type Output = Checked;

    fn begin_game(&mut self, _: GameStart) -> Flow {
        self.start = None;
        self.stack.clear();
        self.moves = 0;
        if self.opts.strict {
            self.tags = Tags::new();
        }
        Flow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: RawValue<'_>) -> Flow {
        if self.opts.strict {
            let text = String::from_utf8_lossy(&value.unescape()).into_owned();
            self.tags.push(String::from_utf8_lossy(name), text);
        }
        if name == b"FEN" {
            let value = value.unescape();
            let fen = std::str::from_utf8(&value).unwrap_or("");
            match read_fen(fen) {
                Ok((pos, _mode)) => self.start = Some(pos),
                Err(e) => {
                    return Flow::Break(Stop::Invalid(
                        crate::diag::Code::Position,
                        format!("invalid FEN tag: {e}"),
                    ));
                }
            }
        }
        Flow::Continue(())
    }

    fn begin_movetext(&mut self) -> Flow {
        self.pos = self.start.take().unwrap_or_default();
        Flow::Continue(())
    }

    #[inline]
    fn san(&mut self, san: &[u8], _offset: u64) -> Flow {
        if self.opts.san.languages.contains(Language::English)
            && let Some(mv) = read_canonical_move(&self.pos, san)
        {
            if self.stack.is_empty() {
                self.moves += 1;
            }
            self.play(PlyMove::Move(mv));
            return Flow::Continue(());
        }
        match read_san(&self.pos, san, &self.opts.san) {
            Ok(read) => {
                if self.stack.is_empty() {
                    self.moves += 1;
                }
                self.play(read.mv);
                Flow::Continue(())
            }
            Err(e) => Flow::Break(Stop::Invalid(
                e.kind.into(),
                format!("illegal move {}: {e}", crate::excerpt::excerpt(san)),
            )),
        }
    }

    fn wants_comments(&self) -> bool {
        false
    }

    fn begin_variation(&mut self) -> ControlFlow<Stop, Skip> {
        if !self.opts.variations {
            return ControlFlow::Continue(Skip(true));
        }
        let pos = std::mem::replace(&mut self.pos, self.before.clone());
        self.stack.push((self.before.clone(), pos));
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> Flow {
        if let Some((before, pos)) = self.stack.pop() {
            self.before = before;
            self.pos = pos;
        }
        Flow::Continue(())
    }

    fn end_game(&mut self, end: GameEnd<'_>) -> Checked {
        Checked {
            moves: self.moves,
            failed: end.failed,
            tag_warnings: if self.opts.strict {
                check_tags(&self.tags)
            } else {
                Vec::new()
            },
        }
    }
}
