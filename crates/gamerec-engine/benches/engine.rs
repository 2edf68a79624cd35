//! Engine benchmarks: builtin search at depth 8 (positions/s, as
//! `gamerec epd analyze --depth 8`), the mate solver (nodes/s) on WAC mates.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::epd::EpdRecord;
use gamerec_engine::analysis::{Verb, process_record};
use gamerec_engine::builtin::BuiltinEngine;
use gamerec_engine::mate::MateSolver;
use gamerec_engine::{Engine, Limits};

fn wac() -> Vec<String> {
    let path = gamerec_testkit::corpus("epd/arasan/wac.epd");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn analyze_depth_8(c: &mut Criterion) {
    let lines: Vec<String> = wac().into_iter().step_by(30).collect(); // 10 positions
    let mut g = c.benchmark_group("analyze");
    g.sample_size(10);
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("builtin_depth8_wac10", |b| {
        b.iter(|| {
            let mut e = BuiltinEngine::with_hash(16);
            for l in &lines {
                e.new_game().unwrap();
                black_box(process_record(&mut e, Verb::Analyze, &Limits::depth(8), l));
            }
        })
    });
    g.finish();
}

fn mate_solver(c: &mut Criterion) {
    // Mates in 3 from WAC (see tests/mate.rs), solved from scratch each time.
    let ids = ["WAC.104", "WAC.132", "WAC.191", "WAC.203", "WAC.177"];
    let positions: Vec<_> = wac()
        .iter()
        .filter_map(|l| l.parse::<EpdRecord>().ok())
        .filter(|r| r.string("id").is_some_and(|id| ids.contains(&id)))
        .map(|r| r.position.chess)
        .collect();
    let nodes: u64 = positions
        .iter()
        .map(|p| {
            let mut s = MateSolver::new(Default::default());
            s.solve(p, 3);
            s.nodes
        })
        .sum();
    let mut g = c.benchmark_group("mate");
    g.throughput(Throughput::Elements(nodes));
    g.bench_function("solver_wac_mate_in_3", |b| {
        b.iter(|| {
            for p in &positions {
                let mut s = MateSolver::new(Default::default());
                black_box(s.solve(p, 3));
            }
        })
    });
    // Proving the absence of a mate in 2 in quiet positions (full width).
    let quiet: Vec<_> = wac()
        .iter()
        .take(40)
        .filter_map(|l| l.parse::<EpdRecord>().ok())
        .map(|r| r.position.chess)
        .filter(|p| {
            matches!(
                MateSolver::new(Default::default()).solve(p, 2),
                gamerec_engine::mate::MateOutcome::NoMate
            )
        })
        .take(10)
        .collect();
    let nodes: u64 = quiet
        .iter()
        .map(|p| {
            let mut s = MateSolver::new(Default::default());
            s.solve(p, 2);
            s.nodes
        })
        .sum();
    g.throughput(Throughput::Elements(nodes));
    g.bench_function("solver_no_mate_in_2_x10", |b| {
        b.iter(|| {
            for p in &quiet {
                let mut s = MateSolver::new(Default::default());
                black_box(s.solve(p, 2));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, analyze_depth_8, mate_solver);
criterion_main!(benches);
