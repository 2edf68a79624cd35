//! `gamerec convert`: any chess format to any other through the library's
//! one reader and one writer ([`gamerec::io`]), PGN to PGN/JSON through
//! the parallel writer of `formats::pgn`, SGF to SGF or JSON, games to and
//! from tables (`formats::tables`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use gamerec::diag::{Code, Diagnostic};
use gamerec::io::{Format, GameWriter, Input, WriteOptions, parallel, pipeline};

use crate::cmd::sgf;
use crate::formats::pgn;

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

// Arguments of `gamerec convert` (all formats).
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
    pub dataset: crate::formats::tables::DatasetArgs,
}

/// `gamerec convert`: tables (`formats::tables`) first, then every other format.
pub fn run(args: ConvertArgs) -> Result<ExitCode> {
    let output = args.output.as_deref();
    match crate::formats::tables::convert(
        &args.inputs,
        output,
        args.threads,
        args.max_game_bytes,
        args.quiet,
        &args.dataset,
    ) {
        Some(result) => result,
        None => convert(args),
    }
}

/// `gamerec convert`: any chess format to any other (PGN, JSON, EPD, FEN,
/// PGC, CBF, FBK), many inputs into one output; SGF to SGF or JSON.
///
/// The output format is `--to`, else the `-o` file's extension, else the
/// first input's format; `-o` with a known extension writes that format or
/// fails (an extension that disagrees with `--to` is an error). What the
/// target cannot hold is reported per game (input, line, game number).
fn convert(a: ConvertArgs) -> Result<ExitCode> {
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
    convert_games(&inputs, output, target, &a)
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

/// Losses of one kind shown in full; further ones are counted.
const LOSSES_SHOWN_PER_KIND: u64 = 10;

/// Prints diagnostics to stderr: errors always, warnings unless quiet;
/// losses of the same kind after the first few are only counted.
struct Reporter {
    quiet: bool,
    /// The writer's own warnings (losses), not counted by the reader.
    losses: u64,
    /// The writer's own errors (each leaves its game out).
    writer_errors: u64,
    /// Games the writer left out.
    left_out: u64,
    kinds: HashMap<String, (u64, Diagnostic)>,
}

impl Reporter {
    /// Counts a writer's diagnostic (one standing for those not listed
    /// counts them all).
    fn count(&mut self, d: &Diagnostic) {
        let (errors, warnings) = d.counts();
        self.writer_errors += errors;
        self.losses += warnings;
    }

    fn show(&mut self, d: &Diagnostic) {
        if !d.is_error() && self.quiet {
            return;
        }
        if d.code == Code::Loss {
            let kind = loss_kind(d);
            let entry = self.kinds.entry(kind).or_insert_with(|| (0, d.clone()));
            entry.0 += 1;
            if entry.0 > LOSSES_SHOWN_PER_KIND {
                return;
            }
        }
        if d.message.contains("the variations option") || d.message.contains("the ptp option") {
            // The library's options are this verb's flags.
            let mut d = d.clone();
            d.message = d
                .message
                .replace("the variations option", "--variations")
                .replace("the ptp option", "--ptp");
            gamerec::say!("{d}");
        } else {
            gamerec::say!("{d}");
        }
    }

    /// One line per kind of loss that was not shown in full.
    fn finish(&self) {
        let mut kinds: Vec<_> = self
            .kinds
            .values()
            .filter(|(n, _)| *n > LOSSES_SHOWN_PER_KIND)
            .collect();
        kinds.sort_by_key(|(_, d)| (d.path.clone(), d.location.line, d.game));
        for (n, d) in kinds {
            gamerec::say!(
                "{}: warning: {} more losses of this kind not shown: {}",
                d.path.as_deref().unwrap_or("gamerec"),
                n - LOSSES_SHOWN_PER_KIND,
                gamerec::diag::escape_controls(&d.message)
            );
        }
    }
}

/// A loss's kind: its message without numbers and quoted text.
fn loss_kind(d: &Diagnostic) -> String {
    let text: String = d
        .message
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .take(48)
        .collect();
    format!("{}\u{0}{text}", d.path.as_deref().unwrap_or(""))
}

/// Converts every input to `target`, into `output` (stdout if `None`).
pub fn convert_games(
    inputs: &[Input],
    output: Option<&Path>,
    target: Format,
    a: &ConvertArgs,
) -> Result<ExitCode> {
    let mut opts = WriteOptions::default();
    opts.pgn.encoding = a.encoding;
    opts.epd.variations = a.variations;
    opts.epd.tags_as_ptp = a.ptp;
    opts.strip_commands = a.strip_commands;
    let mut writer = match output {
        Some(path) => GameWriter::create(path, target, &opts)?,
        None => {
            let stdout = std::io::stdout();
            GameWriter::to_stream(
                Box::new(std::io::BufWriter::with_capacity(1 << 16, stdout)),
                target,
                &opts,
            )?
        }
    };
    let mut report = Reporter {
        quiet: a.quiet,
        losses: 0,
        writer_errors: 0,
        left_out: 0,
        kinds: HashMap::new(),
    };
    let threads = a.threads.unwrap_or_else(parallel::default_threads).max(1);
    let popts = pipeline::Options {
        threads,
        max_game_bytes: a.max_game_bytes,
        ..pipeline::Options::default()
    };
    let mut write_error = None;
    let mut written = 0u64;
    let shown = std::cell::RefCell::new(&mut report);
    let ran = pipeline::read_games(
        inputs,
        &popts,
        |item| item,
        |o| {
            let name = &inputs[o.input].name;
            let takes = writer.takes(&o.value);
            match writer.write(&o.value, name) {
                Ok(losses) => {
                    // A writer's error leaves the game out (a CBF game
                    // past its format's bounds): not written, an error.
                    let left_out = losses.iter().any(Diagnostic::is_error);
                    written += u64::from(takes && !left_out);
                    let mut report = shown.borrow_mut();
                    // (A game the reader found errors in never comes here.)
                    report.left_out += u64::from(left_out);
                    for d in losses {
                        report.count(&d);
                        report.show(&d);
                    }
                    ControlFlow::Continue(())
                }
                Err(e) => {
                    write_error = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
        |d| {
            shown.borrow_mut().show(&d);
            ControlFlow::Continue(())
        },
    );
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if ran.tally.inputs_not_read > 0 {
        // An input could not be read (exit 2): the old output stays as it
        // was and nothing is left beside it.
        writer.discard()?;
        if let Some(path) = output {
            gamerec::say!(
                "gamerec: {}: not written: an input could not be read",
                path.display()
            );
        }
    } else {
        for d in writer.finish()? {
            report.count(&d);
            report.show(&d);
        }
    }
    report.finish();
    let mut tally = ran.tally;
    tally.errors += report.writer_errors;
    tally.warnings += report.losses;
    tally.games_with_errors += report.left_out;
    tally.written = Some(written);
    gamerec::say!("gamerec convert: {tally}");
    Ok(ExitCode::from(tally.exit_code()))
}
