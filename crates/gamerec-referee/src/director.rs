//! Runs a whole event: schedules the games with bounded concurrency, starts
//! built-in/engine players behind in-process bridges, persists every move in
//! the event directory (so a restarted referee resumes), writes the PGN, the
//! standings and the log, and obeys the supervisor's console commands.
//!
//! Event directory layout:
//!
//! | file | what |
//! |---|---|
//! | `games.pgn` | finished games, export format, in game-number order |
//! | `log.txt` | every record sent and received, timestamped |
//! | `standings.txt`, `standings.json` | the running standings |
//! | `state/game-NNNN.json` | moves and times of each started game (restart) |

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::Color;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::background::Background;
use crate::bridge::{EnginePlayer, run_local_bridge};
use crate::conn::{LocalClient, handle_client};
use crate::event::{EventConfig, EventError};
use crate::export::{ExportOptions, game_pgn_with};
use crate::game_rules::{Ending, EngineReport, GameState, Outcome, epd_fields};
use crate::game_runner::{Adjudicator, GameContext, GameSpec, Hook, RunEnd, Stop, run_game};
use crate::lobby::Lobby;
use crate::log::EventLog;
use crate::standings::{Standings, Table};

/// One move as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMove {
    /// SAN.
    pub san: String,
    /// Milliseconds the mover used.
    pub ms: u64,
    /// The referee's latency for the move in microseconds: from the
    /// reply's arrival to the opponent's `respond`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<u64>,
    /// The relay's overhead for the move in microseconds (the referee's
    /// measure less the engine's own time), when the engine's time was
    /// charged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_us: Option<u64>,
    /// What the mover's engine reported (`ce`, `depth`, `nodes`; absent
    /// when not reported).
    #[serde(flatten)]
    pub engine: EngineReport,
}

/// A game as persisted in `state/game-NNNN.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedGame {
    /// Game number.
    pub number: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Moves so far.
    pub moves: Vec<SavedMove>,
    /// The ending, once the game is over.
    pub ending: Option<Ending>,
}

/// A live view of one game, for the spectator page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveGame {
    /// Game number.
    pub number: u32,
    /// Round.
    pub round: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Current position, FEN.
    pub fen: String,
    /// Moves in SAN.
    pub moves: Vec<String>,
    /// White's clock, milliseconds left (None: untimed).
    pub white_ms: Option<u64>,
    /// Black's clock, milliseconds left.
    pub black_ms: Option<u64>,
    /// Side to move: "white" or "black".
    pub turn: String,
    /// Result token.
    pub result: String,
    /// Why it ended.
    pub reason: Option<String>,
    /// The last move in UCI (`e2e4`), for highlighting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_move: Option<String>,
    /// White's engine's last evaluation, from White's view:
    /// `{"cp": N, "depth": D}` or `{"mate": N, "depth": D}` (when reported).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_eval: Option<serde_json::Value>,
    /// Black's engine's last evaluation, from White's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_eval: Option<serde_json::Value>,
}

/// The last evaluation `side`'s engine reported in `state`, from White's
/// view, as the spectator page shows it.
fn last_eval(state: &GameState, side: Color) -> Option<serde_json::Value> {
    // The last move was made by the side not to move now, the one before
    // it by the other side, and so on back.
    let len = state.played().len();
    let mover_of = |i: usize| {
        if (len - 1 - i).is_multiple_of(2) {
            !state.turn()
        } else {
            state.turn()
        }
    };
    let (i, played) = state
        .played()
        .iter()
        .enumerate()
        .rev()
        .find(|(i, p)| mover_of(*i) == side && p.engine.ce.is_some())?;
    let score = crate::export::white_view_score(&played.engine, mover_of(i))?;
    let mut value = match score {
        gamerec::pgn::commands::Score::Mate(n) => serde_json::json!({ "mate": n }),
        gamerec::pgn::commands::Score::Centipawns(cp) => serde_json::json!({ "cp": cp }),
    };
    if let Some(depth) = played.engine.depth {
        value["depth"] = depth.into();
    }
    Some(value)
}

