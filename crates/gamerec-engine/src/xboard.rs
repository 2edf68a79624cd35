//! XBoard/CECP protocol 2 driver: `protover 2` and `feature` negotiation,
//! `setboard` or `edit`, `usermove`, `level`/`st`/`sd` (with the `depth`
//! fallback), `time`/`otim`, thinking output and the mate-score conventions
//! engines really use.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};

use crate::notation::{read_engine_move, read_engine_pv, uci};
use crate::process::{EngineProcess, Line};
use crate::types::{Bound, EngineError, Info, Limits, Result, Score, SearchResult, StopHandle};
use crate::uci::merge_info;
use crate::{Engine, EngineCommand};

/// Driver settings.
#[derive(Debug, Clone)]
pub struct XboardOptions {
    /// How long to listen for `feature` lines after `protover 2` when the
    /// engine does not say `done=1` (the protocol's two seconds).
    pub feature_timeout: Duration,
    /// How long to wait after `feature done=0` (the protocol allows an hour).
    pub init_timeout: Duration,
    /// Extra time past a time-bounded search before `?` (move now) is sent,
    /// then again before the engine is killed.
    pub grace: Duration,
    /// Deadline for searches not bounded by time; `None` waits.
    pub search_timeout: Option<Duration>,
    /// How long to wait for `pong`.
    pub ping_timeout: Duration,
}

impl Default for XboardOptions {
    fn default() -> Self {
        XboardOptions {
            feature_timeout: Duration::from_secs(2),
            init_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(2),
            search_timeout: None,
            ping_timeout: Duration::from_secs(10),
        }
    }
}

/// Features we understand and accept.
const KNOWN_FEATURES: &[&str] = &[
    "ping",
    "setboard",
    "playother",
    "san",
    "usermove",
    "time",
    "draw",
    "sigint",
    "sigterm",
    "reuse",
    "analyze",
    "myname",
    "variants",
    "colors",
    "ics",
    "name",
    "pause",
    "nps",
    "debug",
    "memory",
    "smp",
    "egt",
    "option",
    "done",
    "exclude",
    "setscore",
    "highlight",
    "xedit",
];

/// An XBoard engine child process.
pub struct XboardEngine {
    proc: EngineProcess,
    name: String,
    features: BTreeMap<String, String>,
    engine_options: Vec<String>,
    start: Chess,
    moves: Vec<Move>,
    mode: CastlingMode,
    stop: StopHandle,
    opts: XboardOptions,
    sd_rejected: bool,
    ping_counter: u32,
}

/// Splits a `feature` line body into `(name, value)` pairs; quoted values
/// keep their spaces.
pub fn parse_features(rest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let name = &rest[start..i];
        if i >= b.len() || b[i] != b'=' {
            if !name.is_empty() {
                out.push((name.to_string(), String::new()));
            }
            continue;
        }
        i += 1; // '='
        let value = if i < b.len() && b[i] == b'"' {
            let vstart = i + 1;
            let end = rest[vstart..].find('"').map_or(b.len(), |j| vstart + j);
            i = (end + 1).min(b.len());
            &rest[vstart..end]
        } else {
            let vstart = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            &rest[vstart..i]
        };
        // `=value` with no name is no feature (nothing to accept or reject).
        if !name.is_empty() {
            out.push((name.to_string(), value.to_string()));
        }
    }
    out
}

/// Converts an XBoard thinking score to a [`Score`], recognising the mate
/// conventions in use: the protocol's `±(100000 + moves)`, and engines that
/// print `BASE - plies` for BASE 100000 (HoiChess), 1000000 (Sjeng),
/// 30000 (Phalanx) or 32767/32768 (Crafty, GNU Chess and their kin).
pub fn xboard_score(raw: i64) -> Score {
    let a = raw.unsigned_abs() as i64;
    let sign = if raw < 0 { -1 } else { 1 };
    let moves = if a > 100_000 && a < 100_500 {
        Some(a - 100_000)
    } else if a > 99_000 && a <= 100_000 {
        Some((100_000 - a + 1) / 2)
    } else if a > 999_000 && a <= 1_000_000 {
        Some(((1_000_000 - a) / 2).max(1))
    } else if a > 29_000 && a <= 30_000 {
        Some((30_000 - a + 1) / 2)
    } else if a > 31_000 && a <= 32_768 {
        Some((32_768 - a + 1) / 2)
    } else {
        None
    };
    match moves {
        Some(m) => Score::Mate((sign * m.max(1)) as i32),
        None => Score::Cp(raw.clamp(-1_000_000, 1_000_000) as i32),
    }
}

