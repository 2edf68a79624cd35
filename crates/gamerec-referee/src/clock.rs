//! The referee's own chess clocks over PGN `TimeControl` values (PGN
//! standard 9.6.1, read by `gamerec::pgn::timecontrol`).
//!
//! The referee measures every move itself; clients only ever see its values
//! (`cc` on `respond`, `[%clk]` in the PGN).

use std::fmt;
use std::time::Duration;

use shakmaty::Color;

pub use gamerec::pgn::timecontrol::{TimeControl, TimePeriod};

/// A `TimeControl` value the referee cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControlError(pub String);

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad TimeControl: {}", self.0)
    }
}

impl std::error::Error for TimeControlError {}

/// Periods bounded to 1000 days, so clock arithmetic never overflows.
const MAX_PERIOD: Duration = Duration::from_secs(1000 * 86_400);

/// Reads a `TimeControl` value with `gamerec::pgn::timecontrol` and checks
/// that the referee can run it: every period gives time (none of 0
/// seconds, nor more than 1000 days), and a sudden-death, incremental or
/// sandclock period comes last.
pub fn parse_time_control(text: &str) -> Result<TimeControl, TimeControlError> {
    let control: TimeControl = text
        .parse()
        .map_err(|e: gamerec::pgn::timecontrol::TimeValueError| TimeControlError(e.to_string()))?;
    if let TimeControl::Periods(periods) = &control {
        for (i, period) in periods.iter().enumerate() {
            if period.seconds().is_zero() || period.seconds() > MAX_PERIOD {
                return Err(TimeControlError(format!(
                    "period {} ('{period}') must give between 1 second and 1000 days",
                    i + 1
                )));
            }
            if period.increment() > MAX_PERIOD || period.moves() == Some(0) {
                return Err(TimeControlError(format!(
                    "period {} ('{period}') is out of range",
                    i + 1
                )));
            }
            if period.moves().is_none() && i + 1 != periods.len() {
                return Err(TimeControlError(format!(
                    "period {} ('{period}'): a sudden-death, incremental or sandclock period must be the last",
                    i + 1
                )));
            }
        }
        if periods.len() > 1
            && periods
                .iter()
                .any(|p| matches!(p, TimePeriod::Sandclock { .. }))
        {
            return Err(TimeControlError(
                "a sandclock cannot be combined with other periods".into(),
            ));
        }
    }
    Ok(control)
}

/// Whether the referee runs a clock under `control` (not `?` nor `-`).
pub fn is_timed(control: &TimeControl) -> bool {
    matches!(control, TimeControl::Periods(p) if !p.is_empty())
}

/// The sandclock's total, when `control` is one.
fn sandclock(control: &TimeControl) -> Option<Duration> {
    match control {
        TimeControl::Periods(p) => match p.as_slice() {
            [TimePeriod::Sandclock { seconds }] => Some(*seconds),
            _ => None,
        },
        _ => None,
    }
}

/// One side's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct SideClock {
    /// Time left; below zero after a move made within the margin (the
    /// overdraft is kept, so a margin is no extra time per move).
    remaining_ms: i64,
    /// Total time consumed so far.
    used_ms: u64,
    /// Moves made by this side.
    moves: u32,
}

impl SideClock {
    fn starting(control: &TimeControl) -> SideClock {
        // A sandclock starts with its sand split evenly.
        let initial = match sandclock(control) {
            Some(total) => total / 2,
            None => control.initial_time().unwrap_or_default(),
        };
        SideClock {
            remaining_ms: i64::try_from(initial.as_millis()).unwrap_or(i64::MAX / 4),
            ..SideClock::default()
        }
    }
}

/// Both clocks of a game under a time control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    /// Black's own control when it differs from White's (per-engine limits).
    black_control: Option<TimeControl>,
    white: SideClock,
    black: SideClock,
    /// How far past zero a clock may run before its flag falls.
    margin_ms: i64,
}

/// A flag fell: the side ran out of time on this move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagFall(pub Color);

impl Clocks {
    /// Fresh clocks at the start of a game.
    pub fn new(control: TimeControl) -> Clocks {
        let side = SideClock::starting(&control);
        Clocks {
            control,
            black_control: None,
            white: side,
            black: side,
            margin_ms: 0,
        }
    }

