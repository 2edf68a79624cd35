#![no_main]
//! The filter language (`gamerec_db::filter`): any text parses to an
//! expression or gives an error, never a panic, however deep its nesting
//! or odd its quoting, operators, regular expressions, FENs, patterns or
//! material specifications; an expression parsed is tested against a few
//! fixed games (standard, from a FEN, a lichess variant) without a panic,
//! and `not` inverts it. Each line is also parsed as one criterion
//! (`Atom::parse`, what `--tag` takes).
use std::sync::OnceLock;

use gamerec::model::Game;
use gamerec_db::filter::{Atom, Expr, Subject};
use libfuzzer_sys::fuzz_target;

const GAMES: &str = r#"[Event "T"]
[Date "1962.05.??"]
[Round "3.2"]
[White "Tal, Mikhail"]
[Black "Fischer, Robert J."]
[WhiteElo "2600"]
[BlackElo "2650"]
[ECO "B20"]
[TimeControl "300+2"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "FEN"]
[Date "2024.01.02"]
[FEN "4k3/P7/8/8/8/8/8/4K2R w K - 0 1"]
[SetUp "1"]
[Result "1-0"]

1. a8=Q+ Kd7 2. O-O Kc7 3. Rf7+ Kb6 4. Qb8+ Ka5 5. Ra7# 1-0

[Event "Variant"]
[Variant "Crazyhouse"]
[Result "*"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 Qxb4 *
"#;

fn games() -> &'static [Game] {
    static GAMES_READ: OnceLock<Vec<Game>> = OnceLock::new();
    GAMES_READ.get_or_init(|| {
        let (games, _) = gamerec::pgn::read_games(GAMES.as_bytes());
        assert_eq!(games.len(), 3, "fixed games");
        games
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(expr) = Expr::parse(text) {
        let not = Expr::Not(Box::new(expr.clone()));
        for game in games() {
            let subject = Subject::new(game);
            assert_ne!(expr.matches(&subject), not.matches(&subject), "{text:?}");
        }
    }
    for line in text.lines() {
        if let Ok(atom) = Atom::parse(line) {
            for game in games() {
                let _ = atom.matches(&Subject::new(game));
            }
        }
    }
});
