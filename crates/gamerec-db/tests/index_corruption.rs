//! A damaged index is refused, never read: 1,000 random single-byte changes
//! in the header and in each section, and every truncation point class, give
//! a clear error naming what is wrong; none panics, none answers.

use std::os::unix::fs::FileExt;
use std::path::Path;

use gamerec_db::identity::DbIdentity;
use gamerec_db::index::{BuildOptions, Index, IndexError, build, reseal};
use gamerec_testkit::{corpus, temp_dir};

/// xorshift64*: deterministic random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}

/// (name, start, end) of the header and the seven sections.
fn regions(bytes: &[u8]) -> Vec<(&'static str, usize, usize)> {
    let names = [
        "positions",
        "postings",
        "games",
        "material",
        "material postings",
        "boards",
        "frames",
    ];
    let mut out = vec![("header", 0, 256)];
    for (i, n) in names.iter().enumerate() {
        let (o, l) = (u64_at(bytes, 24 + i * 16), u64_at(bytes, 32 + i * 16));
        assert!(l > 0, "{n} is empty");
        out.push((n, o as usize, (o + l) as usize));
    }
    out
}

fn build_small(dir: &Path) -> (Vec<u8>, std::path::PathBuf) {
    let data = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    // About 300 games: every section is non-trivial.
    let cut = data
        .windows(8)
        .enumerate()
        .filter(|(_, w)| *w == b"\n[Event ")
        .nth(300)
        .unwrap()
        .0
        + 1;
    let data = data[..cut].to_vec();
    let out = dir.join("small.idx");
    // A zstd database of 16 KiB frames: the frame table is not empty.
    let zst = dir.join("small.pgn.zst");
    let mut z = Vec::new();
    for chunk in data.chunks(16 << 10) {
        z.extend(zstd::encode_all(chunk, 3).unwrap());
    }
    std::fs::write(&zst, &z).unwrap();
    let opts = BuildOptions {
        threads: 2,
        temp_dir: dir.to_path_buf(),
        run_entries: 3000,
        database: Some(DbIdentity::of_file(&zst).unwrap()),
        database_path: Some(zst.clone()),
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    };
    build(&gamerec::io::Input::file(&zst), None, &out, &opts, |_| {}).unwrap();
    (std::fs::read(&out).unwrap(), out)
}

