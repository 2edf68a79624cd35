//! The live spectator page: boards, clocks, moves, results and standings,
//! served over plain HTTP/1.1 and updated with server-sent events. The page
//! is one self-contained document (no external assets).
//!
//! | path | what |
//! |---|---|
//! | `/` | the page (`/#once`: one snapshot, no live updates) |
//! | `/state` | a JSON snapshot `{"games": [...], "standings": {...}}` |
//! | `/events` | `text/event-stream`: the snapshot on every change |

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::director::Live;
use crate::limits::Limits;

/// Largest request head accepted.
const MAX_REQUEST: usize = 8192;

/// Serves the page until `cancel` fires, under the default [`Limits`].
pub async fn serve_http(listener: TcpListener, live: Live, cancel: CancellationToken) {
    serve_http_limited(listener, live, cancel, Limits::default()).await;
}

/// Connections open now: in all, per address, and `/events` streams.
#[derive(Debug, Default)]
struct Open {
    total: usize,
    streams: usize,
    per_ip: HashMap<IpAddr, usize>,
}

/// A connection's place; dropping it frees the place.
struct Place {
    open: Arc<Mutex<Open>>,
    ip: IpAddr,
    stream: bool,
}

impl Place {
    /// Counts the connection as an event stream; `false` at the cap.
    fn stream(&mut self, max: usize) -> bool {
        let Ok(mut o) = self.open.lock() else {
            return false;
        };
        if o.streams >= max {
            return false;
        }
        o.streams += 1;
        self.stream = true;
        true
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Ok(mut o) = self.open.lock() {
            o.total -= 1;
            if self.stream {
                o.streams -= 1;
            }
            if let Some(n) = o.per_ip.get_mut(&self.ip) {
                *n -= 1;
                if *n == 0 {
                    o.per_ip.remove(&self.ip);
                }
            }
        }
    }
}

/// [`serve_http`] under `limits`: connections over the caps (in all, per
/// address) are closed at once, `/events` over its cap is answered 503;
/// a write that stalls for [`Limits::write_timeout`] ends the connection.
pub async fn serve_http_limited(
    listener: TcpListener,
    live: Live,
    cancel: CancellationToken,
    limits: Limits,
) {
    let open: Arc<Mutex<Open>> = Arc::default();
    let limits = Arc::new(limits);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = cancel.cancelled() => return,
        };
        let Ok((socket, peer)) = accepted else {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(50)) => {}
                () = cancel.cancelled() => return,
            }
            continue;
        };
        let place = {
            let Ok(mut o) = open.lock() else { return };
            let here = o.per_ip.get(&peer.ip()).copied().unwrap_or(0);
            if o.total >= limits.max_http_connections || here >= limits.max_http_per_address {
                drop(socket);
                continue;
            }
            o.total += 1;
            *o.per_ip.entry(peer.ip()).or_default() += 1;
            Place {
                open: open.clone(),
                ip: peer.ip(),
                stream: false,
            }
        };
        let (live, cancel, limits) = (live.clone(), cancel.clone(), limits.clone());
        tokio::spawn(async move {
            let _ = handle(socket, live, cancel, place, &limits).await;
        });
    }
}

async fn read_head(socket: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = socket.read(&mut chunk).await?;
        if n == 0 || head.len() + n > MAX_REQUEST {
            return Err(std::io::Error::other("bad request"));
        }
        head.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

async fn handle(
    mut socket: TcpStream,
    live: Live,
    cancel: CancellationToken,
    mut place: Place,
    limits: &Limits,
) -> std::io::Result<()> {
    let head = tokio::time::timeout(Duration::from_secs(5), read_head(&mut socket))
        .await
        .map_err(|_| std::io::Error::other("timeout"))??;
    let mut words = head.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" {
        return respond(
            &mut socket,
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n",
        )
        .await;
    }
    match path {
        "/" | "/index.html" => {
            respond(&mut socket, "200 OK", "text/html; charset=utf-8", PAGE).await
        }
        "/state" => {
            respond(
                &mut socket,
                "200 OK",
                "application/json",
                &live.snapshot_json(),
            )
            .await
        }
        "/events" if place.stream(limits.max_event_streams) => {
            events(socket, live, cancel, limits.write_timeout).await
        }
        "/events" => {
            respond(
                &mut socket,
                "503 Service Unavailable",
                "text/plain",
                "too many event streams; try /state\n",
            )
            .await
        }
        _ => respond(&mut socket, "404 Not Found", "text/plain", "not found\n").await,
    }
}

