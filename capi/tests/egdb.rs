//! The interface of Kingsrow's driver (`dtb_egdb.h` for C, `egdb_intl.h`
//! for C++) against the prober that `dtb probe` answers from: C and C++
//! programs look up every placement of every material up to four pieces,
//! both colours to move, capture positions for either side included, and
//! a sample of five-piece materials; the WLD values of the pure tables by
//! default, of the fmjd tables with `rules=fmjd`, and the MTC values with
//! `db=mtc`. Then bad input, and the C++ example.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock, PoisonError};

use dtb::{mtc_code, DTB_EGDB_DRAW, DTB_EGDB_LOSS, DTB_EGDB_UNKNOWN, DTB_EGDB_WIN};
use format::{Material, MaterialIndex, RuleSet};
use gen::{generate, GenOptions};
use probe::{Tablebase, Wdl};
use rules::{Color, Position};

mod common;

/// The five-piece materials built for the sample (with their mirrors).
const FIVE: [&str; 1] = ["KKKK-K"];
/// Every how many-th five-piece placement is looked up.
const FIVE_STRIDE: u64 = 61;

/// Tables shared by the tests: pure up to four pieces and the five-piece
/// pairs of [`FIVE`], all with `.dtc` files; fmjd up to four pieces.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut pure = GenOptions::new(dir.path(), RuleSet::Pure, 4);
        pure.dtc = true;
        pure.quiet = true;
        generate(&pure).unwrap();
        pure.max_pieces = 5;
        pure.materials = FIVE.iter().map(|m| m.parse().unwrap()).collect();
        generate(&pure).unwrap();
        let mut fmjd = GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
        fmjd.quiet = true;
        generate(&fmjd).unwrap();
        dir
    })
    .path()
}

/// A program of this test folder (or of `examples/`), compiled once for
/// all the tests (a second compile would rewrite a running program).
fn program(source: &str) -> PathBuf {
    static BUILT: OnceLock<(tempfile::TempDir, Mutex<HashMap<String, PathBuf>>)> = OnceLock::new();
    let (dir, built) = BUILT.get_or_init(|| (tempfile::tempdir().unwrap(), Mutex::default()));
    let mut built = built.lock().unwrap_or_else(PoisonError::into_inner);
    built
        .entry(source.to_string())
        .or_insert_with(|| {
            let source = common::root().join(source);
            let name = source.file_name().unwrap().to_str().unwrap();
            let exe = dir.path().join(format!("{name}.exe"));
            common::compile(&source, &exe);
            exe
        })
        .clone()
}

/// Every placement of `m` in the order of `capi/tests/c/egdb_positions.h`
/// (White's men, White's kings, Black's men, Black's kings; squares
/// increasing, the last group fastest), as (white, black, kings) in the
/// driver's bit layout: walked here independently of the table index.
fn placements(m: Material, visit: &mut dyn FnMut(u64, u64, u64)) {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    place(&counts, 0, FIRST[0], counts[0], [0, 0, 0], visit);
}

const FIRST: [u32; 4] = [6, 1, 1, 1];
const LAST: [u32; 4] = [50, 50, 45, 50];

fn square_bit(square: u32) -> u64 {
    let s = square - 1;
    1 << (s + s / 10)
}

fn place(
    counts: &[u8; 4],
    group: usize,
    from: u32,
    left: u8,
    [white, black, kings]: [u64; 3],
    visit: &mut dyn FnMut(u64, u64, u64),
) {
    if group == 4 {
        return visit(white, black, kings);
    }
    if left == 0 {
        let next = group + 1;
        let (from, left) = if next < 4 {
            (FIRST[next], counts[next])
        } else {
            (0, 0)
        };
        return place(counts, next, from, left, [white, black, kings], visit);
    }
    for s in from..=LAST[group] {
        let b = square_bit(s);
        if (white | black) & b != 0 {
            continue;
        }
        let k = if group % 2 == 1 { kings | b } else { kings };
        let pieces = if group < 2 {
            [white | b, black, k]
        } else {
            [white, black | b, k]
        };
        place(counts, group, s + 1, left - 1, pieces, visit);
    }
}

