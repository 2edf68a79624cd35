//! Round trips of every game of two real PGN archives through CBF/CBI and
//! through PGC: identical moves (variations included), and tags, NAGs and
//! comments as far as each format holds them; everything else must have
//! been reported.
//!
//! The games are read with a small movetext reader below (tags, moves,
//! variations, NAGs, comments) until `gamerec::pgn` has its reader.

use gamerec::chessbase::{Issue, read_cbf, write_cbf};
use gamerec::diag::Severity;
use gamerec::model::{Comment, Game, GameResult, NodeId, Ply};
use gamerec::pgc::{read_pgc, write_pgc};
use gamerec::san::{ReadOptions, read_san};
use gamerec::shakmaty::Chess;

struct Line {
    node: NodeId,
    pos: Chess,
    prev: Option<(NodeId, Chess)>,
}

/// A minimal PGN reader: enough for the corpus archives (panics on what it
/// does not understand, so a silent misread cannot pass).
fn read_games(text: &str) -> Vec<Game> {
    let b = text.as_bytes();
    let mut games = Vec::new();
    let mut game = Game::new();
    let mut line = Line {
        node: NodeId::ROOT,
        pos: Chess::default(),
        prev: None,
    };
    let mut stack: Vec<Line> = Vec::new();
    let mut pending: Vec<Comment> = Vec::new();
    let mut in_moves = false;
    let mut i = 0;
    let opts = ReadOptions::default();
    while i < b.len() {
        let c = b[i];
        match c {
            b'[' if !in_moves => {
                let end = text[i..].find(']').expect("tag end") + i;
                let inner = &text[i + 1..end];
                let (name, rest) = inner.split_once(' ').expect("tag name");
                let value = rest
                    .trim()
                    .trim_matches('"')
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\");
                if name == "FEN" {
                    let (pos, mode) = gamerec::fen::read_fen(&value).expect("fen");
                    game.start = pos.clone();
                    game.castling_mode = mode;
                    line.pos = pos;
                }
                game.tags.push(name, value);
                i = end + 1;
            }
            b'{' => {
                let end = text[i..].find('}').expect("comment end") + i;
                let comment = Comment::new(text[i + 1..end].trim());
                if line.node == NodeId::ROOT && stack.is_empty() {
                    game.tree.root_mut().comments_before.push(comment);
                } else if line.prev.is_none() {
                    pending.push(comment);
                } else {
                    game.tree.node_mut(line.node).comments_after.push(comment);
                }
                in_moves = true;
                i = end + 1;
            }
            b'%' if i == 0 || b[i - 1] == b'\n' => {
                i = text[i..].find('\n').map_or(b.len(), |e| e + i);
            }
            b';' => {
                i = text[i..].find('\n').map_or(b.len(), |e| e + i);
            }
            b'$' => {
                let end = b[i + 1..]
                    .iter()
                    .position(|x| !x.is_ascii_digit())
                    .map_or(b.len(), |e| e + i + 1);
                let nag: u8 = text[i + 1..end].parse().expect("nag");
                game.tree.node_mut(line.node).nags.push(nag);
                i = end;
            }
            b'(' => {
                let (node, pos) = line.prev.clone().expect("variation after a move");
                stack.push(std::mem::replace(
                    &mut line,
                    Line {
                        node,
                        pos,
                        prev: None,
                    },
                ));
                i += 1;
            }
            b')' => {
                line = stack.pop().expect("open variation");
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            _ => {
                let end = b[i..]
                    .iter()
                    .position(|x| x.is_ascii_whitespace() || b"(){};$".contains(x))
                    .map_or(b.len(), |e| e + i);
                let tok = &text[i..end];
                i = end;
                in_moves = true;
                if let Ok(r) = tok.parse::<GameResult>() {
                    game.result = Some(r);
                    games.push(std::mem::take(&mut game));
                    line = Line {
                        node: NodeId::ROOT,
                        pos: Chess::default(),
                        prev: None,
                    };
                    in_moves = false;
                    continue;
                }
                let tok = tok.trim_start_matches(|ch: char| ch.is_ascii_digit() || ch == '.');
                if tok.is_empty() {
                    continue;
                }
                let read = read_san(&line.pos, tok.as_bytes(), &opts)
                    .unwrap_or_else(|e| panic!("{tok}: {e}"));
                let san = gamerec::san::write_san(&line.pos, read.mv);
                let id = game.tree.add_child(
                    line.node,
                    Ply {
                        mv: read.mv,
                        san,
                        written: None,
                    },
                );
                if let Some(nag) = read.nag {
                    game.tree.node_mut(id).nags.push(nag);
                }
                game.tree.node_mut(id).comments_before.append(&mut pending);
                let before = line.pos.clone();
                line.pos = gamerec::model::play_ply(&line.pos, read.mv);
                line.prev = Some((line.node, before));
                line.node = id;
            }
        }
    }
    games
}

fn corpus(name: &str) -> Vec<Game> {
    let path = gamerec_testkit::corpus(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_games(&text)
}

/// Moves in pre-order with their number of children.
fn moves(game: &Game) -> Vec<(String, usize)> {
    game.tree
        .preorder()
        .map(|id| {
            let n = game.tree.node(id);
            (n.ply.as_ref().expect("ply").san.clone(), n.children().len())
        })
        .collect()
}

fn warned(issues: &[Issue], word: &str) -> bool {
    issues.iter().any(|i| i.message.contains(word))
}

fn cbf_round_trip(name: &str, expected_games: usize) -> usize {
    let games = corpus(name);
    assert_eq!(games.len(), expected_games, "{name}: games read");
    let mut commented = 0;
    for (gi, game) in games.iter().enumerate() {
        let files = write_cbf(std::slice::from_ref(game));
        assert!(
            files.issues.iter().all(|i| i.severity == Severity::Warning),
            "{name} game {}: {:?}",
            gi + 1,
            files.issues
        );
        let out = read_cbf(&files.cbi, &files.cbf);
        assert!(
            out.issues.is_empty(),
            "{name} game {}: {:?}",
            gi + 1,
            out.issues
        );
        let back = &out.games[0];
        assert_eq!(moves(back), moves(game), "{name} game {}: moves", gi + 1);
        assert_eq!(back.result, game.result, "{name} game {}", gi + 1);
        for tag in [
            "White", "Black", "Event", "Round", "WhiteElo", "BlackElo", "ECO",
        ] {
            let (a, b) = (game.tags.get(tag), back.tags.get(tag));
            if a != b && a.is_some_and(|v| v != "?") {
                assert!(
                    warned(&files.issues, tag) || warned(&files.issues, "text"),
                    "{name} game {}: {tag} {a:?} became {b:?} without a warning",
                    gi + 1
                );
            }
        }
        if let Some(date) = game.tags.get("Date") {
            assert_eq!(
                back.tags.get("Date").map(|d| &d[..4]),
                Some(&date[..4]),
                "year"
            );
        }
        // Comments and NAGs, move by move.
        let nags_dropped = warned(&files.issues, "NAG");
        let chars_replaced = warned(&files.issues, "cannot store");
        for (a, b) in game.tree.preorder().zip(back.tree.preorder()) {
            let (na, nb) = (game.tree.node(a), back.tree.node(b));
            let texts: Vec<&str> = na
                .comments_before
                .iter()
                .chain(&na.comments_after)
                .map(|c| c.text.as_str())
                .collect();
            let joined = texts.join(" ");
            let got: Vec<&str> = nb.comments_after.iter().map(|c| c.text.as_str()).collect();
            if !joined.is_empty() {
                commented += 1;
            }
            if !chars_replaced {
                assert_eq!(got.join(" "), joined, "{name} game {}: comment", gi + 1);
            }
            if !nags_dropped {
                let (mut x, mut y) = (na.nags.clone(), nb.nags.clone());
                x.sort_unstable();
                y.sort_unstable();
                if gamerec::chessbase::reader::decode_result(files_result(&files.cbf))
                    .1
                    .is_none()
                {
                    assert_eq!(y, x, "{name} game {}: NAGs", gi + 1);
                }
            }
        }
        // All games at once give the same games.
    }
    let files = write_cbf(&games);
    assert_eq!(files.written, games.len());
    assert_eq!(read_cbf(&files.cbi, &files.cbf).games.len(), games.len());
    eprintln!(
        "{name}: {} games, {commented} commented moves through CBF",
        games.len()
    );
    commented
}

/// The result byte of the first game of a CBF file.
fn files_result(cbf: &[u8]) -> u8 {
    let mut h: [u8; 14] = cbf[..14].try_into().expect("header");
    gamerec::chessbase::text::xor_header(&mut h);
    h[1]
}

fn pgc_round_trip(name: &str) {
    let games = corpus(name);
    let (bytes, issues) = write_pgc(&games);
    assert!(
        issues.iter().all(|i| i.severity == Severity::Warning),
        "{issues:?}"
    );
    let out = read_pgc(&bytes);
    assert!(out.issues.is_empty(), "{:?}", out.issues);
    assert_eq!(out.games.len(), games.len());
    for (gi, (game, back)) in games.iter().zip(&out.games).enumerate() {
        assert_eq!(moves(back), moves(game), "{name} game {}: moves", gi + 1);
        let nags = |g: &Game| {
            g.tree
                .preorder()
                .map(|id| g.tree.node(id).nags.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(nags(back), nags(game), "{name} game {}: NAGs", gi + 1);
        assert_eq!(back.result, game.result);
        let replaced = issues
            .iter()
            .any(|i| i.game == Some(gi + 1) && i.message.contains("Latin-1"));
        if !replaced {
            assert_eq!(back.tags, game.tags, "{name} game {}: tags", gi + 1);
        }
        let has_comments = game.tree.root().comments_before.len()
            + game
                .tree
                .preorder()
                .map(|id| {
                    game.tree.node(id).comments_after.len()
                        + game.tree.node(id).comments_before.len()
                })
                .sum::<usize>()
            > 0;
        let said = issues
            .iter()
            .any(|i| i.game == Some(gi + 1) && i.message.contains("PGC has no comment record"));
        assert_eq!(
            said,
            has_comments,
            "{name} game {}: comment warning",
            gi + 1
        );
    }
}

#[test]
fn lichess_through_cbf() {
    let commented = cbf_round_trip("pgn/lichess_db_1000k.pgn", 438);
    assert!(
        commented > 10_000,
        "the archive's clock comments were compared ({commented})"
    );
}

#[test]
fn twic_through_cbf() {
    cbf_round_trip("pgn/twic1599_1000k.pgn", 1110);
}

#[test]
fn lichess_through_pgc() {
    pgc_round_trip("pgn/lichess_db_1000k.pgn");
}

#[test]
fn twic_through_pgc() {
    pgc_round_trip("pgn/twic1599_1000k.pgn");
}
