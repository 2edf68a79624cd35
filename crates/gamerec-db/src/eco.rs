//! ECO classification against a PGN file of opening lines (pgn-extract's
//! `eco.pgn`: one game per line, with `ECO`, `Opening` and optionally
//! `Variation` and `SubVariation` tags).
//!
//! A game is classified by the deepest main-line board that ends some
//! line: transpositions count, as in pgn-extract, when the game reaches the
//! line's final position at most [`PLY_SLACK`] plies later than the line
//! does (never earlier). Where several lines end in the same position, the
//! one with the game's very move order is preferred, else the first in the
//! file. The search stops [`PLY_SLACK`] plies after the longest line.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use gamerec::model::{Game, PlyMove};

use crate::position::mainline;

/// Lines are matched by piece placement alone (as pgn-extract does): a
/// transposition that reaches a line's board with the other side to move
/// still matches, within the ply window.
fn key(pos: &shakmaty::Chess) -> u64 {
    use shakmaty::Position;
    let mut h = std::hash::DefaultHasher::new();
    pos.board().hash(&mut h);
    h.finish()
}

/// How many plies later than its line a game may reach the line's final
/// position and still match (pgn-extract's `ECO_HALF_MOVE_LIMIT`).
pub const PLY_SLACK: usize = 6;

/// The tags an ECO line sets.
pub const ECO_TAGS: [&str; 4] = ["ECO", "Opening", "Variation", "SubVariation"];

/// One opening line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcoLine {
    /// Values of [`ECO_TAGS`] (absent ones `None`).
    pub tags: [Option<String>; 4],
    /// The line's length in plies.
    pub plies: usize,
    moves: u64,
}

/// A loaded ECO file.
#[derive(Debug, Clone, Default)]
pub struct EcoBook {
    lines: Vec<EcoLine>,
    by_key: HashMap<u64, Vec<u32>>,
    max_plies: usize,
}

/// The hash of a move sequence, extended one move at a time (so each
/// prefix of a game is hashed in time linear in the game).
#[derive(Debug, Clone, Default)]
struct MovesHash(std::hash::DefaultHasher);

impl MovesHash {
    fn push(&mut self, mv: PlyMove) {
        mv.hash(&mut self.0);
    }

    fn value(&self) -> u64 {
        self.0.finish()
    }
}

fn main_moves(game: &Game) -> Vec<PlyMove> {
    game.tree
        .mainline()
        .filter_map(|id| game.tree.node(id).ply.as_ref().map(|p| p.mv))
        .collect()
}

impl EcoBook {
    /// Reads the lines of an ECO file in PGN; returns the book and the
    /// number of games that could not be read.
    pub fn from_pgn(data: &[u8]) -> (EcoBook, usize) {
        let (games, problems) = gamerec::pgn::read_games(data);
        let failed = problems
            .iter()
            .filter(|p| p.severity == gamerec::diag::Severity::Error)
            .count();
        let mut book = EcoBook::default();
        for game in &games {
            let moves = main_moves(game);
            let positions = mainline(game);
            let Some(last) = positions.last() else {
                continue;
            };
            let tags = ECO_TAGS.map(|t| game.tags.get(t).map(str::to_string));
            let mut hash = MovesHash::default();
            for &mv in &moves {
                hash.push(mv);
            }
            let line = EcoLine {
                tags,
                plies: moves.len(),
                moves: hash.value(),
            };
            let k = key(last);
            let same = book.by_key.entry(k).or_default();
            // A repeated line (same position, plies and moves) keeps its first entry.
            if same.iter().any(|&i| {
                let l = &book.lines[i as usize];
                l.plies == line.plies && l.moves == line.moves
            }) {
                continue;
            }
            same.push(book.lines.len() as u32);
            book.max_plies = book.max_plies.max(line.plies);
            book.lines.push(line);
        }
        (book, failed)
    }

    /// How many lines the book holds.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the book has no lines.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The shortest line ending in `pos`, if any.
    pub fn at_position(&self, pos: &shakmaty::Chess) -> Option<&EcoLine> {
        self.by_key
            .get(&key(pos))?
            .iter()
            .map(|&i| &self.lines[i as usize])
            .min_by_key(|l| l.plies)
    }

