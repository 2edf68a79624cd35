//! Damaged games tables read back (`read::for_each_game`, what `gamerec
//! convert T.parquet -o out.pgn` uses): the inputs in `data/damaged/` made
//! arrow-rs or parquet-rs panic, or allocate what a block claimed, when
//! the `arrow_games` fuzz target found them. Each is an error now.

use std::path::PathBuf;

use gamerec_arrow::read::read_parquet_games;

fn damaged(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/damaged")
        .join(name)
}

/// (file, what its error says, what the reader did before).
const CASES: [(&str, &str); 5] = [
    // A record batch block of negative length (arrow-ipc unwrapped it),
    // checked against the file before the reader sees it.
    (
        "ipc-footer-unwrap.arrow",
        "damaged Arrow IPC file: record batch 1",
    ),
    // A buffer past its batch's body (arrow-buffer's `slice_with_length`
    // asserted); its stated decompressed length is out of bounds too, and
    // that is checked first.
    (
        "ipc-buffer-out-of-range.arrow",
        "damaged Arrow IPC file: record batch 1: a compressed buffer says it holds",
    ),
    // A slice past its buffer (arrow-buffer asserted), caught around the
    // reader.
    (
        "ipc-slice-past-buffer.arrow",
        "damaged Arrow IPC file: its reader stopped",
    ),
    // A zstd buffer stating 6e18 bytes decompressed (arrow-ipc reserved
    // them first: the allocation failed and the process aborted), found by
    // mutating a table gamerec wrote; each compressed buffer's stated
    // length is checked before the reader sees it.
    (
        "ipc-decompressed-length.arrow",
        "damaged Arrow IPC file: record batch 1: a compressed buffer says it holds 6062123479785275392 bytes",
    ),
    // Column metadata not matching the schema (parquet's metadata reader
    // indexed past it), caught around the reader.
    (
        "parquet-metadata.parquet",
        "damaged Parquet file: its reader stopped",
    ),
];

#[test]
fn damaged_tables_are_errors_not_panics() {
    for (name, want) in CASES {
        let e = read_parquet_games(&damaged(name))
            .err()
            .unwrap_or_else(|| panic!("{name} read"));
        let m = e.to_string();
        assert!(m.starts_with(want), "{name}: {m}");
    }
}
