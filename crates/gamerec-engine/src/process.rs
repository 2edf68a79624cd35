//! An engine child process: line-oriented stdin/stdout with deadlines,
//! stderr drained on its own thread, killed on drop. Stdout is read by the
//! driver's own thread (`poll`, then `read`): a line from the engine costs
//! no hand-off between threads before the driver sees it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::types::{EngineError, Result};

/// Longest line kept from an engine; the rest of a longer line is dropped.
const MAX_LINE: usize = 64 * 1024;
/// How many stderr lines are kept for error messages.
const STDERR_TAIL: usize = 20;

/// How to start an engine: program and arguments, split like a shell would
/// split plain words (no quoting beyond `"…"`/`'…'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineCommand {
    /// Program path or name.
    pub program: OsString,
    /// Arguments.
    pub args: Vec<OsString>,
    /// Working directory (engines that read books/ini files from `.`).
    pub cwd: Option<std::path::PathBuf>,
}

impl EngineCommand {
    /// Splits `text` into program and arguments.
    pub fn parse(text: &str) -> Result<EngineCommand> {
        let words = split_words(text);
        let mut it = words.into_iter();
        let program = it
            .next()
            .filter(|p| !p.is_empty())
            .ok_or_else(|| EngineError::Usage("empty engine command".into()))?;
        Ok(EngineCommand {
            program: program.into(),
            args: it.map(Into::into).collect(),
            cwd: None,
        })
    }

    /// A command without arguments.
    pub fn program(program: impl Into<OsString>) -> EngineCommand {
        EngineCommand {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
        }
    }

    /// The command as one display string.
    pub fn display(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

pub(crate) fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// What came out of the engine's stdout.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// One line, without its terminator.
    Text(String),
    /// The deadline passed first.
    Timeout,
}

/// The engine I/O log every engine process writes to, once set.
static IO_LOG: std::sync::OnceLock<Mutex<std::io::LineWriter<std::fs::File>>> =
    std::sync::OnceLock::new();

/// Logs every line sent to and read from every engine process started from
/// now on to `path` (appended): `TIME PID > line` for what the engine is
/// sent, `TIME PID < line` for what it says (fastchess's `-log`). Can be
/// set once per process.
pub fn set_io_log(path: &std::path::Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    IO_LOG
        .set(Mutex::new(std::io::LineWriter::new(file)))
        .map_err(|_| std::io::Error::other("the engine I/O log is already set"))
}

/// Appends one line to the engine I/O log, if there is one. A failed write
/// is reported once on stderr (the log is a debugging aid; the match goes on).
fn io_log(pid: u32, dir: char, line: &str) {
    static FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let Some(log) = IO_LOG.get() else { return };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    if let Ok(mut w) = log.lock()
        && let Err(e) = writeln!(
            w,
            "{}.{:06} {pid} {dir} {line}",
            now.as_secs(),
            now.subsec_micros()
        )
        && !FAILED.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        gamerec::say!("engine I/O log: {e}");
    }
}

/// How often the watcher thread asks whether the child has exited.
const WATCH_EVERY: Duration = Duration::from_millis(10);
/// How long stdout is still read after the child exited (its last words).
const EXIT_DRAIN: Duration = Duration::from_millis(100);

/// Tells whether an engine process has exited, as soon as it has (a
/// watcher thread waits on the child), with its exit status.
#[derive(Debug, Clone, Default)]
pub struct ExitWatch(Arc<Mutex<Option<String>>>);

impl ExitWatch {
    /// The exit status (`exit status: 3`, `signal: 9 (SIGKILL)`) once the
    /// process has exited; `None` while it runs.
    pub fn exited(&self) -> Option<String> {
        self.0.lock().ok().and_then(|s| s.clone())
    }
}

/// A running engine process.
pub(crate) struct EngineProcess {
    child: Arc<Mutex<Child>>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    stdout: Stdout,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    command: String,
    closed: bool,
    exit: ExitWatch,
    /// When the last line handed out by `recv` was read from the pipe.
    last_line_at: Instant,
    /// Set once the watcher saw the exit: stdout is read until then.
    drain_until: Option<Instant>,
    /// Every line sent and received, when tracing (`GAMEREC_ENGINE_TRACE=1`).
    trace: bool,
    /// The process id, for the engine I/O log.
    pid: u32,
}