/// Parses a thinking line (`ply score time nodes [extras] pv`) relative to
/// the searched position; `None` if it is not one.
pub fn parse_thinking(pos: &Chess, line: &str) -> Option<Info> {
    let mut words = line.split_whitespace();
    let depth: u32 = words.next()?.trim_end_matches(['.', '&']).parse().ok()?;
    let score: i64 = words.next()?.parse().ok()?;
    let time: u64 = words.next()?.parse().ok()?;
    let nodes: u64 = words.next()?.parse().ok()?;
    let rest: Vec<&str> = words.collect();
    let extras = rest.iter().take_while(|w| w.parse::<u64>().is_ok()).count();
    let pv_words = &rest[extras..];
    let mut bound = Bound::Exact;
    if let Some(last) = pv_words.last() {
        if last.ends_with('?') && !last.ends_with("??") {
            bound = Bound::Upper;
        } else if last.ends_with('!') && !last.ends_with("!!") {
            bound = Bound::Lower;
        }
    }
    let pv = if pv_words
        .first()
        .is_some_and(|w| w.starts_with('(') && w.len() > 3)
    {
        Vec::new() // book or other non-search output
    } else {
        read_engine_pv(pos, pv_words.iter().copied())
    };
    let seldepth = if extras >= 2 {
        rest[0].parse().ok()
    } else {
        None
    };
    Some(Info {
        depth: Some(depth),
        seldepth,
        nodes: Some(nodes),
        nps: None,
        // Centiseconds; a number too large for milliseconds saturates.
        time: Some(Duration::from_millis(time.saturating_mul(10))),
        score: Some(xboard_score(score)),
        bound,
        pv,
        multipv: None,
        string: None,
    })
}

impl XboardEngine {
    /// Starts the engine and negotiates features.
    pub fn start(cmd: &EngineCommand, opts: &XboardOptions) -> Result<XboardEngine> {
        let mut proc = EngineProcess::spawn(cmd)?;
        let stdin = proc.stdin_handle();
        let stop = StopHandle::with_hook(move || {
            let _ = crate::process::write_line(&stdin, "?");
        });
        proc.send("xboard")?;
        proc.send("protover 2")?;
        let mut features = BTreeMap::new();
        let mut engine_options = Vec::new();
        let mut deadline = Instant::now() + opts.feature_timeout;
        loop {
            match proc.recv(Some(deadline))? {
                Line::Timeout => break,
                Line::Text(line) => {
                    let Some(rest) = line.trim().strip_prefix("feature ") else {
                        continue;
                    };
                    let mut done = None;
                    for (name, value) in parse_features(rest) {
                        let known = KNOWN_FEATURES.contains(&name.as_str());
                        let reply = if known { "accepted" } else { "rejected" };
                        proc.send(&format!("{reply} {name}"))?;
                        if name == "done" {
                            done = Some(value == "1");
                        } else if name == "option" {
                            engine_options.push(value);
                        } else if known {
                            features.insert(name, value);
                        }
                    }
                    match done {
                        Some(true) => break,
                        Some(false) => deadline = Instant::now() + opts.init_timeout,
                        None => {}
                    }
                }
            }
        }
        let name = features
            .get("myname")
            .cloned()
            .unwrap_or_else(|| proc.command().to_string());
        let mut engine = XboardEngine {
            proc,
            name,
            features,
            engine_options,
            start: Chess::default(),
            moves: Vec::new(),
            mode: CastlingMode::Standard,
            stop,
            opts: opts.clone(),
            sd_rejected: false,
            ping_counter: 0,
        };
        engine.proc.send("new")?;
        engine.proc.send("force")?;
        engine.proc.send("easy")?;
        engine.proc.send("post")?;
        engine.sync(&mut |_| {})?;
        Ok(engine)
    }

    /// The value of a negotiated feature.
    pub fn feature(&self, name: &str) -> Option<&str> {
        self.features.get(name).map(String::as_str)
    }

    fn flag(&self, name: &str, default: bool) -> bool {
        self.feature(name).map_or(default, |v| v == "1")
    }

    /// The `feature option=` strings the engine announced.
    pub fn engine_options(&self) -> &[String] {
        &self.engine_options
    }

    /// Sends `ping N` and waits for `pong N` (when the engine supports
    /// ping), passing every other line to `seen`.
    fn sync(&mut self, seen: &mut dyn FnMut(&str)) -> Result<()> {
        if !self.flag("ping", false) {
            return Ok(());
        }
        self.ping_counter += 1;
        let n = self.ping_counter;
        self.proc.send(&format!("ping {n}"))?;
        let want = format!("pong {n}");
        let deadline = Instant::now() + self.opts.ping_timeout;
        self.proc.expect("pong", deadline, |l| {
            if l.trim() == want {
                Some(())
            } else {
                seen(l);
                None
            }
        })
    }

