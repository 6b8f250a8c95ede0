//! The C interface reads compacted tables (format version 2, and one side
//! of each pair left to a search: `dtb compact --one-side`) as it reads
//! plain ones: every position of every table up to 3 pieces, under fmjd,
//! answers alike through `dtb_probe_wdl_fen` from both folders.

use std::ffi::{c_int, CStr, CString};
use std::path::Path;

use dtb::*;
use format::{MaterialIndex, RuleSet};
use gen::{compact, generate, GenOptions, Sides};

fn open(dir: &Path) -> *mut DtbTablebase {
    let dir = CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: `dir` is a NUL-terminated string that outlives the call.
    let tb = unsafe { dtb_open(dir.as_ptr(), DTB_RULES_FMJD, 0) };
    assert!(!tb.is_null(), "{}", {
        // SAFETY: a NUL-terminated string valid until the next call here.
        unsafe { CStr::from_ptr(dtb_last_error()) }.to_string_lossy()
    });
    tb
}

/// The status and the result of `dtb_probe_wdl_fen` on `fen`.
fn probe(tb: *const DtbTablebase, fen: &CStr) -> (c_int, c_int) {
    let mut wdl = 9;
    // SAFETY: `fen` is NUL-terminated and `wdl` writable; `tb` is open.
    let status = unsafe { dtb_probe_wdl_fen(tb, fen.as_ptr(), DTB_PLIES_FRESH, &mut wdl) };
    (status, wdl)
}

#[path = "../../tests/common/copy_dir.rs"]
mod copy_dir;
use copy_dir::copy_dir;

#[test]
fn compacted_tables_answer_through_c_as_plain_ones() {
    let plain = tempfile::tempdir().unwrap();
    generate(&GenOptions::new(plain.path(), RuleSet::Fmjd, 3)).unwrap();
    let a = open(plain.path());
    let mut left_out = 0;
    for sides in [Sides::Both, Sides::SMALLER_ONLY] {
        let small = tempfile::tempdir().unwrap();
        copy_dir(plain.path(), small.path());
        let done = compact(small.path(), RuleSet::Fmjd, sides).unwrap();
        left_out += done
            .iter()
            .filter(|t| matches!(t.outcome, gen::Compaction::LeftOut { .. }))
            .count();
        let b = open(small.path());
        let folder = format::table_dir(small.path(), RuleSet::Fmjd);
        for m in format::list_tables(&folder).unwrap() {
            let index = MaterialIndex::new(m);
            for i in 0..index.count() {
                let fen = CString::new(index.unrank(i).to_string()).unwrap();
                let answer = probe(b, &fen);
                assert_eq!(answer.0, DTB_OK, "{m} {fen:?}");
                assert_eq!(probe(a, &fen), answer, "{sides:?} {m} {fen:?}");
            }
        }
        assert_eq!(dtb_close(b), DTB_OK);
    }
    assert!(left_out > 0, "some tables were left to the search");
    assert_eq!(dtb_close(a), DTB_OK);
}
