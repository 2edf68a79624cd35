//! Signed-on clients that are not playing, keyed by name. Games take seats
//! from here and give them back when they conclude.
//!
//! The lobby also guards identities ([`Lobby::sign_on`]): a name already
//! signed on cannot sign on again; a player given a secret in the EVENT
//! file must present it (compared in constant time), and whoever presents
//! it may open as many connections as it likes (a bridge playing several
//! games at once, a reconnect resuming its seat while the old connection
//! still looks open); failed attempts are counted per source and refused
//! for a while once there are too many. Engine players run behind
//! in-process bridges: only local connections may use their names, as many
//! times as needed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use crate::wire::Record;

/// What a connection hands to the game its client plays in.
#[derive(Debug)]
pub enum Inbound {
    /// A well-formed record and when it arrived.
    Record(Record, Instant),
    /// A line that is not a well-formed record.
    Malformed {
        /// What is wrong with it.
        error: String,
        /// When it arrived.
        at: Instant,
    },
    /// A well-formed record whose `sm` is not a legal move.
    IllegalMove {
        /// The move as written.
        mv: String,
        /// Why it is not legal.
        error: String,
        /// When it arrived.
        at: Instant,
    },
    /// The connection closed.
    Closed,
}

/// A signed-on client: where to send records and where its records arrive.
#[derive(Debug)]
pub struct Seat {
    /// The client's name (from `tcsi` on sign-on).
    pub name: String,
    /// Records to the client.
    pub out: mpsc::Sender<Record>,
    /// Records from the client.
    pub inbox: mpsc::Receiver<Inbound>,
}

impl Seat {
    /// Whether the connection behind the seat is still open.
    pub fn is_open(&self) -> bool {
        !self.out.is_closed()
    }

    /// Drops whatever the client sent while the seat was idle (a game
    /// never starts with records from before it); `false` if the
    /// connection has closed.
    pub fn drain(&mut self) -> bool {
        loop {
            match self.inbox.try_recv() {
                Ok(Inbound::Closed) | Err(mpsc::error::TryRecvError::Disconnected) => {
                    return false;
                }
                Ok(_) => {}
                Err(mpsc::error::TryRecvError::Empty) => return self.is_open(),
            }
        }
    }
}

/// Who may sign on as whom: the players' secrets and the names of the
/// engine players (served by in-process bridges).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identities {
    /// Player name → secret. A player listed here must present its secret.
    pub secrets: HashMap<String, String>,
    /// Engine players: local connections only, any number of seats.
    pub engines: HashSet<String>,
}

/// Where a connection comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A network peer.
    Network(IpAddr),
    /// The referee's own process or machine: an in-process bridge, a serial line.
    Local,
}

/// Failed sign-ons after which the refusal delay stops growing.
pub const MAX_FAILED_SIGN_ONS: u32 = 5;
/// The window over which failed sign-ons are counted.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// The refusal delay after the first failure; it doubles with each
/// further failure of the same source and name (up to 2^5 times this).
pub const REFUSAL_DELAY: Duration = Duration::from_millis(300);
/// Sources × names whose failures are remembered (bounded memory).
const MAX_TRACKED_FAILURES: usize = 4096;

/// Why a sign-on was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The name is signed on already (and no secret proves the caller owns it).
    NameTaken,
    /// The player has a secret and the one given is missing or wrong.
    BadSecret,
    /// The name belongs to an engine the referee runs itself.
    EngineName,
    /// The referee's identity table is unusable (a poisoned lock).
    Throttled,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::NameTaken => "the name is signed on already",
            Refusal::BadSecret => "missing or wrong secret",
            Refusal::EngineName => "the name belongs to an engine run by the referee",
            Refusal::Throttled => "the referee cannot check identities now",
        })
    }
}

#[derive(Debug, Default)]
struct Registry {
    /// Names signed on, with their connections' ids.
    signed_on: HashMap<String, Vec<u64>>,
    next_id: u64,
    /// Failed attempts per source and name: count and when the window started.
    failures: HashMap<(Origin, String), (u32, std::time::Instant)>,
}

/// A granted sign-on; dropping it (the connection ends) frees the name.
#[derive(Debug)]
pub struct SignedOn {
    lobby: Arc<Lobby>,
    name: String,
    id: Option<u64>,
}

impl SignedOn {
    /// The name signed on.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for SignedOn {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if let Ok(mut reg) = self.lobby.registry.lock()
            && let Some(ids) = reg.signed_on.get_mut(&self.name)
        {
            ids.retain(|&i| i != id);
            if ids.is_empty() {
                reg.signed_on.remove(&self.name);
            }
        }
    }
}

/// Compares two secrets in time that depends on their lengths only.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u64::from(given.len() != expected.len());
    for (i, &e) in expected.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(0);
        diff |= u64::from(std::hint::black_box(g ^ e));
    }
    std::hint::black_box(diff) == 0
}

/// The idle clients.
#[derive(Debug, Default)]
pub struct Lobby {
    idle: Mutex<HashMap<String, VecDeque<Seat>>>,
    changed: Notify,
    anonymous: AtomicU64,
    identities: Identities,
    registry: Mutex<Registry>,
}

