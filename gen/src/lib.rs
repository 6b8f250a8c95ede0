//! The draughts-tb generator: solves every material up to N pieces by
//! retrograde analysis, in dependency order, and writes compressed tables.
//!
//! The work follows the plan (crate `plan`): each unit is run by `unit/`
//! with one of the solvers (`solvers/`), its values held in `values.rs`, and the
//! files it writes (a group's file, a pair's tables) written by the
//! unit's own modules. The check of what was built lives in crate
//! `check`, which shares none of this.
//!
//! ```no_run
//! use gen::{generate, GenOptions};
//! use format::RuleSet;
//!
//! let report = generate(&GenOptions::new("data", RuleSet::Fmjd, 4))?;
//! println!("{} tables built", report.built.len());
//! # Ok::<(), gen::GenError>(())
//! ```
#![warn(missing_docs)]

mod compact;
#[cfg(feature = "fault-injection")]
pub mod fault;
mod fill;
mod recompress;
mod solvers;
mod tables;
mod unit;
mod values;

use std::path::Path;
use std::time::Instant;

use format::Material;

pub use compact::{compact, compact_dry_run, CompactedTable, Compaction, Sides};
pub use plan::{
    materials_to_build, peak_memory_bytes, plan, GenError, GenOptions, Progress, SetProgress, Unit,
    UnitKind, DEFAULT_BITSET_SLICES_ABOVE, DEFAULT_SPLIT_GROUPS_ABOVE,
};
use probe::table_dir;
pub use recompress::{recompress, Recompressed, RECOMPRESS_LEVELS};
pub use solvers::group::SliceGroup;
pub use tables::{dtc_is_valid, table_is_valid, BuiltTable};
pub use unit::UnitReport;

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct GenReport {
    /// Tables written by this run.
    pub built: Vec<BuiltTable>,
    /// DTC files written by this run (with `GenOptions::dtc`).
    pub dtc_built: Vec<BuiltTable>,
    /// Materials whose valid tables were already there.
    pub skipped: Vec<Material>,
    /// With `GenOptions::compact`: what compacting each table did.
    pub compacted: Vec<CompactedTable>,
    /// With `GenOptions::compact`: pairs written as version 1, their
    /// search not proved exact (see `GenOptions::compact`).
    pub not_compacted: Vec<Material>,
    /// Wall time.
    pub seconds: f64,
    /// Peak resident memory of the process, where the system tells.
    pub peak_memory_bytes: Option<u64>,
}

/// Builds the tables `options` asks for, unit by unit (see [`plan()`]);
/// skips the units whose output is present and valid, so an interrupted
/// run resumes where it stopped.
///
/// # Errors
/// Bad options, a missing or damaged input, or a failed write.
pub fn generate(options: &GenOptions) -> Result<GenReport, GenError> {
    in_pool(options, || generate_here(options))
}

/// Runs `f` in a thread pool of the size `options` asks for.
fn in_pool<T: Send>(
    options: &GenOptions,
    f: impl FnOnce() -> Result<T, GenError> + Send,
) -> Result<T, GenError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| GenError::BadOptions(format!("cannot start threads: {e}")))?;
    pool.install(f)
}

/// Refuses options that ask for no table or for too large ones.
fn check_options(options: &GenOptions) -> Result<(), GenError> {
    if options.max_pieces < 2 && options.materials.is_empty() {
        return Err(GenError::BadOptions("--pieces must be at least 2".into()));
    }
    match options
        .materials
        .iter()
        .find(|m| m.pieces() > probe::MAX_TABLE_PIECES)
    {
        Some(m) => Err(GenError::BadOptions(format!(
            "{m} has {} pieces; at most {} are supported",
            m.pieces(),
            probe::MAX_TABLE_PIECES
        ))),
        None => Ok(()),
    }
}

/// Takes the folder's lock: one `dtb gen` a folder (a second would clash
/// on the temporary files of the tables). The lock goes with the file.
fn lock_folder(dir: &Path) -> Result<std::fs::File, GenError> {
    let lock_path = dir.join(".dtb-gen.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| GenError::io(&lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => Err(GenError::BadOptions(format!(
            "another dtb gen is building tables in {}",
            dir.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(GenError::io(&lock_path, e)),
    }
}

/// The positions a unit solves (none for an assembly or the manifest).
fn solved_positions(unit: &Unit) -> u64 {
    match unit.kind {
        UnitKind::Solve | UnitKind::Group { .. } => unit.positions,
        UnitKind::Assemble | UnitKind::Manifest => 0,
    }
}

