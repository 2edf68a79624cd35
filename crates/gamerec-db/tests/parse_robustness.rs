//! Hostile query text: the expression, pattern, material and FEN parsers
//! answer every string with a value or an error, never a panic, and an
//! expression that parses evaluates without panicking.

use gamerec_db::filter::Expr;
use gamerec_db::material::MaterialSpec;
use gamerec_db::pattern::Pattern;
use proptest::prelude::*;

fn game() -> gamerec::model::Game {
    let pgn = b"[White \"\xc3\x84b\"]\n[ECO \"\xc3\x84\"]\n[Date \"2020.??.01\"]\n[Round \"1.x\"]\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    gamerec::pgn::read_games(pgn).0.remove(0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn expressions(text in "[ -~ÄÖ]{0,60}") {
        if let Ok(e) = Expr::parse(&text) {
            let _ = e.matches_game(&game());
        }
    }

    #[test]
    fn structured_expressions(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("("), Just(")"), Just("and"), Just("or"), Just("not"), Just("!"),
                Just("Elo>=2500"), Just("ECO=A00-\u{c4}9"), Just("Date<2020.05"), Just("Round>1.2"),
                Just("player^=\u{c4}"), Just("White~\"[\""), Just("result=1/2"), Just("ended=mate"),
                Just("pattern=*/*/*/*/*/*/*/*"), Just("material=R+vR*"), Just("fen=\"8/8/8/8/8/8/8/8 w - - 0 1\""),
            ],
            0..20,
        )
    ) {
        let text = parts.join(" ");
        if let Ok(e) = Expr::parse(&text) {
            let _ = e.matches_game(&game());
        }
    }

    #[test]
    fn patterns_and_material(text in "[1-9/?!*aAkKqQrRbBnNpPxX\\[\\]^v+=#<>-]{0,40}") {
        if let Ok(p) = Pattern::parse(&text) {
            let _ = p.requirements();
            let _ = p.matches(&shakmaty::Board::default());
        }
        let _ = Pattern::parse_sub_fen(&text);
        if let Ok(m) = MaterialSpec::parse(&text, true) {
            let _ = m.matches(&shakmaty::Board::default());
            let _ = m.matches_signature(u64::MAX);
        }
    }
}
