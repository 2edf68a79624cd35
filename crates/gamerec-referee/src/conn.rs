//! One client connection: line framing with a bounded record length, the
//! sign-on handshake, and the hand-off of a signed-on client to the lobby.
//!
//! The handler works on any byte stream (TCP, a pipe pair, an in-memory
//! duplex), so every transport shares one code path; the referee's own
//! engine bridges are [`LocalClient`]s, seated without a stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::limits::{Budget, Limits, Ticket};
use crate::lobby::{Inbound, Lobby, Origin, Seat, SignedOn};
use crate::log::EventLog;
use crate::wire::{MAX_RECORD_LEN, Record, WireError, read_record, refcom, refreq};

pub use crate::wire::{disconnect_record, fault_record};

/// A line read from a client.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line, terminator stripped.
    Text(String),
    /// A line longer than the limit; its bytes were discarded.
    TooLong,
    /// A line that is not UTF-8.
    NotText,
}

/// Reads one line of at most `max` bytes, discarding the rest of an overlong
/// line so memory stays bounded. `Ok(None)` at end of stream.
pub async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<Line>> {
    buf.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if buf.is_empty() && !too_long {
                return Ok(None);
            }
            break;
        }
        let (chunk, found) = match memchr(b'\n', available) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            break;
        }
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    match std::str::from_utf8(buf) {
        Ok(s) => Ok(Some(Line::Text(s.to_owned()))),
        Err(_) => Ok(Some(Line::NotText)),
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// The name a client gives on sign-on: the player name of `tcsi` (EPD 6.30),
/// or else a `ptp` `Name`/`White` value, or else `None`.
fn client_name(record: &Record) -> Option<String> {
    if let Some(op) = record.op("tcsi")
        && let Some(last) = op.operands.last()
    {
        return Some(last.text());
    }
    None
}

/// The private opcode (EPD 5.3) that carries a player's secret on sign-on:
/// `refreq sign_on; tcsi "ADDRESS" "NAME"; Secret "SECRET";`.
pub const SECRET_OPCODE: &str = "Secret";

fn client_secret(record: &Record) -> Option<String> {
    record
        .op(SECRET_OPCODE)
        .and_then(|op| op.operands.first())
        .map(|o| o.text())
}

/// The line as logged: a record carrying a secret is logged without it.
fn loggable(text: &str, parsed: &Result<Record, WireError>) -> String {
    if !text.contains(SECRET_OPCODE) {
        return text.to_owned();
    }
    match parsed {
        Ok(record) if record.has(SECRET_OPCODE) => {
            let mut shown = record.clone();
            shown.remove(SECRET_OPCODE);
            format!("{shown} (secret withheld)")
        }
        _ => "(a line naming a secret, withheld)".to_owned(),
    }
}

/// Serves one local client (an in-process bridge, a serial line) until it
/// signs off, disconnects, or `cancel` fires.
pub async fn handle_client<S>(
    stream: S,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    handle_client_from(stream, Origin::Local, lobby, log, cancel).await;
}

/// Serves one client from `origin` until it signs off, disconnects, is
/// refused on sign-on (a `fault` saying why, then the connection closes),
/// or `cancel` fires.
pub async fn handle_client_from<S>(
    stream: S,
    origin: Origin,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    handle_client_limited(stream, origin, lobby, log, cancel, None, &Limits::default()).await;
}

/// Milliseconds since `base`, for the activity stamp shared by a
/// connection's reader and writer.
fn stamp(base: Instant) -> u64 {
    base.elapsed().as_millis() as u64
}

/// [`handle_client_from`] under `limits`, holding `ticket` (its place at
/// the server's [`crate::limits::Gate`]; eviction closes the connection).
///
/// Every task of the connection ends when it closes: the writer sends what
/// is queued and shuts the socket down, the seat left in the lobby is
/// removed, and the name is freed.
pub async fn handle_client_limited<S>(
    stream: S,
    origin: Origin,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
    mut ticket: Option<Ticket>,
    limits: &Limits,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (reader, mut writer) = tokio::io::split(stream);
    let mut reader = BufReader::new(reader);
    let (out_tx, mut out_rx) = mpsc::channel::<Record>(64);
    let peer = lobby.next_anonymous();
    let writer_name = Arc::new(std::sync::Mutex::new(peer.clone()));
    let writer_log = log.clone();
    let name_for_writer = writer_name.clone();
    let writer_cancel = cancel.clone();
    // `closing`: the reader is done; the writer sends what is queued and ends.
    let closing = CancellationToken::new();
    let writer_closing = closing.clone();
    let base = Instant::now();
    let activity = Arc::new(AtomicU64::new(0));
    let writer_activity = activity.clone();
    let write_timeout = limits.write_timeout;
    let writer_task = tokio::spawn(async move {
        loop {
            let record = tokio::select! {
                biased;
                r = out_rx.recv() => match r {
                    Some(r) => r,
                    None => break,
                },
                () = writer_cancel.cancelled() => disconnect_record(),
                () = writer_closing.cancelled() => match out_rx.try_recv() {
                    Ok(r) => r,
                    Err(_) => break,
                },
            };
            let line = format!("{record}\n");
            let who = name_for_writer
                .lock()
                .map(|n| n.clone())
                .unwrap_or_default();
            writer_log.sent(&who, &record);
            let wrote = tokio::time::timeout(write_timeout, async {
                writer.write_all(line.as_bytes()).await?;
                writer.flush().await
            })
            .await;
            if !matches!(wrote, Ok(Ok(()))) {
                break;
            }
            writer_activity.store(stamp(base), Ordering::Relaxed);
            if refcom(&record) == Some("disconnect") {
                break;
            }
        }
        // Dropping the receiver closes the seat (`Seat::is_open` is false).
        drop(out_rx);
        writer_closing.cancel();
        // The connection is ending: a peer that is gone or slow to take the
        // close changes nothing (the seat is already closed), so neither
        // the timeout nor the shutdown's error is acted on.
        let _ = tokio::time::timeout(Duration::from_secs(1), writer.shutdown()).await;
    });

    let evicted = ticket
        .as_ref()
        .map_or_else(CancellationToken::new, |t| t.evicted.clone());
    let mut inbox: Option<mpsc::Sender<Inbound>> = None;
    let mut signed_on: Option<SignedOn> = None;
    let mut buf = Vec::with_capacity(256);
    let sign_on_by = base + limits.sign_on_timeout;
    let mut lines_before_sign_on = 0u32;
    let mut budget = Budget::new(limits.records_per_second, limits.record_burst);
    loop {
        let idle_until =
            base + Duration::from_millis(activity.load(Ordering::Relaxed)) + limits.idle_timeout;
        let deadline = if inbox.is_none() {
            sign_on_by.min(idle_until)
        } else {
            idle_until
        };
        let line = tokio::select! {
            r = read_line_bounded(&mut reader, &mut buf, MAX_RECORD_LEN) => r,
            () = cancel.cancelled() => break,
            () = closing.cancelled() => break,
            () = evicted.cancelled() => {
                log.note(&format!("{peer}: closed to make room (no sign-on yet)"));
                break;
            }
            () = tokio::time::sleep_until(deadline) => {
                let last = base + Duration::from_millis(activity.load(Ordering::Relaxed));
                if inbox.is_some() && last + limits.idle_timeout > Instant::now() {
                    continue;
                }
                let why = if inbox.is_none() {
                    format!("no sign-on within {:?}", limits.sign_on_timeout)
                } else {
                    format!("no traffic for {:?}", limits.idle_timeout)
                };
                log.note(&format!("{peer}: closed: {why}"));
                let _ = out_tx.try_send(fault_record(&why));
                break;
            }
        };
        let received_at = Instant::now();
        activity.store(stamp(base), Ordering::Relaxed);
        if inbox.is_none() {
            lines_before_sign_on += 1;
            if lines_before_sign_on > limits.max_lines_before_sign_on {
                log.note(&format!(
                    "{peer}: closed: more than {} lines before sign-on",
                    limits.max_lines_before_sign_on
                ));
                break;
            }
        } else if !budget.take() {
            let why = format!("more than {} records a second", limits.records_per_second);
            log.note(&format!("{peer}: closed: {why}"));
            let _ = out_tx.try_send(fault_record(&why));
            break;
        }
        let who = writer_name.lock().map(|n| n.clone()).unwrap_or_default();
        let parsed = match line {
            Err(_) | Ok(None) => break,
            Ok(Some(Line::Text(text))) if text.trim().is_empty() => continue,
            Ok(Some(Line::Text(text))) => {
                let parsed = read_record(&text);
                log.received(&who, &loggable(&text, &parsed));
                parsed
            }
            Ok(Some(Line::TooLong)) => {
                log.note(&format!("{who}: record longer than {MAX_RECORD_LEN} bytes"));
                Err(WireError::Malformed(format!(
                    "record longer than {MAX_RECORD_LEN} bytes"
                )))
            }
            Ok(Some(Line::NotText)) => {
                log.note(&format!("{who}: record is not text"));
                Err(WireError::Malformed("record is not ASCII text".to_owned()))
            }
        };
        match (&inbox, parsed) {
            (None, Ok(record)) if refreq(&record) == Some("sign_on") => {
                let name = client_name(&record).unwrap_or_else(|| peer.clone());
                let secret = client_secret(&record);
                let granted = lobby.sign_on(&name, secret.as_deref(), origin);
                let admitted = granted.is_err() || ticket.as_mut().is_none_or(Ticket::sign_on);
                match granted {
                    Ok(granted) if admitted => signed_on = Some(granted),
                    Ok(_) => {
                        log.note(&format!(
                            "sign-on as '{}' refused: too many clients from this address",
                            gamerec::excerpt::excerpt(&name)
                        ));
                        let _ = out_tx
                            .send(fault_record(
                                "sign on refused: too many clients from this address",
                            ))
                            .await;
                        break;
                    }
                    Err(refusal) => {
                        let from = match origin {
                            Origin::Network(ip) => ip.to_string(),
                            Origin::Local => "a local client".to_owned(),
                        };
                        log.note(&format!(
                            "sign-on as '{}' from {from} refused: {refusal}",
                            gamerec::excerpt::excerpt(&name)
                        ));
                        // The guesser waits longer with every failure; a
                        // client giving the right secret never waits.
                        let delay = lobby.refusal_delay(&name, origin);
                        tokio::select! {
                            () = tokio::time::sleep(delay) => {}
                            () = cancel.cancelled() => {}
                        }
                        let _ = out_tx
                            .send(fault_record(&format!("sign on refused: {refusal}")))
                            .await;
                        break;
                    }
                }
                if let Ok(mut n) = writer_name.lock() {
                    *n = name.clone();
                }
                let (tx, rx) = mpsc::channel(64);
                inbox = Some(tx);
                log.note(&format!("{} signed on", gamerec::excerpt::excerpt(&name)));
                lobby.put(Seat {
                    name,
                    out: out_tx.clone(),
                    inbox: rx,
                });
            }
            (None, Ok(record)) if refreq(&record) == Some("sign_off") => break,
            (None, _) => {
                let _ = out_tx.try_send(fault_record("sign on first: refreq sign_on"));
            }
            (Some(tx), Ok(record)) => {
                let sign_off = refreq(&record) == Some("sign_off");
                // A full inbox is a seat nobody reads (idle in the lobby):
                // what it receives is dropped, never kept for a later game.
                if tx.try_send(Inbound::Record(record, received_at)).is_err() && !sign_off {
                    log.note(&format!("{who}: record dropped (not in a game)"));
                }
                if sign_off {
                    log.note(&format!("{who} signed off"));
                    break;
                }
            }
            (Some(tx), Err(WireError::Malformed(error))) => {
                log.note(&format!("{who}: malformed record: {error}"));
                let _ = tx.try_send(Inbound::Malformed {
                    error,
                    at: received_at,
                });
            }
            (Some(tx), Err(WireError::IllegalMove { mv, message })) => {
                log.note(&format!("{who}: illegal move '{mv}': {message}"));
                let _ = tx.try_send(Inbound::IllegalMove {
                    mv,
                    error: message,
                    at: received_at,
                });
            }
        }
    }
    if let Some(tx) = inbox {
        // The game (if any) learns at once; an idle seat is dropped below.
        let _ = tx.try_send(Inbound::Closed);
    }
    drop(out_tx);
    // On `cancel` the writer sends `disconnect` first (its select is biased).
    closing.cancel();
    // Queued records (a final conclude, a fault) go out, but never wait
    // long: the writer is aborted after that and the socket closes.
    let mut writer_task = writer_task;
    if tokio::time::timeout(Duration::from_secs(2), &mut writer_task)
        .await
        .is_err()
    {
        writer_task.abort();
        let _ = writer_task.await;
    }
    if let Some(granted) = &signed_on {
        lobby.remove_closed(granted.name());
    }
    drop(signed_on);
    drop(ticket);
}

/// A client in the referee's own process (an event's or a match's engine
/// bridge): signed on and seated like a connection, but its records cross
/// as values on the seat's channels, with no byte stream, framing or
/// connection tasks between the bridge and the game (each was a wake-up
/// on every move). Its records are logged as a connection's are, and what
/// it sends is read as a connection reads it ([`inbound`]). Dropping it
/// closes the connection: a game hears [`Inbound::Closed`], an idle seat
/// is removed and the name is freed.
#[derive(Debug)]
pub struct LocalClient {
    name: String,
    from_referee: mpsc::Receiver<Record>,
    to_referee: mpsc::Sender<Inbound>,
    lobby: Arc<Lobby>,
    log: EventLog,
    _signed_on: SignedOn,
}

impl LocalClient {
    /// Signs `name` on (with `secret`, as a local client) and seats it in
    /// the lobby; a refusal is the lobby's.
    pub fn sign_on(
        lobby: &Arc<Lobby>,
        name: &str,
        secret: Option<&str>,
        log: &EventLog,
    ) -> Result<LocalClient, crate::lobby::Refusal> {
        let granted = lobby.sign_on(name, secret, Origin::Local)?;
        let (out, from_referee) = mpsc::channel(64);
        let (to_referee, inbox) = mpsc::channel(64);
        log.note(&format!("{} signed on", gamerec::excerpt::excerpt(name)));
        lobby.put(Seat {
            name: name.to_owned(),
            out,
            inbox,
        });
        Ok(LocalClient {
            name: name.to_owned(),
            from_referee,
            to_referee,
            lobby: lobby.clone(),
            log: log.clone(),
            _signed_on: granted,
        })
    }

    /// The next record from the referee (`None`: the seat is gone).
    pub async fn recv(&mut self) -> Option<Record> {
        self.from_referee.recv().await
    }

    /// Logs a record the referee sent (the bridge calls it once the
    /// record is acted on, so the log write is off the move's path).
    pub fn log_sent(&self, record: &Record) {
        self.log.sent(&self.name, record);
    }

    /// Hands one line to the referee as a connection would: read as a
    /// record and stamped now, then logged. An error if the referee is
    /// gone; a record for a seat nobody reads is dropped (as a
    /// connection drops it).
    pub fn send_line(&mut self, line: &str) -> std::io::Result<()> {
        let at = Instant::now();
        let text = line.trim_end();
        let parsed = read_record(text);
        let shown = loggable(text, &parsed);
        let sign_off = parsed.as_ref().is_ok_and(|r| refreq(r) == Some("sign_off"));
        let sent = self.to_referee.try_send(inbound(parsed, at));
        self.log.received(&self.name, &shown);
        match sent {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) if !sign_off => {
                self.log
                    .note(&format!("{}: record dropped (not in a game)", self.name));
            }
            Err(mpsc::error::TrySendError::Full(_)) => {}
            Err(mpsc::error::TrySendError::Closed(_)) => {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
        }
        if sign_off {
            self.log.note(&format!("{} signed off", self.name));
        }
        Ok(())
    }
}

impl Drop for LocalClient {
    fn drop(&mut self) {
        let _ = self.to_referee.try_send(Inbound::Closed);
        // A closed receiver closes the seat (`Seat::is_open` is false).
        self.from_referee.close();
        self.lobby.remove_closed(&self.name);
    }
}

/// A client's record as the game receives it: well formed, malformed, or
/// with an illegal `sm`, stamped with its arrival.
pub fn inbound(parsed: Result<Record, WireError>, at: Instant) -> Inbound {
    match parsed {
        Ok(record) => Inbound::Record(record, at),
        Err(WireError::Malformed(error)) => Inbound::Malformed { error, at },
        Err(WireError::IllegalMove { mv, message }) => Inbound::IllegalMove {
            mv,
            error: message,
            at,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local client is seated, refused with a wrong secret, reads its
    /// lines as a connection reads them (a move, an illegal move, a
    /// malformed record), hears the referee, and when dropped closes its
    /// seat and frees its name.
    #[tokio::test]
    async fn local_client_is_a_connection_without_the_stream() {
        use crate::lobby::{Identities, Refusal};
        let mut ids = Identities::default();
        ids.secrets.insert("a".into(), "s".into());
        let lobby = Arc::new(Lobby::with_identities(ids));
        let log = EventLog::disabled();
        assert!(matches!(
            LocalClient::sign_on(&lobby, "a", Some("wrong"), &log),
            Err(Refusal::BadSecret)
        ));
        let mut client = LocalClient::sign_on(&lobby, "a", Some("s"), &log).expect("signed on");
        let mut seat = lobby.try_take("a").expect("seated");
        let start = crate::game_rules::epd_fields(&shakmaty::Chess::default());
        client
            .send_line(&format!("{start} refreq reply; sm e4;\n"))
            .expect("sent");
        assert!(matches!(seat.inbox.recv().await, Some(Inbound::Record(r, _)) if r.has("sm")));
        client
            .send_line(&format!("{start} refreq reply; sm e5;"))
            .expect("sent");
        assert!(
            matches!(seat.inbox.recv().await, Some(Inbound::IllegalMove { mv, .. }) if mv == "e5")
        );
        client.send_line("not a record").expect("sent");
        assert!(matches!(
            seat.inbox.recv().await,
            Some(Inbound::Malformed { .. })
        ));
        seat.out
            .send(crate::wire::disconnect_record())
            .await
            .expect("delivered");
        assert_eq!(
            client.recv().await.as_ref().and_then(refcom),
            Some("disconnect")
        );
        assert!(seat.is_open());
        drop(client);
        assert!(matches!(seat.inbox.recv().await, Some(Inbound::Closed)));
        assert!(!seat.is_open());
        assert!(lobby.signed_on_names().is_empty());
    }

    #[tokio::test]
    async fn bounded_lines() {
        let data = format!("short\r\n{}\nnext\n\u{ff}", "x".repeat(100));
        let mut bytes = data.into_bytes();
        bytes.extend_from_slice(&[0xff, b'\n']);
        let mut reader = BufReader::with_capacity(8, &bytes[..]);
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        while let Some(l) = read_line_bounded(&mut reader, &mut buf, 50).await.unwrap() {
            lines.push(l);
        }
        assert_eq!(
            lines,
            vec![
                Line::Text("short".into()),
                Line::TooLong,
                Line::Text("next".into()),
                Line::NotText
            ]
        );
    }
}
