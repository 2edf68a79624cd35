//! The CLI maps flags to options and renders: formats are decided in the
//! library (`gamerec::io::Format`: by extension, by content, the output
//! format's precedence in `gamerec::io::output_format`), and threads are
//! run by the library's pipeline. This test reads the CLI's sources and
//! fails on a format decided or a thread pool run there.

use std::path::Path;

/// Calls that decide a format (or run threads) and belong in the library.
const DECISIONS: [&str; 8] = [
    "Format::from_path",
    "Format::from_name",
    "Format::sniff",
    "from_plain_name",
    "FileKind::of_path",
    "thread::scope",
    "thread::spawn",
    "ThreadPool",
];

#[test]
fn cli_sources_decide_no_format_and_run_no_threads() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut files = 0;
    // Every `.rs` file under `src/`, subfolders (`cmd/`, `formats/`) included.
    let mut dirs = vec![src.clone()];
    let mut paths = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    for path in paths {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for d in DECISIONS {
                if code.contains(d) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        files > 10,
        "the CLI's sources were not found in {}",
        src.display()
    );
    assert!(
        found.is_empty(),
        "decided in the CLI, not the library:\n{}",
        found.join("\n")
    );
}

/// The one output-format rule, as the CLI's users meet it.
#[test]
fn output_format_follows_to_then_name_then_input() {
    use gamerec::io::{Format, output_format};
    fn p(s: &str) -> Option<&Path> {
        Some(Path::new(s))
    }
    assert_eq!(output_format(None, p("a.pgn.zst"), None), Ok(Format::Pgn));
    assert_eq!(
        output_format(None, p("t.parquet"), None),
        Ok(Format::Parquet)
    );
    assert_eq!(output_format(None, p("t.feather"), None), Ok(Format::Arrow));
    assert_eq!(
        output_format(Some(Format::Json), None, Some(Format::Pgn)),
        Ok(Format::Json)
    );
    assert_eq!(
        output_format(None, None, Some(Format::Fen)),
        Ok(Format::Epd)
    );
    assert_eq!(output_format(None, None, None), Ok(Format::Pgn));
    let clash = output_format(Some(Format::Json), p("x.pgn"), None).unwrap_err();
    assert!(
        clash.contains("x.pgn: the file name says PGN but --to says JSON"),
        "{clash}"
    );
    let unknown = output_format(None, p("x.txt"), None).unwrap_err();
    assert!(unknown.contains("add --to FORMAT"), "{unknown}");
}
