//! UCI driver: `uci`/`uciok` handshake, options, `position`/`go`,
//! `info` parsing and `bestmove`.

use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use crate::notation::{read_uci_pv, uci};
use crate::process::{EngineProcess, Line};
use crate::types::{
    Bound, EngineError, Info, Limits, PonderHandle, Result, Score, SearchResult, StopHandle,
};
use crate::{Engine, EngineCommand};

/// Driver settings.
#[derive(Debug, Clone)]
pub struct UciOptions {
    /// How long the engine may take to answer `uci`/`isready`.
    pub handshake_timeout: Duration,
    /// Extra time past a time-bounded search before `stop` is sent, then
    /// again before the engine is killed.
    pub grace: Duration,
    /// Deadline for searches that are not bounded by time (depth, nodes,
    /// mate); `None` waits as long as the engine keeps searching.
    pub search_timeout: Option<Duration>,
}

impl Default for UciOptions {
    fn default() -> Self {
        UciOptions {
            handshake_timeout: Duration::from_secs(10),
            grace: Duration::from_secs(2),
            search_timeout: None,
        }
    }
}

/// One `option` line announced by the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UciOption {
    /// Option name (may contain spaces).
    pub name: String,
    /// `check`, `spin`, `combo`, `button`, `string`.
    pub kind: String,
    /// Default value, if given.
    pub default: Option<String>,
}

/// How often a ponder search checks for the hit.
const PONDER_POLL: Duration = Duration::from_millis(5);

/// A UCI engine child process.
pub struct UciEngine {
    proc: EngineProcess,
    name: String,
    author: Option<String>,
    options: Vec<UciOption>,
    start: Chess,
    moves: Vec<Move>,
    mode: CastlingMode,
    stop: StopHandle,
    ponder: PonderHandle,
    opts: UciOptions,
}

impl UciEngine {
    /// Starts the engine and runs the handshake.
    pub fn start(cmd: &EngineCommand, opts: &UciOptions) -> Result<UciEngine> {
        let mut proc = EngineProcess::spawn(cmd)?;
        let stdin = proc.stdin_handle();
        let ponder_stdin = stdin.clone();
        let stop = StopHandle::with_hook(move || {
            let _ = crate::process::write_line(&stdin, "stop");
        });
        let ponder = PonderHandle::with_hook(move || {
            let _ = crate::process::write_line(&ponder_stdin, "ponderhit");
        });
        proc.send("uci")?;
        let mut name = None;
        let mut author = None;
        let mut options = Vec::new();
        let deadline = Instant::now() + opts.handshake_timeout;
        proc.expect("uciok", deadline, |line| {
            let line = line.trim();
            if line == "uciok" {
                return Some(());
            }
            if let Some(rest) = line.strip_prefix("id name ") {
                name = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("id author ") {
                author = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("option ")
                && let Some(o) = parse_option(rest)
            {
                options.push(o);
            }
            None
        })?;
        let name = name.unwrap_or_else(|| proc.command().to_string());
        let mut engine = UciEngine {
            proc,
            name,
            author,
            options,
            start: Chess::default(),
            moves: Vec::new(),
            mode: CastlingMode::Standard,
            stop,
            ponder,
            opts: opts.clone(),
        };
        engine.is_ready()?;
        Ok(engine)
    }

    /// The options the engine announced.
    pub fn options(&self) -> &[UciOption] {
        &self.options
    }

    /// The engine author, if announced.
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }

    /// Sends `isready` and waits for `readyok`.
    pub fn is_ready(&mut self) -> Result<()> {
        self.proc.send("isready")?;
        let deadline = Instant::now() + self.opts.handshake_timeout;
        self.proc.expect("readyok", deadline, |l| {
            (l.trim() == "readyok").then_some(())
        })
    }

    fn position_command(&self) -> String {
        let mut s = if self.start == Chess::default() {
            "position startpos".to_string()
        } else {
            let fen = shakmaty::fen::Fen::from_position(&self.start, EnPassantMode::Legal);
            format!("position fen {fen}")
        };
        if !self.moves.is_empty() {
            s.push_str(" moves");
            for &m in &self.moves {
                s.push(' ');
                s.push_str(&uci(m, self.mode));
            }
        }
        s
    }

    fn current(&self) -> Chess {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play_unchecked(m);
        }
        p
    }
}

