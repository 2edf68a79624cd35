//! The positions table: one row per main-line ply, for model training.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::builder::{
    Int32Builder, Int64Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use gamerec::fen::write_fen_with;
use gamerec::model::{Game, play_ply};
use shakmaty::EnPassantMode;

use crate::games::batch;
use crate::values::{self, PlyNotes};

/// Which games the positions table takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionFilter {
    /// Both players rated at least this (`WhiteElo`, `BlackElo`); games
    /// without both ratings are left out.
    pub min_rating: Option<i32>,
    /// The `TimeControl` tag equals this (`300+3`), or its speed class is
    /// this (`bullet`, `blitz`, `rapid`, `classical`, `ultrabullet`; see
    /// [`values::speed`]).
    pub time_control: Option<String>,
}

impl PositionFilter {
    /// Whether `game` passes the filter.
    pub fn accepts(&self, game: &Game) -> bool {
        if let Some(min) = self.min_rating {
            let rating = |tag| game.tags.get(tag).and_then(values::parse_int);
            match (rating("WhiteElo"), rating("BlackElo")) {
                (Some(w), Some(b)) if w >= min && b >= min => {}
                _ => return false,
            }
        }
        if let Some(wanted) = &self.time_control {
            let Some(control) = game.tags.get("TimeControl") else {
                return false;
            };
            if control != wanted && values::speed(control) != Some(wanted.as_str()) {
                return false;
            }
        }
        true
    }
}

/// Builds one record batch of the positions table.
pub struct PositionsBuilder {
    game_id: UInt64Builder,
    ply: UInt32Builder,
    fen: StringBuilder,
    uci: StringBuilder,
    san: StringBuilder,
    clk_ms: Int64Builder,
    emt_ms: Int64Builder,
    eval_cp: Int32Builder,
    eval_mate: Int32Builder,
    result: StringBuilder,
    white_elo: Int32Builder,
    black_elo: Int32Builder,
    time_control: StringBuilder,
    rows: usize,
    text: String,
}

impl Default for PositionsBuilder {
    fn default() -> PositionsBuilder {
        PositionsBuilder::new()
    }
}

impl PositionsBuilder {
    /// An empty batch builder.
    pub fn new() -> PositionsBuilder {
        PositionsBuilder {
            game_id: UInt64Builder::new(),
            ply: UInt32Builder::new(),
            fen: StringBuilder::new(),
            uci: StringBuilder::new(),
            san: StringBuilder::new(),
            clk_ms: Int64Builder::new(),
            emt_ms: Int64Builder::new(),
            eval_cp: Int32Builder::new(),
            eval_mate: Int32Builder::new(),
            result: StringBuilder::new(),
            white_elo: Int32Builder::new(),
            black_elo: Int32Builder::new(),
            time_control: StringBuilder::new(),
            rows: 0,
            text: String::new(),
        }
    }

    /// Rows appended so far.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row was appended.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one row per main-line ply of `game`, numbered from 1.
    pub fn append(&mut self, game_id: u64, game: &Game) {
        let result = game.tags.get("Result").or(game.result.map(|r| r.as_str()));
        let white_elo = game.tags.get("WhiteElo").and_then(values::parse_int);
        let black_elo = game.tags.get("BlackElo").and_then(values::parse_int);
        let time_control = game.tags.get("TimeControl");
        let mut pos = game.start.clone();
        let mut ply_number = 0u32;
        let mode = values::uci_mode(game);
        for id in game.tree.mainline() {
            let node = game.tree.node(id);
            let Some(ply) = &node.ply else { continue };
            ply_number += 1;
            self.rows += 1;
            self.game_id.append_value(game_id);
            self.ply.append_value(ply_number);
            self.fen
                .append_value(write_fen_with(&pos, EnPassantMode::Legal));
            self.text.clear();
            values::uci(ply.mv, mode, &mut self.text);
            self.uci.append_value(&self.text);
            self.san.append_value(&ply.san);
            let notes = PlyNotes::of(node);
            self.clk_ms.append_option(notes.clk_ms);
            self.emt_ms.append_option(notes.emt_ms);
            self.eval_cp.append_option(notes.eval_cp);
            self.eval_mate.append_option(notes.eval_mate);
            self.result.append_option(result);
            self.white_elo.append_option(white_elo);
            self.black_elo.append_option(black_elo);
            self.time_control.append_option(time_control);
            pos = play_ply(&pos, ply.mv);
        }
    }

    /// The record batch of the rows appended.
    pub fn finish(mut self) -> RecordBatch {
        batch(vec![
            ("game_id", Arc::new(self.game_id.finish()), false),
            ("ply", Arc::new(self.ply.finish()), false),
            ("fen", Arc::new(self.fen.finish()), false),
            ("uci", Arc::new(self.uci.finish()), false),
            ("san", Arc::new(self.san.finish()), false),
            ("clk_ms", Arc::new(self.clk_ms.finish()), true),
            ("emt_ms", Arc::new(self.emt_ms.finish()), true),
            ("eval_cp", Arc::new(self.eval_cp.finish()), true),
            ("eval_mate", Arc::new(self.eval_mate.finish()), true),
            ("result", Arc::new(self.result.finish()), true),
            ("white_elo", Arc::new(self.white_elo.finish()), true),
            ("black_elo", Arc::new(self.black_elo.finish()), true),
            ("time_control", Arc::new(self.time_control.finish()), true),
        ])
    }
}
