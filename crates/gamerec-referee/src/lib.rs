//! Argus: the automated tournament referee over EPD (EPD spec sections 3.2
//! and 8). Issue #8.
//!
//! | module | role |
//! |---|---|
//! | `record` | the EPD record codec of the wire protocol (placeholder for `gamerec::epd`) |
//! | `clock` | PGN TimeControl values and the referee's clocks |
//! | `game` | the rules of one game, free of I/O |

pub mod app;
pub mod bridge;
pub mod clock;
pub mod conn;
pub mod director;
pub mod engine;
pub mod event;
pub mod game;
pub mod lobby;
pub mod log;
pub mod pgnout;
pub mod record;
pub mod runner;
pub mod serial;
pub mod server;
pub mod spectator;
pub mod standings;
