//! `dtb_move_values`: every legal move of a position with its value and
//! distances, into the caller's array, as an engine filters its root
//! moves. The answer is the one `dtb probe --json` lists (`probe::answer`).

use std::os::raw::{c_char, c_int};

use probe::{answer, Answer, Tablebase};
use rules::Position;

use crate::{counts_arg, fail, probe_error, wdl_int, with_fen, with_masks, DtbTablebase};
use crate::{DTB_ERR_BAD_ARGUMENT, DTB_OK};

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
