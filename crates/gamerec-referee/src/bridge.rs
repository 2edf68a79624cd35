//! The bridge: turns an [`Engine`] into an Argus client (EPD section 8 from
//! the client side). It keeps the game history the spec expects clients to
//! keep, claims repetition and fifty-move draws itself, and rejects offers.

use std::pin::Pin;
use std::time::Duration;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

use crate::clock::{Clocks, TimeControl, is_timed, parse_time_control};
use crate::conn::{Line, LocalClient, read_line_bounded};
use crate::game_rules::{epd_fields, parse_move, position_from_fields};
use crate::wire::{MAX_RECORD_LEN, Record, bare_record, read_record, refcom, with_refreq};
use gamerec::epd::{Opcode, Operand, Operation};
use gamerec::model::PlyMove;
use gamerec_engine::builtin::BuiltinEngine;
use gamerec_engine::{Clock, Engine, EngineError, EngineSetup, EngineSpec, Limits, SearchResult};

/// What a bridge did before it stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BridgeSummary {
    /// Games concluded.
    pub games: u32,
    /// Moves sent.
    pub moves: u32,
    /// Whether the referee sent `disconnect`.
    pub disconnected: bool,
}

struct ClientGame {
    start: Chess,
    moves: Vec<Move>,
    pos: Chess,
    seen: crate::game_rules::Repetitions,
    control: TimeControl,
    /// Black's control when the sides have their own (per-engine limits).
    black_control: Option<TimeControl>,
    clocks: Option<Clocks>,
    charged: [usize; 2],
    last_cc: [Duration; 2],
    /// Our own thinking times, measured here, not yet charged to the model.
    own: std::collections::VecDeque<Duration>,
    /// The referee's clocks (White, Black) to the millisecond, from the
    /// `clk_ms` of the last `respond`.
    exact: Option<[Duration; 2]>,
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

impl ClientGame {
    fn new(start: Chess) -> ClientGame {
        ClientGame {
            seen: crate::game_rules::Repetitions::new(&start),
            pos: start.clone(),
            start,
            moves: Vec::new(),
            control: TimeControl::Unknown,
            black_control: None,
            clocks: None,
            charged: [0, 0],
            last_cc: [Duration::ZERO; 2],
            own: std::collections::VecDeque::new(),
            exact: None,
        }
    }

    /// Sets the position from a referee record (EPD 8.1: a different
    /// position means a new history), then plays its `sm`.
    fn sync(&mut self, record: &Record) -> Result<(), String> {
        let hmvc = record.integer("hmvc").and_then(|v| u32::try_from(v).ok());
        let fmvn = record.integer("fmvn").and_then(|v| u32::try_from(v).ok());
        let given = position_from_fields(
            &record.position.to_fields(),
            hmvc.unwrap_or(self.pos.halfmoves()),
            fmvn.unwrap_or(self.pos.fullmoves().get()),
        )?;
        if key(&given) != key(&self.pos)
            || given.halfmoves() != self.pos.halfmoves()
            || given.fullmoves() != self.pos.fullmoves()
        {
            let control = (self.control.clone(), self.black_control.clone());
            *self = ClientGame::new(given);
            self.set_controls(control.0, control.1);
        }
        if let Some(sm) = record.op("sm").and_then(|op| op.move_list().next()) {
            // The codec checked `sm` in the record's position, which may
            // differ from ours only in the counters: check again here.
            let mv = parse_move(&self.pos, &sm.san)?;
            self.play(mv);
        }
        Ok(())
    }

    fn play(&mut self, mv: Move) {
        self.pos.play_unchecked(mv);
        self.moves.push(mv);
        self.seen.push(&self.pos);
    }

    /// Sets White's control and Black's (`None`: the same as White's).
    fn set_controls(&mut self, white: TimeControl, black: Option<TimeControl>) {
        let black = black.filter(|b| *b != white);
        let black_control = black.clone().unwrap_or_else(|| white.clone());
        self.clocks = (is_timed(&white) || is_timed(&black_control))
            .then(|| Clocks::per_side(white.clone(), black_control));
        self.control = white;
        self.black_control = black;
    }

    fn control_of(&self, color: Color) -> &TimeControl {
        match (color, &self.black_control) {
            (Color::Black, Some(b)) => b,
            _ => &self.control,
        }
    }

