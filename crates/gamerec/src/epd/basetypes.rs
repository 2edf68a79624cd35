//! Operand basetypes of EPD section 5.2: identifier, integer, float, date,
//! time of day, clock and string. Chess moves (5.2.2) are resolved against a
//! position by the reader (see [`super::reader`]).
//!
//! Every parser takes the operand text exactly as written and returns what
//! was expected when it does not fit.

use std::fmt;

/// Longest identifier and opcode (5.1, 5.2.1): 15 characters.
pub const MAX_IDENTIFIER_LEN: usize = 15;

/// A string operand must have fewer than this many bytes (5.1).
pub const STRING_LIMIT: usize = 256;

/// Whether `text` is an identifier: 1-15 letters, digits or underscores.
pub fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_IDENTIFIER_LEN
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Checks an identifier operand (5.2.1).
pub fn parse_identifier(text: &str) -> Result<&str, String> {
    let shown = crate::excerpt::excerpt(text);
    if text.is_empty() {
        return Err("expected an identifier".into());
    }
    if text.len() > MAX_IDENTIFIER_LEN {
        return Err(format!(
            "identifier `{shown}` is longer than {MAX_IDENTIFIER_LEN} characters"
        ));
    }
    if let Some(bad) = text
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(format!(
            "identifier `{shown}` contains `{}`: expected letters, digits or `_`",
            bad.escape_debug()
        ));
    }
    Ok(text)
}

/// Checks an opcode mnemonic (5.1, 5.3): a letter, then up to 14 letters,
/// digits or underscores.
pub fn parse_opcode(text: &str) -> Result<&str, String> {
    let shown = crate::excerpt::excerpt(text);
    match text.bytes().next() {
        None => Err("expected an opcode".into()),
        Some(b) if !b.is_ascii_alphabetic() => {
            Err(format!("opcode `{shown}` must start with a letter"))
        }
        Some(_) => parse_identifier(text).map_err(|e| e.replace("identifier", "opcode")),
    }
}

/// Whether an opcode is private to one program (5.3: starts with an
/// uppercase letter).
pub fn is_private_opcode(opcode: &str) -> bool {
    opcode
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_uppercase())
}

/// Reads an integer operand (5.2.3): optional sign, then digits. The value
/// must fit 64 bits; per-opcode ranges are checked by the opcode.
pub fn parse_integer(text: &str) -> Result<i64, String> {
    let shown = crate::excerpt::excerpt(text);
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected an integer, found `{shown}`"));
    }
    text.parse::<i64>()
        .map_err(|_| format!("integer `{shown}` is out of range"))
}

/// Reads an integer operand that must lie in `range` (inclusive).
pub fn parse_integer_in(text: &str, min: i64, max: i64) -> Result<i64, String> {
    let value = parse_integer(text)?;
    if value < min || value > max {
        return Err(format!(
            "integer {value} is out of range: expected {min}..={max}"
        ));
    }
    Ok(value)
}

/// A floating-point operand (5.2.4): sign, digits, `.`, digits. Kept as
/// written (the basetype is not used by any standard opcode).
#[derive(Debug, Clone, PartialEq)]
pub struct EpdFloat {
    /// The value.
    pub value: f64,
    /// The text as written.
    pub text: String,
}

/// Reads a floating-point operand (5.2.4).
pub fn parse_float(text: &str) -> Result<EpdFloat, String> {
    let shown = crate::excerpt::excerpt(text);
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let ok = match body.split_once('.') {
        Some((int, frac)) => {
            !int.is_empty()
                && !frac.is_empty()
                && int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    };
    if !ok {
        return Err(format!(
            "expected a floating point number like `-1.25`, found `{shown}`"
        ));
    }
    let value = text
        .parse::<f64>()
        .map_err(|_| format!("bad floating point number `{shown}`"))?;
    Ok(EpdFloat {
        value,
        text: text.to_string(),
    })
}

/// A date `YYYY.MM.DD` (5.2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EpdDate {
    /// 1..=9999
    pub year: u16,
    /// 1..=12
    pub month: u8,
    /// 1..=31
    pub day: u8,
}

impl fmt::Display for EpdDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

/// A time of day `hh:mm:ss` (5.2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EpdTime {
    /// 0..=23
    pub hour: u8,
    /// 0..=59
    pub minute: u8,
    /// 0..=59
    pub second: u8,
}

