//! The positions table: one row per main-line ply, for model training.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::types::{Int32Type, Int64Type};
use gamerec::model::{Game, play_ply};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Chess, EnPassantMode, Position, Square};

use crate::columns::{OptionalStrings, Optionals, Strings};
use crate::games::batch;
use crate::values::{self, PlyNotes};

/// Which games the positions table takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionFilter {
    /// Both players rated at least this (`WhiteElo`, `BlackElo`); games
    /// without both ratings are left out.
    pub min_rating: Option<i32>,
    /// The `TimeControl` tag equals this (`300+3`), or its speed class is
    /// this (`bullet`, `blitz`, `rapid`, `classical`, `ultrabullet`; see
    /// [`values::speed`]).
    pub time_control: Option<String>,
}

impl PositionFilter {
    /// Whether the filter takes every game.
    pub fn is_none(&self) -> bool {
        self.min_rating.is_none() && self.time_control.is_none()
    }

    /// Whether `game` passes the filter.
    pub fn accepts(&self, game: &Game) -> bool {
        self.accepts_tags(|name| game.tags.get(name))
    }

    /// Whether a game whose first tag called `name` has the value
    /// `tag(name)` passes the filter.
    pub fn accepts_tags<'a>(&self, tag: impl Fn(&str) -> Option<&'a str>) -> bool {
        if let Some(min) = self.min_rating {
            let rating = |name| tag(name).and_then(values::parse_int);
            match (rating("WhiteElo"), rating("BlackElo")) {
                (Some(w), Some(b)) if w >= min && b >= min => {}
                _ => return false,
            }
        }
        if let Some(wanted) = &self.time_control {
            let Some(control) = tag("TimeControl") else {
                return false;
            };
            if control != wanted && values::speed(control) != Some(wanted.as_str()) {
                return false;
            }
        }
        true
    }
}

/// Builds one record batch of the positions table, from [`Game`]s
/// ([`PositionsBuilder::append`]) or straight from the reader's events.
pub struct PositionsBuilder {
    game_id: Vec<i64>,
    ply: Vec<i32>,
    fen: Strings,
    pub(crate) uci: Strings,
    pub(crate) san: Strings,
    clk_ms: Optionals<Int64Type>,
    emt_ms: Optionals<Int64Type>,
    eval_cp: Optionals<Int32Type>,
    eval_mate: Optionals<Int32Type>,
    result: OptionalStrings,
    white_elo: Optionals<Int32Type>,
    black_elo: Optionals<Int32Type>,
    time_control: OptionalStrings,
    /// Movetext tokens the streaming path writes for every table; not kept.
    pub(crate) movetext: Strings,
    text: String,
    ranks: RankCache,
}

/// The board text of the positions written last, a rank at a time, with
/// the bitboards it was written from: only the ranks whose squares changed
/// (one to three of the eight, from one ply to the next) are written again;
/// the others are copied.
struct RankCache {
    /// The occupancy, white and the three role planes the texts were
    /// written from.
    boards: [u64; 5],
    /// Per rank: its text (at most 8 bytes, little-endian in one word, so
    /// it is built in a register and stored whole) and length.
    text: [u64; 8],
    len: [u8; 8],
}

impl Default for RankCache {
    fn default() -> RankCache {
        RankCache {
            // No position has these boards (white pieces where nothing
            // stands), and every rank's byte differs from any position's
            // (an empty rank's occupancy matches, its white byte cannot):
            // the first FEN writes every rank.
            boards: [0, u64::MAX, 0, 0, 0],
            text: [0; 8],
            len: [0; 8],
        }
    }
}

impl Default for PositionsBuilder {
    fn default() -> PositionsBuilder {
        PositionsBuilder::new()
    }
}

/// The per-game values repeated on every row of a game.
pub(crate) struct GameValues<'a> {
    pub(crate) result: Option<&'a str>,
    pub(crate) white_elo: Option<i32>,
    pub(crate) black_elo: Option<i32>,
    pub(crate) time_control: Option<&'a str>,
}

