//! Go engines: the [`GoEngine`] interface, a driver for engines that speak
//! GTP version 2 (GNU Go, Leela Zero, KataGo...) as child processes, and
//! built-in random and weak players for fast tests.
//!
//! GTP (spec: "Go Text Protocol version 2, draft 2"): one command per line,
//! each answered by `= result` or `? error` and an empty line. Vertices are
//! letters `A`..`Z` without `I` for columns and numbers from the bottom for
//! rows; [`vertex`] and [`parse_vertex`] convert to SGF [`Point`]s (from the
//! top left).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use gamerec::sgf::go::Board;
use gamerec::sgf::{Color, Point};

use crate::process::{EngineCommand, EngineProcess, Line};
use crate::types::{EngineError, Result};

/// How long an engine may take to answer a command that does not search.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `genmove` may take when no clock bounds it.
const UNBOUNDED_GENMOVE: Duration = Duration::from_secs(600);
/// Longest GTP answer kept (lines): bounds a babbling engine's memory.
const MAX_ANSWER_LINES: usize = 10_000;
/// Largest board GTP can name (25 letters without `I`).
pub const MAX_GTP_SIZE: u32 = 25;

/// A move an engine chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoMove {
    /// A stone on this point.
    Play(Point),
    /// A pass.
    Pass,
    /// The engine resigns.
    Resign,
}

/// Time settings as GTP sends them (`time_settings`, `kgs-time_settings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GoTime {
    /// Main time.
    pub main: Duration,
    /// Byo-yomi period length (zero: sudden death).
    pub byo_yomi: Duration,
    /// Stones to play in each Canadian period (0 with Japanese byo-yomi).
    pub stones: u32,
    /// Japanese byo-yomi periods (0 with Canadian byo-yomi).
    pub periods: u32,
}

/// An engine's evaluation of a position.
#[derive(Debug, Clone, PartialEq)]
pub struct GoEvaluation {
    /// Estimated score lead for Black in points (negative: White leads).
    pub black_lead: Option<f64>,
    /// Black's winning probability, 0..1, when the engine gives one.
    pub black_winrate: Option<f64>,
    /// The engine's best move, when it gives one.
    pub best: Option<GoMove>,
    /// Which command gave it (`estimate_score`, `lz-analyze`...).
    pub source: &'static str,
}

/// The game an engine is told about before the first move.
#[derive(Debug, Clone, PartialEq)]
pub struct GoGameSetup {
    /// Board size (square boards; GTP has no others).
    pub size: u32,
    /// Komi.
    pub komi: f64,
    /// Handicap and setup stones (Black's).
    pub black_stones: Vec<Point>,
    /// Setup stones of White (sent as moves before play starts).
    pub white_stones: Vec<Point>,
    /// The rules' name (`RU`), for engines that take `kgs-rules`.
    pub rules: Option<String>,
}

