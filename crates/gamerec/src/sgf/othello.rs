//! Othello (GM\[2\]) rules: flips, passes, legality.
//!
//! The board is 8x8 by default (`SZ` is honoured for even sizes up to 52).
//! Without setup stones in the root, the standard start is used: White on
//! d4 and e5, Black on e4 and d5 (SGF coordinates `dd`, `ee` / `ed`, `de`).

use std::fmt;

use super::tree::{Color, Point};

/// Why an Othello move is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    /// Outside the board.
    OffBoard,
    /// The square is occupied.
    Occupied,
    /// The move flips no disc.
    NoFlip,
    /// A pass while a legal move exists.
    PassWithMoves,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Illegal::OffBoard => "the square is off the board",
            Illegal::Occupied => "the square is occupied",
            Illegal::NoFlip => "it flips no disc",
            Illegal::PassWithMoves => "a pass is allowed only without legal moves",
        })
    }
}

const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// An Othello position.
#[derive(Debug, Clone)]
pub struct Board {
    width: i32,
    height: i32,
    cells: Vec<Option<Color>>,
}

impl Board {
    /// An empty board.
    pub fn empty(width: u32, height: u32) -> Board {
        let (w, h) = (width.clamp(1, 52) as i32, height.clamp(1, 52) as i32);
        Board {
            width: w,
            height: h,
            cells: vec![None; (w * h) as usize],
        }
    }

    /// The standard start position on an even board.
    pub fn standard(width: u32, height: u32) -> Board {
        let mut b = Board::empty(width, height);
        let (cx, cy) = ((b.width / 2 - 1) as u8, (b.height / 2 - 1) as u8);
        b.set(Point::new(cx, cy), Some(Color::White));
        b.set(Point::new(cx + 1, cy + 1), Some(Color::White));
        b.set(Point::new(cx + 1, cy), Some(Color::Black));
        b.set(Point::new(cx, cy + 1), Some(Color::Black));
        b
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        self.width as u32
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        self.height as u32
    }

    fn index(&self, x: i32, y: i32) -> Option<usize> {
        (x >= 0 && y >= 0 && x < self.width && y < self.height)
            .then(|| (y * self.width + x) as usize)
    }

    /// The disc on `p`.
    pub fn get(&self, p: Point) -> Option<Color> {
        self.index(p.x as i32, p.y as i32)
            .and_then(|i| self.cells[i])
    }

    /// Puts or removes a disc (setup). Returns false when off the board.
    pub fn set(&mut self, p: Point, c: Option<Color>) -> bool {
        match self.index(p.x as i32, p.y as i32) {
            Some(i) => {
                self.cells[i] = c;
                true
            }
            None => false,
        }
    }

    fn flips(&self, c: Color, p: Point) -> Vec<usize> {
        let mut all = Vec::new();
        let (px, py) = (p.x as i32, p.y as i32);
        for (dx, dy) in DIRS {
            let mut run = Vec::new();
            let (mut x, mut y) = (px + dx, py + dy);
            while let Some(i) = self.index(x, y) {
                match self.cells[i] {
                    Some(d) if d == c.opponent() => run.push(i),
                    Some(_) => {
                        all.extend_from_slice(&run);
                        break;
                    }
                    None => break,
                }
                x += dx;
                y += dy;
            }
        }
        all
    }

    /// Whether `c` has any legal move.
    pub fn has_move(&self, c: Color) -> bool {
        (0..self.height).any(|y| {
            (0..self.width).any(|x| {
                let p = Point::new(x as u8, y as u8);
                self.get(p).is_none() && !self.flips(c, p).is_empty()
            })
        })
    }

    /// Plays a move (`None` = pass); returns the discs flipped. Illegal
    /// moves change nothing except that an occupied or flipless move still
    /// places the disc (SGF viewers execute every move).
    pub fn play(&mut self, c: Color, p: Option<Point>) -> Result<usize, Illegal> {
        let Some(p) = p else {
            return if self.has_move(c) {
                Err(Illegal::PassWithMoves)
            } else {
                Ok(0)
            };
        };
        let Some(i) = self.index(p.x as i32, p.y as i32) else {
            return Err(Illegal::OffBoard);
        };
        if self.cells[i].is_some() {
            self.cells[i] = Some(c);
            return Err(Illegal::Occupied);
        }
        let flips = self.flips(c, p);
        self.cells[i] = Some(c);
        if flips.is_empty() {
            return Err(Illegal::NoFlip);
        }
        for &f in &flips {
            self.cells[f] = Some(c);
        }
        Ok(flips.len())
    }

    /// Discs of colour `c`.
    pub fn count(&self, c: Color) -> usize {
        self.cells.iter().filter(|&&d| d == Some(c)).count()
    }
}
