//! `gamerec match`: an engine-testing runner built on the referee. The
//! match is an event (`director::run_event_with`) whose schedule, openings,
//! adjudication and statistics come from here:
//!
//! - [`MatchConfig`] is the whole match, saved as `match.json` in the match
//!   directory so `--resume DIR` replays the same schedule.
//! - [`schedule`]: every pairing (two engines, a round robin or a gauntlet)
//!   plays game pairs: one opening, colours reversed. Openings come from an
//!   EPD or PGN file (sequential or seeded random order, PGN lines cut to
//!   `plies`) or a Polyglot book (a weighted random walk of `plies`, at
//!   most [`MAX_BOOK_PLIES`], stopping before a move that repeats a
//!   position of the line); a game starts from the opening's position
//!   (SetUp/FEN in the PGN).
//! - [`Adjudication`]: resign, draw and maximum-moves rules over the
//!   engines' reported scores (EPD `ce` sent with each move).
//! - [`Tally`]: trinomial and pentanomial counts per pairing, each game
//!   counted once by number; [`report_text`] / [`live_line`] format them
//!   with [`crate::stats`].
//! - [`EventStream`]: the JSON Lines stream of the match.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gamerec::excerpt::excerpt;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position};

use crate::clock::{TimeControl, parse_time_control};
use crate::event::{EventError, load_openings};
use crate::game_rules::{GameState, Outcome};
use crate::game_runner::GameSpec;
use crate::stats::{
    Estimate, Pentanomial, Sprt, SprtDecision, Trinomial, pentanomial_estimate, trinomial_estimate,
};

/// One engine of a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchEngine {
    /// Player name (PGN White/Black).
    pub name: String,
    /// `builtin[:DEPTH]`, `uci:CMD|Name=Value...`, `xboard:CMD|Name=Value...`.
    pub spec: String,
}

/// An engine's own limits in a match (fastchess's per-engine `tc=`,
/// `nodes=`, `depth=`, `st=`): its clock runs `tc` instead of the match's,
/// and every `go` carries the nodes, depth and movetime. An engine with
/// nodes, depth or movetime and no `tc` of its own plays untimed (`-`): its
/// clock counts the time it takes and never flags.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineLimits {
    /// Its own time control (PGN TimeControl syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// Nodes per search (`go nodes N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Depth per search (`go depth D`, XBoard `sd D`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Milliseconds per move (`go movetime M`, XBoard `st`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
}

impl EngineLimits {
    /// No limit given.
    pub fn is_empty(&self) -> bool {
        *self == EngineLimits::default()
    }

    /// Whether every search is bounded by nodes, depth or movetime.
    pub fn is_fixed(&self) -> bool {
        self.nodes.is_some() || self.depth.is_some() || self.movetime_ms.is_some()
    }

    /// Reads `KEY=VALUE[,KEY=VALUE...]` with the keys `tc`, `nodes`,
    /// `depth` and `st` (seconds, fractions allowed), as fastchess spells
    /// them.
    pub fn parse(text: &str) -> Result<EngineLimits, String> {
        let mut limits = EngineLimits::default();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let shown = excerpt(item);
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{shown}`: expected KEY=VALUE (tc, nodes, depth, st)"))?;
            let (key, value) = (key.trim(), value.trim());
            let bad = || format!("`{shown}`: bad value");
            match key {
                "tc" => {
                    parse_time_control(value).map_err(|e| format!("`{shown}`: {e}"))?;
                    limits.tc = Some(value.to_owned());
                }
                "nodes" => {
                    limits.nodes = Some(value.parse().ok().filter(|&n| n > 0).ok_or_else(bad)?)
                }
                "depth" => {
                    limits.depth = Some(
                        value
                            .parse()
                            .ok()
                            .filter(|d| (1..=255).contains(d))
                            .ok_or_else(bad)?,
                    )
                }
                "st" => {
                    let secs: f64 = value.parse().map_err(|_| bad())?;
                    if !(0.001..=86_400.0).contains(&secs) {
                        return Err(bad());
                    }
                    limits.movetime_ms = Some((secs * 1000.0).round() as u64);
                }
                _ => return Err(format!("`{shown}`: unknown limit (tc, nodes, depth, st)")),
            }
        }
        Ok(limits)
    }

    /// Reads one engine's limits as `gamerec match --limits` gives them,
    /// `ENGINE:KEY=VALUE[,KEY=VALUE...]`, the engine named by its position
    /// in `names` (from 1) or by its name: its index and its limits.
    pub fn parse_for(given: &str, names: &[String]) -> Result<(usize, EngineLimits), String> {
        let shown = excerpt(given);
        let (who, what) = given
            .split_once(':')
            .ok_or_else(|| format!("--limits {shown}: expected ENGINE:KEY=VALUE,..."))?;
        let i = match who.trim().parse::<usize>() {
            Ok(n) if (1..=names.len()).contains(&n) => n - 1,
            _ => names.iter().position(|n| n == who.trim()).ok_or_else(|| {
                format!(
                    "--limits {shown}: no engine `{}` (give its position 1..{} or its name)",
                    excerpt(who),
                    names.len()
                )
            })?,
        };
        let limits = EngineLimits::parse(what).map_err(|e| format!("--limits {shown}: {e}"))?;
        Ok((i, limits))
    }
}

impl std::fmt::Display for EngineLimits {
    /// `tc=..,nodes=..,depth=..,st=..` (what was given).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(tc) = &self.tc {
            parts.push(format!("tc={tc}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("st={}", ms as f64 / 1000.0));
        }
        f.write_str(&parts.join(","))
    }
}

/// Who plays whom when there are more than two engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tournament {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays every other.
    Gauntlet,
}

impl Tournament {
    /// How many pairings `engines` engines make, worked out without listing
    /// them (a file naming 100,000 engines has 5 billion).
    pub fn pairing_count(self, engines: usize) -> usize {
        match self {
            Tournament::Gauntlet => engines.saturating_sub(1),
            Tournament::RoundRobin => engines.saturating_mul(engines.saturating_sub(1)) / 2,
        }
    }
}

/// The order openings are taken from an EPD or PGN file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// File order, from `start`.
    Sequential,
    /// A shuffle of the file, fixed by the match's seed.
    Random,
}

/// Where openings come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Openings {
    /// An `.epd`, `.pgn` or Polyglot `.bin` file (absolute path).
    pub file: PathBuf,
    /// Order (EPD/PGN).
    pub order: OpeningOrder,
    /// PGN lines are cut to this many plies; a book walk plays this many
    /// (default 8 for a book).
    pub plies: Option<u32>,
    /// The first opening used (1-based, EPD/PGN).
    pub start: u32,
}

/// Adjudication rules (all optional). Scores are the movers' own `ce`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// A side whose engine reports `-score` centipawns or worse on `moves`
    /// consecutive moves of its own loses: (moves, score).
    pub resign: Option<(u32, i32)>,
    /// From full move `from` on, `moves` consecutive moves of each side
    /// within `score` centipawns of 0 draw: (from, moves, score).
    pub draw: Option<(u32, u32, i32)>,
    /// A game reaching this many full moves (of its own, after the
    /// opening) is drawn.
    pub max_moves: Option<u32>,
}

impl Adjudication {
    /// Whether any rule is set.
    pub fn is_active(&self) -> bool {
        self.resign.is_some() || self.draw.is_some() || self.max_moves.is_some()
    }

    /// The verdict after the last move of `state`, if any.
    pub fn judge(&self, state: &GameState) -> Option<(Outcome, String)> {
        let played = state.played();
        let plies = played.len();
        if plies == 0 {
            return None;
        }
        let mover = if plies % 2 == 1 {
            state.start().turn()
        } else {
            !state.start().turn()
        };
        if let Some((moves, score)) = self.resign {
            let own: Vec<Option<i32>> = played
                .iter()
                .rev()
                .step_by(2)
                .take(moves as usize)
                .map(|p| p.engine.ce)
                .collect();
            if moves > 0
                && own.len() == moves as usize
                && own.iter().all(|ce| ce.is_some_and(|ce| ce <= -score))
            {
                return Some((
                    Outcome::Win(!mover),
                    format!(
                        "{mover} adjudicated lost: score -{score} cp or worse for {moves} moves"
                    ),
                ));
            }
        }
        if let Some((from, moves, score)) = self.draw {
            let fullmove = u32::try_from(plies / 2).unwrap_or(u32::MAX);
            let window = 2 * moves as usize;
            if fullmove >= from
                && moves > 0
                && plies >= window
                && played[plies - window..]
                    .iter()
                    .all(|p| p.engine.ce.is_some_and(|ce| ce.abs() <= score))
            {
                return Some((
                    Outcome::Draw,
                    format!("adjudicated draw: scores within {score} cp for {moves} moves"),
                ));
            }
        }
        if let Some(max) = self.max_moves
            && plies - state.book_plies() >= 2 * max as usize
        {
            return Some((
                Outcome::Draw,
                format!("adjudicated draw: {max} moves reached"),
            ));
        }
        None
    }
}

/// A whole match, as saved in `match.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The engines (two or more).
    pub engines: Vec<MatchEngine>,
    /// Pairings for more than two engines.
    pub tournament: Tournament,
    /// Games per pairing (pairs of games share an opening, colours reversed).
    pub games: u32,
    /// PGN TimeControl.
    pub time_control: String,
    /// Games at once.
    pub concurrency: usize,
    /// Openings, if any.
    pub openings: Option<Openings>,
    /// Adjudication rules.
    pub adjudication: Adjudication,
    /// SPRT (two engines only): stops the match once decided.
    pub sprt: Option<Sprt>,
    /// PGN Event.
    pub event: String,
    /// PGN Site.
    pub site: String,
    /// PGN Date.
    pub date: String,
    /// Whether the PGN carries engine data per move.
    pub engine_data: bool,
    /// Seed of random opening order and book walks.
    pub seed: u64,
    /// Milliseconds a clock may run past zero before its flag falls.
    #[serde(default)]
    pub margin_ms: u64,
    /// Engines ponder on the opponent's time (those that can: UCI).
    #[serde(default)]
    pub ponder: bool,
    /// Milliseconds between a game's end and its engines' next game.
    #[serde(default)]
    pub wait_ms: u64,
    /// The second game of a pair keeps the colours (fastchess `-noswap`).
    #[serde(default)]
    pub noswap: bool,
    /// The pairing's second engine has White in a pair's first game
    /// (fastchess `-reverse`).
    #[serde(default)]
    pub reverse: bool,
    /// Generated Chess960 start positions (`--variant chess960`,
    /// `--openings 960|dfrc`) instead of an openings file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frc: Option<Frc>,
    /// Each engine's own limits (`--limits`), in engine order; missing
    /// entries have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<EngineLimits>,
}

impl MatchConfig {
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
        if self.sprt.is_some() && self.engines.len() != 2 {
            return Err(EventError("--sprt needs exactly two engines".into()));
        }
        if self.games == 0 {
            return Err(EventError("--games must be at least 1".into()));
        }
        check_game_count(self.games, self.pairing_count())?;
        parse_time_control(&self.time_control).map_err(|e| EventError(e.to_string()))?;
        let controls = (0..self.engines.len())
            .map(|i| self.engine_control(i))
            .collect::<Result<Vec<_>, _>>()?;
        if controls.windows(2).any(|w| w[0] != w[1])
            && controls.iter().any(|c| c.to_string().starts_with('*'))
        {
            return Err(EventError(
                "a sandclock cannot be one engine's only: give every engine the same".into(),
            ));
        }
        Ok(())
    }

