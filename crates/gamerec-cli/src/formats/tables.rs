//! Games as data over `gamerec-arrow`: `convert` to and from Parquet /
//! Arrow IPC tables and datasets, and the table writer `positions` uses.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use gamerec::io::{GameWriter, Item, Record, WriteOptions};
use gamerec_arrow::partition::{DatasetOptions, DatasetWriter};
use gamerec_arrow::{Batches, FileKind, Options, PositionFilter, Table, TableWriter};

use crate::progress::Progress;

// Options of a table written as a dataset directory of Parquet files.
#[derive(Args, Debug, Clone, Default)]
pub struct DatasetArgs {
    /// Write a Hive-partitioned dataset into the -o directory
    /// (`DIR/year=2024/month=1/part-00000.parquet`), by any of: year,
    /// month (of UTCDate, else Date), variant, speed (lichess's class of
    /// TimeControl). An -o ending in `/` is a dataset without this.
    #[arg(long, value_name = "KEYS")]
    pub partition_by: Option<String>,
    /// Dataset: start a new file after about this many bytes (`128M`, `1G`).
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub max_file_size: Option<u64>,
    /// Dataset: at most this many rows per file.
    #[arg(long, value_name = "ROWS")]
    pub max_file_rows: Option<u64>,
    /// Dataset: replace a directory that is not empty (once the new
    /// dataset is complete).
    #[arg(long, conflicts_with = "append")]
    pub overwrite: bool,
    /// Dataset: add files to a directory that is not empty.
    #[arg(long)]
    pub append: bool,
}

impl DatasetArgs {
    /// Whether `output` is written as a dataset directory: `--partition-by`
    /// given, or a path ending in `/`.
    pub(crate) fn is_dataset(&self, output: &Path) -> bool {
        self.partition_by.is_some()
            || output
                .as_os_str()
                .to_string_lossy()
                .ends_with(std::path::MAIN_SEPARATOR)
    }

    fn options(&self, threads: usize) -> Result<DatasetOptions> {
        use gamerec_arrow::partition::{
            DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILE_ROWS, Existing, parse_keys,
        };
        let keys = match &self.partition_by {
            Some(k) => parse_keys(k).map_err(|e| anyhow::anyhow!("--partition-by: {e}"))?,
            None => Vec::new(),
        };
        Ok(DatasetOptions {
            keys,
            max_file_rows: self.max_file_rows.unwrap_or(DEFAULT_MAX_FILE_ROWS).max(1),
            max_file_bytes: self.max_file_size.unwrap_or(DEFAULT_MAX_FILE_BYTES).max(1),
            existing: if self.overwrite {
                Existing::Overwrite
            } else if self.append {
                Existing::Append
            } else {
                Existing::Refuse
            },
            threads,
            ..DatasetOptions::default()
        })
    }

    /// The dataset options apply only with a dataset output.
    pub(crate) fn refuse_without_dataset(&self) -> Result<()> {
        if self.max_file_size.is_some()
            || self.max_file_rows.is_some()
            || self.overwrite
            || self.append
        {
            anyhow::bail!(
                "--max-file-size, --max-file-rows, --overwrite and --append apply to a dataset \
                 output (-o DIR/ or --partition-by)"
            );
        }
        Ok(())
    }
}

/// `128M`, `1G`, `64k`, `1000`: bytes (powers of 1024).
fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?}: expected a size such as 128M"))?;
    let shift = match unit.to_ascii_lowercase().trim_end_matches(['b', 'i']) {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("{s:?}: expected a size such as 128M")),
    };
    n.checked_mul(1 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?}: out of range"))
}

