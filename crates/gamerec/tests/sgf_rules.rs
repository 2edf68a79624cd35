//! Go rules from `RU`: suicide, simple ko, positional and situational
//! superko on known positions, per rule set.

use gamerec::sgf::{self, Color, ParseOptions, Point, replay};

/// The rule errors (messages) and warnings of the only game of `src`.
fn check(src: &str) -> (Vec<String>, Vec<String>) {
    let p = sgf::parse(src.as_bytes(), &ParseOptions::default());
    let c = &p.collection;
    let (mut errors, mut notes) = (Vec::new(), Vec::new());
    for e in replay::check_game(c, c.roots[0], 1) {
        let m = format!("{}: {}", e.path, e.message);
        if e.warning {
            notes.push(m);
        } else {
            errors.push(m);
        }
    }
    (errors, notes)
}

/// A two-stone suicide: White fills its own last liberty in the corner.
const SUICIDE: &str = "AB[ca][bb][ab]AW[aa];W[ba]";

#[test]
fn multi_stone_suicide_is_legal_only_where_the_rules_allow_it() {
    for ru in [
        "Japanese",
        "Korean",
        "Chinese",
        "AGA",
        "",
        "koSIMPLEscoreTERRITORYtaxSEKIsui0",
    ] {
        let (errors, _) = check(&format!("(;GM[1]SZ[5]RU[{ru}]{SUICIDE})"));
        assert_eq!(errors.len(), 1, "{ru}: {errors:?}");
        assert!(errors[0].contains("it is suicide"), "{ru}: {errors:?}");
    }
    for ru in [
        "NZ",
        "Tromp-Taylor",
        "GOE",
        "Ing",
        "koPOSITIONALscoreAREAtaxNONEsui1",
    ] {
        let (errors, notes) = check(&format!("(;GM[1]SZ[5]RU[{ru}]{SUICIDE})"));
        assert!(errors.is_empty(), "{ru}: {errors:?}");
        assert!(notes.is_empty(), "{ru}: {notes:?}");
    }
    // The suicided stones are gone and count as Black's prisoners.
    let p = sgf::parse(
        format!("(;GM[1]SZ[5]RU[NZ]{SUICIDE})").as_bytes(),
        &ParseOptions::default(),
    );
    let c = &p.collection;
    let (state, _) = replay::play_to(c, *c.main_line(c.roots[0]).last().unwrap()).unwrap();
    let replay::Position::Go(b) = &state.position else {
        panic!()
    };
    assert_eq!(b.get(Point::new(0, 0)), None);
    assert_eq!(b.get(Point::new(1, 0)), None);
    assert_eq!(b.captures(Color::Black), 2);
}

/// Two kos on a 9x3 board (ko 1 on the left, Black to capture; ko 2 on
/// the right, White to capture), and a cycle: B takes ko 1, W takes ko 2,
/// B passes, W retakes ko 1, B retakes ko 2 (the board after setup again,
/// but White to move: a positional repetition only), W passes, B takes
/// ko 1 (the position after move 1 with White to move again: a
/// situational repetition too). No move retakes a ko at once, so simple
/// ko forbids none of them.
const DOUBLE_KO: &str = "AB[ba][ab][bc][ha][gb][ib][hc]AW[ca][bb][db][cc][ga][fb][gc]\
                         ;B[cb];W[hb];B[];W[bb];B[gb];W[];B[cb]";

#[test]
fn superko_positional_and_situational_on_a_double_ko_cycle() {
    for ru in ["Japanese", "Korean", ""] {
        let (errors, _) = check(&format!("(;GM[1]SZ[9:3]RU[{ru}]{DOUBLE_KO})"));
        assert!(errors.is_empty(), "{ru}: {errors:?}");
    }
    for ru in [
        "Chinese",
        "Tromp-Taylor",
        "koPOSITIONALscoreAREAtaxNONEsui1",
    ] {
        let (errors, _) = check(&format!("(;GM[1]SZ[9:3]RU[{ru}]{DOUBLE_KO})"));
        assert_eq!(errors.len(), 2, "{ru}: {errors:?}");
        assert!(errors[0].contains("main line move 5"), "{ru}: {errors:?}");
        assert!(
            errors[0]
                .contains("illegal move B[gb]: it repeats an earlier position (positional superko"),
            "{ru}: {errors:?}"
        );
        assert!(errors[1].contains("main line move 7"), "{ru}: {errors:?}");
    }
    for ru in ["AGA", "NZ", "GOE", "koSITUATIONALscoreAREAtaxNONEsui0"] {
        let (errors, _) = check(&format!("(;GM[1]SZ[9:3]RU[{ru}]{DOUBLE_KO})"));
        assert_eq!(errors.len(), 1, "{ru}: {errors:?}");
        assert!(errors[0].contains("main line move 7"), "{ru}: {errors:?}");
        assert!(
            errors[0].contains(
                "illegal move B[cb]: it repeats an earlier position (situational superko"
            ),
            "{ru}: {errors:?}"
        );
    }
}

