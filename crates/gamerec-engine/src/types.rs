//! Engine-independent search vocabulary: limits, scores, info lines, results.

use std::fmt;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use shakmaty::Move;

/// The furthest mate (in moves) an EPD `ce` value tells apart from
/// centipawns: `32767 - (2 × 383 - 1)` = 32002.
const MAX_CE_MATE: i32 = 383;

/// A search score from the point of view of the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Forced mate: `n > 0` the side to move mates in `n` moves, `n < 0`
    /// it is mated in `-n` moves, `0` it is checkmated now.
    Mate(i32),
}

impl Score {
    /// The EPD `ce` value (spec 6.7): centipawns clamped to ±32000, mates
    /// encoded as `32767 - plies` / `-32767 + plies`. A mate further than
    /// the encoding reaches (383 moves; engines print any number) is
    /// written as the furthest it can say.
    pub fn to_ce(self) -> i32 {
        match self {
            Score::Cp(cp) => cp.clamp(-32000, 32000),
            Score::Mate(n) if n > 0 => 32767 - (2 * n.min(MAX_CE_MATE) - 1),
            Score::Mate(n) => -32767 + 2 * -(n.max(-MAX_CE_MATE)),
        }
    }

    /// Inverse of [`Score::to_ce`].
    pub fn from_ce(ce: i32) -> Score {
        if ce > 32000 {
            Score::Mate((32767 - ce + 1) / 2)
        } else if ce < -32000 {
            Score::Mate(-((ce + 32767) / 2))
        } else {
            Score::Cp(ce)
        }
    }

    /// A total order key: mates beyond every centipawn value, shorter mates better.
    pub fn order_key(self) -> i64 {
        match self {
            Score::Cp(cp) => i64::from(cp),
            Score::Mate(n) if n > 0 => 1_000_000 - i64::from(n),
            Score::Mate(n) => -1_000_000 - i64::from(n),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// Whether a reported score is exact or only a bound (fail high/low).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bound {
    /// The true score.
    #[default]
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

/// One progress report of a search (a UCI `info` line, an XBoard thinking line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// Nominal depth in plies.
    pub depth: Option<u32>,
    /// Selective depth in plies.
    pub seldepth: Option<u32>,
    /// Nodes searched so far.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Time searched so far.
    pub time: Option<Duration>,
    /// Evaluation, side to move's view.
    pub score: Option<Score>,
    /// Whether `score` is exact or a bound.
    pub bound: Bound,
    /// Principal variation, legal from the searched position.
    pub pv: Vec<Move>,
    /// MultiPV index (1 = best line).
    pub multipv: Option<u32>,
    /// Free text (`info string`, XBoard debug output).
    pub string: Option<String>,
}

impl Info {
    /// Whether this line carries a scored principal variation for line 1.
    pub fn is_main_line(&self) -> bool {
        self.score.is_some() && self.multipv.unwrap_or(1) == 1
    }
}

/// Chess clock state for a clock-based search (UCI `wtime`…, XBoard `level`/`time`/`otim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// White's remaining time.
    pub white: Duration,
    /// Black's remaining time.
    pub black: Duration,
    /// White's increment per move.
    pub white_inc: Duration,
    /// Black's increment per move.
    pub black_inc: Duration,
    /// Moves until the next time control (`None`: sudden death).
    pub moves_to_go: Option<u32>,
}

/// What bounds a search. Unset fields are unlimited; an all-unset value
/// searches until [`StopHandle::stop`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Exact time to search.
    pub movetime: Option<Duration>,
    /// Clock-based time control; the engine allocates its own time.
    pub clock: Option<Clock>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
}

impl Limits {
    /// Depth-limited search.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Node-limited search.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Fixed time per move.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }

    /// The most wall-clock time this search should take, when it is bounded
    /// by time at all (movetime, or a share of the clock), used for deadlines.
    pub fn time_budget(&self, white_to_move: bool) -> Option<Duration> {
        if let Some(t) = self.movetime {
            return Some(t);
        }
        self.clock
            .map(|c| if white_to_move { c.white } else { c.black })
    }
}

