//! ChessBase's own move order (1993 text, section 2.4; facts in
//! `chessbase-notes.md`), built on shakmaty's board.
//!
//! A move byte is a 1-based index into a *pseudo-legal* list: squares are
//! scanned a1, a2 .. a8, b1 .. h8; each piece of the side to move adds its
//! moves in a fixed direction order; castling is counted without consulting
//! castling rights; every promotion takes four numbers (Q, R, B, N); and the
//! e.p. file survives a castling move, so an illegal e.p. slot can appear.
//! Legality is decided by shakmaty: a slot is playable only if shakmaty lists
//! the matching move among the legal ones.

use shakmaty::{Board, CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};

/// One entry of ChessBase's pseudo-legal move list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A piece or pawn move (captures and promotions included).
    Normal {
        /// Origin square.
        from: Square,
        /// Target square.
        to: Square,
        /// Promotion piece, for the four promotion slots.
        promotion: Option<Role>,
    },
    /// Castling: king on its home square, rook in its corner, squares between empty.
    Castle(CastlingSide),
    /// An en passant slot; `to` is the target square. It may be the
    /// documented illegal one (e.p. file kept across castling).
    EnPassant {
        /// Origin square.
        from: Square,
        /// Target square.
        to: Square,
    },
}

/// King steps in the order of the text's diagram (df, dr).
const KING: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
/// Bishop rays: left-down, right-down, right-up, left-up.
const BISHOP: [(i32, i32); 4] = [(-1, -1), (1, -1), (1, 1), (-1, 1)];
/// Rook rays: left, down, right, up.
const ROOK: [(i32, i32); 4] = [(-1, 0), (0, -1), (1, 0), (0, 1)];
/// Knight jumps in the order of the text's diagram.
const KNIGHT: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (2, -1),
    (2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
];
/// Promotion slots in order.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

fn step(sq: Square, df: i32, dr: i32) -> Option<Square> {
    let file = sq.file().offset(df)?;
    let rank = sq.rank().offset(dr)?;
    Some(Square::from_coords(file, rank))
}

/// Appends ChessBase's pseudo-legal move list for `turn` on `board` to `out`.
/// `ep_file` is ChessBase's e.p. file (set by a double step, kept across castling).
pub fn slots(board: &Board, turn: Color, ep_file: Option<File>, out: &mut Vec<Slot>) {
    out.clear();
    for file in File::ALL {
        for rank in Rank::ALL {
            let sq = Square::from_coords(file, rank);
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            if piece.color != turn {
                continue;
            }
            match piece.role {
                Role::King => {
                    steps(board, turn, sq, &KING, out);
                    castles(board, turn, sq, out);
                }
                Role::Queen => {
                    rays(board, turn, sq, &BISHOP, out);
                    rays(board, turn, sq, &ROOK, out);
                }
                Role::Rook => rays(board, turn, sq, &ROOK, out),
                Role::Bishop => rays(board, turn, sq, &BISHOP, out),
                Role::Knight => steps(board, turn, sq, &KNIGHT, out),
                Role::Pawn => pawn(board, turn, sq, ep_file, out),
            }
        }
    }
}

fn steps(board: &Board, turn: Color, from: Square, deltas: &[(i32, i32)], out: &mut Vec<Slot>) {
    for &(df, dr) in deltas {
        if let Some(to) = step(from, df, dr)
            && board.color_at(to) != Some(turn)
        {
            out.push(Slot::Normal {
                from,
                to,
                promotion: None,
            });
        }
    }
}

fn rays(board: &Board, turn: Color, from: Square, dirs: &[(i32, i32)], out: &mut Vec<Slot>) {
    for &(df, dr) in dirs {
        let mut at = from;
        while let Some(to) = step(at, df, dr) {
            match board.color_at(to) {
                Some(c) if c == turn => break,
                Some(_) => {
                    out.push(Slot::Normal {
                        from,
                        to,
                        promotion: None,
                    });
                    break;
                }
                None => out.push(Slot::Normal {
                    from,
                    to,
                    promotion: None,
                }),
            }
            at = to;
        }
    }
}

