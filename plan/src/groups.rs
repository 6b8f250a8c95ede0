//! Slice groups: the men placements of a pair sorted by *advancement* (the
//! rows its men have walked), found group by group without walking every
//! placement of the pair, and counted per group without listing them.
//!
//! A White man on dense square `d` (row `d / 5`, row 0 being White's
//! crowning row) has walked `9 - d / 5` rows, a Black man `d / 5`. A man
//! step adds exactly one, and a colour flip keeps the advancement.

use format::{binomial, Material, MaterialIndex};

use crate::keys::PlacementKeys;
use rayon::prelude::*;

use rules::dense;

/// One slice: the men placement `men` of side 0 and, when the pair has two
/// stored ranges for it, the flipped placement `mirror_men` of the other
/// side (the mirror material, or the same material when symmetric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Rows the men have walked.
    pub advancement: u32,
    /// Men placement of side 0.
    pub men: u64,
    /// Men placement, in the other stored side, of the same men with the
    /// other side to move.
    pub mirror_men: u64,
    /// The White men of side 0's placement (dense mask).
    pub white_men: u64,
    /// Its Black men.
    pub black_men: u64,
}

/// The advancement of a men placement: the rows walked by the White men
/// `white_men` and the Black men `black_men` (dense masks), together.
pub fn advancement_of(white_men: u64, black_men: u64) -> u32 {
    let walked = |mut men: u64, white: bool| {
        let mut rows = 0;
        while men != 0 {
            rows += walked_rows(men.trailing_zeros(), white);
            men &= men - 1;
        }
        rows
    };
    walked(white_men, true) + walked(black_men, false)
}

/// Rows walked by a man of that colour on dense square `d`.
fn walked_rows(d: u32, white: bool) -> u32 {
    if white {
        9 - dense::row(d)
    } else {
        dense::row(d)
    }
}

/// The largest advancement a man can have (one row short of crowning).
const MAX_WALK: u32 = 8;

/// `counts[a]`: the men placements of `material` whose advancement is `a`
/// (both colours' men on distinct squares, none on its crowning row). A
/// dynamic programme over the ten rows: each row takes some White and
/// some Black men among its five squares.
pub fn placements_by_advancement(material: Material) -> Vec<u64> {
    let (nw, nb) = (
        usize::from(material.white_men),
        usize::from(material.black_men),
    );
    let max = MAX_WALK as usize * (nw + nb);
    // ways[w][b][a]: placements of w White and b Black men on the rows so
    // far with advancement a.
    let mut ways = vec![vec![vec![0u64; max + 1]; nb + 1]; nw + 1];
    ways[0][0][0] = 1;
    for row in 0..10u32 {
        let mut next = vec![vec![vec![0u64; max + 1]; nb + 1]; nw + 1];
        for (w, by_black) in ways.iter().enumerate() {
            for (b, by_walk) in by_black.iter().enumerate() {
                for (a, &here) in by_walk.iter().enumerate() {
                    if here != 0 {
                        add_row(&mut next, row, (w, b, a), here, (nw, nb));
                    }
                }
            }
        }
        ways = next;
    }
    let mut counts = std::mem::take(&mut ways[nw][nb]);
    while counts.len() > 1 && counts.last() == Some(&0) {
        counts.pop();
    }
    counts
}

/// Adds to `next` the ways of placing men on `row` after the state
/// `(w, b, a)` reached in `here` ways.
fn add_row(
    next: &mut [Vec<Vec<u64>>],
    row: u32,
    (w, b, a): (usize, usize, usize),
    here: u64,
    (nw, nb): (usize, usize),
) {
    // White men never stand on row 0, Black men never on row 9.
    let white_max = if row == 0 { 0 } else { (nw - w).min(5) };
    let black_max = if row == 9 { 0 } else { (nb - b).min(5) };
    for x in 0..=white_max {
        for y in 0..=black_max.min(5 - x) {
            let squares = binomial(5, x as u32) * binomial(5 - x as u32, y as u32);
            let walked = x * (9 - row) as usize + y * row as usize;
            next[w + x][b + y][a + walked] += here * squares;
        }
    }
}

/// The advancements that have placements, most advanced first: the
/// pair's groups in solving order.
pub fn group_advancements(material: Material) -> Vec<u32> {
    let counts = placements_by_advancement(material);
    (0..counts.len() as u32)
        .rev()
        .filter(|&a| counts[a as usize] > 0)
        .collect()
}

