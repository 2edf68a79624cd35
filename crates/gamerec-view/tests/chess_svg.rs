//! Chess boards: the SVG's squares, pieces, highlights, arrows and
//! coordinates are read back and compared with the position and options.

use crate::common;

use common::{Element, elements, with_class};
use gamerec::pgn::commands::{ArrowMark, MarkColor, SquareMark};
use gamerec_view::chess::{BoardOptions, MARGIN, SQUARE, board_svg, game_svg, mainline_node};
use gamerec_view::position_svg;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position, Square};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
];

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn square_rect(els: &[Element], sq: Square) -> &Element {
    let rects: Vec<_> = with_class(els, "square")
        .into_iter()
        .filter(|e| e.attr("data-square") == sq.to_string())
        .collect();
    assert_eq!(rects.len(), 1, "one square {sq}");
    rects[0]
}

/// Pieces drawn = pieces of the position, each on its square's rectangle,
/// for both orientations and with or without coordinates.
#[test]
fn pieces_and_squares_match_the_fen() {
    for fen in FENS {
        // Boards need not be legal positions (the last is empty).
        let board = fen.parse::<Fen>().unwrap().as_setup().board.clone();
        for flipped in [false, true] {
            for coordinates in [true, false] {
                let opts = BoardOptions {
                    flipped,
                    coordinates,
                    ..BoardOptions::default()
                };
                let svg = board_svg(&board, &opts);
                let els = elements(&svg);
                let squares = with_class(&els, "square");
                assert_eq!(squares.len(), 64);
                assert_eq!(with_class(&els, "light").len(), 32);
                for sq in Square::ALL {
                    let rect = square_rect(&els, sq);
                    assert_eq!(rect.has_class("light"), sq.is_light(), "{sq}");
                }
                let pieces = with_class(&els, "piece");
                assert_eq!(pieces.len(), board.occupied().count(), "{fen}");
                for p in pieces {
                    let sq: Square = p.attr("data-square").parse().unwrap();
                    let piece = board.piece_at(sq).expect("a piece there");
                    assert_eq!(p.attr("data-piece"), piece.char().to_string());
                    let color = if piece.color.is_white() {
                        "white"
                    } else {
                        "black"
                    };
                    assert!(p.has_class(color), "{p:?}");
                    let id = p.attr("href").trim_start_matches('#');
                    assert!(
                        els.iter().any(|e| e.name == "g" && e.attr("id") == id),
                        "defs hold {id}"
                    );
                    let rect = square_rect(&els, sq);
                    assert_eq!(
                        p.attr("transform"),
                        format!("translate({}, {})", rect.attr("x"), rect.attr("y"))
                    );
                }
            }
        }
    }
}

/// a1 is bottom left, h8 top right; flipped, the other way round. The
/// coordinate margin shifts the board; coordinates are the 16 labels.
#[test]
fn orientation_and_coordinates() {
    let pos = position(FENS[0]);
    for (flipped, coordinates) in [(false, true), (true, true), (false, false), (true, false)] {
        let opts = BoardOptions {
            flipped,
            coordinates,
            size: 333,
            ..BoardOptions::default()
        };
        let els = elements(&board_svg(pos.board(), &opts));
        let root = &els[0];
        assert_eq!(root.attr("width"), "333");
        let m = if coordinates { MARGIN } else { 0.0 };
        let full = 8.0 * SQUARE + 2.0 * m;
        assert_eq!(root.attr("viewBox"), format!("0 0 {full} {full}"));
        let a1 = square_rect(&els, Square::A1);
        let h8 = square_rect(&els, Square::H8);
        let (low, high) = (m, m + 7.0 * SQUARE);
        if flipped {
            assert_eq!((a1.f("x"), a1.f("y")), (high, low));
            assert_eq!((h8.f("x"), h8.f("y")), (low, high));
        } else {
            assert_eq!((a1.f("x"), a1.f("y")), (low, high));
            assert_eq!((h8.f("x"), h8.f("y")), (high, low));
        }
        let files: Vec<&str> = with_class(&els, "file")
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        let ranks: Vec<&str> = with_class(&els, "rank")
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        if coordinates {
            assert_eq!(files, ["a", "b", "c", "d", "e", "f", "g", "h"]);
            assert_eq!(ranks, ["1", "2", "3", "4", "5", "6", "7", "8"]);
            // The label of file a sits under the a-file's squares.
            let a = with_class(&els, "file")[0];
            assert_eq!(a.f("x"), a1.f("x") + SQUARE / 2.0);
            let r1 = with_class(&els, "rank")[0];
            assert!((r1.f("y") - (a1.f("y") + SQUARE / 2.0)).abs() < 6.0);
        } else {
            assert!(files.is_empty() && ranks.is_empty());
            assert!(with_class(&els, "margin").is_empty());
        }
    }
}

