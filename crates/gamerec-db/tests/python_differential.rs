//! Every filter kind against python-chess on every corpus PGN: the games
//! each query selects are the same. The games are first exported by
//! gamerec (so both sides read identical, clean PGN); python-chess then
//! evaluates each query written independently in
//! `tests/peer/filter_queries.py`.

use std::path::PathBuf;

use gamerec::model::Game;
use gamerec_db::filter::Expr;
use gamerec_testkit::{corpus, files_with_extension, python_chess, run, temp_dir};

const QUERIES: [(&str, &str); 26] = [
    ("elo_ge_2500", "Elo>=2500"),
    ("white_elo_lt_2000", "WhiteElo<2000"),
    ("player_prefix_a", "player^=A"),
    ("event_regex", "Event~\"(?i)open\""),
    ("date_lt_2000", "Date<2000"),
    ("date_ge_2020_06", "Date>=2020.06"),
    ("round_gt_5", "Round>5"),
    ("plycount_ge_80", "PlyCount>=80"),
    ("eco_b20_b99", "ECO=B20-B99"),
    ("result_white", "result=1-0"),
    ("result_not_draw", "result!=1/2-1/2"),
    (
        "fen_sicilian",
        "fen=\"rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"",
    ),
    (
        "fen_qgd",
        "fen=\"rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3\"",
    ),
    ("pattern_d4e4", "pattern=*/*/*/*/???PP???/*/*/*"),
    ("pattern_castled", "pattern=?????rk?/?????ppp/*/*/*/*/*/*"),
    ("pattern_set", "pattern=*/*/*/*/*/*/*/[^KQ]*"),
    ("subfen_knight_e5", "subfen=8/8/8/4N3/8/8/8/8"),
    ("material_rook_ending", "material=R+P*vR+P*"),
    ("material_any_q_vs_r", "material-any=QvR"),
    ("material_more_pawns", "material=Q*R*B*N*P>vQ*R*B*N*P*"),
    ("ended_mate", "ended=mate"),
    ("ended_stalemate", "ended=stalemate"),
    ("ended_insufficient", "ended=insufficient"),
    ("ended_repetition", "ended=repetition"),
    ("ended_fifty", "ended=fifty"),
    ("combo", "(Elo>=2500 or result=0-1) and not ECO=B20-B99"),
];

fn corpus_pgns() -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = vec![
        corpus("pgn/twic1599_1000k.pgn"),
        corpus("pgn/lichess_db_1000k.pgn"),
    ];
    paths.extend(files_with_extension(&corpus("pgn/lichess-studies"), "pgn"));
    paths.extend(files_with_extension(
        &corpus("pgn/pgn-extract-tests"),
        "pgn",
    ));
    let mut out: Vec<(String, Vec<u8>)> = paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    let tcec = corpus("pgn/tcec-2011-2021.pgn.zst");
    let raw = std::fs::read(&tcec).unwrap();
    out.push((
        tcec.display().to_string(),
        zstd::decode_all(&raw[..]).unwrap(),
    ));
    out
}

#[test]
#[ignore = "slow: python-chess runs every filter over the corpus (150 s of CPU in a debug build)"]
fn every_filter_kind_agrees_with_python_chess() {
    let Some(python) = python_chess() else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peer/filter_queries.py");
    let dir = temp_dir("db-python");
    let exprs: Vec<(&str, Expr)> = QUERIES
        .iter()
        .map(|(n, q)| (*n, Expr::parse(q).unwrap()))
        .collect();
    let mut hits = vec![0usize; QUERIES.len()];
    for (name, data) in corpus_pgns() {
        // The games gamerec reads, exported (UTF-8, SAN), then read back.
        let (games, _) = gamerec::pgn::read_games(&data);
        let mut clean = Vec::new();
        for g in &games {
            gamerec::pgn::write_game(g, &gamerec::pgn::WriteOptions::default(), &mut clean);
        }
        let file = dir.join("clean.pgn");
        std::fs::write(&file, &clean).unwrap();
        let (games, _): (Vec<Game>, _) = gamerec::pgn::read_games(&clean);
        let out = run(
            &python,
            &[script.to_str().unwrap(), file.to_str().unwrap()],
            b"",
        );
        gamerec_testkit::assert_success(&out, "filter_queries.py");
        let theirs = String::from_utf8(out.stdout).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(&theirs).unwrap();
        assert_eq!(
            theirs["games"].as_u64().unwrap() as usize,
            games.len(),
            "{name}: game count"
        );
        for (qi, (qname, expr)) in exprs.iter().enumerate() {
            let mine: Vec<u64> = games
                .iter()
                .enumerate()
                .filter(|(_, g)| expr.matches_game(g))
                .map(|(i, _)| i as u64)
                .collect();
            // A file with no game has no query lists.
            let want: Vec<u64> = theirs["queries"][qname]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_u64().unwrap()).collect())
                .unwrap_or_default();
            hits[qi] += mine.len();
            if mine != want {
                let first = mine
                    .iter()
                    .zip(&want)
                    .position(|(a, b)| a != b)
                    .unwrap_or(mine.len().min(want.len()));
                panic!(
                    "{name}: {qname} ({}): gamerec {} games, python-chess {}; first difference: gamerec {:?}, python-chess {:?}",
                    QUERIES[qi].1,
                    mine.len(),
                    want.len(),
                    mine.get(first),
                    want.get(first)
                );
            }
        }
    }
    // Every query selected something somewhere (a test that cannot fail is none).
    for (i, n) in hits.iter().enumerate() {
        assert!(
            *n > 0,
            "{}: no game selected in the whole corpus",
            QUERIES[i].0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
