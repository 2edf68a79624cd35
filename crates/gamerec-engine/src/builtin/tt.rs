//! Transposition table: one slot per index, depth-preferred replacement
//! with aging.

use shakmaty::{Move, Role, Square};

/// What the stored score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TtBound {
    /// Exact score.
    Exact = 0,
    /// Score is a lower bound (fail high).
    Lower = 1,
    /// Score is an upper bound (fail low).
    Upper = 2,
}

/// A compact move: from (6 bits), to (6 bits), promotion role (3 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    /// Packs a move (castling as king-to-rook, as shakmaty stores it).
    pub fn pack(m: Move) -> PackedMove {
        let from = m.from().map_or(0, |s| s as u16);
        let to = m.to() as u16;
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(1 << 15 | promo << 12 | to << 6 | from)
    }

    /// Whether this encodes a move at all.
    pub fn is_some(self) -> bool {
        self.0 != 0
    }

    /// Whether `m` is the packed move.
    pub fn matches(self, m: Move) -> bool {
        self.is_some() && PackedMove::pack(m) == self
    }

    #[allow(dead_code)]
    fn parts(self) -> (Square, Square, Option<Role>) {
        let from = Square::new(u32::from(self.0 & 63));
        let to = Square::new(u32::from((self.0 >> 6) & 63));
        let promo = Role::try_from(u32::from((self.0 >> 12) & 7)).ok();
        (from, to, promo)
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: PackedMove,
    score: i16,
    eval: i16,
    depth: i8,
    bound: u8,
    age: u8,
}

/// A probe hit.
#[derive(Debug, Clone, Copy)]
pub struct TtHit {
    /// Best or refutation move.
    pub mv: PackedMove,
    /// Score (mate scores relative to the stored node).
    pub score: i32,
    /// Static evaluation stored with it.
    pub eval: i32,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// Bound type.
    pub bound: TtBound,
}

/// The table.
pub struct Tt {
    entries: Vec<Entry>,
    mask: usize,
    age: u8,
}

impl Tt {
    /// A table of about `mb` megabytes (rounded down to a power of two entries).
    pub fn new(mb: usize) -> Tt {
        let want = (mb.max(1) * 1024 * 1024) / std::mem::size_of::<Entry>();
        let size = want.next_power_of_two() / if want.is_power_of_two() { 1 } else { 2 };
        Tt {
            entries: vec![Entry::default(); size.max(1024)],
            mask: size.max(1024) - 1,
            age: 0,
        }
    }

    /// Clears all entries.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = Entry::default());
        self.age = 0;
    }

    /// Starts a new search (older entries become replaceable).
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// Looks `key` up.
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        let e = &self.entries[key as usize & self.mask];
        (e.key == key && e.bound != 0).then(|| TtHit {
            mv: e.mv,
            score: i32::from(e.score),
            eval: i32::from(e.eval),
            depth: i32::from(e.depth),
            bound: match e.bound {
                1 => TtBound::Exact,
                2 => TtBound::Lower,
                _ => TtBound::Upper,
            },
        })
    }

    /// Stores a result.
    pub fn store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: TtBound,
    ) {
        let age = self.age;
        let e = &mut self.entries[key as usize & self.mask];
        if e.key == key || e.age != age || depth >= i32::from(e.depth) - 2 || e.bound == 0 {
            let keep_move = e.key == key && mv.is_none();
            e.mv = if keep_move {
                e.mv
            } else {
                mv.map(PackedMove::pack).unwrap_or_default()
            };
            e.key = key;
            e.score = score.clamp(-32000, 32000) as i16;
            e.eval = eval.clamp(-32000, 32000) as i16;
            e.depth = depth.clamp(-100, 100) as i8;
            e.bound = bound as u8 + 1;
            e.age = age;
        }
    }
}
