//! The tables a build reads and writes: a reader for solving a pair,
//! with the tables its moves lead to decoded in memory, whether a
//! material's files are there and valid, and what was written.

use std::path::{Path, PathBuf};

use format::{value_kind, Material, MaterialIndex, RuleSet, TableStats, ValueKind};
use plan::GenError;
use probe::generator::GeneratorHooks;
use probe::{Tablebase, TablebaseOptions};

/// One table written.
#[derive(Clone, Debug)]
pub struct BuiltTable {
    /// Its material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// Positions (White to move).
    pub positions: u64,
    /// File size.
    pub bytes: u64,
    /// Statistics (White to move).
    pub stats: TableStats,
    /// Seconds spent solving its pair.
    pub seconds: f64,
}

/// Whether `path` holds a complete, valid table of `material` under
/// `rule_set` (header, index and the checksum of the whole file).
pub fn table_is_valid(path: &Path, material: Material, rule_set: RuleSet) -> bool {
    format::check_file_of(path, material, rule_set, value_kind(material, rule_set)).is_ok()
}

/// A fresh reader for solving `material`'s pair, with the tables its moves
/// lead to decoded in memory (smallest first, within `preload_bytes`):
/// lookups are array reads, and the memory goes with the reader.
pub fn open_for_pair(
    dir: &Path,
    rule_set: RuleSet,
    material: Material,
    cache_bytes: u64,
    preload_bytes: u64,
) -> Result<Tablebase, GenError> {
    let tb = Tablebase::open_with(
        dir,
        rule_set,
        TablebaseOptions::with_cache_bytes(cache_bytes),
    )?;
    // Smallest first: the tables reached by chains of captures (a capture
    // answered by a capture) are small and read often.
    let mut exits = plan::units::reachable(material);
    exits.sort_by_key(|e| MaterialIndex::new(*e).count());
    let mut preloaded = 0u64;
    for exit in exits {
        // Decoded: 2 bits per position in a WLD table, a byte in a
        // distance table.
        let bytes = value_kind(exit, rule_set).raw_len(MaterialIndex::new(exit).count());
        if preloaded + bytes <= preload_bytes {
            tb.preload(exit)?;
            preloaded += bytes;
        }
    }
    Ok(tb)
}

/// Whether `material`'s files under `dir` are all there and valid: its
/// table, and its DTC file if `dtc`.
pub fn files_are_valid(dir: &Path, material: Material, rule_set: RuleSet, dtc: bool) -> bool {
    table_is_valid(&dir.join(material.file_name()), material, rule_set)
        && (!dtc || dtc_is_valid(dir, material, rule_set))
}

/// Whether `material`'s DTC file in `dir` is complete and valid.
pub fn dtc_is_valid(dir: &Path, material: Material, rule_set: RuleSet) -> bool {
    let path = format::dtc_path(dir, material);
    format::check_file_of(&path, material, rule_set, ValueKind::Dtc).is_ok()
}
