//! The games and positions tables straight from the PGN reader's events:
//! no [`Game`] is built for a plain game. Tags are kept as slices until the movetext
//! begins; each main-line move is read with the library's SAN reader and
//! played on one position; its UCI and canonical SAN go straight into the
//! column buffers, its comments are scanned for `[%clk]`, `[%emt]` and
//! `[%eval]` in place, and the movetext column is written token by token
//! in the export form the model path writes (one line, canonical SAN, NAGs
//! before comments).
//!
//! The moves, FEN tag and variations are checked exactly as
//! [`GameBuilder`] checks them, so the same games fail with the same
//! messages. A game the streaming path does not write itself — one with a
//! variation, a tag or comment that is not UTF-8 (the game is then read as
//! Latin-1), a `;` comment holding `}` — is read again from its bytes with
//! [`GameBuilder`] and appended through [`GamesBuilder::append`] (or
//! [`PositionsBuilder::append`]); the rows are the same either way (a test
//! compares both paths on every corpus file).

use std::ops::ControlFlow;
use std::ops::Range;

use gamerec::excerpt::excerpt;
use gamerec::fen::read_fen_bytes;
use gamerec::io::read::is_cut_off_tag_section;
use gamerec::model::{Game, GameResult, PlyMove, play_ply};
use gamerec::pgn::{
    ChunkView, Flow, GameBuilder, GameEnd, GameStart, RawValue, Skip, SkipAll, SliceReader, Stop,
    Visitor,
};
use gamerec::san::{ReadOptions, read_san, write_san_given_after};
use shakmaty::san::San;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, Chess, Color, Position};

use crate::columns::Strings;
use crate::games::{GamesBuilder, Mark};
use crate::positions::{GameValues, PositionFilter, PositionsBuilder, push_decimal};
use crate::values::{self, PlyNotes};

/// The tags of the game being read: names and unescaped values (UTF-8),
/// in file order.
pub(crate) struct TagList<'a> {
    bytes: &'a [u8],
    ranges: &'a [(Range<usize>, Range<usize>)],
}

impl<'a> TagList<'a> {
    /// The pairs in file order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'a str, &'a str)> + Clone + 'a {
        let bytes = self.bytes;
        self.ranges.iter().map(move |(n, v)| {
            (
                std::str::from_utf8(&bytes[n.clone()]).unwrap_or(""),
                std::str::from_utf8(&bytes[v.clone()]).unwrap_or(""),
            )
        })
    }

    /// The value of the first tag called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        // Names are compared as bytes: only the value found is decoded.
        let bytes = self.bytes;
        self.ranges
            .iter()
            .find(|(n, _)| &bytes[n.clone()] == name.as_bytes())
            .map(|(_, v)| std::str::from_utf8(&bytes[v.clone()]).unwrap_or(""))
    }
}

