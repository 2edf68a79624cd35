//! `gamerec index` / `find` end to end: the games `find` returns are the
//! games `filter` selects with the same query (plain and compressed
//! databases), `--ids` agrees, and the tree's counts add up.

use crate::util::cli;

use std::path::Path;

use gamerec_testkit::{assert_success, corpus, run, temp_dir};

/// Per game: White, Black, Round and the movetext's length.
fn games(text: &[u8]) -> Vec<String> {
    let (games, _) = gamerec::pgn::read_games(text);
    games
        .iter()
        .map(|g| {
            let t = |n| g.tags.get(n).unwrap_or("-").to_string();
            format!(
                "{}|{}|{}|{}",
                t("White"),
                t("Black"),
                t("Round"),
                g.tree.mainline_len()
            )
        })
        .collect()
}

const SICILIAN: &str = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

fn check_db(db: &Path) {
    let d = db.to_str().unwrap();
    cli(&["index", d]).run_ok().into_stdout();
    let queries: [(&str, &str); 4] = [
        ("--fen", SICILIAN),
        ("--pattern", "*/*/*/*/???PP???/*/*/*"),
        ("--material", "KR*P*vKR*P*"),
        ("--sub-fen", "8/8/8/8/4N3/8/8/8"),
    ];
    for (flag, q) in queries {
        let found = games(&cli(&["find", d, flag, q]).run_ok().into_stdout());
        let filtered = games(&cli(&["filter", d, flag, q]).run_ok().into_stdout());
        assert_eq!(found, filtered, "{d} {flag} {q}");
        assert!(!found.is_empty(), "{d} {flag} {q}: nothing found");
        let ids =
            String::from_utf8(cli(&["find", d, flag, q, "--ids"]).run_ok().into_stdout()).unwrap();
        assert_eq!(ids.lines().count(), found.len(), "{d} {flag} {q} --ids");
    }
    // The tree of the start position counts every game with a first move.
    let tree = String::from_utf8(
        cli(&[
            "find",
            d,
            "--tree",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ])
        .run_ok()
        .into_stdout(),
    )
    .unwrap();
    let line = |name: &str| -> u64 {
        tree.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    let total = line("total");
    assert!(total + line("ended") <= line("reached"), "{tree}");
    let sum: u64 = tree
        .lines()
        .skip(1)
        .filter(|l| {
            !["total", "ended", "reached"]
                .iter()
                .any(|w| l.starts_with(w))
        })
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, sum);
    let (all, _) =
        gamerec::pgn::read_games(&std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap());
    let from_start = all
        .iter()
        .filter(|g| g.start == shakmaty::Chess::default() && g.tree.mainline_len() > 0)
        .count();
    assert_eq!(
        total as usize, from_start,
        "games with a first move from the start position"
    );
    assert!(tree.contains("e4 "), "{tree}");
    // --to json: the same rows, the lichess explorer's field names.
    let json = cli(&[
        "find",
        d,
        "--tree",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "--to",
        "json",
    ])
    .run_ok()
    .into_stdout();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let moves = v["moves"].as_array().unwrap();
    let rows: Vec<&str> = tree
        .lines()
        .skip(1)
        .filter(|l| {
            !["total", "ended", "reached"]
                .iter()
                .any(|w| l.starts_with(w))
        })
        .collect();
    assert_eq!(moves.len(), rows.len());
    for (m, row) in moves.iter().zip(&rows) {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(m["san"].as_str().unwrap(), cols[0]);
        let games = m["games"].as_u64().unwrap();
        assert_eq!(games.to_string(), cols[1]);
        let (w, dr, b) = (
            m["white"].as_u64().unwrap(),
            m["draws"].as_u64().unwrap(),
            m["black"].as_u64().unwrap(),
        );
        assert!(w + dr + b <= games);
        assert_eq!(m["averageRating"].to_string().replace("null", "-"), cols[5]);
        assert_eq!(m["uci"].as_str().unwrap().len(), 4);
    }
    assert_eq!(v["games"].as_u64().unwrap(), line("reached"));
    assert_eq!(v["ended"].as_u64().unwrap(), line("ended"));
}

