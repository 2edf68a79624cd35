//! SAN per move: parse+resolve (our fast path, the tolerant path, and
//! shakmaty's `San::from_ascii` + `to_move` as the pgn-reader baseline) and
//! canonical writing, over the moves of real lichess games.

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use gamerec::model::PlyMove;
use gamerec::san::{ReadOptions, read_san, write_san_to};
use gamerec::shakmaty::san::San;
use gamerec::shakmaty::uci::UciMove;
use gamerec::shakmaty::{CastlingMode, Chess, Move, Position};

/// (position before, SAN as written, the move) for the first games of the
/// lichess sample. A crude movetext tokenizer is enough for this file (no
/// variations, comments in braces).
fn samples(max_games: usize) -> Vec<(Chess, String, Move)> {
    let path = gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn");
    let text = std::fs::read_to_string(&path).expect("lichess sample");
    let mut out = Vec::new();
    let mut games = 0;
    let mut pos = Chess::default();
    let mut in_moves = false;
    for line in text.lines() {
        if line.starts_with('[') {
            if in_moves {
                games += 1;
                if games == max_games {
                    break;
                }
                in_moves = false;
                pos = Chess::default();
            }
            continue;
        }
        in_moves = true;
        let mut rest = line;
        let mut cleaned = String::new();
        while let Some(open) = rest.find('{') {
            cleaned.push_str(&rest[..open]);
            rest = rest[open..].split_once('}').map_or("", |(_, r)| r);
        }
        cleaned.push_str(rest);
        for token in cleaned.split_whitespace() {
            let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if token.is_empty()
                || token.starts_with('$')
                || matches!(
                    token,
                    "1-0" | "0-1" | "1/2-1/2" | "*" | "-0" | "-1" | "/2-1/2"
                )
            {
                continue;
            }
            let Ok(read) = read_san(&pos, token.as_bytes(), &ReadOptions::default()) else {
                continue;
            };
            let PlyMove::Move(m) = read.mv else { continue };
            out.push((pos.clone(), token.to_string(), m));
            pos.play_unchecked(m);
        }
    }
    out
}

fn bench_san(c: &mut Criterion) {
    let moves = samples(300);
    let opts = ReadOptions::default();
    let uci: Vec<String> = moves
        .iter()
        .map(|(_, _, m)| m.to_uci(CastlingMode::Standard).to_string())
        .collect();
    let mut group = c.benchmark_group("san");
    group.throughput(Throughput::Elements(moves.len() as u64));

    group.bench_function("read_san (fast path, canonical SAN)", |b| {
        b.iter(|| {
            for (pos, text, _) in &moves {
                black_box(read_san(pos, text.as_bytes(), &opts).ok());
            }
        })
    });
    group.bench_function("shakmaty San::from_ascii + to_move (baseline)", |b| {
        b.iter(|| {
            for (pos, text, _) in &moves {
                black_box(
                    San::from_ascii(text.as_bytes())
                        .ok()
                        .and_then(|s| s.to_move(pos).ok()),
                );
            }
        })
    });
    group.bench_function("read_san (tolerant path, coordinate form e2e4)", |b| {
        b.iter(|| {
            for ((pos, _, _), text) in moves.iter().zip(&uci) {
                black_box(read_san(pos, text.as_bytes(), &opts).ok());
            }
        })
    });
    group.bench_function("shakmaty UciMove parse + to_move (baseline)", |b| {
        b.iter(|| {
            for ((pos, _, _), text) in moves.iter().zip(&uci) {
                black_box(
                    UciMove::from_ascii(text.as_bytes())
                        .ok()
                        .and_then(|u| u.to_move(pos).ok()),
                );
            }
        })
    });
    group.bench_function("write_san_to", |b| {
        let mut out = String::with_capacity(16);
        b.iter(|| {
            for (pos, _, m) in &moves {
                out.clear();
                write_san_to(pos, PlyMove::Move(*m), &mut out);
                black_box(&out);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_san);
criterion_main!(benches);
