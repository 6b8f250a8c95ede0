//! The keys of a slice group: its men placements, sorted, by which the
//! builder stores a group's values and the checker finds them.

use rayon::prelude::*;

/// A men placement of one side of a pair: the side (0, or 1 for the
/// mirror material) and its rank among the men placements of that side.
pub type PlacementKey = (u8, u64);

/// The men placements of a slice group, sorted, each packed in 8 bytes:
/// the side in the top bit, the men rank below (which keeps the order of
/// `(side, men)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementKeys(Vec<u64>);

impl PlacementKeys {
    const SIDE: u64 = 1 << 63;

    /// `key` packed.
    pub fn pack((side, men): PlacementKey) -> u64 {
        debug_assert!(side < 2 && men < Self::SIDE);
        u64::from(side) << 63 | men
    }

    fn unpack(packed: u64) -> PlacementKey {
        ((packed >> 63) as u8, packed & !Self::SIDE)
    }

    /// Keys already packed and sorted, strictly increasing: a precondition
    /// (checked in debug builds only) that [`PlacementKeys::position`]'s
    /// binary search relies on.
    pub fn from_sorted(packed: Vec<u64>) -> PlacementKeys {
        debug_assert!(packed.windows(2).all(|w| w[0] < w[1]));
        PlacementKeys(packed)
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Where `key` is among them.
    pub fn position(&self, key: PlacementKey) -> Option<usize> {
        self.0.binary_search(&Self::pack(key)).ok()
    }

    /// The keys in order.
    pub fn iter(&self) -> impl Iterator<Item = PlacementKey> + '_ {
        self.0.iter().map(|&k| Self::unpack(k))
    }

    /// The keys in order, for a parallel walk (indexed: `enumerate` gives
    /// each key's place).
    pub fn par_iter(&self) -> impl IndexedParallelIterator<Item = PlacementKey> + '_ {
        self.0.par_iter().map(|&k| Self::unpack(k))
    }
}

impl FromIterator<PlacementKey> for PlacementKeys {
    /// Keys from `(side, men)` pairs in strictly increasing order (the
    /// precondition of [`PlacementKeys::from_sorted`]).
    fn from_iter<I: IntoIterator<Item = PlacementKey>>(keys: I) -> Self {
        PlacementKeys::from_sorted(keys.into_iter().map(PlacementKeys::pack).collect())
    }
}
