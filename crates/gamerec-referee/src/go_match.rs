//! `gamerec match` for Go: GTP (or built-in) engines play a schedule of
//! games, with the chess match's pairings, colour-reversed game pairs,
//! statistics and SPRT ([`crate::match_runner`], [`crate::stats`]).
//!
//! - [`GoMatchConfig`] is the whole match, saved as `match.json` (with
//!   `"game": "go"`) in the match directory; `--resume DIR` plays the games
//!   whose `games/game-NNNN.sgf` is missing.
//! - Each game starts fresh engine processes, tells them board size, komi,
//!   rules, handicap and the opening (setup stones and moves of the main
//!   line of an SGF game), the time control (`time_settings` or
//!   `kgs-time_settings`) and before each move `time_left`.
//! - A game ends by resignation, two passes in a row (then scored: dead
//!   stones from the engines' `final_status_list dead`, counted by
//!   [`gamerec::sgf::score`] by area or territory as the rules say), a
//!   loss on time, an illegal move or an engine failure (forfeit), or the
//!   move limit (scored as it stands).
//! - Each game is written as SGF with `BL`/`WL` (and `OB`/`OW` in
//!   byo-yomi) after every move; `games.sgf` collects them in order.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gamerec::sgf::go::{Board, handicap_points};
use gamerec::sgf::score::{Method, Outcome, score_with_status};
use gamerec::sgf::{Color, Point, Prop, Value};
use gamerec_engine::gtp::{GoEngine, GoEngineSpec, GoGameSetup, GoMove, GoTime};
use serde::{Deserialize, Serialize};

use crate::event::EventError;
use crate::match_runner::{
    MatchEngine, PairingTally, ReportFile, SplitMix64, Tournament, live_line, report_text,
};
use crate::stats::{Sprt, SprtDecision};

/// A Go time control: main time then byo-yomi, Canadian (`stones` per
/// period) or Japanese (`periods` of one move each); no byo-yomi is
/// sudden death.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GoTimeControl {
    /// Main time in milliseconds.
    pub main_ms: u64,
    /// Byo-yomi period in milliseconds (0: none).
    pub byo_yomi_ms: u64,
    /// Canadian: stones per period.
    pub stones: u32,
    /// Japanese: periods.
    pub periods: u32,
}

impl GoTimeControl {
    /// Reads `MAIN` (sudden death), `MAIN+BYOxPERIODS` (Japanese) or
    /// `MAIN+BYO/STONES` (Canadian), times in seconds: `60`, `30+5x3`,
    /// `60+10/5`.
    pub fn parse(s: &str) -> Result<GoTimeControl, String> {
        let secs = |t: &str| -> Result<u64, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("`{s}`: `{t}` is not a number of seconds"))?;
            if !(0.0..=1e7).contains(&v) {
                return Err(format!("`{s}`: {t} seconds is out of range"));
            }
            Ok((v * 1000.0).round() as u64)
        };
        let count = |t: &str| -> Result<u32, String> {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| format!("`{s}`: `{t}` is not a count from 1 to 1000"))
        };
        let (main, byo) = match s.split_once('+') {
            Some((m, b)) => (m, Some(b)),
            None => (s, None),
        };
        let mut tc = GoTimeControl {
            main_ms: secs(main)?,
            ..GoTimeControl::default()
        };
        match byo {
            None => {}
            Some(b) => {
                if let Some((t, n)) = b.split_once(['x', 'X']) {
                    tc.byo_yomi_ms = secs(t)?;
                    tc.periods = count(n)?;
                } else if let Some((t, n)) = b.split_once('/') {
                    tc.byo_yomi_ms = secs(t)?;
                    tc.stones = count(n)?;
                } else {
                    return Err(format!(
                        "`{s}`: byo-yomi is BYOxPERIODS (Japanese) or BYO/STONES (Canadian)"
                    ));
                }
                if tc.byo_yomi_ms == 0 {
                    return Err(format!("`{s}`: a byo-yomi period cannot be 0 s"));
                }
            }
        }
        if tc.main_ms == 0 && tc.byo_yomi_ms == 0 {
            return Err(format!("`{s}`: no time at all"));
        }
        Ok(tc)
    }

    /// The SGF `OT` text.
    pub fn overtime(&self) -> Option<String> {
        let byo = self.byo_yomi_ms as f64 / 1000.0;
        if self.periods > 0 {
            Some(format!("{}x{byo} byo-yomi", self.periods))
        } else if self.stones > 0 {
            Some(format!("{}/{byo} Canadian", self.stones))
        } else {
            None
        }
    }

    fn gtp(&self) -> GoTime {
        GoTime {
            main: Duration::from_millis(self.main_ms),
            byo_yomi: Duration::from_millis(self.byo_yomi_ms),
            stones: self.stones,
            periods: self.periods,
        }
    }
}

