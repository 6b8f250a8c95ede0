//! Board geometry on the index's dense layout (bit `i` is square `i + 1`),
//! for the slice solver, which works on the masks the index gives without
//! building positions: the squares along each diagonal from each square.

/// The squares along one diagonal from a square, nearest first.
#[derive(Clone, Copy)]
pub(crate) struct Ray {
    len: u8,
    squares: [u8; 9],
}

impl Ray {
    /// The squares (dense bit numbers), nearest first.
    #[inline]
    pub(crate) fn squares(&self) -> &[u8] {
        &self.squares[..self.len as usize]
    }
}

/// Row (0 = squares 1-5, White's crowning row) and column (0-9) of dense
/// square `i`: even rows use the odd columns.
const fn coordinates(i: usize) -> (i32, i32) {
    let row = i / 5;
    let col = if row.is_multiple_of(2) {
        2 * (i % 5) + 1
    } else {
        2 * (i % 5)
    };
    (row as i32, col as i32)
}

/// Up-left, up-right (White's forward directions), down-left, down-right.
const STEPS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// White men step in these directions.
pub(crate) const WHITE_FORWARD: [usize; 2] = [0, 1];

/// `RAYS[i][d]`: the squares from dense square `i` in direction `d`.
pub(crate) static RAYS: [[Ray; 4]; 50] = {
    let empty = Ray {
        len: 0,
        squares: [0; 9],
    };
    let mut table = [[empty; 4]; 50];
    let mut i = 0;
    while i < 50 {
        let mut d = 0;
        while d < 4 {
            let (mut row, mut col) = coordinates(i);
            let mut n = 0;
            loop {
                row += STEPS[d].0;
                col += STEPS[d].1;
                if row < 0 || row > 9 || col < 0 || col > 9 {
                    break;
                }
                table[i][d].squares[n] = (row * 5 + col / 2) as u8;
                n += 1;
            }
            table[i][d].len = n as u8;
            d += 1;
        }
        i += 1;
    }
    table
};

/// A dense mask seen from the other side of the board (square `s` becomes
/// `51 - s`).
#[inline]
pub(crate) fn flip(mask: u64) -> u64 {
    mask.reverse_bits() >> 14
}

/// The number of sliding moves of the kings `kings` among `occupied`.
#[inline]
pub(crate) fn king_move_count(kings: u64, occupied: u64) -> u32 {
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
    use rules::{Color, Position};

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
    fn forward_rays_step_towards_row_one() {
        // Square 33 (dense 32) steps to 28 and 29.
        assert_eq!(RAYS[32][WHITE_FORWARD[0]].squares()[0], 27);
        assert_eq!(RAYS[32][WHITE_FORWARD[1]].squares()[0], 28);
        assert_eq!(flip(1), 1 << 49);
    }
}
