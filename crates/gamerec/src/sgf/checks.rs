//! The kinds of problem SGF checking reports: stable identifiers, their
//! SGFC counterparts, and the value formats of `DT` and `RE`.
//!
//! Every [`super::SgfDiagnostic`] carries an [`SgfCheck`]; `gamerec check`
//! shows it after the message as `[sgf:ID]`. The identifiers never change
//! meaning; [`SgfCheck::sgfc`] gives the numbers SGFC (the SGF Syntax
//! Checker & Converter) uses for the same problem, so reports can be
//! graded against SGFC's.

macro_rules! checks {
    ($($variant:ident $id:literal [$($n:literal),*] $critical:literal $doc:literal;)*) => {
        /// What kind of problem an SGF diagnostic reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[non_exhaustive]
        pub enum SgfCheck {
            /// Not classified.
            #[default]
            Other,
            $(#[doc = $doc] $variant,)*
        }

        impl SgfCheck {
            /// Every kind but [`SgfCheck::Other`].
            pub const ALL: &'static [SgfCheck] = &[$(SgfCheck::$variant,)*];

            /// The stable identifier, e.g. `duplicate-point`.
            pub const fn id(self) -> &'static str {
                match self {
                    SgfCheck::Other => "other",
                    $(SgfCheck::$variant => $id,)*
                }
            }

            /// SGFC's numbers for this problem (empty when SGFC has none).
            pub const fn sgfc(self) -> &'static [u32] {
                match self {
                    SgfCheck::Other => &[],
                    $(SgfCheck::$variant => &[$($n),*],)*
                }
            }

            /// Whether SGFC calls it critical (data may be lost or misread).
            pub const fn critical(self) -> bool {
                match self {
                    SgfCheck::Other => false,
                    $(SgfCheck::$variant => $critical,)*
                }
            }
        }
    };
}

