//! Board patterns: pgn-extract's FENPattern syntax, and scoutfish's
//! sub-FEN as a special case.
//!
//! A pattern is eight ranks, 8th first, separated by `/`. In a rank:
//!
//! | token | matches |
//! |---|---|
//! | `KQRBNP` / `kqrbnp` | that piece |
//! | digit `d` | `d` empty squares (in a sub-FEN: `d` squares of any content) |
//! | `?` | any square, empty or not |
//! | `!` | any piece |
//! | `A` / `a` | any White / any Black piece |
//! | `[...]` | any piece listed (letters, `A`, `a`); `[^...]`: any piece not listed |
//! | `*` | zero or more squares of any content |
//!
//! Sets match pieces only, never an empty square.
//!
//! A pattern is compiled to bitboard masks ([`Matcher`]): per piece the
//! squares it must hold, the squares that must be empty, and per piece set
//! the squares one of its pieces must hold. A rank with `*` becomes the
//! list of the ways its elements can lie on the eight squares (at most 70),
//! any of which may match. Testing a board is then a few ANDs on its
//! twelve piece bitboards ([`Pieces`]), the same for `filter`'s full scan,
//! `find`'s replay and the index's scan of its stored positions.

use std::collections::HashSet;

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Elem {
    /// Exactly this piece (`None`: an empty square).
    Exact(Option<Piece>),
    /// Anything.
    Any,
    /// One of these pieces (bit `6 * (0 White, 1 Black) + role - 1`).
    Set(u16),
    /// Zero or more squares.
    Star,
}

/// A compiled board pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Rank 8 first.
    ranks: Vec<Vec<Elem>>,
    /// The same as masks.
    matcher: Matcher,
}

/// The twelve piece bitboards of a board (index: White pawn, knight,
/// bishop, rook, queen, king, then Black's) and the occupied squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pieces {
    /// Per piece, its squares.
    pub bb: [u64; 12],
    /// Every occupied square.
    pub occupied: u64,
}

/// The [`Pieces`] index of a piece.
pub fn piece_index(p: Piece) -> usize {
    (p.color as usize ^ 1) * 6 + p.role as usize - 1
}

/// Bytes of a packed board ([`Pieces::pack`]): the occupied squares, then a
/// nibble per occupied square (in square order) naming its piece.
pub const PACKED_LEN: usize = 24;

impl Pieces {
    /// The pieces of `board`.
    pub fn of(board: &Board) -> Pieces {
        let mut bb = [0u64; 12];
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                let p = Piece { color, role };
                bb[piece_index(p)] = u64::from(board.by_piece(p));
            }
        }
        Pieces {
            bb,
            occupied: u64::from(board.occupied()),
        }
    }

    /// The packed form ([`PACKED_LEN`] bytes), `None` with more than 32
    /// pieces.
    pub fn pack(&self) -> Option<[u8; PACKED_LEN]> {
        if self.occupied.count_ones() > 32 {
            return None;
        }
        let mut out = [0u8; PACKED_LEN];
        out[..8].copy_from_slice(&self.occupied.to_le_bytes());
        let mut bits = self.occupied;
        let mut n = 0;
        while bits != 0 {
            let sq = bits.trailing_zeros();
            bits &= bits - 1;
            let piece = self.bb.iter().position(|b| b >> sq & 1 != 0).unwrap_or(0) as u8;
            out[8 + n / 2] |= piece << (4 * (n % 2));
            n += 1;
        }
        Some(out)
    }

    /// The occupied squares of a packed board.
    pub fn packed_occupied(b: &[u8; PACKED_LEN]) -> u64 {
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// The count of each piece of a packed board, `[colour][role - 1]`
    /// (White first).
    pub fn packed_counts(b: &[u8; PACKED_LEN]) -> [[u8; 6]; 2] {
        let mut c = [[0u8; 6]; 2];
        let n = (Pieces::packed_occupied(b).count_ones() as usize).min(32);
        for i in 0..n {
            let nib = usize::from((b[8 + i / 2] >> (4 * (i % 2))) & 15).min(11);
            c[nib / 6][nib % 6] += 1;
        }
        c
    }

    /// Unpacks [`Pieces::pack`]'s bytes (any bytes give some board: a
    /// nibble above 11 is read as piece 11).
    pub fn unpack(b: &[u8; PACKED_LEN]) -> Pieces {
        let occupied = Pieces::packed_occupied(b);
        let mut bb = [0u64; 12];
        let mut bits = occupied;
        let mut n = 0;
        while bits != 0 {
            let sq = bits.trailing_zeros();
            bits &= bits - 1;
            let nib = (b[8 + (n / 2) % 16] >> (4 * (n % 2))) & 15;
            bb[usize::from(nib).min(11)] |= 1 << sq;
            n += 1;
        }
        Pieces { bb, occupied }
    }
}

