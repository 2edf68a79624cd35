//! Streaming record batches to a Parquet or Arrow IPC file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_ipc::writer::FileWriter;
use arrow_schema::DataType;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::Error;

/// The columnar file formats written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Apache Parquet (`.parquet`), zstd-compressed row groups.
    Parquet,
    /// Arrow IPC file format (`.arrow`, `.feather`, `.ipc`).
    ArrowIpc,
}

impl FileKind {
    /// The kind named by `path`'s extension, if any.
    pub fn of_path(path: &Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" | "pq" => Some(FileKind::Parquet),
            "arrow" | "feather" | "ipc" | "arrows" => Some(FileKind::ArrowIpc),
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
    Parquet(ArrowWriter<W>),
    Ipc(FileWriter<W>),
}

/// Writes record batches of one schema as they come: Parquet in row groups
/// (bounded memory: a group is flushed once full or at 64 MB encoded), or
/// Arrow IPC one batch at a time.
pub struct TableWriter<W: Write + Send = BufWriter<File>> {
    sink: Sink<W>,
    rows: u64,
}

impl TableWriter<BufWriter<File>> {
    /// Creates `path` as a `kind` file of `schema`.
    pub fn create(path: &Path, kind: FileKind, schema: SchemaRef) -> Result<Self, Error> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        TableWriter::new(file, kind, schema)
    }
}

impl<W: Write + Send> TableWriter<W> {
    /// A writer of `schema` to `out`.
    pub fn new(out: W, kind: FileKind, schema: SchemaRef) -> Result<Self, Error> {
        let sink = match kind {
            FileKind::Parquet => {
                let per_group = if schema.column_with_name("movetext").is_some() {
                    GAME_ROWS_PER_GROUP
                } else {
                    POSITION_ROWS_PER_GROUP
                };
                let mut props = WriterProperties::builder()
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
                    while let DataType::List(child) = item.data_type() {
                        path.extend(["list".to_owned(), child.name().clone()]);
                        item = child.as_ref();
                    }
                    if path.len() > 1 {
                        props = props
                            .set_column_statistics_enabled(path.into(), EnabledStatistics::None);
                    }
                }
                // Whole movetexts and FENs: nearly all distinct.
                let distinct = if schema.column_with_name("movetext").is_some() {
                    "movetext"
                } else {
                    "fen"
                };
                props = props
                    .set_column_statistics_enabled(distinct.into(), EnabledStatistics::None)
                    .set_column_dictionary_enabled(distinct.into(), false);
                let props = props.build();
                Sink::Parquet(ArrowWriter::try_new(out, schema, Some(props))?)
            }
            FileKind::ArrowIpc => Sink::Ipc(FileWriter::try_new(out, &schema)?),
        };
        Ok(TableWriter { sink, rows: 0 })
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        self.rows += batch.num_rows() as u64;
        match &mut self.sink {
            Sink::Parquet(w) => {
                w.write(batch)?;
            }
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
            Sink::Parquet(w) => Ok(w.into_inner()?),
            Sink::Ipc(mut w) => {
                w.finish()?;
                Ok(w.into_inner()?)
            }
        }
    }
}
