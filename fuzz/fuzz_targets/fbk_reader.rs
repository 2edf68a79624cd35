#![no_main]
//! FBK reader: malformed bytes give issues, never panics; the tree read
//! writes and reads back stably.
use gamerec::chessbase::{read_fbk, write_fbk};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let first = read_fbk(data);
    let (bytes, _) = write_fbk(&first.games);
    let second = read_fbk(&bytes);
    assert!(!second.has_errors(), "written FBK reads without errors");
    let (again, _) = write_fbk(&second.games);
    assert_eq!(again, bytes);
});
