//! `gamerec check` for the chess formats without a checker of their own:
//! the binary game files (ChessBase `.cbf`/`.cbi` pairs, `.fbk` opening
//! trees, PGC `.pgc`), JSON Lines and FEN, read by the library's one reader
//! ([`gamerec::io::Reader`]). Binary issues print as
//! `path:byte OFFSET: severity: game N: message`.

use std::io::Write;

use anyhow::Result;
use gamerec::diag::Severity;
use gamerec::io::{Input, ReadOptions, Reader, Record};

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
}

/// `check` for one binary file: appends one line per issue to `out`
/// (warnings only unless `quiet`) and returns the counts.
pub fn check_report(path: &str, quiet: bool, out: &mut Vec<u8>) -> Result<BinarySummary> {
    let mut reader = Reader::open(
        &Input::from_arg(std::ffi::OsStr::new(path)),
        &ReadOptions::default(),
    )?;
    let mut s = BinarySummary::default();
    for item in reader.by_ref() {
        match item?.record {
            Record::Game(g) => {
                s.games += 1;
                s.nodes += g.tree.len() as u64 - 1;
            }
            Record::Position(_) => s.records += 1,
        }
    }
    for d in reader.take_diagnostics() {
        match d.severity {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
        }
        if d.severity == Severity::Error || !quiet {
            writeln!(out, "{d}")?;
        }
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