/// Coloured squares and arrows given as options are drawn with their
/// colour, squares and direction.
#[test]
fn arrows_and_coloured_squares() {
    let pos = position(FENS[0]);
    let opts = BoardOptions {
        arrows: vec![
            ArrowMark {
                color: MarkColor::Green,
                from: Square::E2,
                to: Square::E4,
            },
            ArrowMark {
                color: MarkColor::Red,
                from: Square::G1,
                to: Square::F3,
            },
            ArrowMark {
                color: MarkColor::Blue,
                from: Square::D4,
                to: Square::D4,
            },
        ],
        squares: vec![
            SquareMark {
                color: MarkColor::Yellow,
                square: Square::E4,
            },
            SquareMark {
                color: MarkColor::Red,
                square: Square::D5,
            },
        ],
        ..BoardOptions::default()
    };
    for flipped in [false, true] {
        let opts = BoardOptions {
            flipped,
            ..opts.clone()
        };
        let els = elements(&board_svg(pos.board(), &opts));
        let marks = with_class(&els, "mark");
        assert_eq!(marks.len(), 2);
        assert!(marks[0].has_class("yellow") && marks[0].attr("data-square") == "e4");
        assert!(marks[1].has_class("red") && marks[1].attr("data-square") == "d5");
        let e4 = square_rect(&els, Square::E4);
        assert_eq!((marks[0].f("x"), marks[0].f("y")), (e4.f("x"), e4.f("y")));
        let arrows = with_class(&els, "arrow");
        assert_eq!(arrows.len(), 3);
        let got: Vec<(bool, &str, &str)> = arrows
            .iter()
            .map(|a| (a.has_class("green"), a.attr("data-from"), a.attr("data-to")))
            .collect();
        assert_eq!(
            got,
            [(true, "e2", "e4"), (false, "g1", "f3"), (false, "d4", "d4")]
        );
        // The green arrow's head points from e2 towards e4: up the board
        // unflipped, down flipped; its tip lies inside e4.
        let idx = els
            .iter()
            .position(|e| e.attr("data-from") == "e2")
            .unwrap();
        let line = &els[idx + 1];
        let poly = &els[idx + 2];
        assert_eq!(line.name, "line");
        let tip: Vec<f64> = poly
            .attr("points")
            .split([' ', ','])
            .map(|v| v.parse().unwrap())
            .collect();
        let (tx, ty) = (tip[0], tip[1]);
        assert!(tx > e4.f("x") && tx < e4.f("x") + SQUARE);
        assert!(ty > e4.f("y") && ty < e4.f("y") + SQUARE);
        if flipped {
            assert!(line.f("y2") > line.f("y1"));
        } else {
            assert!(line.f("y2") < line.f("y1"));
        }
        // Arrows are drawn after (above) the pieces, squares before.
        let last_piece = els.iter().rposition(|e| e.has_class("piece")).unwrap();
        let first_mark = els.iter().position(|e| e.has_class("mark")).unwrap();
        let first_piece = els.iter().position(|e| e.has_class("piece")).unwrap();
        assert!(idx > last_piece && first_mark < first_piece);
    }
}

/// A king in check is marked, on its square; nothing when not in check.
#[test]
fn check_highlight() {
    let checked = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let els = elements(&position_svg(&checked, &BoardOptions::default()));
    let check = with_class(&els, "check");
    assert_eq!(check.len(), 1);
    assert_eq!(check[0].attr("data-square"), "e1");
    let black_in_check = position("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1");
    let els = elements(&position_svg(&black_in_check, &BoardOptions::default()));
    assert_eq!(with_class(&els, "check")[0].attr("data-square"), "e8");
    let els = elements(&position_svg(&position(FENS[0]), &BoardOptions::default()));
    assert!(with_class(&els, "check").is_empty());
}

fn game(pgn: &str) -> gamerec::model::Game {
    let (mut games, problems) = gamerec::pgn::read_games(pgn.as_bytes());
    assert!(problems.is_empty(), "{problems:?}");
    games.remove(0)
}

