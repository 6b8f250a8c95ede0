//! The C interface from Rust: the constants of `include/dtb.h` against the
//! library's, rule-set codes against the file header's, and handles that
//! were closed or never opened.

use std::collections::BTreeMap;
use std::ffi::{c_int, CStr, CString};
use std::path::Path;

use dtb::*;
use format::RuleSet;
use gen::{generate, GenOptions};

/// Every `#define DTB_NAME number` of the header.
fn header_defines() -> BTreeMap<String, i64> {
    let header = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include/dtb.h");
    let text = std::fs::read_to_string(header).unwrap();
    text.lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("#define ")?.split_whitespace();
            let name = words.next()?;
            let value = words.next()?.trim_matches(|c| c == '(' || c == ')');
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

#[test]
fn header_rule_sets_are_the_file_header_codes() {
    let defines = header_defines();
    let rules: Vec<(&String, &i64)> = defines
        .iter()
        .filter(|(name, _)| name.starts_with("DTB_RULES_"))
        .collect();
    assert_eq!(rules.len(), 3, "one DTB_RULES_* per rule set: {rules:?}");
    for (name, &value) in rules {
        let rule_name = name["DTB_RULES_".len()..].to_lowercase().replace('_', "-");
        let rule_set: RuleSet = rule_name.parse().unwrap();
        assert_eq!(value, i64::from(rule_set.code()), "{name}");
    }
}

#[test]
fn header_constants_match_the_library() {
    let defines = header_defines();
    let library = [
        ("DTB_OK", DTB_OK),
        ("DTB_ERR_BAD_ARGUMENT", DTB_ERR_BAD_ARGUMENT),
        ("DTB_ERR_INVALID_POSITION", DTB_ERR_INVALID_POSITION),
        ("DTB_ERR_MISSING_TABLE", DTB_ERR_MISSING_TABLE),
        ("DTB_ERR_CORRUPTED_TABLE", DTB_ERR_CORRUPTED_TABLE),
        ("DTB_ERR_NOT_CACHED", DTB_ERR_NOT_CACHED),
        ("DTB_ERR_IO", DTB_ERR_IO),
        ("DTB_ERR_TOO_MANY_PIECES", DTB_ERR_TOO_MANY_PIECES),
        ("DTB_ERR_INTERNAL", DTB_ERR_INTERNAL),
        ("DTB_PLIES_FRESH", DTB_PLIES_FRESH),
        ("DTB_RULES_PURE", DTB_RULES_PURE),
        ("DTB_RULES_FMJD", DTB_RULES_FMJD),
        ("DTB_RULES_FMJD_DIAGONAL", DTB_RULES_FMJD_DIAGONAL),
        ("DTB_ABI_VERSION", DTB_ABI_VERSION),
        ("DTB_MAX_MOVES", DTB_MAX_MOVES as c_int),
        ("DTB_MOVE_BUFFER", DTB_MOVE_BUFFER as c_int),
    ];
    for (name, value) in library {
        assert_eq!(defines.get(name), Some(&i64::from(value)), "{name}");
    }
}

fn open(dir: &Path, rules: c_int) -> *mut DtbTablebase {
    let dir = CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: `dir` is a NUL-terminated string that outlives the call.
    let tb = unsafe { dtb_open(dir.as_ptr(), rules, 0) };
    assert!(!tb.is_null(), "{}", last_error());
    tb
}

fn last_error() -> String {
    // SAFETY: dtb_last_error returns a NUL-terminated string valid until
    // the next call on this thread; it is copied at once.
    unsafe { CStr::from_ptr(dtb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `dtb_probe_wdl_fen` of the king-against-king position: the status.
fn probe_kk(tb: *const DtbTablebase) -> c_int {
    let fen = c"W:WK1:BK50";
    let mut wdl = 9;
    // SAFETY: `fen` is NUL-terminated and `wdl` writable; the handle may be
    // anything (it is only looked up).
    unsafe { dtb_probe_wdl_fen(tb, fen.as_ptr(), DTB_PLIES_FRESH, &mut wdl) }
}

/// Every table of up to two pieces under `rule_set`.
fn two_pieces(rule_set: RuleSet) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    generate(&GenOptions::new(dir.path(), rule_set, 2)).unwrap();
    dir
}

#[test]
fn each_rule_code_opens_the_tables_of_that_rule_set() {
    for rule_set in [RuleSet::Pure, RuleSet::Fmjd, RuleSet::FmjdDiagonal] {
        let dir = two_pieces(rule_set);
        for code in [DTB_RULES_PURE, DTB_RULES_FMJD, DTB_RULES_FMJD_DIAGONAL] {
            if code == c_int::from(rule_set.code()) {
                let tb = open(dir.path(), code);
                assert_eq!(probe_kk(tb), DTB_OK, "{rule_set} tables, code {code}");
                assert_eq!(dtb_close(tb), DTB_OK);
            } else {
                // No folder of that rule set: opening fails and says so.
                let path = CString::new(dir.path().to_str().unwrap()).unwrap();
                // SAFETY: `path` is a NUL-terminated string.
                assert!(unsafe { dtb_open(path.as_ptr(), code, 0) }.is_null());
                assert!(last_error().contains("tables"), "{}", last_error());
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(dir.path().to_str().unwrap()).unwrap();
    for bad in [-1, 3, 256] {
        // SAFETY: `path` is a NUL-terminated string.
        assert!(unsafe { dtb_open(path.as_ptr(), bad, 0) }.is_null());
        assert!(
            last_error().contains("DTB_RULES_PURE (0)"),
            "{}",
            last_error()
        );
    }
    // The storage modes: both answer; anything else is refused.
    let dir = two_pieces(RuleSet::Fmjd);
    let path = CString::new(dir.path().to_str().unwrap()).unwrap();
    for storage in [DTB_STORAGE_MAPPED, DTB_STORAGE_PREAD] {
        // SAFETY: `path` is a NUL-terminated string.
        let tb = unsafe { dtb_open_with(path.as_ptr(), DTB_RULES_FMJD, 0, storage) };
        assert!(!tb.is_null(), "{}", last_error());
        assert_eq!(probe_kk(tb), DTB_OK, "storage {storage}");
        assert_eq!(dtb_close(tb), DTB_OK);
    }
    for bad in [-1, 2] {
        // SAFETY: `path` is a NUL-terminated string.
        let tb = unsafe { dtb_open_with(path.as_ptr(), DTB_RULES_FMJD, 0, bad) };
        assert!(tb.is_null());
        assert!(
            last_error().contains("DTB_STORAGE_PREAD (1)"),
            "{}",
            last_error()
        );
    }
}

#[test]
fn closed_and_unknown_handles_are_errors() {
    let dir = two_pieces(RuleSet::Fmjd);
    let tb = open(dir.path(), DTB_RULES_FMJD);
    assert_eq!(probe_kk(tb), DTB_OK);
    assert_eq!(dtb_max_pieces(tb), 2);
    assert_eq!(dtb_close(tb), DTB_OK);

    assert_eq!(probe_kk(tb), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(last_error(), "closed or unknown tablebase handle");
    assert_eq!(dtb_max_pieces(tb), -1);
    assert_eq!(dtb_close(tb), DTB_ERR_BAD_ARGUMENT, "double close");
    assert_eq!(last_error(), "closed or unknown tablebase handle");

    // A handle is never handed out twice: the closed one stays closed.
    let again = open(dir.path(), DTB_RULES_FMJD);
    assert_ne!(again, tb);
    assert_eq!(probe_kk(tb), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(probe_kk(again), DTB_OK);
    assert_eq!(dtb_close(again), DTB_OK);

    let made_up = std::ptr::without_provenance_mut::<DtbTablebase>(0xdead_bee0);
    assert_eq!(probe_kk(made_up), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(dtb_close(made_up), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(dtb_close(std::ptr::null_mut()), DTB_OK);
    assert_eq!(probe_kk(std::ptr::null()), DTB_ERR_BAD_ARGUMENT);
}

#[test]
fn closing_while_other_threads_probe_is_safe() {
    let dir = two_pieces(RuleSet::Fmjd);
    let tb = open(dir.path(), DTB_RULES_FMJD).addr();
    let (started, wait) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let started = started.clone();
                s.spawn(move || {
                    let tb = std::ptr::without_provenance::<DtbTablebase>(tb);
                    let mut codes = vec![probe_kk(tb)];
                    started.send(()).unwrap();
                    while *codes.last().unwrap() == DTB_OK {
                        codes.push(probe_kk(tb));
                    }
                    codes
                })
            })
            .collect();
        for _ in 0..4 {
            wait.recv().unwrap();
        }
        assert_eq!(dtb_close(std::ptr::without_provenance_mut(tb)), DTB_OK);
        for worker in workers {
            let codes = worker.join().unwrap();
            // Probes succeed until the close, then fail cleanly.
            assert_eq!(codes.first(), Some(&DTB_OK));
            assert_eq!(codes.last(), Some(&DTB_ERR_BAD_ARGUMENT));
        }
    });
}

/// Each thread keeps the handle it used last (so that a probe writes no
/// memory shared with other threads): a handle closed by another thread
/// must still be refused at the next call, and two handles used in turn
/// on one thread each answer from their own tables.
#[test]
fn a_handle_cached_by_a_thread_is_refused_once_closed_elsewhere() {
    let fmjd = two_pieces(RuleSet::Fmjd);
    let pure = tempfile::tempdir().unwrap();
    generate(&GenOptions::new(pure.path(), RuleSet::Pure, 3)).unwrap();
    let a = open(fmjd.path(), DTB_RULES_FMJD) as usize;
    let b = open(pure.path(), DTB_RULES_PURE) as usize;
    let (to_worker, from_main) = std::sync::mpsc::channel::<()>();
    let (to_main, from_worker) = std::sync::mpsc::channel::<c_int>();
    let worker = std::thread::spawn(move || {
        let a = a as *const DtbTablebase;
        let b = b as *const DtbTablebase;
        to_main.send(probe_kk(a)).unwrap(); // caches `a`
        from_main.recv().unwrap(); // `a` is closed meanwhile
        to_main.send(probe_kk(a)).unwrap();
        to_main.send(probe_kk(b)).unwrap();
        to_main.send(probe_kk(a)).unwrap();
    });
    assert_eq!(from_worker.recv().unwrap(), DTB_OK);
    assert_eq!(dtb_close(a as *mut DtbTablebase), DTB_OK);
    to_worker.send(()).unwrap();
    assert_eq!(from_worker.recv().unwrap(), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(from_worker.recv().unwrap(), DTB_OK);
    assert_eq!(from_worker.recv().unwrap(), DTB_ERR_BAD_ARGUMENT);
    worker.join().unwrap();
    // Handles used in turn on one thread: each answers from its own folder
    // (two pieces under fmjd, three under pure).
    let c = open(fmjd.path(), DTB_RULES_FMJD);
    let b = b as *mut DtbTablebase;
    for _ in 0..3 {
        assert_eq!(probe_kk(c), DTB_OK);
        assert_eq!(dtb_max_pieces(c), 2);
        assert_eq!(probe_kk(b), DTB_OK);
        assert_eq!(dtb_max_pieces(b), 3);
    }
    assert_eq!(dtb_close(b), DTB_OK);
    assert_eq!(probe_kk(b), DTB_ERR_BAD_ARGUMENT);
    assert_eq!(probe_kk(c), DTB_OK);
    assert_eq!(dtb_close(c), DTB_OK);
}

/// `dtb_move_values_fen` of `fen` with `capacity` entries (NULL for none)
/// and the given counts: the status, the count written and the message.
fn move_values(
    tb: *const DtbTablebase,
    fen: &CStr,
    counts: DtbCounts,
    capacity: Option<usize>,
    count: bool,
) -> (c_int, usize, String) {
    let mut moves = vec![
        DtbMoveValue {
            text: [0; DTB_MOVE_BUFFER],
            wdl: 9,
            dtc: 9,
            counted_threshold: 9,
            lone_king_plies: 9,
            plies_left_after: 9,
            kings_only_plies_after: 9,
        };
        capacity.unwrap_or(0)
    ];
    let mut n = usize::MAX;
    let (ptr, cap) = match capacity {
        Some(c) => (moves.as_mut_ptr(), c),
        None => (std::ptr::null_mut(), 0),
    };
    let count_ptr = if count {
        &mut n as *mut usize
    } else {
        std::ptr::null_mut()
    };
    // SAFETY: `fen` is NUL-terminated; `ptr` is NULL or `cap` writable
    // entries; `count_ptr` is NULL or writable; the handle is only looked up.
    let status = unsafe { dtb_move_values_fen(tb, fen.as_ptr(), counts, ptr, cap, count_ptr) };
    (status, n, last_error())
}

/// Misuse of `dtb_move_values` is an error code with a message, never a
/// crash: no count pointer, an array pointer missing, counts out of range,
/// a bad position, a closed handle.
#[test]
fn move_values_refuse_misuse() {
    let dir = two_pieces(RuleSet::Fmjd);
    let tb = open(dir.path(), DTB_RULES_FMJD);
    let fresh = DtbCounts {
        plies_left: DTB_PLIES_FRESH,
        kings_only_plies: 0,
    };
    let kk = c"W:WK1:BK50";
    let legal = "W:WK1:BK50"
        .parse::<rules::Position>()
        .unwrap()
        .legal_moves()
        .len();
    let (status, n, _) = move_values(tb, kk, fresh, Some(DTB_MAX_MOVES), true);
    assert_eq!((status, n), (DTB_OK, legal));
    let (status, _, message) = move_values(tb, kk, fresh, Some(4), false);
    assert_eq!(status, DTB_ERR_BAD_ARGUMENT);
    assert!(message.contains("count is NULL"), "{message}");
    let (status, n, _) = move_values(tb, kk, fresh, None, true);
    assert_eq!((status, n), (DTB_OK, legal), "the count only");
    let bad_counts = DtbCounts {
        plies_left: 200,
        kings_only_plies: 0,
    };
    let (status, _, message) = move_values(tb, kk, bad_counts, Some(4), true);
    assert_eq!(status, DTB_ERR_BAD_ARGUMENT, "{message}");
    let bad_rule = DtbCounts {
        plies_left: DTB_PLIES_FRESH,
        kings_only_plies: 50,
    };
    let (status, _, message) = move_values(tb, kk, bad_rule, Some(4), true);
    assert_eq!(status, DTB_ERR_BAD_ARGUMENT, "{message}");
    let (status, _, message) = move_values(tb, c"W:W0:B", fresh, Some(4), true);
    assert_eq!(status, DTB_ERR_INVALID_POSITION, "{message}");
    // SAFETY: a NULL array with a capacity is refused before any write.
    let status = unsafe {
        let mut n = 0usize;
        dtb_move_values_fen(tb, kk.as_ptr(), fresh, std::ptr::null_mut(), 4, &mut n)
    };
    assert_eq!(status, DTB_ERR_BAD_ARGUMENT, "a NULL array with a capacity");
    assert_eq!(dtb_close(tb), DTB_OK);
    let (status, _, message) = move_values(tb, kk, fresh, Some(4), true);
    assert_eq!(status, DTB_ERR_BAD_ARGUMENT);
    assert!(message.contains("closed or unknown"), "{message}");
}
