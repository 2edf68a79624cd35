//! Tag value semantics: Date, Round, Time, player lists, Result, TimeControl,
//! the supplemental tags of section 9, and the strict checks on their formats.
//!
//! The typed parsers are strict (they accept what the standard writes);
//! [`check_tags`] runs them over a game's tags and returns one
//! [`TagWarning`] per value that breaks its format, for
//! `gamerec check --strict`. Tags themselves are never changed here.

use std::fmt;
use std::str::FromStr;

use crate::diag::MAX_LISTED;
use crate::model::{Game, GameResult, Tags};
use crate::pgn::timecontrol::{RunningClock, TimeControl, TimePeriod, parse_clock_time};

/// A tag whose value breaks the format the standard (or the 2001
/// supplement) gives it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TagWarning {
    /// The tag name.
    pub name: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for TagWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tag {}: {}", self.name, self.message)
    }
}

/// A tag value does not have its tag's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagValueError {
    /// What was expected.
    pub message: String,
}

impl fmt::Display for TagValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TagValueError {}

fn value_error(message: String) -> TagValueError {
    TagValueError { message }
}

/// Reads exactly `len` digits, or `None` when all are `?`; `Err` otherwise.
fn digits_or_query(s: &str, len: usize) -> Result<Option<u32>, ()> {
    if s.len() != len {
        return Err(());
    }
    if s.bytes().all(|b| b == b'?') {
        return Ok(None);
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().map(Some).map_err(|_| ());
    }
    Err(())
}

/// A `Date` value (also `EventDate`, `UTCDate`): `YYYY.MM.DD`, `?` for
/// unknown parts (`1993.??.??`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PgnDate {
    /// The year, if known.
    pub year: Option<u16>,
    /// The month 1-12, if known.
    pub month: Option<u8>,
    /// The day 1-31, if known.
    pub day: Option<u8>,
}

impl FromStr for PgnDate {
    type Err = TagValueError;

    fn from_str(s: &str) -> Result<PgnDate, TagValueError> {
        let err = || {
            value_error(format!(
                "expected a date YYYY.MM.DD (`?` for unknown digits), found `{s}`"
            ))
        };
        let mut parts = s.split('.');
        let (Some(y), Some(m), Some(d), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(err());
        };
        let year = digits_or_query(y, 4).map_err(|_| err())?;
        let month = digits_or_query(m, 2).map_err(|_| err())?;
        let day = digits_or_query(d, 2).map_err(|_| err())?;
        if month.is_some_and(|m| !(1..=12).contains(&m)) {
            return Err(value_error(format!("month out of range 01-12 in `{s}`")));
        }
        if day.is_some_and(|d| !(1..=31).contains(&d)) {
            return Err(value_error(format!("day out of range 01-31 in `{s}`")));
        }
        Ok(PgnDate {
            year: year.map(|v| v as u16),
            month: month.map(|v| v as u8),
            day: day.map(|v| v as u8),
        })
    }
}

impl fmt::Display for PgnDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            Some(y) => write!(f, "{y:04}")?,
            None => f.write_str("????")?,
        }
        for part in [self.month, self.day] {
            match part {
                Some(v) => write!(f, ".{v:02}")?,
                None => f.write_str(".??")?,
            }
        }
        Ok(())
    }
}

/// A `Round` value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Round {
    /// `?`: unknown.
    Unknown,
    /// `-`: a round number does not apply.
    NotApplicable,
    /// `4.1.2`: the most significant round first. Never empty.
    Parts(Vec<u64>),
}

impl FromStr for Round {
    type Err = TagValueError;

