//! The position index: one immutable file per database, built in one
//! streaming pass, queried through a memory map.
//!
//! ```text
//! header (256 bytes): magic, game count, database bytes indexed, 7 sections
//!            (offset, length, XXH3-64), the database's identity (size on
//!            disk, modification time, hash of all bytes, hash of sampled
//!            blocks), XXH3-64 of the header's first 248 bytes
//! positions  fst map: Zobrist key (8 bytes, big-endian) -> postings
//! postings   per key: varint count, then (game delta, ply) varint pairs
//! games      64 bytes per game: byte offset, White/Black pawn squares ever
//!            occupied, White/Black Elo, result, speed, plies, hashes of
//!            the White and Black names, date (year, month, day)
//! material   fst map: material signature (5 bytes) -> game postings
//! mpostings  per signature: varint count, then game deltas
//! boards     32 bytes per position, in the positions' key order: its
//!            board packed ([`Pieces::pack`], 24 bytes), then its postings
//!            value as in the fst
//! frames     16 bytes per frame of a zstd database ([`crate::frames`]):
//!            offset in the file, offset in the decompressed bytes
//! ```
//!
//! Pattern, sub-FEN and material queries scan the boards section on every
//! thread (a test of the packed occupied squares first, then a few ANDs on
//! the unpacked bitboards) and read the matching positions' postings: the
//! games and their first matching ply, with no game replayed.
//!
//! A key with a single posting keeps it in the fst value itself (top bit
//! set), so positions seen in one game cost no postings bytes. Each game
//! posts a position once, at the first ply it reaches it.
//!
//! Building is bounded in memory: (key, game, ply) entries are sorted in
//! runs of [`RUN_ENTRIES`], spilled to temporary files and merged into the
//! fst. Appending merges the old index's postings with the new games' runs
//! into a new file (an index is never modified in place).
//!
//! Opening checks the header's and every section's checksum, so a damaged
//! index is refused before any byte of it is used; [`Index::check_database`]
//! compares the recorded identity with the database file.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fst::{Map, MapBuilder, Streamer};
use gamerec::model::{Game, GameResult, PlyMove};
use memmap2::Mmap;
use shakmaty::{Bitboard, Chess, Color, Position, Role};

use crate::identity::{DbIdentity, checksum, prefix_hash, sample_hash, stat};
use crate::material::signature;
use crate::meta::{Speed, name_hash, parse_date};
use crate::pattern::{PACKED_LEN, Pieces};
use crate::position::{key, mainline};
use crate::source::for_each_game;
use gamerec::diag::Diagnostic;
use gamerec::io::Input;
use gamerec::io::parallel::Resume;
use gamerec::io::pipeline::{self, Tally};

const MAGIC: &[u8; 8] = b"GRIDX\x00\x04\x00";
/// The magics of older versions: 1 (no checksums, no identity), 2 (no
/// names, dates or speeds), 3 (no boards, no frame table).
const MAGIC_OLD: [&[u8; 8]; 3] = [
    b"GRIDX\x00\x01\x00",
    b"GRIDX\x00\x02\x00",
    b"GRIDX\x00\x03\x00",
];
const HEADER_LEN: u64 = 256;
/// Sections.
const SECTIONS: usize = 7;
/// Header field offsets: the (offset, length) table, the checksums.
const H_TABLE: usize = 24;
const H_SUMS: usize = H_TABLE + 16 * SECTIONS;
const H_DB: usize = H_SUMS + 8 * SECTIONS;
const H_FLAGS: usize = H_DB + 32;
const H_CHECK: usize = 248;
/// Header flag: the database identity is recorded.
const HAS_IDENTITY: u8 = 1;
const GAME_RECORD: usize = 64;
const SINGLE: u64 = 1 << 63;
/// Section names, for messages.
const SECTION_NAMES: [&str; SECTIONS] = [
    "positions",
    "postings",
    "games",
    "material",
    "material postings",
    "boards",
    "frames",
];
const S_BOARDS: usize = 5;
const S_FRAMES: usize = 6;
/// A boards record: the packed board, the postings value.
const BOARD_RECORD: usize = PACKED_LEN + 8;
/// The packed board of a position that does not fit (more than 32 pieces):
/// its games are replayed.
const UNPACKED: [u8; PACKED_LEN] = [0xFF; PACKED_LEN];
/// A frames record.
const FRAME_RECORD: usize = 16;
/// Entries per sorted run (16 bytes each in memory).
pub const RUN_ENTRIES: usize = 4 << 20;
/// Result byte of a game that could not be read.
const FAILED: u8 = 255;

/// An error building or reading an index.
#[derive(Debug)]
pub enum IndexError {
    /// Reading or writing failed.
    Io(io::Error),
    /// The file is not an index of this version, or is damaged.
    Format(String),
    /// The database could not be read to its end (the diagnostics say
    /// why): its name, and what was read.
    NotRead(String, Box<Tally>),
    /// The database is not the one the index was built from.
    Stale {
        /// What changed.
        what: String,
        /// The recorded bytes are unchanged and more follow: `--append`
        /// brings the index up to date.
        append: bool,
    },
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexError::Io(e) => write!(f, "{e}"),
            IndexError::Format(m) => write!(f, "not a valid index: {m}"),
            IndexError::NotRead(name, _) => {
                write!(f, "{name}: not read to its end: no index written")
            }
            IndexError::Stale { what, .. } => {
                write!(f, "the database changed since the index was built: {what}")
            }
        }
    }
}

impl std::error::Error for IndexError {}

impl From<io::Error> for IndexError {
    fn from(e: io::Error) -> IndexError {
        IndexError::Io(e)
    }
}

impl From<fst::Error> for IndexError {
    fn from(e: fst::Error) -> IndexError {
        IndexError::Format(e.to_string())
    }
}

/// Per-game summary kept in the games section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameInfo {
    /// Byte offset of the game in the (decompressed) database.
    pub offset: u64,
    /// Squares a White pawn ever stood on in the main line.
    pub white_pawns: u64,
    /// Squares a Black pawn ever stood on in the main line.
    pub black_pawns: u64,
    /// White's Elo (0 if unknown).
    pub white_elo: u16,
    /// Black's Elo (0 if unknown).
    pub black_elo: u16,
    /// 0 unknown, 1 White won, 2 Black won, 3 draw, 255 unreadable.
    pub result: u8,
    /// Main-line plies.
    pub plies: u16,
    /// The speed class of the TimeControl tag ([`Speed`] as a byte, 0
    /// unknown).
    pub speed: u8,
    /// [`name_hash`] of the White tag (0 unknown).
    pub white_name: u64,
    /// [`name_hash`] of the Black tag (0 unknown).
    pub black_name: u64,
    /// The Date tag: year (0 unknown), month and day (0 unknown).
    pub date: (u16, u8, u8),
}

