//! A minimal EPD record codec for the referee wire protocol.
//!
//! TO BE REPLACED by `gamerec::epd` (issue #4) once it lands on main: the
//! referee only needs a record's four position fields and its operations as
//! opcode + operands, which is what this module provides. It is private to
//! the crate so the switch-over touches nothing outside it.

use std::fmt;

/// The longest record line accepted (EPD spec section 4 suggests 4096).
pub const MAX_RECORD_LEN: usize = 4096;

/// The longest string operand (EPD spec 5.1: less than 256 bytes).
const MAX_STRING_LEN: usize = 255;

/// One EPD record: the four position fields and the operations in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Record {
    /// Piece placement, active colour, castling, en passant: space-separated.
    pub position: String,
    /// The operations in record order.
    pub ops: Vec<Operation>,
}

/// An operation: opcode and operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The opcode mnemonic.
    pub opcode: String,
    /// The operands in order.
    pub operands: Vec<Operand>,
}

/// An operand: a bare token or a quoted string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A contiguous run of printing characters (identifier, move, number, clock).
    Token(String),
    /// A string, written in quotes.
    Str(String),
}

impl Operand {
    /// The operand's text, whatever its kind.
    pub fn text(&self) -> &str {
        match self {
            Operand::Token(t) | Operand::Str(t) => t,
        }
    }
}

/// Why a line is not a well-formed EPD record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// Byte offset in the line where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for RecordError {}

fn err(offset: usize, message: impl Into<String>) -> RecordError {
    RecordError {
        offset,
        message: message.into(),
    }
}

impl Record {
    /// A record with `position` and no operations.
    pub fn new(position: impl Into<String>) -> Record {
        Record {
            position: position.into(),
            ops: Vec::new(),
        }
    }

    /// Appends an operation with token operands.
    pub fn op(mut self, opcode: &str, operands: &[&str]) -> Record {
        self.ops.push(Operation {
            opcode: opcode.to_owned(),
            operands: operands
                .iter()
                .map(|o| Operand::Token((*o).to_owned()))
                .collect(),
        });
        self
    }

    /// Appends an operation with the given operands.
    pub fn op_with(mut self, opcode: &str, operands: Vec<Operand>) -> Record {
        self.ops.push(Operation {
            opcode: opcode.to_owned(),
            operands,
        });
        self
    }

    /// The first operation with this opcode.
    pub fn get(&self, opcode: &str) -> Option<&Operation> {
        self.ops.iter().find(|o| o.opcode == opcode)
    }

    /// Whether an operation with this opcode is present.
    pub fn has(&self, opcode: &str) -> bool {
        self.get(opcode).is_some()
    }

    /// The single operand of `opcode`, if present with exactly one operand.
    pub fn single(&self, opcode: &str) -> Option<&str> {
        match self.get(opcode)?.operands.as_slice() {
            [one] => Some(one.text()),
            _ => None,
        }
    }

    /// Parses one line (without its line terminator).
    pub fn parse(line: &str) -> Result<Record, RecordError> {
        if line.len() > MAX_RECORD_LEN {
            return Err(err(MAX_RECORD_LEN, "record longer than 4096 bytes"));
        }
        if let Some(pos) = line
            .bytes()
            .position(|b| !(0x20..0x7f).contains(&b) && b != b'\t')
        {
            return Err(err(pos, "non-printing or non-ASCII byte"));
        }
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut fields = Vec::with_capacity(4);
        for n in 0..4 {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if start == i {
                return Err(err(i, format!("expected position field {} of 4", n + 1)));
            }
            fields.push(&line[start..i]);
        }
        let mut record = Record::new(fields.join(" "));
        let mut current: Option<Operation> = None;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() {
                break;
            }
            if bytes[i] == b';' {
                match current.take() {
                    Some(op) => record.ops.push(op),
                    None => return Err(err(i, "';' without an opcode")),
                }
                i += 1;
                continue;
            }
            if bytes[i] == b'"' {
                let start = i;
                i += 1;
                let mut text = String::new();
                loop {
                    match bytes.get(i) {
                        None => return Err(err(start, "unterminated string")),
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') if matches!(bytes.get(i + 1), Some(b'"' | b'\\')) => {
                            text.push(bytes[i + 1] as char);
                            i += 2;
                        }
                        Some(&b) => {
                            text.push(b as char);
                            i += 1;
                        }
                    }
                }
                if text.len() > MAX_STRING_LEN {
                    return Err(err(start, "string operand of 256 bytes or more"));
                }
                match current.as_mut() {
                    Some(op) => op.operands.push(Operand::Str(text)),
                    None => return Err(err(start, "string where an opcode was expected")),
                }
                continue;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b';' {
                i += 1;
            }
            let token = &line[start..i];
            match current.as_mut() {
                Some(op) => op.operands.push(Operand::Token(token.to_owned())),
                None => {
                    if !is_opcode(token) {
                        return Err(err(start, format!("'{token}' is not an opcode")));
                    }
                    current = Some(Operation {
                        opcode: token.to_owned(),
                        operands: Vec::new(),
                    });
                }
            }
        }
        if let Some(op) = current {
            return Err(err(
                bytes.len(),
                format!("operation '{}' is not ended by ';'", op.opcode),
            ));
        }
        Ok(record)
    }
}