/// A Go engine: told the game and each move, asked for moves.
pub trait GoEngine: Send {
    /// The engine's name (GTP `name`, or built in).
    fn name(&self) -> &str;
    /// Starts a new game: board size, komi, setup and handicap stones.
    fn new_game(&mut self, setup: &GoGameSetup) -> Result<()>;
    /// A move played (by the opponent, or an opening move).
    fn play(&mut self, color: Color, point: Option<Point>) -> Result<()>;
    /// Asks for `color`'s move; `limit` is the wall-clock time the engine
    /// may take before it is killed (`None`: a generous default).
    fn genmove(&mut self, color: Color, limit: Option<Duration>) -> Result<GoMove>;
    /// Tells the time control (ignored by engines without a clock).
    fn time_settings(&mut self, _time: &GoTime) -> Result<()> {
        Ok(())
    }
    /// Tells the time left: in main time `stones` is 0, in byo-yomi it is
    /// the stones (Canadian) or periods (Japanese) left.
    fn time_left(&mut self, _color: Color, _left: Duration, _stones: u32) -> Result<()> {
        Ok(())
    }
    /// The dead stones at the end of the game (`final_status_list dead`),
    /// `None` when the engine cannot say.
    fn dead_stones(&mut self) -> Result<Option<Vec<Point>>> {
        Ok(None)
    }
    /// The stones in seki at the end of the game (`final_status_list
    /// seki`), `None` when the engine cannot say.
    fn seki_stones(&mut self) -> Result<Option<Vec<Point>>> {
        Ok(None)
    }
    /// The engine's own count of the finished game (`final_score`, as
    /// `B+3.5`, `W+R`, `0`), `None` when it cannot say.
    fn final_score(&mut self) -> Result<Option<String>> {
        Ok(None)
    }
    /// Evaluates the current position with `to_play` to move, `None` when
    /// the engine cannot.
    fn evaluate(&mut self, _to_play: Color, _budget: Duration) -> Result<Option<GoEvaluation>> {
        Ok(None)
    }
    /// Ends the engine politely (dropping it kills it).
    fn quit(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The GTP name of `p` on a `size` board (`A1` bottom left), `None` when
/// off the board or the board is larger than GTP can name.
pub fn vertex(p: Point, size: u32) -> Option<String> {
    if size > MAX_GTP_SIZE || u32::from(p.x) >= size || u32::from(p.y) >= size {
        return None;
    }
    let col = b"ABCDEFGHJKLMNOPQRSTUVWXYZ"[p.x as usize] as char;
    Some(format!("{col}{}", size - u32::from(p.y)))
}

/// Reads a GTP vertex (any case) on a `size` board; `pass` is `Some(None)`.
pub fn parse_vertex(text: &str, size: u32) -> Option<Option<Point>> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("pass") {
        return Some(None);
    }
    let mut chars = t.chars();
    let c = chars.next()?.to_ascii_uppercase();
    if !c.is_ascii_uppercase() || c == 'I' {
        return None;
    }
    let x = (c as u32 - 'A' as u32) - u32::from(c > 'I');
    let row: u32 = chars.as_str().parse().ok()?;
    if x >= size || row == 0 || row > size || size > MAX_GTP_SIZE {
        return None;
    }
    Some(Some(Point::new(x as u8, (size - row) as u8)))
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// Reads a `genmove` answer.
pub fn parse_genmove(text: &str, size: u32) -> Option<GoMove> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("resign") {
        return Some(GoMove::Resign);
    }
    Some(match parse_vertex(t, size)? {
        Some(p) => GoMove::Play(p),
        None => GoMove::Pass,
    })
}

/// Reads a score such as GNU Go's `estimate_score` (`W+3.5 (upper bound:
/// ...)`) or `final_score` (`B+12.5`, `0`): Black's lead in points.
pub fn parse_score(text: &str) -> Option<f64> {
    let word = text.split_whitespace().next()?;
    if word == "0" {
        return Some(0.0);
    }
    let (sign, rest) = if let Some(r) = word.strip_prefix("B+").or(word.strip_prefix("b+")) {
        (1.0, r)
    } else if let Some(r) = word.strip_prefix("W+").or(word.strip_prefix("w+")) {
        (-1.0, r)
    } else {
        return None;
    };
    let v: f64 = rest.parse().ok()?;
    v.is_finite().then_some(sign * v)
}

/// Options of a GTP engine.
#[derive(Debug, Clone, Default)]
pub struct GtpOptions {
    /// GTP commands sent once after start (`level 1`, `kgs-rules chinese`).
    pub init: Vec<String>,
    /// How long a command that does not search may take (default 30 s).
    pub timeout: Option<Duration>,
}

/// An engine speaking GTP over a child process's stdin/stdout.
pub struct GtpEngine {
    proc: EngineProcess,
    name: String,
    known: BTreeSet<String>,
    size: u32,
    timeout: Duration,
}

/// The error an engine gave (`? message`).
fn refused(command: &str, message: &str) -> EngineError {
    EngineError::Protocol(format!(
        "`{command}` refused: {}",
        gamerec::excerpt::excerpt(message)
    ))
}

impl GtpEngine {
    /// Starts the engine, checks it speaks GTP 2 and reads its name and
    /// command list.
    pub fn start(cmd: &EngineCommand, options: &GtpOptions) -> Result<GtpEngine> {
        let proc = EngineProcess::spawn(cmd)?;
        let mut e = GtpEngine {
            proc,
            name: String::new(),
            known: BTreeSet::new(),
            size: 19,
            timeout: options.timeout.unwrap_or(COMMAND_TIMEOUT),
        };
        let version = e.command("protocol_version")?;
        if version.trim() != "2" {
            return Err(EngineError::Protocol(format!(
                "`{}` speaks GTP version {:?}, not 2",
                e.proc.command(),
                version.trim()
            )));
        }
        e.known = e
            .command("list_commands")?
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
        e.name = e
            .command("name")
            .ok()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| e.proc.command().to_owned());
        for line in &options.init {
            e.command(line)?;
        }
        Ok(e)
    }

    /// Whether the engine listed `command` in `list_commands`.
    pub fn knows(&self, command: &str) -> bool {
        self.known.contains(command)
    }

