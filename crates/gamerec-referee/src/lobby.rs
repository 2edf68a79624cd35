//! Signed-on clients that are not playing, keyed by name. Games take seats
//! from here and give them back when they conclude.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

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
}

/// The idle clients.
#[derive(Debug, Default)]
pub struct Lobby {
    idle: Mutex<HashMap<String, VecDeque<Seat>>>,
    changed: Notify,
    anonymous: AtomicU64,
}

impl Lobby {
    /// An empty lobby.
    pub fn new() -> Lobby {
        Lobby::default()
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
        while let Some(seat) = queue.pop_front() {
            if seat.is_open() {
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
                q.retain(Seat::is_open);
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
