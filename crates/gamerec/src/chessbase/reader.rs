//! CBI/CBF reader: index, header, texts, moves, comments and start position
//! to [`Game`]s.

use std::ops::ControlFlow;

use shakmaty::{Chess, EnPassantMode, Position};

use super::comments::{cbeval_command, decode_text, evals_to_nags, nags_to_evals, parse_comment};
use super::header::{HEADER_LEN, Header, eco_text};
use super::index::read_index;
use super::moves::decode_moves;
use super::order::CbPosition;
use super::setup::{SETUP_LEN, read_setup};
use super::text::{cp850_decode, xor_moves, xor_text};
use super::{FileKind, Issue, ReadItem, ReadOutcome, Sink};
use crate::model::{Comment, Game, GameResult, NodeId};

/// Reads every game the index `cbi` lists from the game file `cbf`.
pub fn read_cbf(cbi: &[u8], cbf: &[u8]) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    read_cbf_each(cbi, cbf, &mut |item| out.push(item));
    out
}

/// Reads the games of `cbi`/`cbf` one at a time, handing each game and
/// each issue to `each` in file order: memory holds one game (and the
/// index's offsets, four bytes a game), whatever the number of games.
pub fn read_cbf_each(cbi: &[u8], cbf: &[u8], each: &mut dyn FnMut(ReadItem)) {
    read_cbf_while(cbi, cbf, &mut |item| {
        each(item);
        ControlFlow::Continue(())
    });
}

/// As [`read_cbf_each`], ending as soon as `each` returns
/// [`ControlFlow::Break`].
///
/// The index may list bytes of the game file more than once (two entries
/// for one game, or games that overlap): those are read again only while
/// the bytes read again stay within the game file's size; past that an
/// entry whose game overlaps games already read is an error and is not
/// read. So the work is linear in the two files' sizes, not their product
/// (a 4 MB index listing one 100 KB game a million times).
pub fn read_cbf_while(cbi: &[u8], cbf: &[u8], each: &mut dyn FnMut(ReadItem) -> ControlFlow<()>) {
    read_cbf_passing(cbi, cbf, each, usize::MAX, &mut || {});
}

/// As [`read_cbf_while`], calling `passed` each time reading passes
/// another `every` bytes of the two files (to give back the mapped pages
/// behind it: a file of few, large games).
pub(crate) fn read_cbf_passing(
    cbi: &[u8],
    cbf: &[u8],
    each: &mut dyn FnMut(ReadItem) -> ControlFlow<()>,
    every: usize,
    passed: &mut dyn FnMut(),
) {
    let mut out = Sink::new(each);
    let (index, error) = read_index(cbi);
    if let Some(e) = error {
        out.issue(Issue::error(FileKind::Index, e.offset, None, e.message));
    }
    let mut read = Spans::default();
    let mut reread_left = cbf.len();
    // Bytes read: the whole index, then each game's.
    let mut bytes = cbi.len();
    let mut mark = 0;
    for (i, &offset) in index.offsets.iter().enumerate() {
        if out.stopped() {
            return;
        }
        if bytes >= mark {
            passed();
            mark = bytes.saturating_add(every);
        }
        let start = offset as usize;
        bytes = bytes.saturating_add(stored_game_len(cbf, start).unwrap_or(HEADER_LEN));
        if let Some(len) = stored_game_len(cbf, start) {
            let end = start + len;
            if read.overlaps(start, end) {
                if len > reread_left {
                    out.issue(Issue::error(
                        FileKind::Index,
                        ((i + 1) * 4) as u64,
                        Some(i + 1),
                        format!(
                            "game at offset {start} ({len} bytes) overlaps games already read, \
                             and the index has listed more bytes again than the game file holds \
                             ({}): not read",
                            cbf.len()
                        ),
                    ));
                    continue;
                }
                reread_left -= len;
            }
            read.insert(start, end);
        }
        let (game, issues) = read_cbf_game(cbf, start, i + 1);
        for issue in issues {
            out.issue(issue);
        }
        if let Some(game) = game {
            out.game(game);
        }
    }
    if index.free as usize > cbf.len() && !index.offsets.is_empty() {
        out.issue(Issue::warning(
            FileKind::Index,
            (cbi.len().saturating_sub(4)) as u64,
            None,
            format!(
                "first free position {} is past the end of the game file ({} bytes)",
                index.free,
                cbf.len()
            ),
        ));
    }
}