impl PositionsBuilder {
    /// An empty batch builder.
    pub fn new() -> PositionsBuilder {
        PositionsBuilder {
            game_id: Vec::new(),
            ply: Vec::new(),
            fen: Strings::default(),
            uci: Strings::default(),
            san: Strings::default(),
            clk_ms: Optionals::default(),
            emt_ms: Optionals::default(),
            eval_cp: Optionals::default(),
            eval_mate: Optionals::default(),
            result: OptionalStrings::default(),
            white_elo: Optionals::default(),
            black_elo: Optionals::default(),
            time_control: OptionalStrings::default(),
            movetext: Strings::default(),
            text: String::new(),
            ranks: RankCache::default(),
        }
    }

    /// Rows appended so far.
    pub fn len(&self) -> usize {
        self.game_id.len()
    }

    /// Whether no row was appended.
    pub fn is_empty(&self) -> bool {
        self.game_id.is_empty()
    }

    /// Appends one row per main-line ply of `game`, numbered from 1.
    pub fn append(&mut self, game_id: u64, game: &Game) {
        let mut pos = game.start.clone();
        let mode = values::uci_mode(game);
        for id in game.tree.mainline() {
            let node = game.tree.node(id);
            let Some(ply) = &node.ply else { continue };
            self.push_position(&pos);
            self.text.clear();
            values::uci(ply.mv, mode, &mut self.text);
            self.uci.push(self.text.as_bytes());
            self.san.push(ply.san.as_bytes());
            self.push_notes(&PlyNotes::of(node));
            pos = play_ply(&pos, ply.mv);
        }
        let tag = |name| game.tags.get(name);
        let values = GameValues {
            result: tag("Result").or(game.result.map(|r| r.as_str())),
            white_elo: tag("WhiteElo").and_then(values::parse_int),
            black_elo: tag("BlackElo").and_then(values::parse_int),
            time_control: tag("TimeControl"),
        };
        self.end_game(game_id, &values);
    }

    /// Stores the FEN of the position before the next move.
    pub(crate) fn push_position(&mut self, pos: &Chess) {
        let start = self.fen.bytes.len();
        if !push_fen(pos, &mut self.ranks, &mut self.fen.bytes) {
            self.fen.bytes.truncate(start);
            Fen::from_position(pos, EnPassantMode::Legal).append_ascii_to(&mut self.fen.bytes);
        }
        debug_assert_eq!(
            &self.fen.bytes[start..],
            Fen::from_position(pos, EnPassantMode::Legal)
                .to_string()
                .as_bytes()
        );
        self.fen.end_value();
    }

    /// Stores the FEN (X-FEN with Crazyhouse pockets and Three-check
    /// counters, as python-chess writes them) of a variant position.
    pub(crate) fn push_variant_position(&mut self, pos: &shakmaty::variant::VariantPosition) {
        let start = self.fen.bytes.len();
        Fen::from_position(pos, EnPassantMode::Legal).append_ascii_to(&mut self.fen.bytes);
        let fen = &mut self.fen.bytes[start..];
        if let Some(open) = memchr::memchr(b'[', fen)
            && let Some(close) = memchr::memchr(b']', &fen[open..])
        {
            // Pockets as python-chess writes them: white's, then black's,
            // each from queen to pawn (shakmaty: pawn to queen).
            let rank = |b: &u8| {
                let order = b"kqrbnp".iter().position(|p| *p == b.to_ascii_lowercase());
                (b.is_ascii_lowercase(), order)
            };
            fen[open + 1..open + close].sort_by_key(rank);
        }
        self.fen.end_value();
    }

    /// Stores the notes of the ply whose moves were pushed last.
    pub(crate) fn push_notes(&mut self, notes: &PlyNotes) {
        self.clk_ms.push(notes.clk_ms);
        self.emt_ms.push(notes.emt_ms);
        self.eval_cp.push(notes.eval_cp);
        self.eval_mate.push(notes.eval_mate);
    }

