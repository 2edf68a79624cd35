//! Exact forced-mate search: "mate in N fullmoves" with every defence
//! considered. A reported mate is always forced; a mate of length ≤ N is
//! never missed (unless the search is aborted, which is reported as such).
//!
//! Problem conventions: the fifty-move rule and repetition draws are not
//! considered (a composed "mate in N" ignores them); stalemate is a draw.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, MoveList, Position};

/// What the solver concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MateOutcome {
    /// The side to move mates in `moves` (the shortest such), starting with
    /// `pv[0]`; `pv` is one mating line (defender replies are one choice).
    Mate {
        /// Fullmoves to mate.
        moves: u32,
        /// A mating line.
        pv: Vec<Move>,
    },
    /// Proven: no mate in N or fewer.
    NoMate,
    /// Stopped by a limit before a proof either way.
    Aborted,
}

#[derive(Clone, Copy, Default)]
struct Proof {
    /// Smallest k proven to mate (0 = unknown).
    mate_in: u8,
    /// Largest k proven not to mate.
    no_mate_in: u8,
}

/// The solver (reusable; keeps its table between calls on one position).
pub struct MateSolver {
    stop: Arc<AtomicBool>,
    /// Node budget.
    pub node_limit: Option<u64>,
    /// Wall-clock deadline.
    pub deadline: Option<Instant>,
    /// Nodes visited.
    pub nodes: u64,
    aborted: bool,
    /// Calls of `limit_hit` left before the next look at the limits.
    until_poll: u32,
    table: HashMap<u64, Proof>,
}

/// Attacker nodes between two looks at the stop flag, budget and clock
/// (each costs a move generation per attacking move, so keep this small).
const POLL_INTERVAL: u32 = 64;

const TABLE_CAP: usize = 4_000_000;

impl MateSolver {
    /// A solver polling `stop`.
    pub fn new(stop: Arc<AtomicBool>) -> MateSolver {
        MateSolver {
            stop,
            node_limit: None,
            deadline: None,
            nodes: 0,
            aborted: false,
            until_poll: 0,
            table: HashMap::new(),
        }
    }

    /// Finds the shortest forced mate of at most `max_moves` fullmoves for
    /// the side to move.
    pub fn solve(&mut self, pos: &Chess, max_moves: u32) -> MateOutcome {
        self.aborted = false;
        self.until_poll = 0;
        let max = max_moves.min(60) as u8;
        for k in 1..=max {
            let key = key_of(pos);
            if let Some(m) = self.attack(pos, key, k) {
                let mut pv = vec![m];
                self.extend_pv(pos, m, k, &mut pv);
                return MateOutcome::Mate {
                    moves: u32::from(k),
                    pv,
                };
            }
            if self.aborted {
                return MateOutcome::Aborted;
            }
        }
        MateOutcome::NoMate
    }

