//! Text encodings. The standard says Latin-1; files in the wild are mostly
//! UTF-8. Each game is detected on its own: when every tag value and comment
//! of the game is valid UTF-8 it is read as UTF-8, otherwise the whole game
//! is read as Latin-1. Latin-1 maps each byte to one character (U+0000 to
//! U+00FF), so no byte is ever lost: exporting such a game with
//! [`Encoding::Latin1`] gives back exactly the bytes that were read.

use std::fmt;
use std::str::FromStr;

/// A text encoding of PGN data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// UTF-8 (the default for export).
    #[default]
    Utf8,
    /// ISO 8859-1, the standard's character set.
    Latin1,
}

impl Encoding {
    /// The encoding a game's texts need: UTF-8 if all are valid UTF-8.
    pub fn detect<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> Encoding {
        if texts
            .into_iter()
            .all(|t| t.is_ascii() || std::str::from_utf8(t).is_ok())
        {
            Encoding::Utf8
        } else {
            Encoding::Latin1
        }
    }

    /// Decodes `bytes` (lossless for Latin-1; invalid UTF-8 becomes U+FFFD,
    /// which [`Encoding::detect`] avoids).
    pub fn decode(self, bytes: &[u8]) -> String {
        match self {
            Encoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
            Encoding::Latin1 => bytes.iter().map(|&b| char::from(b)).collect(),
        }
    }

    /// The distinct characters of `text` this encoding cannot hold, in order
    /// of first appearance (none for UTF-8; above U+00FF for Latin-1).
    pub fn unrepresentable(self, text: &str) -> Vec<char> {
        let mut found: Vec<char> = Vec::new();
        if self == Encoding::Latin1 {
            // A set beside the list: a text of many distinct characters is
            // scanned in linear time.
            let mut seen = std::collections::HashSet::new();
            for c in text.chars().filter(|&c| u32::from(c) > 0xff) {
                if seen.insert(c) {
                    found.push(c);
                }
            }
        }
        found
    }

    /// Appends `text` in this encoding; returns how many characters Latin-1
    /// could not hold (each written as `?`; [`Encoding::unrepresentable`]
    /// names them).
    pub fn encode_to(self, text: &str, out: &mut Vec<u8>) -> usize {
        match self {
            Encoding::Utf8 => {
                out.extend_from_slice(text.as_bytes());
                0
            }
            Encoding::Latin1 => {
                let mut lost = 0;
                for c in text.chars() {
                    match u8::try_from(u32::from(c)) {
                        Ok(b) => out.push(b),
                        Err(_) => {
                            out.push(b'?');
                            lost += 1;
                        }
                    }
                }
                lost
            }
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Latin1 => "latin-1",
        })
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Encoding, String> {
        match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "utf8" => Ok(Encoding::Utf8),
            "latin1" | "iso88591" => Ok(Encoding::Latin1),
            _ => Err(format!("unknown encoding {s:?}: expected utf-8 or latin-1")),
        }
    }
}

/// Collapses every run of whitespace in a comment to one space (the
/// builder's normal form: line breaks inside comments are layout).
pub fn normalize_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c') {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}