/// Reads the words after `option ` of an `option` line the engine
/// announced (`name NAME type KIND [default VALUE] [min ..] [max ..] [var
/// ..]`); `None` when it has no `name` or `type`.
pub fn parse_option(rest: &str) -> Option<UciOption> {
    let rest = rest.strip_prefix("name ")?;
    let (name, after) = rest.split_once(" type ")?;
    let mut words = after.split_whitespace();
    let kind = words.next()?.to_string();
    let after_kind: Vec<&str> = words.collect();
    let default = after_kind.iter().position(|&w| w == "default").map(|i| {
        let end = after_kind[i + 1..]
            .iter()
            .position(|w| matches!(*w, "min" | "max" | "var"))
            .map_or(after_kind.len(), |j| i + 1 + j);
        after_kind[i + 1..end].join(" ")
    });
    Some(UciOption {
        name: name.trim().to_string(),
        kind,
        default,
    })
}

/// Builds the `go` command for `limits` in position `pos`.
pub fn go_command(limits: &Limits) -> String {
    let mut s = String::from("go");
    let ms = |d: Duration| d.as_millis().max(1);
    if let Some(c) = &limits.clock {
        s += &format!(
            " wtime {} btime {}",
            c.white.as_millis(),
            c.black.as_millis()
        );
        if !c.white_inc.is_zero() || !c.black_inc.is_zero() {
            s += &format!(
                " winc {} binc {}",
                c.white_inc.as_millis(),
                c.black_inc.as_millis()
            );
        }
        if let Some(m) = c.moves_to_go {
            s += &format!(" movestogo {m}");
        }
    }
    if let Some(d) = limits.depth {
        s += &format!(" depth {d}");
    }
    if let Some(n) = limits.nodes {
        s += &format!(" nodes {n}");
    }
    if let Some(t) = limits.movetime {
        s += &format!(" movetime {}", ms(t));
    }
    if let Some(m) = limits.mate {
        s += &format!(" mate {m}");
    }
    if s == "go" {
        s += " infinite";
    }
    s
}

