//! Units of work: `dtb plan`, then `dtb gen --unit ID` for every unit in
//! the listed order, one process each, must give the files of one
//! in-process `dtb gen`, byte for byte, in every rule set (with DTC files
//! too); a unit with a missing input refuses to run, naming it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use format::RuleSet;
use serde_json::Value;

fn dtb(args: &[&str]) -> Output {
    Command::new(common::dtb())
        .args(args)
        .output()
        .expect("dtb runs")
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every file of a rule set's folder (the `units` folder must be empty:
/// the assemblies remove their groups' files), sorted by name.
fn files(dir: &Path, rule_set: RuleSet) -> Vec<(String, Vec<u8>)> {
    let folder = format::table_dir(dir, rule_set);
    let mut out = Vec::new();
    for e in std::fs::read_dir(&folder).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "units" {
            let left: Vec<PathBuf> = std::fs::read_dir(e.path())
                .unwrap()
                .flatten()
                .map(|f| f.path())
                .collect();
            assert!(left.is_empty(), "files left: {left:?}");
            continue;
        }
        if name.starts_with('.') {
            continue; // the generator's lock
        }
        out.push((name, std::fs::read(e.path()).unwrap()));
    }
    out.sort();
    out
}

/// How a unit-loop test uses groups in parts (`--split-groups-above 0`:
/// every pair with men solved in parts of its groups, each a unit; a
/// larger value bins parts up to it).
#[derive(Clone, Copy, PartialEq)]
enum Parts {
    /// Not at all.
    No,
    /// In-process builds in parts (a part a unit, and binned), compared
    /// with the first.
    InProcess,
    /// Those, and the units of the loop solve in parts too (binned).
    AlsoUnits,
}

/// Builds up to `pieces` in process and unit by unit, and compares; with
/// `parts`, builds in parts too (see [`Parts`]).
fn unit_loop_matches_in_process(rule_set: RuleSet, pieces: u32, dtc: bool, parts: Parts) {
    let whole = tempfile::tempdir().unwrap();
    let units = tempfile::tempdir().unwrap();
    let pieces_arg = pieces.to_string();
    let mut common_args = vec!["--rules", rule_set.name(), "--pieces", &pieces_arg];
    if dtc {
        common_args.push("--dtc");
    }
    let whole_dir = whole.path().to_str().unwrap();
    let mut args = vec!["gen", "--quiet", "--dir", whole_dir];
    args.extend(&common_args);
    ok(dtb(&args));
    // The units bin parts together: up to three pieces, 359 units
    // instead of 604 a part each; and solve every slice in 2 bits a
    // position, as only huge ones are by default.
    let split_args: &[&str] = if parts == Parts::AlsoUnits {
        &[
            "--split-groups-above",
            "20000",
            "--bitset-slices-above",
            "0",
        ]
    } else {
        &[]
    };
    if parts != Parts::No {
        // A part a unit, and parts binned up to a budget.
        for budget in ["0", "100000"] {
            let built = tempfile::tempdir().unwrap();
            let mut args = vec!["gen", "--quiet", "--dir", built.path().to_str().unwrap()];
            args.extend(&common_args);
            args.extend(["--split-groups-above", budget]);
            if parts == Parts::AlsoUnits {
                args.extend(["--bitset-slices-above", "0"]);
            }
            ok(dtb(&args));
            assert_same_files(whole.path(), built.path(), rule_set);
        }
    }
    let mut args = vec!["plan", "--json"];
    args.extend(&common_args);
    args.extend(split_args);
    let plan: Value = serde_json::from_str(&ok(dtb(&args))).unwrap();
    let ids: Vec<&str> = plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() > 50);
    let units_dir = units.path().to_str().unwrap();
    for id in &ids {
        let mut args = vec!["gen", "--unit", id, "--dir", units_dir];
        args.extend(&common_args[..2]);
        args.extend(split_args);
        if dtc {
            args.push("--dtc");
        }
        ok(dtb(&args));
    }
    assert_same_files(whole.path(), units.path(), rule_set);
    // The verify's units are the build's, parts of groups included (up
    // to three pieces: the four-piece runs would double their processes,
    // CI's time, and the units do not depend on the rule set).
    if pieces <= 3 {
        let mut verify_args = common_args[..2].to_vec();
        verify_args.extend(split_args.iter().take(2));
        unit_verify_matches_whole(units_dir, &ids, &verify_args);
    }
    // Running a unit again does nothing.
    let mut args = vec!["gen", "--unit", ids[3], "--dir", units_dir];
    args.extend(&common_args[..2]);
    args.extend(split_args);
    if dtc {
        args.push("--dtc");
    }
    assert!(ok(dtb(&args)).contains("already done"));
}