    fn move_text(&self, pos: &Chess, m: Move) -> String {
        if self.flag("san", false) {
            shakmaty::san::San::from_move(pos, m).to_string()
        } else if self.mode == CastlingMode::Chess960 && m.is_castle() {
            // CECP: castling in fischerandom is O-O / O-O-O.
            shakmaty::san::San::from_move(pos, m).to_string()
        } else {
            uci(m, self.mode)
        }
    }

    fn send_move(&mut self, pos: &Chess, m: Move) -> Result<()> {
        let text = self.move_text(pos, m);
        if self.flag("usermove", false) {
            self.proc.send(&format!("usermove {text}"))
        } else {
            self.proc.send(&text)
        }
    }

    /// Sets up `self.start` with setboard or edit.
    fn send_start(&mut self) -> Result<()> {
        if self.start == Chess::default() {
            return Ok(());
        }
        if self.flag("setboard", false) {
            let fen = shakmaty::fen::Fen::from_position(&self.start, EnPassantMode::Legal);
            return self.proc.send(&format!("setboard {fen}"));
        }
        // edit mode: the side to move is set by playing a move first.
        if self.start.turn() == Color::Black {
            let a3 = read_engine_move(&Chess::default(), "a2a3")
                .ok_or_else(|| EngineError::Protocol("a2a3".into()))?;
            self.send_move(&Chess::default(), a3)?;
        }
        self.proc.send("edit")?;
        self.proc.send("#")?;
        let board = self.start.board().clone();
        for color in [Color::White, Color::Black] {
            if color == Color::Black {
                self.proc.send("c")?;
            }
            for (sq, piece) in board.clone().into_iter() {
                if piece.color == color {
                    let letter = match piece.role {
                        Role::Pawn => 'P',
                        Role::Knight => 'N',
                        Role::Bishop => 'B',
                        Role::Rook => 'R',
                        Role::Queen => 'Q',
                        Role::King => 'K',
                    };
                    self.proc.send(&format!("{letter}{sq}"))?;
                }
            }
        }
        self.proc.send(".")
    }

    fn current(&self) -> Chess {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play_unchecked(m);
        }
        p
    }
}

