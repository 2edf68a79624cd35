//! Time per node of the two halves of `gamerec check` on SGF, in process:
//! parsing (with parse memory reused, as `check` does) and replaying every
//! game with its rules.
//!
//! ```text
//! find DIR -name '*.sgf' | sort > list.txt
//! cargo run --release -p gamerec --example sgf_speed -- list.txt [STEP]
//! ```
//! reads every STEP-th file of the list (default 20) into memory first.

use std::time::Instant;

use gamerec::sgf::{self, ParseBuffers, ParseOptions, replay};

fn main() {
    let mut args = std::env::args().skip(1);
    let list = args.next().expect("usage: sgf_speed LIST [STEP]");
    let step: usize = args.next().map_or(20, |s| s.parse().expect("STEP"));
    let files: Vec<Vec<u8>> = std::fs::read_to_string(&list)
        .expect("file list")
        .lines()
        .step_by(step)
        .map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    let options = ParseOptions::default();
    let parsed: Vec<_> = files
        .iter()
        .map(|d| sgf::parse_unindexed(d, &options))
        .collect();
    let nodes: usize = parsed.iter().map(|p| p.collection.node_count()).sum();
    let per_node = |t: std::time::Duration| t.as_nanos() as f64 / nodes as f64;
    const ROUNDS: u32 = 3;
    let mut buffers = ParseBuffers::default();
    let t = Instant::now();
    for _ in 0..ROUNDS {
        for d in &files {
            let p = sgf::parse_unindexed_reusing(d, &options, &mut buffers);
            buffers.recycle(p);
        }
    }
    let parse = t.elapsed() / ROUNDS;
    let t = Instant::now();
    let mut errors = 0;
    for _ in 0..ROUNDS {
        for p in &parsed {
            for (g, &root) in p.collection.roots.iter().enumerate() {
                errors += replay::check_game(&p.collection, root, g + 1).len();
            }
        }
    }
    let replay = t.elapsed() / ROUNDS;
    println!(
        "{} files, {nodes} nodes, {} rule errors: parse {:.1} ns/node, replay {:.1} ns/node",
        files.len(),
        errors / ROUNDS as usize,
        per_node(parse),
        per_node(replay)
    );
}
