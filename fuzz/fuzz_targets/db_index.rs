#![no_main]
//! The position index file (`gamerec_db::index::Index`): any bytes open
//! or give an error, never a panic. The bytes are tried as they are (the
//! header's and sections' checksums almost never hold, so this fuzzes the
//! header checks), then with the checksums rewritten to match
//! (`index::reseal`), so damaged content reaches every reader behind
//! them: the game summaries, the frame table, the games' bytes read from
//! the database the seeds index (plain and zstd), position lookups, the
//! opening tree and totals, the boards scan, material candidates and the
//! explorer's answer. A damaged fst is an error (the index catches the fst
//! crate's panics). A position's totals count its games, a move's games
//! are among its position's, and the games of a scan or of material
//! candidates are in the index. Run it with `ASAN_OPTIONS=detect_leaks=0`
//! (the boards scan's threads may still be ending when LeakSanitizer
//! looks).
use gamerec::shakmaty::Chess;
use std::sync::OnceLock;

use gamerec_db::explorer::{self, Database, Filters, Request};
use gamerec_db::index::{Index, reseal};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;

/// The database the seeds index (`seeds/db_index/tiny.idx`; as zstd in two
/// frames cut at byte 380, `tiny-zst-frames.idx`): games are read from it
/// at the offsets the index gives.
const DB: &str = include_str!("../data/tiny.pgn");

/// The database written plain and as zstd (two frames), once per process.
fn databases() -> &'static [Database; 2] {
    static DATABASES: OnceLock<[Database; 2]> = OnceLock::new();
    DATABASES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gamerec-fuzz-index-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let plain = dir.join("tiny.pgn");
        std::fs::write(&plain, DB).expect("database");
        let zst = dir.join("tiny.pgn.zst");
        let (a, b) = DB.as_bytes().split_at(380);
        let mut z = zstd::encode_all(a, 3).expect("zstd");
        z.extend(zstd::encode_all(b, 3).expect("zstd"));
        std::fs::write(&zst, z).expect("database");
        [
            Database::new(&plain).expect("plain database"),
            Database::new(&zst).expect("zstd database"),
        ]
    })
}

/// Lines whose positions are looked up (UCI moves from the start).
const LINES: [&str; 4] = ["", "e2e4", "e2e4 e7e5", "d2d4 g8f6 c2c4"];

fn positions() -> Vec<Chess> {
    common::play_lines(&LINES)
}

fn exercise(index: &Index) {
    let games = index.games();
    assert!(games * 64 <= index.file_len());
    let n = u32::try_from(games).unwrap_or(u32::MAX);
    for g in (0..n.min(64)).chain([n, n.saturating_add(1), u32::MAX]) {
        assert_eq!(index.game(g).is_some(), u64::from(g) < games);
    }
    let _ = (index.database(), index.db_len(), index.boards());
    for db in databases() {
        for g in 0..n.min(4) {
            // An error is fine (a frame table pointing anywhere); a game
            // read is at most the explorer's bound.
            if let Ok(bytes) = db.game_bytes(index, g) {
                assert!(bytes.is_some_and(|b| b.len() <= 64 << 20));
            }
        }
    }
    let frames = index.frames();
    for offset in [0, 1, 1 << 20, index.db_len(), u64::MAX]
        .into_iter()
        .chain(frames.iter().take(8).flat_map(|&(c, d)| [c, d]))
    {
        if let Some((_, start, end)) = index.frame_at(offset) {
            assert!(start <= end);
        }
    }
    for pos in positions() {
        let Ok(found) = index.find(&pos) else {
            continue;
        };
        let totals = index.totals(&pos).expect("read once already");
        assert_eq!(totals.games, found.len() as u64);
        for t in index.tree(&pos).unwrap_or_default() {
            assert!(t.games <= found.len() as u64);
            assert!(t.white + t.draws + t.black <= t.games);
        }
        let mut req = Request::default();
        if let Ok(report) = explorer::explore(index, &pos, &req) {
            let _ = explorer::report_json(&report, None, &mut |g| (g.to_string(), String::new()));
        }
        req.filters = Filters {
            ratings: vec![1600, 2500],
            since: Some((2000, 1)),
            player: Some("x".into()),
            ..Filters::default()
        };
        let _ = explorer::explore(index, &pos, &req);
    }
    if let Ok(scan) = index.position_games(|b| b[0] & 1 == 0, 2) {
        for &(g, _) in &scan.found {
            assert!(u64::from(g) < games);
        }
    }
    for g in index
        .candidates(|sig| sig & 1 == 0, [0, 0])
        .unwrap_or_default()
    {
        assert!(u64::from(g) < games);
    }
}

fuzz_target!(|data: &[u8]| {
    // The index turns the fst crate's panics on damaged nodes into errors
    // (`catch_unwind` in `index::fst_read`); libfuzzer-sys's panic hook
    // would abort on them before. Any other panic (on any thread) still
    // aborts.
    common::abort_on_panics_outside(&["/fst-"]);
    if let Ok(index) = Index::from_bytes(data.to_vec(), "fuzz") {
        exercise(&index);
    }
    let mut sealed = data.to_vec();
    reseal(&mut sealed);
    if let Ok(index) = Index::from_bytes(sealed, "fuzz") {
        exercise(&index);
    }
});
