//! What the draw counter means for a table: the one place that says how
//! the 16-move and 5-move limits turn into stored values and back.
//!
//! Inside a counted ending (see [`rules::CountedEnding`]) the value of a
//! position depends on `r`, the plies left on the counter. With more plies
//! a side can only do better, so one number per position decides it: the
//! **distance**, the smallest `r` at which the result is forced. With
//! `r >= distance` the position is won (lost); with fewer plies it is
//! drawn. A stored draw is drawn for every `r`.
//!
//! Moves pass the counter on as follows (`r` before the move):
//! * a move that stays in the counted endings: `r - 1`, except that a
//!   capture from a 16-move into a 5-move ending gives `min(r - 1, 10)`;
//! * a move into a counted ending from outside (a capture or a crowning
//!   that creates it): the count starts afresh, 32 or 10 plies;
//! * a move out of the counted endings: no count any more, the value of
//!   the position reached is settled.
//!
//! Under `fmjd-diagonal`, a 16-move position whose lone king is the only
//! piece on the long diagonal plays on with `min(r, 10)`; its stored
//! distance already includes that cap.
//!
//! Under `pure` nothing is capped and the distance is a plain count of
//! plies inside the lone-king endings.

use rules::{lone_king_alone_on_long_diagonal, CountedEnding, Move, Position};

use crate::material::Material;
use crate::value::{DistanceValue, RuleSet, ValueKind, Wdl};

/// The value of a position as its table states it: a result, and for
/// distance tables the distance in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableValue {
    /// The result (with enough plies left, for counted endings).
    pub wdl: Wdl,
    /// The distance for distance tables (`None` for WLD tables and draws).
    pub distance: Option<u8>,
}

impl TableValue {
    /// A draw.
    pub const DRAW: TableValue = TableValue {
        wdl: Wdl::Draw,
        distance: None,
    };

    /// The value of a stored distance byte.
    pub fn from_distance(v: DistanceValue) -> TableValue {
        match v.wdl {
            Wdl::Draw => TableValue::DRAW,
            wdl => TableValue {
                wdl,
                distance: Some(v.plies),
            },
        }
    }

    /// The result with `plies_left` on the counter of a counted ending
    /// (`None`: freshly entered). Outside counted endings, and under
    /// `pure`, the counter does not matter.
    pub fn wdl_with(
        self,
        rule_set: RuleSet,
        class: Option<CountedEnding>,
        plies_left: Option<u8>,
    ) -> Wdl {
        match (rule_set.has_move_limits(), class, self.distance) {
            (true, Some(c), Some(d)) => {
                if plies_left.unwrap_or(c.plies()).min(c.plies()) >= d {
                    self.wdl
                } else {
                    Wdl::Draw
                }
            }
            _ => self.wdl,
        }
    }
}

/// What a table stores for a material under a rule set: distances for the
/// lone-king endings of the counted classes, WLD for everything else.
pub fn value_kind(material: Material, _rule_set: RuleSet) -> ValueKind {
    if material.counted_ending().is_some() {
        ValueKind::Distance
    } else {
        ValueKind::Wdl
    }
}

/// A child's value as the parent that moves into it needs it: the result,
/// and the plies the parent must have left after its own move for the
/// result to hold (0 when settled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChildView {
    /// The result for the side to move in the child.
    pub wdl: Wdl,
    /// Plies the parent needs left after its move (ignored for draws).
    pub plies: u32,
}

impl ChildView {
    /// A draw.
    pub const DRAW: ChildView = ChildView {
        wdl: Wdl::Draw,
        plies: 0,
    };

    /// A child with no legal move (or no pieces): lost for the side to
    /// move, settled.
    pub const LOST: ChildView = ChildView {
        wdl: Wdl::Loss,
        plies: 0,
    };
}

/// How the counter passes from a parent in `parent` class to a child of
/// material `child` whose table value is `value`.
pub fn child_view(
    rule_set: RuleSet,
    parent: Option<CountedEnding>,
    child: Material,
    value: TableValue,
) -> ChildView {
    child_view_in(rule_set, parent, child.counted_ending(), value)
}

