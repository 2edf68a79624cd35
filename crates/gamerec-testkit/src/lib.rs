//! Test support shared by the gamerec crates (dev-dependency only).
//!
//! * [`shared_dir`] / [`corpus`]: where `../shared` (specs, corpus, bench) is.
//! * [`peer`]: finds an external program (python-chess venv, Debian engines,
//!   pgn-extract). When `GAMEREC_REQUIRE_PEERS=1` (set by `.ci/run`) a missing
//!   peer fails the test; otherwise the test prints why it skipped.

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
    use std::io::Write;
    use std::process::{Command, Stdio};
    let program = program.as_ref();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
/// `$TMPDIR/gamerec-<name>-<pid>` (created if missing).
///
/// # Panics
/// When the directory cannot be created.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gamerec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
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

/// Runs `program` with `args`; returns its stdout and its peak resident
/// memory in MB, read for that child alone with `wait4`.
#[cfg(target_os = "linux")]
#[expect(clippy::zombie_processes, reason = "the child is reaped by wait4")]
pub fn run_measured(program: &str, args: &[&str]) -> (String, u64) {
    use std::io::Read;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::piped())
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