    /// The time control engine `i` plays: its own `tc`, else `-` when it
    /// has nodes, depth or movetime, else the match's.
    pub fn engine_control(&self, i: usize) -> Result<TimeControl, EventError> {
        let limits = self.engine_limits(i);
        let text = match &limits.tc {
            Some(tc) => tc.as_str(),
            None if limits.is_fixed() => "-",
            None => self.time_control.as_str(),
        };
        parse_time_control(text).map_err(|e| EventError(format!("{}: {e}", self.engines[i].name)))
    }

    /// Engine `i`'s own limits (empty when it has none).
    pub fn engine_limits(&self, i: usize) -> EngineLimits {
        self.limits.get(i).cloned().unwrap_or_default()
    }

    /// The time control as runs are compared by `match report`: the
    /// match's, then each engine's own limits (`NAME: tc=..,nodes=..`).
    pub fn limits_summary(&self) -> String {
        let mut out = self.time_control.clone();
        for (i, e) in self.engines.iter().enumerate() {
            let limits = self.engine_limits(i);
            if !limits.is_empty() {
                out.push_str(&format!("; {}: {limits}", e.name));
            }
        }
        out
    }

    /// How many [`MatchConfig::pairings`] there are (see
    /// [`Tournament::pairing_count`]).
    pub fn pairing_count(&self) -> usize {
        self.tournament.pairing_count(self.engines.len())
    }

    /// (first, second) engine indices of every pairing.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.engines.len();
        match self.tournament {
            Tournament::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Tournament::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }
}

/// SplitMix64: a small, fixed random generator (the schedule must be the
/// same on every run and every machine for `--resume` and merging).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift: no bias worth measuring for book weights.
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }
}

/// One scheduled game with its place in the statistics.
#[derive(Debug, Clone)]
pub struct Scheduled {
    /// The game.
    pub spec: GameSpec,
    /// Index into [`MatchConfig::pairings`].
    pub pairing: usize,
    /// Whether the pairing's first engine has White.
    pub first_is_white: bool,
    /// The other game of its pair (same opening, colours reversed).
    pub partner: Option<u32>,
}

/// Generated Chess960 start positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Frc {
    /// One of the 960 positions, the same for both sides.
    Chess960,
    /// Double Fischer Random: each side's back rank drawn on its own.
    Dfrc,
}

/// The back rank (files a to h, upper case) of Chess960 position `n`
/// (0..960, Scharnagl's numbering; 518 is the standard position).
pub fn chess960_rank(n: u32) -> [u8; 8] {
    let mut rank = [0u8; 8];
    let mut n = n % 960;
    rank[(2 * (n % 4) + 1) as usize] = b'B';
    n /= 4;
    rank[(2 * (n % 4)) as usize] = b'B';
    n /= 4;
    let empty = |rank: &[u8; 8], k: u32| {
        (0..8)
            .filter(|&f| rank[f] == 0)
            .nth(k as usize)
            .unwrap_or(0)
    };
    let q = empty(&rank, n % 6);
    rank[q] = b'Q';
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n as usize];
    let (na, nb) = (empty(&rank, a), empty(&rank, b));
    rank[na] = b'N';
    rank[nb] = b'N';
    for piece in [b'R', b'K', b'R'] {
        let f = empty(&rank, 0);
        rank[f] = piece;
    }
    rank
}

/// The start position with White's back rank `white` and Black's `black`
/// (Chess960 numbers), castling rights on both rooks of each side.
pub fn chess960_position(white: u32, black: u32) -> Chess {
    let (w, b) = (chess960_rank(white), chess960_rank(black));
    let rooks = |rank: &[u8; 8]| -> String {
        (0..8u8)
            .rev()
            .filter(|&f| rank[f as usize] == b'R')
            .map(|f| char::from(b'A' + f))
            .collect()
    };
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{} - 0 1",
        String::from_utf8_lossy(&b).to_lowercase(),
        String::from_utf8_lossy(&w),
        rooks(&w),
        rooks(&b).to_lowercase()
    );
    gamerec::fen::read_fen(&fen)
        .map(|(pos, _)| pos)
        .unwrap_or_default()
}

/// A start position and the opening (book) moves played from it, in SAN.
type Opening = (Chess, Arc<[String]>);

/// The most plies a Polyglot book walk plays, whatever `--openings-plies`
/// asks: every game plays its opening and sends it to the engines with
/// each move, and no book's opening is longer.
pub const MAX_BOOK_PLIES: u32 = 100;

