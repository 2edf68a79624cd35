//! Time controls in PGN `TimeControl` syntax (PGN standard 9.6.1) and the
//! referee's own chess clocks.
//!
//! The referee measures every move itself; clients only ever see its values
//! (`cc` on `respond`, `[%clk]` in the PGN).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use shakmaty::Color;

/// One control period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// `moves/seconds` (and, as an extension, `moves/seconds+increment`).
    Moves {
        /// Moves to play in the period.
        moves: u32,
        /// Seconds added at the start of the period.
        seconds: u64,
        /// Seconds added after every move (extension; 0 in standard PGN).
        increment: u64,
    },
    /// `seconds` (sudden death) or `seconds+increment`.
    Final {
        /// Seconds for the rest of the game.
        seconds: u64,
        /// Seconds added after every move.
        increment: u64,
    },
}

/// A parsed `TimeControl` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeControl {
    /// `?`: unknown; the referee runs no clock.
    Unknown,
    /// `-`: no time control.
    Unlimited,
    /// One or more periods, the last repeated as needed.
    Periods(Vec<Period>),
    /// `*seconds`: a sandclock holding this many seconds in total.
    Sandclock(u64),
}

/// A `TimeControl` value that does not follow PGN 9.6.1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControlError(pub String);

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad TimeControl: {}", self.0)
    }
}

impl std::error::Error for TimeControlError {}

/// Seconds bounded to 1000 days, so clock arithmetic never overflows.
const MAX_SECONDS: u64 = 1000 * 86_400;

