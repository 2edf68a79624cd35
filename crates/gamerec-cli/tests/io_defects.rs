//! One test per defect listed in issue 13 ("Why"), each failing on the
//! code before the `gamerec::io` layer and passing on it.

use crate::util::cli;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use gamerec_testkit::temp_dir;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const TWO_GAMES: &str = "[Event \"a\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 *\n";

fn two_pgn_files(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
    std::fs::write(&a, TWO_GAMES).expect("write");
    std::fs::write(&b, "[Event \"c\"]\n\n1. c4 e5 *\n").expect("write");
    (a, b)
}

/// `convert a.pgn b.pgn -o out.cbf` (also .pgc, .fbk, .epd) wrote PGN text
/// into the file and no .cbi; now each writes its format (read back by
/// `check`), and a chess-to-SGF request fails without writing.
#[test]
fn output_extension_writes_that_format_never_pgn_text() {
    let dir = temp_dir("defect-ext");
    let (a, b) = two_pgn_files(&dir);
    for ext in ["cbf", "pgc", "fbk"] {
        let out = dir.join(format!("out.{ext}"));
        let (code, _, err) = cli(&["convert", s(&a), s(&b), "-o", s(&out)])
            .run()
            .code_and_text();
        assert_eq!(code, 0, "{ext}: {err}");
        let bytes = std::fs::read(&out).expect("written");
        assert!(!bytes.starts_with(b"[Event"), "{ext} holds PGN text");
        let (code, text, err) = cli(&["check", s(&out)]).run().code_and_text();
        assert_eq!(code, 0, "{ext}: {text}{err}");
        let games = if ext == "fbk" {
            "1 games, "
        } else {
            "3 games, "
        };
        assert!(text.contains(games), "{ext}: {text}");
    }
    assert!(
        dir.join("out.cbi").is_file(),
        "the CBF index is written beside it"
    );
    let epd = dir.join("out.epd");
    let (code, _, _) = cli(&["convert", s(&a), s(&b), "-o", s(&epd)])
        .run()
        .code_and_text();
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&epd).expect("written");
    assert_eq!(text.lines().count(), 6 + 4 + 3, "one record per position");
    assert!(
        text.lines()
            .all(|l| l.contains(" sm ") || l.contains("id ")),
        "{text}"
    );
    let sgf = dir.join("out.sgf");
    let (code, _, err) = cli(&["convert", s(&a), "-o", s(&sgf)])
        .run()
        .code_and_text();
    assert_eq!(code, 2);
    assert!(err.contains("cannot convert chess games to SGF"), "{err}");
    assert!(!sgf.exists());
    let (code, _, err) = cli(&["convert", s(&a), "--to", "cbf", "-o", s(&dir.join("x.pgn"))])
        .run()
        .code_and_text();
    assert_eq!(code, 2);
    assert!(
        err.contains("x.pgn: the file name says PGN but --to says CBF"),
        "{err}"
    );
}

/// `convert x.pgc --to json`, `x.cbf --to json` and PGN `--to fen` were
/// refused, and `show game.pgn` too.
#[test]
fn binary_to_json_pgn_to_fen_and_show_a_game_file() {
    let dir = temp_dir("defect-any");
    let (a, _) = two_pgn_files(&dir);
    let pgc = dir.join("g.pgc");
    let cbf = dir.join("g.cbf");
    for out in [&pgc, &cbf] {
        assert_eq!(
            cli(&["convert", s(&a), "-o", s(out)])
                .run()
                .code_and_text()
                .0,
            0
        );
    }
    for input in [&pgc, &cbf] {
        let (code, json, err) = cli(&["convert", s(input), "--to", "json"])
            .run()
            .code_and_text();
        assert_eq!(code, 0, "{err}");
        assert_eq!(json.lines().count(), 2, "{json}");
        assert!(json.contains("\"san\":\"Bb5\""), "{json}");
    }
    let (code, fen, err) = cli(&["convert", s(&a), "--to", "fen"])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert_eq!(fen.lines().count(), 6 + 4);
    assert_eq!(
        fen.lines().nth(5),
        Some("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")
    );
    let (code, board, err) = cli(&["show", s(&a), "--ply", "2", "--ascii"])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(board.contains("game 1, ply 2"), "{board}");
    assert!(board.contains("after e5"), "{board}");
    let (code, board, _) = cli(&["show", s(&cbf), "--game", "2"]).run().code_and_text();
    assert_eq!(code, 0);
    assert!(board.contains("game 2, ply 3"), "{board}");
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).expect("gzip");
    gz.finish().expect("gzip")
}

