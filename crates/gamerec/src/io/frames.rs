//! zstd streams of several frames decoded on several threads.
//!
//! A zstd frame says where it ends without being decoded: its header gives
//! the sizes of its fields and each block's header the size of the block.
//! A stream of small frames (what `pzstd` writes, or `.zst` files joined
//! with `cat`) is cut into frames by one thread and the frames are decoded
//! by a pool of threads, their output handed to the reader in order. A
//! stream whose first frames are large (what `zstd` writes: one frame for
//! the whole file) is decoded as before, on one thread ahead of the reader,
//! from the first large frame on. gzip members do not say their length, so
//! gzip is always decoded on one thread.
//!
//! Memory is bounded: a frame is decoded in parallel only if it has at most
//! [`MAX_FRAME_BLOCKS`] blocks (each at most 128 KiB decoded), at most
//! [`in_flight`] frames are read ahead of the reader, and at most one spent
//! output buffer per decoding thread is kept for reuse.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use super::input::read_buffered;

/// The most blocks a frame decoded in parallel may have (its output is at
/// most 128 KiB a block: 16 MiB). `pzstd` at its default level writes
/// frames of 64 blocks.
pub const MAX_FRAME_BLOCKS: usize = 128;
/// Largest decoded size of one zstd block.
const BLOCK_MAX: usize = 128 << 10;
/// zstd's frame magic number (little-endian on disk).
const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames: magic numbers `0x184D2A50..=0x184D2A5F`.
const SKIPPABLE_MASK: u32 = 0xFFFF_FFF0;
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

/// The decoding threads: the machine's cores, at most 8.
fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

/// Whether there is more than one core to decode on.
pub fn worth_it() -> bool {
    workers() > 1
}

/// Frames read ahead of the reader (queued, being decoded or decoded and
/// waiting their turn) with `workers` decoding threads.
pub const fn in_flight(workers: usize) -> usize {
    workers + 1
}

/// What the cutting thread hands the reader, in stream order.
enum Piece {
    /// A frame being decoded by the pool: its output comes through here.
    Frame(Receiver<io::Result<Vec<u8>>>),
    /// Output decoded by the cutting thread itself (after a large frame).
    Decoded(io::Result<Vec<u8>>),
}

/// A frame's bytes and the channel its output goes to.
type Job = (Vec<u8>, usize, SyncSender<io::Result<Vec<u8>>>);

/// One frame cut from the stream.
enum Cut {
    /// A whole frame of at most [`MAX_FRAME_BLOCKS`] blocks, with a bound on
    /// its decoded size.
    Small(Vec<u8>, usize),
    /// A skippable frame (no output).
    Skipped,
    /// A large frame, an unknown magic number or a truncated frame: these
    /// bytes and the rest of the stream go to the one-thread decoder.
    Rest(Vec<u8>),
    /// The end of the stream, between frames.
    End,
}

/// Reads exactly `n` more bytes of `raw` onto `buf`: `false` if the stream
/// ended first (what was there is on `buf`).
fn take(raw: &mut impl Read, buf: &mut Vec<u8>, n: usize) -> io::Result<bool> {
    let want = n as u64;
    let got = raw.take(want).read_to_end(buf)?;
    Ok(got as u64 == want)
}