/// Openings of `count` game pairs, which the games keep as moves marked
/// `book`; and notes for the operator (a book walk cut short).
fn opening_positions(
    config: &MatchConfig,
    count: usize,
) -> Result<(Vec<Opening>, Vec<String>), EventError> {
    let mut notes = Vec::new();
    if let Some(frc) = config.frc {
        let openings = (0..count)
            .map(|i| {
                let mut rng =
                    SplitMix64::new(config.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let white = rng.below(960) as u32;
                let black = match frc {
                    Frc::Chess960 => white,
                    Frc::Dfrc => rng.below(960) as u32,
                };
                (chess960_position(white, black), Arc::default())
            })
            .collect();
        return Ok((openings, notes));
    }
    let Some(openings) = &config.openings else {
        return Ok((vec![(Chess::default(), Arc::default()); count], notes));
    };
    let path = &openings.file;
    let is_book = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bin"));
    if is_book {
        let bytes =
            std::fs::read(path).map_err(|e| EventError(format!("{}: {e}", path.display())))?;
        let book = gamerec::polyglot::Book::read(&bytes)
            .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
        let asked = openings.plies.unwrap_or(8);
        if asked > MAX_BOOK_PLIES {
            notes.push(format!(
                "--openings-plies {asked}: a book walk plays at most {MAX_BOOK_PLIES} plies"
            ));
        }
        let plies = asked.min(MAX_BOOK_PLIES) as usize;
        let mut repeated = 0;
        let openings = (0..count)
            .map(|i| {
                let mut rng =
                    SplitMix64::new(config.seed ^ (i as u64).wrapping_mul(0xA24B_AED4_963E_E407));
                let mut pos = Chess::default();
                let mut seen = crate::game_rules::Repetitions::new(&pos);
                let mut sans = Vec::new();
                for mv in book.walk(&pos.clone(), plies, |n| rng.below(n)) {
                    let san = shakmaty::san::San::from_move(&pos, mv).to_string();
                    pos.play_unchecked(mv);
                    // A line that comes back to a position stops before
                    // it: no game starts with a repetition to claim.
                    if seen.count(&pos) > 0 {
                        repeated += 1;
                        break;
                    }
                    seen.push(&pos);
                    sans.push(san);
                }
                (Chess::default(), sans.into())
            })
            .collect();
        if repeated > 0 {
            notes.push(format!(
                "{repeated} of {count} book walks stopped before a move repeating a position"
            ));
        }
        return Ok((openings, notes));
    }
    let lines = load_openings(path)?;
    let mut positions = Vec::with_capacity(lines.len());
    for (start, moves) in lines {
        let mut pos = start.clone();
        let keep = openings.plies.map_or(moves.len(), |p| p as usize);
        let mut sans = Vec::new();
        for san in moves.iter().take(keep) {
            let mv = crate::game_rules::parse_move(&pos, san)
                .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
            sans.push(shakmaty::san::San::from_move(&pos, mv).to_string());
            pos.play_unchecked(mv);
        }
        if pos.is_game_over() {
            return Err(EventError(format!(
                "{}: an opening ends the game",
                path.display()
            )));
        }
        positions.push((start, sans.into()));
    }
    let mut order: Vec<usize> = (0..positions.len()).collect();
    if openings.order == OpeningOrder::Random {
        let mut rng = SplitMix64::new(config.seed);
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let first = openings.start.saturating_sub(1) as usize;
    let openings = (0..count)
        .map(|i| positions[order[(first + i) % order.len()]].clone())
        .collect();
    Ok((openings, notes))
}

/// Refuses a match of more than [`crate::event::MAX_GAMES`] games: `games`
/// for each of `pairings` (game pairs: rounded up to even), counted before
/// the pairings are listed, without overflow (the Go matches too).
pub fn check_game_count(games: u32, pairings: usize) -> Result<(), EventError> {
    let total = (games.div_ceil(2) as usize)
        .saturating_mul(2)
        .saturating_mul(pairings);
    if total > crate::event::MAX_GAMES {
        return Err(EventError(format!(
            "more than {} games",
            crate::event::MAX_GAMES
        )));
    }
    Ok(())
}

/// Every game of the match in order: game pairs round by round, each
/// pairing's pair in turn (so every pairing advances together).
pub fn schedule(config: &MatchConfig) -> Result<Vec<Scheduled>, EventError> {
    schedule_with_notes(config).map(|(games, _)| games)
}

/// [`schedule`], and notes for the operator on how the openings were
/// made (a book walk cut at [`MAX_BOOK_PLIES`] or before a repetition).
pub fn schedule_with_notes(
    config: &MatchConfig,
) -> Result<(Vec<Scheduled>, Vec<String>), EventError> {
    let controls = (0..config.engines.len())
        .map(|i| config.engine_control(i))
        .collect::<Result<Vec<_>, _>>()?;
    let rounds = config.games.div_ceil(2) as usize;
    check_game_count(config.games, config.pairing_count())?;
    let pairings = config.pairings();
    let (starts, notes) = opening_positions(config, rounds)?;
    let mut out = Vec::new();
    for (round, (start, opening)) in starts.iter().enumerate() {
        for (p, &(a, b)) in pairings.iter().enumerate() {
            let both = 2 * round as u32 + 2 <= config.games;
            let first_number = out.len() as u32 + 1;
            let colours = match (config.reverse, config.noswap) {
                (false, false) => [true, false],
                (true, false) => [false, true],
                (false, true) => [true, true],
                (true, true) => [false, false],
            };
            for (g, first_is_white) in colours.into_iter().enumerate() {
                if g == 1 && !both {
                    break;
                }
                let (w, bl) = if first_is_white { (a, b) } else { (b, a) };
                let number = out.len() as u32 + 1;
                out.push(Scheduled {
                    spec: GameSpec {
                        number,
                        event: config.event.clone(),
                        site: config.site.clone(),
                        date: config.date.clone(),
                        round: (round + 1).to_string(),
                        white: config.engines[w].name.clone(),
                        black: config.engines[bl].name.clone(),
                        start: start.clone(),
                        opening: opening.clone(),
                        time_control: controls[w].clone(),
                        black_time_control: (controls[bl] != controls[w])
                            .then(|| controls[bl].clone()),
                    },
                    pairing: p,
                    first_is_white,
                    partner: both.then_some(if g == 0 { number + 1 } else { first_number }),
                });
            }
        }
    }
    Ok((out, notes))
}

/// Counts of one pairing, from its first engine's side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairingTally {
    /// The first engine.
    pub first: String,
    /// The second engine.
    pub second: String,
    /// Game results.
    pub trinomial: Trinomial,
    /// Game-pair results.
    pub pentanomial: Pentanomial,
}

impl PairingTally {
    /// The best estimate: from pairs when there are any, else from games.
    pub fn estimate(&self) -> Option<Estimate> {
        if self.pentanomial.pairs() > 0 {
            pentanomial_estimate(&self.pentanomial)
        } else {
            trinomial_estimate(&self.trinomial)
        }
    }

    /// The SPRT's LLR: pentanomial when there are pairs, else trinomial.
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        if self.pentanomial.pairs() > 0 {
            sprt.llr_pentanomial(&self.pentanomial)
        } else {
            sprt.llr_trinomial(&self.trinomial)
        }
    }
}

/// The match's counts: each finished game once, pairs when both games of
/// a pair are in.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Per pairing.
    pub pairings: Vec<PairingTally>,
    /// Per engine, and the relay/latency figures.
    pub counters: crate::counters::Counters,
    /// Half points of the first engine, by game number.
    results: HashMap<u32, u8>,
}

impl Tally {
    /// An empty tally for `config`'s pairings.
    pub fn new(config: &MatchConfig) -> Tally {
        Tally {
            pairings: config
                .pairings()
                .into_iter()
                .map(|(a, b)| PairingTally {
                    first: config.engines[a].name.clone(),
                    second: config.engines[b].name.clone(),
                    ..PairingTally::default()
                })
                .collect(),
            counters: crate::counters::Counters::new(
                config.engines.iter().map(|e| e.name.as_str()),
            ),
            results: HashMap::new(),
        }
    }

    /// Counts a finished game's endings and move times per engine (call
    /// once per game, after [`Tally::add`] returned true). `moves` are all
    /// the game's moves, opening moves first (skipped).
    pub fn count_engines(
        &mut self,
        game: &Scheduled,
        ending: &crate::game_rules::Ending,
        moves: impl IntoIterator<Item = crate::counters::MoveTimes>,
    ) {
        let book = game.spec.opening.len();
        let first = if book.is_multiple_of(2) {
            game.spec.start.turn()
        } else {
            !game.spec.start.turn()
        };
        self.counters.add_game(
            &game.spec.white,
            &game.spec.black,
            first,
            ending,
            moves.into_iter().skip(book),
        );
    }

    /// Counts a finished game (a second call for the same game is ignored).
    /// Returns whether it was new.
    pub fn add(&mut self, game: &Scheduled, outcome: Outcome) -> bool {
        if outcome == Outcome::Unfinished || self.results.contains_key(&game.spec.number) {
            return false;
        }
        let first = if game.first_is_white {
            Color::White
        } else {
            Color::Black
        };
        let half = outcome.half_points(first) as u8;
        self.results.insert(game.spec.number, half);
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

fn percent(x: f64) -> String {
    format!("{:.2} %", 100.0 * x)
}

fn signed(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:.2}")
    }
}

/// The one-line progress report of a pairing (printed after every game).
pub fn live_line(t: &PairingTally, sprt: Option<&Sprt>) -> String {
    let tri = &t.trinomial;
    let mut line = format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        t.first,
        t.second,
        tri.wins,
        tri.losses,
        tri.draws,
        if tri.games() == 0 {
            0.5
        } else {
            tri.points() / tri.games() as f64
        },
        tri.games()
    );
    if let Some(e) = t.estimate() {
        line.push_str(&format!(
            " | Elo {} +/- {}, nElo {} +/- {}, LOS {}, DR {}",
            signed(e.elo),
            signed(e.elo_error),
            signed(e.nelo),
            signed(e.nelo_error),
            percent(e.los),
            percent(tri.draw_ratio())
        ));
    }
    let p = t.pentanomial.0;
    line.push_str(&format!(
        " | Ptnml(0-2) [{}, {}, {}, {}, {}]",
        p[0], p[1], p[2], p[3], p[4]
    ));
    if let Some(s) = sprt {
        let (lo, hi) = s.bounds();
        line.push_str(&format!(" | LLR {:.2} ({lo:.2}, {hi:.2})", t.llr(s)));
    }
    line
}

/// How a game ended, as the live output tells it after each game:
/// `Finished game 3 (a vs b): 0-1 {time forfeit: white lost on time (12 ms over)}`.
pub fn finished_line(spec: &GameSpec, ending: &crate::game_rules::Ending) -> String {
    format!(
        "Finished game {} ({} vs {}): {} {{{}: {}}}",
        spec.number,
        spec.white,
        spec.black,
        ending.outcome.result_str(),
        ending.termination.as_str(),
        crate::log::escape_controls(&ending.reason)
    )
}

