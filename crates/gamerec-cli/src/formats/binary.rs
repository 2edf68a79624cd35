//! `gamerec check` for the chess formats without a checker of their own:
//! the binary game files (ChessBase `.cbf`/`.cbi` pairs, `.fbk` opening
//! trees, PGC `.pgc`), JSON Lines and FEN, read by the library's one reader
//! ([`gamerec::io::Reader`]). Binary issues print as
//! `path:byte OFFSET: severity: game N: message`.

use std::io::Write;

use anyhow::Result;
use gamerec::diag::{Diagnostic, Severity};
use gamerec::io::pipeline::{ErrorGames, Tally};
use gamerec::io::{Format, Input, ReadOptions, Reader, Record, check_binary};

/// `check` for one file: appends one line per issue to `out` (warnings only
/// unless `quiet`) and returns its counts (one input) and, for an input cut
/// short (a damaged compressed file), the message saying so after the
/// counts of what came before the cut. PGC, CBF/CBI and FBK files are
/// read game by game in bounded memory ([`gamerec::io::check_binary`]);
/// JSON Lines and FEN through the library's reader.
pub fn check_report(
    path: &str,
    quiet: bool,
    out: &mut impl Write,
) -> Result<(Tally, Option<String>)> {
    let input = Input::from_arg(std::ffi::OsStr::new(path));
    let mut s = Tally {
        inputs: 1,
        ..Tally::default()
    };
    let mut nodes = 0u64;
    let mut with_errors = 0u64;
    let mut games_with_errors = ErrorGames::default();
    let mut show = |d: Diagnostic, s: &mut Tally| -> std::io::Result<()> {
        let (errors, warnings) = d.counts();
        s.errors += errors;
        s.warnings += warnings;
        // An error that names no game is taken as its own game's.
        if games_with_errors.is_new(&d) || (d.is_error() && d.game.is_none()) {
            with_errors += 1;
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
        nodes = check.moves;
        let cut = check.cut.map(|e| cut_off(&e, &mut s, check.games));
        return Ok((with_counts(s, nodes, with_errors), cut));
    }
    let mut reader = Reader::open(&input, &ReadOptions::default())?;
    // Diagnostics are shown as their records are done with (a run of bad
    // records included), so memory holds none.
    let mut failed = None;
    let mut cut = None;
    while let Some(item) = reader.next_reporting(&mut |d| {
        if failed.is_none()
            && let Err(e) = show(d, &mut s)
        {
            failed = Some(e);
        }
    }) {
        if let Some(e) = failed {
            return Err(e.into());
        }
        match item {
            Ok(item) => {
                if let Record::Game(g) = item.record {
                    nodes += g.tree.len() as u64 - 1;
                }
            }
            Err(e) => {
                cut = Some(e);
                break;
            }
        }
    }
    if let Some(e) = failed {
        return Err(e.into());
    }
    // Games or records met, those that could not be read included (as
    // every verb counts them).
    if input.format_by_name() == Some(Format::Fen) {
        s.records = reader.items_met();
    } else {
        s.games = reader.items_met();
    }
    let cut = cut.map(|e| cut_off(&e, &mut s, reader.items_met()));
    Ok((with_counts(s, nodes, with_errors), cut))
}

/// The message for an input cut short after `met` games or records, which
/// counts it as not read.
fn cut_off(e: &gamerec::io::OpenError, s: &mut Tally, met: u64) -> String {
    s.inputs_not_read = 1;
    let unit = if s.records > 0 { "records" } else { "games" };
    gamerec::io::pipeline::cut_short(e, met, unit).to_string()
}

/// `s` with its nodes (plies; none counted when there are no games and no
/// plies) and its games, or records when there are any, with errors.
fn with_counts(mut s: Tally, nodes: u64, with_errors: u64) -> Tally {
    s.nodes = (nodes > 0 || s.games > 0).then_some(nodes);
    if s.records > 0 {
        s.records_with_errors = with_errors;
    } else {
        s.games_with_errors = with_errors;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_reports_binary_issues_with_byte_offsets() {
        let dir = gamerec_testkit::temp_dir("binary");
        let bad = dir.join("bad.pgc");
        std::fs::write(&bad, [0x05, 0x03, 0x01, 0x63]).expect("write");
        let mut out = Vec::new();
        let (s, _) = check_report(bad.to_str().expect("utf-8"), true, &mut out).expect("reads");
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
