//! Tests of the PGN reader, builder and writer (issue #3 items 1-4).

use super::stream::count_lines;
use super::writer::export_string;
use super::*;
use crate::diag::Severity;
use crate::model::{Game, GameResult, NodeId};

fn one(text: &str) -> Game {
    let (games, problems) = read_games(text.as_bytes());
    assert!(
        problems.iter().all(|p| p.severity == Severity::Warning),
        "{problems:?}"
    );
    assert_eq!(games.len(), 1, "{problems:?}");
    games.into_iter().next().unwrap()
}

fn export(game: &Game) -> String {
    export_string(game, &WriteOptions::default())
}

fn errors(text: &[u8]) -> (usize, Vec<Problem>) {
    let (games, problems) = read_games(text);
    (games.len(), problems)
}

/// The sample game of section 2.3, in export format.
fn standard_sample() -> String {
    let spec = std::fs::read_to_string(gamerec_testkit::spec("pgn-standard-1994-full.txt"))
        .expect("spec file");
    let start = spec.find("[Event \"F/S Return Match\"]").unwrap();
    let end = spec[start..].find("1/2-1/2\n\n").unwrap() + start + "1/2-1/2\n".len();
    format!("{}\n", &spec[start..end])
}

#[test]
fn standard_sample_game_reads_and_exports_byte_identical() {
    let sample = standard_sample();
    let game = one(&sample);
    assert_eq!(game.tree.mainline_len(), 85);
    assert_eq!(game.result, Some(GameResult::Draw));
    assert_eq!(game.tags.get("White"), Some("Fischer, Robert J."));
    assert_eq!(export(&game), sample);
}

#[test]
fn several_tags_on_a_line_and_a_tag_over_two_lines() {
    let game =
        one("[Event \"E\"] [Site \"S\"][Date\n\"2024.01.01\"]\n[Round\n  \"3\"\n]\n1. e4 *\n");
    let names: Vec<_> = game.tags.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Event", "Site", "Date", "Round"]);
    assert_eq!(game.tags.get("Date"), Some("2024.01.01"));
    assert_eq!(game.tags.get("Round"), Some("3"));
}

#[test]
fn import_freedom_move_numbers_periods_whitespace() {
    let a = one("1.e4 e5 2 . Nf3 2...Nc6 3.... Bb5 a6 *");
    let b = one("e4 e5\tNf3\r\nNc6\rBb5\x0ba6 *");
    let c = one("1. e4 1... e5 2. Nf3 2... Nc6 3. Bb5 3... a6 *");
    assert_eq!(a.tree.mainline_len(), 6);
    assert_eq!(a, b);
    assert_eq!(a, c);
}

#[test]
fn games_without_tags_or_moves() {
    let (games, problems) = read_games(b"*\n\n[Event \"x\"]\n*\n\n1. d4 1-0\n");
    assert_eq!(games.len(), 3, "{problems:?}");
    assert!(problems.is_empty(), "{problems:?}");
    assert!(games[0].tree.is_empty() && games[0].tags.is_empty());
    assert!(games[1].tree.is_empty());
    assert_eq!(games[2].result, Some(GameResult::WhiteWins));
}

#[test]
fn missing_and_mismatched_results_are_warnings() {
    let (n, problems) = errors(b"[Result \"1-0\"]\n1. e4 e5\n\n[Result \"1-0\"]\n1. d4 0-1\n");
    assert_eq!(n, 2);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().all(|p| p.severity == Severity::Warning));
    assert!(problems[0].message.contains("without a termination marker"));
    assert!(problems[1].message.contains("does not match"));
}

#[test]
fn bom_crlf_and_cr_line_ends() {
    let plain = one("[Event \"x\"]\n\n1. e4 {a\nb} e5 *\n");
    let bom = one("\u{feff}[Event \"x\"]\r\n\r\n1. e4 {a\r\nb} e5 *\r\n");
    let cr = one("[Event \"x\"]\r\r1. e4 {a\rb} e5 *\r");
    assert_eq!(plain, bom);
    assert_eq!(plain, cr);
}

#[test]
fn percent_escape_lines_only_in_column_one() {
    let game = one("% private data [Event \"no\"] {\n[Event \"x\"]\n%more\n1. e4 e5 *\n");
    assert_eq!(game.tags.len(), 1);
    assert_eq!(game.tree.mainline_len(), 2);
    let (n, problems) = errors(b"1. e4 % not an escape\n e5 *\n");
    assert_eq!(n, 0);
    assert!(
        problems[0].message.contains("unexpected character '%'"),
        "{problems:?}"
    );
}

#[test]
fn semicolon_and_brace_comments_do_not_nest() {
    let game = one("1. e4 {has ; semicolon} e5 ; rest {of line\n2. Nf3 *");
    let e4 = game.tree.mainline().next().unwrap();
    assert_eq!(game.tree.node(e4).comments_after[0].text, "has ; semicolon");
    let e5 = game.tree.mainline().nth(1).unwrap();
    assert_eq!(game.tree.node(e5).comments_after[0].text, " rest {of line");
    // Round trip keeps both comments.
    assert_eq!(one(&export(&game)).tree, game.tree);
}

