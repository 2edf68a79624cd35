//! The format-dispatching verbs: `check`, `convert` and `show FILE`.
//!
//! Each format module (`sgf_cmd`, ...) provides check/convert/show functions;
//! this file picks one by the input's extension.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::input::Format;
use crate::{pgn_cmd, sgf_cmd};

/// Arguments of `gamerec check` (all formats).
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
}

/// Output format of `gamerec convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// PGN export format.
    Pgn,
    /// JSON Lines (PGN input: one game per line; SGF input: the tree dump).
    Json,
    /// Smart Game Format.
    Sgf,
    /// Extended Position Description, one record per line.
    Epd,
    /// FEN, one position per line.
    Fen,
    /// ChessBase DOS game file (the .cbi index is written beside it).
    Cbf,
    /// ChessBase opening book.
    Fbk,
    /// PGN Compressed (binary).
    Pgc,
}

impl To {
    /// The format's name as written after `--to`.
    pub fn name(self) -> &'static str {
        match self {
            To::Pgn => "pgn",
            To::Json => "json",
            To::Sgf => "sgf",
            To::Epd => "epd",
            To::Fen => "fen",
            To::Cbf => "cbf",
            To::Fbk => "fbk",
            To::Pgc => "pgc",
        }
    }
}

/// Arguments of `gamerec convert` (all formats).
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input files (`-` for stdin: SGF and EPD recognised by content, else PGN;
    /// .gz, .bz2, .zst read transparently).
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
    /// Output file (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format (default: by the output's extension, else the input's);
    /// cbf, fbk and pgc are binary and need -o.
    #[arg(long)]
    pub to: Option<To>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// PGN: text encoding of the output, utf-8 or latin-1.
    #[arg(long, default_value = "utf-8")]
    pub encoding: gamerec::pgn::Encoding,
    /// PGN: remove embedded `[%...]` commands from comments (presentation output).
    #[arg(long)]
    pub strip_commands: bool,
    /// Print errors only.
    #[arg(short, long)]
    pub quiet: bool,
    /// PGN to EPD: a record for every position, variations included.
    #[arg(long)]
    pub variations: bool,
    /// PGN to EPD: the game's tags as a `ptp` operation on every record.
    #[arg(long)]
    pub ptp: bool,
    /// SGF: upgrade to FF[4] while converting.
    #[arg(long)]
    pub ff4: bool,
    /// SGF: expand compressed point lists [aa:cc].
    #[arg(long)]
    pub expand_points: bool,
    /// SGF: read input in this charset, overriding CA.
    #[arg(long)]
    pub charset: Option<String>,
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// A FEN (one quoted argument) or a game file (.sgf).
    #[arg(value_name = "FEN|FILE")]
    pub input: String,
    /// Node to show: `57`, `57,2`, `game 2, main line move 10` (see README).
    #[arg(long)]
    pub node: Option<String>,
    /// Read SGF input in this charset, overriding CA.
    #[arg(long)]
    pub charset: Option<String>,
    /// Chess: Black at the bottom.
    #[arg(long)]
    pub flip: bool,
    /// Chess: FEN letters instead of Unicode figurines.
    #[arg(long)]
    pub ascii: bool,
}

fn unsupported(path: &str) -> anyhow::Error {
    anyhow::anyhow!("{path}: unsupported format")
}

/// Memory and open directory kept by a worker from file to file.
#[derive(Default)]
struct Scratch {
    /// Read buffer (see [`sgf_cmd::read_file_into`]).
    buf: Vec<u8>,
    opener: sgf_cmd::Opener,
    parse: gamerec::sgf::ParseBuffers,
}