/// Formats a duration as XBoard `level` base time (`MIN` or `MIN:SS`).
fn level_base(d: Duration) -> String {
    let secs = d.as_secs();
    if secs.is_multiple_of(60) {
        format!("{}", secs / 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// Formats an increment for `level`: whole seconds as an integer, a
/// fraction with up to three decimals (`0.05`), as xboard itself sends it;
/// the exact clocks follow in `time`/`otim` before every move anyway.
fn level_increment(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        text.trim_end_matches('0').to_owned()
    }
}

impl Engine for XboardEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<()> {
        self.proc.send("new")?;
        self.proc.send("force")?;
        self.sync(&mut |_| {})
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<()> {
        match name {
            "Hash" if self.flag("memory", false) => self.proc.send(&format!("memory {value}"))?,
            "Threads" if self.flag("smp", false) => self.proc.send(&format!("cores {value}"))?,
            _ if self
                .engine_options
                .iter()
                .any(|o| o.starts_with(name) && o[name.len()..].starts_with(" -")) =>
            {
                self.proc.send(&format!("option {name}={value}"))?
            }
            _ => {
                return Err(EngineError::Usage(format!(
                    "{} has no option `{name}`",
                    self.name
                )));
            }
        }
        self.sync(&mut |_| {})
    }

    fn set_position(&mut self, start: &Chess, moves: &[Move]) -> Result<()> {
        crate::notation::play_line(start, moves).map_err(EngineError::Usage)?;
        self.start = start.clone();
        self.moves = moves.to_vec();
        self.mode = CastlingMode::detect(&start.to_setup(EnPassantMode::Legal));
        if self.mode == CastlingMode::Chess960
            && self
                .feature("variants")
                .is_some_and(|v| !v.split(',').any(|v| v.trim() == "fischerandom"))
        {
            return Err(EngineError::Usage(
                "the engine does not play Chess960 (no fischerandom in its variants)".into(),
            ));
        }
        Ok(())
    }

    fn go(&mut self, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> Result<SearchResult> {
        let pos = self.current();
        let started = Instant::now();
        self.stop.reset();
        if pos.legal_moves().is_empty() {
            let score = if pos.is_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            let info = Info {
                score: Some(score),
                depth: Some(0),
                ..Info::default()
            };
            return Ok(SearchResult {
                best_move: None,
                ponder: None,
                info,
                elapsed: started.elapsed(),
            });
        }
        self.proc.send("new")?;
        if self.mode == CastlingMode::Chess960 {
            // CECP: the variant follows `new` (which resets it to normal).
            self.proc.send("variant fischerandom")?;
        }
        self.proc.send("force")?;
        self.proc.send("easy")?;
        self.proc.send("post")?;
        self.send_start()?;
        let mut p = self.start.clone();
        for m in self.moves.clone() {
            self.send_move(&p, m)?;
            p.play_unchecked(m);
        }
        // Limits. Clocks first (`new` resets them), then depth.
        if let Some(c) = limits.clock {
            let (ours, theirs, inc) = if pos.turn().is_white() {
                (c.white, c.black, c.white_inc)
            } else {
                (c.black, c.white, c.black_inc)
            };
            let mps = c.moves_to_go.unwrap_or(0);
            self.proc.send(&format!(
                "level {mps} {} {}",
                level_base(ours.max(Duration::from_secs(1))),
                level_increment(inc)
            ))?;
            if self.flag("time", true) {
                self.proc.send(&format!("time {}", ours.as_millis() / 10))?;
                self.proc
                    .send(&format!("otim {}", theirs.as_millis() / 10))?;
            }
        } else if let Some(t) = limits.movetime {
            self.proc
                .send(&format!("st {}", t.as_secs_f64().ceil().max(1.0) as u64))?;
        } else if let Some(n) = limits.nodes.filter(|_| self.flag("nps", true)) {
            self.proc.send(&format!("nps {n}"))?;
            self.proc.send("st 1")?;
        } else {
            self.proc.send("st 36000")?;
        }
        let depth = limits.depth.or(limits.mate.map(|m| 2 * m - 1));
        if let Some(d) = depth {
            if self.sd_rejected {
                self.proc.send(&format!("depth {d}"))?;
            } else {
                self.proc.send(&format!("sd {d}"))?;
                let mut rejected = false;
                self.sync(&mut |l| {
                    let l = l.to_ascii_lowercase();
                    if (l.starts_with("error") || l.starts_with("illegal move")) && l.contains("sd")
                    {
                        rejected = true;
                    }
                })?;
                if rejected {
                    self.sd_rejected = true;
                    self.proc.send(&format!("depth {d}"))?;
                }
            }
        }
        self.sync(&mut |_| {})?;
        self.proc.send("go")?;
        // The engine's own time: from `go` written to its move read.
        let go_at = Instant::now();
        let budget = limits
            .time_budget(pos.turn().is_white())
            .or(self.opts.search_timeout);
        // A movetime is a hard limit: ask for the move exactly then.
        let mut stop_at = match (limits.movetime, budget) {
            (Some(t), _) => Some(started + t),
            (None, Some(b)) => Some(started + b + self.opts.grace),
            (None, None) => None,
        };
        let mut kill_at: Option<Instant> = None;
        let mut summary = Info::default();
        loop {
            let deadline = kill_at.or(stop_at);
            match self.proc.recv(deadline)? {
                Line::Timeout => {
                    if kill_at.is_some() {
                        return Err(self.proc.timeout("move"));
                    }
                    self.proc.send("?")?;
                    stop_at = None;
                    kill_at = Some(Instant::now() + self.opts.grace);
                }
                Line::Text(line) => {
                    let t = line.trim();
                    let mv_text = t
                        .strip_prefix("move ")
                        .or_else(|| t.strip_prefix("My move is:"))
                        .or_else(|| t.strip_prefix("My move is :"));
                    if let Some(mv) = mv_text {
                        let mv = mv.trim();
                        let best =
                            read_engine_move(&pos, mv).ok_or_else(|| EngineError::IllegalMove {
                                mv: mv.to_owned(),
                                engine: self.name.clone(),
                            })?;
                        self.proc.send("force")?;
                        if summary.pv.first() != Some(&best) {
                            summary.pv = vec![best];
                        }
                        let ponder = summary.pv.get(1).copied();
                        return Ok(SearchResult {
                            best_move: Some(best),
                            ponder,
                            info: summary,
                            elapsed: self.proc.last_line_at().saturating_duration_since(go_at),
                        });
                    }
                    if t == "resign" || t.starts_with("tellopponent resign") {
                        let best = summary.pv.first().copied();
                        return Ok(SearchResult {
                            best_move: best,
                            ponder: None,
                            info: summary,
                            elapsed: self.proc.last_line_at().saturating_duration_since(go_at),
                        });
                    }
                    if t.starts_with(|c: char| c.is_ascii_digit())
                        && let Some(info) = parse_thinking(&pos, t)
                    {
                        merge_info(&mut summary, &info);
                        on_info(&info);
                    }
                }
            }
        }
    }

    fn exit_watch(&self) -> Option<crate::ExitWatch> {
        Some(self.proc.exit_watch())
    }

    fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
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
    fn level_increments_keep_fractions() {
        assert_eq!(level_increment(Duration::from_secs(2)), "2");
        assert_eq!(level_increment(Duration::from_millis(50)), "0.05");
        assert_eq!(level_increment(Duration::from_millis(1500)), "1.5");
        assert_eq!(level_increment(Duration::ZERO), "0");
    }

    #[test]
    fn parses_feature_lines() {
        let f = parse_features(
            r#"myname="Fairy-Max 5.0b" setboard=0 ping=1 option="A b -spin 1 0 9" done=1 junk"#,
        );
        assert_eq!(f[0], ("myname".into(), "Fairy-Max 5.0b".into()));
        assert_eq!(f[1], ("setboard".into(), "0".into()));
        assert_eq!(f[3], ("option".into(), "A b -spin 1 0 9".into()));
        assert_eq!(f[4], ("done".into(), "1".into()));
        assert_eq!(f[5], ("junk".into(), "".into()));
        assert_eq!(
            parse_features(r#"x="unterminated"#),
            [("x".into(), "unterminated".into())]
        );
    }

    /// Found by the `engine_lines` fuzz target: `=1` (a value with no
    /// name) gave a feature named "", answered `rejected ` with no name.
    #[test]
    fn a_value_without_a_name_is_no_feature() {
        assert_eq!(
            parse_features(r#"ping=1 =1 ="a b" done=1"#),
            [("ping".into(), "1".into()), ("done".into(), "1".into())]
        );
    }

    #[test]
    fn recognises_mate_conventions() {
        assert_eq!(xboard_score(100001), Score::Mate(1)); // protocol (Fairy-Max)
        assert_eq!(xboard_score(-100003), Score::Mate(-3));
        assert_eq!(xboard_score(99999), Score::Mate(1)); // HoiChess, 1 ply
        assert_eq!(xboard_score(999998), Score::Mate(1)); // Sjeng
        assert_eq!(xboard_score(29999), Score::Mate(1)); // Phalanx
        assert_eq!(xboard_score(29997), Score::Mate(2));
        assert_eq!(xboard_score(32767), Score::Mate(1));
        assert_eq!(xboard_score(-32764), Score::Mate(-2));
        assert_eq!(xboard_score(156), Score::Cp(156));
        assert_eq!(xboard_score(-2500), Score::Cp(-2500));
    }

    #[test]
    fn parses_thinking_lines() {
        let pos = Chess::default();
        let i = parse_thinking(&pos, " 9 156 1084 48000 Nf3 Nc6 Nc3 Nf6").unwrap();
        assert_eq!(i.depth, Some(9));
        assert_eq!(i.score, Some(Score::Cp(156)));
        assert_eq!(i.time, Some(Duration::from_millis(10840)));
        assert_eq!(i.pv.len(), 4);
        let c = parse_thinking(
            &pos,
            "  4    109      14   1435  1. e4 d5 2. Qf3 dxe4 3. Qxe4 Nc6",
        )
        .unwrap();
        assert_eq!(c.pv.len(), 6);
        let extras = parse_thinking(&pos, "5 20 3 900 7 300\te2e4 e7e5?").unwrap();
        assert_eq!(extras.seldepth, Some(7));
        assert_eq!(extras.bound, Bound::Upper);
        assert_eq!(extras.pv.len(), 2);
        let book = parse_thinking(
            &pos,
            "  0      0     0        0  (e2-e4  d2-d4  c2-c4 , book1)",
        )
        .unwrap();
        assert!(book.pv.is_empty());
        // Seen while writing the `engine_lines` fuzz target, confirmed
        // through it: a time above u64::MAX / 10 centiseconds overflowed.
        let long = parse_thinking(&pos, " 1 0 18446744073709551615 5 e4").unwrap();
        assert_eq!(long.time, Some(Duration::from_millis(u64::MAX)));
        assert!(parse_thinking(&pos, "Illegal move: sd 6").is_none());
        assert!(parse_thinking(&pos, "12 x").is_none());
    }
}
