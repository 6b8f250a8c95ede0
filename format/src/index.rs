//! The perfect index: a bijection between the White-to-move positions of a
//! material and `0..count`.
//!
//! Squares are numbered 0..50 here (square `s` is `s - 1`). The index is
//! `men * king_placements + kings`:
//!
//! * **Men first.** White men stand on 5..50 (squares 6-50), black men on
//!   0..45 (squares 1-45). The placements are grouped by `a`, the number
//!   of white men on 45..50 (squares 46-50, where no black man can stand):
//!   `men = offset[a] + (back * C(40, wm-a) + middle) * C(45-(wm-a), bm) + black`,
//!   where `back` ranks the white men on 46-50 among those 5 squares,
//!   `middle` the other white men among squares 6-45, and `black` the
//!   black men among the `45 - (wm-a)` squares of 1-45 that no white man
//!   holds. Keeping men outermost groups positions of one men placement
//!   together (good for compression) and leaves room to cut a material into
//!   slices by men placement.
//! * **Kings** fill the `F = 50 - wm - bm` free squares: white kings ranked
//!   among the `F` free squares, black kings among the `F - wk` left.
//!
//! Each "rank among" is the colexicographic rank of a combination,
//! `sum C(c_i, i+1)` over its sorted members `c_0 < c_1 < ...`, after
//! squeezing out the squares that are not available.

use rules::{Color, Position};

use crate::counting::{binomial, placement_counts, PlacementCounts, BINOMIAL};
use crate::material::Material;

const LOW45: u64 = (1u64 << 45) - 1;
const MID40: u64 = (1u64 << 40) - 1;

/// Colex rank of the members of `set`, each first lowered by the number of
/// `skip` squares below it.
#[inline(always)]
fn squeezed_rank(mut set: u64, skip: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let p = set.trailing_zeros();
        set &= set - 1;
        let q = p - (skip & ((1u64 << p) - 1)).count_ones();
        rank += BINOMIAL[q as usize][i];
        i += 1;
    }
    rank
}

/// The `k`-combination of `0..n` with colex rank `rank`, as a bit mask.
#[inline(always)]
fn colex_unrank(mut rank: u64, k: u32, n: u32) -> u64 {
    let mut mask = 0;
    let mut hi = n as usize; // exclusive upper bound of the next member
    for i in (1..=k as usize).rev() {
        if i == 1 {
            // C(c, 1) = c: the smallest member is the rank left.
            mask |= 1u64 << rank;
            break;
        }
        // The largest c < hi with C(c, i) <= rank, by binary search
        // (C(c, i) grows with c; C(i-1, i) = 0 <= rank always).
        let (mut lo, mut top) = (i - 1, hi - 1);
        while lo < top {
            let mid = (lo + top).div_ceil(2);
            if BINOMIAL[mid][i] <= rank {
                lo = mid;
            } else {
                top = mid - 1;
            }
        }
        mask |= 1u64 << lo;
        rank -= BINOMIAL[lo][i];
        hi = lo;
    }
    mask
}

/// Spreads the bits of `squeezed` over the zero bits of `skip`: the q-th
/// free square for each member q (a parallel bit deposit onto `!skip`).
/// `skip` holds few bits, so each member steps over them one by one.
#[inline(always)]
fn expand(mut squeezed: u64, skip: u64) -> u64 {
    let mut out = 0;
    while squeezed != 0 {
        let mut s = squeezed.trailing_zeros();
        squeezed &= squeezed - 1;
        let mut occupied = skip;
        while occupied != 0 {
            let o = occupied.trailing_zeros();
            if o > s {
                break;
            }
            s += 1;
            occupied &= occupied - 1;
        }
        out |= 1u64 << s;
    }
    out
}

/// Memory of the last [`MaterialIndex::unrank_with`] call.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnrankCursor {
    valid: bool,
    /// The placement of the men of the last index (index divided by the
    /// king placements) and the index divided by the black king
    /// placements (the men and the white kings).
    men: u64,
    outer: u64,
    /// White men, White kings, Black men of the last index (dense).
    masks: [u64; 3],
}

/// The index of one material: counts, rank and unrank.
#[derive(Clone, Debug)]
pub struct MaterialIndex {
    material: Material,
    /// Start of each `a` group (white men on 46-50) in men-index space.
    men_offsets: [u64; 7],
    king_placements: u64,
    black_king_placements: u64,
    count: u64,
}

