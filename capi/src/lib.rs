//! The C interface of the draughts-tb prober: `libdtb` (`include/dtb.h`).
//!
//! Every function catches Rust panics at the boundary (a panic becomes
//! `DTB_ERR_INTERNAL`), checks its pointers, and reports failures as a
//! status code plus a message readable with `dtb_last_error()` on the
//! calling thread. One `dtb_tablebase` may be shared by all threads.
//!
//! Handles are not pointers: `dtb_open` registers the tablebase under a
//! number never used before and returns that number disguised as a
//! pointer; every call looks it up in the registry (and never dereferences
//! it), so a closed or made-up handle is an error, not a crash.
#![warn(missing_docs)]
#![allow(clippy::missing_safety_doc)] // the contract of each function is in include/dtb.h

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use probe::{
    answer, Answer, DrawCounts, ProbeError, RuleSet, Storage, Tablebase, TablebaseOptions, Wdl,
};
use rules::{Color, Position};

mod egdb;
mod last_error;
mod registry;

pub use egdb::*;
use last_error::set_error;
use registry::{RecentHandle, Registry};

/// Success.
pub const DTB_OK: c_int = 0;
/// A null pointer, an unknown rule set or side, a bad plies-left value.
pub const DTB_ERR_BAD_ARGUMENT: c_int = -1;
/// The position cannot stand on a board or cannot be answered.
pub const DTB_ERR_INVALID_POSITION: c_int = -2;
/// A table the answer needs is missing.
pub const DTB_ERR_MISSING_TABLE: c_int = -3;
/// A table is damaged or of another rule set.
pub const DTB_ERR_CORRUPTED_TABLE: c_int = -4;
/// `dtb_probe_wdl_if_cached`: the answer needs data not in memory.
pub const DTB_ERR_NOT_CACHED: c_int = -5;
/// An I/O error.
pub const DTB_ERR_IO: c_int = -6;
/// More pieces than any table holds.
pub const DTB_ERR_TOO_MANY_PIECES: c_int = -7;
/// A bug: a Rust panic caught at the boundary.
pub const DTB_ERR_INTERNAL: c_int = -8;

/// Plies-left value meaning "the counted ending was just entered".
pub const DTB_PLIES_FRESH: c_int = -1;

/// Rule set without move limits: the header code of [`RuleSet::Pure`].
pub const DTB_RULES_PURE: c_int = RuleSet::Pure.code() as c_int;
/// FMJD rules (16- and 5-move limits): the header code of [`RuleSet::Fmjd`].
pub const DTB_RULES_FMJD: c_int = RuleSet::Fmjd.code() as c_int;
/// FMJD rules plus the long-diagonal limit: the header code of
/// [`RuleSet::FmjdDiagonal`].
pub const DTB_RULES_FMJD_DIAGONAL: c_int = RuleSet::FmjdDiagonal.code() as c_int;
/// `dtb_open_with`: tables memory-mapped (as `dtb_open` does).
pub const DTB_STORAGE_MAPPED: c_int = 0;
/// `dtb_open_with`: tables read with positioned reads, never mapped.
pub const DTB_STORAGE_PREAD: c_int = 1;

/// What a `dtb_tablebase *` handle names (opaque to C). Never instantiated:
/// a handle is a registry number with the type of a pointer to this.
pub struct DtbTablebase {
    _opaque: [u8; 0],
}

thread_local! {
    static RECENT_TABLEBASE: RefCell<RecentHandle<Tablebase>> = const { RefCell::new(None) };
}

/// The open tablebases by handle number.
static TABLEBASES: Registry<Tablebase> = Registry::new(&RECENT_TABLEBASE);

const UNKNOWN_HANDLE: &str = "closed or unknown tablebase handle";

/// Registers `tb` under a fresh handle.
fn register(tb: Tablebase) -> *mut DtbTablebase {
    std::ptr::without_provenance_mut(TABLEBASES.register(tb))
}

/// Runs `f` on the tablebase of a handle; `DTB_ERR_BAD_ARGUMENT` for NULL
/// and for a closed or unknown handle. Only the handle's address is read.
fn with_tablebase<R>(tb: *const DtbTablebase, f: impl FnOnce(&Tablebase) -> R) -> Result<R, c_int> {
    if tb.is_null() {
        return Err(fail(DTB_ERR_BAD_ARGUMENT, "tablebase is NULL"));
    }
    TABLEBASES
        .with(tb.addr(), f)
        .ok_or_else(|| fail(DTB_ERR_BAD_ARGUMENT, UNKNOWN_HANDLE))
}