impl GameInfo {
    fn to_bytes(self) -> [u8; GAME_RECORD] {
        let mut b = [0u8; GAME_RECORD];
        b[0..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..16].copy_from_slice(&self.white_pawns.to_le_bytes());
        b[16..24].copy_from_slice(&self.black_pawns.to_le_bytes());
        b[24..26].copy_from_slice(&self.white_elo.to_le_bytes());
        b[26..28].copy_from_slice(&self.black_elo.to_le_bytes());
        b[28] = self.result;
        b[29] = self.speed;
        b[30..32].copy_from_slice(&self.plies.to_le_bytes());
        b[32..40].copy_from_slice(&self.white_name.to_le_bytes());
        b[40..48].copy_from_slice(&self.black_name.to_le_bytes());
        b[48..50].copy_from_slice(&self.date.0.to_le_bytes());
        b[50] = self.date.1;
        b[51] = self.date.2;
        b
    }

    fn from_bytes(b: &[u8]) -> GameInfo {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        GameInfo {
            offset: u64_at(0),
            white_pawns: u64_at(8),
            black_pawns: u64_at(16),
            white_elo: u16_at(24),
            black_elo: u16_at(26),
            result: b[28],
            plies: u16_at(30),
            speed: b[29],
            white_name: u64_at(32),
            black_name: u64_at(40),
            date: (u16_at(48), b[50], b[51]),
        }
    }

