//! GTP driver tests: against GNU Go (Debian `gnugo`; skipped when missing
//! unless GAMEREC_REQUIRE_PEERS=1) and against misbehaving fake engines.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gamerec::sgf::go::Board;
use gamerec::sgf::{Color, Point};
use gamerec_engine::EngineCommand;
use gamerec_engine::EngineError;
use gamerec_engine::gtp::{
    GoEngine, GoGameSetup, GoMove, GoTime, GtpEngine, GtpOptions, parse_score, vertex,
};

fn gnugo() -> Option<GtpEngine> {
    let path = gamerec_testkit::peer("gnugo")?;
    let mut cmd = EngineCommand::program(path);
    cmd.args = ["--mode", "gtp", "--level", "1"]
        .iter()
        .map(Into::into)
        .collect();
    Some(GtpEngine::start(&cmd, &GtpOptions::default()).expect("gnugo starts"))
}

fn setup(size: u32, komi: f64) -> GoGameSetup {
    GoGameSetup {
        size,
        komi,
        black_stones: vec![],
        white_stones: vec![],
        rules: Some("Chinese".into()),
    }
}

fn p(v: &str, size: u32) -> Point {
    gamerec_engine::gtp::parse_vertex(v, size).unwrap().unwrap()
}

#[test]
fn gnugo_plays_legal_moves_and_counts() {
    let Some(mut e) = gnugo() else { return };
    assert!(e.name().contains("GNU Go"), "{}", e.name());
    assert!(e.knows("final_status_list") && e.knows("time_left"));
    e.new_game(&setup(9, 6.5)).unwrap();
    assert_eq!(e.command("query_boardsize").unwrap().trim(), "9");
    assert_eq!(e.command("get_komi").unwrap().trim(), "6.5");
    e.time_settings(&GoTime {
        main: Duration::from_secs(60),
        byo_yomi: Duration::from_secs(5),
        stones: 5,
        periods: 0,
    })
    .unwrap();
    e.time_left(Color::Black, Duration::from_secs(60), 0)
        .unwrap();
    // A few moves each way, every one legal on our own board.
    let mut board = Board::new(9, 9);
    let mut color = Color::Black;
    for _ in 0..10 {
        match e.genmove(color, Some(Duration::from_secs(30))).unwrap() {
            GoMove::Play(pt) => {
                assert_eq!(board.check(color, pt), Ok(()));
                board.play(color, Some(pt));
            }
            GoMove::Pass => board.play(color, None).illegal.map_or((), |_| ()),
            GoMove::Resign => panic!("resigned at once"),
        }
        color = color.opponent();
    }
    // The engine's board is ours: every stone of ours is in its list.
    let stones = e.command("list_stones black").unwrap();
    let listed: Vec<Point> = stones.split_whitespace().map(|v| p(v, 9)).collect();
    assert_eq!(listed.len(), board.count(Color::Black));
    for pt in listed {
        assert_eq!(board.get(pt), Some(Color::Black));
    }
    // A refused command is an error naming it, and the engine goes on.
    let err = e.command("play b Z99").unwrap_err();
    assert!(err.to_string().contains("play b Z99"), "{err}");
    assert_eq!(e.command("protocol_version").unwrap().trim(), "2");
    e.quit().unwrap();
}

/// A finished position: a Black group with one eye inside White's area is
/// dead, and GNU Go says so and counts it.
#[test]
fn gnugo_dead_stones_and_final_score() {
    let Some(mut e) = gnugo() else { return };
    // Black owns the left side, White the right, a lone Black stone in
    // White's area is dead.
    let mut s = setup(9, 0.5);
    for y in 0..9 {
        s.black_stones.push(Point::new(3, y));
        s.white_stones.push(Point::new(5, y));
    }
    s.black_stones.push(Point::new(7, 4));
    e.new_game(&s).unwrap();
    let dead = e.dead_stones().unwrap().expect("gnugo lists dead stones");
    assert_eq!(dead, vec![Point::new(7, 4)]);
    // GNU Go counts territory (Japanese) by default: Black 3 columns (27);
    // White 3 columns (27, the dead stone's point included) + 1 prisoner
    // + komi 0.5; the column between is dame: W+1.5.
    let score = e.final_score().unwrap().unwrap();
    assert_eq!(parse_score(&score), Some(-1.5), "{score}");
    let eval = e
        .evaluate(Color::Black, Duration::from_secs(10))
        .unwrap()
        .unwrap();
    assert_eq!(eval.source, "estimate_score");
    assert!(eval.black_lead.is_some_and(|l| l.abs() < 5.0), "{eval:?}");
    e.quit().unwrap();
}

