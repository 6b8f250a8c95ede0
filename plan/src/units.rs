//! The plan of a build: every unit of work, what it needs and writes, in
//! an order that runs each after what it needs.
//!
//! A **unit** is one of:
//! - a **solve** of a whole pair (a counted ending, or a material without
//!   men, which is one slice): it writes the pair's tables itself;
//! - a **group** of a pair with men (one advancement of its men): it
//!   reads the finished tables its moves lead to and the output of the
//!   group one advancement further, and writes its own output file
//!   (`units/<pair>.a<advancement>.dtg`, see the builder's `unit::group_file`);
//! - the **assembly** of such a pair: it reads its groups' outputs and
//!   writes the pair's tables (and DTC files);
//! - the **manifest** of the rule set's folder, last.
//!
//! Ids are stable: `<pair>.solve`, `<pair>.a<advancement>`,
//! `<pair>.tables` and `manifest`, where `<pair>` is the pair's first
//! material in build order.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use format::{value_kind, Material, MaterialIndex, RuleSet};

use crate::error::GenError;
use crate::groups::{group_advancements, placements_by_advancement, Bin};
use crate::memory::{
    bitset_work_bytes, menless_in_two_bits, menless_slice_nodes, menless_work_bytes,
    solved_without_men, values_bytes, SliceMode,
};
use crate::options::GenOptions;

/// What a unit does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// Solve a whole pair and write its tables.
    Solve,
    /// Solve one slice group of a pair, or one part of it, and write its
    /// output file.
    Group {
        /// Rows the group's men have walked.
        advancement: u32,
        /// The part of the group, in a pair solved in parts (see
        /// [`GenOptions::split_groups_above`]).
        part: Option<u32>,
        /// The advancement of the group whose output it reads (one more),
        /// if the pair has one.
        reads: Option<u32>,
        /// Whether its slices are solved in 2 bits a position (see
        /// [`GenOptions::bitset_slices_above`]): slower, so the estimate
        /// weighs it at its own rate.
        in_two_bits: bool,
    },
    /// Write a pair's tables from its groups' outputs.
    Assemble,
    /// Write the manifest of the folder.
    Manifest,
}

/// One unit of work.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Its id, stable across runs.
    pub id: String,
    /// What it does.
    pub kind: UnitKind,
    /// Side 0 of its pair (for the manifest: none).
    pub material: Option<Material>,
    /// The ids of the units whose output it reads.
    pub needs: Vec<String>,
    /// The files it writes, relative to the rule set's folder.
    pub writes: Vec<PathBuf>,
    /// The positions it solves (both sides to move; for an assembly, those
    /// it writes).
    pub positions: u64,
    /// The memory it is expected to need, in bytes (the plan's model:
    /// measured peaks came within 25% of it, up to about 12% above).
    pub memory_bytes: u64,
}

/// The folder of the groups' output files inside a rule set's folder.
pub const UNITS_DIR: &str = "units";

/// The pair `material` belongs to, named by its first material in build
/// order.
pub fn pair_of(material: Material) -> Material {
    material.min(material.mirrored())
}

/// The materials of `pair`'s tables: itself, and its mirror unless it is
/// symmetric.
pub fn pair_materials(pair: Material) -> Vec<Material> {
    if pair.is_symmetric() {
        vec![pair]
    } else {
        vec![pair, pair.mirrored()]
    }
}

/// The indexes of `material`'s pair: its own, then its mirror's unless
/// it is symmetric.
pub fn pair_indexes(material: Material) -> Vec<MaterialIndex> {
    let mut indexes = vec![MaterialIndex::new(material)];
    if !material.is_symmetric() {
        indexes.push(MaterialIndex::new(material.mirrored()));
    }
    indexes
}

/// Whether `pair` is solved group by group (it has men and is not a
/// counted ending), unless `options` asks for whole solves only.
pub fn solved_by_groups(options: &GenOptions, pair: Material) -> bool {
    options.slices && pair.men() > 0 && pair.counted_ending().is_none()
}

/// The id of group `advancement` of `pair`, or of its part `part`.
pub fn group_id(pair: Material, advancement: u32, part: Option<u32>) -> String {
    match part {
        Some(part) => format!("{pair}.a{advancement}.{}", crate::groups::part_name(part)),
        None => format!("{pair}.a{advancement}"),
    }
}

