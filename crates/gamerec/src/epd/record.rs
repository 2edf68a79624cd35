//! The EPD record model: four position fields plus operations in file order.

use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};

use super::basetypes::{EpdClock, EpdDate, EpdTime};
use super::opcodes::{Evaluation, Opcode, ce_meaning};
use crate::model::{PlyMove, play_ply};
use crate::san::write_san;

/// The four position fields (section 4) as a legal position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdPosition {
    /// The position. Its en passant square is kept as written (4.4: given
    /// whenever the last move was a double pawn advance); halfmove clock and
    /// fullmove number come from `hmvc`/`fmvn` when present.
    pub chess: Chess,
    /// Castling notation (standard or Chess960 X-FEN/Shredder-FEN).
    pub castling_mode: CastlingMode,
}

impl EpdPosition {
    /// A position in standard castling notation.
    pub fn new(chess: Chess) -> EpdPosition {
        EpdPosition {
            chess,
            castling_mode: CastlingMode::Standard,
        }
    }

    /// The position with its en passant square kept only when a legal
    /// capture exists (the form python-chess and most programs write).
    pub fn with_legal_ep(chess: &Chess, castling_mode: CastlingMode) -> EpdPosition {
        let setup = chess.to_setup(EnPassantMode::Legal);
        let chess = Chess::from_setup(setup, castling_mode).unwrap_or_else(|_| chess.clone());
        EpdPosition {
            chess,
            castling_mode,
        }
    }

    /// The four fields, single-space separated.
    pub fn to_fields(&self) -> String {
        let mut s = String::with_capacity(80);
        super::writer::write_position(self, &mut s);
        s
    }
}

impl Default for EpdPosition {
    fn default() -> EpdPosition {
        EpdPosition::new(Chess::default())
    }
}

/// A chess move operand: the move and its canonical SAN in the record's
/// position (or, in `pv`/`sv`, in the position reached so far).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdMove {
    /// The move.
    pub mv: PlyMove,
    /// Canonical SAN, as the writer emits it.
    pub san: String,
}

impl EpdMove {
    /// The move `mv` played in `pos`, with its canonical SAN.
    pub fn new(pos: &Chess, mv: PlyMove) -> EpdMove {
        EpdMove {
            mv,
            san: write_san(pos, mv),
        }
    }
}

/// One operand, typed by its opcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// An identifier (5.2.1), e.g. a `refcom` command or a `ptp` tag name.
    Identifier(String),
    /// A chess move (5.2.2).
    Move(EpdMove),
    /// An integer (5.2.3).
    Integer(i64),
    /// A date (5.2.5).
    Date(EpdDate),
    /// A time of day (5.2.6).
    Time(EpdTime),
    /// A clock value (5.2.7).
    Clock(EpdClock),
    /// A string (5.1), escapes resolved.
    String(String),
    /// An unquoted operand of an unknown opcode or of `noop`, as written.
    Raw(String),
}

impl Operand {
    /// The operand as text (a string's value, a move's SAN, ...).
    pub fn text(&self) -> String {
        match self {
            Operand::Identifier(s) | Operand::String(s) | Operand::Raw(s) => s.clone(),
            Operand::Move(m) => m.san.clone(),
            Operand::Integer(i) => i.to_string(),
            Operand::Date(d) => d.to_string(),
            Operand::Time(t) => t.to_string(),
            Operand::Clock(c) => c.to_string(),
        }
    }

    /// The operand as EPD writes it (strings quoted and escaped).
    pub fn external(&self) -> String {
        let mut s = String::new();
        super::writer::write_operand(self, &mut s);
        s
    }
}

/// An operation: an opcode and its operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The opcode.
    pub opcode: Opcode,
    /// The operands in order.
    pub operands: Vec<Operand>,
}

impl Operation {
    /// An operation with these operands.
    pub fn new(opcode: impl Into<Opcode>, operands: Vec<Operand>) -> Operation {
        Operation {
            opcode: opcode.into(),
            operands,
        }
    }

    /// An operation without operands (`resign`, `draw_offer`, `c3` ...).
    pub fn flag(opcode: impl Into<Opcode>) -> Operation {
        Operation::new(opcode, Vec::new())
    }

    /// An operation with one integer (`ce`, `acn`, `dm`, `hmvc` ...).
    pub fn integer(opcode: impl Into<Opcode>, value: i64) -> Operation {
        Operation::new(opcode, vec![Operand::Integer(value)])
    }

    /// An operation with one string (`id`, `c0`, `eco` ...).
    pub fn string(opcode: impl Into<Opcode>, value: impl Into<String>) -> Operation {
        Operation::new(opcode, vec![Operand::String(value.into())])
    }

    /// An operation with one identifier (`refcom respond`, `refreq reply`).
    pub fn identifier(opcode: impl Into<Opcode>, value: impl Into<String>) -> Operation {
        Operation::new(opcode, vec![Operand::Identifier(value.into())])
    }

    /// A set of moves all playable in `pos` (`am`, `bm`) or a single move
    /// (`pm`, `sm`).
    pub fn moves(opcode: impl Into<Opcode>, pos: &Chess, moves: &[PlyMove]) -> Operation {
        Operation::new(
            opcode,
            moves
                .iter()
                .map(|&m| Operand::Move(EpdMove::new(pos, m)))
                .collect(),
        )
    }

