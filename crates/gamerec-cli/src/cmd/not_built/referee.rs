//! `gamerec referee` without the `server` feature (no tokio in this build).

use std::process::ExitCode;

pub use crate::cmd::not_built::Missing as RefereeArgs;

/// `gamerec referee`: the feature is missing.
pub fn referee(_args: RefereeArgs) -> ExitCode {
    crate::cmd::not_built::missing("referee", "server")
}
