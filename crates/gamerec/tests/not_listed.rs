//! One game or record lists at most `MAX_LISTED` messages from each source
//! (the SGF parser, the SGF rule check, the EPD reader, the CBF and PGC
//! writers, the strict tag check); the rest are
//! counted in one message, so a game broken at each of a million nodes
//! takes the memory of its nodes, not of a million messages (8 MB of SGF
//! took 589 MB, most of it messages). The counts stay exact.

use gamerec::chessbase::write_cbf;
use gamerec::diag::{Code, MAX_LISTED, Severity};
use gamerec::epd;
use gamerec::io::{Format, GameWriter, Item, Record, WriteOptions};
use gamerec::pgc::PgcWriter;
use gamerec::pgn::tags::{check_tags, check_tags_listed};
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

fn one_game(pgn: &str) -> gamerec::model::Game {
    let (mut games, problems) = gamerec::pgn::read_games(pgn.as_bytes());
    assert!(problems.is_empty(), "{problems:?}");
    games.remove(0)
}

/// The CBF writer made a warning per NAG it cannot store: a move of
/// 100,000 NAGs made 62 MB of messages.
#[test]
fn a_cbf_game_lists_the_first_warnings_and_counts_the_rest() {
    let n = MAX_LISTED + 500;
    let game = one_game(&format!("1. e4 {}e5 *", "$200 ".repeat(n)));
    let files = write_cbf(std::slice::from_ref(&game));
    assert_eq!(files.written, 1);
    assert_eq!(files.issues.len(), MAX_LISTED + 1);
    let last = files.issues.last().unwrap();
    assert_eq!(last.counts(), (0, 500));
    assert_eq!(last.severity, Severity::Warning);
    assert_eq!(
        last.message,
        "and 500 more warnings from the writer in this game, not listed (each game lists the first 1000)"
    );
    assert_eq!((last.game, last.offset), (Some(1), 0));
    assert!(
        files.issues[..MAX_LISTED]
            .iter()
            .all(|i| i.not_listed.is_none()
                && i.message
                    == "NAG $200 on 1.e4 dropped (no ChessBase evaluation, or its slot is taken)")
    );
    let total: u64 = files.issues.iter().map(|i| i.counts().1).sum();
    assert_eq!(total, n as u64, "every NAG dropped is counted");

    // Through the library's writer: the loss counts them too.
    let dir = gamerec_testkit::temp_dir("not-listed-cbf");
    let mut writer =
        GameWriter::create(&dir.join("out.cbf"), Format::Cbf, &WriteOptions::default()).unwrap();
    let item = Item {
        record: Record::Game(game),
        number: 1,
        line: 1,
        offset: 0,
    };
    let losses = writer.write(&item, "in.pgn").unwrap();
    writer.finish().unwrap();
    assert_eq!(losses.len(), MAX_LISTED + 1);
    let last = losses.last().unwrap();
    assert_eq!((last.counts(), last.code), ((0, 500), Code::Loss));
    assert!(
        last.to_string().starts_with(
            "in.pgn:1:1: warning: CBF game 1: and 500 more warnings from the writer in this game"
        ),
        "{last}"
    );

    // Under the bound, each is listed.
    let game = one_game(&format!("1. e4 {}e5 *", "$200 ".repeat(MAX_LISTED)));
    let files = write_cbf(&[game]);
    assert_eq!(files.issues.len(), MAX_LISTED);
    assert!(files.issues.iter().all(|i| i.not_listed.is_none()));
}

#[test]
fn a_pgc_game_lists_the_first_warnings_and_counts_the_rest() {
    // A tag value outside Latin-1 is written with '?': one warning a tag.
    let tags: String = (0..MAX_LISTED + 7)
        .map(|i| format!("[T{i} \"\u{142}\"]\n"))
        .collect();
    let game = one_game(&format!("{tags}\n1. e4 *"));
    let mut out = Vec::new();
    let issues = PgcWriter::default().write(&game, &mut out);
    assert!(!out.is_empty());
    assert_eq!(issues.len(), MAX_LISTED + 1);
    assert_eq!(issues.last().unwrap().counts(), (0, 7));
    assert!(
        issues[0].message.contains("outside Latin-1"),
        "{}",
        issues[0]
    );
}

