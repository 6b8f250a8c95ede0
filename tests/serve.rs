//! `dtb serve`: the HTTP API (status codes and bodies against the prober's
//! own answers, error messages without server paths), the listen address,
//! and connections held by slow or stalled clients. The page in a real
//! browser is tested in `tests/browser.rs`.

mod common;
mod serve_support;

use std::io::{Read, Write};
use std::process::Command;

use format::RuleSet;
use serde_json::Value;
use serve_support::{cli_json, connect, encode, get, parse_response, probe_api, serve, serve_at};

#[test]
fn api_answers_like_the_prober() {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir, &[]);
    for fen in [
        "W:WK46,K47,28:BK5",
        "B:W28:BK26",
        "W:W28,33:B12,13",
        "W:WK1:BK50",
        "W:W46:B41,37",
    ] {
        let (status, v) = probe_api(server.addr, fen);
        assert_eq!(status, 200, "{fen}");
        assert_eq!(v, cli_json(dir, fen, &[]), "{fen}");
    }
    let (status, body) = get(
        server.addr,
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
        let (status, body) = get(server.addr, &path);
        assert_eq!(status, 400, "{path}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"].is_string(), "{body}");
    }
    // Out of range: a missing table is a 404 that says how to build it,
    // without the server's paths.
    let (status, v) = probe_api(server.addr, "W:WK1,K2,K3:BK4,K5,K6");
    assert_eq!(status, 404);
    assert_eq!(
        v["error"],
        "missing table KKK-KKK (build it with dtb gen --pieces 6)"
    );
    let (status, _) = probe_api(server.addr, "W:W31-50:B1-20");
    assert_eq!(status, 400);
    // The page and its assets; nothing else.
    assert_eq!(get(server.addr, "/").0, 200);
    assert!(get(server.addr, "/").1.contains("draughts-tb explorer"));
    assert_eq!(get(server.addr, "/app.js").0, 200);
    assert_eq!(get(server.addr, "/style.css").0, 200);
    assert_eq!(get(server.addr, "/../../etc/passwd").0, 404);
    assert_eq!(get(server.addr, "/data/fmjd/K-K.dtb").0, 404);
    // Still alive after all that.
    assert_eq!(probe_api(server.addr, "W:WK1:BK50").0, 200);
}

/// The error of `fen` from a server: status and message, checked to name
/// no path under `dir`.
fn error_without_paths(
    server: &serve_support::Server,
    dir: &std::path::Path,
    fen: &str,
) -> (u16, String) {
    let (status, v) = probe_api(server.addr, fen);
    let message = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{v}"))
        .to_string();
    let dir = dir.to_str().unwrap();
    assert!(!message.contains(dir), "{message}");
    assert!(!message.contains(".dtb"), "{message}");
    (status, message)
}

#[test]
fn api_reports_a_corrupted_table_as_500_without_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let fmjd = tmp.path().join("fmjd");
    std::fs::create_dir_all(&fmjd).unwrap();
    let mut bytes =
        std::fs::read(common::tables(RuleSet::Fmjd).join("fmjd").join("K-K.dtb")).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x55;
    std::fs::write(fmjd.join("K-K.dtb"), bytes).unwrap();
    let server = serve(tmp.path(), &[]);
    let (status, message) = error_without_paths(&server, tmp.path(), "W:WK1:BK50");
    assert_eq!(status, 500);
    assert!(message.starts_with("corrupted table K-K: "), "{message}");
    assert_eq!(probe_api(server.addr, "W:WK1:BK50").0, 500);
    // The operator's log has the details.
    server.wait_for_log(&fmjd.join("K-K.dtb").to_string_lossy());
}

#[test]
fn api_errors_name_tables_and_rules_never_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let pure = tmp.path().join("pure");
    std::fs::create_dir_all(&pure).unwrap();
    // An fmjd table where the pure tables go.
    std::fs::copy(
        common::tables(RuleSet::Fmjd).join("fmjd").join("K-K.dtb"),
        pure.join("K-K.dtb"),
    )
    .unwrap();
    let server = serve(tmp.path(), &["--rules", "pure"]);
    let (status, message) = error_without_paths(&server, tmp.path(), "W:WK1:BK50");
    assert_eq!(status, 500);
    assert_eq!(message, "table K-K was built for rule set fmjd, not pure");
    let (status, message) = error_without_paths(&server, tmp.path(), "W:WK1,K2:BK50");
    assert_eq!(status, 404);
    assert_eq!(
        message,
        "missing table KK-K (build it with dtb gen --pieces 3 --rules pure)"
    );
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

#[test]
fn the_address_may_be_a_host_name() {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve_at("localhost:0", dir, &[]);
    assert!(server.addr.ip().is_loopback(), "{}", server.addr);
    assert_eq!(probe_api(server.addr, "W:WK1:BK50").0, 200);
    // Still HOST:PORT: a missing port is bad input.
    let o = Command::new(common::dtb())
        .args(["serve", "--addr", "localhost"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("HOST:PORT"),
        "{o:?}"
    );
}

#[test]
fn help_documents_the_limits() {
    let o = Command::new(common::dtb())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--header-timeout <SECS>",
        "--request-timeout <SECS>",
        "--connection-timeout <SECS>",
        "--max-connections <N>",
        "--public",
    ] {
        assert!(help.contains(flag), "{flag} in {help}");
    }
}

