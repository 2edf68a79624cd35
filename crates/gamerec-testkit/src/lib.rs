//! Test support shared by the gamerec crates (dev-dependency only).
//!
//! * [`shared_dir`] / [`corpus`]: where `../shared` (specs, corpus, bench) is.
//! * [`peer`]: finds an external program (python-chess venv, Debian engines,
//!   pgn-extract). When `GAMEREC_REQUIRE_PEERS=1` (set by `.ci/run`) a missing
//!   peer fails the test; otherwise the test prints why it skipped.

use std::path::{Path, PathBuf};

/// The `shared/` folder beside the repository (override: `GAMEREC_SHARED`).
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GAMEREC_SHARED") {
        return PathBuf::from(dir);
    }
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    // crates/gamerec-testkit -> repository root -> its parent
    dir.pop();
    dir.pop();
    dir.pop();
    dir.join("shared")
}

/// A path below `shared/corpus`.
pub fn corpus(rel: &str) -> PathBuf {
    shared_dir().join("corpus").join(rel)
}

/// A path below `shared/specs`.
pub fn spec(rel: &str) -> PathBuf {
    shared_dir().join("specs").join(rel)
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    dir.pop();
    dir.pop();
    dir
}

/// Whether missing peers must fail tests (`GAMEREC_REQUIRE_PEERS=1`).
pub fn peers_required() -> bool {
    std::env::var("GAMEREC_REQUIRE_PEERS").is_ok_and(|v| v == "1")
}

/// Finds an external program by name: an absolute path, `$PATH`, then
/// `/usr/games`. `None` (after printing why) when it is missing and peers are
/// not required.
///
/// # Panics
/// When the program is missing and `GAMEREC_REQUIRE_PEERS=1`.
pub fn peer(name: &str) -> Option<PathBuf> {
    let candidate = Path::new(name);
    let found = if candidate.is_absolute() {
        candidate.is_file().then(|| candidate.to_path_buf())
    } else {
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .chain([PathBuf::from("/usr/games")])
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    };
    if found.is_none() {
        assert!(
            !peers_required(),
            "peer program `{name}` is missing and GAMEREC_REQUIRE_PEERS=1"
        );
        eprintln!("skipped: peer program `{name}` not installed (run .ci/run to install peers)");
    }
    found
}

/// The Python interpreter of the test virtualenv that has python-chess
/// (`GAMEREC_PYTHON`, else `<repo>/.venv/bin/python`).
pub fn python_chess() -> Option<PathBuf> {
    let python = std::env::var_os("GAMEREC_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
    peer(python.to_str()?)
}