/// Shared live state: every game seen so far, plus a change signal.
#[derive(Debug, Clone)]
pub struct Live {
    games: Arc<Mutex<BTreeMap<u32, LiveGame>>>,
    standings: Arc<Mutex<Option<Standings>>>,
    changed: broadcast::Sender<()>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            games: Arc::default(),
            standings: Arc::default(),
            changed: broadcast::channel(16).0,
        }
    }
}

impl Live {
    /// A JSON snapshot: `{"games": [...], "standings": {...}}`.
    pub fn snapshot_json(&self) -> String {
        let games: Vec<LiveGame> = self
            .games
            .lock()
            .map(|g| g.values().cloned().collect())
            .unwrap_or_default();
        let standings = self.standings.lock().ok().and_then(|s| s.clone());
        serde_json::json!({ "games": games, "standings": standings }).to_string()
    }

    /// A receiver that fires on every change.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changed.subscribe()
    }

    fn update(&self, spec: &GameSpec, state: &GameState) {
        let live = LiveGame {
            number: spec.number,
            round: spec.round.clone(),
            white: spec.white.clone(),
            black: spec.black.clone(),
            fen: gamerec::fen::write_fen(state.position(), shakmaty::CastlingMode::Standard),
            moves: state.played().iter().map(|p| p.san.clone()).collect(),
            white_ms: state
                .clocks()
                .remaining(Color::White)
                .map(|d| d.as_millis() as u64),
            black_ms: state
                .clocks()
                .remaining(Color::Black)
                .map(|d| d.as_millis() as u64),
            turn: if state.turn().is_white() {
                "white"
            } else {
                "black"
            }
            .into(),
            result: state
                .ending()
                .map_or("*", |e| e.outcome.result_str())
                .into(),
            reason: state.ending().map(|e| e.reason.clone()),
            last_move: state
                .played()
                .last()
                .map(|p| p.mv.to_uci(shakmaty::CastlingMode::Standard).to_string()),
            white_eval: last_eval(state, Color::White),
            black_eval: last_eval(state, Color::Black),
        };
        if let Ok(mut g) = self.games.lock() {
            g.insert(spec.number, live);
        }
        let _ = self.changed.send(());
    }

    fn set_standings(&self, s: Standings) {
        if let Ok(mut slot) = self.standings.lock() {
            *slot = Some(s);
        }
        let _ = self.changed.send(());
    }
}

/// How to run an event.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Overrides the event's concurrency.
    pub concurrency: Option<usize>,
    /// Echo the log to stderr.
    pub echo_log: bool,
    /// Serial clients: `IN:OUT` pipe pairs or device paths (see `serial`).
    pub serial: Vec<String>,
    /// Where a relative `openings` path is resolved (the event file's directory).
    pub base: PathBuf,
    /// Live state for the spectator page.
    pub live: Live,
}

/// The outcome of running an event.
#[derive(Debug, Clone)]
pub struct EventSummary {
    /// Final (or, if interrupted, current) standings.
    pub standings: Standings,
    /// Games with a result.
    pub finished: u32,
    /// Games scheduled.
    pub total: u32,
    /// Writes that failed (state, PGN, standings, log): the event's record
    /// is incomplete when this is not empty.
    pub errors: Vec<String>,
}

/// A supervisor command, as typed on the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Stop starting new games.
    Pause,
    /// Start games again.
    Resume,
    /// End game N with a result (Termination "adjudication").
    Abort(u32, Outcome),
    /// Stop game N, keeping it to resume later.
    Adjourn(u32),
    /// Print the standings.
    Standings,
    /// List games in progress.
    Games,
    /// Adjourn everything and shut down.
    Quit,
}

