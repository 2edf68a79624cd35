//! The JSON dump (`gamerec convert x.sgf --to json`): flat, like the PGN
//! JSON, so its depth never grows with game length.
//!
//! ```json
//! {"format":"sgf","games":[
//!   [{"properties":[{"id":"FF","values":["4"]}],"variations":[]},
//!    {"properties":[{"id":"B","values":["pd"]}],
//!     "variations":[[{"properties":[{"id":"B","values":["dd"]}],"variations":[]}, ...]]},
//!    ...]
//! ]}
//! ```
//! Each game is its main line, a list of nodes from the root. A node is an
//! object with `properties` (in file order, duplicates kept) and
//! `variations`: the alternatives to this node (its later siblings), each a
//! list of nodes in the same form. Each value is a string (text unescaped
//! and decoded; points as two letters; a pass or an empty value as `""`),
//! or a two-element array of strings for composed values (`LB`, `AR`, `LN`,
//! `AP`, `FG`, `SZ[w:h]`, rectangles `[ul:lr]`). Written iteratively: any
//! depth is fine, and only variations nest.

use super::tree::{Collection, NodeId, Value, format_real};
#[cfg(feature = "io")]
use crate::diag::{Code, Diagnostic, LineIndex, MAX_LISTED, NotListed, Severity};

/// Unknown members met: (offset, message) of the first [`MAX_LISTED`], and
/// how many more.
#[cfg(feature = "io")]
type Unknown = (Vec<(usize, String)>, u64);

/// Dumps the collection as JSON.
pub fn to_json(coll: &Collection) -> String {
    let mut out = String::from("{\"format\":\"sgf\",\"games\":[");
    for (i, &root) in coll.roots.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        node_tree(coll, root, &mut out);
    }
    out.push_str("]}\n");
    out
}

enum Task {
    Raw(&'static str),
    Node(NodeId, bool),
}

fn node_tree(coll: &Collection, root: NodeId, out: &mut String) {
    out.push('[');
    let mut stack = vec![Task::Node(root, true)];
    while let Some(t) = stack.pop() {
        let (n, first) = match t {
            Task::Raw(s) => {
                out.push_str(s);
                continue;
            }
            Task::Node(n, first) => (n, first),
        };
        if !first {
            out.push(',');
        }
        out.push_str("\n{\"properties\":[");
        for (k, p) in coll.properties(n).enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"id\":");
            string(out, p.name());
            out.push_str(",\"values\":[");
            for (j, &v) in p.values().iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                value(coll, v, out);
            }
            out.push_str("]}");
        }
        out.push_str("],\"variations\":[");
        // The alternatives to `n`: its later siblings, if `n` is the main
        // continuation of its parent (a variation's first node has none).
        let variations: Vec<NodeId> = match coll.parent(n) {
            Some(p) if coll.first_child(p) == Some(n) && n != root => {
                coll.children(p).skip(1).collect()
            }
            _ => Vec::new(),
        };
        match coll.first_child(n) {
            Some(next) => stack.push(Task::Node(next, false)),
            None => stack.push(Task::Raw("]")),
        }
        stack.push(Task::Raw("]}"));
        for (i, &v) in variations.iter().enumerate().rev() {
            stack.push(Task::Node(v, true));
            stack.push(Task::Raw("["));
            if i > 0 {
                stack.push(Task::Raw(","));
            }
        }
    }
}

fn value(coll: &Collection, v: Value, out: &mut String) {
    let pair = |out: &mut String, a: &str, b: &str| {
        out.push('[');
        string(out, a);
        out.push(',');
        string(out, b);
        out.push(']');
    };
    match v {
        Value::Rect(a, b) | Value::PointPair(a, b) => pair(out, &a.to_string(), &b.to_string()),
        Value::Label(p, s) => pair(out, &p.to_string(), coll.str(s)),
        Value::Figure(n, s) => pair(out, &n.to_string(), coll.str(s)),
        Value::Application(a, b) => pair(out, coll.str(a), coll.str(b)),
        Value::Size(w, h) => pair(out, &w.to_string(), &h.to_string()),
        Value::Real(r) => string(out, &format_real(r)),
        other => string(out, &coll.value_text(other)),
    }
}