    /// Completes the rows of the plies pushed since the last game with the
    /// game's id, ply numbers and values.
    pub(crate) fn end_game(&mut self, game_id: u64, values: &GameValues<'_>) {
        let n = self.uci.len() - self.game_id.len();
        self.game_id.extend(std::iter::repeat_n(game_id as i64, n));
        self.ply.extend(1..=n as i32);
        self.result.push_n(values.result, n);
        self.white_elo.push_n(values.white_elo, n);
        self.black_elo.push_n(values.black_elo, n);
        self.time_control.push_n(values.time_control, n);
    }

    /// Drops the plies pushed since the last complete game.
    pub(crate) fn drop_game(&mut self) {
        let n = self.game_id.len();
        self.fen.truncate(n);
        self.uci.truncate(n);
        self.san.truncate(n);
        self.clk_ms.truncate(n);
        self.emt_ms.truncate(n);
        self.eval_cp.truncate(n);
        self.eval_mate.truncate(n);
    }

    /// Makes room for the rows of about `bytes` of PGN.
    pub(crate) fn reserve_for(&mut self, bytes: usize) {
        let plies = bytes / 8;
        self.game_id.reserve(plies);
        self.ply.reserve(plies);
        self.fen.reserve(plies, plies * 60);
        self.uci.reserve(plies, plies * 4);
        self.san.reserve(plies, plies * 4);
        for column in [&mut self.clk_ms, &mut self.emt_ms] {
            column.reserve(plies);
        }
        for column in [
            &mut self.eval_cp,
            &mut self.eval_mate,
            &mut self.white_elo,
            &mut self.black_elo,
        ] {
            column.reserve(plies);
        }
        self.result.reserve(plies, plies * 3);
        self.time_control.reserve(plies, plies * 5);
        self.movetext.reserve(0, 1 << 16);
    }

    /// The record batch of the rows appended.
    pub fn finish(self) -> RecordBatch {
        batch(vec![
            (
                "game_id",
                Arc::new(arrow_array::PrimitiveArray::<Int64Type>::from(self.game_id)),
                false,
            ),
            (
                "ply",
                Arc::new(arrow_array::PrimitiveArray::<Int32Type>::from(self.ply)),
                false,
            ),
            ("fen", Arc::new(self.fen.finish_ascii()), false),
            ("uci", Arc::new(self.uci.finish_ascii()), false),
            ("san", Arc::new(self.san.finish()), false),
            ("clk_ms", Arc::new(self.clk_ms.finish()), true),
            ("emt_ms", Arc::new(self.emt_ms.finish()), true),
            ("eval_cp", Arc::new(self.eval_cp.finish()), true),
            ("eval_mate", Arc::new(self.eval_mate.finish()), true),
            ("result", Arc::new(self.result.finish()), true),
            ("white_elo", Arc::new(self.white_elo.finish()), true),
            ("black_elo", Arc::new(self.black_elo.finish()), true),
            ("time_control", Arc::new(self.time_control.finish()), true),
        ])
    }
}

/// Bit `r` set where byte `r` of `x` is not zero.
fn nonzero_bytes(x: u64) -> u32 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte: set if the byte's high bit is, or if its
    // low seven bits are not all zero (they carry into it).
    let high = (((x & LOW7) + LOW7) | x) & !LOW7;
    // Byte r's high bit moved to bit r of the top byte (no two partial
    // products meet, so nothing carries).
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// The castling field for the rights of the four corner rooks (bit 0 h1,
/// 1 a1, 2 h8, 3 a8), in one little-endian word, and its length.
const CASTLING: [(u32, u8); 16] = {
    let mut table = [(0u32, 0u8); 16];
    let mut bits = 0;
    while bits < 16 {
        let (mut word, mut n) = (0u32, 0u8);
        let mut i = 0;
        while i < 4 {
            if bits & (1 << i) != 0 {
                word |= (b"KQkq"[i] as u32) << (8 * n);
                n += 1;
            }
            i += 1;
        }
        if n == 0 {
            word = b'-' as u32;
            n = 1;
        }
        table[bits] = (word, n);
        bits += 1;
    }
    table
};

