//! The referee's wire records, read and written with `gamerec::epd`: this
//! module only adds what the protocol needs on top of the codec (a bounded
//! line length, telling a malformed record from an illegal supplied move,
//! and the record shapes the referee sends).

use gamerec::diag::Severity;
use gamerec::epd::reader::operation_spans;
use gamerec::epd::{EpdPosition, EpdRecord, Opcode, Operation};
use shakmaty::{Chess, Position};

pub use gamerec::epd::{EpdRecord as Record, Operand};

/// The longest record line accepted (EPD spec section 4 suggests 4096).
pub const MAX_RECORD_LEN: usize = 4096;

/// The opcode of the referee's exact clocks on `respond`: `clk_ms W B`,
/// the milliseconds left on White's and on Black's clock when the record is
/// sent (EPD's `cc` has whole seconds of time used, too coarse for fast
/// games). Clients that do not know it ignore it, as EPD readers do.
pub const EXACT_CLOCK_OPCODE: &str = "clk_ms";

/// The opcode of the engine's own time for a move, sent with `reply` by
/// gamerec's bridges: `engine_us N`, microseconds from writing `go` to the
/// engine to reading its `bestmove`. A referee that trusts the client
/// (the match runner's own bridges) charges that instead of its own
/// measure, which includes the relay.
pub const ENGINE_TIME_OPCODE: &str = "engine_us";