impl Command {
    /// Parses a console line.
    pub fn parse(line: &str) -> Result<Command, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |w: Option<&&str>| {
            w.and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| "expected a game number".to_owned())
        };
        match words.as_slice() {
            ["pause"] => Ok(Command::Pause),
            ["resume"] => Ok(Command::Resume),
            ["standings"] => Ok(Command::Standings),
            ["games"] => Ok(Command::Games),
            ["quit"] => Ok(Command::Quit),
            ["adjourn"] => Err("expected a game number".into()),
            ["adjourn", n] => Ok(Command::Adjourn(number(Some(n))?)),
            ["abort", n, result] => {
                let outcome = match *result {
                    "1-0" => Outcome::Win(Color::White),
                    "0-1" => Outcome::Win(Color::Black),
                    "1/2-1/2" => Outcome::Draw,
                    "*" => Outcome::Unfinished,
                    _ => return Err("result must be 1-0, 0-1, 1/2-1/2 or *".into()),
                };
                Ok(Command::Abort(number(Some(n))?, outcome))
            }
            _ => Err(
                "commands: pause, resume, standings, games, abort N RESULT, adjourn N, quit".into(),
            ),
        }
    }
}

fn state_path(dir: &Path, number: u32) -> PathBuf {
    dir.join("state").join(format!("game-{number:04}.json"))
}

/// The writes that failed during an event: each is an error in the log
/// (and on stderr), in the standings and in the exit code.
#[derive(Debug, Clone, Default)]
pub struct Failures(Arc<Mutex<(Vec<String>, u64)>>);

/// Failures kept word for word (later ones are counted only).
const MAX_FAILURES_KEPT: usize = 20;

impl Failures {
    /// Records a failed write: logged, and told on stderr (the first few,
    /// then every hundredth, so a full disk does not flood the terminal).
    pub fn add(&self, log: &EventLog, what: &str) {
        log.note(&format!("error: {what}"));
        let Ok(mut f) = self.0.lock() else { return };
        f.1 += 1;
        if f.1 <= 10 || f.1.is_multiple_of(100) {
            gamerec::say!("argus: error: {what}");
        }
        if f.0.len() < MAX_FAILURES_KEPT {
            f.0.push(what.to_owned());
        }
    }

    /// The failures kept, and a line counting the rest.
    pub fn list(&self) -> Vec<String> {
        let Ok(f) = self.0.lock() else {
            return vec!["internal: failures lock poisoned".into()];
        };
        let mut out = f.0.clone();
        if f.1 > out.len() as u64 {
            out.push(format!("... {} failed writes in all", f.1));
        }
        out
    }

    /// Whether any write failed.
    pub fn any(&self) -> bool {
        self.0.lock().map_or(true, |f| f.1 > 0)
    }
}

/// A game's state as saved in `state/game-NNNN.json` (the work of
/// [`save`] done on the game's task).
pub fn saved_game(spec: &GameSpec, state: &GameState) -> SavedGame {
    SavedGame {
        number: spec.number,
        white: spec.white.clone(),
        black: spec.black.clone(),
        moves: state
            .played()
            .iter()
            .map(|p| SavedMove {
                san: p.san.clone(),
                ms: p.elapsed.as_millis() as u64,
                latency_us: p.latency.map(|l| l.as_micros() as u64),
                relay_us: p.relay.map(|l| l.as_micros() as u64),
                engine: p.engine,
            })
            .collect(),
        ending: state.ending().cloned(),
    }
}

/// Writes a game's state file.
fn save(dir: &Path, saved: &SavedGame) -> std::io::Result<()> {
    let text = serde_json::to_string(saved).map_err(std::io::Error::other)?;
    write_atomic(&state_path(dir, saved.number), text.as_bytes())
}

/// Replaces `path` with `bytes` through a temporary file, fsync and a
/// rename ([`gamerec::io::AtomicFile`]), so a reader (a restart, a
/// takeover, a tool polling the event directory) sees the old file or the
/// new one, never a truncated one, even after a crash. Errors name the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = gamerec::io::AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| gamerec::io::atomic::path_error(path, e))?;
    file.commit()
}

