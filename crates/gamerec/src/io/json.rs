//! Reading gamerec's JSON Lines (what [`crate::pgn::write_game_json`]
//! writes) back into games. Moves are read from `san` (tolerantly, as PGN
//! movetext), else `uci`; variations are followed with an explicit stack.
//!
//! The line is checked by `serde_json` (its error gives the column), then
//! read again by [`Doc`], which keeps where each value starts, so every
//! message points at its member. The model has no place for members the
//! writer does not write: they are dropped with a warning naming them, as
//! are NAGs that are not numbers 0-255 and members of the wrong type.

use shakmaty::Chess;

use crate::diag::{Code, MAX_LISTED, NotListed, Severity};
use crate::excerpt::excerpt;
use crate::fen::read_fen;
use crate::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove, play_ply};
use crate::san::{ReadOptions, read_san, write_san};

/// A problem with one JSON line: an error (the line is not a game) or a
/// warning (something dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The kind of problem.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// The byte offset in the line it is about.
    pub at: usize,
    /// What is wrong.
    pub message: String,
    /// For the last warning of a record with more than [`MAX_LISTED`]: the
    /// warnings it counts (its message says so).
    pub not_listed: Option<NotListed>,
}

fn err(code: Code, at: usize, message: impl Into<String>) -> JsonError {
    JsonError {
        code,
        severity: Severity::Error,
        at,
        message: message.into(),
        not_listed: None,
    }
}

fn warn(code: Code, at: usize, message: impl Into<String>) -> JsonError {
    JsonError {
        severity: Severity::Warning,
        ..err(code, at, message)
    }
}

