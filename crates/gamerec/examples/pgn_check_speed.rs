//! The single-threaded core of `gamerec check` on PGN, in process: every
//! game of a file read with the slice reader and checked (each move
//! resolved and played), REPEAT times, for comparing builds with a
//! whole-process timer.
//!
//! ```text
//! cargo run --profile quick-release -p gamerec --example pgn_check_speed -- FILE [REPEAT]
//! ```

use gamerec::pgn::{Checker, SliceReader};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: pgn_check_speed FILE [REPEAT]");
    let repeat: usize = args.next().map_or(1, |s| s.parse().expect("REPEAT"));
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut games = 0u64;
    for _ in 0..repeat {
        let mut reader = SliceReader::new(&data);
        let mut checker = Checker::default();
        while reader.read_game(&mut checker).is_some() {
            games += 1;
        }
    }
    println!("{games} games");
}
