//! Move bytes (1993 text, section 2.4) to and from a [`MoveTree`].
//!
//! A byte is a 1-based ChessBase move number ([`super::order`]); `0xFF`
//! opens a variation that replaces the last move of its line (as a PGN RAV
//! does) and `0x80` closes it, nested to any depth; bit 7 marks a commented
//! move; a `0x00` byte ends the list. No recursion: open lines are a stack.

use shakmaty::Move;

use super::order::{CbPosition, Slot};
use crate::model::{MoveTree, NodeId, Ply, PlyMove};
use crate::san::write_san;

/// Opens a variation.
pub const VARIATION_START: u8 = 0xff;
/// Closes a variation.
pub const VARIATION_END: u8 = 0x80;

/// Moves read from move bytes.
#[derive(Debug, Clone)]
pub struct DecodedMoves {
    /// The tree (complete up to the first error).
    pub tree: MoveTree,
    /// The commented moves, in file order (the order of their comments).
    pub commented: Vec<NodeId>,
    /// The first error: byte index in the move area and message.
    pub error: Option<(usize, String)>,
    /// Problems that did not stop reading: byte index and message.
    pub warnings: Vec<(usize, String)>,
}

struct Line {
    node: NodeId,
    pos: CbPosition,
    prev: Option<(NodeId, CbPosition)>,
}

/// Decodes plain (already un-XORed) move bytes from `start`.
pub fn decode_moves(bytes: &[u8], start: &CbPosition) -> DecodedMoves {
    let mut out = DecodedMoves {
        tree: MoveTree::new(),
        commented: Vec::new(),
        error: None,
        warnings: Vec::new(),
    };
    let mut cur = Line {
        node: NodeId::ROOT,
        pos: start.clone(),
        prev: None,
    };
    let mut stack: Vec<Line> = Vec::new();
    let mut scratch: Vec<Slot> = Vec::with_capacity(128);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            VARIATION_START => {
                let Some((node, pos)) = cur.prev.clone() else {
                    out.error = Some((i, "variation start (0xFF) with no move before it".into()));
                    return out;
                };
                stack.push(cur);
                cur = Line {
                    node,
                    pos,
                    prev: None,
                };
            }
            VARIATION_END => match stack.pop() {
                Some(line) => cur = line,
                None => {
                    out.error = Some((i, "variation end (0x80) with no variation open".into()));
                    return out;
                }
            },
            0 => {
                if i + 1 < bytes.len() {
                    out.warnings.push((
                        i,
                        format!(
                            "0x00 ends the move list; {} move bytes after it ignored",
                            bytes.len() - i - 1
                        ),
                    ));
                }
                break;
            }
            _ => {
                let number = b & 0x7f;
                let mv = match cur.pos.decode(number, &mut scratch) {
                    Ok(mv) => mv,
                    Err(msg) => {
                        out.error = Some((i, msg));
                        return out;
                    }
                };
                let san = write_san(&cur.pos.pos, PlyMove::Move(mv));
                let before = cur.pos.clone();
                cur.pos.play(mv);
                let id = out.tree.add_child(
                    cur.node,
                    Ply {
                        mv: PlyMove::Move(mv),
                        san,
                        written: None,
                    },
                );
                cur.prev = Some((cur.node, before));
                cur.node = id;
                if b & 0x80 != 0 {
                    out.commented.push(id);
                }
            }
        }
    }
    if !stack.is_empty() {
        out.warnings.push((
            bytes.len(),
            format!(
                "{} variation(s) not closed at the end of the moves",
                stack.len()
            ),
        ));
    }
    out
}

/// Why a tree cannot be written as move bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    /// The node that cannot be stored.
    pub node: NodeId,
    /// Why.
    pub message: String,
}

enum Work {
    Line(NodeId, CbPosition),
    Open,
    Close,
}

