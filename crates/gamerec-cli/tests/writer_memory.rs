//! Issue 22 item 3, the writer half: `gamerec convert` writes PGC and
//! CBF/CBI game by game, and merges FBK into one tree whose size follows
//! its distinct lines, not the number of games. Before, every game was
//! held until the end: a million games took 893 MB to PGC and 885 MB to
//! CBF, and a 4 MB PGN took 1.28 GB to FBK. The peak is read per child
//! with `wait4` (as in `binary_memory.rs`); what is left is the parallel
//! reader's bounded read-ahead, the same whatever the input's size.

#![cfg(target_os = "linux")]

use std::io::{BufWriter, Write};
use std::path::Path;

/// Peak resident memory allowed for any of these conversions, in MB
/// (measured: 70 to 90 MB on two threads, most of it the reader's
/// read-ahead, which fills up on inputs this large; before: 180 MB for
/// 100,000 games, 893 MB for a million).
const LIMIT_MB: u64 = 128;
/// How much more a million games may take than 300,000, in MB (measured:
/// under 10; before, about 600).
const GROWTH_MB: u64 = 24;

const GAME: &[u8] = b"[Event \"m\"]\n[White \"w\"]\n[Black \"b\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";

fn write_repeated(path: &Path, bytes: &[u8], times: usize) {
    let mut file = BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..times {
        file.write_all(bytes).unwrap();
    }
    file.flush().unwrap();
}

/// Converts `input` to `output` on two threads; returns the peak in MB.
fn convert(input: &Path, output: &Path) -> u64 {
    let (_, mb) = gamerec_testkit::run_measured(
        env!("CARGO_BIN_EXE_gamerec"),
        &[
            "convert",
            "-q",
            "-t",
            "2",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ],
    );
    mb
}

/// Converts `games` copies of a game to PGC, CBF and FBK; checks the
/// outputs and that the peak stays under the limit. Returns the peaks.
fn check_bounded(dir: &Path, games: usize) -> Vec<u64> {
    let input = dir.join("in.pgn");
    write_repeated(&input, GAME, games);
    let mut peaks = Vec::new();
    for ext in ["pgc", "cbf", "fbk"] {
        let out = dir.join(format!("out.{ext}"));
        let mb = convert(&input, &out);
        eprintln!("{ext}: {games} games {mb} MB");
        match ext {
            // Every game written: a reduced game or a general one per game.
            "pgc" => {
                let bytes = std::fs::read(&out).unwrap();
                let one = gamerec::pgc::write_pgc(&gamerec::pgn::read_games(GAME).0).0;
                assert_eq!(bytes.len(), one.len() * games, "{ext}");
                assert!(bytes.starts_with(&one));
            }
            // The CBI indexes every game.
            "cbf" => {
                let cbi = std::fs::read(dir.join("out.cbi")).unwrap();
                assert_eq!(cbi.len(), 4 * (games + 2), "{ext}");
            }
            // One line of four moves: the same games merge into it.
            _ => assert_eq!(std::fs::metadata(&out).unwrap().len(), 8, "{ext}"),
        }
        assert!(mb < LIMIT_MB, "{ext}: {mb} MB for {games} games");
        peaks.push(mb);
    }
    peaks
}

#[test]
fn binary_writers_stay_bounded() {
    let dir = gamerec_testkit::temp_dir("writer-memory");
    // Before: about 350 MB for each format.
    check_bounded(&dir, 200_000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: converts a million games to three formats (about a minute in a debug build)"]
fn a_million_games_convert_to_binary_formats_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("writer-memory-million");
    let before = check_bounded(&dir, 300_000);
    let after = check_bounded(&dir, 1_000_000);
    for (b, a) in before.iter().zip(&after) {
        assert!(
            a <= &(b + GROWTH_MB),
            "{b} MB for 300,000 games, {a} MB for a million"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// FBK memory follows the tree's distinct lines: a tree of many distinct
/// lines costs a few dozen bytes a line, not a game's worth.
#[test]
fn fbk_tree_memory_follows_its_distinct_lines() {
    use gamerec::chessbase::{FbkWriter, read_fbk};
    use gamerec::pgn::read_games;
    // 20 x 20 x 20 distinct lines of three moves: knight and pawn moves.
    let first = ["a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4"];
    let reply = ["a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5"];
    let mut text = String::new();
    for w in first {
        for b in reply {
            for w2 in ["Nf3", "Nh3", "f3", "f4", "h3", "h4", "g3", "g4"] {
                text.push_str(&format!(
                    "[Event \"x\"]\n[Comment \"{}\"]\n\n1. {w} {b} 2. {w2} {{a long comment that the tree does not keep}} *\n\n",
                    "x".repeat(200)
                ));
            }
        }
    }
    let (games, errors) = read_games(text.as_bytes());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(games.len(), 800);
    let mut writer = FbkWriter::new();
    for _ in 0..5 {
        for g in &games {
            writer.add(g);
        }
    }
    // Root, 10 first moves, 100 replies, 800 third moves: merged, the
    // five passes add nothing.
    assert_eq!(writer.nodes(), 1 + 10 + 100 + 800);
    let bytes = writer.finish();
    assert_eq!(bytes.len(), 2 * (10 + 100 + 800));
    let back = read_fbk(&bytes);
    assert!(back.issues.is_empty(), "{:?}", back.issues);
    assert_eq!(back.games[0].tree.len(), 1 + 10 + 100 + 800);
}
