//! Go matches: built-in random/weak players and GNU Go (Debian `gnugo`,
//! skipped when missing unless GAMEREC_REQUIRE_PEERS=1). Every game must be
//! legal, replay in sgfmill (GAMEREC_PYTHON with sgfmill), have consistent
//! clocks and no time losses at a sensible control.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use gamerec::sgf::score::Outcome;
use gamerec::sgf::{Prop, Value};
use gamerec_referee::go_match::{GoMatchConfig, GoOpenings, GoTimeControl, run};
use gamerec_referee::match_runner::{MatchEngine, Tournament};
use gamerec_referee::stats::{EloModel, Sprt};

fn config(engines: &[(&str, &str)], games: u32, tc: &str) -> GoMatchConfig {
    GoMatchConfig {
        game: "go".into(),
        engines: engines
            .iter()
            .map(|(n, s)| MatchEngine {
                name: (*n).into(),
                spec: (*s).into(),
            })
            .collect(),
        tournament: Tournament::RoundRobin,
        games,
        size: 9,
        komi: 7.0,
        rules: "Chinese".into(),
        handicap: 0,
        time: GoTimeControl::parse(tc).unwrap(),
        margin_ms: 200,
        openings: None,
        concurrency: 2,
        sprt: None,
        event: "go test".into(),
        seed: 5,
        max_moves: 0,
    }
}

fn gnugo(level: u32) -> Option<String> {
    let path = gamerec_testkit::peer("gnugo")?;
    Some(format!("gtp:{} --mode gtp --level {level}", path.display()))
}

/// Per game: (RE, moves, BL/WL values in order with their colour).
/// A game read back: RE, moves, and the BL/WL values with their colour.
type ReadGame = (String, usize, Vec<(char, f64)>);

fn read_games(dir: &Path) -> Vec<ReadGame> {
    let mut out = Vec::new();
    for path in gamerec_testkit::files_with_extension(&dir.join("games"), "sgf") {
        let bytes = std::fs::read(&path).unwrap();
        let parsed = gamerec::sgf::parse(&bytes, &gamerec::sgf::ParseOptions::default());
        assert_eq!(
            parsed.error_count(),
            0,
            "{}: {:?}",
            path.display(),
            parsed.diagnostics
        );
        let coll = &parsed.collection;
        let root = coll.roots[0];
        assert!(
            gamerec::sgf::replay::check_game(coll, root, 1).is_empty(),
            "{}: illegal moves",
            path.display()
        );
        let re = coll.text_of(root, Prop::RE).unwrap().to_owned();
        let mut moves = 0;
        let mut clocks = Vec::new();
        for node in coll.main_line(root) {
            if coll.get(node, Prop::B).is_some() || coll.get(node, Prop::W).is_some() {
                moves += 1;
            }
            for (prop, c) in [(Prop::BL, 'B'), (Prop::WL, 'W')] {
                if let Some(v) = coll.get(node, prop) {
                    let t = match v.value() {
                        Value::Real(r) => r,
                        Value::Number(n) => n as f64,
                        other => panic!("{prop:?} {other:?}"),
                    };
                    clocks.push((c, t));
                }
            }
        }
        out.push((re, moves, clocks));
    }
    out
}

/// sgfmill replays every game of `file`: each move legal (not on an
/// occupied point, not retaking a ko), and prints its moves count.
fn sgfmill_replays(file: &Path) {
    let Some(python) = gamerec_testkit::python_chess() else {
        return;
    };
    let script = r#"
import sys
from sgfmill import sgf, sgf_moves
data = open(sys.argv[1], 'rb').read()
# games.sgf holds several game trees: split them at top level.
depth = 0; start = None; games = []
for i, b in enumerate(data):
    if b == ord('(') :
        if depth == 0: start = i
        depth += 1
    elif b == ord(')'):
        depth -= 1
        if depth == 0: games.append(data[start:i+1])
for g in games:
    game = sgf.Sgf_game.from_bytes(g)
    board, plays = sgf_moves.get_setup_and_moves(game)
    ko = None
    for colour, move in plays:
        if move is None:
            ko = None
            continue
        row, col = move
        assert (row, col) != ko, ("ko retaken", move)
        ko = board.play(row, col, colour)
    print(len(plays))
"#;
    let out = gamerec_testkit::run(&python, &["-c", script, file.to_str().unwrap()], b"");
    let (code, stdout, stderr) = gamerec_testkit::code_and_text(&out);
    if code != 0 && stderr.contains("No module named 'sgfmill'") {
        assert!(!gamerec_testkit::peers_required(), "sgfmill missing");
        eprintln!("skipped: sgfmill not installed");
        return;
    }
    assert_eq!(code, 0, "sgfmill failed: {stderr}");
    assert!(!stdout.trim().is_empty());
}