/// The final report of every pairing (see README "match report").
pub fn report_text(tally: &[PairingTally], sprt: Option<&Sprt>, scheduled: usize) -> String {
    let mut out = String::new();
    let counted: u64 = tally.iter().map(|t| t.trinomial.games()).sum();
    out.push_str(&format!("Games: {counted} of {scheduled} scheduled\n"));
    for t in tally {
        let tri = &t.trinomial;
        out.push_str(&format!("Results of {} vs {}:\n", t.first, t.second));
        match t.estimate() {
            Some(e) => {
                out.push_str(&format!(
                    "  Elo: {} +/- {}, nElo: {} +/- {}\n",
                    signed(e.elo),
                    signed(e.elo_error),
                    signed(e.nelo),
                    signed(e.nelo_error)
                ));
                out.push_str(&format!(
                    "  LOS: {}, DrawRatio: {}\n",
                    percent(e.los),
                    percent(tri.draw_ratio())
                ));
            }
            None => out.push_str("  no games\n"),
        }
        out.push_str(&format!(
            "  Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {} ({})\n",
            tri.games(),
            tri.wins,
            tri.losses,
            tri.draws,
            tri.points(),
            percent(if tri.games() == 0 {
                0.5
            } else {
                tri.points() / tri.games() as f64
            })
        ));
        let p = t.pentanomial.0;
        out.push_str(&format!(
            "  Ptnml(0-2): [{}, {}, {}, {}, {}] ({} pairs)\n",
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            t.pentanomial.pairs()
        ));
        if let Some(s) = sprt {
            let llr = t.llr(s);
            let (lo, hi) = s.bounds();
            let verdict = match s.decide(llr) {
                SprtDecision::H1 => "H1 accepted",
                SprtDecision::H0 => "H0 accepted",
                SprtDecision::Continue => "undecided",
            };
            out.push_str(&format!(
                "  SPRT: llr {llr:.2} ({lo:.2}, {hi:.2}) [{:.2}, {:.2}] {}: {verdict}\n",
                s.elo0,
                s.elo1,
                match s.model {
                    crate::stats::EloModel::Logistic => "logistic",
                    crate::stats::EloModel::Normalized => "normalized",
                }
            ));
        }
    }
    out
}

/// The report's lines of engines with their own limits (none without).
pub fn limits_text(config: &MatchConfig) -> String {
    let mut out = String::new();
    for (i, e) in config.engines.iter().enumerate() {
        let limits = config.engine_limits(i);
        if limits.is_empty() {
            continue;
        }
        let clock = config
            .engine_control(i)
            .map_or_else(|_| "?".to_owned(), |c| c.to_string());
        out.push_str(&format!("Limits of {}: {limits} (clock {clock})\n", e.name));
    }
    out
}

/// `report.json`: counts per pairing (what `match report` merges) and the
/// estimates made from them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReportFile {
    /// PGN Event.
    pub event: String,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games counted.
    pub games: usize,
    /// The SPRT, if any.
    pub sprt: Option<Sprt>,
    /// The SPRT's decision, if any.
    pub decision: Option<SprtDecision>,
    /// Per pairing: counts, then (output only) estimates.
    pub pairings: Vec<PairingReport>,
    /// The match's time control (`gamerec match`), checked when merging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// The run's identity (random, kept across resumes): `match report`
    /// refuses the same run twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Per engine: results, timeouts, crashes, illegal moves, time per
    /// move (`gamerec match`; ignored when merging).
    #[serde(default, skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub engines: Vec<crate::counters::EngineTally>,
    /// The relay's overhead per move: the referee's measure less the
    /// engine's own time (`go` written to `bestmove` read).
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub relay: Option<crate::counters::TimeSummary>,
    /// The referee's latency per move: a reply in to the next `respond` out.
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub referee_latency: Option<crate::counters::TimeSummary>,
}

/// One pairing in `report.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PairingReport {
    /// Counts.
    #[serde(flatten)]
    pub tally: PairingTally,
    /// Estimates (non-finite values are `null`); ignored when merging.
    #[serde(default, skip_deserializing)]
    pub estimate: Option<Estimate>,
    /// The SPRT's LLR; ignored when merging.
    #[serde(default, skip_deserializing)]
    pub llr: Option<f64>,
}

impl ReportFile {
    /// The report of a tally.
    pub fn new(
        event: &str,
        scheduled: usize,
        tally: &[PairingTally],
        sprt: Option<Sprt>,
    ) -> ReportFile {
        let decision = sprt.and_then(|s| tally.first().map(|t| s.decide(t.llr(&s))));
        ReportFile {
            event: event.to_owned(),
            scheduled,
            games: tally.iter().map(|t| t.trinomial.games() as usize).sum(),
            sprt,
            decision,
            pairings: tally
                .iter()
                .map(|t| PairingReport {
                    tally: t.clone(),
                    estimate: t.estimate(),
                    llr: sprt.map(|s| t.llr(&s)),
                })
                .collect(),
            engines: Vec::new(),
            relay: None,
            referee_latency: None,
            time_control: None,
            run: None,
        }
    }

    /// The report with the match's time control and run identity.
    pub fn with_run(mut self, time_control: &str, run: &str) -> ReportFile {
        self.time_control = Some(time_control.to_owned());
        self.run = Some(run.to_owned());
        self
    }

    /// The report with a match's per-engine counters and relay figures.
    pub fn with_counters(mut self, counters: &crate::counters::Counters) -> ReportFile {
        self.engines = counters.engines.clone();
        self.relay = counters.relay.summary();
        self.referee_latency = counters.latency.summary();
        self
    }
}

/// Merges the `report.json` of several match directories (runs on other
/// machines): counts of the same pairing (same two names, either order)
/// add up. The SPRT of the first report that has one applies.
pub fn merge_reports(
    dirs: &[PathBuf],
) -> Result<(Vec<PairingTally>, Option<Sprt>, usize), EventError> {
    merge_reports_checked(dirs, true, true)
}

/// [`merge_reports`] that refuses, unless allowed, the same run given twice
/// (the same file, or two reports of one run: a copy) and reports of
/// different time controls.
pub fn merge_reports_checked(
    dirs: &[PathBuf],
    allow_duplicates: bool,
    allow_mixed_tc: bool,
) -> Result<(Vec<PairingTally>, Option<Sprt>, usize), EventError> {
    let mut merged: Vec<PairingTally> = Vec::new();
    let mut sprt = None;
    let mut scheduled = 0;
    let mut seen_paths: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut seen_runs: HashMap<String, PathBuf> = HashMap::new();
    let mut first_tc: Option<(String, PathBuf)> = None;
    for dir in dirs {
        let path = if dir.is_dir() {
            dir.join("report.json")
        } else {
            dir.clone()
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
        let report: ReportFile = serde_json::from_str(&text)
            .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
        if !allow_duplicates {
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if let Some(other) = seen_paths.insert(canonical, path.clone()) {
                return Err(EventError(format!(
                    "{} is given twice (also as {}): its games would count twice (--allow-duplicates to merge anyway)",
                    path.display(),
                    other.display()
                )));
            }
            if let Some(run) = &report.run
                && let Some(other) = seen_runs.insert(run.clone(), path.clone())
            {
                return Err(EventError(format!(
                    "{} and {} are reports of the same run: its games would count twice (--allow-duplicates to merge anyway)",
                    other.display(),
                    path.display()
                )));
            }
        }
        if let Some(tc) = &report.time_control {
            match &first_tc {
                None => first_tc = Some((tc.clone(), path.clone())),
                Some((first, at)) if first != tc && !allow_mixed_tc => {
                    return Err(EventError(format!(
                        "{} was played at {tc}, {} at {first}: different time controls (--allow-mixed-tc to merge anyway)",
                        path.display(),
                        at.display()
                    )));
                }
                Some(_) => {}
            }
        }
        sprt = sprt.or(report.sprt);
        scheduled += report.scheduled;
        for p in report.pairings {
            let t = p.tally;
            if let Some(m) = merged
                .iter_mut()
                .find(|m| m.first == t.first && m.second == t.second)
            {
                m.trinomial = m.trinomial.merged(&t.trinomial);
                m.pentanomial = m.pentanomial.merged(&t.pentanomial);
            } else if let Some(m) = merged
                .iter_mut()
                .find(|m| m.first == t.second && m.second == t.first)
            {
                // The same pairing seen from the other side: mirror it.
                let tri = Trinomial {
                    wins: t.trinomial.losses,
                    draws: t.trinomial.draws,
                    losses: t.trinomial.wins,
                };
                let mut p = t.pentanomial.0;
                p.reverse();
                m.trinomial = m.trinomial.merged(&tri);
                m.pentanomial = m.pentanomial.merged(&Pentanomial(p));
            } else {
                merged.push(t);
            }
        }
    }
    Ok((merged, sprt, scheduled))
}

/// The JSON Lines stream (`--events`): one object per line, written and
/// flushed as things happen (see README "match events").
#[derive(Clone)]
pub struct EventStream {
    out: Option<Arc<Mutex<std::fs::File>>>,
    seen: Arc<Mutex<HashMap<u32, (usize, bool)>>>,
    failed: Arc<Mutex<Option<String>>>,
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

impl EventStream {
    /// Appends to `path` (or writes nothing with `None`).
    pub fn open(path: Option<&Path>) -> Result<EventStream, EventError> {
        let out = match path {
            Some(p) => Some(Arc::new(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| EventError(format!("{}: {e}", p.display())))?,
            ))),
            None => None,
        };
        Ok(EventStream {
            out,
            seen: Arc::default(),
            failed: Arc::default(),
        })
    }

    /// The first write error, if a write failed.
    pub fn failure(&self) -> Option<String> {
        self.failed.lock().ok().and_then(|f| f.clone())
    }

    /// Writes one event: `value` with `"type"` and `"time_ms"` added.
    pub fn emit(&self, kind: &str, mut value: serde_json::Value) {
        let Some(out) = &self.out else { return };
        if let Some(map) = value.as_object_mut() {
            map.insert("type".into(), kind.into());
            map.insert("time_ms".into(), serde_json::Value::from(now_ms() as u64));
        }
        if let Ok(mut f) = out.lock()
            && let Err(e) = writeln!(f, "{value}")
            && let Ok(mut failed) = self.failed.lock()
            && failed.is_none()
        {
            gamerec::say!("match: error: the event stream cannot be written: {e}");
            *failed = Some(format!("event stream: {e}"));
        }
    }

    /// Emits what is new in a game since the last call: its start, each
    /// move, its end.
    pub fn game(&self, spec: &GameSpec, state: &GameState) {
        if self.out.is_none() {
            return;
        }
        let (from, started, ended) = {
            let Ok(mut seen) = self.seen.lock() else {
                return;
            };
            let entry = seen.entry(spec.number).or_insert((usize::MAX, false));
            let started = entry.0 == usize::MAX;
            let from = if started { 0 } else { entry.0 };
            let ended = state.ending().is_some() && !entry.1;
            *entry = (state.played().len(), entry.1 || ended);
            (from, started, ended)
        };
        if started {
            self.emit(
                "game_start",
                serde_json::json!({
                    "game": spec.number, "round": spec.round,
                    "white": spec.white, "black": spec.black,
                    "fen": gamerec::fen::write_fen(&spec.start, shakmaty::CastlingMode::Standard),
                    "time_control": spec.time_control.to_string(),
                }),
            );
        }
        for (i, p) in state.played().iter().enumerate().skip(from) {
            let mut m = serde_json::json!({
                "game": spec.number, "ply": i + 1, "san": p.san,
                "ms": p.elapsed.as_millis() as u64,
            });
            if let Some(map) = m.as_object_mut() {
                if let Some(c) = p.clock_after {
                    map.insert("clock_ms".into(), (c.as_millis() as u64).into());
                }
                if let Some(ce) = p.engine.ce {
                    map.insert("ce".into(), ce.into());
                }
                if let Some(d) = p.engine.depth {
                    map.insert("depth".into(), d.into());
                }
                if let Some(n) = p.engine.nodes {
                    map.insert("nodes".into(), n.into());
                }
            }
            self.emit("move", m);
        }
        if ended && let Some(e) = state.ending() {
            self.emit(
                "game_end",
                serde_json::json!({
                    "game": spec.number, "white": spec.white, "black": spec.black,
                    "result": e.outcome.result_str(),
                    "termination": e.termination.as_str(), "reason": e.reason,
                    "plies": state.played().len(),
                }),
            );
        }
    }
}

