//! The EVENT.toml file: players, time control, rounds, pairing, openings,
//! and the schedule of games it produces.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use shakmaty::{Chess, Position};

use crate::clock::TimeControl;
use crate::game_runner::{GameSpec, Timing};

/// How games are paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// Everyone plays everyone once per round (circle method); colours swap
    /// from one round-robin cycle to the next.
    RoundRobin,
    /// The first player plays every other player `rounds` times, colours alternating.
    Gauntlet,
    /// The first two players play `games` games, colours alternating.
    Match,
}

/// One player.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerConfig {
    /// The name: PGN White/Black, and the `tcsi` name a remote client signs on with.
    pub name: String,
    /// `builtin`, `uci:COMMAND` or `xboard:COMMAND`: the referee starts the
    /// engine behind an in-process bridge. Absent: a remote client.
    pub engine: Option<String>,
    /// Search depth for the built-in engine, 1 to 64.
    pub depth: Option<u32>,
    /// A remote player's secret: its client must present it on sign-on
    /// (`gamerec bridge --token`, or `GAMEREC_TOKEN`). 8 to 200 printable
    /// ASCII characters, no `"` or `\`. Required for every remote player
    /// when the referee listens on a non-loopback address.
    #[serde(default)]
    pub secret: Option<String>,
}

/// The EVENT.toml contents.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventConfig {
    /// PGN Event.
    pub event: String,
    /// PGN Site (default "?").
    #[serde(default)]
    pub site: Option<String>,
    /// PGN Date (default: today, UTC).
    #[serde(default)]
    pub date: Option<String>,
    /// PGN TimeControl syntax: `40/9000:3600`, `300`, `4500+60`, `*180`, `-`.
    pub time_control: String,
    /// Pairing system.
    #[serde(default = "default_pairing")]
    pub pairing: Pairing,
    /// Round-robin cycles, or gauntlet games per opponent (default 1).
    #[serde(default = "one")]
    pub rounds: u32,
    /// Games of a match (default 2).
    #[serde(default)]
    pub games: Option<u32>,
    /// An EPD or PGN file of openings; each is played with both colours.
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Games played at the same time (default 1).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// Listen address (default 127.0.0.1:7878): `HOST:PORT`, HOST an IP
    /// address (IPv6 in brackets) or a name, looked up when the referee
    /// binds ([`ListenAddr`]).
    #[serde(default)]
    pub listen: Option<String>,
    /// Seconds of quiet after `reset` (default 5).
    #[serde(default)]
    pub reset_delay: Option<f64>,
    /// Seconds of quiet after `conclude` (default 5).
    #[serde(default)]
    pub conclude_delay: Option<f64>,
    /// Seconds a disconnected player has to come back (default 30).
    #[serde(default)]
    pub grace: Option<f64>,
    /// Seconds a player may stay silent in an untimed game (default 600).
    #[serde(default)]
    pub silence: Option<f64>,
    /// Milliseconds a clock may run past zero before its flag falls
    /// (default 0; at most 60000).
    #[serde(default)]
    pub margin_ms: Option<u64>,
    /// The players.
    #[serde(rename = "player")]
    pub players: Vec<PlayerConfig>,
}

fn default_pairing() -> Pairing {
    Pairing::RoundRobin
}

fn one() -> u32 {
    1
}

/// A listen address as written: `HOST:PORT`, HOST an IP address (IPv6 in
/// brackets) or a host name. It is read without a name lookup (a DNS
/// query, which may wait for the resolver's timeout): a name is looked up
/// when the referee binds ([`EventConfig::bind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddr {
    /// The host.
    pub host: ListenHost,
    /// The port.
    pub port: u16,
}

/// The host of a [`ListenAddr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenHost {
    /// An IP address.
    Ip(std::net::IpAddr),
    /// A host name (letters, digits, `-`, `_` in dot-separated labels of
    /// 1 to 63 bytes, at most 253 bytes in all), to look up.
    Name(String),
}

