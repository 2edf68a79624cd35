//! The explorer page of `gamerec serve` in headless Chromium: clicking moves
//! in the table (through the page's `#click=` hook, which clicks the rows)
//! changes the board to the position python-chess reaches with those moves,
//! and the table to the counts a python-chess scan of the database gives.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use gamerec_testkit::{CHROMIUM_HEADLESS, assert_success, corpus, run, temp_dir};

const GAMEREC: &str = env!("CARGO_BIN_EXE_gamerec");

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// python-chess: the placement after `moves` and, over every game of `db`
/// reaching that position (first arrival), the SAN of the next move when
/// the next position is first reached there: `PLACEMENT` then `SAN COUNT`
/// lines, then `reached N`.
const SCAN: &str = r#"
import sys, chess, chess.pgn, collections
db, moves = sys.argv[1], sys.argv[2].split(",")
b = chess.Board()
for m in moves:
    b.push_uci(m)
target = b.epd()
print(b.board_fen())
counts = collections.Counter()
reached = 0
with open(db, encoding="utf-8", errors="replace") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        board = g.board()
        seen = {}
        line = [board.epd()]
        ms = list(g.mainline_moves())
        for m in ms:
            board.push(m)
            line.append(board.epd())
        for i, e in enumerate(line):
            seen.setdefault(e, i)
        i = seen.get(target)
        if i is None:
            continue
        reached += 1
        if i < len(ms) and seen[line[i + 1]] == i + 1:
            bb = chess.Board(g.board().fen())
            for m in ms[:i]:
                bb.push(m)
            counts[bb.san(ms[i])] += 1
for san, n in sorted(counts.items()):
    print(san, n)
print("reached", reached)
"#;

#[test]
#[ignore = "slow: chromium"]
fn clicking_moves_shows_the_python_chess_position_and_counts() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let Some(python) = gamerec_testkit::python_chess() else {
        return;
    };
    let dir = temp_dir("db-explorer-chromium");
    let db = dir.join("db.pgn");
    std::fs::copy(corpus("pgn/lichess_db_1000k.pgn"), &db).unwrap();
    let dbs = db.to_str().unwrap();
    assert_success(&run(GAMEREC, &["index", dbs], b""), "index");
    let mut child = Command::new(GAMEREC)
        .args(["serve", dbs, "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _serve = Serve(child);
    let base = line.split("http://").nth(1).unwrap().trim().to_string();
    for moves in ["e2e4", "e2e4,c7c5", "d2d4,g8f6,c2c4"] {
        let scan = run(&python, &["-c", SCAN, dbs, moves], b"");
        assert_success(&scan, "python-chess scan");
        let scan = String::from_utf8(scan.stdout).unwrap();
        let mut lines = scan.lines();
        let placement = lines.next().unwrap().to_string();
        let mut want: Vec<(String, u64)> = Vec::new();
        let mut reached = 0;
        for l in lines {
            let (a, n) = l.rsplit_once(' ').unwrap();
            if a == "reached" {
                reached = n.parse().unwrap();
            } else {
                want.push((a.to_string(), n.parse().unwrap()));
            }
        }
        assert!(reached > 0 && !want.is_empty(), "{moves}: {scan}");
        let profile = temp_dir(&format!("db-explorer-profile-{}", moves.len()));
        let out = Command::new(&chromium)
            .args(CHROMIUM_HEADLESS)
            .args(["--disable-quic", "--virtual-time-budget=8000", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("http://{base}#click={moves}"))
            .output()
            .unwrap();
        assert_success(&out, "chromium");
        let dom = String::from_utf8_lossy(&out.stdout).into_owned();
        std::fs::write(dir.join("dom.html"), &dom).unwrap();
        let body = &dom[dom.find("<body").unwrap()..];
        let body_tag = &body[..body.find('>').unwrap()];
        assert!(
            body_tag.contains(&format!("data-path=\"{moves}\""))
                && body_tag.contains("data-ready=\"1\""),
            "{moves}: the clicks did not all land: {body_tag}"
        );
        // The board: every square's piece as python-chess places it.
        let fen_at = dom.find("data-fen=\"").unwrap() + 10;
        let fen = &dom[fen_at..fen_at + dom[fen_at..].find('"').unwrap()];
        assert_eq!(
            fen.split(' ').next().unwrap(),
            placement,
            "{moves}: board FEN"
        );
        let mut drawn = vec![vec!['.'; 8]; 8];
        for sq in dom.split("data-square=\"").skip(1) {
            let name = &sq[..2];
            let (f, r) = (name.as_bytes()[0] - b'a', name.as_bytes()[1] - b'1');
            let tag = &sq[..sq.find('>').unwrap()];
            if let Some(p) = tag.split("data-piece=\"").nth(1) {
                drawn[7 - r as usize][f as usize] = p.chars().next().unwrap();
            }
        }
        let mut expect = vec![vec!['.'; 8]; 8];
        for (r, row) in placement.split('/').enumerate() {
            let mut f = 0;
            for c in row.chars() {
                match c.to_digit(10) {
                    Some(n) => f += n as usize,
                    None => {
                        expect[r][f] = c;
                        f += 1;
                    }
                }
            }
        }
        assert_eq!(drawn, expect, "{moves}: squares drawn");
        // The table: SAN and games per row, as the scan counts them.
        let tbody = &dom[dom.find("<tbody>").unwrap()..dom.find("</tbody>").unwrap()];
        let mut got: Vec<(String, u64)> = tbody
            .split("<tr ")
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row
                    .split("<td>")
                    .skip(1)
                    .map(|c| &c[..c.find('<').unwrap_or(c.len())])
                    .collect();
                (cells[0].to_string(), cells[1].parse().unwrap())
            })
            .collect();
        got.sort();
        want.sort();
        // The page shows up to 60 moves, most played first.
        assert_eq!(got, want, "{moves}: move table");
        let totals = &dom[dom.find("id=\"totals\"").unwrap()..];
        assert!(
            totals.contains(&format!("<td>{reached}</td>")),
            "{moves}: totals row, {reached} reached: {}",
            &totals[..totals.find("</tr>").unwrap()]
        );
        let _ = std::fs::remove_dir_all(&profile);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