/// What a set of squares must hold: per piece, squares it must be on;
/// squares that must be empty; squares that must hold one of a set of
/// pieces (bit [`piece_index`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Masks {
    must: [u64; 12],
    empty: u64,
    sets: Vec<(u16, u64)>,
}

impl Masks {
    fn add(&mut self, e: Elem, sq: u64) {
        match e {
            Elem::Exact(Some(p)) => self.must[piece_index(p)] |= sq,
            Elem::Exact(None) => self.empty |= sq,
            Elem::Set(bits) => match self.sets.iter_mut().find(|(b, _)| *b == bits) {
                Some((_, m)) => *m |= sq,
                None => self.sets.push((bits, sq)),
            },
            Elem::Any | Elem::Star => {}
        }
    }

    fn is_trivial(&self) -> bool {
        self.empty == 0 && self.must.iter().all(|&m| m == 0) && self.sets.is_empty()
    }

    /// Squares that must be occupied.
    fn needed(&self) -> u64 {
        self.must.iter().fold(0, |a, m| a | m) | self.sets.iter().fold(0, |a, (_, m)| a | m)
    }

    fn test(&self, p: &Pieces) -> bool {
        if p.occupied & self.empty != 0 {
            return false;
        }
        if self.must.iter().zip(&p.bb).any(|(m, b)| m & !b != 0) {
            return false;
        }
        self.sets.iter().all(|&(bits, mask)| {
            let mut union = 0u64;
            for (i, b) in p.bb.iter().enumerate() {
                if bits >> i & 1 != 0 {
                    union |= b;
                }
            }
            mask & !union == 0
        })
    }
}

/// A pattern as bitboard masks: the ranks without `*` as one conjunction,
/// each rank with `*` as the alternatives of its placements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matcher {
    fixed: Masks,
    /// Squares that must be occupied, squares that must be empty (of the
    /// fixed part): a test on the occupied squares alone.
    needed: u64,
    empty: u64,
    ranks: Vec<Vec<Masks>>,
}

impl Matcher {
    fn compile(ranks: &[Vec<Elem>]) -> Matcher {
        let mut fixed = Masks::default();
        let mut alternatives = Vec::new();
        for (i, elems) in ranks.iter().enumerate() {
            let rank = Rank::new(7 - i as u32);
            let sq = |f: usize| 1u64 << Square::from_coords(File::new(f as u32), rank) as u32;
            if !elems.contains(&Elem::Star) {
                for (f, &e) in elems.iter().enumerate() {
                    fixed.add(e, sq(f));
                }
                continue;
            }
            let mut placements = HashSet::new();
            place(elems, 0, &mut [Elem::Any; 8], &mut placements);
            let mut alts: Vec<Masks> = placements
                .into_iter()
                .map(|p| {
                    let mut m = Masks::default();
                    for (f, &e) in p.iter().enumerate() {
                        m.add(e, sq(f));
                    }
                    m
                })
                .collect();
            if alts.iter().any(Masks::is_trivial) {
                continue;
            }
            alts.sort_by_key(|m| (m.empty, m.must, m.sets.clone()));
            alternatives.push(alts);
        }
        Matcher {
            needed: fixed.needed(),
            empty: fixed.empty,
            fixed,
            ranks: alternatives,
        }
    }

    /// Whether a board with these occupied squares could match (a test
    /// before [`Matcher::test`]).
    pub fn may_match(&self, occupied: u64) -> bool {
        occupied & self.empty == 0 && self.needed & !occupied == 0
    }

    /// Whether a packed board ([`Pieces::pack`]) matches.
    pub fn test_packed(&self, b: &[u8; PACKED_LEN]) -> bool {
        self.may_match(Pieces::packed_occupied(b)) && self.test(&Pieces::unpack(b))
    }

    /// Whether the pieces match.
    pub fn test(&self, p: &Pieces) -> bool {
        self.may_match(p.occupied)
            && self.fixed.test(p)
            && self.ranks.iter().all(|alts| alts.iter().any(|m| m.test(p)))
    }
}

