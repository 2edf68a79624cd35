//! `gamerec html`: a static, self-contained viewer page per input
//! collection (PGN or SGF), written into a directory with an index page.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use gamerec::io::{Format, Input};

// Arguments of `gamerec html`.
#[derive(Args, Debug)]
#[command(
    after_help = "Each input becomes OUT/<name>.html (one page, no external files): the
board, the move list with variations, comments and NAGs, clock and
evaluation graphs from [%clk]/[%eval], the tags, and a game list for
collections. OUT/index.html links the pages.

Keys: ← → step, Home/End, ↑ ↓ switch variation, F flip.
A page opens at #game=N&node=M when its address says so.

Examples:
  gamerec html games.pgn -o site/
  gamerec html game.sgf tournament.pgn.gz -o site/"
)]
pub struct HtmlArgs {
    /// PGN or SGF files (compressed too); `-` reads PGN from stdin.
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
    /// The directory to write (created if missing).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs `gamerec html`.
pub fn run(args: HtmlArgs) -> Result<ExitCode> {
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("{}: cannot create", args.output.display()))?;
    let mut pages: Vec<(String, String, usize)> = Vec::new();
    let mut input_errors = 0u64;
    for arg in &args.inputs {
        let input = Input::from_arg(arg);
        let data = input.read_all().with_context(|| input.name.clone())?;
        let stem = page_stem(input.path.as_deref(), &pages);
        let title = input
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map_or_else(|| "games".to_owned(), |n| n.to_string_lossy().into_owned());
        let name = input.path.as_deref().unwrap_or(Path::new(""));
        let is_sgf = Format::of_data(name, &data) == Some(Format::Sgf);
        let file = format!("{stem}.html");
        let count = if is_sgf {
            let parsed = gamerec::sgf::parse(&data, &gamerec::sgf::ParseOptions::default());
            for d in &parsed.diagnostics {
                input_errors += d.counts().0;
                gamerec::say!("{}", d.to_diagnostic(Some(&input.name)));
            }
            let (html, skipped) = gamerec_view::viewer::sgf_page(&title, &parsed.collection);
            if skipped > 0 {
                gamerec::say!(
                    "{}: {skipped} game(s) left out: only Go (GM[1]) and Othello (GM[2]) have boards",
                    input.name
                );
            }
            gamerec::io::write_atomic(args.output.join(&file), html)?;
            parsed.collection.roots.len() - skipped
        } else {
            // The page is written game by game: one game's model and JSON
            // are held at a time, not every game's (and the page).
            use gamerec_view::viewer::{GAME_SEPARATOR, PAGE_END, chess_game_json, page_start};
            let mut out = gamerec::io::AtomicFile::create(args.output.join(&file))?;
            out.write_all(page_start(&title).as_bytes())?;
            let mut count = 0;
            let mut stderr = std::io::stderr();
            let each = |game| {
                if count > 0 {
                    out.write_all(GAME_SEPARATOR.as_bytes())?;
                }
                out.write_all(chess_game_json(&game).as_bytes())?;
                count += 1;
                Ok(())
            };
            input_errors += crate::input::for_each_pgn_game_in_bytes(
                &input.name,
                &data,
                false,
                &mut stderr,
                each,
            )?;
            out.write_all(PAGE_END.as_bytes())?;
            out.commit()?;
            count
        };
        pages.push((file, title, count));
    }
    let index = index_page(&pages);
    let index_path = args.output.join("index.html");
    if !pages.iter().any(|(f, _, _)| f == "index.html") {
        gamerec::io::write_atomic(&index_path, index)?;
    }
    for (file, _, count) in &pages {
        gamerec::say!("{}: {count} game(s)", args.output.join(file).display());
    }
    Ok(ExitCode::from(u8::from(input_errors > 0)))
}

/// A file name for the page: the input's name without extensions, made
/// unique among the pages written so far.
fn page_stem(path: Option<&Path>, pages: &[(String, String, usize)]) -> String {
    let base = path
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "stdin".to_owned());
    let base: String = base
        .split('.')
        .next()
        .unwrap_or("games")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if base.is_empty() || base == "index" {
        format!("{base}games")
    } else {
        base
    };
    let mut stem = base.clone();
    let mut k = 2;
    while pages.iter().any(|(f, _, _)| *f == format!("{stem}.html")) {
        stem = format!("{base}-{k}");
        k += 1;
    }
    stem
}

fn index_page(pages: &[(String, String, usize)]) -> String {
    let mut items = String::new();
    for (file, title, count) in pages {
        items.push_str(&format!(
            "<li><a href=\"{}\">{}</a> — {count} game{}</li>\n",
            gamerec_view::xml_escape(file),
            gamerec_view::xml_escape(title),
            if *count == 1 { "" } else { "s" }
        ));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Games</title>\
         <style>body{{font:16px/1.6 \"DejaVu Sans\",sans-serif;margin:2em auto;max-width:50em}}</style>\
         </head><body><h1>Games</h1><ul>\n{items}</ul></body></html>\n"
    )
}