    /// Charges each side's moves since last time: our own with the time we
    /// measured (plus transport allowance), the opponent's from `cc` (which
    /// has one-second resolution).
    fn charge(&mut self, record: &Record) {
        self.exact = exact_clocks(record);
        let me = self.pos.turn();
        let Some(clocks) = self.clocks.as_mut() else {
            return;
        };
        let Some(op) = record.op("cc") else { return };
        let used: Vec<Duration> = op
            .operands
            .iter()
            .filter_map(|o| match o {
                Operand::Clock(c) => Some(Duration::from_secs(c.as_seconds())),
                _ => None,
            })
            .collect();
        if used.len() != 2 {
            return;
        }
        let mut turn = self.start.turn();
        let mut made = [0usize; 2];
        for _ in &self.moves {
            made[usize::from(turn.is_black())] += 1;
            turn = !turn;
        }
        for color in [Color::White, Color::Black] {
            let i = usize::from(color.is_black());
            while self.charged[i] < made[i] {
                let mut delta = used[i].saturating_sub(self.last_cc[i]);
                if color == me
                    && let Some(own) = self.own.pop_front()
                {
                    delta = own + LAG_ALLOWANCE;
                }
                let _ = clocks.complete_move(color, delta);
                self.last_cc[i] = used[i];
                self.charged[i] += 1;
            }
        }
    }

    /// The search limits for our move: the player's fixed limits (`depth`,
    /// `nodes`, `movetime`) and, when our side plays a clock, the clocks
    /// (the referee's exact values when it sends `clk_ms`, else as we keep
    /// them less a safety margin) with each side's increment and our moves
    /// to go. On an untimed side a player with no fixed limit searches to
    /// `untimed_depth`, or with a nominal minute each, so every search ends.
    fn limits(&self, fixed: &Limits, untimed_depth: Option<u32>) -> Limits {
        let me = self.pos.turn();
        let mut limits = Limits {
            depth: fixed.depth,
            nodes: fixed.nodes,
            movetime: fixed.movetime,
            ..Limits::default()
        };
        let timed = self
            .clocks
            .as_ref()
            .is_some_and(|c| c.remaining(me).is_some());
        if !timed {
            if fixed.depth.is_some() || fixed.nodes.is_some() || fixed.movetime.is_some() {
                return limits;
            }
            if untimed_depth.is_some() {
                limits.depth = untimed_depth;
                return limits;
            }
            limits.clock = Some(Clock {
                white: UNTIMED_CLOCK,
                black: UNTIMED_CLOCK,
                ..Clock::default()
            });
            return limits;
        }
        let safe = |d: Option<Duration>| {
            d.map_or(Duration::from_millis(10), |d| {
                d.saturating_sub(SAFETY_MARGIN)
                    .max(Duration::from_millis(10))
            })
        };
        let mut clock = match (&self.clocks, self.exact) {
            (_, Some([white, black])) => Clock {
                white,
                black,
                ..Clock::default()
            },
            (Some(clocks), None) => {
                // An untimed opponent is shown our own time.
                let mine = clocks.remaining(me);
                Clock {
                    white: safe(clocks.remaining(Color::White).or(mine)),
                    black: safe(clocks.remaining(Color::Black).or(mine)),
                    ..Clock::default()
                }
            }
            (None, None) => return limits,
        };
        // Moves made by each side so far.
        let mut made = [0u32; 2];
        let mut turn = self.start.turn();
        for _ in &self.moves {
            made[usize::from(turn.is_black())] += 1;
            turn = !turn;
        }
        for color in [Color::White, Color::Black] {
            let control = self.control_of(color);
            let TimeControl::Periods(periods) = control else {
                continue;
            };
            let done = made[usize::from(color.is_black())];
            let Some(period) = control.period_of_move(done + 1) else {
                continue;
            };
            if color.is_white() {
                clock.white_inc = period.increment();
            } else {
                clock.black_inc = period.increment();
            }
            if color == me
                && let (Some(moves), 1) = (period.moves(), periods.len())
            {
                clock.moves_to_go = Some(moves - done % moves);
            }
        }
        limits.clock = Some(clock);
        limits
    }

