//! `gamerec eco`: classify games by opening against an ECO file (ECO,
//! Opening, Variation tags).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use gamerec_db::eco::EcoBook;

use crate::cmd::db::{IoArgs, Output, each_game, finish};

// Classify games by opening (ECO, Opening, Variation tags).
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec eco --eco-file ../shared/corpus/pgn/eco.pgn games.pgn -o classified.pgn
  gamerec eco --eco-file eco.pgn --to json games.pgn.zst > games.jsonl

Each game gets the line whose final position it reaches deepest in its main
line (transpositions count when reached at most 6 plies after the line's
length, as in pgn-extract -e); the line's ECO, Opening, Variation and
SubVariation tags replace the game's. Unclassified games are unchanged.")]
pub struct EcoArgs {
    #[command(flatten)]
    io: IoArgs,
    /// The ECO file: PGN lines with ECO/Opening/Variation tags.
    #[arg(long = "eco-file", short = 'e', value_name = "FILE", required = true)]
    eco_file: PathBuf,
}

/// `gamerec eco`.
pub fn run_eco(args: EcoArgs) -> Result<ExitCode> {
    let data = std::fs::read(&args.eco_file)
        .with_context(|| format!("reading {}", args.eco_file.display()))?;
    let (book, failed) = EcoBook::from_pgn(&data);
    if failed > 0 {
        gamerec::say!(
            "{}: {failed} lines could not be read",
            args.eco_file.display()
        );
    }
    if book.is_empty() {
        bail!("{}: no ECO lines", args.eco_file.display());
    }
    let writer = args.io.writer();
    let mut out = Output::open(args.io.output.as_deref(), &writer)?;
    let (mut classified, mut total) = (0u64, 0u64);
    let tally = each_game(
        &args.io,
        |mut game| {
            let hit = book.apply(&mut game);
            (hit, writer.write(&game))
        },
        |_, name, _, (hit, text)| {
            total += 1;
            classified += u64::from(hit);
            out.put(text, name)?;
            Ok(())
        },
    )?;
    let lost = out.finish()?;
    gamerec::say!("{classified} of {total} games classified");
    Ok(finish("eco", tally, total, lost))
}
