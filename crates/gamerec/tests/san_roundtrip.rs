//! Property: along random legal playouts, writing any legal move as SAN and
//! reading it back gives the same move — canonically, in every language of
//! section 17, as figurines, and from the coordinate (UCI) form.

use gamerec::fen::read_fen;
use gamerec::model::PlyMove;
use gamerec::san::{
    Language, Languages, ReadOptions, WriteOptions, read_san, write_san, write_san_with,
};
use gamerec::shakmaty::{CastlingMode, Chess, Position};
use proptest::prelude::*;

const STARTS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Kiwipete: castling, pins, en passant, promotions soon.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Promotion-heavy.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    // Chess960 (X-FEN).
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    // Many knights and rooks: disambiguation by file, rank and square.
    "N3k2N/8/8/3R4/8/8/8/N2RK2N w - - 0 1",
];

fn check_position(pos: &Chess, mode: CastlingMode) -> Result<(), TestCaseError> {
    let english = ReadOptions::default();
    for &m in &pos.legal_moves() {
        let mv = PlyMove::Move(m);
        let san = write_san(pos, mv);
        let back = read_san(pos, san.as_bytes(), &english)
            .map_err(|e| TestCaseError::fail(format!("{san}: {e}")))?;
        prop_assert_eq!(back.mv, mv, "{}", san);
        prop_assert!(
            back.tolerated.is_empty(),
            "{} tolerated {}",
            san,
            back.tolerated
        );

        let uci = m.to_uci(mode).to_string();
        let back = read_san(pos, uci.as_bytes(), &english)
            .map_err(|e| TestCaseError::fail(format!("{uci}: {e}")))?;
        prop_assert_eq!(back.mv, mv, "uci {}", uci);

        for lang in Language::ALL {
            let mut text = String::new();
            write_san_with(
                pos,
                mv,
                &WriteOptions {
                    language: lang,
                    figurines: false,
                },
                &mut text,
            );
            let opts = ReadOptions {
                languages: Languages::only(lang),
                figurines: false,
            };
            let back = read_san(pos, text.as_bytes(), &opts)
                .map_err(|e| TestCaseError::fail(format!("{lang:?} {text}: {e}")))?;
            prop_assert_eq!(back.mv, mv, "{:?} {}", lang, text);
        }
        let mut fan = String::new();
        write_san_with(
            pos,
            mv,
            &WriteOptions {
                language: Language::English,
                figurines: true,
            },
            &mut fan,
        );
        let back = read_san(pos, fan.as_bytes(), &english)
            .map_err(|e| TestCaseError::fail(format!("{fan}: {e}")))?;
        prop_assert_eq!(back.mv, mv, "{}", fan);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn written_san_reads_back_as_the_same_move(
        start in 0..STARTS.len(),
        choices in proptest::collection::vec(any::<u16>(), 0..80),
    ) {
        let (mut pos, mode) = read_fen(STARTS[start]).expect("start FEN");
        check_position(&pos, mode)?;
        for choice in choices {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[usize::from(choice) % moves.len()];
            pos.play_unchecked(m);
            check_position(&pos, mode)?;
        }
    }
}
