//! `gamerec split --by-date` (the chronological archive of section 11.4,
//! games in collation order as `sort` writes them) and `gamerec split
//! --games N | --bytes N -o DIR` (compressed shards of the input's bytes,
//! streamed).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{ArgGroup, Args, ValueEnum};
use gamerec::io::Output;
use gamerec::pgn::collate::{ArchiveGranularity, archive_path, roster_value};

use crate::input::{Input, open_output};

use crate::cmd::sort::{exit_code, read_sorted, write_game};

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

/// Compression of `split --games/--bytes` shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Compress {
    /// `.pgn.zst` (zstd level 3)
    Zst,
    /// `.pgn.gz`
    Gz,
    /// `.pgn`
    None,
}

// Split games into a chronological archive of PGN files, or into shards
// of N games or about N bytes.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("mode").required(true).args(["by_date", "games", "bytes"])))]
#[command(after_help = "Examples:
  gamerec split --by-date archive/ games.pgn        # archive/1992/199211.pgn ...
  gamerec split --by-date archive/ --per year a.pgn # archive/1992.pgn ...
  gamerec split --by-date archive/ --per day --force games.pgn.zst
  gamerec split --games 100000 -o shards/ lichess_db_standard_rated_2024-01.pgn.zst
  curl -s URL | gamerec split --bytes 256M -o shards/ -   # shards/part-00000.pgn.zst ...

Layout (PGN standard section 11.4): year files `YYYY.pgn`, month files
`YYYYMM.pgn` in a directory `YYYY`, day files `YYYYMMDD.pgn` in `YYYY/YYYYMM`.
`?` date digits count as 0 (`1993.??.??` goes to 1993/199300.pgn). Each file
is in collation order. Existing files are kept unless --force (exit 2).
Past --memory, sorted runs are written to temporary files in $TMPDIR and
merged, and the files are written one after another as the merge passes.

Shards (--games N, --bytes N with an optional K, M or G): the inputs' games,
decompressed, in input order and byte for byte as written, cut between two
games when a shard holds N games or reached N bytes (uncompressed; a game
is never cut), written as DIR/PREFIX-00000.pgn.zst (--compress gz: .pgn.gz,
none: .pgn). Streamed in bounded memory; games are not checked (run
`gamerec check` for that). All shards are put into place together at the
end; a failed run leaves none.")]
pub struct SplitArgs {
    /// The archive directory to write.
    #[arg(long, value_name = "DIR")]
    by_date: Option<PathBuf>,
    /// Shards of this many games.
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Shards of about this many uncompressed bytes (`K`, `M`, `G` suffixes).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    bytes: Option<u64>,
    /// The shard directory (with --games or --bytes).
    #[arg(long, short = 'o', value_name = "DIR")]
    output: Option<PathBuf>,
    /// Shard compression.
    #[arg(long, default_value = "zst")]
    compress: Compress,
    /// Shard file names: PREFIX-00000.pgn.zst.
    #[arg(long, default_value = "part")]
    prefix: String,
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    inputs: Vec<OsString>,
    /// One file per year, month or day.
    #[arg(long, default_value = "month")]
    per: Per,
    /// Replace archive files that already exist.
    #[arg(long)]
    force: bool,
    /// MiB of games held in memory (--by-date); past it, sorted runs go to
    /// temporary files in $TMPDIR (default /tmp) and are merged at the end.
    #[arg(long, value_name = "MIB", default_value_t = 1024,
          value_parser = clap::value_parser!(u64).range(1..))]
    memory: u64,
    /// Do not print warnings (only errors).
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A byte count: digits and an optional `K`, `M` or `G` (binary).
fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let (digits, unit) = match text.as_bytes().last() {
        Some(b'K' | b'k') => (&text[..text.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&text[..text.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            format!("{text:?}: expected a positive byte count like 100000, 64K, 256M, 1G")
        })
}

/// The game start offsets (first token) of a [`gamerec::pgn::SliceReader`]'s games.
struct Starts;

impl gamerec::pgn::Visitor for Starts {
    type Output = u64;
    fn begin_game(&mut self, _: gamerec::pgn::GameStart) -> gamerec::pgn::Flow {
        std::ops::ControlFlow::Break(gamerec::pgn::Stop::SkipGame)
    }
    fn wants_comments(&self) -> bool {
        false
    }
    fn end_game(&mut self, end: gamerec::pgn::GameEnd<'_>) -> u64 {
        end.offset
    }
}

/// The shard being written and those done (committed together at the end).
struct Shards {
    dir: PathBuf,
    prefix: String,
    compress: Compress,
    done: Vec<gamerec::io::AtomicFile>,
    current: Option<Box<dyn ShardWrite>>,
    games: u64,
    bytes: u64,
    total_games: u64,
}

/// A shard's (compressing) writer that gives its file back.
trait ShardWrite: Write {
    fn finish(self: Box<Self>) -> std::io::Result<gamerec::io::AtomicFile>;
}

impl ShardWrite for zstd::stream::write::Encoder<'static, gamerec::io::AtomicFile> {
    fn finish(self: Box<Self>) -> std::io::Result<gamerec::io::AtomicFile> {
        (*self).finish()
    }
}

