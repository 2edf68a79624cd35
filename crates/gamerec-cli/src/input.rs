//! Input and output handling shared by every verb: paths or `-` (stdin),
//! transparent `.gz`, `.bz2` and `.zst` decompression (recognised by their
//! magic bytes, so compressed stdin works too), and the record format of an
//! input from its file extension with any compression suffix ignored.
//!
//! ```text
//! games.pgn      -> Format::Pgn        games.pgn.zst -> Format::Pgn (zstd)
//! tests.epd.gz   -> Format::Epd        -             -> Format::Unknown (stdin)
//! ```

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A record format, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Portable Game Notation (`.pgn`).
    Pgn,
    /// Extended Position Description (`.epd`).
    Epd,
    /// Portable Game Notation Compressed (`.pgc`).
    Pgc,
    /// ChessBase DOS game files (`.cbf`, `.cbi`).
    ChessBase,
    /// ChessBase opening books (`.fbk`).
    Fbk,
    /// Smart Game Format (`.sgf`).
    Sgf,
    /// JSON Lines (`.json`, `.jsonl`): gamerec's own export.
    Json,
    /// No or unknown extension (stdin included): verbs treat it as text PGN.
    Unknown,
}

impl Format {
    /// The format of `path` by extension, ignoring `.gz`, `.bz2`, `.zst`.
    pub fn of_path(path: &Path) -> Format {
        let mut path = path.to_path_buf();
        if Compression::of_extension(&path) != Compression::None {
            path.set_extension("");
        }
        let ext = path
            .extension()
            .and_then(OsStr::to_str)
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("pgn") => Format::Pgn,
            Some("epd") => Format::Epd,
            Some("pgc") => Format::Pgc,
            Some("cbf" | "cbi") => Format::ChessBase,
            Some("fbk") => Format::Fbk,
            Some("sgf") => Format::Sgf,
            Some("json" | "jsonl") => Format::Json,
            _ => Format::Unknown,
        }
    }

    /// The format the first bytes of an input show: SGF (`(` then `;`), EPD
    /// (a first line that starts with the four position fields), else
    /// `Unknown` (read as PGN). Compressed bytes are `Unknown` too.
    pub fn of_content(head: &[u8]) -> Format {
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        let start = head.iter().position(|b| !b.is_ascii_whitespace());
        let Some(head) = start.map(|i| &head[i..]) else {
            return Format::Unknown;
        };
        if let Some(rest) = head.strip_prefix(b"(") {
            let rest = rest.trim_ascii_start();
            if rest.first() == Some(&b';') {
                return Format::Sgf;
            }
        }
        let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
        let mut fields = line
            .split(u8::is_ascii_whitespace)
            .filter(|f| !f.is_empty());
        let placement = fields.next().unwrap_or_default();
        let turn = fields.next().unwrap_or_default();
        let looks_like_position = placement.iter().filter(|&&b| b == b'/').count() == 7
            && placement
                .iter()
                .all(|b| b"/12345678pnbrqkPNBRQK".contains(b))
            && matches!(turn, b"w" | b"b")
            && fields.count() >= 2;
        if looks_like_position {
            Format::Epd
        } else {
            Format::Unknown
        }
    }

    /// The format of standard input by its first bytes ([`Format::of_content`]),
    /// without consuming them: they stay in stdin's buffer for the reader.
    pub fn of_stdin() -> Format {
        match io::stdin().lock().fill_buf() {
            Ok(head) => Format::of_content(head),
            Err(_) => Format::Unknown,
        }
    }
}

/// A compression wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`.gz`), concatenated members included.
    Gzip,
    /// bzip2 (`.bz2`), concatenated streams included.
    Bzip2,
    /// Zstandard (`.zst`).
    Zstd,
}

