//! A [`Visitor`] that builds the owned [`Game`] of [`crate::model`]: tags in
//! file order, the start position from the FEN tag, the move tree with
//! variations to any depth (an explicit stack, no recursion), NAGs (suffix
//! annotations become NAGs), comments before and after moves, the result.
//!
//! Comment placement: a comment right after a move (or its NAGs) belongs
//! after that move; any other comment (before the first move, after `(`,
//! after `)`) belongs before the next move — before the first main-line move
//! that is the root's `comments_before`. Comment text is decoded per game
//! (see [`Encoding`]) and its whitespace runs collapse to one space, the
//! form the export writer can re-wrap without changing it.

use std::ops::ControlFlow;

use shakmaty::{CastlingMode, Chess, Position};

use super::check::invalid_fen_tag;
use super::reader::SliceReader;
use super::text::{Encoding, normalize_comment};
use super::visitor::{Flow, GameEnd, GameStart, Problem, RawValue, Skip, Stop, Visitor};
use crate::fen::read_fen;
use crate::model::{Comment, Game, MoveTree, NodeId, Ply, PlyMove, Tags, play_ply};
use crate::san::{ReadOptions, read_san, write_san};
use crate::variant::{self, VariantLine};

/// Options of the [`GameBuilder`].
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Options for reading SAN.
    pub san: ReadOptions,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Before,
    After,
}

#[derive(Debug, Clone)]
struct Frame {
    cur: NodeId,
    pos: Chess,
    before: Chess,
}

/// Builds one [`Game`] per game visited (`None` for failed games).
#[derive(Debug, Clone)]
pub struct GameBuilder {
    opts: BuildOptions,
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    comments: Vec<(NodeId, Slot, Vec<u8>)>,
    pending: Vec<Vec<u8>>,
    tree: MoveTree,
    cur: NodeId,
    pos: Chess,
    before: Chess,
    after_move: bool,
    stack: Vec<Frame>,
    start: Chess,
    mode: CastlingMode,
    /// The game of a lichess variant (its `Variant` tag), played by its
    /// rules; `start` and `pos` then only stand in for it.
    variant: Option<Box<VariantLine>>,
}

impl Default for GameBuilder {
    fn default() -> GameBuilder {
        GameBuilder::new(BuildOptions::default())
    }
}

impl GameBuilder {
    /// A builder with these options.
    pub fn new(opts: BuildOptions) -> GameBuilder {
        GameBuilder {
            opts,
            tags: Vec::new(),
            comments: Vec::new(),
            pending: Vec::new(),
            tree: MoveTree::new(),
            cur: NodeId::ROOT,
            pos: Chess::default(),
            before: Chess::default(),
            after_move: false,
            stack: Vec::new(),
            start: Chess::default(),
            mode: CastlingMode::Standard,
            variant: None,
        }
    }

    fn flush_pending(&mut self, node: NodeId) {
        for text in self.pending.drain(..) {
            self.comments.push((node, Slot::Before, text));
        }
    }
}

impl GameBuilder {
    /// Starts a game of a lichess variant: its `FEN` tag read by the
    /// variant's rules, else the variant's start position.
    #[cold]
    fn begin_variant(&mut self, v: variant::Variant) -> Flow {
        let fen = self
            .tags
            .iter()
            .find(|(n, _)| n == b"FEN")
            .map(|(_, fen)| fen.as_slice());
        match variant::start_position(v, fen) {
            Ok(start) => {
                self.start = variant::stand_in(&start);
                self.mode = start.castles().mode();
                self.pos = self.start.clone();
                self.before = self.start.clone();
                self.variant = Some(Box::new(VariantLine::new(start)));
                Flow::Continue(())
            }
            Err(e) => invalid_fen_tag(e),
        }
    }

    /// Reads a move of a variant game and adds it to the tree.
    #[cold]
    fn variant_san(&mut self, san: &[u8]) -> Flow {
        let Some(line) = self.variant.as_deref_mut() else {
            return Flow::Continue(());
        };
        let (m, nag) = match line.read(san) {
            Ok(read) => read,
            Err((code, message)) => return Flow::Break(Stop::Invalid(code, message)),
        };
        line.play(m);
        let mut canonical = String::new();
        variant::write_san_to(line.before(), m, line.position(), &mut canonical);
        self.add_move(PlyMove::Move(m), canonical, nag);
        Flow::Continue(())
    }

    /// Adds a move under the current node, with the comments waiting for
    /// it and its suffix NAG, and makes it the current node.
    fn add_move(&mut self, mv: PlyMove, san: String, nag: Option<u8>) {
        let node = self.tree.add_child(
            self.cur,
            Ply {
                mv,
                san,
                written: None,
            },
        );
        if !self.pending.is_empty() {
            let target = if self.cur == NodeId::ROOT && self.stack.is_empty() {
                NodeId::ROOT
            } else {
                node
            };
            self.flush_pending(target);
        }
        if let Some(nag) = nag {
            self.tree.node_mut(node).nags.push(nag);
        }
        self.cur = node;
        self.after_move = true;
    }
}

impl Visitor for GameBuilder {
    type Output = Option<Game>;

