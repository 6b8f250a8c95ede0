//! Format version 2 (`dtb compact`): the same answers from fewer bytes.
//!
//! For every rule set, the tables up to 4 pieces are built, copied, and
//! the copies compacted: threat positions left to the search with larger
//! blocks (both sides kept), one side of each pair left out
//! (`--one-side`: answered by a one-ply search over the other), or one
//! side left out only where that saves enough (`--min-saving`); each
//! rule set takes one or two of these ways. Then every position of
//! every table the compaction changed, with either side to move (each
//! table holds one side to move; its mirror's table, the other), is
//! probed in the plain and the compacted sets with every state of the
//! draw counter its class allows, and the answers must be equal; so must
//! each table's statistics, each rule set's last compacted set must pass
//! the forward check, and a second compaction
//! changes nothing. Recompressing that last set at a higher zstd level
//! keeps every value and header and grows no file. A dry run first writes nothing and foresees every
//! outcome and size. A compacted folder extends like a plain one: a
//! four-piece pair built on compacted tables up to 3 pieces (either way)
//! is byte for byte the one built on plain ones.

use std::path::Path;

use format::{Material, MaterialIndex, RuleSet, ValueKind};
use gen::{compact, compact_dry_run, generate, Compaction, GenOptions, Sides};
use probe::Tablebase;

mod common;
use common::copy_dir::copy_dir;

/// Tables up to `pieces` pieces of `rule_set`.
fn plain_set(rule_set: RuleSet, pieces: u32) -> tempfile::TempDir {
    let plain = tempfile::tempdir().unwrap();
    generate(&GenOptions::new(plain.path(), rule_set, pieces)).expect("generation");
    plain
}

/// A copy of `plain` compacted with `sides`: every WLD table rewritten,
/// or with one side a pair, left out or kept whole where not rewritten.
fn compacted_set(rule_set: RuleSet, plain: &Path, sides: Sides) -> tempfile::TempDir {
    let small = tempfile::tempdir().unwrap();
    copy_dir(plain, small.path());
    let files = |dir: &Path| {
        let folder = format::table_dir(dir, rule_set);
        let mut all: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                (
                    path.file_name().unwrap().to_owned(),
                    std::fs::read(path).unwrap(),
                )
            })
            .collect();
        all.sort();
        all
    };
    let foreseen = compact_dry_run(small.path(), rule_set, sides).expect("dry run");
    assert!(
        files(plain) == files(small.path()),
        "a dry run writes nothing"
    );
    let done = compact(small.path(), rule_set, sides).expect("compaction");
    // Every check passes here, so the dry run foresaw every outcome (all
    // but the count of threats searched, which only a check counts).
    assert_eq!(foreseen.len(), done.len());
    for (f, t) in foreseen.iter().zip(&done) {
        assert_eq!(
            (f.material, &f.outcome, f.one_side_saving),
            (t.material, &uncounted(&t.outcome), t.one_side_saving)
        );
    }
    for t in &done {
        let wdl = format::value_kind(t.material, rule_set) == ValueKind::Wdl;
        let pair = format::may_come_from_mirror(t.material);
        let expected = match (wdl, sides, pair) {
            (false, _, _) => matches!(t.outcome, Compaction::Unchanged),
            (true, Sides::One { .. }, true) => matches!(
                t.outcome,
                Compaction::LeftOut { .. }
                    | Compaction::KeptWhole { .. }
                    | Compaction::KeptForMirror
                    | Compaction::Rewritten { .. }
            ),
            (true, _, _) => matches!(t.outcome, Compaction::Rewritten { .. }),
        };
        assert!(
            expected,
            "{rule_set} {sides:?} {}: {:?}",
            t.material, t.outcome
        );
        assert_saving_decides(sides, t);
    }
    small
}

/// `outcome` as a dry run or a build reports it: threats searched not
/// counted, none kept.
fn uncounted(outcome: &Compaction) -> Compaction {
    match *outcome {
        Compaction::Rewritten { before, after, .. } => Compaction::Rewritten {
            before,
            after,
            searched: None,
            threats_kept: 0,
        },
        ref other => other.clone(),
    }
}

/// With one side a pair, a table is left out exactly where its saving
/// reaches the least asked (and is positive), and only weighed tables
/// have a saving.
fn assert_saving_decides(sides: Sides, t: &gen::CompactedTable) {
    let left_out = matches!(t.outcome, Compaction::LeftOut { .. });
    match (sides, t.one_side_saving) {
        (Sides::Both, saving) => assert_eq!(saving, None, "{}", t.material),
        (Sides::One { min_saving }, Some(bits)) => assert_eq!(
            left_out,
            bits > 0.0 && bits >= min_saving,
            "{}: {bits} bits, {:?}",
            t.material,
            t.outcome
        ),
        (Sides::One { .. }, None) => assert!(!left_out, "{}", t.material),
    }
}

