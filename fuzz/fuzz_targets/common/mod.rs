//! What several fuzz targets share.

use gamerec::shakmaty::uci::UciMove;
use gamerec::shakmaty::{Chess, Position};

/// The positions after each line of UCI moves from the start (fixed,
/// legal lines of a target).
pub fn play_lines(lines: &[&str]) -> Vec<Chess> {
    lines
        .iter()
        .map(|line| {
            let mut pos = Chess::default();
            for m in line.split_whitespace() {
                let mv = m
                    .parse::<UciMove>()
                    .expect("fixed move")
                    .to_move(&pos)
                    .expect("legal fixed move");
                pos.play_unchecked(mv);
            }
            pos
        })
        .collect()
}
