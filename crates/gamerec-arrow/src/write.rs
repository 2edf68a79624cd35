//! Streaming record batches to a Parquet or Arrow IPC file.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_ipc::writer::FileWriter;
use arrow_schema::DataType;
use arrow_schema::SchemaRef;
use gamerec::io::AtomicFile;
use std::sync::Mutex;

use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;

use crate::Error;

/// The columnar file formats written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Apache Parquet (`.parquet`), zstd-compressed row groups.
    Parquet,
    /// Arrow IPC file format (`.arrow`, `.feather`, `.ipc`), record
    /// batches zstd-compressed.
    ArrowIpc,
}

impl FileKind {
    /// The kind named by `path`'s extension, if any (the library's one
    /// format decision, [`gamerec::io::Format`]).
    pub fn of_path(path: &Path) -> Option<FileKind> {
        FileKind::of_format(gamerec::io::Format::from_path(path)?)
    }

    /// The kind of a table format (`None` for game formats).
    pub fn of_format(format: gamerec::io::Format) -> Option<FileKind> {
        match format {
            gamerec::io::Format::Parquet => Some(FileKind::Parquet),
            gamerec::io::Format::Arrow => Some(FileKind::ArrowIpc),
            _ => None,
        }
    }
}

/// Rows per Parquet row group: games are large rows, positions small.
const GAME_ROWS_PER_GROUP: usize = 16 * 1024;
const POSITION_ROWS_PER_GROUP: usize = 256 * 1024;
/// A row group is closed early once it holds this many bytes.
const MAX_GROUP_BYTES: usize = 64 << 20;

enum Sink<W: Write + Send> {
    Parquet(ParquetSink<W>),
    Ipc(FileWriter<W>),
}

/// Rows handed to the column writers at a time (a step): one parquet
/// mini-batch (`write_batch_size`), at fixed places in each row group
/// whatever the batches that come in, so pages and row groups fall at the
/// same rows and the file is the same on any number of threads. Games are
/// large rows: parquet's default of 1,024. A position's row is small, and
/// each step costs its columns' levels, leaves and writer calls again:
/// 8,192 rows a step took 2.7% less CPU for the positions table of
/// `human16.pgn` (the games table at 8,192 kept the decoder waiting: 1.7
/// times the wall time).
const GAME_STEP: usize = 1024;
/// The positions and Go tables' step (see [`GAME_STEP`]).
const POSITION_STEP: usize = 8 * 1024;
/// Most rows handed to the column writers in one pass over the threads
/// (see `ParquetSink::pass_rows`).
const PASS_ROWS: usize = 32 * 1024;
/// About the bytes one pass adds to the column writers: passes of large
/// rows (the games table) stay short, so the decoding thread is not kept
/// waiting while one pass is encoded.
const PASS_BYTES: usize = 1 << 20;

/// A Parquet file written a row group at a time, the columns of each
/// encoded (dictionary, levels, zstd) on several threads.
struct ParquetSink<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// One writer per leaf column of the row group being written.
    columns: Vec<ArrowColumnWriter>,
    group: usize,
    rows: usize,
    per_group: usize,
    /// Rows a step ([`GAME_STEP`], [`POSITION_STEP`]).
    step: usize,
    /// A row group is closed once its column writers hold this many bytes.
    max_bytes: usize,
    threads: usize,
    /// Rows received but not yet handed to the column writers.
    pending: VecDeque<RecordBatch>,
    pending_rows: usize,
}

