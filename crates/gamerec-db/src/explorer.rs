//! The opening explorer over an index: the tree of a position under
//! filters (rating groups, speeds, month range, player), its top and recent
//! games, and the JSON the lichess opening explorer answers with, so that
//! `gamerec find --tree --to json` and `gamerec serve` say the same.
//!
//! ```text
//! {"fen":FEN,"white":W,"draws":D,"black":B,"games":N,"ended":E,
//!  "moves":[{"uci","san","averageRating","white","draws","black","games","game"}],
//!  "topGames":[GAME],"recentGames":[GAME],"opening":{"eco","name"}|null}
//! GAME = {"id","uci","winner","speed","white":{"name","rating"},"black":{..},"year","month"}
//! ```
//!
//! Totals count every game reaching the position that the filters accept,
//! those ending there too (`ended`); `games` counts results not known as
//! well. A move's `game` is its only game when exactly one played it.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gamerec::model::{Game, PlyMove};
use serde_json::{Value, json};
use shakmaty::Chess;

use crate::eco::{EcoBook, EcoLine};
use crate::index::{GameInfo, Index, IndexError, Totals, TreeMove};
use crate::meta::{Speed, name_hash, parse_month};

/// The lichess rating groups: a group runs from its value to the next.
pub const RATING_GROUPS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The largest number of moves, top or recent games one answer holds.
pub const MAX_LIST: usize = 500;

/// Which games count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// Rating groups ([`RATING_GROUPS`] values) of the game's average
    /// rating; empty: all games, rated or not.
    pub ratings: Vec<u16>,
    /// Speed classes of the TimeControl; empty: all games.
    pub speeds: Vec<Speed>,
    /// Played in this month or later (year, month).
    pub since: Option<(u16, u8)>,
    /// Played in this month or earlier.
    pub until: Option<(u16, u8)>,
    /// A player on either side (whole name, any case).
    pub player: Option<String>,
}

impl Filters {
    /// Parses a comma-separated list of rating groups (`1600,1800`).
    pub fn parse_ratings(text: &str) -> Result<Vec<u16>, String> {
        list(text)
            .map(|t| {
                t.parse::<u16>()
                    .ok()
                    .filter(|r| RATING_GROUPS.contains(r))
                    .ok_or_else(|| format!("rating group {t:?}: one of {RATING_GROUPS:?}"))
            })
            .collect()
    }

    /// Parses a comma-separated list of speeds (`blitz,rapid`).
    pub fn parse_speeds(text: &str) -> Result<Vec<Speed>, String> {
        list(text)
            .map(|t| {
                Speed::from_name(t).ok_or_else(|| {
                    format!(
                        "speed {t:?}: one of {}",
                        Speed::ALL.map(Speed::name).join(", ")
                    )
                })
            })
            .collect()
    }

    /// Sets `since` from `YYYY-MM`.
    pub fn set_since(&mut self, text: &str) -> Result<(), String> {
        self.since = Some(parse_month(text, false)?);
        Ok(())
    }

    /// Sets `until` from `YYYY-MM`.
    pub fn set_until(&mut self, text: &str) -> Result<(), String> {
        self.until = Some(parse_month(text, true)?);
        Ok(())
    }

    /// Whether no filter is set.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// A test for [`GameInfo`]s: the filters with the player's name hashed.
    pub fn matcher(&self) -> impl Fn(&GameInfo) -> bool + '_ {
        let player = self.player.as_deref().map(name_hash);
        move |info: &GameInfo| {
            if !self.ratings.is_empty() {
                let Some(r) = game_rating(info) else {
                    return false;
                };
                if !self.ratings.contains(&rating_group(r)) {
                    return false;
                }
            }
            if !self.speeds.is_empty()
                && !Speed::from_byte(info.speed).is_some_and(|s| self.speeds.contains(&s))
            {
                return false;
            }
            if self.since.is_some() || self.until.is_some() {
                // A game passes when every month its date may be lies in
                // the range (a date with no month: its whole year).
                let (y, m, _) = info.date;
                if y == 0 {
                    return false;
                }
                let first = (y, if m == 0 { 1 } else { m });
                let last = (y, if m == 0 { 12 } else { m });
                if self.since.is_some_and(|s| first < s) || self.until.is_some_and(|u| last > u) {
                    return false;
                }
            }
            if let Some(p) = player
                && (p == 0 || (info.white_name != p && info.black_name != p))
            {
                return false;
            }
            true
        }
    }
}

