//! FBK opening files (1993 text, section 3).
//!
//! Each move is two bytes: origin square in bits 0-5 of byte 1 and target
//! square in bits 0-5 of byte 2 (A1 = 0, H8 = 63, rank by rank). Byte 1 bit
//! 6 = 0 means the move starts a new variant, bit 7 = 1 that it ends the
//! variant; byte 2 bit 7 marks a weak move; byte 2 bit 6 is unused.
//!
//! The text does not say where a new variant branches. gamerec reads the
//! file as a pre-order walk of the tree: a move with bit 6 = 0 has an
//! alternative later in the file (its position is remembered), and after a
//! move that ends a variant reading resumes at the most recently remembered
//! position; the next move is that alternative. The writer produces exactly
//! this. Weak moves read as NAG `$2` (`?`); `$2` and `$4` write the weak bit.
//! FBK stores no promotion piece (a promotion reads as `=Q`), no start
//! position, tags, comments or other NAGs.

use shakmaty::{Chess, Move, Position, Role, Square};

use super::{FileKind, Issue, ReadItem, ReadOutcome, Sink};
use crate::model::{Game, GameResult, NodeId, Ply, PlyMove};
use crate::san::write_san;

/// The NAG a weak move reads as.
pub const WEAK_NAG: u8 = 2;

fn find_move(pos: &Chess, from: Square, to: Square) -> Option<Move> {
    let moves = pos.legal_moves();
    let mut found = None;
    for m in moves {
        let (f, t) = match m {
            Move::Castle { king, rook } => {
                let side = m.castling_side()?;
                let to = Square::from_coords(side.king_to_file(), king.rank());
                let _ = rook;
                (king, to)
            }
            _ => match m.from() {
                Some(f) => (f, m.to()),
                None => continue,
            },
        };
        if f == from && t == to {
            match m.promotion() {
                None => return Some(m),
                Some(Role::Queen) => found = Some(m),
                Some(_) => {}
            }
        }
    }
    found
}

/// Reads an FBK file into one game whose variations are the opening tree.
pub fn read_fbk(data: &[u8]) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    if data.is_empty() {
        return out;
    }
    let mut game = Game::new();
    for (name, value) in crate::pgn::writer::SEVEN_TAG_ROSTER {
        game.tags.push(name, value);
    }
    game.result = Some(GameResult::Unknown);
    let tree = &mut game.tree;
    walk(
        data,
        NodeId::ROOT,
        usize::MAX,
        &mut |i| out.push(i),
        |parent, pos, mv, weak| {
            let san = write_san(pos, PlyMove::Move(mv));
            let id = tree.add_child(
                parent,
                Ply {
                    mv: PlyMove::Move(mv),
                    san,
                    written: None,
                },
            );
            if weak {
                tree.node_mut(id).nags.push(WEAK_NAG);
            }
            id
        },
    );
    out.games.push(game);
    out
}

/// What [`check_fbk`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FbkCheck {
    /// Moves read (every node of the tree).
    pub moves: u64,
    /// Problems, in file order.
    pub issues: Vec<Issue>,
}

/// Checks an FBK file as [`read_fbk`] reads it, without building the tree:
/// memory holds the positions of at most [`PENDING_HELD`] alternatives
/// still to come, not the file's millions of moves. [`check_fbk_each`]
/// hands the issues over as they come instead of keeping them.
pub fn check_fbk(data: &[u8]) -> FbkCheck {
    let mut issues = Vec::new();
    let moves = check_fbk_each(data, &mut |i| issues.push(i));
    FbkCheck { moves, issues }
}

/// As [`check_fbk`], handing each issue to `on_issue` in file order (a
/// file of a million warnings is checked in the memory of one); returns
/// the moves read.
pub fn check_fbk_each(data: &[u8], on_issue: &mut dyn FnMut(Issue)) -> u64 {
    check_fbk_passing(data, on_issue, usize::MAX, &mut || {})
}

