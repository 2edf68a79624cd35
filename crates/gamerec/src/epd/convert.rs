//! Conversions between games ([`crate::model::Game`]), FEN and EPD records.
//!
//! * Game to EPD: one record per position of the main line (all positions
//!   with [`GameToEpd::variations`]): `sm` the move played from it, `hmvc`,
//!   `fmvn`, `id` `<Event>.<Round>.<ply>`, `c0` from the comments there,
//!   `ptp` with the game's tags on request. Positions carry an en passant
//!   square only when a legal capture exists (as python-chess writes them).
//! * EPD to game: the record's position as start (FEN/SetUp tags), `pv` (else
//!   `sv`) as the moves, `ptp` pairs as tags, every other operation kept as
//!   EPD text in the game comment.
//! * FEN to EPD and back: the counters become `hmvc`/`fmvn`.
//!
//! Whatever a conversion cannot carry is reported in its warnings.

use shakmaty::{Chess, EnPassantMode};

use super::basetypes::{STRING_LIMIT, is_identifier};
use super::opcodes::Opcode;
use super::reader::with_counters;
use super::record::{EpdPosition, EpdRecord, Operation};
use super::writer::write_operation;
use crate::fen::{FenError, read_fen, write_fen_with};
use crate::model::{Comment, Game, GameResult, NodeId, Ply, PlyMove, play_ply};

/// Options for [`game_to_records`].
#[derive(Debug, Clone, Copy, Default)]
pub struct GameToEpd {
    /// Every position of the tree, variations included (default: main line).
    pub variations: bool,
    /// Add the game's tags as a `ptp` operation on every record.
    pub tags_as_ptp: bool,
}

/// A conversion's result and what it could not carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted<T> {
    /// The result.
    pub value: T,
    /// What was dropped or changed, one message each.
    pub warnings: Vec<String>,
}

