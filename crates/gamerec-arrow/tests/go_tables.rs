//! The Go tables (SGF input) on corpus files, against values counted by
//! hand: moves as GTP vertices and SGF points, captures, the final board,
//! the area count, game information, errors; the moves table's boards;
//! Parquet written and read back; directories; Go and chess refused together.

use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int8Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use gamerec_arrow::go::{is_sgf_input, table_schema};
use gamerec_arrow::{Batches, FileKind, Options, Table, TableWriter};
use gamerec_testkit::{corpus, temp_dir};

/// Every batch of `table` over `inputs`, and the diagnostics.
fn read(inputs: Vec<PathBuf>, table: Table, threads: usize) -> (RecordBatch, Vec<String>) {
    let schema = table_schema(&inputs, table).expect("SGF inputs");
    let opts = Options {
        table,
        threads,
        ..Options::default()
    };
    let mut batches = Vec::new();
    let mut problems = Vec::new();
    for item in Batches::new(inputs, opts) {
        let decoded = item.expect("readable input");
        assert_eq!(
            decoded.batch.schema(),
            schema,
            "batches have the table's schema"
        );
        problems.extend(decoded.problems.iter().map(|d| d.to_string()));
        batches.push(decoded.batch);
    }
    let batch = arrow_select::concat::concat_batches(&schema, &batches).expect("one schema");
    (batch, problems)
}

fn text(b: &RecordBatch, column: &str, row: usize) -> Option<String> {
    let c = b.column_by_name(column).expect(column).as_string::<i32>();
    (!c.is_null(row)).then(|| c.value(row).to_string())
}

fn int(b: &RecordBatch, column: &str, row: usize) -> Option<i32> {
    let c = b
        .column_by_name(column)
        .expect(column)
        .as_primitive::<Int32Type>();
    (!c.is_null(row)).then(|| c.value(row))
}

fn float(b: &RecordBatch, column: &str, row: usize) -> Option<f64> {
    let c = b
        .column_by_name(column)
        .expect(column)
        .as_primitive::<Float64Type>();
    (!c.is_null(row)).then(|| c.value(row))
}

fn texts(b: &RecordBatch, column: &str, row: usize) -> Vec<Option<String>> {
    let list = b.column_by_name(column).expect(column).as_list::<i32>();
    let items = list.value(row);
    let items = items.as_string::<i32>();
    (0..items.len())
        .map(|i| (!items.is_null(i)).then(|| items.value(i).to_string()))
        .collect()
}

/// The `stones` list of a moves-table row (`None` when null).
fn stones(b: &RecordBatch, column: &str, row: usize) -> Option<Vec<i8>> {
    let list = b.column_by_name(column).expect(column).as_fixed_size_list();
    if list.is_null(row) {
        return None;
    }
    let v = list.value(row);
    Some(v.as_primitive::<Int8Type>().values().to_vec())
}

/// `board` text (rows of `width`) in the 19x19 frame, as the `stones`
/// lists hold it.
fn framed(board: &str, width: usize) -> Vec<i8> {
    let mut out = vec![0i8; 361];
    for (i, c) in board.bytes().enumerate() {
        out[(i / width) * 19 + i % width] = match c {
            b'X' => 1,
            b'O' => -1,
            _ => 0,
        };
    }
    out
}

fn some(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}

fn tiny(name: &str) -> PathBuf {
    corpus("sgf/gnugo/regression/games/tiny").join(name)
}

