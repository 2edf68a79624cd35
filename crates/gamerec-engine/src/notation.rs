//! Lenient move reading for engine output: UCI, SAN, long algebraic
//! (`Qh5xf7`, `e2-e4`, `e7e8=Q`), with move numbers and annotations skipped.

use gamerec::model::PlyMove;
use gamerec::san::{ReadMove, ReadOptions, read_san};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// Reads one move token from engine output in `pos`: whatever the project's
/// tolerant SAN reader accepts (UCI, SAN, long algebraic, `0-0`, missing or
/// extra `x`, annotations). Null moves and unreadable tokens give `None`.
pub fn read_engine_move(pos: &Chess, token: &str) -> Option<Move> {
    if token.is_empty() || token.len() > 16 {
        return None;
    }
    match read_san(pos, token.as_bytes(), &ReadOptions::default()) {
        Ok(ReadMove {
            mv: PlyMove::Move(m),
            ..
        }) => Some(m),
        _ => None,
    }
}

/// Reads a principal variation from free text: skips move numbers
/// (`4.`, `4...`) and leading non-move tokens, stops at the first token
/// that is not a legal move once the line has started.
pub fn read_engine_pv<'a>(pos: &Chess, tokens: impl IntoIterator<Item = &'a str>) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut p = pos.clone();
    for tok in tokens {
        let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if tok.is_empty() {
            continue;
        }
        match read_engine_move(&p, tok) {
            Some(m) => {
                p.play_unchecked(m);
                pv.push(m);
            }
            None if pv.is_empty() => continue,
            None => break,
        }
    }
    pv
}

/// Parses a UCI move sequence strictly (stops at the first illegal move).
pub fn read_uci_pv<'a>(pos: &Chess, tokens: impl IntoIterator<Item = &'a str>) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut p = pos.clone();
    for tok in tokens {
        match tok.parse::<UciMove>().ok().and_then(|u| u.to_move(&p).ok()) {
            Some(m) => {
                p.play_unchecked(m);
                pv.push(m);
            }
            None => break,
        }
    }
    pv
}

/// A move in UCI/coordinate notation (`e1g1` for standard castling).
pub fn uci(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// Plays `moves` from `start`, failing at the first illegal one.
pub fn play_line(start: &Chess, moves: &[Move]) -> Result<Chess, String> {
    let mut pos = start.clone();
    for (i, &m) in moves.iter().enumerate() {
        if !pos.is_legal(m) {
            return Err(format!("move {} ({m}) is illegal", i + 1));
        }
        pos.play_unchecked(m);
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn reads_many_spellings() {
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
        for t in ["h5f7", "Qxf7#", "Qh5xf7", "Qh5-f7", "Qf7", "Qxf7+!"] {
            let m = read_engine_move(&p, t).unwrap_or_else(|| panic!("{t}"));
            assert_eq!(uci(m, CastlingMode::Standard), "h5f7", "{t}");
        }
        assert!(read_engine_move(&p, "Qxf8").is_none());
        assert!(read_engine_move(&p, "(+)").is_none());
        let c = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(
            uci(read_engine_move(&c, "0-0").unwrap(), CastlingMode::Standard),
            "e1g1"
        );
        assert_eq!(
            uci(
                read_engine_move(&c, "e1c1").unwrap(),
                CastlingMode::Standard
            ),
            "e1c1"
        );
        let promo = pos("8/4P3/8/8/8/8/k7/7K w - - 0 1");
        assert_eq!(
            uci(
                read_engine_move(&promo, "e7-e8=N").unwrap(),
                CastlingMode::Standard
            ),
            "e7e8n"
        );
    }

    #[test]
    fn reads_pv_with_numbers_and_junk() {
        let p = Chess::default();
        let pv = read_engine_pv(&p, "(+) 1. e4 e5 2. Nf3 Nc6 {junk} Nf3".split_whitespace());
        assert_eq!(pv.len(), 4);
        let pv = read_engine_pv(&p, "1... e2-e4 e7e5 Ng1-f3".split_whitespace());
        assert_eq!(pv.len(), 3);
    }
}
