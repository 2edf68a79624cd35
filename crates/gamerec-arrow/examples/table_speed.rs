//! The path of `gamerec positions` / `convert FILE -o T.parquet` without the
//! CLI around it (decode with [`Batches`], write with [`TableWriter`]), for
//! profiling and quick comparisons: a crate example builds in seconds where
//! the whole CLI takes minutes. The figures that count are the CLI's
//! (BENCHMARKS.md).
//!
//! `cargo run --profile quick-release -p gamerec-arrow --example table_speed
//! -- positions|games THREADS IN.pgn OUT.parquet`

use std::path::PathBuf;

use gamerec_arrow::decode::{Batches, Options, Table};
use gamerec_arrow::{FileKind, TableWriter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [table, threads, input, output] = args.as_slice() else {
        return Err("usage: table_speed positions|games THREADS IN.pgn OUT.parquet".into());
    };
    let table: Table = table.parse()?;
    let threads: usize = threads.parse()?;
    let opts = Options {
        table,
        threads,
        ..Options::default()
    };
    let schema = match table {
        Table::Games => gamerec_arrow::schema::games(),
        Table::Positions => gamerec_arrow::schema::positions(),
    };
    let output = PathBuf::from(output);
    let kind = FileKind::of_path(&output).ok_or("not a table extension")?;
    let mut writer = TableWriter::create(&output, kind, schema)?.with_threads(threads);
    for item in Batches::new(vec![PathBuf::from(input)], opts) {
        writer.write(&item?.batch)?;
    }
    let rows = writer.rows();
    writer.commit()?;
    eprintln!("{rows} rows");
    Ok(())
}
