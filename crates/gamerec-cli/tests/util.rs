//! Helpers shared by the CLI test modules (ripgrep's `tests/util.rs`).

use gamerec_testkit::Cli;

/// The `gamerec` binary these tests run.
pub const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

/// `gamerec ARGS` with an empty stdin: add `.stdin(..)`, then `.run()`
/// (or `.run_ok()`, which asserts success).
pub fn cli(args: &[&str]) -> Cli {
    Cli::new(GAMEREC).args(args)
}
