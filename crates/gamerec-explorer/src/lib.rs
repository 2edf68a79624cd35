//! `gamerec serve`: an opening explorer over HTTP for an indexed database.
//!
//! | route | answer |
//! |---|---|
//! | `GET /` | the explorer page (one self-contained HTML file) |
//! | `GET /lichess`, `/masters`, `/explorer` | lichess opening explorer JSON |
//! | `GET /game/export/ID`, `/game/ID.pgn` | game ID (from 1) as PGN |
//!
//! Explorer parameters are the lichess ones: `fen`, `play` (comma-separated
//! UCI), `moves`, `topGames`, `recentGames`, `ratings`, `speeds`, `since`,
//! `until`, plus `player` (either side, whole name). The JSON is made by
//! [`gamerec_db::explorer`], as `gamerec find --tree --to json` makes it.
//!
//! Every connection is bounded: connections in all and per address, the
//! request head's size, the time to send it, a connection's lifetime, and
//! the time a query may take; SIGTERM or SIGINT stop accepting, let the
//! requests under way finish (for a few seconds) and return.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamerec_db::eco::EcoBook;
use gamerec_db::explorer::{self, Database, Filters, MAX_LIST, Request};
use gamerec_db::index::{Index, IndexError};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

/// The explorer page.
pub const PAGE: &str = include_str!("page.html");

/// Limits of the server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Open connections in all.
    pub connections: usize,
    /// Open connections from one address.
    pub per_address: usize,
    /// Bytes of a request's head (request line and headers; at least 8192).
    pub head_bytes: usize,
    /// Time to send a request's head.
    pub head_timeout: Duration,
    /// A connection's whole life.
    pub connection_timeout: Duration,
    /// Time a query may take.
    pub query_timeout: Duration,
    /// Queries worked on at once.
    pub queries: usize,
    /// Time given to requests under way at shutdown.
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 256,
            per_address: 16,
            head_bytes: 16 << 10,
            head_timeout: Duration::from_secs(10),
            connection_timeout: Duration::from_secs(120),
            query_timeout: Duration::from_secs(30),
            queries: std::thread::available_parallelism().map_or(2, |n| n.get() * 2),
            grace: Duration::from_secs(5),
        }
    }
}

/// The database served.
pub struct Explorer {
    index: Index,
    db: Database,
    book: Option<EcoBook>,
    name: PathBuf,
    answers: Mutex<Answers>,
}

/// Explorer answers kept for the next asker: the positions everyone asks
/// for (the start, 1.e4, 1.d4) cost a pass over most of the database's
/// games, and the index does not change while it is served. At most
/// [`Answers::MAX`] answers and [`Answers::MAX_BYTES`] bytes; the oldest go
/// first.
#[derive(Debug, Default)]
struct Answers {
    map: HashMap<String, String>,
    order: std::collections::VecDeque<String>,
    bytes: usize,
}

impl Answers {
    const MAX: usize = 4096;
    const MAX_BYTES: usize = 64 << 20;

    fn keep(&mut self, key: String, body: String) {
        if body.len() > Self::MAX_BYTES / 16 || self.map.contains_key(&key) {
            return;
        }
        self.bytes += key.len() + body.len();
        self.order.push_back(key.clone());
        self.map.insert(key, body);
        while self.order.len() > Self::MAX || self.bytes > Self::MAX_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(b) = self.map.remove(&old) {
                self.bytes -= old.len() + b.len();
            }
        }
    }
}

/// An answer: status, content type, body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Content-Type.
    pub content_type: &'static str,
    /// Body.
    pub body: Vec<u8>,
}

