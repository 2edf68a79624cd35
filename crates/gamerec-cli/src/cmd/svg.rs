//! `gamerec svg`: a board picture (SVG, or PNG with `--png`) from a FEN, a
//! PGN game at a ply, or an SGF node. Drawing is `gamerec_view`'s.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use gamerec::pgn::commands::{ArrowMark, MarkColor, SquareMark};
use gamerec_view::chess::{BoardOptions, parse_mark_color};
use gamerec_view::diagram::DiagramOptions;
use shakmaty::Square;

use gamerec::io::{Format, Input};

// Arguments of `gamerec svg`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec svg 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1' -o e4.svg
  gamerec svg game.pgn --ply 20 --flip --size 480 -o move10.svg
  gamerec svg game.pgn --game 3 --ply 7 --arrows e2e4,g1f3:red --squares e4:yellow -o p.svg
  gamerec svg game.pgn --ply 40 --png -o move20.png
  gamerec svg game.sgf --node 57 --numbers 40-57 -o kifu.svg
  gamerec svg game.sgf --no-coords --png -o end.png     # end of the main line")]
pub struct SvgArgs {
    /// A FEN (or EPD position), or a .pgn/.sgf file (compressed too).
    pub input: String,
    /// PGN: the position after this many half-moves of the main line (0 is
    /// the start; default: the end). SGF: main line move N.
    #[arg(long)]
    pub ply: Option<usize>,
    /// SGF: the node, as `gamerec show --node` takes it (`57`, `57,2,60`).
    #[arg(long)]
    pub node: Option<String>,
    /// The game of a collection, counted from 1.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// Width in pixels.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(16..=8192))]
    pub size: u32,
    /// Chess: Black at the bottom.
    #[arg(long)]
    pub flip: bool,
    /// No file/rank (column/row) labels.
    #[arg(long)]
    pub no_coords: bool,
    /// Chess: arrows `e2e4`, `e2e4:red` or `Re2e4` (green by default), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub arrows: Vec<String>,
    /// Chess: coloured squares `e4:red` or `Ye4` (red by default), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub squares: Vec<String>,
    /// Go/Othello: number the stones of these moves, `FROM-TO` (`1-50`).
    #[arg(long)]
    pub numbers: Option<String>,
    /// Write PNG (through resvg) instead of SVG; implied by `-o x.png`.
    #[arg(long)]
    pub png: bool,
    /// Output file (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// An error in the input (exit 1) rather than in the command line (exit 2).
#[derive(Debug)]
struct InputError(String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Runs `gamerec svg`.
pub fn run(args: SvgArgs) -> Result<ExitCode> {
    match draw(&args) {
        Ok(svg) => {
            write(&args, &svg)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.downcast_ref::<InputError>().is_some() => {
            gamerec::say!("gamerec svg: {e:#}");
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(e),
    }
}

fn input_error(message: String) -> anyhow::Error {
    InputError(message).into()
}

/// What the input argument holds.
enum Source {
    /// A FEN or EPD line given on the command line or as a file's first line.
    Fen(String),
    /// PGN text.
    Pgn(Vec<u8>),
    /// SGF bytes.
    Sgf(Vec<u8>),
}

/// Reads the input once: a file (or `-`, stdin) by extension, else by its
/// first bytes (SGF, an EPD/FEN line, else PGN); any other argument is a FEN.
fn source(args: &SvgArgs) -> Result<(Source, String)> {
    let path = Path::new(&args.input);
    let by_name = Input::file(path).format_by_name();
    let is_file = path.is_file() || args.input == "-";
    if !is_file && !matches!(by_name, Some(Format::Pgn | Format::Sgf | Format::Epd)) {
        return Ok((Source::Fen(args.input.clone()), "<argument>".to_owned()));
    }
    let input = Input::from_arg(OsStr::new(&args.input));
    let data = input.read_all().with_context(|| input.name.clone())?;
    let format = Format::of_data(path, &data);
    let source = match format {
        Some(Format::Sgf) => Source::Sgf(data),
        Some(Format::Epd | Format::Fen) => {
            let text = String::from_utf8_lossy(&data);
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Source::Fen(line.to_owned())
        }
        _ => Source::Pgn(data),
    };
    Ok((source, input.name))
}

fn draw(args: &SvgArgs) -> Result<String> {
    let (source, name) = source(args)?;
    if let Source::Sgf(data) = &source {
        return draw_sgf(args, data, &name);
    }
    if args.numbers.is_some() {
        bail!("--numbers is for Go and Othello boards (SGF input)");
    }
    if args.node.is_some() {
        bail!("--node is for SGF input; use --ply for PGN");
    }
    let opts = chess_options(args)?;
    match source {
        Source::Pgn(data) => draw_pgn(args, &data, &name, &opts),
        Source::Fen(text) => draw_fen(args, &text, opts),
        Source::Sgf(_) => unreachable!("drawn above"),
    }
}

fn draw_pgn(args: &SvgArgs, data: &[u8], name: &str, opts: &BoardOptions) -> Result<String> {
    let (games, problems) = gamerec::pgn::read_games(data);
    let Some(game) = args.game.checked_sub(1).and_then(|i| games.get(i)) else {
        let first = problems
            .first()
            .map(|p| format!(" ({})", p.message))
            .unwrap_or_default();
        return Err(input_error(format!(
            "{name}: no game {} ({} games read){first}",
            args.game,
            games.len()
        )));
    };
    let node = match args.ply {
        None => game
            .tree
            .mainline()
            .last()
            .unwrap_or(gamerec::model::NodeId::ROOT),
        Some(ply) => gamerec_view::mainline_node(game, ply).ok_or_else(|| {
            input_error(format!(
                "{name}: game {} has {} plies, no ply {ply}",
                args.game,
                game.tree.mainline_len()
            ))
        })?,
    };
    if let Some(positions) = game.variant_mainline() {
        // A lichess variant: the board of its own replay.
        let ply = args.ply.unwrap_or(game.tree.mainline_len());
        let Some(pos) = positions.get(ply) else {
            return Err(input_error(format!(
                "{name}: game {} cannot be replayed to ply {ply}",
                args.game
            )));
        };
        return Ok(gamerec_view::board_svg(
            shakmaty::Position::board(pos),
            opts,
        ));
    }
    Ok(gamerec_view::game_svg(game, node, opts))
}

fn draw_fen(args: &SvgArgs, text: &str, mut opts: BoardOptions) -> Result<String> {
    if args.ply.is_some() {
        bail!("--ply needs a game file, not a FEN");
    }
    let fen: shakmaty::fen::Fen = fen_fields(text)
        .parse()
        .map_err(|e| input_error(format!("not a FEN or a file: {text:?}: {e}")))?;
    let setup = fen.as_setup();
    // Any placement is drawn; check is marked only for legal positions.
    if let Ok(pos) = fen
        .clone()
        .into_position::<shakmaty::Chess>(shakmaty::CastlingMode::Chess960)
        && opts.check.is_none()
    {
        opts.check = gamerec_view::chess::check_square(&pos);
    }
    Ok(gamerec_view::board_svg(&setup.board, &opts))
}

/// The first six fields of a FEN or the four of an EPD line (opcodes after
/// them are dropped).
fn fen_fields(text: &str) -> String {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let take = if fields.len() >= 6
        && fields[4].bytes().all(|b| b.is_ascii_digit())
        && fields[5].bytes().all(|b| b.is_ascii_digit())
    {
        6
    } else {
        fields.len().min(4)
    };
    fields[..take].join(" ")
}

fn chess_options(args: &SvgArgs) -> Result<BoardOptions> {
    let mut opts = BoardOptions {
        size: args.size,
        flipped: args.flip,
        coordinates: !args.no_coords,
        ..BoardOptions::default()
    };
    for a in args.arrows.iter().filter(|a| !a.is_empty()) {
        opts.arrows.push(parse_arrow(a)?);
    }
    for s in args.squares.iter().filter(|s| !s.is_empty()) {
        opts.squares.push(parse_square_mark(s)?);
    }
    Ok(opts)
}

fn square(text: &str, what: &str) -> Result<Square> {
    Square::from_ascii(text.as_bytes())
        .map_err(|_| anyhow::anyhow!("{what}: `{text}` is not a square"))
}

fn color_prefix(text: &str) -> (Option<MarkColor>, &str) {
    match text.as_bytes().first() {
        Some(b'R' | b'G' | b'Y' | b'B') => (parse_mark_color(&text[..1]), &text[1..]),
        _ => (None, text),
    }
}

fn split_color<'a>(text: &'a str, what: &str) -> Result<(Option<MarkColor>, &'a str)> {
    match text.split_once(':') {
        Some((body, color)) => {
            let c = parse_mark_color(color).ok_or_else(|| {
                anyhow::anyhow!("{what} `{text}`: colours are red, green, yellow, blue")
            })?;
            Ok((Some(c), body))
        }
        None => Ok(color_prefix(text)),
    }
}

/// `e2e4`, `e2e4:red`, `Re2e4`.
fn parse_arrow(text: &str) -> Result<ArrowMark> {
    let (color, body) = split_color(text, "--arrows")?;
    if body.len() != 4 || !body.is_ascii() {
        bail!("--arrows: `{text}` is not like e2e4 or e2e4:red");
    }
    Ok(ArrowMark {
        color: color.unwrap_or(MarkColor::Green),
        from: square(&body[..2], "--arrows")?,
        to: square(&body[2..], "--arrows")?,
    })
}

/// `e4`, `e4:red`, `Ye4`.
fn parse_square_mark(text: &str) -> Result<SquareMark> {
    let (color, body) = split_color(text, "--squares")?;
    Ok(SquareMark {
        color: color.unwrap_or(MarkColor::Red),
        square: square(body, "--squares")?,
    })
}

fn parse_numbers(text: &str) -> Result<std::ops::RangeInclusive<u32>> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let parse = |s: &str| -> Result<u32> {
        s.trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("--numbers `{text}` is not like 1-50"))
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if a > b {
        bail!("--numbers `{text}`: the range is empty");
    }
    Ok(a..=b)
}

fn draw_sgf(args: &SvgArgs, data: &[u8], name: &str) -> Result<String> {
    if args.flip || !args.arrows.is_empty() || !args.squares.is_empty() {
        bail!("--flip, --arrows and --squares are for chess boards");
    }
    let parsed = gamerec::sgf::parse(data, &gamerec::sgf::ParseOptions::default());
    let coll = &parsed.collection;
    let node = if let Some(path) = &args.node {
        let path = if path.trim_start().starts_with("game") || args.game == 1 {
            path.clone()
        } else {
            format!("game {} {path}", args.game)
        };
        gamerec::sgf::replay::find_node(coll, &path)
            .ok_or_else(|| input_error(format!("{}: no node {path}", name)))?
            .1
    } else {
        let root = *args
            .game
            .checked_sub(1)
            .and_then(|i| coll.roots.get(i))
            .ok_or_else(|| {
                input_error(format!(
                    "{}: no game {} ({} games read)",
                    name,
                    args.game,
                    coll.roots.len()
                ))
            })?;
        let line = coll.main_line(root);
        match args.ply {
            None => *line.last().unwrap_or(&root),
            Some(n) => *line.get(n).ok_or_else(|| {
                input_error(format!(
                    "{}: the main line has {} moves, no move {n}",
                    name,
                    line.len() - 1
                ))
            })?,
        }
    };
    let opts = DiagramOptions {
        size: args.size,
        coordinates: !args.no_coords,
        move_numbers: args.numbers.as_deref().map(parse_numbers).transpose()?,
        ..DiagramOptions::default()
    };
    gamerec_view::sgf_svg(coll, node, &opts).map_err(|e| input_error(format!("{}: {e}", name)))
}

#[cfg(feature = "png")]
fn to_png(svg: &str) -> Result<Vec<u8>> {
    Ok(gamerec_view::png::svg_to_png(svg)?)
}

#[cfg(not(feature = "png"))]
fn to_png(_svg: &str) -> Result<Vec<u8>> {
    bail!("PNG output needs the `png` feature: build gamerec with the default features")
}

fn write(args: &SvgArgs, svg: &str) -> Result<()> {
    let png = args.png
        || args
            .output
            .as_deref()
            .and_then(Path::extension)
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if png {
        to_png(svg)?
    } else {
        svg.as_bytes().to_vec()
    };
    match &args.output {
        Some(path) => gamerec::io::write_atomic(path, &bytes)?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)?;
            out.flush()?;
        }
    }
    Ok(())
}
