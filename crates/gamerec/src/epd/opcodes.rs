//! The opcodes of EPD section 6, their operand shapes, and the `ce` mate
//! arithmetic of 6.7.

use std::fmt;

/// An opcode: one of section 6, or any other (unknown or private) mnemonic.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    /// `acn`: analysis count, nodes (6.1).
    Acn,
    /// `acs`: analysis count, seconds (6.2).
    Acs,
    /// `am`: avoid move(s) (6.3).
    Am,
    /// `bm`: best move(s) (6.4).
    Bm,
    /// `c0`..`c9`: ranked comments (6.5).
    Comment(u8),
    /// `cc`: chess clock values (6.6).
    Cc,
    /// `ce`: centipawn evaluation (6.7).
    Ce,
    /// `dm`: direct mate fullmove count (6.8).
    Dm,
    /// `draw_accept` (6.9).
    DrawAccept,
    /// `draw_claim` (6.10).
    DrawClaim,
    /// `draw_offer` (6.11).
    DrawOffer,
    /// `draw_reject` (6.12).
    DrawReject,
    /// `eco`: ECO opening code (6.13).
    Eco,
    /// `fmvn`: fullmove number (6.14).
    Fmvn,
    /// `hmvc`: halfmove clock (6.15).
    Hmvc,
    /// `id`: position identification (6.16).
    Id,
    /// `nic`: New In Chess opening code (6.17).
    Nic,
    /// `noop`: no operation (6.18).
    Noop,
    /// `pm`: predicted move (6.19).
    Pm,
    /// `ptp`: PGN tag pairs (6.20).
    Ptp,
    /// `pv`: predicted variation (6.21).
    Pv,
    /// `rc`: repetition count (6.22).
    Rc,
    /// `refcom`: referee command (6.23).
    Refcom,
    /// `refreq`: referee request (6.24).
    Refreq,
    /// `resign` (6.25).
    Resign,
    /// `sm`: supplied move (6.26).
    Sm,
    /// `sv`: supplied variation (6.27).
    Sv,
    /// `tcgs`: telecommunication game selector (6.28).
    Tcgs,
    /// `tcri`: telecommunication receiver identification (6.29).
    Tcri,
    /// `tcsi`: telecommunication sender identification (6.30).
    Tcsi,
    /// `ts`: timestamp (6.31).
    Ts,
    /// `v0`..`v9`: ranked variation names (6.32).
    VariationName(u8),
    /// Any other mnemonic (unknown or private): its operands are kept as
    /// written.
    Other(String),
}

const COMMENTS: [&str; 10] = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"];
const VARIATIONS: [&str; 10] = ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"];

/// The mnemonics of section 6 (without `c0`..`c9`, `v0`..`v9`).
pub const STANDARD: [(&str, Opcode); 30] = [
    ("acn", Opcode::Acn),
    ("acs", Opcode::Acs),
    ("am", Opcode::Am),
    ("bm", Opcode::Bm),
    ("cc", Opcode::Cc),
    ("ce", Opcode::Ce),
    ("dm", Opcode::Dm),
    ("draw_accept", Opcode::DrawAccept),
    ("draw_claim", Opcode::DrawClaim),
    ("draw_offer", Opcode::DrawOffer),
    ("draw_reject", Opcode::DrawReject),
    ("eco", Opcode::Eco),
    ("fmvn", Opcode::Fmvn),
    ("hmvc", Opcode::Hmvc),
    ("id", Opcode::Id),
    ("nic", Opcode::Nic),
    ("noop", Opcode::Noop),
    ("pm", Opcode::Pm),
    ("ptp", Opcode::Ptp),
    ("pv", Opcode::Pv),
    ("rc", Opcode::Rc),
    ("refcom", Opcode::Refcom),
    ("refreq", Opcode::Refreq),
    ("resign", Opcode::Resign),
    ("sm", Opcode::Sm),
    ("sv", Opcode::Sv),
    ("tcgs", Opcode::Tcgs),
    ("tcri", Opcode::Tcri),
    ("tcsi", Opcode::Tcsi),
    ("ts", Opcode::Ts),
];

