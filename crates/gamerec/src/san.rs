//! Standard Algebraic Notation (PGN standard 8.2.3): canonical writing,
//! tolerant reading.
//!
//! **Writing** is canonical: piece letter, the three-step disambiguation over
//! *legal* moves only (file, else rank, else square), `x`, destination,
//! `=Q`, `O-O`/`O-O-O`, then `+` or `#`; nothing marks en passant. Other
//! languages' piece letters (section 17) and FAN figurines are available
//! through [`WriteOptions`].
//!
//! **Reading** takes a fast path first: canonical (or shakmaty-readable)
//! SAN is parsed and resolved against the candidate moves without any heap
//! allocation. Only when that fails does the tolerant reader run, which tries
//! the readings real files need, strictest first: long algebraic and
//! coordinate forms (`e2e4`, `Ng1-f3`, `e7e8q`), missing or superfluous `x`,
//! the pawn letter, promotions without `=` (`e8Q`, `e8(Q)`, `e8/Q`), castling
//! with zeros, `e.p.` suffixes, foreign piece letters and figurines, and
//! then letter-case remapping (`nf3`; `bxc3` as a bishop move only when the
//! pawn capture is illegal). Check marks are never used to decide; the one
//! written is reported back in [`ReadMove::check`]. Suffix annotations
//! (`!`, `?`, `!!`, `??`, `!?`, `?!`) become NAGs 1-6.

use std::fmt;

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Bitboard, CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};

pub(crate) mod fastpos;
mod resolve;

use crate::model::PlyMove;

/// A piece-letter set from section 17 of the standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[allow(missing_docs)]
pub enum Language {
    #[default]
    English,
    Czech,
    Danish,
    Dutch,
    Estonian,
    Finnish,
    French,
    German,
    Hungarian,
    Icelandic,
    Italian,
    Norwegian,
    Polish,
    Portuguese,
    Romanian,
    Spanish,
    Swedish,
}

impl Language {
    /// Every language of section 17, English first.
    pub const ALL: [Language; 17] = [
        Language::English,
        Language::Czech,
        Language::Danish,
        Language::Dutch,
        Language::Estonian,
        Language::Finnish,
        Language::French,
        Language::German,
        Language::Hungarian,
        Language::Icelandic,
        Language::Italian,
        Language::Norwegian,
        Language::Polish,
        Language::Portuguese,
        Language::Romanian,
        Language::Spanish,
        Language::Swedish,
    ];

    /// The piece letters: pawn, knight, bishop, rook, queen, king.
    pub const fn letters(self) -> [u8; 6] {
        match self {
            Language::English => *b"PNBRQK",
            Language::Czech => *b"PJSVDK",
            Language::Danish | Language::German | Language::Norwegian | Language::Swedish => {
                *b"BSLTDK"
            }
            Language::Dutch => *b"OPLTDK",
            Language::Estonian => *b"PROVLK",
            Language::Finnish => *b"PRLTDK",
            Language::French => *b"PCFTDR",
            Language::Hungarian => *b"GHFBVK",
            Language::Icelandic => *b"PRBHDK",
            Language::Italian | Language::Spanish => *b"PCATDR",
            Language::Polish => *b"PSGWHK",
            Language::Portuguese => *b"PCBTDR",
            Language::Romanian => *b"PCNTDR",
        }
    }

    /// The English name, lower case (`"german"`).
    pub const fn name(self) -> &'static str {
        match self {
            Language::English => "english",
            Language::Czech => "czech",
            Language::Danish => "danish",
            Language::Dutch => "dutch",
            Language::Estonian => "estonian",
            Language::Finnish => "finnish",
            Language::French => "french",
            Language::German => "german",
            Language::Hungarian => "hungarian",
            Language::Icelandic => "icelandic",
            Language::Italian => "italian",
            Language::Norwegian => "norwegian",
            Language::Polish => "polish",
            Language::Portuguese => "portuguese",
            Language::Romanian => "romanian",
            Language::Spanish => "spanish",
            Language::Swedish => "swedish",
        }
    }

    /// The language called `name` (case-insensitive English name).
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
    }

    /// The upper-case letter of `role`.
    pub const fn letter(self, role: Role) -> u8 {
        self.letters()[role_index(role)]
    }

    /// The role an upper-case letter stands for.
    pub fn role_of(self, letter: u8) -> Option<Role> {
        const ROLES: [Role; 6] = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ];
        let letters = self.letters();
        letters.iter().position(|&l| l == letter).map(|i| ROLES[i])
    }

    const fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

const fn role_index(role: Role) -> usize {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// A set of [`Language`]s (English is always tried first when present).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Languages(u32);

impl Languages {
    /// English only.
    pub const ENGLISH: Languages = Languages(1);
    /// Every language of section 17.
    pub const ALL: Languages = Languages((1 << 17) - 1);

    /// The set holding just `lang`.
    pub const fn only(lang: Language) -> Languages {
        Languages(lang.bit())
    }

    /// This set plus `lang`.
    pub const fn with(self, lang: Language) -> Languages {
        Languages(self.0 | lang.bit())
    }

    /// Whether `lang` is in the set.
    pub const fn contains(self, lang: Language) -> bool {
        self.0 & lang.bit() != 0
    }

    /// The languages in the set, English first.
    pub fn iter(self) -> impl Iterator<Item = Language> {
        Language::ALL.into_iter().filter(move |l| self.contains(*l))
    }
}

impl Default for Languages {
    fn default() -> Languages {
        Languages::ENGLISH
    }
}

/// Options for reading SAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Piece-letter sets accepted (default: English only).
    pub languages: Languages,
    /// Accept FAN figurines, white or black (default: yes).
    pub figurines: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            languages: Languages::ENGLISH,
            figurines: true,
        }
    }
}

/// Options for writing SAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// Piece letters to write (default: English).
    pub language: Language,
    /// Write FAN figurines (in the mover's colour) instead of letters.
    pub figurines: bool,
}

/// What the tolerant reader had to accept: a set of non-canonical forms
/// found in the text. Empty means the text, without its suffix annotation
/// and check mark, is exactly the canonical SAN (compare
/// [`ReadMove::check`] with [`check_suffix`] of the position after the move
/// to know whether the check mark was right too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tolerated(u16);

impl Tolerated {
    /// Nothing: the text was canonical (check marks aside).
    pub const NONE: Tolerated = Tolerated(0);
    /// Letter case was remapped (`nf3`, `Bxc3` read as a bishop...).
    pub const CASE: Tolerated = Tolerated(1);
    /// `x` missing on a capture or written on a non-capture.
    pub const CAPTURE_MARK: Tolerated = Tolerated(1 << 1);
    /// Pawn letter `P`.
    pub const PAWN_LETTER: Tolerated = Tolerated(1 << 2);
    /// Origin file, rank or square given where not needed (`Ngf3`, `e2e4`).
    pub const DISAMBIGUATION: Tolerated = Tolerated(1 << 3);
    /// Long algebraic or coordinate form (`e2-e4`, `Ng1-f3`, `e1g1`).
    pub const LONG_FORM: Tolerated = Tolerated(1 << 4);
    /// Castling with zeros or without dashes (`0-0`, `OO`).
    pub const CASTLING_FORM: Tolerated = Tolerated(1 << 5);
    /// Promotion without `=` or lower case (`e8Q`, `e8=q`, `e8(Q)`).
    pub const PROMOTION_FORM: Tolerated = Tolerated(1 << 6);
    /// An `e.p.`/`ep` suffix.
    pub const EN_PASSANT_MARK: Tolerated = Tolerated(1 << 7);
    /// Piece letters of another language.
    pub const FOREIGN_LETTERS: Tolerated = Tolerated(1 << 8);
    /// FAN figurines.
    pub const FIGURINES: Tolerated = Tolerated(1 << 9);
    /// Null move written other than `--` (`Z0`, `0000`).
    pub const NULL_FORM: Tolerated = Tolerated(1 << 10);
    /// Any other deviation: symbols out of order, stray separators.
    pub const LAYOUT: Tolerated = Tolerated(1 << 11);