#[test]
fn comment_with_closing_brace_exports_as_semicolon_comment() {
    let game = one("1. e4 ; a } b\ne5 *");
    let text = export(&game);
    assert!(text.contains("1. e4 ; a } b\n"), "{text}");
    assert_eq!(one(&text).tree, game.tree);
}

#[test]
fn suffix_annotations_become_nags() {
    let game = one("1. e4! e5?? 2. Nf3!? $14 Nc6 *");
    let text = export(&game);
    assert!(
        text.contains("1. e4 $1 1... e5 $4 2. Nf3 $5 $14 2... Nc6 *"),
        "{text}"
    );
}

#[test]
fn black_move_numbers_follow_section_8_2_2_2() {
    let game = one("1. e4 {c} e5 2. Nf3 $1 Nc6 3. Bb5 (3. Bc4 Bc5) a6 *");
    let text = export(&game);
    assert!(
        text.contains("1. e4 {c} 1... e5 2. Nf3 $1 2... Nc6 3. Bb5 (3. Bc4 Bc5) 3... a6 *"),
        "{text}"
    );
    let black = one(
        "[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n1... e5 2. Nf3 *",
    );
    assert!(export(&black).contains("\n1... e5 2. Nf3 *\n"));
}

#[test]
fn rav_nesting_five_deep() {
    let text = "1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3 g6 (2... e6 3. g3 (3. Bg5 h6))))) e5 *";
    let game = one(text);
    assert_eq!(game.tree.len(), 13);
    let exported = export(&game);
    assert!(
        exported.replace('\n', " ").contains(
            "1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3 g6 (2... e6 3. g3 (3. Bg5 h6))))) 1... e5 *"
        ),
        "{exported}"
    );
    assert_eq!(one(&exported).tree, game.tree);
}

#[test]
fn deep_variations_do_not_recurse() {
    // 100,000 nested `(` without moves: one error, no crash.
    let mut text = b"1. e4 ".to_vec();
    text.extend(std::iter::repeat_n(b'(', 100_000));
    text.extend_from_slice(b" *\n\n1. d4 *\n");
    let (n, problems) = errors(&text);
    assert_eq!(n, 1);
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count(),
        1
    );

    // 20,000 properly nested variations: built, written and read back.
    let depth = 20_000;
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut text = String::from("Nf3 Nf6 ");
    for k in 1..=depth {
        text.push_str(&format!("( {} {} ", shuffle[k % 4], shuffle[(k + 1) % 4]));
    }
    text.push_str(&")".repeat(depth));
    text.push_str(" *");
    let game = one(&text);
    assert_eq!(game.tree.len(), 3 + 2 * depth);
    assert_eq!(one(&export(&game)).tree, game.tree);
    let mut json = String::new();
    write_game_json(&game, &json::no_commands, &mut json);
    assert_eq!(json.matches("\"variations\":[[").count(), depth);
}

#[test]
fn each_recoverable_error_fails_one_game_and_reading_goes_on() {
    let cases: &[(&str, &str)] = &[
        ("[Event \"x\" 1. e4 *", "expected ]"),
        ("[Event x]\n1. e4 *", "expected a quoted tag value"),
        ("[ \"x\"]\n1. e4 *", "expected a tag name"),
        ("[Event \"unterminated\n1. e4 *", "unterminated tag value"),
        ("1. e4 e4 *", "illegal move e4"),
        ("1. e4 e5 2. Ke3 *", "illegal move Ke3"),
        ("1. e4 & e5 *", "unexpected character '&'"),
        ("1. e4 < e5 *", "reserved token"),
        ("1. e4 e5) *", "unmatched )"),
        ("1. e4 $256 *", "bad NAG"),
        ("$1 1. e4 *", "NAG before any move"),
        ("(1. e4) 1. d4 *", "variation before any move"),
        ("1. e4 (1. d4 *) *", "termination marker inside a variation"),
        ("1. e4 (1. d4\n", "unterminated variation"),
        ("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n*", "invalid FEN"),
    ];
    for (bad, reason) in cases {
        let text = format!("{bad}\n\n[Event \"next\"]\n1. e4 e5 1-0\n");
        let (games, problems) = read_games(text.as_bytes());
        let errors: Vec<_> = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{bad}: {problems:?}");
        assert!(errors[0].message.contains(reason), "{bad}: {problems:?}");
        assert_eq!(games.len(), 1, "{bad}: {problems:?}");
        assert_eq!(games[0].tags.get("Event"), Some("next"), "{bad}");
    }
    // An unterminated comment runs to the end of the input: one error.
    let (n, problems) = errors(b"1. e4 {never closed\n\n[Event \"x\"]\n1. d4 *\n");
    assert_eq!(n, 0);
    assert!(problems[0].message.contains("unterminated comment"));
}

#[test]
fn error_offsets_point_at_the_token() {
    let text = b"[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n";
    let (_, problems) = errors(text);
    let index = crate::diag::LineIndex::new(text);
    let lc = index.line_col(problems[0].offset);
    assert_eq!((lc.line, lc.column), (3, 13));
}

