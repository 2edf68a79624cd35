//! gamerec: read, check, convert and write game records.
//!
//! Data flows one way: **bytes → codec → model → codec → bytes**. Each format
//! is one module; chess formats share the game model of [`model`], SGF has its
//! own tree model in [`sgf`]. Chess rules come from [`shakmaty`].
//!
//! | module | format |
//! |---|---|
//! | [`fen`] | Forsyth-Edwards Notation (and the 4-field EPD position) |
//! | [`san`] | Standard Algebraic Notation: canonical writing, tolerant reading |
//! | [`pgn`] | Portable Game Notation, import and export formats, 2001 supplement |
//! | [`epd`] | Extended Position Description records and opcodes |
//! | [`pgc`] | Portable Game Notation Compressed (binary) |
//! | [`chessbase`] | ChessBase DOS CBF/CBI game files and FBK opening files |
//! | [`sgf`] | Smart Game Format FF\[1\]..FF\[4\] |
//!
//! [`io`] (feature `io`, default) is the one input/output layer over all of
//! them: formats by extension and content, compressed inputs, one reader and
//! one writer for every chess format, the parallel PGN reader.

pub mod caught;
pub mod chessbase;
pub mod diag;
pub mod epd;
pub mod excerpt;
pub mod fen;
#[cfg(feature = "io")]
pub mod io;
pub mod json_text;
pub mod model;
pub mod pgc;
pub mod pgn;
pub mod polyglot;
pub mod san;
pub mod sgf;
pub mod variant;
#[doc(hidden)]
pub mod work;

pub use shakmaty;
