//! Compiles `examples/c/probe_example.c` with the system C compiler against
//! the static library, runs it on tables built here, and checks every line
//! it prints against the Rust API.

use std::process::Command;

mod common;

use format::{Material, RuleSet};
use gen::{generate, GenOptions};
use probe::{DrawCounts, Tablebase, Wdl};
use rules::Position;

fn wdl_int(w: Wdl) -> i32 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

#[test]
fn c_example_agrees_with_the_rust_api() {
    let root = common::root();
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<Material> = ["KKM-K", "KM-KM"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let mut options = GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
    options.materials = names;
    options.dtc = true;
    generate(&options).unwrap();
    let exe = dir.path().join("probe_example");
    common::compile(&root.join("examples/c/probe_example.c"), &exe);

    let fens = [
        "W:WK46,K47,28:BK5",
        "B:WK46,K47,28:BK5",
        "W:W28:BK26",
        "W:WK4,33:BK18,27",
        "B:W7,K11:BK16",
        "W:WK1:BK50",
        "W:W3:B1",
        "W:W46:BK41",
        "W:WK26,32:BK5,16",
    ];
    let run = Command::new(&exe)
        .arg(dir.path())
        .args(fens)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"ok"), "{stdout}");

    let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    for (fen, line) in fens.iter().zip(&lines) {
        let pos: Position = match fen.parse() {
            Ok(p) => p,
            Err(_) => {
                assert!(line.contains("error=-2"), "{line}");
                continue;
            }
        };
        let v = tb.probe_wdl(&pos, None).unwrap();
        let d = tb.probe(&pos).unwrap().distance.map_or(-1, i32::from);
        let w4 = match tb.probe_wdl(&pos, Some(4)) {
            Ok(w) => wdl_int(w),
            Err(_) => 9,
        };
        let best = tb
            .best_move(&pos, None)
            .unwrap()
            .map_or("-".to_string(), |m| pos.move_to_pdn(&m.mv));
        let dtc = tb.probe_dtc(&pos).unwrap().map_or(-1, |d| d as i32);
        let kings = kings_only_text(&tb, &pos, dtc);
        let expected = format!(
            "{fen}\twdl={}\tplies={d}\tbest={best}\twdl4={w4}\tdtc={dtc}\tkings={kings}",
            wdl_int(v)
        );
        assert_eq!(*line, expected);
    }
    // The 25-move rule bites: some decided position is drawn one ply late.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("kings=1/0/") || l.contains("kings=-1/0/")),
        "{stdout}"
    );
    let tail = lines[lines.len() - 2];
    let expected = format!(
        "max_pieces={} version={}",
        tb.max_pieces_available(),
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(tail, expected);
}

/// What the C example prints for the 25-move rule: the values with
/// `50 - dtc` and `51 - dtc` king-only plies and the best move with the
/// first, from the Rust API.
fn kings_only_text(tb: &Tablebase, pos: &Position, dtc: i32) -> String {
    if !(2..=50).contains(&dtc) {
        return "-".into();
    }
    let with = |n: i32| DrawCounts::new(None, n as u8);
    let held = wdl_int(tb.probe_wdl_with(pos, with(50 - dtc)).unwrap());
    let dropped = wdl_int(tb.probe_wdl_with(pos, with(51 - dtc)).unwrap());
    let best = tb
        .best_move_with(pos, with(50 - dtc))
        .unwrap()
        .map_or("-".to_string(), |m| pos.move_to_pdn(&m.mv));
    format!("{held}/{dropped}/{best}")
}

/// The first position without a capture from index `from` on.
fn quiet_position(material: Material, from: u64) -> Position {
    let index = format::MaterialIndex::new(material);
    (from..index.count())
        .map(|i| index.unrank(i))
        .find(|p| !p.has_capture())
        .expect("a quiet position")
}

/// A table truncated, then rewritten, in place under a running
/// C program: the program survives, reports the table corrupted, keeps
/// answering from the others, and answers from the new content.
#[test]
fn a_table_cut_short_under_a_c_program_is_an_error_not_a_crash() {
    let root = common::root();
    let build = tempfile::tempdir().unwrap();
    let exe = build.path().join("truncated_table");
    common::compile(&root.join("capi/tests/c/truncated_table.c"), &exe);
    // Mapped with the guard, then read with pread and no guard at all.
    for extra in [None, Some("pread")] {
        let dir = tempfile::tempdir().unwrap();
        let material: Material = "KKM-K".parse().unwrap();
        let mut options = GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
        options.materials = vec![material];
        generate(&options).unwrap();
        let count = format::MaterialIndex::new(material).count();
        let first = quiet_position(material, 0);
        let far = quiet_position(material, count - 20_000);
        let table = dir.path().join("fmjd").join(material.file_name());
        let run = Command::new(&exe)
            .arg(dir.path())
            .arg(&table)
            .args([first.to_string(), far.to_string(), "W:WK1:BK50".to_string()])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(run.status.success(), "{extra:?} {:?}: {stdout}", run.status);
        let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
        let wdl = |p: &Position| wdl_int(tb.probe_wdl(p, None).unwrap());
        let expected = format!(
            "before rc=0 wdl={}\ntruncated rc=-4 wdl=9\nother rc=0 wdl=0\nrewritten rc=0 wdl={}\nclosed rc=0\n",
            wdl(&first),
            wdl(&far)
        );
        assert_eq!(stdout, expected, "{extra:?}");
    }
}