#[test]
fn a_capture_on_2x2_counted_by_hand() {
    // SZ[2]; B[ab] W[aa] B[ba]: the white stone on aa (top left) has
    // black stones on both its neighbours and is taken.
    let (b, problems) = read(vec![tiny("2x2.sgf")], Table::Games, 1);
    assert_eq!(b.num_rows(), 1);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!((int(&b, "gm", 0), int(&b, "ff", 0)), (Some(1), Some(4)));
    assert_eq!(
        (int(&b, "size", 0), int(&b, "height", 0)),
        (Some(2), Some(2))
    );
    assert_eq!(int(&b, "move_count", 0), Some(3));
    assert_eq!(texts(&b, "moves", 0), some(&["A1", "A2", "B2"]));
    assert_eq!(texts(&b, "points", 0), some(&["ab", "aa", "ba"]));
    assert_eq!(texts(&b, "colors", 0), some(&["B", "W", "B"]));
    assert_eq!(int(&b, "captures_black", 0), Some(1));
    assert_eq!(int(&b, "captures_white", 0), Some(0));
    assert_eq!(text(&b, "final_board", 0).as_deref(), Some(".XX."));
    // Black: 2 stones and the 2 empty points; no komi.
    assert_eq!(float(&b, "area_score", 0), Some(4.0));
    assert_eq!(float(&b, "marked_score", 0), None);
    assert_eq!(
        (int(&b, "errors", 0), int(&b, "warnings", 0)),
        (Some(0), Some(0))
    );
    assert_eq!(
        text(&b, "sgf", 0).as_deref(),
        Some("(;GM[1]FF[4]SZ[2]\n;B[ab];W[aa];B[ba])")
    );
    assert_eq!(
        text(&b, "source", 0),
        Some(tiny("2x2.sgf").display().to_string())
    );
    let offset = b
        .column_by_name("offset")
        .unwrap()
        .as_primitive::<Int64Type>();
    assert_eq!(offset.value(0), 1, "the root node's `;`");
    let key = b
        .column_by_name("game_key")
        .unwrap()
        .as_primitive::<Int64Type>();
    assert_eq!(
        key.value(0),
        gamerec_arrow::lineage::game_key(&tiny("2x2.sgf").display().to_string(), 1)
    );
}

#[test]
fn the_moves_table_of_3x3_counted_by_hand() {
    // B[bb] W[ab] B[ba] W[bc] B[cb]: no capture.
    let (b, _) = read(vec![tiny("3x3a.sgf")], Table::Positions, 1);
    assert_eq!(b.num_rows(), 5);
    let ply: Vec<i32> = (0..5).map(|r| int(&b, "ply", r).unwrap()).collect();
    assert_eq!(ply, [1, 2, 3, 4, 5]);
    let vertices: Vec<_> = (0..5).map(|r| text(&b, "vertex", r)).collect();
    assert_eq!(vertices, some(&["B2", "A2", "B3", "B1", "C2"]));
    let colors: Vec<_> = (0..5).map(|r| text(&b, "color", r)).collect();
    assert_eq!(colors, some(&["B", "W", "B", "W", "B"]));
    assert_eq!(text(&b, "board_before", 0).as_deref(), Some("........."));
    assert_eq!(text(&b, "board", 0).as_deref(), Some("....X...."));
    assert_eq!(text(&b, "board_before", 1), text(&b, "board", 0));
    assert_eq!(text(&b, "board", 4).as_deref(), Some(".X.OXX.O."));
    // The boards as 19x19 frames of int8: the 3x3 board in the top-left.
    let mut expected = vec![0i8; 361];
    // .X. / OXX / .O.
    for (i, v) in [(1, 1), (19, -1), (20, 1), (21, 1), (39, -1)] {
        expected[i] = v;
    }
    assert_eq!(stones(&b, "stones", 4), Some(expected));
    assert_eq!(stones(&b, "stones_before", 0), Some(vec![0; 361]));
    for r in 0..5 {
        for (column, board) in [("stones", "board"), ("stones_before", "board_before")] {
            let t = text(&b, board, r).unwrap();
            assert_eq!(stones(&b, column, r), Some(framed(&t, 3)), "{column} {r}");
        }
    }
    assert!((0..5).all(|r| int(&b, "captures", r) == Some(0)));
    let (g, _) = read(vec![tiny("3x3a.sgf")], Table::Games, 1);
    // Black 3 stones + ca; White 2 stones + ac; aa and cc touch both.
    assert_eq!(float(&g, "area_score", 0), Some(1.0));
    assert_eq!(text(&g, "final_board", 0), text(&b, "board", 4));
}

#[test]
fn game_information_of_a_pro_game_is_typed() {
    let path = corpus("sgf/pro/aeb-selection/other_sizes/9x9/Minigo/000108.sgf");
    let (b, problems) = read(vec![path], Table::Games, 1);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(text(&b, "event", 0).as_deref(), Some("Mini-Go"));
    assert_eq!(text(&b, "black", 0).as_deref(), Some("Imai Kazuhiro"));
    assert_eq!(text(&b, "black_rank", 0).as_deref(), Some("5p"));
    assert_eq!(text(&b, "white", 0).as_deref(), Some("Kitano Ryo"));
    assert_eq!(text(&b, "white_rank", 0).as_deref(), Some("6p"));
    assert_eq!(float(&b, "komi", 0), Some(6.5));
    assert_eq!(text(&b, "result", 0).as_deref(), Some("W+R"));
    assert_eq!(text(&b, "winner", 0).as_deref(), Some("W"));
    assert_eq!(float(&b, "margin", 0), None, "a resignation has no margin");
    assert_eq!(text(&b, "date", 0).as_deref(), Some("2000-01-08"));
    assert_eq!(int(&b, "size", 0), Some(9));
    assert_eq!(int(&b, "move_count", 0), Some(40));
    let moves = texts(&b, "moves", 0);
    // B[dc]: column d = D, row c = 9 - 2 = 7; last W[ei] = E1.
    assert_eq!(moves[0].as_deref(), Some("D7"));
    assert_eq!(moves[39].as_deref(), Some("E1"));
    let props = b.column_by_name("properties").unwrap().as_map();
    assert_eq!(props.value(0).len(), 0, "every root property has a column");
}

