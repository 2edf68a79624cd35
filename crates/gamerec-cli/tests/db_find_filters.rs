//! `find` with filters, order and paging: every query kind keeps exactly the
//! games a scan of the tags accepts, `--sort` orders them as the tags say,
//! and `--offset`/`--limit` cut that order (also where candidates are
//! verified by replay); `--moves` equals `--fen` of the position reached.

use std::collections::HashMap;
use std::path::Path;

use gamerec_testkit::{assert_success, corpus, run, temp_dir};

const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

fn ok(args: &[&str]) -> String {
    let out = run(GAMEREC, args, b"");
    assert_success(&out, &format!("gamerec {}", args.join(" ")));
    String::from_utf8(out.stdout).unwrap()
}

fn ids(db: &Path, args: &[&str]) -> Vec<u32> {
    let mut all = vec!["find", db.to_str().unwrap(), "--ids"];
    all.extend_from_slice(args);
    ok(&all)
        .lines()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect()
}

/// Per game (from 1): its tags, read here from the PGN text.
fn tags(data: &str) -> HashMap<u32, HashMap<String, String>> {
    let mut out = HashMap::new();
    let mut n = 0;
    for line in data.lines() {
        if line.starts_with("[Event ") {
            n += 1;
        }
        if let Some(rest) = line.strip_prefix('[')
            && let Some((k, v)) = rest.split_once(" \"")
        {
            out.entry(n)
                .or_insert_with(HashMap::new)
                .insert(k.to_string(), v.trim_end_matches("\"]").to_string());
        }
    }
    out
}

#[test]
fn filters_sort_and_paging_on_every_query_kind() {
    let dir = temp_dir("db-find-filters");
    let data = std::fs::read_to_string(corpus("pgn/lichess_db_1000k.pgn")).unwrap();
    let db = dir.join("db.pgn");
    std::fs::write(&db, &data).unwrap();
    assert_success(
        &run(GAMEREC, &["index", db.to_str().unwrap()], b""),
        "index",
    );
    let tags = tags(&data);
    let elo = |g: &u32, side: &str| -> Option<u32> { tags[g].get(side)?.parse().ok() };
    let blitz = |g: &u32| {
        tags[g].get("TimeControl").is_some_and(|tc| {
            let (b, i) = tc.split_once('+').unwrap_or((tc, "0"));
            let t = b.parse::<u64>().unwrap_or(0) + 40 * i.parse::<u64>().unwrap_or(0);
            (180..480).contains(&t)
        })
    };
    let rating = |g: &u32| -> u32 {
        let k: Vec<u32> = [elo(g, "WhiteElo"), elo(g, "BlackElo")]
            .into_iter()
            .flatten()
            .collect();
        (k.iter().sum::<u32>() + k.len() as u32 / 2) / k.len().max(1) as u32
    };
    let queries: [&[&str]; 4] = [
        &["--moves", "e4 e5"],
        &[
            "--fen",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ],
        &["--pattern", "*/*/*/*/????P???/*/*/*"],
        &["--material", "KQ*R*P*vKQ*R*P*"],
    ];
    assert_eq!(
        ids(&db, queries[0]),
        ids(&db, queries[1]),
        "--moves equals --fen"
    );
    for q in queries {
        let all = ids(&db, q);
        assert!(all.len() > 20, "{q:?}: {} games", all.len());
        // Speed filter: exactly the blitz games among them.
        let mut args = q.to_vec();
        args.extend_from_slice(&["--speeds", "blitz"]);
        let want: Vec<u32> = all.iter().copied().filter(blitz).collect();
        assert!(!want.is_empty() && want.len() < all.len(), "{q:?}");
        assert_eq!(ids(&db, &args), want, "{q:?} blitz");
        // Player: every game of one player who appears among them.
        let name = tags[&all[0]]["Black"].clone();
        let upper = name.to_uppercase();
        let mut args = q.to_vec();
        args.extend_from_slice(&["--player", &upper]);
        let want: Vec<u32> = all
            .iter()
            .copied()
            .filter(|g| tags[g]["White"] == name || tags[g]["Black"] == name)
            .collect();
        assert_eq!(ids(&db, &args), want, "{q:?} player {name}");
        // Rating order, then paging of that order.
        let mut args = q.to_vec();
        args.extend_from_slice(&["--sort", "rating"]);
        let sorted = ids(&db, &args);
        let mut want = all.clone();
        want.sort_by_key(|g| (std::cmp::Reverse(rating(g)), *g));
        assert_eq!(sorted, want, "{q:?} by rating");
        args.extend_from_slice(&["--offset", "3", "--limit", "5"]);
        assert_eq!(ids(&db, &args), want[3..8].to_vec(), "{q:?} page");
        // Months: all games are from 2025-05.
        let mut args = q.to_vec();
        args.extend_from_slice(&["--since", "2025-05", "--until", "2025-05"]);
        assert_eq!(ids(&db, &args), all, "{q:?} May 2025");
        let mut args = q.to_vec();
        args.extend_from_slice(&["--until", "2025-04"]);
        assert!(ids(&db, &args).is_empty(), "{q:?} before May 2025");
    }
    // Games written, paged: the MatchPly games are those of the id page.
    let page = ok(&[
        "find",
        db.to_str().unwrap(),
        "--moves",
        "d4",
        "--sort",
        "date",
        "--offset",
        "1",
        "--limit",
        "2",
    ]);
    assert_eq!(page.matches("[MatchPly ").count(), 2, "{page}");
    // Bad filters are usage errors.
    for bad in [
        &["--moves", "e5"][..],
        &["--moves", "e4", "--ratings", "1500"],
        &["--moves", "e4", "--speeds", "fast"],
        &["--moves", "e4", "--since", "2025-13"],
    ] {
        let mut all = vec!["find", db.to_str().unwrap()];
        all.extend_from_slice(bad);
        let out = run(GAMEREC, &all, b"");
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