impl Opcode {
    /// The opcode for a mnemonic (`Other` when it is not in section 6).
    pub fn new(mnemonic: &str) -> Opcode {
        let b = mnemonic.as_bytes();
        if b.len() == 2 && b[1].is_ascii_digit() {
            match b[0] {
                b'c' => return Opcode::Comment(b[1] - b'0'),
                b'v' => return Opcode::VariationName(b[1] - b'0'),
                _ => {}
            }
        }
        STANDARD
            .iter()
            .find(|(name, _)| *name == mnemonic)
            .map(|(_, op)| op.clone())
            .unwrap_or_else(|| Opcode::Other(mnemonic.to_string()))
    }

    /// The mnemonic.
    pub fn as_str(&self) -> &str {
        match self {
            Opcode::Comment(n) => COMMENTS[usize::from(*n).min(9)],
            Opcode::VariationName(n) => VARIATIONS[usize::from(*n).min(9)],
            Opcode::Other(name) => name,
            known => STANDARD
                .iter()
                .find(|(_, op)| op == known)
                .map_or("", |(name, _)| name),
        }
    }

    /// Whether this opcode is one of section 6.
    pub fn is_standard(&self) -> bool {
        !matches!(self, Opcode::Other(_))
    }

    /// The operand shape this opcode takes.
    pub fn shape(&self) -> Shape {
        match self {
            Opcode::Acn | Opcode::Acs => Shape::Integer {
                min: 0,
                max: i64::MAX,
            },
            Opcode::Ce => Shape::Integer {
                min: CE_ILLEGAL,
                max: CE_MAX,
            },
            Opcode::Dm | Opcode::Rc | Opcode::Tcgs => Shape::Integer {
                min: 1,
                max: i64::from(i32::MAX),
            },
            Opcode::Fmvn => Shape::Integer {
                min: 1,
                max: i64::from(u32::MAX),
            },
            Opcode::Hmvc => Shape::Integer {
                min: 0,
                max: i64::from(u32::MAX),
            },
            Opcode::Am | Opcode::Bm => Shape::MoveSet,
            Opcode::Pm | Opcode::Sm => Shape::Move,
            Opcode::Pv | Opcode::Sv => Shape::MoveSequence,
            Opcode::Comment(_) | Opcode::VariationName(_) | Opcode::Eco | Opcode::Nic => {
                Shape::OptionalString
            }
            Opcode::Id => Shape::String,
            Opcode::Cc => Shape::Clocks,
            Opcode::Ts => Shape::Timestamp,
            Opcode::Tcri | Opcode::Tcsi => Shape::StringPair,
            Opcode::Ptp => Shape::TagPairs,
            Opcode::Refcom => Shape::Identifier(REFCOM_OPERANDS),
            Opcode::Refreq => Shape::Identifier(REFREQ_OPERANDS),
            Opcode::DrawAccept
            | Opcode::DrawClaim
            | Opcode::DrawOffer
            | Opcode::DrawReject
            | Opcode::Resign => Shape::None,
            Opcode::Noop | Opcode::Other(_) => Shape::Any,
        }
    }

