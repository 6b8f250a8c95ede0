//! Solving with the slice solver ([`crate::solvers::slice`]): one slice
//! group (every slice of one advancement, independent of each other, in
//! parallel) into a layer of its own or into the whole pair's values; a
//! whole pair group after group; and [`SliceGroup`], one group ready to be
//! solved again and again for the benchmarks.

use std::sync::atomic::AtomicU32;

use format::{Material, MaterialIndex, RuleSet};
use probe::Tablebase;
use rayon::prelude::*;

use crate::solvers::captures::ChildTables;
use crate::solvers::slice::{SliceScratch, SliceSolver};
use crate::values::{Layer, PackedSide, PackedValues};
use plan::groups::{group_advancements, group_keys, group_slices, Bin, Slice};
use plan::memory::{menless_in_two_bits, menless_mode, solved_without_men, Marks, SliceMode};
use plan::units::pair_indexes;
use plan::GenError;
use plan::PlacementKeys;
use plan::Progress;

/// Whether `material` (and its mirror) is solved slice by slice.
pub(crate) fn uses_slices(material: Material) -> bool {
    material.counted_ending().is_none()
}

/// The solved pair: one side per stored material (one if symmetric).
pub(crate) struct PackedPair {
    pub(crate) sides: Vec<PackedSide>,
    /// The deepest level at which a position settled (see
    /// `SliceSolver::deepest`).
    pub(crate) deepest: u32,
}

/// Empty finished values for `material` and its mirror (one side if
/// symmetric), with room for DTC values if `with_dtc`.
pub(crate) fn pair_sides(material: Material, with_dtc: bool) -> Result<Vec<PackedSide>, GenError> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    materials
        .into_iter()
        .map(|m| PackedSide::new(m, with_dtc))
        .collect()
}

/// Solves `material` and its mirror slice by slice under `rule_set`,
/// reading smaller tables through `tb`; with DTC values if `with_dtc`, the
/// slices solved as `mode` says. A pair without men too big for the slice
/// solver's memory ([`menless_in_two_bits`]) goes to the bit-set solver
/// for materials without men instead.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    material: Material,
    progress: &Progress,
    (with_dtc, mode): (bool, SliceMode),
) -> Result<PackedPair, GenError> {
    if menless_in_two_bits(material, mode) {
        let sides = crate::solvers::menless::pair_sides(material, with_dtc)?;
        let positions = sides.iter().map(PackedSide::len).sum();
        let marks = Marks::for_pair(positions, with_dtc);
        let deepest = crate::solvers::menless::solve(tb, rule_set, &sides, marks, progress)?;
        return Ok(PackedPair { sides, deepest });
    }
    let mode = match solved_without_men(material) {
        true => menless_mode(mode),
        false => mode,
    };
    let sides = pair_sides(material, with_dtc)?;
    solve_with(tb, rule_set, sides, false, progress, mode)
}

/// Finds the DTC values of a pair whose results are known: `sides` hold
/// them (WLD codes) and room for DTC values. Used for the counted endings;
/// any result its moves do not give is an error.
pub(crate) fn solve_dtc_of_known(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: Vec<PackedSide>,
    progress: &Progress,
) -> Result<PackedPair, GenError> {
    solve_with(tb, rule_set, sides, true, progress, SliceMode::default())
}

/// Solves the pair of `sides` with the slice solver (see
/// [`SliceSolver::labels`] for `labels`), group by group in memory, the
/// slices solved as `mode` says.
fn solve_with(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: Vec<PackedSide>,
    labels: bool,
    progress: &Progress,
    mode: SliceMode,
) -> Result<PackedPair, GenError> {
    let material = sides[0].material;
    let indexes: Vec<MaterialIndex> = sides.iter().map(|s| s.index.clone()).collect();
    let layer = Layer::Pair(sides);
    let solver = SliceSolver {
        tb,
        rule_set,
        material,
        indexes: &indexes,
        write: &layer,
        read: &layer,
        class: material.counted_ending(),
        labels,
        children: ChildTables::new(tb, rule_set, material),
        deepest: AtomicU32::new(0),
    };
    for advancement in group_advancements(material) {
        let group = group_slices(&indexes, advancement);
        run_group(&solver, &group, mode, progress)?;
    }
    let deepest = solver.deepest();
    drop(solver);
    let sides = layer
        .into_sides()
        .ok_or_else(|| GenError::Internal("a pair solve wrote a group layer".into()))?;
    Ok(PackedPair { sides, deepest })
}

