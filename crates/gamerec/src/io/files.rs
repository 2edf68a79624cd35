//! Reading many small files fast (a bulk `check` of SGF collections): each
//! directory opened once, one read buffer kept from file to file.

use std::io;

/// Opens files one after another, each directory once: a file in the
/// directory of the previous one is opened relative to it (`openat`),
/// without walking its path from the start again. Whatever fails that way
/// is opened by path, so errors are the usual ones.
#[derive(Default)]
pub struct Opener {
    #[cfg(unix)]
    dir: String,
    #[cfg(unix)]
    dir_fd: Option<std::os::fd::OwnedFd>,
}

impl Opener {
    /// Opens `path` for reading.
    pub fn open(&mut self, path: &str) -> io::Result<std::fs::File> {
        #[cfg(unix)]
        if let Some(slash) = path.rfind('/')
            && slash > 0
            && slash + 1 < path.len()
        {
            use rustix::fs::{Mode, OFlags};
            let (dir, name) = (&path[..slash], &path[slash + 1..]);
            if self.dir_fd.is_none() || self.dir != dir {
                self.dir.clear();
                self.dir.push_str(dir);
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
                self.dir_fd = rustix::fs::open(dir, flags, Mode::empty()).ok();
            }
            if let Some(fd) = &self.dir_fd
                && let Ok(f) =
                    rustix::fs::openat(fd, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
            {
                return Ok(std::fs::File::from(f));
            }
        }
        std::fs::File::open(path)
    }
}

/// Reads a whole file into `buf` and returns its length (the bytes are
/// `buf[..n]`): one open and reads until the end, without asking for the
/// size. `buf` keeps its length from call to call (at least 64 KiB, grown
/// for larger files), so nothing is allocated or zeroed per file.
pub fn read_file_into(path: &str, opener: &mut Opener, buf: &mut Vec<u8>) -> io::Result<usize> {
    read_open_file(opener.open(path)?, buf)
}

/// [`read_file_into`] of a file opened.
fn read_open_file(mut file: std::fs::File, buf: &mut Vec<u8>) -> io::Result<usize> {
    match read_up_to(&mut file, buf, (1 << 30) - 1)? {
        Some(n) => Ok(n),
        None => Err(io::Error::other("file larger than 1 GiB")),
    }
}

/// Reads `file` to its end into `buf` (its first `n` bytes, `Some(n)`),
/// or `None` once more than `bound` bytes are read (they are in `buf`,
/// which then holds the bytes read so far: see [`read_rest`]).
fn read_up_to(
    file: &mut std::fs::File,
    buf: &mut Vec<u8>,
    bound: u64,
) -> io::Result<Option<usize>> {
    use std::io::Read;
    if buf.len() < 1 << 16 {
        buf.resize(1 << 16, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled as u64 > bound {
                buf.truncate(filled);
                return Ok(None);
            }
            buf.resize(buf.len() * 2, 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(filled))
}

/// Reads the rest of `file` after the bytes `buf` holds; their count.
fn read_rest(file: &mut std::fs::File, buf: &mut Vec<u8>) -> io::Result<usize> {
    use std::io::Read;
    file.read_to_end(buf)?;
    Ok(buf.len())
}

/// A file's bytes, as [`read_or_map`] gives them.
pub enum FileBytes {
    /// Read into the buffer: its first `n` bytes.
    Read(usize),
    /// A file over the bound, mapped.
    Mapped(MappedFile),
}

/// Like [`read_file_into`], but a regular file of more than `map_over`
/// bytes is mapped instead ([`MappedFile`]), so that it can be read a part
/// at a time in bounded memory (what was read of it is left in `buf`).
pub fn read_or_map(
    path: &str,
    opener: &mut Opener,
    buf: &mut Vec<u8>,
    map_over: u64,
) -> io::Result<FileBytes> {
    // Read as `read_file_into` does (no `fstat` for the many small files
    // of a bulk check); a file that fills more than `map_over` is mapped.
    let mut file = opener.open(path)?;
    match read_up_to(&mut file, buf, map_over)? {
        Some(n) => Ok(FileBytes::Read(n)),
        None => {
            let meta = file.metadata()?;
            match meta.is_file() {
                true => MappedFile::map(&file, meta.len()).map(FileBytes::Mapped),
                // A pipe or device: the rest read on into the buffer.
                false => read_rest(&mut file, buf).map(FileBytes::Read),
            }
        }
    }
}

/// A file mapped for reading front to back: the pages of what was read
/// are given back as reading goes ([`MappedFile::done_to`]), so resident
/// memory stays at the part being read.
pub struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Maps the first `len` bytes of `file`.
    pub fn map(file: &std::fs::File, len: u64) -> io::Result<MappedFile> {
        let len = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
        // SAFETY: a read-only mapping, only read. Should another program
        // truncate the file meanwhile, reading the lost pages faults, as it
        // does for every tool that maps its input (ripgrep, ...).
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(file) }?;
        Ok(MappedFile { map })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Gives back the pages before byte `offset` (whole 64 KiB blocks),
    /// done with: they are read again from the file if touched.
    pub fn done_to(&self, offset: usize) {
        #[cfg(unix)]
        {
            const BLOCK: usize = 64 << 10;
            let end = offset.min(self.map.len()) / BLOCK * BLOCK;
            if end > 0 {
                // SAFETY: a read-only file mapping: dropped pages are read
                // again from the file when touched.
                let _advice_only = unsafe {
                    self.map
                        .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end)
                };
            }
        }
    }
}
