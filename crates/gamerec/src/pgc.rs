//! PGC, the binary coding of PGN (PGN standard, section 20).
//!
//! A PGC file is a sequence of records, each a marker byte and its items.
//! Integers are little-endian; strings are Latin-1 with a 1-, 2- or 4-byte
//! length; a move is an *ordinal*: its index in the list of legal moves
//! sorted by their SAN text in ASCII order ([`ordinals`]).
//!
//! | marker | record | model |
//! |---|---|---|
//! | 0x00 | noop | skipped |
//! | 0x01 | reduced export game: 7 string-1 (the Seven Tag Roster), mvseq-2 | a game |
//! | 0x02 | tag pair: 2 string-1 | a tag |
//! | 0x03 / 0x04 | move sequence, mvseq-1 / mvseq-2 | moves on the current line |
//! | 0x05 / 0x06 | general game begin / end | a game |
//! | 0x07 | simple NAG, int-1 | a NAG on the last move |
//! | 0x08 / 0x09 | RAV begin / end | a variation replacing the last move |
//! | 0x0a | escape string, string-2 | dropped with a warning (non-archival) |
//!
//! PGC has no comment record: writing a commented game drops its comments
//! with a warning. The writer uses the reduced record when a game has exactly
//! the Seven Tag Roster, the standard start, no variations and no NAGs; the
//! general begin/end pair otherwise. A `FEN` tag gives the start position.

use shakmaty::{Chess, Move, Position};

use crate::chessbase::Sink;
pub use crate::chessbase::{FileKind, Issue, ReadItem, ReadOutcome};
use crate::model::{Game, GameResult, NodeId, Ply, PlyMove};
use crate::san::write_san;

/// Marker codes of section 20.4.
pub mod marker {
    /// No operation.
    pub const NOOP: u8 = 0x00;
    /// Reduced export format single game.
    pub const REDUCED_GAME: u8 = 0x01;
    /// Tag pair.
    pub const TAG_PAIR: u8 = 0x02;
    /// Short move sequence (mvseq-1).
    pub const SHORT_MOVES: u8 = 0x03;
    /// Long move sequence (mvseq-2).
    pub const LONG_MOVES: u8 = 0x04;
    /// General game data begin.
    pub const GAME_BEGIN: u8 = 0x05;
    /// General game data end.
    pub const GAME_END: u8 = 0x06;
    /// Simple NAG.
    pub const NAG: u8 = 0x07;
    /// RAV begin.
    pub const RAV_BEGIN: u8 = 0x08;
    /// RAV end.
    pub const RAV_END: u8 = 0x09;
    /// Escape string (string-2).
    pub const ESCAPE: u8 = 0x0a;
}

/// The legal moves of `pos` in ordinal order: sorted by SAN text in ASCII order.
pub fn ordinals(pos: &Chess) -> Vec<(String, Move)> {
    let mut list: Vec<(String, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (write_san(pos, PlyMove::Move(m)), m))
        .collect();
    list.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    list
}

/// The sort key of a move: its SAN without the check suffix. Sorting by it
/// gives the same order as sorting the canonical SAN with suffix, because
/// `+` and `#` sort before every character that can follow in a SAN and two
/// moves never share a SAN (tested against [`ordinals`]); it needs no move
/// to be played, so it is several times faster.
fn sort_key(pos: &Chess, m: Move) -> String {
    shakmaty::san::San::from_move(pos, m).to_string()
}

/// The ordinal of the legal move `mv` in `pos`.
pub fn move_to_ordinal(pos: &Chess, mv: Move) -> Option<u8> {
    let legal = pos.legal_moves();
    if !legal.contains(&mv) {
        return None;
    }
    let key = sort_key(pos, mv);
    let before = legal
        .iter()
        .filter(|&&m| sort_key(pos, m).as_bytes() < key.as_bytes())
        .count();
    u8::try_from(before).ok()
}

/// The move with ordinal `ordinal` in `pos`, with its canonical SAN.
pub fn ordinal_to_move(pos: &Chess, ordinal: u8) -> Option<(String, Move)> {
    let mut keyed: Vec<(String, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (sort_key(pos, m), m))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let m = keyed.get(usize::from(ordinal))?.1;
    Some((write_san(pos, PlyMove::Move(m)), m))
}

