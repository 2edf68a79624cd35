//! Forsyth-Edwards Notation: read all six fields, write canonical FEN.
//!
//! PLACEHOLDER: issue #2 replaces this thin layer over shakmaty with precise
//! field/column errors. The public API below is what other modules use.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError {
    /// What is wrong and what was expected.
    pub message: String,
    /// 0-based byte column in the FEN text.
    pub column: usize,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column + 1, self.message)
    }
}

impl std::error::Error for FenError {}

/// Reads a FEN (4 to 6 fields) into a legal position, detecting Chess960
/// castling (X-FEN/Shredder-FEN) from the rights.
pub fn read_fen(text: &str) -> Result<(Chess, CastlingMode), FenError> {
    let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| FenError {
        message: e.to_string(),
        column: 0,
    })?;
    let mode = CastlingMode::detect(fen.as_setup());
    let pos = fen.into_position(mode).map_err(|e| FenError {
        message: e.to_string(),
        column: 0,
    })?;
    Ok((pos, mode))
}

/// Writes the canonical six-field FEN of `pos`.
pub fn write_fen(pos: &Chess, mode: CastlingMode) -> String {
    let _ = mode;
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Writes the four position fields of `pos` (the EPD position).
pub fn write_epd_position(pos: &Chess, mode: CastlingMode) -> String {
    let _ = mode;
    shakmaty::fen::Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The turn of `pos`, as a convenience for callers that only hold a FEN.
pub fn side_to_move(pos: &Chess) -> shakmaty::Color {
    pos.turn()
}
