//! The `gamerec` command-line tool: a thin layer over the gamerec libraries.
//!
//! Each verb lives in its own module under `src/cmd/` exposing an `Args`
//! struct and a `run` function; this file only registers them (one `Command`
//! variant and one `match` arm each). Verbs shared by several formats
//! (`check`, `convert`, `show`) dispatch by format in `cmd::check`; the
//! per-format drivers they call are in `src/formats/`.
//!
//! Exit codes: 0 success, 1 errors found in the input, 2 usage or I/O
//! failure. A closed stdout (broken pipe, e.g. `| head`) counts as success.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod formats;
mod input;
mod progress;

const EXAMPLES: &str = "\
Examples:
  gamerec check games.pgn problems.sgf
  gamerec convert game.sgf --to json > game.json
  gamerec moves 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
  cut -d' ' -f1-6 positions.txt | gamerec moves
  gamerec show '4k3/8/8/8/8/8/4P3/4K3 w - - 5 39'
  gamerec show game.sgf --node 57
  gamerec show games.pgn --game 3 --ply 20
  gamerec convert a.pgn b.pgn.gz -o games.cbf
  gamerec convert games.pgc --to json > games.jsonl
  gamerec epd solve --movetime 1s wac.epd -o wac-result.epd
  gamerec report wac-result.epd -o wac.html
  gamerec <COMMAND> --help";