/// Every unit of `ids` verified on its own (`dtb verify --unit`, as a
/// cluster's jobs would, with `args`: the rules, and the split into parts
/// of the plan that listed them) passes, and together they check, file by
/// file, as many positions as one whole `dtb verify`.
fn unit_verify_matches_whole(dir: &str, ids: &[&str], args: &[&str]) {
    let checked = |report: &Value| -> Vec<(String, u64)> {
        report["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                assert_eq!(t["ok"], true, "{t}");
                (
                    t["file"].as_str().unwrap().to_string(),
                    t["checked"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let mut by_units: std::collections::BTreeMap<String, u64> = Default::default();
    for id in ids {
        let mut verify = vec!["verify", "--json", "--quiet", "--unit", id, "--dir", dir];
        verify.extend(args);
        let report: Value = serde_json::from_str(&ok(dtb(&verify))).unwrap();
        for (file, n) in checked(&report) {
            *by_units.entry(file).or_default() += n;
        }
    }
    let mut whole = vec!["verify", "--json", "--quiet", "--dir", dir];
    whole.extend(&args[..2]);
    let whole: Value = serde_json::from_str(&ok(dtb(&whole))).unwrap();
    let whole: std::collections::BTreeMap<String, u64> = checked(&whole).into_iter().collect();
    assert_eq!(by_units, whole);
}

/// Requires the rule set's folders of two builds to hold the same files,
/// byte for byte.
fn assert_same_files(a: &Path, b: &Path, rule_set: RuleSet) {
    let (a, b) = (files(a, rule_set), files(b, rule_set));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} under {rule_set} differs");
    }
}

/// Three pieces under `fmjd` without DTC (four are run with DTC and under
/// `fmjd-diagonal`).
#[test]
fn unit_by_unit_up_to_three_pieces_fmjd() {
    unit_loop_matches_in_process(RuleSet::Fmjd, 3, false, Parts::No);
}

/// Three pieces under `pure`: the units do not depend on the rule set, and
/// what `pure` changes (no count in the lone-king endings) starts at three.
#[test]
fn unit_by_unit_up_to_three_pieces_pure() {
    unit_loop_matches_in_process(RuleSet::Pure, 3, false, Parts::No);
}

#[test]
fn unit_by_unit_up_to_four_pieces_diagonal() {
    unit_loop_matches_in_process(RuleSet::FmjdDiagonal, 4, false, Parts::No);
}

/// With DTC files, and in process in parts (3,462 units up to four pieces).
#[test]
fn unit_by_unit_up_to_four_pieces_with_dtc() {
    unit_loop_matches_in_process(RuleSet::Fmjd, 4, true, Parts::InProcess);
}

/// Every pair with men solved in parts of its groups, unit by unit and in
/// process, gives the files of the build in whole groups (three pieces,
/// binned: 359 units, one process each), every slice solved in 2 bits a
/// position.
#[test]
fn unit_by_unit_in_parts_up_to_three_pieces_with_dtc() {
    unit_loop_matches_in_process(RuleSet::Fmjd, 3, true, Parts::AlsoUnits);
}

#[test]
fn a_unit_with_a_missing_input_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let plan: Value = serde_json::from_str(&ok(dtb(&["plan", "--json", "--pieces", "3"]))).unwrap();
    let units = plan["units"].as_array().unwrap();
    // A group that reads another group's output, and the tables.
    let group = units
        .iter()
        .find(|u| u["kind"] == "group" && u["needs"].as_array().unwrap().len() >= 2)
        .unwrap();
    let id = group["id"].as_str().unwrap();
    let o = dtb(&["gen", "--unit", id, "--dir", d]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(id) && err.contains(".dtb"), "{err}");
    // Build what it needs but the group before it: the group's file is
    // then what is missing.
    let needs: Vec<&str> = group["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for u in units {
        let uid = u["id"].as_str().unwrap();
        if uid == id {
            break;
        }
        let is_group_before = needs.contains(&uid) && u["kind"] == "group";
        if !is_group_before && !uid.starts_with(id.split('.').next().unwrap()) {
            ok(dtb(&["gen", "--unit", uid, "--dir", d]));
        }
    }
    let o = dtb(&["gen", "--unit", id, "--dir", d]);
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(".dtg"), "{err}");
    // An unknown unit is bad input.
    let o = dtb(&["gen", "--unit", "KM-K.a99", "--dir", d]);
    assert_eq!(o.status.code(), Some(2));
    let o = dtb(&["gen", "--unit", "nonsense", "--dir", d]);
    assert_eq!(o.status.code(), Some(2));
    let o = dtb(&["gen", "--unit", "KKKKKKKKKKK-K.solve", "--dir", d]);
    assert_eq!(o.status.code(), Some(2));
    // So is it for verify; a group whose tables are missing is exit 3.
    for bad in ["KM-K.a99", "nonsense", "KKKKKKKKKKK-K.solve"] {
        let o = dtb(&["verify", "--unit", bad, "--dir", d]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let o = dtb(&["verify", "--unit", id, "--dir", d]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
