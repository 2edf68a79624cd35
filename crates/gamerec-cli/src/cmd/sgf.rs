//! SGF support of the shared verbs (`check`, `convert`, `show`) and the
//! `gamerec sgf upgrade` subcommand.

use std::io::{self, Write};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use gamerec::diag::Severity;
use gamerec::io::pipeline::Tally;
use gamerec::sgf::{
    self, Collection, Color, NodeId, ParseOptions, Parsed, Point, Prop, Value, WriteOptions,
    charset, json,
    replay::{self, Position},
};

/// Options of `check` that SGF uses.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Read every file in this charset (overrides `CA`).
    pub charset: Option<String>,
    /// Print errors only, not warnings.
    pub quiet: bool,
}

/// Whether a path names an SGF file (by extension).
pub fn is_sgf(path: &str) -> bool {
    gamerec::io::Input::file(std::path::Path::new(path)).format_by_name()
        == Some(gamerec::io::Format::Sgf)
}

fn parse_options(charset_name: Option<&str>) -> Result<ParseOptions> {
    let charset = match charset_name {
        None => None,
        Some(name) => Some(
            charset::encoding_for_label(name)
                .with_context(|| format!("unknown charset {name:?}"))?,
        ),
    };
    Ok(ParseOptions { charset })
}

/// Checks one SGF file: syntax, property values, node rules, and every
/// move and setup of every game (Go, Othello). Diagnostics are written to
/// `out` as `path:line:col: severity: message`. `buffers` is parse memory
/// reused from file to file.
pub fn check_sgf(
    path: &str,
    bytes: &[u8],
    opts: &CheckOptions,
    out: &mut impl Write,
    buffers: &mut sgf::ParseBuffers,
    replay_buffers: &mut replay::ReplayBuffers,
    done_to: &dyn Fn(usize),
) -> Result<Tally> {
    let mut check = PartCheck::new(path, opts, out, replay_buffers)?;
    // A file of many games is read a part at a time (whole game trees of
    // about PART_BYTES): memory of a part, the same messages.
    let in_parts = bytes.len() > sgf::PART_BYTES && sgf::parts_allowed(bytes, &check.options);
    let mut state = sgf::PartState::default();
    let mut place = sgf::PartPlace::default();
    let mut start = 0;
    loop {
        let part = &bytes[start..];
        // Most files are clean: line:col is worked out only for files with
        // something to report.
        let parsed = match in_parts {
            true => sgf::parse_part(part, &check.options, &mut state, sgf::PART_BYTES, buffers),
            false => sgf::parse_unindexed_reusing(part, &check.options, buffers),
        };
        let rest = parsed.rest;
        buffers.recycle(check.part(parsed, part, &place)?);
        match rest {
            Some(n) => {
                place = place.after(&part[..n]);
                start += n;
                done_to(start);
            }
            None => break,
        }
    }
    Ok(check.tally)
}

/// [`check_sgf`] of a stream (stdin, a compressed file), read a part at a
/// time ([`sgf::StreamParts`]).
pub fn check_sgf_stream(
    path: &str,
    input: impl io::Read,
    opts: &CheckOptions,
    out: &mut impl Write,
    buffers: &mut sgf::ParseBuffers,
    replay_buffers: &mut replay::ReplayBuffers,
) -> Result<Tally> {
    let mut check = PartCheck::new(path, opts, out, replay_buffers)?;
    let mut parts = sgf::StreamParts::new(input);
    while let Some((parsed, part, place)) = parts.next_part(&check.options, buffers)? {
        buffers.recycle(check.part(parsed, part, &place)?);
    }
    Ok(check.tally)
}

/// The check of one file, a part at a time: what its parts share.
struct PartCheck<'a, W> {
    path: &'a str,
    options: ParseOptions,
    opts: &'a CheckOptions,
    out: &'a mut W,
    replay_buffers: &'a mut replay::ReplayBuffers,
    /// The counts of the parts checked.
    tally: Tally,
}

impl<'a, W: Write> PartCheck<'a, W> {
    fn new(
        path: &'a str,
        opts: &'a CheckOptions,
        out: &'a mut W,
        replay_buffers: &'a mut replay::ReplayBuffers,
    ) -> Result<Self> {
        Ok(PartCheck {
            path,
            options: parse_options(opts.charset.as_deref())?,
            opts,
            out,
            replay_buffers,
            tally: Tally {
                inputs: 1,
                ..Tally::default()
            },
        })
    }

