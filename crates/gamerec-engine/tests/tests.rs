//! The integration tests of `gamerec-engine`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-engine --test integration MODULE::`.

mod builtin;
mod drivers;
mod gnugo_score;
mod gtp;
mod mate;