/// As [`check_fbk_each`], calling `passed` each time reading passes
/// another `every` bytes (to give back the mapped pages behind it).
pub(crate) fn check_fbk_passing(
    data: &[u8],
    on_issue: &mut dyn FnMut(Issue),
    every: usize,
    passed: &mut dyn FnMut(),
) -> u64 {
    let mut moves = 0u64;
    let mut mark = every;
    walk(
        data,
        (),
        PENDING_HELD,
        &mut |item| {
            if let ReadItem::Issue(i) = item {
                on_issue(i);
            }
        },
        |(), _, _, _| {
            moves += 1;
            if moves.saturating_mul(2) >= mark as u64 {
                passed();
                mark = mark.saturating_add(every);
            }
        },
    );
    moves
}

/// The most positions of pending alternatives [`check_fbk`] holds (about
/// 9 MB; a line of a real tree nests a few hundred). Past that the oldest
/// are counted, not held: a file that comes back to one of those is read
/// up to there, with an error saying why.
pub const PENDING_HELD: usize = 1 << 16;

/// The pre-order walk of an FBK file: `add(parent, position, move, weak)`
/// adds a move below `parent` and returns its handle. The positions of at
/// most `held` pending alternatives are kept (the most recent), the older
/// ones only counted.
fn walk<T: Copy>(
    data: &[u8],
    root: T,
    held: usize,
    each: &mut dyn FnMut(ReadItem),
    mut add: impl FnMut(T, &Chess, Move, bool) -> T,
) {
    let mut each = |item| {
        each(item);
        std::ops::ControlFlow::Continue(())
    };
    let mut out = Sink::new(&mut each);
    let mut stack: std::collections::VecDeque<(T, Chess)> = std::collections::VecDeque::new();
    // Pending alternatives below the held ones: counted, positions dropped.
    let mut dropped = 0usize;
    let mut node = root;
    let mut pos = Chess::default();
    let mut ended = false;
    let mut unused_bit = false;
    for (i, rec) in data.chunks(2).enumerate() {
        let offset = (i * 2) as u64;
        let [b1, b2] = *rec else {
            out.issue(Issue::error(
                FileKind::Data,
                offset,
                None,
                "odd file length: a move takes two bytes",
            ));
            break;
        };
        if ended {
            out.issue(Issue::warning(
                FileKind::Data,
                offset,
                None,
                "moves after the end of the tree are read as further alternatives from the start",
            ));
            ended = false;
        }
        if b2 & 0x40 != 0 && !unused_bit {
            unused_bit = true;
            out.issue(Issue::warning(
                FileKind::Data,
                offset + 1,
                None,
                "unused bit 6 of the target byte is set (ignored)",
            ));
        }
        let from = Square::new(u32::from(b1 & 63));
        let to = Square::new(u32::from(b2 & 63));
        if b1 & 0x40 == 0 {
            if stack.len() >= held {
                stack.pop_front();
                dropped += 1;
            }
            stack.push_back((node, pos.clone()));
        }
        let Some(mv) = find_move(&pos, from, to) else {
            out.issue(Issue::error(
                FileKind::Data,
                offset,
                None,
                format!("move {from}{to} is not legal here; the rest of the file is not read"),
            ));
            break;
        };
        let id = add(node, &pos, mv, b2 & 0x80 != 0);
        pos.play_unchecked(mv);
        node = id;
        if b1 & 0x80 != 0 {
            match stack.pop_back() {
                Some((n, p)) => {
                    node = n;
                    pos = p;
                }
                None if dropped > 0 => {
                    out.issue(Issue::error(
                        FileKind::Data,
                        offset,
                        None,
                        format!(
                            "the line ends here and its alternative is one of {dropped} \
                             pending below the {held} whose positions are held; \
                             the rest of the file is not read"
                        ),
                    ));
                    break;
                }
                None => {
                    node = root;
                    pos = Chess::default();
                    ended = true;
                }
            }
        }
    }
    // A whole file ends with a move that ends its line, every announced
    // alternative having come: anything else was cut short.
    if !ended && !out.has_errors() && !data.is_empty() {
        let pending = stack.len() + dropped;
        let why = if pending == 0 {
            "its last move does not end its line".to_string()
        } else {
            format!("{pending} announced alternative(s) never came")
        };
        out.issue(Issue::error(
            FileKind::Data,
            data.len() as u64,
            None,
            format!("truncated file: {why}"),
        ));
    }
}