/// From a game at a ply: the position after that many moves, its last move
/// highlighted (castling from the king's square to g1), check marked, and
/// the comment's `[%csl]`/`[%cal]` drawn.
#[test]
fn game_at_ply_highlights_move_and_draws_comment_marks() {
    let g = game(
        "[Event \"t\"]\n\n1. e4 {[%csl Ye4][%cal Gg1f3,Rd8h4]} e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O {castles [%cal Bf1e1]} Bc5 5. Bxf7+ *\n",
    );
    assert!(mainline_node(&g, 10).is_none());
    let at = |ply| {
        elements(&game_svg(
            &g,
            mainline_node(&g, ply).unwrap(),
            &BoardOptions::default(),
        ))
    };
    let els = at(0);
    assert!(with_class(&els, "lastmove").is_empty());
    assert_eq!(with_class(&els, "piece").len(), 32);
    let els = at(1);
    let last: Vec<&str> = with_class(&els, "lastmove")
        .iter()
        .map(|e| e.attr("data-square"))
        .collect();
    assert_eq!(last, ["e2", "e4"]);
    assert_eq!(with_class(&els, "mark")[0].attr("data-square"), "e4");
    assert!(with_class(&els, "mark")[0].has_class("yellow"));
    let arrows: Vec<(&str, &str)> = with_class(&els, "arrow")
        .iter()
        .map(|a| (a.attr("data-from"), a.attr("data-to")))
        .collect();
    assert_eq!(arrows, [("g1", "f3"), ("d8", "h4")]);
    let els = at(7);
    let last: Vec<&str> = with_class(&els, "lastmove")
        .iter()
        .map(|e| e.attr("data-square"))
        .collect();
    assert_eq!(last, ["e1", "g1"]);
    assert_eq!(with_class(&els, "arrow")[0].attr("data-to"), "e1");
    let els = at(9);
    assert_eq!(with_class(&els, "check")[0].attr("data-square"), "e8");
    let pos = g.position_at(mainline_node(&g, 9).unwrap());
    for p in with_class(&els, "piece") {
        let sq: Square = p.attr("data-square").parse().unwrap();
        assert_eq!(
            pos.board().piece_at(sq).unwrap().char().to_string(),
            p.attr("data-piece")
        );
    }
    assert!(with_class(&els, "arrow").is_empty());
}

/// Every piece letter has a group in the piece set.
#[test]
fn piece_set_is_complete() {
    for letter in "KQRBNPkqrbnp".chars() {
        let group = gamerec_view::chess::piece_svg(letter).unwrap();
        assert!(
            group.starts_with("<g id=\"") && group.ends_with("</g>"),
            "{letter}"
        );
        elements(group);
    }
    assert!(gamerec_view::chess::piece_svg('x').is_none());
}

proptest::proptest! {
    /// Random legal games, any options: the drawn pieces, highlights and
    /// squares are the position's.
    #[test]
    fn random_positions_are_drawn_exactly(
        choices in proptest::collection::vec(0usize..1000, 0..120),
        flipped: bool,
        coordinates: bool,
        size in 16u32..2000,
    ) {
        let mut pos = Chess::default();
        let mut last = None;
        for c in choices {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[c % moves.len()];
            last = gamerec_view::chess::move_squares(&mv);
            pos.play_unchecked(mv);
        }
        let opts = BoardOptions { size, flipped, coordinates, last_move: last, ..BoardOptions::default() };
        let els = elements(&position_svg(&pos, &opts));
        proptest::prop_assert_eq!(els[0].attr("width"), size.to_string());
        let mut drawn: Vec<(String, String)> = with_class(&els, "piece")
            .iter()
            .map(|p| (p.attr("data-square").to_owned(), p.attr("data-piece").to_owned()))
            .collect();
        drawn.sort();
        let mut expected: Vec<(String, String)> = pos
            .board()
            .clone()
            .into_iter()
            .map(|(sq, p)| (sq.to_string(), p.char().to_string()))
            .collect();
        expected.sort();
        proptest::prop_assert_eq!(drawn, expected);
        let lit: Vec<String> = with_class(&els, "lastmove").iter().map(|e| e.attr("data-square").to_owned()).collect();
        let mut want: Vec<String> = last.map(|(a, b)| vec![a.to_string(), b.to_string()]).unwrap_or_default();
        want.sort_by_key(|s| s.parse::<Square>().map(|q| q as usize).unwrap_or(0));
        want.dedup();
        proptest::prop_assert_eq!(lit, want);
        let check: Vec<&str> = with_class(&els, "check").iter().map(|e| e.attr("data-square")).collect();
        let want_check: Vec<String> = gamerec_view::chess::check_square(&pos).map(|s| s.to_string()).into_iter().collect();
        proptest::prop_assert_eq!(check, want_check);
    }
}