    /// Whether nothing was tolerated.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every form in `other` is in `self`.
    pub const fn contains(self, other: Tolerated) -> bool {
        self.0 & other.0 == other.0
    }

    const fn with(self, other: Tolerated) -> Tolerated {
        Tolerated(self.0 | other.0)
    }

    fn names(self) -> impl Iterator<Item = &'static str> {
        const NAMES: [&str; 12] = [
            "letter case",
            "capture mark",
            "pawn letter",
            "needless disambiguation",
            "long algebraic form",
            "castling form",
            "promotion form",
            "en passant mark",
            "foreign piece letters",
            "figurines",
            "null move form",
            "layout",
        ];
        (0..NAMES.len())
            .filter(move |i| self.0 & (1 << i) != 0)
            .map(|i| NAMES[i])
    }
}

impl fmt::Display for Tolerated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// A move read from SAN text, with any suffix annotation split off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMove {
    /// The move.
    pub mv: PlyMove,
    /// The NAG of a suffix annotation (`!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6).
    pub nag: Option<u8>,
    /// The check mark as written (`+` or `#`), never used to find the move.
    /// Compare with the position after the move to report a wrong mark.
    pub check: Option<Suffix>,
    /// Non-canonical forms the reader accepted.
    pub tolerated: Tolerated,
}

/// What kind of error a SAN text caused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanErrorKind {
    /// Not a move in any notation the reader knows.
    Syntax,
    /// A move, but no legal move in the position matches it.
    Illegal,
    /// A move matching more than one legal move.
    Ambiguous,
}

/// Why a SAN text could not be read in a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanError {
    /// Syntax, illegal or ambiguous.
    pub kind: SanErrorKind,
    /// The full explanation: the text, the position (FEN) and candidates.
    pub message: String,
    /// The text as given (lossily decoded).
    pub text: String,
    /// FEN of the position (empty for syntax errors).
    pub fen: String,
    /// Canonical SAN of the candidate moves: the moves an ambiguous text
    /// matches, or for an illegal one the legal moves to the same square.
    pub candidates: Vec<String>,
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SanError {}

// ---------------------------------------------------------------------------
// Reading

/// Reads `text` as a move in `pos`, tolerantly (see the module docs).
#[inline]
pub fn read_san(pos: &Chess, text: &[u8], opts: &ReadOptions) -> Result<ReadMove, SanError> {
    if opts.languages.contains(Language::English)
        && let Some(read) = read_canonical::<true, _>(pos, text)
    {
        return Ok(read);
    }
    read_san_general(pos, text, opts)
}

/// The move of canonical SAN text (check mark and suffix annotation
/// allowed), when exactly one legal move matches; `None` for anything
/// [`read_san`] would have to look at more closely. For hot loops that need
/// only the move: nothing is returned through memory.
#[inline]
pub fn read_canonical_move(pos: &Chess, text: &[u8]) -> Option<Move> {
    read_canonical_move_in(pos, text)
}

/// [`read_canonical_move`] in any position the resolver can read (the
/// checker's [`fastpos::FastPos`]).
#[inline]
pub(crate) fn read_canonical_move_in<P: resolve::View>(pos: &P, text: &[u8]) -> Option<Move> {
    match read_canonical::<false, P>(pos, text)?.mv {
        PlyMove::Move(m) => Some(m),
        PlyMove::Null => None,
    }
}

/// The piece of an English piece letter (knight to king): a table
/// lookup, not a jump on the letter (the piece of a move is hard to
/// predict).
#[inline]
const fn piece_letter(b: u8) -> Option<Role> {
    PIECE_LETTERS[b as usize]
}

/// [`piece_letter`]'s table.
const PIECE_LETTERS: [Option<Role>; 256] = {
    let mut t = [None; 256];
    t[b'N' as usize] = Some(Role::Knight);
    t[b'B' as usize] = Some(Role::Bishop);
    t[b'R' as usize] = Some(Role::Rook);
    t[b'Q' as usize] = Some(Role::Queen);
    t[b'K' as usize] = Some(Role::King);
    t
};

#[inline]
fn square_of(file: u8, rank: u8) -> Option<Square> {
    match (file, rank) {
        (b'a'..=b'h', b'1'..=b'8') => Some(Square::from_coords(
            File::new(u32::from(file - b'a')),
            Rank::new(u32::from(rank - b'1')),
        )),
        _ => None,
    }
}

/// The hot path of [`read_san`]: canonical SAN with an optional check mark
/// and suffix annotation (`Nf3`, `exd5`, `e8=Q+`, `R1a3?!`, `O-O#`), parsed
/// in one step and
/// resolved when exactly one legal move matches. Anything else, and every
/// illegal or ambiguous move, is left to [`read_san_general`], which
/// explains. With `TOLERANCE` false the `tolerated` flags are not worked out
/// (a disambiguator is not compared with the canonical one): for callers
/// that want only the move.
#[inline]
fn read_canonical<const TOLERANCE: bool, P: resolve::View>(
    pos: &P,
    text: &[u8],
) -> Option<ReadMove> {
    // Most moves end in a rank digit or a piece letter: one test of the
    // last byte, and the annotation patterns only when it is `!` or `?`.
    let (body, nag) = match text {
        [.., b'!' | b'?'] => canonical_annotation(text),
        _ => (text, None),
    };
    let (core, check) = match body {
        [core @ .., b'+'] => (core, Some(Suffix::Check)),
        [core @ .., b'#'] => (core, Some(Suffix::Checkmate)),
        _ => (body, None),
    };
    let read = |mv, tolerated| ReadMove {
        mv: PlyMove::Move(mv),
        nag,
        check,
        tolerated,
    };
    let &[first, .., last] = core else {
        return None;
    };
    if first == b'O' {
        let side = match core {
            b"O-O" => CastlingSide::KingSide,
            b"O-O-O" => CastlingSide::QueenSide,
            _ => return None,
        };
        return resolve::resolve_castle(pos, side).map(|m| read(m, Tolerated::NONE));
    }
    if let Some(role) = piece_letter(first) {
        // Piece move: letter, up to two disambiguators, `x`, destination.
        let rest = &core[1..];
        let n = rest.len();
        if !(2..=5).contains(&n) {
            return None;
        }
        let to = square_of(rest[n - 2], last)?;
        let (capture, head) = match &rest[..n - 2] {
            [head @ .., b'x'] => (true, head),
            head => (false, head),
        };
        let (file, rank) = match *head {
            [] => (None, None),
            [f @ b'a'..=b'h'] => (Some(File::new(u32::from(f - b'a'))), None),
            [r @ b'1'..=b'8'] => (None, Some(Rank::new(u32::from(r - b'1')))),
            [f, r] => {
                let sq = square_of(f, r)?;
                (Some(sq.file()), Some(sq.rank()))
            }
            _ => return None,
        };
        let resolve::Resolved::One(m) =
            resolve::resolve_normal(pos, role, file, rank, capture, to, None)
        else {
            return None;
        };
        let mut tolerated = Tolerated::NONE;
        if TOLERANCE
            && (file.is_some() || rank.is_some())
            && canonical_disambiguation(pos, m) != (file, rank)
        {
            tolerated = tolerated.with(Tolerated::DISAMBIGUATION);
            if file.is_some() && rank.is_some() {
                tolerated = tolerated.with(Tolerated::LONG_FORM);
            }
        }
        return Some(read(m, tolerated));
    }
    // Pawn move: `e4`, `exd5`, either with `=Q`.
    let (body, promotion) = match *core {
        [ref body @ .., b'=', p] => (body, Some(piece_letter(p).filter(|&r| r != Role::King)?)),
        ref body => (body, None),
    };
    let (file, to) = match *body {
        [f, r] => (None, square_of(f, r)?),
        [from @ b'a'..=b'h', b'x', f, r] => {
            (Some(File::new(u32::from(from - b'a'))), square_of(f, r)?)
        }
        _ => return None,
    };
    match resolve::resolve_normal(pos, Role::Pawn, file, None, file.is_some(), to, promotion) {
        resolve::Resolved::One(m) => Some(read(m, Tolerated::NONE)),
        _ => None,
    }
}

