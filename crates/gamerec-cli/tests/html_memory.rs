//! Peak memory of `gamerec html` on a large collection. In the `memory`
//! test binary: the peak is read per child with `wait4`, and the page is
//! read a line at a time (see `memory.rs`).

#![cfg(target_os = "linux")]

use std::io::Write;

/// `html` held every game's model, every game's JSON and the whole page
/// at once: 2.4 MB of games (a 35 MB page) took 166 MB. Now the page is
/// written game by game, in less memory than the page's size (15 MB).
#[test]
fn html_writes_the_page_game_by_game() {
    let dir = gamerec_testkit::temp_dir("html-memory");
    let path = dir.join("games.pgn");
    let moves = "1. e4 {[%clk 0:03:00]} e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 \
                 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 \
                 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 \
                 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 \
                 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5 hxg5 \
                 29. b3 Ke6 1/2-1/2";
    let n = 5000;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..n {
        write!(
            out,
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.01.01\"]\n[Round \"{i}\"]\n\
             [White \"W{i}\"]\n[Black \"B{i}\"]\n[Result \"1/2-1/2\"]\n\n{moves}\n\n"
        )
        .unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let site = dir.join("site");
    let stderr = dir.join("stderr.txt");
    let (_, mb) = gamerec_testkit::run_measured_stderr_to(
        env!("CARGO_BIN_EXE_gamerec"),
        &["html", path.to_str().unwrap(), "-o", site.to_str().unwrap()],
        &stderr,
    );
    let page = site.join("games.html");
    let page_mb = std::fs::metadata(&page).unwrap().len() >> 20;
    assert!(page_mb >= 30, "{page_mb} MB");
    assert!(mb < page_mb, "html: {mb} MB for a {page_mb} MB page");
    let said: Vec<String> = gamerec_testkit::lines_of(&stderr).collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].ends_with(&format!("games.html: {n} game(s)")),
        "{said:?}"
    );
    let mut lines = gamerec_testkit::lines_of(&page);
    assert_eq!(lines.next().as_deref(), Some("<!DOCTYPE html>"));
    let games = lines.filter(|l| l.contains("{\"kind\":\"chess\"")).count();
    assert_eq!(games, n);
    assert_eq!(
        gamerec_testkit::lines_of(&page).last().as_deref(),
        Some("</html>")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
