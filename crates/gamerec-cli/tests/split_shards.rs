//! `gamerec split --games N | --bytes N -o DIR`: compressed shards whose
//! games, decompressed and joined, are the input byte for byte; no game is
//! cut; a failed run leaves no shard.

use std::path::{Path, PathBuf};

use gamerec_testkit::{code_and_text, corpus, run, temp_dir};

const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn shards(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("shard dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
}

/// A shard's bytes, decompressed.
fn plain(path: &Path) -> Vec<u8> {
    let data = std::fs::read(path).expect("read shard");
    let name = path.to_string_lossy();
    if name.ends_with(".zst") {
        zstd::decode_all(&data[..]).expect("zstd")
    } else if name.ends_with(".gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&data[..]), &mut out)
            .expect("gzip");
        out
    } else {
        data
    }
}

/// The games `gamerec check` counts in a shard.
fn games_in(path: &Path) -> u64 {
    let (code, stdout, stderr) = code_and_text(&run(GAMEREC, &["check", s(path)], b""));
    assert_eq!(code, 0, "{stderr}");
    let text = stdout + &stderr;
    let line = text.lines().rfind(|l| l.contains(" games, ")).unwrap_or("");
    line.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect(line)
}

#[test]
fn shards_of_n_games_join_to_the_input() {
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let input = std::fs::read(&source).expect("corpus");
    for (compress, ext) in [("zst", "pgn.zst"), ("gz", "pgn.gz"), ("none", "pgn")] {
        let dir = temp_dir(&format!("split-games-{compress}"));
        let out = dir.join("shards");
        let (code, _, stderr) = code_and_text(&run(
            GAMEREC,
            &[
                "split",
                "--games",
                "100",
                "-o",
                s(&out),
                "--compress",
                compress,
                s(&source),
            ],
            b"",
        ));
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("438 games in 5 shards"), "{stderr}");
        let files = shards(&out);
        let names: Vec<String> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            (0..5)
                .map(|n| format!("part-{n:05}.{ext}"))
                .collect::<Vec<_>>()
        );
        let joined: Vec<u8> = files.iter().flat_map(|f| plain(f)).collect();
        assert!(joined == input, "{compress}: the shards join to the input");
        let counts: Vec<u64> = files.iter().map(|f| games_in(f)).collect();
        assert_eq!(counts, [100, 100, 100, 100, 38]);
    }
}

#[test]
fn shards_of_n_bytes_from_stdin_never_cut_a_game() {
    let lichess = std::fs::read(corpus("pgn/lichess_db_1000k.pgn")).expect("corpus");
    let twic = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).expect("corpus");
    let mut input = lichess.clone();
    input.extend_from_slice(&twic);
    let dir = temp_dir("split-bytes");
    let out = dir.join("shards");
    let limit = 64 * 1024;
    let (code, _, stderr) = code_and_text(&run(
        GAMEREC,
        &[
            "split",
            "--bytes",
            "64K",
            "-o",
            s(&out),
            "--prefix",
            "lichess",
            "-",
        ],
        &input,
    ));
    assert_eq!(code, 0, "{stderr}");
    let files = shards(&out);
    assert!(files.len() > 4, "{} shards", files.len());
    let parts: Vec<Vec<u8>> = files.iter().map(|f| plain(f)).collect();
    assert!(parts.concat() == input, "the shards join to the input");
    for (file, part) in files.iter().zip(&parts).rev().skip(1) {
        // Each shard but the last reached the bound with whole games.
        assert!(
            part.len() >= limit,
            "{}: {} bytes",
            file.display(),
            part.len()
        );
        assert!(
            part.len() < limit + 32 * 1024,
            "{}: {} bytes",
            file.display(),
            part.len()
        );
        assert!(part.ends_with(b"\n") && !part.starts_with(b"\n"));
    }
    let total: u64 = files.iter().map(|f| games_in(f)).sum();
    let (_, stdout, stderr) = code_and_text(&run(GAMEREC, &["check", "-"], &input));
    let whole = stdout + &stderr;
    assert!(
        whole.contains(&format!("{total} games,")),
        "{total}: {whole}"
    );
}

#[test]
fn a_failed_split_writes_no_shard_and_bad_arguments_are_refused() {
    let dir = temp_dir("split-fail");
    let out = dir.join("shards");
    let source = corpus("pgn/lichess_db_1000k.pgn");
    let missing = dir.join("missing.pgn");
    let (code, _, stderr) = code_and_text(&run(
        GAMEREC,
        &[
            "split",
            "--games",
            "10",
            "-o",
            s(&out),
            s(&source),
            s(&missing),
        ],
        b"",
    ));
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("missing.pgn"), "{stderr}");
    assert!(shards(&out).is_empty(), "{:?}", shards(&out));
    for args in [
        vec!["split", "--games", "10", s(&source)],
        vec!["split", "--bytes", "0", "-o", s(&out), s(&source)],
        vec!["split", "--bytes", "12Q", "-o", s(&out), s(&source)],
        vec!["split", "--games", "10", "--by-date", s(&out), s(&source)],
    ] {
        let (code, _, stderr) = code_and_text(&run(GAMEREC, &args, b""));
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}