impl MaterialIndex {
    /// The index of `material`.
    ///
    /// # Panics
    /// When the material has more positions than a `u64` numbers; no
    /// [`Material::new`] or parsed material does (see
    /// [`MaterialIndex::try_new`]).
    pub fn new(material: Material) -> MaterialIndex {
        MaterialIndex::try_new(material)
            .unwrap_or_else(|| panic!("material {material} has more positions than a u64 holds"))
    }

    /// The index of `material`, or `None` when its positions cannot be
    /// numbered by a `u64` (every product and sum is checked).
    pub fn try_new(material: Material) -> Option<MaterialIndex> {
        let PlacementCounts {
            men_offsets,
            king_placements,
            black_king_placements,
            count,
        } = placement_counts(
            material.white_men,
            material.white_kings,
            material.black_men,
            material.black_kings,
        )?;
        Some(MaterialIndex {
            material,
            men_offsets,
            king_placements,
            black_king_placements,
            count,
        })
    }

    /// The material indexed.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The number of positions (White to move).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The number of placements of the men alone; the index is
    /// `men_placement * king_placements() + king_placement`.
    pub fn men_placements(&self) -> u64 {
        self.men_offsets[6]
    }

    /// The number of placements of the kings for one placement of the men.
    pub fn king_placements(&self) -> u64 {
        self.king_placements
    }

    /// The number of placements of the black kings for one placement of
    /// the men and the white kings: a king rank is
    /// `white_kings_rank * black_king_placements() + black_kings_rank`.
    pub fn black_king_placements(&self) -> u64 {
        self.black_king_placements
    }

    /// The index of `pos`, which must be a White-to-move position of this
    /// material (see [`MaterialIndex::try_rank`] for a checked version).
    #[inline]
    pub fn rank(&self, pos: &Position) -> u64 {
        debug_assert_eq!(Material::of(pos), self.material);
        debug_assert_eq!(pos.side_to_move(), Color::White);
        let white = pos.pieces(Color::White).to_dense();
        let black = pos.pieces(Color::Black).to_dense();
        let kings = pos.kings(Color::White).to_dense() | pos.kings(Color::Black).to_dense();
        self.rank_masks(white & !kings, white & kings, black & !kings, black & kings)
    }

    /// The index of `pos` if it is a White-to-move position of this
    /// material.
    pub fn try_rank(&self, pos: &Position) -> Option<u64> {
        (Material::of(pos) == self.material && pos.side_to_move() == Color::White)
            .then(|| self.rank(pos))
    }

    /// The index from dense masks (bit `i` = square `i + 1`).
    #[inline]
    pub fn rank_masks(
        &self,
        white_men: u64,
        white_kings: u64,
        black_men: u64,
        black_kings: u64,
    ) -> u64 {
        self.men_rank(white_men, black_men) * self.king_placements
            + self.king_rank(white_men | black_men, white_kings, black_kings)
    }

    /// The rank of a placement of the men (dense masks): the index of a
    /// position is `men_rank * king_placements() + king_rank`.
    #[inline]
    pub fn men_rank(&self, white_men: u64, black_men: u64) -> u64 {
        let wm = self.material.white_men as u32;
        let bm = self.material.black_men as u32;
        let back = white_men >> 45;
        let a = back.count_ones();
        let middle = (white_men >> 5) & MID40;
        let m = wm - a;
        let back_rank = squeezed_rank(back, 0);
        let middle_rank = squeezed_rank(middle, 0);
        let black_rank = squeezed_rank(black_men, white_men & LOW45);
        self.men_offsets[a as usize]
            + (back_rank * binomial(40, m) + middle_rank) * binomial(45 - m, bm)
            + black_rank
    }

    /// The rank of a placement of the kings among the squares the men
    /// (`men`, both colours, dense) leave free: the index of a position is
    /// `men_placement * king_placements() + king_rank`.
    #[inline]
    pub fn king_rank(&self, men: u64, white_kings: u64, black_kings: u64) -> u64 {
        squeezed_rank(white_kings, men) * self.black_king_placements
            + self.black_king_rank(men | white_kings, black_kings)
    }

    /// The black kings' part of [`MaterialIndex::king_rank`]: their rank
    /// among the squares that `others` (the men of both colours and the
    /// white kings, dense) leave free. A walk over the black kings' moves
    /// keeps the rest of the index as it is and asks only for this.
    #[inline]
    pub fn black_king_rank(&self, others: u64, black_kings: u64) -> u64 {
        squeezed_rank(black_kings, others)
    }

