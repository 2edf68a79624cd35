//! One input/output layer for every format (feature `io`, on by default).
//!
//! ```text
//! path or "-" ──Input::open──▶ bytes (gzip/bzip2/zstd undone by magic)
//!                               │
//!          Format (extension, else content) ──▶ Reader ──▶ Item { Record, game, line }
//!                                                             │
//!                                   GameWriter::create(path) ◀┘ (losses as Diagnostics)
//! PGN, plain file ──▶ parallel::read_pgn (mapped, chunked, ordered, bounded)
//! SGF ──▶ read_sgf (the `sgf` collection)
//! ```
//!
//! * [`Format`] knows every format (by extension through a compression
//!   suffix, [`Format::from_path`], and by content, [`Format::sniff`]);
//!   [`Compression`] every compression (by extension and by magic bytes).
//! * [`Input`] is a path or stdin; [`Input::open`] decompresses by magic
//!   bytes, so compressed stdin works too.
//! * [`Reader`] yields the games or records of any chess format as a stream
//!   ([`Record`]: a [`Game`] or an EPD/FEN position), with
//!   [`crate::diag::Diagnostic`]s carrying path, line, column, byte offset
//!   and game number. A file that is clearly not of its format stops after
//!   [`ReadOptions::max_errors`] errors with one diagnostic saying so.
//! * [`GameWriter`] writes any chess format; a CBF path writes its `.cbi`
//!   beside it; whatever the target cannot hold comes back as
//!   [`crate::diag::Code::Loss`] warnings naming the game.
//! * [`spool::Spool`] holds text made ahead of its turn (a bulk check's
//!   report of one file) in bounded memory, then in a temporary file.
//! * [`parallel`] is the parallel chunked PGN reader (ordered results,
//!   bounded memory, a thread count) that `gamerec check` and `convert` use.

pub mod atomic;
pub mod binary;
mod cpu;
pub mod files;
mod frames;
pub mod input;
mod json;
pub mod parallel;
pub mod pipeline;
pub mod read;
pub mod spill;
pub mod spool;
pub mod write;

use std::ffi::OsStr;
use std::fmt;
use std::path::Path;

pub use atomic::{AtomicFile, Output, commit_all, path_error, write_atomic};
pub use binary::{BinaryCheck, check_binary, read_binary_each};
pub use files::{FileBytes, MappedFile, Opener, read_file_into, read_or_map};
pub use input::{Input, OpenError, decompress};
pub use read::{Item, ReadOptions, Reader, Record, read_sgf};
pub use write::{GameWriter, WriteOptions};

#[cfg(doc)]
use crate::model::Game;

/// A record format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Portable Game Notation (`.pgn`).
    Pgn,
    /// gamerec's JSON Lines, one game per line (`.json`, `.jsonl`).
    Json,
    /// Extended Position Description, one record per line (`.epd`).
    Epd,
    /// FEN, one position per line (`.fen`).
    Fen,
    /// PGN Compressed, PGN standard section 20 (`.pgc`).
    Pgc,
    /// ChessBase DOS game file with its index (`.cbf` + `.cbi`).
    Cbf,
    /// ChessBase opening book (`.fbk`).
    Fbk,
    /// Smart Game Format (`.sgf`): not chess; read with [`read_sgf`].
    Sgf,
    /// An Apache Parquet table of games or positions (`.parquet`, `.pq`):
    /// read and written by the `gamerec-arrow` crate, not by [`Reader`].
    Parquet,
    /// An Arrow IPC table of games or positions (`.arrow`, `.feather`,
    /// `.ipc`, `.arrows`): read and written by `gamerec-arrow`.
    Arrow,
}

impl Format {
    /// Every chess format (all but SGF).
    pub const CHESS: [Format; 7] = [
        Format::Pgn,
        Format::Json,
        Format::Epd,
        Format::Fen,
        Format::Pgc,
        Format::Cbf,
        Format::Fbk,
    ];