/// Cuts the next frame from `raw` (see [`Cut`]).
fn cut_frame(raw: &mut impl Read) -> io::Result<Cut> {
    let mut buf = Vec::new();
    if !take(raw, &mut buf, 4)? {
        return Ok(if buf.is_empty() {
            Cut::End
        } else {
            Cut::Rest(buf)
        });
    }
    let magic = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
    if magic & SKIPPABLE_MASK == SKIPPABLE_MAGIC {
        if !take(raw, &mut buf, 4)? {
            return Ok(Cut::Rest(buf));
        }
        let size = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]) as u64;
        let skipped = io::copy(&mut raw.take(size), &mut io::sink())?;
        return Ok(if skipped == size {
            Cut::Skipped
        } else {
            // Truncated: the decoder says so.
            Cut::Rest(buf)
        });
    }
    if magic != ZSTD_MAGIC || !take(raw, &mut buf, 1)? {
        return Ok(Cut::Rest(buf));
    }
    let descriptor = buf[4];
    let single_segment = descriptor & 0x20 != 0;
    let checksum = descriptor & 0x04 != 0;
    let dictionary = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let header = usize::from(!single_segment) + dictionary + content_size;
    if descriptor & 0x08 != 0 || !take(raw, &mut buf, header)? {
        // A reserved bit set, or truncated.
        return Ok(Cut::Rest(buf));
    }
    let mut blocks = 0;
    loop {
        if blocks == MAX_FRAME_BLOCKS {
            return Ok(Cut::Rest(buf));
        }
        let at = buf.len();
        if !take(raw, &mut buf, 3)? {
            return Ok(Cut::Rest(buf));
        }
        let head = u32::from(buf[at]) | u32::from(buf[at + 1]) << 8 | u32::from(buf[at + 2]) << 16;
        let last = head & 1 != 0;
        let size = match (head >> 1) & 3 {
            // Raw and compressed blocks: `size` bytes; RLE: one.
            0 | 2 => (head >> 3) as usize,
            1 => 1,
            _ => return Ok(Cut::Rest(buf)),
        };
        blocks += 1;
        if size > BLOCK_MAX || !take(raw, &mut buf, size)? {
            return Ok(Cut::Rest(buf));
        }
        if last {
            break;
        }
    }
    if checksum && !take(raw, &mut buf, 4)? {
        return Ok(Cut::Rest(buf));
    }
    Ok(Cut::Small(buf, blocks * BLOCK_MAX))
}

/// Decodes one whole frame (at most `bound` bytes of output) in one call,
/// into `out` (emptied first; a buffer the reader is done with, whose
/// pages are already mapped).
fn decode_frame(
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    frame: &[u8],
    bound: usize,
    mut out: Vec<u8>,
) -> io::Result<Vec<u8>> {
    out.clear();
    out.reserve(bound);
    decompressor.decompress_to_buffer(frame, &mut out)?;
    Ok(out)
}

/// A zstd stream decoded by frames on several threads (see the module
/// documentation; [`worth_it`] says whether a machine has the cores).
pub fn parallel_zstd(raw: Box<dyn BufRead + Send>) -> io::Result<FramesReader> {
    let workers = workers();
    let (pieces_tx, pieces) = sync_channel::<Piece>(in_flight(workers));
    // A frame is handed over only to a free thread: the frames in memory
    // are those of the reader's queue and one being cut.
    let (jobs_tx, jobs) = sync_channel::<Job>(0);
    let jobs = Arc::new(Mutex::new(jobs));
    // Enough spent buffers for each decoding thread to take one.
    let (spent, recycled) = sync_channel::<Vec<u8>>(workers);
    let recycled = Arc::new(Mutex::new(recycled));
    for _ in 0..workers {
        let jobs = jobs.clone();
        let recycled = recycled.clone();
        std::thread::Builder::new()
            .name("gamerec-unzstd".into())
            .spawn(move || {
                let mut decompressor = match zstd::bulk::Decompressor::new() {
                    Ok(d) => d,
                    Err(_) => return,
                };
                loop {
                    // The lock is held only while waiting for the next job.
                    let job = match jobs.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((frame, bound, out)) = job else {
                        return;
                    };
                    // The reader may be gone: then nobody wants the output.
                    let buffer = recycled
                        .lock()
                        .ok()
                        .and_then(|r| r.try_recv().ok())
                        .unwrap_or_default();
                    out.send(decode_frame(&mut decompressor, &frame, bound, buffer))
                        .ok();
                }
            })?;
    }
    std::thread::Builder::new()
        .name("gamerec-zstd-frames".into())
        .spawn(move || cut_and_hand_out(raw, &pieces_tx, &jobs_tx, &recycled))?;
    Ok(FramesReader {
        pieces,
        spent,
        block: Vec::new(),
        at: 0,
        done: false,
    })
}

/// The cutting thread: small frames to the pool, the rest decoded here.
fn cut_and_hand_out(
    mut raw: Box<dyn BufRead + Send>,
    pieces: &SyncSender<Piece>,
    jobs: &SyncSender<Job>,
    recycled: &Mutex<Receiver<Vec<u8>>>,
) {
    loop {
        match cut_frame(&mut raw) {
            Ok(Cut::Small(frame, bound)) => {
                let (tx, rx) = sync_channel(1);
                // The piece goes first: the reader's queue bounds the
                // frames in flight.
                if pieces.send(Piece::Frame(rx)).is_err() || jobs.send((frame, bound, tx)).is_err()
                {
                    return;
                }
            }
            Ok(Cut::Skipped) => {}
            Ok(Cut::End) => return,
            Ok(Cut::Rest(head)) => {
                return decode_rest(Head { buf: head, at: 0 }.chain(raw), pieces, recycled);
            }
            Err(e) => {
                pieces.send(Piece::Decoded(Err(e))).ok();
                return;
            }
        }
    }
}