#[test]
fn random_single_byte_changes_in_each_section_are_refused() {
    let dir = temp_dir("db-corrupt");
    let (good, _) = build_small(&dir);
    let regions = regions(&good);
    let bad = dir.join("bad.idx");
    std::fs::write(&bad, &good).unwrap();
    let file = std::fs::File::options().write(true).open(&bad).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, start, end) in regions {
        assert!(end > start, "{name} is empty");
        for _ in 0..1000 {
            let at = start + (rng.next() % (end - start) as u64) as usize;
            let flip = (rng.next() % 255 + 1) as u8;
            // Changed in place, and put back after.
            file.write_all_at(&[good[at] ^ flip], at as u64).unwrap();
            let opened = Index::open(&bad);
            file.write_all_at(&good[at..at + 1], at as u64).unwrap();
            match opened {
                Ok(_) => panic!("{name}: byte {at} ^ {flip:#x} accepted"),
                Err(IndexError::Format(m)) => {
                    assert!(m.contains("bad.idx"), "{m}");
                    if name != "header" {
                        // The changed section's checksum, or the header's
                        // description of it when the sizes no longer add up.
                        assert!(
                            m.contains("checksum mismatch") || m.contains("header"),
                            "{name}: {m}"
                        );
                    }
                }
                Err(e) => panic!("{name}: byte {at}: {e}"),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn truncated_and_extended_indexes_are_refused() {
    let dir = temp_dir("db-truncated");
    let (good, path) = build_small(&dir);
    assert!(Index::open(&path).is_ok());
    let bad = dir.join("cut.idx");
    let mut lens: Vec<usize> = vec![0, 1, 7, 8, 100, 255, 256, 257];
    lens.extend((1..64).map(|i| good.len() * i / 64));
    lens.push(good.len() - 1);
    for len in lens {
        std::fs::write(&bad, &good[..len]).unwrap();
        let e = Index::open(&bad)
            .err()
            .unwrap_or_else(|| panic!("{len} accepted"));
        let m = e.to_string();
        assert!(
            m.contains("truncated") || m.contains("bad magic") || m.contains("describes"),
            "{len}: {m}"
        );
    }
    let mut longer = good.clone();
    longer.extend_from_slice(b"more");
    std::fs::write(&bad, &longer).unwrap();
    let m = Index::open(&bad).unwrap_err().to_string();
    assert!(m.contains("the header describes"), "{m}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tiny database and its index in `dir`.
fn build_tiny(dir: &Path) -> (std::path::PathBuf, Vec<u8>, BuildOptions) {
    let db = dir.join("tiny.pgn");
    std::fs::write(
        &db,
        "[White \"Ann\"]\n[Black \"Bob\"]\n[WhiteElo \"1650\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
         [White \"Cy\"]\n[Black \"Ann\"]\n[Result \"1/2-1/2\"]\n\n1. e4 c5 2. Nf3 d6 1/2-1/2\n",
    )
    .unwrap();
    let out = dir.join("tiny.idx");
    let opts = BuildOptions {
        threads: 1,
        temp_dir: dir.to_path_buf(),
        run_entries: 1000,
        database: None,
        database_path: None,
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    };
    build(&gamerec::io::Input::file(&db), None, &out, &opts, |_| {}).unwrap();
    (db, std::fs::read(&out).unwrap(), opts)
}

/// Found by the `db_index` fuzz target: an index whose checksums were
/// made to match damaged content (`reseal`) reached the fst crate, which
/// panicked on a damaged node (`assertion failed: 1 <= nbytes && nbytes
/// <= 8` in a lookup). Every byte of every section changed, the checksums
/// rewritten: opening and every query give an answer or an error naming
/// the damaged section, never a panic.
#[test]
fn damage_past_the_checksums_is_an_error_not_a_panic() {
    let dir = temp_dir("db-resealed");
    let (_, good, _) = build_tiny(&dir);
    let mut positions = vec![shakmaty::Chess::default()];
    for uci in ["e2e4", "e7e5", "d1h5"] {
        let pos = positions.last().unwrap();
        let mv = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(pos)
            .unwrap();
        positions.push(shakmaty::Position::play(pos.clone(), mv).unwrap());
    }
    let (mut answered, mut damaged) = (0, 0);
    for section in 0..7 {
        let (start, len) = (
            u64_at(&good, 24 + section * 16),
            u64_at(&good, 32 + section * 16),
        );
        for at in start as usize..(start + len) as usize {
            for flip in [0x01u8, 0x10, 0x80, 0xFF] {
                let mut bytes = good.clone();
                bytes[at] ^= flip;
                reseal(&mut bytes);
                let Ok(index) = Index::from_bytes(bytes, "tiny.idx") else {
                    continue;
                };
                let queried = (|| -> Result<(), IndexError> {
                    for pos in &positions {
                        index.find(pos)?;
                        index.tree(pos)?;
                        index.totals(pos)?;
                    }
                    index.candidates(|_| true, [0, 0])?;
                    Ok(())
                })();
                match queried {
                    Ok(()) => answered += 1,
                    Err(IndexError::Format(m)) => {
                        assert!(
                            m.contains("tiny.idx") && m.contains("damaged"),
                            "{section}: {m}"
                        );
                        damaged += 1;
                    }
                    Err(e) => panic!("section {section}: byte {at} ^ {flip:#x}: {e}"),
                }
            }
        }
    }
    assert!(
        answered > 0 && damaged > 0,
        "{answered} answered, {damaged} damaged"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Seen while fixing the test above: the key count an fst states of
/// itself sized a vector when an index was appended to, so a count of
/// 2^40 (checksums rewritten) aborted the process for want of memory. It
/// is bounded by the section's bytes now: appending to such an index gives
/// an index or an error.
#[test]
fn an_fst_stating_a_huge_key_count_is_appended_to_in_bounded_memory() {
    let dir = temp_dir("db-fst-count");
    let (db, good, opts) = build_tiny(&dir);
    for section in [0, 3] {
        let end = (u64_at(&good, 24 + section * 16) + u64_at(&good, 32 + section * 16)) as usize;
        let mut bytes = good.clone();
        // The fst's footer: key count (8 bytes), root address (8), checksum
        // (4). A count of 2^40 keys: 16 TiB to hold them.
        bytes[end - 15] = 0x01;
        reseal(&mut bytes);
        let index = std::sync::Arc::new(Index::from_bytes(bytes, "huge.idx").unwrap());
        let out = dir.join("appended.idx");
        // No bytes after the indexed ones: the old index is all that is merged.
        let (stats, _) = build(
            &gamerec::io::Input::file(&db),
            Some(index),
            &out,
            &opts,
            |_| {},
        )
        .unwrap_or_else(|e| panic!("section {section}: {e}"));
        assert_eq!(stats.games, 2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found by the `db_index` fuzz target: a frame table whose first frame
/// starts (in the decompressed bytes) after a game's offset made reading
/// that game from a zstd database subtract past zero (a panic with
/// overflow checks, bytes from the wrong place without). It reads the
/// game from the frame's start instead, no panic.
#[test]
fn a_frame_table_starting_after_a_game_reads_without_a_panic() {
    let dir = temp_dir("db-frames-after");
    let (db, _, opts) = build_tiny(&dir);
    let text = std::fs::read(&db).unwrap();
    // Two frames (the first holding game 1), so the index records a frame
    // table.
    let zst = dir.join("tiny.pgn.zst");
    let (a, b) = text.split_at(text.len() - 10);
    let mut z = zstd::encode_all(a, 3).unwrap();
    z.extend(zstd::encode_all(b, 3).unwrap());
    std::fs::write(&zst, z).unwrap();
    let out = dir.join("zst.idx");
    let opts = BuildOptions {
        database_path: Some(zst.clone()),
        ..opts
    };
    build(&gamerec::io::Input::file(&zst), None, &out, &opts, |_| {}).unwrap();
    let mut bytes = std::fs::read(&out).unwrap();
    let frames = u64_at(&bytes, 24 + 6 * 16) as usize;
    assert_eq!(u64_at(&bytes, 32 + 6 * 16), 32, "two frames");
    // The first frame's decompressed start: 10 bytes after game 1's offset (0).
    bytes[frames + 8..frames + 16].copy_from_slice(&10u64.to_le_bytes());
    reseal(&mut bytes);
    let index = Index::from_bytes(bytes, "zst.idx").unwrap();
    let database = gamerec_db::explorer::Database::new(&zst).unwrap();
    let game = database.game_bytes(&index, 0).unwrap().unwrap();
    assert!(
        game.starts_with(b"[White"),
        "{}",
        String::from_utf8_lossy(&game)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `good` with some of its sections replaced (index, bytes), the header's
/// table and checksums rewritten to match.
fn with_sections(good: &[u8], replaced: &[(usize, Vec<u8>)]) -> Vec<u8> {
    let mut out = good[..256].to_vec();
    for section in 0..7 {
        let (o, l) = (
            u64_at(good, 24 + section * 16),
            u64_at(good, 32 + section * 16),
        );
        let bytes = match replaced.iter().find(|(i, _)| *i == section) {
            Some((_, b)) => b.clone(),
            None => good[o as usize..(o + l) as usize].to_vec(),
        };
        let at = out.len() as u64;
        out[24 + section * 16..32 + section * 16].copy_from_slice(&at.to_le_bytes());
        out[32 + section * 16..40 + section * 16]
            .copy_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    reseal(&mut out);
    out
}

/// An index whose positions (or material signatures) all point at one
/// long postings list made every scan read that list once per position:
/// work and memory grew with the square of the file's size (2,000 boards
/// on a list of 50,000 games: 10^8 postings read from 160 KB). A scan now
/// stops once it has read more postings than the section can hold, an
/// error naming the section.
#[test]
fn postings_shared_between_positions_are_an_error_not_quadratic_work() {
    let dir = temp_dir("db-shared-postings");
    let (db, good, opts) = build_tiny(&dir);
    // 50,000 (game delta 0, ply 0) pairs, and 2,000 boards all pointing at them.
    let mut postings = vec![
        0x80 | (50_000 & 0x7F) as u8,
        ((50_000 >> 7) & 0x7F) as u8 | 0x80,
        (50_000 >> 14) as u8,
    ];
    postings.resize(postings.len() + 100_000, 0);
    let boards: Vec<u8> = (0..2000).flat_map(|_| [0u8; 32]).collect();
    let shared = with_sections(&good, &[(1, postings), (5, boards)]);
    let index = Index::from_bytes(shared, "shared.idx").unwrap();
    for threads in [1, 3] {
        let m = index
            .position_games(|_| true, threads)
            .unwrap_err()
            .to_string();
        assert!(m.contains("shared.idx: postings section damaged"), "{m}");
    }

    // Material signatures (two here): every list 127 games long, from 200
    // bytes.
    let shared = with_sections(&good, &[(4, vec![0x7F; 200])]);
    let index = Index::from_bytes(shared, "shared.idx").unwrap();
    let m = index.candidates(|_| true, [0, 0]).unwrap_err().to_string();
    assert!(m.contains("material postings section damaged"), "{m}");

    // Appending to an index whose two shared positions' lists overlap.
    let shared = with_sections(&good, &[(1, vec![0x7F; 240])]);
    let index = std::sync::Arc::new(Index::from_bytes(shared, "shared.idx").unwrap());
    let out = dir.join("appended.idx");
    let e = build(
        &gamerec::io::Input::file(&db),
        Some(index),
        &out,
        &opts,
        |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("postings section damaged"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
