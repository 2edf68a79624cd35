//! Go games as tables, from SGF files: the Go games table (one row per game
//! tree: a collection of several games gives several rows) and the Go moves
//! table (one row per main-line move), the Go counterparts of the chess
//! games and positions tables. Columns are documented in `docs/sgf.md`
//! ("Go games as data").
//!
//! Each file is read whole, parsed and checked as `gamerec check` checks it
//! (the same diagnostics, so the same error and warning counts), and every
//! game tree gets a row: SGF is read with recovery, and what was read is
//! the data `convert` writes; the row's `errors` and `warnings` say how
//! sound it is. Files are decoded on several threads
//! ([`gamerec::io::pipeline::map_in_order`]), rows kept in input order.
//!
//! Boards are plain text: `size * height` characters, row by row from the
//! top (SGF row `a`), `X` black, `O` white, `.` empty: one byte per point,
//! so `numpy.frombuffer(board.encode(), "S1").reshape(height, size)` is
//! the array. For training, the moves table also has each board as a
//! fixed-size list of [`FRAME`] x [`FRAME`] `int8` (`1` black, `-1` white,
//! `0` empty): one list size serves every board up to 19x19, a smaller
//! board sits in the frame's top-left corner (points off the board are
//! `0`; `size` and `height` give the mask), as KataGo pads boards of
//! mixed sizes; a board larger than the frame has a null list.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::SyncSender;

use arrow_array::builder::{
    FixedSizeListBuilder, Float64Builder, Int8Builder, Int32Builder, Int64Builder, ListBuilder,
    MapBuilder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use gamerec::diag::{Diagnostic, Severity};
use gamerec::io::{Format, Input, OpenError};
use gamerec::sgf::replay::{self, Position};
use gamerec::sgf::score::{Method, Outcome, score_with_dead};
use gamerec::sgf::{self, Collection, Color, NodeId, ParseOptions, Point, Prop, Value};

use crate::decode::{Decoded, InputError, Options, Table};
use crate::games::batch;

/// The text columns of the Go games table: (column, property). A
/// property's first occurrence in the root node goes to its column; the
/// root's other properties go to the `properties` map.
pub const TEXT_COLUMNS: [(&str, Prop); 21] = [
    ("event", Prop::EV),
    ("round", Prop::RO),
    ("date", Prop::DT),
    ("place", Prop::PC),
    ("black", Prop::PB),
    ("white", Prop::PW),
    ("black_rank", Prop::BR),
    ("white_rank", Prop::WR),
    ("black_team", Prop::BT),
    ("white_team", Prop::WT),
    ("result", Prop::RE),
    ("rules", Prop::RU),
    ("overtime", Prop::OT),
    ("game_name", Prop::GN),
    ("game_comment", Prop::GC),
    ("opening", Prop::ON),
    ("annotator", Prop::AN),
    ("copyright", Prop::CP),
    ("user", Prop::US),
    ("application", Prop::AP),
    ("charset", Prop::CA),
];

/// GTP's column letters (no `I`): vertices exist on boards up to 25x25.
const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Whether an input is read as SGF (a Go table): an `.sgf` file (plain or
/// compressed) or a directory (its SGF files).
pub fn is_sgf_input(path: &Path) -> bool {
    path.is_dir() || Input::file(path).format_by_name() == Some(Format::Sgf)
}

/// The schema of `table` over `paths`: the Go tables when every input is
/// SGF ([`is_sgf_input`]), the chess tables when none is; Go and chess
/// games cannot share a table.
pub fn table_schema(paths: &[PathBuf], table: Table) -> Result<SchemaRef, crate::Error> {
    let sgf = paths
        .iter()
        .filter(|p| p.as_os_str() != "-" && is_sgf_input(p))
        .count();
    if sgf == 0 {
        return Ok(match table {
            Table::Games => crate::schema::games(),
            Table::Positions => crate::schema::positions(),
        });
    }
    if sgf < paths.len() {
        return Err(crate::Error::Table(MIXED.into()));
    }
    Ok(schema(table))
}

const MIXED: &str =
    "Go games (SGF) and chess games cannot share one table: convert them separately";

/// The Go games table's schema (`Table::Games`) or the Go moves table's
/// (`Table::Positions`), lineage columns included.
pub fn schema(table: Table) -> SchemaRef {
    match table {
        Table::Games => GoGamesBuilder::default().finish().schema(),
        Table::Positions => GoMovesBuilder::default().finish().schema(),
    }
}

/// `paths` with each directory replaced by the SGF files under it (any
/// depth, sorted by path; hidden entries skipped), and `names` kept in
/// step (an expanded file is named by its path).
pub fn expand_directories(paths: Vec<PathBuf>, names: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out = Vec::with_capacity(paths.len());
    let mut out_names = Vec::with_capacity(paths.len());
    for (i, path) in paths.into_iter().enumerate() {
        if path.as_os_str() != "-" && path.is_dir() {
            let mut files = Vec::new();
            sgf_files_under(&path, &mut files);
            files.sort();
            out_names.extend(files.iter().map(|_| String::new()));
            out.extend(files);
        } else {
            out_names.push(names.get(i).cloned().unwrap_or_default());
            out.push(path);
        }
    }
    (out, out_names)
}

/// Collects the SGF files under `dir` (iteratively: no recursion depth).
/// Unreadable directories are passed over.
fn sgf_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if Input::file(&path).format_by_name() == Some(Format::Sgf) {
                out.push(path);
            }
        }
    }
}

