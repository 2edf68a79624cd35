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

/// `gamerec check` and `gamerec show` (the core reader, no tables) against
/// python-chess (`variants.py check-reference`): every game python-chess
/// reads is checked without error and ends in python-chess's final FEN and
/// result; every game it refuses, gamerec refuses too, at the same ply (the
/// message names the position the refused move was played in).
fn check_matches_python_chess(python: &Path, pgns: &[PathBuf]) -> (usize, usize) {
    let mut args = vec![SCRIPT, "check-reference"];
    args.extend(pgns.iter().map(|p| s(p)));
    let (code, reference, stderr) = code_and_text(&run(python, &args, b""));
    assert_eq!(code, 0, "check-reference: {stderr}");
    let (mut read, mut refused) = (0, 0);
    for pgn in pgns {
        let name = pgn.file_name().and_then(|n| n.to_str()).expect("name");
        // `check` prints its diagnostics on stdout.
        let (code, diagnostics, _) = code_and_text(&run(GAMEREC, &["check", s(pgn)], b""));
        assert!(
            code == 0 || code == 1,
            "check {name}: exit {code}\n{diagnostics}"
        );
        assert!(!diagnostics.contains("not supported"), "{diagnostics}");
        let errors: Vec<&str> = diagnostics
            .lines()
            .filter(|l| l.contains(": error: "))
            .collect();
        let mut python_errors = 0;
        for line in reference
            .lines()
            .filter(|l| l.starts_with(&format!("{name}\t")))
        {
            let fields: Vec<&str> = line.split('\t').collect();
            let (game, verdict, fen) = (fields[1], fields[2], fields[3]);
            let marker = format!("(game {game}, ");
            let error = errors.iter().find(|l| l.contains(&marker));
            if verdict == "error" {
                python_errors += 1;
                refused += 1;
                let error = error.unwrap_or_else(|| {
                    panic!("{name} game {game}: python-chess refuses it, gamerec check does not")
                });
                assert!(
                    error.contains("illegal move") && error.contains(&format!("position {fen}")),
                    "{name} game {game}: refused elsewhere than at python-chess's position {fen}:\n{error}"
                );
                continue;
            }
            read += 1;
            assert!(error.is_none(), "{name} game {game}: {error:?}");
            let (code, shown, stderr) =
                code_and_text(&run(GAMEREC, &["show", s(pgn), "--game", game], b""));
            assert_eq!(code, 0, "show {name} game {game}: {stderr}");
            let last = pockets_sorted(shown.lines().last().unwrap_or_default());
            let want = pockets_sorted(&format!(" position {fen}, result {}", fields[4]));
            if matches!(fields[5], "Chess960" | "Standard") {
                // Standard rules: `show` draws it like any chess game.
                continue;
            }
            assert!(
                last.ends_with(&want),
                "{name} game {game}: gamerec `{last}`, python-chess `{want}`"
            );
        }
        assert_eq!(
            errors.len(),
            python_errors,
            "{name}: gamerec check's errors:\n{diagnostics}"
        );
    }
    eprintln!("check and show agree with python-chess: {read} games read, {refused} refused");
    (read, refused)
}

/// `text` with the letters of a Crazyhouse pocket (`[..]`) sorted: the
/// libraries list the same pieces in different orders.
fn pockets_sorted(text: &str) -> String {
    match (text.find('['), text.find(']')) {
        (Some(a), Some(b)) if a < b => {
            let mut pocket: Vec<char> = text[a + 1..b].chars().collect();
            pocket.sort_unstable();
            format!(
                "{}[{}]{}",
                &text[..a],
                pocket.into_iter().collect::<String>(),
                &text[b + 1..]
            )
        }
        _ => text.to_string(),
    }
}

#[test]
fn check_of_variant_samples_matches_python_chess() {
    let Some(python) = python() else {
        return;
    };
    assert_eq!(check_matches_python_chess(&python, &samples()), (73, 7));
}

#[test]
fn check_of_generated_variant_games_matches_python_chess() {
    let Some(python) = python() else {
        return;
    };
    let dir = temp_dir("variants-check-generated");
    let (code, _, stderr) = code_and_text(&run(
        &python,
        &[SCRIPT, "generate", s(&dir), "26", "30"],
        b"",
    ));
    assert_eq!(code, 0, "generate: {stderr}");
    let pgns = gamerec_testkit::files_with_extension(&dir, "pgn");
    assert_eq!(pgns.len(), 8);
    let (read, refused) = check_matches_python_chess(&python, &pgns);
    assert!(read > 200 && refused > 10, "read {read}, refused {refused}");
}