/// Where a [`RowsVisitor`] puts what it reads: the games or the positions
/// table.
pub(crate) trait Sink {
    /// Whether the movetext column is kept: the positions table has none,
    /// so its rows skip writing one (move numbers, NAG and comment tokens).
    const MOVETEXT: bool = true;
    /// Makes room for the rows of about `bytes` of PGN.
    fn reserve_for(&mut self, bytes: usize);
    /// Where the columns stand at a game's start.
    fn mark(&mut self) -> Mark;
    /// Drops what was stored since `mark`.
    fn rollback(&mut self, mark: Mark);
    /// Whether the game with these tags gets rows.
    fn accepts(&self, tags: &TagList<'_>) -> bool;
    /// The movetext being written.
    fn movetext(&mut self) -> &mut Strings;
    /// The SAN column (one value per ply).
    fn san(&mut self) -> &mut Strings;
    /// The UCI column (one value per ply).
    fn uci(&mut self) -> &mut Strings;
    /// The position before the next move.
    fn before_move(&mut self, pos: &Chess);
    /// The position before the next move of a variant game.
    fn before_variant_move(&mut self, _pos: &VariantPosition) {}
    /// The notes and NAGs of the last ply.
    fn push_notes(&mut self, notes: &PlyNotes, nags: &[u8]);
    /// Ends the game's row(s).
    fn end_row(&mut self, id: u64, tags: &TagList<'_>, marker: Option<GameResult>);
    /// Appends a game built through the model.
    fn append_model(&mut self, id: u64, game: &mut Game);
}

impl Sink for GamesBuilder {
    fn reserve_for(&mut self, bytes: usize) {
        GamesBuilder::reserve_for(self, bytes);
    }
    fn mark(&mut self) -> Mark {
        GamesBuilder::mark(self)
    }
    fn rollback(&mut self, mark: Mark) {
        self.truncate(mark);
    }
    fn accepts(&self, _: &TagList<'_>) -> bool {
        true
    }
    fn movetext(&mut self) -> &mut Strings {
        &mut self.movetext
    }
    fn san(&mut self) -> &mut Strings {
        &mut self.san
    }
    fn uci(&mut self) -> &mut Strings {
        &mut self.uci
    }
    fn before_move(&mut self, _: &Chess) {}
    fn push_notes(&mut self, notes: &PlyNotes, nags: &[u8]) {
        GamesBuilder::push_notes(self, notes, nags);
    }
    fn end_row(&mut self, id: u64, tags: &TagList<'_>, marker: Option<GameResult>) {
        GamesBuilder::end_row(self, id, tags.iter(), marker.map(|r| r.as_str()));
    }
    fn append_model(&mut self, id: u64, game: &mut Game) {
        self.append(id, game);
    }
}

/// The games table with a filter: the games it leaves out get no row.
pub(crate) struct GameRows<'a> {
    pub(crate) rows: GamesBuilder,
    pub(crate) filter: &'a PositionFilter,
}

impl Sink for GameRows<'_> {
    fn reserve_for(&mut self, bytes: usize) {
        self.rows.reserve_for(bytes);
    }
    fn mark(&mut self) -> Mark {
        self.rows.mark()
    }
    fn rollback(&mut self, mark: Mark) {
        self.rows.truncate(mark);
    }
    fn accepts(&self, tags: &TagList<'_>) -> bool {
        self.filter.accepts_tags(|name| tags.get(name))
    }
    fn movetext(&mut self) -> &mut Strings {
        &mut self.rows.movetext
    }
    fn san(&mut self) -> &mut Strings {
        &mut self.rows.san
    }
    fn uci(&mut self) -> &mut Strings {
        &mut self.rows.uci
    }
    fn before_move(&mut self, _: &Chess) {}
    fn push_notes(&mut self, notes: &PlyNotes, nags: &[u8]) {
        self.rows.push_notes(notes, nags);
    }
    fn end_row(&mut self, id: u64, tags: &TagList<'_>, marker: Option<GameResult>) {
        self.rows
            .end_row(id, tags.iter(), marker.map(|r| r.as_str()));
    }
    fn append_model(&mut self, id: u64, game: &mut Game) {
        if self.filter.accepts(game) {
            self.rows.append(id, game);
        }
    }
}

/// The positions table with its filter.
pub(crate) struct PositionRows<'a> {
    pub(crate) rows: PositionsBuilder,
    pub(crate) filter: &'a PositionFilter,
}

