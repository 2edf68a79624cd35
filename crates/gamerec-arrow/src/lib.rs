//! Chess games as columnar data: Arrow record batches and Parquet / Arrow IPC
//! files, for DuckDB, Polars, pandas, Spark and model training.
//!
//! Two tables (their columns are documented in the README, "Games as data"):
//!
//! | table | one row per | built by |
//! |---|---|---|
//! | games | game | [`games::GamesBuilder`] |
//! | positions | main-line ply | [`positions::PositionsBuilder`] |
//!
//! SGF inputs give the Go tables instead ([`go`]: Go games, Go moves).
//!
//! [`decode::Batches`] reads any number of inputs (PGN, plain or compressed,
//! through the library's parallel reader [`gamerec::io::parallel`]; the other
//! chess formats through [`gamerec::io::Reader`]) and yields record batches
//! in input order, decoded by a chosen number of threads in bounded memory.
//! [`write::TableWriter`] streams batches to Parquet (row groups) or Arrow IPC.
//! [`read::read_parquet_games`] turns a games table back into [`gamerec::model::Game`]s.

mod columns;
pub mod decode;
pub mod games;
pub mod go;
mod hf;
pub mod lineage;
pub mod partition;
pub mod positions;
pub mod read;
pub mod schema;
pub mod values;
mod visit;
pub mod write;

pub use arrow_array::RecordBatch;
pub use decode::{Batches, Decoded, Options, Table};
pub use positions::PositionFilter;
pub use write::{FileKind, TableWriter};

/// An error of this crate: I/O, Arrow/Parquet, or bad table content.
#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file.
    Io(std::io::Error),
    /// Building or encoding Arrow data.
    Arrow(arrow_schema::ArrowError),
    /// Reading or writing Parquet.
    Parquet(parquet::errors::ParquetError),
    /// A table that is not a gamerec games table (missing column, wrong type).
    Table(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io(e) => write!(f, "{e}"),
            Error::Arrow(e) => write!(f, "arrow: {e}"),
            Error::Parquet(e) => write!(f, "parquet: {e}"),
            Error::Table(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Error {
        Error::Arrow(e)
    }
}

impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Error {
        Error::Parquet(e)
    }
}
