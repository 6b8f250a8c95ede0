//! The codes a version-2 WLD table stores in one block: capture positions
//! and the positions its rule leaves to the search (`format::SearchRule`:
//! searched threats or every quiet position, less the spread ones it
//! stores) are "don't care",
//! and each takes the code of the last position kept before it in the
//! block (the first kept one at the block's start), which lengthens the
//! runs around it.
//!
//! The rule is applied lazily: a position whose code is the one the fill
//! would give it anyway is written as it is, without asking whether it is
//! a threat (the answer could not change the block). Only where the code
//! changes is the position built and tested. Values change rarely in
//! index order, so this tests a few positions in a hundred instead of all
//! of them. A table that searches every quiet position skips, once one
//! position tells it so, the rest of a placement of the men whose
//! positions it all leaves to the search
//! (`SearchRule::stores_by_masks`). The block is byte for byte the
//! one [`eager_block`] writes,
//! which tests every position (a test compares them on every table up to
//! four pieces).

use format::{MaterialIndex, SearchRule, SearchScratch};

/// Where a block's codes come from: position `i`'s code, and whether the
/// solver marked it as a capture position (`false` where it is not known:
/// the position is then tested when its code matters).
pub(crate) trait BlockSource {
    /// Position `i`'s code.
    fn code(&self, i: u64) -> u8;
    /// Whether position `i` is known to be a capture position.
    fn marked_capture(&self, i: u64) -> bool;

    /// The first position of `from..end` whose code is not `code`; `end`
    /// where there is none.
    fn next_differing(&self, from: u64, end: u64, code: u8) -> u64 {
        (from..end).find(|&i| self.code(i) != code).unwrap_or(end)
    }
}

/// [`BlockSource::next_differing`] of codes packed four to a byte
/// (position `i` in bits `2(i % 4)` of byte `i / 4`), 32 positions a
/// step.
pub(crate) fn next_differing_packed(codes: &[u8], from: u64, end: u64, code: u8) -> u64 {
    const LOW_BITS: u64 = 0x5555_5555_5555_5555;
    let pattern = u64::from(code) * LOW_BITS;
    let mut i = from;
    while i < end {
        let word = (i / 32) as usize;
        let mut bytes = [0u8; 8];
        let have = codes.get(word * 8..).unwrap_or(&[]);
        let n = have.len().min(8);
        bytes[..n].copy_from_slice(&have[..n]);
        // Positions from `i` on, one bit a differing one (past the codes,
        // zero bytes may differ: `end` bounds the answer).
        let diff = (u64::from_le_bytes(bytes) ^ pattern) >> (2 * (i % 32));
        let differing = (diff | diff >> 1) & LOW_BITS;
        if differing != 0 {
            return (i + u64::from(differing.trailing_zeros() / 2)).min(end);
        }
        i = (i / 32 + 1) * 32;
    }
    end
}

/// Sets the codes of positions `from..to` of `raw` (zeroed, packed as
/// [`searched_block`] writes them) to `code`.
fn put_run(raw: &mut [u8], from: usize, to: usize, code: u8) {
    let mut j = from;
    while j < to && !j.is_multiple_of(4) {
        raw[j / 4] |= code << (2 * (j % 4));
        j += 1;
    }
    let whole = (to - j) / 4;
    raw[j / 4..j / 4 + whole].fill(code * 0x55);
    j += whole * 4;
    while j < to {
        raw[j / 4] |= code << (2 * (j % 4));
        j += 1;
    }
}

/// What [`kept`] reuses from one position to the next.
#[derive(Default)]
struct Scratch {
    cursor: format::UnrankCursor,
    search: SearchScratch,
    /// Positions below this one are known to be left to the search
    /// (`SearchRule::stores_by_masks`).
    left_below: u64,
}

/// Whether position `i` of `index` is stored ("kept") by a version-2 WLD
/// table of rule `rule`: not a capture position, not left to the search.
fn kept(rule: &SearchRule, index: &MaterialIndex, i: u64, scratch: &mut Scratch) -> bool {
    if i < scratch.left_below {
        return false;
    }
    let masks = index.unrank_masks_with(i, &mut scratch.cursor);
    let Some((stores, all_left)) = rule.stores_by_masks(masks, &mut scratch.search) else {
        let [wm, wk, bm, bk] = masks;
        let pos = rules::Position::from_dense_masks(rules::Color::White, wm | wk, bm | bk, wk | bk)
            .expect("unrank yields a legal placement");
        return rule.stores(&pos, &mut scratch.search);
    };
    if all_left {
        let run = index.king_placements();
        scratch.left_below = (i / run + 1) * run;
    }
    stores
}