    /// Fresh clocks where each side plays its own control (a match's
    /// per-engine time controls); an untimed side (`-`) never flags. Equal
    /// controls are [`Clocks::new`]. A sandclock cannot be one side's only.
    pub fn per_side(white: TimeControl, black: TimeControl) -> Clocks {
        if white == black {
            return Clocks::new(white);
        }
        Clocks {
            white: SideClock::starting(&white),
            black: SideClock::starting(&black),
            control: white,
            black_control: Some(black),
            margin_ms: 0,
        }
    }

    /// The control `color` plays.
    pub fn control_of(&self, color: Color) -> &TimeControl {
        match (color, &self.black_control) {
            (Color::Black, Some(b)) => b,
            _ => &self.control,
        }
    }

    /// Sets the time margin: a flag falls only when a clock has run more
    /// than `margin` past zero (cutechess-cli's and fastchess's
    /// `timemargin`). Time used beyond zero is still charged.
    pub fn set_margin(&mut self, margin: Duration) {
        self.margin_ms = i64::try_from(margin.as_millis()).unwrap_or(i64::MAX / 4);
    }

    /// The time margin.
    pub fn margin(&self) -> Duration {
        Duration::from_millis(self.margin_ms as u64)
    }

    /// How long `color` may think from now before its flag falls (its
    /// clock plus the margin), or `None` when no clock runs.
    pub fn time_to_flag(&self, color: Color) -> Option<Duration> {
        is_timed(self.control_of(color)).then(|| {
            let ms = self.side(color).remaining_ms.saturating_add(self.margin_ms);
            Duration::from_millis(ms.max(0) as u64)
        })
    }

