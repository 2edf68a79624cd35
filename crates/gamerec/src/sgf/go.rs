//! Go rules on boards up to 52x52: captures, suicide, simple ko, passes.
//!
//! Chains are kept incrementally (a circular stone list and a
//! pseudo-liberty count per chain), so a move costs a few array updates;
//! setup properties, which may split chains, rebuild them from scratch.
//! Moves follow SGF semantics: they are always executed ("place a stone,
//! remove captured opponent chains, then the own chain if it has no
//! liberties"), and the result says whether the move was illegal.

use std::fmt;

use super::tree::{Color, Point};

/// Why a move is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    /// The point is outside the board.
    OffBoard,
    /// The point already holds a stone.
    Occupied,
    /// The move retakes a ko immediately.
    Ko,
    /// The move leaves its own chain without liberties.
    Suicide,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Illegal::OffBoard => "the point is off the board",
            Illegal::Occupied => "the point is occupied",
            Illegal::Ko => "it retakes the ko immediately",
            Illegal::Suicide => "it is suicide",
        })
    }
}

/// What a move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MoveOutcome {
    /// Opponent stones captured.
    pub captured: u32,
    /// Own stones removed by suicide.
    pub suicided: u32,
    /// Set when the move broke a rule (it was executed anyway).
    pub illegal: Option<Illegal>,
}

const EMPTY: u8 = 0;
const BORDER: u8 = 3;