/// Latin-1 text of a string item.
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        match self.data.get(self.at..self.at.saturating_add(n)) {
            Some(s) if self.at.checked_add(n).is_some() => {
                self.at += n;
                Ok(s)
            }
            _ => Err(format!(
                "{what}: needs {n} bytes, only {} left",
                self.data.len() - self.at.min(self.data.len())
            )),
        }
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn string1(&mut self, what: &str) -> Result<String, String> {
        let n = self.u8(what)?;
        Ok(latin1(self.take(usize::from(n), what)?))
    }

    fn string2(&mut self, what: &str) -> Result<String, String> {
        let n = self.u16(what)?;
        Ok(latin1(self.take(usize::from(n), what)?))
    }
}

struct Line {
    node: NodeId,
    pos: Chess,
    prev: Option<(NodeId, Chess)>,
}

/// A game being read from general records.
struct Builder {
    game: Game,
    start_offset: usize,
    number: usize,
    line: Option<Line>,
    stack: Vec<Line>,
    broken: bool,
}

impl Builder {
    fn new(start_offset: usize, number: usize) -> Builder {
        Builder {
            game: Game::new(),
            start_offset,
            number,
            line: None,
            stack: Vec::new(),
            broken: false,
        }
    }

    /// The current line, creating it from the tags on first use.
    fn line(&mut self) -> Result<&mut Line, String> {
        if self.line.is_none() {
            if let Some(fen) = self.game.tags.get("FEN") {
                let (pos, mode) = crate::fen::read_fen(fen).map_err(|e| format!("FEN tag: {e}"))?;
                self.game.start = pos;
                self.game.castling_mode = mode;
            }
            self.line = Some(Line {
                node: NodeId::ROOT,
                pos: self.game.start.clone(),
                prev: None,
            });
        }
        self.line.as_mut().ok_or_else(|| "no line".to_string())
    }

    fn play(&mut self, ordinal: u8) -> Result<(), String> {
        let line = self.line()?;
        let Some((san, mv)) = ordinal_to_move(&line.pos, ordinal) else {
            return Err(format!(
                "move ordinal {ordinal} is past the {} legal moves",
                line.pos.legal_moves().len()
            ));
        };
        let before = line.pos.clone();
        line.pos.play_unchecked(mv);
        let parent = line.node;
        let id = self.game.tree.add_child(
            parent,
            Ply {
                mv: PlyMove::Move(mv),
                san,
                written: None,
            },
        );
        let line = self.line()?;
        line.prev = Some((parent, before));
        line.node = id;
        Ok(())
    }

    fn finish(mut self) -> Game {
        if let Some(r) = self.game.tags.get("Result") {
            self.game.result = r.parse::<GameResult>().ok();
        }
        self.game
    }
}

/// Reads every game of a PGC file. A structural error (truncated item,
/// unknown marker) ends reading; an illegal move ends its game's moves.
pub fn read_pgc(data: &[u8]) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    read_pgc_each(data, &mut |item| out.push(item));
    out
}

/// Reads the games of a PGC file one at a time, handing each game and each
/// issue to `each` in file order (as [`read_pgc`] does): memory holds the
/// game being read, whatever the number of games.
pub fn read_pgc_each(data: &[u8], each: &mut dyn FnMut(ReadItem)) {
    read_pgc_while(data, &mut |item| {
        each(item);
        std::ops::ControlFlow::Continue(())
    });
}

/// As [`read_pgc_each`], ending as soon as `each` returns
/// [`std::ops::ControlFlow::Break`].
pub fn read_pgc_while(data: &[u8], each: &mut dyn FnMut(ReadItem) -> std::ops::ControlFlow<()>) {
    read_pgc_passing(data, each, usize::MAX, &mut || {});
}