    /// Sends one command and returns its answer (without `= `), failing on
    /// `? error` or when no answer comes within [`COMMAND_TIMEOUT`].
    pub fn command(&mut self, line: &str) -> Result<String> {
        self.command_until(line, Instant::now() + self.timeout)
    }

    /// [`GtpEngine::command`] with a deadline (the engine is killed when it
    /// passes).
    pub fn command_until(&mut self, line: &str, deadline: Instant) -> Result<String> {
        if line.contains(['\n', '\r']) || line.trim().is_empty() {
            return Err(EngineError::Usage(format!("bad GTP command {line:?}")));
        }
        self.proc.send(line)?;
        let name = line.split_whitespace().next().unwrap_or(line).to_owned();
        // Skip anything before the answer (blank lines, stray output).
        let (ok, first) = loop {
            match self.proc.recv(Some(deadline))? {
                Line::Timeout => return Err(self.proc.timeout(&format!("the answer to `{name}`"))),
                Line::Text(t) => {
                    if let Some(rest) = t.strip_prefix('=') {
                        break (true, strip_id(rest));
                    }
                    if let Some(rest) = t.strip_prefix('?') {
                        break (false, strip_id(rest));
                    }
                }
            }
        };
        let mut answer = first;
        let mut lines = 1;
        loop {
            match self.proc.recv(Some(deadline))? {
                Line::Timeout => return Err(self.proc.timeout(&format!("the end of `{name}`"))),
                Line::Text(t) if t.trim().is_empty() => break,
                Line::Text(t) => {
                    lines += 1;
                    if lines <= MAX_ANSWER_LINES {
                        answer.push('\n');
                        answer.push_str(&t);
                    }
                }
            }
        }
        if ok {
            Ok(answer)
        } else {
            Err(refused(line, answer.trim()))
        }
    }

    fn send_time_left(&mut self, color: Color, left: Duration, stones: u32) -> Result<()> {
        if self.knows("time_left") {
            self.command(&format!(
                "time_left {} {} {stones}",
                color_word(color),
                left.as_secs()
            ))?;
        }
        Ok(())
    }
}

/// Drops a command id (`=12 D4` → `D4`) and one space.
fn strip_id(rest: &str) -> String {
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.strip_prefix(' ').unwrap_or(rest).to_owned()
}