impl ListenAddr {
    /// Reads `HOST:PORT`; the error says what is wrong, without the text.
    pub fn parse(text: &str) -> Result<ListenAddr, String> {
        if let Ok(addr) = text.parse::<std::net::SocketAddr>() {
            return Ok(ListenAddr {
                host: ListenHost::Ip(addr.ip()),
                port: addr.port(),
            });
        }
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err("HOST:PORT expected".into());
        };
        let port = port
            .parse::<u16>()
            .map_err(|_| "the port is not a number from 0 to 65535".to_owned())?;
        if let Ok(ip) = host.parse::<std::net::IpAddr>() {
            return Ok(ListenAddr {
                host: ListenHost::Ip(ip),
                port,
            });
        }
        let name = host.strip_suffix('.').unwrap_or(host);
        let label_ok = |l: &str| {
            (1..=63).contains(&l.len())
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        if name.len() > 253 || !name.split('.').all(label_ok) {
            return Err("the host is neither an IP address nor a host name".into());
        }
        Ok(ListenAddr {
            host: ListenHost::Name(host.to_owned()),
            port,
        })
    }
}

/// Reads a listen address; the error quotes it.
fn read_listen(listen: &str) -> Result<ListenAddr, EventError> {
    ListenAddr::parse(listen).map_err(|e| {
        EventError(format!(
            "listen address '{}': {e}",
            gamerec::excerpt::excerpt(listen)
        ))
    })
}

/// A problem with an event file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError(pub String);

impl std::fmt::Display for EventError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EventError {}

/// The largest time margin an event may give (a minute).
pub const MAX_MARGIN_MS: u64 = 60_000;

/// Most games one event may schedule (bounds memory on hostile input).
pub const MAX_GAMES: usize = 100_000;

/// The longest event, site, date or time control an event may give: each
/// game has its own copy.
pub const MAX_TEXT_LEN: usize = 200;

/// The longest TOML message kept, in bytes; a longer one (quoting a long
/// value) is cut.
const MAX_TOML_MESSAGE: usize = 300;

/// A TOML error as `LINE:COLUMN: message`, without the source line the
/// parser's own text quotes (a line may be of any length).
fn toml_error(text: &str, e: &toml::de::Error) -> EventError {
    let message = e.message().trim_end();
    let message = match message.floor_char_boundary(MAX_TOML_MESSAGE) {
        cut if cut < message.len() => format!("{}…", &message[..cut]),
        _ => message.to_owned(),
    };
    match e.span() {
        Some(span) => {
            let at = gamerec::diag::LineIndex::new(text.as_bytes()).line_col(span.start as u64);
            EventError(format!("{at}: {message}"))
        }
        None => EventError(message),
    }
}

fn seconds(value: Option<f64>, default: f64, what: &str) -> Result<Duration, EventError> {
    let v = value.unwrap_or(default);
    if !(0.0..=86_400.0).contains(&v) {
        return Err(EventError(format!(
            "{what} must be between 0 and 86400 seconds"
        )));
    }
    Ok(Duration::from_secs_f64(v))
}

