//! The chess game model every chess codec reads into and writes from.
//!
//! A [`Game`] holds its tags in file order, its starting position, a
//! [`MoveTree`] (main line plus variations nested to any depth, stored in an
//! arena so no operation recurses) and its result.
//!
//! Node 0 of a tree is the root: it carries no move, only the comments that
//! stand before the first move. Every other node is one ply. The first child
//! of a node is the main continuation; further children are variations
//! (PGN RAVs) that replace that continuation.

use std::fmt;
use std::str::FromStr;

use shakmaty::{CastlingMode, Chess, FromSetup, Move, Position};

/// One tag pair, `[Name "value"]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tag {
    /// The tag name as written.
    pub name: String,
    /// The value with escapes resolved.
    pub value: String,
}

/// Tag pairs in file order; duplicates and unknown tags are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Tags {
    list: Vec<Tag>,
}

impl Tags {
    /// No tags.
    pub fn new() -> Tags {
        Tags::default()
    }

    /// The value of the first tag called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.list
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.value.as_str())
    }

    /// Appends a tag, keeping any earlier tag of the same name.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.list.push(Tag {
            name: name.into(),
            value: value.into(),
        });
    }

    /// Sets the first tag called `name`, or appends it.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        match self.list.iter_mut().find(|t| t.name == name) {
            Some(tag) => tag.value = value.into(),
            None => self.push(name, value),
        }
    }

    /// Removes every tag called `name`; returns the first value removed.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        let first = self
            .list
            .iter()
            .position(|t| t.name == name)
            .map(|i| self.list[i].value.clone());
        self.list.retain(|t| t.name != name);
        first
    }

    /// The tags in file order.
    pub fn iter(&self) -> std::slice::Iter<'_, Tag> {
        self.list.iter()
    }

    /// The tags in file order, mutably.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Tag> {
        self.list.iter_mut()
    }

    /// How many tags.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are no tags.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

impl<'a> IntoIterator for &'a Tags {
    type Item = &'a Tag;
    type IntoIter = std::slice::Iter<'a, Tag>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl FromIterator<Tag> for Tags {
    fn from_iter<I: IntoIterator<Item = Tag>>(iter: I) -> Tags {
        Tags {
            list: iter.into_iter().collect(),
        }
    }
}

impl<N: Into<String>, V: Into<String>> FromIterator<(N, V)> for Tags {
    /// Tags from `(name, value)` pairs, in order.
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Tags {
        let mut tags = Tags::new();
        for (name, value) in iter {
            tags.push(name, value);
        }
        tags
    }
}

/// A game's result: the PGN termination marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: unknown, ongoing or abandoned.
    Unknown,
}

impl GameResult {
    /// The PGN spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text is not one of `1-0`, `0-1`, `1/2-1/2`, `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseResultError;

impl fmt::Display for ParseResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected a result: 1-0, 0-1, 1/2-1/2 or *")
    }
}

impl std::error::Error for ParseResultError {}

impl FromStr for GameResult {
    type Err = ParseResultError;
    fn from_str(s: &str) -> Result<GameResult, ParseResultError> {
        match s {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" => Ok(GameResult::Draw),
            "*" => Ok(GameResult::Unknown),
            _ => Err(ParseResultError),
        }
    }
}

/// What one ply does: a move, or a null move (`--`, the side to move passes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlyMove {
    /// A legal move in the position before it.
    Move(Move),
    /// A null move as ChessBase and others write it (`--`).
    Null,
}

/// One ply of a game: the move, its canonical SAN and the text as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ply {
    /// The move.
    pub mv: PlyMove,
    /// Canonical SAN with check suffix (`Nf3`, `exd8=Q+`, `O-O#`, `--`).
    pub san: String,
    /// The move text as the source wrote it, when it differs from `san`.
    pub written: Option<String>,
}

/// A comment, kept exactly as written (without its delimiters). Embedded
/// commands (`[%clk 1:00:00]`) stay in the text in place; the `pgn` module
/// parses them out on demand.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Comment {
    /// The raw comment text.
    pub text: String,
}

impl Comment {
    /// A comment with this text.
    pub fn new(text: impl Into<String>) -> Comment {
        Comment { text: text.into() }
    }
}

/// Index of a node in a [`MoveTree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);
}

/// One node of the move tree: a ply (none at the root) and its annotations.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Node {
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    /// The ply that leads to this node (`None` only at the root).
    pub ply: Option<Ply>,
    /// Numeric Annotation Glyphs in order (`!` is 1, `?` is 2, ...).
    pub nags: Vec<u8>,
    /// Comments written before the move (at the root: before the first move).
    pub comments_before: Vec<Comment>,
    /// Comments written after the move.
    pub comments_after: Vec<Comment>,
}