/// The packed codes (2 bits a position, position `start + j` in bits
/// `2j, 2j + 1`) of positions `start..end` of `index`'s table as version
/// 2 stores them under `rule` (see the module docs).
pub(crate) fn searched_block(
    rule: &SearchRule,
    index: &MaterialIndex,
    source: &impl BlockSource,
    start: u64,
    end: u64,
) -> Vec<u8> {
    let mut scratch = Scratch::default();
    let mut raw = vec![0u8; (end - start).div_ceil(4) as usize];
    let first_kept = (start..end)
        .find(|&i| !source.marked_capture(i) && kept(rule, index, i, &mut scratch))
        .unwrap_or(end);
    let first_code = if first_kept < end {
        source.code(first_kept)
    } else {
        1
    };
    // The positions before the first kept one take its code.
    let at = |i: u64| (i - start) as usize;
    put_run(&mut raw, 0, at(first_kept), first_code);
    let (mut last, mut i) = (first_code, first_kept);
    while i < end {
        // Up to the next position whose code differs, the last one kept's.
        let next = source.next_differing(i, end, last);
        put_run(&mut raw, at(i), at(next), last);
        if next == end {
            break;
        }
        if !source.marked_capture(next) && kept(rule, index, next, &mut scratch) {
            last = source.code(next);
        }
        put_run(&mut raw, at(next), at(next) + 1, last);
        i = next + 1;
    }
    raw
}

/// [`searched_block`] written out as its definition: every position
/// tested. The reference the lazy one is checked against.
#[cfg(test)]
pub(crate) fn eager_block(
    rule: &SearchRule,
    index: &MaterialIndex,
    source: &impl BlockSource,
    start: u64,
    end: u64,
) -> Vec<u8> {
    let mut cursor = format::UnrankCursor::default();
    let mut scratch = SearchScratch::default();
    let kept: Vec<Option<u8>> = (start..end)
        .map(|i| {
            let pos = index.unrank_with(i, &mut cursor);
            let stored =
                !source.marked_capture(i) && !pos.has_capture() && !rule.leaves(&pos, &mut scratch);
            stored.then(|| source.code(i))
        })
        .collect();
    let mut last = kept.iter().flatten().next().copied().unwrap_or(1);
    let mut raw = vec![0u8; kept.len().div_ceil(4)];
    for (j, code) in kept.iter().enumerate() {
        let code = code.unwrap_or(last);
        last = code;
        raw[j / 4] |= code << (2 * (j % 4));
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes in runs of pseudo-random lengths, some positions marked as
    /// captures (rightly or not: the fill must agree either way).
    struct Runs {
        seed: u64,
    }

    impl Runs {
        fn hash(&self, i: u64) -> u64 {
            let mut x = (i ^ self.seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 29;
            x.wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 32)
        }
    }

    impl BlockSource for Runs {
        fn code(&self, i: u64) -> u8 {
            (self.hash(i / 7) % 3) as u8
        }

        fn marked_capture(&self, i: u64) -> bool {
            self.hash(i.wrapping_add(1 << 40)).is_multiple_of(11)
        }
    }

    #[test]
    fn the_lazy_fill_writes_the_blocks_of_the_eager_one() {
        for (name, rule) in [
            ("KM-M", (true, false, None)),
            ("KK-MM", (true, false, Some(4096))),
            ("KMM-K", (false, true, Some(1024))),
            ("MM-KM", (true, false, Some(256))),
            ("KK-K", (true, false, None)),
            ("MM-KM", (false, true, Some(256))),
            ("MM-KM", (false, true, Some(65_536))),
            ("KMM-K", (false, true, Some(16_384))),
            ("MMM-K", (false, true, None)),
        ] {
            let material = name.parse().expect("material");
            let index = MaterialIndex::new(material);
            let rule = SearchRule::new(material, rule.0, rule.1, rule.2).expect("a rule");
            for seed in 0..3 {
                let source = Runs { seed };
                for block in [64, 1000, 4096] {
                    let mut start = 0;
                    while start < index.count() {
                        let end = (start + block).min(index.count());
                        assert_eq!(
                            searched_block(&rule, &index, &source, start, end),
                            eager_block(&rule, &index, &source, start, end),
                            "{name} {seed} {start}..{end}"
                        );
                        start = end;
                    }
                }
            }
        }
    }

    #[test]
    fn the_packed_scan_finds_what_the_position_by_position_one_finds() {
        let source = Runs { seed: 5 };
        let count = 1_000;
        let mut codes = vec![0u8; count / 4];
        for i in 0..count {
            codes[i / 4] |= source.code(i as u64) << (2 * (i % 4));
        }
        for from in 0..200u64 {
            for end in [from, from + 1, from + 33, 999, 1_000] {
                for code in 0..3 {
                    let expected = (from..end)
                        .find(|&i| format::wdl_code(&codes, i as usize) != code)
                        .unwrap_or(end);
                    assert_eq!(
                        next_differing_packed(&codes, from, end, code),
                        expected,
                        "{from}..{end} {code}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_run_sets_the_codes_of_its_positions_only() {
        for from in 0..12 {
            for to in from..20 {
                let mut raw = vec![0u8; 5];
                put_run(&mut raw, from, to, 2);
                for j in 0..20 {
                    let code = raw[j / 4] >> (2 * (j % 4)) & 3;
                    assert_eq!(code, if (from..to).contains(&j) { 2 } else { 0 });
                }
            }
        }
    }
}