#[test]
fn unknown_properties_and_setup_are_kept() {
    let dir = temp_dir("go-tables-props");
    let path = dir.join("a.sgf");
    std::fs::write(
        &path,
        "(;GM[1]FF[4]SZ[19]HA[2]KM[0.5]AB[pd][dp]XY[one][two]SO[book]RE[B+3.5];W[qp];B[tt])\n\
         (;GM[1]FF[4]SZ[9]KM[6.5 points];B[ee];W[ee])\n",
    )
    .unwrap();
    let (b, problems) = read(vec![path.clone()], Table::Games, 1);
    assert_eq!(b.num_rows(), 2, "one row per game tree");
    assert_eq!(
        (int(&b, "game_number", 0), int(&b, "game_number", 1)),
        (Some(1), Some(2))
    );
    assert_eq!(int(&b, "handicap", 0), Some(2));
    assert_eq!(texts(&b, "setup_black", 0), some(&["Q16", "D4"]));
    assert_eq!(texts(&b, "setup_white", 0), some(&[]));
    assert_eq!(texts(&b, "moves", 0), some(&["R4", "pass"]));
    assert_eq!(texts(&b, "points", 0), vec![Some("qp".into()), None]);
    assert_eq!(text(&b, "winner", 0).as_deref(), Some("B"));
    assert_eq!(float(&b, "margin", 0), Some(3.5));
    let props = b.column_by_name("properties").unwrap().as_map();
    let first = props.value(0);
    let keys = first.column(0).as_string::<i32>();
    let values = first.column(1).as_string::<i32>();
    let pairs: Vec<(String, String)> = (0..first.len())
        .map(|i| (keys.value(i).to_string(), values.value(i).to_string()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("XY".to_string(), "one][two".to_string()),
            ("SO".to_string(), "book".to_string())
        ]
    );
    // Game 2: a komi that is no number stays as written, in the map; the
    // move on an occupied point is an error of game 2 only.
    assert_eq!(float(&b, "komi", 1), None);
    let second = props.value(1);
    assert_eq!(second.column(1).as_string::<i32>().value(0), "6.5 points");
    assert_eq!(int(&b, "errors", 0), Some(0));
    assert_eq!(int(&b, "errors", 1), Some(1));
    assert!(
        int(&b, "warnings", 1).unwrap() >= 1,
        "KM's format: {problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("illegal move W[ee]")),
        "{problems:?}"
    );
    assert_eq!(text(&b, "final_board", 1).map(|s| s.len()), Some(81));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_directory_is_its_sgf_files_and_parquet_reads_back() {
    let dir = corpus("sgf/gnugo/regression/games/tiny");
    assert!(is_sgf_input(&dir));
    let (b, _) = read(vec![dir.clone()], Table::Games, 2);
    let sources: Vec<_> = (0..b.num_rows())
        .map(|r| text(&b, "source", r).unwrap())
        .collect();
    let names: Vec<_> = ["2x2.sgf", "3x3a.sgf", "3x3b.sgf", "4x4a.sgf"]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .collect();
    assert_eq!(sources, names);
    let ids: Vec<i64> = (0..b.num_rows())
        .map(|r| b.column(0).as_primitive::<Int64Type>().value(r))
        .collect();
    assert_eq!(ids, [0, 1, 2, 3]);
    // Written to Parquet and read back: the same rows.
    let out_dir = temp_dir("go-tables-parquet");
    let out = out_dir.join("go.parquet");
    let mut writer = TableWriter::create(
        &out,
        FileKind::of_path(&out).unwrap(),
        table_schema(std::slice::from_ref(&dir), Table::Games).unwrap(),
    )
    .unwrap();
    writer.write(&b).unwrap();
    writer.commit().unwrap();
    let file = std::fs::File::open(&out).unwrap();
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(file, 1024).unwrap();
    let back: Vec<RecordBatch> = reader.map(|r| r.unwrap()).collect();
    let back = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
    assert_eq!(back, b);
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn go_and_chess_inputs_cannot_share_a_table() {
    let inputs = vec![tiny("2x2.sgf"), corpus("pgn").join("x.pgn")];
    let e = table_schema(&inputs, Table::Games).unwrap_err();
    assert!(e.to_string().contains("cannot share one table"), "{e}");
    // Batches refuses the odd input in its place and reads the rest.
    let results: Vec<_> = Batches::new(inputs, Options::default()).collect();
    assert!(results.iter().any(|r| r.is_ok()));
    let refused = results
        .iter()
        .find_map(|r| r.as_ref().err())
        .expect("refused");
    assert!(refused.to_string().contains("x.pgn"), "{refused}");
}

#[test]
fn a_missing_sgf_file_is_reported_in_its_place() {
    let inputs = vec![tiny("2x2.sgf"), tiny("missing.sgf"), tiny("3x3a.sgf")];
    let results: Vec<_> = Batches::new(inputs, Options::default()).collect();
    let kinds: Vec<bool> = results.iter().map(Result::is_ok).collect();
    assert_eq!(kinds, [true, false, true]);
    let last = results[2].as_ref().unwrap();
    let id = last.batch.column(0).as_primitive::<Int64Type>().value(0);
    assert_eq!(id, 1, "game ids run on across inputs");
}

#[test]
fn the_tables_are_the_same_on_one_and_two_threads() {
    let dir = corpus("sgf/gnugo/regression/games/nngs");
    for table in [Table::Games, Table::Positions] {
        let (one, _) = read(vec![dir.clone()], table, 1);
        let (two, _) = read(vec![dir.clone()], table, 2);
        assert!(one.num_rows() > 100);
        assert_eq!(one, two);
    }
}

#[test]
fn a_file_over_the_bound_is_reported_not_read() {
    let opts = Options {
        max_game_bytes: 10,
        ..Options::default()
    };
    let results: Vec<_> = Batches::new(vec![tiny("3x3a.sgf")], opts).collect();
    assert_eq!(results.len(), 1);
    let decoded = results[0].as_ref().expect("reported as a diagnostic");
    assert_eq!(decoded.batch.num_rows(), 0);
    assert_eq!(decoded.problems.len(), 1);
    let message = decoded.problems[0].to_string();
    assert!(
        message.contains("larger than the bound of 10 bytes"),
        "{message}"
    );
}

#[test]
fn a_long_game_spans_moves_batches_with_its_boards_rebuilt() {
    let dir = temp_dir("go-tables-long");
    let path = dir.join("long.sgf");
    let mut sgf = String::from("(;GM[1]FF[4]SZ[5];B[cc];W[bc]");
    for _ in 0..35_000 {
        sgf.push_str(";B[];W[]");
    }
    sgf.push_str(";B[ab])");
    std::fs::write(&path, sgf).unwrap();
    let opts = Options {
        table: Table::Positions,
        ..Options::default()
    };
    let batches: Vec<RecordBatch> = Batches::new(vec![path], opts)
        .map(|d| d.expect("readable").batch)
        .collect();
    let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert!(batches.len() >= 2, "{sizes:?}");
    let b = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    assert_eq!(b.num_rows(), 70_003);
    let last = b.num_rows() - 1;
    assert_eq!(int(&b, "ply", last), Some(70_003));
    // cc is index 2 * 5 + 2, bc the point before it; ab is index 5.
    let two = "...........OX............";
    assert_eq!(text(&b, "board", 1).as_deref(), Some(two));
    assert_eq!(text(&b, "board", 65_536).as_deref(), Some(two));
    assert_eq!(text(&b, "board_before", last).as_deref(), Some(two));
    assert_eq!(
        text(&b, "board", last).as_deref(),
        Some(".....X.....OX............")
    );
    assert_eq!(text(&b, "vertex", 70_000).as_deref(), Some("pass"));
    assert_eq!(stones(&b, "stones", 65_536), Some(framed(two, 5)));
    assert_eq!(stones(&b, "stones_before", last), Some(framed(two, 5)));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn per_move_clocks_and_periods_left_and_boards_over_the_frame() {
    let dir = temp_dir("go-tables-clocks");
    let path = dir.join("clocks.sgf");
    let big = dir.join("big.sgf");
    std::fs::write(
        &path,
        "(;GM[1]FF[4]SZ[9]TM[600]OT[5x30 byo-yomi];B[ee]BL[598.5];W[dd]WL[30]OW[4];B[]BL[590]OB[5];W[cc])",
    )
    .unwrap();
    std::fs::write(&big, "(;GM[1]FF[4]SZ[21];B[uu];W[aa])").unwrap();
    let (m, _) = read(vec![path.clone(), big.clone()], Table::Positions, 1);
    assert_eq!(m.num_rows(), 6);
    let clocks: Vec<_> = (0..4).map(|r| float(&m, "time_left_s", r)).collect();
    assert_eq!(clocks, [Some(598.5), Some(30.0), Some(590.0), None]);
    let periods: Vec<_> = (0..4).map(|r| int(&m, "periods_left", r)).collect();
    assert_eq!(periods, [None, Some(4), Some(5), None]);
    // A 21x21 board does not fit the 19x19 frame: null lists, text kept.
    assert_eq!(stones(&m, "stones", 4), None);
    assert_eq!(text(&m, "board", 4).map(|t| t.len()), Some(441));
    let (g, _) = read(vec![path], Table::Games, 1);
    let list = g.column_by_name("periods_left").unwrap().as_list::<i32>();
    let periods = list.value(0);
    let periods: Vec<_> = periods.as_primitive::<Int32Type>().iter().collect();
    assert_eq!(periods, [None, Some(4), Some(5), None]);
    let list = g.column_by_name("time_left_s").unwrap().as_list::<i32>();
    let clocks = list.value(0);
    let clocks: Vec<_> = clocks.as_primitive::<Float64Type>().iter().collect();
    assert_eq!(clocks, [Some(598.5), Some(30.0), Some(590.0), None]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn setup_in_a_moves_own_node_is_on_the_board_before_it() {
    let dir = temp_dir("go-tables-setup-in-move");
    let path = dir.join("mixed.sgf");
    // The last node removes two stones (AE) and passes, as
    // FSF-neurogo.sgf's last node does: sgfmill applies the setup first.
    std::fs::write(
        &path,
        "(;GM[1]FF[4]SZ[3];B[aa];W[cc];B[bb];W[]AE[aa][cc]AB[ca])",
    )
    .unwrap();
    let (m, _) = read(vec![path], Table::Positions, 1);
    assert_eq!(m.num_rows(), 4);
    assert_eq!(text(&m, "board_before", 3).as_deref(), Some("..X.X...."));
    assert_eq!(text(&m, "board", 3).as_deref(), Some("..X.X...."));
    assert_eq!(stones(&m, "stones_before", 3), Some(framed("..X.X....", 3)));
    std::fs::remove_dir_all(&dir).ok();
}

/// A stone placed again before the first move is listed once: 1,000 setup
/// nodes each covering the whole board (`AB[aa:ss]`, 361 points) list 361
/// stones, not 361,000 (a 1 MB file of them took 2.3 GB).
#[test]
fn setup_stones_placed_again_are_listed_once() {
    let dir = temp_dir("go-tables-setup-again");
    let path = dir.join("a.sgf");
    let src = format!(
        "(;GM[1]FF[4]SZ[19]AB[dd]AW[pp]{};AB[dd][aa]AW[pp];B[tt])",
        ";AB[aa:ss]".repeat(1000)
    );
    std::fs::write(&path, src).unwrap();
    let (b, _) = read(vec![path], Table::Games, 1);
    let black = texts(&b, "setup_black", 0);
    assert_eq!(black.len(), 361);
    assert_eq!(
        black[0].as_deref(),
        Some("D16"),
        "in the order first placed"
    );
    assert_eq!(black[1].as_deref(), Some("A19"));
    assert_eq!(texts(&b, "setup_white", 0), some(&["Q4"]));
}

/// A game broken at each node: its row counts every error, though the
/// messages list the first 1,000 of the parser and of the rule check and
/// count the rest.
#[test]
fn a_game_row_counts_the_errors_not_listed() {
    let dir = temp_dir("go-tables-not-listed");
    let path = dir.join("a.sgf");
    let src = gamerec_testkit::sgf_broken_at_every_node(1500);
    std::fs::write(&path, src).unwrap();
    let (b, problems) = read(vec![path], Table::Games, 1);
    assert_eq!(int(&b, "errors", 0), Some(1500 + 1498));
    assert_eq!(problems.len(), 2 * 1000 + 2);
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.contains("[sgf:not-listed]"))
            .count(),
        2
    );
}
