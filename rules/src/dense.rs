//! Board geometry on the dense layout the index uses (bit `i` is square
//! `i + 1`), for code that works on masks without building positions (the
//! generator's slice solver). Built from the same neighbour table as the
//! move generator's ghost layout, so the two cannot disagree.

use crate::board::{NEIGHBOUR, NONE};

/// The squares along one diagonal from a square, nearest first.
#[derive(Clone, Copy, Debug)]
pub struct Ray {
    len: u8,
    squares: [u8; 9],
}

impl Ray {
    /// The squares (dense bit numbers), nearest first.
    #[inline]
    pub fn squares(&self) -> &[u8] {
        &self.squares[..self.len as usize]
    }
}

/// The ghost-layout bit of dense square `i`.
const fn ghost_of(i: usize) -> usize {
    i + i / 10
}

/// The dense square of ghost-layout bit `b` (a real square).
const fn dense_of(b: usize) -> usize {
    b - b / 11
}

/// White men step in these directions (up-left, up-right: the order of
/// [`crate::Direction::ALL`]).
pub const WHITE_FORWARD: [usize; 2] = [0, 1];

/// Black men step in these directions (down-left, down-right).
pub const BLACK_FORWARD: [usize; 2] = [2, 3];

/// `RAYS[i][d]`: the squares from dense square `i` in direction `d` (the
/// order of [`crate::Direction::ALL`]).
pub static RAYS: [[Ray; 4]; 50] = {
    let empty = Ray {
        len: 0,
        squares: [0; 9],
    };
    let mut table = [[empty; 4]; 50];
    let mut i = 0;
    while i < 50 {
        let mut d = 0;
        while d < 4 {
            let mut at = NEIGHBOUR[d][ghost_of(i)];
            let mut n = 0;
            while at != NONE {
                table[i][d].squares[n] = dense_of(at as usize) as u8;
                n += 1;
                at = NEIGHBOUR[d][at as usize];
            }
            table[i][d].len = n as u8;
            d += 1;
        }
        i += 1;
    }
    table
};

/// `RAY_MASKS[i][d]`: the squares of [`RAYS`]`[i][d]` as a dense mask.
static RAY_MASKS: [[u64; 4]; 50] = {
    let mut table = [[0u64; 4]; 50];
    let mut i = 0;
    while i < 50 {
        let mut d = 0;
        while d < 4 {
            let mut n = 0;
            while n < RAYS[i][d].len as usize {
                table[i][d] |= 1 << RAYS[i][d].squares[n];
                n += 1;
            }
            d += 1;
        }
        i += 1;
    }
    table
};

/// `NEXT[d][i]`: the dense square one step from `i` in direction `d`, or
/// 64 (off the board).
static NEXT: [[u8; 50]; 4] = {
    let mut table = [[64u8; 50]; 4];
    let mut i = 0;
    while i < 50 {
        let mut d = 0;
        while d < 4 {
            if RAYS[i][d].len > 0 {
                table[d][i] = RAYS[i][d].squares[0];
            }
            d += 1;
        }
        i += 1;
    }
    table
};

/// Whether one of the kings `kings` can capture a piece of `opponents`
/// among the pieces `occupied` (its own and theirs): on one of its
/// diagonals the nearest piece is theirs, with an empty square beyond it.
/// The same answer as the move generator's (a test compares them), without
/// building a position.
#[inline]
pub fn kings_can_capture(kings: u64, opponents: u64, occupied: u64) -> bool {
    let mut ks = kings;
    while ks != 0 {
        let k = ks.trailing_zeros() as usize;
        ks &= ks - 1;
        for d in 0..4 {
            let blockers = RAY_MASKS[k][d] & occupied;
            if blockers == 0 {
                continue;
            }
            // Up the board (directions 0 and 1) squares fall, so the
            // nearest piece is the highest bit; down it, the lowest.
            let nearest = if d < 2 {
                63 - blockers.leading_zeros()
            } else {
                blockers.trailing_zeros()
            } as usize;
            let beyond = NEXT[d][nearest];
            if opponents >> nearest & 1 == 1 && beyond < 64 && occupied >> beyond & 1 == 0 {
                return true;
            }
        }
    }
    false
}

