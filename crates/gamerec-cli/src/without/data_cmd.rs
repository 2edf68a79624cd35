//! `gamerec positions` and the table cases of `convert` without the
//! `data` feature (no Arrow/Parquet in this build).

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

pub use crate::without::Missing as PositionsArgs;

fn is_table(path: &Path) -> bool {
    matches!(
        gamerec::io::Input::file(path).format_by_name(),
        Some(gamerec::io::Format::Parquet | gamerec::io::Format::Arrow)
    )
}

/// `convert` to or from a table: the feature is missing; else `None`.
pub fn convert(
    inputs: &[OsString],
    output: Option<&Path>,
    _threads: Option<usize>,
    _max_game_bytes: u64,
    _quiet: bool,
) -> Option<Result<ExitCode>> {
    let tables = output.is_some_and(is_table) || inputs.iter().any(|i| is_table(Path::new(i)));
    tables.then(|| Ok(crate::without::missing("convert", "data")))
}

/// `gamerec positions`: the feature is missing.
pub fn positions(_args: PositionsArgs) -> Result<ExitCode> {
    Ok(crate::without::missing("positions", "data"))
}
