//! Embedded commands of the PGN supplement (2001): `[%name operands]` inside
//! comments, with typed access to `clk`, `egt`, `emt`, `mct`, `eval`, `csl`, `cal`.
//!
//! Commands stay in the comment text of the model, exactly as written, so
//! unknown commands and the text around them round-trip unchanged; this
//! module finds them on demand. The syntax is the supplement's section 3.2:
//!
//! * `[%` then a name of one or more alphanumeric characters (`_` accepted);
//! * whitespace (the supplement says one space; comments wrap, so any
//!   whitespace run is accepted), then operands separated by commas, then `]`;
//! * an operand is either a double-quoted string, which may hold commas and
//!   `]` but no `"`, or any other text without `,` and `]` (spaces allowed,
//!   so a whole FEN can be one operand). Unquoted operands are trimmed;
//! * `[%name]` (no operands) is accepted too. Text that starts like a command
//!   but breaks these rules is plain comment text.

use std::fmt;
use std::ops::Range;
use std::time::Duration;

use shakmaty::{ByColor, Color, Position, Square};

use crate::model::{Comment, Game, Node, NodeId};
use crate::pgn::timecontrol::{
    DerivedTime, TimeControl, derive_times, parse_clock_time, write_clock_time,
};

/// One embedded command, owned: `[%clk 1:05:23]` is name `clk`, operands
/// `["1:05:23"]`. Quoted operands are held without their quotes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Command {
    /// The command name (`clk`).
    pub name: String,
    /// The operands in order.
    pub operands: Vec<String>,
}

impl Command {
    /// A command with these operands.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        operands: impl IntoIterator<Item = S>,
    ) -> Command {
        Command {
            name: name.into(),
            operands: operands.into_iter().map(Into::into).collect(),
        }
    }
}

impl fmt::Display for Command {
    /// Writes `[%name op,op]`, quoting an operand only when it must be quoted
    /// (empty, holds `,` or `]`, starts with `"` or has surrounding
    /// whitespace). A quoted operand cannot hold `"`; such characters, which
    /// no parsed command has, are written as `'`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[%{}", self.name)?;
        for (i, op) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { "," })?;
            let needs_quotes = op.is_empty()
                || op.contains([',', ']'])
                || op.starts_with('"')
                || op.trim_ascii() != op;
            if needs_quotes {
                write!(f, "\"{}\"", op.replace('"', "'"))?;
            } else {
                f.write_str(op)?;
            }
        }
        f.write_str("]")
    }
}

/// One embedded command borrowed from comment text, with where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandRef<'a> {
    /// The command name.
    pub name: &'a str,
    /// The raw operand text between the name and the closing `]`.
    pub raw_operands: &'a str,
    /// The byte range of the whole command (`[%` to `]`) in the text.
    pub span: Range<usize>,
}

impl<'a> CommandRef<'a> {
    /// The operands, quotes removed, unquoted ones trimmed. No allocation.
    pub fn operands(&self) -> Operands<'a> {
        Operands {
            rest: self.raw_operands,
            done: self.raw_operands.trim_ascii().is_empty(),
        }
    }

    /// The owned form.
    pub fn to_command(&self) -> Command {
        Command {
            name: self.name.to_owned(),
            operands: self.operands().map(str::to_owned).collect(),
        }
    }
}

/// The operands of a [`CommandRef`].
#[derive(Debug, Clone)]
pub struct Operands<'a> {
    rest: &'a str,
    done: bool,
}

impl<'a> Iterator for Operands<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        // ASCII whitespace only, as the scanner skips it.
        let rest = self.rest.trim_ascii_start();
        let (operand, after) = if let Some(quoted) = rest.strip_prefix('"') {
            // The scanner checked that the closing quote exists.
            let end = quoted.find('"').unwrap_or(quoted.len());
            let after = quoted.get(end + 1..).unwrap_or("").trim_ascii_start();
            (&quoted[..end], after)
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (rest[..end].trim_ascii(), &rest[end..])
        };
        match after.strip_prefix(',') {
            Some(next) => self.rest = next,
            None => self.done = true,
        }
        Some(operand)
    }
}

/// What scanning has learnt about a text, so that no byte is scanned over
/// and over: the scan stays linear even on hostile text (long runs of `[%`
/// starts that never complete).
#[derive(Debug, Clone)]
struct Horizons {
    /// No `,` or `]` at or after this offset: no command can end there.
    dead_from: usize,
    /// The last search for `,`/`]`: from this offset, the first is here
    /// (or `dead_from`).
    delim_cache: (usize, usize),
    /// The last search for `"`: from this offset, the first is here (or the
    /// text length when there is none).
    quote_cache: (usize, usize),
    /// Offsets right after a comma from which the operand list is known not
    /// to reach a `]` (a bitset, allocated on the first failure).
    failing: Vec<u64>,
    /// After-comma offsets of the scan in progress.
    path: Vec<usize>,
    /// Bytes examined so far by all scans.
    work: usize,
    /// Work allowed, a multiple of the text length: a safety net past which
    /// the rest of the text is plain text.
    budget: usize,
}

impl Horizons {
    fn new(len: usize) -> Horizons {
        Horizons {
            dead_from: len,
            delim_cache: (usize::MAX, 0),
            quote_cache: (usize::MAX, 0),
            failing: Vec::new(),
            path: Vec::new(),
            work: 0,
            budget: len.saturating_mul(16).saturating_add(1024),
        }
    }

