//! Reading gamerec's JSON Lines (what [`crate::pgn::write_game_json`]
//! writes) back into games. Moves are read from `san` (tolerantly, as PGN
//! movetext), else `uci`; variations are followed with an explicit stack.

use serde_json::Value;
use shakmaty::Chess;

use crate::diag::Code;
use crate::fen::read_fen;
use crate::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove, play_ply};
use crate::san::{ReadOptions, read_san, write_san};

/// Why a JSON line is not a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The kind of problem.
    pub code: Code,
    /// What is wrong.
    pub message: String,
}

fn err(code: Code, message: impl Into<String>) -> JsonError {
    JsonError {
        code,
        message: message.into(),
    }
}

fn comments(v: Option<&Value>) -> Vec<Comment> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(Comment::new)
                .collect()
        })
        .unwrap_or_default()
}

/// One game from one JSON line.
pub fn read_game(line: &str) -> Result<Game, JsonError> {
    let value: Value = serde_json::from_str(line).map_err(|e| err(Code::Syntax, e.to_string()))?;
    let Some(obj) = value.as_object() else {
        return Err(err(Code::Syntax, "expected a JSON object (one game)"));
    };
    let mut game = Game::default();
    if let Some(tags) = obj.get("tags").and_then(Value::as_array) {
        for tag in tags {
            match tag.as_array().map(Vec::as_slice) {
                Some([Value::String(n), Value::String(v)]) => game.tags.push(n.clone(), v.clone()),
                _ => return Err(err(Code::Value, "a tag must be [name, value]")),
            }
        }
    }
    if let Some(fen) = obj.get("start").and_then(Value::as_str) {
        let (pos, mode) = read_fen(fen).map_err(|e| err(Code::Position, format!("start: {e}")))?;
        game.start = pos;
        game.castling_mode = mode;
    }
    game.tree.root_mut().comments_before = comments(obj.get("comments"));
    if let Some(r) = obj.get("result").and_then(Value::as_str) {
        game.result = Some(
            r.parse::<GameResult>()
                .map_err(|_| err(Code::Value, format!("result {r:?}")))?,
        );
    }
    let empty = Vec::new();
    let moves = obj.get("moves").and_then(Value::as_array).unwrap_or(&empty);
    // (moves of one line, next index, parent node, position before it)
    let mut stack: Vec<(&[Value], usize, NodeId, Chess)> =
        vec![(moves.as_slice(), 0, NodeId::ROOT, game.start.clone())];
    let opts = ReadOptions::default();
    while let Some((line, i, parent, pos)) = stack.pop() {
        let Some(mv) = line.get(i) else { continue };
        let san = mv.get("san").and_then(Value::as_str).unwrap_or("");
        let ply = if san == "--" || mv.get("uci").and_then(Value::as_str) == Some("0000") {
            PlyMove::Null
        } else {
            match read_san(&pos, san.as_bytes(), &opts) {
                Ok(read) => read.mv,
                Err(e) => return Err(err(e.kind.into(), format!("move {san:?}: {e}"))),
            }
        };
        let canonical = write_san(&pos, ply);
        let node = game.tree.add_child(
            parent,
            Ply {
                mv: ply,
                san: canonical,
                written: None,
            },
        );
        let n = game.tree.node_mut(node);
        n.nags = mv
            .get("nags")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|x| u8::try_from(x).ok())
                    .collect()
            })
            .unwrap_or_default();
        n.comments_after = comments(mv.get("comments"));
        n.comments_before = comments(mv.get("comments_before"));
        let after = play_ply(&pos, ply);
        // Main line continues after the variations of this move (pushed
        // first so they are built first: they are this node's siblings).
        stack.push((line, i + 1, node, after));
        if let Some(vars) = mv.get("variations").and_then(Value::as_array) {
            for var in vars.iter().rev() {
                if let Some(var) = var.as_array() {
                    stack.push((var.as_slice(), 0, parent, pos.clone()));
                }
            }
        }
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{read_games, write_game_json};

    #[test]
    fn json_lines_read_back_to_the_same_game() {
        let pgn = b"[Event \"x\"]\n[White \"A\"]\n\n{start} 1. e4 $1 {good} (1. d4 d5 (1... Nf6) 2. c4) 1... e5 2. Nf3 Nc6 1-0\n\n\
[FEN \"8/8/8/8/8/8/4P3/K1k5 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 *\n";
        let (games, problems) = read_games(pgn);
        assert!(problems.is_empty(), "{problems:?}");
        for game in &games {
            let mut text = String::new();
            write_game_json(game, &crate::pgn::json::no_commands, &mut text);
            let back = read_game(text.trim_end()).expect("reads");
            assert_eq!(&back, game, "{text}");
        }
        assert_eq!(
            read_game("{\"moves\":[{\"san\":\"e5\"}]}")
                .unwrap_err()
                .code,
            Code::IllegalMove
        );
        assert_eq!(
            read_game("{\"moves\":[{\"san\":\"Zz9\"}]}")
                .unwrap_err()
                .code,
            Code::SanSyntax
        );
        assert_eq!(read_game("[1,2").unwrap_err().code, Code::Syntax);
    }
}
