//! Time in PGN: clock values (`h:mm:ss`, with the fractional seconds real
//! files carry), the `TimeControl` tag (standard section 9.6, all six kinds),
//! the supplement's `Clock`, `WhiteClock` and `BlackClock` tags, and the
//! derived move and game times computed from `clk` values.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use shakmaty::{ByColor, Color};

use crate::excerpt::excerpt;

/// A time value is not in the expected form; the message says what was
/// expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeValueError {
    /// What was expected.
    pub message: String,
}

impl TimeValueError {
    fn new(message: impl Into<String>) -> TimeValueError {
        TimeValueError {
            message: message.into(),
        }
    }
}

impl fmt::Display for TimeValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TimeValueError {}

/// Most digits accepted in one number, so that no value overflows.
const MAX_DIGITS: usize = 9;

fn digits_value(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > MAX_DIGITS || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Nanoseconds of a fraction written after the radix point (`"5"` is half a
/// second).
fn fraction_nanos(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut nanos: u32 = s.parse().ok()?;
    for _ in s.len()..9 {
        nanos *= 10;
    }
    Some(nanos)
}

/// Reads a clock value `h:mm:ss`, with any number of hour digits (up to 9)
/// and optional fractional seconds (`0:00:05.123`, as TCEC and chess GUIs
/// write). Minutes and seconds take one or two digits and must be below 60.
pub fn parse_clock_time(s: &str) -> Result<Duration, TimeValueError> {
    let expected =
        || TimeValueError::new(format!("expected a time h:mm:ss, found `{}`", excerpt(s)));
    let mut fields = s.split(':');
    let (Some(h), Some(m), Some(sec), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(expected());
    };
    let (sec, frac) = match sec.split_once('.') {
        Some((whole, frac)) => (whole, Some(frac)),
        None => (sec, None),
    };
    let hours = digits_value(h).ok_or_else(expected)?;
    let minutes = digits_value(m)
        .filter(|&v| m.len() <= 2 && v < 60)
        .ok_or_else(expected)?;
    let seconds = digits_value(sec)
        .filter(|&v| sec.len() <= 2 && v < 60)
        .ok_or_else(expected)?;
    let nanos = match frac {
        Some(f) => fraction_nanos(f).ok_or_else(expected)?,
        None => 0,
    };
    Ok(Duration::new(hours * 3600 + minutes * 60 + seconds, nanos))
}

/// Writes `d` as `h:mm:ss` (at least `hour_digits` hour digits), with the
/// fractional seconds, trailing zeros removed, only when there are some.
pub fn write_clock_time(d: Duration, hour_digits: usize) -> String {
    let total = d.as_secs();
    let mut out = format!(
        "{:0width$}:{:02}:{:02}",
        total / 3600,
        (total / 60) % 60,
        total % 60,
        width = hour_digits
    );
    push_fraction(&mut out, d.subsec_nanos());
    out
}

fn push_fraction(out: &mut String, nanos: u32) {
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
}

/// Reads a number of seconds: digits with an optional fraction (`0.5`).
/// The standard allows integers only, but real files (TCEC `180+0.5`,
/// engine matches `10+0.1`) carry fractions; [`crate::pgn::tags::check_tags`]
/// accepts them down to milliseconds.
fn parse_seconds(s: &str) -> Option<Duration> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let secs = digits_value(whole)?;
    let nanos = match frac {
        Some(f) => fraction_nanos(f)?,
        None => 0,
    };
    Some(Duration::new(secs, nanos))
}

fn write_seconds(out: &mut String, d: Duration) {
    out.push_str(&d.as_secs().to_string());
    push_fraction(out, d.subsec_nanos());
}

/// One period descriptor of a `TimeControl` tag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimePeriod {
    /// `40/9000`: `moves` moves in `seconds`. The common extension
    /// `40/5400+30` (an increment in a moves period) is read into
    /// `increment`; it is not one of the standard's six kinds.
    Moves {
        /// Moves in the period.
        moves: u32,
        /// Time for the period.
        seconds: Duration,
        /// Extra time per move (an extension to the standard).
        increment: Option<Duration>,
    },
    /// `300`: sudden death, the rest of the game in `seconds`.
    SuddenDeath {
        /// Time for the rest of the game.
        seconds: Duration,
    },
    /// `4500+60`: `seconds` for the period plus `increment` after each move.
    Incremental {
        /// Time at the start of the period.
        seconds: Duration,
        /// Time added after each move.
        increment: Duration,
    },
    /// `*180`: a sandclock holding `seconds` of sand.
    Sandclock {
        /// Total sand.
        seconds: Duration,
    },
}