/// The summary line of a verb (its last line on stderr).
fn summary(stderr: &str) -> &str {
    stderr.lines().last().unwrap_or_default()
}

#[test]
fn variant_games_convert_to_pgn_and_back_and_nowhere_else() {
    let dir = temp_dir("variants-convert");
    let pgns = samples();
    let once = dir.join("once.pgn");
    let twice = dir.join("twice.pgn");
    let mut args = vec!["convert"];
    args.extend(pgns.iter().map(|p| s(p)));
    args.extend(["-o", s(&once)]);
    let (code, _, stderr) = code_and_text(&run(GAMEREC, &args, b""));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        summary(&stderr).contains("80 games, 7 errors; 7 with errors, 0 warnings, 73 written"),
        "{stderr}"
    );
    let (code, _, stderr) =
        code_and_text(&run(GAMEREC, &["convert", s(&once), "-o", s(&twice)], b""));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read(&once).expect("once"),
        std::fs::read(&twice).expect("twice"),
        "PGN export of variant games is a fixed point"
    );
    let text = std::fs::read_to_string(&once).expect("once");
    for tag in [
        "[Variant \"Crazyhouse\"]",
        "[Variant \"Horde\"]",
        "[Variant \"Three-check\"]",
        "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1\"]",
        "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1\"]",
    ] {
        assert!(text.contains(tag), "{tag} kept");
    }
    assert!(text.contains("@"), "drops kept");
    // The round trip reads whole, and python-chess finds the same final
    // positions in it.
    let (code, stderr, _) = code_and_text(&run(GAMEREC, &["check", s(&once)], b""));
    assert_eq!(code, 0, "{stderr}");
    let mut args = vec!["check"];
    args.extend(pgns.iter().map(|p| s(p)));
    let (_, original, _) = code_and_text(&run(GAMEREC, &args, b""));
    assert!(summary(&stderr).starts_with("73 games, "), "{stderr}");
    assert!(original.contains("80 games, "), "{original}");
    if let Some(python) = python() {
        assert_eq!(
            check_matches_python_chess(&python, std::slice::from_ref(&once)),
            (73, 0)
        );
    }
    // Formats with no way to name the rules leave each variant game out,
    // naming it.
    let crazyhouse = pgns
        .iter()
        .find(|p| s(p).ends_with("crazyhouse.pgn"))
        .expect("crazyhouse sample");
    for ext in ["pgc", "cbf", "epd", "fen"] {
        let out = dir.join(format!("z.{ext}"));
        let (code, _, stderr) = code_and_text(&run(
            GAMEREC,
            &["convert", s(crazyhouse), "-o", s(&out)],
            b"",
        ));
        assert_eq!(code, 0, "{ext}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "warning: game 3: a Crazyhouse game cannot be written to {}: left out",
                ext.to_uppercase()
            )),
            "{ext}: {stderr}"
        );
        assert!(summary(&stderr).ends_with(", 0 written"), "{ext}: {stderr}");
    }
    // JSON keeps the variant's start FEN (pockets).
    let (code, json, stderr) = code_and_text(&run(
        GAMEREC,
        &["convert", s(crazyhouse), "--to", "json"],
        b"",
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        json.contains("\"start\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1\""),
        "{json}"
    );
}

fn count(args: &[&str]) -> String {
    let (code, stdout, stderr) = code_and_text(&run(GAMEREC, args, b""));
    assert!(code == 0 || code == 1, "{args:?}: exit {code}\n{stderr}");
    stdout.trim().to_string()
}

#[test]
fn filter_index_and_find_read_variant_games_by_their_rules() {
    let pgns = samples();
    let all: Vec<&str> = pgns.iter().map(|p| s(p)).collect();
    let with = |extra: &[&str]| {
        let mut args = vec!["filter", "--count"];
        args.extend(extra);
        args.extend(&all);
        count(&args)
    };
    // Tags: every readable game of a variant.
    assert_eq!(with(&["--where", "Variant=Atomic"]), "9");
    assert_eq!(with(&["--where", "Variant=Crazyhouse"]), "10");
    // Boards are the variant's: Horde's start (no white king) is reached by
    // the readable Horde games only; the standard start board by the
    // variants that start there (not Chess960, Horde, Racing Kings).
    assert_eq!(
        with(&[
            "--pattern",
            "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP"
        ]),
        "9"
    );
    assert_eq!(
        with(&["--pattern", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"]),
        "46"
    );
    // A standard-chess position never matches a variant game.
    assert_eq!(
        with(&[
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ]),
        "0"
    );

    // The index keeps variant games (their tags) without their positions.
    let dir = temp_dir("variants-index");
    let db = dir.join("all.pgn");
    let mut text = Vec::new();
    for p in &pgns {
        text.extend(std::fs::read(p).expect("sample"));
        text.push(b'\n');
    }
    std::fs::write(&db, text).expect("write");
    let (code, _, stderr) = code_and_text(&run(GAMEREC, &["index", s(&db)], b""));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            ": 64 games of lichess variants: their tags are indexed, their positions are not"
        ),
        "{stderr}"
    );
    let find = |extra: &[&str]| {
        let mut args = vec!["find", s(&db), "--ids"];
        args.extend(extra);
        count(&args)
    };
    assert_eq!(
        find(&[
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ]),
        "",
        "no variant game is found by a standard position"
    );
    // A Chess960 game (standard rules) is found by its start.
    assert!(
        !find(&[
            "--fen",
            "rqbnnbkr/pppppppp/8/8/8/8/PPPPPPPP/RQBNNBKR w KQkq - 0 1"
        ])
        .is_empty()
    );
}

