//! `gamerec referee serve`, `gamerec bridge` and `gamerec match`: the Argus
//! referee, the engine bridge, and engine-vs-engine matches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use gamerec_referee::app::{self, BridgeOptions, MatchOptions, ServeOptions};

/// The referee's subcommands.
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

/// `gamerec referee`.
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

/// `gamerec bridge`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    gamerec bridge --engine builtin 127.0.0.1:7878\n  \
    gamerec bridge --engine 'uci:stockfish' --name stockfish 10.0.0.1:7878,10.0.0.2:7878\n  \
    gamerec bridge --engine xboard:fairymax --name fairymax 127.0.0.1:7878\n  \
    GAMEREC_TOKEN=s3cret-bob gamerec bridge --engine builtin --name bob 10.0.0.1:7878\n\n\
    With several addresses the bridge fails over to the next when one stops answering.")]
pub struct BridgeArgs {
    /// The engine: builtin, builtin:DEPTH, uci:COMMAND or xboard:COMMAND.
    #[arg(long)]
    engine: String,
    /// The player name to sign on with (default: the engine's program name).
    #[arg(long)]
    name: Option<String>,
    /// Reconnection attempts when the referee cannot be reached.
    #[arg(long, default_value_t = 20)]
    retries: u32,
    /// The player's secret from the EVENT file (default: $GAMEREC_TOKEN).
    #[arg(long, value_name = "SECRET")]
    token: Option<String>,
    /// Referee address(es), comma-separated.
    #[arg(value_name = "HOST:PORT[,HOST:PORT...]")]
    address: String,
}

/// `gamerec match`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    gamerec match builtin builtin:2 --games 4 --tc 40/60+1 -o out.pgn\n  \
    gamerec match 'uci:stockfish' xboard:fairymax --games 4 --tc 60+1 --openings book.epd\n\n\
    Runs a referee on 127.0.0.1 and one bridge per engine; the PGN goes to --out (default stdout),\n\
    the standings to stderr.")]
pub struct MatchArgs {
    /// First engine (White in odd games).
    engine_a: String,
    /// Second engine.
    engine_b: String,
    /// Number of games (colours alternate).
    #[arg(long, default_value_t = 2)]
    games: u32,
    /// Time control in PGN syntax, e.g. 40/60+1, 300, 60+1, *180.
    #[arg(long, default_value = "60+1")]
    tc: String,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Openings (EPD or PGN); each is played with both colours.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Event directory (default: a temporary directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The PGN Event tag.
    #[arg(long, default_value = "gamerec match")]
    event: String,
    /// Write the PGN here instead of stdout.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Echo the protocol log to stderr.
    #[arg(short, long)]
    verbose: bool,
    /// Milliseconds a clock may run past zero before the flag falls
    /// (the overdraft is still charged).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    margin: u64,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("gamerec: error: {message}");
    ExitCode::from(2)
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
            print!("{}", summary.standings.to_text());
            if summary.finished == summary.total {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => fail(e),
    }
}

/// Runs `gamerec bridge ...`.
pub fn bridge(args: BridgeArgs) -> ExitCode {
    let options = BridgeOptions {
        name: args.name.unwrap_or_else(|| app::engine_name(&args.engine)),
        engine: args.engine,
        addresses: args.address.split(',').map(str::to_owned).collect(),
        retries: args.retries,
        token: args.token.or_else(|| {
            std::env::var("GAMEREC_TOKEN")
                .ok()
                .filter(|t| !t.is_empty())
        }),
    };
    match app::bridge(options) {
        Ok(s) => {
            eprintln!("bridge: {} games, {} moves", s.games, s.moves);
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// Runs `gamerec match ...`.
pub fn run_match(args: MatchArgs) -> ExitCode {
    let options = MatchOptions {
        engines: [args.engine_a, args.engine_b],
        games: args.games,
        time_control: args.tc,
        concurrency: args.concurrency.max(1),
        dir: args.dir,
        openings: args.openings,
        event: args.event,
        verbose: args.verbose,
        margin_ms: args.margin,
    };
    let (summary, dir) = match app::run_match(options) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let pgn = match std::fs::read_to_string(dir.join("games.pgn")) {
        Ok(p) => p,
        Err(e) => return fail(format!("{}: {e}", dir.display())),
    };
    let written = match &args.out {
        Some(path) => std::fs::write(path, &pgn),
        None => {
            use std::io::Write;
            match std::io::stdout().write_all(pgn.as_bytes()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        }
    };
    if let Err(e) = written {
        return fail(e);
    }
    eprint!("{}", summary.standings.to_text());
    if summary.finished == summary.total {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
