//! Iterative-deepening principal-variation search with quiescence,
//! transposition table, check extensions, null-move pruning, late-move
//! reductions and TT-move / MVV-LVA / killer / history ordering.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, MoveList, Position};

use super::eval::{evaluate, has_non_pawn_material, value};
use super::time::{POLL_NODES, next_iteration_end};
use super::tt::{PackedMove, Tt, TtBound};
use crate::types::{Info, Score};

/// Score of a checkmate at the root.
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
/// Deepest ply searched.
pub const MAX_PLY: usize = 128;
const INF: i32 = 32_000;

/// Converts an internal score to a [`Score`].
pub fn to_score(s: i32) -> Score {
    if s >= MATE_BOUND {
        Score::Mate((MATE - s + 1) / 2)
    } else if s <= -MATE_BOUND {
        Score::Mate(-(MATE + s) / 2)
    } else {
        Score::Cp(s)
    }
}

/// Computes the zobrist key of a position.
pub fn hash_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Search bounds in engine terms.
#[derive(Debug, Clone, Default)]
pub struct SearchLimits {
    /// Maximum iteration depth.
    pub depth: Option<u32>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Hard deadline: abort the iteration.
    pub hard: Option<Instant>,
    /// Soft deadline: do not start another iteration after it.
    pub soft: Option<Instant>,
    /// Do not start an iteration predicted to end after this.
    pub finish: Option<Instant>,
}

/// Search state for one `go`.
pub struct Searcher<'a> {
    tt: &'a mut Tt,
    stop: &'a AtomicBool,
    limits: SearchLimits,
    start: Instant,
    /// Nodes visited.
    pub nodes: u64,
    seldepth: usize,
    stopped: bool,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Box<[[i32; 64]; 12]>,
    /// Hashes of the game so far and the current line (repetition check).
    keys: Vec<u64>,
    pv: Vec<Vec<Move>>,
    lmr: [[u8; 64]; 64],
}

fn piece_index(pos: &Chess, m: Move) -> usize {
    (m.role() as usize - 1) + if pos.turn().is_white() { 0 } else { 6 }
}