impl Answer {
    fn json(status: u16, body: String) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body: body.into_bytes(),
        }
    }

    fn error(status: u16, message: &str) -> Answer {
        let mut s = String::from(r#"{"error":"#);
        s.push_str(&json_string(message));
        s.push('}');
        Answer::json(status, s)
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Decodes one `application/x-www-form-urlencoded` component.
fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Explorer {
    /// Serves `index` of the database at `db`, naming openings from `book`.
    pub fn new(index: Index, db: &Path, book: Option<EcoBook>) -> std::io::Result<Explorer> {
        Ok(Explorer {
            index,
            db: Database::new(db)?,
            book,
            name: db.to_path_buf(),
            answers: Mutex::default(),
        })
    }

    /// The answer to `GET target` (path and query).
    pub fn answer(&self, target: &str) -> Answer {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let params: Vec<(String, String)> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (url_decode(k), url_decode(v))
            })
            .collect();
        match path {
            "/" | "/index.html" => Answer {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: PAGE.as_bytes().to_vec(),
            },
            "/lichess" | "/masters" | "/explorer" => self.explore(&params),
            _ => {
                let id = path.strip_prefix("/game/export/").or_else(|| {
                    path.strip_prefix("/game/")
                        .and_then(|p| p.strip_suffix(".pgn"))
                });
                match id {
                    Some(id) => self.export(id),
                    None => Answer::error(404, "not found"),
                }
            }
        }
    }

    fn explore(&self, params: &[(String, String)]) -> Answer {
        // The same question in any parameter order is one answer.
        let mut key: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        key.sort_unstable();
        let key = key.join("&");
        let cached = self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .get(&key)
            .cloned();
        if let Some(body) = cached {
            return Answer::json(200, body);
        }
        match self.explore_json(params) {
            Ok(Ok(s)) => {
                self.answers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .keep(key, s.clone());
                Answer::json(200, s)
            }
            Ok(Err(e)) => Answer::error(500, &e.to_string()),
            Err(e) => Answer::error(400, &e),
        }
    }

    /// The JSON answer; `Err` for a bad question, `Ok(Err)` when the index
    /// cannot answer it (damaged).
    fn explore_json(
        &self,
        params: &[(String, String)],
    ) -> Result<Result<String, IndexError>, String> {
        let mut fen = None;
        let mut play = String::new();
        let mut req = Request::default();
        let mut filters = Filters::default();
        let count = |k: &str, v: &str| -> Result<usize, String> {
            v.parse::<usize>()
                .ok()
                .filter(|&n| n <= MAX_LIST)
                .ok_or_else(|| format!("{k}: a number from 0 to {MAX_LIST}"))
        };
        for (k, v) in params {
            match k.as_str() {
                "variant" if v == "standard" || v == "chess" => {}
                "variant" => return Err(format!("variant {v:?}: only standard chess")),
                // lichess clients write FEN spaces as underscores.
                "fen" => fen = Some(v.replace('_', " ")),
                "play" => play = v.clone(),
                "moves" => req.moves = Some(count(k, v)?),
                "topGames" => req.top_games = count(k, v)?,
                "recentGames" => req.recent_games = count(k, v)?,
                "ratings" => filters.ratings = Filters::parse_ratings(v)?,
                "speeds" => filters.speeds = Filters::parse_speeds(v)?,
                "since" => filters.set_since(v)?,
                "until" => filters.set_until(v)?,
                "player" => filters.player = Some(v.clone()).filter(|p| !p.is_empty()),
                _ => {}
            }
        }
        req.filters = filters;
        let start = match &fen {
            Some(f) => gamerec_db::position::parse_query_fen(f)?,
            None => shakmaty::Chess::default(),
        };
        let moves: Vec<&str> = play.split(',').filter(|m| !m.is_empty()).collect();
        let line = explorer::play(&start, &moves)?;
        let pos = line.last().cloned().unwrap_or_default();
        let report = match explorer::explore(&self.index, &pos, &req) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        let opening = self.book.as_ref().and_then(|b| explorer::opening(b, &line));
        Ok(Ok(explorer::report_json(&report, opening, &mut |g| {
            self.names(g)
        })))
    }

    /// The White and Black names of game `g` (0-based).
    fn names(&self, g: u32) -> (String, String) {
        match self.db.game(&self.index, g) {
            Ok(Some(game)) => {
                let t = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
                (t("White"), t("Black"))
            }
            _ => ("?".into(), "?".into()),
        }
    }

    fn export(&self, id: &str) -> Answer {
        let Some(g) = id
            .parse::<u64>()
            .ok()
            .filter(|&n| n >= 1 && n <= self.index.games())
            .and_then(|n| u32::try_from(n - 1).ok())
        else {
            return Answer::error(404, &format!("no game {id:?}"));
        };
        match self.db.game(&self.index, g) {
            Ok(Some(game)) => {
                let mut out = Vec::new();
                gamerec::pgn::write_game(&game, &gamerec::pgn::WriteOptions::default(), &mut out);
                Answer {
                    status: 200,
                    content_type: "application/x-chess-pgn",
                    body: out,
                }
            }
            Ok(None) => Answer::error(404, &format!("game {id} cannot be read")),
            Err(e) => Answer::error(500, &format!("{}: {e}", self.name.display())),
        }
    }
}

/// Connections open per address.
#[derive(Default)]
struct PerAddress(Mutex<HashMap<IpAddr, usize>>);

/// A connection's place in [`PerAddress`], given back when dropped.
struct Slot {
    table: Arc<PerAddress>,
    ip: IpAddr,
}

impl PerAddress {
    fn take(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Slot> {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = t.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Slot {
            table: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut t = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = t.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                t.remove(&self.ip);
            }
        }
    }
}

