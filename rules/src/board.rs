//! The board: squares 1..=50, the bit layout of square sets, and the
//! direction tables the move generator walks.
//!
//! Internally a square set is a `u64` in a "ghost" layout: square `s`
//! (1-based) lives on bit `b = (s-1) + (s-1)/10`, so bits 10, 21, 32 and 43
//! are never used. With that gap every diagonal step is a constant shift:
//! -6 (up-left, towards row 1), -5 (up-right), +5 (down-left), +6
//! (down-right), and a step off the board always lands on a ghost bit or
//! outside 0..54, which the `VALID` mask removes. "Up" is White's forward
//! direction.

use std::fmt;

/// Every bit of the ghost layout that is a real square.
pub const VALID: u64 = {
    let mut m = 0u64;
    let mut s = 0;
    while s < 50 {
        m |= 1u64 << (s + s / 10);
        s += 1;
    }
    m
};

/// Row 1 (squares 1-5): where White's men are crowned.
pub const WHITE_CROWNING_ROW: u64 = 0b11111;
/// Row 10 (squares 46-50): where Black's men are crowned.
pub const BLACK_CROWNING_ROW: u64 = 0b11111 << 49;

/// The long diagonal 46-41-37-32-28-23-19-14-10-5.
pub const LONG_DIAGONAL: u64 = {
    let squares = [46u32, 41, 37, 32, 28, 23, 19, 14, 10, 5];
    let mut m = 0u64;
    let mut i = 0;
    while i < squares.len() {
        let s = squares[i] - 1;
        m |= 1u64 << (s + s / 10);
        i += 1;
    }
    m
};

/// A diagonal direction. Up is towards row 1 (White's forward direction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards row 1 and column 1.
    UpLeft = 0,
    /// Towards row 1 and column 10.
    UpRight = 1,
    /// Towards row 10 and column 1.
    DownLeft = 2,
    /// Towards row 10 and column 10.
    DownRight = 3,
}

impl Direction {
    /// All four directions, in table order.
    pub const ALL: [Direction; 4] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
    ];

    /// The bit shift of one step in this direction in the ghost layout.
    pub const fn shift(self) -> i32 {
        match self {
            Direction::UpLeft => -6,
            Direction::UpRight => -5,
            Direction::DownLeft => 5,
            Direction::DownRight => 6,
        }
    }

    /// The direction pointing the other way.
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::UpLeft => Direction::DownRight,
            Direction::UpRight => Direction::DownLeft,
            Direction::DownLeft => Direction::UpRight,
            Direction::DownRight => Direction::UpLeft,
        }
    }
}

/// "No square" marker in the neighbour table.
pub(crate) const NONE: u8 = 64;

const fn is_valid_bit(b: i32) -> bool {
    b >= 0 && b < 64 && (VALID >> b) & 1 == 1
}

/// `NEIGHBOUR[d][b]`: the bit one step from bit `b` in direction `d`, or `NONE`.
pub(crate) const NEIGHBOUR: [[u8; 64]; 4] = {
    let mut t = [[NONE; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let shift = Direction::ALL[d].shift();
        let mut b = 0;
        while b < 64 {
            if is_valid_bit(b) && is_valid_bit(b + shift) {
                t[d][b as usize] = (b + shift) as u8;
            }
            b += 1;
        }
        d += 1;
    }
    t
};

/// `RAY[d][b]`: every square strictly beyond bit `b` in direction `d`.
pub(crate) const RAY: [[u64; 64]; 4] = {
    let mut t = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let mut b = 0;
        while b < 64 {
            let mut cur = NEIGHBOUR[d][b];
            while cur != NONE {
                t[d][b] |= 1u64 << cur;
                cur = NEIGHBOUR[d][cur as usize];
            }
            b += 1;
        }
        d += 1;
    }
    t
};

/// Directions 2 and 3 (down) increase the bit number, 0 and 1 decrease it.
#[inline(always)]
pub(crate) const fn is_increasing(d: usize) -> bool {
    d >= 2
}

/// The first square of `set` met when walking from the origin of a ray in
/// direction `d` (the set must be a subset of that ray and not empty).
#[inline(always)]
pub(crate) fn nearest(set: u64, d: usize) -> usize {
    if is_increasing(d) {
        set.trailing_zeros() as usize
    } else {
        63 - set.leading_zeros() as usize
    }
}

/// The empty squares reachable along the ray from `b` in direction `d`
/// before the first square of `occupied`.
#[inline(always)]
pub(crate) fn open_ray(b: usize, d: usize, occupied: u64) -> u64 {
    let ray = RAY[d][b];
    let blockers = ray & occupied;
    if blockers == 0 {
        ray
    } else {
        let first = nearest(blockers, d);
        ray & !(RAY[d][first] | (1u64 << first))
    }
}

/// Shifts a set one step in direction `d` (squares falling off the board
/// land on ghost bits or outside; callers mask with a real-square set).
#[inline(always)]
pub(crate) const fn step(set: u64, d: usize) -> u64 {
    match d {
        0 => set >> 6,
        1 => set >> 5,
        2 => set << 5,
        _ => set << 6,
    }
}

/// Shifts a set `n` steps in direction `d` at once (see [`step`]).
#[inline(always)]
pub(crate) const fn step_by(set: u64, d: usize, n: u32) -> u64 {
    match d {
        0 => set >> (6 * n),
        1 => set >> (5 * n),
        2 => set << (5 * n),
        _ => set << (6 * n),
    }
}