/// Whether one of the men `men` can capture a piece of `opponents` among
/// the pieces `occupied`: a man captures in all four directions, over an
/// adjacent piece of theirs onto the empty square beyond it. The move
/// generator's answer (a test compares them), without building a
/// position.
#[inline]
pub fn men_can_capture(men: u64, opponents: u64, occupied: u64) -> bool {
    let mut ms = men;
    while ms != 0 {
        let m = ms.trailing_zeros() as usize;
        ms &= ms - 1;
        for next in &NEXT {
            let over = next[m];
            if over < 64 && opponents >> over & 1 == 1 {
                let beyond = next[over as usize];
                if beyond < 64 && occupied >> beyond & 1 == 0 {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether the side with the men `men` and the kings `kings` must capture
/// a piece of `opponents` (all pieces: `occupied`): see
/// [`kings_can_capture`] and [`men_can_capture`].
#[inline]
pub fn can_capture(men: u64, kings: u64, opponents: u64, occupied: u64) -> bool {
    men_can_capture(men, opponents, occupied) || kings_can_capture(kings, opponents, occupied)
}

/// The row of dense square `i`: 0 is squares 1-5 (White's crowning row),
/// 9 is squares 46-50.
#[inline]
pub const fn row(i: u32) -> u32 {
    i / 5
}

/// A dense mask seen from the other side of the board (square `s` becomes
/// `51 - s`).
#[inline]
pub fn flip(mask: u64) -> u64 {
    mask.reverse_bits() >> 14
}

/// The number of sliding moves of the kings `kings` among `occupied`.
#[inline]
pub fn king_move_count(kings: u64, occupied: u64) -> u32 {
    let mut count = 0;
    let mut ks = kings;
    while ks != 0 {
        let k = ks.trailing_zeros() as usize;
        ks &= ks - 1;
        for ray in &RAYS[k] {
            for &t in ray.squares() {
                if occupied >> t & 1 == 1 {
                    break;
                }
                count += 1;
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, Position, Square, SquareSet};

    fn dense(pos: &Position, color: Color, kings: bool) -> u64 {
        let set = if kings {
            pos.kings(color)
        } else {
            pos.men(color)
        };
        set.to_dense()
    }

    #[test]
    fn rays_agree_with_the_move_generator() {
        // A lone white king on every square: its moves are its rays.
        for i in 0..50u64 {
            let pos =
                Position::from_dense_masks(Color::White, 1 << i, 1 << ((i + 25) % 50), 1 << i);
            let Ok(pos) = pos else { continue };
            if pos.has_capture() {
                continue;
            }
            let mut targets: Vec<u8> = pos
                .legal_moves()
                .iter()
                .map(|m| m.to().number() - 1)
                .collect();
            targets.sort();
            let occupied = dense(&pos, Color::White, true) | dense(&pos, Color::Black, true);
            let mut ours: Vec<u8> = RAYS[i as usize]
                .iter()
                .flat_map(|r| {
                    r.squares()
                        .iter()
                        .copied()
                        .take_while(|&t| occupied >> t & 1 == 0)
                })
                .collect();
            ours.sort();
            assert_eq!(ours, targets, "king on square {}", i + 1);
            assert_eq!(king_move_count(1 << i, occupied) as usize, targets.len());
        }
    }

    #[test]
    fn kings_capture_as_the_move_generator_says() {
        // Random king positions of 2 to 10 kings, White to move.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut captures, mut quiet) = (0, 0);
        for _ in 0..200_000 {
            let (mut white, mut black) = (0u64, 0u64);
            let (w, b) = (1 + next() % 5, 1 + next() % 5);
            while white.count_ones() < w as u32 {
                white |= 1 << (next() % 50);
            }
            while black.count_ones() < b as u32 {
                let sq = 1 << (next() % 50);
                if white & sq == 0 {
                    black |= sq;
                }
            }
            let pos = Position::from_dense_masks(Color::White, white, black, white | black)
                .expect("kings anywhere");
            let ours = kings_can_capture(white, black, white | black);
            assert_eq!(ours, pos.has_capture(), "white {white:#x} black {black:#x}");
            if ours {
                captures += 1;
            } else {
                quiet += 1;
            }
        }
        assert!(captures > 10_000 && quiet > 10_000, "{captures} {quiet}");
    }

    #[test]
    fn men_and_kings_capture_as_the_move_generator_says() {
        // Random positions of 1 to 5 pieces a side, each a man or a king
        // (no man on its own crowning row), White to move.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut captures, mut by_men, mut quiet) = (0, 0, 0);
        for _ in 0..200_000 {
            let mut pieces = [[0u64; 2]; 2];
            for (colour, crowning_row) in [(0, 0), (1, 9)] {
                for _ in 0..1 + next() % 5 {
                    let sq = (next() % 50) as u32;
                    let taken = pieces.iter().flatten().any(|m| m >> sq & 1 == 1);
                    let king = next() % 2 == 0 || row(sq) == crowning_row;
                    if !taken {
                        pieces[colour][usize::from(king)] |= 1 << sq;
                    }
                }
            }
            let [[wm, wk], [bm, bk]] = pieces;
            let occupied = wm | wk | bm | bk;
            let pos = Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
                .expect("no man on its crowning row");
            let ours = can_capture(wm, wk, bm | bk, occupied);
            assert_eq!(ours, pos.has_capture(), "{wm:#x} {wk:#x} {bm:#x} {bk:#x}");
            match (ours, men_can_capture(wm, bm | bk, occupied)) {
                (true, true) => by_men += 1,
                (true, false) => captures += 1,
                _ => quiet += 1,
            }
        }
        assert!(captures > 5_000 && by_men > 5_000 && quiet > 10_000);
    }

    #[test]
    fn forward_rays_step_towards_row_one() {
        // Square 33 (dense 32) steps to 28 and 29.
        assert_eq!(RAYS[32][WHITE_FORWARD[0]].squares()[0], 27);
        assert_eq!(RAYS[32][WHITE_FORWARD[1]].squares()[0], 28);
        // Square 6 (row 1) steps only to 1; square 5 (row 0) not at all.
        assert_eq!(RAYS[5][WHITE_FORWARD[0]].squares(), &[] as &[u8]);
        assert_eq!(RAYS[5][WHITE_FORWARD[1]].squares()[0], 0);
        assert!(RAYS[4][WHITE_FORWARD[0]].squares().is_empty());
    }

    #[test]
    fn flip_and_row_agree_with_the_squares() {
        for number in 1..=50u8 {
            let sq = Square::new(number).expect("a square");
            let mask = SquareSet::single(sq).to_dense();
            let flipped = SquareSet::single(sq.flipped()).to_dense();
            assert_eq!(flip(mask), flipped, "square {number}");
            let i = mask.trailing_zeros();
            assert_eq!(row(i) + 1, u32::from(sq.row()), "square {number}");
        }
    }
}
