//! Fault tests of issue #23: nothing lost, nothing untrue.
//! - the output filesystem fills mid-event: exit 2 and a clear message;
//! - a truncated state file: `--resume` refuses, naming the file;
//! - SIGTERM: the game in flight is saved as it stood, and the exit is clean.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

struct Reaper(Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn fresh_dir(name: &str) -> PathBuf {
    crate::util::fresh_dir("faults", name)
}

fn wait(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(started.elapsed() < limit, "the process did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn match_cmd(dir: &Path, games: u32, tc: &str) -> Command {
    gamerec_testkit::remove_at_exit(&dir.with_extension("pgn"));
    let mut c = Command::new(BIN);
    c.args(["match", "builtin", "builtin", "-q", "--tc", tc])
        .args(["--games", &games.to_string()])
        .arg("--dir")
        .arg(dir)
        .arg("--out")
        .arg(dir.with_extension("pgn"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn a_truncated_state_file_stops_the_resume() {
    let dir = fresh_dir("truncated");
    let out = match_cmd(&dir, 2, "1+0.01").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = dir.join("state/game-0001.json");
    let text = std::fs::read(&state).unwrap();
    for cut in [text.len() / 2, 0] {
        std::fs::write(&state, &text[..cut]).unwrap();
        let again = Command::new(BIN)
            .args(["match", "-q", "--resume"])
            .arg(&dir)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(2), "{err}");
        assert!(
            err.contains("game-0001.json") && err.contains("damaged state file"),
            "{err}"
        );
        // Nothing was replayed or removed.
        assert_eq!(std::fs::read(&state).unwrap(), &text[..cut]);
    }
    // The repaired file resumes: nothing is left to play.
    std::fs::write(&state, &text).unwrap();
    let again = Command::new(BIN)
        .args(["match", "-q", "--resume"])
        .arg(&dir)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_match_in_a_used_directory_is_refused() {
    let dir = fresh_dir("used");
    let out = match_cmd(&dir, 2, "1+0.01").output().unwrap();
    assert!(out.status.success());
    let other = match_cmd(&dir, 4, "2+0.02").output().unwrap();
    let err = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{err}");
    assert!(err.contains("holds another match"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_saves_the_game_in_flight_and_exits_cleanly() {
    let dir = fresh_dir("sigterm");
    let mut child = Reaper(match_cmd(&dir, 2, "60+1").spawn().unwrap());
    let state = dir.join("state/game-0001.json");
    let moves = |path: &Path| -> Option<usize> {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        v["moves"].as_array().map(Vec::len)
    };
    let started = Instant::now();
    while moves(&state).unwrap_or(0) < 4 {
        assert!(started.elapsed() < Duration::from_secs(60), "no moves");
        std::thread::sleep(Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait(&mut child.0, Duration::from_secs(20));
    let mut err = String::new();
    if let Some(mut e) = child.0.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    // Stopped early (exit 1), not killed by the signal; no error.
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("stopping"), "{err}");
    assert!(!err.contains("error"), "{err}");
    // The game in flight is saved as it stood: moves, no ending.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert!(saved["moves"].as_array().unwrap().len() >= 4);
    assert!(saved["ending"].is_null(), "{saved}");
    // No temporary files are left behind.
    for entry in std::fs::read_dir(dir.join("state")).unwrap() {
        let name = entry.unwrap().file_name();
        assert!(
            !name.to_string_lossy().contains(".gamerec-"),
            "{name:?} left behind"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_filesystem_mid_event_fails_the_run() {
    let mount = fresh_dir("tmpfs");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&mount)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        let _ = std::fs::remove_dir_all(&mount);
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _unmount = Unmount(mount.clone());
    let dir = mount.join("run");
    // The PGN goes elsewhere: only the match directory fills.
    let mut cmd = Command::new(BIN);
    cmd.args([
        "match", "builtin", "builtin", "-q", "--tc", "1+0.01", "--games", "6",
    ])
    .arg("--dir")
    .arg(&dir)
    .arg("--out")
    .arg(mount.with_extension("pgn"))
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = Reaper(cmd.spawn().unwrap());
    let status = wait(&mut child.0, Duration::from_secs(180));
    let mut err = String::new();
    if let Some(mut e) = child.0.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("record is incomplete"), "{err}");
    let _ = std::fs::remove_file(mount.with_extension("pgn"));
}
