//! Reading games in parallel while keeping input order: the one place that
//! reads game files (an adapter over `gamerec::pgn`'s chunker, reader and
//! builder).
//!
//! The input is cut into chunks of whole games; each batch of chunks is
//! parsed (and the caller's per-game work done) on `threads` threads, and
//! the results are handed back on the calling thread in input order. Memory
//! stays at about `2 × threads` chunks. A chunk whose last game was cut off
//! is joined to the next one and done again.

use std::io::{self, Read};

use gamerec::diag::Severity;
use gamerec::model::Game;
use gamerec::pgn::{Chunk, Chunker, GameBuilder, SliceReader};

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

struct Done<T> {
    items: Vec<Outcome<T>>,
    truncated: bool,
}

fn process<T>(chunk: &Chunk, work: &(impl Fn(&Record) -> T + Sync)) -> Done<T> {
    let mut reader = SliceReader::with_offset(&chunk.data, chunk.offset);
    let mut builder = GameBuilder::default();
    let mut items = Vec::new();
    let mut truncated = false;
    while let Some(game) = reader.read_game(&mut builder) {
        truncated = reader.truncated();
        match game {
            Some(game) => {
                let record = Record {
                    game,
                    offset: reader.game_offset(),
                };
                items.push(Ok((record.offset, work(&record))));
            }
            None => {
                let problem = reader
                    .problems()
                    .iter()
                    .find(|p| p.severity == Severity::Error)
                    .cloned();
                items.push(Err(Failure {
                    offset: problem.as_ref().map_or(reader.game_offset(), |p| p.offset),
                    message: problem.map_or_else(|| "unreadable game".into(), |p| p.message),
                }));
            }
        }
    }
    Done { items, truncated }
}

/// Reads every game of `input` (PGN), runs `work` on each on one of
/// `threads` threads, and gives `sink` the results in input order (with the
/// game's byte offset), or the failure of a game that could not be read.
/// `sink` returning `false` stops the reading.
pub fn for_each_game<T: Send>(
    input: impl Read,
    threads: usize,
    work: impl Fn(&Record) -> T + Sync,
    sink: impl FnMut(Outcome<T>) -> io::Result<bool>,
) -> io::Result<()> {
    let size = if threads > 1 { 256 << 10 } else { 1 << 20 };
    for_each_game_with(input, threads, size, work, sink)
}

/// [`for_each_game`] with a chosen chunk size in bytes.
pub fn for_each_game_with<T: Send>(
    input: impl Read,
    threads: usize,
    chunk_size: usize,
    work: impl Fn(&Record) -> T + Sync,
    mut sink: impl FnMut(Outcome<T>) -> io::Result<bool>,
) -> io::Result<()> {
    let threads = threads.max(1);
    let mut chunker = Chunker::with_size(input, chunk_size);
    let mut pending: Option<Chunk> = None;
    loop {
        // A batch of chunks.
        let mut batch: Vec<Chunk> = Vec::with_capacity(threads * 2);
        if let Some(c) = pending.take() {
            batch.push(c);
        }
        while batch.len() < threads * 2 {
            match chunker.next_chunk()? {
                Some(c) => batch.push(c),
                None => break,
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        let done: Vec<Done<T>> = if threads == 1 || batch.len() == 1 {
            batch.iter().map(|c| process(c, &work)).collect()
        } else {
            let work = &work;
            let batch = &batch;
            let mut slots: Vec<Option<Done<T>>> = (0..batch.len()).map(|_| None).collect();
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        scope.spawn(move || {
                            (t..batch.len())
                                .step_by(threads)
                                .map(|i| (i, process(&batch[i], work)))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                for h in handles {
                    // A worker that panicked leaves its slots empty; the
                    // panic is re-raised below.
                    match h.join() {
                        Ok(list) => {
                            for (i, d) in list {
                                slots[i] = Some(d);
                            }
                        }
                        Err(p) => std::panic::resume_unwind(p),
                    }
                }
            });
            slots
                .into_iter()
                .map(|s| s.expect("every chunk done"))
                .collect()
        };
        let mut chunks = batch.into_iter();
        for d in done {
            let chunk = chunks.next().expect("one chunk per result");
            if d.truncated && !chunk.last {
                // Join the cut-off chunk to the rest of the batch and the
                // input, and do it all again from there.
                let mut joined = chunk;
                for c in chunks.by_ref() {
                    joined.append(c);
                }
                if let Some(next) = chunker.next_chunk()? {
                    joined.append(next);
                } else {
                    joined.last = true;
                }
                pending = Some(joined);
                break;
            }
            for item in d.items {
                if !sink(item)? {
                    return Ok(());
                }
            }
            chunker.pool().give(chunk.data);
        }
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
        for threads in [1, 2, 3] {
            let mut seen = Vec::new();
            let mut failures = 0;
            for_each_game_with(
                text.as_bytes(),
                threads,
                4096,
                |r| r.game.tags.get("Event").unwrap_or("").to_string(),
                |o| {
                    match o {
                        Ok((_, e)) => seen.push(e),
                        Err(_) => failures += 1,
                    }
                    Ok(true)
                },
            )
            .unwrap();
            assert_eq!(failures, 5);
            let expected: Vec<String> = (0..3000)
                .filter(|i| i % 700 != 5)
                .map(|i| i.to_string())
                .collect();
            assert_eq!(seen, expected, "threads {threads}");
        }
    }
}
