//! PGN reading speed on real files: tokenizing only, checking (every move
//! resolved and played), building game trees, and export.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{
    CheckOptions, Checker, GameBuilder, SkipAll, SliceReader, Visitor, WriteOptions, read_games,
};

fn read_all<V: Visitor>(data: &[u8], visitor: &mut V) -> u64 {
    let mut reader = SliceReader::new(data);
    let mut games = 0;
    while reader.read_game(visitor).is_some() {
        games += 1;
    }
    games
}

fn bench(c: &mut Criterion) {
    for file in ["lichess_db_1000k.pgn", "twic1599_1000k.pgn"] {
        let data = std::fs::read(gamerec_testkit::corpus(&format!("pgn/{file}"))).unwrap();
        let mut group = c.benchmark_group(file);
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(20);
        group.bench_function("tokenize", |b| b.iter(|| read_all(&data, &mut SkipAll)));
        group.bench_function("check", |b| {
            b.iter(|| read_all(&data, &mut Checker::default()))
        });
        group.bench_function("check-mainline", |b| {
            let opts = CheckOptions {
                variations: false,
                ..CheckOptions::default()
            };
            b.iter(|| read_all(&data, &mut Checker::new(opts.clone())))
        });
        group.bench_function("build", |b| {
            b.iter(|| read_all(&data, &mut GameBuilder::default()))
        });
        let (games, _) = read_games(&data);
        group.bench_function("export", |b| {
            let opts = WriteOptions::default();
            b.iter(|| {
                games
                    .iter()
                    .map(|g| export_string(g, &opts).len())
                    .sum::<usize>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
