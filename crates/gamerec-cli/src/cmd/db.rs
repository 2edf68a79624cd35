//! The database verbs over `gamerec_db`: `filter`, `dedup`, `eco`, `index`,
//! `find`. Games are read in parallel and written in input order.
//!
//! Games are numbered from 1 in input order across all inputs, games that
//! fail to read included (so numbers are positions in the files, and the
//! index's game numbers are the same).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use gamerec::model::Game;
use gamerec::pgn::{Notation, WriteOptions, write_game};
use gamerec_db::dedup::{DedupOptions, Seen, identity};
use gamerec_db::eco::EcoBook;
use gamerec_db::filter::{Atom, Expr, Op};

use gamerec::io::pipeline::{self, Tally};
use gamerec::io::{Format, Input};
use gamerec_db::source::for_each_game;
use std::ops::ControlFlow;

use crate::progress::Progress;

use crate::input::open_output;

/// An output format name (`--to`): any chess format of `gamerec::io`.
fn parse_format(name: &str) -> Result<Format, String> {
    match name.parse::<Format>() {
        Ok(f) if f.is_chess() && !f.is_table() => Ok(f),
        _ => Err(format!(
            "unknown chess format {name:?}: pgn, json, epd, fen, pgc, cbf, fbk"
        )),
    }
}

/// Move notation of PGN output (pgn-extract's -W).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NotationArg {
    /// Standard Algebraic Notation.
    San,
    /// Long algebraic (Ng1-f3, e4xd5, e7-e8=Q).
    Lan,
    /// UCI coordinates (g1f3, e7e8q).
    Uci,
}

/// Input and output options shared by the database verbs.
#[derive(Args, Debug, Clone)]
pub struct IoArgs {
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(default_value = "-")]
    inputs: Vec<OsString>,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Output format: pgn, json, epd, fen, pgc, cbf, fbk (default: by the
    /// output's extension, else pgn).
    #[arg(long, value_parser = parse_format)]
    to: Option<Format>,
    /// Move notation of PGN output.
    #[arg(long, value_enum, default_value = "san")]
    notation: NotationArg,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// The bound on one game's bytes: a larger game is reported and left
    /// out (the rest is read).
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    max_game_bytes: u64,
}

impl IoArgs {
    fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    fn writer(&self) -> GameWriter {
        // --to, else the output's name, else PGN; a name that says no
        // format is written as PGN.
        let to = gamerec::io::output_format(self.to, self.output.as_deref(), Some(Format::Pgn))
            .unwrap_or(self.to.unwrap_or(Format::Pgn));
        GameWriter {
            to,
            opts: WriteOptions {
                notation: match self.notation {
                    NotationArg::San => Notation::San,
                    NotationArg::Lan => Notation::Lan,
                    NotationArg::Uci => Notation::Uci,
                },
                ..WriteOptions::default()
            },
        }
    }
}

/// Renders games in the chosen format: PGN and JSON on the worker threads
/// ([`GameWriter::write`]); other formats go through `gamerec::io`'s writer
/// on the calling thread ([`Output`]).
#[derive(Debug, Clone)]
struct GameWriter {
    to: Format,
    opts: WriteOptions,
}

/// A game ready for the output: its text, or the game itself.
enum Rendered {
    Text(Vec<u8>),
    Game(Box<Game>),
}

impl GameWriter {
    fn write(&self, game: &Game) -> Rendered {
        let mut out = Vec::new();
        match self.to {
            Format::Pgn => {
                write_game(game, &self.opts, &mut out);
            }
            Format::Json => {
                let mut s = String::new();
                gamerec::pgn::write_game_json(
                    game,
                    &gamerec::pgn::commands::write_commands_json,
                    &mut s,
                );
                out = s.into_bytes();
            }
            _ => return Rendered::Game(Box::new(game.clone())),
        }
        Rendered::Text(out)
    }
}

/// Where the games go: a byte stream for PGN and JSON, `gamerec::io`'s
/// writer for the other formats (with the losses it reports on stderr).
struct Output {
    stream: Option<gamerec::io::Output>,
    io: Option<gamerec::io::GameWriter<'static>>,
    written: u64,
}

