//! The positions table: one row per main-line ply, for model training.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::types::{Int32Type, Int64Type};
use gamerec::model::{Game, play_ply};
use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Piece, Position, Role, Square};

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
        if !push_fen(pos, &mut self.fen.bytes) {
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
        let from = self.game_id.len();
        let to = self.uci.len();
        for n in from..to {
            self.game_id.push(game_id as i64);
            self.ply.push((n - from + 1) as i32);
            self.result.push(values.result.map(str::as_bytes));
            self.white_elo.push(values.white_elo);
            self.black_elo.push(values.black_elo);
            self.time_control
                .push(values.time_control.map(str::as_bytes));
        }
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
        self.fen.reserve(plies, plies * 60);
        self.uci.reserve(plies, plies * 4);
        self.san.reserve(plies, plies * 4);
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
            ("fen", Arc::new(self.fen.finish()), false),
            ("uci", Arc::new(self.uci.finish()), false),
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

/// Appends the FEN of `pos` (en passant square only when a capture there
/// is legal) when its castling rights are written `KQkq` (rooks in the
/// corners); `false` for any other rights, whose letters shakmaty's FEN
/// writer decides.
fn push_fen(pos: &Chess, out: &mut Vec<u8>) -> bool {
    let rights = pos.castles().castling_rights();
    let mut letters = [0u8; 4];
    let mut n = 0;
    for (rook, letter) in [
        (Square::H1, b'K'),
        (Square::A1, b'Q'),
        (Square::H8, b'k'),
        (Square::A8, b'q'),
    ] {
        if rights.contains(rook) {
            letters[n] = letter;
            n += 1;
        }
    }
    if n != rights.count() {
        return false;
    }
    // The piece letters square by square, from the bitboards (a lookup
    // per square costs more), then the fields, in a buffer on the stack: a
    // FEN of standard chess has at most 92 bytes.
    let board = pos.board();
    let mut cells = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            for sq in board.by_piece(piece) {
                cells[usize::from(sq)] = piece.char() as u8;
            }
        }
    }
    let mut buf = [0u8; 128];
    let mut len = 0;
    let mut put = |b: u8| {
        buf[len] = b;
        len += 1;
    };
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for &cell in &cells[rank * 8..rank * 8 + 8] {
            if cell == 0 {
                empty += 1;
            } else {
                if empty > 0 {
                    put(b'0' + empty);
                    empty = 0;
                }
                put(cell);
            }
        }
        if empty > 0 {
            put(b'0' + empty);
        }
        put(if rank > 0 { b'/' } else { b' ' });
    }
    put(pos.turn().char() as u8);
    put(b' ');
    if n == 0 {
        put(b'-');
    }
    for &letter in &letters[..n] {
        put(letter);
    }
    put(b' ');
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => {
            put(sq.file().char() as u8);
            put(sq.rank().char() as u8);
        }
        None => put(b'-'),
    }
    put(b' ');
    out.extend_from_slice(&buf[..len]);
    push_decimal(out, pos.halfmoves());
    out.push(b' ');
    push_decimal(out, pos.fullmoves().get());
    true
}

/// Appends the decimal digits of `n`.
pub(crate) fn push_decimal(out: &mut Vec<u8>, mut n: u32) {
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
    out.extend_from_slice(&digits[i..]);
}