fn castles(board: &Board, turn: Color, king: Square, out: &mut Vec<Slot>) {
    let back = turn.fold_wb(Rank::First, Rank::Eighth);
    if king != Square::from_coords(File::E, back) {
        return;
    }
    let rook_there =
        |file: File| board.piece_at(Square::from_coords(file, back)) == Some(turn.rook());
    let empty = |files: &[File]| {
        files
            .iter()
            .all(|&f| board.piece_at(Square::from_coords(f, back)).is_none())
    };
    if rook_there(File::H) && empty(&[File::F, File::G]) {
        out.push(Slot::Castle(CastlingSide::KingSide));
    }
    if rook_there(File::A) && empty(&[File::B, File::C, File::D]) {
        out.push(Slot::Castle(CastlingSide::QueenSide));
    }
}

fn push_pawn(from: Square, to: Square, out: &mut Vec<Slot>) {
    if matches!(to.rank(), Rank::First | Rank::Eighth) {
        for role in PROMOTIONS {
            out.push(Slot::Normal {
                from,
                to,
                promotion: Some(role),
            });
        }
    } else {
        out.push(Slot::Normal {
            from,
            to,
            promotion: None,
        });
    }
}

fn pawn(board: &Board, turn: Color, from: Square, ep_file: Option<File>, out: &mut Vec<Slot>) {
    let fwd = turn.fold_wb(1, -1);
    let start = turn.fold_wb(Rank::Second, Rank::Seventh);
    let fifth = turn.fold_wb(Rank::Fifth, Rank::Fourth);
    let one = step(from, 0, fwd);
    if from.rank() == start
        && let Some(one) = one
        && !board.occupied().contains(one)
        && let Some(two) = step(from, 0, 2 * fwd)
        && !board.occupied().contains(two)
    {
        out.push(Slot::Normal {
            from,
            to: two,
            promotion: None,
        });
    }
    if let Some(one) = one
        && !board.occupied().contains(one)
    {
        push_pawn(from, one, out);
    }
    for df in [-1, 1] {
        if let Some(to) = step(from, df, fwd)
            && board.color_at(to) == Some(!turn)
        {
            push_pawn(from, to, out);
        }
    }
    if from.rank() == fifth {
        for df in [-1, 1] {
            if let Some(to) = step(from, df, fwd)
                && Some(to.file()) == ep_file
            {
                out.push(Slot::EnPassant { from, to });
            }
        }
    }
}

/// Whether the shakmaty move `mv` is the move of `slot`.
pub fn slot_matches(slot: Slot, mv: Move) -> bool {
    match (slot, mv) {
        (
            Slot::Normal {
                from,
                to,
                promotion,
            },
            Move::Normal {
                from: f,
                to: t,
                promotion: p,
                ..
            },
        ) => from == f && to == t && promotion == p,
        (Slot::Castle(side), Move::Castle { .. }) => mv.castling_side() == Some(side),
        (Slot::EnPassant { from, to }, Move::EnPassant { from: f, to: t }) => from == f && to == t,
        _ => false,
    }
}

/// ChessBase's game state beside shakmaty's position: the e.p. file, which
/// (unlike shakmaty's) castling does not clear.
#[derive(Debug, Clone)]
pub struct CbPosition {
    /// The legal position.
    pub pos: Chess,
    /// ChessBase's e.p. file.
    pub ep_file: Option<File>,
}

impl CbPosition {
    /// A position with ChessBase's e.p. file `ep_file`.
    pub fn new(pos: Chess, ep_file: Option<File>) -> CbPosition {
        CbPosition { pos, ep_file }
    }

    /// The pseudo-legal move list.
    pub fn slots(&self, out: &mut Vec<Slot>) {
        slots(self.pos.board(), self.pos.turn(), self.ep_file, out);
    }

