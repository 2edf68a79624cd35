//! `gamerec sgf analyze` without the `server` feature (Go matches fall
//! through to `match`, which says the same).

use std::process::ExitCode;

/// `sgf analyze`: the feature is missing; anything else: `None`.
pub fn dispatch(args: &[std::ffi::OsString]) -> Option<ExitCode> {
    let analyze =
        args.get(1).is_some_and(|w| w == "sgf") && args.get(2).is_some_and(|w| w == "analyze");
    analyze.then(|| crate::cmd::not_built::missing("sgf analyze", "server"))
}