    /// Whether normalisation (7.1 step 5) keeps the operands in their order:
    /// every opcode whose operands have a defined order or are at most one,
    /// and unknown opcodes (their interpretation is unknown). Only `am`,
    /// `bm` and `noop` have their operands sorted.
    pub fn keeps_operand_order(&self) -> bool {
        !matches!(self, Opcode::Am | Opcode::Bm | Opcode::Noop)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Opcode {
    fn from(mnemonic: &str) -> Opcode {
        Opcode::new(mnemonic)
    }
}

/// The operands an opcode takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// No operands.
    None,
    /// One integer in `min..=max`.
    Integer {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// Zero or more moves, each playable from the position.
    MoveSet,
    /// Exactly one move playable from the position.
    Move,
    /// Zero or more moves playable in sequence.
    MoveSequence,
    /// Exactly one string.
    String,
    /// Zero or one string.
    OptionalString,
    /// Two strings, in order.
    StringPair,
    /// Two clock values (White, Black).
    Clocks,
    /// A date and a time of day.
    Timestamp,
    /// Identifier/string pairs.
    TagPairs,
    /// One identifier from the listed set.
    Identifier(&'static [&'static str]),
    /// Anything, kept as written.
    Any,
}

/// The seven `refcom` operands (6.23).
pub const REFCOM_OPERANDS: &[&str] = &[
    "conclude",
    "disconnect",
    "execute",
    "fault",
    "inform",
    "reset",
    "respond",
];

/// The four `refreq` operands (6.24).
pub const REFREQ_OPERANDS: &[&str] = &["fault", "reply", "sign_off", "sign_on"];

/// Largest `ce` value: the active player mates in one (6.7).
pub const CE_MAX: i64 = 32766;
/// `ce` of a position whose side to move is checkmated (6.7).
pub const CE_CHECKMATED: i64 = -32767;
/// `ce` of an illegal position (6.7).
pub const CE_ILLEGAL: i64 = -32768;

/// What a `ce` value says (6.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evaluation {
    /// An ordinary evaluation in centipawns, from the side to move's view.
    Centipawns(i64),
    /// The side to move mates in this many fullmoves (`> 32000`).
    MateIn(u32),
    /// The side to move is mated in this many fullmoves (`< -32000`).
    MatedIn(u32),
    /// The side to move is checkmated (`-32767`).
    Checkmated,
    /// The position is illegal (`-32768`).
    Illegal,
}

/// The `ce` of a winning mate in `n` fullmoves: `32767 - (2n - 1)`.
pub fn ce_mate_in(n: u32) -> i64 {
    32767 - (2 * i64::from(n) - 1)
}

/// The `ce` of a losing mate in `n` fullmoves: `-32767 + 2n`.
pub fn ce_mated_in(n: u32) -> i64 {
    -32767 + 2 * i64::from(n)
}

/// Plies to mate for a `ce` above 32000 (`32767 - ce`), or below -32000
/// (`-(ce - (-32767))`... negated as 6.7 says: `ce + 32767`).
pub fn ce_plies_to_mate(ce: i64) -> Option<i64> {
    if ce > 32000 && ce <= CE_MAX {
        Some(32767 - ce)
    } else if (CE_CHECKMATED..-32000).contains(&ce) {
        Some(-(-32767 - ce))
    } else {
        None
    }
}

/// Interprets a `ce` value per 6.7. A mate score with a ply count of the
/// wrong parity (a winning mate needs an odd count, a losing one an even
/// count) is rounded up to the next fullmove.
pub fn ce_meaning(ce: i64) -> Evaluation {
    match ce {
        CE_ILLEGAL => Evaluation::Illegal,
        CE_CHECKMATED => Evaluation::Checkmated,
        c if c > 32000 && c <= CE_MAX => {
            let plies = 32767 - c;
            Evaluation::MateIn(((plies + 1) / 2) as u32)
        }
        c if c < -32000 && c > CE_CHECKMATED => {
            let plies = c + 32767;
            Evaluation::MatedIn(((plies + 1) / 2) as u32)
        }
        c => Evaluation::Centipawns(c),
    }
}

