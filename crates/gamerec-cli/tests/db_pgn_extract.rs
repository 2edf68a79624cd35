//! `gamerec filter`, `dedup` and `eco` against pgn-extract on the corpus:
//! the same games (in the same order) and the same ECO tags.
//!
//! Criteria compared: a player on either side (pgn-extract's `Player`,
//! a name prefix), Elo relations (`Elo >=`, `WhiteElo <`), an ECO range
//! (pgn-extract has no ranges: its `ECO` prefixes, or-ed), duplicates (`-D`)
//! and classification (`-e`).

use crate::util::cli;

use std::path::{Path, PathBuf};

use gamerec_testkit::{assert_success, corpus, peer, run, temp_dir};

fn pgn_extract(pe: &Path, args: &[&str], dir: &Path) -> Vec<u8> {
    let out_file = dir.join("pe-out.pgn");
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.push("--quiet".into());
    all.push(format!("-o{}", out_file.display()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = run(pe, &refs, b"");
    assert_success(&out, &format!("pgn-extract {}", args.join(" ")));
    std::fs::read(&out_file).unwrap_or_default()
}

/// Per game, the values of the tags in `names`, joined (each game decoded
/// by its own encoding, so UTF-8 and Latin-1 copies of a name agree).
fn games_by(text: &[u8], names: &[&str]) -> Vec<String> {
    let (games, _) = gamerec::pgn::read_games(text);
    games
        .iter()
        .map(|g| {
            names
                .iter()
                .map(|n| g.tags.get(n).unwrap_or("-"))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// Asserts two game lists are equal, showing the counts and the first
/// difference (not the whole lists).
fn assert_same(mine: &[String], theirs: &[String], what: &str) {
    if mine == theirs {
        return;
    }
    let first = mine
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(mine.len().min(theirs.len()));
    panic!(
        "{what}: gamerec {} games, pgn-extract {}; first difference at game {}:\n  gamerec:     {:?}\n  pgn-extract: {:?}",
        mine.len(),
        theirs.len(),
        first + 1,
        mine.get(first),
        theirs.get(first)
    );
}

/// The tags that identify a game here. Not Event: TCEC files write a tag
/// pair after a `;` comment on the same line, which the standard (and
/// gamerec) reads as comment text and pgn-extract as a tag.
const IDENTITY: [&str; 6] = ["Site", "Date", "Round", "White", "Black", "Result"];

/// The corpus files compared (TCEC decompressed into `dir`).
fn files(dir: &Path) -> Vec<PathBuf> {
    let tcec = dir.join("tcec.pgn");
    if !tcec.exists() {
        let raw = std::fs::read(corpus("pgn/tcec-2011-2021.pgn.zst")).expect("tcec corpus file");
        std::fs::write(&tcec, zstd::decode_all(&raw[..]).expect("zstd")).expect("write tcec");
    }
    vec![
        corpus("pgn/twic1599_1000k.pgn"),
        corpus("pgn/lichess_db_1000k.pgn"),
        corpus("pgn/pgn-extract-tests/infiles/fischer.pgn"),
        corpus("pgn/pgn-extract-tests/infiles/petrosian.pgn"),
        tcec,
    ]
}

fn same_games(pe: &Path, dir: &Path, file: &Path, ours: &[&str], theirs_tags: &str) {
    let f = file.to_str().unwrap();
    let mut args = ours.to_vec();
    args.push(f);
    let mine = games_by(&cli(&args).run_ok().into_stdout(), &IDENTITY);
    let tags = dir.join("criteria.txt");
    std::fs::write(&tags, theirs_tags).unwrap();
    let theirs = games_by(
        &pgn_extract(pe, &[&format!("-t{}", tags.display()), f], dir),
        &IDENTITY,
    );
    assert_same(
        &mine,
        &theirs,
        &format!("{f}: gamerec {ours:?} vs pgn-extract {theirs_tags:?}"),
    );
    eprintln!("{f}: {ours:?}: {} games", mine.len());
}

#[test]
fn filter_by_player_elo_and_eco_range_matches_pgn_extract() {
    let Some(pe) = peer("pgn-extract") else {
        return;
    };
    let dir = temp_dir("db-pe-filter");
    let mut nonempty = 0;
    for file in files(&dir) {
        // A player from the file itself: the prefix of its third game's White.
        let text = std::fs::read(&file).unwrap();
        let (games, _) = gamerec::pgn::read_games(&text[..text.len().min(1 << 20)]);
        let white = games[2].tags.get("White").unwrap().to_string();
        let prefix: String = white.chars().take(5).collect();
        let player = format!("--player={prefix}");
        same_games(
            &pe,
            &dir,
            &file,
            &["filter", &player],
            &format!("Player \"{prefix}\"\n"),
        );
        same_games(
            &pe,
            &dir,
            &file,
            &["filter", "--tag", "Elo>=2500"],
            "Elo >= \"2500\"\n",
        );
        same_games(
            &pe,
            &dir,
            &file,
            &["filter", "--tag", "WhiteElo<2000"],
            "WhiteElo < \"2000\"\n",
        );
        let eco_prefixes: String = (2..10).map(|d| format!("ECO \"B{d}\"\n")).collect();
        same_games(
            &pe,
            &dir,
            &file,
            &["filter", "--eco", "B20-B99"],
            &eco_prefixes,
        );
        let mine = cli(&["filter", "--eco", "B20-B99", file.to_str().unwrap()])
            .run_ok()
            .into_stdout();
        nonempty += usize::from(!mine.is_empty());
    }
    assert!(
        nonempty >= 3,
        "the ECO range selected games in too few files"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dedup_matches_pgn_extract() {
    let Some(pe) = peer("pgn-extract") else {
        return;
    };
    let dir = temp_dir("db-pe-dedup");
    let files = files(&dir);
    // Each file after a copy of part of itself and of another: real duplicates.
    for (i, file) in files.iter().enumerate() {
        let other = &files[(i + 1) % files.len()];
        let joined = dir.join(format!("joined{i}.pgn"));
        let mut data = std::fs::read(other).unwrap();
        data.truncate(data.len().min(300_000));
        // Cut at a game boundary.
        if let Some(cut) = data.windows(8).rposition(|w| w == b"\n[Event ") {
            data.truncate(cut + 1);
        }
        data.extend_from_slice(&std::fs::read(file).unwrap());
        data.extend_from_slice(b"\n");
        data.extend_from_slice(&std::fs::read(other).unwrap());
        std::fs::write(&joined, &data).unwrap();
        let j = joined.to_str().unwrap();
        let mine = games_by(&cli(&["dedup", "-q", j]).run_ok().into_stdout(), &IDENTITY);
        let theirs = games_by(&pgn_extract(&pe, &["-D", j], &dir), &IDENTITY);
        assert_same(&mine, &theirs, j);
        let all = games_by(&std::fs::read(j).unwrap(), &IDENTITY);
        assert!(mine.len() < all.len(), "{j}: no duplicate dropped");
    }
    // pgn-extract's own duplicate test: fischer.pgn then petrosian.pgn.
    let a = corpus("pgn/pgn-extract-tests/infiles/fischer.pgn");
    let b = corpus("pgn/pgn-extract-tests/infiles/petrosian.pgn");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let mine = games_by(
        &cli(&["dedup", "-q", a, b]).run_ok().into_stdout(),
        &IDENTITY,
    );
    let theirs = games_by(&pgn_extract(&pe, &["-D", a, b], &dir), &IDENTITY);
    assert_same(&mine, &theirs, "fischer.pgn petrosian.pgn");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eco_matches_pgn_extract() {
    let Some(pe) = peer("pgn-extract") else {
        return;
    };
    let dir = temp_dir("db-pe-eco");
    let eco = corpus("pgn/eco.pgn");
    let eco = eco.to_str().unwrap();
    let mut files = files(&dir);
    files.push(corpus("pgn/pgn-extract-tests/infiles/test-e.pgn"));
    for file in files {
        let f = file.to_str().unwrap();
        let names = [
            "White",
            "Black",
            "ECO",
            "Opening",
            "Variation",
            "SubVariation",
        ];
        let mine = games_by(
            &cli(&["eco", "--eco-file", eco, f]).run_ok().into_stdout(),
            &names,
        );
        let theirs = games_by(&pgn_extract(&pe, &[&format!("-e{eco}"), f], &dir), &names);
        assert_same(&mine, &theirs, f);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
