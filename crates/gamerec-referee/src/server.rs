//! The TCP listener: one task per client connection, admission through a
//! [`Gate`] (caps per address and in all, pending connections evicted
//! oldest first, see [`crate::limits`]), and graceful shutdown through a
//! `CancellationToken` and a `TaskTracker`.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::conn::handle_client_limited;
use crate::limits::{Admission, Gate, Limits, NoteLimiter};
use crate::lobby::{Lobby, Origin};
use crate::log::EventLog;

/// Most client connections served at once (the default [`Limits`]).
pub const MAX_CONNECTIONS: usize = 512;

/// Accepts clients on `listener` until `cancel` fires, under the default
/// [`Limits`]. Connection tasks are spawned on `tracker` so the caller can
/// wait for them to finish.
pub async fn accept_loop(
    listener: TcpListener,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
    tracker: TaskTracker,
) {
    accept_loop_limited(listener, lobby, log, cancel, tracker, Limits::default()).await;
}

/// [`accept_loop`] under `limits`. The loop never stops accepting: a
/// connection over the caps is closed at once (or makes room by evicting
/// the oldest connection that has not signed on), so nothing waits in the
/// listen backlog.
pub async fn accept_loop_limited(
    listener: TcpListener,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
    tracker: TaskTracker,
    limits: Limits,
) {
    let gate = Gate::new(limits);
    let notes = Arc::new(NoteLimiter::new(gate.limits().log_notes_per_second));
    let mut backoff = Duration::from_millis(50);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = cancel.cancelled() => return,
        };
        match accepted {
            Ok((socket, peer)) => {
                backoff = Duration::from_millis(50);
                let ticket = match gate.admit(peer.ip()) {
                    Admission::Admitted(t) => t,
                    Admission::Full => {
                        if let Some(n) = notes.admit(&format!(
                            "connection from {peer} refused: {} clients signed on",
                            gate.open()
                        )) {
                            log.note(&n);
                        }
                        drop(socket);
                        continue;
                    }
                };
                let _ = socket.set_nodelay(true);
                if let Some(n) = notes.admit(&format!("connection from {peer}")) {
                    log.note(&n);
                }
                let (lobby, log, cancel, gate) =
                    (lobby.clone(), log.clone(), cancel.clone(), gate.clone());
                tracker.spawn(async move {
                    let origin = Origin::Network(peer.ip());
                    handle_client_limited(
                        socket,
                        origin,
                        lobby,
                        log,
                        cancel,
                        Some(ticket),
                        gate.limits(),
                    )
                    .await;
                });
            }
            Err(e) => {
                // Transient (out of descriptors, aborted handshake): back off.
                if let Some(n) = notes.admit(&format!("accept failed: {e}")) {
                    log.note(&n);
                }
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = cancel.cancelled() => return,
                }
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        }
    }
}
