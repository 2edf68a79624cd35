//! Duplicate games: the same moves from the same start position (and,
//! optionally, the same tags). The first copy is kept.
//!
//! A game's identity is a 128-bit hash of its start position (FEN) and its
//! main-line moves (and, with tags, every tag name and value, in any
//! order), so memory is 16 bytes per distinct game and a false duplicate
//! needs a 128-bit collision.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use gamerec::model::Game;

/// What makes two games the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DedupOptions {
    /// Also require the same tags (names and values, in any order).
    pub same_tags: bool,
}

/// The identity of a game under `opts`.
pub fn identity(game: &Game, opts: DedupOptions) -> u128 {
    let mut halves = [0u64; 2];
    for (seed, half) in halves.iter_mut().enumerate() {
        let mut h = std::hash::DefaultHasher::new();
        seed.hash(&mut h);
        gamerec::fen::write_fen(&game.start, game.castling_mode).hash(&mut h);
        // A variant game is never the standard game of the same moves; its
        // start is the FEN tag read by its rules (pockets, check counters).
        if let Some(variant) = game.variant() {
            gamerec::variant::lichess_name(variant).hash(&mut h);
            game.tags.get("FEN").map(str::trim).hash(&mut h);
        }
        for id in game.tree.mainline() {
            if let Some(ply) = &game.tree.node(id).ply {
                ply.mv.hash(&mut h);
            }
        }
        if opts.same_tags {
            let mut tags: Vec<(&str, &str)> = game
                .tags
                .iter()
                .map(|t| (t.name.as_str(), t.value.as_str()))
                .collect();
            tags.sort_unstable();
            tags.hash(&mut h);
        }
        *half = h.finish();
    }
    (u128::from(halves[0]) << 64) | u128::from(halves[1])
}

/// Remembers the games seen: [`Seen::first_of`] tells whether a game is a
/// copy and of which earlier game (by the number the caller gave it).
#[derive(Debug, Default)]
pub struct Seen {
    first: HashMap<u128, u64>,
}

impl Seen {
    /// An empty record.
    pub fn new() -> Seen {
        Seen::default()
    }

    /// `None` for a new game (now remembered as number `n`), else the
    /// number of the first game with this identity.
    pub fn first_of(&mut self, id: u128, n: u64) -> Option<u64> {
        match self.first.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(n);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_moves_same_start() {
        let (games, _) = gamerec::pgn::read_games(
            b"[White \"a\"]\n1. e4 e5 {x} 2. Nf3 (2. Nc3) 1-0\n\n[White \"b\"]\n1. e4 e5 2. Nf3 0-1\n\n\
              [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e4 *\n\n[White \"c\"]\n1. e4 e5 *\n",
        );
        let ids: Vec<u128> = games
            .iter()
            .map(|g| identity(g, DedupOptions::default()))
            .collect();
        assert_eq!(ids[0], ids[1]);
        assert_ne!(ids[0], ids[2]);
        assert_ne!(ids[0], ids[3]);
        let tagged = DedupOptions { same_tags: true };
        assert_ne!(identity(&games[0], tagged), identity(&games[1], tagged));
        let mut seen = Seen::new();
        let firsts: Vec<Option<u64>> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| seen.first_of(*id, i as u64))
            .collect();
        assert_eq!(firsts, [None, Some(0), None, None]);
    }
}
