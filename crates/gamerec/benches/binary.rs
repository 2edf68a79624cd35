//! CBF/CBI, FBK and PGC throughput (games/s) on 200 random 80-ply games.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gamerec::chessbase::{read_cbf, read_fbk, write_cbf, write_fbk};
use gamerec::model::{Game, NodeId, Ply, PlyMove};
use gamerec::pgc::{read_pgc, write_pgc};
use gamerec::san::write_san;
use gamerec::shakmaty::{Chess, Position};

fn games() -> Vec<Game> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..200)
        .map(|_| {
            let mut game = Game::new();
            for (k, v) in [
                ("Event", "Bench"),
                ("Site", "?"),
                ("Date", "2001.??.??"),
                ("Round", "1"),
                ("White", "A"),
                ("Black", "B"),
                ("Result", "*"),
            ] {
                game.tags.push(k, v);
            }
            let mut pos = Chess::default();
            let mut node = NodeId::ROOT;
            for _ in 0..80 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[next(moves.len())];
                let san = write_san(&pos, PlyMove::Move(mv));
                node = game.tree.add_child(
                    node,
                    Ply {
                        mv: PlyMove::Move(mv),
                        san,
                        written: None,
                    },
                );
                pos.play_unchecked(mv);
            }
            game
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let games = games();
    let cbf = write_cbf(&games);
    let (pgc, _) = write_pgc(&games);
    let (fbk, _) = write_fbk(&games);
    let mut g = c.benchmark_group("binary");
    g.throughput(Throughput::Elements(games.len() as u64));
    g.sample_size(10);
    g.bench_function("cbf write", |b| b.iter(|| write_cbf(&games).cbf.len()));
    g.bench_function("cbf read", |b| {
        b.iter(|| read_cbf(&cbf.cbi, &cbf.cbf).games.len())
    });
    g.bench_function("pgc write", |b| b.iter(|| write_pgc(&games).0.len()));
    g.bench_function("pgc read", |b| b.iter(|| read_pgc(&pgc).games.len()));
    g.bench_function("fbk write (merge 200 games)", |b| {
        b.iter(|| write_fbk(&games).0.len())
    });
    g.bench_function("fbk read", |b| b.iter(|| read_fbk(&fbk).games.len()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
