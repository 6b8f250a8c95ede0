//! The FMJD counted endings: the 16-move and 5-move limits of lone-king
//! endings, and the long-diagonal variant.
//!
//! One side has a lone king and the other three pieces including a king:
//! drawn after 16 more moves each (32 plies). One side has a lone king and
//! the other at most two pieces including a king: 5 more moves each (10
//! plies). The count starts after the move that created the ending; a win
//! completed on the last counted ply still counts. A capture that takes a
//! 16-move ending into a 5-move one keeps the earlier deadline:
//! plies left = min(plies left, 10). A crowning inside a class does not
//! restart the count.

use crate::board::LONG_DIAGONAL;
use crate::position::{Color, PieceCounts, Position};

/// A class of endings with a move limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CountedEnding {
    /// Lone king against two pieces or fewer including a king: 5 moves each.
    FiveMove,
    /// Lone king against three pieces including a king: 16 moves each.
    SixteenMove,
}

impl CountedEnding {
    /// The class of a material, if it has a move limit.
    pub fn of(counts: PieceCounts) -> Option<CountedEnding> {
        let lone = |men: u8, kings: u8| men == 0 && kings == 1;
        let strong = |men: u8, kings: u8| -> Option<CountedEnding> {
            match (kings >= 1, men + kings) {
                (true, 1 | 2) => Some(CountedEnding::FiveMove),
                (true, 3) => Some(CountedEnding::SixteenMove),
                _ => None,
            }
        };
        let white_strong = lone(counts.black_men, counts.black_kings)
            .then(|| strong(counts.white_men, counts.white_kings))
            .flatten();
        let black_strong = lone(counts.white_men, counts.white_kings)
            .then(|| strong(counts.black_men, counts.black_kings))
            .flatten();
        // King against king is in both readings; the smaller class wins.
        match (white_strong, black_strong) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The plies a freshly entered ending of this class may last.
    pub const fn plies(self) -> u8 {
        match self {
            CountedEnding::FiveMove => 10,
            CountedEnding::SixteenMove => 32,
        }
    }
}

/// The side that has only a king left, in a counted ending.
pub fn lone_king_side(counts: PieceCounts) -> Option<Color> {
    CountedEnding::of(counts)?;
    if counts.black_men == 0 && counts.black_kings == 1 {
        Some(Color::Black)
    } else {
        Some(Color::White)
    }
}

/// The long-diagonal condition of the `fmjd-diagonal` rule option: in a
/// 16-move ending, the lone king is the only piece on the long diagonal
/// 46-5. From then on at most 5 more moves each are played.
pub fn lone_king_alone_on_long_diagonal(pos: &Position) -> bool {
    let counts = pos.piece_counts();
    if CountedEnding::of(counts) != Some(CountedEnding::SixteenMove) {
        return false;
    }
    let Some(lone) = lone_king_side(counts) else {
        return false;
    };
    let on_diagonal = pos.occupied().0 & LONG_DIAGONAL;
    on_diagonal != 0 && on_diagonal == pos.pieces(lone).0 & LONG_DIAGONAL
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(wm: u8, wk: u8, bm: u8, bk: u8) -> PieceCounts {
        PieceCounts {
            white_men: wm,
            white_kings: wk,
            black_men: bm,
            black_kings: bk,
        }
    }

    #[test]
    fn classes() {
        use CountedEnding::*;
        assert_eq!(CountedEnding::of(counts(0, 1, 0, 1)), Some(FiveMove));
        assert_eq!(CountedEnding::of(counts(1, 1, 0, 1)), Some(FiveMove));
        assert_eq!(CountedEnding::of(counts(0, 2, 0, 1)), Some(FiveMove));
        assert_eq!(CountedEnding::of(counts(0, 1, 0, 2)), Some(FiveMove));
        assert_eq!(CountedEnding::of(counts(0, 3, 0, 1)), Some(SixteenMove));
        assert_eq!(CountedEnding::of(counts(1, 2, 0, 1)), Some(SixteenMove));
        assert_eq!(CountedEnding::of(counts(2, 1, 0, 1)), Some(SixteenMove));
        assert_eq!(CountedEnding::of(counts(0, 1, 2, 1)), Some(SixteenMove));
        assert_eq!(CountedEnding::of(counts(2, 0, 0, 1)), None);
        assert_eq!(CountedEnding::of(counts(1, 0, 0, 1)), None);
        assert_eq!(CountedEnding::of(counts(0, 4, 0, 1)), None);
        assert_eq!(CountedEnding::of(counts(0, 1, 1, 0)), None);
        assert_eq!(CountedEnding::of(counts(0, 2, 0, 2)), None);
        assert_eq!(
            CountedEnding::of(counts(0, 1, 1, 1)),
            None.or(Some(FiveMove))
        );
        assert_eq!(lone_king_side(counts(0, 1, 1, 1)), Some(Color::White));
        assert_eq!(lone_king_side(counts(0, 3, 0, 1)), Some(Color::Black));
    }

    #[test]
    fn long_diagonal_condition() {
        let p: Position = "W:WK1,K2,K3:BK28".parse().unwrap();
        assert!(lone_king_alone_on_long_diagonal(&p));
        let p: Position = "W:WK1,K2,K46:BK28".parse().unwrap();
        assert!(!lone_king_alone_on_long_diagonal(&p));
        let p: Position = "W:WK1,K2,K3:BK27".parse().unwrap();
        assert!(!lone_king_alone_on_long_diagonal(&p));
        let p: Position = "W:WK1,K2:BK28".parse().unwrap();
        assert!(!lone_king_alone_on_long_diagonal(&p));
    }
}
