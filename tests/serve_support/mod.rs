//! A `dtb serve` child process and a minimal HTTP client, shared by the
//! API tests (`tests/serve.rs`) and the browser test (`tests/browser.rs`).
//! A test file using it also declares `mod common;`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// A generous limit for an answer that must come: only there to turn a
/// hang into a failure.
pub const HANG: Duration = Duration::from_secs(30);

/// A running `dtb serve`, stopped on drop.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Waits until the server's stderr (after its first line) contains
    /// `needle`; fails after [`HANG`].
    pub fn wait_for_log(&self, needle: &str) {
        let start = std::time::Instant::now();
        while !self.log.lock().unwrap().contains(needle) {
            assert!(
                start.elapsed() < HANG,
                "{needle:?} not in the server's log: {}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Starts `dtb serve --addr 127.0.0.1:0 --dir DIR` plus `extra` flags.
pub fn serve(dir: &Path, extra: &[&str]) -> Server {
    serve_at("127.0.0.1:0", dir, extra)
}

/// Starts `dtb serve --addr ADDR --dir DIR` plus `extra` flags, and reads
/// the address it listens on from its first line.
pub fn serve_at(addr: &str, dir: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(crate::common::dtb())
        .args(["serve", "--addr", addr, "--dir", dir.to_str().unwrap()])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .expect("dtb serve starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    // Keep reading stderr: a server writing to a closed pipe would fail.
    let log = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    Server { child, addr, log }
}

/// Percent-encodes a query value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A connection with [`HANG`] as its read timeout.
pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(HANG)).unwrap();
    s
}

/// Status and body of an HTTP/1.1 response.
pub fn parse_response(response: &str) -> (u16, String) {
    let status: u16 = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

/// GET `path` on a fresh connection: status and body.
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = connect(addr);
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response)
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    parse_response(&response)
}

/// `GET /api/probe?fen=FEN`: status and JSON body.
pub fn probe_api(addr: SocketAddr, fen: &str) -> (u16, Value) {
    let (status, body) = get(addr, &format!("/api/probe?fen={}", encode(fen)));
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// What `dtb probe --json` says.
pub fn cli_json(dir: &Path, fen: &str, extra: &[&str]) -> Value {
    let o = Command::new(crate::common::dtb())
        .args(["probe", "--json", "--dir", dir.to_str().unwrap()])
        .args(extra)
        .arg(fen)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap()
}
