//! Whole-file fixtures built by hand from the 1993 text, and round trips.

use proptest::prelude::*;
use shakmaty::{Chess, Position};

use super::*;
use crate::diag::Severity;
use crate::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove};
use crate::san::write_san;

/// Encodes a plain header the way the text's C program decodes it, backwards.
fn encode_header(plain: [u8; 14]) -> [u8; 14] {
    let mut h = plain;
    h[11] ^= 14u8.wrapping_add(h[4] & 63).wrapping_add(h[5] & 63);
    let mut k: u8 = 101;
    let mut i: i32 = 13;
    while i >= 0 {
        h[i as usize] ^= k;
        i -= 1;
        k = k.wrapping_mul(3);
    }
    h
}

/// The text's player/source loop.
fn encode_text(text: &[u8]) -> Vec<u8> {
    let mut t = text.to_vec();
    let l = t.len() as i32;
    let mut k = (3 * l) as u8;
    let mut i = l - 1;
    while i >= 0 {
        t[i as usize] ^= k;
        i -= 1;
        k = k.wrapping_mul(3);
    }
    t
}

/// The text's move loop (`s = mlen`).
fn encode_moves(moves: &[u8]) -> Vec<u8> {
    let mut m = moves.to_vec();
    let s = m.len() as i32 + 1;
    let mut k = (49 * s) as u8;
    let mut i = s - 2;
    while i > 0 {
        m[i as usize] ^= k;
        i -= 1;
        k = k.wrapping_mul(7);
    }
    m
}

fn game_bytes(
    plain: [u8; 14],
    players: &[u8],
    source: &[u8],
    moves: &[u8],
    comments: &[u8],
    setup: &[u8],
) -> Vec<u8> {
    let mut texts = players.to_vec();
    texts.extend_from_slice(source);
    let mut out = encode_header(plain).to_vec();
    out.extend(encode_text(&texts));
    out.extend(encode_moves(moves));
    out.extend_from_slice(comments);
    out.extend_from_slice(setup);
    out
}

/// The text's index example: 3 games of 48, 39 and 35 bytes.
const SPEC_INDEX: [u8; 20] = [
    0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 51, 0, 0, 0, 91, 0, 0, 0, 127,
];

fn three_games() -> Vec<u8> {
    // Game 1: 1993, 1-0, "Kasparov-Karpov", "Linares (3)",
    // 1.e4 e5 (1...c5 2.Nf3) 2.Nf3 Nc6 = 11 11 FF 7 25 80 24 6.
    let g1 = game_bytes(
        [93, 2, 0, 9, 15, 11, 0, 0, 0, 0, 0, 0, 2, 124],
        b"Kasparov-Karpov",
        b"Linares (3)",
        &[11, 11, 0xff, 7, 25, 0x80, 24, 6],
        &[],
        &[],
    );
    // Game 2: no year, draw, Elo 2700/2600, ECO D06 (ECO1 307: b10 bits 1-5 = 19,
    // b4 bits 6-7 = 1, b5 bits 6-7 = 2), 1.d4 (1.e4) 1...d5 2.c4 = 9 FF 11 80 9 13 (Nd2 is possible now).
    let g2 = game_bytes(
        [
            127,
            1,
            0,
            7,
            13 | 0x40,
            6 | 0x80,
            0,
            0,
            220,
            200,
            19 << 1,
            0,
            2,
            169,
        ],
        b"Tal-Petrosian",
        b"Moscow",
        &[9, 0xff, 11, 0x80, 9, 13],
        &[],
        &[],
    );
    // Game 3: 1985, variant result 1 (+-), marked, "X-Y", no source,
    // 1.e4 e5 2.Nf3 Nc6 with Nc6 commented: "!" and "good one".
    let mut area = vec![0xff, 1, 0, 0, 0];
    area.extend_from_slice(b"good one");
    area.push(0xff);
    let g3 = game_bytes(
        [85, 3 | (1 << 2), 0, 5, 3, 0, 0, 14, 0, 0, 0x40, 0, 2, 73],
        b"X-Y",
        b"",
        &[11, 11, 24, 6 | 0x80],
        &area,
        &[],
    );
    assert_eq!((g1.len(), g2.len(), g3.len()), (48, 39, 35));
    [g1, g2, g3].concat()
}

