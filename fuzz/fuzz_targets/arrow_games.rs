#![no_main]
//! Games tables read back (`gamerec_arrow::read::for_each_game`, what
//! `gamerec convert T.parquet -o out.pgn` uses): any bytes, as a Parquet
//! file and as an Arrow IPC file, give games or an error, never a panic.
//! Run it with `ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=0`
//! and `-malloc_limit_mb=65536`: a file may state a buffer of any size,
//! which the zstd decoder reserves with a call that may fail, and which
//! fails (or costs nothing until written) outside AddressSanitizer and
//! libFuzzer's malloc limit; the Parquet input's decoding thread may still
//! be ending when LeakSanitizer looks (see CONTRIBUTING.md, Fuzzing).
//! The Parquet file is also read as an input of `convert -o T.parquet` and
//! `positions` (`Batches`, both tables). The bytes are written to a file
//! of this process's own (the readers take a path, as the command line
//! gives it).
use std::path::PathBuf;
use std::sync::OnceLock;

use gamerec_arrow::{Batches, Options, Table};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("gamerec-fuzz-arrow-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temporary directory");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    // The reader turns arrow-rs's and parquet-rs's panics on damaged files
    // into errors (`catch_unwind` in `read::decoding`); libfuzzer-sys's
    // panic hook would abort on them before. A panic elsewhere (gamerec's
    // code, on any thread) still aborts; one in those crates that the
    // reader does not catch ends the input, reported as a crash.
    common::abort_on_panics_outside(&["/arrow-", "/parquet-"]);
    for name in ["t.parquet", "t.arrow"] {
        let path = dir().join(name);
        std::fs::write(&path, data).expect("temporary file");
        let mut games = 0u64;
        let _ = gamerec_arrow::read::for_each_game(&path, |_, game| {
            games += 1;
            // A row that is no game is its own error; the others go on.
            if let Ok(game) = game {
                std::hint::black_box(gamerec::pgn::writer::export_string(
                    &game,
                    &Default::default(),
                ));
            }
        });
    }
    let path = dir().join("t.parquet");
    for table in [Table::Games, Table::Positions] {
        let opts = Options {
            table,
            ..Options::default()
        };
        for decoded in Batches::new(vec![path.clone()], opts) {
            let Ok(decoded) = decoded else { break };
            assert!(decoded.batch.num_rows() as u64 <= 1 << 24);
        }
    }
});