    /// Checks the games of one part (`parsed` from `part`, at `place`,
    /// after the games counted): the rules of every game, and the messages
    /// written at their place in the file. Gives the parse back for its
    /// memory.
    fn part(&mut self, mut parsed: Parsed, part: &[u8], place: &sgf::PartPlace) -> Result<Parsed> {
        let s = &mut self.tally;
        let mut rule_errors = Vec::new();
        for (g, &root) in parsed.collection.roots.iter().enumerate() {
            rule_errors.extend(replay::check_game_notes_reusing(
                &parsed.collection,
                root,
                s.games as usize + g + 1,
                self.replay_buffers,
            ));
        }
        if !rule_errors.is_empty() {
            parsed.index_lines(part, &self.options);
        }
        let mut diags = std::mem::take(&mut parsed.diagnostics);
        for e in rule_errors {
            diags.push(parsed.rule_diagnostic(e));
        }
        diags.sort_by_key(|d| d.offset);
        // Games with errors, exactly: an error belongs to the game whose root
        // comes last at or before it (as the Go tables count them).
        let mut last_game = None;
        for d in &diags {
            if d.severity == Severity::Error
                && let Some(k) = parsed.collection.game_at(d.offset)
                && last_game != Some(k)
            {
                last_game = Some(k);
                s.games_with_errors += 1;
            }
        }
        for d in &mut diags {
            place.place(d);
            let (errors, warnings) = d.counts();
            s.errors += errors;
            s.warnings += warnings;
            if d.severity == Severity::Error || !self.opts.quiet {
                writeln!(self.out, "{}", d.to_diagnostic(Some(self.path)))?;
            }
        }
        let (games, nodes) = (
            parsed.collection.roots.len(),
            parsed.collection.node_count(),
        );
        s.games += games as u64;
        let nodes = s.nodes.unwrap_or(0) + nodes as u64;
        s.nodes = (nodes > 0 || s.games > 0).then_some(nodes);
        parsed.diagnostics = diags;
        Ok(parsed)
    }
}

/// Output formats of `convert` for SGF input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgfTarget {
    /// SGF text (UTF-8).
    Sgf,
    /// The JSON tree dump.
    Json,
}

/// Options of `convert` that SGF uses.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Read in this charset (overrides `CA`).
    pub charset: Option<String>,
    /// Upgrade to FF\[4\] while converting.
    pub ff4: bool,
    /// Expand compressed point lists.
    pub expand_point_lists: bool,
}

/// Converts SGF bytes to SGF or JSON; diagnostics go to `diag_out`.
/// Returns the output and the number of errors in the input.
pub fn convert_sgf(
    path: &str,
    bytes: &[u8],
    target: SgfTarget,
    opts: &ConvertOptions,
    diag_out: &mut dyn Write,
) -> Result<(Vec<u8>, usize)> {
    let parsed = sgf::parse(bytes, &parse_options(opts.charset.as_deref())?);
    report(path, &parsed, diag_out)?;
    let mut coll = parsed.collection.clone();
    if opts.ff4 {
        coll = upgrade_reporting(path, &parsed, diag_out)?;
    }
    let out = match target {
        SgfTarget::Sgf => sgf::write(
            &coll,
            &WriteOptions {
                expand_point_lists: opts.expand_point_lists,
                ..WriteOptions::default()
            },
        ),
        SgfTarget::Json => json::to_json(&coll).into_bytes(),
    };
    Ok((out, parsed.error_count()))
}