fn comment_text(comments: &[&Comment]) -> String {
    let mut out = String::new();
    for c in comments {
        for word in c.text.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// What [`fit_string`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Fitted {
    /// Cut to fewer than 256 bytes.
    cut: bool,
    /// Control characters (which EPD strings cannot hold) written as spaces.
    controls: bool,
}

impl Fitted {
    /// The warnings for `what` (`tag \`Event\``, `ply 3: comment`...).
    fn warn(self, what: &str, warnings: &mut Vec<String>) {
        if self.controls {
            warnings.push(format!("{what}: control characters written as spaces"));
        }
        if self.cut {
            warnings.push(format!("{what} cut to 255 bytes"));
        }
    }
}

/// `text` as an EPD string can hold it: control characters written as
/// spaces, cut to fewer than 256 bytes at a character boundary.
fn fit_string(text: &str) -> (String, Fitted) {
    fit_string_to(text, STRING_LIMIT - 1)
}

/// [`fit_string`] with room for `limit` bytes.
fn fit_string_to(text: &str, limit: usize) -> (String, Fitted) {
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let controls = kept.chars().any(char::is_control);
    let value = if controls {
        kept.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    } else {
        kept.to_string()
    };
    let cut = end < text.len();
    (value, Fitted { cut, controls })
}

/// The records of `game`'s positions (see the module docs).
pub fn game_to_records(game: &Game, opts: &GameToEpd) -> Converted<Vec<EpdRecord>> {
    let mut warnings = Vec::new();
    let event = game.tags.get("Event").unwrap_or("?");
    let round = game.tags.get("Round").unwrap_or("?");
    // Each record's id is `Event.Round.` and its ply (and node): room kept
    // for two numbers of 20 digits.
    let (mut id_prefix, fitted) = fit_string_to(&format!("{event}.{round}"), STRING_LIMIT - 44);
    fitted.warn("the id's Event.Round", &mut warnings);
    id_prefix.push('.');
    let mode = game.castling_mode;
    let mainline: Vec<NodeId> = game.tree.mainline().collect();
    let ptp = if opts.tags_as_ptp {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for tag in &game.tags {
            if !is_identifier(&tag.name) {
                warnings.push(format!(
                    "tag `{}` is not an EPD identifier: not in ptp",
                    tag.name
                ));
            } else if !names.insert(tag.name.as_str()) {
                warnings.push(format!(
                    "duplicate tag `{}`: only the first is in ptp",
                    tag.name
                ));
            } else {
                let (value, fitted) = fit_string(&tag.value);
                fitted.warn(&format!("tag `{}`", tag.name), &mut warnings);
                pairs.push((&tag.name, value));
            }
        }
        Some(Operation::tag_pairs(
            pairs.iter().map(|(n, v)| (*n, v.as_str())),
        ))
    } else {
        None
    };
    let make = |before: &Chess,
                ply_index: usize,
                node: Option<NodeId>,
                prev: Option<NodeId>,
                id: String,
                warnings: &mut Vec<String>| {
        let mut rec = EpdRecord::new(EpdPosition::with_legal_ep(before, mode));
        if let Some(n) = node
            && let Some(ply) = &game.tree.node(n).ply
        {
            match ply.mv {
                PlyMove::Move(_) => rec.set(Operation::moves(Opcode::Sm, before, &[ply.mv])),
                PlyMove::Null => {
                    warnings.push(format!(
                        "ply {}: null move has no EPD form: no `sm`",
                        ply_index + 1
                    ));
                    &mut rec
                }
            };
        }
        let mut comments: Vec<&Comment> = Vec::new();
        match prev {
            Some(p) => comments.extend(game.tree.node(p).comments_after.iter()),
            None => comments.extend(game.tree.root().comments_before.iter()),
        }
        if let Some(n) = node {
            comments.extend(game.tree.node(n).comments_before.iter());
        }
        let text = comment_text(&comments);
        if !text.is_empty() {
            let (value, fitted) = fit_string(&text);
            if fitted.controls {
                warnings.push(format!(
                    "ply {ply_index}: control characters of a comment written as spaces in c0"
                ));
            }
            if fitted.cut {
                warnings.push(format!("ply {ply_index}: comment cut to 255 bytes for c0"));
            }
            rec.set(Operation::string(Opcode::Comment(0), value));
        }
        if let Some(n) = node
            && !game.tree.node(n).nags.is_empty()
        {
            warnings.push(format!(
                "ply {}: NAGs have no EPD form: dropped",
                ply_index + 1
            ));
        }
        rec.set(Operation::string(Opcode::Id, id));
        if let Some(p) = &ptp {
            rec.set(p.clone());
        }
        rec.set_clocks();
        rec
    };
    let mut records = Vec::new();
    let mut pos = game.start.clone();
    let mut prev = None;
    for (i, &n) in mainline.iter().enumerate() {
        records.push(make(
            &pos,
            i,
            Some(n),
            prev,
            format!("{id_prefix}{i}"),
            &mut warnings,
        ));
        if let Some(ply) = &game.tree.node(n).ply {
            pos = play_ply(&pos, ply.mv);
        }
        prev = Some(n);
    }
    let last = mainline.len();
    records.push(make(
        &pos,
        last,
        None,
        prev,
        format!("{id_prefix}{last}"),
        &mut warnings,
    ));
    // Linear in the tree: main-line membership is a flag per node and each
    // node's ply comes from its parent's (parents precede children in
    // pre-order), never a search or a path per node.
    let mut on_mainline = vec![false; game.tree.len()];
    for &n in &mainline {
        on_mainline[n.0 as usize] = true;
    }
    let has_variations = game.tree.len() > mainline.len() + 1;
    if has_variations && !opts.variations {
        warnings.push("variations not converted (use the variations option)".into());
    }
    if opts.variations && has_variations {
        let mut depth = vec![0usize; game.tree.len()];
        for n in game.tree.preorder() {
            let parent = game.tree.node(n).parent().unwrap_or(NodeId::ROOT);
            depth[n.0 as usize] = depth[parent.0 as usize] + 1;
        }
        let mut extra = Vec::new();
        game.for_each_position(|n, before, after| {
            if on_mainline[n.0 as usize] {
                return;
            }
            let ply = depth[n.0 as usize] - 1;
            let parent = game.tree.node(n).parent().filter(|p| *p != NodeId::ROOT);
            let id = format!("{id_prefix}{ply}.{}", n.0);
            extra.push(make(before, ply, Some(n), parent, id, &mut warnings));
            if game.tree.node(n).children().is_empty() {
                let id = format!("{id_prefix}{}.{}", ply + 1, n.0);
                extra.push(make(after, ply + 1, None, Some(n), id, &mut warnings));
            }
        });
        records.extend(extra);
    }
    Converted {
        value: records,
        warnings,
    }
}

/// The game a record describes (see the module docs).
pub fn record_to_game(record: &EpdRecord) -> Converted<Game> {
    let mut warnings = Vec::new();
    let mut game = Game::new();
    let start = record.position.chess.clone();
    for (name, value) in record.tag_pairs() {
        game.tags.push(name, value);
    }
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        if game.tags.get(name).is_none() {
            game.tags
                .push(name, if name == "Date" { "????.??.??" } else { "?" });
        }
    }
    if game.tags.get("Result").is_none() {
        game.tags.push("Result", "*");
    }
    game.tags
        .set("FEN", write_fen_with(&start, EnPassantMode::Always));
    game.tags.set("SetUp", "1");
    game.start = start.clone();
    game.castling_mode = record.position.castling_mode;
    let lines: Vec<Vec<PlyMove>> = ["pv", "sv"]
        .iter()
        .map(|name| record.moves(name))
        .filter(|moves| !moves.is_empty())
        .collect();
    for (i, moves) in lines.iter().enumerate() {
        if i > 0 && lines[0] == *moves {
            continue;
        }
        let mut parent = NodeId::ROOT;
        let mut pos = start.clone();
        for &mv in moves {
            let san = crate::san::write_san(&pos, mv);
            parent = game.tree.add_child(
                parent,
                Ply {
                    mv,
                    san,
                    written: None,
                },
            );
            pos = play_ply(&pos, mv);
        }
    }
    let mut rest = String::new();
    for op in &record.ops {
        if matches!(
            op.opcode,
            Opcode::Pv | Opcode::Sv | Opcode::Ptp | Opcode::Hmvc | Opcode::Fmvn
        ) {
            continue;
        }
        if !rest.is_empty() {
            rest.push(' ');
        }
        write_operation(op, &mut rest);
    }
    if !rest.is_empty() {
        game.tree
            .root_mut()
            .comments_before
            .push(Comment::new(rest));
    }
    game.result = Some(
        game.tags
            .get("Result")
            .and_then(|r| r.parse().ok())
            .unwrap_or(GameResult::Unknown),
    );
    if record.has("pv") && record.has("sv") && lines.len() == 2 && lines[0] != lines[1] {
        warnings.push("pv is the main line, sv a variation".into());
    }
    Converted {
        value: game,
        warnings,
    }
}