impl GoEngine for GtpEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, setup: &GoGameSetup) -> Result<()> {
        if setup.size == 0 || setup.size > MAX_GTP_SIZE {
            return Err(EngineError::Usage(format!(
                "GTP cannot play on a {0}x{0} board",
                setup.size
            )));
        }
        self.command(&format!("boardsize {}", setup.size))?;
        self.size = setup.size;
        self.command("clear_board")?;
        self.command(&format!("komi {}", setup.komi))?;
        if let Some(rules) = &setup.rules
            && self.knows("kgs-rules")
        {
            let r = rules.to_ascii_lowercase();
            let name = if r.contains("japan") || r.contains("korea") {
                "japanese"
            } else if r.contains("nz") || r.contains("new zealand") {
                "new_zealand"
            } else if r.contains("aga") {
                "aga"
            } else {
                "chinese"
            };
            // Engines that do not support a rule set say so; play anyway.
            let _ignored = self.command(&format!("kgs-rules {name}"));
        }
        let names = |ps: &[Point]| -> Result<Vec<String>> {
            ps.iter()
                .map(|&p| {
                    vertex(p, setup.size).ok_or_else(|| {
                        EngineError::Usage(format!("setup stone {p:?} off the board"))
                    })
                })
                .collect()
        };
        let black = names(&setup.black_stones)?;
        let white = names(&setup.white_stones)?;
        if !black.is_empty() {
            if white.is_empty() && black.len() >= 2 && self.knows("set_free_handicap") {
                self.command(&format!("set_free_handicap {}", black.join(" ")))?;
            } else {
                for v in &black {
                    self.command(&format!("play b {v}"))?;
                }
            }
        }
        for v in &white {
            self.command(&format!("play w {v}"))?;
        }
        Ok(())
    }

    fn play(&mut self, color: Color, point: Option<Point>) -> Result<()> {
        let v = match point {
            None => "pass".to_owned(),
            Some(p) => vertex(p, self.size)
                .ok_or_else(|| EngineError::Usage(format!("move {p:?} off the board")))?,
        };
        self.command(&format!("play {} {v}", color_word(color)))?;
        Ok(())
    }

    fn genmove(&mut self, color: Color, limit: Option<Duration>) -> Result<GoMove> {
        let deadline = Instant::now() + limit.unwrap_or(UNBOUNDED_GENMOVE);
        let answer = self.command_until(&format!("genmove {}", color_word(color)), deadline)?;
        parse_genmove(&answer, self.size).ok_or_else(|| {
            EngineError::Protocol(format!(
                "genmove answered {}, not a vertex, pass or resign",
                gamerec::excerpt::excerpt(answer.trim())
            ))
        })
    }

    fn time_settings(&mut self, t: &GoTime) -> Result<()> {
        if t.periods > 0 && self.knows("kgs-time_settings") {
            self.command(&format!(
                "kgs-time_settings byoyomi {} {} {}",
                t.main.as_secs(),
                t.byo_yomi.as_secs(),
                t.periods
            ))?;
        } else if self.knows("time_settings") {
            // Japanese byo-yomi to an engine without kgs-time_settings: one
            // period of one stone (the safe reading).
            let stones = if t.byo_yomi.is_zero() {
                0
            } else {
                t.stones.max(1)
            };
            self.command(&format!(
                "time_settings {} {} {stones}",
                t.main.as_secs(),
                t.byo_yomi.as_secs()
            ))?;
        }
        Ok(())
    }

    fn time_left(&mut self, color: Color, left: Duration, stones: u32) -> Result<()> {
        self.send_time_left(color, left, stones)
    }

    fn dead_stones(&mut self) -> Result<Option<Vec<Point>>> {
        self.status_list("dead")
    }

    fn seki_stones(&mut self) -> Result<Option<Vec<Point>>> {
        self.status_list("seki")
    }

    fn final_score(&mut self) -> Result<Option<String>> {
        if !self.knows("final_score") {
            return Ok(None);
        }
        let a = self.command_until("final_score", Instant::now() + Duration::from_secs(120))?;
        Ok(Some(a.trim().to_owned()))
    }

    fn evaluate(&mut self, to_play: Color, budget: Duration) -> Result<Option<GoEvaluation>> {
        for (cmd, source) in [
            ("lz-analyze", "lz-analyze"),
            ("kata-analyze", "kata-analyze"),
        ] {
            if self.knows(cmd) {
                return self.analyze(cmd, source, to_play, budget).map(Some);
            }
        }
        for cmd in ["estimate_score", "final_score"] {
            if self.knows(cmd) {
                let a = self.command_until(cmd, Instant::now() + budget + self.timeout)?;
                return Ok(parse_score(&a).map(|lead| GoEvaluation {
                    black_lead: Some(lead),
                    black_winrate: None,
                    best: None,
                    source: if cmd == "estimate_score" {
                        "estimate_score"
                    } else {
                        "final_score"
                    },
                }));
            }
        }
        Ok(None)
    }

    fn quit(&mut self) -> Result<()> {
        self.proc.close("quit", Duration::from_millis(500));
        Ok(())
    }
}

impl GtpEngine {
    /// `final_status_list STATUS` (`dead`, `seki`) as points, `None` when
    /// the engine has no such command.
    fn status_list(&mut self, status: &str) -> Result<Option<Vec<Point>>> {
        if !self.knows("final_status_list") {
            return Ok(None);
        }
        let cmd = format!("final_status_list {status}");
        let answer = self.command_until(&cmd, Instant::now() + Duration::from_secs(120))?;
        parse_vertex_list(&answer, self.size)
            .map(Some)
            .map_err(|word| {
                EngineError::Protocol(format!(
                    "{cmd}: {} is not a vertex",
                    gamerec::excerpt::excerpt(word)
                ))
            })
    }

    /// Runs `lz-analyze`/`kata-analyze` for `budget`, then stops it with a
    /// harmless command; reads the last `info` of the best move.
    fn analyze(
        &mut self,
        cmd: &str,
        source: &'static str,
        to_play: Color,
        budget: Duration,
    ) -> Result<GoEvaluation> {
        self.proc
            .send(&format!("{cmd} {} 50", color_word(to_play)))?;
        let stop_at = Instant::now() + budget;
        let mut best: Option<String> = None;
        let mut answered = false;
        let mut sent_stop = false;
        let hard = stop_at + self.timeout;
        loop {
            if !sent_stop && Instant::now() >= stop_at {
                // Any command ends the analysis; its answer follows.
                self.proc.send("protocol_version")?;
                sent_stop = true;
            }
            let wait = if sent_stop { hard } else { stop_at };
            match self.proc.recv(Some(wait))? {
                Line::Timeout if sent_stop => return Err(self.proc.timeout(cmd)),
                Line::Timeout => {}
                Line::Text(t) => {
                    if t.starts_with('?') && !answered {
                        return Err(refused(cmd, t[1..].trim()));
                    }
                    if t.starts_with('=') {
                        if answered && sent_stop {
                            // The stop command's answer: read its blank line.
                            let _ = self.proc.recv(Some(hard))?;
                            break;
                        }
                        answered = true;
                    }
                    if t.contains("info move") {
                        best = Some(t);
                    }
                }
            }
        }
        Ok(parse_analysis(
            best.as_deref().unwrap_or_default(),
            to_play,
            self.size,
            source,
        ))
    }
}

