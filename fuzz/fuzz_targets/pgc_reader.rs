#![no_main]
//! PGC reader: malformed bytes give issues, never panics; the games read
//! write and read back stably.
use gamerec::pgc::{read_pgc, write_pgc};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let first = read_pgc(data);
    let (bytes, _) = write_pgc(&first.games);
    let second = read_pgc(&bytes);
    let (again, _) = write_pgc(&second.games);
    assert_eq!(again, bytes, "write(read(write(read(x)))) is stable");
});
