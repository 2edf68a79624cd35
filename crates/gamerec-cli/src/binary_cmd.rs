//! Binary game files for `gamerec convert` and `gamerec check`: ChessBase
//! `.cbf`/`.cbi` pairs, ChessBase `.fbk` opening trees and PGC `.pgc`.
//!
//! Entry points for the shared dispatch:
//! * [`binary_format`]: whether a path is one of these formats (by extension);
//! * [`read_binary_games`]: a file to games and issues (a `.cbf` or `.cbi`
//!   path reads the pair);
//! * [`write_binary_games`]: games to a file (a `.cbf` path also writes the
//!   `.cbi` beside it), returning what did not fit;
//! * [`check_report`]: `gamerec check` for one file: one line per issue,
//!   `path:byte OFFSET: severity: game N: message`, and the counts;
//! * [`convert`]: `gamerec convert` between binary formats;
//! * [`print_issues`]: the same printing for other converters.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gamerec::chessbase::{self, FileKind, Issue};
use gamerec::diag::Severity;
use gamerec::model::Game;
use gamerec::pgc;

/// A binary format gamerec reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryFormat {
    /// ChessBase CBF game file with its CBI index.
    Cbf,
    /// ChessBase FBK opening file.
    Fbk,
    /// PGN standard section 20 binary coding.
    Pgc,
}

/// The binary format of `path`, from its extension (`.cbf`, `.cbi`, `.fbk`,
/// `.pgc`, any case).
pub fn binary_format(path: &Path) -> Option<BinaryFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "cbf" | "cbi" => Some(BinaryFormat::Cbf),
        "fbk" => Some(BinaryFormat::Fbk),
        "pgc" => Some(BinaryFormat::Pgc),
        _ => None,
    }
}

/// The `.cbf` and `.cbi` paths of a pair named by either (the extension's
/// case is kept: `X.CBF` pairs with `X.CBI`).
pub fn cbf_pair(path: &Path) -> (PathBuf, PathBuf) {
    let upper = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.chars().all(|c| c.is_ascii_uppercase()));
    let (cbf, cbi) = if upper {
        ("CBF", "CBI")
    } else {
        ("cbf", "cbi")
    };
    (path.with_extension(cbf), path.with_extension(cbi))
}

/// Games read from a binary file, with every issue found.
#[derive(Debug, Default)]
pub struct BinaryRead {
    /// The games read.
    pub games: Vec<Game>,
    /// Problems, each with a byte offset into [`BinaryRead::issue_path`]'s file.
    pub issues: Vec<Issue>,
    /// The CBF path (issues in the data file) and CBI path (issues in the index).
    pub paths: (PathBuf, Option<PathBuf>),
}

impl BinaryRead {
    /// The file an issue's offset refers to.
    pub fn issue_path(&self, issue: &Issue) -> &Path {
        match (issue.file, &self.paths.1) {
            (FileKind::Index, Some(cbi)) => cbi,
            _ => &self.paths.0,
        }
    }
}

/// Reads the games of a `.cbf`/`.cbi` pair, `.fbk` or `.pgc` file.
pub fn read_binary_games(path: &Path) -> Result<BinaryRead> {
    let format = binary_format(path)
        .with_context(|| format!("{}: not a .cbf, .cbi, .fbk or .pgc file", path.display()))?;
    let read = |p: &Path| fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    Ok(match format {
        BinaryFormat::Cbf => {
            let (cbf_path, cbi_path) = cbf_pair(path);
            let cbi = read(&cbi_path)?;
            let cbf = read(&cbf_path)?;
            let out = chessbase::read_cbf(&cbi, &cbf);
            BinaryRead {
                games: out.games,
                issues: out.issues,
                paths: (cbf_path, Some(cbi_path)),
            }
        }
        BinaryFormat::Fbk => {
            let out = chessbase::read_fbk(&read(path)?);
            BinaryRead {
                games: out.games,
                issues: out.issues,
                paths: (path.to_path_buf(), None),
            }
        }
        BinaryFormat::Pgc => {
            let out = pgc::read_pgc(&read(path)?);
            BinaryRead {
                games: out.games,
                issues: out.issues,
                paths: (path.to_path_buf(), None),
            }
        }
    })
}

