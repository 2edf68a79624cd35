//! Portable Game Notation: import (lenient) and export (strict) formats, the
//! 2001 supplement's embedded commands, tag semantics and collation.
//!
//! | file | what |
//! |---|---|
//! | `visitor` | the push API: [`Visitor`], [`Flow`], [`Stop`], [`Problem`] |
//! | `reader` | zero-copy tokenizer and game parser over a byte slice: [`SliceReader`] |
//! | `stream` | bounded-memory streaming over any `Read`: [`Chunker`], [`Reader`] |
//! | `check` | the legality checker behind `gamerec check`: [`Checker`] |
//! | `builder` | a visitor that builds [`crate::model::Game`]: [`GameBuilder`], [`read_games`] |
//! | `text` | per-game Latin-1/UTF-8 detection and export encodings |
//! | `writer` | export format (section 8): [`write_game`] |
//! | `json` | JSON Lines export: [`write_game_json`] |
//! | `commands` | `[%name operands]` embedded commands (supplement 2001) |
//! | `tags` | tag value semantics and strict checks (Date, Round, TimeControl, ...) |
//! | `collate` | the standard's collation order for sorting games |
//! | `timecontrol` | clock values, the TimeControl and Clock tags, derived move times |

pub mod builder;
pub mod check;
pub mod collate;
pub mod commands;
pub mod json;
pub mod reader;
pub mod stream;
pub mod tags;
pub mod text;
pub mod timecontrol;
pub mod visitor;
pub mod writer;

pub use builder::{BuildOptions, GameBuilder, read_games};
pub use check::{CheckOptions, Checker};
pub use json::write_game_json;
pub use reader::{SliceReader, parse_result};
pub use stream::{
    BufferPool, Chunk, ChunkRange, ChunkView, Chunker, Planned, RangePlanner, Reader,
};
pub use text::Encoding;
pub use visitor::{Flow, GameEnd, GameStart, Problem, RawValue, Skip, SkipAll, Stop, Visitor};
pub use writer::{Notation, WriteOptions, write_game};

#[cfg(test)]
mod tests;
