//! The rules the referee enforces on one game, free of any I/O: replies are
//! checked and applied here; the async runner only moves records and time.

use std::collections::HashMap;
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};

use gamerec::model::PlyMove;

use crate::clock::{Clocks, FlagFall};
use crate::wire::Record;

/// PGN `Termination` tag values (PGN standard 9.8.1) the referee uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Termination {
    /// Checkmate, stalemate, resignation, agreement or a valid claim.
    Normal,
    /// A flag fell.
    TimeForfeit,
    /// An illegal move, a malformed record or a wrong claim.
    RulesInfraction,
    /// A player left and did not come back within the grace period.
    Abandoned,
    /// The supervisor ended the game.
    Adjudication,
    /// The game was not finished (adjourned).
    Unterminated,
}

impl Termination {
    /// The tag value.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::RulesInfraction => "rules infraction",
            Termination::Abandoned => "abandoned",
            Termination::Adjudication => "adjudication",
            Termination::Unterminated => "unterminated",
        }
    }
}

/// A game result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    /// A side won.
    Win(#[serde(with = "color_serde")] Color),
    /// Drawn.
    Draw,
    /// No result (adjourned or aborted).
    Unfinished,
}

mod color_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if c.is_white() { "white" } else { "black" })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            _ => Err(serde::de::Error::custom("expected white or black")),
        }
    }
}

impl Outcome {
    /// The PGN result token.
    pub fn result_str(self) -> &'static str {
        match self {
            Outcome::Win(Color::White) => "1-0",
            Outcome::Win(Color::Black) => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Unfinished => "*",
        }
    }

    /// The score for `color`, in half points.
    pub fn half_points(self, color: Color) -> u32 {
        match self {
            Outcome::Win(w) if w == color => 2,
            Outcome::Draw => 1,
            _ => 0,
        }
    }
}

/// How and why a game ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ending {
    /// The result.
    pub outcome: Outcome,
    /// The PGN Termination.
    pub termination: Termination,
    /// A human-readable reason, written as the final PGN comment.
    pub reason: String,
}

impl Ending {
    fn new(outcome: Outcome, termination: Termination, reason: impl Into<String>) -> Ending {
        Ending {
            outcome,
            termination,
            reason: reason.into(),
        }
    }
}

/// One move played, with the referee's timing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The move.
    pub mv: Move,
    /// Its SAN in the position it was played from.
    pub san: String,
    /// Time the mover took, as measured by the referee and charged to its
    /// clock: whole milliseconds.
    pub elapsed: Duration,
    /// The mover's clock after the move (increments applied), if timed.
    pub clock_after: Option<Duration>,
    /// Whether a draw offer travelled with the move.
    pub draw_offer: bool,
    /// A note the referee attaches (a rejected claim, ...).
    pub note: Option<String>,
    /// The referee's own time for the move: from the reply's arrival to
    /// the `respond` sent to the opponent (when there was one).
    pub latency: Option<Duration>,
    /// What the mover's engine reported with the move (`ce`, `acd`, `acn`).
    pub engine: EngineReport,
    /// The relay's overhead for the move, when the engine's own time was
    /// charged: the referee's measure (`respond` sent to `reply` in) less
    /// the engine's time (`go` written to `bestmove` read).
    pub relay: Option<Duration>,
    /// An opening (book) move: played by the referee before the players
    /// take over, off the clocks.
    pub book: bool,
}

/// A search's result as a client may send it with its move: the EPD
/// opcodes `ce` (centipawns, the mover's view, mates as in EPD 6.7), `acd`
/// (depth) and `acn` (nodes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineReport {
    /// `ce`: the evaluation from the mover's side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce: Option<i32>,
    /// `acd`: search depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// `acn`: nodes searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

