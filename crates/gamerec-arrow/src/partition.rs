//! A Hive-partitioned dataset directory of Parquet files:
//! `dir/year=2024/month=1/part-00000.parquet`, as Spark, pyarrow.dataset,
//! DuckDB (`hive_partitioning=true`) and Polars (`hive_partitioning=True`)
//! read it.
//!
//! - Partition values are computed per row ([`PartitionKey`]); a row with
//!   no value goes to `key=__HIVE_DEFAULT_PARTITION__`, which all four
//!   readers read as null. Values other than numbers are escaped as Spark
//!   escapes them (`%2F` for `/`, ...).
//! - A partition column that is also a table column (`variant`) is left
//!   out of the files, as Spark writes them: the readers take it from the
//!   path, and a value in both places could disagree.
//! - Files are bounded: a part file is closed at [`DatasetOptions::max_file_rows`]
//!   rows or once about [`DatasetOptions::max_file_bytes`] are written, and
//!   the next rows of its partition go to the next part.
//! - Memory is bounded: at most [`DatasetOptions::max_open`] files are open
//!   (the least recently written is closed when another is needed), and
//!   each buffers at most [`GROUP_BYTES`] before writing a row group.
//! - Atomic: everything is written under a hidden staging directory beside
//!   `dir` and moved into place by [`DatasetWriter::commit`]; dropped
//!   without it (an error, an input that could not be read), the staging
//!   directory is removed and `dir` is as it was.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::Date32Type;
use arrow_array::{Array, RecordBatch, UInt32Array};
use arrow_schema::{DataType, SchemaRef};

use crate::write::{FileKind, TableWriter};
use crate::{Error, values};

/// What a dataset is partitioned by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionKey {
    /// The year of `utc_date`, else of `date` (`2024.01.02`, SGF's
    /// `2024-01-02`): `year=2024`.
    Year,
    /// Its month, without a leading zero as Spark writes it (DuckDB reads
    /// `month=01` as text): `month=1`.
    Month,
    /// The `variant` column (the `Variant` tag as written; `Standard`
    /// when there is none): `variant=Crazyhouse`.
    Variant,
    /// lichess's speed class of `time_control` ([`values::speed`];
    /// `correspondence` for `-`): `speed=blitz`.
    Speed,
}

impl PartitionKey {
    /// The key's name: its directory prefix and the reader's column.
    pub fn name(self) -> &'static str {
        match self {
            PartitionKey::Year => "year",
            PartitionKey::Month => "month",
            PartitionKey::Variant => "variant",
            PartitionKey::Speed => "speed",
        }
    }
}

impl std::str::FromStr for PartitionKey {
    type Err = String;
    fn from_str(s: &str) -> Result<PartitionKey, String> {
        match s.trim() {
            "year" => Ok(PartitionKey::Year),
            "month" => Ok(PartitionKey::Month),
            "variant" => Ok(PartitionKey::Variant),
            "speed" => Ok(PartitionKey::Speed),
            other => Err(format!(
                "cannot partition by {other:?}: expected year, month, variant or speed"
            )),
        }
    }
}

/// Parses `year,month`: keys in directory order, none twice.
pub fn parse_keys(s: &str) -> Result<Vec<PartitionKey>, String> {
    let mut keys: Vec<PartitionKey> = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let key: PartitionKey = part.parse()?;
        if keys.contains(&key) {
            return Err(format!("{} is named twice in --partition-by", key.name()));
        }
        keys.push(key);
    }
    Ok(keys)
}

/// What to do when the dataset directory exists and is not empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Existing {
    /// Refuse to write (the default).
    #[default]
    Refuse,
    /// Replace the directory's contents once the new dataset is complete.
    Overwrite,
    /// Add the new files beside the old ones (their names carry this run's
    /// id, so no old file is replaced).
    Append,
}

