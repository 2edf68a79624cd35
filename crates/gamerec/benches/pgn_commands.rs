//! Embedded-command scanning over the real lichess comments
//! (`shared/corpus/pgn/lichess_db_1000k.pgn`: ~30,000 `clk` and `eval`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::pgn::commands::{KnownCommand, commands, parse_commands, strip_commands};
use std::hint::black_box;

/// The text of every `{...}` comment of the file.
fn comments() -> Vec<String> {
    let data = std::fs::read(gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn")).expect("corpus");
    let text = String::from_utf8_lossy(&data);
    let mut out = Vec::new();
    let mut rest: &str = &text;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push(rest[start + 1..start + len].to_owned());
        rest = &rest[start + len + 1..];
    }
    out
}

fn bench(c: &mut Criterion) {
    let comments = comments();
    let bytes: usize = comments.iter().map(String::len).sum();
    let mut group = c.benchmark_group("pgn_commands");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("scan (borrowed)", |b| {
        b.iter(|| {
            comments
                .iter()
                .map(|t| commands(black_box(t)).count())
                .sum::<usize>()
        })
    });
    group.bench_function("parse_commands (owned)", |b| {
        b.iter(|| {
            comments
                .iter()
                .map(|t| parse_commands(black_box(t)).len())
                .sum::<usize>()
        })
    });
    group.bench_function("typed clk/eval", |b| {
        b.iter(|| {
            comments
                .iter()
                .flat_map(|t| commands(black_box(t)))
                .filter(|c| matches!(KnownCommand::from_ref(c), Some(Ok(_))))
                .count()
        })
    });
    group.bench_function("strip_commands", |b| {
        b.iter(|| {
            comments
                .iter()
                .map(|t| strip_commands(black_box(t)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
