//! `gamerec convert` between chess formats through the library's one
//! reader and one writer ([`gamerec::io`]).

use std::collections::HashMap;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use gamerec::diag::{Code, Diagnostic};
use gamerec::io::{Format, GameWriter, Input, Item, ReadOptions, Reader, WriteOptions, parallel};

use crate::check_cmd::ConvertArgs;

/// Losses of one kind shown in full; further ones are counted.
const LOSSES_SHOWN_PER_KIND: u64 = 10;

/// Prints diagnostics to stderr: errors always, warnings unless quiet;
/// losses of the same kind after the first few are only counted.
struct Reporter {
    quiet: bool,
    errors: u64,
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
        kinds: HashMap::new(),
    };
    let mut unreadable = false;
    let threads = a.threads.unwrap_or_else(parallel::default_threads).max(1);
    for input in inputs {
        let mut write = |item: &Item, report: &mut Reporter| -> std::io::Result<()> {
            for d in writer.write(item, &input.name)? {
                report.show(&d);
            }
            Ok(())
        };
        let format = input.format().unwrap_or(Format::Pgn);
        let mut count = 0u64;
        let mut write_error = None;
        let read = if format == Format::Pgn {
            let popts = parallel::Options {
                threads,
                ..parallel::Options::default()
            };
            parallel::read_pgn_games(input, &popts, |settled| {
                for d in &settled.diagnostics {
                    report.show(d);
                }
                for item in &settled.value {
                    count += 1;
                    if let Err(e) = write(item, &mut report) {
                        write_error = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            })
        } else {
            match Reader::open(input, &ReadOptions::default()) {
                Err(e) => Err(e),
                Ok(mut reader) => {
                    let mut result = Ok(());
                    while let Some(next) = reader.next() {
                        for d in reader.take_diagnostics() {
                            report.show(&d);
                        }
                        match next {
                            Ok(item) => {
                                count += 1;
                                if let Err(e) = write(&item, &mut report) {
                                    write_error = Some(e);
                                    break;
                                }
                            }
                            Err(e) => {
                                result = Err(e);
                                break;
                            }
                        }
                    }
                    for d in reader.take_diagnostics() {
                        report.show(&d);
                    }
                    result
                }
            }
        };
        if let Some(e) = write_error {
            return Err(e.into());
        }
        if let Err(e) = read {
            unreadable = true;
            if count > 0 {
                eprintln!(
                    "gamerec: {e} (after {} read and converted)",
                    format.count(count)
                );
            } else {
                eprintln!("gamerec: {e}");
            }
        }
    }
    if unreadable {
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
            report.show(&d);
        }
    }
    report.finish();
    let _ = std::io::stderr().flush();
    Ok(ExitCode::from(if unreadable {
        2
    } else if report.errors > 0 {
        1
    } else {
        0
    }))
}