impl TimePeriod {
    /// The time the period adds to the clock when it starts.
    pub fn seconds(&self) -> Duration {
        match *self {
            TimePeriod::Moves { seconds, .. }
            | TimePeriod::SuddenDeath { seconds }
            | TimePeriod::Incremental { seconds, .. }
            | TimePeriod::Sandclock { seconds } => seconds,
        }
    }

    /// The time added after each move of the period.
    pub fn increment(&self) -> Duration {
        match *self {
            TimePeriod::Moves { increment, .. } => increment.unwrap_or_default(),
            TimePeriod::Incremental { increment, .. } => increment,
            _ => Duration::ZERO,
        }
    }

    /// The number of moves of a `moves/seconds` period, `None` for the kinds
    /// that last the rest of the game.
    pub fn moves(&self) -> Option<u32> {
        match *self {
            TimePeriod::Moves { moves, .. } => Some(moves),
            _ => None,
        }
    }

    fn parse(field: &str) -> Option<TimePeriod> {
        if let Some(sand) = field.strip_prefix('*') {
            return Some(TimePeriod::Sandclock {
                seconds: parse_seconds(sand)?,
            });
        }
        if let Some((moves, rest)) = field.split_once('/') {
            let moves = u32::try_from(digits_value(moves)?).ok()?;
            let (seconds, increment) = match rest.split_once('+') {
                Some((s, inc)) => (parse_seconds(s)?, Some(parse_seconds(inc)?)),
                None => (parse_seconds(rest)?, None),
            };
            return Some(TimePeriod::Moves {
                moves,
                seconds,
                increment,
            });
        }
        if let Some((s, inc)) = field.split_once('+') {
            return Some(TimePeriod::Incremental {
                seconds: parse_seconds(s)?,
                increment: parse_seconds(inc)?,
            });
        }
        Some(TimePeriod::SuddenDeath {
            seconds: parse_seconds(field)?,
        })
    }
}

impl fmt::Display for TimePeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        match *self {
            TimePeriod::Moves {
                moves,
                seconds,
                increment,
            } => {
                out.push_str(&moves.to_string());
                out.push('/');
                write_seconds(&mut out, seconds);
                if let Some(inc) = increment {
                    out.push('+');
                    write_seconds(&mut out, inc);
                }
            }
            TimePeriod::SuddenDeath { seconds } => write_seconds(&mut out, seconds),
            TimePeriod::Incremental { seconds, increment } => {
                write_seconds(&mut out, seconds);
                out.push('+');
                write_seconds(&mut out, increment);
            }
            TimePeriod::Sandclock { seconds } => {
                out.push('*');
                write_seconds(&mut out, seconds);
            }
        }
        f.write_str(&out)
    }
}

/// The value of a `TimeControl` tag (standard section 9.6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// `?`: the time control is unknown.
    Unknown,
    /// `-`: no time control.
    Unlimited,
    /// Period descriptors in order of use, separated by `:` when written; the
    /// last one repeats as needed. Never empty.
    Periods(Vec<TimePeriod>),
}