impl EventConfig {
    /// Parses and checks an EVENT.toml text.
    pub fn parse(text: &str) -> Result<EventConfig, EventError> {
        let config: EventConfig = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
        for (what, text) in [
            ("event", Some(&config.event)),
            ("site", config.site.as_ref()),
            ("date", config.date.as_ref()),
            ("time_control", Some(&config.time_control)),
        ] {
            if text.is_some_and(|t| t.len() > MAX_TEXT_LEN) {
                return Err(EventError(format!(
                    "{what} must have at most {MAX_TEXT_LEN} bytes"
                )));
            }
        }
        config.time_control()?;
        config.timing()?;
        let mut names: Vec<&str> = config.players.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(EventError("player names must be unique".into()));
        }
        if config.players.len() < 2 {
            return Err(EventError("an event needs at least two players".into()));
        }
        if config
            .players
            .iter()
            .any(|p| p.name.is_empty() || p.name.len() > 100)
        {
            return Err(EventError(
                "player names must have 1 to 100 characters".into(),
            ));
        }
        for p in &config.players {
            if let Some(engine) = &p.engine {
                engine
                    .parse::<gamerec_engine::EngineSetup>()
                    .map_err(|e| EventError(format!("player {}: {e}", p.name)))?;
            }
            if p.depth.is_some_and(|d| !(1..=64).contains(&d)) {
                return Err(EventError(format!(
                    "player {}: depth must be from 1 to 64",
                    p.name
                )));
            }
            let Some(secret) = &p.secret else { continue };
            if p.engine.is_some() {
                return Err(EventError(format!(
                    "player {}: an engine run by the referee takes no secret",
                    p.name
                )));
            }
            if !(8..=200).contains(&secret.len())
                || !secret
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
            {
                return Err(EventError(format!(
                    "player {}: a secret has 8 to 200 printable ASCII characters, no \" or \\",
                    p.name
                )));
            }
        }
        if let Some(listen) = &config.listen {
            config.check_listen(listen)?;
        }
        Ok(config)
    }

    /// Who may sign on as whom (for [`crate::lobby::Lobby::with_identities`]).
    pub fn identities(&self) -> crate::lobby::Identities {
        let mut ids = crate::lobby::Identities::default();
        for p in &self.players {
            if p.engine.is_some() {
                ids.engines.insert(p.name.clone());
            } else if let Some(secret) = &p.secret {
                ids.secrets.insert(p.name.clone(), secret.clone());
            }
        }
        ids
    }

    /// Checks, as far as the text tells (no name is looked up), that the
    /// referee may listen on `listen`: `HOST:PORT`; a loopback address
    /// always; any other address only if every remote player has a secret
    /// (anyone who can reach the port could otherwise play under their
    /// names). A host name's addresses are checked when the referee binds
    /// ([`EventConfig::bind`]).
    pub fn check_listen(&self, listen: &str) -> Result<(), EventError> {
        match read_listen(listen)?.host {
            ListenHost::Ip(ip) => self.check_listen_on(listen, &[ip]),
            ListenHost::Name(_) => Ok(()),
        }
    }

    /// Binds the referee's port at `listen`: a host name is looked up here,
    /// and the addresses it has must pass [`EventConfig::check_listen`]'s
    /// rule; the port is bound on those addresses.
    pub async fn bind(&self, listen: &str) -> Result<tokio::net::TcpListener, EventError> {
        use std::net::SocketAddr;
        let shown = gamerec::excerpt::excerpt(listen);
        let addr = read_listen(listen)?;
        let addrs: Vec<SocketAddr> = match &addr.host {
            ListenHost::Ip(ip) => vec![SocketAddr::new(*ip, addr.port)],
            ListenHost::Name(name) => tokio::net::lookup_host((name.as_str(), addr.port))
                .await
                .map_err(|e| EventError(format!("cannot listen on {shown}: {e}")))?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(EventError(format!(
                "cannot listen on {shown}: the name has no address"
            )));
        }
        let ips: Vec<std::net::IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
        self.check_listen_on(listen, &ips)?;
        tokio::net::TcpListener::bind(&addrs[..])
            .await
            .map_err(|e| EventError(format!("cannot listen on {shown}: {e}")))
    }

    /// The rule of [`EventConfig::check_listen`] on the addresses `ips`
    /// that `listen` stands for.
    fn check_listen_on(&self, listen: &str, ips: &[std::net::IpAddr]) -> Result<(), EventError> {
        if !ips.is_empty() && ips.iter().all(std::net::IpAddr::is_loopback) {
            return Ok(());
        }
        let open: Vec<&str> = self
            .players
            .iter()
            .filter(|p| p.engine.is_none() && p.secret.is_none())
            .map(|p| p.name.as_str())
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        // The first few names: an event may have any number of players.
        const SHOWN: usize = 5;
        let mut names = open[..open.len().min(SHOWN)].join(", ");
        if open.len() > SHOWN {
            names.push_str(&format!(" and {} more", open.len() - SHOWN));
        }
        Err(EventError(format!(
            "listening on {} (not loopback) needs a secret for every remote player; none for: {names}",
            gamerec::excerpt::excerpt(listen)
        )))
    }

    /// Reads and checks an EVENT.toml file.
    pub fn load(path: &Path) -> Result<EventConfig, EventError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
        EventConfig::parse(&text).map_err(|e| EventError(format!("{}: {}", path.display(), e.0)))
    }

    /// The parsed time control.
    pub fn time_control(&self) -> Result<TimeControl, EventError> {
        crate::clock::parse_time_control(&self.time_control).map_err(|e| EventError(e.to_string()))
    }

    /// The protocol delays.
    pub fn timing(&self) -> Result<Timing, EventError> {
        Ok(Timing {
            reset_delay: seconds(self.reset_delay, 5.0, "reset_delay")?,
            conclude_delay: seconds(self.conclude_delay, 5.0, "conclude_delay")?,
            grace: seconds(self.grace, 30.0, "grace")?,
            silence: seconds(self.silence, 600.0, "silence")?,
            margin: match self.margin_ms {
                Some(ms) if ms > MAX_MARGIN_MS => {
                    return Err(EventError(format!(
                        "margin_ms must be at most {MAX_MARGIN_MS}"
                    )));
                }
                ms => Duration::from_millis(ms.unwrap_or(0)),
            },
            relay_allowance: None,
        })
    }

    /// The games to play, in order. `base` resolves a relative openings path.
    pub fn schedule(&self, base: &Path) -> Result<Vec<GameSpec>, EventError> {
        let tc = self.time_control()?;
        let openings = match &self.openings {
            Some(p) => {
                let path = if p.is_absolute() {
                    p.clone()
                } else {
                    base.join(p)
                };
                load_openings(&path)?
            }
            None => Vec::new(),
        };
        // Every game of an opening shares its moves.
        let openings: Vec<(Chess, Arc<[String]>)> = openings
            .into_iter()
            .map(|(start, moves)| (start, moves.into()))
            .collect();
        let names: Vec<&str> = self.players.iter().map(|p| p.name.as_str()).collect();
        let pairs = pairings(self.pairing, &names, self.rounds, self.games.unwrap_or(2))?;
        let date = self.date.clone().unwrap_or_else(crate::log::pgn_date_today);
        Ok(pairs
            .into_iter()
            .enumerate()
            .map(|(i, (round, white, black))| {
                let (start, opening) = if openings.is_empty() {
                    (Chess::default(), Arc::default())
                } else {
                    openings[(i / 2) % openings.len()].clone()
                };
                GameSpec {
                    number: i as u32 + 1,
                    event: self.event.clone(),
                    site: self.site.clone().unwrap_or_else(|| "?".into()),
                    date: date.clone(),
                    round,
                    white: white.to_owned(),
                    black: black.to_owned(),
                    start,
                    opening,
                    time_control: tc.clone(),
                    black_time_control: None,
                }
            })
            .collect())
    }
}