/// Reads the finished games of `dir/state` into `tally` (resume). Returns
/// the game numbers whose saved state is unfinished; a state file that
/// cannot be read or is damaged stops the resume (an error naming it).
pub fn load_finished(
    dir: &Path,
    games: &[Scheduled],
    tally: &mut Tally,
) -> Result<Vec<u32>, EventError> {
    let mut unfinished = Vec::new();
    for g in games {
        let Some(saved) = crate::director::read_saved(dir, g.spec.number)? else {
            continue;
        };
        match saved.ending {
            Some(e) if e.outcome != Outcome::Unfinished => {
                if tally.add(g, e.outcome) {
                    let moves = saved.moves.iter().map(|m| crate::counters::MoveTimes {
                        charged: std::time::Duration::from_millis(m.ms),
                        relay: m.relay_us.map(std::time::Duration::from_micros),
                        latency: m.latency_us.map(std::time::Duration::from_micros),
                    });
                    tally.count_engines(g, &e, moves);
                }
            }
            _ => unfinished.push(g.spec.number),
        }
    }
    Ok(unfinished)
}

/// Per-game lookups for the observer.
pub fn by_number(games: &[Scheduled]) -> BTreeMap<u32, Scheduled> {
    games.iter().map(|g| (g.spec.number, g.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clocks;

    fn config(n: usize, games: u32) -> MatchConfig {
        MatchConfig {
            engines: (0..n)
                .map(|i| MatchEngine {
                    name: format!("e{i}"),
                    spec: "builtin:1".into(),
                })
                .collect(),
            tournament: Tournament::RoundRobin,
            games,
            time_control: "10+0.1".into(),
            concurrency: 1,
            openings: None,
            adjudication: Adjudication::default(),
            sprt: None,
            event: "t".into(),
            site: "?".into(),
            date: "2026.11.24".into(),
            engine_data: false,
            seed: 1,
            margin_ms: 0,
            ponder: false,
            wait_ms: 0,
            noswap: false,
            reverse: false,
            frc: None,
            limits: Vec::new(),
        }
    }

    /// The games are counted before the pairings are listed: 100,000
    /// engines (5 billion pairings) are refused at once.
    #[test]
    fn a_match_of_too_many_games_is_refused_before_its_pairings_are_listed() {
        let mut c = config(100_000, 2);
        assert!(c.validate().is_err());
        let e = schedule(&c).unwrap_err();
        assert!(e.0.contains("more than 100000 games"), "{}", e.0);
        c.tournament = Tournament::Gauntlet;
        assert_eq!(c.pairing_count(), 99_999);
        assert!(schedule(&c).is_err(), "199,998 games");
        let mut c = config(3, u32::MAX);
        assert!(schedule(&c).is_err());
        c.games = 2;
        assert_eq!(c.pairing_count(), 3);
        assert_eq!(c.pairing_count(), c.pairings().len());
        assert_eq!(schedule(&c).unwrap().len(), 6);
        // Game pairs: an odd count rounds up.
        assert!(check_game_count(100_000, 1).is_ok());
        assert!(check_game_count(99_999, 1).is_ok());
        assert!(check_game_count(100_001, 1).is_err());
        assert!(check_game_count(u32::MAX, usize::MAX).is_err());
    }

    /// A Polyglot book of the (UCI) moves given after the move lines given.
    fn write_book(path: &std::path::Path, lines: &[(&[&str], &str)]) {
        use gamerec::polyglot::{encode_move, key};
        use shakmaty::uci::UciMove;
        let entries: Vec<(u64, u16)> = lines
            .iter()
            .map(|(moves, reply)| {
                let mut pos = Chess::default();
                for m in *moves {
                    let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                    pos.play_unchecked(mv);
                }
                let mv = reply.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                (key(&pos), encode_move(&mv))
            })
            .collect();
        write_entries(path, entries);
    }

    /// A Polyglot book of (key, move) entries, weight 1 each.
    fn write_entries(path: &std::path::Path, mut entries: Vec<(u64, u16)>) {
        entries.sort_unstable();
        let mut bytes = Vec::new();
        for (k, m) in entries {
            bytes.extend(k.to_be_bytes());
            bytes.extend(m.to_be_bytes());
            bytes.extend(1u16.to_be_bytes());
            bytes.extend(0u32.to_be_bytes());
        }
        std::fs::write(path, bytes).unwrap();
    }

    /// A book whose moves come back (Nf3 Nf6 Ng1 Ng8, and again) walked
    /// for `--openings-plies 100000`: every game got 100,000 book moves,
    /// its start position 25,000 times (a repetition to claim at the first
    /// move). The walk stops before the move that repeats a position.
    #[test]
    fn a_book_walk_stops_before_a_repeated_position() {
        let dir = gamerec_testkit::temp_dir("match-book-cycle");
        let book = dir.join("cycle.bin");
        write_book(
            &book,
            &[
                (&[], "g1f3"),
                (&["g1f3"], "g8f6"),
                (&["g1f3", "g8f6"], "f3g1"),
                (&["g1f3", "g8f6", "f3g1"], "f6g8"),
            ],
        );
        let mut c = config(2, 4);
        c.openings = Some(Openings {
            file: book,
            order: OpeningOrder::Sequential,
            plies: Some(100_000),
            start: 1,
        });
        let (games, notes) = schedule_with_notes(&c).unwrap();
        assert_eq!(games.len(), 4);
        for g in &games {
            assert_eq!(g.spec.opening.join(" "), "Nf3 Nf6 Ng1");
        }
        assert_eq!(
            notes,
            [
                "--openings-plies 100000: a book walk plays at most 100 plies",
                "2 of 2 book walks stopped before a move repeating a position",
            ]
        );
    }

    /// A book of one line of 150 plies, no position twice: a walk plays
    /// the plies asked up to [`MAX_BOOK_PLIES`], and says so when more
    /// were asked.
    #[test]
    fn a_book_walk_plays_at_most_max_book_plies() {
        use gamerec::polyglot::{encode_move, key};
        let dir = gamerec_testkit::temp_dir("match-book-long");
        let book = dir.join("long.bin");
        let mut pos = Chess::default();
        let mut seen = crate::game_rules::Repetitions::new(&pos);
        let mut entries = Vec::new();
        for _ in 0..150 {
            let mv = pos
                .legal_moves()
                .into_iter()
                .find(|&m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    seen.count(&after) == 0 && !after.is_game_over()
                })
                .expect("a move to a new position");
            entries.push((key(&pos), encode_move(&mv)));
            pos.play_unchecked(mv);
            seen.push(&pos);
        }
        write_entries(&book, entries);
        let walked = |plies: Option<u32>| {
            let mut c = config(2, 2);
            c.openings = Some(Openings {
                file: book.clone(),
                order: OpeningOrder::Sequential,
                plies,
                start: 1,
            });
            let (games, notes) = schedule_with_notes(&c).unwrap();
            (games[0].spec.opening.len(), notes)
        };
        assert_eq!(walked(None), (8, vec![]));
        assert_eq!(walked(Some(MAX_BOOK_PLIES)), (100, vec![]));
        assert_eq!(
            walked(Some(u32::MAX)),
            (
                100,
                vec![format!(
                    "--openings-plies {}: a book walk plays at most 100 plies",
                    u32::MAX
                )]
            )
        );
    }

    #[test]
    fn noswap_and_reverse_set_the_colours_of_each_pair() {
        let whites = |reverse, noswap| {
            let mut c = config(2, 4);
            (c.reverse, c.noswap) = (reverse, noswap);
            schedule(&c)
                .unwrap()
                .iter()
                .map(|g| g.spec.white.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(whites(false, false), ["e0", "e1", "e0", "e1"]);
        assert_eq!(whites(true, false), ["e1", "e0", "e1", "e0"]);
        assert_eq!(whites(false, true), ["e0", "e0", "e0", "e0"]);
        assert_eq!(whites(true, true), ["e1", "e1", "e1", "e1"]);
        // Older match.json files (without the fields) still load.
        let mut json: serde_json::Value = serde_json::to_value(config(2, 2)).unwrap();
        for k in ["wait_ms", "noswap", "reverse"] {
            json.as_object_mut().unwrap().remove(k);
        }
        let back: MatchConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, config(2, 2));
    }

    #[test]
    fn per_engine_limits_give_each_side_its_control_and_survive_match_json() {
        let mut c = config(2, 2);
        c.limits = vec![
            EngineLimits::parse("depth=1").unwrap(),
            EngineLimits::parse(" tc=40/60+1 , nodes=5000,st=0.25").unwrap(),
        ];
        assert_eq!(c.limits[1].to_string(), "tc=40/60+1,nodes=5000,st=0.25");
        assert_eq!(c.limits[1].movetime_ms, Some(250));
        c.validate().unwrap();
        let s = schedule(&c).unwrap();
        let tcs = |g: &Scheduled| {
            (
                g.spec.control_of(Color::White).to_string(),
                g.spec.control_of(Color::Black).to_string(),
            )
        };
        assert_eq!(tcs(&s[0]), ("-".into(), "40/60+1".into()));
        assert_eq!(tcs(&s[1]), ("40/60+1".into(), "-".into()));
        let tags = s[0].spec.tags("*");
        let tag = |k: &str| tags.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(tag("WhiteTimeControl"), Some("-"));
        assert_eq!(tag("BlackTimeControl"), Some("40/60+1"));
        assert_eq!(tag("TimeControl"), None);
        assert_eq!(
            c.limits_summary(),
            "10+0.1; e0: depth=1; e1: tc=40/60+1,nodes=5000,st=0.25"
        );
        assert!(limits_text(&c).contains("Limits of e0: depth=1 (clock -)"));
        // `--resume` reads them back from match.json.
        let back: MatchConfig = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // Without limits every game has one TimeControl, as before.
        let plain = schedule(&config(2, 2)).unwrap();
        assert!(plain[0].spec.black_time_control.is_none());
        for bad in ["depth=0", "nodes=x", "st=-1", "tc=0", "speed=3", "depth"] {
            assert!(EngineLimits::parse(bad).is_err(), "{bad}");
        }
        c.limits[0] = EngineLimits::parse("tc=*60").unwrap();
        assert!(c.validate().is_err(), "a sandclock for one side only");
    }

    #[test]
    fn limits_name_their_engine_and_quote_long_items_shortened() {
        let names = ["sf".to_owned(), "lc0".to_owned()];
        let (i, l) = EngineLimits::parse_for("lc0:depth=3", &names).unwrap();
        assert_eq!((i, l.depth), (1, Some(3)));
        assert_eq!(EngineLimits::parse_for("1:nodes=9", &names).unwrap().0, 0);
        let long = "9".repeat(1 << 20);
        for given in [
            format!("sf:depth={long}"),
            format!("{long}:depth=1"),
            format!("sf:x{long}"),
            long.clone(),
        ] {
            let e = EngineLimits::parse_for(&given, &names).unwrap_err();
            assert!(e.len() < 300, "{} bytes: {}", e.len(), &e[..300]);
        }
    }

    #[test]
    fn chess960_positions_are_the_960_and_seeded() {
        assert_eq!(&chess960_rank(518), b"RNBQKBNR");
        assert_eq!(&chess960_rank(0), b"BBQNNRKR");
        assert_eq!(&chess960_rank(959), b"RKRNNQBB");
        let ranks: std::collections::HashSet<[u8; 8]> = (0..960).map(chess960_rank).collect();
        assert_eq!(ranks.len(), 960);
        assert_eq!(chess960_position(518, 518), Chess::default());
        let p = chess960_position(0, 959);
        assert_eq!(
            gamerec::fen::write_fen(&p, shakmaty::CastlingMode::Chess960),
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        let mut c = config(2, 4);
        c.frc = Some(Frc::Dfrc);
        let s = schedule(&c).unwrap();
        assert_eq!(s[0].spec.start, s[1].spec.start, "a pair shares its start");
        assert_ne!(s[0].spec.start, s[2].spec.start);
        let tags = s[0].spec.tags("*");
        assert!(tags.contains(&("Variant".to_owned(), "Chess960".to_owned())));
        assert_eq!(schedule(&c).unwrap()[2].spec.start, s[2].spec.start);
    }

    #[test]
    fn schedule_pairs_games_with_reversed_colours() {
        let c = config(3, 4);
        let s = schedule(&c).unwrap();
        assert_eq!(s.len(), 12);
        for g in &s {
            let p = &s[g.partner.unwrap() as usize - 1];
            assert_eq!(p.partner, Some(g.spec.number));
            assert_eq!(
                (p.spec.white.as_str(), p.spec.black.as_str()),
                (g.spec.black.as_str(), g.spec.white.as_str())
            );
            assert_eq!(p.pairing, g.pairing);
        }
        let odd = schedule(&config(2, 3)).unwrap();
        assert_eq!(odd.len(), 3);
        assert_eq!(odd[2].partner, None);
        let mut g = config(4, 2);
        g.tournament = Tournament::Gauntlet;
        assert_eq!(schedule(&g).unwrap().len(), 6);
    }

    #[test]
    fn tally_counts_each_game_once_and_pairs() {
        let c = config(2, 4);
        let s = schedule(&c).unwrap();
        let mut t = Tally::new(&c);
        assert!(t.add(&s[0], Outcome::Win(Color::White)));
        assert!(!t.add(&s[0], Outcome::Win(Color::White)));
        assert_eq!(t.pairings[0].pentanomial.pairs(), 0);
        // Game 2: the first engine has Black and draws: pair WD.
        t.add(&s[1], Outcome::Draw);
        assert_eq!(t.pairings[0].pentanomial.0, [0, 0, 0, 1, 0]);
        t.add(&s[3], Outcome::Win(Color::White));
        t.add(&s[2], Outcome::Win(Color::Black));
        assert_eq!(t.pairings[0].pentanomial.0, [1, 0, 0, 1, 0]);
        assert_eq!(
            t.pairings[0].trinomial,
            Trinomial {
                wins: 1,
                draws: 1,
                losses: 2
            }
        );
    }

    #[test]
    fn adjudication_rules() {
        use crate::game_rules::EngineReport;
        let rules = Adjudication {
            resign: Some((2, 500)),
            draw: Some((3, 2, 10)),
            max_moves: Some(10),
        };
        let mut state = GameState::new(
            Chess::default(),
            Clocks::new(parse_time_control("60").unwrap()),
        );
        let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"];
        let ces = [20, -600, 30, -700, 5, -5, 5, -5];
        let mut verdicts = Vec::new();
        for (san, ce) in moves.iter().zip(ces) {
            state.replay_move(san, std::time::Duration::ZERO).unwrap();
            state.annotate_last(EngineReport {
                ce: Some(ce),
                ..EngineReport::default()
            });
            verdicts.push(rules.judge(&state).map(|v| v.0));
        }
        // Black's second -600: resigns after ply 4.
        assert_eq!(verdicts[3], Some(Outcome::Win(Color::White)));
        assert_eq!(verdicts[1], None);
        // Plies 5-8 within 10 cp from move 3 on: draw at ply 8.
        assert_eq!(verdicts[7], Some(Outcome::Draw));
        assert_eq!(verdicts[6], None);
        let max = Adjudication {
            max_moves: Some(4),
            ..Adjudication::default()
        };
        assert_eq!(max.judge(&state).map(|v| v.0), Some(Outcome::Draw));
    }

    #[test]
    fn merged_reports_add_counts_and_mirror_reversed_pairings() {
        let dir = gamerec_testkit::temp_dir("merge");
        let tally = |first: &str, second: &str, w, d, l, p: [u64; 5]| PairingTally {
            first: first.into(),
            second: second.into(),
            trinomial: Trinomial {
                wins: w,
                draws: d,
                losses: l,
            },
            pentanomial: Pentanomial(p),
        };
        let a = ReportFile::new("a", 10, &[tally("x", "y", 5, 3, 2, [0, 1, 2, 1, 1])], None);
        let b = ReportFile::new("b", 6, &[tally("y", "x", 1, 1, 4, [2, 1, 0, 0, 0])], None);
        let (pa, pb) = (dir.join("a.json"), dir.join("b.json"));
        std::fs::write(&pa, a.to_json()).unwrap();
        std::fs::write(&pb, b.to_json()).unwrap();
        let (merged, sprt, scheduled) = merge_reports(&[pa.clone(), pb]).unwrap();
        assert_eq!((merged.len(), sprt, scheduled), (1, None, 16));
        assert_eq!(
            merged[0].trinomial,
            Trinomial {
                wins: 9,
                draws: 4,
                losses: 3
            }
        );
        assert_eq!(merged[0].pentanomial.0, [0, 1, 2, 2, 3]);
        assert!(merge_reports(&[dir.join("missing.json")]).is_err());
        // The same file twice, or two copies of one run, are refused unless
        // allowed; so are different time controls.
        let err = merge_reports_checked(&[pa.clone(), pa.clone()], false, false).unwrap_err();
        assert!(err.0.contains("given twice"), "{err}");
        let run = |r: &ReportFile, tc: &str, id: &str| r.clone().with_run(tc, id).to_json();
        let (pc, pd) = (dir.join("c.json"), dir.join("d.json"));
        std::fs::write(&pc, run(&a, "1+0.01", "r1")).unwrap();
        std::fs::write(&pd, run(&a, "1+0.01", "r1")).unwrap();
        let err = merge_reports_checked(&[pc.clone(), pd.clone()], false, false).unwrap_err();
        assert!(err.0.contains("same run"), "{err}");
        assert!(merge_reports_checked(&[pc.clone(), pd.clone()], true, false).is_ok());
        std::fs::write(&pd, run(&b, "2+0.02", "r2")).unwrap();
        let err = merge_reports_checked(&[pc.clone(), pd.clone()], false, false).unwrap_err();
        assert!(err.0.contains("different time controls"), "{err}");
        let (merged, _, _) = merge_reports_checked(&[pc, pd], false, true).unwrap();
        assert_eq!(merged[0].trinomial.games(), 16);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn random_order_is_a_fixed_permutation() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.below(10)).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.below(10)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| x < 10));
    }
}