/// Reads a game's saved state: `None` if there is none; an error (the
/// event must not resume) if the file cannot be read or is damaged, since
/// replaying a finished game would lose it.
pub fn read_saved(dir: &Path, number: u32) -> Result<Option<SavedGame>, EventError> {
    let path = state_path(dir, number);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            EventError(format!(
                "{}: damaged state file ({e}); refusing to resume: repair it, or move it away to play game {number} again from its start",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EventError(format!("{}: {e}", path.display()))),
    }
}

/// Rebuilds a game from its saved moves (or from its opening if new): an
/// error when they do not replay.
pub fn restore(spec: &GameSpec, saved: Option<&SavedGame>) -> Result<GameState, EventError> {
    let mut state = GameState::new(spec.start.clone(), spec.clocks());
    match saved {
        Some(saved) => {
            if saved.white != spec.white || saved.black != spec.black {
                return Err(EventError(format!(
                    "state of game {} does not match the event's pairing",
                    spec.number
                )));
            }
            for (i, m) in saved.moves.iter().enumerate() {
                if i < spec.opening.len() {
                    state.play_book_move(&m.san)
                } else {
                    state.replay_move(&m.san, Duration::from_millis(m.ms))
                }
                .map_err(|e| EventError(format!("state of game {}: {e}", spec.number)))?;
                if let Some(us) = m.latency_us {
                    state.set_last_latency(Duration::from_micros(us));
                }
                if let Some(us) = m.relay_us {
                    state.set_last_relay(Duration::from_micros(us));
                }
                state.annotate_last(m.engine);
            }
            if let Some(e) = &saved.ending {
                state.end(e.outcome, e.termination, &e.reason);
            }
        }
        None => {
            for san in spec.opening.iter() {
                state
                    .play_book_move(san)
                    .map_err(|e| EventError(format!("opening of game {}: {e}", spec.number)))?;
            }
        }
    }
    Ok(state)
}

/// The finished games of the event: the one state both `games.pgn` and the
/// standings files are derived from.
struct Records {
    dir: PathBuf,
    event: String,
    total: u32,
    players: Vec<String>,
    finished: BTreeMap<u32, (GameSpec, GameState)>,
    export: ExportOptions,
    failures: Failures,
    log: EventLog,
}

impl Records {
    fn add(&mut self, spec: GameSpec, state: GameState) {
        self.finished.insert(spec.number, (spec, state));
    }

    /// The standings of the finished games.
    fn standings(&self) -> Standings {
        let mut table = Table::new(self.players.iter().map(String::as_str));
        for (spec, state) in self.finished.values() {
            if let Some(e) = state.ending() {
                table.add(&spec.white, &spec.black, e.outcome);
            }
        }
        table.standings(&self.event, self.total)
    }

    /// Writes `games.pgn`, then `standings.txt` and `standings.json`, each
    /// atomically: once the standings count a game, the PGN holds it. A
    /// failed write is recorded in `failures` and the standings say so.
    fn write(&self) -> Standings {
        let mut pgn = String::new();
        for (spec, state) in self.finished.values() {
            pgn.push_str(&game_pgn_with(spec, state, self.export));
        }
        let pgn_ok = match write_atomic(&self.dir.join("games.pgn"), pgn.as_bytes()) {
            Ok(()) => true,
            Err(e) => {
                self.failures
                    .add(&self.log, &format!("cannot save the games: {e}"));
                false
            }
        };
        let mut standings = self.standings();
        standings.unsaved = self.failures.list();
        if pgn_ok {
            // Standings never count a game the PGN does not hold.
            let json = serde_json::to_string_pretty(&standings).map_err(std::io::Error::other);
            let written = write_atomic(
                &self.dir.join("standings.txt"),
                standings.to_text().as_bytes(),
            )
            .and(json)
            .and_then(|json| {
                write_atomic(&self.dir.join("standings.json"), (json + "\n").as_bytes())
            });
            if let Err(e) = written {
                self.failures
                    .add(&self.log, &format!("cannot save the standings: {e}"));
                standings.unsaved = self.failures.list();
            }
        }
        standings
    }
}

