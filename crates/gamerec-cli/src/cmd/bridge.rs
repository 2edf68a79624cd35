//! `gamerec bridge`: connects an engine to an Argus referee as a client.

use std::process::ExitCode;

use clap::Args;
use gamerec_referee::app::{self, BridgeOptions};

use crate::cmd::referee::fail;

// `gamerec bridge`.
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

/// Runs `gamerec bridge ...`.
pub fn bridge(args: BridgeArgs) -> ExitCode {
    let options = BridgeOptions {
        name: args
            .name
            .unwrap_or_else(|| gamerec_engine::default_name(&args.engine)),
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
            gamerec::say!("bridge: {} games, {} moves", s.games, s.moves);
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
