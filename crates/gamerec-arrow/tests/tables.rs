//! Games tables written to Parquet and Arrow IPC read back as the same
//! games, on every corpus PGN; the decode is the same on 1 and 2 threads.

use std::path::{Path, PathBuf};

use gamerec::model::Game;
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{GameBuilder, Reader, WriteOptions};
use gamerec_arrow::read::read_parquet_games;
use gamerec_arrow::{Batches, FileKind, Options, Table, TableWriter, schema};
use gamerec_testkit::{corpus, files_with_extension, temp_dir};

fn corpus_pgns() -> Vec<PathBuf> {
    let mut files = files_with_extension(&corpus("pgn"), "pgn");
    files.push(corpus("pgn/tcec-2011-2021.pgn.zst"));
    files
}

/// The games of `path` as read by the library's streaming reader.
fn reference_games(path: &Path) -> Vec<Game> {
    let read = gamerec::io::Input::file(path).open(None).expect("open");
    let mut reader = Reader::new(read);
    let mut builder = GameBuilder::default();
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut builder).expect("read") {
        games.extend(game);
    }
    games
}

fn write_table(inputs: Vec<PathBuf>, table: Table, threads: usize, out: &Path) -> u64 {
    let kind = FileKind::of_path(out).expect("table extension");
    let table_schema = match table {
        Table::Games => schema::games(),
        Table::Positions => schema::positions(),
    };
    let mut writer = TableWriter::create(out, kind, table_schema)
        .expect("create")
        .with_threads(threads);
    let opts = Options {
        table,
        threads,
        ..Options::default()
    };
    for item in Batches::new(inputs, opts) {
        writer.write(&item.expect("input").batch).expect("write");
    }
    let rows = writer.rows();
    writer.commit().expect("finish");
    rows
}

fn export(game: &Game) -> String {
    export_string(game, &WriteOptions::default())
}

fn assert_round_trip(path: &Path, out: &Path, threads: usize) {
    let expected = reference_games(path);
    let rows = write_table(vec![path.to_path_buf()], Table::Games, threads, out);
    assert_eq!(rows, expected.len() as u64, "{}", path.display());
    let back = read_parquet_games(out).expect("read back");
    assert_eq!(back.len(), expected.len(), "{}", path.display());
    for (i, (a, b)) in expected.iter().zip(&back).enumerate() {
        assert_eq!(export(a), export(b), "{} game {i}", path.display());
        assert_eq!(a.result, b.result, "{} game {i}", path.display());
        assert_eq!(a.start, b.start, "{} game {i}", path.display());
        let mut tags_a: Vec<_> = a.tags.iter().map(|t| (&t.name, &t.value)).collect();
        let mut tags_b: Vec<_> = b.tags.iter().map(|t| (&t.name, &t.value)).collect();
        tags_a.sort();
        tags_b.sort();
        assert_eq!(tags_a, tags_b, "{} game {i}", path.display());
    }
}

#[test]
fn parquet_games_read_back_as_the_same_games_on_every_corpus_pgn() {
    let dir = temp_dir("arrow-roundtrip");
    let out = dir.join("games.parquet");
    let files = corpus_pgns();
    assert!(files.len() > 100);
    for path in &files {
        assert_round_trip(path, &out, 1);
    }
}

#[test]
fn arrow_ipc_games_read_back_as_the_same_games() {
    let dir = temp_dir("arrow-ipc");
    let out = dir.join("games.arrow");
    assert_round_trip(&corpus("pgn/lichess_db_1000k.pgn"), &out, 2);
    assert_round_trip(&corpus("pgn/twic1599_1000k.pgn"), &out, 2);
}

fn all_batches(
    inputs: Vec<PathBuf>,
    table: Table,
    threads: usize,
) -> Vec<arrow_array::RecordBatch> {
    let opts = Options {
        table,
        threads,
        ..Options::default()
    };
    Batches::new(inputs, opts)
        .map(|item| item.expect("input").batch)
        .collect()
}

#[test]
fn two_threads_decode_the_same_rows_as_one() {
    let inputs = vec![
        corpus("pgn/tcec-2011-2021.pgn.zst"),
        corpus("pgn/lichess_db_1000k.pgn"),
    ];
    for table in [Table::Games, Table::Positions] {
        let one = all_batches(inputs.clone(), table, 1);
        let two = all_batches(inputs.clone(), table, 2);
        assert_eq!(rows_text(&one), rows_text(&two), "{table:?}");
    }
}

/// All rows of the batches, as (column, row) debug text: enough to compare.
fn rows_text(batches: &[arrow_array::RecordBatch]) -> Vec<String> {
    let mut rows = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            let cells: Vec<String> = batch
                .columns()
                .iter()
                .map(|c| format!("{:?}", c.slice(row, 1)))
                .collect();
            rows.push(cells.join("|"));
        }
    }
    rows
}

