//! The collation order of the PGN standard (section 12, "PGN collating
//! sequence") used by `gamerec sort`, and the chronological archive layout of
//! section 11.4 used by `gamerec split --by-date`.
//!
//! Eight keys, most important first: Date (numerically by year, month, day;
//! `?` digits count as zero), Event, Site, Round (numerically; `?` before `-`
//! before any number), White, Black, Result (all ASCII), then the movetext
//! (ASCII, spaces and newlines included). Missing roster tags collate as the
//! export format fills them in: `????.??.??` for Date, `*` for Result, `?`
//! for the others. All functions are pure and work on tag values.

use std::cmp::Ordering;
use std::path::PathBuf;

use crate::model::Tags;

/// The numeric date key of a Date value: year, month, day, with `?` digits
/// as zero. Values that do not follow `YYYY.MM.DD` are read part by part
/// (`2017` is 2017-00-00, `1992.8.31` is 1992-08-31); an unreadable part is
/// zero.
pub fn date_key(value: &str) -> (u32, u32, u32) {
    let mut parts = value.trim().split('.').map(|p| {
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit() || b == b'?') {
            return 0;
        }
        p.bytes().fold(0u32, |acc, b| {
            acc * 10 + if b == b'?' { 0 } else { u32::from(b - b'0') }
        })
    });
    let year = parts.next().unwrap_or(0);
    let month = parts.next().unwrap_or(0);
    let day = parts.next().unwrap_or(0);
    (year, month, day)
}

/// Orders two Date values by [`date_key`].
pub fn compare_dates(a: &str, b: &str) -> Ordering {
    date_key(a).cmp(&date_key(b))
}

/// Compares digit strings by numeric value without overflow.
fn compare_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn round_class(value: &str) -> u8 {
    match value {
        "?" => 0,
        "-" => 1,
        _ if value
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) =>
        {
            2
        }
        _ => 3,
    }
}

/// Orders two Round values: `?` first, then `-`, then numbers in ascending
/// numeric order (multipart rounds part by part, `3` before `3.1` before
/// `3.2` before `4`), then anything else in ASCII order.
pub fn compare_rounds(a: &str, b: &str) -> Ordering {
    let (ca, cb) = (round_class(a), round_class(b));
    ca.cmp(&cb).then_with(|| match ca {
        2 => {
            let mut pa = a.split('.');
            let mut pb = b.split('.');
            loop {
                match (pa.next(), pb.next()) {
                    (Some(x), Some(y)) => match compare_numbers(x, y) {
                        Ordering::Equal => {}
                        other => return other,
                    },
                    (None, None) => return a.cmp(b),
                    (None, Some(_)) => return Ordering::Less,
                    (Some(_), None) => return Ordering::Greater,
                }
            }
        }
        _ => a.cmp(b),
    })
}

/// The value a roster tag collates by: the tag, or what the export format
/// writes when it is missing.
pub fn roster_value<'a>(tags: &'a Tags, name: &str) -> &'a str {
    tags.get(name).unwrap_or(match name {
        "Date" => "????.??.??",
        "Result" => "*",
        _ => "?",
    })
}

/// Orders two games by the first seven collation keys (the Seven Tag
/// Roster).
pub fn compare_tags(a: &Tags, b: &Tags) -> Ordering {
    compare_dates(roster_value(a, "Date"), roster_value(b, "Date"))
        .then_with(|| roster_value(a, "Event").cmp(roster_value(b, "Event")))
        .then_with(|| roster_value(a, "Site").cmp(roster_value(b, "Site")))
        .then_with(|| compare_rounds(roster_value(a, "Round"), roster_value(b, "Round")))
        .then_with(|| roster_value(a, "White").cmp(roster_value(b, "White")))
        .then_with(|| roster_value(a, "Black").cmp(roster_value(b, "Black")))
        .then_with(|| roster_value(a, "Result").cmp(roster_value(b, "Result")))
}

/// Orders two games by all eight collation keys; `movetext` is the game's
/// movetext as written (export format), compared as ASCII.
pub fn compare_games(a: &Tags, a_movetext: &str, b: &Tags, b_movetext: &str) -> Ordering {
    compare_tags(a, b).then_with(|| a_movetext.cmp(b_movetext))
}

/// Sorts games into collation order, stably: games equal in all eight keys
/// keep their input order. `key` gives a game's tags and movetext.
pub fn sort_games<T>(games: &mut [T], key: impl Fn(&T) -> (&Tags, &str)) {
    games.sort_by(|x, y| {
        let (ta, ma) = key(x);
        let (tb, mb) = key(y);
        compare_games(ta, ma, tb, mb)
    });
}

/// How finely `split --by-date` divides an archive (section 11.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ArchiveGranularity {
    /// One file per year: `YYYY.pgn`.
    Year,
    /// One file per month in a directory per year: `YYYY/YYYYMM.pgn`.
    #[default]
    Month,
    /// One file per day in directories per year and month:
    /// `YYYY/YYYYMM/YYYYMMDD.pgn`.
    Day,
}

