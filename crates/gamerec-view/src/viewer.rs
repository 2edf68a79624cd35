//! The static game viewer behind `gamerec html`: one self-contained HTML
//! page per collection (no external assets). The games go into the page as
//! JSON (every node with its board, move text, NAGs, comments, clock and
//! evaluation); `viewer.js` draws the board, the move list with variations,
//! the clock and evaluation graphs, and steps with the arrow keys.
//!
//! The page reads `#game=N&node=M&keys=Right,Right,End` from its address:
//! the game and node to open, and keys to press once loaded (tests and
//! links to a position use it).

use gamerec::model::{Game, NodeId, PlyMove};
use gamerec::pgn::commands::{KnownCommand, Score, node_commands, strip_commands};
use gamerec::sgf::props::Prop;
use gamerec::sgf::replay::{self, Position, State};
use gamerec::sgf::{Collection, Color as SgfColor, Point, Value};
use shakmaty::{Color, Position as _};

use crate::chess::{check_square, mark_color_name, move_squares, piece_svg};
use crate::diagram::{column_label, row_label};

const CSS: &str = include_str!("viewer.css");

/// A JSON string literal, safe inside a `<script>` element.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                put!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The glyph of a NAG (`$1` → `!`), else `$N`.
pub fn nag_glyph(nag: u8) -> String {
    match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        7 => "□",
        10 => "=",
        13 => "∞",
        14 => "⩲",
        15 => "⩱",
        16 => "±",
        17 => "∓",
        18 => "+−",
        19 => "−+",
        22 | 23 => "⨀",
        32 | 33 => "⟳",
        36 | 37 => "→",
        40 | 41 => "↑",
        132 | 133 => "⇆",
        138 | 139 => "⊕",
        140 => "∆",
        146 => "N",
        _ => return format!("${nag}"),
    }
    .to_owned()
}

fn joined_comments(comments: &[gamerec::model::Comment]) -> String {
    comments
        .iter()
        .map(|c| strip_commands(&c.text).trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn push_field(out: &mut String, name: &str, value: &str) {
    put!(out, ",\"{name}\":{value}");
}

/// One chess game as the viewer's JSON.
pub fn chess_game_json(game: &Game) -> String {
    let n = game.tree.len();
    let mut after: Vec<Option<shakmaty::Chess>> = vec![None; n];
    let mut before_info: Vec<(u32, bool)> = vec![(0, true); n];
    after[0] = Some(game.start.clone());
    game.for_each_position(|id, before, pos| {
        after[id.0 as usize] = Some(pos.clone());
        before_info[id.0 as usize] = (before.fullmoves().get(), before.turn() == Color::White);
    });
    let mut out = String::with_capacity(n * 160 + 512);
    out.push_str("{\"kind\":\"chess\",\"w\":8,\"h\":8");
    push_field(&mut out, "title", &json_string(&chess_title(game)));
    out.push_str(",\"tags\":[");
    for (i, tag) in game.tags.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        put!(
            out,
            "[{},{}]",
            json_string(&tag.name),
            json_string(&tag.value)
        );
    }
    out.push(']');
    push_field(
        &mut out,
        "result",
        &json_string(game.result.map_or("*", |r| r.as_str())),
    );
    out.push_str(",\"nodes\":[");
    for i in 0..n {
        let id = NodeId(i as u32);
        let node = game.tree.node(id);
        if i > 0 {
            out.push(',');
        }
        put!(
            out,
            "{{\"p\":{}",
            node.parent().map_or(-1, |p| i64::from(p.0))
        );
        out.push_str(",\"k\":[");
        for (j, c) in node.children().iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            put!(out, "{}", c.0);
        }
        out.push(']');
        let pos = after[i].clone().unwrap_or_else(|| game.position_at(id));
        push_field(&mut out, "b", &json_string(&pos.board().to_string()));
        if let Some(sq) = check_square(&pos) {
            push_field(&mut out, "ck", &json_string(&sq.to_string()));
        }
        if let Some(ply) = &node.ply {
            push_field(&mut out, "s", &json_string(&ply.san));
            let (no, white) = before_info[i];
            put!(out, ",\"no\":{no},\"wm\":{white}");
            if let PlyMove::Move(mv) = &ply.mv
                && let Some((from, to)) = move_squares(mv)
            {
                put!(out, ",\"lm\":[\"{from}\",\"{to}\"]");
            }
        }
        if !node.nags.is_empty() {
            let glyphs: Vec<String> = node.nags.iter().map(|&g| nag_glyph(g)).collect();
            push_field(&mut out, "nag", &json_string(&glyphs.join(" ")));
        }
        let pre = joined_comments(&node.comments_before);
        if !pre.is_empty() {
            push_field(&mut out, "pre", &json_string(&pre));
        }
        let post = joined_comments(&node.comments_after);
        if !post.is_empty() {
            push_field(&mut out, "post", &json_string(&post));
        }
        let mut csl = Vec::new();
        let mut cal = Vec::new();
        for cmd in node_commands(node) {
            match cmd {
                KnownCommand::Clk(d) => {
                    put!(out, ",\"clk\":{}", d.as_secs_f64());
                }
                KnownCommand::Eval(e) => {
                    let (text, cp) = match e.score {
                        Score::Centipawns(cp) => (
                            format!(
                                "{}{:.2}",
                                if cp > 0 { "+" } else { "" },
                                f64::from(cp) / 100.0
                            ),
                            cp.clamp(-10_000, 10_000),
                        ),
                        Score::Mate(m) => (format!("#{m}"), if m >= 0 { 10_000 } else { -10_000 }),
                    };
                    put!(out, ",\"ev\":{},\"evc\":{cp}", json_string(&text));
                }
                KnownCommand::Csl(marks) => csl.extend(marks),
                KnownCommand::Cal(marks) => cal.extend(marks),
                _ => {}
            }
        }
        if !csl.is_empty() {
            out.push_str(",\"csl\":[");
            for (j, m) in csl.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                put!(out, "[\"{}\",\"{}\"]", m.square, mark_color_name(m.color));
            }
            out.push(']');
        }
        if !cal.is_empty() {
            out.push_str(",\"cal\":[");
            for (j, m) in cal.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                put!(
                    out,
                    "[\"{}\",\"{}\",\"{}\"]",
                    m.from,
                    m.to,
                    mark_color_name(m.color)
                );
            }
            out.push(']');
        }
        out.push('}');
    }
    out.push_str("]}");
    out
}

