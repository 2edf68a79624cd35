//! Decoding compressed input ahead of the parser (`io::decompress`), bytes
//! out per second: one zstd frame (decoded on one thread), the same text in
//! frames of 8 MiB as `pzstd` writes them (decoded on every core), and gzip.
//! The text is the corpus's lichess and TWIC samples repeated to 32 MB.

use std::io::{Cursor, Read, Write};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn text() -> Vec<u8> {
    let corpus = gamerec_testkit::shared_dir().join("corpus/pgn");
    let mut one = std::fs::read(corpus.join("lichess_db_1000k.pgn")).expect("corpus file");
    one.extend(std::fs::read(corpus.join("twic1599_1000k.pgn")).expect("corpus file"));
    one.repeat(16)
}

fn decode_all(data: &[u8]) -> usize {
    let mut reader = gamerec::io::decompress(Box::new(Cursor::new(data.to_vec()))).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0;
    loop {
        match reader.read(&mut buf).unwrap() {
            0 => return n,
            k => n += k,
        }
    }
}

fn bench(c: &mut Criterion) {
    let text = text();
    let one_frame = zstd::encode_all(&text[..], 3).unwrap();
    let frames: Vec<u8> = text
        .chunks(8 << 20)
        .flat_map(|part| zstd::encode_all(part, 3).unwrap())
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gzip = gz.finish().unwrap();
    let mut group = c.benchmark_group("decompress");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    for (name, data) in [
        ("zstd_one_frame", &one_frame),
        ("zstd_8mib_frames", &frames),
        ("gzip", &gzip),
    ] {
        assert_eq!(decode_all(data), text.len());
        group.bench_function(name, |b| b.iter(|| decode_all(data)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
