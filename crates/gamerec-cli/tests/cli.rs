//! The `gamerec` binary: help, version, `moves` and `show` contracts.

use crate::util::cli;

use std::io::Write;
use std::process::{Command, Stdio};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn help_has_examples_and_version_works() {
    let out = cli(&["--help"]).run().into_output();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Examples:") && help.contains("moves") && help.contains("show"));
    for verb in ["moves", "show"] {
        let out = cli(&[verb, "--help"]).run().into_output();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Examples:"),
            "{verb}"
        );
    }
    let out = cli(&["--version"]).run().into_output();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("gamerec "));
    let out = cli(&["no-such-verb"]).run().into_output();
    assert_eq!(out.status.code(), Some(2));
}

/// The verbs a help text lists under "Commands:" (not `help`).
fn verbs_listed(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        // A verb's line is indented by two; its description's next lines more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|v| *v != "help")
        .map(str::to_owned)
        .collect()
}

/// Every verb and sub-verb's `--help` ends with examples (`match report`
/// had none).
#[test]
fn every_verb_s_help_has_examples() {
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = cli(&args).run().into_output();
        assert!(out.status.success(), "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Examples:"), "{args:?}: {help}");
        seen += 1;
        for verb in verbs_listed(&help) {
            let mut next = path.clone();
            next.push(verb);
            todo.push(next);
        }
    }
    // The top level, its 23 verbs and the sub-verbs of sgf, epd, referee
    // and match.
    assert!(seen > 30, "{seen} help texts");
}

#[test]
fn moves_from_arguments() {
    let out = cli(&["moves", START]).run().into_output();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut moves: Vec<&str> = text.trim_end().split(' ').collect();
    moves.sort_unstable();
    assert_eq!(moves.len(), 20);
    assert!(moves.contains(&"Nf3") && moves.contains(&"e4"));
}

#[test]
fn moves_from_stdin_with_a_bad_line() {
    let input =
        format!("{START}\nnot a fen\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n8/8/8/8/8/8/8/8 w - - 0 1\n");
    let out = cli(&["moves"]).stdin(&input).run().into_output();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines.len(), 5, "{text:?}"); // 4 lines and the final newline
    assert_eq!(lines[0].split(' ').count(), 20);
    assert_eq!(lines[1], "");
    assert_eq!(lines[2].split(' ').count(), 5);
    assert_eq!(lines[3], "");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("line 2") && err.contains("piece placement"),
        "{err}"
    );
    assert!(
        err.contains("line 4") && err.contains("illegal position"),
        "{err}"
    );
}

/// A stdin line that is not UTF-8 is reported (number, escaped excerpt)
/// like a bad FEN and the next lines are read; `moves` used to stop there.
#[test]
fn moves_from_stdin_go_on_after_a_line_that_is_not_utf8() {
    let mut input = format!("{START}\n").into_bytes();
    input.extend_from_slice(b"rnbqkbnr/pppppppp/8/8/\xff/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n");
    input.extend_from_slice(format!("{START}\n").as_bytes());
    let out = cli(&["moves"]).stdin(&input).run().into_output();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines.len(), 4, "{text:?}");
    assert_eq!(lines[1], "");
    assert_eq!(lines[2].split(' ').count(), 20);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("line 2: not UTF-8") && err.contains("/8/8/\\xff/8/"),
        "{err}"
    );
}

#[test]
fn moves_checkmate_and_stalemate_print_empty_lines() {
    let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let out = cli(&["moves", mate, stalemate]).run().into_output();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "\n\n");
}

#[test]
fn moves_in_other_letters_and_figurines() {
    let out = cli(&["moves", "--language", "german", START])
        .run()
        .into_output();
    assert!(String::from_utf8(out.stdout).unwrap().contains("Sf3"));
    let out = cli(&["moves", "--figurines", START]).run().into_output();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("\u{2658}f3")
    );
    let out = cli(&["moves", "--language", "klingon", START])
        .run()
        .into_output();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn show_draws_the_board() {
    let out = cli(&[
        "show",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    ])
    .run()
    .into_output();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("8 \u{265C} \u{265E}"), "{text}");
    assert!(
        text.contains("4 \u{00B7} \u{00B7} \u{00B7} \u{00B7} \u{2659}"),
        "{text}"
    );
    assert!(text.contains("  a b c d e f g h"));
    assert!(text.contains("Black to move"));
    let out = cli(&["show", "bad"]).run().into_output();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn broken_pipe_is_success() {
    // Many lines of input, stdout closed right away.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamerec"))
        .arg("moves")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gamerec");
    let mut stdin = child.stdin.take().unwrap();
    drop(child.stdout.take());
    let input = format!("{START}\n").repeat(20_000);
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    gamerec_testkit::assert_success(&out, "gamerec");
}

#[test]
fn stdin_format_is_recognised_by_content() {
    let sgf = "\n(;FF[4]GM[1]SZ[9];B[ee];W[ee])";
    let out = cli(&["check", "-"]).stdin(sgf).run().into_output();
    assert_eq!(out.status.code(), Some(1), "W[ee] is on an occupied point");
    let err = String::from_utf8_lossy(&out.stdout);
    assert!(err.contains("<stdin>:2:25: error:"), "{err}");
    assert!(err.contains("1 games, "), "{err}");
    let out = cli(&["convert", "-", "--to", "json"])
        .stdin("(;FF[4]SZ[9];B[ee])")
        .run()
        .into_output();
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#"{"id":"B","values":["ee"]}"#));

    let epd = format!("{START}\n").replace(" 0 1", " bm e4;");
    let out = cli(&["convert", "-", "--to", "fen"])
        .stdin(&epd)
        .run()
        .into_output();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{START}\n"));
    let out = cli(&["check", "-"]).stdin(&epd).run().into_output();
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 records, "));

    let out = cli(&["check", "-"])
        .stdin("[Event \"x\"]\n\n1. e4 e5 *\n")
        .run()
        .into_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 games, 2 moves, 0 errors; 0 with errors, 0 warnings\n"
    );
}
