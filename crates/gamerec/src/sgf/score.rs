//! Scoring a finished Go game: area or territory counting of a final
//! position, with dead stones given as a list of points (e.g. a GTP
//! engine's `final_status_list dead`) or as the `TB`/`TW` territory marks
//! of an SGF node.
//!
//! ```
//! use gamerec::sgf::go::Board;
//! use gamerec::sgf::score::{Method, score_with_dead};
//! use gamerec::sgf::{Color, Point};
//!
//! // 5x5: a black wall on column 1, a white wall on column 2.
//! let mut b = Board::new(5, 5);
//! for y in 0..5 {
//!     b.play(Color::Black, Some(Point::new(1, y)));
//!     b.play(Color::White, Some(Point::new(2, y)));
//! }
//! let s = score_with_dead(&b, &[], Method::Area, 0.5);
//! // Black: 5 stones + 5 points; White: 5 stones + 10 points + komi.
//! assert_eq!((s.black, s.white), (10.0, 15.5));
//! assert_eq!(s.to_result(), "W+5.5");
//! ```
//!
//! Counting:
//!
//! * Dead stones are removed first: each becomes a prisoner of the
//!   opponent and its point is then scored like any empty point.
//! * An empty region (4-connected) touching stones of one colour only is
//!   that colour's territory; one touching both colours, or none, is dame.
//! * Seki is not detected. Stones listed as in seki ([`score_with_status`],
//!   e.g. a GTP engine's `final_status_list seki`) make the empty regions
//!   they touch dame under [`Method::Territory`] (Japanese rules: eyes in
//!   seki are not territory); under [`Method::Area`] an eye in seki stays
//!   its owner's (Chinese rules, Tromp-Taylor). With no seki list, eyes in
//!   seki count as territory under both methods.
//! * [`Method::Area`] (Chinese, AGA, NZ, Tromp-Taylor, Ing): stones on the
//!   board plus territory. [`Method::Territory`] (Japanese, Korean):
//!   territory plus prisoners (captures during the game and dead stones).
//! * Komi is added to White. The margin is Black's total minus White's.
//!
//! With `TB`/`TW` ([`score_with_marks`]) the marked points are the
//! territory as given: a stone on a point marked for the other colour is
//! dead, and no flood fill is made.

use std::fmt;

use super::go::Board;
use super::tree::{Color, Point};

/// How the points are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Stones on the board plus surrounded empty points (Chinese, AGA, NZ,
    /// Tromp-Taylor, Ing).
    Area,
    /// Surrounded empty points plus prisoners (Japanese, Korean).
    Territory,
}

/// The count of a final position. Totals include komi (White).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// How it was counted.
    pub method: Method,
    /// Black's total.
    pub black: f64,
    /// White's total, komi included.
    pub white: f64,
    /// The komi added to White.
    pub komi: f64,
    /// Live stones of each colour on the board (Black, White).
    pub stones: [u32; 2],
    /// Territory of each colour (Black, White).
    pub territory: [u32; 2],
    /// Prisoners held by each colour: captures plus the opponent's dead
    /// stones (Black, White).
    pub prisoners: [u32; 2],
    /// Dead stones of each colour removed before counting (Black, White).
    pub dead: [u32; 2],
    /// Empty points belonging to nobody.
    pub dame: u32,
}

impl Score {
    /// Black's total minus White's (positive: Black wins).
    pub fn margin(&self) -> f64 {
        self.black - self.white
    }

