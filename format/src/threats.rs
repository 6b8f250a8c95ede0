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
}
