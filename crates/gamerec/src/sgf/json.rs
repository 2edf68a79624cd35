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
/// in the JSON is not the dump's shape.
#[cfg(feature = "io")]
pub fn from_json(json: &str) -> Result<String, String> {
    use serde_json::Value as J;
    let doc: J = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    if doc.get("format").and_then(J::as_str) != Some("sgf") {
        return Err("not an SGF dump: no \"format\":\"sgf\"".into());
    }
    let games = doc
        .get("games")
        .and_then(J::as_array)
        .ok_or("no \"games\" list")?;
    let mut out = String::new();
    for (k, game) in games.iter().enumerate() {
        let nodes = game
            .as_array()
            .ok_or_else(|| format!("game {}: not a list of nodes", k + 1))?;
        out.push('(');
        let ff = root_ff(nodes);
        json_line(nodes, false, ff, &mut out).map_err(|e| format!("game {}: {e}", k + 1))?;
        out.push_str(")\n");
    }
    Ok(out)
}

/// The `FF` of a game's root node in the dump (1 without one, as the
/// parser reads it): `TM` is text before FF\[4\].
#[cfg(feature = "io")]
fn root_ff(nodes: &[serde_json::Value]) -> u32 {
    nodes
        .first()
        .and_then(|root| root.get("properties")?.as_array())
        .and_then(|props| {
            let ff = props.iter().find(|p| p["id"] == "FF")?;
            ff["values"].get(0)?.as_str()?.trim().parse().ok()
        })
        .unwrap_or(1)
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

/// Writes a line of nodes; a node with variations (its later siblings)
/// opens them there. `may_branch`: whether the first node may have some.
/// `ff`: the game's file format. Nesting follows the JSON's, which
/// serde_json bounds.
#[cfg(feature = "io")]
fn json_line(
    nodes: &[serde_json::Value],
    may_branch: bool,
    ff: u32,
    out: &mut String,
) -> Result<(), String> {
    use serde_json::Value as J;
    for (i, node) in nodes.iter().enumerate() {
        let variations = match node.get("variations") {
            None => &[][..],
            Some(v) => v.as_array().ok_or("variations: not a list")?.as_slice(),
        };
        if (i > 0 || may_branch) && !variations.is_empty() {
            out.push('(');
            json_line(&nodes[i..i + 1], false, ff, out)?;
            json_line(&nodes[i + 1..], true, ff, out)?;
            out.push(')');
            for v in variations {
                let line = v.as_array().ok_or("a variation: not a list of nodes")?;
                out.push('(');
                json_line(line, false, ff, out)?;
                out.push(')');
            }
            return Ok(());
        }
        out.push(';');
        let props = node
            .get("properties")
            .and_then(J::as_array)
            .ok_or("a node without a \"properties\" list")?;
        for p in props {
            let id = p
                .get("id")
                .and_then(J::as_str)
                .ok_or("a property without an id")?;
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(format!("property id {id:?}: not letters"));
            }
            let values = p
                .get("values")
                .and_then(J::as_array)
                .ok_or_else(|| format!("property {id}: no values list"))?;
            if values.is_empty() {
                continue;
            }
            out.push_str(id);
            for v in values {
                out.push('[');
                match v {
                    J::String(s) => string_value(id, ff, s, out),
                    J::Array(pair) if pair.len() == 2 => {
                        for (j, part) in pair.iter().enumerate() {
                            if j > 0 {
                                out.push(':');
                            }
                            let part = part.as_str().ok_or_else(|| {
                                format!("property {id}: a composed value's part is not a string")
                            })?;
                            super::writer::escape(out, part, true);
                        }
                    }
                    _ => return Err(format!("property {id}: a value is not a string or a pair")),
                }
                out.push(']');
            }
        }
    }
    Ok(())
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
}
