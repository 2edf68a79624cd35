//! The integration tests of `gamerec-arrow`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-arrow --test integration MODULE::`.

mod damaged;
mod go_tables;
mod streaming;
mod tables;
