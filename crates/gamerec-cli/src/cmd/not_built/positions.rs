//! `gamerec positions` without the `data` feature (no Arrow/Parquet in
//! this build).

use std::process::ExitCode;

use anyhow::Result;

pub use crate::cmd::not_built::Missing as PositionsArgs;

/// `gamerec positions`: the feature is missing.
pub fn positions(_args: PositionsArgs) -> Result<ExitCode> {
    Ok(crate::cmd::not_built::missing("positions", "data"))
}