/// Removes a handle from the registry; its tablebase is freed when no
/// running call and no thread's cached handle holds it any more.
fn unregister(tb: *mut DtbTablebase) -> Option<Arc<Tablebase>> {
    TABLEBASES.unregister(tb.addr())
}

fn fail(code: c_int, msg: &str) -> c_int {
    set_error(msg);
    code
}

fn probe_error(e: &ProbeError) -> c_int {
    let code = match e {
        ProbeError::MissingTable { .. } | ProbeError::MissingDirectory { .. } => {
            DTB_ERR_MISSING_TABLE
        }
        ProbeError::Corrupted { .. }
        | ProbeError::RuleSetMismatch { .. }
        | ProbeError::WrongMaterial { .. } => DTB_ERR_CORRUPTED_TABLE,
        ProbeError::TooManyPieces { .. } => DTB_ERR_TOO_MANY_PIECES,
        ProbeError::InvalidPosition(_) => DTB_ERR_INVALID_POSITION,
        ProbeError::BadPliesLeft { .. } | ProbeError::BadKingsOnlyPlies { .. } => {
            DTB_ERR_BAD_ARGUMENT
        }
        ProbeError::Io { .. } => DTB_ERR_IO,
        // A kind of error added to the prober and not mapped here yet: a
        // bug of this library, reported as one, with its message.
        _ => DTB_ERR_INTERNAL,
    };
    fail(code, &e.to_string())
}

/// Runs `f`, turning a panic into `DTB_ERR_INTERNAL`.
fn guard(f: impl FnOnce() -> c_int) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(code) => code,
        Err(_) => fail(DTB_ERR_INTERNAL, "internal error (a bug in draughts-tb)"),
    }
}

fn wdl_int(w: Wdl) -> c_int {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

fn plies_arg(plies_left: c_int) -> Result<Option<u8>, c_int> {
    match plies_left {
        DTB_PLIES_FRESH => Ok(None),
        0..=255 => Ok(Some(plies_left as u8)),
        _ => Err(fail(
            DTB_ERR_BAD_ARGUMENT,
            "plies_left must be -1 (fresh) or 0..=32",
        )),
    }
}

/// Both draw counts from the C arguments (the prober checks the ranges it
/// knows: plies left in the ending, king-only plies 0-49).
fn counts_arg(plies_left: c_int, kings_only_plies: c_int) -> Result<DrawCounts, c_int> {
    let plies_left = plies_arg(plies_left)?;
    match u8::try_from(kings_only_plies) {
        Ok(n) => Ok(DrawCounts::new(plies_left, n)),
        Err(_) => Err(fail(
            DTB_ERR_BAD_ARGUMENT,
            "kings_only_plies must be 0..=49",
        )),
    }
}

fn position(white: u64, black: u64, kings: u64, side: c_int) -> Result<Position, c_int> {
    let side = match side {
        0 => Color::White,
        1 => Color::Black,
        _ => {
            return Err(fail(
                DTB_ERR_BAD_ARGUMENT,
                "side_to_move must be 0 (White) or 1 (Black)",
            ))
        }
    };
    Position::from_dense_masks(side, white, black, kings)
        .map_err(|e| fail(DTB_ERR_INVALID_POSITION, &e.to_string()))
}

unsafe fn fen_position(fen: *const c_char) -> Result<Position, c_int> {
    if fen.is_null() {
        return Err(fail(DTB_ERR_BAD_ARGUMENT, "fen is NULL"));
    }
    // SAFETY: the caller passes a NUL-terminated string (header contract).
    let text = unsafe { CStr::from_ptr(fen) };
    let text = text
        .to_str()
        .map_err(|_| fail(DTB_ERR_INVALID_POSITION, "fen is not UTF-8"))?;
    text.parse::<Position>()
        .map_err(|e| fail(DTB_ERR_INVALID_POSITION, &format!("bad FEN: {e}")))
}

/// Runs `f` on the tablebase and the position given as masks, inside the
/// panic guard.
unsafe fn with_masks(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    f: impl FnOnce(&Tablebase, &Position) -> c_int,
) -> c_int {
    guard(|| {
        let p = match position(white, black, kings, side_to_move) {
            Ok(p) => p,
            Err(c) => return c,
        };
        with_tablebase(tb, |tb| f(tb, &p)).unwrap_or_else(|c| c)
    })
}

/// Runs `f` on the tablebase and the position given as FEN text, inside
/// the panic guard.
unsafe fn with_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    f: impl FnOnce(&Tablebase, &Position) -> c_int,
) -> c_int {
    guard(|| {
        // SAFETY: forwarded caller contract (see `fen_position`).
        let p = match unsafe { fen_position(fen) } {
            Ok(p) => p,
            Err(c) => return c,
        };
        with_tablebase(tb, |tb| f(tb, &p)).unwrap_or_else(|c| c)
    })
}