fn number(text: &str, what: &str, positive: bool) -> Result<u64, TimeControlError> {
    let value: u64 = text
        .parse()
        .ok()
        .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| TimeControlError(format!("expected {what}, found '{text}'")))?;
    if value > MAX_SECONDS || (positive && value == 0) {
        return Err(TimeControlError(format!("{what} out of range: {value}")));
    }
    Ok(value)
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        match text {
            "?" => return Ok(TimeControl::Unknown),
            "-" => return Ok(TimeControl::Unlimited),
            _ => {}
        }
        if let Some(rest) = text.strip_prefix('*') {
            return Ok(TimeControl::Sandclock(number(
                rest,
                "sandclock seconds",
                true,
            )?));
        }
        let fields: Vec<&str> = text.split(':').collect();
        let mut periods = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let (main, increment) = match field.split_once('+') {
                Some((m, inc)) => (m, number(inc, "increment seconds", false)?),
                None => (*field, 0),
            };
            if let Some((moves, seconds)) = main.split_once('/') {
                let moves = number(moves, "move count", true)?;
                periods.push(Period::Moves {
                    moves: u32::try_from(moves)
                        .map_err(|_| TimeControlError("move count".into()))?,
                    seconds: number(seconds, "period seconds", true)?,
                    increment,
                });
            } else {
                if i + 1 != fields.len() {
                    return Err(TimeControlError(
                        "a sudden-death or incremental period must be the last".into(),
                    ));
                }
                periods.push(Period::Final {
                    seconds: number(main, "seconds", true)?,
                    increment,
                });
            }
        }
        Ok(TimeControl::Periods(periods))
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Unknown => f.write_str("?"),
            TimeControl::Unlimited => f.write_str("-"),
            TimeControl::Sandclock(s) => write!(f, "*{s}"),
            TimeControl::Periods(periods) => {
                for (i, p) in periods.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    match *p {
                        Period::Moves {
                            moves,
                            seconds,
                            increment,
                        } => {
                            write!(f, "{moves}/{seconds}")?;
                            if increment > 0 {
                                write!(f, "+{increment}")?;
                            }
                        }
                        Period::Final { seconds, increment } => {
                            write!(f, "{seconds}")?;
                            if increment > 0 {
                                write!(f, "+{increment}")?;
                            }
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

impl TimeControl {
    /// Whether the referee runs a clock under this control.
    pub fn is_timed(&self) -> bool {
        matches!(self, TimeControl::Periods(_) | TimeControl::Sandclock(_))
    }
}

/// One side's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct SideClock {
    /// Time left (may be negative only transiently; flags are raised at <= 0).
    remaining_ms: i64,
    /// Total time consumed so far.
    used_ms: u64,
    /// Index into the periods (clamped to the last).
    period: usize,
    /// Moves made in the current period.
    moves_in_period: u32,
}

/// Both clocks of a game under a time control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    white: SideClock,
    black: SideClock,
}

/// A flag fell: the side ran out of time on this move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagFall(pub Color);

impl Clocks {
    /// Fresh clocks at the start of a game.
    pub fn new(control: TimeControl) -> Clocks {
        let initial = match &control {
            TimeControl::Periods(p) => match p.first() {
                Some(Period::Moves { seconds, .. }) | Some(Period::Final { seconds, .. }) => {
                    *seconds as i64 * 1000
                }
                None => 0,
            },
            TimeControl::Sandclock(total) => *total as i64 * 500,
            TimeControl::Unknown | TimeControl::Unlimited => 0,
        };
        let side = SideClock {
            remaining_ms: initial,
            ..SideClock::default()
        };
        Clocks {
            control,
            white: side,
            black: side,
        }
    }

    /// The time control.
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
        self.control
            .is_timed()
            .then(|| Duration::from_millis(self.side(color).remaining_ms.max(0) as u64))
    }

    /// Total time `color` has consumed.
    pub fn used(&self, color: Color) -> Duration {
        Duration::from_millis(self.side(color).used_ms)
    }

    /// Charges `elapsed` to `color` for the move it just made, then applies
    /// increments and period changes. Errors when the flag fell on the move.
    pub fn complete_move(&mut self, color: Color, elapsed: Duration) -> Result<(), FlagFall> {
        let ms = elapsed.as_millis().min(i64::MAX as u128 / 4) as i64;
        let timed = self.control.is_timed();
        let periods = match &self.control {
            TimeControl::Periods(p) => p.clone(),
            _ => Vec::new(),
        };
        let sandclock = matches!(self.control, TimeControl::Sandclock(_));
        let side = self.side_mut(color);
        side.used_ms = side.used_ms.saturating_add(ms as u64);
        if !timed {
            return Ok(());
        }
        side.remaining_ms -= ms;
        if side.remaining_ms <= 0 {
            side.remaining_ms = 0;
            return Err(FlagFall(color));
        }
        if sandclock {
            // The sand that ran out of one chamber went into the other.
            self.side_mut(!color).remaining_ms += ms;
            return Ok(());
        }
        side.moves_in_period += 1;
        let last = periods.len().saturating_sub(1);
        match periods.get(side.period.min(last)) {
            Some(Period::Moves {
                moves, increment, ..
            }) => {
                side.remaining_ms += *increment as i64 * 1000;
                if side.moves_in_period >= *moves {
                    side.moves_in_period = 0;
                    side.period = (side.period + 1).min(last);
                    if let Some(Period::Moves { seconds, .. } | Period::Final { seconds, .. }) =
                        periods.get(side.period)
                    {
                        side.remaining_ms += *seconds as i64 * 1000;
                    }
                }
            }
            Some(Period::Final { increment, .. }) => {
                side.remaining_ms += *increment as i64 * 1000;
            }
            None => {}
        }
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

/// PGN supplement `[%clk h:mm:ss]` time value.
pub fn clk_value(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Parses `h:mm:ss` (as written by [`clk_value`]).
pub fn parse_clk_value(text: &str) -> Option<Duration> {
    let mut parts = text.split(':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let s: u64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || m >= 60 || s >= 60 {
        return None;
    }
    Some(Duration::from_secs(
        h.checked_mul(3600)?.checked_add(m * 60 + s)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn parses_every_kind_of_the_standard() {
        assert_eq!(tc("?"), TimeControl::Unknown);
        assert_eq!(tc("-"), TimeControl::Unlimited);
        assert_eq!(
            tc("40/9000"),
            TimeControl::Periods(vec![Period::Moves {
                moves: 40,
                seconds: 9000,
                increment: 0
            }])
        );
        assert_eq!(
            tc("300"),
            TimeControl::Periods(vec![Period::Final {
                seconds: 300,
                increment: 0
            }])
        );
        assert_eq!(
            tc("4500+60"),
            TimeControl::Periods(vec![Period::Final {
                seconds: 4500,
                increment: 60
            }])
        );
        assert_eq!(tc("*180"), TimeControl::Sandclock(180));
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
    }

    #[test]
    fn rejects_bad_values() {
        for s in [
            "",
            "40/",
            "/60",
            "0",
            "300:40/60",
            "*0",
            "abc",
            "40/60+x",
            "+5",
            "1e3",
        ] {
            assert!(s.parse::<TimeControl>().is_err(), "{s}");
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
    fn untimed_never_flags() {
        let mut c = Clocks::new(tc("-"));
        c.complete_move(Color::White, Duration::from_secs(100_000))
            .unwrap();
        assert_eq!(c.remaining(Color::White), None);
        assert_eq!(c.cc_seconds()[0], 100_000);
    }

    #[test]
    fn formats() {
        assert_eq!(clk_value(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(parse_clk_value("1:02:05"), Some(Duration::from_secs(3725)));
        assert_eq!(parse_clk_value("1:72:05"), None);
    }
}