/// How a match run ended.
#[derive(Debug, Clone)]
pub struct MatchOutcome {
    /// The match directory (`games.pgn`, `report.json`, `match.json`, `state/`).
    pub dir: PathBuf,
    /// The final report text.
    pub report: String,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games with a result.
    pub finished: usize,
    /// The SPRT's decision, if it stopped the match.
    pub decision: Option<SprtDecision>,
    /// Writes that failed: the match's record is incomplete.
    pub errors: Vec<String>,
}

impl MatchOutcome {
    /// Whether the match is complete: every game played or the SPRT decided.
    pub fn complete(&self) -> bool {
        self.finished == self.scheduled
            || matches!(self.decision, Some(SprtDecision::H0 | SprtDecision::H1))
    }
}

/// How to run a match (beyond its [`MatchConfig`]).
#[derive(Debug, Clone, Default)]
pub struct RunMatch {
    /// The match directory.
    pub dir: PathBuf,
    /// The JSON Lines stream, if wanted.
    pub events: Option<PathBuf>,
    /// The spectator page's address, if wanted.
    pub http: Option<String>,
    /// Echo the protocol log.
    pub verbose: bool,
    /// Print the live line after every game.
    pub live: bool,
    /// The referee's address (default `127.0.0.1:0`, any free port).
    pub listen: Option<String>,
}

