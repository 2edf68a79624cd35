//! PGN export format, exactly as section 8 of the standard describes it:
//!
//! * the Seven Tag Roster first and in order, missing ones filled (`?`,
//!   `????.??.??`, the result), then every other tag in ASCII order of name
//!   (duplicates kept, stable), one per line, then an empty line;
//! * movetext in lines of fewer than 80 characters, tokens separated by one
//!   space, no space at a line's start or end; `N.` before every white move,
//!   `N...` before a black move only at the start of a game or variation or
//!   after a comment, NAG or variation (8.2.2.2);
//! * suffix annotations are NAGs already (the builder converted them),
//!   comments in braces (a comment holding `}` is written as a `;` comment
//!   ending its line), variations in parentheses, the termination marker,
//!   an empty line.
//!
//! A comment is written word by word, so a long comment may wrap at its
//! spaces (never inside an embedded `[%...]` command that fits on a line);
//! the reader folds that line break back to a space.

use std::fmt::Write as _;

use shakmaty::{CastlingMode, Color, Position, Role};

use super::text::Encoding;
use crate::model::{Game, GameResult, NodeId, PlyMove};

/// Options of the export writer.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Output encoding (UTF-8 by default).
    pub encoding: Encoding,
    /// Lines hold fewer than this many characters (80 in the standard).
    pub line_limit: usize,
    /// Leave comments out.
    pub comments: bool,
    /// How moves are written (SAN, the standard's, by default).
    pub notation: Notation,
}

/// How the export writer spells moves (pgn-extract's `-W`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notation {
    /// Standard Algebraic Notation (`Nf3`, `exd5`, `O-O`): the standard's.
    #[default]
    San,
    /// Long algebraic: piece letter, from square, `-` or `x`, to square,
    /// promotion, check suffix (`Ng1-f3`, `e4xd5`, `e7-e8=Q+`, `O-O`).
    Lan,
    /// UCI coordinates (`g1f3`, `e7e8q`; castling as the king's move in
    /// standard chess, king takes rook in Chess960; `0000` for a null move).
    Uci,
}

impl Notation {
    /// The spelling of `mv`, played from `before` to `after`.
    pub fn spell(
        self,
        before: &shakmaty::Chess,
        mv: PlyMove,
        after: &shakmaty::Chess,
        mode: CastlingMode,
    ) -> String {
        let PlyMove::Move(m) = mv else {
            return if self == Notation::Uci {
                "0000".into()
            } else {
                "--".into()
            };
        };
        match self {
            Notation::San => crate::san::write_san(before, mv),
            Notation::Uci => m.to_uci(mode).to_string(),
            Notation::Lan => {
                let mut out = String::new();
                match m {
                    shakmaty::Move::Castle { king, rook } => {
                        out.push_str(if rook.file() > king.file() {
                            "O-O"
                        } else {
                            "O-O-O"
                        });
                    }
                    _ => {
                        if m.role() != Role::Pawn {
                            out.push(m.role().upper_char());
                        }
                        if let Some(from) = m.from() {
                            let _ = write!(out, "{from}");
                        }
                        out.push(if m.is_capture() { 'x' } else { '-' });
                        let _ = write!(out, "{}", m.to());
                        if let Some(p) = m.promotion() {
                            out.push('=');
                            out.push(p.upper_char());
                        }
                    }
                }
                if after.is_checkmate() {
                    out.push('#');
                } else if after.is_check() {
                    out.push('+');
                }
                out
            }
        }
    }
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            encoding: Encoding::Utf8,
            line_limit: 80,
            comments: true,
            notation: Notation::San,
        }
    }
}

/// The Seven Tag Roster with the values written when a tag is missing.
pub const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

struct Lines {
    text: String,
    line_len: usize,
    limit: usize,
    open_paren: bool,
}

impl Lines {
    fn token(&mut self, token: &str) {
        let paren = std::mem::take(&mut self.open_paren);
        let len = token.chars().count() + usize::from(paren);
        if self.line_len > 0 {
            if self.line_len + 1 + len < self.limit {
                self.text.push(' ');
                self.line_len += 1;
            } else {
                self.text.push('\n');
                self.line_len = 0;
            }
        }
        if paren {
            self.text.push('(');
        }
        self.text.push_str(token);
        self.line_len += len;
    }

    fn close_paren(&mut self) {
        if self.line_len > 0 && self.line_len + 1 < self.limit {
            self.text.push(')');
            self.line_len += 1;
        } else {
            self.token(")");
        }
    }

    fn end_line(&mut self) {
        if self.line_len > 0 {
            self.text.push('\n');
            self.line_len = 0;
        }
    }

