//! Issue 18 item 3: `gamerec check` reads PGC, CBF/CBI and FBK files game
//! by game (one game in memory, mapped pages given back as reading goes
//! on), so its peak memory stays under a fixed bound on generated
//! million-game files; `gamerec convert` of a PGC or CBF file to PGN too
//! (the library's `io::Reader` streams them). Before, it held every game (a 30 MB PGC took
//! 1.25 GB, a million-game CBF 1.8 GB, a 10 MB FBK 1.9 GB). The peak is
//! read per child with `wait4`, as in `pgn_memory.rs`.

#![cfg(target_os = "linux")]

use std::io::{BufWriter, Write};
use std::path::Path;

use gamerec::chessbase::{read_cbf, write_cbf};
use gamerec::pgc::{read_pgc, write_pgc};
use gamerec::pgn::read_games;

/// Peak resident memory allowed for checking any of these files, in MB
/// (measured: 12 to 14 MB; the files are 10 MB and more).
const LIMIT_MB: u64 = 32;
const GAMES: usize = 1_000_000;

/// Runs the binary with `args`; returns its stdout and its peak resident
/// memory in MB.
fn run_measured(args: &[&str]) -> (String, u64) {
    gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args)
}

fn one_game() -> gamerec::model::Game {
    let (games, _) = read_games(b"[Event \"m\"]\n[White \"w\"]\n[Black \"b\"]\n\n1. e4 e5 1-0\n");
    games.into_iter().next().unwrap()
}

fn write_repeated(path: &Path, bytes: &[u8], times: usize) {
    let mut file = BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..times {
        file.write_all(bytes).unwrap();
    }
    file.flush().unwrap();
}

/// A CBF/CBI pair of `n` copies of one game, the index written by hand.
fn write_cbf_pair(cbf: &Path, cbi: &Path, n: usize) {
    write_cbf_pair_of(cbf, cbi, &one_game(), n);
}

/// A CBF/CBI pair of `n` copies of `game`.
fn write_cbf_pair_of(cbf: &Path, cbi: &Path, game: &gamerec::model::Game, n: usize) {
    let game = write_cbf(std::slice::from_ref(game)).cbf;
    write_repeated(cbf, &game, n);
    let mut index = BufWriter::new(std::fs::File::create(cbi).unwrap());
    index.write_all(&(n as u32 + 1).to_be_bytes()).unwrap();
    for j in 1..=n + 1 {
        let offset = ((j - 1) * game.len()) as u32;
        index
            .write_all(&(offset + j as u32 + 1).to_be_bytes())
            .unwrap();
    }
    index.flush().unwrap();
}

/// An FBK line of `n` moves: the knights' shuffle, the last move ending it.
fn fbk_line(n: usize) -> Vec<u8> {
    let squares = [(6u8, 21u8), (62, 45), (21, 6), (45, 62)]; // g1f3 g8f6 f3g1 f6g8
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        let (from, to) = squares[i % 4];
        let end = if i + 1 == n { 0x80 } else { 0 };
        out.push(from | 0x40 | end);
        out.push(to);
    }
    out
}

