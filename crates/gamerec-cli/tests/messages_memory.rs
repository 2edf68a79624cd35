//! A game broken at every node keeps the first 1,000 messages of each
//! source and counts the rest (`diag::MAX_LISTED`): `check` of an SGF file
//! with a rule broken and a bad value at each of 300,000 nodes, and of an
//! EPD record with 300,000 repeated opcodes, stays within a small multiple
//! of the file. Before, every message was kept until printed: 8 MB of SGF
//! took 589 MB (70 times the file), the file's own tree about 16 times.

#![cfg(target_os = "linux")]

use std::io::Write;

/// Runs the binary with `args`; returns its stdout and its peak resident
/// memory in MB.
fn run_measured(args: &[&str]) -> (String, u64) {
    gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args)
}

#[test]
fn check_keeps_few_messages_of_a_game_broken_at_every_node() {
    let dir = gamerec_testkit::temp_dir("messages-memory");
    let n = 300_000;
    let sgf = gamerec_testkit::sgf_broken_at_every_node(n);
    let sgf_path = dir.join("broken.sgf");
    std::fs::write(&sgf_path, &sgf).unwrap();
    let file_mb = sgf.len() as u64 >> 20;
    let (out, peak) = run_measured(&["check", sgf_path.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!(
            "1 games, {} nodes, {} errors; 1 with errors, 0 warnings\n",
            n + 1,
            2 * n - 2
        )),
        "{}",
        &out[out.len().saturating_sub(200)..]
    );
    // Measured: 3 MB of SGF, 54 MB (230 MB when every message was kept).
    assert!(
        peak < 20 * file_mb + 40,
        "{peak} MB for a {file_mb} MB file"
    );

    // An EPD record of as many operations as a record may hold (each
    // opcode and operand a token, `epd::reader::MAX_RECORD_TOKENS`).
    let n = 49_000;
    let epd = format!("{}\n", gamerec_testkit::epd_repeated_opcode(n));
    let epd_path = dir.join("broken.epd");
    std::fs::write(&epd_path, &epd).unwrap();
    let (out, peak_epd) = run_measured(&["check", epd_path.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!(
            "1 records, {} errors; 1 with errors, 0 warnings\n",
            n - 1
        )),
        "{out}"
    );
    // Measured: 118 MB for 300,000 operations as read (151 MB when every
    // message was kept too); 49,000 are a sixth of that.
    assert!(peak_epd < 60, "{peak_epd} MB for a 0.4 MB EPD line");
}

/// An EPD line of 16 MB of `a;` (8 million operations) took 1.35 GB to
/// check: each operation read takes some 160 bytes. A record holds at most
/// `MAX_RECORD_TOKENS` opcodes and operands; past that the line is reported
/// as too large, by every verb, in the memory of the line alone.
#[test]
fn an_epd_record_of_millions_of_operations_is_refused_in_little_memory() {
    let dir = gamerec_testkit::temp_dir("epd-tokens-memory");
    let path = dir.join("many.epd");
    let head = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    write_streamed(&path, |out| {
        out.write_all(format!("{head} bm e4;\n{head} ").as_bytes())?;
        for _ in 0..(16 << 20) / 4096 {
            out.write_all("a;".repeat(2048).as_bytes())?;
        }
        out.write_all(format!("\n{head} id \"last\";\n").as_bytes())
    });
    let file = path.to_str().unwrap();
    let normalized = dir.join("normalized.epd");
    let too_large = "record of more than 100000 fields, opcodes and operands: skipped";
    for args in [
        vec!["check", file],
        vec!["epd", "check", file],
        vec!["epd", "normalize", file, "-o", normalized.to_str().unwrap()],
        vec!["convert", file, "--to", "pgn"],
    ] {
        // Messages on stderr too: `exec` keeps the process whose peak is read.
        let script = [
            "-c",
            "exec \"$0\" \"$@\" 2>&1",
            env!("CARGO_BIN_EXE_gamerec"),
        ];
        let all: Vec<&str> = script.iter().copied().chain(args.iter().copied()).collect();
        let (out, peak) = gamerec_testkit::run_measured("sh", &all);
        assert!(
            out.contains(&format!("many.epd:2:1: error: {too_large}")),
            "{args:?}: {out}"
        );
        assert!(!out.contains("not listed"), "{args:?}: {out}");
        // The 16 MB line is read whole; nothing of it is kept after.
        assert!(peak < 80, "{args:?}: {peak} MB");
    }
    let (out, _) = run_measured(&["check", file]);
    assert!(
        out.ends_with("3 records, 1 errors; 1 with errors, 0 warnings\n"),
        "{out}"
    );
}

/// Writes `path` through `write` a little at a time: the children's peak
/// counts this process's memory at the fork, so it holds no large input.
fn write_streamed(
    path: &std::path::Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write(&mut out).unwrap();
    out.flush().unwrap();
}

