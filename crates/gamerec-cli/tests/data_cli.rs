//! `gamerec convert -o .parquet|.arrow`, `convert T.parquet -o .pgn` and
//! `gamerec positions`: the command-line contracts of the data tables.

use crate::util::cli;

use std::path::Path;

use gamerec_testkit::{assert_success, code_and_text, corpus, temp_dir};

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn parquet_and_arrow_tables_convert_back_to_the_same_pgn() {
    let dir = temp_dir("data-cli");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let direct = dir.join("direct.pgn");
    assert_success(
        &cli(&["convert", s(&source), "-o", s(&direct)]).run(),
        "convert to pgn",
    );
    for table in ["games.parquet", "games.arrow"] {
        let table = dir.join(table);
        let out = cli(&["convert", s(&source), "-o", s(&table), "-t", "2"]).run();
        assert_success(&out, "convert to a table");
        let (_, _, stderr) = code_and_text(&out);
        assert!(
            stderr.contains("438 rows from 438 games (0 with errors)"),
            "{stderr}"
        );
        let back = dir.join("back.pgn");
        assert_success(
            &cli(&["convert", s(&table), "-o", s(&back)]).run(),
            "table to pgn",
        );
        let a = std::fs::read_to_string(&direct).expect("direct");
        let b = std::fs::read_to_string(&back).expect("back");
        assert_eq!(a.lines().count(), b.lines().count());
        assert!(
            a == b,
            "{} does not convert back to the same PGN",
            table.display()
        );
    }
}

#[test]
fn positions_filters_and_exit_codes() {
    let dir = temp_dir("data-cli-positions");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let all = dir.join("all.parquet");
    let rated = dir.join("rated.parquet");
    let (code, _, stderr) = code_and_text(&cli(&["positions", s(&source), "-o", s(&all)]).run());
    assert_eq!(code, 0, "{stderr}");
    let rows = |text: &str| -> u64 {
        let n = text
            .split(" rows")
            .next()
            .and_then(|t| t.rsplit(' ').next());
        n.and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no row count in {text}"))
    };
    let all_rows = rows(&stderr);
    let out = cli(&[
        "positions",
        s(&source),
        "--min-rating",
        "2000",
        "--time-control",
        "blitz",
        "-o",
        s(&rated),
    ])
    .run();
    let (code, _, stderr) = code_and_text(&out);
    assert_eq!(code, 0, "{stderr}");
    let rated_rows = rows(&stderr);
    assert!(
        0 < rated_rows && rated_rows < all_rows,
        "{rated_rows} of {all_rows}"
    );

    let (code, _, stderr) = code_and_text(
        &cli(&[
            "positions",
            "/nonexistent/nope.pgn",
            s(&source),
            "-o",
            s(&all),
        ])
        .run(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr.matches("/nonexistent/nope.pgn").count(),
        1,
        "reported once: {stderr}"
    );
    let (code, _, stderr) =
        code_and_text(&cli(&["positions", s(&source), "-o", s(&dir.join("x.csv"))]).run());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(".parquet or .arrow"), "{stderr}");
}

#[test]
fn a_game_with_an_error_is_left_out_and_reported() {
    let dir = temp_dir("data-cli-errors");
    let pgn = dir.join("bad.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 Ke7 *\n",
    )
    .expect("write");
    let out = cli(&["convert", s(&pgn), "-o", s(&dir.join("bad.parquet"))]).run();
    let (code, _, stderr) = code_and_text(&out);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("bad.pgn:7:"), "{stderr}");
    assert!(
        stderr.contains("1 rows from 2 games (1 with errors)"),
        "{stderr}"
    );
}

/// Binary data read as PGN is one error, said once, and the exit status
/// says so, for both tables (the data path used to drop the message and
/// exit 0 with an empty table).
#[test]
fn binary_data_read_as_pgn_is_reported_with_exit_1() {
    let dir = temp_dir("data-cli-binary");
    let pgn = dir.join("binary.pgn");
    std::fs::write(&pgn, b"[Event \"x\0y\"]\n\n1. e4 \xff\xfe *\n").expect("write");
    for (verb, out) in [("convert", "g.parquet"), ("positions", "p.parquet")] {
        let out = cli(&[verb, s(&pgn), "-o", s(&dir.join(out))]).run();
        let (code, _, stderr) = code_and_text(&out);
        assert_eq!(code, 1, "{verb}: {stderr}");
        assert_eq!(
            stderr.matches("binary data, not PGN text").count(),
            1,
            "{verb}: {stderr}"
        );
    }
}