impl TimeControl {
    /// The period in force for a side's `move_number`-th move (1-based), the
    /// last period repeating.
    pub fn period_of_move(&self, move_number: u32) -> Option<&TimePeriod> {
        let TimeControl::Periods(periods) = self else {
            return None;
        };
        let mut first_move_of_period: u64 = 1;
        let mut index = 0;
        let n = u64::from(move_number.max(1));
        loop {
            let period = periods.get(index).or(periods.last())?;
            match period.moves() {
                Some(m) if m > 0 => {
                    let end = first_move_of_period + u64::from(m);
                    if n < end {
                        return Some(period);
                    }
                    first_move_of_period = end;
                    if index + 1 >= periods.len() {
                        // The last period repeats: skip whole repetitions.
                        let reps = (n - first_move_of_period) / u64::from(m);
                        first_move_of_period += reps * u64::from(m);
                    }
                }
                _ => return Some(period),
            }
            index = (index + 1).min(periods.len());
        }
    }

    /// Time added to a side's clock right after its `move_number`-th move:
    /// the increment of the period the move was in, plus the time of the next
    /// period when that move completes a `moves/seconds` period.
    pub fn time_added_after_move(&self, move_number: u32) -> Option<Duration> {
        let period = self.period_of_move(move_number)?;
        let mut added = period.increment();
        let next = self.period_of_move(move_number.saturating_add(1))?;
        if period.moves().is_some() && self.starts_period(move_number.saturating_add(1)) {
            added += next.seconds();
        }
        Some(added)
    }

    /// Whether a side's `move_number`-th move is the first of a period after
    /// the first one.
    fn starts_period(&self, move_number: u32) -> bool {
        let TimeControl::Periods(periods) = self else {
            return false;
        };
        let mut start: u64 = 1;
        let n = u64::from(move_number);
        for (i, p) in periods.iter().enumerate() {
            let Some(m) = p.moves().filter(|&m| m > 0) else {
                return false;
            };
            start += u64::from(m);
            if n == start {
                return true;
            }
            if n < start {
                return false;
            }
            if i + 1 == periods.len() {
                return (n - start).is_multiple_of(u64::from(m));
            }
        }
        false
    }

    /// The clock setting at the start of the game (the first period's time),
    /// `None` for `?`, `-` and sandclocks.
    pub fn initial_time(&self) -> Option<Duration> {
        match self {
            TimeControl::Periods(p) => match p.first()? {
                TimePeriod::Sandclock { .. } => None,
                first => Some(first.seconds()),
            },
            _ => None,
        }
    }
}

impl FromStr for TimeControl {
    type Err = TimeValueError;