/// Writes a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    crate::json_text::push_string(s, out);
}

/// Whether `bytes` look like the JSON dump of an SGF collection
/// ([`to_json`]): a JSON object whose first member is `"format":"sgf"`.
pub fn is_sgf_json(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact.starts_with("{\"format\":\"sgf\"")
}

/// The SGF text of a JSON dump written by [`to_json`] (values typed again
/// by parsing it: `parse(from_json(to_json(c))) == c`). An error says what
/// in the JSON is not the dump's shape. Read and written without recursion,
/// so a tree whose variations nest to any depth reads back (`serde_json`
/// stops at 128 levels of JSON: about 60 nested variations).
#[cfg(feature = "io")]
pub fn from_json(json: &str) -> Result<String, String> {
    from_json_reporting(json).map(|(sgf, _)| sgf)
}

/// [`from_json`], and a warning for each member the dump does not hold
/// (dropped: SGF has no place for it), placed at its value.
#[cfg(feature = "io")]
pub fn from_json_reporting(json: &str) -> Result<(String, Vec<Diagnostic>), String> {
    let doc = Doc::parse(json).map_err(|e| format!("not JSON: {e}"))?;
    let root = doc.root;
    let mut unknown: Unknown = (Vec::new(), 0);
    doc.unknown_members(root, &["format", "games"], "the dump", &mut unknown);
    if doc.member(root, "format").and_then(|v| doc.str(v)) != Some("sgf") {
        return Err("not an SGF dump: no \"format\":\"sgf\"".into());
    }
    let games = doc
        .member(root, "games")
        .and_then(|v| doc.array(v))
        .ok_or("no \"games\" list")?;
    let mut out = String::new();
    for (k, &game) in games.iter().enumerate() {
        let nodes = doc
            .array(game)
            .ok_or_else(|| format!("game {}: not a list of nodes", k + 1))?;
        out.push('(');
        let ff = root_ff(&doc, nodes);
        write_game(&doc, game, ff, &mut out, &mut unknown)
            .map_err(|e| format!("game {}: {e}", k + 1))?;
        out.push_str(")\n");
    }
    let (mut listed, more) = unknown;
    if listed.is_empty() {
        return Ok((out, Vec::new()));
    }
    listed.sort_by_key(|u| u.0);
    let index = LineIndex::new(json.as_bytes());
    let mut warnings: Vec<Diagnostic> = listed
        .into_iter()
        .map(|(at, message)| {
            Diagnostic::new(Severity::Warning, index.line_col(at as u64), message)
                .with_offset(at as u64)
                .with_code(Code::Loss)
        })
        .collect();
    if more > 0 {
        // Placed at the end of the file.
        let n = NotListed {
            errors: 0,
            warnings: more,
        };
        let end = json.len() as u64;
        let mut d = Diagnostic::new(
            Severity::Warning,
            index.line_col(end),
            n.message("the reader", "file"),
        )
        .with_offset(end)
        .with_code(Code::Loss);
        d.not_listed = Some(Box::new(n));
        warnings.push(d);
    }
    Ok((out, warnings))
}

/// A JSON document held flat: values in one arena, containers by index, so
/// neither reading nor dropping it recurses.
#[cfg(feature = "io")]
struct Doc {
    values: Vec<J>,
    /// Where each value starts.
    starts: Vec<usize>,
    root: usize,
}

#[cfg(feature = "io")]
enum J {
    Str(String),
    Array(Vec<usize>),
    Object(Vec<(String, usize)>),
    /// A number, `true`, `false` or `null`.
    Other,
}

