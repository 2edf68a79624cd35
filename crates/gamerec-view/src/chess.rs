//! Chess boards as SVG.
//!
//! The board is 8 × 45 user units (the pieces' own size) plus a 20-unit
//! margin holding the coordinates; `size` scales it to pixels. Squares are
//! `<rect class="square light|dark [lastmove]" data-square="e4">`, pieces
//! `<use class="piece white king" data-square="e1" href="#white-king">`
//! (with `xlink:href` too, for SVG 1.1 readers),
//! coloured squares `<rect class="mark red" data-square>`, the king in check
//! `<rect class="check" data-square>`, arrows `<g class="arrow green"
//! data-from="e2" data-to="e4">`.

use gamerec::model::{Game, NodeId, PlyMove};
use gamerec::pgn::commands::{ArrowMark, KnownCommand, MarkColor, SquareMark, node_commands};
use shakmaty::{Board, Chess, Color, File, Move, Position, Rank, Role, Square};

use crate::num;

/// Side of a square in user units (the pieces are drawn in a 45 × 45 box).
pub const SQUARE: f64 = 45.0;
/// Width of the coordinate margin in user units.
pub const MARGIN: f64 = 20.0;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const LIGHT_LAST: &str = "#cdd26a";
const DARK_LAST: &str = "#aaa23a";
const MARGIN_FILL: &str = "#262421";
const COORD_FILL: &str = "#e8e6e3";

/// The piece set: Colin M.L. Burnett's pieces as python-chess ships them
/// (`pieces/cburnett.txt`, `pieces/LICENSE`), one `<g id="white-king">`
/// group per piece letter.
const PIECES: &str = include_str!("../pieces/cburnett.txt");

/// The SVG group drawing a piece (`K`, `q`, ...) in a 45 × 45 box, with
/// `id="white-king"` etc.
pub fn piece_svg(letter: char) -> Option<&'static str> {
    PIECES.lines().find_map(|line| {
        let (symbol, group) = line.split_once(' ')?;
        (symbol.len() == 1 && symbol.starts_with(letter)).then_some(group)
    })
}

/// The id of a piece's group: `white-king`, `black-pawn`.
pub fn piece_id(color: Color, role: Role) -> String {
    let role = match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    };
    format!("{}-{role}", color_name(color))
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The CSS name of a mark colour (`red`, `green`, `yellow`, `blue`).
pub fn mark_color_name(color: MarkColor) -> &'static str {
    match color {
        MarkColor::Red => "red",
        MarkColor::Green => "green",
        MarkColor::Yellow => "yellow",
        MarkColor::Blue => "blue",
    }
}

/// Reads a colour name or the supplement's letter (`red`, `R`, `g`...).
pub fn parse_mark_color(text: &str) -> Option<MarkColor> {
    Some(match text.to_ascii_lowercase().as_str() {
        "r" | "red" => MarkColor::Red,
        "g" | "green" => MarkColor::Green,
        "y" | "yellow" => MarkColor::Yellow,
        "b" | "blue" => MarkColor::Blue,
        _ => return None,
    })
}

fn square_fill(color: MarkColor) -> &'static str {
    match color {
        MarkColor::Red => "#e0282880",
        MarkColor::Green => "#15a01b80",
        MarkColor::Yellow => "#f0c00099",
        MarkColor::Blue => "#1a5fd080",
    }
}

fn arrow_fill(color: MarkColor) -> &'static str {
    match color {
        MarkColor::Red => "#c02020",
        MarkColor::Green => "#15781b",
        MarkColor::Yellow => "#e68f00",
        MarkColor::Blue => "#003088",
    }
}

/// What to draw besides the pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardOptions {
    /// Width and height in pixels.
    pub size: u32,
    /// Black at the bottom.
    pub flipped: bool,
    /// Files and ranks in a margin around the board.
    pub coordinates: bool,
    /// The last move's from and to squares, highlighted.
    pub last_move: Option<(Square, Square)>,
    /// The square of a king in check, marked with a red glow.
    pub check: Option<Square>,
    /// Arrows, drawn above the pieces.
    pub arrows: Vec<ArrowMark>,
    /// Coloured squares, drawn below the pieces.
    pub squares: Vec<SquareMark>,
}

impl Default for BoardOptions {
    fn default() -> BoardOptions {
        BoardOptions {
            size: 400,
            flipped: false,
            coordinates: true,
            last_move: None,
            check: None,
            arrows: Vec::new(),
            squares: Vec::new(),
        }
    }
}

/// The squares a move shows as "from" and "to": a castling move goes from
/// the king's square to where the king lands (g- or c-file).
pub fn move_squares(mv: &Move) -> Option<(Square, Square)> {
    match *mv {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                File::G
            } else {
                File::C
            };
            Some((king, Square::from_coords(file, king.rank())))
        }
        Move::Put { to, .. } => Some((to, to)),
        _ => Some((mv.from()?, mv.to())),
    }
}