fn check_clocks(games: &[ReadGame], main: f64) {
    for (re, _, clocks) in games {
        assert!(!re.ends_with("+T"), "a time loss: {re}");
        for c in ['B', 'W'] {
            let mine: Vec<f64> = clocks.iter().filter(|x| x.0 == c).map(|x| x.1).collect();
            assert!(!mine.is_empty() || re.ends_with("+R"));
            // Sudden death: the clock only runs down, never below 0.
            assert!(mine.windows(2).all(|w| w[1] <= w[0]), "{c}: {mine:?}");
            assert!(mine.iter().all(|&t| (0.0..=main).contains(&t)), "{mine:?}");
        }
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = gamerec_testkit::temp_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn random_and_weak_players_finish_legal_games_and_resume() {
    let dir = temp("go-match-builtin");
    let c = config(&[("random", "random:1"), ("weak", "weak:2")], 6, "30");
    let stop = Arc::new(AtomicBool::new(false));
    let outcome = run(&c, &dir, false, stop.clone()).unwrap();
    assert!(outcome.complete(), "{}", outcome.report);
    assert_eq!(outcome.finished, 6);
    let games = read_games(&dir);
    assert_eq!(games.len(), 6);
    for (re, moves, _) in &games {
        // Both players play to the end: two passes and a count.
        assert!(
            matches!(
                Outcome::parse(re),
                Some(Outcome::Points(..) | Outcome::Draw)
            ),
            "{re}"
        );
        assert!(*moves > 20, "{moves}");
    }
    check_clocks(&games, 30.0);
    sgfmill_replays(&dir.join("games.sgf"));
    // The weak player beats the random one.
    assert!(outcome.report.contains("Games: 6"), "{}", outcome.report);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["games"], 6);
    let losses = report["pairings"][0]["trinomial"]["losses"]
        .as_u64()
        .unwrap();
    assert!(losses >= 4, "weak won only {losses} of 6");
    // Resume: nothing left to play; one game removed is played again.
    let before = std::fs::read_to_string(dir.join("games/game-0002.sgf")).unwrap();
    std::fs::remove_file(dir.join("games/game-0003.sgf")).unwrap();
    let again = run(&c, &dir, false, stop).unwrap();
    assert_eq!(again.finished, 6);
    assert!(dir.join("games/game-0003.sgf").is_file());
    assert_eq!(
        std::fs::read_to_string(dir.join("games/game-0002.sgf")).unwrap(),
        before
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_stops_a_lopsided_match() {
    let dir = temp("go-match-sprt");
    let mut c = config(&[("weak", "weak:1"), ("random", "random:1")], 200, "30");
    c.size = 7;
    c.komi = 0.5;
    c.sprt = Some(Sprt::new(0.0, 100.0, 0.05, 0.05, EloModel::Logistic).unwrap());
    let outcome = run(&c, &dir, false, Arc::new(AtomicBool::new(false))).unwrap();
    assert!(outcome.complete());
    assert!(outcome.finished < 200, "{}", outcome.report);
    assert!(outcome.report.contains("H1 accepted"), "{}", outcome.report);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn openings_and_handicap_are_played() {
    let dir = temp("go-match-openings");
    let openings = dir.with_extension("openings.sgf");
    std::fs::write(
        &openings,
        "(;GM[1]FF[4]SZ[9]AB[cc];W[gg];B[cg];W[gc])(;GM[1]FF[4]SZ[9];B[ee];W[ce])",
    )
    .unwrap();
    let mut c = config(&[("a", "random:3"), ("b", "random:4")], 4, "20");
    c.openings = Some(GoOpenings {
        file: openings.clone(),
        plies: Some(2),
        random: false,
    });
    run(&c, &dir, false, Arc::new(AtomicBool::new(false))).unwrap();
    let first = std::fs::read_to_string(dir.join("games/game-0001.sgf")).unwrap();
    assert!(first.contains("AB[cc]") && first.contains(";W[gg]") && first.contains(";B[cg]"));
    assert!(!first.contains(";W[gc]C"), "cut to 2 moves");
    let third = std::fs::read_to_string(dir.join("games/game-0003.sgf")).unwrap();
    assert!(third.contains(";B[ee]"), "{third}");
    // A handicap game: White moves first.
    let dir2 = temp("go-match-handicap");
    let mut c = config(&[("a", "random:3"), ("b", "weak:4")], 1, "20");
    c.handicap = 4;
    c.komi = 0.5;
    run(&c, &dir2, false, Arc::new(AtomicBool::new(false))).unwrap();
    let g = std::fs::read_to_string(dir2.join("games/game-0001.sgf")).unwrap();
    assert!(
        g.contains("HA[4]") && g.contains("AB[gc][cg][gg][cc]"),
        "{g}"
    );
    assert!(g.contains("\n;W["), "{g}");
    assert!(g.find("\n;W[") < g.find("\n;B["));
    sgfmill_replays(&dir2.join("games.sgf"));
    for d in [dir, dir2] {
        std::fs::remove_dir_all(d).unwrap();
    }
    std::fs::remove_file(openings).unwrap();
}

/// GNU Go against the weak player on 7x7 (fast), then GNU Go at two levels and
/// the weak player in a round robin (slow): legal games that sgfmill
/// replays, scored with GNU Go's dead stones, clocks consistent and no
/// time losses at 60 s sudden death.
#[test]
fn gnugo_beats_the_weak_player() {
    let Some(g0) = gnugo(0) else { return };
    gnugo_match(
        &[("gnugo0", &g0), ("weak", "weak:9")],
        "go-match-gnugo-weak",
        7,
    );
}

#[test]
#[ignore = "slow: six GNU Go games (about 100 s)"]
fn gnugo_round_robin() {
    let (Some(g0), Some(g1)) = (gnugo(0), gnugo(1)) else {
        return;
    };
    gnugo_match(
        &[("gnugo0", &g0), ("gnugo1", &g1), ("weak", "weak:9")],
        "go-match-gnugo",
        9,
    );
}

/// GNU Go against Pachi on 9x9. Debian's `pachi` package is a platform
/// game, not the Go engine, so this runs only where GAMEREC_PACHI names a
/// Pachi built from its source (`make DCNN=0 JOSEKIFIX=0`; nothing here
/// builds it), with 1,000 playouts a move.
#[test]
fn gnugo_against_pachi() {
    let Some(pachi) = std::env::var_os("GAMEREC_PACHI") else {
        eprintln!("skipped: GAMEREC_PACHI (a Pachi Go engine binary) is not set");
        return;
    };
    let Some(g0) = gnugo(0) else { return };
    let pachi = format!("gtp:{} -t =1000", Path::new(&pachi).display());
    gnugo_match(&[("gnugo0", &g0), ("pachi", &pachi)], "go-match-pachi", 9);
}

fn gnugo_match(engines: &[(&str, &str)], name: &str, size: u32) {
    let dir = temp(name);
    let mut c = config(engines, 2, "60");
    c.size = size;
    let n = engines.len() * (engines.len() - 1);
    let outcome = run(&c, &dir, false, Arc::new(AtomicBool::new(false))).unwrap();
    assert!(outcome.complete(), "{}", outcome.report);
    assert_eq!(outcome.finished, n);
    let games = read_games(&dir);
    assert_eq!(games.len(), n);
    for (re, moves, _) in &games {
        assert!(
            matches!(
                Outcome::parse(re),
                Some(Outcome::Points(..) | Outcome::Draw | Outcome::Resign(_))
            ),
            "{re}"
        );
        assert!(*moves > 10);
    }
    check_clocks(&games, 60.0);
    sgfmill_replays(&dir.join("games.sgf"));
    // GNU Go beats the weak player every time.
    let text = std::fs::read_to_string(dir.join("games.sgf")).unwrap();
    for game in text.split("(;").skip(1) {
        let weak_black = game.contains("PB[weak]");
        let weak_white = game.contains("PW[weak]");
        if weak_black {
            assert!(game.contains("RE[W+"), "{game}");
        }
        if weak_white {
            assert!(game.contains("RE[B+"), "{game}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