#[test]
fn game_ids_run_across_inputs_and_a_missing_input_is_reported_once() {
    let inputs = vec![
        corpus("pgn/eco.pgn"),
        PathBuf::from("/nonexistent/nope.pgn"),
        corpus("pgn/twic1599_1000k.pgn"),
    ];
    let mut errors = 0;
    let mut ids = Vec::new();
    for item in Batches::new(inputs, Options::default()) {
        match item {
            Ok(decoded) => {
                let col = decoded.batch.column(0);
                let col = col
                    .as_any()
                    .downcast_ref::<arrow_array::Int64Array>()
                    .expect("game_id");
                ids.extend(col.values().iter().copied());
            }
            Err(e) => {
                errors += 1;
                assert!(e.to_string().starts_with("/nonexistent/nope.pgn: "), "{e}");
            }
        }
    }
    assert_eq!(errors, 1);
    assert!(ids.len() > 3000);
    assert_eq!(ids, (0..ids.len() as i64).collect::<Vec<_>>());
}

#[test]
fn parquet_columns_encoded_on_two_threads_give_the_same_file() {
    let dir = temp_dir("arrow-parallel-parquet");
    let inputs = vec![
        corpus("pgn/lichess_db_1000k.pgn"),
        corpus("pgn/twic1599_1000k.pgn"),
    ];
    for table in [Table::Games, Table::Positions] {
        let batches = all_batches(inputs.clone(), table, 1);
        let table_schema = batches[0].schema();
        let mut files = Vec::new();
        for threads in [1, 2] {
            let out = dir.join(format!("t{threads}.parquet"));
            let mut writer = TableWriter::create(&out, FileKind::Parquet, table_schema.clone())
                .expect("create")
                .with_threads(threads);
            for batch in &batches {
                writer.write(batch).expect("write");
            }
            writer.commit().expect("finish");
            files.push(std::fs::read(&out).expect("read"));
        }
        assert!(files[0].len() > 100_000, "{table:?}");
        assert!(files[0] == files[1], "{table:?}: the files differ");
    }
}

/// The whole pipeline (decode and encode) on 1 thread and on 2 gives the
/// same Parquet bytes, though the decode hands over batches cut at other
/// places: rows reach the column writers in fixed steps, and a group is
/// closed at a fixed row. Small row groups make the files span many groups;
/// the games table's are closed by their size, the positions' by rows.
#[test]
fn parquet_written_on_two_threads_is_the_one_thread_file_across_row_groups() {
    let dir = temp_dir("arrow-parquet-deterministic");
    let inputs = vec![
        corpus("pgn/lichess_db_1000k.pgn"),
        corpus("pgn/twic1599_1000k.pgn"),
        corpus("pgn/tcec-2011-2021.pgn.zst"),
    ];
    for (table, per_group, bytes) in [
        (Table::Games, 16_384, 4 << 20),
        (Table::Positions, 100_000, 4 << 20),
    ] {
        let mut files = Vec::new();
        let mut cuts = Vec::new();
        for threads in [1, 2] {
            let batches = all_batches(inputs.clone(), table, threads);
            cuts.push(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>());
            let out = dir.join(format!("t{threads}.parquet"));
            let mut writer = TableWriter::create(&out, FileKind::Parquet, batches[0].schema())
                .expect("create")
                .with_threads(threads)
                .with_row_groups(per_group, bytes);
            for batch in &batches {
                writer.write(batch).expect("write");
            }
            writer.commit().expect("commit");
            files.push(std::fs::read(&out).expect("read"));
            let groups = parquet::file::reader::SerializedFileReader::new(
                std::fs::File::open(&out).expect("open"),
            )
            .map(|r| parquet::file::reader::FileReader::metadata(&r).num_row_groups())
            .expect("parquet");
            assert!(groups >= 3, "{table:?}: {groups} row groups");
        }
        assert_ne!(cuts[0], cuts[1], "{table:?}: the decodes cut batches alike");
        assert!(files[0] == files[1], "{table:?}: the files differ");
    }
}