    fn claimable(&self) -> bool {
        self.seen.count(&self.pos) >= 3 || self.pos.halfmoves() >= 100
    }
}

/// The referee's exact clocks from a `clk_ms WHITE BLACK` operation
/// (milliseconds left on each clock; see [`crate::game_runner`]).
pub fn exact_clocks(record: &Record) -> Option<[Duration; 2]> {
    let op = record.op(crate::wire::EXACT_CLOCK_OPCODE)?;
    let ms: Vec<u64> = op
        .operands
        .iter()
        .filter_map(|o| o.text().parse().ok())
        .collect();
    match ms.as_slice() {
        [w, b] if op.operands.len() == 2 => {
            Some([Duration::from_millis(*w), Duration::from_millis(*b)])
        }
        _ => None,
    }
}

/// Time charged on top of our own measured thinking time per move, for the
/// transport between us and the referee.
const LAG_ALLOWANCE: Duration = Duration::from_millis(20);

/// The clock an engine without a depth is given in an untimed game.
const UNTIMED_CLOCK: Duration = Duration::from_secs(60);

/// Transposition table of a built-in engine in an event, in MB (`Hash`
/// option to change).
const BUILTIN_HASH_MB: usize = 2;

/// Depth of the built-in engine in untimed games when neither its spec nor
/// the event gives one (in timed games it keeps its own time).
/// How long an engine told to stop may take to answer before the bridge
/// takes it for hung.
const STOP_WAIT: Duration = Duration::from_secs(1);

const BUILTIN_DEPTH: u32 = 3;

/// An engine from `gamerec-engine` as a bridge plays it: the engine and the
/// depth it searches to (the built-in engine's `builtin:DEPTH`).
pub struct EnginePlayer {
    engine: Box<dyn Engine>,
    /// Limits of every search: depth, nodes, movetime.
    fixed: Limits,
    untimed_depth: Option<u32>,
    ponder: bool,
}

impl EnginePlayer {
    /// Ponders on the opponent's time (engines that can; others ignore it):
    /// after each move the engine searches the reply it expects, and a
    /// `ponderhit` turns that search into its next move.
    pub fn pondering(mut self, on: bool) -> EnginePlayer {
        self.ponder = on && self.engine.ponder_handle().is_some();
        if self.ponder {
            // UCI: the GUI tells the engine it will ponder (an engine
            // without the option ponders when asked all the same).
            let _ = self.engine.set_option("Ponder", "true");
        }
        self
    }

    /// Adds fixed limits to every search (a match's per-engine `nodes=`,
    /// `depth=`, `st=`); a depth given here replaces the spec's.
    pub fn with_limits(
        mut self,
        depth: Option<u32>,
        nodes: Option<u64>,
        movetime: Option<Duration>,
    ) -> EnginePlayer {
        self.fixed.depth = depth.or(self.fixed.depth);
        self.fixed.nodes = nodes.or(self.fixed.nodes);
        self.fixed.movetime = movetime.or(self.fixed.movetime);
        self
    }

    /// Starts the engine named by `spec` (`builtin`, `builtin:DEPTH`,
    /// `uci:CMD|Name=Value...`, `xboard:CMD`, parsed by
    /// [`gamerec_engine::EngineSetup`]); `depth` applies when the spec has
    /// none. The built-in engine without a depth plays by the clock in timed
    /// games and at depth 3 in untimed ones.
    pub fn start(spec: &str, depth: Option<u32>) -> Result<EnginePlayer, EngineError> {
        let setup: EngineSetup = spec.parse()?;
        let depth = setup.depth.or(depth);
        let untimed_depth = matches!(setup.spec, EngineSpec::Builtin).then_some(BUILTIN_DEPTH);
        let engine = match setup.spec {
            // Events run many built-in engines at once, each at a small
            // depth: a small table each instead of the 64 MB default.
            EngineSpec::Builtin => {
                let mut engine: Box<dyn Engine> =
                    Box::new(BuiltinEngine::with_hash(BUILTIN_HASH_MB));
                for (name, value) in &setup.options {
                    engine.set_option(name, value)?;
                }
                engine
            }
            _ => setup.start()?,
        };
        Ok(EnginePlayer {
            engine,
            fixed: Limits {
                depth,
                ..Limits::default()
            },
            untimed_depth,
            ponder: false,
        })
    }
}

/// Time kept back from the engine so it never plays on a hair's breadth.
const SAFETY_MARGIN: Duration = Duration::from_millis(200);

/// Signs `name` on over `stream` and plays games with `engine` until the
/// referee disconnects, the stream ends, or `cancel` fires (then signs off).
pub async fn run_bridge<S>(
    stream: S,
    name: &str,
    player: EnginePlayer,
    cancel: CancellationToken,
) -> std::io::Result<BridgeSummary>
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    run_bridge_with_token(stream, name, None, player, cancel).await
}

