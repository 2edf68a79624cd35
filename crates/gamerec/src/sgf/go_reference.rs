//! The previous Go board (Vec-based chains), kept unchanged as the
//! reference the new board is compared with in tests.

use super::{Illegal, MoveOutcome};
use crate::sgf::tree::{Color, Point};

const EMPTY: u8 = 0;
const BORDER: u8 = 3;

fn code(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// A Go position.
///
/// Points are stored with a one-point border of sentinels, so the four
/// neighbours of a point are always `i - 1`, `i + 1`, `i - stride` and
/// `i + stride`.
#[derive(Debug, Clone)]
pub struct Board {
    width: usize,
    height: usize,
    stride: usize,
    color: Vec<u8>,
    chain: Vec<u16>,
    next: Vec<u16>,
    libs: Vec<i32>,
    size: Vec<u16>,
    /// Prisoners taken by Black and by White.
    captures: [u32; 2],
    /// The point the given colour may not play next (simple ko).
    ko: Option<(usize, Color)>,
}

impl Board {
    /// An empty board `width` x `height` (each 1..=52).
    pub fn new(width: u32, height: u32) -> Board {
        let (w, h) = (width.clamp(1, 52) as usize, height.clamp(1, 52) as usize);
        let stride = w + 2;
        let n = stride * (h + 2);
        let mut color = vec![BORDER; n];
        for y in 0..h {
            for x in 0..w {
                color[(y + 1) * stride + x + 1] = EMPTY;
            }
        }
        Board {
            width: w,
            height: h,
            stride,
            color,
            chain: vec![n as u16; n],
            next: (0..n as u16).collect(),
            libs: vec![0; n + 1],
            size: vec![0; n],
            captures: [0, 0],
            ko: None,
        }
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        self.width as u32
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        self.height as u32
    }

    /// Prisoners taken by `c`.
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[code(c) as usize - 1]
    }

    /// The point a player may not play next because of ko.
    pub fn ko(&self) -> Option<(Point, Color)> {
        self.ko.map(|(i, c)| (self.point(i), c))
    }

    #[inline]
    fn index(&self, p: Point) -> Option<usize> {
        let (x, y) = (p.x as usize, p.y as usize);
        (x < self.width && y < self.height).then_some((y + 1) * self.stride + x + 1)
    }

    fn point(&self, i: usize) -> Point {
        Point::new((i % self.stride - 1) as u8, (i / self.stride - 1) as u8)
    }

    /// The stone on `p`.
    pub fn get(&self, p: Point) -> Option<Color> {
        match self.index(p).map(|i| self.color[i]) {
            Some(1) => Some(Color::Black),
            Some(2) => Some(Color::White),
            _ => None,
        }
    }

    #[inline]
    fn neighbors(&self, i: usize) -> [usize; 4] {
        [i - 1, i + 1, i - self.stride, i + self.stride]
    }

    /// Puts or removes stones without captures (setup `AB`/`AW`/`AE`).
    pub fn setup(&mut self, changes: &[(Point, Option<Color>)]) -> Result<(), Point> {
        let mut bad = None;
        for &(p, c) in changes {
            match self.index(p) {
                Some(i) => self.color[i] = c.map_or(EMPTY, code),
                None => bad = Some(p),
            }
        }
        self.rebuild();
        self.ko = None;
        bad.map_or(Ok(()), Err)
    }

    /// Recomputes every chain from the stone colours.
    fn rebuild(&mut self) {
        let n = self.color.len();
        self.chain.fill(n as u16);
        let mut seen = vec![false; n];
        let mut stack = Vec::new();
        let mut members = Vec::new();
        for start in 0..n {
            let c = self.color[start];
            if seen[start] || c == EMPTY || c == BORDER {
                continue;
            }
            members.clear();
            stack.push(start);
            seen[start] = true;
            while let Some(i) = stack.pop() {
                members.push(i);
                for q in self.neighbors(i) {
                    if !seen[q] && self.color[q] == c {
                        seen[q] = true;
                        stack.push(q);
                    }
                }
            }
            let mut libs = 0;
            for (k, &m) in members.iter().enumerate() {
                self.chain[m] = start as u16;
                self.next[m] = members[(k + 1) % members.len()] as u16;
                libs += self
                    .neighbors(m)
                    .iter()
                    .filter(|&&q| self.color[q] == EMPTY)
                    .count() as i32;
            }
            self.libs[start] = libs;
            self.size[start] = members.len() as u16;
        }
    }

    /// The legality of a move, without playing it.
    pub fn check(&self, c: Color, p: Point) -> Result<(), Illegal> {
        let i = self.index(p).ok_or(Illegal::OffBoard)?;
        if self.color[i] != EMPTY {
            return Err(Illegal::Occupied);
        }
        if self.ko == Some((i, c)) {
            return Err(Illegal::Ko);
        }
        let mut trial = self.clone();
        match trial.play(c, Some(p)).illegal {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Plays a move (`None` = pass) with SGF semantics: always executed.
    pub fn play(&mut self, c: Color, p: Option<Point>) -> MoveOutcome {
        let mut out = MoveOutcome::default();
        let Some(p) = p else {
            self.ko = None;
            return out;
        };
        let Some(i) = self.index(p) else {
            out.illegal = Some(Illegal::OffBoard);
            self.ko = None;
            return out;
        };
        if self.color[i] != EMPTY {
            out.illegal = Some(Illegal::Occupied);
            self.color[i] = EMPTY;
            self.rebuild();
        } else if self.ko == Some((i, c)) {
            out.illegal = Some(Illegal::Ko);
        }
        self.ko = None;
        let me = code(c);
        let opp = 3 - me;
        let stride = self.stride;
        // Split borrows: the compiler then knows the arrays do not alias.
        let Board {
            color,
            chain,
            next,
            libs,
            size,
            ..
        } = self;
        let (color, chain, next, libs, size) = (
            &mut color[..],
            &mut chain[..],
            &mut next[..],
            &mut libs[..],
            &mut size[..],
        );
        color[i] = me;
        chain[i] = i as u16;
        next[i] = i as u16;
        size[i] = 1;
        let dummy = color.len();
        let nb = [i - 1, i + 1, i - stride, i + stride];
        // Branch-free where the outcome is a coin toss: empty and border
        // points belong to the dummy chain, whose count is never read.
        let mut own_libs = 0;
        for q in nb {
            own_libs += i32::from(color[q] == EMPTY);
            libs[chain[q] as usize] -= 1;
        }
        libs[i] = own_libs;
        for q in nb {
            let (a, b) = (chain[i] as usize, chain[q] as usize);
            if (color[q] == me) & (a != b) {
                merge(chain, next, libs, size, a, b);
            }
        }
        let mut captured_at = usize::MAX;
        for q in nb {
            let r = chain[q] as usize;
            if (color[q] == opp) & (libs[r] == 0) {
                out.captured += remove_chain(color, chain, next, libs, stride, r);
                captured_at = q;
            }
        }
        libs[dummy] = 0;
        let own = chain[i] as usize;
        if out.captured == 0 && libs[own] == 0 {
            let n = remove_chain(color, chain, next, libs, stride, own);
            out.suicided = n;
            self.captures[opp as usize - 1] += n;
            if out.illegal.is_none() {
                out.illegal = Some(Illegal::Suicide);
            }
            return out;
        }
        self.captures[me as usize - 1] += out.captured;
        if out.captured == 1 && size[own] == 1 && libs[own] == 1 {
            self.ko = Some((captured_at, c.opponent()));
        }
        out
    }

    /// Number of stones of colour `c` on the board.
    pub fn count(&self, c: Color) -> usize {
        self.color.iter().filter(|&&v| v == code(c)).count()
    }
}

/// Joins chains `a` and `b` (the smaller list is relabelled).
fn merge(
    chain: &mut [u16],
    next: &mut [u16],
    libs: &mut [i32],
    size: &mut [u16],
    a: usize,
    b: usize,
) {
    let (big, small) = if size[a] >= size[b] { (a, b) } else { (b, a) };
    let mut s = small;
    loop {
        chain[s] = big as u16;
        s = next[s] as usize;
        if s == small {
            break;
        }
    }
    next.swap(big, small);
    libs[big] += libs[small];
    size[big] += size[small];
}

/// Removes the chain of `r`; returns its stone count.
fn remove_chain(
    color: &mut [u8],
    chain: &mut [u16],
    next: &mut [u16],
    libs: &mut [i32],
    stride: usize,
    r: usize,
) -> u32 {
    let mut n = 0;
    let mut s = r;
    loop {
        color[s] = EMPTY;
        n += 1;
        s = next[s] as usize;
        if s == r {
            break;
        }
    }
    let dummy = color.len() as u16;
    let mut s = r;
    loop {
        let following = next[s] as usize;
        for q in [s - 1, s + 1, s - stride, s + stride] {
            libs[chain[q] as usize] += 1;
        }
        chain[s] = dummy;
        next[s] = s as u16;
        s = following;
        if s == r {
            break;
        }
    }
    n
}
