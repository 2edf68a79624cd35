//! Comments (1993 text, section 2.5; tables in `chessbase-notes.md`).
//!
//! The comment area starts with one extra `0xFF`. Each comment is
//! `move [pos] [extra] [NULL..] [string]` ended by `0xFF`; a field is present
//! only if it or a later field has a value, and a `0xFF` in an evaluation
//! slot ends the comment early. In the text, 177-182 stand for the piece
//! symbols K Q N B R P, `0xFE` for a line break and `0x00` for a space.
//!
//! Evaluations map to NAGs. The few that have no NAG of their own (move
//! evaluation 7 "mate", extra evaluation 7 "break", codes past the tables)
//! or share one (extra 2 and 5 "better", move 8 and extra 3 "idea") are kept
//! exactly in a comment command `[%cbeval MOVE POS EXTRA]` so they survive a
//! round trip.

use super::text::{cp850_byte, cp850_char};

/// One comment as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CbComment {
    /// Move evaluation (`!` command): 0 none, 1-9.
    pub move_eval: u8,
    /// Position evaluation (`=` command): 0 none, 1-15.
    pub pos_eval: u8,
    /// Additional evaluation: 0 none, 1-7.
    pub extra_eval: u8,
    /// The text bytes as stored (cp850 with ChessBase's symbols).
    pub text: Vec<u8>,
}

/// NAGs of the move evaluations 1-9 (7 "mate" has none).
pub const MOVE_NAGS: [Option<u8>; 9] = [
    Some(1),
    Some(2),
    Some(5),
    Some(6),
    Some(3),
    Some(4),
    None,
    Some(140),
    Some(142),
];
/// NAGs of the position evaluations 1-15.
pub const POS_NAGS: [Option<u8>; 15] = [
    Some(18),
    Some(16),
    Some(14),
    Some(10),
    Some(13),
    Some(15),
    Some(17),
    Some(19),
    Some(44),
    Some(45),
    Some(132),
    Some(36),
    Some(40),
    Some(138),
    Some(8),
];
/// NAGs of the extra evaluations 1-7 (7 "break" has none).
pub const EXTRA_NAGS: [Option<u8>; 7] = [
    Some(145),
    Some(142),
    Some(140),
    Some(144),
    Some(142),
    Some(143),
    None,
];

fn lookup(table: &[Option<u8>], code: u8) -> Option<u8> {
    table
        .get(usize::from(code).checked_sub(1)?)
        .copied()
        .flatten()
}

fn reverse(table: &[Option<u8>], nag: u8) -> Option<u8> {
    table
        .iter()
        .position(|&n| n == Some(nag))
        .map(|i| i as u8 + 1)
}

