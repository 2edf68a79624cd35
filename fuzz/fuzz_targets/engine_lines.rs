#![no_main]
//! What engines print is untrusted input: the parsers of engine output
//! never panic, and what they give is usable. The first byte picks the
//! parser (low four bits, modulo 9) and the position or board size (high four bits);
//! the rest, read as the drivers read a line (lossy UTF-8), is the line:
//! - UCI: `info` (`uci::parse_info`), `option` (`uci::parse_option`),
//!   `bestmove` (`uci::parse_bestmove`);
//! - XBoard: `feature` (`xboard::parse_features`), thinking output
//!   (`xboard::parse_thinking`), a move (`notation::read_engine_move`,
//!   `read_engine_pv`);
//! - GTP: vertices, `genmove` answers and scores (`gtp::parse_vertex`,
//!   `parse_genmove`, `parse_score`), `final_status_list` answers
//!   (`parse_vertex_list`), analysis lines (`parse_analysis`);
//! - the EPD result files of `epd solve` read back (`results::Run::parse`)
//!   and reported on (`gamerec_view::report`, as `gamerec report` does).
//!
//! Moves given are legal in sequence from the position; scores convert to
//! EPD `ce` and order keys; Go points lie on the board and name themselves
//! back; leads and win rates are finite, win rates within 0..=1.
use gamerec::sgf::Color;
use gamerec::shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen};
use gamerec_engine::gtp::{self, GoMove};
use gamerec_engine::notation::{read_engine_move, read_engine_pv};
use gamerec_engine::results::Run;
use gamerec_engine::{Info, uci, xboard};
use libfuzzer_sys::fuzz_target;

const POSITIONS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/3pP3/8/2N5/8/R3K1NR w KQ d6 0 1",
];

fn legal_line(pos: &Chess, moves: &[Move]) {
    let mut p = pos.clone();
    for &m in moves {
        assert!(p.is_legal(m), "{m:?} in {moves:?}");
        p.play_unchecked(m);
    }
}

fn check_info(pos: &Chess, info: &Info) {
    legal_line(pos, &info.pv);
    if let Some(s) = info.score {
        let _ = (s.to_ce(), s.order_key(), s.to_string());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let line = String::from_utf8_lossy(rest);
    let line = line.as_ref();
    let high = usize::from(selector >> 4);
    let pos: Chess = POSITIONS[high % POSITIONS.len()]
        .parse::<Fen>()
        .expect("fixed FEN")
        .into_position(CastlingMode::Standard)
        .expect("fixed position");
    let size = 1 + (high as u32 * 2) % 26;
    match (selector & 0x0F) % 9 {
        0 => check_info(&pos, &uci::parse_info(&pos, line)),
        1 => {
            if let Some(o) = uci::parse_option(line) {
                assert_eq!(o.name, o.name.trim());
                assert!(!o.kind.is_empty() && !o.kind.contains(char::is_whitespace));
            }
        }
        2 => match uci::parse_bestmove(&pos, line) {
            Ok((best, ponder)) => {
                assert!(best.is_some() || ponder.is_none());
                legal_line(&pos, &best.into_iter().chain(ponder).collect::<Vec<_>>());
            }
            Err(token) => assert!(line.contains(token)),
        },
        3 => {
            for (name, value) in xboard::parse_features(line) {
                assert!(
                    !name.is_empty()
                        && !name.contains(|c: char| c == '=' || c.is_ascii_whitespace())
                );
                assert!(line.contains(&name) && line.contains(&value));
            }
        }
        4 => {
            if let Some(info) = xboard::parse_thinking(&pos, line) {
                check_info(&pos, &info);
            }
        }
        5 => {
            if let Some(m) = read_engine_move(&pos, line.trim()) {
                assert!(pos.is_legal(m));
            }
            legal_line(&pos, &read_engine_pv(&pos, line.split_whitespace()));
        }
        6 => {
            if let Some(Some(p)) = gtp::parse_vertex(line, size) {
                let v = gtp::vertex(p, size).expect("a point read is on the board");
                assert_eq!(gtp::parse_vertex(&v, size), Some(Some(p)), "{v}");
            }
            if let Some(GoMove::Play(p)) = gtp::parse_genmove(line, size) {
                assert!(u32::from(p.x) < size && u32::from(p.y) < size);
            }
            if let Some(lead) = gtp::parse_score(line) {
                assert!(lead.is_finite());
            }
        }
        7 => {
            if let Ok(points) = gtp::parse_vertex_list(line, size) {
                for p in points {
                    assert!(gtp::vertex(p, size).is_some());
                }
            }
            let to_play = if selector & 0x10 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let ev = gtp::parse_analysis(line, to_play, size, "lz-analyze");
            if let Some(lead) = ev.black_lead {
                assert!(lead.is_finite(), "lead {lead}");
            }
            if let Some(w) = ev.black_winrate {
                assert!((0.0..=1.0).contains(&w), "win rate {w}");
            }
            if let Some(GoMove::Play(p)) = ev.best {
                assert!(gtp::vertex(p, size).is_some());
            }
        }
        _ => {
            let run = Run::parse("fuzz", line);
            let (solved, judged) = run.score();
            assert!(solved <= judged && judged <= run.records.len());
            for (_, solved, judged) in run.suites() {
                assert!(solved <= judged);
            }
            let _ = run.sts_themes();
            // What `gamerec report` does with the runs it reads.
            let runs = [run.clone(), run];
            let _ = gamerec_view::report::text_summary(&runs);
            let _ = gamerec_view::report::html_report("fuzz", &runs);
        }
    }
});