/// Every way the elements of a rank (consecutive `*` merged) lie on its
/// squares from `at`: the element on each square (`Any` under a `*`).
fn place(elems: &[Elem], at: usize, cur: &mut [Elem; 8], out: &mut HashSet<[Elem; 8]>) {
    let Some((&e, rest)) = elems.split_first() else {
        if at == 8 {
            out.insert(*cur);
        }
        return;
    };
    if e == Elem::Star {
        for end in at..=8 {
            for slot in &mut cur[at..end] {
                *slot = Elem::Any;
            }
            place(rest, end, cur, out);
        }
    } else if at < 8 {
        cur[at] = e;
        place(rest, at + 1, cur, out);
    }
}

fn piece_bit(p: Piece) -> u16 {
    1 << ((p.color as u16 ^ 1) * 6 + p.role as u16 - 1)
}

const WHITE_PIECES: u16 = 0b000000_111111;
const BLACK_PIECES: u16 = 0b111111_000000;

fn letter_piece(c: char) -> Option<Piece> {
    let role = Role::from_char(c.to_ascii_lowercase())?;
    let color = if c.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    Some(Piece { color, role })
}

fn set_bits(c: char) -> Option<u16> {
    match c {
        'A' => Some(WHITE_PIECES),
        'a' => Some(BLACK_PIECES),
        _ => letter_piece(c).map(piece_bit),
    }
}

impl Pattern {
    /// Parses a FENPattern (digits are empty squares).
    pub fn parse(text: &str) -> Result<Pattern, String> {
        Pattern::parse_with(text, false)
    }

    /// Parses a scoutfish sub-FEN: the pieces given must be on their
    /// squares, digits skip squares whose content does not matter.
    pub fn parse_sub_fen(text: &str) -> Result<Pattern, String> {
        Pattern::parse_with(text, true)
    }

    fn parse_with(text: &str, digits_any: bool) -> Result<Pattern, String> {
        let board = text.split_whitespace().next().unwrap_or("");
        let err = |m: &str| format!("pattern {:?}: {m}", crate::position::short(text));
        let ranks_text: Vec<&str> = board.split('/').collect();
        if ranks_text.len() != 8 {
            return Err(err("expected 8 ranks separated by /"));
        }
        let mut ranks = Vec::with_capacity(8);
        for r in ranks_text {
            let mut elems = Vec::new();
            let mut chars = r.chars();
            while let Some(c) = chars.next() {
                match c {
                    '1'..='8' => {
                        let n = c as u8 - b'0';
                        let e = if digits_any {
                            Elem::Any
                        } else {
                            Elem::Exact(None)
                        };
                        elems.extend(std::iter::repeat_n(e, n.into()));
                    }
                    '?' => elems.push(Elem::Any),
                    '!' => elems.push(Elem::Set(WHITE_PIECES | BLACK_PIECES)),
                    '*' => elems.push(Elem::Star),
                    'A' | 'a' => elems.push(Elem::Set(set_bits(c).unwrap_or(0))),
                    '[' => {
                        let mut bits = 0u16;
                        let mut negate = false;
                        let mut first = true;
                        loop {
                            match chars.next() {
                                None => return Err(err("unclosed [")),
                                Some(']') => break,
                                Some('^') if first => negate = true,
                                Some(x) => {
                                    bits |= set_bits(x).ok_or_else(|| {
                                        err(&format!("{x:?} is not a piece letter in a set"))
                                    })?;
                                }
                            }
                            first = false;
                        }
                        if negate {
                            bits = !bits & (WHITE_PIECES | BLACK_PIECES);
                        }
                        elems.push(Elem::Set(bits));
                    }
                    _ => match letter_piece(c) {
                        Some(p) => elems.push(Elem::Exact(Some(p))),
                        None => return Err(err(&format!("unexpected {c:?}"))),
                    },
                }
            }
            // `**` is `*`.
            elems.dedup_by(|a, b| *a == Elem::Star && *b == Elem::Star);
            let fixed = elems.iter().filter(|e| **e != Elem::Star).count();
            let has_star = elems.contains(&Elem::Star);
            if fixed > 8 || (!has_star && fixed != 8) {
                return Err(err(&format!("rank {r:?} does not describe 8 squares")));
            }
            ranks.push(elems);
        }
        let matcher = Matcher::compile(&ranks);
        Ok(Pattern { ranks, matcher })
    }