/// Appends the FEN of `pos` (en passant square only when a capture there
/// is legal) when its castling rights are written `KQkq` (rooks in the
/// corners); `false` for any other rights, whose letters shakmaty's FEN
/// writer decides.
fn push_fen(pos: &Chess, ranks: &mut RankCache, out: &mut Vec<u8>) -> bool {
    let rights = pos.castles().castling_rights();
    let corners = Bitboard::from(Square::H1) | Square::A1 | Square::H8 | Square::A8;
    if !(rights & !corners).is_empty() {
        return false;
    }
    let castling = CASTLING[usize::from(rights.contains(Square::H1))
        | usize::from(rights.contains(Square::A1)) << 1
        | usize::from(rights.contains(Square::H8)) << 2
        | usize::from(rights.contains(Square::A8)) << 3];
    // The board from the bitboards, a rank at a time: the ranks whose
    // squares changed since the last FEN written are written again into
    // `ranks` (each occupied square's letter from a 3-bit role code,
    // bit-sliced over the role bitboards, and its colour; the gaps from
    // the rank's occupancy), then all eight are copied from it; then the
    // fields and counters, all written straight into the column: room for
    // the longest FEN of standard chess (92 bytes) is made first (zeroed,
    // so every byte is written before it is read and whole words can be
    // stored at any place), then cut to the length written.
    let board = pos.board();
    let (pawns, knights, bishops) = (board.pawns().0, board.knights().0, board.bishops().0);
    let (rooks, queens, kings) = (board.rooks().0, board.queens().0, board.kings().0);
    // Role codes 1..=6 (pawn..king) as three bit planes.
    let plane0 = pawns | bishops | queens;
    let plane1 = knights | bishops | kings;
    let plane2 = rooks | queens | kings;
    let white = board.white().0;
    let occupied = board.occupied().0;
    let boards = [occupied, white, plane0, plane1, plane2];
    let diff = boards
        .iter()
        .zip(&ranks.boards)
        .fold(0, |diff, (now, was)| diff | (now ^ was));
    ranks.boards = boards;
    const LETTERS: [u8; 16] = *b"?pnbrqk??PNBRQK?";
    let mut changed = nonzero_bytes(diff);
    while changed != 0 {
        let rank = changed.trailing_zeros() as usize;
        changed &= changed - 1;
        let shift = rank * 8;
        // The rank's letters and gap digits, byte `n` of the word at bits
        // `8 n` (at most 8 of them).
        let mut text = 0u64;
        let mut n = 0;
        let mut bits = (occupied >> shift) & 0xff;
        let mut file = 0;
        while bits != 0 {
            let f = bits.trailing_zeros();
            if f > file {
                text |= u64::from(b'0' + (f - file) as u8) << ((n & 7) * 8);
                n += 1;
            }
            let sq = shift as u32 + f;
            let code = ((plane0 >> sq) & 1)
                | (((plane1 >> sq) & 1) << 1)
                | (((plane2 >> sq) & 1) << 2)
                | (((white >> sq) & 1) << 3);
            text |= u64::from(LETTERS[code as usize]) << ((n & 7) * 8);
            n += 1;
            file = f + 1;
            bits &= bits - 1;
        }
        if file < 8 {
            text |= u64::from(b'0' + (8 - file) as u8) << ((n & 7) * 8);
            n += 1;
        }
        ranks.text[rank] = text;
        ranks.len[rank] = n as u8;
    }
    let start = out.len();
    out.resize(start + 128, 0);
    let buf = &mut out[start..];
    let mut len = 0;
    for rank in (0..8usize).rev() {
        // All 8 bytes stored (the board's text is at most 72 bytes), the
        // rank's length kept; a `/` after each, the last one a space.
        buf[len..len + 8].copy_from_slice(&ranks.text[rank].to_le_bytes());
        len += usize::from(ranks.len[rank]);
        buf[len] = b'/';
        len += 1;
    }
    buf[len - 1] = b' ';
    buf[len] = pos.turn().char() as u8;
    buf[len + 1] = b' ';
    len += 2;
    buf[len..len + 4].copy_from_slice(&castling.0.to_le_bytes());
    len += usize::from(castling.1);
    buf[len] = b' ';
    len += 1;
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => {
            buf[len] = sq.file().char() as u8;
            buf[len + 1] = sq.rank().char() as u8;
            len += 2;
        }
        None => {
            buf[len] = b'-';
            len += 1;
        }
    }
    buf[len] = b' ';
    len += 1;
    len += write_decimal(&mut buf[len..], pos.halfmoves());
    buf[len] = b' ';
    len += 1;
    len += write_decimal(&mut buf[len..], pos.fullmoves().get());
    out.truncate(start + len);
    true
}

