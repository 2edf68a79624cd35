//! The format-dispatching verbs: `check`, `convert` and `show FILE`.
//!
//! Each format module (`cmd::sgf`, `formats::pgn`, ...) provides check/convert/show functions;
//! this file picks one by the input's extension.

use std::ffi::OsString;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cmd::sgf;
use crate::formats::pgn;
use gamerec::io::Format;

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
    /// PGN: the bound on one game's bytes; a larger game is reported and
    /// left out, the rest is read.
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    pub max_game_bytes: u64,
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
    /// an -o extension must agree; cbf needs -o (it writes .cbf and .cbi).
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
    /// The bound on one game's bytes; a larger game is reported and left
    /// out, the rest is read.
    #[arg(long, value_name = "BYTES", default_value_t = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES)]
    pub max_game_bytes: u64,
    /// Tables: a dataset directory (`-o DIR/ --partition-by year,month`).
    #[command(flatten)]
    pub dataset: crate::cmd::data::DatasetArgs,
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// A FEN (one quoted argument) or a game file (SGF or any chess format).
    #[arg(value_name = "FEN|FILE")]
    pub input: String,
    /// SGF: node to show: `57`, `57,2`, `game 2, main line move 10` (see README).
    #[arg(long)]
    pub node: Option<String>,
    /// Chess game files: the position after this many main-line plies
    /// (default: the end of the main line).
    #[arg(long)]
    pub ply: Option<usize>,
    /// Chess game files: which game (1-based, default 1).
    #[arg(long, default_value_t = 1)]
    pub game: u64,
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
    /// Read buffer (see [`gamerec::io::read_file_into`]).
    buf: Vec<u8>,
    opener: gamerec::io::Opener,
    parse: gamerec::sgf::ParseBuffers,
}

/// Checks one file, dispatching on its extension.
fn check_one(
    path: &str,
    opts: &sgf::CheckOptions,
    scratch: &mut Scratch,
) -> (Vec<u8>, sgf::Summary, Option<String>) {
    let Scratch { buf, opener, parse } = scratch;
    let mut out = Vec::new();
    let failed = |msg: String| {
        let s = sgf::Summary {
            unreadable: 1,
            ..Default::default()
        };
        (Vec::new(), s, Some(msg))
    };
    // Plain `.sgf` files (the common case in bulk checks) skip the other
    // formats' tests.
    let format = Format::of_arg(path.as_ref());
    let compressed =
        gamerec::io::Compression::from_path(Path::new(path)) != gamerec::io::Compression::None;
    if format == Some(Format::Sgf) && path != "-" && !compressed {
        return match gamerec::io::read_file_into(path, opener, buf) {
            Ok(n) => match sgf::check_sgf(path, &buf[..n], opts, &mut out, parse) {
                Ok(s) => (out, s, None),
                Err(e) => failed(format!("{path}: {e:#}")),
            },
            Err(e) => failed(format!("{path}: {e}")),
        };
    }
    if matches!(
        format,
        Some(Format::Pgc | Format::Cbf | Format::Fbk | Format::Json | Format::Fen)
    ) {
        return match crate::formats::binary::check_report(path, opts.quiet, &mut out) {
            Ok(b) => {
                let s = sgf::Summary {
                    files: 1,
                    games: b.games,
                    nodes: b.nodes,
                    records: b.records,
                    errors: b.errors,
                    warnings: b.warnings,
                    with_errors: b.with_errors,
                    ..Default::default()
                };
                (out, s, None)
            }
            Err(e) => failed(format!("{e:#}")),
        };
    }
    if !matches!(format, Some(Format::Sgf | Format::Epd)) {
        return failed(format!("{}", unsupported(path)));
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
    let name = if path == "-" { "<stdin>" } else { path };
    if format == Some(Format::Epd) {
        let summary = crate::cmd::epd::check_file(name, bytes, opts.quiet, &mut out);
        return (out, summary, None);
    }
    match sgf::check_sgf(name, bytes, opts, &mut out, parse) {
        Ok(s) => (out, s, None),
        Err(e) => failed(format!("{name}: {e:#}")),
    }
}

/// `gamerec check`: SGF and EPD files are checked file by file, everything
/// else as PGN; each group prints its own summary line.
pub fn check(mut a: CheckArgs) -> Result<ExitCode> {
    let files = std::mem::take(&mut a.files);
    let (sgf, other): (Vec<OsString>, Vec<OsString>) = files.into_iter().partition(|f| {
        matches!(
            Format::of_arg(f),
            Some(
                Format::Sgf
                    | Format::Epd
                    | Format::Fen
                    | Format::Json
                    | Format::Cbf
                    | Format::Fbk
                    | Format::Pgc
            )
        )
    });
    let mut tally = gamerec::io::pipeline::Tally::default();
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
        let files: Vec<String> = sgf
            .into_iter()
            .map(|f| {
                f.into_string()
                    .unwrap_or_else(|f| f.to_string_lossy().into_owned())
            })
            .collect();
        tally.add(&check_sgf_files(&files, &a)?);
    }
    // One summary line for every format checked.
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{tally}")
        .and_then(|_| stdout.flush())
        .is_err()
    {
        return Ok(ExitCode::SUCCESS); // a closed pipe
    }
    Ok(ExitCode::from(tally.exit_code()))
}

