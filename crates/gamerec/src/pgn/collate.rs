//! The collation order of the PGN standard (section 8.1.1 archive order) used
//! by `gamerec sort`.
