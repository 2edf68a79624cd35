//! Driver tests against the Debian engines (UCI: stockfish, toga2; XBoard:
//! fairymax, phalanx, sjeng) and against misbehaving fake engines.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gamerec_engine::uci::{UciEngine, UciOptions};
use gamerec_engine::xboard::{XboardEngine, XboardOptions};
use gamerec_engine::{Engine, EngineCommand, EngineError, Info, Limits, Score};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// Scholar's mate available: Qxf7#.
const MATE_IN_1: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
/// Black to move, mate in 1 with ...Qh4# (fool's mate).
const BLACK_MATES: &str = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2";

fn uci_engine(name: &str) -> Option<UciEngine> {
    let path = gamerec_testkit::peer(name)?;
    Some(UciEngine::start(&EngineCommand::program(path), &UciOptions::default()).expect("start"))
}

fn xboard_engine(name: &str) -> Option<XboardEngine> {
    let path = gamerec_testkit::peer(name)?;
    let mut cmd = EngineCommand::program(path);
    cmd.cwd = Some(std::env::temp_dir());
    Some(XboardEngine::start(&cmd, &XboardOptions::default()).expect("start"))
}

/// Common checks: finds a mate in one for each side, obeys a depth limit,
/// searches from a move list, reports infos with legal PVs.
fn exercise(engine: &mut dyn Engine, depth_limit: bool) {
    for (fen, want) in [(MATE_IN_1, "h5f7"), (BLACK_MATES, "d8h4")] {
        engine.new_game().unwrap();
        engine.set_position(&pos(fen), &[]).unwrap();
        let mut infos: Vec<Info> = Vec::new();
        let r = engine
            .go(&Limits::depth(3), &mut |i| infos.push(i.clone()))
            .unwrap();
        let best = r.best_move.expect("a move");
        assert_eq!(
            best.to_uci(CastlingMode::Standard).to_string(),
            want,
            "{} in {fen}",
            engine.name()
        );
        assert!(
            matches!(r.info.score, Some(Score::Mate(1))),
            "{}: score {:?}",
            engine.name(),
            r.info.score
        );
        if depth_limit {
            assert!(
                infos.iter().all(|i| i.depth.unwrap_or(0) <= 4),
                "{} ignored sd/depth",
                engine.name()
            );
        }
    }
    // From the start position plus moves; every PV must be legal there.
    let start = Chess::default();
    let moves: Vec<_> = ["e2e4", "e7e5", "g1f3"]
        .iter()
        .scan(start.clone(), |p, u| {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(p)
                .unwrap();
            p.play_unchecked(m);
            Some(m)
        })
        .collect();
    engine.set_position(&start, &moves).unwrap();
    let mut saw_pv = false;
    let r = engine
        .go(&Limits::movetime(Duration::from_millis(300)), &mut |i| {
            saw_pv |= !i.pv.is_empty()
        })
        .unwrap();
    let mut p = start.clone();
    for &m in &moves {
        p.play_unchecked(m);
    }
    assert!(p.is_legal(r.best_move.unwrap()));
    assert!(
        r.elapsed < Duration::from_secs(5),
        "{} overran movetime",
        engine.name()
    );
    let _ = saw_pv;
    engine.quit().unwrap();
}

