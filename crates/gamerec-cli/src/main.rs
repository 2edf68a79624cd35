//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod epd_cmd;

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// EPD data verbs: normalize (pfdn), purge (pfop), check.
    Epd(epd_cmd::EpdArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Epd(args) => epd_cmd::run(args),
    }
}
