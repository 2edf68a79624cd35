//! The checker's own position: the same facts as shakmaty's [`Chess`]
//! (pieces, side to move, castling rights as rook squares, en passant
//! square, move counters) in plain bitboards that a move updates with a
//! few exclusive-ors.
//!
//! `Chess::play_unchecked` clears a square from all nine bitboards before
//! setting it and keeps castling paths up to date; here a move toggles only
//! the bitboards it changes and castling rights are one mask, the paths
//! being worked out when a castling move is read. The SAN resolver reads
//! both through [`View`]; anything the hot path leaves to the full reader
//! gets a [`Chess`] back from [`FastPos::rebuild_chess`].

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, CastlingSide, Chess, Color, FromSetup, Move,
    Position, PositionError, Rank, Role, Setup, Square, attacks,
};

use super::resolve::View;
use crate::model::PlyMove;

/// How to take back one move ([`FastPos::undo`]): the move and what it
/// changed besides the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Undo {
    mv: PlyMove,
    rights: Bitboard,
    ep: Option<Square>,
    halfmoves: u32,
    fullmoves: u32,
}

/// A standard-chess (or Chess960) position for the legality checker's hot
/// loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FastPos {
    /// Pieces by role (index `role as usize`, 1 to 6: no bounds check;
    /// index 0 stays empty).
    roles: [Bitboard; 7],
    /// Pieces by colour (index `color as usize`: black 0, white 1).
    colors: [Bitboard; 2],
    occupied: Bitboard,
    /// Castling rights: the squares of the rooks that may still castle.
    rights: Bitboard,
    ep: Option<Square>,
    turn: Color,
    mode: CastlingMode,
    halfmoves: u32,
    fullmoves: u32,
}

impl Default for FastPos {
    fn default() -> FastPos {
        FastPos::from_chess(&Chess::default(), CastlingMode::Standard)
    }
}

#[inline]
const fn ri(role: Role) -> usize {
    role as usize
}

#[inline]
const fn ci(color: Color) -> usize {
    color as usize
}

impl FastPos {
    /// The position of `pos` (`mode` is how its castling rights were read,
    /// used when a [`Chess`] is made again).
    pub(crate) fn from_chess(pos: &Chess, mode: CastlingMode) -> FastPos {
        let board = pos.board();
        FastPos {
            roles: [
                Bitboard::EMPTY,
                board.pawns(),
                board.knights(),
                board.bishops(),
                board.rooks(),
                board.queens(),
                board.kings(),
            ],
            colors: [board.by_color(Color::Black), board.by_color(Color::White)],
            occupied: board.occupied(),
            rights: pos.castles().castling_rights(),
            ep: pos.maybe_ep_square(),
            turn: Position::turn(pos),
            mode,
            halfmoves: pos.halfmoves(),
            fullmoves: pos.fullmoves().get(),
        }
    }

    /// The same position as shakmaty's [`Chess`], for the full SAN reader.
    /// `None` only if shakmaty would not accept it, which a position
    /// reached by legal moves from an accepted one never is.
    #[cold]
    #[inline(never)]
    pub(crate) fn rebuild_chess(&self) -> Option<Chess> {
        let r = &self.roles;
        let board = Board::try_from_bitboards(
            ByRole {
                pawn: r[1],
                knight: r[2],
                bishop: r[3],
                rook: r[4],
                queen: r[5],
                king: r[6],
            },
            ByColor {
                black: self.colors[0],
                white: self.colors[1],
            },
        )
        .ok()?;
        let setup = Setup {
            board,
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: self.turn,
            castling_rights: self.rights,
            ep_square: self.ep,
            remaining_checks: None,
            halfmoves: self.halfmoves,
            fullmoves: NonZeroU32::new(self.fullmoves).unwrap_or(NonZeroU32::MIN),
        };
        // As `crate::fen::read_fen` accepts positions.
        Chess::from_setup(setup, self.mode)
            .or_else(PositionError::ignore_impossible_check)
            .or_else(PositionError::ignore_too_much_material)
            .ok()
    }

