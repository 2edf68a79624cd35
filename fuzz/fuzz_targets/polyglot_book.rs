#![no_main]
//! Polyglot opening books (`polyglot::Book::read`, `moves`, `walk`,
//! `decode_move`): any bytes read as a book or give an error, never a
//! panic. Looked up from the start position and a few plies in, twice:
//! the book as given, and the same entries filed under the keys of those
//! positions (each entry's first byte picks one), so the moves are decoded
//! whatever the keys held. Every move given is legal, and its move field
//! (bit 15 aside) is the one `encode_move` writes; every legal move there
//! decodes back from its field; a walk plays only legal moves, at most as
//! many as asked.
use gamerec::polyglot::{Book, decode_move, encode_move, key};
use gamerec::shakmaty::{Chess, Position};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;

/// The lines whose positions are looked up (UCI moves from the start).
/// Castling and promotions are among the moves of the last three.
const LINES: [&str; 7] = [
    "",
    "e2e4",
    "e2e4 d7d5",
    "e2e4 d7d5 e4e5 f7f5",
    "g1f3 g8f6 g2g3 g7g6 f1g2 f8g7",
    "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d4 e5d4 e1g1",
    "a2a4 b7b5 a4b5 a7a6 b5a6 c8b7 a6b7 b8c6",
];

fn positions() -> Vec<Chess> {
    common::play_lines(&LINES)
}

fn check(book: &Book, positions: &[Chess], seed: &[u8]) {
    for pos in positions {
        for e in book.entries(key(pos)) {
            assert_eq!(e.key, key(pos));
            if let Some(m) = decode_move(pos, e.raw_move) {
                assert!(pos.is_legal(m), "{m:?}");
                assert_eq!(encode_move(&m), e.raw_move & 0x7FFF, "{m:?}");
            }
        }
        for (m, w) in book.moves(pos) {
            assert!(pos.is_legal(m), "{m:?}");
            assert!(w > 0);
        }
        let mut at = 0usize;
        let walk = book.walk(pos, 12, |n| {
            assert!(n > 0);
            let b = u64::from(seed.get(at % seed.len().max(1)).copied().unwrap_or(0));
            at += 1;
            (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) % n
        });
        assert!(walk.len() <= 12);
        let mut p = pos.clone();
        for m in walk {
            assert!(p.is_legal(m), "{m:?}");
            p.play_unchecked(m);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let positions = positions();
    match Book::read(data) {
        Ok(book) => {
            assert_eq!(book.len(), data.len() / 16);
            check(&book, &positions, data);
        }
        Err(e) => {
            assert!(!data.len().is_multiple_of(16));
            assert_eq!(e.len, data.len());
        }
    }
    // The same entries under the keys of the positions looked up.
    let mut rekeyed = Vec::with_capacity(data.len() / 16 * 16);
    for c in data.chunks_exact(16) {
        let k = key(&positions[usize::from(c[0]) % positions.len()]);
        rekeyed.extend_from_slice(&k.to_be_bytes());
        rekeyed.extend_from_slice(&c[8..]);
    }
    let book = Book::read(&rekeyed).expect("whole entries");
    check(&book, &positions, data);
    // Every legal move's field decodes back to it.
    for pos in &positions {
        for m in pos.legal_moves() {
            assert_eq!(decode_move(pos, encode_move(&m)), Some(m), "{m:?}");
        }
    }
});