impl EngineReport {
    /// The report carried by a reply record (out-of-range values dropped).
    pub fn of_record(record: &Record) -> EngineReport {
        EngineReport {
            ce: record
                .integer("ce")
                .and_then(|v| i32::try_from(v).ok())
                .filter(|v| v.abs() <= 32767),
            // `acd` (analysis count depth) is not a section 6 opcode: read
            // its operand's text.
            depth: record
                .op("acd")
                .and_then(|op| op.operands.first())
                .and_then(|o| o.text().parse().ok()),
            nodes: record.integer("acn").and_then(|v| u64::try_from(v).ok()),
        }
    }
}

/// What a reply did to the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A move was played and the game goes on.
    Moved,
    /// The game is over.
    Ended(Ending),
}

/// The referee's view of one game.
#[derive(Debug, Clone)]
pub struct GameState {
    start: Chess,
    pos: Chess,
    played: Vec<Played>,
    clocks: Clocks,
    /// The positions since the start (for repetitions).
    seen: Repetitions,
    /// A draw offer made with the last move, by this side.
    offer: Option<Color>,
    ending: Option<Ending>,
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// How often each position of a game has occurred, counted by Zobrist key
/// as each position is reached: a position's count is one look-up (a scan
/// of all the game's keys at each move made a long game quadratic).
#[derive(Debug, Clone, Default)]
pub struct Repetitions {
    counts: HashMap<u64, u32>,
}

impl Repetitions {
    /// The positions of a game starting at `start`.
    pub fn new(start: &Chess) -> Repetitions {
        let mut seen = Repetitions::default();
        seen.push(start);
        seen
    }

    /// Counts one more occurrence of `pos`.
    pub fn push(&mut self, pos: &Chess) {
        let count = self.counts.entry(key(pos)).or_insert(0);
        *count = count.saturating_add(1);
    }

    /// How often `pos` has occurred.
    pub fn count(&self, pos: &Chess) -> u32 {
        self.counts.get(&key(pos)).copied().unwrap_or(0)
    }
}

/// The EPD four data fields of `pos` (en passant written as in EPD 4.4:
/// whenever the last move was a double pawn push).
pub fn epd_fields(pos: &Chess) -> String {
    gamerec::fen::write_epd_position(pos, shakmaty::CastlingMode::Standard)
}

impl GameState {
    /// A new game from `start` under `clocks`.
    pub fn new(start: Chess, clocks: Clocks) -> GameState {
        GameState {
            seen: Repetitions::new(&start),
            pos: start.clone(),
            start,
            played: Vec::new(),
            clocks,
            offer: None,
            ending: None,
        }
    }

