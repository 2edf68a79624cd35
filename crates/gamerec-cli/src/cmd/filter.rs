//! `gamerec filter`: select games by tags, result, positions, patterns,
//! material and endings (`gamerec_db::filter`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use gamerec_db::filter::{Atom, Expr, Op};

use crate::cmd::db::{IoArgs, Lost, Output, each_game, finish};

// Select games by tags, result, positions, material and endings.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  gamerec filter --player Carlsen games.pgn -o carlsen.pgn
  gamerec filter --tag 'WhiteElo>=2500' --tag 'Date>=2020' db.pgn.zst
  gamerec filter --eco B20-B99 --result 1-0 games.pgn
  gamerec filter --fen 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' games.pgn
  gamerec filter --pattern '*/*/*/*/???PP???/*/*/*' games.pgn
  gamerec filter --material 'KR*P*vKR*P*' --ended stalemate games.pgn
  gamerec filter --where '(Elo>=2600 or player^=Tal) and not result=1/2-1/2' games.pgn
  gamerec filter --player Carlsen --notation uci --to json games.pgn

All criteria given are and-ed; --where takes and/or/not and parentheses.
Atoms: NAME OP VALUE with OP one of = != ^= *= ~ !~ < <= > >=; NAME a tag,
or player, elo, result, eco, fen, pattern, subfen, material, material-any,
ended. See README.md (Game databases) for the full syntax.")]
pub struct FilterArgs {
    #[command(flatten)]
    io: IoArgs,
    /// A tag criterion NAME OP VALUE, e.g. 'WhiteElo>=2500', 'Event~^World'.
    #[arg(long = "tag", short = 't', value_name = "CRITERION")]
    tags: Vec<String>,
    /// A player on either side (name prefix, as pgn-extract's Player).
    #[arg(long, value_name = "NAME")]
    player: Vec<String>,
    /// An ECO range (A00-A99, B2-B4) or code prefix.
    #[arg(long, value_name = "RANGE")]
    eco: Vec<String>,
    /// The game's result (1-0, 0-1, 1/2-1/2, *).
    #[arg(long)]
    result: Option<String>,
    /// A position reached in the main line (placement, side, castling, e.p.).
    #[arg(long, value_name = "FEN")]
    fen: Vec<String>,
    /// A board pattern reached in the main line (pgn-extract FENPattern syntax).
    #[arg(long, value_name = "PATTERN")]
    pattern: Vec<String>,
    /// Pieces on squares, other squares free (scoutfish sub-fen).
    #[arg(long = "sub-fen", value_name = "SUBFEN")]
    sub_fen: Vec<String>,
    /// Material at some ply, White v Black: 'KQ*vKR*', 'R+P>vR=P#'.
    #[arg(long, value_name = "SPEC")]
    material: Vec<String>,
    /// Material at some ply, for either colour (pgn-extract -z).
    #[arg(long = "material-any", value_name = "SPEC")]
    material_any: Vec<String>,
    /// How the game ended: mate, stalemate, repetition, fifty, insufficient.
    #[arg(long, value_name = "ENDING")]
    ended: Vec<String>,
    /// A whole expression with and, or, not and parentheses.
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    expr: Vec<String>,
    /// Output the games that do not match instead.
    #[arg(long, short = 'v')]
    invert: bool,
    /// Print the number of matching games on stdout; alone, no games are
    /// written (as `grep -c`); with -o they are written too.
    #[arg(long)]
    count: bool,
}

impl FilterArgs {
    fn expression(&self) -> Result<Expr> {
        let mut parts = Vec::new();
        let atom = |name: &str, op: Op, v: &str| Atom::new(name, op, v).map(Expr::Atom);
        for t in &self.tags {
            parts.push(Expr::Atom(Atom::parse(t).map_err(anyhow::Error::msg)?));
        }
        for p in &self.player {
            parts.push(atom("player", Op::Prefix, p).map_err(anyhow::Error::msg)?);
        }
        for e in &self.eco {
            let op = if e.contains('-') { Op::Eq } else { Op::Prefix };
            parts.push(atom("ECO", op, e).map_err(anyhow::Error::msg)?);
        }
        let lists: [(&str, &Vec<String>); 6] = [
            ("fen", &self.fen),
            ("pattern", &self.pattern),
            ("subfen", &self.sub_fen),
            ("material", &self.material),
            ("material-any", &self.material_any),
            ("ended", &self.ended),
        ];
        for (name, values) in lists {
            for v in values {
                parts.push(atom(name, Op::Eq, v).map_err(anyhow::Error::msg)?);
            }
        }
        if let Some(r) = &self.result {
            parts.push(atom("result", Op::Eq, r).map_err(anyhow::Error::msg)?);
        }
        for w in &self.expr {
            parts.push(Expr::parse(w).map_err(anyhow::Error::msg)?);
        }
        Ok(Expr::all(parts))
    }
}

/// `gamerec filter`.
pub fn run_filter(args: FilterArgs) -> Result<ExitCode> {
    let expr = match args.expression() {
        Ok(e) => e,
        Err(e) => {
            gamerec::say!("gamerec filter: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let writer = args.io.writer();
    // --count alone prints the count and writes no games (as grep -c).
    let write = !args.count || args.io.output.is_some();
    let mut out = match write {
        true => Some(Output::open(args.io.output.as_deref(), &writer)?),
        false => None,
    };
    let mut matched = 0u64;
    let invert = args.invert;
    let tally = each_game(
        &args.io,
        |game| (expr.matches_game(&game) != invert).then(|| write.then(|| writer.write(&game))),
        |_, name, _, text| {
            if let Some(text) = text {
                matched += 1;
                if let (Some(out), Some(text)) = (out.as_mut(), text) {
                    out.put(text, name)?;
                }
            }
            Ok(())
        },
    )?;
    let lost = match out {
        Some(out) => out.finish()?,
        None => Lost::default(),
    };
    if args.count {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{matched}")?;
        out.flush()?;
    }
    Ok(finish(
        "filter",
        tally,
        if write { matched } else { 0 },
        lost,
    ))
}
