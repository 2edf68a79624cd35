//! Go and Othello boards from an SGF node, as SVG.
//!
//! Stones are `<circle class="stone black|white" data-point="dd">` (SGF
//! letters), the last move `<circle class="last-move" data-point>`, move
//! numbers `<text class="move-number" data-point>`, labels `<text
//! class="label" data-point>`, marks `<… class="mark triangle|circle|square|
//! cross" data-point>`. Go boards have lines through the points and star
//! points; Othello boards have cells.

use std::fmt;
use std::ops::RangeInclusive;

use gamerec::sgf::props::Prop;
use gamerec::sgf::replay::{self, Position};
use gamerec::sgf::{Collection, Color, NodeId, Point, Value};

use crate::{num, xml_escape};

/// Distance between two lines (Go) or the side of a cell (Othello), in user
/// units.
pub const CELL: f64 = 24.0;

/// What to draw besides the stones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramOptions {
    /// Width of the picture in pixels (the height follows the board's shape).
    pub size: u32,
    /// Column letters and row numbers around the board.
    pub coordinates: bool,
    /// A ring on the stone of the node's move.
    pub last_move: bool,
    /// Number the stones of these moves (1 is the first move of the game)
    /// that are still on the board.
    pub move_numbers: Option<RangeInclusive<u32>>,
    /// The node's labels and marks (`LB`, `TR`, `CR`, `SQ`, `MA`).
    pub marks: bool,
}

impl Default for DiagramOptions {
    fn default() -> DiagramOptions {
        DiagramOptions {
            size: 480,
            coordinates: true,
            last_move: true,
            move_numbers: None,
            marks: true,
        }
    }
}

/// Why a node cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagramError {
    /// The game (`GM`) is neither Go (1) nor Othello (2).
    UnsupportedGame(u32),
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagramError::UnsupportedGame(gm) => write!(
                f,
                "GM[{gm}] cannot be drawn: only Go (GM[1]) and Othello (GM[2]) boards are"
            ),
        }
    }
}

impl std::error::Error for DiagramError {}

/// The column letters Go players use: `A`..`T` without `I` up to 25
/// columns; larger boards use the SGF letters.
pub fn column_label(x: u32, width: u32, othello: bool) -> String {
    if othello {
        return char::from(b'a' + (x as u8 % 26)).to_string();
    }
    if width <= 25 {
        let c = b'A' + x as u8;
        let c = if c >= b'I' { c + 1 } else { c };
        return char::from(c).to_string();
    }
    char::from(Point::new(x as u8, 0).letters()[0]).to_string()
}

/// The row label: Go counts from the bottom, Othello from the top.
pub fn row_label(y: u32, height: u32, othello: bool) -> String {
    if othello {
        (y + 1).to_string()
    } else {
        (height - y).to_string()
    }
}

struct Geometry {
    width: u32,
    height: u32,
    margin: f64,
}

impl Geometry {
    fn center(&self, p: Point) -> (f64, f64) {
        (
            self.margin + (f64::from(p.x) + 0.5) * CELL,
            self.margin + (f64::from(p.y) + 0.5) * CELL,
        )
    }

    fn contains(&self, p: Point) -> bool {
        u32::from(p.x) < self.width && u32::from(p.y) < self.height
    }
}