/// The square of the side to move's king when it is in check.
pub fn check_square(pos: &Chess) -> Option<Square> {
    if pos.checkers().is_empty() {
        return None;
    }
    pos.board().king_of(pos.turn())
}

/// The top-left corner of a square in user units.
fn square_origin(sq: Square, opts: &BoardOptions) -> (f64, f64) {
    let m = if opts.coordinates { MARGIN } else { 0.0 };
    let (f, r) = (
        f64::from(u8::from(sq.file())),
        f64::from(u8::from(sq.rank())),
    );
    if opts.flipped {
        (m + (7.0 - f) * SQUARE, m + r * SQUARE)
    } else {
        (m + f * SQUARE, m + (7.0 - r) * SQUARE)
    }
}

fn square_center(sq: Square, opts: &BoardOptions) -> (f64, f64) {
    let (x, y) = square_origin(sq, opts);
    (x + SQUARE / 2.0, y + SQUARE / 2.0)
}

/// A board as a standalone SVG document.
pub fn board_svg(board: &Board, opts: &BoardOptions) -> String {
    let m = if opts.coordinates { MARGIN } else { 0.0 };
    let full = 8.0 * SQUARE + 2.0 * m;
    let mut svg = String::with_capacity(16 * 1024);
    put!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" class="chessboard{}" width="{size}" height="{size}" viewBox="0 0 {v} {v}">"#,
        if opts.flipped { " flipped" } else { "" },
        size = opts.size,
        v = num(full),
    );
    svg.push_str("<defs>");
    let mut used: Vec<(Color, Role)> = board
        .clone()
        .into_iter()
        .map(|(_, p)| (p.color, p.role))
        .collect();
    used.sort_by_key(|&(c, r)| (c as u8, r as u8));
    used.dedup();
    for (color, role) in used {
        let letter = shakmaty::Piece { color, role }.char();
        if let Some(group) = piece_svg(letter) {
            svg.push_str(group);
        }
    }
    svg.push_str(concat!(
        r#"<radialGradient id="check-gradient" r="0.5">"#,
        r##"<stop offset="0%" stop-color="#ff0000" stop-opacity="1"/>"##,
        r##"<stop offset="50%" stop-color="#e70000" stop-opacity="1"/>"##,
        r##"<stop offset="100%" stop-color="#9e0000" stop-opacity="0"/>"##,
        "</radialGradient></defs>"
    ));
    if opts.coordinates {
        put!(
            svg,
            r#"<rect class="margin" x="0" y="0" width="{v}" height="{v}" fill="{MARGIN_FILL}"/>"#,
            v = num(full)
        );
    }
    for sq in Square::ALL {
        let (x, y) = square_origin(sq, opts);
        let light = sq.is_light();
        let last = opts
            .last_move
            .is_some_and(|(from, to)| sq == from || sq == to);
        let fill = match (light, last) {
            (true, false) => LIGHT,
            (false, false) => DARK,
            (true, true) => LIGHT_LAST,
            (false, true) => DARK_LAST,
        };
        put!(
            svg,
            r#"<rect class="square {}{}" data-square="{sq}" x="{}" y="{}" width="{s}" height="{s}" fill="{fill}"/>"#,
            if light { "light" } else { "dark" },
            if last { " lastmove" } else { "" },
            num(x),
            num(y),
            s = num(SQUARE),
        );
    }
    for mark in &opts.squares {
        let (x, y) = square_origin(mark.square, opts);
        put!(
            svg,
            r#"<rect class="mark {}" data-square="{}" x="{}" y="{}" width="{s}" height="{s}" fill="{}"/>"#,
            mark_color_name(mark.color),
            mark.square,
            num(x),
            num(y),
            square_fill(mark.color),
            s = num(SQUARE),
        );
    }
    if let Some(sq) = opts.check {
        let (x, y) = square_origin(sq, opts);
        put!(
            svg,
            r#"<rect class="check" data-square="{sq}" x="{}" y="{}" width="{s}" height="{s}" fill="url(#check-gradient)"/>"#,
            num(x),
            num(y),
            s = num(SQUARE),
        );
    }
    if opts.coordinates {
        for i in 0..8u8 {
            let file = File::new(u32::from(i));
            let rank = Rank::new(u32::from(i));
            let (fx, _) = square_center(Square::from_coords(file, Rank::First), opts);
            let (_, ry) = square_center(Square::from_coords(File::A, rank), opts);
            put!(
                svg,
                r#"<text class="coord file" x="{}" y="{}" font-family="DejaVu Sans,Arial,sans-serif" font-size="13" font-weight="bold" text-anchor="middle" fill="{COORD_FILL}">{}</text>"#,
                num(fx),
                num(full - MARGIN / 2.0 + 4.5),
                file.char(),
            );
            put!(
                svg,
                r#"<text class="coord rank" x="{}" y="{}" font-family="DejaVu Sans,Arial,sans-serif" font-size="13" font-weight="bold" text-anchor="middle" fill="{COORD_FILL}">{}</text>"#,
                num(MARGIN / 2.0),
                num(ry + 4.5),
                rank.char(),
            );
        }
    }
    for (sq, piece) in board.clone() {
        let (x, y) = square_origin(sq, opts);
        let id = piece_id(piece.color, piece.role);
        put!(
            svg,
            r##"<use class="piece {}" data-square="{sq}" data-piece="{}" href="#{id}" xlink:href="#{id}" transform="translate({}, {})"/>"##,
            id.replace('-', " "),
            piece.char(),
            num(x),
            num(y),
        );
    }
    for arrow in &opts.arrows {
        write_arrow(&mut svg, arrow, opts);
    }
    svg.push_str("</svg>\n");
    svg
}

