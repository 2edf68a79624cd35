//! Position keys and the main-line replay shared by every matcher.

use gamerec::model::{Game, play_ply};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// The 64-bit Zobrist key of a position: placement, side to move, castling
/// rights and a legal en passant square (shakmaty's standard keys).
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Whether two positions are the same in the sense of the repetition rule.
pub fn same_position(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board()
        && a.turn() == b.turn()
        && a.castles().castling_rights() == b.castles().castling_rights()
        && a.ep_square(EnPassantMode::Legal) == b.ep_square(EnPassantMode::Legal)
}

/// Every position of the main line: the start (ply 0), then the position
/// after each ply. A null move in check (which the builder never produces)
/// ends the line. A lichess variant game ([`Game::variant`]) has no
/// standard-chess positions: none, so no standard position, FEN query or
/// index key ever matches it (its boards are [`variant_boards`]).
pub fn mainline(game: &Game) -> Vec<Chess> {
    if game.variant().is_some() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(game.tree.mainline_len() + 1);
    let mut pos = game.start.clone();
    out.push(pos.clone());
    for id in game.tree.mainline() {
        if let Some(ply) = &game.tree.node(id).ply {
            pos = play_ply(&pos, ply.mv);
            out.push(pos.clone());
        }
    }
    out
}

/// The boards of a lichess variant game's main line, start first, played
/// by its rules; `None` for a standard game.
pub fn variant_boards(game: &Game) -> Option<Vec<shakmaty::Board>> {
    Some(
        game.variant_mainline()?
            .into_iter()
            .map(|p| p.board().clone())
            .collect(),
    )
}

/// Reads a query position: a FEN, or an EPD's first four fields.
pub fn parse_query_fen(text: &str) -> Result<Chess, String> {
    let text = text.trim();
    let parsed = if text.split_whitespace().count() >= 5 {
        gamerec::fen::read_fen(text)
    } else {
        gamerec::fen::read_epd_position(text)
    };
    parsed
        .map(|(pos, _): (Chess, CastlingMode)| pos)
        .map_err(|e| format!("bad FEN {:?}: {e}", short(text)))
}

/// At most 60 characters of `text`, for messages.
pub fn short(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