fn sans(game: &Game) -> Vec<String> {
    game.tree
        .preorder()
        .map(|id| game.tree.node(id).ply.as_ref().expect("ply").san.clone())
        .collect()
}

fn errors(issues: &[Issue]) -> Vec<&Issue> {
    issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .collect()
}

#[test]
fn spec_index_with_three_hand_built_games() {
    let cbf = three_games();
    let out = read_cbf(&SPEC_INDEX, &cbf);
    assert!(out.issues.is_empty(), "{:?}", out.issues);
    assert_eq!(out.games.len(), 3);

    let g1 = &out.games[0];
    assert_eq!(g1.tags.get("White"), Some("Kasparov"));
    assert_eq!(g1.tags.get("Black"), Some("Karpov"));
    assert_eq!(g1.tags.get("Event"), Some("Linares"));
    assert_eq!(g1.tags.get("Round"), Some("3"));
    assert_eq!(g1.tags.get("Date"), Some("1993.??.??"));
    assert_eq!(g1.tags.get("Result"), Some("1-0"));
    assert_eq!(g1.result, Some(GameResult::WhiteWins));
    assert_eq!(sans(g1), vec!["e4", "e5", "Nf3", "Nc6", "c5", "Nf3"]);
    assert_eq!(g1.tags.get("CBMagic"), None, "magic is the public checksum");

    let g2 = &out.games[1];
    assert_eq!(g2.tags.get("Date"), Some("????.??.??"));
    assert_eq!(g2.tags.get("Result"), Some("1/2-1/2"));
    assert_eq!(g2.tags.get("WhiteElo"), Some("2700"));
    assert_eq!(g2.tags.get("BlackElo"), Some("2600"));
    assert_eq!(g2.tags.get("ECO"), Some("D06"));
    assert_eq!(g2.tags.get("Event"), Some("Moscow"));
    assert_eq!(sans(g2), vec!["d4", "d5", "c4", "e4"]);

    let g3 = &out.games[2];
    assert_eq!(g3.tags.get("Result"), Some("1-0"), "+- is nearest to 1-0");
    assert_eq!(g3.tags.get("CBResult"), Some("7"));
    assert_eq!(g3.tags.get("CBMarked"), Some("1"));
    assert_eq!(g3.tags.get("Event"), Some("?"));
    let last = g3.tree.mainline().last().expect("moves");
    let node = g3.tree.node(last);
    assert_eq!(
        node.nags,
        vec![1, 18],
        "! from the comment, +- from the result"
    );
    assert_eq!(node.comments_after, vec![Comment::new("good one")]);

    // Writing the games back gives the very same bytes.
    let files = write_cbf(&out.games);
    assert!(files.issues.is_empty(), "{:?}", files.issues);
    assert_eq!(files.cbi, SPEC_INDEX.to_vec());
    assert_eq!(files.cbf, cbf);
}

