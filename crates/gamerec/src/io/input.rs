//! Inputs: a path or stdin, decompressed by magic bytes.

use std::ffi::OsStr;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Compression, Format};

/// An input that could not be opened or read: `PATH: reason`, with the
/// operating system's error kept as the source.
#[derive(Debug)]
pub struct OpenError {
    /// The input's name (a path, or `<stdin>`).
    pub name: String,
    /// What went wrong.
    pub source: io::Error,
}

impl OpenError {
    /// `source` about input `name`.
    pub fn new(name: impl Into<String>, source: io::Error) -> OpenError {
        OpenError {
            name: name.into(),
            source,
        }
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.source)
    }
}

/// The operating system's error is part of the message (and kept in
/// [`OpenError::source`]), not a separate cause: shown once.
impl std::error::Error for OpenError {}

impl From<OpenError> for io::Error {
    fn from(e: OpenError) -> io::Error {
        io::Error::new(e.source.kind(), e)
    }
}

/// One input: a file, or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file, `None` for stdin.
    pub path: Option<PathBuf>,
    /// How diagnostics name it: the path as given, or `<stdin>`.
    pub name: String,
}

impl Input {
    /// An input from a command-line argument (`-` is stdin).
    pub fn from_arg(arg: &OsStr) -> Input {
        if arg == "-" {
            return Input::stdin();
        }
        Input::file(Path::new(arg))
    }

    /// A file.
    pub fn file(path: &Path) -> Input {
        Input {
            path: Some(path.to_path_buf()),
            name: path.display().to_string(),
        }
    }

    /// Standard input.
    pub fn stdin() -> Input {
        Input {
            path: None,
            name: "<stdin>".into(),
        }
    }

    /// Inputs from command-line arguments.
    pub fn from_args(args: &[std::ffi::OsString]) -> Vec<Input> {
        args.iter().map(|a| Input::from_arg(a)).collect()
    }

    /// The format its name announces (`None` for stdin or no known extension).
    pub fn format_by_name(&self) -> Option<Format> {
        self.path.as_deref().and_then(Format::from_path)
    }

    /// The input's format: by its name, else (stdin) by its first bytes,
    /// which stay in stdin's buffer for the reader (`None`: compressed
    /// stdin, or nothing recognisable; readers then take PGN).
    pub fn format(&self) -> Option<Format> {
        if self.path.is_some() {
            return self.format_by_name();
        }
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        let head = lock.fill_buf().ok()?;
        Format::sniff(head)
    }

    /// The size on disk (`None` for stdin and unreadable files).
    pub fn size(&self) -> Option<u64> {
        let path = self.path.as_ref()?;
        std::fs::metadata(path).ok().map(|m| m.len())
    }

