//! Bounds on what clients may hold and send: connection caps
//! per address and in all, the sign-on and idle timeouts, a record rate
//! budget per connection, and caps on the spectator page's connections.
//!
//! [`Gate`] admits TCP connections. A connection that has not signed on
//! yet is *pending*; pending connections are evicted oldest first when an
//! address (or the whole server) is at its cap, so a client that holds
//! connections open without signing on can never keep a real bridge out:
//! the bridge's connection gets in, evicts the oldest idle one, and signs
//! on within milliseconds.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The limits of one server. [`Limits::default`] is what the referee uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Connections open at once, in all.
    pub max_connections: usize,
    /// Signed-on connections per address.
    pub max_signed_on_per_address: usize,
    /// Connections per address that have not signed on yet (oldest evicted).
    pub max_pending_per_address: usize,
    /// A client must sign on within this time.
    pub sign_on_timeout: Duration,
    /// Lines a client may send before signing on.
    pub max_lines_before_sign_on: u32,
    /// A connection with no traffic either way for this long is closed.
    pub idle_timeout: Duration,
    /// Records a connection may send per second, on average.
    pub records_per_second: f64,
    /// Records a connection may send in a burst.
    pub record_burst: f64,
    /// Log lines per second for notes about connections (accepts, refusals).
    pub log_notes_per_second: f64,
    /// Spectator HTTP connections open at once.
    pub max_http_connections: usize,
    /// Spectator HTTP connections per address.
    pub max_http_per_address: usize,
    /// `/events` streams open at once.
    pub max_event_streams: usize,
    /// A write to a client that takes longer than this ends the connection.
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 512,
            max_signed_on_per_address: 128,
            max_pending_per_address: 16,
            sign_on_timeout: Duration::from_secs(10),
            max_lines_before_sign_on: 4,
            idle_timeout: Duration::from_secs(3600),
            records_per_second: 50.0,
            record_burst: 200.0,
            log_notes_per_second: 20.0,
            max_http_connections: 128,
            max_http_per_address: 64,
            max_event_streams: 32,
            write_timeout: Duration::from_secs(30),
        }
    }
}

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
#[derive(Debug, Clone)]
pub struct Budget {
    rate: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl Budget {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64) -> Budget {
        Budget {
            rate,
            burst,
            tokens: burst,
            at: Instant::now(),
        }
    }

    /// Takes one token if there is one.
    pub fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.saturating_duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A rate-limited note writer: notes beyond the budget are counted, and the
/// count is told with the next note that gets through.
#[derive(Debug)]
pub struct NoteLimiter {
    budget: Mutex<(Budget, u64)>,
}

impl NoteLimiter {
    /// `rate` notes a second, bursts of `5 × rate`.
    pub fn new(rate: f64) -> NoteLimiter {
        NoteLimiter {
            budget: Mutex::new((Budget::new(rate, (rate * 5.0).max(1.0)), 0)),
        }
    }

    /// `Some(text)` (with a count of the notes suppressed before it) when
    /// the budget allows, else `None`.
    pub fn admit(&self, text: &str) -> Option<String> {
        let mut guard = self.budget.lock().ok()?;
        let (budget, suppressed) = &mut *guard;
        if !budget.take() {
            *suppressed += 1;
            return None;
        }
        let out = if *suppressed > 0 {
            format!("{text} ({suppressed} similar notes not logged)")
        } else {
            text.to_owned()
        };
        *suppressed = 0;
        Some(out)
    }
}

#[derive(Debug, Default)]
struct PerAddress {
    pending: usize,
    signed_on: usize,
}

#[derive(Debug, Default)]
struct GateState {
    per_ip: HashMap<IpAddr, PerAddress>,
    /// Pending connections by admission order: id → (address, evict token).
    pending: BTreeMap<u64, (IpAddr, CancellationToken)>,
    total: usize,
    next_id: u64,
}

/// Admission control for TCP clients (see the [module docs](self)).
#[derive(Debug)]
pub struct Gate {
    limits: Limits,
    state: Mutex<GateState>,
}

/// What admission decided.
#[derive(Debug)]
pub enum Admission {
    /// Admitted; the ticket holds the place until dropped.
    Admitted(Ticket),
    /// Refused: the server is full of signed-on clients.
    Full,
}

/// A connection's place at the [`Gate`]; dropping it frees the place.
#[derive(Debug)]
pub struct Ticket {
    gate: Arc<Gate>,
    ip: IpAddr,
    id: u64,
    signed_on: bool,
    /// Fires when the gate evicts this connection (it is pending and a
    /// newer connection needs its place).
    pub evicted: CancellationToken,
}

impl Gate {
    /// A gate with `limits`.
    pub fn new(limits: Limits) -> Arc<Gate> {
        Arc::new(Gate {
            limits,
            state: Mutex::new(GateState::default()),
        })
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Admits a connection from `ip`, evicting the oldest pending
    /// connection of that address (or of any address, when the server is
    /// full) to make room.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Admission {
        let Ok(mut st) = self.state.lock() else {
            return Admission::Full;
        };
        let pending_here = st.per_ip.get(&ip).map_or(0, |a| a.pending);
        if pending_here >= self.limits.max_pending_per_address.max(1) {
            let oldest = st
                .pending
                .iter()
                .find(|(_, (a, _))| *a == ip)
                .map(|(id, _)| *id);
            if let Some(id) = oldest {
                evict(&mut st, id);
            }
        }
        if st.total >= self.limits.max_connections.max(1) {
            let oldest = st.pending.keys().next().copied();
            match oldest {
                Some(id) => evict(&mut st, id),
                None => return Admission::Full,
            }
        }
        let id = st.next_id;
        st.next_id += 1;
        st.total += 1;
        st.per_ip.entry(ip).or_default().pending += 1;
        let evicted = CancellationToken::new();
        st.pending.insert(id, (ip, evicted.clone()));
        Admission::Admitted(Ticket {
            gate: self.clone(),
            ip,
            id,
            signed_on: false,
            evicted,
        })
    }

