//! `gamerec check` for the binary game files: ChessBase `.cbf`/`.cbi`
//! pairs, `.fbk` opening trees and PGC `.pgc`, read by the library's one
//! reader ([`gamerec::io::Reader`]). Issues print as
//! `path:byte OFFSET: severity: game N: message`.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use gamerec::diag::Severity;
use gamerec::io::{Format, Input, ReadOptions, Reader, Record};

/// Whether `path` names a binary chess format (by extension, through a
/// compression suffix).
pub fn is_binary(path: &Path) -> bool {
    Format::from_path(path).is_some_and(Format::is_binary)
}

/// Counts of one checked binary file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinarySummary {
    /// Games read.
    pub games: u64,
    /// Plies read (variations included).
    pub nodes: u64,
    /// Error issues.
    pub errors: u64,
    /// Warning issues.
    pub warnings: u64,
}

/// `check` for one binary file: appends one line per issue to `out`
/// (warnings only unless `quiet`) and returns the counts.
pub fn check_report(path: &str, quiet: bool, out: &mut Vec<u8>) -> Result<BinarySummary> {
    let mut reader = Reader::open(&Input::file(Path::new(path)), &ReadOptions::default())?;
    let mut s = BinarySummary::default();
    for item in reader.by_ref() {
        if let Record::Game(g) = item?.record {
            s.games += 1;
            s.nodes += g.tree.len() as u64 - 1;
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
        assert!(is_binary(Path::new("a.CBF")) && is_binary(Path::new("x.pgc.gz")));
        assert!(!is_binary(Path::new("a.pgn")));
    }
}