fn list(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|t| !t.is_empty())
}

/// The game's rating: the average of the players' known ratings, rounded.
pub fn game_rating(info: &GameInfo) -> Option<u32> {
    let (mut sum, mut n) = (0u32, 0u32);
    for e in [info.white_elo, info.black_elo] {
        if e > 0 {
            sum += u32::from(e);
            n += 1;
        }
    }
    (n > 0).then(|| (sum + n / 2) / n)
}

/// The rating group holding `rating`.
pub fn rating_group(rating: u32) -> u16 {
    RATING_GROUPS
        .into_iter()
        .rev()
        .find(|&g| u32::from(g) <= rating)
        .unwrap_or(0)
}

/// An explorer question beyond the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Which games count.
    pub filters: Filters,
    /// At most this many moves (most played first); `None`: all.
    pub moves: Option<usize>,
    /// Highest rated games reaching the position.
    pub top_games: usize,
    /// Most recent games reaching the position.
    pub recent_games: usize,
}

impl Default for Request {
    /// The lichess defaults: 12 moves, 4 top games, 4 recent games.
    fn default() -> Request {
        Request {
            filters: Filters::default(),
            moves: Some(12),
            top_games: 4,
            recent_games: 4,
        }
    }
}

/// One move of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ExplorerMove {
    /// Counts, results, average rating.
    pub tree: TreeMove,
    /// The game when exactly one game played the move.
    pub game: Option<GameRef>,
}

/// A game listed in an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRef {
    /// The game, 0-based (numbered from 1 outside).
    pub id: u32,
    /// The move it played from the position, `None` if it ended there.
    pub uci: Option<String>,
    /// Its summary.
    pub info: GameInfo,
}

/// The explorer's answer for a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The position's FEN.
    pub fen: String,
    /// Games reaching the position that the filters accept.
    pub totals: Totals,
    /// The moves played from it.
    pub moves: Vec<ExplorerMove>,
    /// Highest rated games first (game rating, then game number).
    pub top_games: Vec<GameRef>,
    /// Most recent games first (date, then the later game number).
    pub recent_games: Vec<GameRef>,
}

/// Explores `pos` in `index` (an error when the index is damaged).
pub fn explore(index: &Index, pos: &Chess, req: &Request) -> Result<Report, IndexError> {
    let keep = req.filters.matcher();
    let tree = index.tree_games(pos, &keep)?;
    let totals = index.totals_of(pos, &keep)?;
    // The move a listed game played from the position (each move's games
    // are in order); looked up only for the few games listed.
    let played = |g: u32| {
        tree.iter()
            .find(|(_, games)| games.binary_search(&g).is_ok())
            .map(|(t, _)| t.uci.clone())
    };
    let (mut top, mut recent) = (Vec::new(), Vec::new());
    if req.top_games > 0 || req.recent_games > 0 {
        let all: Vec<(u32, GameInfo)> = index
            .find(pos)?
            .into_iter()
            .filter_map(|(g, _)| {
                let info = index.game(g).unwrap_or_default();
                keep(&info).then_some((g, info))
            })
            .collect();
        top = first_by(&all, req.top_games, |&(g, ref info)| {
            game_rating(info).map(|r| (std::cmp::Reverse(r), g))
        });
        recent = first_by(&all, req.recent_games, |&(g, ref info)| {
            (info.date.0 > 0).then_some(std::cmp::Reverse((info.date, g)))
        });
    }
    let listed = |v: Vec<(u32, GameInfo)>| -> Vec<GameRef> {
        v.into_iter()
            .map(|(id, info)| GameRef {
                id,
                uci: played(id),
                info,
            })
            .collect()
    };
    let (top_games, recent_games) = (listed(top), listed(recent));
    let moves = tree
        .into_iter()
        .take(req.moves.unwrap_or(usize::MAX))
        .map(|(tree, games)| ExplorerMove {
            game: (games.len() == 1).then(|| GameRef {
                id: games[0],
                uci: Some(tree.uci.clone()),
                info: index.game(games[0]).unwrap_or_default(),
            }),
            tree,
        })
        .collect();
    Ok(Report {
        fen: gamerec::fen::write_fen(pos, shakmaty::CastlingMode::Standard),
        totals,
        moves,
        top_games,
        recent_games,
    })
}