    fn begin_game(&mut self, _: GameStart) -> Flow {
        self.tags.clear();
        self.comments.clear();
        self.pending.clear();
        self.tree = MoveTree::new();
        self.cur = NodeId::ROOT;
        self.after_move = false;
        self.stack.clear();
        self.start = Chess::default();
        self.mode = CastlingMode::Standard;
        self.variant = None;
        Flow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: RawValue<'_>) -> Flow {
        self.tags
            .push((name.to_vec(), value.unescape().into_owned()));
        Flow::Continue(())
    }

    fn begin_movetext(&mut self) -> Flow {
        if let Some((_, tag)) = self.tags.iter().find(|(n, _)| n == b"Variant") {
            match variant::variant_of_bytes(tag) {
                Ok(None) => {}
                Ok(Some(v)) => return self.begin_variant(v),
                Err(()) => {
                    let (code, message) = variant::unsupported(tag);
                    return Flow::Break(Stop::Invalid(code, message));
                }
            }
        }
        if let Some((_, fen)) = self.tags.iter().find(|(n, _)| n == b"FEN") {
            let text = String::from_utf8_lossy(fen);
            match read_fen(&text) {
                Ok((pos, mode)) => {
                    self.start = pos;
                    self.mode = mode;
                }
                Err(e) => return invalid_fen_tag(e),
            }
        }
        self.pos = self.start.clone();
        self.before = self.start.clone();
        Flow::Continue(())
    }

    fn san(&mut self, san: &[u8], _offset: u64) -> Flow {
        if self.variant.is_some() {
            return self.variant_san(san);
        }
        let read = match read_san(&self.pos, san, &self.opts.san) {
            Ok(read) => read,
            Err(e) => {
                return Flow::Break(Stop::Invalid(
                    e.kind.into(),
                    format!("illegal move {}: {e}", crate::excerpt::excerpt(san)),
                ));
            }
        };
        let canonical = write_san(&self.pos, read.mv);
        self.add_move(read.mv, canonical, read.nag);
        self.before = self.pos.clone();
        match read.mv {
            PlyMove::Move(m) => self.pos.play_unchecked(m),
            PlyMove::Null => self.pos = play_ply(&self.pos, read.mv),
        }
        Flow::Continue(())
    }

    fn nag(&mut self, nag: u8) -> Flow {
        if self.cur != NodeId::ROOT {
            self.tree.node_mut(self.cur).nags.push(nag);
        }
        Flow::Continue(())
    }

    fn comment(&mut self, text: &[u8]) -> Flow {
        if self.after_move {
            self.comments.push((self.cur, Slot::After, text.to_vec()));
        } else {
            self.pending.push(text.to_vec());
        }
        Flow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<Stop, Skip> {
        let Some(parent) = self.tree.node(self.cur).parent() else {
            return ControlFlow::Break(Stop::Error("variation before any move".into()));
        };
        let before = self.before.clone();
        self.stack.push(Frame {
            cur: self.cur,
            pos: std::mem::replace(&mut self.pos, before),
            before: self.before.clone(),
        });
        self.cur = parent;
        self.after_move = false;
        if let Some(line) = self.variant.as_deref_mut() {
            line.begin_variation();
        }
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> Flow {
        if !self.pending.is_empty() {
            // Comments of an empty variation: keep them after its move.
            let cur = self.cur;
            for text in self.pending.drain(..) {
                self.comments.push((cur, Slot::After, text));
            }
        }
        if let Some(line) = self.variant.as_deref_mut() {
            line.end_variation();
        }
        if let Some(frame) = self.stack.pop() {
            self.cur = frame.cur;
            self.pos = frame.pos;
            self.before = frame.before;
        }
        self.after_move = false;
        Flow::Continue(())
    }

    fn end_game(&mut self, end: GameEnd<'_>) -> Option<Game> {
        if end.failed {
            return None;
        }
        let slot = if self.cur == NodeId::ROOT {
            Slot::Before
        } else {
            Slot::After
        };
        for text in std::mem::take(&mut self.pending) {
            self.comments.push((self.cur, slot, text));
        }
        let encoding = Encoding::detect(
            self.tags
                .iter()
                .map(|(_, v)| v.as_slice())
                .chain(self.comments.iter().map(|(_, _, c)| c.as_slice())),
        );
        let mut tree = std::mem::take(&mut self.tree);
        for (node, slot, text) in self.comments.drain(..) {
            let comment = Comment::new(normalize_comment(&encoding.decode(&text)));
            let node = tree.node_mut(node);
            match slot {
                Slot::Before => node.comments_before.push(comment),
                Slot::After => node.comments_after.push(comment),
            }
        }
        let mut tags = Tags::new();
        for (name, value) in self.tags.drain(..) {
            tags.push(encoding.decode(&name), encoding.decode(&value));
        }
        Some(Game {
            tags,
            start: std::mem::take(&mut self.start),
            castling_mode: self.mode,
            tree,
            result: end.result,
        })
    }
}

/// Reads every game of `data`: the games that read without error, and the
/// problems (warnings, and one error per failed game) of all games.
pub fn read_games(data: &[u8]) -> (Vec<Game>, Vec<Problem>) {
    let mut reader = SliceReader::new(data);
    let mut builder = GameBuilder::default();
    let mut games = Vec::new();
    let mut problems = Vec::new();
    while let Some(game) = reader.read_game(&mut builder) {
        problems.extend_from_slice(reader.problems());
        games.extend(game);
    }
    (games, problems)
}
