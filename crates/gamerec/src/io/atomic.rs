//! Outputs that appear whole or not at all.
//!
//! [`AtomicFile`] writes beside its target under a temporary name
//! (`.NAME.gamerec-PID-N.tmp` in the same directory, created exclusively),
//! and [`AtomicFile::commit`] flushes, syncs and renames it into place. Dropped
//! without a commit (an error, a panic, an early return) it removes the
//! temporary file, so a failed run leaves the old target untouched and nothing
//! beside it. [`commit_all`] puts several files into place together (a CBF and
//! its CBI): if one rename fails, the targets already replaced get their old
//! contents back. Every error names the target's path.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// An I/O error with the path it concerns in front of its message.
pub fn path_error(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// A file written under a temporary name and renamed onto its target on
/// [`AtomicFile::commit`]. Buffered; every write error names the target.
#[derive(Debug)]
#[must_use = "dropped without commit, an AtomicFile removes what was written"]
pub struct AtomicFile {
    /// The path as given, for messages.
    target: PathBuf,
    /// Where the file is renamed to: the target, or the file a symbolic
    /// link names.
    dest: PathBuf,
    /// The temporary file; empty once renamed, or when writing in place.
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

fn temp_name(target: &Path, tag: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.gamerec-{}-{n}.{tag}", std::process::id());
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

impl AtomicFile {
    /// Starts writing `target`: creates the temporary file beside it.
    pub fn create(target: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let target = target.as_ref();
        AtomicFile::create_unnamed(target).map_err(|e| path_error(target, e))
    }

    /// [`AtomicFile::create`] with the operating system's error as it is
    /// (for callers that name the file themselves); later errors name it.
    ///
    /// A target that exists and is not a regular file (`/dev/null`, a
    /// pipe) is written in place: there is nothing to rename. A symbolic
    /// link is followed: the file it names is replaced, the link kept. The
    /// new file takes an existing target's permissions.
    pub fn create_unnamed(target: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let target = target.as_ref().to_path_buf();
        let existing = fs::metadata(&target).ok();
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            if !meta.is_file() {
                let file = OpenOptions::new().write(true).open(&target)?;
                return Ok(AtomicFile {
                    dest: target.clone(),
                    target,
                    tmp: PathBuf::new(),
                    out: Some(BufWriter::with_capacity(1 << 16, file)),
                });
            }
        }
        let dest = match fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => fs::canonicalize(&target)?,
            _ => target.clone(),
        };
        let tmp = temp_name(&dest, "tmp");
        let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let file = AtomicFile {
            target,
            dest,
            tmp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
        };
        if let Some(meta) = existing {
            // Dropping `file` removes the temporary file on error.
            file.out
                .as_ref()
                .expect("open")
                .get_ref()
                .set_permissions(meta.permissions())?;
        }
        Ok(file)
    }

    /// Whether the file is written in place (not a regular file: nothing
    /// to rename).
    fn in_place(&self) -> bool {
        self.tmp.as_os_str().is_empty()
    }

    /// The path this file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary path being written (empty when written in place).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// The open file (for seeking writers); flushes the buffer first.
    pub fn file_mut(&mut self) -> io::Result<&mut File> {
        let out = self.out.as_mut().expect("open until committed");
        out.flush().map_err(|e| path_error(&self.target, e))?;
        Ok(out.get_mut())
    }

    /// Flushes and syncs the temporary file without renaming it.
    fn finish_data(&mut self) -> io::Result<()> {
        let in_place = self.in_place();
        let out = self.out.as_mut().expect("open until committed");
        out.flush().map_err(|e| path_error(&self.target, e))?;
        if !in_place {
            out.get_ref()
                .sync_all()
                .map_err(|e| path_error(&self.target, e))?;
        }
        Ok(())
    }

    /// Flushes, syncs and renames the file onto its target.
    pub fn commit(mut self) -> io::Result<()> {
        self.finish_data()?;
        self.out = None;
        if self.in_place() {
            return Ok(());
        }
        fs::rename(&self.tmp, &self.dest).map_err(|e| path_error(&self.target, e))?;
        sync_dir(&self.dest);
        // Renamed: nothing to remove on drop.
        self.tmp = PathBuf::new();
        Ok(())
    }

    /// Gives up: removes the temporary file (as dropping does).
    pub fn discard(self) {}
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let out = self.out.as_mut().expect("open until committed");
        out.write(buf).map_err(|e| path_error(&self.target, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let out = self.out.as_mut().expect("open until committed");
        out.write_all(buf).map_err(|e| path_error(&self.target, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        let out = self.out.as_mut().expect("open until committed");
        out.flush().map_err(|e| path_error(&self.target, e))
    }
}

impl io::Seek for AtomicFile {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        let out = self.out.as_mut().expect("open until committed");
        out.seek(pos).map_err(|e| path_error(&self.target, e))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.out = None;
        if !self.in_place() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn sync_dir(target: &Path) {
    // Best effort: the rename is durable once the directory is synced.
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Commits several files together (a CBF and its CBI). Each is flushed and
/// synced first; then they are renamed into place one by one. If a rename
/// fails, the targets already replaced get their old contents back (or are
/// removed if they did not exist), so either every target is new or every
/// target is as it was.
pub fn commit_all(files: Vec<AtomicFile>) -> io::Result<()> {
    let mut files = files;
    for f in &mut files {
        f.finish_data()?;
    }
    // Keep the old targets under backup names until every rename succeeded.
    let mut backups: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let restore = |backups: &[(PathBuf, Option<PathBuf>)]| {
        for (target, backup) in backups.iter().rev() {
            match backup {
                Some(b) => {
                    let _ = fs::rename(b, target);
                }
                None => {
                    let _ = fs::remove_file(target);
                }
            }
        }
    };
    for f in &mut files {
        if f.in_place() {
            f.out = None;
            continue;
        }
        let backup = if f.dest.exists() {
            let b = temp_name(&f.dest, "old");
            if let Err(e) = fs::hard_link(&f.dest, &b) {
                restore(&backups);
                return Err(path_error(&f.target, e));
            }
            Some(b)
        } else {
            None
        };
        f.out = None;
        if let Err(e) = fs::rename(&f.tmp, &f.dest) {
            if let Some(b) = &backup {
                let _ = fs::remove_file(b);
            }
            restore(&backups);
            return Err(path_error(&f.target, e));
        }
        f.tmp = PathBuf::new();
        backups.push((f.dest.clone(), backup));
    }
    for (target, backup) in &backups {
        if let Some(b) = backup {
            let _ = fs::remove_file(b);
        }
        sync_dir(target);
    }
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all (as [`std::fs::write`],
/// through an [`AtomicFile`]); the error names the path.
pub fn write_atomic(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes.as_ref())?;
    file.commit()
}

/// Where a verb writes: stdout, or a file put into place whole on success.
pub enum Output {
    /// Standard output, buffered.
    Stdout(BufWriter<io::Stdout>),
    /// A file, committed by [`Output::finish`].
    File(AtomicFile),
}

impl Output {
    /// A file for `Some(path)` other than `-`, else stdout.
    pub fn open(path: Option<&Path>) -> io::Result<Output> {
        match path {
            Some(p) if p != Path::new("-") => Ok(Output::File(AtomicFile::create(p)?)),
            _ => Ok(Output::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
        }
    }

    /// The name to put in messages (`<stdout>` or the target path).
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "<stdout>".into(),
            Output::File(f) => f.target().display().to_string(),
        }
    }

    /// Flushes stdout, or commits the file.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut s) => s.flush(),
            Output::File(f) => f.commit(),
        }
    }

    /// The run failed: stdout is flushed (what was written stays written),
    /// a file is removed and its old target left as it was.
    pub fn abandon(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut s) => s.flush(),
            Output::File(f) => {
                f.discard();
                Ok(())
            }
        }
    }

    /// [`Output::finish`] when `ok`, else [`Output::abandon`].
    pub fn finish_if(self, ok: bool) -> io::Result<()> {
        if ok { self.finish() } else { self.abandon() }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(buf),
            Output::File(f) => f.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(buf),
            Output::File(f) => f.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "gamerec-atomic-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn commit_replaces_and_drop_leaves_the_old_file() {
        let d = dir();
        let t = d.join("out.pgn");
        fs::write(&t, "old").unwrap();
        let mut f = AtomicFile::create(&t).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "old");
        drop(f);
        assert_eq!(fs::read_to_string(&t).unwrap(), "old");
        assert_eq!(listing(&d), vec!["out.pgn"]);
        let mut f = AtomicFile::create(&t).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "new");
        assert_eq!(listing(&d), vec!["out.pgn"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn commit_all_restores_the_first_when_the_second_fails() {
        let d = dir();
        let a = d.join("g.cbf");
        let b = d.join("g.cbi");
        fs::write(&a, "old a").unwrap();
        fs::write(&b, "old b").unwrap();
        let mut fa = AtomicFile::create(&a).unwrap();
        let mut fb = AtomicFile::create(&b).unwrap();
        fa.write_all(b"new a").unwrap();
        fb.write_all(b"new b").unwrap();
        // Make the second rename fail: its target becomes a non-empty directory.
        fs::remove_file(&b).unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(b.join("x"), "x").unwrap();
        assert!(commit_all(vec![fa, fb]).is_err());
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(listing(&d), vec!["g.cbf", "g.cbi"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place_links_followed_and_modes_kept() {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
        // /dev/null stays the device: nothing is renamed onto it.
        let mut f = AtomicFile::create("/dev/null").unwrap();
        f.write_all(b"x").unwrap();
        f.commit().unwrap();
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        let d = dir();
        let real = d.join("real.pgn");
        let link = d.join("link.pgn");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        symlink(&real, &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        let mode = fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(listing(&d), vec!["link.pgn", "real.pgn"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn output_abandoned_keeps_the_old_file() {
        let d = dir();
        let t = d.join("out.pgn");
        fs::write(&t, "old").unwrap();
        let mut o = Output::open(Some(&t)).unwrap();
        o.write_all(b"new").unwrap();
        o.finish_if(false).unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "old");
        assert_eq!(listing(&d), vec!["out.pgn"]);
        write_atomic(&t, "new").unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "new");
        assert_eq!(listing(&d), vec!["out.pgn"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn errors_name_the_target() {
        let e = AtomicFile::create("/nonexistent-dir-gamerec/x.pgn").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent-dir-gamerec/x.pgn: "),
            "{e}"
        );
    }
}