/// Formats without byte offsets (CBF) still give every game its own
/// `game_key`; their `offset` is null past the first game.
#[test]
fn game_keys_are_unique_in_a_format_without_offsets() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;

    let dir = temp_dir("arrow-keys-cbf");
    let cbf = dir.join("games.cbf");
    let games = reference_games(&corpus("pgn/lichess_db_1000k.pgn"));
    let opts = gamerec::io::WriteOptions::default();
    let mut writer =
        gamerec::io::GameWriter::create(&cbf, gamerec::io::Format::Cbf, &opts).expect("create");
    for (i, game) in games.into_iter().take(50).enumerate() {
        let item = gamerec::io::Item {
            record: gamerec::io::Record::Game(game),
            number: i as u64 + 1,
            line: 0,
            offset: 0,
        };
        writer.write(&item, "lichess").expect("write");
    }
    writer.finish().expect("finish");
    let batches = all_batches(vec![cbf.clone()], Table::Games, 1);
    let mut keys = std::collections::HashSet::new();
    let mut rows = 0;
    for batch in &batches {
        let column = batch.column_by_name("game_key").expect("game_key");
        keys.extend(column.as_primitive::<Int64Type>().values().iter().copied());
        rows += batch.num_rows();
        let source = batch.column_by_name("source").expect("source");
        assert_eq!(
            source.as_string::<i32>().value(0),
            cbf.display().to_string()
        );
    }
    assert_eq!(rows, 50);
    assert_eq!(keys.len(), 50);
}

/// The Parquet files under `dir` (relative path, batches), sorted.
fn dataset_files(dir: &Path) -> Vec<(String, Vec<arrow_array::RecordBatch>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let file = std::fs::File::open(&path).expect("open");
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .expect("parquet")
                    .build()
                    .expect("reader");
            let batches = reader.map(|b| b.expect("batch")).collect();
            let rel = path.strip_prefix(dir).expect("under").display().to_string();
            out.push((rel, batches));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_dataset_with_one_open_file_and_bounded_rows_holds_every_row_in_its_partition() {
    use arrow_array::cast::AsArray;
    use gamerec_arrow::partition::{DatasetOptions, DatasetWriter, PartitionKey};
    let dir = temp_dir("tables-dataset");
    let input = dir.join("g.pgn");
    let mut text = String::new();
    for (date, variant) in [
        ("2024.01.05", ""),
        ("2024.02.01", "Crazyhouse"),
        ("2024.01.09", ""),
        ("2023.??.??", "Atomic"),
    ] {
        text.push_str(&format!(
            "[Event \"e\"]\n[Date \"{date}\"]\n[Result \"*\"]\n[Variant \"{variant}\"]\n\n1. e4 *\n\n"
        ));
    }
    std::fs::write(&input, text).unwrap();
    let batch = all_batches(vec![input], Table::Games, 1).remove(0);
    assert_eq!(batch.num_rows(), 4);
    let out = dir.join("ds");
    let opts = DatasetOptions {
        keys: vec![PartitionKey::Year, PartitionKey::Variant],
        max_open: 1,
        max_file_rows: 2,
        ..DatasetOptions::default()
    };
    let mut w = DatasetWriter::create(&out, schema::games(), opts).expect("create");
    assert!(w.file_schema().column_with_name("variant").is_none());
    assert!(w.file_schema().column_with_name("date").is_some());
    for _ in 0..3 {
        w.write(&batch).expect("write");
    }
    assert_eq!(w.rows(), 12);
    w.commit().expect("commit");
    let files = dataset_files(&out);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    // One file open at a time: each write of a partition after another's
    // starts a new part; year=2024/variant=Standard gets 2 rows a batch
    // (2 per file, the bound).
    assert_eq!(
        names,
        [
            "year=2023/variant=Atomic/part-00000.parquet",
            "year=2023/variant=Atomic/part-00001.parquet",
            "year=2023/variant=Atomic/part-00002.parquet",
            "year=2024/variant=Crazyhouse/part-00000.parquet",
            "year=2024/variant=Crazyhouse/part-00001.parquet",
            "year=2024/variant=Crazyhouse/part-00002.parquet",
            "year=2024/variant=Standard/part-00000.parquet",
            "year=2024/variant=Standard/part-00001.parquet",
            "year=2024/variant=Standard/part-00002.parquet",
        ]
    );
    let mut rows = 0;
    for (name, batches) in &files {
        let year = &name[5..9];
        for b in batches {
            assert!(b.schema().column_with_name("variant").is_none());
            rows += b.num_rows();
            let dates = b.column_by_name("date").unwrap().as_string::<i32>();
            for d in dates.iter() {
                assert!(d.unwrap().starts_with(year), "{name}: {d:?}");
            }
        }
        let n: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert!(n <= 2, "{name}: {n} rows");
    }
    assert_eq!(rows, 12);
    // Dropped without commit: nothing in place, nothing left beside it.
    let again = dir.join("again");
    let mut w = DatasetWriter::create(&again, schema::games(), DatasetOptions::default()).unwrap();
    w.write(&batch).unwrap();
    drop(w);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["ds", "g.pgn"]);
    // A key without a column is refused.
    let refused = DatasetWriter::create(
        &again,
        schema::positions(),
        DatasetOptions {
            keys: vec![PartitionKey::Year],
            ..DatasetOptions::default()
        },
    );
    assert!(refused.is_err());
    std::fs::remove_dir_all(&dir).ok();
}
