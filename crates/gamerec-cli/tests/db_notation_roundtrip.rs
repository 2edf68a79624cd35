//! Games written in LAN or UCI read back to the same games: Chess960
//! castling (every fischerandom game of the TCEC corpus file) and null
//! moves (`--` in SAN and LAN, `0000` in UCI).

use crate::util::cli;

use gamerec_testkit::{corpus, temp_dir};

/// Writes `pgn` in each notation, reads it back, and compares the SAN
/// export of the result with the SAN export of the original.
fn round_trip(pgn: &[u8], name: &str, min_games: usize) {
    let dir = temp_dir(&format!("db-notation-{name}"));
    let src = dir.join("src.pgn");
    std::fs::write(&src, pgn).unwrap();
    let s = src.to_str().unwrap();
    let san = cli(&["filter", s]).run_ok().into_stdout();
    let (games, errors) = gamerec::pgn::read_games(&san);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(games.len() >= min_games, "{name}: {} games", games.len());
    for notation in ["lan", "uci"] {
        let written = dir.join(format!("{notation}.pgn"));
        let w = written.to_str().unwrap();
        cli(&["filter", s, "--notation", notation, "-o", w])
            .run_ok()
            .into_stdout();
        let back = cli(&["filter", w]).run_ok().into_stdout();
        assert!(
            back == san,
            "{name}: {notation} output read back differs from the SAN export"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chess960_castling_in_lan_and_uci_reads_back() {
    let raw = std::fs::read(corpus("pgn/tcec-2011-2021.pgn.zst")).unwrap();
    let all = zstd::decode_all(&raw[..]).unwrap();
    let (games, _) = gamerec::pgn::read_games(&all);
    let mut frc = Vec::new();
    let mut castles = 0;
    for g in games
        .iter()
        .filter(|g| g.tags.get("Variant") == Some("fischerandom"))
    {
        let mut text = Vec::new();
        gamerec::pgn::write_game(g, &gamerec::pgn::WriteOptions::default(), &mut text);
        castles += text.windows(3).filter(|w| *w == b"O-O").count();
        frc.extend_from_slice(&text);
    }
    assert!(castles > 100, "{castles} castlings");
    round_trip(&frc, "frc", 400);
}

#[test]
fn null_moves_in_lan_and_uci_read_back() {
    let pgn = b"[Event \"n\"]\n[Result \"*\"]\n\n1. e4 -- 2. d4 -- 3. Nf3 Nf6 4. -- Nc6 *\n\n\
[Event \"m\"]\n[Result \"1-0\"]\n\n1. -- e5 2. e4 -- 3. Qh5 Nc6 4. Bc4 Nf6 5. Qxf7# 1-0\n\n";
    round_trip(pgn, "null", 2);
    // The UCI spelling is `0000`, and it is not taken for a move number.
    let dir = temp_dir("db-notation-null-uci");
    let src = dir.join("n.pgn");
    std::fs::write(&src, pgn).unwrap();
    let uci = String::from_utf8(
        cli(&["filter", src.to_str().unwrap(), "--notation", "uci"])
            .run_ok()
            .into_stdout(),
    )
    .unwrap();
    assert!(uci.contains("1. e2e4 0000 2. d2d4 0000"), "{uci}");
    assert!(uci.contains("1. 0000 e7e5"), "{uci}");
    let _ = std::fs::remove_dir_all(&dir);
}
