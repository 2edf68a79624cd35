//! The bound on one game's bytes: a game past it is reported and left out,
//! the games around it are read, and memory stays near the bound, through
//! the sequential reader and the parallel one alike.

use std::ops::ControlFlow;

use gamerec::diag::Code;
use gamerec::io::parallel::{self, games_job};
use gamerec::io::{Format, ReadOptions, Reader, Record};
use gamerec::pgn::Chunker;

const BOUND: u64 = 256 << 10;

/// An error as the tests compare it: code, line, game number, column and
/// note (the game's number, line and first line).
type Found = (Code, u64, Option<u64>, u64, String);

fn found(d: &gamerec::diag::Diagnostic) -> Found {
    let note = d.note.as_deref().unwrap_or("").to_string();
    (d.code, d.location.line, d.game, d.location.column, note)
}

fn game(n: usize, filler: &str) -> String {
    format!("[Event \"g{n}\"]\n[Result \"1-0\"]\n\n1. e4 {filler} e5 2. Nf3 1-0\n\n")
}

/// What the sequential reader makes of `text`: event names of the games
/// read, and (code, line, game number) of every error.
fn sequential(text: &[u8]) -> (Vec<String>, Vec<Found>) {
    let opts = ReadOptions {
        format: Some(Format::Pgn),
        max_game_bytes: BOUND,
        ..ReadOptions::default()
    };
    let mut reader = Reader::from_bytes("t.pgn", text, &opts);
    let mut names = Vec::new();
    for item in reader.by_ref() {
        let Record::Game(g) = item.unwrap().record else {
            panic!("a game")
        };
        names.push(g.tags.get("Event").unwrap_or("").to_string());
    }
    let errors = reader
        .take_diagnostics()
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| found(&d))
        .collect();
    (names, errors)
}