    fn from_str(s: &str) -> Result<Round, TagValueError> {
        match s {
            "?" => return Ok(Round::Unknown),
            "-" => return Ok(Round::NotApplicable),
            _ => {}
        }
        s.split('.')
            .map(|p| {
                if !p.is_empty() && p.len() <= 18 && p.bytes().all(|b| b.is_ascii_digit()) {
                    p.parse::<u64>().ok()
                } else {
                    None
                }
            })
            .collect::<Option<Vec<u64>>>()
            .map(Round::Parts)
            .ok_or_else(|| {
                value_error(format!(
                    "expected a round: `?`, `-` or integers separated by periods (`3.1`), found `{s}`"
                ))
            })
    }
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Round::Unknown => f.write_str("?"),
            Round::NotApplicable => f.write_str("-"),
            Round::Parts(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

/// A `Time` or `UTCTime` value: `HH:MM:SS`, `?` for unknown parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeOfDay {
    /// Hour 0-23, if known.
    pub hour: Option<u8>,
    /// Minute 0-59, if known.
    pub minute: Option<u8>,
    /// Second 0-59 (60 for a leap second), if known.
    pub second: Option<u8>,
}

impl FromStr for TimeOfDay {
    type Err = TagValueError;

    fn from_str(s: &str) -> Result<TimeOfDay, TagValueError> {
        let err = || value_error(format!("expected a time of day HH:MM:SS, found `{s}`"));
        let mut parts = s.split(':');
        let (Some(h), Some(m), Some(sec), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(err());
        };
        let hour = digits_or_query(h, 2).map_err(|_| err())?;
        let minute = digits_or_query(m, 2).map_err(|_| err())?;
        let second = digits_or_query(sec, 2).map_err(|_| err())?;
        if hour.is_some_and(|v| v > 23)
            || minute.is_some_and(|v| v > 59)
            || second.is_some_and(|v| v > 60)
        {
            return Err(value_error(format!("time of day out of range in `{s}`")));
        }
        Ok(TimeOfDay {
            hour: hour.map(|v| v as u8),
            minute: minute.map(|v| v as u8),
            second: second.map(|v| v as u8),
        })
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in [self.hour, self.minute, self.second]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                f.write_str(":")?;
            }
            match part {
                Some(v) => write!(f, "{v:02}")?,
                None => f.write_str("??")?,
            }
        }
        Ok(())
    }
}

/// The items of a multi-item tag value (`"Smith, John Q.:Woodpusher 2000"`):
/// the standard separates them with `:`.
pub fn split_items(value: &str) -> impl Iterator<Item = &str> {
    value.split(':')
}

/// Checks one player name as the standard asks: not empty, and every comma
/// followed by a space (`Tal, Mikhail N.`).
pub fn check_player_name(name: &str) -> Result<(), TagValueError> {
    if name.trim().is_empty() {
        return Err(value_error("empty name (use `?` when unknown)".into()));
    }
    let bytes = name.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b',' && bytes.get(i + 1) != Some(&b' ') {
            return Err(value_error(format!(
                "a comma in a name must be followed by a space: `{name}`"
            )));
        }
    }
    Ok(())
}

/// The FIDE title abbreviations `WhiteTitle`/`BlackTitle` use (`-` for none).
pub const FIDE_TITLES: &[&str] = &["GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"];

/// A `WhiteType`/`BlackType` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlayerType {
    /// `human`
    Human,
    /// `program`
    Program,
}

impl FromStr for PlayerType {
    type Err = TagValueError;

    fn from_str(s: &str) -> Result<PlayerType, TagValueError> {
        match s {
            "human" => Ok(PlayerType::Human),
            "program" => Ok(PlayerType::Program),
            _ => Err(value_error(format!(
                "expected `human` or `program`, found `{s}`"
            ))),
        }
    }
}

/// A `Termination` value (section 9.8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Termination {
    /// `abandoned`
    Abandoned,
    /// `adjudication`
    Adjudication,
    /// `death`
    Death,
    /// `emergency`
    Emergency,
    /// `normal`
    Normal,
    /// `rules infraction`
    RulesInfraction,
    /// `time forfeit`
    TimeForfeit,
    /// `unterminated`
    Unterminated,
}

impl Termination {
    /// Every value, in the standard's order.
    pub const ALL: [Termination; 8] = [
        Termination::Abandoned,
        Termination::Adjudication,
        Termination::Death,
        Termination::Emergency,
        Termination::Normal,
        Termination::RulesInfraction,
        Termination::TimeForfeit,
        Termination::Unterminated,
    ];