async fn respond(
    socket: &mut TcpStream,
    status: &str,
    kind: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let write = async {
        socket.write_all(head.as_bytes()).await?;
        socket.write_all(body.as_bytes()).await?;
        socket.shutdown().await
    };
    tokio::time::timeout(Limits::default().write_timeout, write)
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "write stalled"))?
}

async fn events(
    mut socket: TcpStream,
    live: Live,
    cancel: CancellationToken,
    write_timeout: Duration,
) -> std::io::Result<()> {
    let stalled = || std::io::Error::new(std::io::ErrorKind::TimedOut, "write stalled");
    tokio::time::timeout(write_timeout, socket.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"))
        .await
        .map_err(|_| stalled())??;
    let mut changes = live.subscribe();
    loop {
        let data = format!("data: {}\n\n", live.snapshot_json());
        tokio::time::timeout(write_timeout, async {
            socket.write_all(data.as_bytes()).await?;
            socket.flush().await
        })
        .await
        .map_err(|_| stalled())??;
        tokio::select! {
            r = changes.recv() => {
                if matches!(r, Err(tokio::sync::broadcast::error::RecvError::Closed)) {
                    return Ok(());
                }
                // Coalesce bursts of moves into one update.
                tokio::time::sleep(Duration::from_millis(100)).await;
                while changes.try_recv().is_ok() {}
            }
            () = tokio::time::sleep(Duration::from_secs(15)) => {}
            () = cancel.cancelled() => return Ok(()),
        }
    }
}

/// The page: one document with inline style and script. Each game is a
/// card with a large board (squares sized from the card's width), both
/// clocks (the running one ticks down between updates), the engines' last
/// evaluations when the snapshot carries `white_eval`/`black_eval`, and the
/// move list as numbered rows. The squares a move changed are highlighted
/// (the snapshot's `last_move` as `e2e4` when present, else the squares
/// that differ from the previous update).
pub const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Argus — live games</title>
<style>
*{box-sizing:border-box}
body{font:15px/1.4 "DejaVu Sans",system-ui,sans-serif;background:#f4f1ea;margin:0;color:#222}
header{display:flex;align-items:baseline;gap:1em;background:#262421;color:#eee;padding:.5em 1.2em}
header h1{font-size:1.3em;margin:0} #status{color:#bbb;font-size:.9em}
#layout{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:1.2em;padding:1em 1.2em}
#games{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,600px),1fr));gap:1.2em;align-items:start}
.game{background:#fff;border:1px solid #d6d0c4;border-radius:8px;padding:.8em;display:grid;grid-template-columns:minmax(0,1.6fr) minmax(13em,1fr);gap:1em}
.game.only{grid-template-columns:minmax(0,min(78vh,60vw)) minmax(16em,1fr)}
.title{grid-column:1/-1;display:flex;justify-content:space-between;color:#555}
.title .res{font-weight:bold;color:#222}
.board{display:grid;grid-template-columns:repeat(8,1fr);grid-template-rows:repeat(8,1fr);aspect-ratio:1;width:100%;container-type:inline-size;border:3px solid #262421;border-radius:2px}
.sq{min-width:0;min-height:0;overflow:hidden;display:flex;align-items:center;justify-content:center;font-size:10.5cqw;line-height:1;user-select:none}
.sq.l{background:#f0d9b5}.sq.d{background:#b58863}
.sq.l.hl{background:#cdd26a}.sq.d.hl{background:#aaa23a}
.sq .w{color:#fff;text-shadow:0 0 2px #000,0 0 1px #000,1px 1px 0 #000}
.sq .b{color:#111}
.side{display:flex;flex-direction:column;gap:.6em;min-width:0}
.player{display:flex;align-items:center;gap:.5em;padding:.35em .5em;border-radius:6px;background:#f3f0ea}
.player .name{font-weight:bold;flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.player .eval{font-family:"DejaVu Sans Mono",monospace;font-size:.95em;color:#444;min-width:4.5em;text-align:right}
.clock{font-family:"DejaVu Sans Mono",monospace;font-size:1.5em;padding:.05em .35em;border-radius:4px;background:#e6e1d6}
.clock.run{background:#262421;color:#fff}
.clock.low{color:#d62728}
.moves{flex:1;overflow-y:auto;max-height:26em;min-height:8em;border:1px solid #e3ddd2;border-radius:6px;font-size:1.05em}
.moves table{border-collapse:collapse;width:100%}
.moves td{padding:.12em .5em}
.moves td.n{color:#888;width:2.8em;text-align:right;background:#f7f5f0}
.moves tr:nth-child(even) td:not(.n){background:#fbfaf7}
.moves td.last{background:#3a6ea5!important;color:#fff;border-radius:3px}
.result{font-weight:bold;text-align:center}
aside h2,.finished h2{font-size:1.1em;margin:.2em 0 .5em}
.finished{grid-column:1/-1}
table.st{border-collapse:collapse;background:#fff}
table.st td,table.st th{border:1px solid #d6d0c4;padding:.25em .6em;text-align:right}
table.st td.p,table.st th.p{text-align:left}
@media (max-width:1000px){#layout{grid-template-columns:1fr}.game,.game.only{grid-template-columns:1fr}}
</style></head><body>
<header><h1>Argus — live games</h1><span id="status">connecting…</span></header>
<div id="layout"><main id="games"></main><aside id="standings"></aside></div>
<script>
"use strict";
const glyph={K:"♚",Q:"♛",R:"♜",B:"♝",N:"♞",P:"♟",k:"♚",q:"♛",r:"♜",b:"♝",n:"♞",p:"♟"};
const FILES="abcdefgh";
const previous={};      // game number -> placement of the last update
const highlight={};     // game number -> squares to highlight
let snapshot=null, received=0;
function esc(s){return String(s).replace(/[&<>"']/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));}
function clock(ms){if(ms===null||ms===undefined)return "–";ms=Math.max(0,ms);const s=Math.floor(ms/1000);const h=Math.floor(s/3600),m=Math.floor(s/60)%60,x=s%60;return (h?h+":"+String(m).padStart(2,"0"):String(m))+":"+String(x).padStart(2,"0");}
function placement(fen){const out={};fen.split(" ")[0].split("/").forEach((row,r)=>{let f=0;for(const ch of row){if(/[1-8]/.test(ch)){f+=+ch;}else{if(f<8)out[FILES[f]+(8-r)]=ch;f++;}}});return out;}
function changed(a,b){const out=[];for(let r=1;r<=8;r++)for(const f of FILES){const sq=f+r;if((a[sq]||"")!==(b[sq]||""))out.push(sq);}return out;}
function board(g){
 const pieces=placement(g.fen);
 let hl=highlight[g.number]||[];
 if(typeof g.last_move==="string"&&/^[a-h][1-8][a-h][1-8]/.test(g.last_move))hl=[g.last_move.slice(0,2),g.last_move.slice(2,4)];
 let html='<div class="board" data-fen="'+esc(g.fen)+'">';
 for(let r=8;r>=1;r--)for(let f=0;f<8;f++){
  const sq=FILES[f]+r,light=(f+r)%2===0,p=pieces[sq];
  html+='<div class="sq '+(light?"l":"d")+(hl.includes(sq)?" hl":"")+'" data-square="'+sq+'"'+(p?' data-piece="'+p+'"':"")+'>'+
   (p?'<span class="'+(p===p.toUpperCase()?"w":"b")+'">'+glyph[p]+'</span>':"")+'</div>';}
 return html+"</div>";}
function evalText(e){if(e===null||e===undefined)return "";if(typeof e==="object"){let t=e.mate!==undefined?"#"+e.mate:((e.cp>0?"+":"")+(e.cp/100).toFixed(2));if(e.depth)t+=" d"+e.depth;return t;}return String(e);}
function moves(list){
 let rows="";
 for(let i=0;i<list.length;i+=2){
  const lastW=i===list.length-1,lastB=i+1===list.length-1;
  rows+='<tr><td class="n">'+(i/2+1)+'.</td><td'+(lastW?' class="last"':"")+'>'+esc(list[i])+'</td><td'+(lastB?' class="last"':"")+'>'+(i+1<list.length?esc(list[i+1]):"")+'</td></tr>';}
 return '<table>'+rows+'</table>';}
function player(g,side,live){
 const ms=side==="white"?g.white_ms:g.black_ms,run=live&&g.turn===side;
 const ev=side==="white"?g.white_eval:g.black_eval;
 return '<div class="player '+side+'"><span class="name">'+(side==="white"?"○ ":"● ")+esc(side==="white"?g.white:g.black)+'</span>'+
  (ev!==undefined?'<span class="eval" title="last evaluation">'+esc(evalText(ev))+'</span>':"")+
  '<span class="clock'+(run?" run":"")+(ms!==null&&ms!==undefined&&ms<30000?" low":"")+'" data-side="'+side+'" data-ms="'+(ms===null||ms===undefined?"":ms)+'">'+clock(ms)+'</span></div>';}
function render(s){
 snapshot=s;received=Date.now();
 for(const g of s.games){const now=placement(g.fen);const before=previous[g.number];if(before){const c=changed(before,now);if(c.length)highlight[g.number]=c;}previous[g.number]=now;}
 // Games being played first, then the last finished ones, newest first;
 // older finished games go into a table below.
 const sorted=s.games.slice().sort((a,b)=>((a.result==="*")===(b.result==="*")?b.number-a.number:(a.result==="*"?-1:1)));
 const live=sorted.filter(g=>g.result==="*").length;
 const games=sorted.slice(0,Math.max(live+2,4)),older=sorted.slice(games.length);
 const only=games.length===1;
 document.getElementById("games").innerHTML=games.map(g=>{
  const live=g.result==="*";
  return '<section class="game'+(only?" only":"")+'" data-game="'+g.number+'"><div class="title"><span>Game '+g.number+' · round '+esc(g.round)+'</span><span class="res">'+(live?"in progress":esc(g.result)+(g.reason?" — "+esc(g.reason):""))+'</span></div>'+
  board(g)+
  '<div class="side">'+player(g,"black",live)+'<div class="moves">'+moves(g.moves)+'</div>'+player(g,"white",live)+'</div></section>';}).join("")+
  (older.length?'<section class="finished"><h2>Finished games</h2><table class="st"><tr><th>#</th><th class="p">white</th><th class="p">black</th><th>result</th><th class="p">why</th><th>moves</th></tr>'+
   older.map(g=>'<tr><td>'+g.number+'</td><td class="p">'+esc(g.white)+'</td><td class="p">'+esc(g.black)+'</td><td>'+esc(g.result)+'</td><td class="p">'+esc(g.reason||"")+'</td><td>'+Math.ceil(g.moves.length/2)+'</td></tr>').join("")+'</table></section>':"");
 document.querySelectorAll(".moves").forEach(m=>{m.scrollTop=m.scrollHeight;});
 const st=s.standings;
 if(st){document.getElementById("standings").innerHTML='<h2>Standings</h2><table class="st"><tr><th>#</th><th class="p">player</th><th>points</th><th>games</th><th>+</th><th>=</th><th>−</th></tr>'+
  st.players.map(p=>'<tr><td>'+p.rank+'</td><td class="p">'+esc(p.name)+'</td><td>'+p.points+'</td><td>'+p.games+'</td><td>'+p.wins+'</td><td>'+p.draws+'</td><td>'+p.losses+'</td></tr>').join("")+'</table>'+
  '<p>'+esc(st.event)+': '+st.games_played+' of '+st.games_total+' games played</p>';}
}
// The running clock ticks down between updates.
setInterval(()=>{if(!snapshot)return;const gone=Date.now()-received;document.querySelectorAll(".clock.run").forEach(c=>{if(c.dataset.ms!=="")c.textContent=clock(Number(c.dataset.ms)-gone);});},250);
function connect(){const es=new EventSource("/events");
 es.onmessage=e=>{document.getElementById("status").textContent="live";render(JSON.parse(e.data));};
 es.onerror=()=>{document.getElementById("status").textContent="(reconnecting)";};}
fetch("/state").then(r=>r.json()).then(render).catch(()=>{});
// `/#once`: one snapshot, no live updates (screenshots, slow links).
if(location.hash==="#once"){document.getElementById("status").textContent="snapshot";}else{connect();}
</script></body></html>
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_page_state_and_events() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let cancel = CancellationToken::new();
        tokio::spawn(serve_http(listener, Live::default(), cancel.clone()));
        async fn get(addr: std::net::SocketAddr, path: &str, limit: usize) -> String {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut buf = vec![0u8; limit];
            let mut n = 0;
            while n < limit {
                match tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf[n..])).await {
                    Ok(Ok(0)) | Err(_) => break,
                    Ok(Ok(k)) => n += k,
                    Ok(Err(_)) => break,
                }
                if String::from_utf8_lossy(&buf[..n]).contains("data: ") {
                    break;
                }
            }
            String::from_utf8_lossy(&buf[..n]).into_owned()
        }
        let page = get(addr, "/", 64 * 1024).await;
        assert!(page.starts_with("HTTP/1.1 200"));
        assert!(
            page.contains("EventSource") && !page.contains("http://") && !page.contains("https://")
        );
        assert!(get(addr, "/state", 4096).await.contains("\"games\":[]"));
        assert!(get(addr, "/events", 4096).await.contains("data: {"));
        assert!(get(addr, "/nope", 4096).await.starts_with("HTTP/1.1 404"));
        cancel.cancel();
    }
}
