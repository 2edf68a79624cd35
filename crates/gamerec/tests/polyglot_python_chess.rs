//! Polyglot keys against python-chess (`chess.polyglot.zobrist_hash`) on
//! positions reached by random legal moves: castling rights lost, en
//! passant squares with and without a capturing pawn, promotions.

use gamerec::polyglot::key;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

#[test]
fn keys_equal_python_chess_on_random_positions() {
    let Some(python) = gamerec_testkit::python_chess() else {
        return;
    };
    // A fixed linear congruential walk: 60 games of up to 80 plies.
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n
    };
    let mut positions = Vec::new();
    for _ in 0..60 {
        let mut pos = Chess::default();
        for _ in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer double pawn pushes now and then, for en passant keys.
            let pick = moves
                .iter()
                .find(|m| {
                    m.role() == shakmaty::Role::Pawn
                        && m.from().is_some_and(|f| f.distance(m.to()) == 2)
                        && next(3) == 0
                })
                .copied()
                .unwrap_or_else(|| moves[next(moves.len())]);
            pos.play_unchecked(pick);
            positions.push(pos.clone());
        }
    }
    let fens: String = positions
        .iter()
        .map(|p| Fen::from_position(p, EnPassantMode::Always).to_string() + "\n")
        .collect();
    let script = "import sys, chess, chess.polyglot\n\
        for line in sys.stdin:\n    \
        print('%016x' % chess.polyglot.zobrist_hash(chess.Board(line.strip())))\n";
    let out = gamerec_testkit::run(&python, &["-c", script], fens.as_bytes());
    gamerec_testkit::assert_success(&out, "python-chess");
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(theirs.len(), positions.len());
    let with_ep = positions
        .iter()
        .filter(|p| p.ep_square(EnPassantMode::Always).is_some())
        .count();
    assert!(
        with_ep > 20,
        "only {with_ep} positions with an en passant square"
    );
    for ((pos, fen), want) in positions.iter().zip(fens.lines()).zip(&theirs) {
        assert_eq!(format!("{:016x}", key(pos)), *want, "{fen}");
        let again: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(key(&again), key(pos));
    }
}