/// As [`read_pgc_while`], calling `passed` each time reading passes
/// another `every` bytes (to give back the mapped pages behind it: a file
/// of few games and many other records).
pub(crate) fn read_pgc_passing(
    data: &[u8],
    each: &mut dyn FnMut(ReadItem) -> std::ops::ControlFlow<()>,
    every: usize,
    passed: &mut dyn FnMut(),
) {
    let mut out = Sink::new(each);
    let out = &mut out;
    let mut cur = Cursor { data, at: 0 };
    let mut game: Option<Builder> = None;
    let mut number = 0;
    let mut mark = every;
    while cur.at < data.len() && !out.stopped() {
        if cur.at >= mark {
            passed();
            mark = cur.at.saturating_add(every);
        }
        let record_at = cur.at;
        let issue_error = |out: &mut Sink, game: Option<usize>, msg: String| {
            out.issue(Issue::error(FileKind::Data, record_at as u64, game, msg));
        };
        let m = data[cur.at];
        cur.at += 1;
        let gnum = game.as_ref().map(|g| g.number);
        let result: Result<(), String> = (|| {
            match m {
                marker::NOOP => {}
                marker::REDUCED_GAME => {
                    if let Some(open) = game.take() {
                        out.issue(Issue::error(
                            FileKind::Data,
                            record_at as u64,
                            Some(open.number),
                            "reduced game record inside a general game (not permitted); the open game ends here",
                        ));
                        out.game(open.finish());
                    }
                    number += 1;
                    let mut b = Builder::new(record_at, number);
                    for name in ["Event", "Site", "Date", "Round", "White", "Black", "Result"] {
                        let value = cur.string1(&format!("reduced game {name} string"))?;
                        b.game.tags.push(name, value);
                    }
                    let n = cur.u16("reduced game move count")?;
                    let moves = cur.take(usize::from(n), "reduced game moves")?;
                    let moves_at = cur.at - moves.len();
                    for (i, &o) in moves.iter().enumerate() {
                        if let Err(msg) = b.play(o) {
                            out.issue(Issue::error(
                                FileKind::Data,
                                (moves_at + i) as u64,
                                Some(number),
                                format!("{msg}; the rest of the game's moves are lost"),
                            ));
                            break;
                        }
                    }
                    out.game(b.finish());
                }
                marker::TAG_PAIR => {
                    let name = cur.string1("tag name")?;
                    let value = cur.string1("tag value")?;
                    match game.as_mut() {
                        Some(b) if b.line.is_none() => b.game.tags.push(name, value),
                        Some(b) => {
                            if name == "FEN" || name == "SetUp" {
                                out.issue(Issue::warning(FileKind::Data, record_at as u64, Some(b.number), format!("{name} tag after the first move does not change the start position")));
                            }
                            b.game.tags.push(name, value)
                        }
                        None => out.issue(Issue::warning(
                            FileKind::Data,
                            record_at as u64,
                            None,
                            format!("tag pair {name} outside a game ignored"),
                        )),
                    }
                }
                marker::SHORT_MOVES | marker::LONG_MOVES => {
                    let n = if m == marker::SHORT_MOVES {
                        usize::from(cur.u8("move sequence length")?)
                    } else {
                        usize::from(cur.u16("move sequence length")?)
                    };
                    let moves = cur.take(n, "move sequence")?;
                    let moves_at = cur.at - n;
                    match game.as_mut() {
                        Some(b) if !b.broken => {
                            for (i, &o) in moves.iter().enumerate() {
                                if let Err(msg) = b.play(o) {
                                    b.broken = true;
                                    out.issue(Issue::error(
                                        FileKind::Data,
                                        (moves_at + i) as u64,
                                        Some(b.number),
                                        format!("{msg}; the rest of the game's moves are lost"),
                                    ));
                                    break;
                                }
                            }
                        }
                        Some(_) => {}
                        None => out.issue(Issue::error(
                            FileKind::Data,
                            record_at as u64,
                            None,
                            "move sequence outside a game ignored",
                        )),
                    }
                }
                marker::GAME_BEGIN => {
                    if let Some(open) = game.take() {
                        out.issue(Issue::error(
                            FileKind::Data,
                            record_at as u64,
                            Some(open.number),
                            "game begin inside a game: the open game ends here",
                        ));
                        out.game(open.finish());
                    }
                    number += 1;
                    game = Some(Builder::new(record_at, number));
                }
                marker::GAME_END => match game.take() {
                    Some(b) => {
                        if !b.stack.is_empty() && !b.broken {
                            out.issue(Issue::error(
                                FileKind::Data,
                                record_at as u64,
                                Some(b.number),
                                format!("{} RAV(s) not closed at the game end", b.stack.len()),
                            ));
                        }
                        out.game(b.finish());
                    }
                    None => out.issue(Issue::warning(
                        FileKind::Data,
                        record_at as u64,
                        None,
                        "game end without a game begin ignored",
                    )),
                },
                marker::NAG => {
                    let nag = cur.u8("NAG value")?;
                    match game.as_mut() {
                        Some(b) if !b.broken => {
                            let node = b.line()?.node;
                            b.game.tree.node_mut(node).nags.push(nag);
                        }
                        Some(_) => {}
                        None => out.issue(Issue::warning(
                            FileKind::Data,
                            record_at as u64,
                            None,
                            "NAG outside a game ignored",
                        )),
                    }
                }
                marker::RAV_BEGIN => match game.as_mut() {
                    Some(b) if !b.broken => {
                        let prev = b.line()?.prev.clone();
                        let Some((node, pos)) = prev else {
                            b.broken = true;
                            return Err("RAV begin with no move before it; the rest of the game's moves are lost".into());
                        };
                        let line = b.line()?;
                        let open = std::mem::replace(
                            line,
                            Line {
                                node,
                                pos,
                                prev: None,
                            },
                        );
                        b.stack.push(open);
                    }
                    Some(_) => {}
                    None => return Err("RAV begin outside a game".into()),
                },
                marker::RAV_END => {
                    match game.as_mut() {
                        Some(b) if !b.broken => match b.stack.pop() {
                            Some(line) => b.line = Some(line),
                            None => {
                                b.broken = true;
                                return Err("RAV end with no RAV open; the rest of the game's moves are lost".into());
                            }
                        },
                        Some(_) => {}
                        None => return Err("RAV end outside a game".into()),
                    }
                }
                marker::ESCAPE => {
                    let text = cur.string2("escape string")?;
                    out.issue(Issue::warning(
                        FileKind::Data,
                        record_at as u64,
                        gnum,
                        format!(
                            "escape string dropped (non-archival data): %{}",
                            text.chars().take(40).collect::<String>()
                        ),
                    ));
                }
                other => {
                    return Err(format!(
                        "unknown marker 0x{other:02x} (expected 0x00-0x0a); the rest of the file is not read"
                    ));
                }
            }
            Ok(())
        })();
        if let Err(msg) = result {
            let fatal = msg.contains("needs") || msg.starts_with("unknown marker");
            issue_error(out, gnum, msg);
            if fatal {
                break;
            }
        }
    }
    if let Some(open) = game.take() {
        out.issue(Issue::error(
            FileKind::Data,
            data.len() as u64,
            Some(open.number),
            format!("game begun at byte {} has no end record", open.start_offset),
        ));
        out.game(open.finish());
    }
}

