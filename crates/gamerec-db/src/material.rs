//! Material specifications, after pgn-extract's `-y`/`-z` files: one side's
//! pieces, `v`, the other side's, e.g. `KQ*vKR*` or `R+P+vR=P#`.
//!
//! Each piece letter (`KQRBNP`, either case; kings may be left out) may be
//! followed by a count: nothing (exactly one), `d` (exactly d), `*` (any
//! number), `+` (one or more), `d+` (d or more), `d-` (d or fewer); or by a
//! comparison with the other side: `=` (as many), `#` (a different number),
//! `>`/`<` (more/fewer), `d>`/`d<` (at least d more/fewer). A piece not
//! listed must be absent. [`MaterialSpec::matches`] tests a board.

use shakmaty::{Board, ByRole, Color, Role};

/// How many of one piece a side must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    /// Between these bounds (inclusive).
    Range(u8, u8),
    /// As many as the opponent.
    Same,
    /// Not as many as the opponent.
    Different,
    /// At least this many more than the opponent.
    More(u8),
    /// At least this many fewer than the opponent.
    Fewer(u8),
}

/// One side's requirements, by role.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    counts: [Count; 6],
}

/// A parsed material specification: White's side and Black's side, and
/// whether the colours may be swapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialSpec {
    white: Side,
    black: Side,
    /// Also match with the colours swapped (pgn-extract's `-z`).
    pub either_colour: bool,
}

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fn role_index(role: Role) -> usize {
    ROLES.iter().position(|&r| r == role).unwrap_or(0)
}

/// The most of one piece a side can have (a count above is refused).
const MAX_COUNT: u8 = 10;

fn parse_side(text: &str) -> Result<Side, String> {
    let mut counts = [Count::Range(0, 0); 6];
    counts[role_index(Role::King)] = Count::Range(1, 1);
    let mut seen = [false; 6];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let role = Role::from_char(c.to_ascii_lowercase() as char)
            .ok_or_else(|| format!("unknown piece letter {:?} in {text:?}", c as char))?;
        i += 1;
        let mut digit: Option<u8> = None;
        while let Some(&d) = bytes.get(i).filter(|d| d.is_ascii_digit()) {
            let v = u32::from(digit.unwrap_or(0)) * 10 + u32::from(d - b'0');
            if v > MAX_COUNT.into() {
                return Err(format!(
                    "count {v} of {} in {text:?}: a side has at most {MAX_COUNT} of a piece",
                    c as char
                ));
            }
            digit = Some(v as u8);
            i += 1;
        }
        let count = match (digit, bytes.get(i)) {
            (None, Some(b'*')) => {
                i += 1;
                Count::Range(0, u8::MAX)
            }
            (None, Some(b'+')) => {
                i += 1;
                Count::Range(1, u8::MAX)
            }
            (Some(d), Some(b'+')) => {
                i += 1;
                Count::Range(d, u8::MAX)
            }
            (Some(d), Some(b'-')) => {
                i += 1;
                Count::Range(0, d)
            }
            (None, Some(b'=')) => {
                i += 1;
                Count::Same
            }
            (None, Some(b'#')) => {
                i += 1;
                Count::Different
            }
            (d, Some(b'>')) => {
                i += 1;
                Count::More(d.unwrap_or(1))
            }
            (d, Some(b'<')) => {
                i += 1;
                Count::Fewer(d.unwrap_or(1))
            }
            (Some(d), _) => Count::Range(d, d),
            (None, _) => Count::Range(1, 1),
        };
        let r = role_index(role);
        if role == Role::King {
            if seen[r] || count != Count::Range(1, 1) {
                return Err(format!("{text:?}: a side has exactly one king"));
            }
        } else if seen[r] {
            // A letter repeated adds up: `RR` is two rooks, `RR*` one or more.
            counts[r] = match (counts[r], count) {
                (Count::Range(a, b), Count::Range(c, d)) if a.saturating_add(c) <= MAX_COUNT => {
                    Count::Range(a + c, b.saturating_add(d))
                }
                (Count::Range(..), Count::Range(..)) => {
                    return Err(format!("{text:?}: more than {MAX_COUNT} of {}", c as char));
                }
                _ => {
                    return Err(format!(
                        "{text:?}: {} is given twice with a comparison",
                        c as char
                    ));
                }
            };
            continue;
        }
        seen[r] = true;
        counts[r] = count;
    }
    Ok(Side { counts })
}

