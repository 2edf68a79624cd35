//! The SGF tree model: one arena per collection.
//!
//! A [`Collection`] owns flat arrays of nodes, properties, values and text;
//! nodes refer to contiguous ranges of properties, properties to contiguous
//! ranges of values, values to ranges of the text buffer. Parsing a file
//! therefore allocates a handful of vectors, not one object per node, and
//! trees of any depth are walked, compared and dropped without recursion.

use std::fmt;

use super::props::{Prop, PropKind, ValueType};

/// Index of a node in its [`Collection`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

pub(crate) const NONE: u32 = u32::MAX;

/// A range of the collection's text buffer (decoded, UTF-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Str {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// A board point: `x` is the column (0 = left), `y` the row (0 = top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// Column, 0-based from the left.
    pub x: u8,
    /// Row, 0-based from the top.
    pub y: u8,
}

impl Point {
    /// The point at column `x`, row `y`.
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }

    /// Parses the two-letter SGF form (`a`..`z` = 0..25, `A`..`Z` = 26..51).
    pub fn from_letters(s: &[u8]) -> Option<Point> {
        if s.len() != 2 {
            return None;
        }
        Some(Point {
            x: letter_value(s[0])?,
            y: letter_value(s[1])?,
        })
    }

    /// The two-letter SGF form.
    pub fn letters(self) -> [u8; 2] {
        [value_letter(self.x), value_letter(self.y)]
    }
}

fn letter_value(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'A'..=b'Z' => Some(c - b'A' + 26),
        _ => None,
    }
}

fn value_letter(v: u8) -> u8 {
    if v < 26 { b'a' + v } else { b'A' + (v - 26) }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b] = self.letters();
        write!(f, "{}{}", a as char, b as char)
    }
}

/// A player colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// Black (`B`).
    Black,
    /// White (`W`).
    White,
}

impl Color {
    /// The other colour.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `B` or `W`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

/// One typed property value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An empty value `[]` (None type, empty elist, FF\[4\] pass).
    None,
    /// A Number.
    Number(i64),
    /// A Real.
    Real(f64),
    /// A Double (or FF\[1\] Triple): 1 normal, 2 emphasised.
    Double(u8),
    /// A Color.
    Color(Color),
    /// Text or SimpleText, decoded and unescaped.
    Text(Str),
    /// A point, move or stone.
    Point(Point),
    /// A pass move (`[]`, or `[tt]` on boards up to 19x19).
    Pass,
    /// A compressed point-list rectangle `[ul:lr]`.
    Rect(Point, Point),
    /// A composed point pair (`AR`, `LN`).
    PointPair(Point, Point),
    /// A label `[point:text]` (`LB`).
    Label(Point, Str),
    /// A figure `[flags:name]` (`FG`).
    Figure(i64, Str),
    /// An application `[name:version]` (`AP`).
    Application(Str, Str),
    /// A rectangular board size `[columns:rows]` (`SZ`).
    Size(u32, u32),
    /// Kept verbatim: the text between the brackets exactly as written
    /// (escapes included), for unknown properties, game-specific values of
    /// games other than Go and Othello, and malformed values.
    Raw(Str),
}

/// One property of a node.
#[derive(Debug, Clone, Copy)]
pub struct Property {
    /// Which property (or [`Prop::Unknown`]).
    pub prop: Prop,
    /// The identifier of an unknown property (uppercase letters only).
    pub(crate) name: Str,
    pub(crate) values_start: u32,
    pub(crate) values_len: u32,
    /// Byte offset of the identifier in the parsed input (0 when built).
    pub offset: u32,
}

/// One node of a game tree.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub(crate) props_start: u32,
    pub(crate) props_len: u32,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) last_child: u32,
    pub(crate) next_sibling: u32,
    /// Byte offset of the node's `;` in the parsed input (0 when built).
    pub offset: u32,
}

/// A collection of game trees (one SGF file).
#[derive(Debug, Clone, Default)]
pub struct Collection {
    pub(crate) nodes: Vec<Node>,
    pub(crate) props: Vec<Property>,
    pub(crate) values: Vec<Value>,
    pub(crate) text: String,
    /// The root node of each game tree, in file order.
    pub roots: Vec<NodeId>,
}

/// A property resolved against its collection.
#[derive(Clone, Copy)]
pub struct PropRef<'a> {
    coll: &'a Collection,
    prop: &'a Property,
}

impl<'a> PropRef<'a> {
    /// Which property.
    pub fn prop(&self) -> Prop {
        self.prop.prop
    }

