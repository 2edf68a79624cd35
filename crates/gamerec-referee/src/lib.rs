//! Argus: the automated tournament referee over EPD (EPD spec sections 3.2
//! and 8), its engine bridge, and the `gamerec match` runners.
//!
//! | module | role |
//! |---|---|
//! | `wire` | the protocol's records over `gamerec::epd` (malformed vs illegal move) |
//! | `clock` | PGN TimeControl values and the referee's clocks |
//! | `game_rules` | the rules of one game, free of I/O |
//! | `game_runner` | one game's command sequence between two seats |
//! | `conn`, `lobby`, `limits`, `server` | clients, sign-on and their bounds |
//! | `director`, `event`, `background` | an event: schedule, games, persistence |
//! | `bridge` | the client side: an engine playing through the referee |
//! | `match_runner` | `gamerec match` for chess: schedule, openings, adjudication, reports |
//! | `go_match` | `gamerec match` for Go engines (GTP) |
//! | `stats`, `counters`, `standings` | match statistics, per-engine counters, standings |

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
