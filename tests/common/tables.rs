//! Table sets built once per test binary, shared by the end-to-end tests
//! and the prober's tests (which include this file by path).

use std::path::Path;
use std::sync::OnceLock;

use format::RuleSet;
use gen::{generate, GenOptions};

/// A table directory built once per test binary and rule set (up to four
/// pieces), removed when the process ends.
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
        let mut options = GenOptions::new(dir.path(), rule_set, 4);
        options.quiet = true;
        generate(&options).expect("generation");
        dir
    })
    .path()
}
