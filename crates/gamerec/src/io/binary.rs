//! The binary formats (PGC, ChessBase CBF/CBI, FBK) read game by game.
//!
//! A plain file is mapped read-only and its pages are given back every few
//! thousand games and every 8 MB read, so memory stays at one game whatever the file's size; a
//! compressed file (or stdin) is decompressed first: into memory up to
//! [`IN_MEMORY`] bytes, past that into an unnamed temporary file that is
//! mapped the same way (a small file that decompresses to gigabytes costs
//! disk, not memory). A stream cut short or damaged gives the games of the
//! bytes before the damage, then its error. Each game goes to the caller
//! and is dropped when the callback returns. FBK files hold one tree, so
//! [`check_binary`] walks them without building it.

use std::fs::File;
use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use super::Format;
use super::input::{Input, OpenError};
use super::read::{cbf_pair_to_read, issue_diagnostic};
use crate::chessbase::{self, ReadItem};
use crate::diag::Diagnostic;
use crate::model::Game;
use crate::pgc;

/// Games read between two releases of the mapped pages.
const RELEASE_EVERY: u64 = 4096;
/// Bytes read between two releases of the mapped pages (PGC, CBF and FBK
/// files of few games and many bytes: padding, strings, large games, one
/// long tree).
const RELEASE_BYTES: usize = 8 << 20;

/// Decompressed bytes kept in memory; past this, in a temporary file.
pub(crate) const IN_MEMORY: usize = 8 << 20;

/// An input's bytes: a read-only mapping of a plain file (or of the
/// temporary file a large decompressed input went to), or the decompressed
/// contents of anything else; and the error that cut the stream short.
pub(crate) struct Bytes {
    map: Option<memmap2::Mmap>,
    owned: Vec<u8>,
    cut: Option<std::io::Error>,
}

impl Bytes {
    pub(crate) fn open(input: &Input) -> Result<Bytes, OpenError> {
        if let Some((file, len)) = input.open_plain()? {
            return Ok(Bytes {
                map: Some(map(&file, len, &input.name)?),
                owned: Vec::new(),
                cut: None,
            });
        }
        Bytes::read(&mut input.open(None)?, &input.name)
    }