/// How long past an engine's flag the referee waits for its reply to be
/// relayed: the match's bridges report the engine's own time (`go` written
/// to `bestmove` read), which is what its clock is charged.
const RELAY_ALLOWANCE: std::time::Duration = std::time::Duration::from_secs(1);

/// Restarts a crashed engine at most this many times per bridge.
const MAX_RESTARTS: u32 = 50;

/// Plays (or resumes) `config` in `run.dir`: a referee with one bridge per
/// engine and game slot seated in its lobby ([`crate::conn::LocalClient`];
/// restarted when its engine fails), the match's schedule, adjudication
/// and SPRT.
pub async fn run(
    config: &MatchConfig,
    run: &RunMatch,
    cancel: tokio_util::sync::CancellationToken,
) -> Result<MatchOutcome, EventError> {
    use crate::bridge::{EnginePlayer, run_local_bridge};
    use crate::conn::LocalClient;
    use crate::director::{EventHooks, Live, RunOptions, run_event_with};
    use crate::event::{EventConfig, Pairing, PlayerConfig};
    use tokio::net::TcpListener;

    config.validate()?;
    let dir = &run.dir;
    let io = |e: std::io::Error| EventError(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir.join("state")).map_err(io)?;
    let saved = dir.join("match.json");
    let text = serde_json::to_string_pretty(config).map_err(|e| EventError(e.to_string()))? + "\n";
    // A directory holding another match is not taken over: its games
    // would be credited to these engines.
    match std::fs::read_to_string(&saved) {
        Ok(old) if old == text => {}
        Ok(old) if serde_json::from_str::<MatchConfig>(&old).ok().as_ref() == Some(config) => {}
        Ok(_) => {
            return Err(EventError(format!(
                "{} holds another match (its match.json differs): resume it with --resume, or give a new --dir",
                dir.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::director::write_atomic(&saved, text.as_bytes()).map_err(io)?;
        }
        Err(e) => return Err(io(e)),
    }

    let (games, notes) = schedule_with_notes(config)?;
    for note in notes {
        gamerec::say!("match: {note}");
    }
    let mut tally = Tally::new(config);
    // Games in flight when a previous run stopped start again from their
    // opening: a game is played by one pair of engine processes, start to end.
    for n in load_finished(dir, &games, &mut tally)? {
        let path = dir.join("state").join(format!("game-{n:04}.json"));
        std::fs::remove_file(&path).map_err(|e| EventError(format!("{}: {e}", path.display())))?;
    }
    let resumed = tally.games();
    let stream = EventStream::open(run.events.as_deref())?;
    stream.emit(
        "match_start",
        serde_json::json!({
            "event": config.event, "games": games.len(), "resumed_games": resumed,
            "engines": config.engines.iter().map(|e| &e.name).collect::<Vec<_>>(),
            "time_control": config.time_control, "concurrency": config.concurrency,
        }),
    );
    // A fresh secret per engine, so nothing else on the machine can sign on
    // under an engine's name on the loopback port.
    let secrets: Vec<String> = config.engines.iter().map(|_| match_secret()).collect();
    let event_config = EventConfig {
        event: config.event.clone(),
        site: Some(config.site.clone()),
        date: Some(config.date.clone()),
        time_control: config.time_control.clone(),
        pairing: Pairing::Match,
        rounds: 1,
        games: Some(games.len() as u32),
        openings: None,
        concurrency: Some(config.concurrency),
        listen: None,
        reset_delay: Some(0.05),
        // `--wait`: engines rest this long after each game.
        conclude_delay: Some((config.wait_ms as f64 / 1000.0).max(0.05)),
        // A player that disconnects (its engine crashed) loses the game at
        // once; its bridge restarts the engine for the next game.
        grace: Some(0.0),
        silence: None,
        margin_ms: Some(config.margin_ms),
        players: config
            .engines
            .iter()
            .zip(&secrets)
            .map(|(e, secret)| PlayerConfig {
                name: e.name.clone(),
                engine: None,
                depth: None,
                secret: Some(secret.clone()),
            })
            .collect(),
    };

    let sprt = config.sprt;
    let decided = |t: &Tally| {
        sprt.and_then(|s| t.pairings.first().map(|p| s.decide(p.llr(&s))))
            .filter(|d| *d != SprtDecision::Continue)
    };
    let scheduled = games.len();
    let report_failure: Arc<Mutex<Option<String>>> = Arc::default();
    // The run's identity, kept in report.json across resumes.
    let run_id = std::fs::read_to_string(dir.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<ReportFile>(&t).ok())
        .and_then(|r| r.run)
        .unwrap_or_else(match_secret);
    let write_report = |t: &Tally| {
        let report = ReportFile::new(&config.event, scheduled, &t.pairings, sprt)
            .with_counters(&t.counters)
            .with_run(&config.limits_summary(), &run_id);
        let written = serde_json::to_string_pretty(&report)
            .map_err(std::io::Error::other)
            .and_then(|text| {
                crate::director::write_atomic(&dir.join("report.json"), (text + "\n").as_bytes())
            });
        if let Err(e) = written {
            gamerec::say!("match: error: cannot save the report: {e}");
            if let Ok(mut f) = report_failure.lock() {
                f.get_or_insert_with(|| format!("cannot save the report: {e}"));
            }
        }
    };
    write_report(&tally);
    let already = decided(&tally);
    let tally = Arc::new(Mutex::new(tally));
    let finish = |tally: &Tally, decision: Option<SprtDecision>| {
        let report = report_text(&tally.pairings, sprt.as_ref(), scheduled)
            + &limits_text(config)
            + &tally.counters.text();
        stream.emit(
            "match_end",
            serde_json::json!({
                "games": tally.games(), "scheduled": scheduled,
                "sprt": decision,
                "report": ReportFile::new(&config.event, scheduled, &tally.pairings, sprt)
                    .with_counters(&tally.counters),
            }),
        );
        MatchOutcome {
            dir: dir.clone(),
            report,
            scheduled,
            finished: tally.games(),
            decision,
            errors: Vec::new(),
        }
    };
    if already.is_some() {
        let t = tally
            .lock()
            .map_err(|_| EventError("internal: lock".into()))?;
        return Ok(finish(&t, already));
    }

    // Everything a game's progress updates: the event stream, the tally,
    // the report, the live line, and the SPRT's stop.
    let lookup = Arc::new(by_number(&games));
    let stop = cancel.clone();
    let observer: crate::game_runner::Hook = {
        let (stream, tally, lookup, live) =
            (stream.clone(), tally.clone(), lookup.clone(), run.live);
        let (event, dir) = (config.event.clone(), dir.clone());
        let (tc, run_id) = (config.time_control.clone(), run_id.clone());
        let report_failure = report_failure.clone();
        Arc::new(move |spec: &GameSpec, state: &GameState| {
            stream.game(spec, state);
            let Some(ending) = state.ending() else { return };
            let Some(game) = lookup.get(&spec.number) else {
                return;
            };
            let Ok(mut t) = tally.lock() else { return };
            if !t.add(game, ending.outcome) {
                return;
            }
            let moves = state.played().iter().map(|p| crate::counters::MoveTimes {
                charged: p.elapsed,
                relay: p.relay,
                latency: p.latency,
            });
            t.count_engines(game, ending, moves);
            let p = &t.pairings[game.pairing];
            if live {
                gamerec::say!("{}", finished_line(spec, ending));
                gamerec::say!("{}", live_line(p, sprt.as_ref()));
            }
            let report = ReportFile::new(&event, scheduled, &t.pairings, sprt)
                .with_counters(&t.counters)
                .with_run(&tc, &run_id);
            let written = serde_json::to_string_pretty(&report)
                .map_err(std::io::Error::other)
                .and_then(|text| {
                    crate::director::write_atomic(
                        &dir.join("report.json"),
                        (text + "\n").as_bytes(),
                    )
                });
            if let Err(e) = written
                && let Ok(mut f) = report_failure.lock()
                && f.is_none()
            {
                gamerec::say!("match: error: cannot save the report: {e}");
                *f = Some(format!("cannot save the report: {e}"));
            }
            stream.emit(
                "report",
                serde_json::json!({
                    "games": t.games(),
                    "pairing": report.pairings.get(game.pairing),
                }),
            );
            if let Some(s) = sprt
                && let Some(first) = t.pairings.first()
            {
                let llr = first.llr(&s);
                let decision = s.decide(llr);
                if decision != SprtDecision::Continue {
                    stream.emit(
                        "sprt",
                        serde_json::json!({"decision": decision, "llr": llr}),
                    );
                    stop.cancel();
                }
            }
        })
    };
    // The referee's lobby and log, shared with the engines' bridges.
    let lobby = Arc::new(crate::lobby::Lobby::with_identities(
        event_config.identities(),
    ));
    let log = crate::log::EventLog::open(&dir.join("log.txt"), run.verbose).map_err(io)?;
    let adjudication = config.adjudication;
    let hooks = EventHooks {
        schedule: Some(games.iter().map(|g| g.spec.clone()).collect()),
        observer: Some(observer),
        adjudicator: adjudication.is_active().then(|| {
            let judge: crate::game_runner::Adjudicator =
                Arc::new(move |_: &GameSpec, state: &GameState| adjudication.judge(state));
            judge
        }),
        export: crate::export::ExportOptions {
            engine_data: config.engine_data,
            game_duration: true,
        },
        relay_allowance: Some(RELAY_ALLOWANCE),
        lobby: Some(lobby.clone()),
        log: Some(log.clone()),
    };

    // The engines' bridges are seated in the referee's own lobby (no
    // connection between a bridge and its game); a port is opened only
    // when asked (`--listen`), for other clients.
    let listener = match run.listen.as_deref() {
        Some(listen) => {
            let listener = TcpListener::bind(listen)
                .await
                .map_err(|e| EventError(format!("cannot listen on {listen}: {e}")))?;
            let addr = listener
                .local_addr()
                .map_err(|e| EventError(e.to_string()))?;
            gamerec::say!("match: referee at {addr}");
            Some(listener)
        }
        None => None,
    };
    let live = Live::default();
    let http_cancel = tokio_util::sync::CancellationToken::new();
    if let Some(http) = &run.http {
        let l = TcpListener::bind(http)
            .await
            .map_err(|e| EventError(format!("cannot listen on {http}: {e}")))?;
        if let Ok(a) = l.local_addr() {
            gamerec::say!("match: spectator page at http://{a}/");
        }
        tokio::spawn(crate::spectator::serve_http(
            l,
            live.clone(),
            http_cancel.clone(),
        ));
    }
    let bridge_cancel = tokio_util::sync::CancellationToken::new();
    let mut bridges = tokio::task::JoinSet::new();
    for (i, (engine, secret)) in config.engines.iter().zip(&secrets).enumerate() {
        let plays = games
            .iter()
            .filter(|g| g.spec.white == engine.name || g.spec.black == engine.name)
            .count();
        for _ in 0..config.concurrency.clamp(1, plays.max(1)) {
            // The first start fails the match (a wrong command); later
            // restarts after a crash are retried.
            let ponder = config.ponder;
            let limits = config.engine_limits(i);
            let start = move |spec: &str| {
                EnginePlayer::start(spec, None).map(|p| {
                    p.with_limits(
                        limits.depth,
                        limits.nodes,
                        limits.movetime_ms.map(std::time::Duration::from_millis),
                    )
                    .pondering(ponder)
                })
            };
            let first =
                start(&engine.spec).map_err(|e| EventError(format!("{}: {e}", engine.spec)))?;
            let (name, spec, c, secret) = (
                engine.name.clone(),
                engine.spec.clone(),
                bridge_cancel.clone(),
                secret.clone(),
            );
            let stream = stream.clone();
            let (lobby, log) = (lobby.clone(), log.clone());
            bridges.spawn(async move {
                let mut player = Some(first);
                for restart in 0..=MAX_RESTARTS {
                    let engine = match player.take() {
                        Some(p) => p,
                        None => match start(&spec) {
                            Ok(p) => p,
                            Err(e) => {
                                gamerec::say!("match: {name}: cannot restart: {e}");
                                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                                continue;
                            }
                        },
                    };
                    let client = match LocalClient::sign_on(&lobby, &name, Some(&secret), &log) {
                        Ok(client) => client,
                        Err(e) => {
                            gamerec::say!("match: {name}: sign-on refused: {e}");
                            return;
                        }
                    };
                    match run_local_bridge(client, engine, c.clone()).await {
                        Ok(s) if s.disconnected || c.is_cancelled() => return,
                        Ok(_) => {}
                        Err(e) => {
                            gamerec::say!("match: {name}: {e}; restarting the engine");
                            stream.emit(
                                "engine_restart",
                                serde_json::json!({"engine": name, "error": e.to_string(), "restart": restart + 1}),
                            );
                        }
                    }
                    if c.is_cancelled() {
                        return;
                    }
                }
            });
        }
    }
    let options = RunOptions {
        concurrency: Some(config.concurrency),
        echo_log: run.verbose,
        serial: Vec::new(),
        base: dir.clone(),
        live,
    };
    let summary = run_event_with(&event_config, dir, listener, options, hooks, cancel, None).await;
    bridge_cancel.cancel();
    http_cancel.cancel();
    while bridges.join_next().await.is_some() {}
    let summary = summary?;
    let t = tally
        .lock()
        .map_err(|_| EventError("internal: lock".into()))?;
    write_report(&t);
    let decision = decided(&t);
    let mut outcome = finish(&t, decision);
    outcome.errors = summary.errors;
    if let Ok(Some(f)) = report_failure.lock().map(|f| f.clone()) {
        outcome.errors.push(f);
    }
    if let Some(f) = stream.failure() {
        outcome.errors.push(f);
    }
    Ok(outcome)
}

/// Reads `dir/match.json` (for `--resume`).
pub fn load_config(dir: &Path) -> Result<MatchConfig, EventError> {
    let path = dir.join("match.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| EventError(format!("{}: {e}", path.display())))
}

impl ReportFile {
    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A fresh random secret (128 bits from the standard library's randomly
/// keyed hasher and the clock).
fn match_secret() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}