/// `convert dump.json -o x.sgf`: the JSON dump of an SGF collection
/// ([`json::to_json`]) written back as SGF (read again by the parser, its
/// diagnostics shown). `None` when the input is not such a dump (chess
/// JSON). Returns the exit code.
pub fn convert_sgf_json(
    input: &std::ffi::OsStr,
    output: Option<&std::path::Path>,
    target: gamerec::io::Format,
    charset: &Option<String>,
) -> Result<Option<u8>> {
    let name = input.to_string_lossy();
    let bytes = read_input(&name)?;
    if !json::is_sgf_json(&bytes) {
        return Ok(None);
    }
    if target != gamerec::io::Format::Sgf {
        bail!("{name}: the JSON of an SGF collection converts to SGF only");
    }
    let text = std::str::from_utf8(&bytes).with_context(|| format!("{name}: not UTF-8"))?;
    let (sgf, warnings) =
        json::from_json_reporting(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    for mut w in warnings {
        w.path = Some(name.to_string());
        gamerec::say!("{w}");
    }
    let opts = ConvertOptions {
        charset: charset.clone(),
        ..ConvertOptions::default()
    };
    let (out, errors) = convert_sgf(
        &name,
        sgf.as_bytes(),
        SgfTarget::Sgf,
        &opts,
        &mut io::stderr().lock(),
    )?;
    let output = output.map(|p| p.to_string_lossy().into_owned());
    write_output(output.as_deref(), &out)?;
    Ok(Some(if errors > 0 { 1 } else { 0 }))
}

fn report(path: &str, parsed: &Parsed, out: &mut dyn Write) -> io::Result<()> {
    for d in &parsed.diagnostics {
        writeln!(out, "{}", d.to_diagnostic(Some(path)))?;
    }
    Ok(())
}

fn upgrade_reporting(path: &str, parsed: &Parsed, out: &mut dyn Write) -> io::Result<Collection> {
    let (coll, notes) = sgf::upgrade::upgrade(&parsed.collection);
    for n in notes {
        let d = parsed.diagnostic_at(
            sgf::SgfCheck::Other,
            Severity::Warning,
            n.offset as u64,
            format!("{}: {}", n.path, n.message),
        );
        writeln!(out, "{}", d.to_diagnostic(Some(path)))?;
    }
    Ok(coll)
}

// `gamerec sgf ...`: SGF-only tools.
#[derive(Debug, Subcommand)]
pub enum SgfCommand {
    /// Upgrade FF[1]/FF[3] files to FF[4].
    ///
    /// Converts passes `tt` to `[]`, `M`/`L` to `MA`/`TR`/`LB`, verbose and
    /// renamed properties, `DT` to YYYY-MM-DD, `RE` to B+/W+ form, `TM` to
    /// seconds, and splits nodes that mix setup and moves. Whatever cannot
    /// convert is kept and reported as a warning.
    ///
    /// Examples:
    ///   gamerec sgf upgrade old.sgf -o new.sgf
    ///   gamerec sgf upgrade old.sgf > new.sgf
    #[command(verbatim_doc_comment)]
    Upgrade(UpgradeArgs),
}

/// Arguments of `gamerec sgf upgrade`.
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// The SGF file (`-` for stdin).
    pub input: String,
    /// Output file (default: stdout).
    #[arg(short, long)]
    pub output: Option<String>,
    /// Read the input in this charset (overrides CA).
    #[arg(long)]
    pub charset: Option<String>,
}

/// Runs `gamerec sgf ...`; returns the exit code.
pub fn run_sgf(cmd: &SgfCommand) -> Result<u8> {
    match cmd {
        SgfCommand::Upgrade(a) => {
            let bytes = read_input(&a.input)?;
            let parsed = sgf::parse(&bytes, &parse_options(a.charset.as_deref())?);
            let mut err = io::stderr().lock();
            report(&a.input, &parsed, &mut err)?;
            let coll = upgrade_reporting(&a.input, &parsed, &mut err)?;
            let out = sgf::write(&coll, &WriteOptions::default());
            write_output(a.output.as_deref(), &out)?;
            Ok(if parsed.error_count() > 0 { 1 } else { 0 })
        }
    }
}

/// Reads a file, or stdin for `-`; `.gz`, `.bz2` and `.zst` are decompressed.
pub fn read_input(path: &str) -> Result<Vec<u8>> {
    Ok(gamerec::io::Input::from_arg(std::ffi::OsStr::new(path)).read_all()?)
}

/// Writes to a file, or stdout (a closed pipe is not an error).
pub fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<()> {
    match path {
        Some(p) if p != "-" => Ok(gamerec::io::write_atomic(p, bytes)?),
        _ => match io::stdout().lock().write_all(bytes) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            r => r.context("writing stdout"),
        },
    }
}

