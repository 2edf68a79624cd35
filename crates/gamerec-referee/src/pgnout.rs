//! Export-format PGN for finished games: Seven Tag Roster, TimeControl,
//! Termination, PlyCount, and `[%clk]` after every move.
//!
//! TO BE REPLACED by the `gamerec::pgn` export writer (issue #3) once it is
//! on main; this writer covers only what the referee produces.

use shakmaty::Position;

use crate::clock::clk_value;
use crate::game::GameState;
use crate::runner::GameSpec;

/// The PGN text of a game (ends with a blank line).
pub fn game_pgn(spec: &GameSpec, state: &GameState) -> String {
    let result = state.ending().map_or("*", |e| e.outcome.result_str());
    let mut tags = spec.tags(result);
    let str_len = 7;
    if let Some(e) = state.ending() {
        tags.push(("Termination".into(), e.termination.as_str().into()));
    }
    tags.push(("PlyCount".into(), state.played().len().to_string()));
    // Export format: the Seven Tag Roster first, then the rest in ASCII order.
    tags[str_len..].sort();
    let mut out = String::new();
    for (name, value) in &tags {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        for c in value.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push_str("\"]\n");
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let start = state.start();
    let mut number = start.fullmoves().get();
    let mut white_to_move = start.turn().is_white();
    let mut after_comment = true;
    for played in state.played() {
        if white_to_move {
            tokens.push(format!("{number}."));
        } else if after_comment {
            tokens.push(format!("{number}..."));
        }
        tokens.push(played.san.clone());
        let mut comment = String::new();
        if let Some(clock) = played.clock_after {
            comment.push_str(&format!("[%clk {}]", clk_value(clock)));
        }
        if played.draw_offer {
            push_words(&mut comment, "draw offer");
        }
        if let Some(note) = &played.note {
            push_words(&mut comment, note);
        }
        after_comment = !comment.is_empty();
        if after_comment {
            push_comment(&mut tokens, &comment);
        }
        if !white_to_move {
            number += 1;
        }
        white_to_move = !white_to_move;
    }
    if let Some(e) = state.ending() {
        if !e.reason.is_empty() {
            push_comment(&mut tokens, &e.reason);
        }
    }
    tokens.push(result.to_owned());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

fn push_words(comment: &mut String, words: &str) {
    if !comment.is_empty() {
        comment.push(' ');
    }
    comment.push_str(words);
}

/// Splits a comment into space-free tokens so lines wrap inside it.
fn push_comment(tokens: &mut Vec<String>, text: &str) {
    let clean: String = text.chars().map(|c| if c == '}' { ')' } else { c }).collect();
    let words: Vec<&str> = clean.split_whitespace().collect();
    match words.as_slice() {
        [] => {}
        [one] => tokens.push(format!("{{{one}}}")),
        [first, middle @ .., last] => {
            tokens.push(format!("{{{first}"));
            tokens.extend(middle.iter().map(|w| (*w).to_owned()));
            tokens.push(format!("{last}}}"));
        }
    }
}