/// `check`'s summary figures: games read and errors.
fn check_counts(path: &Path, threads: &str) -> (u64, u64) {
    let (_, stdout, stderr) = code_and_text(&cli(&["check", "--threads", threads, s(path)]).run());
    let last = stdout.lines().last().unwrap_or("");
    let mut words = last.split(' ');
    let games = words.next().and_then(|n| n.parse().ok());
    let errors = last
        .split(", ")
        .nth(2)
        .and_then(|e| e.split(' ').next())
        .and_then(|n| n.parse().ok());
    match (games, errors) {
        (Some(g), Some(e)) => (g, e),
        _ => panic!("no check summary in {stdout}{stderr}"),
    }
}

/// `N rows from G games (F with errors)` of a table-writing verb.
fn table_counts(stderr: &str) -> (u64, u64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.contains(" rows from "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    let numbers: Vec<u64> = line
        .rsplit(": ")
        .next()
        .unwrap_or("")
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

/// `convert -o T.parquet` and `positions` count games as `check` does (a
/// game that fails is read, counted and reported), at any thread count,
/// and exit non-zero when a game was left out.
#[test]
fn table_verbs_count_games_as_check_does() {
    let dir = temp_dir("data-cli-counts");
    let illegal = dir.join("illegal.pgn");
    std::fs::write(
        &illegal,
        "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 Ke7 *\n\n[Event \"c\"]\n\n1. d4 d5 *\n",
    )
    .expect("write");
    let junk = dir.join("junk.pgn");
    std::fs::write(&junk, [0u8, 1, 2, 3, 0xff, 0xfe].repeat(500)).expect("write");
    let nul = dir.join("nul.pgn");
    std::fs::write(
        &nul,
        b"[Event \"a\0b\"]\n\n1. e4 *\n\n[Event \"c\"]\n\n1. d4 *\n",
    )
    .expect("write");
    // A NUL makes the whole file binary data: one error, no game.
    for (input, games, rows) in [(&illegal, 3, 2), (&junk, 0, 0), (&nul, 0, 0)] {
        for threads in ["1", "2"] {
            let (check_games, check_errors) = check_counts(input, threads);
            assert_eq!(check_games, games, "{}", input.display());
            assert!(check_errors > 0, "{}", input.display());
            let out = dir.join("t.parquet");
            let (code, _, stderr) =
                code_and_text(&cli(&["convert", s(input), "-o", s(&out), "-t", threads]).run());
            assert_eq!(code, 1, "{stderr}");
            let (written, read, failed) = table_counts(&stderr);
            assert_eq!((written, read), (rows, check_games), "{stderr}");
            assert_eq!(read - failed, rows, "{stderr}");
            let errors = stderr.lines().filter(|l| l.contains(": error: ")).count() as u64;
            assert_eq!(errors, check_errors, "{stderr}");
            let (code, _, stderr) =
                code_and_text(&cli(&["positions", s(input), "-o", s(&out), "-t", threads]).run());
            assert_eq!(code, 1, "{stderr}");
            assert_eq!(table_counts(&stderr).1, check_games, "{stderr}");
        }
    }
}

#[test]
fn an_unknown_time_control_is_refused() {
    let dir = temp_dir("data-cli-tc");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let out = dir.join("p.parquet");
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "positions",
            s(&source),
            "--time-control",
            "blits",
            "-o",
            s(&out),
        ])
        .run(),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--time-control blits"), "{stderr}");
    assert!(!out.exists());
}

/// The TCEC file (46 MB of Parquet) converted on 1 and on 2 threads gives
/// the same bytes, for both tables (the decode cuts batches differently).
#[test]
#[ignore = "slow: converts all of TCEC four times"]
fn parquet_of_tcec_on_two_threads_is_the_one_thread_file() {
    let dir = temp_dir("data-cli-tcec");
    let source = corpus("pgn/tcec-2011-2021.pgn.zst");
    for verb in ["convert", "positions"] {
        let mut files = Vec::new();
        for threads in ["1", "2"] {
            let out = dir.join(format!("{verb}-{threads}.parquet"));
            let run = cli(&[verb, s(&source), "-o", s(&out), "-t", threads, "-q"]).run();
            assert_success(&run, verb);
            files.push(std::fs::read(&out).expect("read"));
        }
        assert!(files[0].len() > 1_000_000, "{verb}");
        assert!(files[0] == files[1], "{verb}: the files differ");
    }
}