    /// The format a file name or `--to` value names (`pgn`, `jsonl`, `cbi`, ...; any case).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::from_name_bytes(name.as_bytes())
    }

    /// [`Format::from_name`] of a name's bytes.
    fn from_name_bytes(name: &[u8]) -> Option<Format> {
        // Lowered in place: no name is longer than 7 bytes.
        let mut lower = [0u8; 7];
        lower.get_mut(..name.len())?.copy_from_slice(name);
        let lower = &mut lower[..name.len()];
        lower.make_ascii_lowercase();
        Some(match &*lower {
            b"pgn" => Format::Pgn,
            b"json" | b"jsonl" => Format::Json,
            b"epd" => Format::Epd,
            b"fen" => Format::Fen,
            b"pgc" => Format::Pgc,
            b"cbf" | b"cbi" => Format::Cbf,
            b"fbk" => Format::Fbk,
            b"sgf" => Format::Sgf,
            b"parquet" | b"pq" => Format::Parquet,
            b"arrow" | b"feather" | b"ipc" | b"arrows" => Format::Arrow,
            _ => return None,
        })
    }

    /// The format of `path` by extension, looking through `.gz`, `.bz2`, `.zst`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let mut path = path.to_path_buf();
        if Compression::from_path(&path) != Compression::None {
            path.set_extension("");
        }
        Format::from_name(path.extension().and_then(OsStr::to_str)?)
    }

    /// The format the first bytes of an (uncompressed) input show: SGF (`(`
    /// then `;`), EPD (a first line that starts with the four position
    /// fields; FEN lines are EPD input too), JSON (`{`), PGN (a tag pair, a
    /// move number or a comment), PGC (a reduced or a general game's
    /// marker); `None` if none fits.
    pub fn sniff(head: &[u8]) -> Option<Format> {
        use crate::pgc::marker::{GAME_BEGIN, REDUCED_GAME};
        if matches!(head.first(), Some(&(REDUCED_GAME | GAME_BEGIN))) && head.len() > 2 {
            return Some(Format::Pgc);
        }
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
        let head = &head[start..];
        if let Some(rest) = head.strip_prefix(b"(") {
            if rest.trim_ascii_start().first() == Some(&b';') {
                return Some(Format::Sgf);
            }
            return None;
        }
        if head.starts_with(b"{\"") {
            return Some(Format::Json);
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
            return Some(Format::Epd);
        }
        match head[0] {
            b'[' | b'{' | b';' | b'%' | b'0'..=b'9' | b'*' => Some(Format::Pgn),
            _ if looks_like_text(head) => Some(Format::Pgn),
            _ => None,
        }
    }

    /// The format a plain (uncompressed) file name announces, without
    /// allocating: for bulk checks of many small files. `None` for
    /// compressed names (use [`Format::from_path`]) and unknown extensions.
    pub fn from_plain_name(name: &str) -> Option<Format> {
        // The extension: after the last `.`, at most 5 bytes, no `/`.
        let tail = &name.as_bytes()[name.len().saturating_sub(6)..];
        let dot = tail.iter().rposition(|&b| b == b'.')?;
        let ext = &tail[dot + 1..];
        if ext.contains(&b'/') {
            return None;
        }
        Format::from_name_bytes(ext)
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::Json => "json",
            Format::Epd => "epd",
            Format::Fen => "fen",
            Format::Pgc => "pgc",
            Format::Cbf => "cbf",
            Format::Fbk => "fbk",
            Format::Sgf => "sgf",
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
        }
    }

    /// Whether the format is a table (Parquet, Arrow IPC), read and written
    /// by `gamerec-arrow`.
    pub fn is_table(self) -> bool {
        matches!(self, Format::Parquet | Format::Arrow)
    }

    /// The format of a command-line input argument: by its name (plain
    /// names without allocating, then through `.gz`/`.bz2`/`.zst`), or for
    /// `-` (stdin) by its first bytes, which stay buffered for the reader.
    pub fn of_arg(arg: &OsStr) -> Option<Format> {
        Format::of_arg_plain(arg).0
    }

    /// [`Format::of_arg`], and whether the name says it by a plain format
    /// extension (`.sgf`, not `.sgf.gz`: the file is read as it is).
    pub fn of_arg_plain(arg: &OsStr) -> (Option<Format>, bool) {
        match arg.to_str().and_then(Format::from_plain_name) {
            Some(f) => (Some(f), true),
            None => (Input::from_arg(arg).format(), false),
        }
    }

    /// The format of data already read: by its name, else by its first
    /// bytes.
    pub fn of_data(name: &Path, data: &[u8]) -> Option<Format> {
        Format::from_path(name).or_else(|| Format::sniff(data))
    }

    /// Whether the format is binary (PGC, CBF, FBK).
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Pgc | Format::Cbf | Format::Fbk)
    }

    /// Whether the format holds chess (all but SGF).
    pub fn is_chess(self) -> bool {
        self != Format::Sgf
    }

    /// What one item of the format is called, singular and plural:
    /// `game(s)`, `record(s)` (EPD), `position(s)` (FEN).
    pub fn unit(self) -> (&'static str, &'static str) {
        match self {
            Format::Epd => ("record", "records"),
            Format::Fen => ("position", "positions"),
            _ => ("game", "games"),
        }
    }

    /// `n` items with the unit's name (`1 record`, `3 games`).
    pub fn count(self, n: u64) -> String {
        let (one, many) = self.unit();
        format!("{n} {}", if n == 1 { one } else { many })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pgn => "PGN",
            Format::Json => "JSON",
            Format::Epd => "EPD",
            Format::Fen => "FEN",
            Format::Pgc => "PGC",
            Format::Cbf => "CBF",
            Format::Fbk => "FBK",
            Format::Sgf => "SGF",
            Format::Parquet => "Parquet",
            Format::Arrow => "Arrow IPC",
        })
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    /// A format by its name or extension (`pgn`, `jsonl`, `parquet`, ...).
    fn from_str(name: &str) -> Result<Format, String> {
        Format::from_name(name).ok_or_else(|| format!("unknown format {name:?}"))
    }
}