#[test]
fn stockfish_uci() {
    let Some(mut e) = uci_engine("stockfish") else {
        return;
    };
    assert!(e.name().to_lowercase().contains("stockfish"));
    assert!(e.options().iter().any(|o| o.name == "Hash"));
    e.set_option("Hash", "16").unwrap();
    e.set_option("Threads", "1").unwrap();
    assert!(matches!(
        e.set_option("NoSuchOption", "1"),
        Err(EngineError::Usage(_))
    ));
    // MultiPV: two lines reported.
    e.set_option("MultiPV", "2").unwrap();
    e.set_position(&Chess::default(), &[]).unwrap();
    let mut lines = std::collections::BTreeSet::new();
    e.go(&Limits::depth(6), &mut |i| {
        if let Some(k) = i.multipv {
            lines.insert(k);
        }
    })
    .unwrap();
    assert_eq!(lines.into_iter().collect::<Vec<_>>(), [1, 2]);
    e.set_option("MultiPV", "1").unwrap();
    // Mate search and node limit.
    e.set_position(&pos(MATE_IN_1), &[]).unwrap();
    let r = e
        .go(
            &Limits {
                mate: Some(1),
                ..Limits::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(r.info.score, Some(Score::Mate(1)));
    e.set_position(&Chess::default(), &[]).unwrap();
    let r = e.go(&Limits::nodes(5000), &mut |_| {}).unwrap();
    assert!(r.info.nodes.unwrap() < 50_000);
    // A checkmated side: no best move.
    e.set_position(
        &pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
        &[],
    )
    .unwrap();
    let r = e.go(&Limits::depth(2), &mut |_| {}).unwrap();
    assert_eq!(r.best_move, None);
    exercise(&mut e, true);
}

#[test]
fn stockfish_stop_handle_and_clock() {
    let Some(mut e) = uci_engine("stockfish") else {
        return;
    };
    e.set_position(&Chess::default(), &[]).unwrap();
    let stop = e.stop_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.stop();
    });
    let started = Instant::now();
    let r = e.go(&Limits::default(), &mut |_| {}).unwrap(); // infinite
    t.join().unwrap();
    assert!(r.best_move.is_some());
    assert!(started.elapsed() < Duration::from_secs(3));
    let clock = gamerec_engine::Clock {
        white: Duration::from_millis(2000),
        black: Duration::from_millis(2000),
        white_inc: Duration::from_millis(100),
        black_inc: Duration::from_millis(100),
        moves_to_go: None,
    };
    let r = e
        .go(
            &Limits {
                clock: Some(clock),
                ..Limits::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert!(r.best_move.is_some());
    assert!(r.elapsed < Duration::from_millis(2000));
}

#[test]
fn toga2_uci() {
    let Some(mut e) = uci_engine("toga2") else {
        return;
    };
    exercise(&mut e, false);
}

#[test]
fn fairymax_xboard_edit_mode() {
    let Some(mut e) = xboard_engine("fairymax") else {
        return;
    };
    assert_eq!(
        e.feature("setboard"),
        Some("0"),
        "fairymax has no setboard: the edit path is used"
    );
    exercise(&mut e, true);
}

#[test]
fn phalanx_xboard_depth_fallback() {
    let Some(mut e) = xboard_engine("phalanx") else {
        return;
    };
    assert_eq!(e.feature("setboard"), Some("1"));
    exercise(&mut e, true);
}

#[test]
fn sjeng_xboard_without_done() {
    let Some(mut e) = xboard_engine("sjeng") else {
        return;
    };
    exercise(&mut e, false);
}

#[test]
fn xboard_clock_time_control() {
    let Some(mut e) = xboard_engine("fairymax") else {
        return;
    };
    e.set_position(&Chess::default(), &[]).unwrap();
    let clock = gamerec_engine::Clock {
        white: Duration::from_secs(3),
        black: Duration::from_secs(3),
        moves_to_go: Some(40),
        ..Default::default()
    };
    let r = e
        .go(
            &Limits {
                clock: Some(clock),
                ..Limits::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert!(r.best_move.is_some());
    assert!(r.elapsed < Duration::from_secs(3));
}

// ---- misbehaving engines -------------------------------------------------

fn script(name: &str, body: &str) -> PathBuf {
    let dir = gamerec_testkit::temp_dir("engine-tests");
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

fn fast_uci() -> UciOptions {
    UciOptions {
        handshake_timeout: Duration::from_millis(800),
        grace: Duration::from_millis(300),
        search_timeout: None,
    }
}

#[test]
fn silent_engine_times_out_and_is_killed() {
    let path = script("silent.sh", "exec sleep 600");
    let started = Instant::now();
    let err = UciEngine::start(&EngineCommand::program(&path), &fast_uci())
        .err()
        .expect("must fail");
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let started = Instant::now();
    let opts = XboardOptions {
        feature_timeout: Duration::from_millis(300),
        ping_timeout: Duration::from_millis(500),
        grace: Duration::from_millis(200),
        ..XboardOptions::default()
    };
    // No features at all: a protocol-1 engine; it starts, but never moves.
    let mut e = XboardEngine::start(&EngineCommand::program(&path), &opts).unwrap();
    let err = e
        .go(&Limits::movetime(Duration::from_millis(200)), &mut |_| {})
        .expect_err("must fail");
    assert!(
        matches!(err, EngineError::Timeout { .. } | EngineError::Died { .. }),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(8));
}

#[test]
fn engine_that_never_moves_is_stopped_then_killed() {
    let body = r#"while read line; do
  case "$line" in
    uci) echo "id name Staller"; echo "uciok";;
    isready) echo "readyok";;
    go*) echo "info depth 1 score cp 5 pv e2e4";;
    stop) ;;
  esac
done"#;
    let path = script("staller.sh", body);
    let mut e = UciEngine::start(&EngineCommand::program(&path), &fast_uci()).unwrap();
    assert_eq!(e.name(), "Staller");
    e.set_position(&Chess::default(), &[]).unwrap();
    let started = Instant::now();
    let err = e
        .go(&Limits::movetime(Duration::from_millis(200)), &mut |_| {})
        .expect_err("must fail");
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn engine_that_dies_mid_search_is_an_error() {
    let body = r#"while read line; do
  case "$line" in
    uci) echo "id name Crasher"; echo "some junk line"; echo "option name Hash type spin default 1 min 1 max 2"; echo "uciok";;
    isready) echo "readyok";;
    go*) echo "info depth 1 score cp 5 pv e2e4"; echo "segfault!" >&2; exit 139;;
  esac
done"#;
    let path = script("crasher.sh", body);
    let mut e = UciEngine::start(&EngineCommand::program(&path), &fast_uci()).unwrap();
    e.set_position(&Chess::default(), &[]).unwrap();
    let err = e.go(&Limits::depth(5), &mut |_| {}).expect_err("must fail");
    match err {
        EngineError::Died { status, stderr } => {
            assert!(status.contains("139"), "{status}");
            assert!(stderr.contains("segfault!"), "{stderr}");
        }
        other => panic!("expected Died, got {other}"),
    }
}

#[test]
fn engine_with_illegal_bestmove_is_a_protocol_error() {
    let body = r#"while read line; do
  case "$line" in
    uci) echo "uciok";;
    isready) echo "readyok";;
    go*) echo "bestmove e2e5";;
  esac
done"#;
    let path = script("illegal.sh", body);
    let mut e = UciEngine::start(&EngineCommand::program(&path), &fast_uci()).unwrap();
    e.set_position(&Chess::default(), &[]).unwrap();
    assert!(matches!(
        e.go(&Limits::depth(1), &mut |_| {}),
        Err(EngineError::IllegalMove { .. })
    ));
}

#[test]
fn missing_program_is_a_spawn_error() {
    let err = UciEngine::start(&EngineCommand::program("/nonexistent/engine"), &fast_uci())
        .err()
        .unwrap();
    assert!(matches!(err, EngineError::Spawn { .. }));
}