/// One main-line move.
#[derive(Debug, Clone, Default)]
struct Move {
    color: &'static str,
    /// GTP vertex (`D4`, `pass`); `None` off the board or past 25x25.
    vertex: Option<String>,
    /// SGF point (`dd`); `None` for a pass.
    point: Option<String>,
    /// Opponent stones the move captured (Go).
    captures: Option<i32>,
    /// `BL`/`WL` of the move's node (the mover's).
    time_left: Option<f64>,
    /// `OB`/`OW` of the move's node (the mover's): byo-yomi periods or
    /// stones left.
    periods_left: Option<i32>,
    /// The points that changed (index in the board text, new character)
    /// from the previous move's board to this move's `board_before` (setup
    /// between them), and from there to its `board` (moves table only:
    /// the boards are rebuilt from these as rows are written, so a long
    /// game never holds a board per move).
    before: Vec<(u32, u8)>,
    after: Vec<(u32, u8)>,
}

/// What one game tree gives to either table.
#[derive(Debug, Default)]
struct GoGame {
    /// 1-based place of the game tree in its file.
    number: i32,
    /// Byte offset of the root node in the (decoded) file.
    offset: u64,
    gm: i32,
    ff: i32,
    size: i32,
    height: i32,
    texts: Vec<Option<String>>,
    komi: Option<f64>,
    handicap: Option<i32>,
    time_limit: Option<f64>,
    winner: Option<&'static str>,
    margin: Option<f64>,
    properties: Vec<(String, String)>,
    moves: Vec<Move>,
    /// Points of the board as played (the text's length).
    board_len: usize,
    /// Columns of the board as played (the text's row length).
    board_width: usize,
    setup_black: Vec<Option<String>>,
    setup_white: Vec<Option<String>>,
    captures: Option<[i32; 2]>,
    final_board: Option<String>,
    area_score: Option<f64>,
    marked_score: Option<f64>,
    errors: i32,
    warnings: i32,
    sgf: String,
}

/// The GTP vertex of `p` on a `w` x `h` board.
fn vertex(p: Point, w: u32, h: u32) -> Option<String> {
    let (x, y) = (u32::from(p.x), u32::from(p.y));
    if x >= w || y >= h || w > 25 || h > 25 {
        return None;
    }
    Some(format!("{}{}", GTP_COLUMNS[x as usize] as char, h - y))
}

/// The board as text (see the module's documentation).
fn board_text(pos: &Position) -> String {
    let mut s = Vec::new();
    board_bytes(pos, &mut s);
    String::from_utf8(s).unwrap_or_default()
}

/// The board as text into `out` (cleared first).
fn board_bytes(pos: &Position, out: &mut Vec<u8>) {
    let (w, h) = pos.size();
    out.clear();
    for y in 0..h {
        for x in 0..w {
            out.push(match pos.get(Point::new(x as u8, y as u8)) {
                Some(Color::Black) => b'X',
                Some(Color::White) => b'O',
                None => b'.',
            });
        }
    }
}

/// Board text (always ASCII) as a `str`.
fn ascii(board: &[u8]) -> &str {
    std::str::from_utf8(board).unwrap_or_default()
}

/// The points where `new` differs from `old` (as [`Move::before`]), and
/// `old` made equal to `new`.
fn changes(old: &mut [u8], new: &[u8]) -> Vec<(u32, u8)> {
    let mut out = Vec::new();
    for (i, (a, &b)) in old.iter_mut().zip(new).enumerate() {
        if *a != b {
            *a = b;
            out.push((i as u32, b));
        }
    }
    out
}

/// The points of a point-list value (rectangles expanded).
fn value_points(v: Value, out: &mut Vec<Point>) {
    match v {
        Value::Point(p) => out.push(p),
        Value::Rect(a, b) => {
            for y in a.y.min(b.y)..=a.y.max(b.y) {
                for x in a.x.min(b.x)..=a.x.max(b.x) {
                    out.push(Point::new(x, y));
                }
            }
        }
        _ => {}
    }
}

fn number(v: Value) -> Option<f64> {
    match v {
        Value::Real(r) if r.is_finite() => Some(r),
        Value::Number(n) => Some(n as f64),
        _ => None,
    }
}

