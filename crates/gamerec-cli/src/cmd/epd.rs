//! `gamerec epd normalize|purge|check`: the EPD data verbs.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Subcommand;
use gamerec::diag::{Diagnostic, Severity};
use gamerec::epd;
use gamerec::io::pipeline::Tally;
use gamerec::io::{Input, Output};

// EPD data verbs (EPD specification section 7).
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

/// The inputs: the files named, or stdin when none.
fn inputs(files: &[PathBuf]) -> Vec<Input> {
    if files.is_empty() {
        return vec![Input::stdin()];
    }
    files
        .iter()
        .map(|f| Input::from_arg(f.as_os_str()))
        .collect()
}

/// Reads each input line by line (compressed files transparently; one
/// line in memory at a time), handing each line to `each` with the input's
/// name. An input that cannot be opened or read is reported as `gamerec:
/// PATH: reason` and counted in `unreadable` (its lines read so far were
/// handed on), and the others are still read.
fn for_each_line(
    inputs: &[Input],
    unreadable: &mut u64,
    mut each: impl FnMut(&str, epd::reader::OwnedLineRead) -> Result<()>,
) -> Result<()> {
    for input in inputs {
        let reader = match input.open(None) {
            Ok(r) => r,
            Err(e) => {
                gamerec::say!("gamerec: {e}");
                *unreadable += 1;
                continue;
            }
        };
        for line in epd::reader::read_lines_from(reader) {
            match line {
                Ok(line) => each(&input.name, line)?,
                Err(e) => {
                    gamerec::say!("gamerec: {}: {e}", input.name);
                    *unreadable += 1;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The output: a file put into place by [`Output::finish`] (not called
/// when an input could not be read: the old file stays), or stdout.
fn open_output(path: &Option<PathBuf>) -> Result<Output> {
    Ok(Output::open(path.as_deref())?)
}

/// Puts the output into place unless an input could not be read (then a
/// file output is not put into place; stdout is flushed).
fn finish(out: Output, unreadable: u64) -> Result<()> {
    out.finish_if(unreadable == 0)?;
    Ok(())
}

fn with_path(mut d: Diagnostic, name: &str) -> Diagnostic {
    d.path = Some(name.to_string());
    d
}

/// Rewrites every record with `edit`; returns whether no error was found.
fn rewrite(
    files: &[PathBuf],
    output: &Option<PathBuf>,
    warnings: bool,
    mut edit: impl FnMut(&mut epd::EpdRecord) -> String,
    mut fallback: impl FnMut(&str) -> Option<String>,
    unreadable: &mut u64,
) -> Result<bool> {
    let mut out = open_output(output)?;
    let mut clean = true;
    let stderr = io::stderr();
    for_each_line(&inputs(files), unreadable, |name, line| {
        report(&line.diagnostics, name, warnings, &mut stderr.lock())?;
        match line.record {
            Some(mut record) => writeln!(out, "{}", edit(&mut record))?,
            None if line.is_blank() => {}
            None => {
                clean = false;
                // A line past the bound is not kept: reported, not copied.
                if !line.text.is_empty() {
                    match fallback(&line.text) {
                        Some(text) => writeln!(out, "{text}")?,
                        None => writeln!(out, "{}", line.text)?,
                    }
                }
            }
        }
        Ok(())
    })?;
    finish(out, *unreadable)?;
    Ok(clean)
}

fn report(
    diagnostics: &[Diagnostic],
    name: &str,
    warnings: bool,
    to: &mut dyn Write,
) -> Result<()> {
    for d in diagnostics {
        if warnings || d.severity == Severity::Error {
            writeln!(to, "{}", with_path(d.clone(), name))?;
        }
    }
    Ok(())
}

/// Runs an EPD data verb; returns the exit code: 2 when an input could not
/// be read (the others were), 1 when errors were found, else 0.
pub fn run_verb(verb: Verb) -> Result<u8> {
    let mut unreadable = 0;
    let ok = run_verb_counting(verb, &mut unreadable)?;
    Ok(if unreadable > 0 { 2 } else { u8::from(!ok) })
}

fn run_verb_counting(verb: Verb, unreadable: &mut u64) -> Result<bool> {
    match verb {
        Verb::Normalize {
            files,
            output,
            warnings,
        } => rewrite(
            &files,
            &output,
            warnings,
            |r| epd::normalized_line(r),
            |_| None,
            unreadable,
        ),
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
            rewrite(
                &inputs,
                &output,
                warnings,
                |r| {
                    epd::purge(r, &opcodes);
                    r.to_string()
                },
                |text| epd::purge::purge_line(text, &opcodes),
                unreadable,
            )
        }
        Verb::Check {
            files,
            output,
            quiet,
        } => {
            let mut out = open_output(&output)?;
            let (mut records, mut errors) = (0u64, 0u64);
            for_each_line(&inputs(&files), unreadable, |name, line| {
                if !line.is_blank() {
                    records += 1;
                    errors += line.diagnostics.iter().map(|d| d.counts().0).sum::<u64>();
                    report(&line.diagnostics, name, !quiet, &mut out)?;
                }
                Ok(())
            })?;
            writeln!(out, "{records} records, {errors} errors")?;
            finish(out, *unreadable)?;
            Ok(errors == 0)
        }
    }
}

/// `gamerec check` on one EPD input, read line by line: writes its
/// diagnostics (errors only when `quiet`) to `out` and counts its records;
/// and the error that stopped the reading or the writing, if one did (the
/// lines before it are counted).
pub fn check_file(
    path: &str,
    input: impl io::BufRead,
    quiet: bool,
    out: &mut impl Write,
) -> (Tally, Option<io::Error>) {
    let mut summary = Tally {
        inputs: 1,
        ..Tally::default()
    };
    for line in epd::reader::read_lines_from(input) {
        let line = match line {
            Ok(line) => line,
            Err(e) => return (summary, Some(e)),
        };
        if line.is_blank() {
            continue;
        }
        summary.records += 1;
        if line
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            summary.records_with_errors += 1;
        }
        for d in &line.diagnostics {
            let (errors, warnings) = d.counts();
            summary.errors += errors;
            summary.warnings += warnings;
            if (!quiet || d.severity == Severity::Error)
                && let Err(e) = writeln!(out, "{}", with_path(d.clone(), path))
            {
                return (summary, Some(e));
            }
        }
    }
    (summary, None)
}
