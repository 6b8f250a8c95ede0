//! `dtb serve`: the HTTP API (status codes and bodies against the prober's
//! own answers) and the page in a real headless Chromium.
//!
//! The browser test needs Debian's `chromium`; `.ci/run` installs it and
//! sets `DTB_REQUIRE_BROWSER=1`, which makes its absence a failure. Without
//! that variable a machine without Chromium skips that one test (saying so).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use format::RuleSet;
use serde_json::Value;

/// A running `dtb serve`, stopped on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path) -> Server {
    let mut child = Command::new(common::dtb())
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--dir",
            dir.to_str().unwrap(),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("dtb serve starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .rsplit("127.0.0.1:")
        .next()
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    Server { child, port }
}

/// Percent-encodes a query value.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// GET `path`: status and body.
fn get(port: u16, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    let status: u16 = response.split(' ').nth(1).unwrap().parse().unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

fn probe_api(port: u16, fen: &str) -> (u16, Value) {
    let (status, body) = get(port, &format!("/api/probe?fen={}", encode(fen)));
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// What `dtb probe --json` says.
fn cli_json(dir: &Path, fen: &str, extra: &[&str]) -> Value {
    let o = Command::new(common::dtb())
        .args(["probe", "--json", "--dir", dir.to_str().unwrap()])
        .args(extra)
        .arg(fen)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn api_answers_like_the_prober() {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir);
    for fen in [
        "W:WK46,K47,28:BK5",
        "B:W28:BK26",
        "W:W28,33:B12,13",
        "W:WK1:BK50",
        "W:W46:B41,37",
    ] {
        let (status, v) = probe_api(server.port, fen);
        assert_eq!(status, 200, "{fen}");
        assert_eq!(v, cli_json(dir, fen, &[]), "{fen}");
    }
    let (status, body) = get(
        server.port,
        "/api/probe?fen=W%3AWK46%2CK47%2C28%3ABK5&plies_left=4",
    );
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v,
        cli_json(dir, "W:WK46,K47,28:BK5", &["--plies-left", "4"])
    );

    // Bad input: 400 with an error.
    for path in [
        "/api/probe?fen=W%3AW3%3AB1".to_string(),
        "/api/probe?fen=nonsense".to_string(),
        "/api/probe".to_string(),
        "/api/probe?fen=W%3AWK1%3ABK50&plies_left=abc".to_string(),
        "/api/probe?fen=W%3AWK1%2CK2%3ABK50&plies_left=30".to_string(),
        format!("/api/probe?fen={}", "1".repeat(2000)),
    ] {
        let (status, body) = get(server.port, &path);
        assert_eq!(status, 400, "{path}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"].is_string(), "{body}");
    }
    // Out of range: a missing table is a 404.
    let (status, v) = probe_api(server.port, "W:WK1,K2,K3:BK4,K5,K6");
    assert_eq!(status, 404);
    assert!(v["error"].as_str().unwrap().contains("KKK-KKK"));
    let (status, _) = probe_api(server.port, "W:W31-50:B1-20");
    assert_eq!(status, 400);
    // The page and its assets; nothing else.
    assert_eq!(get(server.port, "/").0, 200);
    assert!(get(server.port, "/").1.contains("draughts-tb explorer"));
    assert_eq!(get(server.port, "/app.js").0, 200);
    assert_eq!(get(server.port, "/style.css").0, 200);
    assert_eq!(get(server.port, "/../../etc/passwd").0, 404);
    assert_eq!(get(server.port, "/data/fmjd/K-K.dtb").0, 404);
    // Still alive after all that.
    assert_eq!(probe_api(server.port, "W:WK1:BK50").0, 200);
}

#[test]
fn api_reports_a_corrupted_table_as_500() {
    let tmp = tempfile::tempdir().unwrap();
    let fmjd = tmp.path().join("fmjd");
    std::fs::create_dir_all(&fmjd).unwrap();
    let mut bytes =
        std::fs::read(common::tables(RuleSet::Fmjd).join("fmjd").join("K-K.dtb")).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x55;
    std::fs::write(fmjd.join("K-K.dtb"), bytes).unwrap();
    let server = serve(tmp.path());
    let (status, v) = probe_api(server.port, "W:WK1:BK50");
    assert_eq!(status, 500);
    assert!(v["error"].as_str().unwrap().contains("K-K.dtb"), "{v}");
    assert_eq!(probe_api(server.port, "W:WK1:BK50").0, 500);
}

#[test]
fn serving_other_machines_needs_an_explicit_flag() {
    let o = Command::new(common::dtb())
        .args(["serve", "--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--public"));
}

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(String::from)
}

/// The rendered page (after its script ran) for `fen`.
fn render(browser: &str, port: u16, fen: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("http://127.0.0.1:{port}/?fen={}", encode(fen)))
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_page_shows_verdict_and_moves_in_a_real_browser() {
    let Some(browser) = chromium() else {
        if std::env::var_os("DTB_REQUIRE_BROWSER").is_some() {
            panic!("Chromium is required (DTB_REQUIRE_BROWSER is set): apt-get install chromium");
        }
        eprintln!(
            "SKIPPED: no Chromium on this machine (apt-get install chromium to run this test)"
        );
        return;
    };
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir);
    for fen in [
        "W:WK46,K47,28:BK5",
        "B:W28:BK26",
        "W:W28,33:B12,13",
        "W:W46:B41,37",
    ] {
        let api = cli_json(dir, fen, &[]);
        let dom = render(&browser, server.port, fen);
        let expected_verdict = format!("data-result=\"{}\"", api["result"].as_str().unwrap());
        let verdict = dom
            .split("<div id=\"verdict\"")
            .nth(1)
            .unwrap_or_else(|| panic!("no verdict in the page for {fen}: {dom}"));
        assert!(
            verdict.starts_with(&format!(" {expected_verdict}")),
            "{fen}: {}",
            &verdict[..80.min(verdict.len())]
        );
        let shown = dom.matches("<li class=\"move ").count();
        assert_eq!(shown, api["moves"].as_array().unwrap().len(), "{fen}");
        for m in api["moves"].as_array().unwrap() {
            assert!(
                dom.contains(m["move"].as_str().unwrap()),
                "{fen}: move {} not shown",
                m["move"]
            );
        }
    }
    // A bad position in the URL shows the error, not a crash.
    let dom = render(&browser, server.port, "W:W3:B1");
    assert!(dom.contains("data-result=\"error\""), "{dom}");
}