use crate::pgn::tags::SEVEN_TAG_ROSTER as ROSTER;

/// Writes `games` as PGC. A game that cannot be stored (a null move, a
/// Chess960 start) is left out with an error; comments and cut strings are
/// reported as warnings. [`PgcWriter`] does the same game by game.
pub fn write_pgc(games: &[Game]) -> (Vec<u8>, Vec<Issue>) {
    let mut out = Vec::new();
    let mut issues = Vec::new();
    let mut writer = PgcWriter::default();
    for game in games {
        issues.extend(writer.write(game, &mut out));
    }
    (out, issues)
}

/// Writes PGC one game at a time (memory: one game), numbering the games
/// from 1 and counting the bytes written for the issues' offsets.
#[derive(Debug, Clone, Default)]
pub struct PgcWriter {
    games: usize,
    offset: u64,
}

impl PgcWriter {
    /// Appends `game`'s records to `out` (nothing if it cannot be stored:
    /// an error issue says so); returns its issues.
    pub fn write(&mut self, game: &Game, out: &mut Vec<u8>) -> Vec<Issue> {
        self.games += 1;
        let mut w = PgcGameWriter {
            number: self.games,
            offset: self.offset,
            issues: Vec::new(),
        };
        let written = w.write(game);
        Issue::name_not_listed(&mut w.issues, "the writer");
        match written {
            Ok(bytes) => {
                self.offset += bytes.len() as u64;
                out.extend_from_slice(&bytes);
            }
            Err(msg) => w.issues.push(Issue::error(
                FileKind::Data,
                w.offset,
                Some(self.games),
                format!("{msg}; game left out"),
            )),
        }
        w.issues
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.offset
    }
}

