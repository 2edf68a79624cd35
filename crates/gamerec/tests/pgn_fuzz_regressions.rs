//! Every input the `pgn_reader` fuzz target once failed on
//! (`tests/data/pgn-fuzz/`) still satisfies the target's properties.

include!("../../../fuzz/properties/pgn_reader.rs");

#[test]
fn fuzz_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn-fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/data/pgn-fuzz") {
        let path = entry.expect("directory entry").path();
        let data = std::fs::read(&path).expect("readable");
        eprintln!("{}", path.display());
        check_pgn_reader_properties(&data);
        seen += 1;
    }
    assert!(seen > 0);
}