/// Parses the words after `info` relative to the searched position.
pub fn parse_info(pos: &Chess, rest: &str) -> Info {
    let mut info = Info::default();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut i = 0;
    let num = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    while i < words.len() {
        match words[i] {
            "depth" => info.depth = num(i).map(|v| v as u32),
            "seldepth" => info.seldepth = num(i).map(|v| v as u32),
            "nodes" => info.nodes = num(i),
            "nps" => info.nps = num(i),
            "time" => info.time = num(i).map(Duration::from_millis),
            "multipv" => info.multipv = num(i).map(|v| v as u32),
            "score" => {
                let value = words.get(i + 2).and_then(|w| w.parse::<i32>().ok());
                match (words.get(i + 1).copied(), value) {
                    (Some("cp"), Some(v)) => info.score = Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => info.score = Some(Score::Mate(v)),
                    _ => {}
                }
                i += 2;
                while let Some(&w) = words.get(i + 1) {
                    match w {
                        "lowerbound" => info.bound = Bound::Lower,
                        "upperbound" => info.bound = Bound::Upper,
                        _ => break,
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            "pv" => {
                let end = words[i + 1..]
                    .iter()
                    .position(|w| INFO_KEYWORDS.contains(w))
                    .map_or(words.len(), |j| i + 1 + j);
                info.pv = read_uci_pv(pos, words[i + 1..end].iter().copied());
                i = end;
                continue;
            }
            "string" => {
                info.string = Some(words[i + 1..].join(" "));
                break;
            }
            // Keywords whose operands we skip.
            "currmove" | "currmovenumber" | "hashfull" | "tbhits" | "sbhits" | "cpuload" => {
                i += 2;
                continue;
            }
            "refutation" | "currline" => {
                let end = words[i + 1..]
                    .iter()
                    .position(|w| INFO_KEYWORDS.contains(w))
                    .map_or(words.len(), |j| i + 1 + j);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// Reads the words after `bestmove` in the searched position: the best
/// move (`None` for `(none)`, `0000`, `none`, `NULL` or nothing) and the
/// `ponder` move when it is legal after it. `Err` gives back a best move
/// that is no legal move.
pub fn parse_bestmove<'a>(
    pos: &Chess,
    rest: &'a str,
) -> std::result::Result<(Option<Move>, Option<Move>), &'a str> {
    let mut words = rest.split_whitespace();
    let best = words.next().unwrap_or("(none)");
    let best_move = if matches!(best, "(none)" | "0000" | "none" | "NULL") {
        None
    } else {
        Some(read_uci_pv(pos, [best]).first().copied().ok_or(best)?)
    };
    let ponder = match (words.next(), words.next(), best_move) {
        (Some("ponder"), Some(p), Some(b)) => {
            let mut after = pos.clone();
            after.play_unchecked(b);
            read_uci_pv(&after, [p]).first().copied()
        }
        _ => None,
    };
    Ok((best_move, ponder))
}

const INFO_KEYWORDS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

/// Merges a progress line into the running summary of a search.
pub(crate) fn merge_info(summary: &mut Info, info: &Info) {
    if info.is_main_line() && !info.pv.is_empty() {
        summary.depth = info.depth.or(summary.depth);
        summary.seldepth = info.seldepth.or(summary.seldepth);
        summary.score = info.score;
        summary.bound = info.bound;
        summary.pv = info.pv.clone();
    } else if info.is_main_line() && summary.score.is_none() {
        summary.score = info.score;
        summary.bound = info.bound;
        summary.depth = info.depth.or(summary.depth);
    }
    if info.nodes.is_some() {
        summary.nodes = info.nodes;
    }
    if info.nps.is_some() {
        summary.nps = info.nps;
    }
    if info.time.is_some() {
        summary.time = info.time;
    }
}

impl Engine for UciEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<()> {
        self.proc.send("ucinewgame")?;
        self.is_ready()
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<()> {
        if !self.options.is_empty()
            && !self
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(name))
        {
            return Err(EngineError::Usage(format!(
                "{} has no option `{name}`",
                self.name
            )));
        }
        if value.is_empty() {
            self.proc.send(&format!("setoption name {name}"))?;
        } else {
            self.proc
                .send(&format!("setoption name {name} value {value}"))?;
        }
        self.is_ready()
    }

    fn set_position(&mut self, start: &Chess, moves: &[Move]) -> Result<()> {
        crate::notation::play_line(start, moves).map_err(EngineError::Usage)?;
        self.start = start.clone();
        self.moves = moves.to_vec();
        let mode = CastlingMode::detect(&start.to_setup(EnPassantMode::Legal));
        // UCI_Chess960 is told when the mode changes (once per game, not
        // before every search), and turned off again for standard games.
        if mode != self.mode && self.options.iter().any(|o| o.name == "UCI_Chess960") {
            let on = mode == CastlingMode::Chess960;
            self.proc
                .send(&format!("setoption name UCI_Chess960 value {on}"))?;
        }
        self.mode = mode;
        Ok(())
    }

    fn go(&mut self, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> Result<SearchResult> {
        let pos = self.current();
        self.stop.reset();
        let cmd = self.position_command();
        // A ponder search has no deadline until the hit (polled below).
        let pondering = self.ponder.starts_pondering();
        let mut waiting_for_hit = pondering;
        if pondering {
            self.proc
                .send_lines(&[&cmd, &go_command(limits).replacen("go", "go ponder", 1)])?;
            if !self.ponder.now_pondering() {
                self.proc.send("ponderhit")?;
                waiting_for_hit = false;
            }
        } else {
            // `position` and `go` in one write.
            self.proc.send_lines(&[&cmd, &go_command(limits)])?;
        }
        // The engine's own time: from `go` written to `bestmove` read.
        let go_at = Instant::now();
        let budget = limits
            .time_budget(pos.turn().is_white())
            .or(self.opts.search_timeout);
        let mut stop_at = if waiting_for_hit {
            None
        } else {
            budget.map(|b| Instant::now() + b + self.opts.grace)
        };
        let mut kill_at: Option<Instant> = None;
        let mut summary = Info::default();
        loop {
            if waiting_for_hit && self.ponder.was_hit() {
                waiting_for_hit = false;
                stop_at = budget.map(|b| Instant::now() + b + self.opts.grace);
            }
            let deadline = match (stop_at, kill_at) {
                (_, Some(k)) => Some(k),
                (_, None) if waiting_for_hit => Some(Instant::now() + PONDER_POLL),
                (s, None) => s,
            };
            let line = match self.proc.recv(deadline) {
                Ok(l) => l,
                Err(e) => {
                    self.ponder.finish();
                    return Err(e);
                }
            };
            match line {
                Line::Timeout if waiting_for_hit && kill_at.is_none() => {
                    if self.stop.is_stopped() {
                        // Stopped while pondering: the bestmove is discarded.
                        self.proc.send("stop")?;
                        waiting_for_hit = false;
                        kill_at = Some(Instant::now() + self.opts.grace);
                    }
                }
                Line::Timeout => {
                    if kill_at.is_some() {
                        return Err(self.proc.timeout("bestmove"));
                    }
                    self.proc.send("stop")?;
                    stop_at = None;
                    kill_at = Some(Instant::now() + self.opts.grace);
                }
                Line::Text(line) => {
                    let line = line.trim();
                    if let Some(rest) = line.strip_prefix("info ") {
                        let info = parse_info(&pos, rest);
                        merge_info(&mut summary, &info);
                        on_info(&info);
                    } else if let Some(rest) = line.strip_prefix("bestmove") {
                        let (best_move, ponder) = parse_bestmove(&pos, rest).map_err(|best| {
                            EngineError::IllegalMove {
                                mv: best.to_owned(),
                                engine: self.name.clone(),
                            }
                        })?;
                        if summary.pv.first() != best_move.as_ref() {
                            summary.pv = best_move.into_iter().collect();
                        }
                        self.ponder.finish();
                        return Ok(SearchResult {
                            best_move,
                            ponder,
                            info: summary,
                            elapsed: self.proc.last_line_at().saturating_duration_since(go_at),
                        });
                    }
                    // Anything else is junk or chatter: ignored.
                }
            }
        }
    }

    fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    fn exit_watch(&self) -> Option<crate::ExitWatch> {
        Some(self.proc.exit_watch())
    }

    fn ponder_handle(&self) -> Option<PonderHandle> {
        Some(self.ponder.clone())
    }

    fn quit(&mut self) -> Result<()> {
        self.proc.close("quit", Duration::from_millis(500));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_info_lines() {
        let pos = Chess::default();
        let i = parse_info(
            &pos,
            "depth 12 seldepth 17 multipv 1 score cp 31 upperbound nodes 12345 nps 1000 hashfull 3 tbhits 0 time 12 pv e2e4 e7e5 g1f3 zz9 b8c6",
        );
        assert_eq!(i.depth, Some(12));
        assert_eq!(i.seldepth, Some(17));
        assert_eq!(i.score, Some(Score::Cp(31)));
        assert_eq!(i.bound, Bound::Upper);
        assert_eq!(i.nodes, Some(12345));
        assert_eq!(i.time, Some(Duration::from_millis(12)));
        assert_eq!(i.pv.len(), 3);
        let m = parse_info(
            &pos,
            "depth 3 score mate -2 lowerbound pv e2e4 string hello world",
        );
        assert_eq!(m.score, Some(Score::Mate(-2)));
        assert_eq!(m.bound, Bound::Lower);
        assert_eq!(m.string.as_deref(), Some("hello world"));
        let junk = parse_info(&pos, "depth x score cp pv");
        assert_eq!(junk.depth, None);
        assert!(junk.pv.is_empty());
    }

    #[test]
    fn parses_option_lines() {
        let o = parse_option("name Hash type spin default 16 min 1 max 33554432").unwrap();
        assert_eq!(
            (o.name.as_str(), o.kind.as_str(), o.default.as_deref()),
            ("Hash", "spin", Some("16"))
        );
        let o = parse_option("name Syzygy Path type string default <empty>").unwrap();
        assert_eq!(o.name, "Syzygy Path");
        assert!(parse_option("garbage").is_none());
    }

    #[test]
    fn builds_go_commands() {
        assert_eq!(go_command(&Limits::default()), "go infinite");
        assert_eq!(go_command(&Limits::depth(5)), "go depth 5");
        let l = Limits {
            clock: Some(crate::Clock {
                white: Duration::from_secs(60),
                black: Duration::from_secs(30),
                white_inc: Duration::from_secs(1),
                black_inc: Duration::from_secs(1),
                moves_to_go: Some(20),
            }),
            ..Limits::default()
        };
        assert_eq!(
            go_command(&l),
            "go wtime 60000 btime 30000 winc 1000 binc 1000 movestogo 20"
        );
    }
}