    /// The legal move with 1-based ChessBase number `number`.
    pub fn decode(&self, number: u8, scratch: &mut Vec<Slot>) -> Result<Move, String> {
        self.slots(scratch);
        let Some(&slot) = scratch.get(usize::from(number).wrapping_sub(1)) else {
            return Err(format!(
                "move number {number} is beyond the {} moves ChessBase numbers here",
                scratch.len()
            ));
        };
        self.pos
            .legal_moves()
            .into_iter()
            .find(|&m| slot_matches(slot, m))
            .ok_or_else(|| format!("move number {number} ({slot:?}) is not legal here"))
    }

    /// The 1-based ChessBase number of the legal move `mv`.
    pub fn encode(&self, mv: Move, scratch: &mut Vec<Slot>) -> Option<usize> {
        self.slots(scratch);
        scratch
            .iter()
            .position(|&s| slot_matches(s, mv))
            .map(|i| i + 1)
    }

    /// Plays `mv` (legal), updating the e.p. file the ChessBase way.
    pub fn play(&mut self, mv: Move) {
        let double_step = match mv {
            Move::Normal {
                role: Role::Pawn,
                from,
                to,
                ..
            } if from.rank().distance(to.rank()) == 2 => Some(to.file()),
            _ => None,
        };
        if !mv.is_castle() {
            self.ep_file = double_step;
        }
        self.pos.play_unchecked(mv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal")
    }

    fn uci(p: &Chess, s: &str) -> Move {
        s.parse::<UciMove>()
            .expect("uci")
            .to_move(p)
            .expect("legal")
    }

    /// The n-th (1-based) move must be `expected` (UCI).
    fn nth(fen: &str, ep_file: Option<File>, n: u8, expected: &str) {
        let p = pos(fen);
        let cb = CbPosition::new(p.clone(), ep_file);
        let mut scratch = Vec::new();
        let mv = cb.decode(n, &mut scratch).expect("decodes");
        assert_eq!(mv, uci(&p, expected), "move {n} in {fen}");
        assert_eq!(cb.encode(mv, &mut scratch), Some(usize::from(n)));
    }

    #[test]
    fn start_position_numbers() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // a2: a4 a3; b1: Na3 Nc3; b2: b4 b3; c2 c4 c3; d2 d4 d3; e2 e4 e3 ...
        nth(start, None, 1, "a2a4");
        nth(start, None, 2, "a2a3");
        nth(start, None, 3, "b1a3");
        nth(start, None, 4, "b1c3");
        nth(start, None, 11, "e2e4");
        nth(start, None, 15, "g1f3");
        nth(start, None, 16, "g1h3");
        nth(start, None, 19, "h2h4");
        nth(start, None, 20, "h2h3");
        let mut scratch = Vec::new();
        CbPosition::new(pos(start), None).slots(&mut scratch);
        assert_eq!(scratch.len(), 20);
    }

    #[test]
    fn black_scans_from_rank_one_upwards() {
        // After 1.e4: a7 comes before a8 and b7 before b8.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        nth(fen, Some(File::E), 1, "a7a5");
        nth(fen, Some(File::E), 2, "a7a6");
        nth(fen, Some(File::E), 5, "b8a6");
        nth(fen, Some(File::E), 6, "b8c6");
    }

    #[test]
    fn king_order_is_the_diagram_then_castling() {
        // King d4 alone with kings far away: 1 c3, 2 c4, 3 c5, 4 d3, 5 d5, 6 e3, 7 e4, 8 e5.
        let fen = "7k/8/8/8/3K4/8/8/8 w - - 0 1";
        for (n, m) in [
            "d4c3", "d4c4", "d4c5", "d4d3", "d4d5", "d4e3", "d4e4", "d4e5",
        ]
        .iter()
        .enumerate()
        {
            nth(fen, None, n as u8 + 1, m);
        }
        // King e1, rooks a1 and h1: rook a1 first (b1 c1 d1 then a2..a8 up),
        // then the king: d1 d2 e2 f1 f2 (5 steps), then O-O, then O-O-O.
        let fen = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
        // a1 rook: left none, down none, right b1 c1 d1 (3), up a2..a8 (7, a8 empty) = 10.
        // e1 king: d1(2) d2(3) e2(5) f1(7) f2(8): 5 moves -> 11..15, O-O 16, O-O-O 17.
        nth(fen, None, 16, "e1g1");
        nth(fen, None, 17, "e1c1");
    }

