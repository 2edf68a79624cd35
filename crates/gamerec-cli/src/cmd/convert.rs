//! `gamerec convert` between chess formats through the library's one
//! reader and one writer ([`gamerec::io`]).

use std::collections::HashMap;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use gamerec::diag::{Code, Diagnostic};
use gamerec::io::{Format, GameWriter, Input, WriteOptions, parallel, pipeline};

use crate::cmd::check::ConvertArgs;

/// Losses of one kind shown in full; further ones are counted.
const LOSSES_SHOWN_PER_KIND: u64 = 10;

/// Prints diagnostics to stderr: errors always, warnings unless quiet;
/// losses of the same kind after the first few are only counted.
struct Reporter {
    quiet: bool,
    errors: u64,
    /// The writer's own diagnostics (losses), not counted by the reader.
    losses: u64,
    kinds: HashMap<String, (u64, Diagnostic)>,
}

impl Reporter {
    fn show(&mut self, d: &Diagnostic) {
        if d.is_error() {
            self.errors += 1;
        } else if self.quiet {
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
            eprintln!("{d}");
        } else {
            eprintln!("{d}");
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
            eprintln!(
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
        errors: 0,
        losses: 0,
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
                    written += u64::from(takes);
                    let mut report = shown.borrow_mut();
                    report.losses += losses.len() as u64;
                    for d in losses {
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
            eprintln!(
                "gamerec: {}: not written: an input could not be read",
                path.display()
            );
        }
    } else {
        for d in writer.finish()? {
            report.losses += 1;
            report.show(&d);
        }
    }
    report.finish();
    let mut tally = ran.tally;
    tally.warnings += report.losses;
    tally.written = Some(written);
    eprintln!("gamerec convert: {tally}");
    let _ = std::io::stderr().flush();
    Ok(ExitCode::from(tally.exit_code()))
}
