//! Peak memory of `gamerec check` on an SGF collection far larger than its
//! parts: a file of many games is mapped and read a part (whole game trees)
//! at a time, its pages given back behind the reading; a compressed one is
//! read a part at a time as it is decompressed. It was read whole: a 78 MB
//! collection took 923 MB. In the memory binary: the peak is read
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
    // Compressed (a stream, not mapped): read a part at a time as well.
    let zst = dir.join("collection.sgf.zst");
    let mut enc = zstd::Encoder::new(std::fs::File::create(&zst).unwrap(), 1).unwrap();
    std::io::copy(&mut std::fs::File::open(&path).unwrap(), &mut enc).unwrap();
    enc.finish().unwrap();
    let (zst_out, mb) = run(&["check", "-q", zst.to_str().unwrap()]);
    assert_eq!(zst_out, out);
    assert!(mb < 150, "check of a {} MB collection, zstd: {mb} MB", 200);
    // The Go games table of it: read in parts too. The file is past the
    // bound on one game (64 MiB), which refused it whole before.
    let table = dir.join("games.parquet");
    let said = dir.join("convert.txt");
    let (_, mb) = gamerec_testkit::run_measured_stderr_to(
        env!("CARGO_BIN_EXE_gamerec"),
        &[
            "convert",
            "-q",
            path.to_str().unwrap(),
            "-o",
            table.to_str().unwrap(),
        ],
        &said,
    );
    // The reading holds a part; the table's writer a row group (16,384
    // games with their SGF text): 610 MB at 160 MB of input, 633 MB at
    // 200 MB, where reading whole took 1,050 MB at 60 MB.
    assert!(mb < 800, "games table of a 200 MB collection: {mb} MB");
    let said = std::fs::read_to_string(&said).expect("stderr kept");
    assert!(
        said.ends_with(&format!(
            "{count} games, 0 errors; 0 with errors, {} warnings, {count} written\n",
            count * warnings
        )),
        "{said}"
    );
}
