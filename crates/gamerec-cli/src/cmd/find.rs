//! `gamerec find`: games by position, pattern or material in an indexed
//! database; the opening tree.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use gamerec::model::Game;
use gamerec_db::filter::{Atom, Expr, Op};

use gamerec::io::pipeline::{self};
use gamerec::io::{Format, Input};
use gamerec_db::source::for_each_game;

use crate::input::open_output;

use crate::cmd::db::{IoArgs, NotationArg, Output, load_eco, parse_format};
use crate::cmd::index::{default_index, open_checked};

// Find games in an indexed database.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec find games.pgn --fen 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
  gamerec find games.pgn --fen '...' --ids          # game number and ply per line
  gamerec find games.pgn --pattern '*/*/*/*/???PP???/*/*/*' --to json
  gamerec find games.pgn --material 'KRP*vKR' -o rook-endings.pgn
  gamerec find games.pgn --tree 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

Games found are written with a MatchPly tag: the first ply (0 = the start
position) at which the main line reaches the position, pattern or material.
--fen looks the position up; --pattern, --sub-fen and --material scan the
index's stored boards (every distinct position, on --threads threads): no
game is replayed. A .pgn.zst database of many zstd frames (such as
split -C 1M --filter 'zstd -c') is read from the frame holding each game.
--tree prints each continuation: games, White wins / draws / Black wins in
percent, and the players' average rating.")]
pub struct FindArgs {
    /// The database the index was built from.
    db: PathBuf,
    /// The index (default: DB.idx).
    #[arg(long)]
    index: Option<PathBuf>,
    /// An exact position (placement, side to move, castling, e.p.).
    #[arg(long, value_name = "FEN", group = "query")]
    fen: Option<String>,
    /// A board pattern (pgn-extract FENPattern syntax).
    #[arg(long, value_name = "PATTERN", group = "query")]
    pattern: Option<String>,
    /// Pieces on squares, other squares free (scoutfish sub-fen).
    #[arg(long = "sub-fen", value_name = "SUBFEN", group = "query")]
    sub_fen: Option<String>,
    /// Material at some ply, White v Black.
    #[arg(long, value_name = "SPEC", group = "query")]
    material: Option<String>,
    /// Material at some ply, either colour.
    #[arg(long = "material-any", value_name = "SPEC", group = "query")]
    material_any: Option<String>,
    /// The opening tree of a position (default: the start position).
    #[arg(long, value_name = "FEN", group = "query", num_args = 0..=1,
          default_missing_value = START_FEN)]
    tree: Option<String>,
    /// Moves played from the position of --fen or --tree (or the start
    /// position): SAN or UCI, separated by spaces or commas.
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// Only games whose average rating is in these rating groups
    /// (comma-separated: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500).
    #[arg(long, value_name = "GROUPS")]
    ratings: Option<String>,
    /// Only games of these speeds, from TimeControl (comma-separated:
    /// ultraBullet, bullet, blitz, rapid, classical, correspondence).
    #[arg(long, value_name = "SPEEDS")]
    speeds: Option<String>,
    /// Only games played in this month (YYYY-MM) or later.
    #[arg(long, value_name = "MONTH")]
    since: Option<String>,
    /// Only games played in this month (YYYY-MM) or earlier.
    #[arg(long, value_name = "MONTH")]
    until: Option<String>,
    /// Only games with this player on either side (whole name, any case).
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
    /// Games: the order (id, rating: highest first, date: latest first).
    #[arg(long, value_enum, default_value = "id")]
    sort: SortArg,
    /// At most this many games (with --tree: moves).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Leave out the first N games found (in --sort order).
    #[arg(long, value_name = "N", default_value_t = 0)]
    offset: usize,
    /// With --tree --to json: the highest rated games listed.
    #[arg(long, value_name = "N", default_value_t = 4)]
    top_games: usize,
    /// With --tree --to json: the most recent games listed.
    #[arg(long, value_name = "N", default_value_t = 4)]
    recent_games: usize,
    /// With --tree --to json: an ECO file naming the opening.
    #[arg(long = "eco-file", value_name = "FILE")]
    eco_file: Option<PathBuf>,
    /// Print `GAME<TAB>PLY` lines instead of games (game numbers from 1).
    #[arg(long)]
    ids: bool,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Output format: pgn, json, epd, fen, pgc, cbf, fbk (default: by the
    /// output's extension, else pgn).
    #[arg(long, value_parser = parse_format)]
    to: Option<Format>,
    /// Move notation of PGN output.
    #[arg(long, value_enum, default_value = "san")]
    notation: NotationArg,
    /// Hash every byte of the database to check it is the one indexed (by
    /// default: its size, sampled blocks, and every byte when its
    /// modification time changed).
    #[arg(long)]
    full_check: bool,
    /// Threads scanning the index's boards for --pattern, --sub-fen and
    /// --material (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
}

