//! The referee's finished games as `gamerec::model::Game`s, written in PGN
//! export format by `gamerec::pgn::writer`: Seven Tag Roster, TimeControl,
//! Termination, PlyCount, and after every move a comment with the
//! supplement's `[%clk]` (the mover's clock) and `[%emt]` (the time the move
//! took), both made by `gamerec::pgn::commands`. Both are the referee's
//! millisecond values, written `h:mm:ss.fff` with trailing zeros dropped
//! (`0:00:04.93`), as chess GUIs and TCEC write fractions.

use gamerec::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove, Tags};
use gamerec::pgn::WriteOptions;
use gamerec::pgn::commands::KnownCommand;
use shakmaty::{CastlingMode, Color};

use crate::game::{GameState, Outcome};
use crate::runner::GameSpec;

/// The game as the library's model.
pub fn to_game(spec: &GameSpec, state: &GameState) -> Game {
    let result = state.ending().map_or("*", |e| e.outcome.result_str());
    let mut tags = Tags::new();
    for (name, value) in spec.tags(result) {
        tags.push(name, value);
    }
    if let Some(e) = state.ending() {
        tags.push("Termination", e.termination.as_str());
    }
    tags.push("PlyCount", state.played().len().to_string());
    let mut game = Game {
        tags,
        start: state.start().clone(),
        castling_mode: CastlingMode::Standard,
        result: Some(match state.ending().map(|e| e.outcome) {
            Some(Outcome::Win(Color::White)) => GameResult::WhiteWins,
            Some(Outcome::Win(Color::Black)) => GameResult::BlackWins,
            Some(Outcome::Draw) => GameResult::Draw,
            Some(Outcome::Unfinished) | None => GameResult::Unknown,
        }),
        ..Game::default()
    };
    let mut node = NodeId::ROOT;
    for played in state.played() {
        node = game.tree.add_child(
            node,
            Ply {
                mv: PlyMove::Move(played.mv),
                san: played.san.clone(),
                written: None,
            },
        );
        let mut words = Vec::new();
        if let Some(clock) = played.clock_after {
            words.push(KnownCommand::Clk(clock).to_string());
        }
        words.push(KnownCommand::Emt(played.elapsed).to_string());
        if played.draw_offer {
            words.push("draw offer".to_owned());
        }
        if let Some(note) = &played.note {
            words.push(note.clone());
        }
        game.tree
            .node_mut(node)
            .comments_after
            .push(Comment::new(comment_text(&words.join(" "))));
    }
    if let Some(e) = state.ending() {
        let reason = Comment::new(comment_text(&e.reason));
        let last = game.tree.node_mut(node);
        if node == NodeId::ROOT {
            last.comments_before.push(reason);
        } else {
            last.comments_after.push(reason);
        }
    }
    game
}

/// The PGN text of a game (ends with a blank line).
pub fn game_pgn(spec: &GameSpec, state: &GameState) -> String {
    gamerec::pgn::writer::export_string(&to_game(spec, state), &WriteOptions::default())
}

/// Text safe inside `{...}`.
fn comment_text(text: &str) -> String {
    text.replace('}', ")")
}