/// The first `n` (at most [`MAX_LIST`]) of the games that have a `key`, in
/// key order (keys are unique: they end with the game number); the rest
/// are not sorted.
fn first_by<K: Ord>(
    all: &[(u32, GameInfo)],
    n: usize,
    key: impl Fn(&(u32, GameInfo)) -> Option<K>,
) -> Vec<(u32, GameInfo)> {
    let n = n.min(MAX_LIST);
    let mut keyed: Vec<(K, usize)> = all
        .iter()
        .enumerate()
        .filter_map(|(i, r)| key(r).map(|k| (k, i)))
        .collect();
    if n < keyed.len() {
        keyed.select_nth_unstable_by(n, |a, b| a.0.cmp(&b.0));
        keyed.truncate(n);
    }
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, i)| all[i]).collect()
}

/// Plays `moves` (UCI or SAN each, `0000` or `--` a null move) from `pos`;
/// returns every position on the way, `pos` first.
pub fn play(pos: &Chess, moves: &[&str]) -> Result<Vec<Chess>, String> {
    let mut line = vec![pos.clone()];
    for text in moves {
        let cur = line.last().cloned().unwrap_or_default();
        let mv = match shakmaty::uci::UciMove::from_ascii(text.as_bytes()) {
            Ok(shakmaty::uci::UciMove::Null) => PlyMove::Null,
            Ok(u) => match u.to_move(&cur) {
                Ok(m) => PlyMove::Move(m),
                Err(_) => return Err(format!("{text:?} is not a legal move here")),
            },
            Err(_) if *text == "--" => PlyMove::Null,
            Err(_) => {
                gamerec::san::read_san(&cur, text.as_bytes(), &gamerec::san::ReadOptions::default())
                    .map_err(|_| format!("{text:?} is not a legal move here"))?
                    .mv
            }
        };
        let next = gamerec::model::try_play_ply(&cur, mv)
            .map_err(|_| format!("{text:?} is not a legal move here"))?;
        line.push(next);
    }
    Ok(line)
}

/// The opening of the deepest position of `line` that the book names.
pub fn opening<'a>(book: &'a EcoBook, line: &[Chess]) -> Option<&'a EcoLine> {
    line.iter().rev().find_map(|p| book.at_position(p))
}

/// Reads single games of a database by their index entries.
#[derive(Debug, Clone)]
pub struct Database {
    path: PathBuf,
    plain: bool,
    /// The last zstd frame decompressed: (its offset in the decompressed
    /// bytes, its bytes), so games read in order cost one decompression
    /// per frame.
    frame: FrameCache,
}

/// The frame kept decompressed: its first offset, its bytes.
type FrameCache = Arc<Mutex<Option<(u64, Arc<Vec<u8>>)>>>;

/// The largest game read back (a bound against a damaged offset).
const MAX_GAME: u64 = 64 << 20;
/// The largest zstd frame kept decompressed.
const MAX_FRAME: u64 = 8 << 20;

impl Database {
    /// The database at `path` (plain files are read by seeking; compressed
    /// ones from the frame holding the game when the index has a frame
    /// table, else from the start).
    pub fn new(path: &Path) -> io::Result<Database> {
        let plain = gamerec::io::Input::file(path)
            .open_plain()
            .map_err(io::Error::other)?
            .is_some();
        Ok(Database {
            path: path.to_path_buf(),
            plain,
            frame: Arc::default(),
        })
    }

    /// The bytes of game `g` (0-based), `None` if the index has no such
    /// game.
    pub fn game_bytes(&self, index: &Index, g: u32) -> io::Result<Option<Vec<u8>>> {
        let Some(info) = index.game(g) else {
            return Ok(None);
        };
        let end = g
            .checked_add(1)
            .and_then(|n| index.game(n))
            .map_or(index.db_len(), |n| n.offset)
            .min(index.db_len());
        let len = end.saturating_sub(info.offset).min(MAX_GAME);
        let mut buf = Vec::new();
        if self.plain {
            let mut f = File::open(&self.path)?;
            f.seek(SeekFrom::Start(info.offset))?;
            f.take(len).read_to_end(&mut buf)?;
        } else if let Some((frame, start, end)) = index.frame_at(info.offset) {
            // A zstd database of many frames: from the game's frame on (a
            // damaged frame table may name a frame after the game).
            if start <= info.offset && end - start <= MAX_FRAME && info.offset + len <= end {
                let bytes = self.frame_bytes(frame, start, end - start)?;
                let from = usize::try_from(info.offset - start).unwrap_or(usize::MAX);
                let to = usize::try_from(info.offset - start + len).unwrap_or(usize::MAX);
                buf.extend_from_slice(bytes.get(from..to).unwrap_or(&[]));
            } else {
                let mut r = crate::frames::read_from(&self.path, frame, start, info.offset)?;
                (&mut r).take(len).read_to_end(&mut buf)?;
            }
        } else {
            let input = gamerec::io::Input::file(&self.path);
            let r = input.open(None).map_err(io::Error::other)?;
            let mut r = crate::index::skip_to(r, info.offset)?;
            (&mut r).take(len).read_to_end(&mut buf)?;
        }
        Ok(Some(buf))
    }

