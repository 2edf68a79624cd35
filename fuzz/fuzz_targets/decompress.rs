#![no_main]
//! Compressed input (`io::decompress`: gzip, bzip2, zstd by magic bytes;
//! zstd streams of several frames cut by their headers and decoded on
//! several threads): any bytes, and any bytes after zstd's magic number,
//! never panic or hang; the stream ends or fails, and at most 16 MiB of it
//! is read (a small input may decode to a great deal).
use std::io::Read;

use libfuzzer_sys::fuzz_target;

fn drain(data: Vec<u8>) {
    let Ok(mut reader) = gamerec::io::decompress(Box::new(std::io::Cursor::new(data))) else {
        return;
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0usize;
    while total < 16 << 20 {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => total += n,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    drain(data.to_vec());
    let mut zstd = 0xFD2F_B528u32.to_le_bytes().to_vec();
    zstd.extend_from_slice(data);
    drain(zstd);
});