/// A record of a FEN: the position, and its counters as `hmvc`/`fmvn`.
pub fn fen_to_record(fen: &str) -> Result<EpdRecord, FenError> {
    let (chess, castling_mode) = read_fen(fen)?;
    let mut rec = EpdRecord::new(EpdPosition {
        chess,
        castling_mode,
    });
    rec.set_clocks();
    Ok(rec)
}

/// The FEN of a record: its position with `hmvc`/`fmvn` as the counters
/// (0 and 1 when absent). Other operations have no FEN form and are listed
/// in the warnings.
pub fn record_to_fen(record: &EpdRecord) -> Converted<String> {
    let hmvc = record.integer("hmvc").and_then(|v| u32::try_from(v).ok());
    let fmvn = record.integer("fmvn").and_then(|v| u32::try_from(v).ok());
    let chess = with_counters(
        &record.position.chess,
        record.position.castling_mode,
        Some(hmvc.unwrap_or(0)),
        Some(fmvn.unwrap_or(1)),
    );
    let dropped: Vec<String> = record
        .ops
        .iter()
        .filter(|op| !matches!(op.opcode, Opcode::Hmvc | Opcode::Fmvn))
        .map(|op| format!("`{}` has no FEN form: dropped", op.opcode))
        .collect();
    Converted {
        value: write_fen_with(&chess, EnPassantMode::Always),
        warnings: dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::san::{ReadOptions, read_san};

    fn game(moves: &[&str]) -> Game {
        let mut game = Game::new();
        game.tags.push("Event", "Test");
        game.tags.push("Round", "3");
        game.tags.push("White", "A \"B\"");
        let mut pos = game.start.clone();
        let mut parent = NodeId::ROOT;
        for text in moves {
            let mv = read_san(&pos, text.as_bytes(), &ReadOptions::default())
                .unwrap()
                .mv;
            parent = game.tree.add_child(
                parent,
                Ply {
                    mv,
                    san: crate::san::write_san(&pos, mv),
                    written: None,
                },
            );
            pos = play_ply(&pos, mv);
        }
        game
    }

    #[test]
    fn game_to_records_one_per_position() {
        let mut g = game(&["e4", "c5", "Nf3"]);
        g.tree
            .root_mut()
            .comments_before
            .push(Comment::new("Sicilian\n game"));
        let first = g.tree.mainline().next().unwrap();
        g.tree
            .node_mut(first)
            .comments_after
            .push(Comment::new("best by test"));
        let out = game_to_records(&g, &GameToEpd::default());
        let lines: Vec<String> = out.value.iter().map(|r| r.to_string()).collect();
        assert_eq!(
            lines,
            [
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - sm e4; c0 \"Sicilian game\"; id \"Test.3.0\"; hmvc 0; fmvn 1;",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - sm c5; c0 \"best by test\"; id \"Test.3.1\"; hmvc 0; fmvn 1;",
                "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - sm Nf3; id \"Test.3.2\"; hmvc 0; fmvn 2;",
                "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - id \"Test.3.3\"; hmvc 1; fmvn 2;",
            ]
        );
        assert!(out.warnings.is_empty());
    }

    /// Tags and comments EPD strings cannot hold as they are: records held
    /// them anyway (a 50 MB Event made a 50 MB id on every record, a tab in
    /// a tag went into the ptp string), and the EPD reader refused each
    /// such record, with no warning when converting.
    #[test]
    fn strings_are_fitted_to_what_epd_holds() {
        let mut g = game(&["e4", "e5"]);
        g.tags.set("Event", "x".repeat(100_000));
        g.tags.push("Site", "a\tb\u{1}");
        let first = g.tree.mainline().next().unwrap();
        g.tree
            .node_mut(first)
            .comments_after
            .push(Comment::new("c\u{1b}[31m"));
        let opts = GameToEpd {
            tags_as_ptp: true,
            variations: false,
        };
        let out = game_to_records(&g, &opts);
        assert_eq!(out.value.len(), 3);
        for rec in &out.value {
            let line = rec.to_string();
            let (read, diags) = crate::epd::read_line(&line, 1);
            assert!(read.is_some(), "{diags:?}");
            assert!(line.len() < 1000, "{line}");
        }
        let id = out.value[2].string("id").unwrap_or_default();
        assert!(id.len() < 256 && id.ends_with("xxx.2"), "{id}");
        assert_eq!(out.value[0].tag_pairs()[3], ("Site".into(), "a b ".into()));
        assert_eq!(out.value[1].string("c0"), Some("c [31m"));
        for w in [
            "the id's Event.Round cut to 255 bytes",
            "tag `Event` cut to 255 bytes",
            "tag `Site`: control characters written as spaces",
            "ply 1: control characters of a comment written as spaces in c0",
        ] {
            assert!(
                out.warnings.iter().any(|x| x == w),
                "{w}: {:?}",
                out.warnings
            );
        }
    }

    #[test]
    fn legal_en_passant_only() {
        let g = game(&["e4", "a6", "e5", "d5"]);
        let out = game_to_records(&g, &GameToEpd::default()).value;
        // After 3...d5 White can take en passant: d6 is written.
        assert!(
            out[4]
                .to_string()
                .starts_with("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 ")
        );
        // After 1.e4 no capture is possible: no square.
        assert!(out[1].to_string().contains(" b KQkq - "));
    }

    #[test]
    fn ptp_and_variations() {
        let mut g = game(&["d4", "d5"]);
        let d4 = g.tree.mainline().next().unwrap();
        let nf6 = {
            let pos = play_ply(&g.start, g.tree.node(d4).ply.as_ref().unwrap().mv);
            let mv = read_san(&pos, b"Nf6", &ReadOptions::default()).unwrap().mv;
            g.tree.add_child(
                d4,
                Ply {
                    mv,
                    san: "Nf6".into(),
                    written: None,
                },
            )
        };
        g.tree.node_mut(nf6).nags.push(1);
        let plain = game_to_records(&g, &GameToEpd::default());
        assert_eq!(plain.value.len(), 3);
        assert!(plain.warnings[0].contains("variations"));
        let all = game_to_records(
            &g,
            &GameToEpd {
                variations: true,
                tags_as_ptp: true,
            },
        );
        assert_eq!(all.value.len(), 5);
        assert_eq!(all.value[3].moves("sm").len(), 1);
        assert_eq!(
            all.value[3].string("id"),
            Some(&*format!("Test.3.1.{}", nf6.0))
        );
        assert_eq!(
            all.value[4].string("id"),
            Some(&*format!("Test.3.2.{}", nf6.0))
        );
        assert!(all.warnings.iter().any(|w| w.contains("NAG")));
        assert_eq!(
            all.value[0].tag_pairs(),
            vec![
                ("Event".into(), "Test".into()),
                ("Round".into(), "3".into()),
                ("White".into(), "A \"B\"".into())
            ]
        );
    }

    #[test]
    fn record_to_game_uses_pv_and_keeps_the_rest() {
        let rec: EpdRecord = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; pv e4 e5 Nf3; id \"x.1\"; ptp White \"W\"; hmvc 0; fmvn 1;"
            .parse()
            .unwrap();
        let out = record_to_game(&rec);
        let g = out.value;
        assert_eq!(g.tree.mainline_len(), 3);
        assert_eq!(g.tags.get("White"), Some("W"));
        assert_eq!(g.tags.get("SetUp"), Some("1"));
        assert_eq!(
            g.tags.get("FEN"),
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        );
        assert_eq!(g.tree.root().comments_before[0].text, "bm e4; id \"x.1\";");
        // Back to records: the pv line's positions.
        let back = game_to_records(&g, &GameToEpd::default()).value;
        assert_eq!(back.len(), 4);
        assert_eq!(back[0].position, rec.position);
    }

    #[test]
    fn fen_round_trip() {
        let fen = "r3k2r/8/8/8/4Pp2/8/8/R3K2R b KQkq e3 3 40";
        let rec = fen_to_record(fen).unwrap();
        assert_eq!(
            rec.to_string(),
            "r3k2r/8/8/8/4Pp2/8/8/R3K2R b KQkq e3 hmvc 3; fmvn 40;"
        );
        let back = record_to_fen(&rec);
        assert_eq!(back.value, fen);
        assert!(back.warnings.is_empty());
        let with_ops = rec.with(Operation::string(Opcode::Id, "x"));
        assert_eq!(record_to_fen(&with_ops).warnings.len(), 1);
        let bare: EpdRecord = "8/8/8/8/8/8/8/K6k w - -".parse().unwrap();
        assert_eq!(record_to_fen(&bare).value, "8/8/8/8/8/8/8/K6k w - - 0 1");
    }
}
