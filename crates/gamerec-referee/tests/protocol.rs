//! Protocol tests with scripted clients on 127.0.0.1: every refcom and refreq
//! of EPD section 8 and every rule the referee enforces.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gamerec_referee::clock::{Clocks, TimeControl};
use gamerec_referee::game_rules::{
    GameState, Outcome, Termination, epd_fields, parse_move, position_from_fields,
};
use gamerec_referee::game_runner::{GameContext, GameSpec, RunEnd, Stop, Timing, run_game};
use gamerec_referee::lobby::Lobby;
use gamerec_referee::log::EventLog;
use gamerec_referee::server::accept_loop;
use gamerec_referee::wire::{Record, read_record, refcom};
use shakmaty::{Chess, Color, Position};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

const WAIT: Duration = Duration::from_secs(10);

struct Referee {
    addr: SocketAddr,
    game: JoinHandle<RunEnd>,
    stop: watch::Sender<Option<Stop>>,
    cancel: CancellationToken,
}

fn timing() -> Timing {
    Timing {
        reset_delay: Duration::from_millis(10),
        conclude_delay: Duration::from_millis(10),
        grace: Duration::from_millis(800),
        silence: Duration::from_secs(30),
        margin: Duration::ZERO,
        relay_allowance: None,
    }
}

fn spec(tc: &str, start: Chess) -> GameSpec {
    GameSpec {
        number: 1,
        event: "Protocol test".into(),
        site: "127.0.0.1".into(),
        date: "2026.11.22".into(),
        round: "1".into(),
        white: "alice".into(),
        black: "bob".into(),
        start,
        opening: Vec::new().into(),
        time_control: tc.parse().unwrap(),
        black_time_control: None,
    }
}

async fn referee_with(spec: GameSpec, timing: Timing) -> Referee {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let lobby = Arc::new(Lobby::new());
    let cancel = CancellationToken::new();
    let tracker = TaskTracker::new();
    tokio::spawn(accept_loop(
        listener,
        lobby.clone(),
        EventLog::disabled(),
        cancel.clone(),
        tracker,
    ));
    let ctx = GameContext {
        lobby,
        timing,
        log: EventLog::disabled(),
        hook: Arc::new(|_, _| {}),
        adjudicator: None,
    };
    let (stop, stop_rx) = watch::channel(None);
    let state = GameState::new(spec.start.clone(), Clocks::new(spec.time_control.clone()));
    let game = tokio::spawn(async move { run_game(&spec, state, &ctx, stop_rx).await });
    Referee {
        addr,
        game,
        stop,
        cancel,
    }
}

async fn referee(tc: &str, start: Chess) -> Referee {
    referee_with(spec(tc, start), timing()).await
}

struct Client {
    lines: tokio::io::Lines<BufReader<OwnedReadHalf>>,
    writer: OwnedWriteHalf,
    /// The client's idea of the current position.
    pos: Chess,
}

impl Client {
    async fn connect(addr: SocketAddr, name: &str) -> Client {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (r, writer) = stream.into_split();
        let mut c = Client {
            lines: BufReader::new(r).lines(),
            writer,
            pos: Chess::default(),
        };
        c.send(&format!(
            "{} refreq sign_on; tcsi \"{name}@localhost\" \"{name}\";",
            epd_fields(&Chess::default())
        ))
        .await;
        c
    }

    async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    async fn next(&mut self) -> Record {
        let line = timeout(WAIT, self.lines.next_line())
            .await
            .expect("referee silent")
            .unwrap()
            .expect("connection closed");
        read_record(&line).unwrap_or_else(|e| panic!("bad record from referee {line}: {e}"))
    }

    /// Reads the next record, checks its refcom, and tracks the position.
    async fn expect(&mut self, command: &str) -> Record {
        let r = self.next().await;
        assert_eq!(refcom(&r), Some(command), "{r}");
        if matches!(command, "reset" | "respond" | "execute" | "conclude") {
            let mut pos = r.chess().clone();
            if let Some(sm) = r.op("sm").and_then(|op| op.move_list().next()) {
                pos = gamerec::model::play_ply(&pos, sm.mv);
            }
            self.pos = pos;
        }
        r
    }

    /// Waits through reset and inform; returns the inform record.
    async fn start_game(&mut self) -> Record {
        self.expect("reset").await;
        self.expect("inform").await
    }