    /// Opens the raw bytes (no decompression): the file, or stdin. A
    /// directory is refused here, with its path.
    pub fn open_raw(&self) -> Result<Box<dyn Read + Send>, OpenError> {
        let Some(path) = &self.path else {
            return Ok(Box::new(io::stdin()));
        };
        let fail = |e| OpenError::new(self.name.clone(), e);
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        if meta.is_dir() {
            return Err(fail(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        Ok(Box::new(file))
    }

    /// Opens the input decompressed (gzip, bzip2 and zstd by magic bytes).
    /// `read_bytes`, if given, counts the raw bytes read (for progress).
    pub fn open(
        &self,
        read_bytes: Option<Arc<AtomicU64>>,
    ) -> Result<Box<dyn BufRead + Send>, OpenError> {
        let raw = self.open_raw()?;
        let raw: Box<dyn Read + Send> = match read_bytes {
            Some(counter) => Box::new(Counting {
                inner: raw,
                counter,
            }),
            None => raw,
        };
        decompress(raw).map_err(|e| OpenError::new(self.name.clone(), e))
    }

    /// The input as a plain file to map, with its length: `None` for stdin,
    /// compressed files, empty files and anything that is not a regular file
    /// (pipes, devices), which are read in order; and off Unix, where mapped
    /// pages cannot be given back as the reading passes them.
    pub fn open_plain(&self) -> Result<Option<(File, u64)>, OpenError> {
        let Some(path) = self.path.as_ref().filter(|_| cfg!(unix)) else {
            return Ok(None);
        };
        let fail = |e| OpenError::new(self.name.clone(), e);
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        if meta.is_dir() {
            return Err(fail(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        // Empty by its size: nothing to map, or a file whose size says
        // nothing (those of /proc): read in order.
        if !meta.is_file() || meta.len() == 0 {
            return Ok(None);
        }
        let mut head = Vec::with_capacity(4);
        (&file).take(4).read_to_end(&mut head).map_err(fail)?;
        if Compression::sniff(&head) != Compression::None {
            return Ok(None);
        }
        Ok(Some((file, meta.len())))
    }

    /// Whether `other` names this input's file (an existing file, by its
    /// identity: links and other spellings of the path count).
    pub fn is_same_file(&self, other: &Path) -> bool {
        let Some(path) = &self.path else {
            return false;
        };
        match (std::fs::metadata(path), std::fs::metadata(other)) {
            #[cfg(unix)]
            (Ok(a), Ok(b)) => {
                use std::os::unix::fs::MetadataExt;
                (a.dev(), a.ino()) == (b.dev(), b.ino())
            }
            #[cfg(not(unix))]
            (Ok(_), Ok(_)) => std::fs::canonicalize(path).ok() == std::fs::canonicalize(other).ok(),
            _ => false,
        }
    }

    /// Reads the whole input (decompressed) into memory.
    pub fn read_all(&self) -> Result<Vec<u8>, OpenError> {
        let mut data = Vec::new();
        self.open(None)?
            .read_to_end(&mut data)
            .map_err(|e| OpenError::new(self.name.clone(), e))?;
        Ok(data)
    }
}

/// Wraps `raw` in the decoder its magic bytes call for (a buffered reader
/// either way).
pub fn decompress(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf()?;
    let decoder: Box<dyn Read + Send> = match Compression::sniff(head) {
        Compression::None => return Ok(Box::new(buffered)),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(buffered)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(buffered)),
        // Several frames decode on several threads (`pzstd`'s files).
        Compression::Zstd if super::frames::worth_it() => {
            return Ok(Box::new(super::frames::parallel_zstd(Box::new(buffered))?));
        }
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
    };
    Ok(Box::new(DecodeAhead::spawn(decoder)?))
}

/// Bytes of one block the decoding thread hands over.
const AHEAD_BLOCK: usize = 1 << 20;
/// Blocks decoded ahead of the reader (besides the one being read and the
/// one being filled).
const AHEAD_BLOCKS: usize = 2;

/// A decompressed stream decoded on a thread of its own, up to
/// [`AHEAD_BLOCKS`] blocks of [`AHEAD_BLOCK`] bytes ahead of the reader, so
/// that decoding and parsing overlap. The first error ends the stream after
/// the bytes before it; memory is bounded by the blocks in flight. Dropping
/// the reader ends the thread at its next block.
struct DecodeAhead {
    blocks: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    spent: std::sync::mpsc::SyncSender<Vec<u8>>,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

impl DecodeAhead {
    fn spawn(mut decoder: Box<dyn Read + Send>) -> io::Result<DecodeAhead> {
        use std::sync::mpsc::{TryRecvError, sync_channel};
        let (tx, blocks) = sync_channel::<io::Result<Vec<u8>>>(AHEAD_BLOCKS);
        let (spent, recycled) = sync_channel::<Vec<u8>>(AHEAD_BLOCKS + 1);
        let decode = move || {
            loop {
                // A spent block keeps its length: refilled without zeroing.
                let mut block = match recycled.try_recv() {
                    Ok(b) => b,
                    Err(TryRecvError::Empty) => Vec::with_capacity(AHEAD_BLOCK),
                    Err(TryRecvError::Disconnected) => return,
                };
                let (ended, error) = match fill_block(&mut decoder, &mut block) {
                    Ok(full) => (!full, None),
                    Err(e) => (true, Some(e)),
                };
                // The bytes before an end or an error go first.
                if !block.is_empty() && tx.send(Ok(block)).is_err() {
                    return;
                }
                if let Some(e) = error {
                    // The reader may be gone: then nobody wants the error.
                    tx.send(Err(e)).ok();
                }
                if ended {
                    return;
                }
            }
        };
        std::thread::Builder::new()
            .name("gamerec-decode".into())
            .spawn(decode)?;
        Ok(DecodeAhead {
            blocks,
            spent,
            block: Vec::new(),
            at: 0,
            done: false,
        })
    }
}

/// Reads from `decoder` into `block` up to [`AHEAD_BLOCK`] bytes: `true`
/// when the block is full, `false` at the end of the stream.
pub(super) fn fill_block(decoder: &mut dyn Read, block: &mut Vec<u8>) -> io::Result<bool> {
    block.resize(AHEAD_BLOCK, 0);
    let mut n = 0;
    let result = loop {
        if n == AHEAD_BLOCK {
            break Ok(true);
        }
        match decoder.read(&mut block[n..]) {
            Ok(0) => break Ok(false),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    block.truncate(n);
    result
}

impl Read for DecodeAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl BufRead for DecodeAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.block.len() && !self.done {
            match self.blocks.recv() {
                Ok(Ok(next)) => {
                    let old = std::mem::replace(&mut self.block, next);
                    self.at = 0;
                    // A full queue of spent blocks: this one is freed instead.
                    self.spent.try_send(old).ok();
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.block.len());
    }
}

/// `Read::read` of a reader whose bytes are in its `BufRead` buffer.
pub(super) fn read_buffered(reader: &mut impl BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let n = {
        let have = reader.fill_buf()?;
        let n = have.len().min(buf.len());
        buf[..n].copy_from_slice(&have[..n]);
        n
    };
    reader.consume(n);
    Ok(n)
}

/// The error that ended a stream read through [`EndAtError`].
pub type Cut = Arc<std::sync::Mutex<Option<io::Error>>>;

/// A reader that ends (reads 0 bytes) at its first error and keeps the
/// error in [`EndAtError::cut`]: what came before a cut in a truncated
/// compressed file is read to its end like a whole input, and the error is
/// reported afterwards.
pub struct EndAtError<R> {
    inner: R,
    cut: Cut,
}

impl<R> EndAtError<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> EndAtError<R> {
        EndAtError {
            inner,
            cut: Cut::default(),
        }
    }

    /// Where the error will be, once there is one.
    pub fn cut(&self) -> Cut {
        self.cut.clone()
    }
}

impl<R: Read> Read for EndAtError<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if let Ok(mut cut) = self.cut.lock() {
                        cut.get_or_insert(e);
                    }
                    return Ok(0);
                }
                ok => return ok,
            }
        }
    }
}

/// The error kept in `cut`, if the stream ended at one.
pub fn take_cut(cut: &Cut) -> Option<io::Error> {
    cut.lock().ok().and_then(|mut c| c.take())
}

/// Counts the bytes read through `inner` into `counter` (for progress).
pub fn counting<'a>(
    inner: Box<dyn Read + Send + 'a>,
    counter: Arc<AtomicU64>,
) -> Box<dyn Read + Send + 'a> {
    Box::new(Counting { inner, counter })
}