/// Why a received line is not a usable record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// Not a well-formed EPD record: syntax, an operand of the wrong type,
    /// an impossible position.
    Malformed(String),
    /// A well-formed record whose `sm` is not a legal move in its position.
    IllegalMove {
        /// The move as written.
        mv: String,
        /// What the codec said about it.
        message: String,
    },
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Malformed(m) => write!(f, "malformed record: {m}"),
            WireError::IllegalMove { mv, message } => {
                write!(f, "illegal move '{mv}': {message}")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// Reads one received line (without its terminator) with `gamerec::epd`.
///
/// `gamerec::epd` checks `sm` against the record's position while reading
/// and reports an unplayable move as an error located in the `sm`
/// operation; such an error on a single unquoted move token is an
/// [`WireError::IllegalMove`], every other error a [`WireError::Malformed`].
/// Warnings (tolerated deviations such as a coordinate-notation move) are
/// accepted.
pub fn read_record(line: &str) -> Result<EpdRecord, WireError> {
    if line.len() > MAX_RECORD_LEN {
        return Err(WireError::Malformed(format!(
            "record longer than {MAX_RECORD_LEN} bytes"
        )));
    }
    let (record, diagnostics) = gamerec::epd::read_line(line, 1);
    if let Some(record) = record {
        return Ok(record);
    }
    let Some(error) = diagnostics
        .into_iter()
        .find(|d| d.severity == Severity::Error)
    else {
        return Err(WireError::Malformed("empty record".into()));
    };
    let message = format!("column {}: {}", error.location.column, error.message);
    let at = usize::try_from(error.location.column.saturating_sub(1)).unwrap_or(usize::MAX);
    if let Some(mv) = supplied_move_at(line, at) {
        return Err(WireError::IllegalMove { mv, message });
    }
    Err(WireError::Malformed(message))
}

/// The single unquoted operand of the `sm` operation of `line` when byte
/// `at` lies inside that operation.
fn supplied_move_at(line: &str, at: usize) -> Option<String> {
    let spans = operation_spans(line)?;
    let (_, range) = spans
        .into_iter()
        .find(|(op, range)| op == "sm" && range.contains(&at))?;
    let text = line.get(range)?.trim();
    let operand = text.strip_prefix("sm")?.trim_end_matches(';').trim();
    let single = !operand.is_empty()
        && !operand.contains(|c: char| c.is_ascii_whitespace() || c == '"' || c == ';');
    single.then(|| operand.to_owned())
}

/// The `refcom` command of a record.
pub fn refcom(record: &EpdRecord) -> Option<&str> {
    record.identifier("refcom")
}

/// The `refreq` request of a record.
pub fn refreq(record: &EpdRecord) -> Option<&str> {
    record.identifier("refreq")
}

/// A record of `pos` (its EPD fields, en passant as EPD 4.4 writes it).
pub fn bare_record(pos: &Chess) -> EpdRecord {
    EpdRecord::new(EpdPosition::new(pos.clone()))
}

/// A record of `pos` with its halfmove clock and fullmove number.
pub fn position_record(pos: &Chess) -> EpdRecord {
    let mut record = bare_record(pos);
    record.set_clocks();
    record
}

/// Adds `refcom COMMAND` and sorts the operations into ASCII order of
/// opcodes (EPD 5.1).
pub fn with_refcom(record: EpdRecord, command: &str) -> EpdRecord {
    sorted(record.with(Operation::identifier(Opcode::Refcom, command)))
}

/// Adds `refreq REQUEST` and sorts the operations (the client side).
pub fn with_refreq(record: EpdRecord, request: &str) -> EpdRecord {
    sorted(record.with(Operation::identifier(Opcode::Refreq, request)))
}

fn sorted(mut record: EpdRecord) -> EpdRecord {
    record
        .ops
        .sort_by(|a, b| a.opcode.as_str().cmp(b.opcode.as_str()));
    record
}

/// The record the referee sends when it goes down (EPD 8.1.2).
pub fn disconnect_record() -> EpdRecord {
    with_refcom(bare_record(&Chess::default()), "disconnect")
}

/// The record the referee sends on a fault it cannot recover from (EPD 8.1.4).
pub fn fault_record(note: &str) -> EpdRecord {
    let note: String = note
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .take(200)
        .collect();
    with_refcom(
        bare_record(&Chess::default()).with(Operation::string(Opcode::Comment(0), note)),
        "fault",
    )
}

/// The halfmove clock and fullmove number a record's position carries.
pub fn counters(record: &EpdRecord) -> (u32, u32) {
    let pos = record.chess();
    (pos.halfmoves(), pos.fullmoves().get())
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn reads_referee_records() {
        let line = format!(
            "{START} cc 000:00:01:05 000:00:00:59; ptp Event \"Test \\\"A\\\"\" Round \"1\"; refcom respond; sm e4;"
        );
        let record = read_record(&line).unwrap();
        assert_eq!(refcom(&record), Some("respond"));
        assert_eq!(record.op("sm").unwrap().operands[0].text(), "e4");
        assert_eq!(record.tag_pairs()[0].1, "Test \"A\"");
        assert_eq!(record.to_string(), line);
    }

    #[test]
    fn illegal_moves_are_told_from_malformed_records() {
        for (line, mv) in [
            (format!("{START} refreq reply; sm e5;"), "e5"),
            (format!("{START} sm Ke2; refreq reply;"), "Ke2"),
            (format!("{START} refreq reply; sm zz9;"), "zz9"),
        ] {
            match read_record(&line) {
                Err(WireError::IllegalMove { mv: got, .. }) => assert_eq!(got, mv, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        for line in [
            String::new(),
            "this is not an EPD record".into(),
            "8/8/8 w".into(),
            format!("{START} \"loose\";"),
            format!("{START} 9x;"),
            format!("{START} c0 \"open;"),
            format!("{START} refreq bogus; sm e4;"),
            format!("{START} refreq reply; sm e4 e5;"),
            format!("{START} refreq reply; sm \"e4\";"),
            format!("{START} refreq reply; cc 1:2 3:4; sm e4;"),
            "x".repeat(5000),
        ] {
            assert!(
                matches!(read_record(&line), Err(WireError::Malformed(_))),
                "{line:.60}"
            );
        }
    }

    #[test]
    fn written_records_sort_their_operations() {
        let mut pos = Chess::default();
        pos.play_unchecked(shakmaty::Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E2,
            capture: None,
            to: shakmaty::Square::E4,
            promotion: None,
        });
        let r = with_refcom(position_record(&pos), "reset");
        assert_eq!(
            r.to_string(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0; refcom reset;"
        );
        assert_eq!(read_record(&r.to_string()).unwrap(), r);
        let f = fault_record("sign on first: \"now\"");
        assert_eq!(refcom(&read_record(&f.to_string()).unwrap()), Some("fault"));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any line reads or fails cleanly; what reads prints and reads back equal.
        #[test]
        fn read_print_read(line in "[ -~]{0,200}") {
            if let Ok(record) = read_record(&line) {
                let printed = record.to_string();
                prop_assert_eq!(read_record(&printed).unwrap(), record);
            }
        }
    }
}
