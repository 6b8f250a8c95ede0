//! A lowered 25-move limit, for tests only (cargo feature
//! `fault-injection`, which the `dtb` binary is never built with): a test
//! that builds tables with the solvers' limit lowered
//! (`gen::fault::lower_kings_only_limit`) lowers the check's too, so that
//! the check judges them by the rule they were built with.

use std::sync::atomic::{AtomicU32, Ordering};

/// The king-only limit of the 25-move rule while lowered by a test
/// (0: not lowered).
static KINGS_ONLY_LIMIT: AtomicU32 = AtomicU32::new(0);

/// From now on (until called with `None`), the check applies the 25-move
/// rule with `limit` king-only plies instead of 50 (at least 1).
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
