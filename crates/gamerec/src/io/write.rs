//! One writer for every chess format, stating what each target cannot hold.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::chessbase;
use crate::diag::{Code, Diagnostic, LineCol, Severity};
use crate::epd::{self, convert::GameToEpd};
use crate::model::Game;
use crate::pgc;
use crate::pgn::{self, Encoding};

use super::Format;
use super::input::OpenError;
use super::read::{Item, Record, cbf_pair, issue_diagnostic};

/// How to write.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// PGN export options (encoding, line length, comments).
    pub pgn: pgn::WriteOptions,
    /// Games to EPD or FEN: every position or the main line, tags as `ptp`.
    pub epd: GameToEpd,
    /// Remove embedded `[%...]` commands from comments.
    pub strip_commands: bool,
}

enum Target<'w> {
    Stream(Box<dyn Write + Send + 'w>),
    /// A CBF pair, written at [`GameWriter::finish`].
    Pair(PathBuf),
}

/// Writes games and records in one chess format. Text formats (PGN, JSON,
/// EPD, FEN) are written as they come; binary ones (PGC, CBF, FBK; an FBK
/// merges all games into one tree) are written at [`GameWriter::finish`].
/// Every call returns the losses: [`Code::Loss`] warnings naming the input,
/// game number and line of what the target could not hold.
///
/// ```
/// use gamerec::io::{Format, GameWriter, Reader, ReadOptions, WriteOptions};
/// let mut reader = Reader::from_bytes("a.pgn", b"1. e4 {best} e5 *\n", &ReadOptions::default());
/// let mut out = Vec::new();
/// let mut writer = GameWriter::to_stream(Box::new(&mut out), Format::Epd, &WriteOptions::default()).unwrap();
/// let mut losses = Vec::new();
/// for item in reader.by_ref() {
///     losses.extend(writer.write(&item.unwrap(), "a.pgn").unwrap());
/// }
/// losses.extend(writer.finish().unwrap());
/// assert_eq!(String::from_utf8(out).unwrap().lines().count(), 3);
/// assert!(losses.is_empty() || losses[0].to_string().starts_with("a.pgn:1:"));
/// ```
pub struct GameWriter<'w> {
    format: Format,
    target: Option<Target<'w>>,
    opts: WriteOptions,
    /// Games of binary formats until `finish`, and where each came from.
    pending: Vec<Game>,
    sources: Vec<(String, u64, u64)>,
    name: String,
    buf: Vec<u8>,
}

impl GameWriter<'static> {
    /// A writer creating `path` in `format` (a CBF path writes the `.cbf`
    /// and its `.cbi`). SGF is not a chess format and is refused.
    pub fn create(
        path: &Path,
        format: Format,
        opts: &WriteOptions,
    ) -> Result<GameWriter<'static>, OpenError> {
        let name = path.display().to_string();
        if format == Format::Sgf {
            return Err(OpenError::new(
                name,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "SGF holds no chess games: cannot write chess to SGF",
                ),
            ));
        }
        let target = if format == Format::Cbf {
            Target::Pair(path.to_path_buf())
        } else {
            let file = File::create(path).map_err(|e| OpenError::new(name.clone(), e))?;
            Target::Stream(Box::new(BufWriter::with_capacity(1 << 16, file)))
        };
        Ok(GameWriter::new(name, format, target, opts))
    }
}