/// A writer's message quotes what it drops in a few words: a 50 MB tag
/// value the CBF writer cut made a 50 MB message line, a game of a million
/// tags one line naming each (8.9 MB), and a tag value outside Latin-1 a
/// PGC warning holding every such character.
#[test]
fn writer_messages_stay_short_whatever_they_quote() {
    let long = "x".repeat(1 << 20);
    let wide = "\u{4e2d}".repeat(1 << 18);
    let many: String = (0..100_000).map(|i| format!("[T{i} \"v\"]\n")).collect();
    let game = one_game(&format!(
        "[Event \"{long}\"]\n[White \"{wide}\"]\n[Round \"{long}\"]\n\
         [Date \"2000.{long}\"]\n[ECO \"{long}\"]\n[Result \"1-0{long}\"]\n{many}\n1. e4 *"
    ));
    let files = write_cbf(std::slice::from_ref(&game));
    let mut out = Vec::new();
    let pgc = PgcWriter::default().write(&game, &mut out);
    let messages: Vec<&str> = files
        .issues
        .iter()
        .chain(&pgc)
        .map(|i| i.message.as_str())
        .collect();
    for m in &messages {
        let head: String = m.chars().take(200).collect();
        assert!(m.len() < 400, "{} bytes: {head}…", m.len());
    }
    let has = |s: &str| messages.iter().any(|m| m.contains(s));
    assert!(has("source text \"xxx"), "{messages:?}");
    assert!(has("262144 character(s) not in cp850"), "{messages:?}");
    assert!(has("262144 character(s) outside Latin-1"), "{messages:?}");
    assert!(has("T0, T1, T2") && has(" and 99980 more"), "{messages:?}");
}

/// The CBF header holds the first tag of each name it knows; the others of
/// those names were dropped without a word.
#[test]
fn cbf_says_it_drops_a_second_tag_of_a_name() {
    let game = one_game(
        "[Event \"a\"]\n[Event \"b\"]\n[White \"w1\"]\n[White \"w2\"]\n[Foo \"x\"]\n\n1. e4 *",
    );
    let files = write_cbf(std::slice::from_ref(&game));
    let dropped: Vec<&str> = files
        .issues
        .iter()
        .map(|i| i.message.as_str())
        .filter(|m| m.starts_with("tags dropped"))
        .collect();
    assert_eq!(
        dropped,
        ["tags dropped (CBF has no place for them): Event, White, Foo"]
    );
}

/// `check --strict` made a warning per bad tag.
#[test]
fn the_strict_tag_check_lists_the_first_warnings_and_counts_the_rest() {
    let mut tags = gamerec::model::Tags::new();
    for i in 0..MAX_LISTED + 20 {
        tags.push(format!("t{i}"), "x");
    }
    // Seven missing from the Seven Tag Roster, one for each tag's name.
    let all = check_tags(&tags);
    assert_eq!(all.len(), MAX_LISTED + 27);
    let listed = check_tags_listed(&tags);
    assert_eq!(listed.listed[..], all[..MAX_LISTED]);
    assert_eq!(listed.not_listed, 27);
    // Under the bound, the same warnings.
    tags = (0..5).map(|i| (format!("t{i}"), "x".to_string())).collect();
    let listed = check_tags_listed(&tags);
    assert_eq!((listed.listed, listed.not_listed), (check_tags(&tags), 0));
}

/// The FBK writer's one warning of a game's NAGs named every NAG: a move
/// of 100,000 made a message of 500 KB.
#[test]
fn an_fbk_game_names_the_first_nags_dropped_and_counts_the_rest() {
    let nags_dropped = |n: usize| {
        let game = one_game(&format!("1. e4 {}e5 *", "$200 ".repeat(n)));
        let (bytes, issues) = gamerec::chessbase::write_fbk(&[game]);
        assert!(!bytes.is_empty());
        let dropped: Vec<String> = issues
            .into_iter()
            .map(|i| i.message)
            .filter(|m| m.starts_with("NAGs dropped"))
            .collect();
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        dropped[0].clone()
    };
    let head = "NAGs dropped (FBK keeps only the weak-move bit for $2/$4): ";
    assert_eq!(
        nags_dropped(100_000),
        format!("{head}{}and 99980 more", "$200 ".repeat(20))
    );
    // Twenty or fewer: each named, as before.
    assert_eq!(
        nags_dropped(20),
        format!("{head}{}", ["$200"; 20].join(" "))
    );
}
