//! A minimal EPD record (four position fields + operations) for the analysis
//! verbs and reports. Operations keep their raw operand text so records
//! round-trip unchanged apart from the operations a verb sets.
//!
//! This is deliberately small: the full EPD model (`gamerec::epd`) is built
//! separately; this reader only needs the opcodes the verbs use.

use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// One EPD record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdRecord {
    /// The four position fields, space separated.
    pub position: String,
    /// Operations in file order: opcode and raw operand text (quotes kept).
    pub ops: Vec<(String, String)>,
}

impl EpdRecord {
    /// Parses one line; `Err` says what is wrong.
    pub fn parse(line: &str) -> Result<EpdRecord, String> {
        let line = line.trim();
        let mut rest = line;
        let mut fields = Vec::with_capacity(4);
        for i in 0..4 {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            if end == 0 {
                return Err(format!("expected 4 position fields, found {i}"));
            }
            fields.push(&rest[..end]);
            rest = &rest[end..];
        }
        let mut ops = Vec::new();
        // FEN-style halfmove clock and fullmove number after the fields.
        let mut numbers = Vec::new();
        loop {
            let r = rest.trim_start();
            let end = r.find(char::is_whitespace).unwrap_or(r.len());
            if end > 0 && numbers.len() < 2 && r[..end].parse::<u32>().is_ok() {
                numbers.push(r[..end].to_string());
                rest = &r[end..];
            } else {
                break;
            }
        }
        let mut numbers = numbers.into_iter();
        if let Some(h) = numbers.next() {
            ops.push(("hmvc".to_string(), h));
        }
        if let Some(f) = numbers.next() {
            ops.push(("fmvn".to_string(), f));
        }
        let mut cur = String::new();
        let mut in_quote = false;
        for c in rest.chars() {
            match c {
                '"' => {
                    in_quote = !in_quote;
                    cur.push(c);
                }
                ';' if !in_quote => {
                    push_op(&mut ops, &cur)?;
                    cur.clear();
                }
                _ => cur.push(c),
            }
        }
        if in_quote {
            return Err("unterminated string operand".into());
        }
        if !cur.trim().is_empty() {
            // Operations without the final `;` (or none at all, as some
            // suites write them): split before known opcodes.
            let mut chunk = String::new();
            for word in cur.split_whitespace() {
                if !chunk.is_empty() && KNOWN_OPCODES.contains(&word) {
                    push_op(&mut ops, &chunk)?;
                    chunk.clear();
                }
                if !chunk.is_empty() {
                    chunk.push(' ');
                }
                chunk.push_str(word);
            }
            push_op(&mut ops, &chunk)?;
        }
        Ok(EpdRecord {
            position: fields.join(" "),
            ops,
        })
    }

    /// The raw operand text of the first `opcode` operation.
    pub fn get(&self, opcode: &str) -> Option<&str> {
        self.ops
            .iter()
            .find(|(o, _)| o == opcode)
            .map(|(_, v)| v.as_str())
    }

    /// The operands of `opcode`, split on blanks, string quotes removed.
    pub fn operands(&self, opcode: &str) -> Vec<String> {
        self.get(opcode).map(split_operands).unwrap_or_default()
    }

    /// The first operand of `opcode` without quotes.
    pub fn first(&self, opcode: &str) -> Option<String> {
        self.operands(opcode).into_iter().next()
    }

    /// Sets `opcode` to `raw` (replacing the first occurrence, else appending).
    pub fn set(&mut self, opcode: &str, raw: impl Into<String>) {
        let raw = raw.into();
        match self.ops.iter_mut().find(|(o, _)| o == opcode) {
            Some(op) => op.1 = raw,
            None => self.ops.push((opcode.to_string(), raw)),
        }
    }

    /// Removes every `opcode` operation.
    pub fn remove(&mut self, opcode: &str) {
        self.ops.retain(|(o, _)| o != opcode);
    }

    /// The record as one line.
    pub fn to_line(&self) -> String {
        let mut s = self.position.clone();
        for (op, v) in &self.ops {
            s.push(' ');
            s.push_str(op);
            if !v.is_empty() {
                s.push(' ');
                s.push_str(v);
            }
            s.push(';');
        }
        s
    }