/// Merges `games` into one opening tree and writes it as an FBK file.
/// Games from another start position, and null moves, cannot be stored
/// (error issues); tags, comments, NAGs other than `$2`/`$4` and
/// under-promotions are reported as dropped. [`FbkWriter`] does the same
/// game by game.
pub fn write_fbk(games: &[Game]) -> (Vec<u8>, Vec<Issue>) {
    let mut writer = FbkWriter::new();
    let mut issues = Vec::new();
    for game in games {
        issues.extend(writer.add(game));
    }
    (writer.finish(), issues)
}

/// No node.
const NONE: u32 = u32::MAX;

/// The most NAGs a game's "NAGs dropped" warning names; it counts the rest.
const NAGS_NAMED: usize = 20;

/// A node of the merged tree: the move leading to it, its first and last
/// child and its next sibling (children in the order first seen).
#[derive(Debug, Clone, Copy)]
struct TreeNode {
    mv: Option<Move>,
    first: u32,
    last: u32,
    next: u32,
    weak: bool,
}

/// Merges games into one FBK opening tree as they come. Memory is a small
/// fixed record (about 24 bytes) per distinct line of moves in the tree,
/// whatever the number of games or their tags and comments.
#[derive(Debug, Clone)]
pub struct FbkWriter {
    nodes: Vec<TreeNode>,
    games: usize,
}

impl Default for FbkWriter {
    fn default() -> Self {
        FbkWriter::new()
    }
}

impl FbkWriter {
    /// An empty tree.
    pub fn new() -> FbkWriter {
        FbkWriter {
            nodes: vec![TreeNode {
                mv: None,
                first: NONE,
                last: NONE,
                next: NONE,
                weak: false,
            }],
            games: 0,
        }
    }