/// The outcome of one search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The chosen move; `None` when the side to move has no legal move.
    pub best_move: Option<Move>,
    /// The expected reply, if the engine said.
    pub ponder: Option<Move>,
    /// The last main-line info (score, pv, depth), merged with the last counters.
    pub info: Info,
    /// Wall-clock time the search took, measured by the driver (UCI and
    /// XBoard: from writing `go` to reading the best move).
    pub elapsed: Duration,
}

/// Stops a running search from another thread. Cheap to clone.
#[derive(Clone, Default)]
pub struct StopHandle {
    flag: Arc<AtomicBool>,
    hook: Option<Arc<Mutex<dyn FnMut() + Send>>>,
}

impl fmt::Debug for StopHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StopHandle")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

impl StopHandle {
    /// A handle that only sets a flag.
    pub fn new() -> StopHandle {
        StopHandle::default()
    }

    /// A handle that also runs `hook` (for example writes `stop` to a child).
    pub fn with_hook(hook: impl FnMut() + Send + 'static) -> StopHandle {
        StopHandle {
            flag: Arc::default(),
            hook: Some(Arc::new(Mutex::new(hook))),
        }
    }

    /// Asks the current search to finish now and report its best move.
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Some(hook) = &self.hook
            && let Ok(mut hook) = hook.lock()
        {
            hook();
        }
    }

    /// Whether [`StopHandle::stop`] was called since the last [`StopHandle::reset`].
    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// Clears the flag (drivers call this when a search starts).
    pub fn reset(&self) {
        self.flag.store(false, Ordering::SeqCst);
    }

    /// The shared flag, for engines that poll it.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }
}

const PONDER_IDLE: u8 = 0;
const PONDER_ARMED: u8 = 1;
const PONDER_RUNNING: u8 = 2;
const PONDER_HIT: u8 = 3;

/// Pondering for engines that can (UCI): [`PonderHandle::arm`] makes the
/// next `go` a `go ponder` (searching the position after the expected
/// reply, with no time limit); [`PonderHandle::hit`] from another thread
/// says the reply came (`ponderhit`: the search goes on as an ordinary one
/// with the limits it was given); the [`StopHandle`] ends it otherwise.
#[derive(Clone)]
pub struct PonderHandle {
    state: Arc<std::sync::atomic::AtomicU8>,
    hook: Arc<Mutex<dyn FnMut() + Send>>,
}

impl fmt::Debug for PonderHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PonderHandle")
            .field("state", &self.state.load(Ordering::Relaxed))
            .finish()
    }
}

impl PonderHandle {
    /// A handle whose `hit` runs `hook` (writes `ponderhit` to the child).
    pub fn with_hook(hook: impl FnMut() + Send + 'static) -> PonderHandle {
        PonderHandle {
            state: Arc::default(),
            hook: Arc::new(Mutex::new(hook)),
        }
    }

    /// Makes the next search a ponder search.
    pub fn arm(&self) {
        self.state.store(PONDER_ARMED, Ordering::SeqCst);
    }