/// [`child_view`] for a child whose material is in class `child` (its
/// [`Material::counted_ending`]), for a caller that knows it already.
#[inline]
pub fn child_view_in(
    rule_set: RuleSet,
    parent: Option<CountedEnding>,
    child: Option<CountedEnding>,
    value: TableValue,
) -> ChildView {
    if value.wdl == Wdl::Draw {
        return ChildView::DRAW;
    }
    let settled = ChildView {
        wdl: value.wdl,
        plies: 0,
    };
    let Some(child_class) = child else {
        return settled;
    };
    let distance = value.distance.unwrap_or(0) as u32;
    match (rule_set.has_move_limits(), parent) {
        // Pure: entering from outside settles; inside, plies add up.
        (false, None) => settled,
        (false, Some(_)) => ChildView {
            wdl: value.wdl,
            plies: distance,
        },
        // A fresh count: the child's result holds if its distance fits.
        (true, None) => {
            if distance <= child_class.plies() as u32 {
                settled
            } else {
                ChildView::DRAW
            }
        }
        (true, Some(parent_class)) => {
            let cap = if parent_class == CountedEnding::SixteenMove
                && child_class == CountedEnding::FiveMove
            {
                CountedEnding::FiveMove.plies() as u32
            } else {
                parent_class.plies() as u32
            };
            if distance <= cap {
                ChildView {
                    wdl: value.wdl,
                    plies: distance,
                }
            } else {
                ChildView::DRAW
            }
        }
    }
}

/// The most plies that can be left on the counter in `pos` (its material
/// in `class`), or `None` when no count applies.
pub fn plies_cap(rule_set: RuleSet, class: Option<CountedEnding>, pos: &Position) -> Option<u32> {
    let class = class?;
    if !rule_set.has_move_limits() {
        return None;
    }
    if rule_set == RuleSet::FmjdDiagonal && lone_king_alone_on_long_diagonal(pos) {
        return Some(CountedEnding::FiveMove.plies() as u32);
    }
    Some(class.plies() as u32)
}

/// The plies the counter allows from `pos` (of class `class`) when
/// `plies_left` are left on it (`None`: the ending was just entered), with
/// the position's own cap applied (the long-diagonal cap of
/// `fmjd-diagonal`); `None` when no count runs.
pub fn plies_available(
    rule_set: RuleSet,
    class: Option<CountedEnding>,
    pos: &Position,
    plies_left: Option<u8>,
) -> Option<u32> {
    let cap = plies_cap(rule_set, class, pos)?;
    Some(plies_left.map_or(cap, |r| u32::from(r).min(cap)))
}

/// What one move is worth to the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveOutcome {
    /// The result for the side that plays the move.
    pub wdl: Wdl,
    /// Plies to the result through this move, in the counted endings
    /// (`None` for draws and outside the counted endings).
    pub plies: Option<u32>,
}

/// The value of a move from `pos` (of class `class`, `plies_left` on the
/// counter before the move) into a child seen as `child` (see
/// [`child_view`]): the move keeps the child's result only if the counter,
/// capped as [`plies_available`] says, still holds the plies the result
/// needs after the move. This is the one rule for how a move passes the
/// count on. [`value_from_children`] computes the same from the stored
/// side (the distance a position needs, before any counter applies): a
/// move holds with `r` plies left exactly when `r` reaches the child's
/// distance plus one, which is what this function checks.
pub fn move_outcome(
    rule_set: RuleSet,
    class: Option<CountedEnding>,
    pos: &Position,
    plies_left: Option<u8>,
    child: ChildView,
) -> MoveOutcome {
    const DRAWN: MoveOutcome = MoveOutcome {
        wdl: Wdl::Draw,
        plies: None,
    };
    if child.wdl == Wdl::Draw {
        return DRAWN;
    }
    let needed = child.plies + 1;
    if plies_available(rule_set, class, pos, plies_left).is_some_and(|r| r < needed) {
        return DRAWN;
    }
    MoveOutcome {
        wdl: child.wdl.flipped(),
        plies: class.is_some().then_some(needed),
    }
}

