//! The integration tests of `gamerec-db`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-db --test integration MODULE::`.

mod explorer_differential;
mod index_corruption;
mod index_differential;
mod parse_robustness;
mod python_differential;