struct PgcGameWriter {
    number: usize,
    offset: u64,
    issues: Vec<Issue>,
}

enum Work {
    Line(NodeId, Chess),
    Open,
    Close,
}

impl PgcGameWriter {
    /// A warning about the game (the first [`crate::diag::MAX_LISTED`]
    /// listed, the rest counted: [`Issue::push_listed`]).
    fn warn(&mut self, msg: String) {
        Issue::push_listed(
            &mut self.issues,
            Issue::warning(FileKind::Data, self.offset, Some(self.number), msg),
        );
    }

    fn string1(&mut self, out: &mut Vec<u8>, what: &str, text: &str) {
        let mut bytes: Vec<u8> = Vec::with_capacity(text.len());
        let mut bad = String::new();
        for c in text.chars() {
            match u8::try_from(u32::from(c)) {
                Ok(b) => bytes.push(b),
                Err(_) => {
                    bad.push(c);
                    bytes.push(b'?');
                }
            }
        }
        if !bad.is_empty() {
            let n = bad.chars().count();
            self.warn(format!(
                "{what}: {n} character(s) outside Latin-1 written as '?': {}",
                crate::excerpt::excerpt(&bad)
            ));
        }
        if bytes.len() > 255 {
            self.warn(format!(
                "{what} is {} bytes; cut to 255 (string-1)",
                bytes.len()
            ));
            bytes.truncate(255);
        }
        out.push(bytes.len() as u8);
        out.extend_from_slice(&bytes);
    }