/// The `ce` value of an evaluation (the inverse of [`ce_meaning`]).
pub fn ce_value(eval: Evaluation) -> i64 {
    match eval {
        Evaluation::Centipawns(c) => c,
        Evaluation::MateIn(n) => ce_mate_in(n),
        Evaluation::MatedIn(n) => ce_mated_in(n),
        Evaluation::Checkmated => CE_CHECKMATED,
        Evaluation::Illegal => CE_ILLEGAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_round_trip() {
        for (name, op) in STANDARD.iter() {
            assert_eq!(Opcode::new(name), *op);
            assert_eq!(op.as_str(), *name);
        }
        for n in 0..10u8 {
            assert_eq!(Opcode::new(&format!("c{n}")), Opcode::Comment(n));
            assert_eq!(Opcode::new(&format!("v{n}")).as_str(), format!("v{n}"));
        }
        assert_eq!(Opcode::new("Ae"), Opcode::Other("Ae".into()));
        assert_eq!(Opcode::new("c10"), Opcode::Other("c10".into()));
        assert!(!Opcode::new("D4").is_standard());
        // The list is in ASCII order, as section 6 lists it.
        assert!(STANDARD.windows(2).all(|w| w[0].0 < w[1].0));
    }

    /// The table of section 6.7, both directions.
    #[test]
    fn mate_arithmetic_of_6_7() {
        // "a mate on the move (mate in one) has a centipawn evaluation of
        // 32766 while a mate in five has a centipawn evaluation of 32758"
        assert_eq!(ce_mate_in(1), 32766);
        assert_eq!(ce_mate_in(5), 32758);
        // "a mate after the move (losing mate in one) has a centipawn
        // evaluation of -32765 while a losing mate in five ... -32757"
        assert_eq!(ce_mated_in(1), -32765);
        assert_eq!(ce_mated_in(5), -32757);
        assert_eq!(ce_meaning(32766), Evaluation::MateIn(1));
        assert_eq!(ce_meaning(32758), Evaluation::MateIn(5));
        assert_eq!(ce_meaning(-32765), Evaluation::MatedIn(1));
        assert_eq!(ce_meaning(-32757), Evaluation::MatedIn(5));
        assert_eq!(ce_meaning(-32767), Evaluation::Checkmated);
        assert_eq!(ce_meaning(-32768), Evaluation::Illegal);
        assert_eq!(ce_meaning(0), Evaluation::Centipawns(0));
        assert_eq!(ce_meaning(32000), Evaluation::Centipawns(32000));
        assert_eq!(ce_meaning(-32000), Evaluation::Centipawns(-32000));
        // Plies: winning 2N-1, losing 2N.
        assert_eq!(ce_plies_to_mate(32766), Some(1));
        assert_eq!(ce_plies_to_mate(32758), Some(9));
        assert_eq!(ce_plies_to_mate(-32765), Some(2));
        assert_eq!(ce_plies_to_mate(-32757), Some(10));
        assert_eq!(ce_plies_to_mate(-32767), Some(0));
        assert_eq!(ce_plies_to_mate(100), None);
        for n in 1..=383 {
            assert_eq!(ce_meaning(ce_mate_in(n)), Evaluation::MateIn(n));
            assert_eq!(ce_meaning(ce_mated_in(n)), Evaluation::MatedIn(n));
            assert_eq!(ce_value(Evaluation::MateIn(n)), ce_mate_in(n));
            assert_eq!(ce_value(Evaluation::MatedIn(n)), ce_mated_in(n));
        }
        for c in -32000..=32000 {
            assert_eq!(ce_value(ce_meaning(c)), c);
        }
        assert_eq!(ce_value(Evaluation::Checkmated), -32767);
        assert_eq!(ce_value(Evaluation::Illegal), -32768);
    }

    #[test]
    fn shapes() {
        assert_eq!(
            Opcode::Ce.shape(),
            Shape::Integer {
                min: -32768,
                max: 32766
            }
        );
        assert_eq!(
            Opcode::new("refcom").shape(),
            Shape::Identifier(REFCOM_OPERANDS)
        );
        assert!(Opcode::Pv.keeps_operand_order());
        assert!(!Opcode::Bm.keeps_operand_order());
        assert!(Opcode::Other("Zz".into()).keeps_operand_order());
    }
}
