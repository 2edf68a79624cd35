//! Blocking entry points for the command line: `referee serve`, `bridge`
//! and `match`. Each builds its own tokio runtime so the CLI stays thin.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::bridge::{BridgeSummary, EnginePlayer, run_bridge_with_token};
use crate::director::{Command, EventSummary, Live, RunOptions, run_event};
use crate::event::{EventConfig, EventError, Pairing, PlayerConfig};

/// Default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7878";

/// Options of `gamerec referee serve`.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// The EVENT.toml file.
    pub event: PathBuf,
    /// The event directory (default: the event file's directory).
    pub dir: Option<PathBuf>,
    /// Listen address (default: the event's, else 127.0.0.1:7878).
    pub listen: Option<String>,
    /// Overrides the event's concurrency.
    pub concurrency: Option<usize>,
    /// Run as observer of the primary at this address; take over when it dies.
    pub observe: Option<String>,
    /// Serve the spectator page at this address.
    pub http: Option<String>,
    /// Serial mode: the two players' pipes or devices, `IN:OUT` each.
    pub serial: Vec<String>,
    /// Echo the log to stderr.
    pub verbose: bool,
}

fn runtime() -> Result<tokio::runtime::Runtime, EventError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| EventError(format!("cannot start the runtime: {e}")))
}

fn ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
}

/// Reads supervisor commands from stdin (when it is a terminal or a pipe)
/// on a thread of its own: a blocking read there never holds up the end of
/// the event (a read on tokio's blocking pool would keep the runtime from
/// shutting down until stdin closes).
fn console() -> mpsc::Receiver<Command> {
    let (tx, rx) = mpsc::channel(16);
    let spawned = std::thread::Builder::new()
        .name("console".into())
        .spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                match Command::parse(&line) {
                    Ok(c) => {
                        if tx.blocking_send(c).is_err() {
                            break;
                        }
                    }
                    Err(e) => eprintln!("{e}"),
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("no console: {e}");
    }
    rx
}

/// Waits until nothing accepts connections at `addr` three times running.
async fn wait_for_primary_to_die(addr: &str) {
    let mut failures = 0;
    while failures < 3 {
        let alive = matches!(
            tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(addr)).await,
            Ok(Ok(_))
        );
        failures = if alive { 0 } else { failures + 1 };
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// `gamerec referee serve`.
pub fn serve(options: ServeOptions) -> Result<EventSummary, EventError> {
    let config = EventConfig::load(&options.event)?;
    let base = options
        .event
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let dir = options.dir.clone().unwrap_or_else(|| base.clone());
    let listen = options
        .listen
        .clone()
        .or_else(|| config.listen.clone())
        .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
    runtime()?.block_on(async move {
        let cancel = CancellationToken::new();
        ctrl_c(cancel.clone());
        if let Some(primary) = &options.observe {
            eprintln!("observing the primary at {primary}; taking over when it stops");
            tokio::select! {
                () = wait_for_primary_to_die(primary) => {}
                () = cancel.cancelled() => return Err(EventError("interrupted".into())),
            }
            eprintln!("primary is gone: resuming the event from {}", dir.display());
        }
        config.check_listen(&listen)?;
        let listener = TcpListener::bind(&listen)
            .await
            .map_err(|e| EventError(format!("cannot listen on {listen}: {e}")))?;
        if let Ok(addr) = listener.local_addr() {
            eprintln!("argus: listening on {addr}");
        }
        let live = Live::default();
        if let Some(http) = &options.http {
            let l = TcpListener::bind(http)
                .await
                .map_err(|e| EventError(format!("cannot listen on {http}: {e}")))?;
            if let Ok(addr) = l.local_addr() {
                eprintln!("argus: spectator page at http://{addr}/");
            }
            tokio::spawn(crate::spectator::serve_http(
                l,
                live.clone(),
                cancel.clone(),
            ));
        }
        let console = Some(console());
        let run = RunOptions {
            concurrency: options.concurrency,
            echo_log: options.verbose,
            serial: options.serial.clone(),
            base,
            live,
        };
        let summary =
            run_event(&config, &dir, Some(listener), run, cancel.clone(), console).await?;
        cancel.cancel();
        Ok(summary)
    })
}

/// Options of `gamerec bridge`.
#[derive(Debug, Clone, Default)]
pub struct BridgeOptions {
    /// `builtin`, `builtin:DEPTH`, `uci:CMD`, `xboard:CMD`.
    pub engine: String,
    /// Referee addresses, tried in turn (fail-over).
    pub addresses: Vec<String>,
    /// The name to sign on with.
    pub name: String,
    /// Reconnection attempts after a connection is lost.
    pub retries: u32,
    /// The player's secret, sent with the sign-on.
    pub token: Option<String>,
}

/// `gamerec bridge`: plays until the referee disconnects.
pub fn bridge(options: BridgeOptions) -> Result<BridgeSummary, EventError> {
    runtime()?.block_on(async move {
        let cancel = CancellationToken::new();
        ctrl_c(cancel.clone());
        let mut total = BridgeSummary::default();
        let mut attempts = 0u32;
        let mut failed_sessions = 0u32;
        let mut next = 0usize;
        loop {
            let addr = &options.addresses[next % options.addresses.len().max(1)];
            match TcpStream::connect(addr).await {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    attempts = 0;
                    let engine = EnginePlayer::start(&options.engine, None)
                        .map_err(|e| EventError(format!("engine: {e}")))?;
                    let token = options.token.as_deref();
                    let session =
                        run_bridge_with_token(stream, &options.name, token, engine, cancel.clone());
                    match session.await {
                        Ok(s) => {
                            total.games += s.games;
                            total.moves += s.moves;
                            if s.disconnected || cancel.is_cancelled() {
                                total.disconnected = s.disconnected;
                                return Ok(total);
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                            return Err(EventError(format!("{addr}: {e}")));
                        }
                        Err(e) => {
                            failed_sessions += 1;
                            if failed_sessions > options.retries {
                                return Err(EventError(format!("{addr}: {e}")));
                            }
                            eprintln!("bridge: {addr}: {e}");
                        }
                    }
                    eprintln!("bridge: lost {addr}; reconnecting");
                }
                Err(e) => {
                    attempts += 1;
                    if attempts > options.retries {
                        return Err(EventError(format!(
                            "cannot reach the referee at {addr}: {e}"
                        )));
                    }
                    next += 1;
                }
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(300)) => {}
                () = cancel.cancelled() => return Ok(total),
            }
        }
    })
}

