//! Peak memory of `gamerec check` on an SGF collection far larger than its
//! parts: a file of many games is mapped and read a part (whole game trees)
//! at a time, its pages given back behind the reading. It was read whole:
//! a 78 MB collection took 923 MB. In the memory binary: the peak is read
//! per child with `wait4`.

#![cfg(target_os = "linux")]

use std::io::Write;

#[test]
fn check_of_a_large_sgf_collection_stays_in_the_memory_of_a_part() {
    let dir = gamerec_testkit::temp_dir("sgf-memory");
    let sample = gamerec_testkit::repo_root().join("samples/go-19x19.sgf");
    let game = std::fs::read(&sample).expect("sample");
    let run = |args: &[&str]| gamerec_testkit::run_measured(env!("CARGO_BIN_EXE_gamerec"), args);
    // "1 games, N nodes, 0 errors; 0 with errors, W warnings"
    let (one, _) = run(&["check", "-q", sample.to_str().unwrap()]);
    let number_before = |what: &str| -> u64 {
        one.split(what)
            .next()
            .and_then(|head| head.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{one}"))
    };
    let (nodes, warnings) = (number_before(" nodes"), number_before(" warnings"));
    let path = dir.join("collection.sgf");
    let count = (200 << 20) / (game.len() + 1);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for _ in 0..count {
        file.write_all(&game).unwrap();
        file.write_all(b"\n").unwrap();
    }
    file.flush().unwrap();
    drop(file);
    let (out, mb) = run(&["check", "-q", path.to_str().unwrap()]);
    let count = count as u64;
    assert_eq!(
        out,
        format!(
            "{count} games, {} nodes, 0 errors; 0 with errors, {} warnings\n",
            count * nodes,
            count * warnings
        )
    );
    assert!(mb < 150, "check of a {} MB collection: {mb} MB", 200);
}