/// Encodes `tree` from `start` into plain move bytes. `commented(node)`
/// says whether a node carries a comment (bit 7). Returns the bytes and the
/// commented nodes in file order.
pub fn encode_moves(
    tree: &MoveTree,
    start: &CbPosition,
    mut commented: impl FnMut(NodeId) -> bool,
) -> Result<(Vec<u8>, Vec<NodeId>), EncodeError> {
    let mut bytes = Vec::new();
    let mut marked = Vec::new();
    let mut scratch: Vec<Slot> = Vec::with_capacity(128);
    let mut work: Vec<Work> = Vec::new();
    if let Some(first) = tree.root().main_child() {
        work.push(Work::Line(first, start.clone()));
    }
    while let Some(item) = work.pop() {
        let (id, before) = match item {
            Work::Open => {
                bytes.push(VARIATION_START);
                continue;
            }
            Work::Close => {
                bytes.push(VARIATION_END);
                continue;
            }
            Work::Line(id, before) => (id, before),
        };
        let node = tree.node(id);
        let mv: Move = match node.ply.as_ref().map(|p| p.mv) {
            Some(PlyMove::Move(m)) => m,
            Some(PlyMove::Null) => {
                return Err(EncodeError {
                    node: id,
                    message: "a null move cannot be stored in ChessBase move numbers".into(),
                });
            }
            None => {
                return Err(EncodeError {
                    node: id,
                    message: "node without a move".into(),
                });
            }
        };
        let Some(number) = before.encode(mv, &mut scratch) else {
            return Err(EncodeError {
                node: id,
                message: format!("move {mv} has no ChessBase move number"),
            });
        };
        let is_commented = commented(id);
        let limit = if is_commented { 126 } else { 127 };
        if number > limit {
            return Err(EncodeError {
                node: id,
                message: format!(
                    "move {mv} is number {number} in ChessBase's order; at most {limit} can be stored"
                ),
            });
        }
        let mut b = number as u8;
        if is_commented {
            b |= 0x80;
            marked.push(id);
        }
        bytes.push(b);
        let mut after = before.clone();
        after.play(mv);
        if let Some(next) = node.main_child() {
            work.push(Work::Line(next, after));
        }
        // Variations of this move: its later siblings, when it is the main child.
        if let Some(parent) = node.parent() {
            let p = tree.node(parent);
            if p.main_child() == Some(id) {
                for &var in p.variations().iter().rev() {
                    work.push(Work::Close);
                    work.push(Work::Line(var, before.clone()));
                    work.push(Work::Open);
                }
            }
        }
    }
    Ok((bytes, marked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    fn sans(tree: &MoveTree, ids: impl Iterator<Item = NodeId>) -> Vec<String> {
        ids.map(|id| tree.node(id).ply.as_ref().expect("ply").san.clone())
            .collect()
    }

    fn start() -> CbPosition {
        CbPosition::new(Chess::default(), None)
    }

    #[test]
    fn main_line_from_numbers() {
        // 1.e4 (11) e5: black after e4: a5 a6 b5 b6 Na6 Nc6 c5 c6 d5 d6 e5 (11)
        let d = decode_moves(&[11, 11], &start());
        assert!(d.error.is_none());
        assert_eq!(sans(&d.tree, d.tree.mainline()), vec!["e4", "e5"]);
    }

    /// 1.e4 e5 (1...c5 2.Nf3 (2.c3 d5 (2...Nf6 3.e5))) 2.Nf3: variations
    /// nested three deep, with a commented move in the deepest one.
    #[test]
    fn variations_nested_three_deep() {
        let bytes = [
            11,
            11, // e4 e5
            0xff,
            7,
            25, // ( c5 Nf3
            0xff,
            8,
            8, // ( c3 d5
            0xff,
            19 | 0x80,
            17, // ( Nf6 (commented) e5
            0x80,
            0x80,
            0x80, // ) ) )
            24,   // Nf3
        ];
        let d = decode_moves(&bytes, &start());
        assert!(d.error.is_none(), "{:?}", d.error);
        assert!(d.warnings.is_empty());
        let t = &d.tree;
        assert_eq!(sans(t, t.mainline()), vec!["e4", "e5", "Nf3"]);
        let kids = |id: NodeId| t.node(id).children().to_vec();
        let e4 = kids(NodeId::ROOT)[0];
        assert_eq!(sans(t, kids(e4).into_iter()), vec!["e5", "c5"]);
        let c5 = kids(e4)[1];
        assert_eq!(sans(t, kids(c5).into_iter()), vec!["Nf3", "c3"]);
        let c3 = kids(c5)[1];
        assert_eq!(sans(t, kids(c3).into_iter()), vec!["d5", "Nf6"]);
        let nf6 = kids(c3)[1];
        assert_eq!(sans(t, kids(nf6).into_iter()), vec!["e5"]);
        assert_eq!(sans(t, d.commented.iter().copied()), vec!["Nf6"]);
        // Encoding gives the same bytes back.
        let marked = d.commented.clone();
        let (again, commented) =
            encode_moves(t, &start(), |id| marked.contains(&id)).expect("encodes");
        assert_eq!(again, bytes);
        assert_eq!(commented, d.commented);
    }

    #[test]
    fn nested_alternatives_to_one_move_read_as_siblings() {
        // 1.e4 (1.d4 (1.c4 (1.Nf3)) 1...d5): all alternatives to the first move.
        let bytes = [11, 0xff, 9, 0xff, 7, 0xff, 15, 0x80, 0x80, 9, 0x80];
        let d = decode_moves(&bytes, &start());
        assert!(d.error.is_none());
        let t = &d.tree;
        assert_eq!(
            sans(t, t.root().children().iter().copied()),
            vec!["e4", "d4", "c4", "Nf3"]
        );
        let d4 = t.root().children()[1];
        assert_eq!(sans(t, t.node(d4).children().iter().copied()), vec!["d5"]);
    }

    #[test]
    fn nested_not_flat_variations() {
        // 1.e4 e5 (1...c5 2.Nf3 (2.c3)) 2.Nf3: the inner variation belongs to c5's line.
        // after e4 black: c5 = 7. With e2 empty the queen (4 squares), king (e2),
        // bishop (5) and knight (e2) gain moves: after c5 white Nf3 = 25, c3 = 8;
        // after e5 (e4 blocked) Nf3 = 24.
        let bytes = [11, 11, 0xff, 7, 25, 0xff, 8, 0x80, 0x80, 24];
        let d = decode_moves(&bytes, &start());
        assert!(d.error.is_none());
        let t = &d.tree;
        assert_eq!(sans(t, t.mainline()), vec!["e4", "e5", "Nf3"]);
        let e4 = t.root().children()[0];
        let c5 = t.node(e4).children()[1];
        assert_eq!(
            sans(t, t.node(c5).children().iter().copied()),
            vec!["Nf3", "c3"]
        );
        let (again, _) = encode_moves(t, &start(), |_| false).expect("encodes");
        assert_eq!(again, bytes);
    }

    #[test]
    fn malformed_move_bytes() {
        assert!(decode_moves(&[0xff], &start()).error.is_some());
        assert!(decode_moves(&[11, 0x80], &start()).error.is_some());
        assert!(
            decode_moves(&[21], &start()).error.is_some(),
            "only 20 moves"
        );
        let d = decode_moves(&[11, 0xff, 9], &start());
        assert!(d.error.is_none());
        assert_eq!(d.warnings.len(), 1, "unclosed variation");
        let d = decode_moves(&[11, 0, 5], &start());
        assert_eq!(d.tree.mainline_len(), 1);
        assert_eq!(d.warnings.len(), 1, "bytes after the 0x00 end");
    }
}
