//! The integration tests of `gamerec-referee`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-referee --test integration MODULE::`.

mod event;
mod go_match;
mod identity;
mod protocol;
mod stats;