    /// The game's result, `None` when unknown or unreadable.
    pub fn result(&self) -> Option<GameResult> {
        match self.result {
            1 => Some(GameResult::WhiteWins),
            2 => Some(GameResult::BlackWins),
            3 => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// What the index records of one game.
#[derive(Debug, Default)]
pub struct GameEntries {
    /// (position key, first ply reaching it).
    pub positions: Vec<(u64, u16)>,
    /// The packed board of each of `positions` ([`UNPACKED`] if it does
    /// not fit).
    pub boards: Vec<[u8; PACKED_LEN]>,
    /// Distinct material signatures of the main line.
    pub materials: Vec<u64>,
    /// The summary (offset filled in by the caller).
    pub info: GameInfo,
    /// A lichess variant game: its tags and summary are indexed, its
    /// positions are not (position queries are standard chess).
    pub variant: bool,
}

/// Extracts what the index needs from one game.
pub fn game_entries(game: &Game) -> GameEntries {
    let positions = mainline(game);
    let mut keys: Vec<(u64, u16)> = positions
        .iter()
        .enumerate()
        .take(usize::from(u16::MAX))
        .map(|(ply, p)| (key(p), ply as u16))
        .collect();
    // One posting per key: its first ply.
    keys.sort_unstable();
    keys.dedup_by_key(|e| e.0);
    let boards = keys
        .iter()
        .map(|&(_, ply)| {
            Pieces::of(positions[usize::from(ply)].board())
                .pack()
                .unwrap_or(UNPACKED)
        })
        .collect();
    let mut materials: Vec<u64> = positions.iter().map(|p| signature(p.board())).collect();
    materials.sort_unstable();
    materials.dedup();
    let (mut wp, mut bp) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for p in &positions {
        let pawns = p.board().by_role(Role::Pawn);
        wp |= pawns & p.board().by_color(Color::White);
        bp |= pawns & p.board().by_color(Color::Black);
    }
    let elo = |t: &str| {
        game.tags
            .get(t)
            .and_then(|v| v.trim().parse::<u16>().ok())
            .unwrap_or(0)
    };
    let tag = |t: &str| game.tags.get(t).unwrap_or("");
    let result = match gamerec::pgn::writer::export_result(game) {
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
        GameResult::Unknown => 0,
    };
    GameEntries {
        variant: game.variant().is_some(),
        positions: keys,
        boards,
        materials,
        info: GameInfo {
            offset: 0,
            white_pawns: u64::from(wp),
            black_pawns: u64::from(bp),
            white_elo: elo("WhiteElo"),
            black_elo: elo("BlackElo"),
            result,
            // A variant game has no standard positions: its plies are counted.
            plies: positions
                .len()
                .checked_sub(1)
                .unwrap_or_else(|| game.tree.mainline_len())
                .min(usize::from(u16::MAX)) as u16,
            speed: Speed::of_time_control(tag("TimeControl")).map_or(0, |s| s as u8),
            white_name: name_hash(tag("White")),
            black_name: name_hash(tag("Black")),
            date: parse_date(tag("Date")),
        },
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = *data.get(*at)?;
        *at += 1;
        if shift > 63 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// One (key, game, ply) entry; ordered by key, then game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    key: u64,
    game: u32,
    ply: u16,
}

const ENTRY_BYTES: usize = 14;

fn write_run(entries: &mut [Entry], dir: &Path, n: usize) -> io::Result<PathBuf> {
    entries.sort_unstable();
    let path = dir.join(format!("run{n}.bin"));
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    for e in entries.iter() {
        w.write_all(&e.key.to_le_bytes())?;
        w.write_all(&e.game.to_le_bytes())?;
        w.write_all(&e.ply.to_le_bytes())?;
    }
    w.flush()?;
    Ok(path)
}

/// Sorts `boards` by key, keeps one per key and writes them as run `n`.
fn write_board_run(
    boards: &mut Vec<(u64, [u8; PACKED_LEN])>,
    dir: &Path,
    n: usize,
) -> io::Result<PathBuf> {
    boards.sort_unstable_by_key(|b| b.0);
    boards.dedup_by_key(|b| b.0);
    let path = dir.join(format!("boards{n}.bin"));
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    for (k, b) in boards.iter() {
        w.write_all(&k.to_le_bytes())?;
        w.write_all(b)?;
    }
    w.flush()?;
    boards.clear();
    Ok(path)
}

/// A source of (key, packed board) in key order (a key may repeat).
enum BoardSource {
    Run(BufReader<File>),
    Memory(std::vec::IntoIter<(u64, [u8; PACKED_LEN])>),
    /// An old index's keys (in order) and its boards section.
    Old(Vec<u64>, usize, Arc<Index>),
}

impl BoardSource {
    fn next(&mut self) -> io::Result<Option<(u64, [u8; PACKED_LEN])>> {
        match self {
            BoardSource::Run(r) => {
                let mut b = [0u8; 8 + PACKED_LEN];
                match r.read_exact(&mut b) {
                    Ok(()) => {
                        let mut board = [0u8; PACKED_LEN];
                        board.copy_from_slice(&b[8..]);
                        let key = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
                        Ok(Some((key, board)))
                    }
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            }
            BoardSource::Memory(it) => Ok(it.next()),
            BoardSource::Old(keys, at, index) => {
                let Some(&key) = keys.get(*at) else {
                    return Ok(None);
                };
                let board = index.board_record(*at).map_or(UNPACKED, |(b, _)| b);
                *at += 1;
                Ok(Some((key, board)))
            }
        }
    }
}

/// The boards of every source merged: the board of each key in turn.
struct BoardMerge {
    sources: Vec<BoardSource>,
    heap: BinaryHeap<Reverse<(u64, [u8; PACKED_LEN], usize)>>,
}

impl BoardMerge {
    fn new(mut sources: Vec<BoardSource>) -> io::Result<BoardMerge> {
        let mut heap = BinaryHeap::new();
        for (i, s) in sources.iter_mut().enumerate() {
            if let Some((k, b)) = s.next()? {
                heap.push(Reverse((k, b, i)));
            }
        }
        Ok(BoardMerge { sources, heap })
    }

    fn pop(&mut self) -> io::Result<Option<(u64, [u8; PACKED_LEN])>> {
        let Some(Reverse((k, b, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some((k2, b2)) = self.sources[i].next()? {
            self.heap.push(Reverse((k2, b2, i)));
        }
        Ok(Some((k, b)))
    }

    /// The board of `key` (keys asked in increasing order); [`UNPACKED`]
    /// if none is known.
    fn take(&mut self, key: u64) -> io::Result<[u8; PACKED_LEN]> {
        let mut found = UNPACKED;
        while let Some(Reverse((k, b, _))) = self.heap.peek() {
            if *k > key {
                break;
            }
            if *k == key {
                found = *b;
            }
            self.pop()?;
        }
        Ok(found)
    }
}

/// A sorted source of entries for the merge.
enum Source {
    Run(BufReader<File>),
    Memory(std::vec::IntoIter<Entry>),
    Old(Box<OldPostings>),
}

impl Source {
    fn next(&mut self) -> io::Result<Option<Entry>> {
        match self {
            Source::Run(r) => {
                let mut b = [0u8; ENTRY_BYTES];
                match r.read_exact(&mut b) {
                    Ok(()) => Ok(Some(Entry {
                        key: u64::from_le_bytes(b[0..8].try_into().unwrap_or([0; 8])),
                        game: u32::from_le_bytes(b[8..12].try_into().unwrap_or([0; 4])),
                        ply: u16::from_le_bytes([b[12], b[13]]),
                    })),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            }
            Source::Memory(it) => Ok(it.next()),
            Source::Old(o) => o.next(),
        }
    }
}

/// The postings of an existing index, in key order (for appending).
struct OldPostings {
    keys: Vec<(u64, u64)>,
    at: usize,
    index: Arc<Index>,
    buf: std::vec::IntoIter<Entry>,
    /// Postings read so far (see [`Index::postings_bound`]).
    read: u64,
}

impl OldPostings {
    fn new(index: Arc<Index>) -> Result<OldPostings, IndexError> {
        let keys = index.position_keys()?;
        Ok(OldPostings {
            keys,
            at: 0,
            index,
            buf: Vec::new().into_iter(),
            read: 0,
        })
    }

    fn next(&mut self) -> io::Result<Option<Entry>> {
        loop {
            if let Some(e) = self.buf.next() {
                return Ok(Some(e));
            }
            let Some(&(key, value)) = self.keys.get(self.at) else {
                return Ok(None);
            };
            self.at += 1;
            let list: Vec<Entry> = self
                .index
                .decode(value)
                .into_iter()
                .map(|(game, ply)| Entry { key, game, ply })
                .collect();
            self.read += list.len() as u64;
            if self.read > self.index.postings_bound() {
                return Err(io::Error::other(self.index.shared_postings(1).to_string()));
            }
            self.buf = list.into_iter();
        }
    }
}

/// Options of [`build`].
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Worker threads reading and replaying games.
    pub threads: usize,
    /// Where sorted runs are spilled (a fresh subdirectory is made there).
    pub temp_dir: PathBuf,
    /// Entries per run before spilling.
    pub run_entries: usize,
    /// The identity of the database file to record (see [`DbIdentity`]).
    pub database: Option<DbIdentity>,
    /// The database file: its size and modification time are checked again
    /// before the index is put in place (a database written to while read
    /// fails the build).
    pub database_path: Option<PathBuf>,
    /// The bound on one game's bytes (see
    /// [`gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES`]).
    pub max_game_bytes: u64,
}

/// What a build did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Games in the index (readable or not).
    pub games: u64,
    /// Games that could not be read (indexed with no positions).
    pub failed: u64,
    /// Distinct positions.
    pub positions: u64,
    /// Postings ((position, game) pairs).
    pub postings: u64,
    /// Games of lichess variants (indexed without their positions).
    pub variants: u64,
}

/// Builds an index of the PGN games read from `input` into `out`. With
/// `previous` (an index of the database's first `previous.db_len()` bytes),
/// `input` must give the bytes after those, and the new index holds the
/// old games and the new ones.
pub fn build(
    input: &Input,
    previous: Option<Arc<Index>>,
    out: &Path,
    opts: &BuildOptions,
    diagnostic: impl FnMut(Diagnostic),
) -> Result<(BuildStats, Tally), IndexError> {
    let tmp = opts.temp_dir.join(format!(
        "gamerec-index-{}-{}",
        std::process::id(),
        out.file_name().map_or("x".into(), |n| n.to_string_lossy())
    ));
    std::fs::create_dir_all(&tmp)?;
    let result = build_in(input, previous, out, opts, &tmp, diagnostic);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn build_in(
    input: &Input,
    previous: Option<Arc<Index>>,
    out: &Path,
    opts: &BuildOptions,
    tmp: &Path,
    diagnostic: impl FnMut(Diagnostic),
) -> Result<(BuildStats, Tally), IndexError> {
    let base_offset = previous.as_ref().map_or(0, |p| p.db_len());
    let first_game = previous.as_ref().map_or(0, |p| p.games());
    let mut stats = BuildStats {
        games: first_game,
        ..BuildStats::default()
    };
    let games_path = tmp.join("games.bin");
    let mut games_out = BufWriter::with_capacity(1 << 20, File::create(&games_path)?);
    let mut materials: HashMap<u64, (u32, u32, Vec<u8>)> = HashMap::new();
    if let Some(p) = &previous {
        games_out.write_all(p.section(2))?;
        let mut read = 0u64;
        for (sig, v) in p.material_keys()? {
            let games = p.decode_games(v);
            read += games.len() as u64;
            if read > p.material_postings_bound() {
                return Err(p.shared_postings(4));
            }
            let e = materials.entry(sig).or_insert((0, 0, Vec::new()));
            for g in games {
                put_varint(&mut e.2, u64::from(g + 1 - e.0));
                e.0 = g + 1;
                e.1 += 1;
            }
        }
    }
    let mut run: Vec<Entry> = Vec::with_capacity(opts.run_entries.min(1 << 20));
    let mut runs: Vec<PathBuf> = Vec::new();
    // (key, packed board), deduplicated when it fills, spilled when that
    // does not halve it.
    let mut board_run: Vec<(u64, [u8; PACKED_LEN])> = Vec::new();
    let mut board_runs: Vec<PathBuf> = Vec::new();
    let board_limit = (opts.run_entries / 2).max(1);
    // The reading goes on from the end of the indexed part.
    let read = Arc::new(std::sync::atomic::AtomicU64::new(base_offset));
    let reading = pipeline::Options {
        threads: opts.threads.max(1),
        max_game_bytes: opts.max_game_bytes,
        resume: Resume {
            offset: base_offset,
            games: first_game,
        },
        decoded_to: Some(read.clone()),
        ..pipeline::Options::default()
    };
    let mut io_err: Option<io::Error> = None;
    let mut game = first_game;
    let tally = for_each_game(
        input,
        &reading,
        |r| {
            let mut e = game_entries(&r.game);
            e.info.offset = r.offset;
            e
        },
        |outcome| {
            let g =
                u32::try_from(game).map_err(|_| io::Error::other("more than 4 billion games"))?;
            let info = match outcome {
                Ok((offset, mut e)) => {
                    e.info.offset = offset;
                    stats.variants += u64::from(e.variant);
                    for (i, &(key, ply)) in e.positions.iter().enumerate() {
                        run.push(Entry { key, game: g, ply });
                        board_run.push((key, e.boards.get(i).copied().unwrap_or(UNPACKED)));
                    }
                    for sig in e.materials {
                        let m = materials.entry(sig).or_insert((0, 0, Vec::new()));
                        put_varint(&mut m.2, u64::from(g + 1 - m.0));
                        m.0 = g + 1;
                        m.1 += 1;
                    }
                    e.info
                }
                Err(f) => {
                    stats.failed += 1;
                    GameInfo {
                        offset: f.offset,
                        result: FAILED,
                        ..GameInfo::default()
                    }
                }
            };
            games_out.write_all(&info.to_bytes())?;
            game += 1;
            if board_run.len() >= board_limit {
                board_run.sort_unstable_by_key(|b| b.0);
                board_run.dedup_by_key(|b| b.0);
                if board_run.len() >= board_limit / 2 {
                    match write_board_run(&mut board_run, tmp, board_runs.len()) {
                        Ok(p) => board_runs.push(p),
                        Err(e) => {
                            io_err = Some(e);
                            return Ok(false);
                        }
                    }
                }
            }
            if run.len() >= opts.run_entries {
                match write_run(&mut run, tmp, runs.len()) {
                    Ok(p) => runs.push(p),
                    Err(e) => {
                        io_err = Some(e);
                        return Ok(false);
                    }
                }
                run.clear();
            }
            Ok(true)
        },
        diagnostic,
    )?;
    if let Some(e) = io_err {
        return Err(e.into());
    }
    if tally.inputs_not_read > 0 {
        // Cut short (a truncated compressed file) or not opened: the
        // messages said why; the old index stays.
        return Err(IndexError::NotRead(input.name.clone(), Box::new(tally)));
    }
    games_out.flush()?;
    drop(games_out);
    stats.games = game;

    // Merge the runs (and the old postings) into the positions fst.
    let mut sources: Vec<Source> = Vec::new();
    if let Some(p) = &previous {
        sources.push(Source::Old(Box::new(OldPostings::new(p.clone())?)));
    }
    for r in &runs {
        sources.push(Source::Run(BufReader::with_capacity(
            1 << 16,
            File::open(r)?,
        )));
    }
    run.sort_unstable();
    sources.push(Source::Memory(std::mem::take(&mut run).into_iter()));
    let mut board_sources: Vec<BoardSource> = Vec::new();
    if let Some(p) = &previous {
        let keys = p.position_keys()?.into_iter().map(|(k, _)| k).collect();
        board_sources.push(BoardSource::Old(keys, 0, p.clone()));
    }
    for r in &board_runs {
        board_sources.push(BoardSource::Run(BufReader::with_capacity(
            1 << 16,
            File::open(r)?,
        )));
    }
    board_run.sort_unstable_by_key(|b| b.0);
    board_sources.push(BoardSource::Memory(
        std::mem::take(&mut board_run).into_iter(),
    ));
    let mut boards = BoardMerge::new(board_sources)?;
    let fst_path = tmp.join("positions.fst");
    let post_path = tmp.join("postings.bin");
    let boards_path = tmp.join("boards.bin");
    merge(
        sources,
        &mut boards,
        &fst_path,
        &post_path,
        &boards_path,
        &mut stats,
    )?;
    // The frame table of a zstd database.
    let frames_path = tmp.join("frames.bin");
    {
        let mut w = BufWriter::new(File::create(&frames_path)?);
        let frames = match &opts.database_path {
            Some(p) => crate::frames::frame_table(p).unwrap_or_default(),
            None => Vec::new(),
        };
        for (c, d) in frames {
            w.write_all(&c.to_le_bytes())?;
            w.write_all(&d.to_le_bytes())?;
        }
        w.flush()?;
    }

    // Material fst.
    let mfst_path = tmp.join("material.fst");
    let mpost_path = tmp.join("mpostings.bin");
    {
        let mut sigs: Vec<u64> = materials.keys().copied().collect();
        sigs.sort_unstable();
        let mut b = MapBuilder::new(BufWriter::new(File::create(&mfst_path)?))?;
        let mut post = BufWriter::new(File::create(&mpost_path)?);
        let mut at = 0u64;
        let mut buf = Vec::new();
        for s in sigs {
            let (_, count, bytes) = &materials[&s];
            buf.clear();
            put_varint(&mut buf, u64::from(*count));
            buf.extend_from_slice(bytes);
            post.write_all(&buf)?;
            b.insert(sig_to_bytes(s), at)?;
            at += buf.len() as u64;
        }
        b.finish()?;
        post.flush()?;
    }

    // Assemble the file: header, then the sections, written under a
    // temporary name and renamed into place on success.
    let parts = [
        fst_path,
        post_path,
        games_path,
        mfst_path,
        mpost_path,
        boards_path,
        frames_path,
    ];
    let mut header = vec![0u8; HEADER_LEN as usize];
    header[0..8].copy_from_slice(MAGIC);
    header[8..16].copy_from_slice(&stats.games.to_le_bytes());
    let mut offset = HEADER_LEN;
    for (i, p) in parts.iter().enumerate() {
        let len = std::fs::metadata(p)?.len();
        let sum = file_checksum(p)?;
        header[H_TABLE + i * 16..H_TABLE + 8 + i * 16].copy_from_slice(&offset.to_le_bytes());
        header[H_TABLE + 8 + i * 16..H_TABLE + 16 + i * 16].copy_from_slice(&len.to_le_bytes());
        header[H_SUMS + i * 8..H_SUMS + 8 + i * 8].copy_from_slice(&sum.to_le_bytes());
        offset += len;
    }
    let db_len = read.load(std::sync::atomic::Ordering::Relaxed);
    header[16..24].copy_from_slice(&db_len.to_le_bytes());
    if let Some(id) = opts.database {
        for (i, v) in [id.size, id.mtime_ns, id.hash, id.sample]
            .iter()
            .enumerate()
        {
            header[H_DB + i * 8..H_DB + 8 + i * 8].copy_from_slice(&v.to_le_bytes());
        }
        header[H_FLAGS] = HAS_IDENTITY;
    }
    let sum = checksum(&header[..H_CHECK]);
    header[H_CHECK..H_CHECK + 8].copy_from_slice(&sum.to_le_bytes());
    let mut w = gamerec::io::AtomicFile::create(out)?;
    w.write_all(&header)?;
    for p in &parts {
        io::copy(&mut File::open(p)?, &mut w)?;
    }
    if let (Some(path), Some(id)) = (&opts.database_path, opts.database)
        && stat(path)? != (id.size, id.mtime_ns)
    {
        return Err(IndexError::Stale {
            what: format!("{} changed while it was indexed", path.display()),
            append: false,
        });
    }
    w.commit()?;
    Ok((stats, tally))
}

/// XXH3-64 of a whole file.
fn file_checksum(path: &Path) -> io::Result<u64> {
    let len = std::fs::metadata(path)?.len();
    prefix_hash(&mut File::open(path)?, len)?
        .ok_or_else(|| io::Error::other(format!("{}: shrank while read", path.display())))
}

fn sig_to_bytes(s: u64) -> [u8; 5] {
    let b = s.to_be_bytes();
    [b[3], b[4], b[5], b[6], b[7]]
}

fn sig_from_bytes(k: &[u8]) -> u64 {
    k.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

fn merge(
    sources: Vec<Source>,
    boards: &mut BoardMerge,
    fst_path: &Path,
    post_path: &Path,
    boards_path: &Path,
    stats: &mut BuildStats,
) -> Result<(), IndexError> {
    let mut boards_out = BufWriter::with_capacity(1 << 20, File::create(boards_path)?);
    let mut sources = sources;
    let mut heap: BinaryHeap<Reverse<(Entry, usize)>> = BinaryHeap::new();
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(e) = s.next()? {
            heap.push(Reverse((e, i)));
        }
    }
    let mut b = MapBuilder::new(BufWriter::with_capacity(1 << 20, File::create(fst_path)?))?;
    let mut post = BufWriter::with_capacity(1 << 20, File::create(post_path)?);
    let mut at = 0u64;
    let mut group: Vec<(u32, u16)> = Vec::new();
    let mut group_key: Option<u64> = None;
    let mut buf = Vec::new();
    let mut flush = |key: u64,
                     group: &mut Vec<(u32, u16)>,
                     b: &mut MapBuilder<_>,
                     stats: &mut BuildStats|
     -> Result<(), IndexError> {
        stats.positions += 1;
        stats.postings += group.len() as u64;
        let value = if let [(g, p)] = group[..] {
            SINGLE | (u64::from(g) << 16) | u64::from(p)
        } else {
            buf.clear();
            put_varint(&mut buf, group.len() as u64);
            let mut last = 0u32;
            for &(g, p) in group.iter() {
                put_varint(&mut buf, u64::from(g - last));
                put_varint(&mut buf, u64::from(p));
                last = g;
            }
            post.write_all(&buf)?;
            let v = at;
            at += buf.len() as u64;
            v
        };
        b.insert(key.to_be_bytes(), value)?;
        boards_out.write_all(&boards.take(key)?)?;
        boards_out.write_all(&value.to_le_bytes())?;
        group.clear();
        Ok(())
    };
    while let Some(Reverse((e, i))) = heap.pop() {
        if let Some(next) = sources[i].next()? {
            heap.push(Reverse((next, i)));
        }
        if group_key != Some(e.key) {
            if let Some(k) = group_key {
                flush(k, &mut group, &mut b, stats)?;
            }
            group_key = Some(e.key);
        }
        group.push((e.game, e.ply));
    }
    if let Some(k) = group_key {
        flush(k, &mut group, &mut b, stats)?;
    }
    b.finish()?;
    post.flush()?;
    boards_out.flush()?;
    Ok(())
}

/// The bytes of an index: its file mapped, or held in memory.
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// A byte range of the index's bytes, as fst data.
#[derive(Clone)]
struct Slice {
    map: Arc<Bytes>,
    start: usize,
    end: usize,
}

impl AsRef<[u8]> for Slice {
    fn as_ref(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }
}

/// An opened index (memory-mapped).
pub struct Index {
    map: Arc<Bytes>,
    /// The file's name, for messages.
    name: String,
    sections: [(usize, usize); SECTIONS],
    games: u64,
    positions: Map<Slice>,
    materials: Map<Slice>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("games", &self.games)
            .finish_non_exhaustive()
    }
}

/// What [`Index::position_games`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionGames {
    /// (game, first matching ply), in game order.
    pub found: Vec<(u32, u16)>,
    /// Games to replay to know (a position of theirs is not stored).
    pub replay: Vec<u32>,
}

/// One continuation in the opening tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeMove {
    /// The move in SAN.
    pub san: String,
    /// The move in UCI (`0000` for a null move).
    pub uci: String,
    /// Games that played it.
    pub games: u64,
    /// Of those: White wins, draws, Black wins.
    pub white: u64,
    /// Draws.
    pub draws: u64,
    /// Black wins.
    pub black: u64,
    /// Average Elo of the players (games with ratings, rounded to the
    /// nearest), `None` if none.
    pub average_elo: Option<u32>,
}

/// The games reaching a position, by result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Games reaching the position (each counted once).
    pub games: u64,
    /// Of those: White wins.
    pub white: u64,
    /// Draws.
    pub draws: u64,
    /// Black wins.
    pub black: u64,
    /// Games whose main line ends in the position.
    pub ended: u64,
    /// Games that could not be read (not indexed by position: never here).
    pub unknown_result: u64,
}

/// Runs `read`, a read of section `section`'s fst, turning a panic into an
/// error. The fst crate trusts its bytes: damaged nodes make it panic
/// (an assertion, an index out of bounds). The checksums refuse damage by
/// accident; a file crafted to pass them is caught here, at each read (a
/// whole check of the fst when the index is opened would cost a pass over
/// every key).
fn fst_read<T>(name: &str, section: usize, read: impl FnOnce() -> T) -> Result<T, IndexError> {
    gamerec::caught::catch(read).map_err(|_| {
        IndexError::Format(format!(
            "{name}: {} section damaged (its fst cannot be read); rebuild it with `gamerec index`",
            SECTION_NAMES[section]
        ))
    })
}

impl Index {
    /// Opens and maps an index file, checking the header's and every
    /// section's checksum: a damaged index is refused, never read.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        let file = File::open(path)?;
        // SAFETY: the index is immutable once written (builds write a new
        // file and rename it into place); a file truncated under us would
        // fault, as with any mapped reader.
        let map = unsafe { Mmap::map(&file)? };
        Index::from(Bytes::Mapped(map), &path.display().to_string())
    }

    /// An index held in memory (`name` is used in messages), checked as
    /// [`Index::open`] checks a file.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<Index, IndexError> {
        Index::from(Bytes::Owned(bytes), name)
    }

    fn from(map: Bytes, name: &str) -> Result<Index, IndexError> {
        let map = Arc::new(map);
        let bad = |m: String| IndexError::Format(format!("{name}: {m}"));
        let rebuild = "; rebuild it with `gamerec index`";
        if map.len() >= 8 && MAGIC_OLD.iter().any(|m| &map[0..8] == *m) {
            return Err(bad(format!("an index of an older version{rebuild}")));
        }
        if map.len() < 8 || &map[0..8] != MAGIC {
            return Err(bad("not a gamerec index (bad magic)".into()));
        }
        if map.len() < HEADER_LEN as usize {
            return Err(bad(format!(
                "truncated: {} bytes, shorter than the header{rebuild}",
                map.len()
            )));
        }
        let u64_at = |i: usize| {
            map.get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        if checksum(&map[..H_CHECK]) != u64_at(H_CHECK) {
            return Err(bad(format!("header checksum mismatch (damaged){rebuild}")));
        }
        let games = u64_at(8);
        let mut sections = [(0usize, 0usize); SECTIONS];
        let mut expect = HEADER_LEN;
        for (i, s) in sections.iter_mut().enumerate() {
            let (o, l) = (u64_at(H_TABLE + i * 16), u64_at(H_TABLE + 8 + i * 16));
            let end = o.checked_add(l).filter(|_| o == expect);
            let Some(end) = end.filter(|&e| e <= map.len() as u64) else {
                return Err(bad(format!(
                    "{} section ends at byte {}, the file has {} (truncated?){rebuild}",
                    SECTION_NAMES[i],
                    o.saturating_add(l),
                    map.len()
                )));
            };
            *s = (o as usize, end as usize);
            expect = end;
        }
        if expect != map.len() as u64 {
            return Err(bad(format!(
                "{} bytes, the header describes {expect}{rebuild}",
                map.len()
            )));
        }
        if Some((sections[2].1 - sections[2].0) as u64) != games.checked_mul(GAME_RECORD as u64) {
            return Err(bad(format!("games section size{rebuild}")));
        }
        for (i, record) in [(S_BOARDS, BOARD_RECORD), (S_FRAMES, FRAME_RECORD)] {
            if !(sections[i].1 - sections[i].0).is_multiple_of(record) {
                return Err(bad(format!("{} section size{rebuild}", SECTION_NAMES[i])));
            }
        }
        for (i, &(a, b)) in sections.iter().enumerate() {
            if checksum(&map[a..b]) != u64_at(H_SUMS + i * 8) {
                return Err(bad(format!(
                    "{} section checksum mismatch (damaged){rebuild}",
                    SECTION_NAMES[i]
                )));
            }
        }
        let slice = |i: usize| Slice {
            map: map.clone(),
            start: sections[i].0,
            end: sections[i].1,
        };
        let map_of =
            |i: usize| fst_read(name, i, || Map::new(slice(i)))?.map_err(|e| bad(e.to_string()));
        let positions = map_of(0)?;
        let materials = map_of(3)?;
        Ok(Index {
            map,
            name: name.to_owned(),
            sections,
            games,
            positions,
            materials,
        })
    }

    fn u64_at(&self, i: usize) -> u64 {
        self.map
            .get(i..i + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }

    /// The database identity the index records, `None` if it records none.
    pub fn database(&self) -> Option<DbIdentity> {
        (self.map.get(H_FLAGS).copied().unwrap_or(0) & HAS_IDENTITY != 0).then(|| DbIdentity {
            size: self.u64_at(H_DB),
            mtime_ns: self.u64_at(H_DB + 8),
            hash: self.u64_at(H_DB + 16),
            sample: self.u64_at(H_DB + 24),
        })
    }

    /// Checks that `db` is the file the index was built from: same size and
    /// sampled hash; when its modification time changed (or with `full`),
    /// the hash of all its bytes too.
    pub fn check_database(&self, db: &Path, full: bool) -> Result<(), IndexError> {
        let Some(id) = self.database() else {
            return Err(IndexError::Stale {
                what: "the index records no database identity".into(),
                append: false,
            });
        };
        let (size, mtime) = stat(db)?;
        let mut f = File::open(db)?;
        if size != id.size {
            let append = size > id.size && prefix_hash(&mut f, id.size)? == Some(id.hash);
            let what = if size < id.size {
                format!("it has shrunk from {} to {size} bytes", id.size)
            } else if append {
                format!(
                    "{} bytes were added after the {} indexed",
                    size - id.size,
                    id.size
                )
            } else {
                format!(
                    "it has grown from {} to {size} bytes and its first {} bytes differ",
                    id.size, id.size
                )
            };
            return Err(IndexError::Stale { what, append });
        }
        let edited = || IndexError::Stale {
            what: format!("its bytes differ (same size, {size} bytes)"),
            append: false,
        };
        if sample_hash(&mut f, size)? != Some(id.sample) {
            return Err(edited());
        }
        if (full || mtime != id.mtime_ns)
            && size > crate::identity::SAMPLE_WHOLE
            && prefix_hash(&mut f, size)? != Some(id.hash)
        {
            return Err(edited());
        }
        Ok(())
    }

    /// For appending: checks that the first bytes of `db` are the ones the
    /// index was built from (more may follow).
    pub fn check_prefix(&self, db: &Path) -> Result<(), IndexError> {
        match self.check_database(db, true) {
            Err(IndexError::Stale { append: true, .. }) | Ok(()) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn section(&self, i: usize) -> &[u8] {
        &self.map[self.sections[i].0..self.sections[i].1]
    }

    /// Every (position key, postings value), in key order.
    fn position_keys(&self) -> Result<Vec<(u64, u64)>, IndexError> {
        fst_read(&self.name, 0, || {
            // The fst's count is read from its bytes: bounded by them.
            let mut keys = Vec::with_capacity(self.positions.len().min(self.section(0).len()));
            let mut s = self.positions.stream();
            while let Some((k, v)) = s.next() {
                keys.push((u64::from_be_bytes(k.try_into().unwrap_or([0; 8])), v));
            }
            keys
        })
    }

    /// Every (material signature, game postings value), in order.
    fn material_keys(&self) -> Result<Vec<(u64, u64)>, IndexError> {
        fst_read(&self.name, 3, || {
            let mut keys = Vec::with_capacity(self.materials.len().min(self.section(3).len()));
            let mut s = self.materials.stream();
            while let Some((k, v)) = s.next() {
                keys.push((sig_from_bytes(k), v));
            }
            keys
        })
    }

    /// Games indexed.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Bytes of the (decompressed) database the index covers.
    pub fn db_len(&self) -> u64 {
        self.u64_at(16)
    }

    /// Size of the index file.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The summary of game `g` (0-based).
    pub fn game(&self, g: u32) -> Option<GameInfo> {
        let s = self.section(2);
        let at = g as usize * GAME_RECORD;
        s.get(at..at.checked_add(GAME_RECORD)?)
            .map(GameInfo::from_bytes)
    }

    fn decode(&self, value: u64) -> Vec<(u32, u16)> {
        let mut out = Vec::new();
        self.for_each_posting(value, |g, p| out.push((g, p)));
        out
    }

    /// Calls `f` with each (game, ply) of a postings value; returns how
    /// many it read.
    fn for_each_posting(&self, value: u64, mut f: impl FnMut(u32, u16)) -> u64 {
        if value & SINGLE != 0 {
            f(((value & !SINGLE) >> 16) as u32, value as u16);
            return 1;
        }
        let data = self.section(1);
        let mut at = usize::try_from(value).unwrap_or(usize::MAX);
        let Some(n) = get_varint(data, &mut at) else {
            return 0;
        };
        let mut game = 0u64;
        let mut read = 0;
        for _ in 0..n {
            let (Some(d), Some(p)) = (get_varint(data, &mut at), get_varint(data, &mut at)) else {
                break;
            };
            let Some(g) = game.checked_add(d).filter(|&g| g <= u64::from(u32::MAX)) else {
                break;
            };
            game = g;
            f(game as u32, p as u16);
            read += 1;
        }
        read
    }

    /// The most (game, ply) pairs a scan of every position can read from an
    /// index that is not damaged: one per pair of the postings section (two
    /// bytes at least each) and one per position holding its own. A
    /// crafted file whose positions share a long list would make a scan's
    /// work (and what it collects) grow with the square of its size: scans
    /// stop past this bound with [`Index::shared_postings`].
    fn postings_bound(&self) -> u64 {
        (self.section(1).len() / 2 + self.boards()) as u64
    }

    /// The most game numbers a scan of every material signature can read
    /// (one byte at least each), as [`Index::postings_bound`].
    fn material_postings_bound(&self) -> u64 {
        self.section(4).len() as u64
    }

    /// The error of a scan that read more than its bound from `section`.
    fn shared_postings(&self, section: usize) -> IndexError {
        IndexError::Format(format!(
            "{}: {} section damaged (read more than it holds: lists shared); rebuild it with `gamerec index`",
            self.name, SECTION_NAMES[section]
        ))
    }

    /// Distinct positions (records of the boards section).
    pub fn boards(&self) -> usize {
        self.section(S_BOARDS).len() / BOARD_RECORD
    }

    /// Record `i` of the boards section: the packed board and the postings
    /// value.
    fn board_record(&self, i: usize) -> Option<([u8; PACKED_LEN], u64)> {
        let at = i.checked_mul(BOARD_RECORD)?;
        let r = self.section(S_BOARDS).get(at..at + BOARD_RECORD)?;
        let mut board = [0u8; PACKED_LEN];
        board.copy_from_slice(&r[..PACKED_LEN]);
        let value = u64::from_le_bytes(r[PACKED_LEN..].try_into().unwrap_or([0; 8]));
        Some((board, value))
    }

    /// The frame table of a zstd database (see [`crate::frames`]), empty
    /// for a plain one or a single frame.
    pub fn frames(&self) -> Vec<(u64, u64)> {
        self.section(S_FRAMES)
            .chunks_exact(FRAME_RECORD)
            .map(|r| {
                let u = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap_or([0; 8]));
                (u(0), u(8))
            })
            .collect()
    }

    /// The frame of a zstd database holding decompressed byte `offset`:
    /// (its offset in the file, its first and its end offset in the
    /// decompressed bytes); `None` without a frame table.
    pub fn frame_at(&self, offset: u64) -> Option<(u64, u64, u64)> {
        let s = self.section(S_FRAMES);
        let n = s.len() / FRAME_RECORD;
        let rec = |i: usize| {
            let r = &s[i * FRAME_RECORD..(i + 1) * FRAME_RECORD];
            let u = |j: usize| u64::from_le_bytes(r[j..j + 8].try_into().unwrap_or([0; 8]));
            (u(0), u(8))
        };
        if n == 0 {
            return None;
        }
        let (mut lo, mut hi) = (0, n);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if rec(mid).1 <= offset {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (c, d) = rec(lo);
        let end = if lo + 1 < n {
            rec(lo + 1).1
        } else {
            self.db_len()
        };
        Some((c, d, end.max(d)))
    }

    /// The games whose main line reaches a position `test` accepts (given
    /// its packed board, see [`Pieces`]), each with the first such ply, in
    /// game order; the boards section is scanned on `threads` threads.
    /// Games with a position that could not be packed (more than 32
    /// pieces) are in `replay` instead: the caller replays them. An error
    /// when the postings are damaged (see [`Index::postings_bound`]).
    pub fn position_games(
        &self,
        test: impl Fn(&[u8; PACKED_LEN]) -> bool + Sync,
        threads: usize,
    ) -> Result<PositionGames, IndexError> {
        let data = self.section(S_BOARDS);
        let n = data.len() / BOARD_RECORD;
        let games = usize::try_from(self.games).unwrap_or(0);
        let threads = threads.clamp(1, 64);
        let chunk = n.div_ceil(threads).max(1);
        let bound = self.postings_bound();
        let parts: Vec<Option<(Vec<u32>, Vec<u32>)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let test = &test;
                    let (lo, hi) = ((t * chunk).min(n), ((t + 1) * chunk).min(n));
                    let part = &data[lo * BOARD_RECORD..hi * BOARD_RECORD];
                    s.spawn(move || {
                        let mut best: Vec<u32> = Vec::new();
                        let mut replay = Vec::new();
                        let mut read = 0u64;
                        for rec in part.chunks_exact(BOARD_RECORD) {
                            let mut board = [0u8; PACKED_LEN];
                            board.copy_from_slice(&rec[..PACKED_LEN]);
                            let unpacked = board == UNPACKED;
                            if !unpacked && !test(&board) {
                                continue;
                            }
                            let value =
                                u64::from_le_bytes(rec[PACKED_LEN..].try_into().unwrap_or([0; 8]));
                            if best.is_empty() {
                                best = vec![u32::MAX; games];
                            }
                            read += self.for_each_posting(value, |g, p| {
                                if unpacked {
                                    replay.push(g);
                                } else if let Some(b) = best.get_mut(g as usize) {
                                    *b = (*b).min(u32::from(p));
                                }
                            });
                            if read > bound {
                                return None;
                            }
                        }
                        Some((best, replay))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        let mut best = vec![u32::MAX; games];
        let mut replay = Vec::new();
        for part in parts {
            let Some((b, r)) = part else {
                return Err(self.shared_postings(1));
            };
            for (x, y) in best.iter_mut().zip(&b) {
                *x = (*x).min(*y);
            }
            replay.extend(r);
        }
        replay.sort_unstable();
        replay.dedup();
        let found = best
            .iter()
            .enumerate()
            .filter(|&(g, &p)| p != u32::MAX && replay.binary_search(&(g as u32)).is_err())
            .map(|(g, &p)| (g as u32, p as u16))
            .collect();
        Ok(PositionGames { found, replay })
    }

    fn decode_games(&self, value: u64) -> Vec<u32> {
        let data = self.section(4);
        let mut at = usize::try_from(value).unwrap_or(usize::MAX);
        let Some(n) = get_varint(data, &mut at) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity((n as usize).min(data.len()));
        let mut next = 0u64;
        for _ in 0..n {
            let Some(d) = get_varint(data, &mut at) else {
                break;
            };
            let Some(n) = next
                .checked_add(d)
                .filter(|&n| n >= 1 && n <= u64::from(u32::MAX) + 1)
            else {
                break;
            };
            next = n;
            out.push((next - 1) as u32);
        }
        out
    }

    /// The games (0-based) reaching the position, each with the first ply
    /// it is reached at, in game order. An error when the positions
    /// section is damaged (see [`IndexError::Format`]).
    pub fn find(&self, pos: &Chess) -> Result<Vec<(u32, u16)>, IndexError> {
        let value = fst_read(&self.name, 0, || self.positions.get(key(pos).to_be_bytes()))?;
        Ok(value.map_or_else(Vec::new, |v| self.decode(v)))
    }

    /// Games whose main line may reach a position matching: some material
    /// signature in the game passes `material_ok`, and the game's pawns ever
    /// covered `pawns` (White, Black). A superset: callers verify.
    pub fn candidates(
        &self,
        material_ok: impl Fn(u64) -> bool,
        pawns: [u64; 2],
    ) -> Result<Vec<u32>, IndexError> {
        let mut games: Vec<u32> = Vec::new();
        for (sig, v) in self.material_keys()? {
            if material_ok(sig) {
                games.extend(self.decode_games(v));
                if games.len() as u64 > self.material_postings_bound() {
                    return Err(self.shared_postings(4));
                }
            }
        }
        games.sort_unstable();
        games.dedup();
        games.retain(|&g| {
            self.game(g).is_some_and(|i| {
                i.white_pawns & pawns[0] == pawns[0] && i.black_pawns & pawns[1] == pawns[1]
            })
        });
        Ok(games)
    }

    /// The opening-explorer view of a position: every legal move that some
    /// game played from it (at the ply it first reached it), with counts,
    /// results and average rating, most played first.
    pub fn tree(&self, pos: &Chess) -> Result<Vec<TreeMove>, IndexError> {
        Ok(self
            .tree_games(pos, |_| true)?
            .into_iter()
            .map(|(t, _)| t)
            .collect())
    }

    /// [`Index::tree`] over the games `keep` accepts, each move with its
    /// games (0-based, in order).
    pub fn tree_games(
        &self,
        pos: &Chess,
        keep: impl Fn(&GameInfo) -> bool,
    ) -> Result<Vec<(TreeMove, Vec<u32>)>, IndexError> {
        let parent: Vec<(u32, u16, GameInfo)> = self
            .find(pos)?
            .into_iter()
            .filter_map(|(g, p)| {
                let info = self.game(g).unwrap_or_default();
                keep(&info).then_some((g, p, info))
            })
            .collect();
        if parent.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let mut moves: Vec<PlyMove> = pos.legal_moves().into_iter().map(PlyMove::Move).collect();
        // Null moves (`--`, as ChessBase writes them) when not in check.
        if !pos.is_check() {
            moves.push(PlyMove::Null);
        }
        for m in moves {
            let Ok(child) = gamerec::model::try_play_ply(pos, m) else {
                continue;
            };
            let kids = self.find(&child)?;
            // Games in both, the child one ply later.
            let (mut i, mut j) = (0, 0);
            let mut t = TreeMove {
                san: gamerec::san::write_san(pos, m),
                uci: match m {
                    PlyMove::Move(mv) => mv.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                    PlyMove::Null => "0000".into(),
                },
                games: 0,
                white: 0,
                draws: 0,
                black: 0,
                average_elo: None,
            };
            let mut games = Vec::new();
            let (mut elo_sum, mut elo_n) = (0u64, 0u64);
            while i < parent.len() && j < kids.len() {
                match parent[i].0.cmp(&kids[j].0) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        if u32::from(kids[j].1) == u32::from(parent[i].1) + 1 {
                            t.games += 1;
                            games.push(parent[i].0);
                            let info = &parent[i].2;
                            match info.result() {
                                Some(GameResult::WhiteWins) => t.white += 1,
                                Some(GameResult::BlackWins) => t.black += 1,
                                Some(GameResult::Draw) => t.draws += 1,
                                _ => {}
                            }
                            for e in [info.white_elo, info.black_elo] {
                                if e > 0 {
                                    elo_sum += u64::from(e);
                                    elo_n += 1;
                                }
                            }
                        }
                        i += 1;
                        j += 1;
                    }
                }
            }
            if t.games > 0 {
                t.average_elo = (elo_n > 0).then(|| ((elo_sum + elo_n / 2) / elo_n) as u32);
                out.push((t, games));
            }
        }
        out.sort_by(|(a, _), (b, _)| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
        Ok(out)
    }
}

impl Index {
    /// Every game reaching the position (at its first ply there), by
    /// result, and how many end there.
    pub fn totals(&self, pos: &Chess) -> Result<Totals, IndexError> {
        self.totals_of(pos, |_| true)
    }

    /// [`Index::totals`] over the games `keep` accepts.
    pub fn totals_of(
        &self,
        pos: &Chess,
        keep: impl Fn(&GameInfo) -> bool,
    ) -> Result<Totals, IndexError> {
        let mut t = Totals::default();
        for (g, ply) in self.find(pos)? {
            let info = self.game(g);
            if !keep(&info.unwrap_or_default()) {
                continue;
            }
            t.games += 1;
            let Some(info) = info else { continue };
            match info.result() {
                Some(GameResult::WhiteWins) => t.white += 1,
                Some(GameResult::BlackWins) => t.black += 1,
                Some(GameResult::Draw) => t.draws += 1,
                _ => t.unknown_result += 1,
            }
            if info.plies == ply {
                t.ended += 1;
            }
        }
        Ok(t)
    }
}

/// Test support (the fuzz target, corruption tests): rewrites the
/// checksums of an index's header, its sections' and its own, to match
/// `bytes`, so that content changed on purpose gets past
/// [`Index::open`]'s checks to the readers behind them. A section the
/// header places outside `bytes` keeps its checksum.
#[doc(hidden)]
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN as usize {
        return;
    }
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
    for i in 0..SECTIONS {
        let (o, l) = (
            u64_at(bytes, H_TABLE + i * 16),
            u64_at(bytes, H_TABLE + 8 + i * 16),
        );
        let range = o
            .checked_add(l)
            .filter(|&end| end <= bytes.len() as u64)
            .map(|end| o as usize..end as usize);
        if let Some(range) = range {
            let sum = checksum(&bytes[range]);
            bytes[H_SUMS + i * 8..H_SUMS + 8 + i * 8].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let sum = checksum(&bytes[..H_CHECK]);
    bytes[H_CHECK..H_CHECK + 8].copy_from_slice(&sum.to_le_bytes());
}

/// `input` after its first `from` bytes (for reading one game at its offset
/// in a stream that cannot seek, such as a compressed database).
pub fn skip_to(mut input: impl Read, from: u64) -> io::Result<impl Read> {
    io::copy(&mut (&mut input).take(from), &mut io::sink())?;
    Ok(input)
}
