//! `gamerec match`: engines play each other through a local referee (game
//! pairs, books, SPRT, Elo, resume), and `gamerec match report`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use gamerec_referee::app;
use gamerec_referee::match_runner::{
    self, Adjudication, MatchConfig, MatchEngine, OpeningOrder, Openings, RunMatch, Tournament,
};
use gamerec_referee::stats::{EloModel, Sprt};

use crate::cmd::referee::{fail, print_out};

// `gamerec match`.
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  \
    gamerec match builtin builtin:2 --games 4 --tc 40/60+1 -o out.pgn\n  \
    gamerec match uci:stockfish xboard:fairymax --games 20 --tc 5+0.05 --concurrency 2 -o out.pgn\n  \
    gamerec match uci:./new uci:./base --games 20000 --tc 10+0.1 --concurrency 2 \\\n      \
    --openings book.bin --openings-plies 8 --sprt 0 5 0.05 0.05 --dir run1 --events run1/events.jsonl\n  \
    gamerec match uci:a uci:b uci:c --tournament gauntlet --games 10 --tc 60+1 --openings book.epd --openings-order random\n  \
    gamerec match uci:./sf builtin --tc 60+1 --limits 1:nodes=5000 --limits builtin:tc=10+0.1,depth=4\n  \
    gamerec match uci:./sf uci:./base --variant chess960 --games 100 --tc 10+0.1   # or --openings dfrc / 960.epd\n  \
    gamerec match --resume run1            # after a crash or kill: plays what is missing\n  \
    gamerec match report run1 run2 run3    # one report over runs on several machines\n\n\
    Each pairing plays pairs of games from one opening, colours reversed. A referee runs on 127.0.0.1\n\
    with one bridge per engine and game slot. The PGN goes to --out (default stdout), the live line\n\
    and the final report to stderr; the match directory holds match.json, games.pgn, report.json,\n\
    log.txt and state/. Exit status: 0 match complete (or SPRT decided), 1 stopped early, 2 error."
)]
pub struct MatchArgs {
    #[command(subcommand)]
    report: Option<MatchCommand>,
    /// Engines: builtin[:DEPTH], uci:CMD[|Name=Value...], xboard:CMD[|Name=Value...] (two or more).
    #[arg(value_name = "ENGINE", num_args = 0..)]
    engines: Vec<String>,
    /// Player names, comma-separated, in engine order (default: program names).
    #[arg(long, value_delimiter = ',')]
    names: Vec<String>,
    /// Games per pairing; pairs of games share an opening with colours reversed.
    #[arg(long, default_value_t = 2)]
    games: u32,
    /// Time control in PGN syntax, e.g. 40/60+1, 300, 5+0.05, *180.
    #[arg(long, default_value = "60+1")]
    tc: String,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Pairings for more than two engines.
    #[arg(long, value_enum, default_value_t = TournamentArg::RoundRobin)]
    tournament: TournamentArg,
    /// Openings: EPD, PGN or Polyglot .bin book; `960` (Chess960 start
    /// positions drawn by --seed) or `dfrc` (each side's drawn on its own).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Chess variant: chess960 (alias fischerandom) draws Chess960 start
    /// positions by --seed unless --openings gives a file of them.
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    variant: VariantArg,
    /// Order of EPD/PGN openings.
    #[arg(long, value_enum, default_value_t = OrderArg::Sequential)]
    openings_order: OrderArg,
    /// Plies of each PGN opening to play (default all) / of a book walk (default 8,
    /// at most 100; a walk stops before a move that repeats a position).
    #[arg(long)]
    openings_plies: Option<u32>,
    /// First EPD/PGN opening to use (1-based).
    #[arg(long, default_value_t = 1)]
    openings_start: u32,
    /// Seed of the random opening order and book walks.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Resign adjudication: a side whose engine reports SCORE centipawns or worse for MOVES moves in a row loses.
    #[arg(long, num_args = 2, value_names = ["MOVES", "SCORE"])]
    resign: Vec<i32>,
    /// Draw adjudication: from full move FROM, MOVES moves of each side within SCORE centipawns of 0 draw.
    #[arg(long, num_args = 3, value_names = ["FROM", "MOVES", "SCORE"])]
    draw: Vec<i32>,
    /// Draw a game that reaches this many full moves.
    #[arg(long)]
    max_moves: Option<u32>,
    /// SPRT of ELO0 against ELO1 with error rates ALPHA and BETA (two engines); stops when decided.
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_negative_numbers = true)]
    sprt: Vec<f64>,
    /// Elo model of the SPRT's bounds.
    #[arg(long, value_enum, default_value_t = ModelArg::Normalized)]
    sprt_model: ModelArg,
    /// Write a JSON Lines stream of every game and move to this file (appended).
    #[arg(long, value_name = "FILE.jsonl")]
    events: Option<PathBuf>,
    /// Engines ponder on the opponent's time (UCI engines; others play without).
    #[arg(long)]
    ponder: bool,
    /// Comment every move with the engine's score, depth and nodes ([%eval S,D] [%nodes N]).
    #[arg(long)]
    pgn_engine_data: bool,
    /// Serve the live spectator page on PORT (127.0.0.1) or HOST:PORT.
    #[arg(long, value_name = "PORT")]
    http: Option<String>,
    /// The referee's address, HOST:PORT (default 127.0.0.1 and any free port).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Match directory (default: a new temporary directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Resume the match in DIR (its match.json); other match options are ignored.
    #[arg(long, value_name = "DIR", conflicts_with = "dir")]
    resume: Option<PathBuf>,
    /// The PGN Event tag.
    #[arg(long, default_value = "gamerec match")]
    event: String,
    /// Write the PGN here instead of stdout.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Do not print the live line after each game.
    #[arg(short, long)]
    quiet: bool,
    /// Echo the protocol log to stderr.
    #[arg(short, long)]
    verbose: bool,
    /// Milliseconds a clock may run past zero before the flag falls
    /// (the overdraft is still charged).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    margin: u64,
    /// Milliseconds each engine rests between its games.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    wait: u64,
    /// Keep the colours in the second game of each pair (no swap).
    #[arg(long)]
    noswap: bool,
    /// The second engine has White in the first game of each pair.
    #[arg(long)]
    reverse: bool,
    /// Engine options for every engine, `Name=Value|Name=Value` (as after
    /// `|` in an engine spec; an engine's own options win).
    #[arg(long, value_name = "OPTIONS")]
    each: Option<String>,
    /// One engine's own limits, `ENGINE:KEY=VALUE[,KEY=VALUE...]` (repeatable):
    /// ENGINE is its position (1, 2, ...) or its name; keys are `tc` (its
    /// own time control, e.g. tc=10+0.1), `nodes`, `depth` and `st` (seconds
    /// per move), as fastchess's per-engine options. Every `go` carries the
    /// nodes, depth and movetime; an engine with any of these and no `tc`
    /// plays untimed (its clock counts, never flags). The PGN has
    /// WhiteTimeControl/BlackTimeControl when the sides' differ.
    #[arg(long, value_name = "ENGINE:KEY=VALUE,...")]
    limits: Vec<String>,
    /// Append every line sent to and read from the engines to this file.
    #[arg(long, value_name = "FILE")]
    engine_log: Option<PathBuf>,
}

