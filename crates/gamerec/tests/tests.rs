//! The integration tests of `gamerec`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec --test integration MODULE::`.

mod binary_corpus;
mod epd;
mod epd_corpus;
mod epd_python_chess;
mod io_parallel;
mod io_round_trip;
mod not_listed;
mod oversized;
mod perft;
mod pgn_corpus;
mod pgn_fuzz_regressions;
mod pgn_semantics_corpus;
mod polyglot_python_chess;
mod resume;
mod san_roundtrip;
mod scaling;
mod sgf;
mod sgf_fuzz_regressions;
mod sgf_rules;
mod sgf_sgfmill;
mod small_messages;