impl Lobby {
    /// An empty lobby; names are unique, no player has a secret.
    pub fn new() -> Lobby {
        Lobby::default()
    }

    /// An empty lobby that checks sign-ons against `identities`.
    pub fn with_identities(identities: Identities) -> Lobby {
        Lobby {
            identities,
            ..Lobby::default()
        }
    }

    /// Checks a client's claim to `name` (see the [module docs](self) for
    /// the rules); the name stays signed on until the result is dropped.
    pub fn sign_on(
        self: &Arc<Self>,
        name: &str,
        secret: Option<&str>,
        origin: Origin,
    ) -> Result<SignedOn, Refusal> {
        let mut reg = self.registry.lock().map_err(|_| Refusal::Throttled)?;
        if let Err(refusal) = self.judge(&reg, name, secret, origin) {
            let now = std::time::Instant::now();
            if reg.failures.len() >= MAX_TRACKED_FAILURES {
                reg.failures
                    .retain(|_, (_, since)| now.duration_since(*since) < FAILURE_WINDOW);
                if reg.failures.len() >= MAX_TRACKED_FAILURES {
                    reg.failures.clear();
                }
            }
            let key = (origin, gamerec::excerpt::excerpt(name).to_string());
            let entry = reg.failures.entry(key).or_insert((0, now));
            if now.duration_since(entry.1) >= FAILURE_WINDOW {
                *entry = (0, now);
            }
            entry.0 += 1;
            return Err(refusal);
        }
        let id = reg.next_id;
        reg.next_id += 1;
        reg.signed_on.entry(name.to_owned()).or_default().push(id);
        Ok(SignedOn {
            lobby: self.clone(),
            name: name.to_owned(),
            id: Some(id),
        })
    }

    fn judge(
        &self,
        reg: &Registry,
        name: &str,
        secret: Option<&str>,
        origin: Origin,
    ) -> Result<(), Refusal> {
        if self.identities.engines.contains(name) {
            return match origin {
                Origin::Local => Ok(()),
                Origin::Network(_) => Err(Refusal::EngineName),
            };
        }
        if let Some(expected) = self.identities.secrets.get(name) {
            let given = secret.unwrap_or("");
            return if same_secret(given.as_bytes(), expected.as_bytes()) {
                Ok(())
            } else {
                Err(Refusal::BadSecret)
            };
        }
        if reg.signed_on.contains_key(name) {
            return Err(Refusal::NameTaken);
        }
        Ok(())
    }

    /// How long a refused sign-on from `origin` as `name` waits before its
    /// answer: [`REFUSAL_DELAY`] doubled for each earlier failure of the
    /// same source and name within [`FAILURE_WINDOW`]. It slows the one
    /// guessing; other clients on the address, and anyone giving the right
    /// secret, are not held up.
    pub fn refusal_delay(&self, name: &str, origin: Origin) -> Duration {
        let key = (origin, gamerec::excerpt::excerpt(name).to_string());
        let failures = self
            .registry
            .lock()
            .ok()
            .and_then(|reg| reg.failures.get(&key).map(|(n, _)| *n))
            .unwrap_or(1);
        REFUSAL_DELAY * (1 << failures.clamp(1, MAX_FAILED_SIGN_ONS + 1).saturating_sub(1))
    }

    /// Removes `name`'s idle seats whose connections have closed (called
    /// when a connection ends, so the lobby holds no dead seats).
    pub fn remove_closed(&self, name: &str) {
        if let Ok(mut idle) = self.idle.lock()
            && let Some(q) = idle.get_mut(name)
        {
            q.retain(Seat::is_open);
            if q.is_empty() {
                idle.remove(name);
            }
        }
    }

    /// Idle seats held now (open or not yet removed).
    pub fn idle_seats(&self) -> usize {
        self.idle
            .lock()
            .map_or(0, |idle| idle.values().map(VecDeque::len).sum())
    }

    /// Names signed on now (each once).
    pub fn signed_on_names(&self) -> Vec<String> {
        let Ok(reg) = self.registry.lock() else {
            return Vec::new();
        };
        let mut names: Vec<String> = reg.signed_on.keys().cloned().collect();
        names.sort();
        names
    }

    /// A fresh name for a client that gives none.
    pub fn next_anonymous(&self) -> String {
        format!(
            "client-{}",
            self.anonymous.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    /// Adds an idle seat.
    pub fn put(&self, seat: Seat) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.entry(seat.name.clone()).or_default().push_back(seat);
        }
        self.changed.notify_waiters();
    }

    /// Takes an open idle seat named `name` now, if there is one.
    pub fn try_take(&self, name: &str) -> Option<Seat> {
        let mut idle = self.idle.lock().ok()?;
        let queue = idle.get_mut(name)?;
        while let Some(mut seat) = queue.pop_front() {
            if seat.drain() {
                return Some(seat);
            }
        }
        None
    }