    fn write(&mut self, game: &Game) -> Result<Vec<u8>, String> {
        let mut comments =
            game.tree.root().comments_before.len() + game.tree.root().comments_after.len();
        let mut has_nags = !game.tree.root().nags.is_empty();
        let mut has_variations = false;
        for id in game.tree.preorder() {
            let n = game.tree.node(id);
            comments += n.comments_before.len() + n.comments_after.len();
            has_nags |= !n.nags.is_empty();
            has_variations |= n.children().len() > 1;
            if matches!(n.ply.as_ref().map(|p| p.mv), Some(PlyMove::Null)) {
                return Err("a null move cannot be coded as a PGC move ordinal".into());
            }
        }
        has_variations |= game.tree.root().children().len() > 1;
        if comments > 0 {
            self.warn(format!(
                "{comments} comment(s) dropped: PGC has no comment record"
            ));
        }
        let names: Vec<&str> = game.tags.iter().map(|t| t.name.as_str()).collect();
        let result_consistent = match (game.result, game.tags.get("Result")) {
            (Some(r), Some(t)) => r.as_str() == t,
            (None, _) => true,
            (Some(_), None) => false,
        };
        let reduced = names == ROSTER
            && result_consistent
            && game.start == Chess::default()
            && !has_nags
            && !has_variations
            && game.tree.mainline_len() <= usize::from(u16::MAX);
        let mut out = Vec::new();
        if reduced {
            out.push(marker::REDUCED_GAME);
            for tag in game.tags.iter() {
                self.string1(&mut out, &format!("{} tag", tag.name), &tag.value);
            }
            let mut ordinals = Vec::with_capacity(game.tree.mainline_len());
            for (id, before) in game.mainline_positions() {
                ordinals.push(self.ordinal(game, id, &before)?);
            }
            out.extend_from_slice(&(ordinals.len() as u16).to_le_bytes());
            out.extend_from_slice(&ordinals);
            return Ok(out);
        }
        out.push(marker::GAME_BEGIN);
        for tag in game.tags.iter() {
            if tag.name == "Result"
                && let Some(r) = game.result
                && r.as_str() != tag.value
            {
                self.warn(format!(
                    "Result tag \"{}\" differs from the game's result {r}; the tag is written",
                    crate::excerpt::excerpt(&tag.value)
                ));
            }
            out.push(marker::TAG_PAIR);
            self.string1(&mut out, "tag name", &tag.name);
            self.string1(&mut out, &format!("{} tag", tag.name), &tag.value);
        }
        if game.tags.get("Result").is_none()
            && let Some(r) = game.result
        {
            out.push(marker::TAG_PAIR);
            self.string1(&mut out, "tag name", "Result");
            self.string1(&mut out, "Result tag", r.as_str());
        }
        if game.start != Chess::default() && game.tags.get("FEN").is_none() {
            out.push(marker::TAG_PAIR);
            self.string1(&mut out, "tag name", "SetUp");
            self.string1(&mut out, "SetUp tag", "1");
            out.push(marker::TAG_PAIR);
            self.string1(&mut out, "tag name", "FEN");
            let fen = crate::fen::write_fen(&game.start, game.castling_mode);
            self.string1(&mut out, "FEN tag", &fen);
        }
        for &nag in &game.tree.root().nags {
            out.extend_from_slice(&[marker::NAG, nag]);
        }
        // Moves, RAVs and NAGs in PGN order, without recursion.
        let mut seq: Vec<u8> = Vec::new();
        let flush = |seq: &mut Vec<u8>, out: &mut Vec<u8>| {
            for chunk in seq.chunks(255) {
                out.push(marker::SHORT_MOVES);
                out.push(chunk.len() as u8);
                out.extend_from_slice(chunk);
            }
            seq.clear();
        };
        let mut work = Vec::new();
        if let Some(first) = game.tree.root().main_child() {
            work.push(Work::Line(first, game.start.clone()));
        }
        while let Some(item) = work.pop() {
            let (id, before) = match item {
                Work::Open => {
                    flush(&mut seq, &mut out);
                    out.push(marker::RAV_BEGIN);
                    continue;
                }
                Work::Close => {
                    flush(&mut seq, &mut out);
                    out.push(marker::RAV_END);
                    continue;
                }
                Work::Line(id, before) => (id, before),
            };
            let node = game.tree.node(id);
            seq.push(self.ordinal(game, id, &before)?);
            if !node.nags.is_empty() {
                flush(&mut seq, &mut out);
                for &nag in &node.nags {
                    out.extend_from_slice(&[marker::NAG, nag]);
                }
            }
            let mut after = before.clone();
            if let Some(Ply {
                mv: PlyMove::Move(mv),
                ..
            }) = &node.ply
            {
                after.play_unchecked(*mv);
            }
            if let Some(next) = node.main_child() {
                work.push(Work::Line(next, after));
            }
            if let Some(parent) = node.parent() {
                let p = game.tree.node(parent);
                if p.main_child() == Some(id) {
                    for &var in p.variations().iter().rev() {
                        work.push(Work::Close);
                        work.push(Work::Line(var, before.clone()));
                        work.push(Work::Open);
                    }
                }
            }
        }
        flush(&mut seq, &mut out);
        out.push(marker::GAME_END);
        Ok(out)
    }