    /// The standard's spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Termination::Abandoned => "abandoned",
            Termination::Adjudication => "adjudication",
            Termination::Death => "death",
            Termination::Emergency => "emergency",
            Termination::Normal => "normal",
            Termination::RulesInfraction => "rules infraction",
            Termination::TimeForfeit => "time forfeit",
            Termination::Unterminated => "unterminated",
        }
    }
}

impl FromStr for Termination {
    type Err = TagValueError;

    /// Case-insensitive: servers write `Normal` and `Time forfeit`.
    fn from_str(s: &str) -> Result<Termination, TagValueError> {
        Termination::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                value_error(format!(
                    "expected one of abandoned, adjudication, death, emergency, normal, rules infraction, time forfeit, unterminated; found `{s}`"
                ))
            })
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An `ECO` code: `XDD` or `XDD/DD`, `X` from `A` to `E`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Eco {
    /// `A` to `E`.
    pub letter: char,
    /// 0-99.
    pub number: u8,
    /// The `/DD` refinement.
    pub sub: Option<u8>,
}

impl FromStr for Eco {
    type Err = TagValueError;

    fn from_str(s: &str) -> Result<Eco, TagValueError> {
        let b = s.as_bytes();
        let two = |i: usize| -> Option<u8> {
            let (x, y) = (*b.get(i)?, *b.get(i + 1)?);
            (x.is_ascii_digit() && y.is_ascii_digit()).then(|| (x - b'0') * 10 + (y - b'0'))
        };
        let parsed = (|| {
            let letter = *b.first()?;
            if !(b'A'..=b'E').contains(&letter) {
                return None;
            }
            let number = two(1)?;
            let sub = match b.len() {
                3 => None,
                6 if b[3] == b'/' => Some(two(4)?),
                _ => return None,
            };
            Some(Eco {
                letter: letter as char,
                number,
                sub,
            })
        })();
        parsed.ok_or_else(|| {
            value_error(format!(
                "expected an ECO code `XDD` or `XDD/DD` (X from A to E), found `{s}`"
            ))
        })
    }
}

impl fmt::Display for Eco {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:02}", self.letter, self.number)?;
        if let Some(sub) = self.sub {
            write!(f, "/{sub:02}")?;
        }
        Ok(())
    }
}

/// The Seven Tag Roster, in export order.
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

fn is_integer(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Checks a TimeControl value against the standard's six kinds.
fn check_time_control(value: &str) -> Vec<String> {
    let tc = match value.parse::<TimeControl>() {
        Ok(tc) => tc,
        Err(e) => return vec![e.message],
    };
    let mut problems = Vec::new();
    // The standard writes integers; engine testing (cutechess-cli,
    // fastchess, `gamerec match`) and TCEC write sub-second values such as
    // `10+0.1`, which no integer form can express: up to milliseconds are
    // accepted.
    let fractions_too_fine = value
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter_map(|number| number.split_once('.'))
        .any(|(_, fraction)| fraction.len() > 3);
    if fractions_too_fine {
        problems.push(format!(
            "fractional seconds finer than milliseconds: `{value}`"
        ));
    }
    if let TimeControl::Periods(periods) = &tc {
        for (i, p) in periods.iter().enumerate() {
            let last = i + 1 == periods.len();
            match p {
                TimePeriod::Moves {
                    increment: Some(_), ..
                } => problems.push(format!(
                    "`moves/seconds+increment` is not one of the standard's six kinds: `{p}`"
                )),
                TimePeriod::Moves { moves: 0, .. } => {
                    problems.push(format!("a period of zero moves: `{p}`"))
                }
                TimePeriod::SuddenDeath { .. }
                | TimePeriod::Incremental { .. }
                | TimePeriod::Sandclock { .. }
                    if !last =>
                {
                    problems.push(format!("`{p}` may only be the last field"))
                }
                _ => {}
            }
        }
    }
    problems
}

/// Checks every tag of a game against the formats of the standard's
/// sections 8.1 and 9 and the 2001 supplement; one warning per problem.
///
/// Checked: tag name characters and duplicates, the Seven Tag Roster being
/// present, Date/EventDate/UTCDate, Round, Time/UTCTime, player names in
/// White/Black/Annotator, Result, titles, Elo, USCF, player types and their
/// item counts against the player lists, Board, ECO, TimeControl, SetUp with
/// FEN, FEN itself, Termination, PlyCount, Clock, WhiteClock, BlackClock.
/// Other tags (Event, Site, NA, EventSponsor, Section, Stage, Opening,
/// Variation, SubVariation, NIC, Mode and unknown tags) are free strings.
pub fn check_tags(tags: &Tags) -> Vec<TagWarning> {
    check_tags_up_to(tags, usize::MAX).listed
}

/// The warnings of [`check_tags_listed`]: the first [`MAX_LISTED`] of a
/// game, and how many more there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListedTagWarnings {
    /// The first warnings, in the order [`check_tags`] gives them.
    pub listed: Vec<TagWarning>,
    /// The warnings after them, counted.
    pub not_listed: u64,
}

