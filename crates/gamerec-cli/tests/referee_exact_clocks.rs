//! The clocks a match sends to engines are the referee's own, exactly:
//! two script engines (one UCI, one XBoard) play a fixed line under
//! `gamerec match --tc 3+0.1`, log every clock they are given, and the log
//! is compared with the `[%clk]` values of the PGN (the referee's clocks
//! after each move): UCI `wtime`/`btime`/`winc`/`binc` to the millisecond,
//! XBoard `time`/`otim` to the centisecond (rounded down).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gamerec::pgn::commands::{KnownCommand, node_commands};

const BIN: &str = env!("CARGO_BIN_EXE_gamerec");

/// A legal line without repetitions; after it the engines resign.
const LINE: &str = "c2c4 g7g6 d2d3 f7f5 e2e3 e7e6 d1h5 g8f6 e1d2 f6g8 b1a3 f8b4 d2c2 a7a5 \
                    e3e4 e8e7 e4e5 g8h6 a3b1 d8f8 h5d1 c7c6 g1e2 a5a4 c1d2 a8a5 d2e3 a5e5";

/// A UCI engine that plays `LINE` (the move after as many moves as the
/// position has), thinking 0-90 ms, and logs `PLY go ARGS` for each search.
const FAKE_UCI: &str = r#"#!/bin/bash
log="$1"; shift
line=(LINE)
n=0
while read -r cmd rest; do
  case "$cmd" in
    uci) echo "id name fake-uci"; echo "uciok" ;;
    isready) echo "readyok" ;;
    position)
      if [[ "$rest" == *" moves "* ]]; then set -- ${rest#* moves }; n=$#; else n=0; fi ;;
    go)
      echo "$n go $rest" >> "$log"
      sleep "0.0$((RANDOM % 10))"
      if (( n < ${#line[@]} )); then echo "bestmove ${line[n]}"; else echo "bestmove 0000"; fi ;;
    quit) exit 0 ;;
  esac
done
"#;

/// An XBoard engine playing `LINE` the same way, logging `PLY time T otim O`.
const FAKE_XBOARD: &str = r#"#!/bin/bash
log="$1"; shift
line=(LINE)
n=0; t=; o=
while read -r cmd rest; do
  case "$cmd" in
    protover) echo "feature myname=\"fake-xboard\" ping=1 setboard=1 usermove=1 time=1 done=1" ;;
    ping) echo "pong $rest" ;;
    new) n=0 ;;
    usermove) n=$((n + 1)) ;;
    time) t="$rest" ;;
    otim) o="$rest" ;;
    level) echo "$n level $rest" >> "$log" ;;
    go)
      echo "$n time $t otim $o" >> "$log"
      sleep "0.0$((RANDOM % 10))"
      if (( n < ${#line[@]} )); then echo "move ${line[n]}"; n=$((n + 1)); else echo "resign"; fi ;;
    quit) exit 0 ;;
  esac
done
"#;

fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text.replace("LINE", LINE)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Clock values (ms) before each ply of a game and after its last move:
/// (White's, Black's).
fn clocks_before_plies(game: &gamerec::model::Game, start: u64) -> Vec<(u64, u64)> {
    let mut clocks = (start, start);
    let mut before = Vec::new();
    for (ply, id) in game.tree.mainline().enumerate() {
        before.push(clocks);
        let clk = node_commands(game.tree.node(id))
            .into_iter()
            .find_map(|c| match c {
                KnownCommand::Clk(d) => Some(d),
                _ => None,
            })
            .expect("[%clk] after every move");
        let ms = u64::try_from(clk.as_millis()).unwrap();
        assert_eq!(
            Duration::from_millis(ms),
            clk,
            "[%clk] in whole milliseconds"
        );
        if ply % 2 == 0 {
            clocks.0 = ms;
        } else {
            clocks.1 = ms;
        }
    }
    before.push(clocks);
    before
}

/// `(ply, words)` of each log line.
fn log_lines(path: &Path) -> Vec<(usize, Vec<String>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_owned);
            let ply = words.next().unwrap().parse().unwrap();
            (ply, words.collect())
        })
        .collect()
}

fn value(words: &[String], name: &str) -> u64 {
    let i = words
        .iter()
        .position(|w| w == name)
        .unwrap_or_else(|| panic!("no {name} in {words:?}"));
    words[i + 1].parse().unwrap()
}

#[test]
fn engines_get_the_referees_clocks_exactly() {
    let dir = gamerec_testkit::temp_dir("exact-clocks");
    let uci_log = dir.join("uci.log");
    let xboard_log = dir.join("xboard.log");
    let uci = script(&dir, "fake_uci.sh", FAKE_UCI);
    let xboard = script(&dir, "fake_xboard.sh", FAKE_XBOARD);
    let pgn = dir.join("games.pgn");
    let out = Command::new(BIN)
        .arg("match")
        .arg(format!("uci:{} {}", uci.display(), uci_log.display()))
        .arg(format!(
            "xboard:{} {}",
            xboard.display(),
            xboard_log.display()
        ))
        .args(["--games", "2", "--tc", "3+0.1", "-o"])
        .arg(&pgn)
        .arg("--dir")
        .arg(dir.join("event"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");

    let text = std::fs::read(&pgn).unwrap();
    let (games, _) = gamerec::pgn::read_games(&text);
    assert_eq!(games.len(), 2);
    let mut uci_log = log_lines(&uci_log).into_iter();
    let mut xboard_log = log_lines(&xboard_log).into_iter();
    let mut checked = [0, 0];
    for game in &games {
        let uci_is_white = game.tags.get("White") == Some("fake_uci.sh");
        let plies = game.tree.mainline().count();
        assert!(plies >= 20, "{plies} plies");
        let before = clocks_before_plies(game, 3000);
        // The engine to move after the last ply resigned after its search.
        for (ply, &(white, black)) in before.iter().enumerate() {
            let white_to_move = ply % 2 == 0;
            if white_to_move == uci_is_white {
                let (n, words) = uci_log.next().expect("a UCI search per move");
                assert_eq!(n, ply, "{words:?}");
                assert_eq!(value(&words, "wtime"), white, "ply {ply}: {words:?}");
                assert_eq!(value(&words, "btime"), black, "ply {ply}: {words:?}");
                assert_eq!(value(&words, "winc"), 100);
                assert_eq!(value(&words, "binc"), 100);
                checked[0] += 1;
            } else {
                let (n, mut words) = xboard_log.next().expect("an XBoard search per move");
                if words[0] == "level" {
                    assert_eq!(words.last().map(String::as_str), Some("0.1"), "{words:?}");
                    (_, words) = xboard_log.next().expect("time and otim after level");
                }
                assert_eq!(n, ply, "{words:?}");
                let (ours, theirs) = if white_to_move {
                    (white, black)
                } else {
                    (black, white)
                };
                assert_eq!(value(&words, "time"), ours / 10, "ply {ply}: {words:?}");
                assert_eq!(value(&words, "otim"), theirs / 10, "ply {ply}: {words:?}");
                checked[1] += 1;
            }
        }
    }
    assert!(checked[0] >= 20 && checked[1] >= 20, "{checked:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