/// The standard start position.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The order of games found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Game number.
    Id,
    /// Game rating (average of the players'), highest first.
    Rating,
    /// Date, latest first.
    Date,
}

/// The explorer filters of `find`.
fn find_filters(args: &FindArgs) -> Result<gamerec_db::explorer::Filters, String> {
    use gamerec_db::explorer::Filters;
    let mut f = Filters::default();
    if let Some(r) = &args.ratings {
        f.ratings = Filters::parse_ratings(r)?;
    }
    if let Some(s) = &args.speeds {
        f.speeds = Filters::parse_speeds(s)?;
    }
    if let Some(s) = &args.since {
        f.set_since(s)?;
    }
    if let Some(u) = &args.until {
        f.set_until(u)?;
    }
    f.player = args.player.clone();
    Ok(f)
}

/// The White and Black names of game `g` read back from the database
/// (`?` when it cannot be read).
pub fn game_names(
    db: &gamerec_db::explorer::Database,
    index: &gamerec_db::index::Index,
    g: u32,
) -> (String, String) {
    match db.game(index, g) {
        Ok(Some(game)) => {
            let t = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
            (t("White"), t("Black"))
        }
        _ => ("?".into(), "?".into()),
    }
}

/// `gamerec find`.
pub fn run_find(args: FindArgs) -> Result<ExitCode> {
    use gamerec_db::explorer::{Database, Request, explore, game_rating, opening, play};
    use gamerec_db::material::MaterialSpec;
    use gamerec_db::pattern::{Pattern, Pieces};
    use gamerec_db::position::parse_query_fen;
    let index_path = args
        .index
        .clone()
        .unwrap_or_else(|| default_index(&args.db));
    let usage = |e: String| -> Result<ExitCode> {
        gamerec::say!("gamerec find: {e}");
        Ok(ExitCode::from(2))
    };
    let filters = match find_filters(&args) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let played: Vec<&str> = args
        .moves
        .as_deref()
        .unwrap_or("")
        .split([' ', ',', '\t', '\n'])
        .filter(|m| !m.is_empty())
        .collect();
    // The position of --tree or --fen (or the start position) after --moves.
    let line_from = |fen: &str| -> Result<Vec<shakmaty::Chess>, String> {
        play(&parse_query_fen(fen)?, &played)
    };
    let index = open_checked(&args.db, &index_path, args.full_check)?;
    let mut out = open_output(args.output.as_deref())?;
    if let Some(fen) = &args.tree {
        let line = match line_from(fen) {
            Ok(l) => l,
            Err(e) => return usage(e),
        };
        let pos = line.last().cloned().unwrap_or_default();
        let req = Request {
            filters,
            moves: args.limit,
            top_games: args.top_games,
            recent_games: args.recent_games,
        };
        let report = explore(&index, &pos, &req)?;
        if args.to == Some(Format::Json) {
            // The lichess opening explorer's shape (gamerec_db::explorer).
            let book = args.eco_file.as_deref().map(load_eco).transpose()?;
            let db = Database::new(&args.db)?;
            let name = book.as_ref().and_then(|b| opening(b, &line));
            let doc = gamerec_db::explorer::report_json(&report, name, &mut |g| {
                game_names(&db, &index, g)
            });
            writeln!(out, "{doc}")?;
            out.finish()?;
            return Ok(ExitCode::SUCCESS);
        }
        let totals = report.totals;
        let total: u64 = report.moves.iter().map(|m| m.tree.games).sum();
        writeln!(
            out,
            "{:<8} {:>9} {:>7} {:>7} {:>7} {:>7}",
            "move", "games", "white", "draw", "black", "elo"
        )?;
        let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        for m in report.moves.iter().map(|m| &m.tree) {
            writeln!(
                out,
                "{:<8} {:>9} {:>6.1}% {:>6.1}% {:>6.1}% {:>7}",
                m.san,
                m.games,
                pct(m.white, m.games),
                pct(m.draws, m.games),
                pct(m.black, m.games),
                m.average_elo.map_or("-".to_string(), |e| e.to_string())
            )?;
        }
        writeln!(out, "{:<8} {total:>9}", "total")?;
        // Games reaching the position without a continuation are counted,
        // not dropped.
        writeln!(out, "{:<8} {:>9}", "ended", totals.ended)?;
        writeln!(out, "{:<8} {:>9}", "reached", totals.games)?;
        out.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    // Candidates (game, ply if known) and the expression that verifies them;
    // `exact`: every candidate matches (a position looked up, or found in
    // the index's boards).
    let scan_threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Games found by a boards scan, exact unless some must be replayed
    // (then all are verified).
    let scanned = |found: gamerec_db::index::PositionGames| -> (Vec<(u32, Option<u16>)>, bool) {
        if found.replay.is_empty() {
            (
                found.found.into_iter().map(|(g, p)| (g, Some(p))).collect(),
                true,
            )
        } else {
            let mut all: Vec<u32> = found.found.iter().map(|f| f.0).collect();
            all.extend(found.replay);
            all.sort_unstable();
            all.dedup();
            (all.into_iter().map(|g| (g, None)).collect(), false)
        }
    };
    let position_query = args.fen.clone().or_else(|| {
        (args.moves.is_some()
            && args.pattern.is_none()
            && args.sub_fen.is_none()
            && args.material.is_none()
            && args.material_any.is_none())
        .then(|| START_FEN.to_string())
    });
    let (expr, mut candidates, exact): (Expr, Vec<(u32, Option<u16>)>, bool) =
        if let Some(fen) = &position_query {
            let pos = match line_from(fen) {
                Ok(l) => l.last().cloned().unwrap_or_default(),
                Err(e) => return usage(e),
            };
            let text = gamerec::fen::write_fen(&pos, shakmaty::CastlingMode::Standard);
            let found = index
                .find(&pos)?
                .into_iter()
                .map(|(g, p)| (g, Some(p)))
                .collect();
            (
                Expr::Atom(Atom::new("fen", Op::Eq, &text).map_err(anyhow::Error::msg)?),
                found,
                true,
            )
        } else if let Some((name, text)) = [("pattern", &args.pattern), ("subfen", &args.sub_fen)]
            .into_iter()
            .find_map(|(n, t)| t.as_ref().map(|t| (n, t)))
        {
            let pat = match if name == "pattern" {
                Pattern::parse(text)
            } else {
                Pattern::parse_sub_fen(text)
            } {
                Ok(p) => p,
                Err(e) => return usage(e),
            };
            // The index's boards scanned with the pattern's masks.
            let matcher = pat.matcher();
            let found = index.position_games(|b| matcher.test_packed(b), scan_threads)?;
            let expr = Expr::Atom(Atom::new(name, Op::Eq, text).map_err(anyhow::Error::msg)?);
            let (c, exact) = scanned(found);
            (expr, c, exact)
        } else if let Some((name, text, any)) = [
            ("material", &args.material, false),
            ("material-any", &args.material_any, true),
        ]
        .into_iter()
        .find_map(|(n, t, a)| t.as_ref().map(|t| (n, t, a)))
        {
            let spec = match MaterialSpec::parse(text, any) {
                Ok(s) => s,
                Err(e) => return usage(e),
            };
            let found = index.position_games(
                |b| spec.matches_counts(&Pieces::packed_counts(b)),
                scan_threads,
            )?;
            let expr = Expr::Atom(Atom::new(name, Op::Eq, text).map_err(anyhow::Error::msg)?);
            let (c, exact) = scanned(found);
            (expr, c, exact)
        } else {
            return usage(
            "give one of --fen, --moves, --pattern, --sub-fen, --material, --material-any, --tree"
                .into(),
        );
        };
    // The filters on the index's game summaries, then the order.
    let keep = filters.matcher();
    let info = |g: u32| index.game(g).unwrap_or_default();
    candidates.retain(|(g, _)| keep(&info(*g)));
    let rank = |g: u32| -> (u64, u64, u32) {
        let i = info(g);
        match args.sort {
            SortArg::Id => (0, 0, g),
            SortArg::Rating => (u64::from(u32::MAX - game_rating(&i).unwrap_or(0)), 0, g),
            SortArg::Date => {
                let (y, m, d) = i.date;
                let date = u64::from(y) << 16 | u64::from(m) << 8 | u64::from(d);
                (u64::MAX - date, u64::from(u32::MAX - g), 0)
            }
        }
    };
    candidates.sort_by_key(|(g, _)| rank(*g));
    let limit = args.limit.unwrap_or(usize::MAX);
    if exact {
        candidates = candidates
            .into_iter()
            .skip(args.offset)
            .take(limit)
            .collect();
    }
    if args.ids && exact {
        for (g, p) in &candidates {
            writeln!(out, "{}\t{}", g + 1, p.unwrap_or(0))?;
        }
        out.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    // Read the candidates from the database, verify; skip --offset, stop
    // at --limit (for exact queries already applied), write.
    let (offset, limit) = if exact {
        (0, usize::MAX)
    } else {
        (args.offset, limit)
    };
    let writer = IoArgs {
        inputs: Vec::new(),
        output: args.output.clone(),
        to: args.to,
        notation: args.notation,
        threads: Some(1),
        max_game_bytes: gamerec::io::parallel::DEFAULT_MAX_GAME_BYTES,
    }
    .writer();
    let mut games_out = Output::open(args.output.as_deref(), &writer)?;
    let db_name = args.db.display().to_string();
    let mut ids_out: Vec<(u32, usize)> = Vec::new();
    // Verified matches in candidate order: (game, matching ply, the game).
    let mut matched: Vec<(u32, usize, Option<Game>)> = Vec::new();
    let verify = |g: u32, game: Game, matched: &mut Vec<(u32, usize, Option<Game>)>| {
        let subject = gamerec_db::filter::Subject::new(&game);
        if !expr.matches(&subject) {
            return;
        }
        let ply = first_matching_ply(&expr, subject.positions());
        drop(subject);
        matched.push((g, ply, (!args.ids).then_some(game)));
    };
    let plain = Input::from_arg(args.db.as_os_str()).open_plain()?;
    if plain.is_some() || index.frame_at(0).is_some() {
        let db = Database::new(&args.db)?;
        let mut seen = 0usize;
        for (g, _) in &candidates {
            if seen >= offset.saturating_add(limit) {
                break;
            }
            // Each game is read alone from its offset to the next game's.
            let Some(game) = db.game(&index, *g)? else {
                continue;
            };
            let before = matched.len();
            verify(*g, game, &mut matched);
            if matched.len() > before {
                seen += 1;
                if seen <= offset {
                    matched.pop();
                }
            }
        }
    } else {
        let wanted: std::collections::HashSet<u32> = candidates.iter().map(|c| c.0).collect();
        let mut n = 0u32;
        let input = Input::from_arg(args.db.as_os_str());
        let reading = pipeline::Options {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ..pipeline::Options::default()
        };
        // Problems were reported when the index was built: not again.
        let tally = for_each_game(
            &input,
            &reading,
            |r| Some(r.game.clone()),
            |o| {
                let g = n;
                n += 1;
                if wanted.contains(&g)
                    && let Ok((_, Some(game))) = o
                {
                    verify(g, game, &mut matched);
                }
                Ok(true)
            },
            |_| {},
        )?;
        if tally.inputs_not_read > 0 {
            bail!("{}: could not be read to its end", args.db.display());
        }
        matched.sort_by_key(|(g, _, _)| rank(*g));
        matched = matched.into_iter().skip(offset).take(limit).collect();
    }
    for (g, ply, game) in matched {
        match game {
            Some(mut game) if !args.ids => {
                game.tags.set("MatchPly", ply.to_string());
                games_out.put(writer.write(&game), &db_name)?;
            }
            _ => ids_out.push((g, ply)),
        }
    }
    for (g, p) in ids_out {
        writeln!(out, "{}\t{p}", g + 1)?;
    }
    // Both name the same output: the one written is put into place.
    if args.ids {
        drop(games_out);
        out.finish()?;
    } else {
        drop(out);
        // A game the writer left out (said on stderr) is an error: exit 1.
        if games_out.finish()?.errors > 0 {
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The first main-line ply whose position satisfies the (positional) atom.
fn first_matching_ply(expr: &Expr, positions: &[shakmaty::Chess]) -> usize {
    use shakmaty::Position;
    let Expr::Atom(atom) = expr else { return 0 };
    positions
        .iter()
        .position(|p| match atom {
            Atom::Fen(q) => gamerec_db::position::same_position(p, q),
            Atom::Pattern(pat) => pat.matches(p.board()),
            Atom::Material(m) => m.matches(p.board()),
            _ => false,
        })
        .unwrap_or(0)
}