/// The length its header gives the game at `offset`, if the game lies
/// inside the file.
fn stored_game_len(cbf: &[u8], offset: usize) -> Option<usize> {
    let stored = <[u8; HEADER_LEN]>::try_from(cbf.get(offset..)?.get(..HEADER_LEN)?).ok()?;
    let len = Header::decode(stored).game_len();
    (offset.checked_add(len)? <= cbf.len()).then_some(len)
}

/// The parts of a file read so far, as disjoint merged ranges (start to
/// end): one range for a file read in order.
#[derive(Debug, Default)]
struct Spans(std::collections::BTreeMap<usize, usize>);

impl Spans {
    /// Whether `start..end` shares a byte with a range read.
    fn overlaps(&self, start: usize, end: usize) -> bool {
        self.0
            .range(..end)
            .next_back()
            .is_some_and(|(_, &e)| e > start)
    }

    /// Adds `start..end`, merging the ranges it touches.
    fn insert(&mut self, mut start: usize, mut end: usize) {
        while let Some((&s, &e)) = self.0.range(..=end).next_back() {
            if e < start {
                break;
            }
            self.0.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.0.insert(start, end);
    }
}

/// Symbols of the position evaluations 1-15 (for comments and messages).
pub const POS_SYMBOLS: [&str; 15] = [
    "+-",
    "+/-",
    "+/=",
    "=",
    "unclear",
    "=/+",
    "-/+",
    "-+",
    "compensation",
    "compensation",
    "counterplay",
    "initiative",
    "attack",
    "time trouble",
    "only move",
];

/// The PGN result of a result byte, and the variant code (1-15) if any.
/// Variant results map to the nearest PGN result: `+-` 1-0, `-+` 0-1, `=`
/// 1/2-1/2, every other one `*`.
pub fn decode_result(byte: u8) -> (GameResult, Option<u8>) {
    match byte {
        0 => (GameResult::BlackWins, None),
        1 => (GameResult::Draw, None),
        2 => (GameResult::WhiteWins, None),
        _ if byte & 3 == 3 => {
            let v = (byte >> 2) & 15;
            let result = match v {
                1 => GameResult::WhiteWins,
                8 => GameResult::BlackWins,
                4 => GameResult::Draw,
                _ => GameResult::Unknown,
            };
            (result, (v != 0).then_some(v))
        }
        _ => (GameResult::Unknown, None),
    }
}

/// Splits a player text into White and Black: at the first ` - ` if there
/// is one, else at the first `-`; empty names are `?`.
pub fn split_players(text: &str) -> (String, String) {
    let (w, b) = match text.split_once(" - ").or_else(|| text.split_once('-')) {
        Some((w, b)) => (w, b),
        None => (text, ""),
    };
    let name = |s: &str| {
        let s = s.trim();
        if s.is_empty() {
            "?".to_string()
        } else {
            s.to_string()
        }
    };
    (name(w), name(b))
}

/// Splits a source text into Event and Round: the first `(...)` group of
/// digits, `.`, `/` and `\` is the round.
pub fn split_source(text: &str) -> (String, String) {
    let mut search = 0;
    while let Some(open) = text[search..].find('(').map(|i| i + search) {
        if let Some(close) = text[open..].find(')').map(|i| i + open) {
            let inner = &text[open + 1..close];
            if !inner.is_empty()
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '\\'))
            {
                let event = format!(
                    "{} {}",
                    text[..open].trim_end(),
                    text[close + 1..].trim_start()
                );
                let event = event.trim();
                let event = if event.is_empty() { "?" } else { event };
                return (event.to_string(), inner.to_string());
            }
        }
        search = open + 1;
    }
    let t = text.trim();
    (
        if t.is_empty() { "?" } else { t }.to_string(),
        "?".to_string(),
    )
}