impl Sink for PositionRows<'_> {
    const MOVETEXT: bool = false;
    fn reserve_for(&mut self, bytes: usize) {
        self.rows.reserve_for(bytes);
    }
    fn mark(&mut self) -> Mark {
        self.rows.movetext.truncate(0);
        Mark::default()
    }
    fn rollback(&mut self, _: Mark) {
        self.rows.drop_game();
    }
    fn accepts(&self, tags: &TagList<'_>) -> bool {
        self.filter.accepts_tags(|name| tags.get(name))
    }
    fn movetext(&mut self) -> &mut Strings {
        &mut self.rows.movetext
    }
    fn san(&mut self) -> &mut Strings {
        &mut self.rows.san
    }
    fn uci(&mut self) -> &mut Strings {
        &mut self.rows.uci
    }
    fn before_move(&mut self, pos: &Chess) {
        self.rows.push_position(pos);
    }
    fn before_variant_move(&mut self, pos: &VariantPosition) {
        self.rows.push_variant_position(pos);
    }
    fn push_notes(&mut self, notes: &PlyNotes, _: &[u8]) {
        self.rows.push_notes(notes);
    }
    fn end_row(&mut self, id: u64, tags: &TagList<'_>, marker: Option<GameResult>) {
        let values = GameValues {
            result: tags.get("Result").or(marker.map(|r| r.as_str())),
            white_elo: tags.get("WhiteElo").and_then(values::parse_int),
            black_elo: tags.get("BlackElo").and_then(values::parse_int),
            time_control: tags.get("TimeControl"),
        };
        self.rows.end_game(id, &values);
    }
    fn append_model(&mut self, id: u64, game: &mut Game) {
        if self.filter.accepts(game) {
            self.rows.append(id, game);
        }
    }
}

/// What became of one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A row was appended.
    Row,
    /// The game failed (the reader reported why).
    Failed,
    /// The input's last game is a tag section cut off before any move.
    CutOff,
}

/// A position to come back to after a variation.
#[derive(Debug, Clone)]
struct Frame {
    pos: Chess,
    before: Chess,
    ply: u32,
}

/// Fills a table ([`Sink`]) from the games of one chunk.
pub(crate) struct RowsVisitor<'c, S: Sink> {
    chunk: ChunkView<'c>,
    pub(crate) out: S,
    /// Rows appended (the next row's id).
    pub(crate) rows: u64,
    /// Where each game given an id starts in the input (by id).
    pub(crate) offsets: Vec<u64>,
    mark: Mark,
    /// Unescaped tag names and values, end to end, and their ranges.
    tag_bytes: Vec<u8>,
    tags: Vec<(Range<usize>, Range<usize>)>,
    /// The first `FEN` and `Variant` tags.
    fen_tag: Option<usize>,
    variant_tag: Option<usize>,
    /// The game is appended through the model instead.
    model: bool,
    /// The game is read (and checked) but gets no row (the filter).
    skip: bool,
    pos: Chess,
    before: Chess,
    /// Plies from the start to the current move (0: none yet).
    ply: u32,
    stack: Vec<Frame>,
    start_ply: u32,
    mode: CastlingMode,
    /// A comment right after a move goes to that move.
    after_move: bool,
    /// The next black move is written with its number (`12...`).
    force: bool,
    /// Whether the current ply's notes and NAGs are still to be stored.
    open: bool,
    notes: PlyNotes,
    nags: Vec<u8>,
    /// The current ply's comment tokens (` {text}`), written after its NAGs.
    tail: Vec<u8>,
    root_comments: bool,
    builder: GameBuilder,
    san: String,
    san_bytes: Vec<u8>,
    /// The position of a game played by a lichess variant's rules (its
    /// `Variant` tag), which is read on this instead of `pos`.
    variant: Option<VariantPosition>,
}

impl<'c, S: Sink> RowsVisitor<'c, S> {
    /// A visitor of `chunk`'s games appending to `out`, numbering games
    /// from 0.
    pub(crate) fn new(chunk: ChunkView<'c>, mut out: S) -> Self {
        // Room for a usual chunk's rows; a chunk made long by one huge game
        // grows its buffers as it goes.
        out.reserve_for(chunk.data.len().min(4 << 20));
        RowsVisitor {
            chunk,
            out,
            rows: 0,
            offsets: Vec::new(),
            mark: Mark::default(),
            tag_bytes: Vec::new(),
            tags: Vec::new(),
            fen_tag: None,
            variant_tag: None,
            model: false,
            skip: false,
            pos: Chess::default(),
            before: Chess::default(),
            ply: 0,
            stack: Vec::new(),
            start_ply: 0,
            mode: CastlingMode::Standard,
            after_move: false,
            force: true,
            open: false,
            notes: PlyNotes::default(),
            nags: Vec::new(),
            tail: Vec::new(),
            root_comments: false,
            builder: GameBuilder::default(),
            san: String::new(),
            san_bytes: Vec::new(),
            variant: None,
        }
    }

