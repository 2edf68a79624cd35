//! Issue 18: a seat nobody else can take. Whole events on loopback with two
//! scripted remote players; an impostor signs on with the name of a player
//! who is in a game (with and without secrets) and is refused, the real
//! player's games and standings are untouched, and a reconnect with the
//! right secret resumes the seat.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use gamerec::model::PlyMove;
use gamerec_referee::director::{EventSummary, Live, RunOptions, run_event};
use gamerec_referee::event::EventConfig;
use gamerec_referee::game_rules::epd_fields;
use gamerec_referee::wire::{read_record, refcom};
use shakmaty::{Chess, Position};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
const BOB_SECRET: &str = "bob-s3cret-42";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("argus-id-{name}-{}", std::process::id()));
    gamerec_testkit::remove_at_exit(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A match of two games between two remote players: bob White in game 1.
fn config(bob_secret: Option<&str>) -> EventConfig {
    let secret = bob_secret.map_or(String::new(), |s| format!("secret = \"{s}\"\n"));
    EventConfig::parse(&format!(
        "event = \"Identity\"\ndate = \"2026.11.24\"\ntime_control = \"300\"\n\
         pairing = \"match\"\ngames = 2\nreset_delay = 0.01\nconclude_delay = 0.01\ngrace = 5\n\
         [[player]]\nname = \"bob\"\n{secret}[[player]]\nname = \"alice\"\n"
    ))
    .unwrap()
}

async fn start(config: EventConfig, dir: PathBuf) -> (SocketAddr, JoinHandle<EventSummary>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let run = tokio::spawn(async move {
        let opts = RunOptions {
            live: Live::default(),
            ..RunOptions::default()
        };
        run_event(
            &config,
            &dir,
            Some(listener),
            opts,
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap()
    });
    (addr, run)
}

/// The position a `respond` asks for a move in: its position, then its
/// `sm` (the opponent's last move) if any.
fn to_move(respond: &str) -> Chess {
    let record = read_record(respond).unwrap();
    let mut pos = record.chess().clone();
    if let Some(PlyMove::Move(mv)) = record.moves("sm").first() {
        pos.play_unchecked(*mv);
    }
    pos
}

struct Client {
    lines: tokio::io::Lines<BufReader<OwnedReadHalf>>,
    writer: OwnedWriteHalf,
}

impl Client {
    async fn sign_on(addr: SocketAddr, name: &str, secret: Option<&str>) -> Client {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (r, writer) = stream.into_split();
        let mut c = Client {
            lines: BufReader::new(r).lines(),
            writer,
        };
        let secret = secret.map_or(String::new(), |s| format!(" Secret \"{s}\";"));
        c.send(&format!(
            "{START} refreq sign_on; tcsi \"{name}@x\" \"{name}\";{secret}"
        ))
        .await;
        c
    }

    async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    /// The next line, or `None` when the referee closed the connection.
    async fn next(&mut self) -> Option<String> {
        timeout(WAIT, self.lines.next_line())
            .await
            .expect("the referee answers")
            .ok()
            .flatten()
    }

    /// Reads up to the next `respond`; `None` if the connection ends first.
    async fn respond(&mut self) -> Option<String> {
        while let Some(line) = self.next().await {
            if line.contains("refcom respond;") {
                return Some(line);
            }
        }
        None
    }

    /// Answers a `respond` with the first legal move of its position.
    async fn play(&mut self, respond: &str) {
        let pos = to_move(respond);
        let mv = pos.legal_moves()[0];
        let san = shakmaty::san::San::from_move(&pos, mv);
        self.send(&format!("{} refreq reply; sm {san};", epd_fields(&pos)))
            .await;
    }

    async fn resign(&mut self, respond: &str) {
        let pos = to_move(respond);
        self.send(&format!("{} refreq reply; resign;", epd_fields(&pos)))
            .await;
    }

    /// Plays legal moves until the connection ends.
    async fn play_on(mut self) {
        while let Some(r) = self.respond().await {
            self.play(&r).await;
        }
    }
}

/// alice resigns whenever she is to move, until the referee disconnects.
fn alice(addr: SocketAddr) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut a = Client::sign_on(addr, "alice", None).await;
        while let Some(r) = a.respond().await {
            a.resign(&r).await;
        }
    })
}

/// An impostor signing on as bob is answered with a `fault` and cut off.
async fn impostor_refused(addr: SocketAddr, secret: Option<&str>) {
    let mut ghost = Client::sign_on(addr, "bob", secret).await;
    let mut lines = Vec::new();
    while let Some(line) = ghost.next().await {
        lines.push(line);
    }
    assert_eq!(lines.len(), 1, "{lines:?}");
    let record = read_record(&lines[0]).unwrap();
    assert_eq!(refcom(&record), Some("fault"), "{lines:?}");
    assert!(lines[0].contains("sign on refused"), "{lines:?}");
}