/// `check x.pgc.gz`, `convert x.pgc.gz` and `report w.epd.gz` failed
/// although `.gz` worked elsewhere.
#[test]
fn compressed_binary_and_report_inputs_are_read() {
    let dir = temp_dir("defect-gz");
    let (a, _) = two_pgn_files(&dir);
    let pgc = dir.join("x.pgc");
    assert_eq!(
        cli(&["convert", s(&a), "-o", s(&pgc)])
            .run()
            .code_and_text()
            .0,
        0
    );
    let gz = dir.join("x.pgc.gz");
    std::fs::write(&gz, gzip(&std::fs::read(&pgc).expect("pgc"))).expect("write");
    let (code, out, err) = cli(&["check", s(&gz)]).run().code_and_text();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 games, "), "{out}");
    let (code, pgn, err) = cli(&["convert", s(&gz), "--to", "pgn"])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(pgn.contains("3. Bb5 1-0"), "{pgn}");
    let solved = "8/8/8/8/8/8/8/K1k5 w - - bm Ka2; pm Ka2; solved 1;\n";
    let w = dir.join("w.epd.gz");
    std::fs::write(&w, gzip(solved.as_bytes())).expect("write");
    let html = dir.join("w.html");
    let (code, out, err) = cli(&["report", s(&w), "-o", s(&html)])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1"), "{out}");
}

/// SGF `--to json` nested each main-line move one level deeper, past the
/// depth limits of jq and Python; now a main line is one list.
#[test]
fn sgf_json_depth_does_not_grow_with_game_length() {
    let dir = temp_dir("defect-sgf-json");
    let mut sgf = String::from("(;GM[1]FF[4]SZ[19]");
    let letters = b"abcdefghijklmnopqrs";
    for i in 0..265 {
        let (x, y) = (letters[i % 19] as char, letters[i / 19] as char);
        sgf.push_str(&format!(";{}[{x}{y}]", if i % 2 == 0 { 'B' } else { 'W' }));
    }
    sgf.push(')');
    let path = dir.join("long.sgf");
    std::fs::write(&path, &sgf).expect("write");
    let (code, json, err) = cli(&["convert", s(&path), "--to", "json"])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&json).expect("within serde_json's depth limit");
    assert_eq!(v["games"][0].as_array().map(Vec::len), Some(266));
}

/// A missing PGN aborted `check` with no summary while a missing SGF or EPD
/// was skipped; messages named the path twice or not at all.
#[test]
fn missing_and_unreadable_inputs_are_reported_once_and_the_rest_read() {
    let dir = temp_dir("defect-missing");
    let (a, _) = two_pgn_files(&dir);
    let (code, out, err) = cli(&["check", "nope.pgn", s(&a)]).run().code_and_text();
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        "nope.pgn: error: No such file or directory (os error 2)"
    );
    assert!(
        out.starts_with("2 games, 8 moves, 0 errors, 1 file not read"),
        "{out}"
    );
    let (code, _, err) = cli(&["check", s(&dir), s(&a)]).run().code_and_text();
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        format!("{}: error: is a directory", dir.display())
    );
    for missing in ["nope.sgf", "nope.epd"] {
        let (code, out, err) = cli(&["check", missing]).run().code_and_text();
        assert_eq!(code, 2, "{missing}");
        assert!(err.starts_with(&format!("{missing}: ")), "{err}");
        assert_eq!(err.matches(missing).count(), 1, "{err}");
        assert!(out.contains("1 file not read"), "{out}");
    }
    let wac = gamerec_testkit::repo_root().join("samples/wac-20.epd");
    let (code, out, err) = cli(&["epd", "check", "nope.epd", s(&wac)])
        .run()
        .code_and_text();
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        "gamerec: nope.epd: No such file or directory (os error 2)"
    );
    assert!(out.contains("20 records, 0 errors"), "{out}");
    let (code, out, err) = cli(&["sort", "nope.pgn", s(&a)]).run().code_and_text();
    assert_eq!(code, 2);
    assert_eq!(err.matches("nope.pgn").count(), 1, "{err}");
    assert_eq!(out.matches("[Event ").count(), 2, "{out}");
    let (code, _, err) = cli(&["convert", "nope.pgn", "-o", s(&dir.join("o.pgn"))])
        .run()
        .code_and_text();
    assert_eq!(code, 2);
    assert_eq!(err.matches("nope.pgn").count(), 1, "{err}");
    let (_, _, err) = cli(&[
        "epd",
        "solve",
        "--engine",
        "uci:/nonexistent/engine",
        "--depth",
        "1",
        "-",
    ])
    .stdin(b"8/8/8/8/8/8/8/K1k5 w - - bm Ka2;\n")
    .run()
    .code_and_text();
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