fn generate_here(options: &GenOptions) -> Result<GenReport, GenError> {
    let start = Instant::now();
    check_options(options)?;
    let dir = table_dir(&options.dir, options.rule_set);
    std::fs::create_dir_all(&dir).map_err(|e| GenError::io(&dir, e))?;
    let _lock = lock_folder(&dir)?;
    format::remove_partial_tables(&dir)?;
    unit::group_file::remove_all_partials(&dir.join(plan::UNITS_DIR))?;
    let units = plan(options);
    let todo: u64 = units
        .iter()
        .filter(|u| {
            u.material
                .is_some_and(|pair| !unit::pair_done(options, pair))
        })
        .map(solved_positions)
        .sum();
    let set_progress = SetProgress::new(todo, options.quiet);
    let mut session = unit::Session::default();
    let mut report = GenReport::default();
    let mut to_compact = Vec::new();
    for u in &units {
        if u.kind == UnitKind::Manifest {
            compact_pending(options, &mut to_compact, &mut report, &set_progress)?;
        }
        let progress = set_progress.pair(&u.id, solved_positions(u));
        set_progress.message(&u.id);
        let mut done = unit::run(options, u, &mut session, &progress)?;
        to_compact.extend(done.to_compact.take());
        progress.finish();
        if done.already_done && matches!(u.kind, UnitKind::Solve | UnitKind::Assemble) {
            report
                .skipped
                .extend(u.material.into_iter().flat_map(plan::pair_materials));
        }
        report.built.extend(done.built);
        report.dtc_built.extend(done.dtc_built);
        report.skipped.extend(done.skipped);
        report.compacted.extend(done.compacted);
        report.not_compacted.extend(done.not_compacted);
    }
    compact_pending(options, &mut to_compact, &mut report, &set_progress)?;
    set_progress.finish();
    // A build stopped just after making the groups' folder leaves it empty.
    let _ = std::fs::remove_dir(dir.join(plan::UNITS_DIR));
    report.seconds = start.elapsed().as_secs_f64();
    report.peak_memory_bytes = peak_memory_bytes();
    Ok(report)
}

/// Compacts the pairs the build wrote (`to_compact`, emptied; see
/// `GenOptions::compact`), after the last pair that reads them: a
/// compacted table is slower to read, most of all one left to a search.
/// Then the pairs an earlier build wrote and was stopped before
/// compacting (their records, `unit::pending`), so that a resumed build
/// writes what an unbroken one does; a build that does not compact
/// rewrites those at the default zstd level.
fn compact_pending(
    options: &GenOptions,
    to_compact: &mut Vec<(Material, Option<u32>)>,
    report: &mut GenReport,
    set_progress: &SetProgress,
) -> Result<(), GenError> {
    let dir = table_dir(&options.dir, options.rule_set);
    #[cfg(feature = "fault-injection")]
    if options.compact.is_some() && !to_compact.is_empty() {
        fault::compaction_stop(&dir)?;
    }
    let mut pairs: Vec<(Material, Option<u32>)> = std::mem::take(to_compact);
    let earlier: Vec<_> = unit::pending::list(&dir)
        .into_iter()
        .filter(|r| !pairs.iter().any(|p| p.0 == r.0))
        .collect();
    pairs.extend(earlier);
    for (pair, deepest) in pairs {
        set_progress.message(&format!("compacting {pair}"));
        let mut done = UnitReport::default();
        unit::pair_files::compact_pair(options, pair, deepest, &mut done)?;
        let sides = plan::pair_materials(pair);
        for b in report
            .built
            .iter_mut()
            .filter(|b| sides.contains(&b.material))
        {
            b.bytes = std::fs::metadata(&b.path).map_or(0, |md| md.len());
        }
        report.compacted.extend(done.compacted);
        report.not_compacted.extend(done.not_compacted);
    }
    Ok(())
}

/// Runs the unit `id` of the build `options` describes (its rule set,
/// folder, DTC and memory settings; the pieces and materials do not
/// matter): the command a batch job runs. Nothing is done when its output
/// is present and valid.
///
/// # Errors
/// An unknown id ([`GenError::BadOptions`]), a missing or incomplete
/// input ([`GenError::MissingInput`]), or a failed solve or write.
pub fn run_unit(options: &GenOptions, id: &str) -> Result<UnitReport, GenError> {
    let unit = plan::find_unit(options, id)?;
    let dir = table_dir(&options.dir, options.rule_set);
    std::fs::create_dir_all(&dir).map_err(|e| GenError::io(&dir, e))?;
    in_pool(options, || {
        let earlier = compact_recorded(options, &unit)?;
        let progress = Progress::new(&unit.id, solved_positions(&unit), options.quiet);
        let mut report = unit::run(options, &unit, &mut unit::Session::default(), &progress)?;
        report.compacted.extend(earlier.compacted);
        report.not_compacted.extend(earlier.not_compacted);
        progress.finish();
        // One unit a process: its pair is compacted at once (the pairs
        // built after it read it more slowly), as is a pair it wrote
        // before it was stopped (its record says so).
        if report.to_compact.is_none() {
            report.to_compact = unit
                .material
                .and_then(|pair| unit::pending::find(&dir, pair).map(|deepest| (pair, deepest)));
        }
        unit::pair_files::compact_written(options, &mut report)?;
        Ok(report)
    })
}

/// Before the manifest unit (`unit`), compacts every pair whose unit was
/// stopped between writing its tables and compacting them (its record,
/// `unit::pending`): a batch scheduler counts that unit done, so the last
/// unit finishes it.
fn compact_recorded(options: &GenOptions, unit: &Unit) -> Result<UnitReport, GenError> {
    let mut done = UnitReport::default();
    if unit.kind == UnitKind::Manifest {
        for (pair, deepest) in unit::pending::list(&table_dir(&options.dir, options.rule_set)) {
            unit::pair_files::compact_pair(options, pair, deepest, &mut done)?;
        }
    }
    Ok(done)
}

/// Whether `unit`'s output is present and valid (running it would do
/// nothing).
pub fn unit_is_done(options: &GenOptions, unit: &Unit) -> bool {
    unit::is_done(options, unit)
}
