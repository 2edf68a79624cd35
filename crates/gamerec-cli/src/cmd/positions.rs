//! `gamerec positions`: one row per ply (FEN before the move, UCI, SAN,
//! clock, eval, result, ratings) in a Parquet or Arrow IPC table.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use gamerec_arrow::{Options, PositionFilter, Table};

use crate::formats::tables::{DatasetArgs, is_table, threads, write_table};

// Arguments of `gamerec positions`.
#[derive(Args, Debug)]
pub struct PositionsArgs {
    /// Input PGN files (`-` for stdin; .gz, .bz2, .zst read transparently),
    /// or SGF files and directories of them (the Go moves table).
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
    /// Output table: `.parquet`, or `.arrow` for Arrow IPC.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Only games where both players are rated at least this (WhiteElo, BlackElo).
    #[arg(long)]
    pub min_rating: Option<i32>,
    /// Only games with this TimeControl tag (`300+3`) or speed class
    /// (ultrabullet, bullet, blitz, rapid, classical).
    #[arg(long)]
    pub time_control: Option<String>,
    /// Decoding threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Skip (and report) a game larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    pub max_game_bytes: u64,
    /// Print errors only.
    #[arg(short, long)]
    pub quiet: bool,
    /// A dataset directory (`-o DIR/ --partition-by year,month`).
    #[command(flatten)]
    pub dataset: DatasetArgs,
}

/// `gamerec positions`.
pub fn positions(args: PositionsArgs) -> Result<ExitCode> {
    let dataset = args.dataset.is_dataset(&args.output);
    if !dataset {
        args.dataset.refuse_without_dataset()?;
    }
    if !dataset && !is_table(&args.output) {
        anyhow::bail!(
            "{}: the positions table is written as .parquet or .arrow",
            args.output.display()
        );
    }
    if let Some(tc) = &args.time_control
        && !gamerec_arrow::values::is_time_control_filter(tc)
    {
        anyhow::bail!(
            "--time-control {tc}: expected a TimeControl value such as 300+3 or a speed class \
             (ultrabullet, bullet, blitz, rapid, classical)"
        );
    }
    let opts = Options {
        table: Table::Positions,
        threads: threads(args.threads),
        filter: PositionFilter {
            min_rating: args.min_rating,
            time_control: args.time_control,
        },
        names: Vec::new(),
        max_game_bytes: args.max_game_bytes,
    };
    let paths = args.inputs.iter().map(PathBuf::from).collect();
    write_table(
        "positions",
        paths,
        &args.output,
        opts,
        args.quiet,
        &args.dataset,
    )
}