/// Reads the vertices of a `final_status_list` answer; `Err` gives back
/// the first word that is not a vertex on a `size` board.
pub fn parse_vertex_list(answer: &str, size: u32) -> std::result::Result<Vec<Point>, &str> {
    answer
        .split_whitespace()
        .map(|word| match parse_vertex(word, size) {
            Some(Some(p)) => Ok(p),
            _ => Err(word),
        })
        .collect()
}

/// Reads an `lz-analyze`/`kata-analyze` line with `to_play` to move: its
/// first `info move ...` (the engine's best move), as Black's view.
pub fn parse_analysis(line: &str, to_play: Color, size: u32, source: &'static str) -> GoEvaluation {
    // The first info of a line is the best move.
    let info = line
        .find("info move")
        .and_then(|at| line[at..].split(" info ").next())
        .unwrap_or("");
    let words: Vec<&str> = info.split_whitespace().collect();
    let field = |name: &str| {
        words
            .iter()
            .position(|w| *w == name)
            .and_then(|i| words.get(i + 1))
            .copied()
    };
    let mover_sign = if to_play == Color::Black { 1.0 } else { -1.0 };
    // Values out of range (negative, not finite, a win rate above 10000)
    // are no evaluation: they would reach the SGF written (`V`) as is.
    let winrate = field("winrate")
        .and_then(|w| w.parse::<f64>().ok())
        .filter(|w| (0.0..=10_000.0).contains(w))
        .map(|w| {
            // Leela Zero gives 0..10000, KataGo 0..1; both for the mover.
            let w = if w > 1.0 { w / 10000.0 } else { w };
            if to_play == Color::Black { w } else { 1.0 - w }
        });
    let lead = field("scoreLead")
        .or(field("scoreMean"))
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite())
        .map(|s| s * mover_sign);
    GoEvaluation {
        black_lead: lead,
        black_winrate: winrate,
        best: field("move").and_then(|m| parse_genmove(m, size)),
        source,
    }
}

/// A built-in player: `random` plays a uniformly random legal move that
/// does not fill its own single-point eye, `weak` prefers captures and
/// escapes from atari and avoids self-atari; both pass when nothing is
/// left. Deterministic for a seed.
pub struct BuiltinGo {
    name: String,
    weak: bool,
    rng: u64,
    board: Board,
    size: u32,
}

impl BuiltinGo {
    /// A random player (`weak` = false) or the weak greedy one.
    pub fn new(weak: bool, seed: u64) -> BuiltinGo {
        BuiltinGo {
            name: if weak {
                "gamerec-weak"
            } else {
                "gamerec-random"
            }
            .to_owned(),
            weak,
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            board: Board::new(19, 19),
            size: 19,
        }
    }

    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        let s = self.size as i32;
        [(0, 1), (0, -1), (1, 0), (-1, 0)]
            .into_iter()
            .filter_map(move |(dx, dy)| {
                let (x, y) = (i32::from(p.x) + dx, i32::from(p.y) + dy);
                (x >= 0 && y >= 0 && x < s && y < s).then(|| Point::new(x as u8, y as u8))
            })
    }

    /// A point all of whose neighbours are `c`'s and most diagonals too.
    fn is_own_eye(&self, p: Point, c: Color) -> bool {
        if self.neighbours(p).any(|q| self.board.get(q) != Some(c)) {
            return false;
        }
        let s = self.size as i32;
        let mut bad = 0;
        let mut edge = false;
        for (dx, dy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let (x, y) = (i32::from(p.x) + dx, i32::from(p.y) + dy);
            if x < 0 || y < 0 || x >= s || y >= s {
                edge = true;
            } else if self.board.get(Point::new(x as u8, y as u8)) == Some(c.opponent()) {
                bad += 1;
            }
        }
        if edge { bad == 0 } else { bad < 2 }
    }

    /// Liberties of the chain at `p` (up to `cap`).
    fn liberties(board: &Board, p: Point, size: u32, cap: usize) -> usize {
        let Some(c) = board.get(p) else { return 0 };
        let mut seen = vec![false; (size * size) as usize];
        let mut libs = BTreeSet::new();
        let mut stack = vec![p];
        seen[(u32::from(p.y) * size + u32::from(p.x)) as usize] = true;
        while let Some(q) = stack.pop() {
            for (dx, dy) in [(0i32, 1i32), (0, -1), (1, 0), (-1, 0)] {
                let (x, y) = (i32::from(q.x) + dx, i32::from(q.y) + dy);
                if x < 0 || y < 0 || x >= size as i32 || y >= size as i32 {
                    continue;
                }
                let n = Point::new(x as u8, y as u8);
                let i = (y as u32 * size + x as u32) as usize;
                match board.get(n) {
                    None => {
                        libs.insert(i);
                        if libs.len() >= cap {
                            return libs.len();
                        }
                    }
                    Some(d) if d == c && !seen[i] => {
                        seen[i] = true;
                        stack.push(n);
                    }
                    _ => {}
                }
            }
        }
        libs.len()
    }

    fn score_move(&self, c: Color, p: Point) -> i64 {
        let mut trial = self.board.clone();
        let out = trial.play(c, Some(p));
        let mut s = 10 * i64::from(out.captured);
        let own = Self::liberties(&trial, p, self.size, 3);
        if own == 1 {
            s -= 20;
        }
        for q in self.neighbours(p) {
            if self.board.get(q) == Some(c) && Self::liberties(&self.board, q, self.size, 2) == 1 {
                s += if own >= 2 { 8 } else { 0 };
            }
            if self.board.get(q) == Some(c.opponent())
                && trial.get(q).is_some()
                && Self::liberties(&trial, q, self.size, 2) == 1
            {
                s += 3;
            }
        }
        s
    }
}