/// Solves the slices of one group with `solver` as `mode` says.
fn run_group(
    solver: &SliceSolver,
    group: &[Slice],
    mode: SliceMode,
    progress: &Progress,
) -> Result<(), GenError> {
    let nodes = 2 * solver.indexes[0].king_placements();
    let threads = rayon::current_num_threads() as u64;
    let mode = mode.for_slices(nodes, group.len() as u64, threads);
    if mode != SliceMode::OneThreadEach {
        for slice in group {
            if mode == SliceMode::Bitset {
                solver.solve_bitset(slice, progress)?;
            } else {
                solver.solve_big(slice, progress)?;
            }
        }
        return Ok(());
    }
    group
        .par_iter()
        .try_for_each_init(SliceScratch::default, |scratch, slice| {
            let n = solver.solve(slice, scratch)?;
            progress.advance(n);
            Ok::<(), GenError>(())
        })
}

/// Solves the slices of the group whose keys are `keys` with `solver`:
/// each slice made from its side-0 key when its turn comes, a batch at a
/// time (a group never lists all its slices at once).
fn run_group_of_keys(
    solver: &SliceSolver,
    indexes: &[MaterialIndex],
    keys: &PlacementKeys,
    mode: SliceMode,
    progress: &Progress,
) -> Result<(), GenError> {
    const BATCH: usize = 1 << 16;
    let own: Vec<u64> = keys
        .iter()
        .filter(|&(side, _)| side == 0)
        .map(|(_, men)| men)
        .collect();
    for batch in own.chunks(BATCH) {
        let slices: Vec<Slice> = batch
            .par_iter()
            .filter_map(|&men| plan::groups::slice_of(indexes, men))
            .collect();
        run_group(solver, &slices, mode, progress)?;
    }
    Ok(())
}

/// The keys of the group of advancement `advancement` of `material`'s
/// pair, or of its parts in bin `bin` (as [`plan::groups::group_keys`]
/// gives them).
pub(crate) fn placements_of_group(
    material: Material,
    advancement: u32,
    bin: Option<Bin>,
) -> PlacementKeys {
    group_keys(&pair_indexes(material), advancement, bin)
}

/// One slice group of a pair, solved: its layer (values of its men
/// placements), written by [`solve_group`].
pub(crate) struct SolvedGroup {
    /// Rows its men have walked.
    pub(crate) advancement: u32,
    /// Its values.
    pub(crate) layer: Layer,
    /// The deepest level at which a position of it settled (see
    /// `SliceSolver::deepest`).
    pub(crate) deepest: u32,
}

/// Where a group is solved: into a layer of its own, reading the group
/// one advancement further from `read` (an empty layer when there is
/// none); or into the whole pair's values `pair`, by index, where the
/// group one advancement further must be already.
#[derive(Clone, Copy)]
pub(crate) enum GroupTarget<'a> {
    /// A group layer of its own.
    Own {
        /// The group of `advancement + 1`.
        read: &'a Layer,
    },
    /// The pair's values (a [`Layer::Pair`]).
    Pair(&'a Layer),
}

/// Which slices of a pair a group solve takes: the group of advancement
/// `advancement`, or only the parts of it in bin `bin`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupOf {
    /// Side 0 of the pair.
    pub(crate) material: Material,
    /// Rows the men have walked.
    pub(crate) advancement: u32,
    /// The parts of the group it takes, in a pair solved in parts (see
    /// [`plan::groups::part_of_men`]).
    pub(crate) bin: Option<Bin>,
}