/// (round, white, black) for every game.
pub fn pairings<'a>(
    system: Pairing,
    names: &[&'a str],
    rounds: u32,
    games: u32,
) -> Result<Vec<(String, &'a str, &'a str)>, EventError> {
    if names.len() < 2 {
        return Err(EventError("an event needs at least two players".into()));
    }
    let mut out = Vec::new();
    let guard = |n: usize| {
        if n > MAX_GAMES {
            Err(EventError(format!("more than {MAX_GAMES} games")))
        } else {
            Ok(())
        }
    };
    let rounds_of = |per_round: usize| (rounds as usize).saturating_mul(per_round);
    match system {
        Pairing::Match => {
            guard(games as usize)?;
            for g in 0..games {
                let (w, b) = if g % 2 == 0 {
                    (names[0], names[1])
                } else {
                    (names[1], names[0])
                };
                out.push(((g + 1).to_string(), w, b));
            }
        }
        Pairing::Gauntlet => {
            guard(rounds_of(names.len()))?;
            for r in 0..rounds {
                for other in &names[1..] {
                    let (w, b) = if r % 2 == 0 {
                        (names[0], *other)
                    } else {
                        (*other, names[0])
                    };
                    out.push(((r + 1).to_string(), w, b));
                }
            }
        }
        Pairing::RoundRobin => {
            let mut ring: Vec<Option<&str>> = names.iter().map(|n| Some(*n)).collect();
            if ring.len() % 2 == 1 {
                ring.push(None);
            }
            let n = ring.len();
            guard(rounds_of(n.saturating_mul(n) / 2))?;
            let mut round_no = 0;
            for cycle in 0..rounds {
                let mut r = ring.clone();
                for turn in 0..n - 1 {
                    round_no += 1;
                    for board in 0..n / 2 {
                        let (x, y) = (r[board], r[n - 1 - board]);
                        let (Some(x), Some(y)) = (x, y) else { continue };
                        // Alternate the fixed player's colour from round to round.
                        let flip = (board == 0 && turn % 2 == 1) ^ (cycle % 2 == 1);
                        let (w, b) = if flip { (y, x) } else { (x, y) };
                        out.push((round_no.to_string(), w, b));
                    }
                    // Circle method: keep the first, rotate the rest.
                    let last = r.pop().flatten();
                    r.insert(1, last);
                }
            }
        }
    }
    Ok(out)
}