/// The NAGs of an evaluation triple.
pub fn evals_to_nags(move_eval: u8, pos_eval: u8, extra_eval: u8) -> Vec<u8> {
    [
        lookup(&MOVE_NAGS, move_eval),
        lookup(&POS_NAGS, pos_eval),
        lookup(&EXTRA_NAGS, extra_eval),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The evaluation triple for `nags` and the NAGs that have no free slot.
pub fn nags_to_evals(nags: &[u8]) -> ((u8, u8, u8), Vec<u8>) {
    let (mut m, mut p, mut e) = (0, 0, 0);
    let mut left = Vec::new();
    for &nag in nags {
        if let Some(code) = reverse(&MOVE_NAGS, nag).filter(|_| m == 0) {
            m = code;
        } else if let Some(code) = reverse(&POS_NAGS, nag).filter(|_| p == 0) {
            p = code;
        } else if let Some(code) = reverse(&EXTRA_NAGS, nag).filter(|_| e == 0) {
            e = code;
        } else {
            left.push(nag);
        }
    }
    ((m, p, e), left)
}

/// The comment command that keeps an evaluation triple exactly.
pub fn cbeval_command(m: u8, p: u8, e: u8) -> String {
    format!("[%cbeval {m} {p} {e}]")
}

/// Splits a leading `[%cbeval M P E]` command off a comment text.
pub fn take_cbeval(text: &str) -> Option<((u8, u8, u8), &str)> {
    let rest = text.strip_prefix("[%cbeval ")?;
    let end = rest.find(']')?;
    let mut it = rest[..end].split(' ').map(|s| s.parse::<u8>());
    let triple = (it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?);
    if it.next().is_some() {
        return None;
    }
    let rest = &rest[end + 1..];
    Some((triple, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// Reads one comment at `*at` in the comment area (after the extra `0xFF`),
/// moving `*at` past its closing `0xFF`. Never reads past `area`.
pub fn parse_comment(area: &[u8], at: &mut usize) -> CbComment {
    let mut c = CbComment::default();
    let mut next = || {
        let b = area.get(*at).copied();
        if b.is_some() {
            *at += 1;
        }
        b
    };
    for slot in 0..3 {
        match next() {
            None | Some(0xff) => return c,
            Some(v) => match slot {
                0 => c.move_eval = v,
                1 => c.pos_eval = v,
                _ => c.extra_eval = v,
            },
        }
    }
    let mut b = next();
    while b == Some(0) {
        b = next();
    }
    while let Some(v) = b {
        if v == 0xff {
            break;
        }
        c.text.push(v);
        b = next();
    }
    c
}

/// Appends a comment (with its closing `0xFF`) to `out`.
pub fn emit_comment(c: &CbComment, out: &mut Vec<u8>) {
    out.push(c.move_eval);
    if c.pos_eval != 0 || c.extra_eval != 0 || !c.text.is_empty() {
        out.push(c.pos_eval);
    }
    if c.extra_eval != 0 || !c.text.is_empty() {
        out.push(c.extra_eval);
    }
    if !c.text.is_empty() {
        out.push(0);
        out.extend_from_slice(&c.text);
    }
    out.push(0xff);
}

/// The text of stored comment bytes.
pub fn decode_text(raw: &[u8]) -> String {
    raw.iter()
        .map(|&b| match b {
            0x00 => ' ',
            0xfe => '\n',
            0xb1 => 'K',
            0xb2 => 'Q',
            0xb3 => 'N',
            0xb4 => 'B',
            0xb5 => 'R',
            0xb6 => 'P',
            _ => cp850_char(b),
        })
        .collect()
}

/// Stored bytes of a comment text; the characters that cannot be stored
/// (not in cp850, or cp850 bytes that ChessBase reserves) become `?` and are
/// returned beside.
pub fn encode_text(text: &str) -> (Vec<u8>, Vec<char>) {
    let mut out = Vec::with_capacity(text.len());
    let mut bad = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push(0xfe);
            continue;
        }
        if c == '\n' {
            out.push(0xfe);
            continue;
        }
        match cp850_byte(c) {
            Some(b) if b != 0 && !(0xb1..=0xb6).contains(&b) && b < 0xfe => out.push(b),
            _ => {
                bad.push(c);
                out.push(b'?');
            }
        }
    }
    (out, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(area: &[u8]) -> Vec<CbComment> {
        assert_eq!(area[0], 0xff, "the extra 0xFF");
        let mut at = 1;
        let mut out = Vec::new();
        while at < area.len() {
            out.push(parse_comment(area, &mut at));
        }
        out
    }

    #[test]
    fn text_only_is_four_zero_bytes_then_text() {
        // The text's example: START NULL NULL NULL NULL string.
        let mut area = vec![0xff, 0, 0, 0, 0];
        area.extend_from_slice(b"This is a great move");
        area.push(0xff);
        let c = parse_all(&area);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].move_eval, c[0].pos_eval, c[0].extra_eval), (0, 0, 0));
        assert_eq!(decode_text(&c[0].text), "This is a great move");
        let mut out = vec![0xff];
        emit_comment(&c[0], &mut out);
        assert_eq!(out, area);
    }

    #[test]
    fn each_optional_form() {
        let area = [
            0xff, // extra START
            1, 0xff, // move only: !
            0, 1, 0xff, // position only: +-
            5, 4, 2, 0xff, // !!, =, better
            3, 0, 0, 0, b'x', 0xb1, 0xfe, 0xb6, 0x00, b'y', 0xff, // !? and text with symbols
            0, 0, 0, b'z', 0xff, // text without the NULL
        ];
        let c = parse_all(&area);
        assert_eq!(c.len(), 5);
        assert_eq!(
            c[0],
            CbComment {
                move_eval: 1,
                ..Default::default()
            }
        );
        assert_eq!(c[1].pos_eval, 1);
        assert_eq!((c[2].move_eval, c[2].pos_eval, c[2].extra_eval), (5, 4, 2));
        assert_eq!(c[3].move_eval, 3);
        assert_eq!(decode_text(&c[3].text), "xK\nP y");
        assert_eq!(decode_text(&c[4].text), "z");
        assert_eq!(evals_to_nags(1, 0, 0), vec![1]);
        assert_eq!(evals_to_nags(0, 1, 0), vec![18]);
        assert_eq!(evals_to_nags(5, 4, 2), vec![3, 10, 142]);
        // re-emitting the first four gives the same bytes
        let mut out = vec![0xff];
        for c in &c[..4] {
            emit_comment(c, &mut out);
        }
        assert_eq!(&out[..], &area[..out.len()]);
    }

    #[test]
    fn truncated_area_ends_cleanly() {
        let mut at = 0;
        let c = parse_comment(&[1, 2], &mut at);
        assert_eq!((c.move_eval, c.pos_eval, at), (1, 2, 2));
        let mut at = 0;
        let c = parse_comment(&[0, 0, 0, 0, b'a', b'b'], &mut at);
        assert_eq!(c.text, b"ab");
    }

    #[test]
    fn all_tables_map_and_reverse() {
        for m in 0..=9u8 {
            for p in 0..=15u8 {
                let nags = evals_to_nags(m, p, 0);
                let ((m2, p2, _), left) = nags_to_evals(&nags);
                assert!(left.is_empty());
                if m != 7 {
                    assert_eq!((m2, p2), (m, p));
                }
            }
        }
        let ((m, p, e), left) = nags_to_evals(&[1, 3, 18, 145, 11]);
        assert_eq!((m, p, e), (1, 1, 1));
        assert_eq!(left, vec![3, 11]);
    }

    #[test]
    fn cbeval_command_round_trips() {
        let text = format!("{} hello", cbeval_command(7, 0, 5));
        assert_eq!(take_cbeval(&text), Some(((7, 0, 5), "hello")));
        assert_eq!(take_cbeval("[%cbeval 1 2]"), None);
        assert_eq!(take_cbeval("plain"), None);
    }

    #[test]
    fn text_encoding_reports_what_cannot_be_stored() {
        let (bytes, bad) = encode_text("K\u{f6}nig\n\u{20ac}\u{c1}");
        assert_eq!(bytes, vec![b'K', 0x94, b'n', b'i', b'g', 0xfe, b'?', b'?']);
        assert_eq!(bad, vec!['\u{20ac}', '\u{c1}']);
    }
}