impl<'a> Searcher<'a> {
    /// A searcher over `tt`; `history_keys` are the hashes of the positions
    /// before the root (oldest first) for repetition detection.
    pub fn new(
        tt: &'a mut Tt,
        stop: &'a AtomicBool,
        limits: SearchLimits,
        history_keys: Vec<u64>,
    ) -> Self {
        let mut lmr = [[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (i as f64).ln() / 2.25) as u8;
            }
        }
        Searcher {
            tt,
            stop,
            limits,
            start: Instant::now(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[0; 64]; 12]),
            keys: history_keys,
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            lmr,
        }
    }

    /// Runs iterative deepening on `root`, calling `report` after each
    /// completed iteration. Returns the best move and the last info.
    pub fn run(&mut self, root: &Chess, report: &mut dyn FnMut(&Info)) -> (Option<Move>, Info) {
        self.tt.new_search();
        let legal = root.legal_moves();
        if legal.is_empty() {
            let score = if root.is_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            return (
                None,
                Info {
                    depth: Some(0),
                    score: Some(score),
                    nodes: Some(0),
                    ..Info::default()
                },
            );
        }
        let key = hash_of(root);
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 4)
            .clamp(1, MAX_PLY as u32 - 4) as i32;
        let mut best = Some(legal[0]);
        let mut last = Info {
            pv: vec![legal[0]],
            ..Info::default()
        };
        let mut score: i32 = 0;
        let mut last_iteration: Option<Duration> = None;
        for depth in 1..=max_depth {
            let iteration_start = Instant::now();
            self.seldepth = 0;
            // Aspiration window around the previous score.
            let (mut alpha, mut beta, mut delta) = if depth >= 5 && score.abs() < MATE_BOUND {
                (score - 30, score + 30, 30)
            } else {
                (-INF, INF, INF)
            };
            let s = loop {
                let s = self.search(root, key, depth, alpha, beta, 0, true);
                if self.stopped {
                    break s;
                }
                if s <= alpha {
                    alpha = (alpha - delta).max(-INF);
                    delta *= 2;
                } else if s >= beta {
                    beta = (beta + delta).min(INF);
                    delta *= 2;
                } else {
                    break s;
                }
                if delta > 1000 {
                    alpha = -INF;
                    beta = INF;
                }
            };
            let completed = !self.stopped;
            if !self.pv[0].is_empty()
                && (completed || self.pv[0].first() == best.as_ref() || depth > 1)
            {
                // A partial iteration's move is used only when it came out of
                // a full-width root search that improved on the old best.
                if completed {
                    best = self.pv[0].first().copied();
                    score = s;
                }
            }
            if !completed {
                break;
            }
            let elapsed = self.start.elapsed();
            last = Info {
                depth: Some(depth as u32),
                seldepth: Some(self.seldepth as u32),
                nodes: Some(self.nodes),
                nps: Some((self.nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64),
                time: Some(elapsed),
                score: Some(to_score(score)),
                pv: self.pv[0].clone(),
                ..Info::default()
            };
            report(&last);
            let now = Instant::now();
            if self.limits.soft.is_some_and(|t| now >= t) {
                break;
            }
            // An iteration predicted to end after the finish deadline may
            // well be cut off by the hard one and thrown away: do not start it.
            let took = now - iteration_start;
            if self
                .limits
                .finish
                .is_some_and(|t| next_iteration_end(now, took, last_iteration) > t)
            {
                break;
            }
            last_iteration = Some(took);
            // A mate found and proven at this depth will not get shorter.
            if score.abs() >= MATE_BOUND && (MATE - score.abs()) < depth {
                break;
            }
        }
        let elapsed = self.start.elapsed();
        last.nodes = Some(self.nodes);
        last.time = Some(elapsed);
        last.nps = Some((self.nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64);
        if last.pv.first() != best.as_ref() {
            last.pv = best.into_iter().collect();
        }
        (best, last)
    }

    fn check_limits(&mut self) {
        if self.stop.load(Ordering::Relaxed)
            || self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || self.limits.hard.is_some_and(|t| Instant::now() >= t)
        {
            self.stopped = true;
        }
    }

    fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
        let n = self.keys.len();
        let lookback = (halfmoves as usize).min(n);
        // keys[n-1] is the parent; same side to move is two plies back.
        let mut i = 2;
        while i <= lookback {
            if self.keys[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    fn order(
        &self,
        pos: &Chess,
        moves: &MoveList,
        tt_move: PackedMove,
        ply: usize,
    ) -> Vec<(i32, Move)> {
        moves
            .iter()
            .map(|&m| {
                let s = if tt_move.matches(m) {
                    2_000_000
                } else if let Some(victim) = m.capture() {
                    1_000_000 + 10 * value(victim) - value(m.role()) / 10
                } else if m.promotion() == Some(shakmaty::Role::Queen) {
                    950_000
                } else if self.killers[ply][0] == Some(m) {
                    900_000
                } else if self.killers[ply][1] == Some(m) {
                    800_000
                } else {
                    self.history[piece_index(pos, m)][m.to() as usize]
                };
                (s, m)
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Chess,
        key: u64,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_NODES) {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        if !root {
            if pos.halfmoves() >= 100
                || self.is_repetition(key, pos.halfmoves())
                || pos.is_insufficient_material()
            {
                return 0;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 2 {
            return evaluate(pos);
        }
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        self.seldepth = self.seldepth.max(ply);

        let hit = self.tt.probe(key);
        let mut tt_move = PackedMove::default();
        if let Some(h) = hit {
            tt_move = h.mv;
            if !pv_node && h.depth >= depth {
                let s = from_tt(h.score, ply);
                match h.bound {
                    TtBound::Exact => return s,
                    TtBound::Lower if s >= beta => return s,
                    TtBound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let static_eval = if in_check {
            -INF
        } else {
            hit.map_or_else(|| evaluate(pos), |h| h.eval)
        };

        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility pruning.
            if depth <= 4 && static_eval - 90 * depth >= beta {
                return static_eval;
            }
            // Null move.
            if null_ok && depth >= 3 && static_eval >= beta && has_non_pawn_material(pos) {
                let r = 3 + depth / 5;
                if let Ok(null) = pos.clone().swap_turn() {
                    let nkey = hash_of(&null);
                    self.keys.push(key);
                    let s =
                        -self.search(&null, nkey, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                    self.keys.pop();
                    if self.stopped {
                        return 0;
                    }
                    if s >= beta {
                        return if s >= MATE_BOUND { beta } else { s };
                    }
                }
            }
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let mut scored = self.order(pos, &moves, tt_move, ply);
        let mut best = -INF;
        let mut best_move = None;
        let original_alpha = alpha;
        let futile = !pv_node && !in_check && depth <= 2 && static_eval + 150 * depth <= alpha;
        for i in 0..scored.len() {
            // Selection sort step.
            let mut bi = i;
            for j in i + 1..scored.len() {
                if scored[j].0 > scored[bi].0 {
                    bi = j;
                }
            }
            scored.swap(i, bi);
            let m = scored[i].1;
            let quiet = !m.is_capture() && !m.is_promotion();

            let ckey =
                pos.update_zobrist_hash::<Zobrist64>(Zobrist64(key), m, EnPassantMode::Legal);
            let mut child = pos.clone();
            child.play_unchecked(m);
            let ckey = ckey.map_or_else(|| hash_of(&child), |z| z.0);
            let gives_check = child.is_check();

            if futile && quiet && !gives_check && i > 0 && best > -MATE_BOUND {
                continue;
            }
            // Late move pruning of quiet moves at shallow depth.
            if !pv_node
                && !in_check
                && quiet
                && !gives_check
                && depth <= 3
                && i >= 4 + 4 * depth as usize
                && best > -MATE_BOUND
            {
                continue;
            }

            self.keys.push(key);
            let mut s;
            if i == 0 {
                s = -self.search(&child, ckey, depth - 1, -beta, -alpha, ply + 1, true);
            } else {
                let mut r = 0;
                if depth >= 3 && quiet && !in_check && !gives_check && i >= 2 {
                    r = i32::from(self.lmr[depth.min(63) as usize][i.min(63)]);
                    if pv_node {
                        r -= 1;
                    }
                    if self.killers[ply].contains(&Some(m)) {
                        r -= 1;
                    }
                    r = r.clamp(0, depth - 2);
                }
                s = -self.search(
                    &child,
                    ckey,
                    depth - 1 - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    true,
                );
                if s > alpha && r > 0 {
                    s = -self.search(&child, ckey, depth - 1, -alpha - 1, -alpha, ply + 1, true);
                }
                if s > alpha && s < beta {
                    s = -self.search(&child, ckey, depth - 1, -beta, -alpha, ply + 1, true);
                }
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                best_move = Some(m);
                if s > alpha {
                    alpha = s;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                    if s >= beta {
                        if quiet {
                            if self.killers[ply][0] != Some(m) {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = Some(m);
                            }
                            let h = &mut self.history[piece_index(pos, m)][m.to() as usize];
                            *h = (*h + depth * depth).min(700_000);
                        }
                        break;
                    }
                }
            }
        }
        if best == -INF {
            // Everything was pruned: fall back to the static evaluation.
            return alpha;
        }
        let bound = if best >= beta {
            TtBound::Lower
        } else if best > original_alpha {
            TtBound::Exact
        } else {
            TtBound::Upper
        };
        let ev = if in_check { 0 } else { static_eval };
        self.tt
            .store(key, best_move, to_tt(best, ply), ev, depth, bound);
        best
    }

    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_NODES) {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 2 {
            return evaluate(pos);
        }
        let in_check = pos.is_check();
        let mut best = -INF;
        let moves = if in_check {
            let all = pos.legal_moves();
            if all.is_empty() {
                return -MATE + ply as i32;
            }
            all
        } else {
            let stand = evaluate(pos);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            let mut ms = pos.capture_moves();
            for m in pos.promotion_moves() {
                if !m.is_capture() {
                    ms.push(m);
                }
            }
            ms.retain(|m| {
                // Delta pruning.
                let gain =
                    m.capture().map_or(0, value) + m.promotion().map_or(0, |r| value(r) - 100);
                stand + gain + 200 > alpha
            });
            ms
        };
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                (
                    m.capture().map_or(0, |v| 10 * value(v)) - value(m.role()) / 10
                        + m.promotion().map_or(0, value),
                    m,
                )
            })
            .collect();
        scored.sort_unstable_by_key(|s| std::cmp::Reverse(s.0));
        for (_, m) in scored {
            if !in_check
                && let Some(victim) = m.capture()
                && value(m.role()) > value(victim) + 50
                && defended_by_pawn(pos, m.to())
            {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let s = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

fn defended_by_pawn(pos: &Chess, sq: shakmaty::Square) -> bool {
    let them = !pos.turn();
    let pawns = pos.board().pawns() & pos.board().by_color(them);
    shakmaty::attacks::pawn_attacks(pos.turn(), sq).intersects(pawns)
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
