//! The engine seam of the bridge: something that picks a move under clock
//! limits. `builtin`, `uci:CMD` and `xboard:CMD` are provided here.
//!
//! TO BE REPLACED by the drivers and built-in engine of `gamerec-engine`
//! (issue #7) once they land on main; the bridge only uses [`Engine`].

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};

/// Clock limits for one search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// White's time left.
    pub white: Option<Duration>,
    /// Black's time left.
    pub black: Option<Duration>,
    /// Increment per move.
    pub increment: Duration,
    /// Moves to the next time control, if known.
    pub moves_to_go: Option<u32>,
}

impl Limits {
    /// A time budget for the side to move: a slice of its clock.
    pub fn budget(&self, turn: Color) -> Option<Duration> {
        let left = match turn {
            Color::White => self.white?,
            Color::Black => self.black?,
        };
        let moves = self.moves_to_go.unwrap_or(30).clamp(1, 40) + 2;
        let slice = left / moves + self.increment * 3 / 4;
        Some(slice.min(left / 2))
    }
}

/// A chess engine as the bridge sees it.
pub trait Engine: Send {
    /// Prepares for a new game.
    fn new_game(&mut self) -> io::Result<()>;
    /// Picks a move in the position reached from `start` by `moves`, or
    /// `None` to resign.
    fn go(&mut self, start: &Chess, moves: &[Move], limits: &Limits) -> io::Result<Option<Move>>;
}

/// Builds an engine from `builtin`, `builtin:DEPTH`, `uci:CMD` or `xboard:CMD`.
pub fn from_spec(spec: &str, depth: Option<u32>) -> io::Result<Box<dyn Engine>> {
    if spec == "builtin" || spec.starts_with("builtin:") {
        let d = spec
            .strip_prefix("builtin:")
            .and_then(|d| d.parse().ok())
            .or(depth)
            .unwrap_or(3)
            .clamp(1, 8);
        return Ok(Box::new(Builtin::new(d)));
    }
    if let Some(rest) = spec.strip_prefix("uci:") {
        // `uci:COMMAND|Name=Value|...` sets UCI options after the handshake.
        let mut parts = rest.split('|');
        let mut uci = Uci::start(parts.next().unwrap_or(""))?;
        for option in parts {
            let (name, value) = option.split_once('=').unwrap_or((option, ""));
            uci.set_option(name.trim(), value.trim())?;
        }
        return Ok(Box::new(uci));
    }
    if let Some(cmd) = spec.strip_prefix("xboard:") {
        return Ok(Box::new(Xboard::start(cmd)?));
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("unknown engine '{spec}': expected builtin, uci:CMD or xboard:CMD"),
    ))
}

/// A small alpha-beta searcher on material and piece-square bonuses.
#[derive(Debug, Clone)]
pub struct Builtin {
    depth: u32,
    nodes: u64,
    deadline: Option<Instant>,
}

const INF: i32 = 1_000_000;
const MATE: i32 = 100_000;

impl Builtin {
    /// A searcher to `depth` plies.
    pub fn new(depth: u32) -> Builtin {
        Builtin {
            depth,
            nodes: 0,
            deadline: None,
        }
    }

    fn evaluate(pos: &Chess) -> i32 {
        let board = pos.board();
        let mut score = 0;
        for (sq, piece) in board {
            let value = match piece.role {
                Role::Pawn => 100,
                Role::Knight => 320,
                Role::Bishop => 330,
                Role::Rook => 500,
                Role::Queen => 900,
                Role::King => 0,
            };
            let file = i32::from(u8::from(sq.file()));
            let rank = i32::from(u8::from(sq.rank()));
            let centre = 6 - ((2 * file - 7).abs() + (2 * rank - 7).abs()) / 2;
            let advance = if piece.role == Role::Pawn {
                if piece.color.is_white() {
                    rank
                } else {
                    7 - rank
                }
            } else {
                0
            };
            let bonus = match piece.role {
                Role::King | Role::Rook => 0,
                _ => centre * 3,
            } + advance * 4;
            let s = value + bonus;
            score += if piece.color == pos.turn() { s } else { -s };
        }
        score
    }

