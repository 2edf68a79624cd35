//! SGF parse throughput (MB/s) on the professional games of the corpus.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::sgf::{self, ParseOptions, WriteOptions, replay};

fn corpus_bytes() -> Vec<Vec<u8>> {
    let dir = gamerec_testkit::corpus("sgf/pro/aeb-selection");
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("corpus") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sgf") {
                files.push(std::fs::read(&p).expect("read"));
            }
        }
    }
    files
}

fn bench(c: &mut Criterion) {
    let files = corpus_bytes();
    let total: usize = files.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("sgf");
    g.throughput(Throughput::Bytes(total as u64));
    g.sample_size(10);
    g.bench_function("parse (every value typed)", |b| {
        b.iter(|| {
            let mut nodes = 0;
            for f in &files {
                nodes += sgf::parse(f, &ParseOptions::default())
                    .collection
                    .node_count();
            }
            nodes
        })
    });
    g.bench_function("parse + replay all moves", |b| {
        b.iter(|| {
            let mut errs = 0;
            for f in &files {
                let p = sgf::parse(f, &ParseOptions::default());
                for (i, &r) in p.collection.roots.iter().enumerate() {
                    errs += replay::check_game(&p.collection, r, i + 1).len();
                }
            }
            errs
        })
    });
    let parsed: Vec<_> = files
        .iter()
        .map(|f| sgf::parse(f, &ParseOptions::default()).collection)
        .collect();
    g.bench_function("write", |b| {
        b.iter(|| {
            parsed
                .iter()
                .map(|c| sgf::write(c, &WriteOptions::default()).len())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
