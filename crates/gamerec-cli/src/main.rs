//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

use std::process::ExitCode;

use clap::Parser;

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {}

fn main() -> ExitCode {
    let _cli = Cli::parse();
    ExitCode::SUCCESS
}
