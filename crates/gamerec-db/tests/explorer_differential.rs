//! The explorer against a full scan on every corpus PGN: for positions from
//! the games and filter sets (rating groups, speeds, month ranges, player,
//! combined), the totals, every move's counts and average rating, the top
//! and recent games equal what replaying every game and reading its tags
//! gives. The scan reads ratings, TimeControl, Date and names itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use gamerec::model::{Game, GameResult};
use gamerec_db::explorer::{Filters, Request, explore};
use gamerec_db::index::{BuildOptions, Index, build};
use gamerec_db::meta::Speed;
use gamerec_db::position::{key, mainline};
use gamerec_testkit::{corpus, files_with_extension, temp_dir};
use shakmaty::Chess;

fn corpus_pgns() -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = vec![
        corpus("pgn/twic1599_1000k.pgn"),
        corpus("pgn/lichess_db_1000k.pgn"),
        corpus("pgn/eco.pgn"),
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

/// What the scan knows of a game, read from its tags here.
struct Scanned {
    line: Vec<Chess>,
    sans: Vec<String>,
    first: std::collections::HashMap<u64, usize>,
    elo: [u32; 2],
    seconds: Option<u64>,
    correspondence: bool,
    date: (u32, u32, u32),
    names: [String; 2],
    result: GameResult,
}

fn scanned(g: &Game) -> Scanned {
    let line = mainline(g);
    let mut first = std::collections::HashMap::new();
    for (i, p) in line.iter().enumerate() {
        first.entry(key(p)).or_insert(i);
    }
    let sans = g
        .tree
        .mainline()
        .filter_map(|n| g.tree.node(n).ply.as_ref().map(|p| p.san.clone()))
        .collect();
    let tag = |t: &str| g.tags.get(t).unwrap_or("").trim().to_string();
    let elo = |t: &str| {
        tag(t)
            .parse::<u32>()
            .ok()
            .filter(|&e| e <= 65535)
            .unwrap_or(0)
    };
    // TimeControl: "base+inc" or "base" in seconds; "moves/secs" periods.
    let tc = tag("TimeControl");
    let seconds = tc.split(':').next().and_then(|p| {
        let p = p.trim_start_matches('*');
        let (b, i) = p.split_once('+').unwrap_or((p, "0"));
        let b = b.rsplit('/').next()?;
        Some(b.parse::<f64>().ok()? as u64 + 40 * (i.parse::<f64>().ok()? as u64))
    });
    let d: Vec<u32> = tag("Date")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0))
        .collect();
    let part = |i: usize, max: u32| {
        d.get(i)
            .copied()
            .filter(|&v| v >= 1 && v <= max)
            .unwrap_or(0)
    };
    let month = part(1, 12);
    Scanned {
        line,
        sans,
        first,
        elo: [elo("WhiteElo"), elo("BlackElo")],
        seconds,
        correspondence: tc == "-",
        date: (
            part(0, 9999),
            month,
            if month == 0 { 0 } else { part(2, 31) },
        ),
        names: [tag("White").to_lowercase(), tag("Black").to_lowercase()],
        result: gamerec::pgn::writer::export_result(g),
    }
}

fn rating(s: &Scanned) -> Option<u32> {
    let k: Vec<u32> = s.elo.iter().copied().filter(|&e| e > 0).collect();
    (!k.is_empty()).then(|| (k.iter().sum::<u32>() + k.len() as u32 / 2) / k.len() as u32)
}

fn speed(s: &Scanned) -> Option<&'static str> {
    if s.correspondence {
        return Some("correspondence");
    }
    Some(match s.seconds? {
        0..30 => "ultraBullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        1500..21600 => "classical",
        _ => "correspondence",
    })
}

