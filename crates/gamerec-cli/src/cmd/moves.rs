//! `gamerec moves` (legal moves of FENs in SAN) and `gamerec show` (a FEN as
//! a board).

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use gamerec::fen::read_fen;
use gamerec::model::PlyMove;
use gamerec::san::{Language, WriteOptions, write_san_with};
use gamerec::shakmaty::{Color, EnPassantMode, File, Position, Rank, Square};

const MOVES_EXAMPLES: &str = "\
Examples:
  gamerec moves 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
      prints: a3 a4 b3 b4 ... Na3 Nc3 Nf3 Nh3 (20 moves)
  printf '%s\\n' \"$FEN1\" \"$FEN2\" | gamerec moves     one output line per input line
  gamerec moves --language german --figurines FEN";

/// Arguments of `gamerec moves`.
#[derive(Args)]
#[command(after_help = MOVES_EXAMPLES)]
pub struct MovesArgs {
    /// FEN positions (each one argument, quoted); when none are given, one
    /// FEN per line is read from stdin.
    #[arg(value_name = "FEN")]
    fens: Vec<String>,
    /// Piece letters of this language (section 17 of the PGN standard:
    /// english, german, french, ...).
    #[arg(long, default_value = "english", value_parser = parse_language)]
    language: Language,
    /// Write FAN figurines instead of piece letters.
    #[arg(long)]
    figurines: bool,
}

fn parse_language(name: &str) -> Result<Language, String> {
    Language::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
        format!("unknown language `{name}`; one of: {}", names.join(", "))
    })
}

/// For each FEN, one line with all legal moves in SAN separated by single
/// spaces. A bad FEN prints its error to stderr and an empty line to
/// stdout; the exit code is then 1.
pub fn run_moves(args: MovesArgs) -> anyhow::Result<ExitCode> {
    let opts = WriteOptions {
        language: args.language,
        figurines: args.figurines,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut line = String::new();
    let mut failed = false;
    let mut one = |what: &str, fen: &str, out: &mut BufWriter<io::StdoutLock<'_>>| {
        line.clear();
        match read_fen(fen) {
            Ok((pos, _)) => {
                for (i, m) in pos.legal_moves().iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    write_san_with(&pos, PlyMove::Move(*m), &opts, &mut line);
                }
            }
            Err(err) => {
                eprintln!("gamerec moves: {what}: {err}");
                failed = true;
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())
    };
    if args.fens.is_empty() {
        let stdin = io::stdin();
        for (n, text) in stdin.lock().lines().enumerate() {
            let text = text.context("reading stdin")?;
            one(&format!("line {}", n + 1), &text, &mut out)?;
        }
    } else {
        for (n, fen) in args.fens.iter().enumerate() {
            one(&format!("argument {}", n + 1), fen, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `gamerec show FEN`: draws the board with coordinates and the side to
/// move; exit code 1 for a bad FEN.
pub fn show_fen(fen: &str, flip: bool, ascii: bool) -> anyhow::Result<u8> {
    let pos = match read_fen(fen) {
        Ok((pos, _)) => pos,
        Err(err) => {
            eprintln!("gamerec show: {err}");
            return Ok(1);
        }
    };
    let text = board_diagram(&pos, flip, ascii);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(0)
}

/// The board as text: ranks with their digits, files below, then the side to
/// move and the other FEN fields.
pub fn board_diagram<P: Position>(pos: &P, flip: bool, ascii: bool) -> String {
    let mut s = String::new();
    let ranks: Vec<Rank> = if flip {
        Rank::ALL.to_vec()
    } else {
        Rank::ALL.iter().rev().copied().collect()
    };
    let files: Vec<File> = if flip {
        File::ALL.iter().rev().copied().collect()
    } else {
        File::ALL.to_vec()
    };
    for &rank in &ranks {
        s.push(rank.char());
        for &file in &files {
            s.push(' ');
            let sq = Square::from_coords(file, rank);
            s.push(match pos.board().piece_at(sq) {
                Some(piece) if ascii => piece.char(),
                Some(piece) => gamerec::san::figurine(piece.color, piece.role),
                None if ascii => '.',
                None => '\u{00B7}',
            });
        }
        s.push('\n');
    }
    s.push(' ');
    for &file in &files {
        s.push(' ');
        s.push(file.char());
    }
    s.push('\n');
    let side = match pos.turn() {
        Color::White => "White",
        Color::Black => "Black",
    };
    let status = if pos.is_checkmate() {
        " (checkmated)"
    } else if pos.is_stalemate() {
        " (stalemate)"
    } else if pos.is_check() {
        " (in check)"
    } else {
        ""
    };
    s.push_str(&format!("{side} to move{status}\n"));
    let fen = shakmaty::fen::Fen::from_position(pos, EnPassantMode::Always).to_string();
    let fields: Vec<&str> = fen.split(' ').collect();
    if let [_, _, castling, ep, half, full] = fields[..] {
        s.push_str(&format!(
            "castling {castling}, en passant {ep}, halfmove clock {half}, move {full}\n"
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamerec::shakmaty::Chess;

    #[test]
    fn diagram_of_the_start_position() {
        let d = board_diagram(&Chess::default(), false, true);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8 r n b q k b n r");
        assert_eq!(lines[7], "1 R N B Q K B N R");
        assert_eq!(lines[8], "  a b c d e f g h");
        assert_eq!(lines[9], "White to move");
        let d = board_diagram(&Chess::default(), true, false);
        assert!(d.starts_with("1 \u{2656} \u{2658}"), "{d}");
        assert!(d.contains("  h g f e d c b a"));
    }
}