    /// The identifier as written in FF\[4\] (uppercase).
    pub fn name(&self) -> &'a str {
        match self.prop.prop {
            Prop::Unknown => self.coll.str(self.prop.name),
            p => p.name(),
        }
    }

    /// The values.
    pub fn values(&self) -> &'a [Value] {
        let s = self.prop.values_start as usize;
        &self.coll.values[s..s + self.prop.values_len as usize]
    }

    /// The first value (every property has at least one).
    pub fn value(&self) -> Value {
        self.values().first().copied().unwrap_or(Value::None)
    }

    /// Byte offset of the identifier in the input.
    pub fn offset(&self) -> u32 {
        self.prop.offset
    }

    /// The raw property record.
    pub fn raw(&self) -> &'a Property {
        self.prop
    }
}

/// Game facts read from a root node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameInfo {
    /// `FF` (1 when missing).
    pub ff: u32,
    /// `GM` (1 when missing).
    pub gm: u32,
    /// Board columns (`SZ`; 19 for Go, 8 for Othello when missing).
    pub width: u32,
    /// Board rows.
    pub height: u32,
}

impl GameInfo {
    /// Go or Othello: games whose points are two letters.
    pub fn letter_points(&self) -> bool {
        self.gm == 1 || self.gm == 2
    }
}

impl Collection {
    /// An empty collection.
    pub fn new() -> Collection {
        Collection::default()
    }

