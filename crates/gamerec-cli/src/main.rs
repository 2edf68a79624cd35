//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod input;
mod pgn_cmd;
mod progress;

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that every game reads and every move is legal.
    Check(pgn_cmd::CheckArgs),
    /// Convert games to PGN export format or JSON Lines.
    Convert(pgn_cmd::ConvertArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check(args) => pgn_cmd::check(args),
        Command::Convert(args) => pgn_cmd::convert(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("gamerec: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
