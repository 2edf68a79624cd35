//! The CLI's peak-memory tests, a test binary of their own: they read a
//! child's peak with `wait4`, and a child started from a process counts
//! that process's peak resident memory as its own until it execs (Linux
//! keeps the old memory's high-water mark), so the parent must stay small:
//! not the `integration` binary, whose other tests hold whole corpora. Run
//! with `cargo test -p gamerec-cli --test memory`.

mod binary_memory;
mod html_memory;
mod messages_memory;
mod pgn_memory;
mod report_memory;
mod sgf_memory;
mod sort_memory;
mod writer_memory;