/// Opens the tables of `rules` (a `DTB_RULES_*` code: the file header's
/// [`RuleSet::code`]) under `dir`, memory-mapped. NULL on error (see
/// `dtb_last_error`).
#[no_mangle]
pub unsafe extern "C" fn dtb_open(
    dir: *const c_char,
    rules: c_int,
    cache_bytes: u64,
) -> *mut DtbTablebase {
    // SAFETY: forwarded caller contract.
    unsafe { dtb_open_with(dir, rules, cache_bytes, DTB_STORAGE_MAPPED) }
}

/// `dtb_open` with the way files are read: `DTB_STORAGE_MAPPED` or
/// `DTB_STORAGE_PREAD` (positioned reads, see [`Storage`]).
#[no_mangle]
pub unsafe extern "C" fn dtb_open_with(
    dir: *const c_char,
    rules: c_int,
    cache_bytes: u64,
    storage: c_int,
) -> *mut DtbTablebase {
    let result = catch_unwind(AssertUnwindSafe(|| {
        if dir.is_null() {
            set_error("dir is NULL");
            return std::ptr::null_mut();
        }
        // SAFETY: NUL-terminated string (header contract).
        let dir = unsafe { CStr::from_ptr(dir) };
        let Ok(dir) = dir.to_str() else {
            set_error("dir is not UTF-8");
            return std::ptr::null_mut();
        };
        let Some(rule_set) = u8::try_from(rules).ok().and_then(RuleSet::from_code) else {
            set_error(&format!(
                "rules must be DTB_RULES_PURE ({DTB_RULES_PURE}), DTB_RULES_FMJD \
                 ({DTB_RULES_FMJD}) or DTB_RULES_FMJD_DIAGONAL ({DTB_RULES_FMJD_DIAGONAL})"
            ));
            return std::ptr::null_mut();
        };
        let storage = match storage {
            DTB_STORAGE_MAPPED => Storage::Mapped,
            DTB_STORAGE_PREAD => Storage::PositionedReads,
            _ => {
                set_error(&format!(
                    "storage must be DTB_STORAGE_MAPPED ({DTB_STORAGE_MAPPED}) or \
                     DTB_STORAGE_PREAD ({DTB_STORAGE_PREAD})"
                ));
                return std::ptr::null_mut();
            }
        };
        let options = match cache_bytes {
            0 => TablebaseOptions::default(),
            bytes => TablebaseOptions::with_cache_bytes(bytes),
        }
        .with_storage(storage);
        match Tablebase::open_with(dir, rule_set, options) {
            Ok(tb) => register(tb),
            Err(e) => {
                set_error(&e.to_string());
                std::ptr::null_mut()
            }
        }
    }));
    result.unwrap_or_else(|_| {
        set_error("internal error (a bug in draughts-tb)");
        std::ptr::null_mut()
    })
}

/// Closes a tablebase opened by `dtb_open`: `DTB_OK` (also for NULL), or
/// `DTB_ERR_BAD_ARGUMENT` for a handle already closed or never opened.
#[no_mangle]
pub extern "C" fn dtb_close(tb: *mut DtbTablebase) -> c_int {
    if tb.is_null() {
        return DTB_OK;
    }
    guard(|| match unregister(tb) {
        Some(tablebase) => {
            drop(tablebase);
            DTB_OK
        }
        None => fail(DTB_ERR_BAD_ARGUMENT, UNKNOWN_HANDLE),
    })
}

unsafe fn out<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-null output pointers point to writable storage
        // (header contract).
        unsafe { ptr.write(value) };
    }
}