/// Read, check, convert, analyse and referee game records.
#[derive(Parser)]
#[command(name = "gamerec", version, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each verb's arguments are built only when that verb runs (`defer`):
// building all of them was half the instructions of a one-file `check`.
// Its help text is therefore its variant's doc comment alone: the structs
// and enums that build its arguments carry plain comments, since a doc
// comment there would replace that text when the verb is built (see the
// test `deferred_verbs_keep_their_help_text`).
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Check game records: syntax, values and the legality of every move.
    ///
    /// Prints `path:line:col: error|warning: message` for each problem and a
    /// summary line; exits 1 when any error was found, 2 when a file could
    /// not be read. Formats are chosen by extension.
    ///
    /// Examples:
    ///   gamerec check games.pgn
    ///   gamerec check --threads 1 a.pgn b.pgn.zst
    ///   zcat big.pgn.gz | gamerec check -
    ///   gamerec check game.sgf
    ///   find games -name '*.sgf' | xargs gamerec check
    #[command(verbatim_doc_comment)]
    Check(cmd::check::CheckArgs),
    /// Convert a game record to another format or form.
    ///
    /// Any chess format to any other (PGN, JSON, EPD, FEN, PGC, CBF, FBK),
    /// many inputs into one output; SGF to SGF or JSON. The output format
    /// comes from --to, else the output file's extension (which must agree
    /// with --to), else the input's format. What the target cannot hold is
    /// reported per game.
    ///
    /// Examples:
    ///   gamerec convert messy.pgn -o clean.pgn
    ///   gamerec convert a.pgn b.pgn.gz --to json > games.jsonl
    ///   gamerec convert old.pgn --encoding latin-1 -o old-latin1.pgn
    ///   gamerec convert game.sgf -o copy.sgf
    ///   gamerec convert game.sgf --to json > game.json
    ///   gamerec convert old.sgf --ff4 -o new.sgf
    ///   gamerec convert games.pgn -o games.cbf     # also writes games.cbi
    ///   gamerec convert games.cbi -o games.pgn     # reads the .cbf/.cbi pair
    ///   gamerec convert games.pgn -o book.fbk      # all games merged into one tree
    ///   gamerec convert games.pgn.zst -o games.parquet   # games table (also .arrow)
    ///   gamerec convert games.parquet -o games.pgn        # and back
    ///   gamerec convert games.pgn.zst -o dataset/ --partition-by year,month   # Hive dataset
    ///   gamerec convert games.pgc --to pgn > games.pgn
    ///   gamerec convert games.cbf --to json > games.jsonl
    ///   gamerec convert games.pgn --to fen           # a FEN per position
    ///   gamerec convert games.pgn -o positions.epd --variations
    #[command(verbatim_doc_comment)]
    Convert(cmd::convert::ConvertArgs),
    /// Print all legal moves of FEN positions in canonical SAN.
    Moves(cmd::moves::MovesArgs),
    /// Draw a position in the terminal: a FEN, a node of an SGF file, or a
    /// position of any chess game file.
    ///
    /// Examples:
    ///   gamerec show 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
    ///   gamerec show --flip --ascii '4k3/8/8/8/8/8/4P3/4K3 w - - 5 39'
    ///   gamerec show game.sgf                  # end of the main line
    ///   gamerec show game.sgf --node 57        # main line move 57
    ///   gamerec show game.sgf --node 57,2,60   # variation 2 at move 57, then move 60
    ///   gamerec show games.pgn --game 2 --ply 30   # game 2 after 30 plies
    #[command(verbatim_doc_comment)]
    Show(cmd::show::ShowArgs),
    /// Write one row per ply (FEN before the move, UCI, SAN, clock, eval,
    /// result, ratings) to a Parquet or Arrow IPC table.
    ///
    /// Examples:
    ///   gamerec positions games.pgn.zst -o plies.parquet
    ///   gamerec positions games.pgn.zst -o plies/ --partition-by speed
    ///   gamerec positions games.pgn.zst --min-rating 2000 --time-control blitz -o plies.parquet
    #[command(verbatim_doc_comment)]
    Positions(cmd::positions::PositionsArgs),
    /// Sort PGN games into the standard's collation order.
    Sort(cmd::sort::SortArgs),
    /// Split PGN games into a chronological archive (YYYY/YYYYMM.pgn).
    Split(cmd::split::SplitArgs),
    /// SGF tools (upgrade).
    #[command(after_help = "Examples:\n  \
        gamerec sgf upgrade old.sgf -o new.sgf     # FF[1]/FF[3] to FF[4]\n  \
        gamerec sgf upgrade old.sgf > new.sgf")]
    Sgf {
        #[command(subcommand)]
        command: cmd::sgf::SgfCommand,
    },
    /// EPD verbs: normalize (pfdn), purge (pfop), check; analyze (pfga),
    /// mate (pfms), solve (pfts).
    #[command(after_help = "Examples:
  gamerec epd normalize wac.epd -o wac-normal.epd
  gamerec epd purge -i arasan21.epd c0 c1 id
  cat suite.epd | gamerec epd check
  gamerec epd solve --movetime 1s wac.epd -o wac-result.epd
  gamerec epd mate --moves 3 mates.epd")]
    Epd {
        #[command(subcommand)]
        command: EpdCommand,
    },
    /// Gastric-style report over `epd solve` results (text + HTML).
    Report(cmd::report::ReportArgs),
    /// Select games: tags, result, positions, patterns, material, endings.
    Filter(cmd::filter::FilterArgs),
    /// Drop duplicate games (same moves from the same start), keeping the first.
    Dedup(cmd::dedup::DedupArgs),
    /// Classify games by opening against an ECO file (ECO, Opening, Variation).
    Eco(cmd::eco::EcoArgs),
    /// Build a position index of a PGN database (for `gamerec find`).
    Index(cmd::index::IndexArgs),
    /// Find games by position, pattern or material in an indexed database; opening tree.
    Find(cmd::find::FindArgs),
    /// Serve an indexed database as an opening explorer over HTTP (lichess explorer JSON, a page).
    Serve(cmd::serve::ServeArgs),
    /// The Argus tournament referee (EPD referee protocol).
    #[command(after_help = "Examples:\n  \
        gamerec referee serve --event cup/EVENT.toml\n  \
        gamerec referee serve --event cup/EVENT.toml --http 127.0.0.1:8080   # and a live page")]
    Referee(cmd::referee::RefereeArgs),
    /// Connect an engine to an Argus referee as a client.
    Bridge(cmd::bridge::BridgeArgs),
    /// Play engines against each other through a local referee: game pairs, books, SPRT, Elo, resume.
    Match(Box<cmd::r#match::MatchArgs>),
    /// Draw a board as SVG (or PNG): a FEN, a PGN game at a ply, an SGF node.
    Svg(cmd::svg::SvgArgs),
    /// Write static viewer pages (board, moves, graphs) for PGN/SGF files.
    Html(cmd::html::HtmlArgs),
}