    #[test]
    fn castling_is_counted_without_rights() {
        // No castling rights: the slots still exist (16, 17) but are not legal,
        // so the h1 rook's moves are shifted by two.
        let fen = "4k3/8/8/8/8/8/8/R3K2R w - - 0 1";
        let cb = CbPosition::new(pos(fen), None);
        let mut scratch = Vec::new();
        assert!(cb.decode(16, &mut scratch).is_err());
        assert!(cb.decode(17, &mut scratch).is_err());
        // h1 rook: left g1 f1 (18, 19), down none, right none, up h2 (20).
        nth(fen, None, 18, "h1g1");
        nth(fen, None, 20, "h1h2");
    }

    #[test]
    fn queen_bishop_rays_then_rook_rays() {
        // Queen d4, kings h8/h1 out of the way? Use kings a8 (black) and h1.
        // Squares scanned a..h: d4 queen (file d) before h1 king.
        // Bishop rays: left-down c3 b2 a1 (1-3), right-down e3 f2 g1 (4-6),
        // right-up e5 f6 g7 h8 (7-10), left-up c5 b6 a7 (11-13);
        // rook rays: left c4 b4 a4 (14-16), down d3 d2 d1 (17-19), right e4..h4 (20-23), up d5..d8 (24-27).
        let fen = "8/7k/8/8/3Q4/8/8/K7 w - - 0 1";
        // a1 is occupied by the own king: left-down is c3 b2 only.
        // King a1 comes first in the scan: a1 king: up-left none.. steps: (0,1) a2 (1), (1,0) b1 (2), (1,1) b2 (3).
        nth(fen, None, 1, "a1a2");
        nth(fen, None, 3, "a1b2");
        nth(fen, None, 4, "d4c3");
        nth(fen, None, 5, "d4b2");
        nth(fen, None, 6, "d4e3");
        nth(fen, None, 9, "d4e5");
        nth(fen, None, 12, "d4h8");
        nth(fen, None, 13, "d4c5");
        nth(fen, None, 16, "d4c4");
        nth(fen, None, 19, "d4d3");
        nth(fen, None, 22, "d4e4");
        nth(fen, None, 26, "d4d5");
        nth(fen, None, 29, "d4d8");
    }

    #[test]
    fn rook_left_down_right_up() {
        // Rook e4 with a black pawn on c4 and a white pawn on e2.
        let fen = "k7/8/8/8/2p1R3/8/4P3/K7 w - - 0 1";
        // a1 king: a2 b1 b2 (1-3). e2 pawn comes after e4? No: e2 (rank 2) before e4.
        // e2 pawn: e3 only (double blocked? e4 own rook blocks e3? no: e3 empty, e4 occupied) -> e3 (4).
        // e4 rook: left d4 c4x (5, 6), down e3 (7), right f4 g4 h4 (8-10), up e5 e6 e7 e8 (11-14).
        nth(fen, None, 4, "e2e3");
        nth(fen, None, 5, "e4d4");
        nth(fen, None, 6, "e4c4");
        nth(fen, None, 7, "e4e3");
        nth(fen, None, 8, "e4f4");
        nth(fen, None, 11, "e4e5");
        nth(fen, None, 14, "e4e8");
    }

