//! The commands of README.md, CONTRIBUTING.md and docs/*.md, run.
//!
//! The convention (CONTRIBUTING.md, "Commands in the docs"):
//! - A ```` ```console ```` block holds commands, each on a line starting
//!   with `$ ` (a line ending in `\` continues on the next). The lines after
//!   a command, up to the next `$ `, are output it must print (each line, on
//!   stdout or stderr, in any order; `...` stands for lines not shown).
//!   A command ending in `# exit N` must exit with status N, others with 0.
//!   Commands run with `sh` in one temporary directory per document, holding
//!   a copy of `samples/`, with the built `gamerec` first on `PATH`; a block
//!   may use the files an earlier block of the same document wrote.
//! - Any other shell block (`sh`, `bash`, `shell`) is not run and must say
//!   why on the line before it: `<!-- not run: REASON -->`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gamerec_testkit::repo_root;

/// The longest one documented command may take (debug build, busy machine).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(180);

/// One fenced block of a document.
struct Block {
    /// `path:line` of its opening fence.
    place: String,
    /// The info string (`console`, `sh`, ...).
    lang: String,
    /// The line before the fence (trimmed).
    before: String,
    /// The lines inside.
    lines: Vec<String>,
}

/// One documented command and the output lines it must print.
struct DocCommand {
    place: String,
    command: String,
    status: i32,
    expected: Vec<String>,
}

/// The documents whose commands are run.
fn documents() -> Vec<PathBuf> {
    let root = repo_root();
    let mut docs = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    docs.extend(guides);
    docs
}

fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let name = path
        .strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    let mut previous = String::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            Some(mut block) => {
                if trimmed.starts_with("```") {
                    out.push(block);
                } else {
                    block.lines.push(line.to_string());
                    open = Some(block);
                }
            }
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        place: format!("{name}:{}", i + 1),
                        lang: info.trim().to_string(),
                        before: previous.clone(),
                        lines: Vec::new(),
                    });
                }
            }
        }
        if !line.trim().is_empty() {
            previous = line.trim().to_string();
        }
    }
    assert!(open.is_none(), "{name}: a fenced block is not closed");
    out
}

fn is_shell(lang: &str) -> bool {
    matches!(lang, "sh" | "bash" | "shell" | "console")
}

fn commands(block: &Block) -> Vec<DocCommand> {
    let mut out: Vec<DocCommand> = Vec::new();
    let mut continuing = false;
    for line in &block.lines {
        if continuing {
            let command = &mut out.last_mut().expect("a command to continue").command;
            command.push('\n');
            command.push_str(line);
            continuing = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            continuing = command.ends_with('\\');
            out.push(DocCommand {
                place: block.place.clone(),
                command: command.to_string(),
                status: 0,
                expected: Vec::new(),
            });
        } else if let Some(last) = out.last_mut() {
            let line = line.trim_end();
            if !line.is_empty() && line != "..." {
                last.expected.push(line.to_string());
            }
        } else {
            panic!("{}: output before any `$ ` command: {line}", block.place);
        }
    }
    for command in &mut out {
        if let Some((_, status)) = command.command.rsplit_once("# exit ") {
            command.status = status.trim().parse().unwrap_or_else(|_| {
                panic!("{}: bad `# exit N` in {}", command.place, command.command)
            });
        }
    }
    out
}

