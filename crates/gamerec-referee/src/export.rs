//! The referee's finished games as `gamerec::model::Game`s, written in PGN
//! export format by `gamerec::pgn::writer`: Seven Tag Roster, TimeControl,
//! Termination, PlyCount, and after every move a comment with the
//! supplement's `[%clk]` (the mover's clock) and `[%emt]` (the time the move
//! took), both made by `gamerec::pgn::commands`. Both are the referee's
//! millisecond values, written `h:mm:ss.fff` with trailing zeros dropped
//! (`0:00:04.93`), as chess GUIs and TCEC write fractions. Opening (book)
//! moves are commented `{book}` instead, as cutechess and fastchess do.

use gamerec::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove, Tags};
use gamerec::pgn::WriteOptions;
use gamerec::pgn::commands::KnownCommand;
use shakmaty::Color;

use crate::game_rules::{EngineReport, GameState, Outcome};
use crate::game_runner::GameSpec;
use gamerec::epd::opcodes::Evaluation;
use gamerec::pgn::commands::{Eval, Score};

/// What a match adds to the referee's PGN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Each move's comment also carries what the mover's engine reported:
    /// `[%eval S,D]` (White's view, pawns or `#N`, depth) and `[%nodes N]`.
    pub engine_data: bool,
    /// A `GameDuration` tag (`HH:MM:SS`): the time the clocks ran, all
    /// moves of both sides.
    pub game_duration: bool,
}

/// The game as the library's model.
pub fn to_game(spec: &GameSpec, state: &GameState) -> Game {
    to_game_with(spec, state, ExportOptions::default())
}

/// The game as the library's model, with a match's additions.
pub fn to_game_with(spec: &GameSpec, state: &GameState, options: ExportOptions) -> Game {
    let engine_data = options.engine_data;
    let result = state.ending().map_or("*", |e| e.outcome.result_str());
    let mut tags = Tags::new();
    for (name, value) in spec.tags(result) {
        tags.push(name, value);
    }
    if let Some(e) = state.ending() {
        tags.push("Termination", e.termination.as_str());
    }
    tags.push("PlyCount", state.played().len().to_string());
    if options.game_duration {
        let total: std::time::Duration = state.played().iter().map(|p| p.elapsed).sum();
        let secs = total.as_secs();
        tags.push(
            "GameDuration",
            format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60),
        );
    }
    let mut game = Game {
        tags,
        start: state.start().clone(),
        castling_mode: crate::game_runner::castling_mode(state.start()),
        result: Some(match state.ending().map(|e| e.outcome) {
            Some(Outcome::Win(Color::White)) => GameResult::WhiteWins,
            Some(Outcome::Win(Color::Black)) => GameResult::BlackWins,
            Some(Outcome::Draw) => GameResult::Draw,
            Some(Outcome::Unfinished) | None => GameResult::Unknown,
        }),
        ..Game::default()
    };
    let mut node = NodeId::ROOT;
    let mut mover = shakmaty::Position::turn(state.start());
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
        if played.book {
            mover = !mover;
            game.tree
                .node_mut(node)
                .comments_after
                .push(Comment::new("book".to_owned()));
            continue;
        }
        if let Some(clock) = played.clock_after {
            words.push(KnownCommand::Clk(clock).to_string());
        }
        words.push(KnownCommand::Emt(played.elapsed).to_string());
        if engine_data {
            words.extend(engine_words(&played.engine, mover));
        }
        mover = !mover;
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
    game_pgn_with(spec, state, ExportOptions::default())
}

/// The PGN text of a game, with a match's additions (see [`ExportOptions`]).
pub fn game_pgn_with(spec: &GameSpec, state: &GameState, options: ExportOptions) -> String {
    gamerec::pgn::writer::export_string(
        &to_game_with(spec, state, options),
        &WriteOptions::default(),
    )
}

/// The score an engine reported with its move (`ce`, the mover's view) from
/// White's view, as `[%eval]` writes it.
pub fn white_view_score(report: &EngineReport, mover: Color) -> Option<Score> {
    let ce = report.ce?;
    let sign = if mover.is_white() { 1 } else { -1 };
    Some(match gamerec::epd::opcodes::ce_meaning(i64::from(ce)) {
        Evaluation::MateIn(n) => Score::Mate(sign * n as i32),
        Evaluation::MatedIn(n) => Score::Mate(-sign * n as i32),
        _ => Score::Centipawns(sign * ce),
    })
}

/// `[%eval]` (White's view) and `[%nodes]` for what an engine reported.
fn engine_words(report: &EngineReport, mover: Color) -> Vec<String> {
    let mut words = Vec::new();
    if let Some(score) = white_view_score(report, mover) {
        words.push(
            KnownCommand::Eval(Eval {
                score,
                depth: report.depth,
            })
            .to_string(),
        );
    }
    if let Some(nodes) = report.nodes {
        words.push(format!("[%nodes {nodes}]"));
    }
    words
}

/// Text safe inside `{...}`.
fn comment_text(text: &str) -> String {
    text.replace('}', ")")
}