/// The answers expected for every `stride`-th placement of each material
/// (White to move, then Black), computed on two threads.
fn expected(
    materials: &[Material],
    stride: u64,
    expect: &(dyn Fn(&Position) -> i8 + Sync),
) -> Vec<i8> {
    let per_material: Vec<Vec<i8>> = std::thread::scope(|s| {
        let halves: Vec<_> = [0, 1]
            .map(|t| {
                s.spawn(move || {
                    materials
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % 2 == t)
                        .map(|(i, &m)| (i, answers_of(m, stride, expect)))
                        .collect::<Vec<_>>()
                })
            })
            .into_iter()
            .collect();
        let mut all: Vec<(usize, Vec<i8>)> =
            halves.into_iter().flat_map(|h| h.join().unwrap()).collect();
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, v)| v).collect()
    });
    per_material.concat()
}

fn answers_of(m: Material, stride: u64, expect: &(dyn Fn(&Position) -> i8 + Sync)) -> Vec<i8> {
    let mut out = Vec::new();
    let mut walked = 0u64;
    placements(m, &mut |white, black, kings| {
        if walked.is_multiple_of(stride) {
            for side in [Color::White, Color::Black] {
                let pos = Position::from_ghost_masks(side, white, black, kings).unwrap();
                out.push(expect(&pos));
            }
        }
        walked += 1;
    });
    out
}

fn wld_code(result: Result<Wdl, probe::ProbeError>) -> i8 {
    match result {
        Ok(Wdl::Win) => DTB_EGDB_WIN as i8,
        Ok(Wdl::Loss) => DTB_EGDB_LOSS as i8,
        Ok(Wdl::Draw) => DTB_EGDB_DRAW as i8,
        Err(_) => DTB_EGDB_UNKNOWN as i8,
    }
}

