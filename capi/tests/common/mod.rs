//! Building and compiling against the static library, for the tests that
//! run C and C++ programs (the C interface's, and the workspace's that
//! include this file by path).
#![allow(dead_code)] // each test uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root: the folder holding `include/dtb.h`, at or above the
/// package's (these helpers serve the C interface's tests and, included by
/// path, the workspace's).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("include").join("dtb.h").is_file())
        .expect("the workspace root")
        .to_path_buf()
}

/// `libdtb.a`, built here by a nested cargo in a target folder of its own
/// (`cargo test` builds only the rlib, and a `libdtb.a` left beside the
/// test by an earlier `cargo build` may be stale); up to date, this is
/// quick. Built with the `test` profile (optimised, no LTO): 29 s here
/// from nothing, where the `release` profile's fat LTO over one codegen
/// unit took 45 s, and the sweeps of every position up to four pieces
/// need an optimised library (the `dev` one is several times slower).
pub fn static_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let target = profile_dir.parent().unwrap().join("c-api");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "draughts-tb-c",
            "--lib",
            "--profile",
            "test",
            "--target-dir",
        ])
        .arg(&target)
        .current_dir(root())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building libdtb.a failed");
    target.join("debug").join("libdtb.a")
}

/// Compiles a C (`.c`) or C++ (`.cpp`) program against `libdtb.a` and the
/// headers of `include/`, warnings as errors.
pub fn compile(source: &Path, exe: &Path) {
    let lib = static_library();
    assert!(lib.exists(), "{} not built", lib.display());
    let cpp = source.extension().is_some_and(|e| e == "cpp");
    let (var, default, standard) = if cpp {
        ("CXX", "c++", "-std=c++17")
    } else {
        ("CC", "cc", "-std=gnu11")
    };
    let compiler = std::env::var(var).unwrap_or_else(|_| default.into());
    let out = Command::new(&compiler)
        .arg(standard)
        .args(["-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(source)
        .arg("-I")
        .arg(root().join("include"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(exe)
        .output()
        .unwrap_or_else(|e| panic!("a compiler ({compiler}) is needed for this test: {e}"));
    assert!(
        out.status.success(),
        "{compiler} failed on {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
