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
        // Commands are single tokens so a line never breaks inside one.
        let mut words: Vec<String> = Vec::new();
        if let Some(clock) = played.clock_after {
            words.push(format!("[%clk {}]", clk_value(clock)));
        }
        words.push(format!("[%emt {}]", clk_value(played.elapsed)));
        if played.draw_offer {
            words.extend(["draw".to_owned(), "offer".to_owned()]);
        }
        if let Some(note) = &played.note {
            words.extend(note.split_whitespace().map(str::to_owned));
        }
        after_comment = true;
        push_comment(&mut tokens, words);
        if !white_to_move {
            number += 1;
        }
        white_to_move = !white_to_move;
    }
    if let Some(e) = state.ending() {
        push_comment(
            &mut tokens,
            e.reason.split_whitespace().map(str::to_owned).collect(),
        );
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

/// Adds a comment as tokens that wrap between words.
fn push_comment(tokens: &mut Vec<String>, words: Vec<String>) {
    let words: Vec<String> = words.into_iter().map(|w| w.replace('}', ")")).collect();
    match words.as_slice() {
        [] => {}
        [one] => tokens.push(format!("{{{one}}}")),
        [first, middle @ .., last] => {
            tokens.push(format!("{{{first}"));
            tokens.extend(middle.iter().cloned());
            tokens.push(format!("{last}}}"));
        }
    }
}
