//! `gamerec serve`: an indexed database as an opening explorer over HTTP.

use std::path::PathBuf;
use std::process::ExitCode;

#[cfg(feature = "server")]
use anyhow::Context;
use anyhow::Result;
use clap::Args;

#[cfg(feature = "server")]
use crate::cmd::db::load_eco;
#[cfg(feature = "server")]
use crate::cmd::index::{default_index, open_checked};

// Serve an indexed database as an opening explorer over HTTP.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec serve games.pgn                        # http://127.0.0.1:9750/
  gamerec serve games.pgn --eco-file eco.pgn --listen 127.0.0.1:8080
  curl 'http://127.0.0.1:9750/lichess?play=e2e4,c7c5&speeds=blitz&ratings=2000,2200'
  curl http://127.0.0.1:9750/game/export/17

GET /lichess (also /masters, /explorer) answers as the lichess opening
explorer (fen, play, moves, topGames, recentGames, ratings, speeds, since,
until; and player), with the JSON of `gamerec find --tree --to json`;
GET /game/export/ID gives game ID (from 1) as PGN; GET / the explorer page.
Explorer answers are kept while the server runs (the last 4,096, at most
64 MB), so popular positions are computed once. Listens on loopback
unless --allow-remote; SIGTERM stops it cleanly.")]
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub struct ServeArgs {
    /// The database the index was built from.
    db: PathBuf,
    /// The index (default: DB.idx).
    #[arg(long)]
    index: Option<PathBuf>,
    /// Address and port to listen on (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:9750")]
    listen: std::net::SocketAddr,
    /// Allow listening on an address other than loopback.
    #[arg(long)]
    allow_remote: bool,
    /// An ECO file naming the openings.
    #[arg(long = "eco-file", value_name = "FILE")]
    eco_file: Option<PathBuf>,
    /// Open connections in all.
    #[arg(long, default_value_t = 256)]
    max_connections: usize,
    /// Open connections from one address.
    #[arg(long, default_value_t = 16)]
    max_per_address: usize,
    /// Seconds a query may take.
    #[arg(long, default_value_t = 30)]
    query_timeout: u64,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// Hash every byte of the database before serving.
    #[arg(long)]
    full_check: bool,
}

/// `gamerec serve` without the `server` feature.
#[cfg(not(feature = "server"))]
pub fn run_serve(_args: ServeArgs) -> Result<ExitCode> {
    Ok(crate::cmd::not_built::missing("serve", "server"))
}

/// `gamerec serve`.
#[cfg(feature = "server")]
pub fn run_serve(args: ServeArgs) -> Result<ExitCode> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        gamerec::say!(
            "gamerec serve: {} is not a loopback address; give --allow-remote to listen on it",
            args.listen
        );
        return Ok(ExitCode::from(2));
    }
    let index_path = args
        .index
        .clone()
        .unwrap_or_else(|| default_index(&args.db));
    let index = open_checked(&args.db, &index_path, args.full_check)?;
    let book = args.eco_file.as_deref().map(load_eco).transpose()?;
    let explorer = gamerec_explorer::Explorer::new(index, &args.db, book)
        .with_context(|| format!("opening {}", args.db.display()))?;
    let limits = gamerec_explorer::Limits {
        connections: args.max_connections.max(1),
        per_address: args.max_per_address.max(1),
        query_timeout: std::time::Duration::from_secs(args.query_timeout.max(1)),
        ..gamerec_explorer::Limits::default()
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    gamerec_explorer::run(args.listen, explorer, limits, threads, |addr| {
        gamerec::say!("gamerec serve: listening on http://{addr}/");
    })
    .with_context(|| format!("serving on {}", args.listen))?;
    gamerec::say!("gamerec serve: stopped");
    Ok(ExitCode::SUCCESS)
}
