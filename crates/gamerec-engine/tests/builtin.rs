//! The built-in engine: tactics, mates, limits, stopping.

use std::time::{Duration, Instant};

use gamerec_engine::builtin::BuiltinEngine;
use gamerec_engine::{Engine, Limits, Score};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn best(fen: &str, limits: &Limits) -> (String, Option<Score>) {
    let mut e = BuiltinEngine::with_hash(16);
    e.set_position(&pos(fen), &[]).unwrap();
    let r = e.go(limits, &mut |_| {}).unwrap();
    (
        r.best_move
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .unwrap_or_default(),
        r.info.score,
    )
}

#[test]
fn finds_mates() {
    let (m, s) = best(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        &Limits::depth(4),
    );
    assert_eq!(m, "h5f7");
    assert_eq!(s, Some(Score::Mate(1)));
    // Mate in 2: 1.Qd8+ Kxd8?? no — a classic back-rank: 1.Qxh7+ ... use a simple one.
    let (m, s) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", &Limits::depth(5));
    assert_eq!(m, "d1d8");
    assert_eq!(s, Some(Score::Mate(1)));
    // Being mated: the score says so.
    let (_, s) = best("7k/8/8/8/8/8/5q2/6rK w - - 0 1", &Limits::depth(3));
    assert!(matches!(s, Some(Score::Mate(0)) | None), "{s:?}");
}

#[test]
fn wins_material_and_avoids_blunders() {
    // Hanging queen.
    let (m, _) = best(
        "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 1 3",
        &Limits::depth(4),
    );
    assert_eq!(m, "c1g5");
    // Knight fork: Nc7+ wins the rook.
    let (m, _) = best("r3k3/8/8/3N4/8/8/8/4K3 w - - 0 1", &Limits::depth(5));
    assert_eq!(m, "d5c7");
}

#[test]
fn stalemate_and_checkmate_roots() {
    let mut e = BuiltinEngine::new();
    e.set_position(&pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), &[])
        .unwrap();
    let r = e.go(&Limits::depth(3), &mut |_| {}).unwrap();
    assert_eq!(r.best_move, None);
    assert_eq!(r.info.score, Some(Score::Cp(0)));
    e.set_position(
        &pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
        &[],
    )
    .unwrap();
    let r = e.go(&Limits::depth(3), &mut |_| {}).unwrap();
    assert_eq!(r.best_move, None);
    assert_eq!(r.info.score, Some(Score::Mate(0)));
}

#[test]
fn avoids_stalemating_when_winning() {
    // Qg6 stalemates; any sensible move keeps the win.
    let (m, s) = best("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1", &Limits::depth(6));
    assert_ne!(m, "g1g6");
    assert!(
        matches!(s, Some(Score::Mate(n)) if n > 0) || matches!(s, Some(Score::Cp(c)) if c > 500),
        "{s:?}"
    );
}

#[test]
fn respects_node_and_time_limits_and_stop() {
    let mut e = BuiltinEngine::new();
    e.set_position(&Chess::default(), &[]).unwrap();
    let r = e.go(&Limits::nodes(20_000), &mut |_| {}).unwrap();
    assert!(r.info.nodes.unwrap() <= 21_100, "{:?}", r.info.nodes);
    assert!(r.best_move.is_some());
    let started = Instant::now();
    let r = e
        .go(&Limits::movetime(Duration::from_millis(150)), &mut |_| {})
        .unwrap();
    assert!(started.elapsed() < Duration::from_millis(600));
    assert!(r.best_move.is_some());
    let stop = e.stop_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.stop();
    });
    let started = Instant::now();
    let r = e.go(&Limits::default(), &mut |_| {}).unwrap();
    t.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(r.best_move.is_some());
}

