//! The binary formats (PGC, ChessBase CBF/CBI, FBK) read game by game.
//!
//! A plain file is mapped read-only and its pages are given back every few
//! thousand games, so memory stays at one game whatever the file's size; a
//! compressed file (or stdin) is decompressed into memory first. Each game
//! goes to the caller and is dropped when the callback returns. FBK files
//! hold one tree, so [`check_binary`] walks them without building it.

use std::fs::File;
use std::path::Path;

use super::Format;
use super::input::{Input, OpenError};
use super::read::{cbf_pair, issue_diagnostic};
use crate::chessbase::{self, ReadItem};
use crate::diag::Diagnostic;
use crate::model::Game;
use crate::pgc;

/// Games read between two releases of the mapped pages.
const RELEASE_EVERY: u64 = 4096;

/// An input's bytes: a read-only mapping of a plain file, or the
/// decompressed contents of anything else.
struct Bytes {
    map: Option<memmap2::Mmap>,
    owned: Vec<u8>,
}

impl Bytes {
    fn open(input: &Input) -> Result<Bytes, OpenError> {
        if let Some((file, len)) = input.open_plain()? {
            return Ok(Bytes {
                map: Some(map(&file, len, &input.name)?),
                owned: Vec::new(),
            });
        }
        Ok(Bytes {
            map: None,
            owned: input.read_all()?,
        })
    }

    fn bytes(&self) -> &[u8] {
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

/// Reads a PGC file or a CBF/CBI pair game by game: `on_game` gets each
/// game (dropped when it returns), `on_diagnostic` each problem (with path
/// and byte offset). `format` is [`Format::Pgc`] or [`Format::Cbf`] (a
/// `.cbf` or `.cbi` path names the pair); FBK is one tree, read with
/// [`crate::io::Reader`].
pub fn read_binary_each(
    input: &Input,
    format: Format,
    on_game: &mut dyn FnMut(Game),
    on_diagnostic: &mut dyn FnMut(Diagnostic),
) -> Result<(), OpenError> {
    let mut games = 0u64;
    match format {
        Format::Cbf => {
            let Some(path) = &input.path else {
                return Err(OpenError::new(
                    input.name.clone(),
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "CBF is read from a .cbf/.cbi pair of files, not from stdin",
                    ),
                ));
            };
            let (cbf_path, cbi_path) = cbf_pair(path);
            let cbi = Bytes::open(&Input::file(&cbi_path))?;
            let cbf = Bytes::open(&Input::file(&cbf_path))?;
            let (cbf_name, cbi_name) = (name_of(&cbf_path), name_of(&cbi_path));
            chessbase::read_cbf_each(cbi.bytes(), cbf.bytes(), &mut |item| match item {
                ReadItem::Game(g) => {
                    on_game(g);
                    games += 1;
                    if games.is_multiple_of(RELEASE_EVERY) {
                        cbf.release();
                        cbi.release();
                    }
                }
                ReadItem::Issue(issue) => {
                    on_diagnostic(issue_diagnostic(&issue, &cbf_name, Some(&cbi_name)));
                }
            });
        }
        _ => {
            let data = Bytes::open(input)?;
            pgc::read_pgc_each(data.bytes(), &mut |item| match item {
                pgc::ReadItem::Game(g) => {
                    on_game(g);
                    games += 1;
                    if games.is_multiple_of(RELEASE_EVERY) {
                        data.release();
                    }
                }
                pgc::ReadItem::Issue(issue) => {
                    on_diagnostic(issue_diagnostic(&issue, &input.name, None));
                }
            });
        }
    }
    Ok(())
}

/// What [`check_binary`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinaryCheck {
    /// Games read (an FBK file is one game: its tree).
    pub games: u64,
    /// Moves read, variations included.
    pub moves: u64,
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
        let data = Bytes::open(input)?;
        let fbk = chessbase::check_fbk(data.bytes());
        check.games = u64::from(!data.bytes().is_empty());
        check.moves = fbk.moves;
        for issue in &fbk.issues {
            on_diagnostic(issue_diagnostic(issue, &input.name, None));
        }
        return Ok(check);
    }
    read_binary_each(
        input,
        format,
        &mut |g| {
            check.games += 1;
            check.moves += g.tree.len() as u64 - 1;
        },
        on_diagnostic,
    )?;
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
        let dir = std::env::temp_dir().join(format!("gamerec-io-binary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
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
