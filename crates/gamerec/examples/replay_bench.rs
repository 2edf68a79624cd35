use gamerec::sgf::{self, replay};
use std::time::Instant;
fn main() {
    let files: Vec<String> = std::fs::read_to_string("/tmp/gamerec-sgf-bench/all.txt")
        .unwrap()
        .lines()
        .step_by(20)
        .map(String::from)
        .collect();
    let datas: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let t = Instant::now();
    let parsed: Vec<_> = datas
        .iter()
        .map(|d| sgf::parse_unindexed(d, &Default::default()))
        .collect();
    let tp = t.elapsed();
    let nodes: usize = parsed.iter().map(|p| p.collection.node_count()).sum();
    let t = Instant::now();
    let mut errs = 0;
    for _ in 0..3 {
        for p in &parsed {
            for (g, &r) in p.collection.roots.iter().enumerate() {
                errs += replay::check_game(&p.collection, r, g + 1).len();
            }
        }
    }
    let tr = t.elapsed() / 3;
    let t = Instant::now();
    let mut n2 = 0;
    for _ in 0..3 {
        for d in &datas {
            let p = sgf::parse_unindexed(d, &Default::default());
            n2 += p.collection.node_count();
        }
    }
    let tp2 = t.elapsed() / 3;
    println!(
        "steady parse {:?} ({:.1} ns/node) {n2}",
        tp2,
        tp2.as_nanos() as f64 / nodes as f64
    );
    let _ = std::io::Write::flush(&mut std::io::stdout());
    println!(
        "files {} nodes {nodes} parse {:?} ({:.1} ns/node) replay {:?} ({:.1} ns/node) errs {errs}",
        files.len(),
        tp,
        tp.as_nanos() as f64 / nodes as f64,
        tr,
        tr.as_nanos() as f64 / nodes as f64
    );
}