impl GoEngine for BuiltinGo {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, setup: &GoGameSetup) -> Result<()> {
        if setup.size == 0 || setup.size > 52 {
            return Err(EngineError::Usage(format!("board size {}", setup.size)));
        }
        self.size = setup.size;
        self.board = Board::new(setup.size, setup.size);
        let mut changes: Vec<(Point, Option<Color>)> = Vec::new();
        changes.extend(setup.black_stones.iter().map(|&p| (p, Some(Color::Black))));
        changes.extend(setup.white_stones.iter().map(|&p| (p, Some(Color::White))));
        self.board
            .setup(&changes)
            .map_err(|p| EngineError::Usage(format!("setup stone {p:?} off the board")))
    }

    fn play(&mut self, color: Color, point: Option<Point>) -> Result<()> {
        if let Some(p) = point
            && let Err(e) = self.board.check(color, p)
        {
            return Err(EngineError::Protocol(format!("illegal move {p:?}: {e}")));
        }
        self.board.play(color, point);
        Ok(())
    }

    fn genmove(&mut self, color: Color, _limit: Option<Duration>) -> Result<GoMove> {
        let mut candidates = Vec::new();
        for y in 0..self.size {
            for x in 0..self.size {
                let p = Point::new(x as u8, y as u8);
                if self.board.get(p).is_none()
                    && !self.is_own_eye(p, color)
                    && self.board.check(color, p).is_ok()
                {
                    candidates.push(p);
                }
            }
        }
        if candidates.is_empty() {
            self.board.play(color, None);
            return Ok(GoMove::Pass);
        }
        let pick = if self.weak {
            let scored: Vec<(i64, Point)> = candidates
                .iter()
                .map(|&p| (self.score_move(color, p), p))
                .collect();
            let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
            let top: Vec<Point> = scored.iter().filter(|s| s.0 == best).map(|s| s.1).collect();
            if best < -10 {
                // Only self-ataris left: pass rather than feed the opponent.
                self.board.play(color, None);
                return Ok(GoMove::Pass);
            }
            top[(self.next() % top.len() as u64) as usize]
        } else {
            candidates[(self.next() % candidates.len() as u64) as usize]
        };
        self.board.play(color, Some(pick));
        Ok(GoMove::Play(pick))
    }
}

/// A Go engine as command lines name it: `gtp:COMMAND` (GTP commands to
/// send first after `|`: `gtp:gnugo --mode gtp|level 1`), `random[:SEED]`
/// or `weak[:SEED]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoEngineSpec {
    /// A GTP engine and its start-up commands.
    Gtp(EngineCommand, Vec<String>),
    /// The built-in random player.
    Random(u64),
    /// The built-in weak player.
    Weak(u64),
}

impl std::str::FromStr for GoEngineSpec {
    type Err = EngineError;