/// How a dataset is written.
#[derive(Debug, Clone)]
pub struct DatasetOptions {
    /// Partition keys, in directory order (none: files straight in `dir`).
    pub keys: Vec<PartitionKey>,
    /// A part file holds at most this many rows.
    pub max_file_rows: u64,
    /// A part file is closed once about this many bytes are written or
    /// buffered (checked every 128 rows).
    pub max_file_bytes: u64,
    /// Files open at once, at most.
    pub max_open: usize,
    /// A directory that exists and is not empty.
    pub existing: Existing,
    /// Threads encoding each file's columns.
    pub threads: usize,
}

/// Default bound on a part file's rows.
pub const DEFAULT_MAX_FILE_ROWS: u64 = 1_000_000;
/// Default bound on a part file's size.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 128 << 20;
/// Default bound on the files open at once.
pub const DEFAULT_MAX_OPEN: usize = 16;
/// The bytes a part file buffers before writing a row group (so at most
/// `max_open` times this in all).
pub const GROUP_BYTES: usize = 16 << 20;

impl Default for DatasetOptions {
    fn default() -> DatasetOptions {
        DatasetOptions {
            keys: Vec::new(),
            max_file_rows: DEFAULT_MAX_FILE_ROWS,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_open: DEFAULT_MAX_OPEN,
            existing: Existing::Refuse,
            threads: 1,
        }
    }
}

/// Rows written to a part between checks of its size.
const SLICE_ROWS: u64 = 128;

/// The value directories take for a row without a value.
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// A `Write` counting the bytes that reached it.
struct Counting {
    out: BufWriter<File>,
    bytes: Arc<AtomicU64>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A part file being written.
struct Part {
    /// The partition's directory (`year=2024/month=1`, or empty).
    partition: String,
    path: PathBuf,
    writer: TableWriter<Counting>,
    bytes: Arc<AtomicU64>,
    rows: u64,
    last_used: u64,
}

impl Part {
    fn size(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed) + self.writer.buffered_bytes() as u64
    }

    /// Writes the footer, flushes and syncs the file.
    fn finish(self) -> Result<(), Error> {
        let path = self.path;
        let counting = self.writer.finish()?;
        let file = counting
            .out
            .into_inner()
            .map_err(|e| named(&path, e.into_error()))?;
        file.sync_all().map_err(|e| named(&path, e))?;
        Ok(())
    }
}

fn named(path: &Path, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {e}", path.display()),
    ))
}

/// Where a key's values come from in a table.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `utc_date` (Date32) if present, and `date` (text).
    Date {
        utc: Option<usize>,
        text: Option<usize>,
    },
    Variant(usize),
    Speed(usize),
}

/// Writes record batches of one table as a Hive-partitioned dataset of
/// Parquet files (see the module's documentation).
pub struct DatasetWriter {
    dir: PathBuf,
    staging: PathBuf,
    opts: DatasetOptions,
    /// The files' schema: the table's without the partition columns.
    file_schema: SchemaRef,
    /// Columns of the table kept in the files.
    keep: Vec<usize>,
    sources: Vec<(PartitionKey, Source)>,
    open: Vec<Part>,
    /// Parts started per partition.
    parts: HashMap<String, u32>,
    /// This run's id in file names when appending.
    run: Option<String>,
    files: u64,
    rows: u64,
    clock: u64,
    committed: bool,
}

