//! What the index keeps of a game's tags for filtering: the speed class of
//! its TimeControl, hashes of the player names, the date.

/// A speed class, as the lichess opening explorer names them. The estimated
/// duration of a game is its base time plus 40 increments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Speed {
    /// Under 30 s.
    UltraBullet = 1,
    /// Under 3 min.
    Bullet = 2,
    /// Under 8 min.
    Blitz = 3,
    /// Under 25 min.
    Rapid = 4,
    /// Under 6 hours.
    Classical = 5,
    /// 6 hours or more, or no clock (`-`).
    Correspondence = 6,
}

impl Speed {
    /// Every class, fastest first.
    pub const ALL: [Speed; 6] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The lichess name (`ultraBullet`, `bullet`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The class named `name` (the lichess names, any case).
    pub fn from_name(name: &str) -> Option<Speed> {
        Speed::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The class stored as `b` (0: none).
    pub fn from_byte(b: u8) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| *s as u8 == b)
    }

    /// The class of a PGN TimeControl value: `base+inc`, `base`,
    /// `moves/seconds` (the first period counts), `*seconds` (sandclock),
    /// `-` (no clock: correspondence). `?`, empty or unreadable: `None`.
    pub fn of_time_control(tc: &str) -> Option<Speed> {
        let tc = tc.trim();
        if tc == "-" {
            return Some(Speed::Correspondence);
        }
        let first = tc.split(':').next()?;
        let first = first.strip_prefix('*').unwrap_or(first);
        let (base, inc) = match first.split_once('+') {
            Some((b, i)) => (b, i),
            None => (first, "0"),
        };
        // `40/7200`: 7200 seconds for the first 40 moves.
        let base = base.rsplit('/').next()?;
        let num = |s: &str| -> Option<u64> {
            let v: f64 = s.trim().parse().ok()?;
            (v.is_finite() && v >= 0.0).then_some(v as u64)
        };
        let total = num(base)?.saturating_add(num(inc)?.saturating_mul(40));
        Some(match total {
            0..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            1500..21600 => Speed::Classical,
            _ => Speed::Correspondence,
        })
    }
}

/// XXH3-64 of a player name trimmed and in lower case; 0 for an unknown
/// name (empty, `?`, `-`).
pub fn name_hash(name: &str) -> u64 {
    let n = name.trim();
    if n.is_empty() || n == "?" || n == "-" {
        return 0;
    }
    crate::identity::checksum(n.to_lowercase().as_bytes()).max(1)
}

/// A PGN Date value (`YYYY.MM.DD`, `?` for unknown parts; `-` separators
/// accepted) as (year, month, day), 0 for each unknown part. A month out of
/// 1..=12 or a day out of 1..=31 is unknown.
pub fn parse_date(date: &str) -> (u16, u8, u8) {
    let mut parts = date.trim().split(['.', '-', '/']);
    let mut num = |max: u32| {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .filter(|&v| v >= 1 && v <= max)
            .unwrap_or(0)
    };
    let y = num(9999) as u16;
    let m = num(12) as u8;
    let d = if m == 0 { 0 } else { num(31) as u8 };
    (y, m, d)
}

/// A month `YYYY-MM` (or `YYYY`, meaning January for a start and December
/// for an end: `end` says which) as (year, month).
pub fn parse_month(text: &str, end: bool) -> Result<(u16, u8), String> {
    let t = text.trim();
    let bad = || format!("{t:?} is not a month (YYYY-MM)");
    let (y, m) = match t.split_once(['-', '.']) {
        Some((y, m)) => (y, Some(m)),
        None => (t, None),
    };
    let y: u16 = y.parse().ok().filter(|&y| y <= 9999).ok_or_else(bad)?;
    let m: u8 = match m {
        Some(m) => m
            .parse()
            .ok()
            .filter(|m| (1..=12).contains(m))
            .ok_or_else(bad)?,
        None if end => 12,
        None => 1,
    };
    Ok((y, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_follow_lichess() {
        let s = |t| Speed::of_time_control(t);
        assert_eq!(s("15+0"), Some(Speed::UltraBullet));
        assert_eq!(s("60+0"), Some(Speed::Bullet));
        assert_eq!(s("120+1"), Some(Speed::Bullet));
        assert_eq!(s("300+3"), Some(Speed::Blitz));
        assert_eq!(s("600+0"), Some(Speed::Rapid));
        assert_eq!(s("900+10"), Some(Speed::Rapid));
        assert_eq!(s("900+30"), Some(Speed::Classical));
        assert_eq!(s("40/7200:3600"), Some(Speed::Classical));
        assert_eq!(s("-"), Some(Speed::Correspondence));
        assert_eq!(s("?"), None);
        assert_eq!(s(""), None);
        assert_eq!(s("abc+1"), None);
        assert_eq!(Speed::from_name("Blitz"), Some(Speed::Blitz));
    }

    #[test]
    fn dates_and_months() {
        assert_eq!(parse_date("2025.05.01"), (2025, 5, 1));
        assert_eq!(parse_date("2020.??.??"), (2020, 0, 0));
        assert_eq!(parse_date("????.??.??"), (0, 0, 0));
        assert_eq!(parse_date("2020.13.01"), (2020, 0, 0));
        assert_eq!(parse_month("2020-03", false), Ok((2020, 3)));
        assert_eq!(parse_month("2020", true), Ok((2020, 12)));
        assert!(parse_month("2020-13", false).is_err());
        assert_eq!(name_hash(" Carlsen, Magnus"), name_hash("carlsen, magnus"));
        assert_eq!(name_hash("?"), 0);
    }
}
