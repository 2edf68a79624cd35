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
/// each problem to `err` (warnings only when not `quiet`). Returns the
/// games and the number of errors.
pub fn read_pgn_games(
    input: &Input,
    quiet: bool,
    err: &mut dyn Write,
) -> anyhow::Result<(Vec<gamerec::model::Game>, u64)> {
    collect_pgn_games(Reader::open(input, &pgn_options())?, quiet, err)
}

/// [`read_pgn_games`] over PGN text already read (`name` names it in
/// messages).
pub fn pgn_games_from_bytes(
    name: &str,
    bytes: &[u8],
    quiet: bool,
    err: &mut dyn Write,
) -> anyhow::Result<(Vec<gamerec::model::Game>, u64)> {
    collect_pgn_games(Reader::from_bytes(name, bytes, &pgn_options()), quiet, err)
}

fn pgn_options() -> ReadOptions {
    ReadOptions {
        format: Some(gamerec::io::Format::Pgn),
        max_errors: u64::MAX,
        ..ReadOptions::default()
    }
}

fn collect_pgn_games(
    mut reader: Reader,
    quiet: bool,
    err: &mut dyn Write,
) -> anyhow::Result<(Vec<gamerec::model::Game>, u64)> {
    let mut games = Vec::new();
    let mut errors = 0;
    let mut failure = None;
    for item in reader.by_ref() {
        match item {
            Ok(item) => {
                if let Record::Game(g) = item.record {
                    games.push(g);
                }
            }
            Err(e) => failure = Some(e),
        }
    }
    for d in reader.take_diagnostics() {
        if d.is_error() {
            errors += 1;
        } else if quiet {
            continue;
        }
        writeln!(err, "{d}")?;
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok((games, errors))
}
