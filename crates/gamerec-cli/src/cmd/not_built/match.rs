//! `gamerec match` without the `server` feature (no tokio in this build).

use std::process::ExitCode;

pub use crate::cmd::not_built::Missing as MatchArgs;

/// `gamerec match`: the feature is missing.
pub fn run_match(_args: MatchArgs) -> ExitCode {
    crate::cmd::not_built::missing("match", "server")
}