impl Output {
    fn open(path: Option<&std::path::Path>, writer: &GameWriter) -> Result<Output> {
        if matches!(writer.to, Format::Pgn | Format::Json) {
            return Ok(Output {
                stream: Some(open_output(path)?),
                io: None,
                written: 0,
            });
        }
        let opts = gamerec::io::WriteOptions {
            pgn: writer.opts.clone(),
            ..Default::default()
        };
        let io = match path.filter(|p| *p != std::path::Path::new("-")) {
            Some(p) => gamerec::io::GameWriter::create(p, writer.to, &opts)?,
            None => {
                gamerec::io::GameWriter::to_stream(Box::new(std::io::stdout()), writer.to, &opts)?
            }
        };
        Ok(Output {
            stream: None,
            io: Some(io),
            written: 0,
        })
    }

    fn put(&mut self, r: Rendered, source: &str) -> Result<()> {
        self.written += 1;
        match (r, &mut self.stream, &mut self.io) {
            (Rendered::Text(t), Some(s), _) => s.write_all(&t)?,
            (Rendered::Game(g), _, Some(w)) => {
                let item = gamerec::io::Item {
                    record: gamerec::io::Record::Game(*g),
                    number: self.written,
                    line: 0,
                    offset: 0,
                };
                for d in w.write(&item, source)? {
                    eprintln!("{d}");
                }
            }
            _ => bail!("internal: output kind mismatch"),
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        if let Some(s) = self.stream {
            s.finish()?;
        }
        if let Some(w) = self.io {
            for d in w.finish()? {
                eprintln!("{d}");
            }
        }
        Ok(())
    }
}

/// Runs `work` on every game of every input (in parallel, through the
/// library's pipeline) and `sink` in input order with the game's number
/// over all inputs (from 1; games that could not be read count too), its
/// input's name and byte offset. Diagnostics go to stderr as `check`
/// prints them. Returns the pipeline's tally.
fn each_game<T: Send>(
    io: &IoArgs,
    work: impl Fn(&Game) -> T + Sync,
    mut sink: impl FnMut(u64, &str, u64, T) -> Result<()>,
) -> Result<Tally> {
    let inputs = Input::from_args(&io.inputs);
    let total = inputs.iter().map(Input::size).sum::<Option<u64>>();
    let progress = Progress::new(total);
    let opts = pipeline::Options {
        threads: io.threads(),
        max_game_bytes: io.max_game_bytes,
        read_bytes: Some(progress.read_bytes.clone()),
        ..pipeline::Options::default()
    };
    let mut err = None;
    let mut seen = 0u64;
    let ran = pipeline::read_games(
        &inputs,
        &opts,
        |item| match &item.record {
            gamerec::io::Record::Game(g) => work(g),
            r @ gamerec::io::Record::Position(_) => work(&r.to_game().value),
        },
        |out| {
            seen += 1;
            progress.update(seen);
            match sink(out.overall, &inputs[out.input].name, out.offset, out.value) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    err = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
        |d| {
            eprintln!("{d}");
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    if let Some(e) = err {
        return Err(e);
    }
    Ok(ran.tally)
}

/// Prints the tally (with `written`) as the last line on stderr, and
/// returns the exit code it calls for.
fn finish(verb: &str, mut tally: Tally, written: u64) -> ExitCode {
    tally.written = Some(written);
    eprintln!("gamerec {verb}: {tally}");
    ExitCode::from(tally.exit_code())
}

/// Select games by tags, result, positions, material and endings.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec filter --player Carlsen games.pgn -o carlsen.pgn
  gamerec filter --tag 'WhiteElo>=2500' --tag 'Date>=2020' db.pgn.zst
  gamerec filter --eco B20-B99 --result 1-0 games.pgn
  gamerec filter --fen 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' games.pgn
  gamerec filter --pattern '*/*/*/*/???PP???/*/*/*' games.pgn
  gamerec filter --material 'KR*P*vKR*P*' --ended stalemate games.pgn
  gamerec filter --where '(Elo>=2600 or player^=Tal) and not result=1/2-1/2' games.pgn
  gamerec filter --player Carlsen --notation uci --to json games.pgn

All criteria given are and-ed; --where takes and/or/not and parentheses.
Atoms: NAME OP VALUE with OP one of = != ^= *= ~ !~ < <= > >=; NAME a tag,
or player, elo, result, eco, fen, pattern, subfen, material, material-any,
ended. See README.md (Game databases) for the full syntax.")]
pub struct FilterArgs {
    #[command(flatten)]
    io: IoArgs,
    /// A tag criterion NAME OP VALUE, e.g. 'WhiteElo>=2500', 'Event~^World'.
    #[arg(long = "tag", short = 't', value_name = "CRITERION")]
    tags: Vec<String>,
    /// A player on either side (name prefix, as pgn-extract's Player).
    #[arg(long, value_name = "NAME")]
    player: Vec<String>,
    /// An ECO range (A00-A99, B2-B4) or code prefix.
    #[arg(long, value_name = "RANGE")]
    eco: Vec<String>,
    /// The game's result (1-0, 0-1, 1/2-1/2, *).
    #[arg(long)]
    result: Option<String>,
    /// A position reached in the main line (placement, side, castling, e.p.).
    #[arg(long, value_name = "FEN")]
    fen: Vec<String>,
    /// A board pattern reached in the main line (pgn-extract FENPattern syntax).
    #[arg(long, value_name = "PATTERN")]
    pattern: Vec<String>,
    /// Pieces on squares, other squares free (scoutfish sub-fen).
    #[arg(long = "sub-fen", value_name = "SUBFEN")]
    sub_fen: Vec<String>,
    /// Material at some ply, White v Black: 'KQ*vKR*', 'R+P>vR=P#'.
    #[arg(long, value_name = "SPEC")]
    material: Vec<String>,
    /// Material at some ply, for either colour (pgn-extract -z).
    #[arg(long = "material-any", value_name = "SPEC")]
    material_any: Vec<String>,
    /// How the game ended: mate, stalemate, repetition, fifty, insufficient.
    #[arg(long, value_name = "ENDING")]
    ended: Vec<String>,
    /// A whole expression with and, or, not and parentheses.
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    expr: Vec<String>,
    /// Output the games that do not match instead.
    #[arg(long, short = 'v')]
    invert: bool,
    /// Print the number of matching games on stdout; alone, no games are
    /// written (as `grep -c`); with -o they are written too.
    #[arg(long)]
    count: bool,
}

impl FilterArgs {
    fn expression(&self) -> Result<Expr> {
        let mut parts = Vec::new();
        let atom = |name: &str, op: Op, v: &str| Atom::new(name, op, v).map(Expr::Atom);
        for t in &self.tags {
            parts.push(Expr::Atom(Atom::parse(t).map_err(anyhow::Error::msg)?));
        }
        for p in &self.player {
            parts.push(atom("player", Op::Prefix, p).map_err(anyhow::Error::msg)?);
        }
        for e in &self.eco {
            let op = if e.contains('-') { Op::Eq } else { Op::Prefix };
            parts.push(atom("ECO", op, e).map_err(anyhow::Error::msg)?);
        }
        let lists: [(&str, &Vec<String>); 6] = [
            ("fen", &self.fen),
            ("pattern", &self.pattern),
            ("subfen", &self.sub_fen),
            ("material", &self.material),
            ("material-any", &self.material_any),
            ("ended", &self.ended),
        ];
        for (name, values) in lists {
            for v in values {
                parts.push(atom(name, Op::Eq, v).map_err(anyhow::Error::msg)?);
            }
        }
        if let Some(r) = &self.result {
            parts.push(atom("result", Op::Eq, r).map_err(anyhow::Error::msg)?);
        }
        for w in &self.expr {
            parts.push(Expr::parse(w).map_err(anyhow::Error::msg)?);
        }
        Ok(Expr::all(parts))
    }
}

/// `gamerec filter`.
pub fn run_filter(args: FilterArgs) -> Result<ExitCode> {
    let expr = match args.expression() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("gamerec filter: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let writer = args.io.writer();
    // --count alone prints the count and writes no games (as grep -c).
    let write = !args.count || args.io.output.is_some();
    let mut out = match write {
        true => Some(Output::open(args.io.output.as_deref(), &writer)?),
        false => None,
    };
    let mut matched = 0u64;
    let invert = args.invert;
    let tally = each_game(
        &args.io,
        |game| (expr.matches_game(game) != invert).then(|| write.then(|| writer.write(game))),
        |_, name, _, text| {
            if let Some(text) = text {
                matched += 1;
                if let (Some(out), Some(text)) = (out.as_mut(), text) {
                    out.put(text, name)?;
                }
            }
            Ok(())
        },
    )?;
    if let Some(out) = out {
        out.finish()?;
    }
    if args.count {
        println!("{matched}");
    }
    Ok(finish("filter", tally, if write { matched } else { 0 }))
}

/// Drop duplicate games, keeping the first copy.
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
        |game| (identity(game, opts), writer.write(game)),
        |n, name, offset, (id, text)| {
            match seen.first_of(id, n) {
                None => {
                    kept += 1;
                    out.put(text, name)?;
                }
                Some(first) => {
                    dropped += 1;
                    if !quiet {
                        eprintln!("{name}: byte {offset}: game {n} duplicates game {first}");
                    }
                    if let Some(d) = dup_out.as_mut() {
                        d.put(text, name)?;
                    }
                }
            }
            Ok(())
        },
    )?;
    out.finish()?;
    if let Some(d) = dup_out {
        d.finish()?;
    }
    eprintln!("{kept} games kept, {dropped} duplicates dropped");
    Ok(finish("dedup", tally, kept))
}

/// Classify games by opening (ECO, Opening, Variation tags).
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
        eprintln!(
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
        |game| {
            let mut g = game.clone();
            let hit = book.apply(&mut g);
            (hit, writer.write(&g))
        },
        |_, name, _, (hit, text)| {
            total += 1;
            classified += u64::from(hit);
            out.put(text, name)?;
            Ok(())
        },
    )?;
    out.finish()?;
    eprintln!("{classified} of {total} games classified");
    Ok(finish("eco", tally, total))
}

/// Build a position index of a PGN database.
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

fn default_index(db: &std::path::Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".idx");
    PathBuf::from(s)
}

/// The command that brings `index` up to date with `db`.
fn index_command(db: &std::path::Path, index: &std::path::Path, append: bool) -> String {
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
fn open_checked(
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
    let built = build(&input, previous, &out, &opts, |d| eprintln!("{d}"));
    let (stats, tally) = match built {
        Ok(done) => done,
        Err(IndexError::NotRead(name, tally)) => {
            let mut tally = *tally;
            tally.written = Some(0);
            eprintln!("gamerec index: {tally}");
            eprintln!(
                "gamerec: {}: not written: {name} was not read to its end",
                out.display()
            );
            return Ok(ExitCode::from(tally.exit_code()));
        }
        Err(e) => return Err(e).with_context(|| format!("indexing {}", args.db.display())),
    };
    let size = std::fs::metadata(&out).map_or(0, |m| m.len());
    eprintln!(
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
        eprintln!(
            "{}: {} games of lichess variants: their tags are indexed, their positions are not \
             (position queries are standard chess)",
            out.display(),
            stats.variants
        );
    }
    let mut tally = tally;
    tally.written = Some(stats.games - before);
    eprintln!("gamerec index: {tally}");
    Ok(ExitCode::from(tally.exit_code()))
}

/// Find games in an indexed database.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec find games.pgn --fen 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
  gamerec find games.pgn --fen '...' --ids          # game number and ply per line
  gamerec find games.pgn --pattern '*/*/*/*/???PP???/*/*/*' --to json
  gamerec find games.pgn --material 'KRP*vKR' -o rook-endings.pgn
  gamerec find games.pgn --tree 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

Games found are written with a MatchPly tag: the first ply (0 = the start
position) at which the main line reaches the position, pattern or material.
--fen looks the position up; --pattern, --sub-fen and --material scan the
index's stored boards (every distinct position, on --threads threads): no
game is replayed. A .pgn.zst database of many zstd frames (such as
split -C 1M --filter 'zstd -c') is read from the frame holding each game.
--tree prints each continuation: games, White wins / draws / Black wins in
percent, and the players' average rating.")]
pub struct FindArgs {
    /// The database the index was built from.
    db: PathBuf,
    /// The index (default: DB.idx).
    #[arg(long)]
    index: Option<PathBuf>,
    /// An exact position (placement, side to move, castling, e.p.).
    #[arg(long, value_name = "FEN", group = "query")]
    fen: Option<String>,
    /// A board pattern (pgn-extract FENPattern syntax).
    #[arg(long, value_name = "PATTERN", group = "query")]
    pattern: Option<String>,
    /// Pieces on squares, other squares free (scoutfish sub-fen).
    #[arg(long = "sub-fen", value_name = "SUBFEN", group = "query")]
    sub_fen: Option<String>,
    /// Material at some ply, White v Black.
    #[arg(long, value_name = "SPEC", group = "query")]
    material: Option<String>,
    /// Material at some ply, either colour.
    #[arg(long = "material-any", value_name = "SPEC", group = "query")]
    material_any: Option<String>,
    /// The opening tree of a position (default: the start position).
    #[arg(long, value_name = "FEN", group = "query", num_args = 0..=1,
          default_missing_value = START_FEN)]
    tree: Option<String>,
    /// Moves played from the position of --fen or --tree (or the start
    /// position): SAN or UCI, separated by spaces or commas.
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// Only games whose average rating is in these rating groups
    /// (comma-separated: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500).
    #[arg(long, value_name = "GROUPS")]
    ratings: Option<String>,
    /// Only games of these speeds, from TimeControl (comma-separated:
    /// ultraBullet, bullet, blitz, rapid, classical, correspondence).
    #[arg(long, value_name = "SPEEDS")]
    speeds: Option<String>,
    /// Only games played in this month (YYYY-MM) or later.
    #[arg(long, value_name = "MONTH")]
    since: Option<String>,
    /// Only games played in this month (YYYY-MM) or earlier.
    #[arg(long, value_name = "MONTH")]
    until: Option<String>,
    /// Only games with this player on either side (whole name, any case).
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
    /// Games: the order (id, rating: highest first, date: latest first).
    #[arg(long, value_enum, default_value = "id")]
    sort: SortArg,
    /// At most this many games (with --tree: moves).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Leave out the first N games found (in --sort order).
    #[arg(long, value_name = "N", default_value_t = 0)]
    offset: usize,
    /// With --tree --to json: the highest rated games listed.
    #[arg(long, value_name = "N", default_value_t = 4)]
    top_games: usize,
    /// With --tree --to json: the most recent games listed.
    #[arg(long, value_name = "N", default_value_t = 4)]
    recent_games: usize,
    /// With --tree --to json: an ECO file naming the opening.
    #[arg(long = "eco-file", value_name = "FILE")]
    eco_file: Option<PathBuf>,
    /// Print `GAME<TAB>PLY` lines instead of games (game numbers from 1).
    #[arg(long)]
    ids: bool,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Output format: pgn, json, epd, fen, pgc, cbf, fbk (default: by the
    /// output's extension, else pgn).
    #[arg(long, value_parser = parse_format)]
    to: Option<Format>,
    /// Move notation of PGN output.
    #[arg(long, value_enum, default_value = "san")]
    notation: NotationArg,
    /// Hash every byte of the database to check it is the one indexed (by
    /// default: its size, sampled blocks, and every byte when its
    /// modification time changed).
    #[arg(long)]
    full_check: bool,
    /// Threads scanning the index's boards for --pattern, --sub-fen and
    /// --material (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
}

/// The standard start position.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The order of games found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Game number.
    Id,
    /// Game rating (average of the players'), highest first.
    Rating,
    /// Date, latest first.
    Date,
}