/// The checker (which wants no comments: the reader skips them in its
/// movetext loop) and the game builder (which keeps them) put an error
/// after long and multi-line comments at the same line and column, and an
/// unterminated comment fails the game at its `{` in both.
#[test]
fn error_positions_after_comments_agree_with_and_without_comments() {
    let long = "x".repeat(5000);
    let text = format!(
        "[Event \"x\"]\n\n1. e4 {{ {long} }} e5 {{ two\nlines\r\n}} 2. Nf3 {{\n\n}}\nNc6 \
         {{ d=31, pd=Bg7, wv=0.48, }} 3. Ke3 *\n\n1. d4 {{ never closed\n"
    );
    let data = text.as_bytes();
    let index = crate::diag::LineIndex::new(data);
    let mut by_checker = Vec::new();
    let mut reader = SliceReader::new(data);
    let mut checker = Checker::default();
    while let Some(checked) = reader.read_game(&mut checker) {
        assert!(checked.failed);
        for p in reader.problems() {
            let lc = index.line_col(p.offset);
            by_checker.push((lc.line, lc.column, p.message.clone()));
        }
    }
    let (_, problems) = errors(data);
    let by_builder: Vec<_> = problems
        .iter()
        .map(|p| {
            let lc = index.line_col(p.offset);
            (lc.line, lc.column, p.message.clone())
        })
        .collect();
    assert_eq!(by_checker.len(), 2, "{by_checker:?}");
    assert_eq!(
        (by_checker[0].0, by_checker[0].1),
        (8, 35),
        "{by_checker:?}"
    );
    assert!(by_checker[0].2.contains("Ke3"), "{by_checker:?}");
    assert_eq!(
        (by_checker[1].0, by_checker[1].1),
        (10, 7),
        "{by_checker:?}"
    );
    assert!(by_checker[1].2.contains("unterminated comment"));
    assert_eq!(by_checker, by_builder);
}

#[test]
fn unescaped_quotes_in_a_tag_value_are_a_warning() {
    let game = one("[White \"\"Socrates Expert\"\"]\n1. e4 *");
    assert_eq!(game.tags.get("White"), Some("\"Socrates Expert\""));
    assert!(export(&game).contains("[White \"\\\"Socrates Expert\\\"\"]"));
}

#[test]
fn tag_escapes_round_trip() {
    let game = one("[Event \"a \\\"quoted\\\" back\\\\slash\"]\n*");
    assert_eq!(game.tags.get("Event"), Some("a \"quoted\" back\\slash"));
    assert!(export(&game).starts_with("[Event \"a \\\"quoted\\\" back\\\\slash\"]\n"));
}

