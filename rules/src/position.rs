//! A position: where the men and kings of each side stand, and who moves.

use crate::board::{SquareSet, BLACK_CROWNING_ROW, VALID, WHITE_CROWNING_ROW};
use crate::error::PositionError;
use crate::Square;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// White: men on 31-50 at the start, moving towards square 1.
    White,
    /// Black: men on 1-20 at the start, moving towards square 50.
    Black,
}

impl Color {
    /// The other side.
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The row where this side's men are crowned.
    pub const fn crowning_row(self) -> SquareSet {
        match self {
            Color::White => SquareSet(WHITE_CROWNING_ROW),
            Color::Black => SquareSet(BLACK_CROWNING_ROW),
        }
    }
}

/// A piece kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A man: steps forward, captures both ways.
    Man,
    /// A flying king.
    King,
}

/// How many men and kings each side has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceCounts {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl PieceCounts {
    /// All pieces on the board.
    pub const fn total(self) -> u32 {
        self.white_men as u32
            + self.white_kings as u32
            + self.black_men as u32
            + self.black_kings as u32
    }

    /// The counts with the colours swapped.
    pub const fn mirrored(self) -> PieceCounts {
        PieceCounts {
            white_men: self.black_men,
            white_kings: self.black_kings,
            black_men: self.white_men,
            black_kings: self.white_kings,
        }
    }
}

/// A legal placement of pieces with a side to move.
///
/// Invariants (checked by every constructor): the two colours never share
/// a square, kings are pieces of one colour, no white man stands on 1-5 and
/// no black man on 46-50.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) white: u64,
    pub(crate) black: u64,
    pub(crate) kings: u64,
    pub(crate) side: Color,
}

impl Position {
    /// The starting position of a game, White to move.
    pub fn initial() -> Position {
        let black = SquareSet::from_dense((1u64 << 20) - 1).0;
        let white = SquareSet::from_dense(((1u64 << 20) - 1) << 30).0;
        Position {
            white,
            black,
            kings: 0,
            side: Color::White,
        }
    }

    /// Builds a position from its pieces, checking that it can stand on a
    /// board: no square used twice, kings are pieces, men off their
    /// crowning row.
    pub fn from_parts(
        side: Color,
        white: SquareSet,
        black: SquareSet,
        kings: SquareSet,
    ) -> Result<Position, PositionError> {
        let (w, b, k) = (white.0, black.0, kings.0);
        if (w | b | k) & !VALID != 0 {
            return Err(PositionError::NotASquare);
        }
        if w & b != 0 {
            let sq = SquareSet(w & b).iter().next().expect("non-empty");
            return Err(PositionError::SquareTwice(sq.number()));
        }
        if k & !(w | b) != 0 {
            let sq = SquareSet(k & !(w | b)).iter().next().expect("non-empty");
            return Err(PositionError::KingWithoutColour(sq.number()));
        }
        if let Some(sq) = SquareSet(w & !k & WHITE_CROWNING_ROW).iter().next() {
            return Err(PositionError::WhiteManOnCrowningRow(sq.number()));
        }
        if let Some(sq) = SquareSet(b & !k & BLACK_CROWNING_ROW).iter().next() {
            return Err(PositionError::BlackManOnCrowningRow(sq.number()));
        }
        Ok(Position {
            white: w,
            black: b,
            kings: k,
            side,
        })
    }

    /// Builds a position from masks where bit `i` stands for square `i + 1`.
    pub fn from_dense_masks(
        side: Color,
        white: u64,
        black: u64,
        kings: u64,
    ) -> Result<Position, PositionError> {
        if (white | black | kings) >> 50 != 0 {
            return Err(PositionError::NotASquare);
        }
        Position::from_parts(
            side,
            SquareSet::from_dense(white),
            SquareSet::from_dense(black),
            SquareSet::from_dense(kings),
        )
    }

    /// Builds a position from masks in the board's own "ghost" layout
    /// (square `s` on bit `(s-1) + (s-1)/10`: bits 10, 21, 32 and 43 and
    /// everything above bit 53 unused), the layout of [`Position::key`]
    /// and of Kingsrow's `EGDB_BITBOARD`.
    ///
    /// # Errors
    /// Those of [`Position::from_parts`]: a bit off the board, a square
    /// taken twice, a king of no colour, a man on its crowning row.
    pub fn from_ghost_masks(
        side: Color,
        white: u64,
        black: u64,
        kings: u64,
    ) -> Result<Position, PositionError> {
        Position::from_parts(side, SquareSet(white), SquareSet(black), SquareSet(kings))
    }

    /// A key for hash tables: White's pieces, Black's pieces and the kings
    /// in the board's own bit layout (bits 0-54; bits 55-63 are always
    /// clear, free for the caller). Two positions with the same side to
    /// move are equal exactly when their keys are.
    pub const fn key(&self) -> [u64; 3] {
        [self.white, self.black, self.kings]
    }

    /// The side to move.
    pub const fn side_to_move(&self) -> Color {
        self.side
    }

    /// The same placement with the other side to move.
    pub const fn with_side_to_move(mut self, side: Color) -> Position {
        self.side = side;
        self
    }

    /// All pieces of `color`.
    pub const fn pieces(&self, color: Color) -> SquareSet {
        match color {
            Color::White => SquareSet(self.white),
            Color::Black => SquareSet(self.black),
        }
    }

    /// The men of `color`.
    pub const fn men(&self, color: Color) -> SquareSet {
        SquareSet(self.pieces(color).0 & !self.kings)
    }

    /// The kings of `color`.
    pub const fn kings(&self, color: Color) -> SquareSet {
        SquareSet(self.pieces(color).0 & self.kings)
    }

    /// Every occupied square.
    pub const fn occupied(&self) -> SquareSet {
        SquareSet(self.white | self.black)
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<(Color, Role)> {
        let bit = 1u64 << sq.bit();
        let role = if self.kings & bit != 0 {
            Role::King
        } else {
            Role::Man
        };
        if self.white & bit != 0 {
            Some((Color::White, role))
        } else if self.black & bit != 0 {
            Some((Color::Black, role))
        } else {
            None
        }
    }

    /// How many men and kings each side has.
    pub fn piece_counts(&self) -> PieceCounts {
        PieceCounts {
            white_men: (self.white & !self.kings).count_ones() as u8,
            white_kings: (self.white & self.kings).count_ones() as u8,
            black_men: (self.black & !self.kings).count_ones() as u8,
            black_kings: (self.black & self.kings).count_ones() as u8,
        }
    }

    /// The colour-flipped position: the board rotated 180 degrees, the
    /// colours swapped, and the other side to move. It is the same game seen
    /// from the other side, so it has the same value.
    pub fn flipped(&self) -> Position {
        Position {
            white: SquareSet(self.black).flipped().0,
            black: SquareSet(self.white).flipped().0,
            kings: SquareSet(self.kings).flipped().0,
            side: self.side.opponent(),
        }
    }
}