struct Counting<'a> {
    inner: Box<dyn Read + Send + 'a>,
    counter: Arc<AtomicU64>,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn decompresses_by_magic() {
        let text = b"1. e4 e5 *\n".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let z = zstd::encode_all(&text[..], 3).unwrap();
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bz.write_all(&text).unwrap();
        for bytes in [gz.finish().unwrap(), z, bz.finish().unwrap(), text.clone()] {
            let mut out = Vec::new();
            decompress(Box::new(io::Cursor::new(bytes)))
                .unwrap()
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, text);
        }
    }

    #[test]
    fn decodes_ahead_over_many_blocks_and_members() {
        // Three gzip members and two zstd frames, each over a block, read
        // through a small buffer: the bytes come out whole and in order.
        let text: Vec<u8> = (0..(AHEAD_BLOCK * 3 / 2))
            .map(|i| b"1. e4 e5 2. Nf3 *\n"[i % 18])
            .collect();
        let mut gz = Vec::new();
        let mut z = Vec::new();
        for part in [&text[..], &text[..7], &text[..]] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part).unwrap();
            gz.extend(e.finish().unwrap());
        }
        for part in [&text[..], &text[..]] {
            z.extend(zstd::encode_all(part, 1).unwrap());
        }
        let mut want = [&text[..], &text[..7], &text[..]].concat();
        for (bytes, want) in [(gz, want.clone()), (z, text.repeat(2))] {
            let mut r = decompress(Box::new(io::Cursor::new(bytes))).unwrap();
            let mut out = Vec::new();
            let mut buf = [0u8; 1000];
            loop {
                match r.read(&mut buf).unwrap() {
                    0 => break,
                    n => out.extend_from_slice(&buf[..n]),
                }
            }
            assert_eq!(out.len(), want.len());
            assert!(out == want);
        }
        // A truncated stream: the bytes before the cut, then its error.
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&text).unwrap();
        let mut gz = e.finish().unwrap();
        gz.truncate(gz.len() / 2);
        let mut r = decompress(Box::new(io::Cursor::new(gz))).unwrap();
        want.clear();
        let err = r.read_to_end(&mut want).expect_err("truncated");
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
        assert!(!want.is_empty() && text.starts_with(&want));
        assert_eq!(r.read(&mut [0u8; 10]).unwrap(), 0);
    }

    #[test]
    fn missing_files_and_directories_name_their_path_once() {
        let e = Input::file(Path::new("/nonexistent/nope.pgn"))
            .open(None)
            .err()
            .expect("fails");
        assert!(e.to_string().starts_with("/nonexistent/nope.pgn: "), "{e}");
        assert_eq!(e.to_string().matches("nope.pgn").count(), 1);
        let e = Input::file(&std::env::temp_dir())
            .open(None)
            .err()
            .expect("fails");
        assert!(e.to_string().ends_with(": is a directory"), "{e}");
        assert!(Input::file(&std::env::temp_dir()).open_plain().is_err());
    }
}