/// Whether `pair` is solved in parts of groups: its largest group holds
/// more than `options.split_groups_above` positions.
pub fn splits_groups(options: &GenOptions, pair: Material) -> bool {
    solved_by_groups(options, pair) && has_group_above(pair, options.split_groups_above)
}

/// Whether some group of `pair` weighs more than `positions` positions
/// (see [`group_weight`]).
fn has_group_above(pair: Material, positions: Option<u64>) -> bool {
    positions.is_some_and(|most| {
        group_advancements(pair)
            .into_iter()
            .any(|a| group_weight(pair, a) > most)
    })
}

/// What the group of `pair` at `advancement` weighs against
/// `--split-groups-above` (see [`crate::groups::weight`]): its positions,
/// plus 43 for each of its men placements (both sides to move), for their
/// keys.
pub fn group_weight(pair: Material, advancement: u32) -> u64 {
    let king_placements = MaterialIndex::new(pair).king_placements();
    let placements = group_positions(pair, advancement) / king_placements;
    crate::groups::weight(placements, king_placements)
}

/// The id of the unit that writes `pair`'s tables.
pub fn tables_id(options: &GenOptions, pair: Material) -> String {
    if solved_by_groups(options, pair) {
        format!("{pair}.tables")
    } else {
        format!("{pair}.solve")
    }
}

/// The output file of group `advancement` of `pair` (or of its part
/// `part`), relative to the rule set's folder.
pub fn group_file(pair: Material, advancement: u32, part: Option<u32>) -> PathBuf {
    PathBuf::from(UNITS_DIR).join(format!("{}.dtg", group_id(pair, advancement, part)))
}

/// Positions (both sides to move) of group `advancement` of `pair`.
pub fn group_positions(pair: Material, advancement: u32) -> u64 {
    let counts = placements_by_advancement(pair);
    let placements = counts.get(advancement as usize).copied().unwrap_or(0);
    let sides = if pair.is_symmetric() { 1 } else { 2 };
    placements * sides * MaterialIndex::new(pair).king_placements()
}

/// The most memory the values of a whole pair may take for its groups to
/// be solved into them, by index, rather than each into a layer of its
/// own: a slice then finds where its values and those of its man steps
/// are without a search, which matters where slices are tiny (materials
/// of men and few kings).
const PAIR_VALUES_LIMIT: u64 = 256 << 20;

/// The work of the one slice of a pair without men on the slice solver
/// ([`menless_in_two_bits`] false), in tenths of a
/// byte per node: its cells, seeds and waves. Measured peaks, two
/// threads, less the values and tables: 3.8 bytes a node for `KK-KKKK`
/// (477 M nodes), 4.8 for `K-KKKKK` (191 M).
const MENLESS_SLICE_TENTHS: u64 = 45;

/// Whether `pair`'s groups are solved into the values of the whole pair
/// (small pairs; see `PAIR_VALUES_LIMIT`).
pub fn solves_in_pair_values(options: &GenOptions, pair: Material) -> bool {
    values_bytes(pair_positions(pair), true, options.dtc) <= PAIR_VALUES_LIMIT
        && !splits_groups(options, pair)
}

/// Positions of both tables of `pair`.
fn pair_positions(pair: Material) -> u64 {
    pair_materials(pair)
        .iter()
        .map(|m| MaterialIndex::new(*m).count())
        .sum()
}