#[cfg(feature = "io")]
impl Doc {
    fn str(&self, v: usize) -> Option<&str> {
        match &self.values[v] {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    fn array(&self, v: usize) -> Option<&[usize]> {
        match &self.values[v] {
            J::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Notes (offset, message) for each member of object `v` not in `known`
    /// (past [`MAX_LISTED`], only counted).
    fn unknown_members(&self, v: usize, known: &[&str], of: &str, out: &mut Unknown) {
        if let J::Object(m) = &self.values[v] {
            for (k, i) in m {
                if !known.contains(&k.as_str()) {
                    if out.0.len() >= MAX_LISTED {
                        out.1 += 1;
                        continue;
                    }
                    let name = crate::excerpt::excerpt(k);
                    out.0.push((
                        self.starts[*i],
                        format!(
                            "unknown member `{name}` of {of}: dropped (SGF has no place for it)"
                        ),
                    ));
                }
            }
        }
    }

    fn member(&self, v: usize, name: &str) -> Option<usize> {
        match &self.values[v] {
            J::Object(m) => m.iter().find(|(k, _)| k == name).map(|&(_, i)| i),
            _ => None,
        }
    }

    /// Parses `text` with an explicit stack of open containers.
    fn parse(text: &str) -> Result<Doc, String> {
        enum Open {
            Array(Vec<usize>),
            /// Members, and the name of the one whose value comes next.
            Object(Vec<(String, usize)>, String),
        }
        let b = text.as_bytes();
        let at = |pos: usize, what: &str| {
            let pos = pos.min(b.len());
            let line = b[..pos].iter().filter(|&&c| c == b'\n').count() + 1;
            let column = pos
                - b[..pos]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |i| i + 1)
                + 1;
            let line_end = memchr::memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i);
            let rest = &b[pos..line_end];
            if rest.is_empty() {
                format!("{what} at line {line}:{column} (byte {pos}), at the end of the line")
            } else {
                let shown = crate::excerpt::excerpt(rest);
                format!("{what} at line {line}:{column} (byte {pos}): `{shown}`")
            }
        };
        let mut values: Vec<J> = Vec::new();
        let mut starts: Vec<usize> = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        // Where the open containers start, and the value finished now.
        let mut open_at: Vec<usize> = Vec::new();
        let mut start;
        let mut pos = skip_ws(b, 0);
        let mut want_value = true;
        loop {
            // The value finished here, if any.
            let done = if want_value {
                if let Some(Open::Object(_, name)) = stack.last_mut() {
                    if b.get(pos) != Some(&b'"') {
                        return Err(at(pos, "expected a member name"));
                    }
                    let (k, next) = json_string(b, pos).map_err(|e| at(pos, &e))?;
                    pos = skip_ws(b, next);
                    if b.get(pos) != Some(&b':') {
                        return Err(at(pos, "expected ':'"));
                    }
                    pos = skip_ws(b, pos + 1);
                    *name = k;
                }
                start = pos;
                match b.get(pos) {
                    None => return Err(at(pos, "unexpected end")),
                    Some(&open @ (b'[' | b'{')) => {
                        pos = skip_ws(b, pos + 1);
                        let empty = b.get(pos) == Some(if open == b'[' { &b']' } else { &b'}' });
                        if empty {
                            pos += 1;
                            Some(if open == b'[' {
                                J::Array(Vec::new())
                            } else {
                                J::Object(Vec::new())
                            })
                        } else {
                            open_at.push(start);
                            stack.push(if open == b'[' {
                                Open::Array(Vec::new())
                            } else {
                                Open::Object(Vec::new(), String::new())
                            });
                            continue;
                        }
                    }
                    Some(b'"') => {
                        let (s, next) = json_string(b, pos).map_err(|e| at(pos, &e))?;
                        pos = next;
                        Some(J::Str(s))
                    }
                    Some(_) => {
                        let end = b[pos..]
                            .iter()
                            .position(|c| !matches!(c, b'0'..=b'9' | b'a'..=b'z' | b'+' | b'-' | b'.' | b'E'))
                            .map_or(b.len(), |n| pos + n);
                        let word = &text[pos..end];
                        let number = word.starts_with(|c: char| c == '-' || c.is_ascii_digit())
                            && word.parse::<f64>().is_ok();
                        if !(number || matches!(word, "true" | "false" | "null")) {
                            return Err(at(pos, "expected a value"));
                        }
                        pos = end;
                        Some(J::Other)
                    }
                }
            } else {
                let close = match (stack.last(), b.get(pos)) {
                    (Some(_), Some(b',')) => {
                        pos = skip_ws(b, pos + 1);
                        want_value = true;
                        continue;
                    }
                    (Some(Open::Array(_)), Some(b']')) | (Some(Open::Object(..)), Some(b'}')) => {
                        true
                    }
                    _ => false,
                };
                if !close {
                    return Err(at(pos, "expected ',' or the end of the list or object"));
                }
                pos += 1;
                start = open_at.pop().unwrap_or(0);
                match stack.pop() {
                    Some(Open::Array(items)) => Some(J::Array(items)),
                    Some(Open::Object(members, _)) => Some(J::Object(members)),
                    None => None,
                }
            };
            if let Some(v) = done {
                values.push(v);
                starts.push(start);
                let v = values.len() - 1;
                match stack.last_mut() {
                    None => {
                        pos = skip_ws(b, pos);
                        if pos != b.len() {
                            return Err(at(pos, "trailing characters"));
                        }
                        return Ok(Doc {
                            values,
                            starts,
                            root: v,
                        });
                    }
                    Some(Open::Array(items)) => items.push(v),
                    Some(Open::Object(members, name)) => members.push((std::mem::take(name), v)),
                }
            }
            pos = skip_ws(b, pos);
            want_value = false;
        }
    }
}

#[cfg(feature = "io")]
fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// The JSON string starting at `b[pos]` (a `"`), unescaped, and the
/// position after it.
#[cfg(feature = "io")]
fn json_string(b: &[u8], pos: usize) -> Result<(String, usize), String> {
    let mut out = Vec::new();
    let mut i = pos + 1;
    let hex4 = |i: usize| -> Result<u32, String> {
        b.get(i..i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| "bad \\u escape".to_string())
    };
    loop {
        let run = b[i.min(b.len())..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            .ok_or("unterminated string")?;
        out.extend_from_slice(&b[i..i + run]);
        i += run;
        match b[i] {
            b'"' => break,
            b'\\' => {
                let c = *b.get(i + 1).ok_or("unterminated string")?;
                i += 2;
                let ch = match c {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let hi = hex4(i)?;
                        i += 4;
                        let code = if (0xd800..0xdc00).contains(&hi)
                            && b.get(i..i + 2) == Some(b"\\u")
                            && let Ok(lo) = hex4(i + 2)
                            && (0xdc00..0xe000).contains(&lo)
                        {
                            i += 6;
                            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                        } else {
                            hi
                        };
                        char::from_u32(code).ok_or("a lone surrogate in a \\u escape")?
                    }
                    _ => return Err("bad escape".into()),
                };
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err("control character in a string".into()),
        }
    }
    // The input is a `str` and runs are cut at ASCII bytes: still UTF-8.
    let s = String::from_utf8(out).map_err(|_| "not UTF-8".to_string())?;
    Ok((s, i + 1))
}

/// The `FF` of a game's root node in the dump (1 without one, as the
/// parser reads it): `TM` is text before FF\[4\].
#[cfg(feature = "io")]
fn root_ff(doc: &Doc, nodes: &[usize]) -> u32 {
    let props = nodes
        .first()
        .and_then(|&root| doc.member(root, "properties"))
        .and_then(|p| doc.array(p))
        .unwrap_or_default();
    props
        .iter()
        .find(|&&p| doc.member(p, "id").and_then(|v| doc.str(v)) == Some("FF"))
        .and_then(|&p| doc.member(p, "values"))
        .and_then(|v| doc.array(v)?.first().copied())
        .and_then(|v| doc.str(v)?.trim().parse().ok())
        .unwrap_or(1)
}

/// Writes a game's nodes (a list): a node with variations (its later
/// siblings) opens them there, after the rest of its line. An explicit
/// stack of what is left to write, so any nesting depth is fine.
#[cfg(feature = "io")]
fn write_game(
    doc: &Doc,
    game: usize,
    ff: u32,
    out: &mut String,
    unknown: &mut Unknown,
) -> Result<(), String> {
    enum Task {
        /// The nodes of a list from `from` on; whether its first node may
        /// have variations.
        Line(usize, usize, bool),
        Close,
        Open,
    }
    let mut stack = vec![Task::Line(game, 0, false)];
    while let Some(task) = stack.pop() {
        let (list, from, may_branch) = match task {
            Task::Close => {
                out.push(')');
                continue;
            }
            Task::Open => {
                out.push('(');
                continue;
            }
            Task::Line(list, from, may_branch) => (list, from, may_branch),
        };
        let nodes = doc.array(list).ok_or("a variation: not a list of nodes")?;
        for (i, &node) in nodes.iter().enumerate().skip(from) {
            let variations = match doc.member(node, "variations") {
                None => &[][..],
                Some(v) => doc.array(v).ok_or("variations: not a list")?,
            };
            if (i > from || may_branch) && !variations.is_empty() {
                out.push('(');
                write_node(doc, node, ff, out, unknown)?;
                for &v in variations.iter().rev() {
                    stack.extend([Task::Close, Task::Line(v, 0, false), Task::Open]);
                }
                stack.extend([Task::Close, Task::Line(list, i + 1, true)]);
                break;
            }
            write_node(doc, node, ff, out, unknown)?;
        }
    }
    Ok(())
}

/// Writes one node: `;` and its properties.
#[cfg(feature = "io")]
fn write_node(
    doc: &Doc,
    node: usize,
    ff: u32,
    out: &mut String,
    unknown: &mut Unknown,
) -> Result<(), String> {
    out.push(';');
    doc.unknown_members(node, &["properties", "variations"], "a node", unknown);
    let props = doc
        .member(node, "properties")
        .and_then(|p| doc.array(p))
        .ok_or("a node without a \"properties\" list")?;
    for &p in props {
        doc.unknown_members(p, &["id", "values"], "a property", unknown);
        let id = doc
            .member(p, "id")
            .and_then(|v| doc.str(v))
            .ok_or("a property without an id")?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(format!("property id {id:?}: not letters"));
        }
        let values = doc
            .member(p, "values")
            .and_then(|v| doc.array(v))
            .ok_or_else(|| format!("property {id}: no values list"))?;
        if values.is_empty() {
            continue;
        }
        out.push_str(id);
        for &v in values {
            out.push('[');
            if let Some(s) = doc.str(v) {
                string_value(id, ff, s, out);
            } else if let Some(&[a, b]) = doc.array(v) {
                for (j, part) in [a, b].into_iter().enumerate() {
                    if j > 0 {
                        out.push(':');
                    }
                    let part = doc.str(part).ok_or_else(|| {
                        format!("property {id}: a composed value's part is not a string")
                    })?;
                    super::writer::escape(out, part, true);
                }
            } else {
                return Err(format!("property {id}: a value is not a string or a pair"));
            }
            out.push(']');
        }
    }
    Ok(())
}

#[cfg(feature = "io")]
/// Whether `s` can stand between brackets as it is: every `]` escaped, no
/// `\` left without the character it escapes.
fn is_raw_text(s: &str) -> bool {
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' if bytes.next().is_none() => return false,
            b']' => return false,
            _ => {}
        }
    }
    true
}