fn code(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// The simple-ko state of a [`Board`]: no point is forbidden.
const NO_KO: usize = usize::MAX;

/// The simple-ko state forbidding cell `i` to colour `c` (one compare per
/// move, where an `Option` of the pair took a dozen instructions).
#[inline(always)]
fn ko_key(i: usize, c: Color) -> usize {
    (i << 1) | usize::from(c == Color::White)
}

/// Cells of boards up to 20x20 (22 x 22 points with the border).
const SMALL: usize = 512;
/// Cells of boards up to 52x52 (54 x 54 points with the border).
const LARGE: usize = 4096;

/// The point arrays of a board with `N` cells (a power of two).
///
/// Every index is masked with `N - 1` before use, so the arrays are
/// accessed without bounds checks; points are stored with a one-point
/// border, so the neighbours of a point `i` are `i - 1`, `i + 1`,
/// `i - stride` and `i + stride`. Cell `N - 1` (never a point: at most
/// `N - 4` cells are used) is the dummy chain of every empty and border
/// cell; the liberty counts of cells `N - 4..N` are scratch.
#[derive(Debug, Clone)]
struct Grid<const N: usize> {
    color: [u8; N],
    /// The representative of each stone's chain (the dummy for others).
    chain: [u16; N],
    /// The next stone of the chain (a circular list).
    next: [u16; N],
    /// Pseudo-liberties of each chain (at its representative): the number
    /// of (stone, empty neighbour) pairs, 0 exactly when it has none.
    libs: [i16; N],
    /// Stones of each chain (at its representative).
    size: [u16; N],
    /// The XOR of [`zobrist`] over the stones, kept with every change
    /// while `hashing` (superko rules) and 0 otherwise.
    hash: u64,
    hashing: bool,
}

/// The Zobrist key of a stone of colour code `c` (1 or 2) on cell `i`: a
/// splitmix64 of the pair, computed (no table to keep in cache).
#[inline(always)]
fn zobrist(i: usize, c: u8) -> u64 {
    let k = ((i as u64) << 1) | u64::from(c & 1);
    let mut z = k.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// For the colour codes of four neighbours packed two bits each (the
/// first neighbour lowest): bits 0-3 the neighbours holding black (code
/// 1), bits 4-7 those holding white (code 2), bits 8-10 how many are empty.
const NEIGHBOURS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut around = 0;
    while around < 256 {
        let mut k = 0;
        while k < 4 {
            match (around >> (2 * k)) & 3 {
                0 => t[around] += 1 << 8,
                1 => t[around] |= 1 << k,
                2 => t[around] |= 1 << (4 + k),
                _ => {}
            }
            k += 1;
        }
        around += 1;
    }
    t
};

#[inline(always)]
fn m<const N: usize>(i: usize) -> usize {
    i & (N - 1)
}

impl<const N: usize> Grid<N> {
    const DUMMY: usize = N - 1;

    /// A grid of border cells only: [`Grid::new`] copies it straight into
    /// its allocation (no grid built on the stack first).
    const BLANK: Grid<N> = Grid {
        color: [BORDER; N],
        chain: [Self::DUMMY as u16; N],
        next: [0; N],
        libs: [0; N],
        size: [0; N],
        hash: 0,
        hashing: false,
    };

    fn new(width: usize, height: usize, stride: usize) -> Box<Grid<N>> {
        let mut g = Box::new(Self::BLANK);
        g.empty_rows(width, height, stride);
        g
    }

    fn empty_rows(&mut self, width: usize, height: usize, stride: usize) {
        for y in 0..height {
            let row = (y + 1) * stride + 1;
            self.color[row..row + width].fill(EMPTY);
        }
    }

    /// Makes this grid an empty board, as [`Grid::new`] does, copying only
    /// the colours and chains: `next`, `libs` and `size` are read only at
    /// chain representatives, which get them when their chain is made, and
    /// at the dummy (scratch).
    fn reset(&mut self, width: usize, height: usize, stride: usize) {
        self.color = Self::BLANK.color;
        self.chain = Self::BLANK.chain;
        self.empty_rows(width, height, stride);
        self.hash = 0;
        self.hashing = false;
    }

    /// Recomputes every chain from the stone colours.
    fn rebuild(&mut self, cells: usize, stride: usize) {
        self.chain.fill(Self::DUMMY as u16);
        self.libs.fill(0);
        self.hash = 0;
        let mut stack: Vec<usize> = Vec::new();
        let mut members: Vec<usize> = Vec::new();
        for start in 0..cells {
            let c = self.color[m::<N>(start)];
            if self.hashing && (c == 1 || c == 2) {
                self.hash ^= zobrist(m::<N>(start), c);
            }
            if self.chain[m::<N>(start)] != Self::DUMMY as u16 || c == EMPTY || c == BORDER {
                continue;
            }
            members.clear();
            stack.push(start);
            self.chain[m::<N>(start)] = start as u16;
            while let Some(i) = stack.pop() {
                members.push(i);
                for q in [i - 1, i + 1, i - stride, i + stride] {
                    let q = m::<N>(q);
                    if self.chain[q] == Self::DUMMY as u16 && self.color[q] == c {
                        self.chain[q] = start as u16;
                        stack.push(q);
                    }
                }
            }
            let mut libs = 0;
            for (k, &s) in members.iter().enumerate() {
                self.next[m::<N>(s)] = members[(k + 1) % members.len()] as u16;
                for q in [s - 1, s + 1, s - stride, s + stride] {
                    libs += i16::from(self.color[m::<N>(q)] == EMPTY);
                }
            }
            self.libs[m::<N>(start)] = libs;
            self.size[m::<N>(start)] = members.len() as u16;
        }
    }

    /// [`Board::play`] on point `i` of the board (`cells` cells): the
    /// occupied and ko tests (into `out`), then [`Grid::place`].
    #[inline]
    fn play(
        &mut self,
        i: usize,
        stride: usize,
        cells: usize,
        c: Color,
        ko: &mut usize,
        out: &mut MoveOutcome,
    ) -> (u32, usize, u32, bool) {
        if self.color[m::<N>(i)] != EMPTY {
            out.illegal = Some(Illegal::Occupied);
            self.color[m::<N>(i)] = EMPTY;
            self.rebuild(cells, stride);
        } else if *ko == ko_key(i, c) {
            out.illegal = Some(Illegal::Ko);
        }
        *ko = NO_KO;
        self.place(i, stride, code(c))
    }

    /// Puts a stone of colour `me` on the empty point `i`, removes the
    /// opponent chains left without liberties, then its own chain if it
    /// has none. Returns (stones captured, where the last capture was,
    /// stones removed by suicide, whether the stone is alone with one
    /// liberty).
    ///
    /// Each neighbour's chain loses the liberty `i` (pseudo-liberties: one
    /// per adjacency); empty and border neighbours belong to the dummy
    /// chain, whose count is scratch. Friends and foes are bit masks, so
    /// only the neighbours that matter are visited again. The branches
    /// that depend on the position (which neighbours are friends, which
    /// chains die) are the ones a processor mispredicts, so the common
    /// work is done without them: the stone joins its first friendly chain
    /// (or starts its own) the same way in every case, and the chains left
    /// without liberties are found as a mask of all four neighbours.
    #[inline]
    fn place(&mut self, i: usize, stride: usize, me: u8) -> (u32, usize, u32, bool) {
        let opp = 3 - me;
        let i = m::<N>(i);
        // Split borrows: the compiler then knows the arrays do not alias.
        let Grid {
            color,
            chain,
            next,
            libs,
            size,
            hash,
            hashing,
        } = self;
        // The neighbours, then the point itself (the chain it joins when
        // it has no friendly neighbour).
        let nb = [
            m::<N>(i - 1),
            m::<N>(i + 1),
            m::<N>(i - stride),
            m::<N>(i + stride),
            i,
        ];
        // The four neighbours' colours as one byte (two bits each), which
        // `NEIGHBOURS` turns into the empty count and the masks of each
        // colour.
        let mut around = 0usize;
        for (k, &q) in nb[..4].iter().enumerate() {
            let c = m::<N>(chain[q] as usize);
            // The dummy's count may wrap.
            libs[c] = libs[c].wrapping_sub(1);
            around |= usize::from(color[q] & 3) << (2 * k);
        }
        let class = u32::from(NEIGHBOURS[around]);
        let own_libs = (class >> 8) as i16;
        let friends = (class >> (4 * (u32::from(me) - 1))) & 15;
        let foes = (class >> (4 * u32::from(opp - 1))) & 15;
        // Opponent chains left without liberties (a foe's; the dummy's
        // scratch count is masked out).
        let mut dead = 0u32;
        for (k, &q) in nb[..4].iter().enumerate() {
            dead |= u32::from(libs[m::<N>(chain[q] as usize)] == 0) << k;
        }
        dead &= foes;
        color[i] = me;
        if *hashing {
            *hash ^= zobrist(i, me);
        }
        let alone = friends == 0;
        // The stone joins the chain of its first friendly neighbour, or,
        // alone, the chain of itself (an empty one, made here): the same
        // stores either way.
        chain[i] = i as u16;
        next[i] = i as u16;
        libs[i] = 0;
        size[i] = 0;
        let first = nb[((friends | 16).trailing_zeros() as usize).min(4)];
        let mut own = m::<N>(chain[m::<N>(first)] as usize);
        chain[i] = own as u16;
        next[i] = next[own];
        next[own] = i as u16;
        libs[own] = libs[own].wrapping_add(own_libs);
        size[own] += 1;
        // Each other friendly chain joins it (the smaller of two is
        // relabelled).
        let mut rest = friends & friends.wrapping_sub(1);
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let other = m::<N>(chain[m::<N>(nb[k])] as usize);
            if other != own {
                let (big, small) = if size[own] >= size[other] {
                    (own, other)
                } else {
                    (other, own)
                };
                let mut s = small;
                loop {
                    chain[s] = big as u16;
                    s = m::<N>(next[s] as usize);
                    if s == small {
                        break;
                    }
                }
                next.swap(big, small);
                libs[big] = libs[big].wrapping_add(libs[small]);
                size[big] += size[small];
                own = big;
            }
        }
        let mut captured = 0;
        let mut captured_at = usize::MAX;
        while dead != 0 {
            let k = dead.trailing_zeros() as usize;
            dead &= dead - 1;
            let q = m::<N>(nb[k]);
            // A chain touching the stone twice is removed once.
            if color[q] == opp {
                let c = m::<N>(chain[q] as usize);
                captured += remove_chain::<N>(color, chain, next, libs, hash, *hashing, stride, c);
                captured_at = q;
            }
        }
        if captured == 0 {
            if libs[own] == 0 {
                let n = remove_chain::<N>(color, chain, next, libs, hash, *hashing, stride, own);
                return (0, captured_at, n, false);
            }
            return (0, captured_at, 0, false);
        }
        (captured, captured_at, 0, alone && libs[i] == 1)
    }
}

