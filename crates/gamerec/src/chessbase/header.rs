//! The 14-byte game header (1993 text, sections 2.1, 2.2 and 2.7).

use super::text::{header_fixup, xor_header};

/// Length of a game header.
pub const HEADER_LEN: usize = 14;

/// A decoded game header. Field names follow the 1993 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// The plain (decoded) bytes.
    pub bytes: [u8; HEADER_LEN],
}

impl Header {
    /// Decodes a header as stored: XOR from byte 13 down (key 101, times 3),
    /// then byte 11 ^= 14 + (b4 & 63) + (b5 & 63).
    pub fn decode(stored: [u8; HEADER_LEN]) -> Header {
        let mut bytes = stored;
        xor_header(&mut bytes);
        bytes[11] ^= header_fixup(&bytes);
        Header { bytes }
    }

    /// The bytes as stored (the inverse of [`Header::decode`]).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = self.bytes;
        out[11] ^= header_fixup(&self.bytes);
        xor_header(&mut out);
        out
    }

    /// Year of the game (`GY + 1900`), `None` for GY = 127.
    pub fn year(&self) -> Option<i32> {
        let gy = self.bytes[0] as i8;
        (gy != 127).then_some(1900 + i32::from(gy))
    }

    /// Sets the year; `None` stores 127. Years outside 1772..=2026 do not fit.
    pub fn set_year(&mut self, year: Option<i32>) -> Result<(), i32> {
        self.bytes[0] = match year {
            None => 127,
            Some(y) if (1772..=2026).contains(&y) => (y - 1900) as i8 as u8,
            Some(y) => return Err(y),
        };
        Ok(())
    }

    /// The result byte: bits 0-1 (0 = 0-1, 1 = draw, 2 = 1-0, 3 = variant in bits 2-5).
    pub fn result(&self) -> u8 {
        self.bytes[1]
    }

    /// `mlen`: number of move bytes + 1.
    pub fn mlen(&self) -> u16 {
        u16::from_be_bytes([self.bytes[2], self.bytes[3]])
    }

    /// Sets `mlen`.
    pub fn set_mlen(&mut self, mlen: u16) {
        [self.bytes[2], self.bytes[3]] = mlen.to_be_bytes();
    }

    /// Length of the player text (bits 0-5 of byte 4).
    pub fn plen(&self) -> usize {
        usize::from(self.bytes[4] & 63)
    }

    /// Length of the source text (bits 0-5 of byte 5).
    pub fn slen(&self) -> usize {
        usize::from(self.bytes[5] & 63)
    }

    /// Length of the comment area.
    pub fn clen(&self) -> u16 {
        u16::from_be_bytes([self.bytes[6], self.bytes[7]])
    }

    /// Sets the length of the comment area.
    pub fn set_clen(&mut self, clen: u16) {
        [self.bytes[6], self.bytes[7]] = clen.to_be_bytes();
    }

    /// White's Elo: `1600 + 5 * b8` when `b8 > 0`.
    pub fn white_elo(&self) -> Option<u32> {
        elo(self.bytes[8])
    }

    /// Black's Elo: `1600 + 5 * b9` when `b9 > 0`.
    pub fn black_elo(&self) -> Option<u32> {
        elo(self.bytes[9])
    }

    /// Whether the game has its own start position (bit 0 of byte 10).
    pub fn has_setup(&self) -> bool {
        self.bytes[10] & 1 != 0
    }

    /// Game marked (bit 6 of byte 10).
    pub fn marked(&self) -> bool {
        self.bytes[10] & 0x40 != 0
    }

    /// Game deleted (bit 7 of byte 10).
    pub fn deleted(&self) -> bool {
        self.bytes[10] & 0x80 != 0
    }

    /// The version bit (bit 6 of byte 11).
    pub fn version_bit(&self) -> bool {
        self.bytes[11] & 0x40 != 0
    }

    /// The ECO as (ECO1, ECO2), assembled as section 2.2 says: ECO1 bits 0-4
    /// from byte 10 bits 1-5, bits 5-6 from byte 4 bits 6-7, bits 7-8 from
    /// byte 5 bits 6-7; ECO2 (7 bits, section 2.1) from byte 11 bits 0-5 and
    /// bit 7. `None` with a start position or when ECO1 is 0.
    pub fn eco_codes(&self) -> Option<(u16, u8)> {
        if self.has_setup() {
            return None;
        }
        let b = &self.bytes;
        let eco1 = u16::from((b[10] >> 1) & 0x1f)
            | (u16::from(b[4] >> 6) << 5)
            | (u16::from(b[5] >> 6) << 7);
        let eco2 = (b[11] & 0x3f) | ((b[11] & 0x80) >> 1);
        (eco1 != 0).then_some((eco1, eco2))
    }

    /// Stores ECO1 (9 bits) and ECO2 (7 bits); only for games without a start position.
    pub fn set_eco_codes(&mut self, eco1: u16, eco2: u8) {
        let b = &mut self.bytes;
        b[10] = (b[10] & !0x3e) | (((eco1 & 0x1f) as u8) << 1);
        b[4] = (b[4] & 0x3f) | ((((eco1 >> 5) & 3) as u8) << 6);
        b[5] = (b[5] & 0x3f) | ((((eco1 >> 7) & 3) as u8) << 6);
        b[11] = (b[11] & 0x40) | (eco2 & 0x3f) | ((eco2 & 0x40) << 1);
    }

    /// Number of moves (byte 12).
    pub fn move_count(&self) -> u8 {
        self.bytes[12]
    }

    /// The magic byte (byte 13).
    pub fn magic(&self) -> u8 {
        self.bytes[13]
    }

    /// The public checksum `b0*0x25 + b5 + b9` (mod 256), written by gamerec.
    pub fn public_checksum(&self) -> u8 {
        let b = &self.bytes;
        b[0].wrapping_mul(0x25)
            .wrapping_add(b[5])
            .wrapping_add(b[9])
    }

    /// The second checksum Scidb accepts: `b3*0x1EC1*(b8+1)*b0` (mod 256).
    pub fn other_checksum(&self) -> u8 {
        let b = &self.bytes;
        let v = u32::from(b[3])
            .wrapping_mul(0x1ec1)
            .wrapping_mul(u32::from(b[8]) + 1)
            .wrapping_mul(u32::from(b[0]));
        v as u8
    }

    /// Size of the whole game record this header describes.
    pub fn game_len(&self) -> usize {
        HEADER_LEN
            + self.plen()
            + self.slen()
            + usize::from(self.mlen()).saturating_sub(1)
            + usize::from(self.clen())
            + if self.has_setup() { 33 } else { 0 }
    }
}

