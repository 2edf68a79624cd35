//! The games table: one row per game.

use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Int32Builder, Int64Builder, ListBuilder, MapBuilder, StringBuilder,
    Time32MillisecondBuilder, UInt8Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use gamerec::model::Game;
use gamerec::pgn::{WriteOptions, write_game};

use crate::schema::{Kind, TAG_COLUMNS};
use crate::values::{self, PlyNotes};

enum TagColumn {
    Text(StringBuilder),
    Int(Int32Builder),
    Date(Date32Builder),
    Time(Time32MillisecondBuilder),
}

/// Builds one record batch of the games table from [`Game`]s.
pub struct GamesBuilder {
    game_id: UInt64Builder,
    tag_columns: Vec<TagColumn>,
    tc_base: Int32Builder,
    tc_increment: Int32Builder,
    tags: MapBuilder<StringBuilder, StringBuilder>,
    game_result: StringBuilder,
    ply_count: UInt32Builder,
    uci: ListBuilder<StringBuilder>,
    san: ListBuilder<StringBuilder>,
    clk_ms: ListBuilder<Int64Builder>,
    emt_ms: ListBuilder<Int64Builder>,
    eval_cp: ListBuilder<Int32Builder>,
    eval_mate: ListBuilder<Int32Builder>,
    nags: ListBuilder<ListBuilder<UInt8Builder>>,
    movetext: StringBuilder,
    rows: usize,
    text: String,
    export: Vec<u8>,
    seen: Vec<bool>,
}

impl Default for GamesBuilder {
    fn default() -> GamesBuilder {
        GamesBuilder::new()
    }
}

