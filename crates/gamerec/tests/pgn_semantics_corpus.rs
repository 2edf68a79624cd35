//! Embedded commands, tag checks and collation over the real files in
//! `shared/corpus/pgn`. Comments and tags are pulled out with a plain scan
//! (tag lines, brace comments) so these tests do not depend on the reader.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use gamerec::model::Tags;
use gamerec::pgn::collate::{compare_rounds, date_key};
use gamerec::pgn::commands::{KnownCommand, commands, parse_commands, strip_commands};
use gamerec::pgn::tags::check_tags;
use gamerec::pgn::timecontrol::{TimeControl, derive_times};
use gamerec::shakmaty::{ByColor, Color};
use gamerec_testkit::{corpus, peer};

/// One game as the plain scan sees it.
#[derive(Default)]
struct ScannedGame {
    tags: Tags,
    comments: Vec<String>,
}

/// Splits PGN text into games: `[Name "value"]` lines start or extend a
/// tag section; `{...}` comments (possibly over several lines) are
/// collected in order.
fn scan_games(reader: impl Read, mut each: impl FnMut(ScannedGame)) {
    let mut game = ScannedGame::default();
    let mut in_moves = false;
    let mut comment: Option<String> = None;
    let mut buf = Vec::new();
    let mut reader = BufReader::new(reader);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).expect("read") == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&buf);
        if comment.is_none() && line.starts_with('[') {
            if in_moves {
                each(std::mem::take(&mut game));
                in_moves = false;
            }
            let line = line.trim_end();
            if let Some((name, rest)) = line[1..].split_once(' ') {
                let value = rest.trim_end_matches(']').trim_matches('"');
                game.tags
                    .push(name, value.replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            continue;
        }
        in_moves = true;
        let mut rest: &str = &line;
        loop {
            match &mut comment {
                Some(text) => match rest.find('}') {
                    Some(end) => {
                        text.push_str(&rest[..end]);
                        game.comments.push(comment.take().unwrap_or_default());
                        rest = &rest[end + 1..];
                    }
                    None => {
                        text.push_str(rest);
                        break;
                    }
                },
                None => match rest.find(['{', ';']) {
                    Some(start) if rest.as_bytes()[start] == b'{' => {
                        comment = Some(String::new());
                        rest = &rest[start + 1..];
                    }
                    _ => break,
                },
            }
        }
    }
    if in_moves || !game.tags.is_empty() {
        each(game);
    }
}

fn open(rel: &str) -> std::fs::File {
    std::fs::File::open(corpus(rel)).expect("corpus file")
}

#[test]
fn lichess_clk_and_eval_are_typed_and_written_back_exactly() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut games = 0;
    let (mut derived, mut underived) = (0usize, 0usize);
    scan_games(open("pgn/lichess_db_1000k.pgn"), |game| {
        games += 1;
        let mut clocks = Vec::new();
        for text in &game.comments {
            let mut clock = None;
            for c in commands(text) {
                *counts.entry(c.name.to_owned()).or_default() += 1;
                let typed = KnownCommand::from_ref(&c)
                    .unwrap_or_else(|| panic!("unknown command {:?}", c.name))
                    .unwrap_or_else(|e| panic!("{e}"));
                // Canonical writing reproduces lichess's own text.
                assert_eq!(typed.to_string(), &text[c.span.clone()]);
                assert_eq!(
                    parse_commands(&c.to_command().to_string()),
                    vec![c.to_command()]
                );
                if let KnownCommand::Clk(d) = typed {
                    clock = Some(d);
                }
            }
            // Lichess comments hold only commands.
            assert_eq!(strip_commands(text), "", "{text:?}");
            clocks.push(clock);
        }
        let tc = game
            .tags
            .get("TimeControl")
            .map(|v| v.parse::<TimeControl>().expect("lichess TimeControl"));
        if let Some(tc) = tc.filter(|_| clocks.iter().all(Option::is_some)) {
            for t in derive_times(&clocks, Color::White, 1, ByColor::new_with(|_| None), &tc) {
                if t.game_time.is_some() {
                    derived += 1;
                } else {
                    underived += 1;
                }
            }
        }
    });
    assert!(games > 300, "{games} games");
    assert!(counts["clk"] > 20_000, "{counts:?}");
    assert!(counts["eval"] > 2_000, "{counts:?}");
    assert_eq!(counts.len(), 2, "{counts:?}");
    // Clocks are consistent with the time control almost everywhere (the
    // exceptions are time given by the opponent).
    assert!(derived > 20_000, "{derived}");
    assert!(
        underived * 200 < derived,
        "{underived} of {derived} times not derivable"
    );
}

