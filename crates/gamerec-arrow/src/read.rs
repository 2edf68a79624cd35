//! Games tables back to games: Parquet or Arrow IPC files written by
//! [`crate::TableWriter`] (or any table with the same columns).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use gamerec::model::{Game, GameResult};
use gamerec::pgn::read_games;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::Error;
use crate::schema::{Kind, TAG_COLUMNS};
use crate::values;
use crate::write::FileKind;

/// Reads the games of a games table file (Parquet or Arrow IPC, by
/// extension, else Parquet), calling `each` with every row's game id and
/// game in row order, or the message saying why the row is no game (see
/// [`games_of_batch`]; the rows after it are read on). A damaged file is
/// an error, never a panic (see [`decoding`]).
pub fn for_each_game(
    path: &Path,
    mut each: impl FnMut(u64, Result<Game, String>),
) -> Result<(), Error> {
    let mut file = File::open(path)?;
    let kind = FileKind::of_path(path);
    let mut batches = decoding(kind, || -> Result<Batches, Error> {
        Ok(match kind {
            Some(FileKind::ArrowIpc) => {
                check_ipc_blocks(&mut file)?;
                Box::new(arrow_ipc::reader::FileReader::try_new(file, None)?)
            }
            _ => Box::new(
                ParquetRecordBatchReaderBuilder::try_new(file)?
                    .with_batch_size(4096)
                    .build()?,
            ),
        })
    })?;
    while let Some(batch) = decoding(kind, || Ok(batches.next()))? {
        for (id, game) in games_of_batch(&batch?)? {
            each(id, game);
        }
    }
    Ok(())
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>>>;

/// Checks, before arrow-rs reads an Arrow IPC file, that its footer and
/// every block (dictionary or record batch) the footer lists lie inside
/// the file: the reader allocates a block's stated length before reading
/// it, and unwraps a negative one. So what it allocates is bounded by the
/// file's size. Leaves the file at its start.
fn check_ipc_blocks(file: &mut File) -> Result<(), Error> {
    const TRAILER: u64 = 10; // footer length (4 bytes) and `ARROW1`
    let damaged = |what: String| Error::Table(format!("damaged Arrow IPC file: {what}"));
    let len = file.metadata()?.len();
    if len >= TRAILER {
        let mut trailer = [0u8; TRAILER as usize];
        file.seek(SeekFrom::End(-(TRAILER as i64)))?;
        file.read_exact(&mut trailer)?;
        let footer_len = arrow_ipc::reader::read_footer_length(trailer)? as u64;
        let Some(body_end) = len.checked_sub(TRAILER + footer_len) else {
            return Err(damaged(format!(
                "a footer of {footer_len} bytes in a file of {len}"
            )));
        };
        let mut footer = vec![0u8; footer_len as usize];
        file.seek(SeekFrom::Start(body_end))?;
        file.read_exact(&mut footer)?;
        let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| {
            damaged(format!(
                "its footer: {}",
                gamerec::excerpt::excerpt(&e.to_string())
            ))
        })?;
        let blocks = [
            ("dictionary", footer.dictionaries()),
            ("record batch", footer.recordBatches()),
        ];
        for (what, list) in blocks {
            for (i, b) in list.into_iter().flatten().enumerate() {
                let end = u64::try_from(b.offset())
                    .ok()
                    .zip(u64::try_from(b.metaDataLength()).ok())
                    .zip(u64::try_from(b.bodyLength()).ok())
                    .and_then(|((o, m), l)| o.checked_add(m)?.checked_add(l));
                if end.is_none_or(|end| end > body_end) {
                    return Err(damaged(format!(
                        "{what} {} (offset {}, {} + {} bytes) is not inside the file's {body_end} bytes of blocks",
                        i + 1,
                        b.offset(),
                        b.metaDataLength(),
                        b.bodyLength()
                    )));
                }
                check_compressed_lengths(file, b, what, i + 1).map_err(damaged)?;
            }
        }
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(())
}

/// The largest buffer a compressed block of a games table may say it
/// decompresses to (arrow-rs reserves what it says before decompressing).
const MAX_DECOMPRESSED: i64 = 1 << 32;

/// Checks the length each compressed buffer of block `b` (inside the file,
/// checked) states for its decompressed bytes: arrow-rs reserves it before
/// decompressing, and a length no machine can reserve aborts the process.
fn check_compressed_lengths(
    file: &mut File,
    b: &arrow_ipc::Block,
    what: &str,
    number: usize,
) -> Result<(), String> {
    let (offset, meta) = (b.offset() as u64, b.metaDataLength() as u64);
    let mut header = vec![0u8; meta as usize];
    let io = |e: std::io::Error| e.to_string();
    file.seek(SeekFrom::Start(offset)).map_err(io)?;
    file.read_exact(&mut header).map_err(io)?;
    // A continuation marker (0xFFFFFFFF) and a length, or (older files)
    // the length alone, then the message.
    let skip = if header.starts_with(&[0xff; 4]) { 8 } else { 4 };
    let Some(message) = header.get(skip..) else {
        return Err(format!("{what} {number}: a header of {meta} bytes"));
    };
    let Ok(message) = arrow_ipc::root_as_message(message) else {
        // arrow-rs reads the message again and reports it.
        return Ok(());
    };
    let batch = message
        .header_as_record_batch()
        .or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
    let Some(batch) = batch else {
        return Ok(());
    };
    if batch.compression().is_none() {
        return Ok(());
    }
    for buffer in batch.buffers().into_iter().flatten() {
        if buffer.length() < 8 {
            continue;
        }
        // A buffer outside its block is arrow-rs's to report.
        let block_end = offset + meta + b.bodyLength() as u64;
        let Some(at) = u64::try_from(buffer.offset())
            .ok()
            .and_then(|o| (offset + meta).checked_add(o))
            .filter(|at| at.checked_add(8).is_some_and(|end| end <= block_end))
        else {
            continue;
        };
        let mut stated = [0u8; 8];
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        if file.read_exact(&mut stated).is_err() {
            continue;
        }
        let stated = i64::from_le_bytes(stated);
        if stated != -1 && !(0..=MAX_DECOMPRESSED).contains(&stated) {
            return Err(format!(
                "{what} {number}: a compressed buffer says it holds {stated} bytes"
            ));
        }
    }
    Ok(())
}

/// Runs one step of the Arrow IPC or Parquet reader (opening a file, or
/// decoding its next batch), turning a panic into an error: arrow-rs and
/// parquet-rs trust some of what a file says (a buffer's offset and length,
/// for one) and panic on files damaged that way, and a hostile file must
/// give an error. This catch ([`gamerec::caught::catch`]) is the last
/// resort: checking every structure of both formats first would mean
/// writing those readers again.
pub(crate) fn decoding<T>(
    kind: Option<FileKind>,
    step: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    gamerec::caught::catch(step).unwrap_or_else(|why| {
        let format = match kind {
            Some(FileKind::ArrowIpc) => "Arrow IPC",
            _ => "Parquet",
        };
        Err(Error::Table(format!(
            "damaged {format} file: its reader stopped ({})",
            gamerec::excerpt::excerpt(&why)
        )))
    })
}

/// Reads all games of a games table file (the first row that is no game
/// is the error).
pub fn read_parquet_games(path: &Path) -> Result<Vec<Game>, Error> {
    let mut games = Vec::new();
    let mut bad = None;
    for_each_game(path, |_, g| match g {
        Ok(g) => games.push(g),
        Err(why) => {
            bad.get_or_insert(why);
        }
    })?;
    match bad {
        Some(why) => Err(Error::Table(why)),
        None => Ok(games),
    }
}

/// The longest movetext a row may hold: the bound on one game of every
/// reader (`--max-game-bytes`' default). A table compresses a long run of
/// one character to almost nothing, and a game is read into a tree several
/// times its text's size.
pub const MAX_MOVETEXT: usize = gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES as usize;

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a dyn Array, Error> {
    batch
        .column_by_name(name)
        .map(|c| c.as_ref())
        .ok_or_else(|| Error::Table(format!("not a games table: no column {name:?}")))
}

/// The games of one batch of a games table, with their `game_id`s: the
/// tags from the tag columns and map, the moves from `movetext`. A row
/// whose movetext is over [`MAX_MOVETEXT`] bytes or does not read back as
/// one game gives the message saying so instead of its game; a column of
/// the wrong type is the error.
#[allow(clippy::type_complexity)]
pub fn games_of_batch(batch: &RecordBatch) -> Result<Vec<(u64, Result<Game, String>)>, Error> {
    let ids = column(batch, "game_id")?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| Error::Table("game_id is not Int64".into()))?;
    let movetext = column(batch, "movetext")?
        .as_string_opt::<i32>()
        .ok_or_else(|| Error::Table("movetext is not Utf8".into()))?;
    let marker = column(batch, "game_result")?
        .as_string_opt::<i32>()
        .ok_or_else(|| Error::Table("game_result is not Utf8".into()))?;
    let tags = column(batch, "tags")?
        .as_map_opt()
        .ok_or_else(|| Error::Table("tags is not a map".into()))?;
    // Typed before any row is read: the accessors below panic on another
    // type, and the table may come from anywhere.
    let utf8 = |what: &str, t: &DataType| match t {
        DataType::Utf8 => Ok(()),
        _ => Err(Error::Table(format!("{what} is {t}, not Utf8"))),
    };
    utf8("the tags map's key", tags.keys().data_type())?;
    utf8("the tags map's value", tags.values().data_type())?;
    let mut tag_arrays = Vec::new();
    for &(name, tag, kind) in &TAG_COLUMNS {
        let array = column(batch, name)?;
        let want = match kind {
            Kind::Text => DataType::Utf8,
            Kind::Int | Kind::Signed | Kind::Time => DataType::Int32,
            Kind::Date => DataType::Date32,
        };
        if *array.data_type() != want {
            return Err(Error::Table(format!(
                "{name} is {}, not {want}",
                array.data_type()
            )));
        }
        tag_arrays.push((tag, kind, array));
    }
    let mut out = Vec::with_capacity(batch.num_rows());
    let mut text = String::new();
    for row in 0..batch.num_rows() {
        text.clear();
        let id = ids.value(row);
        let moves = movetext.value(row);
        if moves.len() > MAX_MOVETEXT {
            out.push((
                id as u64,
                Err(format!(
                    "game_id {id}: its movetext of {} bytes is over the bound on one game \
                     ({MAX_MOVETEXT} bytes): not read",
                    moves.len()
                )),
            ));
            continue;
        }
        for &(tag, kind, array) in &tag_arrays {
            if array.is_null(row) {
                continue;
            }
            let value = match kind {
                Kind::Text => array.as_string::<i32>().value(row).to_owned(),
                Kind::Int => array.as_primitive::<Int32Type>().value(row).to_string(),
                Kind::Signed => values::write_signed(array.as_primitive::<Int32Type>().value(row)),
                Kind::Date => values::write_date(array.as_primitive::<Date32Type>().value(row)),
                Kind::Time => {
                    values::write_time(array.as_primitive::<Int32Type>().value(row) / 1000)
                }
            };
            push_tag(&mut text, tag, &value);
        }
        if !tags.is_null(row) {
            let entries = tags.value(row);
            let keys = entries.column(0).as_string::<i32>();
            let vals = entries.column(1).as_string::<i32>();
            for i in 0..entries.len() {
                push_tag(&mut text, keys.value(i), vals.value(i));
            }
        }
        text.push('\n');
        text.push_str(moves);
        text.push('\n');
        let (mut games, problems) = read_games(text.as_bytes());
        let Some(mut game) = games.pop().filter(|_| games.is_empty()) else {
            let why = problems.first().map(|p| p.message.as_str()).unwrap_or("");
            out.push((
                id as u64,
                Err(format!(
                    "game_id {id}: its movetext does not read back as one game: {}",
                    gamerec::excerpt::excerpt(why)
                )),
            ));
            continue;
        };
        game.result = if marker.is_null(row) {
            None
        } else {
            marker.value(row).parse::<GameResult>().ok()
        };
        out.push((id as u64, Ok(game)));
    }
    Ok(out)
}

