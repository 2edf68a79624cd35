#![no_main]
//! CBF/CBI reader: malformed bytes give issues, never panics or huge
//! allocations; what was read writes and reads back stably.
use gamerec::chessbase::{read_cbf, write_cbf};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // First byte: how many bytes of the rest are the index.
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let split = usize::from(split).min(rest.len());
    let (cbi, cbf) = rest.split_at(split);
    let first = read_cbf(cbi, cbf);
    let written = write_cbf(&first.games);
    let second = read_cbf(&written.cbi, &written.cbf);
    let again = write_cbf(&second.games);
    assert_eq!(again.cbf, written.cbf, "write(read(write(read(x)))) is stable");
    assert_eq!(again.cbi, written.cbi);
});