    /// Waits for an open idle seat named `name`.
    pub async fn take(&self, name: &str) -> Seat {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(seat) = self.try_take(name) {
                return seat;
            }
            changed.await;
        }
    }

    /// Waits until open seats for both `white` and `black` are idle and takes
    /// them together, so two games never each hold one of the pair.
    pub async fn take_pair(&self, white: &str, black: &str) -> (Seat, Seat) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(pair) = self.try_take_pair(white, black) {
                return pair;
            }
            changed.await;
        }
    }

    fn try_take_pair(&self, white: &str, black: &str) -> Option<(Seat, Seat)> {
        let mut idle = self.idle.lock().ok()?;
        for name in [white, black] {
            if let Some(q) = idle.get_mut(name) {
                q.retain_mut(Seat::drain);
            }
        }
        let have = |n: &str| idle.get(n).map_or(0, VecDeque::len);
        let enough = if white == black {
            have(white) >= 2
        } else {
            have(white) >= 1 && have(black) >= 1
        };
        if !enough {
            return None;
        }
        let w = idle.get_mut(white)?.pop_front()?;
        let b = idle.get_mut(black)?.pop_front()?;
        Some((w, b))
    }

    /// Names of the idle clients and how many seats each has.
    pub fn idle_names(&self) -> Vec<(String, usize)> {
        let Ok(idle) = self.idle.lock() else {
            return Vec::new();
        };
        let mut names: Vec<_> = idle
            .iter()
            .map(|(n, q)| (n.clone(), q.iter().filter(|s| s.is_open()).count()))
            .filter(|(_, n)| *n > 0)
            .collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lobby() -> Arc<Lobby> {
        let mut ids = Identities::default();
        ids.secrets.insert("bob".into(), "bob-secret".into());
        ids.engines.insert("engine".into());
        Arc::new(Lobby::with_identities(ids))
    }

    const NET: Origin = Origin::Network(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 7)));
    const OTHER: Origin = Origin::Network(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 8)));

    #[test]
    fn a_name_signs_on_once_until_its_connection_ends() {
        let l = lobby();
        let first = l.sign_on("alice", None, NET).unwrap();
        assert_eq!(
            l.sign_on("alice", None, OTHER).unwrap_err(),
            Refusal::NameTaken
        );
        assert_eq!(
            l.sign_on("alice", None, Origin::Local).unwrap_err(),
            Refusal::NameTaken
        );
        assert_eq!(l.signed_on_names(), ["alice"]);
        drop(first);
        assert!(l.signed_on_names().is_empty());
        assert!(l.sign_on("alice", None, OTHER).is_ok());
    }

    #[test]
    fn a_secret_is_required_and_lets_its_holder_open_more_seats() {
        let l = lobby();
        assert_eq!(l.sign_on("bob", None, NET).unwrap_err(), Refusal::BadSecret);
        assert_eq!(
            l.sign_on("bob", Some("bob-secreT"), NET).unwrap_err(),
            Refusal::BadSecret
        );
        assert_eq!(
            l.sign_on("bob", Some("bob-secret!"), NET).unwrap_err(),
            Refusal::BadSecret
        );
        let a = l.sign_on("bob", Some("bob-secret"), NET).unwrap();
        let b = l.sign_on("bob", Some("bob-secret"), OTHER).unwrap();
        assert_eq!(
            l.sign_on("bob", Some("bob"), OTHER).unwrap_err(),
            Refusal::BadSecret
        );
        drop(a);
        assert_eq!(l.signed_on_names(), ["bob"]);
        drop(b);
        assert!(l.signed_on_names().is_empty());
    }

    #[test]
    fn engine_names_are_for_local_connections_only() {
        let l = lobby();
        let seats: Vec<_> = (0..3)
            .map(|_| l.sign_on("engine", None, Origin::Local).unwrap())
            .collect();
        assert_eq!(
            l.sign_on("engine", None, NET).unwrap_err(),
            Refusal::EngineName
        );
        drop(seats);
    }

    #[test]
    fn failed_attempts_slow_the_guesser_only() {
        let l = lobby();
        assert_eq!(l.refusal_delay("bob", NET), REFUSAL_DELAY);
        for _ in 0..MAX_FAILED_SIGN_ONS + 3 {
            assert_eq!(
                l.sign_on("bob", Some("guess"), NET).unwrap_err(),
                Refusal::BadSecret
            );
        }
        // The guesser waits longer and longer, up to a cap ...
        assert_eq!(l.refusal_delay("bob", NET), REFUSAL_DELAY * 32);
        // ... but the right secret from the same address is never refused,
        assert!(l.sign_on("bob", Some("bob-secret"), NET).is_ok());
        // and other names and sources are not slowed.
        assert_eq!(l.refusal_delay("carol", NET), REFUSAL_DELAY);
        assert_eq!(l.refusal_delay("bob", OTHER), REFUSAL_DELAY);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"ab", b"abc"));
        assert!(!same_secret(b"abcd", b"abc"));
        assert!(!same_secret(b"", b"abc"));
        assert!(same_secret(b"", b""));
    }
}
