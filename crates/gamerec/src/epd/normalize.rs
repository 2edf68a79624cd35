//! `pfdn` (7.1): the canonical form of a record.
//!
//! Whitespace is reduced to single blanks (the writer's form), operations
//! are sorted by opcode in ASCII order, and the operands of `am`, `bm` and
//! `noop` (the opcodes whose operands have no order of interpretation) are
//! sorted in ASCII order of their external form. Every other opcode keeps
//! its operand order: sequences (`pv`, `sv`), pairs (`cc`, `ts`, `tcri`,
//! `tcsi`, `ptp`), single operands, and unknown opcodes, whose
//! interpretation a program cannot know.

use super::record::EpdRecord;
use super::writer::write_record;

/// Normalises `record` in place (7.1 steps 4 and 5).
pub fn normalize(record: &mut EpdRecord) {
    record.ops.sort_by(|a, b| {
        a.opcode
            .as_str()
            .as_bytes()
            .cmp(b.opcode.as_str().as_bytes())
    });
    for op in &mut record.ops {
        if !op.opcode.keeps_operand_order() {
            let mut keyed: Vec<(String, _)> =
                op.operands.drain(..).map(|o| (o.external(), o)).collect();
            keyed.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            op.operands = keyed.into_iter().map(|(_, o)| o).collect();
        }
    }
}

/// The normalised line of `record` (7.1 steps 1 to 5).
pub fn normalized_line(record: &EpdRecord) -> String {
    let mut copy = record.clone();
    normalize(&mut copy);
    let mut out = String::with_capacity(128);
    write_record(&copy, &mut out);
    out
}
