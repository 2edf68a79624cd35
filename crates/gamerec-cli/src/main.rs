//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod referee_cmd;

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The Argus tournament referee (EPD referee protocol).
    Referee(referee_cmd::RefereeArgs),
    /// Connect an engine to an Argus referee as a client.
    Bridge(referee_cmd::BridgeArgs),
    /// Play a match between two engines through a local referee.
    Match(referee_cmd::MatchArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Referee(args) => referee_cmd::referee(args),
        Command::Bridge(args) => referee_cmd::bridge(args),
        Command::Match(args) => referee_cmd::run_match(args),
    }
}
