//! Solved values held in memory: a WLD code per position (2 bits), a
//! capture mark (1 bit) and, when asked for, a DTC byte; and the *layers*
//! the slice solver writes and reads them through: a whole pair addressed
//! by its indexes, or one slice group addressed by its men placements.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use format::{dtc_byte, Material, MaterialIndex};

use plan::{GenError, PlacementKeys};

/// Packed values of a run of positions `0..len`.
pub(crate) struct PackedValues {
    len: u64,
    codes: Vec<AtomicU64>,
    captures: Vec<AtomicU64>,
    /// Empty when no DTC is kept.
    dtc: Vec<AtomicU8>,
}

impl PackedValues {
    /// `len` positions, all lost (code 0) and unmarked; room for DTC bytes
    /// if `with_dtc`.
    pub(crate) fn new(len: u64, with_dtc: bool) -> Result<PackedValues, GenError> {
        let n = usize::try_from(len)
            .map_err(|_| GenError::BadOptions(format!("{len} positions do not fit in memory")))?;
        Ok(PackedValues {
            len,
            codes: (0..n.div_ceil(32)).map(|_| AtomicU64::new(0)).collect(),
            captures: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            dtc: if with_dtc {
                (0..n).map(|_| AtomicU8::new(0)).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// `len` positions, all lost (code 0), with no capture marks and no
    /// DTC bytes: codes only, 2 bits a position (a solver that finds the
    /// capture marks again when it writes them out).
    pub(crate) fn codes_only(len: u64) -> Result<PackedValues, GenError> {
        let n = usize::try_from(len)
            .map_err(|_| GenError::BadOptions(format!("{len} positions do not fit in memory")))?;
        Ok(PackedValues {
            len,
            codes: (0..n.div_ceil(32)).map(|_| AtomicU64::new(0)).collect(),
            captures: Vec::new(),
            dtc: Vec::new(),
        })
    }

    /// Values from their words (as [`PackedValues::code_word`],
    /// [`PackedValues::capture_word`] and [`PackedValues::dtc_bytes`] give
    /// them); `None` when the lengths do not fit `len`.
    pub(crate) fn from_words(
        len: u64,
        codes: Vec<u64>,
        captures: Vec<u64>,
        dtc: Vec<u8>,
    ) -> Option<PackedValues> {
        let n = usize::try_from(len).ok()?;
        let fits = codes.len() == n.div_ceil(32)
            && (captures.is_empty() || captures.len() == n.div_ceil(64))
            && (dtc.is_empty() || dtc.len() == n);
        fits.then(|| PackedValues {
            len,
            codes: codes.into_iter().map(AtomicU64::new).collect(),
            captures: captures.into_iter().map(AtomicU64::new).collect(),
            dtc: dtc.into_iter().map(AtomicU8::new).collect(),
        })
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Whether DTC bytes are kept.
    pub(crate) fn has_dtc(&self) -> bool {
        !self.dtc.is_empty()
    }

    /// Whether capture marks are kept (a layer read only for its codes
    /// has none).
    pub(crate) fn has_captures(&self) -> bool {
        !self.captures.is_empty() || self.len == 0
    }

    /// The WLD code (0 loss, 1 draw, 2 win) of position `i`, once solved.
    #[inline]
    pub(crate) fn code(&self, i: u64) -> u8 {
        (self.codes[(i / 32) as usize].load(Ordering::Relaxed) >> (2 * (i % 32))) as u8 & 3
    }

    /// Whether the side to move must capture in position `i`.
    #[inline]
    pub(crate) fn is_capture(&self, i: u64) -> bool {
        self.captures[(i / 64) as usize].load(Ordering::Relaxed) >> (i % 64) & 1 == 1
    }

    /// The DTC byte of position `i` (meaningful for decided positions that
    /// are not capture positions).
    #[inline]
    pub(crate) fn dtc(&self, i: u64) -> u8 {
        self.dtc[i as usize].load(Ordering::Relaxed)
    }

    /// Records that position `i` settled at `level` (its DTC), if DTC
    /// bytes are kept.
    #[inline]
    pub(crate) fn store_dtc(&self, i: u64, level: u32) {
        if let Some(cell) = self.dtc.get(i as usize) {
            cell.store(dtc_byte(level), Ordering::Relaxed);
        }
    }

    /// The code words themselves, for solvers that keep their own states
    /// in the spare code 3 while they work ([`crate::solvers::menless`]).
    pub(crate) fn code_atomics(&self) -> &[AtomicU64] {
        &self.codes
    }

    /// The capture-mark words themselves (see
    /// [`PackedValues::code_atomics`]).
    pub(crate) fn capture_atomics(&self) -> &[AtomicU64] {
        &self.captures
    }

    /// The number of code words (32 positions each).
    pub(crate) fn code_words(&self) -> usize {
        self.codes.len()
    }

    /// The number of capture-mark words (64 positions each; 0 when none
    /// are kept).
    pub(crate) fn capture_words(&self) -> usize {
        self.captures.len()
    }

    /// The 32 codes of word `w` (position `32w + j` in bits `2j, 2j+1`).
    pub(crate) fn code_word(&self, w: usize) -> u64 {
        self.codes[w].load(Ordering::Relaxed)
    }

    /// The 64 capture marks of word `w`.
    pub(crate) fn capture_word(&self, w: usize) -> u64 {
        self.captures[w].load(Ordering::Relaxed)
    }

    /// The DTC bytes, in position order (empty when none are kept).
    pub(crate) fn dtc_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.dtc.iter().map(|b| b.load(Ordering::Relaxed))
    }

    /// Records the values `(code, capture)` of positions `start`,
    /// `start + 1`, ... as [`PackedValues::store`] does, one atomic `or`
    /// per word.
    pub(crate) fn store_run(&self, start: u64, values: impl Iterator<Item = (u8, bool)>) {
        let (mut code_word, mut codes) = (start / 32, 0u64);
        let (mut mark_word, mut marks) = (start / 64, 0u64);
        let flush = |words: &[AtomicU64], w: u64, bits: u64| {
            if bits != 0 {
                words[w as usize].fetch_or(bits, Ordering::Relaxed);
            }
        };
        for (i, (code, capture)) in (start..).zip(values) {
            if i / 32 != code_word {
                flush(&self.codes, code_word, codes);
                (code_word, codes) = (i / 32, 0);
            }
            if i / 64 != mark_word {
                flush(&self.captures, mark_word, marks);
                (mark_word, marks) = (i / 64, 0);
            }
            codes |= u64::from(code) << (2 * (i % 32));
            marks |= u64::from(capture) << (i % 64);
        }
        flush(&self.codes, code_word, codes);
        flush(&self.captures, mark_word, marks);
    }

    /// Copies the values of positions `src_start..src_start + len` of
    /// `src` to positions `dst_start..` of these values, which must not
    /// have been written there yet. Capture marks and DTC bytes go along
    /// where both keep them.
    pub(crate) fn copy_run(&self, dst_start: u64, src: &PackedValues, src_start: u64, len: u64) {
        copy_bits(
            &self.codes,
            2 * dst_start,
            &src.codes,
            2 * src_start,
            2 * len,
        );
        if self.has_captures() && src.has_captures() {
            copy_bits(&self.captures, dst_start, &src.captures, src_start, len);
        }
        if self.has_dtc() && src.has_dtc() {
            for j in 0..len {
                let byte = src.dtc[(src_start + j) as usize].load(Ordering::Relaxed);
                self.dtc[(dst_start + j) as usize].store(byte, Ordering::Relaxed);
            }
        }
    }

    /// Records the value of position `i` (written once; slices running
    /// side by side may share a word, hence the atomic `or`).
    pub(crate) fn store(&self, i: u64, code: u8, capture: bool) {
        let bits = u64::from(code) << (2 * (i % 32));
        if bits != 0 {
            self.codes[(i / 32) as usize].fetch_or(bits, Ordering::Relaxed);
        }
        if capture {
            self.captures[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    }
}

/// `bits` bits of `src` from bit `src_bit` on, or-ed into `dst` from bit
/// `dst_bit` on (bit `b` of a stream is bit `b % 64` of word `b / 64`), up
/// to 64 at a time.
fn copy_bits(dst: &[AtomicU64], dst_bit: u64, src: &[AtomicU64], src_bit: u64, bits: u64) {
    let word = |words: &[AtomicU64], w: u64| {
        words
            .get(w as usize)
            .map_or(0, |x| x.load(Ordering::Relaxed))
    };
    let mut done = 0;
    while done < bits {
        let n = (bits - done).min(64);
        let (s, d) = (src_bit + done, dst_bit + done);
        let shift = s % 64;
        let mut chunk = word(src, s / 64) >> shift;
        if shift != 0 {
            chunk |= word(src, s / 64 + 1) << (64 - shift);
        }
        if n < 64 {
            chunk &= (1 << n) - 1;
        }
        let shift = d % 64;
        dst[(d / 64) as usize].fetch_or(chunk << shift, Ordering::Relaxed);
        if shift != 0 && shift + n > 64 {
            dst[(d / 64 + 1) as usize].fetch_or(chunk >> (64 - shift), Ordering::Relaxed);
        }
        done += n;
    }
}

/// The finished values of one side of a pair, by index.
pub(crate) struct PackedSide {
    /// The material (White to move).
    pub(crate) material: Material,
    /// Its index.
    pub(crate) index: MaterialIndex,
    /// Its values, position `i` at index `i`.
    pub(crate) values: PackedValues,
}

impl PackedSide {
    /// Empty values for every position of `material`.
    pub(crate) fn new(material: Material, with_dtc: bool) -> Result<PackedSide, GenError> {
        let index = MaterialIndex::new(material);
        let values =
            PackedValues::new(index.count(), with_dtc).map_err(|_| GenError::TooLarge(material))?;
        Ok(PackedSide {
            material,
            index,
            values,
        })
    }

    /// Empty codes (no capture marks, no DTC bytes) for every position of
    /// `material`.
    pub(crate) fn codes_only(material: Material) -> Result<PackedSide, GenError> {
        let index = MaterialIndex::new(material);
        let values =
            PackedValues::codes_only(index.count()).map_err(|_| GenError::TooLarge(material))?;
        Ok(PackedSide {
            material,
            index,
            values,
        })
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> u64 {
        self.values.len()
    }
}

impl std::ops::Deref for PackedSide {
    type Target = PackedValues;

    fn deref(&self) -> &PackedValues {
        &self.values
    }
}

/// Where the slice solver writes values and reads those its man steps
/// lead to.
pub(crate) enum Layer {
    /// Every position of the pair, one store per side, by index.
    Pair(Vec<PackedSide>),
    /// The positions of some men placements (a slice group), one after
    /// another: placement `keys[j]` holds positions
    /// `j * king_placements ..` of `values`.
    Group {
        /// The placements, sorted.
        keys: PlacementKeys,
        /// King placements per men placement.
        king_placements: u64,
        /// Their values.
        values: PackedValues,
    },
    /// Several group layers read together (the parts of a group that a
    /// part of the group before reads); store `k` is the `k`-th's.
    Parts(Vec<Layer>),
}

impl Layer {
    /// The store and first position of the placement `men` of side
    /// `side`; `None` when the layer does not hold it.
    pub(crate) fn locate(&self, side: usize, men: u64) -> Option<(usize, u64)> {
        match self {
            Layer::Pair(sides) => {
                let index = &sides.get(side)?.index;
                (men < index.men_placements()).then(|| (side, men * index.king_placements()))
            }
            Layer::Group {
                keys,
                king_placements,
                ..
            } => {
                let j = keys.position((side as u8, men))?;
                Some((0, j as u64 * king_placements))
            }
            Layer::Parts(parts) => parts
                .iter()
                .enumerate()
                .find_map(|(k, part)| part.locate(side, men).map(|(_, base)| (k, base))),
        }
    }

    /// King placements per men placement in store `k`.
    pub(crate) fn king_placements(&self, k: usize) -> u64 {
        match self {
            Layer::Pair(sides) => sides[k].index.king_placements(),
            Layer::Group {
                king_placements, ..
            } => *king_placements,
            Layer::Parts(parts) => parts[k].king_placements(0),
        }
    }

    /// Store `k` (see [`Layer::locate`]).
    #[inline]
    pub(crate) fn store(&self, k: usize) -> &PackedValues {
        match self {
            Layer::Pair(sides) => &sides[k].values,
            Layer::Group { values, .. } => values,
            Layer::Parts(parts) => parts[k].store(0),
        }
    }

    /// Whether its stores keep DTC bytes.
    pub(crate) fn keeps_dtc(&self) -> bool {
        match self {
            Layer::Pair(sides) => sides.iter().any(|s| s.values.has_dtc()),
            Layer::Group { values, .. } => values.has_dtc(),
            Layer::Parts(parts) => parts.iter().any(Layer::keeps_dtc),
        }
    }

    /// The pair's sides, when this layer is a whole pair.
    pub(crate) fn into_sides(self) -> Option<Vec<PackedSide>> {
        match self {
            Layer::Pair(sides) => Some(sides),
            Layer::Group { .. } | Layer::Parts(_) => None,
        }
    }

    /// An empty group layer (nothing to read: the most advanced group).
    pub(crate) fn empty_group() -> Layer {
        Layer::Group {
            keys: PlacementKeys::default(),
            king_placements: 1,
            values: PackedValues {
                len: 0,
                codes: Vec::new(),
                captures: Vec::new(),
                dtc: Vec::new(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_copied_at_any_offsets_keep_every_value() {
        let src = PackedValues::new(500, true).unwrap();
        for i in 0..500 {
            src.store(i, ((i * 7) % 3) as u8, i % 3 == 1);
            src.store_dtc(i, (i % 250) as u32);
        }
        for (dst_start, src_start, len) in [(0, 0, 500), (3, 17, 300), (64, 1, 130), (31, 33, 1)] {
            let dst = PackedValues::new(600, true).unwrap();
            dst.copy_run(dst_start, &src, src_start, len);
            for j in 0..600 {
                let (code, capture, dtc) = if j >= dst_start && j < dst_start + len {
                    let i = src_start + j - dst_start;
                    (src.code(i), src.is_capture(i), src.dtc(i))
                } else {
                    (0, false, 0)
                };
                assert_eq!(dst.code(j), code, "{dst_start} {src_start} {len}: {j}");
                assert_eq!(dst.is_capture(j), capture, "{j}");
                assert_eq!(dst.dtc(j), dtc, "{j}");
            }
        }
    }
}
