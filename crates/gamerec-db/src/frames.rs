//! Seeking in a zstd-compressed database: the table of its independent
//! frames (where each starts in the file and in the decompressed bytes),
//! written by `index`, lets a game be read by decompressing from the start
//! of its frame instead of from the start of the file.
//!
//! A file of one frame has no table (it cannot be entered in the middle);
//! `zstd` writes one frame per file,
//! `split -C 1M --filter 'zstd -c' db.pgn > db.pgn.zst` one per megabyte.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use memmap2::Mmap;

const ZSTD_MAGIC: u32 = 0xFD2F_B528;

fn is_skippable(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

/// The data frames of the zstd file at `path` as (byte offset in the file,
/// byte offset in the decompressed data), in order; empty when the file is
/// not zstd or holds a single frame. Frames whose header gives no content
/// size are decompressed to count their bytes.
pub fn frame_table(path: &Path) -> io::Result<Vec<(u64, u64)>> {
    let file = File::open(path)?;
    if file.metadata()?.len() < 4 {
        return Ok(Vec::new());
    }
    // SAFETY: read-only map of the database; the index build checks its
    // size and time again before the index is kept.
    let map = unsafe { Mmap::map(&file)? };
    let magic_at = |at: usize| {
        map.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if magic_at(0) != Some(ZSTD_MAGIC) && !magic_at(0).is_some_and(is_skippable) {
        return Ok(Vec::new());
    }
    let bad = |at: usize, what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: byte {at}: {what}", path.display()),
        )
    };
    let mut frames = Vec::new();
    let (mut at, mut out) = (0usize, 0u64);
    while at < map.len() {
        let rest = &map[at..];
        let len = zstd::zstd_safe::find_frame_compressed_size(rest)
            .map_err(|_| bad(at, "not a zstd frame"))?;
        if len == 0 || len > rest.len() {
            return Err(bad(at, "truncated zstd frame"));
        }
        let frame = &rest[..len];
        if magic_at(at).is_some_and(|m| !is_skippable(m)) {
            let size = match zstd::zstd_safe::get_frame_content_size(frame) {
                Ok(Some(n)) => n,
                Ok(None) => {
                    let mut d = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
                    io::copy(&mut d, &mut io::sink())?
                }
                Err(_) => return Err(bad(at, "bad zstd frame header")),
            };
            frames.push((at as u64, out));
            out += size;
        }
        at += len;
    }
    if frames.len() < 2 {
        frames.clear();
    }
    Ok(frames)
}

/// The decompressed bytes of the zstd file at `path` from byte `offset`
/// on, entered at the frame that starts at byte `frame` of the file and at
/// byte `start` (at most `offset`) of the decompressed data.
pub fn read_from(path: &Path, frame: u64, start: u64, offset: u64) -> io::Result<impl Read> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(frame))?;
    let mut r = zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(1 << 16, f))?;
    io::copy(
        &mut (&mut r).take(offset.saturating_sub(start)),
        &mut io::sink(),
    )?;
    Ok(r)
}
