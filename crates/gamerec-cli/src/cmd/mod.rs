//! The verbs: one module per verb or verb family, each holding its
//! arguments (clap) and its rendering over the libraries.

#[cfg(feature = "server")]
pub mod bridge;
#[cfg(not(feature = "server"))]
#[path = "not_built/bridge.rs"]
pub mod bridge;
pub mod check;
pub mod convert;
pub mod db;
pub mod dedup;
pub mod eco;
pub mod epd;
pub mod epd_engine;
pub mod filter;
pub mod find;
#[cfg(feature = "server")]
pub mod go;
#[cfg(not(feature = "server"))]
#[path = "not_built/go.rs"]
pub mod go;
pub mod html;
pub mod index;
#[cfg(feature = "server")]
pub mod r#match;
#[cfg(not(feature = "server"))]
#[path = "not_built/match.rs"]
pub mod r#match;
pub mod moves;
#[cfg(feature = "data")]
pub mod positions;
#[cfg(not(feature = "data"))]
#[path = "not_built/positions.rs"]
pub mod positions;
#[cfg(feature = "server")]
pub mod referee;
#[cfg(not(feature = "server"))]
#[path = "not_built/referee.rs"]
pub mod referee;
pub mod report;
pub mod serve;
pub mod sgf;
pub mod show;
pub mod sort;
pub mod split;
pub mod svg;
// Stand-ins for the verbs of features this build leaves out.
#[cfg(not(all(feature = "data", feature = "server")))]
pub mod not_built;