/// Runs the binary with `args`; returns its exit code, stdout and stderr.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gamerec"))
        .args(args)
        .output()
        .expect("the program runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CBF writer made one warning per NAG it could not store: a move of
/// 100,000 NAGs made 62 MB of messages (about 600 bytes each, where the
/// NAG takes 5 bytes of PGN), of which `convert` printed 10. A game lists
/// the first 1,000 of the writer's warnings; the rest are counted.
#[test]
fn converting_to_cbf_keeps_few_messages_of_a_game_of_many_nags() {
    let dir = gamerec_testkit::temp_dir("nags-memory");
    let n = 400_000;
    let input = dir.join("nags.pgn");
    write_streamed(&input, |out| {
        out.write_all(b"[Event \"x\"]\n\n1. e4 ")?;
        for _ in 0..n {
            out.write_all(b"$200 ")?;
        }
        out.write_all(b"e5 *\n")
    });
    let output = dir.join("nags.cbf");
    let (input, output) = (input.to_str().unwrap(), output.to_str().unwrap());
    let (_, peak) = run_measured(&["convert", "-q", input, "-o", output]);
    // Measured: 12 MB (221 MB when every warning was kept).
    assert!(peak < 60, "{peak} MB for a 2 MB game");

    let (code, _, err) = run(&["convert", input, "-o", output]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.ends_with(&format!(
            "gamerec convert: 1 games, 0 errors; 0 with errors, {n} warnings, 1 written\n"
        )),
        "{}",
        &err[err.len().saturating_sub(400)..]
    );
    let not_listed = format!(
        "nags.pgn:1:1: warning: CBF game 1: and {} more warnings from the writer in this game, not listed (each game lists the first 1000) (writing {output})",
        n - 1000
    );
    assert!(err.contains(&not_listed), "{err}");
    // The first ten, then a count of the rest of that kind.
    let dropped = "warning: CBF game 1: NAG $200 on 1.e4 dropped";
    assert_eq!(err.matches(dropped).count(), 10, "{err}");
    assert!(
        err.contains("990 more losses of this kind not shown"),
        "{err}"
    );
}

/// `check --strict` made one warning per bad tag: a game of 300,000 tags
/// whose names begin in lower case printed 300,007 lines and took 190 MB.
/// A game lists the first 1,000 of the tag check's warnings and counts the
/// rest; the summary counts every one.
#[test]
fn strict_check_keeps_few_messages_of_a_game_of_many_bad_tags() {
    let dir = gamerec_testkit::temp_dir("tags-memory");
    let n = 300_000;
    let input = dir.join("tags.pgn");
    write_streamed(&input, |out| {
        for i in 0..n {
            writeln!(out, "[t{i} \"x\"]")?;
        }
        out.write_all(b"\n1. e4 e5 *\n")
    });
    let input = input.to_str().unwrap();
    let (out, peak) = run_measured(&["check", "--strict", input]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        1002,
        "{}",
        &out[out.len().saturating_sub(600)..]
    );
    assert_eq!(
        lines[1001],
        format!(
            "1 games, 2 moves, 0 errors; 0 with errors, {} warnings",
            n + 7
        )
    );
    assert_eq!(
        lines[1000],
        format!(
            "{input}:1:1: warning: and {} more warnings from the tag check in this game, not listed (each game lists the first 1000) (game 1, line 1: [t0 \"x\"])",
            n + 7 - 1000
        )
    );
    assert!(
        lines[..1000]
            .iter()
            .all(|l| l.contains(": warning: tag t") && l.ends_with("archival tag names begin with an upper case letter (game 1, line 1: [t0 \"x\"])")),
        "{}",
        lines[0]
    );
    // Measured: 63 MB, the game's tags as read (190 MB when every
    // warning was kept).
    assert!(peak < 120, "{peak} MB for a 4 MB game");
}

/// The EPD verbs read an input line by line: `check`, `epd check`, `epd
/// normalize` and `epd purge` of 48 MB of EPD stay small. Before, each
/// read every input whole and decoded it into a copy (a 177 MB file took
/// 270 MB to check and 351 MB to normalize).
#[test]
fn the_epd_verbs_read_line_by_line() {
    let dir = gamerec_testkit::temp_dir("epd-verbs-memory");
    let path = dir.join("suite.epd");
    let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - \
                bm Bb5; id \"suite.0001\"; c0 \"a comment of some length, as suites have\";\n";
    let n = (48 << 20) / line.len();
    write_streamed(&path, |out| {
        for _ in 0..n {
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    });
    let file = path.to_str().unwrap();
    let normalized = dir.join("normalized.epd");
    let normalized = normalized.to_str().unwrap();
    let (out, peak) = run_measured(&["check", file]);
    assert!(
        out.ends_with(&format!(
            "{n} records, 0 errors; 0 with errors, 0 warnings\n"
        )),
        "{out}"
    );
    assert!(peak < 40, "check: {peak} MB");
    let (out, peak) = run_measured(&["epd", "check", file]);
    assert_eq!(out, format!("{n} records, 0 errors\n"));
    assert!(peak < 40, "epd check: {peak} MB");
    for args in [
        vec!["epd", "normalize", file, "-o", normalized],
        vec!["epd", "purge", "c0", "-i", file, "-o", normalized],
    ] {
        let (_, peak) = run_measured(&args);
        assert!(peak < 40, "{args:?}: {peak} MB");
    }
    // Read a line at a time: a child forked while this process held the
    // whole file would count it in its own peak (see `memory.rs`).
    let purged = std::path::Path::new(normalized);
    assert_eq!(gamerec_testkit::lines_of(purged).count(), n);
    assert!(!gamerec_testkit::lines_of(purged).any(|l| l.contains("c0")));
}

/// `check` of EPD files reports each file on a worker thread, to be
/// printed in the files' order; each report was kept in memory whole until
/// printed (and a thread's batch of 8 files together): 300,000 bad records
/// took 53 MB to check (160 bytes a message). Past 1 MB of text a report
/// now waits in a temporary file instead.
#[test]
fn check_keeps_long_reports_of_files_out_of_memory() {
    let dir = gamerec_testkit::temp_dir("epd-report-memory");
    let n = 60_000;
    let bad = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - bm e4;\n";
    let good = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n";
    // Nine files: two threads' batches.
    let files = 9;
    let paths: Vec<String> = (0..files)
        .map(|i| {
            let path = dir.join(format!("{i}.epd"));
            write_streamed(&path, |out| {
                for _ in 0..n {
                    out.write_all(bad.as_bytes())?;
                }
                out.write_all(good.as_bytes())
            });
            path.to_str().unwrap().to_owned()
        })
        .collect();
    let report = dir.join("report.txt");
    for threads in ["1", "2"] {
        // The report goes to a file: this process holds none of it.
        let mut args = vec![
            "-c",
            "exec \"$@\" >\"$0\"",
            report.to_str().unwrap(),
            env!("CARGO_BIN_EXE_gamerec"),
            "check",
            "-t",
            threads,
        ];
        args.extend(paths.iter().map(String::as_str));
        let (_, peak) = gamerec_testkit::run_measured("sh", &args);
        let mut lines = gamerec_testkit::lines_of(&report).enumerate();
        for path in &paths {
            for record in 1..=n {
                let (i, line) = lines.next().expect("a line of each bad record");
                assert!(
                    line.starts_with(&format!("{path}:{record}:43: error: ")),
                    "{threads} threads, line {i}: {line}"
                );
            }
        }
        let (_, last) = lines.next().expect("the summary");
        let records = files * (n + 1);
        let errors = files * n;
        assert_eq!(
            last,
            format!("{records} records, {errors} errors; {errors} with errors, 0 warnings")
        );
        assert!(lines.next().is_none());
        // Measured: 9 MB (78 MB on one thread, 88 on two, when the
        // reports were kept).
        assert!(peak < 30, "{threads} threads: {peak} MB");
    }
    // The temporary files were unnamed from the start: none is left.
    let left = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".gamerec-spool-")
        })
        .count();
    assert_eq!(left, 0);
}

