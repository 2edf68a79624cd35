//! Upgrading FF\[1\]..FF\[3\] games to FF\[4\] (`gamerec sgf upgrade`).
//!
//! Conversions (red-bean "Converting old SGF files to FF\[4\]"): `FF[4]`
//! set (and `GM[1]` added when missing); passes written `[]` (the model
//! already reads `[tt]` as a pass on boards up to 19x19); long property names
//! already shortened by the parser; `M` to `MA` on empty points and `TR` on
//! stones; `L` to `LB` with letters A, B, C...; `TE`+`BM` to `IT`, `BM`+`TE`
//! to `DO`; two-point `VW` to a rectangle; `SZ[n:n]` to `SZ[n]`; `KI` to
//! `KM`; `DT` to `YYYY-MM-DD`; `RE` to `B+`/`W+`/`0`/`Void`/`?`; `TM` to
//! seconds; nodes mixing setup and move properties (or a black and a white
//! move) split in two. What cannot convert is kept as it was and reported.

use super::props::{Prop, PropKind};
use super::replay::{self, NodePaths};
use super::tree::{Collection, Color, NodeId, Point, Value};

/// Something the upgrade could not convert (kept unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpgradeNote {
    /// Node path (`game 1, root node`).
    pub path: String,
    /// Byte offset of the property in the input (0 if unknown).
    pub offset: u32,
    /// What was kept and why.
    pub message: String,
}

type NewProp = (Prop, String, Vec<Value>);

