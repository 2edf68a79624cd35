//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

mod engine_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
        Command::Epd { command: EpdCommand::Engine(c) } => engine_cmd::run_epd(c),
        Command::Report(a) => engine_cmd::run_report(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamerec: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