/// [`run_bridge`] for a player with a secret: `token` goes with the sign-on
/// (`Secret "TOKEN";`). A referee that refuses the sign-on answers with a
/// `fault` and closes the connection: that is an error here.
pub async fn run_bridge_with_token<S>(
    stream: S,
    name: &str,
    token: Option<&str>,
    player: EnginePlayer,
    cancel: CancellationToken,
) -> std::io::Result<BridgeSummary>
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (reader, mut writer) = tokio::io::split(stream);
    // Lines are read on a task of their own, so the referee is heard while
    // the engine searches (a line read cannot be lost to a `select!`).
    let (line_tx, lines) = tokio::sync::mpsc::channel(64);
    let reader = AbortOnDrop(tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        let mut buf = Vec::new();
        loop {
            let got = match read_line_bounded(&mut reader, &mut buf, MAX_RECORD_LEN).await {
                // What is not a record is not for the bridge.
                Ok(Some(Line::Text(t))) => match read_record(&t) {
                    Ok(record) => Ok(Some(record)),
                    Err(_) => continue,
                },
                Ok(Some(_)) => continue,
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            };
            let end = !matches!(got, Ok(Some(_)));
            if line_tx.send(got).await.is_err() || end {
                break;
            }
        }
    }));
    let start_fields = epd_fields(&Chess::default());
    let clean: String = name.chars().filter(|c| *c != '"' && *c != '\\').collect();
    let secret = match token {
        Some(t) => {
            let t: String = t.chars().filter(|c| *c != '"' && *c != '\\').collect();
            format!(" {} \"{t}\";", crate::conn::SECRET_OPCODE)
        }
        None => String::new(),
    };
    writer
        .write_all(
            format!(
                "{start_fields} refreq sign_on; tcsi \"{clean}@localhost\" \"{clean}\";{secret}\n"
            )
            .as_bytes(),
        )
        .await?;
    writer.flush().await?;
    let link = Link::Stream {
        lines,
        writer: Box::pin(writer),
        _reader: reader,
    };
    play(link, player, cancel).await
}

/// [`run_bridge`] for a bridge in the referee's own process, already
/// signed on as `client` ([`LocalClient::sign_on`]): records go to and
/// from the game directly, with no connection between.
pub async fn run_local_bridge(
    client: LocalClient,
    player: EnginePlayer,
    cancel: CancellationToken,
) -> std::io::Result<BridgeSummary> {
    play(Link::Local(client), player, cancel).await
}

/// What a bridge talks to the referee through.
enum Link {
    /// A connection: records read on a task of their own, lines written.
    Stream {
        lines: tokio::sync::mpsc::Receiver<std::io::Result<Option<Record>>>,
        writer: Pin<Box<dyn AsyncWrite + Send>>,
        _reader: AbortOnDrop,
    },
    /// A seat in the same process.
    Local(LocalClient),
}

impl Link {
    /// The referee's next record: `Ok(None)` or `None` when it is gone.
    async fn recv(&mut self) -> Option<std::io::Result<Option<Record>>> {
        match self {
            Link::Stream { lines, .. } => lines.recv().await,
            Link::Local(client) => Some(Ok(client.recv().await)),
        }
    }

    /// Sends one line (with its newline) to the referee.
    async fn send(&mut self, line: &str) -> std::io::Result<()> {
        match self {
            Link::Stream { writer, .. } => {
                writer.write_all(line.as_bytes()).await?;
                writer.flush().await
            }
            Link::Local(client) => client.send_line(line),
        }
    }

