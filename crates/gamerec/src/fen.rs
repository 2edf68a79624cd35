//! Forsyth-Edwards Notation (PGN standard 16.1): read all six fields, write
//! canonical FEN. The four-field EPD position (16.2.3) shares this code.
//!
//! Reading is two steps, as in shakmaty: the text is first parsed into a
//! [`Setup`] (a [`FenErrorKind::Syntax`] error names the field and byte
//! column and says what was expected), then validated into a legal [`Chess`]
//! position (a [`FenErrorKind::Illegal`] error says which rule is broken:
//! missing king, pawns on the back rank, castling rights without their
//! king or rook, an impossible en-passant square, the side not to move in
//! check, ...). Castling rights may be written as `KQkq`, X-FEN or
//! Shredder-FEN (file letters); Chess960 is detected from them.
//!
//! Writing is canonical per the standard: the en-passant square is given
//! after every double pawn push (as in the standard's own `1. e4` example),
//! castling as `KQkq` (X-FEN file letters only where a Chess960 rook is not
//! the outermost one).

use std::fmt;
use std::num::NonZeroU32;

use shakmaty::fen::{Epd, Fen};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Piece, Position,
    PositionErrorKinds, Rank, Role, Setup, Square,
};

/// Whether a FEN was malformed or described an illegal position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenErrorKind {
    /// The text does not follow the FEN syntax.
    Syntax,
    /// The text is well-formed but the position breaks the rules of chess.
    Illegal,
}

/// The FEN field an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenField {
    /// Field 1: piece placement.
    Placement,
    /// Field 2: active colour.
    Turn,
    /// Field 3: castling availability.
    Castling,
    /// Field 4: en-passant target square.
    EnPassant,
    /// Field 5: halfmove clock.
    HalfmoveClock,
    /// Field 6: fullmove number.
    FullmoveNumber,
    /// Text after the last field.
    Trailing,
}

impl FenField {
    /// A human name: "piece placement (field 1)".
    pub const fn name(self) -> &'static str {
        match self {
            FenField::Placement => "piece placement (field 1)",
            FenField::Turn => "active colour (field 2)",
            FenField::Castling => "castling availability (field 3)",
            FenField::EnPassant => "en passant square (field 4)",
            FenField::HalfmoveClock => "halfmove clock (field 5)",
            FenField::FullmoveNumber => "fullmove number (field 6)",
            FenField::Trailing => "end of the FEN",
        }
    }
}

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError {
    /// Syntax error or illegal position.
    pub kind: FenErrorKind,
    /// The field concerned.
    pub field: FenField,
    /// 0-based byte column in the FEN text.
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl FenError {
    fn syntax(field: FenField, column: usize, message: impl Into<String>) -> FenError {
        FenError {
            kind: FenErrorKind::Syntax,
            field,
            column,
            message: message.into(),
        }
    }

    pub(crate) fn illegal(field: FenField, column: usize, message: impl Into<String>) -> FenError {
        FenError {
            kind: FenErrorKind::Illegal,
            field,
            column,
            message: message.into(),
        }
    }

    /// Whether this is a syntax error (as opposed to an illegal position).
    pub fn is_syntax(&self) -> bool {
        self.kind == FenErrorKind::Syntax
    }

    /// The same error with its column moved right by `offset` bytes (for a
    /// FEN embedded in a longer text).
    pub fn offset_by(mut self, offset: usize) -> FenError {
        self.column += offset;
        self
    }
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            FenErrorKind::Syntax => "bad FEN",
            FenErrorKind::Illegal => "illegal position",
        };
        write!(
            f,
            "{what}: {} at column {}: {}",
            self.field.name(),
            self.column + 1,
            self.message
        )
    }
}

impl std::error::Error for FenError {}

/// Reads a FEN into a legal position, detecting Chess960 castling
/// (X-FEN/Shredder-FEN) from the rights. Leading and trailing whitespace is
/// ignored and fields may be separated by runs of blanks. The halfmove clock
/// and fullmove number may be omitted (defaults 0 and 1); a fullmove number
/// of 0, which real files contain, is read as 1.
pub fn read_fen(text: &str) -> Result<(Chess, CastlingMode), FenError> {
    read_fen_bytes(text.as_bytes())
}

/// [`read_fen`] over bytes.
pub fn read_fen_bytes(text: &[u8]) -> Result<(Chess, CastlingMode), FenError> {
    let parsed = parse_fields(text, 6)?;
    if let Some(col) = parsed.rest {
        return Err(trailing(
            text,
            col,
            "the fullmove number: a FEN has at most 6 fields",
        ));
    }
    parsed.into_position()
}

