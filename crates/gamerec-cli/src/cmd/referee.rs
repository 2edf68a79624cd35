//! `gamerec referee serve`: the Argus referee running an event.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use gamerec_referee::app::{self, ServeOptions};

// The referee's subcommands.
#[derive(Subcommand, Debug)]
pub enum RefereeCommand {
    /// Run an event: a TCP server speaking the EPD referee protocol.
    #[command(after_help = "Examples:\n  \
        gamerec referee serve --event cup/EVENT.toml\n  \
        gamerec referee serve --event cup/EVENT.toml --listen 0.0.0.0:7878 --http 127.0.0.1:8080\n  \
        gamerec referee serve --event cup/EVENT.toml --observe 10.0.0.1:7878   # fail-over observer\n  \
        gamerec referee serve --event cup/EVENT.toml --serial /tmp/a.in:/tmp/a.out --serial /tmp/b.in:/tmp/b.out\n\n\
        Console commands on stdin: pause, resume, standings, games, abort N RESULT, adjourn N, quit.\n\
        The event directory receives games.pgn, log.txt, standings.txt, standings.json and state/.\n\
        Exit status: 0 all games finished, 1 event stopped with games unfinished, 2 usage or I/O error.")]
    Serve(ServeArgs),
}

// `gamerec referee`.
#[derive(Args, Debug)]
pub struct RefereeArgs {
    #[command(subcommand)]
    command: RefereeCommand,
}

/// `gamerec referee serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The EVENT.toml file.
    #[arg(long)]
    event: PathBuf,
    /// Event directory for records and state (default: the event file's directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Listen address (default: the event's `listen`, else 127.0.0.1:7878).
    #[arg(long)]
    listen: Option<String>,
    /// Games played at the same time (overrides the event file).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Observe the primary referee at HOST:PORT and take over when it stops.
    #[arg(long, value_name = "HOST:PORT")]
    observe: Option<String>,
    /// Serve the live spectator page at this address.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    /// A client over a pipe pair IN:OUT or a serial/pty device (repeatable).
    #[arg(long, value_name = "IN:OUT")]
    serial: Vec<String>,
    /// Echo the protocol log to stderr.
    #[arg(short, long)]
    verbose: bool,
}

/// Prints `message` as the error of a referee, bridge or match run; exit
/// status 2.
pub(crate) fn fail(message: impl std::fmt::Display) -> ExitCode {
    gamerec::say!("gamerec: error: {message}");
    ExitCode::from(2)
}

/// Writes `text` to stdout; a failed write is an error (exit status 2),
/// except a broken pipe (the reader took what it wanted).
pub(crate) fn print_out(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(fail(format!("standard output: {e}"))),
    }
}

/// Runs `gamerec referee ...`.
pub fn referee(args: RefereeArgs) -> ExitCode {
    let RefereeCommand::Serve(a) = args.command;
    let options = ServeOptions {
        event: a.event,
        dir: a.dir,
        listen: a.listen,
        concurrency: a.concurrency,
        observe: a.observe,
        http: a.http,
        serial: a.serial,
        verbose: a.verbose,
    };
    match app::serve(options) {
        Ok(summary) => {
            if let Err(code) = print_out(&summary.standings.to_text()) {
                return code;
            }
            if !summary.errors.is_empty() {
                return fail(format!(
                    "the event's record is incomplete: {}",
                    summary.errors.join("; ")
                ));
            }
            if summary.finished == summary.total {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => fail(e),
    }
}
