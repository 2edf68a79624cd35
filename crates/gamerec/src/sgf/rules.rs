//! Go rule sets from `RU`: whether suicide is allowed, which ko rule
//! applies, and how the game is scored.
//!
//! | `RU` | suicide | ko | scoring |
//! |---|---|---|---|
//! | `Japanese`, `Korean` | no | simple ko | territory |
//! | `Chinese` | no | positional superko | area |
//! | `AGA`, `BGA` | no | situational superko | area |
//! | `NZ`, `New Zealand` | yes | situational superko | area |
//! | `Tromp-Taylor`, `TT` | yes | positional superko | area |
//! | `GOE`, `Ing` | yes | situational superko | area |
//! | KataGo strings (`koPOSITIONALscoreAREAsui1...`) | `sui` | `ko` | `score` |
//!
//! A missing `RU` is FF\[4\]'s default: no suicide, simple ko, territory
//! counting. An unknown one falls back to the same with a note. (Ing's own
//! ko rules are approximated by situational superko.)

use std::fmt;

use super::score::Method;

/// Which repetitions are forbidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ko {
    /// Only the immediate retake of a single-stone ko.
    Simple,
    /// No move may recreate an earlier board position.
    PositionalSuperko,
    /// No move may recreate an earlier board position with the same
    /// player to move.
    SituationalSuperko,
}

/// A Go rule set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The rule set's name as gamerec spells it (`Japanese`, `Chinese`,
    /// ..., `FF[4] default`, or `custom` for KataGo strings).
    pub name: &'static str,
    /// Whether a move may remove its own chain.
    pub suicide: bool,
    /// The ko rule.
    pub ko: Ko,
    /// How the game is counted.
    pub scoring: Method,
}

impl Rules {
    /// FF\[4\]'s default (and the Japanese rules' shape).
    pub const DEFAULT: Rules = Rules {
        name: "FF[4] default",
        suicide: false,
        ko: Ko::Simple,
        scoring: Method::Territory,
    };

    const fn named(name: &'static str, suicide: bool, ko: Ko, scoring: Method) -> Rules {
        Rules {
            name,
            suicide,
            ko,
            scoring,
        }
    }

    /// The rules an `RU` value names; `Err` carries the defaults and a
    /// note when the value is not understood.
    pub fn from_ru(ru: &str) -> Result<Rules, (Rules, String)> {
        use Ko::*;
        use Method::*;
        // The value without separators, in ASCII lowercase, in a buffer on
        // the stack (one call per game of a bulk check): a longer key
        // names none of the rule sets below.
        let mut buf = [0u8; 16];
        let mut len = 0;
        for b in ru.trim().bytes() {
            if matches!(b, b' ' | b'-' | b'_' | b'.' | b'/') {
                continue;
            }
            if len == buf.len() {
                len = 0;
                break;
            }
            buf[len] = b.to_ascii_lowercase();
            len += 1;
        }
        let r = match &buf[..len] {
            b"japanese" | b"jp" | b"japan" | b"nihonkiin" => {
                Rules::named("Japanese", false, Simple, Territory)
            }
            b"korean" | b"ko" | b"kr" | b"korea" => {
                Rules::named("Korean", false, Simple, Territory)
            }
            b"chinese" | b"cn" | b"china" | b"chineseogs" | b"chinesekgs" => {
                Rules::named("Chinese", false, PositionalSuperko, Area)
            }
            b"aga" | b"agabutton" | b"bga" => Rules::named("AGA", false, SituationalSuperko, Area),
            b"nz" | b"newzealand" => Rules::named("NZ", true, SituationalSuperko, Area),
            b"tromptaylor" | b"tt" | b"stonescoring" => {
                Rules::named("Tromp-Taylor", true, PositionalSuperko, Area)
            }
            b"goe" | b"ing" | b"ingrules" => Rules::named("Ing", true, SituationalSuperko, Area),
            _ => match katago(ru.trim()) {
                Some(r) => r,
                None => {
                    return Err((
                        Rules::DEFAULT,
                        format!(
                            "unknown rules RU[{}]: FF[4] defaults used (no suicide, simple ko, territory scoring)",
                            ru.trim()
                        ),
                    ));
                }
            },
        };
        Ok(r)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A KataGo rule string: `ko<RULE>score<RULE>tax<RULE>sui<0|1>...`
/// (keys in any order; `ko` and `score` required).
fn katago(s: &str) -> Option<Rules> {
    let (mut ko, mut scoring, mut suicide) = (None, None, false);
    let mut rest = s;
    while !rest.is_empty() {
        let key_len = rest.find(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit())?;
        let (key, tail) = rest.split_at(key_len);
        let val_len = tail
            .find(|c: char| c.is_ascii_lowercase())
            .unwrap_or(tail.len());
        let (val, tail) = tail.split_at(val_len);
        match key {
            "ko" => {
                ko = Some(match val {
                    "SIMPLE" => Ko::Simple,
                    "POSITIONAL" => Ko::PositionalSuperko,
                    "SITUATIONAL" | "SPIGHT" => Ko::SituationalSuperko,
                    _ => return None,
                })
            }
            "score" => {
                scoring = Some(match val {
                    "AREA" => Method::Area,
                    "TERRITORY" => Method::Territory,
                    _ => return None,
                })
            }
            "sui" => suicide = val == "1",
            "tax" | "button" | "whb" | "fpok" | "hasButton" | "komi" => {}
            _ => return None,
        }
        rest = tail;
    }
    Some(Rules::named("custom", suicide, ko?, scoring?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_and_katago_strings() {
        let r = |s| Rules::from_ru(s).unwrap();
        assert_eq!(r("Japanese").ko, Ko::Simple);
        assert_eq!(r("Japanese").scoring, Method::Territory);
        assert_eq!(r("Korean").name, "Korean");
        assert_eq!(r("Chinese").ko, Ko::PositionalSuperko);
        assert_eq!(r("AGA").ko, Ko::SituationalSuperko);
        assert!(!r("AGA").suicide);
        assert!(r("NZ").suicide);
        assert!(r("New Zealand").suicide);
        assert!(r("Tromp-Taylor").suicide);
        assert_eq!(r("tromp_taylor").ko, Ko::PositionalSuperko);
        assert_eq!(r("Tromp/Taylor").name, "Tromp-Taylor");
        assert_eq!(r("GOE").name, "Ing");
        let k = r("koSITUATIONALscoreAREAtaxNONEsui1");
        assert_eq!(
            (k.ko, k.scoring, k.suicide),
            (Ko::SituationalSuperko, Method::Area, true)
        );
        let k = r("koSIMPLEscoreTERRITORYtaxSEKIsui0");
        assert_eq!(
            (k.ko, k.scoring, k.suicide),
            (Ko::Simple, Method::Territory, false)
        );
        let (d, note) = Rules::from_ru("Sudden death").unwrap_err();
        assert_eq!(d, Rules::DEFAULT);
        assert!(note.contains("RU[Sudden death]"), "{note}");
        assert!(Rules::from_ru("koWHATEVERscoreAREA").is_err());
    }
}