    /// The winner, `None` for jigo.
    pub fn winner(&self) -> Option<Color> {
        let m = self.margin();
        if m > 0.0 {
            Some(Color::Black)
        } else if m < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The outcome, for comparing with an `RE` value.
    pub fn outcome(&self) -> Outcome {
        match self.winner() {
            Some(c) => Outcome::Points(c, self.margin().abs()),
            None => Outcome::Draw,
        }
    }

    /// The SGF `RE` value: `B+3.5`, `W+12`, or `0` for jigo. (Resignation,
    /// time and forfeit do not come from scoring: see [`Outcome`].)
    pub fn to_result(&self) -> String {
        self.outcome().to_string()
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = match self.method {
            Method::Area => "area",
            Method::Territory => "territory",
        };
        write!(
            f,
            "{} ({method}: B {} W {}, komi {})",
            self.to_result(),
            number(self.black),
            number(self.white),
            number(self.komi)
        )
    }
}

/// A game result as written in `RE` (FF\[4\]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Won by a number of points (`B+3.5`).
    Points(Color, f64),
    /// Won by points, margin not given (`B+`).
    Won(Color),
    /// Won by resignation (`W+R`, `W+Resign`).
    Resign(Color),
    /// Won on time (`B+T`, `B+Time`).
    Time(Color),
    /// Won by forfeit (`B+F`, `B+Forfeit`).
    Forfeit(Color),
    /// Jigo (`0`, `Draw`).
    Draw,
    /// No result or suspended play (`Void`).
    Void,
    /// Unknown result (`?`).
    Unknown,
}

impl Outcome {
    /// Parses an `RE` value in FF\[4\] form; `None` when it is not one.
    pub fn parse(re: &str) -> Option<Outcome> {
        let re = re.trim();
        match re {
            "0" | "Draw" | "D" => return Some(Outcome::Draw),
            "Void" => return Some(Outcome::Void),
            "?" => return Some(Outcome::Unknown),
            _ => {}
        }
        let (who, rest) = re.split_at_checked(1)?;
        let who = match who {
            "B" => Color::Black,
            "W" => Color::White,
            _ => return None,
        };
        let rest = rest.strip_prefix('+')?;
        Some(match rest {
            "" => Outcome::Won(who),
            "R" | "Resign" => Outcome::Resign(who),
            "T" | "Time" => Outcome::Time(who),
            "F" | "Forfeit" => Outcome::Forfeit(who),
            n => {
                let ok = n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && n.bytes().filter(|&b| b == b'.').count() <= 1
                    && n.bytes().next().is_some_and(|b| b.is_ascii_digit());
                if !ok {
                    return None;
                }
                Outcome::Points(who, n.parse().ok()?)
            }
        })
    }

    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match *self {
            Outcome::Points(c, _)
            | Outcome::Won(c)
            | Outcome::Resign(c)
            | Outcome::Time(c)
            | Outcome::Forfeit(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Points(c, n) => write!(f, "{}+{}", c.letter(), number(n)),
            Outcome::Won(c) => write!(f, "{}+", c.letter()),
            Outcome::Resign(c) => write!(f, "{}+R", c.letter()),
            Outcome::Time(c) => write!(f, "{}+T", c.letter()),
            Outcome::Forfeit(c) => write!(f, "{}+F", c.letter()),
            Outcome::Draw => f.write_str("0"),
            Outcome::Void => f.write_str("Void"),
            Outcome::Unknown => f.write_str("?"),
        }
    }
}

/// A number as SGF writes it: `3`, `3.5`, `-0.5`.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Scores `board` after removing the stones on `dead` (points without a
/// stone are ignored). Prisoners taken during the game are the board's
/// own counts ([`Board::captures`]).
pub fn score_with_dead(board: &Board, dead: &[Point], method: Method, komi: f64) -> Score {
    score_with_status(board, dead, &[], method, komi)
}