/// Every position of every table the compaction changed, both sides to
/// move, every counter.
fn assert_same_answers(rule_set: RuleSet, plain: &Path, small: &Path) {
    let a = Tablebase::open(plain, rule_set).unwrap();
    let b = Tablebase::open(small, rule_set).unwrap();
    let folder = format::table_dir(small, rule_set);
    let mut searched = 0u64;
    let mut moves = Vec::new();
    let file =
        |dir: &Path, m| std::fs::read(format::table_path(&format::table_dir(dir, rule_set), m));
    for m in format::list_tables(&folder).unwrap() {
        // A table the compaction left as it was answers from the same
        // bytes, and its captures lead to tables compared here.
        if file(plain, m).unwrap() == file(small, m).unwrap() {
            continue;
        }
        let index = MaterialIndex::new(m);
        let counters: Vec<Option<u8>> = match m.counted_ending() {
            Some(class) if rule_set.has_move_limits() => {
                vec![
                    None,
                    Some(0),
                    Some(1),
                    Some(class.plies() / 2),
                    Some(class.plies()),
                ]
            }
            _ => vec![None],
        };
        for i in 0..index.count() {
            let pos = index.unrank(i);
            searched += u64::from(format::is_searched_threat(&pos, &mut moves));
            for &r in &counters {
                assert_eq!(
                    a.probe_counted(&pos, r).unwrap(),
                    b.probe_counted(&pos, r).unwrap(),
                    "{rule_set} {m} position {i} ({pos}), counter {r:?}"
                );
            }
        }
        let header = |dir: &Path| {
            format::read_header(&format::table_path(&format::table_dir(dir, rule_set), m)).unwrap()
        };
        assert_eq!(header(plain).stats, header(small).stats, "{rule_set} {m}");
    }
    assert!(searched > 0, "some positions were left to the search");
}

fn total_bytes(dir: &Path, rule_set: RuleSet) -> u64 {
    let folder = format::table_dir(dir, rule_set);
    format::list_tables(&folder)
        .unwrap()
        .iter()
        .map(|&m| {
            std::fs::metadata(format::table_path(&folder, m))
                .unwrap()
                .len()
        })
        .sum()
}

/// One side of a pair left out only where that saves at least 0.2 bits a
/// position: up to 4 pieces, some pairs so and others both as version 2.
const SOME_PAIRS: Sides = Sides::One { min_saving: 0.2 };

/// Compacts copies of the plain set up to 4 pieces each way of `modes`
/// (from the most tables kept to the fewest) and checks each against the
/// plain set; each way is smaller than the one before.
fn check_rule_set(rule_set: RuleSet, modes: &[Sides]) {
    let plain = plain_set(rule_set, 4);
    let mut sizes = vec![total_bytes(plain.path(), rule_set)];
    for (k, &sides) in modes.iter().enumerate() {
        let small = compacted_set(rule_set, plain.path(), sides);
        assert_same_answers(rule_set, plain.path(), small.path());
        assert_built_alike(rule_set, small.path(), sides);
        // The forward check of the last way, which leaves out the most
        // (one side everywhere also rewrites the pairs it cannot split).
        if k + 1 == modes.len() {
            assert_recompressed_alike(rule_set, small.path());
            let options = check::VerifyOptions::new(small.path(), rule_set);
            let verdicts = check::verify(&options).unwrap();
            assert!(!verdicts.is_empty());
            for v in &verdicts {
                assert!(
                    v.problem.is_none() && v.mismatch_count == 0,
                    "{rule_set} {sides:?}: {v:?}"
                );
            }
        }
        if sides == SOME_PAIRS {
            assert_mixed(rule_set, small.path());
        }
        assert_spread_in_mirror_blocks(rule_set, small.path());
        // A second run, either way, finds nothing left to do.
        let bytes = total_bytes(small.path(), rule_set);
        for again in [Sides::Both, Sides::SMALLER_ONLY] {
            let done = compact(small.path(), rule_set, again).unwrap();
            assert!(done
                .iter()
                .all(|t| matches!(t.outcome, Compaction::Unchanged | Compaction::KeptForMirror)));
            assert_eq!(total_bytes(small.path(), rule_set), bytes);
        }
        sizes.push(bytes);
    }
    assert!(
        sizes.windows(2).all(|w| w[1] < w[0]),
        "{rule_set}: plain, then {modes:?}: {sizes:?} bytes"
    );
}