/// The men sets of `count` men of one colour, by the rows they have
/// walked: `sets[s]` holds every set (dense mask) that has walked `s`.
fn men_sets_by_walk(count: u32, white: bool) -> Vec<Vec<u64>> {
    let squares: Vec<u32> = if white {
        (5..50).collect()
    } else {
        (0..45).collect()
    };
    let mut sets = vec![Vec::new(); (MAX_WALK * count + 1) as usize];
    let mut chosen = Vec::with_capacity(count as usize);
    collect_sets(&squares, count as usize, white, &mut chosen, &mut sets);
    sets
}

fn collect_sets(
    squares: &[u32],
    count: usize,
    white: bool,
    chosen: &mut Vec<u32>,
    sets: &mut [Vec<u64>],
) {
    if chosen.len() == count {
        let mask = chosen.iter().fold(0u64, |m, &d| m | 1 << d);
        let walked: u32 = chosen.iter().map(|&d| walked_rows(d, white)).sum();
        sets[walked as usize].push(mask);
        return;
    }
    let start = chosen.last().map_or(0, |&d| {
        squares.iter().position(|&s| s == d).map_or(0, |p| p + 1)
    });
    for &d in &squares[start..] {
        chosen.push(d);
        collect_sets(squares, count, white, chosen, sets);
        chosen.pop();
    }
}

/// The slices of the group of advancement `advancement` of the pair whose
/// sides have the indexes `indexes` (one if symmetric), sorted by the men
/// placement of side 0: the same slices, in the same order, as walking
/// every placement of the pair and keeping those of that advancement.
pub fn group_slices(indexes: &[MaterialIndex], advancement: u32) -> Vec<Slice> {
    let mut slices: Vec<Slice> = each_slice_of_group(indexes, advancement, |slice, out| {
        out.push(slice);
    });
    slices.par_sort_unstable_by_key(|s| s.men);
    slices
}

/// The men placements of the group of advancement `advancement` (see
/// [`group_slices`]), both sides', sorted: its keys, packed (see
/// [`PlacementKeys`]), without listing its slices (8 bytes a placement
/// instead of 48: the groups of `MMM-MMMM` have 186 M). With `bin`, only
/// the placements of the slices of its parts (see [`part_of_slice`]).
pub fn group_keys(indexes: &[MaterialIndex], advancement: u32, bin: Option<Bin>) -> PlacementKeys {
    let two_sides = indexes.len() == 2;
    let mut keys: Vec<u64> = each_slice_of_group(indexes, advancement, |slice, out| {
        if bin.is_some_and(|b| !b.contains(part_of_slice(indexes, &slice))) {
            return;
        }
        out.push(PlacementKeys::pack((0, slice.men)));
        if two_sides {
            out.push(PlacementKeys::pack((1, slice.mirror_men)));
        } else if slice.mirror_men != slice.men {
            out.push(PlacementKeys::pack((0, slice.mirror_men)));
        }
    });
    keys.par_sort_unstable();
    PlacementKeys::from_sorted(keys)
}

/// The part of a men placement (White men `white_men`, Black men
/// `black_men`, dense masks, as seen with White to move) within its
/// group: the rows walked by the White men together, by the most advanced
/// White man and by the most advanced Black man, packed as `walked << 8 |
/// (white_most + 1) << 4 | (black_most + 1)` (0 where a colour has no
/// men). A man step raises the first two (a White step) or the third (a
/// Black step) by at most one, so the slices of a part lead only into a
/// few parts of the next group (see [`parts_read`]), never into all of it.
///
/// A placement of a single man (a pair with one man) is its own part: its
/// square plus one in bits 16 and up (`ONE_MAN_SHIFT`). The slices of
/// such a pair are few and large (`KKK-KKKKM` has 3.0 G king placements a
/// side), so a part is one slice, and a man step leads into the one or
/// two parts of the squares ahead.
pub fn part_of_men(white_men: u64, black_men: u64) -> u32 {
    let most = |mut men: u64, white: bool| {
        let mut most = 0;
        while men != 0 {
            most = most.max(1 + walked_rows(men.trailing_zeros(), white));
            men &= men - 1;
        }
        most
    };
    let walked = advancement_of(white_men, 0);
    let square = match (white_men | black_men).count_ones() {
        1 => ((white_men | black_men).trailing_zeros() + 1) << ONE_MAN_SHIFT,
        _ => 0,
    };
    square | walked << 8 | most(white_men, true) << 4 | most(black_men, false)
}

