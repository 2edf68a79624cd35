//! The integration tests of `gamerec-view`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-view --test integration MODULE::`.

// Helpers shared by the modules (also used by gamerec-cli's tests).
mod common;

mod chess_svg;
mod diagram_svg;
mod png;
mod viewer_json;
