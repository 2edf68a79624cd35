//! Parquet tables of games as inputs: the lichess games published on
//! Hugging Face (`Lichess/standard-chess-games`: a `movetext` string
//! column and one column per tag, `Event`, `Site`, `WhiteElo` (int16),
//! `UTCDate` (date32), `UTCTime` (time32[s]), …) and gamerec's own games
//! tables. Each row is turned into PGN text (its tag columns as tag pairs,
//! then the movetext) and decoded like any PGN, so the output has every
//! typed per-move column; a problem names the file and the row. (A
//! gamerec games table read as input goes through [`crate::read`].)

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Int8Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType, Time32SecondType,
    UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, TimeUnit};
use gamerec::diag::{Diagnostic, Severity};
use gamerec::pgn::{ChunkView, SliceReader};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::Error;
use crate::decode::{Options, Table};
use crate::games::GamesBuilder;
use crate::positions::PositionsBuilder;
use crate::values;
use crate::visit::{GameRows, Outcome, PositionRows, RowsVisitor, Sink};

/// Rows read from the Parquet file at a time.
const ROWS_PER_BATCH: usize = 2048;

/// One batch of rows of a Parquet input, decoded.
pub(crate) struct Part {
    /// The table's rows (game ids from 0 in this part).
    pub batch: RecordBatch,
    /// Games read (one per input row).
    pub games: u64,
    /// Games that failed.
    pub failed: u64,
    /// The input row of each game given an id.
    pub rows: Vec<u64>,
    pub problems: Vec<Diagnostic>,
}

/// The record batches of a Parquet file of games (parquet-rs's panics on a
/// damaged file are errors, see [`crate::read::decoding`]).
pub(crate) fn open(path: &Path) -> Result<impl Iterator<Item = Result<RecordBatch, Error>>, Error> {
    let file = File::open(path)?;
    let parquet = Some(crate::FileKind::Parquet);
    let mut reader = crate::read::decoding(parquet, || {
        Ok(ParquetRecordBatchReaderBuilder::try_new(file)?
            .with_batch_size(ROWS_PER_BATCH)
            .build()?)
    })?;
    let schema = reader.schema();
    if schema.column_with_name("movetext").is_none() {
        return Err(Error::Table(
            "not a table of games: no column \"movetext\" (a games table or a \
             lichess dataset file with movetext and tag columns)"
                .into(),
        ));
    }
    // After an error (a panic caught included) the reader is not asked again.
    let mut failed = false;
    Ok(std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let next = crate::read::decoding(parquet, || Ok(reader.next()))
            .and_then(|b| b.map(|b| b.map_err(Error::from)).transpose())
            .transpose();
        failed = matches!(next, Some(Err(_)));
        next
    }))
}

/// A tag column: its tag name and how its values are written.
struct TagSource {
    tag: String,
    column: usize,
    /// A rating difference: PGN writes positive ones with `+`.
    signed: bool,
}

/// The tag columns of a batch: every column but `movetext` named like a
/// tag whose type has a text form.
fn tag_sources(batch: &RecordBatch) -> Vec<TagSource> {
    let schema = batch.schema();
    let mut out = Vec::new();
    for (column, field) in schema.fields().iter().enumerate() {
        let name = field.name();
        if name == "movetext" || !is_tag_name(name) || !writable(field.data_type()) {
            continue;
        }
        let signed = crate::schema::TAG_COLUMNS
            .iter()
            .any(|&(_, tag, kind)| tag == name && kind == crate::schema::Kind::Signed);
        out.push(TagSource {
            tag: name.clone(),
            column,
            signed,
        });
    }
    out
}

/// Whether `name` is a PGN tag name (letters, digits, `_`; a letter first).
fn is_tag_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn writable(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Date32
            | DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond)
    )
}

