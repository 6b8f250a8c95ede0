//! The draughts-tb generator: solves every material up to N pieces by
//! retrograde analysis, in dependency order, and writes compressed tables.
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

mod captures;
mod dense;
mod error;
mod level_queue;
pub mod manifest;
mod output;
mod progress;
mod slices;
mod solver;
mod verify;

use std::path::{Path, PathBuf};
use std::time::Instant;

pub use error::GenError;
use format::{value_kind, Material, MaterialIndex, RuleSet, TableStats, ValueKind};
use probe::{table_dir, Tablebase, TablebaseOptions};
pub use progress::{Progress, SetProgress};
pub use slices::SliceGroup;
pub use verify::{materials_in, verify, Mismatch, TableCheck, TableProblem, VerifyOptions};

/// What to build and where.
#[derive(Clone, Debug)]
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
    /// Solve materials with men slice by slice (see the `slices` module);
    /// `false` solves every material whole, as the first solver did (kept
    /// as a reference: the tables are the same).
    pub slices: bool,
    /// Also write each material's distances to conversion (`.dtc` files
    /// beside the tables; see `format::dtc_byte`).
    pub dtc: bool,
}

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
        }
    }
}

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

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct GenReport {
    /// Tables written by this run.
    pub built: Vec<BuiltTable>,
    /// DTC files written by this run (with `GenOptions::dtc`).
    pub dtc_built: Vec<BuiltTable>,
    /// Materials whose valid tables were already there.
    pub skipped: Vec<Material>,
    /// Wall time.
    pub seconds: f64,
    /// Peak resident memory of the process, where the system tells.
    pub peak_memory_bytes: Option<u64>,
}