    /// The value of the tag at `index` in [`RowsVisitor::tags`].
    fn tag_value(&self, index: Option<usize>) -> Option<&[u8]> {
        let (_, value) = self.tags.get(index?)?;
        Some(&self.tag_bytes[value.clone()])
    }

    /// Separates the next movetext token from the one before.
    fn space(&mut self) {
        if !S::MOVETEXT {
            return;
        }
        let text = self.out.movetext();
        if text.bytes.len() > text.value_start() {
            text.bytes.push(b' ');
        }
    }

    /// Writes the number token of main-line ply `ply` after a space: `12. `
    /// before White's move, `12... ` before Black's where one is due.
    fn move_number(&mut self, ply: u32) {
        if !S::MOVETEXT {
            return;
        }
        self.space();
        let abs = self.start_ply + ply;
        let force = self.force;
        let text = &mut self.out.movetext().bytes;
        if abs.is_multiple_of(2) {
            push_decimal(text, abs / 2 + 1);
            text.push(b'.');
            text.push(b' ');
        } else if force {
            push_decimal(text, abs / 2 + 1);
            text.extend_from_slice(b"... ");
        }
    }

    /// Stores the current ply's notes and NAGs and writes their tokens.
    fn close_ply(&mut self) {
        if !self.open {
            return;
        }
        self.open = false;
        self.out.push_notes(&self.notes, &self.nags);
        if !S::MOVETEXT {
            return;
        }
        let text = &mut self.out.movetext().bytes;
        for &nag in &self.nags {
            text.extend_from_slice(b" $");
            push_decimal(text, u32::from(nag));
        }
        text.extend_from_slice(&self.tail);
        self.force = !self.nags.is_empty() || !self.tail.is_empty();
    }

    /// The game read again from its bytes and appended through the model.
    fn append_through_model(&mut self, end: &GameEnd<'_>) -> Outcome {
        let start = (end.offset - self.chunk.offset) as usize;
        let mut reader = SliceReader::with_offset(&self.chunk.data[start..], end.offset)
            .followed_by_game(self.chunk.followed_by_game);
        let game = reader.read_game(&mut self.builder).flatten();
        let Some(mut game) = game else {
            debug_assert!(false, "a game that read once reads again");
            return Outcome::Failed;
        };
        if is_cut_off_tag_section(&game, reader.truncated() && self.chunk.last) {
            return Outcome::CutOff;
        }
        self.out.append_model(self.rows, &mut game);
        self.rows += 1;
        self.offsets.push(end.offset);
        Outcome::Row
    }

    /// Starts a game of a lichess variant: its start position (the `FEN`
    /// tag read by the variant's rules, else the variant's own).
    fn begin_variant(&mut self, variant: Variant) -> Flow {
        self.variant = Some(VariantPosition::new(variant));
        if self.model {
            return self.unsupported("a tag that is not UTF-8");
        }
        let start = match gamerec::variant::start_position(variant, self.tag_value(self.fen_tag)) {
            Ok(pos) => pos,
            Err(e) => {
                return Flow::Break(Stop::Invalid(
                    gamerec::diag::Code::Position,
                    format!("invalid FEN tag: {e}"),
                ));
            }
        };
        self.mode = CastlingMode::Standard;
        self.start_ply = (start.fullmoves().get().saturating_sub(1)) * 2
            + u32::from(start.turn() == Color::Black);
        self.variant = Some(start);
        let tags = TagList {
            bytes: &self.tag_bytes,
            ranges: &self.tags,
        };
        self.skip = !self.out.accepts(&tags);
        Flow::Continue(())
    }

    /// Stops a variant game at something only the model path writes.
    fn unsupported(&self, what: &str) -> Flow {
        let variant = self
            .variant
            .as_ref()
            .map_or(Variant::Chess, |p| p.variant());
        Flow::Break(Stop::Invalid(
            gamerec::diag::Code::Other,
            format!("{what} is not supported in {variant} games"),
        ))
    }