/// Writes one string value of property `id`. Values of text properties are
/// decoded text, escaped again here; any other string value is either one
/// without `\` or `]` (a point, a number...) or one the dump holds verbatim
/// (an unknown property, a malformed value, another game's move): the text
/// between the brackets as written, so it is written as it is. (Escaping it
/// again would add a level of escapes at each round trip.)
#[cfg(feature = "io")]
fn string_value(id: &str, ff: u32, s: &str, out: &mut String) {
    use super::props::{Prop, ValueType};
    let prop = Prop::from_ident(id.as_bytes());
    let text = prop != Prop::Unknown
        && (matches!(prop.value_type(), ValueType::Text | ValueType::SimpleText)
            || (prop == Prop::TM && ff < 4));
    if prop == Prop::CA {
        // The dump's text is Unicode, written here as UTF-8 whatever the
        // charset it was read from.
        out.push_str("UTF-8");
    } else if !text && is_raw_text(s) {
        out.push_str(s);
    } else {
        super::writer::escape(out, s, false);
    }
}

#[cfg(all(test, feature = "io"))]
mod tests {
    use super::*;
    use crate::sgf::{ParseOptions, parse};

    /// A long game stays shallow: serde_json (recursion limit 128) reads a
    /// 400-move game, and variations hang off the node they replace.
    #[test]
    fn json_is_flat_whatever_the_game_length() {
        let mut s = String::from("(;GM[1]SZ[19]");
        for i in 0..400 {
            s.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[ss]" });
        }
        s.push(')');
        let p = parse(s.as_bytes(), &ParseOptions::default());
        let v: serde_json::Value = serde_json::from_str(&to_json(&p.collection)).expect("JSON");
        assert_eq!(v["games"][0].as_array().map(Vec::len), Some(401));
        let p = parse(b"(;GM[1](;B[aa];W[bb])(;B[cc]))", &ParseOptions::default());
        let v: serde_json::Value = serde_json::from_str(&to_json(&p.collection)).expect("JSON");
        let game = &v["games"][0];
        assert_eq!(game.as_array().map(Vec::len), Some(3), "{game}");
        assert_eq!(game[1]["properties"][0]["values"][0], "aa");
        assert_eq!(
            game[1]["variations"][0][0]["properties"][0]["values"][0],
            "cc"
        );
        assert_eq!(game[2]["properties"][0]["values"][0], "bb");
        assert_eq!(game[0]["variations"].as_array().map(Vec::len), Some(0));
    }

