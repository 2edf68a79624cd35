//! PGN to EPD against python-chess: for every game of
//! `corpus/pgn/twic1599_1000k.pgn`, every record of
//! `epd::convert::game_to_records` equals python-chess's `board.epd()` with
//! the same `sm`, `id`, `hmvc`, `fmvn`, position by position.
//!
//! python-chess reads the PGN and emits the main line as UCI moves; the game
//! is rebuilt through the model API (independent of the PGN reader).

use std::process::Command;

use gamerec::epd::convert::{GameToEpd, game_to_records};
use gamerec::fen::read_fen;
use gamerec::model::{Game, NodeId, Ply, PlyMove, play_ply};
use gamerec::san::write_san;
use shakmaty::uci::UciMove;

struct RefGame {
    event: String,
    round: String,
    fen: String,
    moves: Vec<String>,
    epds: Vec<String>,
}

fn parse(reference: &str) -> Vec<RefGame> {
    let mut games: Vec<RefGame> = Vec::new();
    for line in reference.lines() {
        let mut parts = line.split('\t');
        let kind = parts.next().unwrap_or("");
        match kind {
            "G" => {
                let f: Vec<&str> = parts.collect();
                games.push(RefGame {
                    event: f[0].to_string(),
                    round: f[1].to_string(),
                    fen: f[2].to_string(),
                    moves: Vec::new(),
                    epds: Vec::new(),
                });
            }
            "M" => games
                .last_mut()
                .expect("game")
                .moves
                .push(parts.next().unwrap_or("").to_string()),
            "E" => games
                .last_mut()
                .expect("game")
                .epds
                .push(parts.collect::<Vec<_>>().join("\t")),
            _ => panic!("bad reference line {line:?}"),
        }
    }
    games
}

#[test]
fn pgn_to_epd_matches_python_chess_board_epd() {
    let Some(python) = gamerec_testkit::python_chess() else {
        return;
    };
    let pgn = gamerec_testkit::corpus("pgn/twic1599_1000k.pgn");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/epd_positions.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(&pgn)
        .output()
        .expect("run python-chess");
    assert!(
        out.status.success(),
        "python-chess failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reference = String::from_utf8(out.stdout).expect("utf-8");
    let games = parse(&reference);
    assert!(games.len() > 1000, "only {} games", games.len());
    let mut positions = 0;
    for (gi, rg) in games.iter().enumerate() {
        let (start, mode) = read_fen(&rg.fen).expect("start FEN");
        let mut game = Game::new();
        game.tags.push("Event", rg.event.clone());
        game.tags.push("Round", rg.round.clone());
        game.start = start.clone();
        game.castling_mode = mode;
        let mut pos = start;
        let mut parent = NodeId::ROOT;
        for uci in &rg.moves {
            let m = UciMove::from_ascii(uci.as_bytes())
                .expect("uci")
                .to_move(&pos)
                .expect("legal");
            let mv = PlyMove::Move(m);
            let san = write_san(&pos, mv);
            parent = game.tree.add_child(
                parent,
                Ply {
                    mv,
                    san,
                    written: None,
                },
            );
            pos = play_ply(&pos, mv);
        }
        let records = game_to_records(&game, &GameToEpd::default()).value;
        assert_eq!(records.len(), rg.epds.len(), "game {gi}");
        for (ply, (rec, want)) in records.iter().zip(&rg.epds).enumerate() {
            assert_eq!(&rec.to_string(), want, "game {gi} ({}) ply {ply}", rg.event);
            positions += 1;
        }
    }
    assert!(positions > 100_000, "{positions} positions");
}
