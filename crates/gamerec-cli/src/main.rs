//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.

mod sgf_cmd;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Check game records: syntax, values and the legality of every move.
    ///
    /// Prints `path:line:col: error|warning: message` for each problem and a
    /// summary line; exits 1 when any error was found, 2 when a file could
    /// not be read. Formats are chosen by extension (.sgf).
    ///
    /// Examples:
    ///   gamerec check game.sgf
    ///   gamerec check -q games/*.sgf
    ///   find games -name '*.sgf' | xargs gamerec check
    #[command(verbatim_doc_comment)]
    Check(CheckArgs),
    /// Convert a game record to another format or form.
    ///
    /// The output format comes from --to, else the output file's extension,
    /// else the input's format.
    ///
    /// Examples:
    ///   gamerec convert game.sgf -o copy.sgf
    ///   gamerec convert game.sgf --to json > game.json
    ///   gamerec convert old.sgf --ff4 -o new.sgf
    #[command(verbatim_doc_comment)]
    Convert(ConvertArgs),
    /// Show a position in the terminal.
    ///
    /// Examples:
    ///   gamerec show game.sgf                  # end of the main line
    ///   gamerec show game.sgf --node 57        # main line move 57
    ///   gamerec show game.sgf --node 57,2,60   # variation 2 at move 57, then move 60
    #[command(verbatim_doc_comment)]
    Show(ShowArgs),
    /// SGF tools (upgrade).
    Sgf {
        #[command(subcommand)]
        command: sgf_cmd::SgfCommand,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files to check.
    #[arg(required = true)]
    files: Vec<String>,
    /// Print errors only (warnings are still counted).
    #[arg(short, long)]
    quiet: bool,
    /// Read SGF input in this charset, overriding CA (e.g. GB18030).
    #[arg(long)]
    charset: Option<String>,
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// Input file.
    input: String,
    /// Output file (default: stdout).
    #[arg(short, long)]
    output: Option<String>,
    /// Output format: sgf or json.
    #[arg(long)]
    to: Option<String>,
    /// SGF: upgrade to FF[4] while converting.
    #[arg(long)]
    ff4: bool,
    /// SGF: expand compressed point lists [aa:cc].
    #[arg(long)]
    expand_points: bool,
    /// Read SGF input in this charset, overriding CA.
    #[arg(long)]
    charset: Option<String>,
}

#[derive(clap::Args)]
struct ShowArgs {
    /// Input file.
    input: String,
    /// Node to show: `57`, `57,2`, `game 2, main line move 10` (see README).
    #[arg(long)]
    node: Option<String>,
    /// Read SGF input in this charset, overriding CA.
    #[arg(long)]
    charset: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        None => {
            let _ = <Cli as clap::CommandFactory>::command().print_help();
            Ok(2)
        }
        Some(Command::Check(a)) => check(a),
        Some(Command::Convert(a)) => convert(a),
        Some(Command::Show(a)) => show(a),
        Some(Command::Sgf { command }) => sgf_cmd::run_sgf(command),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("gamerec: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn unsupported(path: &str) -> anyhow::Error {
    anyhow::anyhow!("{path}: unsupported format")
}

/// Checks one file, dispatching on its extension.
fn check_one(
    path: &str,
    opts: &sgf_cmd::CheckOptions,
) -> (Vec<u8>, sgf_cmd::Summary, Option<String>) {
    let mut out = Vec::new();
    let failed = |msg: String| {
        let s = sgf_cmd::Summary {
            unreadable: 1,
            ..Default::default()
        };
        (Vec::new(), s, Some(msg))
    };
    if !sgf_cmd::is_sgf(path) {
        return failed(format!("{}", unsupported(path)));
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return failed(format!("{path}: {e}")),
    };
    match sgf_cmd::check_sgf(path, &bytes, opts, &mut out) {
        Ok(s) => (out, s, None),
        Err(e) => failed(format!("{path}: {e:#}")),
    }
}

fn check(a: &CheckArgs) -> Result<u8> {
    let opts = sgf_cmd::CheckOptions {
        charset: a.charset.clone(),
        quiet: a.quiet,
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut total = sgf_cmd::Summary::default();
    let mut stdout = std::io::stdout().lock();
    let mut pipe_closed = false;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, opts, files) = (&next, &opts, &a.files);
            scope.spawn(move || {
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
                        .map(|path| check_one(path, opts))
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

fn convert(a: &ConvertArgs) -> Result<u8> {
    if !sgf_cmd::is_sgf(&a.input) {
        return Err(unsupported(&a.input));
    }
    let target = match a.to.as_deref() {
        Some("json") => sgf_cmd::SgfTarget::Json,
        Some("sgf") => sgf_cmd::SgfTarget::Sgf,
        Some(other) => anyhow::bail!("cannot convert SGF to {other:?} (supported: sgf, json)"),
        None if a.output.as_deref().is_some_and(|o| o.ends_with(".json")) => {
            sgf_cmd::SgfTarget::Json
        }
        None => sgf_cmd::SgfTarget::Sgf,
    };
    let bytes = sgf_cmd::read_input(&a.input)?;
    let opts = sgf_cmd::ConvertOptions {
        charset: a.charset.clone(),
        ff4: a.ff4,
        expand_point_lists: a.expand_points,
    };
    let (out, errors) = sgf_cmd::convert_sgf(
        &a.input,
        &bytes,
        target,
        &opts,
        &mut std::io::stderr().lock(),
    )?;
    sgf_cmd::write_output(a.output.as_deref(), &out)?;
    Ok(if errors > 0 { 1 } else { 0 })
}

fn show(a: &ShowArgs) -> Result<u8> {
    if !sgf_cmd::is_sgf(&a.input) {
        return Err(unsupported(&a.input));
    }
    let bytes = sgf_cmd::read_input(&a.input)?;
    let text = sgf_cmd::show_sgf(&a.input, &bytes, a.node.as_deref(), a.charset.as_deref())?;
    sgf_cmd::write_output(None, text.as_bytes())?;
    Ok(0)
}