    fn ordinal(&mut self, game: &Game, id: NodeId, before: &Chess) -> Result<u8, String> {
        match game.tree.node(id).ply.as_ref().map(|p| p.mv) {
            Some(PlyMove::Move(mv)) => move_to_ordinal(before, mv)
                .ok_or_else(|| format!("move {mv} is not legal in its position")),
            _ => Err("a null move cannot be coded as a PGC move ordinal".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chessbase::tests::random_game;
    use crate::diag::Severity;
    use proptest::prelude::*;

    fn s1(s: &str) -> Vec<u8> {
        let mut v = vec![s.len() as u8];
        v.extend_from_slice(s.as_bytes());
        v
    }

    #[test]
    fn spec_ordinal_examples() {
        let list = ordinals(&Chess::default());
        assert_eq!(list.len(), 20);
        assert_eq!(list[0].0, "Na3");
        assert_eq!(list[1].0, "Nc3");
        assert_eq!(list[4].0, "a3");
        assert_eq!(list[19].0, "h4");
        let (san, mv) = ordinal_to_move(&Chess::default(), 19).expect("h4");
        assert_eq!(san, "h4");
        assert_eq!(move_to_ordinal(&Chess::default(), mv), Some(19));
        assert_eq!(ordinal_to_move(&Chess::default(), 20), None);
    }

    fn reduced_fixture() -> Vec<u8> {
        // 1.e4 (13) e5 (12) 2.Nf3 (9: Ba6 Bb5 Bc4 Bd3 Be2 Ke2 Na3 Nc3 Ne2 Nf3 ...)
        let mut b = vec![marker::REDUCED_GAME];
        for v in ["Ev", "Si", "2024.01.02", "1", "W", "B", "*"] {
            b.extend(s1(v));
        }
        b.extend_from_slice(&[3, 0, 13, 12, 9]);
        b
    }

    #[test]
    fn reduced_game_reads_and_writes_back() {
        let out = read_pgc(&reduced_fixture());
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let g = &out.games[0];
        assert_eq!(g.tags.get("Date"), Some("2024.01.02"));
        assert_eq!(g.result, Some(GameResult::Unknown));
        let sans: Vec<_> = g
            .tree
            .mainline()
            .map(|id| g.tree.node(id).ply.as_ref().expect("ply").san.clone())
            .collect();
        assert_eq!(sans, vec!["e4", "e5", "Nf3"]);
        let (bytes, issues) = write_pgc(&out.games);
        assert!(issues.is_empty());
        assert_eq!(bytes, reduced_fixture());
    }

    fn general_fixture() -> Vec<u8> {
        let mut b = vec![marker::NOOP, marker::GAME_BEGIN, marker::TAG_PAIR];
        b.extend(s1("Event"));
        b.extend_from_slice(&[4, b'C', b'a', b'f', 0xe9]); // Latin-1 "Café"
        b.extend_from_slice(&[marker::SHORT_MOVES, 1, 13]); // e4
        b.extend_from_slice(&[marker::NAG, 1]); // e4!
        b.extend_from_slice(&[
            marker::RAV_BEGIN,
            marker::SHORT_MOVES,
            1,
            11,
            marker::RAV_END,
        ]); // (d4)
        b.extend_from_slice(&[marker::LONG_MOVES, 1, 0, 12]); // e5
        b.push(marker::ESCAPE);
        b.extend_from_slice(&[3, 0, b'a', b'b', b'c']);
        b.push(marker::GAME_END);
        b
    }

    #[test]
    fn every_marker_reads() {
        let data = general_fixture();
        let out = read_pgc(&data);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert_eq!(out.issues[0].severity, Severity::Warning);
        assert!(out.issues[0].message.contains("%abc"));
        let g = &out.games[0];
        let root = g.tree.root();
        assert_eq!(root.children().len(), 2);
        let e4 = root.children()[0];
        assert_eq!(g.tree.node(e4).nags, vec![1]);
        assert_eq!(
            g.tree
                .node(root.children()[1])
                .ply
                .as_ref()
                .expect("ply")
                .san,
            "d4"
        );
        assert_eq!(g.tree.mainline_len(), 2);
        // Writing uses short sequences; the bytes are the fixture without the
        // noop, escape and long record.
        let (bytes, issues) = write_pgc(&out.games);
        assert!(issues.is_empty(), "{issues:?}");
        let mut expected = vec![marker::GAME_BEGIN, marker::TAG_PAIR];
        expected.extend(s1("Event"));
        expected.extend_from_slice(&[4, b'C', b'a', b'f', 0xe9]);
        expected.extend_from_slice(&[marker::SHORT_MOVES, 1, 13, marker::NAG, 1]);
        expected.extend_from_slice(&[
            marker::RAV_BEGIN,
            marker::SHORT_MOVES,
            1,
            11,
            marker::RAV_END,
        ]);
        expected.extend_from_slice(&[marker::SHORT_MOVES, 1, 12, marker::GAME_END]);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn malformed_records_are_errors() {
        let out = read_pgc(&[marker::REDUCED_GAME, 5, b'a']);
        assert!(out.has_errors());
        let out = read_pgc(&[0x0b]);
        assert!(out.issues[0].message.contains("unknown marker"));
        let out = read_pgc(&[
            marker::GAME_BEGIN,
            marker::SHORT_MOVES,
            1,
            20,
            marker::GAME_END,
        ]);
        assert!(out.issues[0].message.contains("ordinal 20"));
        assert_eq!(out.games.len(), 1);
        let out = read_pgc(&[marker::GAME_BEGIN, marker::RAV_BEGIN, marker::GAME_END]);
        assert!(out.has_errors());
        let out = read_pgc(&[marker::GAME_BEGIN, marker::SHORT_MOVES, 1, 13]);
        assert!(out.issues[0].message.contains("no end record"));
        let out = read_pgc(&[marker::LONG_MOVES, 0xff, 0xff]);
        assert!(out.has_errors());
    }

    #[test]
    fn comments_are_reported_and_start_positions_kept() {
        let mut g = random_game(11, 20, true);
        let first = g.tree.root().main_child().expect("moves");
        g.tree
            .node_mut(first)
            .comments_after
            .push(crate::model::Comment::new("hi"));
        let (_, issues) = write_pgc(std::slice::from_ref(&g));
        assert!(
            issues
                .iter()
                .any(|i| i.message.contains("PGC has no comment record"))
        );

        let (pos, _) = crate::fen::read_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 40").expect("fen");
        let mut g = Game::new();
        g.start = pos.clone();
        let mv = pos.legal_moves()[0];
        let san = write_san(&pos, PlyMove::Move(mv));
        g.tree.add_child(
            NodeId::ROOT,
            Ply {
                mv: PlyMove::Move(mv),
                san,
                written: None,
            },
        );
        let (bytes, issues) = write_pgc(&[g]);
        assert!(issues.is_empty());
        let out = read_pgc(&bytes);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        assert_eq!(out.games[0].start, pos);
        assert_eq!(out.games[0].tree.mainline_len(), 1);
    }

    fn shape(game: &Game) -> Vec<(String, Vec<u8>, usize)> {
        game.tree
            .preorder()
            .map(|id| {
                let n = game.tree.node(id);
                (
                    n.ply.as_ref().expect("ply").san.clone(),
                    n.nags.clone(),
                    n.children().len(),
                )
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn random_games_round_trip(seed in any::<u64>(), plies in 0usize..100) {
            let game = random_game(seed, plies, true);
            let (bytes, issues) = write_pgc(std::slice::from_ref(&game));
            prop_assert!(issues.iter().all(|i| i.severity == Severity::Warning));
            let out = read_pgc(&bytes);
            prop_assert!(out.issues.is_empty(), "{:?}", out.issues);
            prop_assert_eq!(shape(&out.games[0]), shape(&game));
            prop_assert_eq!(&out.games[0].tags, &game.tags);
            prop_assert_eq!(write_pgc(&out.games).0, bytes);
        }

        #[test]
        fn fast_order_is_the_canonical_san_order(seed in any::<u64>(), plies in 0usize..150) {
            let game = random_game(seed, plies, false);
            for (_, pos) in game.mainline_positions() {
                let canonical: Vec<Move> = ordinals(&pos).into_iter().map(|(_, m)| m).collect();
                for (i, &m) in canonical.iter().enumerate() {
                    prop_assert_eq!(move_to_ordinal(&pos, m), Some(i as u8));
                    prop_assert_eq!(ordinal_to_move(&pos, i as u8).map(|(_, m)| m), Some(m));
                }
            }
        }

        #[test]
        fn reader_never_panics(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = read_pgc(&data);
        }
    }
}
