//! The forward check on tables the test builds (the generator is a
//! dev-dependency only: the check itself shares nothing with it): clean
//! sets pass in every rule set, and each kind of damage is named.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use check::{verify, TableCheck, TableProblem, VerifyOptions};
use format::{Material, MaterialIndex, RuleSet, TableReader, TableSpec, TableWriter};
use gen::{generate, GenOptions};

/// A folder with every table up to three pieces of `rule_set` (and, for
/// fmjd, their DTC files), built once per test binary.
fn built(rule_set: RuleSet) -> &'static Path {
    static SETS: OnceLock<[tempfile::TempDir; 3]> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        RuleSet::ALL.map(|r| {
            let dir = tempfile::tempdir().unwrap();
            let mut options = GenOptions::new(dir.path(), r, 3);
            options.quiet = true;
            options.dtc = r == RuleSet::Fmjd;
            generate(&options).unwrap();
            dir
        })
    });
    let at = RuleSet::ALL.iter().position(|&r| r == rule_set).unwrap();
    sets[at].path()
}

/// A copy of `rule_set`'s built folder, to damage.
fn copy(rule_set: RuleSet) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let from = built(rule_set).join(rule_set.name());
    let to = t.path().join(rule_set.name());
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    t
}

fn check_all(dir: &Path, rule_set: RuleSet) -> Vec<TableCheck> {
    verify(&VerifyOptions::new(dir, rule_set)).unwrap()
}

fn material(name: &str) -> Material {
    name.parse().unwrap()
}

fn verdict<'a>(checks: &'a [TableCheck], name: &str) -> &'a TableCheck {
    checks
        .iter()
        .find(|c| c.material == material(name) && c.path.extension().is_some_and(|e| e == "dtb"))
        .unwrap_or_else(|| panic!("no verdict for {name}"))
}

/// Rewrites the table `path` of `name` with value `index` replaced by
/// another one, sealed again so that only the check of values can find
/// it; returns the value it held.
fn change_value(path: &Path, rule_set: RuleSet, name: &str, index: u64) -> u8 {
    let bytes = std::fs::read(path).unwrap();
    let reader = TableReader::new(&bytes[..]).unwrap();
    let header = reader.header().clone();
    let mut values = reader.decode_all().unwrap();
    let before = values[index as usize];
    values[index as usize] = if before == 0 { 1 } else { 0 };
    std::fs::remove_file(path).unwrap();
    let spec = TableSpec {
        positions_per_block: header.positions_per_block,
        ..TableSpec::new(material(name), rule_set, header.value_kind)
    };
    let mut writer = TableWriter::create(path, spec).unwrap();
    for v in values {
        writer.push(Some(v)).unwrap();
    }
    writer.finish(header.stats).unwrap();
    before
}

/// The first index of `name` at or after `from` whose position has a
/// capture for the side to move (`capture`) or has none.
fn index_where(name: &str, from: u64, capture: bool) -> u64 {
    let index = MaterialIndex::new(material(name));
    (from..index.count())
        .find(|&i| index.unrank(i).has_capture() == capture)
        .expect("such a position")
}

fn table(dir: &Path, rule_set: RuleSet, name: &str) -> PathBuf {
    format::table_path(&format::table_dir(dir, rule_set), material(name))
}

#[test]
fn every_stored_value_agrees_with_its_moves_in_every_rule_set() {
    for rule_set in RuleSet::ALL {
        let checks = check_all(built(rule_set), rule_set);
        assert_eq!(
            checks
                .iter()
                .filter(|c| c.path.extension().unwrap() == "dtb")
                .count(),
            16
        );
        for c in &checks {
            assert!(c.ok(), "{rule_set} {}: {:?}", c.material, c.problem);
            assert!(c.checked > 0, "{} checked nothing", c.material);
        }
    }
}

#[test]
fn the_distances_to_conversion_are_checked_too() {
    let checks = check_all(built(RuleSet::Fmjd), RuleSet::Fmjd);
    let dtc: Vec<&TableCheck> = checks
        .iter()
        .filter(|c| c.path.extension().is_some_and(|e| e == "dtc"))
        .collect();
    assert_eq!(dtc.len(), 16, "one verdict a DTC file");
    assert!(dtc.iter().all(|c| c.ok() && c.checked > 0));
}