impl Node {
    /// The parent, `None` at the root.
    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    /// Children in order: main continuation first, then variations.
    pub fn children(&self) -> &[NodeId] {
        &self.children
    }

    /// The main continuation.
    pub fn main_child(&self) -> Option<NodeId> {
        self.children.first().copied()
    }

    /// The variations: alternatives to the main continuation.
    pub fn variations(&self) -> &[NodeId] {
        self.children.get(1..).unwrap_or(&[])
    }
}

/// A tree of plies in an arena: no recursion limit, cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MoveTree {
    nodes: Vec<Node>,
}

impl Default for MoveTree {
    fn default() -> MoveTree {
        MoveTree {
            nodes: vec![Node::default()],
        }
    }
}

impl MoveTree {
    /// A tree with only the root.
    pub fn new() -> MoveTree {
        MoveTree::default()
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The root node, mutably.
    pub fn root_mut(&mut self) -> &mut Node {
        &mut self.nodes[0]
    }

    /// The node `id`.
    ///
    /// # Panics
    /// If `id` is not a node of this tree.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The node `id`, mutably.
    ///
    /// # Panics
    /// If `id` is not a node of this tree.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.0 as usize]
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds no ply.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// Adds `ply` as the last child of `parent` and returns its id. The first
    /// child added is the main continuation.
    pub fn add_child(&mut self, parent: NodeId, ply: Ply) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.push(Node {
            parent: Some(parent),
            ply: Some(ply),
            ..Node::default()
        });
        self.nodes[parent.0 as usize].children.push(id);
        id
    }

    /// The main line: the root's first child, its first child, and so on.
    pub fn mainline(&self) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.root().main_child(), move |&id| {
            crate::work::count(1);
            self.node(id).main_child()
        })
    }

    /// The path from the root (exclusive) to `id` (inclusive).
    pub fn path_to(&self, id: NodeId) -> Vec<NodeId> {
        let mut path: Vec<NodeId> =
            std::iter::successors(Some(id), |&n| self.node(n).parent).collect();
        path.pop(); // the root
        path.reverse();
        crate::work::count(path.len() as u64);
        path
    }

    /// Every node below the root in pre-order (each node before its
    /// continuation, variations in order), without recursion.
    pub fn preorder(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut stack: Vec<NodeId> = self.root().children.iter().rev().copied().collect();
        std::iter::from_fn(move || {
            let id = stack.pop()?;
            crate::work::count(1);
            stack.extend(self.node(id).children.iter().rev().copied());
            Some(id)
        })
    }

    /// Number of plies on the main line.
    pub fn mainline_len(&self) -> usize {
        self.mainline().count()
    }
}

/// Plays `mv` on a copy of `pos`. A null move passes the turn like
/// python-chess and ChessBase: the en-passant square is cleared, the
/// halfmove clock advances and so does the fullmove number after Black. A
/// null move while in check is impossible (see [`try_play_ply`]); there the
/// position is returned unchanged.
pub fn play_ply(pos: &Chess, mv: PlyMove) -> Chess {
    try_play_ply(pos, mv).unwrap_or_else(|_| pos.clone())
}

/// A null move was played while the side to move is in check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullMoveInCheck;

impl fmt::Display for NullMoveInCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a null move is impossible while in check")
    }
}

impl std::error::Error for NullMoveInCheck {}

/// Plays `mv` (legal in `pos`) on a copy of `pos`; a null move fails only
/// when the side to move is in check.
pub fn try_play_ply(pos: &Chess, mv: PlyMove) -> Result<Chess, NullMoveInCheck> {
    match mv {
        PlyMove::Move(m) => {
            let mut next = pos.clone();
            next.play_unchecked(m);
            Ok(next)
        }
        PlyMove::Null => {
            if pos.is_check() {
                return Err(NullMoveInCheck);
            }
            let mode = pos.castles().mode();
            let mut setup = pos.to_setup(shakmaty::EnPassantMode::Always);
            setup.swap_turn();
            setup.halfmoves = setup.halfmoves.saturating_add(1);
            if pos.turn() == shakmaty::Color::Black {
                setup.fullmoves = setup.fullmoves.saturating_add(1);
            }
            match Chess::from_setup(setup, mode) {
                Ok(next) => Ok(next),
                Err(e) => e.ignore_impossible_check().map_err(|_| NullMoveInCheck),
            }
        }
    }
}