/// Writes `games` to `path` in the format its extension names (a `.cbf` or
/// `.cbi` path writes both files of the pair). Returns the issues: what did
/// not fit (warnings) and games left out (errors); their offsets are in the
/// written data file.
pub fn write_binary_games(path: &Path, games: &[Game]) -> Result<Vec<Issue>> {
    let format = binary_format(path)
        .with_context(|| format!("{}: not a .cbf, .cbi, .fbk or .pgc file", path.display()))?;
    let write = |p: &Path, bytes: &[u8]| {
        fs::write(p, bytes).with_context(|| format!("cannot write {}", p.display()))
    };
    Ok(match format {
        BinaryFormat::Cbf => {
            let (cbf_path, cbi_path) = cbf_pair(path);
            let files = chessbase::write_cbf(games);
            write(&cbf_path, &files.cbf)?;
            write(&cbi_path, &files.cbi)?;
            files.issues
        }
        BinaryFormat::Fbk => {
            let (bytes, issues) = chessbase::write_fbk(games);
            write(path, &bytes)?;
            issues
        }
        BinaryFormat::Pgc => {
            let (bytes, issues) = pgc::write_pgc(games);
            write(path, &bytes)?;
            issues
        }
    })
}

/// Prints issues as `path:byte OFFSET: severity: game N: message`.
pub fn print_issues(path: &Path, issues: &[Issue], out: &mut impl Write) -> io::Result<()> {
    for issue in issues {
        writeln!(out, "{}:{issue}", path.display())?;
    }
    Ok(())
}

/// Counts of one checked binary file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinarySummary {
    /// Games read.
    pub games: u64,
    /// Plies read (variations included).
    pub nodes: u64,
    /// Error issues.
    pub errors: u64,
    /// Warning issues.
    pub warnings: u64,
}

/// A file mapped read-only; its pages can be given back as reading goes on.
struct MappedFile(Option<memmap2::Mmap>);