    /// Sends a reply from the current position with extra operations.
    async fn reply(&mut self, ops: &str) {
        let line = format!("{} refreq reply; {ops}", epd_fields(&self.pos));
        self.send(&line).await;
        if let Some(sm) = line.split("sm ").nth(1).and_then(|t| t.split(';').next())
            && let Ok(mv) = parse_move(&self.pos, sm)
        {
            self.pos.play_unchecked(mv);
        }
    }

    /// Expects respond, then replies with `ops`.
    async fn respond(&mut self, ops: &str) -> Record {
        let r = self.expect("respond").await;
        self.reply(ops).await;
        r
    }

    /// Expects the closing inform (with Result) and conclude.
    async fn concluded(&mut self) -> String {
        let inform = self.expect("inform").await;
        self.expect("conclude").await;
        tag(&inform, "Result").unwrap()
    }
}

/// The text of the first operand of `opcode`.
fn single(record: &Record, opcode: &str) -> Option<String> {
    Some(record.op(opcode)?.operands.first()?.text())
}

fn tag(record: &Record, name: &str) -> Option<String> {
    record
        .tag_pairs()
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

async fn finished(r: Referee) -> GameState {
    match timeout(WAIT, r.game).await.unwrap().unwrap() {
        RunEnd::Finished(state) => state,
        RunEnd::Interrupted(_) => panic!("interrupted"),
    }
}

async fn pair(r: &Referee) -> (Client, Client) {
    let mut a = Client::connect(r.addr, "alice").await;
    let mut b = Client::connect(r.addr, "bob").await;
    a.start_game().await;
    b.start_game().await;
    (a, b)
}

#[tokio::test]
async fn full_game_sequence_ends_in_mate() {
    let r = referee("40/60+1", Chess::default()).await;
    let mut a = Client::connect(r.addr, "alice").await;
    let mut b = Client::connect(r.addr, "bob").await;
    a.expect("reset").await;
    let inform = a.expect("inform").await;
    for (name, value) in [
        ("Event", "Protocol test"),
        ("Site", "127.0.0.1"),
        ("Date", "2026.11.22"),
        ("Round", "1"),
        ("White", "alice"),
        ("Black", "bob"),
        ("Result", "*"),
        ("TimeControl", "40/60+1"),
    ] {
        assert_eq!(tag(&inform, name).as_deref(), Some(value), "{inform}");
    }
    b.start_game().await;
    let first = a.respond("sm f3;").await;
    assert!(
        single(&first, "sm").as_deref().is_none(),
        "no move before the first: {first}"
    );
    assert_eq!(first.op("cc").unwrap().operands.len(), 2);
    assert_eq!(single(&first, "hmvc").as_deref(), Some("0"));
    assert_eq!(single(&first, "fmvn").as_deref(), Some("1"));
    let second = b.respond("sm e5;").await;
    assert_eq!(single(&second, "sm").as_deref(), Some("f3"));
    assert_eq!(second.position.to_fields(), epd_fields(&Chess::default()));
    a.respond("sm g4;").await;
    let last = b.respond("sm Qh4;").await;
    assert_eq!(single(&last, "fmvn").as_deref(), Some("2"));
    assert_eq!(a.concluded().await, "0-1");
    assert_eq!(b.concluded().await, "0-1");
    let state = finished(r).await;
    let ending = state.ending().unwrap();
    assert_eq!(ending.outcome, Outcome::Win(Color::Black));
    assert_eq!(ending.termination, Termination::Normal);
    assert_eq!(state.played().len(), 4);
    // Increments: each side got +1 s per move.
    assert!(state.played()[0].clock_after.unwrap() > Duration::from_secs(60));
}

/// The `clk_ms W B` of a respond record.
fn exact_clocks(record: &Record) -> [u64; 2] {
    let op = record
        .op("clk_ms")
        .unwrap_or_else(|| panic!("no clk_ms: {record}"));
    let ms: Vec<u64> = op
        .operands
        .iter()
        .map(|o| o.text().parse().unwrap())
        .collect();
    [ms[0], ms[1]]
}

/// Every `respond` carries both clocks to the millisecond, equal to the
/// referee's own (the clock after each side's last move, increments
/// applied); every move but the last records the referee's latency.
#[tokio::test]
async fn respond_carries_the_exact_clocks() {
    let r = referee("10+0.5", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    let mut seen = Vec::new();
    for (i, (white, black)) in [("e4", "e5"), ("Nf3", "Nc6"), ("Bb5", "a6")]
        .into_iter()
        .enumerate()
    {
        let rec = a.expect("respond").await;
        seen.push(exact_clocks(&rec));
        tokio::time::sleep(Duration::from_millis(30 + 20 * i as u64)).await;
        a.reply(&format!("sm {white};")).await;
        let rec = b.expect("respond").await;
        seen.push(exact_clocks(&rec));
        tokio::time::sleep(Duration::from_millis(10 * i as u64)).await;
        b.reply(&format!("sm {black};")).await;
    }
    a.respond("resign;").await;
    let state = finished(r).await;
    assert_eq!(seen[0], [10_000, 10_000]);
    let mut clocks = [10_000u64, 10_000];
    for (ply, played) in state.played().iter().enumerate() {
        assert_eq!(seen[ply], clocks, "before ply {}", ply + 1);
        let after = played.clock_after.unwrap();
        assert_eq!(after, Duration::from_millis(after.as_millis() as u64));
        clocks[ply % 2] = after.as_millis() as u64;
        // Charged whole milliseconds: clock = before - elapsed + increment.
        assert_eq!(
            Duration::from_millis(seen[ply][ply % 2]) - played.elapsed + Duration::from_millis(500),
            after
        );
        assert!(played.latency.is_some_and(|l| l < Duration::from_secs(1)));
    }
    assert!(state.played()[2].elapsed >= Duration::from_millis(50));
}

/// With a margin a move made after the clock reached zero stands, but the
/// overdraft is charged: the next move has only what is left of the
/// margin.
#[tokio::test]
async fn time_margin_keeps_the_overdraft() {
    let timing = Timing {
        margin: Duration::from_millis(400),
        ..timing()
    };
    let r = referee_with(spec("1", Chess::default()), timing).await;
    let (mut a, mut b) = pair(&r).await;
    a.expect("respond").await;
    tokio::time::sleep(Duration::from_millis(1_150)).await;
    a.reply("sm e4;").await;
    let rec = b.respond("sm e5;").await;
    assert_eq!(exact_clocks(&rec)[0], 0, "{rec}");
    a.expect("respond").await;
    // Overdrawn by at least 150 ms: at most 250 ms of the margin remain.
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.reply("sm Nf3;").await;
    assert_eq!(b.concluded().await, "0-1");
    let state = finished(r).await;
    assert_eq!(state.played().len(), 2, "the first late move stood");
    assert_eq!(
        state.ending().unwrap().termination,
        Termination::TimeForfeit
    );
}

#[tokio::test]
async fn resignation() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("sm e4;").await;
    b.respond("resign;").await;
    assert_eq!(a.concluded().await, "1-0");
    let state = finished(r).await;
    assert_eq!(state.ending().unwrap().reason, "black resigns");
}

#[tokio::test]
async fn stalemate_is_a_draw() {
    let start = position_from_fields("k7/8/1Q6/8/8/8/8/K7 w - -", 0, 50).unwrap();
    let r = referee("300", start).await;
    let (mut a, mut b) = pair(&r).await;
    let first = a.respond("sm Qc7;").await;
    assert_eq!(single(&first, "fmvn").as_deref(), Some("50"));
    assert_eq!(a.concluded().await, "1/2-1/2");
    assert_eq!(b.concluded().await, "1/2-1/2");
    assert_eq!(finished(r).await.ending().unwrap().reason, "stalemate");
}

#[tokio::test]
async fn flag_fall_loses() {
    let r = referee("1", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.expect("respond").await; // and never answers
    assert_eq!(b.concluded().await, "0-1");
    assert_eq!(a.concluded().await, "0-1");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::TimeForfeit);
}

#[tokio::test]
async fn flag_fall_draws_when_opponent_cannot_mate() {
    let start = position_from_fields("k7/8/8/8/8/8/8/K5Q1 w - -", 0, 50).unwrap();
    let r = referee("1", start).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    assert_eq!(a.concluded().await, "1/2-1/2");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(
        (e.outcome, e.termination),
        (Outcome::Draw, Termination::TimeForfeit)
    );
}

#[tokio::test]
async fn draw_offer_travels_and_is_rejected_then_accepted() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("draw_offer; sm e4;").await;
    let offered = b.respond("draw_reject; sm e5;").await;
    assert!(offered.has("draw_offer"), "{offered}");
    let plain = a.respond("sm Nf3;").await;
    assert!(!plain.has("draw_offer"), "{plain}");
    b.respond("draw_offer; sm Nc6;").await;
    a.respond("draw_accept;").await;
    assert_eq!(a.concluded().await, "1/2-1/2");
    assert_eq!(finished(r).await.ending().unwrap().reason, "draw agreed");
}