impl ShardWrite for flate2::write::GzEncoder<gamerec::io::AtomicFile> {
    fn finish(self: Box<Self>) -> std::io::Result<gamerec::io::AtomicFile> {
        (*self).finish()
    }
}

impl ShardWrite for gamerec::io::AtomicFile {
    fn finish(self: Box<Self>) -> std::io::Result<gamerec::io::AtomicFile> {
        Ok(*self)
    }
}

impl Shards {
    fn name(&self, n: usize) -> PathBuf {
        let ext = match self.compress {
            Compress::Zst => "pgn.zst",
            Compress::Gz => "pgn.gz",
            Compress::None => "pgn",
        };
        self.dir.join(format!("{}-{n:05}.{ext}", self.prefix))
    }

    /// Starts the next shard.
    fn open(&mut self) -> Result<()> {
        let path = self.name(self.done.len());
        let file = gamerec::io::AtomicFile::create(&path)?;
        let fail = |e| gamerec::io::path_error(&path, e);
        self.current = Some(match self.compress {
            Compress::Zst => Box::new(zstd::stream::write::Encoder::new(file, 3).map_err(fail)?),
            Compress::Gz => Box::new(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            )),
            Compress::None => Box::new(file),
        });
        self.games = 0;
        self.bytes = 0;
        Ok(())
    }

    /// Ends the current shard.
    fn close(&mut self) -> Result<()> {
        if let Some(out) = self.current.take() {
            let path = self.name(self.done.len());
            let file = out
                .finish()
                .map_err(|e| gamerec::io::path_error(&path, e))?;
            self.done.push(file);
        }
        Ok(())
    }

    /// Writes `bytes` (whole games, `games` of them, or the rest of one).
    fn write(&mut self, bytes: &[u8], games: u64) -> Result<()> {
        if self.current.is_none() {
            self.open()?;
        }
        let path = self.name(self.done.len());
        let out = self.current.as_mut().expect("opened");
        out.write_all(bytes)
            .map_err(|e| gamerec::io::path_error(&path, e))?;
        self.games += games;
        self.total_games += games;
        self.bytes += bytes.len() as u64;
        Ok(())
    }
}

