//! Conversions between games, FEN and EPD records.