    #[inline(always)]
    fn toggle(&mut self, color: Color, role: Role, squares: Bitboard) {
        self.roles[ri(role)] ^= squares;
        self.colors[ci(color)] ^= squares;
    }

    /// What [`FastPos::undo`] needs to take back the move played next.
    #[inline(always)]
    pub(crate) fn undo_info(&self, mv: PlyMove) -> Undo {
        Undo {
            mv,
            rights: self.rights,
            ep: self.ep,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// Takes back the move of `undo`, the last one played: its piece
    /// toggles again (exclusive-or undoes itself) and the counters, rights
    /// and en passant square come back.
    pub(crate) fn undo(&mut self, undo: &Undo) {
        let us = !self.turn;
        if let PlyMove::Move(m) = undo.mv {
            self.toggle_pieces(us, m);
        }
        self.turn = us;
        self.rights = undo.rights;
        self.ep = undo.ep;
        self.halfmoves = undo.halfmoves;
        self.fullmoves = undo.fullmoves;
    }

    /// The bitboard changes of `m` by `us` (their own inverse).
    #[inline(always)]
    fn toggle_pieces(&mut self, us: Color, m: Move) {
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                let from_bb = Bitboard::from_square(from);
                let to_bb = Bitboard::from_square(to);
                if let Some(captured) = capture {
                    self.toggle(!us, captured, to_bb);
                    self.occupied ^= from_bb;
                } else {
                    self.occupied ^= from_bb | to_bb;
                }
                self.roles[ri(role)] ^= from_bb;
                self.roles[ri(promotion.unwrap_or(role))] ^= to_bb;
                self.colors[ci(us)] ^= from_bb | to_bb;
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                self.toggle(
                    us,
                    Role::King,
                    Bitboard::from_square(king) ^ Bitboard::from_square(side.king_to(us)),
                );
                self.toggle(
                    us,
                    Role::Rook,
                    Bitboard::from_square(rook) ^ Bitboard::from_square(side.rook_to(us)),
                );
                self.occupied = self.colors[0] | self.colors[1];
            }
            Move::EnPassant { from, to } => {
                let victim = Bitboard::from_square(Square::from_coords(to.file(), from.rank()));
                let moved = Bitboard::from_square(from) | Bitboard::from_square(to);
                self.toggle(us, Role::Pawn, moved);
                self.toggle(!us, Role::Pawn, victim);
                self.occupied ^= moved | victim;
            }
            Move::Put { role, to } => {
                // Not a standard-chess move; kept exact all the same.
                let to_bb = Bitboard::from_square(to);
                self.toggle(us, role, to_bb);
                self.occupied ^= to_bb;
            }
        }
    }

    /// Plays `m`, legal here, as `Chess::play_unchecked` does.
    #[inline(always)]
    pub(crate) fn play(&mut self, m: Move) {
        let us = self.turn;
        self.ep = None;
        self.halfmoves = self.halfmoves.saturating_add(1);
        self.toggle_pieces(us, m);
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                ..
            } => {
                if capture.is_some() {
                    self.halfmoves = 0;
                }
                if role == Role::Pawn {
                    self.halfmoves = 0;
                    if from.to_u32().abs_diff(to.to_u32()) == 16 {
                        self.ep = Some(Square::from_coords(
                            from.file(),
                            us.fold_wb(Rank::Third, Rank::Sixth),
                        ));
                    }
                } else if role == Role::King {
                    self.rights &= !Bitboard::from_rank(us.backrank());
                }
                // A rook leaving its square, or taken on it, ends its right.
                self.rights &= !(Bitboard::from_square(from) | Bitboard::from_square(to));
            }
            Move::Castle { .. } => self.rights &= !Bitboard::from_rank(us.backrank()),
            Move::EnPassant { .. } => self.halfmoves = 0,
            Move::Put { .. } => {}
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
    }

    /// Plays a move read by the full reader (a null move passes the turn,
    /// as [`crate::model::play_ply`] does).
    #[inline]
    pub(crate) fn play_ply(&mut self, mv: PlyMove) {
        match mv {
            PlyMove::Move(m) => self.play(m),
            PlyMove::Null => self.play_null(),
        }
    }

    #[cold]
    #[inline(never)]
    fn play_null(&mut self) {
        if let Some(pos) = self.rebuild_chess() {
            let after = crate::model::play_ply(&pos, PlyMove::Null);
            *self = FastPos::from_chess(&after, self.mode);
        }
    }
}

