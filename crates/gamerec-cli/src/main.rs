//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.
//!
//! Each verb lives in its own module (`<area>_cmd.rs`) exposing an `Args`
//! struct and a `run(args) -> anyhow::Result<ExitCode>` function; this file
//! only registers them (one `Command` variant and one `match` arm each).
//!
//! Exit codes: 0 success, 1 errors found in the input, 2 usage or I/O
//! failure. A closed stdout (broken pipe, e.g. `| head`) counts as success.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod engine_cmd;
mod moves_cmd;

const EXAMPLES: &str = "\
Examples:
  gamerec moves 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
  cut -d' ' -f1-6 positions.txt | gamerec moves
  gamerec show '4k3/8/8/8/8/8/4P3/4K3 w - - 5 39'
  gamerec epd solve --movetime 1s wac.epd -o wac-result.epd
  gamerec report wac-result.epd -o wac.html
  gamerec <COMMAND> --help";

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print all legal moves of FEN positions in canonical SAN.
    Moves(moves_cmd::MovesArgs),
    /// Draw a FEN position as a board in the terminal.
    Show(moves_cmd::ShowArgs),
    /// EPD files: analysis verbs.
    Epd {
        #[command(subcommand)]
        command: EpdCommand,
    },
    /// Gastric-style report over `epd solve` results (text + HTML).
    Report(engine_cmd::ReportArgs),
}

#[derive(Subcommand)]
enum EpdCommand {
    #[command(flatten)]
    Engine(engine_cmd::EpdEngineCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves(args) => moves_cmd::run_moves(args),
        Command::Show(args) => moves_cmd::run_show(args),
        Command::Epd {
            command: EpdCommand::Engine(c),
        } => engine_cmd::run_epd(c),
        Command::Report(a) => engine_cmd::run_report(a),
    };
    finish(result)
}

/// Turns a verb's result into the process exit code: errors are printed as
/// `gamerec: ...` with exit code 2, except a broken pipe, which is success.
fn finish(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gamerec: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether `err` (or its cause) is an I/O error caused by a closed pipe.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
