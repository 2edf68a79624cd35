//! `gamerec sort`: games in the PGN standard's collation order (section 12).
//!
//! `sort` and `split --by-date` read every input, export each game as it
//! is read to PGN export format (keeping only its Seven Tag Roster values and
//! the exported text), sort in bounded memory with [`gamerec::io::spill`]
//! and write the text out; what they share is here.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use gamerec::io::spill::{CollatedGame, GameSorter};
use gamerec::model::Game;

use crate::input::{Input, open_output};

// Sort games into the PGN standard's collation order.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec sort games.pgn -o sorted.pgn
  gamerec sort a.pgn b.pgn.zst > all-sorted.pgn
  cat *.pgn | gamerec sort -
  TMPDIR=/big/disk gamerec sort --memory 4096 lichess_db_standard_rated_2024-01.pgn.zst -o sorted.pgn

Order (PGN standard section 12): Date (`?` digits as 0), Event, Site, Round
(`?`, then `-`, then numbers, multipart part by part), White, Black, Result,
then the movetext; stable. Output is PGN export format. Games that fail to
read are reported on stderr and left out (exit 1). Past --memory, sorted
runs are written to temporary files in $TMPDIR and merged.")]
pub struct SortArgs {
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    inputs: Vec<OsString>,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Do not print warnings (only errors).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// MiB of games held in memory; past it, sorted runs go to temporary
    /// files in $TMPDIR (default /tmp) and are merged at the end.
    #[arg(long, value_name = "MIB", default_value_t = 1024,
          value_parser = clap::value_parser!(u64).range(1..))]
    memory: u64,
}

/// Reads every input into a [`GameSorter`] holding `memory` MiB (past it,
/// runs in $TMPDIR), each game as `collated` makes it from its exported
/// form, reporting problems on stderr; returns the sorter and the exit
/// status (1: errors in the input; 2: an input could not be read, reported
/// as `gamerec: PATH: reason`, the others still read).
pub(crate) fn read_sorted(
    inputs: &[OsString],
    quiet: bool,
    memory: u64,
    mut collated: impl FnMut(CollatedGame) -> CollatedGame,
) -> Result<(GameSorter, u8)> {
    let temp = std::env::temp_dir();
    let budget = usize::try_from(memory.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    let mut sorter = GameSorter::new(&temp, budget);
    let (mut errors, mut unreadable) = (0, 0);
    for input in Input::from_args(inputs) {
        // Each game is exported as it is read: only its text is kept (the
        // models of a whole input took some 20 times the file).
        let each = |g: Game| sorter.push(collated(CollatedGame::new(&g)));
        match read_input(&input, quiet, each)
            // A run could not be written (a full disk, say).
            .map_err(|e| anyhow::Error::new(e).context("sorting past --memory (see $TMPDIR)"))?
        {
            Some(read_errors) => errors += read_errors,
            None => unreadable += 1,
        }
    }
    Ok((sorter, exit_status(errors, unreadable)))
}

/// Reads the games of one input into `each`, reporting problems on stderr:
/// the errors found, or `None` when the input could not be opened or read
/// (reported as `gamerec: PATH: reason`). An error of `each` stops the
/// reading and is returned.
fn read_input(
    input: &Input,
    quiet: bool,
    mut each: impl FnMut(Game) -> std::io::Result<()>,
) -> std::io::Result<Option<u64>> {
    let mut failed = None;
    let pass = |g: Game| {
        each(g).map_err(|e| {
            failed = Some(e);
            anyhow::anyhow!("stopped")
        })
    };
    let read = crate::input::for_each_pgn_game(input, quiet, &mut std::io::stderr().lock(), pass);
    if let Some(e) = failed {
        return Err(e);
    }
    match read {
        Ok(errors) => Ok(Some(errors)),
        Err(e) => {
            gamerec::say!("gamerec: {e}");
            Ok(None)
        }
    }
}

/// The exit status of a read: 2 when an input could not be read, 1 for
/// errors in the games, else 0.
fn exit_status(errors: u64, unreadable: u64) -> u8 {
    if unreadable > 0 {
        2
    } else {
        u8::from(errors > 0)
    }
}

/// Writes one sorted game (a blank line after it).
pub(crate) fn write_game(out: &mut dyn Write, g: &CollatedGame) -> std::io::Result<()> {
    out.write_all(g.text.as_bytes())?;
    if !g.text.ends_with("\n\n") {
        out.write_all(b"\n")?;
    }
    Ok(())
}

pub(crate) fn exit_code(code: u8) -> ExitCode {
    ExitCode::from(code)
}

/// Runs `gamerec sort`.
pub fn run_sort(args: SortArgs) -> Result<ExitCode> {
    let (sorter, code) = read_sorted(&args.inputs, args.quiet, args.memory, |g| g)?;
    let mut out = open_output(args.output.as_deref())?;
    sorter
        .finish(|g| write_game(&mut out, g))
        .and_then(|()| out.flush())
        .context("writing sorted games")?;
    // An input could not be read (exit 2): a file output is not put into
    // place, the old one stays.
    out.finish_if(code < 2).context("writing sorted games")?;
    Ok(exit_code(code))
}
