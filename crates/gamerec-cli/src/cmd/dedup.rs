//! `gamerec dedup`: drop duplicate games (same moves from the same start),
//! keeping the first copy.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use gamerec_db::dedup::{DedupOptions, Seen, identity};

use crate::cmd::db::{IoArgs, Output, each_game, finish};

// Drop duplicate games, keeping the first copy.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec dedup games.pgn -o unique.pgn
  gamerec dedup --same-tags a.pgn b.pgn -o unique.pgn --duplicates dropped.pgn
  gamerec dedup --quiet big.pgn.zst > unique.pgn

Two games are duplicates when they play the same main-line moves from the
same start position (with --same-tags: and have the same tags). Each dropped
game is reported on stderr as `input: byte N: game K duplicates game J`,
then a summary line.")]
pub struct DedupArgs {
    #[command(flatten)]
    io: IoArgs,
    /// Duplicates must also have the same tags (names and values).
    #[arg(long)]
    same_tags: bool,
    /// Write the dropped games to this file.
    #[arg(long, short = 'd', value_name = "FILE")]
    duplicates: Option<PathBuf>,
    /// Print only the summary, not each dropped game.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// `gamerec dedup`.
pub fn run_dedup(args: DedupArgs) -> Result<ExitCode> {
    let writer = args.io.writer();
    let opts = DedupOptions {
        same_tags: args.same_tags,
    };
    let mut out = Output::open(args.io.output.as_deref(), &writer)?;
    let mut dup_out = match &args.duplicates {
        Some(p) => Some(Output::open(Some(p), &writer)?),
        None => None,
    };
    let mut seen = Seen::new();
    let (mut kept, mut dropped) = (0u64, 0u64);
    let quiet = args.quiet;
    let tally = each_game(
        &args.io,
        |game| (identity(&game, opts), writer.write(&game)),
        |n, name, offset, (id, text)| {
            match seen.first_of(id, n) {
                None => {
                    kept += 1;
                    out.put(text, name)?;
                }
                Some(first) => {
                    dropped += 1;
                    if !quiet {
                        gamerec::say!("{name}: byte {offset}: game {n} duplicates game {first}");
                    }
                    if let Some(d) = dup_out.as_mut() {
                        d.put(text, name)?;
                    }
                }
            }
            Ok(())
        },
    )?;
    let mut lost = out.finish()?;
    if let Some(d) = dup_out {
        // Its games are not counted as written: its messages are.
        let dup_lost = d.finish()?;
        lost.errors += dup_lost.errors;
        lost.warnings += dup_lost.warnings;
    }
    gamerec::say!("{kept} games kept, {dropped} duplicates dropped");
    Ok(finish("dedup", tally, kept, lost))
}
