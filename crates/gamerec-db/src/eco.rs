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
use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};

use gamerec::model::{Game, PlyMove};

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
///
/// Lines are found through maps, never by going through the lines that end
/// on one board: a book of many such lines is read, and a game classified,
/// in time linear in the book and the game.
#[derive(Debug, Clone, Default)]
pub struct EcoBook {
    lines: Vec<EcoLine>,
    /// The line of each board, length and move order (a repeated line
    /// keeps its first entry, so there is one).
    exact: HashMap<(u64, usize, u64), u32>,
    /// The first line in the file of each board and length.
    first: HashMap<(u64, usize), u32>,
    /// The shortest line of each board (the first in the file of those).
    shortest: HashMap<u64, u32>,
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

impl EcoBook {
    /// Reads the lines of an ECO file in PGN; returns the book and the
    /// number of games that could not be read.
    pub fn from_pgn(data: &[u8]) -> (EcoBook, usize) {
        // Game by game: memory holds the lines, not the games.
        let mut reader = gamerec::pgn::SliceReader::new(data);
        let mut builder = gamerec::pgn::GameBuilder::default();
        let mut failed = 0;
        let mut book = EcoBook::default();
        while let Some(game) = reader.read_game(&mut builder) {
            failed += reader
                .problems()
                .iter()
                .filter(|p| p.severity == gamerec::diag::Severity::Error)
                .count();
            if let Some(game) = game {
                book.add(&game);
            }
        }
        (book, failed)
    }

