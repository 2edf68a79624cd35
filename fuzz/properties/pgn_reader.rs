// Shared by the `pgn_reader` fuzz target and the regression test over its
// findings (`crates/gamerec/tests/pgn_fuzz_regressions.rs`), both through
// `include!`, so the two always check the same properties.

/// Properties of the PGN reader on any input:
/// * reading never panics, and every game read is also read by the
///   streaming reader at a tiny chunk size (same games);
/// * export is idempotent: export(import(export(g))) == export(g), and
///   import(export(g)) == g for an exported game.
pub fn check_pgn_reader_properties(data: &[u8]) {
    use gamerec::pgn::writer::export_string;
    use gamerec::pgn::{Checker, Chunker, GameBuilder, Reader, SliceReader, WriteOptions, read_games};

    let (games, _) = read_games(data);

    let mut checker = Checker::default();
    let mut reader = SliceReader::new(data);
    while reader.read_game(&mut checker).is_some() {}

    let mut streamed = Vec::new();
    let mut reader = Reader::from_chunker(Chunker::with_size(data, 13));
    let mut builder = GameBuilder::default();
    while let Some(game) = reader.read_game(&mut builder).expect("reading a slice") {
        streamed.extend(game);
    }
    assert_eq!(streamed, games);

    let opts = WriteOptions::default();
    for game in &games {
        let first = export_string(game, &opts);
        let (again, _) = read_games(first.as_bytes());
        assert_eq!(again.len(), 1, "{first}");
        let second = export_string(&again[0], &opts);
        assert_eq!(first, second);
        let (third, _) = read_games(second.as_bytes());
        assert_eq!(third[0], again[0]);
    }
}