/// The explorer filters of `find`.
fn find_filters(args: &FindArgs) -> Result<gamerec_db::explorer::Filters, String> {
    use gamerec_db::explorer::Filters;
    let mut f = Filters::default();
    if let Some(r) = &args.ratings {
        f.ratings = Filters::parse_ratings(r)?;
    }
    if let Some(s) = &args.speeds {
        f.speeds = Filters::parse_speeds(s)?;
    }
    if let Some(s) = &args.since {
        f.set_since(s)?;
    }
    if let Some(u) = &args.until {
        f.set_until(u)?;
    }
    f.player = args.player.clone();
    Ok(f)
}

/// Loads an ECO book for opening names.
pub fn load_eco(path: &std::path::Path) -> Result<EcoBook> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (book, _) = EcoBook::from_pgn(&data);
    if book.is_empty() {
        bail!("{}: no ECO lines", path.display());
    }
    Ok(book)
}

/// The White and Black names of game `g` read back from the database
/// (`?` when it cannot be read).
pub fn game_names(
    db: &gamerec_db::explorer::Database,
    index: &gamerec_db::index::Index,
    g: u32,
) -> (String, String) {
    match db.game(index, g) {
        Ok(Some(game)) => {
            let t = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
            (t("White"), t("Black"))
        }
        _ => ("?".into(), "?".into()),
    }
}

