//! `gamerec moves` (legal moves of FENs in SAN) and `gamerec show` (a FEN as
//! a board).

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use gamerec::fen::{read_fen, read_fen_lines};
use gamerec::model::PlyMove;
use gamerec::san::{Language, WriteOptions, write_san_with};
use gamerec::shakmaty::{CastlingMode, Chess, Position};

const MOVES_EXAMPLES: &str = "\
Examples:
  gamerec moves 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
      prints: a3 a4 b3 b4 ... Na3 Nc3 Nf3 Nh3 (20 moves)
  printf '%s\\n' \"$FEN1\" \"$FEN2\" | gamerec moves     one output line per input line
  gamerec moves --language german --figurines FEN";

// Arguments of `gamerec moves`.
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
    let mut one = |what: &str,
                   position: Result<(Chess, CastlingMode), String>,
                   out: &mut BufWriter<io::StdoutLock<'_>>| {
        line.clear();
        match position {
            Ok((pos, _)) => {
                for (i, m) in pos.legal_moves().iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    write_san_with(&pos, PlyMove::Move(*m), &opts, &mut line);
                }
            }
            Err(err) => {
                gamerec::say!("gamerec moves: {what}: {err}");
                failed = true;
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())
    };
    if args.fens.is_empty() {
        // Line by line; a line that is not UTF-8 is reported like a bad FEN.
        for fen in read_fen_lines(io::stdin().lock()) {
            let fen = fen.context("reading stdin")?;
            one(&format!("line {}", fen.number), fen.position, &mut out)?;
        }
    } else {
        for (n, fen) in args.fens.iter().enumerate() {
            let position = read_fen(fen).map_err(|e| e.to_string());
            one(&format!("argument {}", n + 1), position, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
