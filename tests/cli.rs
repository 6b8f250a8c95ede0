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
    run_stdin_bytes(args, input.as_bytes())
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
    assert!(
        stdout(&o).contains("win, if at least 3 plies are left on the 16-move count"),
        "{}",
        stdout(&o)
    );
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
        assert!(m["counted_threshold"].is_u64() || m["result"] == "draw");
        assert!(m["lone_king_plies"].is_null() && m.get("plies").is_none());
    }
    // Outside the counted endings no count runs; without DTC files, no
    // distance at all.
    let o = run(&["probe", "--dir", dir(), "--json", "W:W28,33:B12,13"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["counted_threshold"].is_null() && v["lone_king_plies"].is_null());
    assert!(v["dtc"].is_null() && v["dtc_available"] == false);
    assert_error(
        &run(&["probe", "--dir", dir(), "--line", "W:W28,33:B12,13"]),
        3,
        &format!("`dtb gen --pieces 4 --dir {} --dtc`", dir()),
    );
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
        &run(&[
            "probe",
            "--dir",
            dir(),
            "--kings-only-plies",
            "50",
            "W:WK1:BK5",
        ]),
        2,
        "king-only plies must be between 0 and 49",
    );
    // King-only plies played: a decided position needs its DTC file, which
    // these tables do not have.
    let decided = ["W:WK1,K2:B45", "W:WK1,K2:B40", "W:W6:B45", "B:WK1,K2:B45"]
        .into_iter()
        .find(|fen| {
            let v: serde_json::Value =
                serde_json::from_str(&stdout(&run(&["probe", "--json", "--dir", dir(), fen])))
                    .unwrap();
            v["result"] != "draw" && v["moves"][0]["captures"].as_array().unwrap().is_empty()
        })
        .expect("a decided quiet position");
    assert_error(
        &run(&["probe", "--dir", dir(), "--kings-only-plies", "3", decided]),
        3,
        ".dtc",
    );
    assert_error(
        &run(&["probe", "--dir", "/nonexistent", "W:WK1:BK5"]),
        3,
        "no fmjd tables: /nonexistent/fmjd cannot be read",
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

/// A missing table names the command that builds it with the folder and
/// the rule set the user gave, so that running it as shown builds there.
#[test]
fn the_missing_table_hint_keeps_the_folder_and_the_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("my tables");
    std::fs::create_dir_all(folder.join("pure")).unwrap();
    let shown = format!("'{}'", folder.display());
    let o = run(&[
        "probe",
        "--dir",
        folder.to_str().unwrap(),
        "--rules",
        "pure",
        "W:WK1,K2,K3:BK4,K5",
    ]);
    assert_error(
        &o,
        3,
        &format!("build the tables with `dtb gen --pieces 5 --dir {shown} --rules pure` (about"),
    );
    // No folder at all: the four-piece command, with the folder.
    let o = run(&["probe", "--dir", "/nonexistent", "W:WK1:BK5"]);
    assert_error(&o, 3, "`dtb gen --pieces 4 --dir /nonexistent` (about");
    // The default folder is not repeated.
    let o = Command::new(common::dtb())
        .args(["probe", "--rules", "fmjd-diagonal", "W:WK1:BK5"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_error(&o, 3, "`dtb gen --pieces 4 --rules fmjd-diagonal` (about");
}

/// `dtb plan` on a folder says what is left to build there, and names
/// nothing internal.
#[test]
fn plan_reports_what_is_left_to_build() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().to_str().unwrap();
    let plan = |extra: &[&str]| {
        let mut args = vec!["plan", "--pieces", "3", "--dir", folder];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let all = plan(&[]);
    let total: usize = all
        .split(" of ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        all.starts_with(&format!("{total} of {total} units left to build")),
        "{all}"
    );
    assert!(!all.contains("::"), "an internal name: {all}");
    assert!(run(&["gen", "--pieces", "3", "--dir", folder, "--quiet"])
        .status
        .success());
    let done = plan(&[]);
    assert!(
        done.starts_with(&format!("nothing left to build: all {total} units")),
        "{done}"
    );
    let json: Value = serde_json::from_str(&plan(&["--json"])).unwrap();
    assert!(json["units"]
        .as_array()
        .unwrap()
        .iter()
        .all(|u| u["done"] == true));
    // One table gone: its pair's units and the manifest are left.
    std::fs::remove_file(tmp.path().join("fmjd").join("KM-K.dtb")).unwrap();
    let left = plan(&[]);
    assert!(
        left.starts_with("2 of ") || left.starts_with("3 of "),
        "{left}"
    );
    assert!(left.contains("units left to build"), "{left}");
    let json: Value = serde_json::from_str(&plan(&["--json"])).unwrap();
    let undone: Vec<&str> = json["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["done"] == false)
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert!(undone.contains(&"manifest"), "{undone:?}");
    assert!(
        undone
            .iter()
            .all(|id| *id == "manifest" || id.starts_with("K-KM") || id.starts_with("KM-K")),
        "{undone:?}"
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

fn run_stdin_bytes(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(common::dtb())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dtb runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

/// A line that is not UTF-8 is one error line like any bad FEN,
/// and a very long line is echoed once, cut short.
#[test]
fn probe_batch_mode_survives_bad_bytes_and_long_lines() {
    let long = format!("W:W{}", "31,".repeat(5_000));
    let huge = format!("W:W{}", "31,".repeat(100_000));
    let mut input = b"W:WK1:BK50\n\xff\xfe not text\n".to_vec();
    input.extend_from_slice(long.as_bytes());
    input.extend_from_slice(b"\n");
    input.extend_from_slice(huge.as_bytes());
    input.extend_from_slice(b"\nW:WK1:BK50\n");
    let o = run_stdin_bytes(&["probe", "--dir", dir(), "-"], &input);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[1].contains("not UTF-8"), "{}", lines[1]);
    for line in &lines[2..4] {
        assert!(line.contains("error"), "{line}");
        assert!(line.len() < 400, "long input echoed: {} bytes", line.len());
        assert_eq!(line.matches("W:W31,31").count(), 1, "echoed once: {line}");
    }
    assert!(lines[3].contains("longer than"), "{}", lines[3]);
    assert_eq!(lines[0], lines[4]);
    assert_error(&o, 2, "some positions failed");
    assert!(stderr(&o).len() < 400);
}

/// Runs `dtb` with a deadline: a hang is a failure, not a stuck test.
fn run_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(common::dtb())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dtb runs");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("dtb {args:?} hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// A FIFO, a device or a directory where a table or the manifest
/// should be is an error naming it, never a hang or an unbounded read.
#[cfg(unix)]
#[test]
fn special_files_in_place_of_tables_are_errors_not_hangs() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("fmjd");
    std::fs::create_dir(&folder).unwrap();
    let source = Path::new(dir()).join("fmjd");
    for name in ["K-K.dtb", "K-M.dtb", "M-K.dtb", "M-M.dtb"] {
        std::fs::copy(source.join(name), folder.join(name)).unwrap();
    }
    mkfifo(&folder.join("KM-K.dtb"));
    mkfifo(&folder.join("MANIFEST.json"));
    std::os::unix::fs::symlink("/dev/zero", folder.join("KK-K.dtb")).unwrap();
    std::fs::create_dir(folder.join("K-KK.dtb")).unwrap();
    let d = t.path().to_str().unwrap();

    let o = run_bounded(&["probe", "--dir", d, "W:WK1,28:BK50"]);
    assert_error(&o, 4, "KM-K.dtb is not a regular file");
    let o = run_bounded(&["probe", "--dir", d, "W:WK1,K2:BK50"]);
    assert_error(&o, 4, "KK-K.dtb is not a regular file");
    let o = run_bounded(&["info", "--dir", d]);
    assert_error(&o, 4, "is not a regular file");
    let o = run_bounded(&["verify", "--dir", d, "--json"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tables"].as_array().unwrap().len(), 7, "{v}");
    assert!(v["manifest_problems"][0]
        .as_str()
        .unwrap()
        .contains("not a regular file"));
    // gen names what it cannot replace (a directory is the user's, never
    // removed): an I/O error, exit 1.
    let o = run_bounded(&["gen", "--dir", d, "--pieces", "3", "--quiet"]);
    assert_error(&o, 1, "K-KK.dtb: Is a directory");
    // Without it, gen replaces the FIFOs and the link by valid tables.
    std::fs::remove_dir(folder.join("K-KK.dtb")).unwrap();
    let o = run_bounded(&["gen", "--dir", d, "--pieces", "3", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["KM-K.dtb", "KK-K.dtb", "K-KK.dtb", "MANIFEST.json"] {
        let kind = std::fs::symlink_metadata(folder.join(name))
            .unwrap()
            .file_type();
        assert!(kind.is_file(), "{name} is still not a regular file");
    }
    let o = run_bounded(&["verify", "--dir", d, "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `dtb verify` gives every table its verdict, a missing or
/// damaged one included, and exits with the worst code.
#[test]
fn verify_reports_every_table_and_the_worst_code() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("fmjd");
    std::fs::create_dir(&folder).unwrap();
    let source = Path::new(dir()).join("fmjd");
    let materials: Vec<format::Material> = format::list_tables(&source)
        .unwrap()
        .into_iter()
        .filter(|m| m.pieces() <= 3)
        .collect();
    for m in &materials {
        std::fs::copy(source.join(m.file_name()), folder.join(m.file_name())).unwrap();
    }
    std::fs::remove_file(folder.join("K-K.dtb")).unwrap();
    let mut damaged = std::fs::read(folder.join("KM-K.dtb")).unwrap();
    let n = damaged.len();
    damaged[n - 30] ^= 0x40;
    std::fs::write(folder.join("KM-K.dtb"), damaged).unwrap();
    let d = t.path().to_str().unwrap();
    let o = run_bounded(&["verify", "--dir", d, "--json", "--quiet"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), materials.len() - 1);
    let failed: Vec<&str> = tables
        .iter()
        .filter(|t| t["ok"] == false)
        .map(|t| t["material"].as_str().unwrap())
        .collect();
    assert!(failed.contains(&"KM-K"), "{failed:?}");
    assert!(failed.len() >= 2, "tables needing K-K fail too: {failed:?}");
    assert!(tables.iter().any(|t| t["ok"] == true));
    // Only missing tables: exit code 3.
    let o = run_bounded(&["verify", "--dir", d, "--quiet", "K-K", "M-M"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stdout(&o).contains("M-M"), "{}", stdout(&o));
}

/// `dtb verify --sample F` checks about that fraction of the positions, the
/// same ones every run; `--sample 1` is the full check; a fraction outside
/// (0, 1] is bad input.
#[test]
fn verify_samples_a_fraction_of_the_positions() {
    let d = dir();
    let checked = |extra: &[&str]| -> u64 {
        let mut args = vec!["verify", "--dir", d, "--json", "--quiet", "KM-K", "KK-KM"];
        args.extend_from_slice(extra);
        let o = run_bounded(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["positions"].as_u64().unwrap()
    };
    let full = checked(&[]);
    let tenth = checked(&["--sample", "0.1"]);
    assert!(
        full / 20 < tenth && tenth < full / 5,
        "{tenth} of {full} for a tenth"
    );
    assert_eq!(checked(&["--sample", "0.1"]), tenth, "same sample each run");
    assert_eq!(checked(&["--sample", "1"]), full);
    for bad in ["0", "1.5", "-0.1", "NaN", "x"] {
        let flag = format!("--sample={bad}");
        assert_error(&run(&["verify", "--dir", d, &flag]), 2, "--sample");
    }
}

/// `dtb compact --level 1 --recompress-only` on `root` (whose `folder` holds
/// tables compacted already, at a higher level) compacts nothing: a table
/// of version 1 put back stays version 1, no file grows, one JSON row
/// a table.
fn assert_recompressed_only(root: &Path, folder: &Path) {
    let table = folder.join("KK-KK.dtb");
    let searches = |p: &Path| format::read_header(p).unwrap().threats_searched;
    assert!(searches(&table), "the compaction made it version 2");
    std::fs::copy(Path::new(dir()).join("fmjd").join("KK-KK.dtb"), &table).unwrap();
    assert!(!searches(&table));
    let d = root.to_str().unwrap();
    let o = run(&[
        "compact",
        "--dir",
        d,
        "--level",
        "1",
        "--recompress-only",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows {
        let re = &r["recompressed"];
        assert_eq!(re["level"], 1);
        assert!(re["bytes_after"].as_u64().unwrap() <= re["bytes_before"].as_u64().unwrap());
        assert!(r.get("outcome").is_none());
    }
    assert!(!searches(&table), "--recompress-only compacted it");
}

/// `dtb compact --level`: the folder's tables recompressed (a JSON row a
/// table, with the bytes before and after), the probes' answers the same;
/// a level out of zstd's range, or with `--dry-run`, is bad input, as
/// is `--recompress-only` without a level or with `--one-side`; a
/// missing folder is a missing table.
#[test]
fn compact_level_recompresses_and_checks_its_level() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("fmjd");
    std::fs::create_dir(&folder).unwrap();
    for name in ["K-K", "KK-K", "K-KK", "KM-K", "K-KM", "M-K", "K-M", "KK-KK"] {
        let from = Path::new(dir()).join("fmjd").join(format!("{name}.dtb"));
        std::fs::copy(from, folder.join(format!("{name}.dtb"))).unwrap();
    }
    let d = t.path().to_str().unwrap();
    let fen = "W:WK46,K47:BK5,K10";
    let before = stdout(&run(&["probe", "--dir", d, "--json", fen]));
    let o = run(&["compact", "--dir", d, "--level", "19", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let shrunk = rows
        .iter()
        .filter(|r| {
            if r["outcome"] == "rewritten" {
                // No threat of the fmjd tables up to 4 pieces is kept.
                assert_eq!(r["threats_kept"], 0);
            }
            let re = &r["recompressed"];
            assert_eq!(re["level"], 19);
            re["bytes_after"].as_u64().unwrap() < re["bytes_before"].as_u64().unwrap()
        })
        .count();
    assert!(shrunk > 0);
    assert_eq!(stdout(&run(&["probe", "--dir", d, "--json", fen])), before);
    assert_recompressed_only(t.path(), &folder);
    assert_eq!(stdout(&run(&["probe", "--dir", d, "--json", fen])), before);
    for bad in [
        &["--level", "0"][..],
        &["--level", "23"],
        &["--level", "19", "--dry-run"],
        &["--recompress-only"],
        &["--level", "19", "--recompress-only", "--one-side"],
    ] {
        let mut args = vec!["compact", "--dir", d];
        args.extend_from_slice(bad);
        assert_eq!(run(&args).status.code(), Some(2), "{bad:?}");
    }
    // A folder without tables is missing (exit 3), as for `dtb verify`.
    for extra in [&[][..], &["--level", "19", "--recompress-only"]] {
        let mut args = vec!["compact", "--dir", "/nonexistent"];
        args.extend_from_slice(extra);
        assert_error(&run(&args), 3, "/nonexistent/fmjd: no tables here");
    }
    // A damaged table is named in one line, exit 4, the others kept.
    let good = std::fs::read(folder.join("KK-KK.dtb")).unwrap();
    std::fs::write(folder.join("KK-KK.dtb"), &good[..good.len() - 1]).unwrap();
    assert_error(
        &run(&["compact", "--dir", d, "--level", "19"]),
        4,
        "KK-KK.dtb",
    );
}
