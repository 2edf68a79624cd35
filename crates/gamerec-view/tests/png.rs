//! PNG through resvg (feature `png`): the bitmap has the SVG's size and
//! shows the board's colours where the squares are.
#![cfg(feature = "png")]

use gamerec_view::chess::{BoardOptions, board_svg};
use gamerec_view::png::svg_to_png;
use shakmaty::{Chess, Position};

#[test]
fn board_png_has_the_svg_size_and_square_colours() {
    let opts = BoardOptions {
        size: 200,
        coordinates: false,
        ..BoardOptions::default()
    };
    let svg = board_svg(Chess::default().board(), &opts);
    let png = svg_to_png(&svg).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((w, h), (200, 200));
    // a8 (top left, 25 px squares) is light, b8 dark; sample away from pieces.
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
    let at = |x: u32, y: u32| {
        let p = pixmap.pixel(x, y).unwrap();
        [p.red(), p.green(), p.blue()]
    };
    assert_eq!(at(1, 1), [0xf0, 0xd9, 0xb5]);
    assert_eq!(at(26, 1), [0xb5, 0x88, 0x63]);
    assert_eq!(at(26, 101), [0xb5, 0x88, 0x63], "b4 is dark");
    assert_eq!(at(26, 126), [0xf0, 0xd9, 0xb5], "b3 is light");
    assert!(svg_to_png("<svg").is_err());
}
