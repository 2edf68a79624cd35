//! Chess engines for gamerec: drivers for UCI and XBoard/CECP engines running
//! as child processes, a built-in engine, an exact mate solver, the EPD
//! analysis verbs (pfga, pfms, pfts) and their result files read back
//! ([`results`]; `gamerec_view::report` draws the report).
//!
//! Every engine implements [`Engine`]: set a position (start + moves), run a
//! search with [`Limits`] while receiving [`Info`] lines, get a
//! [`SearchResult`]. Searches are blocking calls; another thread (or a tokio
//! `spawn_blocking` caller) stops one early through the engine's
//! [`StopHandle`].

pub mod analysis;
pub mod builtin;
pub mod gtp;
pub mod mate;
pub mod notation;
mod process;
pub mod results;
pub mod types;
pub mod uci;
pub mod xboard;

pub use process::{EngineCommand, ExitWatch, set_io_log};
pub use types::{
    Bound, Clock, EngineError, Info, Limits, PonderHandle, Result, Score, SearchResult, StopHandle,
};

use gamerec::excerpt::excerpt;
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

    /// Pondering, for engines that can (`None`: this engine does not ponder).
    fn ponder_handle(&self) -> Option<PonderHandle> {
        None
    }

    /// Tells when the engine's process exits (`None`: no process to watch,
    /// as for the built-in engine).
    fn exit_watch(&self) -> Option<ExitWatch> {
        None
    }

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
                "unknown engine `{}`: expected builtin, uci:COMMAND or xboard:COMMAND",
                excerpt(s)
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

/// An engine as `gamerec bridge`, `gamerec match` and the referee's event
/// files name it: an [`EngineSpec`] with a search depth for the built-in
/// engine (`builtin:DEPTH`) and engine options after `|`
/// (`uci:stockfish|Skill Level=1|Hash=16`), set once the engine is up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSetup {
    /// Which engine.
    pub spec: EngineSpec,
    /// The search depth given with `builtin:DEPTH`.
    pub depth: Option<u32>,
    /// `Name=Value` options, in order.
    pub options: Vec<(String, String)>,
}

impl std::str::FromStr for EngineSetup {
    type Err = EngineError;

    fn from_str(s: &str) -> Result<EngineSetup> {
        let mut parts = s.split('|');
        let head = parts.next().unwrap_or_default().trim();
        let options = parts
            .filter(|o| !o.trim().is_empty())
            .map(|o| {
                let (name, value) = o.split_once('=').unwrap_or((o, ""));
                option(o, name, value)
            })
            .collect::<Result<_>>()?;
        let (spec, depth) = match head.strip_prefix("builtin:") {
            Some(d) => {
                let depth = d
                    .parse::<u32>()
                    .ok()
                    .filter(|d| (1..=64).contains(d))
                    .ok_or_else(|| {
                        EngineError::Usage(format!(
                            "`{}`: expected builtin:DEPTH with a depth from 1 to 64",
                            excerpt(head)
                        ))
                    })?;
                (EngineSpec::Builtin, Some(depth))
            }
            None => (head.parse()?, None),
        };
        Ok(EngineSetup {
            spec,
            depth,
            options,
        })
    }
}

/// `spec` with the options `each` (`Name=Value|Name=Value`, as after `|`
/// in a spec; `gamerec match --each`) put before its own: they are set
/// first, so the engine's own options win.
pub fn spec_with_options(spec: &str, each: Option<&str>) -> String {
    match each.map(str::trim).filter(|e| !e.is_empty()) {
        None => spec.to_owned(),
        Some(each) => match spec.split_once('|') {
            Some((head, own)) => format!("{head}|{each}|{own}"),
            None => format!("{spec}|{each}"),
        },
    }
}

/// Reads an engine option given as `NAME=VALUE` (`gamerec epd analyze
/// --option`), both sides trimmed.
pub fn option_setting(text: &str) -> Result<(String, String)> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| EngineError::Usage(format!("`{}`: expected NAME=VALUE", excerpt(text))))?;
    option(text, name, value)
}

