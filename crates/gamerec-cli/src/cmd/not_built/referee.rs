//! `gamerec referee`, `bridge` and `match` without the `server` feature
//! (no tokio in this build).

use std::process::ExitCode;

pub use crate::cmd::not_built::Missing as RefereeArgs;
pub use crate::cmd::not_built::Missing as BridgeArgs;
pub use crate::cmd::not_built::Missing as MatchArgs;

/// `gamerec referee`: the feature is missing.
pub fn referee(_args: RefereeArgs) -> ExitCode {
    crate::cmd::not_built::missing("referee", "server")
}

/// `gamerec bridge`: the feature is missing.
pub fn bridge(_args: BridgeArgs) -> ExitCode {
    crate::cmd::not_built::missing("bridge", "server")
}

/// `gamerec match`: the feature is missing.
pub fn run_match(_args: MatchArgs) -> ExitCode {
    crate::cmd::not_built::missing("match", "server")
}