/// Options of `gamerec match`.
#[derive(Debug, Clone)]
pub struct MatchOptions {
    /// The two engines (`builtin`, `uci:CMD`, `xboard:CMD`).
    pub engines: [String; 2],
    /// Games to play.
    pub games: u32,
    /// TimeControl.
    pub time_control: String,
    /// Games at once.
    pub concurrency: usize,
    /// Event directory (default: a fresh temporary one).
    pub dir: Option<PathBuf>,
    /// Openings file.
    pub openings: Option<PathBuf>,
    /// Event name.
    pub event: String,
    /// Echo the log.
    pub verbose: bool,
    /// Milliseconds a clock may run past zero before its flag falls.
    pub margin_ms: u64,
}

/// A fresh secret for a `gamerec match` player, so nothing else on the
/// machine can sign on under an engine's name on the loopback port.
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

/// A player name for an engine spec: the program's file name.
pub fn engine_name(spec: &str) -> String {
    let command = spec.split_once(':').map_or(
        spec,
        |(kind, rest)| {
            if kind == "builtin" { spec } else { rest }
        },
    );
    let command = command.split('|').next().unwrap_or(command);
    let program = command.split_whitespace().next().unwrap_or(command);
    Path::new(program)
        .file_name()
        .map_or_else(|| program.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// `gamerec match`: a local referee on 127.0.0.1 and two bridges over TCP.
/// Returns the summary and the event directory (with `games.pgn`).
pub fn run_match(options: MatchOptions) -> Result<(EventSummary, PathBuf), EventError> {
    let mut names = [
        engine_name(&options.engines[0]),
        engine_name(&options.engines[1]),
    ];
    if names[0] == names[1] {
        names[0].push_str("-1");
        names[1].push_str("-2");
    }
    let dir = match &options.dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!(
            "gamerec-match-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis())
        )),
    };
    let config = EventConfig {
        event: options.event.clone(),
        site: Some("127.0.0.1".into()),
        date: None,
        time_control: options.time_control.clone(),
        pairing: Pairing::Match,
        rounds: 1,
        games: Some(options.games),
        openings: options.openings.clone(),
        concurrency: Some(options.concurrency),
        listen: None,
        reset_delay: Some(0.05),
        conclude_delay: Some(0.05),
        grace: Some(5.0),
        silence: None,
        margin_ms: Some(options.margin_ms),
        players: names
            .iter()
            .map(|n| PlayerConfig {
                name: n.clone(),
                engine: None,
                depth: None,
                secret: Some(match_secret()),
            })
            .collect(),
    };
    config.time_control()?;
    config.timing()?;
    let base = std::env::current_dir().unwrap_or_default();
    runtime()?.block_on(async move {
        let cancel = CancellationToken::new();
        ctrl_c(cancel.clone());
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| EventError(format!("cannot listen on 127.0.0.1: {e}")))?;
        let addr: SocketAddr = listener
            .local_addr()
            .map_err(|e| EventError(e.to_string()))?;
        let bridge_cancel = CancellationToken::new();
        let mut bridges = tokio::task::JoinSet::new();
        let secrets: Vec<Option<String>> =
            config.players.iter().map(|p| p.secret.clone()).collect();
        for ((spec, name), secret) in options.engines.iter().zip(&names).zip(secrets) {
            for _ in 0..options.concurrency.clamp(1, options.games.max(1) as usize) {
                let engine = EnginePlayer::start(spec, None)
                    .map_err(|e| EventError(format!("{spec}: {e}")))?;
                let stream = TcpStream::connect(addr)
                    .await
                    .map_err(|e| EventError(e.to_string()))?;
                let _ = stream.set_nodelay(true);
                let (name, c, secret) = (name.clone(), bridge_cancel.clone(), secret.clone());
                bridges.spawn(async move {
                    run_bridge_with_token(stream, &name, secret.as_deref(), engine, c).await
                });
            }
        }
        let run = RunOptions {
            concurrency: Some(options.concurrency),
            echo_log: options.verbose,
            serial: Vec::new(),
            base,
            live: Live::default(),
        };
        let summary = run_event(&config, &dir, Some(listener), run, cancel, None).await;
        bridge_cancel.cancel();
        while bridges.join_next().await.is_some() {}
        Ok((summary?, dir))
    })
}