    /// Whether `board` matches.
    pub fn matches(&self, board: &Board) -> bool {
        self.matcher.test(&Pieces::of(board))
    }

    /// The pattern as bitboard masks.
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// Whether `board` matches, rank by rank (the definition the masks
    /// are tested against).
    pub fn matches_by_ranks(&self, board: &Board) -> bool {
        self.ranks.iter().enumerate().all(|(i, elems)| {
            let rank = Rank::new(7 - i as u32);
            let squares: [Option<Piece>; 8] = std::array::from_fn(|f| {
                board.piece_at(Square::from_coords(File::new(f as u32), rank))
            });
            match_rank(elems, &squares)
        })
    }

    /// The pieces the pattern places on fixed squares: for a prefilter.
    /// Returns the least count of each piece (`[colour][role - 1]`) and the
    /// squares that must hold a White pawn and a Black pawn.
    pub fn requirements(&self) -> ([[u8; 6]; 2], [Bitboard; 2]) {
        let mut counts = [[0u8; 6]; 2];
        let mut pawns = [Bitboard::EMPTY; 2];
        for (i, elems) in self.ranks.iter().enumerate() {
            let star = elems.contains(&Elem::Star);
            for (file, e) in elems.iter().enumerate() {
                if let Elem::Exact(Some(p)) = e {
                    counts[p.color as usize ^ 1][p.role as usize - 1] += 1;
                    if !star && p.role == Role::Pawn {
                        let sq =
                            Square::from_coords(File::new(file as u32), Rank::new(7 - i as u32));
                        pawns[p.color as usize ^ 1].add(sq);
                    }
                }
            }
        }
        (counts, pawns)
    }
}

fn elem_matches(e: Elem, sq: Option<Piece>) -> bool {
    match e {
        Elem::Exact(p) => p == sq,
        Elem::Any => true,
        Elem::Set(bits) => sq.is_some_and(|p| bits & piece_bit(p) != 0),
        Elem::Star => true,
    }
}