/// Each table of `dir` (its bytes, decoded values and header with the
/// fields that depend on the compressed bytes cleared).
fn decoded_tables(dir: &Path, rule_set: RuleSet) -> Vec<(Material, u64, Vec<u8>, format::Header)> {
    let folder = format::table_dir(dir, rule_set);
    let mut out = Vec::new();
    for m in format::list_tables(&folder).unwrap() {
        let bytes = std::fs::read(format::table_path(&folder, m)).unwrap();
        let len = bytes.len() as u64;
        let reader = format::TableReader::new(bytes).unwrap();
        let mut header = reader.header().clone();
        let values = if header.block_count > 0 {
            reader.decode_all_raw().unwrap()
        } else {
            Vec::new()
        };
        (header.index_offset, header.file_length) = (0, 0);
        (header.index_crc, header.body_crc) = (0, 0);
        out.push((m, len, values, header));
    }
    out
}

/// `gen::recompress` (`dtb compact --level`) at level 19 keeps every
/// table's values and header (the fields that depend on the compressed
/// bytes aside), never grows a file and shrinks some; run again at 19 it
/// changes nothing, and at level 1 it grows nothing.
fn assert_recompressed_alike(rule_set: RuleSet, dir: &Path) {
    let before = decoded_tables(dir, rule_set);
    let done = gen::recompress(dir, rule_set, 19).unwrap();
    let after = decoded_tables(dir, rule_set);
    assert_eq!(done.len(), before.len());
    for ((r, old), new) in done.iter().zip(&before).zip(&after) {
        assert_eq!(r.material, old.0);
        assert_eq!(
            (r.before, r.after),
            (old.1, new.1),
            "{rule_set} {}",
            r.material
        );
        assert!(r.after <= r.before, "{rule_set} {}", r.material);
        assert!(old.2 == new.2, "{rule_set} {}: values changed", r.material);
        assert_eq!(old.3, new.3, "{rule_set} {}", r.material);
    }
    assert!(done.iter().any(|r| r.after < r.before), "{rule_set}");
    let again = gen::recompress(dir, rule_set, 19).unwrap();
    assert!(again.iter().all(|r| r.after == r.before), "{rule_set}");
    let lower = gen::recompress(dir, rule_set, 1).unwrap();
    assert!(lower.iter().all(|r| r.after <= r.before), "{rule_set}");
}

/// A build that compacts as it goes (`GenOptions::compact`: no checks,
/// the solver's proof instead, the fill tested only where codes change)
/// writes byte for byte the files of the checked `compact` of a plain
/// build (`small`); up to 4 pieces it proves every pair.
fn assert_built_alike(rule_set: RuleSet, small: &Path, sides: Sides) {
    let built = tempfile::tempdir().unwrap();
    let mut options = GenOptions::new(built.path(), rule_set, 4);
    options.compact = Some(sides);
    let report = generate(&options).expect("a compacting build");
    assert!(report.not_compacted.is_empty(), "{rule_set} {sides:?}");
    let folder = |dir: &Path| format::table_dir(dir, rule_set);
    let tables = format::list_tables(&folder(small)).unwrap();
    assert_eq!(tables, format::list_tables(&folder(built.path())).unwrap());
    for m in tables {
        let read = |dir: &Path| std::fs::read(format::table_path(&folder(dir), m)).unwrap();
        assert!(
            read(small) == read(built.path()),
            "{rule_set} {sides:?} {m}: the build's file differs from compact's"
        );
    }
}

/// Some four-piece pair of `small` keeps one table, another keeps both
/// (as version 2).
fn assert_mixed(rule_set: RuleSet, small: &Path) {
    let folder = format::table_dir(small, rule_set);
    let headers: Vec<_> = format::list_tables(&folder)
        .unwrap()
        .into_iter()
        .filter(|&m| m.pieces() == 4 && format::may_come_from_mirror(m))
        .map(|m| format::read_header(&format::table_path(&folder, m)).unwrap())
        .collect();
    assert!(headers.iter().any(|h| h.quiet_searched), "{rule_set}");
    assert!(headers.iter().any(|h| h.threats_searched), "{rule_set}");
    assert!(
        headers
            .iter()
            .filter(|h| h.quiet_searched || h.threats_searched)
            .all(|h| h.spread_unit.is_some()),
        "{rule_set}"
    );
}

/// Every table of `small` that leaves positions to the search stores the
/// spread ones, counted in blocks of its mirror's table as written: so a
/// cold search reads at most two blocks of it.
fn assert_spread_in_mirror_blocks(rule_set: RuleSet, small: &Path) {
    let folder = format::table_dir(small, rule_set);
    let header = |m: Material| format::read_header(&format::table_path(&folder, m)).unwrap();
    for m in format::list_tables(&folder).unwrap() {
        let h = header(m);
        if h.threats_searched || h.quiet_searched {
            let mirror_block = header(m.mirrored()).positions_per_block;
            assert_eq!(h.spread_unit, Some(mirror_block), "{rule_set} {m}");
        }
    }
}

