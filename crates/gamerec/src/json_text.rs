//! The JSON text helpers every JSON writer of the crate shares.

use std::fmt::Write as _;

/// Appends `s` as a JSON string literal (quotes, escapes, control
/// characters as `\u00XX`).
pub fn push_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        let mut out = String::new();
        super::push_string("a\"b\\c\nd\u{1}", &mut out);
        assert_eq!(out, r#""a\"b\\c\nd\u0001""#);
    }
}