impl GamesBuilder {
    /// An empty batch builder.
    pub fn new() -> GamesBuilder {
        GamesBuilder {
            game_id: UInt64Builder::new(),
            tag_columns: TAG_COLUMNS
                .iter()
                .map(|&(_, _, kind)| match kind {
                    Kind::Text => TagColumn::Text(StringBuilder::new()),
                    Kind::Int | Kind::Signed => TagColumn::Int(Int32Builder::new()),
                    Kind::Date => TagColumn::Date(Date32Builder::new()),
                    Kind::Time => TagColumn::Time(Time32MillisecondBuilder::new()),
                })
                .collect(),
            tc_base: Int32Builder::new(),
            tc_increment: Int32Builder::new(),
            tags: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            game_result: StringBuilder::new(),
            ply_count: UInt32Builder::new(),
            uci: ListBuilder::new(StringBuilder::new()),
            san: ListBuilder::new(StringBuilder::new()),
            clk_ms: ListBuilder::new(Int64Builder::new()),
            emt_ms: ListBuilder::new(Int64Builder::new()),
            eval_cp: ListBuilder::new(Int32Builder::new()),
            eval_mate: ListBuilder::new(Int32Builder::new()),
            nags: ListBuilder::new(ListBuilder::new(UInt8Builder::new())),
            movetext: StringBuilder::new(),
            rows: 0,
            text: String::new(),
            export: Vec::new(),
            seen: vec![false; TAG_COLUMNS.len()],
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

    /// Appends `game` as row `game_id`. The game's tags are taken out to
    /// write its movetext alone and put back.
    pub fn append(&mut self, game_id: u64, game: &mut Game) {
        self.rows += 1;
        self.game_id.append_value(game_id);
        self.append_tags(game);
        self.game_result
            .append_option(game.result.map(|r| r.as_str()));
        let mut plies = 0u32;
        let mode = values::uci_mode(game);
        for id in game.tree.mainline() {
            let node = game.tree.node(id);
            let Some(ply) = &node.ply else { continue };
            plies += 1;
            self.text.clear();
            values::uci(ply.mv, mode, &mut self.text);
            self.uci.values().append_value(&self.text);
            self.san.values().append_value(&ply.san);
            let notes = PlyNotes::of(node);
            self.clk_ms.values().append_option(notes.clk_ms);
            self.emt_ms.values().append_option(notes.emt_ms);
            self.eval_cp.values().append_option(notes.eval_cp);
            self.eval_mate.values().append_option(notes.eval_mate);
            let nags = self.nags.values();
            nags.values().append_slice(&node.nags);
            nags.append(true);
        }
        self.ply_count.append_value(plies);
        self.uci.append(true);
        self.san.append(true);
        self.clk_ms.append(true);
        self.emt_ms.append(true);
        self.eval_cp.append(true);
        self.eval_mate.append(true);
        self.nags.append(true);
        self.append_movetext(game);
    }

    fn append_tags(&mut self, game: &Game) {
        self.seen.fill(false);
        let mut values: Vec<Option<&str>> = vec![None; TAG_COLUMNS.len()];
        for tag in game.tags.iter() {
            let column = TAG_COLUMNS
                .iter()
                .position(|&(_, name, _)| name == tag.name)
                .filter(|&i| !self.seen[i]);
            let typed = column.filter(|&i| match TAG_COLUMNS[i].2 {
                Kind::Text => true,
                Kind::Int => values::parse_int(&tag.value).is_some(),
                Kind::Signed => values::parse_signed(&tag.value).is_some(),
                Kind::Date => values::parse_date(&tag.value).is_some(),
                Kind::Time => values::parse_time(&tag.value).is_some(),
            });
            match typed {
                Some(i) => {
                    self.seen[i] = true;
                    values[i] = Some(&tag.value);
                }
                None => {
                    self.tags.keys().append_value(&tag.name);
                    self.tags.values().append_value(&tag.value);
                }
            }
        }
        let _ = self.tags.append(true);
        for ((column, value), (_, _, kind)) in
            self.tag_columns.iter_mut().zip(&values).zip(&TAG_COLUMNS)
        {
            match column {
                TagColumn::Text(b) => b.append_option(*value),
                TagColumn::Int(b) if *kind == Kind::Signed => {
                    b.append_option(value.and_then(values::parse_signed))
                }
                TagColumn::Int(b) => b.append_option(value.and_then(values::parse_int)),
                TagColumn::Date(b) => b.append_option(value.and_then(values::parse_date)),
                TagColumn::Time(b) => {
                    b.append_option(value.and_then(values::parse_time).map(|s| s * 1000))
                }
            }
        }
        let control = game
            .tags
            .get("TimeControl")
            .and_then(values::parse_time_control);
        self.tc_base.append_option(control.map(|c| c.0));
        self.tc_increment.append_option(control.map(|c| c.1));
    }

    fn append_movetext(&mut self, game: &mut Game) {
        let tags = std::mem::take(&mut game.tags);
        let opts = WriteOptions {
            line_limit: usize::MAX,
            ..WriteOptions::default()
        };
        self.export.clear();
        write_game(game, &opts, &mut self.export);
        game.tags = tags;
        let text = String::from_utf8_lossy(&self.export);
        let movetext = match text.find("\n\n") {
            Some(at) => &text[at + 2..],
            None => &text[..],
        };
        self.movetext.append_value(movetext.trim_end());
    }

    /// The record batch of the rows appended (the builder is left empty).
    pub fn finish(mut self) -> RecordBatch {
        let mut columns: Vec<(&str, ArrayRef, bool)> = Vec::new();
        columns.push(("game_id", Arc::new(self.game_id.finish()), false));
        for ((name, _, _), column) in TAG_COLUMNS.iter().zip(&mut self.tag_columns) {
            let array: ArrayRef = match column {
                TagColumn::Text(b) => Arc::new(b.finish()),
                TagColumn::Int(b) => Arc::new(b.finish()),
                TagColumn::Date(b) => Arc::new(b.finish()),
                TagColumn::Time(b) => Arc::new(b.finish()),
            };
            columns.push((name, array, true));
            if *name == "time_control" {
                columns.push(("time_control_base_s", Arc::new(self.tc_base.finish()), true));
                columns.push((
                    "time_control_increment_s",
                    Arc::new(self.tc_increment.finish()),
                    true,
                ));
            }
        }
        columns.push(("tags", Arc::new(self.tags.finish()), false));
        columns.push(("game_result", Arc::new(self.game_result.finish()), true));
        columns.push(("ply_count", Arc::new(self.ply_count.finish()), false));
        columns.push(("uci", Arc::new(self.uci.finish()), false));
        columns.push(("san", Arc::new(self.san.finish()), false));
        columns.push(("clk_ms", Arc::new(self.clk_ms.finish()), false));
        columns.push(("emt_ms", Arc::new(self.emt_ms.finish()), false));
        columns.push(("eval_cp", Arc::new(self.eval_cp.finish()), false));
        columns.push(("eval_mate", Arc::new(self.eval_mate.finish()), false));
        columns.push(("nags", Arc::new(self.nags.finish()), false));
        columns.push(("movetext", Arc::new(self.movetext.finish()), false));
        batch(columns)
    }
}

/// A record batch of named columns with the given nullability.
pub(crate) fn batch(columns: Vec<(&str, ArrayRef, bool)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable))
        .collect();
    let arrays = columns.into_iter().map(|(_, a, _)| a).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .expect("columns built together have equal lengths")
}
