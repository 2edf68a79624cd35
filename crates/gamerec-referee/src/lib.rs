//! Argus: the automated tournament referee over EPD (EPD spec sections 3.2
//! and 8). Issue #8.
//!
//! | module | role |
//! |---|---|
//! | `wire` | the protocol's records over `gamerec::epd` (malformed vs illegal move) |
//! | `clock` | PGN TimeControl values and the referee's clocks |
//! | `game_rules` | the rules of one game, free of I/O |

pub mod app;
pub mod background;
pub mod bridge;
pub mod clock;
pub mod conn;
pub mod counters;
pub mod director;
pub mod event;
pub mod export;
pub mod game_rules;
pub mod game_runner;
pub mod go_match;
pub mod limits;
pub mod lobby;
pub mod log;
pub mod match_runner;
pub mod serial;
pub mod server;
pub mod spectator;
pub mod standings;
pub mod stats;
pub mod wire;
