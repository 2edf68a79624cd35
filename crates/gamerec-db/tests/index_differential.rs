//! The position index against a full scan, on every corpus PGN: `find`
//! (exact positions), pattern and material prefilters (the candidates hold
//! every match), and the opening tree give exactly what replaying every game
//! gives.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gamerec::model::Game;
use gamerec_db::filter::{Expr, Subject};
use gamerec_db::index::{BuildOptions, Index, build};
use gamerec_db::material::MaterialSpec;
use gamerec_db::pattern::Pattern;
use gamerec_db::position::{key, mainline};
use gamerec_testkit::{corpus, files_with_extension, temp_dir};
use shakmaty::Chess;

/// Builds an index of `data` (written to a file beside `out`).
fn build_bytes(
    data: &[u8],
    previous: Option<Arc<Index>>,
    out: &Path,
    opts: &BuildOptions,
) -> Result<(), gamerec_db::index::IndexError> {
    let db = out.with_extension("pgn");
    std::fs::write(&db, data).unwrap();
    build(&gamerec::io::Input::file(&db), previous, out, opts, |_| {}).map(|_| ())
}

/// Every corpus PGN, as (name, bytes).
fn corpus_pgns() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
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
    for p in paths {
        out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
    }
    let tcec = corpus("pgn/tcec-2011-2021.pgn.zst");
    let raw = std::fs::read(&tcec).unwrap();
    out.push((
        tcec.display().to_string(),
        zstd::decode_all(&raw[..]).unwrap(),
    ));
    out
}

/// The games as the index numbers them (unreadable games as `None`).
fn games_of(data: &[u8]) -> Vec<Option<Game>> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = temp_dir("db-games-of");
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{n}.pgn"));
    std::fs::write(&path, data).unwrap();
    let opts = gamerec::io::pipeline::Options {
        threads: 1,
        ..gamerec::io::pipeline::Options::default()
    };
    let mut games = Vec::new();
    gamerec_db::source::for_each_game(
        &gamerec::io::Input::file(&path),
        &opts,
        |r| r.game.clone(),
        |o| {
            games.push(o.ok().map(|(_, g)| g));
            Ok(true)
        },
        |_| {},
    )
    .unwrap();
    std::fs::remove_file(&path).ok();
    games
}

fn build_index(data: &[u8], dir: &Path, name: &str) -> Index {
    let out = dir.join(format!("{name}.idx"));
    let opts = BuildOptions {
        threads: 2,
        temp_dir: dir.to_path_buf(),
        // Small runs: spills and multi-way merges happen on every file.
        run_entries: 5000,
        database: None,
        database_path: None,
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    };
    build_bytes(data, None, &out, &opts).unwrap();
    Index::open(&out).unwrap()
}

/// Positions to ask for: from every 5th game, plies 0, 1, 6, 12, 25, 50 and
/// the last; plus a position no game reaches.
fn queries(games: &[Option<Game>]) -> Vec<Chess> {
    let mut out =
        vec![gamerec_db::position::parse_query_fen("8/8/8/4k3/8/8/8/K6Q w - - 0 1").unwrap()];
    for g in games.iter().step_by(5).flatten() {
        let line = mainline(g);
        for ply in [0, 1, 6, 12, 25, 50, line.len() - 1] {
            if let Some(p) = line.get(ply) {
                out.push(p.clone());
            }
        }
    }
    out
}

/// Per game, each position's key and the first ply reaching it.
fn first_plies(lines: &[Option<Vec<Chess>>]) -> Vec<HashMap<u64, u16>> {
    lines
        .iter()
        .map(|l| {
            let mut m = HashMap::new();
            for (ply, p) in l.iter().flatten().enumerate() {
                m.entry(key(p)).or_insert(ply as u16);
            }
            m
        })
        .collect()
}

/// Full scan: games reaching `pos`, with the first ply.
fn scan(first: &[HashMap<u64, u16>], pos: &Chess) -> Vec<(u32, u16)> {
    let k = key(pos);
    first
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.get(&k).map(|&ply| (i as u32, ply)))
        .collect()
}