/// One value of a checked JSON text: where it starts and what it is.
#[derive(Debug, Clone, Copy)]
struct Val<'a> {
    at: usize,
    /// Where it ends (exclusive).
    end: usize,
    kind: Kind<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Kind<'a> {
    /// Members `members[start..end]`.
    Object(u32, u32),
    /// Items `items[start..end]`.
    Array(u32, u32),
    /// The string as written, quotes included.
    Str(&'a str),
    /// A number, `true`, `false` or `null` as written.
    Scalar(&'a str),
}

/// A JSON text already checked by `serde_json`, as a flat tree of values
/// that know their offsets (built without recursion).
struct Doc<'a> {
    vals: Vec<Val<'a>>,
    /// (key as written, value) of every object, each object's contiguous.
    members: Vec<(&'a str, u32)>,
    items: Vec<u32>,
}

impl<'a> Doc<'a> {
    /// Reads `text`, which must be valid JSON (one value).
    fn new(text: &'a str) -> Doc<'a> {
        let b = text.as_bytes();
        let mut doc = Doc {
            vals: Vec::new(),
            members: Vec::new(),
            items: Vec::new(),
        };
        // Open containers: (is an object, offset, start in `scratch`, the
        // key it is the value of).
        let mut open: Vec<(bool, usize, usize, Option<&'a str>)> = Vec::new();
        // Children of the open containers: (key, value).
        let mut scratch: Vec<(Option<&'a str>, u32)> = Vec::new();
        let mut key: Option<&'a str> = None;
        let mut i = 0;
        while i < b.len() {
            let val = match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' => {
                    i += 1;
                    continue;
                }
                b'{' | b'[' => {
                    open.push((b[i] == b'{', i, scratch.len(), key.take()));
                    i += 1;
                    continue;
                }
                b'}' | b']' => {
                    let Some((object, at, start, its_key)) = open.pop() else {
                        break;
                    };
                    key = its_key;
                    i += 1;
                    let kind = if object {
                        let s = doc.members.len() as u32;
                        doc.members
                            .extend(scratch.drain(start..).map(|(k, v)| (k.unwrap_or(""), v)));
                        Kind::Object(s, doc.members.len() as u32)
                    } else {
                        let s = doc.items.len() as u32;
                        doc.items.extend(scratch.drain(start..).map(|(_, v)| v));
                        Kind::Array(s, doc.items.len() as u32)
                    };
                    Val { at, end: i, kind }
                }
                b'"' => {
                    let at = i;
                    i += 1;
                    while let Some(j) = memchr::memchr2(b'"', b'\\', &b[i..]) {
                        i += j + 1;
                        if b[i - 1] == b'"' {
                            break;
                        }
                        i += 1;
                    }
                    let raw = &text[at..i.min(b.len())];
                    if matches!(open.last(), Some((true, ..))) && key.is_none() {
                        key = Some(raw);
                        continue;
                    }
                    Val {
                        at,
                        end: i.min(b.len()),
                        kind: Kind::Str(raw),
                    }
                }
                _ => {
                    let at = i;
                    while i < b.len() && !b" \t\r\n,:]}".contains(&b[i]) {
                        i += 1;
                    }
                    Val {
                        at,
                        end: i,
                        kind: Kind::Scalar(&text[at..i]),
                    }
                }
            };
            let id = doc.vals.len() as u32;
            doc.vals.push(val);
            if !open.is_empty() {
                scratch.push((key.take(), id));
            }
        }
        doc
    }

    fn root(&self) -> Option<Val<'a>> {
        self.vals.last().copied()
    }

    fn members(&self, v: Val<'a>) -> impl Iterator<Item = (&'a str, Val<'a>)> + '_ {
        let (s, e) = match v.kind {
            Kind::Object(s, e) => (s, e),
            _ => (0, 0),
        };
        self.members[s as usize..e as usize]
            .iter()
            .map(|&(k, id)| (k, self.vals[id as usize]))
    }

    fn items(&self, v: Val<'a>) -> impl Iterator<Item = Val<'a>> + '_ {
        let (s, e) = match v.kind {
            Kind::Array(s, e) => (s, e),
            _ => (0, 0),
        };
        self.items[s as usize..e as usize]
            .iter()
            .map(|&id| self.vals[id as usize])
    }
}

/// The text of a JSON string as written (quotes included).
fn unquote(raw: &str) -> String {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
    if inner.contains('\\') {
        serde_json::from_str(raw).unwrap_or_default()
    } else {
        inner.to_string()
    }
}

fn as_str(v: Val<'_>) -> Option<String> {
    match v.kind {
        Kind::Str(raw) => Some(unquote(raw)),
        _ => None,
    }
}

fn is_null(v: Val<'_>) -> bool {
    matches!(v.kind, Kind::Scalar("null"))
}

/// Reads one game's members, gathering warnings.
struct GameReader<'d, 'a> {
    doc: &'d Doc<'a>,
    text: &'a str,
    warnings: Vec<JsonError>,
    /// Warnings past [`MAX_LISTED`], counted.
    more: NotListed,
}

impl<'a> GameReader<'_, 'a> {
    /// A short quotation of the value at `v`.
    fn shown(&self, v: Val<'_>) -> String {
        excerpt(&self.text[v.at..v.end]).to_string()
    }

    /// A warning at `at`; past [`MAX_LISTED`] only counted (memory stays
    /// bounded however many a line holds).
    fn warn(&mut self, code: Code, at: usize, message: impl FnOnce(&Self) -> String) {
        if self.warnings.len() < MAX_LISTED {
            let message = message(self);
            self.warnings.push(warn(code, at, message));
        } else {
            self.more.count(Severity::Warning);
        }
    }

    fn wrong_type(&mut self, name: &str, v: Val<'_>, expected: &str) {
        self.warn(Code::Loss, v.at, |r| {
            let shown = r.shown(v);
            format!("member `{name}` is not {expected} (`{shown}`): dropped")
        });
    }

    fn unknown(&mut self, key: &str, v: Val<'_>, what: &str) {
        self.warn(Code::Loss, v.at, |_| {
            let name = excerpt(&unquote(key)).to_string();
            format!(
                "unknown member `{name}` of {what}: dropped (the game model has no place for it)"
            )
        });
    }

    /// A list of comments (strings); anything else is dropped with a warning.
    fn comments(&mut self, name: &str, v: Option<Val<'a>>) -> Vec<Comment> {
        let Some(v) = v else { return Vec::new() };
        if !matches!(v.kind, Kind::Array(..)) {
            if !is_null(v) {
                self.wrong_type(name, v, "a list of strings");
            }
            return Vec::new();
        }
        let mut out = Vec::new();
        for item in self.doc.items(v) {
            match as_str(item) {
                Some(s) => out.push(Comment::new(s)),
                None => self.wrong_type(name, item, "a string"),
            }
        }
        out
    }

    fn nags(&mut self, v: Option<Val<'a>>) -> Vec<u8> {
        let Some(v) = v else { return Vec::new() };
        if !matches!(v.kind, Kind::Array(..)) {
            if !is_null(v) {
                self.wrong_type("nags", v, "a list of numbers");
            }
            return Vec::new();
        }
        let mut out = Vec::new();
        for item in self.doc.items(v) {
            match item.kind {
                Kind::Scalar(n) if n.parse::<u8>().is_ok() => out.push(n.parse().unwrap_or(0)),
                _ => self.warn(Code::Value, item.at, |r| {
                    let shown = r.shown(item);
                    format!("NAG `{shown}` is not a number 0-255: dropped")
                }),
            }
        }
        out
    }
}

/// The message of a `serde_json` error without its "at line L column C".
fn serde_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&tail).unwrap_or(&full).to_string()
}