/// A games table is an input too: `convert games.parquet -o again.parquet`
/// and `positions games.parquet` give the rows of the PGN.
#[test]
fn a_games_table_converts_to_tables_again() {
    let dir = temp_dir("data-cli-table-input");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let games = dir.join("games.parquet");
    assert_success(
        &cli(&["convert", s(&source), "-o", s(&games)]).run(),
        "pgn to table",
    );
    let again = dir.join("again.parquet");
    let out = cli(&["convert", s(&games), "-o", s(&again)]).run();
    assert_success(&out, "table to table");
    let (_, _, stderr) = code_and_text(&out);
    assert!(
        stderr.contains("438 rows from 438 games (0 with errors)"),
        "{stderr}"
    );
    let plies = dir.join("plies.parquet");
    let direct = dir.join("direct.parquet");
    let from_table = code_and_text(&cli(&["positions", s(&games), "-o", s(&plies)]).run()).2;
    let from_pgn = code_and_text(&cli(&["positions", s(&source), "-o", s(&direct)]).run()).2;
    let rows = |text: &str| {
        text.split(" rows")
            .next()
            .map(|t| t.rsplit(' ').next().map(str::to_owned))
    };
    assert_eq!(
        rows(&from_table),
        rows(&from_pgn),
        "{from_table} / {from_pgn}"
    );
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "convert",
            s(&dir.join("nope.parquet")),
            "-o",
            s(&dir.join("x.parquet")),
        ])
        .run(),
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.matches("nope.parquet").count(), 1, "{stderr}");
}