    /// Logs a record from the referee, once acted on (a local client's
    /// records are logged by the bridge; a connection's by the referee).
    fn heard(&self, record: &Record) {
        if let Link::Local(client) = self {
            client.log_sent(record);
        }
    }
}

/// The bridge's game loop over `link`.
async fn play(
    mut link: Link,
    player: EnginePlayer,
    cancel: CancellationToken,
) -> std::io::Result<BridgeSummary> {
    let mut summary = BridgeSummary::default();
    let EnginePlayer {
        engine,
        fixed,
        untimed_depth,
        ponder,
    } = player;
    // The engine's process, watched so its exit is told at once (even
    // while it is not searching): the game in progress is lost by a crash.
    let exit_watch = engine.exit_watch();
    let mut engine = Some(engine);
    let mut pondering: Option<Ponder> = None;
    let mut game = ClientGame::new(Chess::default());
    // Lines that arrived during a search, handled before reading on.
    let mut pending: std::collections::VecDeque<Record> = std::collections::VecDeque::new();
    loop {
        let record = match pending.pop_front() {
            Some(record) => record,
            None => {
                let line = tokio::select! {
                    l = link.recv() => l,
                    status = exited(exit_watch.as_ref()) => {
                        return Err(crashed(&mut link, &game.pos, &status).await);
                    }
                    () = cancel.cancelled() => {
                        // Leaving anyway: a referee that is gone is not told.
                        let _ = link
                            .send(&format!("{} refreq sign_off;\n", epd_fields(&game.pos)))
                            .await;
                        return Ok(summary);
                    }
                };
                match line {
                    None | Some(Ok(None)) => return Ok(summary),
                    Some(Err(e)) => return Err(e),
                    Some(Ok(Some(record))) => record,
                }
            }
        };
        if refcom(&record) != Some("respond") {
            link.heard(&record);
        }
        if refcom(&record) != Some("respond")
            && let Some(p) = pondering.take()
        {
            engine = Some(p.settle(false).await?.0);
        }
        match refcom(&record) {
            Some("reset") => {
                game = ClientGame::new(Chess::default());
                if let Err(e) = game.sync(&record) {
                    return Err(std::io::Error::other(e));
                }
                let e = take(&mut engine)?;
                engine = Some(run_blocking(e, |e| e.new_game()).await?.0);
            }
            Some("inform") => {
                // TimeControl, or each side's (a match's per-engine limits).
                let read = |v: &str| parse_time_control(v).unwrap_or(TimeControl::Unknown);
                let (mut white, mut black) = (None, None);
                for (k, v) in record.tag_pairs() {
                    match k.as_str() {
                        "TimeControl" => {
                            white = Some(read(&v));
                            black = None;
                        }
                        "WhiteTimeControl" => white = Some(read(&v)),
                        "BlackTimeControl" => black = Some(read(&v)),
                        _ => {}
                    }
                }
                if let Some(white) = white {
                    game.set_controls(white, black);
                }
            }
            Some("execute") => {
                if let Err(e) = game.sync(&record) {
                    return Err(std::io::Error::other(e));
                }
            }
            Some("respond") => {
                if let Err(e) = game.sync(&record) {
                    return Err(std::io::Error::other(e));
                }
                game.charge(&record);
                let offered = record.has("draw_offer");
                let (start, moves, limits) = (
                    game.start.clone(),
                    game.moves.clone(),
                    game.limits(&fixed, untimed_depth),
                );
                let thinking = std::time::Instant::now();
                // Pondering on the expected reply: a hit is our search.
                let mut pondered = None;
                if let Some(p) = pondering.take() {
                    let hit = game.moves.last() == Some(&p.expected);
                    let (e, result) = p.settle(hit).await?;
                    engine = Some(e);
                    pondered = result;
                }
                let was_pondered = pondered.is_some();
                let result = match pondered {
                    Some(result) => {
                        link.heard(&record);
                        result
                    }
                    None => {
                        let searching = take(&mut engine)?;
                        let stop = searching.stop_handle();
                        let limits = limits.clone();
                        // The engine comes back with the search's error, so
                        // an illegal best move does not cost the engine.
                        let mut searching = searching;
                        let search = tokio::task::spawn_blocking(move || {
                            let r = searching
                                .set_position(&start, &moves)
                                .and_then(|()| searching.go(&limits, &mut |_| {}));
                            (searching, r)
                        });
                        tokio::pin!(search);
                        // The engine is searching: now the log.
                        link.heard(&record);
                        let mut superseded = false;
                        let mut closed = false;
                        let mut stop_asked: Option<tokio::time::Instant> = None;
                        let (e, result) = loop {
                            // Once told to stop, an engine that does not
                            // answer within STOP_WAIT is hung: the bridge
                            // gives up (its caller restarts the engine).
                            let stop_by = (superseded && !closed).then(|| {
                                stop_asked
                                    .get_or_insert_with(tokio::time::Instant::now)
                                    .to_owned()
                                    + STOP_WAIT
                            });
                            tokio::select! {
                                r = &mut search => break r.map_err(std::io::Error::other)?,
                                () = async {
                                    match stop_by {
                                        Some(t) => tokio::time::sleep_until(t).await,
                                        None => std::future::pending().await,
                                    }
                                } => {
                                    return Err(std::io::Error::other(
                                        "the engine did not stop when told to",
                                    ));
                                }
                                l = link.recv(), if !closed => match l {
                                    Some(Ok(Some(r))) => {
                                        let moved_on = matches!(
                                            refcom(&r),
                                            Some("conclude" | "reset" | "disconnect" | "respond" | "execute")
                                        );
                                        if moved_on && !superseded {
                                            superseded = true;
                                            stop.stop();
                                        }
                                        pending.push_back(r);
                                    }
                                    Some(Err(_) | Ok(None)) | None => {
                                        closed = true;
                                        superseded = true;
                                        stop.stop();
                                    }
                                },
                                () = cancel.cancelled(), if !superseded => {
                                    superseded = true;
                                    stop.stop();
                                }
                            }
                        };
                        let result = match result {
                            Ok(r) => r,
                            Err(EngineError::IllegalMove { mv, .. }) if !superseded => {
                                // The referee rules on it (a rules
                                // infraction naming the move).
                                engine = Some(e);
                                send_illegal(&mut link, &game.pos, &mv).await?;
                                continue;
                            }
                            Err(err) => {
                                drop(e);
                                return Err(
                                    engine_failed(err, &mut link, &game.pos, &pending).await
                                );
                            }
                        };
                        engine = Some(e);
                        if closed && pending.is_empty() {
                            return Ok(summary);
                        }
                        if superseded {
                            continue;
                        }
                        result
                    }
                };
                let (chosen, info) = (result.best_move, result.info);
                // Our own move is charged with the time we measured (the
                // referee's `cc` has whole seconds only).
                game.own.push_back(thinking.elapsed());
                let mut reply = bare_record(&game.pos);
                if offered {
                    reply.set(Operation::flag(Opcode::DrawReject));
                }
                match chosen {
                    Some(mv) => {
                        let sm = Operation::moves(Opcode::Sm, &game.pos, &[PlyMove::Move(mv)]);
                        let claim_before = game.claimable();
                        game.play(mv);
                        if claim_before || game.claimable() {
                            reply.set(Operation::flag(Opcode::DrawClaim));
                        }
                        reply.set(sm);
                        // The search's result travels with the move (EPD
                        // ce/acd/acn) for adjudication and PGN comments.
                        if let Some(score) = info.score {
                            reply.set(Operation::integer(Opcode::Ce, i64::from(score.to_ce())));
                        }
                        if let Some(depth) = info.depth {
                            reply.set(Operation::new(
                                Opcode::Other("acd".into()),
                                vec![Operand::Raw(depth.to_string())],
                            ));
                        }
                        if let Some(nodes) = info.nodes.and_then(|n| i64::try_from(n).ok()) {
                            reply.set(Operation::integer(Opcode::Acn, nodes));
                        }
                        // The engine's own time, `go` written to `bestmove`
                        // read (a ponder hit's search began earlier: none).
                        if !was_pondered {
                            reply.set(Operation::new(
                                Opcode::Other(crate::wire::ENGINE_TIME_OPCODE.into()),
                                vec![Operand::Raw(result.elapsed.as_micros().to_string())],
                            ));
                        }
                        summary.moves += 1;
                    }
                    None => {
                        reply.set(Operation::flag(
                            if game.pos.is_insufficient_material() || game.claimable() {
                                Opcode::DrawClaim
                            } else {
                                Opcode::Resign
                            },
                        ));
                    }
                }
                let reply = with_refreq(reply, "reply");
                link.send(&format!("{reply}\n")).await?;
                if ponder
                    && let (Some(mv), Some(expected)) = (chosen, result.ponder)
                    && let Some(e) = engine.take()
                {
                    pondering = Some(Ponder::start(
                        e,
                        &game,
                        expected,
                        limits,
                        thinking.elapsed(),
                        mv,
                    ));
                }
            }
            Some("conclude") => summary.games += 1,
            Some("fault")
                if record
                    .string("c0")
                    .is_some_and(|c| c.starts_with("sign on refused")) =>
            {
                let why = record.string("c0").unwrap_or_default().to_owned();
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    why,
                ));
            }
            Some("disconnect") => {
                summary.disconnected = true;
                return Ok(summary);
            }
            _ => {}
        }
    }
}