#[test]
fn find_returns_what_filter_selects() {
    let dir = temp_dir("db-find");
    let data = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    let plain = dir.join("twic.pgn");
    std::fs::write(&plain, &data).unwrap();
    check_db(&plain);
    let zst = dir.join("twic.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&data[..], 3).unwrap()).unwrap();
    check_db(&zst);
    // Many frames (as `split -C 64K --filter 'zstd -c'` writes): `find`
    // reads each game from its frame, and answers as on the plain file.
    let frames = dir.join("frames.pgn.zst");
    let mut z = Vec::new();
    for chunk in data.chunks(64 << 10) {
        z.extend(zstd::encode_all(chunk, 3).unwrap());
    }
    std::fs::write(&frames, &z).unwrap();
    check_db(&frames);
    for q in [
        ["--fen", SICILIAN],
        ["--sub-fen", "8/8/8/8/4N3/8/8/8"],
        ["--material", "KR*P*vKR*P*"],
    ] {
        let (p, f) = (plain.to_str().unwrap(), frames.to_str().unwrap());
        let a = cli(&["find", p, q[0], q[1], "--limit", "40", "--offset", "3"])
            .run_ok()
            .into_stdout();
        let b = cli(&["find", f, q[0], q[1], "--limit", "40", "--offset", "3"])
            .run_ok()
            .into_stdout();
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "{q:?}"
        );
        assert_eq!(games(&a).len(), 40, "{q:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn notations_in_filter_output() {
    let f = corpus("pgn/pgn-extract-tests/infiles/fools-mate.pgn");
    let f = f.to_str().unwrap();
    let uci = String::from_utf8(
        cli(&["filter", "--notation", "uci", f])
            .run_ok()
            .into_stdout(),
    )
    .unwrap();
    assert!(uci.contains("1. f2f3 e7e5 2. g2g4 d8h4"), "{uci}");
    let lan = String::from_utf8(
        cli(&["filter", "--notation", "lan", f])
            .run_ok()
            .into_stdout(),
    )
    .unwrap();
    assert!(lan.contains("1. f2-f3 e7-e5 2. g2-g4 Qd8-h4#"), "{lan}");
}

#[test]
fn bad_queries_are_usage_errors() {
    let f = corpus("pgn/twic1599_1000k.pgn");
    let f = f.to_str().unwrap();
    for args in [
        vec!["filter", "--tag", "Elo>", f],
        vec!["filter", "--where", "(Elo>1", f],
        vec!["filter", "--fen", "not a fen", f],
        vec!["filter", "--material", "KXvK", f],
        vec!["filter", "--ended", "bored", f],
    ] {
        let out = run(env!("CARGO_BIN_EXE_gamerec"), &args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn any_chess_input_and_output() {
    let dir = temp_dir("db-formats");
    let pgn = corpus("pgn/pgn-extract-tests/infiles/fischer.pgn");
    let pgn = pgn.to_str().unwrap();
    let json = dir.join("fischer.json");
    let out = run(
        env!("CARGO_BIN_EXE_gamerec"),
        &["convert", pgn, "-o", json.to_str().unwrap()],
        b"",
    );
    assert_success(&out, "convert to json");
    let json = json.to_str().unwrap();
    // The same selection from PGN and from JSON input.
    let from_pgn = games(
        &cli(&["filter", "--player", "Fischer", "--tag", "Date<1965", pgn])
            .run_ok()
            .into_stdout(),
    );
    let from_json = games(
        &cli(&["filter", "--player", "Fischer", "--tag", "Date<1965", json])
            .run_ok()
            .into_stdout(),
    );
    assert!(!from_pgn.is_empty());
    assert_eq!(from_pgn, from_json);
    // EPD output: one record per position of each selected game.
    let epd = String::from_utf8(
        cli(&[
            "filter",
            "--player",
            "Fischer",
            "--tag",
            "Date<1965",
            "--to",
            "epd",
            pgn,
        ])
        .run_ok()
        .into_stdout(),
    )
    .unwrap();
    assert!(epd.lines().count() > from_pgn.len(), "{epd}");
    assert!(epd.lines().all(|l| l.contains(" id ")), "{epd}");
    let _ = std::fs::remove_dir_all(&dir);
}