/// Renders the board at a node (default: the end of the main line of the
/// first game) with game info, captures and the node's properties.
pub fn show_sgf(
    path: &str,
    bytes: &[u8],
    node_path: Option<&str>,
    charset_name: Option<&str>,
) -> Result<String> {
    let parsed = sgf::parse(bytes, &parse_options(charset_name)?);
    let coll = &parsed.collection;
    let Some(&first) = coll.roots.first() else {
        bail!("{path}: no game tree found");
    };
    let (game, node) = match node_path {
        Some(p) => {
            replay::find_node(coll, p).with_context(|| format!("no node at {p:?} in {path}"))?
        }
        None => (0, *coll.main_line(first).last().unwrap_or(&first)),
    };
    let root = coll.roots[game];
    let mut s = String::new();
    use std::fmt::Write as _;
    let info = coll.game_info(root);
    let _ = writeln!(s, "{path}: {}", replay::node_path(coll, node, game + 1));
    let names = [
        Prop::PB,
        Prop::BR,
        Prop::PW,
        Prop::WR,
        Prop::EV,
        Prop::RO,
        Prop::DT,
        Prop::KM,
        Prop::HA,
        Prop::RE,
    ];
    let mut line = Vec::new();
    for p in names {
        if let Some(v) = coll.get(root, p) {
            line.push(format!("{}[{}]", p.name(), coll.value_text(v.value())));
        }
    }
    if !line.is_empty() {
        let _ = writeln!(s, "{}", line.join(" "));
    }
    match replay::play_to(coll, node) {
        None => {
            let _ = writeln!(s, "(no board: game GM[{}] is not Go or Othello)", info.gm);
        }
        Some((state, errors)) => {
            render_board(coll, node, &state.position, state.last_move, &mut s);
            if let Position::Go(b) = &state.position {
                let _ = writeln!(
                    s,
                    "Captures: Black {}, White {}",
                    b.captures(Color::Black),
                    b.captures(Color::White)
                );
                if coll.main_line(root).last() == Some(&node)
                    && let Some(score) = replay::final_score(coll, root)
                {
                    s.push_str(&format!("Score (TB/TW): {score}\n"));
                }
            } else if let Position::Othello(b) = &state.position {
                let _ = writeln!(
                    s,
                    "Discs: Black {}, White {}",
                    b.count(Color::Black),
                    b.count(Color::White)
                );
            }
            let _ = writeln!(
                s,
                "Moves played: {}; {} to play",
                state.moves,
                if state.to_play == Color::Black {
                    "Black"
                } else {
                    "White"
                }
            );
            for (off, msg) in errors {
                let d = parsed.diagnostic_at(
                    sgf::SgfCheck::IllegalMove,
                    Severity::Error,
                    off as u64,
                    msg,
                );
                let _ = writeln!(s, "{}", d.to_diagnostic(Some(path)));
            }
        }
    }
    for p in coll.properties(node) {
        let vals: Vec<String> = p.values().iter().map(|&v| coll.value_text(v)).collect();
        let _ = writeln!(s, "{}[{}]", p.name(), vals.join("]["));
    }
    Ok(s)
}

fn render_board(
    coll: &Collection,
    node: NodeId,
    pos: &Position,
    last: Option<(Color, Option<Point>)>,
    s: &mut String,
) {
    use std::fmt::Write as _;
    let (w, h) = pos.size();
    let go = matches!(pos, Position::Go(_));
    let col_name = |x: u32| -> String {
        if go && w <= 25 {
            let c = b'A' + x as u8;
            let c = if c >= b'I' { c + 1 } else { c };
            (c as char).to_string()
        } else {
            (Point::new(x as u8, 0).letters()[0] as char).to_string()
        }
    };
    let mut marks = std::collections::HashMap::new();
    for p in coll.properties(node) {
        let ch = match p.prop() {
            Prop::TB => 'b',
            Prop::TW => 'w',
            Prop::TR | Prop::CR | Prop::SQ | Prop::MA | Prop::M => '*',
            _ => continue,
        };
        for &v in p.values() {
            match v {
                Value::Point(pt) => {
                    marks.insert(pt, ch);
                }
                Value::Rect(a, b) => {
                    for y in a.y..=b.y {
                        for x in a.x..=b.x {
                            marks.insert(Point::new(x, y), ch);
                        }
                    }
                }
                _ => {}
            }
        }
        let _ = p;
    }
    let header: String = (0..w).map(|x| format!("{:<2}", col_name(x))).collect();
    let _ = writeln!(s, "    {}", header.trim_end());
    for y in 0..h {
        let label = if go { h - y } else { y + 1 };
        let _ = write!(s, "{label:>3} ");
        for x in 0..w {
            let pt = Point::new(x as u8, y as u8);
            let c = match pos.get(pt) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => *marks.get(&pt).unwrap_or(&'.'),
            };
            let is_last = last.is_some_and(|(_, p)| p == Some(pt));
            let _ = write!(s, "{c}{}", if is_last { '<' } else { ' ' });
        }
        let _ = writeln!(s, "{label}");
    }
    let _ = writeln!(s, "    {}", header.trim_end());
    if let Some((c, p)) = last {
        let _ = writeln!(
            s,
            "Last move: {} {}",
            c.letter(),
            p.map_or_else(
                || "pass".to_string(),
                |p| format!(
                    "{p} ({}{})",
                    col_name(p.x as u32),
                    if go { h - p.y as u32 } else { p.y as u32 + 1 }
                )
            )
        );
    }
}
