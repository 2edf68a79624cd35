//! Per-format drivers of the verbs shared by several formats (`check`,
//! `convert`): PGN through the library's parallel reader, the binary and
//! line formats through its one reader, tables through `gamerec-arrow`.

pub mod binary;
pub mod pgn;
#[cfg(feature = "data")]
pub mod tables;
#[cfg(not(feature = "data"))]
#[path = "../cmd/not_built/tables.rs"]
pub mod tables;