fn check_sgf_files(files: &[String], a: &CheckArgs) -> Result<gamerec::io::pipeline::Tally> {
    let opts = sgf::CheckOptions {
        charset: a.charset.clone(),
        quiet: a.quiet,
    };
    let threads = a
        .threads
        .unwrap_or_else(gamerec::io::parallel::default_threads);
    let mut total = sgf::Summary::default();
    let mut with_errors = (0u64, 0u64);
    let mut stdout = std::io::stdout().lock();
    let mut pipe_closed = false;
    // The library's ordered parallel map: results printed in input order.
    gamerec::io::pipeline::map_in_order(
        files,
        threads,
        |path: &String, scratch: &mut Scratch| check_one(path, &opts, scratch),
        |(out, s, err)| {
            total.add(&s);
            let w = self::with_errors(&s);
            with_errors.0 += w.0;
            with_errors.1 += w.1;
            if let Some(e) = err {
                eprintln!("{e}");
            }
            if !pipe_closed && stdout.write_all(&out).is_err() {
                pipe_closed = true;
            }
            ControlFlow::Continue(())
        },
    );
    Ok(gamerec::io::pipeline::Tally {
        inputs: total.files + total.unreadable,
        inputs_not_read: total.unreadable,
        games: total.games,
        games_with_errors: with_errors.0,
        records: total.records,
        records_with_errors: with_errors.1,
        nodes: (total.nodes > 0 || total.games > 0).then_some(total.nodes),
        errors: total.errors,
        warnings: total.warnings,
        ..Default::default()
    })
}

/// Games (or records) with errors in one file's summary, as (games,
/// records).
fn with_errors(s: &sgf::Summary) -> (u64, u64) {
    if s.records > 0 {
        (0, s.with_errors)
    } else {
        (s.with_errors, 0)
    }
}

/// `gamerec convert`: any chess format to any other (PGN, JSON, EPD, FEN,
/// PGC, CBF, FBK), many inputs into one output; SGF to SGF or JSON.
///
/// The output format is `--to`, else the `-o` file's extension, else the
/// first input's format; `-o` with a known extension writes that format or
/// fails (an extension that disagrees with `--to` is an error). What the
/// target cannot hold is reported per game (input, line, game number).
pub fn convert(a: ConvertArgs) -> Result<ExitCode> {
    use gamerec::io::Format as F;
    let inputs = gamerec::io::Input::from_args(&a.inputs);
    let output = a.output.as_deref().filter(|p| *p != Path::new("-"));
    let to =
        a.to.map(|t| t.name().parse::<F>())
            .transpose()
            .map_err(anyhow::Error::msg)?;
    let target =
        gamerec::io::output_format(to, output, inputs[0].format()).map_err(anyhow::Error::msg)?;
    let formats: Vec<Option<F>> = inputs.iter().map(|i| i.format()).collect();
    let any_sgf = formats.contains(&Some(F::Sgf));
    if any_sgf || target == F::Sgf {
        if !any_sgf {
            // The JSON dump of an SGF collection reads back to SGF.
            if let [one] = &a.inputs[..]
                && formats[0] == Some(F::Json)
                && let Some(code) = sgf::convert_sgf_json(one, output, target, &a.charset)?
            {
                return Ok(ExitCode::from(code));
            }
            anyhow::bail!(
                "cannot convert chess games to SGF (SGF holds Go, Othello and other games)"
            );
        }
        if !matches!(target, F::Sgf | F::Json) {
            anyhow::bail!("cannot convert SGF to {target} (supported: sgf, json)");
        }
        anyhow::ensure!(a.inputs.len() == 1, "SGF conversion takes one input file");
        let input = a.inputs[0].to_string_lossy().into_owned();
        let out = a.output.as_ref().map(|p| p.to_string_lossy().into_owned());
        let sgf_target = if target == F::Json { To::Json } else { To::Sgf };
        return convert_sgf_file(&input, out.as_deref(), &a, sgf_target).map(ExitCode::from);
    }
    if let Some(out) = output
        && let Some(input) = inputs.iter().find(|i| i.is_same_file(out))
    {
        anyhow::bail!(
            "{}: the output is an input too (it would be emptied before it is read)",
            input.name
        );
    }
    // PGN to PGN or JSON: written by the parallel readers themselves.
    let all_pgn = formats.iter().all(|f| matches!(f, None | Some(F::Pgn)));
    if all_pgn && matches!(target, F::Pgn | F::Json) {
        return pgn::convert(pgn::ConvertArgs {
            inputs: a.inputs,
            output: a.output,
            to: Some(if target == F::Json {
                pgn::To::Json
            } else {
                pgn::To::Pgn
            }),
            threads: a.threads,
            encoding: a.encoding,
            strip_commands: a.strip_commands,
            quiet: a.quiet,
            max_game_bytes: a.max_game_bytes,
        });
    }
    // EPD to EPD is `epd normalize`: records in canonical form, lines with
    // errors reported and copied unchanged.
    if target == F::Epd && formats.iter().all(|f| *f == Some(F::Epd)) {
        let code = crate::cmd::epd::run_verb(crate::cmd::epd::Verb::Normalize {
            files: a.inputs.iter().map(PathBuf::from).collect(),
            output: output.map(Path::to_path_buf),
            warnings: !a.quiet,
        })?;
        return Ok(ExitCode::from(code));
    }
    crate::cmd::convert::convert_games(&inputs, output, target, &a)
}

