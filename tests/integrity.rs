//! Integrity: `dtb verify` passes on good tables and names the damaged
//! position of a bad one; the manifest catches swapped files; generation
//! killed at any moment resumes to byte-identical files; a full disk or an
//! unusable directory is a clear error that leaves no partial table.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use format::{Material, MaterialIndex, RuleSet, TableReader, TableSpec, TableWriter};

fn dtb(args: &[&str]) -> Output {
    Command::new(common::dtb())
        .args(args)
        .output()
        .expect("dtb runs")
}

fn gen_dir(pieces: u32, rule_set: RuleSet) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let o = dtb(&[
        "gen",
        "--quiet",
        "--pieces",
        &pieces.to_string(),
        "--rules",
        rule_set.name(),
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

/// Rewrites `material`'s table with the value of position `index`
/// replaced by `code`, checksums and all made consistent again.
fn damage(dir: &Path, rule_set: RuleSet, material: Material, index: u64, code: u8) {
    let path = dir.join(rule_set.name()).join(material.file_name());
    damage_file(&path, rule_set, material, index, code);
}

/// Rewrites the table or DTC file `path` of `material` with the byte (or
/// WLD code) of position `index` replaced by `code`.
fn damage_file(path: &Path, rule_set: RuleSet, material: Material, index: u64, code: u8) {
    let bytes = std::fs::read(path).unwrap();
    let reader = TableReader::new(&bytes[..]).unwrap();
    let header = reader.header().clone();
    let mut values = reader.decode_all().unwrap();
    assert_ne!(
        values[index as usize], code,
        "the damage must change something"
    );
    values[index as usize] = code;
    std::fs::remove_file(path).unwrap();
    let spec = TableSpec {
        positions_per_block: header.positions_per_block,
        ..TableSpec::new(material, rule_set, header.value_kind)
    };
    let mut w = TableWriter::create(path, spec).unwrap();
    for v in values {
        w.push(Some(v)).unwrap();
    }
    w.finish(header.stats).unwrap();
}

#[test]
fn verify_passes_then_finds_the_damaged_position() {
    for rule_set in [RuleSet::Fmjd, RuleSet::Pure, RuleSet::FmjdDiagonal] {
        let dir = gen_dir(3, rule_set);
        let d = dir.path().to_str().unwrap();
        let o = dtb(&["verify", "--quiet", "--rules", rule_set.name(), "--dir", d]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
        // Damage one non-capture position of KM-K: a distance table.
        let m: Material = "KM-K".parse().unwrap();
        let index = MaterialIndex::new(m);
        let i = (777..index.count())
            .find(|&i| !index.unrank(i).has_capture())
            .unwrap();
        let target = index.unrank(i);
        let tb = probe::Tablebase::open(dir.path(), rule_set).unwrap();
        let stored = tb.probe(&target).unwrap();
        let wrong = format::DistanceValue {
            wdl: if stored.wdl == format::Wdl::Win {
                format::Wdl::Draw
            } else {
                format::Wdl::Win
            },
            plies: 5,
        };
        drop(tb);
        damage(dir.path(), rule_set, m, i, wrong.encode());
        let o = dtb(&[
            "verify",
            "--quiet",
            "--json",
            "--rules",
            rule_set.name(),
            "--dir",
            d,
            "KM-K",
        ]);
        assert_eq!(o.status.code(), Some(4), "{rule_set}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let fens: Vec<&str> = v["tables"][0]["mismatches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["fen"].as_str().unwrap())
            .collect();
        assert!(
            fens.contains(&target.to_string().as_str()),
            "{rule_set}: {fens:?} lacks {target}"
        );
        // The manifest no longer matches the damaged file either.
        assert!(!v["manifest_problems"].as_array().unwrap().is_empty());
    }
}

#[test]
fn verify_reports_checksum_damage_and_manifest_differences() {
    let dir = gen_dir(2, RuleSet::Fmjd);
    let d = dir.path().to_str().unwrap();
    let fmjd = dir.path().join("fmjd");
    // Flip a byte of a block: the checksum tells.
    let path = fmjd.join("M-M.dtb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[130] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let o = dtb(&["verify", "--quiet", "--dir", d]);
    assert_eq!(o.status.code(), Some(4));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("M-M.dtb"), "{err}");
    // Put it back: all good again.
    bytes[130] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    assert!(dtb(&["verify", "--quiet", "--dir", d]).status.success());
    // A table not in the manifest.
    std::fs::remove_file(fmjd.join("MANIFEST.json")).unwrap();
    let o = dtb(&["verify", "--quiet", "--dir", d]);
    assert_eq!(o.status.code(), Some(4));
    // Naming a table that is not there: missing (3).
    let o = dtb(&["verify", "--quiet", "--dir", d, "KKK-K"]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The manifest keeps a checksum that covers the header's
/// content. An edit of the header re-sealed with its own CRC (here the
/// win and draw counts traded) leaves every CRC-32 check passing and the
/// CRC-32 of the whole file unchanged, as the test shows; the SHA-256 in
/// the manifest differs. (The statistics are in the manifest too: the test
/// compares the hashes themselves.)
#[test]
fn the_manifest_sees_a_resealed_header_edit() {
    let dir = gen_dir(2, RuleSet::Fmjd);
    let d = dir.path().to_str().unwrap();
    assert!(dtb(&["verify", "--quiet", "--dir", d]).status.success());
    let path = dir.path().join("fmjd").join("K-K.dtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let whole_crc = crc32fast::hash(&bytes);
    // Win and draw counts traded (the sum stays), the header re-sealed.
    let win = u64::from_le_bytes(bytes[56..64].try_into().unwrap());
    let draw = u64::from_le_bytes(bytes[64..72].try_into().unwrap());
    bytes[56..64].copy_from_slice(&draw.to_le_bytes());
    bytes[64..72].copy_from_slice(&win.to_le_bytes());
    let crc = crc32fast::hash(&bytes[..124]);
    bytes[124..128].copy_from_slice(&crc.to_le_bytes());
    assert_ne!(win, draw);
    assert_eq!(crc32fast::hash(&bytes), whole_crc, "CRC-32 is blind to it");
    std::fs::write(&path, &bytes).unwrap();
    TableReader::new(&bytes[..])
        .unwrap()
        .verify_checksum()
        .unwrap();
    let o = dtb(&["verify", "--quiet", "--dir", d, "--json"]);
    assert_eq!(o.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = v["manifest_problems"].to_string();
    assert!(problems.contains("K-K.dtb"), "{problems}");
    let folder = dir.path().join("fmjd");
    let listed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("MANIFEST.json")).unwrap()).unwrap();
    let listed_hash = listed["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["file"] == "K-K.dtb")
        .and_then(|t| t["sha256"].as_str())
        .unwrap()
        .to_string();
    let now = format::manifest::scan(&folder, RuleSet::Fmjd).unwrap();
    let edited = now.tables.iter().find(|t| t.file == "K-K.dtb").unwrap();
    assert_ne!(edited.sha256, listed_hash, "the hash sees the edit");
    assert_eq!(edited.bytes as usize, bytes.len());
}

/// Every `.dtb` file in `dir` is a complete, valid table.
fn all_tables_valid(dir: &Path, rule_set: RuleSet) {
    let folder = dir.join(rule_set.name());
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".dtb") {
            let m: Material = stem.parse().unwrap();
            assert!(
                gen::table_is_valid(&e.path(), m, rule_set),
                "{name} is not a valid table"
            );
        }
    }
}

#[test]
fn killed_generation_resumes_to_identical_files() {
    let reference = common::tables(RuleSet::Fmjd).join("fmjd");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Kill at growing delays: during the first tables, in the middle, late.
    for delay_ms in [50u64, 400, 1500, 3000, 6000] {
        let mut child = Command::new(common::dtb())
            .args(["gen", "--quiet", "--pieces", "4", "--dir", d])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        all_tables_valid(dir.path(), RuleSet::Fmjd);
        // A prober never sees a partial file.
        let tb = probe::Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
        for m in tb.materials_on_disk() {
            assert!(tb.has_table(m), "{m}");
        }
    }
    let o = dtb(&["gen", "--quiet", "--pieces", "4", "--dir", d]);
    assert!(o.status.success());
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("fmjd"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.retain(|n| n != ".dtb-gen.lock");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".dtb") || n == "MANIFEST.json"),
        "{names:?}"
    );
    assert_eq!(names.len(), Material::all_up_to(4).len() + 1);
    for m in Material::all_up_to(4) {
        let a = std::fs::read(reference.join(m.file_name())).unwrap();
        let b = std::fs::read(dir.path().join("fmjd").join(m.file_name())).unwrap();
        assert!(a == b, "{m} differs from an uninterrupted build");
    }
    assert!(dtb(&["verify", "--quiet", "--dir", d]).status.success());
}

#[test]
fn a_finished_build_removes_group_files_left_by_a_stopped_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(dtb(&["gen", "--quiet", "--pieces", "2", "--dir", d])
        .status
        .success());
    let units = dir.path().join("fmjd").join("units");
    // A build stopped after writing K-M's tables, before removing its
    // groups' files.
    std::fs::create_dir_all(&units).unwrap();
    std::fs::write(units.join("K-M.a3.dtg"), b"left behind").unwrap();
    assert!(dtb(&["gen", "--quiet", "--pieces", "2", "--dir", d])
        .status
        .success());
    assert!(!units.exists(), "the groups' folder is left");
    // A build stopped just after making the folder leaves it empty.
    std::fs::create_dir_all(&units).unwrap();
    assert!(dtb(&["gen", "--quiet", "--pieces", "2", "--dir", d])
        .status
        .success());
    assert!(!units.exists(), "the empty groups' folder is left");
}

#[test]
fn tight_memory_gives_identical_tables() {
    // With no memory for level lists every level below the saturating
    // codes is found by sweeping the cells, and with none for preloading
    // every smaller table is read block by block: other paths through the
    // solver that must give the same bytes.
    for rule_set in [RuleSet::Fmjd, RuleSet::Pure] {
        let reference = common::tables(rule_set).join(rule_set.name());
        let dir = tempfile::tempdir().unwrap();
        let o = dtb(&[
            "gen",
            "--quiet",
            "--pieces",
            "4",
            "--queue-memory",
            "0",
            "--preload-memory",
            "0",
            "--rules",
            rule_set.name(),
            "--dir",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for m in Material::all_up_to(4) {
            let a = std::fs::read(reference.join(m.file_name())).unwrap();
            let b = std::fs::read(dir.path().join(rule_set.name()).join(m.file_name())).unwrap();
            assert!(a == b, "{rule_set:?} {m}: sweeps and lists disagree");
        }
    }
}

#[test]
fn one_generator_per_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut first = Command::new(common::dtb())
        .args(["gen", "--quiet", "--pieces", "4", "--dir", d])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let second = dtb(&["gen", "--quiet", "--pieces", "4", "--dir", d]);
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(
        second.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(String::from_utf8_lossy(&second.stderr).contains("another dtb gen"));
    // The lock goes with the process.
    assert!(dtb(&["gen", "--quiet", "--pieces", "2", "--dir", d])
        .status
        .success());
}

#[test]
fn a_full_disk_is_a_clear_error_without_partial_tables() {
    // A file size limit makes writes fail the way a full disk does (EFBIG
    // instead of ENOSPC), without needing root to mount a tiny filesystem.
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f 16; exec {} gen --quiet --pieces 4 --dir {}",
        common::dtb().display(),
        dir.path().display()
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("File too large") || err.contains("No space"),
        "{err}"
    );
    let leftovers: Vec<String> = std::fs::read_dir(dir.path().join("fmjd"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    all_tables_valid(dir.path(), RuleSet::Fmjd);
    // With room again, the run completes.
    let o = dtb(&[
        "gen",
        "--quiet",
        "--pieces",
        "3",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success());
}

#[test]
fn an_unusable_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let o = dtb(&[
        "gen",
        "--quiet",
        "--pieces",
        "2",
        "--dir",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("not-a-dir"), "{err}");
}

#[test]
fn verify_checks_a_sliced_pair_against_its_moves_and_finds_the_damaged_position() {
    let rule_set = RuleSet::Fmjd;
    let dir = gen_dir(3, rule_set);
    let d = dir.path().to_str().unwrap();
    // MM-K has men outside the counted endings: a WLD table that verify
    // checks value against moves, with the values of K-MM and of the
    // smaller tables read whole.
    let m: Material = "MM-K".parse().unwrap();
    let index = MaterialIndex::new(m);
    let i = (500..index.count())
        .find(|&i| !index.unrank(i).has_capture())
        .unwrap();
    let target = index.unrank(i);
    let tb = probe::Tablebase::open(dir.path(), rule_set).unwrap();
    let stored = tb.probe(&target).unwrap().wdl;
    drop(tb);
    let wrong = if stored == format::Wdl::Win {
        format::Wdl::Loss
    } else {
        format::Wdl::Win
    };
    damage(dir.path(), rule_set, m, i, wrong.code());
    let o = dtb(&["verify", "--quiet", "--json", "--dir", d, "MM-K", "K-MM"]);
    assert_eq!(o.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    let fens_of = |material: &str| -> Vec<String> {
        let table = tables.iter().find(|t| t["material"] == material).unwrap();
        assert!(table["checked"].as_u64().unwrap() > 0);
        table["mismatches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["fen"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(fens_of("MM-K"), vec![target.to_string()]);
    // In the mirror, only positions with a move into the damaged one can
    // disagree with what they read there.
    for fen in fens_of("K-MM") {
        let parent: rules::Position = fen.parse().unwrap();
        let leads_to_target = parent
            .legal_moves()
            .iter()
            .any(|mv| format::table_position(&parent.play(mv)).1 == target);
        assert!(leads_to_target, "{fen}");
    }
}

#[test]
fn verify_checks_every_dtc_against_its_moves() {
    let rule_set = RuleSet::Fmjd;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = dtb(&["gen", "--quiet", "--pieces", "4", "--dtc", "--dir", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = dtb(&["verify", "--quiet", "--json", "--dir", d, "KM-KK", "KK-KM"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 4, "two tables and their DTC files");
    // A decided position whose DTC is more than one ply: one ply more is
    // wrong, and only the DTC file says so. The side damaged is the one
    // whose DTC file stores its values (the other's are found from it).
    let folder = dir.path().join(rule_set.name());
    let m: Material = ["KM-KK", "KK-KM"]
        .iter()
        .map(|name| name.parse().unwrap())
        .find(|&m| {
            !format::read_header(&format::dtc_path(&folder, m))
                .unwrap()
                .from_mirror
        })
        .unwrap();
    let index = MaterialIndex::new(m);
    let tb = probe::Tablebase::open(dir.path(), rule_set).unwrap();
    let (i, target, dtc) = (0..index.count())
        .map(|i| (i, index.unrank(i)))
        .filter(|(_, p)| !p.has_capture() && tb.probe(p).unwrap().wdl != format::Wdl::Draw)
        .find_map(|(i, p)| {
            let dtc = tb.probe_dtc(&p).unwrap()?;
            (dtc >= 2).then_some((i, p, dtc))
        })
        .unwrap();
    drop(tb);
    let path = format::dtc_path(&dir.path().join(rule_set.name()), m);
    damage_file(&path, rule_set, m, i, dtc as u8 + 1);
    let o = dtb(&["verify", "--quiet", "--json", "--dir", d, "KM-KK", "KK-KM"]);
    assert_eq!(o.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    let verdict = |file: &str| {
        tables
            .iter()
            .find(|t| t["file"].as_str().unwrap().ends_with(file))
            .unwrap()
    };
    assert_eq!(
        verdict(&m.file_name())["mismatches"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let fens: Vec<&str> = verdict(&format::dtc_file_name(m))["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["fen"].as_str().unwrap())
        .collect();
    assert!(fens.contains(&target.to_string().as_str()), "{fens:?}");
    // A sample check (which resolves captures one by one instead of table
    // by table) of almost every position finds the same mismatches.
    let verdicts = |args: &[&str]| -> Vec<(String, Vec<String>)> {
        let mut all = vec!["verify", "--quiet", "--json", "--dir", d];
        all.extend(args);
        let o = dtb(&all);
        assert_eq!(o.status.code(), Some(4));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let tables = v["tables"].as_array().unwrap();
        tables
            .iter()
            .map(|t| {
                let fens = t["mismatches"].as_array().unwrap().iter();
                let fens = fens.map(|m| m["fen"].as_str().unwrap().to_string());
                (t["file"].as_str().unwrap().to_string(), fens.collect())
            })
            .collect()
    };
    let pair = ["KM-KK", "KK-KM"];
    let full = verdicts(&pair);
    let sampled = verdicts(&["--sample", "0.999999", "KM-KK", "KK-KM"]);
    assert_eq!(full, sampled);
    assert!(full.iter().any(|(_, fens)| !fens.is_empty()));
}