impl fmt::Display for EpdTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

/// A clock value `ddd:hh:mm:ss` (5.2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EpdClock {
    /// 0..=999
    pub days: u16,
    /// 0..=23
    pub hours: u8,
    /// 0..=59
    pub minutes: u8,
    /// 0..=59
    pub seconds: u8,
}

impl EpdClock {
    /// The clock from a count of seconds (saturating at 999:23:59:59).
    pub fn from_seconds(total: u64) -> EpdClock {
        let total = total.min(999 * 86_400 + 86_399);
        EpdClock {
            days: (total / 86_400) as u16,
            hours: (total / 3600 % 24) as u8,
            minutes: (total / 60 % 60) as u8,
            seconds: (total % 60) as u8,
        }
    }

    /// The clock as a count of seconds.
    pub fn as_seconds(self) -> u64 {
        u64::from(self.days) * 86_400
            + u64::from(self.hours) * 3600
            + u64::from(self.minutes) * 60
            + u64::from(self.seconds)
    }
}

impl fmt::Display for EpdClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:03}:{:02}:{:02}:{:02}",
            self.days, self.hours, self.minutes, self.seconds
        )
    }
}

/// Reads `text` as fixed-width digit groups separated by `sep`, each group
/// within its inclusive range.
fn digit_groups(
    text: &str,
    sep: char,
    widths_ranges: &[(usize, u32, u32)],
    what: &str,
    example: &str,
) -> Result<Vec<u32>, String> {
    let shown = crate::excerpt::excerpt(text);
    let bad = || format!("expected a {what} `{example}`, found `{shown}`");
    let parts: Vec<&str> = text.split(sep).collect();
    if parts.len() != widths_ranges.len() {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(parts.len());
    for (part, &(width, min, max)) in parts.iter().zip(widths_ranges) {
        if part.len() != width || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let value: u32 = part.parse().map_err(|_| bad())?;
        if value < min || value > max {
            return Err(format!(
                "{what} `{shown}`: field `{part}` is out of range {min:0width$}-{max:0width$}"
            ));
        }
        out.push(value);
    }
    Ok(out)
}

/// Reads a date `YYYY.MM.DD` (5.2.5).
pub fn parse_date(text: &str) -> Result<EpdDate, String> {
    let v = digit_groups(
        text,
        '.',
        &[(4, 1, 9999), (2, 1, 12), (2, 1, 31)],
        "date",
        "YYYY.MM.DD",
    )?;
    Ok(EpdDate {
        year: v[0] as u16,
        month: v[1] as u8,
        day: v[2] as u8,
    })
}

/// Reads a time of day `hh:mm:ss` (5.2.6).
pub fn parse_time(text: &str) -> Result<EpdTime, String> {
    let v = digit_groups(
        text,
        ':',
        &[(2, 0, 23), (2, 0, 59), (2, 0, 59)],
        "time of day",
        "hh:mm:ss",
    )?;
    Ok(EpdTime {
        hour: v[0] as u8,
        minute: v[1] as u8,
        second: v[2] as u8,
    })
}

/// Reads a clock value `ddd:hh:mm:ss` (5.2.7).
pub fn parse_clock(text: &str) -> Result<EpdClock, String> {
    let v = digit_groups(
        text,
        ':',
        &[(3, 0, 999), (2, 0, 23), (2, 0, 59), (2, 0, 59)],
        "clock value",
        "ddd:hh:mm:ss",
    )?;
    Ok(EpdClock {
        days: v[0] as u16,
        hours: v[1] as u8,
        minutes: v[2] as u8,
        seconds: v[3] as u8,
    })
}

/// Checks the content of a string operand (5.1): fewer than 256 bytes, no
/// control characters.
pub fn check_string(value: &str) -> Result<(), String> {
    if value.len() >= STRING_LIMIT {
        return Err(format!(
            "string of {} bytes: EPD strings must have fewer than {STRING_LIMIT} bytes",
            value.len()
        ));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(format!(
            "string contains control character U+{:04X}",
            c as u32
        ));
    }
    Ok(())
}

/// Appends `value` as a quoted EPD string. A `"` is written `\"`; a `\` is
/// doubled only where a reader would otherwise take it as an escape (before
/// `"` or `\`, or last), so strings without such sequences are written
/// byte for byte.
pub fn write_string(value: &str, out: &mut String) {
    out.push('"');
    let bytes = value.as_bytes();
    for (i, c) in value.char_indices() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' if matches!(bytes.get(i + 1), None | Some(b'"') | Some(b'\\')) => {
                out.push_str("\\\\")
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(parse_identifier("sign_on").is_ok());
        assert!(parse_identifier("A1_b2").is_ok());
        assert!(parse_identifier("abcdefghijklmno").is_ok());
        assert!(parse_identifier("abcdefghijklmnop").is_err());
        assert!(parse_identifier("").is_err());
        assert!(parse_identifier("a-b").is_err());
        assert!(parse_identifier("\"a\"").is_err());
    }

    #[test]
    fn opcodes() {
        assert!(parse_opcode("draw_accept").is_ok());
        assert!(parse_opcode("c0").is_ok());
        assert!(parse_opcode("D4").is_ok());
        assert!(is_private_opcode("D4"));
        assert!(!is_private_opcode("bm"));
        assert!(
            parse_opcode("0")
                .unwrap_err()
                .contains("start with a letter")
        );
        assert!(parse_opcode("_x").is_err());
        assert!(parse_opcode("toolongopcode_xx").is_err());
        assert!(parse_opcode("a.b").is_err());
    }

    #[test]
    fn integers() {
        assert_eq!(parse_integer("0"), Ok(0));
        assert_eq!(parse_integer("-2147483648"), Ok(-2147483648));
        assert_eq!(parse_integer("+2147483647"), Ok(2147483647));
        assert_eq!(parse_integer("-32767"), Ok(-32767));
        assert!(parse_integer("").is_err());
        assert!(parse_integer("-").is_err());
        assert!(parse_integer("1.5").is_err());
        assert!(parse_integer("12a").is_err());
        assert!(parse_integer("--1").is_err());
        assert!(parse_integer("99999999999999999999").is_err());
        assert_eq!(parse_integer_in("32766", -32768, 32766), Ok(32766));
        assert!(parse_integer_in("32767", -32768, 32766).is_err());
        assert!(parse_integer_in("-32769", -32768, 32766).is_err());
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("1.5").map(|f| f.value), Ok(1.5));
        assert_eq!(parse_float("-0.25").map(|f| f.value), Ok(-0.25));
        assert_eq!(parse_float("+10.0").map(|f| f.text), Ok("+10.0".into()));
        for bad in ["1", "1.", ".5", "1e5", "1.5.2", "-", "a.b", ""] {
            assert!(parse_float(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates() {
        let d = parse_date("1995.11.26").unwrap();
        assert_eq!((d.year, d.month, d.day), (1995, 11, 26));
        assert_eq!(d.to_string(), "1995.11.26");
        assert!(parse_date("0001.01.01").is_ok());
        assert!(parse_date("9999.12.31").is_ok());
        for bad in [
            "0000.01.01",
            "1995.13.01",
            "1995.00.10",
            "1995.01.32",
            "1995.1.01",
            "95.01.01",
            "1995-01-01",
            "1995.01.01.",
            "",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times() {
        let t = parse_time("23:59:59").unwrap();
        assert_eq!(t.to_string(), "23:59:59");
        assert!(parse_time("00:00:00").is_ok());
        for bad in [
            "24:00:00", "12:60:00", "12:00:60", "1:00:00", "12:00", "12.00.00",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks() {
        let c = parse_clock("001:02:03:04").unwrap();
        assert_eq!(c.as_seconds(), 86_400 + 2 * 3600 + 3 * 60 + 4);
        assert_eq!(EpdClock::from_seconds(c.as_seconds()), c);
        assert_eq!(c.to_string(), "001:02:03:04");
        assert!(parse_clock("999:23:59:59").is_ok());
        for bad in [
            "000:24:00:00",
            "000:00:60:00",
            "00:00:00:00",
            "000:00:00",
            "1000:00:00:00",
        ] {
            assert!(parse_clock(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings() {
        assert!(check_string("WAC.001").is_ok());
        assert!(check_string(&"x".repeat(255)).is_ok());
        assert!(check_string(&"x".repeat(256)).is_err());
        assert!(check_string("a\tb").is_err());
        let mut out = String::new();
        write_string(r#"say "hi" C:\dir\"#, &mut out);
        assert_eq!(out, r#""say \"hi\" C:\dir\\""#);
    }
}