/// Where a part key keeps the square of a pair's single man, plus one (0
/// where the pair has more men: see [`part_of_men`]).
const ONE_MAN_SHIFT: u32 = 16;

/// The square of the single man of a part of a one-man pair, if it is one.
fn one_man_square(part: u32) -> Option<u32> {
    (part >> ONE_MAN_SHIFT).checked_sub(1)
}

/// The part of `slice` (see [`part_of_men`]): of its side-0 placement, or
/// in a symmetric pair, whose slices hold a placement and its colour flip
/// together, the smaller part of the two.
pub fn part_of_slice(indexes: &[MaterialIndex], slice: &Slice) -> u32 {
    part_of_physical(indexes, slice.white_men, slice.black_men)
}

/// The part of the slice holding the men placement `(white_men,
/// black_men)` with White to move (see [`part_of_slice`]).
fn part_of_physical(indexes: &[MaterialIndex], white_men: u64, black_men: u64) -> u32 {
    let part = part_of_men(white_men, black_men);
    if indexes.len() == 1 {
        part.min(part_of_men(dense::flip(black_men), dense::flip(white_men)))
    } else {
        part
    }
}

/// The part of the slice that holds men placement `men` of side `side`
/// of the pair whose sides have the indexes `indexes`.
pub fn part_of_placement(indexes: &[MaterialIndex], side: usize, men: u64) -> u32 {
    let index = &indexes[side];
    let [wm, _, bm, _] = index.unrank_masks(men * index.king_placements());
    if side == 0 {
        part_of_physical(indexes, wm, bm)
    } else {
        // The mirror material's placement, seen with White to move.
        part_of_physical(indexes, dense::flip(bm), dense::flip(wm))
    }
}

/// The placements (keys, both sides) of each part of group `advancement`,
/// counted from the rows the men stand on (see `men_by_part`) without
/// walking the placements: in a pair of two materials each side-0
/// placement and its mirror are two keys of one part; in a symmetric pair
/// a placement and its colour flip share the smaller of their two parts.
pub fn part_sizes(
    indexes: &[MaterialIndex],
    advancement: u32,
) -> std::collections::BTreeMap<u32, u64> {
    let mut sizes = std::collections::BTreeMap::new();
    let symmetric = indexes.len() == 1;
    let material = indexes[0].material();
    if material.white_men + material.black_men == 1 {
        // A part a square: the placement and its mirror's, two keys.
        for (white_men, black_men) in one_man_placements(material, advancement) {
            sizes.insert(part_of_men(white_men, black_men), 2);
        }
        return sizes;
    }
    for (part, placements) in men_by_part(material, advancement) {
        let (key, keys) = if symmetric {
            let flipped = (advancement - (part >> 8)) << 8 | (part & 15) << 4 | (part >> 4 & 15);
            (part.min(flipped), placements)
        } else {
            (part, 2 * placements)
        };
        *sizes.entry(key).or_insert(0) += keys;
    }
    sizes
}

/// The placements `(white men, black men)` of the single man of
/// `material` (White to move) that have walked `advancement` rows.
fn one_man_placements(material: Material, advancement: u32) -> Vec<(u64, u64)> {
    let white = material.white_men == 1;
    (0..50u32)
        .filter(|&d| walked_rows(d, white) == advancement)
        .filter(|&d| dense::row(d) != if white { 0 } else { 9 })
        .map(|d| if white { (1 << d, 0) } else { (0, 1 << d) })
        .collect()
}

/// How many men of one colour stand on each row (`counts[row]`, rows as
/// in [`dense::row`]), with the rows they have walked together and the
/// rows walked by the most advanced of them plus one (0 without men): the
/// first two coordinates of a part (see [`part_of_men`]) for White.
struct RowProfile {
    counts: [u8; 10],
    walked: u32,
    most: u32,
}

/// Every way of spreading `count` men of one colour over the rows a man
/// of that colour may stand on (White never on row 0, Black never on row
/// 9), at most five to a row.
fn row_profiles(count: u32, white: bool) -> Vec<RowProfile> {
    fn spread(row: u32, left: u32, white: bool, counts: &mut [u8; 10], out: &mut Vec<RowProfile>) {
        if row == 10 {
            if left == 0 {
                let rows = (0..10u32).filter(|&r| counts[r as usize] > 0);
                let walked = |r| walked_rows(r * 5, white);
                out.push(RowProfile {
                    counts: *counts,
                    walked: (0..10)
                        .map(|r| u32::from(counts[r as usize]) * walked(r))
                        .sum(),
                    most: rows.map(|r| walked(r) + 1).max().unwrap_or(0),
                });
            }
            return;
        }
        let barred = if white { row == 0 } else { row == 9 };
        let most = if barred { 0 } else { left.min(5) };
        for here in 0..=most {
            counts[row as usize] = here as u8;
            spread(row + 1, left - here, white, counts, out);
        }
        counts[row as usize] = 0;
    }
    let mut out = Vec::new();
    spread(0, count, white, &mut [0; 10], &mut out);
    out
}