/// The files under `dir`, as paths relative to it, sorted (hidden
/// entries included: a staging directory left behind would show).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("under dir");
                out.push(rel.display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// Games of a few dates, speeds and variants (one without any date).
fn dated_games(path: &Path) {
    let games = [
        ("2024.01.05", "300+3", ""),
        ("2024.01.20", "60+0", ""),
        ("2024.02.01", "60+0", "Crazyhouse"),
        ("????.??.??", "-", ""),
        ("2023.12.31", "900+10", "King of the Hill"),
    ];
    let mut text = String::new();
    for (date, tc, variant) in games {
        text.push_str(&format!(
            "[Event \"e\"]\n[Date \"{date}\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\
             [TimeControl \"{tc}\"]\n"
        ));
        if !variant.is_empty() {
            text.push_str(&format!("[Variant \"{variant}\"]\n"));
        }
        text.push_str("\n1. e4 e5 1-0\n\n");
    }
    std::fs::write(path, text).expect("input");
}

#[test]
fn a_partitioned_dataset_has_the_hive_layout_and_bounded_files() {
    let dir = temp_dir("data-cli-partition");
    let input = dir.join("dated.pgn");
    dated_games(&input);
    let out = dir.join("ds");
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "convert",
            s(&input),
            "-o",
            s(&out),
            "--partition-by",
            "year,month",
        ])
        .run(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("5 rows in 4 files from 5 games"),
        "{stderr}"
    );
    assert_eq!(
        tree(&out),
        [
            "year=2023/month=12/part-00000.parquet",
            "year=2024/month=1/part-00000.parquet",
            "year=2024/month=2/part-00000.parquet",
            "year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/part-00000.parquet",
        ]
    );
    assert_eq!(tree(&dir), {
        let mut all: Vec<String> = tree(&out).iter().map(|f| format!("ds/{f}")).collect();
        all.insert(0, "dated.pgn".into());
        all
    });
    // Not empty: refused, the dataset unchanged.
    let before = tree(&out);
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "convert",
            s(&input),
            "-o",
            s(&out),
            "--partition-by",
            "speed",
        ])
        .run(),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not empty"), "{stderr}");
    assert_eq!(tree(&out), before);
    // --overwrite replaces it; --max-file-rows bounds each file.
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "convert",
            s(&input),
            "-o",
            s(&out),
            "--partition-by",
            "speed",
            "--max-file-rows",
            "1",
            "--overwrite",
        ])
        .run(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        tree(&out),
        [
            "speed=blitz/part-00000.parquet",
            "speed=bullet/part-00000.parquet",
            "speed=bullet/part-00001.parquet",
            "speed=correspondence/part-00000.parquet",
            "speed=rapid/part-00000.parquet",
        ]
    );
    // --append adds files named by the run, the old ones kept.
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "positions",
            s(&input),
            "-o",
            s(&out),
            "--partition-by",
            "speed",
            "--append",
        ])
        .run(),
    );
    assert_eq!(code, 0, "{stderr}");
    let files = tree(&out);
    assert_eq!(files.len(), 9, "{files:?}");
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("speed=blitz/part-00000-"))
    );
    // An -o ending in / is a dataset without partitions.
    let flat = format!("{}/", dir.join("flat").display());
    let (code, _, stderr) = code_and_text(&cli(&["convert", s(&input), "-o", &flat]).run());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(tree(&dir.join("flat")), ["part-00000.parquet"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_failed_partitioned_run_leaves_the_old_dataset_and_nothing_else() {
    let dir = temp_dir("data-cli-partition-failed");
    let input = dir.join("dated.pgn");
    dated_games(&input);
    let missing = dir.join("missing.pgn");
    let out = dir.join("ds");
    std::fs::create_dir_all(out.join("year=2020")).unwrap();
    std::fs::write(out.join("year=2020/part-00000.parquet"), b"old").unwrap();
    // An input that cannot be read, after one that was: exit 2, nothing
    // moved into place, no staging directory left beside it.
    for mode in ["--overwrite", "--append"] {
        let (code, _, stderr) = code_and_text(
            &cli(&[
                "convert",
                s(&input),
                s(&missing),
                "-o",
                s(&out),
                "--partition-by",
                "year",
                mode,
            ])
            .run(),
        );
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(tree(&out), ["year=2020/part-00000.parquet"], "{mode}");
        assert_eq!(
            std::fs::read(out.join("year=2020/part-00000.parquet")).unwrap(),
            b"old"
        );
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["dated.pgn", "ds"], "{mode}");
    }
    // Dataset options without a dataset output, and unknown keys: refused.
    let table = dir.join("t.parquet");
    let (code, _, stderr) =
        code_and_text(&cli(&["convert", s(&input), "-o", s(&table), "--append"]).run());
    assert_eq!(code, 2, "{stderr}");
    assert!(!table.exists());
    let (code, _, stderr) = code_and_text(
        &cli(&[
            "convert",
            s(&input),
            "-o",
            s(&dir.join("x")),
            "--partition-by",
            "year,event",
        ])
        .run(),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot partition by \"event\""), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn max_file_size_splits_a_dataset_into_parts() {
    let dir = temp_dir("data-cli-partition-size");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let out = format!("{}/", dir.join("ds").display());
    let (code, _, stderr) =
        code_and_text(&cli(&["convert", s(&source), "-o", &out, "--max-file-size", "64k"]).run());
    assert_eq!(code, 0, "{stderr}");
    let files = tree(&dir.join("ds"));
    assert!(files.len() >= 3, "{files:?}");
    assert!(
        stderr.contains(&format!("438 rows in {} files", files.len())),
        "{stderr}"
    );
    // The default bound (128M) keeps the sample in one file.
    let one = format!("{}/", dir.join("one").display());
    assert_success(&cli(&["convert", s(&source), "-o", &one]).run(), "one file");
    assert_eq!(tree(&dir.join("one")), ["part-00000.parquet"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// A damaged table (found by the `arrow_games` fuzz target; arrow-rs
/// panicked on it) is an error naming the file, exit 2, and the output is
/// not written; the next table is still read.
#[test]
fn a_damaged_table_is_an_error_naming_it() {
    let dir = temp_dir("data-cli-damaged");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gamerec-arrow/tests/data/damaged");
    for (name, said) in [
        ("ipc-slice-past-buffer.arrow", "its reader stopped"),
        (
            "ipc-decompressed-length.arrow",
            "record batch 1: a compressed buffer says it holds",
        ),
    ] {
        let damaged = data.join(name);
        let out = dir.join("out.pgn");
        let (code, _, stderr) = code_and_text(&cli(&["convert", s(&damaged), "-o", s(&out)]).run());
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(&format!("{name}: damaged Arrow IPC file: {said}")),
            "{stderr}"
        );
        // The reader's panic was caught: no panic message, no backtrace.
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!out.exists());
    }
}