/// Every pair to build, in build order (the first material of each).
pub fn pairs(options: &GenOptions) -> Vec<Material> {
    let mut out: Vec<Material> = Vec::new();
    for m in crate::options::materials_to_build(options) {
        let pair = pair_of(m);
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

/// Every unit of the build `options` asks for, finished or not, in an
/// order where each comes after what it needs.
pub fn plan(options: &GenOptions) -> Vec<Unit> {
    let memory = MemoryModel::new(options);
    let mut units = Vec::new();
    let mut writers = Vec::new();
    for pair in pairs(options) {
        let needs: Vec<String> = exits_of_pair(pair)
            .into_iter()
            .map(|p| tables_id(options, p))
            .collect();
        let tables: Vec<PathBuf> = pair_materials(pair)
            .iter()
            .flat_map(|m| table_files(*m, options.dtc))
            .collect();
        if !solved_by_groups(options, pair) {
            units.push(Unit {
                id: tables_id(options, pair),
                kind: UnitKind::Solve,
                material: Some(pair),
                needs,
                writes: tables,
                positions: pair_positions(pair),
                memory_bytes: memory.solve(pair),
            });
        } else {
            let groups = if splits_groups(options, pair) {
                part_units(options, pair, &needs, &memory)
            } else {
                group_units(pair, &needs, &memory)
            };
            let files = groups.len() as u64;
            let group_ids = groups.iter().map(|u| u.id.clone()).collect();
            units.extend(groups);
            units.push(Unit {
                id: tables_id(options, pair),
                kind: UnitKind::Assemble,
                material: Some(pair),
                needs: group_ids,
                writes: tables,
                positions: pair_positions(pair),
                memory_bytes: memory.assemble(files),
            });
        }
        writers.push(tables_id(options, pair));
    }
    units.push(Unit {
        id: "manifest".into(),
        kind: UnitKind::Manifest,
        material: None,
        needs: writers,
        writes: vec![PathBuf::from(format::manifest::MANIFEST)],
        positions: 0,
        memory_bytes: MemoryModel::BASE,
    });
    units
}

/// The group units of `pair`, most advanced first; each needs `needs`
/// and the group one advancement further.
fn group_units(pair: Material, needs: &[String], memory: &MemoryModel) -> Vec<Unit> {
    let advancements = group_advancements(pair);
    let mut units = Vec::new();
    for (k, &a) in advancements.iter().enumerate() {
        let reads = (k > 0 && advancements[k - 1] == a + 1).then_some(a + 1);
        let mut group_needs = needs.to_vec();
        group_needs.extend(reads.map(|r| group_id(pair, r, None)));
        let own = group_positions(pair, a);
        let read = reads.map_or(0, |r| group_positions(pair, r));
        units.push(Unit {
            id: group_id(pair, a, None),
            kind: UnitKind::Group {
                advancement: a,
                part: None,
                reads,
                in_two_bits: memory.in_two_bits(pair),
            },
            material: Some(pair),
            needs: group_needs,
            writes: vec![group_file(pair, a, None)],
            positions: own,
            memory_bytes: memory.group(pair, own, read),
        });
    }
    units
}

/// The parts of `pair`'s groups, binned (see [`crate::groups::Bin`]), as
/// units, most advanced group first; each needs `needs` and the bins of
/// the next group it reads.
fn part_units(
    options: &GenOptions,
    pair: Material,
    needs: &[String],
    memory: &MemoryModel,
) -> Vec<Unit> {
    let indexes = pair_indexes(pair);
    let kings = indexes[0].king_placements();
    let mut units = Vec::new();
    let mut next: Option<(u32, Arc<GroupBins>)> = None;
    for a in group_advancements(pair) {
        let own = group_bins(options, &indexes, a);
        let reads = next.as_ref().filter(|(n, _)| *n == a + 1);
        for &(bin, keys) in &own.bins {
            let mut bin_needs = needs.to_vec();
            let mut read = 0;
            if let Some((r, next)) = reads {
                for b in own.bins_read(bin, a, pair.is_symmetric(), next) {
                    bin_needs.push(group_id(pair, *r, Some(b.first)));
                    read += next.keys_of(b) * kings;
                }
            }
            let own = keys * kings;
            units.push(Unit {
                id: group_id(pair, a, Some(bin.first)),
                kind: UnitKind::Group {
                    advancement: a,
                    part: Some(bin.first),
                    reads: reads.map(|(r, _)| *r),
                    in_two_bits: memory.in_two_bits(pair),
                },
                material: Some(pair),
                needs: bin_needs,
                writes: vec![group_file(pair, a, Some(bin.first))],
                positions: own,
                memory_bytes: memory.group(pair, own, read),
            });
        }
        next = Some((a, own));
    }
    units
}

/// The parts of one group of a pair solved in parts: the keys of each
/// part, and its bins with their keys.
pub struct GroupBins {
    /// Keys (men placements, both sides) of each part.
    pub sizes: std::collections::BTreeMap<u32, u64>,
    /// The bins, in key order, with their keys.
    pub bins: Vec<(Bin, u64)>,
}

impl GroupBins {
    /// The bin named by its first part `first`, if there is one.
    pub fn named(&self, first: u32) -> Option<Bin> {
        crate::groups::bin_of(&self.bins, first).filter(|b| b.first == first)
    }

    /// The bin that holds part `part`, if any.
    pub fn holding(&self, part: u32) -> Option<Bin> {
        crate::groups::bin_of(&self.bins, part)
    }

    /// The keys of bin `bin`.
    fn keys_of(&self, bin: Bin) -> u64 {
        self.sizes.range(bin.first..bin.end).map(|(_, k)| k).sum()
    }

    /// The bins of `next` (the group one advancement further) that bin
    /// `bin` of this group (of advancement `advancement`) reads.
    pub fn bins_read(
        &self,
        bin: Bin,
        advancement: u32,
        symmetric: bool,
        next: &GroupBins,
    ) -> Vec<Bin> {
        crate::groups::bins_read(
            (&self.sizes, bin),
            advancement,
            symmetric,
            (&next.sizes, &next.bins),
        )
    }
}

/// The parts of group `advancement` of the pair whose sides have the
/// indexes `indexes`, binned up to `options.split_groups_above`.
///
/// Finding them walks every slice of the group, and every bin of it (a
/// unit) needs them, with those of the next group: a process keeps them
/// (a few thousand parts a group at most), so that an in-process build
/// walks each group once, not once a bin.
pub fn group_bins(
    options: &GenOptions,
    indexes: &[MaterialIndex],
    advancement: u32,
) -> Arc<GroupBins> {
    type Key = (Material, u32, u64);
    static KEPT: OnceLock<Mutex<HashMap<Key, Arc<GroupBins>>>> = OnceLock::new();
    let budget = options.split_groups_above.unwrap_or(0);
    let key = (indexes[0].material(), advancement, budget);
    let kept = KEPT.get_or_init(Mutex::default);
    if let Some(found) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Arc::clone(found);
    }
    let sizes = crate::groups::part_sizes(indexes, advancement);
    let bins = crate::groups::bins_of(&sizes, indexes[0].king_placements(), budget);
    let found = Arc::new(GroupBins { sizes, bins });
    kept.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, Arc::clone(&found));
    found
}