/// How often an idle bridge looks at its engine's exit watch.
const EXIT_POLL: Duration = Duration::from_millis(20);

/// Resolves with the exit status once the engine's process has exited
/// (never for an engine without a process).
async fn exited(watch: Option<&gamerec_engine::ExitWatch>) -> String {
    let Some(watch) = watch else {
        return std::future::pending().await;
    };
    loop {
        if let Some(status) = watch.exited() {
            return status;
        }
        tokio::time::sleep(EXIT_POLL).await;
    }
}

/// A record's text operand: printable ASCII without quotes or backslashes,
/// at most 200 characters.
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| (' '..='~').contains(c) && *c != '"' && *c != '\\')
        .take(200)
        .collect()
}

/// Tells the referee the engine crashed (a `fault` naming the exit
/// status, which ends the game as abandoned by a crash) and builds the
/// bridge's error (its caller restarts the engine).
async fn crashed(link: &mut Link, pos: &Chess, status: &str) -> std::io::Error {
    let why = plain(&format!("engine crashed ({status})"));
    let line = format!("{} refreq fault; c0 \"{why}\";\n", epd_fields(pos));
    if let Err(e) = link.send(&line).await {
        return e;
    }
    std::io::Error::other(why)
}

/// Sends an engine's illegal best move as its move: the referee rules the
/// infraction and names the move.
async fn send_illegal(link: &mut Link, pos: &Chess, mv: &str) -> std::io::Result<()> {
    let mut text: String = mv
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '=' | '+' | '#'))
        .take(16)
        .collect();
    // A text the referee would read as a legal move (SAN, or a move that
    // is not UCI) must not be played for the engine.
    if text.is_empty() || parse_move(pos, &text).is_ok() {
        text = format!("illegal-{text}");
    }
    let line = format!("{} refreq reply; sm {text};\n", epd_fields(pos));
    link.send(&line).await
}