#[test]
fn check_reads_million_game_binary_files_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("binary-memory");
    // The generators are right: a few games read back as written.
    let pgc_game = write_pgc(&[one_game()]).0;
    let few: Vec<u8> = pgc_game.repeat(3);
    assert_eq!(read_pgc(&few).games.len(), 3);
    let (small_cbf, small_cbi) = (dir.join("small.cbf"), dir.join("small.cbi"));
    write_cbf_pair(&small_cbf, &small_cbi, 3);
    let small = read_cbf(
        &std::fs::read(&small_cbi).unwrap(),
        &std::fs::read(&small_cbf).unwrap(),
    );
    assert!(small.issues.is_empty(), "{:?}", small.issues);
    assert_eq!(small.games.len(), 3);

    let pgc = dir.join("million.pgc");
    write_repeated(&pgc, &pgc_game, GAMES);
    let (cbf, cbi) = (dir.join("million.cbf"), dir.join("million.cbi"));
    write_cbf_pair(&cbf, &cbi, GAMES);
    let fbk = dir.join("line.fbk");
    std::fs::write(&fbk, fbk_line(5_000_000)).unwrap();

    for (path, moves) in [(&pgc, 2 * GAMES), (&cbf, 2 * GAMES), (&fbk, 5_000_000)] {
        let p = path.to_str().unwrap();
        let (out, mb) = run_measured(&["check", p]);
        assert!(out.contains(&format!(" {moves} nodes")), "{p}: {out}");
        assert!(out.contains(" 0 errors; "), "{p}: {out}");
        eprintln!("check {p}: {mb} MB");
        assert!(mb < LIMIT_MB, "check {p}: {mb} MB");
    }
    // Converting streams too: the library's reader hands a PGC or CBF file
    // over game by game (it held every game before).
    let out = dir.join("out.pgn");
    for path in [&pgc, &cbf] {
        let p = path.to_str().unwrap();
        let (_, mb) = run_measured(&["convert", p, "-o", out.to_str().unwrap()]);
        // Counted line by line: a child's peak can include this process's
        // memory at the fork, so the test holds no large buffer.
        let games =
            std::io::BufRead::lines(std::io::BufReader::new(std::fs::File::open(&out).unwrap()))
                .filter(|line| line.as_ref().unwrap().starts_with("[Event "))
                .count();
        assert_eq!(games, GAMES, "convert {p}");
        eprintln!("convert {p}: {mb} MB");
        assert!(mb < LIMIT_MB, "convert {p}: {mb} MB");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bytes of no-op records before the one game of the files below.
const PADDING: usize = 256 << 20;

/// A PGC file of `PADDING` no-op bytes, then one game, written through
/// `wrap` (a compressor, or none).
fn write_padded_pgc(path: &Path, wrap: impl FnOnce(std::fs::File) -> Box<dyn Write>) {
    let mut file = wrap(std::fs::File::create(path).unwrap());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..PADDING >> 20 {
        file.write_all(&zeros).unwrap();
    }
    file.write_all(&write_pgc(&[one_game()]).0).unwrap();
    file.flush().unwrap();
}

/// A compressed binary file was decompressed whole into memory (a 60 KB
/// `.pgc.zst` of 2 GB took 2 GB); now past 8 MiB into an unnamed temporary
/// file, mapped. And mapped pages were given back only every few thousand
/// games, so a plain or compressed file of few games and many other bytes
/// (here 256 MB of no-op records, then one game) was held whole; now also
/// every 8 MB read. Likewise an FBK file's million warnings were kept
/// until the end of the file (320 MB for a 4 MB file); now each is shown
/// as it comes.
#[test]
fn compressed_and_padded_binary_files_are_read_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("binary-memory-padded");
    let plain = dir.join("padded.pgc");
    write_padded_pgc(&plain, |f| Box::new(BufWriter::new(f)));
    let zst = dir.join("padded.pgc.zst");
    write_padded_pgc(&zst, |f| {
        Box::new(zstd::stream::Encoder::new(f, 1).unwrap().auto_finish())
    });
    assert!(std::fs::metadata(&zst).unwrap().len() < 1 << 20);
    let out = dir.join("out.pgn");
    for path in [&plain, &zst] {
        let p = path.to_str().unwrap();
        let (text, mb) = run_measured(&["check", p]);
        assert!(text.contains("1 games, 2 nodes, 0 errors"), "{p}: {text}");
        eprintln!("check {p}: {mb} MB");
        assert!(mb < LIMIT_MB, "check {p}: {mb} MB");
        let (_, mb) = run_measured(&["convert", p, "-o", out.to_str().unwrap()]);
        let pgn = std::fs::read_to_string(&out).unwrap();
        assert_eq!(pgn.matches("[Event ").count(), 1, "convert {p}");
        eprintln!("convert {p}: {mb} MB");
        assert!(mb < LIMIT_MB, "convert {p}: {mb} MB");
    }
    // A million lines that each end the tree: a warning for each move after.
    let fbk = dir.join("ends.fbk");
    std::fs::write(&fbk, [12 | 0x40 | 0x80, 28].repeat(1_000_000)).unwrap();
    let p = fbk.to_str().unwrap();
    let (text, mb) = run_measured(&["check", "-q", p]);
    assert!(text.contains(" 999999 warnings"), "{text}");
    eprintln!("check {p}: {mb} MB");
    assert!(mb < LIMIT_MB, "check {p}: {mb} MB");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A check of an FBK file held the position of every alternative still to
/// come: 2 million moves that each announce one (4 MB) took 276 MB. Now
/// it holds the most recent `PENDING_HELD` and counts the rest, with the
/// same message.
#[test]
fn fbk_pending_alternatives_are_checked_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("binary-memory-fbk-pending");
    let fbk = dir.join("pending.fbk");
    let n = 2_000_000;
    let line: Vec<u8> = fbk_line(n)
        .chunks(2)
        .flat_map(|m| [m[0] & 0x3f, m[1]])
        .collect();
    std::fs::write(&fbk, line).unwrap();
    let p = fbk.to_str().unwrap();
    let (text, mb) = run_measured(&["check", p]);
    assert!(text.contains(&format!(" {n} nodes, 1 errors")), "{text}");
    assert!(
        text.contains(&format!(
            "byte {}: error: truncated file: {n} announced alternative(s) never came",
            2 * n
        )),
        "{text}"
    );
    eprintln!("check {p}: {mb} MB");
    assert!(mb < LIMIT_MB, "check {p}: {mb} MB");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Mapped CBF pages were given back only every 4,096 games: 3,000 games
/// of a 59 KB comment each (178 MB) were held whole (check and convert:
/// 182 MB). Now also every 8 MB read, as for PGC (18 MB).
#[test]
fn cbf_files_of_large_games_are_read_in_bounded_memory() {
    let dir = gamerec_testkit::temp_dir("binary-memory-cbf-large");
    let pgn = format!(
        "[Event \"long\"]\n\n1. e4 {{{}}} e5 1-0\n",
        "abcdefghij ".repeat(5_400)
    );
    let (games, _) = read_games(pgn.as_bytes());
    let games_n = 3_000;
    let (cbf, cbi) = (dir.join("large.cbf"), dir.join("large.cbi"));
    write_cbf_pair_of(&cbf, &cbi, &games[0], games_n);
    assert!(std::fs::metadata(&cbf).unwrap().len() > 150 << 20);
    let p = cbf.to_str().unwrap();
    let (text, mb) = run_measured(&["check", p]);
    assert!(
        text.contains(&format!("{games_n} games, {} nodes, 0 errors", 2 * games_n)),
        "{text}"
    );
    eprintln!("check {p}: {mb} MB");
    assert!(mb < LIMIT_MB, "check {p}: {mb} MB");
    let out = dir.join("out.pgc");
    let (_, mb) = run_measured(&["convert", p, "-o", out.to_str().unwrap()]);
    // Counted by a child: this process holds no large buffer (a child's
    // peak can include it).
    let (text, _) = run_measured(&["check", out.to_str().unwrap()]);
    assert!(
        text.contains(&format!("{games_n} games, ")),
        "convert {p}: {text}"
    );
    eprintln!("convert {p}: {mb} MB");
    assert!(mb < LIMIT_MB, "convert {p}: {mb} MB");
    std::fs::remove_dir_all(&dir).unwrap();
}
