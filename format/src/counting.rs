//! How many placements a material has, group by group: the arithmetic
//! behind the perfect index (`index.rs`) and behind [`Material::new`]'s
//! check that a material's positions can be numbered at all. It knows
//! piece counts only, so that both the material and its index can use it
//! without depending on each other.
//!
//! [`Material::new`]: crate::Material::new

/// `BINOMIAL[n][k]` = n choose k, for n, k <= 64.
pub(crate) static BINOMIAL: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1].saturating_add(if k < n { t[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    t
};

/// n choose k for small n.
#[inline(always)]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n || n > 64 {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// The sizes of a material's index, from its piece counts.
pub(crate) struct PlacementCounts {
    /// Start of each `a` group (White's men on 46-50) in men-index space.
    pub men_offsets: [u64; 7],
    /// Placements of the kings of both sides for one placement of the men.
    pub king_placements: u64,
    /// Placements of Black's kings once White's are placed.
    pub black_king_placements: u64,
    /// Positions in all.
    pub count: u64,
}

/// The index sizes of a material with these counts (White's men and
/// kings, Black's men and kings), or `None` when its positions cannot be
/// numbered by a `u64` (every product and sum is checked).
pub(crate) fn placement_counts(
    white_men: u8,
    white_kings: u8,
    black_men: u8,
    black_kings: u8,
) -> Option<PlacementCounts> {
    let (wm, bm) = (u32::from(white_men), u32::from(black_men));
    let mut men_offsets = [0u64; 7];
    for a in 0..=5u32 {
        let group = if a <= wm && wm - a <= 40 {
            binomial(5, a)
                .checked_mul(binomial(40, wm - a))?
                .checked_mul(binomial(45 - (wm - a), bm))?
        } else {
            0
        };
        men_offsets[a as usize + 1] = men_offsets[a as usize].checked_add(group)?;
    }
    let free = 50u32.saturating_sub(wm + bm);
    let wk = u32::from(white_kings);
    let bk = u32::from(black_kings);
    let black_king_placements = binomial(free.saturating_sub(wk), bk);
    let king_placements = binomial(free, wk).checked_mul(black_king_placements)?;
    Some(PlacementCounts {
        men_offsets,
        king_placements,
        black_king_placements,
        count: men_offsets[6].checked_mul(king_placements)?,
    })
}