#[test]
fn export_tag_order_and_roster_defaults() {
    let game = one("[ZTag \"z\"]\n[White \"W\"]\n[ATag \"a\"]\n[Black \"B\"]\n1. e4 1-0");
    let text = export(&game);
    assert!(text.starts_with(
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[ATag \"a\"]\n[ZTag \"z\"]\n\n1. e4 1-0\n\n"
    ), "{text}");
}

#[test]
fn export_lines_are_short_and_trimmed() {
    let mut text = String::from("1. e4 {");
    text.push_str(&"word ".repeat(60));
    text.push_str("} e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 *");
    let game = one(&text);
    let out = export(&game);
    for line in out.lines() {
        assert!(line.chars().count() < 80, "{line}");
        assert_eq!(line, line.trim(), "{line:?}");
    }
    assert_eq!(one(&out).tree, game.tree);
}

#[test]
fn latin1_is_detected_per_game_and_round_trips_bytes() {
    let mut data = b"[White \"Judit Polg\xe1r\"]\n1. e4 {\xe9t\xe9} *\n\n".to_vec();
    data.extend_from_slice("[White \"Judit Polgár\"]\n1. e4 {été} *\n".as_bytes());
    let (games, problems) = read_games(&data);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(games[0], games[1]);
    assert_eq!(games[0].tags.get("White"), Some("Judit Polgár"));
    let opts = WriteOptions {
        encoding: Encoding::Latin1,
        ..WriteOptions::default()
    };
    let mut out = Vec::new();
    assert_eq!(write_game(&games[0], &opts, &mut out), 0);
    assert!(out.windows(13).any(|w| w == b"Judit Polg\xe1r\""));
    assert!(export(&games[0]).contains("Judit Polgár"));
}

#[test]
fn latin1_corpus_files() {
    for rel in [
        "pgn/pgn-extract-tests/infiles/odds.pgn",
        "pgn/lichess-studies/mate_in_2.pgn",
    ] {
        let data = std::fs::read(gamerec_testkit::corpus(rel)).unwrap();
        let (games, problems) = read_games(&data);
        assert!(
            problems.iter().all(|p| p.severity == Severity::Warning),
            "{rel}: {problems:?}"
        );
        let text: String = games.iter().map(export).collect();
        assert!(
            text.contains("François André Philidor") || text.contains("Judit Polgár"),
            "{rel}"
        );
        // Latin-1 export gives back the original bytes of those names.
        let opts = WriteOptions {
            encoding: Encoding::Latin1,
            ..WriteOptions::default()
        };
        let mut latin = Vec::new();
        for g in &games {
            write_game(g, &opts, &mut latin);
        }
        assert!(
            latin
                .windows(5)
                .any(|w| w == b"Fran\xe7" || w == b"olg\xe1r"),
            "{rel}"
        );
    }
}

#[test]
fn visitor_can_skip_games_and_variations() {
    struct Count {
        moves: usize,
        skip_variations: bool,
    }
    impl Visitor for Count {
        type Output = usize;
        fn begin_game(&mut self, start: GameStart) -> Flow {
            if start.index == 1 {
                Flow::Break(Stop::SkipGame)
            } else {
                Flow::Continue(())
            }
        }
        fn san(&mut self, _: &[u8], _: u64) -> Flow {
            self.moves += 1;
            Flow::Continue(())
        }
        fn begin_variation(&mut self) -> std::ops::ControlFlow<Stop, Skip> {
            std::ops::ControlFlow::Continue(Skip(self.skip_variations))
        }
        fn end_game(&mut self, _: GameEnd<'_>) -> usize {
            std::mem::take(&mut self.moves)
        }
    }
    let text = b"1. e4 (1. d4 (1. c4) d5) e5 *\n1. e4 e5 2. Nf3 *\n1. e4 *";
    for (skip, expected) in [(false, vec![5, 0, 1]), (true, vec![2, 0, 1])] {
        let mut v = Count {
            moves: 0,
            skip_variations: skip,
        };
        let mut reader = SliceReader::new(text);
        let mut got = Vec::new();
        while let Some(n) = reader.read_game(&mut v) {
            got.push(n);
        }
        assert_eq!(got, expected);
    }
}

#[test]
fn checker_checks_variations_from_the_right_position() {
    let mut checker = Checker::default();
    let mut reader =
        SliceReader::new(b"1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *\n1. e4 e5 (2. d4) *");
    let first = reader.read_game(&mut checker).unwrap();
    assert_eq!((first.moves, first.failed), (3, false));
    let second = reader.read_game(&mut checker).unwrap();
    assert!(second.failed, "2. d4 replaces 1... e5 and is Black's move");
    let mut main_only = Checker::new(CheckOptions {
        variations: false,
        ..CheckOptions::default()
    });
    let mut reader = SliceReader::new(b"1. e4 e5 (2. d4) *");
    assert!(!reader.read_game(&mut main_only).unwrap().failed);
}

/// Variations start from the position before the move they replace, which
/// the checker gets back by taking the move back: captures, en passant,
/// castling, promotions, null moves, nested and sibling variations.
#[test]
fn checker_takes_moves_back_for_variations() {
    let games: &[(&[u8], u64, bool)] = &[
        (b"1. e4 d5 2. exd5 (2. e5 f5 3. exf6 (3. d4 c5) 3... gxf6) 2... Qxd5 *", 4, false),
        (b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O (4. d3 Nf6 5. O-O) (4. c3) 4... Nf6 *", 8, false),
        (b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O (4. O-O-O) *", 7, true),
        (b"[FEN \"7k/P7/8/8/8/8/8/K7 w - - 0 1\"]\n1. a8=Q+ (1. a8=N Kg7 (1... Kh7 2. Nb6) 2. Nb6) 1... Kh7 2. Qb7+ *", 3, false),
        (b"[FEN \"7k/P7/8/8/8/8/8/K7 w - - 0 1\"]\n1. a8=Q+ (1. a8=N Kg7) 1... Kh7 2. Nb6 *", 3, true),
        (b"1. e4 -- (1... e5 2. Nf3) 2. d4 (2. Nf3 --) e5 *", 4, false),
        (b"1. e4 e5 2. Nf3 (2. Nc3 Nc6 (2... Nf6 3. Nf3) 3. Nf3) 2... Nc6 3. Bb5 *", 5, false),
        (b"1. e4 e5 2. Nf3 (2. Nc3 Nc6 (2... Nf6 3. Nge2) 3. Ke3) 2... Nc6 3. Bb5 *", 5, true),
    ];
    for &(text, moves, failed) in games {
        let mut checker = Checker::default();
        let got = SliceReader::new(text).read_game(&mut checker).unwrap();
        let shown = String::from_utf8_lossy(text);
        assert_eq!(got.failed, failed, "{shown}");
        if !failed {
            assert_eq!(got.moves, moves, "{shown}");
        }
        let (built, problems) = read_games(text);
        let builder_failed =
            built.is_empty() || problems.iter().any(|p| p.severity == Severity::Error);
        assert_eq!(
            builder_failed, failed,
            "the game builder disagrees on {shown}"
        );
    }
}

/// The games of `data` read by the streaming reader in chunks of `size`.
fn games_chunked(data: &[u8], size: usize) -> Vec<Game> {
    let mut reader = Reader::from_chunker(Chunker::with_size(data, size));
    let mut builder = GameBuilder::default();
    let mut games = Vec::new();
    while let Some(g) = reader.read_game(&mut builder).unwrap() {
        games.extend(g);
    }
    games
}

#[test]
fn streaming_reader_matches_slice_reader_at_any_chunk_size() {
    let data = std::fs::read(gamerec_testkit::corpus(
        "pgn/pgn-extract-tests/infiles/test-V.pgn",
    ))
    .unwrap();
    let mut data = data;
    data.extend_from_slice(b"\n1. e4 {a comment with\n1-0\n[Event \"inside\"] } e5 *\n");
    let (expected, _) = read_games(&data);
    for size in [1, 7, 64, 1000, 1 << 20] {
        assert_eq!(games_chunked(&data, size), expected, "chunk size {size}");
    }
    assert_eq!(count_lines(b"a\nb\r\nc\rd"), 3);
}

#[test]
fn a_long_comment_is_read_in_one_piece() {
    let mut text = b"1. e4 {".to_vec();
    text.extend(std::iter::repeat_n(b'x', 8 << 20));
    text.extend_from_slice(b"} e5 *\n");
    let mut reader = Reader::from_chunker(Chunker::with_size(&text[..], 1 << 16));
    let mut checker = Checker::default();
    let checked = reader.read_game(&mut checker).unwrap().unwrap();
    assert_eq!((checked.moves, checked.failed), (2, false));
}

#[test]
fn null_moves_read_and_write() {
    let game = one("1. e4 -- 2. d4 *");
    assert!(export(&game).contains("1. e4 -- 2. d4 *"));
}

#[test]
fn import_export_is_idempotent_on_annotated_text() {
    let text = "{start} 1. e4 $1 {after e4} (1. d4 {d4} (1. c4) 1... d5) 1... e5 ; line comment\n2. Nf3 {x} {y} *";
    let g1 = one(text);
    let e1 = export(&g1);
    let g2 = one(&e1);
    let e2 = export(&g2);
    assert_eq!(e1, e2);
    assert_eq!(one(&e2), g2);
    assert_eq!(g2.tree.root().comments_before[0].text, "start");
    let d4 = g2.tree.root().variations()[0];
    assert_eq!(g2.tree.node(d4).comments_after[0].text, "d4");
    assert_ne!(d4, NodeId::ROOT);
}

#[test]
fn export_never_breaks_a_line_inside_an_embedded_command() {
    // Many clocked moves: some command would straddle column 80 if words
    // were wrapped one by one.
    let mut text = String::from("[Event \"x\"]\n\n");
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for ply in 0..40 {
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(&format!(
            "{} {{note [%clk 0:{:02}:{:02}] [%eval 0.{ply}] and [%cal Ga1a8,Rh1h8]}} ",
            moves[ply % 4],
            59 - ply,
            ply
        ));
    }
    text.push_str("*\n");
    let game = one(&text);
    let out = export(&game);
    for line in out.lines() {
        assert!(line.chars().count() < 80, "{line}");
        let opens = line.matches("[%").count();
        let closes = line.matches(']').count() - line.matches("\"]").count();
        assert_eq!(opens, closes, "a command is split: {line}");
    }
    assert_eq!(export(&one(&out)), out, "idempotent");
    // A command longer than a line is split at its spaces rather than
    // breaking the line limit.
    let long = format!("1. e4 {{[%note {}]}} *\n", "word ".repeat(30).trim_end());
    let out = export(&one(&long));
    assert!(out.lines().all(|l| l.chars().count() < 80), "{out}");
}

/// One checked game: main-line moves and each problem as (line, column,
/// message).
type CheckedGame = (u64, Vec<(u64, u64, String)>);

/// Checks every game of `chunker`'s input the way `gamerec check` does
/// (truncated chunks joined to the next): per game the main-line moves and
/// each problem as (line, column, message).
fn check_chunked<R: std::io::Read>(chunker: &mut Chunker<R>) -> Vec<CheckedGame> {
    check_chunks(|| chunker.next_chunk().expect("reading"))
}

/// [`check_chunked`] over chunks from any source.
fn check_chunks(mut next_chunk: impl FnMut() -> Option<Chunk>) -> Vec<CheckedGame> {
    use super::stream::chunk_is_whole;
    use crate::diag::LineIndex;
    let mut out = Vec::new();
    let mut line_base = 0;
    while let Some(mut chunk) = next_chunk() {
        while !chunk_is_whole(&chunk) {
            match next_chunk() {
                Some(next) => chunk.append(next),
                None => chunk.last = true,
            }
        }
        let index = LineIndex::new(&chunk.data);
        let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset);
        let mut checker = Checker::default();
        while let Some(checked) = reader.read_game(&mut checker) {
            let problems = reader
                .problems()
                .iter()
                .map(|p| {
                    let lc = chunk.line_col(&index, p.offset - chunk.offset);
                    (lc.line + line_base, lc.column, p.message.clone())
                })
                .collect();
            out.push((checked.moves, problems));
        }
        line_base += chunk.lines();
    }
    out
}

/// The chunks of `data` as `gamerec check` reads a plain file: ranges
/// planned by a [`RangePlanner`] of chunk size `size`, then, if it gives up,
/// an eliding [`Chunker`] over the rest. Also returns the planned ranges
/// and whether the planner gave up.
fn planned_chunks(data: &[u8], size: usize) -> (Vec<Chunk>, Vec<ChunkRange>, bool) {
    let mut planner = RangePlanner::new(data.len() as u64, size);
    let (mut chunks, mut ranges) = (Vec::new(), Vec::new());
    while let Some(planned) = planner.next_range(data) {
        match planned {
            Planned::Range(range) => {
                ranges.push(range);
                let bytes = data[range.start as usize..range.end as usize].to_vec();
                chunks.push(range.chunk(bytes));
            }
            Planned::Rest { start, column } => {
                let mut rest = Chunker::with_size(&data[start as usize..], size)
                    .starting_at(start)
                    .starting_at_column(column)
                    .eliding_comments(4 * size);
                while let Some(chunk) = rest.next_chunk().expect("in memory") {
                    chunks.push(chunk);
                }
                return (chunks, ranges, true);
            }
        }
    }
    (chunks, ranges, false)
}

/// Checks `data` through planned chunks of size `size` and through a
/// plain chunker, asserting both give the same games and problems.
fn assert_planned_like_chunked(data: &[u8], size: usize) -> (Vec<ChunkRange>, bool) {
    let expected = check_chunked(&mut Chunker::with_size(data, 1 << 20));
    let (chunks, ranges, gave_up) = planned_chunks(data, size);
    let mut chunks = chunks.into_iter();
    let got = check_chunks(|| chunks.next());
    assert_eq!(got, expected, "chunk size {size}");
    // The ranges follow one another from the input's start.
    let mut at = 0;
    for r in &ranges {
        assert_eq!(r.start, at);
        assert!(r.end > r.start);
        at = r.end;
    }
    (ranges, gave_up)
}

#[test]
fn planned_ranges_read_like_one_stream() {
    let corpus = std::fs::read(gamerec_testkit::corpus("pgn/twic1599_1000k.pgn")).unwrap();
    let sample = &corpus[..200_000];
    for size in [1, 100, 4096, 10_000, 65_536, 1 << 20] {
        let (ranges, gave_up) = assert_planned_like_chunked(sample, size);
        assert!(ranges.last().is_none_or(|r| r.last) || gave_up);
        if size == 10_000 {
            // Cuts fall just before a game's first tag.
            assert!(ranges.len() > 10, "{}", ranges.len());
            for r in &ranges[..ranges.len() - 1] {
                assert!(sample[r.end as usize..].starts_with(b"[Event "));
            }
            assert!(!gave_up);
        }
    }
}

#[test]
fn planned_ranges_survive_wrong_cuts_and_huge_comments() {
    // A comment that holds a game end and a line-start tag (a cut there
    // is wrong and must be joined back), games with comments after their
    // markers, and an 80 kB comment with no cut in it (the planner gives
    // up and a chunker reads the rest).
    let mut data = Vec::new();
    for i in 0..200 {
        data.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 ").as_bytes());
        match i % 4 {
            0 => data.extend_from_slice(b"{ends 1-0\n[Event \"no\"]\n} Nc6 *\n\n"),
            1 => data.extend_from_slice(b"1-0 {took 5 h}\n\n"),
            2 => data.extend_from_slice(b"Ke7 0-1\n; a note\n\n"),
            _ => data.extend_from_slice(b"Nc6 3. Qh9 1/2-1/2\n\n"),
        }
        if i == 150 {
            data.extend_from_slice(b"[Event \"huge\"]\n\n1. d4 {");
            for _ in 0..2000 {
                data.extend_from_slice(b"no game end in here 1-0 [Event] at all\n");
            }
            data.extend_from_slice(b"} d5 2. Kd3 *\n\n");
        }
    }
    let mut gave_up_once = false;
    for size in [64, 300, 1000, 4096, 100_000] {
        let (_, gave_up) = assert_planned_like_chunked(&data, size);
        gave_up_once |= gave_up;
    }
    assert!(gave_up_once, "the huge comment made the planner give up");
    let (_, gave_up) = assert_planned_like_chunked(&data, 1 << 20);
    assert!(!gave_up);
}

/// A game with a comment of about `size` bytes (lines of `line_end`), an
/// illegal move after it on the comment's last line, between two games.
fn big_comment_input(size: usize, line_end: &str) -> Vec<u8> {
    let mut data = b"[Event \"a\"]\n1. e4 e5 1-0\n\n[Event \"big\"]\n1. d4 {".to_vec();
    let line = format!("{}{line_end}", "x".repeat(70));
    while data.len() < size {
        data.extend_from_slice(line.as_bytes());
    }
    data.extend_from_slice(b"yyyy} d5 2. Qxd7 c6 *\n\n[Event \"c\"]\n1. e4 {short} e5 *\n");
    data
}

#[test]
fn a_huge_comment_streams_in_bounded_memory_when_eliding() {
    for line_end in ["\n", "\r\n", "\r"] {
        let data = big_comment_input(8 << 20, line_end);
        let mut plain = Chunker::with_size(&data[..], 1 << 10);
        let expected = check_chunked(&mut plain);
        assert!(plain.peak_buffer() > 8 << 20);
        let mut eliding = Chunker::with_size(&data[..], 1 << 10).eliding_comments(4 << 10);
        let got = check_chunked(&mut eliding);
        assert_eq!(got, expected);
        assert!(
            eliding.peak_buffer() <= 16 << 10,
            "{}",
            eliding.peak_buffer()
        );
        // The illegal move is reported where it stands in the input.
        let yyyy = memchr::memmem::rfind(&data, b"yyyy").expect("the comment's last line");
        let lines = count_lines(&data[..yyyy]);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].0, 2);
        assert_eq!(got[1].1.len(), 1, "{:?}", got[1]);
        let (line, column, message) = &got[1].1[0];
        assert_eq!((*line, *column), (lines + 1, 13), "{message}");
        assert_eq!((got[0].0, got[2].0), (2, 2));
    }
}

