//! The TCP listener: one task per client connection, a cap on connections,
//! and graceful shutdown through a `CancellationToken` and a `TaskTracker`.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::conn::handle_client_from;
use crate::lobby::{Lobby, Origin};
use crate::log::EventLog;

/// Most client connections served at once; more wait to be accepted.
pub const MAX_CONNECTIONS: usize = 512;

/// Accepts clients on `listener` until `cancel` fires. Connection tasks are
/// spawned on `tracker` so the caller can wait for them to finish.
pub async fn accept_loop(
    listener: TcpListener,
    lobby: Arc<Lobby>,
    log: EventLog,
    cancel: CancellationToken,
    tracker: TaskTracker,
) {
    let limit = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut backoff = Duration::from_millis(50);
    loop {
        let permit = tokio::select! {
            p = limit.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => return,
            },
            () = cancel.cancelled() => return,
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = cancel.cancelled() => return,
        };
        match accepted {
            Ok((socket, peer)) => {
                backoff = Duration::from_millis(50);
                let _ = socket.set_nodelay(true);
                log.note(&format!("connection from {peer}"));
                let (lobby, log, cancel) = (lobby.clone(), log.clone(), cancel.clone());
                tracker.spawn(async move {
                    let origin = Origin::Network(peer.ip());
                    handle_client_from(socket, origin, lobby, log, cancel).await;
                    drop(permit);
                });
            }
            Err(e) => {
                // Transient (out of descriptors, aborted handshake): back off.
                log.note(&format!("accept failed: {e}"));
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = cancel.cancelled() => return,
                }
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        }
    }
}