#[tokio::test]
async fn threefold_claim_valid() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    for (w, bl) in [("Nf3", "Nf6"), ("Ng1", "Ng8"), ("Nf3", "Nf6")] {
        a.respond(&format!("sm {w};")).await;
        b.respond(&format!("sm {bl};")).await;
    }
    a.respond("sm Ng1;").await;
    b.respond("draw_claim; sm Ng8;").await;
    assert_eq!(a.concluded().await, "1/2-1/2");
    let e = finished(r).await.ending().unwrap().clone();
    assert!(e.reason.contains("threefold"), "{}", e.reason);
}

#[tokio::test]
async fn invalid_claim_with_move_lets_the_move_stand() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("draw_claim; sm e4;").await;
    let next = b.respond("resign;").await;
    assert_eq!(single(&next, "sm").as_deref(), Some("e4"));
    assert_eq!(a.concluded().await, "1-0");
    let state = finished(r).await;
    assert!(
        state.played()[0]
            .note
            .as_deref()
            .unwrap()
            .contains("invalid draw claim")
    );
}

#[tokio::test]
async fn invalid_claim_without_move_loses() {
    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.respond("draw_claim;").await;
    assert_eq!(a.concluded().await, "0-1");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::RulesInfraction);
}

#[tokio::test]
async fn fifty_move_claim_valid_and_invalid() {
    let start = position_from_fields("4k3/8/8/8/8/8/R7/4K3 w - -", 99, 80).unwrap();
    let r = referee("300", start).await;
    let (mut a, _b) = pair(&r).await;
    let first = a.respond("draw_claim; sm Ra3;").await;
    assert_eq!(single(&first, "hmvc").as_deref(), Some("99"));
    assert_eq!(a.concluded().await, "1/2-1/2");
    assert!(finished(r).await.ending().unwrap().reason.contains("fifty"));

    let start = position_from_fields("4k3/8/8/8/8/8/R7/4K3 w - -", 97, 80).unwrap();
    let r = referee("300", start).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("draw_claim; sm Ra3;").await; // 98: too early, move stands
    b.respond("sm Kf7;").await;
    a.respond("draw_claim; sm Ra4;").await; // 100: valid
    assert_eq!(a.concluded().await, "1/2-1/2");
    let state = finished(r).await;
    assert!(state.played()[0].note.is_some());
    assert!(state.ending().unwrap().reason.contains("fifty"));
}

