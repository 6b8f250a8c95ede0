//! A compacting build (`dtb gen --compact`) stopped after writing its
//! tables and before compacting them leaves valid version-1 tables and a
//! record of each pair's proof; run again, it compacts them and ends with
//! the files of a build never stopped, byte for byte (so does the
//! manifest unit run alone, as the last batch job). Run again without
//! `--compact`, it ends with a plain build's files. (Its own test binary:
//! the stop is a process-wide switch.)

use std::path::Path;
use std::sync::Mutex;

use format::RuleSet;
use gen::{generate, GenOptions, Sides};

/// Every file of `dir`'s rule-set folder but the build's lock (and
/// whether the units folder, where the records live, is there).
fn files(dir: &Path, rule_set: RuleSet) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let folder = format::table_dir(dir, rule_set);
    let mut all: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != ".dtb-gen.lock")
        .map(|e| {
            let bytes = if e.path().is_dir() {
                b"a folder".to_vec()
            } else {
                std::fs::read(e.path()).unwrap()
            };
            (e.file_name(), bytes)
        })
        .collect();
    all.sort();
    all
}

fn options(dir: &Path, rule_set: RuleSet, compact: Option<Sides>) -> GenOptions {
    let mut options = GenOptions::new(dir, rule_set, 3);
    options.compact = compact;
    options
}

/// Builds with `compact` and stops before compacting: every table is
/// there and stores every value (version 1).
fn stopped_build(rule_set: RuleSet, compact: Sides) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    gen::fault::stop_before_compaction(true);
    let stopped = generate(&options(dir.path(), rule_set, Some(compact)));
    gen::fault::stop_before_compaction(false);
    assert!(stopped.is_err(), "the build was not stopped");
    let folder = format::table_dir(dir.path(), rule_set);
    let tables = format::list_tables(&folder).unwrap();
    assert!(tables.len() > 10);
    for m in tables {
        let header = format::read_header(&format::table_path(&folder, m)).unwrap();
        let compacted = header.from_mirror || header.threats_searched || header.quiet_searched;
        assert!(!compacted, "{m}");
    }
    dir
}

/// The tests of this file build one at a time: the stop switch is
/// process-wide.
static ONE_BUILD: Mutex<()> = Mutex::new(());

#[test]
fn a_stopped_compacting_build_resumes_to_the_same_files() {
    let _one_build = ONE_BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let rule_set = RuleSet::Fmjd;
    let compact = Sides::SMALLER_ONLY;
    let unbroken = tempfile::tempdir().unwrap();
    let report = generate(&options(unbroken.path(), rule_set, Some(compact))).unwrap();
    assert!(report
        .compacted
        .iter()
        .any(|t| matches!(t.outcome, gen::Compaction::LeftOut { .. })));

    // A record whose tables are not there (a stray file) is forgotten.
    let units = format::table_dir(unbroken.path(), rule_set).join(plan::UNITS_DIR);
    std::fs::create_dir_all(&units).unwrap();
    let stray = units.join(format!(
        "{}.compact",
        plan::pair_of("KKKK-K".parse().unwrap())
    ));
    std::fs::write(&stray, "deepest 3\n").unwrap();
    std::fs::write(units.join("not a pair.compact"), "deepest ?").unwrap();
    generate(&options(unbroken.path(), rule_set, Some(compact))).unwrap();
    assert!(!stray.exists());
    std::fs::remove_file(units.join("not a pair.compact")).unwrap();
    std::fs::remove_dir(&units).unwrap();

    let resumed = stopped_build(rule_set, compact);
    let report = generate(&options(resumed.path(), rule_set, Some(compact))).unwrap();
    assert!(report.built.is_empty(), "every table was there");
    assert!(report.compacted.len() > 5, "{:?}", report.compacted);
    assert!(report.not_compacted.is_empty());
    assert!(files(unbroken.path(), rule_set) == files(resumed.path(), rule_set));

    // One unit a batch job: the scheduler counts the stopped pairs' units
    // done, and the manifest unit compacts what they recorded.
    let by_units = stopped_build(rule_set, compact);
    let options_here = options(by_units.path(), rule_set, Some(compact));
    let manifest = gen::plan(&options_here)
        .into_iter()
        .find(|u| u.kind == gen::UnitKind::Manifest)
        .unwrap();
    let report = gen::run_unit(&options_here, &manifest.id).unwrap();
    assert!(report.compacted.len() > 5, "{:?}", report.compacted);
    assert!(files(unbroken.path(), rule_set) == files(by_units.path(), rule_set));

    let plain = tempfile::tempdir().unwrap();
    generate(&options(plain.path(), rule_set, None)).unwrap();
    let uncompacted = stopped_build(rule_set, compact);
    let report = generate(&options(uncompacted.path(), rule_set, None)).unwrap();
    assert!(report.compacted.is_empty() && report.not_compacted.is_empty());
    assert!(files(plain.path(), rule_set) == files(uncompacted.path(), rule_set));
}

/// One process a unit (`dtb gen --unit`, each pair compacted at once, so
/// the pairs after it read compacted tables) writes the files of one
/// compacting build, byte for byte.
#[test]
fn a_compacting_build_unit_by_unit_writes_the_same_files() {
    let _one_build = ONE_BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let rule_set = RuleSet::Fmjd;
    let compact = Sides::SMALLER_ONLY;
    let whole = tempfile::tempdir().unwrap();
    generate(&options(whole.path(), rule_set, Some(compact))).unwrap();
    let by_units = tempfile::tempdir().unwrap();
    let unit_options = options(by_units.path(), rule_set, Some(compact));
    let mut compacted = 0;
    for unit in gen::plan(&unit_options) {
        compacted += gen::run_unit(&unit_options, &unit.id)
            .unwrap()
            .compacted
            .len();
    }
    assert!(compacted > 5);
    assert!(files(whole.path(), rule_set) == files(by_units.path(), rule_set));
}