/// The bin of group `advancement` of `pair` whose first part is `part`
/// (`None` for a whole group).
pub fn bin_named(
    options: &GenOptions,
    pair: Material,
    advancement: u32,
    part: Option<u32>,
) -> Result<Option<Bin>, GenError> {
    let Some(first) = part else {
        return Ok(None);
    };
    let indexes = pair_indexes(pair);
    group_bins(options, &indexes, advancement)
        .named(first)
        .map(Some)
        .ok_or_else(|| {
            GenError::BadOptions(format!(
                "{pair}: group {advancement} has no part {} starting a bin at this \
                 --split-groups-above",
                crate::groups::part_name(first)
            ))
        })
}

/// The unit `id` of the build `options` describes (see the module's ids).
///
/// # Errors
/// [`GenError::BadOptions`] when no such unit exists.
pub fn find_unit(options: &GenOptions, id: &str) -> Result<Unit, GenError> {
    let unknown = || {
        let hint = if id.contains(".p") {
            "; a part's id needs the --split-groups-above of the plan that lists it"
        } else {
            ""
        };
        GenError::BadOptions(format!(
            "no unit {id:?} (ids are <pair>.solve, <pair>.a<advancement>, \
             <pair>.a<advancement>.p<part>, <pair>.tables and manifest; dtb plan lists them{hint})"
        ))
    };
    let materials = if id == "manifest" {
        Vec::new()
    } else {
        let (pair, _) = id.split_once('.').ok_or_else(unknown)?;
        let pair: Material = pair.parse().map_err(|_| unknown())?;
        if pair.pieces() > probe::MAX_TABLE_PIECES {
            return Err(unknown());
        }
        vec![pair]
    };
    let narrowed = GenOptions {
        materials,
        max_pieces: options.max_pieces.max(2),
        ..options.clone()
    };
    plan(&narrowed)
        .into_iter()
        .find(|u| u.id == id)
        .ok_or_else(unknown)
}