impl<'w> GameWriter<'w> {
    /// A writer into `out` (stdout, a buffer). CBF needs two files and is
    /// refused here: use [`GameWriter::create`].
    pub fn to_stream(
        out: Box<dyn Write + Send + 'w>,
        format: Format,
        opts: &WriteOptions,
    ) -> Result<GameWriter<'w>, OpenError> {
        if matches!(format, Format::Cbf | Format::Sgf) {
            return Err(OpenError::new(
                "<stdout>",
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{format} output needs a file: -o FILE.{}",
                        format.extension()
                    ),
                ),
            ));
        }
        Ok(GameWriter::new(
            "<stdout>".into(),
            format,
            Target::Stream(out),
            opts,
        ))
    }

    fn new(
        name: String,
        format: Format,
        target: Target<'w>,
        opts: &WriteOptions,
    ) -> GameWriter<'w> {
        GameWriter {
            format,
            target: Some(target),
            opts: opts.clone(),
            pending: Vec::new(),
            sources: Vec::new(),
            name,
            buf: Vec::new(),
        }
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes one item read from input `source`; returns what the target
    /// could not hold.
    pub fn write(&mut self, item: &Item, source: &str) -> io::Result<Vec<Diagnostic>> {
        let mut losses = Vec::new();
        let loss = |message: String| {
            Diagnostic::new(
                Severity::Warning,
                LineCol {
                    line: item.line,
                    column: if item.line > 0 { 1 } else { 0 },
                },
                message,
            )
            .with_path(source)
            .with_code(Code::Loss)
            .with_game(item.number)
        };
        let unit = match item.record {
            Record::Game(_) => "game",
            Record::Position(_) => "record",
        };
        let mut say = |warnings: Vec<String>| {
            for w in warnings {
                losses.push(loss(format!("{unit} {}: {w}", item.number)));
            }
        };
        self.buf.clear();
        match (self.format, &item.record) {
            (Format::Epd, Record::Position(r)) => {
                self.buf.extend_from_slice(r.to_string().as_bytes());
                self.buf.push(b'\n');
            }
            (Format::Fen, Record::Position(r)) => {
                let fen = epd::convert::record_to_fen(r);
                say(fen.warnings);
                self.buf.extend_from_slice(fen.value.as_bytes());
                self.buf.push(b'\n');
            }
            (Format::Epd | Format::Fen, Record::Game(g)) => {
                let game = self.prepared(g);
                let records = epd::convert::game_to_records(&game, &self.opts.epd);
                say(records.warnings);
                if self.format == Format::Fen {
                    let mut dropped = false;
                    for r in &records.value {
                        self.buf
                            .extend_from_slice(epd::convert::record_to_fen(r).value.as_bytes());
                        self.buf.push(b'\n');
                        dropped |= !game.tags.is_empty();
                    }
                    if dropped || game.result.is_some() {
                        say(vec![
                            "FEN holds positions only: tags, moves, comments and result are not kept"
                                .into(),
                        ]);
                    }
                } else {
                    if !self.opts.epd.tags_as_ptp && !game.tags.is_empty() {
                        say(vec![
                            "tags not kept in EPD (the ptp option keeps them as a ptp operation)"
                                .into(),
                        ]);
                    }
                    for r in &records.value {
                        self.buf.extend_from_slice(r.to_string().as_bytes());
                        self.buf.push(b'\n');
                    }
                }
            }
            (format, record) => {
                let converted = record.to_game();
                say(converted.warnings);
                let game = self.prepared(&converted.value);
                match format {
                    Format::Pgn => {
                        let text = pgn::writer::export_string(&game, &self.opts.pgn);
                        let encoding = self.opts.pgn.encoding;
                        if encoding.encode_to(&text, &mut self.buf) > 0 {
                            say(vec![unrepresentable_warning(encoding, &text)]);
                        }
                    }
                    Format::Json => {
                        let mut text = String::new();
                        pgn::write_game_json(&game, &pgn::commands::write_commands_json, &mut text);
                        self.buf.extend_from_slice(text.as_bytes());
                    }
                    _ => {
                        self.pending.push(game);
                        self.sources
                            .push((source.to_string(), item.number, item.line));
                    }
                }
            }
        }
        if !self.buf.is_empty()
            && let Some(Target::Stream(out)) = &mut self.target
        {
            out.write_all(&self.buf)?;
        }
        Ok(losses)
    }

    fn prepared(&self, game: &Game) -> Game {
        let mut game = game.clone();
        if self.opts.strip_commands {
            pgn::commands::strip_game_commands(&mut game);
        }
        game
    }

    /// Writes what is pending (binary formats) and flushes; returns the
    /// binary writer's losses and left-out games, naming the input game.
    pub fn finish(mut self) -> io::Result<Vec<Diagnostic>> {
        let target = self.target.take();
        let issues = match (self.format, target) {
            (Format::Cbf, Some(Target::Pair(path))) => {
                let (cbf, cbi) = cbf_pair(&path);
                let files = chessbase::write_cbf(&self.pending);
                write_file(&cbf, &files.cbf)?;
                write_file(&cbi, &files.cbi)?;
                files.issues
            }
            (Format::Pgc | Format::Fbk, Some(Target::Stream(mut out))) => {
                let (bytes, issues) = if self.format == Format::Pgc {
                    pgc::write_pgc(&self.pending)
                } else {
                    chessbase::write_fbk(&self.pending)
                };
                out.write_all(&bytes)?;
                out.flush()?;
                issues
            }
            (_, Some(Target::Stream(mut out))) => {
                out.flush()?;
                Vec::new()
            }
            _ => Vec::new(),
        };
        Ok(issues
            .iter()
            .map(|issue| {
                let mut d = issue_diagnostic(issue, &self.name, None);
                // Name the game by its input, number and line.
                if let Some(g) = issue.game
                    && let Some((source, number, line)) = self.sources.get(g.wrapping_sub(1))
                {
                    d.path = Some(source.clone());
                    d.location = LineCol {
                        line: *line,
                        column: u64::from(*line > 0),
                    };
                    d.game = Some(*number);
                    d.message = format!(
                        "{} game {number}: {} (writing {})",
                        self.format, issue.message, self.name
                    );
                    d.offset = None;
                    if issue.severity == Severity::Warning {
                        d.code = Code::Loss;
                    }
                }
                d
            })
            .collect())
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::write(path, bytes)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// The warning for characters the output encoding cannot hold, naming
/// them (`'ł' U+0142`; at most 5, then how many more).
pub fn unrepresentable_warning(encoding: Encoding, text: &str) -> String {
    let chars = encoding.unrepresentable(text);
    let mut names: Vec<String> = chars
        .iter()
        .take(5)
        .map(|&c| format!("'{c}' U+{:04X}", u32::from(c)))
        .collect();
    if chars.len() > 5 {
        names.push(format!("{} more", chars.len() - 5));
    }
    format!(
        "{encoding} cannot represent {}: written as ?",
        names.join(", ")
    )
}