fn elo(b: u8) -> Option<u32> {
    (b > 0).then(|| 1600 + 5 * u32::from(b))
}

/// The ECO text (`A00`..`E99`) of ECO1, or `None` when the letter would be
/// past `E` (the text allows `F`).
pub fn eco_text(eco1: u16) -> Option<String> {
    let letter = (eco1 - 1) / 100;
    let number = (eco1 - 1) % 100;
    (letter < 5).then(|| format!("{}{:02}", char::from(b'A' + letter as u8), number))
}

/// ECO1 of an ECO text `A00`..`E99` (a trailing sub-code is ignored).
pub fn eco_code(text: &str) -> Option<u16> {
    let b = text.as_bytes();
    if b.len() < 3
        || !(b'A'..=b'E').contains(&b[0])
        || !b[1].is_ascii_digit()
        || !b[2].is_ascii_digit()
    {
        return None;
    }
    let letter = u16::from(b[0] - b'A');
    let number = u16::from(b[1] - b'0') * 10 + u16::from(b[2] - b'0');
    Some(letter * 100 + number + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds stored bytes from plain ones with the spec's scheme written out.
    fn stored(plain: [u8; 14]) -> [u8; 14] {
        let mut h = plain;
        h[11] ^= 14u8.wrapping_add(h[4] & 63).wrapping_add(h[5] & 63);
        let mut k: u8 = 101;
        for i in (0..14).rev() {
            h[i] ^= k;
            k = k.wrapping_mul(3);
        }
        h
    }

    #[test]
    fn every_field_decodes() {
        let plain = [
            0xE3, // 1871
            2,    // 1-0
            0x01,
            0x2C,      // mlen 300
            0x80 | 12, // plen 12, ECO1 bits 5/6 = 0b10
            0x40 | 20, // slen 20, ECO1 bits 7/8 = 0b01
            0x01,
            0x02,               // clen 258
            80,                 // 2000
            0,                  // none
            0x40 | (7 << 1),    // marked, ECO1 bits 0-4 = 7
            0x80 | 0x40 | 0x05, // ECO2 bit 6, version bit, ECO2 bits 0-5 = 5
            42,                 // moves
            0x99,               // magic
        ];
        let h = Header::decode(stored(plain));
        assert_eq!(h.bytes, plain);
        assert_eq!(h.year(), Some(1871));
        assert_eq!(h.result(), 2);
        assert_eq!(h.mlen(), 300);
        assert_eq!(h.plen(), 12);
        assert_eq!(h.slen(), 20);
        assert_eq!(h.clen(), 258);
        assert_eq!(h.white_elo(), Some(2000));
        assert_eq!(h.black_elo(), None);
        assert!(!h.has_setup());
        assert!(h.marked());
        assert!(!h.deleted());
        assert!(h.version_bit());
        // ECO1 = 7 | 0b10 << 5 | 0b01 << 7 = 7 + 64 + 128 = 199 -> B98; ECO2 = 5 | 64 = 69.
        assert_eq!(h.eco_codes(), Some((199, 69)));
        assert_eq!(eco_text(199).as_deref(), Some("B98"));
        assert_eq!(h.move_count(), 42);
        assert_eq!(h.magic(), 0x99);
        assert_eq!(h.encode(), stored(plain));
        assert_eq!(h.game_len(), 14 + 12 + 20 + 299 + 258);
    }

    #[test]
    fn year_127_is_none_and_deleted_flag() {
        let mut plain = [0u8; 14];
        plain[0] = 127;
        plain[10] = 0x80 | 1;
        let h = Header::decode(stored(plain));
        assert_eq!(h.year(), None);
        assert!(h.deleted());
        assert!(h.has_setup());
        assert_eq!(h.eco_codes(), None, "no ECO with a start position");
        assert_eq!(h.game_len(), 14 + 33);
    }

    #[test]
    fn eco_round_trips() {
        assert_eq!(eco_text(1).as_deref(), Some("A00"));
        assert_eq!(eco_text(500).as_deref(), Some("E99"));
        assert_eq!(eco_text(501), None, "F00 is not an ECO");
        for code in 1..=500 {
            let mut h = Header::default();
            h.bytes[4] = 5;
            h.bytes[5] = 9;
            h.bytes[11] = 0x40;
            h.set_eco_codes(code, 99);
            assert_eq!(h.eco_codes(), Some((code, 99)));
            assert_eq!(eco_code(&eco_text(code).unwrap()), Some(code));
            assert_eq!((h.plen(), h.slen(), h.version_bit()), (5, 9, true));
        }
    }

    #[test]
    fn checksums() {
        let mut h = Header::default();
        h.bytes[0] = 93;
        h.bytes[5] = 10;
        h.bytes[9] = 3;
        assert_eq!(h.public_checksum(), (93u32 * 0x25 + 13) as u8);
        h.bytes[3] = 2;
        h.bytes[8] = 1;
        assert_eq!(h.other_checksum(), (2u32 * 0x1ec1 * 2 * 93) as u8);
    }
}