#[test]
fn spec_start_position_game() {
    // The text's 33-byte example (next move is nr 55), then 1.a4 a5:
    // white: Ka1-b2 (1), a2-a4 (2); black: a7-a5 (1).
    let setup: [u8; 33] = [
        0x12, 0x54, 0x30, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x00, 0x00, 0x00, 0x9A, 0xDC,
        0xB0, 0x00, 54,
    ];
    let bytes = game_bytes(
        [127, 3, 0, 3, 0, 0, 0, 0, 0, 0, 1, 0, 1, 91],
        b"",
        b"",
        &[2, 1],
        &[],
        &setup,
    );
    let index = [0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 49 + 3];
    let out = read_cbf(&index, &bytes);
    assert!(out.issues.is_empty(), "{:?}", out.issues);
    let g = &out.games[0];
    assert_eq!(g.tags.get("SetUp"), Some("1"));
    assert_eq!(
        g.tags.get("FEN"),
        Some("kqrbn3/p7/8/8/8/8/P7/KQRBN3 w - - 0 55")
    );
    assert_eq!(g.result, Some(GameResult::Unknown));
    assert_eq!(sans(g), vec!["a4", "a5"]);
    let files = write_cbf(&out.games);
    assert!(files.issues.is_empty(), "{:?}", files.issues);
    assert_eq!(files.cbf, bytes);
    assert_eq!(files.cbi, index.to_vec());
}

#[test]
fn variant_results_map_to_the_nearest_result() {
    use reader::decode_result;
    assert_eq!(decode_result(0), (GameResult::BlackWins, None));
    assert_eq!(decode_result(1), (GameResult::Draw, None));
    assert_eq!(decode_result(2), (GameResult::WhiteWins, None));
    assert_eq!(decode_result(3), (GameResult::Unknown, None));
    assert_eq!(decode_result(3 | 1 << 2), (GameResult::WhiteWins, Some(1)));
    assert_eq!(decode_result(3 | 4 << 2), (GameResult::Draw, Some(4)));
    assert_eq!(decode_result(3 | 8 << 2), (GameResult::BlackWins, Some(8)));
    assert_eq!(decode_result(3 | 14 << 2), (GameResult::Unknown, Some(14)));
    assert_eq!(decode_result(3 | 5 << 2), (GameResult::Unknown, Some(5)));
}

#[test]
fn variant_result_without_moves_is_a_root_comment() {
    let bytes = game_bytes(
        [127, 3 | 14 << 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 91],
        b"",
        b"",
        &[],
        &[],
        &[],
    );
    let out = read_cbf(&[0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 17], &bytes);
    let g = &out.games[0];
    assert_eq!(
        g.tree.root().comments_before,
        vec![Comment::new("result time trouble")]
    );
    let files = write_cbf(&out.games);
    assert!(files.issues.is_empty(), "{:?}", files.issues);
    assert_eq!(files.cbf, bytes);
}

#[test]
fn evaluations_without_a_nag_survive_as_a_command() {
    // 1.e4 commented: move evaluation 7 (mate), extra evaluation 5 (better).
    let area = [0xff, 7, 0, 5, 0xff];
    let bytes = game_bytes(
        [127, 3, 0, 2, 0, 0, 0, 5, 0, 0, 0, 0, 1, 91],
        b"",
        b"",
        &[11 | 0x80],
        &area,
        &[],
    );
    let out = read_cbf(&[0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 23], &bytes);
    assert!(out.issues.is_empty(), "{:?}", out.issues);
    let g = &out.games[0];
    let e4 = g.tree.root().children()[0];
    assert_eq!(g.tree.node(e4).nags, vec![142]);
    assert_eq!(
        g.tree.node(e4).comments_after,
        vec![Comment::new("[%cbeval 7 0 5]")]
    );
    assert_eq!(write_cbf(&out.games).cbf, bytes);
}

/// An index of `entries` game offsets (and the file's end `free`).
fn index_of(entries: &[u32], free: u32) -> Vec<u8> {
    let mut cbi = (entries.len() as u32 + 1).to_be_bytes().to_vec();
    for (j, &offset) in entries.iter().chain([&free]).enumerate() {
        cbi.extend_from_slice(&(offset + j as u32 + 2).to_be_bytes());
    }
    cbi
}