    fn out_of_time(&self) -> bool {
        self.nodes.is_multiple_of(1024) && self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn search(&mut self, pos: &Chess, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + ply } else { 0 };
        }
        if depth == 0 || self.out_of_time() {
            return Builtin::evaluate(pos);
        }
        let mut ordered: Vec<Move> = moves.into_iter().collect();
        ordered.sort_by_key(|m| {
            std::cmp::Reverse(
                m.capture().map_or(0, |r| r as i32 * 10) + i32::from(m.is_promotion()) * 50,
            )
        });
        for m in ordered {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = -self.search(&next, depth - 1, -beta, -alpha, ply + 1);
            if score >= beta {
                return beta;
            }
            alpha = alpha.max(score);
        }
        alpha
    }

    /// The best move at full depth (or the last completed depth in time).
    pub fn best_move(&mut self, pos: &Chess, budget: Option<Duration>) -> Option<Move> {
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let mut best = *moves.first()?;
        self.deadline = budget.map(|b| Instant::now() + b);
        self.nodes = 0;
        for depth in 1..=self.depth {
            let mut alpha = -INF;
            let mut best_here = best;
            // Search the previous best first.
            let mut order = moves.clone();
            if let Some(i) = order.iter().position(|m| *m == best) {
                order.swap(0, i);
            }
            for m in order {
                let mut next = pos.clone();
                next.play_unchecked(m);
                let score = -self.search(&next, depth - 1, -INF, -alpha, 1);
                if score > alpha {
                    alpha = score;
                    best_here = m;
                }
            }
            if depth > 1 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            best = best_here;
        }
        Some(best)
    }
}

impl Engine for Builtin {
    fn new_game(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn go(&mut self, start: &Chess, moves: &[Move], limits: &Limits) -> io::Result<Option<Move>> {
        let mut pos = start.clone();
        for m in moves {
            pos.play_unchecked(*m);
        }
        let budget = limits.budget(pos.turn());
        Ok(self.best_move(&pos, budget))
    }
}

/// A child process speaking a line protocol, read on its own thread.
struct Child2 {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Child2 {
    fn start(command: &str) -> io::Result<Child2> {
        let mut words = command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty engine command"))?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Child2 {
            child,
            stdin,
            lines: rx,
        })
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()
    }

    /// Reads lines until `want` accepts one (returning its value) or `limit` passes.
    fn wait_for<T>(
        &mut self,
        limit: Duration,
        mut want: impl FnMut(&str) -> Option<T>,
    ) -> io::Result<T> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(v) = want(line.trim()) {
                        return Ok(v);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "engine did not answer",
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "engine exited",
                    ));
                }
            }
        }
    }
}

impl Drop for Child2 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A UCI engine.
pub struct Uci {
    proc: Child2,
}

impl Uci {
    /// Starts `command` and completes the `uci` handshake.
    pub fn start(command: &str) -> io::Result<Uci> {
        let mut proc = Child2::start(command)?;
        proc.send("uci")?;
        proc.wait_for(Duration::from_secs(10), |l| (l == "uciok").then_some(()))?;
        Ok(Uci { proc })
    }

    /// Sends a `setoption` line.
    pub fn set_option(&mut self, name: &str, value: &str) -> io::Result<()> {
        self.proc
            .send(&format!("setoption name {name} value {value}"))
    }
}

fn ms(d: Option<Duration>) -> u128 {
    d.map_or(60_000, |d| d.as_millis())
}

impl Engine for Uci {
    fn new_game(&mut self) -> io::Result<()> {
        self.proc.send("ucinewgame")?;
        self.proc.send("isready")?;
        self.proc
            .wait_for(Duration::from_secs(10), |l| (l == "readyok").then_some(()))
    }

    fn go(&mut self, start: &Chess, moves: &[Move], limits: &Limits) -> io::Result<Option<Move>> {
        let fen = Fen::from_position(start, EnPassantMode::Legal);
        let mut line = format!("position fen {fen}");
        let mut pos = start.clone();
        if !moves.is_empty() {
            line.push_str(" moves");
            for m in moves {
                line.push(' ');
                line.push_str(&m.to_uci(CastlingMode::Standard).to_string());
                pos.play_unchecked(*m);
            }
        }
        self.proc.send(&line)?;
        let mut go = format!(
            "go wtime {} btime {} winc {} binc {}",
            ms(limits.white),
            ms(limits.black),
            limits.increment.as_millis(),
            limits.increment.as_millis()
        );
        if let Some(n) = limits.moves_to_go {
            go.push_str(&format!(" movestogo {n}"));
        }
        self.proc.send(&go)?;
        let limit = limits.budget(pos.turn()).unwrap_or(Duration::from_secs(60)) * 4
            + Duration::from_secs(5);
        let best = self.proc.wait_for(limit, |l| {
            l.strip_prefix("bestmove")
                .map(|rest| rest.split_whitespace().next().unwrap_or("").to_owned())
        })?;
        Ok(UciMove::from_ascii(best.as_bytes())
            .ok()
            .and_then(|u| u.to_move(&pos).ok()))
    }
}