impl MappedFile {
    fn open(path: &Path) -> Result<MappedFile> {
        let file =
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(MappedFile(None));
        }
        // SAFETY: a read-only mapping of a file we only read; like every
        // reader of files, we assume no one truncates it meanwhile.
        let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file) }
            .with_context(|| format!("cannot map {}", path.display()))?;
        Ok(MappedFile(Some(map)))
    }

    fn bytes(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }

    /// Drops the pages read so far (read again from the file if touched).
    fn release(&self) {
        #[cfg(unix)]
        if let Some(map) = &self.0 {
            // SAFETY: a read-only file mapping: dropped pages are read
            // again from the file if touched.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

/// `check` for one binary file: appends one line per issue to `out`
/// (warnings only unless `quiet`) and returns the counts. Games are read
/// one at a time from the mapped file and dropped once counted, and the
/// mapped pages are given back every few thousand games, so memory stays
/// at one game whatever the file's size.
pub fn check_report(path: &str, quiet: bool, out: &mut Vec<u8>) -> Result<BinarySummary> {
    let path = Path::new(path);
    let format = binary_format(path)
        .with_context(|| format!("{}: not a .cbf, .cbi, .fbk or .pgc file", path.display()))?;
    let mut s = BinarySummary::default();
    let mut failed: Option<io::Error> = None;
    let mut report = |issue: &Issue, file: &Path, s: &mut BinarySummary| {
        match issue.severity {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
        }
        if (issue.severity == Severity::Error || !quiet)
            && let Err(e) = writeln!(out, "{}:{issue}", file.display())
        {
            failed.get_or_insert(e);
        }
    };
    const RELEASE_EVERY: u64 = 4096;
    match format {
        BinaryFormat::Fbk => {
            let map = MappedFile::open(path)?;
            let check = chessbase::check_fbk(map.bytes());
            s.games = u64::from(!map.bytes().is_empty());
            s.nodes = check.moves;
            for issue in &check.issues {
                report(issue, path, &mut s);
            }
        }
        BinaryFormat::Pgc => {
            let map = MappedFile::open(path)?;
            pgc::read_pgc_each(map.bytes(), &mut |item| match item {
                pgc::ReadItem::Game(g) => {
                    s.games += 1;
                    s.nodes += g.tree.len() as u64 - 1;
                    if s.games % RELEASE_EVERY == 0 {
                        map.release();
                    }
                }
                pgc::ReadItem::Issue(issue) => report(&issue, path, &mut s),
            });
        }
        BinaryFormat::Cbf => {
            let (cbf_path, cbi_path) = cbf_pair(path);
            let cbi = MappedFile::open(&cbi_path)?;
            let cbf = MappedFile::open(&cbf_path)?;
            chessbase::read_cbf_each(cbi.bytes(), cbf.bytes(), &mut |item| match item {
                chessbase::ReadItem::Game(g) => {
                    s.games += 1;
                    s.nodes += g.tree.len() as u64 - 1;
                    if s.games % RELEASE_EVERY == 0 {
                        cbf.release();
                        cbi.release();
                    }
                }
                chessbase::ReadItem::Issue(issue) => {
                    let file = match issue.file {
                        FileKind::Index => &cbi_path,
                        FileKind::Data => &cbf_path,
                    };
                    report(&issue, file, &mut s);
                }
            });
        }
    }
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(s),
    }
}

/// Whether `convert` with this input, output and `--to` involves a binary format.
pub fn is_binary_conversion(input: &str, output: Option<&str>, to: Option<&str>) -> bool {
    binary_format(Path::new(input)).is_some()
        || output.is_some_and(|o| binary_format(Path::new(o)).is_some())
        || matches!(to, Some("cbf" | "cbi" | "fbk" | "pgc"))
}

/// Reads PGN games (any compression the shared input layer knows), printing
/// problems as `name:line:col: severity: message` to `err`.
fn read_pgn_games(input: &str, err: &mut impl Write) -> Result<(Vec<Game>, bool)> {
    let source = crate::input::Input::from_arg(std::ffi::OsStr::new(input));
    let (games, errors) = source
        .read_pgn_games(false, err)
        .with_context(|| format!("cannot read {}", source.name))?;
    Ok((games, errors > 0))
}

/// `convert` where either side is binary: reads `input` (.cbf/.cbi, .fbk,
/// .pgc, else PGN), writes `output` in the format `--to` or its extension
/// names (binary output needs `-o`; text output is PGN, to stdout without
/// `-o`). Prints every issue of both sides to stderr; returns 1 when a game
/// could not be read or written.
pub fn convert(input: &str, output: Option<&str>, to: Option<&str>) -> Result<u8> {
    let stderr = io::stderr();
    let mut err = stderr.lock();
    let (games, read_failed) = if binary_format(Path::new(input)).is_some() {
        let read = read_binary_games(Path::new(input))?;
        for issue in &read.issues {
            writeln!(err, "{}:{issue}", read.issue_path(issue).display())?;
        }
        let failed = read.issues.iter().any(|i| i.severity == Severity::Error);
        (read.games, failed)
    } else {
        read_pgn_games(input, &mut err)?
    };
    let binary_out = match to {
        Some(t) => matches!(t, "cbf" | "cbi" | "fbk" | "pgc"),
        None => output.is_some_and(|o| binary_format(Path::new(o)).is_some()),
    };
    if !binary_out {
        if let Some(t) = to.filter(|t| *t != "pgn") {
            anyhow::bail!("cannot convert {input} to {t} (supported: pgn, cbf, fbk, pgc)");
        }
        let mut out = crate::input::open_output(output.map(Path::new))?;
        let opts = gamerec::pgn::WriteOptions::default();
        let mut buf = Vec::new();
        for game in &games {
            buf.clear();
            gamerec::pgn::write_game(game, &opts, &mut buf);
            out.write_all(&buf)?;
        }
        out.flush()?;
        return Ok(u8::from(read_failed));
    }
    let Some(output) = output.filter(|o| *o != "-") else {
        anyhow::bail!("binary output needs a file: -o FILE.cbf|.fbk|.pgc");
    };
    let mut out_path = PathBuf::from(output);
    if let Some(ext) = to
        && binary_format(&out_path).is_none()
    {
        out_path.set_extension(ext);
    }
    let issues = write_binary_games(&out_path, &games)?;
    let written = if binary_format(&out_path) == Some(BinaryFormat::Cbf) {
        cbf_pair(&out_path).0
    } else {
        out_path.clone()
    };
    print_issues(&written, &issues, &mut err)?;
    let write_failed = issues.iter().any(|i| i.severity == Severity::Error);
    Ok(u8::from(read_failed || write_failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gamerec-binary-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        dir.join(name)
    }

    fn sample() -> Vec<Game> {
        let bytes = [
            gamerec::pgc::marker::REDUCED_GAME,
            1,
            b'E',
            1,
            b'S',
            10,
            b'2',
            b'0',
            b'2',
            b'4',
            b'.',
            b'?',
            b'?',
            b'.',
            b'?',
            b'?',
            1,
            b'1',
            1,
            b'W',
            1,
            b'B',
            3,
            b'1',
            b'-',
            b'0',
            2,
            0,
            13,
            12,
        ];
        let out = pgc::read_pgc(&bytes);
        assert!(out.issues.is_empty());
        out.games
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(binary_format(Path::new("a.CBF")), Some(BinaryFormat::Cbf));
        assert_eq!(binary_format(Path::new("a.cbi")), Some(BinaryFormat::Cbf));
        assert_eq!(binary_format(Path::new("a.fbk")), Some(BinaryFormat::Fbk));
        assert_eq!(binary_format(Path::new("a.pgc")), Some(BinaryFormat::Pgc));
        assert_eq!(binary_format(Path::new("a.pgn")), None);
        assert_eq!(
            cbf_pair(Path::new("x/G.CBI")),
            (PathBuf::from("x/G.CBF"), PathBuf::from("x/G.CBI"))
        );
    }

    #[test]
    fn cbf_writes_the_pair_and_reads_from_either() {
        let games = sample();
        let path = temp("t.cbf");
        let issues = write_binary_games(&path, &games).expect("writes");
        assert!(issues.iter().all(|i| i.severity == Severity::Warning));
        assert!(path.with_extension("cbi").is_file());
        for p in [path.clone(), path.with_extension("cbi")] {
            let read = read_binary_games(&p).expect("reads");
            assert_eq!(read.games.len(), 1);
            assert_eq!(read.games[0].tree.mainline_len(), 2);
            assert_eq!(read.games[0].tags.get("White"), Some("W"));
        }
        let mut out = Vec::new();
        let s = check_report(path.to_str().expect("utf-8"), false, &mut out).expect("checks");
        assert_eq!((s.games, s.nodes, s.errors), (1, 2, 0));
    }

    #[test]
    fn pgc_and_fbk_round_trip_and_check_finds_errors() {
        let games = sample();
        for name in ["t.pgc", "t.fbk"] {
            let path = temp(name);
            write_binary_games(&path, &games).expect("writes");
            let read = read_binary_games(&path).expect("reads");
            assert_eq!(read.games[0].tree.mainline_len(), 2);
        }
        let bad = temp("bad.pgc");
        fs::write(&bad, [0x05, 0x03, 0x01, 0x63]).expect("write");
        assert!(read_binary_games(Path::new("/nonexistent/x.pgc")).is_err());
        let mut out = Vec::new();
        let s = check_report(bad.to_str().expect("utf-8"), true, &mut out).expect("reads");
        assert_eq!((s.games, s.errors), (1, 2));
        assert!(
            String::from_utf8_lossy(&out)
                .contains("bad.pgc:byte 3: error: game 1: move ordinal 99")
        );
    }

    #[test]
    fn convert_between_binary_formats() {
        let src = temp("conv.pgc");
        write_binary_games(&src, &sample()).expect("writes");
        let dst = temp("conv-out");
        let code =
            convert(src.to_str().expect("utf-8"), dst.to_str(), Some("cbf")).expect("converts");
        assert_eq!(code, 0);
        let read = read_binary_games(&dst.with_extension("cbi")).expect("reads");
        assert_eq!(read.games[0].tree.mainline_len(), 2);
        assert!(convert(src.to_str().expect("utf-8"), None, Some("fbk")).is_err());
        // PGN in, binary out, PGN back.
        let pgn = temp("conv.pgn");
        fs::write(&pgn, "[White \"A\"]\n\n1. e4 {hi} e5 2. Nf3 1-0\n").expect("write");
        let out = temp("from-pgn.pgc");
        let code = convert(pgn.to_str().expect("utf-8"), out.to_str(), None).expect("converts");
        assert_eq!(code, 0);
        let back = temp("back.pgn");
        convert(out.to_str().expect("utf-8"), back.to_str(), Some("pgn")).expect("converts");
        let text = fs::read_to_string(&back).expect("read");
        assert!(text.contains("1. e4 e5 2. Nf3 1-0"), "{text}");
        assert!(is_binary_conversion("a.pgn", Some("b.pgc"), None));
        assert!(!is_binary_conversion("a.pgn", Some("b.sgf"), None));
    }
}
