//! The 25-move rule as the check applies it (RULES.md, "The 25-move rule
//! and the tables"): outside the counted endings, under `fmjd` and
//! `fmjd-diagonal`, a position whose conversion the winner cannot force
//! within 50 king-only plies is drawn. Written here from the rule book,
//! not taken from the solvers.

use format::{kings_only_rule_applies, RuleSet};
use rules::CountedEnding;

/// The most king-only plies a win may take to its conversion in a pair
/// of class `class` under `rule_set`: the rule's 50 where it applies,
/// `None` (no limit) elsewhere.
pub(crate) fn level_limit(rule_set: RuleSet, class: Option<CountedEnding>) -> Option<u32> {
    kings_only_rule_applies(rule_set, class).then(limit_in_force)
}

#[cfg(feature = "fault-injection")]
fn limit_in_force() -> u32 {
    crate::fault::kings_only_limit()
}

#[cfg(not(feature = "fault-injection"))]
fn limit_in_force() -> u32 {
    format::KINGS_ONLY_LIMIT
}