/// What a match runner (`crate::match_runner`) plugs into an event.
#[derive(Clone, Default)]
pub struct EventHooks {
    /// The games to play, instead of the event file's schedule.
    pub schedule: Option<Vec<GameSpec>>,
    /// Called with each game as it starts, after every move and at its end.
    pub observer: Option<Hook>,
    /// Adjudication rules, checked after every move.
    pub adjudicator: Option<Adjudicator>,
    /// What `games.pgn` adds (engine data, GameDuration).
    pub export: ExportOptions,
    /// Charge the clients' own engine times, with this allowance for the
    /// relay ([`crate::game_runner::Timing::relay_allowance`]; the match
    /// runner, whose bridges are its own).
    pub relay_allowance: Option<Duration>,
    /// The lobby, when the caller seats clients of its own in it
    /// ([`crate::conn::LocalClient`]); else one from the event's identities.
    pub lobby: Option<Arc<Lobby>>,
    /// The event log, when the caller has opened it (for its own clients).
    pub log: Option<EventLog>,
}

impl std::fmt::Debug for EventHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHooks")
            .field("schedule", &self.schedule.as_ref().map(Vec::len))
            .field("observer", &self.observer.is_some())
            .field("adjudicator", &self.adjudicator.is_some())
            .field("export", &self.export)
            .field("relay_allowance", &self.relay_allowance)
            .field("lobby", &self.lobby.is_some())
            .finish()
    }
}

/// Runs `config` with its event directory `dir` (created if missing), taking
/// remote clients on `listener` (if any). Returns when every game has a
/// result, or when `cancel` fires or the supervisor quits (unfinished games
/// stay in `dir/state` and resume on the next run).
pub async fn run_event(
    config: &EventConfig,
    dir: &Path,
    listener: Option<TcpListener>,
    options: RunOptions,
    cancel: CancellationToken,
    console: Option<mpsc::Receiver<Command>>,
) -> Result<EventSummary, EventError> {
    run_event_with(
        config,
        dir,
        listener,
        options,
        EventHooks::default(),
        cancel,
        console,
    )
    .await
}