#[test]
fn unknown_variants_are_one_error_per_game_everywhere() {
    let dir = temp_dir("variants-unknown");
    let pgn = dir.join("v.pgn");
    std::fs::write(
        &pgn,
        "[Variant \"Shogi\"]\n\n1. e4 e5 2. Ke2 *\n\n\
         [Variant \"Suicide\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. Kxe2 *\n\n\
         [Variant \"Atomic\"]\n\n1. e4 d5 2. exd5 *\n",
    )
    .expect("write");
    for verb in [
        &["check"][..],
        &["convert", "--to", "pgn"],
        &["filter"],
        &["dedup"],
    ] {
        let mut args = verb.to_vec();
        args.push(s(&pgn));
        let (code, stdout, stderr) = code_and_text(&run(GAMEREC, &args, b""));
        // `check` prints its diagnostics on stdout, the other verbs on stderr.
        let stderr = if verb[0] == "check" {
            stdout + &stderr
        } else {
            stderr
        };
        assert_eq!(code, 1, "{verb:?}: {stderr}");
        assert_eq!(
            stderr.matches("variant Shogi is not supported").count(),
            1,
            "{verb:?}: {stderr}"
        );
        assert_eq!(
            stderr.matches("variant Suicide is not supported").count(),
            1,
            "{verb:?}: {stderr}"
        );
        assert!(!stderr.contains("illegal move"), "{verb:?}: {stderr}");
        assert!(!stderr.contains("FEN"), "{verb:?}: {stderr}");
        if verb[0] != "dedup" {
            assert!(
                stderr.contains(" 2 errors; 2 with errors"),
                "{verb:?}: {stderr}"
            );
        }
    }
}

#[test]
fn dedup_and_eco_tell_variant_games_from_standard_ones() {
    let dir = temp_dir("variants-dedup");
    let pgn = dir.join("d.pgn");
    std::fs::write(
        &pgn,
        "[Variant \"Atomic\"]\n\n1. e4 e5 2. Nf3 *\n\n\
         [Event \"standard\"]\n\n1. e4 e5 2. Nf3 *\n\n\
         [Variant \"atomic\"]\n\n1. e4 e5 2. Nf3 *\n\n\
         [Variant \"Crazyhouse\"]\n\n1. e4 e5 2. Nf3 *\n",
    )
    .expect("write");
    let out = dir.join("kept.pgn");
    let (code, _, stderr) = code_and_text(&run(GAMEREC, &["dedup", s(&pgn), "-o", s(&out)], b""));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("3 games kept, 1 duplicates dropped"),
        "{stderr}"
    );
    // ECO names standard openings: only the standard game is classified.
    let eco = gamerec_testkit::corpus("pgn/eco.pgn");
    let (code, _, stderr) = code_and_text(&run(
        GAMEREC,
        &["eco", "--eco-file", s(&eco), s(&pgn), "-o", s(&out)],
        b"",
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 of 4 games classified"), "{stderr}");
}

#[test]
fn svg_draws_a_variant_game_by_its_rules() {
    let atomic = samples()
        .into_iter()
        .find(|p| s(p).ends_with("atomic.pgn"))
        .expect("atomic sample");
    // Game 3 ends with White's king exploded (python-chess's final FEN).
    let (code, game, stderr) =
        code_and_text(&run(GAMEREC, &["svg", s(&atomic), "--game", "3"], b""));
    assert_eq!(code, 0, "{stderr}");
    let (code, fen, stderr) = code_and_text(&run(
        GAMEREC,
        &[
            "svg",
            "r1b2b1r/2p2kp1/1p1p3p/4p2P/p7/P2P2PN/1PP2P2/1R5R w - - 0 16",
        ],
        b"",
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(game.contains("<svg"), "{game}");
    assert_eq!(game, fen);
}
