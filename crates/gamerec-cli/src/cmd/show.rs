//! `gamerec show`: a FEN, a node of an SGF file, or a position of a chess
//! game file (any chess format) drawn as text in the terminal.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;
use gamerec::fen::read_fen;
use gamerec::shakmaty::{Color, EnPassantMode, File, Position, Rank, Square};

use crate::cmd::check::unsupported;
use crate::cmd::sgf;

// Arguments of `gamerec show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// A FEN (one quoted argument) or a game file (SGF or any chess format).
    #[arg(value_name = "FEN|FILE")]
    pub input: String,
    /// SGF: node to show: `57`, `57,2`, `game 2, main line move 10` (see README).
    #[arg(long)]
    pub node: Option<String>,
    /// Chess game files: the position after this many main-line plies
    /// (default: the end of the main line).
    #[arg(long)]
    pub ply: Option<usize>,
    /// Chess game files: which game (1-based, default 1).
    #[arg(long, default_value_t = 1)]
    pub game: u64,
    /// Read SGF input in this charset, overriding CA.
    #[arg(long)]
    pub charset: Option<String>,
    /// Chess: Black at the bottom.
    #[arg(long)]
    pub flip: bool,
    /// Chess: FEN letters instead of Unicode figurines.
    #[arg(long)]
    pub ascii: bool,
}

/// `gamerec show`: a FEN, a node of an SGF file, or a position of a chess
/// game file (any chess format).
pub fn show(a: &ShowArgs) -> Result<u8> {
    use gamerec::io::{Format as F, Input, ReadOptions, Reader, Record};
    let path = Path::new(&a.input);
    let input = if a.input == "-" {
        Input::stdin()
    } else if path.exists() {
        Input::file(path)
    } else {
        return show_fen(&a.input, a.flip, a.ascii);
    };
    let format = input.format();
    if format == Some(F::Sgf) || (format.is_none() && sgf::is_sgf(&a.input)) {
        let bytes = sgf::read_input(&a.input)?;
        let text = sgf::show_sgf(&a.input, &bytes, a.node.as_deref(), a.charset.as_deref())?;
        sgf::write_output(None, text.as_bytes())?;
        return Ok(0);
    }
    let Some(format) = format.or(Some(F::Pgn)).filter(|f| f.is_chess()) else {
        return Err(unsupported(&a.input));
    };
    let mut reader = Reader::open(&input, &ReadOptions::default())?;
    let mut found = None;
    // Messages as their games are done with (none held, however many).
    while let Some(item) = reader.next_reporting(&mut |d| gamerec::say!("{d}")) {
        let item = item?;
        if item.number == a.game {
            found = Some(item);
            break;
        }
    }
    let Some(item) = found else {
        anyhow::bail!(
            "{}: no {} {} (it holds {})",
            input.name,
            format.unit().0,
            a.game,
            format.count(reader.items_read())
        );
    };
    let game = match item.record {
        Record::Game(g) => g,
        Record::Position(r) => gamerec::epd::convert::record_to_game(&r).value,
    };
    let mut pos = game.start.clone();
    let mainline: Vec<_> = game.tree.mainline().collect();
    let plies = a.ply.unwrap_or(mainline.len());
    let variant = game.variant_mainline();
    if plies > mainline.len() {
        anyhow::bail!(
            "{}: game {} has {} plies; --ply {plies} is past its end",
            input.name,
            a.game,
            mainline.len()
        );
    }
    let mut last = None;
    for &node in &mainline[..plies] {
        if let Some(ply) = &game.tree.node(node).ply {
            if variant.is_none() {
                pos = gamerec::model::play_ply(&pos, ply.mv);
            }
            last = Some(ply.san.clone());
        }
    }
    let mut header = format!("{}: game {}, ply {plies}", input.name, a.game);
    for tag in ["White", "Black", "Event"] {
        if let Some(v) = game.tags.get(tag) {
            header.push_str(&format!(", {tag} {v}"));
        }
    }
    if let Some(san) = last {
        header.push_str(&format!(", after {san}"));
    }
    let mut out = io::stdout().lock();
    writeln!(out, "{}", gamerec::diag::escape_controls(&header))?;
    if let Some(positions) = variant {
        // A lichess variant's position, played by its rules.
        let Some(pos) = positions.get(plies) else {
            anyhow::bail!("{}: game {} cannot be replayed", input.name, a.game);
        };
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        write!(out, "{}", board_diagram(pos, a.flip, a.ascii))?;
        // The result by the variant's rules (`*` while the game goes on).
        writeln!(
            out,
            "{} position {fen}, result {}",
            pos.variant(),
            shakmaty::Position::outcome(pos)
        )?;
        out.flush()?;
        return Ok(0);
    }
    out.flush()?;
    drop(out);
    let fen = gamerec::fen::write_fen(&pos, game.castling_mode);
    show_fen(&fen, a.flip, a.ascii)
}

/// `gamerec show FEN`: draws the board with coordinates and the side to
/// move; exit code 1 for a bad FEN.
pub fn show_fen(fen: &str, flip: bool, ascii: bool) -> anyhow::Result<u8> {
    let pos = match read_fen(fen) {
        Ok((pos, _)) => pos,
        Err(err) => {
            gamerec::say!("gamerec show: {err}");
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