/// An XBoard (CECP) engine, driven in force mode.
pub struct Xboard {
    proc: Child2,
}

impl Xboard {
    /// Starts `command` and completes the `protover 2` handshake.
    pub fn start(command: &str) -> io::Result<Xboard> {
        let mut proc = Child2::start(command)?;
        proc.send("xboard")?;
        proc.send("protover 2")?;
        // Version 1 engines never send done=1: carry on after a short wait.
        let _ = proc.wait_for(Duration::from_secs(2), |l| {
            (l.starts_with("feature") && l.contains("done=1")).then_some(())
        });
        Ok(Xboard { proc })
    }
}

impl Engine for Xboard {
    fn new_game(&mut self) -> io::Result<()> {
        self.proc.send("new")?;
        self.proc.send("force")
    }

    fn go(&mut self, start: &Chess, moves: &[Move], limits: &Limits) -> io::Result<Option<Move>> {
        // Replay the whole game each time: simple and robust to restarts.
        self.proc.send("new")?;
        self.proc.send("force")?;
        if *start != Chess::default() {
            let fen = Fen::from_position(start, EnPassantMode::Legal);
            self.proc.send(&format!("setboard {fen}"))?;
        }
        let mut pos = start.clone();
        for m in moves {
            self.proc
                .send(&m.to_uci(CastlingMode::Standard).to_string())?;
            pos.play_unchecked(*m);
        }
        let cs = |d: Option<Duration>| d.map_or(6000, |d| d.as_millis() / 10);
        let (mine, theirs) = match pos.turn() {
            Color::White => (limits.white, limits.black),
            Color::Black => (limits.black, limits.white),
        };
        let secs = mine.map_or(60, |d| d.as_secs().max(1));
        self.proc.send(&format!(
            "level {} {}:{:02} {}",
            limits.moves_to_go.unwrap_or(0),
            secs / 60,
            secs % 60,
            limits.increment.as_secs()
        ))?;
        self.proc.send(&format!("time {}", cs(mine)))?;
        self.proc.send(&format!("otim {}", cs(theirs)))?;
        self.proc.send("go")?;
        let limit = limits.budget(pos.turn()).unwrap_or(Duration::from_secs(60)) * 4
            + Duration::from_secs(5);
        let reply = self.proc.wait_for(limit, |l| {
            if let Some(m) = l.strip_prefix("move ") {
                return Some(Some(m.trim().to_owned()));
            }
            if l.starts_with("resign") || l.contains("{resign") {
                return Some(None);
            }
            None
        })?;
        self.proc.send("force")?;
        let Some(text) = reply else {
            return Ok(None);
        };
        Ok(crate::game::parse_move(&pos, &text).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_finds_mate_in_one_and_wins_material() {
        let pos = crate::game::position_from_fields("6k1/5ppp/8/8/8/8/8/R5K1 w - -", 0, 1).unwrap();
        let m = Builtin::new(2).best_move(&pos, None).unwrap();
        assert_eq!(m.to().to_string(), "a8");
        let pos = crate::game::position_from_fields("4k3/8/8/3q4/8/8/8/3RK3 w - -", 0, 1).unwrap();
        let m = Builtin::new(2).best_move(&pos, None).unwrap();
        assert_eq!(m.to().to_string(), "d5");
    }

    #[test]
    fn limits_budget() {
        let l = Limits {
            white: Some(Duration::from_secs(60)),
            black: None,
            increment: Duration::from_secs(1),
            moves_to_go: Some(10),
        };
        let b = l.budget(Color::White).unwrap();
        assert!(
            b > Duration::from_secs(5) && b < Duration::from_secs(7),
            "{b:?}"
        );
        assert_eq!(l.budget(Color::Black), None);
    }

    #[test]
    fn unknown_engine_spec() {
        assert!(from_spec("stockfish", None).is_err());
        assert!(from_spec("uci:/nonexistent/engine", None).is_err());
    }
}
