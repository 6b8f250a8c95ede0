//! `dtb_move_values` from C, in its mask and its FEN form, on every
//! position of a sample of every four-piece material (either side to
//! move), against `dtb probe --json`'s `moves`: each move, value and
//! distance, and the counts it passes on.

mod common;

#[path = "../capi/tests/common/mod.rs"]
mod capi;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use format::{Material, MaterialIndex, RuleSet};
use gen::{generate, GenOptions};
use rules::{Color, Position, Role, Square};
use serde_json::Value;

/// Every how many-th position of each material is looked up.
const STRIDE: u64 = 3999;

/// The positions of the sample: every [`STRIDE`]-th of each four-piece
/// material, and each one with the other side to move.
fn sample() -> Vec<Position> {
    let four: Vec<Material> = Material::all_up_to(4)
        .into_iter()
        .filter(|m| m.pieces() == 4)
        .collect();
    let mut out = Vec::new();
    for m in four {
        let index = MaterialIndex::new(m);
        for i in (0..index.count()).step_by(STRIDE as usize) {
            let p = index.unrank(i);
            out.push(p);
            out.push(p.flipped());
        }
    }
    out
}

/// `white black kings side`: the masks of `dtb.h` (bit i for square i + 1).
fn masks(p: &Position) -> String {
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    for n in 1..=50u8 {
        let bit = 1u64 << (n - 1);
        match p.piece_at(Square::new(n).unwrap()) {
            Some((Color::White, role)) => {
                white |= bit;
                kings |= if role == Role::King { bit } else { 0 };
            }
            Some((Color::Black, role)) => {
                black |= bit;
                kings |= if role == Role::King { bit } else { 0 };
            }
            None => {}
        }
    }
    let side = match p.side_to_move() {
        Color::White => 0,
        Color::Black => 1,
    };
    format!("{white} {black} {kings} {side}")
}

/// The moves `dtb probe --json` gives each of `fens` under the counts, in
/// the C program's words (`None` for a position it refuses).
fn probe_json(dir: &Path, rules: &str, fens: &[String], counts: (i32, i32)) -> Vec<Option<String>> {
    let mut args = vec!["probe".to_string(), "--json".into(), "--dir".into()];
    args.push(dir.to_str().unwrap().into());
    args.extend(["--rules".into(), rules.into()]);
    if counts.0 >= 0 {
        args.extend(["--plies-left".into(), counts.0.to_string()]);
    }
    args.extend([
        "--kings-only-plies".into(),
        counts.1.to_string(),
        "-".into(),
    ]);
    let mut child = Command::new(common::dtb())
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = fens.join("\n");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| c_words(&serde_json::from_str(l).unwrap()))
        .collect()
}

/// An answer of `dtb probe --json` as the C program prints its moves.
fn c_words(answer: &Value) -> Option<String> {
    let moves = answer.get("moves")?.as_array()?;
    let int = |v: &Value| v.as_i64().unwrap_or(-1);
    let words: Vec<String> = moves
        .iter()
        .map(|m| {
            let wdl = match m["result"].as_str().unwrap() {
                "win" => 1,
                "draw" => 0,
                _ => -1,
            };
            format!(
                "{},{wdl},{},{},{},{},{}",
                m["move"].as_str().unwrap(),
                int(&m["dtc"]),
                int(&m["counted_threshold"]),
                int(&m["lone_king_plies"]),
                int(&m["plies_left_after"]),
                int(&m["kings_only_plies_after"]),
            )
        })
        .collect();
    Some(words.join(" "))
}

/// Runs `input` through `program`, returning its stdout.
fn run_with_input(program: &mut Command, input: String) -> String {
    let mut child = program
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_root_move_of_a_four_piece_sample_answers_as_dtb_probe() {
    let exe = tempfile::tempdir().unwrap();
    let program = exe.path().join("move_values");
    capi::compile(&capi::root().join("tests/c/move_values.c"), &program);
    let positions = sample();
    assert!(positions.len() > 5000, "{} positions", positions.len());
    let fens: Vec<String> = positions.iter().map(|p| p.to_string()).collect();
    let tables = tempfile::tempdir().unwrap();
    let mut short_checked = 0;
    for (rule_set, code) in [(RuleSet::Fmjd, 1), (RuleSet::Pure, 0)] {
        let mut options = GenOptions::new(tables.path(), rule_set, 4);
        options.dtc = true;
        options.quiet = true;
        generate(&options).unwrap();
        for counts in [(-1, 0), (6, 3)] {
            let input: String = positions
                .iter()
                .zip(&fens)
                .map(|(p, fen)| format!("{} {} {} {fen}\n", masks(p), counts.0, counts.1))
                .collect();
            let out = run_with_input(
                Command::new(&program)
                    .arg(tables.path())
                    .arg(code.to_string()),
                input,
            );
            let want = probe_json(tables.path(), rule_set.name(), &fens, counts);
            let (short, answers): (Vec<&str>, Vec<&str>) =
                out.lines().partition(|l| l.starts_with("short "));
            let mut lines = answers.into_iter();
            for (fen, want) in fens.iter().zip(&want) {
                for form in ["mask", "fen"] {
                    let line = lines.next().expect("a line a form");
                    let (got_form, rest) = line.split_once(' ').unwrap();
                    assert_eq!(got_form, form);
                    let (status, moves) = rest.split_once(' ').unwrap_or((rest, ""));
                    match want {
                        Some(want) => {
                            assert_eq!(status, "0", "{rule_set} {fen} {counts:?}: {line}");
                            assert_eq!(moves, want, "{rule_set} {fen} {counts:?} ({form})");
                        }
                        None => assert_ne!(status, "0", "{rule_set} {fen} {counts:?}: {line}"),
                    }
                }
            }
            // The count-only call and a short array, on the first
            // position with two moves or more.
            assert_eq!(lines.next(), None);
            assert_eq!(short.len(), 1, "{short:?}");
            let short: Vec<&str> = short[0].split(' ').collect();
            let [_, _, only, needed, too_short, short_count, count, untouched] = short[..] else {
                panic!("{short:?}")
            };
            assert_eq!((only, too_short, untouched), ("0", "-1", "1"), "{short:?}");
            assert_eq!((needed, short_count), (count, count), "{short:?}");
            short_checked += 1;
        }
    }
    assert_eq!(short_checked, 4);
}