#[tokio::test]
async fn insufficient_material_claim() {
    // King and bishop against king and bishop on opposite colours is still
    // a possible mate for shakmaty; a lone knight is not.
    let start = position_from_fields("4k3/8/8/8/8/8/8/4K1N1 w - -", 0, 60).unwrap();
    let r = referee("300", start).await;
    let (mut a, _b) = pair(&r).await;
    a.respond("draw_claim;").await;
    assert_eq!(a.concluded().await, "1/2-1/2");
    assert!(
        finished(r)
            .await
            .ending()
            .unwrap()
            .reason
            .contains("insufficient")
    );
}

#[tokio::test]
async fn illegal_move_is_a_rules_infraction() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("sm e4;").await;
    b.respond("sm Ke7;").await;
    assert_eq!(a.concluded().await, "1-0");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::RulesInfraction);
    assert!(e.reason.contains("illegal move 'Ke7'"), "{}", e.reason);
    assert!(!e.reason.contains("malformed"), "{}", e.reason);
}

#[tokio::test]
async fn malformed_record_is_a_rules_infraction() {
    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    a.send("this is not an EPD record").await;
    assert_eq!(a.concluded().await, "0-1");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::RulesInfraction);
    assert!(e.reason.contains("malformed"), "{}", e.reason);
}

#[tokio::test]
async fn overlong_record_is_a_rules_infraction() {
    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    a.send(&"x".repeat(100_000)).await;
    assert_eq!(a.concluded().await, "0-1");
    let e = finished(r).await.ending().unwrap().clone();
    assert!(e.reason.contains("4096"), "{}", e.reason);
}