/// Reads one game tree into a [`GoGame`] (`boards`: the per-move boards
/// of the moves table; `sgf`: the game written back, for the games table).
fn game_of(coll: &Collection, root: NodeId, boards: bool, sgf: bool) -> GoGame {
    let info = coll.game_info(root);
    let clamp = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    let mut g = GoGame {
        offset: u64::from(coll.node(root).offset),
        gm: clamp(info.gm),
        ff: clamp(info.ff),
        size: clamp(info.width),
        height: clamp(info.height),
        texts: vec![None; TEXT_COLUMNS.len()],
        ..GoGame::default()
    };
    // The root's properties: columns, else the map.
    for p in coll.properties(root) {
        let prop = p.prop();
        let column = TEXT_COLUMNS
            .iter()
            .position(|&(_, q)| q == prop && prop != Prop::Unknown);
        let taken = match (prop, p.value()) {
            (Prop::GM | Prop::FF, Value::Number(_)) => true,
            (Prop::SZ, Value::Number(_) | Value::Size(..)) => true,
            (Prop::AB | Prop::AW, _) => true,
            (Prop::B | Prop::W, _) => true,
            (Prop::KM, v) if g.komi.is_none() && number(v).is_some() => {
                g.komi = number(v);
                true
            }
            (Prop::HA, Value::Number(n)) if g.handicap.is_none() => {
                g.handicap = i32::try_from(n).ok();
                g.handicap.is_some()
            }
            (Prop::TM, v) if g.time_limit.is_none() && number(v).is_some() => {
                g.time_limit = number(v);
                true
            }
            (_, v @ (Value::Text(_) | Value::Application(..)))
                if column.is_some_and(|i| g.texts[i].is_none()) =>
            {
                g.texts[column.unwrap_or_default()] = Some(coll.value_text(v));
                true
            }
            _ => false,
        };
        if !taken {
            let values: Vec<String> = p.values().iter().map(|&v| coll.value_text(v)).collect();
            g.properties.push((p.name().to_string(), values.join("][")));
        }
    }
    let result_column = TEXT_COLUMNS.iter().position(|&(_, q)| q == Prop::RE);
    if let Some(re) = result_column.and_then(|i| g.texts[i].as_deref()) {
        let outcome = Outcome::parse(re);
        g.winner = outcome.and_then(|o| o.winner()).map(|c| match c {
            Color::Black => "B",
            Color::White => "W",
        });
        if let Some(Outcome::Points(_, m)) = outcome {
            g.margin = Some(m);
        }
    }
    if sgf {
        g.sgf = sgf::writer::write_game(coll, root, &sgf::WriteOptions::default());
    }
    // The main line, played.
    let Some(mut state) = replay::initial(coll, root) else {
        return g;
    };
    let (w, h) = state.position.size();
    let mut errors = Vec::new();
    let mut before_first_move = true;
    // The moves table's boards: the last one written, and the one now.
    g.board_len = (w * h) as usize;
    g.board_width = w as usize;
    let mut written = vec![b'.'; g.board_len];
    let (mut ahead, mut now) = (Vec::new(), Vec::new());
    // Each point once per colour in the setup lists (a stone placed again
    // is not another stone): bounded by the board, however many setup
    // nodes come before the first move.
    let mut listed = [vec![false; 52 * 52], vec![false; 52 * 52]];
    for node in coll.main_line(root) {
        let moves_before = state.moves;
        if before_first_move {
            for p in coll.properties(node) {
                let (list, seen) = match p.prop() {
                    Prop::AB => (&mut g.setup_black, &mut listed[0]),
                    Prop::AW => (&mut g.setup_white, &mut listed[1]),
                    _ => continue,
                };
                let mut pts = Vec::new();
                for &v in p.values() {
                    value_points(v, &mut pts);
                }
                for pt in pts {
                    if pt.x < 52 && pt.y < 52 {
                        let at = usize::from(pt.y) * 52 + usize::from(pt.x);
                        if std::mem::replace(&mut seen[at], true) {
                            continue;
                        }
                    }
                    list.push(vertex(pt, w, h));
                }
            }
        }
        if boards {
            board_bytes(&state.position, &mut ahead);
            // Setup in the move's own node comes first (as `apply_node`
            // and sgfmill play it): the board before the move has it.
            let mut pts = Vec::new();
            for p in coll.properties(node) {
                let c = match p.prop() {
                    Prop::AB => b'X',
                    Prop::AW => b'O',
                    Prop::AE => b'.',
                    _ => continue,
                };
                pts.clear();
                for &v in p.values() {
                    value_points(v, &mut pts);
                }
                for pt in &pts {
                    let (x, y) = (u32::from(pt.x), u32::from(pt.y));
                    if x < w && y < h {
                        ahead[(y * w + x) as usize] = c;
                    }
                }
            }
        }
        let taken_before = match &state.position {
            Position::Go(b) => [b.captures(Color::Black), b.captures(Color::White)],
            Position::Othello(_) => [0, 0],
        };
        replay::apply_node(coll, node, &mut state, &mut errors);
        errors.clear();
        if state.moves == moves_before {
            continue;
        }
        before_first_move = false;
        let Some((color, point)) = state.last_move else {
            continue;
        };
        let captures = match &state.position {
            Position::Go(b) => {
                let i = usize::from(color == Color::White);
                Some((b.captures(color) - taken_before[i].min(b.captures(color))) as i32)
            }
            Position::Othello(_) => None,
        };
        let (time_prop, periods_prop) = match color {
            Color::Black => (Prop::BL, Prop::OB),
            Color::White => (Prop::WL, Prop::OW),
        };
        g.moves.push(Move {
            color: match color {
                Color::Black => "B",
                Color::White => "W",
            },
            vertex: match point {
                Some(p) => vertex(p, w, h),
                None => Some("pass".into()),
            },
            point: point.map(|p| p.to_string()),
            captures,
            time_left: coll.get(node, time_prop).and_then(|p| number(p.value())),
            periods_left: coll.get(node, periods_prop).and_then(|p| match p.value() {
                Value::Number(n) => i32::try_from(n).ok(),
                _ => None,
            }),
            before: if boards {
                changes(&mut written, &ahead)
            } else {
                Vec::new()
            },
            after: if boards {
                board_bytes(&state.position, &mut now);
                changes(&mut written, &now)
            } else {
                Vec::new()
            },
        });
    }
    g.final_board = Some(board_text(&state.position));
    if let Position::Go(b) = &state.position {
        g.captures = Some([
            b.captures(Color::Black) as i32,
            b.captures(Color::White) as i32,
        ]);
        let komi = g.komi.unwrap_or(0.0);
        g.area_score = Some(score_with_dead(b, &[], Method::Area, komi).margin());
        g.marked_score = replay::final_score(coll, root).map(|s| s.margin());
    }
    g
}

