//! The 25-move rule in the solvers (RULES.md, "The 25-move rule and the
//! tables").
//!
//! Outside the counted endings, under `fmjd` and `fmjd-diagonal`, a game
//! is drawn once 50 plies in a row have been played with only kings
//! moving. The tables hold values for a count just reset, which is where
//! every conversion (a capture or a man move) leaves it. Inside a slice
//! only kings move and every exit is a conversion, so the level at which
//! a position settles is its distance to conversion, the exits valued
//! with the rule already (their tables were built so). The winner can
//! force a conversion that keeps the result within `d` plies exactly when
//! the position settles at level `d`; so a position settled at a level
//! above the limit is drawn under the rule, and none settled at or below
//! it depends on one above. The solvers therefore stop propagating at the
//! limit: what has not settled by then is drawn.
//!
//! Where DTC bytes are kept, the solvers go on past the limit instead,
//! to record in the DTC byte of every position drawn by the rule the
//! level at which it would settle without it (its DTC at a fresh count,
//! above the limit), then store those positions as draws. The values
//! are the same (a position settled at or below the limit depends on
//! none settled above it); the DTC file's header counts them (see
//! `unit::table_writer::write_dtc_table`).

use format::{kings_only_rule_applies, Material, RuleSet};
use rules::CountedEnding;

/// The last level at which a position of a pair of class `class` may
/// settle under `rule_set`: the 25-move rule's 50 king-only plies where
/// it applies, `None` (no limit) elsewhere.
pub(crate) fn level_limit(rule_set: RuleSet, class: Option<CountedEnding>) -> Option<u32> {
    kings_only_rule_applies(rule_set, class).then(limit_in_force)
}

/// Whether a one-ply search over the tables gives every value of
/// `material`'s pair as stored, the pair's solve having settled its
/// deepest position at level `deepest` (`None`: not known).
///
/// The tables hold values at a count just reset, and a search reads its
/// children at that count too; but a king move (the only move that is not
/// a conversion) leaves its child one ply into the count. That child's
/// value is the one stored unless its distance to conversion is the
/// limit itself (a result the rule lets through at a fresh count and
/// draws one ply later); a draw stays a draw. So where no position of
/// the pair settled at the limit or past it, every child of a king move
/// has the value the search reads, and the search gives the value the
/// solver stored. Where the rule does not apply (`pure`), always.
pub(crate) fn search_is_exact(rule_set: RuleSet, material: Material, deepest: Option<u32>) -> bool {
    match level_limit(rule_set, material.counted_ending()) {
        None => true,
        Some(limit) => deepest.is_some_and(|d| d < limit),
    }
}

/// The last level a solver propagates to, for the rule's `limit`: none
/// where DTC bytes are kept (`keeps_dtc`), so that the positions drawn by
/// the rule get their DTC at a fresh count; the limit otherwise.
pub(crate) fn propagation_bound(limit: Option<u32>, keeps_dtc: bool) -> Option<u32> {
    if keeps_dtc {
        None
    } else {
        limit
    }
}

/// Whether a position settling at `level` is past `limit`.
#[inline]
pub(crate) fn past(limit: Option<u32>, level: u32) -> bool {
    limit.is_some_and(|limit| level > limit)
}

#[cfg(feature = "fault-injection")]
fn limit_in_force() -> u32 {
    crate::fault::kings_only_limit()
}

#[cfg(not(feature = "fault-injection"))]
fn limit_in_force() -> u32 {
    format::KINGS_ONLY_LIMIT
}