fn convert_sgf_file(input: &str, output: Option<&str>, a: &ConvertArgs, to: To) -> Result<u8> {
    let target = match to {
        To::Json => sgf::SgfTarget::Json,
        _ => sgf::SgfTarget::Sgf,
    };
    let bytes = sgf::read_input(input)?;
    let opts = sgf::ConvertOptions {
        charset: a.charset.clone(),
        ff4: a.ff4,
        expand_point_lists: a.expand_points,
    };
    let (out, errors) =
        sgf::convert_sgf(input, &bytes, target, &opts, &mut std::io::stderr().lock())?;
    sgf::write_output(output, &out)?;
    Ok(if errors > 0 { 1 } else { 0 })
}

/// `gamerec show`: a FEN, a node of an SGF file, or a position of a chess
/// game file (any chess format).
pub fn show(a: &ShowArgs) -> Result<u8> {
    use gamerec::io::{Format as F, Input, ReadOptions, Reader, Record};
    let path = Path::new(&a.input);
    let input = if a.input == "-" {
        Input::stdin()
    } else if path.exists() {
        Input::file(path)
    } else {
        return crate::cmd::moves::show_fen(&a.input, a.flip, a.ascii);
    };
    let format = input.format();
    if format == Some(F::Sgf) || (format.is_none() && sgf::is_sgf(&a.input)) {
        let bytes = sgf::read_input(&a.input)?;
        let text = sgf::show_sgf(&a.input, &bytes, a.node.as_deref(), a.charset.as_deref())?;
        sgf::write_output(None, text.as_bytes())?;
        return Ok(0);
    }
    let Some(format) = format.or(Some(F::Pgn)).filter(|f| f.is_chess()) else {
        return Err(unsupported(&a.input));
    };
    let mut reader = Reader::open(&input, &ReadOptions::default())?;
    let mut found = None;
    for item in reader.by_ref() {
        let item = item?;
        if item.number == a.game {
            found = Some(item);
            break;
        }
    }
    for d in reader.take_diagnostics() {
        eprintln!("{d}");
    }
    let Some(item) = found else {
        anyhow::bail!(
            "{}: no {} {} (it holds {})",
            input.name,
            format.unit().0,
            a.game,
            format.count(reader.items_read())
        );
    };
    let game = match &item.record {
        Record::Game(g) => g.clone(),
        Record::Position(r) => gamerec::epd::convert::record_to_game(r).value,
    };
    let mut pos = game.start.clone();
    let mainline: Vec<_> = game.tree.mainline().collect();
    let plies = a.ply.unwrap_or(mainline.len());
    let variant = game.variant_mainline();
    if plies > mainline.len() {
        anyhow::bail!(
            "{}: game {} has {} plies; --ply {plies} is past its end",
            input.name,
            a.game,
            mainline.len()
        );
    }
    let mut last = None;
    for &node in &mainline[..plies] {
        if let Some(ply) = &game.tree.node(node).ply {
            if variant.is_none() {
                pos = gamerec::model::play_ply(&pos, ply.mv);
            }
            last = Some(ply.san.clone());
        }
    }
    let mut header = format!("{}: game {}, ply {plies}", input.name, a.game);
    for tag in ["White", "Black", "Event"] {
        if let Some(v) = game.tags.get(tag) {
            header.push_str(&format!(", {tag} {v}"));
        }
    }
    if let Some(san) = last {
        header.push_str(&format!(", after {san}"));
    }
    println!("{}", gamerec::diag::escape_controls(&header));
    if let Some(positions) = variant {
        // A lichess variant's position, played by its rules.
        let Some(pos) = positions.get(plies) else {
            anyhow::bail!("{}: game {} cannot be replayed", input.name, a.game);
        };
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        print!("{}", crate::cmd::moves::board_diagram(pos, a.flip, a.ascii));
        // The result by the variant's rules (`*` while the game goes on).
        println!(
            "{} position {fen}, result {}",
            pos.variant(),
            shakmaty::Position::outcome(pos)
        );
        return Ok(0);
    }
    let fen = gamerec::fen::write_fen(&pos, game.castling_mode);
    crate::cmd::moves::show_fen(&fen, a.flip, a.ascii)
}
