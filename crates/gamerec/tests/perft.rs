//! Perft over the standard suites in `shared/corpus/epd/whittington/perft*.epd`:
//! every position is read with `gamerec::fen` (so castling rights and
//! en-passant squares go through our reader) and its node counts are
//! compared with the file's `D<depth> <nodes>` entries.
//!
//! Lines look like `FEN; D1 20; D2 400` (some with a NUL byte at the end).

use gamerec::fen::read_fen;
use gamerec::shakmaty::{Chess, perft};

struct Case {
    line: usize,
    fen: String,
    pos: Chess,
    depths: Vec<(u32, u64)>,
}

fn load(name: &str) -> Vec<Case> {
    let path = gamerec_testkit::corpus(&format!("epd/whittington/{name}"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8_lossy(&bytes);
    let mut cases = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_matches(|c: char| c == '\0' || c.is_whitespace());
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap_or_default().trim();
        let (pos, _) = read_fen(fen).unwrap_or_else(|e| panic!("{name}:{}: {e}", n + 1));
        let depths = parts
            .filter_map(|p| {
                let p = p.trim();
                let (d, nodes) = p.strip_prefix('D')?.split_once(' ')?;
                Some((d.parse().ok()?, nodes.trim().parse().ok()?))
            })
            .collect::<Vec<(u32, u64)>>();
        assert!(!depths.is_empty(), "{name}:{}: no depth entries", n + 1);
        cases.push(Case {
            line: n + 1,
            fen: fen.to_string(),
            pos,
            depths,
        });
    }
    cases
}

/// Runs every entry of `name` whose expected count is at most `max_nodes`;
/// returns how many were checked.
fn check(name: &str, max_nodes: u64, every: usize) -> usize {
    let mut checked = 0;
    for case in load(name).iter().step_by(every) {
        for &(depth, nodes) in &case.depths {
            if nodes <= max_nodes {
                assert_eq!(
                    perft(&case.pos, depth),
                    nodes,
                    "{name}:{}: {} depth {depth}",
                    case.line,
                    case.fen
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn perft_suite_shallow() {
    assert!(check("perft.epd", 500_000, 1) > 500);
}

#[test]
fn perft_marcel_shallow() {
    // 6,839 positions: depths 1 to 3 of every fifth one.
    assert!(check("perft-marcel.epd", 25_000, 5) > 2000);
}

#[test]
fn perft_double_checks_shallow() {
    // Only depth-4 entries here: the positions with the smaller counts.
    assert!(check("perft-ferdy-double-checks.epd", 60_000, 1) > 20);
}

#[test]
#[ignore = "minutes: perft.epd to depth 6 (run with --ignored)"]
fn perft_suite_full() {
    check("perft.epd", u64::MAX, 1);
}

#[test]
#[ignore = "minutes: every double-check position to depth 4 (run with --ignored)"]
fn perft_double_checks_full() {
    check("perft-ferdy-double-checks.epd", u64::MAX, 1);
}

#[test]
#[ignore = "minutes: all 6,839 Marcel positions up to a million nodes each (run with --ignored)"]
fn perft_marcel_deeper() {
    check("perft-marcel.epd", 1_000_000, 1);
}