#[test]
fn gnugo_takes_handicap_stones() {
    let Some(mut e) = gnugo() else { return };
    let mut s = setup(9, 0.5);
    s.black_stones = gamerec::sgf::go::handicap_points(9, 4).unwrap();
    e.new_game(&s).unwrap();
    let listed = e.command("list_stones black").unwrap();
    let mut got: Vec<String> = listed.split_whitespace().map(str::to_owned).collect();
    got.sort();
    let mut want: Vec<String> = s
        .black_stones
        .iter()
        .map(|&pt| vertex(pt, 9).unwrap())
        .collect();
    want.sort();
    assert_eq!(got, want);
    // White moves first after a handicap.
    assert!(matches!(
        e.genmove(Color::White, None).unwrap(),
        GoMove::Play(_) | GoMove::Pass
    ));
    e.quit().unwrap();
}

// ---- misbehaving engines -------------------------------------------------

fn script(name: &str, body: &str) -> PathBuf {
    let dir = gamerec_testkit::temp_dir("gtp-tests");
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

fn fast() -> GtpOptions {
    GtpOptions {
        init: vec![],
        timeout: Some(Duration::from_millis(500)),
    }
}

/// A fake engine: answers with `case` arms given, `=` to everything else.
fn fake(name: &str, arms: &str) -> PathBuf {
    script(
        name,
        &format!(
            "while read -r cmd rest; do\n case \"$cmd\" in\n  protocol_version) printf '= 2\\n\\n';;\n  \
             list_commands) printf '= protocol_version\\nname\\nboardsize\\nclear_board\\nkomi\\nplay\\ngenmove\\nlz-analyze\\nquit\\n\\n';;\n  \
             name) printf '= Fake\\n\\n';;\n{arms}\n  quit) printf '=\\n\\n'; exit 0;;\n  *) printf '=\\n\\n';;\n esac\ndone"
        ),
    )
}

#[test]
fn silent_engine_times_out_and_is_killed() {
    let path = script("silent.sh", "exec sleep 600");
    let started = Instant::now();
    let err = GtpEngine::start(&EngineCommand::program(&path), &fast())
        .err()
        .expect("must fail");
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn wrong_protocol_version_is_refused() {
    let path = script(
        "v1.sh",
        "while read -r cmd rest; do printf '= 1\\n\\n'; done",
    );
    let err = GtpEngine::start(&EngineCommand::program(&path), &fast())
        .err()
        .expect("must fail");
    assert!(err.to_string().contains("version"), "{err}");
}

#[test]
fn garbage_moves_ids_and_crashes_are_reported() {
    let path = fake(
        "garbage.sh",
        "  genmove) printf '=7 K99\\n\\n';;\n  komi) printf '=3\\n\\n';;",
    );
    let mut e = GtpEngine::start(&EngineCommand::program(&path), &fast()).unwrap();
    assert_eq!(e.name(), "Fake");
    e.new_game(&setup(9, 7.5)).unwrap();
    let err = e.genmove(Color::Black, None).unwrap_err();
    assert!(
        matches!(err, EngineError::Protocol(_)) && err.to_string().contains("K99"),
        "{err}"
    );
    // A stalled genmove ends at its limit.
    let path = fake("stall.sh", "  genmove) sleep 600;;");
    let mut e = GtpEngine::start(&EngineCommand::program(&path), &fast()).unwrap();
    e.new_game(&setup(9, 7.5)).unwrap();
    let started = Instant::now();
    let err = e
        .genmove(Color::Black, Some(Duration::from_millis(300)))
        .unwrap_err();
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // An engine that dies mid-game.
    let path = fake("dies.sh", "  genmove) echo 'bye' >&2; exit 3;;");
    let mut e = GtpEngine::start(&EngineCommand::program(&path), &fast()).unwrap();
    e.new_game(&setup(9, 7.5)).unwrap();
    let err = e.genmove(Color::White, None).unwrap_err();
    assert!(matches!(err, EngineError::Died { .. }), "{err}");
    assert!(err.to_string().contains("bye"), "{err}");
}

#[test]
fn lz_analyze_gives_winrate_and_best_move() {
    let path = fake(
        "lz.sh",
        "  lz-analyze) printf '=\\ninfo move D5 visits 12 winrate 6000 prior 100 order 0 pv D5 E5 info move E5 visits 3 winrate 4000 order 1 pv E5\\n';;",
    );
    let mut e = GtpEngine::start(&EngineCommand::program(&path), &fast()).unwrap();
    e.new_game(&setup(9, 7.5)).unwrap();
    let eval = e
        .evaluate(Color::White, Duration::from_millis(200))
        .unwrap()
        .unwrap();
    assert_eq!(eval.source, "lz-analyze");
    // 60 % for White, the mover.
    assert!((eval.black_winrate.unwrap() - 0.4).abs() < 1e-9, "{eval:?}");
    assert_eq!(eval.best, Some(GoMove::Play(p("D5", 9))));
    // The engine answers normally afterwards.
    assert_eq!(e.command("protocol_version").unwrap().trim(), "2");
}
