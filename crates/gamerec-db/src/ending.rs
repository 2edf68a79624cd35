//! How a game ended on the board, from its main line's final position.

use shakmaty::{Chess, Position};

/// The way the final position of a game ends it. When several hold, the
/// first in this order wins: mate, stalemate, insufficient material,
/// repetition, fifty moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The side to move is checkmated.
    Mate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate (shakmaty's insufficient material).
    InsufficientMaterial,
    /// The final position occurred at least three times in the main line.
    Repetition,
    /// 50 moves (100 plies) without a capture or pawn move.
    FiftyMoves,
}

impl Ending {
    /// Every ending, for help texts.
    pub const ALL: [Ending; 5] = [
        Ending::Mate,
        Ending::Stalemate,
        Ending::InsufficientMaterial,
        Ending::Repetition,
        Ending::FiftyMoves,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Mate => "mate",
            Ending::Stalemate => "stalemate",
            Ending::InsufficientMaterial => "insufficient",
            Ending::Repetition => "repetition",
            Ending::FiftyMoves => "fifty",
        }
    }

    /// Parses a name ([`Ending::name`], also `checkmate`, `50`).
    pub fn parse(text: &str) -> Result<Ending, String> {
        let t = text.trim().to_ascii_lowercase();
        Ending::ALL
            .into_iter()
            .find(|e| e.name() == t)
            .or(match t.as_str() {
                "checkmate" => Some(Ending::Mate),
                "50" | "fifty-moves" | "50-moves" => Some(Ending::FiftyMoves),
                "insufficient-material" => Some(Ending::InsufficientMaterial),
                "threefold" => Some(Ending::Repetition),
                _ => None,
            })
            .ok_or_else(|| {
                format!("unknown ending {text:?}: expected mate, stalemate, insufficient, repetition or fifty")
            })
    }
}

/// How the main line `positions` (start first, as [`crate::position::mainline`]
/// gives them) ends, if the final position ends the game.
pub fn ending(positions: &[Chess]) -> Option<Ending> {
    let last = positions.last()?;
    if last.is_checkmate() {
        return Some(Ending::Mate);
    }
    if last.is_stalemate() {
        return Some(Ending::Stalemate);
    }
    if last.is_insufficient_material() {
        return Some(Ending::InsufficientMaterial);
    }
    // Only positions since the last irreversible move can repeat.
    let window = (last.halfmoves() as usize).min(positions.len() - 1);
    let key = crate::position::key(last);
    let repeats = positions[positions.len() - 1 - window..]
        .iter()
        .filter(|p| crate::position::key(p) == key && crate::position::same_position(p, last))
        .count();
    if repeats >= 3 {
        return Some(Ending::Repetition);
    }
    if last.halfmoves() >= 100 {
        return Some(Ending::FiftyMoves);
    }
    None
}