#[test]
fn lichess_study_marks_are_typed() {
    let dir = corpus("pgn/lichess-studies");
    let mut marks = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("studies")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        scan_games(std::fs::File::open(entry.path()).expect("open"), |game| {
            for text in &game.comments {
                for c in commands(text) {
                    if let Some(typed) = KnownCommand::from_ref(&c) {
                        let typed =
                            typed.unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
                        if matches!(typed, KnownCommand::Csl(_) | KnownCommand::Cal(_)) {
                            marks += 1;
                            assert_eq!(typed.to_string(), &text[c.span.clone()]);
                        }
                    }
                }
                let stripped = strip_commands(text);
                assert!(commands(&stripped).next().is_none(), "{text:?}");
            }
        });
    }
    assert!(marks > 300, "{marks}");
}

#[test]
fn tcec_comments_have_no_commands_and_time_controls_parse() {
    let Some(zstd) = peer("zstd") else { return };
    let mut child = Process::new(zstd)
        .args(["-dc"])
        .arg(corpus("pgn/tcec-2011-2021.pgn.zst"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("zstd");
    let stdout = child.stdout.take().expect("stdout");
    let (mut games, mut comments, mut fractional) = (0, 0, 0);
    scan_games(stdout, |game| {
        games += 1;
        for text in &game.comments {
            comments += 1;
            // `{ d=31, pd=Bg7, mt=00:08:29, ... }` is engine output, not commands.
            assert!(commands(text).next().is_none(), "{text:?}");
            assert_eq!(strip_commands(text), *text);
        }
        if let Some(tc) = game.tags.get("TimeControl") {
            let parsed: TimeControl = tc.parse().unwrap_or_else(|e| panic!("{tc}: {e}"));
            assert_eq!(parsed.to_string(), tc);
            if tc.contains('.') {
                fractional += 1;
                // Sub-second controls are accepted (to milliseconds).
                assert!(
                    !check_tags(&game.tags)
                        .iter()
                        .any(|w| w.name == "TimeControl"),
                    "{tc}"
                );
            }
        }
    });
    assert!(child.wait().expect("zstd").success());
    assert!(games > 5_000, "{games}");
    assert!(comments > 500_000, "{comments}");
    assert!(fractional > 0, "180+0.5 is in the archive");
}

#[test]
fn twic_tags_pass_the_strict_checks() {
    let mut games = 0;
    let mut warnings: BTreeMap<String, usize> = BTreeMap::new();
    let mut commas = 0;
    scan_games(open("pgn/twic1599_1000k.pgn"), |game| {
        games += 1;
        for w in check_tags(&game.tags) {
            if w.message.contains("comma") {
                commas += 1;
            } else {
                *warnings.entry(format!("{w}")).or_default() += 1;
            }
        }
        let date = game.tags.get("Date").expect("Date");
        assert!(date_key(date).0 >= 1800, "{date}");
        let round = game.tags.get("Round").expect("Round");
        assert_eq!(compare_rounds(round, round), std::cmp::Ordering::Equal);
    });
    assert!(games > 1_000, "{games}");
    // TWIC is carefully edited; its one departure from the standard is
    // writing names as `Carlsen,M` (no space after the comma).
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(commas > 1_000, "{commas}");
}

#[test]
fn strict_checks_flag_real_irregular_values() {
    // pgn-extract's test inputs carry dates like `1992`, rounds like `1a`
    // and more; the checks must report something there and never panic.
    let dir = corpus("pgn/pgn-extract-tests/infiles");
    let mut reported = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("infiles")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries
        .iter()
        .filter(|e| e.path().extension().is_some_and(|x| x == "pgn"))
    {
        scan_games(std::fs::File::open(entry.path()).expect("open"), |game| {
            reported += check_tags(&game.tags).len();
        });
    }
    assert!(reported > 0);
    let _ = Duration::ZERO;
}

#[test]
fn lichess_games_through_the_builder() {
    use gamerec::pgn::commands::{derive_game_times, node_clock, strip_game_commands};
    let data = std::fs::read(corpus("pgn/lichess_db_1000k.pgn")).expect("corpus");
    let (games, _problems) = gamerec::pgn::read_games(&data);
    assert!(games.len() > 300, "{}", games.len());
    let (mut derived, mut clocks) = (0usize, 0usize);
    for mut game in games {
        for (id, t) in derive_game_times(&game) {
            assert_eq!(t.clock, node_clock(game.tree.node(id)));
            if t.clock.is_some() {
                clocks += 1;
                derived += usize::from(t.game_time.is_some());
            }
        }
        strip_game_commands(&mut game);
        for id in game.tree.preorder() {
            let node = game.tree.node(id);
            assert!(
                node.comments_after
                    .iter()
                    .chain(&node.comments_before)
                    .all(|c| commands(&c.text).next().is_none())
            );
        }
    }
    assert!(clocks > 20_000, "{clocks}");
    assert!(derived * 200 > clocks * 199, "{derived} of {clocks}");
}