impl MaterialSpec {
    /// Parses `WHITE v BLACK` (the `v` may also be a space or a comma).
    pub fn parse(text: &str, either_colour: bool) -> Result<MaterialSpec, String> {
        let t = text.trim();
        let split = t
            .find(['v', 'V'])
            .or_else(|| t.find([' ', ',']))
            .ok_or_else(|| format!("material {t:?}: expected WHITE v BLACK, as KQ*vKR*"))?;
        let (w, b) = (&t[..split], &t[split + 1..]);
        Ok(MaterialSpec {
            white: parse_side(w).map_err(|e| format!("material {t:?}: {e}"))?,
            black: parse_side(b).map_err(|e| format!("material {t:?}: {e}"))?,
            either_colour,
        })
    }

    /// Whether the counts of `board` satisfy the specification.
    pub fn matches(&self, board: &Board) -> bool {
        let m = board.material();
        let (w, b) = (&m.white, &m.black);
        side_ok(&self.white, w, b) && side_ok(&self.black, b, w)
            || self.either_colour && side_ok(&self.white, b, w) && side_ok(&self.black, w, b)
    }

    /// The least number of each piece the specification needs, per colour
    /// (White, Black) as written: used to prefilter by material signature.
    pub fn minimum(&self) -> [[u8; 6]; 2] {
        let min = |s: &Side| {
            let mut out = [0; 6];
            for (i, c) in s.counts.iter().enumerate() {
                out[i] = match *c {
                    Count::Range(lo, _) => lo,
                    Count::More(d) => d,
                    _ => 0,
                };
            }
            out
        };
        [min(&self.white), min(&self.black)]
    }
}

fn side_ok(side: &Side, mine: &ByRole<u8>, theirs: &ByRole<u8>) -> bool {
    ROLES.iter().enumerate().all(|(i, &role)| {
        let (n, o) = (*mine.get(role), *theirs.get(role));
        match side.counts[i] {
            Count::Range(lo, hi) => lo <= n && n <= hi,
            Count::Same => n == o,
            Count::Different => n != o,
            Count::More(d) => n >= o.saturating_add(d),
            Count::Fewer(d) => n.saturating_add(d) <= o,
        }
    })
}

/// The material key of a board: per colour and role a count capped at 15,
/// 4 bits each (kings left out): 40 bits in all.
pub fn signature(board: &Board) -> u64 {
    let m = board.material();
    let mut key = 0u64;
    for color in [Color::White, Color::Black] {
        let side = m.get(color);
        for role in &ROLES[..5] {
            key = (key << 4) | u64::from((*side.get(*role)).min(15));
        }
    }
    key
}

/// The counts packed by [`signature`], as `[colour][role]` (kings 1).
pub fn unpack_signature(key: u64) -> [[u8; 6]; 2] {
    let mut out = [[0u8; 6]; 2];
    let mut shift = 40;
    for side in &mut out {
        for slot in side.iter_mut().take(5) {
            shift -= 4;
            *slot = ((key >> shift) & 15) as u8;
        }
        side[5] = 1;
    }
    out
}

impl MaterialSpec {
    /// Whether some board with exactly the counts of signature `key` could
    /// match (exact for counts below 15).
    pub fn matches_signature(&self, key: u64) -> bool {
        self.matches_counts(&unpack_signature(key))
    }