/// Reads until the server closes the connection: what it sent. Fails if the
/// connection is still open after [`serve_support::HANG`].
fn read_until_closed(conn: &mut std::net::TcpStream) -> String {
    let mut bytes = Vec::new();
    conn.read_to_end(&mut bytes)
        .unwrap_or_else(|e| panic!("the server kept the connection open: {e}"));
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn stalled_clients_are_dropped_and_do_not_starve_the_server() {
    let dir = common::tables(RuleSet::Fmjd);
    let cap = 4;
    let server = serve(
        dir,
        &[
            "--max-connections",
            &cap.to_string(),
            "--header-timeout",
            "1",
        ],
    );
    // More stalled clients than the server serves at once, each half-way
    // through its request line.
    let mut stalled: Vec<_> = (0..=cap)
        .map(|_| {
            let mut conn = connect(server.addr);
            conn.write_all(b"GET /api/pro").unwrap();
            conn
        })
        .collect();
    // A normal client is still answered (once the stalled ones time out).
    assert_eq!(probe_api(server.addr, "W:WK1:BK50").0, 200);
    for conn in &mut stalled {
        read_until_closed(conn);
    }
}

#[test]
fn idle_keep_alive_connections_are_closed() {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir, &["--header-timeout", "1"]);
    let mut conn = connect(server.addr);
    let fen = encode("W:WK1:BK50");
    write!(
        conn,
        "GET /api/probe?fen={fen} HTTP/1.1\r\nHost: localhost\r\n\r\n"
    )
    .unwrap();
    // The answer, then the server closes the idle connection.
    let (status, _) = parse_response(&read_until_closed(&mut conn));
    assert_eq!(status, 200);
}

#[test]
fn clients_beyond_the_cap_wait_for_a_free_slot() {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir, &["--max-connections", "1", "--header-timeout", "60"]);
    let mut holder = connect(server.addr);
    holder.write_all(b"GET /").unwrap();
    let mut waiting = connect(server.addr);
    write!(
        waiting,
        "GET /style.css HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Not answered while the only slot is taken...
    waiting
        .set_read_timeout(Some(std::time::Duration::from_secs(1)))
        .unwrap();
    let mut byte = [0u8];
    let early = waiting.read(&mut byte);
    assert!(early.is_err(), "answered beyond the cap: {early:?}");
    // ...and answered as soon as it is free.
    drop(holder);
    waiting.set_read_timeout(Some(serve_support::HANG)).unwrap();
    let (status, _) = parse_response(&read_until_closed(&mut waiting));
    assert_eq!(status, 200);
}

#[test]
fn connections_are_closed_after_the_connection_timeout() {
    let dir = common::tables(RuleSet::Fmjd);
    // Idle connections are kept far longer than the test waits...
    let server = serve(
        dir,
        &["--header-timeout", "600", "--connection-timeout", "1"],
    );
    let mut conn = connect(server.addr);
    write!(conn, "GET /app.js HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    // ...but none outlives the connection timeout.
    let (status, _) = parse_response(&read_until_closed(&mut conn));
    assert_eq!(status, 200);
}

/// The first position without a capture from index `from` on.
fn quiet_position(material: format::Material, from: u64) -> rules::Position {
    let index = format::MaterialIndex::new(material);
    (from..index.count())
        .map(|i| index.unrank(i))
        .find(|p| !p.has_capture())
        .expect("a quiet position")
}

/// A table cut short in place while the server has it mapped
/// (`cp new.dtb KKM-K.dtb` does this) must not kill the server: the probe
/// that needs it is a 500, the other tables keep answering, and once the
/// file is whole again its new content is used.
#[test]
fn a_table_cut_short_under_the_server_is_an_error_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let fmjd = tmp.path().join("fmjd");
    std::fs::create_dir_all(&fmjd).unwrap();
    let source = common::tables(RuleSet::Fmjd).join("fmjd");
    for m in format::list_tables(&source).unwrap() {
        std::fs::copy(source.join(m.file_name()), fmjd.join(m.file_name())).unwrap();
    }
    let material: format::Material = "KKM-K".parse().unwrap();
    let count = format::MaterialIndex::new(material).count();
    let first = quiet_position(material, 0).to_string();
    let far = quiet_position(material, count - 20_000).to_string();
    let server = serve(tmp.path(), &[]);
    assert_eq!(probe_api(server.addr, &first).0, 200);

    let table = fmjd.join(material.file_name());
    let original = std::fs::read(&table).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap()
        .set_len(original.len() as u64 / 3)
        .unwrap();
    let (status, body) = probe_api(server.addr, &far);
    assert_eq!(status, 500, "{body}");
    let message = body["error"].as_str().unwrap_or_default();
    assert!(message.contains("corrupted table KKM-K"), "{message}");
    assert_eq!(probe_api(server.addr, "W:WK1:BK50").0, 200);

    // Rewritten in place, whole again: answered from the new content.
    std::fs::write(&table, &original).unwrap();
    let (status, body) = probe_api(server.addr, &far);
    assert_eq!(status, 200, "{body}");
    let expected = cli_json(tmp.path(), &far, &[]);
    assert_eq!(body["result"], expected["result"]);
}
