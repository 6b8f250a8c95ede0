//! A deliberate solver fault (a crowning misread in the slice solver, the
//! `fault-injection` feature) yields tables whose checksums are sound but
//! that the full `verify` rejects, naming the table; the same build
//! without the fault passes. Its own test binary: the fault is a process
//! switch, and no other test may build while it is on.

use format::{Material, RuleSet};
use gen::{generate, verify, GenOptions, VerifyOptions};

fn build(dir: &std::path::Path, rule_set: RuleSet, material: Material, dtc: bool) {
    let mut options = GenOptions::new(dir, rule_set, material.pieces());
    options.materials = vec![material];
    options.dtc = dtc;
    generate(&options).expect("the build runs");
}

/// Builds `material` (and what it needs) with its winning crownings
/// misread, then verifies everything: only `material` may fail, by its
/// values, with a sound file.
fn faulty_build_is_rejected(rule_set: RuleSet, name: &str, dtc: bool) {
    let material: Material = name.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    gen::fault::misread_winning_crownings(Some(material));
    build(dir.path(), rule_set, material, dtc);
    gen::fault::misread_winning_crownings(None);
    let checks = verify(&VerifyOptions::new(dir.path(), rule_set)).unwrap();
    let failed: Vec<_> = checks.iter().filter(|c| !c.ok()).collect();
    assert!(
        !failed.is_empty(),
        "{rule_set} {name}: the fault went unseen"
    );
    for check in &failed {
        assert_eq!(check.material, material, "{rule_set}: {check:?}");
        assert_eq!(check.problem, None, "the file itself is sound");
        assert!(check.mismatch_count > 0 && !check.mismatches.is_empty());
        let first = &check.mismatches[0];
        assert_ne!(first.stored, first.expected);
        assert!(
            first.fen.parse::<rules::Position>().is_ok(),
            "{}",
            first.fen
        );
    }
    assert!(
        failed.iter().any(|c| c.path.extension().unwrap() == "dtb"),
        "the table itself is named"
    );

    // The control: the same build without the fault passes.
    let clean = tempfile::tempdir().unwrap();
    build(clean.path(), rule_set, material, dtc);
    let checks = verify(&VerifyOptions::new(clean.path(), rule_set)).unwrap();
    assert!(checks.iter().all(|c| c.ok()), "{checks:?}");
}

#[test]
fn a_misread_crowning_is_caught_in_every_rule_set() {
    for rule_set in RuleSet::ALL {
        faulty_build_is_rejected(rule_set, "KM-M", false);
    }
    faulty_build_is_rejected(RuleSet::Fmjd, "KM-M", true);
}

/// The same in a four-piece and a five-piece material with men (a few
/// minutes: run with `--release -- --ignored`).
#[test]
#[ignore]
fn a_misread_crowning_is_caught_in_four_and_five_pieces() {
    faulty_build_is_rejected(RuleSet::Fmjd, "KM-MM", false);
    faulty_build_is_rejected(RuleSet::Fmjd, "KKM-MM", false);
}
