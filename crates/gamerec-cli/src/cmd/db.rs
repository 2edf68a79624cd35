//! What the database verbs (`filter`, `dedup`, `eco`, `index`, `find`,
//! `serve`) share: the input/output options, the game writer, the parallel
//! walk over every game and the summary line. Games are read in parallel
//! and written in input order.
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
use gamerec_db::eco::EcoBook;

use gamerec::io::pipeline::{self, Tally};
use gamerec::io::{Format, Input};
use std::ops::ControlFlow;

use crate::progress::Progress;

use crate::input::open_output;

/// An output format name (`--to`): any chess format of `gamerec::io`.
pub(crate) fn parse_format(name: &str) -> Result<Format, String> {
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

// Input and output options shared by the database verbs.
#[derive(Args, Debug, Clone)]
pub struct IoArgs {
    /// Input files (`-` for stdin; .gz, .bz2, .zst read transparently).
    #[arg(default_value = "-")]
    pub(crate) inputs: Vec<OsString>,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Output format: pgn, json, epd, fen, pgc, cbf, fbk (default: by the
    /// output's extension, else pgn).
    #[arg(long, value_parser = parse_format)]
    pub(crate) to: Option<Format>,
    /// Move notation of PGN output.
    #[arg(long, value_enum, default_value = "san")]
    pub(crate) notation: NotationArg,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub(crate) threads: Option<usize>,
    /// The bound on one game's bytes: a larger game is reported and left
    /// out (the rest is read).
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    pub(crate) max_game_bytes: u64,
}

impl IoArgs {
    fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    pub(crate) fn writer(&self) -> GameWriter {
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
pub(crate) struct GameWriter {
    to: Format,
    opts: WriteOptions,
}

/// A game ready for the output: its text, or the game itself.
pub(crate) enum Rendered {
    Text(Vec<u8>),
    Game(Box<Game>),
}

impl GameWriter {
    pub(crate) fn write(&self, game: &Game) -> Rendered {
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
pub(crate) struct Output {
    stream: Option<gamerec::io::Output>,
    io: Option<gamerec::io::GameWriter<'static>>,
    written: u64,
    lost: Lost,
}

/// What a binary format's writer could not keep, for the verb's summary:
/// its messages, and the games its errors left out.
#[derive(Debug, Clone, Copy, Default)]
#[must_use]
pub(crate) struct Lost {
    pub(crate) errors: u64,
    pub(crate) warnings: u64,
    /// Games left out (each with an error).
    pub(crate) games: u64,
}

impl Lost {
    /// Says `d` on stderr and counts it.
    fn say(&mut self, d: &gamerec::diag::Diagnostic) {
        let (errors, warnings) = d.counts();
        self.errors += errors;
        self.warnings += warnings;
        gamerec::say!("{d}");
    }
}

impl Output {
    pub(crate) fn open(path: Option<&std::path::Path>, writer: &GameWriter) -> Result<Output> {
        if matches!(writer.to, Format::Pgn | Format::Json) {
            return Ok(Output {
                stream: Some(open_output(path)?),
                io: None,
                written: 0,
                lost: Lost::default(),
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
            lost: Lost::default(),
        })
    }

    pub(crate) fn put(&mut self, r: Rendered, source: &str) -> Result<()> {
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
                let issues = w.write(&item, source)?;
                self.lost.games += u64::from(issues.iter().any(|d| d.is_error()));
                for d in &issues {
                    self.lost.say(d);
                }
            }
            _ => bail!("internal: output kind mismatch"),
        }
        Ok(())
    }

    /// Completes the output; what its writer could not keep.
    pub(crate) fn finish(mut self) -> Result<Lost> {
        if let Some(s) = self.stream {
            s.finish()?;
        }
        if let Some(w) = self.io {
            for d in w.finish()? {
                self.lost.say(&d);
            }
        }
        Ok(self.lost)
    }
}

/// Runs `work` on every game of every input (in parallel, through the
/// library's pipeline; the game is `work`'s to change) and `sink` in input order with the game's number
/// over all inputs (from 1; games that could not be read count too), its
/// input's name and byte offset. Diagnostics go to stderr as `check`
/// prints them. Returns the pipeline's tally.
pub(crate) fn each_game<T: Send>(
    io: &IoArgs,
    work: impl Fn(Game) -> T + Sync,
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
        |item| match item.record {
            gamerec::io::Record::Game(g) => work(g),
            r @ gamerec::io::Record::Position(_) => work(r.to_game().value),
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
            gamerec::say!("{d}");
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    if let Some(e) = err {
        return Err(e);
    }
    Ok(ran.tally)
}

/// Prints the tally (with `written`, less the games the writer `lost`,
/// whose messages it counts) as the last line on stderr, and returns the
/// exit code it calls for.
pub(crate) fn finish(verb: &str, mut tally: Tally, written: u64, lost: Lost) -> ExitCode {
    tally.errors += lost.errors;
    tally.warnings += lost.warnings;
    tally.games_with_errors += lost.games;
    tally.written = Some(written.saturating_sub(lost.games));
    gamerec::say!("gamerec {verb}: {tally}");
    ExitCode::from(tally.exit_code())
}

/// Loads an ECO book for opening names.
pub(crate) fn load_eco(path: &std::path::Path) -> Result<EcoBook> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (book, _) = EcoBook::from_pgn(&data);
    if book.is_empty() {
        bail!("{}: no ECO lines", path.display());
    }
    Ok(book)
}