impl<W: Write + Send> ParquetSink<W> {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_rows += batch.num_rows();
        self.pending.push_back(batch.clone());
        loop {
            let want = self.pass_rows();
            if self.pending_rows < want {
                return Ok(());
            }
            let parts = self.take(want);
            self.write_part(&parts)?;
        }
    }

    /// Rows for the next pass over the threads: whole steps, never past the
    /// row group's end, and (from the bytes per row written so far in the
    /// group) about [`PASS_BYTES`] and at most half of what is left under
    /// the group's byte bound, so a group closes near the bound. It depends on the rows written only, so the
    /// file is the same however the batches came in.
    fn pass_rows(&self) -> usize {
        let room = self.per_group - self.rows;
        if self.rows == 0 {
            return self.step.min(room);
        }
        let bytes: usize = self.columns.iter().map(|c| c.memory_size()).sum();
        let per_row = (bytes / self.rows).max(1);
        let left = self.max_bytes.saturating_sub(bytes);
        let steps = (left / 2)
            .min(PASS_BYTES)
            .checked_div(per_row * self.step)
            .unwrap_or(0)
            .clamp(1, PASS_ROWS / self.step);
        (steps * self.step).min(room)
    }

    /// The next `n` pending rows, as the batches (or slices of them) that
    /// hold them.
    fn take(&mut self, n: usize) -> Vec<RecordBatch> {
        let mut parts = Vec::new();
        let mut need = n;
        while need > 0 {
            let Some(batch) = self.pending.pop_front() else {
                break;
            };
            if batch.num_rows() <= need {
                need -= batch.num_rows();
                parts.push(batch);
            } else {
                parts.push(batch.slice(0, need));
                self.pending
                    .push_front(batch.slice(need, batch.num_rows() - need));
                need = 0;
            }
        }
        self.pending_rows -= n - need;
        parts
    }

    /// Hands the rows of `parts` to the column writers a step at a
    /// time (the same writes whatever the batches that came in: a step
    /// across two batches is joined, nothing else is copied), each column's
    /// on one of the threads: one pass over the threads for them all.
    fn write_part(&mut self, parts: &[RecordBatch]) -> Result<(), Error> {
        let mut per_column: Vec<Vec<_>> = self.columns.iter().map(|_| Vec::new()).collect();
        let mut costs = vec![0usize; self.columns.len()];
        let total: usize = parts.iter().map(RecordBatch::num_rows).sum();
        // (part, row in it) where the next step starts.
        let (mut part, mut row) = (0, 0);
        let mut at = 0;
        while at < total {
            let want = self.step.min(total - at);
            let mut pieces = Vec::new();
            let mut got = 0;
            while got < want {
                let batch = &parts[part];
                let n = (batch.num_rows() - row).min(want - got);
                pieces.push(batch.slice(row, n));
                got += n;
                row += n;
                if row == batch.num_rows() {
                    part += 1;
                    row = 0;
                }
            }
            let step = if pieces.len() == 1 {
                pieces.pop().expect("one piece")
            } else {
                arrow_select::concat::concat_batches(&self.schema, &pieces)?
            };
            let mut leaves = Vec::new();
            for (field, column) in self.schema.fields().iter().zip(step.columns()) {
                let from = leaves.len();
                leaves.extend(compute_leaves(field, column)?);
                // A column's bytes, shared by its leaves: what its
                // encoding (zstd above all) costs, roughly.
                let share = column.get_array_memory_size() / (leaves.len() - from).max(1);
                costs[from..leaves.len()]
                    .iter_mut()
                    .for_each(|c| *c += share);
            }
            for (list, leaf) in per_column.iter_mut().zip(leaves) {
                list.push(leaf);
            }
            at += want;
        }
        let jobs: Vec<_> = self.columns.iter_mut().zip(per_column).collect();
        in_parallel(jobs, &costs, self.threads, |(writer, leaves)| {
            leaves.iter().try_for_each(|leaf| writer.write(leaf))
        })?;
        self.rows += total;
        let bytes: usize = self.columns.iter().map(|c| c.memory_size()).sum();
        if self.rows >= self.per_group || bytes >= self.max_bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// Closes the row group being written (if it has rows).
    fn flush(&mut self) -> Result<(), Error> {
        if self.rows == 0 {
            return Ok(());
        }
        let columns = std::mem::take(&mut self.columns);
        let costs: Vec<usize> = columns.iter().map(ArrowColumnWriter::memory_size).collect();
        let chunks = in_parallel(columns, &costs, self.threads, |writer| writer.close())?;
        let mut group = self.file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.group += 1;
        self.rows = 0;
        self.columns = self.factory.create_column_writers(self.group)?;
        Ok(())
    }

    fn finish(mut self) -> Result<W, Error> {
        while self.pending_rows > 0 {
            let want = self.pass_rows().min(self.pending_rows);
            let parts = self.take(want);
            self.write_part(&parts)?;
        }
        self.flush()?;
        Ok(self.file.into_inner()?)
    }
}

/// `f` over `items` on up to `threads` threads, results in item order.
/// Items are taken largest `costs` first (ties: the later item first), so
/// the longest job (the positions table's FENs, the games table's
/// movetexts) does not start last and keep one thread busy while the
/// others wait; the order changes nothing in what is written.
fn in_parallel<T: Send, R: Send>(
    items: Vec<T>,
    costs: &[usize],
    threads: usize,
    f: impl Fn(T) -> parquet::errors::Result<R> + Sync,
) -> Result<Vec<R>, Error> {
    if threads <= 1 || items.len() <= 1 {
        return Ok(items.into_iter().map(f).collect::<Result<_, _>>()?);
    }
    let n = items.len();
    let mut order: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    order.sort_by_key(|(i, _)| {
        (
            std::cmp::Reverse(costs.get(*i).copied().unwrap_or(0)),
            std::cmp::Reverse(*i),
        )
    });
    let queue = Mutex::new(order.into_iter());
    let results: Mutex<Vec<Option<parquet::errors::Result<R>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n) {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some((i, item)) = next else { break };
                    let result = f(item);
                    if let Ok(mut results) = results.lock() {
                        results[i] = Some(result);
                    }
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| Error::Table("a Parquet encoding thread panicked".into()))?;
    let mut out = Vec::with_capacity(n);
    for result in results {
        let result =
            result.ok_or_else(|| Error::Table("a Parquet column was not encoded".into()))?;
        out.push(result?);
    }
    Ok(out)
}

