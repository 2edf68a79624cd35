//! Smart Game Format FF\[1\]..FF\[4\]: parser, writer, Go and Othello semantics.
//!
//! * [`parse`] reads bytes in any charset into a [`Collection`] (an arena
//!   tree) plus [`SgfDiagnostic`]s; damage is reported and the rest read.
//! * [`write`] writes a collection back (file's own FF, or FF\[4\] after
//!   [`upgrade`]); `parse(write(x)) == x`.
//! * [`go`] and [`othello`] hold the board rules; [`replay`] plays a game to
//!   any node and checks every move; [`score`] counts a finished game.

pub mod charset;
pub mod checks;
pub mod go;
pub mod json;
pub mod othello;
pub mod parser;
pub mod props;
pub mod replay;
pub mod rules;
pub mod score;
pub mod tree;
pub mod upgrade;
pub mod writer;

pub use charset::FileDecoding;
pub use checks::SgfCheck;
pub use parser::{
    PART_BYTES, ParseBuffers, ParseOptions, Parsed, PartPlace, PartState, SgfDiagnostic,
    StreamParts, parse, parse_part, parse_unindexed, parse_unindexed_reusing, parts_allowed,
};
pub use props::{Prop, PropKind, ValueType};
pub use tree::{Collection, Color, GameInfo, NodeId, Point, PropRef, Str, Value};
pub use writer::{WriteOptions, write, write_to_string};