/// EPD 5.1: a letter then up to fourteen letters, digits or underscores.
fn is_opcode(token: &str) -> bool {
    let mut chars = token.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && token.len() <= 15
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.position)?;
        for op in &self.ops {
            write!(f, " {}", op.opcode)?;
            for operand in &op.operands {
                match operand {
                    Operand::Token(t) => write!(f, " {t}")?,
                    Operand::Str(s) => {
                        f.write_str(" \"")?;
                        for c in s.chars() {
                            if c == '"' || c == '\\' {
                                f.write_str("\\")?;
                            }
                            write!(f, "{c}")?;
                        }
                        f.write_str("\"")?;
                    }
                }
            }
            f.write_str(";")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn round_trips_referee_records() {
        let line = format!(
            "{START} cc 000:00:01:05 000:00:00:59; ptp Event \"Test \\\"A\\\"\" Round \"1\"; refcom respond; sm e4;"
        );
        let record = Record::parse(&line).unwrap();
        assert_eq!(record.position, START);
        assert_eq!(record.single("refcom"), Some("respond"));
        assert_eq!(record.single("sm"), Some("e4"));
        let ptp = record.get("ptp").unwrap();
        assert_eq!(ptp.operands[1], Operand::Str("Test \"A\"".into()));
        assert_eq!(record.to_string(), line);
        assert_eq!(Record::parse(&record.to_string()).unwrap(), record);
    }

    #[test]
    fn operations_without_operands() {
        let record = Record::parse(&format!("{START} draw_offer; refreq reply; sm Nf3;")).unwrap();
        assert!(record.has("draw_offer"));
        assert_eq!(record.ops.len(), 3);
    }

    #[test]
    fn rejects_malformed_records() {
        for (line, want) in [
            ("", "position field 1"),
            ("8/8/8 w", "position field 3"),
            (&format!("{START} refreq reply"), "not ended by ';'"),
            (&format!("{START} ;"), "without an opcode"),
            (&format!("{START} 9x;"), "not an opcode"),
            (&format!("{START} c0 \"open;"), "unterminated"),
            (&format!("{START} c0 \"{}\";", "x".repeat(300)), "256 bytes"),
            (&format!("{START} c0 \"\u{e9}\";"), "non-ASCII"),
            (&"x".repeat(5000), "4096"),
        ] {
            let e = Record::parse(line).unwrap_err();
            assert!(e.message.contains(want), "{line:.40}: {e}");
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any line parses or fails cleanly; what parses prints and parses back equal.
        #[test]
        fn parse_print_parse(line in "[ -~]{0,200}") {
            if let Ok(record) = Record::parse(&line) {
                let printed = record.to_string();
                prop_assert_eq!(Record::parse(&printed).unwrap(), record);
            }
        }

        /// Records built from operands round-trip, strings with quotes included.
        #[test]
        fn built_records_round_trip(
            opcode in "[a-z][a-z0-9_]{1,14}",
            token in "[!-~&&[^\";]]{1,20}",
            text in "[ -~]{0,100}",
        ) {
            let record = Record::new("8/8/8/8/8/8/8/K6k w - -")
                .op_with(&opcode, vec![Operand::Token(token), Operand::Str(text)]);
            prop_assert_eq!(Record::parse(&record.to_string()).unwrap(), record);
        }
    }
}
