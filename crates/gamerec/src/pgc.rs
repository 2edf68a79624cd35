//! Portable Game Notation Compressed (PGN standard section 20). Issue #6.
