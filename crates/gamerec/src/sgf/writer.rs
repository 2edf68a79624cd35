//! Writes a [`Collection`] as SGF text (UTF-8).
//!
//! The output keeps each game's own `FF` (run [`super::upgrade`] first for
//! FF\[4\]), escapes `\` and `]` in every text and `:` in composed texts,
//! keeps compressed point lists unless asked, and breaks lines tidily: the
//! root node on its own line(s), moves wrapped at about 80 columns, each
//! variation on a new line. Texts are written in UTF-8; a `CA` property is
//! written as `CA[UTF-8]`, and added to a root whose game has non-ASCII text.

use super::props::Prop;
use super::tree::{Collection, NodeId, Value, format_real};

/// Options for [`write`].
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// Expand compressed point lists `[aa:cc]` into single points.
    pub expand_point_lists: bool,
    /// Wrap move sequences after about this many columns.
    pub line_width: usize,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            expand_point_lists: false,
            line_width: 79,
        }
    }
}

/// Writes the collection as SGF text.
pub fn write_to_string(coll: &Collection, options: &WriteOptions) -> String {
    let mut w = Writer {
        coll,
        opts: options,
        out: String::with_capacity(coll.node_count() * 8 + coll.text.len() + 64),
        col: 0,
        ff: 4,
        small_board: true,
    };
    for (i, &root) in coll.roots.iter().enumerate() {
        if i > 0 {
            w.out.push('\n');
        }
        w.game(root);
        w.out.push('\n');
        // Each game starts at column 0: line breaks inside a game must not
        // depend on the games before it.
        w.col = 0;
    }
    w.out
}

/// Writes the game tree under `root` alone as SGF text (no newline after
/// it), as [`write_to_string`] writes it in its collection.
pub fn write_game(coll: &Collection, root: NodeId, options: &WriteOptions) -> String {
    let mut w = Writer {
        coll,
        opts: options,
        out: String::new(),
        col: 0,
        ff: 4,
        small_board: true,
    };
    w.game(root);
    w.out
}

/// Writes the collection as SGF bytes (UTF-8).
pub fn write(coll: &Collection, options: &WriteOptions) -> Vec<u8> {
    write_to_string(coll, options).into_bytes()
}

struct Writer<'a> {
    coll: &'a Collection,
    opts: &'a WriteOptions,
    out: String,
    col: usize,
    ff: u32,
    small_board: bool,
}

enum Task {
    Tree(NodeId),
    Close,
}

