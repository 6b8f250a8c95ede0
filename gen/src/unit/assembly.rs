//! The last unit of a pair solved group by group: its tables (and DTC
//! files) written from its groups' outputs, then the groups' files
//! removed.
//!
//! The pair's values are never held whole: each table is written a batch
//! of blocks at a time, and the values of a batch are read from the
//! groups' files as streams, front to back. A side's men placements come
//! in index order, and each group's file holds its placements in that
//! order too, so every placement is the next one of its group's stream.
//! Memory: a window of each group's stream and a batch of blocks.

use std::collections::BTreeMap;
use std::time::Instant;

use format::{Material, MaterialIndex};

use crate::unit::group_file::{GroupId, GroupStream, KeysCrc};
use crate::unit::pair_files::{remove_group_files, rule_dir, write_pair_files, UnitReport};
use crate::unit::table_writer::{write_dtc_table, write_wdl_table, Window};
use crate::values::{PackedSide, PackedValues};
use plan::groups::{advancement_of, part_of_placement};
use plan::units::group_file;
use plan::units::pair_indexes;
use plan::GenError;
use plan::GenOptions;
use plan::Progress;

/// Writes `pair`'s missing tables from its groups' output files (unit
/// `unit`), or from `held`, the same values as a `Session` that solved
/// every group into them holds them; then removes the groups' files.
pub(crate) fn assemble(
    options: &GenOptions,
    unit: &str,
    pair: Material,
    held: Option<Vec<PackedSide>>,
    progress: &Progress,
    report: &mut UnitReport,
) -> Result<(), GenError> {
    let start = Instant::now();
    progress.message("writing");
    let dir = rule_dir(options);
    let rule_set = options.rule_set;
    let seconds = start.elapsed().as_secs_f64();
    let form = (rule_set, crate::unit::table_writer::wld_level(options));
    let groups = GroupFiles::new(options, unit, pair)?;
    let solve = (seconds, Some(groups.deepest()?));
    match held {
        Some(sides) => {
            let write_dtc =
                |k: usize| crate::unit::table_writer::write_dtc_side(&sides[k], &dir, rule_set);
            let write_table =
                |k: usize| crate::unit::table_writer::write_packed_side(&sides[k], &dir, form);
            write_pair_files(options, pair, solve, report, write_dtc, write_table)?;
        }
        None => {
            let write_dtc = |k: usize| groups.write_side(k, true);
            let write_table = |k: usize| groups.write_side(k, false);
            write_pair_files(options, pair, solve, report, write_dtc, write_table)?;
        }
    }
    remove_group_files(&dir, pair)
}

/// A group's file: its advancement, and the first part of its bin if the
/// pair is solved in parts.
type FileOf = (u32, Option<u32>);

/// The bins of each group of a pair solved in parts, by advancement.
type Bins = BTreeMap<u32, std::sync::Arc<plan::units::GroupBins>>;

/// The group files of a pair, and what its assembly expects of them.
struct GroupFiles<'a> {
    options: &'a GenOptions,
    unit: &'a str,
    pair: Material,
    indexes: Vec<MaterialIndex>,
    /// The bins of each group (by advancement), if the pair is solved in
    /// parts of groups.
    bins: Option<Bins>,
    /// Per file: the placements of each side it holds, and the count and
    /// CRC-32 of all of them.
    expected: BTreeMap<FileOf, ExpectedPlacements>,
}

/// What the assembly expects of one group's file.
struct ExpectedPlacements {
    per_side: Vec<u64>,
    count: u64,
    crc: u32,
}

impl<'a> GroupFiles<'a> {
    /// Finds what each group of `pair` holds: every men placement of both
    /// sides, in key order, hashed into its group's CRC-32.
    fn new(options: &'a GenOptions, unit: &'a str, pair: Material) -> Result<Self, GenError> {
        let indexes = pair_indexes(pair);
        let bins = plan::units::splits_groups(options, pair).then(|| {
            plan::groups::group_advancements(pair)
                .into_iter()
                .map(|a| (a, plan::units::group_bins(options, &indexes, a)))
                .collect::<Bins>()
        });
        let mut found: BTreeMap<FileOf, (KeysCrc, Vec<u64>)> = BTreeMap::new();
        for (side, index) in indexes.iter().enumerate() {
            for men in 0..index.men_placements() {
                let file = file_of(&indexes, bins.as_ref(), side, men)?;
                let (crc, per_side) = found
                    .entry(file)
                    .or_insert_with(|| (KeysCrc::default(), vec![0; indexes.len()]));
                crc.push((side as u8, men));
                per_side[side] += 1;
            }
        }
        let expected = found
            .into_iter()
            .map(|(file, (crc, per_side))| {
                let (count, crc) = crc.finish();
                let placements = ExpectedPlacements {
                    per_side,
                    count,
                    crc,
                };
                (file, placements)
            })
            .collect();
        Ok(GroupFiles {
            options,
            unit,
            pair,
            indexes,
            bins,
            expected,
        })
    }

