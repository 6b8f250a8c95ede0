//! How the builder spends memory, and the choices that decide it: which
//! solver takes a pair or a slice, in how many bits a position. The
//! solvers ask here, and the plan sizes and prices its units by the same
//! answers, so that the two cannot drift apart.

use format::{Material, MaterialIndex};

use crate::options::{GenOptions, DEFAULT_BITSET_SLICES_ABOVE};

/// Whether `material` (and its mirror) has no men and is not a counted
/// ending (whose tables keep distances under the draw counter): one slice,
/// solved by the slice solver or, when large ([`menless_in_two_bits`]),
/// by the bit-set solver for materials without men.
pub fn solved_without_men(material: Material) -> bool {
    material.white_men == 0 && material.black_men == 0 && material.counted_ending().is_none()
}

/// Positions a fresh mark stands for without DTC (a power of two; a
/// multiple of 32, so that a block's codes fill whole code words).
/// Measured on `KKK-KKK` (fmjd, 396 M positions, two threads): 227
/// core-seconds with blocks of 64 positions, 225 with 256; the solver with
/// exact marks and capture marks kept, 4 bits a position, that the menless
/// one replaced took 228.
pub const MARK_BLOCK: u64 = 256;

/// How finely the fresh marks tell which positions settled at a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marks {
    /// A mark a position: a level visits exactly the positions that
    /// settled at the one before. Needed with DTC (the levels are the
    /// distances); 2 bits a position in all.
    Exact,
    /// A mark a block of [`MARK_BLOCK`] positions, whose older settled
    /// positions a level visits again (see gen's `solvers/menless.rs`):
    /// 1/128 bit a position, for pairs whose exact marks would not fit.
    Blocks,
}

/// Pairs of at most this many positions get exact marks without DTC too:
/// their two sets take at most 4 GiB (eight pieces: `K-KKKKKKK` with its
/// mirror, 8.6 G positions, does; `KK-KKKKKK`, 30.1 G, does not). Exact
/// marks spare a level the settled positions it would visit again in a
/// block: `K-KKKK` with its mirror (fmjd, one thread) took 33.3
/// core-seconds with them and 41.7 with blocks.
pub const EXACT_MARKS_UP_TO: u64 = 1 << 34;

impl Marks {
    /// The marks a pair of `positions` positions is solved with.
    pub fn for_pair(positions: u64, with_dtc: bool) -> Marks {
        if with_dtc || positions <= EXACT_MARKS_UP_TO {
            Marks::Exact
        } else {
            Marks::Blocks
        }
    }

    /// Positions one mark stands for.
    pub fn positions_per_mark(self) -> u64 {
        match self {
            Marks::Exact => 1,
            Marks::Blocks => MARK_BLOCK,
        }
    }
}

/// Bytes of working memory of the bit-set solver for materials without
/// men beside the pair's values (codes, and with DTC
/// capture marks and DTC bytes): two sets of fresh marks.
pub fn menless_work_bytes(positions: u64, with_dtc: bool) -> u64 {
    let per_mark = Marks::for_pair(positions, with_dtc).positions_per_mark();
    2 * positions.div_ceil(per_mark).div_ceil(64) * 8
}

/// Bytes of working memory of a slice of `nodes` positions (both sides)
/// solved in 2 bits a position by the slice solver: its codes and two sets of fresh marks.
pub fn bitset_work_bytes(nodes: u64, with_dtc: bool) -> u64 {
    let per_mark = if with_dtc { 1 } else { MARK_BLOCK };
    nodes.div_ceil(32) * 8 + 2 * nodes.div_ceil(per_mark).div_ceil(64) * 8
}

/// Bytes of memory the values of `len` positions take: 2 bits a position
/// of codes, a bit of capture marks if `with_captures`, a byte of DTC if
/// `with_dtc`.
pub fn values_bytes(len: u64, with_captures: bool, with_dtc: bool) -> u64 {
    len.div_ceil(32) * 8
        + if with_captures {
            len.div_ceil(64) * 8
        } else {
            0
        }
        + if with_dtc { len } else { 0 }
}