/// Bytes read while cutting a frame that is decoded on one thread after
/// all, read again before the rest of the stream; freed once read.
struct Head {
    buf: Vec<u8>,
    at: usize,
}

impl Read for Head {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl BufRead for Head {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.buf[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.buf.len());
        if self.at == self.buf.len() {
            self.buf = Vec::new();
            self.at = 0;
        }
    }
}

/// Decodes the rest of the stream on this thread, a block at a time.
fn decode_rest(
    rest: impl BufRead,
    pieces: &SyncSender<Piece>,
    recycled: &Mutex<Receiver<Vec<u8>>>,
) {
    let mut decoder = match zstd::stream::read::Decoder::with_buffer(rest) {
        Ok(d) => d,
        Err(e) => {
            pieces.send(Piece::Decoded(Err(e))).ok();
            return;
        }
    };
    loop {
        // A block the reader is done with keeps its length and pages.
        let mut block = recycled
            .lock()
            .ok()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_default();
        match super::input::fill_block(&mut decoder, &mut block) {
            Ok(full) => {
                if !block.is_empty() && pieces.send(Piece::Decoded(Ok(block))).is_err() {
                    return;
                }
                if !full {
                    return;
                }
            }
            Err(e) => {
                if !block.is_empty() && pieces.send(Piece::Decoded(Ok(block))).is_err() {
                    return;
                }
                pieces.send(Piece::Decoded(Err(e))).ok();
                return;
            }
        }
    }
}

/// The decoded stream, in order (see [`parallel_zstd`]). The first error
/// ends it after the bytes before it; dropping it ends the threads.
pub struct FramesReader {
    pieces: Receiver<Piece>,
    /// Blocks read, back to the decoding threads to be filled again.
    spent: SyncSender<Vec<u8>>,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

impl Read for FramesReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl BufRead for FramesReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.block.len() && !self.done {
            let next = match self.pieces.recv() {
                Ok(Piece::Frame(rx)) => rx.recv().unwrap_or_else(|_| {
                    Err(io::Error::other("a zstd decoding thread ended early"))
                }),
                Ok(Piece::Decoded(result)) => result,
                Err(_) => {
                    self.done = true;
                    break;
                }
            };
            match next {
                Ok(block) => {
                    let old = std::mem::replace(&mut self.block, block);
                    self.at = 0;
                    // A full queue of spent blocks: this one is freed instead.
                    self.spent.try_send(old).ok();
                }
                Err(e) => {
                    self.done = true;
                    self.block.clear();
                    self.at = 0;
                    return Err(e);
                }
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.block.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| {
                format!(
                    "[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 {{{}}} *\n\n",
                    i * 7919 % 1000
                )
            })
            .collect::<String>()
            .into_bytes()
    }

    fn frames(parts: &[&[u8]], level: i32) -> Vec<u8> {
        parts
            .iter()
            .flat_map(|p| zstd::encode_all(*p, level).unwrap())
            .collect()
    }