/// The format to write: `to` (`--to`), else what the output's name says,
/// else (no output file) what the first input is (FEN alone becomes EPD).
/// An output name that disagrees with `to`, or names no format, is an
/// error saying what to do.
pub fn output_format(
    to: Option<Format>,
    output: Option<&Path>,
    first_input: Option<Format>,
) -> Result<Format, String> {
    let named = output.map(|p| (p, Format::from_path(p)));
    match (to, named) {
        (Some(t), Some((p, Some(f)))) if t != f => Err(format!(
            "{}: the file name says {f} but --to says {t}: name it .{} or drop --to",
            p.display(),
            t.extension()
        )),
        (Some(t), _) => Ok(t),
        (None, Some((_, Some(f)))) => Ok(f),
        (None, Some((p, None))) => Err(format!(
            "{}: no known extension to choose the output format: add --to FORMAT \
             (pgn, json, epd, fen, pgc, cbf, fbk, sgf, parquet, arrow)",
            p.display()
        )),
        // FEN input alone converts to EPD (FEN to FEN would be a copy).
        (None, None) => Ok(match first_input.unwrap_or(Format::Pgn) {
            Format::Fen => Format::Epd,
            f => f,
        }),
    }
}

/// Whether `head` looks like text: no NUL byte and few other control bytes
/// (tab, line ends, form feed and ESC in moderation are allowed).
pub fn looks_like_text(head: &[u8]) -> bool {
    let sample = &head[..head.len().min(4096)];
    if sample.contains(&0) {
        return false;
    }
    let controls = sample
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    controls * 100 <= sample.len()
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
    pub fn from_path(path: &Path) -> Compression {
        match path
            .extension()
            .and_then(OsStr::to_str)
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The compression the first bytes of a stream show.
    pub fn sniff(head: &[u8]) -> Compression {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_by_extension_through_compression() {
        let f = |p: &str| Format::from_path(Path::new(p));
        assert_eq!(f("a.pgn.zst"), Some(Format::Pgn));
        assert_eq!(f("a.PGN"), Some(Format::Pgn));
        assert_eq!(f("b.epd.gz"), Some(Format::Epd));
        assert_eq!(f("c.sgf.bz2"), Some(Format::Sgf));
        assert_eq!(f("x.pgc.gz"), Some(Format::Pgc));
        assert_eq!(f("G.CBI"), Some(Format::Cbf));
        assert_eq!(f("g.jsonl"), Some(Format::Json));
        assert_eq!(f("p.fen"), Some(Format::Fen));
        assert_eq!(f("noext"), None);
        assert_eq!(Format::from_plain_name("dir/a.SGF"), Some(Format::Sgf));
        assert_eq!(Format::from_plain_name("a.sgf.gz"), None);
        assert_eq!(Format::from_plain_name("a.d/x"), None);
        assert_eq!(f("README.md"), None);
    }

    /// Every name in any case, and what is not a name (longer, shorter,
    /// non-ASCII, empty).
    #[test]
    fn format_names_in_any_case() {
        let names = [
            ("pgn", Format::Pgn),
            ("json", Format::Json),
            ("jsonl", Format::Json),
            ("epd", Format::Epd),
            ("fen", Format::Fen),
            ("pgc", Format::Pgc),
            ("cbf", Format::Cbf),
            ("cbi", Format::Cbf),
            ("fbk", Format::Fbk),
            ("sgf", Format::Sgf),
            ("parquet", Format::Parquet),
            ("pq", Format::Parquet),
            ("arrow", Format::Arrow),
            ("feather", Format::Arrow),
            ("ipc", Format::Arrow),
            ("arrows", Format::Arrow),
        ];
        for (name, format) in names {
            assert_eq!(Format::from_name(name), Some(format), "{name}");
            assert_eq!(Format::from_name(&name.to_uppercase()), Some(format));
            let mixed: String = name
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            assert_eq!(Format::from_name(&mixed), Some(format), "{mixed}");
            assert_eq!(Format::from_name(&format!("{name}x")), None);
            assert_eq!(Format::from_name(&name[1..]), None, "{name}");
            assert_eq!(Format::from_name(&format!("{name}\u{e9}")), None);
        }
        for name in ["", "pgnpgnpgn", "parquets", "sgf ", "\u{e9}pgn", "PGN\0"] {
            assert_eq!(Format::from_name(name), None, "{name:?}");
        }
        assert_eq!(Format::from_plain_name("games/A.JsonL"), Some(Format::Json));
        assert_eq!(Format::from_plain_name("t.parquet"), None);
        // Against the definition: the name after its last `.`, when that
        // is at most 5 bytes and no `/`.
        let reference = |name: &str| {
            let (_, ext) = name.rsplit_once('.')?;
            (ext.len() <= 5 && !ext.contains('/'))
                .then(|| Format::from_name(ext))
                .flatten()
        };
        for name in [
            "",
            ".",
            "sgf",
            ".sgf",
            "a.sgf",
            "a.b.SGF",
            "dir.sgf/x",
            "dir.s/gf",
            "x.sgf.gz",
            "a.jsonl",
            "a.jsonll",
            "é.pgn",
            "a.é",
            "a..pgn",
            "a.pgn.",
            "/.epd",
            "ab/c.fen",
        ] {
            assert_eq!(Format::from_plain_name(name), reference(name), "{name:?}");
        }
    }

    #[test]
    fn format_by_content() {
        assert_eq!(
            Format::sniff(b"\xef\xbb\xbf (\n ;FF[4]SZ[9])"),
            Some(Format::Sgf)
        );
        assert_eq!(
            Format::sniff(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n"),
            Some(Format::Epd)
        );
        assert_eq!(
            Format::sniff(b"8/8/8/8/8/8/8/K1k5 b - - 0 1"),
            Some(Format::Epd)
        );
        assert_eq!(
            Format::sniff(b"[Event \"x\"]\n\n1. e4 *"),
            Some(Format::Pgn)
        );
        assert_eq!(Format::sniff(b"1. e4 (1. d4) *"), Some(Format::Pgn));
        assert_eq!(Format::sniff(b"{\"tags\":[]}"), Some(Format::Json));
        // A reduced game, and a general game (what `convert -o .pgc` writes
        // for games with comments), each from its first marker.
        assert_eq!(Format::sniff(b"\x01\x02\x05Event"), Some(Format::Pgc));
        assert_eq!(Format::sniff(b"\x05\x02\x05Event"), Some(Format::Pgc));
        assert_eq!(Format::sniff(b""), None);
        assert_eq!(Format::sniff(b"\x00\x00\x07\x1b\x02garbage"), None);
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh91AY"), Compression::Bzip2);
    }

    #[test]
    fn units_name_each_format() {
        assert_eq!(Format::Epd.count(1), "1 record");
        assert_eq!(Format::Pgn.count(2), "2 games");
        assert_eq!(Format::Fen.count(3), "3 positions");
    }
}