    /// The ranks of the king placements that differ only in where one
    /// white king stands: the other white kings `other_white`, the black
    /// kings `black` and the men `men` (dense masks) fixed. A retrograde walk
    /// over one king's moves asks for these; each costs a few table reads
    /// (see [`KingMoveRanks::rank_with`]).
    pub fn king_move_ranks(&self, men: u64, other_white: u64, black: u64) -> KingMoveRanks {
        let mut r = KingMoveRanks {
            men,
            other_white,
            black,
            black_king_placements: self.black_king_placements,
            low: [0; MAX_KINGS + 1],
            high: [0; MAX_KINGS + 1],
            black_low: [0; MAX_KINGS + 1],
            black_high: [0; MAX_KINGS + 1],
        };
        let squeeze = |sq: u32, skip: u64| sq - (skip & ((1u64 << sq) - 1)).count_ones();
        // White: the others' squeezed places, summed below and above the
        // slot the moving king takes.
        let mut q = [0u32; MAX_KINGS];
        let mut m = 0;
        let mut w = other_white;
        while w != 0 && m < MAX_KINGS {
            q[m] = squeeze(w.trailing_zeros(), men);
            w &= w - 1;
            m += 1;
        }
        for j in 0..m {
            r.low[j + 1] = r.low[j] + BINOMIAL[q[j] as usize][j + 1];
        }
        for j in (0..m).rev() {
            r.high[j] = r.high[j + 1] + BINOMIAL[q[j] as usize][j + 2];
        }
        // Black: each king's squeezed place, one lower when the moving
        // white king stands below it.
        let mut base = [0u32; MAX_KINGS];
        let mut n = 0;
        let mut b = black;
        while b != 0 && n < MAX_KINGS {
            base[n] = squeeze(b.trailing_zeros(), men | other_white);
            b &= b - 1;
            n += 1;
        }
        for i in 0..n {
            r.black_low[i + 1] = r.black_low[i] + BINOMIAL[base[i] as usize][i + 1];
        }
        for i in (0..n).rev() {
            r.black_high[i] =
                r.black_high[i + 1] + BINOMIAL[base[i].saturating_sub(1) as usize][i + 1];
        }
        r
    }

    /// The ranks of the king placements that differ only in where one
    /// black king stands: the men `men`, the white kings `white` and the
    /// other black kings `other_black` (dense masks) fixed. A solver that
    /// plays a position's moves forward, stored colour-flipped, asks for
    /// these.
    pub fn black_king_move_ranks(
        &self,
        men: u64,
        white: u64,
        other_black: u64,
    ) -> BlackKingMoveRanks {
        let skip = men | white;
        let mut r = BlackKingMoveRanks {
            skip,
            other_black,
            white_part: squeezed_rank(white, men) * self.black_king_placements,
            low: [0; MAX_KINGS + 1],
            high: [0; MAX_KINGS + 1],
        };
        let mut q = [0u32; MAX_KINGS];
        let mut m = 0;
        let mut b = other_black;
        while b != 0 && m < MAX_KINGS {
            let sq = b.trailing_zeros();
            q[m] = sq - (skip & ((1u64 << sq) - 1)).count_ones();
            b &= b - 1;
            m += 1;
        }
        for j in 0..m {
            r.low[j + 1] = r.low[j] + BINOMIAL[q[j] as usize][j + 1];
        }
        for j in (0..m).rev() {
            r.high[j] = r.high[j + 1] + BINOMIAL[q[j] as usize][j + 2];
        }
        r
    }

    /// The dense masks `(white kings, black kings)` of king placement
    /// `king_rank` (< `king_placements()`) beside the men `men`.
    #[inline]
    pub fn unrank_kings(&self, men: u64, king_rank: u64) -> (u64, u64) {
        let free = 50 - men.count_ones();
        let wk_count = self.material.white_kings as u32;
        let white_kings = expand(
            colex_unrank(king_rank / self.black_king_placements, wk_count, free),
            men,
        );
        let black_kings = expand(
            colex_unrank(
                king_rank % self.black_king_placements,
                self.material.black_kings as u32,
                free - wk_count,
            ),
            men | white_kings,
        );
        (white_kings, black_kings)
    }

