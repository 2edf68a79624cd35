//! A match's counters per engine (results, time losses, crashes, illegal
//! moves, time per move) and the distribution of the relay's overhead and
//! the referee's latency per move, in bounded memory (a histogram).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::game_rules::{Ending, Outcome, Termination};

/// One engine's counters over the games it played.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineTally {
    /// Player name.
    pub name: String,
    /// Games finished.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Games whose flag fell on this engine (`time forfeit`).
    pub timeouts: u64,
    /// Games this engine lost by abandonment: its process crashed or its
    /// connection ended.
    pub crashes: u64,
    /// Games this engine lost by an illegal move.
    pub illegal_moves: u64,
    /// Moves the engine made (opening moves excluded).
    pub moves: u64,
    /// Milliseconds charged to its clock over those moves.
    pub time_ms: u64,
    /// `time_ms / moves` (output only).
    #[serde(default)]
    pub avg_move_ms: f64,
}

/// The side a game's ending went against (its flag, its crash, its
/// infraction): the loser, or for a time forfeit drawn because the other
/// side cannot mate, the side whose flag fell.
fn against(ending: &Ending) -> Option<Color> {
    match ending.outcome {
        Outcome::Win(c) => Some(!c),
        Outcome::Draw if ending.termination == Termination::TimeForfeit => {
            if ending.reason.starts_with("white") {
                Some(Color::White)
            } else if ending.reason.starts_with("black") {
                Some(Color::Black)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// One move's times, as the counters take them.
#[derive(Debug, Clone, Copy, Default)]
pub struct MoveTimes {
    /// Charged to the mover's clock.
    pub charged: Duration,
    /// The relay's overhead, when known.
    pub relay: Option<Duration>,
    /// The referee's latency, when known.
    pub latency: Option<Duration>,
}

/// Counters of a whole match: per engine, and the relay/latency figures.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    /// Per engine, in the match's engine order.
    pub engines: Vec<EngineTally>,
    /// Relay overhead per move.
    pub relay: Histogram,
    /// Referee latency per move.
    pub latency: Histogram,
}

impl Counters {
    /// Empty counters for these engines.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Counters {
        Counters {
            engines: names
                .into_iter()
                .map(|n| EngineTally {
                    name: n.to_owned(),
                    ..EngineTally::default()
                })
                .collect(),
            ..Counters::default()
        }
    }

    fn engine(&mut self, name: &str) -> Option<&mut EngineTally> {
        self.engines.iter_mut().find(|e| e.name == name)
    }

    /// Counts a finished game: `moves` are the players' own moves in order,
    /// the first made by `first_mover`.
    pub fn add_game(
        &mut self,
        white: &str,
        black: &str,
        first_mover: Color,
        ending: &Ending,
        moves: impl IntoIterator<Item = MoveTimes>,
    ) {
        if ending.outcome == Outcome::Unfinished {
            return;
        }
        let blamed = against(ending);
        for (color, name) in [(Color::White, white), (Color::Black, black)] {
            let Some(e) = self.engine(name) else { continue };
            e.games += 1;
            match ending.outcome {
                Outcome::Win(c) if c == color => e.wins += 1,
                Outcome::Win(_) => e.losses += 1,
                _ => e.draws += 1,
            }
            if blamed == Some(color) {
                match ending.termination {
                    Termination::TimeForfeit => e.timeouts += 1,
                    Termination::Abandoned => e.crashes += 1,
                    Termination::RulesInfraction if ending.reason.contains("illegal move") => {
                        e.illegal_moves += 1;
                    }
                    _ => {}
                }
            }
        }
        let mut mover = first_mover;
        for m in moves {
            let name = if mover.is_white() { white } else { black };
            if let Some(e) = self.engine(name) {
                e.moves += 1;
                e.time_ms += m.charged.as_millis() as u64;
                e.avg_move_ms = e.time_ms as f64 / e.moves as f64;
            }
            if let Some(r) = m.relay {
                self.relay.add(r);
            }
            if let Some(l) = m.latency {
                self.latency.add(l);
            }
            mover = !mover;
        }
    }

    /// The lines the final report adds: each engine's counters, then the
    /// relay overhead and referee latency.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for e in &self.engines {
            out.push_str(&format!(
                "Engine {}: Games: {}, Wins: {}, Draws: {}, Losses: {}, Timeouts: {}, Crashed: {}, Illegal moves: {}, Avg time per move: {:.1} ms ({} moves)\n",
                e.name,
                e.games,
                e.wins,
                e.draws,
                e.losses,
                e.timeouts,
                e.crashes,
                e.illegal_moves,
                e.avg_move_ms,
                e.moves
            ));
        }
        for (what, h) in [
            ("Relay overhead", &self.relay),
            ("Referee latency", &self.latency),
        ] {
            if let Some(s) = h.summary() {
                out.push_str(&format!(
                    "{what} per move: mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} moves)\n",
                    s.mean_ms, s.p50_ms, s.p99_ms, s.max_ms, s.moves
                ));
            }
        }
        out
    }
}

/// Mean, percentiles and maximum of a [`Histogram`], in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeSummary {
    /// Moves measured.
    pub moves: u64,
    /// Mean.
    pub mean_ms: f64,
    /// Median (within 1 %).
    pub p50_ms: f64,
    /// 99th percentile (within 1 %).
    pub p99_ms: f64,
    /// Maximum (exact).
    pub max_ms: f64,
}

/// Buckets per doubling: values are kept within 1/64 (about 1.1 %).
const SUB: u32 = 64;