/// One SGF file read: its games and diagnostics (or why it was not read).
struct FileRows {
    name: String,
    games: Vec<GoGame>,
    problems: Vec<Diagnostic>,
}

/// What the reading threads make of one SGF file.
enum FileRead {
    /// Its games and diagnostics (or why it was not read).
    Rows(FileRows),
    /// A plain file larger than a part: read a part at a time in input
    /// order ([`read_in_parts`]), so its games are never all in memory.
    InParts(Input),
}

/// Reads, parses and checks one SGF file as `gamerec check` does. A file
/// (decompressed) larger than `max_bytes` is not parsed: one `too-large`
/// error says so, and memory stays bounded. A plain file larger than a
/// part ([`sgf::PART_BYTES`]) is left to [`read_in_parts`].
fn read_file(input: &Input, table: Table, max_bytes: u64) -> Result<FileRead, OpenError> {
    if input.size().is_some_and(|n| n > sgf::PART_BYTES as u64) {
        return Ok(FileRead::InParts(input.clone()));
    }
    read_file_whole(input, table, max_bytes).map(FileRead::Rows)
}

/// The rows of a file not read for being larger than `max_bytes`: one
/// `too-large` error.
fn too_large(name: &str, max_bytes: u64) -> FileRows {
    let message = format!(
        "the file is larger than the bound of {max_bytes} bytes (--max-game-bytes): not read"
    );
    let d = Diagnostic::new(Severity::Error, Default::default(), message)
        .with_path(name)
        .with_offset(max_bytes)
        .with_code(gamerec::diag::Code::TooLarge);
    FileRows {
        name: name.to_string(),
        games: Vec::new(),
        problems: vec![d],
    }
}

/// The games and diagnostics of `parsed` (a file, or a part of one at
/// `place` after `games_before` games), every game checked.
fn rows_of(
    name: &str,
    parsed: &sgf::Parsed,
    table: Table,
    games_before: usize,
    place: &sgf::PartPlace,
) -> FileRows {
    let coll = &parsed.collection;
    let mut diags = parsed.diagnostics.clone();
    for (k, &root) in coll.roots.iter().enumerate() {
        for e in replay::check_game_notes(coll, root, games_before + k + 1) {
            diags.push(parsed.rule_diagnostic(e));
        }
    }
    diags.sort_by_key(|d| d.offset);
    let mut games: Vec<GoGame> = coll
        .roots
        .iter()
        .enumerate()
        .map(|(k, &root)| {
            let mut g = game_of(coll, root, table == Table::Positions, table == Table::Games);
            g.number = i32::try_from(games_before + k + 1).unwrap_or(i32::MAX);
            g.offset += place.offset;
            g
        })
        .collect();
    let mut problems = Vec::with_capacity(diags.len());
    for d in &mut diags {
        let game = coll.game_at(d.offset);
        place.place(d);
        let mut diag = d.to_diagnostic(Some(name));
        if let Some(k) = game {
            let g = &mut games[k];
            let (errors, warnings) = d.counts();
            let count = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
            g.errors = g.errors.saturating_add(count(errors));
            g.warnings = g.warnings.saturating_add(count(warnings));
            diag.game = Some((games_before + k) as u64 + 1);
        }
        problems.push(diag);
    }
    FileRows {
        name: name.to_string(),
        games,
        problems,
    }
}

/// Reads the plain SGF file `input` a part at a time (whole game trees of
/// about [`sgf::PART_BYTES`]), mapped, its pages given back behind the
/// reading, each part's rows handed to `push` before the next is read; a
/// file that cannot be read in parts (compressed, a whole-file charset) is
/// read whole, up to `max_bytes`. Stops when `push` breaks.
fn read_in_parts(
    input: &Input,
    table: Table,
    max_bytes: u64,
    push: &mut dyn FnMut(Result<FileRows, OpenError>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let map = match input.open_plain() {
        Ok(Some((file, len))) => match gamerec::io::MappedFile::map(&file, len) {
            Ok(map) => map,
            Err(e) => return push(Err(OpenError::new(input.name.clone(), e))),
        },
        // Compressed (or not a regular file): read whole, up to the bound.
        Ok(None) => return push(read_file_whole(input, table, max_bytes)),
        Err(e) => return push(Err(e)),
    };
    let bytes = map.bytes();
    let options = ParseOptions::default();
    if !sgf::parts_allowed(bytes, &options) {
        // Decoded whole (a BOM, UTF-16, a whole-file charset): as usual.
        return push(read_file_whole(input, table, max_bytes));
    }
    let mut state = sgf::PartState::default();
    let mut place = sgf::PartPlace::default();
    let mut buffers = sgf::ParseBuffers::new();
    let (mut start, mut games) = (0, 0);
    loop {
        let part = &bytes[start..];
        let mut parsed = sgf::parse_part(part, &options, &mut state, sgf::PART_BYTES, &mut buffers);
        parsed.index_lines(part, &options);
        let rows = rows_of(&input.name, &parsed, table, games, &place);
        games += parsed.collection.roots.len();
        let rest = parsed.rest;
        buffers.recycle(parsed);
        push(Ok(rows))?;
        match rest {
            Some(n) => {
                place = place.after(&part[..n]);
                start += n;
                map.done_to(start);
            }
            None => return ControlFlow::Continue(()),
        }
    }
}

/// [`read_file`] of a file read whole.
fn read_file_whole(input: &Input, table: Table, max_bytes: u64) -> Result<FileRows, OpenError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    input
        .open(None)?
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| OpenError::new(input.name.clone(), e))?;
    if bytes.len() as u64 > max_bytes {
        return Ok(too_large(&input.name, max_bytes));
    }
    let parsed = sgf::parse(&bytes, &ParseOptions::default());
    Ok(rows_of(
        &input.name,
        &parsed,
        table,
        0,
        &sgf::PartPlace::default(),
    ))
}

