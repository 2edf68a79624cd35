//! `gamerec bridge` without the `server` feature (no tokio in this build).

use std::process::ExitCode;

pub use crate::cmd::not_built::Missing as BridgeArgs;

/// `gamerec bridge`: the feature is missing.
pub fn bridge(_args: BridgeArgs) -> ExitCode {
    crate::cmd::not_built::missing("bridge", "server")
}
