//! CBF/CBI writer (the job of ChessBase's pgn2cb): [`Game`]s to a game file
//! and its index, reporting per game everything that does not fit.

use shakmaty::{CastlingMode, Chess, Position};

use super::comments::{
    CbComment, POS_NAGS, emit_comment, encode_text, evals_to_nags, nags_to_evals, take_cbeval,
};
use super::header::{Header, eco_code};
use super::index::write_index;
use super::moves::encode_moves;
use super::order::CbPosition;
use super::reader::{POS_SYMBOLS, decode_result, describe_node, split_players, split_source};
use super::setup::write_setup;
use super::text::{cp850_byte, xor_moves, xor_text};
use super::{FileKind, Issue};
use crate::model::{Game, GameResult, NodeId};

/// The most half-moves (with variations) the 1993 text allows.
pub const MAX_HALF_MOVES: usize = 250;
/// The longest player or source text.
pub const MAX_TEXT: usize = 63;

/// A written CBF/CBI pair.
#[derive(Debug, Clone, Default)]
pub struct CbfFiles {
    /// The game file.
    pub cbf: Vec<u8>,
    /// The index file.
    pub cbi: Vec<u8>,
    /// Everything that did not fit, per game (`offset` is the game's offset in the CBF file).
    pub issues: Vec<Issue>,
    /// How many games were written (games with an error are left out).
    pub written: usize,
}

/// The player text the reader splits back into `white` and `black`.
pub fn player_text(white: &str, black: &str) -> String {
    let name = |s: &str| {
        if s == "?" {
            String::new()
        } else {
            s.to_string()
        }
    };
    let (w, b) = (name(white), name(black));
    if b.is_empty() && !w.contains('-') {
        return w;
    }
    if w.contains('-') || b.contains('-') {
        format!("{w} - {b}")
    } else {
        format!("{w}-{b}")
    }
}

/// The source text the reader splits back into `event` and `round`.
pub fn source_text(event: &str, round: &str) -> String {
    let event = if event == "?" { "" } else { event };
    if round_fits(round) {
        if event.is_empty() {
            format!("({round})")
        } else {
            format!("{event} ({round})")
        }
    } else {
        event.to_string()
    }
}

fn round_fits(round: &str) -> bool {
    !round.is_empty()
        && round
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '\\'))
}

/// The number of moves (not half-moves) of the main line, as byte 12 holds it.
pub fn move_count(game: &Game) -> u8 {
    let plies = game.tree.mainline_len() + usize::from(game.start.turn().is_black());
    plies.div_ceil(2).min(255) as u8
}

/// Writes `games` as a CBF game file and its CBI index. A game that cannot
/// be stored at all (an error issue) is left out; the others are written
/// with a warning for each thing that did not fit. [`CbfWriter`] does the
/// same game by game.
pub fn write_cbf(games: &[Game]) -> CbfFiles {
    let mut files = CbfFiles::default();
    let mut writer = CbfWriter::default();
    for game in games {
        let issues = writer.write(game, &mut files.cbf);
        files.issues.extend(issues);
    }
    files.written = writer.written();
    files.cbi = writer.index();
    files
}

/// Writes a CBF game file one game at a time and keeps only what its CBI
/// index needs (4 bytes a game), given by [`CbfWriter::index`] at the end.
#[derive(Debug, Clone, Default)]
pub struct CbfWriter {
    games: usize,
    len: u64,
    offsets: Vec<u32>,
}

impl CbfWriter {
    /// Appends `game` to the game file's bytes `out` (nothing if it cannot
    /// be stored: an error issue says so); returns its issues, with the
    /// game's offset in the game file.
    pub fn write(&mut self, game: &Game, out: &mut Vec<u8>) -> Vec<Issue> {
        self.games += 1;
        let number = self.games;
        let offset = self.len;
        let mut w = GameWriter {
            game,
            number,
            offset,
            issues: Vec::new(),
        };
        let written = w.write();
        Issue::name_not_listed(&mut w.issues, "the writer");
        match written {
            Ok(bytes) => match u32::try_from(offset + bytes.len() as u64) {
                Ok(_) => {
                    self.offsets.push(offset as u32);
                    self.len += bytes.len() as u64;
                    out.extend_from_slice(&bytes);
                }
                Err(_) => w.issues.push(Issue::error(
                    FileKind::Data,
                    offset,
                    Some(number),
                    "game file would exceed 4 GiB; game left out",
                )),
            },
            Err(msg) => w.issues.push(Issue::error(
                FileKind::Data,
                offset,
                Some(number),
                format!("{msg}; game left out"),
            )),
        }
        w.issues
    }

    /// Games written (games with an error are left out).
    pub fn written(&self) -> usize {
        self.offsets.len()
    }