/// The error for text at `col` of `text` after the last field (`after`
/// names it and says why), quoting that text.
fn trailing(text: &[u8], col: usize, after: &str) -> FenError {
    let rest = text.get(col..).unwrap_or_default().trim_ascii_end();
    FenError::syntax(
        FenField::Trailing,
        col,
        format!(
            "unexpected text `{}` after {after}",
            crate::excerpt::excerpt(rest)
        ),
    )
}

/// One line of a list of FENs read by [`read_fen_lines`].
#[derive(Debug, Clone)]
pub struct FenLine {
    /// 1-based line number.
    pub number: u64,
    /// The position, or why the line holds none (a line that is not UTF-8
    /// or is too long is quoted, escaped).
    pub position: Result<(Chess, CastlingMode), String>,
}

/// The lines of `input` read as FENs, one a line (blank lines included, as
/// errors), one line at a time: lines end at `\n`, `\r\n` or a lone `\r`
/// (as EPD lines); a line that is not UTF-8 or longer than
/// [`crate::epd::reader::MAX_LINE_BYTES`] is reported and reading goes on
/// (memory: one line, at most that bound). An `Err` is a read error, after
/// which the iterator is done.
pub fn read_fen_lines<R: std::io::BufRead>(input: R) -> FenLines<R> {
    FenLines {
        input,
        number: 0,
        buf: Vec::new(),
        after_cr: false,
        done: false,
    }
}

/// The iterator of [`read_fen_lines`].
#[derive(Debug)]
pub struct FenLines<R> {
    input: R,
    number: u64,
    buf: Vec<u8>,
    after_cr: bool,
    done: bool,
}

impl<R: std::io::BufRead> Iterator for FenLines<R> {
    type Item = std::io::Result<FenLine>;