/// A square of the board, 1..=50 in the standard numbering.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square with this number, if it is in 1..=50.
    pub const fn new(number: u8) -> Option<Square> {
        if number >= 1 && number <= 50 {
            Some(Square(number))
        } else {
            None
        }
    }

    /// The square's number, 1..=50.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The square's row, 1..=10, counted from the top as White sees it.
    pub const fn row(self) -> u8 {
        (self.0 - 1) / 5 + 1
    }

    /// The bit of this square in the ghost layout.
    pub(crate) const fn bit(self) -> u32 {
        let s = (self.0 - 1) as u32;
        s + s / 10
    }

    /// The square on bit `b` of the ghost layout (`b` must be a real square).
    pub(crate) const fn from_bit(b: u32) -> Square {
        Square((b - b / 11 + 1) as u8)
    }

    /// The square seen from the other side of the board (rotated 180 degrees).
    pub const fn flipped(self) -> Square {
        Square(51 - self.0)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SquareSet(pub(crate) u64);

impl SquareSet {
    /// The empty set.
    pub const EMPTY: SquareSet = SquareSet(0);
    /// All 50 squares.
    pub const ALL: SquareSet = SquareSet(VALID);

    /// Builds a set from a mask where bit `i` stands for square `i + 1`
    /// (the "dense" layout used by the table index and the C interface).
    /// Bits 50..64 are ignored.
    pub const fn from_dense(mask: u64) -> SquareSet {
        let mut out = 0u64;
        let mut i = 0;
        while i < 5 {
            out |= ((mask >> (10 * i)) & 0x3FF) << (11 * i);
            i += 1;
        }
        SquareSet(out)
    }

    /// The set as a mask where bit `i` stands for square `i + 1`.
    pub const fn to_dense(self) -> u64 {
        let mut out = 0u64;
        let mut i = 0;
        while i < 5 {
            out |= ((self.0 >> (11 * i)) & 0x3FF) << (10 * i);
            i += 1;
        }
        out
    }

    /// The set holding one square.
    pub const fn single(sq: Square) -> SquareSet {
        SquareSet(1u64 << sq.bit())
    }

    /// Whether the set holds `sq`.
    pub const fn contains(self, sq: Square) -> bool {
        (self.0 >> sq.bit()) & 1 == 1
    }

    /// Adds `sq` to the set.
    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1u64 << sq.bit();
    }

    /// Number of squares in the set.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set rotated 180 degrees (square `s` becomes `51 - s`).
    pub const fn flipped(self) -> SquareSet {
        // Bit b maps to bit 53 - b: reverse all 64 bits, then drop the 10
        // bits above the layout.
        SquareSet(self.0.reverse_bits() >> 10)
    }

    /// The squares in increasing order.
    pub fn iter(self) -> SquareIter {
        SquareIter(self.0)
    }
}

impl std::ops::BitOr for SquareSet {
    type Output = SquareSet;
    fn bitor(self, rhs: SquareSet) -> SquareSet {
        SquareSet(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for SquareSet {
    type Output = SquareSet;
    fn bitand(self, rhs: SquareSet) -> SquareSet {
        SquareSet(self.0 & rhs.0)
    }
}

impl std::ops::Not for SquareSet {
    type Output = SquareSet;
    fn not(self) -> SquareSet {
        SquareSet(!self.0 & VALID)
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().map(|s| s.0)).finish()
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> SquareSet {
        let mut set = SquareSet::EMPTY;
        for sq in iter {
            set.insert(sq);
        }
        set
    }
}

impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = SquareIter;
    fn into_iter(self) -> SquareIter {
        self.iter()
    }
}

/// Iterator over the squares of a [`SquareSet`], in increasing order.
#[derive(Clone, Debug)]
pub struct SquareIter(u64);

impl Iterator for SquareIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let b = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(Square::from_bit(b))
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SquareIter {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row and column (1-based, from White's view) of a square, straight
    /// from the description of the board.
    fn coords(s: u8) -> (i32, i32) {
        let row = (s as i32 - 1) / 5 + 1;
        let k = (s as i32 - 1) % 5;
        let col = if row % 2 == 1 { 2 * k + 2 } else { 2 * k + 1 };
        (row, col)
    }

    fn square_at(row: i32, col: i32) -> Option<u8> {
        (1..=50u8).find(|&s| coords(s) == (row, col))
    }

    #[test]
    fn neighbour_table_matches_geometry() {
        let deltas = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
        for s in 1..=50u8 {
            let (r, c) = coords(s);
            for (d, (dr, dc)) in deltas.iter().enumerate() {
                let expected = square_at(r + dr, c + dc);
                let b = Square::new(s).unwrap().bit() as usize;
                let got = NEIGHBOUR[d][b];
                let got = (got != NONE).then(|| Square::from_bit(got as u32).number());
                assert_eq!(got, expected, "square {s} direction {d}");
            }
        }
    }

    #[test]
    fn board_facts() {
        assert_eq!(coords(46), (10, 1));
        assert_eq!(coords(5), (1, 10));
        assert_eq!(VALID.count_ones(), 50);
        let diag: Vec<u8> = SquareSet(LONG_DIAGONAL).iter().map(|s| s.0).collect();
        assert_eq!(diag, vec![5, 10, 14, 19, 23, 28, 32, 37, 41, 46]);
        let corner = Square::new(46).unwrap();
        let ray = RAY[Direction::UpRight as usize][corner.bit() as usize];
        assert_eq!(
            SquareSet(ray) | SquareSet::single(corner),
            SquareSet(LONG_DIAGONAL)
        );
    }

    #[test]
    fn dense_round_trip_and_flip() {
        for s in 1..=50u8 {
            let sq = Square::new(s).unwrap();
            let set = SquareSet::single(sq);
            assert_eq!(set.to_dense(), 1u64 << (s - 1));
            assert_eq!(SquareSet::from_dense(1u64 << (s - 1)), set);
            assert_eq!(set.flipped(), SquareSet::single(sq.flipped()));
        }
    }
}