    /// Adds the line of `game` (a repeated line, of the same final board,
    /// length and moves, keeps its first entry).
    fn add(&mut self, game: &Game) {
        if game.variant().is_some() {
            return;
        }
        let mut pos = game.start.clone();
        let mut hash = MovesHash::default();
        let mut plies = 0;
        for id in game.tree.mainline() {
            if let Some(p) = &game.tree.node(id).ply {
                pos = gamerec::model::play_ply(&pos, p.mv);
                hash.push(p.mv);
                plies += 1;
            }
        }
        let k = key(&pos);
        let index = self.lines.len() as u32;
        match self.exact.entry((k, plies, hash.value())) {
            Entry::Occupied(_) => return,
            Entry::Vacant(e) => e.insert(index),
        };
        self.first.entry((k, plies)).or_insert(index);
        match self.shortest.entry(k) {
            Entry::Vacant(e) => {
                e.insert(index);
            }
            Entry::Occupied(mut e) => {
                if self.lines[*e.get() as usize].plies > plies {
                    e.insert(index);
                }
            }
        }
        self.max_plies = self.max_plies.max(plies);
        self.lines.push(EcoLine {
            tags: ECO_TAGS.map(|t| game.tags.get(t).map(str::to_string)),
            plies,
            moves: hash.value(),
        });
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
        let &i = self.shortest.get(&key(pos))?;
        Some(&self.lines[i as usize])
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
            let k = key(&pos);
            if self.shortest.contains_key(&k) {
                // The line of this very move order, else the first in the
                // file of those ending here at most PLY_SLACK plies earlier.
                let exact = self.exact.get(&(k, ply, moves.value()));
                let near = || {
                    (ply.saturating_sub(PLY_SLACK)..=ply)
                        .filter_map(|p| self.first.get(&(k, p)))
                        .min()
                };
                if let Some(&i) = exact.or_else(near) {
                    found = Some(&self.lines[i as usize]);
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

    /// The knight moves of `blocks` blocks of four plies, each block back
    /// to the start board: block `d` of line `i` is base-4 digit `d` of `i`.
    fn knight_shuffle(i: usize, blocks: usize) -> String {
        const BLOCKS: [&str; 4] = [
            "Nf3 Nf6 Ng1 Ng8 ",
            "Nc3 Nc6 Nb1 Nb8 ",
            "Nh3 Nh6 Ng1 Ng8 ",
            "Na3 Na6 Nb1 Nb8 ",
        ];
        (0..blocks).map(|d| BLOCKS[(i >> (2 * d)) & 3]).collect()
    }

    /// Every line of a book ending on one board was compared with each line
    /// before it when read, and with each at every ply of a game reaching
    /// that board: in a debug build, these 131,072 lines took 12 s to read
    /// and 2,000 games 4.6 s to classify (now 1.8 s and 0.03 s).
    #[test]
    fn many_lines_ending_on_one_board_are_read_and_matched_in_linear_time() {
        const BLOCKS: usize = 8;
        const LINES: usize = 1 << (2 * BLOCKS);
        const GAMES: usize = 10_000;
        gamerec_testkit::finishes("ECO book of lines ending on one board", 20, || {
            let mut pgn = String::new();
            for i in 0..LINES {
                pgn.push_str(&format!(
                    "[ECO \"A{:02}\"]\n\n{}*\n\n",
                    i % 100,
                    knight_shuffle(i, BLOCKS)
                ));
            }
            // The same lines again: each kept once.
            for i in 0..LINES {
                pgn.push_str(&format!(
                    "[ECO \"B00\"]\n\n{}*\n\n",
                    knight_shuffle(i, BLOCKS)
                ));
            }
            let (book, failed) = EcoBook::from_pgn(pgn.as_bytes());
            assert_eq!((book.len(), failed), (LINES, 0));
            for g in 0..GAMES {
                let i = g * 31 % LINES;
                let line = book.classify(&game(&format!("{}*", knight_shuffle(i, BLOCKS))));
                let eco = line.and_then(|l| l.tags[0].as_deref());
                assert_eq!(eco, Some(format!("A{:02}", i % 100)).as_deref());
            }
        });
    }

    /// Which line wins where several end on one board: the game's own move
    /// order, else the first in the file of those ending at most
    /// [`PLY_SLACK`] plies before, the deepest ply of the game deciding; a
    /// repeated line keeps its first entry; [`EcoBook::at_position`] gives
    /// the shortest line, the first of equals.
    #[test]
    fn ties_between_lines_ending_on_one_board() {
        // All end on the board of 1. e4 e5 2. Nf3 Nc6.
        let book = "[ECO \"C20\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. Bf1 Bf8 *\n\n\
            [ECO \"C40\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
            [ECO \"A04\"]\n\n1. Nf3 Nc6 2. e4 e5 *\n\n\
            [ECO \"B00\"]\n\n1. e4 Nc6 2. Nf3 e5 *\n\n\
            [ECO \"A05\"]\n\n1. Nf3 Nc6 2. e4 e5 *\n\n\
            [ECO \"C44\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. Bf1 Bf8 5. Ng1 Nb8 6. Nf3 Nc6 *\n\n\
            [ECO \"C41\"]\n\n1. Nf3 e5 2. e4 Nc6 *\n";
        let (book, failed) = EcoBook::from_pgn(book.as_bytes());
        // The second 1. Nf3 Nc6 2. e4 e5 (A05) is left out.
        assert_eq!((book.len(), failed), (6, 0));
        let eco = |moves: &str| {
            book.classify(&game(&format!("{moves} *")))
                .and_then(|l| l.tags[0].clone())
        };
        // Its own move order, wherever the line is in the file.
        assert_eq!(eco("1. e4 e5 2. Nf3 Nc6").as_deref(), Some("C40"));
        assert_eq!(eco("1. Nf3 Nc6 2. e4 e5").as_deref(), Some("A04"));
        assert_eq!(eco("1. e4 Nc6 2. Nf3 e5").as_deref(), Some("B00"));
        assert_eq!(eco("1. Nf3 e5 2. e4 Nc6").as_deref(), Some("C41"));
        let c20 = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. Bf1 Bf8";
        assert_eq!(eco(c20).as_deref(), Some("C20"));
        let c44 = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. Bf1 Bf8 5. Ng1 Nb8 6. Nf3 Nc6";
        assert_eq!(eco(c44).as_deref(), Some("C44"));
        // Another order: at ply 8, the first line of the file ending there
        // 0 to 6 plies before (C20, not the shorter C40 after it), though
        // ply 4 had A04's own order.
        let other = "1. Nf3 Nc6 2. e4 e5 3. Bc4 Bc5 4. Bf1 Bf8";
        assert_eq!(eco(other).as_deref(), Some("C20"));
        assert_eq!(
            eco("1. Nc3 Nc6 2. Nb1 e5 3. e4 Nb8 4. Nf3 Nc6").as_deref(),
            Some("C20")
        );
        // At ply 12: C20 (8 plies) before C44 (12) in the file.
        let twelve = format!("{other} 5. Ng1 Nb8 6. Nf3 Nc6");
        assert_eq!(eco(&twelve).as_deref(), Some("C20"));
        // At ply 16, C44 alone is 6 plies or less before.
        let sixteen = format!("{twelve} 7. Ng1 Nb8 8. Nf3 Nc6");
        assert_eq!(eco(&sixteen).as_deref(), Some("C44"));
        let pos = crate::position::mainline(&game("1. e4 e5 2. Nf3 Nc6 *"))
            .pop()
            .unwrap();
        assert_eq!(
            book.at_position(&pos).and_then(|l| l.tags[0].as_deref()),
            Some("C40")
        );
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