/// Every material to build, in build order: all up to `max_pieces`, or
/// the named ones with their mirrors and everything they depend on.
pub fn plan(options: &GenOptions) -> Vec<Material> {
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

/// Whether `path` holds a complete, valid table of `material` under
/// `rule_set` (header, index and the checksum of the whole file).
pub fn table_is_valid(path: &Path, material: Material, rule_set: RuleSet) -> bool {
    format::check_table_file(path).is_ok_and(|h| h.material == material && h.rule_set == rule_set)
}

/// Peak resident memory of this process (Linux).
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A fresh reader for solving `material`'s pair, with the tables its moves
/// lead to decoded in memory (smallest first, within `preload_bytes`):
/// lookups are array reads, and the memory goes with the reader.
pub(crate) fn open_for_pair(
    dir: &Path,
    rule_set: RuleSet,
    material: Material,
    cache_bytes: u64,
    preload_bytes: u64,
) -> Result<Tablebase, GenError> {
    let tb = Tablebase::open_with(dir, rule_set, TablebaseOptions { cache_bytes })?;
    // Smallest first: the tables reached by chains of captures (a capture
    // answered by a capture) are small and read often.
    let mut exits = reachable(material);
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

/// The materials whose tables `material`'s pair reads: its exits (see
/// [`Material::exits`]) and what the captures and crownings of its smaller
/// exits lead to, and so on (a capture answered by a capture is resolved by
/// search). Exits as large as the pair (crownings) are read directly only.
pub(crate) fn reachable(material: Material) -> Vec<Material> {
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

/// A solved pair, from either solver.
enum Solved {
    Whole(solver::Solved),
    Slices(slices::PackedPair),
}

impl Solved {
    /// The materials of the pair, in side order.
    fn materials(&self) -> Vec<Material> {
        match self {
            Solved::Whole(s) => s.sides.iter().map(|x| x.material).collect(),
            Solved::Slices(p) => p.sides.iter().map(|x| x.material).collect(),
        }
    }

    /// Writes side `k`'s DTC file to `dir`; the pair must have been
    /// solved with DTC values (see [`with_dtc`]).
    fn write_dtc(
        &self,
        k: usize,
        dir: &Path,
        rule_set: RuleSet,
    ) -> Result<(PathBuf, TableStats), GenError> {
        match self {
            Solved::Slices(p) if p.sides[k].has_dtc() => {
                output::write_dtc_side(&p.sides[k], dir, rule_set)
            }
            _ => Err(GenError::Internal("no DTC values were found".into())),
        }
    }

    /// Writes side `k`'s table to `dir`.
    fn write(
        &self,
        k: usize,
        dir: &Path,
        rule_set: RuleSet,
    ) -> Result<(PathBuf, TableStats), GenError> {
        match self {
            Solved::Whole(s) => output::write_side(&s.sides[k], dir, rule_set, s.levels),
            Solved::Slices(p) => output::write_packed_side(&p.sides[k], dir, rule_set),
        }
    }
}

/// The DTC values of a pair the whole-material solver solved: its
/// results (with a freshly entered count, in a counted ending) are taken as
/// known, and the slices are walked once more for the distances.
fn with_dtc(
    solved: &solver::Solved,
    tb: &Tablebase,
    rule_set: RuleSet,
    progress: &Progress,
) -> Result<slices::PackedPair, GenError> {
    let material = solved.sides[0].material;
    let class = material.counted_ending();
    let sides = slices::pair_sides(material, true)?;
    for (side, whole) in sides.iter().zip(&solved.sides) {
        // Capture positions too: a man step may lead to one.
        for i in 0..whole.len() {
            let (wdl, plies) = solver::decode_state(whole.state(i));
            let value = format::TableValue {
                wdl,
                distance: (wdl != format::Wdl::Draw).then_some(plies.min(255) as u8),
            };
            side.store(
                i as u64,
                value.wdl_with(rule_set, class, None).code(),
                false,
            );
        }
    }
    slices::solve_dtc_of_known(tb, rule_set, sides, progress)
}

/// Whether `material`'s files under `dir` are all there and valid: its
/// table, and its DTC file if `dtc`.
fn files_are_valid(dir: &Path, material: Material, rule_set: RuleSet, dtc: bool) -> bool {
    table_is_valid(&dir.join(material.file_name()), material, rule_set)
        && (!dtc || dtc_is_valid(dir, material, rule_set))
}

/// Whether `material`'s DTC file in `dir` is complete and valid.
pub fn dtc_is_valid(dir: &Path, material: Material, rule_set: RuleSet) -> bool {
    format::check_table_file(&format::dtc_path(dir, material)).is_ok_and(|h| {
        h.material == material && h.rule_set == rule_set && h.value_kind == ValueKind::Dtc
    })
}

/// Builds the tables `options` asks for; skips those already present and
/// valid, so an interrupted run resumes where it stopped.
pub fn generate(options: &GenOptions) -> Result<GenReport, GenError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| GenError::BadOptions(format!("cannot start threads: {e}")))?;
    pool.install(|| generate_here(options))
}

fn generate_here(options: &GenOptions) -> Result<GenReport, GenError> {
    let start = Instant::now();
    if options.max_pieces < 2 && options.materials.is_empty() {
        return Err(GenError::BadOptions("--pieces must be at least 2".into()));
    }
    if let Some(m) = options
        .materials
        .iter()
        .find(|m| m.pieces() > probe::MAX_TABLE_PIECES)
    {
        return Err(GenError::BadOptions(format!(
            "{m} has {} pieces; at most {} are supported",
            m.pieces(),
            probe::MAX_TABLE_PIECES
        )));
    }
    let dir = table_dir(&options.dir, options.rule_set);
    std::fs::create_dir_all(&dir).map_err(|e| GenError::io(&dir, e))?;
    // One generator per folder: a second would clash on the temporary
    // files (and remove the first one's). The lock goes with the process.
    let lock_path = dir.join(".dtb-gen.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| GenError::io(&lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(GenError::BadOptions(format!(
                "another dtb gen is building tables in {}",
                dir.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(GenError::io(&lock_path, e)),
    }
    format::remove_partial_tables(&dir)?;
    let mut report = GenReport::default();
    let queue_budget = usize::try_from(options.queue_bytes / 8).unwrap_or(usize::MAX);
    let materials = plan(options);
    let todo: u64 = materials
        .iter()
        .filter(|m| {
            // A pair is solved whole when either of its tables is missing.
            let missing = |x: Material| !files_are_valid(&dir, x, options.rule_set, options.dtc);
            missing(**m) || (materials.contains(&m.mirrored()) && missing(m.mirrored()))
        })
        .map(|m| MaterialIndex::new(*m).count())
        .sum();
    let set_progress = SetProgress::new(todo, options.quiet);
    for &m in &materials {
        if m > m.mirrored() && materials.contains(&m.mirrored()) {
            continue; // solved with its mirror
        }
        let pair: Vec<Material> = if m.is_symmetric() {
            vec![m]
        } else {
            vec![m, m.mirrored()]
        };
        let missing: Vec<Material> = pair
            .iter()
            .copied()
            .filter(|x| !files_are_valid(&dir, *x, options.rule_set, options.dtc))
            .collect();
        if missing.is_empty() {
            report.skipped.extend(pair);
            continue;
        }
        let positions: u64 = pair.iter().map(|x| MaterialIndex::new(*x).count()).sum();
        let pair_start = Instant::now();
        let progress = set_progress.pair(&m.to_string(), positions);
        set_progress.message(&format!("{m}"));
        let tb = open_for_pair(
            &options.dir,
            options.rule_set,
            m,
            options.cache_bytes,
            options.preload_bytes,
        )?;
        let solved = if options.slices && slices::uses_slices(m) {
            Solved::Slices(slices::solve(
                &tb,
                options.rule_set,
                m,
                &progress,
                options.dtc,
            )?)
        } else {
            Solved::Whole(solver::solve(
                &tb,
                options.rule_set,
                m,
                &progress,
                queue_budget,
            )?)
        };
        let dtc = match (&solved, options.dtc) {
            (Solved::Whole(whole), true) => Some(Solved::Slices(with_dtc(
                whole,
                &tb,
                options.rule_set,
                &progress,
            )?)),
            (Solved::Slices(_), true) => None,
            (_, false) => None,
        };
        progress.message("writing");
        let seconds = pair_start.elapsed().as_secs_f64();
        for (k, material) in solved.materials().into_iter().enumerate() {
            if options.dtc && !dtc_is_valid(&dir, material, options.rule_set) {
                let (path, stats) =
                    dtc.as_ref()
                        .unwrap_or(&solved)
                        .write_dtc(k, &dir, options.rule_set)?;
                report.dtc_built.push(BuiltTable {
                    material,
                    bytes: std::fs::metadata(&path).map(|md| md.len()).unwrap_or(0),
                    path,
                    positions: MaterialIndex::new(material).count(),
                    stats,
                    seconds,
                });
            }
            // Another process may have made it meanwhile; never rewrite.
            let path = dir.join(material.file_name());
            if !missing.contains(&material) || table_is_valid(&path, material, options.rule_set) {
                report.skipped.push(material);
                continue;
            }
            let (path, stats) = solved.write(k, &dir, options.rule_set)?;
            let bytes = std::fs::metadata(&path).map(|md| md.len()).unwrap_or(0);
            report.built.push(BuiltTable {
                material,
                path,
                positions: MaterialIndex::new(material).count(),
                bytes,
                stats,
                seconds,
            });
        }
        progress.finish();
    }
    set_progress.finish();
    manifest::write(&dir, options.rule_set)?;
    report.seconds = start.elapsed().as_secs_f64();
    report.peak_memory_bytes = peak_memory_bytes();
    Ok(report)
}