    /// The line classifying `game`, if any.
    pub fn classify(&self, game: &Game) -> Option<&EcoLine> {
        // ECO codes name standard-chess openings.
        if game.variant().is_some() {
            return None;
        }
        let limit = self.max_plies + PLY_SLACK;
        let mut found = None;
        let mut pos = game.start.clone();
        let mut moves = MovesHash::default();
        let mut ply_iter = game.tree.mainline();
        for ply in 0..=limit {
            if let Some(ids) = self.by_key.get(&key(&pos)) {
                let seq = moves.value();
                let exact = ids
                    .iter()
                    .map(|&i| &self.lines[i as usize])
                    .find(|l| l.plies == ply && l.moves == seq);
                let near = || {
                    ids.iter()
                        .map(|&i| &self.lines[i as usize])
                        .find(|l| ply >= l.plies && ply - l.plies <= PLY_SLACK)
                };
                if let Some(l) = exact.or_else(near) {
                    found = Some(l);
                }
            }
            let Some(id) = ply_iter.next() else {
                break;
            };
            if let Some(p) = &game.tree.node(id).ply {
                pos = gamerec::model::play_ply(&pos, p.mv);
                moves.push(p.mv);
            }
        }
        found
    }

    /// Classifies `game` and sets its ECO, Opening, Variation and
    /// SubVariation tags (removing those the line does not have). Returns
    /// whether a line matched; an unmatched game is left as it was.
    pub fn apply(&self, game: &mut Game) -> bool {
        let Some(line) = self.classify(game).cloned() else {
            return false;
        };
        for (name, value) in ECO_TAGS.iter().zip(line.tags) {
            match value {
                Some(v) => game.tags.set(name, v),
                None => {
                    game.tags.remove(name);
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOOK: &str = "[ECO \"B20\"]\n[Opening \"Sicilian\"]\n\n1. e4 c5 *\n\n\
        [ECO \"B27\"]\n[Opening \"Sicilian\"]\n[Variation \"Katalimov\"]\n\n1. e4 c5 2. Nf3 b6 *\n\n\
        [ECO \"A00\"]\n[Opening \"Polish\"]\n\n1. b4 *\n";

    fn game(pgn: &str) -> Game {
        gamerec::pgn::read_games(pgn.as_bytes()).0.remove(0)
    }

    /// The moves before each position that ends a line were hashed anew
    /// at each such position: a game of 20,000 plies against a line as
    /// long took 2.8 s to classify.
    #[test]
    fn long_games_are_classified_in_linear_time() {
        const N: usize = 100_000;
        gamerec_testkit::finishes("ECO classification", 20, || {
            let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
            let moves: String = (0..N).map(|i| format!("{} ", shuffle[i % 4])).collect();
            let (book, failed) =
                EcoBook::from_pgn(format!("[ECO \"A00\"]\n\n{moves}*\n").as_bytes());
            assert_eq!((book.len(), failed), (1, 0));
            let g = game(&format!("{moves}*"));
            assert_eq!(book.classify(&g).map(|l| l.plies), Some(N));
        });
    }

    #[test]
    fn deepest_match_and_transposition() {
        let (book, failed) = EcoBook::from_pgn(BOOK.as_bytes());
        assert_eq!((book.len(), failed), (3, 0));
        let mut g = game("[Variation \"old\"]\n1. e4 c5 2. Nf3 b6 3. d4 *");
        assert!(book.apply(&mut g));
        assert_eq!(g.tags.get("ECO"), Some("B27"));
        assert_eq!(g.tags.get("Variation"), Some("Katalimov"));
        // Transposed move order: same position at the same ply.
        let mut g = game("[Variation \"old\"]\n1. Nf3 b6 2. e4 c5 *");
        assert!(book.apply(&mut g));
        assert_eq!(g.tags.get("ECO"), Some("B27"));
        // Only the shallower line: B20, and its lack of Variation removes the old one.
        let mut g = game("[Variation \"old\"]\n1. e4 c5 2. Nc3 *");
        assert!(book.apply(&mut g));
        assert_eq!(
            (g.tags.get("ECO"), g.tags.get("Variation")),
            (Some("B20"), None)
        );
        let mut g = game("1. d4 d5 *");
        assert!(!book.apply(&mut g));
        assert_eq!(g.tags.get("ECO"), None);
    }
}
