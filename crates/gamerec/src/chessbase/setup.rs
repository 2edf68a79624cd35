//! The special starting position (1993 text, section 2.6).
//!
//! 32 bytes, two squares each, rank by rank (a1, b1 .. h1, a2 .. h8), the
//! high nibble holding files a, c, e, g; piece codes 1-6 (white K Q N B R P)
//! and 9-14 (black); byte 33 is the move number - 1. Side to move and castling
//! rights come from header byte 10 (bit 1 Black to move; bits 2-5 White long,
//! White short, Black long, Black short), the e.p. file from byte 11 bits 0-3.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Piece,
    Position, Rank, Role, Setup, Square,
};

/// Length of the stored start position.
pub const SETUP_LEN: usize = 33;

const ROLES: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Pawn,
];

fn piece_code(p: Piece) -> u8 {
    let base = ROLES.iter().position(|&r| r == p.role).unwrap_or(0) as u8 + 1;
    p.color.fold_wb(base, base + 8)
}

fn code_piece(code: u8) -> Option<Piece> {
    let (color, base) = match code {
        1..=6 => (Color::White, code),
        9..=14 => (Color::Black, code - 8),
        _ => return None,
    };
    Some(Piece {
        color,
        role: ROLES[usize::from(base - 1)],
    })
}

/// A start position read from the file, with what had to be repaired.
#[derive(Debug, Clone)]
pub struct ReadSetup {
    /// The position.
    pub pos: Chess,
    /// ChessBase's e.p. file (kept even when shakmaty finds no legal e.p.).
    pub ep_file: Option<File>,
    /// Repairs made (castling rights or e.p. file that do not fit the board).
    pub warnings: Vec<String>,
}

/// Reads the 33 bytes with header bytes 10 and 11.
pub fn read_setup(bytes: &[u8; SETUP_LEN], b10: u8, b11: u8) -> Result<ReadSetup, String> {
    let mut board = Board::empty();
    for i in 0..64usize {
        let byte = bytes[i / 2];
        let code = if i % 2 == 0 { byte >> 4 } else { byte & 0x0f };
        if code == 0 {
            continue;
        }
        let piece = code_piece(code).ok_or_else(|| {
            format!(
                "start position byte {}: piece code {code} on {} is not 1-6 or 9-14",
                i / 2 + 1,
                Square::new(i as u32)
            )
        })?;
        board.set_piece_at(Square::new(i as u32), piece);
    }
    let turn = if b10 & 2 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let mut rights = Bitboard::EMPTY;
    for (bit, sq) in [
        (0x04, Square::A1),
        (0x08, Square::H1),
        (0x10, Square::A8),
        (0x20, Square::H8),
    ] {
        if b10 & bit != 0 {
            rights.add(sq);
        }
    }
    let ep_file = match b11 & 0x0f {
        0 => None,
        f @ 1..=8 => Some(File::new(u32::from(f - 1))),
        f => return Err(format!("e.p. file {f} is not 1-8")),
    };
    let ep_square = ep_file.map(|f| Square::from_coords(f, turn.fold_wb(Rank::Sixth, Rank::Third)));
    let setup = Setup {
        board,
        turn,
        castling_rights: rights,
        ep_square,
        halfmoves: 0,
        fullmoves: NonZeroU32::new(u32::from(bytes[32]) + 1).unwrap_or(NonZeroU32::MIN),
        ..Setup::empty()
    };
    let mut warnings = Vec::new();
    let pos = match setup.position::<Chess>(CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(err) => {
            let text = err.to_string();
            let repaired = match err.ignore_invalid_castling_rights() {
                Ok(pos) => Ok(pos),
                Err(e) => e.ignore_invalid_ep_square(),
            };
            match repaired {
                Ok(pos) => {
                    warnings.push(format!("start position repaired: {text}"));
                    pos
                }
                Err(err) => return Err(format!("illegal start position: {err}")),
            }
        }
    };
    Ok(ReadSetup {
        pos,
        ep_file,
        warnings,
    })
}

/// The 33 bytes and header bits (byte 10 bits 1-5 with bit 0 set; byte 11 bits 0-3)
/// of `pos`. Errors when the move number does not fit (more than 256).
pub fn write_setup(pos: &Chess) -> Result<([u8; SETUP_LEN], u8, u8), String> {
    let mut out = [0u8; SETUP_LEN];
    for (sq, piece) in pos.board() {
        let i = sq as usize;
        let code = piece_code(piece);
        out[i / 2] |= if i.is_multiple_of(2) { code << 4 } else { code };
    }
    let n = pos.fullmoves().get();
    if n > 256 {
        return Err(format!("move number {n} does not fit (at most 256)"));
    }
    out[32] = (n - 1) as u8;
    let mut b10 = 1u8;
    if pos.turn() == Color::Black {
        b10 |= 2;
    }
    let castles = pos.castles();
    for (bit, color, side) in [
        (0x04, Color::White, CastlingSide::QueenSide),
        (0x08, Color::White, CastlingSide::KingSide),
        (0x10, Color::Black, CastlingSide::QueenSide),
        (0x20, Color::Black, CastlingSide::KingSide),
    ] {
        if castles.has(color, side) {
            b10 |= bit;
        }
    }
    let b11 = pos
        .ep_square(EnPassantMode::Always)
        .map_or(0, |sq| sq.file() as u8 + 1);
    Ok((out, b10, b11))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    /// The text's example, "next move is nr 55".
    const SPEC: [u8; 33] = [
        0x12, 0x54, 0x30, 0x00, 0x60, 0x00, 0x00, 0x00, //
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
        0xE0, 0x00, 0x00, 0x00, 0x9A, 0xDC, 0xB0, 0x00, //
        54,
    ];

    #[test]
    fn spec_example() {
        let read = read_setup(&SPEC, 1, 0).expect("reads");
        assert!(read.warnings.is_empty());
        let fen = Fen::from_position(&read.pos, EnPassantMode::Legal).to_string();
        assert_eq!(fen, "kqrbn3/p7/8/8/8/8/P7/KQRBN3 w - - 0 55");
        let (bytes, b10, b11) = write_setup(&read.pos).expect("fits");
        assert_eq!(bytes, SPEC);
        assert_eq!((b10, b11), (1, 0));
    }

    #[test]
    fn flags_give_turn_castling_and_ep() {
        // Black to move (bit 1), all castling (bits 2-5), e.p. file e (5).
        let fen: Fen = "r3k2r/8/8/8/4P3/8/8/R3K2R b KQkq e3 0 1"
            .parse()
            .expect("fen");
        let pos: Chess = fen.into_position(CastlingMode::Standard).expect("legal");
        let (bytes, b10, b11) = write_setup(&pos).expect("fits");
        assert_eq!(b10, 1 | 2 | 4 | 8 | 16 | 32);
        assert_eq!(b11, 5);
        let read = read_setup(&bytes, b10, b11).expect("reads");
        assert_eq!(read.pos, pos);
        assert_eq!(read.ep_file, Some(File::E));
    }

    #[test]
    fn bad_codes_and_impossible_rights() {
        let mut bad = SPEC;
        bad[3] = 0x70;
        assert!(read_setup(&bad, 1, 0).unwrap_err().contains("piece code 7"));
        // Castling rights without rooks are dropped with a warning.
        let read = read_setup(&SPEC, 1 | 0x3c, 0).expect("repaired");
        assert_eq!(read.warnings.len(), 1);
        assert!(read_setup(&SPEC, 1, 9).is_err());
    }
}