    /// The dump reads back: every corpus-like shape (variations at several
    /// depths, composed values, escapes) gives the same collection.
    #[test]
    fn json_reads_back_as_the_same_collection() {
        let texts: [&[u8]; 3] = [
            b"(;GM[1]FF[4]SZ[19:13]C[a \\] b: c]AP[x\\:y:1.0](;B[aa]LB[bb:x\\:y](;W[bb])(;W[cc];B[dd]))(;B[ee];W[]))",
            b"(;GM[1]FF[4]AB[aa:cc]KM[6.5];B[dd](;W[ee];B[ff](;W[gg])(;W[hh]))(;W[ii]))\n(;GM[2]SZ[8];B[dc])",
            b"(;FF[3]GM[1]XY[unknown][two];B[tt])",
        ];
        for text in texts {
            let p = parse(text, &ParseOptions::default());
            let json = to_json(&p.collection);
            assert!(is_sgf_json(json.as_bytes()));
            let back = from_json(&json).expect("the dump reads back");
            let q = parse(back.as_bytes(), &ParseOptions::default());
            assert!(q.collection == p.collection, "{back}\nfrom {json}");
        }
        assert!(!is_sgf_json(b"{\"white\":\"x\"}"));
        assert!(from_json("{\"format\":\"sgf\",\"games\":[[{\"properties\":7}]]}").is_err());
    }

