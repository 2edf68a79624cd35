//! What an index knows of its database: the file's size, modification time,
//! a hash of all its bytes and a hash of sampled blocks (cheap to check on
//! every query). Hashes are XXH3-64 of the bytes on disk (compressed bytes
//! for a compressed database).

use std::fs::File;
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use twox_hash::XxHash3_64;

/// Files up to this size are sampled whole (the sample is the full hash).
pub const SAMPLE_WHOLE: u64 = 64 << 20;
/// Blocks read for the sampled hash of a larger file.
const SAMPLE_BLOCKS: u64 = 256;
/// Bytes per sampled block.
const SAMPLE_BLOCK: u64 = 4096;

/// The identity of a database file as an index records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DbIdentity {
    /// Bytes on disk.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 if unknown).
    pub mtime_ns: u64,
    /// XXH3-64 of all `size` bytes.
    pub hash: u64,
    /// XXH3-64 of the sampled blocks (see [`sample_hash`]).
    pub sample: u64,
}

/// Size and modification time of a file.
pub fn stat(path: &Path) -> io::Result<(u64, u64)> {
    let m = std::fs::metadata(path)?;
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    Ok((m.len(), mtime))
}

/// XXH3-64 of the first `len` bytes of `file` (from its start); `None` if
/// the file is shorter.
pub fn prefix_hash(file: &mut File, len: u64) -> io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(0))?;
    let mut h = XxHash3_64::new();
    let mut left = len;
    let mut buf = vec![0u8; 1 << 20];
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            return Ok(None);
        }
        h.write(&buf[..n]);
        left -= n as u64;
    }
    Ok(Some(h.finish()))
}

/// XXH3-64 of sampled blocks of a `size`-byte file: the whole file up to
/// [`SAMPLE_WHOLE`], else 256 blocks of 4 KiB spread evenly from the first
/// to the last byte, with the size mixed in.
pub fn sample_hash(file: &mut File, size: u64) -> io::Result<Option<u64>> {
    if size <= SAMPLE_WHOLE {
        return prefix_hash(file, size);
    }
    let mut h = XxHash3_64::new();
    h.write(&size.to_le_bytes());
    let mut buf = vec![0u8; SAMPLE_BLOCK as usize];
    let span = size - SAMPLE_BLOCK;
    for i in 0..SAMPLE_BLOCKS {
        let at =
            span / (SAMPLE_BLOCKS - 1) * i + (span % (SAMPLE_BLOCKS - 1)) * i / (SAMPLE_BLOCKS - 1);
        file.seek(SeekFrom::Start(at))?;
        if let Err(e) = file.read_exact(&mut buf) {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                return Ok(None);
            }
            return Err(e);
        }
        h.write(&buf);
    }
    Ok(Some(h.finish()))
}

impl DbIdentity {
    /// Reads the whole file and records its identity.
    pub fn of_file(path: &Path) -> io::Result<DbIdentity> {
        let (size, mtime_ns) = stat(path)?;
        let mut f = File::open(path)?;
        let short = || io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while hashed");
        let hash = prefix_hash(&mut f, size)?.ok_or_else(short)?;
        let sample = sample_hash(&mut f, size)?.ok_or_else(short)?;
        Ok(DbIdentity {
            size,
            mtime_ns,
            hash,
            sample,
        })
    }

    /// The identity of bytes held in memory (modification time unknown).
    pub fn of_bytes(data: &[u8]) -> DbIdentity {
        let size = data.len() as u64;
        let hash = XxHash3_64::oneshot(data);
        let sample = if size <= SAMPLE_WHOLE {
            hash
        } else {
            let mut h = XxHash3_64::new();
            h.write(&size.to_le_bytes());
            let span = size - SAMPLE_BLOCK;
            for i in 0..SAMPLE_BLOCKS {
                let at = span / (SAMPLE_BLOCKS - 1) * i
                    + (span % (SAMPLE_BLOCKS - 1)) * i / (SAMPLE_BLOCKS - 1);
                h.write(&data[at as usize..(at + SAMPLE_BLOCK) as usize]);
            }
            h.finish()
        };
        DbIdentity {
            size,
            mtime_ns: 0,
            hash,
            sample,
        }
    }
}

/// XXH3-64 of a byte slice (section checksums).
pub fn checksum(data: &[u8]) -> u64 {
    XxHash3_64::oneshot(data)
}
