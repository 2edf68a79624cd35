#![no_main]
//! The PGN reader's properties (see `../properties/pgn_reader.rs`) on any input.
use libfuzzer_sys::fuzz_target;

include!("../properties/pgn_reader.rs");

fuzz_target!(|data: &[u8]| check_pgn_reader_properties(data));