/// The pairs whose tables `pair`'s moves lead to (captures, crownings).
pub fn exits_of_pair(pair: Material) -> Vec<Material> {
    let mut out = Vec::new();
    for m in pair_materials(pair) {
        for exit in m.exits() {
            let p = pair_of(exit);
            if p != pair && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The materials whose tables `material`'s pair reads: its exits (see
/// [`Material::exits`]) and what the captures and crownings of its smaller
/// exits lead to, and so on (a capture answered by a capture is resolved by
/// search). Exits as large as the pair (crownings) are read directly only.
pub fn reachable(material: Material) -> Vec<Material> {
    let mut out = material.exits();
    let mut next = 0;
    while next < out.len() {
        if out[next].pieces() < material.pieces() {
            for exit in out[next].exits() {
                if !out.contains(&exit) {
                    out.push(exit);
                }
            }
        }
        next += 1;
    }
    out
}

/// The table file of `material`, and its DTC file if `dtc`.
fn table_files(material: Material, dtc: bool) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from(material.file_name())];
    if dtc {
        files.push(PathBuf::from(format::dtc_file_name(material)));
    }
    files
}

/// The memory a unit needs, from what it holds: its values, the layer it
/// reads, the smaller tables decoded whole (within the preload budget) and
/// their files' pages (mapped and read whole, so resident), the block
/// cache when some table is not decoded whole, and per-thread working
/// memory.
struct MemoryModel {
    /// The rule set's folder, where the tables read may be already.
    table_dir: PathBuf,
    rule_set: RuleSet,
    dtc: bool,
    preload_bytes: u64,
    cache_bytes: u64,
    queue_bytes: u64,
    threads: u64,
    /// [`GenOptions::split_groups_above`].
    split_above: Option<u64>,
    /// How slices are solved ([`GenOptions::bitset_slices_above`]).
    slice_mode: SliceMode,
}

impl MemoryModel {
    /// The process itself: code, stacks, allocator slack.
    const BASE: u64 = 24 << 20;

    fn new(options: &GenOptions) -> MemoryModel {
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        MemoryModel {
            table_dir: format::table_dir(&options.dir, options.rule_set),
            rule_set: options.rule_set,
            dtc: options.dtc,
            preload_bytes: options.preload_bytes,
            cache_bytes: options.cache_bytes,
            queue_bytes: options.queue_bytes,
            threads: threads as u64,
            split_above: options.split_groups_above,
            slice_mode: SliceMode::of(options),
        }
    }

    /// The tables `pair` reads: those decoded whole (smallest first, as
    /// the builder chooses them) and the block cache if some are not.
    fn tables(&self, pair: Material) -> u64 {
        let mut exits = reachable(pair);
        exits.sort_by_key(|e| MaterialIndex::new(*e).count());
        let mut preloaded = 0u64;
        let mut all_fit = true;
        let mut mapped = 0u64;
        for exit in exits {
            let positions = MaterialIndex::new(exit).count();
            let bytes = value_kind(exit, self.rule_set).raw_len(positions);
            if preloaded + bytes <= self.preload_bytes {
                preloaded += bytes;
                mapped += self.file_bytes(exit, positions);
            } else {
                all_fit = false;
            }
        }
        preloaded + mapped + if all_fit { 0 } else { self.cache_bytes }
    }

    /// The size of `material`'s table file: the file's when it is built,
    /// else an estimate (half a bit a position: the tables up to five
    /// pieces average 0.21, from 0.015 to 0.95 for those of over a
    /// million positions). Measured: the 51 MiB of table files a
    /// `KKKK-KM` group reads were the whole gap between the plan and its
    /// peak before they were counted.
    fn file_bytes(&self, material: Material, positions: u64) -> u64 {
        let path = format::table_path(&self.table_dir, material);
        match std::fs::metadata(path) {
            Ok(meta) => meta.len(),
            Err(_) => positions / 16,
        }
    }

    /// Working memory of slices with `nodes` nodes each, `slices` of them
    /// in a group, solved as [`SliceMode::for_slices`] says: one slice per
    /// thread (a 2-byte cell and two 4-byte queues per node at most), or
    /// one big slice for all: a 2-byte cell and a byte while seeding per
    /// node, the level-1 seeds and the waves (4 bytes an entry, twice
    /// while a wave is gathered): 10 bytes a node, measured on the groups
    /// of `KKKKKK-M` (10.5 bytes a node more than the 2-bit path's peak);
    /// or 2 bits a node and its marks.
    fn slice_work(&self, nodes: u64, slices: u64) -> u64 {
        match self.slice_mode.for_slices(nodes, slices, self.threads) {
            SliceMode::Bitset => bitset_work_bytes(nodes, self.dtc),
            SliceMode::OneThreadEach => self.threads * nodes * 10,
            _ => nodes * 10,
        }
    }

    /// Whether the slices of `pair`'s groups (both sides to move) take the
    /// 2-bit path.
    fn in_two_bits(&self, pair: Material) -> bool {
        let nodes = 2 * MaterialIndex::new(pair).king_placements();
        self.slice_mode.for_slices(nodes, u64::MAX, self.threads) == SliceMode::Bitset
    }

    /// A group (or part) of `pair` of `own` positions that reads `read`.
    fn group(&self, pair: Material, own: u64, read: u64) -> u64 {
        let kings = MaterialIndex::new(pair).king_placements();
        let placements = own / kings;
        let layers = if self.in_pair_values(pair) {
            // The pair's values, and the group's own copy to write out
            // (and the group read, while it is copied in).
            values_bytes(pair_positions(pair), true, self.dtc)
                + values_bytes(own.max(read), true, self.dtc)
        } else {
            values_bytes(own, true, self.dtc) + values_bytes(read, false, false)
        };
        Self::BASE
            + layers
            // The group's keys (8 bytes, twice while they are sorted),
            // a batch of its slices; the reader's keys.
            + placements * 16
            + (1 << 16) * 48
            + read / kings * 8
            + self.slice_work(2 * kings, placements)
            + self.tables(pair)
    }

    fn solve(&self, pair: Material) -> u64 {
        let positions = pair_positions(pair);
        let values = values_bytes(positions, true, self.dtc);
        let work = if pair.counted_ending().is_some() {
            // The whole-material solver: 4 bytes a position and its lists
            // of positions by level (8 bytes an entry, at most one per
            // position and within the queue budget); with DTC, the slice
            // solver's values again.
            positions * 4
                + (positions * 8).min(self.queue_bytes)
                + if self.dtc { values } else { 0 }
        } else if menless_in_two_bits(pair, self.slice_mode) {
            // Codes only without DTC (the capture marks are found again,
            // a window at a time, when the tables are written).
            values_bytes(positions, self.dtc, self.dtc) + menless_work_bytes(positions, self.dtc)
        } else if solved_without_men(pair) {
            // One slice, solved by every thread.
            values + menless_slice_nodes(pair) * MENLESS_SLICE_TENTHS / 10
        } else {
            // Without slices (`GenOptions::slices` false), priced as one
            // slice in a group of many.
            values + self.slice_work(positions, u64::MAX)
        };
        Self::BASE + work + self.tables(pair)
    }

    fn in_pair_values(&self, pair: Material) -> bool {
        values_bytes(pair_positions(pair), true, self.dtc) <= PAIR_VALUES_LIMIT
            && !has_group_above(pair, self.split_above)
    }

    /// The assembly of a pair from `groups` group (or part) files.
    fn assemble(&self, groups: u64) -> u64 {
        // Each group's file read as a stream (a zstd decoder per part of
        // its payload, and a window of 2^20 positions: 1.5 MiB, and 1 MiB
        // more for DTC bytes), a batch of blocks, and a compressor per
        // thread (level 12). Measured: `KM-KMM.tables` (25 groups, one
        // thread) peaked at 62.2 MiB; this gives 73.5 MiB.
        const PER_GROUP: u64 = 3 << 19;
        const PER_GROUP_DTC: u64 = 1 << 20;
        const PER_THREAD: u64 = 12 << 20;
        let per_group = PER_GROUP + if self.dtc { PER_GROUP_DTC } else { 0 };
        Self::BASE + groups * per_group + self.threads * PER_THREAD
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_comes_after_what_it_needs_and_ids_are_unique() {
        for pieces in 2..=5 {
            let options = GenOptions::new("unused", RuleSet::Fmjd, pieces);
            let units = plan(&options);
            let mut seen = std::collections::HashSet::new();
            for u in &units {
                for need in &u.needs {
                    assert!(
                        seen.contains(need),
                        "{} needs {need}, not yet planned",
                        u.id
                    );
                }
                assert!(seen.insert(u.id.clone()), "{} twice", u.id);
            }
            assert_eq!(units.last().map(|u| u.id.as_str()), Some("manifest"));
        }
    }

    /// A group is weighed at the 2-bit rate exactly when its slices
    /// (both sides to move) pass the threshold the solver uses.
    #[test]
    fn groups_in_two_bits_are_those_of_big_slices() {
        let mut options = GenOptions::new("unused", RuleSet::Fmjd, 3);
        let memory = MemoryModel::new(&options);
        // 2 x 18,424 x 15,180 positions a slice against 2 x 13,983,816.
        assert!(memory.in_two_bits("KKK-KKKM".parse().unwrap()));
        assert!(!memory.in_two_bits("KKKKKK-M".parse().unwrap()));
        let two_bits = |options: &GenOptions| {
            plan(options)
                .iter()
                .filter_map(|u| match u.kind {
                    UnitKind::Group { in_two_bits, .. } => Some(in_two_bits),
                    _ => None,
                })
                .collect::<Vec<bool>>()
        };
        assert!(two_bits(&options).iter().all(|&b| !b));
        options.bitset_slices_above = 0;
        let all = two_bits(&options);
        assert!(!all.is_empty() && all.iter().all(|&b| b));
    }

    #[test]
    fn groups_cover_their_pairs() {
        let whole = GenOptions::new("unused", RuleSet::Fmjd, 4);
        let mut in_parts = whole.clone();
        in_parts.split_groups_above = Some(0);
        let mut binned = whole.clone();
        binned.split_groups_above = Some(1_000_000);
        for options in [whole, in_parts, binned] {
            groups_cover_their_pairs_in(&options);
        }
    }

    /// A group of men only, whose keys outweigh its values, splits at a
    /// threshold above its positions but below its weight; a group of
    /// many king placements a placement weighs little more than its
    /// positions.
    #[test]
    fn keys_weigh_in_the_split() {
        let men_only: Material = "MM-MMM".parse().unwrap();
        let a = group_advancements(men_only)[0];
        let positions = group_positions(men_only, a);
        let weight = group_weight(men_only, a);
        assert_eq!(weight, positions * (1 + crate::groups::KEY_WEIGHT));
        let mut options = GenOptions::new("unused", RuleSet::Fmjd, 5);
        options.split_groups_above = Some(weight - 1);
        assert!(splits_groups(&options, men_only));
        let heaviest = group_advancements(men_only)
            .into_iter()
            .map(|a| group_weight(men_only, a))
            .max()
            .unwrap();
        options.split_groups_above = Some(heaviest);
        assert!(!splits_groups(&options, men_only));
        let kings: Material = "KKM-KK".parse().unwrap();
        for a in group_advancements(kings) {
            let (p, w) = (group_positions(kings, a), group_weight(kings, a));
            assert!(
                w > p && w - p < p / 100,
                "{kings}.a{a}: {p} positions weigh {w}"
            );
        }
    }

    /// The groups (or parts) of each pair of the plan `options` gives hold
    /// its positions; a part needs only parts of the next group.
    fn groups_cover_their_pairs_in(options: &GenOptions) {
        let units = plan(options);
        for u in &units {
            if let UnitKind::Group { part: Some(_), .. } = u.kind {
                let groups = u.needs.iter().filter(|n| n.contains(".a"));
                assert!(groups.clone().all(|n| n.contains(".p")), "{}", u.id);
            }
        }
        for pair in pairs(options) {
            let groups: u64 = units
                .iter()
                .filter(|u| u.material == Some(pair) && matches!(u.kind, UnitKind::Group { .. }))
                .map(|u| u.positions)
                .sum();
            if solved_by_groups(options, pair) {
                assert_eq!(groups, pair_positions(pair), "{pair}");
            } else {
                assert_eq!(groups, 0, "{pair}");
            }
        }
    }
}