    fn next(&mut self) -> Option<Self::Item> {
        use crate::epd::reader::{MAX_LINE_BYTES, read_line_any_end, skip_line};
        if self.done {
            return None;
        }
        self.buf.clear();
        let max = MAX_LINE_BYTES + 1;
        let read = read_line_any_end(&mut self.input, &mut self.buf, max, &mut self.after_cr);
        let n = match read {
            Ok((n, _)) => n,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        if n == 0 {
            self.done = true;
            return None;
        }
        self.number += 1;
        let ended = matches!(self.buf.last(), Some(b'\n' | b'\r'));
        if ended {
            self.buf.pop();
        }
        let position = if !ended && n == max {
            if let Err(e) = skip_line(&mut self.input, true, &mut self.after_cr) {
                self.done = true;
                return Some(Err(e));
            }
            Err(format!(
                "line longer than {MAX_LINE_BYTES} bytes: skipped (`{}`)",
                crate::excerpt::excerpt(&self.buf)
            ))
        } else {
            match std::str::from_utf8(&self.buf) {
                Ok(text) => read_fen(text).map_err(|e| e.to_string()),
                Err(_) => Err(format!(
                    "not UTF-8 text (a FEN is ASCII): `{}`",
                    crate::excerpt::excerpt(&self.buf)
                )),
            }
        };
        Some(Ok(FenLine {
            number: self.number,
            position,
        }))
    }
}

/// Reads exactly the four EPD position fields (placement, colour, castling,
/// en passant) of `text`, nothing else.
pub fn read_epd_position(text: &str) -> Result<(Chess, CastlingMode), FenError> {
    let parsed = parse_fields(text.as_bytes(), 4)?;
    if let Some(col) = parsed.rest {
        return Err(trailing(
            text.as_bytes(),
            col,
            "the en passant square: an EPD position has 4 fields",
        ));
    }
    parsed.into_position()
}

/// A position read from the start of a longer line.
#[derive(Debug, Clone)]
pub struct PositionPrefix {
    /// The position.
    pub pos: Chess,
    /// Its castling notation.
    pub mode: CastlingMode,
    /// Byte offset where the rest of the line starts (after the blanks
    /// following the fourth field); the line's length if nothing follows.
    pub rest: usize,
}

/// Reads the four EPD position fields at the start of `line` (leading blanks
/// allowed) and says where the rest (the EPD operations) starts.
pub fn read_epd_prefix(line: &str) -> Result<PositionPrefix, FenError> {
    let parsed = parse_fields(line.as_bytes(), 4)?;
    let rest = parsed.rest.unwrap_or(line.len());
    let (pos, mode) = parsed.into_position()?;
    Ok(PositionPrefix { pos, mode, rest })
}

/// Parses the syntax only: a FEN (4 to 6 fields) into a not necessarily
/// legal [`Setup`].
pub fn read_fen_setup(text: &str) -> Result<Setup, FenError> {
    let parsed = parse_fields(text.as_bytes(), 6)?;
    if let Some(col) = parsed.rest {
        return Err(trailing(
            text.as_bytes(),
            col,
            "the fullmove number: a FEN has at most 6 fields",
        ));
    }
    Ok(parsed.setup)
}

/// Writes the canonical six-field FEN of `pos`.
pub fn write_fen(pos: &Chess, mode: CastlingMode) -> String {
    let _ = mode; // shakmaty writes X-FEN letters only where they are needed
    Fen::from_position(pos, EnPassantMode::Always).to_string()
}

/// Writes the six-field FEN of `pos`, choosing when the en-passant square is
/// shown (`EnPassantMode::Legal` matches python-chess and lichess).
pub fn write_fen_with(pos: &Chess, ep: EnPassantMode) -> String {
    Fen::from_position(pos, ep).to_string()
}

/// Writes the four position fields of `pos` (the EPD position).
pub fn write_epd_position(pos: &Chess, mode: CastlingMode) -> String {
    let _ = mode;
    Epd::from_position(pos, EnPassantMode::Always).to_string()
}

/// The turn of `pos`, as a convenience for callers that only hold a FEN.
pub fn side_to_move(pos: &Chess) -> Color {
    pos.turn()
}

/// Where each field of a parsed FEN started, for error columns.
struct Parsed {
    setup: Setup,
    /// Byte column of each piece's letter, by square index.
    piece_cols: [u16; 64],
    placement_col: usize,
    castling_col: usize,
    castling: Vec<(u8, usize)>,
    ep_col: usize,
    turn_col: usize,
    /// Where text after the last field read starts, if any.
    rest: Option<usize>,
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Splits off the next field: returns (start column, bytes) and advances.
/// The next field, or a syntax error at the end of the text saying what
/// was `missing`.
fn require_field(
    text: &[u8],
    pos: &mut usize,
    field: FenField,
    missing: &str,
) -> Result<(usize, usize), FenError> {
    next_field(text, pos).ok_or_else(|| FenError::syntax(field, text.len(), missing))
}

fn next_field(text: &[u8], pos: &mut usize) -> Option<(usize, usize)> {
    while *pos < text.len() && is_blank(text[*pos]) {
        *pos += 1;
    }
    if *pos >= text.len() {
        return None;
    }
    let start = *pos;
    while *pos < text.len() && !is_blank(text[*pos]) {
        *pos += 1;
    }
    Some((start, *pos))
}

fn parse_fields(text: &[u8], max_fields: usize) -> Result<Parsed, FenError> {
    let mut at = 0;
    let Some((p0, p1)) = next_field(text, &mut at) else {
        return Err(FenError::syntax(
            FenField::Placement,
            text.len(),
            "empty FEN: expected the piece placement, e.g. rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        ));
    };
    let mut parsed = Parsed {
        setup: Setup::empty(),
        piece_cols: [0; 64],
        placement_col: p0,
        castling_col: 0,
        castling: Vec::new(),
        ep_col: 0,
        turn_col: 0,
        rest: None,
    };
    parse_placement(&text[p0..p1], p0, &mut parsed)?;

    let (t0, t1) = require_field(
        text,
        &mut at,
        FenField::Turn,
        "missing active colour: expected 'w' or 'b' after the piece placement",
    )?;
    parsed.turn_col = t0;
    parsed.setup.turn = match &text[t0..t1] {
        b"w" => Color::White,
        b"b" => Color::Black,
        other => {
            return Err(FenError::syntax(
                FenField::Turn,
                t0,
                format!(
                    "expected 'w' or 'b', found '{}'",
                    crate::excerpt::excerpt(other)
                ),
            ));
        }
    };

    let (c0, c1) = require_field(
        text,
        &mut at,
        FenField::Castling,
        "missing castling availability: expected '-' or letters from KQkq (or rook files A-H/a-h)",
    )?;
    parsed.castling_col = c0;
    parse_castling_syntax(&text[c0..c1], c0, &mut parsed)?;

    let (e0, e1) = require_field(
        text,
        &mut at,
        FenField::EnPassant,
        "missing en passant square: expected '-' or a square such as e3",
    )?;
    parsed.ep_col = e0;
    parsed.setup.ep_square = match &text[e0..e1] {
        b"-" => None,
        sq => Some(Square::from_ascii(sq).map_err(|_| {
            FenError::syntax(
                FenField::EnPassant,
                e0,
                format!(
                    "expected '-' or a square such as e3 or d6, found '{}'",
                    crate::excerpt::excerpt(sq)
                ),
            )
        })?),
    };

    if max_fields > 4
        && let Some((h0, h1)) = next_field(text, &mut at)
    {
        parsed.setup.halfmoves = parse_count(&text[h0..h1]).ok_or_else(|| {
                FenError::syntax(
                    FenField::HalfmoveClock,
                    h0,
                    format!(
                        "expected a non-negative integer (plies since the last capture or pawn move), found '{}'",
                        crate::excerpt::excerpt(&text[h0..h1])
                    ),
                )
            })?;
        if let Some((f0, f1)) = next_field(text, &mut at) {
            let n = parse_count(&text[f0..f1]).ok_or_else(|| {
                FenError::syntax(
                    FenField::FullmoveNumber,
                    f0,
                    format!(
                        "expected a positive integer, found '{}'",
                        crate::excerpt::excerpt(&text[f0..f1])
                    ),
                )
            })?;
            parsed.setup.fullmoves = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        }
    }

    // Whatever follows (blanks skipped).
    while at < text.len() && is_blank(text[at]) {
        at += 1;
    }
    if at < text.len() {
        parsed.rest = Some(at);
    }
    Ok(parsed)
}

fn parse_count(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &d| {
        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

fn parse_placement(field: &[u8], col0: usize, parsed: &mut Parsed) -> Result<(), FenError> {
    let syntax = |col: usize, msg: String| FenError::syntax(FenField::Placement, col0 + col, msg);
    let mut rank_index = 0usize; // 0 = rank 8
    let mut file = 0usize;
    let mut rank_start = 0usize;
    for (i, &b) in field.iter().enumerate() {
        match b {
            b'/' => {
                if file != 8 {
                    return Err(syntax(
                        rank_start,
                        format!(
                            "rank {} describes {file} squares: expected 8 (pieces plus digits 1-8 for empty squares)",
                            8 - rank_index
                        ),
                    ));
                }
                rank_index += 1;
                if rank_index >= 8 {
                    return Err(syntax(
                        i,
                        "more than 8 ranks: expected 8 ranks separated by 7 '/'".into(),
                    ));
                }
                file = 0;
                rank_start = i + 1;
            }
            b'1'..=b'8' => {
                file += usize::from(b - b'0');
                if file > 8 {
                    return Err(syntax(
                        i,
                        format!("rank {} describes more than 8 squares", 8 - rank_index),
                    ));
                }
            }
            _ => {
                let Some(piece) = Piece::from_char(char::from(b)) else {
                    let shown = if b.is_ascii_graphic() {
                        format!("'{}'", char::from(b))
                    } else {
                        format!("byte 0x{b:02x}")
                    };
                    return Err(syntax(
                        i,
                        format!(
                            "unexpected {shown}: expected a piece letter (PNBRQK white, pnbrqk black), a digit 1-8 or '/'"
                        ),
                    ));
                };
                if file >= 8 {
                    return Err(syntax(
                        i,
                        format!("rank {} describes more than 8 squares", 8 - rank_index),
                    ));
                }
                let sq =
                    Square::from_coords(File::new(file as u32), Rank::new(7 - rank_index as u32));
                parsed.setup.board.set_piece_at(sq, piece);
                parsed.piece_cols[usize::from(sq)] = u16::try_from(col0 + i).unwrap_or(u16::MAX);
                file += 1;
            }
        }
    }
    if file != 8 {
        return Err(syntax(
            rank_start,
            format!(
                "rank {} describes {file} squares: expected 8 (pieces plus digits 1-8 for empty squares)",
                8 - rank_index
            ),
        ));
    }
    if rank_index != 7 {
        return Err(syntax(
            field.len(),
            format!(
                "found {} ranks: expected 8 ranks separated by '/'",
                rank_index + 1
            ),
        ));
    }
    Ok(())
}

fn parse_castling_syntax(field: &[u8], col0: usize, parsed: &mut Parsed) -> Result<(), FenError> {
    if field == b"-" {
        return Ok(());
    }
    for (i, &b) in field.iter().enumerate() {
        let ok = matches!(b, b'K' | b'Q' | b'k' | b'q' | b'A'..=b'H' | b'a'..=b'h');
        if !ok {
            let shown = if b.is_ascii_graphic() {
                format!("'{}'", char::from(b))
            } else {
                format!("byte 0x{b:02x}")
            };
            return Err(FenError::syntax(
                FenField::Castling,
                col0 + i,
                format!(
                    "unexpected {shown}: expected '-' or letters from KQkq (or rook files A-H/a-h for Chess960)"
                ),
            ));
        }
        if field[..i].contains(&b) {
            return Err(FenError::syntax(
                FenField::Castling,
                col0 + i,
                format!("castling right '{}' is repeated", char::from(b)),
            ));
        }
        parsed.castling.push((b, col0 + i));
    }
    Ok(())
}

impl Parsed {
    fn col_of(&self, sq: Square) -> usize {
        usize::from(self.piece_cols[usize::from(sq)])
    }

    /// Resolves castling letters to rook squares, checking each against the
    /// pieces.
    fn resolve_castling(&mut self) -> Result<(), FenError> {
        let board = &self.setup.board;
        let mut rights = Bitboard::EMPTY;
        for &(b, col) in &self.castling {
            let color = Color::from_white(b.is_ascii_uppercase());
            let back = color.backrank();
            let side_name = color.fold_wb("White", "Black");
            let letter = char::from(b);
            let illegal = |msg: String| FenError::illegal(FenField::Castling, col, msg);
            let Some(king) = board.king_of(color).filter(|k| k.rank() == back) else {
                return Err(illegal(format!(
                    "castling right '{letter}' but the {} king is not on rank {}",
                    side_name.to_lowercase(),
                    back.char()
                )));
            };
            let rooks = board.by_piece(color.rook()) & Bitboard::from_rank(back);
            let rook = match b.to_ascii_lowercase() {
                b'k' => rooks
                    .into_iter()
                    .rev()
                    .find(|r| r.file() > king.file())
                    .ok_or_else(|| {
                        illegal(format!(
                            "castling right '{letter}' but {side_name} has no rook on rank {} right of the king",
                            back.char()
                        ))
                    })?,
                b'q' => rooks
                    .into_iter()
                    .find(|r| r.file() < king.file())
                    .ok_or_else(|| {
                        illegal(format!(
                            "castling right '{letter}' but {side_name} has no rook on rank {} left of the king",
                            back.char()
                        ))
                    })?,
                f => {
                    let file = File::from_char(char::from(f)).unwrap_or(File::A);
                    let sq = Square::from_coords(file, back);
                    if !rooks.contains(sq) {
                        return Err(illegal(format!(
                            "castling right '{letter}' but there is no {} rook on {sq}",
                            side_name.to_lowercase()
                        )));
                    }
                    sq
                }
            };
            let same_side = (rights & Bitboard::from_rank(back))
                .into_iter()
                .any(|r| (r.file() > king.file()) == (rook.file() > king.file()));
            if same_side {
                return Err(illegal(format!(
                    "castling right '{letter}' gives {side_name} a second right on the same side of the king"
                )));
            }
            rights.add(rook);
        }
        self.setup.castling_rights = rights;
        Ok(())
    }

    fn into_position(mut self) -> Result<(Chess, CastlingMode), FenError> {
        let board = &self.setup.board;
        let placement = self.placement_col;
        // Kings.
        for color in Color::ALL {
            let kings = board.by_piece(Piece {
                color,
                role: Role::King,
            });
            if kings.is_empty() {
                return Err(FenError::illegal(
                    FenField::Placement,
                    placement,
                    format!(
                        "{} has no king: expected exactly one {} ({})",
                        color.fold_wb("White", "Black"),
                        color.fold_wb("'K'", "'k'"),
                        color.fold_wb("white king", "black king")
                    ),
                ));
            }
            if kings.more_than_one() {
                let second = kings.into_iter().nth(1).unwrap_or(Square::A1);
                return Err(FenError::illegal(
                    FenField::Placement,
                    self.col_of(second),
                    format!(
                        "{} has {} kings: expected exactly one",
                        color.fold_wb("White", "Black"),
                        kings.count()
                    ),
                ));
            }
        }
        if let Some(sq) = (board.pawns() & Bitboard::BACKRANKS).first() {
            return Err(FenError::illegal(
                FenField::Placement,
                self.col_of(sq),
                format!("pawn on {sq}: pawns cannot stand on rank 1 or rank 8"),
            ));
        }
        self.resolve_castling()?;
        // En passant square.
        if let Some(ep) = self.setup.ep_square {
            let turn = self.setup.turn;
            let expected_rank = turn.fold_wb(Rank::Sixth, Rank::Third);
            let board = &self.setup.board;
            let illegal = |msg: String| FenError::illegal(FenField::EnPassant, self.ep_col, msg);
            if ep.rank() != expected_rank {
                return Err(illegal(format!(
                    "en passant square {ep} is impossible with {} to move: expected a square on rank {}",
                    turn.fold_wb("White", "Black"),
                    expected_rank.char()
                )));
            }
            let pushed_to = Square::from_coords(ep.file(), turn.fold_wb(Rank::Fifth, Rank::Fourth));
            let pushed_from =
                Square::from_coords(ep.file(), turn.fold_wb(Rank::Seventh, Rank::Second));
            let them = !turn;
            if board.piece_at(pushed_to) != Some(them.pawn()) {
                return Err(illegal(format!(
                    "en passant square {ep} but no {} pawn on {pushed_to} that could just have advanced two squares",
                    them.fold_wb("white", "black")
                )));
            }
            if board.piece_at(ep).is_some() || board.piece_at(pushed_from).is_some() {
                return Err(illegal(format!(
                    "en passant square {ep} but {ep} or {pushed_from} is occupied, so no pawn just advanced two squares"
                )));
            }
        }

        let mode = CastlingMode::detect(&self.setup);
        let turn = self.setup.turn;
        let turn_col = self.turn_col;
        // Impossible checks and surplus material are accepted, as python-chess
        // does: perft suites and composed problems contain them, and the move
        // generator handles them.
        let result = match Chess::from_setup(self.setup, mode) {
            Ok(pos) => Ok(pos),
            Err(e) => match e.ignore_impossible_check() {
                Ok(pos) => Ok(pos),
                Err(e) => e.ignore_too_much_material(),
            },
        };
        match result {
            Ok(pos) => Ok((pos, mode)),
            Err(err) => {
                let kinds = err.kinds();
                let (field, col, msg) = if kinds.contains(PositionErrorKinds::OPPOSITE_CHECK) {
                    (
                        FenField::Turn,
                        turn_col,
                        format!(
                            "{} is to move but {} is in check: the side not to move is in check, so its king could be captured",
                            turn.fold_wb("White", "Black"),
                            turn.fold_wb("Black", "White")
                        ),
                    )
                } else if kinds.contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) {
                    (
                        FenField::Castling,
                        self.castling_col,
                        "castling rights do not match the king and rook placement".to_string(),
                    )
                } else if kinds.contains(PositionErrorKinds::INVALID_EP_SQUARE) {
                    (
                        FenField::EnPassant,
                        self.ep_col,
                        "impossible en passant square".to_string(),
                    )
                } else {
                    (FenField::Placement, placement, format!("{err}"))
                };
                Err(FenError::illegal(field, col, msg))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn err(fen: &str) -> FenError {
        read_fen(fen).expect_err(fen)
    }

    #[test]
    fn spec_examples_round_trip() {
        for fen in [
            START,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39",
        ] {
            let (pos, mode) = read_fen(fen).unwrap();
            assert_eq!(write_fen(&pos, mode), fen);
        }
    }

    #[test]
    fn playing_e4_gives_the_spec_fen() {
        let mut pos = Chess::default();
        let m = shakmaty::uci::UciMove::from_ascii(b"e2e4")
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        assert_eq!(
            write_fen(&pos, CastlingMode::Standard),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        );
    }

    #[test]
    fn four_and_five_fields_and_blanks() {
        let (pos, _) =
            read_fen("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w KQkq -  ").unwrap();
        assert_eq!(write_fen(&pos, CastlingMode::Standard), START);
        let (pos, _) = read_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 7").unwrap();
        assert_eq!(pos.halfmoves(), 7);
        let (pos, _) = read_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 1 0").unwrap();
        assert_eq!(pos.fullmoves().get(), 1);
    }

    #[test]
    fn wrong_rank_count() {
        let e = err("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(
            (e.kind, e.field),
            (FenErrorKind::Syntax, FenField::Placement)
        );
        assert!(e.message.contains("7 ranks"), "{e}");
        let e = err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1");
        assert!(e.message.contains("more than 8 ranks"), "{e}");
    }

    #[test]
    fn wrong_square_count_in_a_rank() {
        let e = err("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(e.kind, FenErrorKind::Syntax);
        assert_eq!(e.column, 9);
        assert!(e.message.contains("rank 7 describes 7 squares"), "{e}");
        let e = err("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(e.column, 18);
        let e = err("rnbqkbnr/pppppppp/44p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(e.message.contains("more than 8"), "{e}");
    }

    #[test]
    fn bad_piece_letter() {
        let e = err("rnbqkbnr/pppppppp/8/8/3X4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(
            (e.kind, e.field, e.column),
            (FenErrorKind::Syntax, FenField::Placement, 23)
        );
        assert!(e.message.contains("'X'") && e.message.contains("expected a piece letter"));
    }

    #[test]
    fn bad_turn_castling_ep_counts() {
        let e = err("4k3/8/8/8/8/8/8/4K3 x - - 0 1");
        assert_eq!((e.field, e.column), (FenField::Turn, 20));
        let e = err("4k3/8/8/8/8/8/8/4K3 w KX - 0 1");
        assert_eq!(
            (e.field, e.column, e.kind),
            (FenField::Castling, 23, FenErrorKind::Syntax)
        );
        let e = err("4k3/8/8/8/8/8/8/4K3 w KK - 0 1");
        assert!(e.message.contains("repeated"), "{e}");
        let e = err("4k3/8/8/8/8/8/8/4K3 w - e9 0 1");
        assert_eq!(
            (e.field, e.kind),
            (FenField::EnPassant, FenErrorKind::Syntax)
        );
        let e = err("4k3/8/8/8/8/8/8/4K3 w - - x 1");
        assert_eq!((e.field, e.column), (FenField::HalfmoveClock, 26));
        let e = err("4k3/8/8/8/8/8/8/4K3 w - - 0 -3");
        assert_eq!(e.field, FenField::FullmoveNumber);
        let e = err("4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999");
        assert_eq!(e.field, FenField::FullmoveNumber);
        let e = err("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra");
        assert_eq!((e.field, e.column), (FenField::Trailing, 30));
        let e = err("4k3/8/8/8/8/8/8/4K3 w");
        assert_eq!(e.field, FenField::Castling);
        let e = err("");
        assert_eq!(e.field, FenField::Placement);
    }

    #[test]
    fn missing_or_extra_king() {
        let e = err("8/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(e.kind, FenErrorKind::Illegal);
        assert!(e.message.contains("Black has no king"), "{e}");
        let e = err("4k3/8/8/8/8/8/8/K3K3 w - - 0 1");
        assert!(e.message.contains("2 kings"), "{e}");
        assert_eq!(e.column, 18);
    }

    #[test]
    fn pawns_on_back_rank() {
        let e = err("4k2P/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!((e.kind, e.column), (FenErrorKind::Illegal, 3));
        assert!(e.message.contains("pawn on h8"), "{e}");
        let e = err("4k3/8/8/8/8/8/8/p3K3 w - - 0 1");
        assert!(e.message.contains("pawn on a1"), "{e}");
    }

    #[test]
    fn castling_rights_contradicting_pieces() {
        let e = err("r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1");
        assert_eq!(
            (e.kind, e.field, e.column),
            (FenErrorKind::Illegal, FenField::Castling, 25)
        );
        assert!(e.message.contains("no rook"), "{e}");
        // King on d1 between its rooks: fine, as Chess960 (X-FEN).
        let (_, mode) = read_fen("r3k2r/8/8/8/8/8/8/R2K3R w KQkq - 0 1").unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        let e = err("r3k2r/8/8/8/8/8/4K3/R6R w KQ - 0 1");
        assert!(e.message.contains("king is not on rank 1"), "{e}");
        let e = err("4k3/8/8/8/8/8/8/R3K2R w C - 0 1");
        assert!(e.message.contains("no white rook on c1"), "{e}");
    }

    #[test]
    fn chess960_castling_is_detected() {
        // Shredder-FEN and X-FEN for the same position.
        let (pos, mode) =
            read_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        assert_eq!(
            write_fen(&pos, mode),
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
        );
        let (_, mode) =
            read_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9").unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        // A rook that is not the outermost one needs its file (X-FEN).
        let (pos, mode) = read_fen("4k3/8/8/8/8/8/8/1R2K1RR w G - 0 1").unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        assert_eq!(write_fen(&pos, mode), "4k3/8/8/8/8/8/8/1R2K1RR w G - 0 1");
        let (_, mode) = read_fen(START).unwrap();
        assert_eq!(mode, CastlingMode::Standard);
    }

    #[test]
    fn impossible_en_passant_square() {
        let e = err("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1");
        assert_eq!(
            (e.kind, e.field),
            (FenErrorKind::Illegal, FenField::EnPassant)
        );
        assert!(e.message.contains("rank 6"), "{e}");
        let e = err("4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1");
        assert!(e.message.contains("no black pawn on d5"), "{e}");
        let e = err("4k3/3p4/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert!(e.message.contains("occupied"), "{e}");
        // Legal: kept even when no capture is possible (the standard's rule).
        let (pos, mode) = read_fen("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1").unwrap();
        assert_eq!(write_fen(&pos, mode), "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1");
        assert_eq!(
            write_fen_with(&pos, EnPassantMode::Legal),
            "4k3/8/8/3p4/8/8/8/4K3 w - - 0 1"
        );
    }

    #[test]
    fn side_not_to_move_in_check() {
        let e = err("4k3/8/8/8/8/8/8/4R2K w - - 0 1");
        assert_eq!((e.kind, e.field), (FenErrorKind::Illegal, FenField::Turn));
        assert!(e.message.contains("not to move is in check"), "{e}");
        assert!(read_fen("4k3/8/8/8/8/8/8/4R2K b - - 0 1").is_ok());
    }

    #[test]
    fn impossible_check_and_surplus_material_are_accepted() {
        // Two bishops on one diagonal both checking (perft.epd line 133).
        assert!(read_fen("B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1").is_ok());
        assert!(read_fen("NNNNNNNN/NNN5/8/8/8/8/8/K6k w - - 0 1").is_ok());
    }

    #[test]
    fn epd_position_and_prefix() {
        let (pos, _) = read_epd_position("4k3/8/8/8/8/8/4P3/4K3 w - -").unwrap();
        assert_eq!(
            write_epd_position(&pos, CastlingMode::Standard),
            "4k3/8/8/8/8/8/4P3/4K3 w - -"
        );
        assert!(read_epd_position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").is_err());
        let line = "4k3/8/8/8/8/8/4P3/4K3 w - -  bm e4; id \"x\";";
        let p = read_epd_prefix(line).unwrap();
        assert_eq!(&line[p.rest..], "bm e4; id \"x\";");
        let p = read_epd_prefix("4k3/8/8/8/8/8/4P3/4K3 w - -").unwrap();
        assert_eq!(p.rest, 27);
        let e = read_epd_prefix("4k3/8/8/8/8/8/4P3/4K3 w").unwrap_err();
        assert_eq!(e.field, FenField::Castling);
    }

    #[test]
    fn display_names_field_and_column() {
        let e = err("4k3/8/8/8/8/8/8/4K3 x - - 0 1");
        assert_eq!(
            e.to_string(),
            "bad FEN: active colour (field 2) at column 21: expected 'w' or 'b', found 'x'"
        );
    }

    /// A line that is not UTF-8 is reported with its number and an escaped
    /// excerpt, and the lines after it are read (`moves` stopped there).
    #[test]
    fn fen_lines_go_on_after_a_line_that_is_not_utf8() {
        let text = b"8/8/8/8/8/8/8/K1k5 w - - 0 1\nK1k5/8/8/\xff\xfe/8/8/8/8 w - - 0 1\r\n\r8/8/8/8/8/8/8/K1k5 b - - 0 1\r";
        let lines: Vec<FenLine> = read_fen_lines(&text[..]).map(Result::unwrap).collect();
        let numbers: Vec<(u64, bool)> = lines
            .iter()
            .map(|l| (l.number, l.position.is_ok()))
            .collect();
        assert_eq!(numbers, [(1, true), (2, false), (3, false), (4, true)]);
        assert_eq!(
            lines[1].position.as_ref().unwrap_err(),
            "not UTF-8 text (a FEN is ASCII): `K1k5/8/8/\\xff\\xfe/8/8/8/8 w - - 0 1`"
        );
    }

    /// Text after the last field is quoted (it was not).
    #[test]
    fn text_after_the_last_field_is_quoted() {
        let e = read_fen("8/8/8/8/8/8/8/K1k5 w - - 0 1 extra\x01 \n").unwrap_err();
        assert_eq!(e.field, FenField::Trailing);
        assert_eq!(e.column, 29);
        assert_eq!(
            e.message,
            "unexpected text `extra\\x01` after the fullmove number: a FEN has at most 6 fields"
        );
        let e = read_epd_position("8/8/8/8/8/8/8/K1k5 w - - bm").unwrap_err();
        assert_eq!(
            e.message,
            "unexpected text `bm` after the en passant square: an EPD position has 4 fields"
        );
    }
}
