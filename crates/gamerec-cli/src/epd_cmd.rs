//! `gamerec epd normalize|purge|check`: the EPD data verbs.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;
use gamerec::diag::{Diagnostic, Severity};
use gamerec::epd::{self, LineRead};

/// EPD data verbs (EPD specification section 7).
#[derive(Subcommand, Debug)]
pub enum Verb {
    /// pfdn (7.1): write each record in canonical form: single blanks,
    /// operations in ASCII order of opcode, am/bm/noop operands sorted,
    /// moves in canonical SAN, FEN counters as hmvc/fmvn.
    ///
    /// Lines with errors are reported and copied unchanged; blank lines are
    /// dropped.
    #[command(after_help = "Examples:
  gamerec epd normalize wac.epd -o wac-normal.epd
  gamerec epd normalize < suite.epd > suite-normal.epd")]
    Normalize {
        /// Input files (standard input when none).
        files: Vec<PathBuf>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also report warnings (tolerated departures from the standard).
        #[arg(short = 'W', long)]
        warnings: bool,
    },
    /// pfop (7.4): remove the named operations from every record.
    ///
    /// The other operations keep their order; records are written in
    /// canonical form. Lines with errors are reported and copied with only
    /// the named operations cut out (unchanged if they do not lex).
    #[command(after_help = "Examples:
  gamerec epd purge c0 c1 < suite.epd > bare.epd
  gamerec epd purge -i wac.epd -o wac-noid.epd id")]
    Purge {
        /// Opcodes to remove.
        #[arg(required = true)]
        opcodes: Vec<String>,
        /// Input file (repeatable; standard input when none).
        #[arg(short, long = "input")]
        inputs: Vec<PathBuf>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also report warnings (tolerated departures from the standard).
        #[arg(short = 'W', long)]
        warnings: bool,
    },
    /// Validate only: print `path:line:col: error: ...` diagnostics (and
    /// warnings), then `N records, E errors`. Exit status 1 when there are
    /// errors.
    #[command(after_help = "Examples:
  gamerec epd check suite.epd
  gamerec epd check --quiet *.epd")]
    Check {
        /// Input files (standard input when none).
        files: Vec<PathBuf>,
        /// Write the report here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print errors only, no warnings.
        #[arg(short, long)]
        quiet: bool,
    },
}

struct Input {
    name: String,
    text: String,
}

fn read_inputs(files: &[PathBuf]) -> Result<Vec<Input>> {
    if files.is_empty() {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
        return Ok(vec![Input {
            name: "<stdin>".into(),
            text: epd::decode(&bytes).into_owned(),
        }]);
    }
    files
        .iter()
        .map(|path| {
            // Compressed files (.gz, .bz2, .zst) are read transparently.
            let bytes = crate::input::Input::from_arg(path.as_os_str())
                .read_all()
                .with_context(|| format!("reading {}", path.display()))?;
            Ok(Input {
                name: path.display().to_string(),
                text: epd::decode(&bytes).into_owned(),
            })
        })
        .collect()
}

fn open_output(path: &Option<PathBuf>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
    })
}

fn with_path(mut d: Diagnostic, name: &str) -> Diagnostic {
    d.path = Some(name.to_string());
    d
}

/// Rewrites every record with `edit`; returns whether no error was found.
fn rewrite(
    inputs: &[Input],
    output: &Option<PathBuf>,
    warnings: bool,
    mut edit: impl FnMut(&mut epd::EpdRecord) -> String,
    mut fallback: impl FnMut(&str) -> Option<String>,
) -> Result<bool> {
    let mut out = open_output(output)?;
    let mut clean = true;
    let stderr = io::stderr();
    for input in inputs {
        for line in epd::read_lines(&input.text) {
            report(&line, &input.name, warnings, &mut stderr.lock())?;
            match line.record {
                Some(mut record) => writeln!(out, "{}", edit(&mut record))?,
                None if line.is_blank() => {}
                None => {
                    clean = false;
                    match fallback(line.text) {
                        Some(text) => writeln!(out, "{text}")?,
                        None => writeln!(out, "{}", line.text)?,
                    }
                }
            }
        }
    }
    out.flush()?;
    Ok(clean)
}

