//! Test support shared by the gamerec crates (dev-dependency only).
//!
//! * [`shared_dir`] / [`corpus`]: where `../shared` (specs, corpus, bench) is.
//! * [`peer`]: finds an external program (python-chess venv, Debian engines,
//!   pgn-extract). When `GAMEREC_REQUIRE_PEERS=1` (set by `.ci/run`) a missing
//!   peer fails the test; otherwise the test prints why it skipped.
//! * [`Cli`]: runs a program under test (the `gamerec` binary in the CLI's
//!   tests: `cli(&["check", "x.pgn"]).stdin(b"...").run()`) and gives its
//!   [`Ran`] output: `.code()`, `.stdout()`, `.stderr()`, `.success()`.
//! * [`finishes`]: a watchdog against loops quadratic in hostile input.

use std::path::{Path, PathBuf};

/// The `shared/` folder beside the repository (override: `GAMEREC_SHARED`).
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GAMEREC_SHARED") {
        return PathBuf::from(dir);
    }
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    // crates/gamerec-testkit -> repository root -> its parent
    dir.pop();
    dir.pop();
    dir.pop();
    dir.join("shared")
}

/// A path below `shared/corpus`.
pub fn corpus(rel: &str) -> PathBuf {
    shared_dir().join("corpus").join(rel)
}

/// A path below `shared/specs`.
pub fn spec(rel: &str) -> PathBuf {
    shared_dir().join("specs").join(rel)
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    dir.pop();
    dir.pop();
    dir
}

/// The flags every test starts headless Chromium with (no sandbox, no
/// GPU, no first-run or background traffic); each test adds its own.
pub const CHROMIUM_HEADLESS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Whether missing peers must fail tests (`GAMEREC_REQUIRE_PEERS=1`).
pub fn peers_required() -> bool {
    std::env::var("GAMEREC_REQUIRE_PEERS").is_ok_and(|v| v == "1")
}

/// Finds an external program by name: an absolute path, `$PATH`, then
/// `/usr/games`. `None` (after printing why) when it is missing and peers are
/// not required.
///
/// # Panics
/// When the program is missing and `GAMEREC_REQUIRE_PEERS=1`.
pub fn peer(name: &str) -> Option<PathBuf> {
    let candidate = Path::new(name);
    let found = if candidate.is_absolute() {
        candidate.is_file().then(|| candidate.to_path_buf())
    } else {
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .chain([PathBuf::from("/usr/games")])
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    };
    if found.is_none() {
        assert!(
            !peers_required(),
            "peer program `{name}` is missing and GAMEREC_REQUIRE_PEERS=1"
        );
        eprintln!("skipped: peer program `{name}` not installed (run .ci/run to install peers)");
    }
    found
}

/// The Python interpreter of the test virtualenv that has python-chess
/// (`GAMEREC_PYTHON`, else `<repo>/.venv/bin/python`).
pub fn python_chess() -> Option<PathBuf> {
    let python = std::env::var_os("GAMEREC_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
    peer(python.to_str()?)
}

/// Runs `program` with `args`, feeding `stdin` from a separate thread (so a
/// large input cannot deadlock against a full stdout pipe, and a program that
/// exits without reading is fine), and returns its output.
///
/// # Panics
/// When the program cannot be started.
pub fn run(program: impl AsRef<Path>, args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::process::{Command, Stdio};
    let program = program.as_ref();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run_command(command, stdin, program)
}

/// Spawns `command` (its three streams piped), feeds it `stdin` from a
/// thread and waits for its output.
fn run_command(
    mut command: std::process::Command,
    stdin: &[u8],
    program: &Path,
) -> std::process::Output {
    use std::io::Write;
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let mut input = child.stdin.take().expect("piped stdin");
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The program may exit before reading everything: a closed pipe is fine.
        let _ = input.write_all(&data);
    });
    let output = child.wait_with_output().expect("wait for the program");
    feeder.join().expect("stdin feeder thread");
    output
}

