//! `gamerec sort`: games in the PGN standard's collation order (section 12).
//!
//! `sort` and `split --by-date` read every input, export each game as it
//! is read to PGN export format (keeping only its Seven Tag Roster values and
//! the exported text), sort with [`gamerec::pgn::collate`] and write the
//! text out; what they share is here.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use gamerec::model::{Game, Tags};
use gamerec::pgn::WriteOptions;
use gamerec::pgn::collate::sort_games;
use gamerec::pgn::tags::SEVEN_TAG_ROSTER;
use gamerec::pgn::writer::{export_result, export_string};

use crate::input::{Input, open_output};

// Sort games into the PGN standard's collation order.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec sort games.pgn -o sorted.pgn
  gamerec sort a.pgn b.pgn.zst > all-sorted.pgn
  cat *.pgn | gamerec sort -

Order (PGN standard section 12): Date (`?` digits as 0), Event, Site, Round
(`?`, then `-`, then numbers, multipart part by part), White, Black, Result,
then the movetext; stable. Output is PGN export format. Games that fail to
read are reported on stderr and left out (exit 1).")]
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
}

/// One game, exported, with what collation needs.
pub(crate) struct Exported {
    pub(crate) roster: Tags,
    pub(crate) text: String,
    pub(crate) movetext_start: usize,
}

impl Exported {
    fn new(game: &Game) -> Exported {
        let text = export_string(game, &WriteOptions::default());
        let mut roster = Tags::new();
        for name in SEVEN_TAG_ROSTER {
            match game.tags.get(name) {
                Some(value) => roster.push(name, value),
                None if name == "Result" => roster.push(name, export_result(game).as_str()),
                None => {}
            }
        }
        let movetext_start = text.find("\n\n").map_or(0, |i| i + 2);
        Exported {
            roster,
            text,
            movetext_start,
        }
    }

    pub(crate) fn movetext(&self) -> &str {
        &self.text[self.movetext_start..]
    }
}

/// Reads every input, reporting problems on stderr; returns the games that
/// read and the exit code so far (1: errors in the input; 2: an input could
/// not be read, reported as `gamerec: PATH: reason`, the others still read).
pub(crate) fn load(inputs: &[OsString], quiet: bool) -> Result<(Vec<Exported>, u8)> {
    let mut games = Vec::new();
    let (mut errors, mut unreadable) = (0, 0);
    let stderr = std::io::stderr();
    for input in Input::from_args(inputs) {
        // Each game is exported as it is read: only its text is kept (the
        // models of a whole input took some 20 times the file).
        let mut read = Vec::new();
        let each = |g: Game| read.push(Exported::new(&g));
        match crate::input::for_each_pgn_game(&input, quiet, &mut stderr.lock(), each) {
            Ok(read_errors) => {
                errors += read_errors;
                games.append(&mut read);
            }
            Err(e) => {
                eprintln!("gamerec: {e}");
                unreadable += 1;
            }
        }
    }
    let code = if unreadable > 0 {
        2
    } else {
        u8::from(errors > 0)
    };
    Ok((games, code))
}

pub(crate) fn write_games(out: &mut dyn Write, games: &[Exported]) -> std::io::Result<()> {
    for g in games {
        out.write_all(g.text.as_bytes())?;
        if !g.text.ends_with("\n\n") {
            out.write_all(b"\n")?;
        }
    }
    out.flush()
}

pub(crate) fn exit_code(code: u8) -> ExitCode {
    ExitCode::from(code)
}

/// Runs `gamerec sort`.
pub fn run_sort(args: SortArgs) -> Result<ExitCode> {
    let (mut games, errors) = load(&args.inputs, args.quiet)?;
    sort_games(&mut games, |g| (&g.roster, g.movetext()));
    let mut out = open_output(args.output.as_deref())?;
    write_games(&mut out, &games).context("writing sorted games")?;
    // An input could not be read (exit 2): a file output is not put into
    // place, the old one stays.
    out.finish_if(errors < 2).context("writing sorted games")?;
    Ok(exit_code(errors))
}
