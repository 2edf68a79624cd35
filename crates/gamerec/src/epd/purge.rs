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

/// Removes the operations named in `opcodes` from a line as written,
/// leaving every other byte unchanged: the form of `pfop` for lines that do
/// not read as records (an illegal move, say) but still lex. `None` when the
/// line does not lex.
pub fn purge_line<S: AsRef<str>>(line: &str, opcodes: &[S]) -> Option<String> {
    let spans = super::reader::operation_spans(line)?;
    let mut out = String::with_capacity(line.len());
    let mut from = 0;
    for (opcode, range) in spans {
        if opcodes.iter().any(|p| p.as_ref() == opcode) {
            out.push_str(&line[from..range.start]);
            from = range.end;
            // Drop the blanks after the removed operation.
            while line[from..].starts_with([' ', '\t']) {
                from += 1;
            }
        }
    }
    out.push_str(&line[from..]);
    let trimmed = out.trim_end_matches([' ', '\t']).len();
    out.truncate(trimmed);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_line_keeps_every_other_byte() {
        let line = "4k3/8/8/8/8/8/4P3/4K3 w - -  id \"x\";  bm Ke9; c0 \"a;b\"";
        assert_eq!(
            purge_line(line, &["id"]).as_deref(),
            Some("4k3/8/8/8/8/8/4P3/4K3 w - -  bm Ke9; c0 \"a;b\"")
        );
        assert_eq!(
            purge_line(line, &["c0", "bm"]).as_deref(),
            Some("4k3/8/8/8/8/8/4P3/4K3 w - -  id \"x\";")
        );
        assert_eq!(purge_line("startpos", &["id"]), None);
    }
}