    /// Connections open now (pending and signed on).
    pub fn open(&self) -> usize {
        self.state.lock().map_or(0, |s| s.total)
    }
}

/// Forgets pending connection `id` (its place is freed now; its ticket's
/// drop finds it gone) and tells it to close.
fn evict(st: &mut GateState, id: u64) {
    if let Some((ip, token)) = st.pending.remove(&id) {
        st.total -= 1;
        if let Some(a) = st.per_ip.get_mut(&ip) {
            a.pending -= 1;
            if a.pending == 0 && a.signed_on == 0 {
                st.per_ip.remove(&ip);
            }
        }
        token.cancel();
    }
}

impl Ticket {
    /// Moves the connection from pending to signed on; `false` when its
    /// address has as many signed-on connections as allowed (or the
    /// connection was evicted meanwhile).
    pub fn sign_on(&mut self) -> bool {
        if self.signed_on {
            return true;
        }
        let Ok(mut st) = self.gate.state.lock() else {
            return false;
        };
        if !st.pending.contains_key(&self.id) {
            return false;
        }
        let signed = st.per_ip.get(&self.ip).map_or(0, |a| a.signed_on);
        if signed >= self.gate.limits.max_signed_on_per_address {
            return false;
        }
        st.pending.remove(&self.id);
        if let Some(a) = st.per_ip.get_mut(&self.ip) {
            a.pending -= 1;
            a.signed_on += 1;
        }
        self.signed_on = true;
        true
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let Ok(mut st) = self.gate.state.lock() else {
            return;
        };
        if self.signed_on {
            st.total -= 1;
            if let Some(a) = st.per_ip.get_mut(&self.ip) {
                a.signed_on -= 1;
                if a.pending == 0 && a.signed_on == 0 {
                    st.per_ip.remove(&self.ip);
                }
            }
        } else {
            evict(&mut st, self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    fn admit(g: &Arc<Gate>, ip: IpAddr) -> Ticket {
        match g.admit(ip) {
            Admission::Admitted(t) => t,
            Admission::Full => panic!("refused"),
        }
    }

    #[test]
    fn pending_connections_are_evicted_oldest_first() {
        let g = Gate::new(Limits {
            max_pending_per_address: 2,
            max_connections: 4,
            max_signed_on_per_address: 1,
            ..Limits::default()
        });
        let t1 = admit(&g, A);
        let t2 = admit(&g, A);
        let mut t3 = admit(&g, A);
        assert!(t1.evicted.is_cancelled());
        assert!(!t2.evicted.is_cancelled());
        assert_eq!(g.open(), 2);
        assert!(t3.sign_on());
        // Signed on: one per address here.
        let mut t4 = admit(&g, A);
        assert!(!t4.sign_on());
        // The server is full (4): another address evicts the oldest pending.
        let _t5 = admit(&g, B);
        let _t6 = admit(&g, B);
        assert!(t2.evicted.is_cancelled());
        assert_eq!(g.open(), 4);
        drop((t1, t2, t4));
        assert_eq!(g.open(), 3);
        drop(t3);
        assert_eq!(g.open(), 2);
    }

    #[test]
    fn a_full_server_of_signed_on_clients_refuses() {
        let g = Gate::new(Limits {
            max_connections: 1,
            ..Limits::default()
        });
        let mut t = admit(&g, A);
        assert!(t.sign_on());
        assert!(matches!(g.admit(B), Admission::Full));
        drop(t);
        assert_eq!(g.open(), 0);
        assert!(g.state.lock().unwrap().per_ip.is_empty());
    }

    #[test]
    fn budgets_refill() {
        let mut b = Budget::new(1000.0, 2.0);
        assert!(b.take() && b.take());
        assert!(!b.take());
        std::thread::sleep(Duration::from_millis(5));
        assert!(b.take());
        let notes = NoteLimiter::new(0.001);
        assert!(notes.admit("x").is_some());
        for _ in 0..10 {
            notes.admit("y");
        }
        assert!(notes.admit("z").is_none());
    }
}