    /// The bytes of `stream`: in memory up to [`IN_MEMORY`], else in an
    /// unnamed temporary file, mapped. A read error ends the bytes and is
    /// kept ([`Bytes::take_cut`]); only a temporary file that cannot be
    /// made or written fails.
    pub(crate) fn read(stream: &mut dyn Read, name: &str) -> Result<Bytes, OpenError> {
        let mut owned = Vec::new();
        let mut cut = None;
        let mut spill: Option<(File, std::path::PathBuf)> = None;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    cut = Some(e);
                    break;
                }
            };
            if spill.is_none() && owned.len() + n > IN_MEMORY {
                let dir = std::env::temp_dir();
                let mut file =
                    super::spool::unnamed_file(&dir).map_err(|e| OpenError::new(name, e))?;
                file.write_all(&owned)
                    .map_err(|e| OpenError::new(name, super::spool::at(&dir, e)))?;
                owned = Vec::new();
                spill = Some((file, dir));
            }
            match &mut spill {
                Some((file, dir)) => file
                    .write_all(&buf[..n])
                    .map_err(|e| OpenError::new(name, super::spool::at(dir, e)))?,
                None => owned.extend_from_slice(&buf[..n]),
            }
        }
        let map = match spill {
            Some((file, dir)) => {
                let len = file
                    .metadata()
                    .map_err(|e| OpenError::new(name, super::spool::at(&dir, e)))?
                    .len();
                Some(self::map(&file, len, name)?)
            }
            None => None,
        };
        Ok(Bytes { map, owned, cut })
    }

    /// The error that cut the stream short, once.
    pub(crate) fn take_cut(&mut self) -> Option<std::io::Error> {
        self.cut.take()
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&self.owned)
    }

    /// Gives the mapped pages back (read again from the file if touched).
    fn release(&self) {
        #[cfg(unix)]
        if let Some(map) = &self.map {
            // SAFETY: a read-only file mapping; dropped pages are read again
            // from the file when touched.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

fn map(file: &File, len: u64, name: &str) -> Result<memmap2::Mmap, OpenError> {
    let len = usize::try_from(len).map_err(|_| {
        OpenError::new(
            name,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "file too large to map"),
        )
    })?;
    // SAFETY: a read-only mapping of a file we only read; as for every reader
    // of files, we assume no one truncates it meanwhile.
    unsafe { memmap2::MmapOptions::new().len(len).map(file) }.map_err(|e| OpenError::new(name, e))
}

/// Reads a binary file (PGC, or CBF with its CBI) game by game: each game
/// goes to `on_game` and is dropped when it returns, each problem to
/// `on_diagnostic`, in file order. FBK files (one tree) are read whole by
/// [`crate::io::Reader`]. A compressed file cut short gives its games up to
/// the cut, then the error.
pub fn read_binary_each(
    input: &Input,
    format: Format,
    on_game: &mut dyn FnMut(Game),
    on_diagnostic: &mut dyn FnMut(Diagnostic),
) -> Result<(), OpenError> {
    let mut opened = Opened::open(input, format)?;
    let mut cut = None;
    opened.read(&mut |item| {
        match item {
            Streamed::Game(g) => on_game(g),
            Streamed::Diagnostic(d) => on_diagnostic(d),
            Streamed::Cut(e) => cut = Some(e),
        }
        ControlFlow::Continue(())
    });
    cut.map_or(Ok(()), Err)
}

/// One item of a binary file read game by game.
pub(crate) enum Streamed {
    Game(Game),
    Diagnostic(Diagnostic),
    /// The error that cut a decompressed input short (the last item).
    Cut(OpenError),
}

/// Games in flight between the thread reading a binary file and its
/// [`crate::io::Reader`].
const STREAM_DEPTH: usize = 16;

/// Opens a binary file (PGC, or CBF with its CBI: open errors come back
/// here) and reads it on a thread of its own, handing games and problems
/// over a bounded channel: memory holds a few games whatever the file's
/// size. Dropping the receiver stops the reading at the next item.
pub(crate) fn stream_binary(
    input: &Input,
    format: Format,
) -> Result<(Receiver<Streamed>, JoinHandle<()>), OpenError> {
    spawn_reader(Opened::open(input, format)?, &input.name)
}

/// As [`stream_binary`], for PGC bytes already read (stdin, whose first
/// bytes were taken to tell its format: see [`Bytes::read`]).
pub(crate) fn stream_pgc_bytes(
    name: &str,
    data: Bytes,
) -> Result<(Receiver<Streamed>, JoinHandle<()>), OpenError> {
    let name = name.to_owned();
    spawn_reader(
        Opened::Pgc {
            data,
            name: name.clone(),
        },
        &name,
    )
}

fn spawn_reader(
    opened: Opened,
    name: &str,
) -> Result<(Receiver<Streamed>, JoinHandle<()>), OpenError> {
    let (tx, rx) = sync_channel(STREAM_DEPTH);
    let thread = std::thread::Builder::new()
        .name("gamerec-binary-reader".into())
        .spawn(move || {
            let mut opened = opened;
            opened.read(&mut |item| match tx.send(item) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            })
        })
        .map_err(|e| OpenError::new(name.to_owned(), e))?;
    Ok((rx, thread))
}

/// A binary file's bytes, opened for reading game by game.
enum Opened {
    Pgc {
        data: Bytes,
        name: String,
    },
    Cbf {
        cbf: Bytes,
        cbi: Bytes,
        cbf_name: String,
        cbi_name: String,
    },
}