/// The men placements of `material` (White to move) of advancement
/// `advancement`, by part (see [`part_of_men`]), parts without placements
/// left out. A placement is a White and a Black row profile whose men fit
/// each row's five squares together: `C(5, x) * C(5 - x, y)` ways on a
/// row holding `x` White and `y` Black men. Some thousands of profiles a
/// colour, where the placements are billions.
fn men_by_part(material: Material, advancement: u32) -> std::collections::BTreeMap<u32, u64> {
    let white = row_profiles(u32::from(material.white_men), true);
    let black = row_profiles(u32::from(material.black_men), false);
    let mut by_part = std::collections::BTreeMap::new();
    for w in &white {
        let Some(black_walked) = advancement.checked_sub(w.walked) else {
            continue;
        };
        for b in black.iter().filter(|b| b.walked == black_walked) {
            let mut ways = 1u64;
            for (&x, &y) in w.counts.iter().zip(&b.counts) {
                let (x, y) = (u32::from(x), u32::from(y));
                if x + y > 5 {
                    ways = 0;
                    break;
                }
                ways *= binomial(5, x) * binomial(5 - x, y);
            }
            if ways > 0 {
                let part = w.walked << 8 | w.most << 4 | b.most;
                *by_part.entry(part).or_insert(0) += ways;
            }
        }
    }
    by_part
}