impl DatasetWriter {
    /// Starts a dataset of `schema` at `dir` (a directory; created when
    /// missing). Refuses a key the table has no column for, and a `dir`
    /// that is not empty unless `opts.existing` says what to do.
    pub fn create(
        dir: &Path,
        schema: SchemaRef,
        opts: DatasetOptions,
    ) -> Result<DatasetWriter, Error> {
        let column = |name: &str| schema.index_of(name).ok();
        let mut sources = Vec::new();
        for &key in &opts.keys {
            let source = match key {
                PartitionKey::Year | PartitionKey::Month => {
                    let utc = column("utc_date")
                        .filter(|&i| schema.field(i).data_type() == &DataType::Date32);
                    let text =
                        column("date").filter(|&i| schema.field(i).data_type() == &DataType::Utf8);
                    (utc.is_some() || text.is_some()).then_some(Source::Date { utc, text })
                }
                PartitionKey::Variant => column("variant").map(Source::Variant),
                PartitionKey::Speed => column("time_control").map(Source::Speed),
            };
            let Some(source) = source else {
                return Err(Error::Table(format!(
                    "cannot partition this table by {}: it has no {} column",
                    key.name(),
                    match key {
                        PartitionKey::Year | PartitionKey::Month => "date",
                        PartitionKey::Variant => "variant",
                        PartitionKey::Speed => "time_control",
                    }
                )));
            };
            sources.push((key, source));
        }
        // Partition columns that are table columns leave the files.
        let names: Vec<&str> = opts.keys.iter().map(|k| k.name()).collect();
        let keep: Vec<usize> = (0..schema.fields().len())
            .filter(|&i| !names.contains(&schema.field(i).name().as_str()))
            .collect();
        let file_schema = Arc::new(schema.project(&keep)?);
        match std::fs::read_dir(dir) {
            Ok(mut entries) => {
                if entries.next().is_some() && opts.existing == Existing::Refuse {
                    return Err(Error::Table(format!(
                        "{}: the directory is not empty (--overwrite replaces it, --append adds \
                         files to it)",
                        dir.display()
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(named(dir, e)),
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let id = run_id();
        let staging = parent.join(format!(".{name}.gamerec-{id}"));
        std::fs::create_dir_all(&staging).map_err(|e| named(&staging, e))?;
        Ok(DatasetWriter {
            dir: dir.to_path_buf(),
            staging,
            run: (opts.existing == Existing::Append).then_some(id),
            opts,
            file_schema,
            keep,
            sources,
            open: Vec::new(),
            parts: HashMap::new(),
            files: 0,
            rows: 0,
            clock: 0,
            committed: false,
        })
    }

    /// The files' schema (the table's without the partition columns).
    pub fn file_schema(&self) -> &SchemaRef {
        &self.file_schema
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Part files started so far.
    pub fn files(&self) -> u64 {
        self.files
    }

    /// Writes a batch of the table: each row to its partition's part file.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let groups = self.groups(batch);
        let rows = batch.project(&self.keep)?;
        if groups.len() == 1 {
            let (partition, _) = groups.into_iter().next().expect("one group");
            return self.write_rows(&partition, rows);
        }
        for (partition, indices) in groups {
            let indices = UInt32Array::from(indices);
            let part = arrow_select::take::take_record_batch(&rows, &indices)?;
            self.write_rows(&partition, part)?;
        }
        Ok(())
    }

    /// The rows of `batch` by partition directory (`year=2024/month=1`),
    /// in order of first row.
    fn groups(&self, batch: &RecordBatch) -> Vec<(String, Vec<u32>)> {
        let text = |i: usize| batch.column(i).as_string_opt::<i32>();
        let columns: Vec<(PartitionKey, Column)> = self
            .sources
            .iter()
            .map(|&(key, source)| {
                let column = match source {
                    Source::Date { utc, text: t } => Column::Date(
                        utc.and_then(|i| batch.column(i).as_primitive_opt::<Date32Type>()),
                        t.and_then(text),
                    ),
                    Source::Variant(i) => Column::Variant(text(i)),
                    Source::Speed(i) => Column::Speed(text(i)),
                };
                (key, column)
            })
            .collect();
        let mut order: Vec<(String, Vec<u32>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut key = String::new();
        for row in 0..batch.num_rows() {
            key.clear();
            for (k, column) in &columns {
                if !key.is_empty() {
                    key.push('/');
                }
                key.push_str(k.name());
                key.push('=');
                match column.value(*k, row) {
                    Some(v) if !v.is_empty() => escape_into(&v, &mut key),
                    _ => key.push_str(NULL_PARTITION),
                }
            }
            match index.get(key.as_str()) {
                Some(&i) => order[i].1.push(row as u32),
                None => {
                    index.insert(key.clone(), order.len());
                    order.push((key.clone(), vec![row as u32]));
                }
            }
        }
        order
    }

    /// Writes `batch` (rows of one partition) to the partition's part
    /// files, starting a new one whenever a bound is reached.
    fn write_rows(&mut self, partition: &str, mut batch: RecordBatch) -> Result<(), Error> {
        while batch.num_rows() > 0 {
            let i = self.part_for(partition)?;
            let part = &mut self.open[i];
            let room = self.opts.max_file_rows.saturating_sub(part.rows).max(1);
            // In slices, so the size bound is checked every few rows.
            let n = (batch.num_rows() as u64).min(room).min(SLICE_ROWS) as usize;
            let head = batch.slice(0, n);
            part.writer.write(&head)?;
            part.rows += n as u64;
            self.rows += n as u64;
            batch = batch.slice(n, batch.num_rows() - n);
            if part.rows >= self.opts.max_file_rows || part.size() >= self.opts.max_file_bytes {
                self.open.swap_remove(i).finish()?;
            }
        }
        Ok(())
    }

    /// The open part of `partition` (started if none, closing the least
    /// recently written part when `max_open` are open).
    fn part_for(&mut self, partition: &str) -> Result<usize, Error> {
        self.clock += 1;
        if let Some(i) = self.open.iter().position(|p| p.partition == partition) {
            self.open[i].last_used = self.clock;
            return Ok(i);
        }
        if self.open.len() >= self.opts.max_open.max(1)
            && let Some(lru) = (0..self.open.len()).min_by_key(|&i| self.open[i].last_used)
        {
            self.open.swap_remove(lru).finish()?;
        }
        let number = self.parts.entry(partition.to_string()).or_insert(0);
        let name = match &self.run {
            Some(run) => format!("part-{number:05}-{run}.parquet"),
            None => format!("part-{number:05}.parquet"),
        };
        *number += 1;
        let dir = self.staging.join(partition);
        std::fs::create_dir_all(&dir).map_err(|e| named(&dir, e))?;
        let path = dir.join(name);
        let file = File::create(&path).map_err(|e| named(&path, e))?;
        let bytes = Arc::new(AtomicU64::new(0));
        let out = Counting {
            out: BufWriter::with_capacity(1 << 20, file),
            bytes: bytes.clone(),
        };
        let writer = TableWriter::new(out, FileKind::Parquet, self.file_schema.clone())?
            .with_threads(self.opts.threads)
            .with_group_bytes(GROUP_BYTES);
        self.files += 1;
        self.open.push(Part {
            partition: partition.to_string(),
            path,
            writer,
            bytes,
            rows: 0,
            last_used: self.clock,
        });
        Ok(self.open.len() - 1)
    }

    /// Finishes every file and moves the dataset into place: `dir`
    /// replaced (it was missing or empty, or [`Existing::Overwrite`]), or
    /// the new files added to it ([`Existing::Append`]).
    pub fn commit(mut self) -> Result<(), Error> {
        for part in std::mem::take(&mut self.open) {
            part.finish()?;
        }
        let dir = self.dir.clone();
        let exists = dir.exists();
        if self.run.is_some() && exists {
            self.move_files_into(&dir)?;
            std::fs::remove_dir_all(&self.staging).map_err(|e| named(&self.staging, e))?;
        } else if exists
            && std::fs::read_dir(&dir)
                .map_err(|e| named(&dir, e))?
                .next()
                .is_some()
        {
            // Overwrite: the old directory aside, the new in its place,
            // the old removed (put back if the new cannot be moved).
            let mut old = self.staging.clone().into_os_string();
            old.push("-old");
            let old = PathBuf::from(old);
            std::fs::rename(&dir, &old).map_err(|e| named(&dir, e))?;
            if let Err(e) = std::fs::rename(&self.staging, &dir) {
                // Put the old dataset back; if even that fails, say where it is.
                return Err(match std::fs::rename(&old, &dir) {
                    Ok(()) => named(&dir, e),
                    Err(back) => named(
                        &dir,
                        std::io::Error::new(
                            e.kind(),
                            format!("{e}; the old dataset is left at {}: {back}", old.display()),
                        ),
                    ),
                });
            }
            std::fs::remove_dir_all(&old).map_err(|e| named(&old, e))?;
        } else {
            // A rename onto an empty directory replaces it.
            std::fs::rename(&self.staging, &dir).map_err(|e| named(&dir, e))?;
        }
        self.committed = true;
        Ok(())
    }

    /// Moves the staged files into `dir` (appending), directories created
    /// as needed.
    fn move_files_into(&self, dir: &Path) -> Result<(), Error> {
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let from = self.staging.join(&rel);
            for entry in std::fs::read_dir(&from).map_err(|e| named(&from, e))? {
                let entry = entry.map_err(|e| named(&from, e))?;
                let rel = rel.join(entry.file_name());
                if entry.path().is_dir() {
                    let to = dir.join(&rel);
                    std::fs::create_dir_all(&to).map_err(|e| named(&to, e))?;
                    stack.push(rel);
                } else {
                    let to = dir.join(&rel);
                    std::fs::rename(entry.path(), &to).map_err(|e| named(&to, e))?;
                }
            }
        }
        Ok(())
    }
}

impl Drop for DatasetWriter {
    fn drop(&mut self) {
        if !self.committed {
            // A failed run leaves nothing: the staging directory goes.
            self.open.clear();
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// A key's column in one batch.
enum Column<'a> {
    Date(
        Option<&'a arrow_array::PrimitiveArray<Date32Type>>,
        Option<&'a arrow_array::StringArray>,
    ),
    Variant(Option<&'a arrow_array::StringArray>),
    Speed(Option<&'a arrow_array::StringArray>),
}

fn get(c: Option<&arrow_array::StringArray>, row: usize) -> Option<&str> {
    c.filter(|c| c.is_valid(row)).map(|c| c.value(row))
}

impl Column<'_> {
    /// The partition value of `row` for `key` (unescaped).
    fn value(&self, key: PartitionKey, row: usize) -> Option<String> {
        match self {
            Column::Date(utc, text) => {
                let (year, month) = match utc.filter(|c| c.is_valid(row)) {
                    Some(c) => {
                        let (y, m) = civil_from_days(i64::from(c.value(row)));
                        (Some(y), Some(m))
                    }
                    None => get(*text, row).map_or((None, None), year_month),
                };
                match key {
                    PartitionKey::Year => year.map(|y| y.to_string()),
                    _ => month.map(|m| m.to_string()),
                }
            }
            Column::Variant(c) => Some(
                get(*c, row)
                    .filter(|v| !v.trim().is_empty())
                    .unwrap_or("Standard")
                    .to_string(),
            ),
            Column::Speed(c) => {
                let tc = get(*c, row)?;
                if tc.trim() == "-" {
                    return Some("correspondence".into());
                }
                values::speed(tc).map(str::to_string)
            }
        }
    }
}

/// The year and month of a date written `2024.01.02`, `2024-01-02`,
/// `2024.??.??` (the month unknown) or `2024`.
fn year_month(date: &str) -> (Option<i64>, Option<u32>) {
    let mut parts = date.trim().split(['.', '-', '/']);
    let digits = |s: &str, n: usize| {
        (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i64>().ok())
            .flatten()
    };
    let year = parts.next().and_then(|y| digits(y, 4));
    let month = parts
        .next()
        .and_then(|m| digits(m, 2))
        .filter(|m| (1..=12).contains(m))
        .map(|m| m as u32);
    (year, year.and(month))
}

/// The year and month of a day number (days since 1970-01-01), after
/// H. Hinnant's civil_from_days.
fn civil_from_days(z: i64) -> (i64, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m as u32)
}

/// Appends `value` escaped as Spark escapes partition values: `%XX` for
/// control characters and `"#%'*/:=?\\{[]^` and DEL.
fn escape_into(value: &str, out: &mut String) {
    for c in value.chars() {
        let escape = c.is_ascii_control() || "\"#%'*/:=?\\{[]^".contains(c);
        if escape {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
}

/// A run's id: the time and process, in hex.
fn run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("{:016x}", nanos ^ (u64::from(std::process::id()) << 48))
}