/// bob won both games (alice resigned each), none by infraction or abandon.
fn assert_bob_untouched(summary: &EventSummary, dir: &std::path::Path) {
    assert_eq!(summary.finished, 2);
    let bob = summary
        .standings
        .players
        .iter()
        .find(|p| p.name == "bob")
        .unwrap();
    assert_eq!((bob.games, bob.wins, bob.losses), (2, 2, 0), "{bob:?}");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(!pgn.contains("rules infraction"), "{pgn}");
    assert!(!pgn.contains("abandoned"), "{pgn}");
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert_eq!(log.matches("bob signed on").count(), 1, "{log}");
    assert!(
        log.contains("sign-on as 'bob' from 127.0.0.1 refused"),
        "{log}"
    );
    assert!(!log.contains(BOB_SECRET), "the secret is never logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_impostor_cannot_take_a_playing_name_without_secrets() {
    let dir = temp_dir("plain");
    let (addr, run) = start(config(None), dir.clone()).await;
    let a = alice(addr);
    let mut bob = Client::sign_on(addr, "bob", None).await;
    let first = bob.respond().await.unwrap();
    // bob is in game 1 and to move: someone else signs on as bob.
    impostor_refused(addr, None).await;
    bob.play(&first).await;
    bob.play_on().await;
    let summary = timeout(WAIT, run).await.unwrap().unwrap();
    a.await.unwrap();
    assert_bob_untouched(&summary, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_secrets_only_the_secret_signs_on_and_a_reconnect_resumes_the_seat() {
    let dir = temp_dir("secret");
    let (addr, run) = start(config(Some(BOB_SECRET)), dir.clone()).await;
    let a = alice(addr);
    // Without the secret, even the first sign-on is refused.
    impostor_refused(addr, None).await;
    let mut bob = Client::sign_on(addr, "bob", Some(BOB_SECRET)).await;
    let first = bob.respond().await.unwrap();
    impostor_refused(addr, None).await;
    impostor_refused(addr, Some("bob-s3cret-43")).await;
    // bob's connection drops while he is to move; an impostor tries the
    // name while it is free.
    drop(bob);
    tokio::time::sleep(Duration::from_millis(100)).await;
    impostor_refused(addr, Some("")).await;
    // The real bob comes back with the secret within the grace period: his
    // seat is his again (reset, inform, the same respond).
    let mut bob = Client::sign_on(addr, "bob", Some(BOB_SECRET)).await;
    let first_line = bob.next().await.unwrap();
    assert!(first_line.contains("refcom reset;"), "{first_line}");
    let again = bob.respond().await.unwrap();
    assert_eq!(to_move(&again), to_move(&first));
    bob.play(&again).await;
    bob.play_on().await;
    let summary = timeout(WAIT, run).await.unwrap().unwrap();
    a.await.unwrap();
    assert_eq!(summary.finished, 2);
    let bob = summary
        .standings
        .players
        .iter()
        .find(|p| p.name == "bob")
        .unwrap();
    assert_eq!((bob.wins, bob.losses), (2, 0), "{bob:?}");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(!pgn.contains("rules infraction") && !pgn.contains("abandoned"));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert_eq!(log.matches("bob signed on").count(), 2, "{log}");
    assert_eq!(
        log.matches("from 127.0.0.1 refused: missing or wrong secret")
            .count(),
        4
    );
    assert!(!log.contains(BOB_SECRET), "the secret is never logged");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_non_loopback_address_needs_secrets() {
    let open = config(None);
    assert!(open.check_listen("127.0.0.1:7878").is_ok());
    assert!(open.check_listen("[::1]:7878").is_ok());
    let e = open.check_listen("0.0.0.0:7878").unwrap_err();
    assert!(e.0.contains("bob, alice") || e.0.contains("bob"), "{e}");
    let half = config(Some(BOB_SECRET));
    assert!(
        half.check_listen("0.0.0.0:7878")
            .unwrap_err()
            .0
            .contains("alice")
    );
    let text = "event = \"x\"\ntime_control = \"300\"\nlisten = \"0.0.0.0:7878\"\n\
                [[player]]\nname = \"a\"\nsecret = \"aaaaaaaa\"\n\
                [[player]]\nname = \"e\"\nengine = \"builtin\"\n";
    assert!(EventConfig::parse(text).is_ok());
    assert!(EventConfig::parse(&text.replace("secret = \"aaaaaaaa\"\n", "")).is_err());
    assert!(EventConfig::parse(&text.replace("aaaaaaaa", "short")).is_err());
}
