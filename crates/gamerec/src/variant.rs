//! Lichess's chess variants (the `Variant` tag): the one name mapping, start
//! positions from variant FENs (Crazyhouse pockets `[..]`, Three-check
//! counters `3+3`, Horde without a white king), moves read and played by the
//! variant's rules (Crazyhouse drops `N@f3`), and SAN written as
//! python-chess writes it. Every reader of the library plays a variant game
//! through [`VariantLine`]; standard chess and Chess960 never come here
//! (they stay on the monomorphic [`shakmaty::Chess`] path).

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
pub use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, Chess, FromSetup, KnownOutcome, Move, Outcome, Position};

use crate::diag::Code;
use crate::excerpt::excerpt;

/// Whether a `Variant` tag value names Chess960 (any letter case).
pub fn names_chess960(variant: &str) -> bool {
    matches!(
        variant.trim().to_ascii_lowercase().as_str(),
        "chess960" | "chess 960" | "fischerandom" | "fischerrandom" | "fischer random"
    )
}

/// The rules a `Variant` tag value names, by lichess's and python-chess's
/// names (any letter case): `Ok(None)` for standard chess and Chess960 (read
/// by the library's own rules), `Ok(Some(..))` for a lichess variant,
/// `Err(())` for anything else (such games are not supported).
#[allow(clippy::result_unit_err)]
pub fn variant_of(tag: &str) -> Result<Option<Variant>, ()> {
    let name = tag.trim().to_ascii_lowercase();
    if names_chess960(&name) {
        return Ok(None);
    }
    Ok(Some(match name.as_str() {
        "" | "standard" | "chess" | "classical" | "normal" | "illegal" | "from position"
        | "fromposition" => return Ok(None),
        "crazyhouse" | "crazy house" | "house" | "zh" => Variant::Crazyhouse,
        "atomic" | "atom" | "atomic chess" => Variant::Atomic,
        "antichess" | "anti chess" | "anti" => Variant::Antichess,
        "king of the hill" | "kingofthehill" | "koth" => Variant::KingOfTheHill,
        "three-check" | "three check" | "threecheck" | "three check chess" | "3-check"
        | "3 check" | "3check" => Variant::ThreeCheck,
        "racing kings" | "racingkings" | "racing" | "race" => Variant::RacingKings,
        "horde" | "horde chess" => Variant::Horde,
        _ => return Err(()),
    }))
}

/// [`variant_of`] over a raw tag value (not UTF-8: not supported).
#[allow(clippy::result_unit_err)]
pub fn variant_of_bytes(tag: &[u8]) -> Result<Option<Variant>, ()> {
    std::str::from_utf8(tag)
        .map_err(|_| ())
        .and_then(variant_of)
}

/// The lichess name of a variant, as its `Variant` tag spells it.
pub fn lichess_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Chess => "Standard",
        Variant::Atomic => "Atomic",
        Variant::Antichess => "Antichess",
        Variant::KingOfTheHill => "King of the Hill",
        Variant::ThreeCheck => "Three-check",
        Variant::Crazyhouse => "Crazyhouse",
        Variant::RacingKings => "Racing Kings",
        Variant::Horde => "Horde",
    }
}

/// The diagnostic of a game whose `Variant` tag names rules the library
/// does not play: code [`Code::UnsupportedVariant`], `variant X is not
/// supported`.
pub fn unsupported(value: &[u8]) -> (Code, String) {
    (
        Code::UnsupportedVariant,
        format!("variant {} is not supported", excerpt(value)),
    )
}

/// The start position of a `variant` game: its `FEN` tag read by the
/// variant's rules (pockets, check counters), else the variant's own.
pub fn start_position(variant: Variant, fen: Option<&[u8]>) -> Result<VariantPosition, String> {
    let Some(fen) = fen else {
        return Ok(VariantPosition::new(variant));
    };
    let fen = Fen::from_ascii(fen.trim_ascii()).map_err(|e| e.to_string())?;
    let setup = fen.into_setup();
    let mode = CastlingMode::detect(&setup);
    VariantPosition::from_setup(variant, setup, mode).map_err(|e| e.to_string())
}

