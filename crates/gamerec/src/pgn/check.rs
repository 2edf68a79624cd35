//! The legality checker behind `gamerec check`: a [`Visitor`] that resolves
//! and plays every move, variations included (each from the position before
//! the move it replaces), without building a game tree.

use std::ops::ControlFlow;

use super::visitor::{Flow, GameEnd, GameStart, RawValue, Skip, Stop, Visitor};
use crate::fen::read_fen;
use crate::model::{PlyMove, Tags};
use crate::pgn::tags::{ListedTagWarnings, TagWarning, check_tags_listed};
use crate::san::fastpos::{FastPos, Undo};
use crate::san::{Language, ReadOptions, read_canonical_move_in, read_san};
use crate::variant::{self, VariantLine};

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
    /// Tag values that break their formats (only with `strict`): the
    /// first [`crate::diag::MAX_LISTED`] of the game.
    pub tag_warnings: Vec<TagWarning>,
    /// How many more tag warnings the game has, not listed.
    pub tag_warnings_not_listed: u64,
}

/// Resolves and plays every move of every game it visits.
#[derive(Debug, Clone, Default)]
pub struct Checker {
    opts: CheckOptions,
    /// The position (shakmaty's `Chess` is made from it only for moves the
    /// hot path leaves to the full SAN reader).
    pos: FastPos,
    /// How to take back the last move: a variation that follows starts from
    /// the position before it (a few words kept per move, not a position).
    last: Option<Undo>,
    /// The positions (and their last moves) that open variations return to.
    stack: Vec<(FastPos, Option<Undo>)>,
    moves: u64,
    tags: Tags,
    /// The game's first `FEN` and `Variant` tag values (unescaped; the
    /// buffers are kept from game to game).
    fen: Vec<u8>,
    has_fen: bool,
    variant_tag: Vec<u8>,
    has_variant: bool,
    /// The game of a lichess variant being played (its `Variant` tag);
    /// standard games never touch it.
    variant: Option<Box<VariantLine>>,
}

impl Checker {
    /// A checker with these options.
    pub fn new(opts: CheckOptions) -> Checker {
        Checker {
            opts,
            ..Checker::default()
        }
    }

    #[inline(always)]
    fn play(&mut self, mv: PlyMove) {
        if self.opts.variations {
            self.last = Some(self.pos.undo_info(mv));
        }
        match mv {
            PlyMove::Move(m) => self.pos.play(m),
            PlyMove::Null => self.pos.play_ply(mv),
        }
    }
}

/// Stops a game whose `FEN` tag cannot be read (by its variant's rules).
pub(crate) fn invalid_fen_tag(e: impl std::fmt::Display) -> Flow {
    Flow::Break(Stop::Invalid(
        crate::diag::Code::Position,
        format!("invalid FEN tag: {e}"),
    ))
}

impl Checker {
    /// Starts a standard-chess (or Chess960) game: from its FEN tag, if any.
    fn begin_standard(&mut self) -> Flow {
        self.pos = match self.has_fen {
            false => FastPos::default(),
            true => match read_fen(std::str::from_utf8(&self.fen).unwrap_or("")) {
                Ok((pos, mode)) => FastPos::from_chess(&pos, mode),
                Err(e) => return invalid_fen_tag(e),
            },
        };
        Flow::Continue(())
    }

    /// Starts the game of a `Variant` tag: a lichess variant is played by
    /// its rules from then on; standard chess and Chess960 stay here; any
    /// other name fails the game.
    #[cold]
    fn begin_variant(&mut self) -> Flow {
        let tag = &self.variant_tag;
        match variant::variant_of_bytes(tag) {
            Err(()) => {
                let (code, message) = variant::unsupported(tag);
                Flow::Break(Stop::Invalid(code, message))
            }
            Ok(None) => self.begin_standard(),
            Ok(Some(v)) => {
                match variant::start_position(v, self.has_fen.then_some(&self.fen[..])) {
                    Ok(start) => {
                        self.variant = Some(Box::new(VariantLine::new(start)));
                        Flow::Continue(())
                    }
                    Err(e) => invalid_fen_tag(e),
                }
            }
        }
    }

    /// Reads and plays a move of a variant game.
    #[cold]
    fn variant_san(&mut self, san: &[u8]) -> Flow {
        let Some(line) = self.variant.as_deref_mut() else {
            return Flow::Continue(());
        };
        match line.read(san) {
            Ok((m, _)) => {
                if !line.in_variation() {
                    self.moves += 1;
                }
                line.play(m);
                Flow::Continue(())
            }
            Err((code, message)) => Flow::Break(Stop::Invalid(code, message)),
        }
    }
}

impl Visitor for Checker {
    type Output = Checked;

    fn begin_game(&mut self, _: GameStart) -> Flow {
        self.has_fen = false;
        self.has_variant = false;
        self.variant = None;
        self.stack.clear();
        self.last = None;
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
        // Both are read when the movetext begins: a FEN tag is read by the
        // rules of a `Variant` tag that may follow it.
        if name == b"Variant" && !self.has_variant {
            self.has_variant = true;
            self.variant_tag.clear();
            self.variant_tag.extend_from_slice(&value.unescape());
        } else if name == b"FEN" && !self.has_fen {
            self.has_fen = true;
            self.fen.clear();
            self.fen.extend_from_slice(&value.unescape());
        }
        Flow::Continue(())
    }

    fn begin_movetext(&mut self) -> Flow {
        if self.has_variant {
            return self.begin_variant();
        }
        self.begin_standard()
    }

    #[inline]
    fn san(&mut self, san: &[u8], _offset: u64) -> Flow {
        if self.variant.is_some() {
            return self.variant_san(san);
        }
        if self.opts.san.languages.contains(Language::English)
            && let Some(mv) = read_canonical_move_in(&self.pos, san)
        {
            if self.stack.is_empty() {
                self.moves += 1;
            }
            self.play(PlyMove::Move(mv));
            return Flow::Continue(());
        }
        let Some(pos) = self.pos.rebuild_chess() else {
            return Flow::Break(Stop::Invalid(
                crate::diag::Code::Position,
                format!(
                    "move {}: the position before it cannot be rebuilt",
                    crate::excerpt::excerpt(san)
                ),
            ));
        };
        match read_san(&pos, san, &self.opts.san) {
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
        if let Some(line) = self.variant.as_deref_mut() {
            line.begin_variation();
            return ControlFlow::Continue(Skip(false));
        }
        let after = self.pos;
        if let Some(undo) = &self.last {
            self.pos.undo(undo);
        }
        self.stack.push((after, self.last.take()));
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> Flow {
        if let Some(line) = self.variant.as_deref_mut() {
            line.end_variation();
            return Flow::Continue(());
        }
        if let Some((pos, last)) = self.stack.pop() {
            self.pos = pos;
            self.last = last;
        }
        Flow::Continue(())
    }

    fn end_game(&mut self, end: GameEnd<'_>) -> Checked {
        let tags = if self.opts.strict {
            check_tags_listed(&self.tags)
        } else {
            ListedTagWarnings::default()
        };
        Checked {
            moves: self.moves,
            failed: end.failed,
            tag_warnings: tags.listed,
            tag_warnings_not_listed: tags.not_listed,
        }
    }
}