    /// The decompressed bytes of the frame starting at `start` (`size`
    /// bytes), from the cache or decompressed into it.
    fn frame_bytes(&self, frame: u64, start: u64, size: u64) -> io::Result<Arc<Vec<u8>>> {
        let mut cache = self.frame.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, bytes)) = cache.as_ref()
            && *at == start
        {
            return Ok(bytes.clone());
        }
        let mut bytes = Vec::with_capacity(size as usize);
        crate::frames::read_from(&self.path, frame, start, start)?
            .take(size)
            .read_to_end(&mut bytes)?;
        let bytes = Arc::new(bytes);
        *cache = Some((start, bytes.clone()));
        Ok(bytes)
    }

    /// Game `g` (0-based) read back, `None` if absent or unreadable.
    pub fn game(&self, index: &Index, g: u32) -> io::Result<Option<Game>> {
        Ok(self
            .game_bytes(index, g)?
            .and_then(|b| gamerec::pgn::read_games(&b).0.into_iter().next()))
    }
}

fn game_json(r: &GameRef, names: &mut dyn FnMut(u32) -> (String, String)) -> Value {
    let (white, black) = names(r.id);
    let rating = |e: u16| if e > 0 { json!(e) } else { Value::Null };
    let winner = match r.info.result() {
        Some(gamerec::model::GameResult::WhiteWins) => json!("white"),
        Some(gamerec::model::GameResult::BlackWins) => json!("black"),
        _ => Value::Null,
    };
    let (y, m, _) = r.info.date;
    json!({
        "id": (r.id + 1).to_string(),
        "uci": r.uci,
        "winner": winner,
        "speed": Speed::from_byte(r.info.speed).map(Speed::name),
        "white": {"name": white, "rating": rating(r.info.white_elo)},
        "black": {"name": black, "rating": rating(r.info.black_elo)},
        "year": if y > 0 { json!(y) } else { Value::Null },
        "month": if y > 0 && m > 0 { json!(format!("{y:04}-{m:02}")) } else { Value::Null },
    })
}

/// The answer as lichess explorer JSON (one line). `names` gives a game's
/// White and Black names.
pub fn report_json(
    report: &Report,
    opening: Option<&EcoLine>,
    names: &mut dyn FnMut(u32) -> (String, String),
) -> String {
    let moves: Vec<Value> = report
        .moves
        .iter()
        .map(|m| {
            let t = &m.tree;
            json!({
                "uci": t.uci,
                "san": t.san,
                "averageRating": t.average_elo,
                "white": t.white,
                "draws": t.draws,
                "black": t.black,
                "games": t.games,
                "game": m.game.as_ref().map(|r| game_json(r, names)),
            })
        })
        .collect();
    let games = |list: &[GameRef], names: &mut dyn FnMut(u32) -> (String, String)| {
        list.iter().map(|r| game_json(r, names)).collect::<Vec<_>>()
    };
    let opening = opening.map(|l| {
        let eco = l.tags[0].clone().unwrap_or_default();
        let mut name = l.tags[1].clone().unwrap_or_default();
        if let Some(v) = &l.tags[2] {
            name.push_str(": ");
            name.push_str(v);
        }
        if let Some(v) = &l.tags[3] {
            name.push_str(", ");
            name.push_str(v);
        }
        json!({"eco": eco, "name": name})
    });
    let t = &report.totals;
    let doc = json!({
        "fen": report.fen,
        "white": t.white,
        "draws": t.draws,
        "black": t.black,
        "games": t.games,
        "ended": t.ended,
        "moves": moves,
        "topGames": games(&report.top_games, names),
        "recentGames": games(&report.recent_games, names),
        "opening": opening,
    });
    doc.to_string()
}
