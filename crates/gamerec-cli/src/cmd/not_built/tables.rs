//! The table cases of `convert` without the `data` feature (no
//! Arrow/Parquet in this build).

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

fn is_table(path: &Path) -> bool {
    matches!(
        gamerec::io::Input::file(path).format_by_name(),
        Some(gamerec::io::Format::Parquet | gamerec::io::Format::Arrow)
    )
}

// The dataset options of `convert`, accepted so that a command line reads
// the same in every build; a dataset needs the feature.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DatasetArgs {
    /// A Hive-partitioned dataset (needs the `data` feature).
    #[arg(long, value_name = "KEYS")]
    pub partition_by: Option<String>,
    /// Dataset file size bound (needs the `data` feature).
    #[arg(long, value_name = "BYTES")]
    pub max_file_size: Option<String>,
    /// Dataset rows per file (needs the `data` feature).
    #[arg(long, value_name = "ROWS")]
    pub max_file_rows: Option<u64>,
    /// Replace a dataset directory (needs the `data` feature).
    #[arg(long)]
    pub overwrite: bool,
    /// Add to a dataset directory (needs the `data` feature).
    #[arg(long)]
    pub append: bool,
}

/// `convert` to or from a table or dataset: the feature is missing; else `None`.
pub fn convert(
    inputs: &[OsString],
    output: Option<&Path>,
    _threads: Option<usize>,
    _max_game_bytes: u64,
    _quiet: bool,
    dataset: &DatasetArgs,
) -> Option<Result<ExitCode>> {
    let dir = output.is_some_and(|o| {
        o.as_os_str()
            .to_string_lossy()
            .ends_with(std::path::MAIN_SEPARATOR)
    });
    let tables = dataset.partition_by.is_some()
        || dir
        || output.is_some_and(is_table)
        || inputs.iter().any(|i| is_table(Path::new(i)));
    tables.then(|| Ok(crate::cmd::not_built::missing("convert", "data")))
}