/// A binary file read as PGN printed 32,157 error lines and raw ESC bytes.
#[test]
fn binary_file_read_as_pgn_stops_with_one_line_and_no_control_bytes() {
    let dir = temp_dir("defect-binary");
    let exe = std::fs::read(env!("CARGO_BIN_EXE_gamerec")).expect("binary");
    let path = dir.join("binary.pgn");
    std::fs::write(&path, &exe[..exe.len().min(2 << 20)]).expect("write");
    let (code, out, _) = cli(&["check", s(&path)]).run().code_and_text();
    assert_eq!(code, 1);
    assert!(out.lines().count() <= 3, "{out}");
    assert!(out.contains("not PGN"), "{out}");
    // Text that is not PGN stops after a bounded number of errors.
    let junk = format!("\u{1b}[31m{}", "x ) y ) z ) *\n\n".repeat(5000));
    let (code, out, _) = cli(&["check", "-"])
        .stdin(junk.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(code, 1);
    assert!(out.lines().count() < 60, "{} lines", out.lines().count());
    assert!(out.contains("does not look like PGN"), "{out}");
    assert!(!out.contains('\u{1b}'), "control bytes are escaped");
}

/// A truncated .gz ended with exit 2 and no summary; a PGN cut after its
/// tag section made `convert` write a phantom game.
#[test]
fn truncated_input_reports_games_before_the_cut_and_no_phantom_game() {
    let dir = temp_dir("defect-truncated");
    let eco = std::fs::read(gamerec_testkit::corpus("pgn/eco.pgn")).expect("corpus");
    let gz = gzip(&eco);
    let cut = dir.join("cut.pgn.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).expect("write");
    let (code, out, err) = cli(&["check", s(&cut)]).run().code_and_text();
    assert_eq!(code, 2);
    let games: u64 = out
        .lines()
        .last()
        .unwrap_or_default()
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a summary: {out}"));
    assert!(games > 500, "{out}");
    assert!(err.contains(&format!("after {games} games read")), "{err}");
    let (code, _, err) = cli(&["convert", s(&cut), "--to", "epd"])
        .run()
        .code_and_text();
    assert_eq!(code, 2);
    assert!(err.contains(" games read)"), "{err}");

    let text = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n[Site \"x\"]\n";
    let (code, pgn, err) = cli(&["convert", "-"]).stdin(text).run().code_and_text();
    assert_eq!(code, 1, "{err}");
    assert_eq!(pgn.matches("[Event ").count(), 1, "{pgn}");
    assert!(
        err.contains("<stdin>:5:1: error: the input ends after this game's tags"),
        "{err}"
    );
}

/// `convert x.pgn --to epd` cut ~180,000 comments and said so once, as
/// `ply 0`, with no game or line; the variations warning did not name the
/// `--variations` flag.
#[test]
fn conversion_losses_name_game_and_line_and_the_flag() {
    let long = "x".repeat(300);
    let text = format!(
        "[Event \"a\"]\n\n1. e4 {{{long}}} e5 (1... c5) *\n\n[Event \"b\"]\n\n1. d4 {{{long}}} *\n"
    );
    let (code, _, err) = cli(&["convert", "-", "--to", "epd"])
        .stdin(text.as_bytes())
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("<stdin>:1:1: warning: game 1: ply 1: comment cut to 255 bytes"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:5:1: warning: game 2: ply 1: comment cut"),
        "{err}"
    );
    assert!(err.contains("--variations"), "{err}");
}

/// `check` counted EPD records as `node(s)`; samples/README.md told the
/// reader to run `gamerec check samples/*`, which read README.md as PGN.
#[test]
fn epd_units_and_the_samples_readme_command() {
    let wac = gamerec_testkit::repo_root().join("samples/wac-20.epd");
    let (code, out, _) = cli(&["check", s(&wac)]).run().code_and_text();
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("20 records, 0 errors;"), "{out}");
    assert!(!out.contains("node(s)"), "{out}");
    let readme = std::fs::read_to_string(gamerec_testkit::repo_root().join("samples/README.md"))
        .expect("README");
    let command = readme
        .split('`')
        .find(|part| part.starts_with("gamerec check samples/"))
        .expect("the README names a check command");
    let args: Vec<String> = command.split(' ').skip(1).flat_map(glob).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = cli(&args).run().code_and_text();
    assert_eq!(code, 0, "{command}: {out}{err}");
}

/// The files a `samples/*.ext` pattern names (the shell's job in the README).
fn glob(arg: &str) -> Vec<String> {
    let root = gamerec_testkit::repo_root();
    let Some((dir, pattern)) = arg.rsplit_once('/').filter(|(_, p)| p.starts_with('*')) else {
        return vec![arg.to_string()];
    };
    let suffix = &pattern[1..];
    let mut files: Vec<String> = std::fs::read_dir(root.join(dir))
        .expect("samples")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

/// `40. exd6 e.p. Ke3` (the mark as its own word) was refused.
#[test]
fn en_passant_mark_written_apart_is_read() {
    let text = b"1. e4 Nf6 2. e5 d5 3. exd6 e.p. e6 4. dxc7 *\n";
    let (code, out, _) = cli(&["check", "-"]).stdin(text).run().code_and_text();
    assert_eq!(
        (code, out.as_str()),
        (0, "1 games, 7 moves, 0 errors; 0 with errors, 0 warnings\n")
    );
}

/// PGC on stdin is known by its first marker, a general game's (0x05, what
/// `convert -o .pgc` writes for games with comments) as well as a reduced
/// game's, and read from the bytes taken to tell it (stdin cannot be
/// opened again): every game comes through `check -` and `convert -`.
#[test]
fn pgc_on_stdin_is_known_by_content_and_read_whole() {
    let dir = temp_dir("io-pgc-stdin");
    let pgc = dir.join("games.pgc");
    let pgn = gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn");
    let (code, _, err) = cli(&["convert", s(&pgn), "-o", s(&pgc)])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&pgc).unwrap();
    assert_eq!(bytes[0], 0x05, "general games");
    let (code, out, err) = cli(&["check", "-"]).stdin(&bytes).run().code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("438 games, "), "{out}");
    let (code, out, err) = cli(&["convert", "-", "--to", "pgn"])
        .stdin(&bytes)
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("[Event ").count(), 438);
}