/// [`score_with_dead`], with the stones in seki on `seki`: under
/// [`Method::Territory`] an empty region touching one of them is dame
/// (points without a stone, or also listed dead, are ignored).
pub fn score_with_status(
    board: &Board,
    dead: &[Point],
    seki: &[Point],
    method: Method,
    komi: f64,
) -> Score {
    let (w, h) = (board.width() as usize, board.height() as usize);
    // 0 empty, 1 black, 2 white; dead stones are made empty; bit 2 marks a
    // live stone in seki when that counts (territory scoring).
    let mut cells = vec![0u8; w * h];
    let mut removed = [0u32; 2];
    let mut is_dead = vec![false; w * h];
    let on_board = |p: &Point| {
        ((p.x as usize) < w && (p.y as usize) < h).then(|| p.y as usize * w + p.x as usize)
    };
    for i in dead.iter().filter_map(on_board) {
        is_dead[i] = true;
    }
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            match board.get(Point::new(x as u8, y as u8)) {
                Some(c) if is_dead[i] => removed[idx(c)] += 1,
                Some(c) => cells[i] = 1 + idx(c) as u8,
                None => {}
            }
        }
    }
    // Seki marks only live stones (a point left empty, or emptied as dead,
    // stays empty).
    if method == Method::Territory {
        for i in seki.iter().filter_map(on_board) {
            if cells[i] != 0 {
                cells[i] |= 4;
            }
        }
    }
    // Flood fill the empty regions.
    let mut owner = vec![0u8; w * h]; // 0 unvisited, 1 black, 2 white, 3 dame
    let mut stack = Vec::new();
    let mut region = Vec::new();
    let mut territory = [0u32; 2];
    let mut dame = 0;
    for start in 0..w * h {
        if cells[start] != 0 || owner[start] != 0 {
            continue;
        }
        region.clear();
        let mut touches = 0u8;
        owner[start] = 3;
        stack.push(start);
        while let Some(i) = stack.pop() {
            region.push(i);
            let (x, y) = (i % w, i / w);
            let mut visit = |j: usize| {
                if cells[j] == 0 {
                    if owner[j] == 0 {
                        owner[j] = 3;
                        stack.push(j);
                    }
                } else {
                    touches |= cells[j];
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        match touches {
            1 => territory[0] += region.len() as u32,
            2 => territory[1] += region.len() as u32,
            _ => dame += region.len() as u32,
        }
    }
    let stones = [
        cells.iter().filter(|&&c| c & 3 == 1).count() as u32,
        cells.iter().filter(|&&c| c & 3 == 2).count() as u32,
    ];
    total(
        board,
        method,
        komi,
        Counts {
            stones,
            territory,
            dead: removed,
            dame,
        },
    )
}

/// Scores `board` from territory marks: `tb` and `tw` (the `TB` and `TW`
/// points of an SGF node). A stone on a point marked for the other
/// colour is dead; a stone on a point marked for its own colour is
/// ignored (counted as a live stone, not as territory).
pub fn score_with_marks(
    board: &Board,
    tb: &[Point],
    tw: &[Point],
    method: Method,
    komi: f64,
) -> Score {
    let (w, h) = (board.width() as usize, board.height() as usize);
    // Per point: bit 0 marked black, bit 1 marked white.
    let mut mark = vec![0u8; w * h];
    for (pts, bit) in [(tb, 1u8), (tw, 2u8)] {
        for p in pts {
            if (p.x as usize) < w && (p.y as usize) < h {
                mark[p.y as usize * w + p.x as usize] |= bit;
            }
        }
    }
    let mut c = Counts {
        stones: [0; 2],
        territory: [0; 2],
        dead: [0; 2],
        dame: 0,
    };
    for y in 0..h {
        for x in 0..w {
            let m = mark[y * w + x];
            let stone = board.get(Point::new(x as u8, y as u8));
            // A point marked for both colours is nobody's.
            let owner = match m {
                1 => Some(Color::Black),
                2 => Some(Color::White),
                _ => None,
            };
            match (stone, owner) {
                (Some(s), Some(o)) if s != o => {
                    c.dead[idx(s)] += 1;
                    c.territory[idx(o)] += 1;
                }
                (Some(s), _) => c.stones[idx(s)] += 1,
                (None, Some(o)) => c.territory[idx(o)] += 1,
                (None, None) => c.dame += 1,
            }
        }
    }
    total(board, method, komi, c)
}

struct Counts {
    stones: [u32; 2],
    territory: [u32; 2],
    dead: [u32; 2],
    dame: u32,
}

fn total(board: &Board, method: Method, komi: f64, c: Counts) -> Score {
    let prisoners = [
        board.captures(Color::Black) + c.dead[1],
        board.captures(Color::White) + c.dead[0],
    ];
    let (black, white) = match method {
        Method::Area => (c.stones[0] + c.territory[0], c.stones[1] + c.territory[1]),
        Method::Territory => (c.territory[0] + prisoners[0], c.territory[1] + prisoners[1]),
    };
    Score {
        method,
        black: f64::from(black),
        white: f64::from(white) + komi,
        komi,
        stones: c.stones,
        territory: c.territory,
        prisoners,
        dead: c.dead,
        dame: c.dame,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board from rows of `X` (black), `O` (white) and `.`.
    fn board(rows: &[&str]) -> Board {
        let mut b = Board::new(rows[0].len() as u32, rows.len() as u32);
        let mut changes = Vec::new();
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.bytes().enumerate() {
                let c = match ch {
                    b'X' => Some(Color::Black),
                    b'O' => Some(Color::White),
                    _ => continue,
                };
                changes.push((Point::new(x as u8, y as u8), c));
            }
        }
        b.setup(&changes).unwrap();
        b
    }

    /// A game GNU Go played against itself (9x9, komi 7.5) to a seki in
    /// the lower left: the black group there has one eye (C1, point (2, 8))
    /// and shares A4, B3, A2 and A1 with the white stones A3 and B2. GNU Go
    /// lists seven black stones dead and scores W+57.5 by both rules.
    #[test]
    fn seki_eyes_are_dame_by_territory_and_count_by_area() {
        let b = board(&[
            ".........",
            ".....O...",
            "OO.O...O.",
            "XOO...XX.",
            "XXO..X...",
            ".XXOOOXX.",
            "O.XOOXX..",
            ".OXXOOOO.",
            ".X.XXXXO.",
        ]);
        let p = |x, y| Point::new(x, y);
        let dead = [
            p(6, 3),
            p(7, 3),
            p(5, 4),
            p(6, 5),
            p(7, 5),
            p(5, 6),
            p(6, 6),
        ];
        let seki = [
            p(0, 3),
            p(0, 4),
            p(1, 4),
            p(1, 5),
            p(2, 5),
            p(2, 6),
            p(2, 7),
            p(3, 7),
            p(3, 8),
            p(4, 8),
            p(5, 8),
            p(6, 8),
            p(0, 6),
            p(1, 7),
            p(1, 8),
        ];
        // Territory: the eye is not Black's; White has 43 points and seven
        // prisoners.
        let t = score_with_status(&b, &dead, &seki, Method::Territory, 7.5);
        assert_eq!((t.territory, t.dame, t.dead), ([0, 43], 5, [7, 0]));
        assert_eq!(t.to_result(), "W+57.5");
        // Without the seki list the eye counts.
        let t = score_with_dead(&b, &dead, Method::Territory, 7.5);
        assert_eq!((t.territory, t.dame), ([1, 43], 4));
        // Area: 13 stones and the eye against 20 stones and 43 points,
        // seki list or not.
        for seki in [&seki[..], &[]] {
            let a = score_with_status(&b, &dead, seki, Method::Area, 7.5);
            assert_eq!((a.stones, a.territory, a.dame), ([13, 20], [1, 43], 4));
            assert_eq!(a.to_result(), "W+56.5");
        }
        // A seki stone listed dead too is dead.
        let t = score_with_status(&b, &[p(1, 8)], &[p(1, 8)], Method::Territory, 0.0);
        assert_eq!(t.dead, [1, 0]);
    }

    #[test]
    fn hand_counted_position_with_a_dead_stone_and_dame() {
        // Black: columns 0-1 walls at 1; White wall at 3; column 2 is dame
        // except (2,0); a dead white stone at (0,0).
        let b = board(&["OX.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."]);
        let s = score_with_dead(&b, &[Point::new(0, 0)], Method::Area, 0.0);
        // Black: 5 stones + 5 territory (column 0); White: 5 + 5.
        assert_eq!(s.stones, [5, 5]);
        assert_eq!(s.territory, [5, 5]);
        assert_eq!(s.dead, [0, 1]);
        assert_eq!(s.dame, 5);
        assert_eq!((s.black, s.white), (10.0, 10.0));
        assert_eq!(s.to_result(), "0");
        let t = score_with_dead(&b, &[Point::new(0, 0)], Method::Territory, 6.5);
        // Black: 5 territory + 1 prisoner; White: 5 territory + 6.5.
        assert_eq!((t.black, t.white), (6.0, 11.5));
        assert_eq!(t.to_result(), "W+5.5");
        assert_eq!(t.margin(), -5.5);
    }

    #[test]
    fn without_the_dead_list_the_stone_spoils_the_region() {
        let b = board(&["OX.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."]);
        let s = score_with_dead(&b, &[], Method::Area, 0.0);
        // Column 0 touches both colours: dame.
        assert_eq!(s.territory, [0, 5]);
        assert_eq!(s.dame, 9);
        assert_eq!((s.black, s.white), (5.0, 11.0));
    }

    #[test]
    fn marks_give_the_same_count_as_the_dead_list() {
        let b = board(&["OX.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."]);
        let tb: Vec<_> = (0..5).map(|y| Point::new(0, y)).collect();
        let tw: Vec<_> = (0..5).map(|y| Point::new(4, y)).collect();
        for m in [Method::Area, Method::Territory] {
            let a = score_with_marks(&b, &tb, &tw, m, 7.5);
            let d = score_with_dead(&b, &[Point::new(0, 0)], m, 7.5);
            assert_eq!(a, d, "{m:?}");
        }
    }

    #[test]
    fn captures_count_under_territory_scoring_only() {
        let mut b = Board::new(3, 3);
        // Black captures a white stone in the corner.
        b.play(Color::White, Some(Point::new(0, 0)));
        b.play(Color::Black, Some(Point::new(1, 0)));
        b.play(Color::Black, Some(Point::new(0, 1)));
        assert_eq!(b.captures(Color::Black), 1);
        let t = score_with_dead(&b, &[], Method::Territory, 0.0);
        assert_eq!(t.prisoners, [1, 0]);
        assert_eq!(t.black, 7.0 + 1.0);
        let a = score_with_dead(&b, &[], Method::Area, 0.0);
        assert_eq!(a.black, 9.0);
        assert_eq!(a.to_result(), "B+9");
    }

    #[test]
    fn results_are_written_and_read_as_ff4_spells_them() {
        for (re, o) in [
            ("B+3.5", Outcome::Points(Color::Black, 3.5)),
            ("W+12", Outcome::Points(Color::White, 12.0)),
            ("W+R", Outcome::Resign(Color::White)),
            ("B+T", Outcome::Time(Color::Black)),
            ("B+F", Outcome::Forfeit(Color::Black)),
            ("B+", Outcome::Won(Color::Black)),
            ("0", Outcome::Draw),
            ("Void", Outcome::Void),
            ("?", Outcome::Unknown),
        ] {
            assert_eq!(Outcome::parse(re), Some(o), "{re}");
            assert_eq!(o.to_string(), re);
        }
        assert_eq!(
            Outcome::parse("W+Resign"),
            Some(Outcome::Resign(Color::White))
        );
        assert_eq!(Outcome::parse("Draw"), Some(Outcome::Draw));
        for bad in ["B+3,5", "X+1", "B3", "B+.5", "B+1.2.3", "", "黒+1"] {
            assert_eq!(Outcome::parse(bad), None, "{bad}");
        }
    }
}