/// The scan's own reading of the filters.
fn passes(s: &Scanned, f: &Filters) -> bool {
    if !f.ratings.is_empty() {
        let Some(r) = rating(s) else { return false };
        let groups = [0u32, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];
        let g = groups.iter().rev().find(|&&g| g <= r).copied().unwrap();
        if !f.ratings.iter().any(|&x| u32::from(x) == g) {
            return false;
        }
    }
    if !f.speeds.is_empty() && !speed(s).is_some_and(|n| f.speeds.iter().any(|x| x.name() == n)) {
        return false;
    }
    if f.since.is_some() || f.until.is_some() {
        let (y, m, _) = s.date;
        if y == 0 {
            return false;
        }
        let lo = y * 100 + if m == 0 { 1 } else { m };
        let hi = y * 100 + if m == 0 { 12 } else { m };
        if let Some((sy, sm)) = f.since
            && lo < u32::from(sy) * 100 + u32::from(sm)
        {
            return false;
        }
        if let Some((uy, um)) = f.until
            && hi > u32::from(uy) * 100 + u32::from(um)
        {
            return false;
        }
    }
    if let Some(p) = &f.player {
        let p = p.trim().to_lowercase();
        if p.is_empty() || p == "?" || !s.names.contains(&p) {
            return false;
        }
    }
    true
}

fn filter_sets(games: &[Option<Scanned>]) -> Vec<Filters> {
    let mut out = vec![Filters::default()];
    let mut f = |edit: &dyn Fn(&mut Filters)| {
        let mut x = Filters::default();
        edit(&mut x);
        out.push(x);
    };
    f(&|x| x.ratings = vec![1600, 1800]);
    f(&|x| x.ratings = vec![2500, 0]);
    f(&|x| x.speeds = vec![Speed::Blitz]);
    f(&|x| x.speeds = vec![Speed::Classical, Speed::Rapid, Speed::Correspondence]);
    f(&|x| x.set_since("2020-01").unwrap());
    f(&|x| {
        x.set_since("2011").unwrap();
        x.set_until("2016-06").unwrap();
    });
    f(&|x| x.set_until("2025-04").unwrap());
    if let Some(name) = games
        .iter()
        .flatten()
        .map(|g| g.names[0].clone())
        .find(|n| !n.is_empty() && n != "?")
    {
        let n2 = name.to_uppercase();
        f(&move |x| x.player = Some(n2.clone()));
    }
    f(&|x| {
        x.ratings = vec![1400, 1600, 1800, 2000];
        x.speeds = vec![Speed::Blitz, Speed::Bullet];
        x.set_since("2025-05").unwrap();
    });
    out
}

