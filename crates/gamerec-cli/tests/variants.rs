//! Lichess's variants in the data tables, against python-chess's
//! `chess.variant` (`tests/variants.py`): every variant's sample file (ten
//! lichess-format games each, one with a move only standard chess allows)
//! and freshly generated random games. The games table must hold exactly
//! the games python-chess reads without error, with its tags, result, UCI,
//! SAN and clocks; the positions table python-chess's FEN before every ply;
//! the last FEN with the last move played gives python-chess's final FEN.

use std::path::{Path, PathBuf};

use gamerec_testkit::{code_and_text, run, temp_dir};

const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/variants.py");

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gamerec-arrow/tests/data/variants");
    gamerec_testkit::files_with_extension(&dir, "pgn")
}

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// The number in `(N with errors)` of a table verb's summary line.
fn games_with_errors(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .rfind(|l| l.contains(" rows from "))
        .unwrap_or_else(|| panic!("no summary line in {stderr}"));
    line.split_once(" (")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// python-chess's interpreter, when it also has pyarrow (to read the tables).
fn python() -> Option<PathBuf> {
    let python = gamerec_testkit::python_chess()?;
    let probe = run(
        &python,
        &["-c", "import chess.variant, pyarrow.parquet"],
        b"",
    );
    if !probe.status.success() {
        assert!(
            !gamerec_testkit::peers_required(),
            "{} lacks chess or pyarrow and GAMEREC_REQUIRE_PEERS=1",
            python.display()
        );
        eprintln!("skipped: {} lacks chess or pyarrow", python.display());
        return None;
    }
    Some(python)
}

/// Writes both tables of `pgns` and has python-chess compare them.
fn compare_with_python_chess(python: &Path, dir: &Path, pgns: &[PathBuf]) {
    let games = dir.join("games.parquet");
    let positions = dir.join("positions.parquet");
    let mut errors = Vec::new();
    for (verb, out) in [("convert", &games), ("positions", &positions)] {
        let mut args = vec![verb];
        args.extend(pgns.iter().map(|p| s(p)));
        args.extend(["-o", s(out)]);
        let (code, _, stderr) = code_and_text(&run(GAMEREC, &args, b""));
        assert!(code == 0 || code == 1, "{verb}: exit {code}\n{stderr}");
        assert!(
            !stderr.contains("not supported"),
            "{verb} refused a variant:\n{stderr}"
        );
        errors.push(games_with_errors(&stderr));
    }
    assert_eq!(errors[0], errors[1], "both tables leave out the same games");
    let mut args = vec![
        SCRIPT.to_string(),
        "compare".into(),
        s(&games).into(),
        s(&positions).into(),
        errors[0].to_string(),
    ];
    args.extend(pgns.iter().map(|p| s(p).to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = code_and_text(&run(python, &args, b""));
    assert_eq!(
        code, 0,
        "differences from python-chess:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(": 0 differences"), "{stdout}");
    eprint!("{stdout}");
}

#[test]
fn variant_samples_match_python_chess() {
    let Some(python) = python() else {
        return;
    };
    let pgns = samples();
    assert_eq!(pgns.len(), 8, "one sample file per variant");
    compare_with_python_chess(&python, &temp_dir("variants-samples"), &pgns);
}

#[test]
fn generated_variant_games_match_python_chess() {
    let Some(python) = python() else {
        return;
    };
    let dir = temp_dir("variants-generated");
    let (code, _, stderr) = code_and_text(&run(
        &python,
        &[SCRIPT, "generate", s(&dir), "11", "40"],
        b"",
    ));
    assert_eq!(code, 0, "generate: {stderr}");
    let pgns = gamerec_testkit::files_with_extension(&dir, "pgn");
    assert_eq!(pgns.len(), 8);
    compare_with_python_chess(&python, &dir, &pgns);
}

#[test]
fn unknown_variants_and_unsupported_parts_are_said() {
    let dir = temp_dir("variants-unsupported");
    let pgn = dir.join("v.pgn");
    std::fs::write(
        &pgn,
        "[Variant \"Shogi\"]\n\n1. e4 *\n\n\
         [Variant \"Atomic\"]\n\n1. e4 (1. d4) e5 *\n\n\
         [Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 *\n",
    )
    .expect("write");
    let out = dir.join("g.parquet");
    let (code, _, stderr) = code_and_text(&run(GAMEREC, &["convert", s(&pgn), "-o", s(&out)], b""));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("variant Shogi is not supported"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a variation is not supported in atomic games"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 rows from 3 games (2 with errors)"),
        "{stderr}"
    );
}