fn points_of(v: Value, out: &mut Vec<Point>) {
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

/// The move (colour and point, `None` for a pass) a node plays, if any.
fn node_move(coll: &Collection, node: NodeId) -> Option<(Color, Option<Point>)> {
    for (prop, color) in [(Prop::B, Color::Black), (Prop::W, Color::White)] {
        if let Some(p) = coll.get(node, prop) {
            return Some((
                color,
                match p.value() {
                    Value::Point(pt) => Some(pt),
                    _ => None,
                },
            ));
        }
    }
    None
}

/// The board after `node` as a standalone SVG document.
pub fn sgf_svg(
    coll: &Collection,
    node: NodeId,
    opts: &DiagramOptions,
) -> Result<String, DiagramError> {
    let root = coll.root_of(node);
    let info = coll.game_info(root);
    let Some((state, _errors)) = replay::play_to(coll, node) else {
        return Err(DiagramError::UnsupportedGame(info.gm));
    };
    let othello = matches!(state.position, Position::Othello(_));
    let (width, height) = state.position.size();
    let margin = if opts.coordinates { CELL } else { CELL * 0.25 };
    let g = Geometry {
        width,
        height,
        margin,
    };
    let full_w = f64::from(width) * CELL + 2.0 * margin;
    let full_h = f64::from(height) * CELL + 2.0 * margin;
    let px_h = (f64::from(opts.size) * full_h / full_w).round();
    let mut svg = String::with_capacity(8 * 1024);
    put!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="{}" data-width="{width}" data-height="{height}" width="{}" height="{}" viewBox="0 0 {} {}">"#,
        if othello { "othello-board" } else { "go-board" },
        opts.size,
        px_h,
        num(full_w),
        num(full_h),
    );
    let background = if othello { "#2e7d4f" } else { "#dcb35c" };
    put!(
        svg,
        r#"<rect class="background" x="0" y="0" width="{}" height="{}" fill="{background}"/>"#,
        num(full_w),
        num(full_h),
    );
    let line = if othello { "#0d3b22" } else { "#3b2a10" };
    // Grid: Go lines join the points' centres; Othello lines frame cells.
    let (lo, span_w, span_h) = if othello {
        (0.0, f64::from(width) * CELL, f64::from(height) * CELL)
    } else {
        (
            CELL / 2.0,
            f64::from(width.saturating_sub(1)) * CELL,
            f64::from(height.saturating_sub(1)) * CELL,
        )
    };
    put!(svg, r#"<g class="grid" stroke="{line}" stroke-width="1">"#);
    let columns = if othello { width + 1 } else { width };
    let rows = if othello { height + 1 } else { height };
    for i in 0..columns {
        let x = margin + lo + f64::from(i) * CELL;
        put!(
            svg,
            r#"<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}"/>"#,
            x = num(x),
            y1 = num(margin + lo),
            y2 = num(margin + lo + span_h),
        );
    }
    for j in 0..rows {
        let y = margin + lo + f64::from(j) * CELL;
        put!(
            svg,
            r#"<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}"/>"#,
            y = num(y),
            x1 = num(margin + lo),
            x2 = num(margin + lo + span_w),
        );
    }
    svg.push_str("</g>");
    if !othello {
        for p in star_points(width, height) {
            let (cx, cy) = g.center(p);
            put!(
                svg,
                r#"<circle class="star" cx="{}" cy="{}" r="2.6" fill="{line}"/>"#,
                num(cx),
                num(cy),
            );
        }
    }
    if opts.coordinates {
        let style = format!(
            r#"font-family="DejaVu Sans,Arial,sans-serif" font-size="10" text-anchor="middle" fill="{}""#,
            if othello { "#e8f5e9" } else { "#3b2a10" }
        );
        for x in 0..width {
            let label = column_label(x, width, othello);
            let (cx, _) = g.center(Point::new(x as u8, 0));
            for y in [margin / 2.0 + 3.5, full_h - margin / 2.0 + 3.5] {
                put!(
                    svg,
                    r#"<text class="coord column" x="{}" y="{}" {style}>{label}</text>"#,
                    num(cx),
                    num(y),
                );
            }
        }
        for y in 0..height {
            let label = row_label(y, height, othello);
            let (_, cy) = g.center(Point::new(0, y as u8));
            for x in [margin / 2.0, full_w - margin / 2.0] {
                put!(
                    svg,
                    r#"<text class="coord row" x="{}" y="{}" {style}>{label}</text>"#,
                    num(x),
                    num(cy + 3.5),
                );
            }
        }
    }
    // Stones.
    for y in 0..height {
        for x in 0..width {
            let p = Point::new(x as u8, y as u8);
            if let Some(c) = state.position.get(p) {
                let (cx, cy) = g.center(p);
                let (fill, stroke) = match c {
                    Color::Black => ("#111", "#000"),
                    Color::White => ("#f8f8f8", "#222"),
                };
                put!(
                    svg,
                    r#"<circle class="stone {}" data-point="{p}" cx="{}" cy="{}" r="{}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>"#,
                    color_name(c),
                    num(cx),
                    num(cy),
                    num(CELL * 0.47),
                );
            }
        }
    }
    let ink = |p: Point| match state.position.get(p) {
        Some(Color::Black) => "#fff",
        Some(Color::White) => "#000",
        None if othello => "#fff",
        None => "#000",
    };
    // Move numbers: the latest numbered move on each point whose stone is
    // still there, in that colour.
    let mut numbered: Vec<(Point, u32)> = Vec::new();
    if let Some(range) = &opts.move_numbers {
        let mut path = vec![node];
        let mut n = node;
        while let Some(parent) = coll.parent(n) {
            path.push(parent);
            n = parent;
        }
        let mut count = 0u32;
        let mut latest: Vec<(Point, u32, Color)> = Vec::new();
        for &id in path.iter().rev() {
            if let Some((color, point)) = node_move(coll, id) {
                count += 1;
                if let Some(p) = point
                    && range.contains(&count)
                    && g.contains(p)
                {
                    latest.retain(|&(q, _, _)| q != p);
                    latest.push((p, count, color));
                }
            }
        }
        for (p, number, color) in latest {
            if state.position.get(p) == Some(color) {
                numbered.push((p, number));
                let (cx, cy) = g.center(p);
                let font = if number >= 100 { 8.5 } else { 11.0 };
                put!(
                    svg,
                    r#"<text class="move-number" data-point="{p}" x="{}" y="{}" font-family="DejaVu Sans,Arial,sans-serif" font-size="{font}" text-anchor="middle" fill="{}">{number}</text>"#,
                    num(cx),
                    num(cy + font * 0.36),
                    ink(p),
                );
            }
        }
    }
    if opts.last_move
        && let Some((_, Some(p))) = node_move(coll, node)
        && g.contains(p)
        && !numbered.iter().any(|&(q, _)| q == p)
    {
        let (cx, cy) = g.center(p);
        if othello {
            put!(
                svg,
                r##"<circle class="last-move" data-point="{p}" cx="{}" cy="{}" r="{}" fill="none" stroke="#e53935" stroke-width="2"/>"##,
                num(cx),
                num(cy),
                num(CELL * 0.24),
            );
        } else {
            // A dot, so that a `CR` ring stays distinct from it.
            put!(
                svg,
                r#"<circle class="last-move" data-point="{p}" cx="{}" cy="{}" r="{}" fill="{}"/>"#,
                num(cx),
                num(cy),
                num(CELL * 0.14),
                ink(p),
            );
        }
    }
    if opts.marks {
        write_marks(&mut svg, coll, node, &g, &ink, &state.position);
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn write_marks(
    svg: &mut String,
    coll: &Collection,
    node: NodeId,
    g: &Geometry,
    ink: &dyn Fn(Point) -> &'static str,
    position: &Position,
) {
    let othello = matches!(position, Position::Othello(_));
    let r = CELL * 0.3;
    for (prop, kind) in [
        (Prop::TR, "triangle"),
        (Prop::CR, "circle"),
        (Prop::SQ, "square"),
        (Prop::MA, "cross"),
    ] {
        let Some(values) = coll.get(node, prop).map(|p| p.values()) else {
            continue;
        };
        let mut pts = Vec::new();
        for &v in values {
            points_of(v, &mut pts);
        }
        for p in pts.into_iter().filter(|&p| g.contains(p)) {
            let (cx, cy) = g.center(p);
            let stroke = ink(p);
            put!(
                svg,
                r#"<g class="mark {kind}" data-point="{p}" fill="none" stroke="{stroke}" stroke-width="1.8">"#
            );
            match kind {
                "triangle" => put!(
                    svg,
                    r#"<polygon points="{},{} {},{} {},{}"/>"#,
                    num(cx),
                    num(cy - r),
                    num(cx - r * 0.87),
                    num(cy + r * 0.5),
                    num(cx + r * 0.87),
                    num(cy + r * 0.5),
                ),
                "circle" => put!(
                    svg,
                    r#"<circle cx="{}" cy="{}" r="{}"/>"#,
                    num(cx),
                    num(cy),
                    num(r * 0.8),
                ),
                "square" => put!(
                    svg,
                    r#"<rect x="{}" y="{}" width="{s}" height="{s}"/>"#,
                    num(cx - r * 0.7),
                    num(cy - r * 0.7),
                    s = num(r * 1.4),
                ),
                _ => put!(
                    svg,
                    r#"<path d="M{} {}L{} {}M{} {}L{} {}"/>"#,
                    num(cx - r * 0.7),
                    num(cy - r * 0.7),
                    num(cx + r * 0.7),
                    num(cy + r * 0.7),
                    num(cx + r * 0.7),
                    num(cy - r * 0.7),
                    num(cx - r * 0.7),
                    num(cy + r * 0.7),
                ),
            }
            svg.push_str("</g>");
        }
    }
    // Territory (`TB`/`TW`): a small square of the owner's colour, over a
    // dead stone too.
    for (prop, owner, fill, stroke) in [
        (Prop::TB, "black", "#111", "#000"),
        (Prop::TW, "white", "#f8f8f8", "#222"),
    ] {
        let Some(values) = coll.get(node, prop).map(|p| p.values()) else {
            continue;
        };
        let mut pts = Vec::new();
        for &v in values {
            points_of(v, &mut pts);
        }
        let side = CELL * 0.34;
        for p in pts.into_iter().filter(|&p| g.contains(p)) {
            let (cx, cy) = g.center(p);
            put!(
                svg,
                r#"<rect class="territory {owner}" data-point="{p}" x="{}" y="{}" width="{s}" height="{s}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>"#,
                num(cx - side / 2.0),
                num(cy - side / 2.0),
                s = num(side),
            );
        }
    }
    if let Some(values) = coll.get(node, Prop::LB).map(|p| p.values()) {
        for &v in values {
            let Value::Label(p, text) = v else { continue };
            if !g.contains(p) {
                continue;
            }
            let (cx, cy) = g.center(p);
            let text = coll.str(text);
            let empty_go_point = !othello && position.get(p).is_none();
            if empty_go_point {
                // Clear the lines under the label so it reads.
                put!(
                    svg,
                    r##"<circle class="label-ground" data-point="{p}" cx="{}" cy="{}" r="{}" fill="#dcb35c"/>"##,
                    num(cx),
                    num(cy),
                    num(CELL * 0.4),
                );
            }
            put!(
                svg,
                r#"<text class="label" data-point="{p}" x="{}" y="{}" font-family="DejaVu Sans,Arial,sans-serif" font-size="12" font-weight="bold" text-anchor="middle" fill="{}">{}</text>"#,
                num(cx),
                num(cy + 4.3),
                ink(p),
                xml_escape(text),
            );
        }
    }
}

/// The star points Go players expect on a `width` x `height` board: the
/// corner points on the third line (fourth from 13 up) from 7 lines, the
/// centre of an odd board from 9 lines, the side midpoints of an odd board
/// from 15 lines: 9x9, 11x11 and 13x13 have 5, 15x15 to 25x25 have 9, 7x7
/// has 4, smaller boards none.
pub fn star_points(width: u32, height: u32) -> Vec<Point> {
    let min = width.min(height);
    if min < 7 || width > 52 || height > 52 {
        return Vec::new();
    }
    let edge = if min < 13 { 2 } else { 3 };
    let line = |n: u32| -> Vec<(u8, bool)> {
        // (coordinate, whether it is the middle line)
        let mut v = vec![(edge as u8, false), ((n - 1 - edge) as u8, false)];
        if n % 2 == 1 {
            v.push(((n / 2) as u8, true));
        }
        v
    };
    let odd = width % 2 == 1 && height % 2 == 1;
    let mut out = Vec::new();
    for &(y, mid_y) in &line(height) {
        for &(x, mid_x) in &line(width) {
            let wanted = match (mid_x, mid_y) {
                (false, false) => true,
                (true, true) => odd && min >= 9,
                _ => odd && min >= 15,
            };
            if wanted {
                out.push(Point::new(x, y));
            }
        }
    }
    out
}

#[cfg(test)]
mod star_tests {
    use super::star_points;

    #[test]
    fn star_points_per_board_size() {
        for (size, n) in [
            (5, 0),
            (7, 4),
            (9, 5),
            (11, 5),
            (13, 5),
            (15, 9),
            (19, 9),
            (25, 9),
        ] {
            assert_eq!(star_points(size, size).len(), n, "{size}x{size}");
        }
        let nine = star_points(9, 9);
        assert!(
            nine.contains(&gamerec::sgf::Point::new(4, 4))
                && nine.contains(&gamerec::sgf::Point::new(2, 6))
        );
        let nineteen = star_points(19, 19);
        assert!(
            nineteen.contains(&gamerec::sgf::Point::new(3, 9))
                && nineteen.contains(&gamerec::sgf::Point::new(15, 15))
        );
        // Rectangles: the corners; no centre when a side is even.
        assert_eq!(star_points(19, 10).len(), 4);
    }
}