fn response(a: Answer) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(a.body)));
    *r.status_mut() = StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(a.content_type),
    );
    // Explorer clients on other origins may read the answers.
    h.insert(
        hyper::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        hyper::header::HeaderValue::from_static("*"),
    );
    r
}

async fn handle(
    req: hyper::Request<Incoming>,
    explorer: Arc<Explorer>,
    work: Arc<Semaphore>,
    limits: Arc<Limits>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = response(Answer::error(405, "only GET"));
        r.headers_mut().insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
        return Ok(r);
    }
    let target = req
        .uri()
        .path_and_query()
        .map_or("/".to_string(), |p| p.as_str().to_string());
    let run = async {
        let Ok(permit) = work.acquire_owned().await else {
            return Answer::error(503, "shutting down");
        };
        // The permit goes with the work: a query that outlives its timeout
        // still counts until it ends.
        let job = move || {
            let _permit = permit;
            explorer.answer(&target)
        };
        match tokio::task::spawn_blocking(job).await {
            Ok(a) => a,
            Err(_) => Answer::error(500, "internal error"),
        }
    };
    let a = match tokio::time::timeout(limits.query_timeout, run).await {
        Ok(a) => a,
        Err(_) => Answer::error(503, "the query took too long"),
    };
    Ok(response(a))
}

/// Serves `explorer` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    explorer: Arc<Explorer>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let limits = Arc::new(limits);
    let total = Arc::new(Semaphore::new(limits.connections));
    let work = Arc::new(Semaphore::new(limits.queries.max(1)));
    let per = Arc::new(PerAddress::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer): (tokio::net::TcpStream, SocketAddr) = tokio::select! {
            _ = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok(c) => c,
                // Out of descriptors and the like: wait, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Finished connections are reaped as new ones come.
        while tasks.try_join_next().is_some() {}
        let Ok(permit) = total.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let Some(slot) = per.take(peer.ip(), limits.per_address) else {
            drop(stream);
            continue;
        };
        let (explorer, work, lim) = (explorer.clone(), work.clone(), limits.clone());
        let mut stop = stop_rx.clone();
        tasks.spawn(async move {
            let _held = (permit, slot);
            let l = lim.clone();
            let service = hyper::service::service_fn(move |req| {
                handle(req, explorer.clone(), work.clone(), l.clone())
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(lim.head_timeout)
                .max_buf_size(lim.head_bytes.max(8192));
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            let life = tokio::time::sleep(lim.connection_timeout);
            tokio::pin!(life);
            let mut stopping = false;
            loop {
                tokio::select! {
                    _ = conn.as_mut() => break,
                    _ = &mut life => break,
                    _ = stop.changed(), if !stopping => {
                        stopping = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
        });
    }
    drop(stop_tx);
    let grace = tokio::time::sleep(limits.grace);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            _ = &mut grace => {
                tasks.abort_all();
                break;
            }
            r = tasks.join_next() => if r.is_none() { break },
        }
    }
    Ok(())
}

/// Binds `addr`, calls `on_listen` with the address bound, and serves until
/// SIGTERM or SIGINT (on a runtime of `threads` workers).
pub fn run(
    addr: SocketAddr,
    explorer: Explorer,
    limits: Limits,
    threads: usize,
    on_listen: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .max_blocking_threads(limits.queries.max(1) + 2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = TcpListener::bind(addr).await?;
        on_listen(listener.local_addr()?);
        #[cfg(unix)]
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let stop = async move {
            #[cfg(unix)]
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            #[cfg(not(unix))]
            let _ = tokio::signal::ctrl_c().await;
        };
        serve(listener, Arc::new(explorer), limits, stop).await
    })
}

#[cfg(test)]
mod tests {
    use super::Answers;

    #[test]
    fn answers_are_bounded_in_count_and_bytes_oldest_first() {
        let mut a = Answers::default();
        for i in 0..Answers::MAX + 10 {
            a.keep(format!("play={i}"), "x".into());
        }
        assert_eq!(a.map.len(), Answers::MAX);
        assert!(!a.map.contains_key("play=0") && a.map.contains_key("play=10"));
        let big = "y".repeat(Answers::MAX_BYTES / 16);
        for i in 0..40 {
            a.keep(format!("big={i}"), big.clone());
        }
        assert!(a.bytes <= Answers::MAX_BYTES, "{}", a.bytes);
        assert!(a.map.contains_key("big=39"));
        let held: usize = a.map.iter().map(|(k, v)| k.len() + v.len()).sum();
        assert_eq!(held, a.bytes);
        // Too large to keep: answered, not kept.
        a.keep("huge".into(), "z".repeat(Answers::MAX_BYTES / 16 + 1));
        assert!(!a.map.contains_key("huge"));
    }
}