/// `White – Black`; when neither player is known (`?` or missing), the
/// opening (`ECO Opening, Variation`) or the event.
fn chess_title(game: &Game) -> String {
    let known = |tag: &str| {
        game.tags
            .get(tag)
            .map(str::trim)
            .filter(|v| !v.is_empty() && *v != "?" && *v != "-")
    };
    if known("White").is_some() || known("Black").is_some() {
        return format!(
            "{} – {}",
            known("White").unwrap_or("?"),
            known("Black").unwrap_or("?")
        );
    }
    let opening: Vec<&str> = ["ECO", "Opening", "Variation", "SubVariation"]
        .iter()
        .filter_map(|t| known(t))
        .collect();
    if !opening.is_empty() {
        return opening.join(" ");
    }
    known("Event").unwrap_or("? – ?").to_owned()
}

fn sgf_point_text(p: Point, w: u32, h: u32, othello: bool) -> String {
    if u32::from(p.x) >= w || u32::from(p.y) >= h {
        return p.to_string();
    }
    format!(
        "{}{}",
        column_label(u32::from(p.x), w, othello),
        row_label(u32::from(p.y), h, othello)
    )
}

fn board_string(state: &State) -> String {
    let (w, h) = state.position.size();
    let mut s = String::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            s.push(match state.position.get(Point::new(x as u8, y as u8)) {
                Some(SgfColor::Black) => 'B',
                Some(SgfColor::White) => 'W',
                None => '.',
            });
        }
    }
    s
}

