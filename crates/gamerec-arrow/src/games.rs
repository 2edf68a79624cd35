//! The games table: one row per game.

use std::sync::Arc;

use arrow_array::builder::{Date32Builder, Int32Builder, Int64Builder, MapBuilder, StringBuilder};
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use gamerec::model::Game;
use gamerec::pgn::{WriteOptions, write_game};

use crate::columns::{ByteLists, Optionals, Strings, list, offset};
use crate::schema::{Kind, TAG_COLUMNS};
use crate::values::{self, PlyNotes};

enum TagColumn {
    Text(StringBuilder),
    Int(Int32Builder),
    Date(Date32Builder),
    /// Milliseconds since midnight.
    Time(Int32Builder),
}

/// Builds one record batch of the games table, from [`Game`]s
/// ([`GamesBuilder::append`]) or straight from the reader's events
/// ([`crate::visit::GamesVisitor`]).
pub struct GamesBuilder {
    game_id: Int64Builder,
    tag_columns: Vec<TagColumn>,
    tc_base: Int32Builder,
    tc_increment: Int32Builder,
    tags: MapBuilder<StringBuilder, StringBuilder>,
    game_result: StringBuilder,
    ply_count: Int32Builder,
    /// Where each row's plies start in the per-ply columns (one more entry
    /// than rows): every per-ply list shares these offsets.
    plies: Vec<i32>,
    pub(crate) uci: Strings,
    pub(crate) san: Strings,
    clk_ms: Optionals<Int64Type>,
    emt_ms: Optionals<Int64Type>,
    eval_cp: Optionals<Int32Type>,
    eval_mate: Optionals<Int32Type>,
    nags: ByteLists,
    pub(crate) movetext: Strings,
    rows: usize,
    text: String,
    export: Vec<u8>,
    seen: [bool; TAG_COLUMNS.len()],
}