    /// Values the dump holds verbatim (unknown properties, malformed values,
    /// another game's moves) read back as written, escapes and all, however
    /// many times they go round; text read in another charset reads back as
    /// the same text (the SGF written is UTF-8).
    #[test]
    fn verbatim_values_and_charsets_survive_round_trips() {
        let texts: [&[u8]; 5] = [
            b"(;FF[4]GM[1]SZ[19]XY[a\\]b:c\\\\]ZZ[\\x]KM[1\\]5];B[aa]TR[a\\]])",
            b"(;FF[4]GM[3]SZ[8];B[e2\\]e4];W[\\\\])",
            b"(;FF[3]GM[1]TM[1\\\\2\\]h];B[aa])",
            b"(;FF[4]GM[1]SZ[19]CA[ISO-8859-1]C[caf\xe9]PB[\xe9\\]])",
            b"(;FF[4]GM[1]SZ[19]CA[Shift_JIS]PB[\x81\x5c\\]]C[\x82\xa0])",
        ];
        for text in texts {
            let p = parse(text, &ParseOptions::default());
            let mut json = to_json(&p.collection);
            for round in 1..=3 {
                let back = from_json(&json).expect("the dump reads back");
                let q = parse(back.as_bytes(), &ParseOptions::default());
                assert!(
                    q.collection == p.collection,
                    "round {round}: {back}\nfrom {json}"
                );
                json = to_json(&q.collection);
            }
        }
    }