/// Removes the chain of `r`; returns its stone count.
#[allow(clippy::too_many_arguments)]
fn remove_chain<const N: usize>(
    color: &mut [u8; N],
    chain: &mut [u16; N],
    next: &mut [u16; N],
    libs: &mut [i16; N],
    hash: &mut u64,
    hashing: bool,
    stride: usize,
    r: usize,
) -> u32 {
    let mut n = 0;
    let mut s = r;
    loop {
        if hashing {
            *hash ^= zobrist(s, color[s]);
        }
        color[s] = EMPTY;
        n += 1;
        s = m::<N>(next[s] as usize);
        if s == r {
            break;
        }
    }
    let mut s = r;
    loop {
        let following = m::<N>(next[s] as usize);
        for q in [s - 1, s + 1, s - stride, s + stride] {
            let t = m::<N>(chain[m::<N>(q)] as usize);
            // The dummy's count is scratch: it may wrap.
            libs[t] = libs[t].wrapping_add(1);
        }
        chain[s] = Grid::<N>::DUMMY as u16;
        next[s] = s as u16;
        s = following;
        if s == r {
            break;
        }
    }
    n
}

/// A board's stones, prisoners and ko ([`Board::stones`]).
#[derive(Debug, Clone)]
pub struct Stones {
    colors: Box<[u8]>,
    captures: [u32; 2],
    ko: usize,
}

