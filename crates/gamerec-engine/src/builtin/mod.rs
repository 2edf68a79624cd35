//! The built-in engine: every verb works with nothing installed.
//!
//! Single-threaded alpha-beta ([`search`]) over shakmaty's move generator
//! with a small hand-written evaluation ([`eval`]). Searches run on the
//! caller's thread; [`crate::StopHandle`] aborts them. With
//! [`Limits::mate`] the exact [`crate::mate`] solver runs instead.

pub mod eval;
pub mod search;
pub mod time;
pub mod tt;

use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};

use crate::Engine;
use crate::mate::{MateOutcome, MateSolver};
use crate::types::{EngineError, Info, Limits, Result, Score, SearchResult, StopHandle};
use search::{SearchLimits, Searcher, hash_of};
use time::Deadlines;
use tt::Tt;

/// Longest mate the quick probe before each search looks for.
pub const MATE_PROBE_MOVES: u32 = 3;
/// Node budget of that probe.
pub const MATE_PROBE_NODES: u64 = 200_000;

/// Default transposition table size in megabytes.
pub const DEFAULT_HASH_MB: usize = 64;

/// The built-in engine.
pub struct BuiltinEngine {
    tt: Tt,
    start: Chess,
    moves: Vec<Move>,
    stop: StopHandle,
}

impl Default for BuiltinEngine {
    fn default() -> Self {
        BuiltinEngine::new()
    }
}

impl BuiltinEngine {
    /// A new engine with the default hash size.
    pub fn new() -> BuiltinEngine {
        BuiltinEngine::with_hash(DEFAULT_HASH_MB)
    }

    /// A new engine with a `mb`-megabyte hash table.
    pub fn with_hash(mb: usize) -> BuiltinEngine {
        BuiltinEngine {
            tt: Tt::new(mb),
            start: Chess::default(),
            moves: Vec::new(),
            stop: StopHandle::new(),
        }
    }
}

impl BuiltinEngine {
    /// Looks for a forced mate in up to [`MATE_PROBE_MOVES`] moves with a
    /// small budget (a tenth of the time, at most [`MATE_PROBE_NODES`]).
    fn mate_probe(
        &self,
        pos: &Chess,
        started: Instant,
        hard: Option<Instant>,
        limits: &Limits,
    ) -> Option<SearchResult> {
        if limits.depth.is_some_and(|d| d < 2 * MATE_PROBE_MOVES) {
            return None;
        }
        let mut solver = MateSolver::new(self.stop.flag().clone());
        let node_cap = limits
            .nodes
            .map_or(MATE_PROBE_NODES, |n| (n / 10).min(MATE_PROBE_NODES));
        solver.node_limit = Some(node_cap);
        solver.deadline = hard.map(|h| started + (h - started) / 10);
        match solver.solve(pos, MATE_PROBE_MOVES) {
            MateOutcome::Mate { moves, pv } => {
                let elapsed = started.elapsed();
                let info = Info {
                    depth: Some(2 * moves - 1),
                    seldepth: Some(2 * moves - 1),
                    nodes: Some(solver.nodes),
                    time: Some(elapsed),
                    score: Some(Score::Mate(moves as i32)),
                    pv: pv.clone(),
                    ..Info::default()
                };
                Some(SearchResult {
                    best_move: pv.first().copied(),
                    ponder: pv.get(1).copied(),
                    info,
                    elapsed,
                })
            }
            _ => None,
        }
    }
}

impl Engine for BuiltinEngine {
    fn name(&self) -> &str {
        concat!("gamerec builtin ", env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self) -> Result<()> {
        self.tt.clear();
        Ok(())
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<()> {
        match name {
            "Hash" => {
                let mb: usize = value
                    .parse()
                    .ok()
                    .filter(|&v| (1..=65536).contains(&v))
                    .ok_or_else(|| {
                        EngineError::Usage(format!("Hash must be 1..65536 MB, not `{value}`"))
                    })?;
                self.tt = Tt::new(mb);
                Ok(())
            }
            "Threads" | "MultiPV" if value == "1" => Ok(()),
            _ => Err(EngineError::Usage(format!(
                "the builtin engine has no option `{name}` = `{value}`"
            ))),
        }
    }

    fn set_position(&mut self, start: &Chess, moves: &[Move]) -> Result<()> {
        crate::notation::play_line(start, moves).map_err(EngineError::Usage)?;
        self.start = start.clone();
        self.moves = moves.to_vec();
        Ok(())
    }

    fn go(&mut self, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> Result<SearchResult> {
        let started = Instant::now();
        self.stop.reset();
        let mut keys = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start.clone();
        for &m in &self.moves {
            keys.push(hash_of(&pos));
            pos.play_unchecked(m);
        }
        let deadlines = match (limits.movetime, limits.clock) {
            (Some(t), _) => Deadlines::movetime(started, t),
            (None, Some(c)) => {
                let (remaining, increment) = if pos.turn().is_white() {
                    (c.white, c.white_inc)
                } else {
                    (c.black, c.black_inc)
                };
                Deadlines::clock(started, remaining, increment, c.moves_to_go)
            }
            (None, None) => Deadlines::NONE,
        };
        let Deadlines { soft, finish, hard } = deadlines;
        if let Some(n) = limits.mate {
            let mut solver = MateSolver::new(self.stop.flag().clone());
            solver.node_limit = limits.nodes;
            solver.deadline = hard;
            let outcome = solver.solve(&pos, n);
            let elapsed = started.elapsed();
            let mut info = Info {
                nodes: Some(solver.nodes),
                time: Some(elapsed),
                ..Info::default()
            };
            let best = match outcome {
                MateOutcome::Mate { moves, pv } => {
                    info.score = Some(Score::Mate(moves as i32));
                    info.depth = Some(2 * moves - 1);
                    info.pv = pv;
                    info.pv.first().copied()
                }
                MateOutcome::NoMate | MateOutcome::Aborted => None,
            };
            on_info(&info);
            let best = best.or_else(|| pos.legal_moves().first().copied());
            return Ok(SearchResult {
                best_move: best,
                ponder: info.pv.get(1).copied(),
                info,
                elapsed,
            });
        }
        // A short exact mate probe first: alpha-beta with pruning can miss a
        // quiet mating move for a while; the solver cannot.
        if let Some(found) = self.mate_probe(&pos, started, hard, limits) {
            on_info(&found.info);
            return Ok(found);
        }
        // A forced move under a clock is played at once.
        let forced = limits.clock.is_some() && pos.legal_moves().len() == 1;
        let depth = if forced { Some(1) } else { limits.depth };
        let sl = SearchLimits {
            depth,
            nodes: limits.nodes,
            hard,
            soft,
            finish,
        };
        let flag = self.stop.flag().clone();
        let mut searcher = Searcher::new(&mut self.tt, &flag, sl, keys);
        let (best, info) = searcher.run(&pos, on_info);
        let elapsed = started.elapsed();
        Ok(SearchResult {
            best_move: best,
            ponder: info.pv.get(1).copied(),
            info,
            elapsed,
        })
    }

    fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    fn quit(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A movetime-limited search of `pos` with a fresh builtin engine (convenience).
pub fn best_move(pos: &Chess, time: Duration) -> Option<Move> {
    let mut e = BuiltinEngine::with_hash(16);
    e.set_position(pos, &[]).ok()?;
    e.go(&Limits::movetime(time), &mut |_| {}).ok()?.best_move
}
