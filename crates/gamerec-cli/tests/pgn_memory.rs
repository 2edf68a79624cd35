//! Peak memory of `gamerec check` on inputs far larger than the limit the
//! PGN issue sets (100 MB): plain files are mapped and their pages given
//! back as the reading passes them, huge comments are not held. In a file
//! of its own: the peak is read per child with `wait4`.

#![cfg(target_os = "linux")]

use std::io::Write;

/// Runs the binary with `args`; returns its stdout and its peak resident
/// memory in MB.
fn run_measured(args: &[&str]) -> (String, u64) {
    gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args)
}

#[test]
fn check_stays_under_100_mb_on_a_300_mb_file_and_a_150_mb_comment() {
    let dir = gamerec_testkit::temp_dir("pgn-memory");
    // 300 MB of games with long comments (like engine matches' PGN).
    let games = dir.join("many.pgn");
    let comment = "d=30, pv=e4 e5 Nf3 Nc6 Bb5 a6, wv=0.31 ".repeat(200);
    let game = format!("[Event \"m\"]\n\n1. e4 {{{comment}}} e5 2. Nf3 {{{comment}}} Nc6 1-0\n\n");
    let count = (300 << 20) / game.len();
    let mut file = std::io::BufWriter::new(std::fs::File::create(&games).unwrap());
    for _ in 0..count {
        file.write_all(game.as_bytes()).unwrap();
    }
    file.flush().unwrap();
    drop(file);
    // One game with a 150 MB comment and an illegal move after it.
    let huge = dir.join("huge.pgn");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&huge).unwrap());
    file.write_all(b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"big\"]\n\n1. d4 {")
        .unwrap();
    let line = format!("{}\n", "x".repeat(79));
    for _ in 0..(150 << 20) / line.len() {
        file.write_all(line.as_bytes()).unwrap();
    }
    file.write_all(b"} d5 2. Qxd7 *\n").unwrap();
    file.flush().unwrap();
    drop(file);

    let g = games.to_str().unwrap();
    let h = huge.to_str().unwrap();
    for threads in ["1", "2"] {
        let (out, mb) = run_measured(&["check", "-t", threads, g]);
        assert_eq!(
            out,
            format!(
                "{count} games, {} moves, 0 errors; 0 with errors, 0 warnings\n",
                4 * count
            )
        );
        assert!(mb < 100, "-t {threads} on 300 MB of games: {mb} MB");
        // Past the bound on one game (64 MiB by default) the game is
        // reported and left out, as every verb does.
        let (out, mb) = run_measured(&["check", "-t", threads, h]);
        assert!(
            out.ends_with("2 games, 2 moves, 1 errors; 1 with errors, 0 warnings\n"),
            "{out}"
        );
        assert!(out.contains("larger than the bound of one game"), "{out}");
        assert!(mb < 100, "-t {threads} on a 150 MB comment: {mb} MB");
        // With a larger bound, check reads it without holding the comment.
        let (out, mb) = run_measured(&["check", "--max-game-bytes", "300000000", "-t", threads, h]);
        assert!(
            out.ends_with("2 games, 4 moves, 1 errors; 1 with errors, 0 warnings\n"),
            "{out}"
        );
        assert!(out.contains("illegal move Qxd7"), "{out}");
        assert!(mb < 100, "-t {threads} on a 150 MB comment: {mb} MB");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