/// `text` without its suffix annotation (`!`, `?`, `!!`, `??`, `!?`, `?!`),
/// and the annotation's NAG.
#[inline]
fn canonical_annotation(text: &[u8]) -> (&[u8], Option<u8>) {
    match text {
        [body @ .., b'!', b'!'] => (body, Some(3)),
        [body @ .., b'?', b'?'] => (body, Some(4)),
        [body @ .., b'!', b'?'] => (body, Some(5)),
        [body @ .., b'?', b'!'] => (body, Some(6)),
        [body @ .., b'!'] => (body, Some(1)),
        [body @ .., b'?'] => (body, Some(2)),
        _ => (text, None),
    }
}

/// [`read_san`] past its hot path: suffix annotations, the tolerant forms,
/// and the explanation of illegal and ambiguous moves.
#[inline(never)]
fn read_san_general(pos: &Chess, text: &[u8], opts: &ReadOptions) -> Result<ReadMove, SanError> {
    let Some((body, nag)) = split_annotation(text) else {
        return read_slow(pos, text, opts);
    };
    let (core, check) = match body.last() {
        Some(b'+') => (&body[..body.len() - 1], Some(Suffix::Check)),
        Some(b'#') => (&body[..body.len() - 1], Some(Suffix::Checkmate)),
        _ => (body, None),
    };
    if core == b"--" {
        return null_move(pos, text, nag, check, Tolerated::NONE);
    }
    if opts.languages.contains(Language::English)
        && let Some((mv, tolerated)) = fast_path(pos, core)
    {
        return Ok(ReadMove {
            mv: PlyMove::Move(mv),
            nag,
            check,
            tolerated,
        });
    }
    if let Some(mv) = coordinate_path(pos, core) {
        let mut tolerated = Tolerated::LONG_FORM.with(Tolerated::DISAMBIGUATION);
        if core.len() == 5 {
            tolerated = tolerated.with(Tolerated::PROMOTION_FORM);
        }
        return Ok(ReadMove {
            mv: PlyMove::Move(mv),
            nag,
            check,
            tolerated,
        });
    }
    read_slow(pos, text, opts)
}

/// The coordinate (UCI) form `g1f3`, `e7e8q`, without allocating.
#[inline]
fn coordinate_path(pos: &Chess, core: &[u8]) -> Option<Move> {
    let shaped = matches!(
        core,
        [b'a'..=b'h', b'1'..=b'8', b'a'..=b'h', b'1'..=b'8']
            | [
                b'a'..=b'h',
                b'1'..=b'8',
                b'a'..=b'h',
                b'1'..=b'8',
                b'q' | b'r' | b'b' | b'n'
            ]
    );
    if !shaped {
        return None;
    }
    shakmaty::uci::UciMove::from_ascii(core)
        .ok()?
        .to_move(pos)
        .ok()
}

fn null_move(
    pos: &Chess,
    text: &[u8],
    nag: Option<u8>,
    check: Option<Suffix>,
    tolerated: Tolerated,
) -> Result<ReadMove, SanError> {
    if pos.is_check() {
        return Err(error(
            SanErrorKind::Illegal,
            pos,
            text,
            Vec::new(),
            "a null move is impossible while in check",
        ));
    }
    Ok(ReadMove {
        mv: PlyMove::Null,
        nag,
        check,
        tolerated,
    })
}

/// Canonical SAN (and what shakmaty's parser accepts) resolved without
/// allocating. `None` when the text needs the tolerant reader or is
/// ambiguous/illegal (the tolerant reader then explains).
#[inline]
fn fast_path(pos: &Chess, core: &[u8]) -> Option<(Move, Tolerated)> {
    let san = San::from_ascii(core).ok()?;
    match san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if core.last() == Some(&b'+') || core.last() == Some(&b'#') {
                return None; // a doubled check mark: let the slow path report it
            }
            let resolve::Resolved::One(m) =
                resolve::resolve_normal(pos, role, file, rank, capture, to, promotion)
            else {
                return None; // the tolerant reader explains
            };
            let mut tolerated = Tolerated::NONE;
            if core.first() == Some(&b'P') {
                tolerated = tolerated.with(Tolerated::PAWN_LETTER);
            }
            if promotion.is_some() && core.last().is_some_and(u8::is_ascii_lowercase) {
                tolerated = tolerated.with(Tolerated::PROMOTION_FORM);
            }
            if file.is_some() || rank.is_some() || (role == Role::Pawn && capture) {
                let (cf, cr) = canonical_disambiguation(pos, m);
                if (cf, cr) != (file, rank) {
                    tolerated = tolerated.with(Tolerated::DISAMBIGUATION);
                    if file.is_some() && rank.is_some() {
                        tolerated = tolerated.with(Tolerated::LONG_FORM);
                    }
                }
            }
            Some((m, tolerated))
        }
        San::Castle(side) => {
            if core.first() != Some(&b'O') {
                return None;
            }
            resolve::resolve_castle(pos, side).map(|m| (m, Tolerated::NONE))
        }
        San::Put { .. } | San::Null => None,
    }
}

/// The file and rank canonical SAN writes before the destination of `m`
/// (the three-step disambiguation over legal moves; pawn captures give
/// their file), as `San::disambiguate` computes it.
fn canonical_disambiguation<P: resolve::View>(pos: &P, m: Move) -> (Option<File>, Option<Rank>) {
    match m {
        Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            ..
        } => (capture.map(|_| from.file()), None),
        Move::EnPassant { from, .. } => (Some(from.file()), None),
        Move::Normal { role, from, to, .. } if role != Role::King => {
            let others = resolve::legal_piece_sources(pos, role, to).without(from);
            let ambiguous = others.any();
            let ambiguous_file = (others & Bitboard::from_file(from.file())).any();
            let ambiguous_rank = (others & Bitboard::from_rank(from.rank())).any();
            (
                (ambiguous && (!ambiguous_file || ambiguous_rank)).then(|| from.file()),
                ambiguous_file.then(|| from.rank()),
            )
        }
        _ => (None, None),
    }
}

/// One symbol of a move text after decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    /// An ASCII letter as written.
    Letter(u8),
    /// A FAN figurine.
    Figurine(Role),
    /// A rank digit 1-8.
    Digit(u8),
    /// `x`, `:` or `×`.
    Capture,
    /// `-`.
    Dash,
    /// `=` or `/` before a promotion piece.
    PromoMark,
    /// `(`.
    Open,
    /// `)`.
    Close,
}

const MAX_SYMS: usize = 12;

/// Longest text the tolerant reader looks at (`Ng1xf3e.p.+!?` and figurines
/// fit easily).
const MAX_TEXT: usize = 48;

struct Syms {
    items: [Sym; MAX_SYMS],
    len: usize,
}

impl Syms {
    fn as_slice(&self) -> &[Sym] {
        &self.items[..self.len]
    }
}

fn figurine_role(c: char) -> Option<Role> {
    Some(match c {
        '\u{2654}' | '\u{265A}' => Role::King,
        '\u{2655}' | '\u{265B}' => Role::Queen,
        '\u{2656}' | '\u{265C}' => Role::Rook,
        '\u{2657}' | '\u{265D}' => Role::Bishop,
        '\u{2658}' | '\u{265E}' => Role::Knight,
        '\u{2659}' | '\u{265F}' => Role::Pawn,
        _ => return None,
    })
}

/// The text split into annotation, check mark, en-passant mark and core.
struct Split<'a> {
    core: &'a str,
    nag: Option<u8>,
    check: Option<Suffix>,
    ep_mark: bool,
}