#[test]
fn an_unterminated_huge_comment_is_an_error_when_eliding() {
    let mut data = b"[Event \"a\"]\n1. e4 e5 1-0\n\n[Event \"big\"]\n1. d4 {".to_vec();
    data.resize(1 << 20, b'z');
    let mut plain = Chunker::with_size(&data[..], 1 << 10);
    let expected = check_chunked(&mut plain);
    let mut eliding = Chunker::with_size(&data[..], 1 << 10).eliding_comments(4 << 10);
    assert_eq!(check_chunked(&mut eliding), expected);
    assert_eq!(expected.len(), 2);
    assert!(expected[1].1[0].2.contains("unterminated comment"));
}

#[test]
fn a_100_mb_comment_streams_in_bounded_memory() {
    let data = big_comment_input(100 << 20, "\n");
    let mut eliding = Chunker::new(&data[..]).eliding_comments(4 * stream::DEFAULT_CHUNK_SIZE);
    let got = check_chunked(&mut eliding);
    assert_eq!(got.len(), 3);
    assert!(eliding.peak_buffer() <= 8 * stream::DEFAULT_CHUNK_SIZE);
}

#[test]
fn latin1_names_the_characters_it_cannot_hold() {
    let text = "Łódź ♞ Łx é";
    assert_eq!(Encoding::Latin1.unrepresentable(text), vec!['Ł', 'ź', '♞']);
    assert_eq!(Encoding::Utf8.unrepresentable(text), Vec::<char>::new());
    let mut out = Vec::new();
    assert_eq!(Encoding::Latin1.encode_to(text, &mut out), 4);
    assert_eq!(out, b"?\xf3d? ? ?x \xe9");
}