/// Durations in microseconds in logarithmic buckets: fixed memory
/// whatever the number of moves, percentiles within about 1 %, exact
/// count, sum and maximum.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum_us: u128,
    max_us: u64,
}

fn bucket(us: u64) -> usize {
    if us < u64::from(SUB) {
        return us as usize;
    }
    let exp = 63 - us.leading_zeros(); // >= 6
    let shift = exp - SUB.trailing_zeros();
    let mantissa = (us >> shift) - u64::from(SUB); // 0..SUB
    ((exp - SUB.trailing_zeros() + 1) * SUB) as usize + mantissa as usize
}

/// The lowest value of bucket `i` (inverse of [`bucket`]).
fn bucket_low(i: usize) -> u64 {
    let sub = SUB as usize;
    if i < sub {
        return i as u64;
    }
    let shift = (i / sub - 1) as u32;
    ((sub + i % sub) as u64) << shift
}

impl Histogram {
    /// Adds one value.
    pub fn add(&mut self, d: Duration) {
        let us = d.as_micros().min(u128::from(u64::MAX)) as u64;
        let i = bucket(us);
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum_us += u128::from(us);
        self.max_us = self.max_us.max(us);
    }

    /// Values added.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether no value was added.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The value at quantile `q` (0..=1), in microseconds: the lowest
    /// value of the bucket holding it, capped by the maximum.
    pub fn quantile_us(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_low(i).min(self.max_us);
            }
        }
        self.max_us
    }

    /// The summary, or `None` when empty.
    pub fn summary(&self) -> Option<TimeSummary> {
        if self.n == 0 {
            return None;
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Some(TimeSummary {
            moves: self.n,
            mean_ms: self.sum_us as f64 / self.n as f64 / 1000.0,
            p50_ms: ms(self.quantile_us(0.50)),
            p99_ms: ms(self.quantile_us(0.99)),
            max_ms: ms(self.max_us),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_trip_within_two_percent() {
        for us in [
            0u64,
            1,
            63,
            64,
            65,
            127,
            128,
            1000,
            12_345,
            999_999,
            1 << 40,
        ] {
            let low = bucket_low(bucket(us));
            assert!(low <= us, "{us}: {low}");
            assert!((us - low) as f64 <= us as f64 / 60.0, "{us}: {low}");
            assert_eq!(bucket(low), bucket(us), "{us}");
        }
    }

    #[test]
    fn percentiles_of_a_known_spread() {
        let mut h = Histogram::default();
        for us in 1..=1000u64 {
            h.add(Duration::from_micros(us * 10));
        }
        let s = h.summary().unwrap();
        assert_eq!(s.moves, 1000);
        assert!((s.mean_ms - 5.005).abs() < 1e-9, "{s:?}");
        assert!((s.p50_ms - 5.0).abs() <= 0.1, "{s:?}");
        assert!((s.p99_ms - 9.9).abs() <= 0.2, "{s:?}");
        assert_eq!(s.max_ms, 10.0);
        assert!(Histogram::default().summary().is_none());
    }

    #[test]
    fn endings_are_counted_against_the_right_engine() {
        let mut c = Counters::new(["a", "b"]);
        let end = |outcome, termination, reason: &str| Ending {
            outcome,
            termination,
            reason: reason.into(),
        };
        let mv = |ms| MoveTimes {
            charged: Duration::from_millis(ms),
            relay: Some(Duration::from_micros(300)),
            latency: None,
        };
        c.add_game(
            "a",
            "b",
            Color::White,
            &end(
                Outcome::Win(Color::Black),
                Termination::TimeForfeit,
                "white lost on time (3 ms over)",
            ),
            [mv(10), mv(20), mv(30)],
        );
        c.add_game(
            "b",
            "a",
            Color::White,
            &end(
                Outcome::Win(Color::Black),
                Termination::Abandoned,
                "white's engine crashed (exit status: 3)",
            ),
            [mv(40)],
        );
        c.add_game(
            "a",
            "b",
            Color::White,
            &end(
                Outcome::Win(Color::White),
                Termination::RulesInfraction,
                "black played an illegal move 'e2e5' (x)",
            ),
            [],
        );
        c.add_game(
            "b",
            "a",
            Color::White,
            &end(
                Outcome::Draw,
                Termination::TimeForfeit,
                "black lost on time (1 ms over) but white cannot mate",
            ),
            [],
        );
        let (a, b) = (&c.engines[0], &c.engines[1]);
        assert_eq!((a.games, a.wins, a.draws, a.losses), (4, 2, 1, 1));
        assert_eq!((a.timeouts, a.crashes, a.illegal_moves), (2, 0, 0));
        assert_eq!((b.wins, b.draws, b.losses), (1, 1, 2));
        assert_eq!((b.timeouts, b.crashes, b.illegal_moves), (0, 1, 1));
        assert_eq!((a.moves, a.time_ms), (2, 40));
        assert_eq!((b.moves, b.time_ms), (2, 60));
        assert_eq!(a.avg_move_ms, 20.0);
        assert_eq!(c.relay.len(), 4);
        let text = c.text();
        assert!(text.contains("Engine a: Games: 4, Wins: 2, Draws: 1, Losses: 1, Timeouts: 2, Crashed: 0, Illegal moves: 0, Avg time per move: 20.0 ms (2 moves)"), "{text}");
        assert!(
            text.contains("Relay overhead per move: mean 0.300 ms"),
            "{text}"
        );
    }
}
