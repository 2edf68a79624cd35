//! Issue 22 item 4: nothing is lost when a write fails. Every output is
//! written beside its target under a temporary name and renamed into place
//! only on success, so `convert` onto a full filesystem (a 64 KiB tmpfs the
//! test mounts; CI runs as root) exits non-zero with a message naming the
//! file, leaves the old output byte for byte, and leaves nothing beside it:
//! for PGN, the CBF/CBI pair, Parquet, and the other binary formats. A
//! convert that fails before writing (an input that cannot be read, an
//! output in a missing directory) leaves no file, not even an empty one.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

/// A 64 KiB tmpfs mounted for one test, unmounted when dropped.
struct SmallFs {
    dir: PathBuf,
}

impl SmallFs {
    /// Mounts it, or says why it cannot (not root, no mount in a
    /// container): `None` then, a panic under `GAMEREC_REQUIRE_PEERS=1`.
    fn mount(name: &str) -> Option<SmallFs> {
        let dir = gamerec_testkit::temp_dir(name).join("fs");
        std::fs::create_dir_all(&dir).expect("mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(&dir)
            .output();
        let why = match out {
            Ok(o) if o.status.success() => return Some(SmallFs { dir }),
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => format!("cannot run mount: {e}"),
        };
        let msg = format!("cannot mount a 64k tmpfs at {}: {why}", dir.display());
        assert!(!gamerec_testkit::peers_required(), "{msg}");
        eprintln!("skipped: {msg}");
        None
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("warning: could not unmount {}", self.dir.display());
        } else if let Some(parent) = self.dir.parent() {
            let _ = std::fs::remove_dir_all(parent);
        }
    }
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Two corpus files, 2 MB of PGN: every format's output is larger than
/// the 64 KiB filesystem.
fn inputs() -> Vec<String> {
    ["pgn/lichess_db_1000k.pgn", "pgn/twic1599_1000k.pgn"]
        .iter()
        .map(|p| {
            let path = gamerec_testkit::corpus(p);
            assert!(path.is_file(), "{}: corpus file missing", path.display());
            path.display().to_string()
        })
        .collect()
}

fn convert(inputs: &[String], output: &Path) -> (i32, String) {
    let mut args: Vec<&str> = vec!["convert", "-q"];
    args.extend(inputs.iter().map(String::as_str));
    let out = output.to_str().expect("utf-8 path");
    args.extend(["-o", out]);
    let (code, _, stderr) = gamerec_testkit::code_and_text(&gamerec_testkit::run(BIN, &args, b""));
    (code, stderr)
}

/// How often `text` holds `needle`.
fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn a_full_filesystem_keeps_the_old_output_and_leaves_nothing() {
    let inputs = inputs();
    let Some(fs) = SmallFs::mount("full-disk") else {
        return;
    };
    // Old outputs: what a previous run left, smaller than the space.
    let old = b"[Event \"old\"]\n\n1. e4 *\n".repeat(100);
    let cases: [(&str, &[&str]); 6] = [
        ("out.pgn", &["out.pgn"]),
        ("out.cbf", &["out.cbf", "out.cbi"]),
        ("out.parquet", &["out.parquet"]),
        ("out.pgc", &["out.pgc"]),
        ("out.json", &["out.json"]),
        ("out.epd", &["out.epd"]),
    ];
    for (target, files) in cases {
        for (i, f) in files.iter().enumerate() {
            let mut bytes = old.clone();
            bytes.push(b'0' + i as u8);
            std::fs::write(fs.dir.join(f), bytes).expect("old output");
        }
        let before = listing(&fs.dir);
        let target_path = fs.dir.join(target);
        let (code, stderr) = convert(&inputs, &target_path);
        assert_ne!(code, 0, "{target}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{target}: {stderr}"
        );
        // The message names the file, once (a CBF's message may name its CBI).
        let named = files
            .iter()
            .map(|f| count(&stderr, &fs.dir.join(f).display().to_string()))
            .sum::<usize>();
        assert_eq!(named, 1, "{target}: {stderr}");
        for (i, f) in files.iter().enumerate() {
            let mut bytes = old.clone();
            bytes.push(b'0' + i as u8);
            assert!(
                std::fs::read(fs.dir.join(f)).expect("old output kept") == bytes,
                "{f}: the old output changed"
            );
        }
        assert_eq!(listing(&fs.dir), before, "{target}: leftovers");
        for f in files {
            std::fs::remove_file(fs.dir.join(f)).expect("clean up");
        }
        // Without an old file: still nothing left behind.
        let (code, stderr) = convert(&inputs, &target_path);
        assert_ne!(code, 0, "{target}: {stderr}");
        assert!(
            listing(&fs.dir).is_empty(),
            "{target}: {:?}",
            listing(&fs.dir)
        );
    }
    // A small conversion fits and is put into place.
    let small_dir = gamerec_testkit::temp_dir("full-disk-small");
    let small = small_dir.join("small.pgn");
    std::fs::write(&small, "[Event \"s\"]\n\n1. e4 e5 2. Nf3 *\n").expect("input");
    for (target, files) in [
        ("small.pgn", vec!["small.pgn"]),
        ("small.cbf", vec!["small.cbf", "small.cbi"]),
        ("small.parquet", vec!["small.parquet"]),
    ] {
        let out = fs.dir.join(target);
        let (code, stderr) = convert(&[small.display().to_string()], &out);
        assert_eq!(code, 0, "{target}: {stderr}");
        assert!(std::fs::metadata(&out).expect("written").len() > 0);
        assert_eq!(listing(&fs.dir), files, "{target}");
        for f in files {
            std::fs::remove_file(fs.dir.join(f)).expect("clean up");
        }
    }
    std::fs::remove_dir_all(&small_dir).expect("clean up");
}

#[test]
fn a_failed_convert_leaves_no_file() {
    let dir = gamerec_testkit::temp_dir("failed-convert");
    let good = inputs().swap_remove(0);
    let missing = dir.join("nope.pgn").display().to_string();
    for ext in ["pgn", "cbf", "parquet", "pgc", "fbk", "json"] {
        // An input that cannot be read, alone or after a good one: exit 2,
        // no output (not a 0-byte or partial file), the old one kept.
        for inputs in [vec![missing.clone()], vec![good.clone(), missing.clone()]] {
            let out = dir.join(format!("out.{ext}"));
            let (code, stderr) = convert(&inputs, &out);
            assert_eq!(code, 2, "{ext} {inputs:?}: {stderr}");
            assert_eq!(count(&stderr, &missing), 1, "{stderr}");
            assert!(!stderr.contains("nope.pgn: nope.pgn"), "{stderr}");
            assert_eq!(listing(&dir), Vec::<String>::new(), "{ext} {inputs:?}");
            std::fs::write(&out, b"old").expect("old");
            let (code, _) = convert(&inputs, &out);
            assert_eq!(code, 2);
            assert_eq!(std::fs::read(&out).expect("kept"), b"old");
            std::fs::remove_file(&out).expect("clean up");
        }
        // An output in a missing directory, or that is a directory: the
        // message names it once; nothing is created.
        let nowhere = dir.join("no-such-dir").join(format!("out.{ext}"));
        let (code, stderr) = convert(std::slice::from_ref(&good), &nowhere);
        assert_eq!(code, 2, "{stderr}");
        let name = nowhere.display().to_string();
        let stem = name.trim_end_matches(&format!(".{ext}"));
        assert_eq!(count(&stderr, stem), 1, "{stderr}");
        assert!(stderr.contains("No such file or directory"), "{stderr}");
        let subdir = dir.join(format!("d.{ext}"));
        std::fs::create_dir(&subdir).expect("dir");
        let (code, stderr) = convert(std::slice::from_ref(&good), &subdir);
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(count(&stderr, &subdir.display().to_string()), 1, "{stderr}");
        std::fs::remove_dir(&subdir).expect("clean up");
        assert_eq!(listing(&dir), Vec::<String>::new(), "{ext}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn input_errors_still_write_the_games_read() {
    // A game with an illegal move: exit 1, and the output holds the games
    // read (the rule: input errors commit, I/O and usage errors do not).
    let dir = gamerec_testkit::temp_dir("input-errors");
    let input = dir.join("in.pgn");
    std::fs::write(
        &input,
        "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e4 *\n\n[Event \"c\"]\n\n1. d4 *\n",
    )
    .expect("input");
    let input = input.display().to_string();
    for ext in ["pgn", "pgc", "cbf", "parquet"] {
        let out = dir.join(format!("out.{ext}"));
        let (code, stderr) = convert(std::slice::from_ref(&input), &out);
        assert_eq!(code, 1, "{ext}: {stderr}");
        assert!(out.exists(), "{ext}: not written: {stderr}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_partitioned_dataset_on_a_full_filesystem_keeps_the_old_dataset() {
    let inputs = inputs();
    let Some(fs) = SmallFs::mount("full-disk-dataset") else {
        return;
    };
    let ds = fs.dir.join("ds");
    std::fs::create_dir_all(ds.join("year=2020")).expect("old dataset");
    std::fs::write(ds.join("year=2020/part-00000.parquet"), b"old").expect("old file");
    for mode in ["--overwrite", "--append"] {
        let mut args: Vec<&str> = vec!["convert", "-q"];
        args.extend(inputs.iter().map(String::as_str));
        let out = ds.to_str().expect("utf-8 path");
        args.extend(["-o", out, "--partition-by", "year,month", mode]);
        let (code, _, stderr) =
            gamerec_testkit::code_and_text(&gamerec_testkit::run(BIN, &args, b""));
        assert_ne!(code, 0, "{mode}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{mode}: {stderr}"
        );
        assert_eq!(listing(&fs.dir), ["ds"], "{mode}: leftovers");
        assert_eq!(listing(&ds), ["year=2020"], "{mode}");
        assert_eq!(listing(&ds.join("year=2020")), ["part-00000.parquet"]);
        assert_eq!(
            std::fs::read(ds.join("year=2020/part-00000.parquet")).expect("kept"),
            b"old"
        );
    }
}

/// `sort` past its memory writes sorted runs to $TMPDIR: on a full one it
/// fails with the reason, removes the runs it wrote, and leaves the old
/// output in place.
#[test]
fn a_sort_whose_temporary_files_fill_the_disk_keeps_the_old_output() {
    let inputs = inputs();
    let Some(fs) = SmallFs::mount("full-disk-sort") else {
        return;
    };
    let dir = gamerec_testkit::temp_dir("full-disk-sort-out");
    let output = dir.join("sorted.pgn");
    std::fs::write(&output, "old").unwrap();
    let mut args = vec![
        "sort",
        "--memory",
        "1",
        "-q",
        "-o",
        output.to_str().unwrap(),
    ];
    args.extend(inputs.iter().map(String::as_str));
    let ran = gamerec_testkit::Cli::new(BIN)
        .args(&args)
        .env("TMPDIR", &fs.dir)
        .run();
    let (code, _, stderr) = ran.code_and_text();
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "old");
    assert_eq!(listing(&dir), ["sorted.pgn"]);
    assert!(listing(&fs.dir).is_empty(), "{:?}", listing(&fs.dir));
}

/// `check` keeps a long report of a file that waits its turn to be printed
/// in a temporary file in $TMPDIR: on a full one the file's report is lost,
/// and `check` says so, counts it as an error and checks the other files.
#[test]
fn a_check_whose_report_cannot_be_kept_says_so_and_fails() {
    let Some(fs) = SmallFs::mount("full-disk-check") else {
        return;
    };
    let dir = gamerec_testkit::temp_dir("full-disk-check-in");
    // 20,000 bad records: a report of about 2.5 MB, past what is kept in
    // memory; then a file with nothing to report.
    let bad = dir.join("bad.epd");
    let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - bm e4;\n";
    std::fs::write(&bad, line.repeat(20_000)).unwrap();
    let good = dir.join("good.epd");
    std::fs::write(
        &good,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n",
    )
    .unwrap();
    let ran = gamerec_testkit::Cli::new(BIN)
        .args(["check", bad.to_str().unwrap(), good.to_str().unwrap()])
        .env("TMPDIR", &fs.dir)
        .run();
    let (code, stdout, stderr) = ran.code_and_text();
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("{}: its report could not be kept", bad.display()))
            && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert_eq!(
        stdout,
        "20001 records, 20001 errors; 20000 with errors, 0 warnings\n"
    );
    assert!(listing(&fs.dir).is_empty(), "{:?}", listing(&fs.dir));
}

/// Standard output or standard error on a full disk (`/dev/full`): no
/// verb panics (`println!`/`eprintln!` did: exit 101), and a verb that had
/// something to write there exits 2, the one report left. For each run:
/// once with both captured (what the verb writes where), once with stdout
/// on `/dev/full`, once with stderr on it.
#[test]
fn a_full_stdout_or_stderr_is_an_error_never_a_panic() {
    let dir = gamerec_testkit::temp_dir("full-std-streams");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    for name in ["fischer.pgn", "lichess-20.pgn", "go-9x9.sgf", "wac-20.epd"] {
        std::fs::copy(samples.join(name), dir.join(name)).expect("copy a sample");
    }
    std::fs::write(dir.join("bad.pgn"), "[Event \"x\"]\n\n1. e4 e5 2. Qxx *\n").expect("write");
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let runs: &[&[&str]] = &[
        &["check", "fischer.pgn"],
        &["check", "bad.pgn"],
        &["check", "go-9x9.sgf"],
        &["check", "wac-20.epd"],
        &["convert", "fischer.pgn", "--to", "json"],
        &["convert", "bad.pgn", "-o", "out.pgn"],
        &["convert", "fischer.pgn", "-o", "out.parquet"],
        &["positions", "bad.pgn", "-o", "positions.parquet"],
        &["moves", fen],
        &["show", "fischer.pgn"],
        &["show", fen],
        &["sort", "bad.pgn"],
        &["sort", "fischer.pgn"],
        &["epd", "normalize", "wac-20.epd"],
        &["filter", "--where", "result=1-0", "lichess-20.pgn"],
        &[
            "filter",
            "--count",
            "--where",
            "result=1-0",
            "lichess-20.pgn",
        ],
        &["dedup", "fischer.pgn"],
        &["html", "fischer.pgn", "-o", "pages"],
        &["index", "fischer.pgn", "-o", "fischer-index"],
        &[
            "match",
            "builtin:1",
            "builtin:1",
            "--games",
            "2",
            "--tc",
            "1+0.01",
            "-q",
            "-d",
            "match-dir",
        ],
    ];
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    // Outputs of the run before are taken away, so each run writes anew.
    let clean = || {
        for name in [
            "out.pgn",
            "out.parquet",
            "positions.parquet",
            "pages",
            "fischer-index",
            "match-dir",
        ] {
            let path = dir.join(name);
            std::fs::remove_dir_all(&path)
                .or_else(|_| std::fs::remove_file(&path))
                .ok();
        }
    };
    let mut checked = (0, 0);
    for args in runs {
        clean();
        let normal = Command::new(BIN)
            .args(*args)
            .current_dir(&dir)
            .output()
            .expect("runs");
        clean();
        let out_full = Command::new(BIN)
            .args(*args)
            .current_dir(&dir)
            .stdout(full())
            .output()
            .expect("runs");
        let said = String::from_utf8_lossy(&out_full.stderr);
        assert!(!said.contains("panicked"), "{args:?} >/dev/full: {said}");
        assert_ne!(out_full.status.code(), Some(101), "{args:?} >/dev/full");
        if !normal.stdout.is_empty() {
            assert_eq!(
                out_full.status.code(),
                Some(2),
                "{args:?} >/dev/full: {said}"
            );
            checked.0 += 1;
        }
        clean();
        let err_full = Command::new(BIN)
            .args(*args)
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(full())
            .status()
            .expect("runs");
        assert_ne!(err_full.code(), Some(101), "{args:?} 2>/dev/full");
        if !normal.stderr.is_empty() {
            assert_eq!(err_full.code(), Some(2), "{args:?} 2>/dev/full");
            checked.1 += 1;
        } else {
            assert_eq!(
                err_full.code(),
                normal.status.code(),
                "{args:?} 2>/dev/full"
            );
        }
    }
    // Both kinds of run were met often enough to mean something.
    assert!(checked.0 >= 10 && checked.1 >= 8, "{checked:?}");
}