/// The exit code (-1 when killed by a signal), stdout and stderr of `output`
/// as text.
pub fn code_and_text(output: &std::process::Output) -> (i32, String, String) {
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A fresh directory for one test process's files:
/// `$TMPDIR/gamerec-<name>-<pid>` (created if missing), removed with
/// everything in it when the process exits (see [`remove_at_exit`]).
///
/// # Panics
/// When the directory cannot be created.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gamerec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    remove_at_exit(&dir);
    dir
}

/// Directories to remove when the test process exits.
static AT_EXIT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes `dir` (and everything in it; or the file, if it is one) when
/// this process exits, whether its tests passed or failed;
/// `GAMEREC_KEEP_TEMP=1` keeps it to look at.
/// Directories are per process (their names end in the pid) and shared by
/// the process's tests, so they go at exit rather than with one test.
pub fn remove_at_exit(dir: &Path) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        unsafe extern "C" {
            fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: registers a plain function; atexit has no other contract.
        let status = unsafe { atexit(remove_temp_dirs) };
        assert_eq!(status, 0, "atexit failed");
    });
    let mut dirs = AT_EXIT.lock().unwrap_or_else(|e| e.into_inner());
    if !dirs.iter().any(|d| d == dir) {
        dirs.push(dir.to_path_buf());
    }
}

extern "C" fn remove_temp_dirs() {
    if std::env::var_os("GAMEREC_KEEP_TEMP").is_some_and(|v| v == "1") {
        return;
    }
    let dirs = std::mem::take(&mut *AT_EXIT.lock().unwrap_or_else(|e| e.into_inner()));
    for dir in dirs {
        let removed = match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dir),
            Ok(_) => std::fs::remove_file(&dir),
            Err(e) => Err(e),
        };
        match removed {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!("gamerec-testkit: cannot remove {}: {e}", dir.display()),
        }
    }
}