    /// A move sequence played from `pos` (`pv`, `sv`).
    pub fn sequence(opcode: impl Into<Opcode>, pos: &Chess, moves: &[PlyMove]) -> Operation {
        let mut pos = pos.clone();
        let mut operands = Vec::with_capacity(moves.len());
        for &m in moves {
            operands.push(Operand::Move(EpdMove::new(&pos, m)));
            pos = play_ply(&pos, m);
        }
        Operation::new(opcode, operands)
    }

    /// `ptp` with tag/value pairs.
    pub fn tag_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Operation {
        let mut operands = Vec::new();
        for (name, value) in pairs {
            operands.push(Operand::Identifier(name.to_string()));
            operands.push(Operand::String(value.to_string()));
        }
        Operation::new(Opcode::Ptp, operands)
    }

    /// The moves among the operands, in order.
    pub fn move_list(&self) -> impl Iterator<Item = &EpdMove> {
        self.operands.iter().filter_map(|o| match o {
            Operand::Move(m) => Some(m),
            _ => None,
        })
    }
}

/// One EPD record: the position and the operations in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EpdRecord {
    /// The four position fields.
    pub position: EpdPosition,
    /// The operations in file order.
    pub ops: Vec<Operation>,
}

impl EpdRecord {
    /// A record of `position` without operations.
    pub fn new(position: EpdPosition) -> EpdRecord {
        EpdRecord {
            position,
            ops: Vec::new(),
        }
    }

    /// The operation with this opcode.
    pub fn get(&self, opcode: &Opcode) -> Option<&Operation> {
        self.ops.iter().find(|op| op.opcode == *opcode)
    }

    /// The operation with this mnemonic.
    pub fn op(&self, mnemonic: &str) -> Option<&Operation> {
        self.ops.iter().find(|op| op.opcode.as_str() == mnemonic)
    }

    /// Whether an operation with this mnemonic is present.
    pub fn has(&self, mnemonic: &str) -> bool {
        self.op(mnemonic).is_some()
    }

    /// Sets `op`, replacing the operation with the same opcode in place, or
    /// appending it.
    pub fn set(&mut self, op: Operation) -> &mut EpdRecord {
        match self.ops.iter_mut().find(|o| o.opcode == op.opcode) {
            Some(slot) => *slot = op,
            None => self.ops.push(op),
        }
        self
    }

    /// Builder form of [`EpdRecord::set`].
    pub fn with(mut self, op: Operation) -> EpdRecord {
        self.set(op);
        self
    }

    /// Removes every operation with this mnemonic; returns whether any was.
    pub fn remove(&mut self, mnemonic: &str) -> bool {
        let before = self.ops.len();
        self.ops.retain(|op| op.opcode.as_str() != mnemonic);
        self.ops.len() != before
    }

    /// The integer operand of a single-integer opcode (`ce`, `acn`, `dm` ...).
    pub fn integer(&self, mnemonic: &str) -> Option<i64> {
        match self.op(mnemonic)?.operands.first()? {
            Operand::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The string operand of a single-string opcode (`id`, `c0`, `eco` ...).
    pub fn string(&self, mnemonic: &str) -> Option<&str> {
        match self.op(mnemonic)?.operands.first()? {
            Operand::String(s) => Some(s),
            _ => None,
        }
    }

    /// The identifier operand of `refcom`/`refreq`.
    pub fn identifier(&self, mnemonic: &str) -> Option<&str> {
        match self.op(mnemonic)?.operands.first()? {
            Operand::Identifier(s) => Some(s),
            _ => None,
        }
    }

    /// The moves of a move opcode (`bm`, `am`, `pm`, `sm`, `pv`, `sv`).
    pub fn moves(&self, mnemonic: &str) -> Vec<PlyMove> {
        self.op(mnemonic)
            .map(|op| op.move_list().map(|m| m.mv).collect())
            .unwrap_or_default()
    }

    /// The `ce` evaluation, interpreted per 6.7.
    pub fn evaluation(&self) -> Option<Evaluation> {
        self.integer("ce").map(ce_meaning)
    }

    /// The `ptp` tag pairs in order.
    pub fn tag_pairs(&self) -> Vec<(String, String)> {
        let Some(op) = self.op("ptp") else {
            return Vec::new();
        };
        op.operands
            .chunks(2)
            .filter_map(|pair| match pair {
                [name, value] => Some((name.text(), value.text())),
                _ => None,
            })
            .collect()
    }

    /// The position with `hmvc`/`fmvn` applied (already applied by the
    /// reader; kept in step by [`EpdRecord::set_clocks`]).
    pub fn chess(&self) -> &Chess {
        &self.position.chess
    }

    /// Sets `hmvc` and `fmvn` from the position's counters.
    pub fn set_clocks(&mut self) -> &mut EpdRecord {
        let hmvc = i64::from(self.position.chess.halfmoves());
        let fmvn = i64::from(self.position.chess.fullmoves().get());
        self.set(Operation::integer(Opcode::Hmvc, hmvc));
        self.set(Operation::integer(Opcode::Fmvn, fmvn));
        self
    }
}
