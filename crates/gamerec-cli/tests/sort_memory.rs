//! Peak memory of `sort` and `split --by-date` past `--memory`, and of
//! reading long runs of bad games. In the `memory` test binary: the peak is
//! read per child with `wait4`, and the files are read a piece at a time
//! (see `memory.rs`).

#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the binary with `args`; returns its stdout and its peak resident
/// memory in MB.
fn run_measured(args: &[&str]) -> (String, u64) {
    gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args)
}

/// The files under `dir`, relative to it, in order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// `split --by-date` sorts through the external sort, grouped by archive
/// file: with `--memory 2`, 45 MB of games over 12 years of months split
/// into the same files, byte for byte, as in memory, in a fraction of the
/// input (all the games were held: 153 MB before; 14 MB now).
#[test]
fn split_by_date_past_memory_writes_the_same_files_in_little_memory() {
    let dir = gamerec_testkit::temp_dir("split-memory");
    let path = dir.join("games.pgn");
    let moves = gamerec_testkit::BREYER_MOVES;
    let n: u64 = 100_000;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..n {
        // Months in a scrambled order, and games equal in every key but
        // the result (stability shows) and the movetext.
        let month = i * 7919 % 144;
        let result = ["1-0", "0-1", "1/2-1/2"][(i % 3) as usize];
        write!(
            out,
            "[Event \"E{}\"]\n[Site \"S\"]\n[Date \"{}.{:02}.{:02}\"]\n[Round \"{}\"]\n\
             [White \"W{}\"]\n[Black \"B\"]\n[Result \"{result}\"]\n[Id \"{i}\"]\n\n\
             {moves} {} {result}\n\n",
            i % 5,
            2000 + month / 12,
            1 + month % 12,
            1 + i % 28,
            i % 7,
            i % 11,
            if i % 2 == 0 { "30. a3" } else { "" },
        )
        .unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let file_mb = std::fs::metadata(&path).unwrap().len() >> 20;
    assert!(file_mb >= 40, "{file_mb} MB");
    let in_memory = dir.join("in-memory");
    let (_, mb) = run_measured(&[
        "split",
        "--by-date",
        in_memory.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(mb > file_mb, "held in memory: {mb} MB for {file_mb} MB");
    let spilled = dir.join("spilled");
    let (_, mb) = run_measured(&[
        "split",
        "--by-date",
        spilled.to_str().unwrap(),
        "--memory",
        "2",
        path.to_str().unwrap(),
    ]);
    assert!(
        mb < file_mb / 2,
        "split --memory 2: {mb} MB for {file_mb} MB"
    );
    let files = files_under(&in_memory);
    assert_eq!(files.len(), 144, "{files:?}");
    assert_eq!(files, files_under(&spilled));
    let mut games = 0;
    for file in &files {
        assert!(
            gamerec_testkit::same_file_contents(&in_memory.join(file), &spilled.join(file)),
            "{}",
            file.display()
        );
        games += gamerec_testkit::lines_of(&spilled.join(file))
            .filter(|l| l.starts_with("[Event "))
            .count();
    }
    assert_eq!(games as u64, n);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs the binary with `args`, its stderr in `stderr`; returns its peak
/// resident memory in MB.
fn run_measured_stderr_to(args: &[&str], stderr: &Path) -> u64 {
    gamerec_testkit::run_measured_stderr_to(env!("CARGO_BIN_EXE_gamerec"), args, stderr).1
}

/// The reader handed on the messages of a run of games that fail to read
/// only with the next good game or at the end: 300,000 bad games after a
/// good one took `sort` 126 MB (and 300,000 bad EPD records `convert`
/// 74 MB), linear in the games. Now each message goes out as its game is
/// done with: the same messages, in order, every error counted.
#[test]
fn runs_of_bad_games_are_reported_as_read_not_held() {
    let dir = gamerec_testkit::temp_dir("bad-run-memory");
    let n = 300_000;
    let pgn = dir.join("bad.pgn");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&pgn).unwrap());
    out.write_all(b"[Event \"good\"]\n\n1. e4 e5 1-0\n\n")
        .unwrap();
    for i in 0..n {
        write!(out, "[Event \"bad {i}\"]\n\n1. e4 Kd7 *\n\n").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let sorted = dir.join("sorted.pgn");
    let stderr = dir.join("sort.txt");
    let mb = run_measured_stderr_to(
        &[
            "sort",
            pgn.to_str().unwrap(),
            "-o",
            sorted.to_str().unwrap(),
        ],
        &stderr,
    );
    assert!(mb < 40, "sort of {n} bad games: {mb} MB");
    let mut count = 0;
    for (i, line) in gamerec_testkit::lines_of(&stderr).enumerate() {
        let at = format!("bad.pgn:{}:7: error: illegal move Kd7", 7 + 4 * i);
        assert!(line.contains(&at), "{i}: {line}");
        let note = format!("(game {}, line {}: [Event \"bad {i}\"])", i + 2, 5 + 4 * i);
        assert!(line.ends_with(&note), "{i}: {line}");
        count += 1;
    }
    assert_eq!(count, n);
    let head: Vec<String> = gamerec_testkit::lines_of(&sorted).take(1).collect();
    assert_eq!(head, ["[Event \"good\"]"]);

    // The pipeline's reader of EPD, FEN and JSON lines (and binary files).
    let epd = dir.join("bad.epd");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&epd).unwrap());
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    writeln!(out, "{start} id \"ok\";").unwrap();
    for _ in 0..n {
        writeln!(out, "{start} id \"x;").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let converted = dir.join("converted.pgn");
    let stderr = dir.join("convert.txt");
    let mb = run_measured_stderr_to(
        &[
            "convert",
            epd.to_str().unwrap(),
            "-o",
            converted.to_str().unwrap(),
        ],
        &stderr,
    );
    assert!(mb < 40, "convert of {n} bad EPD records: {mb} MB");
    let mut lines = 0;
    let mut last = String::new();
    for (i, line) in gamerec_testkit::lines_of(&stderr).enumerate() {
        if i < n {
            assert!(
                line.contains(&format!("bad.epd:{}:57: error: unterminated string", i + 2)),
                "{i}: {line}"
            );
        }
        lines += 1;
        last = line;
    }
    assert_eq!(lines, n + 1);
    assert!(
        last.ends_with(&format!(
            "{} records, {n} errors; {n} with errors, 0 warnings, 1 written",
            n + 1
        )),
        "{last}"
    );

    // The tables' reader of the same records: it held a batch's messages
    // until the batch ended, and failed records add no row to end it
    // (101 MB for these records to Parquet).
    let table = dir.join("converted.parquet");
    let stderr = dir.join("table.txt");
    let mb = run_measured_stderr_to(
        &[
            "convert",
            epd.to_str().unwrap(),
            "-o",
            table.to_str().unwrap(),
        ],
        &stderr,
    );
    assert!(
        mb < 40,
        "convert of {n} bad EPD records to Parquet: {mb} MB"
    );
    let mut lines = 0;
    for (i, line) in gamerec_testkit::lines_of(&stderr).enumerate() {
        if i < n {
            assert!(
                line.contains(&format!("bad.epd:{}:57: error: unterminated string", i + 2)),
                "{i}: {line}"
            );
        } else if i == n {
            assert!(
                line.ends_with(&format!(
                    "{} games, {n} errors; {n} with errors, 0 warnings, 1 written",
                    n + 1
                )),
                "{line}"
            );
        } else {
            assert!(
                line.ends_with(&format!("1 rows from {} games ({n} with errors)", n + 1)),
                "{line}"
            );
        }
        lines += 1;
    }
    assert_eq!(lines, n + 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The one-thread reader (`sort`, `split`, `html`) joined every chunk of a
/// file of games without termination markers (each ended by the next
/// game's tags) into one: 32 MB of them took `sort --memory 1` 271 MB.
/// Now each chunk ends a game and is read on its own.
#[test]
fn games_without_markers_are_read_a_chunk_at_a_time() {
    let dir = gamerec_testkit::temp_dir("no-markers-memory");
    let path = dir.join("no-markers.pgn");
    let n = 200_000;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..n {
        write!(out, "[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5\n\n").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let sorted = dir.join("sorted.pgn");
    let (_, mb) = run_measured(&[
        "sort",
        "--memory",
        "1",
        "-q",
        path.to_str().unwrap(),
        "-o",
        sorted.to_str().unwrap(),
    ]);
    // Measured: 13 MB for 32 MB of such games (271 MB before).
    assert!(mb < 40, "{mb} MB");
    let games = gamerec_testkit::lines_of(&sorted)
        .filter(|l| l.starts_with("[Event "))
        .count();
    assert_eq!(games, n);
    std::fs::remove_dir_all(&dir).unwrap();
}