#[test]
fn simple_ko_is_forbidden_under_every_rule_set() {
    // Ko 1 of the double ko: B takes, W retakes at once.
    for ru in ["Japanese", "Chinese", "AGA", "NZ", "Tromp-Taylor", "GOE"] {
        let (errors, _) = check(&format!(
            "(;GM[1]SZ[9:3]RU[{ru}]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[bb])"
        ));
        assert_eq!(errors.len(), 1, "{ru}: {errors:?}");
        assert!(errors[0].contains("illegal move W[bb]"), "{ru}: {errors:?}");
    }
}

#[test]
fn unknown_rules_fall_back_to_ff4_defaults_with_a_note() {
    let (errors, notes) = check(&format!("(;GM[1]SZ[5]RU[Moon rules]{SUICIDE})"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("it is suicide"));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("unknown rules RU[Moon rules]: FF[4] defaults used"),
        "{notes:?}"
    );
    // Variations start from the same history: a repetition is only one
    // within a line.
    let (errors, _) = check(
        "(;GM[1]SZ[9:3]RU[Chinese]AB[ba][ab][bc]AW[ca][bb][db][cc](;B[cb];W[ia])(;B[cb];W[ia]))",
    );
    assert!(errors.is_empty(), "{errors:?}");
}

/// A long random game on a small board (captures, refilled regions): the
/// hashed superko check must flag exactly the moves after which the whole
/// board repeats an earlier one, as an exact comparison of boards finds.
#[test]
fn positional_superko_on_a_long_game_matches_exact_board_comparison() {
    use gamerec::sgf::go::Board;
    use std::collections::HashSet;
    let size = 5u32;
    let mut board = Board::new(size, size);
    let mut seen: HashSet<Vec<Option<Color>>> = HashSet::new();
    let snapshot = |b: &Board| -> Vec<Option<Color>> {
        (0..size * size)
            .map(|i| b.get(Point::new((i % size) as u8, (i / size) as u8)))
            .collect()
    };
    seen.insert(snapshot(&board));
    let mut sgf = String::from("(;FF[4]GM[1]SZ[5]RU[Tromp-Taylor]");
    let mut expected = Vec::new();
    let mut color = Color::Black;
    let mut rng: u64 = 0x2545_f491_4f6c_dd1d;
    let mut moves = 0;
    let own_eye = |b: &Board, p: Point, c: Color| {
        let (x, y) = (i32::from(p.x), i32::from(p.y));
        [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
            .into_iter()
            .filter(|&(a, b)| a >= 0 && b >= 0 && a < size as i32 && b < size as i32)
            .all(|(a, b2)| b.get(Point::new(a as u8, b2 as u8)) == Some(c))
    };
    let mut plies = 0;
    let mut passes = 0;
    while moves < 3000 && plies < 20_000 {
        plies += 1;
        // Legal by simple ko, not suicide, not an own eye; random otherwise.
        let mut candidates: Vec<Point> = (0..size * size)
            .map(|i| Point::new((i % size) as u8, (i / size) as u8))
            .filter(|&p| board.check(color, p).is_ok() && !own_eye(&board, p, color))
            .collect();
        if candidates.is_empty() {
            // Filling its own eyes keeps the game going (groups die).
            candidates = (0..size * size)
                .map(|i| Point::new((i % size) as u8, (i / size) as u8))
                .filter(|&p| board.check(color, p).is_ok())
                .collect();
        }
        if candidates.is_empty() {
            board.play(color, None);
            sgf.push_str(&format!(";{}[]", color.letter()));
            color = color.opponent();
            passes += 1;
            continue;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let pt = candidates.swap_remove((rng % candidates.len() as u64) as usize);
        board.play(color, Some(pt));
        moves += 1;
        if !seen.insert(snapshot(&board)) {
            expected.push(plies);
        }
        sgf.push_str(&format!(";{}[{pt}]", color.letter()));
        color = color.opponent();
    }
    sgf.push(')');
    assert!(moves > 2000, "{moves} moves, {passes} passes");
    assert!(
        expected.len() >= 3,
        "the game repeats too little: {expected:?}"
    );
    let (errors, _) = check(&sgf);
    let found: Vec<usize> = errors
        .iter()
        .map(|e| {
            assert!(e.contains("positional superko"), "{e}");
            let n = e.split("main line move ").nth(1).unwrap();
            n.split(':').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(found, expected);
}