/// Checks one file, dispatching on its extension.
fn check_one(
    path: &str,
    opts: &sgf_cmd::CheckOptions,
    scratch: &mut Scratch,
) -> (Vec<u8>, sgf_cmd::Summary, Option<String>) {
    let Scratch { buf, opener, parse } = scratch;
    let mut out = Vec::new();
    let failed = |msg: String| {
        let s = sgf_cmd::Summary {
            unreadable: 1,
            ..Default::default()
        };
        (Vec::new(), s, Some(msg))
    };
    // Plain `.sgf` files (the common case in bulk checks) skip the other
    // formats' tests.
    let plain_sgf = path.len() > 4
        && path.is_char_boundary(path.len() - 4)
        && path[path.len() - 4..].eq_ignore_ascii_case(".sgf");
    if plain_sgf {
        return match sgf_cmd::read_file_into(path, opener, buf) {
            Ok(n) => match sgf_cmd::check_sgf(path, &buf[..n], opts, &mut out, parse) {
                Ok(s) => (out, s, None),
                Err(e) => failed(format!("{path}: {e:#}")),
            },
            Err(e) => failed(format!("cannot read {path}: {e}")),
        };
    }
    if crate::binary_cmd::binary_format(std::path::Path::new(path)).is_some() {
        return match crate::binary_cmd::check_report(path, opts.quiet, &mut out) {
            Ok(b) => {
                let s = sgf_cmd::Summary {
                    files: 1,
                    games: b.games,
                    nodes: b.nodes,
                    errors: b.errors,
                    warnings: b.warnings,
                    ..Default::default()
                };
                (out, s, None)
            }
            Err(e) => failed(format!("{e:#}")),
        };
    }
    let format = input_format(path.as_ref());
    if !matches!(format, Format::Sgf | Format::Epd) {
        return failed(format!("{}", unsupported(path)));
    }
    let compressed =
        crate::input::Compression::of_extension(Path::new(path)) != crate::input::Compression::None;
    let owned;
    let bytes: &[u8] = if compressed || path == "-" {
        match sgf_cmd::read_input(path) {
            Ok(b) => {
                owned = b;
                &owned
            }
            Err(e) => return failed(format!("{e:#}")),
        }
    } else {
        match sgf_cmd::read_file_into(path, opener, buf) {
            Ok(n) => &buf[..n],
            Err(e) => return failed(format!("cannot read {path}: {e}")),
        }
    };
    let name = if path == "-" { "<stdin>" } else { path };
    if format == Format::Epd {
        let summary = crate::epd_cmd::check_file(name, bytes, opts.quiet, &mut out);
        return (out, summary, None);
    }
    match sgf_cmd::check_sgf(name, bytes, opts, &mut out, parse) {
        Ok(s) => (out, s, None),
        Err(e) => failed(format!("{name}: {e:#}")),
    }
}

/// The format of an input argument: by extension, or for `-` (stdin) by
/// its first bytes (SGF and EPD are recognised; anything else is PGN).
pub fn input_format(arg: &std::ffi::OsStr) -> Format {
    if arg == "-" {
        Format::of_stdin()
    } else {
        Format::of_path(Path::new(arg))
    }
}

/// `gamerec check`: SGF and EPD files are checked file by file, everything
/// else as PGN; each group prints its own summary line.
pub fn check(mut a: CheckArgs) -> Result<ExitCode> {
    let files = std::mem::take(&mut a.files);
    let (sgf, other): (Vec<OsString>, Vec<OsString>) = files.into_iter().partition(|f| {
        matches!(
            input_format(f),
            Format::Sgf | Format::Epd | Format::ChessBase | Format::Fbk | Format::Pgc
        )
    });
    let mut code = 0u8;
    if !other.is_empty() {
        let pgn = pgn_cmd::CheckArgs {
            inputs: other,
            threads: a.threads,
            mainline_only: a.mainline_only,
            quiet: a.quiet,
            strict: a.strict,
        };
        code = code.max(exit_number(pgn_cmd::check(pgn)?));
    }
    if !sgf.is_empty() {
        let files: Vec<String> = sgf
            .into_iter()
            .map(|f| {
                f.into_string()
                    .unwrap_or_else(|f| f.to_string_lossy().into_owned())
            })
            .collect();
        code = code.max(check_sgf_files(&files, &a)?);
    }
    Ok(ExitCode::from(code))
}

/// The numeric value of the exit codes this tool uses (0, 1, 2).
fn exit_number(code: ExitCode) -> u8 {
    if code == ExitCode::SUCCESS {
        0
    } else if code == ExitCode::from(1) {
        1
    } else {
        2
    }
}

fn check_sgf_files(files: &[String], a: &CheckArgs) -> Result<u8> {
    let opts = sgf_cmd::CheckOptions {
        charset: a.charset.clone(),
        quiet: a.quiet,
    };
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 64);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut total = sgf_cmd::Summary::default();
    let mut stdout = std::io::stdout().lock();
    let mut pipe_closed = false;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, opts) = (&next, &opts);
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                // Batches of files per message keep thread wake-ups rare.
                const BATCH: usize = 32;
                loop {
                    let start = next.fetch_add(BATCH, std::sync::atomic::Ordering::Relaxed);
                    if start >= files.len() {
                        break;
                    }
                    let end = (start + BATCH).min(files.len());
                    let batch: Vec<_> = files[start..end]
                        .iter()
                        .map(|path| check_one(path, opts, &mut scratch))
                        .collect();
                    if tx.send((start, batch)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Print in input order.
        let mut pending = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, batch) in rx {
            pending.insert(i, batch);
            while let Some(batch) = pending.remove(&want) {
                want += batch.len();
                for (out, s, err) in batch {
                    total.add(&s);
                    if let Some(e) = err {
                        eprintln!("gamerec: error: {e}");
                    }
                    if !pipe_closed && stdout.write_all(&out).is_err() {
                        pipe_closed = true;
                    }
                }
            }
        }
    });
    let line = format!(
        "checked {} file(s), {} game(s), {} node(s): {} error(s), {} warning(s){}\n",
        total.files,
        total.games,
        total.nodes,
        total.errors,
        total.warnings,
        if total.unreadable > 0 {
            format!(", {} file(s) not read", total.unreadable)
        } else {
            String::new()
        }
    );
    if !pipe_closed {
        let _ = stdout.write_all(line.as_bytes());
    }
    Ok(if total.unreadable > 0 {
        2
    } else if total.errors > 0 {
        1
    } else {
        0
    })
}