    fn comment(&mut self, text: &str) {
        if text.contains('}') {
            let mut t = String::from(";");
            t.push_str(text);
            self.token(&t);
            self.end_line();
            return;
        }
        let words = comment_units(text, self.limit.saturating_sub(2));
        let last = words.len() - 1;
        for (i, w) in words.iter().enumerate() {
            let mut unit = String::with_capacity(w.len() + 2);
            if i == 0 {
                unit.push('{');
            }
            unit.push_str(w);
            if i == last {
                unit.push('}');
            }
            self.token(&unit);
        }
    }
}

/// The words of a comment, split at single spaces, except that an embedded
/// command `[%name operands]` stays in one piece (when it fits on a line), so
/// line breaks never fall inside one.
fn comment_units(text: &str, max_len: usize) -> Vec<&str> {
    let mut units = Vec::new();
    let mut start = 0;
    let mut in_command = false;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' if text.as_bytes().get(i + 1) == Some(&b'%') => in_command = true,
            b']' => in_command = false,
            b' ' => {
                let next_space = text[i + 1..].find(' ').map_or(text.len(), |j| i + 1 + j);
                if in_command && next_space - start <= max_len {
                    continue;
                }
                // A command too long for a line is split at its spaces.
                in_command = false;
                units.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    units.push(&text[start..]);
    units
}

enum Task {
    Line { node: NodeId, ply: u32, force: bool },
    Open,
    Close,
}

fn escape_tag_value(value: &str, out: &mut String) {
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The termination marker export writes: the game's result, else a valid
/// Result tag, else `*`.
pub fn export_result(game: &Game) -> GameResult {
    game.result
        .or_else(|| game.tags.get("Result").and_then(|r| r.parse().ok()))
        .unwrap_or(GameResult::Unknown)
}

/// Appends `game` in export format to `out`; returns how many characters
/// the encoding could not hold (written as `?`; only with Latin-1).
pub fn write_game(game: &Game, opts: &WriteOptions, out: &mut Vec<u8>) -> usize {
    let text = export_string(game, opts);
    opts.encoding.encode_to(&text, out)
}

/// The export format of `game` as a string.
pub fn export_string(game: &Game, opts: &WriteOptions) -> String {
    let mut text = String::new();
    let result = export_result(game);
    // Tag pair section.
    let mut used = vec![false; game.tags.len()];
    for (name, default) in SEVEN_TAG_ROSTER {
        let found = game.tags.iter().position(|t| t.name == name);
        let value = match found {
            Some(i) => {
                used[i] = true;
                game.tags
                    .iter()
                    .nth(i)
                    .map_or(default, |t| t.value.as_str())
            }
            None if name == "Result" => result.as_str(),
            None => default,
        };
        let _ = write!(text, "[{name} \"");
        escape_tag_value(value, &mut text);
        text.push_str("\"]\n");
    }
    let mut rest: Vec<_> = game
        .tags
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(t, _)| t)
        .collect();
    rest.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    for tag in rest {
        let _ = write!(text, "[{} \"", tag.name);
        escape_tag_value(&tag.value, &mut text);
        text.push_str("\"]\n");
    }
    text.push('\n');

    // Movetext section.
    let mut lines = Lines {
        text,
        line_len: 0,
        limit: opts.line_limit.max(2),
        open_paren: false,
    };
    let start_ply = (game.start.fullmoves().get().saturating_sub(1)) * 2
        + u32::from(game.start.turn() == Color::Black);
    let tree = &game.tree;
    // Moves in another notation are spelt beforehand, from each position.
    let mut spelt: Vec<String> = Vec::new();
    if opts.notation != Notation::San {
        spelt.resize(tree.len(), String::new());
        game.for_each_position(|id, before, after| {
            if let Some(p) = &tree.node(id).ply {
                spelt[id.0 as usize] = opts.notation.spell(before, p.mv, after, game.castling_mode);
            }
        });
    }
    let root = tree.root();
    if opts.comments {
        for c in &root.comments_before {
            lines.comment(&c.text);
        }
    }
    let mut stack: Vec<Task> = Vec::new();
    if let Some(first) = root.main_child() {
        stack.push(Task::Line {
            node: first,
            ply: 0,
            force: true,
        });
    }
    while let Some(task) = stack.pop() {
        let (mut node, mut ply, mut force) = match task {
            Task::Open => {
                lines.open_paren = true;
                continue;
            }
            Task::Close => {
                lines.close_paren();
                continue;
            }
            Task::Line { node, ply, force } => (node, ply, force),
        };
        loop {
            let n = tree.node(node);
            if opts.comments && !n.comments_before.is_empty() {
                for c in &n.comments_before {
                    lines.comment(&c.text);
                }
                force = true;
            }
            let abs = start_ply + ply;
            let number = abs / 2 + 1;
            if abs.is_multiple_of(2) {
                lines.token(&format!("{number}."));
            } else if force {
                lines.token(&format!("{number}..."));
            }
            if let Some(p) = &n.ply {
                match spelt.get(node.0 as usize) {
                    Some(text) => lines.token(text),
                    None => lines.token(&p.san),
                }
            }
            for nag in &n.nags {
                lines.token(&format!("${nag}"));
            }
            force = !n.nags.is_empty();
            if opts.comments && !n.comments_after.is_empty() {
                for c in &n.comments_after {
                    lines.comment(&c.text);
                }
                force = true;
            }
            let parent = n.parent().map(|p| tree.node(p));
            let variations = match parent {
                Some(p) if p.main_child() == Some(node) => p.variations(),
                _ => &[],
            };
            if !variations.is_empty() {
                if let Some(next) = n.main_child() {
                    stack.push(Task::Line {
                        node: next,
                        ply: ply + 1,
                        force: true,
                    });
                }
                for &v in variations.iter().rev() {
                    stack.push(Task::Close);
                    stack.push(Task::Line {
                        node: v,
                        ply,
                        force: true,
                    });
                    stack.push(Task::Open);
                }
                break;
            }
            match n.main_child() {
                Some(next) => {
                    node = next;
                    ply += 1;
                }
                None => break,
            }
        }
    }
    lines.token(result.as_str());
    lines.end_line();
    let mut text = lines.text;
    text.push('\n');
    text
}

#[cfg(test)]
mod notation_tests {
    use super::*;

    fn export(pgn: &str, notation: Notation) -> String {
        let (games, problems) = crate::pgn::read_games(pgn.as_bytes());
        assert!(problems.is_empty(), "{problems:?}");
        let opts = WriteOptions {
            notation,
            ..WriteOptions::default()
        };
        let text = export_string(&games[0], &opts);
        text.lines()
            .filter(|l| !l.starts_with('[') && !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    const GAME: &str = "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. Bc4 Nf6 5. Nf3 Bg4 6. O-O (6. h3 Bxf3) e6 7. d4 Bb4 8. Bd2 O-O 9. Nb5 Qxb5 10. Bxb5 c6 11. Bd3 Bxf3 12. Qxf3 Nbd7 13. Bxb4 e5 14. Bxf8 Rxf8 15. Qf5 g6 16. Qxf6 Nxf6 17. dxe5 Nd5 18. e6 fxe6 19. Bxg6 hxg6 20. c4 Ne3 21. fxe3 Rxf1+ 22. Rxf1 b5 23. Rf8+ Kxf8 24. a4 bxa4 25. b4 a3 26. b5 a2 27. bxc6 a1=Q+ 28. Kf2 Qb2+ 29. Kf3 Qc3 30. c7 Qxc4 31. c8=Q# 1-0";

    #[test]
    fn long_algebraic_and_uci() {
        let lan = export(GAME, Notation::Lan);
        assert!(
            lan.starts_with("1. e2-e4 d7-d5 2. e4xd5 Qd8xd5 3. Nb1-c3 Qd5-a5"),
            "{lan}"
        );
        assert!(lan.contains("6. O-O (6. h2-h3 Bg4xf3) 6... e7-e6"), "{lan}");
        assert!(
            lan.contains("21. f2xe3 Rf8xf1+") && lan.contains("27. b5xc6 a2-a1=Q+"),
            "{lan}"
        );
        assert!(lan.ends_with("31. c7-c8=Q+ 1-0"), "{lan}");
        assert!(export("1. f3 e5 2. g4 Qh4# 0-1", Notation::Lan).contains("2. g2-g4 Qd8-h4# 0-1"));
        let uci = export(GAME, Notation::Uci);
        assert!(uci.starts_with("1. e2e4 d7d5 2. e4d5 d8d5"), "{uci}");
        assert!(
            uci.contains("6. e1g1 (6. h2h3 g4f3)") && uci.contains("a2a1q"),
            "{uci}"
        );
        assert_eq!(export(GAME, Notation::San), export(GAME, Notation::San));
        assert!(export(GAME, Notation::San).contains("27. bxc6 a1=Q+"));
        // A null move.
        assert!(export("1. e4 -- 2. d4 *", Notation::Uci).contains("1. e2e4 0000 2. d2d4"));
        assert!(export("1. e4 -- 2. d4 *", Notation::Lan).contains("1. e2-e4 -- 2. d2-d4"));
    }
}