#[tokio::test]
async fn reply_out_of_turn_and_wrong_position() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.expect("respond").await;
    b.reply("sm e5;").await;
    assert_eq!(a.concluded().await, "1-0");
    assert!(
        finished(r)
            .await
            .ending()
            .unwrap()
            .reason
            .contains("out of turn")
    );

    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    a.send("8/8/8/8/8/8/8/K6k w - - refreq reply; sm Kb1;")
        .await;
    assert_eq!(a.concluded().await, "0-1");
    assert!(
        finished(r)
            .await
            .ending()
            .unwrap()
            .reason
            .contains("position")
    );
}

#[tokio::test]
async fn client_fault_and_sign_off_forfeit() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.expect("respond").await;
    b.send(&format!("{} refreq fault;", epd_fields(&Chess::default())))
        .await;
    assert_eq!(a.concluded().await, "1-0");
    assert!(finished(r).await.ending().unwrap().reason.contains("fault"));

    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    a.send(&format!(
        "{} refreq sign_off;",
        epd_fields(&Chess::default())
    ))
    .await;
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::Abandoned);
    assert_eq!(e.outcome, Outcome::Win(Color::Black));
}

#[tokio::test]
async fn sign_on_comes_first() {
    let r = referee("300", Chess::default()).await;
    let stream = TcpStream::connect(r.addr).await.unwrap();
    let (rd, mut w) = stream.into_split();
    let mut lines = BufReader::new(rd).lines();
    w.write_all(format!("{} refreq reply; sm e4;\n", epd_fields(&Chess::default())).as_bytes())
        .await
        .unwrap();
    let line = timeout(WAIT, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(refcom(&read_record(&line).unwrap()), Some("fault"));
    r.cancel.cancel();
}

#[tokio::test]
async fn disconnect_and_return_replays_with_execute() {
    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("sm e4;").await;
    b.respond("sm c5;").await;
    a.expect("respond").await;
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut a = Client::connect(r.addr, "alice").await;
    a.expect("reset").await;
    a.expect("inform").await;
    let e1 = a.expect("execute").await;
    assert_eq!(single(&e1, "sm").as_deref(), Some("e4"));
    // The last move comes with the repeated respond, from the position before it.
    let again = a.respond("resign;").await;
    assert_eq!(single(&again, "sm").as_deref(), Some("c5"));
    assert_eq!(b.concluded().await, "0-1");
    assert_eq!(finished(r).await.played().len(), 2);
}

#[tokio::test]
async fn disconnect_without_return_is_abandoned() {
    let r = referee("300", Chess::default()).await;
    let (mut a, b) = pair(&r).await;
    a.respond("sm e4;").await;
    drop(b);
    assert_eq!(a.concluded().await, "1-0");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::Abandoned);
}

#[tokio::test]
async fn silent_client_in_untimed_game_is_abandoned() {
    let mut t = timing();
    t.silence = Duration::from_millis(300);
    let r = referee_with(spec("-", Chess::default()), t).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    assert_eq!(a.concluded().await, "0-1");
    assert!(
        finished(r)
            .await
            .ending()
            .unwrap()
            .reason
            .contains("stopped answering")
    );
}

#[tokio::test]
async fn supervisor_abort_and_adjourn() {
    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    r.stop.send(Some(Stop::Abort(Outcome::Draw))).unwrap();
    assert_eq!(a.concluded().await, "1/2-1/2");
    let e = finished(r).await.ending().unwrap().clone();
    assert_eq!(e.termination, Termination::Adjudication);

    let r = referee("300", Chess::default()).await;
    let (mut a, mut b) = pair(&r).await;
    a.respond("sm d4;").await;
    b.expect("respond").await;
    r.stop.send(Some(Stop::Adjourn)).unwrap();
    a.expect("reset").await;
    match timeout(WAIT, r.game).await.unwrap().unwrap() {
        RunEnd::Interrupted(state) => assert_eq!(state.played().len(), 1),
        RunEnd::Finished(_) => panic!("adjourned game finished"),
    }
}

#[tokio::test]
async fn shutdown_sends_disconnect() {
    let r = referee("300", Chess::default()).await;
    let (mut a, _b) = pair(&r).await;
    a.expect("respond").await;
    r.cancel.cancel();
    a.expect("disconnect").await;
    let rest = timeout(WAIT, a.lines.next_line()).await.unwrap().unwrap();
    assert!(rest.is_none(), "connection closes after disconnect");
}

#[test]
fn time_control_tag_round_trips() {
    let tc: TimeControl = "40/9000:3600".parse().unwrap();
    assert_eq!(tc.to_string(), "40/9000:3600");
}