    /// The king placements beside the men `men` from king rank `start`
    /// on, in index order: what [`MaterialIndex::unrank_kings`] gives for
    /// `start`, `start + 1`, ..., each found from the one before.
    pub fn king_walk(&self, men: u64, start: u64) -> KingWalk {
        let free = 50 - men.count_ones();
        let white_count = self.material.white_kings as u32;
        let black_count = self.material.black_kings as u32;
        let (white, black) = if start < self.king_placements {
            (
                colex_unrank(start / self.black_king_placements, white_count, free),
                colex_unrank(
                    start % self.black_king_placements,
                    black_count,
                    free - white_count,
                ),
            )
        } else {
            (0, 0)
        };
        KingWalk {
            men,
            white_end: 1u64 << free,
            black_end: 1u64 << (free - white_count),
            black_first: (1u64 << black_count) - 1,
            white,
            black,
            white_kings: expand(white, men),
            done: start >= self.king_placements,
        }
    }

    /// The White-to-move position with index `index` (< `count()`).
    pub fn unrank(&self, index: u64) -> Position {
        let [wm, wk, bm, bk] = self.unrank_masks(index);
        Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
            .expect("unrank yields a legal placement")
    }

    /// Like [`MaterialIndex::unrank`], reusing the work of the previous
    /// call through `cursor` when the men and white kings are the same
    /// (consecutive indices mostly differ in the black kings only).
    #[inline]
    pub fn unrank_with(&self, index: u64, cursor: &mut UnrankCursor) -> Position {
        let [wm, wk, bm, bk] = self.unrank_masks_with(index, cursor);
        Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
            .expect("unrank yields a legal placement")
    }

    /// [`MaterialIndex::unrank_masks`] reusing the work of the previous
    /// call through `cursor`, as [`MaterialIndex::unrank_with`] does.
    #[inline]
    pub fn unrank_masks_with(&self, index: u64, cursor: &mut UnrankCursor) -> [u64; 4] {
        debug_assert!(index < self.count);
        let outer = index / self.black_king_placements;
        let free = 50 - self.material.white_men as u32 - self.material.black_men as u32;
        if !cursor.valid || cursor.outer != outer {
            // Where Black has no king, every index is a placement of its
            // own: the men are kept while they stay.
            let men = index / self.king_placements;
            if !cursor.valid || cursor.men != men {
                let (wm, bm) = self.unrank_men(men);
                cursor.men = men;
                cursor.masks = [wm, 0, bm];
            }
            let [wm, _, bm] = cursor.masks;
            let white_rank = (index % self.king_placements) / self.black_king_placements;
            let white_kings = expand(
                colex_unrank(white_rank, self.material.white_kings as u32, free),
                wm | bm,
            );
            cursor.masks[1] = white_kings;
            cursor.outer = outer;
            cursor.valid = true;
        }
        let [wm, wk, bm] = cursor.masks;
        let black_kings = expand(
            colex_unrank(
                index % self.black_king_placements,
                self.material.black_kings as u32,
                free - self.material.white_kings as u32,
            ),
            wm | bm | wk,
        );
        [wm, wk, bm, black_kings]
    }

    /// The dense masks `[white men, white kings, black men, black kings]`
    /// of the position with index `index` (< `count()`).
    #[inline]
    pub fn unrank_masks(&self, index: u64) -> [u64; 4] {
        debug_assert!(index < self.count);
        let (white_men, black_men) = self.unrank_men(index / self.king_placements);
        let (white_kings, black_kings) =
            self.unrank_kings(white_men | black_men, index % self.king_placements);
        [white_men, white_kings, black_men, black_kings]
    }

    /// The dense masks `(white men, black men)` of placement `men` of the
    /// men (an index divided by [`MaterialIndex::king_placements`]).
    #[inline]
    fn unrank_men(&self, men: u64) -> (u64, u64) {
        let wm = self.material.white_men as u32;
        let bm = self.material.black_men as u32;
        let a = (0..6)
            .rev()
            .find(|&a| self.men_offsets[a] <= men && self.men_offsets[a + 1] > men)
            .unwrap_or(0) as u32;
        let m = wm - a;
        let rest = men - self.men_offsets[a as usize];
        let black_span = binomial(45 - m, bm);
        let black_rank = rest % black_span;
        let rest = rest / black_span;
        let middle_span = binomial(40, m);
        let middle_rank = rest % middle_span;
        let back_rank = rest / middle_span;
        let white_men =
            (colex_unrank(back_rank, a, 5) << 45) | (colex_unrank(middle_rank, m, 40) << 5);
        let black_men = expand(colex_unrank(black_rank, bm, 45 - m), white_men & LOW45);
        (white_men, black_men)
    }
}

