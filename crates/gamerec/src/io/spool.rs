//! Text produced ahead of its turn to be printed (a report of one file in a
//! bulk check, made on a worker thread while an earlier file's report is
//! still being printed), kept in memory up to a bound and past it in an
//! unnamed temporary file: memory stays bounded however much one input has
//! to say.
//!
//! Writing to a [`Spool`] does not fail: the first error of its temporary
//! file is kept, later bytes are dropped, and [`Spool::copy_to`] returns
//! that error, so it is reported where the text would have been printed.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes a [`Spool`] keeps in memory by default before it moves to a file.
pub const DEFAULT_LIMIT: usize = 1 << 20;

/// A byte buffer in memory up to a bound, then in a temporary file (see
/// the module documentation).
#[derive(Debug)]
pub struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
    limit: usize,
    /// Where the temporary file goes (`None`: `$TMPDIR`, looked up only
    /// when a file is made: most texts stay in memory).
    dir: Option<PathBuf>,
    error: Option<io::Error>,
}

impl Default for Spool {
    fn default() -> Spool {
        Spool::new()
    }
}

impl Spool {
    /// An empty spool of [`DEFAULT_LIMIT`] bytes in memory, then a file in
    /// the temporary directory (`$TMPDIR`).
    pub fn new() -> Spool {
        Spool {
            memory: Vec::new(),
            file: None,
            limit: DEFAULT_LIMIT,
            dir: None,
            error: None,
        }
    }

    /// An empty spool of `limit` bytes in memory, then a file in `dir`.
    pub fn with_limit(dir: impl Into<PathBuf>, limit: usize) -> Spool {
        Spool {
            limit,
            dir: Some(dir.into()),
            ..Spool::new()
        }
    }

    /// The directory of the temporary file.
    fn dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// Whether the text went past memory into a temporary file.
    pub fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Writes the text to `out`. Fails with the first error of the
    /// temporary file (and writes nothing) if it had one.
    pub fn copy_to(self, out: &mut impl Write) -> Result<(), CopyError> {
        if let Some(e) = self.error {
            return Err(CopyError::Spool(e));
        }
        if let Some(file) = self.file {
            // Set when the file was made.
            let dir = self.dir.unwrap_or_else(std::env::temp_dir);
            let mut file = file
                .into_inner()
                .map_err(|e| CopyError::Spool(at(&dir, e.into_error())))?;
            file.rewind().map_err(|e| CopyError::Spool(at(&dir, e)))?;
            copy_file(&mut file, out, &dir)?;
        }
        out.write_all(&self.memory).map_err(CopyError::Output)
    }

    /// Moves the text from memory to a new temporary file.
    fn spill(&mut self) -> io::Result<()> {
        let dir = self.dir();
        let mut file = BufWriter::with_capacity(1 << 16, unnamed_file(&dir)?);
        file.write_all(&self.memory).map_err(|e| at(&dir, e))?;
        self.dir = Some(dir);
        self.memory = Vec::new();
        self.file = Some(file);
        Ok(())
    }
}

/// Why [`Spool::copy_to`] failed.
#[derive(Debug)]
pub enum CopyError {
    /// The temporary file could not be made, written or read back (the
    /// message names its directory).
    Spool(io::Error),
    /// Writing to the output failed.
    Output(io::Error),
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopyError::Spool(e) | CopyError::Output(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CopyError {}

/// Copies `file` to `out`.
fn copy_file(file: &mut File, out: &mut impl Write, dir: &Path) -> Result<(), CopyError> {
    let mut buf = vec![0; 1 << 16];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Spool(at(dir, e))),
        };
        out.write_all(&buf[..n]).map_err(CopyError::Output)?;
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(bytes.len());
        }
        if self.file.is_none()
            && self.memory.len() + bytes.len() > self.limit
            && let Err(e) = self.spill()
        {
            self.error = Some(e);
            self.memory = Vec::new();
            return Ok(bytes.len());
        }
        match &mut self.file {
            Some(file) => {
                if let Err(e) = file.write_all(bytes) {
                    self.error = Some(at(&self.dir(), e));
                }
            }
            None => self.memory.extend_from_slice(bytes),
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `e` naming a temporary file in `dir`.
pub(crate) fn at(dir: &Path, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("temporary file in {}: {e}", dir.display()),
    )
}

/// A new temporary file in `dir`, already removed from it (it lives while
/// open; nothing is left behind whatever happens next).
pub(crate) fn unnamed_file(dir: &Path) -> io::Result<File> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".gamerec-spool-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                std::fs::remove_file(&path).map_err(|e| at(dir, e))?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(at(dir, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` written in pieces of `piece` bytes through a spool of `limit`.
    fn spooled(text: &[u8], piece: usize, limit: usize, dir: &Path) -> (Vec<u8>, bool) {
        let mut spool = Spool::with_limit(dir, limit);
        for chunk in text.chunks(piece) {
            spool.write_all(chunk).expect("never fails");
        }
        let spilled = spool.spilled();
        let mut out = Vec::new();
        spool.copy_to(&mut out).expect("copies");
        (out, spilled)
    }

    #[test]
    fn text_comes_back_whole_in_memory_or_from_the_file() {
        let dir = gamerec_testkit::temp_dir("spool");
        let text: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        for (piece, limit) in [(1, 10), (7, 1000), (4096, 1 << 20), (999, 0), (1, 1 << 30)] {
            let (out, spilled) = spooled(&text, piece, limit, &dir);
            assert!(out == text, "piece {piece}, limit {limit}");
            assert_eq!(spilled, text.len() > limit, "piece {piece}, limit {limit}");
        }
        // The temporary files are unnamed: nothing is left in the directory.
        let left: Vec<_> = std::fs::read_dir(&dir).expect("lists").collect();
        assert!(left.is_empty(), "{left:?}");
        let (out, spilled) = spooled(b"", 1, 0, &dir);
        assert!(out.is_empty() && !spilled);
    }

    #[test]
    fn a_temporary_file_that_cannot_be_made_is_reported_when_copied() {
        let missing = gamerec_testkit::temp_dir("spool-missing").join("no-such-dir");
        let mut spool = Spool::with_limit(&missing, 4);
        spool.write_all(b"abc").expect("in memory");
        spool.write_all(b"defgh").expect("never fails");
        spool.write_all(b"ijk").expect("never fails");
        let mut out = Vec::new();
        let e = spool
            .copy_to(&mut out)
            .expect_err("the file could not be made");
        assert!(matches!(&e, CopyError::Spool(_)), "{e:?}");
        assert!(e.to_string().contains("no-such-dir"), "{e}");
        assert!(out.is_empty(), "nothing printed after the error");
    }
}