/// A search that failed: a crash is told as one, and an engine its driver
/// gave up on (it did not answer in time) stays until the referee ends the
/// game, which is then lost on time, not by abandonment. Returns the
/// bridge's error either way (its caller restarts the engine).
async fn engine_failed(
    error: EngineError,
    link: &mut Link,
    pos: &Chess,
    pending: &std::collections::VecDeque<Record>,
) -> std::io::Error {
    let concluded = pending
        .iter()
        .any(|r| matches!(refcom(r), Some("conclude" | "disconnect")));
    match &error {
        EngineError::Died { status, .. } if !concluded => crashed(link, pos, status).await,
        EngineError::Timeout { .. } if !concluded => {
            wait_for_conclude(link).await;
            std::io::Error::other(error)
        }
        _ => std::io::Error::other(error),
    }
}

/// Reads the referee's lines until the game is concluded (or the
/// connection ends), dropping them.
async fn wait_for_conclude(link: &mut Link) {
    while let Some(Ok(Some(record))) = link.recv().await {
        link.heard(&record);
        if matches!(refcom(&record), Some("conclude" | "disconnect")) {
            return;
        }
    }
}

/// The engine, unless it was lost (a ponder search that failed).
fn take(engine: &mut Option<Box<dyn Engine>>) -> std::io::Result<Box<dyn Engine>> {
    engine
        .take()
        .ok_or_else(|| std::io::Error::other("the engine was lost"))
}

