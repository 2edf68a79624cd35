#![no_main]
//! `gamerec serve`'s requests (`gamerec_explorer::Explorer::answer`, the
//! request target a client sends: path and query): any target gets an
//! answer, never a panic, over an index of `samples/lichess-20.pgn` built
//! once per process (a fresh explorer per input, so no answer is kept from
//! one input to the next). Answers are 200, 400 or 404; a JSON answer
//! parses as JSON.
use std::path::PathBuf;
use std::sync::OnceLock;

use gamerec_db::index::{BuildOptions, Index, build};
use gamerec_explorer::Explorer;
use libfuzzer_sys::fuzz_target;

const DB: &[u8] = include_bytes!("../../samples/lichess-20.pgn");

/// The database's path and its index's bytes.
fn database() -> &'static (PathBuf, Vec<u8>) {
    static DATABASE: OnceLock<(PathBuf, Vec<u8>)> = OnceLock::new();
    DATABASE.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("gamerec-fuzz-explorer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let db = dir.join("db.pgn");
        std::fs::write(&db, DB).expect("database");
        let out = dir.join("db.idx");
        let opts = BuildOptions {
            threads: 1,
            temp_dir: dir.clone(),
            run_entries: 1 << 16,
            database: None,
            database_path: None,
            max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
        };
        build(&gamerec::io::Input::file(&db), None, &out, &opts, |_| {}).expect("index built");
        let bytes = std::fs::read(&out).expect("index read");
        (db, bytes)
    })
}

fuzz_target!(|data: &[u8]| {
    let target = String::from_utf8_lossy(data);
    let (db, bytes) = database();
    let index = Index::from_bytes(bytes.clone(), "db.idx").expect("the index opens");
    let explorer = Explorer::new(index, db, None).expect("explorer");
    let answer = explorer.answer(&target);
    assert!(
        matches!(answer.status, 200 | 400 | 404),
        "{}",
        answer.status
    );
    if answer.content_type == "application/json" {
        let _: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON answer");
    }
});
