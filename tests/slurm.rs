//! `dtb gen --slurm --wait` on a real Slurm cluster (three nodes on
//! loopback, started by `scripts/slurm-cluster.sh start`, which `.ci/run`
//! does, with `DTB_REQUIRE_SLURM=1`). Every table up to four pieces and
//! three five-piece pairs with men, through jobs, must be byte for byte the
//! in-process files; a node taken down in the middle and a unit that fails
//! once still end, after a rerun, with the same files and no partial file.
//!
//! This test file has its own harness (libtest-mimic) so that whether the
//! test runs is decided when it runs: without a cluster `cargo test`
//! reports it as ignored, with the reason, unless `DTB_REQUIRE_SLURM=1`
//! makes that a failure.

mod common;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn cluster_is_up() -> bool {
    Command::new("sinfo")
        .args(["-h", "-o", "%t"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("idle"))
}

fn dtb(args: &[&str]) -> Output {
    Command::new(common::dtb())
        .args(args)
        .output()
        .expect("dtb runs")
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n{}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn scontrol(args: &[&str]) {
    let o = Command::new("scontrol")
        .args(args)
        .output()
        .expect("scontrol runs");
    assert!(o.status.success(), "scontrol {args:?}: {}", text(&o));
}

/// Brings node `name` back after a test took it down. The cluster runs
/// with `ReturnToService=2`, so the node may already be back on its own
/// (it registered again): Slurm then refuses the resume as an invalid
/// state change, which is fine as long as the node is up.
fn resume(name: &str) {
    let o = Command::new("scontrol")
        .args(["update", &format!("NodeName={name}"), "State=RESUME"])
        .output()
        .expect("scontrol runs");
    if o.status.success() {
        return;
    }
    let state = Command::new("sinfo")
        .args(["-h", "-n", name, "-o", "%t"])
        .output()
        .expect("sinfo runs");
    let state = String::from_utf8_lossy(&state.stdout).trim().to_string();
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Invalid node state")
            && !state.starts_with("down"),
        "resuming {name} (state {state}): {}",
        text(&o)
    );
}

/// Every file under `dir`, by path relative to it, without the Slurm
/// logs and the lock.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name == "slurm" || name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Three five-piece pairs with men whose chains of groups are short: the
/// two one-man pairs need only `KKKK-K` and run side by side, and
/// `KKMM-K` (whose group is made to fail) needs the first.
const PAIRS: [&str; 3] = ["KKKM-K", "M-KKKK", "KKMM-K"];

fn main() {
    let args = Arguments::from_args();
    let trials = vec![Trial::ignorable_test(
        "slurm_jobs_build_the_in_process_files",
        || with_cluster(slurm_jobs_build_the_in_process_files),
    )];
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `test` where a cluster answers, or says why it cannot.
fn with_cluster(test: fn()) -> Result<Completion, Failed> {
    if cluster_is_up() {
        test();
        Ok(Completion::Completed)
    } else if std::env::var_os("DTB_REQUIRE_SLURM").is_some() {
        Err("DTB_REQUIRE_SLURM is set but no Slurm cluster answers (scripts/slurm-cluster.sh start)".into())
    } else {
        Ok(Completion::ignored_with(
            "no Slurm cluster: scripts/slurm-cluster.sh start runs one",
        ))
    }
}

fn slurm_jobs_build_the_in_process_files() {
    // The jobs run on the nodes: the folder must be one they all see (on
    // this machine, any).
    let reference = tempfile::tempdir().unwrap();
    let cluster = tempfile::tempdir().unwrap();
    let (r, c) = (
        reference.path().to_str().unwrap(),
        cluster.path().to_str().unwrap(),
    );
    let ok = |o: Output| assert!(o.status.success(), "{}", text(&o));
    ok(dtb(&["gen", "--quiet", "--dir", r]));
    let mut args = vec!["gen", "--quiet", "--dir", r];
    args.extend(PAIRS);
    ok(dtb(&args));

    let slurm = ["--slurm", "--wait", "--sbatch-arg=--partition=ci"];
    let mut args = vec!["gen", "--dir", c];
    args.extend(slurm);
    ok(dtb(&args));

    // A unit that fails once: a folder where its output file goes (a
    // group of KKMM-K, whose pair is named by K-KKMM).
    let plan = dtb(&["plan", "--ids", "KKMM-K"]);
    let ids = String::from_utf8_lossy(&plan.stdout).into_owned();
    let victim = ids
        .lines()
        .find(|id| id.starts_with("K-KKMM.a"))
        .expect("a group of KKMM-K")
        .to_string();
    let blocker = cluster
        .path()
        .join("fmjd/units")
        .join(format!("{victim}.dtg"));
    std::fs::create_dir_all(&blocker).unwrap();

    // The five-piece pairs, with a node taken down while they run.
    let mut args = vec!["gen", "--dir", c];
    args.extend(slurm);
    args.extend(PAIRS);
    let child = Command::new(common::dtb())
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    scontrol(&["update", "NodeName=n2", "State=DOWN", "Reason=dtb-test"]);
    let first = child.wait_with_output().unwrap();
    resume("n2");
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    assert!(
        String::from_utf8_lossy(&first.stdout).contains(&victim),
        "the failed unit is named: {}",
        text(&first)
    );

    // The rerun submits what is left and finishes.
    std::fs::remove_dir(&blocker).unwrap();
    ok(dtb(&args));

    let (a, b) = (files(reference.path()), files(cluster.path()));
    let names = |v: &[(PathBuf, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs", name.display());
    }

    // The cluster checks what it built: a verify job a unit, no order.
    let mut args = vec!["verify", "--dir", c];
    args.extend(slurm);
    args.extend(PAIRS);
    let o = dtb(&args);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(" 0 failed verdicts, 0 units without"),
        "{}",
        text(&o)
    );
    // A damaged block of one table: the units that decode it say so, and
    // the whole run ends in exit 4 naming the file.
    let victim = cluster.path().join("fmjd/KKKM-K.dtb");
    let mut bytes = std::fs::read(&victim).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&victim, bytes).unwrap();
    let mut args = vec!["verify", "--dir", c];
    args.extend(slurm);
    args.push("KKKM-K");
    let o = dtb(&args);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("KKKM-K.dtb"),
        "{}",
        text(&o)
    );
}