/// Returns an FF\[4\] copy of the collection and what could not convert.
pub fn upgrade(old: &Collection) -> (Collection, Vec<UpgradeNote>) {
    let mut new = Collection::new();
    let mut notes = Vec::new();
    let mut paths = NodePaths::default();
    for (g, &root) in old.roots.iter().enumerate() {
        let info = old.game_info(root);
        let mut stack: Vec<(NodeId, Option<NodeId>)> = vec![(root, None)];
        while let Some((node, parent)) = stack.pop() {
            let is_root = node == root;
            let mut props: Vec<NewProp> = Vec::new();
            let mut note = |off: u32, msg: String| {
                notes.push(UpgradeNote {
                    path: paths.path(old, node, g + 1),
                    offset: off,
                    message: msg,
                });
            };
            let mut board = None;
            let all: Vec<_> = old.properties(node).collect();
            let has = |p: Prop| all.iter().any(|x| x.prop() == p);
            let te_bm = all
                .iter()
                .position(|x| x.prop() == Prop::TE)
                .zip(all.iter().position(|x| x.prop() == Prop::BM));
            if is_root {
                props.push((Prop::FF, String::new(), vec![Value::Number(4)]));
                if !has(Prop::GM) {
                    props.push((Prop::GM, String::new(), vec![Value::Number(1)]));
                }
            }
            for p in &all {
                let vals: Vec<Value> = p
                    .values()
                    .iter()
                    .map(|&v| copy_value(old, &mut new, v))
                    .collect();
                match p.prop() {
                    Prop::FF => {}
                    Prop::SZ => match p.value() {
                        Value::Size(w, h) if w == h => {
                            props.push((Prop::SZ, String::new(), vec![Value::Number(w as i64)]))
                        }
                        _ => props.push((Prop::SZ, String::new(), vals)),
                    },
                    Prop::M => {
                        if board.is_none() {
                            board = Some(replay::play_to(old, node).map(|(s, _)| s.position));
                        }
                        let (mut ma, mut tr) = (Vec::new(), Vec::new());
                        for v in vals {
                            let occupied = match (v, &board) {
                                (Value::Point(pt), Some(Some(pos))) => pos.get(pt).is_some(),
                                _ => false,
                            };
                            if occupied { tr.push(v) } else { ma.push(v) }
                        }
                        if !ma.is_empty() {
                            props.push((Prop::MA, String::new(), ma));
                        }
                        if !tr.is_empty() {
                            props.push((Prop::TR, String::new(), tr));
                        }
                    }
                    Prop::L => {
                        let mut lbs = Vec::new();
                        let mut k = 0u32;
                        for v in vals {
                            let mut pts = Vec::new();
                            match v {
                                Value::Point(pt) => pts.push(pt),
                                Value::Rect(a, b) => {
                                    for y in a.y..=b.y {
                                        for x in a.x..=b.x {
                                            pts.push(Point::new(x, y));
                                        }
                                    }
                                }
                                _ => {}
                            }
                            for pt in pts {
                                let label = letters_label(k);
                                k += 1;
                                let s = new.intern(&label);
                                lbs.push(Value::Label(pt, s));
                            }
                        }
                        props.push((Prop::LB, String::new(), lbs));
                    }
                    Prop::TE | Prop::BM if te_bm.is_some() => {
                        let (te, bm) = te_bm.unwrap_or((0, 0));
                        // Emit once, at the first of the pair.
                        let first = te.min(bm);
                        if all[first].offset() == p.offset() && all[first].prop() == p.prop() {
                            let conv = if te < bm { Prop::IT } else { Prop::DO };
                            props.push((conv, String::new(), vec![Value::None]));
                        }
                    }
                    Prop::VW if info.ff < 4 => {
                        let pts: Vec<Point> = vals
                            .iter()
                            .filter_map(|v| {
                                if let Value::Point(pt) = v {
                                    Some(*pt)
                                } else {
                                    None
                                }
                            })
                            .collect();
                        if pts.len() == 2 && vals.len() == 2 && pts[0] != pts[1] {
                            let (a, b) = (pts[0], pts[1]);
                            let ul = Point::new(a.x.min(b.x), a.y.min(b.y));
                            let lr = Point::new(a.x.max(b.x), a.y.max(b.y));
                            props.push((Prop::VW, String::new(), vec![Value::Rect(ul, lr)]));
                        } else {
                            props.push((Prop::VW, String::new(), vals));
                        }
                    }
                    Prop::DT => {
                        let text = old.value_text(p.value());
                        match normalize_date(&text) {
                            Some(d) => {
                                let s = new.intern(&d);
                                props.push((Prop::DT, String::new(), vec![Value::Text(s)]));
                            }
                            None => {
                                note(
                                    p.offset(),
                                    format!(
                                        "DT[{}] kept: not a recognisable date",
                                        crate::excerpt::excerpt(&text)
                                    ),
                                );
                                props.push((Prop::DT, String::new(), vals));
                            }
                        }
                    }
                    Prop::RE => {
                        let text = old.value_text(p.value());
                        match normalize_result(&text) {
                            Some(r) => {
                                let s = new.intern(&r);
                                props.push((Prop::RE, String::new(), vec![Value::Text(s)]));
                            }
                            None => {
                                note(
                                    p.offset(),
                                    format!(
                                        "RE[{}] kept: not a recognisable result",
                                        crate::excerpt::excerpt(&text)
                                    ),
                                );
                                props.push((Prop::RE, String::new(), vals));
                            }
                        }
                    }
                    Prop::TM if info.ff < 4 => {
                        let text = old.value_text(p.value());
                        match normalize_time(&text, info.ff) {
                            Some(secs) => {
                                props.push((Prop::TM, String::new(), vec![Value::Real(secs)]))
                            }
                            None => {
                                note(
                                    p.offset(),
                                    format!(
                                        "TM[{}] kept: not a time limit",
                                        crate::excerpt::excerpt(&text)
                                    ),
                                );
                                let raw = new.intern(&escape_raw(&text));
                                props.push((Prop::TM, String::new(), vec![Value::Raw(raw)]));
                            }
                        }
                    }
                    Prop::Unknown if p.name() == "KI" => {
                        let text = old.value_text(p.value());
                        match text.trim().parse::<f64>() {
                            Ok(k) => {
                                props.push((Prop::KM, String::new(), vec![Value::Real(k / 2.0)]))
                            }
                            Err(_) => props.push((Prop::Unknown, "KI".into(), vals)),
                        }
                    }
                    Prop::Unknown => props.push((Prop::Unknown, p.name().to_string(), vals)),
                    other => {
                        if !other.in_ff(4) {
                            note(
                                p.offset(),
                                format!("{} kept: not part of FF[4]", other.name()),
                            );
                        }
                        props.push((other, String::new(), vals));
                    }
                }
            }
            // Split mixed nodes: setup/root/game-info and N first, the rest second.
            let kinds = |ps: &[NewProp], k: PropKind| ps.iter().any(|(p, ..)| p.kind() == k);
            let has_b = props.iter().any(|(p, ..)| *p == Prop::B);
            let has_w = props.iter().any(|(p, ..)| *p == Prop::W);
            let new_node = if kinds(&props, PropKind::Move) && kinds(&props, PropKind::Setup) {
                let (first, second): (Vec<NewProp>, Vec<NewProp>) =
                    props.into_iter().partition(|(p, ..)| {
                        matches!(
                            p.kind(),
                            PropKind::Setup | PropKind::Root | PropKind::GameInfo
                        ) || *p == Prop::N
                    });
                let a = add(&mut new, parent, &first);
                add(&mut new, Some(a), &second)
            } else if has_b && has_w {
                let wi = props.iter().position(|(p, ..)| *p == Prop::W).unwrap_or(0);
                let (first, second): (Vec<NewProp>, Vec<NewProp>) = props
                    .into_iter()
                    .enumerate()
                    .partition(|(i, _)| *i < wi)
                    .into_iter_pair();
                let a = add(&mut new, parent, &first);
                add(&mut new, Some(a), &second)
            } else {
                add(&mut new, parent, &props)
            };
            let children: Vec<NodeId> = old.children(node).collect();
            for &c in children.iter().rev() {
                stack.push((c, Some(new_node)));
            }
        }
    }
    (new, notes)
}