/// Runs `gamerec split --games N | --bytes N -o DIR`.
fn run_shards(args: &SplitArgs) -> Result<ExitCode> {
    let Some(dir) = &args.output else {
        bail!("--games and --bytes write shards into a directory: give it with -o DIR");
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut shards = Shards {
        dir: dir.clone(),
        prefix: args.prefix.clone(),
        compress: args.compress,
        done: Vec::new(),
        current: None,
        games: 0,
        bytes: 0,
        total_games: 0,
    };
    let full = |s: &Shards| {
        args.games.is_some_and(|n| s.games >= n) || args.bytes.is_some_and(|n| s.bytes >= n)
    };
    let mut last = b'\n';
    for input in Input::from_args(&args.inputs) {
        let reader = input.open(None)?;
        let mut chunker = gamerec::pgn::stream::Chunker::new(reader);
        // The chunker's cut may fall inside a game (a marker and `[` in an
        // open comment): then no shard may end where the next chunk begins.
        let mut inside = false;
        while let Some(chunk) = chunker
            .next_chunk()
            .with_context(|| format!("reading {}", input.name))?
        {
            let data = &chunk.data;
            let mut reader = gamerec::pgn::SliceReader::with_offset(data, chunk.offset)
                .followed_by_game(chunk.followed_by_game);
            let mut starts = Vec::new();
            while let Some(start) = reader.read_game(&mut Starts) {
                starts.push((start - chunk.offset) as usize);
            }
            let mut from = 0;
            for (i, &start) in starts.iter().enumerate() {
                // The bytes before this game's start end the game before.
                if start > from || (i == 0 && inside) {
                    shards.write(&data[from..start], 0)?;
                }
                if (i > 0 || !inside) && full(&shards) {
                    shards.close()?;
                }
                let end = starts.get(i + 1).copied().unwrap_or(data.len());
                shards.write(&data[start..end], 1)?;
                from = end;
            }
            if from < data.len() {
                shards.write(&data[from..], 0)?;
            }
            inside = reader.truncated() && !chunk.last;
            last = data.last().copied().unwrap_or(last);
        }
        // The next input's first game starts on a line of its own.
        if last != b'\n' {
            shards.write(b"\n", 0)?;
            last = b'\n';
        }
    }
    shards.close()?;
    let files = shards.done.len();
    gamerec::io::commit_all(shards.done).context("putting the shards into place")?;
    gamerec::say!(
        "{} games in {files} shards in {}",
        shards.total_games,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `gamerec split`.
pub fn run_split(args: SplitArgs) -> Result<ExitCode> {
    let Some(by_date) = args.by_date.clone() else {
        return run_shards(&args);
    };
    let granularity = match args.per {
        Per::Year => ArchiveGranularity::Year,
        Per::Month => ArchiveGranularity::Month,
        Per::Day => ArchiveGranularity::Day,
    };
    // The games go through the external sort grouped by archive file (the
    // file's path is the group), so each file comes out whole, in
    // collation order; only the set of paths is held.
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut total = 0u64;
    let group = |g: gamerec::io::spill::CollatedGame| {
        let path = archive_path(roster_value(&g.roster, "Date"), granularity);
        let name = path.to_string_lossy().into_owned();
        files.insert(path);
        total += 1;
        g.in_group(name)
    };
    let (sorter, errors) = read_sorted(&args.inputs, args.quiet, args.memory, group)?;
    if errors >= 2 {
        // An input could not be read: no archive file is written.
        return Ok(exit_code(errors));
    }
    if !args.force {
        let existing: Vec<String> = files
            .iter()
            .map(|p| by_date.join(p))
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
    // The file being written; each is put into place when the next starts.
    let mut current: Option<(String, Output)> = None;
    let mut failed = None;
    let mut write = |g: &gamerec::io::spill::CollatedGame| -> Result<()> {
        let out = match &mut current {
            Some((group, out)) if group == g.group() => out,
            _ => {
                if let Some((_, mut out)) = current.take() {
                    out.flush()?;
                    out.finish()?;
                }
                let path = by_date.join(g.group());
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                }
                let out = open_output(Some(&path))?;
                &mut current.insert((g.group().to_owned(), out)).1
            }
        };
        write_game(out, g)?;
        Ok(())
    };
    let merged = sorter.finish(|g| {
        write(g).map_err(|e| {
            failed = Some(e);
            std::io::Error::other("stopped")
        })
    });
    if let Some(e) = failed {
        return Err(e);
    }
    merged.context("sorting past --memory (see $TMPDIR)")?;
    if let Some((_, mut out)) = current.take() {
        out.flush()?;
        out.finish()?;
    }
    gamerec::say!("{total} games in {} files", files.len());
    Ok(exit_code(errors))
}
