//! The explorer page of `dtb serve` in a real headless Chromium.
//!
//! This test file has its own harness (libtest-mimic) so that whether the
//! test runs is decided when it runs: with Chromium installed it runs; without
//! it `cargo test` reports it as ignored, with the reason; and when
//! `DTB_REQUIRE_BROWSER` is set (`.ci/run` sets it after installing
//! Debian's `chromium`) a missing Chromium is a failure.

mod common;
mod serve_support;

use std::net::SocketAddr;
use std::process::Command;

use format::RuleSet;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serve_support::{cli_json, encode, serve};

fn main() {
    let args = Arguments::from_args();
    let trials = vec![Trial::ignorable_test(
        "the_page_shows_verdict_and_moves_in_a_real_browser",
        || with_browser(the_page_shows_verdict_and_moves),
    )];
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `test` with the browser's command, or says why it cannot.
fn with_browser(test: fn(&str)) -> Result<Completion, Failed> {
    match chromium() {
        Some(browser) => {
            test(&browser);
            Ok(Completion::Completed)
        }
        None if std::env::var_os("DTB_REQUIRE_BROWSER").is_some() => {
            Err("no Chromium, and DTB_REQUIRE_BROWSER is set: apt-get install chromium".into())
        }
        None => Ok(Completion::ignored_with(
            "no Chromium on this machine: apt-get install chromium to run it",
        )),
    }
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
fn render(browser: &str, addr: SocketAddr, fen: &str) -> String {
    render_query(browser, addr, &format!("fen={}", encode(fen)))
}

/// The page for `/?query`, as Chromium leaves it.
fn render_query(browser: &str, addr: SocketAddr, query: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut o = Command::new(browser)
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
        .arg(format!("http://{addr}/?{query}"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The page is read while it comes (a full pipe would stall Chromium);
    // a browser that never finishes fails the test instead of hanging it.
    let mut stdout = o.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut page = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut page).map(|_| page)
    });
    let start = std::time::Instant::now();
    while o.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = o.kill();
            panic!("headless Chromium did not finish within 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    String::from_utf8_lossy(&reader.join().unwrap().unwrap()).into_owned()
}

fn the_page_shows_verdict_and_moves(browser: &str) {
    let dir = common::tables(RuleSet::Fmjd);
    let server = serve(dir, &[]);
    for fen in [
        "W:WK46,K47,28:BK5",
        "B:W28:BK26",
        "W:W28,33:B12,13",
        "W:W46:B41,37",
    ] {
        let api = cli_json(dir, fen, &[]);
        let dom = render(browser, server.addr, fen);
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
    let dom = render(browser, server.addr, "W:W3:B1");
    assert!(dom.contains("data-result=\"error\""), "{dom}");
    // The king-only count of the 25-move rule goes from the URL to the
    // field and to the server: ignored in a 16-move ending, and out of
    // range an error.
    let fen = encode("W:WK46,K47,28:BK5");
    let dom = render_query(
        browser,
        server.addr,
        &format!("fen={fen}&kings_only_plies=49"),
    );
    assert!(
        dom.contains("<div id=\"verdict\" data-result=\"win\""),
        "{dom}"
    );
    let dom = render_query(
        browser,
        server.addr,
        &format!("fen={fen}&kings_only_plies=50"),
    );
    assert!(
        dom.contains("<div id=\"verdict\" data-result=\"error\""),
        "{dom}"
    );
    assert!(
        dom.contains("king-only plies must be between 0 and 49"),
        "{dom}"
    );
}