/// Writes record batches of one schema as they come: Parquet in row groups
/// (bounded memory: a group is flushed once full or at 64 MB buffered; its
/// columns encoded on [`TableWriter::with_threads`] threads), or Arrow IPC
/// one batch at a time.
pub struct TableWriter<W: Write + Send = AtomicFile> {
    sink: Sink<W>,
    rows: u64,
}

impl TableWriter<AtomicFile> {
    /// Creates `path` as a `kind` file of `schema`, written beside it under
    /// a temporary name until [`TableWriter::commit`] (dropped without it,
    /// the old file stays as it was and nothing is left beside it). Errors
    /// name the path.
    pub fn create(path: &Path, kind: FileKind, schema: SchemaRef) -> Result<Self, Error> {
        TableWriter::new(AtomicFile::create(path)?, kind, schema)
    }

    /// Writes the footer and puts the file into place.
    pub fn commit(self) -> Result<(), Error> {
        self.finish()?.commit()?;
        Ok(())
    }
}

impl<W: Write + Send> TableWriter<W> {
    /// A writer of `schema` to `out`.
    pub fn new(out: W, kind: FileKind, schema: SchemaRef) -> Result<Self, Error> {
        let sink = match kind {
            FileKind::Parquet => {
                let (per_group, step) = if schema.column_with_name("movetext").is_some() {
                    (GAME_ROWS_PER_GROUP, GAME_STEP)
                } else {
                    (POSITION_ROWS_PER_GROUP, POSITION_STEP)
                };
                let mut props = WriterProperties::builder()
                    .set_write_batch_size(step)
                    .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
                    .set_max_row_group_row_count(Some(per_group))
                    .set_max_row_group_bytes(Some(MAX_GROUP_BYTES));
                // Min/max statistics of per-ply lists, whole movetexts and
                // FENs serve no query and cost a comparison per value; a
                // dictionary of nearly distinct values costs a hash per
                // value and is then dropped.
                for field in schema.fields() {
                    let mut path = vec![field.name().clone()];
                    let mut item = field.as_ref();
                    while let DataType::List(child) | DataType::FixedSizeList(child, _) =
                        item.data_type()
                    {
                        path.extend(["list".to_owned(), child.name().clone()]);
                        item = child.as_ref();
                    }
                    if path.len() > 1 {
                        props = props
                            .set_column_statistics_enabled(path.into(), EnabledStatistics::None);
                    }
                }
                // Whole movetexts and FENs: nearly all distinct, and most
                // of the bytes zstd sees; level 1 compresses them about 1.4
                // times as fast as level 3 (FENs even smaller: 22.5 against
                // 23.3 MB on 2 million; movetexts about 10% larger), and
                // reads back as fast.
                let games = schema.column_with_name("movetext").is_some();
                let distinct = if games { "movetext" } else { "fen" };
                props = props
                    .set_column_statistics_enabled(distinct.into(), EnabledStatistics::None)
                    .set_column_dictionary_enabled(distinct.into(), false)
                    .set_column_compression(
                        distinct.into(),
                        Compression::ZSTD(ZstdLevel::try_new(1)?),
                    );
                // One value per game in the games table: a dictionary of
                // them would only be hashed and dropped.
                if games {
                    for name in ["game_id", "game_key", "offset", "lichess_id"] {
                        if schema.column_with_name(name).is_some() {
                            props = props.set_column_dictionary_enabled(name.into(), false);
                        }
                    }
                }
                // The positions table: its text columns' min/max (UCI,
                // SAN, result, time control) prune no row group of a
                // quarter million plies and cost a comparison per value;
                // every column at level 1 (0.1% more bytes, a few percent
                // less CPU: the dictionary-encoded columns are small).
                if !games {
                    for name in ["uci", "san", "result", "time_control"] {
                        props = props
                            .set_column_statistics_enabled(name.into(), EnabledStatistics::None);
                    }
                    props = props.set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?));
                    // Values repeated along a game (its id, key, offset,
                    // ratings, result) or counting up in it (ply; the Go
                    // tables' columns of these names too): PLAIN
                    // and zstd finds the runs. A dictionary hashed every
                    // value (parquet's `Interner`) for nothing: measured
                    // on the 2,080,400 plies of human16.pgn, column alone
                    // (`examples/column_costs.rs`), CPU 3-4 times less and
                    // the column smaller (`game_id` 90 against 106 KB,
                    // `ply` 178/310, ratings 79/89, `game_key` 245/278,
                    // `offset` 97/134) except `result` (93 against 39 KB,
                    // at half the CPU).
                    // FENs as DELTA_LENGTH_BYTE_ARRAY (lengths delta-coded
                    // apart from the bytes): 21.4 against 22.5 MB and about
                    // 7% less CPU than PLAIN for the column; pyarrow,
                    // DuckDB, Polars and Spark read it.
                    props = props.set_column_encoding(
                        "fen".into(),
                        parquet::basic::Encoding::DELTA_LENGTH_BYTE_ARRAY,
                    );
                    for name in [
                        "game_id",
                        "ply",
                        "white_elo",
                        "black_elo",
                        "result",
                        "game_key",
                        "offset",
                    ] {
                        props = props.set_column_dictionary_enabled(name.into(), false);
                    }
                }
                let props = props.build();
                let (file, factory) = ArrowWriter::try_new(out, schema.clone(), Some(props))?
                    .into_serialized_writer()?;
                let columns = factory.create_column_writers(0)?;
                Sink::Parquet(ParquetSink {
                    file,
                    factory,
                    schema,
                    columns,
                    group: 0,
                    rows: 0,
                    per_group,
                    step,
                    max_bytes: MAX_GROUP_BYTES,
                    threads: 1,
                    pending: VecDeque::new(),
                    pending_rows: 0,
                })
            }
            FileKind::ArrowIpc => {
                // zstd record batch bodies (Arrow IPC's own compression:
                // pyarrow, Polars and DuckDB read it).
                let options = arrow_ipc::writer::IpcWriteOptions::default()
                    .try_with_compression(Some(arrow_ipc::CompressionType::ZSTD))?;
                Sink::Ipc(FileWriter::try_new_with_options(out, &schema, options)?)
            }
        };
        Ok(TableWriter { sink, rows: 0 })
    }

    /// Encodes the columns of each Parquet row group on up to `threads`
    /// threads (1 by default; Arrow IPC is not encoded).
    pub fn with_threads(mut self, threads: usize) -> Self {
        if let Sink::Parquet(sink) = &mut self.sink {
            sink.threads = threads.max(1);
        }
        self
    }

    /// Closes Parquet row groups at `rows` rows or `bytes` buffered
    /// (checked every 1,024 rows) instead of the defaults (16,384 games or
    /// 262,144 plies, 64 MB).
    pub fn with_row_groups(mut self, rows: usize, bytes: usize) -> Self {
        if let Sink::Parquet(sink) = &mut self.sink {
            sink.per_group = rows.max(1);
            sink.max_bytes = bytes.max(1);
        }
        self
    }

    /// Closes Parquet row groups once `bytes` are buffered (checked every
    /// 1,024 rows) instead of at 64 MB; the row bound stays.
    pub fn with_group_bytes(mut self, bytes: usize) -> Self {
        if let Sink::Parquet(sink) = &mut self.sink {
            sink.max_bytes = bytes.max(1);
        }
        self
    }

    /// The bytes held in memory for the Parquet row group being written
    /// (encoded pages and rows not yet encoded); 0 for Arrow IPC.
    pub fn buffered_bytes(&self) -> usize {
        match &self.sink {
            Sink::Parquet(sink) => {
                let encoded: usize = sink.columns.iter().map(|c| c.memory_size()).sum();
                let pending: usize = sink
                    .pending
                    .iter()
                    .map(RecordBatch::get_array_memory_size)
                    .sum();
                encoded + pending
            }
            Sink::Ipc(_) => 0,
        }
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        self.rows += batch.num_rows() as u64;
        match &mut self.sink {
            Sink::Parquet(w) => w.write(batch)?,
            Sink::Ipc(w) => {
                if batch.num_rows() > 0 {
                    w.write(batch)?;
                }
            }
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer and flushes; returns the output.
    pub fn finish(self) -> Result<W, Error> {
        match self.sink {
            Sink::Parquet(w) => w.finish(),
            Sink::Ipc(mut w) => {
                w.finish()?;
                Ok(w.into_inner()?)
            }
        }
    }
}