#[derive(Subcommand)]
enum EpdCommand {
    #[command(flatten)]
    Data(cmd::epd::Verb),
    #[command(flatten)]
    Engine(cmd::epd_engine::EpdEngineCommand),
}

fn main() -> ExitCode {
    // A damaged table or index is an error message, not a panic's.
    gamerec::caught::quiet_caught_panics();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Go matches (`gtp:`/`random`/`weak` engines) and `sgf analyze`.
    if let Some(code) = cmd::go::dispatch(&args) {
        return code;
    }
    let cli = Cli::parse_from(args);
    let result = match cli.command {
        Command::Check(args) => cmd::check::check(args),
        Command::Convert(args) => cmd::convert::run(args),
        Command::Positions(args) => cmd::positions::positions(args),
        Command::Moves(args) => cmd::moves::run_moves(args),
        Command::Show(args) => cmd::show::show(&args).map(ExitCode::from),
        Command::Sort(args) => cmd::sort::run_sort(args),
        Command::Split(args) => cmd::split::run_split(args),
        Command::Sgf { command } => cmd::sgf::run_sgf(&command).map(ExitCode::from),
        Command::Epd {
            command: EpdCommand::Data(verb),
        } => cmd::epd::run_verb(verb).map(ExitCode::from),
        Command::Epd {
            command: EpdCommand::Engine(c),
        } => cmd::epd_engine::run_epd(c),
        Command::Report(a) => cmd::report::run_report(a),
        Command::Filter(args) => cmd::filter::run_filter(args),
        Command::Dedup(args) => cmd::dedup::run_dedup(args),
        Command::Eco(args) => cmd::eco::run_eco(args),
        Command::Index(args) => cmd::index::run_index(args),
        Command::Find(args) => cmd::find::run_find(args),
        Command::Serve(args) => cmd::serve::run_serve(args),
        Command::Referee(args) => Ok(cmd::referee::referee(args)),
        Command::Bridge(args) => Ok(cmd::bridge::bridge(args)),
        Command::Match(args) => Ok(cmd::r#match::run_match(*args)),
        Command::Svg(args) => cmd::svg::run(args),
        Command::Html(args) => cmd::html::run(args),
    };
    finish(result)
}

/// Turns a verb's result into the process exit code: errors are printed as
/// `gamerec: ...` with exit code 2, except a broken pipe, which is success.
/// A message that could not be written to stderr (`2>` a full disk) makes
/// the exit code 2 whatever the verb's: it is the one report left.
fn finish(result: anyhow::Result<ExitCode>) -> ExitCode {
    let code = match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            gamerec::say!("gamerec: {}", error_text(&err));
            ExitCode::from(2)
        }
    };
    if gamerec::diag::stderr_failed() {
        ExitCode::from(2)
    } else {
        code
    }
}

/// The error and its causes joined by `: `, each cause said once: a cause
/// whose text the message already holds (a library error that quotes its
/// OS error) is not repeated; control bytes are escaped.
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    gamerec::diag::escape_controls(&text).into_owned()
}

/// Whether `err` (or its cause) is an I/O error caused by a closed pipe.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every verb's help text (about, long about) is the same before and
    /// after its deferred arguments are built: a doc comment on a struct or
    /// enum that builds them would replace it.
    #[test]
    fn deferred_verbs_keep_their_help_text() {
        let cli = super::Cli::command();
        let texts = |c: &clap::Command| {
            (
                c.get_about().map(ToString::to_string),
                c.get_long_about().map(ToString::to_string),
            )
        };
        let mut verbs = 0;
        for verb in cli.get_subcommands() {
            let before = texts(verb);
            assert!(
                before.0.is_some(),
                "gamerec {} has no help text",
                verb.get_name()
            );
            let mut built = verb.clone();
            built.build();
            assert_eq!(texts(&built), before, "gamerec {}", verb.get_name());
            verbs += 1;
        }
        assert!(verbs > 20, "{verbs}");
    }
}