fn expand_points(v: Value, out: &mut Vec<Point>) {
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

/// The games of an SGF collection (Go and Othello; others are skipped) as
/// the viewer's JSON objects, with the number of games skipped.
pub fn sgf_games_json(coll: &Collection) -> (Vec<String>, usize) {
    let mut games = Vec::new();
    let mut skipped = 0;
    for &root in &coll.roots {
        match sgf_game_json(coll, root) {
            Some(json) => games.push(json),
            None => skipped += 1,
        }
    }
    (games, skipped)
}

fn sgf_game_json(coll: &Collection, root: gamerec::sgf::NodeId) -> Option<String> {
    let mut initial = replay::initial(coll, root)?;
    let othello = matches!(initial.position, Position::Othello(_));
    let (w, h) = initial.position.size();
    // Implied handicap stones come from play_to on the root.
    if let Some((state, _)) = replay::play_to(coll, root) {
        initial = state;
    }
    let mut out = String::with_capacity(4096);
    put!(
        out,
        "{{\"kind\":\"{}\",\"w\":{w},\"h\":{h}",
        if othello { "othello" } else { "go" }
    );
    let text = |prop| coll.text_of(root, prop).map(str::to_owned);
    let black = text(Prop::PB).unwrap_or_else(|| "Black".into());
    let white = text(Prop::PW).unwrap_or_else(|| "White".into());
    push_field(
        &mut out,
        "title",
        &json_string(&format!("{black} – {white}")),
    );
    out.push_str(",\"tags\":[");
    let mut first = true;
    for p in coll.properties(root) {
        let prop = p.prop();
        if prop.kind() != gamerec::sgf::PropKind::GameInfo && prop != Prop::SZ {
            continue;
        }
        let value: Vec<String> = p.values().iter().map(|&v| coll.value_text(v)).collect();
        if !first {
            out.push(',');
        }
        first = false;
        put!(
            out,
            "[{},{}]",
            json_string(p.name()),
            json_string(&value.join(", "))
        );
    }
    out.push(']');
    push_field(
        &mut out,
        "result",
        &json_string(coll.text_of(root, Prop::RE).unwrap_or("")),
    );
    // Node indices are pre-order positions (first pass, ids only); the
    // second pass replays in the same order and writes each node at once,
    // so only the states of variations still to visit are held.
    let mut index = vec![u32::MAX; coll.node_count()];
    let mut count = 0u32;
    let mut ids = vec![root];
    while let Some(id) = ids.pop() {
        index[id.0 as usize] = count;
        count += 1;
        let children: Vec<_> = coll.children(id).collect();
        ids.extend(children.into_iter().rev());
    }
    out.push_str(",\"nodes\":[");
    let mut first_node = true;
    let mut stack = vec![(root, -1i64, initial, 0u32)];
    while let Some((id, parent, mut state, mut number)) = stack.pop() {
        if parent >= 0 {
            let mut errors = Vec::new();
            replay::apply_node(coll, id, &mut state, &mut errors);
        }
        if coll.get(id, Prop::B).is_some() || coll.get(id, Prop::W).is_some() {
            number += 1;
        }
        let children: Vec<_> = coll.children(id).collect();
        if !first_node {
            out.push(',');
        }
        first_node = false;
        put!(out, "{{\"p\":{parent},\"k\":[");
        for (j, c) in children.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            put!(out, "{}", index[c.0 as usize]);
        }
        out.push(']');
        push_field(&mut out, "b", &json_string(&board_string(&state)));
        for (prop, color) in [(Prop::B, 'B'), (Prop::W, 'W')] {
            if let Some(p) = coll.get(id, prop) {
                let (text, point) = match p.value() {
                    Value::Point(pt) if u32::from(pt.x) < w && u32::from(pt.y) < h => {
                        (sgf_point_text(pt, w, h, othello), Some(pt))
                    }
                    _ => ("pass".to_owned(), None),
                };
                push_field(&mut out, "s", &json_string(&format!("{color} {text}")));
                put!(out, ",\"no\":{number}");
                if let Some(pt) = point {
                    put!(out, ",\"lm\":[{},{}]", pt.x, pt.y);
                }
            }
        }
        if let Some(c) = coll.text_of(id, Prop::C) {
            push_field(&mut out, "post", &json_string(c.trim()));
        }
        if let Some(n) = coll.text_of(id, Prop::N) {
            push_field(&mut out, "pre", &json_string(n.trim()));
        }
        for (prop, key) in [
            (Prop::TR, "tr"),
            (Prop::CR, "cr"),
            (Prop::SQ, "sq"),
            (Prop::MA, "ma"),
        ] {
            if let Some(p) = coll.get(id, prop) {
                let mut pts = Vec::new();
                for &v in p.values() {
                    expand_points(v, &mut pts);
                }
                put!(out, ",\"{key}\":[");
                for (j, pt) in pts.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    put!(out, "[{},{}]", pt.x, pt.y);
                }
                out.push(']');
            }
        }
        if let Some(p) = coll.get(id, Prop::LB) {
            out.push_str(",\"lb\":[");
            let mut first = true;
            for &v in p.values() {
                if let Value::Label(pt, s) = v {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    put!(out, "[{},{},{}]", pt.x, pt.y, json_string(coll.str(s)));
                }
            }
            out.push(']');
        }
        out.push('}');
        let me = i64::from(index[id.0 as usize]);
        for &c in children.iter().rev() {
            stack.push((c, me, state.clone(), number));
        }
    }
    out.push_str("]}");
    Some(out)
}