/// Games per batch sent on (fewer when a file holds more).
const GAMES_PER_BATCH: usize = 1024;
/// Moves table rows per batch sent on: a row holds two boards' text and
/// two 19x19 stone lists (about 1.5 KB), so a batch is about 12 MB (32 K
/// rows took 759 MB against 465 MB for the moves of a 20 MB collection,
/// in the same time).
const MOVES_PER_BATCH: usize = 8 * 1024;

/// A batch of either Go table being filled, with what it counts.
struct Pending {
    rows: Rows,
    games: u64,
    problems: Vec<Diagnostic>,
}

enum Rows {
    Games(Box<GoGamesBuilder>),
    Moves(Box<GoMovesBuilder>),
}

impl Pending {
    fn new(table: Table) -> Pending {
        Pending {
            rows: match table {
                Table::Games => Rows::Games(Box::default()),
                Table::Positions => Rows::Moves(Box::default()),
            },
            games: 0,
            problems: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        match &self.rows {
            Rows::Games(b) => b.rows >= GAMES_PER_BATCH,
            Rows::Moves(b) => b.rows >= MOVES_PER_BATCH || self.games >= GAMES_PER_BATCH as u64,
        }
    }

    fn is_empty(&self) -> bool {
        let rows = match &self.rows {
            Rows::Games(b) => b.rows,
            Rows::Moves(b) => b.rows,
        };
        self.games == 0 && self.problems.is_empty() && rows == 0
    }

    fn finish(self) -> Decoded {
        let batch = match self.rows {
            Rows::Games(b) => b.finish(),
            Rows::Moves(b) => b.finish(),
        };
        Decoded {
            batch,
            games: self.games,
            failed: 0,
            problems: self.problems,
        }
    }
}

/// Reads the SGF files `inputs` (consecutive inputs of a [`crate::Batches`]) into batches of the Go table `opts.table`, sent on `tx` in input
/// order; game ids go on from `next_id`. A file that cannot be read is
/// sent as an error in its place. Returns whether the consumer is gone.
fn read_sgf_inputs(
    inputs: &[Input],
    opts: &Options,
    next_id: &mut u64,
    tx: &SyncSender<Result<Decoded, InputError>>,
) -> bool {
    // Filters select chess games by their tags (ratings, time control),
    // which Go games do not have: no game passes one.
    let rows_wanted = opts.filter.is_none();
    let mut pending = Pending::new(opts.table);
    let mut stopped = false;
    // The rows of a file (or of a part of one) into the batches.
    let mut push = |result: Result<FileRows, OpenError>| -> ControlFlow<()> {
        match result {
            Ok(file) => {
                pending.games += file.games.len() as u64;
                pending.problems.extend(file.problems);
                for game in file.games.iter().filter(|_| rows_wanted) {
                    // A long game's moves may span batches.
                    let mut board = vec![b'.'; game.board_len];
                    let mut at = 0;
                    loop {
                        match &mut pending.rows {
                            Rows::Games(b) => {
                                b.append(*next_id, &file.name, game);
                                at = game.moves.len();
                            }
                            Rows::Moves(b) => {
                                at = b.append(*next_id, &file.name, game, at, &mut board);
                            }
                        }
                        if at >= game.moves.len() {
                            break;
                        }
                        let full = std::mem::replace(&mut pending, Pending::new(opts.table));
                        if tx.send(Ok(full.finish())).is_err() {
                            stopped = true;
                            return ControlFlow::Break(());
                        }
                    }
                    *next_id += 1;
                }
            }
            Err(e) => {
                let full = std::mem::replace(&mut pending, Pending::new(opts.table));
                if (!full.is_empty() && tx.send(Ok(full.finish())).is_err())
                    || tx.send(Err(e)).is_err()
                {
                    stopped = true;
                    return ControlFlow::Break(());
                }
            }
        }
        if pending.full() {
            let full = std::mem::replace(&mut pending, Pending::new(opts.table));
            if tx.send(Ok(full.finish())).is_err() {
                stopped = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    };
    gamerec::io::pipeline::map_in_order(
        inputs,
        opts.threads.max(1),
        |input: &Input, _: &mut ()| read_file(input, opts.table, opts.max_game_bytes),
        |result| match result {
            Ok(FileRead::InParts(input)) => {
                read_in_parts(&input, opts.table, opts.max_game_bytes, &mut push)
            }
            Ok(FileRead::Rows(rows)) => push(Ok(rows)),
            Err(e) => push(Err(e)),
        },
    );
    stopped || (!pending.is_empty() && tx.send(Ok(pending.finish())).is_err())
}

/// Whether a [`crate::Batches`] input (after [`expand_directories`]) is
/// an SGF file.
pub(crate) fn is_sgf_path(path: &Path) -> bool {
    path.as_os_str() != "-" && Input::file(path).format_by_name() == Some(Format::Sgf)
}

/// The Go tables of `paths` (the first is SGF): each run of SGF files is
/// read by [`read_sgf_inputs`]; any other input is refused in its place.
pub(crate) fn read_go(
    paths: &[PathBuf],
    names: &[String],
    opts: &Options,
    tx: &SyncSender<Result<Decoded, InputError>>,
) {
    let mut next_id = 0u64;
    let mut run: Vec<Input> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let mut input = Input::from_arg(path.as_os_str());
        if let Some(name) = names.get(i).filter(|n| !n.is_empty()) {
            input.name = name.clone();
        }
        if is_sgf_path(path) {
            run.push(input);
            continue;
        }
        if read_sgf_inputs(&run, opts, &mut next_id, tx)
            || tx.send(Err(mixed_error(&input))).is_err()
        {
            return;
        }
        run.clear();
    }
    // The last run: reading ends here whether or not the consumer is gone.
    read_sgf_inputs(&run, opts, &mut next_id, tx);
}

/// The error sent for an input whose kind (Go or chess) differs from the
/// table's.
pub(crate) fn mixed_error(input: &Input) -> InputError {
    OpenError::new(
        input.name.clone(),
        std::io::Error::new(std::io::ErrorKind::InvalidInput, MIXED),
    )
}

/// Lineage columns built row by row (a batch mixes files).
#[derive(Default)]
struct Lineage {
    game_key: Int64Builder,
    source: StringBuilder,
    offset: Int64Builder,
}

impl Lineage {
    fn append(&mut self, source: &str, offset: u64) {
        self.game_key
            .append_value(crate::lineage::game_key(source, offset));
        self.source.append_value(source);
        self.offset.append_value(offset as i64);
    }

    fn finish(mut self, columns: &mut Vec<(&str, ArrayRef, bool)>) {
        columns.push(("game_key", Arc::new(self.game_key.finish()), false));
        columns.push(("source", Arc::new(self.source.finish()), false));
        columns.push(("offset", Arc::new(self.offset.finish()), true));
    }
}

/// Builds one record batch of the Go games table.
pub struct GoGamesBuilder {
    rows: usize,
    game_id: Int64Builder,
    game_number: Int32Builder,
    gm: Int32Builder,
    ff: Int32Builder,
    size: Int32Builder,
    height: Int32Builder,
    texts: Vec<StringBuilder>,
    komi: Float64Builder,
    handicap: Int32Builder,
    time_limit_s: Float64Builder,
    winner: StringBuilder,
    margin: Float64Builder,
    properties: MapBuilder<StringBuilder, StringBuilder>,
    move_count: Int32Builder,
    moves: ListBuilder<StringBuilder>,
    points: ListBuilder<StringBuilder>,
    colors: ListBuilder<StringBuilder>,
    time_left_s: ListBuilder<Float64Builder>,
    periods_left: ListBuilder<Int32Builder>,
    setup_black: ListBuilder<StringBuilder>,
    setup_white: ListBuilder<StringBuilder>,
    captures_black: Int32Builder,
    captures_white: Int32Builder,
    final_board: StringBuilder,
    area_score: Float64Builder,
    marked_score: Float64Builder,
    errors: Int32Builder,
    warnings: Int32Builder,
    sgf: StringBuilder,
    lineage: Lineage,
}

impl Default for GoGamesBuilder {
    fn default() -> GoGamesBuilder {
        GoGamesBuilder {
            rows: 0,
            game_id: Int64Builder::new(),
            game_number: Int32Builder::new(),
            gm: Int32Builder::new(),
            ff: Int32Builder::new(),
            size: Int32Builder::new(),
            height: Int32Builder::new(),
            texts: TEXT_COLUMNS.iter().map(|_| StringBuilder::new()).collect(),
            komi: Float64Builder::new(),
            handicap: Int32Builder::new(),
            time_limit_s: Float64Builder::new(),
            winner: StringBuilder::new(),
            margin: Float64Builder::new(),
            properties: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            move_count: Int32Builder::new(),
            moves: ListBuilder::new(StringBuilder::new()),
            points: ListBuilder::new(StringBuilder::new()),
            colors: ListBuilder::new(StringBuilder::new()),
            time_left_s: ListBuilder::new(Float64Builder::new()),
            periods_left: ListBuilder::new(Int32Builder::new()),
            setup_black: ListBuilder::new(StringBuilder::new()),
            setup_white: ListBuilder::new(StringBuilder::new()),
            captures_black: Int32Builder::new(),
            captures_white: Int32Builder::new(),
            final_board: StringBuilder::new(),
            area_score: Float64Builder::new(),
            marked_score: Float64Builder::new(),
            errors: Int32Builder::new(),
            warnings: Int32Builder::new(),
            sgf: StringBuilder::new(),
            lineage: Lineage::default(),
        }
    }
}

impl GoGamesBuilder {
    fn append(&mut self, id: u64, source: &str, g: &GoGame) {
        self.rows += 1;
        self.game_id.append_value(id as i64);
        self.game_number.append_value(g.number);
        self.gm.append_value(g.gm);
        self.ff.append_value(g.ff);
        self.size.append_value(g.size);
        self.height.append_value(g.height);
        for (b, v) in self.texts.iter_mut().zip(&g.texts) {
            b.append_option(v.as_deref());
        }
        self.komi.append_option(g.komi);
        self.handicap.append_option(g.handicap);
        self.time_limit_s.append_option(g.time_limit);
        self.winner.append_option(g.winner);
        self.margin.append_option(g.margin);
        for (k, v) in &g.properties {
            self.properties.keys().append_value(k);
            self.properties.values().append_value(v);
        }
        self.properties
            .append(true)
            .expect("keys and values appended together");
        self.move_count.append_value(g.moves.len() as i32);
        for m in &g.moves {
            self.moves.values().append_option(m.vertex.as_deref());
            self.points.values().append_option(m.point.as_deref());
            self.colors.values().append_value(m.color);
            self.time_left_s.values().append_option(m.time_left);
            self.periods_left.values().append_option(m.periods_left);
        }
        self.moves.append(true);
        self.points.append(true);
        self.colors.append(true);
        self.time_left_s.append(true);
        self.periods_left.append(true);
        for v in &g.setup_black {
            self.setup_black.values().append_option(v.as_deref());
        }
        self.setup_black.append(true);
        for v in &g.setup_white {
            self.setup_white.values().append_option(v.as_deref());
        }
        self.setup_white.append(true);
        self.captures_black.append_option(g.captures.map(|c| c[0]));
        self.captures_white.append_option(g.captures.map(|c| c[1]));
        self.final_board.append_option(g.final_board.as_deref());
        self.area_score.append_option(g.area_score);
        self.marked_score.append_option(g.marked_score);
        self.errors.append_value(g.errors);
        self.warnings.append_value(g.warnings);
        self.sgf.append_value(&g.sgf);
        self.lineage.append(source, g.offset);
    }

    /// The record batch of the rows appended.
    pub fn finish(mut self) -> RecordBatch {
        let mut columns: Vec<(&str, ArrayRef, bool)> = vec![
            ("game_id", Arc::new(self.game_id.finish()), false),
            ("game_number", Arc::new(self.game_number.finish()), false),
            ("gm", Arc::new(self.gm.finish()), false),
            ("ff", Arc::new(self.ff.finish()), false),
            ("size", Arc::new(self.size.finish()), false),
            ("height", Arc::new(self.height.finish()), false),
        ];
        for ((name, _), b) in TEXT_COLUMNS.iter().zip(&mut self.texts) {
            columns.push((*name, Arc::new(b.finish()), true));
        }
        let rest: [(&str, ArrayRef, bool); 22] = [
            ("komi", Arc::new(self.komi.finish()), true),
            ("handicap", Arc::new(self.handicap.finish()), true),
            ("time_limit_s", Arc::new(self.time_limit_s.finish()), true),
            ("winner", Arc::new(self.winner.finish()), true),
            ("margin", Arc::new(self.margin.finish()), true),
            ("properties", Arc::new(self.properties.finish()), false),
            ("move_count", Arc::new(self.move_count.finish()), false),
            ("moves", Arc::new(self.moves.finish()), false),
            ("points", Arc::new(self.points.finish()), false),
            ("colors", Arc::new(self.colors.finish()), false),
            ("time_left_s", Arc::new(self.time_left_s.finish()), false),
            ("periods_left", Arc::new(self.periods_left.finish()), false),
            ("setup_black", Arc::new(self.setup_black.finish()), false),
            ("setup_white", Arc::new(self.setup_white.finish()), false),
            (
                "captures_black",
                Arc::new(self.captures_black.finish()),
                true,
            ),
            (
                "captures_white",
                Arc::new(self.captures_white.finish()),
                true,
            ),
            ("final_board", Arc::new(self.final_board.finish()), true),
            ("area_score", Arc::new(self.area_score.finish()), true),
            ("marked_score", Arc::new(self.marked_score.finish()), true),
            ("errors", Arc::new(self.errors.finish()), false),
            ("warnings", Arc::new(self.warnings.finish()), false),
            ("sgf", Arc::new(self.sgf.finish()), false),
        ];
        columns.extend(rest);
        self.lineage.finish(&mut columns);
        batch(columns)
    }
}

/// The side of the square frame of the moves table's `stones` lists: a
/// list holds `FRAME * FRAME` points, a 19x19 board exactly.
pub const FRAME: usize = 19;

fn stones_builder() -> FixedSizeListBuilder<Int8Builder> {
    let values = Int8Builder::with_capacity(FRAME * FRAME * 1024);
    FixedSizeListBuilder::new(values, (FRAME * FRAME) as i32).with_field(Arc::new(
        arrow_schema::Field::new("item", arrow_schema::DataType::Int8, false),
    ))
}

/// Appends the board text `board` (rows of `width` points) as a `stones`
/// list: `1` black, `-1` white, `0` empty or off the board; null when the
/// board does not fit the frame.
fn append_stones(b: &mut FixedSizeListBuilder<Int8Builder>, board: &[u8], width: usize) {
    let height = board.len().checked_div(width).unwrap_or(0);
    let fits = width <= FRAME && height <= FRAME;
    let values = b.values();
    let mut cells = [0i8; FRAME * FRAME];
    if fits {
        for (i, &c) in board.iter().enumerate() {
            cells[(i / width) * FRAME + i % width] = match c {
                b'X' => 1,
                b'O' => -1,
                _ => 0,
            };
        }
    }
    values.append_slice(&cells);
    b.append(fits);
}

/// Builds one record batch of the Go moves table.
pub struct GoMovesBuilder {
    rows: usize,
    game_id: Int64Builder,
    ply: Int32Builder,
    color: StringBuilder,
    vertex: StringBuilder,
    point: StringBuilder,
    captures: Int32Builder,
    board_before: StringBuilder,
    board: StringBuilder,
    stones_before: FixedSizeListBuilder<Int8Builder>,
    stones: FixedSizeListBuilder<Int8Builder>,
    time_left_s: Float64Builder,
    periods_left: Int32Builder,
    size: Int32Builder,
    height: Int32Builder,
    komi: Float64Builder,
    handicap: Int32Builder,
    rules: StringBuilder,
    result: StringBuilder,
    winner: StringBuilder,
    black_rank: StringBuilder,
    white_rank: StringBuilder,
    lineage: Lineage,
}

impl Default for GoMovesBuilder {
    fn default() -> GoMovesBuilder {
        GoMovesBuilder {
            rows: 0,
            game_id: Int64Builder::new(),
            ply: Int32Builder::new(),
            color: StringBuilder::new(),
            vertex: StringBuilder::new(),
            point: StringBuilder::new(),
            captures: Int32Builder::new(),
            board_before: StringBuilder::new(),
            board: StringBuilder::new(),
            stones_before: stones_builder(),
            stones: stones_builder(),
            time_left_s: Float64Builder::new(),
            periods_left: Int32Builder::new(),
            size: Int32Builder::new(),
            height: Int32Builder::new(),
            komi: Float64Builder::new(),
            handicap: Int32Builder::new(),
            rules: StringBuilder::new(),
            result: StringBuilder::new(),
            winner: StringBuilder::new(),
            black_rank: StringBuilder::new(),
            white_rank: StringBuilder::new(),
            lineage: Lineage::default(),
        }
    }
}

impl GoMovesBuilder {
    /// Appends the rows of `g`'s moves from number `from` (0-based) until
    /// the batch is full; returns where it stopped. `board` is the board
    /// text as of move `from` (rebuilt from each move's changes).
    fn append(
        &mut self,
        id: u64,
        source: &str,
        g: &GoGame,
        from: usize,
        board: &mut [u8],
    ) -> usize {
        let text = |prop: Prop| {
            TEXT_COLUMNS
                .iter()
                .position(|&(_, q)| q == prop)
                .and_then(|i| g.texts[i].as_deref())
        };
        for (n, m) in g.moves.iter().enumerate().skip(from) {
            if self.rows >= MOVES_PER_BATCH && n > from {
                return n;
            }
            self.rows += 1;
            self.game_id.append_value(id as i64);
            self.ply.append_value(n as i32 + 1);
            self.color.append_value(m.color);
            self.vertex.append_option(m.vertex.as_deref());
            self.point.append_option(m.point.as_deref());
            self.captures.append_option(m.captures);
            for &(i, c) in &m.before {
                board[i as usize] = c;
            }
            self.board_before.append_value(ascii(board));
            append_stones(&mut self.stones_before, board, g.board_width);
            for &(i, c) in &m.after {
                board[i as usize] = c;
            }
            self.board.append_value(ascii(board));
            append_stones(&mut self.stones, board, g.board_width);
            self.time_left_s.append_option(m.time_left);
            self.periods_left.append_option(m.periods_left);
            self.size.append_value(g.size);
            self.height.append_value(g.height);
            self.komi.append_option(g.komi);
            self.handicap.append_option(g.handicap);
            self.rules.append_option(text(Prop::RU));
            self.result.append_option(text(Prop::RE));
            self.winner.append_option(g.winner);
            self.black_rank.append_option(text(Prop::BR));
            self.white_rank.append_option(text(Prop::WR));
            self.lineage.append(source, g.offset);
        }
        g.moves.len()
    }

    /// The record batch of the rows appended.
    pub fn finish(mut self) -> RecordBatch {
        let mut columns: Vec<(&str, ArrayRef, bool)> = vec![
            ("game_id", Arc::new(self.game_id.finish()), false),
            ("ply", Arc::new(self.ply.finish()), false),
            ("color", Arc::new(self.color.finish()), false),
            ("vertex", Arc::new(self.vertex.finish()), true),
            ("point", Arc::new(self.point.finish()), true),
            ("captures", Arc::new(self.captures.finish()), true),
            ("board_before", Arc::new(self.board_before.finish()), true),
            ("board", Arc::new(self.board.finish()), true),
            ("stones_before", Arc::new(self.stones_before.finish()), true),
            ("stones", Arc::new(self.stones.finish()), true),
            ("time_left_s", Arc::new(self.time_left_s.finish()), true),
            ("periods_left", Arc::new(self.periods_left.finish()), true),
            ("size", Arc::new(self.size.finish()), false),
            ("height", Arc::new(self.height.finish()), false),
            ("komi", Arc::new(self.komi.finish()), true),
            ("handicap", Arc::new(self.handicap.finish()), true),
            ("rules", Arc::new(self.rules.finish()), true),
            ("result", Arc::new(self.result.finish()), true),
            ("winner", Arc::new(self.winner.finish()), true),
            ("black_rank", Arc::new(self.black_rank.finish()), true),
            ("white_rank", Arc::new(self.white_rank.finish()), true),
        ];
        self.lineage.finish(&mut columns);
        batch(columns)
    }
}
