//! `gamerec check` for the chess formats without a checker of their own:
//! the binary game files (ChessBase `.cbf`/`.cbi` pairs, `.fbk` opening
//! trees, PGC `.pgc`), JSON Lines and FEN, read by the library's one reader
//! ([`gamerec::io::Reader`]). Binary issues print as
//! `path:byte OFFSET: severity: game N: message`.

use std::io::Write;

use anyhow::Result;
use gamerec::diag::{Diagnostic, Severity};
use gamerec::io::pipeline::ErrorGames;
use gamerec::io::{Format, Input, ReadOptions, Reader, Record, check_binary};

/// Counts of one checked binary file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinarySummary {
    /// Games read.
    pub games: u64,
    /// Plies read (variations included).
    pub nodes: u64,
    /// Positions read (FEN).
    pub records: u64,
    /// Error issues.
    pub errors: u64,
    /// Warning issues.
    pub warnings: u64,
    /// Games (or records) with at least one error.
    pub with_errors: u64,
}

/// `check` for one file: appends one line per issue to `out` (warnings only
/// unless `quiet`) and returns the counts. PGC, CBF/CBI and FBK files are
/// read game by game in bounded memory ([`gamerec::io::check_binary`]);
/// JSON Lines and FEN through the library's reader.
pub fn check_report(path: &str, quiet: bool, out: &mut Vec<u8>) -> Result<BinarySummary> {
    let input = Input::from_arg(std::ffi::OsStr::new(path));
    let mut s = BinarySummary::default();
    let mut games_with_errors = ErrorGames::default();
    let mut show = |d: Diagnostic, s: &mut BinarySummary| -> std::io::Result<()> {
        match d.severity {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
        }
        // An error that names no game is taken as its own game's.
        if games_with_errors.is_new(&d) || (d.is_error() && d.game.is_none()) {
            s.with_errors += 1;
        }
        if d.severity == Severity::Error || !quiet {
            writeln!(out, "{d}")?;
        }
        Ok(())
    };
    if let Some(format @ (Format::Pgc | Format::Cbf | Format::Fbk)) = input.format_by_name() {
        let mut failed = None;
        let check = check_binary(&input, format, &mut |d| {
            // Diagnostics are shown as they come, so memory holds none.
            if let Err(e) = show(d, &mut s) {
                failed.get_or_insert(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        s.games = check.games;
        s.nodes = check.moves;
        return Ok(s);
    }
    let mut reader = Reader::open(&input, &ReadOptions::default())?;
    while let Some(item) = reader.next() {
        // Diagnostics are shown as they come, so memory holds none.
        for d in reader.take_diagnostics() {
            show(d, &mut s)?;
        }
        if let Record::Game(g) = item?.record {
            s.nodes += g.tree.len() as u64 - 1;
        }
    }
    for d in reader.take_diagnostics() {
        show(d, &mut s)?;
    }
    // Games or records met, those that could not be read included (as
    // every verb counts them).
    if input.format_by_name() == Some(Format::Fen) {
        s.records = reader.items_met();
    } else {
        s.games = reader.items_met();
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_reports_binary_issues_with_byte_offsets() {
        let dir = std::env::temp_dir().join(format!("gamerec-binary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let bad = dir.join("bad.pgc");
        std::fs::write(&bad, [0x05, 0x03, 0x01, 0x63]).expect("write");
        let mut out = Vec::new();
        let s = check_report(bad.to_str().expect("utf-8"), true, &mut out).expect("reads");
        assert_eq!((s.games, s.errors), (1, 2));
        assert!(
            String::from_utf8_lossy(&out)
                .contains("bad.pgc:byte 3: error: game 1: move ordinal 99"),
            "{}",
            String::from_utf8_lossy(&out)
        );
        assert!(check_report("/nonexistent/x.pgc", false, &mut out).is_err());
    }
}