#[test]
fn a_changed_value_is_named_with_its_position() {
    let t = copy(RuleSet::Pure);
    // A position of KM-K without a capture: its value is read, so any
    // change of it must disagree with its moves.
    let quiet = index_where("KM-K", 1000, false);
    change_value(
        &table(t.path(), RuleSet::Pure, "KM-K"),
        RuleSet::Pure,
        "KM-K",
        quiet,
    );
    let checks = check_all(t.path(), RuleSet::Pure);
    let bad = verdict(&checks, "KM-K");
    assert_eq!(bad.mismatch_count, 1, "{:?}", bad.mismatches);
    assert_ne!(bad.mismatches[0].stored, bad.mismatches[0].expected);
    let fen = MaterialIndex::new(material("KM-K"))
        .unrank(quiet)
        .to_string();
    assert_eq!(bad.mismatches[0].fen, fen);
}

#[test]
fn a_changed_counted_ending_distance_is_found_under_fmjd() {
    // In a 5-move ending a value holds the plies the count must have left:
    // a change of that distance disagrees with the moves as a change of
    // the result does.
    let t = copy(RuleSet::Fmjd);
    let path = table(t.path(), RuleSet::Fmjd, "KK-K");
    let bytes = std::fs::read(&path).unwrap();
    let values = TableReader::new(&bytes[..]).unwrap().decode_all().unwrap();
    let positions = MaterialIndex::new(material("KK-K"));
    let index = (0..positions.count())
        .find(|&i| values[i as usize] > 1 && !positions.unrank(i).has_capture())
        .expect("a decided position without a capture");
    change_value(&path, RuleSet::Fmjd, "KK-K", index);
    let checks = check_all(t.path(), RuleSet::Fmjd);
    assert!(verdict(&checks, "KK-K").mismatch_count >= 1);
}

#[test]
fn a_damaged_block_is_corrupted() {
    let t = copy(RuleSet::FmjdDiagonal);
    let path = table(t.path(), RuleSet::FmjdDiagonal, "KM-K");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x5A;
    std::fs::write(&path, bytes).unwrap();
    let checks = check_all(t.path(), RuleSet::FmjdDiagonal);
    let bad = verdict(&checks, "KM-K");
    assert!(
        matches!(bad.problem, Some(TableProblem::Corrupted(_))),
        "{:?}",
        bad.problem
    );
}

#[test]
fn a_missing_table_that_moves_lead_to_is_missing() {
    let t = copy(RuleSet::Pure);
    // KM-K's captures lead to K-K: without it, KM-K cannot be checked.
    std::fs::remove_file(table(t.path(), RuleSet::Pure, "K-K")).unwrap();
    let mut options = VerifyOptions::new(t.path(), RuleSet::Pure);
    options.materials = vec![material("KM-K")];
    let checks = verify(&options).unwrap();
    let bad = verdict(&checks, "KM-K");
    assert!(
        matches!(bad.problem, Some(TableProblem::Missing(_))),
        "{:?}",
        bad.problem
    );
}

#[test]
fn a_sample_checks_a_fraction_the_same_every_run() {
    let dir = built(RuleSet::Pure);
    let mut options = VerifyOptions::new(dir, RuleSet::Pure);
    options.materials = vec![material("KK-K")];
    let whole = verify(&options).unwrap();
    options.sample = Some(0.1);
    let first = verify(&options).unwrap();
    let second = verify(&options).unwrap();
    let checked = |c: &[TableCheck]| verdict(c, "KK-K").checked;
    assert!(
        checked(&first) * 5 < checked(&whole),
        "{} of {}",
        checked(&first),
        checked(&whole)
    );
    assert!(checked(&first) > 0);
    assert_eq!(checked(&first), checked(&second));
}

#[test]
fn capture_positions_are_resolved_not_read() {
    // M-M: a capture position's stored value is "don't care" (the prober
    // resolves it by search), so changing it changes no verdict; changing
    // a position without a capture is found.
    let t = copy(RuleSet::Pure);
    let path = table(t.path(), RuleSet::Pure, "M-M");
    let mut options = VerifyOptions::new(t.path(), RuleSet::Pure);
    options.materials = vec![material("M-M")];
    change_value(&path, RuleSet::Pure, "M-M", index_where("M-M", 0, true));
    let checks = verify(&options).unwrap();
    assert!(
        verdict(&checks, "M-M").ok(),
        "{:?}",
        verdict(&checks, "M-M").mismatches
    );
    change_value(&path, RuleSet::Pure, "M-M", index_where("M-M", 0, false));
    let checks = verify(&options).unwrap();
    let bad = verdict(&checks, "M-M");
    assert_eq!(bad.mismatch_count, 1, "{:?}", bad.mismatches);
    assert!(bad.problem.is_none(), "{:?}", bad.problem);
}