impl EngineProcess {
    /// Starts the engine with piped stdio.
    pub(crate) fn spawn(cmd: &EngineCommand) -> Result<EngineProcess> {
        let command = cmd.display();
        let mut c = Command::new(&cmd.program);
        c.args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &cmd.cwd {
            c.current_dir(dir);
        }
        let mut child = spawn_retrying_busy(&mut c).map_err(|source| EngineError::Spawn {
            command: command.clone(),
            source,
        })?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineError::Protocol("no stdout pipe".into()))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| EngineError::Protocol("no stderr pipe".into()))?;
        let stdin = child.stdin.take();

        let pid = child.id();
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                read_lines(stderr, |line| {
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == STDERR_TAIL {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                    true
                })
            })?;
        // The watcher notices the child's exit at once, even when a
        // grandchild keeps its stdout open, and ends with the child.
        let child = Arc::new(Mutex::new(child));
        let exit = ExitWatch::default();
        let (watched, status) = (child.clone(), exit.0.clone());
        thread::Builder::new()
            .name("engine-wait".into())
            .spawn(move || {
                loop {
                    thread::sleep(WATCH_EVERY);
                    let got = match watched.lock() {
                        Ok(mut c) => c.try_wait(),
                        Err(_) => return,
                    };
                    match got {
                        Ok(None) => {}
                        Ok(Some(s)) => {
                            if let Ok(mut st) = status.lock() {
                                *st = Some(s.to_string());
                            }
                            return;
                        }
                        Err(_) => return,
                    }
                }
            })?;
        Ok(EngineProcess {
            child,
            stdin: Arc::new(Mutex::new(stdin)),
            stdout: Stdout {
                pipe: stdout,
                partial: Vec::new(),
                ready: VecDeque::new(),
                eof: false,
            },
            stderr_tail,
            command,
            closed: false,
            exit,
            last_line_at: Instant::now(),
            drain_until: None,
            trace: std::env::var("GAMEREC_ENGINE_TRACE").is_ok_and(|v| v == "1"),
            pid,
        })
    }

    /// The command line, for messages.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// A shared writer for stop hooks.
    pub(crate) fn stdin_handle(&self) -> Arc<Mutex<Option<ChildStdin>>> {
        self.stdin.clone()
    }

    /// Sends one line (a newline is appended).
    pub(crate) fn send(&mut self, line: &str) -> Result<()> {
        self.send_lines(&[line])
    }

    /// Sends lines (each with a newline appended) in one write: a search's
    /// `position` and `go` reach the engine together.
    pub(crate) fn send_lines(&mut self, lines: &[&str]) -> Result<()> {
        let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            if self.trace {
                gamerec::say!("> {line}");
            }
            io_log(self.pid, '>', line);
            text.push_str(line);
            text.push('\n');
        }
        if write_text(&self.stdin, &text).is_err() {
            return Err(self.died());
        }
        Ok(())
    }

    /// The exit watch of this process.
    pub(crate) fn exit_watch(&self) -> ExitWatch {
        self.exit.clone()
    }

    /// When the last line `recv` returned was read from the engine's pipe.
    pub(crate) fn last_line_at(&self) -> Instant {
        self.last_line_at
    }

    /// Receives the next line, or [`Line::Timeout`] at `deadline`.
    /// A closed stdout, or the process's exit (the lines it wrote before
    /// are still read), is reported as [`EngineError::Died`].
    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Result<Line> {
        loop {
            if let Some((line, at)) = self.stdout.ready.pop_front() {
                io_log(self.pid, '<', &line);
                if self.trace {
                    gamerec::say!("< {line}");
                }
                self.last_line_at = at;
                return Ok(Line::Text(line));
            }
            if self.stdout.eof {
                return Err(self.died());
            }
            let now = Instant::now();
            // The exit is seen even while a grandchild holds stdout open;
            // what the engine wrote before it is still read, briefly.
            if self.drain_until.is_none() && self.exit.exited().is_some() {
                self.drain_until = Some(now + EXIT_DRAIN);
            }
            if self.drain_until.is_some_and(|e| now >= e) {
                return Err(self.died());
            }
            if deadline.is_some_and(|d| now >= d) {
                return Ok(Line::Timeout);
            }
            let until = match (deadline, self.drain_until) {
                (Some(d), Some(e)) => d.min(e),
                (d, e) => d.or(e).unwrap_or(now + WATCH_EVERY),
            };
            let wait = until.saturating_duration_since(now).min(WATCH_EVERY);
            if self.stdout.fill(wait).is_err() {
                return Err(self.died());
            }
        }
    }

    /// Receives lines until `f` returns `Some`, failing at `deadline`
    /// (after which the engine is killed).
    pub(crate) fn expect<T>(
        &mut self,
        waiting_for: &str,
        deadline: Instant,
        mut f: impl FnMut(&str) -> Option<T>,
    ) -> Result<T> {
        loop {
            match self.recv(Some(deadline))? {
                Line::Text(line) => {
                    if let Some(v) = f(&line) {
                        return Ok(v);
                    }
                }
                Line::Timeout => return Err(self.timeout(waiting_for)),
            }
        }
    }

    /// Kills the engine and builds the timeout error.
    pub(crate) fn timeout(&mut self, waiting_for: &str) -> EngineError {
        self.kill();
        EngineError::Timeout {
            waiting_for: waiting_for.to_string(),
            stderr: self.stderr_text(),
        }
    }

    /// The error for an engine whose pipes closed: waits briefly for its status.
    pub(crate) fn died(&mut self) -> EngineError {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            if let Some(s) = self.exit.exited() {
                break s;
            }
            let got = match self.child.lock() {
                Ok(mut c) => c.try_wait(),
                Err(_) => Ok(None),
            };
            match got {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                Ok(None) => {
                    self.kill();
                    break "closed its output".to_string();
                }
                Err(e) => break e.to_string(),
            }
        };
        self.closed = true;
        EngineError::Died {
            status,
            stderr: self.stderr_text(),
        }
    }

    fn stderr_text(&self) -> String {
        // Give the stderr thread a moment to catch the last words.
        thread::sleep(Duration::from_millis(20));
        self.stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default()
    }

    /// Kills the process (idempotent).
    pub(crate) fn kill(&mut self) {
        if let Ok(mut s) = self.stdin.lock() {
            s.take();
        }
        if let Ok(mut c) = self.child.lock() {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.closed = true;
    }

    /// Sends `quit_line`, waits up to `grace` for the engine to exit, then kills it.
    pub(crate) fn close(&mut self, quit_line: &str, grace: Duration) {
        if self.closed {
            return;
        }
        let _ = write_line(&self.stdin, quit_line);
        if let Ok(mut s) = self.stdin.lock() {
            s.take(); // EOF on stdin
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Ok(Some(_))) = self.child.lock().map(|mut c| c.try_wait()) {
                self.closed = true;
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.closed {
            self.kill();
        }
    }
}

/// Writes one line to a shared stdin.
pub(crate) fn write_line(stdin: &Mutex<Option<ChildStdin>>, line: &str) -> std::io::Result<()> {
    write_text(stdin, &format!("{line}\n"))
}

/// Writes `text` (whole lines) to a shared stdin in one `write_all`.
fn write_text(stdin: &Mutex<Option<ChildStdin>>, text: &str) -> std::io::Result<()> {
    let mut guard = stdin
        .lock()
        .map_err(|_| std::io::Error::other("poisoned"))?;
    let pipe = guard
        .as_mut()
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
    pipe.write_all(text.as_bytes())?;
    pipe.flush()
}

/// An engine's stdout as its driver reads it: lines read but not yet
/// handed out, with when each was read.
struct Stdout {
    pipe: ChildStdout,
    /// The start of a line not yet ended (capped at [`MAX_LINE`]).
    partial: Vec<u8>,
    ready: VecDeque<(String, Instant)>,
    eof: bool,
}

impl Stdout {
    /// Waits up to `wait` for output, then reads what there is.
    fn fill(&mut self, wait: Duration) -> std::io::Result<()> {
        if !readable(&self.pipe, wait)? {
            return Ok(());
        }
        let mut chunk = [0u8; 8192];
        let n = match self.pipe.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(e),
        };
        let at = Instant::now();
        if n == 0 {
            self.eof = true;
            if !self.partial.is_empty() {
                self.ready.push_back((finish(&mut self.partial), at));
            }
            return Ok(());
        }
        let mut rest = &chunk[..n];
        while let Some(i) = memchr_nl(rest) {
            take_capped(&mut self.partial, &rest[..i]);
            self.ready.push_back((finish(&mut self.partial), at));
            rest = &rest[i + 1..];
        }
        take_capped(&mut self.partial, rest);
        Ok(())
    }
}

