//! Helpers shared by the CLI test modules (ripgrep's `tests/util.rs`).

use std::path::{Path, PathBuf};

use gamerec::model::Game;
use gamerec_testkit::Cli;

/// The `gamerec` binary these tests run.
pub const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

/// `gamerec ARGS` with an empty stdin: add `.stdin(..)`, then `.run()`
/// (or `.run_ok()`, which asserts success).
pub fn cli(args: &[&str]) -> Cli {
    Cli::new(GAMEREC).args(args)
}

/// A new, empty directory for one test: `gamerec-PREFIX-NAME-PID` in the
/// temporary directory (emptied first if a killed run left it).
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gamerec-{prefix}-{name}-{}", std::process::id()));
    gamerec_testkit::remove_at_exit(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The games of a PGN file, asserting that none has an error.
pub fn read_pgn(path: &Path) -> Vec<Game> {
    let text = std::fs::read(path).unwrap();
    let (games, problems) = gamerec::pgn::read_games(&text);
    assert!(
        problems
            .iter()
            .all(|p| p.severity != gamerec::diag::Severity::Error),
        "{problems:?}"
    );
    games
}

/// A JSON file's value.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