#[test]
fn find_and_tree_equal_a_full_scan_on_every_corpus_pgn() {
    let dir = temp_dir("db-index");
    let mut total_queries = 0;
    for (name, data) in corpus_pgns() {
        let games = games_of(&data);
        let short = Path::new(&name)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let index = build_index(&data, &dir, &short);
        assert_eq!(index.games(), games.len() as u64, "{name}");
        assert_eq!(index.db_len(), data.len() as u64, "{name}");
        let lines: Vec<Option<Vec<Chess>>> =
            games.iter().map(|g| g.as_ref().map(mainline)).collect();
        let first = first_plies(&lines);
        for q in queries(&games) {
            total_queries += 1;
            let expected = scan(&first, &q);
            assert_eq!(
                index.find(&q),
                expected,
                "{name}: find {}",
                gamerec::fen::write_fen(&q, shakmaty::CastlingMode::Standard)
            );
            // The tree: the move each game played right after its first
            // arrival, when that arrival is also its next position's first.
            let mut want: BTreeMap<String, u64> = BTreeMap::new();
            for &(g, ply) in &expected {
                let (Some(game), Some(line)) = (&games[g as usize], &lines[g as usize]) else {
                    continue;
                };
                let Some(next) = line.get(ply as usize + 1) else {
                    continue;
                };
                if first[g as usize][&key(next)] != ply + 1 {
                    continue;
                }
                let node = game.tree.mainline().nth(ply as usize).unwrap();
                let san = game.tree.node(node).ply.as_ref().unwrap().san.clone();
                *want.entry(san).or_default() += 1;
            }
            let got: BTreeMap<String, u64> = index
                .tree(&q)
                .into_iter()
                .map(|t| (t.san, t.games))
                .collect();
            assert_eq!(got, want, "{name}: tree");
        }
    }
    assert!(total_queries > 1000, "only {total_queries} queries");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pattern_and_material_candidates_hold_every_match() {
    let dir = temp_dir("db-index-pattern");
    let patterns = [
        "*/*/*/*/???PP???/*/*/*",
        "?????rk?/?????ppp/*/*/*/*/*/*",
        "*/*/*/*/???pN???/???P????/*/*",
        "*/*/*/*/*/*/PPP*/??KR????",
    ];
    let materials = [
        ("KRP*vKR", false),
        ("KQvKR", true),
        ("KR*P*vKR*P*", false),
        ("KBNvK", true),
        ("KP+vKP*", true),
    ];
    for (name, data) in corpus_pgns() {
        let games = games_of(&data);
        let short = Path::new(&name)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let index = build_index(&data, &dir, &short);
        let check = |expr: Expr, cands: Vec<u32>, what: &str| {
            let scan: Vec<u32> = games
                .iter()
                .enumerate()
                .filter(|(_, g)| g.as_ref().is_some_and(|g| expr.matches(&Subject::new(g))))
                .map(|(i, _)| i as u32)
                .collect();
            let verified: Vec<u32> = cands
                .iter()
                .copied()
                .filter(|&g| {
                    games[g as usize]
                        .as_ref()
                        .is_some_and(|g| expr.matches(&Subject::new(g)))
                })
                .collect();
            assert_eq!(verified, scan, "{name}: {what}");
        };
        for p in patterns {
            let pat = Pattern::parse(p).unwrap();
            let (min, pawns) = pat.requirements();
            let cands = index.candidates(
                |sig| {
                    let c = gamerec_db::material::unpack_signature(sig);
                    (0..2).all(|s| (0..6).all(|r| c[s][r] >= min[s][r]))
                },
                [u64::from(pawns[0]), u64::from(pawns[1])],
            );
            check(Expr::parse(&format!("pattern=\"{p}\"")).unwrap(), cands, p);
        }
        for (m, any) in materials {
            let spec = MaterialSpec::parse(m, any).unwrap();
            let cands = index.candidates(|sig| spec.matches_signature(sig), [0, 0]);
            let atom = if any { "material-any" } else { "material" };
            check(Expr::parse(&format!("{atom}={m}")).unwrap(), cands, m);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn appending_equals_building_whole() {
    let dir = temp_dir("db-index-append");
    let data = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    // Cut at a game start near the middle.
    let mid = data.len() / 2;
    let cut = mid
        + data[mid..]
            .windows(8)
            .position(|w| w == b"\n[Event ")
            .unwrap()
        + 1;
    let first = dir.join("first.idx");
    let opts = BuildOptions {
        threads: 2,
        temp_dir: dir.clone(),
        run_entries: 7000,
        database: None,
        database_path: None,
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    };
    build_bytes(&data[..cut], None, &first, &opts).unwrap();
    let old = Arc::new(Index::open(&first).unwrap());
    assert_eq!(old.db_len(), cut as u64);
    let appended = dir.join("appended.idx");
    // Read on from where the old index ends, in the whole file.
    let db = dir.join("appended.pgn");
    std::fs::write(&db, &data).unwrap();
    build(
        &gamerec::io::Input::file(&db),
        Some(old),
        &appended,
        &opts,
        |_| {},
    )
    .unwrap();
    let whole = dir.join("whole.idx");
    build_bytes(&data[..], None, &whole, &opts).unwrap();
    let (a, w) = (
        Index::open(&appended).unwrap(),
        Index::open(&whole).unwrap(),
    );
    assert_eq!(a.games(), w.games());
    assert_eq!(a.db_len(), w.db_len());
    assert_eq!(
        std::fs::read(&appended).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_files_are_refused() {
    let dir = temp_dir("db-index-bad");
    let path = dir.join("bad.idx");
    for bytes in [&b""[..], b"GRIDX\x00\x01\x00short", &[0u8; 200][..]] {
        std::fs::write(&path, bytes).unwrap();
        assert!(Index::open(&path).is_err());
    }
    // A valid header whose sections point past the end.
    let mut header = vec![0u8; 128];
    header[..8].copy_from_slice(b"GRIDX\x00\x01\x00");
    header[24..32].copy_from_slice(&1000u64.to_le_bytes());
    header[32..40].copy_from_slice(&1000u64.to_le_bytes());
    std::fs::write(&path, &header).unwrap();
    assert!(Index::open(&path).is_err());
    let _ = HashMap::<u8, u8>::new();
    let _ = std::fs::remove_dir_all(&dir);
}