    /// The starting position.
    pub fn start(&self) -> &Chess {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The moves played so far.
    pub fn played(&self) -> &[Played] {
        &self.played
    }

    /// The clocks.
    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    /// Sets the clocks' time margin (see [`Clocks::set_margin`]).
    pub fn set_time_margin(&mut self, margin: Duration) {
        self.clocks.set_margin(margin);
    }

    /// Records the referee's latency for the last move played.
    pub fn set_last_latency(&mut self, latency: Duration) {
        if let Some(last) = self.played.last_mut() {
            last.latency = Some(latency);
        }
    }

    /// Records the relay's overhead for the last move played.
    pub fn set_last_relay(&mut self, relay: Duration) {
        if let Some(last) = self.played.last_mut() {
            last.relay = Some(relay);
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// How the game ended, if it has.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// The side whose draw offer awaits an answer from the side to move.
    pub fn pending_offer(&self) -> Option<Color> {
        self.offer
    }

    /// The position before the last move and the last move, or the current
    /// position and no move: what a `respond` or `execute` record carries.
    pub fn last_move_view(&self) -> (Chess, Option<(Move, String)>) {
        match self.played.last() {
            None => (self.pos.clone(), None),
            Some(last) => {
                let mut before = self.start.clone();
                for p in &self.played[..self.played.len() - 1] {
                    before.play_unchecked(p.mv);
                }
                (before, Some((last.mv, last.san.clone())))
            }
        }
    }

    /// Positions before each move, with the moves: for replay with `execute`.
    pub fn replay(&self) -> Vec<(Chess, Move)> {
        let mut pos = self.start.clone();
        let mut out = Vec::with_capacity(self.played.len());
        for p in &self.played {
            out.push((pos.clone(), p.mv));
            pos.play_unchecked(p.mv);
        }
        out
    }

    /// Ends the game from outside (supervisor, abandonment, adjournment).
    pub fn end(&mut self, outcome: Outcome, termination: Termination, reason: &str) -> Ending {
        let ending = Ending::new(outcome, termination, reason);
        self.ending = Some(ending.clone());
        ending
    }

    /// The side to move ran out of time while thinking for `elapsed`.
    pub fn flag(&mut self, elapsed: Duration) -> Ending {
        let color = self.turn();
        let overrun = self
            .clocks
            .remaining(color)
            .map(|rem| elapsed.saturating_sub(rem));
        self.clocks.exhaust(color, elapsed);
        self.flag_fell(color, overrun)
    }

    /// `color`'s flag fell, `overrun` past its clock's zero (the reason
    /// says by how much, in milliseconds).
    fn flag_fell(&mut self, color: Color, overrun: Option<Duration>) -> Ending {
        let over = overrun.map_or(String::new(), |o| {
            format!(" ({:.0} ms over)", o.as_secs_f64() * 1000.0)
        });
        let ending = if self.pos.has_insufficient_material(!color) {
            Ending::new(
                Outcome::Draw,
                Termination::TimeForfeit,
                format!("{color} lost on time{over} but {} cannot mate", !color),
            )
        } else {
            Ending::new(
                Outcome::Win(!color),
                Termination::TimeForfeit,
                format!("{color} lost on time{over}"),
            )
        };
        self.ending = Some(ending.clone());
        ending
    }

    /// The side to move sent a record whose `sm` is not a legal move,
    /// `elapsed` after the `respond` (a fallen flag takes precedence).
    pub fn illegal_move(&mut self, mv: &str, why: &str, elapsed: Duration) -> Step {
        if self.ending.is_none()
            && let Some(rem) = self.clocks.time_to_flag(self.turn())
            && elapsed >= rem
        {
            return Step::Ended(self.flag(elapsed));
        }
        let color = self.turn();
        self.infraction(format!("{color} played an illegal move '{mv}' ({why})"))
    }

    /// `color` sent a line that is not a well-formed record.
    pub fn malformed(&mut self, color: Color, why: &str) -> Ending {
        self.end(
            Outcome::Win(!color),
            Termination::RulesInfraction,
            &format!("{color} sent a malformed record: {why}"),
        )
    }

    fn infraction(&mut self, reason: String) -> Step {
        let loser = self.turn();
        let ending = Ending::new(Outcome::Win(!loser), Termination::RulesInfraction, reason);
        self.ending = Some(ending.clone());
        Step::Ended(ending)
    }

    /// Whether a draw may be claimed in the current position.
    fn claimable(&self) -> Option<&'static str> {
        draw_claim(&self.pos, self.seen.count(&self.pos) >= 3)
    }

    /// Applies a `reply` record from the side to move, received `elapsed`
    /// after the `respond` was sent.
    pub fn apply_reply(&mut self, reply: &Record, elapsed: Duration) -> Step {
        if let Some(ending) = &self.ending {
            return Step::Ended(ending.clone());
        }
        let color = self.turn();
        if let Some(rem) = self.clocks.time_to_flag(color)
            && elapsed >= rem
        {
            return Step::Ended(self.flag(elapsed));
        }
        if key(reply.chess()) != key(&self.pos) {
            return self.infraction(format!(
                "{color} replied from position '{}', expected '{}'",
                reply.position,
                epd_fields(&self.pos)
            ));
        }
        let offer = self.offer.take();
        if reply.has("draw_accept") {
            if offer == Some(!color) {
                let _ = self.clocks.complete_move(color, elapsed);
                return Step::Ended(self.end(Outcome::Draw, Termination::Normal, "draw agreed"));
            }
            return self.infraction(format!("{color} accepted a draw that was not offered"));
        }
        if reply.has("resign") {
            let _ = self.clocks.complete_move(color, elapsed);
            return Step::Ended(self.end(
                Outcome::Win(!color),
                Termination::Normal,
                &format!("{color} resigns"),
            ));
        }
        let claim = reply.has("draw_claim");
        let mv = match reply.moves("sm").first() {
            None => {
                if claim {
                    if let Some(why) = self.claimable() {
                        let _ = self.clocks.complete_move(color, elapsed);
                        return Step::Ended(self.end(
                            Outcome::Draw,
                            Termination::Normal,
                            &format!("draw claimed by {color}: {why}"),
                        ));
                    }
                    return self.infraction(format!("{color} made an invalid draw claim"));
                }
                return self.infraction(format!("{color} replied without a move"));
            }
            Some(PlyMove::Move(mv)) => *mv,
            Some(PlyMove::Null) => return self.infraction(format!("{color} supplied a null move")),
        };
        let san = shakmaty::san::SanPlus::from_move(self.pos.clone(), mv).to_string();
        // A claim may concern the current position or the one after the move.
        let mut note = None;
        if claim && let Some(why) = self.claimable() {
            let _ = self.clocks.complete_move(color, elapsed);
            return Step::Ended(self.end(
                Outcome::Draw,
                Termination::Normal,
                &format!("draw claimed by {color}: {why}"),
            ));
        }
        let before = self.clocks.remaining(color);
        if let Err(FlagFall(c)) = self.clocks.complete_move(color, elapsed) {
            let overrun = before.map(|rem| elapsed.saturating_sub(rem));
            return Step::Ended(self.flag_fell(c, overrun));
        }
        if !self.pos.is_legal(mv) {
            return self.infraction(format!("{color} played an illegal move"));
        }
        self.pos.play_unchecked(mv);
        self.seen.push(&self.pos);
        if claim {
            if let Some(why) = self.claimable() {
                self.push_played(mv, san, elapsed, false, None, color);
                return Step::Ended(self.end(
                    Outcome::Draw,
                    Termination::Normal,
                    &format!("draw claimed by {color}: {why}"),
                ));
            }
            note = Some(format!("invalid draw claim by {color} rejected"));
        }
        let offered = reply.has("draw_offer") && !claim;
        self.push_played(mv, san, elapsed, offered, note, color);
        self.annotate_last(EngineReport::of_record(reply));
        if offered {
            self.offer = Some(color);
        }
        if let Some(ending) = self.automatic_ending(color) {
            self.ending = Some(ending.clone());
            return Step::Ended(ending);
        }
        Step::Moved
    }

    fn push_played(
        &mut self,
        mv: Move,
        san: String,
        elapsed: Duration,
        draw_offer: bool,
        note: Option<String>,
        color: Color,
    ) {
        self.played.push(Played {
            mv,
            san,
            // What the clock was charged: whole milliseconds.
            elapsed: Duration::from_millis(elapsed.as_millis().min(u128::from(u64::MAX)) as u64),
            clock_after: self.clocks.remaining(color),
            draw_offer,
            note,
            latency: None,
            engine: EngineReport::default(),
            relay: None,
            book: false,
        });
    }

    /// Sets what the engine reported with the last move (a restored game).
    pub fn annotate_last(&mut self, engine: EngineReport) {
        if let Some(last) = self.played.last_mut() {
            last.engine = engine;
        }
    }

    /// Endings that need no claim: mate, stalemate, dead position, and the
    /// automatic fivefold / 75-move draws that bound every game.
    fn automatic_ending(&self, mover: Color) -> Option<Ending> {
        let pos = &self.pos;
        if pos.is_checkmate() {
            return Some(Ending::new(
                Outcome::Win(mover),
                Termination::Normal,
                format!("{mover} mates"),
            ));
        }
        if pos.is_stalemate() {
            return Some(Ending::new(Outcome::Draw, Termination::Normal, "stalemate"));
        }
        if pos.is_insufficient_material() {
            return Some(Ending::new(
                Outcome::Draw,
                Termination::Normal,
                "insufficient material",
            ));
        }
        if self.seen.count(pos) >= 5 {
            return Some(Ending::new(
                Outcome::Draw,
                Termination::Normal,
                "fivefold repetition",
            ));
        }
        if pos.halfmoves() >= 150 {
            return Some(Ending::new(
                Outcome::Draw,
                Termination::Normal,
                "75-move rule",
            ));
        }
        None
    }

    /// Plays an opening (book) move: no time, no increment, not counted
    /// by the clocks' periods; the PGN marks it `book`.
    pub fn play_book_move(&mut self, san: &str) -> Result<(), String> {
        let color = self.turn();
        let mv = parse_move(&self.pos, san)?;
        let san = shakmaty::san::SanPlus::from_move(self.pos.clone(), mv).to_string();
        self.pos.play_unchecked(mv);
        self.seen.push(&self.pos);
        self.push_played(mv, san, Duration::ZERO, false, None, color);
        if let Some(last) = self.played.last_mut() {
            last.clock_after = None;
            last.book = true;
        }
        Ok(())
    }

    /// The number of opening (book) moves at the start of the game.
    pub fn book_plies(&self) -> usize {
        self.played.iter().take_while(|p| p.book).count()
    }

    /// Replays a recorded move (restart), without clock checks.
    pub fn replay_move(&mut self, san: &str, elapsed: Duration) -> Result<(), String> {
        let color = self.turn();
        let mv = parse_move(&self.pos, san)?;
        let san = shakmaty::san::SanPlus::from_move(self.pos.clone(), mv).to_string();
        let _ = self.clocks.complete_move(color, elapsed);
        self.pos.play_unchecked(mv);
        self.seen.push(&self.pos);
        self.push_played(mv, san, elapsed, false, None, color);
        Ok(())
    }
}

/// Reads a supplied move: SAN (tolerantly) or, failing that, UCI. An
/// error quotes the text shortened ([`gamerec::excerpt`]).
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let shown = || gamerec::excerpt::excerpt(text);
    match gamerec::san::read_san(pos, text.as_bytes(), &gamerec::san::ReadOptions::default()) {
        Ok(read) => match read.mv {
            gamerec::model::PlyMove::Move(m) => Ok(m),
            gamerec::model::PlyMove::Null => Err(format!("null move '{}' is not a move", shown())),
        },
        Err(e) => match UciMove::from_ascii(text.as_bytes())
            .ok()
            .and_then(|u| u.to_move(pos).ok())
        {
            Some(m) => Ok(m),
            None => Err(format!("illegal or unreadable move '{}': {e}", shown())),
        },
    }
}

/// Builds a position from EPD fields plus halfmove clock and fullmove number.
pub fn position_from_fields(fields: &str, hmvc: u32, fmvn: u32) -> Result<Chess, String> {
    let fen = format!("{} {hmvc} {}", fields.trim(), fmvn.max(1));
    gamerec::fen::read_fen(&fen)
        .map(|(pos, _)| pos)
        .map_err(|e| format!("bad position: {e}"))
}

/// The draw a player may claim in `pos` (`threefold`: the position has
/// stood there three times), if any.
fn draw_claim(pos: &Chess, threefold: bool) -> Option<&'static str> {
    if threefold {
        Some("threefold repetition")
    } else if pos.halfmoves() >= 100 {
        Some("fifty-move rule")
    } else if pos.is_insufficient_material() {
        Some("insufficient material")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;

    fn game(tc: &str) -> GameState {
        GameState::new(
            Chess::default(),
            Clocks::new(tc.parse::<TimeControl>().unwrap()),
        )
    }

    fn reply(g: &GameState, ops: &str) -> Record {
        crate::wire::read_record(&format!("{} refreq reply; {ops}", epd_fields(g.position())))
            .unwrap()
    }

    fn play(g: &mut GameState, moves: &[&str]) {
        for m in moves {
            let r = reply(g, &format!("sm {m};"));
            assert_eq!(
                g.apply_reply(&r, Duration::from_secs(1)),
                Step::Moved,
                "{m}"
            );
        }
    }

    #[test]
    fn fools_mate_is_detected() {
        let mut g = game("300");
        play(&mut g, &["f3", "e5", "g4"]);
        let r = reply(&g, "sm Qh4;");
        let Step::Ended(e) = g.apply_reply(&r, Duration::from_secs(1)) else {
            panic!()
        };
        assert_eq!(e.outcome, Outcome::Win(Color::Black));
        assert_eq!(g.played().last().unwrap().san, "Qh4#");
    }

    #[test]
    fn illegal_move_and_wrong_position_are_infractions() {
        let mut g = game("300");
        let Step::Ended(e) = g.illegal_move("e5", "not legal", Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.termination, Termination::RulesInfraction);
        assert_eq!(e.outcome, Outcome::Win(Color::Black));
        assert!(e.reason.contains("illegal move 'e5'"), "{}", e.reason);
        let mut g = game("300");
        let r = crate::wire::read_record("8/8/8/8/8/8/8/K6k w - - refreq reply; sm Kb2;").unwrap();
        let Step::Ended(e) = g.apply_reply(&r, Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.termination, Termination::RulesInfraction);
    }

    #[test]
    fn flag_fall_loses_or_draws() {
        let mut g = game("10");
        let Step::Ended(e) = g.apply_reply(&reply(&g, "sm e4;"), Duration::from_secs(11)) else {
            panic!()
        };
        assert_eq!(
            (e.outcome, e.termination),
            (Outcome::Win(Color::Black), Termination::TimeForfeit)
        );
        let pos = position_from_fields("k7/8/8/8/8/8/8/K5Q1 b - -", 0, 40).unwrap();
        let mut g = GameState::new(pos, Clocks::new("10".parse().unwrap()));
        let e = g.flag(Duration::from_secs(10));
        assert_eq!(e.outcome, Outcome::Win(Color::White));
        let pos = position_from_fields("k7/8/8/8/8/8/8/K5Q1 w - -", 0, 40).unwrap();
        let mut g = GameState::new(pos, Clocks::new("10".parse().unwrap()));
        let e = g.flag(Duration::from_secs(10));
        assert_eq!(e.outcome, Outcome::Draw, "lone king cannot mate");
    }

    #[test]
    fn draw_offer_accept_and_reject() {
        let mut g = game("300");
        play(&mut g, &["e4"]);
        let r = reply(&g, "sm e5; draw_offer;");
        assert_eq!(g.apply_reply(&r, Duration::ZERO), Step::Moved);
        assert_eq!(g.pending_offer(), Some(Color::Black));
        let r = reply(&g, "draw_reject; sm Nf3;");
        assert_eq!(g.apply_reply(&r, Duration::ZERO), Step::Moved);
        assert_eq!(g.pending_offer(), None);
        let r = reply(&g, "draw_offer; sm Nc6;");
        assert_eq!(g.apply_reply(&r, Duration::ZERO), Step::Moved);
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_accept;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.outcome, Outcome::Draw);
        assert_eq!(e.reason, "draw agreed");
    }