/// [`check_tags`] listing at most [`MAX_LISTED`] warnings and counting
/// the rest, so a game of a million bad tags holds its tags, not a million
/// messages (`gamerec check --strict`).
pub fn check_tags_listed(tags: &Tags) -> ListedTagWarnings {
    check_tags_up_to(tags, MAX_LISTED)
}

fn check_tags_up_to(tags: &Tags, max: usize) -> ListedTagWarnings {
    let mut out = ListedTagWarnings::default();
    let mut warn = |name: &str, message: String| {
        if out.listed.len() < max {
            out.listed.push(TagWarning {
                name: name.to_owned(),
                message,
            });
        } else {
            out.not_listed += 1;
        }
    };
    // Times each name was seen (a map: a game of many tags is checked in
    // linear time).
    let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for tag in tags {
        let name = tag.name.as_str();
        let times = seen.entry(name).or_default();
        *times += 1;
        if *times == 2 {
            warn(name, "the same tag name appears more than once".into());
        }
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            warn(name, "tag names hold only letters, digits and `_`".into());
        } else if !name.as_bytes()[0].is_ascii_uppercase() {
            warn(
                name,
                "archival tag names begin with an upper case letter".into(),
            );
        }
    }
    for name in SEVEN_TAG_ROSTER {
        if tags.get(name).is_none() {
            warn(
                name,
                "missing: the Seven Tag Roster is required for archival storage".into(),
            );
        }
    }
    // Looked up once, not at each tag that needs them.
    let count_players = |side: &str| tags.get(side).map_or(1, |v| split_items(v).count());
    let (white_players, black_players) = (count_players("White"), count_players("Black"));
    let players = |side: &str| {
        if side == "White" {
            white_players
        } else {
            black_players
        }
    };
    let has_fen = tags.get("FEN").is_some();
    let set_up = tags.get("SetUp") == Some("1");
    for tag in tags {
        let (name, value) = (tag.name.as_str(), tag.value.as_str());
        let mut problem = |message: String| warn(name, message);
        match name {
            "Event" | "Site" if value.is_empty() => problem("empty (use `?` when unknown)".into()),
            "Date" | "EventDate" | "UTCDate" => {
                if let Err(e) = value.parse::<PgnDate>() {
                    problem(e.message);
                }
            }
            "Round" => {
                if let Err(e) = value.parse::<Round>() {
                    problem(e.message);
                }
            }
            "Time" | "UTCTime" => {
                if let Err(e) = value.parse::<TimeOfDay>() {
                    problem(e.message);
                }
            }
            "White" | "Black" | "Annotator" => {
                for item in split_items(value) {
                    if let Err(e) = check_player_name(item) {
                        problem(e.message);
                    }
                }
            }
            "Result" if value.parse::<GameResult>().is_err() => {
                problem(format!("expected 1-0, 0-1, 1/2-1/2 or *, found `{value}`"));
            }
            "WhiteTitle" | "BlackTitle" | "WhiteElo" | "BlackElo" | "WhiteUSCF" | "BlackUSCF"
            | "WhiteNA" | "BlackNA" | "WhiteType" | "BlackType" => {
                let side = if name.starts_with("White") {
                    "White"
                } else {
                    "Black"
                };
                let kind = &name[side.len()..];
                let items: Vec<&str> = split_items(value).collect();
                for item in &items {
                    let bad = match kind {
                        "Title" => (*item != "-" && !FIDE_TITLES.contains(item)).then(|| {
                            format!(
                                "expected a FIDE title ({}) or `-`, found `{item}`",
                                FIDE_TITLES.join(", ")
                            )
                        }),
                        "Elo" => (*item != "-" && !is_integer(item))
                            .then(|| format!("expected an integer rating or `-`, found `{item}`")),
                        "USCF" => (!is_integer(item))
                            .then(|| format!("expected an integer rating, found `{item}`")),
                        "Type" => item.parse::<PlayerType>().err().map(|e| e.message),
                        _ => item
                            .is_empty()
                            .then(|| "empty address (use `-` for none)".to_owned()),
                    };
                    if let Some(message) = bad {
                        problem(message);
                    }
                }
                let expected = players(side);
                if items.len() != expected {
                    problem(format!(
                        "{} items, but the {side} tag lists {expected} player(s)",
                        items.len()
                    ));
                }
            }
            "Board" if !is_integer(value) || value.bytes().all(|b| b == b'0') => {
                problem(format!("expected a positive integer, found `{value}`"));
            }
            "PlyCount" if !is_integer(value) => {
                problem(format!("expected a non-negative integer, found `{value}`"));
            }
            "ECO" => {
                if let Err(e) = value.parse::<Eco>() {
                    problem(e.message);
                }
            }
            "TimeControl" => {
                for message in check_time_control(value) {
                    problem(message);
                }
            }
            "SetUp" => match value {
                "0" => {}
                "1" => {
                    if !has_fen {
                        problem("SetUp \"1\" requires a FEN tag".into());
                    }
                }
                _ => problem(format!("expected 0 or 1, found `{value}`")),
            },
            "FEN" => {
                if let Err(e) = crate::fen::read_fen(value) {
                    problem(format!("invalid FEN: {e}"));
                }
                if !set_up {
                    problem("a FEN tag needs SetUp \"1\"".into());
                }
            }
            "Termination" => {
                if let Err(e) = value.parse::<Termination>() {
                    problem(e.message);
                }
            }
            "Clock" => {
                if let Err(e) = value.parse::<RunningClock>() {
                    problem(e.message);
                }
            }
            "WhiteClock" | "BlackClock" => {
                if let Err(e) = parse_clock_time(value) {
                    problem(e.message);
                }
            }
            _ => {}
        }
    }
    out
}

