//! Reading the games of a database in order, with every unreadable game in
//! its place: an adapter over the library's one pipeline
//! ([`gamerec::io::pipeline::read_games`]) for the index and `find`, which
//! number games by their place in the file.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::ops::ControlFlow;

use gamerec::diag::Diagnostic;
use gamerec::io::pipeline::{self, Tally};
use gamerec::io::read::Record as Read;
use gamerec::io::{Format, Input};
use gamerec::model::Game;

/// One game read, with where it starts.
#[derive(Debug)]
pub struct Record {
    /// The game.
    pub game: Game,
    /// Byte offset of its first token in the (decompressed) input.
    pub offset: u64,
}

/// A game that could not be read.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Byte offset of the error in the (decompressed) input.
    pub offset: u64,
    /// What was wrong.
    pub message: String,
}

/// What the sink is given per game, in input order.
pub type Outcome<T> = Result<(u64, T), Failure>;

/// Reads every game of the PGN `input` through the pipeline (`opts`: threads,
/// the bound on one game, where to start), runs `work` on each on the
/// reading threads, and gives `sink` the results in input order (with the
/// game's byte offset), or the failure of a game that could not be read, so
/// that the n-th outcome is the file's n-th game. Every diagnostic goes to
/// `diagnostic`. `sink` returning `false` stops the reading. Returns the
/// pipeline's tally (an input not read to its end shows in
/// `inputs_not_read`).
pub fn for_each_game<T: Send>(
    input: &Input,
    opts: &pipeline::Options,
    work: impl Fn(&Record) -> T + Sync,
    sink: impl FnMut(Outcome<T>) -> io::Result<bool>,
    mut diagnostic: impl FnMut(Diagnostic),
) -> io::Result<Tally> {
    let mut opts = opts.clone();
    // Games are found again by byte offset: the database is PGN.
    opts.format = Some(Format::Pgn);
    struct State<S> {
        sink: S,
        /// The number of the next game owed to the sink.
        next: u64,
        /// First error of games not read: game number -> (offset, message).
        failed: BTreeMap<u64, (u64, String)>,
        error: Option<io::Error>,
        stopped: bool,
    }
    impl<S> State<S> {
        /// Hands on the games before `number` that were not read.
        fn fill<T>(&mut self, number: u64) -> ControlFlow<()>
        where
            S: FnMut(Outcome<T>) -> io::Result<bool>,
        {
            while self.next < number {
                let (offset, message) = self
                    .failed
                    .remove(&self.next)
                    .unwrap_or_else(|| (0, "unreadable game".into()));
                self.next += 1;
                if self.give(Err(Failure { offset, message })).is_break() {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }

        fn give<T>(&mut self, outcome: Outcome<T>) -> ControlFlow<()>
        where
            S: FnMut(Outcome<T>) -> io::Result<bool>,
        {
            match (self.sink)(outcome) {
                Ok(true) => ControlFlow::Continue(()),
                Ok(false) => {
                    self.stopped = true;
                    ControlFlow::Break(())
                }
                Err(e) => {
                    self.error = Some(e);
                    ControlFlow::Break(())
                }
            }
        }
    }
    let state = RefCell::new(State {
        sink,
        next: opts.resume.games + 1,
        failed: BTreeMap::new(),
        error: None,
        stopped: false,
    });
    let ran = pipeline::read_games(
        std::slice::from_ref(input),
        &opts,
        |item| match item.record {
            Read::Game(game) => Some(work(&Record {
                game,
                offset: item.offset,
            })),
            Read::Position(_) => None,
        },
        |out| {
            let mut state = state.borrow_mut();
            state.fill::<T>(out.number)?;
            state.next = out.number + 1;
            match out.value {
                Some(value) => state.give(Ok((out.offset, value))),
                None => ControlFlow::Continue(()),
            }
        },
        |d| {
            if d.is_error()
                && let Some(game) = d.game
            {
                let first = (d.offset.unwrap_or(0), d.message.clone());
                state.borrow_mut().failed.entry(game).or_insert(first);
            }
            diagnostic(d);
            ControlFlow::Continue(())
        },
    );
    let mut state = state.into_inner();
    if !ran.stopped {
        // Games not read at the end.
        let _ = state.fill::<T>(opts.resume.games + ran.tally.games + 1);
    }
    match state.error {
        Some(e) => Err(e),
        None => Ok(ran.tally),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_failures_survive_threads() {
        let mut text = String::new();
        for i in 0..3000 {
            if i % 700 == 5 {
                text.push_str("[Event \"bad\"]\n\n1. e5 *\n\n");
            } else {
                text.push_str(&format!(
                    "[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 {{ a comment }} 1-0\n\n"
                ));
            }
        }
        let dir = gamerec_testkit::temp_dir("source");
        let path = dir.join("games.pgn");
        std::fs::write(&path, &text).unwrap();
        for threads in [1, 2, 3] {
            let mut seen = Vec::new();
            let mut failures = Vec::new();
            let mut errors = 0;
            let opts = pipeline::Options {
                threads,
                chunk_size: Some(4096),
                ..pipeline::Options::default()
            };
            let tally = for_each_game(
                &Input::file(&path),
                &opts,
                |r| r.game.tags.get("Event").unwrap_or("").to_string(),
                |o| {
                    match o {
                        Ok((_, e)) => seen.push(e),
                        Err(f) => failures.push(f),
                    }
                    Ok(true)
                },
                |d| errors += u64::from(d.is_error()),
            )
            .unwrap();
            assert_eq!(failures.len(), 5);
            assert!(
                failures.iter().all(|f| f.message.contains("e5")),
                "{failures:?}"
            );
            assert_eq!((tally.games, tally.games_with_errors, errors), (3000, 5, 5));
            let expected: Vec<String> = (0..3000)
                .filter(|i| i % 700 != 5)
                .map(|i| i.to_string())
                .collect();
            assert_eq!(seen, expected, "threads {threads}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