fn split_suffixes(text: &str) -> Result<Split<'_>, &'static str> {
    let mut core = text;
    let mut annotation = String::new();
    let mut check = None;
    let mut ep_mark = false;
    loop {
        if let Some(rest) = core.strip_suffix(['!', '?']) {
            annotation.insert(0, core[rest.len()..].chars().next().unwrap_or('!'));
            core = rest;
        } else if let Some(rest) = core.strip_suffix(['+', '#']) {
            if check.is_none() {
                check = Some(if core.ends_with('#') {
                    Suffix::Checkmate
                } else {
                    Suffix::Check
                });
            }
            core = rest;
        } else if let Some(rest) = ["e.p.", "e.p", "ep", "E.P.", "EP"]
            .iter()
            .find_map(|s| core.strip_suffix(s))
            .filter(|r| r.ends_with(|c: char| c.is_ascii_digit() || c == ' '))
        {
            ep_mark = true;
            core = rest.trim_end();
        } else {
            break;
        }
    }
    let nag = match annotation.as_str() {
        "" => None,
        "!" => Some(1),
        "?" => Some(2),
        "!!" => Some(3),
        "??" => Some(4),
        "!?" => Some(5),
        "?!" => Some(6),
        _ => return Err("bad suffix annotation: expected one of ! ? !! ?? !? ?!"),
    };
    Ok(Split {
        core,
        nag,
        check,
        ep_mark,
    })
}

fn decode(core: &str, opts: &ReadOptions) -> Result<Syms, &'static str> {
    let mut syms = Syms {
        items: [Sym::Dash; MAX_SYMS],
        len: 0,
    };
    for c in core.chars() {
        let sym = match c {
            'a'..='z' | 'A'..='Z' => {
                if c == 'x' || c == 'X' && syms.len > 0 {
                    Sym::Capture
                } else {
                    Sym::Letter(c as u8)
                }
            }
            '1'..='8' => Sym::Digit(c as u8 - b'0'),
            ':' | '\u{00D7}' => Sym::Capture,
            '-' | '\u{2013}' => Sym::Dash,
            '=' | '/' => Sym::PromoMark,
            '(' => Sym::Open,
            ')' => Sym::Close,
            _ => match figurine_role(c) {
                Some(role) if opts.figurines => Sym::Figurine(role),
                Some(_) => return Err("figurines are not enabled"),
                None => return Err("unexpected character"),
            },
        };
        if syms.len == MAX_SYMS {
            return Err("too long for a move");
        }
        syms.items[syms.len] = sym;
        syms.len += 1;
    }
    Ok(syms)
}

/// How the letters of a text are read in one tier.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    /// Piece letters upper case, files lower case.
    Exact,
    /// Any case for both, where the grammar allows.
    CaseRemapped,
}

/// One reading of a text: constraints a legal move must meet.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// `None`: the piece on the origin square (coordinate form).
    role: Option<Role>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    to: Square,
    promotion: Option<Role>,
    capture_written: bool,
    tolerated: Tolerated,
}

impl Reading {
    fn matches(&self, pos: &Chess, m: Move) -> bool {
        let Some(from) = m.from() else {
            return false;
        };
        if self.from_file.is_some_and(|f| f != from.file())
            || self.from_rank.is_some_and(|r| r != from.rank())
        {
            return false;
        }
        if let Move::Castle { king, rook } = m {
            // Coordinate castling: king to its target square, or onto its rook.
            let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
            let king_to = side.king_to(pos.turn());
            return self.role.is_none_or(|r| r == Role::King)
                && self.from_file.is_some()
                && self.from_rank.is_some()
                && from == king
                && (self.to == king_to || self.to == rook)
                && self.promotion.is_none();
        }
        self.to == m.to()
            && self.role.is_none_or(|r| r == m.role())
            && self.promotion == m.promotion()
    }
}

/// Reads a piece designator symbol in a tier: (role, what it tolerated).
fn piece_readings(sym: Sym, tier: Tier, opts: &ReadOptions, out: &mut Vec<(Role, Tolerated)>) {
    match sym {
        Sym::Figurine(role) if tier == Tier::Exact => {
            out.push((role, Tolerated::FIGURINES));
        }
        Sym::Letter(l) => {
            let upper = l.to_ascii_uppercase();
            let case_ok = match tier {
                Tier::Exact => l.is_ascii_uppercase(),
                Tier::CaseRemapped => l.is_ascii_lowercase(),
            };
            if !case_ok {
                return;
            }
            for lang in opts.languages.iter() {
                if let Some(role) = lang.role_of(upper) {
                    let mut t = Tolerated::NONE;
                    if lang != Language::English {
                        t = t.with(Tolerated::FOREIGN_LETTERS);
                    }
                    if tier == Tier::CaseRemapped {
                        t = t.with(Tolerated::CASE);
                    }
                    if role == Role::Pawn {
                        t = t.with(Tolerated::PAWN_LETTER);
                    }
                    if !out.iter().any(|(r, _)| *r == role) {
                        out.push((role, t));
                    }
                }
            }
        }
        _ => {}
    }
}

fn as_file(sym: Sym, tier: Tier) -> Option<File> {
    match sym {
        Sym::Letter(l @ b'a'..=b'h') => File::from_char(char::from(l)),
        Sym::Letter(l @ b'A'..=b'H') if tier == Tier::CaseRemapped => {
            File::from_char(char::from(l.to_ascii_lowercase()))
        }
        _ => None,
    }
}

fn as_rank(sym: Sym) -> Option<Rank> {
    match sym {
        Sym::Digit(d) => Rank::from_char(char::from(b'0' + d)),
        _ => None,
    }
}

/// Parses the part after the piece designator: `[file][rank][x|-]file rank
/// [promotion]`.
fn squares_reading(
    rest: &[Sym],
    role: Option<Role>,
    tier: Tier,
    opts: &ReadOptions,
    base: Tolerated,
) -> Vec<Reading> {
    let mut readings = Vec::new();
    // Promotion suffix candidates: (symbols consumed, role, tolerated).
    let mut promos: Vec<(usize, Option<Role>, Tolerated)> = vec![(0, None, Tolerated::NONE)];
    let n = rest.len();
    let mut promo_roles = Vec::new();
    let mut push_promo = |sym: Sym, consumed: usize, mark_canonical: bool| {
        promo_roles.clear();
        piece_readings(sym, Tier::Exact, opts, &mut promo_roles);
        piece_readings(sym, Tier::CaseRemapped, opts, &mut promo_roles);
        for &(r, t) in &promo_roles {
            let canonical =
                mark_canonical && matches!(sym, Sym::Letter(l) if l.is_ascii_uppercase());
            let t = if canonical {
                t.difference_case()
            } else {
                t.difference_case().with(Tolerated::PROMOTION_FORM)
            };
            promos.push((consumed, Some(r), t));
        }
    };
    if n >= 1 {
        // `e8Q`, `e7e8q`
        push_promo(rest[n - 1], 1, false);
    }
    if n >= 2 && rest[n - 2] == Sym::PromoMark {
        let canonical = matches!(rest[n - 1], Sym::Letter(_));
        push_promo(rest[n - 1], 2, canonical);
    }
    if n >= 3 && rest[n - 3] == Sym::Open && rest[n - 1] == Sym::Close {
        push_promo(rest[n - 2], 3, false);
    }
    for &(consumed, promotion, promo_tol) in &promos {
        let body = &rest[..n - consumed];
        let mut capture_written = false;
        let mut dash = false;
        let mut coords: [Option<Sym>; 4] = [None; 4];
        let mut k = 0;
        let mut bad = false;
        for &s in body {
            match s {
                Sym::Capture => capture_written = true,
                Sym::Dash => dash = true,
                _ => {
                    if k == 4 {
                        bad = true;
                        break;
                    }
                    coords[k] = Some(s);
                    k += 1;
                }
            }
        }
        if bad || k < 2 {
            continue;
        }
        let (Some(to_file), Some(to_rank)) = (
            coords[k - 2].and_then(|s| as_file(s, tier)),
            coords[k - 1].and_then(as_rank),
        ) else {
            continue;
        };
        let (from_file, from_rank) = match k {
            2 => (None, None),
            3 => match coords[0] {
                Some(s) if as_file(s, tier).is_some() => (as_file(s, tier), None),
                Some(s) if as_rank(s).is_some() => (None, as_rank(s)),
                _ => continue,
            },
            _ => match (
                coords[0].and_then(|s| as_file(s, tier)),
                coords[1].and_then(as_rank),
            ) {
                (Some(f), Some(r)) => (Some(f), Some(r)),
                _ => continue,
            },
        };
        let mut tolerated = base;
        let role = match role {
            Some(r) => Some(r),
            None if from_file.is_some() && from_rank.is_some() => None,
            None => Some(Role::Pawn),
        };
        if dash || (from_file.is_some() && from_rank.is_some()) {
            tolerated = tolerated.with(Tolerated::LONG_FORM);
        }
        if tier == Tier::CaseRemapped
            && coords[..k]
                .iter()
                .any(|s| matches!(s, Some(Sym::Letter(l)) if l.is_ascii_uppercase()))
        {
            tolerated = tolerated.with(Tolerated::CASE);
        }
        readings.push(Reading {
            role,
            from_file,
            from_rank,
            to: Square::from_coords(to_file, to_rank),
            promotion,
            capture_written,
            tolerated: tolerated.with(promo_tol),
        });
    }
    readings
}