// `gamerec match report`.
#[derive(Subcommand, Debug)]
pub enum MatchCommand {
    /// One report over the report.json of several match directories.
    Report(MatchReportArgs),
}

/// `gamerec match report DIR...`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    gamerec match report run1 run2 run3           # one report over runs on several machines\n  \
    gamerec match report run1/report.json run2 --json > merged.json\n\n\
    Exit status: 0 merged, 2 a report missing or unreadable, or runs that do not fit together\n\
    (the same run twice, other time controls: see --allow-duplicates, --allow-mixed-tc).")]
pub struct MatchReportArgs {
    /// Match directories (or report.json files).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Print the merged report as JSON (report.json's format).
    #[arg(long)]
    json: bool,
    /// Merge the same run given twice (by path or by its run identity).
    #[arg(long)]
    allow_duplicates: bool,
    /// Merge runs played at different time controls.
    #[arg(long)]
    allow_mixed_tc: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum VariantArg {
    Standard,
    #[value(alias = "fischerandom")]
    Chess960,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum TournamentArg {
    RoundRobin,
    Gauntlet,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum OrderArg {
    Sequential,
    Random,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ModelArg {
    Logistic,
    Normalized,
}

/// The match described by the command line.
fn match_config(args: &MatchArgs) -> Result<MatchConfig, String> {
    if args.engines.len() < 2 {
        return Err("a match needs at least two engines (or --resume DIR)".into());
    }
    if !args.names.is_empty() && args.names.len() != args.engines.len() {
        return Err("--names needs one name per engine".into());
    }
    let mut names: Vec<String> = if args.names.is_empty() {
        args.engines
            .iter()
            .map(|e| gamerec_engine::default_name(e))
            .collect()
    } else {
        args.names.clone()
    };
    // Same program twice: number the names.
    let copies = names.clone();
    for (i, n) in names.iter_mut().enumerate() {
        if copies.iter().filter(|c| *c == n).count() > 1 {
            n.push_str(&format!("-{}", i + 1));
        }
    }
    let sprt = match args.sprt.as_slice() {
        [] => None,
        [e0, e1, a, b] => Some(Sprt::new(
            *e0,
            *e1,
            *a,
            *b,
            match args.sprt_model {
                ModelArg::Logistic => EloModel::Logistic,
                ModelArg::Normalized => EloModel::Normalized,
            },
        )?),
        _ => return Err("--sprt takes ELO0 ELO1 ALPHA BETA".into()),
    };
    let generated = args.openings.as_ref().and_then(|o| match o.to_str() {
        Some("960") if !o.exists() => Some(match_runner::Frc::Chess960),
        Some("dfrc") if !o.exists() => Some(match_runner::Frc::Dfrc),
        _ => None,
    });
    let frc = generated.or(
        (args.variant == VariantArg::Chess960 && args.openings.is_none())
            .then_some(match_runner::Frc::Chess960),
    );
    let openings = match args.openings.as_ref().filter(|_| generated.is_none()) {
        Some(file) => Some(Openings {
            file: std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?,
            order: match args.openings_order {
                OrderArg::Sequential => OpeningOrder::Sequential,
                OrderArg::Random => OpeningOrder::Random,
            },
            plies: args.openings_plies,
            start: args.openings_start.max(1),
        }),
        None => None,
    };
    let nonnegative =
        |v: i32, what: &str| u32::try_from(v).map_err(|_| format!("{what} must not be negative"));
    let resign = match args.resign.as_slice() {
        [] => None,
        [moves, score] => Some((nonnegative(*moves, "--resign MOVES")?, *score)),
        _ => return Err("--resign takes MOVES SCORE".into()),
    };
    let draw = match args.draw.as_slice() {
        [] => None,
        [from, moves, score] => Some((
            nonnegative(*from, "--draw FROM")?,
            nonnegative(*moves, "--draw MOVES")?,
            *score,
        )),
        _ => return Err("--draw takes FROM MOVES SCORE".into()),
    };
    let mut limits = vec![match_runner::EngineLimits::default(); args.engines.len()];
    for given in &args.limits {
        let (i, given) = match_runner::EngineLimits::parse_for(given, &names)?;
        limits[i] = given;
    }
    if limits.iter().all(match_runner::EngineLimits::is_empty) {
        limits.clear();
    }
    Ok(MatchConfig {
        engines: args
            .engines
            .iter()
            .zip(names)
            .map(|(spec, name)| MatchEngine {
                name,
                spec: gamerec_engine::spec_with_options(spec, args.each.as_deref()),
            })
            .collect(),
        tournament: match args.tournament {
            TournamentArg::RoundRobin => Tournament::RoundRobin,
            TournamentArg::Gauntlet => Tournament::Gauntlet,
        },
        games: args.games,
        time_control: args.tc.clone(),
        concurrency: args.concurrency.clamp(1, 1024),
        openings,
        adjudication: Adjudication {
            resign,
            draw,
            max_moves: args.max_moves,
        },
        sprt,
        event: args.event.clone(),
        site: "127.0.0.1".into(),
        date: gamerec_referee::log::pgn_date_today(),
        engine_data: args.pgn_engine_data,
        seed: args.seed,
        margin_ms: args.margin,
        ponder: args.ponder,
        wait_ms: args.wait,
        noswap: args.noswap,
        reverse: args.reverse,
        frc,
        limits,
    })
}

/// `gamerec match report DIR...`.
fn match_report(args: &MatchReportArgs) -> ExitCode {
    let (tally, sprt, scheduled) = match match_runner::merge_reports_checked(
        &args.dirs,
        args.allow_duplicates,
        args.allow_mixed_tc,
    ) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let text = if args.json {
        let report = match_runner::ReportFile::new("merged", scheduled, &tally, sprt);
        format!("{}\n", report.to_json())
    } else {
        match_runner::report_text(&tally, sprt.as_ref(), scheduled)
    };
    match print_out(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Removes a match directory in which no game was recorded (a missing or
/// empty `games.pgn`); a failure to remove it is reported.
fn remove_unplayed(dir: &std::path::Path) {
    let played = std::fs::metadata(dir.join("games.pgn")).is_ok_and(|m| m.len() > 0);
    if played {
        return;
    }
    match std::fs::remove_dir_all(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => gamerec::say!("match: cannot remove {}: {e}", dir.display()),
    }
}

/// Runs `gamerec match ...`.
pub fn run_match(args: MatchArgs) -> ExitCode {
    if let Some(MatchCommand::Report(r)) = &args.report {
        return match_report(r);
    }
    if let Some(path) = &args.engine_log
        && let Err(e) = gamerec_engine::set_io_log(path)
    {
        return fail(e);
    }
    let (config, dir) = match &args.resume {
        Some(dir) => {
            if !args.engines.is_empty() {
                return fail("--resume DIR takes the match from DIR/match.json: give no engines");
            }
            match match_runner::load_config(dir) {
                Ok(c) => (c, dir.clone()),
                Err(e) => return fail(e),
            }
        }
        None => match match_config(&args) {
            Ok(c) => {
                let dir = args.dir.clone().unwrap_or_else(|| {
                    std::env::temp_dir().join(format!(
                        "gamerec-match-{}-{}",
                        std::process::id(),
                        std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |d| d.as_millis())
                    ))
                });
                (c, dir)
            }
            Err(e) => return fail(e),
        },
    };
    let http = args.http.as_ref().map(|h| {
        if h.bytes().all(|b| b.is_ascii_digit()) {
            format!("127.0.0.1:{h}")
        } else {
            h.clone()
        }
    });
    gamerec::say!("match: directory {}", dir.display());
    // A directory of our own naming (no `--dir`, no `--resume`) that a
    // match failing before its first game leaves behind holds nothing to
    // resume: it goes, so a failed run leaves nothing.
    let ours = (args.dir.is_none() && args.resume.is_none()).then(|| dir.clone());
    let run = RunMatch {
        dir,
        events: args.events.clone(),
        http,
        verbose: args.verbose,
        live: !args.quiet,
        listen: args.listen.clone(),
    };
    let outcome = match app::run_match(&config, &run) {
        Ok(o) => o,
        Err(e) => {
            if let Some(dir) = ours {
                remove_unplayed(&dir);
            }
            return fail(e);
        }
    };
    if !outcome.errors.is_empty() {
        gamerec::say_text!("{}", outcome.report);
        return fail(format!(
            "the match's record is incomplete ({} failed writes): {}",
            outcome.errors.len(),
            outcome.errors.join("; ")
        ));
    }
    let pgn = match std::fs::read_to_string(outcome.dir.join("games.pgn")) {
        Ok(p) => p,
        Err(e) => return fail(format!("{}: {e}", outcome.dir.display())),
    };
    let written = match &args.out {
        Some(path) => gamerec::io::write_atomic(path, &pgn),
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
    if let Ok(standings) = std::fs::read_to_string(outcome.dir.join("standings.txt")) {
        gamerec::say_text!("{standings}");
    }
    gamerec::say_text!("{}", outcome.report);
    if outcome.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
