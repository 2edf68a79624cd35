//! Referee hot paths: the wire codec, the rules applied to a reply, and
//! the referee's overhead per move in a whole game between two clients
//! that answer at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use gamerec_referee::clock::{Clocks, TimeControl};
use gamerec_referee::conn::handle_client;
use gamerec_referee::game_rules::{GameState, epd_fields, parse_move};
use gamerec_referee::game_runner::{GameContext, GameSpec, RunEnd, Timing, run_game};
use gamerec_referee::lobby::Lobby;
use gamerec_referee::log::EventLog;
use gamerec_referee::wire::{read_record, refcom};
use shakmaty::{Chess, Position};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

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

/// The line both clients play (SAN); after it White resigns.
const LINE: [&str; 28] = [
    "c4", "g6", "d3", "f5", "e3", "e6", "Qh5", "Nf6", "Kd2", "Ng8", "Na3", "Bb4", "Kc2", "a5",
    "e4", "Ke7", "e5", "Nh6", "Nb1", "Qf8", "Qd1", "c6", "Ne2", "a4", "Bd2", "Ra5", "Be3", "Rxe5",
];

/// A client that signs on as `name` and answers every `respond` at once
/// with the next move of [`LINE`] (resigning after it).
async fn instant_client(stream: tokio::io::DuplexStream, name: &str) {
    let (reader, mut writer) = tokio::io::split(stream);
    let mut lines = BufReader::new(reader).lines();
    let sign_on = format!(
        "{} refreq sign_on; tcsi \"{name}\" \"{name}\";\n",
        epd_fields(&Chess::default())
    );
    writer.write_all(sign_on.as_bytes()).await.unwrap();
    while let Ok(Some(line)) = lines.next_line().await {
        let record = read_record(&line).unwrap();
        match refcom(&record) {
            Some("respond") => {
                let mut pos = record.chess().clone();
                if let Some(sm) = record.op("sm").and_then(|op| op.move_list().next()) {
                    pos = gamerec::model::play_ply(&pos, sm.mv);
                }
                let ply =
                    (pos.fullmoves().get() as usize - 1) * 2 + usize::from(pos.turn().is_black());
                let reply = match LINE.get(ply) {
                    Some(san) => {
                        parse_move(&pos, san).unwrap();
                        format!("{} refreq reply; sm {san};\n", epd_fields(&pos))
                    }
                    None => format!("{} refreq reply; resign;\n", epd_fields(&pos)),
                };
                writer.write_all(reply.as_bytes()).await.unwrap();
            }
            Some("conclude" | "disconnect") => return,
            _ => {}
        }
    }
}

/// Plays one game of [`LINE`] through the referee (connections, lobby,
/// runner, clocks) and returns its duration and the referee's median
/// latency per move (reply in to the next respond out).
async fn one_game() -> (Duration, Duration) {
    let lobby = Arc::new(Lobby::new());
    let cancel = CancellationToken::new();
    for name in ["white", "black"] {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        tokio::spawn(handle_client(
            ours,
            lobby.clone(),
            EventLog::disabled(),
            cancel.clone(),
        ));
        tokio::spawn(async move { instant_client(theirs, name).await });
    }
    let ctx = GameContext {
        lobby,
        timing: Timing {
            reset_delay: Duration::ZERO,
            conclude_delay: Duration::ZERO,
            grace: Duration::from_secs(5),
            silence: Duration::from_secs(30),
            margin: Duration::ZERO,
            relay_allowance: None,
        },
        log: EventLog::disabled(),
        hook: Arc::new(|_, _| {}),
        adjudicator: None,
    };
    let spec = GameSpec {
        number: 1,
        event: "bench".into(),
        site: "here".into(),
        date: "2026.11.24".into(),
        round: "1".into(),
        white: "white".into(),
        black: "black".into(),
        start: Chess::default(),
        opening: Vec::new().into(),
        time_control: "60+1".parse().unwrap(),
        black_time_control: None,
    };
    let state = GameState::new(Chess::default(), Clocks::new(spec.time_control.clone()));
    let (_stop, stop_rx) = tokio::sync::watch::channel(None);
    let started = Instant::now();
    let end = run_game(&spec, state, &ctx, stop_rx).await;
    let took = started.elapsed();
    cancel.cancel();
    let RunEnd::Finished(state) = end else {
        panic!("game interrupted")
    };
    assert_eq!(state.played().len(), LINE.len());
    let mut latencies: Vec<Duration> = state.played().iter().filter_map(|p| p.latency).collect();
    latencies.sort_unstable();
    (took, latencies[latencies.len() / 2])
}

fn per_move(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("referee per move");
    group.sample_size(30);
    // Wall time of a whole game (28 moves, sign-on, reset, inform, conclude)
    // divided by its moves: the referee's overhead per move as the players
    // see it, with the transport in memory.
    group.bench_function("game of instant clients, per move", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += one_game().await.0 / LINE.len() as u32;
                }
                total
            })
        })
    });
    // The referee's own part, as it records it for every move.
    group.bench_function("recorded referee latency, median", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += one_game().await.1;
                }
                total
            })
        })
    });
    group.finish();
}

criterion_group!(benches, codec, rules, per_move);
criterion_main!(benches);