fn report(line: &LineRead<'_>, name: &str, warnings: bool, to: &mut dyn Write) -> Result<()> {
    for d in &line.diagnostics {
        if warnings || d.severity == Severity::Error {
            writeln!(to, "{}", with_path(d.clone(), name))?;
        }
    }
    Ok(())
}

pub fn run_verb(verb: Verb) -> Result<bool> {
    match verb {
        Verb::Normalize {
            files,
            output,
            warnings,
        } => {
            let inputs = read_inputs(&files)?;
            rewrite(
                &inputs,
                &output,
                warnings,
                |r| epd::normalized_line(r),
                |_| None,
            )
        }
        Verb::Purge {
            opcodes,
            inputs,
            output,
            warnings,
        } => {
            for op in &opcodes {
                if let Err(msg) = epd::basetypes::parse_opcode(op) {
                    anyhow::bail!("{msg}");
                }
            }
            let inputs = read_inputs(&inputs)?;
            rewrite(
                &inputs,
                &output,
                warnings,
                |r| {
                    epd::purge(r, &opcodes);
                    r.to_string()
                },
                |text| epd::purge::purge_line(text, &opcodes),
            )
        }
        Verb::Check {
            files,
            output,
            quiet,
        } => {
            let inputs = read_inputs(&files)?;
            let mut out = open_output(&output)?;
            let (mut records, mut errors) = (0u64, 0u64);
            for input in &inputs {
                for line in epd::read_lines(&input.text) {
                    if line.is_blank() {
                        continue;
                    }
                    records += 1;
                    errors += line
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Error)
                        .count() as u64;
                    report(&line, &input.name, !quiet, &mut out)?;
                }
            }
            writeln!(out, "{records} records, {errors} errors")?;
            out.flush()?;
            Ok(errors == 0)
        }
    }
}

/// `gamerec check` on one EPD file: writes its diagnostics (errors only
/// when `quiet`) to `out` and counts records as games (and nodes).
pub fn check_file(
    path: &str,
    bytes: &[u8],
    quiet: bool,
    out: &mut Vec<u8>,
) -> crate::sgf_cmd::Summary {
    let text = epd::decode(bytes);
    let mut summary = crate::sgf_cmd::Summary {
        files: 1,
        bytes: bytes.len() as u64,
        ..Default::default()
    };
    for line in epd::read_lines(&text) {
        if line.is_blank() {
            continue;
        }
        summary.games += 1;
        summary.nodes += 1;
        for d in &line.diagnostics {
            match d.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
            }
            if !quiet || d.severity == Severity::Error {
                let _ = writeln!(out, "{}", with_path(d.clone(), path));
            }
        }
    }
    summary
}

/// The lower-case extension of `path`, looking through `.gz`, `.bz2`, `.zst`.
fn extension(path: &str) -> Option<String> {
    use crate::input::Compression;
    let mut path = std::path::PathBuf::from(path);
    if Compression::of_extension(&path) != Compression::None {
        path.set_extension("");
    }
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// Options of the EPD conversions of `gamerec convert`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConvertOptions {
    /// PGN to EPD: every position, variations included.
    pub variations: bool,
    /// PGN to EPD: the game's tags as `ptp` on every record.
    pub ptp: bool,
}

