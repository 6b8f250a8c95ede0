//! Helpers shared by the end-to-end tests: table sets built once per test
//! binary, the oracle file, the `dtb` binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use format::RuleSet;
use gen::{generate, GenOptions};

/// A table directory built once per test binary and rule set (up to four
/// pieces), removed when the process ends... or left in the temp dir.
pub fn tables(rule_set: RuleSet) -> &'static Path {
    static FMJD: OnceLock<tempfile::TempDir> = OnceLock::new();
    static PURE: OnceLock<tempfile::TempDir> = OnceLock::new();
    static DIAGONAL: OnceLock<tempfile::TempDir> = OnceLock::new();
    let cell = match rule_set {
        RuleSet::Fmjd => &FMJD,
        RuleSet::Pure => &PURE,
        RuleSet::FmjdDiagonal => &DIAGONAL,
    };
    cell.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        generate(&GenOptions::new(dir.path(), rule_set, 4)).expect("generation");
        dir
    })
    .path()
}

/// One line of the Kingsrow example oracle.
pub struct OracleCase {
    pub fen: String,
    pub value: String,
    pub pieces: u32,
}

pub fn oracle() -> Vec<OracleCase> {
    include_str!("../data/egdb_example_wld.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            OracleCase {
                fen: c[0].to_string(),
                value: c[1].to_string(),
                pieces: c[2].parse().expect("piece count"),
            }
        })
        .collect()
}

/// The `dtb` binary built by cargo for these tests.
pub fn dtb() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dtb"))
}
