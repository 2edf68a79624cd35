//! Character sets: the `CA` property, byte-order marks, UTF-16 without BOM.
//!
//! SGF structure is ASCII. For ASCII-safe encodings (UTF-8, single-byte
//! sets, EUC-JP, EUC-KR) the parser reads the bytes directly and decodes each
//! text value with its game's `CA`. Encodings whose multi-byte characters can
//! contain `\` or `]` bytes (Shift_JIS, Big5, GBK, GB18030, ISO-2022-JP) and
//! UTF-16 are decoded as a whole file to UTF-8 first.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

/// Finds the encoding for a `CA` value or a `--charset` option
/// (WHATWG labels, plus `EUC-CN`, `ISO8859_1`-style spellings).
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    let l = label.trim();
    if let Some(e) = Encoding::for_label(l.as_bytes()) {
        return Some(e);
    }
    let lower = l.to_ascii_lowercase().replace('_', "-");
    if let Some(e) = Encoding::for_label(lower.as_bytes()) {
        return Some(e);
    }
    match lower.as_str() {
        "euc-cn" | "euccn" | "gb-2312" | "cp936" | "ms936" => Some(encoding_rs::GBK),
        "utf16" => Some(UTF_16LE),
        "ascii" | "us-ascii" | "iso646-us" => Some(WINDOWS_1252),
        "sjis" | "shift-jis" | "cp932" => Some(encoding_rs::SHIFT_JIS),
        "big-5" | "cp950" => Some(encoding_rs::BIG5),
        _ => {
            // "ISO8859-1" -> "iso-8859-1"
            if let Some(rest) = lower.strip_prefix("iso8859") {
                let fixed = format!("iso-8859{rest}");
                return Encoding::for_label(fixed.as_bytes());
            }
            None
        }
    }
}

/// Whether a character of `enc` may contain the bytes `\` or `]`, so that the
/// file must be decoded before it is parsed.
pub fn must_decode_whole_file(enc: &'static Encoding) -> bool {
    enc == encoding_rs::SHIFT_JIS
        || enc == encoding_rs::BIG5
        || enc == encoding_rs::GBK
        || enc == encoding_rs::GB18030
        || enc == encoding_rs::ISO_2022_JP
}

/// How the whole input was decoded before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileDecoding {
    /// Parsed as bytes; text values decoded per game (`CA`).
    PerGame,
    /// The input was decoded to UTF-8 from this encoding before parsing
    /// (UTF-16, a BOM, a `--charset` override or a multi-byte `CA`).
    Whole(&'static Encoding),
}

/// Detects a byte-order mark or BOM-less UTF-16.
pub fn sniff_utf16(bytes: &[u8]) -> Option<(&'static Encoding, usize)> {
    match bytes {
        [0xFE, 0xFF, ..] => Some((UTF_16BE, 2)),
        [0xFF, 0xFE, ..] => Some((UTF_16LE, 2)),
        // BOM-less: the first non-space character is ASCII, the other byte 0.
        [0, a, ..] if *a != 0 && a.is_ascii() => Some((UTF_16BE, 0)),
        [a, 0, ..] if *a != 0 && a.is_ascii() => Some((UTF_16LE, 0)),
        _ => None,
    }
}

/// The charset label of the first game: the value of the last `CA`
/// property of the first node of the first game tree, in the first 64 KiB
/// of raw input. The node is read by the lexical rules (a value ends at an
/// unescaped `]`; lowercase letters in an identifier are ignored, as FF[3]
/// allows), so a `CA[` written inside another value is not taken.
pub fn first_ca(bytes: &[u8]) -> Option<&[u8]> {
    let head = &bytes[..bytes.len().min(65536)];
    let skip_space = |mut i: usize| {
        while i < head.len() && head[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = memchr::memchr(b'(', head)? + 1;
    loop {
        i = skip_space(i);
        match head.get(i) {
            Some(b'(') => i += 1,
            Some(b';') => break,
            _ => return None,
        }
    }
    i += 1;
    let mut label = None;
    loop {
        i = skip_space(i);
        if !head.get(i).is_some_and(u8::is_ascii_alphabetic) {
            return label;
        }
        let (mut upper, mut count) = ([0u8; 2], 0usize);
        while let Some(&c) = head.get(i).filter(|c| c.is_ascii_alphabetic()) {
            if c.is_ascii_uppercase() {
                if count < 2 {
                    upper[count] = c;
                }
                count += 1;
            }
            i += 1;
        }
        let is_ca = count == 2 && upper == *b"CA";
        let mut first_value = true;
        loop {
            i = skip_space(i);
            if head.get(i) != Some(&b'[') {
                break;
            }
            let start = i + 1;
            // The value's end: the first `]` not escaped by `\`.
            let mut j = start;
            loop {
                match memchr::memchr2(b']', b'\\', &head[j.min(head.len())..]) {
                    None => return label,
                    Some(k) if head[j + k] == b']' => {
                        j += k;
                        break;
                    }
                    Some(k) => j += k + 2,
                }
            }
            if is_ca && first_value {
                label = Some(&head[start..j]);
            }
            first_value = false;
            i = j + 1;
        }
    }
}

/// Decodes the whole input when needed; returns the text to parse and how
/// it was decoded.
pub fn prepare<'a>(
    bytes: &'a [u8],
    forced: Option<&'static Encoding>,
) -> (Cow<'a, [u8]>, FileDecoding) {
    if let Some(enc) = forced {
        let (text, _, _) = enc.decode(bytes);
        return (bytes_of(text), FileDecoding::Whole(enc));
    }
    if let [0xEF, 0xBB, 0xBF, rest @ ..] = bytes {
        return (Cow::Borrowed(rest), FileDecoding::Whole(UTF_8));
    }
    if let Some((enc, bom)) = sniff_utf16(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom..]);
        return (bytes_of(text), FileDecoding::Whole(enc));
    }
    if let Some(label) = first_ca(bytes)
        && let Ok(label) = std::str::from_utf8(label)
        && let Some(enc) = encoding_for_label(label)
        && must_decode_whole_file(enc)
    {
        let (text, _) = enc.decode_without_bom_handling(bytes);
        return (bytes_of(text), FileDecoding::Whole(enc));
    }
    (Cow::Borrowed(bytes), FileDecoding::PerGame)
}

