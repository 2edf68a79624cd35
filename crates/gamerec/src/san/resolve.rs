//! Resolving parsed SAN to a legal move without generating move lists.
//!
//! shakmaty's `San::to_move` asks the position for every legal move of the
//! piece to the destination (`san_candidates`), which builds and copies a
//! 256-entry move list per move. Here the candidates are computed directly:
//! our pieces of the role that attack the destination (pawns: the squares
//! one or two steps behind, or the two capturing diagonals), filtered by
//! the disambiguator; each candidate is legal when our king is not attacked
//! once the move is made on the occupancy bitboards. Castling follows
//! shakmaty's own rule (rights, empty path, king path not attacked).
//!
//! The resolver reads a position through [`View`], so the same code serves
//! shakmaty's [`Chess`] and the checker's own [`super::fastpos::FastPos`].
//! The answers are exactly `San::to_move`'s; `tests::agrees_with_shakmaty`
//! compares them over every SAN shape in thousands of random positions.

use shakmaty::attacks;
use shakmaty::{Bitboard, CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};

/// What resolving SAN reads of a position: the pieces, the side to move,
/// the en passant square and the castling rights.
pub(crate) trait View {
    /// The side to move.
    fn turn(&self) -> Color;
    /// The pieces of `role`, both colours.
    fn role_bb(&self, role: Role) -> Bitboard;
    /// The pieces of `color`.
    fn color_bb(&self, color: Color) -> Bitboard;
    /// Every piece.
    fn occupied(&self) -> Bitboard;
    /// The square a pawn that just advanced two squares passed over (set
    /// after every double step, as shakmaty's `maybe_ep_square`).
    fn ep_square(&self) -> Option<Square>;
    /// The castling rook of `color` on `side` and the squares that must be
    /// empty to castle there, while the right is kept.
    fn castling(&self, color: Color, side: CastlingSide) -> Option<(Square, Bitboard)>;

    /// The role of the piece on `sq`.
    #[inline]
    fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Role::ALL
            .into_iter()
            .find(|&r| self.role_bb(r).contains(sq))
    }

    /// The king of `color`.
    #[inline]
    fn king_of(&self, color: Color) -> Option<Square> {
        (self.role_bb(Role::King) & self.color_bb(color)).single_square()
    }
}

impl View for Chess {
    #[inline]
    fn turn(&self) -> Color {
        Position::turn(self)
    }
    #[inline]
    fn role_bb(&self, role: Role) -> Bitboard {
        self.board().by_role(role)
    }
    #[inline]
    fn color_bb(&self, color: Color) -> Bitboard {
        self.board().by_color(color)
    }
    #[inline]
    fn occupied(&self) -> Bitboard {
        self.board().occupied()
    }
    #[inline]
    fn ep_square(&self) -> Option<Square> {
        self.maybe_ep_square()
    }
    #[inline]
    fn castling(&self, color: Color, side: CastlingSide) -> Option<(Square, Bitboard)> {
        let rook = self.castles().rook(color, side)?;
        Some((rook, self.castles().path(color, side)))
    }
    #[inline]
    fn role_at(&self, sq: Square) -> Option<Role> {
        self.board().role_at(sq)
    }
}

/// What a SAN move resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolved {
    /// Exactly one legal move matches.
    One(Move),
    /// No legal move matches.
    Illegal,
    /// More than one legal move matches.
    Ambiguous,
}

