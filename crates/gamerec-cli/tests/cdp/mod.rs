//! A minimal Chrome DevTools Protocol client for tests: starts headless
//! Chromium with `--remote-debugging-port=0` on 127.0.0.1, connects to the
//! page's WebSocket (RFC 6455 framing over a plain `TcpStream`), sends
//! commands and waits for their replies. Real key presses go through
//! `Input.dispatchKeyEvent`, the DOM is read with `Runtime.evaluate`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running headless Chromium and a connection to its first page.
pub struct Browser {
    child: Child,
    socket: TcpStream,
    next_id: u64,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.call("Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Kills Chromium if starting it fails half-way (a panic before the
/// `Browser` owns it).
struct ChildGuard(Option<Child>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn http_get(port: u16, path: &str) -> std::io::Result<String> {
    let s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    (&s).write_all(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes())?;
    // DevTools keeps the connection open: read the body by its length.
    let mut reader = BufReader::new(&s);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

impl Browser {
    /// Starts Chromium on `url` with a fresh profile under `profile`.
    pub fn launch(chromium: &Path, profile: PathBuf, url: &str, size: (u32, u32)) -> Browser {
        let child = Command::new(chromium)
            .args(gamerec_testkit::CHROMIUM_HEADLESS)
            .args([
                "--disable-quic",
                "--hide-scrollbars",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--window-size={},{}", size.0, size.1))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let mut guard = ChildGuard(Some(child));
        // Chromium writes the port it chose into the profile.
        let port_file = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        let port: u16 = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && let Some(Ok(p)) = text.lines().next().map(str::parse)
            {
                break p;
            }
            assert!(Instant::now() < deadline, "chromium gave no debugging port");
            std::thread::sleep(Duration::from_millis(50));
        };
        let ws_path = loop {
            let list: Value = http_get(port, "/json/list")
                .ok()
                .and_then(|b| serde_json::from_str(&b).ok())
                .unwrap_or(Value::Null);
            let page = list.as_array().and_then(|l| {
                l.iter()
                    .find(|t| t["type"] == "page")
                    .and_then(|t| t["webSocketDebuggerUrl"].as_str())
                    .map(str::to_owned)
            });
            if let Some(url) = page {
                let path = url.split_once("//").unwrap().1;
                break path[path.find('/').unwrap()..].to_owned();
            }
            assert!(Instant::now() < deadline, "no page target");
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            socket,
            "GET {ws_path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut reader = BufReader::new(socket.try_clone().unwrap());
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        assert!(status.contains(" 101 "), "websocket upgrade: {status}");
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        assert!(reader.buffer().is_empty(), "data after the upgrade");
        let mut browser = Browser {
            child: guard.0.take().expect("the child"),
            socket,
            next_id: 1,
        };
        browser.wait_for("document.readyState === 'complete'");
        browser
    }

    fn send_frame(&mut self, payload: &[u8]) {
        let mut frame = vec![0x81u8];
        let len = payload.len();
        if len < 126 {
            frame.push(0x80 | len as u8);
        } else if len < 65536 {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
        let mask = [0x12u8, 0x34, 0x56, 0x78];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.socket.write_all(&frame).unwrap();
    }

    fn read_message(&mut self) -> Vec<u8> {
        let mut message = Vec::new();
        loop {
            let mut head = [0u8; 2];
            self.socket.read_exact(&mut head).unwrap();
            let fin = head[0] & 0x80 != 0;
            let opcode = head[0] & 0x0f;
            let mut len = u64::from(head[1] & 0x7f);
            if len == 126 {
                let mut b = [0u8; 2];
                self.socket.read_exact(&mut b).unwrap();
                len = u64::from(u16::from_be_bytes(b));
            } else if len == 127 {
                let mut b = [0u8; 8];
                self.socket.read_exact(&mut b).unwrap();
                len = u64::from_be_bytes(b);
            }
            assert!(len < 256 << 20, "frame of {len} bytes");
            let mut payload = vec![0u8; len as usize];
            self.socket.read_exact(&mut payload).unwrap();
            match opcode {
                0x8 => panic!("devtools closed the connection"),
                0x9 | 0xA => continue,
                _ => message.extend_from_slice(&payload),
            }
            if fin {
                return message;
            }
        }
    }

    /// Sends a command and returns its `result` (events are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let text = json!({"id": id, "method": method, "params": params}).to_string();
        self.send_frame(text.as_bytes());
        loop {
            let reply: Value = serde_json::from_slice(&self.read_message()).unwrap();
            if reply["id"] == id {
                assert!(reply["error"].is_null(), "{method}: {}", reply["error"]);
                return reply["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression.
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        assert!(
            r["exceptionDetails"].is_null(),
            "{expression}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Waits (up to 20 s) until a JavaScript condition holds.
    pub fn wait_for(&mut self, condition: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.eval(&format!("!!({condition})")) != Value::Bool(true) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {condition}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses and releases a key, as a user would (`ArrowRight`, `End`,
    /// `f`...).
    pub fn press(&mut self, key: &str) {
        let (code, vk, text) = match key {
            "ArrowLeft" => ("ArrowLeft", 37, ""),
            "ArrowUp" => ("ArrowUp", 38, ""),
            "ArrowRight" => ("ArrowRight", 39, ""),
            "ArrowDown" => ("ArrowDown", 40, ""),
            "Home" => ("Home", 36, ""),
            "End" => ("End", 35, ""),
            "f" => ("KeyF", 70, "f"),
            other => panic!("no key code for {other}"),
        };
        let mut down = json!({"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk});
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down);
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}),
        );
    }

    /// A PNG screenshot of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}));
        base64_decode(r["data"].as_str().unwrap())
    }
}

/// Standard base64 (with padding) to bytes.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("base64 byte {c}"),
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().filter(|&&b| b == b'=').count();
        let mut n = 0u32;
        for &b in chunk {
            n = (n << 6) | if b == b'=' { 0 } else { value(b) };
        }
        let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&three[..3 - pad]);
    }
    out
}
