//! Differential test against python-chess: for every position of every game
//! of two real PGN files, `gamerec moves` prints exactly python-chess's set of
//! legal moves in SAN.

use std::process::Command;

#[test]
fn moves_match_python_chess_on_lichess_and_twic() {
    let Some(python) = gamerec_testkit::python_chess() else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/legal_san.py");
    let pgns = [
        gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn"),
        gamerec_testkit::corpus("pgn/twic1599_1000k.pgn"),
    ];
    let reference = Command::new(&python)
        .arg(script)
        .args(&pgns)
        .output()
        .expect("run python-chess");
    gamerec_testkit::assert_success(&reference, "python-chess");
    let reference = String::from_utf8(reference.stdout).expect("utf-8");
    let (fens, expected): (Vec<&str>, Vec<&str>) = reference
        .lines()
        .map(|l| l.split_once('\t').expect("tab-separated"))
        .unzip();
    assert!(fens.len() > 50_000, "too few positions: {}", fens.len());

    let input = fens.join("\n") + "\n";
    let output = gamerec_testkit::run(env!("CARGO_BIN_EXE_gamerec"), &["moves"], input.as_bytes());
    gamerec_testkit::assert_success(&output, "gamerec");
    let actual = String::from_utf8(output.stdout).expect("utf-8");
    let actual: Vec<&str> = actual.lines().collect();
    assert_eq!(actual.len(), fens.len(), "one output line per FEN");
    let mut mismatches = 0;
    for ((fen, want), got) in fens.iter().zip(&expected).zip(&actual) {
        let mut got: Vec<&str> = got.split(' ').filter(|s| !s.is_empty()).collect();
        got.sort_unstable();
        let want: Vec<&str> = want.split(' ').filter(|s| !s.is_empty()).collect();
        if got != want {
            mismatches += 1;
            if mismatches <= 10 {
                eprintln!("{fen}\n  python-chess: {want:?}\n  gamerec:      {got:?}");
            }
        }
    }
    assert_eq!(
        mismatches,
        0,
        "{mismatches} of {} positions differ",
        fens.len()
    );
}
