//! The verbs: one module per verb or verb family, each holding its
//! arguments (clap) and its rendering over the libraries.

pub mod check;
pub mod convert;
#[cfg(feature = "data")]
pub mod data;
#[cfg(not(feature = "data"))]
#[path = "not_built/data.rs"]
pub mod data;
pub mod db;
pub mod epd;
pub mod epd_engine;
#[cfg(feature = "server")]
pub mod go;
#[cfg(not(feature = "server"))]
#[path = "not_built/go.rs"]
pub mod go;
pub mod html;
pub mod moves;
#[cfg(feature = "server")]
pub mod referee;
#[cfg(not(feature = "server"))]
#[path = "not_built/referee.rs"]
pub mod referee;
pub mod sgf;
pub mod sort;
pub mod svg;
// Stand-ins for the verbs of features this build leaves out.
#[cfg(not(all(feature = "data", feature = "server")))]
pub mod not_built;
