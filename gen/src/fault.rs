//! Deliberate solver faults, for tests only (cargo feature
//! `fault-injection`, which the `dtb` binary is never built with): a test
//! switches one on, builds, and checks that `verify` rejects what the
//! faulty solver wrote although every checksum in it is sound.

use std::sync::atomic::{AtomicU32, Ordering};

use format::{Material, Wdl};

/// The material whose crownings are misread, packed as in [`pack`]
/// (0: no fault).
static MISREAD_CROWNINGS: AtomicU32 = AtomicU32::new(0);

fn pack(m: Material) -> u32 {
    1 << 31
        | u32::from(m.white_men) << 24
        | u32::from(m.white_kings) << 16
        | u32::from(m.black_men) << 8
        | u32::from(m.black_kings)
}

/// From now on (until called with `None`), the slice solver misreads
/// every winning crowning of the side to move in `material`: it takes
/// the crowned position, lost for the opponent, as drawn. The misread
/// propagates through the slice as a real solver bug would, leaving
/// values consistent with each other but not with the moves.
pub fn misread_winning_crownings(material: Option<Material>) {
    MISREAD_CROWNINGS.store(material.map_or(0, pack), Ordering::SeqCst);
}

/// The crowning value the slice solver goes on with, for a crowning from
/// `material` whose crowned position is `wdl` for the opponent.
#[inline]
pub(crate) fn crowning_as_read(material: Material, wdl: Wdl) -> Wdl {
    if wdl == Wdl::Loss && MISREAD_CROWNINGS.load(Ordering::Relaxed) == pack(material) {
        Wdl::Draw
    } else {
        wdl
    }
}

/// The king-only limit of the 25-move rule while lowered by a test
/// (0: not lowered).
static KINGS_ONLY_LIMIT: AtomicU32 = AtomicU32::new(0);

/// From now on (until called with `None`), the solvers apply the 25-move
/// rule with `limit` king-only plies instead of 50 (at least 1), so that
/// the rule binds on small tables: a test compares them with a brute
/// force whose state holds the count. Tables built so are not FMJD tables.
pub fn lower_kings_only_limit(limit: Option<u32>) {
    KINGS_ONLY_LIMIT.store(limit.unwrap_or(0), Ordering::SeqCst);
}

/// The king-only limit in force: 50, or what a test lowered it to.
pub(crate) fn kings_only_limit() -> u32 {
    match KINGS_ONLY_LIMIT.load(Ordering::SeqCst) {
        0 => format::KINGS_ONLY_LIMIT,
        lowered => lowered.max(1),
    }
}

/// Whether a build stops before it compacts anything.
static STOP_BEFORE_COMPACTION: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// From now on (until called with `false`), a compacting build
/// (`GenOptions::compact`) fails where it would compact the pairs it
/// wrote, as a build killed there would stop: a test then runs it again
/// and checks that the resumed build compacts them.
pub fn stop_before_compaction(stop: bool) {
    STOP_BEFORE_COMPACTION.store(stop, Ordering::SeqCst);
}

/// The error a build stopped by [`stop_before_compaction`] returns, if
/// it is stopped.
pub(crate) fn compaction_stop(dir: &std::path::Path) -> Result<(), plan::GenError> {
    if STOP_BEFORE_COMPACTION.load(Ordering::SeqCst) {
        let stopped = std::io::Error::other("stopped before compaction (a test's fault switch)");
        return Err(plan::GenError::io(dir, stopped));
    }
    Ok(())
}