/// A ponder search running on the blocking pool, owning the engine.
struct Ponder {
    task: tokio::task::JoinHandle<(Box<dyn Engine>, Result<SearchResult, EngineError>)>,
    stop: gamerec_engine::StopHandle,
    handle: gamerec_engine::PonderHandle,
    expected: Move,
}

impl Ponder {
    /// Starts pondering on `expected` after our move `mv`: the position
    /// after both, with our clock less the time we took (plus increment).
    fn start(
        mut engine: Box<dyn Engine>,
        game: &ClientGame,
        expected: Move,
        mut limits: Limits,
        took: Duration,
        mv: Move,
    ) -> Ponder {
        let stop = engine.stop_handle();
        let handle = engine
            .ponder_handle()
            .unwrap_or_else(|| gamerec_engine::PonderHandle::with_hook(|| {}));
        if let Some(clock) = limits.clock.as_mut() {
            let ours = if game.pos.turn().is_white() {
                // We just moved: the side to move now is the opponent.
                (&mut clock.black, clock.black_inc)
            } else {
                (&mut clock.white, clock.white_inc)
            };
            *ours.0 = ours.0.saturating_sub(took) + ours.1;
        }
        let start = game.start.clone();
        let mut moves = game.moves.clone();
        debug_assert_eq!(moves.last(), Some(&mv));
        moves.push(expected);
        handle.arm();
        let task = tokio::task::spawn_blocking(move || {
            let result = engine
                .set_position(&start, &moves)
                .and_then(|()| engine.go(&limits, &mut |_| {}));
            (engine, result)
        });
        Ponder {
            task,
            stop,
            handle,
            expected,
        }
    }

    /// Ends pondering: on a hit the search goes on and its result is our
    /// move; otherwise it is stopped and its result dropped.
    async fn settle(
        mut self,
        hit: bool,
    ) -> std::io::Result<(Box<dyn Engine>, Option<SearchResult>)> {
        if hit {
            self.handle.hit();
        } else {
            self.stop.stop();
        }
        loop {
            match tokio::time::timeout(Duration::from_millis(200), &mut self.task).await {
                Ok(Ok((engine, result))) => {
                    let result = result.map_err(std::io::Error::other)?;
                    return Ok((engine, hit.then_some(result)));
                }
                Ok(Err(e)) => return Err(std::io::Error::other(e)),
                Err(_) if !hit => self.stop.stop(),
                Err(_) => {}
            }
        }
    }
}

impl Drop for Ponder {
    fn drop(&mut self) {
        if !self.task.is_finished() {
            self.stop.stop();
        }
    }
}

/// Aborts a task when dropped (the bridge's line reader outlives no bridge).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs a blocking engine call on the blocking pool, handing the engine back.
async fn run_blocking<T: Send + 'static>(
    mut engine: Box<dyn Engine>,
    f: impl FnOnce(&mut dyn Engine) -> Result<T, EngineError> + Send + 'static,
) -> std::io::Result<(Box<dyn Engine>, T)> {
    tokio::task::spawn_blocking(move || {
        let out = f(engine.as_mut());
        out.map(|v| (engine, v)).map_err(std::io::Error::other)
    })
    .await
    .map_err(std::io::Error::other)?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A referee may send a game of knights going back and forth with no
    /// end (nothing here stops it at the 75-move rule): each move's claim
    /// check scanned every position of the game (200,000 plies took 16 s,
    /// 500,000 about 100 s); counted positions take a look-up a move.
    #[test]
    fn a_long_shuffle_is_checked_in_linear_time() {
        gamerec_testkit::finishes("500,000 plies of a shuffle", 10, || {
            let mut game = ClientGame::new(Chess::default());
            let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
            let mut claims = 0;
            for i in 0..500_000 {
                let mv = cycle[i % 4]
                    .parse::<shakmaty::uci::UciMove>()
                    .unwrap()
                    .to_move(&game.pos)
                    .unwrap();
                game.play(mv);
                claims += usize::from(game.claimable());
            }
            // The start position's third occurrence is at ply 8.
            assert_eq!(claims, 500_000 - 7);
        });
    }
}