fn bytes_of(text: Cow<'_, str>) -> Cow<'_, [u8]> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// Decodes one value. `enc` is the game's charset; `None` means no `CA`:
/// UTF-8 when the bytes are valid UTF-8, else ISO-8859-1 (as Windows-1252).
/// Returns the text and whether the bytes were malformed.
pub fn decode<'a>(bytes: &'a [u8], enc: Option<&'static Encoding>) -> (Cow<'a, str>, bool) {
    let utf16 = enc.is_some_and(|e| e == UTF_16LE || e == UTF_16BE);
    if !utf16 && bytes.is_ascii() {
        // Fast path: ASCII is valid UTF-8 and the same in every ASCII-safe set.
        return (
            Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default()),
            false,
        );
    }
    match enc {
        None => match std::str::from_utf8(bytes) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (WINDOWS_1252.decode_without_bom_handling(bytes).0, false),
        },
        Some(e) if e == UTF_8 => match std::str::from_utf8(bytes) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (
                Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
                true,
            ),
        },
        Some(e) => {
            let (s, malformed) = e.decode_without_bom_handling(bytes);
            (s, malformed)
        }
    }
}

/// The offset of the first byte of `bytes` not valid in `enc` (UTF-8 when
/// `None`; US-ASCII when `ascii`), if any.
pub fn first_malformed(bytes: &[u8], enc: Option<&'static Encoding>, ascii: bool) -> Option<usize> {
    if ascii {
        return bytes.iter().position(|&b| b >= 0x80);
    }
    let enc = match enc {
        None => return std::str::from_utf8(bytes).err().map(|e| e.valid_up_to()),
        Some(e) if e == UTF_8 => return std::str::from_utf8(bytes).err().map(|e| e.valid_up_to()),
        Some(e) => e,
    };
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(bytes.len())?);
    let (result, read) = decoder.decode_to_string_without_replacement(bytes, &mut out, true);
    match result {
        encoding_rs::DecoderResult::Malformed(bad, after) => {
            Some(read.saturating_sub(bad as usize + after as usize))
        }
        _ => None,
    }
}

/// Whether `label` names US-ASCII (which WHATWG labels read as Windows-1252).
pub fn is_ascii_label(label: &str) -> bool {
    matches!(
        label.trim().to_ascii_lowercase().as_str(),
        "ascii" | "us-ascii" | "ansi_x3.4-1968" | "iso646-us" | "us"
    )
}

#[cfg(test)]
mod tests {
    use super::first_ca;

    #[test]
    fn first_malformed_byte_is_found() {
        use super::first_malformed;
        assert_eq!(first_malformed(b"abc", None, false), None);
        assert_eq!(first_malformed(b"ab\xff", None, false), Some(2));
        assert_eq!(first_malformed(b"abc\xe9", None, true), Some(3));
        let sjis = encoding_rs::SHIFT_JIS;
        assert_eq!(first_malformed(b"\x82\xa0ok", Some(sjis), false), None);
        assert_eq!(first_malformed(b"ok\x82", Some(sjis), false), Some(2));
    }

    #[test]
    fn first_ca_reads_the_first_node_by_the_lexical_rules() {
        assert_eq!(
            first_ca(b"(;FF[4]CA[Shift_JIS]GM[1])"),
            Some(&b"Shift_JIS"[..])
        );
        assert_eq!(
            first_ca(b" ( ; GM [1] CA [ UTF-8 ] )"),
            Some(&b" UTF-8 "[..])
        );
        // FF[3] identifiers may carry lowercase letters.
        assert_eq!(first_ca(b"(;ChArset[GB2312])"), Some(&b"GB2312"[..]));
        // The last CA of the node wins, as in the parser.
        assert_eq!(first_ca(b"(;CA[a]CA[b])"), Some(&b"b"[..]));
        // Inside another value, escaped or not, `CA[` is text.
        assert_eq!(first_ca(b"(;C[see CA[Big5]]GM[1])"), None);
        assert_eq!(first_ca(b"(;C[x\\]CA[Big5]]GM[1])"), None);
        assert_eq!(first_ca(b"(;GC[x]ACA[Big5])"), None);
        // Only the first node counts.
        assert_eq!(first_ca(b"(;GM[1];CA[Big5])"), None);
        assert_eq!(first_ca(b"no game CA[Big5]"), None);
        assert_eq!(first_ca(b"(;CA[Big5"), None);
    }
}
