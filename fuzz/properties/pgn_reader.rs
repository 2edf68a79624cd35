// Shared by the `pgn_reader` fuzz target and the regression test over its
// findings (`crates/gamerec/tests/pgn_fuzz_regressions.rs`), both through
// `include!`, so the two always check the same properties.

/// Properties of the PGN reader on any input:
/// * reading never panics, and every game read is also read by the
///   streaming reader at a tiny chunk size (same games), and through tiny
///   ranges planned by a `RangePlanner` (as `gamerec check` reads files);
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
    assert_eq!(read_planned(data, 13), games);
    check_parallel_reader(data);

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

/// The games of `data` read as `gamerec check` reads a plain file: chunks
/// planned by a `RangePlanner` (then a `Chunker` if it gives up), a chunk
/// whose last game is cut off joined to the next one.
fn read_planned(data: &[u8], size: usize) -> Vec<gamerec::model::Game> {
    use gamerec::pgn::stream::chunk_is_whole;
    use gamerec::pgn::{Chunk, Chunker, GameBuilder, Planned, RangePlanner, SliceReader};

    let mut pieces: Vec<Chunk> = Vec::new();
    let mut planner = RangePlanner::new(data.len() as u64, size);
    while let Some(planned) = planner.next_range(data) {
        match planned {
            Planned::Range(r) => {
                pieces.push(r.chunk(data[r.start as usize..r.end as usize].to_vec()));
            }
            Planned::Rest { start, column } => {
                let mut rest = Chunker::with_size(&data[start as usize..], size)
                    .starting_at(start)
                    .starting_at_column(column);
                while let Some(chunk) = rest.next_chunk().expect("reading a slice") {
                    pieces.push(chunk);
                }
            }
        }
    }
    let mut games = Vec::new();
    let mut carry: Option<Chunk> = None;
    let mut read = |chunk: &Chunk| {
        let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset);
        let mut builder = GameBuilder::default();
        while let Some(game) = reader.read_game(&mut builder) {
            games.extend(game);
        }
    };
    for piece in pieces {
        let chunk = match carry.take() {
            Some(mut c) => {
                c.append(piece);
                c
            }
            None => piece,
        };
        if chunk_is_whole(&chunk) {
            read(&chunk);
        } else {
            carry = Some(chunk);
        }
    }
    if let Some(mut chunk) = carry {
        chunk.last = true;
        read(&chunk);
    }
    games
}

/// The library's parallel reader (`gamerec::io::parallel`) gives the games
/// and diagnostics of its single-threaded streaming reader
/// (`gamerec::io::Reader`), with 1 and 2 threads and tiny chunks.
pub fn check_parallel_reader(data: &[u8]) {
    use gamerec::io::{Format, ReadOptions, Reader, parallel};

    let opts = ReadOptions {
        format: Some(Format::Pgn),
        max_errors: u64::MAX,
        ..ReadOptions::default()
    };
    let mut reader = Reader::from_bytes("fuzz.pgn", data, &opts);
    let sequential: Vec<_> = reader.by_ref().map(|item| item.expect("reading bytes")).collect();
    let mut sequential_diags = reader.take_diagnostics();
    for d in &mut sequential_diags {
        d.path = Some("fuzz.pgn".into());
    }
    for (threads, chunk_size) in [(1, None), (2, Some(13)), (2, Some(4096))] {
        let par = parallel::Options {
            threads,
            chunk_size,
            max_errors: u64::MAX,
            ..parallel::Options::default()
        };
        let mut items = Vec::new();
        let mut diags = Vec::new();
        parallel::read_pgn_bytes("fuzz.pgn", data, &par, parallel::games_job, |mut settled| {
            for item in &mut settled.value {
                item.number += settled.games_before;
                item.line += settled.lines_before;
            }
            items.extend(settled.value);
            diags.extend(settled.diagnostics);
            std::ops::ControlFlow::Continue(())
        })
        .expect("reading bytes");
        assert_eq!(items, sequential, "threads {threads}, chunks {chunk_size:?}");
        assert_eq!(diags, sequential_diags, "threads {threads}, chunks {chunk_size:?}");
    }
}