/// The option `name`=`value` (as written in `text`), trimmed: it has a
/// name, and no line break (which would send the engine a second command).
fn option(text: &str, name: &str, value: &str) -> Result<(String, String)> {
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() {
        return Err(EngineError::Usage(format!(
            "`{}`: an engine option needs a name",
            excerpt(text)
        )));
    }
    if name.contains(['\n', '\r']) || value.contains(['\n', '\r']) {
        return Err(EngineError::Usage(format!(
            "`{}`: an engine option is one line",
            excerpt(text)
        )));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// A player name for an engine spec (`gamerec bridge`, `gamerec match`):
/// the program's file name (the spec before its options for `builtin`).
pub fn default_name(spec: &str) -> String {
    // As `EngineSetup` reads it.
    let head = spec.split('|').next().unwrap_or(spec).trim();
    match head.split_once(':') {
        Some((kind, command)) if kind != "builtin" => program_name(command),
        _ => program_name(head),
    }
}

/// The file name of an engine command's program: its first word, read as
/// [`EngineCommand::parse`] reads it (quotes and all).
pub(crate) fn program_name(command: &str) -> String {
    let program = process::split_words(command)
        .into_iter()
        .next()
        .unwrap_or_default();
    std::path::Path::new(&program)
        .file_name()
        .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned())
}

impl EngineSetup {
    /// Starts the engine and sets its options.
    pub fn start(&self) -> Result<Box<dyn Engine>> {
        let mut engine = self.spec.start()?;
        for (name, value) in &self.options {
            engine.set_option(name, value)?;
        }
        Ok(engine)
    }
}

#[cfg(test)]
mod setup_tests {
    use super::*;

    #[test]
    fn engine_setups_read_depth_and_options() {
        let s: EngineSetup = "builtin:4".parse().unwrap();
        assert_eq!((s.spec, s.depth), (EngineSpec::Builtin, Some(4)));
        let s: EngineSetup = "uci:stockfish -x|Skill Level=1|Hash = 16".parse().unwrap();
        assert!(matches!(&s.spec, EngineSpec::Uci(c) if c.display() == "stockfish -x"));
        assert_eq!(
            s.options,
            vec![
                ("Skill Level".to_owned(), "1".to_owned()),
                ("Hash".to_owned(), "16".to_owned())
            ]
        );
        assert!(matches!(
            "xboard:fairymax".parse::<EngineSetup>().unwrap().spec,
            EngineSpec::Xboard(_)
        ));
        for bad in ["builtin:0", "builtin:x", "stockfish", "uci:", ""] {
            assert!(bad.parse::<EngineSetup>().is_err(), "{bad}");
        }
    }

    /// An empty item (`uci:sf|`) was an option with no name, which the
    /// engine refused; a line break in an option sent a second command.
    #[test]
    fn options_have_names_and_one_line() {
        let s: EngineSetup = "uci:sf||Hash=16| |".parse().unwrap();
        assert_eq!(s.options, vec![("Hash".to_owned(), "16".to_owned())]);
        for bad in [
            "uci:sf|=16",
            "uci:sf|Hash=16\nquit",
            "uci:sf|Hash\r\nquit=1",
        ] {
            let e = bad.parse::<EngineSetup>().unwrap_err().to_string();
            assert!(e.starts_with('`'), "{e}");
        }
        assert_eq!(
            option_setting(" Hash = 16 ").unwrap(),
            ("Hash".to_owned(), "16".to_owned())
        );
        for bad in ["=16", "Hash=16\nquit"] {
            assert!(option_setting(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn default_names_are_program_names() {
        for (spec, name) in [
            ("uci:/usr/games/stockfish -x|Hash=16", "stockfish"),
            ("xboard:fairymax", "fairymax"),
            ("builtin:4|Hash=1", "builtin:4"),
            // A `:` in the options is no engine kind.
            ("builtin|Hash=1:2", "builtin"),
            ("uci:sf|SyzygyPath=/a:/b", "sf"),
            // Quotes as the command is read with them.
            ("uci:\"/opt/my engines/sf\" -x", "sf"),
            ("cecp:\"/opt/my\"eng", "myeng"),
            // The spec's head is trimmed, as `EngineSetup` trims it.
            (" builtin:4", "builtin:4"),
            ("uci:\"/opt/sf\n|Hash=1", "sf"),
        ] {
            assert_eq!(default_name(spec), name, "{spec}");
        }
        for (spec, name) in [
            ("gtp:/opt/gnugo --mode gtp|level 1", "gnugo"),
            // A `/` in a start-up command is no path of the program's.
            ("gtp:gnugo|loadsgf/x", "gnugo"),
            ("gtp:/opt/gnugo/", "gnugo"),
            ("random:5", "random:5"),
        ] {
            assert_eq!(gtp::GoEngineSpec::default_name(spec), name, "{spec}");
        }
    }

    #[test]
    fn a_long_spec_makes_a_short_message() {
        let long = "x".repeat(1 << 20);
        for spec in [long.clone(), format!("builtin:{long}")] {
            let e = spec.parse::<EngineSetup>().unwrap_err().to_string();
            assert!(e.len() < 200 && e.contains("xxxx… ("), "{e}");
        }
        let e = option_setting(&long).unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
        let e = long.parse::<gtp::GoEngineSpec>().unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
        let e = format!("random:{long}")
            .parse::<gtp::GoEngineSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200, "{e}");
    }
}