/// [`run_event`] with a match runner's hooks.
pub async fn run_event_with(
    config: &EventConfig,
    dir: &Path,
    listener: Option<TcpListener>,
    options: RunOptions,
    hooks: EventHooks,
    cancel: CancellationToken,
    mut console: Option<mpsc::Receiver<Command>>,
) -> Result<EventSummary, EventError> {
    let live = options.live.clone();
    let base = options.base.as_path();
    let io = |e: std::io::Error| EventError(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir.join("state")).map_err(io)?;
    let log = match hooks.log.clone() {
        Some(log) => log,
        None => EventLog::open(&dir.join("log.txt"), options.echo_log).map_err(io)?,
    };
    let specs = match hooks.schedule {
        Some(specs) => specs,
        None => config.schedule(base)?,
    };
    let mut timing = config.timing()?;
    if hooks.relay_allowance.is_some() {
        timing.relay_allowance = hooks.relay_allowance;
    }
    let concurrency = options
        .concurrency
        .or(config.concurrency)
        .unwrap_or(1)
        .clamp(1, 1024);

    let mut records = Records {
        dir: dir.to_owned(),
        event: config.event.clone(),
        total: specs.len() as u32,
        players: config.players.iter().map(|p| p.name.clone()).collect(),
        finished: BTreeMap::new(),
        export: hooks.export,
        failures: Failures::default(),
        log: log.clone(),
    };
    let failures = records.failures.clone();
    let mut pending = Vec::new();
    for spec in &specs {
        let saved = read_saved(dir, spec.number)?;
        let state = restore(spec, saved.as_ref())?;
        if state.ending().is_some() {
            live.update(spec, &state);
            records.add(spec.clone(), state);
        } else {
            if saved.is_some() {
                log.note(&format!(
                    "game {} resumes after {} moves",
                    spec.number,
                    state.played().len()
                ));
            }
            pending.push((spec.clone(), state));
        }
    }
    live.set_standings(records.write());
    log.note(&format!(
        "event '{}': {} games, {} to play, concurrency {concurrency}",
        config.event,
        specs.len(),
        pending.len()
    ));

    let lobby = hooks
        .lobby
        .clone()
        .unwrap_or_else(|| Arc::new(Lobby::with_identities(config.identities())));
    let conn_cancel = CancellationToken::new();
    let tracker = TaskTracker::new();
    if let Some(listener) = listener {
        tracker.spawn(crate::server::accept_loop(
            listener,
            lobby.clone(),
            log.clone(),
            conn_cancel.clone(),
            tracker.clone(),
        ));
    }
    for pair in &options.serial {
        let stream = crate::serial::open(pair)
            .await
            .map_err(|e| EventError(format!("serial {pair}: {e}")))?;
        log.note(&format!("serial client on {pair}"));
        tracker.spawn(handle_client(
            stream,
            lobby.clone(),
            log.clone(),
            conn_cancel.clone(),
        ));
    }
    // Engines: one bridge per game the player may be in at once.
    for player in &config.players {
        let Some(engine_spec) = &player.engine else {
            continue;
        };
        let games = pending
            .iter()
            .filter(|(s, _)| s.white == player.name || s.black == player.name)
            .count();
        for _ in 0..games.min(concurrency) {
            let engine = EnginePlayer::start(engine_spec, player.depth)
                .map_err(|e| EventError(format!("player {}: {e}", player.name)))?;
            let client = LocalClient::sign_on(&lobby, &player.name, None, &log)
                .map_err(|e| EventError(format!("player {}: {e}", player.name)))?;
            let cancel = conn_cancel.clone();
            tracker.spawn(async move {
                let _ = run_local_bridge(client, engine, cancel).await;
            });
        }
    }

    let records = Arc::new(Mutex::new(records));
    let dir_owned = dir.to_owned();
    let live_hook = live.clone();
    let observer = hooks.observer.clone();
    let (hook_failures, hook_log) = (failures.clone(), log.clone());
    // State files and reports are written off the move's path.
    let background = Background::start();
    let hook_background = background.clone();
    let ctx = GameContext {
        lobby: lobby.clone(),
        timing,
        log: log.clone(),
        hook: Arc::new(move |spec, state| {
            let saved = saved_game(spec, state);
            let (dir, failures, log) = (dir_owned.clone(), hook_failures.clone(), hook_log.clone());
            hook_background.save(spec.number, move || {
                if let Err(e) = save(&dir, &saved) {
                    failures.add(&log, &format!("cannot save game {}: {e}", saved.number));
                }
            });
            live_hook.update(spec, state);
            if let Some(observe) = &observer {
                if state.ending().is_some() {
                    // A game's end writes reports: after its last save.
                    let (observe, spec, state) = (observe.clone(), spec.clone(), state.clone());
                    hook_background.run(move || observe(&spec, &state));
                } else {
                    observe(spec, state);
                }
            }
        }),
        adjudicator: hooks.adjudicator.clone(),
    };
    let slots = Arc::new(Semaphore::new(concurrency));
    let (paused_tx, paused_rx) = watch::channel(false);
    let stops: Arc<Mutex<HashMap<u32, watch::Sender<Option<Stop>>>>> = Arc::default();
    let mut games = tokio::task::JoinSet::new();
    // Games take their slots in schedule order (tasks are polled in any
    // order): game i waits for its turn, then for a slot, then passes the turn.
    let (turn_tx, turn_rx) = watch::channel(0usize);
    let turn_tx = Arc::new(turn_tx);
    for (i, (spec, state)) in pending.into_iter().enumerate() {
        let (stop_tx, stop_rx) = watch::channel(None);
        if let Ok(mut s) = stops.lock() {
            s.insert(spec.number, stop_tx);
        }
        let (ctx, slots, records, live, background) = (
            ctx.clone(),
            slots.clone(),
            records.clone(),
            live.clone(),
            background.clone(),
        );
        let mut paused = paused_rx.clone();
        let mut stop_wait = stop_rx.clone();
        let (mut turn, turn_tx) = (turn_rx.clone(), turn_tx.clone());
        games.spawn(async move {
            let _permit = tokio::select! {
                p = async {
                    let _ = turn.wait_for(|n| *n >= i).await;
                    slots.acquire_owned().await.ok()
                } => p,
                _ = stop_wait.wait_for(|s| s.is_some()) => None,
            };
            turn_tx.send_modify(|n| *n = (*n).max(i + 1));
            let _ = paused.wait_for(|p| !*p).await;
            if stop_rx.borrow().is_some() && _permit.is_none() {
                return;
            }
            if let RunEnd::Finished(state) = run_game(&spec, state, &ctx, stop_rx).await {
                // `games.pgn` and the standings, after the game's last save.
                background.run(move || {
                    if let Ok(mut r) = records.lock() {
                        r.add(spec, state);
                        live.set_standings(r.write());
                    }
                });
            }
        });
    }

    let mut quit = false;
    loop {
        tokio::select! {
            done = games.join_next() => {
                if done.is_none() {
                    break;
                }
            }
            cmd = next_command(&mut console) => {
                let reply = match cmd {
                    Command::Pause => { let _ = paused_tx.send(true); "paused: no new games start".to_owned() }
                    Command::Resume => { let _ = paused_tx.send(false); "resumed".to_owned() }
                    Command::Standings => records.lock().map(|r| r.standings().to_text()).unwrap_or_default(),
                    Command::Games => games_text(&live),
                    Command::Abort(n, outcome) => send_stop(&stops, n, Stop::Abort(outcome)),
                    Command::Adjourn(n) => send_stop(&stops, n, Stop::Adjourn),
                    Command::Quit => { quit = true; String::new() }
                };
                if !reply.is_empty() {
                    // The console's reply; one that cannot be written is
                    // said on stderr (a panic here would stop the event).
                    use std::io::Write;
                    let mut out = std::io::stdout().lock();
                    if let Err(e) = writeln!(out, "{}", reply.trim_end()).and_then(|()| out.flush()) {
                        gamerec::say!("console: the reply cannot be written: {e}");
                    }
                }
                if quit { break; }
            }
            () = cancel.cancelled() => { quit = true; break; }
        }
    }
    if quit {
        if let Ok(s) = stops.lock() {
            for tx in s.values() {
                let _ = tx.send(Some(Stop::Adjourn));
            }
        }
        while games.join_next().await.is_some() {}
    }
    // Every game is over or adjourned: its files are written, and the
    // clients are told (EPD 8.1.2).
    let closing = background.clone();
    if tokio::task::spawn_blocking(move || closing.close())
        .await
        .is_err()
    {
        background.close();
    }
    conn_cancel.cancel();
    tracker.close();
    let _ = tokio::time::timeout(Duration::from_secs(5), tracker.wait()).await;
    let r = records
        .lock()
        .map_err(|_| EventError("internal: records lock poisoned".into()))?;
    let standings = r.write();
    log.note(&format!(
        "event ends: {} of {} games finished",
        standings.games_played, r.total
    ));
    let mut errors = failures.list();
    if log.has_failed() {
        errors.push(format!(
            "{}: log lines were lost",
            dir.join("log.txt").display()
        ));
    }
    if !errors.is_empty() {
        log.note(&format!(
            "event ends with {} failed writes: its record is incomplete",
            errors.len()
        ));
    }
    Ok(EventSummary {
        finished: standings.games_played,
        total: r.total,
        standings,
        errors,
    })
}

