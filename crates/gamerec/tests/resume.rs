//! Reading on from a byte offset (`pipeline::Options::resume`, what
//! `index --append` does): the games after the place come with the numbers,
//! lines, offsets and diagnostics a reading from the start gives them, for a
//! mapped file and for a compressed stream alike, at any thread count; and
//! `decoded_to` ends at the input's decompressed length.

use std::io::Write;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gamerec::io::parallel::Resume;
use gamerec::io::pipeline::{self, Options};
use gamerec::io::{Input, Record};
use gamerec_testkit::{corpus, temp_dir};

/// (number, line, offset, Event) of each game read, and (game, line,
/// column, message) of each diagnostic, and how far the input was read.
type Seen = (
    Vec<(u64, u64, u64, String)>,
    Vec<(u64, u64, u64, String)>,
    u64,
);

fn read(input: &Input, threads: usize, resume: Resume) -> Seen {
    let to = Arc::new(AtomicU64::new(0));
    let opts = Options {
        threads,
        chunk_size: Some(8 << 10),
        resume,
        decoded_to: Some(to.clone()),
        ..Options::default()
    };
    let (mut games, mut diags) = (Vec::new(), Vec::new());
    let ran = pipeline::read_games(
        std::slice::from_ref(input),
        &opts,
        |item| match item.record {
            Record::Game(g) => g.tags.get("Event").unwrap_or("").to_string(),
            Record::Position(_) => String::new(),
        },
        |out| {
            games.push((out.number, out.line, out.offset, out.value));
            ControlFlow::Continue(())
        },
        |d| {
            let at = (d.location.line, d.location.column);
            diags.push((d.game.unwrap_or(0), at.0, at.1, d.message));
            ControlFlow::Continue(())
        },
    );
    assert_eq!(ran.tally.inputs_not_read, 0, "{}", input.name);
    (games, diags, to.load(Ordering::Relaxed))
}

#[test]
fn reading_on_from_an_offset_equals_the_rest_of_a_whole_reading() {
    let dir = temp_dir("resume");
    let mut text = std::fs::read(corpus("pgn/lichess_db_1000k.pgn")).unwrap();
    // An illegal move late in the file: its diagnostic must keep its line.
    let at = text.len() * 3 / 4;
    let game = at + text[at..].windows(4).position(|w| w == b"\n1. ").unwrap() + 1;
    text.splice(game..game + 3, b"1. Ke5".iter().copied());
    let plain = dir.join("db.pgn");
    std::fs::write(&plain, &text).unwrap();
    let packed = dir.join("db.pgn.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    std::fs::write(&packed, gz.finish().unwrap()).unwrap();
    for path in [&plain, &packed] {
        let input = Input::file(path);
        let (games, diags, end) = read(&input, 1, Resume::default());
        assert_eq!(end, text.len() as u64, "{}", input.name);
        assert!(diags.iter().any(|d| d.3.contains("Ke5")), "{diags:?}");
        for k in [1usize, games.len() / 3, games.len() * 4 / 5] {
            // Games not read are not handed on: the number says how many
            // came before.
            let (number, _, offset, _) = games[k];
            let resume = Resume {
                offset,
                games: number - 1,
            };
            for threads in [1, 2] {
                let (rest, rest_diags, rest_end) = read(&input, threads, resume);
                assert_eq!(rest, games[k..], "{} from game {number}", input.name);
                let later: Vec<_> = diags.iter().filter(|d| d.0 >= number).cloned().collect();
                assert_eq!(rest_diags, later, "{} from game {number}", input.name);
                assert_eq!(rest_end, end);
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