/// The plies left on the counter in the position reached by a move from
/// `parent` (of class `parent_class`, `plies_left` before the move) to
/// `child`: one fewer inside the counted endings, at most 10 after a
/// capture from a 16-move into a 5-move ending (and the long-diagonal cap
/// of the parent), a fresh count when the move enters the counted endings,
/// `None` when no count runs in the child (outside them, or under `pure`).
pub fn plies_left_after(
    rule_set: RuleSet,
    parent_class: Option<CountedEnding>,
    parent: &Position,
    plies_left: Option<u8>,
    child: &Position,
) -> Option<u8> {
    let child_class = Material::of(child).counted_ending()?;
    if !rule_set.has_move_limits() {
        return None;
    }
    let fresh = u32::from(child_class.plies());
    let after = match plies_available(rule_set, parent_class, parent, plies_left) {
        Some(r) => r.saturating_sub(1).min(fresh),
        None => fresh,
    };
    Some(after as u8)
}

/// The value of a position (of class `class`) from the views of all its
/// children, one per legal move: won in `1 + min` plies if some child is
/// lost, lost in `1 + max` if every child is won (in 0 with no move at
/// all), else drawn; then the counter's cap of the position applies.
pub fn value_from_children(
    rule_set: RuleSet,
    class: Option<CountedEnding>,
    pos: &Position,
    children: impl IntoIterator<Item = ChildView>,
) -> TableValue {
    let mut best_win: Option<u32> = None;
    let mut worst_loss: Option<u32> = Some(0);
    let mut any = false;
    for c in children {
        any = true;
        match c.wdl {
            Wdl::Loss => best_win = Some(best_win.map_or(c.plies, |b| b.min(c.plies))),
            Wdl::Win => worst_loss = worst_loss.map(|w| w.max(c.plies)),
            Wdl::Draw => worst_loss = None,
        }
    }
    let (wdl, plies) = match (best_win, worst_loss) {
        (Some(w), _) => (Wdl::Win, w + 1),
        (None, Some(l)) => (Wdl::Loss, if any { l + 1 } else { 0 }),
        (None, None) => return TableValue::DRAW,
    };
    finish_value(rule_set, class, pos, wdl, plies)
}

/// A position's value from its result and distance: drawn when the
/// distance exceeds what the counter can hold there; WLD outside the
/// distance tables.
pub fn finish_value(
    rule_set: RuleSet,
    class: Option<CountedEnding>,
    pos: &Position,
    wdl: Wdl,
    plies: u32,
) -> TableValue {
    if class.is_none() {
        return TableValue {
            wdl,
            distance: None,
        };
    }
    if let Some(cap) = plies_cap(rule_set, class, pos) {
        if plies > cap {
            return TableValue::DRAW;
        }
    }
    TableValue {
        wdl,
        distance: Some(plies.min(DistanceValue::MAX_PLIES as u32) as u8),
    }
}

/// The 25-move rule: the game is drawn once 50 plies in a row (25 moves by
/// each side) have been played with only kings moving, no capture and no
/// man move.
pub const KINGS_ONLY_LIMIT: u32 = 50;

/// The king-only plies played after `mv` from `pos`, where `played` had
/// been played before it: one more after a king move that captures
/// nothing, none after a capture or a man move (a conversion). The one
/// rule for how a move passes the 25-move count on.
pub fn kings_only_plies_after(pos: &Position, mv: &Move, played: u32) -> u32 {
    if pos.is_conversion(mv) {
        0
    } else {
        played + 1
    }
}