    #[test]
    fn bishop_left_down_right_down_right_up_left_up() {
        let fen = "k7/8/8/8/8/2B5/8/K7 w - - 0 1";
        // a1 king: a2 b1 b2 (1-3). c3 bishop: left-down b2 (4) [a1 own], right-down d2 e1 (5, 6),
        // right-up d4 e5 f6 g7 h8 (7-11), left-up b4 a5 (12, 13).
        nth(fen, None, 4, "c3b2");
        nth(fen, None, 5, "c3d2");
        nth(fen, None, 7, "c3d4");
        nth(fen, None, 11, "c3h8");
        nth(fen, None, 12, "c3b4");
        nth(fen, None, 13, "c3a5");
    }

    #[test]
    fn knight_diagram_order() {
        let fen = "k7/8/8/8/3N4/8/8/K7 w - - 0 1";
        // a1 king: 1-3. d4 knight: 1 b3, 2 b5, 3 f3, 4 f5, 5 c2, 6 c6, 7 e2, 8 e6.
        for (i, m) in [
            "d4b3", "d4b5", "d4f3", "d4f5", "d4c2", "d4c6", "d4e2", "d4e6",
        ]
        .iter()
        .enumerate()
        {
            nth(fen, None, 4 + i as u8, m);
        }
    }

    #[test]
    fn pawn_double_single_promotions_captures_ep() {
        // Pawn b7 promotes straight and by capturing a8 and c8.
        let fen = "rkn5/1P6/8/8/8/8/8/7K w - - 0 1";
        // b7 pawn: no double, b8 is blocked by the black king;
        // captures left a8 (=Q 1, =R 2, =B 3, =N 4), right c8 (=Q 5 .. =N 8); h1 king last.
        nth(fen, None, 1, "b7a8q");
        nth(fen, None, 4, "b7a8n");
        nth(fen, None, 5, "b7c8q");
        nth(fen, None, 7, "b7c8b");
        // Straight promotion: Q R B N.
        let fen = "k7/6P1/8/8/8/8/8/K7 w - - 0 1";
        nth(fen, None, 4, "g7g8q");
        nth(fen, None, 5, "g7g8r");
        nth(fen, None, 6, "g7g8b");
        nth(fen, None, 7, "g7g8n");
        // Double step before single step; e.p. after captures.
        let fen = "k7/8/8/3pP3/8/8/1P6/K7 w - d6 0 2";
        // a1 king a2 b1 (1, 2); b2: b4 (3), b3 (4); e5: e6 (5), e.p. left d6 (6).
        nth(fen, Some(File::D), 3, "b2b4");
        nth(fen, Some(File::D), 4, "b2b3");
        nth(fen, Some(File::D), 5, "e5e6");
        nth(fen, Some(File::D), 6, "e5d6");
    }

    #[test]
    fn illegal_ep_after_castling_is_counted_never_played() {
        // The text's example: white d2-d4, black castles 0-0; white pawn e5
        // next to the black pawn d5 gets an e.p. slot to d6.
        let start = pos("4k2r/8/8/3pP3/8/8/3P3N/4K3 w k - 0 1");
        let mut cb = CbPosition::new(start.clone(), None);
        let d4 = uci(&cb.pos, "d2d4");
        cb.play(d4);
        assert_eq!(cb.ep_file, Some(File::D));
        let castle = uci(&cb.pos, "e8g8");
        cb.play(castle);
        assert_eq!(cb.ep_file, Some(File::D), "castling keeps the e.p. file");
        let mut scratch = Vec::new();
        cb.slots(&mut scratch);
        let ep = Slot::EnPassant {
            from: Square::E5,
            to: Square::D6,
        };
        let n = scratch.iter().position(|&s| s == ep).expect("slot counted") + 1;
        assert!(cb.decode(n as u8, &mut scratch).is_err(), "never played");
        // The knight on h2 is scanned after the e5 pawn: its numbers shift by one.
        let after = cb.pos.clone();
        let ke2 = uci(&after, "h2f3");
        let with_quirk = cb.encode(ke2, &mut scratch).expect("numbered");
        let without = CbPosition::new(after, None)
            .encode(ke2, &mut scratch)
            .expect("numbered");
        assert_eq!(with_quirk, without + 1);
    }
}
