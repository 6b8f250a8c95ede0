//! What a unit leaves: the files of a pair written where missing, the
//! report of what was written, and the groups' files removed once the
//! pair's tables are there.

use std::path::{Path, PathBuf};

use format::{Material, MaterialIndex};
use plan::units::pair_materials;
use plan::{GenError, GenOptions};

use crate::tables::{dtc_is_valid, table_is_valid, BuiltTable};

/// What running a unit did.
#[derive(Debug, Default)]
pub struct UnitReport {
    /// The unit.
    pub id: String,
    /// Its output was there and valid: nothing was done.
    pub already_done: bool,
    /// Tables it wrote.
    pub built: Vec<BuiltTable>,
    /// DTC files it wrote.
    pub dtc_built: Vec<BuiltTable>,
    /// Tables that were there and valid already (a pair's other side).
    pub skipped: Vec<Material>,
    /// With [`GenOptions::compact`]: what compacting each table written
    /// did (a pair kept as version 1 is in `not_compacted`).
    pub compacted: Vec<crate::CompactedTable>,
    /// With [`GenOptions::compact`]: pairs written as version 1 because a
    /// one-ply search of them was not proved exact.
    pub not_compacted: Vec<Material>,
    /// With [`GenOptions::compact`]: the pair whose tables this unit wrote,
    /// and the deepest level its solve settled a position at, if known:
    /// to be compacted by `compact_written` once no pair of the build
    /// reads its tables any more (a compacted table is slower to read).
    pub to_compact: Option<(Material, Option<u32>)>,
    /// Wall time, in seconds.
    pub seconds: f64,
}

/// The rule set's folder of a build.
pub(crate) fn rule_dir(options: &GenOptions) -> PathBuf {
    format::table_dir(&options.dir, options.rule_set)
}

/// Writes the files of `pair` that are missing: its DTC files (side `k`'s
/// by `write_dtc(k)`) when asked for, and its tables (side `k`'s by
/// `write_table(k)`); a valid table is never written again (another
/// process may have made it meanwhile). With [`GenOptions::compact`], the
/// tables are then compacted where the solve, whose deepest settled
/// level was `deepest`, proves a one-ply search exact.
pub(crate) fn write_pair_files(
    options: &GenOptions,
    pair: Material,
    (seconds, deepest): (f64, Option<u32>),
    report: &mut UnitReport,
    mut write_dtc: impl FnMut(usize) -> Result<(PathBuf, format::TableStats), GenError>,
    mut write_table: impl FnMut(usize) -> Result<(PathBuf, format::TableStats), GenError>,
) -> Result<(), GenError> {
    let dir = rule_dir(options);
    let rule_set = options.rule_set;
    for (k, material) in pair_materials(pair).into_iter().enumerate() {
        if options.dtc && !dtc_is_valid(&dir, material, rule_set) {
            let (path, stats) = write_dtc(k)?;
            report.dtc_built.push(built(material, path, stats, seconds));
        }
        let path = format::table_path(&dir, material);
        if table_is_valid(&path, material, rule_set) {
            report.skipped.push(material);
            continue;
        }
        let (path, stats) = write_table(k)?;
        report.built.push(built(material, path, stats, seconds));
    }
    let wrote = report
        .built
        .iter()
        .any(|b| pair_materials(pair).contains(&b.material));
    if options.compact.is_some() && wrote {
        crate::unit::pending::record(&dir, pair, deepest)?;
        report.to_compact = Some((pair, deepest));
    }
    if options.dtc && options.compact_dtc {
        if let Some(m) = crate::unit::table_writer::compact_dtc_pair(&dir, pair, rule_set)? {
            for b in report.dtc_built.iter_mut().filter(|b| b.material == m) {
                b.bytes = std::fs::metadata(&b.path).map_or(0, |md| md.len());
            }
        }
    }
    Ok(())
}

/// Compacts the tables of the pair written (`report.to_compact`, see
/// [`GenOptions::compact`]) where its solve proves a one-ply search exact,
/// and counts the bytes of those written anew.
pub(crate) fn compact_written(
    options: &GenOptions,
    report: &mut UnitReport,
) -> Result<(), GenError> {
    if let Some((pair, deepest)) = report.to_compact.take() {
        compact_pair(options, pair, deepest, report)?;
    }
    Ok(())
}

/// Compacts the tables of `pair`, written by a compacting build whose
/// solve settled its deepest position at level `deepest`, where that
/// proves a one-ply search exact; else (or in a build that does not
/// compact) rewrites them at the default zstd level. Then forgets the
/// pair's record (`pending`) and counts the bytes of the files in
/// `report.built`.
pub(crate) fn compact_pair(
    options: &GenOptions,
    pair: Material,
    deepest: Option<u32>,
    report: &mut UnitReport,
) -> Result<(), GenError> {
    let (rule_set, folder) = (options.rule_set, rule_dir(options));
    // A record whose tables are gone (removed by hand) is forgotten.
    let present = pair_materials(pair)
        .iter()
        .all(|&m| format::table_path(&folder, m).is_file());
    if present && format::value_kind(pair, rule_set) == format::ValueKind::Wdl {
        let proved = crate::solvers::kings_only::search_is_exact(rule_set, pair, deepest);
        match options.compact {
            Some(sides) if proved => {
                let done = crate::compact::compact_built_pair(&folder, pair, rule_set, sides)?;
                report.compacted.extend(done);
            }
            _ => {
                for m in pair_materials(pair) {
                    crate::compact::recompress(&folder, m, rule_set)?;
                }
                if options.compact.is_some() {
                    report.not_compacted.push(pair);
                }
            }
        }
    }
    crate::unit::pending::clear(&folder, pair)?;
    for b in report.built.iter_mut() {
        if pair_materials(pair).contains(&b.material) {
            b.bytes = std::fs::metadata(&b.path).map_or(0, |md| md.len());
        }
    }
    Ok(())
}

/// A table written, with its size read back.
pub(crate) fn built(
    material: Material,
    path: PathBuf,
    stats: format::TableStats,
    seconds: f64,
) -> BuiltTable {
    BuiltTable {
        material,
        bytes: std::fs::metadata(&path).map(|md| md.len()).unwrap_or(0),
        path,
        positions: MaterialIndex::new(material).count(),
        stats,
        seconds,
    }
}

/// Removes the output files of `pair`'s groups (once its tables are
/// written) and any temporary ones.
pub(crate) fn remove_group_files(dir: &Path, pair: Material) -> Result<(), GenError> {
    let units = dir.join(plan::units::UNITS_DIR);
    let Ok(entries) = std::fs::read_dir(&units) else {
        return Ok(());
    };
    let prefix = format!("{pair}.a");
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.strip_prefix(&prefix).is_some_and(|rest| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let after = &rest[digits..];
            let part_file = after.strip_prefix(".p").is_some_and(|part| {
                part.strip_suffix(".dtg")
                    .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit() || b"_ns".contains(&b)))
            });
            digits > 0 && (after.starts_with(".dtg") || part_file)
        });
        if ours {
            std::fs::remove_file(e.path()).map_err(|err| GenError::io(&e.path(), err))?;
        }
    }
    // The folder goes when it is empty (a group being written elsewhere
    // keeps it, or makes it again: see `group_file::write_group`).
    let _ = std::fs::remove_dir(&units);
    Ok(())
}
