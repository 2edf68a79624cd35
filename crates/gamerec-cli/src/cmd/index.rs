//! `gamerec index`: build (or append to) the position index of a game
//! database, and open an index checked against its database.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use gamerec::io::Input;

// Build a position index of a PGN database.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec index games.pgn                     # writes games.pgn.idx
  gamerec index big.pgn.zst -o big.idx --threads 2
  cat more.pgn >> games.pgn && gamerec index games.pgn --append

The index maps every main-line position (Zobrist key) to the games reaching
it and the first ply, and keeps per game its offset, ratings, result, pawn
squares and material signatures. --append reads only the bytes after those
already indexed and writes a new index holding old and new games.")]
pub struct IndexArgs {
    /// The database (PGN; .gz, .bz2, .zst read transparently).
    db: PathBuf,
    /// The index file (default: DB.idx, e.g. games.pgn.idx).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Add the games appended to DB since the index was built.
    #[arg(long)]
    append: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// Skip (and report) a game larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    max_game_bytes: u64,
}

pub(crate) fn default_index(db: &std::path::Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".idx");
    PathBuf::from(s)
}

/// The command that brings `index` up to date with `db`.
pub(crate) fn index_command(db: &std::path::Path, index: &std::path::Path, append: bool) -> String {
    let mut c = format!("gamerec index {}", db.display());
    if index != default_index(db) {
        c.push_str(&format!(" -o {}", index.display()));
    }
    if append {
        c.push_str(" --append");
    }
    c
}

/// Opens the index of `db` and checks it against the database (with `full`,
/// the hash of every byte); the error says what changed and what to run.
pub(crate) fn open_checked(
    db: &std::path::Path,
    index_path: &std::path::Path,
    full: bool,
) -> Result<gamerec_db::index::Index> {
    use gamerec_db::index::{Index, IndexError};
    let index = Index::open(index_path).map_err(|e| match e {
        IndexError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => anyhow::anyhow!(
            "{}: no index; run `{}`",
            index_path.display(),
            index_command(db, index_path, false)
        ),
        e => anyhow::anyhow!("{}: {e}", index_path.display()),
    })?;
    match index.check_database(db, full) {
        Ok(()) => Ok(index),
        Err(IndexError::Stale { what, append }) => bail!(
            "{}: the index {} does not match the database: {what}; run `{}`",
            db.display(),
            index_path.display(),
            index_command(db, index_path, append)
        ),
        Err(e) => Err(anyhow::anyhow!("{}: {e}", db.display())),
    }
}

/// `gamerec index`.
pub fn run_index(args: IndexArgs) -> Result<ExitCode> {
    use gamerec_db::identity::DbIdentity;
    use gamerec_db::index::{BuildOptions, Index, IndexError, build};
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| default_index(&args.db));
    let input = Input::from_arg(args.db.as_os_str());
    let start = std::time::Instant::now();
    let previous = if args.append {
        let old = Index::open(&out).with_context(|| format!("opening {}", out.display()))?;
        if let Err(e) = old.check_prefix(&args.db) {
            bail!(
                "{}: cannot append: {e}; run `{}`",
                args.db.display(),
                index_command(&args.db, &out, false)
            );
        }
        Some(std::sync::Arc::new(old))
    } else {
        None
    };
    let identity =
        DbIdentity::of_file(&args.db).with_context(|| format!("reading {}", args.db.display()))?;
    let opts = BuildOptions {
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
        temp_dir: out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from),
        run_entries: gamerec_db::index::RUN_ENTRIES,
        database: Some(identity),
        database_path: Some(args.db.clone()),
        max_game_bytes: args.max_game_bytes,
    };
    // Diagnostics as every verb prints them, then one summary line.
    let before = previous.as_ref().map_or(0, |p| p.games());
    let built = build(&input, previous, &out, &opts, |d| gamerec::say!("{d}"));
    let (stats, tally) = match built {
        Ok(done) => done,
        Err(IndexError::NotRead(name, tally)) => {
            let mut tally = *tally;
            tally.written = Some(0);
            gamerec::say!("gamerec index: {tally}");
            gamerec::say!(
                "gamerec: {}: not written: {name} was not read to its end",
                out.display()
            );
            return Ok(ExitCode::from(tally.exit_code()));
        }
        Err(e) => return Err(e).with_context(|| format!("indexing {}", args.db.display())),
    };
    let size = std::fs::metadata(&out).map_or(0, |m| m.len());
    gamerec::say!(
        "{}: {} games ({} unreadable), {} positions, {} postings, {} bytes, {:.1} s",
        out.display(),
        stats.games,
        stats.failed,
        stats.positions,
        stats.postings,
        size,
        start.elapsed().as_secs_f64()
    );
    if stats.variants > 0 {
        gamerec::say!(
            "{}: {} games of lichess variants: their tags are indexed, their positions are not \
             (position queries are standard chess)",
            out.display(),
            stats.variants
        );
    }
    let mut tally = tally;
    tally.written = Some(stats.games - before);
    gamerec::say!("gamerec index: {tally}");
    Ok(ExitCode::from(tally.exit_code()))
}