    /// Reads and plays a move of a variant game ([`Visitor::san`]).
    fn variant_san(&mut self, text: &[u8]) -> Flow {
        let Some(mut pos) = self.variant.take() else {
            return Flow::Continue(());
        };
        let flow = self.play_variant(&mut pos, text);
        self.variant = Some(pos);
        flow
    }

    fn play_variant(&mut self, pos: &mut VariantPosition, text: &[u8]) -> Flow {
        let (m, nag) = match gamerec::variant::read_move(pos, text) {
            Ok(read) => read,
            Err((code, message)) => return Flow::Break(Stop::Invalid(code, message)),
        };
        let ply = self.ply;
        self.ply += 1;
        self.after_move = true;
        if self.skip {
            gamerec::variant::play(pos, m);
            return Flow::Continue(());
        }
        self.close_ply();
        self.out.before_variant_move(pos);
        let san = San::from_move(pos, m);
        gamerec::variant::play(pos, m);
        self.move_number(ply);
        self.san.clear();
        san.append_to_string(&mut self.san);
        // python-chess's mark (`#` also after a variant's win).
        self.san.extend(gamerec::variant::suffix(pos));
        self.out
            .movetext()
            .bytes
            .extend_from_slice(self.san.as_bytes());
        self.out.san().push(self.san.as_bytes());
        let uci = self.out.uci();
        values::uci_bytes(PlyMove::Move(m), CastlingMode::Standard, &mut uci.bytes);
        uci.end_value();
        self.open = true;
        self.notes = PlyNotes::default();
        self.nags.clear();
        self.nags.extend(nag);
        self.tail.clear();
        Flow::Continue(())
    }

    /// Whether the game just read (tags only) ends the input, cut off.
    fn cut_at_end(&self, end: &GameEnd<'_>) -> bool {
        if !self.chunk.last {
            return false;
        }
        let start = (end.offset - self.chunk.offset) as usize;
        let mut reader = SliceReader::with_offset(&self.chunk.data[start..], end.offset);
        reader.read_game(&mut SkipAll);
        reader.truncated()
    }
}

/// `text` with every whitespace run replaced by one space (the builder's
/// comment normal form), appended.
fn push_normalized(out: &mut Vec<u8>, text: &[u8]) {
    let mut in_space = false;
    for &b in text {
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            if !in_space {
                out.push(b' ');
            }
            in_space = true;
        } else {
            out.push(b);
            in_space = false;
        }
    }
}

/// The move text without its suffix annotation and check mark.
fn san_core(text: &[u8]) -> &[u8] {
    let mut end = text.len();
    while end > 0 && matches!(text[end - 1], b'!' | b'?') {
        end -= 1;
    }
    if end > 0 && matches!(text[end - 1], b'+' | b'#') {
        end -= 1;
    }
    &text[..end]
}