/// The most kings of one colour [`KingMoveRanks`] handles (a table has at
/// most 10 pieces).
const MAX_KINGS: usize = 16;

/// King ranks with one white king moving, the rest fixed (from
/// [`MaterialIndex::king_move_ranks`]).
#[derive(Clone, Debug)]
pub struct KingMoveRanks {
    men: u64,
    other_white: u64,
    black: u64,
    black_king_placements: u64,
    /// `low[j]`: the colex terms of the `j` lowest other white kings.
    low: [u64; MAX_KINGS + 1],
    /// `high[j]`: those of the others from the `j`-th up, each one place
    /// higher (the moving king stands below them).
    high: [u64; MAX_KINGS + 1],
    /// The same for the black kings, with the moving king above them...
    black_low: [u64; MAX_KINGS + 1],
    /// ... and below them (their squeezed places one lower).
    black_high: [u64; MAX_KINGS + 1],
}

impl KingMoveRanks {
    /// `king_rank(men, other_white | 1 << square, black)` for a `square`
    /// that no other piece holds.
    #[inline]
    pub fn rank_with(&self, square: u32) -> u64 {
        let below = (1u64 << square) - 1;
        let q = square - (self.men & below).count_ones();
        let j = (self.other_white & below).count_ones() as usize;
        let white = self.low[j] + BINOMIAL[q as usize][j + 1] + self.high[j];
        let t = (self.black & below).count_ones() as usize;
        let black = self.black_low[t] + self.black_high[t];
        white * self.black_king_placements + black
    }
}

/// King ranks with one black king moving, the rest fixed (from
/// [`MaterialIndex::black_king_move_ranks`]).
#[derive(Clone, Debug)]
pub struct BlackKingMoveRanks {
    /// The squares the black kings are ranked around: men and white kings.
    skip: u64,
    other_black: u64,
    /// The white kings' part of every rank.
    white_part: u64,
    /// `low[j]`: the colex terms of the `j` lowest other black kings.
    low: [u64; MAX_KINGS + 1],
    /// `high[j]`: those of the others from the `j`-th up, each one place
    /// higher (the moving king stands below them).
    high: [u64; MAX_KINGS + 1],
}

impl BlackKingMoveRanks {
    /// `king_rank(men, white, other_black | 1 << square)` for a `square`
    /// that no other piece holds.
    #[inline]
    pub fn rank_with(&self, square: u32) -> u64 {
        let below = (1u64 << square) - 1;
        let q = square - (self.skip & below).count_ones();
        let j = (self.other_black & below).count_ones() as usize;
        self.white_part + self.low[j] + BINOMIAL[q as usize][j + 1] + self.high[j]
    }
}

/// The next combination in colex order after `set` (the same number of
/// members, the next larger mask: Gosper's successor); 0 for the empty
/// set, which has no successor.
#[inline(always)]
fn colex_next(set: u64) -> u64 {
    if set == 0 {
        return u64::MAX;
    }
    let lowest = set & set.wrapping_neg();
    let ripple = set + lowest;
    (((ripple ^ set) >> 2) / lowest) | ripple
}

/// King placements in index order (see [`MaterialIndex::king_walk`]):
/// `(white kings, black kings)` as dense masks.
#[derive(Clone, Debug)]
pub struct KingWalk {
    men: u64,
    /// One past the largest squeezed white combination.
    white_end: u64,
    /// One past the largest squeezed black combination.
    black_end: u64,
    /// The first black combination.
    black_first: u64,
    /// The squeezed combinations of the placement to give next.
    white: u64,
    black: u64,
    /// `white` spread over the squares the men leave.
    white_kings: u64,
    done: bool,
}

impl Iterator for KingWalk {
    type Item = (u64, u64);

    #[inline]
    fn next(&mut self) -> Option<(u64, u64)> {
        if self.done {
            return None;
        }
        let placement = (
            self.white_kings,
            expand(self.black, self.men | self.white_kings),
        );
        let black = colex_next(self.black);
        if black < self.black_end {
            self.black = black;
        } else {
            let white = colex_next(self.white);
            if white < self.white_end {
                self.white = white;
                self.white_kings = expand(white, self.men);
                self.black = self.black_first;
            } else {
                self.done = true;
            }
        }
        Some(placement)
    }
}