impl Writer<'_> {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
        self.col += s.len();
    }

    fn newline(&mut self) {
        if self.col > 0 {
            self.out.push('\n');
            self.col = 0;
        }
    }

    fn game(&mut self, root: NodeId) {
        let info = self.coll.game_info(root);
        self.ff = info.ff;
        // `[tt]` reads back as a pass only in games whose moves are letter
        // points (Go, Othello); elsewhere a pass stays `[]`.
        self.small_board = info.letter_points() && info.width <= 19 && info.height <= 19;
        let mut stack = vec![Task::Tree(root)];
        while let Some(task) = stack.pop() {
            match task {
                Task::Close => {
                    self.push(")");
                }
                Task::Tree(start) => {
                    if start != root {
                        self.newline();
                    }
                    self.push("(");
                    let mut n = start;
                    loop {
                        self.node(n, n == root);
                        let mut children = self.coll.children(n);
                        let first = children.next();
                        let second = children.next();
                        match (first, second) {
                            (None, _) => {
                                self.push(")");
                                break;
                            }
                            (Some(c), None) => n = c,
                            (Some(_), Some(_)) => {
                                stack.push(Task::Close);
                                let all: Vec<NodeId> = self.coll.children(n).collect();
                                for &c in all.iter().rev() {
                                    stack.push(Task::Tree(c));
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    fn node(&mut self, id: NodeId, is_root: bool) {
        if self.col >= self.opts.line_width {
            self.newline();
        }
        self.push(";");
        if is_root {
            let has_ca = self.coll.get(id, Prop::CA).is_some();
            if !has_ca && self.needs_charset(id) {
                self.push("CA[UTF-8]");
            }
        }
        let mut buf = String::new();
        for p in self.coll.properties(id) {
            buf.clear();
            buf.push_str(p.name());
            if p.prop() == Prop::CA {
                buf.push_str("[UTF-8]");
            } else {
                for &v in p.values() {
                    self.value(&mut buf, p.prop(), v);
                }
            }
            if self.col > 0
                && self.col + buf.len() > self.opts.line_width + 1
                && (is_root || buf.contains('\n'))
            {
                self.newline();
            }
            self.out.push_str(&buf);
            match buf.rfind('\n') {
                Some(i) => self.col = buf.len() - i - 1,
                None => self.col += buf.len(),
            }
        }
        if is_root {
            self.newline();
        }
    }

    /// Whether the game under `root` has any non-ASCII text.
    fn needs_charset(&self, root: NodeId) -> bool {
        self.coll.preorder(root).any(|n| {
            self.coll.properties(n).any(|p| {
                p.values().iter().any(|v| match *v {
                    Value::Text(s) | Value::Raw(s) | Value::Label(_, s) | Value::Figure(_, s) => {
                        !self.coll.str(s).is_ascii()
                    }
                    Value::Application(a, b) => {
                        !self.coll.str(a).is_ascii() || !self.coll.str(b).is_ascii()
                    }
                    _ => false,
                })
            })
        })
    }

    fn value(&self, buf: &mut String, prop: Prop, v: Value) {
        let c = self.coll;
        match v {
            Value::Rect(a, b) if self.opts.expand_point_lists => {
                for y in a.y.min(b.y)..=a.y.max(b.y) {
                    for x in a.x.min(b.x)..=a.x.max(b.x) {
                        let [p, q] = super::tree::Point::new(x, y).letters();
                        buf.push('[');
                        buf.push(p as char);
                        buf.push(q as char);
                        buf.push(']');
                    }
                }
                return;
            }
            _ => {}
        }
        buf.push('[');
        match v {
            Value::None => {}
            Value::Pass => {
                if self.ff < 4 && self.small_board {
                    buf.push_str("tt");
                }
            }
            Value::Number(n) => buf.push_str(&n.to_string()),
            Value::Real(r) => buf.push_str(&format_real(r)),
            Value::Double(d) => buf.push_str(&d.to_string()),
            Value::Color(col) => buf.push(col.letter()),
            Value::Text(s) => escape(buf, c.str(s), false),
            Value::Raw(s) => buf.push_str(c.str(s)),
            Value::Point(p) => {
                let [a, b] = p.letters();
                buf.push(a as char);
                buf.push(b as char);
            }
            Value::Rect(a, b) | Value::PointPair(a, b) => {
                buf.push_str(&format!("{a}:{b}"));
            }
            Value::Label(p, s) => {
                buf.push_str(&p.to_string());
                buf.push(':');
                escape(buf, c.str(s), true);
            }
            Value::Figure(n, s) => {
                buf.push_str(&n.to_string());
                buf.push(':');
                escape(buf, c.str(s), true);
            }
            Value::Application(a, b) => {
                escape(buf, c.str(a), true);
                buf.push(':');
                escape(buf, c.str(b), true);
            }
            Value::Size(w, h) => buf.push_str(&format!("{w}:{h}")),
        }
        let _ = prop;
        buf.push(']');
    }
}

/// Escapes `\`, `]` (and `:` in composed values) for an SGF value.
pub fn escape(buf: &mut String, s: &str, compose: bool) {
    for ch in s.chars() {
        match ch {
            '\\' | ']' => {
                buf.push('\\');
                buf.push(ch);
            }
            ':' if compose => buf.push_str("\\:"),
            c => buf.push(c),
        }
    }
}
