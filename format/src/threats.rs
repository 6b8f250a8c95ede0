//! Threat positions a version-2 WLD table leaves "don't care" (header flag
//! [`crate::FLAG_THREATS_SEARCHED`]): the positions whose value a prober
//! finds by a one-ply search instead of reading it.
//!
//! A position is one when the side to move has no capture, the opponent
//! would have one if it were to move, and every move of the side to move
//! leads to a position where the opponent must capture or where the side
//! that moved could not capture. The search over its moves then meets only
//! positions that are stored or that are resolved by the capture search,
//! never another left-out threat, so it ends after one ply (plus the
//! capture search every prober already does).
//!
//! Such positions are common (a tenth to a third of a table) and their
//! values are scattered; leaving them out makes the runs around them
//! longer. `FORMAT.md`, "Version 2", gives the sizes.

use rules::{Color, Move, Position};

use crate::{table_position, Header, MaterialIndex};

/// Whether the side to move in `pos` would capture if it were `side`'s
/// move instead.
fn could_capture(pos: &Position, side: Color) -> bool {
    pos.with_side_to_move(side).has_capture()
}

/// Whether `pos` is a threat position that a version-2 WLD table with
/// [`crate::FLAG_THREATS_SEARCHED`] leaves "don't care" (see the module
/// docs). `moves` is scratch space for the position's moves.
pub fn is_searched_threat(pos: &Position, moves: &mut Vec<Move>) -> bool {
    let side = pos.side_to_move();
    if pos.has_capture() || !could_capture(pos, side.opponent()) {
        return false;
    }
    moves.clear();
    pos.generate_quiet_moves(moves);
    moves.iter().all(|mv| {
        let child = pos.play(mv);
        child.has_capture() || !could_capture(&child, side)
    })
}

/// Whether a one-ply search of `pos` (whose side to move has no capture)
/// would read more than two blocks of its mirror's table: the positions
/// its moves lead to that stand in `mirror` (moves that crown lead
/// elsewhere) and do not have to capture (the capture search reads the
/// smaller tables), and for a material that is its own mirror `pos`
/// itself, lie in more than two blocks of `unit` positions. A table with
/// [`crate::FLAG_SPREAD_STORED`] stores such positions instead of leaving
/// them to the search, so that a cold search reads at most two blocks of
/// the mirror's table. `moves` is scratch space.
pub fn search_spreads(
    pos: &Position,
    mirror: &MaterialIndex,
    unit: u64,
    moves: &mut Vec<Move>,
) -> bool {
    let mut blocks: [u64; 3] = [u64::MAX; 3];
    let mut seen = 0;
    let mut meet = |index: u64| {
        let block = index / unit;
        if blocks[..seen.min(3)].contains(&block) {
            return false;
        }
        if seen < 3 {
            blocks[seen] = block;
        }
        seen += 1;
        seen > 2
    };
    let (material, normal) = table_position(pos);
    if material == mirror.material() && meet(mirror.rank(&normal)) {
        return true;
    }
    moves.clear();
    pos.generate_quiet_moves(moves);
    moves.iter().any(|mv| {
        let child = pos.play(mv);
        if child.has_capture() {
            return false;
        }
        let (material, normal) = table_position(&child);
        material == mirror.material() && meet(mirror.rank(&normal))
    })
}

/// Which positions of a version-2 WLD table a prober finds by a one-ply
/// search rather than reads: the table's [`crate::FLAG_THREATS_SEARCHED`]
/// or [`crate::FLAG_QUIET_SEARCHED`], less what its
/// [`crate::FLAG_SPREAD_STORED`] keeps.
#[derive(Clone, Debug)]
pub struct SearchRule {
    /// Every position without a capture, not only the searched threats.
    quiet: bool,
    /// With spread positions stored: the mirror's index and the unit.
    spread: Option<(MaterialIndex, u64)>,
}

impl SearchRule {
    /// The rule of a table with header `header`; `None` where it leaves
    /// no position to the search by rule (a version-1 table, one that
    /// stores nothing).
    pub fn of(header: &Header) -> Option<SearchRule> {
        SearchRule::new(
            header.material,
            header.threats_searched,
            header.quiet_searched,
            header.spread_unit,
        )
    }

    /// The rule of a table of `material` searching its threats or its
    /// quiet positions, with spread ones stored where `spread_unit` says
    /// in what blocks they count; `None` where it searches neither.
    pub fn new(
        material: crate::Material,
        threats: bool,
        quiet: bool,
        spread_unit: Option<u32>,
    ) -> Option<SearchRule> {
        (threats || quiet).then(|| SearchRule {
            quiet,
            spread: spread_unit
                .map(|unit| (MaterialIndex::new(material.mirrored()), u64::from(unit))),
        })
    }

