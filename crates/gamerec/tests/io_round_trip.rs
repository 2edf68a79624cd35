//! Round trips among every pair of chess formats through `gamerec::io`
//! (one reader, one writer) on real files: moves and positions survive
//! every pair, and whatever a target changes is reported as a loss naming
//! the game.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gamerec::diag::{Code, Diagnostic};
use gamerec::io::{Format, GameWriter, Input, Item, ReadOptions, Reader, Record, WriteOptions};
use gamerec::model::Game;

fn read(path: &Path) -> (Vec<Item>, Vec<Diagnostic>) {
    let mut reader = Reader::open(&Input::file(path), &ReadOptions::default()).expect("opens");
    let items = reader
        .by_ref()
        .collect::<Result<Vec<_>, _>>()
        .expect("reads");
    (items, reader.take_diagnostics())
}

fn write(items: &[Item], source: &str, path: &Path, format: Format) -> Vec<Diagnostic> {
    let mut writer = GameWriter::create(path, format, &WriteOptions::default()).expect("creates");
    let mut losses = Vec::new();
    for item in items {
        losses.extend(writer.write(item, source).expect("writes"));
    }
    losses.extend(writer.finish().expect("finishes"));
    losses
}

fn game(item: &Item) -> Game {
    match &item.record {
        Record::Game(g) => g.clone(),
        Record::Position(r) => gamerec::epd::convert::record_to_game(r).value,
    }
}

/// A game's PGN export: what "the same game" means across formats.
fn export(g: &Game) -> String {
    gamerec::pgn::writer::export_string(g, &gamerec::pgn::WriteOptions::default())
}

fn mainline(g: &Game) -> Vec<String> {
    g.tree
        .mainline()
        .filter_map(|n| g.tree.node(n).ply.as_ref().map(|p| p.san.clone()))
        .collect()
}

/// The positions (first four FEN fields) of a game's main line.
fn positions(g: &Game) -> Vec<String> {
    let mut pos = g.start.clone();
    let fen4 = |p: &gamerec::shakmaty::Chess| {
        gamerec::fen::write_fen_with(p, gamerec::shakmaty::EnPassantMode::Legal)
            .split(' ')
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = vec![fen4(&pos)];
    for n in g.tree.mainline() {
        if let Some(ply) = &g.tree.node(n).ply {
            pos = gamerec::model::play_ply(&pos, ply.mv);
            out.push(fen4(&pos));
        }
    }
    out
}

fn ext(format: Format) -> &'static str {
    format.extension()
}

fn sources() -> Vec<PathBuf> {
    let root = gamerec_testkit::repo_root();
    vec![
        root.join("samples/fischer.pgn"),
        root.join("samples/lichess-20.pgn"),
        gamerec_testkit::corpus("pgn/pgn-extract-tests/infiles/test-ep.pgn"),
    ]
}

/// Games as formats hold them: PGN, JSON, PGC and CBF keep one game per
/// game; FBK merges all into one tree; EPD and FEN hold positions.
fn holds_games(f: Format) -> bool {
    matches!(f, Format::Pgn | Format::Json | Format::Pgc | Format::Cbf)
}

#[test]
fn every_pair_of_chess_formats_round_trips_moves_and_reports_losses() {
    let dir = gamerec_testkit::temp_dir("io-round-trip");
    let mut checked = 0;
    for source in sources().into_iter().filter(|p| p.is_file()) {
        let (items, _) = read(&source);
        assert!(!items.is_empty(), "{}", source.display());
        let name = source.display().to_string();
        let originals: Vec<Game> = items.iter().map(game).collect();
        for a in Format::CHESS {
            let path_a = dir.join(format!("a.{}", ext(a)));
            let losses_a = write(&items, &name, &path_a, a);
            // Only FBK leaves games out (those not from the standard start).
            assert!(
                a == Format::Fbk || losses_a.iter().all(|d| !d.is_error()),
                "{a}: {losses_a:?}"
            );
            let (read_a, diags) = read(&path_a);
            assert!(diags.iter().all(|d| !d.is_error()), "{a}: {diags:?}");
            let lost_games: BTreeSet<u64> = losses_a
                .iter()
                .filter(|d| d.code == Code::Loss)
                .filter_map(|d| d.game)
                .collect();
            if holds_games(a) {
                assert_eq!(read_a.len(), items.len(), "{name} to {a}");
                for (i, (orig, back)) in originals.iter().zip(&read_a).enumerate() {
                    let back = game(back);
                    assert_eq!(
                        mainline(&back),
                        mainline(orig),
                        "{name} to {a}, game {}",
                        i + 1
                    );
                    // Anything else that changed was reported for this game.
                    let same = export(&back) == export(orig);
                    assert!(
                        same || lost_games.contains(&(i as u64 + 1)) || a == Format::Pgn,
                        "{name} to {a}, game {}: changed without a loss reported",
                        i + 1
                    );
                }
            } else if a == Format::Fbk {
                assert!(read_a.len() <= 1, "one merged tree");
                assert!(!losses_a.is_empty(), "FBK keeps no tags: said so");
            } else {
                let want: Vec<String> = originals.iter().flat_map(positions).collect();
                let got: Vec<String> = read_a.iter().flat_map(|i| positions(&game(i))).collect();
                assert_eq!(got, want, "{name} to {a}: one record per position");
            }
            // And on from `a` to every format `b`.
            for b in Format::CHESS {
                let path_b = dir.join(format!("b.{}", ext(b)));
                let _ = write(&read_a, &path_a.display().to_string(), &path_b, b);
                let (read_b, diags) = read(&path_b);
                assert!(diags.iter().all(|d| !d.is_error()), "{a} to {b}: {diags:?}");
                if holds_games(a) && holds_games(b) {
                    let x: Vec<_> = read_a.iter().map(|i| mainline(&game(i))).collect();
                    let y: Vec<_> = read_b.iter().map(|i| mainline(&game(i))).collect();
                    assert_eq!(x, y, "{name}: {a} to {b}");
                }
                if !holds_games(a) && a != Format::Fbk && !holds_games(b) && b != Format::Fbk {
                    let x: Vec<_> = read_a.iter().flat_map(|i| positions(&game(i))).collect();
                    let y: Vec<_> = read_b.iter().flat_map(|i| positions(&game(i))).collect();
                    assert_eq!(x, y, "{name}: {a} to {b}");
                }
                if b == Format::Fbk {
                    assert!(read_b.len() <= 1, "{a} to FBK: one tree");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 2 * 49, "{checked}");
}

/// PGN to PGN and JSON to JSON are lossless on the corpus samples.
#[test]
fn pgn_and_json_are_lossless() {
    let dir = gamerec_testkit::temp_dir("io-lossless");
    for source in sources().into_iter().filter(|p| p.is_file()) {
        let (items, _) = read(&source);
        for f in [Format::Pgn, Format::Json] {
            let path = dir.join(format!("x.{}", ext(f)));
            let losses = write(&items, "src", &path, f);
            assert!(losses.is_empty(), "{f}: {losses:?}");
            let (back, _) = read(&path);
            let x: Vec<String> = items.iter().map(|i| export(&game(i))).collect();
            let y: Vec<String> = back.iter().map(|i| export(&game(i))).collect();
            assert_eq!(x, y, "{} through {f}", source.display());
        }
    }
}