/// Solves `group` into `target`; returns its values as a group layer
/// (copied out of the pair's values when solved there).
pub(crate) fn solve_group(
    tb: &Tablebase,
    rule_set: RuleSet,
    group: GroupOf,
    target: GroupTarget,
    (with_dtc, mode): (bool, SliceMode),
    progress: &Progress,
) -> Result<SolvedGroup, GenError> {
    let GroupOf {
        material,
        advancement,
        bin,
    } = group;
    let indexes = pair_indexes(material);
    let keys = group_keys(&indexes, advancement, bin);
    let king_placements = indexes[0].king_placements();
    let values = PackedValues::new(keys.len() as u64 * king_placements, with_dtc)?;
    let layer = Layer::Group {
        keys,
        king_placements,
        values,
    };
    let (write, read) = match target {
        GroupTarget::Own { read } => (&layer, read),
        GroupTarget::Pair(pair) => (pair, pair),
    };
    let solver = SliceSolver {
        tb,
        rule_set,
        material,
        indexes: &indexes,
        write,
        read,
        class: material.counted_ending(),
        labels: false,
        children: ChildTables::new(tb, rule_set, material),
        deepest: AtomicU32::new(0),
    };
    let Layer::Group { keys, .. } = &layer else {
        return Err(GenError::Internal(
            "a group's own layer is not a group".into(),
        ));
    };
    run_group_of_keys(&solver, &indexes, keys, mode, progress)?;
    let deepest = solver.deepest();
    drop(solver);
    if let GroupTarget::Pair(pair) = target {
        copy_group_out(pair, &layer)?;
    }
    Ok(SolvedGroup {
        advancement,
        layer,
        deepest,
    })
}

/// Copies the values of `group`'s placements from the pair's values.
fn copy_group_out(pair: &Layer, group: &Layer) -> Result<(), GenError> {
    copy_group(pair, group, false)
}

/// Copies the values of a group layer into the pair's values.
pub(crate) fn copy_group_in(pair: &Layer, group: &Layer) -> Result<(), GenError> {
    copy_group(pair, group, true)
}

/// Copies the values of `group`'s placements between it and the pair's
/// values `pair`: into the pair if `into_pair`, else out of it.
fn copy_group(pair: &Layer, group: &Layer, into_pair: bool) -> Result<(), GenError> {
    let Layer::Group {
        keys,
        king_placements,
        values,
    } = group
    else {
        return Err(GenError::Internal("not a group layer".into()));
    };
    let kings = *king_placements;
    keys.par_iter()
        .enumerate()
        .try_for_each(|(j, (side, men))| {
            let (store, base) = pair.locate(usize::from(side), men).ok_or_else(|| {
                GenError::Internal(format!(
                    "a group holds men placement {men} of side {side}, not in its pair"
                ))
            })?;
            if kings != pair.king_placements(store) {
                return Err(GenError::Internal(
                    "a group's king placements differ from its pair's".into(),
                ));
            }
            let at = j as u64 * kings;
            match into_pair {
                true => pair.store(store).copy_run(base, values, at, kings),
                false => values.copy_run(at, pair.store(store), base, kings),
            }
            Ok(())
        })
}

/// One group of slices (one advancement) of a material pair, ready to be
/// solved again and again: a unit of work, for benchmarks.
pub struct SliceGroup {
    tb: Tablebase,
    rule_set: RuleSet,
    material: Material,
    advancement: u32,
    read: Layer,
}