impl Compression {
    /// The compression a file name announces.
    pub fn of_extension(path: &Path) -> Compression {
        match path.extension().and_then(OsStr::to_str) {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The compression the first bytes of a stream show.
    pub fn of_magic(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// One input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file, `None` for stdin.
    pub path: Option<PathBuf>,
    /// How diagnostics name it: the path as given, or `<stdin>`.
    pub name: String,
    /// Its format by extension.
    pub format: Format,
}

impl Input {
    /// An input from a command-line argument (`-` is stdin).
    pub fn from_arg(arg: &OsStr) -> Input {
        if arg == "-" {
            return Input {
                path: None,
                name: "<stdin>".into(),
                format: Format::Unknown,
            };
        }
        let path = PathBuf::from(arg);
        Input {
            name: path.display().to_string(),
            format: Format::of_path(&path),
            path: Some(path),
        }
    }

    /// Inputs from arguments.
    pub fn from_args(args: &[OsString]) -> Vec<Input> {
        args.iter().map(|a| Input::from_arg(a)).collect()
    }

    /// The size in bytes on disk (compressed), if known.
    pub fn size(&self) -> Option<u64> {
        std::fs::metadata(self.path.as_ref()?).ok().map(|m| m.len())
    }

    /// Opens the input, decompressing transparently. `read_bytes` (if any)
    /// counts the raw bytes read, for progress reports.
    pub fn open(&self, read_bytes: Option<Arc<AtomicU64>>) -> io::Result<Box<dyn Read + Send>> {
        let raw: Box<dyn Read + Send> = match &self.path {
            Some(path) => Box::new(
                File::open(path)
                    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?,
            ),
            None => Box::new(io::stdin()),
        };
        let raw: Box<dyn Read + Send> = match read_bytes {
            Some(counter) => Box::new(Counting {
                inner: raw,
                counter,
            }),
            None => raw,
        };
        decompress(raw)
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
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        let mut data = Vec::new();
        self.open(None)?.read_to_end(&mut data)?;
        Ok(data)
    }

    /// Reads every PGN game of the input into owned games, printing each
    /// problem to `err` as `name:line:col: severity: message` (warnings
    /// only when not `quiet`). Returns the games and the number of errors.
    pub fn read_pgn_games(
        &self,
        quiet: bool,
        err: &mut dyn Write,
    ) -> io::Result<(Vec<gamerec::model::Game>, u64)> {
        let data = self.read_all()?;
        let (games, problems) = gamerec::pgn::read_games(&data);
        let mut errors = 0;
        if !problems.is_empty() {
            let index = gamerec::diag::LineIndex::new(&data);
            for p in &problems {
                if p.severity == gamerec::diag::Severity::Error {
                    errors += 1;
                } else if quiet {
                    continue;
                }
                let at = index.line_col(p.offset);
                writeln!(err, "{}:{at}: {}: {}", self.name, p.severity, p.message)?;
            }
        }
        Ok((games, errors))
    }
}

/// Wraps `raw` in the decoder its magic bytes call for.
pub fn decompress(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf()?;
    Ok(match Compression::of_magic(head) {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(buffered)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(buffered)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
    })
}

struct Counting {
    inner: Box<dyn Read + Send>,
    counter: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens the output: a file, or stdout for `None` or `-`.
pub fn open_output(path: Option<&Path>) -> io::Result<Box<dyn Write + Send>> {
    match path {
        Some(p) if p != Path::new("-") => Ok(Box::new(io::BufWriter::with_capacity(
            1 << 16,
            File::create(p)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?,
        ))),
        _ => Ok(Box::new(io::BufWriter::with_capacity(
            1 << 16,
            io::stdout(),
        ))),
    }
}

/// Whether an I/O error is a closed pipe (which the CLI treats as success).
pub fn is_broken_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_ignores_compression_suffix() {
        assert_eq!(Format::of_path(Path::new("a.pgn.zst")), Format::Pgn);
        assert_eq!(Format::of_path(Path::new("a.PGN")), Format::Pgn);
        assert_eq!(Format::of_path(Path::new("b.epd.gz")), Format::Epd);
        assert_eq!(Format::of_path(Path::new("c.sgf.bz2")), Format::Sgf);
        assert_eq!(Format::of_path(Path::new("noext")), Format::Unknown);
        assert_eq!(Input::from_arg(OsStr::new("-")).name, "<stdin>");
    }

    #[test]
    fn format_by_content() {
        assert_eq!(
            Format::of_content(b"\xef\xbb\xbf (\n ;FF[4]SZ[9])"),
            Format::Sgf
        );
        assert_eq!(Format::of_content(b"(;GM[1])"), Format::Sgf);
        assert_eq!(
            Format::of_content(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n"),
            Format::Epd
        );
        assert_eq!(
            Format::of_content(b"8/8/8/8/8/8/8/K1k5 b - - 0 1"),
            Format::Epd,
            "FEN lines are EPD input too"
        );
        assert_eq!(
            Format::of_content(b"[Event \"x\"]\n\n1. e4 *"),
            Format::Unknown
        );
        assert_eq!(Format::of_content(b"1. e4 (1. d4) *"), Format::Unknown);
        assert_eq!(Format::of_content(b"8/8/8 w - -"), Format::Unknown);
        assert_eq!(Format::of_content(b""), Format::Unknown);
        assert_eq!(Format::of_content(&[0x1f, 0x8b, 8, 0]), Format::Unknown);
    }

    #[test]
    fn decompresses_by_magic() {
        let text = b"1. e4 e5 *\n".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let bytes = gz.finish().unwrap();
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(bytes)))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
        let z = zstd::encode_all(&text[..], 3).unwrap();
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(z)))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bz.write_all(&text).unwrap();
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(bz.finish().unwrap())))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
    }
}