impl Tolerated {
    const fn difference_case(self) -> Tolerated {
        Tolerated(self.0 & !Tolerated::CASE.0 & !Tolerated::PAWN_LETTER.0)
    }
}

/// All readings of `syms` in `tier`.
fn readings(syms: &[Sym], tier: Tier, opts: &ReadOptions) -> Vec<Reading> {
    let mut out = Vec::new();
    let Some(&first) = syms.first() else {
        return out;
    };
    let mut roles = Vec::new();
    piece_readings(first, tier, opts, &mut roles);
    for (role, t) in roles {
        out.extend(squares_reading(&syms[1..], Some(role), tier, opts, t));
    }
    out.extend(squares_reading(syms, None, tier, opts, Tolerated::NONE));
    out
}

fn castling_side_of(core: &str) -> Option<(CastlingSide, bool)> {
    let squeezed: String = core
        .chars()
        .filter(|c| *c != '-' && *c != '\u{2013}')
        .collect();
    let canonical = matches!(core, "O-O" | "O-O-O");
    match squeezed.as_str() {
        "OO" | "00" | "oo" => Some((CastlingSide::KingSide, canonical)),
        "OOO" | "000" | "ooo" => Some((CastlingSide::QueenSide, canonical)),
        _ => None,
    }
}

fn read_slow(pos: &Chess, text: &[u8], opts: &ReadOptions) -> Result<ReadMove, SanError> {
    let syntax = |why: &str| {
        error(
            SanErrorKind::Syntax,
            pos,
            text,
            Vec::new(),
            &format!("{why}: expected a move such as e4, Nf3, exd5, O-O or e8=Q"),
        )
    };
    if text.len() > MAX_TEXT {
        return Err(syntax("too long for a move"));
    }
    let Ok(text_str) = std::str::from_utf8(text) else {
        return Err(syntax("not valid UTF-8"));
    };
    let split = split_suffixes(text_str).map_err(syntax)?;
    let Split {
        core,
        nag,
        check,
        ep_mark,
    } = split;
    if core.is_empty() {
        return Err(syntax("empty move"));
    }
    let mut base = Tolerated::NONE;
    if ep_mark {
        base = base.with(Tolerated::EN_PASSANT_MARK);
    }
    match core {
        "--" => return null_move(pos, text, nag, check, base),
        "Z0" | "0000" | "@@@@" => {
            return null_move(pos, text, nag, check, base.with(Tolerated::NULL_FORM));
        }
        _ => {}
    }
    if let Some((side, canonical)) = castling_side_of(core) {
        if !canonical {
            base = base.with(Tolerated::CASTLING_FORM);
        }
        return match pos.castling_moves(side).first() {
            Some(&m) => Ok(ReadMove {
                mv: PlyMove::Move(m),
                nag,
                check,
                tolerated: base,
            }),
            None => Err(error(
                SanErrorKind::Illegal,
                pos,
                text,
                Vec::new(),
                &format!(
                    "castling {} is not legal here",
                    match side {
                        CastlingSide::KingSide => "king-side",
                        CastlingSide::QueenSide => "queen-side",
                    }
                ),
            )),
        };
    }
    let syms = decode(core, opts).map_err(syntax)?;
    let legal = pos.legal_moves();
    let mut any_reading = false;
    let mut target: Option<Square> = None;
    for tier in [Tier::Exact, Tier::CaseRemapped] {
        let rs = readings(syms.as_slice(), tier, opts);
        any_reading |= !rs.is_empty();
        let mut found: Vec<(Move, Tolerated)> = Vec::new();
        for r in &rs {
            target.get_or_insert(r.to);
            for &m in &legal {
                if r.matches(pos, m) && !found.iter().any(|(f, _)| *f == m) {
                    let mut t = base.with(r.tolerated);
                    if r.capture_written != m.is_capture() && !m.is_castle() {
                        t = t.with(Tolerated::CAPTURE_MARK);
                    }
                    if !m.is_castle() {
                        let canonical = San::from_move(pos, m);
                        if let San::Normal {
                            file: cf, rank: cr, ..
                        } = canonical
                            && (cf, cr) != (r.from_file, r.from_rank)
                        {
                            t = t.with(Tolerated::DISAMBIGUATION);
                        }
                    }
                    found.push((m, t));
                }
            }
        }
        // A king move that is also a Chess960 castling's king path (`Kd8-c8`,
        // `d8c8` with the rook on a8): the plain move. Writers spell castling
        // `O-O`/`O-O-O` or king takes rook, never as such a move.
        if found.len() > 1 && found.iter().any(|(m, _)| !m.is_castle()) {
            found.retain(|(m, _)| !m.is_castle());
        }
        match found.len() {
            0 => continue,
            1 => {
                let (m, mut tolerated) = found[0];
                if tolerated.is_empty() {
                    let mut canonical = String::new();
                    San::from_move(pos, m).append_to_string(&mut canonical);
                    if canonical != core {
                        tolerated = Tolerated::LAYOUT;
                    }
                }
                return Ok(ReadMove {
                    mv: PlyMove::Move(m),
                    nag,
                    check,
                    tolerated,
                });
            }
            _ => {
                let candidates: Vec<String> = found
                    .iter()
                    .map(|(m, _)| write_san(pos, PlyMove::Move(*m)))
                    .collect();
                let msg = format!(
                    "matches {} legal moves: {}",
                    candidates.len(),
                    candidates.join(", ")
                );
                return Err(error(SanErrorKind::Ambiguous, pos, text, candidates, &msg));
            }
        }
    }
    if !any_reading {
        return Err(syntax("not a move"));
    }
    let to = target.unwrap_or(Square::A1);
    let candidates: Vec<String> = legal
        .iter()
        .filter(|m| {
            m.to() == to
                || (m.is_castle()
                    && m.castling_side()
                        .is_some_and(|s| s.king_to(pos.turn()) == to))
        })
        .map(|m| write_san(pos, PlyMove::Move(*m)))
        .collect();
    let msg = if candidates.is_empty() {
        format!("no legal move matches it (no legal move goes to {to})")
    } else {
        format!(
            "no legal move matches it (legal moves to {to}: {})",
            candidates.join(", ")
        )
    };
    Err(error(SanErrorKind::Illegal, pos, text, candidates, &msg))
}