impl SliceGroup {
    /// Group `which` (0: the most advanced) of `material`'s pair, with the
    /// groups before it solved; the tables its moves lead to must be in
    /// `dir`. `None` when the pair has fewer groups, or is not solved by
    /// slices (the counted endings).
    pub fn prepare(
        dir: &std::path::Path,
        rule_set: RuleSet,
        material: Material,
        which: usize,
    ) -> Result<Option<SliceGroup>, GenError> {
        if !uses_slices(material) {
            return Ok(None);
        }
        let advancements = group_advancements(material);
        let Some(&advancement) = advancements.get(which) else {
            return Ok(None);
        };
        let tb = crate::tables::open_for_pair(dir, rule_set, material, 256 << 20, 2 << 30)?;
        let mut read = Layer::empty_group();
        for &earlier in &advancements[..which] {
            let hidden = Progress::hidden();
            let target = GroupTarget::Own { read: &read };
            let group = GroupOf {
                material,
                advancement: earlier,
                bin: None,
            };
            let how = (false, SliceMode::default());
            read = solve_group(&tb, rule_set, group, target, how, &hidden)?.layer;
        }
        Ok(Some(SliceGroup {
            tb,
            rule_set,
            material,
            advancement,
            read,
        }))
    }

    /// The positions of the group (both sides to move).
    pub fn positions(&self) -> u64 {
        plan::units::group_positions(self.material, self.advancement)
    }