/// A standard-chess stand-in for a variant position, for what only needs
/// the side to move and the move numbers (the model's `Game::start`): the
/// same position when standard chess allows it, else the standard start
/// with the variant position's turn and counters.
pub fn stand_in(pos: &VariantPosition) -> Chess {
    let setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
    let mode = pos.castles().mode();
    match Chess::from_setup(setup.clone(), mode) {
        Ok(chess) => return chess,
        Err(e) => {
            if let Ok(chess) = e.ignore_too_much_material() {
                return chess;
            }
        }
    }
    let mut start = Chess::default().to_setup(shakmaty::EnPassantMode::Legal);
    start.turn = setup.turn;
    start.fullmoves = setup.fullmoves;
    start.halfmoves = setup.halfmoves;
    Chess::from_setup(start, CastlingMode::Standard).unwrap_or_default()
}

/// Reads one move of a variant game: SAN (with drops, `N@f3`, `@d3`) and an
/// optional `!`/`?` suffix, whose NAG comes back too.
pub fn read_move(pos: &VariantPosition, text: &[u8]) -> Result<(Move, Option<u8>), (Code, String)> {
    let (core, nag) = crate::san::split_annotation(text).unwrap_or((text, None));
    let illegal = |code, e: &dyn std::fmt::Display| {
        let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        (
            code,
            format!(
                "illegal move {}: {e} in {} position {fen}",
                excerpt(text),
                pos.variant()
            ),
        )
    };
    let san = match SanPlus::from_ascii(core) {
        Ok(san) => san.san,
        Err(e) => return Err(illegal(Code::SanSyntax, &e)),
    };
    match san.to_move(pos) {
        Ok(m) => Ok((m, nag)),
        Err(e @ SanError::AmbiguousSan) => Err(illegal(Code::AmbiguousMove, &e)),
        Err(e) => Err(illegal(Code::IllegalMove, &e)),
    }
}

/// Plays a legal move of a variant game. A pawn dropped in Crazyhouse
/// does not reset the halfmove clock, as python-chess counts it (shakmaty
/// resets it), so the FENs agree with python-chess's.
pub fn play(pos: &mut VariantPosition, m: Move) {
    let halfmoves = pos.halfmoves();
    pos.play_unchecked(m);
    if let (VariantPosition::Crazyhouse(_), Move::Put { .. }) = (&*pos, m)
        && pos.halfmoves() != halfmoves + 1
    {
        let mode = pos.castles().mode();
        let mut setup = pos.to_setup(shakmaty::EnPassantMode::Always);
        setup.halfmoves = halfmoves + 1;
        if let Ok(again) = VariantPosition::from_setup(Variant::Crazyhouse, setup, mode) {
            *pos = again;
        }
    }
}

/// The check mark python-chess writes after a move that left `after`: `#`
/// after a checkmate and after any move that ends the game by the variant's
/// rules with a winner, `+` after a check.
pub fn suffix(after: &VariantPosition) -> Option<char> {
    let decisive = matches!(
        after.variant_outcome(),
        Outcome::Known(KnownOutcome::Decisive { .. })
    );
    if decisive || after.is_checkmate() {
        Some('#')
    } else if after.is_check() {
        Some('+')
    } else {
        None
    }
}

/// The canonical SAN of `m` played from `before` to `after`, with
/// [`suffix`], appended to `out`.
pub fn write_san_to(before: &VariantPosition, m: Move, after: &VariantPosition, out: &mut String) {
    San::from_move(before, m).append_to_string(out);
    out.extend(suffix(after));
}

/// The position of a variant game being read move by move, with the
/// positions variations go back to (each from the position before the move
/// it replaces).
#[derive(Debug, Clone)]
pub struct VariantLine {
    pos: VariantPosition,
    before: VariantPosition,
    stack: Vec<(VariantPosition, VariantPosition)>,
}

impl VariantLine {
    /// A game from `start`.
    pub fn new(start: VariantPosition) -> VariantLine {
        VariantLine {
            before: start.clone(),
            pos: start,
            stack: Vec::new(),
        }
    }

    /// The position before the next move.
    pub fn position(&self) -> &VariantPosition {
        &self.pos
    }

    /// The position before the last move played.
    pub fn before(&self) -> &VariantPosition {
        &self.before
    }

    /// Whether a variation is open.
    pub fn in_variation(&self) -> bool {
        !self.stack.is_empty()
    }

