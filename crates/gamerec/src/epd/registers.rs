//! The scanning registers of 6.5, 6.13, 6.17 and 6.32: ten comment
//! registers (`c0`..`c9`), ten variation name registers (`v0`..`v9`), and
//! the ECO and NIC registers, carried along a sequence of records (a game
//! or game fragment).
//!
//! Processing `cN` (or `vN`) first nulls registers N..=9, then, if the
//! operation has a string operand, sets register N. Operations are taken in
//! ASCII order of opcode, which is left-to-right order for records written
//! in the standard order (5.1 makes the two orders equivalent).

use super::opcodes::Opcode;
use super::record::{EpdRecord, Operand};

/// The string registers of a scanning program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registers {
    comments: [Option<String>; 10],
    variations: [Option<String>; 10],
    eco: Option<String>,
    nic: Option<String>,
}

impl Registers {
    /// All registers null: the state at the start of a game (step 1).
    pub fn new() -> Registers {
        Registers::default()
    }

    /// Nulls every register (start of a new game or fragment).
    pub fn reset(&mut self) {
        *self = Registers::default();
    }

    /// Processes the register opcodes of one record (steps 2 and 3).
    pub fn apply(&mut self, record: &EpdRecord) {
        let mut ops: Vec<_> = record.ops.iter().collect();
        ops.sort_by(|a, b| {
            a.opcode
                .as_str()
                .as_bytes()
                .cmp(b.opcode.as_str().as_bytes())
        });
        for op in ops {
            let value = match op.operands.first() {
                Some(Operand::String(s)) => Some(s.clone()),
                _ => None,
            };
            match op.opcode {
                Opcode::Comment(n) => set_ranked(&mut self.comments, n, value),
                Opcode::VariationName(n) => set_ranked(&mut self.variations, n, value),
                Opcode::Eco => self.eco = value,
                Opcode::Nic => self.nic = value,
                _ => {}
            }
        }
    }

    /// Comment register `n` (0..=9).
    pub fn comment(&self, n: usize) -> Option<&str> {
        self.comments.get(n)?.as_deref()
    }

    /// Variation name register `n` (0..=9).
    pub fn variation(&self, n: usize) -> Option<&str> {
        self.variations.get(n)?.as_deref()
    }

    /// The ECO register.
    pub fn eco(&self) -> Option<&str> {
        self.eco.as_deref()
    }

    /// The NIC register.
    pub fn nic(&self) -> Option<&str> {
        self.nic.as_deref()
    }

    /// The non-null comment registers in rank order.
    pub fn comments(&self) -> impl Iterator<Item = (usize, &str)> {
        self.comments
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((i, c.as_deref()?)))
    }

    /// The non-null variation name registers in rank order.
    pub fn variations(&self) -> impl Iterator<Item = (usize, &str)> {
        self.variations
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((i, c.as_deref()?)))
    }
}

fn set_ranked(regs: &mut [Option<String>; 10], n: u8, value: Option<String>) {
    let n = usize::from(n).min(9);
    for reg in regs[n..].iter_mut() {
        *reg = None;
    }
    regs[n] = value;
}

/// Scans a game's records in order, yielding each record with the register
/// state after it was processed.
pub fn scan<'a>(
    records: impl IntoIterator<Item = &'a EpdRecord>,
) -> impl Iterator<Item = (&'a EpdRecord, Registers)> {
    let mut regs = Registers::new();
    records.into_iter().map(move |r| {
        regs.apply(r);
        (r, regs.clone())
    })
}