/// A whole game: tags, start position, move tree and result.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Game {
    /// Tag pairs in file order.
    pub tags: Tags,
    /// The position before the first move (from FEN/SetUp, or the standard one).
    pub start: Chess,
    /// Castling notation of the start position (Chess960 or standard).
    pub castling_mode: CastlingMode,
    /// The moves.
    pub tree: MoveTree,
    /// The termination marker, if the game had one.
    pub result: Option<GameResult>,
}

impl Default for Game {
    fn default() -> Game {
        Game {
            tags: Tags::new(),
            start: Chess::default(),
            castling_mode: CastlingMode::Standard,
            tree: MoveTree::new(),
            result: None,
        }
    }
}

impl Game {
    /// An empty game from the standard position.
    pub fn new() -> Game {
        Game::default()
    }

    /// Sets the start position from the `FEN` tag (when present; a `SetUp`
    /// tag is not required, as many files omit it), detecting Chess960
    /// castling. Without a `FEN` tag the start is the standard position.
    pub fn set_start_from_tags(&mut self) -> Result<(), crate::fen::FenError> {
        if let Some(variant) = self.variant() {
            // A variant's FEN (pockets, check counters, no white king):
            // `start` stands in for it.
            let fen = self.tags.get("FEN").map(str::as_bytes);
            let start = crate::variant::start_position(variant, fen).map_err(|e| {
                crate::fen::FenError::illegal(crate::fen::FenField::Placement, 0, e)
            })?;
            self.start = crate::variant::stand_in(&start);
            self.castling_mode = start.castles().mode();
            return Ok(());
        }
        match self.tags.get("FEN") {
            Some(fen) => {
                let (pos, mode) = crate::fen::read_fen(fen)?;
                self.start = pos;
                self.castling_mode = mode;
            }
            None => {
                self.start = Chess::default();
                self.castling_mode = CastlingMode::Standard;
            }
        }
        Ok(())
    }

    /// A game with these tags, starting from their `FEN` tag if any.
    pub fn from_tags(tags: Tags) -> Result<Game, crate::fen::FenError> {
        let mut game = Game {
            tags,
            ..Game::default()
        };
        game.set_start_from_tags()?;
        Ok(game)
    }

    /// The position after node `id` (the start position for the root).
    pub fn position_at(&self, id: NodeId) -> Chess {
        self.tree
            .path_to(id)
            .into_iter()
            .fold(self.start.clone(), |pos, n| match &self.tree.node(n).ply {
                Some(ply) => play_ply(&pos, ply.mv),
                None => pos,
            })
    }