/// An index listing one game many times reads it again only while the
/// bytes read again stay within the game file's size: the work is linear
/// in the two files, not their product (a 800-byte index listing a 60 KB
/// game 200 times took 27 s to check, a 4 MB one would take days).
#[test]
fn an_index_repeating_a_game_reads_it_again_only_up_to_the_file_size() {
    let files = write_cbf(&[random_game(7, 80, false)]);
    let len = files.cbf.len() as u32;
    let n = 1000;
    let out = read_cbf(&index_of(&vec![0; n], len), &files.cbf);
    assert_eq!(out.games.len(), 2, "{:?}", &out.issues[..3]);
    let errors = errors(&out.issues);
    assert_eq!(errors.len(), n - 2);
    assert!(
        errors[0].message.contains("overlaps games already read")
            && errors[0].file == FileKind::Index
            && errors[0].offset == 12
            && errors[0].game == Some(3),
        "{:?}",
        errors[0]
    );
    // Games one after another are read however many; a game listed twice
    // among them (once) too.
    let two = write_cbf(&[random_game(1, 30, false), random_game(2, 30, false)]);
    let index = index::read_index(&two.cbi).0;
    let (a, b) = (index.offsets[0], index.offsets[1]);
    let out = read_cbf(&index_of(&[a, b, a], index.free), &two.cbf);
    assert_eq!((out.games.len(), errors_of(&out)), (3, 0));
}

fn errors_of(out: &ReadOutcome) -> usize {
    errors(&out.issues).len()
}

#[test]
fn malformed_games_are_errors_not_panics() {
    let cbf = three_games();
    // Index pointing past the end, a truncated game, an illegal move number.
    let out = read_cbf(&[0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 1, 1], &cbf);
    assert_eq!(out.games.len(), 0);
    assert_eq!(errors(&out.issues).len(), 1);
    let out = read_cbf(&SPEC_INDEX, &cbf[..100]);
    assert_eq!(out.games.len(), 2);
    assert!(out.has_errors());
    let bad = game_bytes(
        [127, 3, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 75],
        b"",
        b"",
        &[99],
        &[],
        &[],
    );
    let out = read_cbf(&[0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 20], &bad);
    assert_eq!(out.games.len(), 1, "the game is kept up to the bad move");
    assert!(errors(&out.issues)[0].message.contains("move number 99"));
}

/// A random game: legal playouts with variations, NAGs and comments.
pub(crate) fn random_game(seed: u64, plies: usize, comments: bool) -> Game {
    let mut state = seed | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let mut game = Game::new();
    for (name, value) in [
        ("Event", "Random"),
        ("Site", "?"),
        ("Date", "2001.??.??"),
        ("Round", "4"),
        ("White", "White, A"),
        ("Black", "Black, B"),
        ("Result", "*"),
    ] {
        game.tags.push(name, value);
    }
    game.result = Some(GameResult::Unknown);
    // (parent node, position, remaining plies)
    let mut work: Vec<(NodeId, Chess, usize, usize)> =
        vec![(NodeId::ROOT, Chess::default(), plies, 0)];
    while let Some((parent, pos, left, depth)) = work.pop() {
        if left == 0 {
            continue;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            continue;
        }
        let mv = moves[next(moves.len())];
        let san = write_san(&pos, PlyMove::Move(mv));
        let id = game.tree.add_child(
            parent,
            Ply {
                mv: PlyMove::Move(mv),
                san,
                written: None,
            },
        );
        if comments {
            match next(10) {
                0 => game
                    .tree
                    .node_mut(id)
                    .nags
                    .push([1, 2, 3, 4, 5, 6][next(6)]),
                1 => game.tree.node_mut(id).nags.extend([140, 18]),
                2 => game
                    .tree
                    .node_mut(id)
                    .comments_after
                    .push(Comment::new("a comment")),
                _ => {}
            }
        }
        let mut after = pos.clone();
        after.play_unchecked(mv);
        work.push((id, after, left - 1, depth));
        if depth < 3 && next(8) == 0 {
            work.push((parent, pos, 1 + next(6), depth + 1));
        }
    }
    game
}

