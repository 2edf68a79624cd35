//! One game or record lists at most `MAX_LISTED` messages from each source
//! (the SGF parser, the SGF rule check, the EPD reader); the rest are
//! counted in one message, so a game broken at each of a million nodes
//! takes the memory of its nodes, not of a million messages (8 MB of SGF
//! took 589 MB, most of it messages). The counts stay exact.

use gamerec::diag::{MAX_LISTED, Severity};
use gamerec::epd;
use gamerec::sgf::{self, ParseOptions, SgfCheck, replay};
use gamerec_testkit::{epd_repeated_opcode, sgf_broken_at_every_node};

#[test]
fn an_sgf_game_lists_the_first_messages_and_counts_the_rest() {
    let n = MAX_LISTED + 500;
    // Two broken games, then a clean one: each game has its own count.
    let text = format!(
        "{}{}(;FF[4]GM[1]SZ[9];B[aa];W[bb])",
        sgf_broken_at_every_node(n),
        sgf_broken_at_every_node(n)
    );
    let parsed = sgf::parse(text.as_bytes(), &ParseOptions::default());
    let per_game = |d: &&sgf::SgfDiagnostic| d.check == SgfCheck::NotListed;
    let counts: Vec<_> = parsed.diagnostics.iter().filter(per_game).collect();
    assert_eq!(counts.len(), 2, "one count per broken game");
    for c in &counts {
        assert_eq!((c.not_listed.errors, c.not_listed.warnings), (500, 0));
        assert_eq!(c.severity, Severity::Error);
        assert!(
            c.message
                .starts_with("and 500 more errors from the parser in this game, not listed"),
            "{}",
            c.message
        );
    }
    assert_eq!(parsed.diagnostics.len(), 2 * (MAX_LISTED + 1));
    assert_eq!(parsed.error_count(), 2 * n, "every bad value is counted");
    // The first listed are the first found, as without the bound.
    assert!(parsed.diagnostics[0].message.starts_with("V[x]"));
    assert_eq!(counts[0].counts(), (500, 0));
    assert_eq!(
        counts[0].to_diagnostic(Some("f.sgf")).counts(),
        (500, 0),
        "the count goes with the diagnostic"
    );

    // The rule check: n - 2 occupied points a game.
    for (g, &root) in parsed.collection.roots.iter().enumerate().take(2) {
        let errors = replay::check_game_notes(&parsed.collection, root, g + 1);
        assert_eq!(errors.len(), MAX_LISTED + 1);
        let last = errors.last().unwrap();
        assert_eq!(last.check, SgfCheck::NotListed);
        assert_eq!(
            (last.not_listed.errors, last.not_listed.warnings),
            (n as u64 - 2 - MAX_LISTED as u64, 0)
        );
        assert!(!last.warning);
        assert!(
            last.message
                .contains("more errors from the rule check in this game"),
            "{}",
            last.message
        );
        // Placed at the first move not listed.
        assert!(
            last.path.starts_with(&format!(
                "game {}, main line move {}",
                g + 1,
                MAX_LISTED + 3
            )),
            "{}",
            last.path
        );
        let d = parsed.rule_diagnostic(last.clone());
        assert_eq!(d.counts(), (n as u64 - 2 - MAX_LISTED as u64, 0));
        assert!(
            errors[..MAX_LISTED]
                .iter()
                .all(|e| e.check == SgfCheck::IllegalMove)
        );
    }
    let clean = parsed.collection.roots[2];
    assert!(replay::check_game_notes(&parsed.collection, clean, 3).is_empty());
}

#[test]
fn a_game_under_the_bound_lists_everything() {
    let n = MAX_LISTED;
    let parsed = sgf::parse(
        sgf_broken_at_every_node(n).as_bytes(),
        &ParseOptions::default(),
    );
    assert_eq!(parsed.diagnostics.len(), n);
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.check != SgfCheck::NotListed)
    );
    let errors = replay::check_game_notes(&parsed.collection, parsed.collection.roots[0], 1);
    assert_eq!(errors.len(), n - 2);
}

#[test]
fn an_epd_record_lists_the_first_messages_and_counts_the_rest() {
    let line = epd_repeated_opcode(MAX_LISTED + 301);
    let (record, diags) = epd::read_line(&line, 7);
    assert!(record.is_none());
    assert_eq!(diags.len(), MAX_LISTED + 1);
    let last = diags.last().unwrap();
    assert_eq!(last.counts(), (300, 0));
    assert_eq!(last.severity, Severity::Error);
    assert_eq!(last.location.line, 7);
    assert!(
        last.message
            == "and 300 more errors from the reader in this record, not listed (each record lists the first 1000)",
        "{}",
        last.message
    );
    let total: u64 = diags.iter().map(|d| d.counts().0).sum();
    assert_eq!(total, MAX_LISTED as u64 + 300);
    // Under the bound, each is listed.
    let line = epd_repeated_opcode(MAX_LISTED + 1);
    let (_, diags) = epd::read_line(&line, 1);
    assert_eq!(diags.len(), MAX_LISTED);
    assert!(diags.iter().all(|d| d.not_listed.is_none()));
}