    fn is_failing(&self, at: usize) -> bool {
        self.failing
            .get(at / 64)
            .is_some_and(|w| w & (1 << (at % 64)) != 0)
    }

    fn mark_path_failing(&mut self, len: usize) {
        if self.path.is_empty() {
            return;
        }
        if self.failing.is_empty() {
            self.failing = vec![0; len / 64 + 1];
        }
        for &at in &self.path {
            if let Some(w) = self.failing.get_mut(at / 64) {
                *w |= 1 << (at % 64);
            }
        }
        self.path.clear();
    }

    /// The first `,` or `]` at or after `from`, if before `dead_from`.
    fn next_delim(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        let (cached_from, found) = self.delim_cache;
        let at = if cached_from <= from && from <= found {
            found
        } else {
            let end = self.dead_from.max(from);
            let at = memchr::memchr2(b',', b']', &bytes[from..end]).map_or(end, |k| from + k);
            self.work = self.work.saturating_add(at - from);
            self.delim_cache = (from, at);
            at
        };
        (at < self.dead_from).then_some(at)
    }

    /// The first `"` at or after `from`.
    fn next_quote(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        let (cached_from, found) = self.quote_cache;
        let at = if cached_from <= from && from <= found {
            found
        } else {
            let at = memchr::memchr(b'"', &bytes[from..]).map_or(bytes.len(), |k| from + k);
            self.work = self.work.saturating_add(at - from);
            self.quote_cache = (from, at);
            at
        };
        (at < bytes.len()).then_some(at)
    }
}

/// Where one command ends, if a valid one starts at `start` (a `[%`).
/// Returns (name end, operands start, end one past `]`).
fn scan_command(text: &str, start: usize, h: &mut Horizons) -> Option<(usize, usize, usize)> {
    let bytes = text.as_bytes();
    h.path.clear();
    let found = scan_operands(bytes, start, h);
    if found.is_none() {
        h.mark_path_failing(bytes.len());
    }
    h.path.clear();
    found
}

fn skip_whitespace(bytes: &[u8], mut i: usize, h: &mut Horizons) -> usize {
    let from = i;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    h.work = h.work.saturating_add(i - from + 1);
    i
}

fn scan_operands(bytes: &[u8], start: usize, h: &mut Horizons) -> Option<(usize, usize, usize)> {
    let mut i = start + 2;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    h.work = h.work.saturating_add(i - start);
    let name_end = i;
    if name_end == start + 2 {
        return None;
    }
    match bytes.get(i)? {
        b']' => return Some((name_end, name_end, i + 1)),
        b if b.is_ascii_whitespace() => {}
        _ => return None,
    }
    let operands_start = i;
    loop {
        i = skip_whitespace(bytes, i, h);
        if i >= h.dead_from {
            return None;
        }
        if bytes[i] == b'"' {
            i = h.next_quote(bytes, i + 1)? + 1;
            i = skip_whitespace(bytes, i, h);
            match bytes.get(i)? {
                b',' => i += 1,
                b']' => return Some((name_end, operands_start, i + 1)),
                _ => return None,
            }
        } else {
            let Some(j) = h.next_delim(bytes, i) else {
                h.dead_from = i;
                return None;
            };
            if bytes[j] == b']' {
                return Some((name_end, operands_start, j + 1));
            }
            i = j + 1;
        }
        // Right after a comma: the rest of the scan depends only on `i`.
        if h.is_failing(i) {
            return None;
        }
        h.path.push(i);
    }
}

/// Iterator over the commands of a comment text, see [`commands`].
#[derive(Debug, Clone)]
pub struct Commands<'a> {
    text: &'a str,
    pos: usize,
    horizons: Horizons,
}

impl<'a> Iterator for Commands<'a> {
    type Item = CommandRef<'a>;

    fn next(&mut self) -> Option<CommandRef<'a>> {
        let bytes = self.text.as_bytes();
        while self.pos < self.horizons.dead_from && self.horizons.work <= self.horizons.budget {
            let at = self.pos + memchr::memmem::find(&bytes[self.pos..], b"[%")?;
            match scan_command(self.text, at, &mut self.horizons) {
                Some((name_end, ops_start, end)) => {
                    self.pos = end;
                    let raw_end = end - 1;
                    return Some(CommandRef {
                        name: &self.text[at + 2..name_end],
                        raw_operands: &self.text[ops_start..raw_end],
                        span: at..end,
                    });
                }
                None => self.pos = at + 2,
            }
        }
        None
    }
}

/// The commands of a comment text, in order, borrowed (no allocation).
pub fn commands(text: &str) -> Commands<'_> {
    Commands {
        text,
        pos: 0,
        horizons: Horizons::new(text.len()),
    }
}

/// The commands of a comment text, in order.
pub fn parse_commands(text: &str) -> Vec<Command> {
    commands(text).map(|c| c.to_command()).collect()
}

