#![no_main]
//! FEN: reading never panics; whatever reads writes back canonically, and
//! the canonical text reads back to the same position and writes the same.
use gamerec::fen::{read_epd_prefix, read_fen, write_fen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        let _ = gamerec::fen::read_fen_bytes(data);
        return;
    };
    if let Ok(prefix) = read_epd_prefix(text) {
        assert!(prefix.rest <= text.len());
    }
    if let Ok((pos, mode)) = read_fen(text) {
        let fen = write_fen(&pos, mode);
        let (again, mode2) = read_fen(&fen).expect("canonical FEN must read back");
        assert_eq!(again, pos, "{fen}");
        assert_eq!(write_fen(&again, mode2), fen);
    } else if let Err(e) = read_fen(text) {
        assert!(e.column <= text.len(), "{e}");
    }
});