    /// Whether a board with these counts (`[colour][role - 1]`, White
    /// first) matches.
    pub fn matches_counts(&self, c: &[[u8; 6]; 2]) -> bool {
        let to_role = |s: &[u8; 6]| ByRole {
            pawn: s[0],
            knight: s[1],
            bishop: s[2],
            rook: s[3],
            queen: s[4],
            king: s[5],
        };
        let (w, b) = (to_role(&c[0]), to_role(&c[1]));
        side_ok(&self.white, &w, &b) && side_ok(&self.black, &b, &w)
            || self.either_colour && side_ok(&self.white, &b, &w) && side_ok(&self.black, &w, &b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    #[test]
    fn counts_and_relations() {
        let start = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(
            MaterialSpec::parse("QR2B2N2P8vQR2B2N2P8", false)
                .unwrap()
                .matches(&start)
        );
        assert!(
            MaterialSpec::parse("KQ*R*B*N*P*vK Q R* B* N* P*", false)
                .unwrap()
                .matches(&start)
        );
        assert!(
            !MaterialSpec::parse("KQRvKR", false)
                .unwrap()
                .matches(&start)
        );
        let krp_kn = board("8/8/4k3/8/2n5/8/3PR3/4K3 w - - 0 1");
        assert!(
            MaterialSpec::parse("KRPvKN", false)
                .unwrap()
                .matches(&krp_kn)
        );
        assert!(
            !MaterialSpec::parse("KNvKRP", false)
                .unwrap()
                .matches(&krp_kn)
        );
        assert!(
            MaterialSpec::parse("KNvKRP", true)
                .unwrap()
                .matches(&krp_kn)
        );
        assert!(
            MaterialSpec::parse("R+P>vN#", false)
                .unwrap()
                .matches(&krp_kn)
        );
        assert!(
            !MaterialSpec::parse("R+P2>vN#", false)
                .unwrap()
                .matches(&krp_kn)
        );
        assert!(
            MaterialSpec::parse("R*P*N#vN*", false)
                .unwrap()
                .matches(&krp_kn)
        );
        let krr_k = board("8/8/4k3/8/8/8/8/RR2K3 w - - 0 1");
        let kr_k = board("8/8/4k3/8/8/8/8/R3K3 w - - 0 1");
        for spec in ["KRRvK", "KR2vK", "RRvK", "KR R v K", "KRR*vK", "KR*RvK"] {
            let s = MaterialSpec::parse(spec, false).unwrap();
            assert!(s.matches(&krr_k), "{spec}");
        }
        for spec in ["KRRvK", "KR2vK", "KRR+vK"] {
            let s = MaterialSpec::parse(spec, false).unwrap();
            assert!(!s.matches(&kr_k), "{spec}");
        }
        assert!(MaterialSpec::parse("KRvK", false).unwrap().matches(&kr_k));
        assert!(!MaterialSpec::parse("KRvK", false).unwrap().matches(&krr_k));
        let ten = MaterialSpec::parse("KQQQQQQQQQQvK", false).unwrap();
        assert_eq!(ten.minimum()[0][4], 10);
        assert!(!ten.matches(&board("8/8/4k3/8/8/8/8/Q3K3 w - - 0 1")));
        assert_eq!(
            MaterialSpec::parse("KQ10vK", false).unwrap().minimum()[0][4],
            10
        );
        for bad in [
            "KQQQQQQQQQQQvK",
            "KQ11vK",
            "KKvK",
            "K2vK",
            "KR=RvKR",
            "KP99vK",
        ] {
            assert!(MaterialSpec::parse(bad, false).is_err(), "{bad}");
        }
        assert!(MaterialSpec::parse("kq", false).is_err());
        assert!(MaterialSpec::parse("KXvK", false).is_err());
    }

    #[test]
    fn signature_round_trip() {
        let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let s = signature(&b);
        assert_eq!(
            unpack_signature(s),
            [[8, 2, 2, 2, 1, 1], [8, 2, 2, 2, 1, 1]]
        );
        let spec = MaterialSpec::parse("QR2B2N2P8vQR2B2N2P8", false).unwrap();
        assert!(spec.matches_signature(s));
        assert!(
            !MaterialSpec::parse("KvK", false)
                .unwrap()
                .matches_signature(s)
        );
    }
}
