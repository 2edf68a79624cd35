//! Time management of the built-in engine: how long one search may take.
//!
//! A search gets two deadlines. The *hard* one aborts the running
//! iteration (checked every [`POLL_NODES`] nodes, so the overshoot is a
//! fraction of a millisecond plus scheduling delays). After the *soft* one
//! iterative deepening starts no new iteration; nor does it start one that
//! is predicted (from the growth of the last iterations' times) to end
//! after the *finish* deadline, since an unfinished iteration is wasted.
//! Under a clock the soft deadline is half the optimum time and the finish
//! deadline one and a half times it, so a move takes a little under the
//! optimum on average (iterations grow about threefold). The hard deadline, three
//! times the optimum, is only reached when an iteration takes far longer
//! than predicted (a search waiting for a core on a busy machine): keeping
//! the finish deadline well inside it keeps such moves rare, so a loaded
//! machine does not drain the clock.
//!
//! Under a clock the manager plans for [`HORIZON`] more moves in sudden
//! death (or the moves to the next control, when fewer), spends most of the
//! increment, keeps [`MOVE_OVERHEAD`] back for the transport of the move,
//! and never lets one move take more than a share of what is left.

use std::time::{Duration, Instant};

/// Nodes between two looks at the clock and the stop flag.
pub const POLL_NODES: u64 = 256;

/// Time kept back from every clock move for the transport of the move.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(50);

/// Moves a sudden-death clock is planned over.
pub const HORIZON: u32 = 45;

/// Share of the increment spent on the move it comes with, in percent.
const INCREMENT_SHARE: u32 = 70;

/// The deadlines of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// Start no new iteration after this.
    pub soft: Option<Instant>,
    /// Start no iteration predicted to end after this.
    pub finish: Option<Instant>,
    /// Abort the search at this.
    pub hard: Option<Instant>,
}

impl Deadlines {
    /// No time limit (depth, nodes or stop end the search).
    pub const NONE: Deadlines = Deadlines {
        soft: None,
        finish: None,
        hard: None,
    };

    /// A fixed time per move: search until `movetime` has passed, starting
    /// no iteration that cannot finish in it.
    pub fn movetime(started: Instant, movetime: Duration) -> Deadlines {
        let hard = started + movetime;
        Deadlines {
            soft: Some(hard),
            finish: Some(hard),
            hard: Some(hard),
        }
    }

    /// Deadlines from a clock: `remaining` on the mover's clock, its
    /// increment, and the moves to the next control if the control has one.
    pub fn clock(
        started: Instant,
        remaining: Duration,
        increment: Duration,
        moves_to_go: Option<u32>,
    ) -> Deadlines {
        let (optimum, hard) = allocate(remaining, increment, moves_to_go);
        Deadlines {
            soft: Some(started + optimum / 2),
            finish: Some(started + (optimum * 3 / 2).min(hard)),
            hard: Some(started + hard),
        }
    }
}

/// The time budget of one clock move: (optimum, hard). `hard` is three
/// times the optimum but at most 40% of what is left after
/// [`MOVE_OVERHEAD`] (80% on the last move before a control); the optimum
/// is never more than `hard`.
pub fn allocate(
    remaining: Duration,
    increment: Duration,
    moves_to_go: Option<u32>,
) -> (Duration, Duration) {
    let available = remaining
        .saturating_sub(MOVE_OVERHEAD)
        .max(Duration::from_millis(1));
    let horizon = moves_to_go.map_or(HORIZON, |m| m.clamp(1, HORIZON));
    let cap = if horizon == 1 {
        available * 4 / 5
    } else {
        available * 2 / 5
    };
    let share = if horizon == 1 {
        Duration::ZERO
    } else {
        increment * INCREMENT_SHARE / 100
    };
    let optimum = available / horizon + share;
    let hard = (optimum * 3).min(cap);
    (optimum.min(hard), hard)
}

/// Predicts when the next iteration would end from the durations of the
/// last two completed iterations.
pub fn next_iteration_end(now: Instant, last: Duration, before_last: Option<Duration>) -> Instant {
    // Iterations usually take two to four times the one before; a growth
    // outside that band is measurement noise at small times.
    let growth = before_last.filter(|b| !b.is_zero()).map_or(3.0, |b| {
        (last.as_secs_f64() / b.as_secs_f64()).clamp(1.5, 6.0)
    });
    now + last.mul_f64(growth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        for rem in [1, 10, 31, 50, 100, 500, 2_000, 60_000, 3_600_000] {
            for inc in [0, 10, 50, 1_000, 30_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let (soft, hard) = allocate(ms(rem), ms(inc), mtg);
                    assert!(soft <= hard, "{rem} {inc} {mtg:?}: {soft:?} {hard:?}");
                    assert!(
                        hard <= ms(rem).saturating_sub(MOVE_OVERHEAD).max(ms(1)) * 4 / 5,
                        "{rem} {inc} {mtg:?}: {hard:?}"
                    );
                    assert!(!hard.is_zero() || rem <= 31);
                }
            }
        }
    }

    #[test]
    fn typical_budgets() {
        // 2+0.05 at the start: about 2 s / 45 + 35 ms.
        let (soft, hard) = allocate(ms(2_000), ms(50), None);
        assert!((ms(70)..ms(90)).contains(&soft), "{soft:?}");
        assert!((ms(200)..ms(250)).contains(&hard), "{hard:?}");
        // The last move before the control may use most of the clock.
        let (_, hard) = allocate(ms(10_000), ms(0), Some(1));
        assert!(hard > ms(7_000), "{hard:?}");
        // 40 moves in 40 minutes: about a minute a move.
        let (soft, _) = allocate(ms(2_400_000), ms(0), Some(40));
        assert!((ms(55_000)..ms(65_000)).contains(&soft), "{soft:?}");
    }

    #[test]
    fn clock_deadlines_are_ordered() {
        let now = Instant::now();
        for rem in [1, 60, 500, 2_000, 60_000] {
            for mtg in [None, Some(1), Some(40)] {
                let d = Deadlines::clock(now, ms(rem), ms(50), mtg);
                let (soft, finish, hard) = (d.soft.unwrap(), d.finish.unwrap(), d.hard.unwrap());
                assert!(
                    now <= soft && soft <= finish && finish <= hard,
                    "{rem} {mtg:?}: {d:?}"
                );
            }
        }
        // 2+0.05 at the start: an iteration predicted to end after about
        // 117 ms (1.5 x 78) is not started; the hard stop is at 235 ms.
        let d = Deadlines::clock(now, ms(2_000), ms(50), None);
        let finish = d.finish.unwrap() - now;
        assert!((ms(105)..ms(135)).contains(&finish), "{finish:?}");
        assert!(d.hard.unwrap() - now >= finish * 2 - ms(10), "{d:?}");
    }

    #[test]
    fn predicts_from_growth() {
        let now = Instant::now();
        assert_eq!(next_iteration_end(now, ms(10), None), now + ms(30));
        assert_eq!(next_iteration_end(now, ms(10), Some(ms(5))), now + ms(20));
        assert_eq!(next_iteration_end(now, ms(10), Some(ms(1))), now + ms(60));
    }
}
