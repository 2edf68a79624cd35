//! The integration tests of `gamerec-cli`, one test binary (ripgrep's layout):
//! each file of `tests/` is a module here. Run one with
//! `cargo test -p gamerec-cli --test integration MODULE::`.

// Shared by the modules: the `cli(args)` helper, a Chrome DevTools client and
// gamerec-view's SVG helpers.
mod cdp;
#[path = "../../gamerec-view/tests/common/mod.rs"]
mod common;
mod util;

mod bounded_memory;
mod cli;
mod cli_decides_no_format;
mod data_cli;
mod db_explorer_chromium;
mod db_find;
mod db_find_filters;
mod db_index_trust;
mod db_notation_roundtrip;
mod db_pgn_extract;
mod db_serve;
mod docs_commands;
mod engine_cli;
mod epd_cli;
mod full_disk;
mod go_cli;
mod html_viewer;
mod io_defects;
mod match_faults;
// Uses gamerec-referee's library (feature `server`).
#[cfg(feature = "server")]
mod match_runner;
mod pgn_cli;
mod pipeline_agreement;
mod python_chess;
mod referee_exact_clocks;
mod referee_failover;
mod referee_faults;
// Uses gamerec-referee's library (feature `server`).
#[cfg(feature = "server")]
mod referee_real_match;
mod referee_soak;
mod report_chromium;
mod sgf_cli;
mod sgfc_graded;
mod sort_split;
// Uses gamerec-referee's library (feature `server`).
#[cfg(feature = "server")]
mod spectator_chromium;
mod split_shards;
mod svg_cli;
mod variants;