checks! {
    DataBeforeTree "data-before-tree" [6] true "SGF-looking data (`[..]`) before the first game tree.";
    NoGameTree "no-game-tree" [7] true "No `(;` anywhere.";
    IllegalChars "illegal-chars" [8] true "Characters that are no SGF syntax inside a game tree.";
    Truncated "truncated" [9, 10] true "The input ends inside a value or game tree.";
    LongPropertyId "property-id-too-long" [11] true "A property identifier of more than 100 letters (deleted).";
    EmptyVariation "empty-variation" [12] false "`()`.";
    TooManyValues "too-many-values" [13] true "Several values for a property that takes one.";
    BadValue "bad-value" [14, 15] false "A value that breaks its property's format.";
    LowercaseId "lowercase-id" [16] false "Lowercase letters in a property identifier (FF[4]).";
    EmptyValue "empty-value" [17] false "An empty value where one is expected (or an empty text).";
    BadRootValue "bad-root-value" [18] false "A root property (GM, SZ) whose value cannot be used.";
    NotGo "not-go" [19] true "A game other than Go or Othello: moves and positions are not checked.";
    NoValues "property-without-value" [20] true "A property identifier with no value.";
    VariationBeforeNode "variation-before-node" [21] true "`(` before the first node of a tree.";
    NulByte "nul-byte" [22] false "A zero byte (binary data?).";
    ComposeExpected "compose-expected" [23] false "A compose value (`a:b`) expected.";
    MoveInRoot "move-in-root" [24] false "A move in the root node.";
    BadCompose "bad-compose" [25] false "A compose value whose parts break their format.";
    DuplicateProperty "duplicate-property" [28] false "The same property twice in one node.";
    SetupAndMove "setup-and-move" [30] false "Setup and move properties in one node (FF[4]).";
    PropertyIdOver2 "property-id-over-2-letters" [31] false "A property identifier of more than two letters.";
    RootOutsideRoot "root-property-outside-root" [32] false "A root property outside the root node.";
    GameInfoFormat "game-info-format" [15, 33] false "`DT` or `RE` not in FF[4]'s format.";
    UnknownProperty "unknown-property" [35] false "A property no FF version defines.";
    MissingSemicolon "missing-semicolon" [36] true "A game tree without `;` before its first property.";
    BlackAndWhite "black-and-white-move" [37] false "`B` and `W` in one node.";
    DuplicatePoint "duplicate-point" [38] false "The same point twice in markup, setup, territory or labels of a node.";
    SetupNoEffect "setup-no-effect" [39] false "`AB`/`AW`/`AE` on a point that already is so.";
    NotInFf "not-in-ff" [40, 51] false "A property or feature the file's FF version does not define.";
    AnnotationConflict "annotation-conflict" [41] false "`GB`+`GW`, `DM`+`UC` or another pair of exclusive position annotations.";
    MoveAnnotationConflict "move-annotation-conflict" [42] false "Two of `BM`, `DO`, `IT`, `TE` in one node.";
    AnnotationWithoutMove "annotation-without-move" [43] false "`BM`, `DO`, `IT`, `TE` or `KO` without a move in the node.";
    GameInfoTwice "game-info-twice" [44] false "Game information below a node that already has some.";
    MixedFf "mixed-ff" [45] false "Game trees of different FF versions in one file.";
    UnknownFf "unknown-ff" [46] true "An FF version above 4.";
    SquareAsRectangle "square-as-rectangle" [47] false "`SZ[n:n]`.";
    BoardSize "board-size" [50] false "A board size out of 1x1..52x52.";
    BadView "bad-view" [52] false "A `VW` value list SGF does not allow.";
    MixedGames "mixed-gm" [53] false "Game trees of different games (`GM`) in one file.";
    ValuesWithoutId "values-without-id" [54] true "Values with no property identifier.";
    IllegalMove "illegal-move" [58] false "A move the rules forbid (occupied point, ko, suicide, superko).";
    ObsoleteProperty "obsolete-property" [59] false "An obsolete property (`KI`).";
    Ff4Pass "ff4-pass" [65] false "A pass written `[]` in an FF[1]/FF[3] file.";
    NodeOutsideVariation "node-outside-variation" [66] true "A node after a variation: missing `(`.";
    MissingSemicolonInVariation "missing-semicolon-in-variation" [67] true "A property right after `(` in a variation: missing `;`.";
    UnexpectedClose "unexpected-close" [] false "`)` outside any game tree.";
    TextOutsideTrees "text-outside-trees" [] false "Text between or after game trees.";
    BadBytes "bad-bytes" [71] false "Bytes not valid in the game's charset.";
    UnknownCharset "unknown-charset" [72] true "A `CA` no decoder knows.";
    MixedCharsets "mixed-charsets" [74] true "Game trees of different charsets in one file.";
    OneCellArrow "one-point-arrow" [] false "An arrow or line from a point to itself.";
    MoveNotPoint "move-not-point" [] false "A move value that is not a point.";
    OffBoard "off-board" [] false "A setup point off the board.";
    Rules "rules" [] false "A note about `RU`.";
    ResultVsScore "result-vs-score" [] false "`RE` disagrees with the count of the final `TB`/`TW` marks under the game's rules and `KM`.";
    TooLarge "too-large" [] false "Input over the parser's size limit.";
    NotListed "not-listed" [] false "The count of one game's messages past the first [`MAX_LISTED`](crate::diag::MAX_LISTED) of the parser or of the rule check: counted, not listed one by one.";
}

impl std::fmt::Display for SgfCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The kind whose [`SgfCheck::id`] is `id`.
pub fn check_from_id(id: &str) -> Option<SgfCheck> {
    if id == "other" {
        return Some(SgfCheck::Other);
    }
    SgfCheck::ALL.iter().copied().find(|c| c.id() == id)
}

