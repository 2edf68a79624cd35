//! The position index against a full scan, on every corpus PGN: `find`
//! (exact positions), pattern, sub-FEN and material scans of the stored
//! boards (games and first matching ply), and the opening tree give exactly
//! what replaying every game gives; games read back from a zstd database's
//! frames equal the plain file's bytes.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gamerec::model::Game;
use gamerec_db::filter::{Expr, Subject};
use gamerec_db::index::{BuildOptions, Index, build};
use gamerec_db::material::MaterialSpec;
use gamerec_db::pattern::{Pattern, Pieces};
use gamerec_db::position::{key, mainline};
use gamerec_testkit::{corpus, files_with_extension, temp_dir};
use shakmaty::{Chess, Position};

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
                index.find(&q).unwrap(),
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
                .unwrap()
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
fn pattern_sub_fen_and_material_scans_equal_a_full_scan() {
    let dir = temp_dir("db-index-pattern");
    let patterns = [
        "*/*/*/*/???PP???/*/*/*",
        "?????rk?/?????ppp/*/*/*/*/*/*",
        "*/*/*/*/???pN???/???P????/*/*",
        "*/*/*/*/*/*/PPP*/??KR????",
        "*/*/*/*/*PP*/*/*/*",
        "[^Pp]*/*/*/*/*/*/*/*",
        "*/*/*/*/*[Bb]*[Nn]*/*/*/*",
        "*/*/*/8/8/*/*/*",
        "*/*/*/*/*a*A*/*/*/*",
    ];
    let sub_fens = [
        "8/8/8/8/4N3/8/8/8",
        "8/8/8/8/3K4/8/8/8",
        "6k1/5ppp/8/8/8/8/5PPP/6K1",
        "r7/8/8/8/8/8/8/7R",
    ];
    let materials = [
        ("KRP*vKR", false),
        ("KQvKR", true),
        ("KR*P*vKR*P*", false),
        ("KBNvK", true),
        ("KP+vKP*", true),
        ("KQQvKQ", true),
    ];
    let mut found_any = 0;
    for (name, data) in corpus_pgns() {
        let games = games_of(&data);
        let lines: Vec<Option<Vec<Chess>>> =
            games.iter().map(|g| g.as_ref().map(mainline)).collect();
        let short = Path::new(&name)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let index = build_index(&data, &dir, &short);
        // The full scan: each game's first ply whose board passes `test`.
        let scan = |test: &dyn Fn(&shakmaty::Board) -> bool| -> Vec<(u32, u16)> {
            lines
                .iter()
                .enumerate()
                .filter_map(|(g, l)| {
                    let ply = l.as_ref()?.iter().position(|p| test(p.board()))?;
                    Some((g as u32, ply as u16))
                })
                .collect()
        };
        let mut check = |what: &str,
                         test: &dyn Fn(&shakmaty::Board) -> bool,
                         packed: &(dyn Fn(&[u8; 24]) -> bool + Sync),
                         expr: Option<Expr>| {
            let want = scan(test);
            for threads in [1, 3] {
                let got = index.position_games(packed, threads).unwrap();
                assert!(got.replay.is_empty(), "{name}: {what}");
                assert_eq!(got.found, want, "{name}: {what}, {threads} threads");
            }
            let found: Vec<u32> = want.iter().map(|f| f.0).collect();
            // The filter language agrees on the games (one query of each
            // kind: it replays every game).
            if let Some(expr) = expr {
                let by_filter: Vec<u32> = games
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.as_ref().is_some_and(|g| expr.matches(&Subject::new(g))))
                    .map(|(i, _)| i as u32)
                    .collect();
                assert_eq!(found, by_filter, "{name}: {what} (filter)");
            }
            found_any += found.len();
        };
        for (i, p) in patterns.into_iter().enumerate() {
            let pat = Pattern::parse(p).unwrap();
            let m = pat.matcher().clone();
            check(
                p,
                &|b| pat.matches_by_ranks(b),
                &move |b| m.test_packed(b),
                (i == 0).then(|| Expr::parse(&format!("pattern=\"{p}\"")).unwrap()),
            );
        }
        for (i, p) in sub_fens.into_iter().enumerate() {
            let pat = Pattern::parse_sub_fen(p).unwrap();
            let m = pat.matcher().clone();
            check(
                p,
                &|b| pat.matches_by_ranks(b),
                &move |b| m.test_packed(b),
                (i == 0).then(|| Expr::parse(&format!("subfen=\"{p}\"")).unwrap()),
            );
        }
        for (i, (m, any)) in materials.into_iter().enumerate() {
            let spec = MaterialSpec::parse(m, any).unwrap();
            let atom = if any { "material-any" } else { "material" };
            check(
                m,
                &|b| spec.matches(b),
                &|b| spec.matches_counts(&Pieces::packed_counts(b)),
                (i == 0).then(|| Expr::parse(&format!("{atom}={m}")).unwrap()),
            );
        }
    }
    assert!(found_any > 1000, "{found_any}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A zstd database of many frames: the index records its frame table and
/// every game read back from its frame equals its bytes in the plain file.
#[test]
fn games_are_read_back_from_their_zstd_frame() {
    let dir = temp_dir("db-index-frames");
    let data = std::fs::read(corpus("pgn/twic1599_1000k.pgn")).unwrap();
    let zst = dir.join("frames.pgn.zst");
    let mut z = Vec::new();
    // Frames with and without the content size in their header.
    for (i, chunk) in data.chunks(100_000).enumerate() {
        if i % 2 == 0 {
            z.extend(zstd::encode_all(chunk, 3).unwrap());
        } else {
            let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
            e.include_contentsize(false).unwrap();
            std::io::Write::write_all(&mut e, chunk).unwrap();
            z.extend(e.finish().unwrap());
        }
    }
    std::fs::write(&zst, &z).unwrap();
    let frames = gamerec_db::frames::frame_table(&zst).unwrap();
    assert_eq!(frames.len(), data.len().div_ceil(100_000));
    assert!(
        frames
            .iter()
            .enumerate()
            .all(|(i, f)| f.1 == i as u64 * 100_000)
    );
    let out = dir.join("frames.idx");
    let opts = BuildOptions {
        threads: 2,
        temp_dir: dir.clone(),
        run_entries: 7000,
        database: None,
        database_path: Some(zst.clone()),
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    };
    build(&gamerec::io::Input::file(&zst), None, &out, &opts, |_| {}).unwrap();
    let index = Index::open(&out).unwrap();
    assert_eq!(index.frames(), frames);
    let db = gamerec_db::explorer::Database::new(&zst).unwrap();
    for g in 0..index.games() as u32 {
        let from = index.game(g).unwrap().offset as usize;
        let to = index.game(g + 1).map_or(data.len(), |i| i.offset as usize);
        assert_eq!(
            db.game_bytes(&index, g).unwrap().unwrap(),
            &data[from..to],
            "game {g}"
        );
    }
    // One frame: no table (it cannot be entered in the middle).
    std::fs::write(&zst, zstd::encode_all(&data[..], 3).unwrap()).unwrap();
    assert!(gamerec_db::frames::frame_table(&zst).unwrap().is_empty());
    // Plain files have none either.
    assert!(
        gamerec_db::frames::frame_table(&corpus("pgn/eco.pgn"))
            .unwrap()
            .is_empty()
    );
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
