//! Static evaluation: material, piece-square tables (tapered between
//! middlegame and endgame), mobility, bishop pair, pawn structure and a
//! simple king shelter. Centipawns from the side to move's view.

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Chess, Color, File, Position, Rank, Role, Square};

/// Material values indexed by `Role as usize - 1` (pawn … king).
pub const VALUE: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// Value of a role.
#[inline]
pub fn value(role: Role) -> i32 {
    VALUE[role as usize - 1]
}

// Tables written from White's side with rank 8 first (as on a diagram).
#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
   -50,-40,-30,-30,-30,-30,-40,-50,
   -40,-20,  0,  0,  0,  0,-20,-40,
   -30,  0, 10, 15, 15, 10,  0,-30,
   -30,  5, 15, 20, 20, 15,  5,-30,
   -30,  0, 15, 20, 20, 15,  0,-30,
   -30,  5, 10, 15, 15, 10,  5,-30,
   -40,-20,  0,  5,  5,  0,-20,-40,
   -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
const BISHOP: [i32; 64] = [
   -20,-10,-10,-10,-10,-10,-10,-20,
   -10,  0,  0,  0,  0,  0,  0,-10,
   -10,  0,  5, 10, 10,  5,  0,-10,
   -10,  5,  5, 10, 10,  5,  5,-10,
   -10,  0, 10, 10, 10, 10,  0,-10,
   -10, 10, 10, 10, 10, 10, 10,-10,
   -10,  5,  0,  0,  0,  0,  5,-10,
   -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];
#[rustfmt::skip]
const QUEEN: [i32; 64] = [
   -20,-10,-10, -5, -5,-10,-10,-20,
   -10,  0,  0,  0,  0,  0,  0,-10,
   -10,  0,  5,  5,  5,  5,  0,-10,
    -5,  0,  5,  5,  5,  5,  0, -5,
     0,  0,  5,  5,  5,  5,  0, -5,
   -10,  5,  5,  5,  5,  5,  0,-10,
   -10,  0,  5,  0,  0,  0,  0,-10,
   -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
const KING_MG: [i32; 64] = [
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -20,-30,-30,-40,-40,-30,-30,-20,
   -10,-20,-20,-20,-20,-20,-20,-10,
    20, 20,  0,  0,  0,  0, 20, 20,
    20, 30, 10,  0,  0, 10, 30, 20,
];
#[rustfmt::skip]
const KING_EG: [i32; 64] = [
   -50,-40,-30,-20,-20,-30,-40,-50,
   -30,-20,-10,  0,  0,-10,-20,-30,
   -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-10, 30, 40, 40, 30,-10,-30,
   -30,-10, 30, 40, 40, 30,-10,-30,
   -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-30,  0,  0,  0,  0,-30,-30,
   -50,-30,-30,-30,-30,-30,-30,-50,
];

const PASSED_MG: [i32; 8] = [0, 5, 10, 15, 25, 40, 60, 0];
const PASSED_EG: [i32; 8] = [0, 10, 20, 35, 60, 100, 150, 0];
const PHASE_TOTAL: i32 = 24;

#[inline]
fn table_index(color: Color, sq: Square) -> usize {
    let file = sq.file() as usize;
    let rank = sq.rank() as usize;
    match color {
        Color::White => (7 - rank) * 8 + file,
        Color::Black => rank * 8 + file,
    }
}

/// Game phase: 24 with all pieces on, 0 with only pawns and kings.
pub fn phase(board: &Board) -> i32 {
    let p = board.knights().count()
        + board.bishops().count()
        + 2 * board.rooks().count()
        + 4 * board.queens().count();
    (p as i32).min(PHASE_TOTAL)
}

fn adjacent_files(file: File) -> Bitboard {
    let f = file as i32;
    let mut bb = Bitboard::EMPTY;
    for g in [f - 1, f + 1] {
        if (0..8).contains(&g) {
            bb |= Bitboard::from_file(File::new(g as u32));
        }
    }
    bb
}

/// Squares in front of `sq` (towards promotion for `color`) on its file and
/// the adjacent files.
fn front_span(color: Color, sq: Square) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    let rank = sq.rank() as u32;
    let mut ahead = Bitboard::EMPTY;
    for r in 0..8u32 {
        let is_ahead = match color {
            Color::White => r > rank,
            Color::Black => r < rank,
        };
        if is_ahead {
            ahead |= Bitboard::from_rank(Rank::new(r));
        }
    }
    files & ahead
}

