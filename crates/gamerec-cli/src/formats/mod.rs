//! Per-format drivers of the verbs shared by several formats (`check`,
//! `convert`): PGN through the library's parallel reader, the binary and
//! line formats through its one reader.

pub mod binary;
pub mod pgn;
