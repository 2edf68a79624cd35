//! One writer for every chess format, stating what each target cannot hold.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use crate::chessbase::{CbfWriter, FbkWriter, Issue};
use crate::diag::{Code, Diagnostic, LineCol, Severity};
use crate::epd::{self, convert::GameToEpd};
use crate::model::Game;
use crate::pgc::PgcWriter;
use crate::pgn::{self, Encoding};

use super::Format;
use super::atomic::{AtomicFile, commit_all};
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
    /// Stdout or a buffer.
    Stream(Box<dyn Write + Send + 'w>),
    /// A file put into place by [`GameWriter::finish`].
    File(AtomicFile),
    /// A CBF game file and its CBI index, put into place together.
    Pair { cbf: AtomicFile, cbi: AtomicFile },
}

impl Target<'_> {
    fn out(&mut self) -> &mut dyn Write {
        match self {
            Target::Stream(out) => out,
            Target::File(file) | Target::Pair { cbf: file, .. } => file,
        }
    }
}

/// The state of a binary format's writer between games.
enum Binary {
    Text,
    Pgc(PgcWriter),
    Cbf(CbfWriter),
    Fbk(Box<FbkWriter>),
}

/// Writes games and records in one chess format, game by game: memory holds
/// one game whatever the input's size (an FBK file is one tree merged from
/// all games, written at [`GameWriter::finish`]: memory grows with the
/// tree's distinct lines only; a CBF's index is written at the end from 4
/// bytes a game). A file is written beside its target under a temporary
/// name and put into place by [`GameWriter::finish`] (a CBF and its CBI
/// together); dropped without `finish`, or by [`GameWriter::discard`], the
/// writer leaves the old files as they were and nothing beside them.
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
    target: Target<'w>,
    opts: WriteOptions,
    binary: Binary,
    name: String,
    buf: Vec<u8>,
}

impl GameWriter<'static> {
    /// A writer creating `path` in `format` (a CBF path writes the `.cbf`
    /// and its `.cbi`), beside it under a temporary name until
    /// [`GameWriter::finish`]. SGF is not a chess format and is refused.
    pub fn create(
        path: &Path,
        format: Format,
        opts: &WriteOptions,
    ) -> Result<GameWriter<'static>, OpenError> {
        let name = path.display().to_string();
        if format.is_table() {
            return Err(OpenError::new(
                name,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{format} tables are written by gamerec-arrow's TableWriter"),
                ),
            ));
        }
        if format == Format::Sgf {
            return Err(OpenError::new(
                name,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "SGF holds no chess games: cannot write chess to SGF",
                ),
            ));
        }
        let open = |p: &Path| {
            AtomicFile::create_unnamed(p).map_err(|e| OpenError::new(p.display().to_string(), e))
        };
        let target = if format == Format::Cbf {
            let (cbf, cbi) = cbf_pair(path);
            Target::Pair {
                cbf: open(&cbf)?,
                cbi: open(&cbi)?,
            }
        } else {
            Target::File(open(path)?)
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
        if matches!(format, Format::Cbf | Format::Sgf) || format.is_table() {
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
        let binary = match format {
            Format::Pgc => Binary::Pgc(PgcWriter::default()),
            Format::Cbf => Binary::Cbf(CbfWriter::default()),
            Format::Fbk => Binary::Fbk(Box::default()),
            _ => Binary::Text,
        };
        GameWriter {
            format,
            target,
            opts: opts.clone(),
            binary,
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
        if !self.takes(item)
            && let Record::Game(g) = &item.record
            && let Some(variant) = g.variant()
        {
            // PGC, ChessBase, FBK, EPD and FEN have no way to say the rules.
            say(vec![format!(
                "a {} game cannot be written to {}: left out",
                crate::variant::lichess_name(variant),
                self.format
            )]);
            return Ok(losses);
        }
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
                // A game is written as it is (a clone of it was the
                // model's memory again, at every game); a position becomes
                // a game first.
                let converted;
                let game = match record {
                    Record::Game(g) => g,
                    Record::Position(r) => {
                        let epd::convert::Converted { value, warnings } =
                            epd::convert::record_to_game(r);
                        say(warnings);
                        converted = value;
                        &converted
                    }
                };
                let game = self.prepared(game);
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
                        let issues = match &mut self.binary {
                            Binary::Pgc(w) => w.write(&game, &mut self.buf),
                            Binary::Cbf(w) => w.write(&game, &mut self.buf),
                            Binary::Fbk(w) => w.add(&game),
                            Binary::Text => Vec::new(),
                        };
                        for issue in &issues {
                            losses.push(binary_diagnostic(
                                issue,
                                self.format,
                                &self.name,
                                source,
                                item,
                            ));
                        }
                    }
                }
            }
        }
        if !self.buf.is_empty() {
            self.target.out().write_all(&self.buf)?;
        }
        Ok(losses)
    }

    /// Whether [`GameWriter::write`] writes `item` (else it is left out
    /// with a loss): a lichess variant game goes to PGN and JSON only.
    pub fn takes(&self, item: &Item) -> bool {
        match &item.record {
            Record::Game(g) => {
                matches!(self.format, Format::Pgn | Format::Json) || g.variant().is_none()
            }
            Record::Position(_) => true,
        }
    }

    fn prepared<'g>(&self, game: &'g Game) -> Cow<'g, Game> {
        if !self.opts.strip_commands {
            return Cow::Borrowed(game);
        }
        let mut game = game.clone();
        pgn::commands::strip_game_commands(&mut game);
        Cow::Owned(game)
    }

    /// Writes what is left (an FBK tree, a CBF's index), flushes, and puts
    /// a file into place (a CBF and its CBI together). Losses were returned
    /// game by game; this returns none and is kept for callers that gather
    /// them.
    pub fn finish(mut self) -> io::Result<Vec<Diagnostic>> {
        match &self.binary {
            Binary::Fbk(w) => {
                let bytes = w.finish();
                self.target.out().write_all(&bytes)?;
            }
            Binary::Cbf(w) => {
                if let Target::Pair { cbi, .. } = &mut self.target {
                    cbi.write_all(&w.index())?;
                }
            }
            Binary::Pgc(_) | Binary::Text => {}
        }
        match self.target {
            Target::Stream(mut out) => out.flush()?,
            Target::File(file) => file.commit()?,
            Target::Pair { cbf, cbi } => commit_all(vec![cbf, cbi])?,
        }
        Ok(Vec::new())
    }

    /// Gives up: a file's target (and a CBF's CBI) is left as it was and
    /// the temporary files are removed, as when the writer is dropped; a
    /// stream is flushed (what was written stays written).
    pub fn discard(self) -> io::Result<()> {
        match self.target {
            Target::Stream(mut out) => out.flush(),
            Target::File(_) | Target::Pair { .. } => Ok(()),
        }
    }
}

/// A binary writer's issue about the game `item` of input `source`, named
/// by that input, game number and line.
fn binary_diagnostic(
    issue: &Issue,
    format: Format,
    output: &str,
    source: &str,
    item: &Item,
) -> Diagnostic {
    let mut d = issue_diagnostic(issue, output, None);
    d.path = Some(source.to_string());
    d.location = LineCol {
        line: item.line,
        column: u64::from(item.line > 0),
    };
    d.game = Some(item.number);
    d.message = format!(
        "{format} game {}: {} (writing {output})",
        item.number, issue.message
    );
    d.offset = None;
    if issue.severity == Severity::Warning {
        d.code = Code::Loss;
    }
    d
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