#[test]
fn filtered_trees_and_games_equal_a_full_scan_on_every_corpus_pgn() {
    let dir = temp_dir("db-explorer");
    let mut checked = 0usize;
    let mut nonempty_filtered = 0usize;
    for (name, data) in corpus_pgns() {
        // The database as a file: the index and the scan read it through
        // the library's pipeline.
        let db = dir.join("db.pgn");
        std::fs::write(&db, &data).unwrap();
        let input = gamerec::io::Input::file(&db);
        let reading = gamerec::io::pipeline::Options {
            threads: 2,
            ..gamerec::io::pipeline::Options::default()
        };
        let mut games: Vec<Option<Scanned>> = Vec::new();
        gamerec_db::source::for_each_game(
            &input,
            &reading,
            |r| scanned(&r.game),
            |o| {
                games.push(o.ok().map(|(_, s)| s));
                Ok(true)
            },
            |_| {},
        )
        .unwrap();
        let out = dir.join("x.idx");
        let opts = BuildOptions {
            threads: 2,
            temp_dir: dir.clone(),
            run_entries: 1 << 16,
            database: None,
            database_path: None,
            max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
        };
        build(&input, None, &out, &opts, |_| {}).unwrap();
        let index = Index::open(&out).unwrap();
        // Positions: the start, and plies 1, 2, 4, 8 of every 7th game.
        let mut queries = vec![Chess::default()];
        for g in games.iter().step_by(7).flatten() {
            for ply in [1, 2, 4, 8] {
                if let Some(p) = g.line.get(ply) {
                    queries.push(p.clone());
                }
            }
        }
        queries.truncate(40);
        for filters in filter_sets(&games) {
            let req = Request {
                filters: filters.clone(),
                moves: None,
                top_games: 6,
                recent_games: 6,
            };
            for q in &queries {
                let k = key(q);
                let report = explore(&index, q, &req).unwrap();
                // The scan.
                let (mut reached, mut wdb, mut ended) = (0u64, [0u64; 3], 0u64);
                let mut moves: BTreeMap<String, ([u64; 4], u64, u64)> = BTreeMap::new();
                let mut listed: Vec<(u32, &Scanned)> = Vec::new();
                for (i, g) in games.iter().enumerate() {
                    let Some(g) = g else { continue };
                    let Some(&ply) = g.first.get(&k) else {
                        continue;
                    };
                    if !passes(g, &filters) {
                        continue;
                    }
                    reached += 1;
                    listed.push((i as u32, g));
                    let r = match g.result {
                        GameResult::WhiteWins => Some(0),
                        GameResult::Draw => Some(1),
                        GameResult::BlackWins => Some(2),
                        GameResult::Unknown => None,
                    };
                    if let Some(r) = r {
                        wdb[r] += 1;
                    }
                    if ply + 1 == g.line.len() {
                        ended += 1;
                    }
                    let Some(next) = g.line.get(ply + 1) else {
                        continue;
                    };
                    if g.first[&key(next)] != ply + 1 {
                        continue;
                    }
                    let e = moves.entry(g.sans[ply].clone()).or_default();
                    e.0[3] += 1;
                    if let Some(r) = r {
                        e.0[r] += 1;
                    }
                    for el in g.elo {
                        if el > 0 {
                            e.1 += u64::from(el);
                            e.2 += 1;
                        }
                    }
                }
                let what = format!(
                    "{name}: {filters:?} at {}",
                    gamerec::fen::write_fen(q, shakmaty::CastlingMode::Standard)
                );
                let t = report.totals;
                assert_eq!(
                    (t.games, [t.white, t.draws, t.black], t.ended),
                    (reached, wdb, ended),
                    "{what}: totals"
                );
                let got: BTreeMap<String, ([u64; 4], Option<u32>)> = report
                    .moves
                    .iter()
                    .map(|m| {
                        let t = &m.tree;
                        (
                            t.san.clone(),
                            ([t.white, t.draws, t.black, t.games], t.average_elo),
                        )
                    })
                    .collect();
                let want: BTreeMap<String, ([u64; 4], Option<u32>)> = moves
                    .into_iter()
                    .map(|(s, (c, sum, n))| (s, (c, (n > 0).then(|| ((sum + n / 2) / n) as u32))))
                    .collect();
                assert_eq!(got, want, "{what}: moves");
                for m in &report.moves {
                    assert_eq!(
                        m.game.is_some(),
                        m.tree.games == 1,
                        "{what}: a move's one game"
                    );
                }
                // Top: rated games by rating, then number; recent: dated
                // games latest first, the later number first.
                let mut top: Vec<(u32, u32)> = listed
                    .iter()
                    .filter_map(|(i, g)| rating(g).map(|r| (*i, r)))
                    .collect();
                top.sort_by_key(|&(i, r)| (std::cmp::Reverse(r), i));
                let top: Vec<u32> = top.into_iter().take(6).map(|t| t.0).collect();
                let mut recent: Vec<(u32, (u32, u32, u32))> = listed
                    .iter()
                    .filter(|(_, g)| g.date.0 > 0)
                    .map(|(i, g)| (*i, g.date))
                    .collect();
                recent.sort_by_key(|&(i, d)| std::cmp::Reverse((d, i)));
                let recent: Vec<u32> = recent.into_iter().take(6).map(|t| t.0).collect();
                assert_eq!(
                    report.top_games.iter().map(|r| r.id).collect::<Vec<_>>(),
                    top,
                    "{what}: top games"
                );
                assert_eq!(
                    report.recent_games.iter().map(|r| r.id).collect::<Vec<_>>(),
                    recent,
                    "{what}: recent games"
                );
                checked += 1;
                if !filters.is_empty() && reached > 0 {
                    nonempty_filtered += 1;
                }
            }
        }
    }
    assert!(checked > 2000, "only {checked} queries");
    assert!(
        nonempty_filtered > 300,
        "only {nonempty_filtered} filtered answers with games"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