/// Reads openings: EPD lines (position + optional hmvc/fmvn) or the main
/// lines of PGN games (SAN moves, optional FEN tag).
pub fn load_openings(path: &Path) -> Result<Vec<(Chess, Vec<String>)>, EventError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EventError(format!("{}: {e}", path.display())))?;
    let is_pgn = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    read_openings(&text, is_pgn).map_err(|e| EventError(format!("{}: {e}", path.display())))
}

/// Reads the openings of [`load_openings`] from the text of a PGN file
/// (`pgn`) or an EPD file: at least one.
pub fn read_openings(text: &str, pgn: bool) -> Result<Vec<(Chess, Vec<String>)>, String> {
    let openings = if pgn {
        pgn_openings(text)
    } else {
        epd_openings(text)
    }?;
    if openings.is_empty() {
        return Err("no openings".into());
    }
    Ok(openings)
}

/// Openings from EPD records (read with `gamerec::epd`; `#` lines are
/// comments): each record's position, `hmvc`/`fmvn` applied.
fn epd_openings(text: &str) -> Result<Vec<(Chess, Vec<String>)>, String> {
    let mut out = Vec::new();
    for line in gamerec::epd::read_lines(text) {
        if line.text.trim_start().starts_with('#') {
            continue;
        }
        if let Some(error) = line
            .diagnostics
            .iter()
            .find(|d| d.severity == gamerec::diag::Severity::Error)
        {
            return Err(format!("{}: {}", error.location, error.message));
        }
        let Some(record) = line.record else { continue };
        let pos = record.chess().clone();
        if pos.is_game_over() {
            return Err(format!(
                "line {}: the position is already over",
                line.number
            ));
        }
        out.push((pos, Vec::new()));
    }
    Ok(out)
}

