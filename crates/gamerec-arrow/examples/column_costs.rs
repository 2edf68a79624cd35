//! What each column of a Parquet table costs to write, alone, under several
//! encodings and compressions: CPU time of this thread (best of a few
//! runs, from `/proc/thread-self/schedstat`, so other processes' load
//! inflates it less than wall time) and bytes written. Without column
//! names, first the whole table as `gamerec` writes it ([`TableWriter`],
//! its settings, one thread): the writer's share of a table's cost.
//!
//! With `WITHOUT=1` (and no column names), what each column adds to the
//! whole writer: the table's cost less that of the table without it.
//!
//! `cargo run --profile quick-release -p gamerec-arrow --example
//! column_costs -- positions.parquet [COLUMN...]`

use std::fs::File;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use gamerec_arrow::{FileKind, TableWriter};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

/// This thread's CPU time in nanoseconds.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

type Error = Box<dyn std::error::Error>;

/// The least CPU time of `reps` runs of `write` (nanoseconds), and the
/// bytes its last run wrote.
fn best_of(
    reps: usize,
    mut write: impl FnMut() -> Result<usize, Error>,
) -> Result<(u64, usize), Error> {
    let (mut best, mut size) = (u64::MAX, 0);
    for _ in 0..reps {
        let start = cpu_ns();
        size = write()?;
        best = best.min(cpu_ns() - start);
    }
    Ok((best, size))
}

/// One line of the table.
fn report(column: &str, config: &str, best_ns: u64, size: usize) {
    println!(
        "{column:<14} {config:<18} {:>8.1} ms {size:>11} B",
        best_ns as f64 / 1e6
    );
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: column_costs FILE.parquet [COLUMN...]".into());
    };
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?
        .with_batch_size(64 * 1024)
        .build()?
        .collect::<Result<_, _>>()?;
    let schema = batches[0].schema();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    println!("{rows} rows; CPU ms (best of {reps}), bytes");
    if args.len() == 1 {
        let (best, size) = best_of(reps, || {
            let mut writer = TableWriter::new(Vec::new(), FileKind::Parquet, schema.clone())?;
            for b in &batches {
                writer.write(b)?;
            }
            Ok(writer.finish()?.len())
        })?;
        report("(all)", "TableWriter", best, size);
        if std::env::var_os("WITHOUT").is_some() {
            // What each column adds to the whole writer: the table without it.
            for (i, field) in schema.fields().iter().enumerate() {
                let mut rest = (*schema).clone();
                rest.fields = schema
                    .fields()
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, f)| f.clone())
                    .collect();
                let rest = Arc::new(rest);
                let cut: Vec<RecordBatch> = batches
                    .iter()
                    .map(|b| {
                        let mut b = b.clone();
                        b.remove_column(i);
                        RecordBatch::try_new(rest.clone(), b.columns().to_vec())
                    })
                    .collect::<Result<_, _>>()?;
                let (without, _) = best_of(reps, || {
                    let mut writer = TableWriter::new(Vec::new(), FileKind::Parquet, rest.clone())?;
                    for b in &cut {
                        writer.write(b)?;
                    }
                    Ok(writer.finish()?.len())
                })?;
                report(field.name(), "adds", best.saturating_sub(without), 0);
            }
            return Ok(());
        }
    }
    let zstd1 = Compression::ZSTD(ZstdLevel::try_new(1)?);
    for (i, field) in schema.fields().iter().enumerate() {
        if args.len() > 1 && !args[1..].contains(field.name()) {
            continue;
        }
        let one = Arc::new(Schema::new(vec![field.as_ref().clone()]));
        let cols: Vec<RecordBatch> = batches
            .iter()
            .map(|b| RecordBatch::try_new(one.clone(), vec![b.column(i).clone()]))
            .collect::<Result<_, _>>()?;
        let text = matches!(field.data_type(), DataType::Utf8);
        let mut configs: Vec<(&str, Option<Encoding>, Compression, usize)> = vec![
            ("dict zstd1", None, zstd1, 1 << 20),
            ("plain zstd1", Some(Encoding::PLAIN), zstd1, 1 << 20),
            (
                "plain snappy",
                Some(Encoding::PLAIN),
                Compression::SNAPPY,
                1 << 20,
            ),
            (
                "plain none",
                Some(Encoding::PLAIN),
                Compression::UNCOMPRESSED,
                1 << 20,
            ),
            ("dict none", None, Compression::UNCOMPRESSED, 1 << 20),
        ];
        if text {
            configs.extend([
                ("plain zstd1 256K", Some(Encoding::PLAIN), zstd1, 256 << 10),
                ("plain zstd1 4M", Some(Encoding::PLAIN), zstd1, 4 << 20),
                (
                    "dlba zstd1",
                    Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
                    zstd1,
                    1 << 20,
                ),
                (
                    "dlba zstd-1",
                    Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
                    Compression::ZSTD(ZstdLevel::try_new(-1)?),
                    1 << 20,
                ),
                (
                    "dlba zstd-3",
                    Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
                    Compression::ZSTD(ZstdLevel::try_new(-3)?),
                    1 << 20,
                ),
                (
                    "dlba zstd-7",
                    Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
                    Compression::ZSTD(ZstdLevel::try_new(-7)?),
                    1 << 20,
                ),
                (
                    "dba zstd1",
                    Some(Encoding::DELTA_BYTE_ARRAY),
                    zstd1,
                    1 << 20,
                ),
            ]);
        } else {
            configs.extend([
                (
                    "delta zstd1",
                    Some(Encoding::DELTA_BINARY_PACKED),
                    zstd1,
                    1 << 20,
                ),
                (
                    "delta none",
                    Some(Encoding::DELTA_BINARY_PACKED),
                    Compression::UNCOMPRESSED,
                    1 << 20,
                ),
            ]);
        }
        for (name, encoding, compression, page) in configs {
            let mut props = WriterProperties::builder()
                .set_compression(compression)
                .set_max_row_group_row_count(Some(256 * 1024))
                .set_data_page_size_limit(page)
                .set_statistics_enabled(EnabledStatistics::None)
                .set_dictionary_enabled(encoding.is_none());
            if let Some(e) = encoding {
                props = props.set_encoding(e);
            }
            let props = props.build();
            let (best, size) = best_of(reps, || {
                let mut writer =
                    ArrowWriter::try_new(Vec::new(), one.clone(), Some(props.clone()))?;
                for b in &cols {
                    writer.write(b)?;
                }
                Ok(writer.into_inner()?.len())
            })?;
            report(field.name(), name, best, size);
        }
    }
    Ok(())
}
