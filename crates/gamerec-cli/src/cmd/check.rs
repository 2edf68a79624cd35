//! `gamerec check`: every format, dispatched by extension. PGN goes through
//! the parallel checker of `formats::pgn`; SGF, EPD and the binary and line
//! formats are checked file by file on the library's ordered parallel map,
//! and every format checked is summed in one `Tally` line.

use std::ffi::OsString;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cmd::sgf;
use crate::formats::pgn;
use gamerec::io::Format;
use gamerec::io::pipeline::Tally;
use gamerec::io::spool::{CopyError, Spool};

// Arguments of `gamerec check` (all formats).
#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check (`-` for stdin: SGF and EPD recognised by content, else PGN;
    /// .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    pub files: Vec<OsString>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// PGN: check only main-line moves (skip variations).
    #[arg(long)]
    pub mainline_only: bool,
    /// Print errors only (warnings are still counted).
    #[arg(short, long)]
    pub quiet: bool,
    /// PGN: also warn on tag values that break their formats (Date, Round,
    /// TimeControl, ...; PGN standard sections 8.1 and 9).
    #[arg(long)]
    pub strict: bool,
    /// SGF: read input in this charset, overriding CA (e.g. GB18030).
    #[arg(long)]
    pub charset: Option<String>,
    /// PGN: the bound on one game's bytes; a larger game is reported and
    /// left out, the rest is read.
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    pub max_game_bytes: u64,
}

/// The error for a file of no format `check` or `show` reads.
pub(crate) fn unsupported(path: &str) -> anyhow::Error {
    anyhow::anyhow!("{path}: unsupported format")
}

/// Memory and open directory kept by a worker from file to file.
#[derive(Default)]
struct Scratch {
    /// Read buffer (see [`gamerec::io::read_file_into`]).
    buf: Vec<u8>,
    opener: gamerec::io::Opener,
    parse: gamerec::sgf::ParseBuffers,
    replay: gamerec::sgf::replay::ReplayBuffers,
}

/// A file for [`check_one`], with its format found once, by name.
struct FileArg {
    path: String,
    format: Option<Format>,
    /// Named by a plain format extension (so not compressed).
    plain: bool,
}

/// Checks one file, dispatching on its extension: its report (in bounded
/// memory: it may wait for earlier files' reports to be printed), counts,
/// and the error that stopped it.
fn check_one(
    file: &FileArg,
    opts: &sgf::CheckOptions,
    scratch: &mut Scratch,
) -> (Spool, Tally, Option<String>) {
    let path = file.path.as_str();
    let Scratch {
        buf,
        opener,
        parse,
        replay,
    } = scratch;
    let mut out = Spool::new();
    let failed = |msg: String| {
        let s = Tally {
            inputs: 1,
            inputs_not_read: 1,
            ..Tally::default()
        };
        (Spool::new(), s, Some(msg))
    };
    // Plain `.sgf` files (the common case in bulk checks) skip the other
    // formats' tests.
    let format = file.format;
    let compressed = !file.plain
        && gamerec::io::Compression::from_path(Path::new(path)) != gamerec::io::Compression::None;
    if format == Some(Format::Sgf) && file.plain && path != "-" {
        // A large file (a collection of many games) is mapped and read a
        // part at a time: memory of a part, not of the file.
        let read = gamerec::io::read_or_map(path, opener, buf, gamerec::sgf::PART_BYTES as u64);
        let checked = match &read {
            Ok(gamerec::io::FileBytes::Read(n)) => {
                sgf::check_sgf(path, &buf[..*n], opts, &mut out, parse, replay, &|_| {})
            }
            Ok(gamerec::io::FileBytes::Mapped(map)) => {
                let done = |offset| map.done_to(offset);
                sgf::check_sgf(path, map.bytes(), opts, &mut out, parse, replay, &done)
            }
            Err(e) => return failed(format!("{path}: {e}")),
        };
        return match checked {
            Ok(s) => (out, s, None),
            Err(e) => failed(format!("{path}: {e:#}")),
        };
    }
    if matches!(
        format,
        Some(Format::Pgc | Format::Cbf | Format::Fbk | Format::Json | Format::Fen)
    ) {
        return match crate::formats::binary::check_report(path, opts.quiet, &mut out) {
            Ok((s, cut)) => (out, s, cut),
            Err(e) => failed(format!("{e:#}")),
        };
    }
    if !matches!(format, Some(Format::Sgf | Format::Epd)) {
        return failed(format!("{}", unsupported(path)));
    }
    if format == Some(Format::Epd) && path != "-" {
        // Read line by line: an EPD file of any size in one line's memory.
        let input = match gamerec::io::Input::from_arg(std::ffi::OsStr::new(path)).open(None) {
            Ok(input) => input,
            Err(e) => return failed(format!("{e}")),
        };
        let (mut tally, error) = crate::cmd::epd::check_file(path, input, opts.quiet, &mut out);
        let error = error.map(|e| {
            tally.inputs_not_read = 1;
            format!("{path}: {e}")
        });
        return (out, tally, error);
    }
    let name = if path == "-" { "<stdin>" } else { path };
    if format == Some(Format::Sgf) && (compressed || path == "-") {
        // A stream, read a part at a time (a large collection in the
        // memory of a part).
        let input = gamerec::io::Input::from_arg(std::ffi::OsStr::new(path));
        let stream = match input.open(None) {
            Ok(stream) => stream,
            Err(e) => return failed(format!("{e}")),
        };
        return match sgf::check_sgf_stream(name, stream, opts, &mut out, parse, replay) {
            Ok(s) => (out, s, None),
            Err(e) => failed(format!("{name}: {e:#}")),
        };
    }
    let owned;
    let bytes: &[u8] = if compressed || path == "-" {
        match sgf::read_input(path) {
            Ok(b) => {
                owned = b;
                &owned
            }
            Err(e) => return failed(format!("{e:#}")),
        }
    } else {
        match gamerec::io::read_file_into(path, opener, buf) {
            Ok(n) => &buf[..n],
            Err(e) => return failed(format!("{path}: {e}")),
        }
    };
    if format == Some(Format::Epd) {
        let (tally, _) = crate::cmd::epd::check_file(name, bytes, opts.quiet, &mut out);
        return (out, tally, None);
    }
    match sgf::check_sgf(name, bytes, opts, &mut out, parse, replay, &|_| {}) {
        Ok(s) => (out, s, None),
        Err(e) => failed(format!("{name}: {e:#}")),
    }
}