impl View for FastPos {
    #[inline(always)]
    fn turn(&self) -> Color {
        self.turn
    }
    #[inline(always)]
    fn role_bb(&self, role: Role) -> Bitboard {
        self.roles[ri(role)]
    }
    #[inline(always)]
    fn color_bb(&self, color: Color) -> Bitboard {
        self.colors[ci(color)]
    }
    #[inline(always)]
    fn occupied(&self) -> Bitboard {
        self.occupied
    }
    #[inline(always)]
    fn ep_square(&self) -> Option<Square> {
        self.ep
    }
    #[inline]
    fn castling(&self, color: Color, side: CastlingSide) -> Option<(Square, Bitboard)> {
        // As shakmaty's `Castles::from_setup`: the outermost rook with the
        // right on the side of the king.
        let king = self.king_of(color)?;
        let rooks = self.rights & Bitboard::from_rank(color.backrank());
        let rook = match side {
            CastlingSide::QueenSide => rooks.first().filter(|r| r.file() < king.file()),
            CastlingSide::KingSide => rooks.last().filter(|r| r.file() > king.file()),
        }?;
        let rook_to = side.rook_to(color);
        let king_to = side.king_to(color);
        let path = (attacks::between(rook, rook_to).with(rook_to)
            | attacks::between(king, king_to).with(king_to))
        .without(king)
        .without(rook);
        Some((rook, path))
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::san::San;

    use super::*;
    use crate::san::resolve::tests::Rng;

    fn same(fast: &FastPos, pos: &Chess, what: &str) {
        assert_eq!(
            *fast,
            FastPos::from_chess(pos, fast.mode),
            "{what} in {}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Always)
        );
        let back = fast.rebuild_chess().expect("shakmaty accepts the position");
        assert_eq!(
            Fen::from_position(&back, shakmaty::EnPassantMode::Always),
            Fen::from_position(pos, shakmaty::EnPassantMode::Always)
        );
    }

    /// Random legal games from the standard start and from Chess960 and
    /// odd starts: every move played on a [`FastPos`] leaves the position
    /// shakmaty reaches, and every move's SAN, read by the hot path on the
    /// [`FastPos`], is the move shakmaty's `San::to_move` finds.
    #[test]
    fn plays_and_resolves_as_shakmaty_in_random_games() {
        let starts = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut moves = 0;
        for game in 0..300 {
            let (fen, mode) = starts[game % starts.len()];
            let mut pos: Chess = fen
                .parse::<Fen>()
                .expect("fen")
                .into_position(mode)
                .expect("position");
            let mut fast = FastPos::from_chess(&pos, mode);
            same(&fast, &pos, "start");
            for _ in 0..200 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                let text = San::from_move(&pos, m).to_string();
                assert_eq!(
                    crate::san::read_canonical_move_in(&fast, text.as_bytes()),
                    Some(m),
                    "{text} in {}",
                    Fen::from_position(&pos, shakmaty::EnPassantMode::Always)
                );
                let before = fast;
                let undo = fast.undo_info(PlyMove::Move(m));
                pos.play_unchecked(m);
                fast.play(m);
                same(&fast, &pos, &text);
                let mut back = fast;
                back.undo(&undo);
                assert_eq!(back, before, "{text} taken back");
                moves += 1;
            }
        }
        assert!(moves > 20_000, "{moves} moves");
    }

    #[test]
    fn null_move_passes_the_turn() {
        let mut fast = FastPos::default();
        fast.play(Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        });
        let before = fast;
        let undo = fast.undo_info(PlyMove::Null);
        fast.play_ply(PlyMove::Null);
        assert_eq!(fast.ep, None);
        assert_eq!(fast.turn, Color::White);
        assert_eq!(
            fast.rebuild_chess().map(|p| Position::turn(&p)),
            Some(Color::White)
        );
        fast.undo(&undo);
        assert_eq!(fast, before);
    }
}