    /// The position (halfmove clock and fullmove number from `hmvc`/`fmvn`).
    pub fn chess(&self) -> Result<(Chess, CastlingMode), String> {
        let hmvc = self
            .first("hmvc")
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0);
        let fmvn = self
            .first("fmvn")
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(1)
            .max(1);
        let fen = format!("{} {hmvc} {fmvn}", self.position);
        gamerec::fen::read_fen(&fen).map_err(|e| e.to_string())
    }

    /// The SAN operands of `opcode` (`bm`, `am`, `pv`…) as moves in `pos`;
    /// tokens that are not legal moves are returned in `Err`.
    pub fn moves(&self, opcode: &str, pos: &Chess) -> (Vec<Move>, Vec<String>) {
        let mut good = Vec::new();
        let mut bad = Vec::new();
        for tok in self.operands(opcode) {
            match read_san_lenient(pos, &tok) {
                Some(m) => good.push(m),
                None => bad.push(tok),
            }
        }
        (good, bad)
    }
}

const KNOWN_OPCODES: &[&str] = &[
    "acd", "acn", "acs", "am", "bm", "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9",
    "ce", "dm", "eco", "fmvn", "hmvc", "id", "pm", "pv", "rc", "sm", "sv",
];

fn push_op(ops: &mut Vec<(String, String)>, text: &str) -> Result<(), String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(());
    }
    let (op, val) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    if !op.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        || !op.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(format!("bad opcode `{op}`"));
    }
    ops.push((op.to_string(), val.trim().to_string()));
    Ok(())
}

/// Splits operands on blanks, keeping quoted strings whole (quotes removed).
pub fn split_operands(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_quote = false;
    let mut any = false;
    for c in raw.chars() {
        match c {
            '"' => {
                in_quote = !in_quote;
                any = true;
            }
            c if c.is_whitespace() && !in_quote => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Reads a SAN move leniently (also UCI and long algebraic forms).
pub fn read_san_lenient(pos: &Chess, tok: &str) -> Option<Move> {
    let t = tok.trim_end_matches(['+', '#', '!', '?']);
    if let Ok(san) = t.parse::<San>()
        && let Ok(m) = san.to_move(pos)
    {
        return Some(m);
    }
    crate::notation::read_engine_move(pos, tok)
}

/// SAN of `m` in `pos` (with check/mate suffix).
pub fn san(pos: &Chess, m: Move) -> String {
    shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string()
}

/// SAN of a line from `pos`.
pub fn san_line(pos: &Chess, line: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    line.iter()
        .map(|&m| {
            let s = san(&p, m);
            p.play_unchecked(m);
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_writes_records() {
        let r = EpdRecord::parse(
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#,
        )
        .unwrap();
        assert_eq!(r.first("id").as_deref(), Some("WAC.001"));
        let (pos, _) = r.chess().unwrap();
        let (bm, bad) = r.moves("bm", &pos);
        assert_eq!(bm.len(), 1);
        assert!(bad.is_empty());
        assert_eq!(
            r.to_line(),
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#
        );
        let mut r2 = r.clone();
        r2.set("pm", "Qg6");
        r2.set("id", "\"x;y\"");
        assert_eq!(EpdRecord::parse(&r2.to_line()).unwrap(), r2);
        let fen_style =
            EpdRecord::parse("7R/2k1p2P/r2rP3/8/3p1R2/8/2P2p2/2K5 w - - 0 1 bm Rc8+ dm 26")
                .unwrap();
        assert_eq!(fen_style.first("dm").as_deref(), Some("26"));
        assert_eq!(fen_style.first("bm").as_deref(), Some("Rc8+"));
        assert_eq!(fen_style.first("hmvc").as_deref(), Some("0"));
        assert!(EpdRecord::parse("8/8 w").is_err());
        assert!(EpdRecord::parse(r#"8/8/8/8/8/8/8/8 w - - id "open"#).is_err());
    }
}