/// The grid of a board, sized by the board.
#[derive(Debug, Clone)]
enum Cells {
    Small(Box<Grid<SMALL>>),
    Large(Box<Grid<LARGE>>),
}

/// A Go position.
///
/// Chains are kept incrementally: a circular stone list and a
/// pseudo-liberty count per chain, in fixed-size arrays (512 cells up to
/// 20x20, else 4096) indexed without bounds checks.
#[derive(Debug, Clone)]
pub struct Board {
    width: usize,
    height: usize,
    stride: usize,
    cells: Cells,
    /// Prisoners taken by Black and by White.
    captures: [u32; 2],
    /// The point the given colour may not play next (simple ko).
    /// [`ko_key`] of the point and colour, else [`NO_KO`].
    ko: usize,
}

impl Board {
    /// An empty board `width` x `height` (each 1..=52).
    pub fn new(width: u32, height: u32) -> Board {
        let (w, h) = (width.clamp(1, 52) as usize, height.clamp(1, 52) as usize);
        let stride = w + 2;
        // The last four cells of a grid are scratch (see `Grid::place`).
        let cells = if stride * (h + 2) <= SMALL - 4 {
            Cells::Small(Grid::new(w, h, stride))
        } else {
            Cells::Large(Grid::new(w, h, stride))
        };
        Board {
            width: w,
            height: h,
            stride,
            cells,
            captures: [0, 0],
            ko: NO_KO,
        }
    }

    /// Makes this board what `Board::new(width, height)` makes, reusing
    /// its grid when it has the size needed (no allocation, less copying).
    pub fn reset(&mut self, width: u32, height: u32) {
        let (w, h) = (width.clamp(1, 52) as usize, height.clamp(1, 52) as usize);
        let stride = w + 2;
        match &mut self.cells {
            Cells::Small(g) if stride * (h + 2) <= SMALL - 4 => g.reset(w, h, stride),
            Cells::Large(g) if stride * (h + 2) > SMALL - 4 => g.reset(w, h, stride),
            _ => {
                *self = Board::new(width, height);
                return;
            }
        }
        self.width = w;
        self.height = h;
        self.stride = stride;
        self.captures = [0, 0];
        self.ko = NO_KO;
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
        (self.ko != NO_KO).then(|| {
            let c = if self.ko & 1 == 0 {
                Color::Black
            } else {
                Color::White
            };
            (self.point(self.ko >> 1), c)
        })
    }

    #[inline]
    fn index(&self, p: Point) -> Option<usize> {
        let (x, y) = (p.x as usize, p.y as usize);
        (x < self.width && y < self.height).then_some((y + 1) * self.stride + x + 1)
    }

    fn point(&self, i: usize) -> Point {
        Point::new((i % self.stride - 1) as u8, (i / self.stride - 1) as u8)
    }

