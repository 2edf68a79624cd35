//! Short, escaped quotations of offending input for messages.
//!
//! A message quotes the token it complains about, but the token comes from
//! the input: a 10 MB "move" must not make a 10 MB message, and a control
//! byte must not reach a terminal. [`excerpt`] shows at most
//! [`EXCERPT_CHARS`] characters, then `…` and the token's length in bytes;
//! control characters are escaped (`\n`, `\t`, `\0`, `\x01`, `\u{85}`) and
//! bytes that are not UTF-8 are shown as `\xNN`.
//!
//! ```
//! use gamerec::excerpt::excerpt;
//! assert_eq!(excerpt("Nf3").to_string(), "Nf3");
//! assert_eq!(excerpt(b"Bl\0ack\x01").to_string(), "Bl\\0ack\\x01");
//! let long = "e".repeat(100_000);
//! assert_eq!(excerpt(&long).to_string(), format!("{}… (100000 bytes)", "e".repeat(40)));
//! ```

use std::fmt::{self, Write};

/// Characters of a token shown before it is cut (an escape counts as one).
pub const EXCERPT_CHARS: usize = 40;

/// A token quoted for a message; see the [module docs](self).
#[derive(Clone, Copy, Debug)]
pub struct Excerpt<'a> {
    bytes: &'a [u8],
}

/// Quotes `text` (bytes or a string) for a message: at most
/// [`EXCERPT_CHARS`] characters, control bytes escaped.
pub fn excerpt<T: AsRef<[u8]> + ?Sized>(text: &T) -> Excerpt<'_> {
    Excerpt {
        bytes: text.as_ref(),
    }
}

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = 0;
        for chunk in self.bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                if shown == EXCERPT_CHARS {
                    return write!(f, "… ({} bytes)", self.bytes.len());
                }
                shown += 1;
                match c {
                    '\n' => f.write_str("\\n")?,
                    '\r' => f.write_str("\\r")?,
                    '\t' => f.write_str("\\t")?,
                    '\0' => f.write_str("\\0")?,
                    c if c.is_ascii_control() => write!(f, "\\x{:02x}", c as u32)?,
                    c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
                    c => f.write_char(c)?,
                }
            }
            for &b in chunk.invalid() {
                if shown == EXCERPT_CHARS {
                    return write!(f, "… ({} bytes)", self.bytes.len());
                }
                shown += 1;
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_are_shown_whole_and_escaped() {
        assert_eq!(excerpt("").to_string(), "");
        assert_eq!(excerpt("Ñf3").to_string(), "Ñf3");
        assert_eq!(excerpt(b"a\r\n\t\x7f").to_string(), "a\\r\\n\\t\\x7f");
        assert_eq!(excerpt(b"\xff\xfeK").to_string(), "\\xff\\xfeK");
        assert_eq!(excerpt("\u{85}\u{1b}").to_string(), "\\u{85}\\x1b");
    }

    #[test]
    fn long_tokens_are_cut_with_their_length() {
        let exact = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact).to_string(), exact);
        let long = "é".repeat(10_000_000);
        let shown = excerpt(&long).to_string();
        assert_eq!(
            shown,
            format!("{}… (20000000 bytes)", "é".repeat(EXCERPT_CHARS))
        );
        let controls = vec![0u8; 1 << 20];
        let shown = excerpt(&controls).to_string();
        assert!(shown.len() < 4 * EXCERPT_CHARS + 20, "{shown}");
        assert!(shown.ends_with("… (1048576 bytes)"));
    }
}