/// One player's clock in a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoClock {
    tc: GoTimeControl,
    /// Main time left, or time left in the current period (ms, may be
    /// below 0 by the margin).
    left_ms: i64,
    /// In byo-yomi: stones (Canadian) or periods (Japanese) left.
    byo: Option<u32>,
}

impl GoClock {
    /// A clock at the start of a game.
    pub fn new(tc: GoTimeControl) -> GoClock {
        let mut c = GoClock {
            tc,
            left_ms: tc.main_ms as i64,
            byo: None,
        };
        if tc.main_ms == 0 {
            c.enter_byo_yomi();
        }
        c
    }

    fn enter_byo_yomi(&mut self) {
        self.left_ms = self.tc.byo_yomi_ms as i64;
        self.byo = Some(if self.tc.periods > 0 {
            self.tc.periods
        } else {
            self.tc.stones
        });
    }

    fn has_byo_yomi(&self) -> bool {
        self.tc.byo_yomi_ms > 0
    }

    /// What GTP `time_left` says: time and stones/periods (0 in main time).
    pub fn time_left(&self) -> (Duration, u32) {
        (
            Duration::from_millis(self.left_ms.max(0) as u64),
            self.byo.unwrap_or(0),
        )
    }

    /// The longest a move may take now before the flag falls.
    pub fn available(&self) -> Duration {
        let mut ms = self.left_ms.max(0) as u64;
        if self.byo.is_none() && self.has_byo_yomi() {
            // Main time, then (at least) one byo-yomi period.
            ms += self.tc.byo_yomi_ms * u64::from(self.tc.periods.max(1));
        } else if let Some(n) = self.byo
            && self.tc.periods > 0
        {
            ms = self.tc.byo_yomi_ms * u64::from(n);
        }
        Duration::from_millis(ms)
    }

    /// Charges a move that took `elapsed`; `false` when the flag fell
    /// (beyond `margin_ms`).
    pub fn charge(&mut self, elapsed: Duration, margin_ms: u64) -> bool {
        let mut spent = elapsed.as_millis().min(i64::MAX as u128) as i64;
        if self.byo.is_none() {
            if spent <= self.left_ms || !self.has_byo_yomi() {
                self.left_ms -= spent;
                return self.left_ms >= -(margin_ms as i64);
            }
            spent -= self.left_ms.max(0);
            self.enter_byo_yomi();
        }
        let n = self.byo.unwrap_or(0);
        if self.tc.periods > 0 {
            // Japanese: each whole period used up is lost; a move within
            // a period resets it.
            let period = self.tc.byo_yomi_ms as i64;
            let lost = (spent - margin_ms as i64).max(0) / period.max(1);
            let lost = u32::try_from(lost).unwrap_or(u32::MAX);
            if lost >= n {
                self.byo = Some(0);
                self.left_ms = 0;
                return false;
            }
            self.byo = Some(n - lost);
            self.left_ms = period;
            true
        } else {
            // Canadian: `stones` moves within the period.
            self.left_ms -= spent;
            if self.left_ms < -(margin_ms as i64) {
                return false;
            }
            if n <= 1 {
                self.enter_byo_yomi();
            } else {
                self.byo = Some(n - 1);
            }
            true
        }
    }
}

/// Openings: the main lines of the games of an SGF file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoOpenings {
    /// The SGF file (absolute path).
    pub file: PathBuf,
    /// Moves of each game's main line to play (default: all).
    pub plies: Option<u32>,
    /// Shuffle the openings with the match's seed.
    pub random: bool,
}

/// A whole Go match, as saved in `match.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoMatchConfig {
    /// Always `go` (tells a Go match directory from a chess one).
    pub game: String,
    /// The engines: `gtp:CMD|init...`, `random[:SEED]`, `weak[:SEED]`.
    pub engines: Vec<MatchEngine>,
    /// Pairings for more than two engines.
    pub tournament: Tournament,
    /// Games per pairing (pairs share an opening, colours reversed).
    pub games: u32,
    /// Board size.
    pub size: u32,
    /// Komi.
    pub komi: f64,
    /// Rules (`RU`): Japanese/Korean count territory, others area.
    pub rules: String,
    /// Handicap stones (0, or 2..=9 on 9x9/13x13/19x19), on the standard points.
    pub handicap: u32,
    /// Time control.
    pub time: GoTimeControl,
    /// Milliseconds a clock may run past zero before its flag falls.
    pub margin_ms: u64,
    /// Openings, if any.
    pub openings: Option<GoOpenings>,
    /// Games at once.
    pub concurrency: usize,
    /// SPRT (two engines only).
    pub sprt: Option<Sprt>,
    /// SGF `EV`.
    pub event: String,
    /// Seed of opening order and built-in players.
    pub seed: u64,
    /// A game reaching this many moves is scored as it stands (0: 3 x
    /// size x size).
    pub max_moves: u32,
}

