//! Text coding: the XOR schemes of the 1993 text and the cp850 code page.

/// Code page 850, bytes 0x80..=0xFF.
const CP850_HIGH: [char; 128] = [
    '\u{00c7}', '\u{00fc}', '\u{00e9}', '\u{00e2}', '\u{00e4}', '\u{00e0}', '\u{00e5}', '\u{00e7}',
    '\u{00ea}', '\u{00eb}', '\u{00e8}', '\u{00ef}', '\u{00ee}', '\u{00ec}', '\u{00c4}', '\u{00c5}',
    '\u{00c9}', '\u{00e6}', '\u{00c6}', '\u{00f4}', '\u{00f6}', '\u{00f2}', '\u{00fb}', '\u{00f9}',
    '\u{00ff}', '\u{00d6}', '\u{00dc}', '\u{00f8}', '\u{00a3}', '\u{00d8}', '\u{00d7}', '\u{0192}',
    '\u{00e1}', '\u{00ed}', '\u{00f3}', '\u{00fa}', '\u{00f1}', '\u{00d1}', '\u{00aa}', '\u{00ba}',
    '\u{00bf}', '\u{00ae}', '\u{00ac}', '\u{00bd}', '\u{00bc}', '\u{00a1}', '\u{00ab}', '\u{00bb}',
    '\u{2591}', '\u{2592}', '\u{2593}', '\u{2502}', '\u{2524}', '\u{00c1}', '\u{00c2}', '\u{00c0}',
    '\u{00a9}', '\u{2563}', '\u{2551}', '\u{2557}', '\u{255d}', '\u{00a2}', '\u{00a5}', '\u{2510}',
    '\u{2514}', '\u{2534}', '\u{252c}', '\u{251c}', '\u{2500}', '\u{253c}', '\u{00e3}', '\u{00c3}',
    '\u{255a}', '\u{2554}', '\u{2569}', '\u{2566}', '\u{2560}', '\u{2550}', '\u{256c}', '\u{00a4}',
    '\u{00f0}', '\u{00d0}', '\u{00ca}', '\u{00cb}', '\u{00c8}', '\u{0131}', '\u{00cd}', '\u{00ce}',
    '\u{00cf}', '\u{2518}', '\u{250c}', '\u{2588}', '\u{2584}', '\u{00a6}', '\u{00cc}', '\u{2580}',
    '\u{00d3}', '\u{00df}', '\u{00d4}', '\u{00d2}', '\u{00f5}', '\u{00d5}', '\u{00b5}', '\u{00fe}',
    '\u{00de}', '\u{00da}', '\u{00db}', '\u{00d9}', '\u{00fd}', '\u{00dd}', '\u{00af}', '\u{00b4}',
    '\u{00ad}', '\u{00b1}', '\u{2017}', '\u{00be}', '\u{00b6}', '\u{00a7}', '\u{00f7}', '\u{00b8}',
    '\u{00b0}', '\u{00a8}', '\u{00b7}', '\u{00b9}', '\u{00b3}', '\u{00b2}', '\u{25a0}', '\u{00a0}',
];

/// Decodes cp850 bytes to a string.
pub fn cp850_decode(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| cp850_char(b)).collect()
}

/// The character of one cp850 byte.
pub fn cp850_char(b: u8) -> char {
    if b < 0x80 {
        char::from(b)
    } else {
        CP850_HIGH[usize::from(b - 0x80)]
    }
}

/// The cp850 byte of `c`, if the code page has it.
pub fn cp850_byte(c: char) -> Option<u8> {
    if c.is_ascii() {
        return Some(c as u8);
    }
    CP850_HIGH
        .iter()
        .position(|&h| h == c)
        .map(|i| 0x80 + i as u8)
}

/// Decodes (or encodes: XOR is its own inverse) the header: every byte from
/// the last is XORed with a key starting at 101 and multiplied by 3 each step.
/// The byte-11 fix-up is applied separately ([`header_fixup`]).
pub fn xor_header(header: &mut [u8; 14]) {
    let mut k: u8 = 101;
    for b in header.iter_mut().rev() {
        *b ^= k;
        k = k.wrapping_mul(3);
    }
}

/// The byte-11 fix-up value: `14 + (b4 & 63) + (b5 & 63)` of the plain header.
pub fn header_fixup(header: &[u8; 14]) -> u8 {
    14u8.wrapping_add(header[4] & 63)
        .wrapping_add(header[5] & 63)
}

/// Decodes (or encodes) the player+source text of total length `l`:
/// key `3*l`, times 3, from the last byte backwards.
pub fn xor_text(text: &mut [u8]) {
    let mut k = (text.len() as u8).wrapping_mul(3);
    for b in text.iter_mut().rev() {
        *b ^= k;
        k = k.wrapping_mul(3);
    }
}

/// Decodes (or encodes) the move bytes: `s = mlen` (bytes + 1); bytes
/// `s-2` down to 1 are XORed with a key starting at `49*s`, times 7;
/// byte 0 is not coded.
pub fn xor_moves(moves: &mut [u8], mlen: u16) {
    let mut k = (mlen as u8).wrapping_mul(49);
    let last = usize::from(mlen)
        .saturating_sub(2)
        .min(moves.len().saturating_sub(1));
    for i in (1..=last).rev() {
        moves[i] ^= k;
        k = k.wrapping_mul(7);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp850_round_trips_every_byte() {
        for b in 0..=255u8 {
            assert_eq!(cp850_byte(cp850_char(b)), Some(b));
        }
        assert_eq!(cp850_decode(b"K\x94nig"), "K\u{f6}nig");
        assert_eq!(cp850_byte('\u{20ac}'), None);
    }

    /// The spec's C loops, transcribed literally.
    fn spec_header(h: &mut [u8; 14]) {
        let mut k: u8 = 101;
        let mut i: i32 = 13;
        while i >= 0 {
            h[i as usize] ^= k;
            i -= 1;
            k = k.wrapping_mul(3);
        }
        h[11] ^= 14u8.wrapping_add(h[4] & 63).wrapping_add(h[5] & 63);
    }

    #[test]
    fn header_matches_the_spec_loop() {
        let plain: [u8; 14] = [93, 2, 0, 5, 12, 7, 0, 0, 100, 90, 0x0a, 0x85, 2, 0];
        let mut via_spec = plain;
        // encoding = inverse of the spec decoding: fix-up on the plain bytes first
        via_spec[11] ^= header_fixup(&plain);
        xor_header(&mut via_spec);
        let mut decoded = via_spec;
        spec_header(&mut decoded);
        assert_eq!(decoded, plain);
        // the first coded byte (13) uses key 101, byte 12 uses 101*3 = 303 mod 256 = 47
        assert_eq!(via_spec[13], 101);
        assert_eq!(via_spec[12], 2 ^ 47);
    }

    #[test]
    fn text_key_is_three_times_length() {
        let mut t = *b"ab";
        xor_text(&mut t);
        // l = 2: byte 1 key 6, byte 0 key 18
        assert_eq!(t, [b'a' ^ 18, b'b' ^ 6]);
    }

    #[test]
    fn moves_skip_the_first_byte() {
        // s = mlen = 5: 4 move bytes; bytes 3, 2, 1 coded with 49*5=245, 245*7, ...
        let mut m = [11u8, 21, 31, 41];
        xor_moves(&mut m, 5);
        let k0: u8 = 245;
        let k1 = k0.wrapping_mul(7);
        let k2 = k1.wrapping_mul(7);
        assert_eq!(m, [11, 21 ^ k2, 31 ^ k1, 41 ^ k0]);
    }
}