    #[test]
    fn accepting_no_offer_is_an_infraction() {
        let mut g = game("300");
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_accept;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.termination, Termination::RulesInfraction);
    }

    #[test]
    fn threefold_claim_valid_and_invalid() {
        let mut g = game("-");
        play(&mut g, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
        // Too early: the start position occurred twice, after Ng8 it would be three.
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_claim; sm Ng8;"), Duration::ZERO)
        else {
            panic!()
        };
        assert_eq!(e.outcome, Outcome::Draw);
        assert!(e.reason.contains("threefold"), "{}", e.reason);

        let mut g = game("-");
        play(&mut g, &["Nf3", "Nf6", "Ng1"]);
        let r = reply(&g, "draw_claim; sm Ng8;");
        assert_eq!(g.apply_reply(&r, Duration::ZERO), Step::Moved);
        assert!(g.played().last().unwrap().note.is_some());
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_claim;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.termination, Termination::RulesInfraction);
    }

    /// Every repetition answer (a claim before or after the move, the
    /// automatic fivefold) is the old rule's, which counted the position
    /// among every position key since the start: random games that often
    /// move a piece back (so positions repeat), with random claims.
    #[test]
    fn repetition_answers_are_those_of_counting_every_key() {
        use shakmaty::Role;
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut random = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        // The old rule, on the keys this test keeps itself.
        let old_claimable = |pos: &Chess, keys: &[u64]| {
            let k = key(pos);
            draw_claim(pos, keys.iter().filter(|&&x| x == k).count() >= 3)
        };
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        for _ in 0..400 {
            let mut g = game("-");
            let mut keys = vec![key(g.position())];
            for _ in 0..400 {
                let pos = g.position().clone();
                let color = pos.turn();
                let legal = pos.legal_moves();
                // The mover's last move, back.
                let back = g
                    .played()
                    .len()
                    .checked_sub(2)
                    .map(|i| g.played()[i].mv)
                    .and_then(|m| match m {
                        Move::Normal {
                            role,
                            from,
                            to,
                            capture: None,
                            promotion: None,
                        } if role != Role::Pawn => Some(Move::Normal {
                            role,
                            from: to,
                            to: from,
                            capture: None,
                            promotion: None,
                        }),
                        _ => None,
                    })
                    .filter(|m| legal.contains(m));
                let quiet: Vec<Move> = legal.iter().filter(|m| !m.is_zeroing()).copied().collect();
                let mv = match back {
                    Some(m) if random(4) != 0 => m,
                    _ if !quiet.is_empty() && random(8) != 0 => {
                        quiet[random(quiet.len() as u64) as usize]
                    }
                    _ => legal[random(legal.len() as u64) as usize],
                };
                let claim = random(8) == 0;
                let claimed = |why: &str| format!("draw claimed by {color}: {why}");
                let expected = match old_claimable(&pos, &keys).filter(|_| claim) {
                    Some(why) => Some(claimed(why)),
                    None => {
                        let mut after = pos.clone();
                        after.play_unchecked(mv);
                        keys.push(key(&after));
                        let k = key(&after);
                        match old_claimable(&after, &keys).filter(|_| claim) {
                            Some(why) => Some(claimed(why)),
                            None if after.is_checkmate() => Some(format!("{color} mates")),
                            None if after.is_stalemate() => Some("stalemate".into()),
                            None if after.is_insufficient_material() => {
                                Some("insufficient material".into())
                            }
                            None if keys.iter().filter(|&&x| x == k).count() >= 5 => {
                                Some("fivefold repetition".into())
                            }
                            None if after.halfmoves() >= 150 => Some("75-move rule".into()),
                            None => None,
                        }
                    }
                };
                let san = shakmaty::san::San::from_move(&pos, mv).to_string();
                let ops = if claim {
                    format!("draw_claim; sm {san};")
                } else {
                    format!("sm {san};")
                };
                match (g.apply_reply(&reply(&g, &ops), Duration::ZERO), expected) {
                    (Step::Moved, None) => {}
                    (Step::Ended(e), Some(reason)) => {
                        assert_eq!(e.reason, reason);
                        *seen.entry(reason).or_default() += 1;
                        break;
                    }
                    (step, expected) => panic!("{step:?}, expected {expected:?}"),
                }
            }
        }
        // The games hit every repetition answer.
        for reason in [
            "draw claimed by white: threefold repetition",
            "draw claimed by black: threefold repetition",
            "fivefold repetition",
        ] {
            assert!(seen.get(reason).is_some_and(|&n| n >= 5), "{seen:?}");
        }
    }