/// Runs a sweep program; returns the bytes it wrote and its stdout.
fn sweep(exe: &Path, args: &[&str], materials: &[Material]) -> (Vec<i8>, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let (head, tail) = args.split_at(3.min(args.len()));
    let run = Command::new(exe)
        .args(head)
        .arg(out.path())
        .args(tail)
        .args(materials.iter().map(|m| m.to_string()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success() && stdout.ends_with("ok\n"),
        "{exe:?} {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(out.path()).unwrap();
    (bytes.into_iter().map(|b| b as i8).collect(), stdout)
}

/// Compares a sweep's answers with the expected ones, naming the first
/// placements that differ.
fn compare(what: &str, got: &[i8], want: &[i8]) {
    assert_eq!(got.len(), want.len(), "{what}: answers");
    let wrong: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    assert!(
        wrong.is_empty(),
        "{what}: {} answers differ, first at {:?}: got {:?}, want {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)],
        wrong.iter().take(5).map(|&i| got[i]).collect::<Vec<_>>(),
        wrong.iter().take(5).map(|&i| want[i]).collect::<Vec<_>>(),
    );
}

/// Every "MATERIAL N" line names the table's full count of positions.
fn check_counts(stdout: &str, materials: &[Material]) {
    for m in materials {
        let line = format!("{m} {}", MaterialIndex::new(*m).count());
        assert!(stdout.lines().any(|l| l == line), "{line} in\n{stdout}");
    }
}

fn up_to_four() -> Vec<Material> {
    Material::all_up_to(4)
}

fn five_piece_sample() -> Vec<Material> {
    FIVE.iter()
        .map(|m| m.parse::<Material>().unwrap())
        .flat_map(|m| [m, m.mirrored()])
        .collect()
}

#[test]
fn c_and_cpp_lookups_agree_with_the_prober_everywhere_up_to_four_pieces() {
    let root = tables().to_str().unwrap().to_string();
    let materials = up_to_four();
    let c = program("capi/tests/c/egdb_sweep.c");
    let cpp = program("capi/tests/cpp/egdb_sweep.cpp");
    // The two programs at once (C on one thread, C++ on two).
    let (c_run, cpp_run) = std::thread::scope(|s| {
        let c_run = s.spawn(|| sweep(&c, &[&root, "", "1"], &materials));
        let cpp_run = sweep(&cpp, &[&root, "", "1", "2"], &materials);
        (c_run.join().unwrap(), cpp_run)
    });
    check_counts(&c_run.1, &materials);
    check_counts(&cpp_run.1, &materials);
    let tb = Tablebase::open(tables(), RuleSet::Pure).unwrap();
    let want = expected(&materials, 1, &|p| wld_code(tb.probe_wdl(p, None)));
    let answered = want
        .iter()
        .filter(|&&v| v != DTB_EGDB_UNKNOWN as i8)
        .count();
    assert_eq!(
        answered,
        want.len(),
        "every position up to four pieces answers"
    );
    compare("C, pure, up to four pieces", &c_run.0, &want);
    compare("C++, pure, up to four pieces", &cpp_run.0, &want);
    // The counters add up every thread's lookups.
    let counted = format!("requests {0} returns {0}", want.len());
    assert!(c_run.1.contains(&counted), "{counted} in {}", c_run.1);
    assert!(cpp_run.1.contains(&counted), "{counted} in {}", cpp_run.1);
}

#[test]
fn a_sample_of_five_pieces_agrees() {
    let root = tables().join("pure");
    let root = root.to_str().unwrap();
    let materials = five_piece_sample();
    let stride = FIVE_STRIDE.to_string();
    let (c_got, c_out) = sweep(
        &program("capi/tests/c/egdb_sweep.c"),
        &[root, "maxpieces=5", &stride],
        &materials,
    );
    let (cpp_got, _) = sweep(
        &program("capi/tests/cpp/egdb_sweep.cpp"),
        &[root, "", &stride, "2"],
        &materials,
    );
    check_counts(&c_out, &materials);
    let tb = Tablebase::open(tables(), RuleSet::Pure).unwrap();
    let want = expected(&materials, FIVE_STRIDE, &|p| {
        wld_code(tb.probe_wdl(p, None))
    });
    assert!(want.iter().all(|&v| v != DTB_EGDB_UNKNOWN as i8));
    compare("C, pure, five pieces", &c_got, &want);
    compare("C++, pure, five pieces", &cpp_got, &want);
}

#[test]
fn fmjd_values_with_rules_fmjd() {
    let materials = up_to_four();
    let tb = Tablebase::open(tables(), RuleSet::Fmjd).unwrap();
    let want = expected(&materials, 7, &|p| wld_code(tb.probe_wdl(p, None)));
    // The rule-set folder, and its parent with the option.
    let folder = tables().join("fmjd");
    let root = tables().to_str().unwrap();
    let c = program("capi/tests/c/egdb_sweep.c");
    let (got, _) = sweep(&c, &[folder.to_str().unwrap(), "", "7"], &materials);
    compare("C, fmjd folder", &got, &want);
    let (got, _) = sweep(&c, &[root, "rules=fmjd", "7"], &materials);
    compare("C, rules=fmjd", &got, &want);
}

#[test]
fn mtc_values_from_the_dtc_files() {
    let tb = Tablebase::open(tables(), RuleSet::Pure).unwrap();
    let root = tables().to_str().unwrap();
    let mut want = Vec::new();
    // Every 13th placement up to four pieces, every 61st of the five-piece
    // sample (ten times the positions of all the others together).
    for (materials, stride) in [(up_to_four(), 13), (five_piece_sample(), FIVE_STRIDE)] {
        let expect = expected(&materials, stride, &|p| {
            tb.probe_dtc(p)
                .map_or(DTB_EGDB_UNKNOWN as i8, |d| mtc_code(d) as i8)
        });
        let (got, _) = sweep(
            &program("capi/tests/c/egdb_sweep.c"),
            &[root, "db=mtc", &stride.to_string()],
            &materials,
        );
        compare(&format!("C, db=mtc, every {stride}th"), &got, &expect);
        want.extend(expect);
    }
    // Distances at and above the threshold occur, even values only.
    assert!(
        want.iter().any(|&v| v >= 10),
        "some MTC of 10 plies or more"
    );
    assert!(want.iter().all(|&v| v <= 1 || v % 2 == 0));
}

#[test]
fn bad_input_answers_unknown_and_is_told() {
    let exe = program("capi/tests/c/egdb_misuse.c");
    let run = Command::new(&exe).arg(tables()).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = "\
open_null_dir 0 told
open_bad_option 0 told
open_bad_number 0 told
open_missing_dir 0 told
open_rules_mismatch 0 told
open_mtc_without_dtc 0 told
identify_missing 1
identify_unchanged 1
identify_null 1
identify 0
identify_type 4
open 1 told
get_pieces 0
pieces 4 3 0 0
cl_fresh -1
cl_load 3
cl_cached 3
close_fresh 0
kings_draw 3
null_handle 0
made_up_handle 0
null_position 0 told
overlap 0 told
king_of_no_colour 0 told
white_man_crowning_row 0 told
black_man_crowning_row 0 told
ghost_bit 0 told
high_bit 0
bad_color 0 told
seven_pieces 0
five_pieces_over_maxpieces 0
no_black_pieces 1
no_black_pieces_black_to_move 2
empty_board 0
stats 13 3 2
stats_reset 0
verify 0 told
verify_aborted 1
close 0
lookup_closed 0
close_again 1
close_null 1
stats_closed 1
get_pieces_closed 1
verify_closed 1
ok
";
    for (got, want) in stdout.lines().zip(expected.lines()) {
        assert_eq!(got, want, "{stdout}");
    }
    assert_eq!(stdout, expected);
}

#[test]
fn the_cpp_example_reads_like_an_engine_and_agrees() {
    let exe = program("examples/cpp/egdb_example.cpp");
    let fens = [
        "W:WK46,K47,28:BK5",
        "B:WK46,K47,28:BK5",
        "W:W28:BK26",
        "W:WK1:BK50",
        "W:W31,32,33:B1,2,3",
    ];
    let stdout = run_engine_example(&exe, tables(), &fens);
    let tb = Tablebase::open(tables(), RuleSet::Pure).unwrap();
    for (fen, line) in fens.iter().zip(stdout.lines()) {
        let pos: Position = fen.parse().unwrap();
        let value = match tb.probe_wdl(&pos, None) {
            Ok(Wdl::Win) => "win",
            Ok(Wdl::Loss) => "loss",
            Ok(Wdl::Draw) => "draw",
            Err(_) => "unknown",
        };
        let mtc = tb.probe_dtc(&pos).map_or(0, mtc_code);
        assert_eq!(line, format!("{fen}\t{value}\tmtc={mtc}"));
    }
    assert!(stdout.contains("\twin\t"), "{stdout}");
    assert!(
        stdout.contains("\tunknown\t"),
        "six pieces are not built: {stdout}"
    );
}

/// A folder holding only fmjd tables: `egdb_identify` finds them, and
/// `egdb_open` without options opens them, as an engine that identifies
/// and then opens expects.
#[test]
fn identify_and_open_agree_on_an_fmjd_only_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(tables().join("fmjd"), dir.path().join("fmjd")).unwrap();
    let path = std::ffi::CString::new(dir.path().to_str().unwrap()).unwrap();
    let (mut kind, mut pieces) = (-1, -1);
    // SAFETY: NUL-terminated string, writable out-parameters.
    assert_eq!(
        unsafe { dtb::dtb_egdb_identify(path.as_ptr(), &mut kind, &mut pieces) },
        0
    );
    assert_eq!((kind, pieces), (dtb::DTB_EGDB_WLD_TUN_V2, 4));
    // SAFETY: NUL-terminated strings; no message function.
    let driver = unsafe { dtb::dtb_egdb_open(std::ptr::null(), 0, path.as_ptr(), None) };
    assert!(!driver.is_null());
    let mut max = 0;
    // SAFETY: an open driver; NULL out-pointers are skipped.
    let got = unsafe {
        dtb::dtb_egdb_get_pieces(
            driver,
            &mut max,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!((got, max), (0, 4));
    assert_eq!(dtb::dtb_egdb_close(driver), 0);
}

#[test]
fn header_constants_match_the_library() {
    let header = common::root().join("include/dtb_egdb.h");
    let text = std::fs::read_to_string(header).unwrap();
    let defines: HashMap<&str, i32> = text
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("#define DTB_EGDB_")?.split_whitespace();
            let name = words.next()?;
            let value = words.next()?.trim_matches(|c| c == '(' || c == ')');
            Some((name, value.parse().ok()?))
        })
        .collect();
    let library = [
        ("BLACK", dtb::DTB_EGDB_BLACK),
        ("WHITE", dtb::DTB_EGDB_WHITE),
        ("SUBDB_UNAVAILABLE", dtb::DTB_EGDB_SUBDB_UNAVAILABLE),
        ("NOT_IN_CACHE", dtb::DTB_EGDB_NOT_IN_CACHE),
        ("UNKNOWN", DTB_EGDB_UNKNOWN),
        ("WIN", DTB_EGDB_WIN),
        ("LOSS", DTB_EGDB_LOSS),
        ("DRAW", DTB_EGDB_DRAW),
        ("DRAW_OR_LOSS", dtb::DTB_EGDB_DRAW_OR_LOSS),
        ("WIN_OR_DRAW", dtb::DTB_EGDB_WIN_OR_DRAW),
        ("MTC_UNKNOWN", dtb::DTB_EGDB_MTC_UNKNOWN),
        (
            "MTC_LESS_THAN_THRESHOLD",
            dtb::DTB_EGDB_MTC_LESS_THAN_THRESHOLD,
        ),
        ("MTC_THRESHOLD", dtb::DTB_EGDB_MTC_THRESHOLD),
        ("WLD_RUNLEN", dtb::DTB_EGDB_WLD_RUNLEN),
        ("MTC_RUNLEN", dtb::DTB_EGDB_MTC_RUNLEN),
        ("WLD_HUFFMAN", dtb::DTB_EGDB_WLD_HUFFMAN),
        ("WLD_TUN_V1", dtb::DTB_EGDB_WLD_TUN_V1),
        ("WLD_TUN_V2", dtb::DTB_EGDB_WLD_TUN_V2),
    ];
    assert_eq!(defines.len(), library.len(), "{defines:?}");
    for (name, value) in library {
        assert_eq!(defines.get(name), Some(&value), "DTB_EGDB_{name}");
    }
    // The documented codes of Kingsrow's driver.
    assert_eq!(
        (DTB_EGDB_UNKNOWN, DTB_EGDB_WIN, DTB_EGDB_LOSS, DTB_EGDB_DRAW),
        (0, 1, 2, 3)
    );
    assert_eq!((dtb::DTB_EGDB_BLACK, dtb::DTB_EGDB_WHITE), (0, 1));
}

#[path = "../../tests/common/copy_dir.rs"]
mod copy_dir;

/// Kingsrow's example positions (FEN, value, pieces) with at most
/// `pieces` pieces.
fn kingsrow_examples(pieces: u32) -> Vec<(String, String)> {
    include_str!("../../tests/data/egdb_example_wld.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c[2].parse::<u32>().unwrap() <= pieces)
        .map(|c| (c[0].to_string(), c[1].to_string()))
        .collect()
}

/// The output of the engine example `exe` on the tables of `folder` for
/// `fens` (a line a position, then its counters), which must succeed.
fn run_engine_example(exe: &Path, folder: &Path, fens: &[&str]) -> String {
    let run = Command::new(exe).arg(folder).args(fens).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// Runs the engine example on `folder` over `examples`; each position
/// must answer Kingsrow's value.
fn engine_answers_kingsrows_values(folder: &Path, examples: &[(String, String)]) {
    assert!(!examples.is_empty());
    let exe = program("examples/cpp/egdb_example.cpp");
    let fens: Vec<&str> = examples.iter().map(|(fen, _)| fen.as_str()).collect();
    let stdout = run_engine_example(&exe, folder, &fens);
    let lines: Vec<&str> = stdout.lines().collect();
    for ((fen, value), line) in examples.iter().zip(&lines) {
        let got: Vec<&str> = line.split('\t').collect();
        assert_eq!((got[0], got[1]), (fen.as_str(), value.as_str()), "{line}");
    }
    assert!(lines.len() > examples.len(), "{stdout}");
}

/// An engine pointed at a folder that holds the pure tables themselves,
/// named as Kingsrow's database folder is (`wld_v2`), reads them: every
/// example position of Kingsrow's driver up to four pieces answers
/// Kingsrow's value.
#[test]
fn a_folder_of_tables_of_any_name_answers_kingsrows_examples() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("wld_v2");
    copy_dir::copy_dir(&tables().join("pure"), &folder);
    engine_answers_kingsrows_values(&folder, &kingsrow_examples(4));
    // The rule set comes from the tables' headers: asking for another is
    // an error, not an answer from the wrong tables.
    let c_folder = std::ffi::CString::new(folder.to_str().unwrap()).unwrap();
    let options = std::ffi::CString::new("rules=fmjd").unwrap();
    // SAFETY: both strings are NUL-terminated and live across the call;
    // no message function.
    let driver = unsafe { dtb::dtb_egdb_open(options.as_ptr(), 0, c_folder.as_ptr(), None) };
    assert!(
        driver.is_null(),
        "rules=fmjd opened a folder of pure tables"
    );
}

/// The same with every pure table up to five pieces (a five-piece build,
/// some minutes): every example position up to five pieces.
#[test]
#[ignore = "builds every pure table up to five pieces"]
fn a_folder_of_five_piece_tables_answers_kingsrows_examples() {
    let t = tempfile::tempdir().unwrap();
    let mut options = GenOptions::new(t.path(), RuleSet::Pure, 5);
    options.quiet = true;
    generate(&options).unwrap();
    let folder = t.path().join("wld_v2");
    std::fs::rename(t.path().join("pure"), &folder).unwrap();
    engine_answers_kingsrows_values(&folder, &kingsrow_examples(5));
}