/// Runs `command` with `sh` in `dir`; its exit status and its output
/// (stdout then stderr). Kills it after [`COMMAND_TIMEOUT`].
fn run_in(dir: &Path, logs: &Path, command: &str) -> (i32, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_gamerec"));
    let path = std::env::join_paths(
        std::iter::once(bin.parent().expect("the binary's directory").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("PATH joins");
    let stdout = logs.join("stdout");
    let stderr = logs.join("stderr");
    // Temporary files a command leaves (a match's directory without
    // `--dir`) go with the document's directory.
    let tmp = logs.with_file_name("tmp");
    std::fs::create_dir_all(&tmp).expect("create the TMPDIR");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout log"))
        .stderr(std::fs::File::create(&stderr).expect("stderr log"))
        .spawn()
        .expect("sh starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for sh") {
            break status;
        }
        if start.elapsed() > COMMAND_TIMEOUT {
            child.kill().expect("kill a command past its time");
            child.wait().expect("reap a killed command");
            panic!("`{command}` took more than {COMMAND_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut text = String::from_utf8_lossy(&std::fs::read(&stdout).expect("stdout")).into_owned();
    text.push_str(&String::from_utf8_lossy(
        &std::fs::read(&stderr).expect("stderr"),
    ));
    (status.code().unwrap_or(-1), text)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a copy's directory");
    for entry in std::fs::read_dir(from).expect("read a directory to copy") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

#[test]
fn every_shell_block_is_run_or_says_why_not() {
    let mut bad = Vec::new();
    let mut run = 0;
    for doc in documents() {
        for block in blocks(&doc) {
            if block.lang == "console" {
                let commands = commands(&block);
                if commands.is_empty() {
                    bad.push(format!(
                        "{}: a console block without `$ ` commands",
                        block.place
                    ));
                }
                run += commands.len();
            } else if is_shell(&block.lang) && !block.before.starts_with("<!-- not run: ") {
                bad.push(format!(
                    "{}: a `{}` block neither ```console nor after `<!-- not run: REASON -->`",
                    block.place, block.lang
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(run >= 40, "only {run} documented commands are run");
}

#[test]
fn documented_commands_run_as_shown() {
    let samples = repo_root().join("samples");
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let commands: Vec<DocCommand> = blocks(&doc)
            .iter()
            .filter(|b| b.lang == "console")
            .flat_map(commands)
            .collect();
        if commands.is_empty() {
            continue;
        }
        let stem = doc
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .to_string();
        let base = gamerec_testkit::temp_dir(&format!("docs-{stem}"));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("work");
        let logs = base.join("logs");
        std::fs::create_dir_all(&logs).expect("create the log directory");
        copy_dir(&samples, &dir.join("samples"));
        for command in &commands {
            let (status, output) = run_in(&dir, &logs, &command.command);
            ran += 1;
            let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
            let missing: Vec<&String> = command
                .expected
                .iter()
                .filter(|e| !lines.contains(&e.as_str()))
                .collect();
            if status != command.status || !missing.is_empty() {
                failures.push(format!(
                    "{}: `{}` exited {status} (documented: {}); lines not printed: {missing:?}\n{output}",
                    command.place, command.command, command.status
                ));
            }
        }
        std::fs::remove_dir_all(&base).expect("remove the document's directory");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 40, "only {ran} documented commands ran");
}

/// The headings of README.md at commit 3778564 (before it became a first
/// page, issue 28): each is a heading of a guide now (a trailing
/// `(issue N)` dropped).
const OLD_README_SECTIONS: &[&str] = &[
    "Install",
    "Command-line contracts",
    "Positions and moves: `gamerec moves`, `gamerec show` (FEN, SAN)",
    "PGN: `check` and `convert`",
    "JSON Lines (`--to json`)",
    "PGN: sort, split, strict tag checks, embedded commands",
    "EPD verbs: `gamerec epd normalize | purge | check`",
    "Engines and EPD analysis (`gamerec epd analyze|mate|solve`, `gamerec report`)",
    "Pictures: `gamerec svg`, `gamerec html` (boards, viewer pages)",
    "Any format to any other: `gamerec convert`, `gamerec show FILE`",
    "Binary formats: ChessBase CBF/CBI and FBK, PGC",
    "SGF (Smart Game Format FF[1]..FF[4])",
    "Referee (Argus), bridge and match",
    "Identity and threat model",
    "Game databases: `gamerec filter`, `dedup`, `eco`, `index`, `find`",
    "Games as data: Parquet, Arrow, Python, DuckDB, Polars, Spark",
    "Games table (one row per game)",
    "Positions table (one row per main-line ply)",
    "Python package",
    "DuckDB and Polars",
    "Spark: many shards, many machines",
    "gamerec match: engine testing",
    "Testing: hardening",
];

#[test]
fn every_section_of_the_old_readme_is_in_a_guide() {
    let mut headings = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        let mut fenced = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if !fenced && line.starts_with('#') {
                headings.push(line.trim_start_matches('#').trim().to_string());
            }
        }
    }
    let missing: Vec<&&str> = OLD_README_SECTIONS
        .iter()
        .filter(|s| !headings.iter().any(|h| h == **s))
        .collect();
    assert!(
        missing.is_empty(),
        "sections of the old README in no guide: {missing:?}"
    );
}

#[test]
fn readme_stays_a_first_page() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: it is the first page (what it is, install, the two \
         commands, one example per area); reference text belongs in docs/"
    );
}