/// Writes the decimal digits of `n` at the start of `out` (room for 10
/// bytes); how many.
fn write_decimal(out: &mut [u8], n: u32) -> usize {
    // One or two digits (nearly every clock and move number) without a
    // loop; longer ones a digit at a time.
    if n < 10 {
        out[0] = b'0' + n as u8;
        return 1;
    }
    if n < 100 {
        out[0] = b'0' + (n / 10) as u8;
        out[1] = b'0' + (n % 10) as u8;
        return 2;
    }
    let mut n = n;
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let len = digits.len() - i;
    out[..len].copy_from_slice(&digits[i..]);
    len
}

/// Appends the decimal digits of `n`.
pub(crate) fn push_decimal(out: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let len = write_decimal(&mut digits, n);
    out.extend_from_slice(&digits[..len]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    /// The FEN written from the bitboards is shakmaty's, for every piece
    /// on every kind of square, partial castling rights, a legal and an
    /// illegal en passant square and many-digit counters.
    #[test]
    fn fen_from_the_bitboards_is_shakmatys() {
        // One cache for all: each FEN's ranks partly written, partly
        // copied from the one before.
        let mut ranks = RankCache::default();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k3/8/8/8/8/8/8/4K2R b Kq - 12 345",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
            "4k3/8/8/8/3pP3/8/8/4K2R b K e3 99 1234567",
            "7k/8/8/8/8/8/8/K7 w - - 0 1",
            "qqqqkqqq/8/8/8/8/8/8/QQQQKQQQ w - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let mut out = Vec::new();
            assert!(push_fen(&pos, &mut ranks, &mut out), "{fen}");
            let expected = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{fen}");
        }
    }

    /// Every pattern of zero and non-zero bytes (each non-zero byte
    /// tried with every value in turn) gives its bit mask.
    #[test]
    fn nonzero_bytes_marks_each_nonzero_byte() {
        for pattern in 0u32..256 {
            for value in 1u64..=255 {
                let x = (0..8)
                    .filter(|r| pattern & (1 << r) != 0)
                    .fold(0u64, |x, r| {
                        x | (value.rotate_left(r) & 0xff).max(1) << (8 * r)
                    });
                assert_eq!(nonzero_bytes(x), pattern, "{x:#018x}");
            }
        }
    }

    /// Counters of every length are written as `to_string` writes them.
    #[test]
    fn write_decimal_is_to_string() {
        let mut buf = [0u8; 10];
        for n in (0..2000).chain([9_999, 10_000, 123_456_789, u32::MAX]) {
            let len = write_decimal(&mut buf, n);
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
    }

    /// Ply after ply of random games (captures, castling, en passant,
    /// promotions), each FEN written with the ranks of the one before
    /// cached is shakmaty's.
    #[test]
    fn fens_of_consecutive_positions_are_shakmatys() {
        let mut ranks = RankCache::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Chess::default();
            for _ in 0..300 {
                let mut out = Vec::new();
                assert!(push_fen(&pos, &mut ranks, &mut out));
                let expected = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                assert_eq!(String::from_utf8(out).unwrap(), expected);
                checked += 1;
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
            }
        }
        assert!(checked > 5000, "{checked} positions");
    }
}