/// `exd6 e.p.` with the mark as its own word (older texts) reads as the
/// capture alone, with the next move after it.
#[test]
fn en_passant_mark_written_apart_is_skipped() {
    for mark in ["e.p.", "ep", "e.p", "E.P."] {
        let text = format!("1. e4 Nf6 2. e5 d5 3. exd6 {mark} e6 4. dxc7 {mark} *\n");
        let (games, problems) = crate::pgn::read_games(text.as_bytes());
        assert!(problems.is_empty(), "{mark}: {problems:?}");
        assert_eq!(games[0].tree.mainline_len(), 7, "{mark}");
    }
}

/// Issue 18: a bad byte in a tag line (`[Bl\0ack "B"]`) used to end the
/// game there, so the rest of its tag section and its movetext were read as
/// a third game of a two-game file.
#[test]
fn a_bad_byte_in_a_tag_line_is_an_error_inside_its_game() {
    for bad in [
        &b"[Bl\0ack \"B\"]"[..],
        b"[Bl\x01ack \"B\"]",
        b"[Bl\0ack \"B]x\"]",
        b"[Bl\0ack \"B\"",
        b"[Black\x01 \"B\"] [Round \"1\"]",
    ] {
        let mut text = b"[Event \"one\"]\n".to_vec();
        text.extend_from_slice(bad);
        text.extend_from_slice(b"\n[White \"W\"]\n\n1. e4 e5 1-0\n\n[Event \"two\"]\n\n1. d4 *\n");
        let shown = String::from_utf8_lossy(bad);
        let mut reader = SliceReader::new(&text);
        while reader.read_game(&mut SkipAll).is_some() {}
        assert_eq!(reader.games(), 2, "{shown:?}");
        let (games, problems) = read_games(&text);
        let errors: Vec<_> = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{shown:?}: {problems:?}");
        if bad.starts_with(b"[Bl") {
            assert!(errors[0].message.contains("in a tag name"), "{problems:?}");
        }
        assert_eq!(games.len(), 1, "{shown:?}");
        assert_eq!(games[0].tags.get("Event"), Some("two"), "{shown:?}");
    }
}

