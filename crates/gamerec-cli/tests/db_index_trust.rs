//! The index knows its database: `find` refuses an index whose database was
//! cut, extended, edited or prepended to, saying what changed and what to
//! run; `index --append` checks the old bytes first; a failed build leaves
//! nothing behind and the old index in place.

use crate::util::cli;

use std::path::Path;

use gamerec_testkit::{corpus, temp_dir};

const SICILIAN: &str = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

fn ok(args: &[&str]) -> String {
    String::from_utf8(cli(args).run_ok().into_stdout()).unwrap()
}

/// Byte offsets of every game's `[Event ` line.
fn starts(data: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        data.windows(8)
            .enumerate()
            .filter(|(_, w)| *w == b"\n[Event ")
            .map(|(i, _)| i + 1),
    );
    v
}

/// `find` fails with exit 2 and a message holding every one of `needles`.
fn refused(db: &str, needles: &[&str]) {
    for extra in [&["--ids"][..], &[][..], &["--full-check"][..]] {
        let mut args = vec!["find", db, "--fen", SICILIAN];
        args.extend_from_slice(extra);
        let (code, out, err) = cli(&args).run().code_and_text();
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} answered: {out}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
        }
    }
    let (code, out, err) = cli(&["find", db, "--tree", SICILIAN]).run().code_and_text();
    assert_eq!(code, 2, "--tree: {err}");
    assert!(out.is_empty(), "--tree answered: {out}");
}

#[test]
fn a_changed_database_is_refused_with_what_changed_and_what_to_run() {
    let dir = temp_dir("db-trust");
    let all = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    let s = starts(&all);
    let data = all[..s[400]].to_vec();
    let db = dir.join("db.pgn");
    let d = db.to_str().unwrap();
    std::fs::write(&db, &data).unwrap();
    ok(&["index", d]);
    let ids = ok(&["find", d, "--fen", SICILIAN, "--ids"]);
    assert!(!ids.is_empty());
    assert_eq!(
        ids,
        ok(&["find", d, "--fen", SICILIAN, "--ids", "--full-check"])
    );

    // Shorter: the first game deleted, or the last.
    std::fs::write(&db, &data[s[1]..]).unwrap();
    refused(d, &["db.pgn", "shrunk", "gamerec index", "db.pgn`"]);
    std::fs::write(&db, &data[..s[399]]).unwrap();
    refused(d, &["shrunk"]);

    // Longer: games added at the end; --append brings the index up to date.
    std::fs::write(&db, &all[..s[450]]).unwrap();
    refused(d, &["added", "--append"]);
    ok(&["index", d, "--append"]);
    let appended = ok(&["find", d, "--fen", SICILIAN, "--ids"]);
    ok(&["index", d]);
    assert_eq!(appended, ok(&["find", d, "--fen", SICILIAN, "--ids"]));

    // Edited in place, same size; even with the modification time put back.
    let mut edited = std::fs::read(&db).unwrap();
    let at = edited.len() / 2;
    edited[at] = if edited[at] == b'x' { b'y' } else { b'x' };
    let mtime = std::fs::metadata(&db).unwrap().modified().unwrap();
    std::fs::write(&db, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&db)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    refused(d, &["differ", "same size", "gamerec index"]);
    let (_, _, err) = cli(&["find", d, "--fen", SICILIAN]).run().code_and_text();
    assert!(!err.contains("--append"), "{err}");

    // Prepended: longer, but the old bytes moved; --append refuses too.
    ok(&["index", d]);
    let mut prepended = all[s[500]..s[501]].to_vec();
    prepended.extend_from_slice(&std::fs::read(&db).unwrap());
    std::fs::write(&db, &prepended).unwrap();
    refused(d, &["grown", "differ"]);
    let (_, _, err) = cli(&["find", d, "--fen", SICILIAN]).run().code_and_text();
    assert!(!err.contains("--append"), "{err}");
    let idx = dir.join("db.pgn.idx");
    let before = std::fs::read(&idx).unwrap();
    let (code, _, err) = cli(&["index", d, "--append"]).run().code_and_text();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cannot append") && err.contains("differ"),
        "{err}"
    );
    assert_eq!(std::fs::read(&idx).unwrap(), before, "old index kept");

    // A truncated index.
    ok(&["index", d]);
    let bytes = std::fs::read(&idx).unwrap();
    std::fs::write(&idx, &bytes[..bytes.len() / 2]).unwrap();
    refused(d, &["db.pgn.idx", "truncated", "gamerec index"]);

    // No index at all.
    std::fs::remove_file(&idx).unwrap();
    refused(d, &["no index", "gamerec index"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files in `dir`.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failed_build_leaves_nothing_behind() {
    let dir = temp_dir("db-build-fails");
    let data = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    let mut z = zstd::encode_all(&data[..200_000], 3).unwrap();
    // A damaged frame: decompression fails part-way.
    let n = z.len();
    z.truncate(n - 100);
    z.extend_from_slice(&[0x55; 100]);
    let db = dir.join("bad.pgn.zst");
    std::fs::write(&db, &z).unwrap();
    let (code, _, err) = cli(&["index", db.to_str().unwrap()]).run().code_and_text();
    assert_ne!(code, 0, "{err}");
    assert_eq!(listing(&dir), ["bad.pgn.zst"], "{err}");
    // An append that fails keeps the old index.
    let good = dir.join("good.pgn");
    std::fs::write(&good, &data[..starts(&data)[100]]).unwrap();
    ok(&["index", good.to_str().unwrap()]);
    let before = std::fs::read(dir.join("good.pgn.idx")).unwrap();
    let idx = dir.join("good.pgn.idx");
    let (code, _, err) = cli(&[
        "index",
        db.to_str().unwrap(),
        "-o",
        idx.to_str().unwrap(),
        "--append",
    ])
    .run()
    .code_and_text();
    assert_ne!(code, 0, "{err}");
    assert_eq!(std::fs::read(&idx).unwrap(), before);
    assert_eq!(listing(&dir), ["bad.pgn.zst", "good.pgn", "good.pgn.idx"]);
    let _ = std::fs::remove_dir_all(&dir);
}