pub(crate) fn threads(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

pub(crate) fn is_table(path: &Path) -> bool {
    table_kind(path).is_some()
}

/// The table kind of a path (the library's format decision).
fn table_kind(path: &Path) -> Option<FileKind> {
    FileKind::of_format(gamerec::io::Input::file(path).format_by_name()?)
}

/// The `convert` cases this module handles: writing a `.parquet`/`.arrow`
/// games table, or reading such tables back as PGN. `None`: not a table
/// conversion, the caller goes on. Tables are read back into any chess
/// format the output names (PGN by default).
pub fn convert(
    inputs: &[OsString],
    output: Option<&Path>,
    threads_arg: Option<usize>,
    max_game_bytes: u64,
    quiet: bool,
    dataset: &DatasetArgs,
) -> Option<Result<ExitCode>> {
    let paths: Vec<PathBuf> = inputs.iter().map(PathBuf::from).collect();
    // The games table's options, for either kind of table output.
    let opts = || Options {
        table: Table::Games,
        threads: threads(threads_arg),
        filter: PositionFilter::default(),
        names: Vec::new(),
        max_game_bytes,
    };
    if let Some(output) = output.filter(|o| dataset.is_dataset(o)) {
        return Some(write_table(
            "convert",
            paths,
            output,
            opts(),
            quiet,
            dataset,
        ));
    }
    if let Err(e) = dataset.refuse_without_dataset() {
        return Some(Err(e));
    }
    if output.is_some_and(is_table) {
        let output = output?;
        return Some(write_table(
            "convert",
            paths,
            output,
            opts(),
            quiet,
            &DatasetArgs::default(),
        ));
    }
    if !paths.is_empty() && paths.iter().all(|p| is_table(p)) {
        return Some(tables_to_games(&paths, output, quiet));
    }
    None
}

/// Where `write_table` writes: one file, or a dataset directory.
enum Sink {
    File(TableWriter),
    Dataset(DatasetWriter),
}

impl Sink {
    fn write(&mut self, batch: &gamerec_arrow::RecordBatch) -> Result<(), gamerec_arrow::Error> {
        match self {
            Sink::File(w) => w.write(batch),
            Sink::Dataset(w) => w.write(batch),
        }
    }

    fn rows(&self) -> u64 {
        match self {
            Sink::File(w) => w.rows(),
            Sink::Dataset(w) => w.rows(),
        }
    }

    fn commit(self) -> Result<(), gamerec_arrow::Error> {
        match self {
            Sink::File(w) => w.commit(),
            Sink::Dataset(w) => w.commit(),
        }
    }
}

pub(crate) fn write_table(
    verb: &str,
    paths: Vec<PathBuf>,
    output: &Path,
    opts: Options,
    quiet: bool,
    dataset: &DatasetArgs,
) -> Result<ExitCode> {
    // Chess or Go tables, by the inputs (SGF: Go).
    let table_schema = gamerec_arrow::go::table_schema(&paths, opts.table)?;
    let mut writer = if dataset.is_dataset(output) {
        let options = dataset.options(opts.threads)?;
        Sink::Dataset(DatasetWriter::create(output, table_schema, options)?)
    } else {
        let kind = table_kind(output).context("not a table extension")?;
        // Errors name the output (gamerec::io::AtomicFile).
        Sink::File(TableWriter::create(output, kind, table_schema)?.with_threads(opts.threads))
    };
    let progress = Progress::new(None);
    let (mut games, mut bad_inputs, mut errors) = (0u64, 0u64, 0u64);
    let mut warnings = 0u64;
    let mut error_games = gamerec::io::pipeline::ErrorGames::default();
    let mut with_errors = 0u64;
    let stderr = std::io::stderr();
    for item in Batches::new(paths, opts) {
        match item {
            Ok(decoded) => {
                games += decoded.games;
                for problem in &decoded.problems {
                    // Games with errors counted as the pipeline counts
                    // them (a game too large to decode included).
                    if error_games.is_new(problem) {
                        with_errors += 1;
                    }
                    let error = gamerec_arrow::decode::is_error(problem);
                    // A message may stand for several (`Diagnostic::counts`).
                    let (e, w) = problem.counts();
                    errors += e;
                    warnings += w;
                    if error || !quiet {
                        writeln!(stderr.lock(), "{problem}").context("writing to stderr")?;
                    }
                }
                writer.write(&decoded.batch)?;
                progress.update(games);
            }
            Err(e) => {
                bad_inputs += 1;
                // As every verb says it: `PATH: error: what`.
                let d = gamerec::io::pipeline::open_error(&e);
                writeln!(stderr.lock(), "{d}").context("writing to stderr")?;
            }
        }
    }
    progress.finish();
    let rows = writer.rows();
    // The one summary line every verb prints.
    let tally = gamerec::io::pipeline::Tally {
        inputs_not_read: bad_inputs,
        games,
        games_with_errors: with_errors,
        errors,
        warnings,
        written: Some(if bad_inputs > 0 { 0 } else { rows }),
        ..Default::default()
    };
    gamerec::say!("gamerec {verb}: {tally}");
    if bad_inputs > 0 {
        // An input could not be read (exit 2): the old output stays.
        gamerec::say!(
            "gamerec: {}: not written: {bad_inputs} input(s) could not be read",
            output.display()
        );
        return Ok(ExitCode::from(2));
    }
    let files = match &writer {
        Sink::Dataset(w) => format!(" in {} files", w.files()),
        Sink::File(_) => String::new(),
    };
    writer.commit()?;
    // Games counted as `gamerec check` counts them: those that failed
    // (and those a filter left out) included.
    if !quiet {
        let not_read = match bad_inputs {
            0 => String::new(),
            1 => ", 1 file not read".into(),
            n => format!(", {n} files not read"),
        };
        gamerec::say!(
            "{}: {rows} rows{files} from {games} games ({with_errors} with errors){not_read}",
            output.display()
        );
    }

    Ok(if bad_inputs > 0 {
        ExitCode::from(2)
    } else if with_errors > 0 || errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Says a writer's diagnostic: errors always, warnings unless `quiet`.
fn say_loss(d: &gamerec::diag::Diagnostic, quiet: bool, errors: &mut u64) {
    *errors += d.counts().0;
    if d.is_error() || !quiet {
        gamerec::say!("{d}");
    }
}

fn tables_to_games(paths: &[PathBuf], output: Option<&Path>, quiet: bool) -> Result<ExitCode> {
    let format = gamerec::io::output_format(None, output, None).map_err(anyhow::Error::msg)?;
    let opts = WriteOptions::default();
    let mut writer = match output {
        Some(path) => GameWriter::create(path, format, &opts)?,
        None => GameWriter::to_stream(
            Box::new(std::io::BufWriter::new(std::io::stdout())),
            format,
            &opts,
        )?,
    };
    let mut failed = false;
    let mut bad_rows = 0u64;
    let mut lost_errors = 0u64;
    for path in paths {
        let source = path.display().to_string();
        let mut write_error = None;
        let read = gamerec_arrow::read::for_each_game(path, |id, game| {
            if write_error.is_some() {
                return;
            }
            let game = match game {
                Ok(game) => game,
                Err(why) => {
                    // The row is left out (exit 1); the others are written.
                    gamerec::say!("{source}: error: {why}");
                    bad_rows += 1;
                    return;
                }
            };
            let item = Item {
                record: Record::Game(game),
                number: id + 1,
                line: 0,
                offset: 0,
            };
            match writer.write(&item, &source) {
                // Said as they come (a table of many games keeps none); a
                // writer's error leaves its game out (exit 1).
                Ok(lost) => lost
                    .iter()
                    .for_each(|d| say_loss(d, quiet, &mut lost_errors)),
                Err(e) => write_error = Some(e),
            }
        });
        if let Some(e) = write_error {
            return Err(e).context("writing games");
        }
        if let Err(e) = read {
            gamerec::say!("gamerec: {}: {e}", path.display());
            failed = true;
        }
    }
    if failed {
        // A table could not be read (exit 2): the old output stays.
        writer.discard()?;
    } else {
        for d in writer.finish()? {
            say_loss(&d, quiet, &mut lost_errors);
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else if bad_rows > 0 || lost_errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