/// `gamerec check`: SGF and EPD files are checked file by file, everything
/// else as PGN; each group prints its own summary line.
pub fn check(mut a: CheckArgs) -> Result<ExitCode> {
    let files = std::mem::take(&mut a.files);
    // Each argument's format is found once here (a bulk check may name
    // thousands of files).
    let mut sgf = Vec::with_capacity(files.len());
    let mut other = Vec::new();
    for f in files {
        let (format, plain) = Format::of_arg_plain(&f);
        if matches!(
            format,
            Some(
                Format::Sgf
                    | Format::Epd
                    | Format::Fen
                    | Format::Json
                    | Format::Cbf
                    | Format::Fbk
                    | Format::Pgc
            )
        ) {
            sgf.push(FileArg {
                path: f
                    .into_string()
                    .unwrap_or_else(|f| f.to_string_lossy().into_owned()),
                format,
                plain,
            });
        } else {
            other.push(f);
        }
    }
    let mut tally = Tally::default();
    if !other.is_empty() {
        let pgn = pgn::CheckArgs {
            inputs: other,
            threads: a.threads,
            mainline_only: a.mainline_only,
            quiet: a.quiet,
            strict: a.strict,
            max_game_bytes: a.max_game_bytes,
        };
        match pgn::check(pgn)? {
            pgn::Checked::Done(t) => tally.add(&t),
            pgn::Checked::PipeClosed => return Ok(ExitCode::SUCCESS),
        }
    }
    if !sgf.is_empty() {
        tally.add(&check_sgf_files(&sgf, &a)?);
    }
    // One summary line for every format checked.
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{tally}").and_then(|_| stdout.flush()) {
        Ok(()) => Ok(ExitCode::from(tally.exit_code())),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(anyhow::Error::new(e).context("writing to standard output")),
    }
}

fn check_sgf_files(files: &[FileArg], a: &CheckArgs) -> Result<Tally> {
    let opts = sgf::CheckOptions {
        charset: a.charset.clone(),
        quiet: a.quiet,
    };
    let threads = a
        .threads
        .unwrap_or_else(gamerec::io::parallel::default_threads);
    let mut total = Tally::default();
    let mut stdout = std::io::stdout().lock();
    let mut pipe_closed = false;
    let mut output_failed = None;
    // The library's ordered parallel map: results printed in input order.
    gamerec::io::pipeline::map_in_order(
        files,
        threads,
        |file: &FileArg, scratch: &mut Scratch| {
            (file.path.clone(), check_one(file, &opts, scratch))
        },
        |(path, (out, mut tally, err))| {
            if let Some(e) = err {
                gamerec::say!("{e}");
            }
            if !pipe_closed {
                match out.copy_to(&mut stdout) {
                    Ok(()) => {}
                    Err(CopyError::Output(e)) => {
                        // A closed pipe ends the output quietly; any other
                        // failure (a full disk) ends the run as an error.
                        pipe_closed = true;
                        if e.kind() != std::io::ErrorKind::BrokenPipe {
                            output_failed = Some(e);
                            return ControlFlow::Break(());
                        }
                    }
                    Err(CopyError::Spool(e)) => {
                        // The file's messages are lost: an error of its own.
                        gamerec::say!("{path}: its report could not be kept: {e}");
                        tally.errors += 1;
                    }
                }
            }
            total.add(&tally);
            ControlFlow::Continue(())
        },
    );
    if let Some(e) = output_failed {
        return Err(anyhow::Error::new(e).context("writing to standard output"));
    }
    Ok(total)
}
