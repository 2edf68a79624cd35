//! Chess engines for gamerec: drivers for UCI and XBoard/CECP engines running
//! as child processes, a built-in engine, an exact mate solver, the EPD
//! analysis verbs (pfga, pfms, pfts) and Gastric-style reports.
//!
//! Every engine implements [`Engine`]: set a position (start + moves), run a
//! search with [`Limits`] while receiving [`Info`] lines, get a
//! [`SearchResult`]. Searches are blocking calls; another thread (or a tokio
//! `spawn_blocking` caller) stops one early through the engine's
//! [`StopHandle`].

pub mod analysis;
pub mod builtin;
pub mod mate;
pub mod notation;
mod process;
pub mod report;
pub mod types;
pub mod uci;
pub mod xboard;

pub use process::EngineCommand;
pub use types::{Bound, Clock, EngineError, Info, Limits, Result, Score, SearchResult, StopHandle};

use shakmaty::{Chess, Move};

/// A chess engine that searches positions.
///
/// The driver owns whatever backs the engine (a child process, a thread);
/// dropping it ends the engine.
pub trait Engine: Send {
    /// The engine's name (from `id name`, `feature myname`, or built in).
    fn name(&self) -> &str;

    /// Tells the engine a new game starts (clears hash tables and history).
    fn new_game(&mut self) -> Result<()>;

    /// Sets an engine option (`Hash`, `Threads`, `MultiPV`, engine-specific).
    fn set_option(&mut self, name: &str, value: &str) -> Result<()>;

    /// Sets the position to search: `start` followed by `moves` (all legal).
    fn set_position(&mut self, start: &Chess, moves: &[Move]) -> Result<()>;

    /// Searches the current position. `on_info` sees every progress line.
    fn go(&mut self, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> Result<SearchResult>;

    /// A handle that stops the running search from another thread.
    fn stop_handle(&self) -> StopHandle;

    /// Ends the engine politely (dropping it kills it).
    fn quit(&mut self) -> Result<()>;
}

/// Which engine to run, as written on command lines: `builtin`,
/// `uci:COMMAND` or `xboard:COMMAND`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineSpec {
    /// The built-in engine.
    Builtin,
    /// A UCI engine started with this command.
    Uci(EngineCommand),
    /// An XBoard/CECP engine started with this command.
    Xboard(EngineCommand),
}

impl std::str::FromStr for EngineSpec {
    type Err = EngineError;

    fn from_str(s: &str) -> Result<EngineSpec> {
        if s == "builtin" {
            Ok(EngineSpec::Builtin)
        } else if let Some(cmd) = s.strip_prefix("uci:") {
            Ok(EngineSpec::Uci(EngineCommand::parse(cmd)?))
        } else if let Some(cmd) = s
            .strip_prefix("xboard:")
            .or_else(|| s.strip_prefix("cecp:"))
        {
            Ok(EngineSpec::Xboard(EngineCommand::parse(cmd)?))
        } else {
            Err(EngineError::Usage(format!(
                "unknown engine `{s}`: expected builtin, uci:COMMAND or xboard:COMMAND"
            )))
        }
    }
}

impl EngineSpec {
    /// Starts the engine.
    pub fn start(&self) -> Result<Box<dyn Engine>> {
        Ok(match self {
            EngineSpec::Builtin => Box::new(builtin::BuiltinEngine::new()),
            EngineSpec::Uci(cmd) => {
                Box::new(uci::UciEngine::start(cmd, &uci::UciOptions::default())?)
            }
            EngineSpec::Xboard(cmd) => Box::new(xboard::XboardEngine::start(
                cmd,
                &xboard::XboardOptions::default(),
            )?),
        })
    }
}