/// The archive file (relative path) of a game with this Date value: `?`
/// digits count as zero for file naming as for collation, so `1993.??.??`
/// goes to `1993/199300.pgn` by month. A year above 9999 or a month or day
/// above 99 (not a date) counts as zero.
pub fn archive_path(date: &str, granularity: ArchiveGranularity) -> PathBuf {
    let (y, m, d) = date_key(date);
    let y = if y > 9999 { 0 } else { y };
    let m = if m > 99 { 0 } else { m };
    let d = if d > 99 { 0 } else { d };
    let year = format!("{y:04}");
    let month = format!("{y:04}{m:02}");
    match granularity {
        ArchiveGranularity::Year => PathBuf::from(format!("{year}.pgn")),
        ArchiveGranularity::Month => PathBuf::from(year).join(format!("{month}.pgn")),
        ArchiveGranularity::Day => PathBuf::from(year)
            .join(&month)
            .join(format!("{month}{d:02}.pgn")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs.iter().copied().collect()
    }

    #[test]
    fn dates_with_queries_are_zero() {
        assert_eq!(date_key("1993.??.??"), (1993, 0, 0));
        assert_eq!(date_key("????.??.??"), (0, 0, 0));
        assert_eq!(date_key("1992.08.31"), (1992, 8, 31));
        assert_eq!(date_key("19??.05.1?"), (1900, 5, 10));
        assert_eq!(date_key("2017"), (2017, 0, 0));
        assert_eq!(date_key("garbage"), (0, 0, 0));
        assert_eq!(date_key(""), (0, 0, 0));
        let mut dates = vec![
            "1993.02.01",
            "1993.??.??",
            "1992.12.31",
            "????.??.??",
            "1993.01.??",
            "1993.01.05",
        ];
        dates.sort_by(|a, b| compare_dates(a, b));
        assert_eq!(
            dates,
            [
                "????.??.??",
                "1992.12.31",
                "1993.??.??",
                "1993.01.??",
                "1993.01.05",
                "1993.02.01"
            ]
        );
    }

    #[test]
    fn rounds_query_hyphen_numbers() {
        let mut rounds = vec![
            "10", "2", "-", "3.10", "3.2", "?", "3", "x", "02", "4.1.2", "4.1",
        ];
        rounds.sort_by(|a, b| compare_rounds(a, b));
        assert_eq!(
            rounds,
            [
                "?", "-", "02", "2", "3", "3.2", "3.10", "4.1", "4.1.2", "10", "x"
            ]
        );
        assert_eq!(
            compare_rounds("99999999999999999999999", "100000000000000000000000"),
            Ordering::Less
        );
    }

    #[test]
    fn eight_keys_in_order() {
        let g = |date: &str,
                 event: &str,
                 site: &str,
                 round: &str,
                 white: &str,
                 black: &str,
                 result: &str| {
            tags(&[
                ("Event", event),
                ("Site", site),
                ("Date", date),
                ("Round", round),
                ("White", white),
                ("Black", black),
                ("Result", result),
            ])
        };
        let base = g("2000.01.01", "E", "S", "1", "W", "B", "1-0");
        let cases = [
            g("1999.12.31", "Z", "Z", "9", "Z", "Z", "1-0"),
            g("2000.01.01", "D", "Z", "9", "Z", "Z", "1-0"),
            g("2000.01.01", "E", "R", "9", "Z", "Z", "1-0"),
            g("2000.01.01", "E", "S", "-", "Z", "Z", "1-0"),
            g("2000.01.01", "E", "S", "1", "V", "Z", "1-0"),
            g("2000.01.01", "E", "S", "1", "W", "A", "1-0"),
            g("2000.01.01", "E", "S", "1", "W", "B", "0-1"),
        ];
        for (i, earlier) in cases.iter().enumerate() {
            assert_eq!(
                compare_tags(earlier, &base),
                Ordering::Less,
                "key {}",
                i + 1
            );
            assert_eq!(
                compare_tags(&base, earlier),
                Ordering::Greater,
                "key {}",
                i + 1
            );
        }
        assert_eq!(
            compare_games(&base, "1. d4 *", &base, "1. e4 *"),
            Ordering::Less
        );
        assert_eq!(
            compare_games(&base, "1. e4 e5 *", &base, "1. e4\ne5 *"),
            Ordering::Greater,
            "space sorts after newline"
        );
    }

    #[test]
    fn missing_roster_tags_collate_as_exported() {
        let empty = Tags::new();
        let filled = tags(&[
            ("Event", "?"),
            ("Site", "?"),
            ("Date", "????.??.??"),
            ("Round", "?"),
            ("White", "?"),
            ("Black", "?"),
            ("Result", "*"),
        ]);
        assert_eq!(compare_tags(&empty, &filled), Ordering::Equal);
    }

    #[test]
    fn sort_is_stable() {
        let a = tags(&[("Date", "2000.01.01"), ("White", "A")]);
        let b = tags(&[("Date", "1999.01.01")]);
        let mut games = vec![
            (a.clone(), "x", 0),
            (b.clone(), "y", 1),
            (a.clone(), "x", 2),
            (b, "y", 3),
            (a, "w", 4),
        ];
        sort_games(&mut games, |g| (&g.0, g.1));
        assert_eq!(
            games.iter().map(|g| g.2).collect::<Vec<_>>(),
            [1, 3, 4, 0, 2]
        );
    }

    #[test]
    fn archive_paths_of_section_11_4() {
        use ArchiveGranularity::*;
        assert_eq!(archive_path("1992.11.04", Year), PathBuf::from("1992.pgn"));
        assert_eq!(
            archive_path("1992.11.04", Month),
            PathBuf::from("1992/199211.pgn")
        );
        assert_eq!(
            archive_path("1992.11.04", Day),
            PathBuf::from("1992/199211/19921104.pgn")
        );
        assert_eq!(
            archive_path("1993.??.??", Month),
            PathBuf::from("1993/199300.pgn")
        );
        assert_eq!(
            archive_path("????.??.??", Day),
            PathBuf::from("0000/000000/00000000.pgn")
        );
        assert_eq!(
            archive_path("123456.1.1", Month),
            PathBuf::from("0000/000001.pgn")
        );
        // File names have the standard's lengths: 8, 10 and 12 characters.
        for (g, len) in [(Year, 8), (Month, 10), (Day, 12)] {
            let p = archive_path("2001.01.01", g);
            assert_eq!(p.file_name().unwrap().len(), len);
        }
    }
}