    fn from_str(s: &str) -> Result<GoEngineSpec> {
        let seed = |rest: Option<&str>| -> Result<u64> {
            match rest {
                None => Ok(1),
                Some(r) => r.parse().map_err(|_| {
                    EngineError::Usage(format!(
                        "`{}`: the seed must be a number",
                        gamerec::excerpt::excerpt(s)
                    ))
                }),
            }
        };
        let (head, tail) = match s.split_once(':') {
            Some((h, t)) => (h, Some(t)),
            None => (s, None),
        };
        match head {
            "gtp" => {
                let mut parts = tail.unwrap_or_default().split('|');
                let cmd = EngineCommand::parse(parts.next().unwrap_or_default())?;
                let init: Vec<String> = parts
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect();
                // A line break would send a second command, whose answer
                // would be taken for the next command's.
                if let Some(c) = init.iter().find(|c| c.contains(['\n', '\r'])) {
                    return Err(EngineError::Usage(format!(
                        "`{}`: a GTP command is one line",
                        gamerec::excerpt::excerpt(c)
                    )));
                }
                Ok(GoEngineSpec::Gtp(cmd, init))
            }
            "random" => Ok(GoEngineSpec::Random(seed(tail)?)),
            "weak" => Ok(GoEngineSpec::Weak(seed(tail)?)),
            _ => Err(EngineError::Usage(format!(
                "unknown Go engine `{}`: expected gtp:COMMAND, random[:SEED] or weak[:SEED]",
                gamerec::excerpt::excerpt(s)
            ))),
        }
    }
}

impl GoEngineSpec {
    /// A player name for a Go engine spec (`gamerec match`): a GTP
    /// engine's program's file name, else the spec itself.
    pub fn default_name(spec: &str) -> String {
        match spec.strip_prefix("gtp:") {
            Some(cmd) => crate::program_name(cmd.split('|').next().unwrap_or(cmd)),
            None => spec.to_owned(),
        }
    }

    /// Whether `s` names a Go engine (`gtp:`, `random`, `weak`).
    pub fn looks_like(s: &str) -> bool {
        s.starts_with("gtp:")
            || s == "random"
            || s == "weak"
            || s.starts_with("random:")
            || s.starts_with("weak:")
    }