    fn color_at(&self, i: usize) -> u8 {
        match &self.cells {
            Cells::Small(g) => g.color[m::<SMALL>(i)],
            Cells::Large(g) => g.color[m::<LARGE>(i)],
        }
    }

    fn set_color(&mut self, i: usize, c: u8) {
        match &mut self.cells {
            Cells::Small(g) => g.color[m::<SMALL>(i)] = c,
            Cells::Large(g) => g.color[m::<LARGE>(i)] = c,
        }
    }

    fn rebuild(&mut self) {
        let cells = self.stride * (self.height + 2);
        match &mut self.cells {
            Cells::Small(g) => g.rebuild(cells, self.stride),
            Cells::Large(g) => g.rebuild(cells, self.stride),
        }
    }

    /// The stone on `p`.
    pub fn get(&self, p: Point) -> Option<Color> {
        match self.index(p).map(|i| self.color_at(i)) {
            Some(1) => Some(Color::Black),
            Some(2) => Some(Color::White),
            _ => None,
        }
    }

    /// Puts or removes stones without captures (setup `AB`/`AW`/`AE`).
    pub fn setup(&mut self, changes: &[(Point, Option<Color>)]) -> Result<(), Point> {
        let mut bad = None;
        for &(p, c) in changes {
            match self.index(p) {
                Some(i) => self.set_color(i, c.map_or(EMPTY, code)),
                None => bad = Some(p),
            }
        }
        self.rebuild();
        self.ko = NO_KO;
        bad.map_or(Ok(()), Err)
    }