impl Opened {
    fn open(input: &Input, format: Format) -> Result<Opened, OpenError> {
        if format != Format::Cbf {
            return Ok(Opened::Pgc {
                data: Bytes::open(input)?,
                name: input.name.clone(),
            });
        }
        let Some(path) = &input.path else {
            return Err(OpenError::new(
                input.name.clone(),
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "CBF is read from a .cbf/.cbi pair of files, not from stdin",
                ),
            ));
        };
        let (cbf_path, cbi_path) = cbf_pair_to_read(path);
        Ok(Opened::Cbf {
            cbi: Bytes::open(&Input::file(&cbi_path))?,
            cbf: Bytes::open(&Input::file(&cbf_path))?,
            cbf_name: name_of(&cbf_path),
            cbi_name: name_of(&cbi_path),
        })
    }

    /// Reads every game, handing games and problems to `each` until it
    /// says stop, then the error that cut the input short if there was
    /// one; mapped pages are given back every few thousand games.
    fn read(&mut self, each: &mut dyn FnMut(Streamed) -> ControlFlow<()>) {
        let mut games = 0u64;
        let stopped = std::cell::Cell::new(false);
        let mut each = |item| {
            let flow = each(item);
            stopped.set(stopped.get() || flow.is_break());
            flow
        };
        let each = &mut each;
        match &*self {
            Opened::Cbf {
                cbf,
                cbi,
                cbf_name,
                cbi_name,
            } => chessbase::reader::read_cbf_passing(
                cbi.bytes(),
                cbf.bytes(),
                &mut |item| match item {
                    ReadItem::Game(g) => {
                        games += 1;
                        if games.is_multiple_of(RELEASE_EVERY) {
                            cbf.release();
                            cbi.release();
                        }
                        each(Streamed::Game(g))
                    }
                    ReadItem::Issue(issue) => each(Streamed::Diagnostic(issue_diagnostic(
                        &issue,
                        cbf_name,
                        Some(cbi_name),
                    ))),
                },
                RELEASE_BYTES,
                &mut || {
                    cbf.release();
                    cbi.release();
                },
            ),
            Opened::Pgc { data, name } => pgc::read_pgc_passing(
                data.bytes(),
                &mut |item| match item {
                    pgc::ReadItem::Game(g) => {
                        games += 1;
                        if games.is_multiple_of(RELEASE_EVERY) {
                            data.release();
                        }
                        each(Streamed::Game(g))
                    }
                    pgc::ReadItem::Issue(issue) => {
                        each(Streamed::Diagnostic(issue_diagnostic(&issue, name, None)))
                    }
                },
                RELEASE_BYTES,
                &mut || data.release(),
            ),
        }
        if !stopped.get()
            && let Some(cut) = self.take_cut()
        {
            // The last item: whether the caller would stop changes nothing.
            let _last = each(Streamed::Cut(cut));
        }
    }

    /// The error that cut a decompressed input short, naming its file.
    fn take_cut(&mut self) -> Option<OpenError> {
        match self {
            Opened::Pgc { data, name } => data.take_cut().map(|e| OpenError::new(name.as_str(), e)),
            Opened::Cbf {
                cbf,
                cbi,
                cbf_name,
                cbi_name,
            } => cbi
                .take_cut()
                .map(|e| OpenError::new(cbi_name.as_str(), e))
                .or_else(|| cbf.take_cut().map(|e| OpenError::new(cbf_name.as_str(), e))),
        }
    }
}

/// What [`check_binary`] counted.
#[derive(Debug, Default)]
pub struct BinaryCheck {
    /// Games read (an FBK file is one game: its tree).
    pub games: u64,
    /// Moves read, variations included.
    pub moves: u64,
    /// The error that cut a compressed input short: the counts are those
    /// of the bytes before it.
    pub cut: Option<OpenError>,
}

/// Checks a binary file (PGC, CBF/CBI, FBK) in bounded memory: games are
/// counted and dropped one by one, an FBK tree is walked without being
/// built. Problems go to `on_diagnostic`.
pub fn check_binary(
    input: &Input,
    format: Format,
    on_diagnostic: &mut dyn FnMut(Diagnostic),
) -> Result<BinaryCheck, OpenError> {
    let mut check = BinaryCheck::default();
    if format == Format::Fbk {
        let mut data = Bytes::open(input)?;
        check.moves = chessbase::fbk::check_fbk_passing(
            data.bytes(),
            &mut |issue| on_diagnostic(issue_diagnostic(&issue, &input.name, None)),
            RELEASE_BYTES,
            &mut || data.release(),
        );
        check.games = u64::from(!data.bytes().is_empty());
        check.cut = data
            .take_cut()
            .map(|e| OpenError::new(input.name.as_str(), e));
        return Ok(check);
    }
    let mut opened = Opened::open(input, format)?;
    opened.read(&mut |item| {
        match item {
            Streamed::Game(g) => {
                check.games += 1;
                check.moves += g.tree.len() as u64 - 1;
            }
            Streamed::Diagnostic(d) => on_diagnostic(d),
            Streamed::Cut(e) => check.cut = Some(e),
        }
        ControlFlow::Continue(())
    });
    Ok(check)
}

fn name_of(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgc_and_fbk_are_checked_with_byte_offsets() {
        let dir = gamerec_testkit::temp_dir("io-binary");
        let bad = dir.join("bad.pgc");
        std::fs::write(&bad, [0x05, 0x03, 0x01, 0x63]).expect("write");
        let mut shown = Vec::new();
        let check = check_binary(&Input::file(&bad), Format::Pgc, &mut |d| {
            shown.push(d.to_string())
        })
        .expect("reads");
        assert_eq!(check.games, 1);
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown
                .iter()
                .any(|s| s.contains("byte 3") && s.contains("game 1: move ordinal 99")),
            "{shown:?}"
        );
        let missing = check_binary(
            &Input::file(&dir.join("nope.fbk")),
            Format::Fbk,
            &mut |_| {},
        );
        assert!(missing.is_err());
    }
}