/// Appends the text of a tag value; `false` for a null or an unwritable type.
fn value_text(array: &dyn Array, row: usize, out: &mut String) -> bool {
    if array.is_null(row) {
        return false;
    }
    let text = match array.data_type() {
        DataType::Utf8 => {
            out.push_str(array.as_string::<i32>().value(row));
            return true;
        }
        DataType::LargeUtf8 => {
            out.push_str(array.as_string::<i64>().value(row));
            return true;
        }
        DataType::Utf8View => {
            out.push_str(array.as_string_view().value(row));
            return true;
        }
        DataType::Int8 => array.as_primitive::<Int8Type>().value(row).to_string(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(row).to_string(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(row).to_string(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Date32 => values::write_date(array.as_primitive::<Date32Type>().value(row)),
        DataType::Time32(TimeUnit::Second) => {
            values::write_time(array.as_primitive::<Time32SecondType>().value(row))
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            values::write_time(array.as_primitive::<Time32MillisecondType>().value(row) / 1000)
        }
        _ => return false,
    };
    out.push_str(&text);
    true
}

/// The rows of `batch` as PGN text, and where each row starts in it.
fn to_pgn(batch: &RecordBatch, sources: &[TagSource]) -> Result<(Vec<u8>, Vec<usize>), Error> {
    let movetext = batch
        .column_by_name("movetext")
        .ok_or_else(|| Error::Table("no column \"movetext\"".into()))?;
    let mut text = Vec::with_capacity(batch.get_array_memory_size());
    let mut starts = Vec::with_capacity(batch.num_rows());
    let mut value = String::new();
    for row in 0..batch.num_rows() {
        starts.push(text.len());
        for source in sources {
            value.clear();
            if !value_text(batch.column(source.column).as_ref(), row, &mut value) {
                continue;
            }
            if source.signed && value.starts_with(|c: char| c.is_ascii_digit()) && value != "0" {
                value.insert(0, '+');
            }
            text.push(b'[');
            text.extend_from_slice(source.tag.as_bytes());
            text.extend_from_slice(b" \"");
            for b in value.bytes() {
                match b {
                    b'"' | b'\\' => text.extend_from_slice(&[b'\\', b]),
                    b'\n' | b'\r' => text.push(b' '),
                    _ => text.push(b),
                }
            }
            text.extend_from_slice(b"\"]\n");
        }
        if sources.is_empty() {
            // A game needs something before its movetext to start.
            text.extend_from_slice(b"[Event \"?\"]\n");
        }
        text.push(b'\n');
        value.clear();
        if value_text(movetext.as_ref(), row, &mut value) {
            // A movetext line that looks like a tag would start a game.
            text.extend_from_slice(value.trim_start().as_bytes());
        }
        text.extend_from_slice(b"\n\n");
    }
    Ok((text, starts))
}

/// Decodes one batch of a Parquet input into a part of `opts.table`;
/// `name` and `first_row` place its problems.
pub(crate) fn decode(
    batch: &RecordBatch,
    opts: &Options,
    name: &str,
    first_row: u64,
) -> Result<Part, Error> {
    let sources = tag_sources(batch);
    let (text, starts) = to_pgn(batch, &sources)?;
    let row_of = |offset: u64| -> u64 {
        let at = starts.partition_point(|&s| s as u64 <= offset);
        first_row + at.saturating_sub(1) as u64
    };
    let chunk = ChunkView {
        data: &text,
        offset: 0,
        last: true,
        elided: &[],
        followed_by_game: false,
        column: 0,
    };
    let (batch, rows, games, failed, found) = match opts.table {
        Table::Games if opts.filter.is_none() => {
            run(chunk, GamesBuilder::default(), |b| b.finish())
        }
        Table::Games => run(
            chunk,
            GameRows {
                rows: GamesBuilder::default(),
                filter: &opts.filter,
            },
            |r| r.rows.finish(),
        ),
        Table::Positions => run(
            chunk,
            PositionRows {
                rows: PositionsBuilder::default(),
                filter: &opts.filter,
            },
            |r| r.rows.finish(),
        ),
    };
    let problems = found
        .into_iter()
        .map(|(offset, severity, message)| {
            let row = row_of(offset);
            Diagnostic {
                severity,
                path: Some(name.to_owned()),
                message: format!("row {row}: {message}"),
                game: Some(row + 1),
                ..Diagnostic::default()
            }
        })
        .collect();
    Ok(Part {
        batch,
        games,
        failed,
        rows: rows.into_iter().map(row_of).collect(),
        problems,
    })
}

type Found = Vec<(u64, Severity, String)>;

/// The games of `chunk` into `sink`: the batch, each game's start offset
/// by id, games read, games failed, problems.
fn run<S: Sink>(
    chunk: ChunkView<'_>,
    sink: S,
    finish: impl FnOnce(S) -> RecordBatch,
) -> (RecordBatch, Vec<u64>, u64, u64, Found) {
    let mut visitor = RowsVisitor::new(chunk, sink);
    let mut reader = SliceReader::with_offset(chunk.data, 0);
    let (mut games, mut failed) = (0u64, 0u64);
    let mut found = Found::new();
    while let Some(outcome) = reader.read_game(&mut visitor) {
        games += 1;
        if matches!(outcome, Outcome::Failed | Outcome::CutOff) {
            failed += 1;
        }
        let at = reader.game_offset();
        for p in reader.problems() {
            found.push((at, p.severity, p.message.clone()));
        }
    }
    let offsets = std::mem::take(&mut visitor.offsets);
    (finish(visitor.out), offsets, games, failed, found)
}