/// How far a [`GamesBuilder`]'s per-ply columns and movetext had grown
/// (what [`GamesBuilder::truncate`] goes back to).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mark {
    plies: usize,
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
            game_id: Int64Builder::new(),
            tag_columns: TAG_COLUMNS
                .iter()
                .map(|&(_, _, kind)| match kind {
                    Kind::Text => TagColumn::Text(StringBuilder::new()),
                    Kind::Int | Kind::Signed => TagColumn::Int(Int32Builder::new()),
                    Kind::Date => TagColumn::Date(Date32Builder::new()),
                    Kind::Time => TagColumn::Time(Int32Builder::new()),
                })
                .collect(),
            tc_base: Int32Builder::new(),
            tc_increment: Int32Builder::new(),
            tags: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            game_result: StringBuilder::new(),
            ply_count: Int32Builder::new(),
            plies: vec![0],
            uci: Strings::default(),
            san: Strings::default(),
            clk_ms: Optionals::default(),
            emt_ms: Optionals::default(),
            eval_cp: Optionals::default(),
            eval_mate: Optionals::default(),
            nags: ByteLists::default(),
            movetext: Strings::default(),
            rows: 0,
            text: String::new(),
            export: Vec::new(),
            seen: [false; TAG_COLUMNS.len()],
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
        let mode = values::uci_mode(game);
        for id in game.tree.mainline() {
            let node = game.tree.node(id);
            let Some(ply) = &node.ply else { continue };
            self.text.clear();
            values::uci(ply.mv, mode, &mut self.text);
            self.uci.push(self.text.as_bytes());
            self.san.push(ply.san.as_bytes());
            self.push_notes(&PlyNotes::of(node), &node.nags);
        }
        self.append_movetext(game);
        self.end_row(
            game_id,
            game.tags
                .iter()
                .map(|t| (t.name.as_str(), t.value.as_str())),
            game.result.map(|r| r.as_str()),
        );
    }

    /// Makes room for the rows of about `bytes` of PGN (a chunk), so the
    /// per-ply columns and the movetext do not grow by copying.
    pub(crate) fn reserve_for(&mut self, bytes: usize) {
        let plies = bytes / 8;
        self.uci.reserve(plies, plies * 4);
        self.san.reserve(plies, plies * 4);
        self.clk_ms.reserve(plies);
        self.emt_ms.reserve(plies);
        self.eval_cp.reserve(plies);
        self.eval_mate.reserve(plies);
        self.nags.reserve(plies);
        self.plies.reserve(bytes / 512);
        self.movetext.reserve(bytes / 512, bytes);
    }

    /// Where the per-ply columns and the movetext stand now.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            plies: self.uci.len(),
        }
    }

    /// Drops the plies and the movetext bytes stored since `mark` (a game
    /// that failed or is appended another way).
    pub(crate) fn truncate(&mut self, mark: Mark) {
        let n = mark.plies;
        self.uci.truncate(n);
        self.san.truncate(n);
        self.clk_ms.truncate(n);
        self.emt_ms.truncate(n);
        self.eval_cp.truncate(n);
        self.eval_mate.truncate(n);
        self.nags.truncate(n);
        self.movetext.truncate(self.rows);
    }

    /// Stores the notes and NAGs of the ply whose moves were pushed last.
    pub(crate) fn push_notes(&mut self, notes: &PlyNotes, nags: &[u8]) {
        self.clk_ms.push(notes.clk_ms);
        self.emt_ms.push(notes.emt_ms);
        self.eval_cp.push(notes.eval_cp);
        self.eval_mate.push(notes.eval_mate);
        self.nags.push(nags);
    }

    /// Ends the row whose plies and movetext were stored: its id, tags (in
    /// file order) and termination marker.
    pub(crate) fn end_row<'t>(
        &mut self,
        game_id: u64,
        tags: impl Iterator<Item = (&'t str, &'t str)> + Clone,
        result: Option<&str>,
    ) {
        self.rows += 1;
        self.game_id.append_value(game_id as i64);
        self.append_tags(tags);
        self.game_result.append_option(result);
        let start = *self.plies.last().unwrap_or(&0);
        let end = offset(self.uci.len());
        self.ply_count.append_value(end - start);
        self.plies.push(end);
        self.movetext.end_value();
    }

    fn append_tags<'t>(&mut self, tags: impl Iterator<Item = (&'t str, &'t str)> + Clone) {
        self.seen.fill(false);
        let mut values: [Option<&str>; TAG_COLUMNS.len()] = [None; TAG_COLUMNS.len()];
        let mut control = None;
        for (name, value) in tags {
            if name == "TimeControl" && control.is_none() {
                control = Some(value);
            }
            let column = column_of(name).filter(|&i| !self.seen[i]);
            let typed = column.filter(|&i| match TAG_COLUMNS[i].2 {
                Kind::Text => true,
                Kind::Int => values::parse_int(value).is_some(),
                Kind::Signed => values::parse_signed(value).is_some(),
                Kind::Date => values::parse_date(value).is_some(),
                Kind::Time => values::parse_time(value).is_some(),
            });
            match typed {
                Some(i) => {
                    self.seen[i] = true;
                    values[i] = Some(value);
                }
                None => {
                    self.tags.keys().append_value(name);
                    self.tags.values().append_value(value);
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
        let control = control.and_then(values::parse_time_control);
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
        self.movetext
            .bytes
            .extend_from_slice(movetext.trim_end().as_bytes());
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
        let plies = self.plies;
        let per_ply: [(&str, ArrayRef); 7] = [
            ("uci", Arc::new(self.uci.finish())),
            ("san", Arc::new(self.san.finish())),
            ("clk_ms", Arc::new(self.clk_ms.finish())),
            ("emt_ms", Arc::new(self.emt_ms.finish())),
            ("eval_cp", Arc::new(self.eval_cp.finish())),
            ("eval_mate", Arc::new(self.eval_mate.finish())),
            ("nags", Arc::new(self.nags.finish())),
        ];
        for (name, values) in per_ply {
            columns.push((name, Arc::new(list(plies.clone(), values)), false));
        }
        columns.push(("movetext", Arc::new(self.movetext.finish()), false));
        batch(columns)
    }
}

/// The index in [`TAG_COLUMNS`] of the column of tag `name`.
fn column_of(name: &str) -> Option<usize> {
    let i = match name {
        "Event" => 0,
        "Site" => 1,
        "Date" => 2,
        "Round" => 3,
        "White" => 4,
        "Black" => 5,
        "Result" => 6,
        "WhiteElo" => 7,
        "BlackElo" => 8,
        "WhiteRatingDiff" => 9,
        "BlackRatingDiff" => 10,
        "WhiteTitle" => 11,
        "BlackTitle" => 12,
        "UTCDate" => 13,
        "UTCTime" => 14,
        "ECO" => 15,
        "Opening" => 16,
        "Variant" => 17,
        "Termination" => 18,
        "TimeControl" => 19,
        "FEN" => 20,
        _ => return None,
    };
    debug_assert_eq!(TAG_COLUMNS[i].1, name);
    Some(i)
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
