//! Pictures of game records as standalone SVG (and PNG through `resvg` with
//! the `png` feature).
//!
//! * [`chess`]: a chess board from a position or a game node, with
//!   coordinates, orientation, last-move and check highlighting, arrows and
//!   coloured squares (the PGN supplement's `[%cal]`/`[%csl]`). Pieces are
//!   Colin M.L. Burnett's set (see `pieces/LICENSE`).
//! * [`diagram`]: a Go or Othello board from an SGF node: stones, last move,
//!   move numbers for a range, labels and marks (`LB`, `TR`, `CR`, `SQ`,
//!   `MA`), any board size.
//! * [`viewer`]: the self-contained HTML game viewer of `gamerec html`.
//! * [`report`]: the Gastric-style report of `gamerec report` over
//!   `gamerec_engine::results::Run`s: a text summary and an HTML page with
//!   SVG charts.
//! * `png` (feature `png`): SVG to PNG through resvg.
//!
//! Every drawn element carries a `class` and `data-square` / `data-point`
//! attributes naming what it shows, so a page or a test can read the
//! picture back.

/// Appends formatted text to a `String`. Growing a `String` cannot fail;
/// only a `Display` implementation that returns an error could, and none
/// here does, so that is a bug and panics instead of being dropped.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        use ::std::fmt::Write as _;
        $out.write_fmt(format_args!($($arg)*))
            .expect("formatting into a String")
    }};
}

/// [`put!`] with a newline after the text.
macro_rules! putln {
    ($out:expr, $($arg:tt)*) => {{
        put!($out, $($arg)*);
        $out.push('\n');
    }};
}

pub mod chess;
pub mod diagram;
#[cfg(feature = "png")]
pub mod png;
pub mod report;
pub mod viewer;

pub use chess::{BoardOptions, board_svg, game_svg, mainline_node, position_svg};
pub use diagram::{DiagramError, DiagramOptions, sgf_svg};

/// Escapes text for an XML attribute or text node.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Formats a coordinate with at most two decimals and no trailing zeros.
pub(crate) fn num(v: f64) -> String {
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}
