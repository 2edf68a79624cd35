//! The JSON tree dump (`gamerec convert x.sgf --to json`).
//!
//! ```json
//! {"format":"sgf","games":[
//!   {"properties":[{"id":"FF","values":["4"]}, ...],
//!    "children":[{"properties":[{"id":"B","values":["pd"]}],"children":[...]}]}
//! ]}
//! ```
//! Each game is its root node; a node is an object with `properties` (in
//! file order, duplicates kept) and `children` (main line first). Each value
//! is a string (text unescaped and decoded; points as two letters; a pass or
//! an empty value as `""`), or a two-element array of strings for composed
//! values (`LB`, `AR`, `LN`, `AP`, `FG`, `SZ[w:h]`, rectangles `[ul:lr]`).
//! Written iteratively: any depth is fine.

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
    Node(NodeId, bool),
    Close,
}

fn node_tree(coll: &Collection, root: NodeId, out: &mut String) {
    let mut stack = vec![Task::Node(root, true)];
    while let Some(t) = stack.pop() {
        match t {
            Task::Close => out.push_str("]}"),
            Task::Node(n, first) => {
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
                out.push_str("],\"children\":[");
                stack.push(Task::Close);
                let children: Vec<NodeId> = coll.children(n).collect();
                for (k, &c) in children.iter().enumerate().rev() {
                    stack.push(Task::Node(c, k == 0));
                }
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