impl GoMatchConfig {
    /// Checks what the command line cannot.
    pub fn validate(&self) -> Result<(), EventError> {
        if self.engines.len() < 2 {
            return Err(EventError("a match needs at least two engines".into()));
        }
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(EventError("engine names must be unique".into()));
        }
        for e in &self.engines {
            e.spec
                .parse::<GoEngineSpec>()
                .map_err(|err| EventError(err.to_string()))?;
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            return Err(EventError("--sprt needs exactly two engines".into()));
        }
        if self.games == 0 {
            return Err(EventError("--games must be at least 1".into()));
        }
        crate::match_runner::check_game_count(
            self.games,
            self.tournament.pairing_count(self.engines.len()),
        )?;
        if !(2..=gamerec_engine::gtp::MAX_GTP_SIZE).contains(&self.size) {
            return Err(EventError(format!(
                "--size {}: GTP boards are 2 to 25",
                self.size
            )));
        }
        if !self.komi.is_finite() || self.komi.abs() > 1000.0 {
            return Err(EventError("--komi must be a number within ±1000".into()));
        }
        if self.handicap == 1 || self.handicap > 9 {
            return Err(EventError("--handicap must be 0 or 2 to 9".into()));
        }
        if self.handicap >= 2 && handicap_points(self.size, self.handicap).is_none() {
            return Err(EventError(format!(
                "no standard handicap of {} on {}x{}",
                self.handicap, self.size, self.size
            )));
        }
        Ok(())
    }

    fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.engines.len();
        match self.tournament {
            Tournament::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Tournament::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }

    fn method(&self) -> Method {
        let r = self.rules.to_ascii_lowercase();
        if r.contains("japan") || r.contains("korea") {
            Method::Territory
        } else {
            Method::Area
        }
    }

    fn move_limit(&self) -> usize {
        if self.max_moves == 0 {
            3 * (self.size * self.size) as usize
        } else {
            self.max_moves as usize
        }
    }
}

/// One game of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoScheduled {
    /// Game number (1-based).
    pub number: u32,
    /// Round (one per game pair).
    pub round: u32,
    /// Index into the pairings.
    pub pairing: usize,
    /// Black's engine index.
    pub black: usize,
    /// White's engine index.
    pub white: usize,
    /// Whether the pairing's first engine has Black.
    pub first_is_black: bool,
    /// The other game of its pair.
    pub partner: Option<u32>,
    /// The opening's index, if any.
    pub opening: Option<usize>,
}

/// An opening: setup stones and moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoOpening {
    /// Black setup stones.
    pub black: Vec<Point>,
    /// White setup stones.
    pub white: Vec<Point>,
    /// Moves (`None`: pass).
    pub moves: Vec<(Color, Option<Point>)>,
}

