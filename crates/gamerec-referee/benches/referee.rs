//! Referee hot paths: the wire codec and the rules applied to a reply.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use gamerec_referee::clock::{Clocks, TimeControl};
use gamerec_referee::game::{GameState, epd_fields};
use gamerec_referee::wire::read_record;
use shakmaty::Chess;

const RESPOND: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - cc 000:00:01:05 000:00:00:59; fmvn 2; hmvc 1; refcom respond; sm Nc6;";

fn codec(c: &mut Criterion) {
    c.bench_function("record parse respond", |b| {
        b.iter(|| read_record(RESPOND).unwrap())
    });
    let record = read_record(RESPOND).unwrap();
    c.bench_function("record print respond", |b| b.iter(|| record.to_string()));
}

fn rules(c: &mut Criterion) {
    // A 20-ply game replayed through apply_reply, as the referee does it.
    let moves = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
        "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
    ];
    c.bench_function("apply 20 replies", |b| {
        b.iter(|| {
            let tc: TimeControl = "40/5400+30".parse().unwrap();
            let mut g = GameState::new(Chess::default(), Clocks::new(tc));
            for m in moves {
                let r = read_record(&format!(
                    "{} refreq reply; sm {m};",
                    epd_fields(g.position())
                ))
                .unwrap();
                g.apply_reply(&r, Duration::from_millis(10));
            }
            g
        })
    });
}

criterion_group!(benches, codec, rules);
criterion_main!(benches);