/// Evaluates one side: (middlegame, endgame) terms.
fn side(board: &Board, color: Color) -> (i32, i32) {
    let us = board.by_color(color);
    let them = board.by_color(!color);
    let occ = board.occupied();
    let our_pawns = board.pawns() & us;
    let their_pawns = board.pawns() & them;
    let their_pawn_attacks = their_pawns
        .into_iter()
        .fold(Bitboard::EMPTY, |acc, sq| acc | pawn_attacks(!color, sq));
    let safe = !us & !their_pawn_attacks;
    let their_king_zone = board.king_of(!color).map_or(Bitboard::EMPTY, king_attacks);
    let (mut mg, mut eg) = (0, 0);
    let mut king_attackers = 0;
    let mut king_attack_weight = 0;

    for sq in our_pawns {
        let i = table_index(color, sq);
        mg += 100 + PAWN[i];
        eg += 120 + PAWN[i] / 2;
        let file_bb = Bitboard::from_file(sq.file());
        if (our_pawns & file_bb).more_than_one() {
            mg -= 8;
            eg -= 15;
        }
        if (our_pawns & adjacent_files(sq.file())).is_empty() {
            mg -= 10;
            eg -= 15;
        }
        if (their_pawns & front_span(color, sq)).is_empty() {
            let rel_rank = match color {
                Color::White => sq.rank() as usize,
                Color::Black => 7 - sq.rank() as usize,
            };
            mg += PASSED_MG[rel_rank];
            eg += PASSED_EG[rel_rank];
        }
    }
    for sq in board.knights() & us {
        let i = table_index(color, sq);
        mg += 320 + KNIGHT[i];
        eg += 320 + KNIGHT[i] / 2;
        let a = knight_attacks(sq);
        let m = (a & safe).count() as i32;
        mg += 4 * (m - 4);
        eg += 4 * (m - 4);
        if a.intersects(their_king_zone) {
            king_attackers += 1;
            king_attack_weight += 2 * (a & their_king_zone).count() as i32;
        }
    }
    let bishops = board.bishops() & us;
    if bishops.more_than_one() {
        mg += 30;
        eg += 50;
    }
    for sq in bishops {
        let i = table_index(color, sq);
        mg += 330 + BISHOP[i];
        eg += 330 + BISHOP[i] / 2;
        let a = bishop_attacks(sq, occ);
        let m = (a & safe).count() as i32;
        mg += 5 * (m - 6);
        eg += 5 * (m - 6);
        if a.intersects(their_king_zone) {
            king_attackers += 1;
            king_attack_weight += 2 * (a & their_king_zone).count() as i32;
        }
    }
    for sq in board.rooks() & us {
        let i = table_index(color, sq);
        mg += 500 + ROOK[i];
        eg += 500;
        let a = rook_attacks(sq, occ);
        let m = (a & safe).count() as i32;
        mg += 2 * (m - 7);
        eg += 4 * (m - 7);
        let file_bb = Bitboard::from_file(sq.file());
        if (our_pawns & file_bb).is_empty() {
            let open = (their_pawns & file_bb).is_empty();
            mg += if open { 25 } else { 12 };
            eg += if open { 10 } else { 5 };
        }
        if a.intersects(their_king_zone) {
            king_attackers += 1;
            king_attack_weight += 3 * (a & their_king_zone).count() as i32;
        }
    }
    for sq in board.queens() & us {
        let i = table_index(color, sq);
        mg += 900 + QUEEN[i];
        eg += 900 + QUEEN[i];
        let a = queen_attacks(sq, occ);
        let m = (a & safe).count() as i32;
        mg += m - 14;
        eg += 2 * (m - 14);
        if a.intersects(their_king_zone) {
            king_attackers += 1;
            king_attack_weight += 5 * (a & their_king_zone).count() as i32;
        }
    }
    if king_attackers >= 2 {
        mg += king_attack_weight * (king_attackers.min(5) * 6) / 4;
    }
    if let Some(k) = board.king_of(color) {
        let i = table_index(color, k);
        mg += KING_MG[i];
        eg += KING_EG[i];
        // Pawn shelter: own pawns on the king's and adjacent files, just ahead.
        let files = Bitboard::from_file(k.file()) | adjacent_files(k.file());
        let shelter = our_pawns & files & front_span(color, k) & king_zone_ranks(color, k);
        mg += 12 * shelter.count().min(3) as i32;
        if (our_pawns & Bitboard::from_file(k.file())).is_empty() {
            mg -= 25;
        }
    }
    (mg, eg)
}

fn king_zone_ranks(color: Color, k: Square) -> Bitboard {
    let r = k.rank() as i32;
    let mut bb = Bitboard::EMPTY;
    let d = if color == Color::White { 1 } else { -1 };
    for rr in [r + d, r + 2 * d] {
        if (0..8).contains(&rr) {
            bb |= Bitboard::from_rank(Rank::new(rr as u32));
        }
    }
    bb
}

/// Evaluates `pos` from the side to move's point of view.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let (wmg, weg) = side(board, Color::White);
    let (bmg, beg) = side(board, Color::Black);
    let ph = phase(board);
    let mg = wmg - bmg;
    let eg = weg - beg;
    let mut score = (mg * ph + eg * (PHASE_TOTAL - ph)) / PHASE_TOTAL;
    // Drawish material: no pawns and at most a minor piece ahead.
    let white_pawns = (board.pawns() & board.white()).count();
    let black_pawns = (board.pawns() & board.black()).count();
    let white_drawish = score > 0
        && white_pawns == 0
        && non_pawn(board, Color::White) - non_pawn(board, Color::Black) <= 330;
    let black_drawish = score < 0
        && black_pawns == 0
        && non_pawn(board, Color::Black) - non_pawn(board, Color::White) <= 330;
    if white_drawish || black_drawish {
        score /= 8;
    }
    let score = if pos.turn() == Color::White {
        score
    } else {
        -score
    };
    score + 10
}

fn non_pawn(board: &Board, color: Color) -> i32 {
    let us = board.by_color(color);
    [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .map(|r| value(r) * (board.by_role(r) & us).count() as i32)
        .sum()
}

/// Whether the side to move has a piece other than pawns and king (null-move safety).
pub fn has_non_pawn_material(pos: &Chess) -> bool {
    let b = pos.board();
    let us = b.by_color(pos.turn());
    (us & !(b.pawns() | b.kings())).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn symmetric_and_sane() {
        // The start position is balanced (only the tempo bonus).
        assert_eq!(evaluate(&Chess::default()), 10);
        // Mirror symmetry: same position with colours swapped scores the same.
        let a = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let b = pos("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(evaluate(&a), evaluate(&b));
        // A queen up is clearly winning.
        let q = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert!(evaluate(&q) > 800);
        let q_black_to_move = pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
        assert!(evaluate(&q_black_to_move) < -800);
    }
}
