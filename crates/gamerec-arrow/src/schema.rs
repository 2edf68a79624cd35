//! The tables' column names, their tag sources and their Arrow schemas.

use arrow_schema::SchemaRef;

/// How a tag column is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Utf8`: the value as written.
    Text,
    /// `Int32`: [`crate::values::parse_int`].
    Int,
    /// `Int32` written with a sign (`+5`, `0`, `-12`): [`crate::values::parse_signed`].
    Signed,
    /// `Date32`: [`crate::values::parse_date`].
    Date,
    /// `Int32`: milliseconds since midnight, [`crate::values::parse_time`]
    /// × 1000 (plain int32, not Parquet `TIME(MILLIS)`, which Spark
    /// rejects).
    Time,
}

/// The games table's tag columns, in column order: (column, tag, type).
/// A tag's first occurrence goes to its column when it parses as the
/// column's type; every other tag pair goes to the `tags` map column.
pub const TAG_COLUMNS: [(&str, &str, Kind); 21] = [
    ("event", "Event", Kind::Text),
    ("site", "Site", Kind::Text),
    ("date", "Date", Kind::Text),
    ("round", "Round", Kind::Text),
    ("white", "White", Kind::Text),
    ("black", "Black", Kind::Text),
    ("result", "Result", Kind::Text),
    ("white_elo", "WhiteElo", Kind::Int),
    ("black_elo", "BlackElo", Kind::Int),
    ("white_rating_diff", "WhiteRatingDiff", Kind::Signed),
    ("black_rating_diff", "BlackRatingDiff", Kind::Signed),
    ("white_title", "WhiteTitle", Kind::Text),
    ("black_title", "BlackTitle", Kind::Text),
    ("utc_date", "UTCDate", Kind::Date),
    ("utc_time", "UTCTime", Kind::Time),
    ("eco", "ECO", Kind::Text),
    ("opening", "Opening", Kind::Text),
    ("variant", "Variant", Kind::Text),
    ("termination", "Termination", Kind::Text),
    ("time_control", "TimeControl", Kind::Text),
    ("fen", "FEN", Kind::Text),
];

/// The games table's schema (with the lineage columns: `lichess_id`,
/// `game_key`, `source`, `offset`; see [`crate::lineage`]).
pub fn games() -> SchemaRef {
    crate::lineage::extend(
        crate::games::GamesBuilder::new().finish().schema_ref(),
        true,
    )
}

/// The positions table's schema (with `game_key`, `source`, `offset`).
pub fn positions() -> SchemaRef {
    crate::lineage::extend(
        crate::positions::PositionsBuilder::new()
            .finish()
            .schema_ref(),
        false,
    )
}