#[test]
fn reports_legal_pvs_and_increasing_depths() {
    let mut e = BuiltinEngine::new();
    let start = pos("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    e.set_position(&start, &[]).unwrap();
    let mut depths = Vec::new();
    e.go(&Limits::depth(6), &mut |i| {
        depths.push(i.depth.unwrap());
        let mut p = start.clone();
        for &m in &i.pv {
            assert!(p.is_legal(m));
            p.play_unchecked(m);
        }
        assert!(!i.pv.is_empty());
    })
    .unwrap();
    assert_eq!(depths, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn repetition_is_a_draw() {
    // White is a rook down but can give perpetual check.
    let (_, s) = best("6k1/5ppp/8/8/8/8/r4PPP/r3Q1K1 w - - 0 1", &Limits::depth(6));
    let _ = s;
    // Replaying moves that repeat the position: the engine knows the history.
    let mut e = BuiltinEngine::new();
    let start = Chess::default();
    let line: Vec<_> = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
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
    e.set_position(&start, &line).unwrap();
    let r = e.go(&Limits::depth(4), &mut |_| {}).unwrap();
    assert!(r.best_move.is_some());
}

#[test]
fn mate_limit_uses_the_exact_solver() {
    let mut e = BuiltinEngine::new();
    // Mate in 2: 1.Kc6 Kc8 2.Ra8#.
    e.set_position(&pos("1k6/8/1K6/8/8/8/8/R7 w - - 0 1"), &[])
        .unwrap();
    let r = e
        .go(
            &Limits {
                mate: Some(2),
                ..Limits::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(r.info.score, Some(Score::Mate(2)), "{:?}", r.info);
}

/// Issue 14's defect: WAC.011 under a 1 s movetime returned only after
/// minutes; it must now answer within its budget.
#[test]
fn wac_011_answers_within_its_movetime() {
    let mut e = BuiltinEngine::new();
    e.set_position(
        &pos("r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1"),
        &[],
    )
    .unwrap();
    let started = Instant::now();
    let r = e
        .go(&Limits::movetime(Duration::from_millis(1000)), &mut |_| {})
        .unwrap();
    let took = started.elapsed();
    assert!(r.best_move.is_some());
    assert!(took <= Duration::from_millis(1200), "{took:?}");
}

/// Every WAC position under `movetime 200`, two engines in parallel (as
/// `epd solve --jobs 2` runs them): each search returns within 400 ms of
/// wall time, measured around the call.
#[test]
fn every_wac_position_returns_within_twice_its_movetime() {
    let text = std::fs::read_to_string(gamerec_testkit::corpus("epd/arasan/wac.epd")).unwrap();
    let fens: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" ") + " 0 1")
        .collect();
    assert_eq!(fens.len(), 300);
    let movetime = Duration::from_millis(200);
    let slow: Vec<(String, Duration)> = std::thread::scope(|s| {
        let workers: Vec<_> = fens
            .chunks(fens.len() / 2)
            .map(|chunk| {
                s.spawn(move || {
                    let mut e = BuiltinEngine::new();
                    let mut slow = Vec::new();
                    let mut longest = Duration::ZERO;
                    for fen in chunk {
                        e.new_game().unwrap();
                        e.set_position(&pos(fen), &[]).unwrap();
                        let started = Instant::now();
                        let r = e.go(&Limits::movetime(movetime), &mut |_| {}).unwrap();
                        let took = started.elapsed();
                        assert!(r.best_move.is_some(), "{fen}");
                        longest = longest.max(took);
                        if took > 2 * movetime {
                            slow.push((fen.clone(), took));
                        }
                    }
                    eprintln!("longest search: {longest:?}");
                    slow
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(slow.is_empty(), "over 400 ms: {slow:?}");
}

/// A 60-move game at 2+0.05 (the engine playing both sides, each side's
/// clock kept from the wall time of its searches): no flag falls, and each
/// side uses between 20% and 95% of the time it was given (2 s plus 60
/// increments). About 60-65% with a core to itself; the wall time also
/// counts time a search waits for a core, and on a loaded machine
/// iterations overrun their predictions. It used 0.96 on CI before the
/// engine stopped starting iterations predicted to end after 1.5 x the
/// optimum (now 0.47-0.58 beside three busy loops on two cores). It runs
/// in the slow step, the only ignored test of its module, alone.
#[test]
#[ignore = "slow: timing: the clock share needs a core free of the binary's other searches"]
fn clock_games_use_a_sensible_share_of_the_clock() {
    use gamerec_engine::Clock;
    let base = Duration::from_secs(2);
    let inc = Duration::from_millis(50);
    let mut engines = [BuiltinEngine::new(), BuiltinEngine::new()];
    let mut clock = [base, base];
    let mut used = [Duration::ZERO; 2];
    let mut start = Chess::default();
    let mut moves = Vec::new();
    let mut turn = 0;
    let mut made = [0u32; 2];
    while made[1] < 60 {
        let mut p = start.clone();
        for &m in &moves {
            p.play_unchecked(m);
        }
        if p.is_game_over() || p.halfmoves() >= 100 {
            // Keep the clocks running in a fresh game.
            start = Chess::default();
            moves.clear();
            turn = 0;
            continue;
        }
        let limits = Limits {
            clock: Some(Clock {
                white: clock[0],
                black: clock[1],
                white_inc: inc,
                black_inc: inc,
                moves_to_go: None,
            }),
            ..Limits::default()
        };
        let e = &mut engines[turn];
        e.set_position(&start, &moves).unwrap();
        let started = Instant::now();
        let r = e.go(&limits, &mut |_| {}).unwrap();
        let took = started.elapsed();
        assert!(
            took < clock[turn],
            "side {turn} flagged on move {}: {took:?} of {:?}",
            made[turn] + 1,
            clock[turn]
        );
        clock[turn] = clock[turn] - took + inc;
        used[turn] += took;
        made[turn] += 1;
        moves.push(r.best_move.unwrap());
        turn = 1 - turn;
    }
    let given = base + inc * 60;
    for side in 0..2 {
        let share = used[side].as_secs_f64() / given.as_secs_f64();
        eprintln!(
            "side {side}: used {:?} of {given:?} ({share:.2})",
            used[side]
        );
        assert!(
            (0.2..=0.95).contains(&share),
            "side {side} used {used:?} of {given:?} ({share:.2})"
        );
    }
}

/// Every limit within a small overshoot, on a middlegame position: nodes
/// (polled every 256), movetime, a clock with one move to go (the engine
/// may use most but not all of it), and infinite search ended by `stop`.
#[test]
fn every_limit_is_honoured_within_a_small_overshoot() {
    use gamerec_engine::Clock;
    let middlegame = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
    let mut e = BuiltinEngine::new();
    e.set_position(&middlegame, &[]).unwrap();
    for nodes in [1_000, 50_000] {
        let r = e.go(&Limits::nodes(nodes), &mut |_| {}).unwrap();
        let searched = r.info.nodes.unwrap();
        assert!(searched <= nodes + 1_000, "{searched} nodes for {nodes}");
    }
    let started = Instant::now();
    e.go(&Limits::movetime(Duration::from_millis(100)), &mut |_| {})
        .unwrap();
    let took = started.elapsed();
    assert!(took <= Duration::from_millis(150), "movetime 100: {took:?}");
    let one_to_go = Limits {
        clock: Some(Clock {
            white: Duration::from_millis(600),
            black: Duration::from_millis(600),
            moves_to_go: Some(1),
            ..Clock::default()
        }),
        ..Limits::default()
    };
    let started = Instant::now();
    e.go(&one_to_go, &mut |_| {}).unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(600),
        "one move to go: {took:?}"
    );
    let stop = e.stop_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        let at = Instant::now();
        stop.stop();
        at
    });
    let r = e.go(&Limits::default(), &mut |_| {}).unwrap();
    let returned = Instant::now();
    let stopped_at = stopper.join().unwrap();
    assert!(r.best_move.is_some());
    assert!(
        returned >= stopped_at,
        "an infinite search ended before stop"
    );
    assert!(
        returned.duration_since(stopped_at) <= Duration::from_millis(50),
        "returned {:?} after stop",
        returned.duration_since(stopped_at)
    );
}
