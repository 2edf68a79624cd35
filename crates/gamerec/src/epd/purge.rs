//! `pfop` (7.4): remove operations by opcode.

use super::record::EpdRecord;

/// Removes every operation whose opcode is one of `opcodes`; returns how
/// many were removed. The other operations keep their order.
pub fn purge<S: AsRef<str>>(record: &mut EpdRecord, opcodes: &[S]) -> usize {
    let before = record.ops.len();
    record
        .ops
        .retain(|op| !opcodes.iter().any(|p| p.as_ref() == op.opcode.as_str()));
    before - record.ops.len()
}