/// How the slices of a group are solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceMode {
    /// As their size says: in 2 bits a position
    /// ([`SliceMode::Bitset`]) when a slice has more than `bitset_above`
    /// positions (both sides), else as the group solver decides.
    Auto {
        /// [`GenOptions::bitset_slices_above`](GenOptions).
        bitset_above: u64,
    },
    /// Each slice by one thread.
    OneThreadEach,
    /// Each slice by all threads together (the slice solver's big-slice path).
    AllThreads,
    /// Each slice by all threads together in 2 bits a position.
    Bitset,
}

impl Default for SliceMode {
    /// As their size says, with the default of
    /// [`GenOptions::bitset_slices_above`](GenOptions).
    fn default() -> SliceMode {
        SliceMode::Auto {
            bitset_above: DEFAULT_BITSET_SLICES_ABOVE,
        }
    }
}

impl SliceMode {
    /// The mode `options` ask for.
    pub fn of(options: &GenOptions) -> SliceMode {
        SliceMode::Auto {
            bitset_above: options.bitset_slices_above,
        }
    }

    /// The mode the slices of `nodes` nodes each (both sides to move) of a
    /// group of `slices` slices are solved in by `threads` threads:
    /// [`SliceMode::Auto`] decided, any other mode itself. The solver and
    /// the plan (which prices and sizes a group by it) both ask here.
    pub fn for_slices(self, nodes: u64, slices: u64, threads: u64) -> SliceMode {
        // Slices this big are solved one at a time by every thread; so
        // are those of groups too small to keep every thread busy (a
        // one-man material has 5 slices a group), unless tiny.
        const BIG: u64 = 1 << 23;
        const SMALL: u64 = 1 << 16;
        let few = slices < 4 * threads && nodes > SMALL;
        match self {
            SliceMode::Auto { bitset_above } if nodes > bitset_above => SliceMode::Bitset,
            SliceMode::Auto { .. } if nodes > BIG || few => SliceMode::AllThreads,
            SliceMode::Auto { .. } => SliceMode::OneThreadEach,
            mode => mode,
        }
    }
}

/// How many times `bitset_slices_above` positions a pair without men may
/// have and still go to the slice solver. Such a pair is one slice, but
/// it takes about half the memory a position of a big slice with men
/// (5 bytes against 10 at the peak) and the slice solver does it in three
/// quarters of the bit-set solver's time (`KK-KKKK`: 244 against 328
/// core-seconds). With the default threshold that is 2^29 nodes
/// ([`menless_slice_nodes`]): `K-KKKKK` and `KK-KKKK` (477 M) by the
/// slice solver, `KKK-KKK` (636 M nodes) and every pair from seven pieces
/// on (`K-KKKKKK`, 1.4 G, and up) by the bit-set solver.
pub const MENLESS_SLICE_FACTOR: u64 = 8;

/// Whether the pair of `material` is one without men that `mode` solves in
/// 2 bits a position, by the bit-set solver for materials without men: a
/// slice of all its positions, when it has more than
/// [`MENLESS_SLICE_FACTOR`] times `bitset_slices_above` of them (or
/// `mode` asks for 2 bits). The solver and the plan both ask here.
pub fn menless_in_two_bits(material: Material, mode: SliceMode) -> bool {
    solved_without_men(material)
        && menless_mode(mode).for_slices(menless_slice_nodes(material), 1, 1) == SliceMode::Bitset
}

/// The nodes of the one slice of a pair without men, both sides to move
/// (as the group solver counts them): the pair's positions, twice those of a
/// material that is its own mirror (`KKK-KKK`: 636 M nodes, so the
/// bit-set solver, which solves one side of it).
pub fn menless_slice_nodes(material: Material) -> u64 {
    2 * MaterialIndex::new(material).king_placements()
}

/// The mode the one slice of a pair without men is solved in: `mode`,
/// with an automatic threshold [`MENLESS_SLICE_FACTOR`] times higher.
pub fn menless_mode(mode: SliceMode) -> SliceMode {
    match mode {
        SliceMode::Auto { bitset_above } => SliceMode::Auto {
            bitset_above: bitset_above.saturating_mul(MENLESS_SLICE_FACTOR),
        },
        mode => mode,
    }
}