fn error(
    kind: SanErrorKind,
    pos: &Chess,
    text: &[u8],
    candidates: Vec<String>,
    why: &str,
) -> SanError {
    let shown = crate::excerpt::excerpt(text);
    let fen = crate::fen::write_fen(pos, pos.castles().mode());
    let what = match kind {
        SanErrorKind::Syntax => "bad move",
        SanErrorKind::Illegal => "illegal move",
        SanErrorKind::Ambiguous => "ambiguous move",
    };
    let message = match kind {
        SanErrorKind::Syntax => format!("{what} `{shown}`: {why}"),
        _ => format!("{what} `{shown}` in position {fen}: {why}"),
    };
    SanError {
        kind,
        message,
        text: String::from_utf8_lossy(text).into_owned(),
        fen: if kind == SanErrorKind::Syntax {
            String::new()
        } else {
            fen
        },
        candidates,
    }
}

// ---------------------------------------------------------------------------
// Writing

/// Appends the canonical SAN of `mv` in `pos` (with `+`/`#`) to `out`.
/// `mv` must be legal in `pos`.
pub fn write_san_to(pos: &Chess, mv: PlyMove, out: &mut String) {
    match mv {
        PlyMove::Null => out.push_str("--"),
        PlyMove::Move(m) => SanPlus::from_move(pos.clone(), m).append_to_string(out),
    }
}

/// The canonical SAN of `mv` in `pos`.
pub fn write_san(pos: &Chess, mv: PlyMove) -> String {
    let mut s = String::new();
    write_san_to(pos, mv, &mut s);
    s
}

/// The Unicode chess figurine (U+2654..U+265F) of a piece.
pub fn figurine(color: Color, role: Role) -> char {
    let base = match color {
        Color::White => 0x2654,
        Color::Black => 0x265A,
    };
    let offset = match role {
        Role::King => 0,
        Role::Queen => 1,
        Role::Rook => 2,
        Role::Bishop => 3,
        Role::Knight => 4,
        Role::Pawn => 5,
    };
    char::from_u32(base + offset).unwrap_or('?')
}

/// Appends the SAN of `mv` in `pos` with the piece letters or figurines of
/// `opts` (canonical otherwise).
pub fn write_san_with(pos: &Chess, mv: PlyMove, opts: &WriteOptions, out: &mut String) {
    if opts.language == Language::English && !opts.figurines {
        return write_san_to(pos, mv, out);
    }
    let PlyMove::Move(m) = mv else {
        out.push_str("--");
        return;
    };
    let plus = SanPlus::from_move(pos.clone(), m);
    let color = pos.turn();
    let piece = |role: Role, out: &mut String| {
        if opts.figurines {
            out.push(figurine(color, role));
        } else {
            out.push(char::from(opts.language.letter(role)));
        }
    };
    match plus.san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                piece(role, out);
            }
            if let Some(f) = file {
                out.push(f.char());
            }
            if let Some(r) = rank {
                out.push(r.char());
            }
            if capture {
                out.push('x');
            }
            out.push(to.file().char());
            out.push(to.rank().char());
            if let Some(p) = promotion {
                out.push('=');
                piece(p, out);
            }
        }
        other => other.append_to_string(out),
    }
    if let Some(s) = plus.suffix {
        out.push(s.char());
    }
}

/// Appends the canonical SAN of `mv` in `pos` when the caller already holds
/// `after`, the position after the move: saves playing it again.
pub fn write_san_given_after(pos: &Chess, mv: PlyMove, after: &Chess, out: &mut String) {
    match mv {
        PlyMove::Null => out.push_str("--"),
        PlyMove::Move(m) => {
            San::from_move(pos, m).append_to_string(out);
            if let Some(suffix) = Suffix::from_position(after) {
                out.push(suffix.char());
            }
        }
    }
}

/// A move's text without its suffix annotation, and the annotation's NAG
/// (`!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6); `None` when the `!`/`?`
/// run at its end is none of those.
pub fn split_annotation(text: &[u8]) -> Option<(&[u8], Option<u8>)> {
    let mut end = text.len();
    while end > 0 && matches!(text[end - 1], b'!' | b'?') {
        end -= 1;
    }
    let nag = match &text[end..] {
        b"" => None,
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => return None,
    };
    Some((&text[..end], nag))
}

/// Whether a whole token is an en-passant mark (`e.p.`, `ep`), as some files
/// write after the capture with a space: `exd6 e.p.`. Movetext readers can
/// skip such a token.
pub fn is_en_passant_mark(token: &[u8]) -> bool {
    matches!(token, b"e.p." | b"e.p" | b"ep" | b"E.P." | b"EP")
}

/// Whether `pos` is the side-to-move's checkmate (re-exported convenience).
pub fn is_checkmate(pos: &Chess) -> bool {
    pos.is_checkmate()
}