trait IntoPair {
    fn into_iter_pair(self) -> (Vec<NewProp>, Vec<NewProp>);
}

impl IntoPair for (Vec<(usize, NewProp)>, Vec<(usize, NewProp)>) {
    fn into_iter_pair(self) -> (Vec<NewProp>, Vec<NewProp>) {
        (
            self.0.into_iter().map(|x| x.1).collect(),
            self.1.into_iter().map(|x| x.1).collect(),
        )
    }
}

fn add(new: &mut Collection, parent: Option<NodeId>, props: &[NewProp]) -> NodeId {
    let refs: Vec<(Prop, &str, Vec<Value>)> = props
        .iter()
        .map(|(p, n, v)| (*p, n.as_str(), v.clone()))
        .collect();
    new.add_node(parent, &refs)
}

fn escape_raw(s: &str) -> String {
    let mut out = String::new();
    super::writer::escape(&mut out, s, false);
    out
}

/// `A`..`Z`, then `AA`, `AB`...
fn letters_label(k: u32) -> String {
    if k < 26 {
        ((b'A' + k as u8) as char).to_string()
    } else {
        format!(
            "{}{}",
            letters_label(k / 26 - 1),
            (b'A' + (k % 26) as u8) as char
        )
    }
}

/// Copies a value into another collection (re-interning its text).
pub fn copy_value(old: &Collection, new: &mut Collection, v: Value) -> Value {
    match v {
        Value::Text(s) => Value::Text(new.intern(old.str(s))),
        Value::Raw(s) => Value::Raw(new.intern(old.str(s))),
        Value::Label(p, s) => Value::Label(p, new.intern(old.str(s))),
        Value::Figure(n, s) => Value::Figure(n, new.intern(old.str(s))),
        Value::Application(a, b) => {
            let a = new.intern(old.str(a));
            let b = new.intern(old.str(b));
            Value::Application(a, b)
        }
        other => other,
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// Normalises a date to the FF\[4\] form, or `None`.
pub fn normalize_date(text: &str) -> Option<String> {
    let t = text.trim();
    if is_ff4_date(t) {
        return Some(t.to_string());
    }
    // Split into numeric and month-name tokens.
    let lower = t.to_ascii_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect();
    let mut year = None;
    let mut month = None;
    let mut days = Vec::new();
    let mut nums = Vec::new();
    for tok in &tokens {
        let digits: String = tok.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            let n: u32 = digits.parse().ok()?;
            nums.push((n, digits.len()));
        } else if let Some(m) = MONTHS.iter().position(|m| tok.starts_with(m)) {
            month = Some(m as u32 + 1);
        } else if !matches!(*tok, "and" | "th" | "st" | "nd" | "rd" | "of") {
            return None;
        }
    }
    for &(n, len) in &nums {
        if len == 4 && year.is_none() {
            year = Some(n);
        } else if month.is_none() && (1..=12).contains(&n) && year.is_some() && days.is_empty() {
            month = Some(n);
        } else if (1..=31).contains(&n) && len <= 2 {
            days.push(n);
        } else if len == 2 && year.is_none() {
            year = Some(if n < 30 { 2000 + n } else { 1900 + n });
        } else {
            return None;
        }
    }
    let year = year?;
    let mut out = format!("{year:04}");
    if let Some(m) = month {
        out.push_str(&format!("-{m:02}"));
        for (i, d) in days.iter().enumerate() {
            out.push_str(&if i == 0 {
                format!("-{d:02}")
            } else {
                format!(",{d:02}")
            });
        }
    } else if !days.is_empty() {
        return None;
    }
    Some(out)
}

fn is_ff4_date(t: &str) -> bool {
    let b = t.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    match b.len() {
        4 => digits(b),
        7 => digits(&b[..4]) && b[4] == b'-' && digits(&b[5..]),
        10 => {
            digits(&b[..4]) && b[4] == b'-' && digits(&b[5..7]) && b[7] == b'-' && digits(&b[8..])
        }
        _ => false,
    }
}

/// Normalises a result to the FF\[4\] form, or `None`.
pub fn normalize_result(text: &str) -> Option<String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "0" | "draw" | "jigo" => return Some("0".into()),
        "void" => return Some("Void".into()),
        "?" | "unknown" => return Some("?".into()),
        _ => {}
    }
    let (winner, rest) = if let Some(r) = lower.strip_prefix("b+") {
        ('B', r.trim())
    } else if let Some(r) = lower.strip_prefix("w+") {
        ('W', r.trim())
    } else if let Some(r) = lower
        .strip_prefix("black wins")
        .or_else(|| lower.strip_prefix("black won"))
    {
        ('B', r.trim())
    } else if let Some(r) = lower
        .strip_prefix("white wins")
        .or_else(|| lower.strip_prefix("white won"))
    {
        ('W', r.trim())
    } else {
        return None;
    };
    let rest = rest.trim_start_matches("by").trim();
    let score = match rest {
        "" => String::new(),
        "r" | "res" | "resign" | "resignation" => "R".into(),
        "t" | "time" => "T".into(),
        "f" | "forfeit" => "F".into(),
        _ => {
            let num = rest
                .trim_end_matches("points")
                .trim_end_matches("point")
                .trim();
            let num = num.replace(" 1/2", ".5").replace("1/2", ".5");
            let num = num.trim();
            if num.parse::<f64>().is_ok() && num.chars().all(|c| c.is_ascii_digit() || c == '.') {
                num.to_string()
            } else {
                return None;
            }
        }
    };
    Some(format!("{winner}+{score}"))
}

/// Converts an FF\[1\]..FF\[3\] time limit to seconds (`13h`, `90 min`,
/// `1h 30m`; a bare number means minutes in FF\[1\]/FF\[2\], seconds later).
pub fn normalize_time(text: &str, ff: u32) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() {
        return None;
    }
    if let Ok(n) = t.parse::<f64>() {
        return Some(if ff <= 2 { n * 60.0 } else { n });
    }
    let mut total = 0.0;
    let mut num = String::new();
    let mut any = false;
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        if c == ' ' {
            continue;
        }
        let mut unit = c.to_string();
        while let Some(&n) = chars.peek() {
            if n.is_ascii_alphabetic() {
                unit.push(n);
                chars.next();
            } else {
                break;
            }
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        let mult = match unit.as_str() {
            "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            _ => return None,
        };
        total += n * mult;
        any = true;
    }
    if !num.is_empty() || !any {
        return None;
    }
    Some(total)
}

/// Whether a colour is used (silences unused-import lints in some builds).
#[allow(dead_code)]
fn _color(_: Color) {}
