//! JSON Lines export: one game per line.
//!
//! ```json
//! {"tags":[["Event","x"],...],"start":null,"comments":[],
//!  "moves":[{"san":"e4","uci":"e2e4","nags":[],"comments":[],"commands":[],
//!            "variations":[[{"san":"d4",...}]]}, ...],
//!  "result":"1-0"}
//! ```
//!
//! `tags` keep file order and duplicates; `start` is the FEN of a set-up
//! start position or `null`; top-level `comments` stand before the first
//! move; a move's `comments` follow it, `comments_before` (present only when
//! not empty) precede it; `variations` are the alternatives to that move,
//! each a list of moves; `result` is the termination marker or `null`.
//! Nested to any depth, written without recursion.

use std::fmt::Write as _;

use shakmaty::Chess;

use crate::fen::write_fen;
use crate::model::{Comment, Game, NodeId, PlyMove};

pub use crate::json_text::push_string as push_json_string;

fn push_comments(comments: &[Comment], out: &mut String) {
    out.push('[');
    for (i, c) in comments.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&c.text, out);
    }
    out.push(']');
}

enum Task {
    Raw(&'static str),
    Move { node: NodeId, first: bool },
}

/// Appends `game` as one JSON line (with its `\n`). `commands` renders the
/// embedded commands of a move's comments as a JSON array (pass
/// [`no_commands`] to write `[]`).
pub fn write_game_json(game: &Game, commands: &dyn Fn(&[Comment], &mut String), out: &mut String) {
    out.push_str("{\"tags\":[");
    for (i, tag) in game.tags.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        push_json_string(&tag.name, out);
        out.push(',');
        push_json_string(&tag.value, out);
        out.push(']');
    }
    out.push_str("],\"start\":");
    if let Some(variant) = game.variant() {
        // A variant's start: its own FEN (pockets, check counters).
        match game.tags.get("FEN") {
            Some(fen) => match crate::variant::start_position(variant, Some(fen.as_bytes())) {
                Ok(pos) => push_json_string(
                    &shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        .to_string(),
                    out,
                ),
                Err(_) => out.push_str("null"),
            },
            None => out.push_str("null"),
        }
    } else if game.start == Chess::default() {
        out.push_str("null");
    } else {
        push_json_string(&write_fen(&game.start, game.castling_mode), out);
    }
    out.push_str(",\"comments\":");
    push_comments(&game.tree.root().comments_before, out);
    out.push_str(",\"moves\":[");
    let tree = &game.tree;
    let mut stack = Vec::new();
    match tree.root().main_child() {
        Some(first) => stack.push(Task::Move {
            node: first,
            first: true,
        }),
        None => out.push(']'),
    }
    while let Some(task) = stack.pop() {
        let (node, first) = match task {
            Task::Raw(s) => {
                out.push_str(s);
                continue;
            }
            Task::Move { node, first } => (node, first),
        };
        if !first {
            out.push(',');
        }
        let n = tree.node(node);
        let (san, uci) = match &n.ply {
            Some(p) => (
                p.san.as_str(),
                match p.mv {
                    PlyMove::Move(m) => m.to_uci(game.castling_mode).to_string(),
                    PlyMove::Null => "0000".to_string(),
                },
            ),
            None => ("", String::new()),
        };
        out.push_str("{\"san\":");
        push_json_string(san, out);
        out.push_str(",\"uci\":");
        push_json_string(&uci, out);
        out.push_str(",\"nags\":[");
        for (i, nag) in n.nags.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{nag}");
        }
        out.push_str("],\"comments\":");
        push_comments(&n.comments_after, out);
        if !n.comments_before.is_empty() {
            out.push_str(",\"comments_before\":");
            push_comments(&n.comments_before, out);
        }
        out.push_str(",\"commands\":");
        commands(&n.comments_after, out);
        out.push_str(",\"variations\":[");
        let variations = match n.parent().map(|p| tree.node(p)) {
            Some(p) if p.main_child() == Some(node) => p.variations(),
            _ => &[],
        };
        match n.main_child() {
            Some(next) => stack.push(Task::Move {
                node: next,
                first: false,
            }),
            None => stack.push(Task::Raw("]")),
        }
        stack.push(Task::Raw("]}"));
        for (i, &v) in variations.iter().enumerate().rev() {
            stack.push(Task::Move {
                node: v,
                first: true,
            });
            stack.push(Task::Raw("["));
            if i > 0 {
                stack.push(Task::Raw(","));
            }
        }
    }
    out.push_str(",\"result\":");
    match game.result {
        Some(r) => push_json_string(r.as_str(), out),
        None => out.push_str("null"),
    }
    out.push_str("}\n");
}

/// Writes `[]`: no embedded commands.
pub fn no_commands(_: &[Comment], out: &mut String) {
    out.push_str("[]");
}
