//! EPD throughput: records/s for reading and for normalize (pfdn) over real
//! test suites (WAC, STS with long comment registers, perft-marcel).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::epd::{self, normalized_line};

fn load(rel: &str) -> Option<String> {
    let bytes = std::fs::read(gamerec_testkit::corpus(rel)).ok()?;
    Some(epd::decode(&bytes).into_owned())
}

fn bench(c: &mut Criterion) {
    for rel in [
        "epd/arasan/wac.epd",
        "epd/sts/STS1-STS15_LAN_v4.epd",
        "epd/whittington/perft-marcel.epd",
    ] {
        let Some(text) = load(rel) else {
            eprintln!("skipped {rel}: corpus not found");
            continue;
        };
        let records = epd::read_lines(&text)
            .filter(|l| l.record.is_some())
            .count() as u64;
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let mut group = c.benchmark_group(format!("epd/{name}"));
        group.throughput(Throughput::Elements(records));
        group.sample_size(10);
        group.bench_function("read", |b| {
            b.iter(|| {
                epd::read_lines(&text)
                    .filter(|l| l.record.is_some())
                    .count()
            })
        });
        group.bench_function("normalize", |b| {
            b.iter(|| {
                let mut out = String::with_capacity(text.len() + text.len() / 4);
                for line in epd::read_lines(&text) {
                    match &line.record {
                        Some(r) => out.push_str(&normalized_line(r)),
                        None => out.push_str(line.text),
                    }
                    out.push('\n');
                }
                out.len()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