    /// Removes everything, keeping the memory.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.props.clear();
        self.values.clear();
        self.text.clear();
        self.roots.clear();
    }

    /// The text of a [`Str`].
    pub fn str(&self, s: Str) -> &str {
        &self.text[s.start as usize..(s.start + s.len) as usize]
    }

    /// Stores `s` and returns its handle.
    pub fn intern(&mut self, s: &str) -> Str {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        Str {
            start,
            len: s.len() as u32,
        }
    }

    /// Number of nodes in all games.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The node record.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The game tree (0-based index into [`Collection::roots`]) that the
    /// byte `offset` of the parsed input belongs to: the one whose root
    /// comes last at or before it (the first game for an offset before any
    /// root). `None` when there is no game. This is how diagnostics are
    /// counted per game (`gamerec check`, the Go tables).
    pub fn game_at(&self, offset: u64) -> Option<usize> {
        if self.roots.is_empty() {
            return None;
        }
        let after = self
            .roots
            .partition_point(|&r| u64::from(self.node(r).offset) <= offset);
        Some(after.saturating_sub(1))
    }

    /// The parent of a node (`None` for a root).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.nodes[id.0 as usize].parent;
        (p != NONE).then_some(NodeId(p))
    }

    /// The first child (the main line continues there).
    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        let c = self.nodes[id.0 as usize].first_child;
        (c != NONE).then_some(NodeId(c))
    }

    /// The next sibling (the next variation).
    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        let c = self.nodes[id.0 as usize].next_sibling;
        (c != NONE).then_some(NodeId(c))
    }

    /// The children of a node, main line first.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            coll: self,
            next: self.nodes[id.0 as usize].first_child,
        }
    }

    /// The properties of a node, in file order.
    pub fn properties(&self, id: NodeId) -> impl ExactSizeIterator<Item = PropRef<'_>> + '_ {
        let n = &self.nodes[id.0 as usize];
        let s = n.props_start as usize;
        self.props[s..s + n.props_len as usize]
            .iter()
            .map(move |prop| PropRef { coll: self, prop })
    }

    /// The first property `prop` of a node.
    pub fn get(&self, id: NodeId, prop: Prop) -> Option<PropRef<'_>> {
        self.properties(id).find(|p| p.prop() == prop)
    }

    /// The first property named `name` (known or unknown) of a node.
    pub fn get_named(&self, id: NodeId, name: &str) -> Option<PropRef<'_>> {
        self.properties(id).find(|p| p.name() == name)
    }

    /// The first value of `prop` as text, if it is a text value.
    pub fn text_of(&self, id: NodeId, prop: Prop) -> Option<&str> {
        match self.get(id, prop)?.value() {
            Value::Text(s) | Value::Raw(s) => Some(self.str(s)),
            _ => None,
        }
    }

    /// The main line of a game: the root and each first child.
    pub fn main_line(&self, root: NodeId) -> Vec<NodeId> {
        self.main_line_nodes(root).collect()
    }

    /// [`Collection::main_line`] as it is walked, without collecting it.
    pub fn main_line_nodes(&self, root: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(Some(root), |&n| self.first_child(n))
    }

    /// The nodes of the tree under `root` in pre-order (file order).
    pub fn preorder(&self, root: NodeId) -> Preorder<'_> {
        Preorder {
            coll: self,
            root: root.0,
            next: root.0,
        }
    }

    /// The root of the game tree containing `id`.
    pub fn root_of(&self, mut id: NodeId) -> NodeId {
        while let Some(p) = self.parent(id) {
            id = p;
        }
        id
    }

    /// Depth of a node below its root.
    pub fn depth(&self, mut id: NodeId) -> usize {
        let mut d = 0;
        while let Some(p) = self.parent(id) {
            id = p;
            d += 1;
        }
        d
    }

    /// FF, GM and board size of the game whose root is `root`.
    pub fn game_info(&self, root: NodeId) -> GameInfo {
        let mut info = GameInfo {
            ff: 1,
            gm: 1,
            width: 0,
            height: 0,
        };
        let mut size = None;
        for p in self.properties(root) {
            match (p.prop(), p.value()) {
                (Prop::FF, Value::Number(n)) if n > 0 => info.ff = n as u32,
                // As the parser reads it: GM[0] (or less) is no known game.
                (Prop::GM, Value::Number(n)) => info.gm = n.clamp(0, 1_000_000) as u32,
                (Prop::SZ, Value::Number(n)) if n > 0 => size = Some((n as u32, n as u32)),
                (Prop::SZ, Value::Size(w, h)) => size = Some((w, h)),
                _ => {}
            }
        }
        let default = if info.gm == 2 { 8 } else { 19 };
        let (w, h) = size.unwrap_or((default, default));
        info.width = w;
        info.height = h;
        info
    }

    // ----- building -----

    /// Appends a node with `props` as the last child of `parent` (or as a
    /// new game root when `parent` is `None`) and returns it.
    pub fn add_node(
        &mut self,
        parent: Option<NodeId>,
        props: &[(Prop, &str, Vec<Value>)],
    ) -> NodeId {
        let props_start = self.props.len() as u32;
        for (prop, name, values) in props {
            let name = if *prop == Prop::Unknown {
                self.intern(name)
            } else {
                Str::default()
            };
            let values_start = self.values.len() as u32;
            self.values.extend_from_slice(values);
            self.props.push(Property {
                prop: *prop,
                name,
                values_start,
                values_len: values.len() as u32,
                offset: 0,
            });
        }
        let id = self.push_node(parent, 0);
        self.nodes[id.0 as usize].props_start = props_start;
        self.nodes[id.0 as usize].props_len = props.len() as u32;
        id
    }

    /// Appends an empty node record linked under `parent`.
    #[inline]
    pub(crate) fn push_node(&mut self, parent: Option<NodeId>, offset: u32) -> NodeId {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            props_start: self.props.len() as u32,
            props_len: 0,
            parent: parent.map_or(NONE, |p| p.0),
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            offset,
        });
        match parent {
            Some(p) => {
                let pn = &mut self.nodes[p.0 as usize];
                let last = pn.last_child;
                pn.last_child = id;
                if last == NONE {
                    pn.first_child = id;
                } else {
                    self.nodes[last as usize].next_sibling = id;
                }
            }
            None => self.roots.push(NodeId(id)),
        }
        NodeId(id)
    }

    /// [`Collection::push_node`] for a node holding one property (pushed
    /// next) under `parent`, which has no child yet. Returns its index.
    #[inline(always)]
    pub(crate) fn push_move_node(&mut self, parent: u32, offset: u32) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            props_start: self.props.len() as u32,
            props_len: 1,
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            offset,
        });
        let pn = &mut self.nodes[parent as usize];
        debug_assert!(pn.first_child == NONE && pn.last_child == NONE);
        pn.first_child = id;
        pn.last_child = id;
        id
    }

    /// Replaces the values of property number `index` of node `id` (the
    /// new values are appended to the value arena).
    pub fn set_values(&mut self, id: NodeId, index: usize, values: &[Value]) {
        let n = self.nodes[id.0 as usize];
        let pi = n.props_start as usize + index;
        let start = self.values.len() as u32;
        self.values.extend_from_slice(values);
        self.props[pi].values_start = start;
        self.props[pi].values_len = values.len() as u32;
    }

    /// A value as SGF-independent display text (`pd`, `5.5`, `aa:bb`...).
    pub fn value_text(&self, v: Value) -> String {
        match v {
            Value::None | Value::Pass => String::new(),
            Value::Number(n) => n.to_string(),
            Value::Real(r) => format_real(r),
            Value::Double(d) => d.to_string(),
            Value::Color(c) => c.letter().to_string(),
            Value::Text(s) | Value::Raw(s) => self.str(s).to_string(),
            Value::Point(p) => p.to_string(),
            Value::Rect(a, b) | Value::PointPair(a, b) => format!("{a}:{b}"),
            Value::Label(p, s) => format!("{p}:{}", self.str(s)),
            Value::Figure(n, s) => format!("{n}:{}", self.str(s)),
            Value::Application(a, b) => format!("{}:{}", self.str(a), self.str(b)),
            Value::Size(w, h) => format!("{w}:{h}"),
        }
    }

    /// Whether two values are equal, resolving text against each collection.
    pub fn value_eq(&self, a: Value, other: &Collection, b: Value) -> bool {
        match (a, b) {
            (Value::Text(x), Value::Text(y)) | (Value::Raw(x), Value::Raw(y)) => {
                self.str(x) == other.str(y)
            }
            (Value::Label(p, x), Value::Label(q, y)) => p == q && self.str(x) == other.str(y),
            (Value::Figure(p, x), Value::Figure(q, y)) => p == q && self.str(x) == other.str(y),
            (Value::Application(a1, a2), Value::Application(b1, b2)) => {
                self.str(a1) == other.str(b1) && self.str(a2) == other.str(b2)
            }
            (Value::Real(x), Value::Real(y)) => x == y || (x.is_nan() && y.is_nan()),
            (x, y) => x == y,
        }
    }

    /// Whether node `a` of `self` and node `b` of `other` carry the same
    /// properties (the charset property `CA` is ignored: texts are compared
    /// decoded).
    pub fn node_eq(&self, a: NodeId, other: &Collection, b: NodeId) -> bool {
        let pa = self.properties(a).filter(|p| p.prop() != Prop::CA);
        let mut pb = other.properties(b).filter(|p| p.prop() != Prop::CA);
        for x in pa {
            let Some(y) = pb.next() else { return false };
            if x.name() != y.name() || x.values().len() != y.values().len() {
                return false;
            }
            if !x
                .values()
                .iter()
                .zip(y.values())
                .all(|(&v, &w)| self.value_eq(v, other, w))
            {
                return false;
            }
        }
        pb.next().is_none()
    }

    /// Structural equality of two game trees (iterative).
    pub fn tree_eq(&self, a: NodeId, other: &Collection, b: NodeId) -> bool {
        let mut stack = vec![(a, b)];
        while let Some((x, y)) = stack.pop() {
            if !self.node_eq(x, other, y) {
                return false;
            }
            let mut cx = self.children(x);
            let mut cy = other.children(y);
            loop {
                match (cx.next(), cy.next()) {
                    (Some(p), Some(q)) => stack.push((p, q)),
                    (None, None) => break,
                    _ => return false,
                }
            }
        }
        true
    }

    /// The value type of property `p` in a game with `info`.
    pub fn value_type(p: Prop, info: &GameInfo) -> ValueType {
        if p == Prop::TM && info.ff < 4 {
            ValueType::SimpleText
        } else {
            p.value_type()
        }
    }

    /// Whether a node carries a property of `kind`.
    pub fn has_kind(&self, id: NodeId, kind: PropKind) -> bool {
        self.properties(id).any(|p| p.prop().kind() == kind)
    }
}