    /// The deepest level at which a position of the pair settled, over
    /// its groups' files (each read and checked).
    fn deepest(&self) -> Result<u32, GenError> {
        let dir = rule_dir(self.options);
        let kings = self.indexes[0].king_placements();
        let mut deepest = 0;
        for &(advancement, part) in self.expected.keys() {
            let id = GroupId {
                material: self.pair,
                rule_set: self.options.rule_set,
                advancement,
                part,
            };
            let path = dir.join(group_file(self.pair, advancement, part));
            let stream = GroupStream::open(&path, id, kings, false)
                .map_err(|reason| self.missing((advancement, part), reason))?;
            deepest = deepest.max(stream.deepest());
        }
        Ok(deepest)
    }

    /// The unit's error for the file of `(advancement, part)`: `reason`.
    fn missing(&self, (advancement, part): FileOf, reason: String) -> GenError {
        GenError::MissingInput {
            unit: self.unit.to_string(),
            path: rule_dir(self.options)
                .join(group_file(self.pair, advancement, part))
                .display()
                .to_string(),
            reason,
        }
    }

    /// Every group's stream, checked, positioned at the first placement
    /// of side `k`; DTC bytes too if `with_dtc`.
    fn streams(&self, k: usize, with_dtc: bool) -> Result<BTreeMap<FileOf, GroupStream>, GenError> {
        let dir = rule_dir(self.options);
        let kings = self.indexes[0].king_placements();
        let mut streams = BTreeMap::new();
        for (&(advancement, part), expected) in &self.expected {
            let id = GroupId {
                material: self.pair,
                rule_set: self.options.rule_set,
                advancement,
                part,
            };
            let file = (advancement, part);
            let path = dir.join(group_file(self.pair, advancement, part));
            let mut stream = GroupStream::open(&path, id, kings, with_dtc)
                .and_then(|s| s.holds(expected.count, expected.crc).map(|()| s))
                .map_err(|reason| self.missing(file, reason))?;
            let before: u64 = expected.per_side[..k].iter().sum();
            stream
                .copy_next(None, before * kings)
                .map_err(|reason| self.missing(file, reason))?;
            streams.insert(file, stream);
        }
        Ok(streams)
    }

    /// Writes the table of side `k` (its DTC file if `dtc`) from the
    /// groups' streams.
    fn write_side(
        &self,
        k: usize,
        dtc: bool,
    ) -> Result<(std::path::PathBuf, format::TableStats), GenError> {
        let index = &self.indexes[k];
        let kings = index.king_placements();
        let mut streams = self.streams(k, dtc)?;
        let window = |start: u64, end: u64| -> Result<Window<'static>, GenError> {
            let values = PackedValues::new(end - start, dtc)?;
            let mut pos = start;
            while pos < end {
                let (men, from) = (pos / kings, pos % kings);
                let n = (kings - from).min(end - pos);
                let file = file_of(&self.indexes, self.bins.as_ref(), k, men)?;
                let stream = streams
                    .get_mut(&file)
                    .ok_or_else(|| GenError::Internal(format!("no group file {file:?}")))?;
                stream
                    .copy_next(Some((&values, pos - start)), n)
                    .map_err(|reason| self.missing(file, reason))?;
                pos += n;
            }
            Ok(Window::Read(values, start))
        };
        let dir = rule_dir(self.options);
        let material = index.material();
        if dtc {
            write_dtc_table(material, &dir, self.options.rule_set, window)
        } else {
            let level = crate::unit::table_writer::wld_level(self.options);
            write_wdl_table(material, &dir, (self.options.rule_set, level), window)
        }
    }
}

/// The file that holds men placement `men` of side `side` of the pair
/// whose sides have the indexes `indexes`: its group's, or with `bins`
/// (those of each group of a pair solved in parts) its bin's.
fn file_of(
    indexes: &[MaterialIndex],
    bins: Option<&Bins>,
    side: usize,
    men: u64,
) -> Result<FileOf, GenError> {
    let index = &indexes[side];
    let [white_men, _, black_men, _] = index.unrank_masks(men * index.king_placements());
    let advancement = advancement_of(white_men, black_men);
    let Some(bins) = bins else {
        return Ok((advancement, None));
    };
    let part = part_of_placement(indexes, side, men);
    bins.get(&advancement)
        .and_then(|b| b.holding(part))
        .map(|bin| (advancement, Some(bin.first)))
        .ok_or_else(|| GenError::Internal(format!("placement {men} of side {side} is in no bin")))
}