fn html_escape(text: &str) -> String {
    crate::xml_escape(text)
}

/// The whole page for a list of games already in the viewer's JSON form.
pub fn page(title: &str, games_json: &[String]) -> String {
    let mut out = page_start(title);
    out.reserve(games_json.iter().map(|g| g.len() + 2).sum::<usize>() + PAGE_END.len());
    for (i, g) in games_json.iter().enumerate() {
        if i > 0 {
            out.push_str(GAME_SEPARATOR);
        }
        out.push_str(g);
    }
    out.push_str(PAGE_END);
    out
}

/// What comes between two games' JSON in a page (see [`page_start`]).
pub const GAME_SEPARATOR: &str = ",\n";

/// What ends a page after its games' JSON (see [`page_start`]).
pub const PAGE_END: &str = concat!(
    "]</script>\n<script>\n",
    include_str!("viewer.js"),
    "</script>\n</body>\n</html>\n"
);

/// The page up to its games' JSON: [`page`] is this, each game's JSON with
/// [`GAME_SEPARATOR`] between two, then [`PAGE_END`] (so a page can be
/// written game by game, holding one game's JSON at a time).
pub fn page_start(title: &str) -> String {
    let mut out = String::with_capacity(64 * 1024);
    put!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"gamerec html\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
        html_escape(title)
    );
    putln!(
        out,
        "<header><h1 id=\"title\">{}</h1><span id=\"subtitle\"></span>\
         <span class=\"help\">← → move · Home End · ↑ ↓ variation · F flip</span></header>",
        html_escape(title)
    );
    out.push_str(concat!(
        "<div id=\"app\">\n",
        "<nav id=\"games\" hidden><h2>Games</h2><ol id=\"game-list\"></ol></nav>\n",
        "<main id=\"main\">\n",
        "<section id=\"board-pane\"><div id=\"board\"></div>\n",
        "<div id=\"controls\"><button id=\"first\" title=\"Home\">|◀</button><button id=\"prev\" title=\"←\">◀</button>",
        "<button id=\"next\" title=\"→\">▶</button><button id=\"last\" title=\"End\">▶|</button>",
        "<button id=\"flip\" title=\"F\">⇅</button><span id=\"status\"></span></div></section>\n",
        "<section id=\"side\"><div id=\"players\"></div><div id=\"moves\" tabindex=\"0\"></div>",
        "<div id=\"comment\"></div><div id=\"graphs\"></div><details id=\"tags-box\" open><summary>Tags</summary><table id=\"tags\"></table></details></section>\n",
        "</main>\n</div>\n"
    ));
    out.push_str("<svg id=\"piece-set\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>");
    for letter in "KQRBNPkqrbnp".chars() {
        if let Some(g) = piece_svg(letter) {
            out.push_str(g);
        }
    }
    out.push_str("</defs></svg>\n<script type=\"application/json\" id=\"games-data\">[");
    out
}

/// The viewer page of PGN games.
pub fn pgn_page(title: &str, games: &[Game]) -> String {
    let json: Vec<String> = games.iter().map(chess_game_json).collect();
    page(title, &json)
}

/// The viewer page of an SGF collection, with the number of games skipped
/// (games other than Go and Othello).
pub fn sgf_page(title: &str, coll: &Collection) -> (String, usize) {
    let (json, skipped) = sgf_games_json(coll);
    (page(title, &json), skipped)
}