    /// The CBI index of the games written so far.
    pub fn index(&self) -> Vec<u8> {
        write_index(&self.offsets, self.len as u32)
    }
}

struct GameWriter<'a> {
    game: &'a Game,
    number: usize,
    offset: u64,
    issues: Vec<Issue>,
}

const KNOWN_TAGS: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "ECO",
    "SetUp",
    "FEN",
    "CBPlayers",
    "CBSource",
    "CBResult",
    "CBEco",
    "CBEcoSub",
    "CBMarked",
    "CBDeleted",
    "CBVersion",
    "CBMagic",
    "CBMoveCount",
    "CBEpFile",
];

impl<'a> GameWriter<'a> {
    /// A warning about the game (the first [`crate::diag::MAX_LISTED`]
    /// listed, the rest counted: [`Issue::push_listed`]).
    fn warn(&mut self, msg: impl Into<String>) {
        Issue::push_listed(
            &mut self.issues,
            Issue::warning(FileKind::Data, self.offset, Some(self.number), msg),
        );
    }

    fn tag(&self, name: &str) -> Option<&'a str> {
        self.game.tags.get(name)
    }

    fn write(&mut self) -> Result<Vec<u8>, String> {
        let game = self.game;
        let mut header = Header::default();

        // Start position.
        let standard = game.start == Chess::default();
        let mut setup_bytes = None;
        if !standard {
            if game.castling_mode == CastlingMode::Chess960 && game.start.castles().any() {
                return Err("Chess960 castling rights cannot be stored".into());
            }
            let (bytes, b10, b11) = write_setup(&game.start)?;
            if game.start.halfmoves() != 0 {
                self.warn(format!(
                    "halfmove clock {} of the start position dropped (CBF stores none)",
                    game.start.halfmoves()
                ));
            }
            header.bytes[10] = b10;
            header.bytes[11] = b11;
            setup_bytes = Some(bytes);
        }
        let kept_ep = self
            .tag("CBEpFile")
            .and_then(|f| f.chars().next())
            .and_then(shakmaty::File::from_char);
        let ep_file = if standard {
            None
        } else if let Some(f) = kept_ep {
            header.bytes[11] = (header.bytes[11] & !0x0f) | (f as u8 + 1);
            Some(f)
        } else {
            game.start
                .ep_square(shakmaty::EnPassantMode::Always)
                .map(|s| s.file())
        };
        let start = CbPosition::new(game.start.clone(), ep_file);

        // Result.
        let result = game
            .result
            .or_else(|| self.tag("Result").and_then(|r| r.parse().ok()))
            .unwrap_or(GameResult::Unknown);
        let raw_result = self
            .tag("CBResult")
            .and_then(|r| r.parse::<u8>().ok())
            .filter(|&r| decode_result(r).0 == result);
        let result_byte = raw_result.unwrap_or(match result {
            GameResult::BlackWins => 0,
            GameResult::Draw => 1,
            GameResult::WhiteWins => 2,
            GameResult::Unknown => 3,
        });
        header.bytes[1] = result_byte;
        let variant = decode_result(result_byte).1;
        let mut skip_nag: Option<(NodeId, u8)> = None;
        let mut skip_root_comment = None;
        if let Some(v) = variant {
            match (game.tree.mainline().last(), POS_NAGS[usize::from(v - 1)]) {
                (Some(last), Some(nag)) => skip_nag = Some((last, nag)),
                _ => {
                    skip_root_comment = Some(format!("result {}", POS_SYMBOLS[usize::from(v - 1)]))
                }
            }
        }

        // Comments.
        let mut comments: Vec<Option<CbComment>> = vec![None; game.tree.len()];
        for id in game.tree.preorder() {
            let c = self.comment_of(id, skip_nag);
            comments[id.0 as usize] = c;
        }
        for c in &game.tree.root().comments_before {
            if Some(&c.text) != skip_root_comment.as_ref() {
                self.warn(format!(
                    "comment before the first move dropped (CBF has none): {:?}",
                    short(&c.text)
                ));
            }
        }
        for c in &game.tree.root().comments_after {
            self.warn(format!(
                "comment before the first move dropped (CBF has none): {:?}",
                short(&c.text)
            ));
        }

        // Moves.
        let (mut move_bytes, commented) =
            encode_moves(&game.tree, &start, |id| comments[id.0 as usize].is_some())
                .map_err(|e| format!("{}: {}", describe_node(game, e.node), e.message))?;
        if move_bytes.len() > MAX_HALF_MOVES {
            self.warn(format!(
                "{} half-moves with variations exceed ChessBase's {MAX_HALF_MOVES} (written; ChessBase may refuse the game)",
                move_bytes.len()
            ));
        }
        let mlen = u16::try_from(move_bytes.len() + 1)
            .map_err(|_| format!("{} move bytes do not fit mlen (16 bits)", move_bytes.len()))?;
        header.set_mlen(mlen);
        xor_moves(&mut move_bytes, mlen);

        let mut area = Vec::new();
        if !commented.is_empty() {
            area.push(0xff);
            for id in &commented {
                if let Some(c) = &comments[id.0 as usize] {
                    emit_comment(c, &mut area);
                }
            }
        }
        let clen = u16::try_from(area.len())
            .map_err(|_| format!("{} bytes of comments do not fit clen (16 bits)", area.len()))?;
        header.set_clen(clen);

        // Texts.
        let white = self.tag("White").unwrap_or("?").to_string();
        let black = self.tag("Black").unwrap_or("?").to_string();
        let players = match self.tag("CBPlayers") {
            Some(raw) if split_players(raw) == (white.clone(), black.clone()) => raw.to_string(),
            _ => player_text(&white, &black),
        };
        let event = self.tag("Event").unwrap_or("?").to_string();
        let round = self.tag("Round").unwrap_or("?").to_string();
        let source = match self.tag("CBSource") {
            Some(raw) if split_source(raw) == (event.clone(), round.clone()) => raw.to_string(),
            _ => {
                if !round_fits(&round) && !matches!(round.as_str(), "?" | "") {
                    self.warn(format!(
                        "Round {:?} dropped (only digits . / \\ fit the source text)",
                        short(&round)
                    ));
                }
                source_text(&event, &round)
            }
        };
        if let Some(site) = self.tag("Site")
            && !matches!(site, "?" | "")
            && site != event
        {
            self.warn(format!("Site {:?} dropped (CBF has no site)", short(site)));
        }
        let mut player_bytes = self.text_bytes("player", &players);
        let mut source_bytes = self.text_bytes("source", &source);
        header.bytes[4] = player_bytes.len() as u8;
        header.bytes[5] = source_bytes.len() as u8;
        let mut texts = Vec::with_capacity(player_bytes.len() + source_bytes.len());
        texts.append(&mut player_bytes);
        texts.append(&mut source_bytes);
        xor_text(&mut texts);

        // Year.
        if let Some(date) = self.tag("Date") {
            let year = date.get(..4).and_then(|y| y.parse::<i32>().ok());
            if let Err(y) = header.set_year(year) {
                self.warn(format!("year {y} dropped (CBF holds 1772-2026)"));
                header.set_year(None).ok();
            }
            if year.is_some() && date.get(4..).is_some_and(|r| r != ".??.??") {
                self.warn(format!(
                    "month and day of Date {:?} dropped (CBF holds the year only)",
                    short(date)
                ));
            }
        } else {
            header.set_year(None).ok();
        }

        // Elo.
        header.bytes[8] = self.elo_byte("WhiteElo");
        header.bytes[9] = self.elo_byte("BlackElo");

        // Flags and ECO.
        if self.tag("CBMarked") == Some("1") {
            header.bytes[10] |= 0x40;
        }
        if self.tag("CBDeleted") == Some("1") {
            header.bytes[10] |= 0x80;
        }
        if self.tag("CBVersion") == Some("1") {
            header.bytes[11] |= 0x40;
        }
        let eco_tag = self.tag("ECO");
        let eco1 = eco_tag.and_then(eco_code);
        if let Some(e) = eco_tag
            && eco1.is_none()
            && !matches!(e, "?" | "")
        {
            self.warn(format!("ECO {:?} dropped (expected A00..E99)", short(e)));
        }
        let eco1 = eco1.or_else(|| {
            self.tag("CBEco")
                .and_then(|e| e.parse::<u16>().ok())
                .filter(|&c| c < 512)
        });
        let eco2 = self
            .tag("CBEcoSub")
            .and_then(|s| s.parse::<u8>().ok())
            .filter(|&s| s < 128)
            .unwrap_or(0);
        if let Some(eco1) = eco1 {
            if standard {
                header.set_eco_codes(eco1, eco2);
            } else {
                self.warn("ECO dropped: CBF keeps no ECO for a game with a start position");
            }
        }

        header.bytes[12] = self
            .tag("CBMoveCount")
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| move_count(game));
        header.bytes[13] = self
            .tag("CBMagic")
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| header.public_checksum());

        // Tags of no CBF field, and the second and later tags of a name the
        // header holds (it holds the first).
        let mut seen: Vec<&str> = Vec::new();
        let dropped: Vec<&str> = game
            .tags
            .iter()
            .map(|t| t.name.as_str())
            .filter(|&n| {
                if !KNOWN_TAGS.contains(&n) {
                    return true;
                }
                let again = seen.contains(&n);
                if !again {
                    seen.push(n);
                }
                again
            })
            .collect();
        if !dropped.is_empty() {
            self.warn(format!(
                "tags dropped (CBF has no place for them): {}",
                listed(dropped.iter().copied())
            ));
        }

        let mut out = Vec::with_capacity(header.game_len());
        out.extend_from_slice(&header.encode());
        out.extend_from_slice(&texts);
        out.extend_from_slice(&move_bytes);
        out.extend_from_slice(&area);
        if let Some(s) = setup_bytes {
            out.extend_from_slice(&s);
        }
        debug_assert_eq!(out.len(), header.game_len());
        Ok(out)
    }

    fn text_bytes(&mut self, what: &str, text: &str) -> Vec<u8> {
        let mut bad = Vec::new();
        let mut bytes: Vec<u8> = text
            .chars()
            .map(|c| {
                cp850_byte(c).unwrap_or_else(|| {
                    bad.push(c);
                    b'?'
                })
            })
            .collect();
        if !bad.is_empty() {
            let shown = short(&bad.iter().collect::<String>());
            self.warn(format!(
                "{what} text: {} character(s) not in cp850 written as '?': {shown}",
                bad.len()
            ));
        }
        if bytes.len() > MAX_TEXT {
            self.warn(format!(
                "{what} text {:?} is {} bytes; cut to {MAX_TEXT}",
                short(text),
                bytes.len()
            ));
            bytes.truncate(MAX_TEXT);
        }
        bytes
    }

    fn elo_byte(&mut self, name: &str) -> u8 {
        let Some(text) = self.tag(name) else {
            return 0;
        };
        let Ok(elo) = text.parse::<u32>() else {
            if !matches!(text, "?" | "-" | "") {
                self.warn(format!("{name} {text:?} dropped (not a number)"));
            }
            return 0;
        };
        if !(1603..=2877).contains(&elo) {
            self.warn(format!(
                "{name} {elo} dropped (CBF holds 1605-2875 in steps of 5)"
            ));
            return 0;
        }
        let x = ((elo as i64 - 1600 + 2) / 5).clamp(1, 255) as u8;
        if 1600 + 5 * u32::from(x) != elo {
            self.warn(format!(
                "{name} {elo} rounded to {} (CBF holds steps of 5)",
                1600 + 5 * u32::from(x)
            ));
        }
        x
    }

    /// The comment stored for `id`, if any; reports what does not fit.
    fn comment_of(&mut self, id: NodeId, skip_nag: Option<(NodeId, u8)>) -> Option<CbComment> {
        let game = self.game;
        let node = game.tree.node(id);
        let mut nags = node.nags.clone();
        if let Some((sid, nag)) = skip_nag
            && sid == id
            && let Some(i) = nags.iter().position(|&n| n == nag)
        {
            nags.remove(i);
        }
        if !node.comments_before.is_empty() {
            self.warn(format!(
                "comment before {} moved after it (CBF comments follow their move)",
                describe_node(game, id)
            ));
        }
        let texts: Vec<&str> = node
            .comments_before
            .iter()
            .chain(&node.comments_after)
            .map(|c| c.text.as_str())
            .collect();
        let joined = texts.join(" ");
        let (evals, text, left) = match take_cbeval(&joined) {
            Some((triple, rest)) => {
                let mut expected = evals_to_nags(triple.0, triple.1, triple.2);
                let left: Vec<u8> = nags
                    .iter()
                    .copied()
                    .filter(|n| match expected.iter().position(|e| e == n) {
                        Some(i) => {
                            expected.remove(i);
                            false
                        }
                        None => true,
                    })
                    .collect();
                (triple, rest.to_string(), left)
            }
            None => {
                let (triple, left) = nags_to_evals(&nags);
                (triple, joined.clone(), left)
            }
        };
        for nag in left {
            self.warn(format!(
                "NAG ${nag} on {} dropped (no ChessBase evaluation, or its slot is taken)",
                describe_node(game, id)
            ));
        }
        let (bytes, bad) = encode_text(&text);
        if !bad.is_empty() {
            self.warn(format!(
                "comment on {}: characters ChessBase cannot store written as '?': {}",
                describe_node(game, id),
                bad.iter().collect::<String>()
            ));
        }
        let c = CbComment {
            move_eval: evals.0,
            pos_eval: evals.1,
            extra_eval: evals.2,
            text: bytes,
        };
        (c != CbComment::default()).then_some(c)
    }
}

/// The first [`LISTED_NAMES`] of `names`, comma-separated, then how many
/// more there are: a message stays short however many it counts.
fn listed<'n>(names: impl ExactSizeIterator<Item = &'n str>) -> String {
    let n = names.len();
    let mut s = names.take(LISTED_NAMES).collect::<Vec<_>>().join(", ");
    if n > LISTED_NAMES {
        s.push_str(&format!(" and {} more", n - LISTED_NAMES));
    }
    s
}

/// How many names a message lists ([`listed`]).
const LISTED_NAMES: usize = 20;

fn short(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    s
}