    /// Starts the engine; `salt` varies a built-in player's seed (per game).
    pub fn start(&self, salt: u64) -> Result<Box<dyn GoEngine>> {
        Ok(match self {
            GoEngineSpec::Gtp(cmd, init) => Box::new(GtpEngine::start(
                cmd,
                &GtpOptions {
                    init: init.clone(),
                    timeout: None,
                },
            )?),
            GoEngineSpec::Random(seed) => Box::new(BuiltinGo::new(false, seed ^ salt)),
            GoEngineSpec::Weak(seed) => Box::new(BuiltinGo::new(true, seed ^ salt)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_round_trip_and_skip_i() {
        assert_eq!(vertex(Point::new(0, 8), 9).as_deref(), Some("A1"));
        assert_eq!(vertex(Point::new(8, 0), 9).as_deref(), Some("J9"));
        assert_eq!(vertex(Point::new(7, 0), 19).as_deref(), Some("H19"));
        assert_eq!(vertex(Point::new(8, 0), 19).as_deref(), Some("J19"));
        assert_eq!(vertex(Point::new(9, 9), 9), None);
        for size in [5, 9, 13, 19, 25] {
            for x in 0..size {
                for y in 0..size {
                    let p = Point::new(x as u8, y as u8);
                    let v = vertex(p, size).unwrap();
                    assert_eq!(parse_vertex(&v, size), Some(Some(p)), "{v}");
                    assert_eq!(parse_vertex(&v.to_lowercase(), size), Some(Some(p)));
                }
            }
        }
        assert_eq!(parse_vertex("PASS", 9), Some(None));
        for bad in ["I5", "A0", "A10", "K1", "", "5", "A-1", "AA1", "Z1"] {
            assert_eq!(parse_vertex(bad, 9), None, "{bad}");
        }
    }

    #[test]
    fn scores_and_moves_parse() {
        assert_eq!(
            parse_score("W+3.5 (upper bound: -2.5, lower: -4.5)"),
            Some(-3.5)
        );
        assert_eq!(parse_score("B+12"), Some(12.0));
        assert_eq!(parse_score("0"), Some(0.0));
        assert_eq!(parse_score("W+R"), None);
        assert_eq!(parse_score("B+inf"), None);
        assert_eq!(parse_genmove("resign", 9), Some(GoMove::Resign));
        assert_eq!(parse_genmove("pass", 9), Some(GoMove::Pass));
        assert_eq!(parse_genmove("E5", 9), Some(GoMove::Play(Point::new(4, 4))));
        assert_eq!(parse_genmove("E10", 9), None);
    }

    #[test]
    fn analysis_lines_read_as_blacks_view() {
        let line = "info move Q16 visits 120 winrate 5523 scoreLead 1.5 pv Q16 D4 info move D4 winrate 9000";
        let ev = parse_analysis(line, Color::White, 19, "lz-analyze");
        assert_eq!(ev.best, Some(GoMove::Play(Point::new(15, 3))));
        assert!((ev.black_winrate.unwrap() - 0.4477).abs() < 1e-9);
        assert_eq!(ev.black_lead, Some(-1.5));
        let kata = parse_analysis(
            "info move pass winrate 0.25 scoreMean -3",
            Color::Black,
            9,
            "k",
        );
        assert_eq!(
            (kata.best, kata.black_winrate, kata.black_lead),
            (Some(GoMove::Pass), Some(0.25), Some(-3.0))
        );
        assert_eq!(
            parse_vertex_list(" D4 q16\nK10 ", 19),
            Ok(vec![Point::new(3, 15), Point::new(15, 3), Point::new(9, 9)])
        );
        assert_eq!(parse_vertex_list("D4 Z99", 19), Err("Z99"));
    }

    /// Found by the `engine_lines` fuzz target: a win rate or lead out of
    /// range (negative, above 10000, NaN, infinite) was kept, and `gamerec
    /// sgf analyze` wrote it into the game (`V[NaN]`, "Black wins -452 %").
    #[test]
    fn analysis_values_out_of_range_are_no_evaluation() {
        for line in [
            "info move D4 winrate -4.5233 scoreLead NaN",
            "info move D4 winrate 10000.5 scoreLead inf",
            "info move D4 winrate NaN scoreMean -inf",
        ] {
            let ev = parse_analysis(line, Color::Black, 19, "lz-analyze");
            assert_eq!((ev.black_winrate, ev.black_lead), (None, None), "{line}");
            assert_eq!(ev.best, Some(GoMove::Play(Point::new(3, 15))));
        }
    }

    #[test]
    fn specs_parse() {
        let s: GoEngineSpec = "gtp:gnugo --mode gtp|level 1|".parse().unwrap();
        match s {
            GoEngineSpec::Gtp(cmd, init) => {
                assert_eq!(cmd.display(), "gnugo --mode gtp");
                assert_eq!(init, ["level 1"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            "random".parse::<GoEngineSpec>().unwrap(),
            GoEngineSpec::Random(1)
        );
        assert_eq!(
            "weak:7".parse::<GoEngineSpec>().unwrap(),
            GoEngineSpec::Weak(7)
        );
        for bad in ["gtp:", "uci:x", "random:x", "", "gtp:gnugo|level 1\nquit"] {
            assert!(bad.parse::<GoEngineSpec>().is_err(), "{bad}");
        }
        assert!(GoEngineSpec::looks_like("gtp:x") && !GoEngineSpec::looks_like("uci:x"));
    }

    /// Random self-play ends (the players never fill their own eyes) with
    /// legal moves only, and is the same for the same seed.
    #[test]
    fn builtin_players_finish_legal_games() {
        for weak in [false, true] {
            let mut runs = Vec::new();
            for _ in 0..2 {
                let setup = GoGameSetup {
                    size: 9,
                    komi: 7.0,
                    black_stones: vec![],
                    white_stones: vec![],
                    rules: None,
                };
                let mut a = BuiltinGo::new(weak, 3);
                let mut b = BuiltinGo::new(weak, 4);
                a.new_game(&setup).unwrap();
                b.new_game(&setup).unwrap();
                let mut referee = Board::new(9, 9);
                let mut moves = Vec::new();
                let mut passes = 0;
                let mut color = Color::Black;
                while passes < 2 && moves.len() < 1000 {
                    let (me, other) = if color == Color::Black {
                        (&mut a, &mut b)
                    } else {
                        (&mut b, &mut a)
                    };
                    let m = me.genmove(color, None).unwrap();
                    let p = match m {
                        GoMove::Play(p) => {
                            assert_eq!(referee.check(color, p), Ok(()), "{moves:?}");
                            passes = 0;
                            Some(p)
                        }
                        GoMove::Pass => {
                            passes += 1;
                            None
                        }
                        GoMove::Resign => panic!("resigned"),
                    };
                    referee.play(color, p);
                    other.play(color, p).unwrap();
                    moves.push(m);
                    color = color.opponent();
                }
                assert_eq!(passes, 2, "the game ended by passes");
                runs.push(moves);
            }
            assert_eq!(runs[0], runs[1]);
        }
    }
}
