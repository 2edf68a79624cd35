//! `sgf::score` against GNU Go's `final_score` on games GNU Go finishes
//! itself (Debian `gnugo`; skipped when missing unless
//! GAMEREC_REQUIRE_PEERS=1): both players pass, GNU Go's dead stones and
//! stones in seki (`final_status_list dead`, `seki`) go to our count, and
//! our margin must be its margin, by area (`--chinese-rules`) and by
//! territory (its default). One difference is known: GNU Go counts an eye
//! in seki as dame by area too, where Chinese rules (and Tromp-Taylor, and
//! `sgf::score`) give it to its owner.

use std::time::Duration;

use gamerec::sgf::go::Board;
use gamerec::sgf::score::{Method, score_with_dead, score_with_status};
use gamerec::sgf::{Color, Point};
use gamerec_engine::EngineCommand;
use gamerec_engine::gtp::{GoEngine, GoGameSetup, GoMove, GtpEngine, GtpOptions, parse_score};

fn gnugo(chinese: bool) -> Option<GtpEngine> {
    let path = gamerec_testkit::peer("gnugo")?;
    let mut cmd = EngineCommand::program(path);
    let mut args = vec!["--mode", "gtp", "--level", "1"];
    if chinese {
        args.push("--chinese-rules");
    }
    cmd.args = args.iter().map(Into::into).collect();
    Some(GtpEngine::start(&cmd, &GtpOptions::default()).expect("gnugo starts"))
}

/// Plays `opening`, then lets GNU Go play both sides until two passes (or a
/// resignation, or 250 moves); returns our board, whether it ended by
/// passes and the moves (`B c3 W pass ...`: GNU Go's games differ from run
/// to run, so a failure must say which game it was). Every move is played
/// on our board too and must be legal there.
fn finish(e: &mut GtpEngine, size: u32, komi: f64, opening: &[(u8, u8)]) -> (Board, bool, String) {
    e.new_game(&GoGameSetup {
        size,
        komi,
        black_stones: vec![],
        white_stones: vec![],
        rules: None,
    })
    .unwrap();
    let mut board = Board::new(size, size);
    let mut color = Color::Black;
    let mut moves = String::new();
    for &(x, y) in opening {
        let pt = Point::new(x, y);
        moves += &format!("{} {pt} ", color.letter());
        assert_eq!(board.check(color, pt), Ok(()));
        board.play(color, Some(pt));
        e.play(color, Some(pt)).unwrap();
        color = color.opponent();
    }
    let mut passes = 0;
    for _ in 0..250 {
        match e.genmove(color, Some(Duration::from_secs(60))).unwrap() {
            GoMove::Play(pt) => {
                moves += &format!("{} {pt} ", color.letter());
                assert_eq!(board.check(color, pt), Ok(()), "{pt} after {moves}");
                board.play(color, Some(pt));
                passes = 0;
            }
            GoMove::Pass => {
                moves += &format!("{} pass ", color.letter());
                board.play(color, None);
                passes += 1;
                if passes == 2 {
                    return (board, true, moves);
                }
            }
            GoMove::Resign => return (board, false, moves),
        }
        color = color.opponent();
    }
    (board, false, moves)
}

fn compare(chinese: bool) {
    let Some(mut e) = gnugo(chinese) else { return };
    let method = if chinese {
        Method::Area
    } else {
        Method::Territory
    };
    // Board size, komi, opening moves (then GNU Go plays both sides).
    type Opening = (u32, f64, &'static [(u8, u8)]);
    let openings: [Opening; 3] = [
        (9, 7.5, &[]),
        (9, 0.5, &[(2, 2), (6, 6), (6, 2)]),
        (7, 6.5, &[(3, 3), (2, 4)]),
    ];
    let mut finished = 0;
    for (size, komi, opening) in openings {
        let (board, by_passes, moves) = finish(&mut e, size, komi, opening);
        if !by_passes {
            continue;
        }
        finished += 1;
        let dead = e.dead_stones().unwrap().expect("gnugo lists dead stones");
        let seki = e
            .seki_stones()
            .unwrap()
            .expect("gnugo lists stones in seki");
        let ours = score_with_status(&board, &dead, &seki, method, komi);
        // Eyes in seki (territory without the seki list, less with it):
        // GNU Go's area count leaves them out.
        let all = score_with_dead(&board, &dead, Method::Territory, komi).territory;
        let without_eyes =
            score_with_status(&board, &dead, &seki, Method::Territory, komi).territory;
        let eye_margin = f64::from(all[0] - without_eyes[0]) - f64::from(all[1] - without_eyes[1]);
        let expected = match method {
            Method::Area => ours.margin() - eye_margin,
            Method::Territory => ours.margin(),
        };
        let text = e.final_score().unwrap().expect("gnugo scores");
        let theirs = parse_score(&text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            expected, theirs,
            "{size}x{size} komi {komi} {method:?}: ours {ours:?} (seki eyes {eye_margin}), GNU Go {text}, dead {dead:?}, seki {seki:?}, moves {moves}"
        );
    }
    assert!(finished >= 2, "only {finished} games ended by passes");
    e.quit().unwrap();
}

#[test]
fn area_score_is_gnugo_final_score_with_chinese_rules() {
    compare(true);
}

#[test]
fn territory_score_is_gnugo_final_score_with_japanese_rules() {
    compare(false);
}