/// Whether the 25-move count can change a result in a position of class
/// `class`: under `fmjd` and `fmjd-diagonal` outside the counted endings.
/// Inside them the 16- or 5-move count binds first: the ending begins
/// after a capture or a crowning (no king-only plies yet), and 32 or 10
/// plies are fewer than 50. `pure` has no draw limit.
pub fn kings_only_rule_applies(rule_set: RuleSet, class: Option<CountedEnding>) -> bool {
    rule_set.has_move_limits() && class.is_none()
}

/// Whether a decided result with distance to conversion `dtc` holds when
/// `played` king-only plies have been played already: the conversion must
/// come by the 50th king-only ply (its `dtc - 1` king plies before it end
/// at `played + dtc - 1 <= 49`). A position whose game is over (`dtc` 0)
/// keeps its result even at 50. Use it where
/// [`kings_only_rule_applies`].
pub fn holds_under_kings_only_rule(played: u32, dtc: u32) -> bool {
    played + dtc <= KINGS_ONLY_LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str) -> Material {
        name.parse().unwrap()
    }

    #[test]
    fn the_25_move_count_and_its_boundary() {
        let pos: Position = "W:WK46,31:BK5,K10".parse().unwrap();
        let moves = pos.legal_moves();
        let king = moves.iter().find(|mv| mv.from().number() == 46).unwrap();
        let man = moves.iter().find(|mv| mv.from().number() == 31).unwrap();
        assert_eq!(kings_only_plies_after(&pos, king, 7), 8);
        assert_eq!(kings_only_plies_after(&pos, man, 7), 0);
        assert!(holds_under_kings_only_rule(45, 5));
        assert!(!holds_under_kings_only_rule(46, 5));
        assert!(holds_under_kings_only_rule(50, 0));
        let counted = CountedEnding::of(m("KKM-K").counts());
        assert!(kings_only_rule_applies(RuleSet::Fmjd, None));
        assert!(kings_only_rule_applies(RuleSet::FmjdDiagonal, None));
        assert!(!kings_only_rule_applies(RuleSet::Pure, None));
        assert!(!kings_only_rule_applies(RuleSet::Fmjd, counted));
    }

    #[test]
    fn counter_transitions() {
        let win = |d| TableValue {
            wdl: Wdl::Win,
            distance: Some(d),
        };
        let sixteen = Some(CountedEnding::SixteenMove);
        // 16 -> 5 by a capture: the 5-move child must fit in 10 plies.
        assert_eq!(
            child_view(RuleSet::Fmjd, sixteen, m("KK-K"), win(9)).plies,
            9
        );
        assert_eq!(
            child_view(RuleSet::Fmjd, sixteen, m("KK-K"), win(11)),
            ChildView::DRAW
        );
        // Fresh entry from outside.
        let v = child_view(RuleSet::Fmjd, None, m("KKK-K"), win(31));
        assert_eq!((v.wdl, v.plies), (Wdl::Win, 0));
        // Pure: distances add inside, settle from outside.
        assert_eq!(
            child_view(RuleSet::Pure, sixteen, m("KK-K"), win(11)).plies,
            11
        );
        assert_eq!(child_view(RuleSet::Pure, None, m("KK-K"), win(11)).plies, 0);
        // Leaving the counted endings settles.
        let wld = TableValue {
            wdl: Wdl::Loss,
            distance: None,
        };
        assert_eq!(
            child_view(RuleSet::Fmjd, sixteen, m("MM-K"), wld),
            ChildView::LOST
        );
    }

    #[test]
    fn plies_left_decides() {
        let v = TableValue {
            wdl: Wdl::Win,
            distance: Some(7),
        };
        let five = Some(CountedEnding::FiveMove);
        assert_eq!(v.wdl_with(RuleSet::Fmjd, five, Some(7)), Wdl::Win);
        assert_eq!(v.wdl_with(RuleSet::Fmjd, five, Some(6)), Wdl::Draw);
        assert_eq!(v.wdl_with(RuleSet::Fmjd, five, None), Wdl::Win);
        assert_eq!(v.wdl_with(RuleSet::Pure, five, Some(0)), Wdl::Win);
    }
}