async fn next_command(console: &mut Option<mpsc::Receiver<Command>>) -> Command {
    match console {
        Some(rx) => match rx.recv().await {
            Some(c) => c,
            None => {
                *console = None;
                std::future::pending().await
            }
        },
        None => std::future::pending().await,
    }
}

fn send_stop(
    stops: &Mutex<HashMap<u32, watch::Sender<Option<Stop>>>>,
    n: u32,
    stop: Stop,
) -> String {
    match stops
        .lock()
        .ok()
        .and_then(|s| s.get(&n).map(|tx| tx.send(Some(stop.clone()))))
    {
        Some(Ok(())) => format!("game {n}: {stop:?}"),
        _ => format!("game {n} is not in progress"),
    }
}

fn games_text(live: &Live) -> String {
    let games = live.games.lock().map(|g| g.clone()).unwrap_or_default();
    let mut out = String::new();
    for g in games.values().filter(|g| g.result == "*") {
        out.push_str(&format!(
            "game {} round {}: {} - {}, {} moves, {} to move\n",
            g.number,
            g.round,
            g.white,
            g.black,
            g.moves.len(),
            g.turn
        ));
    }
    if out.is_empty() {
        out.push_str("no game in progress\n");
    }
    out
}

/// The start position's EPD fields (used by tools that sign on).
pub fn start_fields() -> String {
    epd_fields(&shakmaty::Chess::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clocks;

    fn report(ce: i32, depth: u32) -> EngineReport {
        EngineReport {
            ce: Some(ce),
            depth: Some(depth),
            nodes: None,
        }
    }

    #[test]
    fn console_commands_take_exactly_their_words() {
        assert_eq!(Command::parse(" adjourn\t7 "), Ok(Command::Adjourn(7)));
        assert_eq!(
            Command::parse("abort 3 1/2-1/2"),
            Ok(Command::Abort(3, Outcome::Draw))
        );
        for bad in [
            "adjourn",
            "adjourn x",
            "adjourn 7 8",
            "abort 3 1-0 now",
            "pause now",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad}");
        }
    }

    /// The spectator snapshot carries the last move in UCI and each engine's
    /// last evaluation from White's view (`ce` is the mover's view).
    #[test]
    fn live_game_has_last_move_and_each_engines_last_evaluation() {
        let mut state = GameState::new(
            shakmaty::Chess::default(),
            Clocks::new("-".parse().expect("time control")),
        );
        state.replay_move("e4", Duration::ZERO).expect("e4");
        state.annotate_last(report(30, 12));
        state.replay_move("e5", Duration::ZERO).expect("e5");
        state.annotate_last(report(-45, 11));
        state.replay_move("Nf3", Duration::ZERO).expect("Nf3");
        let spec = GameSpec {
            number: 1,
            event: "e".into(),
            site: "s".into(),
            date: "2026.11.24".into(),
            round: "1".into(),
            white: "w".into(),
            black: "b".into(),
            start: shakmaty::Chess::default(),
            opening: Vec::new().into(),
            time_control: "-".parse().expect("time control"),
            black_time_control: None,
        };
        let live = Live::default();
        live.update(&spec, &state);
        let snapshot: serde_json::Value =
            serde_json::from_str(&live.snapshot_json()).expect("json");
        let game = &snapshot["games"][0];
        assert_eq!(game["last_move"], "g1f3");
        // White's last report was with e4 (Nf3 had none); Black's -45 for
        // Black is +45 from White's view.
        assert_eq!(
            game["white_eval"],
            serde_json::json!({"cp": 30, "depth": 12})
        );
        assert_eq!(
            game["black_eval"],
            serde_json::json!({"cp": 45, "depth": 11})
        );
        state.replay_move("Qh4", Duration::ZERO).expect("Qh4");
        state.annotate_last(report(32767 - 3, 20));
        live.update(&spec, &state);
        let snapshot: serde_json::Value =
            serde_json::from_str(&live.snapshot_json()).expect("json");
        // A mate for Black (mate in 2 full moves by EPD's ce arithmetic)
        // is a negative mate from White's view.
        let mate = snapshot["games"][0]["black_eval"]["mate"]
            .as_i64()
            .expect("a mate score");
        assert!(mate < 0, "{snapshot}");
    }
}
