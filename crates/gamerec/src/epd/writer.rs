//! Canonical EPD output: single spaces between fields, operations and
//! operands, every operation closed by `;`, strings quoted, moves in
//! canonical SAN. The record keeps its operation order; [`super::normalize`]
//! sorts.

use std::fmt;

use shakmaty::EnPassantMode;
use shakmaty::fen::Epd;

use super::basetypes::write_string;
use super::record::{EpdPosition, EpdRecord, Operand, Operation};

/// Appends the four position fields. The en passant square is written as
/// the position holds it (see [`EpdPosition::chess`]).
pub fn write_position(pos: &EpdPosition, out: &mut String) {
    Epd::from_position(&pos.chess, EnPassantMode::Always).append_to_string(out);
}

/// Appends one operand in external form.
pub fn write_operand(operand: &Operand, out: &mut String) {
    use std::fmt::Write as _;
    match operand {
        Operand::Identifier(s) | Operand::Raw(s) => out.push_str(s),
        Operand::Move(m) => out.push_str(&m.san),
        Operand::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        Operand::Date(d) => {
            let _ = write!(out, "{d}");
        }
        Operand::Time(t) => {
            let _ = write!(out, "{t}");
        }
        Operand::Clock(c) => {
            let _ = write!(out, "{c}");
        }
        Operand::String(s) => write_string(s, out),
    }
}

/// Appends one operation: `opcode[ operand]*;`.
pub fn write_operation(op: &Operation, out: &mut String) {
    out.push_str(op.opcode.as_str());
    for operand in &op.operands {
        out.push(' ');
        write_operand(operand, out);
    }
    out.push(';');
}

/// Appends the record as one line (without line end).
pub fn write_record(record: &EpdRecord, out: &mut String) {
    write_position(&record.position, out);
    for op in &record.ops {
        out.push(' ');
        write_operation(op, out);
    }
}

impl fmt::Display for EpdRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(128);
        write_record(self, &mut s);
        f.write_str(&s)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(32);
        write_operation(self, &mut s);
        f.write_str(&s)
    }
}

impl fmt::Display for EpdPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fields())
    }
}