/// A compressed PGC, CBF or FBK file cut short was not read at all
/// (`0 games, ..., 1 file not read`: the whole stream was read before any
/// game); now the games before the cut are read, then the error names the
/// count, as for PGN (exit 2; `convert` writes nothing).
#[test]
fn truncated_compressed_binary_files_read_their_games_before_the_cut() {
    let dir = temp_dir("defect-truncated-binary");
    let pgn = gamerec_testkit::corpus("pgn/eco.pgn");
    let (pgc, fbk) = (dir.join("eco.pgc"), dir.join("eco.fbk"));
    for out in [&pgc, &fbk] {
        let (code, _, err) = cli(&["convert", s(&pgn), "-o", s(out)])
            .run()
            .code_and_text();
        assert!(code < 2, "{err}");
    }
    for (whole, name) in [(&pgc, "cut.pgc.gz"), (&fbk, "cut.fbk.gz")] {
        let gz = gzip(&std::fs::read(whole).expect("written"));
        let cut = dir.join(name);
        std::fs::write(&cut, &gz[..gz.len() / 2]).expect("write");
        let (code, out, err) = cli(&["check", "-q", s(&cut)]).run().code_and_text();
        assert_eq!(code, 2, "{out}{err}");
        let games: u64 = out
            .lines()
            .last()
            .unwrap_or_default()
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a summary: {out}"));
        assert!(games > 0, "{name}: {out}");
        assert!(out.contains("1 file not read"), "{name}: {out}");
        assert!(
            err.contains(&format!("after {games} games read")),
            "{name}: {err}"
        );
        let target = dir.join("out.pgn");
        let (code, _, err) = cli(&["convert", s(&cut), "-o", s(&target)])
            .run()
            .code_and_text();
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(" games read)"), "{name}: {err}");
        assert!(!target.exists(), "{name}: no output");
    }
}

