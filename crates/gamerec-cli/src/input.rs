//! What the verbs share about inputs and outputs: inputs are the library's
//! ([`gamerec::io::Input`], formats by [`gamerec::io::Format`]); this file
//! only opens the output and reads PGN games for the verbs that sort them.

use std::io::{self, Write};
use std::path::Path;

pub use gamerec::io::Input;
use gamerec::io::{Output, ReadOptions, Reader, Record};

/// Opens the output: a file written beside its target under a temporary
/// name, or stdout for `None` or `-`. Call [`gamerec::io::Output::finish`]
/// on success to put the file into place; dropped without it (an error, a
/// failed run), the old file is left as it was and nothing beside it.
/// Errors name the file.
pub fn open_output(path: Option<&Path>) -> io::Result<Output> {
    Output::open(path)
}

/// Whether an I/O error is a closed pipe (which the CLI treats as success).
pub fn is_broken_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// Reads every game of a PGN input through the library's reader, printing
/// each problem to `err` (warnings only when not `quiet`), handing each
/// game to `f` as it is read (no more than one game's model is held at a
/// time; the first error `f` returns stops the reading). Returns the number
/// of errors.
pub fn for_each_pgn_game(
    input: &Input,
    quiet: bool,
    err: &mut dyn Write,
    f: impl FnMut(gamerec::model::Game) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    visit_pgn_games(Reader::open(input, &pgn_options())?, quiet, err, f)
}

/// Reads every game of PGN text already read (`name` names it in
/// messages) as [`for_each_pgn_game`] does: problems printed, each game
/// handed to `f` as it is read; returns the number of errors.
pub fn for_each_pgn_game_in_bytes(
    name: &str,
    bytes: &[u8],
    quiet: bool,
    err: &mut dyn Write,
    f: impl FnMut(gamerec::model::Game) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    visit_pgn_games(
        Reader::from_bytes(name, bytes, &pgn_options()),
        quiet,
        err,
        f,
    )
}

fn pgn_options() -> ReadOptions {
    ReadOptions {
        format: Some(gamerec::io::Format::Pgn),
        max_errors: u64::MAX,
        ..ReadOptions::default()
    }
}

fn visit_pgn_games(
    mut reader: Reader,
    quiet: bool,
    err: &mut dyn Write,
    mut f: impl FnMut(gamerec::model::Game) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut errors = 0;
    let mut failure = None;
    // Problems are printed as the reader finds them: a run of games that
    // fail to read holds none of its messages.
    let mut write_failed = None;
    let mut print = |d: gamerec::diag::Diagnostic| {
        if d.is_error() {
            errors += 1;
        } else if quiet {
            return;
        }
        if write_failed.is_none()
            && let Err(e) = writeln!(err, "{d}")
        {
            write_failed = Some(e);
        }
    };
    loop {
        let next = reader.next_reporting(&mut print);
        match next {
            None => break,
            Some(Ok(item)) => {
                if let Record::Game(g) = item.record {
                    f(g)?;
                }
            }
            Some(Err(e)) => failure = Some(e),
        }
    }
    if let Some(e) = write_failed {
        return Err(e.into());
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok(errors)
}