fn wdl_call(
    tb: &Tablebase,
    pos: &Position,
    (plies_left, kings_only_plies): (c_int, c_int),
    cached_only: bool,
    wdl: *mut c_int,
) -> c_int {
    if wdl.is_null() {
        return fail(DTB_ERR_BAD_ARGUMENT, "wdl is NULL");
    }
    let counts = match counts_arg(plies_left, kings_only_plies) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = if cached_only {
        match tb.probe_wdl_if_cached(pos, counts.plies_left) {
            Ok(Some(w)) => Ok(w),
            Ok(None) => return fail(DTB_ERR_NOT_CACHED, "not in memory"),
            Err(e) => Err(e),
        }
    } else {
        tb.probe_wdl_with(pos, counts)
    };
    match result {
        // SAFETY: checked non-null above.
        Ok(w) => unsafe {
            out(wdl, wdl_int(w));
            DTB_OK
        },
        Err(e) => probe_error(&e),
    }
}

/// Win (1), draw (0) or loss (-1) for the side to move.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_wdl(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    plies_left: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            wdl_call(tb, p, (plies_left, 0), false, wdl)
        })
    }
}

/// `dtb_probe_wdl` for a position in PDN.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_wdl_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    plies_left: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_fen(tb, fen, |tb, p| {
            wdl_call(tb, p, (plies_left, 0), false, wdl)
        })
    }
}

/// `dtb_probe_wdl` with the king-only plies of the 25-move rule (0-49).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dtb_probe_wdl_kings_only(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    plies_left: c_int,
    kings_only_plies: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            wdl_call(tb, p, (plies_left, kings_only_plies), false, wdl)
        })
    }
}

/// `dtb_probe_wdl_kings_only` for a position in PDN.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_wdl_kings_only_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    plies_left: c_int,
    kings_only_plies: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_fen(tb, fen, |tb, p| {
            wdl_call(tb, p, (plies_left, kings_only_plies), false, wdl)
        })
    }
}

/// Like `dtb_probe_wdl`, answering only from memory already decoded;
/// `DTB_ERR_NOT_CACHED` otherwise.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_wdl_if_cached(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    plies_left: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            wdl_call(tb, p, (plies_left, 0), true, wdl)
        })
    }
}

fn distance_call(tb: &Tablebase, pos: &Position, wdl: *mut c_int, plies: *mut c_int) -> c_int {
    match tb.probe(pos) {
        // SAFETY: `out` ignores null pointers; others are writable.
        Ok(v) => unsafe {
            out(wdl, wdl_int(v.wdl));
            out(plies, v.distance.map_or(-1, c_int::from));
            DTB_OK
        },
        Err(e) => probe_error(&e),
    }
}

/// The stored result and distance: for the counted endings the result holds
/// with at least `plies` plies left; `plies` is -1 where the table keeps no
/// distance or for draws.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_distance(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            distance_call(tb, p, wdl, plies)
        })
    }
}

/// `dtb_probe_distance` for a position in PDN.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_distance_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe { with_fen(tb, fen, |tb, p| distance_call(tb, p, wdl, plies)) }
}

fn dtc_call(tb: &Tablebase, pos: &Position, dtc: *mut c_int) -> c_int {
    match tb.probe_dtc(pos) {
        // SAFETY: `out` ignores null pointers; others are writable.
        Ok(d) => unsafe {
            out(dtc, d.map_or(-1, |d| d as c_int));
            DTB_OK
        },
        Err(e) => probe_error(&e),
    }
}

/// The distance to conversion in plies (-1 for a draw), from the `.dtc`
/// files `dtb gen --dtc` writes.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_dtc(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    dtc: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            dtc_call(tb, p, dtc)
        })
    }
}

/// `dtb_probe_dtc` for a position in PDN.
#[no_mangle]
pub unsafe extern "C" fn dtb_probe_dtc_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    dtc: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe { with_fen(tb, fen, |tb, p| dtc_call(tb, p, dtc)) }
}

