//! One pipeline under every verb: on damaged inputs (cut gzip, zstd and
//! bzip2 files, junk, an illegal move, a NUL in a tag, a huge comment) every
//! verb that reads chess games (check, convert to every format and to
//! tables, filter, dedup, eco, positions, index), at every thread count,
//! meets the same games, finds the same errors, prints the same summary and
//! exits non-zero. Python's `to_arrow` and `problems()` are held to `check`
//! on the same kinds of input in python/tests/test_errors.py.

use crate::util::cli;

use std::io::Write;
use std::path::{Path, PathBuf};

use gamerec_testkit::{corpus, temp_dir};

/// The first `n` games of the lichess sample.
fn some_games(n: usize) -> Vec<u8> {
    let text = std::fs::read(corpus("pgn/lichess_db_1000k.pgn")).expect("corpus");
    let starts: Vec<usize> = text
        .windows(8)
        .enumerate()
        .filter(|(i, w)| *w == b"[Event \"" && (*i == 0 || text[i - 1] == b'\n'))
        .map(|(i, _)| i)
        .collect();
    let end = starts.get(n).copied().unwrap_or(text.len());
    text[..end].to_vec()
}

fn cut(bytes: Vec<u8>) -> Vec<u8> {
    let keep = bytes.len() * 3 / 5;
    bytes[..keep].to_vec()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

const ILLEGAL: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
[Event \"b\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke4 *\n\n\
[Event \"c\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n";

/// The damaged inputs, written into `dir`: (file name, bytes).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let games = some_games(300);
    let huge = format!(
        "{ILLEGAL}\n[Event \"huge\"]\n[Result \"*\"]\n\n1. e4 {{{}}} e5 *\n\n\
         [Event \"after\"]\n[Result \"1-0\"]\n\n1. c4 1-0\n",
        "comment ".repeat(3 << 17)
    );
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("cut.pgn.gz", cut(gzip(&games))),
        ("cut.pgn.zst", cut(zstd(&games))),
        ("cut.pgn.bz2", cut(bzip2(&games))),
        (
            "junk.pgn",
            b"this is not a game\nnor is this (1. e4\n}{ ]]]\n".repeat(50),
        ),
        (
            "binary.pgn",
            (0..4096u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
        ("illegal.pgn", ILLEGAL.as_bytes().to_vec()),
        (
            "nul.pgn",
            ILLEGAL
                .replacen("[Event \"b\"]", "[Event \"b\0x\"]", 1)
                .into_bytes(),
        ),
        ("huge.pgn.gz", gzip(huge.as_bytes())),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect()
}

/// The summary line's counts (`N games (E with errors)`) and the sorted
/// error lines of one run.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    code: i32,
    counts: String,
    errors: Vec<String>,
}

/// The number before `word` in `line`.
fn number_before(line: &str, word: &str) -> String {
    let at = line
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {line:?}"));
    line[..at]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .to_string()
}

fn seen(code: i32, out: &str, err: &str) -> Seen {
    let text = format!("{out}\n{err}");
    let summary = text
        .lines()
        .rev()
        .find(|l| l.contains(" with errors, "))
        .unwrap_or_else(|| panic!("no summary line in:\n{text}"));
    let counts = format!(
        "{} games, {} errors, {} with errors",
        number_before(summary, " games"),
        number_before(summary, " errors"),
        number_before(summary, " with errors")
    );
    let mut errors: Vec<String> = text
        .lines()
        .filter(|l| l.contains(": error: "))
        .map(str::to_string)
        .collect();
    errors.sort();
    errors.dedup();
    Seen {
        code,
        counts,
        errors,
    }
}

const BOUND: &str = "1048576";

#[test]
fn every_verb_at_every_thread_count_agrees_on_damaged_inputs() {
    let dir = temp_dir("pipeline-agreement");
    let eco = corpus("pgn/eco.pgn");
    let eco = eco.to_str().unwrap();
    for input in inputs(&dir) {
        let path = input.to_str().unwrap();
        let name = input.file_name().unwrap().to_str().unwrap();
        let (code, out, err) = cli(&["check", "-t", "1", "--max-game-bytes", BOUND, path])
            .run()
            .code_and_text();
        let reference = seen(code, &out, &err);
        assert_ne!(reference.code, 0, "{name}: check must fail:\n{out}{err}");
        assert!(!reference.errors.is_empty(), "{name}: no error shown");
        for threads in ["1", "2", "8"] {
            let out_pgn = dir.join("out.pgn");
            let out_pgc = dir.join("out.pgc");
            let out_cbf = dir.join("out.cbf");
            let out_fbk = dir.join("out.fbk");
            let out_json = dir.join("out.json");
            let out_parquet = dir.join("out.parquet");
            let out_arrow = dir.join("plies.arrow");
            let out_idx = dir.join("out.idx");
            let runs: Vec<(String, Vec<&str>)> = vec![
                ("check".into(), vec!["check", "-t", threads]),
                (
                    "convert pgn".into(),
                    vec!["convert", "-t", threads, "-o", out_pgn.to_str().unwrap()],
                ),
                (
                    "convert json".into(),
                    vec!["convert", "-t", threads, "-o", out_json.to_str().unwrap()],
                ),
                (
                    "convert pgc".into(),
                    vec!["convert", "-t", threads, "-o", out_pgc.to_str().unwrap()],
                ),
                (
                    "convert cbf".into(),
                    vec!["convert", "-t", threads, "-o", out_cbf.to_str().unwrap()],
                ),
                (
                    "convert fbk".into(),
                    vec!["convert", "-t", threads, "-o", out_fbk.to_str().unwrap()],
                ),
                (
                    "filter".into(),
                    vec!["filter", "-j", threads, "-o", out_pgn.to_str().unwrap()],
                ),
                (
                    "dedup".into(),
                    vec!["dedup", "-j", threads, "-o", out_pgn.to_str().unwrap()],
                ),
                (
                    "eco".into(),
                    vec![
                        "eco",
                        "-j",
                        threads,
                        "-e",
                        eco,
                        "-o",
                        out_pgn.to_str().unwrap(),
                    ],
                ),
                (
                    "convert parquet".into(),
                    vec![
                        "convert",
                        "-t",
                        threads,
                        "-o",
                        out_parquet.to_str().unwrap(),
                    ],
                ),
                (
                    "positions".into(),
                    vec![
                        "positions",
                        "-t",
                        threads,
                        "-o",
                        out_arrow.to_str().unwrap(),
                    ],
                ),
                (
                    "index".into(),
                    vec!["index", "-j", threads, "-o", out_idx.to_str().unwrap()],
                ),
            ];
            for (verb, mut args) in runs {
                args.extend(["--max-game-bytes", BOUND, path]);
                let (code, out, err) = cli(&args).run().code_and_text();
                let got = seen(code, &out, &err);
                assert_eq!(
                    got.counts, reference.counts,
                    "{name}: {verb} -j{threads} counts differ from check:\n{out}{err}"
                );
                assert_eq!(
                    got.errors, reference.errors,
                    "{name}: {verb} -j{threads} errors differ from check"
                );
                assert_ne!(got.code, 0, "{name}: {verb} -j{threads} exit code 0");
                assert_eq!(
                    got.code, reference.code,
                    "{name}: {verb} -j{threads} exit code differs from check"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The summary of a clean input: every verb reports the same shape.
#[test]
fn one_summary_shape_for_every_verb() {
    let dir = temp_dir("pipeline-shape");
    let input = dir.join("ok.pgn");
    std::fs::write(&input, some_games(20)).unwrap();
    let path = input.to_str().unwrap();
    let out = dir.join("o.pgn");
    let out = out.to_str().unwrap();
    let eco = corpus("pgn/eco.pgn");
    let parquet = dir.join("o.parquet").to_str().unwrap().to_string();
    let plies = dir.join("o.arrow").to_str().unwrap().to_string();
    let idx = dir.join("o.idx").to_str().unwrap().to_string();
    for args in [
        vec!["check", path],
        vec!["convert", "-o", out, path],
        vec!["filter", "-o", out, path],
        vec!["dedup", "-o", out, path],
        vec!["eco", "-e", eco.to_str().unwrap(), "-o", out, path],
        vec!["convert", "-o", &parquet, path],
        vec!["positions", "-o", &plies, path],
        vec!["index", "-o", &idx, path],
    ] {
        let (code, stdout, stderr) = cli(&args).run().code_and_text();
        assert_eq!(code, 0, "{args:?}:\n{stdout}{stderr}");
        let text = format!("{stdout}{stderr}");
        assert!(
            text.lines()
                .any(|l| l.contains("20 games, ")
                    && l.contains(" 0 errors; 0 with errors, 0 warnings")),
            "{args:?}:\n{text}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A chess verb given a Go file says what it is, not "does not look like".
#[test]
fn chess_verbs_refuse_sgf_by_name() {
    let file = corpus("sgf/gnugo/patterns/gogo.sgf");
    let (code, out, err) = cli(&["filter", file.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("SGF holds Go and Othello games, not chess"),
        "{err}"
    );
}

/// `filter --count` prints the count and writes no games.
#[test]
fn filter_count_writes_no_games() {
    let dir = temp_dir("pipeline-count");
    let input = dir.join("i.pgn");
    std::fs::write(&input, ILLEGAL).unwrap();
    let (code, out, err) = cli(&[
        "filter",
        "--count",
        "--result",
        "1-0",
        input.to_str().unwrap(),
    ])
    .run()
    .code_and_text();
    assert_eq!(out.trim(), "1", "{out}{err}");
    assert_eq!(code, 1, "game b has an illegal move: {err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Tables from a record format count what `check` counts: a record with
/// two errors is one record (one row short), not two.
#[test]
fn tables_count_a_record_with_two_errors_once() {
    let dir = temp_dir("pipeline-epd");
    let input = dir.join("t.epd");
    std::fs::write(
        &input,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Xy3; am Qq9; id \"two\";\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id \"good\";\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - acn y; id \"one\";\n",
    )
    .unwrap();
    let path = input.to_str().unwrap();
    let (code, out, err) = cli(&["check", path]).run().code_and_text();
    assert_eq!(code, 1, "{out}{err}");
    let text = format!("{out}{err}");
    assert!(
        text.contains("3 records, 3 errors; 2 with errors"),
        "{text}"
    );
    for (verb, name) in [
        ("convert", "o.parquet"),
        ("convert", "o.arrow"),
        ("positions", "p.parquet"),
    ] {
        let table = dir.join(name);
        let (code, out, err) = cli(&[verb, "-o", table.to_str().unwrap(), path])
            .run()
            .code_and_text();
        assert_eq!(code, 1, "{verb} {name}: {out}{err}");
        assert!(
            err.contains(&format!("gamerec {verb}: 3 games, 3 errors; 2 with errors")),
            "{verb} {name}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Games with no tag sections (movetext, a marker, the next game's moves)
/// gave the chunkers no `[` to cut before: a file of them was one chunk,
/// held whole and read by one thread, and past the bound on one game
/// (`--max-game-bytes`, 64 MiB by default) one "too large" game: an 85 MB
/// file of 1.5 million games read as "1 games, 1 errors". Chunks now end
/// where the reader ends a game when there is no `[`; every entry (the
/// mapped file at any thread count, stdin, a zstd file, the one-thread
/// reader of `sort`) reads every game, with a bound far below the file.
#[test]
fn games_without_tag_sections_are_cut_into_chunks_on_every_path() {
    let dir = temp_dir("tagless");
    // Movetexts of real games ({[%clk]} comments, `[` inside them), and
    // markers where no game ends: in a brace comment over two lines, a `;`
    // comment, a `%` line.
    let games = String::from_utf8(some_games(300)).unwrap();
    let mut text = String::new();
    for line in games.lines().filter(|l| !l.starts_with('[')) {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(
        "1. e4 {a comment that says 1-0\n1-0 again} e5 ; 0-1 and *\n\
         % 1-0 an escape line\n2. Nf3 *\n\n",
    );
    let per_copy = 301;
    let copies = 40;
    let input = dir.join("tagless.pgn");
    std::fs::write(&input, text.repeat(copies)).unwrap();
    let size = std::fs::metadata(&input).unwrap().len();
    assert!(size > 6 << 20, "{size} bytes: several chunks");
    let zst = dir.join("tagless.pgn.zst");
    std::fs::write(&zst, zstd(text.repeat(copies).as_bytes())).unwrap();
    let summary = format!("{} games,", per_copy * copies);
    let path = input.to_str().unwrap();
    let mut outputs = Vec::new();
    for (name, code, out, err) in check_on_every_entry(&input, &zst) {
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.starts_with(&summary), "{name}: {out}{err}");
        outputs.push(out);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{outputs:?}");
    // The one-thread reader (`sort`, `split`, `html`) and a conversion.
    let sorted = dir.join("sorted.pgn");
    let (code, _, err) = cli(&["sort", path, "-o", sorted.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    let (_, out, err) = cli(&["check", sorted.to_str().unwrap()])
        .run()
        .code_and_text();
    assert!(out.starts_with(&summary), "sort: {out}{err}");
}

/// `check --max-game-bytes 1000000` of `plain` (its bytes on one and two
/// threads, and on stdin) and of `zst` (the same bytes compressed): per
/// entry its name, exit code, stdout and stderr.
fn check_on_every_entry(
    plain: &std::path::Path,
    zst: &std::path::Path,
) -> Vec<(&'static str, i32, String, String)> {
    let path = plain.to_str().unwrap();
    let entries = [
        ("file -t 1", ["check", "-t", "1", path], false),
        ("file -t 2", ["check", "-t", "2", path], false),
        ("stdin", ["check", "-t", "2", "-"], true),
        ("zstd", ["check", "-t", "2", zst.to_str().unwrap()], false),
    ];
    entries
        .into_iter()
        .map(|(name, args, stdin)| {
            let mut args = args.to_vec();
            args.extend(["--max-game-bytes", "1000000"]);
            let mut run = cli(&args);
            if stdin {
                run = run.stdin(std::fs::read(plain).unwrap());
            }
            let (code, out, err) = run.run().code_and_text();
            (name, code, out, err)
        })
        .collect()
}

/// Games without tag sections one after another on one line gave no place
/// to cut: the file was one chunk, and past `--max-game-bytes` every game
/// was lost ("1 games, 1 errors"). Chunks now end right after a marker in
/// the middle of the line, on every entry, and messages keep the column
/// they have in the line.
#[test]
fn games_on_one_line_are_cut_into_chunks_on_every_path() {
    let dir = temp_dir("one-line");
    let game = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0 ";
    let bad = "1. d4 d5 2. Qh5 *   ";
    let mut line = String::new();
    let mut columns = Vec::new();
    for i in 0..200_000 {
        if i % 50_000 == 49_999 {
            columns.push(line.len() + bad.find("Qh5").unwrap() + 1);
            line.push_str(bad);
        } else {
            line.push_str(game);
        }
    }
    line.push('\n');
    assert!(line.len() > 6 << 20);
    let input = dir.join("one-line.pgn");
    std::fs::write(&input, &line).unwrap();
    let zst = dir.join("one-line.pgn.zst");
    std::fs::write(&zst, zstd(line.as_bytes())).unwrap();
    let path = input.to_str().unwrap();
    let mut outputs = Vec::new();
    for (name, code, out, err) in check_on_every_entry(&input, &zst) {
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(out.contains("\n200000 games,"), "{name}: {out}{err}");
        let out = out
            .replace(zst.to_str().unwrap(), path)
            .replace("<stdin>", path);
        for column in &columns {
            let message = format!("{path}:1:{column}: error: illegal move Qh5");
            assert!(out.contains(&message), "{name}: {out}");
        }
        outputs.push(out);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{outputs:?}");
    let sorted = dir.join("sorted.pgn");
    let (code, _, err) = cli(&["sort", path, "-o", sorted.to_str().unwrap()])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    let (_, out, err) = cli(&["check", sorted.to_str().unwrap()])
        .run()
        .code_and_text();
    // `sort` leaves out the four games with an illegal move.
    assert!(out.starts_with("199996 games,"), "sort: {out}{err}");
}

/// `--max-game-bytes` held on streams (stdin, compressed files) but not on
/// a plain file, whose planned ranges (up to 16 MiB) were read in place: a
/// 3 MB game under a 1 MB bound was read from the file and refused from
/// stdin. After a game too large to read, games without tag sections were
/// all lost (the reading resumed only at a `[`). Now every entry refuses
/// the same game and reads every other one.
#[test]
fn the_bound_on_one_game_holds_on_every_entry() {
    let dir = temp_dir("game-bound");
    let comment = "x".repeat(3_000_000);
    for (name, game, big) in [
        (
            "tagged",
            "[Event \"g\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n".to_string(),
            format!("[Event \"big\"]\n\n1. e4 {{{comment}}} e5 *\n\n"),
        ),
        (
            "tagless",
            "1. e4 e5 2. Nf3 Nc6 1-0\n\n".to_string(),
            format!("1. e4 {{{comment}}} e5 *\n\n"),
        ),
    ] {
        let text = format!("{}{big}{}", game.repeat(1000), game.repeat(1000));
        let plain = dir.join(format!("{name}.pgn"));
        std::fs::write(&plain, &text).unwrap();
        let zst = dir.join(format!("{name}.pgn.zst"));
        std::fs::write(&zst, zstd(text.as_bytes())).unwrap();
        let mut seen = Vec::new();
        for threads in ["1", "2"] {
            for (entry, path, stdin) in [
                ("file", plain.to_str().unwrap(), false),
                ("zstd", zst.to_str().unwrap(), false),
                ("stdin", "-", true),
            ] {
                let mut run = cli(&["check", "-t", threads, "--max-game-bytes", "1000000", path]);
                if stdin {
                    run = run.stdin(text.as_bytes());
                }
                let (code, out, err) = run.run().code_and_text();
                let what = format!("{name} {entry} -t {threads}: {out}{err}");
                assert_eq!(code, 1, "{what}");
                let lines: Vec<&str> = out.lines().collect();
                assert_eq!(lines.len(), 2, "{what}");
                assert_eq!(
                    lines[1], "2001 games, 8000 moves, 1 errors; 1 with errors, 0 warnings",
                    "{what}"
                );
                // One message, at the same place from every entry.
                let (place, message) = lines[0].split_once(": error: ").expect("a message");
                assert!(
                    message.starts_with("game of ")
                        && message.contains("is larger than the bound of one game: not read"),
                    "{what}"
                );
                let place = place.rsplitn(3, ':').take(2).collect::<Vec<_>>().join(":");
                seen.push((entry, place, message.to_owned()));
            }
        }
        assert!(
            seen.windows(2)
                .all(|w| (&w[0].1, &w[0].2) == (&w[1].1, &w[1].2)),
            "{name}: {seen:?}"
        );
    }
}

/// Games without termination markers end at the next game's tags; a chunk
/// cut there had its last game taken as cut off and joined to the next
/// chunk, so the whole file was one chunk (and past `--max-game-bytes` one
/// too-large game). Every entry now reads every game in bounded chunks,
/// with the same warnings.
#[test]
fn games_without_termination_markers_are_read_on_every_path() {
    let dir = temp_dir("no-markers");
    let mut text = String::new();
    for i in 0..60_000 {
        text.push_str(&format!(
            "[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5\n\n"
        ));
    }
    let input = dir.join("no-markers.pgn");
    std::fs::write(&input, &text).unwrap();
    let zst = dir.join("no-markers.pgn.zst");
    std::fs::write(&zst, zstd(text.as_bytes())).unwrap();
    let path = input.to_str().unwrap();
    for (name, args, stdin) in [
        ("file -t 1", vec!["check", "-t", "1", path], false),
        ("file -t 2", vec!["check", "-t", "2", path], false),
        ("stdin", vec!["check", "-t", "2", "-"], true),
        (
            "zstd",
            vec!["check", "-t", "2", zst.to_str().unwrap()],
            false,
        ),
    ] {
        let mut args = args;
        args.extend(["--max-game-bytes", "1000000", "-q"]);
        let mut run = cli(&args);
        if stdin {
            run = run.stdin(text.as_bytes());
        }
        let (code, out, err) = run.run().code_and_text();
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert_eq!(
            out, "60000 games, 300000 moves, 0 errors; 0 with errors, 60000 warnings\n",
            "{name}: {err}"
        );
    }
    // The warnings themselves, one per game, at the next game's tags.
    let (_, out, _) = cli(&["check", "-t", "2", path]).run().code_and_text();
    let warnings = out
        .lines()
        .filter(|l| l.contains(": warning: game ends without a termination marker"))
        .count();
    assert_eq!(warnings, 60_000);
    assert!(out.contains("no-markers.pgn:5:1: warning: game ends without a termination marker"));
}

/// Twenty failed games and no clean one stop the reading ("does not look
/// like PGN"). The parallel reader stopped at the end of the chunk holding
/// the twentieth: the games counted (47,662 on one thread, 11,915 on two)
/// and, after a bad start, whole chunks of good games written depended on
/// where the chunks were cut. It now stops at that game, as the sequential
/// reader does, on every entry.
#[test]
fn a_hopeless_start_stops_at_the_same_game_on_every_entry() {
    let dir = temp_dir("hopeless");
    let text = [
        "[Event \"x\"]\n\n1. e5 *\n\n".repeat(30),
        "[Event \"y\"]\n\n1. e4 *\n\n".repeat(300_000),
    ]
    .concat();
    let input = dir.join("bad-start.pgn");
    std::fs::write(&input, &text).unwrap();
    let zst = dir.join("bad-start.pgn.zst");
    std::fs::write(&zst, zstd(text.as_bytes())).unwrap();
    for (name, code, out, err) in check_on_every_entry(&input, &zst) {
        let all = format!("{out}{err}");
        assert_eq!(code, 1, "{name}: {all}");
        assert!(
            all.ends_with("\n20 games, 0 moves, 21 errors; 20 with errors, 0 warnings\n"),
            "{name}: {all}"
        );
        assert_eq!(all.matches("error: illegal move e5").count(), 20, "{name}");
        assert!(all.contains("this does not look like PGN"), "{name}: {all}");
    }
    let path = input.to_str().unwrap();
    for threads in ["1", "2"] {
        let out = dir.join(format!("out-{threads}.pgn"));
        let (code, _, err) = cli(&["convert", "-t", threads, path, "-o", out.to_str().unwrap()])
            .run()
            .code_and_text();
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("20 games, 21 errors; 20 with errors, 0 warnings, 0 written"),
            "{err}"
        );
    }
}