/// What a CBF round trip must keep: moves in tree order, NAGs, comments.
fn shape(game: &Game) -> Vec<(String, Vec<u8>, Vec<String>, usize)> {
    game.tree
        .preorder()
        .map(|id| {
            let n = game.tree.node(id);
            (
                n.ply.as_ref().expect("ply").san.clone(),
                n.nags.clone(),
                n.comments_after.iter().map(|c| c.text.clone()).collect(),
                n.children().len(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_round_trip_through_cbf(seed in any::<u64>(), plies in 0usize..120) {
        let game = random_game(seed, plies, true);
        let files = write_cbf(std::slice::from_ref(&game));
        prop_assert!(errors(&files.issues).is_empty(), "{:?}", files.issues);
        let out = read_cbf(&files.cbi, &files.cbf);
        prop_assert!(out.issues.is_empty(), "{:?}", out.issues);
        prop_assert_eq!(out.games.len(), 1);
        let back = &out.games[0];
        prop_assert_eq!(shape(back), shape(&game));
        for name in ["Event", "Round", "White", "Black", "Result", "Date"] {
            prop_assert_eq!(back.tags.get(name), game.tags.get(name));
        }
        // and the bytes are stable
        prop_assert_eq!(write_cbf(&out.games).cbf, files.cbf);
    }

    #[test]
    fn readers_never_panic_on_garbage(cbi in proptest::collection::vec(any::<u8>(), 0..40),
                                      cbf in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_cbf(&cbi, &cbf);
        let _ = read_fbk(&cbf);
        // a valid index over garbage games
        let _ = read_cbf(&[0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2], &cbf);
    }
}

#[test]
fn writer_reports_what_does_not_fit() {
    let mut game = random_game(7, 0, false);
    game.tags.set("White", "W".repeat(70));
    game.tags.set("Site", "Somewhere");
    game.tags.push("TimeControl", "60+0");
    game.tags.set("Date", "2030.01.02");
    let mut pos = Chess::default();
    let mut parent = NodeId::ROOT;
    // 260 half-moves of knight shuffles.
    for i in 0..260 {
        let uci = ["g1f3", "g8f6", "f3g1", "f6g8"][i % 4];
        let mv = uci
            .parse::<shakmaty::uci::UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        let san = write_san(&pos, PlyMove::Move(mv));
        parent = game.tree.add_child(
            parent,
            Ply {
                mv: PlyMove::Move(mv),
                san,
                written: None,
            },
        );
        pos.play_unchecked(mv);
    }
    game.tree.node_mut(parent).nags.push(11);
    let files = write_cbf(&[game]);
    let text: Vec<String> = files.issues.iter().map(|i| i.message.clone()).collect();
    let has = |s: &str| text.iter().any(|t| t.contains(s));
    assert!(has("260 half-moves"), "{text:?}");
    assert!(has("cut to 63"), "{text:?}");
    assert!(has("NAG $11"), "{text:?}");
    assert!(has("Site"), "{text:?}");
    assert!(has("TimeControl"), "{text:?}");
    assert!(has("year 2030"), "{text:?}");
    assert!(files.issues.iter().all(|i| i.game == Some(1)));
    assert_eq!(files.written, 1, "written, with warnings, not cut");
    let out = read_cbf(&files.cbi, &files.cbf);
    assert_eq!(out.games[0].tree.mainline_len(), 260);
}

#[test]
fn null_moves_are_an_error_for_the_game() {
    let mut game = Game::new();
    game.tree.add_child(
        NodeId::ROOT,
        Ply {
            mv: PlyMove::Null,
            san: "--".into(),
            written: None,
        },
    );
    let files = write_cbf(&[game, random_game(3, 10, false)]);
    assert_eq!(files.written, 1);
    assert_eq!(errors(&files.issues).len(), 1);
    assert_eq!(errors(&files.issues)[0].game, Some(1));
    assert_eq!(read_cbf(&files.cbi, &files.cbf).games.len(), 1);
}