/// `gamerec convert` between PGN, FEN and EPD: `.epd` to FEN (`--to fen` or
/// a `.fen` output) or to PGN (`--to pgn` or a `.pgn` output), `.fen` to
/// EPD, and `.pgn` to EPD (`--to epd` or a `.epd` output). `None` when the
/// conversion is not one of these.
pub fn try_convert(
    input: &str,
    output: Option<&str>,
    to: Option<&str>,
    opts: ConvertOptions,
) -> Result<Option<u8>> {
    let input_format = crate::check_cmd::input_format(std::ffi::OsStr::new(input));
    let from = if input == "-" {
        (input_format == crate::input::Format::Epd).then(|| "epd".to_string())
    } else {
        extension(input)
    };
    let target = to
        .map(str::to_ascii_lowercase)
        .or_else(|| output.and_then(extension));
    let from_pgn = input_format == crate::input::Format::Pgn
        || (input == "-" && input_format == crate::input::Format::Unknown);
    if from_pgn && target.as_deref() == Some("epd") {
        return pgn_to_epd(input, output, opts).map(Some);
    }
    if from.as_deref() == Some("epd") && target.as_deref() == Some("pgn") {
        return epd_to_pgn(input, output).map(Some);
    }
    if from.as_deref() == Some("epd") && matches!(target.as_deref(), None | Some("epd")) {
        // EPD to EPD is the canonical form: what `epd normalize` writes.
        let ok = run_verb(Verb::Normalize {
            files: vec![PathBuf::from(input)],
            output: output.map(PathBuf::from),
            warnings: false,
        })?;
        return Ok(Some(u8::from(!ok)));
    }
    let to_fen = from.as_deref() == Some("epd") && target.as_deref() == Some("fen");
    let to_epd = from.as_deref() == Some("fen") && matches!(target.as_deref(), None | Some("epd"));
    if !to_fen && !to_epd {
        return Ok(None);
    }
    let inputs = read_inputs(&[PathBuf::from(input)])?;
    let mut out = open_output(&output.map(PathBuf::from))?;
    let mut errors = 0u64;
    let mut dropped = 0u64;
    let stderr = io::stderr();
    for (n, line) in inputs[0].text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if to_fen {
            let (record, diags) = epd::read_line(line, n as u64 + 1);
            for d in diags.iter().filter(|d| d.severity == Severity::Error) {
                writeln!(stderr.lock(), "{}", with_path(d.clone(), input))?;
            }
            match record {
                Some(r) => {
                    let fen = epd::convert::record_to_fen(&r);
                    if !fen.warnings.is_empty() {
                        dropped += 1;
                    }
                    writeln!(out, "{}", fen.value)?;
                }
                None => errors += 1,
            }
        } else {
            match epd::convert::fen_to_record(line) {
                Ok(r) => writeln!(out, "{r}")?,
                Err(e) => {
                    errors += 1;
                    writeln!(
                        stderr.lock(),
                        "{input}:{}:{}: error: {}",
                        n + 1,
                        e.column + 1,
                        e.message
                    )?;
                }
            }
        }
    }
    out.flush()?;
    if dropped > 0 {
        writeln!(
            stderr.lock(),
            "{input}: warning: operations of {dropped} record(s) have no FEN form and were dropped"
        )?;
    }
    Ok(Some(u8::from(errors > 0)))
}

fn pgn_to_epd(input: &str, output: Option<&str>, opts: ConvertOptions) -> Result<u8> {
    let source = crate::input::Input::from_arg(std::ffi::OsStr::new(input));
    let stderr = io::stderr();
    let (games, errors) = source.read_pgn_games(false, &mut stderr.lock())?;
    let mut out = open_output(&output.map(PathBuf::from))?;
    let convert_opts = epd::convert::GameToEpd {
        variations: opts.variations,
        tags_as_ptp: opts.ptp,
    };
    let mut warned = std::collections::BTreeSet::new();
    for game in &games {
        let converted = epd::convert::game_to_records(game, &convert_opts);
        for record in &converted.value {
            writeln!(out, "{record}")?;
        }
        for w in converted.warnings {
            // Say each kind of loss once, not once per game.
            let kind: String = w.split(':').next_back().unwrap_or(&w).trim().to_string();
            if warned.insert(kind) {
                writeln!(stderr.lock(), "{}: warning: {w}", source.name)?;
            }
        }
    }
    out.flush()?;
    Ok(u8::from(errors > 0))
}

fn epd_to_pgn(input: &str, output: Option<&str>) -> Result<u8> {
    let inputs = read_inputs(&[PathBuf::from(input)])?;
    let mut out = open_output(&output.map(PathBuf::from))?;
    let stderr = io::stderr();
    let mut clean = true;
    let opts = gamerec::pgn::WriteOptions::default();
    for line in epd::read_lines(&inputs[0].text) {
        report(&line, input, false, &mut stderr.lock())?;
        match &line.record {
            Some(record) => {
                let game = epd::convert::record_to_game(record).value;
                let mut bytes = Vec::new();
                gamerec::pgn::write_game(&game, &opts, &mut bytes);
                out.write_all(&bytes)?;
            }
            None if line.is_blank() => {}
            None => clean = false,
        }
    }
    out.flush()?;
    Ok(u8::from(!clean))
}