fn value_points(v: &[Value], out: &mut Vec<Point>) {
    for &v in v {
        match v {
            Value::Point(p) => out.push(p),
            Value::Rect(a, b) => {
                for y in a.y.min(b.y)..=a.y.max(b.y) {
                    for x in a.x.min(b.x)..=a.x.max(b.x) {
                        out.push(Point::new(x, y));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Reads the openings of an SGF file: each game's root setup and the
/// moves of its main line (cut to `plies`), checked on a `size` board.
pub fn load_openings(
    path: &Path,
    size: u32,
    plies: Option<u32>,
) -> Result<Vec<GoOpening>, EventError> {
    let bytes = std::fs::read(path).map_err(|e| EventError(format!("{}: {e}", path.display())))?;
    let parsed = gamerec::sgf::parse(&bytes, &gamerec::sgf::ParseOptions::default());
    let coll = &parsed.collection;
    let mut out = Vec::new();
    for (g, &root) in coll.roots.iter().enumerate() {
        let info = coll.game_info(root);
        let where_ = || format!("{}: game {}", path.display(), g + 1);
        if info.gm != 1 || info.width != size || info.height != size {
            return Err(EventError(format!(
                "{}: not a Go game on {size}x{size}",
                where_()
            )));
        }
        let mut o = GoOpening::default();
        let mut board = Board::new(size, size);
        for node in coll.main_line(root) {
            if let Some(p) = coll.get(node, Prop::AB) {
                value_points(p.values(), &mut o.black);
            }
            if let Some(p) = coll.get(node, Prop::AW) {
                value_points(p.values(), &mut o.white);
            }
            if node == root {
                let setup: Vec<(Point, Option<Color>)> = o
                    .black
                    .iter()
                    .map(|&p| (p, Some(Color::Black)))
                    .chain(o.white.iter().map(|&p| (p, Some(Color::White))))
                    .collect();
                board.setup(&setup).map_err(|p| {
                    EventError(format!("{}: setup stone {p:?} off the board", where_()))
                })?;
            }
            for (prop, color) in [(Prop::B, Color::Black), (Prop::W, Color::White)] {
                if let Some(v) = coll.get(node, prop) {
                    if plies.is_some_and(|n| o.moves.len() >= n as usize) {
                        continue;
                    }
                    let point = match v.value() {
                        Value::Point(p) => Some(p),
                        _ => None,
                    };
                    if let Some(p) = point
                        && let Err(e) = board.check(color, p)
                    {
                        return Err(EventError(format!(
                            "{}: move {} is illegal: {e}",
                            where_(),
                            o.moves.len() + 1
                        )));
                    }
                    board.play(color, point);
                    o.moves.push((color, point));
                }
            }
        }
        out.push(o);
    }
    if out.is_empty() {
        return Err(EventError(format!("{}: no games", path.display())));
    }
    Ok(out)
}

/// Every game of the match in order: game pairs round by round.
pub fn schedule(config: &GoMatchConfig, openings: usize) -> Vec<GoScheduled> {
    let pairings = config.pairings();
    let rounds = config.games.div_ceil(2);
    let mut order: Vec<usize> = (0..openings).collect();
    if config.openings.as_ref().is_some_and(|o| o.random) {
        let mut rng = SplitMix64::new(config.seed);
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let mut out: Vec<GoScheduled> = Vec::new();
    for round in 0..rounds {
        let opening = (openings > 0).then(|| order[round as usize % openings]);
        for (p, &(a, b)) in pairings.iter().enumerate() {
            let both = 2 * round + 2 <= config.games;
            let first_number = out.len() as u32 + 1;
            for (g, first_is_black) in [true, false].into_iter().enumerate() {
                if g == 1 && !both {
                    break;
                }
                let number = out.len() as u32 + 1;
                let (black, white) = if first_is_black { (a, b) } else { (b, a) };
                out.push(GoScheduled {
                    number,
                    round: round + 1,
                    pairing: p,
                    black,
                    white,
                    first_is_black,
                    partner: both.then_some(if g == 0 { number + 1 } else { first_number }),
                    opening,
                });
            }
        }
    }
    out
}

/// One move as played, with the mover's clock after it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedMove {
    /// The mover.
    pub color: Color,
    /// The point (`None`: pass).
    pub point: Option<Point>,
    /// Time the move took.
    pub elapsed: Duration,
    /// The mover's clock after the move: time left (main or period).
    pub left: Duration,
    /// Stones or periods left in byo-yomi (`None`: in main time).
    pub byo: Option<u32>,
}

/// A finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct GoGameRecord {
    /// The schedule entry.
    pub game: GoScheduled,
    /// Player names.
    pub black: String,
    /// Player names.
    pub white: String,
    /// The opening played.
    pub opening: GoOpening,
    /// Moves after the opening.
    pub moves: Vec<PlayedMove>,
    /// The result.
    pub outcome: Outcome,
    /// Why the game ended, for the SGF comment.
    pub reason: String,
    /// Dead stones used by the count.
    pub dead: Vec<Point>,
}

impl GoGameRecord {
    /// Half points (0, 1, 2) of the pairing's first engine.
    fn first_half_points(&self) -> u8 {
        let first = if self.game.first_is_black {
            Color::Black
        } else {
            Color::White
        };
        match self.outcome.winner() {
            Some(c) if c == first => 2,
            Some(_) => 0,
            None => 1,
        }
    }
}

fn sgf_text(s: &str) -> String {
    let mut buf = String::new();
    gamerec::sgf::writer::escape(&mut buf, s, false);
    buf
}

fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    format!("{}.{:03}", ms / 1000, ms % 1000)
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_owned()
}

/// The game as an SGF game tree.
pub fn game_sgf(config: &GoMatchConfig, r: &GoGameRecord) -> String {
    let size = config.size;
    let mut s = String::from("(;GM[1]FF[4]CA[UTF-8]AP[gamerec]");
    s.push_str(&format!("SZ[{size}]KM[{}]", config.komi));
    s.push_str(&format!("RU[{}]", sgf_text(&config.rules)));
    if config.handicap >= 2 {
        s.push_str(&format!("HA[{}]", config.handicap));
    }
    s.push_str(&format!(
        "PB[{}]PW[{}]EV[{}]RO[{}]GN[game {}]",
        sgf_text(&r.black),
        sgf_text(&r.white),
        sgf_text(&config.event),
        r.game.round,
        r.game.number
    ));
    s.push_str(&format!(
        "TM[{}]",
        seconds(Duration::from_millis(config.time.main_ms))
    ));
    if let Some(ot) = config.time.overtime() {
        s.push_str(&format!("OT[{}]", sgf_text(&ot)));
    }
    s.push_str(&format!("RE[{}]", r.outcome));
    let list = |ps: &[Point]| -> String {
        ps.iter()
            .map(|p| {
                let l = p.letters();
                format!("[{}{}]", l[0] as char, l[1] as char)
            })
            .collect()
    };
    if !r.opening.black.is_empty() {
        s.push_str(&format!("AB{}", list(&r.opening.black)));
    }
    if !r.opening.white.is_empty() {
        s.push_str(&format!("AW{}", list(&r.opening.white)));
    }
    let mv = |c: Color, p: Option<Point>| -> String {
        match p {
            Some(p) => {
                let l = p.letters();
                format!("{}[{}{}]", c.letter(), l[0] as char, l[1] as char)
            }
            None => format!("{}[]", c.letter()),
        }
    };
    for (i, &(c, p)) in r.opening.moves.iter().enumerate() {
        s.push_str(&format!("\n;{}", mv(c, p)));
        if i + 1 == r.opening.moves.len() {
            s.push_str("C[end of the opening]");
        }
    }
    for m in &r.moves {
        let (tl, ot) = match m.color {
            Color::Black => ("BL", "OB"),
            Color::White => ("WL", "OW"),
        };
        s.push_str(&format!(
            "\n;{}{tl}[{}]",
            mv(m.color, m.point),
            seconds(m.left)
        ));
        if let Some(n) = m.byo {
            s.push_str(&format!("{ot}[{n}]"));
        }
    }
    let mut comment = r.reason.clone();
    if !r.dead.is_empty() {
        comment.push_str("; dead stones marked");
    }
    s.push_str(&format!("C[{}]", sgf_text(&comment)));
    if !r.dead.is_empty() {
        s.push_str(&format!("MA{}", list(&r.dead)));
    }
    s.push_str(")\n");
    s
}

/// Plays one game with fresh engines; never fails (an engine that cannot
/// start or breaks loses by forfeit).
pub fn play_game(config: &GoMatchConfig, game: &GoScheduled, opening: &GoOpening) -> GoGameRecord {
    let specs: Vec<GoEngineSpec> = config
        .engines
        .iter()
        .map(|e| e.spec.parse().unwrap_or(GoEngineSpec::Random(0)))
        .collect();
    let mut record = GoGameRecord {
        game: game.clone(),
        black: config.engines[game.black].name.clone(),
        white: config.engines[game.white].name.clone(),
        opening: opening.clone(),
        moves: Vec::new(),
        outcome: Outcome::Void,
        reason: String::new(),
        dead: Vec::new(),
    };
    let salt = config.seed ^ u64::from(game.number).wrapping_mul(0xA24B_AED4_963E_E407);
    let mut handicap = Vec::new();
    if config.handicap >= 2 {
        handicap = handicap_points(config.size, config.handicap).unwrap_or_default();
    }
    let mut setup = GoGameSetup {
        size: config.size,
        komi: config.komi,
        black_stones: handicap.clone(),
        white_stones: opening.white.clone(),
        rules: Some(config.rules.clone()),
    };
    setup.black_stones.extend(&opening.black);
    record.opening.black = setup.black_stones.clone();
    let mut engines: Vec<Box<dyn GoEngine>> = Vec::new();
    for (i, color) in [(game.black, Color::Black), (game.white, Color::White)] {
        let started = specs[i].start(salt).and_then(|mut e| {
            e.new_game(&setup)?;
            for &(c, p) in &opening.moves {
                e.play(c, p)?;
            }
            e.time_settings(&config.time.gtp())?;
            Ok(e)
        });
        match started {
            Ok(e) => engines.push(e),
            Err(e) => {
                record.outcome = Outcome::Forfeit(color.opponent());
                record.reason = format!("{} forfeits: {e}", config.engines[i].name);
                return record;
            }
        }
    }
    let mut board = Board::new(config.size, config.size);
    let stones: Vec<(Point, Option<Color>)> = setup
        .black_stones
        .iter()
        .map(|&p| (p, Some(Color::Black)))
        .chain(setup.white_stones.iter().map(|&p| (p, Some(Color::White))))
        .collect();
    let _off_board_checked_by_validate = board.setup(&stones);
    let mut to_move = if setup.black_stones.len() >= 2 && opening.moves.is_empty() {
        Color::White
    } else {
        Color::Black
    };
    for &(c, p) in &opening.moves {
        board.play(c, p);
        to_move = c.opponent();
    }
    let mut clocks = [GoClock::new(config.time), GoClock::new(config.time)];
    let idx = |c: Color| usize::from(c == Color::White);
    let mut passes = 0;
    let limit = config.move_limit();
    let end = loop {
        if record.moves.len() >= limit {
            break None;
        }
        let me = idx(to_move);
        let name = if to_move == Color::Black {
            &record.black
        } else {
            &record.white
        };
        let (left, n) = clocks[me].time_left();
        if let Err(e) = engines[me].time_left(to_move, left, n) {
            break Some((
                Outcome::Forfeit(to_move.opponent()),
                format!("{name} forfeits: {e}"),
            ));
        }
        let budget = clocks[me].available() + Duration::from_millis(config.margin_ms + 1000);
        let started = Instant::now();
        let answer = engines[me].genmove(to_move, Some(budget));
        let elapsed = started.elapsed();
        let answer = match answer {
            Ok(a) => a,
            Err(gamerec_engine::EngineError::Timeout { .. }) => {
                break Some((
                    Outcome::Time(to_move.opponent()),
                    format!("{name} lost on time (no move)"),
                ));
            }
            Err(e) => {
                break Some((
                    Outcome::Forfeit(to_move.opponent()),
                    format!("{name} forfeits: {e}"),
                ));
            }
        };
        if !clocks[me].charge(elapsed, config.margin_ms) {
            break Some((
                Outcome::Time(to_move.opponent()),
                format!("{name} lost on time ({} s for the move)", seconds(elapsed)),
            ));
        }
        let point = match answer {
            GoMove::Resign => {
                break Some((
                    Outcome::Resign(to_move.opponent()),
                    format!("{name} resigned"),
                ));
            }
            GoMove::Pass => None,
            GoMove::Play(p) => Some(p),
        };
        if let Some(p) = point
            && let Err(e) = board.check(to_move, p)
        {
            let v = gamerec_engine::gtp::vertex(p, config.size).unwrap_or_default();
            break Some((
                Outcome::Forfeit(to_move.opponent()),
                format!("{name} played the illegal move {v}: {e}"),
            ));
        }
        if let Err(e) = engines[1 - me].play(to_move, point) {
            let other = if to_move == Color::Black {
                &record.white
            } else {
                &record.black
            };
            break Some((
                Outcome::Forfeit(to_move),
                format!("{other} forfeits: it refused {name}'s move: {e}"),
            ));
        }
        board.play(to_move, point);
        let (left, byo) = (clocks[me].time_left().0, clocks[me].byo);
        record.moves.push(PlayedMove {
            color: to_move,
            point,
            elapsed,
            left,
            byo,
        });
        passes = if point.is_none() { passes + 1 } else { 0 };
        to_move = to_move.opponent();
        if passes == 2 {
            break None;
        }
    };
    match end {
        Some((outcome, reason)) => {
            record.outcome = outcome;
            record.reason = reason;
        }
        None => {
            // Scored: dead stones from the first engine that can say, and
            // by territory its stones in seki (their eyes are no one's).
            let mut dead = None;
            let mut seki = Vec::new();
            for e in engines.iter_mut() {
                if let Ok(Some(d)) = e.dead_stones() {
                    dead = Some(d);
                    if config.method() == Method::Territory
                        && let Ok(Some(s)) = e.seki_stones()
                    {
                        seki = s;
                    }
                    break;
                }
            }
            let dead = dead.unwrap_or_default();
            let score = score_with_status(&board, &dead, &seki, config.method(), config.komi);
            record.outcome = score.outcome();
            record.reason = format!(
                "{}: {score}",
                if passes == 2 {
                    "two passes"
                } else {
                    "move limit reached"
                }
            );
            record.dead = dead;
        }
    }
    for e in engines.iter_mut() {
        let _closing = e.quit();
    }
    record
}

/// Game-pair aware counts of the match (the chess tally's rules).
#[derive(Debug, Clone, Default)]
pub struct GoTally {
    /// Per pairing.
    pub pairings: Vec<PairingTally>,
    results: HashMap<u32, u8>,
}

impl GoTally {
    /// An empty tally.
    pub fn new(config: &GoMatchConfig) -> GoTally {
        GoTally {
            pairings: config
                .pairings()
                .into_iter()
                .map(|(a, b)| PairingTally {
                    first: config.engines[a].name.clone(),
                    second: config.engines[b].name.clone(),
                    ..PairingTally::default()
                })
                .collect(),
            results: HashMap::new(),
        }
    }

    /// Counts a game once; `half` is the first engine's half points.
    pub fn add(&mut self, game: &GoScheduled, half: u8) -> bool {
        if self.results.contains_key(&game.number) {
            return false;
        }
        self.results.insert(game.number, half);
        let t = &mut self.pairings[game.pairing];
        t.trinomial.add(half);
        if let Some(partner) = game.partner
            && let Some(&other) = self.results.get(&partner)
        {
            t.pentanomial.add(half, other);
        }
        true
    }

    /// Games counted.
    pub fn games(&self) -> usize {
        self.results.len()
    }
}

/// How a Go match run ended.
#[derive(Debug, Clone)]
pub struct GoMatchOutcome {
    /// The match directory.
    pub dir: PathBuf,
    /// The final report text.
    pub report: String,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games with a result.
    pub finished: usize,
    /// The SPRT's decision, if any.
    pub decision: Option<SprtDecision>,
}

impl GoMatchOutcome {
    /// Whether every game was played or the SPRT decided.
    pub fn complete(&self) -> bool {
        self.finished == self.scheduled
            || matches!(self.decision, Some(SprtDecision::H0 | SprtDecision::H1))
    }
}

fn game_path(dir: &Path, n: u32) -> PathBuf {
    dir.join("games").join(format!("game-{n:04}.sgf"))
}

fn write_atomic(path: &Path, text: &str) -> Result<(), EventError> {
    let err = |e: std::io::Error| EventError(format!("{}: {e}", path.display()));
    let mut f = gamerec::io::AtomicFile::create(path).map_err(err)?;
    f.write_all(text.as_bytes()).map_err(err)?;
    f.commit().map_err(err)
}

/// The result stored in a finished game's SGF, for resuming.
fn saved_result(path: &Path) -> Option<Outcome> {
    let bytes = std::fs::read(path).ok()?;
    let parsed = gamerec::sgf::parse(&bytes, &gamerec::sgf::ParseOptions::default());
    let root = *parsed.collection.roots.first()?;
    Outcome::parse(parsed.collection.text_of(root, Prop::RE)?)
}

/// Reads `dir/match.json`.
pub fn load_config(dir: &Path) -> Result<GoMatchConfig, EventError> {
    let path = dir.join("match.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| EventError(format!("{}: {e}", path.display())))
}

/// Whether `dir` holds a Go match (its `match.json` says `"game": "go"`).
pub fn is_go_match_dir(dir: &Path) -> bool {
    load_config(dir).is_ok_and(|c| c.game == "go")
}

/// Plays (or resumes) `config` in `dir`; `live` prints the live line after
/// each game; `stop` ends the match early (games in flight are finished).
pub fn run(
    config: &GoMatchConfig,
    dir: &Path,
    live: bool,
    stop: Arc<AtomicBool>,
) -> Result<GoMatchOutcome, EventError> {
    config.validate()?;
    let io = |e: std::io::Error| EventError(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir.join("games")).map_err(io)?;
    let text = serde_json::to_string_pretty(config).map_err(|e| EventError(e.to_string()))?;
    write_atomic(&dir.join("match.json"), &(text + "\n"))?;
    let openings = match &config.openings {
        Some(o) => load_openings(&o.file, config.size, o.plies)?,
        None => Vec::new(),
    };
    let games = schedule(config, openings.len());
    let scheduled = games.len();
    let mut tally = GoTally::new(config);
    let first_half = |g: &GoScheduled, o: &Outcome| -> u8 {
        let first = if g.first_is_black {
            Color::Black
        } else {
            Color::White
        };
        match o.winner() {
            Some(c) if c == first => 2,
            Some(_) => 0,
            None => 1,
        }
    };
    let mut todo = Vec::new();
    for g in &games {
        match saved_result(&game_path(dir, g.number)) {
            Some(o) => {
                tally.add(g, first_half(g, &o));
            }
            None => todo.push(g.clone()),
        }
    }
    let sprt = config.sprt;
    let decided = |t: &GoTally| {
        sprt.and_then(|s| t.pairings.first().map(|p| s.decide(p.llr(&s))))
            .filter(|d| *d != SprtDecision::Continue)
    };
    let write_report = |t: &GoTally| -> Result<(), EventError> {
        let report = ReportFile::new(&config.event, scheduled, &t.pairings, sprt);
        write_atomic(&dir.join("report.json"), &(report.to_json() + "\n"))
    };
    write_report(&tally)?;
    if decided(&tally).is_some() {
        stop.store(true, Ordering::SeqCst);
    }
    let tally = Mutex::new(tally);
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<EventError>> = Mutex::new(None);
    let empty = GoOpening::default();
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, todo.len().max(1)) {
            scope.spawn(|| {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(g) = todo.get(i) else { return };
                    let opening = g.opening.and_then(|o| openings.get(o)).unwrap_or(&empty);
                    let record = play_game(config, g, opening);
                    let text = game_sgf(config, &record);
                    if let Err(e) = write_atomic(&game_path(dir, g.number), &text) {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                    let Ok(mut t) = tally.lock() else { return };
                    t.add(g, record.first_half_points());
                    if live {
                        gamerec::say!("{}", live_line(&t.pairings[g.pairing], sprt.as_ref()));
                    }
                    if let Err(e) = write_report(&t) {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        stop.store(true, Ordering::SeqCst);
                    }
                    if decided(&t).is_some() {
                        stop.store(true, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    // games.sgf: every finished game in order.
    let mut all = String::new();
    for g in &games {
        if let Ok(text) = std::fs::read_to_string(game_path(dir, g.number)) {
            all.push_str(&text);
        }
    }
    write_atomic(&dir.join("games.sgf"), &all)?;
    let t = tally
        .into_inner()
        .map_err(|_| EventError("internal: lock".into()))?;
    write_report(&t)?;
    Ok(GoMatchOutcome {
        dir: dir.to_path_buf(),
        report: report_text(&t.pairings, sprt.as_ref(), scheduled),
        scheduled,
        finished: t.games(),
        decision: decided(&t),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        let tc = GoTimeControl::parse("30+5x3").unwrap();
        assert_eq!(
            (tc.main_ms, tc.byo_yomi_ms, tc.periods, tc.stones),
            (30_000, 5000, 3, 0)
        );
        let tc = GoTimeControl::parse("60+10/5").unwrap();
        assert_eq!(
            (tc.main_ms, tc.byo_yomi_ms, tc.periods, tc.stones),
            (60_000, 10_000, 0, 5)
        );
        assert_eq!(GoTimeControl::parse("0.5").unwrap().main_ms, 500);
        for bad in ["", "x", "0", "10+5", "10+0x3", "10+5x0", "-1", "1e9"] {
            assert!(GoTimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn canadian_clock_resets_after_its_stones() {
        let mut c = GoClock::new(GoTimeControl::parse("1+2/2").unwrap());
        let ms = Duration::from_millis;
        assert!(c.charge(ms(400), 0));
        assert_eq!(c.time_left(), (ms(600), 0));
        // 900 ms: 600 of main, 300 into the first period (one stone played).
        assert!(c.charge(ms(900), 0));
        assert_eq!(c.time_left(), (ms(1700), 1));
        // Second stone: the period starts again.
        assert!(c.charge(ms(1000), 0));
        assert_eq!(c.time_left(), (ms(2000), 2));
        assert!(!c.charge(ms(2100), 50));
    }

    #[test]
    fn japanese_clock_loses_periods() {
        let mut c = GoClock::new(GoTimeControl::parse("0+1x3").unwrap());
        let ms = Duration::from_millis;
        assert_eq!(c.time_left(), (ms(1000), 3));
        assert_eq!(c.available(), ms(3000));
        assert!(c.charge(ms(900), 0));
        assert_eq!(c.time_left(), (ms(1000), 3));
        assert!(c.charge(ms(2500), 0));
        assert_eq!(c.time_left(), (ms(1000), 1));
        assert!(!c.charge(ms(1200), 100));
        let mut sudden = GoClock::new(GoTimeControl::parse("1").unwrap());
        assert!(sudden.charge(ms(1040), 50));
        assert!(!sudden.charge(ms(20), 50));
    }
}
