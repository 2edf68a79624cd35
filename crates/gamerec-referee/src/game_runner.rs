//! Runs one game between two seats: the section 8 command sequence
//! (reset, inform, execute for replays, respond/reply, inform Result,
//! conclude), the referee's clocks, disconnect grace and supervisor stops.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::{Chess, Color};
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until};

use crate::clock::TimeControl;
use crate::game_rules::{GameState, Outcome, Step, Termination};
use crate::lobby::{Inbound, Lobby, Seat};
use crate::log::EventLog;
use gamerec::epd::basetypes::EpdClock;
use gamerec::epd::{Opcode, Operand, Operation};
use gamerec::model::PlyMove;

use crate::wire::{Record, position_record, refreq, with_refcom as finish};

/// Delays and limits of the protocol.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Quiet time after `reset` (EPD 8.1.6; default 5 s).
    pub reset_delay: Duration,
    /// Quiet time after `conclude` (EPD 8.1.1; default 5 s).
    pub conclude_delay: Duration,
    /// How long a disconnected player may take to come back.
    pub grace: Duration,
    /// How long a player may stay silent in an untimed game.
    pub silence: Duration,
    /// How far past zero a clock may run before its flag falls (default 0).
    pub margin: Duration,
    /// Trusted clients (the match runner's own bridges): a `reply` that
    /// carries the engine's own time ([`crate::wire::ENGINE_TIME_OPCODE`],
    /// `go` written to `bestmove` read) is charged that time, not the
    /// referee's measure, and the flag waits this much longer for the relay.
    /// `None` (the default): every client is charged the referee's measure.
    pub relay_allowance: Option<Duration>,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            reset_delay: Duration::from_secs(5),
            conclude_delay: Duration::from_secs(5),
            grace: Duration::from_secs(30),
            silence: Duration::from_secs(600),
            margin: Duration::ZERO,
            relay_allowance: None,
        }
    }
}

/// Everything fixed about a game before it starts.
#[derive(Debug, Clone)]
pub struct GameSpec {
    /// Game number within the event (1-based).
    pub number: u32,
    /// PGN Event.
    pub event: String,
    /// PGN Site.
    pub site: String,
    /// PGN Date.
    pub date: String,
    /// PGN Round.
    pub round: String,
    /// White's player name.
    pub white: String,
    /// Black's player name.
    pub black: String,
    /// The starting position.
    pub start: Chess,
    /// Opening moves (SAN) played before the players take over, shared
    /// by the games that play them.
    pub opening: Arc<[String]>,
    /// The time control (White's, when the sides have their own).
    pub time_control: TimeControl,
    /// Black's time control when it differs from White's (a match's
    /// per-engine limits); `None`: both play `time_control`.
    pub black_time_control: Option<TimeControl>,
}

impl GameSpec {
    /// The control `color` plays.
    pub fn control_of(&self, color: Color) -> &TimeControl {
        match (color, &self.black_time_control) {
            (Color::Black, Some(b)) => b,
            _ => &self.time_control,
        }
    }

    /// Fresh clocks for the game: each side under its own control.
    pub fn clocks(&self) -> crate::clock::Clocks {
        crate::clock::Clocks::per_side(
            self.time_control.clone(),
            self.control_of(Color::Black).clone(),
        )
    }

    /// The Seven Tag Roster plus TimeControl (White/BlackTimeControl when
    /// the sides' differ; and SetUp/FEN when the start is
    /// not the standard position), Result as `result`.
    pub fn tags(&self, result: &str) -> Vec<(String, String)> {
        let mut tags: Vec<(String, String)> = [
            ("Event", self.event.as_str()),
            ("Site", self.site.as_str()),
            ("Date", self.date.as_str()),
            ("Round", self.round.as_str()),
            ("White", self.white.as_str()),
            ("Black", self.black.as_str()),
            ("Result", result),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        match &self.black_time_control {
            Some(black) if *black != self.time_control => {
                tags.push(("WhiteTimeControl".into(), self.time_control.to_string()));
                tags.push(("BlackTimeControl".into(), black.to_string()));
            }
            _ => tags.push(("TimeControl".into(), self.time_control.to_string())),
        }
        let mode = castling_mode(&self.start);
        if mode == shakmaty::CastlingMode::Chess960 {
            tags.push(("Variant".into(), "Chess960".into()));
        }
        if self.start != Chess::default() {
            tags.push(("SetUp".into(), "1".into()));
            tags.push(("FEN".into(), gamerec::fen::write_fen(&self.start, mode)));
        }
        tags
    }
}

/// Chess960 when `start`'s castling rights need it (a king or rook off its
/// standard square), else standard: castling is the same in both then.
pub fn castling_mode(start: &Chess) -> shakmaty::CastlingMode {
    use shakmaty::Position;
    shakmaty::CastlingMode::detect(&start.to_setup(shakmaty::EnPassantMode::Legal))
}

/// How the supervisor (or shutdown) stops a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// End the game with this outcome (Termination "adjudication").
    Abort(Outcome),
    /// Stop now, keep the game unfinished to resume later.
    Adjourn,
}