    /// The expected reply was played: the ponder search becomes the real one.
    pub fn hit(&self) {
        if self
            .state
            .compare_exchange(
                PONDER_RUNNING,
                PONDER_HIT,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            if let Ok(mut hook) = self.hook.lock() {
                hook();
            }
        } else {
            // Not started yet: the driver sees the hit and searches normally.
            let _ = self.state.compare_exchange(
                PONDER_ARMED,
                PONDER_HIT,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
        }
    }

    /// Driver side, before sending `go`: whether this search ponders.
    pub fn starts_pondering(&self) -> bool {
        self.state.load(Ordering::SeqCst) == PONDER_ARMED
    }

    /// Driver side, after sending `go ponder`: `false` when the hit came
    /// in between (the driver then sends `ponderhit` itself).
    pub fn now_pondering(&self) -> bool {
        self.state
            .compare_exchange(
                PONDER_ARMED,
                PONDER_RUNNING,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    /// Driver side: whether the hit has come.
    pub fn was_hit(&self) -> bool {
        self.state.load(Ordering::SeqCst) == PONDER_HIT
    }

    /// Driver side, when a search ends.
    pub fn finish(&self) {
        self.state.store(PONDER_IDLE, Ordering::SeqCst);
    }
}

/// Why an engine operation failed.
#[derive(Debug)]
pub enum EngineError {
    /// The program could not be started.
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// Reading from or writing to the engine failed.
    Io(std::io::Error),
    /// The engine exited (crashed) while we waited for it.
    Died { status: String, stderr: String },
    /// The engine did not answer in time and was killed.
    Timeout { waiting_for: String, stderr: String },
    /// The engine said something we cannot use.
    Protocol(String),
    /// The engine's best move is not legal in the position searched.
    IllegalMove {
        /// The move as the engine wrote it.
        mv: String,
        /// The engine's name.
        engine: String,
    },
    /// The caller asked for something invalid (unknown option…).
    Usage(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tail = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!("; stderr: {s}")
            }
        };
        match self {
            EngineError::Spawn { command, source } => {
                write!(f, "cannot start `{command}`: {source}")
            }
            EngineError::Io(e) => write!(f, "engine I/O: {e}"),
            EngineError::Died { status, stderr } => {
                write!(f, "engine died ({status}){}", tail(stderr))
            }
            EngineError::Timeout {
                waiting_for,
                stderr,
            } => {
                write!(
                    f,
                    "engine timed out waiting for {waiting_for} and was killed{}",
                    tail(stderr)
                )
            }
            EngineError::Protocol(m) => write!(f, "engine protocol error: {m}"),
            EngineError::IllegalMove { mv, engine } => {
                write!(
                    f,
                    "engine protocol error: illegal best move `{mv}` from {engine}"
                )
            }
            EngineError::Usage(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EngineError::Spawn { source, .. } => Some(source),
            EngineError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for EngineError {
    fn from(e: std::io::Error) -> Self {
        EngineError::Io(e)
    }
}

/// Result alias for engine operations.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ce_encoding_follows_epd_6_7() {
        assert_eq!(Score::Mate(1).to_ce(), 32766);
        assert_eq!(Score::Mate(5).to_ce(), 32758);
        assert_eq!(Score::Mate(-1).to_ce(), -32765);
        assert_eq!(Score::Mate(-5).to_ce(), -32757);
        assert_eq!(Score::Mate(0).to_ce(), -32767);
        assert_eq!(Score::Cp(99999).to_ce(), 32000);
        for s in [
            Score::Mate(1),
            Score::Mate(7),
            Score::Mate(-3),
            Score::Mate(0),
            Score::Cp(-45),
        ] {
            assert_eq!(Score::from_ce(s.to_ce()), s);
        }
    }

    /// Seen while writing the `engine_lines` fuzz target, confirmed through
    /// it: `info score mate 2147483647` (or `-2147483648`) overflowed in
    /// `to_ce`, a panic when the analysis verbs wrote `ce`.
    #[test]
    fn ce_of_any_mate_is_a_mate_ce() {
        for n in [i32::MAX, 384, 383, -383, -384, i32::MIN] {
            let ce = Score::Mate(n).to_ce();
            assert!(ce.abs() > 32000, "{n}: {ce}");
            assert_eq!(Score::from_ce(ce), Score::Mate(n.clamp(-383, 383)), "{n}");
        }
    }

    #[test]
    fn stop_handle_runs_hook() {
        let hits = Arc::new(Mutex::new(0));
        let h2 = hits.clone();
        let stop = StopHandle::with_hook(move || *h2.lock().unwrap() += 1);
        let clone = stop.clone();
        clone.stop();
        assert!(stop.is_stopped());
        assert_eq!(*hits.lock().unwrap(), 1);
        stop.reset();
        assert!(!clone.is_stopped());
    }
}