impl<S: Sink> Visitor for RowsVisitor<'_, S> {
    type Output = Outcome;

    fn begin_game(&mut self, _: GameStart) -> Flow {
        self.mark = self.out.mark();
        self.tag_bytes.clear();
        self.tags.clear();
        self.fen_tag = None;
        self.variant_tag = None;
        self.model = false;
        self.skip = false;
        self.pos = Chess::default();
        self.before = Chess::default();
        self.ply = 0;
        self.stack.clear();
        self.start_ply = 0;
        self.mode = CastlingMode::Standard;
        self.after_move = false;
        self.force = true;
        self.open = false;
        self.root_comments = false;
        self.variant = None;
        Flow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: RawValue<'_>) -> Flow {
        let value = value.unescape();
        // Names are ASCII (the reader takes only letters, digits and
        // `_+#=:-` in them).
        if std::str::from_utf8(&value).is_err() {
            self.model = true;
        }
        match name {
            b"FEN" if self.fen_tag.is_none() => self.fen_tag = Some(self.tags.len()),
            b"Variant" if self.variant_tag.is_none() => self.variant_tag = Some(self.tags.len()),
            _ => {}
        }
        let n = self.tag_bytes.len();
        self.tag_bytes.extend_from_slice(name);
        let v = self.tag_bytes.len();
        self.tag_bytes.extend_from_slice(&value);
        self.tags.push((n..v, v..self.tag_bytes.len()));
        Flow::Continue(())
    }

    fn begin_movetext(&mut self) -> Flow {
        if let Some(value) = self.tag_value(self.variant_tag) {
            let variant = std::str::from_utf8(value)
                .map_err(|_| ())
                .and_then(values::variant_of);
            match variant {
                Ok(None) => {}
                Ok(Some(variant)) => return self.begin_variant(variant),
                Err(()) => {
                    let (code, message) = gamerec::variant::unsupported(value);
                    return Flow::Break(Stop::Invalid(code, message));
                }
            }
        }
        let mut start = Chess::default();
        let mut mode = CastlingMode::Standard;
        if let Some(fen) = self.tag_value(self.fen_tag) {
            let text = String::from_utf8_lossy(fen);
            match read_fen_bytes(text.as_bytes()) {
                Ok((pos, m)) => {
                    start = pos;
                    mode = m;
                }
                Err(e) => {
                    return Flow::Break(Stop::Invalid(
                        gamerec::diag::Code::Position,
                        format!("invalid FEN tag: {e}"),
                    ));
                }
            }
        }
        let chess960 = self
            .tag_value(self.variant_tag)
            .is_some_and(|v| std::str::from_utf8(v).is_ok_and(values::names_chess960));
        self.mode = if chess960 {
            CastlingMode::Chess960
        } else {
            mode
        };
        self.start_ply = (start.fullmoves().get().saturating_sub(1)) * 2
            + u32::from(start.turn() == Color::Black);
        self.before = start.clone();
        self.pos = start;
        let tags = TagList {
            bytes: &self.tag_bytes,
            ranges: &self.tags,
        };
        self.skip = !self.model && !self.out.accepts(&tags);
        Flow::Continue(())
    }

    fn san(&mut self, san: &[u8], _offset: u64) -> Flow {
        if self.variant.is_some() {
            return self.variant_san(san);
        }
        let read = match read_san(&self.pos, san, &ReadOptions::default()) {
            Ok(read) => read,
            Err(e) => {
                return Flow::Break(Stop::Invalid(
                    e.kind.into(),
                    format!("illegal move {}: {e}", excerpt(san)),
                ));
            }
        };
        let ply = self.ply;
        self.ply += 1;
        self.after_move = true;
        if self.model || self.skip || !self.stack.is_empty() {
            self.before = self.pos.clone();
            self.pos = play_ply(&self.pos, read.mv);
            return Flow::Continue(());
        }
        self.close_ply();
        self.out.before_move(&self.pos);
        self.before = self.pos.clone();
        match read.mv {
            PlyMove::Move(m) => self.pos.play_unchecked(m),
            PlyMove::Null => self.pos = play_ply(&self.pos, read.mv),
        }
        // The canonical SAN, written into the SAN column, then (games
        // table) the move's tokens: number, SAN.
        let column = self.out.san();
        let san_start = column.bytes.len();
        match read.mv {
            PlyMove::Move(_) if read.tolerated.is_empty() => {
                column.bytes.extend_from_slice(san_core(san));
                if self.pos.is_check() {
                    // Legal moves are generated only here: `check_suffix`
                    // asks for the game's outcome after every move.
                    let mark = if self.pos.is_checkmate() { b'#' } else { b'+' };
                    column.bytes.push(mark);
                }
            }
            mv => {
                self.san.clear();
                write_san_given_after(&self.before, mv, &self.pos, &mut self.san);
                column.bytes.extend_from_slice(self.san.as_bytes());
            }
        }
        column.end_value();
        debug_assert_eq!(
            &column.bytes[san_start..],
            gamerec::san::write_san(&self.before, read.mv).as_bytes(),
            "the SAN written is canonical"
        );
        if S::MOVETEXT {
            self.san_bytes.clear();
            self.san_bytes
                .extend_from_slice(&self.out.san().bytes[san_start..]);
            self.move_number(ply);
            self.out.movetext().bytes.extend_from_slice(&self.san_bytes);
        }
        let uci = self.out.uci();
        values::uci_bytes(read.mv, self.mode, &mut uci.bytes);
        uci.end_value();
        self.open = true;
        self.notes = PlyNotes::default();
        self.nags.clear();
        self.nags.extend(read.nag);
        self.tail.clear();
        Flow::Continue(())
    }

    fn nag(&mut self, nag: u8) -> Flow {
        if self.model || self.skip || self.ply == 0 {
            return Flow::Continue(());
        }
        if self.open && self.after_move {
            self.nags.push(nag);
        } else if self.variant.is_some() {
            return self.unsupported("a NAG after a comment");
        } else {
            self.model = true;
        }
        Flow::Continue(())
    }

    fn comment(&mut self, text: &[u8]) -> Flow {
        if self.model || self.skip {
            if self.ply == 0 {
                self.root_comments = true;
            }
            return Flow::Continue(());
        }
        if memchr::memchr(b'}', text).is_some() || std::str::from_utf8(text).is_err() {
            if self.variant.is_some() {
                return self.unsupported("a comment that is not UTF-8 or holds '}'");
            }
            self.model = true;
            return Flow::Continue(());
        }
        if self.after_move && self.open {
            self.tail.extend_from_slice(b" {");
            let from = self.tail.len();
            push_normalized(&mut self.tail, text);
            // UTF-8 checked above; the normalizing changed ASCII bytes only.
            self.notes.add_comment_bytes(&self.tail[from..]);
            self.tail.push(b'}');
        } else if self.ply == 0 && self.stack.is_empty() {
            self.root_comments = true;
            if !S::MOVETEXT {
                return Flow::Continue(());
            }
            self.space();
            let out = &mut self.out.movetext().bytes;
            out.push(b'{');
            push_normalized(out, text);
            out.push(b'}');
        } else if self.variant.is_some() {
            return self.unsupported("a comment between moves");
        } else {
            self.model = true;
        }
        Flow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<Stop, Skip> {
        if self.ply == 0 {
            return ControlFlow::Break(Stop::Error("variation before any move".into()));
        }
        if self.variant.is_some() {
            return match self.unsupported("a variation") {
                ControlFlow::Break(stop) => ControlFlow::Break(stop),
                ControlFlow::Continue(()) => ControlFlow::Continue(Skip(true)),
            };
        }
        self.model = true;
        let before = self.before.clone();
        self.stack.push(Frame {
            pos: std::mem::replace(&mut self.pos, before),
            before: self.before.clone(),
            ply: self.ply,
        });
        self.ply -= 1;
        self.after_move = false;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> Flow {
        if let Some(frame) = self.stack.pop() {
            self.pos = frame.pos;
            self.before = frame.before;
            self.ply = frame.ply;
        }
        self.after_move = false;
        Flow::Continue(())
    }

    fn end_game(&mut self, end: GameEnd<'_>) -> Outcome {
        if end.failed {
            self.out.rollback(self.mark);
            return Outcome::Failed;
        }
        if self.model {
            self.out.rollback(self.mark);
            return self.append_through_model(&end);
        }
        self.close_ply();
        if end.result.is_none()
            && self.ply == 0
            && !self.root_comments
            && !self.tags.is_empty()
            && self.cut_at_end(&end)
        {
            self.out.rollback(self.mark);
            return Outcome::CutOff;
        }
        if self.skip {
            self.rows += 1;
            self.offsets.push(end.offset);
            return Outcome::Row;
        }
        // The model path exports the movetext without the tags, so a game
        // without a termination marker ends with `*`, whatever its Result tag.
        if S::MOVETEXT {
            self.space();
            let marker = end.result.unwrap_or(GameResult::Unknown);
            self.out
                .movetext()
                .bytes
                .extend_from_slice(marker.as_str().as_bytes());
        }
        let tags = TagList {
            bytes: &self.tag_bytes,
            ranges: &self.tags,
        };
        self.out.end_row(self.rows, &tags, end.result);
        self.rows += 1;
        self.offsets.push(end.offset);
        Outcome::Row
    }
}
