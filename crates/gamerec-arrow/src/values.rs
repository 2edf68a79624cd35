//! Typed values of tags and move comments, as stored in the tables.

use gamerec::model::{Game, Node, PlyMove};
use gamerec::pgn::commands::{KnownCommand, Score, commands};
use shakmaty::CastlingMode;
use shakmaty::uci::UciMove;

/// Days since 1970-01-01 of a `YYYY.MM.DD` date (`UTCDate`); `None` when any
/// part is unknown (`?`) or the date does not exist.
pub fn parse_date(value: &str) -> Option<i32> {
    let mut parts = value.trim().split(['.', '-', '/']);
    let y: i64 = digits(parts.next()?)?;
    let m: i64 = digits(parts.next()?)?;
    let d: i64 = digits(parts.next()?)?;
    if parts.next().is_some() || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    // Days from civil (proleptic Gregorian), after H. Hinnant.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).ok()
}

/// The `YYYY.MM.DD` text of a day number written by [`parse_date`].
pub fn write_date(days: i32) -> String {
    let z = i64::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn digits<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Seconds since midnight of a `HH:MM:SS` time (`UTCTime`).
pub fn parse_time(value: &str) -> Option<i32> {
    let mut parts = value.trim().split(':');
    let h: i32 = digits(parts.next()?)?;
    let m: i32 = digits(parts.next()?)?;
    let s: i32 = digits(parts.next()?)?;
    if parts.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(h * 3600 + m * 60 + s)
}

/// The `HH:MM:SS` text of [`parse_time`]'s seconds.
pub fn write_time(seconds: i32) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// An integer tag (`WhiteElo`, `BlackRatingDiff`): optional sign, digits.
/// Only values that write back the same way are typed (`+5` and `007` stay
/// text in the tag map), so nothing changes on the way back.
pub fn parse_int(value: &str) -> Option<i32> {
    let digits = value.strip_prefix('-').unwrap_or(value);
    // Written back the same way: digits only, no leading zero, no `-0`.
    let canonical = match digits.as_bytes() {
        [] => false,
        [b'0'] => digits.len() == value.len(),
        [first, ..] => *first != b'0' && digits.bytes().all(|b| b.is_ascii_digit()),
    };
    if !canonical {
        return None;
    }
    value.parse().ok()
}

/// A rating change (`WhiteRatingDiff`), written with its sign as lichess
/// does (`+5`, `0`, `-12`); only values that write back the same way.
pub fn parse_signed(value: &str) -> Option<i32> {
    match value.strip_prefix('+') {
        Some(positive) => parse_int(positive).filter(|&n| n > 0),
        None => parse_int(value).filter(|&n| n <= 0),
    }
}

/// The text of [`parse_signed`]'s value.
pub fn write_signed(n: i32) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// Base and increment seconds of a single-period `TimeControl` (`300+3`,
/// `600`); `None` for several periods, `?`, `-` and malformed values.
pub fn parse_time_control(value: &str) -> Option<(i32, i32)> {
    let (base, inc) = match value.split_once('+') {
        Some((b, i)) => (b, i),
        None => (value, "0"),
    };
    Some((digits(base)?, digits(inc)?))
}

/// The speed class of a `TimeControl`, as lichess names it from the
/// estimated game duration `base + 40 × increment`: `ultrabullet` (< 30 s),
/// `bullet` (< 180 s), `blitz` (< 480 s), `rapid` (< 1500 s), `classical`.
pub fn speed(value: &str) -> Option<&'static str> {
    let (base, inc) = parse_time_control(value)?;
    let estimate = i64::from(base) + 40 * i64::from(inc);
    Some(match estimate {
        ..30 => "ultrabullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    })
}

/// Whether `value` can select games by time control: a speed class
/// ([`speed`]'s names) or a `TimeControl` tag value (`300+3`, `-`,
/// `40/7200:3600`, `*`, `?`). Anything else (a misspelt class) selects
/// nothing and is refused by the callers.
pub fn is_time_control_filter(value: &str) -> bool {
    const SPEEDS: [&str; 5] = ["ultrabullet", "bullet", "blitz", "rapid", "classical"];
    SPEEDS.contains(&value)
        || (!value.is_empty()
            && value
                .bytes()
                .all(|b| b.is_ascii_digit() || b"+-/:*?".contains(&b)))
}

/// The typed annotations of one ply: from `[%clk]`, `[%emt]` and `[%eval]`
/// in the comments after its move (the first of each kind counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlyNotes {
    /// `[%clk]` in milliseconds.
    pub clk_ms: Option<i64>,
    /// `[%emt]` in milliseconds.
    pub emt_ms: Option<i64>,
    /// `[%eval]` in centipawns, White's view.
    pub eval_cp: Option<i32>,
    /// `[%eval #n]`: mate in n (negative: Black mates).
    pub eval_mate: Option<i32>,
}

impl PlyNotes {
    /// The notes of `node`'s comments after its move.
    pub fn of(node: &Node) -> PlyNotes {
        let mut notes = PlyNotes::default();
        for comment in &node.comments_after {
            notes.add_comment(&comment.text);
        }
        notes
    }

    /// Takes in the commands of one more comment after the move (its text
    /// as the builder keeps it: whitespace runs collapsed to one space).
    pub fn add_comment(&mut self, text: &str) {
        // Lichess's usual comment, `[%clk 0:03:00]` alone, read without the
        // general command scanner (the same value: a unit test compares).
        if let Some(ms) = lone_clock(text.trim_ascii().as_bytes()) {
            if self.clk_ms.is_none() {
                self.clk_ms = Some(ms);
            }
            return;
        }
        self.add_commands(text);
    }

    /// [`PlyNotes::add_comment`] of a text known to be UTF-8: the usual
    /// lone clock is read from the bytes without checking them again.
    pub(crate) fn add_comment_bytes(&mut self, text: &[u8]) {
        if let Some(ms) = lone_clock(text.trim_ascii()) {
            if self.clk_ms.is_none() {
                self.clk_ms = Some(ms);
            }
            return;
        }
        if let Ok(text) = std::str::from_utf8(text) {
            self.add_commands(text);
        }
    }

    /// Takes in the `clk`, `emt` and `eval` commands of a comment text.
    fn add_commands(&mut self, text: &str) {
        if !text.contains("[%") {
            return;
        }
        for cmd in commands(text) {
            if !matches!(cmd.name, "clk" | "emt" | "eval") {
                continue;
            }
            match KnownCommand::from_ref(&cmd) {
                Some(Ok(KnownCommand::Clk(d))) if self.clk_ms.is_none() => {
                    self.clk_ms = i64::try_from(d.as_millis()).ok();
                }
                Some(Ok(KnownCommand::Emt(d))) if self.emt_ms.is_none() => {
                    self.emt_ms = i64::try_from(d.as_millis()).ok();
                }
                Some(Ok(KnownCommand::Eval(e)))
                    if self.eval_cp.is_none() && self.eval_mate.is_none() =>
                {
                    match e.score {
                        Score::Centipawns(cp) => self.eval_cp = Some(cp),
                        Score::Mate(n) => self.eval_mate = Some(n),
                    }
                }
                _ => {}
            }
        }
    }
}

/// The milliseconds of a comment that is exactly `[%clk H:MM:SS]` (one or
/// two hour digits, minutes and seconds under 60), as
/// [`PlyNotes::add_comment`]'s general path reads it; `None` for anything
/// else (which that path then reads).
fn lone_clock(text: &[u8]) -> Option<i64> {
    let time = text.strip_prefix(b"[%clk ")?.strip_suffix(b"]")?;
    let digit = |b: u8| b.is_ascii_digit().then(|| i64::from(b - b'0'));
    let (h, rest) = match time {
        [h, b':', rest @ ..] => (digit(*h)?, rest),
        [h1, h2, b':', rest @ ..] => (digit(*h1)? * 10 + digit(*h2)?, rest),
        _ => return None,
    };
    let [m1, m2, b':', s1, s2] = rest else {
        return None;
    };
    let m = digit(*m1)? * 10 + digit(*m2)?;
    let s = digit(*s1)? * 10 + digit(*s2)?;
    (m < 60 && s < 60).then_some(((h * 60 + m) * 60 + s) * 1000)
}

/// The castling notation of a game's UCI moves: Chess960 (king takes rook)
/// when its start position needs it or its `Variant` tag names Chess960
/// (as python-chess and lichess decide), else standard.
pub fn uci_mode(game: &Game) -> CastlingMode {
    if game.tags.get("Variant").is_some_and(names_chess960) {
        CastlingMode::Chess960
    } else {
        game.castling_mode
    }
}

/// The lichess variant names (one mapping, in the library).
pub use gamerec::variant::{names_chess960, variant_of};

/// The UCI text of a ply (`e2e4`, `e7e8q`, `0000` for a null move); castling
/// is written king-to-rook in Chess960 games, king-two-squares otherwise.
pub fn uci(mv: PlyMove, mode: CastlingMode, out: &mut String) {
    use std::fmt::Write;
    match mv {
        PlyMove::Move(m) => {
            let _ = write!(out, "{}", m.to_uci(mode));
        }
        PlyMove::Null => out.push_str("0000"),
    }
}

/// [`uci`] appended to bytes, without going through `fmt`.
pub fn uci_bytes(mv: PlyMove, mode: CastlingMode, out: &mut Vec<u8>) {
    let square = |sq: shakmaty::Square, out: &mut Vec<u8>| {
        out.push(sq.file().char() as u8);
        out.push(sq.rank().char() as u8);
    };
    match mv {
        PlyMove::Move(m) => match m.to_uci(mode) {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => {
                square(from, out);
                square(to, out);
                if let Some(role) = promotion {
                    out.push(role.char() as u8);
                }
            }
            UciMove::Put { role, to } => {
                out.push(role.upper_char() as u8);
                out.push(b'@');
                square(to, out);
            }
            UciMove::Null => out.extend_from_slice(b"0000"),
        },
        PlyMove::Null => out.extend_from_slice(b"0000"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_clock_reads_as_the_command_scanner_reads_it() {
        let general = |text: &str| {
            let mut notes = PlyNotes::default();
            notes.add_commands(text);
            notes.clk_ms
        };
        let cases = [
            "[%clk 0:03:00]",
            " [%clk 1:59:59] ",
            "[%clk 12:00:01]",
            "[%clk 99:59:59]",
            "[%clk 0:00:00]",
            "[%clk 0:60:00]",
            "[%clk 0:00:60]",
            "[%clk 123:00:00]",
            "[%clk 0:3:00]",
            "[%clk 0:03:00.5]",
            "[%clk  0:03:00]",
            "[%clk 0:03:00 ]",
            "[%clk a:03:00]",
            "[%clk 0:03]",
            "[%clk 0:03:00] x",
            "[%clk 0:03:00][%clk 0:04:00]",
            "[%eval 0.2] [%clk 0:03:00]",
            "[%clk]",
            "",
            "[%clk 0:03:0x]",
        ];
        for text in cases {
            let mut notes = PlyNotes::default();
            notes.add_comment(text);
            assert_eq!(notes.clk_ms, general(text), "{text:?}");
            if let Some(ms) = lone_clock(text.trim_ascii().as_bytes()) {
                assert_eq!(Some(ms), general(text), "{text:?}");
            }
        }
        assert_eq!(lone_clock(b"[%clk 1:02:03]"), Some(3_723_000));
        assert_eq!(lone_clock(b"[%clk 0:03:00.5]"), None);
    }

    #[test]
    fn dates_round_trip_and_reject_unknown_parts() {
        assert_eq!(parse_date("1970.01.01"), Some(0));
        assert_eq!(parse_date("2013.01.01"), Some(15_706));
        assert_eq!(
            parse_date("2000.02.29").map(write_date).as_deref(),
            Some("2000.02.29")
        );
        assert_eq!(parse_date("1900.02.29"), None);
        assert_eq!(parse_date("2013.??.??"), None);
        assert_eq!(
            parse_date("1851.07.21").map(write_date).as_deref(),
            Some("1851.07.21")
        );
    }

    #[test]
    fn times_and_integers() {
        assert_eq!(parse_time("23:59:07"), Some(86_347));
        assert_eq!(write_time(86_347), "23:59:07");
        assert_eq!(parse_time("??:??:??"), None);
        assert_eq!(parse_int("1500"), Some(1500));
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("+12"), None);
        assert_eq!(parse_int("0150"), None);
        assert_eq!(parse_int("?"), None);
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(parse_int("-0"), None);
        assert_eq!(parse_int("-"), None);
        assert_eq!(parse_int("12a"), None);
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_signed("+0"), None);
        assert_eq!(parse_signed("-0"), None);
        assert_eq!(parse_signed("+-5"), None);
        // Every value types exactly when it writes back the same way.
        for text in [
            "0",
            "7",
            "-7",
            "+7",
            "007",
            "-07",
            "+0",
            "-0",
            "1e3",
            " 5",
            "99999999999",
        ] {
            let int = text.parse::<i32>().ok().filter(|n| n.to_string() == text);
            assert_eq!(parse_int(text), int, "{text}");
            let signed = text
                .strip_prefix('+')
                .unwrap_or(text)
                .parse::<i32>()
                .ok()
                .filter(|&n| write_signed(n) == text);
            assert_eq!(parse_signed(text), signed, "{text}");
        }
        assert_eq!(parse_signed("+5"), Some(5));
        assert_eq!(parse_signed("0"), Some(0));
        assert_eq!(parse_signed("-12"), Some(-12));
        assert_eq!(parse_signed("5"), None);
        assert_eq!(parse_signed("+0"), None);
        assert_eq!(write_signed(7), "+7");
    }

    #[test]
    fn chess960_games_castle_king_to_rook_in_uci() {
        let mut game = Game::new();
        assert_eq!(uci_mode(&game), CastlingMode::Standard);
        game.tags.push("Variant", "Chess960");
        assert_eq!(uci_mode(&game), CastlingMode::Chess960);
        let mut game = Game::new();
        game.tags.push("Variant", "Standard");
        assert_eq!(uci_mode(&game), CastlingMode::Standard);
    }

    #[test]
    fn time_controls_and_speeds() {
        assert_eq!(parse_time_control("300+3"), Some((300, 3)));
        assert_eq!(parse_time_control("60"), Some((60, 0)));
        assert_eq!(parse_time_control("40/7200:3600"), None);
        assert_eq!(parse_time_control("-"), None);
        assert_eq!(speed("15+0"), Some("ultrabullet"));
        assert_eq!(speed("60+0"), Some("bullet"));
        assert_eq!(speed("180+2"), Some("blitz"));
        assert_eq!(speed("600+5"), Some("rapid"));
        assert_eq!(speed("1800+30"), Some("classical"));
    }
}