/// Called with the game after it starts, after every move and at its end.
pub type Hook = Arc<dyn Fn(&GameSpec, &GameState) + Send + Sync>;

/// Decides after each move whether a game ends early (a match's
/// adjudication rules): the outcome and the reason, or `None` to play on.
pub type Adjudicator =
    Arc<dyn Fn(&GameSpec, &GameState) -> Option<(Outcome, String)> + Send + Sync>;

/// What a game needs from the event.
#[derive(Clone)]
pub struct GameContext {
    /// Where players wait.
    pub lobby: Arc<Lobby>,
    /// Delays and limits.
    pub timing: Timing,
    /// The event log.
    pub log: EventLog,
    /// Progress callback.
    pub hook: Hook,
    /// Adjudication, checked after every move (before the next `respond`).
    pub adjudicator: Option<Adjudicator>,
}

/// How `run_game` returned.
#[derive(Debug)]
pub enum RunEnd {
    /// The game has a result (including adjudication).
    Finished(GameState),
    /// The game was adjourned or the referee shut down mid-game.
    Interrupted(GameState),
}

fn inform_record(spec: &GameSpec, pos: &Chess, result: &str) -> Record {
    let tags = spec.tags(result);
    let ptp = Operation::tag_pairs(tags.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    finish(crate::wire::bare_record(pos).with(ptp), "inform")
}

fn respond_record(state: &GameState) -> Record {
    let (before, last) = state.last_move_view();
    let mut record = position_record(&before);
    let cc = state.clocks().cc_seconds();
    record.set(Operation::new(
        Opcode::Cc,
        cc.iter()
            .map(|&s| Operand::Clock(EpdClock::from_seconds(s)))
            .collect(),
    ));
    // An untimed side (per-engine limits) is shown the other side's time,
    // so a timed opponent's engine still gets both clocks.
    let (white, black) = (
        state.clocks().remaining(Color::White),
        state.clocks().remaining(Color::Black),
    );
    if let (Some(white), Some(black)) = (white.or(black), black.or(white)) {
        record.set(Operation::new(
            crate::wire::EXACT_CLOCK_OPCODE,
            [white, black]
                .iter()
                .map(|d| Operand::Integer(d.as_millis().min(i64::MAX as u128) as i64))
                .collect(),
        ));
    }
    if let Some((mv, _)) = last {
        record.set(Operation::moves(Opcode::Sm, &before, &[PlyMove::Move(mv)]));
    }
    if state.pending_offer() == Some(!state.turn()) {
        record.set(Operation::flag(Opcode::DrawOffer));
    }
    finish(record, "respond")
}

async fn send(seat: &Seat, record: Record) {
    // A closed connection shows up as `Inbound::Closed` on the inbox.
    let _ = seat.out.send(record).await;
}

/// Brings (re)connected seats up to date: reset, quiet time, inform, and
/// `execute` for the moves already played. The seat that moves next gets all
/// but the last move, which its `respond` carries.
async fn sync_seats(spec: &GameSpec, state: &GameState, seats: &[(&Seat, bool)], timing: &Timing) {
    for (seat, _) in seats {
        send(seat, finish(position_record(state.start()), "reset")).await;
    }
    tokio::time::sleep(timing.reset_delay).await;
    let replay = state.replay();
    for (seat, moves_next) in seats {
        send(seat, inform_record(spec, state.start(), "*")).await;
        let upto = if *moves_next {
            replay.len().saturating_sub(1)
        } else {
            replay.len()
        };
        for (pos, mv) in &replay[..upto] {
            let sm = Operation::moves(Opcode::Sm, pos, &[PlyMove::Move(*mv)]);
            send(seat, finish(position_record(pos).with(sm), "execute")).await;
        }
    }
}

fn index(c: Color) -> usize {
    if c.is_white() { 0 } else { 1 }
}

async fn recv(seat: &mut Option<Seat>) -> Inbound {
    match seat {
        Some(s) => s.inbox.recv().await.unwrap_or(Inbound::Closed),
        None => std::future::pending().await,
    }
}

async fn reclaim(lobby: &Lobby, gone: bool, name: &str) -> Seat {
    if gone {
        lobby.take(name).await
    } else {
        std::future::pending().await
    }
}

enum Event {
    In(Color, Inbound),
    Back(Color, Seat),
    Deadline,
    Stop,
}

/// Runs a game from `state` (fresh or resumed) until it ends or is stopped.
pub async fn run_game(
    spec: &GameSpec,
    mut state: GameState,
    ctx: &GameContext,
    mut stop: watch::Receiver<Option<Stop>>,
) -> RunEnd {
    let names = [spec.white.clone(), spec.black.clone()];
    state.set_time_margin(ctx.timing.margin);
    let mut seats: [Option<Seat>; 2] = tokio::select! {
        (w, b) = ctx.lobby.take_pair(&names[0], &names[1]) => [Some(w), Some(b)],
        _ = wait_stop(&mut stop) => return RunEnd::Interrupted(state),
    };
    ctx.log.note(&format!(
        "game {}: {} - {} starts",
        spec.number, spec.white, spec.black
    ));
    if let [Some(w), Some(b)] = &seats {
        let white_moves = state.turn().is_white();
        sync_seats(
            spec,
            &state,
            &[(w, white_moves), (b, !white_moves)],
            &ctx.timing,
        )
        .await;
    }
    (ctx.hook)(spec, &state);

    let mut gone_since: [Option<Instant>; 2] = [None, None];
    let mut sent_at: Option<Instant> = None;
    let mut mover_answered = false;
    while state.ending().is_none() {
        let mover = state.turn();
        if sent_at.is_none() {
            if let Some(seat) = &seats[index(mover)] {
                send(seat, respond_record(&state)).await;
            }
            sent_at = Some(Instant::now());
        }
        let started = sent_at.unwrap_or_else(Instant::now);
        let flag_at = match state.clocks().time_to_flag(mover) {
            Some(rem) => started + rem + ctx.timing.relay_allowance.unwrap_or_default(),
            None => started + ctx.timing.silence,
        };
        let mut deadline = flag_at;
        for g in gone_since.iter().flatten() {
            deadline = deadline.min(*g + ctx.timing.grace);
        }
        let gone = [seats[0].is_none(), seats[1].is_none()];
        let event = {
            let [ws, bs] = &mut seats;
            tokio::select! {
                ev = recv(ws) => Event::In(Color::White, ev),
                ev = recv(bs) => Event::In(Color::Black, ev),
                seat = reclaim(&ctx.lobby, gone[0], &names[0]) => Event::Back(Color::White, seat),
                seat = reclaim(&ctx.lobby, gone[1], &names[1]) => Event::Back(Color::Black, seat),
                () = sleep_until(deadline) => Event::Deadline,
                _ = wait_stop(&mut stop) => Event::Stop,
            }
        };
        mover_answered = match &event {
            Event::In(c, Inbound::Record(r, _)) => *c == mover && refreq(r) == Some("reply"),
            Event::In(c, Inbound::IllegalMove { .. } | Inbound::Malformed { .. }) => *c == mover,
            _ => false,
        };
        match event {
            Event::Deadline => {
                let now = Instant::now();
                if now >= flag_at {
                    if state.clocks().remaining(mover).is_some() {
                        state.flag(now - started);
                    } else {
                        state.end(
                            Outcome::Win(!mover),
                            Termination::Abandoned,
                            &format!("{mover} stopped answering"),
                        );
                    }
                } else {
                    for c in [Color::White, Color::Black] {
                        if gone_since[index(c)].is_some_and(|g| now >= g + ctx.timing.grace) {
                            state.end(
                                Outcome::Win(!c),
                                Termination::Abandoned,
                                &format!("{c} disconnected and did not return"),
                            );
                            break;
                        }
                    }
                }
            }
            Event::Stop => match current_stop(&stop) {
                Some(Stop::Abort(outcome)) => {
                    state.end(
                        outcome,
                        Termination::Adjudication,
                        "ended by the supervisor",
                    );
                }
                Some(Stop::Adjourn) | None => {
                    for seat in seats.iter().flatten() {
                        send(seat, finish(position_record(state.position()), "reset")).await;
                    }
                    return_seats(&ctx.lobby, seats);
                    return RunEnd::Interrupted(state);
                }
            },
            Event::Back(c, seat) => {
                ctx.log
                    .note(&format!("game {}: {} is back", spec.number, seat.name));
                sync_seats(spec, &state, &[(&seat, c == mover)], &ctx.timing).await;
                if c == mover && sent_at.is_some() {
                    send(&seat, respond_record(&state)).await;
                }
                seats[index(c)] = Some(seat);
                gone_since[index(c)] = None;
            }
            Event::In(c, Inbound::Closed) => {
                ctx.log.note(&format!(
                    "game {}: {} disconnected",
                    spec.number,
                    names[index(c)]
                ));
                seats[index(c)] = None;
                if ctx.timing.grace.is_zero() {
                    // No grace: the game is lost at once, even if the
                    // player (a restarted engine) is already back.
                    state.end(
                        Outcome::Win(!c),
                        Termination::Abandoned,
                        &format!("{c} disconnected"),
                    );
                } else {
                    gone_since[index(c)] = Some(Instant::now());
                }
            }
            Event::In(c, Inbound::Malformed { error, .. }) => {
                state.malformed(c, &error);
            }
            Event::In(c, Inbound::IllegalMove { mv, error, at }) => {
                if c == mover {
                    state.illegal_move(&mv, &error, at.saturating_duration_since(started));
                } else {
                    state.end(
                        Outcome::Win(!c),
                        Termination::RulesInfraction,
                        &format!("{c} played an illegal move '{mv}' out of turn ({error})"),
                    );
                }
                (ctx.hook)(spec, &state);
            }
            Event::In(c, Inbound::Record(record, at)) => match refreq(&record) {
                Some("reply") if c == mover => {
                    let measured = at.saturating_duration_since(started);
                    // A trusted client's engine time is charged; the rest
                    // of the referee's measure is the relay's overhead.
                    let engine = ctx
                        .timing
                        .relay_allowance
                        .and_then(|_| engine_time(&record))
                        .map(|t| t.min(measured));
                    let step = state.apply_reply(&record, engine.unwrap_or(measured));
                    if step == Step::Moved
                        && let Some(t) = engine
                    {
                        state.set_last_relay(measured - t);
                    }
                    if step == Step::Moved {
                        if let Some((outcome, reason)) = ctx
                            .adjudicator
                            .as_ref()
                            .and_then(|judge| judge(spec, &state))
                        {
                            state.end(outcome, Termination::Adjudication, &reason);
                            sent_at = None;
                        } else {
                            // The opponent's `respond` goes out first; saving
                            // and logging the move happen on its time.
                            if let Some(seat) = &seats[index(state.turn())] {
                                send(seat, respond_record(&state)).await;
                            }
                            let now = Instant::now();
                            sent_at = Some(now);
                            let latency = now.saturating_duration_since(at);
                            state.set_last_latency(latency);
                            // Let the opponent's bridge (woken by the
                            // `respond`, next on this worker) start its
                            // search before the move is logged and saved.
                            tokio::task::yield_now().await;
                            if let Some(played) = state.played().last() {
                                ctx.log.note(&format!(
                                    "game {}: {} {} in {:.3} s, referee latency {:.3} ms",
                                    spec.number,
                                    mover,
                                    played.san,
                                    played.elapsed.as_secs_f64(),
                                    latency.as_secs_f64() * 1000.0
                                ));
                            }
                        }
                    }
                    (ctx.hook)(spec, &state);
                }
                Some("reply") => {
                    state.end(
                        Outcome::Win(!c),
                        Termination::RulesInfraction,
                        &format!("{c} replied out of turn"),
                    );
                }
                Some("sign_off") => {
                    seats[index(c)] = None;
                    state.end(
                        Outcome::Win(!c),
                        Termination::Abandoned,
                        &format!("{c} signed off during the game"),
                    );
                }
                Some("fault") => {
                    let why = record.string("c0").map(|w| {
                        crate::log::escape_controls(w)
                            .chars()
                            .take(200)
                            .collect::<String>()
                    });
                    ctx.log.note(&format!(
                        "game {}: {} reports a fault ({}); supervisor attention needed",
                        spec.number,
                        names[index(c)],
                        why.as_deref().unwrap_or("no reason given")
                    ));
                    let reason = match why {
                        Some(w) if w.starts_with("engine crashed") => format!("{c}'s {w}"),
                        Some(w) => format!("{c} reported a fault: {w}"),
                        None => format!("{c} reported a fault"),
                    };
                    state.end(Outcome::Win(!c), Termination::Abandoned, &reason);
                }
                Some("sign_on") => {}
                other => {
                    state.end(
                        Outcome::Win(!c),
                        Termination::RulesInfraction,
                        &format!("{c} sent a record without a valid refreq ({other:?})"),
                    );
                }
            },
        }
    }

    let result = state.ending().map_or("*", |e| e.outcome.result_str());
    ctx.log.note(&format!(
        "game {}: {} - {} ends {result} ({})",
        spec.number,
        spec.white,
        spec.black,
        state.ending().map_or("", |e| e.reason.as_str())
    ));
    (ctx.hook)(spec, &state);
    for seat in seats.iter().flatten() {
        send(seat, inform_record(spec, state.position(), result)).await;
        send(seat, finish(position_record(state.position()), "conclude")).await;
    }
    // A player asked to move that had not answered when the game ended (its
    // flag fell, the opponent left, ...) still owes that reply: its seat
    // goes back to the lobby only once the late reply is in, so the reply
    // cannot land in the player's next game.
    let owing = (sent_at.is_some() && !mover_answered)
        .then(|| seats[index(state.turn())].take())
        .flatten();
    tokio::time::sleep(ctx.timing.conclude_delay).await;
    return_seats(&ctx.lobby, seats);
    if let Some(seat) = owing {
        tokio::spawn(release_after_late_reply(
            seat,
            ctx.lobby.clone(),
            ctx.log.clone(),
        ));
    }
    RunEnd::Finished(state)
}

/// The engine's own time a reply carries (`engine_us`), if any.
fn engine_time(record: &Record) -> Option<Duration> {
    let op = record.op(crate::wire::ENGINE_TIME_OPCODE)?;
    let us: u64 = op.operands.first()?.text().parse().ok()?;
    Some(Duration::from_micros(us))
}

/// How long a seat that owes a reply is held back from the next game.
/// gamerec's own bridges stop the search and drop a move the game no
/// longer wants, so they owe nothing; another client's late reply is
/// absorbed if it comes within this time, and the seat goes back to the
/// lobby either way.
const LATE_REPLY_WAIT: Duration = Duration::from_secs(2);

async fn release_after_late_reply(mut seat: Seat, lobby: Arc<Lobby>, log: EventLog) {
    let late_reply = async {
        loop {
            match seat.inbox.recv().await {
                Some(Inbound::Record(r, _)) if refreq(&r) == Some("reply") => return true,
                Some(Inbound::Closed) | None => return false,
                Some(_) => {}
            }
        }
    };
    match tokio::time::timeout(LATE_REPLY_WAIT, late_reply).await {
        Ok(true) => {
            log.note(&format!("{}: late reply received and dropped", seat.name));
            return_seats(&lobby, [Some(seat), None]);
        }
        Ok(false) => {}
        Err(_) => {
            log.note(&format!(
                "{}: no late reply within {LATE_REPLY_WAIT:?}; seat returned",
                seat.name
            ));
            return_seats(&lobby, [Some(seat), None]);
        }
    }
}

async fn wait_stop(stop: &mut watch::Receiver<Option<Stop>>) {
    if stop.wait_for(|s| s.is_some()).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn current_stop(stop: &watch::Receiver<Option<Stop>>) -> Option<Stop> {
    stop.borrow().clone()
}

fn return_seats(lobby: &Lobby, seats: [Option<Seat>; 2]) {
    for mut seat in seats.into_iter().flatten() {
        // Drop anything the client sent after the game; a closed seat is gone.
        let mut closed = false;
        while let Ok(ev) = seat.inbox.try_recv() {
            closed |= matches!(ev, Inbound::Closed);
        }
        if !closed && seat.is_open() {
            lobby.put(seat);
        }
    }
}