    /// Positions along the main line: for each ply, its node and the
    /// position before it.
    pub fn mainline_positions(&self) -> impl Iterator<Item = (NodeId, Chess)> + '_ {
        let mut pos = self.start.clone();
        self.tree.mainline().map(move |id| {
            let before = pos.clone();
            if let Some(ply) = &self.tree.node(id).ply {
                pos = play_ply(&pos, ply.mv);
            }
            (id, before)
        })
    }

    /// Calls `f(node, before, after)` for every ply of the tree in pre-order,
    /// variations included, without recursion.
    pub fn for_each_position(&self, mut f: impl FnMut(NodeId, &Chess, &Chess)) {
        let mut stack: Vec<(NodeId, Chess)> = self
            .tree
            .root()
            .children()
            .iter()
            .rev()
            .map(|&c| (c, self.start.clone()))
            .collect();
        while let Some((id, before)) = stack.pop() {
            let node = self.tree.node(id);
            let after = match &node.ply {
                Some(ply) => play_ply(&before, ply.mv),
                None => before.clone(),
            };
            f(id, &before, &after);
            for &c in node.children().iter().rev() {
                stack.push((c, after.clone()));
            }
        }
    }

    /// The lichess variant the game's `Variant` tag names (`None` for
    /// standard chess, Chess960 and names the library does not know). The
    /// positions of [`Game::start`], [`Game::position_at`] and the other
    /// replays are standard chess: for a variant game use
    /// [`Game::variant_mainline`].
    pub fn variant(&self) -> Option<crate::variant::Variant> {
        crate::variant::variant_of(self.tags.get("Variant")?)
            .ok()
            .flatten()
    }

    /// The main-line positions of a variant game ([`Game::variant`]) by its
    /// rules, start first (the start from its `FEN` tag); `None` for a
    /// standard game. The line stops at a move its rules do not allow.
    pub fn variant_mainline(&self) -> Option<Vec<crate::variant::VariantPosition>> {
        let variant = self.variant()?;
        let fen = self.tags.get("FEN").map(str::as_bytes);
        let Ok(mut pos) = crate::variant::start_position(variant, fen) else {
            return Some(Vec::new());
        };
        let mut out = vec![pos.clone()];
        for id in self.tree.mainline() {
            match &self.tree.node(id).ply {
                Some(Ply {
                    mv: PlyMove::Move(m),
                    ..
                }) if pos.is_legal(*m) => {
                    crate::variant::play(&mut pos, *m);
                    out.push(pos.clone());
                }
                _ => break,
            }
        }
        Some(out)
    }

    /// The final position of the main line.
    pub fn final_position(&self) -> Chess {
        match self.tree.mainline().last() {
            Some(id) => self.position_at(id),
            None => self.start.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn ply(from: Square, to: Square, san: &str) -> Ply {
        Ply {
            mv: PlyMove::Move(Move::Normal {
                role: if san.starts_with('N') {
                    Role::Knight
                } else {
                    Role::Pawn
                },
                from,
                capture: None,
                to,
                promotion: None,
            }),
            san: san.into(),
            written: None,
        }
    }

    #[test]
    fn tree_orders_mainline_and_variations() {
        let mut tree = MoveTree::new();
        let e4 = tree.add_child(NodeId::ROOT, ply(Square::E2, Square::E4, "e4"));
        let d4 = tree.add_child(NodeId::ROOT, ply(Square::D2, Square::D4, "d4"));
        let e5 = tree.add_child(e4, ply(Square::E7, Square::E5, "e5"));
        assert_eq!(tree.mainline().collect::<Vec<_>>(), vec![e4, e5]);
        assert_eq!(tree.root().variations(), &[d4]);
        assert_eq!(tree.preorder().collect::<Vec<_>>(), vec![e4, e5, d4]);
        assert_eq!(tree.path_to(e5), vec![e4, e5]);
    }

    #[test]
    fn positions_follow_the_tree() {
        let mut game = Game::new();
        let e4 = game
            .tree
            .add_child(NodeId::ROOT, ply(Square::E2, Square::E4, "e4"));
        let e5 = game.tree.add_child(e4, ply(Square::E7, Square::E5, "e5"));
        let pos = game.position_at(e5);
        assert_eq!(pos.fullmoves().get(), 2);
        let mut seen = 0;
        game.for_each_position(|_, before, after| {
            assert_ne!(before.turn(), after.turn());
            seen += 1;
        });
        assert_eq!(seen, 2);
    }

    #[test]
    fn tags_keep_order_and_duplicates() {
        let mut tags = Tags::new();
        tags.push("White", "A");
        tags.push("Zed", "1");
        tags.push("White", "B");
        assert_eq!(tags.get("White"), Some("A"));
        assert_eq!(tags.len(), 3);
        tags.set("Zed", "2");
        assert_eq!(tags.get("Zed"), Some("2"));
        assert_eq!(tags.remove("White").as_deref(), Some("A"));
        assert_eq!(tags.len(), 1);
    }

    #[test]
    fn null_move_passes_the_turn() {
        let pos = Chess::default();
        let next = play_ply(&pos, PlyMove::Null);
        assert_eq!(next.turn(), shakmaty::Color::Black);
        assert_eq!(
            crate::fen::write_fen(&next, CastlingMode::Standard),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 1"
        );
        let back = play_ply(&next, PlyMove::Null);
        assert_eq!(
            crate::fen::write_fen(&back, CastlingMode::Standard),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2 2"
        );
    }

    #[test]
    fn null_move_clears_en_passant_and_keeps_chess960_castling() {
        let (pos, mode) = crate::fen::read_fen("4k3/8/8/3pP3/8/8/8/1R2K1RR w G d6 0 1").unwrap();
        let next = try_play_ply(&pos, PlyMove::Null).unwrap();
        assert_eq!(
            crate::fen::write_fen(&next, mode),
            "4k3/8/8/3pP3/8/8/8/1R2K1RR b G - 1 1"
        );
    }

    #[test]
    fn start_from_fen_tag() {
        let mut tags = Tags::new();
        tags.push("SetUp", "1");
        tags.push("FEN", "4k3/8/8/8/8/8/4P3/4K3 b - - 5 39");
        let game = Game::from_tags(tags).unwrap();
        assert_eq!(game.start.fullmoves().get(), 39);
        let mut tags = Tags::new();
        tags.push("FEN", "not a fen");
        assert!(Game::from_tags(tags).is_err());
    }

    #[test]
    fn null_move_in_check_is_refused() {
        let (pos, _) = crate::fen::read_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap();
        assert_eq!(try_play_ply(&pos, PlyMove::Null), Err(NullMoveInCheck));
        assert_eq!(play_ply(&pos, PlyMove::Null), pos);
    }
}