    /// The time control (White's when the sides differ).
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    fn side(&self, color: Color) -> &SideClock {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn side_mut(&mut self, color: Color) -> &mut SideClock {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Time left for `color`, or `None` when no clock runs.
    pub fn remaining(&self, color: Color) -> Option<Duration> {
        is_timed(self.control_of(color))
            .then(|| Duration::from_millis(self.side(color).remaining_ms.max(0) as u64))
    }

    /// Total time `color` has consumed.
    pub fn used(&self, color: Color) -> Duration {
        Duration::from_millis(self.side(color).used_ms)
    }

    /// Charges `elapsed` (in whole milliseconds, the fraction dropped) to
    /// `color` for the move it just made, then applies increments and
    /// period changes. Errors when the flag fell on the move: the clock
    /// reached zero, or with a margin ran more than the margin past it.
    pub fn complete_move(&mut self, color: Color, elapsed: Duration) -> Result<(), FlagFall> {
        let ms = elapsed.as_millis().min(i64::MAX as u128 / 4) as i64;
        let timed = is_timed(self.control_of(color));
        let sand = sandclock(self.control_of(color)).is_some();
        let margin = self.margin_ms;
        let side = self.side_mut(color);
        side.used_ms = side.used_ms.saturating_add(ms as u64);
        if !timed {
            return Ok(());
        }
        side.remaining_ms -= ms;
        if side.remaining_ms.saturating_add(margin) <= 0 {
            side.remaining_ms = 0;
            return Err(FlagFall(color));
        }
        if sand {
            // The sand that ran out of one chamber went into the other.
            self.side_mut(!color).remaining_ms += ms;
            return Ok(());
        }
        side.moves = side.moves.saturating_add(1);
        let moves = side.moves;
        // The increment, plus the next period's time when this move ends a
        // `moves/seconds` period.
        let added = self
            .control_of(color)
            .time_added_after_move(moves)
            .unwrap_or_default();
        let side = self.side_mut(color);
        side.remaining_ms = side
            .remaining_ms
            .saturating_add(i64::try_from(added.as_millis()).unwrap_or(i64::MAX / 4));
        Ok(())
    }

    /// Marks `color`'s flag as fallen after waiting out its time.
    pub fn exhaust(&mut self, color: Color, elapsed: Duration) {
        let side = self.side_mut(color);
        side.used_ms = side.used_ms.saturating_add(elapsed.as_millis() as u64);
        side.remaining_ms = 0;
    }

    /// The `cc` operands in whole seconds: time consumed by White and by
    /// Black (EPD 6.6).
    pub fn cc_seconds(&self) -> [u64; 2] {
        [
            self.used(Color::White).as_secs(),
            self.used(Color::Black).as_secs(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        parse_time_control(s).unwrap()
    }

    #[test]
    fn reads_every_kind_of_the_standard() {
        for s in [
            "40/9000:20/3600:900",
            "40/60+1",
            "4500+60",
            "*180",
            "300",
            "-",
            "?",
        ] {
            assert_eq!(tc(s).to_string(), s);
        }
        assert!(!is_timed(&tc("-")) && !is_timed(&tc("?")) && is_timed(&tc("*180")));
    }

    #[test]
    fn rejects_what_the_referee_cannot_run() {
        for s in [
            "",
            "40/",
            "/60",
            "0",
            "300:40/60",
            "*0",
            "*60:300",
            "abc",
            "40/60+x",
            "+5",
            "1e3",
            "999999999",
        ] {
            assert!(parse_time_control(s).is_err(), "{s}");
        }
    }

    #[test]
    fn moves_period_adds_next_period_after_its_moves() {
        let mut c = Clocks::new(tc("2/60:30"));
        for _ in 0..2 {
            c.complete_move(Color::White, Duration::from_secs(10))
                .unwrap();
        }
        // 60 - 20 + 30 (sudden death period starts).
        assert_eq!(c.remaining(Color::White), Some(Duration::from_secs(70)));
        assert_eq!(c.remaining(Color::Black), Some(Duration::from_secs(60)));
        assert_eq!(c.used(Color::White), Duration::from_secs(20));
        assert_eq!(
            c.complete_move(Color::White, Duration::from_secs(70)),
            Err(FlagFall(Color::White))
        );
    }

    #[test]
    fn last_moves_period_repeats() {
        let mut c = Clocks::new(tc("1/10"));
        c.complete_move(Color::Black, Duration::from_secs(4))
            .unwrap();
        c.complete_move(Color::Black, Duration::from_secs(4))
            .unwrap();
        assert_eq!(c.remaining(Color::Black), Some(Duration::from_secs(22)));
    }

    #[test]
    fn increment_and_sandclock() {
        let mut c = Clocks::new(tc("60+2"));
        c.complete_move(Color::White, Duration::from_secs(5))
            .unwrap();
        assert_eq!(c.remaining(Color::White), Some(Duration::from_secs(57)));
        let mut s = Clocks::new(tc("*180"));
        s.complete_move(Color::White, Duration::from_secs(30))
            .unwrap();
        assert_eq!(s.remaining(Color::White), Some(Duration::from_secs(60)));
        assert_eq!(s.remaining(Color::Black), Some(Duration::from_secs(120)));
        assert!(
            s.complete_move(Color::White, Duration::from_secs(60))
                .is_err()
        );
    }

    #[test]
    fn each_side_runs_its_own_control() {
        let mut c = Clocks::per_side(tc("60+1"), tc("-"));
        assert_eq!(c.remaining(Color::White), Some(Duration::from_secs(60)));
        assert_eq!(c.remaining(Color::Black), None);
        assert_eq!(c.time_to_flag(Color::Black), None);
        c.complete_move(Color::White, Duration::from_secs(2))
            .unwrap();
        c.complete_move(Color::Black, Duration::from_secs(1000))
            .unwrap();
        assert_eq!(c.remaining(Color::White), Some(Duration::from_secs(59)));
        assert_eq!(c.used(Color::Black), Duration::from_secs(1000));
        let mut c = Clocks::per_side(tc("10"), tc("40/120+2"));
        c.complete_move(Color::Black, Duration::from_secs(1))
            .unwrap();
        assert_eq!(c.remaining(Color::Black), Some(Duration::from_secs(121)));
        assert!(
            c.complete_move(Color::White, Duration::from_secs(10))
                .is_err()
        );
        assert_eq!(Clocks::per_side(tc("5"), tc("5")), Clocks::new(tc("5")));
    }

    #[test]
    fn untimed_never_flags() {
        let mut c = Clocks::new(tc("-"));
        c.complete_move(Color::White, Duration::from_secs(100_000))
            .unwrap();
        assert_eq!(c.remaining(Color::White), None);
        assert_eq!(c.cc_seconds()[0], 100_000);
    }
}
