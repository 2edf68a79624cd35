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
    use std::io::Read;
    let mut file = opener.open(path)?;
    if buf.len() < 1 << 16 {
        buf.resize(1 << 16, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled >= 1 << 30 {
                return Err(io::Error::other("file larger than 1 GiB"));
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
    Ok(filled)
}