/// Asserts that a finished program succeeded; the panic message names it
/// (`what`) and shows its exit status, stdout and stderr.
///
/// # Panics
/// When the program did not exit successfully.
pub fn assert_success(output: &std::process::Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir` (recursively) whose extension is `ext`, sorted.
///
/// # Panics
/// When a directory cannot be read.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()));
        for entry in entries {
            let p = entry
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()))
                .path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `f` ends within `seconds`, on a thread of its own (a watchdog against
/// quadratic loops that allocate nothing, which counting allocations
/// cannot see; the bound is a hundred times what the linear code takes in
/// a debug build, and a tenth of what the quadratic code took).
pub fn finishes(what: &str, seconds: u64, f: impl FnOnce() + Send + 'static) {
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        f();
        done.send(()).ok();
    });
    assert!(
        wait.recv_timeout(std::time::Duration::from_secs(seconds))
            .is_ok(),
        "{what}: not done in {seconds} s (quadratic?)"
    );
}

/// Runs `program` with `args`; returns its stdout and its peak resident
/// memory in MB, read for that child alone with `wait4`.
#[cfg(target_os = "linux")]
pub fn run_measured(program: &str, args: &[&str]) -> (String, u64) {
    measured(program, args, std::process::Stdio::inherit())
}

/// [`run_measured`] with the program's stderr written to the file `stderr`
/// (read it with [`lines_of`]).
///
/// # Panics
/// When the file cannot be created.
#[cfg(target_os = "linux")]
pub fn run_measured_stderr_to(program: &str, args: &[&str], stderr: &Path) -> (String, u64) {
    let file =
        std::fs::File::create(stderr).unwrap_or_else(|e| panic!("{}: {e}", stderr.display()));
    measured(program, args, file.into())
}

#[cfg(target_os = "linux")]
#[expect(clippy::zombie_processes, reason = "the child is reaped by wait4")]
fn measured(program: &str, args: &[&str], stderr: std::process::Stdio) -> (String, u64) {
    use std::io::Read;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the program runs");
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("stdout is text");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    // ru_maxrss is in kilobytes on Linux.
    (out, usage.ru_maxrss as u64 / 1024)
}

/// The lines of a text file, read one at a time (without line ends).
///
/// # Panics
/// When the file cannot be read.
pub fn lines_of(path: &Path) -> impl Iterator<Item = String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(file)
        .lines()
        .map(|l| l.expect("a line of text"))
}

/// Whether two files hold the same bytes, compared a block at a time.
///
/// # Panics
/// When a file cannot be read.
pub fn same_file_contents(a: &Path, b: &Path) -> bool {
    let open = |p: &Path| {
        std::io::BufReader::new(
            std::fs::File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        )
    };
    let (mut a, mut b) = (open(a), open(b));
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = read_full(&mut a, &mut x);
        let m = read_full(&mut b, &mut y);
        if n != m || x[..n] != y[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

/// Fills `buf` as far as `input` goes; the bytes read.
fn read_full(input: &mut impl std::io::Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]).expect("read") {
            0 => break,
            k => n += k,
        }
    }
    n
}

/// A command line to run once: the program, its arguments, stdin, extra
/// environment and working directory. Built by the test crate's own
/// `cli(args)` (which knows the binary's path), run by [`Cli::run`].
#[derive(Debug, Clone)]
#[must_use = "a command line does nothing until it is run"]
pub struct Cli {
    program: PathBuf,
    args: Vec<std::ffi::OsString>,
    stdin: Vec<u8>,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    dir: Option<PathBuf>,
}

impl Cli {
    /// `program` with no arguments and an empty stdin.
    pub fn new(program: impl AsRef<Path>) -> Self {
        Cli {
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            stdin: Vec::new(),
            env: Vec::new(),
            dir: None,
        }
    }

    /// Adds arguments.
    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Adds one argument.
    pub fn arg(self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.args([arg])
    }

    /// The bytes fed to the program's stdin (from a thread, see [`run`]).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    /// Sets an environment variable for the program.
    pub fn env(
        mut self,
        key: impl AsRef<std::ffi::OsStr>,
        value: impl AsRef<std::ffi::OsStr>,
    ) -> Self {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// Runs the program in `dir`.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The command line as a person would type it (for messages).
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(|a| a.as_os_str()))
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs the program to its end and returns its output.
    ///
    /// # Panics
    /// When the program cannot be started.
    pub fn run(self) -> Ran {
        use std::process::{Command, Stdio};
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            command.env(k, v);
        }
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        let output = run_command(command, &self.stdin, &self.program);
        Ran {
            line: self.display(),
            output,
        }
    }

    /// Runs the program and asserts it succeeded (the message shows the
    /// command line, exit status, stdout and stderr).
    ///
    /// # Panics
    /// When the program cannot be started or does not exit successfully.
    pub fn run_ok(self) -> Ran {
        let ran = self.run();
        assert_success(&ran.output, &ran.line);
        ran
    }
}

/// What a [`Cli`] run left: exit code and output. Dereferences to the
/// [`std::process::Output`] for tests that read its fields.
#[derive(Debug)]
pub struct Ran {
    line: String,
    output: std::process::Output,
}

impl Ran {
    /// The exit code (-1 when killed by a signal).
    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }

    /// Whether the program exited with code 0.
    pub fn success(&self) -> bool {
        self.output.status.success()
    }

    /// Stdout as text (invalid UTF-8 replaced).
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Stderr as text (invalid UTF-8 replaced).
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Exit code, stdout and stderr, as [`code_and_text`] gives them.
    pub fn code_and_text(&self) -> (i32, String, String) {
        code_and_text(&self.output)
    }

    /// The command line that ran (for messages).
    pub fn line(&self) -> &str {
        &self.line
    }

    /// Stdout as bytes.
    pub fn into_stdout(self) -> Vec<u8> {
        self.output.stdout
    }

    /// The raw output.
    pub fn into_output(self) -> std::process::Output {
        self.output
    }
}

impl std::ops::Deref for Ran {
    type Target = std::process::Output;
    fn deref(&self) -> &std::process::Output {
        &self.output
    }
}

/// A Go game (SGF) of `n` moves alternating on two points, each node with a
/// bad `V` value: every move after the first two is on an occupied point
/// (a game broken at every node, for the bound on messages listed).
pub fn sgf_broken_at_every_node(n: usize) -> String {
    let mut s = String::from("(;FF[4]GM[1]SZ[19]");
    for i in 0..n {
        s.push_str(if i % 2 == 0 {
            ";B[aa]V[x]"
        } else {
            ";W[bb]V[x]"
        });
    }
    s.push(')');
    s
}

/// An EPD record of the start position with `n` `c0` operations: each
/// after the first is a duplicate, an error (no line end).
pub fn epd_repeated_opcode(n: usize) -> String {
    format!(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -{}",
        " c0 \"x\";".repeat(n)
    )
}

/// The moves of a real 58-ply game (a Ruy Lopez, Breyer), numbered, with
/// no result: the body of the many games memory tests write.
pub const BREYER_MOVES: &str = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 \
    7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 \
    15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 \
    22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 \
    28. Qxg5 hxg5 29. b3 Ke6";

#[cfg(test)]
mod tests {
    use super::*;

    /// Half of `temp_dirs_are_removed_at_exit`, which runs it in a child
    /// process with `GAMEREC_TESTKIT_CHILD` set (without it, it does
    /// nothing): makes two directories, one with a file in it, and a file
    /// beside them, and prints their paths.
    #[test]
    fn make_temp_dirs_in_child() {
        if std::env::var_os("GAMEREC_TESTKIT_CHILD").is_none() {
            return;
        }
        let a = temp_dir("testkit-exit-a");
        std::fs::write(a.join("f.txt"), b"x").unwrap();
        let b = temp_dir("testkit-exit-b");
        let file = b.with_extension("txt");
        std::fs::write(&file, b"x").unwrap();
        remove_at_exit(&file);
        println!("DIR {}", a.display());
        println!("DIR {}", b.display());
        println!("DIR {}", file.display());
    }

    #[test]
    fn temp_dirs_are_removed_at_exit() {
        let run = |keep: bool| {
            let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
            cmd.args([
                "--exact",
                "tests::make_temp_dirs_in_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("GAMEREC_TESTKIT_CHILD", "1");
            if keep {
                cmd.env("GAMEREC_KEEP_TEMP", "1");
            } else {
                cmd.env_remove("GAMEREC_KEEP_TEMP");
            }
            let out = cmd.output().unwrap();
            assert_success(&out, "child test");
            let dirs: Vec<PathBuf> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split_once("DIR ").map(|(_, d)| PathBuf::from(d)))
                .collect();
            assert_eq!(dirs.len(), 3, "{}", String::from_utf8_lossy(&out.stdout));
            dirs
        };
        for dir in run(false) {
            assert!(!dir.exists(), "{} is left after exit", dir.display());
        }
        let kept = run(true);
        for dir in &kept[..2] {
            assert!(dir.is_dir(), "{} was not kept", dir.display());
            std::fs::remove_dir_all(dir).unwrap();
        }
        assert!(kept[2].is_file(), "{} was not kept", kept[2].display());
        std::fs::remove_file(&kept[2]).unwrap();
    }

    /// The test layout (ripgrep's): each crate with integration tests has
    /// `autotests = false`, a `[[test]]` `integration` at `tests/tests.rs`
    /// (gamerec-cli also `memory` at `tests/memory.rs`), and every file of
    /// `tests/` is a module of one of them (a file left out would never run).
    #[test]
    fn each_crate_has_one_integration_test_binary_holding_every_test_file() {
        let crates = repo_root().join("crates");
        let mut checked = 0;
        for entry in std::fs::read_dir(&crates).expect("crates/") {
            let dir = entry.expect("crates/ entry").path();
            let tests = dir.join("tests");
            let files: Vec<String> = match std::fs::read_dir(&tests) {
                Ok(entries) => entries
                    .map(|e| e.expect("tests/ entry").path())
                    .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                    .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => continue,
            };
            if files.is_empty() {
                continue;
            }
            let name = dir.display();
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
            assert!(
                manifest.contains("\nautotests = false\n"),
                "{name}/Cargo.toml: `autotests = false` is missing (one test binary per crate)"
            );
            let allowed: &[&str] = if name.to_string().ends_with("gamerec-cli") {
                &["integration", "memory"]
            } else {
                &["integration"]
            };
            let roots: Vec<&str> = manifest
                .split("[[test]]\nname = \"")
                .skip(1)
                .map(|t| t.split('"').next().unwrap())
                .collect();
            assert_eq!(
                manifest.matches("[[test]]").count(),
                roots.len(),
                "{name}/Cargo.toml: each [[test]] starts with its name"
            );
            assert_eq!(roots, allowed, "{name}/Cargo.toml: the [[test]] targets");
            let mut declared = Vec::new();
            for root in &roots {
                let file = if *root == "integration" {
                    "tests"
                } else {
                    root
                };
                assert!(
                    manifest.contains(&format!(
                        "[[test]]\nname = \"{root}\"\npath = \"tests/{file}.rs\"\n"
                    )),
                    "{name}/Cargo.toml: [[test]] {root} is at tests/{file}.rs"
                );
                let text = std::fs::read_to_string(tests.join(format!("{file}.rs")))
                    .unwrap_or_else(|e| panic!("{name}/tests/{file}.rs: {e}"));
                declared.push(file.to_string());
                declared.extend(
                    text.lines().filter_map(|l| {
                        Some(l.strip_prefix("mod ")?.strip_suffix(';')?.to_string())
                    }),
                );
            }
            for file in &files {
                assert!(
                    declared.contains(file),
                    "{name}/tests/{file}.rs is not a module of a test binary: its tests never run"
                );
            }
            checked += 1;
        }
        assert!(
            checked >= 7,
            "only {checked} crates with integration tests found"
        );
    }

    /// Every `#[ignore]` says why with `slow:` (run by `.ci/run`'s slow
    /// step), `minutes:` or `hours:` (by hand), and the slow step's
    /// `SLOW_TESTS` lists exactly the modules that hold `slow:` tests.
    #[test]
    fn ignored_tests_say_how_slow_and_ci_runs_the_slow_ones() {
        let root = repo_root();
        let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
        let list = ci
            .lines()
            .find_map(|l| l.strip_prefix("SLOW_TESTS=\""))
            .and_then(|l| l.strip_suffix('"'))
            .expect(".ci/run: a SLOW_TESTS=\"...\" line");
        let mut listed: Vec<String> = list
            .split_whitespace()
            .flat_map(|t| {
                let (target, modules) = t.split_once(':').expect("CRATE[/BINARY]:MODULE,MODULE");
                let krate = target.split('/').next().unwrap();
                modules.split(',').map(move |m| format!("{krate}:{m}"))
            })
            .collect();
        listed.sort();
        let mut slow = Vec::new();
        for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
            let dir = entry.expect("crates/ entry").path();
            let krate = dir.file_name().unwrap().to_string_lossy().into_owned();
            for file in files_with_extension(&dir, "rs") {
                let text = std::fs::read_to_string(&file).expect("source file");
                let mut has_slow = false;
                for (n, line) in text.lines().enumerate() {
                    let Some(rest) = line.trim().strip_prefix("#[ignore") else {
                        continue;
                    };
                    let reason = rest.trim_start_matches([' ', '=', '"']);
                    assert!(
                        ["slow: ", "minutes: ", "hours: "]
                            .iter()
                            .any(|p| reason.starts_with(p)),
                        "{}:{}: an #[ignore] reason starts with `slow: `, `minutes: ` or `hours: `",
                        file.display(),
                        n + 1
                    );
                    has_slow |= reason.starts_with("slow: ");
                }
                if has_slow {
                    let module = file.file_stem().unwrap().to_string_lossy();
                    assert!(
                        file.parent() == Some(dir.join("tests").as_path()),
                        "{}: `slow:` tests live in tests/ (the slow step runs the integration binary)",
                        file.display()
                    );
                    slow.push(format!("{krate}:{module}"));
                }
            }
        }
        slow.sort();
        assert_eq!(
            listed, slow,
            ".ci/run's SLOW_TESTS must list the modules that hold `slow:` tests"
        );
    }

    #[test]
    fn cli_runs_the_program_with_stdin_and_reports_its_output() {
        let ran = Cli::new("/bin/sh")
            .args(["-c", "cat; echo err >&2; exit 3"])
            .stdin(b"in\n")
            .run();
        assert_eq!(
            (ran.code(), ran.stdout(), ran.stderr()),
            (3, "in\n".into(), "err\n".into())
        );
        assert!(!ran.success());
        assert_eq!(ran.stdout, b"in\n");
        assert!(
            Cli::new("/bin/sh")
                .args(["-c", "exit 0"])
                .run_ok()
                .success()
        );
    }
}