    /// Variations nested 10,000 deep read back. The dump was read with
    /// serde_json, which stops at 128 levels of JSON: a tree nested some
    /// 60 variations deep was "not JSON: recursion limit exceeded". The
    /// JSON read here also keeps its other answers.
    #[test]
    fn deeply_nested_variations_read_back() {
        let n = 10_000;
        let text = format!(
            "(;FF[4]GM[1]SZ[19]{}{})",
            "(;B[aa])(;B[bb]".repeat(n),
            ")".repeat(n)
        );
        let p = parse(text.as_bytes(), &ParseOptions::default());
        let json = to_json(&p.collection);
        let back = from_json(&json).expect("the dump reads back");
        let q = parse(back.as_bytes(), &ParseOptions::default());
        assert!(q.collection == p.collection);

        let ok = r#" {"format" : "sgf", "x": [1, -2.5e3, true, null, {}, []], "games":[[{"properties":[{"id":"C","values":["a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]}]}]]} "#;
        assert_eq!(
            from_json(ok).as_deref(),
            Ok("(;C[a\"\\\\/\u{8}\u{c}\n\r\t\u{e9}\u{1f600}])\n")
        );
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "\"\\x\"",
            "\"\\ud800\"",
            "[1] 2",
            "[01x]",
            "{\"format\":\"sgf\",\"games\":[[{\"properties\":7}]]}",
        ] {
            assert!(from_json(bad).is_err(), "{bad}");
        }
    }

    /// A JSON fault is placed at line:column and quoted (only the line and
    /// byte were given).
    #[test]
    fn json_faults_give_line_column_and_excerpt() {
        let e = from_json("{\"format\":\"sgf\",\n \"games\":[[{\"properties\":[x\u{1}]}]]}")
            .unwrap_err();
        assert_eq!(
            e,
            "not JSON: expected a value at line 2:27 (byte 43): `x\\x01]}]]}`"
        );
        let e = from_json("{\"format\":\"sgf\"").unwrap_err();
        assert_eq!(
            e,
            "not JSON: expected ',' or the end of the list or object at line 1:16 (byte 15), at the end of the line"
        );
    }

    /// Members the dump does not hold are warned, at their value (they
    /// were dropped silently).
    #[test]
    fn unknown_members_are_warned() {
        let json = "{\"format\":\"sgf\",\"x\":[1],\"games\":[[{\"properties\":[{\"id\":\"GM\",\"values\":[\"1\"],\"y\":2}],\n\"z\":{}}]]}";
        let (sgf, warnings) = from_json_reporting(json).unwrap();
        assert_eq!(sgf, "(;GM[1])\n");
        let shown: Vec<(u64, u64, &str)> = warnings
            .iter()
            .map(|d| (d.location.line, d.location.column, d.message.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    1,
                    21,
                    "unknown member `x` of the dump: dropped (SGF has no place for it)"
                ),
                (
                    1,
                    80,
                    "unknown member `y` of a property: dropped (SGF has no place for it)"
                ),
                (
                    2,
                    5,
                    "unknown member `z` of a node: dropped (SGF has no place for it)"
                ),
            ]
        );
    }

    /// Past MAX_LISTED, unknown members are counted in one message.
    #[test]
    fn unknown_members_past_the_bound_are_counted() {
        let node = r#"{"properties":[],"x":1}"#;
        let nodes = vec![node; MAX_LISTED + 7];
        let json = format!("{{\"format\":\"sgf\",\"games\":[[{}]]}}", nodes.join(","));
        let (_, warnings) = from_json_reporting(&json).unwrap();
        assert_eq!(warnings.len(), MAX_LISTED + 1);
        assert_eq!(warnings.last().unwrap().counts(), (0, 7));
    }
}