#[test]
fn games_without_tag_sections_are_cut_where_the_reader_ends_them() {
    // No `[` to cut before: markers inside comments (over two lines, a `;`
    // comment, a `%` line), variations and games that end in an error.
    let mut data = Vec::new();
    for i in 0..400 {
        data.extend_from_slice(b"1. e4 e5 2. Nf3 ");
        match i % 5 {
            0 => data.extend_from_slice(b"{ends 1-0\nor 0-1 } Nc6 *\n\n"),
            1 => data.extend_from_slice(b"(2. d4 d5 *) 1-0 {took 5 h}\n\n"),
            2 => data.extend_from_slice(b"Ke7 0-1\n; a note 1-0\n\n"),
            3 => data.extend_from_slice(b"Nc6 3. Qh9 1/2-1/2\n% 1-0 an escape\n"),
            _ => data.extend_from_slice(b"Nc6 3. Bb5 a6 1-0 "),
        }
    }
    let (expected, problems) = read_games(&data);
    let read = games_in(&data);
    assert_eq!(read, 400);
    assert!(!expected.is_empty() && !problems.is_empty());
    assert_cut_small_like_whole(&data, &expected, &[1, 7, 64, 1000, 4096]);
}

#[test]
fn games_on_one_line_are_cut_after_their_markers() {
    // Games without tag sections one after another on one line: no line
    // start to cut at (the file was one chunk, and past the bound on one
    // game every game was lost). A chunk now ends right after a marker;
    // the next chunk's columns count from the line's start.
    let mut data = Vec::new();
    for i in 0..400 {
        data.extend_from_slice(b"1. e4 e5 2. Nf3 ");
        match i % 5 {
            0 => data.extend_from_slice(b"Qh5 3. Bb5 1/2-1/2 "), // illegal: a message
            1 => data.extend_from_slice(b"(2. d4 d5 *) 1-0 {took 5 h} "),
            2 => data.extend_from_slice(b"{1-0 in a comment} Nc6 0-1\t"),
            3 => data.extend_from_slice(b"Nc6 3. Bb5 ) a6 * "), // a syntax error
            _ => data.extend_from_slice(b"Nc6 3. Bb5 a6 1-0 "),
        }
    }
    data.extend_from_slice(b"\n1. d4 d5 3. Qh9 *\n");
    let (expected, _) = read_games(&data);
    assert_eq!(games_in(&data), 401);
    assert_cut_small_like_whole(&data, &expected, &[64, 1000, 4096]);
    // Messages at the same line and column as in the whole input's reading.
    let whole = check_chunks({
        let mut one = Some(Chunk {
            data: data.clone(),
            last: true,
            ..Chunk::default()
        });
        move || one.take()
    });
    assert!(whole.iter().filter(|g| !g.1.is_empty()).count() > 150);
    assert!(whole.iter().flat_map(|g| &g.1).any(|p| p.1 > 10_000));
    for size in [64, 1000, 4096] {
        let got = check_chunked(&mut Chunker::with_size(&data[..], size));
        assert_eq!(got, whole, "chunk size {size}");
        let (chunks, _, _) = planned_chunks(&data, size);
        assert!(chunks.len() > data.len() / (2 * size + 200));
        let mut chunks = chunks.into_iter();
        assert_eq!(
            check_chunks(|| chunks.next()),
            whole,
            "planned, size {size}"
        );
    }
}