/// The squares a slider on each square reaches on an empty board along
/// `deltas` (file, rank steps).
const fn empty_board_lines(deltas: [(i32, i32); 4]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (df, dr) = deltas[d];
            let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1 << (r * 8 + f);
                f += df;
                r += dr;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

/// Rook lines from each square on an empty board: the same as
/// `attacks::rook_attacks(sq, Bitboard::EMPTY)`, from 512 bytes instead of
/// two dependent loads (magic entry, then the 700 KB attack table).
static ROOK_LINES: [u64; 64] = ROOK;
/// Bishop lines from each square on an empty board (see [`ROOK_LINES`]).
static BISHOP_LINES: [u64; 64] = BISHOP;
/// The values of [`ROOK_LINES`] and [`BISHOP_LINES`], for building
/// [`SOURCE_LINES`] too.
const ROOK: [u64; 64] = empty_board_lines([(1, 0), (-1, 0), (0, 1), (0, -1)]);
const BISHOP: [u64; 64] = empty_board_lines([(1, 1), (1, -1), (-1, 1), (-1, -1)]);

/// The squares a piece of each role (index `role as usize`) could move
/// from to reach a square, before the squares in between are looked at:
/// knight jumps, bishop and rook lines, both for the queen; none for pawns
/// and kings (they have their own paths). One row by the role, no branch
/// on it (the piece letter of a move is hard to predict).
static SOURCE_LINES: [[u64; 64]; 7] = {
    let knight = [
        (1, 2),
        (2, 1),
        (2, -1),
        (1, -2),
        (-1, -2),
        (-2, -1),
        (-2, 1),
        (-1, 2),
    ];
    let (rook, bishop) = (ROOK, BISHOP);
    let mut t = [[0u64; 64]; 7];
    let mut sq = 0;
    while sq < 64 {
        let mut k = 0;
        while k < 8 {
            let (f, r) = ((sq % 8) as i32 + knight[k].0, (sq / 8) as i32 + knight[k].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                t[Role::Knight as usize][sq] |= 1 << (r * 8 + f);
            }
            k += 1;
        }
        t[Role::Bishop as usize][sq] = bishop[sq];
        t[Role::Rook as usize][sq] = rook[sq];
        t[Role::Queen as usize][sq] = rook[sq] | bishop[sq];
        sq += 1;
    }
    t
};

#[inline(always)]
fn rook_lines(sq: Square) -> Bitboard {
    Bitboard(ROOK_LINES[sq.to_usize()])
}

#[inline(always)]
fn bishop_lines(sq: Square) -> Bitboard {
    Bitboard(BISHOP_LINES[sq.to_usize()])
}

/// Whether `sq` is attacked by one of `attackers` (enemy pieces of the side
/// that is not `us`) with `occupied` as the occupancy. Sliders are found on
/// the empty-board lines and checked with the small `between` table, so the
/// magic attack tables (800 KB, mostly cache misses) are not touched.
#[inline]
fn attacked<P: View>(
    board: &P,
    us: Color,
    sq: Square,
    attackers: Bitboard,
    occupied: Bitboard,
) -> bool {
    if (attacks::knight_attacks(sq) & board.role_bb(Role::Knight) & attackers).any()
        || (attacks::pawn_attacks(us, sq) & board.role_bb(Role::Pawn) & attackers).any()
        || (attacks::king_attacks(sq) & board.role_bb(Role::King) & attackers).any()
    {
        return true;
    }
    let queens = board.role_bb(Role::Queen);
    let snipers = ((rook_lines(sq) & (board.role_bb(Role::Rook) | queens))
        | (bishop_lines(sq) & (board.role_bb(Role::Bishop) | queens)))
        & attackers;
    snipers
        .into_iter()
        .any(|sniper| (attacks::between(sq, sniper) & occupied).is_empty())
}

/// Whether our king (on `king`) is safe after moving a non-king piece
/// `from` → `to`, removing the enemy piece on `captured` (the destination,
/// the en passant victim's square, or nothing).
#[inline]
fn king_safe_after<P: View>(
    board: &P,
    us: Color,
    king: Square,
    from: Square,
    to: Square,
    captured: Bitboard,
) -> bool {
    let occupied = (board.occupied() ^ from ^ captured) | to;
    let attackers = board.color_bb(!us) & !captured;
    !attacked(board, us, king, attackers, occupied)
}

/// Keeps the legal ones of `candidates` (non-king moves to `to`).
#[inline(always)]
fn legal_froms<P: View>(
    board: &P,
    us: Color,
    king: Square,
    candidates: Bitboard,
    to: Square,
    captured: Bitboard,
) -> Bitboard {
    let mut legal = Bitboard::EMPTY;
    for from in candidates {
        if king_safe_after(board, us, king, from, to, captured) {
            legal.add(from);
        }
    }
    legal
}

/// The squares our pieces of `role` could move from to reach `to`
/// (pseudo-legally; pawns and kings excluded).
#[inline]
fn piece_sources<P: View>(board: &P, us: Color, role: Role, to: Square) -> Bitboard {
    let ours = board.role_bb(role) & board.color_bb(us);
    let lines = Bitboard(SOURCE_LINES[role as usize][to.to_usize()]);
    // Empty-board lines, then nothing in between (see `attacked`; a
    // knight's jump has no square in between).
    let occupied = board.occupied();
    let mut sources = Bitboard::EMPTY;
    for from in lines & ours {
        if (attacks::between(to, from) & occupied).is_empty() {
            sources.add(from);
        }
    }
    sources
}

/// The legal source squares of `role` moves (knight to queen) to `to`,
/// ignoring any disambiguator: what canonical disambiguation looks at.
pub(super) fn legal_piece_sources<P: View>(pos: &P, role: Role, to: Square) -> Bitboard {
    let board = pos;
    let us = pos.turn();
    let (Some(king), false) = (board.king_of(us), board.color_bb(us).contains(to)) else {
        return Bitboard::EMPTY;
    };
    let captured = board.occupied() & Bitboard::from_square(to);
    legal_froms(
        board,
        us,
        king,
        piece_sources(board, us, role, to),
        to,
        captured,
    )
}

/// The one source in `legal`, or why there is not exactly one.
#[inline]
fn single(legal: Bitboard) -> Result<Square, Resolved> {
    match legal.single_square() {
        Some(sq) => Ok(sq),
        None if legal.is_empty() => Err(Resolved::Illegal),
        None => Err(Resolved::Ambiguous),
    }
}

/// Resolves `San::Normal` exactly as `San::to_move` does.
#[inline]
pub(super) fn resolve_normal<P: View>(
    pos: &P,
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
) -> Resolved {
    match resolve_inner(pos, role, file, rank, capture, to, promotion) {
        Ok(m) => Resolved::One(m),
        Err(r) => r,
    }
}

#[inline(always)]
fn resolve_inner<P: View>(
    pos: &P,
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
) -> Result<Move, Resolved> {
    let board = pos;
    let us = pos.turn();
    if board.color_bb(us).contains(to) {
        return Err(Resolved::Illegal);
    }
    let king = board.king_of(us).ok_or(Resolved::Illegal)?;
    let mut mask = Bitboard::FULL;
    if let Some(f) = file {
        mask &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        mask &= Bitboard::from_rank(r);
    }
    // The role on the destination is looked up for captures only: any
    // other move to an occupied square is illegal.
    let occupied_to = board.occupied().contains(to);
    let target = if capture && occupied_to {
        board.role_at(to)
    } else {
        None
    };
    let to_bb = Bitboard::from_square(to);
    match role {
        Role::Pawn => {
            let last_rank = match us {
                Color::White => Rank::Eighth,
                Color::Black => Rank::First,
            };
            let promotes = to.rank() == last_rank;
            let promotion_ok = match promotion {
                None => !promotes,
                Some(p) => promotes && !matches!(p, Role::Pawn | Role::King),
            };
            if !promotion_ok {
                return Err(Resolved::Illegal);
            }
            let pawns = board.role_bb(Role::Pawn) & board.color_bb(us);
            if capture {
                let sources = attacks::pawn_attacks(!us, to) & pawns & mask;
                if target.is_some() {
                    let from = single(legal_froms(board, us, king, sources, to, to_bb))?;
                    return Ok(Move::Normal {
                        role,
                        from,
                        capture: target,
                        to,
                        promotion,
                    });
                }
                if pos.ep_square() != Some(to) {
                    return Err(Resolved::Illegal);
                }
                // En passant: the victim stands beside each source.
                let mut legal = Bitboard::EMPTY;
                for from in sources {
                    let victim = Square::from_coords(to.file(), from.rank());
                    if king_safe_after(board, us, king, from, to, Bitboard::from_square(victim)) {
                        legal.add(from);
                    }
                }
                let from = single(legal)?;
                Ok(Move::EnPassant { from, to })
            } else {
                if occupied_to {
                    return Err(Resolved::Illegal);
                }
                let (back, double_rank) = match us {
                    Color::White => (-8, Rank::Fourth),
                    Color::Black => (8, Rank::Fifth),
                };
                let one = to.offset(back).ok_or(Resolved::Illegal)?;
                let source = if pawns.contains(one) {
                    one
                } else if to.rank() == double_rank && !board.occupied().contains(one) {
                    let two = one.offset(back).ok_or(Resolved::Illegal)?;
                    if !pawns.contains(two) {
                        return Err(Resolved::Illegal);
                    }
                    two
                } else {
                    return Err(Resolved::Illegal);
                };
                if !mask.contains(source)
                    || !king_safe_after(board, us, king, source, to, Bitboard::EMPTY)
                {
                    return Err(Resolved::Illegal);
                }
                Ok(Move::Normal {
                    role,
                    from: source,
                    capture: None,
                    to,
                    promotion,
                })
            }
        }
        Role::King => {
            if promotion.is_some()
                || capture != occupied_to
                || !mask.contains(king)
                || !attacks::king_attacks(king).contains(to)
                || attacked(board, us, to, board.color_bb(!us), board.occupied() ^ king)
            {
                return Err(Resolved::Illegal);
            }
            Ok(Move::Normal {
                role,
                from: king,
                capture: target,
                to,
                promotion: None,
            })
        }
        Role::Knight | Role::Bishop | Role::Rook | Role::Queen => {
            if promotion.is_some() || capture != occupied_to {
                return Err(Resolved::Illegal);
            }
            let sources = piece_sources(board, us, role, to) & mask;
            let captured = if occupied_to { to_bb } else { Bitboard::EMPTY };
            let from = single(legal_froms(board, us, king, sources, to, captured))?;
            Ok(Move::Normal {
                role,
                from,
                capture: target,
                to,
                promotion: None,
            })
        }
    }
}

/// The legal castling move to `side`, exactly as shakmaty generates it.
#[inline]
pub(super) fn resolve_castle<P: View>(pos: &P, side: CastlingSide) -> Option<Move> {
    let board = pos;
    let us = pos.turn();
    let king = board.king_of(us)?;
    let (rook, path) = pos.castling(us, side)?;
    let occupied = board.occupied();
    if (path & occupied).any() {
        return None;
    }
    let king_to = side.king_to(us);
    let them = board.color_bb(!us);
    let after = occupied ^ king ^ rook ^ side.rook_to(us);
    if attacked(board, us, king_to, them, after) {
        return None;
    }
    let without_king = occupied ^ king;
    for sq in attacks::between(king, king_to).with(king) {
        if attacked(board, us, sq, them, without_king) {
            return None;
        }
    }
    Some(Move::Castle { king, rook })
}

#[cfg(test)]
pub(super) mod tests {
    use shakmaty::san::San;
    use shakmaty::{CastlingMode, fen::Fen};

    use super::*;

    /// A small deterministic generator (xorshift64*), for the random games
    /// of this module's tests and `fastpos`'s.
    pub(in crate::san) struct Rng(pub(in crate::san) u64);

    impl Rng {
        pub(in crate::san) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }
    }

    fn expected(pos: &Chess, san: San) -> Resolved {
        match san.to_move(pos) {
            Ok(m) => Resolved::One(m),
            Err(shakmaty::san::SanError::AmbiguousSan) => Resolved::Ambiguous,
            Err(shakmaty::san::SanError::IllegalSan) => Resolved::Illegal,
        }
    }

    /// Every SAN shape (role, destination, capture flag, promotion, no
    /// disambiguator, each file, each rank, each square) against shakmaty.
    fn compare_all(pos: &Chess) -> usize {
        let mut compared = 0;
        let mut disambiguators: Vec<(Option<File>, Option<Rank>)> = vec![(None, None)];
        disambiguators.extend(File::ALL.iter().map(|&f| (Some(f), None)));
        disambiguators.extend(Rank::ALL.iter().map(|&r| (None, Some(r))));
        for sq in pos.us() {
            disambiguators.push((Some(sq.file()), Some(sq.rank())));
        }
        for role in Role::ALL {
            for to in Square::ALL {
                for capture in [false, true] {
                    let promotions: &[Option<Role>] = if role == Role::Pawn {
                        &[
                            None,
                            Some(Role::Queen),
                            Some(Role::Knight),
                            Some(Role::King),
                            Some(Role::Pawn),
                        ]
                    } else {
                        &[None, Some(Role::Queen)]
                    };
                    for &promotion in promotions {
                        for &(file, rank) in &disambiguators {
                            let san = San::Normal {
                                role,
                                file,
                                rank,
                                capture,
                                to,
                                promotion,
                            };
                            let got = resolve_normal(pos, role, file, rank, capture, to, promotion);
                            assert_eq!(
                                got,
                                expected(pos, san),
                                "{san} in {}",
                                Fen::from_position(pos, shakmaty::EnPassantMode::Always)
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            assert_eq!(
                resolve_castle(pos, side),
                pos.castling_moves(side).first().copied(),
                "{side:?} in {}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Always)
            );
        }
        compared
    }

    fn from_fen(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Chess960)
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    #[test]
    fn empty_board_lines_are_shakmatys() {
        for sq in Square::ALL {
            let row = |role: Role| Bitboard(SOURCE_LINES[role as usize][sq.to_usize()]);
            assert_eq!(row(Role::Knight), attacks::knight_attacks(sq));
            assert_eq!(row(Role::Bishop), bishop_lines(sq));
            assert_eq!(row(Role::Rook), rook_lines(sq));
            assert_eq!(
                row(Role::Queen),
                attacks::queen_attacks(sq, Bitboard::EMPTY)
            );
            assert_eq!(row(Role::Pawn) | row(Role::King), Bitboard::EMPTY);
            assert_eq!(rook_lines(sq), attacks::rook_attacks(sq, Bitboard::EMPTY));
            assert_eq!(
                bishop_lines(sq),
                attacks::bishop_attacks(sq, Bitboard::EMPTY)
            );
        }
    }

    #[test]
    fn agrees_with_shakmaty_in_tricky_positions() {
        for fen in [
            // Pinned knight (the standard's example), en passant pins.
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
            "8/8/3k4/8/2pP4/8/8/2K2B2 b - d3 0 1",
            "4k3/8/8/1b6/8/8/8/q2NK3 w - - 0 1",
            // Double check, evasions, promotions with capture.
            "4k3/8/8/8/8/5n2/3r4/4K3 w - - 0 1",
            "1r2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/p1p5/1R2K3 b - - 0 1",
            // Castling through attacked squares, Chess960 castling.
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1",
            "1r2k2r/8/8/8/8/8/8/1R2K2R w KQk - 0 1",
            "rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1",
            "1r1k1r2/8/8/8/8/8/8/1R1K1R2 w KQkq - 0 1",
            // Two queens and knights that need every disambiguation.
            "4k3/8/8/2N1N3/1Q3Q2/8/2N1N3/4K3 w - - 0 1",
            "2k5/8/8/8/Q6Q/8/8/Q3K2Q w - - 0 1",
        ] {
            compare_all(&from_fen(fen));
        }
    }

    #[test]
    fn agrees_with_shakmaty_in_random_games() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut compared = 0;
        for _game in 0..30 {
            let mut pos = Chess::default();
            for ply in 0..160 {
                if ply % 5 == 0 {
                    compared += compare_all(&pos);
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    compare_all(&pos);
                    break;
                }
                let m = moves[rng.below(moves.len())];
                pos.play_unchecked(m);
            }
        }
        assert!(compared > 100_000);
    }
}