    #[test]
    fn fifty_move_claim() {
        let pos = position_from_fields("4k3/8/8/8/8/8/R7/4K3 w - -", 99, 80).unwrap();
        let mut g = GameState::new(pos.clone(), Clocks::new("-".parse().unwrap()));
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_claim; sm Ra3;"), Duration::ZERO)
        else {
            panic!()
        };
        assert!(e.reason.contains("fifty"), "{}", e.reason);
        let pos = position_from_fields("4k3/8/8/8/8/8/R7/4K3 w - -", 90, 80).unwrap();
        let mut g = GameState::new(pos, Clocks::new("-".parse().unwrap()));
        assert_eq!(
            g.apply_reply(&reply(&g, "draw_claim; sm Ra3;"), Duration::ZERO),
            Step::Moved
        );
    }

    #[test]
    fn insufficient_material_claim_and_automatic_draws() {
        let pos = position_from_fields("4k3/8/8/8/8/8/8/4K1N1 w - -", 0, 60).unwrap();
        let mut g = GameState::new(pos, Clocks::new("-".parse().unwrap()));
        let Step::Ended(e) = g.apply_reply(&reply(&g, "draw_claim;"), Duration::ZERO) else {
            panic!()
        };
        assert!(e.reason.contains("insufficient"));
        // Capturing the last pawn leaves K v K: drawn without a claim.
        let pos = position_from_fields("4k3/8/8/8/8/8/3p4/4K3 w - -", 0, 60).unwrap();
        let mut g = GameState::new(pos, Clocks::new("-".parse().unwrap()));
        let Step::Ended(e) = g.apply_reply(&reply(&g, "sm Kxd2;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.outcome, Outcome::Draw);
    }

    #[test]
    fn stalemate_resign_and_uci_moves() {
        let pos = position_from_fields("k7/8/1Q6/8/8/8/8/K7 w - -", 0, 60).unwrap();
        let mut g = GameState::new(pos, Clocks::new("-".parse().unwrap()));
        let Step::Ended(e) = g.apply_reply(&reply(&g, "sm b6c7;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.reason, "stalemate");
        let mut g = game("60");
        let Step::Ended(e) = g.apply_reply(&reply(&g, "resign;"), Duration::ZERO) else {
            panic!()
        };
        assert_eq!(e.outcome, Outcome::Win(Color::Black));
        assert_eq!(e.termination, Termination::Normal);
    }

    #[test]
    fn book_moves_are_off_the_clocks() {
        let mut g = game("2/10+1");
        g.play_book_move("e4").unwrap();
        g.play_book_move("e5").unwrap();
        assert!(g.play_book_move("Ke3").is_err());
        assert_eq!(g.book_plies(), 2);
        assert!(g.played().iter().all(|p| p.book && p.clock_after.is_none()));
        // No increment, and not counted toward the 2-move period.
        for side in [Color::White, Color::Black] {
            assert_eq!(g.clocks().remaining(side), Some(Duration::from_secs(10)));
        }
        play(&mut g, &["Nf3"]);
        assert_eq!(g.book_plies(), 2);
        assert!(!g.played()[2].book);
    }

    #[test]
    fn a_long_move_makes_a_short_message() {
        let long = format!("Nf3{}", "x".repeat(1 << 20));
        let e = parse_move(&Chess::default(), &long).unwrap_err();
        assert!(e.len() < 1024, "{} bytes", e.len());
        assert!(e.contains("'Nf3xxxxx"), "{e}");
        let mut g = game("60");
        let e = g.replay_move(&long, Duration::ZERO).unwrap_err();
        assert!(e.len() < 1024, "{} bytes", e.len());
    }

    #[test]
    fn clocks_and_views() {
        let mut g = game("60+1");
        play(&mut g, &["e4", "c5"]);
        assert_eq!(g.played()[0].clock_after, Some(Duration::from_secs(60)));
        let (before, last) = g.last_move_view();
        assert_eq!(last.unwrap().1, "c5");
        assert_eq!(
            epd_fields(&before),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3"
        );
        assert_eq!(g.replay().len(), 2);
    }
}
