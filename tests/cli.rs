//! The `dtb` command line: outputs, JSON shapes and exit codes (0 success,
//! 2 bad input, 3 missing table, 4 corrupted table; never a panic).

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use format::RuleSet;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(common::dtb())
        .args(args)
        .output()
        .expect("dtb runs")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(common::dtb())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dtb runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code `code` and exactly one line on stderr.
fn assert_error(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "stderr: {}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

fn dir() -> &'static str {
    common::tables(RuleSet::Fmjd).to_str().unwrap()
}

#[test]
fn perft_counts_and_divide() {
    let o = run(&["perft", "start", "4"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for n in ["9", "81", "658", "4265"] {
        assert!(out.contains(n), "{out}");
    }
    let o = run(&["perft", "W:WK4:B13,32,37,20", "1", "--divide", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["nodes"], 2);
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    assert_error(&run(&["perft", "W:W0:B1", "3"]), 2, "square 0");
    assert_error(&run(&["perft", "start", "0"]), 2, "DEPTH");
    assert_eq!(run(&["perft"]).status.code(), Some(2));
}

#[test]
fn probe_text_and_json() {
    let o = run(&["probe", "--dir", dir(), "W:WK46,K47,28:BK5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("win in"), "{}", stdout(&o));
    let o = run(&[
        "probe",
        "--dir",
        dir(),
        "--json",
        "--plies-left",
        "4",
        "W:WK46,K47,28:BK5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["fen"], "W:W28,K46,K47:BK5");
    assert!(matches!(
        v["result"].as_str(),
        Some("win" | "draw" | "loss")
    ));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 14);
    for m in moves {
        assert!(m["move"].is_string() && m["result"].is_string());
        assert!(m["plies"].is_u64() || m["plies"].is_null());
    }
    // Outside the counted endings there is no distance.
    let o = run(&["probe", "--dir", dir(), "--json", "W:W28,33:B12,13"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["plies"].is_null());
}

#[test]
fn probe_errors_and_exit_codes() {
    assert_error(
        &run(&["probe", "--dir", dir(), "W:W3:B20"]),
        2,
        "crowning row",
    );
    assert_error(&run(&["probe", "--dir", dir(), "nonsense"]), 2, "bad FEN");
    assert_error(
        &run(&[
            "probe",
            "--dir",
            dir(),
            "--plies-left",
            "20",
            "W:WK1,K2:BK50",
        ]),
        2,
        "plies left",
    );
    assert_error(
        &run(&["probe", "--dir", dir(), "W:WK1,K2,K3:BK4,K5,K6"]),
        3,
        "KKK-KKK",
    );
    assert_error(
        &run(&["probe", "--dir", "/nonexistent", "W:WK1:BK5"]),
        3,
        "missing table",
    );
    assert_error(
        &run(&["probe", "--dir", dir(), "--rules", "fide", "W:WK1:BK5"]),
        2,
        "fide",
    );
    // A corrupted file: exit 4 naming the file.
    let tmp = tempfile::tempdir().unwrap();
    let fmjd = tmp.path().join("fmjd");
    std::fs::create_dir_all(&fmjd).unwrap();
    let good = std::fs::read(Path::new(dir()).join("fmjd").join("K-K.dtb")).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 30] ^= 0xFF;
    std::fs::write(fmjd.join("K-K.dtb"), bad).unwrap();
    assert_error(
        &run(&["probe", "--dir", tmp.path().to_str().unwrap(), "W:WK1:BK5"]),
        4,
        "K-K.dtb",
    );
}

#[test]
fn probe_batch_mode_goes_on_after_errors() {
    let input = "W:WK1:BK50\nnot a fen\nW:WK1,K2,K3:BK4,K5,K6\n\nB:W28:BK26\n";
    let o = run_stdin(&["probe", "--dir", dir(), "--json", "-"], input);
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["result"], "draw");
    assert_eq!(lines[1]["fen"], "not a fen");
    assert!(lines[1]["error"].is_string());
    assert!(lines[2]["error"]
        .as_str()
        .unwrap()
        .contains("missing table"));
    assert_eq!(lines[3]["result"], "win");
    // The worst error decides the exit code: a missing table (3).
    assert_error(&o, 3, "missing table");
    let o = run_stdin(&["probe", "--dir", dir(), "-"], "W:WK1:BK50\n");
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn info_lists_tables() {
    let o = run(&["info", "--dir", dir(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v.as_array().unwrap();
    assert_eq!(tables.len(), format::Material::all_up_to(4).len());
    let kk = tables
        .iter()
        .find(|t| {
            t["material"]["white_kings"] == 2
                && t["material"]["black_kings"] == 1
                && t["material"]["white_men"] == 0
                && t["material"]["black_men"] == 0
        })
        .unwrap();
    assert_eq!(kk["positions"], 58800);
    assert_eq!(kk["stats"]["white"]["longest_win"], 7);
    let white = &kk["stats"]["white"];
    let sum = white["win"].as_u64().unwrap()
        + white["draw"].as_u64().unwrap()
        + white["loss"].as_u64().unwrap();
    assert_eq!(sum, 58800);
    assert!(kk["stats"]["black"]["win"].is_u64());
    let o = run(&["info", "--dir", dir()]);
    assert!(stdout(&o).contains("KK-K"));
    assert_error(&run(&["info", "--dir", "/nonexistent"]), 3, "/nonexistent");
    // Named materials only; a named one without a table is missing.
    let o = run(&["info", "--dir", dir(), "--json", "KK-K"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["positions"], 58800);
    assert_error(
        &run(&["info", "--dir", dir(), "KKM-KK"]),
        3,
        "missing table KKM-KK",
    );
    assert_error(&run(&["info", "--dir", dir(), "KX-K"]), 2, "KX-K");
}

#[test]
fn info_reports_a_cut_table_as_corrupted() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("fmjd");
    std::fs::create_dir(&folder).unwrap();
    let good = std::fs::read(Path::new(dir()).join("fmjd").join("KK-K.dtb")).unwrap();
    std::fs::write(folder.join("KK-K.dtb"), &good[..good.len() - 1]).unwrap();
    let d = t.path().to_str().unwrap();
    assert_error(&run(&["info", "--dir", d]), 4, "KK-K.dtb");
    std::fs::write(folder.join("KK-K.dtb"), &good[..40]).unwrap();
    assert_error(&run(&["info", "--dir", d]), 4, "KK-K.dtb");
}

#[test]
fn gen_resumes_and_rebuilds_byte_identical() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
    let o = run(&["gen", "--pieces", "3", "--dir", a_dir, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["built"].as_array().unwrap().len(), 16);
    // Again: everything is there already.
    let o = run(&["gen", "--pieces", "3", "--dir", a_dir, "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["built"].as_array().unwrap().len(), 0);
    assert_eq!(v["skipped"].as_array().unwrap().len(), 16);
    // A damaged table is rebuilt; the others are kept.
    let victim = a.path().join("fmjd").join("KM-K.dtb");
    std::fs::write(&victim, b"garbage").unwrap();
    let o = run(&[
        "gen",
        "--pieces",
        "3",
        "--dir",
        a_dir,
        "--json",
        "--threads",
        "1",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let built: Vec<&str> = v["built"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["material"].as_str().unwrap())
        .collect();
    assert_eq!(built, vec!["KM-K"]);
    // A separate build of the same input, with another thread count, is
    // byte-identical.
    let o = run(&[
        "gen",
        "--pieces",
        "3",
        "--dir",
        b_dir,
        "--threads",
        "2",
        "--quiet",
    ]);
    assert!(o.status.success());
    for m in format::Material::all_up_to(3) {
        let name = m.file_name();
        let x = std::fs::read(a.path().join("fmjd").join(&name)).unwrap();
        let y = std::fs::read(b.path().join("fmjd").join(&name)).unwrap();
        assert!(x == y, "{name} differs");
    }
    // Bad requests.
    assert_error(
        &run(&["gen", "--pieces", "1", "--dir", a_dir]),
        2,
        "--pieces",
    );
    assert_error(&run(&["gen", "--dir", a_dir, "KX-K"]), 2, "KX-K");
    assert_error(
        &run(&["gen", "--dir", a_dir, "--threads", "0"]),
        2,
        "--threads",
    );
}

#[test]
fn gen_named_material_builds_its_dependencies() {
    let a = tempfile::tempdir().unwrap();
    let o = run(&["gen", "--dir", a.path().to_str().unwrap(), "--json", "KM-K"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut built: Vec<&str> = v["built"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["material"].as_str().unwrap())
        .collect();
    built.sort();
    // Its mirror, what captures lead to, and what a crowning leads to.
    for m in ["KM-K", "K-KM", "K-K", "M-K", "K-M", "KK-K", "K-KK"] {
        assert!(built.contains(&m), "{m} missing from {built:?}");
    }
    assert!(
        !built.contains(&"KKK-K") && !built.contains(&"KM-KM"),
        "{built:?}"
    );
}
