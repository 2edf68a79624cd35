//! Round trips over every PGN file of the shared corpus: zero errors on the
//! valid files, the named errors on the invalid ones, and idempotent export
//! (export(import(export(import(x)))) == export(import(x)), and
//! import(export(g)) == g for exported games).

use std::path::{Path, PathBuf};

use gamerec::diag::Severity;
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{WriteOptions, read_games};

/// Files that are truly invalid, with the number of failing games and why.
const INVALID: &[(&str, usize, &str)] = &[
    (
        "nested-comment.pgn",
        1,
        "nests braces, which section 5 forbids",
    ),
    (
        "test-promotion-in.pgn",
        8,
        "long algebraic moves (d7d8R) are not SAN",
    ),
    (
        "lichess_study_lichess-practice-greek-gift_by_arex_2017.02.11.pgn",
        1,
        "variation (20... Kf8) moves the king onto its own rook",
    ),
    (
        "lichess_study_lichess-practice-the-fork_by_arex_2017.01.29.pgn",
        3,
        "black move numbers and moves for the side not to move (1... Nxg5 with White to move)",
    ),
    // pgn-extract outputs in other notations (not SAN; a tolerant SAN reader
    // of issue #2 may accept some: then lower these counts).
    (
        "test-nestedcomments-out.pgn",
        1,
        "keeps the nested braces of its input",
    ),
    ("test-WWdeutsch-out.pgn", 1, "German piece letters (Lb2)"),
    ("test-Wdeutsch-out.pgn", 1, "German piece letters (Lb2)"),
    (
        "test-WWelalg-out.pgn",
        1,
        "enhanced long algebraic (e5d4 for a capture)",
    ),
    (
        "test-Welalg-out.pgn",
        1,
        "enhanced long algebraic (e5d4 for a capture)",
    ),
    (
        "test-WWhalg-out.pgn",
        1,
        "hyphenated long algebraic (b2-b3)",
    ),
    ("test-Whalg-out.pgn", 1, "hyphenated long algebraic (b2-b3)"),
    (
        "test-WWxlalg-out.pgn",
        1,
        "hyphenated long algebraic (b2-b3)",
    ),
    ("test-WWlalg-out.pgn", 1, "long algebraic (c1b2)"),
    ("test-Wlalg-out.pgn", 1, "long algebraic (c1b2)"),
    ("test-WWuci-out.pgn", 1, "UCI moves (c1b2)"),
    ("test-WWepd-out.pgn", 1, "EPD lines, not movetext"),
];

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "pgn") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_pgn_reads_and_round_trips() {
    let mut files = Vec::new();
    pgn_files(&gamerec_testkit::corpus("pgn"), &mut files);
    assert!(files.len() > 80, "corpus missing? {}", files.len());
    let opts = WriteOptions::default();
    let mut wrong = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        let (games, problems) = read_games(&data);
        let errors: Vec<_> = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        let expected = INVALID
            .iter()
            .find(|(n, _, _)| *n == name)
            .map_or(0, |(_, count, _)| *count);
        if errors.len() != expected {
            let first = errors
                .first()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            wrong.push(format!(
                "{name}: {} errors, expected {expected}: {first}",
                errors.len()
            ));
        }

        let e1: String = games.iter().map(|g| export_string(g, &opts)).collect();
        let (g2, p2) = read_games(e1.as_bytes());
        // Only a Result tag that disagrees with the marker (kept as read).
        assert!(
            p2.iter()
                .all(|p| p.message.contains("does not match the Result tag")),
            "{name}: export has problems {p2:?}"
        );
        assert_eq!(g2.len(), games.len(), "{name}");
        let e2: String = g2.iter().map(|g| export_string(g, &opts)).collect();
        assert!(e1 == e2, "{name}: export is not idempotent");
        let (g3, _) = read_games(e2.as_bytes());
        assert!(g3 == g2, "{name}: import(export(g)) != g");
        for line in e1.lines() {
            let long_token = !line.contains(' ') || line.starts_with('[') || line.contains(';');
            assert!(
                line.chars().count() < 80 || long_token,
                "{name}: long line {line}"
            );
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