/// The comment text without its commands. Where a command stood, the
/// whitespace on both sides becomes one space (none at the start or end of
/// the text); whitespace elsewhere, and the text's own leading and trailing
/// whitespace, stays. Text that is only commands and whitespace becomes
/// empty. Text without commands is returned unchanged.
pub fn strip_commands(text: &str) -> String {
    let mut pieces: Vec<&str> = Vec::new();
    let mut last = 0;
    for cmd in commands(text) {
        pieces.push(&text[last..cmd.span.start]);
        last = cmd.span.end;
    }
    if pieces.is_empty() {
        return text.to_owned();
    }
    pieces.push(&text[last..]);
    let n = pieces.len();
    let body: Vec<&str> = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let p = if i > 0 { p.trim_start() } else { p };
            if i + 1 < n { p.trim_end() } else { p }
        })
        .filter(|p| !p.trim().is_empty())
        .collect();
    if body.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(text.len());
    if pieces[0].trim().is_empty() {
        // Keep the text's leading whitespace when the first piece was only that.
        out.push_str(pieces[0]);
    }
    for (i, p) in body.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(p);
    }
    if pieces[n - 1].trim().is_empty() {
        out.push_str(pieces[n - 1]);
    }
    out
}

/// Removes every embedded command from every comment of the game (for
/// presentation output, `gamerec convert --strip-commands`). Comments that
/// held only commands disappear; comments without commands are untouched.
pub fn strip_game_commands(game: &mut Game) {
    let ids: Vec<NodeId> = std::iter::once(NodeId::ROOT)
        .chain(game.tree.preorder())
        .collect();
    for id in ids {
        let node = game.tree.node_mut(id);
        strip_comments(&mut node.comments_before);
        strip_comments(&mut node.comments_after);
    }
}

fn strip_comments(comments: &mut Vec<Comment>) {
    comments.retain_mut(|c| {
        if commands(&c.text).next().is_none() {
            return true;
        }
        c.text = strip_commands(&c.text);
        !c.text.is_empty()
    });
}

/// Appends the commands of `comments` as a JSON array of
/// `{"name":"clk","operands":["0:05:00"]}` objects, in order (the `commands`
/// field of `gamerec convert --to json`).
pub fn write_commands_json(comments: &[Comment], out: &mut String) {
    out.push('[');
    let mut first = true;
    for c in comments.iter().flat_map(|c| commands(&c.text)) {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str("{\"name\":");
        push_json_string(c.name, out);
        out.push_str(",\"operands\":[");
        for (i, op) in c.operands().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(op, out);
        }
        out.push_str("]}");
    }
    out.push(']');
}

use crate::json_text::push_string as push_json_string;

/// A typed operand could not be read; the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandValueError {
    /// The command name.
    pub name: String,
    /// What was expected.
    pub message: String,
}

impl fmt::Display for CommandValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[%{}]: {}", self.name, self.message)
    }
}

impl std::error::Error for CommandValueError {}

/// An engine evaluation score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    /// In centipawns from White's point of view (`0.18` is 18). Written
    /// values with more than two decimals are rounded to centipawns.
    Centipawns(i32),
    /// Mate in this many moves: positive when White mates, negative when
    /// Black mates (`#-3`).
    Mate(i32),
}

/// The `eval` command: `[%eval 0.18]`, `[%eval #-3]`, `[%eval -0.35,22]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Eval {
    /// The score.
    pub score: Score,
    /// The search depth, when given as a second operand.
    pub depth: Option<u32>,
}

/// Colour of a square or arrow mark (`R`, `G`, `Y`, `B`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkColor {
    /// `R`
    Red,
    /// `G`
    Green,
    /// `Y`
    Yellow,
    /// `B`
    Blue,
}

impl MarkColor {
    fn from_char(c: u8) -> Option<MarkColor> {
        Some(match c {
            b'R' => MarkColor::Red,
            b'G' => MarkColor::Green,
            b'Y' => MarkColor::Yellow,
            b'B' => MarkColor::Blue,
            _ => return None,
        })
    }

    /// The letter written for the colour.
    pub const fn as_char(self) -> char {
        match self {
            MarkColor::Red => 'R',
            MarkColor::Green => 'G',
            MarkColor::Yellow => 'Y',
            MarkColor::Blue => 'B',
        }
    }
}

/// A coloured square of `csl` (`Yb3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareMark {
    /// The colour.
    pub color: MarkColor,
    /// The square.
    pub square: Square,
}

/// A coloured arrow of `cal` (`Ga7a8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArrowMark {
    /// The colour.
    pub color: MarkColor,
    /// Where the arrow starts.
    pub from: Square,
    /// Where the arrow points.
    pub to: Square,
}

/// A command gamerec understands, with typed operands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KnownCommand {
    /// `clk`: the mover's clock after the move (time to the next control).
    Clk(Duration),
    /// `egt`: elapsed game time of the mover.
    Egt(Duration),
    /// `emt`: elapsed time of this move.
    Emt(Duration),
    /// `mct`: the time shown on a mechanical clock (`hh:mm:ss`).
    Mct(Duration),
    /// `eval`: an engine evaluation.
    Eval(Eval),
    /// `csl`: coloured squares.
    Csl(Vec<SquareMark>),
    /// `cal`: coloured arrows.
    Cal(Vec<ArrowMark>),
}

fn single_operand<'a>(name: &str, operands: &[&'a str]) -> Result<&'a str, CommandValueError> {
    match operands {
        [one] => Ok(one.trim()),
        _ => Err(CommandValueError {
            name: name.to_owned(),
            message: format!("expected one operand, found {}", operands.len()),
        }),
    }
}