/// Where a position's value is stored: the material of the table and the
/// White-to-move position inside it (the colour-flipped position when
/// Black is to move).
pub fn table_position(pos: &Position) -> (Material, Position) {
    let normal = match pos.side_to_move() {
        Color::White => *pos,
        Color::Black => pos.flipped(),
    };
    (Material::of(&normal), normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(50, 3), 19600);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(3, 5), 0);
    }

    #[test]
    fn king_walk_agrees_with_unrank_kings() {
        for name in ["K-K", "KK-K", "K-KKK", "KKM-KM", "MM-M", "KKKK-K", "M-KKKK"] {
            let material: Material = name.parse().unwrap();
            let index = MaterialIndex::new(material);
            let kings = index.king_placements();
            for men_rank in (0..index.men_placements()).step_by(997) {
                let [wm, _, bm, _] = index.unrank_masks(men_rank * kings);
                let men = wm | bm;
                for start in [0, kings / 3, kings - 1] {
                    let walked: Vec<(u64, u64)> = index.king_walk(men, start).collect();
                    assert_eq!(walked.len() as u64, kings - start, "{name}");
                    for (j, &placement) in walked.iter().enumerate() {
                        let k = start + j as u64;
                        assert_eq!(placement, index.unrank_kings(men, k), "{name} {k}");
                    }
                }
                assert_eq!(index.king_walk(men, kings).next(), None);
            }
        }
    }

    #[test]
    fn colex_round_trip() {
        for n in 0..12u32 {
            for k in 0..=n {
                for r in 0..binomial(n, k) {
                    let mask = colex_unrank(r, k, n);
                    assert_eq!(mask.count_ones(), k);
                    assert!(mask < 1u64 << n);
                    assert_eq!(squeezed_rank(mask, 0), r);
                }
            }
        }
    }

    #[test]
    fn king_move_ranks_agree_with_king_rank() {
        // Every placement of the kings of a few materials, every white king
        // moved to every free square.
        for name in ["KK-KM", "KKM-KK", "KKK-KM", "K-KKKM", "KKKK-K"] {
            let m: Material = name.parse().unwrap();
            let index = MaterialIndex::new(m);
            for i in (0..index.count()).step_by(7919) {
                let [wm, wk, bm, bk] = index.unrank_masks(i);
                let men = wm | bm;
                let mut movers = wk;
                while movers != 0 {
                    let k = movers.trailing_zeros();
                    movers &= movers - 1;
                    let others = wk & !(1 << k);
                    let ranks = index.king_move_ranks(men, others, bk);
                    let free = !(men | others | bk) & ((1u64 << 50) - 1);
                    let mut f = free;
                    while f != 0 {
                        let a = f.trailing_zeros();
                        f &= f - 1;
                        assert_eq!(
                            ranks.rank_with(a),
                            index.king_rank(men, others | 1 << a, bk),
                            "{name} at {i}, king {k} to {a}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn black_king_move_ranks_agree_with_king_rank() {
        // Every black king of sampled positions moved to every free square.
        for name in ["KK-KK", "KKK-KKKK", "K-KKKKK", "KM-KKM", "KKM-MM"] {
            let m: Material = name.parse().unwrap();
            let index = MaterialIndex::new(m);
            for i in (0..index.count()).step_by(104_729) {
                let [wm, wk, bm, bk] = index.unrank_masks(i);
                let men = wm | bm;
                let mut movers = bk;
                while movers != 0 {
                    let k = movers.trailing_zeros();
                    movers &= movers - 1;
                    let others = bk & !(1 << k);
                    let ranks = index.black_king_move_ranks(men, wk, others);
                    let mut free = !(men | wk | others) & ((1u64 << 50) - 1);
                    while free != 0 {
                        let a = free.trailing_zeros();
                        free &= free - 1;
                        assert_eq!(
                            ranks.rank_with(a),
                            index.king_rank(men, wk, others | 1 << a),
                            "{name} at {i}, king {k} to {a}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn expand_matches_squeeze() {
        let skip = 0b1011_0010u64;
        let expanded = expand(0b1011, skip);
        // Free squares are 0, 2, 3, 6, 8, ...; squeezed 0, 1, 3 are 0, 2, 6.
        assert_eq!(expanded, 0b100_0101);
        assert_eq!(squeezed_rank(expanded, skip), squeezed_rank(0b1011, 0));
    }
}