/// Openings from PGN games (read with `gamerec::pgn`): each game's start
/// position and main line in SAN. A game with an error, or whose main line
/// the referee cannot play as book moves or which ends the game, fails the
/// book.
fn pgn_openings(text: &str) -> Result<Vec<(Chess, Vec<String>)>, String> {
    let (games, problems) = gamerec::pgn::read_games(text.as_bytes());
    if let Some(p) = problems
        .iter()
        .find(|p| p.severity == gamerec::diag::Severity::Error)
    {
        let at = gamerec::diag::LineIndex::new(text.as_bytes()).line_col(p.offset);
        return Err(format!("{at}: {}", p.message));
    }
    let mut out = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let moves: Vec<String> = game
            .tree
            .mainline()
            .filter_map(|id| game.tree.node(id).ply.as_ref().map(|p| p.san.clone()))
            .collect();
        if moves.is_empty() {
            continue;
        }
        // As `GameState::play_book_move` will play them.
        let mut pos = game.start.clone();
        for san in &moves {
            let mv = crate::game_rules::parse_move(&pos, san)
                .map_err(|e| format!("game {}: {e}", i + 1))?;
            pos.play_unchecked(mv);
        }
        if pos.is_game_over() {
            return Err(format!("game {}: the opening ends the game", i + 1));
        }
        out.push((game.start.clone(), moves));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_meets_everyone_once() {
        let names = ["a", "b", "c", "d", "e"];
        let games = pairings(Pairing::RoundRobin, &names, 2, 0).unwrap();
        assert_eq!(games.len(), 20);
        let mut seen = std::collections::HashMap::new();
        for (_, w, b) in &games[..10] {
            let key = if w < b { (*w, *b) } else { (*b, *w) };
            *seen.entry(key).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 10);
        assert!(seen.values().all(|&n| n == 1));
        // Second cycle reverses the colours of the first.
        for (g1, g2) in games[..10].iter().zip(&games[10..]) {
            assert_eq!((g1.1, g1.2), (g2.2, g2.1));
        }
        // Nobody plays twice in one round.
        for round in 1..=5 {
            let mut in_round: Vec<&str> = games
                .iter()
                .filter(|g| g.0 == round.to_string())
                .flat_map(|g| [g.1, g.2])
                .collect();
            let n = in_round.len();
            in_round.sort_unstable();
            in_round.dedup();
            assert_eq!(in_round.len(), n);
        }
    }

    #[test]
    fn match_and_gauntlet_alternate_colours() {
        let m = pairings(Pairing::Match, &["a", "b"], 1, 4).unwrap();
        let whites: Vec<&str> = m.iter().map(|g| g.1).collect();
        assert_eq!(whites, ["a", "b", "a", "b"]);
        let g = pairings(Pairing::Gauntlet, &["a", "b", "c"], 2, 0).unwrap();
        assert_eq!(g.len(), 4);
        assert_eq!((g[0].1, g[2].2), ("a", "a"));
    }

    #[test]
    fn pairings_of_many_players_and_rounds_are_refused_not_overflowed() {
        let names: Vec<String> = (0..1 << 17).map(|i| format!("p{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        // 2^17 * 2^17 * 2^30 games wrap to 0 in 64 bits.
        for system in [Pairing::RoundRobin, Pairing::Gauntlet] {
            let e = pairings(system, &names, 1 << 30, 2).unwrap_err();
            assert!(e.0.contains("more than"), "{e}");
        }
        for few in [&[][..], &["a"][..]] {
            for system in [Pairing::RoundRobin, Pairing::Gauntlet, Pairing::Match] {
                assert!(pairings(system, few, 1, 2).is_err(), "{system:?} {few:?}");
            }
        }
    }

    /// Half of `parsing_a_listen_name_looks_nothing_up`, which runs it in
    /// a child process with `GAMEREC_EVENT_CHILD` set and the resolver
    /// blocked (without it, it does nothing).
    #[test]
    fn parse_a_listen_name_in_child() {
        if std::env::var_os("GAMEREC_EVENT_CHILD").is_none() {
            return;
        }
        let text = "event = \"x\"\ntime_control = \"60\"\nlisten = \"nosuchhost:7878\"\n\
                    [[player]]\nname = \"a\"\n[[player]]\nname = \"b\"\n";
        let c = EventConfig::parse(text).unwrap();
        assert_eq!(c.listen.as_deref(), Some("nosuchhost:7878"));
    }

    /// Parsing an event looked its `listen` name up: a DNS query, as long
    /// as the resolver takes to give up. glibc reads the file named by
    /// `HOSTALIASES` to look up a name without a dot; here it is a FIFO
    /// nobody writes, so any lookup blocks for good. The event parses at
    /// once: the name is looked up when the referee binds.
    #[cfg(target_os = "linux")]
    #[test]
    fn parsing_a_listen_name_looks_nothing_up() {
        use std::process::{Command, Stdio};
        let dir = gamerec_testkit::temp_dir("event-resolver");
        let fifo = dir.join("hostaliases");
        if !Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            gamerec::say!("no mkfifo: skipped");
            return;
        }
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "event::tests::parse_a_listen_name_in_child",
                "--test-threads=1",
            ])
            .env("GAMEREC_EVENT_CHILD", "1")
            .env("HOSTALIASES", &fifo)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("parsing the event blocked in a name lookup");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "the child test failed");
    }

    /// A listen address is read as written: an IP address or a name (no
    /// lookup) and a port.
    #[test]
    fn listen_addresses_are_read_without_a_lookup() {
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        let ip = |ip: IpAddr, port| ListenAddr {
            host: ListenHost::Ip(ip),
            port,
        };
        let name = |name: &str, port| ListenAddr {
            host: ListenHost::Name(name.into()),
            port,
        };
        for (text, addr) in [
            ("127.0.0.1:7878", ip(Ipv4Addr::LOCALHOST.into(), 7878)),
            ("[::1]:0", ip(Ipv6Addr::LOCALHOST.into(), 0)),
            ("::1:7878", ip(Ipv6Addr::LOCALHOST.into(), 7878)),
            ("0.0.0.0:7878", ip(Ipv4Addr::UNSPECIFIED.into(), 7878)),
            ("localhost:7878", name("localhost", 7878)),
            ("nosuch.invalid:65535", name("nosuch.invalid", 65535)),
            ("ref-1.example.org.:80", name("ref-1.example.org.", 80)),
        ] {
            assert_eq!(ListenAddr::parse(text), Ok(addr), "{text}");
        }
        for text in [
            "",
            "7878",
            "localhost",
            ":7878",
            "localhost:",
            "localhost:port",
            "localhost:65536",
            "a..b:1",
            "a b:1",
            "[::1]x:1",
            &format!("{}:1", "a".repeat(64)),
        ] {
            assert!(ListenAddr::parse(text).is_err(), "{text:?}");
        }
        let long = format!("{}:1", "é".repeat(1 << 16));
        let e = EventConfig::parse(&format!(
            "event = \"x\"\ntime_control = \"60\"\nlisten = \"{long}\"\n\
             [[player]]\nname = \"a\"\n[[player]]\nname = \"b\"\n"
        ))
        .unwrap_err();
        assert!(e.0.starts_with("listen address '"), "{}", &e.0[..100]);
        assert!(e.0.len() < 1024, "{} bytes", e.0.len());
    }

    /// A name that does not resolve: the event parses (its players have
    /// no secrets, which only a non-loopback address refuses, and which
    /// the name's addresses will tell), and binding fails, naming it.
    #[test]
    fn a_listen_name_is_looked_up_when_binding() {
        let text = "event = \"x\"\ntime_control = \"60\"\nlisten = \"nosuch.invalid:7878\"\n\
                    [[player]]\nname = \"a\"\n[[player]]\nname = \"b\"\n";
        let c = EventConfig::parse(text).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let e = runtime.block_on(c.bind("nosuch.invalid:7878")).unwrap_err();
        assert!(
            e.0.starts_with("cannot listen on nosuch.invalid:7878: "),
            "{e}"
        );
        // An IP address is judged as the file is read; a loopback name
        // when binding.
        let open = EventConfig::parse(&text.replace("nosuch.invalid", "0.0.0.0")).unwrap_err();
        assert!(
            open.0.contains("needs a secret for every remote player"),
            "{open}"
        );
        let listener = runtime.block_on(c.bind("localhost:0")).unwrap();
        assert!(listener.local_addr().unwrap().ip().is_loopback());
        let e = runtime.block_on(c.bind("0.0.0.0:0")).unwrap_err();
        assert!(e.0.contains("needs a secret"), "{e}");
        let e = runtime.block_on(c.bind("localhost")).unwrap_err();
        assert_eq!(e.0, "listen address 'localhost': HOST:PORT expected");
    }

    /// The message named every player without a secret.
    #[test]
    fn a_listen_refusal_names_a_few_players() {
        let mut text = String::from("event = \"x\"\ntime_control = \"60\"\n");
        for i in 0..1000 {
            text.push_str(&format!("[[player]]\nname = \"{i:0>100}\"\n"));
        }
        let e = EventConfig::parse(&text)
            .unwrap()
            .check_listen("0.0.0.0:7878")
            .unwrap_err();
        assert!(e.0.len() < 1024, "{} bytes", e.0.len());
        assert!(e.0.ends_with(" and 995 more"), "{e}");
    }

    /// The TOML parser's message quoted the whole line of the error.
    #[test]
    fn a_toml_error_is_a_short_message_naming_its_place() {
        let long = "a".repeat(1 << 20);
        let text = format!("event = \"x\"\ntime_control = \"60\"\nbogus = \"{long}\"\n");
        let e = EventConfig::parse(&text).unwrap_err();
        assert!(
            e.0.starts_with("3:1: unknown field `bogus`"),
            "{}",
            &e.0[..100]
        );
        assert!(e.0.len() < 400, "{} bytes", e.0.len());
        let text = format!("event = \"x\"\ntime_control = \"60\"\nrounds = \"{long}\"\n");
        let e = EventConfig::parse(&text).unwrap_err();
        assert!(e.0.starts_with("3:10: "), "{}", &e.0[..100]);
        assert!(e.0.len() < 400, "{} bytes", e.0.len());
    }

    #[test]
    fn parses_event_file() {
        let text = r#"
event = "Argus Cup"
site = "Lab"
date = "2026.11.22"
time_control = "40/60+1"
pairing = "match"
games = 4
concurrency = 2
reset_delay = 0.1

[[player]]
name = "alpha"
engine = "builtin"
depth = 2

[[player]]
name = "remote"
"#;
        let c = EventConfig::parse(text).unwrap();
        assert_eq!(c.players.len(), 2);
        assert_eq!(c.timing().unwrap().reset_delay, Duration::from_millis(100));
        let games = c.schedule(Path::new(".")).unwrap();
        assert_eq!(games.len(), 4);
        assert_eq!(games[1].white, "remote");
        assert_eq!(games[3].tags("*")[7].1, "40/60+1");
        for bad in [
            text.replace("40/60+1", "forty"),
            text.replace("reset_delay = 0.1", "reset_delay = -1"),
            text.replace("name = \"remote\"", "name = \"alpha\""),
            text.replace("games = 4", "gamez = 4"),
            text.replace("engine = \"builtin\"", "engine = \"stockfish\""),
            text.replace("depth = 2", "depth = 1000"),
            text.replace("depth = 2", "depth = 0"),
            text.replace("Argus Cup", &"A".repeat(MAX_TEXT_LEN + 1)),
            text.replace("40/60+1", &["40/60"; 100].join(":")),
        ] {
            assert!(EventConfig::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn openings_from_epd_and_pgn() {
        let dir = std::env::temp_dir().join(format!("argus-openings-{}", std::process::id()));
        gamerec_testkit::remove_at_exit(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("o.epd");
        std::fs::write(
            &epd,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 hmvc 0; fmvn 1;\n\n",
        )
        .unwrap();
        let o = load_openings(&epd).unwrap();
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].0.turn(), shakmaty::Color::Black);
        let pgn = dir.join("o.pgn");
        std::fs::write(
            &pgn,
            "[Event \"x\"]\n\n1. e4 {best} c5 (1... e5 2. Nf3) 2. Nf3 $1 d6 *\n\n[Event \"y\"]\n\n1. d4 d5 1/2-1/2\n",
        )
        .unwrap();
        let o = load_openings(&pgn).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].1, ["e4", "c5", "Nf3", "d6"]);
        assert_eq!(o[1].1, ["d4", "d5"]);
        std::fs::write(&pgn, "1. e4 e4 *\n").unwrap();
        assert!(load_openings(&pgn).is_err());
        assert_eq!(
            read_openings("\n", false).unwrap_err(),
            "no openings".to_owned()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each game had its own copy of its opening's moves: a book line of
    /// thousands of plies times 100,000 games.
    #[test]
    fn games_share_their_openings() {
        let dir = std::env::temp_dir().join(format!("argus-shared-{}", std::process::id()));
        gamerec_testkit::remove_at_exit(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("book.pgn"), "1. e4 e5 2. Nf3 Nc6 *\n").unwrap();
        let text = "event = \"e\"\ntime_control = \"60\"\npairing = \"match\"\ngames = 6\n\
                    openings = \"book.pgn\"\n[[player]]\nname = \"a\"\n[[player]]\nname = \"b\"\n";
        let games = EventConfig::parse(text).unwrap().schedule(&dir).unwrap();
        assert_eq!(games.len(), 6);
        assert_eq!(&games[0].opening[..], ["e4", "e5", "Nf3", "Nc6"]);
        assert!(
            games
                .iter()
                .all(|g| Arc::ptr_eq(&g.opening, &games[0].opening))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A book line ending in mate or stalemate would start a game nobody
    /// can move in (its side to move would lose on time); EPD openings were
    /// already refused for it.
    #[test]
    fn pgn_openings_that_end_the_game_are_refused() {
        let mate = "[Event \"x\"]\n\n1. d4 e5 *\n\n[Event \"y\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
        let e = read_openings(mate, true).unwrap_err();
        assert_eq!(e, "game 2: the opening ends the game");
        let stalemate = "[Event \"x\"]\n[FEN \"k7/8/1Q6/8/8/8/8/K7 w - - 0 1\"]\n\n1. Qc7 *\n";
        assert!(read_openings(stalemate, true).is_err());
        let null = "1. e4 -- 2. d4 *\n";
        let e = read_openings(null, true).unwrap_err();
        assert!(e.starts_with("game 1: null move"), "{e}");
    }
}
