#![no_main]
//! SAN: reading arbitrary text in a few positions never panics; a move that
//! reads writes as canonical SAN that reads back, untolerated, as the same
//! move; and a text read with nothing tolerated *is* that canonical SAN
//! (annotation and check mark aside).
use gamerec::fen::read_fen;
use gamerec::san::{Languages, ReadOptions, read_san, write_san};
use libfuzzer_sys::fuzz_target;

const POSITIONS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/3pP3/8/2N5/8/R3K1NR w KQ d6 0 1",
];

fn strip_suffixes(text: &[u8]) -> &[u8] {
    let mut end = text.len();
    while end > 0 && matches!(text[end - 1], b'!' | b'?' | b'+' | b'#') {
        end -= 1;
    }
    &text[..end]
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let (pos, _) = read_fen(POSITIONS[usize::from(selector) % POSITIONS.len()]).expect("fixed FEN");
    let opts = ReadOptions {
        languages: if selector & 0x80 != 0 { Languages::ALL } else { Languages::ENGLISH },
        figurines: selector & 0x40 != 0,
    };
    if let Ok(read) = read_san(&pos, text, &opts) {
        let san = write_san(&pos, read.mv);
        let again = read_san(&pos, san.as_bytes(), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("canonical {san} does not read back: {e}"));
        assert_eq!(again.mv, read.mv, "{san}");
        assert!(again.tolerated.is_empty(), "{san}: {}", again.tolerated);
        if read.tolerated.is_empty() {
            assert_eq!(
                strip_suffixes(text),
                strip_suffixes(san.as_bytes()),
                "untolerated text is not canonical {san}"
            );
        }
    }
});