/// Whether `pipe` has something to read (data, or its end) within `wait`.
#[cfg(unix)]
fn readable(pipe: &ChildStdout, wait: Duration) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd {
        fd: pipe.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // Rounded up: a wait under a millisecond must not spin.
    let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for a descriptor the pipe owns while borrowed.
    let got = unsafe { libc::poll(&mut fd, 1, ms) };
    if got < 0 {
        let e = std::io::Error::last_os_error();
        return if e.kind() == std::io::ErrorKind::Interrupted {
            Ok(false)
        } else {
            Err(e)
        };
    }
    Ok(got > 0)
}

/// Elsewhere reads block (deadlines are kept only on Unix).
#[cfg(not(unix))]
fn readable(_pipe: &ChildStdout, _wait: Duration) -> std::io::Result<bool> {
    Ok(true)
}

/// Reads `\n`/`\r\n` lines (lossy UTF-8, capped at [`MAX_LINE`]) until EOF
/// or until `f` returns false.
fn read_lines(stream: impl Read, mut f: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(stream);
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) => {
                if !buf.is_empty() {
                    f(finish(&mut buf));
                }
                return;
            }
            Ok(chunk) => match memchr_nl(chunk) {
                Some(i) => {
                    take_capped(&mut buf, &chunk[..i]);
                    (true, i + 1)
                }
                None => {
                    take_capped(&mut buf, chunk);
                    (false, chunk.len())
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        reader.consume(used);
        if done && !f(finish(&mut buf)) {
            return;
        }
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

fn take_capped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_LINE.saturating_sub(buf.len());
    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

fn finish(buf: &mut Vec<u8>) -> String {
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let s = String::from_utf8_lossy(buf).into_owned();
    buf.clear();
    s
}

/// Spawns `command`, trying again a few times while the program is "busy"
/// (`ETXTBSY`): a program file just written is busy for as long as any
/// process forked meanwhile (by another thread, for its own child) has not
/// yet reached its `exec` and still holds the file open for writing.
fn spawn_retrying_busy(command: &mut Command) -> std::io::Result<Child> {
    let mut tries = 0u64;
    loop {
        match command.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 10 => {
                tries += 1;
                thread::sleep(Duration::from_millis(5 * tries));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program still open for writing cannot be run (`ETXTBSY`); the
    /// spawn waits for it to be closed instead of failing.
    #[cfg(target_os = "linux")]
    #[test]
    fn spawning_a_busy_program_waits_for_it() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = gamerec_testkit::temp_dir("busy");
        let path = dir.join("busy.sh");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o755)
            .open(&path)
            .unwrap();
        file.write_all(b"#!/bin/sh\nexit 0\n").unwrap();
        let busy = Command::new(&path).spawn().map(|_| ()).unwrap_err();
        assert_eq!(busy.kind(), std::io::ErrorKind::ExecutableFileBusy);
        let closer = thread::spawn(move || {
            thread::sleep(Duration::from_millis(30));
            drop(file);
        });
        let mut child = spawn_retrying_busy(&mut Command::new(&path)).unwrap();
        assert!(child.wait().unwrap().success());
        closer.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn splits_commands() {
        assert_eq!(split_words("a b  'c d' \"e\""), ["a", "b", "c d", "e"]);
        assert_eq!(split_words("  "), Vec::<String>::new());
        assert_eq!(split_words("x ''"), ["x", ""]);
        // An empty program is no command (an empty name to spawn).
        assert!(EngineCommand::parse("'' -x").is_err());
        assert!(EngineCommand::parse("\"\"").is_err());
    }

    /// The driver's own reads of stdout split lines the same way, across
    /// reads and at the end, and keep a long line's first MAX_LINE bytes.
    #[cfg(unix)]
    #[test]
    fn driver_reads_capped_lines() {
        let script = format!(
            "printf 'one\\r\\ntw'; sleep 0.05; printf 'o\\n'; head -c {} /dev/zero | tr '\\0' x; printf '\\nlast'",
            MAX_LINE + 10
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = Stdout {
            pipe: child.stdout.take().unwrap(),
            partial: Vec::new(),
            ready: VecDeque::new(),
            eof: false,
        };
        let until = Instant::now() + Duration::from_secs(10);
        while !out.eof && Instant::now() < until {
            out.fill(Duration::from_millis(100)).unwrap();
        }
        child.wait().unwrap();
        let got: Vec<String> = out.ready.into_iter().map(|(l, _)| l).collect();
        assert_eq!(
            got.len(),
            4,
            "{:?}",
            got.iter().map(String::len).collect::<Vec<_>>()
        );
        assert_eq!(got[0], "one");
        assert_eq!(got[1], "two");
        assert_eq!(got[2].len(), MAX_LINE);
        assert_eq!(got[3], "last");
    }

    #[test]
    fn reads_capped_lines() {
        let mut data = b"one\r\ntwo\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nlast");
        let mut got = Vec::new();
        read_lines(&data[..], |l| {
            got.push(l);
            true
        });
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], "one");
        assert_eq!(got[1], "two");
        assert_eq!(got[2].len(), MAX_LINE);
        assert_eq!(got[3], "last");
    }
}