/// `gamerec convert`: dispatches on the first input's format.
pub fn convert(a: ConvertArgs) -> Result<ExitCode> {
    let first = Path::new(&a.inputs[0]);
    if a.inputs.len() == 1 {
        let input = first.to_string_lossy();
        let output = a.output.as_ref().map(|p| p.to_string_lossy().into_owned());
        let to = a.to.map(|t| t.name());
        if crate::binary_cmd::is_binary_conversion(&input, output.as_deref(), to) {
            return crate::binary_cmd::convert(&input, output.as_deref(), to).map(ExitCode::from);
        }
    }
    if a.inputs.len() == 1 {
        let output = a.output.as_ref().map(|p| p.to_string_lossy().into_owned());
        let to = a.to.map(|t| t.name());
        let epd_opts = crate::epd_cmd::ConvertOptions {
            variations: a.variations,
            ptp: a.ptp,
        };
        if let Some(code) =
            crate::epd_cmd::try_convert(&first.to_string_lossy(), output.as_deref(), to, epd_opts)?
        {
            return Ok(ExitCode::from(code));
        }
    }
    if input_format(first.as_os_str()) != Format::Sgf {
        let to = match a.to {
            None => None,
            Some(To::Pgn) => Some(pgn_cmd::To::Pgn),
            Some(To::Json) => Some(pgn_cmd::To::Json),
            Some(To::Sgf) => anyhow::bail!("cannot convert chess games to SGF"),
            Some(other) => anyhow::bail!("cannot convert this input to {}", other.name()),
        };
        return pgn_cmd::convert(pgn_cmd::ConvertArgs {
            inputs: a.inputs,
            output: a.output,
            to,
            threads: a.threads,
            encoding: a.encoding,
            strip_commands: a.strip_commands,
            quiet: a.quiet,
        });
    }
    anyhow::ensure!(a.inputs.len() == 1, "SGF conversion takes one input file");
    let input = a.inputs[0].to_string_lossy().into_owned();
    let output = a.output.as_ref().map(|p| p.to_string_lossy().into_owned());
    convert_sgf_file(&input, output.as_deref(), &a).map(ExitCode::from)
}

fn convert_sgf_file(input: &str, output: Option<&str>, a: &ConvertArgs) -> Result<u8> {
    let target = match a.to {
        Some(To::Json) => sgf_cmd::SgfTarget::Json,
        Some(To::Sgf) => sgf_cmd::SgfTarget::Sgf,
        Some(other) => anyhow::bail!(
            "cannot convert SGF to {} (supported: sgf, json)",
            other.name()
        ),
        None if output.is_some_and(|o| o.ends_with(".json")) => sgf_cmd::SgfTarget::Json,
        None => sgf_cmd::SgfTarget::Sgf,
    };
    let bytes = sgf_cmd::read_input(input)?;
    let opts = sgf_cmd::ConvertOptions {
        charset: a.charset.clone(),
        ff4: a.ff4,
        expand_point_lists: a.expand_points,
    };
    let (out, errors) =
        sgf_cmd::convert_sgf(input, &bytes, target, &opts, &mut std::io::stderr().lock())?;
    sgf_cmd::write_output(output, &out)?;
    Ok(if errors > 0 { 1 } else { 0 })
}

/// `gamerec show`: a FEN, or a node of an SGF file.
pub fn show(a: &ShowArgs) -> Result<u8> {
    if !sgf_cmd::is_sgf(&a.input) {
        if std::path::Path::new(&a.input).is_file() {
            return Err(unsupported(&a.input));
        }
        return crate::moves_cmd::show_fen(&a.input, a.flip, a.ascii);
    }
    let bytes = sgf_cmd::read_input(&a.input)?;
    let text = sgf_cmd::show_sgf(&a.input, &bytes, a.node.as_deref(), a.charset.as_deref())?;
    sgf_cmd::write_output(None, text.as_bytes())?;
    Ok(0)
}