    /// Whether the table leaves `pos` (one of its positions) to a one-ply
    /// search; never a capture position (the capture search resolves
    /// those in every table). `moves` is scratch space.
    pub fn leaves(&self, pos: &Position, moves: &mut Vec<Move>) -> bool {
        let in_set = if self.quiet {
            !pos.has_capture()
        } else {
            is_searched_threat(pos, moves)
        };
        in_set
            && !self
                .spread
                .as_ref()
                .is_some_and(|(mirror, unit)| search_spreads(pos, mirror, *unit, moves))
    }

    /// Whether the table searches every position without a capture.
    pub fn searches_quiet(&self) -> bool {
        self.quiet
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threat(fen: &str) -> bool {
        let pos: Position = fen.parse().expect("FEN");
        is_searched_threat(&pos, &mut Vec::new())
    }

    #[test]
    fn a_capture_of_the_side_to_move_is_not_a_searched_threat() {
        // White's man on 28 takes 23 (the capture search resolves it).
        assert!(!threat("W:W28:B23"));
    }

    #[test]
    fn a_quiet_position_is_not_a_searched_threat() {
        assert!(!threat("W:W46:B5"));
    }

    #[test]
    fn the_predicate_follows_its_definition() {
        // Every placement of a small material: the predicate against the
        // definition written out with the move generator's full move list.
        let index = crate::MaterialIndex::new("KM-M".parse().expect("material"));
        let mut moves = Vec::new();
        let mut found = 0;
        for i in 0..index.count() {
            let pos = index.unrank(i);
            let opponent = pos.with_side_to_move(Color::Black);
            let expected = !pos.has_capture()
                && opponent.has_capture()
                && pos.legal_moves().iter().all(|mv| {
                    let child = pos.play(mv);
                    child.has_capture() || !child.with_side_to_move(Color::White).has_capture()
                });
            assert_eq!(is_searched_threat(&pos, &mut moves), expected, "{i}");
            found += u64::from(expected);
        }
        assert!(found > 0 && found < index.count());
    }

    /// The blocks of `unit` positions a search of `pos` reads in `mirror`,
    /// written out from the legal moves.
    fn blocks_read(pos: &Position, mirror: &MaterialIndex, unit: u64) -> usize {
        let mut blocks: Vec<u64> = pos
            .legal_moves()
            .iter()
            .map(|mv| pos.play(mv))
            .filter(|child| !child.has_capture())
            .map(|child| table_position(&child))
            .filter(|(m, _)| *m == mirror.material())
            .map(|(_, normal)| mirror.rank(&normal) / unit)
            .collect();
        let (m, normal) = table_position(pos);
        if m == mirror.material() {
            blocks.push(mirror.rank(&normal) / unit);
        }
        blocks.sort_unstable();
        blocks.dedup();
        blocks.len()
    }

    #[test]
    fn a_search_spreads_where_it_meets_more_than_two_blocks() {
        let mut moves = Vec::new();
        for (name, unit) in [("MM-K", 64), ("KM-M", 256), ("KM-KM", 4096), ("KK-M", 512)] {
            let material: crate::Material = name.parse().expect("material");
            let index = MaterialIndex::new(material);
            let mirror = MaterialIndex::new(material.mirrored());
            let (mut spread, mut quiet) = (0, 0);
            for i in 0..index.count() {
                let pos = index.unrank(i);
                if pos.has_capture() {
                    continue;
                }
                quiet += 1;
                let expected = blocks_read(&pos, &mirror, unit) > 2;
                assert_eq!(
                    search_spreads(&pos, &mirror, unit, &mut moves),
                    expected,
                    "{name} {i}"
                );
                spread += u64::from(expected);
            }
            assert!(spread > 0 && spread < quiet, "{name}: {spread} of {quiet}");
        }
    }

    #[test]
    fn a_rule_leaves_its_set_less_the_spread_positions() {
        let material: crate::Material = "MM-K".parse().expect("material");
        let index = MaterialIndex::new(material);
        let mirror = MaterialIndex::new(material.mirrored());
        let quiet = SearchRule::new(material, false, true, Some(64)).expect("a rule");
        let threats = SearchRule::new(material, true, false, None).expect("a rule");
        assert!(SearchRule::new(material, false, false, Some(64)).is_none());
        let mut moves = Vec::new();
        for i in 0..index.count() {
            let pos = index.unrank(i);
            let spreads = !pos.has_capture() && blocks_read(&pos, &mirror, 64) > 2;
            assert_eq!(
                quiet.leaves(&pos, &mut moves),
                !pos.has_capture() && !spreads
            );
            assert_eq!(
                threats.leaves(&pos, &mut moves),
                is_searched_threat(&pos, &mut moves)
            );
        }
    }
}