fn write_arrow(svg: &mut String, arrow: &ArrowMark, opts: &BoardOptions) {
    let fill = arrow_fill(arrow.color);
    put!(
        svg,
        r#"<g class="arrow {}" data-from="{}" data-to="{}" fill="{fill}" stroke="{fill}" opacity="0.8">"#,
        mark_color_name(arrow.color),
        arrow.from,
        arrow.to,
    );
    let (x1, y1) = square_center(arrow.from, opts);
    let (x2, y2) = square_center(arrow.to, opts);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1.0 {
        // An arrow to its own square: a ring around the square.
        put!(
            svg,
            r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke-width="4"/>"#,
            num(x1),
            num(y1),
            num(SQUARE / 2.0 - 3.0),
        );
    } else {
        let (ux, uy) = (dx / len, dy / len);
        let head_len = SQUARE * 0.45;
        let head_half = SQUARE * 0.28;
        // The tip stops a little short of the centre; the shaft starts off
        // the centre of its square so the piece there stays visible.
        let (tx, ty) = (x2 - ux * SQUARE * 0.1, y2 - uy * SQUARE * 0.1);
        let (bx, by) = (tx - ux * head_len, ty - uy * head_len);
        let (sx, sy) = (x1 + ux * SQUARE * 0.2, y1 + uy * SQUARE * 0.2);
        put!(
            svg,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke-width="{}" stroke-linecap="butt"/>"#,
            num(sx),
            num(sy),
            num(bx + ux * 0.5),
            num(by + uy * 0.5),
            num(SQUARE * 0.2),
        );
        put!(
            svg,
            r#"<polygon stroke="none" points="{},{} {},{} {},{}"/>"#,
            num(tx),
            num(ty),
            num(bx - uy * head_half),
            num(by + ux * head_half),
            num(bx + uy * head_half),
            num(by - ux * head_half),
        );
    }
    svg.push_str("</g>");
}

/// A position as SVG; a king in check is marked unless `opts.check` is set.
pub fn position_svg(pos: &Chess, opts: &BoardOptions) -> String {
    let mut opts = opts.clone();
    if opts.check.is_none() {
        opts.check = check_square(pos);
    }
    board_svg(pos.board(), &opts)
}

/// The node of the main line after `ply` half-moves (0 is the start
/// position), or `None` when the main line is shorter.
pub fn mainline_node(game: &Game, ply: usize) -> Option<NodeId> {
    if ply == 0 {
        return Some(NodeId::ROOT);
    }
    game.tree.mainline().nth(ply - 1)
}

/// The board at a node of a game: its move highlighted, a check marked, and
/// the `[%csl]`/`[%cal]` marks of the comments after the move (or, at the
/// root, of the game's first comments) added to those in `opts`.
pub fn game_svg(game: &Game, node: NodeId, opts: &BoardOptions) -> String {
    let pos = game.position_at(node);
    let mut opts = opts.clone();
    let n = game.tree.node(node);
    if opts.last_move.is_none()
        && let Some(ply) = &n.ply
        && let PlyMove::Move(mv) = &ply.mv
    {
        opts.last_move = move_squares(mv);
    }
    let commands = if node == NodeId::ROOT {
        root_commands(game)
    } else {
        node_commands(n)
    };
    for cmd in commands {
        match cmd {
            KnownCommand::Csl(marks) => opts.squares.extend(marks),
            KnownCommand::Cal(marks) => opts.arrows.extend(marks),
            _ => {}
        }
    }
    position_svg(&pos, &opts)
}

/// Commands of the comments before the first move (the root's comments).
fn root_commands(game: &Game) -> Vec<KnownCommand> {
    let root = game.tree.root();
    root.comments_before
        .iter()
        .chain(&root.comments_after)
        .flat_map(|c| gamerec::pgn::commands::commands(&c.text))
        .filter_map(|c| KnownCommand::from_ref(&c)?.ok())
        .collect()
}