    /// Nodes of the merged tree, the root included.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The child of `parent` reached by `mv`, added if new.
    fn child(&mut self, parent: u32, mv: Move) -> u32 {
        let mut c = self.nodes[parent as usize].first;
        while c != NONE {
            let node = &self.nodes[c as usize];
            if node.mv == Some(mv) {
                return c;
            }
            c = node.next;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(TreeNode {
            mv: Some(mv),
            first: NONE,
            last: NONE,
            next: NONE,
            weak: false,
        });
        let p = &mut self.nodes[parent as usize];
        let last = p.last;
        p.last = id;
        if last == NONE {
            p.first = id;
        } else {
            self.nodes[last as usize].next = id;
        }
        id
    }

    /// Merges `game` into the tree; returns its issues (numbered from 1 in
    /// the order games are added).
    pub fn add(&mut self, game: &Game) -> Vec<Issue> {
        self.games += 1;
        let number = Some(self.games);
        let mut issues = Vec::new();
        let warn = |issues: &mut Vec<Issue>, msg: String| {
            issues.push(Issue::warning(FileKind::Data, 0, number, msg));
        };
        if game.start != Chess::default() {
            issues.push(Issue::error(
                FileKind::Data,
                0,
                number,
                "FBK holds games from the standard start position only; game left out",
            ));
            return issues;
        }
        let extra_tags = game
            .tags
            .iter()
            .filter(|t| !matches!(t.value.as_str(), "?" | "????.??.??" | "*" | ""))
            .count();
        if extra_tags > 0 {
            warn(
                &mut issues,
                format!("{extra_tags} tag(s) dropped (FBK keeps moves only)"),
            );
        }
        let mut comments = 0;
        // The NAGs dropped: the first NAGS_NAMED, and how many in all.
        let mut nags = Vec::new();
        let mut nags_dropped = 0usize;
        let mut underpromotions = 0;
        let mut nulls = 0;
        // From game node to merged node; 0 (the root) below a null move.
        let mut map = vec![0u32; game.tree.len()];
        comments += game.tree.root().comments_before.len() + game.tree.root().comments_after.len();
        for id in game.tree.preorder() {
            let node = game.tree.node(id);
            let Some(ply) = &node.ply else { continue };
            let PlyMove::Move(mv) = ply.mv else {
                nulls += 1;
                continue;
            };
            let Some(parent) = node.parent() else {
                continue;
            };
            let mparent = map[parent.0 as usize];
            if parent != NodeId::ROOT && mparent == 0 {
                continue; // below a null move
            }
            if matches!(mv.promotion(), Some(r) if r != Role::Queen) {
                underpromotions += 1;
            }
            let mid = self.child(mparent, mv);
            map[id.0 as usize] = mid;
            for &n in &node.nags {
                if n == 2 || n == 4 {
                    self.nodes[mid as usize].weak = true;
                } else {
                    if nags.len() < NAGS_NAMED {
                        nags.push(n);
                    }
                    nags_dropped += 1;
                }
            }
            comments += node.comments_before.len() + node.comments_after.len();
        }
        if nulls > 0 {
            issues.push(Issue::error(
                FileKind::Data,
                0,
                number,
                format!(
                    "{nulls} null move(s) and the moves after them left out (FBK cannot store them)"
                ),
            ));
        }
        if comments > 0 {
            warn(
                &mut issues,
                format!("{comments} comment(s) dropped (FBK has no comments)"),
            );
        }
        if !nags.is_empty() {
            // The first named, the rest counted: one short message however
            // many NAGs the game has.
            let mut list: Vec<String> = nags.iter().map(|n| format!("${n}")).collect();
            if nags_dropped > nags.len() {
                list.push(format!("and {} more", nags_dropped - nags.len()));
            }
            warn(
                &mut issues,
                format!(
                    "NAGs dropped (FBK keeps only the weak-move bit for $2/$4): {}",
                    list.join(" ")
                ),
            );
        }
        if underpromotions > 0 {
            warn(
                &mut issues,
                format!(
                    "{underpromotions} under-promotion(s) written without their piece (FBK reads them as =Q)"
                ),
            );
        }
        issues
    }

    /// The FBK file of the tree: its moves in pre-order, two bytes each.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 * (self.nodes.len() - 1));
        let mut stack: Vec<u32> = Vec::new();
        if self.nodes[0].first != NONE {
            stack.push(self.nodes[0].first);
        }
        // Pre-order without recursion: a node, then its children, then its
        // later siblings.
        while let Some(id) = stack.pop() {
            let node = self.nodes[id as usize];
            if node.next != NONE {
                stack.push(node.next);
            }
            if node.first != NONE {
                stack.push(node.first);
            }
            let Some(mv) = node.mv else { continue };
            let (from, to) = match mv {
                Move::Castle { king, .. } => {
                    let side = mv
                        .castling_side()
                        .unwrap_or(shakmaty::CastlingSide::KingSide);
                    (king, Square::from_coords(side.king_to_file(), king.rank()))
                }
                _ => (mv.from().unwrap_or(Square::A1), mv.to()),
            };
            let mut b1 = from as u8;
            if node.next == NONE {
                b1 |= 0x40;
            }
            if node.first == NONE {
                b1 |= 0x80;
            }
            let mut b2 = to as u8;
            if node.weak {
                b2 |= 0x80;
            }
            out.push(b1);
            out.push(b2);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> u8 {
        name.parse::<Square>().expect("square") as u8
    }

    fn sans(g: &Game, ids: &[NodeId]) -> Vec<String> {
        ids.iter()
            .map(|&id| g.tree.node(id).ply.as_ref().expect("ply").san.clone())
            .collect()
    }

    /// Tree: 1.e4 (e5 (c5? ) ) ; 1.d4 d5 — written by hand from section 3.
    fn sample() -> Vec<u8> {
        vec![
            sq("e2"), // e4: new variant (bit 6 = 0: 1.d4 follows), not the end
            sq("e4"),
            sq("e7") | 0x80, // e5: starts a new variant (c5 follows), ends the line
            sq("e5"),
            sq("c7") | 0x40 | 0x80, // c5: last alternative, ends, weak
            sq("c5") | 0x80,
            sq("d2") | 0x40, // d4: last alternative at the root
            sq("d4"),
            sq("d7") | 0x40 | 0x80, // d5: ends
            sq("d5"),
        ]
    }

    #[test]
    fn reads_the_tree() {
        let out = read_fbk(&sample());
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let g = &out.games[0];
        assert_eq!(sans(g, g.tree.root().children()), vec!["e4", "d4"]);
        let e4 = g.tree.root().children()[0];
        let replies = g.tree.node(e4).children();
        assert_eq!(sans(g, replies), vec!["e5", "c5"]);
        assert_eq!(g.tree.node(replies[1]).nags, vec![WEAK_NAG]);
        let d4 = g.tree.root().children()[1];
        assert_eq!(sans(g, g.tree.node(d4).children()), vec!["d5"]);
    }

    #[test]
    fn writes_the_same_bytes() {
        let out = read_fbk(&sample());
        let (bytes, issues) = write_fbk(&out.games);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(bytes, sample());
    }

    #[test]
    fn castling_and_promotion_squares() {
        // 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O: king e1 -> g1.
        let moves = [
            ("e2", "e4"),
            ("e7", "e5"),
            ("g1", "f3"),
            ("b8", "c6"),
            ("f1", "c4"),
            ("f8", "c5"),
            ("e1", "g1"),
        ];
        let mut data = Vec::new();
        for (i, (f, t)) in moves.iter().enumerate() {
            let mut b1 = sq(f) | 0x40;
            if i == moves.len() - 1 {
                b1 |= 0x80;
            }
            data.push(b1);
            data.push(sq(t));
        }
        let out = read_fbk(&data);
        assert!(out.issues.is_empty());
        let g = &out.games[0];
        let last = g.tree.mainline().last().expect("moves");
        assert_eq!(g.tree.node(last).ply.as_ref().expect("ply").san, "O-O");
        assert_eq!(write_fbk(&out.games).0, data);
    }

    #[test]
    fn malformed() {
        assert!(read_fbk(&[sq("e2")]).has_errors());
        assert!(read_fbk(&[sq("e2"), sq("e5")]).has_errors());
        let out = read_fbk(&[sq("e2") | 0xc0, sq("e4"), sq("d2") | 0xc0, sq("d4")]);
        assert_eq!(out.issues.len(), 1, "second root line after the end");
        assert_eq!(out.games[0].tree.root().children().len(), 2);
        assert!(read_fbk(&[]).games.is_empty());
    }

    /// Issue 18: a file cut at an even byte was read as complete.
    #[test]
    fn a_file_cut_anywhere_is_truncated() {
        let whole = sample();
        assert!(!read_fbk(&whole).has_errors());
        for cut in (2..whole.len()).step_by(2) {
            let out = read_fbk(&whole[..cut]);
            assert_eq!(check_fbk(&whole[..cut]).issues, out.issues);
            assert!(out.has_errors(), "cut at {cut}: {:?}", out.issues);
            assert!(
                out.issues.iter().any(|i| i.message.contains("truncated")),
                "cut at {cut}: {:?}",
                out.issues
            );
        }
    }

    /// The issues of a check holding `held` pending positions.
    fn check_holding(data: &[u8], held: usize) -> Vec<Issue> {
        let mut issues = Vec::new();
        walk(
            data,
            (),
            held,
            &mut |item| {
                if let ReadItem::Issue(i) = item {
                    issues.push(i);
                }
            },
            |(), _, _, _| {},
        );
        issues
    }

    /// A check held the position of every pending alternative: a 4 MB file
    /// of moves that each announce one took 276 MB. Now the oldest past
    /// `held` are counted: the same messages unless the file comes back to
    /// one of them.
    #[test]
    fn pending_alternatives_past_the_held_ones_are_counted() {
        let whole = sample(); // two alternatives pending at most
        assert!(check_holding(&whole, 2).is_empty());
        let back = check_holding(&whole, 1);
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(back[0].severity, crate::diag::Severity::Error);
        assert_eq!(back[0].offset, 4, "c5 ends a line held no more");
        assert!(
            back[0].message.contains("one of 1 pending below the 1"),
            "{back:?}"
        );
        // 1.e4 e5, each announcing an alternative that never comes: both
        // counted, one of them held.
        let cut = [sq("e2"), sq("e4"), sq("e7"), sq("e5")];
        let cut = check_holding(&cut, 1);
        assert_eq!(
            cut,
            check_fbk(&[sq("e2"), sq("e4"), sq("e7"), sq("e5")]).issues
        );
        assert!(
            cut[0]
                .message
                .contains("2 announced alternative(s) never came")
        );
    }
}
