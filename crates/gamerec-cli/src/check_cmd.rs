//! The format-dispatching verbs: `check`, `convert` and `show FILE`.
//!
//! Each format module (`sgf_cmd`, ...) provides check/convert/show functions;
//! this file picks one by the input's extension.

use std::io::Write;

use anyhow::Result;

use crate::sgf_cmd;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Print errors only (warnings are still counted).
    #[arg(short, long)]
    pub quiet: bool,
    /// Read SGF input in this charset, overriding CA (e.g. GB18030).
    #[arg(long)]
    pub charset: Option<String>,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input file.
    pub input: String,
    /// Output file (default: stdout).
    #[arg(short, long)]
    pub output: Option<String>,
    /// Output format: sgf or json.
    #[arg(long)]
    pub to: Option<String>,
    /// SGF: upgrade to FF[4] while converting.
    #[arg(long)]
    pub ff4: bool,
    /// SGF: expand compressed point lists [aa:cc].
    #[arg(long)]
    pub expand_points: bool,
    /// Read SGF input in this charset, overriding CA.
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

pub fn check(a: &CheckArgs) -> Result<u8> {
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
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    if tx.send((i, check_one(path, opts))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Print in input order.
        let mut pending = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some((out, s, err)) = pending.remove(&want) {
                want += 1;
                total.add(&s);
                if let Some(e) = err {
                    eprintln!("gamerec: error: {e}");
                }
                if !pipe_closed && stdout.write_all(&out).is_err() {
                    pipe_closed = true;
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

pub fn convert(a: &ConvertArgs) -> Result<u8> {
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
