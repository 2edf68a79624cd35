//! The live spectator page: boards, clocks, moves, results and standings,
//! served over plain HTTP/1.1 and updated with server-sent events. The page
//! is one self-contained document (no external assets).
//!
//! | path | what |
//! |---|---|
//! | `/` | the page |
//! | `/state` | a JSON snapshot `{"games": [...], "standings": {...}}` |
//! | `/events` | `text/event-stream`: the snapshot on every change |

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::director::Live;

/// Largest request head accepted.
const MAX_REQUEST: usize = 8192;

/// Serves the page until `cancel` fires.
pub async fn serve_http(listener: TcpListener, live: Live, cancel: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = cancel.cancelled() => return,
        };
        let Ok((socket, _)) = accepted else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let (live, cancel) = (live.clone(), cancel.clone());
        tokio::spawn(async move {
            let _ = handle(socket, live, cancel).await;
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
        "/events" => events(socket, live, cancel).await,
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
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(body.as_bytes()).await?;
    socket.shutdown().await
}

async fn events(
    mut socket: TcpStream,
    live: Live,
    cancel: CancellationToken,
) -> std::io::Result<()> {
    socket
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n")
        .await?;
    let mut changes = live.subscribe();
    loop {
        socket
            .write_all(format!("data: {}\n\n", live.snapshot_json()).as_bytes())
            .await?;
        socket.flush().await?;
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

/// The page: one document with inline style and script.
pub const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Argus — live games</title>
<style>
body{font-family:sans-serif;background:#f4f1ea;margin:1em;color:#222}
h1{font-size:1.4em;margin:.2em 0 .6em}
#games{display:flex;flex-wrap:wrap;gap:1em}
.game{background:#fff;border:1px solid #ccc;border-radius:6px;padding:.6em;width:300px}
.players{display:flex;justify-content:space-between;font-weight:bold;margin:.2em 0}
.clock{font-family:monospace;padding:0 .3em;border-radius:3px}
.clock.run{background:#222;color:#fff}
table.board{border-collapse:collapse;margin:.3em auto}
table.board td{width:34px;height:34px;text-align:center;font-size:26px;line-height:34px;padding:0}
td.l{background:#eed8b5} td.d{background:#b58863}
.moves{font-family:monospace;font-size:12px;max-height:5.5em;overflow:auto;margin-top:.3em}
.result{font-weight:bold;text-align:center}
table.st{border-collapse:collapse;margin-top:1em;background:#fff}
table.st td,table.st th{border:1px solid #ccc;padding:.2em .6em}
</style></head><body>
<h1>Argus — live games <span id="status">connecting…</span></h1>
<div id="games"></div>
<div id="standings"></div>
<script>
const glyph={K:"♔",Q:"♕",R:"♖",B:"♗",N:"♘",P:"♙",k:"♚",q:"♛",r:"♜",b:"♝",n:"♞",p:"♟"};
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));}
function clock(ms){if(ms===null||ms===undefined)return "–";const s=Math.floor(ms/1000);const h=Math.floor(s/3600),m=Math.floor(s/60)%60,x=s%60;return (h?h+":":"")+String(m).padStart(2,"0")+":"+String(x).padStart(2,"0");}
function board(fen){const rows=fen.split(" ")[0].split("/");let html='<table class="board">';rows.forEach((row,r)=>{html+="<tr>";let f=0;for(const ch of row){if(/[1-8]/.test(ch)){for(let i=0;i<+ch;i++){html+='<td class="'+((r+f)%2?"d":"l")+'"></td>';f++;}}else{html+='<td class="'+((r+f)%2?"d":"l")+'">'+(glyph[ch]||"")+"</td>";f++;}}html+="</tr>";});return html+"</table>";}
function moves(list,fen){let out="";list.forEach((m,i)=>{if(i%2==0)out+=(i/2+1)+". ";out+=esc(m)+" ";});return out;}
function render(s){
 document.getElementById("games").innerHTML=s.games.map(g=>{
  const live=g.result==="*";
  return '<div class="game"><div>Game '+g.number+' · round '+esc(g.round)+'</div>'+
  '<div class="players"><span>♚ '+esc(g.black)+'</span><span class="clock'+(live&&g.turn==="black"?" run":"")+'">'+clock(g.black_ms)+'</span></div>'+
  board(g.fen)+
  '<div class="players"><span>♔ '+esc(g.white)+'</span><span class="clock'+(live&&g.turn==="white"?" run":"")+'">'+clock(g.white_ms)+'</span></div>'+
  '<div class="moves">'+moves(g.moves)+'</div>'+
  '<div class="result">'+(live?"in progress":esc(g.result)+" — "+esc(g.reason||""))+'</div></div>';}).join("");
 const st=s.standings;
 if(st){document.getElementById("standings").innerHTML='<table class="st"><tr><th>#</th><th>player</th><th>points</th><th>games</th><th>+</th><th>=</th><th>−</th></tr>'+
  st.players.map(p=>'<tr><td>'+p.rank+'</td><td>'+esc(p.name)+'</td><td>'+p.points+'</td><td>'+p.games+'</td><td>'+p.wins+'</td><td>'+p.draws+'</td><td>'+p.losses+'</td></tr>').join("")+'</table>'+
  '<p>'+esc(st.event)+': '+st.games_played+' of '+st.games_total+' games played</p>';}
}
function connect(){const es=new EventSource("/events");
 es.onmessage=e=>{document.getElementById("status").textContent="";render(JSON.parse(e.data));};
 es.onerror=()=>{document.getElementById("status").textContent="(reconnecting)";};}
fetch("/state").then(r=>r.json()).then(render).catch(()=>{});
connect();
</script></body></html>
"#;

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