fn push_tag(text: &mut String, name: &str, value: &str) {
    text.push('[');
    text.push_str(name);
    text.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            text.push('\\');
        }
        text.push(c);
    }
    text.push_str("\"]\n");
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int32Array, StringArray};

    use super::*;

    fn batch() -> RecordBatch {
        let (mut games, _) = read_games(b"[White \"Ann\"]\n[WhiteElo \"1650\"]\n\n1. e4 e5 1-0\n");
        let mut b = crate::games::GamesBuilder::new();
        b.append(1, &mut games[0]);
        b.finish()
    }

    fn with_column(batch: &RecordBatch, name: &str, array: ArrayRef) -> RecordBatch {
        let i = batch.schema().index_of(name).unwrap();
        let mut fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
        fields[i] = Arc::new(arrow_schema::Field::new(
            name,
            array.data_type().clone(),
            true,
        ));
        let mut columns = batch.columns().to_vec();
        columns[i] = array;
        RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap()
    }

    /// Seen while writing the `arrow_games` fuzz target: a tag column of
    /// another type than the games table's (`white` as Int32, `white_elo`
    /// as Utf8) panicked in the typed accessors; it is an error naming the
    /// column now.
    #[test]
    fn tag_columns_of_another_type_are_errors() {
        let good = batch();
        assert_eq!(games_of_batch(&good).unwrap().len(), 1);
        let cases: [(&str, ArrayRef); 3] = [
            ("white", Arc::new(Int32Array::from(vec![7]))),
            ("white_elo", Arc::new(StringArray::from(vec!["1650"]))),
            ("utc_date", Arc::new(Int32Array::from(vec![7]))),
        ];
        for (name, array) in cases {
            let e = games_of_batch(&with_column(&good, name, array)).unwrap_err();
            assert!(e.to_string().starts_with(&format!("{name} is ")), "{e}");
        }
    }
    /// A row whose movetext is not one game (two games, one row) ended the
    /// whole table: `convert` wrote none of its games (exit 2). Now that row
    /// is the message and the rows after it are read; a movetext over the
    /// bound on one game is not read either (a 30 KB Parquet file with a
    /// 600 MB movetext took 3.5 GB to convert).
    #[test]
    fn a_row_that_is_no_game_is_its_own_error_and_the_rest_are_read() {
        let (mut games, _) = read_games(
            b"[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 *\n",
        );
        let mut b = crate::games::GamesBuilder::new();
        for (i, g) in games.iter_mut().enumerate() {
            b.append(i as u64, g);
        }
        let three = b.finish();
        let two_games = "1. d4 *\n\n[Event \"x\"]\n\n1. e4 *".to_string();
        let long = "1. c4 {".to_string() + &"a".repeat(MAX_MOVETEXT) + "} *";
        let movetext: ArrayRef = Arc::new(StringArray::from(vec![
            "1. e4 e5 *".to_string(),
            two_games,
            long,
        ]));
        let read = games_of_batch(&with_column(&three, "movetext", movetext)).unwrap();
        assert_eq!(read.len(), 3);
        assert!(read[0].1.is_ok());
        let why = read[1].1.as_ref().unwrap_err();
        assert!(why.contains("does not read back as one game"), "{why}");
        let why = read[2].1.as_ref().unwrap_err();
        assert!(why.contains("over the bound on one game"), "{why}");
    }
}