/// [`check_tags`] plus the checks that need the moves: `PlyCount` against
/// the main line's length and `Result` against the termination marker.
pub fn check_game_tags(game: &Game) -> Vec<TagWarning> {
    let mut out = check_tags(&game.tags);
    if let Some(count) = game
        .tags
        .get("PlyCount")
        .and_then(|v| v.parse::<usize>().ok())
    {
        let plies = game.tree.mainline_len();
        if count != plies {
            out.push(TagWarning {
                name: "PlyCount".into(),
                message: format!("says {count} plies, the main line has {plies}"),
            });
        }
    }
    if let (Some(tag), Some(marker)) = (game.tags.get("Result"), game.result)
        && tag.parse::<GameResult>().is_ok_and(|r| r != marker)
    {
        out.push(TagWarning {
            name: "Result".into(),
            message: format!("`{tag}` differs from the termination marker `{marker}`"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs.iter().copied().collect()
    }

    const STR: [(&str, &str); 7] = [
        ("Event", "F/S Return Match"),
        ("Site", "Belgrade, Serbia JUG"),
        ("Date", "1992.11.04"),
        ("Round", "29"),
        ("White", "Fischer, Robert J."),
        ("Black", "Spassky, Boris V."),
        ("Result", "1/2-1/2"),
    ];

    fn warnings_for(name: &str, value: &str) -> Vec<TagWarning> {
        let mut t = tags(&STR);
        t.set(name, value);
        check_tags(&t)
    }

    #[test]
    fn dates() {
        for ok in [
            "1992.08.31",
            "1993.??.??",
            "2001.01.01",
            "????.??.??",
            "1990.05.??",
        ] {
            let d: PgnDate = ok.parse().unwrap();
            assert_eq!(d.to_string(), ok);
        }
        assert_eq!(
            "1993.??.??".parse::<PgnDate>().unwrap(),
            PgnDate {
                year: Some(1993),
                month: None,
                day: None
            }
        );
        for bad in [
            "1992",
            "1992.8.31",
            "1992-08-31",
            "1992.13.01",
            "1992.00.10",
            "1992.01.32",
            "19?2.01.01",
            " 1992.01.01",
            "1992.01.01.",
        ] {
            assert!(bad.parse::<PgnDate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn rounds() {
        assert_eq!("1".parse::<Round>().unwrap(), Round::Parts(vec![1]));
        assert_eq!("3.1".parse::<Round>().unwrap(), Round::Parts(vec![3, 1]));
        assert_eq!(
            "4.1.2".parse::<Round>().unwrap(),
            Round::Parts(vec![4, 1, 2])
        );
        assert_eq!("?".parse::<Round>().unwrap(), Round::Unknown);
        assert_eq!("-".parse::<Round>().unwrap(), Round::NotApplicable);
        assert_eq!("4.1.2".parse::<Round>().unwrap().to_string(), "4.1.2");
        for bad in ["", "1.", ".1", "1a", "1..2", "-1", "??"] {
            assert!(bad.parse::<Round>().is_err(), "{bad}");
        }
    }

    #[test]
    fn times_of_day() {
        assert_eq!(
            "13:45:00".parse::<TimeOfDay>().unwrap(),
            TimeOfDay {
                hour: Some(13),
                minute: Some(45),
                second: Some(0)
            }
        );
        assert_eq!(
            "??:??:??".parse::<TimeOfDay>().unwrap().to_string(),
            "??:??:??"
        );
        for bad in ["13.45.00", "1:45:00", "24:00:00", "12:60:00", "12:00"] {
            assert!(bad.parse::<TimeOfDay>().is_err(), "{bad}");
        }
    }

    #[test]
    fn eco_and_termination() {
        assert_eq!("E35".parse::<Eco>().unwrap().to_string(), "E35");
        assert_eq!("B12/03".parse::<Eco>().unwrap().sub, Some(3));
        for bad in ["F00", "E3", "E355", "e35", "E35/3", "?"] {
            assert!(bad.parse::<Eco>().is_err(), "{bad}");
        }
        for t in Termination::ALL {
            assert_eq!(t.as_str().parse::<Termination>(), Ok(t));
        }
        assert_eq!(
            "Time forfeit".parse::<Termination>(),
            Ok(Termination::TimeForfeit)
        );
        assert!("checkmate".parse::<Termination>().is_err());
    }

    #[test]
    fn the_standard_sample_game_tags_are_clean() {
        assert_eq!(check_tags(&tags(&STR)), vec![]);
    }

    #[test]
    fn supplement_example_tags_are_clean() {
        let t = tags(&[
            ("Event", "?"),
            ("Site", "Madrid"),
            ("Date", "1995.??.??"),
            ("White", "Beliavsky, A "),
            ("Black", "Timman, J "),
            ("Result", "1-0"),
            ("ECO", "E35"),
            ("Round", "2"),
            ("TimeControl", "40/7200:3600"),
            ("WhiteClock", "2:00:00"),
            ("BlackClock", "2:00:00"),
            ("Clock", "W/1:34:56"),
        ]);
        assert_eq!(check_tags(&t), vec![]);
    }

    #[test]
    fn every_supplemental_tag_is_checked() {
        let good = [
            ("WhiteTitle", "GM"),
            ("BlackTitle", "-"),
            ("WhiteElo", "2785"),
            ("BlackElo", "-"),
            ("WhiteUSCF", "2700"),
            ("WhiteNA", "bobby@example.com"),
            ("WhiteType", "human"),
            ("BlackType", "program"),
            ("EventDate", "1992.??.??"),
            ("EventSponsor", "Jezdimir Vasiljevic"),
            ("Section", "Open"),
            ("Stage", "Semifinal"),
            ("Board", "3"),
            ("Opening", "Ruy Lopez"),
            ("Variation", "Closed"),
            ("SubVariation", "Breyer"),
            ("ECO", "C95"),
            ("NIC", "RL 22.9"),
            ("Time", "15:30:00"),
            ("UTCTime", "14:30:00"),
            ("UTCDate", "1992.11.04"),
            ("TimeControl", "40/7200:20/3600:900+30"),
            ("TimeControl", "180+0.5"),
            ("TimeControl", "10+0.1"),
            ("SetUp", "0"),
            ("Termination", "normal"),
            ("Annotator", "Edwards, Steven J."),
            ("Mode", "OTB"),
            ("PlyCount", "99"),
        ];
        for (name, value) in good {
            assert_eq!(warnings_for(name, value), vec![], "{name} {value}");
        }
        let bad = [
            ("WhiteTitle", "Grandmaster"),
            ("WhiteElo", "2785?"),
            ("BlackUSCF", "-"),
            ("WhiteNA", ""),
            ("WhiteType", "Human"),
            ("EventDate", "1992"),
            ("Board", "0"),
            ("Board", "first"),
            ("ECO", "Z99"),
            ("Time", "3pm"),
            ("UTCTime", "25:00:00"),
            ("UTCDate", "1992/11/04"),
            ("TimeControl", "40 moves in 2 hours"),
            ("TimeControl", "300:40/7200"),
            ("TimeControl", "40/5400+30"),
            ("TimeControl", "180+0.0001"),
            ("SetUp", "yes"),
            ("SetUp", "1"),
            ("Termination", "checkmate"),
            ("Annotator", "Edwards,Steven"),
            ("PlyCount", "-1"),
            ("Date", "1992.11.4"),
            ("Round", "first"),
            ("Result", "1-0 "),
            ("White", "Tal,Mikhail"),
            ("Black", ""),
            ("Clock", "W1:34:56"),
            ("WhiteClock", "2 hours"),
            ("Event", ""),
        ];
        for (name, value) in bad {
            let w = warnings_for(name, value);
            assert!(
                !w.is_empty() && w.iter().all(|w| w.name == name),
                "{name} {value}: {w:?}"
            );
        }
    }

    #[test]
    fn player_lists_match_per_player_tags() {
        // Section 9.1's example: a consultation game.
        let mut t = tags(&STR);
        t.set("White", "Jones:Smith:Zacharias");
        t.push("WhiteTitle", "IM:-:GM");
        assert_eq!(check_tags(&t), vec![]);
        t.push("WhiteElo", "2400:2500");
        let w = check_tags(&t);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].name, "WhiteElo");
        let mut t = tags(&STR);
        t.set("Black", "Smith, John Q.:Woodpusher 2000");
        t.push("BlackType", "human:program");
        assert_eq!(check_tags(&t), vec![]);
    }

    #[test]
    fn names_duplicates_roster_and_setup() {
        let mut t = tags(&STR);
        t.push("Round", "30");
        t.push("Round", "31");
        t.push("bad name", "x");
        t.push("lowercase", "x");
        let w = check_tags(&t);
        let names: Vec<&str> = w.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["Round", "bad name", "lowercase"]);
        let w = check_tags(&tags(&[("Event", "x")]));
        assert_eq!(w.len(), 6);
        let mut t = tags(&STR);
        t.push("SetUp", "1");
        t.push("FEN", "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39");
        assert_eq!(check_tags(&t), vec![]);
        t.set("FEN", "4k3/8/8/8/8/8/4P3/4K3 w - - 5");
        assert!(check_tags(&t).is_empty(), "five-field FEN is read");
        t.set("FEN", "8/8/8/8/8/8/8/8 w - - 0 1");
        assert_eq!(check_tags(&t).len(), 1);
        let mut t = tags(&STR);
        t.push("FEN", "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39");
        assert_eq!(check_tags(&t).len(), 1, "FEN without SetUp");
    }

    #[test]
    fn game_checks_plycount_and_result() {
        let mut game = Game::new();
        game.tags = tags(&STR);
        game.tags.push("PlyCount", "2");
        game.result = Some(GameResult::WhiteWins);
        let w = check_game_tags(&game);
        assert_eq!(
            w.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
            ["PlyCount", "Result"]
        );
    }
}