    /// Solves the group; returns the positions solved.
    pub fn solve(&self) -> Result<u64, GenError> {
        let hidden = Progress::hidden();
        let group = GroupOf {
            material: self.material,
            advancement: self.advancement,
            bin: None,
        };
        let solved = solve_group(
            &self.tb,
            self.rule_set,
            group,
            GroupTarget::Own { read: &self.read },
            (false, SliceMode::default()),
            &hidden,
        )?;
        match solved.layer {
            Layer::Group { values, .. } => Ok(values.len()),
            _ => Err(GenError::Internal("a group solve wrote no group".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, GenOptions};
    use format::Wdl;
    use plan::memory::{menless_slice_nodes, EXACT_MARKS_UP_TO, MENLESS_SLICE_FACTOR};

    /// `Auto` takes the 2-bit path above its threshold, every thread on
    /// one slice for big slices or too few of them (unless tiny), a slice
    /// a thread otherwise; the other modes are kept.
    #[test]
    fn auto_mode_follows_slice_sizes() {
        let auto = SliceMode::Auto {
            bitset_above: 1 << 26,
        };
        let (big, middling, tiny) = (1 << 24, 1 << 20, 1 << 10);
        assert_eq!(auto.for_slices(1 << 27, 1, 2), SliceMode::Bitset);
        assert_eq!(auto.for_slices(big, 1_000, 2), SliceMode::AllThreads);
        assert_eq!(auto.for_slices(middling, 7, 2), SliceMode::AllThreads);
        assert_eq!(auto.for_slices(middling, 8, 2), SliceMode::OneThreadEach);
        assert_eq!(auto.for_slices(tiny, 1, 2), SliceMode::OneThreadEach);
        let none_bitset = SliceMode::Auto { bitset_above: 0 };
        assert_eq!(none_bitset.for_slices(tiny, 1, 2), SliceMode::Bitset);
        for mode in [
            SliceMode::OneThreadEach,
            SliceMode::AllThreads,
            SliceMode::Bitset,
        ] {
            assert_eq!(mode.for_slices(1 << 27, 1, 2), mode);
        }
    }

    /// Solves every pair without men of `pieces` pieces (outside the
    /// counted endings) with the bit-set solver and the slice solver, with
    /// and without DTC, and requires the same values everywhere; the
    /// smaller tables they read are built in `dir` first.
    fn menless_solvers_agree(rule_set: RuleSet, pieces: u32) {
        let dir = tempfile::tempdir().unwrap();
        let mut options = GenOptions::new(dir.path(), rule_set, pieces - 1);
        options.quiet = true;
        options.materials = Material::all_up_to(pieces - 1)
            .into_iter()
            .filter(|m| m.white_men + m.black_men == 0)
            .collect();
        generate(&options).unwrap();
        let tb = Tablebase::open(dir.path(), rule_set).unwrap();
        let pairs: Vec<Material> = Material::all_up_to(pieces)
            .into_iter()
            .filter(|m| m.pieces() == pieces && solved_without_men(*m))
            .filter(|m| plan::units::pair_of(*m) == *m)
            .collect();
        assert!(!pairs.is_empty());
        let progress = Progress::hidden();
        for m in pairs {
            for (with_dtc, marks) in [
                (false, Marks::Blocks),
                (false, Marks::Exact),
                (true, Marks::Exact),
            ] {
                let sides = crate::solvers::menless::pair_sides(m, with_dtc).unwrap();
                let deepest =
                    crate::solvers::menless::solve(&tb, rule_set, &sides, marks, &progress)
                        .unwrap();
                let bits = PackedPair { sides, deepest };
                let sides = pair_sides(m, with_dtc).unwrap();
                let all = SliceMode::AllThreads;
                let slice = solve_with(&tb, rule_set, sides, false, &progress, all).unwrap();
                let name = format!("{m} {rule_set:?} dtc {with_dtc} {marks:?}");
                assert_same_values(&bits, &slice, &name);
                // Both find the longest distance to conversion.
                assert_eq!(bits.deepest, slice.deepest, "{name}");
                assert!(slice.deepest > 0, "{name}");
            }
        }
    }

    #[test]
    fn pairs_without_men_up_to_six_pieces_go_to_the_slice_solver() {
        let material = |s: &str| s.parse::<Material>().unwrap();
        let auto = SliceMode::default();
        // Up to six pieces they go to the slice solver; from seven on, not.
        assert!(!menless_in_two_bits(material("KK-KKK"), auto));
        assert!(!menless_in_two_bits(material("KK-KKKK"), auto));
        assert!(menless_in_two_bits(material("K-KKKKKK"), auto));
        assert!(menless_in_two_bits(material("KK-KK"), SliceMode::Bitset));
        assert!(!menless_in_two_bits(material("KK-KKM"), SliceMode::Bitset));
        // `KK-KK`, its own mirror: 2 x 1,381,800 nodes, between 2^21 and 2^22.
        assert_eq!(menless_slice_nodes(material("KK-KK")), 2 * 1_381_800);
        let below = SliceMode::Auto {
            bitset_above: (1 << 21) / MENLESS_SLICE_FACTOR,
        };
        let above = SliceMode::Auto {
            bitset_above: (1 << 22) / MENLESS_SLICE_FACTOR,
        };
        assert!(menless_in_two_bits(material("KK-KK"), below));
        assert!(!menless_in_two_bits(material("KK-KK"), above));
        // A counted ending keeps its own solver.
        assert!(!menless_in_two_bits(material("K-KKK"), below));
    }

    #[test]
    fn exact_marks_where_they_fit() {
        assert_eq!(Marks::for_pair(EXACT_MARKS_UP_TO, false), Marks::Exact);
        assert_eq!(Marks::for_pair(EXACT_MARKS_UP_TO + 1, false), Marks::Blocks);
        assert_eq!(Marks::for_pair(EXACT_MARKS_UP_TO + 1, true), Marks::Exact);
    }

    /// Requires `a` and `b` to hold the same codes, capture marks (`b`'s
    /// against those found again where `a` keeps none) and DTC bytes
    /// (where they mean something: decided positions that do not
    /// capture).
    fn assert_same_values(a: &PackedPair, b: &PackedPair, name: &str) {
        for (a, b) in a.sides.iter().zip(&b.sides) {
            let words = a.len().div_ceil(32) as usize;
            for w in 0..words {
                assert_eq!(a.code_word(w), b.code_word(w), "{name}: code word {w}");
            }
            let found = crate::solvers::menless::capture_words(&a.index, 0, a.len());
            assert_eq!(found.len(), a.len().div_ceil(64) as usize, "{name}");
            for (w, &found) in found.iter().enumerate() {
                let kept = if a.has_captures() {
                    a.capture_word(w)
                } else {
                    found
                };
                assert_eq!(kept, b.capture_word(w), "{name}: marks {w}");
                assert_eq!(found, b.capture_word(w), "{name}: marks found {w}");
            }
            if a.has_dtc() {
                let decided = |i: u64| !a.is_capture(i) && a.code(i) != Wdl::Draw.code();
                for i in (0..a.len()).filter(|&i| decided(i)) {
                    assert_eq!(a.dtc(i), b.dtc(i), "{name}: DTC of {i}");
                }
            }
        }
    }

    #[test]
    fn menless_solvers_agree_at_four_pieces() {
        // Five pieces are an ignored test below; tests/slice_solver.rs
        // compares the bit-set solver's five-piece fmjd files (KKKK-K,
        // K-KKKK) with the whole-material solver's in CI.
        for rule_set in [RuleSet::Fmjd, RuleSet::FmjdDiagonal, RuleSet::Pure] {
            menless_solvers_agree(rule_set, 4);
        }
    }

    #[test]
    #[ignore = "every five-piece pair in every rule set: 6 minutes in release"]
    fn menless_solvers_agree_at_five_pieces() {
        for rule_set in [RuleSet::Fmjd, RuleSet::FmjdDiagonal, RuleSet::Pure] {
            menless_solvers_agree(rule_set, 5);
        }
    }

    // Six pieces, one test a rule set (each about 25 minutes on two
    // cores), so that each reports on its own.
    #[test]
    #[ignore = "six pieces: about 25 minutes"]
    fn menless_solvers_agree_at_six_pieces_fmjd() {
        menless_solvers_agree(RuleSet::Fmjd, 6);
    }

    #[test]
    #[ignore = "six pieces: about 25 minutes"]
    fn menless_solvers_agree_at_six_pieces_diagonal() {
        menless_solvers_agree(RuleSet::FmjdDiagonal, 6);
    }

    #[test]
    #[ignore = "six pieces: about 25 minutes"]
    fn menless_solvers_agree_at_six_pieces_pure() {
        menless_solvers_agree(RuleSet::Pure, 6);
    }

    /// Solves every pair with men of `pieces` pieces (outside the counted
    /// endings) in 2 bits a slice position and by all threads together,
    /// with and without DTC, and requires the same values, capture marks
    /// and DTC (of decided positions that do not capture) everywhere.
    fn bitset_slices_agree(rule_set: RuleSet, pieces: u32) {
        let dir = tempfile::tempdir().unwrap();
        let mut options = GenOptions::new(dir.path(), rule_set, pieces);
        options.materials = Material::all_up_to(pieces)
            .into_iter()
            .filter(|m| m.pieces() < pieces || m.white_men + m.black_men == 0 || !uses_slices(*m))
            .collect();
        generate(&options).unwrap();
        let mut pairs: Vec<Material> = Material::all_up_to(pieces)
            .into_iter()
            .filter(|m| m.pieces() == pieces && m.white_men + m.black_men > 0)
            .filter(|m| uses_slices(*m) && plan::units::pair_of(*m) == *m)
            .collect();
        pairs.sort_by_key(|m| m.build_key());
        assert!(!pairs.is_empty());
        for m in pairs {
            // Its crownings lead to pairs of as many pieces, fewer men.
            let tb = Tablebase::open(dir.path(), rule_set).unwrap();
            for with_dtc in [false, true] {
                let progress = Progress::hidden();
                let solve = |mode| {
                    let sides = pair_sides(m, with_dtc).unwrap();
                    solve_with(&tb, rule_set, sides, false, &progress, mode).unwrap()
                };
                // Slices of a few thousand positions on one thread: waking
                // another for each pass of each costs more than the work.
                let small = 2 * MaterialIndex::new(m).king_placements() < 1 << 16;
                let (bits, all) = if small {
                    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build();
                    let one = one.unwrap();
                    one.install(|| (solve(SliceMode::Bitset), solve(SliceMode::AllThreads)))
                } else {
                    (solve(SliceMode::Bitset), solve(SliceMode::AllThreads))
                };
                let name = format!("{m} {rule_set:?} dtc {with_dtc}");
                for (a, b) in bits.sides.iter().zip(&all.sides) {
                    let words = a.len().div_ceil(32) as usize;
                    for w in 0..words {
                        assert_eq!(a.code_word(w), b.code_word(w), "{name}: code word {w}");
                    }
                    for w in 0..a.len().div_ceil(64) as usize {
                        assert_eq!(a.capture_word(w), b.capture_word(w), "{name}: marks {w}");
                    }
                    let decided = |i: u64| !a.is_capture(i) && a.code(i) != Wdl::Draw.code();
                    for i in (0..a.len()).filter(|&i| with_dtc && decided(i)) {
                        assert_eq!(a.dtc(i), b.dtc(i), "{name}: DTC of {i}");
                    }
                }
            }
            // The pair's own tables, for the pairs that crown into it.
            let mut options = GenOptions::new(dir.path(), rule_set, pieces);
            options.materials = vec![m];
            generate(&options).unwrap();
        }
    }

    #[test]
    fn bitset_slices_agree_at_four_pieces() {
        // A four-piece slice is a few thousand positions at most: one
        // thread solves them (see `bitset_slices_agree`); the five-piece
        // ignored tests solve one-man slices on every thread.
        bitset_slices_agree(RuleSet::Fmjd, 4);
    }

    #[test]
    #[ignore = "the other rule sets at four pieces: about 2 minutes"]
    fn bitset_slices_agree_at_four_pieces_other_rules() {
        for rule_set in [RuleSet::FmjdDiagonal, RuleSet::Pure] {
            bitset_slices_agree(rule_set, 4);
        }
    }

    #[test]
    #[ignore = "every five-piece pair with men: about 25 minutes in release"]
    fn bitset_slices_agree_at_five_pieces_fmjd() {
        bitset_slices_agree(RuleSet::Fmjd, 5);
    }

    #[test]
    #[ignore = "every five-piece pair with men: about 25 minutes in release"]
    fn bitset_slices_agree_at_five_pieces_diagonal() {
        bitset_slices_agree(RuleSet::FmjdDiagonal, 5);
    }

    #[test]
    #[ignore = "every five-piece pair with men: about 25 minutes in release"]
    fn bitset_slices_agree_at_five_pieces_pure() {
        bitset_slices_agree(RuleSet::Pure, 5);
    }

    #[test]
    fn big_slices_solve_to_the_same_values_as_small_ones() {
        let dir = tempfile::tempdir().unwrap();
        generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 4)).unwrap();
        let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
        for name in ["KK-KK", "KK-KM", "KM-MM", "MM-MM", "KKM-M"] {
            let m: Material = name.parse().unwrap();
            let progress = Progress::hidden();
            let solve = |mode| {
                let sides = pair_sides(m, true).unwrap();
                solve_with(&tb, RuleSet::Fmjd, sides, false, &progress, mode).unwrap()
            };
            let (small, big) = (
                solve(SliceMode::OneThreadEach),
                solve(SliceMode::AllThreads),
            );
            for (a, b) in small.sides.iter().zip(&big.sides) {
                let words = a.len().div_ceil(32) as usize;
                assert!(
                    (0..words).all(|w| a.code_word(w) == b.code_word(w)),
                    "{name}"
                );
                let marks = a.len().div_ceil(64) as usize;
                assert!(
                    (0..marks).all(|w| a.capture_word(w) == b.capture_word(w)),
                    "{name}"
                );
                let decided = |i: u64| !a.is_capture(i) && a.code(i) != Wdl::Draw.code();
                assert!(
                    (0..a.len()).all(|i| !decided(i) || a.dtc(i) == b.dtc(i)),
                    "{name}: DTC"
                );
            }
            // And the table built before says the same.
            let side = &small.sides[0];
            for i in (0..side.len()).step_by(97) {
                if !side.is_capture(i) {
                    let stored = tb.probe(&side.index.unrank(i)).unwrap().wdl;
                    assert_eq!(stored.code(), side.code(i), "{name} {i}");
                }
            }
        }
    }
}