impl PartialEq for Collection {
    /// Structural equality: same games, same trees, same properties and
    /// values in the same order (`CA` ignored, texts compared decoded).
    fn eq(&self, other: &Collection) -> bool {
        self.roots.len() == other.roots.len()
            && self
                .roots
                .iter()
                .zip(&other.roots)
                .all(|(&a, &b)| self.tree_eq(a, other, b))
    }
}

/// Formats a Real so that it parses back to the same value.
pub fn format_real(r: f64) -> String {
    let s = r.to_string();
    if s == "-0" { "0".to_string() } else { s }
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    coll: &'a Collection,
    next: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.coll.nodes[id as usize].next_sibling;
        Some(NodeId(id))
    }
}

/// Pre-order iterator over a tree, without a stack.
pub struct Preorder<'a> {
    coll: &'a Collection,
    root: u32,
    next: u32,
}

impl Iterator for Preorder<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        let nodes = &self.coll.nodes;
        let n = &nodes[id as usize];
        self.next = if n.first_child != NONE {
            n.first_child
        } else {
            let mut cur = id;
            loop {
                if cur == self.root {
                    break NONE;
                }
                let c = &nodes[cur as usize];
                if c.next_sibling != NONE {
                    break c.next_sibling;
                }
                cur = c.parent;
                if cur == NONE {
                    break NONE;
                }
            }
        };
        Some(NodeId(id))
    }
}
