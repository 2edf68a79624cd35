//! `gamerec sort` (the PGN standard's collation order, section 12) and
//! `gamerec split --by-date` (the chronological archive of section 11.4).
//!
//! Both read every input whole, export each game once to PGN export format
//! (keeping only its Seven Tag Roster values and the exported text), sort
//! with [`gamerec::pgn::collate`] and write the text out.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use gamerec::model::{Game, Tags};
use gamerec::pgn::WriteOptions;
use gamerec::pgn::collate::{ArchiveGranularity, archive_path, roster_value, sort_games};
use gamerec::pgn::tags::SEVEN_TAG_ROSTER;
use gamerec::pgn::writer::{export_result, export_string};

use crate::input::{Input, open_output};

/// Sort games into the PGN standard's collation order.
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

/// File granularity of `split --by-date`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Per {
    /// `DIR/YYYY.pgn`
    Year,
    /// `DIR/YYYY/YYYYMM.pgn`
    Month,
    /// `DIR/YYYY/YYYYMM/YYYYMMDD.pgn`
    Day,
}

/// Split games into a chronological archive of PGN files.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec split --by-date archive/ games.pgn        # archive/1992/199211.pgn ...
  gamerec split --by-date archive/ --per year a.pgn # archive/1992.pgn ...
  gamerec split --by-date archive/ --per day --force games.pgn.zst

Layout (PGN standard section 11.4): year files `YYYY.pgn`, month files
`YYYYMM.pgn` in a directory `YYYY`, day files `YYYYMMDD.pgn` in `YYYY/YYYYMM`.
`?` date digits count as 0 (`1993.??.??` goes to 1993/199300.pgn). Each file
is in collation order. Existing files are kept unless --force (exit 2).")]
pub struct SplitArgs {
    /// The archive directory to write.
    #[arg(long, value_name = "DIR", required = true)]
    by_date: PathBuf,
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    inputs: Vec<OsString>,
    /// One file per year, month or day.
    #[arg(long, default_value = "month")]
    per: Per,
    /// Replace archive files that already exist.
    #[arg(long)]
    force: bool,
    /// Do not print warnings (only errors).
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// One game, exported, with what collation needs.
struct Exported {
    roster: Tags,
    text: String,
    movetext_start: usize,
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

    fn movetext(&self) -> &str {
        &self.text[self.movetext_start..]
    }
}

/// Reads every input, reporting problems on stderr; returns the games that
/// read and the exit code so far (1: errors in the input; 2: an input could
/// not be read, reported as `gamerec: PATH: reason`, the others still read).
fn load(inputs: &[OsString], quiet: bool) -> Result<(Vec<Exported>, u8)> {
    let mut games = Vec::new();
    let (mut errors, mut unreadable) = (0, 0);
    let stderr = std::io::stderr();
    for input in Input::from_args(inputs) {
        match crate::input::read_pgn_games(&input, quiet, &mut stderr.lock()) {
            Ok((read, read_errors)) => {
                errors += read_errors;
                games.extend(read.iter().map(Exported::new));
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

fn write_games(out: &mut dyn Write, games: &[Exported]) -> std::io::Result<()> {
    for g in games {
        out.write_all(g.text.as_bytes())?;
        if !g.text.ends_with("\n\n") {
            out.write_all(b"\n")?;
        }
    }
    out.flush()
}

fn exit_code(code: u8) -> ExitCode {
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

/// Runs `gamerec split --by-date`.
pub fn run_split(args: SplitArgs) -> Result<ExitCode> {
    let granularity = match args.per {
        Per::Year => ArchiveGranularity::Year,
        Per::Month => ArchiveGranularity::Month,
        Per::Day => ArchiveGranularity::Day,
    };
    let (games, errors) = load(&args.inputs, args.quiet)?;
    if errors >= 2 {
        // An input could not be read: no archive file is written.
        return Ok(exit_code(errors));
    }
    let total = games.len();
    let mut files: BTreeMap<PathBuf, Vec<Exported>> = BTreeMap::new();
    for g in games {
        let path = archive_path(roster_value(&g.roster, "Date"), granularity);
        files.entry(path).or_default().push(g);
    }
    if !args.force {
        let existing: Vec<String> = files
            .keys()
            .map(|p| args.by_date.join(p))
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if !existing.is_empty() {
            bail!(
                "{} archive file(s) exist ({}{}); use --force to replace them",
                existing.len(),
                existing[0],
                if existing.len() > 1 { ", ..." } else { "" }
            );
        }
    }
    for (rel, mut games) in files.iter_mut().map(|(p, g)| (p, std::mem::take(g))) {
        sort_games(&mut games, |g| (&g.roster, g.movetext()));
        let path = args.by_date.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let mut out = open_output(Some(&path))?;
        write_games(&mut out, &games)?;
        out.finish()?;
    }
    eprintln!("{total} games in {} files", files.len());
    Ok(exit_code(errors))
}