fn digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// Whether `s` is a `DT` value in FF[4]'s format: ISO dates
/// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`, comma-separated, where a later
/// entry may leave out what it shares with the one before (`MM-DD`, `DD`).
pub fn dt_is_valid(s: &str) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    // Parts of the previous entry: 3 = had a day, 2 = a month, 1 = a year.
    let mut prev = 0;
    for (i, entry) in s.split(',').enumerate() {
        // At most three parts fit any form (no allocation: one call per
        // game of a bulk check).
        let (mut parts, mut shape, mut n) = ([&b""[..]; 3], [0usize; 3], 0);
        for p in entry.trim().split('-') {
            if n == 3 {
                return false;
            }
            parts[n] = p.as_bytes();
            shape[n] = if digits(parts[n]) { p.len() } else { 0 };
            n += 1;
        }
        // Only parts of two digits are read as months and days.
        let number = |p: &[u8]| {
            p.iter().fold(0u32, |n, &d| {
                n.saturating_mul(10)
                    .saturating_add(u32::from(d.wrapping_sub(b'0')))
            })
        };
        let month = |p: &[u8]| (1..=12).contains(&number(p));
        let day = |p: &[u8]| (1..=31).contains(&number(p));
        let depth = match &shape[..n] {
            [4] => 1,
            [4, 2] if month(parts[1]) => 2,
            [4, 2, 2] if month(parts[1]) && day(parts[2]) => 3,
            // Shortcuts after the first entry.
            [2] if i > 0 && prev == 3 && day(parts[0]) => 3,
            [2] if i > 0 && prev == 2 && month(parts[0]) => 2,
            [2, 2] if i > 0 && prev == 3 && month(parts[0]) && day(parts[1]) => 3,
            _ => return false,
        };
        prev = depth;
    }
    true
}

/// Whether `s` is an `RE` value in FF[4]'s format: `0`, `Draw`, `Void`,
/// `?`, or `B+`/`W+` followed by nothing, a score, `R`/`Resign`,
/// `T`/`Time` or `F`/`Forfeit`.
pub fn re_is_valid(s: &str) -> bool {
    let s = s.trim();
    match s {
        "0" | "Draw" | "Void" | "?" => return true,
        _ => {}
    }
    let Some(rest) = s.strip_prefix("B+").or_else(|| s.strip_prefix("W+")) else {
        return false;
    };
    match rest {
        "" | "R" | "Resign" | "T" | "Time" | "F" | "Forfeit" => true,
        _ => {
            let b = rest.as_bytes();
            let (int, frac) = match rest.split_once('.') {
                Some((a, f)) => (a.as_bytes(), Some(f.as_bytes())),
                None => (b, None),
            };
            digits(int) && frac.is_none_or(digits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        let mut seen = std::collections::HashSet::new();
        for &c in SgfCheck::ALL {
            assert!(seen.insert(c.id()), "{c:?}");
            assert_eq!(check_from_id(c.id()), Some(c));
        }
        assert_eq!(check_from_id("nonsense"), None);
    }

    #[test]
    fn dates_as_ff4_defines_them() {
        for ok in [
            "1996-05-06",
            "1996-05",
            "1996",
            "1996-05-06,07,08",
            "1996-05-06,08-03",
            "1996-05,06",
            "1996-05-06,1997-01-02",
            "1996,1997",
        ] {
            assert!(dt_is_valid(ok), "{ok}");
        }
        for bad in [
            "",
            "12th and 13th march 94",
            "a sunny afternoon last summer",
            "96-05-06",
            "1996/05/06",
            "1996-5-6",
            "1996-13-01",
            "1996-05-32",
            "1996-05-06 12:00",
            "06,1996-05",
            "1996,05",
        ] {
            assert!(!dt_is_valid(bad), "{bad}");
        }
    }

    #[test]
    fn results_as_ff4_defines_them() {
        for ok in [
            "0",
            "Draw",
            "Void",
            "?",
            "B+R",
            "W+Resign",
            "B+T",
            "W+Time",
            "B+F",
            "W+Forfeit",
            "B+0.5",
            "W+12",
            "B+",
            " W+3.5 ",
        ] {
            assert!(re_is_valid(ok), "{ok}");
        }
        for bad in [
            "john wins",
            "black wins by 5 3/4 points",
            "B+5 1/2",
            "B+r",
            "W+.5",
            "B-3",
            "Jigo",
            "",
        ] {
            assert!(!re_is_valid(bad), "{bad}");
        }
    }
}
