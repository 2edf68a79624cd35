//! The library's parallel PGN reader (`gamerec::io::parallel`) gives the
//! games and diagnostics of the single-threaded streaming reader
//! (`gamerec::io::Reader`) on the corpus, with any thread count, and in
//! input order.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use gamerec::diag::Diagnostic;
use gamerec::io::{Input, Item, ReadOptions, Reader, parallel};

fn sequential(path: &Path) -> (Vec<Item>, Vec<Diagnostic>) {
    let opts = ReadOptions {
        max_errors: u64::MAX,
        ..ReadOptions::default()
    };
    let mut reader = Reader::open(&Input::file(path), &opts).expect("opens");
    let items = reader
        .by_ref()
        .collect::<Result<Vec<_>, _>>()
        .expect("reads");
    (items, reader.take_diagnostics())
}

fn in_parallel(
    path: &Path,
    threads: usize,
    chunk_size: Option<usize>,
) -> (Vec<Item>, Vec<Diagnostic>) {
    let opts = parallel::Options {
        threads,
        chunk_size,
        max_errors: u64::MAX,
        ..parallel::Options::default()
    };
    let mut items = Vec::new();
    let mut diags = Vec::new();
    let mut last_number = 0;
    parallel::read_pgn_games(&Input::file(path), &opts, |settled| {
        for item in &settled.value {
            assert!(item.number > last_number, "in input order");
            last_number = item.number;
        }
        items.extend(settled.value);
        diags.extend(settled.diagnostics);
        ControlFlow::Continue(())
    })
    .expect("reads");
    (items, diags)
}

fn corpus_pgn_files() -> Vec<PathBuf> {
    let mut files = vec![
        gamerec_testkit::corpus("pgn/eco.pgn"),
        gamerec_testkit::corpus("pgn/twic1599_1000k.pgn"),
        gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn"),
    ];
    for dir in ["pgn/lichess-studies", "pgn/pgn-extract-tests/infiles"] {
        files.extend(gamerec_testkit::files_with_extension(
            &gamerec_testkit::corpus(dir),
            "pgn",
        ));
    }
    files
}

#[test]
fn parallel_reader_equals_sequential_reader_on_the_corpus() {
    let files = corpus_pgn_files();
    assert!(files.len() > 10, "{files:?}");
    for path in &files {
        let (items, diags) = sequential(path);
        for (threads, chunk) in [(1, None), (2, None), (3, Some(4096))] {
            let (p_items, p_diags) = in_parallel(path, threads, chunk);
            assert_eq!(
                p_items.len(),
                items.len(),
                "{} threads {threads}",
                path.display()
            );
            assert!(p_items == items, "{} threads {threads}", path.display());
            assert_eq!(p_diags, diags, "{} threads {threads}", path.display());
        }
    }
}

#[test]
fn compressed_input_is_read_in_order_too() {
    let path = gamerec_testkit::corpus("pgn/eco.pgn");
    let data = std::fs::read(&path).expect("corpus");
    let dir = gamerec_testkit::temp_dir("io-parallel");
    let zst = dir.join("eco.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&data[..], 1).expect("zstd")).expect("write");
    let (items, _) = in_parallel(&path, 2, None);
    let (z_items, _) = in_parallel(&zst, 2, None);
    assert_eq!(z_items, items);
    assert_eq!(items.len(), 2014);
}