/// The check mark a move that leads to `after` should carry.
pub fn check_suffix(after: &Chess) -> Option<Suffix> {
    Suffix::from_position(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::read_fen;

    /// The hot path agrees with the general reader on every text it takes,
    /// and takes every canonical SAN (random games, random texts).
    #[test]
    fn canonical_path_agrees_with_general_reader() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut below = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as usize % n
        };
        let opts = ReadOptions::default();
        let (mut taken, mut canonical) = (0, 0);
        for _game in 0..20 {
            let mut pos = Chess::default();
            for _ply in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    let text = write_san(&pos, PlyMove::Move(m));
                    let read = read_canonical::<true, _>(&pos, text.as_bytes());
                    assert_eq!(read.map(|r| r.mv), Some(PlyMove::Move(m)), "{text}");
                    canonical += 1;
                }
                for _ in 0..300 {
                    let mut text = String::new();
                    text.push_str(["", "N", "B", "R", "Q", "K", "O-O", "O-O-O"][below(8)]);
                    if text.len() < 3 {
                        if below(3) == 0 {
                            text.push((b'a' + below(8) as u8) as char);
                        }
                        if below(4) == 0 {
                            text.push((b'1' + below(8) as u8) as char);
                        }
                        if below(3) == 0 {
                            text.push('x');
                        }
                        text.push((b'a' + below(8) as u8) as char);
                        text.push((b'1' + below(8) as u8) as char);
                        text.push_str(["", "", "", "=Q", "=N", "=K", "=P"][below(7)]);
                    }
                    text.push_str(["", "", "+", "#", "++"][below(5)]);
                    text.push_str(["", "", "!", "?", "!!", "??", "!?", "?!", "?!?"][below(9)]);
                    if let Some(fast) = read_canonical::<true, _>(&pos, text.as_bytes()) {
                        assert_eq!(
                            Ok(fast),
                            read_san_general(&pos, text.as_bytes(), &opts),
                            "{text} in {}",
                            crate::fen::write_fen(&pos, shakmaty::CastlingMode::Standard)
                        );
                        taken += 1;
                    }
                }
                pos.play_unchecked(moves[below(moves.len())]);
            }
        }
        assert!(taken > 1_000 && canonical > 10_000, "{taken} {canonical}");
    }

    fn pos(fen: &str) -> Chess {
        read_fen(fen).expect(fen).0
    }

    fn read(fen: &str, text: &str) -> Result<ReadMove, SanError> {
        read_san(&pos(fen), text.as_bytes(), &ReadOptions::default())
    }

    /// Reads `text` and returns the canonical SAN of the move found.
    fn canon(fen: &str, text: &str) -> String {
        let p = pos(fen);
        let rm = read_san(&p, text.as_bytes(), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        write_san(&p, rm.mv)
    }

    fn canon_with(fen: &str, text: &str, opts: &ReadOptions) -> String {
        let p = pos(fen);
        let rm = read_san(&p, text.as_bytes(), opts).unwrap_or_else(|e| panic!("{text}: {e}"));
        write_san(&p, rm.mv)
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn all_san(fen: &str) -> Vec<String> {
        let p = pos(fen);
        let mut v: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|m| write_san(&p, PlyMove::Move(*m)))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn standard_pinned_knight_example() {
        // Knights c3 and g1, king e1, black bishop b4 pins c3: Ne2, not Nge2.
        let fen = "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1";
        let moves = all_san(fen);
        assert!(moves.contains(&"Ne2".to_string()), "{moves:?}");
        assert!(!moves.iter().any(|m| m.starts_with("Nc") || m == "Nge2"));
        // Without the pin both knights reach e2: file disambiguation.
        let moves = all_san("4k3/8/8/8/8/2N5/8/4K1N1 w - - 0 1");
        assert!(moves.contains(&"Nce2".to_string()) && moves.contains(&"Nge2".to_string()));
        // Reading over-disambiguated Nge2 in the pinned position still works.
        let rm = read(fen, "Nge2").unwrap();
        assert!(rm.tolerated.contains(Tolerated::DISAMBIGUATION));
        assert_eq!(canon(fen, "Nge2"), "Ne2");
    }

    #[test]
    fn disambiguation_steps() {
        // Step 1, file: rooks a1 and h1 both reach d1.
        let moves = all_san("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert!(moves.contains(&"Rad1".into()) && moves.contains(&"Rhd1".into()));
        // Step 2, rank: rooks a1 and a5 on one file reach a3.
        let moves = all_san("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
        assert!(moves.contains(&"R1a3".into()) && moves.contains(&"R5a3".into()));
        // Step 3, square: queens a1, a3 and c1 all reach b2; a1 needs file and rank.
        let moves = all_san("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1");
        assert!(moves.contains(&"Qa1b2".into()), "{moves:?}");
        assert!(
            moves.contains(&"Q3b2".into()) && moves.contains(&"Qcb2".into()),
            "{moves:?}"
        );
        // Reading each back.
        for m in ["Qa1b2", "Q3b2", "Qcb2", "Rad1", "Rhd1"] {
            let fen = if m.starts_with('Q') {
                "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1"
            } else {
                "4k3/8/8/8/8/8/4K3/R6R w - - 0 1"
            };
            assert_eq!(canon(fen, m), m);
        }
        // Under-disambiguated is ambiguous and names the candidates.
        let e = read("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "Rd1").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Ambiguous);
        assert_eq!(e.candidates, vec!["Rad1", "Rhd1"]);
        assert!(e.message.contains("4k3/8/8/8/8/8/4K3/R6R w - - 0 1"), "{e}");
        assert!(e.message.contains("`Rd1`"), "{e}");
    }

    #[test]
    fn promotions_with_capture_and_check() {
        let fen = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        let moves = all_san(fen);
        for m in ["axb8=Q+", "axb8=R+", "axb8=B", "axb8=N", "a8=Q", "a8=N"] {
            assert!(moves.contains(&m.to_string()), "{m} {moves:?}");
        }
        assert_eq!(canon(fen, "axb8=Q+"), "axb8=Q+");
        assert_eq!(canon(fen, "axb8Q"), "axb8=Q+");
        assert_eq!(canon(fen, "axb8=q"), "axb8=Q+");
        assert_eq!(canon(fen, "axb8(Q)"), "axb8=Q+");
        assert_eq!(canon(fen, "axb8/Q"), "axb8=Q+");
        assert_eq!(canon(fen, "a7b8q"), "axb8=Q+");
        assert_eq!(canon(fen, "a7xb8=N"), "axb8=N");
        assert_eq!(canon(fen, "a8N"), "a8=N");
        assert_eq!(canon(fen, "ab8=R"), "axb8=R+");
        let e = read(fen, "a8").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
    }

    #[test]
    fn castling_giving_check_and_mate() {
        // O-O puts the rook on f1, checking the king on f8.
        let fen = "5k2/8/8/8/8/8/8/4K2R w K - 0 1";
        assert!(all_san(fen).contains(&"O-O+".to_string()));
        assert_eq!(canon(fen, "O-O"), "O-O+");
        assert_eq!(canon(fen, "0-0"), "O-O+");
        assert_eq!(canon(fen, "0-0+"), "O-O+");
        assert_eq!(canon(fen, "e1g1"), "O-O+");
        // A wrong mark is accepted and reported back as written.
        let rm = read(fen, "O-O#").unwrap();
        assert_eq!(rm.check, Some(Suffix::Checkmate));
        // O-O-O puts the rook on d1, checking the king on d8.
        let fen = "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1";
        assert_eq!(canon(fen, "0-0-0"), "O-O-O+");
        assert_eq!(canon(fen, "O-O-O"), "O-O-O+");
        // Castling mate: the king on f8 is walled in by its own rooks and pawns.
        let fen = "4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1";
        assert!(all_san(fen).contains(&"O-O#".to_string()));
        assert_eq!(canon(fen, "O-O"), "O-O#");
        // Chess960: king b1, rook a1 (X-FEN `A`... written `Q`).
        let fen = "1k6/8/8/8/8/8/8/RK6 w Q - 0 1";
        assert!(
            all_san(fen).contains(&"O-O-O".to_string()),
            "{:?}",
            all_san(fen)
        );
        let e = read("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "O-O").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
    }

    #[test]
    fn mate_and_check_marks() {
        // Scholar's mate.
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
        assert_eq!(canon(fen, "Qxf7"), "Qxf7#");
        assert_eq!(canon(fen, "Qxf7+"), "Qxf7#");
        assert_eq!(canon(fen, "Qf7"), "Qxf7#");
        assert_eq!(canon(fen, "Qh5xf7#"), "Qxf7#");
        assert_eq!(read(fen, "Qxf7+").unwrap().check, Some(Suffix::Check));
        assert_eq!(read(fen, "Qxf7").unwrap().check, None);
        let after = {
            let mut p = pos(fen);
            p.play_unchecked(read(fen, "Qxf7").unwrap().mv_move());
            p
        };
        assert_eq!(check_suffix(&after), Some(Suffix::Checkmate));
    }

    impl ReadMove {
        fn mv_move(self) -> Move {
            match self.mv {
                PlyMove::Move(m) => m,
                PlyMove::Null => panic!("null"),
            }
        }
    }

    #[test]
    fn en_passant_has_no_mark_but_reads_one() {
        let fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
        assert!(all_san(fen).contains(&"exd6".to_string()));
        for t in [
            "exd6",
            "exd6e.p.",
            "exd6ep",
            "exd6 e.p.",
            "ed6",
            "e5d6",
            "e5xd6",
            "exd6e.p.+",
        ] {
            let rm = read(fen, t).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert!(rm.mv_move().is_en_passant(), "{t}");
        }
        assert!(
            read(fen, "exd6e.p.")
                .unwrap()
                .tolerated
                .contains(Tolerated::EN_PASSANT_MARK)
        );
    }

    #[test]
    fn tolerant_forms() {
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        for (text, want, flag) in [
            ("Nf3", "Nf3", Tolerated::NONE),
            ("nf3", "Nf3", Tolerated::CASE),
            ("Ng1f3", "Nf3", Tolerated::LONG_FORM),
            ("Ng1-f3", "Nf3", Tolerated::LONG_FORM),
            ("Ng1xf3", "Nf3", Tolerated::CAPTURE_MARK),
            ("Nxf3", "Nf3", Tolerated::CAPTURE_MARK),
            ("Ngf3", "Nf3", Tolerated::DISAMBIGUATION),
            ("g1f3", "Nf3", Tolerated::LONG_FORM),
            ("e2e4", "e4", Tolerated::LONG_FORM),
            ("e2-e4", "e4", Tolerated::LONG_FORM),
            ("Pe4", "e4", Tolerated::PAWN_LETTER),
            ("Pe2-e4", "e4", Tolerated::PAWN_LETTER),
            ("E4", "e4", Tolerated::CASE),
            ("Nf3!", "Nf3", Tolerated::NONE),
            ("Nf3+", "Nf3", Tolerated::NONE),
            ("Nf3#", "Nf3", Tolerated::NONE),
            ("\u{2658}f3", "Nf3", Tolerated::FIGURINES),
            ("\u{265E}f3", "Nf3", Tolerated::FIGURINES),
        ] {
            let p = pos(START);
            let rm = read_san(&p, text.as_bytes(), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(write_san(&p, rm.mv), want, "{text}");
            assert!(rm.tolerated.contains(flag), "{text}: {:?}", rm.tolerated);
            if flag == Tolerated::NONE {
                assert!(rm.tolerated.is_empty(), "{text}: {}", rm.tolerated);
            }
        }
        let _ = after_e4;
        // Superfluous x on a pawn push, missing x on a pawn capture.
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        assert_eq!(canon(fen, "ed5"), "exd5");
        assert_eq!(canon(fen, "e4d5"), "exd5");
        assert_eq!(canon(fen, "exe5"), "e5");
        assert_eq!(canon(fen, "e4:d5"), "exd5");
    }

    #[test]
    fn pawn_or_bishop_by_legality() {
        // b2 pawn can take c3; the bishop cannot reach c3: pawn.
        let fen = "4k3/8/8/8/8/2n5/1P6/4KB2 w - - 0 1";
        assert_eq!(canon(fen, "bxc3"), "bxc3");
        // No pawn on b2, bishop d2... b-file pawn absent: lower-case b is the bishop.
        let fen = "4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1";
        assert_eq!(canon(fen, "bxc3"), "Bxc3");
        assert!(
            read(fen, "bxc3")
                .unwrap()
                .tolerated
                .contains(Tolerated::CASE)
        );
        // Both legal: canonical reading (the pawn) wins.
        let fen = "4k3/8/8/8/8/2n5/1P1B4/4K3 w - - 0 1";
        assert_eq!(canon(fen, "bxc3"), "bxc3");
        assert_eq!(canon(fen, "Bxc3"), "Bxc3");
    }

    #[test]
    fn annotations_become_nags() {
        for (s, nag) in [
            ("!", 1),
            ("?", 2),
            ("!!", 3),
            ("??", 4),
            ("!?", 5),
            ("?!", 6),
        ] {
            let rm = read(START, &format!("e4{s}")).unwrap();
            assert_eq!(rm.nag, Some(nag));
            let rm = read(START, &format!("e2-e4{s}")).unwrap();
            assert_eq!(rm.nag, Some(nag));
        }
        // A wrong check mark is reported back, never used to decide.
        let rm = read(START, "Nf3+!?").unwrap();
        assert_eq!((rm.nag, rm.check), (Some(5), Some(Suffix::Check)));
        let fen = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1";
        let rm = read(fen, "Ra8+!?").unwrap();
        assert_eq!((rm.nag, rm.check), (Some(5), Some(Suffix::Check)));
        let e = read(START, "e4!!!").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Syntax);
    }

    #[test]
    fn untolerated_means_canonical() {
        let fen = "1r2k3/P7/8/8/8/8/8/4K1N1 w - - 0 1";
        for (text, canonical) in [
            ("axb8=Q", true),
            ("axb8=q", false),
            ("xb8=Q", false),
            ("Ng1f3", false),
            ("N1f3", false),
            ("Nf3", true),
            ("aa8=Q", false),
        ] {
            let p = pos(fen);
            let rm = read_san(&p, text.as_bytes(), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(
                rm.tolerated.is_empty(),
                canonical,
                "{text}: {}",
                rm.tolerated
            );
            let mut a = String::new();
            let mut b = String::new();
            write_san_to(&p, rm.mv, &mut a);
            let mut after = p.clone();
            after.play_unchecked(rm.mv_move());
            write_san_given_after(&p, rm.mv, &after, &mut b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn en_passant_mark_tokens() {
        assert!(is_en_passant_mark(b"e.p.") && is_en_passant_mark(b"ep"));
        assert!(!is_en_passant_mark(b"e4"));
    }

    #[test]
    fn null_moves() {
        for t in ["--", "Z0", "0000"] {
            assert_eq!(read(START, t).unwrap().mv, PlyMove::Null, "{t}");
        }
        let e = read("4k3/8/8/8/8/8/8/4K2r w - - 0 1", "--").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
        assert_eq!(write_san(&pos(START), PlyMove::Null), "--");
        // Fuzz finding: an `e.p.` mark after a null move is a tolerated
        // oddity, not canonical text.
        let odd = read(START, "--  e.p.").unwrap();
        assert_eq!(odd.mv, PlyMove::Null);
        assert!(odd.tolerated.contains(Tolerated::EN_PASSANT_MARK));
        assert!(read(START, "--").unwrap().tolerated.is_empty());
    }

    #[test]
    fn foreign_letters_and_figurines() {
        let german = ReadOptions {
            languages: Languages::only(Language::German),
            ..ReadOptions::default()
        };
        assert_eq!(canon_with(START, "Sf3", &german), "Nf3");
        assert_eq!(canon_with(START, "e4", &german), "e4");
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        assert_eq!(canon_with(fen, "Lb5", &german), "Bb5");
        let french = ReadOptions {
            languages: Languages::ENGLISH.with(Language::French),
            ..ReadOptions::default()
        };
        assert_eq!(canon_with(START, "Cf3", &french), "Nf3");
        assert_eq!(canon_with(START, "Nf3", &french), "Nf3");
        assert!(read(START, "Sf3").is_err());
        let no_fig = ReadOptions {
            figurines: false,
            ..ReadOptions::default()
        };
        assert!(read_san(&pos(START), "\u{2658}f3".as_bytes(), &no_fig).is_err());
        // Every language's knight letter reads Nf3 when that language is on.
        for lang in Language::ALL {
            let opts = ReadOptions {
                languages: Languages::only(lang),
                figurines: false,
            };
            let text = format!("{}f3", char::from(lang.letter(Role::Knight)));
            assert_eq!(canon_with(START, &text, &opts), "Nf3", "{lang:?}");
            assert_eq!(Language::from_name(lang.name()), Some(lang));
        }
    }

    #[test]
    fn writing_with_options() {
        let fen = "1r2k3/P7/8/8/8/8/8/4K1N1 w - - 0 1";
        let p = pos(fen);
        let m = read(fen, "axb8=Q").unwrap().mv;
        let mut s = String::new();
        write_san_with(
            &p,
            m,
            &WriteOptions {
                language: Language::German,
                figurines: false,
            },
            &mut s,
        );
        assert_eq!(s, "axb8=D+");
        s.clear();
        write_san_with(
            &p,
            m,
            &WriteOptions {
                language: Language::English,
                figurines: true,
            },
            &mut s,
        );
        assert_eq!(s, "axb8=\u{2655}+");
        let m = read(fen, "Nf3").unwrap().mv;
        s.clear();
        write_san_with(
            &p,
            m,
            &WriteOptions {
                language: Language::French,
                figurines: false,
            },
            &mut s,
        );
        assert_eq!(s, "Cf3");
        // Black figurines for Black's moves.
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        let m = read_san(&p, b"Nf6", &ReadOptions::default()).unwrap().mv;
        s.clear();
        write_san_with(
            &p,
            m,
            &WriteOptions {
                language: Language::English,
                figurines: true,
            },
            &mut s,
        );
        assert_eq!(s, "\u{265E}f6");
    }

    #[test]
    fn syntax_errors_are_distinct() {
        let long = "!?".repeat(50_000);
        for t in [
            long.as_str(),
            "",
            "hello",
            "Nz9",
            "e9",
            "Nf3Nf3Nf3Nf3",
            "O-O-O-O",
            "x",
            "\u{2603}",
        ] {
            let e = read(START, t).unwrap_err();
            assert_eq!(e.kind, SanErrorKind::Syntax, "{t}: {e}");
        }
        let e = read(START, "Nf4").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
        assert!(e.message.contains(START), "{e}");
        let e = read(START, "e5").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
        assert!(e.message.contains("no legal move goes to e5"), "{e}");
        let e = read(START, "Ne4").unwrap_err();
        assert_eq!(e.kind, SanErrorKind::Illegal);
    }
}
