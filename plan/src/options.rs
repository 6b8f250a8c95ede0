//! What a build is asked for: [`GenOptions`], and the materials it
//! covers.

use std::path::PathBuf;

use format::{Material, RuleSet};

/// What to build and where: start from [`GenOptions::new`] and set fields
/// (more options may come).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GenOptions {
    /// The table directory (tables go to `dir/<rule set>/`).
    pub dir: PathBuf,
    /// The rules to build under.
    pub rule_set: RuleSet,
    /// Build every material up to this many pieces (when `materials` is
    /// empty).
    pub max_pieces: u32,
    /// Build these materials and what they depend on instead.
    pub materials: Vec<Material>,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
    /// No progress bars.
    pub quiet: bool,
    /// Bytes of decoded blocks the reader of smaller tables may keep.
    pub cache_bytes: u64,
    /// Bytes the solver may spend on its lists of positions by level (8
    /// per entry) beside its 4 bytes per position; a level that does not
    /// fit is found by a sweep over the positions instead (slower, same
    /// tables).
    pub queue_bytes: u64,
    /// Bytes of smaller tables decoded whole into memory while a material
    /// is solved (2 bits per position of a WLD table, a byte per position
    /// of a distance table; the smallest first); the others are read
    /// through the block cache.
    pub preload_bytes: u64,
    /// Solve materials with men slice by slice (see `docs/DESIGN.md`);
    /// `false` solves every material whole, as the first solver did (kept
    /// as a reference: the tables are the same wherever the 25-move rule
    /// changes no value, which that solver does not apply: its levels are
    /// distances to the end, not to conversion).
    pub slices: bool,
    /// Also write each material's distances to conversion (`.dtc` files
    /// beside the tables; see `format::dtc_byte`).
    pub dtc: bool,
    /// With `dtc`: the larger DTC file of each pair that allows it stores
    /// no values (the prober finds them by a one-ply search over the
    /// other; see `format::FLAG_FROM_MIRROR`). `false` keeps every value
    /// stored (a reference for comparisons).
    pub compact_dtc: bool,
    /// A pair whose largest slice group weighs more positions than this
    /// (both sides to move, each men placement weighing 43 more for its
    /// key: `plan::units::group_weight`) is solved in *parts* of groups, each its own
    /// unit (see `docs/DESIGN.md`, "Groups in parts"): less memory a
    /// unit, many more units, the same tables. `None`: never. The
    /// default, [`DEFAULT_SPLIT_GROUPS_ABOVE`], splits no pair up to seven
    /// pieces and keeps every eight-piece unit within 16 GiB.
    pub split_groups_above: Option<u64>,
    /// A slice of more positions than this (both sides to move) is solved
    /// in 2 bits a position and a little (see `docs/DESIGN.md`, "Huge
    /// slices in 2 bits") instead of the 10 bytes a position a big slice
    /// may take at its peak: the same tables, about 1.2 times the time.
    /// The one slice of a pair without men goes to its own bit-set
    /// solver above 8 times this (see `docs/DESIGN.md`, "The solvers").
    /// Default
    /// [`DEFAULT_BITSET_SLICES_ABOVE`].
    pub bitset_slices_above: u64,
    /// Write the WLD tables compacted once the build's last reader of
    /// each pair is built (format version 2, see `gen::compact`; a stopped
    /// build compacts them when run again), with one side of a pair left out
    /// where [`Sides`] says; `None` writes version 1. A pair whose
    /// longest distance to conversion reaches the 25-move rule's limit is
    /// written as version 1 (a one-ply search of it is not proved exact;
    /// `dtb compact` checks it position by position).
    pub compact: Option<Sides>,
}

/// Which sides of a pair of mirror materials keep a table when tables are
/// compacted (`gen::compact`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sides {
    /// Both (each rewritten as version 2 where it can be).
    Both,
    /// One table of a pair, the other left to a one-ply search over it,
    /// where that saves at least `min_saving` bits a position of the table
    /// left out against keeping both as version 2; both as version 2
    /// elsewhere. The table left out is the one whose absence saves more
    /// bits a position.
    One {
        /// Bits a position of the table left out, at least; 0 leaves one
        /// side out wherever that makes the pair any smaller.
        min_saving: f64,
    },
}

impl Sides {
    /// One side of every pair where that makes the pair smaller.
    pub const SMALLER_ONLY: Sides = Sides::One { min_saving: 0.0 };
}

/// The default of [`GenOptions::bitset_slices_above`]: 2^26 positions
/// (640 MiB for a big slice). No six-piece slice is larger (the largest
/// has 38 M positions), so six pieces are built as before; the one-man
/// pairs of six kings and more (seven and eight pieces) have larger ones.
pub const DEFAULT_BITSET_SLICES_ABOVE: u64 = 1 << 26;

/// The default of [`GenOptions::split_groups_above`]: 2^33 positions
/// (8,589,934,592). No group up to seven pieces weighs that much (the
/// largest, `KKM-KKMM.a12`, 7.61 G positions), so they are built whole as
/// before; at eight pieces the groups above it are built in parts, and
/// every unit of the plan fits 16 GiB (the largest 15.86 GiB).
pub const DEFAULT_SPLIT_GROUPS_ABOVE: u64 = 1 << 33;

impl GenOptions {
    /// Every material up to `max_pieces` under `rule_set` in `dir`.
    pub fn new(dir: impl Into<PathBuf>, rule_set: RuleSet, max_pieces: u32) -> GenOptions {
        GenOptions {
            dir: dir.into(),
            rule_set,
            max_pieces,
            materials: Vec::new(),
            threads: None,
            quiet: true,
            cache_bytes: 256 << 20,
            queue_bytes: 2 << 30,
            preload_bytes: 2 << 30,
            slices: true,
            dtc: false,
            compact_dtc: true,
            split_groups_above: Some(DEFAULT_SPLIT_GROUPS_ABOVE),
            bitset_slices_above: DEFAULT_BITSET_SLICES_ABOVE,
            compact: None,
        }
    }
}

/// Every material to build, in build order: all up to `max_pieces`, or
/// the named ones with their mirrors and everything they depend on.
pub fn materials_to_build(options: &GenOptions) -> Vec<Material> {
    let mut all: Vec<Material> = if options.materials.is_empty() {
        Material::all_up_to(options.max_pieces)
    } else {
        let mut seen = Vec::new();
        let mut todo: Vec<Material> = options.materials.clone();
        while let Some(m) = todo.pop() {
            for x in [m, m.mirrored()] {
                if !seen.contains(&x) {
                    seen.push(x);
                    todo.extend(x.exits());
                }
            }
        }
        seen
    };
    all.sort_by_key(|m| m.build_key());
    all
}