/// The parts of the group one advancement further that a man step from a
/// slice of part `part` can lead to (some may have no placements): a
/// White step raises the White men's rows by one and the most advanced
/// White man's by at most one, a Black step the most advanced Black man's
/// by at most one; in a symmetric pair (`symmetric`), from either colour
/// orientation of the slice, each named by the smaller of its two parts.
pub fn parts_read(part: u32, advancement: u32, symmetric: bool) -> Vec<u32> {
    if let Some(square) = one_man_square(part) {
        return one_man_parts_read(part, square);
    }
    let unpack = |p: u32| (p >> 8, p >> 4 & 15, p & 15);
    let pack = |(j, w, b): (u32, u32, u32)| j << 8 | w << 4 | b;
    // The part of the colour flip of a placement of `total` rows walked.
    let flip = |(j, w, b): (u32, u32, u32), total: u32| (total.saturating_sub(j), b, w);
    let mut orientations = vec![unpack(part)];
    if symmetric {
        orientations.push(flip(unpack(part), advancement));
    }
    let mut out = Vec::new();
    for (j, w, b) in orientations {
        let mut next = Vec::new();
        if w > 0 {
            next.extend([(j + 1, w, b), (j + 1, w + 1, b)]);
        }
        if b > 0 {
            next.extend([(j, w, b), (j, w, b + 1)]);
        }
        for n in next {
            let p = if symmetric {
                pack(n).min(pack(flip(n, advancement + 1)))
            } else {
                pack(n)
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The parts a step of the single man on `square` (of part `part`, see
/// [`part_of_men`]) leads to: those of the squares ahead of it.
fn one_man_parts_read(part: u32, square: u32) -> Vec<u32> {
    let white = part >> 4 & 15 > 0;
    let directions = if white {
        dense::WHITE_FORWARD
    } else {
        dense::BLACK_FORWARD
    };
    let mut out: Vec<u32> = directions
        .iter()
        .filter_map(|&d| dense::RAYS[square as usize][d].squares().first())
        .map(|&to| {
            let man = 1u64 << to;
            if white {
                part_of_men(man, 0)
            } else {
                part_of_men(0, man)
            }
        })
        .collect();
    out.sort_unstable();
    out
}

/// Positions whose 3-bit values take the memory of one men placement's
/// key in a group layer (16 bytes).
pub const KEY_WEIGHT: u64 = 43;

/// What `keys` men placements of `king_placements` positions each weigh
/// against `--split-groups-above`: their positions, and [`KEY_WEIGHT`]
/// for each key. Where men are many and kings few, the keys outweigh the
/// values (`MMM-MMMMM` has one position a placement).
pub fn weight(keys: u64, king_placements: u64) -> u64 {
    keys.saturating_mul(king_placements + KEY_WEIGHT)
}

/// Parts of a group in parts (see [`part_of_men`]) solved as one unit:
/// those whose keys lie in `first..end`. A group's parts are *binned* in
/// key order up to the split threshold ([`bins_of`]), so that it is cut
/// into only as many units as its weight needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bin {
    /// The first part (a part key); names the bin in ids and files.
    pub first: u32,
    /// The part after the last (the next bin's first; `u32::MAX` for the
    /// last bin).
    pub end: u32,
}

impl Bin {
    /// Whether part `part` is in the bin.
    pub fn contains(self, part: u32) -> bool {
        (self.first..self.end).contains(&part)
    }
}

/// The bins of a group whose parts hold `sizes` keys (as [`part_sizes`]
/// gives them), with their keys: consecutive parts in key order, each bin
/// as many as keep its [`weight`] at most `budget` (at least one part).
pub fn bins_of(
    sizes: &std::collections::BTreeMap<u32, u64>,
    king_placements: u64,
    budget: u64,
) -> Vec<(Bin, u64)> {
    let mut bins = Vec::new();
    let mut open: Option<(u32, u64)> = None;
    for (&part, &keys) in sizes {
        open = match open {
            Some((first, held)) if weight(held + keys, king_placements) <= budget => {
                Some((first, held + keys))
            }
            Some((first, held)) => {
                bins.push((Bin { first, end: part }, held));
                Some((part, keys))
            }
            None => Some((part, keys)),
        };
    }
    if let Some((first, held)) = open {
        let end = u32::MAX;
        bins.push((Bin { first, end }, held));
    }
    bins
}

/// The bin of `bins` (as [`bins_of`] gives them) that holds part `part`.
pub fn bin_of(bins: &[(Bin, u64)], part: u32) -> Option<Bin> {
    let after = bins.partition_point(|(b, _)| b.first <= part);
    after
        .checked_sub(1)
        .map(|i| bins[i].0)
        .filter(|b| b.contains(part))
}

/// The bins of the group one advancement further (`next`, whose parts
/// hold `next_sizes` keys) that bin `bin` of group `advancement` (whose
/// parts hold `sizes` keys) reads: those holding a part that a part of
/// `bin` reads ([`parts_read`]) and that has placements; in key order.
pub fn bins_read(
    (sizes, bin): (&std::collections::BTreeMap<u32, u64>, Bin),
    advancement: u32,
    symmetric: bool,
    (next_sizes, next): (&std::collections::BTreeMap<u32, u64>, &[(Bin, u64)]),
) -> Vec<Bin> {
    let mut out: Vec<Bin> = Vec::new();
    for &part in sizes.range(bin.first..bin.end).map(|(p, _)| p) {
        for read in parts_read(part, advancement, symmetric) {
            if !next_sizes.contains_key(&read) {
                continue;
            }
            if let Some(b) = bin_of(next, read).filter(|b| !out.contains(b)) {
                out.push(b);
            }
        }
    }
    out.sort_unstable_by_key(|b| b.first);
    out
}

/// A part's name in unit ids and file names: `p<White rows>_<most
/// advanced White man's rows>_<most advanced Black man's rows>`, `n`
/// where a colour has no men, and `_s<square>` (1-50, White to move) for
/// the single man of a one-man pair.
pub fn part_name(part: u32) -> String {
    let most = |x: u32| match x {
        0 => "n".to_string(),
        x => (x - 1).to_string(),
    };
    let square = one_man_square(part).map_or(String::new(), |d| format!("_s{}", d + 1));
    format!(
        "p{}_{}_{}{square}",
        part >> 8 & 255,
        most(part >> 4 & 15),
        most(part & 15)
    )
}

/// The slice of side 0's men placement `men`, of the pair whose sides have
/// the indexes `indexes`; `None` when a symmetric pair keeps it as the
/// mirror of another (as [`group_slices`] lists them).
pub fn slice_of(indexes: &[MaterialIndex], men: u64) -> Option<Slice> {
    let [wm, _, bm, _] = indexes[0].unrank_masks(men * indexes[0].king_placements());
    slice_of_men(indexes, wm, bm, advancement_of(wm, bm))
}

/// The slice whose side-0 placement has the White men `wm` and the Black
/// men `bm` (of advancement `advancement`); `None` as [`slice_of`].
fn slice_of_men(indexes: &[MaterialIndex], wm: u64, bm: u64, advancement: u32) -> Option<Slice> {
    let (first, other) = (&indexes[0], &indexes[indexes.len() - 1]);
    let kings = first.king_placements();
    let men = first.rank_masks(wm, 0, bm, 0) / kings;
    let mirror_men = other.rank_masks(dense::flip(bm), 0, dense::flip(wm), 0) / kings;
    // A symmetric material meets each pair of placements twice.
    (indexes.len() == 2 || mirror_men >= men).then_some(Slice {
        advancement,
        men,
        mirror_men,
        white_men: wm,
        black_men: bm,
    })
}

/// Calls `each(slice, out)` for every slice of the group of advancement
/// `advancement` (in parallel, in no order), gathering what it pushes.
fn each_slice_of_group<T: Send>(
    indexes: &[MaterialIndex],
    advancement: u32,
    each: impl Fn(Slice, &mut Vec<T>) + Sync,
) -> Vec<T> {
    fold_slices_of_group(
        indexes,
        advancement,
        |out: &mut Vec<T>, slice| each(slice, out),
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    )
}

/// Folds every slice of the group of advancement `advancement` into
/// accumulators made by `A::default()` (`fold`, in parallel, in no
/// order), then merges them (`merge`).
fn fold_slices_of_group<A: Send + Default>(
    indexes: &[MaterialIndex],
    advancement: u32,
    fold: impl Fn(&mut A, Slice) + Sync,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> A {
    let material = indexes[0].material();
    let white = men_sets_by_walk(u32::from(material.white_men), true);
    let black = men_sets_by_walk(u32::from(material.black_men), false);
    let white_sets: Vec<(usize, u64)> = white
        .iter()
        .enumerate()
        .filter(|(s, _)| (advancement as usize) >= *s)
        .flat_map(|(s, sets)| sets.iter().map(move |&wm| (s, wm)))
        .collect();
    white_sets
        .par_iter()
        .fold(A::default, |mut acc, &(s, wm)| {
            let black_sets = black
                .get(advancement as usize - s)
                .map_or(&[][..], Vec::as_slice);
            for &bm in black_sets.iter().filter(|&&bm| bm & wm == 0) {
                if let Some(slice) = slice_of_men(indexes, wm, bm, advancement) {
                    fold(&mut acc, slice);
                }
            }
            acc
        })
        .reduce(A::default, merge)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slice of a pair, by walking every men placement (the way the
    /// first slice solver listed them).
    fn all_slices(indexes: &[MaterialIndex]) -> Vec<Slice> {
        let first = &indexes[0];
        let other = &indexes[indexes.len() - 1];
        let kings = first.king_placements();
        let mut slices: Vec<Slice> = (0..first.men_placements())
            .filter_map(|men| {
                let [wm, _, bm, _] = first.unrank_masks(men * kings);
                let mirror_men = other.rank_masks(dense::flip(bm), 0, dense::flip(wm), 0) / kings;
                (indexes.len() == 2 || mirror_men >= men).then_some(Slice {
                    advancement: advancement_of(wm, bm),
                    men,
                    mirror_men,
                    white_men: wm,
                    black_men: bm,
                })
            })
            .collect();
        slices.sort_by_key(|s| (std::cmp::Reverse(s.advancement), s.men));
        slices
    }

    /// The keys of each part of group `advancement`, by walking its
    /// slices (the way the plan first counted them).
    fn part_sizes_by_walking(
        indexes: &[MaterialIndex],
        advancement: u32,
    ) -> std::collections::BTreeMap<u32, u64> {
        let mut sizes = std::collections::BTreeMap::new();
        for slice in group_slices(indexes, advancement) {
            let keys = if indexes.len() == 2 || slice.mirror_men != slice.men {
                2
            } else {
                1
            };
            *sizes.entry(part_of_slice(indexes, &slice)).or_insert(0) += keys;
        }
        sizes
    }

    #[test]
    fn part_sizes_counted_from_rows_are_those_of_a_walk() {
        for name in [
            "KM-K", "K-KM", "M-M", "KM-MM", "MM-MM", "M-MMM", "MMM-MM", "KMM-KM", "MMMM-M", "KKM-M",
        ] {
            let m: Material = name.parse().unwrap();
            let mut indexes = vec![MaterialIndex::new(m)];
            if !m.is_symmetric() {
                indexes.push(MaterialIndex::new(m.mirrored()));
            }
            let mut total = 0;
            for a in group_advancements(m) {
                let counted = part_sizes(&indexes, a);
                assert_eq!(counted, part_sizes_by_walking(&indexes, a), "{name} a{a}");
                total += counted.values().sum::<u64>();
            }
            let sides = if m.is_symmetric() { 1 } else { 2 };
            assert_eq!(total, sides * indexes[0].men_placements(), "{name}");
        }
    }

    #[test]
    fn groups_found_directly_are_those_of_a_walk_over_every_placement() {
        for name in [
            "KM-K", "M-M", "KM-MM", "MM-MM", "M-MMM", "KMM-KM", "MMM-M", "MM-M",
        ] {
            let m: Material = name.parse().unwrap();
            let mut indexes = vec![MaterialIndex::new(m)];
            if !m.is_symmetric() {
                indexes.push(MaterialIndex::new(m.mirrored()));
            }
            let walked = all_slices(&indexes);
            let direct: Vec<Slice> = group_advancements(m)
                .into_iter()
                .flat_map(|a| group_slices(&indexes, a))
                .collect();
            assert!(walked == direct, "{name}");
            // The counts per advancement agree with the placements.
            let counts = placements_by_advancement(m);
            assert_eq!(
                counts.iter().sum::<u64>(),
                indexes[0].men_placements(),
                "{name}"
            );
            for (a, &n) in counts.iter().enumerate() {
                let listed = (0..indexes[0].men_placements())
                    .filter(|&men| {
                        let [wm, _, bm, _] =
                            indexes[0].unrank_masks(men * indexes[0].king_placements());
                        advancement_of(wm, bm) == a as u32
                    })
                    .count() as u64;
                assert_eq!(listed, n, "{name} advancement {a}");
            }
        }
    }

    #[test]
    fn keys_and_slices_made_from_them_are_those_of_the_listed_slices() {
        for name in ["KM-K", "M-M", "KM-MM", "MM-MM", "KMM-KM", "MMM-M", "KK-KM"] {
            let m: Material = name.parse().unwrap();
            let mut indexes = vec![MaterialIndex::new(m)];
            if !m.is_symmetric() {
                indexes.push(MaterialIndex::new(m.mirrored()));
            }
            for a in group_advancements(m) {
                let slices = group_slices(&indexes, a);
                let mut listed = Vec::new();
                for slice in &slices {
                    listed.push((0u8, slice.men));
                    if indexes.len() == 2 {
                        listed.push((1, slice.mirror_men));
                    } else if slice.mirror_men != slice.men {
                        listed.push((0, slice.mirror_men));
                    }
                }
                listed.sort_unstable();
                let keys = group_keys(&indexes, a, None);
                assert!(keys.iter().eq(listed.iter().copied()), "{name} a{a}");
                let made: Vec<Slice> = keys
                    .iter()
                    .filter(|&(side, _)| side == 0)
                    .filter_map(|(_, men)| slice_of(&indexes, men))
                    .collect();
                assert!(made == slices, "{name} a{a}");
            }
        }
    }

    /// The placements one White man step from `(wm, bm)` leads to (no
    /// crownings: they leave the pair).
    fn white_steps(wm: u64, bm: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut men = wm;
        while men != 0 {
            let from = men.trailing_zeros();
            men &= men - 1;
            for d in dense::WHITE_FORWARD {
                let Some(&to) = dense::RAYS[from as usize][d].squares().first() else {
                    continue;
                };
                if (wm | bm) >> to & 1 == 0 && dense::row(u32::from(to)) > 0 {
                    out.push((wm ^ 1 << from ^ 1 << to, bm));
                }
            }
        }
        out
    }

    #[test]
    fn a_man_step_leads_only_into_the_parts_read() {
        for name in [
            "KM-MM", "MM-MM", "KMM-KM", "MMM-M", "KM-KM", "KKM-K", "KK-KM",
        ] {
            let m: Material = name.parse().unwrap();
            let mut indexes = vec![MaterialIndex::new(m)];
            if !m.is_symmetric() {
                indexes.push(MaterialIndex::new(m.mirrored()));
            }
            let symmetric = indexes.len() == 1;
            let mut parts_seen = 0;
            for a in group_advancements(m) {
                let sizes = part_sizes(&indexes, a);
                parts_seen += sizes.len();
                let part_keys: std::collections::BTreeMap<u32, PlacementKeys> = sizes
                    .keys()
                    .map(|&p| {
                        (
                            p,
                            group_keys(
                                &indexes,
                                a,
                                Some(Bin {
                                    first: p,
                                    end: p + 1,
                                }),
                            ),
                        )
                    })
                    .collect();
                let keys: usize = sizes.values().sum::<u64>() as usize;
                assert_eq!(keys, group_keys(&indexes, a, None).len(), "{name} a{a}");
                for slice in group_slices(&indexes, a) {
                    let part = part_of_slice(&indexes, &slice);
                    let read = parts_read(part, a, symmetric);
                    let (wm, bm) = (slice.white_men, slice.black_men);
                    let black = white_steps(dense::flip(bm), dense::flip(wm))
                        .into_iter()
                        .map(|(b, w)| (dense::flip(w), dense::flip(b)));
                    for (w, b) in white_steps(wm, bm).into_iter().chain(black) {
                        let next = part_of_physical(&indexes, w, b);
                        assert!(
                            read.contains(&next),
                            "{name} a{a}: {} reads {read:?}, not {}",
                            part_name(part),
                            part_name(next)
                        );
                    }
                    // Its keys are the part's, wherever a key is looked up.
                    assert!(part_keys[&part].position((0, slice.men)).is_some());
                    let other = usize::from(!symmetric);
                    assert_eq!(
                        part_of_placement(&indexes, other, slice.mirror_men),
                        part,
                        "{name}"
                    );
                    assert_eq!(part_of_placement(&indexes, 0, slice.men), part);
                }
                for (&part, &n) in &sizes {
                    assert_eq!(part_keys[&part].len() as u64, n);
                }
            }
            assert!(parts_seen > group_advancements(m).len(), "{name}: no split");
        }
    }

    /// Parts binned several to a unit: the bins cover each group's keys
    /// in order, none heavier than the budget unless it holds one part,
    /// and every man step from a bin lands in a bin it reads.
    #[test]
    fn a_man_step_leads_only_into_the_bins_read() {
        for (name, budget) in [
            ("KM-MM", 2_000_000),
            ("MM-MM", 60_000),
            ("KMM-KM", 20_000_000),
        ] {
            let m: Material = name.parse().unwrap();
            let mut indexes = vec![MaterialIndex::new(m)];
            if !m.is_symmetric() {
                indexes.push(MaterialIndex::new(m.mirrored()));
            }
            let kings = indexes[0].king_placements();
            let symmetric = indexes.len() == 1;
            let bins_of_group = |a| {
                let sizes = part_sizes(&indexes, a);
                let bins = bins_of(&sizes, kings, budget);
                (sizes, bins)
            };
            let mut several = false;
            for a in group_advancements(m) {
                let (sizes, bins) = bins_of_group(a);
                let total: u64 = bins.iter().map(|b| b.1).sum();
                assert_eq!(total, sizes.values().sum::<u64>(), "{name} a{a}");
                for pair in bins.windows(2) {
                    assert_eq!(pair[0].0.end, pair[1].0.first, "{name} a{a}");
                }
                for &(bin, keys) in &bins {
                    let parts = sizes.range(bin.first..bin.end).count();
                    several |= parts > 1;
                    assert!(parts == 1 || weight(keys, kings) <= budget, "{name} a{a}");
                }
                let (next_sizes, next_bins) = bins_of_group(a + 1);
                for slice in group_slices(&indexes, a) {
                    let bin = bin_of(&bins, part_of_slice(&indexes, &slice)).unwrap();
                    let read = bins_read((&sizes, bin), a, symmetric, (&next_sizes, &next_bins));
                    let (wm, bm) = (slice.white_men, slice.black_men);
                    let black = white_steps(dense::flip(bm), dense::flip(wm))
                        .into_iter()
                        .map(|(b, w)| (dense::flip(w), dense::flip(b)));
                    for (w, b) in white_steps(wm, bm).into_iter().chain(black) {
                        let next = bin_of(&next_bins, part_of_physical(&indexes, w, b));
                        assert!(next.is_some_and(|n| read.contains(&n)), "{name} a{a}");
                    }
                }
            }
            assert!(several, "{name}: no bin holds two parts at {budget}");
        }
    }

    #[test]
    fn advancement_counts_rows_walked() {
        // A White man on square 46 (dense 45) has walked 0 rows, on 6
        // (dense 5) 8; a Black man on 5 (dense 4) 0, on 45 (dense 44) 8.
        assert_eq!(advancement_of(1 << 45, 1 << 4), 0);
        assert_eq!(advancement_of(1 << 5, 1 << 44), 16);
    }
}