    fn read(data: Vec<u8>) -> (Vec<u8>, Option<io::Error>) {
        let mut reader = parallel_zstd(Box::new(Cursor::new(data))).unwrap();
        let mut out = Vec::new();
        let mut chunk = [0u8; 7000];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    fn sequential(data: &[u8]) -> Vec<u8> {
        zstd::decode_all(data).unwrap()
    }

    #[test]
    fn many_frames_decode_in_order() {
        let parts: Vec<Vec<u8>> = (0..40).map(|i| text(50 + i * 13)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let data = frames(&refs, 3);
        let (out, err) = read(data.clone());
        assert!(err.is_none());
        assert_eq!(out, parts.concat());
        assert_eq!(out, sequential(&data));
    }

    #[test]
    fn frames_are_cut_where_they_end() {
        let parts = [text(100), text(3), Vec::new(), text(2000)];
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let data = frames(&refs, 19);
        let mut raw = Cursor::new(&data[..]);
        let mut sizes = Vec::new();
        loop {
            match cut_frame(&mut raw).unwrap() {
                Cut::Small(frame, bound) => {
                    let mut d = zstd::bulk::Decompressor::new().unwrap();
                    let out = decode_frame(&mut d, &frame, bound, Vec::new()).unwrap();
                    sizes.push(out.len());
                }
                Cut::End => break,
                _ => panic!("a small frame was not cut whole"),
            }
        }
        assert_eq!(sizes, parts.iter().map(Vec::len).collect::<Vec<_>>());
    }

    #[test]
    fn skippable_frames_and_checksums_are_read_over() {
        let one = text(300);
        let mut with_sum = Vec::new();
        let mut enc = zstd::stream::write::Encoder::new(&mut with_sum, 5).unwrap();
        enc.include_checksum(true).unwrap();
        enc.include_contentsize(false).unwrap();
        io::Write::write_all(&mut enc, &one).unwrap();
        enc.finish().unwrap();
        let mut data = with_sum.clone();
        data.extend_from_slice(&0x184D_2A53u32.to_le_bytes());
        data.extend_from_slice(&5u32.to_le_bytes());
        data.extend_from_slice(b"hello");
        data.extend_from_slice(&with_sum);
        let (out, err) = read(data.clone());
        assert!(err.is_none(), "{err:?}");
        assert_eq!(out, [one.clone(), one].concat());
        assert_eq!(out, sequential(&data));
    }

    #[test]
    fn one_large_frame_goes_to_the_one_thread_decoder() {
        // More than MAX_FRAME_BLOCKS blocks: 40 MB of varied text.
        let big = text(700_000);
        assert!(big.len() > MAX_FRAME_BLOCKS * BLOCK_MAX);
        let small = text(10);
        let data = frames(&[&small, &big, &small], 1);
        let (out, err) = read(data);
        assert!(err.is_none());
        assert_eq!(out, [small.clone(), big, small].concat());
    }

    #[test]
    fn a_cut_stream_gives_its_whole_frames_then_the_error() {
        let parts: Vec<Vec<u8>> = (0..6).map(|i| text(200 + i)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let data = frames(&refs, 3);
        for cut in [data.len() - 1, data.len() - 30, data.len() / 2, 5, 1] {
            let (out, err) = read(data[..cut].to_vec());
            assert!(err.is_some(), "cut at {cut}: no error");
            // What came out is a prefix of the whole.
            assert!(parts.concat().starts_with(&out), "cut at {cut}");
        }
        // A damaged frame in the middle: the frames before it, then an error.
        let mut bad = data.clone();
        let second = zstd::encode_all(&parts[0][..], 3).unwrap().len();
        for b in &mut bad[second + 12..second + 40] {
            *b ^= 0x5A;
        }
        let (out, err) = read(bad);
        assert!(err.is_some());
        assert!(parts.concat().starts_with(&out));
        assert!(out.len() >= parts[0].len());
    }

    #[test]
    fn not_zstd_after_a_frame_is_an_error_after_that_frame() {
        let one = text(50);
        let mut data = frames(&[&one], 3);
        data.extend_from_slice(b"garbage after the frame");
        let (out, err) = read(data);
        assert_eq!(out, one);
        assert!(err.is_some());
    }

    /// A stream that says when it is dropped.
    struct Watched(Cursor<Vec<u8>>, std::sync::mpsc::Sender<()>);

    impl Read for Watched {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl BufRead for Watched {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            self.0.fill_buf()
        }
        fn consume(&mut self, n: usize) {
            self.0.consume(n);
        }
    }

    impl Drop for Watched {
        fn drop(&mut self) {
            self.1.send(()).ok();
        }
    }

    #[test]
    fn dropping_the_reader_early_ends_its_threads() {
        let parts: Vec<Vec<u8>> = (0..200).map(|i| text(100 + i)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let data = frames(&refs, 1);
        let big = frames(&[&text(500_000)], 1);
        for data in [data, big] {
            let (tx, dropped) = std::sync::mpsc::channel();
            let raw = Watched(Cursor::new(data), tx);
            let mut reader = parallel_zstd(Box::new(raw)).unwrap();
            let mut head = [0u8; 100];
            reader.read_exact(&mut head).unwrap();
            drop(reader);
            // The cutting thread ends (dropping the stream), and with it
            // the job queue the decoding threads wait on.
            dropped
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("the cutting thread ended");
        }
    }
}