fn parse_score(s: &str) -> Option<Score> {
    if let Some(mate) = s.strip_prefix('#') {
        let (neg, digits) = match mate.as_bytes().first()? {
            b'-' => (true, &mate[1..]),
            b'+' => (false, &mate[1..]),
            _ => (false, mate),
        };
        if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: i32 = digits.parse().ok()?;
        return Some(Score::Mate(if neg { -n } else { n }));
    }
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty()
        || whole.len() > 6
        || frac.len() > 9
        || !digits_ok(whole)
        || !digits_ok(frac)
        || body.ends_with('.') && frac.is_empty() && whole.is_empty()
    {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut frac_digits = frac.bytes().map(|b| i64::from(b - b'0'));
    let tenths = frac_digits.next().unwrap_or(0);
    let hundredths = frac_digits.next().unwrap_or(0);
    let round_up = frac_digits.next().unwrap_or(0) >= 5;
    let cp = whole * 100 + tenths * 10 + hundredths + i64::from(round_up);
    let cp = i32::try_from(if neg { -cp } else { cp }).ok()?;
    Some(Score::Centipawns(cp))
}

fn write_score(score: Score) -> String {
    match score {
        Score::Mate(n) => format!("#{n}"),
        Score::Centipawns(cp) => {
            let sign = if cp < 0 { "-" } else { "" };
            let abs = cp.unsigned_abs();
            let frac = format!("{:02}", abs % 100);
            let frac = match frac.trim_end_matches('0') {
                "" => "0",
                f => f,
            };
            format!("{sign}{}.{frac}", abs / 100)
        }
    }
}

fn parse_square(s: &str) -> Option<Square> {
    Square::from_ascii(s.as_bytes()).ok()
}

/// The marks of a `csl`/`cal` command: comma-separated, and whitespace
/// inside an operand separates marks too.
fn marks<'a>(operands: &'a [&'a str]) -> impl Iterator<Item = &'a str> {
    operands.iter().flat_map(|op| op.split_ascii_whitespace())
}

impl KnownCommand {
    /// The names of the commands gamerec types.
    pub const NAMES: [&'static str; 7] = ["clk", "egt", "emt", "mct", "eval", "csl", "cal"];

    /// Reads a command gamerec knows: `None` when the name is not one of
    /// `clk`, `egt`, `emt`, `mct`, `eval`, `csl`, `cal`; an error when its
    /// operands are malformed.
    pub fn from_command(cmd: &Command) -> Option<Result<KnownCommand, CommandValueError>> {
        let ops: Vec<&str> = cmd.operands.iter().map(String::as_str).collect();
        KnownCommand::from_parts(&cmd.name, &ops)
    }

    /// Like [`KnownCommand::from_command`], for a borrowed command.
    pub fn from_ref(cmd: &CommandRef<'_>) -> Option<Result<KnownCommand, CommandValueError>> {
        if !KnownCommand::NAMES.contains(&cmd.name) {
            return None;
        }
        let ops: Vec<&str> = cmd.operands().collect();
        KnownCommand::from_parts(cmd.name, &ops)
    }

    fn from_parts(name: &str, ops: &[&str]) -> Option<Result<KnownCommand, CommandValueError>> {
        let err = |message: String| CommandValueError {
            name: name.to_owned(),
            message,
        };
        let time = |ops: &[&str]| -> Result<Duration, CommandValueError> {
            let op = single_operand(name, ops)?;
            parse_clock_time(op).map_err(|e| err(e.message))
        };
        Some(match name {
            "clk" => time(ops).map(KnownCommand::Clk),
            "egt" => time(ops).map(KnownCommand::Egt),
            "emt" => time(ops).map(KnownCommand::Emt),
            "mct" => time(ops).map(KnownCommand::Mct),
            "eval" => (|| {
                let (score, depth) = match ops {
                    [score] => (score.trim(), None),
                    [score, depth] => (score.trim(), Some(depth.trim())),
                    _ => {
                        return Err(err(format!(
                            "expected a score and an optional depth, found {} operands",
                            ops.len()
                        )));
                    }
                };
                let score = parse_score(score).ok_or_else(|| {
                    err(format!(
                        "expected a score in pawns (`0.18`) or a mate (`#-3`), found `{score}`"
                    ))
                })?;
                let depth = match depth {
                    Some(d) => Some(
                        d.parse::<u32>()
                            .ok()
                            .filter(|_| d.bytes().all(|b| b.is_ascii_digit()))
                            .ok_or_else(|| err(format!("expected a depth, found `{d}`")))?,
                    ),
                    None => None,
                };
                Ok(KnownCommand::Eval(Eval { score, depth }))
            })(),
            "csl" => marks(ops)
                .map(|m| {
                    let b = m.as_bytes();
                    match (
                        b.first().and_then(|&c| MarkColor::from_char(c)),
                        m.get(1..).and_then(parse_square),
                    ) {
                        (Some(color), Some(square)) if b.len() == 3 => {
                            Ok(SquareMark { color, square })
                        }
                        _ => Err(err(format!(
                            "expected a coloured square like `Ga8`, found `{m}`"
                        ))),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(KnownCommand::Csl),
            "cal" => marks(ops)
                .map(|m| {
                    let b = m.as_bytes();
                    let color = b.first().and_then(|&c| MarkColor::from_char(c));
                    let from = m.get(1..3).and_then(parse_square);
                    let to = m.get(3..5).and_then(parse_square);
                    match (color, from, to) {
                        (Some(color), Some(from), Some(to)) if b.len() == 5 => {
                            Ok(ArrowMark { color, from, to })
                        }
                        _ => Err(err(format!(
                            "expected a coloured arrow like `Ga7a8`, found `{m}`"
                        ))),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(KnownCommand::Cal),
            _ => return None,
        })
    }

    /// The canonical command: `clk`/`egt`/`emt` as `h:mm:ss`, `mct` as
    /// `hh:mm:ss` (fractional seconds only when present), `eval` in pawns
    /// with one or two decimals (`0.1`, `-6.05`, `0.0`) or `#N`, marks
    /// comma-separated.
    pub fn to_command(&self) -> Command {
        let (name, operands): (&str, Vec<String>) = match self {
            KnownCommand::Clk(d) => ("clk", vec![write_clock_time(*d, 1)]),
            KnownCommand::Egt(d) => ("egt", vec![write_clock_time(*d, 1)]),
            KnownCommand::Emt(d) => ("emt", vec![write_clock_time(*d, 1)]),
            KnownCommand::Mct(d) => ("mct", vec![write_clock_time(*d, 2)]),
            KnownCommand::Eval(e) => (
                "eval",
                std::iter::once(write_score(e.score))
                    .chain(e.depth.map(|d| d.to_string()))
                    .collect(),
            ),
            KnownCommand::Csl(marks) => (
                "csl",
                marks
                    .iter()
                    .map(|m| format!("{}{}", m.color.as_char(), m.square))
                    .collect(),
            ),
            KnownCommand::Cal(marks) => (
                "cal",
                marks
                    .iter()
                    .map(|m| format!("{}{}{}", m.color.as_char(), m.from, m.to))
                    .collect(),
            ),
        };
        Command {
            name: name.to_owned(),
            operands,
        }
    }
}

impl fmt::Display for KnownCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_command())
    }
}

/// The typed commands of a node's comments after its move (the supplement:
/// a comment's commands refer to the move before it), in order; unknown and
/// malformed commands are left out.
pub fn node_commands(node: &Node) -> Vec<KnownCommand> {
    node.comments_after
        .iter()
        .flat_map(|c| commands(&c.text))
        .filter_map(|c| KnownCommand::from_ref(&c)?.ok())
        .collect()
}

/// The `clk` value after a node's move, if its comments carry one.
pub fn node_clock(node: &Node) -> Option<Duration> {
    node.comments_after
        .iter()
        .flat_map(|c| commands(&c.text))
        .filter(|c| c.name == "clk")
        .find_map(|c| match KnownCommand::from_ref(&c)? {
            Ok(KnownCommand::Clk(d)) => Some(d),
            _ => None,
        })
}

/// Move and game times along the main line, derived from the `clk` commands,
/// the `TimeControl` tag and the `WhiteClock`/`BlackClock` tags (which take
/// precedence over the control's first period), as the supplement's
/// section 8 describes. See [`derive_times`].
pub fn derive_game_times(game: &Game) -> Vec<(NodeId, DerivedTime)> {
    let ids: Vec<NodeId> = game.tree.mainline().collect();
    let clocks: Vec<Option<Duration>> = ids
        .iter()
        .map(|&id| node_clock(game.tree.node(id)))
        .collect();
    let tc = game
        .tags
        .get("TimeControl")
        .and_then(|v| v.parse::<TimeControl>().ok())
        .unwrap_or(TimeControl::Unknown);
    let tag_clock = |name: &str| game.tags.get(name).and_then(|v| parse_clock_time(v).ok());
    let start = ByColor {
        white: tag_clock("WhiteClock"),
        black: tag_clock("BlackClock"),
    };
    let first_mover: Color = game.start.turn();
    let number = game.start.fullmoves().get();
    ids.into_iter()
        .zip(derive_times(&clocks, first_mover, number, start, &tc))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str, ops: &[&str]) -> Command {
        Command::new(name, ops.iter().copied())
    }

    /// Fuzz finding: a vertical tab before a quote. The scanner skips ASCII
    /// whitespace only (not U+000B), so the operands must too, or a `"`
    /// after it opens a quoted operand the scanner never saw and `]` ends
    /// up inside an operand; parse, write, parse then differed.
    #[test]
    fn operands_skip_the_whitespace_the_scanner_skips() {
        let text = "[%I a,\u{b}\" x,\" , C]\",]";
        let parsed = parse_commands(text);
        assert_eq!(parsed, vec![cmd("I", &["a", "\u{b}\" x", " , C]", ""])]);
        let written: String = parsed.iter().map(ToString::to_string).collect();
        assert_eq!(parse_commands(&written), parsed, "{written:?}");
        let fuzz = b"\0\0\0[%I \0\x14\x14\0\0I\0\0\0^\0(\0\0\0,\x0b\" L\0\0I\0\0\0%Il,\" , C]\",,\0],\0C\0\0C\x14\x14\0\0";
        let parsed = parse_commands(std::str::from_utf8(fuzz).unwrap());
        let written: String = parsed.iter().map(ToString::to_string).collect();
        assert_eq!(parse_commands(&written), parsed, "{written:?}");
    }

    #[test]
    fn supplement_examples() {
        assert_eq!(
            parse_commands("Optional leading comments [%clk 1:05:23] optional trailing comments"),
            vec![cmd("clk", &["1:05:23"])]
        );
        assert_eq!(
            parse_commands(r#"[%command 1:45:12,Nf6,"very interesting, but wrong"]"#),
            vec![cmd(
                "command",
                &["1:45:12", "Nf6", "very interesting, but wrong"]
            )]
        );
        let fen = "[%command \"very tense start to the\ngame\",4r1k1/pp1b2r1/2n1pq1p/3p2pP/2pP2B1/P1P1Q3/2P2PPB/R4RK1 w - - 0 1,e4,d4]";
        assert_eq!(
            parse_commands(fen),
            vec![cmd(
                "command",
                &[
                    "very tense start to the\ngame",
                    "4r1k1/pp1b2r1/2n1pq1p/3p2pP/2pP2B1/P1P1Q3/2P2PPB/R4RK1 w - - 0 1",
                    "e4",
                    "d4"
                ]
            )]
        );
        let text = "[%clk 0:00:07][%eval -6.05] White is toast";
        assert_eq!(
            parse_commands(text),
            vec![cmd("clk", &["0:00:07"]), cmd("eval", &["-6.05"])]
        );
        assert_eq!(strip_commands(text), "White is toast");
        let text = "[%clk 1:37:00] Beliavsky clearly\nsuprised here takes a full [%emt 0:20:00] on this move";
        assert_eq!(parse_commands(text).len(), 2);
        assert_eq!(
            strip_commands(text),
            "Beliavsky clearly\nsuprised here takes a full on this move"
        );
    }

    #[test]
    fn spans_and_borrowed_operands() {
        let text = r#"a [%x  p q , "r,]" ,s] b"#;
        let c: Vec<CommandRef> = commands(text).collect();
        assert_eq!(c.len(), 1);
        assert_eq!(&text[c[0].span.clone()], r#"[%x  p q , "r,]" ,s]"#);
        assert_eq!(c[0].operands().collect::<Vec<_>>(), ["p q", "r,]", "s"]);
        assert_eq!(c[0].to_command().to_string(), r#"[%x p q,"r,]",s]"#);
    }

    #[test]
    fn edge_cases() {
        assert_eq!(parse_commands("[%draw]"), vec![cmd("draw", &[])]);
        assert_eq!(parse_commands("[%x ]"), vec![cmd("x", &[])]);
        assert_eq!(parse_commands("[%x a,]"), vec![cmd("x", &["a", ""])]);
        assert_eq!(parse_commands("[%x ,a]"), vec![cmd("x", &["", "a"])]);
        assert_eq!(parse_commands(r#"[%x """]"#), vec![]);
        assert_eq!(parse_commands(r#"[%x a"b]"#), vec![cmd("x", &["a\"b"])]);
        // Not commands: no name, bad name end, unterminated, bad quote end.
        for text in [
            "[% 1]",
            "[%]",
            "[%clk:1]",
            "[%clk 1:00",
            r#"[%x "abc]"#,
            r#"[%x "a" b]"#,
            "[ %clk 1]",
            "%clk 1]",
        ] {
            assert_eq!(parse_commands(text), vec![], "{text}");
            assert_eq!(strip_commands(text), text);
        }
        // A broken command does not hide a later one.
        assert_eq!(
            parse_commands("[%clk 1:00 [%eval 0.5]"),
            vec![cmd("clk", &["1:00 [%eval 0.5"])]
        );
        assert_eq!(
            parse_commands("[%c:x [%eval 0.5]"),
            vec![cmd("eval", &["0.5"])]
        );
        // Unknown commands are found but not typed.
        let c = cmd("foo", &["bar"]);
        assert_eq!(KnownCommand::from_command(&c), None);
        assert_eq!(c.to_string(), "[%foo bar]");
    }

    #[test]
    fn writing_quotes_only_when_needed() {
        for (c, text) in [
            (cmd("x", &[""]), r#"[%x ""]"#),
            (cmd("x", &["a", ""]), r#"[%x a,""]"#),
            (cmd("x", &[" a"]), r#"[%x " a"]"#),
            (cmd("x", &["a]b"]), r#"[%x "a]b"]"#),
            (cmd("x", &["\"a"]), r#"[%x "'a"]"#),
            (cmd("x", &[]), "[%x]"),
        ] {
            assert_eq!(c.to_string(), text);
        }
        for c in [
            cmd("x", &[""]),
            cmd("x", &["a", ""]),
            cmd("x", &[" a"]),
            cmd("x", &["a]b"]),
            cmd("x", &[]),
        ] {
            assert_eq!(parse_commands(&c.to_string()), vec![c]);
        }
    }

    #[test]
    fn strip_keeps_text_and_padding() {
        assert_eq!(strip_commands(" [%eval 0.17] [%clk 0:05:00] "), "");
        assert_eq!(
            strip_commands(" White is toast [%clk 1:00:00] "),
            " White is toast "
        );
        assert_eq!(strip_commands("a[%clk 1:00:00]b"), "a b");
        assert_eq!(strip_commands("a  [%clk 1:00:00]  b  c"), "a b  c");
        assert_eq!(strip_commands("no commands  here "), "no commands  here ");
        assert_eq!(strip_commands("[%clk 1:00:00]"), "");
    }

    #[test]
    fn typed_commands() {
        let typed = |text: &str| {
            let c = parse_commands(text);
            KnownCommand::from_command(&c[0]).unwrap()
        };
        assert_eq!(
            typed("[%clk 1:55:21]"),
            Ok(KnownCommand::Clk(Duration::from_secs(6921)))
        );
        assert_eq!(
            typed("[%egt 1:25:42]"),
            Ok(KnownCommand::Egt(Duration::from_secs(5142)))
        );
        assert_eq!(
            typed("[%emt 0:00:05.123]"),
            Ok(KnownCommand::Emt(Duration::from_millis(5123)))
        );
        assert_eq!(
            typed("[%mct 17:10:42]"),
            Ok(KnownCommand::Mct(Duration::from_secs(61842)))
        );
        assert_eq!(
            typed("[%mct 7:10:42]").unwrap().to_string(),
            "[%mct 07:10:42]"
        );
        assert_eq!(
            typed("[%eval -6.05]"),
            Ok(KnownCommand::Eval(Eval {
                score: Score::Centipawns(-605),
                depth: None
            }))
        );
        assert_eq!(
            typed("[%eval #-3]"),
            Ok(KnownCommand::Eval(Eval {
                score: Score::Mate(-3),
                depth: None
            }))
        );
        assert_eq!(
            typed("[%eval 0.17,23]"),
            Ok(KnownCommand::Eval(Eval {
                score: Score::Centipawns(17),
                depth: Some(23)
            }))
        );
        assert_eq!(typed("[%eval .5]").unwrap().to_string(), "[%eval 0.5]");
        assert_eq!(typed("[%eval +1.256]").unwrap().to_string(), "[%eval 1.26]");
        assert_eq!(typed("[%eval -0.05]").unwrap().to_string(), "[%eval -0.05]");
        assert_eq!(typed("[%eval 3]").unwrap().to_string(), "[%eval 3.0]");
        assert_eq!(
            typed("[%csl Yb3,Bd2]"),
            Ok(KnownCommand::Csl(vec![
                SquareMark {
                    color: MarkColor::Yellow,
                    square: Square::B3
                },
                SquareMark {
                    color: MarkColor::Blue,
                    square: Square::D2
                },
            ]))
        );
        assert_eq!(
            typed("[%cal Ra3a7,Ga3a2]"),
            Ok(KnownCommand::Cal(vec![
                ArrowMark {
                    color: MarkColor::Red,
                    from: Square::A3,
                    to: Square::A7
                },
                ArrowMark {
                    color: MarkColor::Green,
                    from: Square::A3,
                    to: Square::A2
                },
            ]))
        );
        assert_eq!(
            typed("[%csl Ga8 Gh1]").unwrap().to_string(),
            "[%csl Ga8,Gh1]"
        );
        for bad in [
            "[%clk 1:00]",
            "[%clk 1:00:00,2:00:00]",
            "[%clk]",
            "[%eval x]",
            "[%eval #]",
            "[%eval 1,2,3]",
            "[%eval 1,x]",
            "[%eval .]",
            "[%eval -]",
            "[%csl Xa1]",
            "[%csl Ga9]",
            "[%cal Ga1]",
            "[%cal Ga1a2x]",
            "[%eval 99999999]",
        ] {
            assert!(typed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn game_level_helpers() {
        use crate::model::{Ply, PlyMove};
        use shakmaty::{Chess, Move, Role};
        let mut game = Game::new();
        game.tags.push("TimeControl", "40/7200:3600");
        game.tags.push("WhiteClock", "2:00:00");
        game.tags.push("BlackClock", "2:00:00");
        let pos = Chess::default();
        let moves = ["d4", "Nf6", "c4", "e6"];
        let comments = [
            "[%clk 1:59:01]",
            "[%clk 1:59:32] Timman hesitates slightly",
            "",
            "[%clk 1:57:01]",
        ];
        let mut parent = NodeId::ROOT;
        let mut p = pos.clone();
        for (san, comment) in moves.iter().zip(comments) {
            let m: Move = san
                .parse::<shakmaty::san::San>()
                .unwrap()
                .to_move(&p)
                .unwrap();
            p.play_unchecked(m);
            parent = game.tree.add_child(
                parent,
                Ply {
                    mv: PlyMove::Move(m),
                    san: (*san).into(),
                    written: None,
                },
            );
            if !comment.is_empty() {
                game.tree
                    .node_mut(parent)
                    .comments_after
                    .push(Comment::new(comment));
            }
        }
        game.tree
            .root_mut()
            .comments_before
            .push(Comment::new("{no commands}"));
        let _ = Role::Pawn;
        let times = derive_game_times(&game);
        assert_eq!(times.len(), 4);
        assert_eq!(times[0].1.move_time, Some(Duration::from_secs(59)));
        assert_eq!(times[2].1.clock, None);
        assert_eq!(times[3].1.move_time, Some(Duration::from_secs(151)));
        let second = game.tree.mainline().nth(1).unwrap();
        assert_eq!(
            node_clock(game.tree.node(second)),
            Some(Duration::from_secs(7172))
        );
        assert_eq!(node_commands(game.tree.node(second)).len(), 1);
        strip_game_commands(&mut game);
        let texts: Vec<String> = std::iter::once(NodeId::ROOT)
            .chain(game.tree.preorder())
            .flat_map(|id| {
                game.tree
                    .node(id)
                    .comments_after
                    .iter()
                    .chain(&game.tree.node(id).comments_before)
                    .map(|c| c.text.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(texts, ["{no commands}", "Timman hesitates slightly"]);
    }

    #[test]
    fn hostile_text_stays_linear() {
        // Every `[%` start could scan to the far end and fail there; the
        // scanner's memory of what it saw keeps the total work linear, well
        // inside the safety budget.
        for unit in [
            "[%a x,",
            "[%a \"",
            "[%a \"x\" ,",
            "[%a ",
            "[%a x\"y,",
            "[%a ,\"",
            "[%a",
        ] {
            for tail in ["\"q\" junk", ",\"q\" junk", "", ","] {
                let mut text = unit.repeat(100_000);
                text.push_str(tail);
                let mut it = commands(&text);
                assert_eq!(it.by_ref().count(), 0, "{unit} {tail}");
                assert!(
                    it.horizons.work <= 8 * text.len(),
                    "{unit} {tail}: {}",
                    it.horizons.work
                );
            }
        }
        // The same with a valid command at the end: one command `a` whose
        // unquoted operand runs to the final `]`, or the final command.
        let text = format!("{}[%clk 0:01:00]", "[%a x".repeat(1000));
        let found = parse_commands(&text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "a");
        let text = format!("{}[%clk 0:01:00]", "[%a \"x\" y,".repeat(1000));
        assert_eq!(parse_commands(&text), vec![cmd("clk", &["0:01:00"])]);
    }

    #[test]
    fn commands_as_json() {
        let comments = [
            Comment::new("[%clk 0:05:00] text"),
            Comment::new(r#"[%x "a\b,c",d"e]"#),
            Comment::new("none"),
        ];
        let mut out = String::new();
        write_commands_json(&comments, &mut out);
        assert_eq!(
            out,
            r#"[{"name":"clk","operands":["0:05:00"]},{"name":"x","operands":["a\\b,c","d\"e"]}]"#
        );
        out.clear();
        write_commands_json(&[], &mut out);
        assert_eq!(out, "[]");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// The plain scanner the memoising one must agree with.
        fn naive_spans(text: &str) -> Vec<std::ops::Range<usize>> {
            fn scan(b: &[u8], start: usize) -> Option<usize> {
                let mut i = start + 2;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if i == start + 2 {
                    return None;
                }
                match b.get(i)? {
                    b']' => return Some(i + 1),
                    c if c.is_ascii_whitespace() => {}
                    _ => return None,
                }
                loop {
                    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                        i += 1;
                    }
                    if b.get(i) == Some(&b'"') {
                        i += 1 + b[i + 1..].iter().position(|&c| c == b'"')? + 1;
                        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                            i += 1;
                        }
                        match b.get(i)? {
                            b',' => i += 1,
                            b']' => return Some(i + 1),
                            _ => return None,
                        }
                    } else {
                        let j = i + b[i..].iter().position(|&c| c == b',' || c == b']')?;
                        if b[j] == b']' {
                            return Some(j + 1);
                        }
                        i = j + 1;
                    }
                }
            }
            let b = text.as_bytes();
            let mut out = Vec::new();
            let mut pos = 0;
            while pos + 1 < b.len() {
                if b[pos] == b'['
                    && b[pos + 1] == b'%'
                    && let Some(end) = scan(b, pos)
                {
                    out.push(pos..end);
                    pos = end;
                    continue;
                }
                pos += 1;
            }
            out
        }

        proptest! {
            #[test]
            fn memoised_scan_agrees_with_plain_scan(text in "[\\[%a1 ,\"\\]]{0,80}") {
                let spans: Vec<_> = commands(&text).map(|c| c.span).collect();
                prop_assert_eq!(spans, naive_spans(&text));
            }

            #[test]
            fn parse_write_parse(text in "[\\[%a-c1 ,\"\\]\n]{0,60}") {
                let parsed = parse_commands(&text);
                let written: String = parsed.iter().map(ToString::to_string).collect();
                prop_assert_eq!(parse_commands(&written), parsed.clone());
                let stripped = strip_commands(&text);
                if parsed.is_empty() {
                    prop_assert_eq!(stripped, text);
                } else {
                    prop_assert!(stripped.len() < text.len());
                }
            }

            #[test]
            fn typed_values_round_trip(
                secs in 0u64..10_000_000,
                millis in 0u32..1000,
                cp in -1_000_000i32..1_000_000,
                mate in -500i32..500,
                depth in proptest::option::of(0u32..100),
            ) {
                let d = Duration::new(secs, millis * 1_000_000);
                let values = [
                    KnownCommand::Clk(d),
                    KnownCommand::Egt(d),
                    KnownCommand::Emt(d),
                    KnownCommand::Mct(d),
                    KnownCommand::Eval(Eval { score: Score::Centipawns(cp), depth }),
                    KnownCommand::Eval(Eval { score: Score::Mate(mate), depth }),
                ];
                for v in values {
                    let text = v.to_string();
                    let back = parse_commands(&text);
                    prop_assert_eq!(back.len(), 1);
                    prop_assert_eq!(KnownCommand::from_command(&back[0]), Some(Ok(v)));
                }
            }
        }
    }
}
