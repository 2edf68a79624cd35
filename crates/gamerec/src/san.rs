//! Standard Algebraic Notation: canonical writing, tolerant reading.
//!
//! PLACEHOLDER: issue #2 replaces this thin layer over shakmaty with the full
//! tolerant reader (foreign piece letters, FAN, long algebraic, ...). The
//! public API below is what other modules use.

use std::fmt;

use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, Position};

use crate::model::PlyMove;

/// Options for reading SAN.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {}

/// A move read from SAN text, with any suffix annotation split off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMove {
    /// The move.
    pub mv: PlyMove,
    /// The NAG of a suffix annotation (`!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6).
    pub nag: Option<u8>,
}

/// Why a SAN text could not be read in a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanError {
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SanError {}

/// Reads `text` as a move in `pos`, tolerantly.
pub fn read_san(pos: &Chess, text: &[u8], _opts: &ReadOptions) -> Result<ReadMove, SanError> {
    let mut end = text.len();
    while end > 0 && matches!(text[end - 1], b'!' | b'?') {
        end -= 1;
    }
    let nag = match &text[end..] {
        b"" => None,
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => {
            return Err(SanError {
                message: "bad suffix annotation".into(),
            });
        }
    };
    let san = San::from_ascii(&text[..end]).map_err(|e| SanError {
        message: e.to_string(),
    })?;
    if san == San::Null {
        return Ok(ReadMove {
            mv: PlyMove::Null,
            nag,
        });
    }
    let mv = san.to_move(pos).map_err(|e| SanError {
        message: e.to_string(),
    })?;
    Ok(ReadMove {
        mv: PlyMove::Move(mv),
        nag,
    })
}

/// Appends the canonical SAN of `mv` in `pos` (with `+`/`#`) to `out`.
pub fn write_san_to(pos: &Chess, mv: PlyMove, out: &mut String) {
    match mv {
        PlyMove::Null => out.push_str("--"),
        PlyMove::Move(m) => SanPlus::from_move(pos.clone(), m).append_to_string(out),
    }
}

/// The canonical SAN of `mv` in `pos`.
pub fn write_san(pos: &Chess, mv: PlyMove) -> String {
    let mut s = String::new();
    write_san_to(pos, mv, &mut s);
    s
}

/// Whether `pos` is the side-to-move's checkmate (re-exported convenience).
pub fn is_checkmate(pos: &Chess) -> bool {
    pos.is_checkmate()
}