    fn limit_hit(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.until_poll > 0 {
            self.until_poll -= 1;
            return false;
        }
        self.until_poll = POLL_INTERVAL;
        if self.stop.load(Ordering::Relaxed)
            || self.node_limit.is_some_and(|n| self.nodes >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Attacker to move, `k` moves left: a move that forces mate, if any.
    fn attack(&mut self, pos: &Chess, key: u64, k: u8) -> Option<Move> {
        self.nodes += 1;
        if self.limit_hit() {
            return None;
        }
        if let Some(p) = self.table.get(&key)
            && p.no_mate_in >= k
        {
            return None;
        }
        let moves = pos.legal_moves();
        let ordered = order_attacks(pos, moves, k);
        for m in ordered {
            let mut child = pos.clone();
            let ckey = pos
                .update_zobrist_hash::<Zobrist64>(Zobrist64(key), m, EnPassantMode::Legal)
                .map(|z| z.0);
            child.play_unchecked(m);
            let ckey = ckey.unwrap_or_else(|| key_of(&child));
            if self.defend(&child, ckey, k) {
                self.remember(key, |p| {
                    if p.mate_in == 0 || p.mate_in > k {
                        p.mate_in = k;
                    }
                });
                return Some(m);
            }
            if self.aborted {
                return None;
            }
        }
        if !self.aborted {
            self.remember(key, |p| p.no_mate_in = p.no_mate_in.max(k));
        }
        None
    }

    /// Defender to move after the attacker's move; the attacker has `k - 1`
    /// moves left. True when every defence loses (or it is mate now).
    fn defend(&mut self, pos: &Chess, key: u64, k: u8) -> bool {
        self.nodes += 1;
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return pos.is_check();
        }
        if k <= 1 {
            return false;
        }
        // Cheap refutations first: replies that escape check or capture.
        let mut ordered: Vec<Move> = replies.into_iter().collect();
        ordered.sort_by_key(|m| std::cmp::Reverse(m.is_capture()));
        for r in ordered {
            let ckey = pos
                .update_zobrist_hash::<Zobrist64>(Zobrist64(key), r, EnPassantMode::Legal)
                .map(|z| z.0);
            let mut child = pos.clone();
            child.play_unchecked(r);
            let ckey = ckey.unwrap_or_else(|| key_of(&child));
            if let Some(p) = self.table.get(&ckey)
                && p.mate_in != 0
                && p.mate_in < k
            {
                continue;
            }
            if self.attack(&child, ckey, k - 1).is_none() {
                return false;
            }
        }
        true
    }

    fn remember(&mut self, key: u64, f: impl FnOnce(&mut Proof)) {
        if self.table.len() >= TABLE_CAP && !self.table.contains_key(&key) {
            self.table.clear();
        }
        f(self.table.entry(key).or_default());
    }

    /// Extends a proven mate into a line: after `first`, the defender's reply
    /// that holds out longest, then the attacker's mating move, and so on.
    fn extend_pv(&mut self, pos: &Chess, first: Move, k: u8, pv: &mut Vec<Move>) {
        let mut p = pos.clone();
        p.play_unchecked(first);
        let mut left = k;
        while left > 1 {
            let replies = p.legal_moves();
            if replies.is_empty() {
                return;
            }
            // The reply after which the mate is longest.
            let mut chosen = None;
            'replies: for r in &replies {
                let mut c = p.clone();
                c.play_unchecked(*r);
                for j in 1..left {
                    let key = key_of(&c);
                    if let Some(m) = self.attack(&c, key, j) {
                        if chosen.as_ref().is_none_or(|(jj, _, _)| j > *jj) {
                            chosen = Some((j, *r, m));
                        }
                        continue 'replies;
                    }
                    if self.aborted {
                        return;
                    }
                }
            }
            let Some((j, r, m)) = chosen else { return };
            pv.push(r);
            pv.push(m);
            p.play_unchecked(r);
            p.play_unchecked(m);
            left = j;
        }
    }
}

fn key_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Attacking moves in search order; with one move left only checks can mate.
fn order_attacks(pos: &Chess, moves: MoveList, k: u8) -> Vec<Move> {
    let mut scored: Vec<(i32, Move)> = Vec::with_capacity(moves.len());
    for m in moves {
        let mut c = pos.clone();
        c.play_unchecked(m);
        let check = c.is_check();
        if k == 1 && !check {
            continue;
        }
        let replies = c.legal_moves().len() as i32;
        let s = if replies == 0 && check {
            -1000
        } else {
            replies * 4 - if check { 200 } else { 0 } - if m.is_capture() { 20 } else { 0 }
        };
        scored.push((s, m));
    }
    scored.sort_by_key(|&(s, _)| s);
    scored.into_iter().map(|(_, m)| m).collect()
}

/// Convenience: the shortest mate of at most `max_moves` in `pos`, unlimited effort.
pub fn find_mate(pos: &Chess, max_moves: u32) -> MateOutcome {
    MateSolver::new(Arc::default()).solve(pos, max_moves)
}
