//! Where each row comes from: the `game_key`, `source` and `offset`
//! columns, and the games table's `lichess_id`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

/// The key of the game that starts at byte `offset` of the input named
/// `source`: FNV-1a (64 bits) of the name's UTF-8 bytes, one 0 byte and
/// the offset as 8 little-endian bytes, as a signed 64-bit integer. The
/// same input read again gives the same keys; games of different inputs
/// or places get different keys (up to 64-bit hash collisions).
pub fn game_key(source: &str, offset: u64) -> i64 {
    key_at(source_hash(source), offset)
}

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over `bytes` from `hash`.
fn fnv(mut hash: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    for b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// The hash state after the source's name and its 0 byte (the same for
/// every game of an input).
fn source_hash(source: &str) -> u64 {
    fnv(0xcbf2_9ce4_8422_2325, source.bytes().chain([0]))
}

/// [`game_key`] from the source's hash state.
fn key_at(source_hash: u64, offset: u64) -> i64 {
    fnv(source_hash, offset.to_le_bytes()) as i64
}

/// Marks a place given by record number (`UNKNOWN | number`) where the
/// format gives no byte offset: the `offset` column is null there and the
/// key hashes this value.
pub const UNKNOWN: u64 = 1 << 63;

/// The lichess game id of a `Site` tag (`https://lichess.org/AbCd1234`:
/// eight letters and digits), if it is one.
pub fn lichess_id(site: &str) -> Option<&str> {
    let rest = site
        .strip_prefix("https://lichess.org/")
        .or_else(|| site.strip_prefix("http://lichess.org/"))?;
    let id = rest.get(..8)?;
    let tail = &rest[8..];
    let ok = id.bytes().all(|b| b.is_ascii_alphanumeric())
        && (tail.is_empty() || tail.starts_with(['/', '#', '?']));
    ok.then_some(id)
}

/// The lineage fields added at the end of each table.
pub(crate) fn fields(games: bool) -> Vec<Field> {
    let mut fields = Vec::new();
    if games {
        fields.push(Field::new("lichess_id", DataType::Utf8, true));
    }
    fields.push(Field::new("game_key", DataType::Int64, false));
    fields.push(Field::new("source", DataType::Utf8, false));
    fields.push(Field::new("offset", DataType::Int64, true));
    fields
}

/// `schema` with the lineage fields at its end.
pub(crate) fn extend(schema: &Schema, games: bool) -> SchemaRef {
    let mut all: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    all.extend(fields(games));
    Arc::new(Schema::new_with_metadata(all, schema.metadata().clone()))
}

/// `batch` (rows of games numbered from 0 in `game_id`, before
/// renumbering) with the lineage columns added: `offsets[id]` is where
/// game `id` starts in the input called `source`.
pub(crate) fn append(
    batch: RecordBatch,
    games: bool,
    source: &str,
    offsets: &[u64],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let rows = batch.num_rows();
    let ids = batch
        .column(0)
        .as_primitive_opt::<arrow_array::types::Int64Type>()
        .ok_or_else(|| arrow_schema::ArrowError::SchemaError("game_id is not Int64".into()))?;
    let offset_of = |row: usize| -> u64 {
        let id = ids.value(row);
        usize::try_from(id)
            .ok()
            .and_then(|i| offsets.get(i))
            .copied()
            .unwrap_or(0)
    };
    // Rows of one game are consecutive (every ply of it in the positions
    // table): its offset is looked up and its key hashed once, from the
    // input's hash state; the offset column has nulls only where a place
    // is a record number.
    let seed = source_hash(source);
    let mut offset_values = Vec::with_capacity(rows);
    let mut key_values = Vec::with_capacity(rows);
    let mut numbered = false;
    let mut last: Option<(i64, u64, i64)> = None;
    for r in 0..rows {
        let id = ids.value(r);
        let (at, key) = match last {
            Some((game, at, key)) if game == id => (at, key),
            _ => {
                let at = offset_of(r);
                let key = key_at(seed, at);
                last = Some((id, at, key));
                (at, key)
            }
        };
        numbered |= at & UNKNOWN != 0;
        offset_values.push(if at & UNKNOWN == 0 { at as i64 } else { 0 });
        key_values.push(key);
    }
    let nulls = numbered.then(|| {
        arrow_buffer::NullBuffer::from_iter((0..rows).map(|r| offset_of(r) & UNKNOWN == 0))
    });
    let offset = Int64Array::new(offset_values.into(), nulls);
    let key = Int64Array::from(key_values);
    let mut columns = batch.columns().to_vec();
    if games {
        let site = batch
            .column_by_name("site")
            .and_then(|c| c.as_string_opt::<i32>().cloned());
        let ids: StringArray = (0..rows)
            .map(|r| {
                let site = site.as_ref().filter(|s| !s.is_null(r))?;
                lichess_id(site.value(r))
            })
            .collect();
        columns.push(Arc::new(ids) as ArrayRef);
    }
    columns.push(Arc::new(key));
    columns.push(Arc::new(repeated(source, rows)?));
    columns.push(Arc::new(offset));
    RecordBatch::try_new(extend(&batch.schema(), games), columns)
}

/// `rows` copies of `text` as one column, built in two allocations.
fn repeated(text: &str, rows: usize) -> Result<StringArray, arrow_schema::ArrowError> {
    let too_long = || arrow_schema::ArrowError::ComputeError("source column over 2 GiB".into());
    let total = text.len().checked_mul(rows).ok_or_else(too_long)?;
    i32::try_from(total).map_err(|_| too_long())?;
    let offsets =
        arrow_buffer::OffsetBuffer::<i32>::from_lengths(std::iter::repeat_n(text.len(), rows));
    let values = arrow_buffer::Buffer::from(text.repeat(rows).into_bytes());
    // SAFETY: the bytes are `text`, a `str`, end to end, and each offset is
    // at the end of one copy: UTF-8, cut at character boundaries (a check
    // would read every byte of every row again).
    Ok(unsafe { StringArray::new_unchecked(offsets, values, None) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_source_and_offset_and_are_stable() {
        assert_eq!(game_key("a.pgn", 0), game_key("a.pgn", 0));
        assert_ne!(game_key("a.pgn", 0), game_key("b.pgn", 0));
        assert_ne!(game_key("a.pgn", 0), game_key("a.pgn", 1));
        // FNV-1a 64 as documented (python/tests/test_lineage.py computes
        // it the same way): these values never change.
        assert_eq!(game_key("a.pgn", 0), -3_275_400_335_100_921_863);
        assert_eq!(game_key("lichess.pgn", 1234), -2_294_487_641_709_531_939);
        let keys: std::collections::HashSet<i64> = (0..100_000u64)
            .map(|o| game_key("x.pgn", o * 700))
            .collect();
        assert_eq!(keys.len(), 100_000);
    }

    #[test]
    fn a_repeated_source_column_holds_the_name_on_every_row() {
        let column = repeated("dir/a.pgn", 3).unwrap();
        assert_eq!(column.len(), 3);
        assert!((0..3).all(|r| column.value(r) == "dir/a.pgn"));
        assert_eq!(repeated("x", 0).unwrap().len(), 0);
        // Not ASCII, and empty: the array Arrow's own check accepts.
        for text in ["Partien/Großmeister ½.pgn", ""] {
            let column = repeated(text, 4).unwrap();
            column.to_data().validate_full().unwrap();
            assert!((0..4).all(|r| column.value(r) == text));
        }
    }

    #[test]
    fn lichess_ids_come_from_game_urls_only() {
        assert_eq!(lichess_id("https://lichess.org/AbCd1234"), Some("AbCd1234"));
        assert_eq!(
            lichess_id("https://lichess.org/AbCd1234/black"),
            Some("AbCd1234")
        );
        assert_eq!(lichess_id("https://lichess.org/study/xyz"), None);
        assert_eq!(lichess_id("https://lichess.org/AbCd12345"), None);
        assert_eq!(lichess_id("Berlin GER"), None);
    }
}