#[allow(clippy::too_many_arguments)]
fn best_move_call(
    tb: &Tablebase,
    pos: &Position,
    (plies_left, kings_only_plies): (c_int, c_int),
    buf: *mut c_char,
    buf_len: usize,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    if buf.is_null() || buf_len == 0 {
        return fail(DTB_ERR_BAD_ARGUMENT, "move buffer is NULL or empty");
    }
    let counts = match counts_arg(plies_left, kings_only_plies) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match tb.best_move_with(pos, counts) {
        Ok(Some(m)) => {
            let text = pos.move_to_pdn(&m.mv);
            if text.len() + 1 > buf_len {
                return fail(
                    DTB_ERR_BAD_ARGUMENT,
                    "move buffer too small (64 bytes always suffice)",
                );
            }
            // SAFETY: buf has buf_len writable bytes and text.len() + 1 <=
            // buf_len; the source is a valid Rust string.
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, text.len());
                *buf.add(text.len()) = 0;
                out(wdl, wdl_int(m.wdl));
                out(plies, m.plies.map_or(-1, |x| x as c_int));
            }
            DTB_OK
        }
        Ok(None) => fail(
            DTB_ERR_INVALID_POSITION,
            "no legal move: the side to move has lost",
        ),
        Err(e) => probe_error(&e),
    }
}

/// A best move in PDN (NUL-terminated, into `buf` of `buf_len` bytes), with
/// the result it leads to for the side to move and its distance (-1: none).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dtb_best_move(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    plies_left: c_int,
    buf: *mut c_char,
    buf_len: usize,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            best_move_call(tb, p, (plies_left, 0), buf, buf_len, wdl, plies)
        })
    }
}

/// `dtb_best_move` for a position in PDN.
#[no_mangle]
pub unsafe extern "C" fn dtb_best_move_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    plies_left: c_int,
    buf: *mut c_char,
    buf_len: usize,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_fen(tb, fen, |tb, p| {
            best_move_call(tb, p, (plies_left, 0), buf, buf_len, wdl, plies)
        })
    }
}

/// `dtb_best_move_fen` with the king-only plies of the 25-move rule (0-49):
/// the best move never lets a win slip under the rule.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dtb_best_move_kings_only_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    plies_left: c_int,
    kings_only_plies: c_int,
    buf: *mut c_char,
    buf_len: usize,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_fen(tb, fen, |tb, p| {
            best_move_call(
                tb,
                p,
                (plies_left, kings_only_plies),
                buf,
                buf_len,
                wdl,
                plies,
            )
        })
    }
}

/// The largest N such that every table of up to N pieces is present (0 if
/// none; -1 on a NULL, closed or unknown handle).
#[no_mangle]
pub extern "C" fn dtb_max_pieces(tb: *const DtbTablebase) -> c_int {
    let code =
        guard(|| with_tablebase(tb, |t| t.max_pieces_available() as c_int).unwrap_or_else(|c| c));
    code.max(-1)
}

/// The message of the last failed call on this thread ("" if none). Valid
/// until the next dtb call on this thread.
#[no_mangle]
pub extern "C" fn dtb_last_error() -> *const c_char {
    last_error::message()
}

/// The library version, e.g. "0.2.0" (static storage).
#[no_mangle]
pub extern "C" fn dtb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}

/// Installs the prober's SIGBUS guard (see `probe::install_sigbus_guard`):
/// a process-wide SIGBUS handler that turns a table file cut short by
/// another process in the middle of a read into an error instead of the
/// end of the process. The library never installs it by itself. Returns 1
/// when the guard was installed (now or before), 0 where it could not be
/// (not Linux, or `sigaction` refused).
#[no_mangle]
pub extern "C" fn dtb_install_sigbus_guard() -> c_int {
    guard(|| {
        probe::install_sigbus_guard();
        c_int::from(probe::sigbus_guard_installed())
    })
}

// Every root move's value (`dtb_move_values`): every legal move of a
// position with its value and distances, into the caller's array, as an
// engine filters its root moves. The answer is the one `dtb probe --json`
// lists (`probe::answer`).

/// Bytes of [`DtbMoveValue::text`]: the longest move in PDN and its NUL.
pub const DTB_MOVE_BUFFER: usize = 64;

/// The version of the C interface (`DTB_ABI_VERSION` in `dtb.h`).
pub const DTB_ABI_VERSION: c_int = 3;

/// Entries that always hold every legal move (`DTB_MAX_MOVES`).
pub const DTB_MAX_MOVES: usize = 256;

/// The version of the C interface this library offers.
#[no_mangle]
pub extern "C" fn dtb_abi_version() -> c_int {
    DTB_ABI_VERSION
}

/// The draw counts of a position (`dtb_counts` in `dtb.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DtbCounts {
    /// Plies left on the 16- or 5-move count, or `DTB_PLIES_FRESH` (-1).
    pub plies_left: c_int,
    /// Plies played in a row with only kings moving (0-49).
    pub kings_only_plies: c_int,
}

