//! Extended Position Description (EPD, 1995 specification; PGN standard
//! 16.2): records, operand basetypes, every opcode of section 6, the data
//! verbs `pfdn` (normalize) and `pfop` (purge), the comment/variation
//! registers, and conversions to and from games and FEN. Issue #4.
//!
//! ```
//! use gamerec::epd::{EpdRecord, Operation, Opcode, normalized_line};
//! let mut rec: EpdRecord = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\"; bm Qg6;"
//!     .parse()
//!     .unwrap();
//! rec.set(Operation::integer(Opcode::Ce, 300));
//! assert_eq!(rec.string("id"), Some("WAC.001"));
//! assert_eq!(
//!     normalized_line(&rec),
//!     "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; ce 300; id \"WAC.001\";"
//! );
//! ```

pub mod basetypes;
pub mod convert;
pub mod normalize;
pub mod opcodes;
pub mod purge;
pub mod reader;
pub mod record;
pub mod registers;
pub mod writer;

pub use normalize::{normalize, normalized_line};
pub use opcodes::{Evaluation, Opcode, Shape, ce_mate_in, ce_mated_in, ce_meaning, ce_value};
pub use purge::purge;
pub use reader::{LineRead, decode, read_all, read_line, read_lines};
pub use record::{EpdMove, EpdPosition, EpdRecord, Operand, Operation};
pub use registers::{Registers, scan};
