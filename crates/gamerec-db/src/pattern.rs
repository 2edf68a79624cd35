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

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
            let fixed = elems.iter().filter(|e| **e != Elem::Star).count();
            let has_star = elems.contains(&Elem::Star);
            if fixed > 8 || (!has_star && fixed != 8) {
                return Err(err(&format!("rank {r:?} does not describe 8 squares")));
            }
            ranks.push(elems);
        }
        Ok(Pattern { ranks })
    }

    /// Whether `board` matches.
    pub fn matches(&self, board: &Board) -> bool {
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
