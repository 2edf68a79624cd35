//! Game databases over the gamerec model: select, deduplicate, classify and
//! index games.
//!
//! | module | what |
//! |---|---|
//! | [`position`] | position keys (Zobrist), the main-line replay every matcher shares |
//! | [`pattern`] | board patterns with wildcards and piece sets (FEN-like) |
//! | [`material`] | material specifications (`KQR*vKR*`, relative counts) |
//! | [`ending`] | how a game ended on the board (mate, stalemate, repetition, ...) |
//! | [`filter`] | the filter expression language (tags, positions, material, and/or/not) |
//! | [`dedup`] | duplicate detection by start position and moves (and tags) |
//! | [`eco`] | ECO classification against a PGN file of opening lines |
//! | [`source`] | reading games in parallel, in input order (the one place that reads) |
//! | [`index`] | the position index file: build, append, query, opening tree |
//! | [`frames`] | the frame table of a zstd database, for seeking in it |
//! | [`identity`] | what an index records of its database (size, time, hashes) |
//! | [`meta`] | speed classes, player name hashes, dates kept per game |
//! | [`explorer`] | the opening explorer: filtered trees, top games, lichess JSON |
//!
//! Positions are compared as FIDE's repetition rule compares them: piece
//! placement, side to move, castling rights and a legal en passant capture.

pub mod dedup;
pub mod eco;
pub mod ending;
pub mod explorer;
pub mod filter;
pub mod frames;
pub mod identity;
pub mod index;
pub mod material;
pub mod meta;
pub mod pattern;
pub mod position;
pub mod source;