    /// The legality of a move, without playing it.
    pub fn check(&self, c: Color, p: Point) -> Result<(), Illegal> {
        let i = self.index(p).ok_or(Illegal::OffBoard)?;
        if self.color_at(i) != EMPTY {
            return Err(Illegal::Occupied);
        }
        if self.ko == ko_key(i, c) {
            return Err(Illegal::Ko);
        }
        let mut trial = self.clone();
        match trial.play(c, Some(p)).illegal {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Plays a move (`None` = pass) with SGF semantics: always executed.
    #[inline]
    pub fn play(&mut self, c: Color, p: Option<Point>) -> MoveOutcome {
        let mut out = MoveOutcome::default();
        let Some(p) = p else {
            self.ko = NO_KO;
            return out;
        };
        let Some(i) = self.index(p) else {
            out.illegal = Some(Illegal::OffBoard);
            self.ko = NO_KO;
            return out;
        };
        let cells = self.stride * (self.height + 2);
        let (captured, captured_at, suicided, lone) = match &mut self.cells {
            Cells::Small(g) => g.play(i, self.stride, cells, c, &mut self.ko, &mut out),
            Cells::Large(g) => g.play(i, self.stride, cells, c, &mut self.ko, &mut out),
        };
        let me = code(c);
        if suicided > 0 {
            out.suicided = suicided;
            self.captures[2 - me as usize] += suicided;
            if out.illegal.is_none() {
                out.illegal = Some(Illegal::Suicide);
            }
            return out;
        }
        out.captured = captured;
        self.captures[me as usize - 1] += captured;
        if captured == 1 && lone {
            self.ko = ko_key(captured_at, c.opponent());
        }
        out
    }

    /// A Zobrist hash of the stones on the board (not of the ko point or
    /// the captures): equal positions hash equally. After
    /// [`Board::keep_zobrist`] every move and setup keeps it up to date, so
    /// reading it costs nothing; before, it is computed from the stones.
    pub fn zobrist(&self) -> u64 {
        fn of<const N: usize>(g: &Grid<N>) -> u64 {
            if g.hashing {
                return g.hash;
            }
            let mut h = 0;
            for (i, &c) in g.color.iter().enumerate() {
                if c == 1 || c == 2 {
                    h ^= zobrist(i, c);
                }
            }
            h
        }
        match &self.cells {
            Cells::Small(g) => of(g),
            Cells::Large(g) => of(g),
        }
    }

    /// Keeps [`Board::zobrist`] up to date from now on (a few instructions
    /// a stone placed or removed), for players that read it after every
    /// move (superko rules).
    pub fn keep_zobrist(&mut self) {
        let h = self.zobrist();
        match &mut self.cells {
            Cells::Small(g) => (g.hash, g.hashing) = (h, true),
            Cells::Large(g) => (g.hash, g.hashing) = (h, true),
        }
    }

    /// The stones, prisoners and ko of the board without its chains: a
    /// byte a cell, a tenth of the board's size, for a walk that keeps
    /// many positions to come back to ([`Board::restore`]).
    pub fn stones(&self) -> Stones {
        let cells = self.stride * (self.height + 2);
        let colors = match &self.cells {
            Cells::Small(g) => g.color[..cells].into(),
            Cells::Large(g) => g.color[..cells].into(),
        };
        Stones {
            colors,
            captures: self.captures,
            ko: self.ko,
        }
    }

    /// Makes this board the one `stones` were taken from (a board of the
    /// same size; its chains are computed again, its Zobrist hash kept if
    /// it keeps one).
    pub fn restore(&mut self, stones: &Stones) {
        let cells = self.stride * (self.height + 2);
        debug_assert_eq!(stones.colors.len(), cells, "a board of another size");
        let n = cells.min(stones.colors.len());
        match &mut self.cells {
            Cells::Small(g) => g.color[..n].copy_from_slice(&stones.colors[..n]),
            Cells::Large(g) => g.color[..n].copy_from_slice(&stones.colors[..n]),
        }
        self.captures = stones.captures;
        self.ko = stones.ko;
        self.rebuild();
    }

    /// Number of stones of colour `c` on the board.
    pub fn count(&self, c: Color) -> usize {
        let c = code(c);
        match &self.cells {
            Cells::Small(g) => g.color.iter().filter(|&&v| v == c).count(),
            Cells::Large(g) => g.color.iter().filter(|&&v| v == c).count(),
        }
    }
}

#[cfg(test)]
#[path = "go_reference.rs"]
#[allow(dead_code)]
mod reference;

/// Standard handicap points (19x19, 13x13 and 9x9; 2..=9 stones).
pub fn handicap_points(size: u32, stones: u32) -> Option<Vec<Point>> {
    let (lo, mid, hi) = match size {
        19 => (3u8, 9u8, 15u8),
        13 => (3, 6, 9),
        9 => (2, 4, 6),
        _ => return None,
    };
    let p = Point::new;
    let order = [
        p(hi, lo),
        p(lo, hi),
        p(hi, hi),
        p(lo, lo),
        p(mid, mid),
        p(lo, mid),
        p(hi, mid),
        p(mid, lo),
        p(mid, hi),
    ];
    let pick: &[usize] = match stones {
        2 => &[0, 1],
        3 => &[0, 1, 2],
        4 => &[0, 1, 2, 3],
        5 => &[0, 1, 2, 3, 4],
        6 => &[0, 1, 2, 3, 5, 6],
        7 => &[0, 1, 2, 3, 4, 5, 6],
        8 => &[0, 1, 2, 3, 5, 6, 7, 8],
        9 => &[0, 1, 2, 3, 4, 5, 6, 7, 8],
        _ => return None,
    };
    if size == 9 && stones > 5 && stones != 9 {
        // 9x9 boards use the same points; all fit.
    }
    Some(pick.iter().map(|&k| order[k]).collect())
}

#[cfg(test)]
mod tests {
    //! The board against the reference board (the previous implementation):
    //! random games on many board sizes, and every game of the SGF corpus.
    use super::*;

    fn same(b: &Board, r: &reference::Board, what: &str) {
        assert_eq!(b.ko(), r.ko(), "{what}: ko");
        for c in [Color::Black, Color::White] {
            assert_eq!(b.captures(c), r.captures(c), "{what}: captures");
            assert_eq!(b.count(c), r.count(c), "{what}: count");
        }
        // The kept hash is the one of the stones now on the board.
        let mut h = 0;
        for y in 0..b.height() {
            for x in 0..b.width() {
                let p = Point::new(x as u8, y as u8);
                let c = b.get(p);
                assert_eq!(c, r.get(p), "{what}: {p}");
                if let Some(c) = c {
                    h ^= zobrist(b.index(p).unwrap(), code(c));
                }
            }
        }
        assert_eq!(b.zobrist(), h, "{what}: hash");
    }

    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u32) -> u32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % u64::from(n)) as u32
        }
    }

    #[test]
    fn random_games_match_the_reference_board() {
        let sizes = [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 7),
            (5, 5),
            (9, 9),
            (13, 13),
            (19, 19),
            (20, 20),
            (21, 21),
            (25, 19),
            (52, 52),
        ];
        let mut rng = Lcg(7);
        // Most games on the last game's board, reset (of another size at
        // each new size).
        let mut last: Option<Board> = None;
        for (w, h) in sizes {
            for game in 0..30 {
                let mut b = match last.take() {
                    Some(mut b) if game % 3 != 1 => {
                        b.reset(w, h);
                        b
                    }
                    _ => Board::new(w, h),
                };
                if game % 2 == 0 {
                    // The kept hash, against the one computed from the stones.
                    b.keep_zobrist();
                }
                let mut r = reference::Board::new(w, h);
                let moves = (w * h * 3).max(20);
                for k in 0..moves {
                    let what = format!("{w}x{h} game {game} move {k}");
                    let c = if rng.below(2) == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    // Sometimes off the board, sometimes a pass or a setup.
                    let p = Point::new(rng.below(w + 1) as u8, rng.below(h + 1) as u8);
                    match rng.below(40) {
                        0 => assert_eq!(b.play(c, None), r.play(c, None), "{what}"),
                        1 => {
                            let q = Point::new(rng.below(w) as u8, rng.below(h) as u8);
                            let col = [None, Some(Color::Black), Some(Color::White)]
                                [rng.below(3) as usize];
                            let changes = [(p, col), (q, col.map(Color::opponent))];
                            assert_eq!(b.setup(&changes), r.setup(&changes), "{what}");
                        }
                        2 => assert_eq!(b.check(c, p), r.check(c, p), "{what}"),
                        _ => assert_eq!(b.play(c, Some(p)), r.play(c, Some(p)), "{what}"),
                    }
                    same(&b, &r, &what);
                }
                last = Some(b);
            }
        }
    }

    #[test]
    fn corpus_games_match_the_reference_board() {
        use crate::sgf::{Prop, Value, parse};
        let files = gamerec_testkit::files_with_extension(&gamerec_testkit::corpus("sgf"), "sgf");
        assert!(files.len() > 4600, "{}", files.len());
        let mut moves = 0u64;
        for path in files {
            let what = path.to_string_lossy();
            let parsed = parse(&std::fs::read(&path).unwrap(), &Default::default());
            let c = &parsed.collection;
            for &root in &c.roots {
                let info = c.game_info(root);
                if info.gm != 1 || info.width > 52 || info.height > 52 {
                    continue;
                }
                let b = Board::new(info.width, info.height);
                let r = reference::Board::new(info.width, info.height);
                let mut todo = vec![(root, b, r)];
                while let Some((node, mut b, mut r)) = todo.pop() {
                    for p in c.properties(node) {
                        let setup = match p.prop() {
                            Prop::AB => Some(Color::Black),
                            Prop::AW => Some(Color::White),
                            Prop::AE => None,
                            Prop::B | Prop::W => {
                                let col = if p.prop() == Prop::B {
                                    Color::Black
                                } else {
                                    Color::White
                                };
                                let pt = match p.value() {
                                    Value::Point(pt) => Some(pt),
                                    _ => None,
                                };
                                assert_eq!(b.play(col, pt), r.play(col, pt), "{what}");
                                moves += 1;
                                continue;
                            }
                            _ => continue,
                        };
                        let changes: Vec<_> = p
                            .values()
                            .iter()
                            .filter_map(|v| match v {
                                Value::Point(pt) => Some((*pt, setup)),
                                _ => None,
                            })
                            .collect();
                        assert_eq!(b.setup(&changes), r.setup(&changes), "{what}");
                    }
                    same(&b, &r, &what);
                    for child in c.children(node) {
                        todo.push((child, b.clone(), r.clone()));
                    }
                }
            }
        }
        assert!(moves > 500_000, "{moves}");
    }
}
