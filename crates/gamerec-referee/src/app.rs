//! Blocking entry points for the command line: `referee serve`, `bridge`
//! and `match`. Each builds its own tokio runtime so the CLI stays thin.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::bridge::{BridgeSummary, EnginePlayer, run_bridge_with_token};
use crate::conn::Line;
use crate::director::{Command, EventSummary, Live, RunOptions, run_event};
use crate::event::{EventConfig, EventError};

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

/// Cancels `cancel` on Ctrl-C (SIGINT) or SIGTERM: games in flight are
/// saved as they stand and the run ends cleanly.
fn ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        r = tokio::signal::ctrl_c() => if r.is_err() { return },
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    if tokio::signal::ctrl_c().await.is_err() {
                        return;
                    }
                }
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        gamerec::say!("argus: stopping: games in flight are saved");
        cancel.cancel();
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
            let mut input = std::io::stdin().lock();
            let mut buf = Vec::new();
            while let Ok(Some(line)) = read_console_line(&mut input, &mut buf) {
                let line = match line {
                    Line::Text(line) => line,
                    Line::TooLong => {
                        gamerec::say!(
                            "console: a line longer than {MAX_CONSOLE_LINE} bytes, ignored"
                        );
                        continue;
                    }
                    Line::NotText => {
                        gamerec::say!("console: a line that is not UTF-8, ignored");
                        continue;
                    }
                };
                if line.trim().is_empty() {
                    continue;
                }
                match Command::parse(&line) {
                    Ok(c) => {
                        if tx.blocking_send(c).is_err() {
                            break;
                        }
                    }
                    Err(e) => gamerec::say!("{e}"),
                }
            }
        });
    if let Err(e) = spawned {
        gamerec::say!("no console: {e}");
    }
    rx
}

/// The longest console line read; a longer one is skipped.
const MAX_CONSOLE_LINE: usize = 4096;

/// Reads one console line (without its terminator) into `buf`, skipping
/// the rest of a line longer than [`MAX_CONSOLE_LINE`] so that memory stays
/// bounded (as `conn::read_line_bounded` does for clients). `Ok(None)` at
/// the end of the input.
fn read_console_line(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Line>> {
    use std::io::{BufRead, Read};
    buf.clear();
    let n = input
        .by_ref()
        .take(MAX_CONSOLE_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if n > MAX_CONSOLE_LINE {
        loop {
            let chunk = input.fill_buf()?;
            let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), chunk.is_empty()),
            };
            input.consume(used);
            if done {
                return Ok(Some(Line::TooLong));
            }
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(s) => Line::Text(s.to_owned()),
        Err(_) => Line::NotText,
    }))
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
            gamerec::say!("observing the primary at {primary}; taking over when it stops");
            tokio::select! {
                () = wait_for_primary_to_die(primary) => {}
                () = cancel.cancelled() => return Err(EventError("interrupted".into())),
            }
            gamerec::say!("primary is gone: resuming the event from {}", dir.display());
        }
        // A name is looked up here, not when the event file is read.
        let listener = config.bind(&listen).await?;
        if let Ok(addr) = listener.local_addr() {
            gamerec::say!("argus: listening on {addr}");
        }
        let live = Live::default();
        if let Some(http) = &options.http {
            let l = TcpListener::bind(http)
                .await
                .map_err(|e| EventError(format!("cannot listen on {http}: {e}")))?;
            if let Ok(addr) = l.local_addr() {
                gamerec::say!("argus: spectator page at http://{addr}/");
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
                            gamerec::say!("bridge: {addr}: {e}");
                        }
                    }
                    gamerec::say!("bridge: lost {addr}; reconnecting");
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

/// `gamerec match`: plays (or resumes) a match with [`crate::match_runner::run`]
/// on its own runtime; Ctrl-C stops it (games in flight are replayed by
/// `--resume`).
pub fn run_match(
    config: &crate::match_runner::MatchConfig,
    run: &crate::match_runner::RunMatch,
) -> Result<crate::match_runner::MatchOutcome, EventError> {
    runtime()?.block_on(async move {
        let cancel = CancellationToken::new();
        ctrl_c(cancel.clone());
        crate::match_runner::run(config, run, cancel).await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The console read whole lines, however long (the memory of a
    /// megabyte line from a pipe), and stopped at a line not in UTF-8.
    #[test]
    fn console_lines_are_bounded_and_a_bad_one_is_skipped() {
        let long = "a".repeat(4 * MAX_CONSOLE_LINE);
        let exact = "b".repeat(MAX_CONSOLE_LINE);
        let mut bytes = format!("pause\r\n{long}\n").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        bytes.extend_from_slice(format!("resume\n{exact}\n{long}").as_bytes());
        let mut input = std::io::Cursor::new(bytes);
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        while let Some(line) = read_console_line(&mut input, &mut buf).unwrap() {
            assert!(buf.capacity() <= 2 * MAX_CONSOLE_LINE + 64);
            lines.push(line);
        }
        assert_eq!(
            lines,
            [
                Line::Text("pause".into()),
                Line::TooLong,
                Line::NotText,
                Line::Text("resume".into()),
                Line::Text(exact),
                Line::TooLong,
            ]
        );
    }
}