/// `gamerec find`.
pub fn run_find(args: FindArgs) -> Result<ExitCode> {
    use gamerec_db::explorer::{Database, Request, explore, game_rating, opening, play};
    use gamerec_db::material::MaterialSpec;
    use gamerec_db::pattern::{Pattern, Pieces};
    use gamerec_db::position::parse_query_fen;
    let index_path = args
        .index
        .clone()
        .unwrap_or_else(|| default_index(&args.db));
    let usage = |e: String| -> Result<ExitCode> {
        eprintln!("gamerec find: {e}");
        Ok(ExitCode::from(2))
    };
    let filters = match find_filters(&args) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let played: Vec<&str> = args
        .moves
        .as_deref()
        .unwrap_or("")
        .split([' ', ',', '\t', '\n'])
        .filter(|m| !m.is_empty())
        .collect();
    // The position of --tree or --fen (or the start position) after --moves.
    let line_from = |fen: &str| -> Result<Vec<shakmaty::Chess>, String> {
        play(&parse_query_fen(fen)?, &played)
    };
    let index = open_checked(&args.db, &index_path, args.full_check)?;
    let mut out = open_output(args.output.as_deref())?;
    if let Some(fen) = &args.tree {
        let line = match line_from(fen) {
            Ok(l) => l,
            Err(e) => return usage(e),
        };
        let pos = line.last().cloned().unwrap_or_default();
        let req = Request {
            filters,
            moves: args.limit,
            top_games: args.top_games,
            recent_games: args.recent_games,
        };
        let report = explore(&index, &pos, &req);
        if args.to == Some(Format::Json) {
            // The lichess opening explorer's shape (gamerec_db::explorer).
            let book = args.eco_file.as_deref().map(load_eco).transpose()?;
            let db = Database::new(&args.db)?;
            let name = book.as_ref().and_then(|b| opening(b, &line));
            let doc = gamerec_db::explorer::report_json(&report, name, &mut |g| {
                game_names(&db, &index, g)
            });
            writeln!(out, "{doc}")?;
            out.finish()?;
            return Ok(ExitCode::SUCCESS);
        }
        let totals = report.totals;
        let total: u64 = report.moves.iter().map(|m| m.tree.games).sum();
        writeln!(
            out,
            "{:<8} {:>9} {:>7} {:>7} {:>7} {:>7}",
            "move", "games", "white", "draw", "black", "elo"
        )?;
        let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        for m in report.moves.iter().map(|m| &m.tree) {
            writeln!(
                out,
                "{:<8} {:>9} {:>6.1}% {:>6.1}% {:>6.1}% {:>7}",
                m.san,
                m.games,
                pct(m.white, m.games),
                pct(m.draws, m.games),
                pct(m.black, m.games),
                m.average_elo.map_or("-".to_string(), |e| e.to_string())
            )?;
        }
        writeln!(out, "{:<8} {total:>9}", "total")?;
        // Games reaching the position without a continuation are counted,
        // not dropped.
        writeln!(out, "{:<8} {:>9}", "ended", totals.ended)?;
        writeln!(out, "{:<8} {:>9}", "reached", totals.games)?;
        out.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    // Candidates (game, ply if known) and the expression that verifies them;
    // `exact`: every candidate matches (a position looked up, or found in
    // the index's boards).
    let scan_threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Games found by a boards scan, exact unless some must be replayed
    // (then all are verified).
    let scanned = |found: gamerec_db::index::PositionGames| -> (Vec<(u32, Option<u16>)>, bool) {
        if found.replay.is_empty() {
            (
                found.found.into_iter().map(|(g, p)| (g, Some(p))).collect(),
                true,
            )
        } else {
            let mut all: Vec<u32> = found.found.iter().map(|f| f.0).collect();
            all.extend(found.replay);
            all.sort_unstable();
            all.dedup();
            (all.into_iter().map(|g| (g, None)).collect(), false)
        }
    };
    let position_query = args.fen.clone().or_else(|| {
        (args.moves.is_some()
            && args.pattern.is_none()
            && args.sub_fen.is_none()
            && args.material.is_none()
            && args.material_any.is_none())
        .then(|| START_FEN.to_string())
    });
    let (expr, mut candidates, exact): (Expr, Vec<(u32, Option<u16>)>, bool) =
        if let Some(fen) = &position_query {
            let pos = match line_from(fen) {
                Ok(l) => l.last().cloned().unwrap_or_default(),
                Err(e) => return usage(e),
            };
            let text = gamerec::fen::write_fen(&pos, shakmaty::CastlingMode::Standard);
            let found = index
                .find(&pos)
                .into_iter()
                .map(|(g, p)| (g, Some(p)))
                .collect();
            (
                Expr::Atom(Atom::new("fen", Op::Eq, &text).map_err(anyhow::Error::msg)?),
                found,
                true,
            )
        } else if let Some((name, text)) = [("pattern", &args.pattern), ("subfen", &args.sub_fen)]
            .into_iter()
            .find_map(|(n, t)| t.as_ref().map(|t| (n, t)))
        {
            let pat = match if name == "pattern" {
                Pattern::parse(text)
            } else {
                Pattern::parse_sub_fen(text)
            } {
                Ok(p) => p,
                Err(e) => return usage(e),
            };
            // The index's boards scanned with the pattern's masks.
            let matcher = pat.matcher();
            let found = index.position_games(|b| matcher.test_packed(b), scan_threads);
            let expr = Expr::Atom(Atom::new(name, Op::Eq, text).map_err(anyhow::Error::msg)?);
            let (c, exact) = scanned(found);
            (expr, c, exact)
        } else if let Some((name, text, any)) = [
            ("material", &args.material, false),
            ("material-any", &args.material_any, true),
        ]
        .into_iter()
        .find_map(|(n, t, a)| t.as_ref().map(|t| (n, t, a)))
        {
            let spec = match MaterialSpec::parse(text, any) {
                Ok(s) => s,
                Err(e) => return usage(e),
            };
            let found = index.position_games(
                |b| spec.matches_counts(&Pieces::packed_counts(b)),
                scan_threads,
            );
            let expr = Expr::Atom(Atom::new(name, Op::Eq, text).map_err(anyhow::Error::msg)?);
            let (c, exact) = scanned(found);
            (expr, c, exact)
        } else {
            return usage(
            "give one of --fen, --moves, --pattern, --sub-fen, --material, --material-any, --tree"
                .into(),
        );
        };
    // The filters on the index's game summaries, then the order.
    let keep = filters.matcher();
    let info = |g: u32| index.game(g).unwrap_or_default();
    candidates.retain(|(g, _)| keep(&info(*g)));
    let rank = |g: u32| -> (u64, u64, u32) {
        let i = info(g);
        match args.sort {
            SortArg::Id => (0, 0, g),
            SortArg::Rating => (u64::from(u32::MAX - game_rating(&i).unwrap_or(0)), 0, g),
            SortArg::Date => {
                let (y, m, d) = i.date;
                let date = u64::from(y) << 16 | u64::from(m) << 8 | u64::from(d);
                (u64::MAX - date, u64::from(u32::MAX - g), 0)
            }
        }
    };
    candidates.sort_by_key(|(g, _)| rank(*g));
    let limit = args.limit.unwrap_or(usize::MAX);
    if exact {
        candidates = candidates
            .into_iter()
            .skip(args.offset)
            .take(limit)
            .collect();
    }
    if args.ids && exact {
        for (g, p) in &candidates {
            writeln!(out, "{}\t{}", g + 1, p.unwrap_or(0))?;
        }
        out.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    // Read the candidates from the database, verify; skip --offset, stop
    // at --limit (for exact queries already applied), write.
    let (offset, limit) = if exact {
        (0, usize::MAX)
    } else {
        (args.offset, limit)
    };
    let writer = IoArgs {
        inputs: Vec::new(),
        output: args.output.clone(),
        to: args.to,
        notation: args.notation,
        threads: Some(1),
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    }
    .writer();
    let mut games_out = Output::open(args.output.as_deref(), &writer)?;
    let db_name = args.db.display().to_string();
    let mut ids_out: Vec<(u32, usize)> = Vec::new();
    // Verified matches in candidate order: (game, matching ply, the game).
    let mut matched: Vec<(u32, usize, Option<Game>)> = Vec::new();
    let verify = |g: u32, game: Game, matched: &mut Vec<(u32, usize, Option<Game>)>| {
        let subject = gamerec_db::filter::Subject::new(&game);
        if !expr.matches(&subject) {
            return;
        }
        let ply = first_matching_ply(&expr, subject.positions());
        drop(subject);
        matched.push((g, ply, (!args.ids).then_some(game)));
    };
    let plain = Input::from_arg(args.db.as_os_str()).open_plain()?;
    if plain.is_some() || index.frame_at(0).is_some() {
        let db = Database::new(&args.db)?;
        let mut seen = 0usize;
        for (g, _) in &candidates {
            if seen >= offset.saturating_add(limit) {
                break;
            }
            // Each game is read alone from its offset to the next game's.
            let Some(game) = db.game(&index, *g)? else {
                continue;
            };
            let before = matched.len();
            verify(*g, game, &mut matched);
            if matched.len() > before {
                seen += 1;
                if seen <= offset {
                    matched.pop();
                }
            }
        }
    } else {
        let wanted: std::collections::HashSet<u32> = candidates.iter().map(|c| c.0).collect();
        let mut n = 0u32;
        let input = Input::from_arg(args.db.as_os_str());
        let reading = pipeline::Options {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ..pipeline::Options::default()
        };
        // Problems were reported when the index was built: not again.
        let tally = for_each_game(
            &input,
            &reading,
            |r| Some(r.game.clone()),
            |o| {
                let g = n;
                n += 1;
                if wanted.contains(&g)
                    && let Ok((_, Some(game))) = o
                {
                    verify(g, game, &mut matched);
                }
                Ok(true)
            },
            |_| {},
        )?;
        if tally.inputs_not_read > 0 {
            bail!("{}: could not be read to its end", args.db.display());
        }
        matched.sort_by_key(|(g, _, _)| rank(*g));
        matched = matched.into_iter().skip(offset).take(limit).collect();
    }
    for (g, ply, game) in matched {
        match game {
            Some(mut game) if !args.ids => {
                game.tags.set("MatchPly", ply.to_string());
                games_out.put(writer.write(&game), &db_name)?;
            }
            _ => ids_out.push((g, ply)),
        }
    }
    for (g, p) in ids_out {
        writeln!(out, "{}\t{p}", g + 1)?;
    }
    // Both name the same output: the one written is put into place.
    if args.ids {
        drop(games_out);
        out.finish()?;
    } else {
        drop(out);
        games_out.finish()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The first main-line ply whose position satisfies the (positional) atom.
fn first_matching_ply(expr: &Expr, positions: &[shakmaty::Chess]) -> usize {
    use shakmaty::Position;
    let Expr::Atom(atom) = expr else { return 0 };
    positions
        .iter()
        .position(|p| match atom {
            Atom::Fen(q) => gamerec_db::position::same_position(p, q),
            Atom::Pattern(pat) => pat.matches(p.board()),
            Atom::Material(m) => m.matches(p.board()),
            _ => false,
        })
        .unwrap_or(0)
}

/// Serve an indexed database as an opening explorer over HTTP.
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
        eprintln!(
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
        eprintln!("gamerec serve: listening on http://{addr}/");
    })
    .with_context(|| format!("serving on {}", args.listen))?;
    eprintln!("gamerec serve: stopped");
    Ok(ExitCode::SUCCESS)
}