/// One legal move with what it leads to (`dtb_move_value` in `dtb.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DtbMoveValue {
    /// The move in PDN, NUL-terminated.
    pub text: [c_char; DTB_MOVE_BUFFER],
    /// The result it leads to for the side to move: 1, 0 or -1.
    pub wdl: c_int,
    /// Distance to conversion through it in plies, -1 where none.
    pub dtc: c_int,
    /// Plies the 16- or 5-move count must have left, -1 where none.
    pub counted_threshold: c_int,
    /// Under `pure`, plies until the lone-king endings are left with the
    /// result settled, -1 where none.
    pub lone_king_plies: c_int,
    /// Plies left on the count after it, -1 where no count runs.
    pub plies_left_after: c_int,
    /// King-only plies after it, -1 where the 25-move rule does not apply.
    pub kings_only_plies_after: c_int,
}

/// Every legal move of the position (white, black, kings masks and side
/// to move), best first, into `moves` (`capacity` entries; NULL with
/// capacity 0 for the count only); `*count` the number of legal moves.
///
/// # Safety
/// As `include/dtb.h` says: `moves` points to `capacity` writable entries
/// (or is NULL with `capacity` 0), `count` is writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dtb_move_values(
    tb: *const DtbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    side_to_move: c_int,
    counts: DtbCounts,
    moves: *mut DtbMoveValue,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_masks(tb, white, black, kings, side_to_move, |tb, p| {
            move_values_call(tb, p, counts, moves, capacity, count)
        })
    }
}

/// `dtb_move_values` for a position in PDN.
///
/// # Safety
/// As for [`dtb_move_values`], and `fen` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn dtb_move_values_fen(
    tb: *const DtbTablebase,
    fen: *const c_char,
    counts: DtbCounts,
    moves: *mut DtbMoveValue,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    // SAFETY: forwarded caller contract (include/dtb.h).
    unsafe {
        with_fen(tb, fen, |tb, p| {
            move_values_call(tb, p, counts, moves, capacity, count)
        })
    }
}

/// The body of both forms: the answer, checked against the buffer, then
/// written into it.
fn move_values_call(
    tb: &Tablebase,
    pos: &Position,
    counts: DtbCounts,
    moves: *mut DtbMoveValue,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    if count.is_null() {
        return fail(DTB_ERR_BAD_ARGUMENT, "count is NULL");
    }
    if moves.is_null() && capacity > 0 {
        return fail(DTB_ERR_BAD_ARGUMENT, "moves is NULL but capacity is not 0");
    }
    let counts = match counts_arg(counts.plies_left, counts.kings_only_plies) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let a = match answer(tb, pos, counts) {
        Ok(a) => a,
        Err(e) => return probe_error(&e),
    };
    // SAFETY: count is not NULL and writable (caller contract).
    unsafe { *count = a.moves.len() };
    if moves.is_null() {
        // The count only.
        return DTB_OK;
    }
    if a.moves.len() > capacity {
        return fail(
            DTB_ERR_BAD_ARGUMENT,
            &format!(
                "the position has {} legal moves, the array holds {capacity} (DTB_MAX_MOVES always suffices)",
                a.moves.len()
            ),
        );
    }
    for (i, m) in entries(&a).into_iter().enumerate() {
        // SAFETY: i < a.moves.len() <= capacity, and moves points to
        // capacity writable entries (caller contract).
        unsafe { moves.add(i).write(m) };
    }
    DTB_OK
}

/// The C entries of an answer's moves, in its order (best first).
fn entries(a: &Answer) -> Vec<DtbMoveValue> {
    let int = |x: Option<u32>| x.map_or(-1, |v| v as c_int);
    a.moves
        .iter()
        .map(|m| {
            let mut text = [0 as c_char; DTB_MOVE_BUFFER];
            for (t, b) in text.iter_mut().zip(m.pdn.bytes().take(DTB_MOVE_BUFFER - 1)) {
                *t = b as c_char;
            }
            DtbMoveValue {
                text,
                wdl: wdl_int(m.value.wdl),
                dtc: int(m.distances.dtc),
                counted_threshold: int(m.distances.counted_threshold),
                lone_king_plies: int(m.distances.lone_king_plies),
                plies_left_after: m.value.plies_left_after.map_or(-1, c_int::from),
                kings_only_plies_after: int(m.kings_only_plies_after),
            }
        })
        .collect()
}
