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

/// `sort` and `split` keep each game as exported text, not the games'
/// models: the 13 MB of games below took 479 MB to sort (the whole
/// input's models were read first; 32 MB of real games, 732 MB), now
/// under three times the file. Out of 30,000 games in reverse date order,
/// the sorted output starts with the earliest.
#[test]
fn sort_and_split_hold_exported_text_not_models() {
    let dir = gamerec_testkit::temp_dir("sort-memory");
    let path = dir.join("games.pgn");
    let moves = format!("{} 1/2-1/2", gamerec_testkit::BREYER_MOVES);
    let n = 30_000;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in (0..n).rev() {
        write!(
            out,
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"{}.{:02}.{:02}\"]\n[Round \"{}\"]\n\
             [White \"W{i}\"]\n[Black \"B{i}\"]\n[Result \"1/2-1/2\"]\n\n{moves}\n\n",
            1900 + i / 365,
            1 + i / 31 % 12,
            1 + i % 28,
            i
        )
        .unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let file_mb = std::fs::metadata(&path).unwrap().len() >> 20;
    let sorted = dir.join("sorted.pgn");
    let (_, mb) = run_measured(&[
        "sort",
        path.to_str().unwrap(),
        "-o",
        sorted.to_str().unwrap(),
    ]);
    assert!(mb < 3 * file_mb + 40, "sort: {mb} MB for {file_mb} MB");
    // Past --memory, runs on disk: the same output in less memory.
    let spilled = dir.join("spilled.pgn");
    let (_, mb_runs) = run_measured(&[
        "sort",
        "--memory",
        "2",
        path.to_str().unwrap(),
        "-o",
        spilled.to_str().unwrap(),
    ]);
    assert!(
        mb_runs < file_mb + 20,
        "sort --memory 2: {mb_runs} MB for {file_mb} MB"
    );
    // Files are read a piece at a time: a child forked while this process
    // held one whole would count it in its own peak (see `memory.rs`).
    assert!(gamerec_testkit::same_file_contents(&spilled, &sorted));
    let lines = gamerec_testkit::lines_of(&sorted);
    let head: Vec<String> = lines.take(4).collect();
    assert_eq!(
        head,
        [
            "[Event \"E\"]",
            "[Site \"S\"]",
            "[Date \"1900.01.01\"]",
            "[Round \"0\"]"
        ]
    );
    let events = gamerec_testkit::lines_of(&sorted)
        .filter(|l| l.starts_with("[Event "))
        .count();
    assert_eq!(events, n);
    let archive = dir.join("archive");
    let (_, mb) = run_measured(&[
        "split",
        "--by-date",
        archive.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(mb < 3 * file_mb + 40, "split: {mb} MB for {file_mb} MB");
    assert!(archive.join("1900").is_dir());
}

/// Writing a game to PGC, CBF or FBK cloned its model first: one long game
/// (300,000 plies, 2.4 MB) took 142-150 MB to convert to them, against 80
/// MB to PGN, which holds the same model once. Now they hold it once too.
#[test]
fn binary_outputs_hold_one_model_of_a_long_game() {
    let dir = gamerec_testkit::temp_dir("long-game-memory");
    let input = dir.join("long.pgn");
    let mut text = String::from("[Event \"long\"]\n[Result \"*\"]\n\n");
    for i in 0..300_000 {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(["Nf3 ", "Nf6 ", "Ng1 ", "Ng8 "][i % 4]);
    }
    text.push_str("*\n");
    std::fs::write(&input, &text).unwrap();
    drop(text);
    let input = input.to_str().unwrap();
    let (_, pgn) = run_measured(&["convert", input, "--to", "pgn"]);
    for ext in ["pgc", "cbf", "fbk"] {
        let out = dir.join(format!("long.{ext}"));
        let (_, mb) = run_measured(&["convert", input, "-o", out.to_str().unwrap()]);
        // Measured: 77-86 MB, PGN 80 MB.
        assert!(mb < pgn + pgn / 4, "{ext}: {mb} MB, PGN {pgn} MB");
    }
}