/// One game from one JSON line, and the warnings about what it dropped.
pub fn read_game(line: &str) -> Result<(Game, Vec<JsonError>), JsonError> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(line) {
        // The column is the offending byte's (1-based); at the end of the
        // line, that of its last byte.
        let before: usize = line
            .split_inclusive('\n')
            .take(e.line().saturating_sub(1))
            .map(str::len)
            .sum();
        let mut at = if e.is_eof() {
            line.len()
        } else {
            (before + e.column().saturating_sub(1)).min(line.len())
        };
        while !line.is_char_boundary(at) {
            at -= 1;
        }
        let message = serde_message(&e);
        let rest = &line[at..];
        let message = if rest.is_empty() {
            format!("{message} (at the end of the line)")
        } else {
            format!("{message}: `{}`", excerpt(rest))
        };
        return Err(err(Code::Syntax, at, message));
    }
    let doc = Doc::new(line);
    let root = doc.root().filter(|v| matches!(v.kind, Kind::Object(..)));
    let Some(root) = root else {
        return Err(err(
            Code::Syntax,
            0,
            format!("expected a JSON object (one game): `{}`", excerpt(line)),
        ));
    };
    let mut r = GameReader {
        doc: &doc,
        text: line,
        warnings: Vec::new(),
        more: NotListed::default(),
    };
    let mut game = Game::default();
    let (mut tags, mut start, mut comments, mut moves, mut result) = (None, None, None, None, None);
    for (key, v) in doc.members(root) {
        match unquote(key).as_str() {
            "tags" => tags = Some(v),
            "start" => start = Some(v),
            "comments" => comments = Some(v),
            "moves" => moves = Some(v),
            "result" => result = Some(v),
            _ => r.unknown(key, v, "a game"),
        }
    }
    if let Some(v) = tags {
        if matches!(v.kind, Kind::Array(..)) {
            for tag in doc.items(v) {
                let pair: Vec<Val<'_>> = doc.items(tag).collect();
                match (matches!(tag.kind, Kind::Array(..)), pair.as_slice()) {
                    (true, [n, val]) => match (as_str(*n), as_str(*val)) {
                        (Some(n), Some(val)) => game.tags.push(n, val),
                        _ => {
                            return Err(err(
                                Code::Value,
                                tag.at,
                                format!("a tag must be [name, value]: `{}`", r.shown(tag)),
                            ));
                        }
                    },
                    _ => {
                        return Err(err(
                            Code::Value,
                            tag.at,
                            format!("a tag must be [name, value]: `{}`", r.shown(tag)),
                        ));
                    }
                }
            }
        } else if !is_null(v) {
            r.wrong_type("tags", v, "a list of [name, value] pairs");
        }
    }
    if let Some(v) = start {
        match as_str(v) {
            Some(fen) => {
                let (pos, mode) = read_fen(&fen).map_err(|e| {
                    err(
                        Code::Position,
                        v.at,
                        format!("start `{}`: {e}", excerpt(&fen)),
                    )
                })?;
                game.start = pos;
                game.castling_mode = mode;
            }
            None if is_null(v) => {}
            None => r.wrong_type("start", v, "a FEN string or null"),
        }
    }
    game.tree.root_mut().comments_before = r.comments("comments", comments);
    if let Some(v) = result {
        match as_str(v) {
            Some(s) => {
                game.result = Some(s.parse::<GameResult>().map_err(|_| {
                    err(
                        Code::Value,
                        v.at,
                        format!("result `{}`: not a PGN result", excerpt(&s)),
                    )
                })?);
            }
            None if is_null(v) => {}
            None => r.wrong_type("result", v, "a result string or null"),
        }
    }
    let mut top = Vec::new();
    match moves {
        Some(v) if matches!(v.kind, Kind::Array(..)) => top.extend(doc.items(v)),
        Some(v) if !is_null(v) => r.wrong_type("moves", v, "a list of moves"),
        _ => {}
    }
    // (moves of one line, next index, parent node, position before it)
    let mut lines: Vec<Vec<Val<'_>>> = vec![top];
    let mut stack: Vec<(usize, usize, NodeId, Chess)> =
        vec![(0, 0, NodeId::ROOT, game.start.clone())];
    let opts = ReadOptions::default();
    while let Some((line_id, i, parent, pos)) = stack.pop() {
        let Some(&mv) = lines[line_id].get(i) else {
            continue;
        };
        if !matches!(mv.kind, Kind::Object(..)) {
            return Err(err(
                Code::Syntax,
                mv.at,
                format!("a move must be an object: `{}`", r.shown(mv)),
            ));
        }
        let (mut san, mut uci, mut nags, mut after, mut before, mut vars) =
            (None, None, None, None, None, None);
        for (key, v) in doc.members(mv) {
            match unquote(key).as_str() {
                "san" => san = Some(v),
                "uci" => uci = Some(v),
                "nags" => nags = Some(v),
                "comments" => after = Some(v),
                "comments_before" => before = Some(v),
                "variations" => vars = Some(v),
                // Derived from `comments`, which are read.
                "commands" => {}
                _ => r.unknown(key, v, "a move"),
            }
        }
        let san_text = san.and_then(as_str);
        let uci_text = uci.and_then(as_str);
        // The move as written: `san`, else `uci` (read as long algebraic).
        let (written, at) = match (&san_text, &uci_text) {
            (Some(s), _) if !s.is_empty() => (s.as_str(), san.map_or(mv.at, |v| v.at)),
            (_, Some(u)) => (u.as_str(), uci.map_or(mv.at, |v| v.at)),
            _ => ("", mv.at),
        };
        let ply = if written == "--" || written == "0000" {
            PlyMove::Null
        } else {
            match read_san(&pos, written.as_bytes(), &opts) {
                Ok(read) => read.mv,
                Err(e) => {
                    return Err(err(
                        e.kind.into(),
                        at,
                        format!("move `{}`: {e}", excerpt(written)),
                    ));
                }
            }
        };
        let canonical = write_san(&pos, ply);
        let node = game.tree.add_child(
            parent,
            Ply {
                mv: ply,
                san: canonical,
                written: None,
            },
        );
        let nags = r.nags(nags);
        let after_c = r.comments("comments", after);
        let before_c = r.comments("comments_before", before);
        let n = game.tree.node_mut(node);
        n.nags = nags;
        n.comments_after = after_c;
        n.comments_before = before_c;
        let next = play_ply(&pos, ply);
        // Main line continues after the variations of this move (pushed
        // first so they are built first: they are this node's siblings).
        stack.push((line_id, i + 1, node, next));
        match vars {
            Some(v) if matches!(v.kind, Kind::Array(..)) => {
                let vars: Vec<Val<'_>> = doc.items(v).collect();
                for var in vars.into_iter().rev() {
                    if matches!(var.kind, Kind::Array(..)) {
                        lines.push(doc.items(var).collect());
                        stack.push((lines.len() - 1, 0, parent, pos.clone()));
                    } else {
                        r.wrong_type("variations", var, "a list of moves");
                    }
                }
            }
            Some(v) if !is_null(v) => r.wrong_type("variations", v, "a list of variations"),
            _ => {}
        }
    }
    let mut warnings = r.warnings;
    warnings.sort_by_key(|w| w.at);
    if r.more.warnings > 0 {
        let mut w = warn(
            Code::Loss,
            line.len(),
            r.more.message("the reader", "record"),
        );
        w.not_listed = Some(r.more);
        warnings.push(w);
    }
    Ok((game, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{read_games, write_game_json};

    #[test]
    fn json_lines_read_back_to_the_same_game() {
        let pgn = b"[Event \"x\"]\n[White \"A\"]\n\n{start} 1. e4 $1 {good} (1. d4 d5 (1... Nf6) 2. c4) 1... e5 2. Nf3 Nc6 1-0\n\n\
[FEN \"8/8/8/8/8/8/4P3/K1k5 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 *\n";
        let (games, problems) = read_games(pgn);
        assert!(problems.is_empty(), "{problems:?}");
        for game in &games {
            let mut text = String::new();
            write_game_json(game, &crate::pgn::json::no_commands, &mut text);
            let (back, warnings) = read_game(text.trim_end()).expect("reads");
            assert_eq!(&back, game, "{text}");
            assert!(warnings.is_empty(), "{warnings:?}");
        }
        assert_eq!(
            read_game("{\"moves\":[{\"san\":\"e5\"}]}")
                .unwrap_err()
                .code,
            Code::IllegalMove
        );
        assert_eq!(
            read_game("{\"moves\":[{\"san\":\"Zz9\"}]}")
                .unwrap_err()
                .code,
            Code::SanSyntax
        );
        assert_eq!(read_game("[1,2").unwrap_err().code, Code::Syntax);
    }

    #[test]
    fn unknown_members_and_bad_nags_are_warned_with_their_offset() {
        let line = r#"{"tags":[],"foo":1,"moves":[{"san":"e4","bar":[1,2],"nags":[1,300,"x",-1,2]},{"san":"e5","variations":[[{"san":"c5","baz\u0000":true}]]}],"result":null}"#;
        let (game, warnings) = read_game(line).expect("reads");
        let node = game.tree.root().main_child().expect("e4");
        assert_eq!(game.tree.node(node).nags, vec![1, 2]);
        let shown: Vec<(usize, Code, &str)> = warnings
            .iter()
            .map(|w| (w.at, w.code, w.message.as_str()))
            .collect();
        let at = |s: &str| line.find(s).unwrap();
        assert_eq!(
            shown,
            vec![
                (
                    at("1,\"moves"),
                    Code::Loss,
                    "unknown member `foo` of a game: dropped (the game model has no place for it)"
                ),
                (
                    at("[1,2]"),
                    Code::Loss,
                    "unknown member `bar` of a move: dropped (the game model has no place for it)"
                ),
                (
                    at("300"),
                    Code::Value,
                    "NAG `300` is not a number 0-255: dropped"
                ),
                (
                    at("\"x\""),
                    Code::Value,
                    "NAG `\"x\"` is not a number 0-255: dropped"
                ),
                (
                    at("-1"),
                    Code::Value,
                    "NAG `-1` is not a number 0-255: dropped"
                ),
                (
                    at("true"),
                    Code::Loss,
                    "unknown member `baz\\0` of a move: dropped (the game model has no place for it)"
                ),
            ]
        );
        assert!(warnings.iter().all(|w| w.severity == Severity::Warning));
        // Members of the wrong type are dropped with a warning too.
        let (_, warnings) = read_game(r#"{"tags":"x","comments":[1],"moves":[]}"#).unwrap();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0].at, 8);
    }

    #[test]
    fn errors_point_at_the_fault() {
        let line = r#"{"moves":[{"san":"e4"},{"san":e5}]}"#;
        let e = read_game(line).unwrap_err();
        assert_eq!((e.code, e.at), (Code::Syntax, line.find("e5").unwrap()));
        assert_eq!(e.message, "expected value: `e5}]}`");
        let line = r#"{"moves":[{"san":"e4"},{"san":"e4"}]}"#;
        let e = read_game(line).unwrap_err();
        assert_eq!(
            (e.code, e.at),
            (Code::IllegalMove, line.rfind("\"e4").unwrap())
        );
        assert!(e.message.starts_with("move `e4`: "), "{}", e.message);
        let e = read_game(r#"{"tags":[["a"]]}"#).unwrap_err();
        assert_eq!(
            (e.at, e.message.as_str()),
            (9, "a tag must be [name, value]: `[\"a\"]`")
        );
        let e = read_game(r#"{"result":"2-0"}"#).unwrap_err();
        assert_eq!(
            (e.at, e.message.as_str()),
            (10, "result `2-0`: not a PGN result")
        );
        let e = read_game("{\"a\":1").unwrap_err();
        assert_eq!(
            (e.at, e.message.as_str()),
            (6, "EOF while parsing an object (at the end of the line)")
        );
        // A move given by `uci` alone reads.
        let (g, _) = read_game(r#"{"moves":[{"uci":"e2e4"}]}"#).unwrap();
        assert_eq!(g.tree.len(), 2);
    }

    /// A line with a warning at every move lists the first MAX_LISTED and
    /// counts the rest in one message (memory stays bounded).
    #[test]
    fn warnings_past_the_bound_are_counted() {
        let n = MAX_LISTED + 500;
        let moves = vec![
            r#"{"san":"Nf3","x":1},{"san":"Nf6","x":1},{"san":"Ng1","x":1},{"san":"Ng8","x":1}"#;
            n / 4 + 1
        ];
        let line = format!("{{\"moves\":[{}]}}", moves.join(","));
        let (_, warnings) = read_game(&line).unwrap();
        assert_eq!(warnings.len(), MAX_LISTED + 1);
        let last = warnings.last().unwrap();
        assert_eq!(
            last.not_listed.map(|n| n.warnings),
            Some((n / 4 + 1) as u64 * 4 - MAX_LISTED as u64)
        );
    }
}