    /// Reads a `TimeControl` value: `?`, `-`, or `:`-separated descriptors
    /// `moves/seconds`, `seconds`, `seconds+increment`, `*seconds`.
    fn from_str(s: &str) -> Result<TimeControl, TimeValueError> {
        match s {
            "?" => return Ok(TimeControl::Unknown),
            "-" => return Ok(TimeControl::Unlimited),
            _ => {}
        }
        let periods = s
            .split(':')
            .map(|field| {
                TimePeriod::parse(field).ok_or_else(|| {
                    TimeValueError::new(format!(
                        "expected a time control field (`?`, `-`, `40/9000`, `300`, `4500+60` or `*180`), found `{}`",
                        excerpt(field)
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TimeControl::Periods(periods))
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Unknown => f.write_str("?"),
            TimeControl::Unlimited => f.write_str("-"),
            TimeControl::Periods(periods) => {
                for (i, p) in periods.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

/// The supplement's `Clock` tag: which clock is running and what it shows,
/// e.g. `W/1:34:56`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RunningClock {
    /// The side whose clock runs; `None` when the clocks are stopped (`N`).
    pub running: Option<Color>,
    /// The time shown on the running clock.
    pub time: Duration,
}

impl FromStr for RunningClock {
    type Err = TimeValueError;

    fn from_str(s: &str) -> Result<RunningClock, TimeValueError> {
        let (side, time) = s.split_once('/').ok_or_else(|| {
            TimeValueError::new(format!(
                "expected `W/h:mm:ss`, `B/...` or `N/...`, found `{}`",
                excerpt(s)
            ))
        })?;
        let running = match side {
            "W" => Some(Color::White),
            "B" => Some(Color::Black),
            "N" => None,
            _ => {
                return Err(TimeValueError::new(format!(
                    "expected W, B or N before `/`, found `{}`",
                    excerpt(side)
                )));
            }
        };
        Ok(RunningClock {
            running,
            time: parse_clock_time(time)?,
        })
    }
}

impl fmt::Display for RunningClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.running {
            Some(Color::White) => 'W',
            Some(Color::Black) => 'B',
            None => 'N',
        };
        write!(f, "{side}/{}", write_clock_time(self.time, 1))
    }
}

/// Times derived for one move from `clk` values and the time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DerivedTime {
    /// The clock after the move, as recorded (`clk`).
    pub clock: Option<Duration>,
    /// Time the mover spent on this move (what `emt` records).
    pub move_time: Option<Duration>,
    /// Time the mover has spent on all its moves so far (what `egt` records).
    pub game_time: Option<Duration>,
}

/// Derives move and game times for a sequence of plies.
///
/// `clocks[i]` is the `clk` after ply `i`; the first ply is `first_mover`'s
/// move number `first_move_number`; `start_clocks` are the clock settings at
/// the start (from `WhiteClock`/`BlackClock`, which take precedence, else the
/// time control's first period). A side's game time after its move is its
/// start time plus every time added so far, less its clock; a move time is
/// the difference between consecutive game times. Values that would be
/// negative (inconsistent clocks) and values that depend on a missing clock
/// are `None`; so is everything for `?`, `-` and sandclock controls unless
/// both start clocks are given.
pub fn derive_times(
    clocks: &[Option<Duration>],
    first_mover: Color,
    first_move_number: u32,
    start_clocks: ByColor<Option<Duration>>,
    time_control: &TimeControl,
) -> Vec<DerivedTime> {
    let sandclock = matches!(time_control, TimeControl::Periods(p)
        if p.iter().any(|x| matches!(x, TimePeriod::Sandclock { .. })));
    let start = start_clocks.map(|c| c.or_else(|| time_control.initial_time()));
    let mut available = start;
    let mut last_game_time: ByColor<Option<Duration>> =
        ByColor::new_with(|c| start[c].map(|_| Duration::ZERO));
    let mut side = first_mover;
    let mut move_number = first_move_number.max(1);
    let mut out = Vec::with_capacity(clocks.len());
    for &clock in clocks {
        let added = if sandclock {
            None
        } else {
            match time_control {
                TimeControl::Periods(_) => time_control.time_added_after_move(move_number),
                // No control: nothing is ever added.
                _ => Some(Duration::ZERO),
            }
        };
        available[side] = match (available[side], added) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
        let game_time = match (available[side], clock) {
            (Some(a), Some(c)) => a.checked_sub(c),
            _ => None,
        };
        let move_time = match (last_game_time[side], game_time) {
            (Some(prev), Some(now)) => now.checked_sub(prev),
            _ => None,
        };
        last_game_time[side] = game_time;
        out.push(DerivedTime {
            clock,
            move_time,
            game_time,
        });
        if side == Color::Black {
            move_number = move_number.saturating_add(1);
        }
        side = !side;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hms(h: u64, m: u64, s: u64) -> Duration {
        Duration::from_secs(h * 3600 + m * 60 + s)
    }

    #[test]
    fn a_long_time_value_makes_a_short_message() {
        let long = "9".repeat(1 << 20);
        let messages = [
            parse_clock_time(&long).unwrap_err(),
            format!("40/{long}").parse::<TimeControl>().unwrap_err(),
            long.parse::<RunningClock>().unwrap_err(),
            format!("{long}/0:01:00")
                .parse::<RunningClock>()
                .unwrap_err(),
        ];
        for e in messages {
            assert!(e.message.len() < 200, "{} bytes", e.message.len());
        }
    }

    #[test]
    fn clock_times_read_and_write() {
        assert_eq!(parse_clock_time("1:05:23"), Ok(hms(1, 5, 23)));
        assert_eq!(parse_clock_time("0:03:00"), Ok(hms(0, 3, 0)));
        assert_eq!(parse_clock_time("17:10:42"), Ok(hms(17, 10, 42)));
        assert_eq!(
            parse_clock_time("0:00:05.123"),
            Ok(Duration::from_millis(5123))
        );
        assert_eq!(
            write_clock_time(Duration::from_millis(5123), 1),
            "0:00:05.123"
        );
        assert_eq!(
            write_clock_time(Duration::from_millis(5500), 1),
            "0:00:05.5"
        );
        assert_eq!(write_clock_time(hms(1, 55, 21), 1), "1:55:21");
        assert_eq!(write_clock_time(hms(1, 55, 21), 2), "01:55:21");
        assert_eq!(write_clock_time(hms(120, 0, 1), 2), "120:00:01");
        for bad in [
            "",
            "1:05",
            "1:60:00",
            "1:00:60",
            "a:00:00",
            "1:00:00:00",
            "1:000:00",
            "1:00:00.",
            "1:00:00.1234567890",
            "-0:00:01",
            "1234567890:00:00",
        ] {
            assert!(parse_clock_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn time_control_six_kinds() {
        let tc: TimeControl = "?".parse().unwrap();
        assert_eq!(tc, TimeControl::Unknown);
        assert_eq!("-".parse::<TimeControl>().unwrap(), TimeControl::Unlimited);
        assert_eq!(
            "40/9000".parse::<TimeControl>().unwrap(),
            TimeControl::Periods(vec![TimePeriod::Moves {
                moves: 40,
                seconds: Duration::from_secs(9000),
                increment: None
            }])
        );
        assert_eq!(
            "300".parse::<TimeControl>().unwrap(),
            TimeControl::Periods(vec![TimePeriod::SuddenDeath {
                seconds: Duration::from_secs(300)
            }])
        );
        assert_eq!(
            "4500+60".parse::<TimeControl>().unwrap(),
            TimeControl::Periods(vec![TimePeriod::Incremental {
                seconds: Duration::from_secs(4500),
                increment: Duration::from_secs(60)
            }])
        );
        assert_eq!(
            "*180".parse::<TimeControl>().unwrap(),
            TimeControl::Periods(vec![TimePeriod::Sandclock {
                seconds: Duration::from_secs(180)
            }])
        );
        for text in [
            "40/7200:3600",
            "40/6000:20/3000:1200+10",
            "180+0.5",
            "40/5400+30:1800+30",
            "?",
            "-",
            "*180",
            "300",
        ] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string(), text);
        }
        for bad in [
            "", "40/", "/300", "abc", "40/7200:", "+5", "300+", "*", "?:300", "1.2.3",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn multi_period_time_added() {
        let tc: TimeControl = "40/7200:20/3600:900+30".parse().unwrap();
        assert_eq!(tc.initial_time(), Some(hms(2, 0, 0)));
        assert_eq!(tc.time_added_after_move(1), Some(Duration::ZERO));
        assert_eq!(tc.time_added_after_move(40), Some(hms(1, 0, 0)));
        assert_eq!(tc.time_added_after_move(41), Some(Duration::ZERO));
        assert_eq!(tc.time_added_after_move(60), Some(Duration::from_secs(900)));
        assert_eq!(tc.time_added_after_move(61), Some(Duration::from_secs(30)));
        // The last moves period repeats: 40/7200:3600 has no repetition, but
        // 40/7200:20/3600 gives another hour after moves 60, 80, ...
        let tc: TimeControl = "40/7200:20/3600".parse().unwrap();
        assert_eq!(tc.time_added_after_move(60), Some(hms(1, 0, 0)));
        assert_eq!(tc.time_added_after_move(80), Some(hms(1, 0, 0)));
        assert_eq!(tc.time_added_after_move(79), Some(Duration::ZERO));
        let tc: TimeControl = "40/7200:3600".parse().unwrap();
        assert_eq!(tc.time_added_after_move(40), Some(hms(1, 0, 0)));
        assert_eq!(tc.time_added_after_move(80), Some(Duration::ZERO));
    }

    #[test]
    fn running_clock_tag() {
        let c: RunningClock = "W/1:34:56".parse().unwrap();
        assert_eq!(c.running, Some(Color::White));
        assert_eq!(c.time, hms(1, 34, 56));
        assert_eq!(c.to_string(), "W/1:34:56");
        let c: RunningClock = "B/0:45:56".parse().unwrap();
        assert_eq!(c.running, Some(Color::Black));
        assert_eq!("N/0:10:00".parse::<RunningClock>().unwrap().running, None);
        for bad in ["X/1:00:00", "W1:00:00", "W/", "W/1:00"] {
            assert!(bad.parse::<RunningClock>().is_err(), "{bad}");
        }
    }

    #[test]
    fn derived_times_of_the_supplement_example() {
        // Supplement section 8: 40/7200:3600, clocks set to 2:00:00.
        let clocks = [
            hms(1, 59, 1),
            hms(1, 59, 32),
            hms(1, 58, 0),
            hms(1, 57, 1),
            hms(1, 37, 0),
            hms(1, 54, 25),
        ]
        .map(Some);
        let tc: TimeControl = "40/7200:3600".parse().unwrap();
        let start = ByColor::new_with(|_| Some(hms(2, 0, 0)));
        let t = derive_times(&clocks, Color::White, 1, start, &tc);
        assert_eq!(t[0].move_time, Some(Duration::from_secs(59)));
        assert_eq!(t[1].move_time, Some(Duration::from_secs(28)));
        assert_eq!(t[2].move_time, Some(Duration::from_secs(61)));
        // 3. Nc3: "takes a full [%emt 0:20:00] on this move".
        assert_eq!(t[4].move_time, Some(hms(0, 21, 0)));
        assert_eq!(t[4].game_time, Some(hms(0, 23, 0)));
        assert_eq!(t[5].game_time, Some(hms(0, 5, 35)));
    }

    #[test]
    fn derived_times_with_increment_and_gaps() {
        let tc: TimeControl = "180+2".parse().unwrap();
        let clocks = [
            Some(hms(0, 3, 0)),
            Some(hms(0, 3, 0)),
            None,
            Some(hms(0, 2, 55)),
            Some(hms(0, 2, 50)),
            Some(hms(0, 3, 10)),
        ];
        let t = derive_times(&clocks, Color::White, 1, ByColor::new_with(|_| None), &tc);
        assert_eq!(t[0].move_time, Some(Duration::from_secs(2)));
        assert_eq!(t[0].game_time, Some(Duration::from_secs(2)));
        assert_eq!(t[2].move_time, None);
        assert_eq!(t[3].game_time, Some(Duration::from_secs(9)));
        assert_eq!(t[3].move_time, Some(Duration::from_secs(7)));
        assert_eq!(t[4].move_time, None, "previous white clock missing");
        assert_eq!(t[4].game_time, Some(Duration::from_secs(16)));
        // Clock above what was available: inconsistent, so no value.
        assert_eq!(t[5].game_time, None);
        // Unknown control and no start clocks: nothing derivable.
        let t = derive_times(
            &clocks,
            Color::White,
            1,
            ByColor::new_with(|_| None),
            &TimeControl::Unknown,
        );
        assert!(
            t.iter()
                .all(|d| d.move_time.is_none() && d.game_time.is_none())
        );
    }
}