/// `check` and `show` of JSON Lines went through the reader's `next`, which
/// holds the messages of a run of records that fail to read until the next
/// good one: 300,000 bad records after a good one took 102 MB (and `show`
/// held every message of the file until its game was found). Now each
/// message goes out as its record is done with.
#[test]
fn json_lines_messages_are_printed_as_read() {
    let dir = gamerec_testkit::temp_dir("json-messages-memory");
    let path = dir.join("bad.jsonl");
    let n = 300_000;
    write_streamed(&path, |out| {
        writeln!(
            out,
            r#"{{"tags": [["Event", "good"]], "moves": [{{"san": "e4"}}]}}"#
        )?;
        for _ in 0..n {
            writeln!(
                out,
                r#"{{"tags": [["Event", "x"]], "moves": [{{"san": "Kd7"}}]}}"#
            )?;
        }
        Ok(())
    });
    let file = path.to_str().unwrap();
    let report = dir.join("report.txt");
    // `show` looks for a game past the last: it reads them all.
    let past = (n + 2).to_string();
    for args in [vec!["check", file], vec!["show", file, "--game", &past]] {
        // Messages to a file: this process holds none of them.
        let mut all = vec!["-c", "exec \"$@\" >\"$0\" 2>&1", report.to_str().unwrap()];
        all.push(env!("CARGO_BIN_EXE_gamerec"));
        all.extend(args.iter().copied());
        let (_, peak) = gamerec_testkit::run_measured("sh", &all);
        let mut errors = 0;
        let mut last = String::new();
        for line in gamerec_testkit::lines_of(&report) {
            errors += usize::from(line.contains(": error: move `Kd7`: illegal move"));
            last = line;
        }
        assert_eq!(errors, n, "{args:?}");
        let end = match args[0] {
            "check" => format!(
                "{} games, 1 nodes, {n} errors; {n} with errors, 0 warnings",
                n + 1
            ),
            _ => format!("no game {past} (it holds 1 game)"),
        };
        assert!(last.ends_with(&end), "{args:?}: {last}");
        // Measured: 8 MB (102 MB when the run's messages were held).
        assert!(peak < 30, "{args:?}: {peak} MB");
    }
}