/// How many games the reader finds in `data`, read whole.
fn games_in(data: &[u8]) -> usize {
    let mut whole = SliceReader::new(data);
    let mut read = 0;
    while whole.read_game(&mut SkipAll).is_some() {
        read += 1;
    }
    read
}

/// `data` read in chunks of each of `sizes` (by a chunker and by planned
/// ranges) gives the `expected` games, in many chunks none much larger than
/// asked.
fn assert_cut_small_like_whole(data: &[u8], expected: &[Game], sizes: &[usize]) {
    for &size in sizes {
        assert_eq!(games_chunked(data, size), expected, "chunk size {size}");
        let mut chunker = Chunker::with_size(data, size);
        let mut chunks = 0;
        while let Some(chunk) = chunker.next_chunk().unwrap() {
            chunks += 1;
            // Each chunk ends a game: none is joined to the next.
            assert!(
                super::stream::chunk_is_whole(&chunk),
                "size {size}: {chunk:?}"
            );
            assert!(
                chunk.data.len() < 2 * size + 200,
                "size {size}: {}",
                chunk.data.len()
            );
        }
        assert!(
            chunks > data.len() / (2 * size + 200),
            "size {size}: {chunks} chunks"
        );
        let (ranges, gave_up) = assert_planned_like_chunked(data, size);
        // The planner gives up on a game longer than 16 chunks (then a
        // chunker reads the rest): only at the smallest sizes here.
        if size >= 64 {
            assert!(!gave_up, "size {size}");
            assert!(ranges.len() > data.len() / (2 * size + 200), "size {size}");
        }
    }
}

#[test]
fn games_without_termination_markers_are_cut_before_the_next_tags() {
    // Each game ends at the next game's `[` (with a warning): a chunk cut
    // there is whole, not a game cut off to be joined to the next chunk
    // (which made the whole input one chunk). A failed game, a comment
    // before the first move and tags that go on after a blank line (one
    // tag section) keep their whole-input reading.
    let mut data = Vec::new();
    for i in 0..300 {
        data.extend_from_slice(format!("[Event \"{i}\"]\n").as_bytes());
        match i % 4 {
            0 => data.extend_from_slice(b"\n1. e4 e5 2. Nf3\n\n"),
            1 => data.extend_from_slice(b"\n{only a comment}\n\n"),
            2 => data.extend_from_slice(b"\n[Site \"after a blank line\"]\n\n1. d4 Kd7 2. c4\n\n"),
            _ => data.extend_from_slice(b"\n1. c4 (1. d4) c5 *\n\n"),
        }
    }
    let (expected, problems) = read_games(&data);
    let read = games_in(&data);
    // (A comment alone does not end a tag section: those games go on.)
    assert_eq!(read, 225);
    assert!(!expected.is_empty() && !problems.is_empty());
    assert_cut_small_like_whole(&data, &expected, &[7, 64, 1000, 4096]);
}