/// The same through the parallel reader, with small chunks on `threads`.
fn parallel(text: &[u8], threads: usize) -> (Vec<String>, Vec<Found>, u64) {
    let opts = parallel::Options {
        threads,
        chunk_size: Some(4096),
        max_game_bytes: BOUND,
        ..parallel::Options::default()
    };
    let mut names = Vec::new();
    let mut errors = Vec::new();
    let mut games = 0;
    // Through a pipe-like reader, so the chunker (not the planner) cuts.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "gamerec-oversized-{}-{n}.pgn.gz",
        std::process::id()
    ));
    {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(text).unwrap();
        gz.finish().unwrap();
    }
    let input = gamerec::io::Input::from_arg(path.as_os_str());
    parallel::read_pgn(&input, &opts, games_job, |settled| {
        games += settled.games;
        for item in settled.value {
            let Record::Game(g) = item.record else {
                panic!("a game")
            };
            names.push(g.tags.get("Event").unwrap_or("").to_string());
        }
        for d in settled.diagnostics {
            if d.is_error() {
                errors.push(found(&d));
            }
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    std::fs::remove_file(&path).unwrap();
    (names, errors, games)
}

#[test]
fn a_huge_comment_costs_its_game_only() {
    let big = format!("{{{}}}", "x ".repeat(1 << 20));
    let text = [game(1, ""), game(2, &big), game(3, "")].concat();
    let (names, errors) = sequential(text.as_bytes());
    assert_eq!(names, ["g1", "g3"]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, Code::TooLarge);
    assert_eq!(errors[0].1, 6, "the line where game 2 starts");
    assert_eq!(errors[0].2, Some(2));
    for threads in [1, 2, 4] {
        let (pnames, perrors, games) = parallel(text.as_bytes(), threads);
        assert_eq!(pnames, names, "{threads} threads");
        assert_eq!(perrors, errors, "{threads} threads");
        assert_eq!(games, 3);
    }
}

#[test]
fn a_huge_tag_value_costs_its_game_only() {
    let text = format!(
        "{}[Event \"g2\"]\n[Annotator \"{}\"]\n\n1. d4 0-1\n\n{}",
        game(1, ""),
        "y".repeat(3 << 20),
        game(3, "{fine}")
    );
    let (names, errors) = sequential(text.as_bytes());
    assert_eq!(names, ["g1", "g3"]);
    assert_eq!(
        errors.iter().map(|e| e.0).collect::<Vec<_>>(),
        [Code::TooLarge]
    );
    let (pnames, perrors, _) = parallel(text.as_bytes(), 2);
    assert_eq!((pnames, perrors), (names, errors));
}

#[test]
fn whitespace_past_the_bound_is_no_game() {
    let text = [
        game(1, ""),
        "\n".repeat(3 << 20),
        " \t\r\n".repeat(1 << 18),
        game(2, ""),
    ]
    .concat();
    let (names, errors) = sequential(text.as_bytes());
    assert_eq!(names, ["g1", "g2"]);
    assert!(errors.is_empty(), "{errors:?}");
    // Line numbers after the gap are exact: an error in game 3 is placed.
    let bad = [text.clone(), "[Event \"g3\"]\n\n1. e5 *\n".into()].concat();
    let (_, errors) = sequential(bad.as_bytes());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, Code::IllegalMove);
    let at = bad.rfind("1. e5").unwrap();
    let line = gamerec::pgn::stream::count_lines(&bad.as_bytes()[..at]) + 1;
    assert_eq!(errors[0].1, line);
    let (_, perrors, _) = parallel(bad.as_bytes(), 2);
    assert_eq!(perrors, errors);
}

#[test]
fn an_unclosed_comment_is_read_in_bounded_pieces() {
    // The `{` never closes: by the standard the rest is its text. Past the
    // bound the reader gives up on that game and reads on.
    let mut text = game(1, "{never closed");
    for n in 2..30000 {
        text.push_str(&game(n, ""));
    }
    let (_, errors) = sequential(text.as_bytes());
    assert!(
        errors.iter().any(|e| e.0 == Code::TooLarge),
        "the runaway game is reported: {errors:?}"
    );
    let (_, perrors, _) = parallel(text.as_bytes(), 2);
    assert!(perrors.iter().any(|e| e.0 == Code::TooLarge), "{perrors:?}");
}

#[test]
fn the_chunker_never_holds_much_more_than_the_bound() {
    let big = format!("{{{}}}", "z".repeat(8 << 20));
    let text = [game(1, ""), game(2, &big), game(3, "")].concat();
    let mut chunker = Chunker::with_size(text.as_bytes(), 4096).max_game_bytes(BOUND);
    let mut oversized = 0;
    while let Some(chunk) = chunker.next_chunk().unwrap() {
        oversized += chunk.view().oversized().count();
    }
    assert_eq!(oversized, 1);
    assert!(
        chunker.peak_buffer() as u64 <= 2 * BOUND,
        "peak {} for a bound of {BOUND}",
        chunker.peak_buffer()
    );
}

#[test]
fn an_escape_line_past_the_bound_is_no_game() {
    // A `%` line is ignored by the standard, whatever its length: past the
    // bound it is left out like whitespace, and the game after it is read.
    let escape = format!("%{}\n", "x".repeat(3 << 20));
    let text = [
        game(1, ""),
        escape.clone(),
        game(2, ""),
        escape,
        game(3, ""),
    ]
    .concat();
    let (names, errors) = sequential(text.as_bytes());
    assert_eq!(names, ["g1", "g2", "g3"]);
    assert!(errors.is_empty(), "{errors:?}");
    let (pnames, perrors, games) = parallel(text.as_bytes(), 2);
    assert_eq!((pnames, perrors, games), (names, errors, 3));
    // Lines after the escape lines are exact: an error in game 4 is placed.
    let bad = [text, "[Event \"g4\"]\n\n1. e5 *\n".into()].concat();
    let (_, errors) = sequential(bad.as_bytes());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!((errors[0].0, errors[0].1), (Code::IllegalMove, 20));
    let (_, perrors, _) = parallel(bad.as_bytes(), 2);
    assert_eq!(perrors, errors);
}

#[test]
fn escape_lines_between_games_leave_a_place_to_cut() {
    // Between a game's marker and the next `[`, `%` lines are passed over
    // as `;` lines are: the game after an oversized one is found.
    let big = format!("{{{}}}", "x ".repeat(1 << 20));
    let text = [
        game(1, ""),
        game(2, &big),
        "%a note\n%another\n".into(),
        game(3, ""),
    ]
    .concat();
    let (names, errors) = sequential(text.as_bytes());
    assert_eq!(names, ["g1", "g3"]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, Code::TooLarge);
    let (pnames, perrors, _) = parallel(text.as_bytes(), 2);
    assert_eq!((pnames, perrors), (names, errors));
}

#[test]
fn games_on_one_line_after_an_oversized_one_are_read() {
    // Games without tag sections on one line: reading resumes right after
    // the oversized game's marker, not at the next line start (there is
    // none), and its message quotes the game's start at its column.
    let big = format!("{{{}}}", "x".repeat(1 << 20));
    let text = format!("1. e4 e5 1-0 1. d4 {big} d5 0-1 1. c4 c5 1/2-1/2 1. Nf3 Nf6 *\n");
    let count = |text: &str| {
        let opts = ReadOptions {
            format: Some(Format::Pgn),
            max_game_bytes: BOUND,
            ..ReadOptions::default()
        };
        let mut reader = Reader::from_bytes("t.pgn", text.as_bytes(), &opts);
        reader.try_fold(0, |n, item| item.map(|_| n + 1)).unwrap()
    };
    assert_eq!(count(&text), 3);
    let (_, errors) = sequential(text.as_bytes());
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (code, line, game, column, note) = &errors[0];
    assert_eq!(
        (*code, *line, *game, *column),
        (Code::TooLarge, 1, Some(2), 14)
    );
    assert!(
        note.starts_with("game 2, line 1: 1. d4 {xxx") && note.ends_with("..."),
        "{note}"
    );
    for threads in [1, 2] {
        let (_, perrors, games) = parallel(text.as_bytes(), threads);
        assert_eq!((perrors, games), (errors.clone(), 4), "{threads} threads");
    }
}