/// Tables of the earlier version-2 forms, which a compaction no longer
/// writes: a table left out that stores nothing, and threats searched
/// with no spread position stored (here every value stored, the threats
/// flag set), answer as the plain tables do.
#[test]
fn earlier_version_2_forms_answer_as_before() {
    let rule_set = RuleSet::Fmjd;
    let plain = plain_set(rule_set, 3);
    let one = compacted_set(rule_set, plain.path(), Sides::SMALLER_ONLY);
    let folder = format::table_dir(one.path(), rule_set);
    let plain_folder = format::table_dir(plain.path(), rule_set);
    let (mut stores_nothing, mut unbounded) = (0, 0);
    for m in format::list_tables(&folder).unwrap() {
        let path = format::table_path(&folder, m);
        let header = format::read_header(&path).unwrap();
        if header.quiet_searched {
            format::write_from_mirror(&path, m, rule_set, ValueKind::Wdl, header.stats).unwrap();
            stores_nothing += 1;
        } else if header.threats_searched {
            let bytes = std::fs::read(format::table_path(&plain_folder, m)).unwrap();
            let codes = format::TableReader::new(bytes)
                .unwrap()
                .decode_all()
                .unwrap();
            let spec = format::TableSpec::searched_threats(m, rule_set, None);
            let mut writer = format::TableWriter::create(&path, spec).unwrap();
            for code in codes {
                writer.push(Some(code)).unwrap();
            }
            writer.finish(header.stats).unwrap();
            unbounded += 1;
        }
    }
    assert!(
        stores_nothing > 0 && unbounded > 0,
        "{stores_nothing} {unbounded}"
    );
    assert_same_answers(rule_set, plain.path(), one.path());
}

#[test]
fn compacted_tables_answer_as_before_under_fmjd() {
    // Both sides rewritten everywhere is `pure`'s first way; here the
    // pairs `SOME_PAIRS` keeps whole take it.
    check_rule_set(RuleSet::Fmjd, &[SOME_PAIRS, Sides::SMALLER_ONLY]);
}

#[test]
fn compacted_tables_answer_as_before_under_pure() {
    // One side a pair everywhere is `fmjd`'s second way.
    check_rule_set(RuleSet::Pure, &[Sides::Both]);
}

#[test]
fn compacted_tables_answer_as_before_under_fmjd_diagonal() {
    check_rule_set(RuleSet::FmjdDiagonal, &[SOME_PAIRS]);
}

#[test]
fn a_compacted_set_extends_as_a_plain_one() {
    let rule_set = RuleSet::Fmjd;
    let plain = plain_set(rule_set, 3);
    let both = compacted_set(rule_set, plain.path(), Sides::Both);
    let one = compacted_set(rule_set, plain.path(), Sides::SMALLER_ONLY);
    let pair: Material = "KM-KM".parse().unwrap();
    for dir in [plain.path(), both.path(), one.path()] {
        let mut options = GenOptions::new(dir, rule_set, 4);
        options.materials = vec![pair];
        generate(&options).expect("a four-piece pair");
    }
    for side in [pair, pair.mirrored()] {
        let read = |dir: &Path| {
            std::fs::read(format::table_path(&format::table_dir(dir, rule_set), side)).unwrap()
        };
        assert!(read(plain.path()) == read(both.path()), "{side}");
        assert!(read(plain.path()) == read(one.path()), "{side}");
    }
}

#[test]
fn a_pair_storing_neither_side_is_refused_not_searched_forever() {
    let rule_set = RuleSet::Fmjd;
    let plain = plain_set(rule_set, 3);
    let one = compacted_set(rule_set, plain.path(), Sides::SMALLER_ONLY);
    let folder = format::table_dir(one.path(), rule_set);
    let left: Material = format::list_tables(&folder)
        .unwrap()
        .into_iter()
        .find(|&m| {
            m.pieces() == 3
                && format::read_header(&format::table_path(&folder, m))
                    .unwrap()
                    .quiet_searched
        })
        .expect("a table left out");
    let kept = left.mirrored();
    let kept_path = format::table_path(&folder, kept);
    let stats = format::read_header(&kept_path).unwrap().stats;
    format::write_from_mirror(&kept_path, kept, rule_set, ValueKind::Wdl, stats).unwrap();
    let tb = Tablebase::open(one.path(), rule_set).unwrap();
    let index = MaterialIndex::new(left);
    let quiet = (0..index.count())
        .map(|i| index.unrank(i))
        .find(|p| !p.has_capture())
        .expect("a quiet position");
    let answer = tb.probe(&quiet);
    assert!(
        matches!(answer, Err(probe::ProbeError::Corrupted { .. })),
        "{answer:?}"
    );
}
