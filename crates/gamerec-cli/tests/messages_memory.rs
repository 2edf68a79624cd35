//! A game broken at every node keeps the first 1,000 messages of each
//! source and counts the rest (`diag::MAX_LISTED`): `check` of an SGF file
//! with a rule broken and a bad value at each of 300,000 nodes, and of an
//! EPD record with 300,000 repeated opcodes, stays within a small multiple
//! of the file. Before, every message was kept until printed: 8 MB of SGF
//! took 589 MB (70 times the file), the file's own tree about 16 times.

#![cfg(target_os = "linux")]

/// Runs the binary with `args`; returns its stdout and its peak resident
/// memory in MB.
fn run_measured(args: &[&str]) -> (String, u64) {
    gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args)
}

#[test]
fn check_keeps_few_messages_of_a_game_broken_at_every_node() {
    let dir = gamerec_testkit::temp_dir("messages-memory");
    let n = 300_000;
    let sgf = gamerec_testkit::sgf_broken_at_every_node(n);
    let sgf_path = dir.join("broken.sgf");
    std::fs::write(&sgf_path, &sgf).unwrap();
    let file_mb = sgf.len() as u64 >> 20;
    let (out, peak) = run_measured(&["check", sgf_path.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!(
            "1 games, {} nodes, {} errors; 1 with errors, 0 warnings\n",
            n + 1,
            2 * n - 2
        )),
        "{}",
        &out[out.len().saturating_sub(200)..]
    );
    // Measured: 3 MB of SGF, 54 MB (230 MB when every message was kept).
    assert!(
        peak < 20 * file_mb + 40,
        "{peak} MB for a {file_mb} MB file"
    );

    let epd = format!("{}\n", gamerec_testkit::epd_repeated_opcode(n));
    let epd_path = dir.join("broken.epd");
    std::fs::write(&epd_path, &epd).unwrap();
    let (out, peak_epd) = run_measured(&["check", epd_path.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!(
            "1 records, {} errors; 1 with errors, 0 warnings\n",
            n - 1
        )),
        "{out}"
    );
    // Measured: 118 MB, the line's 300,000 operations as read (151 MB
    // when every message was kept too).
    assert!(peak_epd < 140, "{peak_epd} MB for a 2.4 MB EPD line");
}