/// `check x.cbf.gz` looked for the index `x.cbf.cbi` (and `x.cbi.gz` for
/// `x.cbi.cbi`): a compressed CBF pair could not be read. Now either name
/// reads the pair, each file compressed or not.
#[test]
fn compressed_cbf_pairs_are_read_by_either_name() {
    let dir = temp_dir("defect-cbf-gz");
    let pgn = gamerec_testkit::corpus("pgn/eco.pgn");
    let cbf = dir.join("eco.cbf");
    let (code, _, err) = cli(&["convert", s(&pgn), "-o", s(&cbf)])
        .run()
        .code_and_text();
    assert!(code < 2, "{err}");
    let (_, whole, _) = cli(&["check", "-q", s(&cbf)]).run().code_and_text();
    let games = whole.lines().last().expect("a summary").to_string();
    assert!(!games.starts_with("0 games"), "{whole}");
    for name in ["eco.cbf", "eco.cbi"] {
        let bytes = std::fs::read(dir.join(name)).expect("written");
        std::fs::write(dir.join(format!("{name}.gz")), gzip(&bytes)).expect("write");
    }
    for name in ["eco.cbf.gz", "eco.cbi.gz"] {
        let (code, out, err) = cli(&["check", "-q", s(&dir.join(name))])
            .run()
            .code_and_text();
        assert_eq!(
            (code, out.lines().last()),
            (0, Some(games.as_str())),
            "{name}: {out}{err}"
        );
    }
    // The index plain, the game file compressed.
    std::fs::remove_file(dir.join("eco.cbi.gz")).expect("remove");
    let (code, out, err) = cli(&["check", "-q", s(&dir.join("eco.cbf.gz"))])
        .run()
        .code_and_text();
    assert_eq!(
        (code, out.lines().last()),
        (0, Some(games.as_str())),
        "{out}{err}"
    );
}

/// `report` wrote the messages of the lines it leaves out with their write
/// errors dropped: with stderr on a full disk it wrote the page as if all
/// were said, then panicked (exit 101) on its "wrote" line. Now a message
/// that cannot be written fails the run (exit 2) before the page is made.
#[test]
fn report_fails_when_its_messages_cannot_be_written() {
    let dir = temp_dir("defect-report-stderr");
    let run = dir.join("run.epd");
    std::fs::write(
        &run,
        "8/8/8/8/8/8/8/K1k5 w - - bm Ka2; pm Ka2;\nnot an EPD record\n",
    )
    .expect("write");
    let html = dir.join("run.html");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let status = std::process::Command::new(crate::util::GAMEREC)
        .args(["report", s(&run), "-o", s(&html)])
        .stdout(std::process::Stdio::null())
        .stderr(full)
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(2));
    assert!(!html.exists());
    // With stderr writable, the same run says what it left out and exits 1.
    let (code, _, err) = cli(&["report", s(&run), "-o", s(&html)])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1 error(s)"), "{err}");
    assert!(html.exists());
}

/// A game the CBF writer leaves out (its moves do not fit the format's
/// 16-bit length) was said as an error but counted as a warning and as
/// written, and the run exited 0. Now it is an error on every verb that
/// writes CBF: exit 1, "1 errors", and not among those written.
#[test]
fn a_game_the_writer_leaves_out_is_an_error_and_not_written() {
    let dir = temp_dir("defect-left-out");
    let n = 30_000;
    let huge = format!(
        "[Event \"huge\"]\n\n1. e4 {}{} e5 *\n\n",
        "(1. d4 ".repeat(n),
        ")".repeat(n)
    );
    let input = dir.join("in.pgn");
    std::fs::write(&input, format!("{huge}{TWO_GAMES}")).expect("write");
    let cbf = dir.join("out.cbf");
    let (code, _, err) = cli(&["convert", s(&input), "-o", s(&cbf)])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("game left out"), "{err}");
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.contains("1 errors; 1 with errors") && l.ends_with(", 2 written")),
        "{err}"
    );
    let (code, out, err) = cli(&["check", s(&cbf)]).run().code_and_text();
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("2 games"), "{out}");
    for verb in [&["filter", "--where", "Event=huge"][..], &["dedup"][..]] {
        let mut args = verb.to_vec();
        args.extend([s(&input), "-o", s(&cbf)]);
        let (code, _, err) = cli(&args).run().code_and_text();
        assert_eq!(code, 1, "{args:?}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(last.contains("1 errors; 1 with errors"), "{args:?}: {err}");
        let written = if verb[0] == "filter" {
            "0 written"
        } else {
            "2 written"
        };
        assert!(last.ends_with(written), "{args:?}: {err}");
    }
    // From a games table, the same: the row's game is left out (exit 1).
    let table = dir.join("in.parquet");
    let (code, _, err) = cli(&["convert", s(&input), "-o", s(&table)])
        .run()
        .code_and_text();
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = cli(&["convert", s(&table), "-o", s(&cbf)])
        .run()
        .code_and_text();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("game left out"), "{err}");
}