    /// Reads the next move ([`read_move`]).
    pub fn read(&self, text: &[u8]) -> Result<(Move, Option<u8>), (Code, String)> {
        read_move(&self.pos, text)
    }

    /// Plays a move read by [`VariantLine::read`].
    pub fn play(&mut self, m: Move) {
        self.before.clone_from(&self.pos);
        play(&mut self.pos, m);
    }

    /// Opens a variation: the next move replaces the last one.
    pub fn begin_variation(&mut self) {
        let pos = std::mem::replace(&mut self.pos, self.before.clone());
        self.stack.push((self.before.clone(), pos));
    }

    /// Closes the innermost variation.
    pub fn end_variation(&mut self) {
        if let Some((before, pos)) = self.stack.pop() {
            self.before = before;
            self.pos = pos;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_tags_name_lichess_variants_or_are_refused() {
        assert_eq!(variant_of("Standard"), Ok(None));
        assert_eq!(variant_of("From Position"), Ok(None));
        assert_eq!(variant_of("chess 960"), Ok(None));
        assert_eq!(variant_of("Crazyhouse"), Ok(Some(Variant::Crazyhouse)));
        assert_eq!(variant_of("ZH"), Ok(Some(Variant::Crazyhouse)));
        assert_eq!(
            variant_of("King of the Hill"),
            Ok(Some(Variant::KingOfTheHill))
        );
        assert_eq!(variant_of("Three-check"), Ok(Some(Variant::ThreeCheck)));
        assert_eq!(variant_of("3check"), Ok(Some(Variant::ThreeCheck)));
        assert_eq!(variant_of("Racing Kings"), Ok(Some(Variant::RacingKings)));
        assert_eq!(variant_of("antichess"), Ok(Some(Variant::Antichess)));
        assert_eq!(variant_of("Atomic"), Ok(Some(Variant::Atomic)));
        assert_eq!(variant_of("Horde"), Ok(Some(Variant::Horde)));
        assert_eq!(variant_of("Suicide"), Err(()));
        assert_eq!(variant_of("Shogi"), Err(()));
        for v in [
            Variant::Atomic,
            Variant::Antichess,
            Variant::KingOfTheHill,
            Variant::ThreeCheck,
            Variant::Crazyhouse,
            Variant::RacingKings,
            Variant::Horde,
        ] {
            assert_eq!(variant_of(lichess_name(v)), Ok(Some(v)));
        }
    }

    #[test]
    fn variant_fens_drops_and_game_ends() {
        let start = start_position(
            Variant::Crazyhouse,
            Some(b"r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR[Nn] w KQkq - 0 1"),
        )
        .unwrap();
        let mut line = VariantLine::new(start);
        let (m, nag) = line.read(b"N@f3!").unwrap();
        assert_eq!(nag, Some(1));
        let mut san = String::new();
        let before = line.position().clone();
        line.play(m);
        write_san_to(&before, m, line.position(), &mut san);
        assert_eq!(san, "N@f3");
        assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), "N@f3");
        // Three-check counters; Horde has no white king.
        assert!(
            start_position(
                Variant::ThreeCheck,
                Some(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1")
            )
            .is_ok()
        );
        let horde = start_position(Variant::Horde, None).unwrap();
        assert_eq!(stand_in(&horde).turn(), shakmaty::Color::White);
        // King of the Hill: a king reaching the centre wins, marked `#`.
        let koth = start_position(
            Variant::KingOfTheHill,
            Some(b"4k3/8/8/8/8/4K3/8/8 w - - 0 1"),
        )
        .unwrap();
        let mut line = VariantLine::new(koth);
        let (m, _) = line.read(b"Kd4").unwrap();
        let before = line.position().clone();
        line.play(m);
        let mut san = String::new();
        write_san_to(&before, m, line.position(), &mut san);
        assert_eq!(san, "Kd4#");
        // A standard-only move is refused as illegal, with the variant named.
        let anti = VariantLine::new(VariantPosition::new(Variant::Antichess));
        let (code, msg) = read_move(anti.position(), b"Ke2").unwrap_err();
        assert_eq!(code, Code::IllegalMove);
        assert!(msg.contains("antichess"), "{msg}");
        assert_eq!(
            unsupported(b"Shogi"),
            (
                Code::UnsupportedVariant,
                "variant Shogi is not supported".into()
            )
        );
    }
}