/// Reads the game at `offset` of the game file (`number` is 1-based, for
/// messages). Returns the game, if its header and texts could be read, and
/// every issue.
pub fn read_cbf_game(cbf: &[u8], offset: usize, number: usize) -> (Option<Game>, Vec<Issue>) {
    let mut issues = Vec::new();
    let at = |rel: usize| (offset + rel) as u64;
    let err = |issues: &mut Vec<Issue>, rel: usize, msg: String| {
        issues.push(Issue::error(FileKind::Data, at(rel), Some(number), msg));
    };
    let Some(stored) = cbf
        .get(offset..)
        .and_then(|d| d.get(..HEADER_LEN))
        .and_then(|h| <[u8; HEADER_LEN]>::try_from(h).ok())
    else {
        err(
            &mut issues,
            0,
            format!(
                "game header at {offset} is past the end of the game file ({} bytes)",
                cbf.len()
            ),
        );
        return (None, issues);
    };
    let header = Header::decode(stored);
    let len = header.game_len();
    let Some(data) = cbf.get(offset..offset + len) else {
        err(
            &mut issues,
            0,
            format!(
                "game of {len} bytes (from its header) runs past the end of the game file ({} bytes)",
                cbf.len()
            ),
        );
        return (None, issues);
    };
    let mut pos = HEADER_LEN;
    let mut texts = data[pos..pos + header.plen() + header.slen()].to_vec();
    xor_text(&mut texts);
    let players = cp850_decode(&texts[..header.plen()]);
    let source = cp850_decode(&texts[header.plen()..]);
    pos += texts.len();
    let move_len = usize::from(header.mlen()).saturating_sub(1);
    let mut move_bytes = data[pos..pos + move_len].to_vec();
    if header.mlen() == 0 {
        issues.push(Issue::warning(
            FileKind::Data,
            at(2),
            Some(number),
            "mlen is 0, expected the number of move bytes + 1",
        ));
    }
    xor_moves(&mut move_bytes, header.mlen());
    let moves_at = pos;
    pos += move_len;
    let comment_area = &data[pos..pos + usize::from(header.clen())];
    let comments_at = pos;
    pos += comment_area.len();

    let mut game = Game::new();
    let mut start = CbPosition::new(Chess::default(), None);
    let mut cb_ep_tag = None;
    if header.has_setup() {
        let bytes: [u8; SETUP_LEN] = data[pos..pos + SETUP_LEN]
            .try_into()
            .unwrap_or([0; SETUP_LEN]);
        match read_setup(&bytes, header.bytes[10], header.bytes[11]) {
            Ok(setup) => {
                for w in setup.warnings {
                    issues.push(Issue::warning(FileKind::Data, at(pos), Some(number), w));
                }
                game.start = setup.pos.clone();
                let legal_ep = setup.pos.ep_square(EnPassantMode::Always).map(|s| s.file());
                if setup.ep_file != legal_ep
                    && let Some(f) = setup.ep_file
                {
                    cb_ep_tag = Some(f.char().to_string());
                }
                start = CbPosition::new(setup.pos, setup.ep_file);
            }
            Err(msg) => {
                err(&mut issues, pos, msg);
                return (None, issues);
            }
        }
    }

    // Tags.
    let (white, black) = split_players(&players);
    let (event, round) = split_source(&source);
    let (result, variant) = decode_result(header.result());
    let tags = &mut game.tags;
    tags.push("Event", event.clone());
    tags.push("Site", "?");
    tags.push(
        "Date",
        match header.year() {
            Some(y) => format!("{y:04}.??.??"),
            None => "????.??.??".to_string(),
        },
    );
    tags.push("Round", round.clone());
    tags.push("White", white.clone());
    tags.push("Black", black.clone());
    tags.push("Result", result.as_str());
    if let Some(elo) = header.white_elo() {
        tags.push("WhiteElo", elo.to_string());
    }
    if let Some(elo) = header.black_elo() {
        tags.push("BlackElo", elo.to_string());
    }
    if let Some((eco1, eco2)) = header.eco_codes() {
        match eco_text(eco1) {
            Some(eco) => tags.push("ECO", eco),
            None => {
                tags.push("CBEco", eco1.to_string());
                issues.push(Issue::warning(
                    FileKind::Data,
                    at(10),
                    Some(number),
                    format!("ECO code {eco1} is past E99; kept in tag CBEco"),
                ));
            }
        }
        if eco2 != 0 {
            tags.push("CBEcoSub", format!("{eco2:02}"));
        }
    }
    if header.has_setup() {
        tags.push("SetUp", "1");
        tags.push(
            "FEN",
            shakmaty::fen::Fen::from_position(&game.start, EnPassantMode::Legal).to_string(),
        );
    }
    if super::writer::player_text(&white, &black) != players {
        tags.push("CBPlayers", players.clone());
    }
    if super::writer::source_text(&event, &round) != source {
        tags.push("CBSource", source.clone());
    }
    if header.result() > 2 {
        tags.push("CBResult", header.result().to_string());
    }
    if header.marked() {
        tags.push("CBMarked", "1");
    }
    if header.deleted() {
        tags.push("CBDeleted", "1");
        issues.push(Issue::warning(
            FileKind::Data,
            at(10),
            Some(number),
            "game is marked deleted (read anyway; tag CBDeleted)",
        ));
    }
    if header.version_bit() {
        tags.push("CBVersion", "1");
    }
    if header.magic() != header.public_checksum() {
        tags.push("CBMagic", header.magic().to_string());
        if header.magic() != header.other_checksum() {
            issues.push(Issue::warning(
                FileKind::Data,
                at(13),
                Some(number),
                format!(
                    "magic byte {} matches neither checksum ({} or {}): a private or damaged game",
                    header.magic(),
                    header.public_checksum(),
                    header.other_checksum()
                ),
            ));
        }
    }
    if let Some(f) = cb_ep_tag {
        tags.push("CBEpFile", f);
    }
    game.result = Some(result);

    // Moves.
    let decoded = decode_moves(&move_bytes, &start);
    for (i, w) in &decoded.warnings {
        issues.push(Issue::warning(
            FileKind::Data,
            at(moves_at + i),
            Some(number),
            w.clone(),
        ));
    }
    if let Some((i, msg)) = &decoded.error {
        err(
            &mut issues,
            moves_at + i,
            format!("moves: {msg} (moves after it are lost)"),
        );
    }
    game.tree = decoded.tree;

    // Comments.
    if !decoded.commented.is_empty() || !comment_area.is_empty() {
        let mut cat = 0;
        match comment_area.first() {
            Some(0xff) => cat = 1,
            Some(_) => issues.push(Issue::warning(
                FileKind::Data,
                at(comments_at),
                Some(number),
                "comment area does not start with 0xFF",
            )),
            None => {}
        }
        for (k, &id) in decoded.commented.iter().enumerate() {
            if cat >= comment_area.len() {
                issues.push(Issue::warning(
                    FileKind::Data,
                    at(comments_at + cat),
                    Some(number),
                    format!(
                        "comment area ends before comment {} of {}",
                        k + 1,
                        decoded.commented.len()
                    ),
                ));
                break;
            }
            let c = parse_comment(comment_area, &mut cat);
            let node = game.tree.node_mut(id);
            let nags = evals_to_nags(c.move_eval, c.pos_eval, c.extra_eval);
            let mut text = String::new();
            if nags_to_evals(&nags).0 != (c.move_eval, c.pos_eval, c.extra_eval) {
                text.push_str(&cbeval_command(c.move_eval, c.pos_eval, c.extra_eval));
            }
            node.nags.extend(nags);
            if !c.text.is_empty() {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&decode_text(&c.text));
            }
            if !text.is_empty() {
                node.comments_after.push(Comment::new(text));
            }
        }
        if cat < comment_area.len() {
            issues.push(Issue::warning(
                FileKind::Data,
                at(comments_at + cat),
                Some(number),
                format!(
                    "{} bytes in the comment area belong to no commented move",
                    comment_area.len() - cat
                ),
            ));
        }
    }

    // The variant result's evaluation.
    if let Some(v) = variant {
        let nag = super::comments::POS_NAGS[usize::from(v - 1)];
        match (game.tree.mainline().last(), nag) {
            (Some(last), Some(nag)) => game.tree.node_mut(last).nags.push(nag),
            _ => game
                .tree
                .root_mut()
                .comments_before
                .push(Comment::new(format!(
                    "result {}",
                    POS_SYMBOLS[usize::from(v - 1)]
                ))),
        }
    }

    let expected = super::writer::move_count(&game);
    if header.move_count() != expected {
        game.tags
            .push("CBMoveCount", header.move_count().to_string());
    }
    (Some(game), issues)
}

/// The ChessBase id of `node` within a game, for messages.
pub fn describe_node(game: &Game, id: NodeId) -> String {
    match &game.tree.node(id).ply {
        Some(p) => {
            let ply = game.tree.path_to(id).len() as u32 - 1;
            let before_turn = game.start.turn();
            let n = game.start.fullmoves().get() + (ply + u32::from(before_turn.is_black())) / 2;
            let black = (ply + u32::from(before_turn.is_black())) % 2 == 1;
            format!("{n}{}{}", if black { "..." } else { "." }, p.san)
        }
        None => "start".into(),
    }
}