/// Matches one rank; `*` by dynamic programming over (element, square).
fn match_rank(elems: &[Elem], squares: &[Option<Piece>; 8]) -> bool {
    // reach[j]: the elements so far can consume exactly j squares.
    let mut reach = [false; 9];
    reach[0] = true;
    for &e in elems {
        let mut next = [false; 9];
        for j in 0..=8 {
            if !reach[j] {
                continue;
            }
            if e == Elem::Star {
                for slot in next.iter_mut().skip(j) {
                    *slot = true;
                }
            } else if j < 8 && elem_matches(e, squares[j]) {
                next[j + 1] = true;
            }
        }
        reach = next;
    }
    reach[8]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn pgn_extract_examples() {
        let b = board(START);
        assert!(
            Pattern::parse("rnbqkbnr/*/*/*/*/*/*/RNBQKBNR")
                .unwrap()
                .matches(&b)
        );
        assert!(
            !Pattern::parse("*/*/*/*/???PP???/*/*/*")
                .unwrap()
                .matches(&b)
        );
        let e4d4 = board("rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2");
        assert!(
            Pattern::parse("*/*/*/*/???PP???/*/*/*")
                .unwrap()
                .matches(&e4d4)
        );
        assert!(Pattern::parse("*/*/*/*/*PP*/*/*/*").unwrap().matches(&e4d4));
        assert!(
            Pattern::parse("[^Pp]*/*/*/*/*/*/*/*")
                .unwrap()
                .matches(&e4d4)
        );
        assert!(
            !Pattern::parse("[Pp]*/*/*/*/*/*/*/*")
                .unwrap()
                .matches(&e4d4)
        );
        assert!(
            Pattern::parse("aaaaaaaa/aaaaaaaa/8/8/*/8/*/AAAAAAAA")
                .unwrap()
                .matches(&e4d4)
        );
        assert!(
            Pattern::parse("!!!!!!!!/*/8/8/????????/8/*/*")
                .unwrap()
                .matches(&e4d4)
        );
    }

    #[test]
    fn sub_fen_and_errors() {
        let b = board(START);
        assert!(
            Pattern::parse_sub_fen("8/8/8/8/8/8/4P3/8")
                .unwrap()
                .matches(&b)
        );
        assert!(
            !Pattern::parse_sub_fen("8/8/8/8/4P3/8/8/8")
                .unwrap()
                .matches(&b)
        );
        assert!(Pattern::parse("8/8/8").is_err());
        assert!(Pattern::parse("9/8/8/8/8/8/8/8").is_err());
        assert!(Pattern::parse("[Kx]7/8/8/8/8/8/8/8").is_err());
        assert!(Pattern::parse("[K7/8/8/8/8/8/8/8").is_err());
        assert!(Pattern::parse("ppppppppp/8/8/8/8/8/8/8").is_err());
    }

    /// xorshift64*.
    fn rng(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The masks agree with the rank-by-rank definition on random boards
    /// and random patterns (every token kind), and packing keeps a board.
    #[test]
    fn masks_equal_the_rank_definition() {
        let mut st = 0x1234_5678_9abc_def1u64;
        // One square each.
        let tokens = [
            "P", "p", "N", "k", "K", "r", "?", "?", "?", "!", "A", "a", "[Bb]", "[^Pp]", "[Qa]",
        ];
        let (mut tested, mut matched) = (0, 0);
        for _ in 0..4000 {
            let mut board = Board::empty();
            let density = rng(&mut st) % 60 + 5;
            for sq in Square::ALL {
                if rng(&mut st) % 100 < density {
                    let role = Role::ALL[(rng(&mut st) % 6) as usize];
                    let color = Color::ALL[(rng(&mut st) % 2) as usize];
                    board.set_piece_at(sq, Piece { color, role });
                }
            }
            let p = Pieces::of(&board);
            if let Some(packed) = p.pack() {
                assert_eq!(Pieces::unpack(&packed), p);
                let counts = Pieces::packed_counts(&packed);
                let n: u32 = counts.iter().flatten().map(|&c| u32::from(c)).sum();
                assert_eq!(n, board.occupied().count() as u32);
            } else {
                assert!(board.occupied().count() > 32);
            }
            for _ in 0..10 {
                let token = |st: &mut u64| tokens[(rng(st) % tokens.len() as u64) as usize];
                let ranks: Vec<String> = (0..8)
                    .map(|i| {
                        let mut r = String::new();
                        match rng(&mut st) % 8 {
                            // The board's own rank, some squares `?`.
                            4..=7 => {
                                for f in 0..8 {
                                    let sq = Square::from_coords(File::new(f), Rank::new(7 - i));
                                    r.push(match board.piece_at(sq) {
                                        _ if rng(&mut st).is_multiple_of(4) => '?',
                                        Some(p) => p.char(),
                                        None => '1',
                                    });
                                }
                            }
                            // Eight squares: tokens and digits.
                            0 => {
                                let mut left = 8;
                                while left > 0 {
                                    if rng(&mut st).is_multiple_of(3) {
                                        let d = rng(&mut st) % left + 1;
                                        r.push_str(&d.to_string());
                                        left -= d;
                                    } else {
                                        r.push_str(token(&mut st));
                                        left -= 1;
                                    }
                                }
                            }
                            // `*` with up to three tokens around.
                            1 => {
                                for _ in 0..rng(&mut st) % 4 {
                                    if rng(&mut st).is_multiple_of(2) {
                                        r.push('*');
                                    }
                                    r.push_str(token(&mut st));
                                }
                                r.push('*');
                            }
                            _ => r.push('*'),
                        }
                        r
                    })
                    .collect();
                let text = ranks.join("/");
                for sub in [false, true] {
                    let parsed = if sub {
                        Pattern::parse_sub_fen(&text)
                    } else {
                        Pattern::parse(&text)
                    };
                    let Ok(pat) = parsed else { continue };
                    let want = pat.matches_by_ranks(&board);
                    assert_eq!(pat.matches(&board), want, "{text} on {board:?}");
                    if let Some(packed) = p.pack() {
                        assert_eq!(pat.matcher().test_packed(&packed), want, "{text}");
                    }
                    tested += 1;
                    matched += usize::from(want);
                }
            }
        }
        // Enough valid patterns, and both answers common.
        assert!(
            tested > 50_000 && matched > 5000 && matched < tested - 5000,
            "{tested} {matched}"
        );
    }

    #[test]
    fn requirements_of_fixed_squares() {
        let (counts, pawns) = Pattern::parse("*/*/*/*/???PP???/*/*/k7")
            .unwrap()
            .requirements();
        assert_eq!(counts[0][0], 2);
        assert_eq!(counts[1][5], 1);
        assert_eq!(
            pawns[0],
            Bitboard::from(Square::D4) | Bitboard::from(Square::E4)
        );
    }
}
