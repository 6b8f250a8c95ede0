//! `verify`: checks every table file (header, block index, checksums),
//! then every stored value and DTC against the values of its moves (see
//! `forward`, which shares nothing with the solvers), material by
//! material in build order. `--sample` checks a fixed pseudo-random
//! fraction of the positions instead of all.

use std::path::{Path, PathBuf};
use std::time::Instant;

use format::{Material, RuleSet, ValueKind};
use probe::{table_dir, Storage, Tablebase, TablebaseOptions};

use plan::groups::group_keys;
use plan::units::{bin_named, find_unit, group_bins, group_id, pair_indexes, pair_materials};
use plan::{GenError, GenOptions, PlacementKeys, Progress, Unit, UnitKind};

use crate::files::read_whole;
use crate::forward::{DtcPair, Holding, PairCheck, Tally};
use crate::resolved::{decoded_bytes, ResolvedTables};
use crate::verdict::{TableCheck, TableProblem};

/// What to verify: start from [`VerifyOptions::new`] (more options may
/// come).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// The table directory.
    pub dir: PathBuf,
    /// The rule set.
    pub rule_set: RuleSet,
    /// These materials only (empty: every table in the directory).
    pub materials: Vec<Material>,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
    /// No progress bars.
    pub quiet: bool,
    /// Check only about this fraction of the positions of each table (a
    /// fixed pseudo-random choice: the same positions on every run), for a
    /// quick look at large sets; `None` (or 1): every position. The file
    /// checks (checksums, header) are always complete.
    pub sample: Option<f64>,
    /// One unit of the build plan instead (an id of `dtb plan`): a slice
    /// group's positions in both tables of its pair (`<pair>.a<N>`), the
    /// tables of a pair solved whole (`<pair>.solve`; a pair without men
    /// held at 2 bits a position, smaller tables within
    /// [`VerifyOptions::preload_bytes`]), or the files of a
    /// pair's assembly (`<pair>.tables`: checksums and headers). Run over
    /// every unit of a plan, the checks are those of a full verify.
    pub unit: Option<String>,
    /// Bytes of smaller tables a slice group's check (or a unit's check
    /// of a pair without men) may decode whole
    /// (smallest first; the others are read block by block through the
    /// prober: slower, the same verdicts). A whole check resolves them all.
    pub preload_bytes: u64,
    /// The `--split-groups-above` of the build (by default the
    /// generator's), for [`VerifyOptions::unit`] ids of parts of groups
    /// (`<pair>.a<N>.p...`): a bin of parts is then checked with only the
    /// parts of the next group it reads.
    pub split_groups_above: Option<u64>,
}

/// [`VerifyOptions::preload_bytes`] unless told: the generator's default.
pub const DEFAULT_PRELOAD_BYTES: u64 = 2 << 30;

impl VerifyOptions {
    /// Every table of `rule_set` in `dir`, every position, all cores, no
    /// progress bars.
    pub fn new(dir: impl Into<PathBuf>, rule_set: RuleSet) -> VerifyOptions {
        VerifyOptions {
            dir: dir.into(),
            rule_set,
            materials: Vec::new(),
            threads: None,
            quiet: true,
            sample: None,
            unit: None,
            preload_bytes: DEFAULT_PRELOAD_BYTES,
            split_groups_above: Some(plan::DEFAULT_SPLIT_GROUPS_ABOVE),
        }
    }
}

/// Whether position `index` is in a sample of `fraction` of the positions:
/// a hash of the index below `fraction` of the hash range (SplitMix64's
/// finaliser, so that sampled positions are spread over every block).
pub fn in_sample(index: u64, fraction: f64) -> bool {
    let mut z = index.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z as f64) < fraction * u64::MAX as f64
}

/// What a run keeps from one material to the next: the prober (for
/// crownings), the resolved tables of the smaller materials, and the pair
/// last loaded (while the next material is of the same pair).
struct Run {
    tb: Option<Tablebase>,
    resolved: ResolvedTables,
    pair: Option<PairCheck>,
    /// Tables with fewer pieces than this are kept once their pair is
    /// done: the larger materials of the run capture into them.
    keep_below: u32,
    /// Whether the pair is held at its values' bits alone, its capture
    /// positions resolved in place but not flagged (see
    /// [`verify_in_two_bits`]); every position is checked all the same.
    in_two_bits: bool,
}

/// Checks one material: its table and, where there is one, its DTC file,
/// in one walk, a verdict each. Whatever goes wrong is recorded in the
/// verdicts. The walk's time is the table's; the DTC file's is that of
/// its own file checks.
fn check_material(options: &VerifyOptions, material: Material, run: &mut Run) -> Vec<TableCheck> {
    let start = Instant::now();
    let (mut table, mut dtc) = verdicts_of(options, material);
    if let Some(check) = &mut dtc {
        let dtc_start = Instant::now();
        if let Err(e) = check_file(options, material, &check.path, ValueKind::Dtc) {
            check.problem = Some(TableProblem::of(&e));
        }
        check.seconds = dtc_start.elapsed().as_secs_f64();
    }
    let kind = format::value_kind(material, options.rule_set);
    let result = check_file(options, material, &table.path, kind)
        .and_then(|()| walk(options, material, run, &mut table, dtc.as_mut()));
    if let Err(e) = result {
        let problem = TableProblem::of(&e);
        if let Some(check) = dtc.as_mut().filter(|d| d.problem.is_none()) {
            check.problem = Some(problem.clone());
        }
        table.problem = Some(problem);
    }
    table.seconds = start.elapsed().as_secs_f64();
    [Some(table), dtc].into_iter().flatten().collect()
}

/// A file's header, block index and checksum.
fn check_file(
    options: &VerifyOptions,
    material: Material,
    path: &Path,
    kind: ValueKind,
) -> Result<(), GenError> {
    format::check_file_of(path, material, options.rule_set, kind)?;
    Ok(())
}

/// The DTC files of `material` and of its mirror (none for a symmetric
/// material), decoded whole.
fn read_dtc_pair(dir: &Path, rule_set: RuleSet, material: Material) -> Result<DtcPair, GenError> {
    let read = |m: Material| -> Result<Option<Vec<u8>>, GenError> {
        let path = format::dtc_path(dir, m);
        let reader = read_whole(&path, m, rule_set, ValueKind::Dtc)?;
        if reader.header().from_mirror {
            return Ok(None);
        }
        let values = reader
            .decode_all()
            .map_err(|e| GenError::in_file(&path, e))?;
        Ok(Some(values))
    };
    let own = read(material)?;
    let mirror = if material.is_symmetric() {
        Some(Vec::new())
    } else {
        read(material.mirrored())?
    };
    Ok((own, mirror))
}

/// Makes `run` hold `material`'s pair, resolved, with its DTC files if
/// `dtc` (a verdict that may record why they cannot be read) is there.
fn load_pair(
    options: &VerifyOptions,
    material: Material,
    run: &mut Run,
    dtc: Option<&mut TableCheck>,
) -> Result<(), GenError> {
    let dtc = dtc.filter(|d| d.problem.is_none());
    let with_dtc = dtc.is_some();
    if run
        .pair
        .as_ref()
        .is_some_and(|pair| pair.holds(material, with_dtc))
    {
        return Ok(());
    }
    if let Some(done) = run.pair.take() {
        for table in done.into_tables() {
            if table.material.pieces() < run.keep_below {
                run.resolved.keep(table);
            }
        }
    }
    let dtc_bytes = match dtc {
        Some(check) => {
            let dir = table_dir(&options.dir, options.rule_set);
            match read_dtc_pair(&dir, options.rule_set, material) {
                Ok(bytes) => Some(bytes),
                Err(e) => {
                    check.problem = Some(TableProblem::of(&e));
                    None
                }
            }
        }
        None => None,
    };
    run.resolved.prepare_for(material)?;
    let holding = if options.sample.is_some_and(|f| f < 1.0) {
        Holding::Decoded
    } else if run.in_two_bits {
        Holding::InPlace
    } else {
        Holding::Flagged
    };
    run.pair = Some(PairCheck::load(
        &run.resolved,
        material,
        dtc_bytes,
        holding,
    )?);
    Ok(())
}

/// Every value (and DTC, with a `dtc` verdict) of `material` against its
/// moves, into the verdicts.
fn walk(
    options: &VerifyOptions,
    material: Material,
    run: &mut Run,
    table: &mut TableCheck,
    mut dtc: Option<&mut TableCheck>,
) -> Result<(), GenError> {
    load_pair(options, material, run, dtc.as_deref_mut())?;
    if run.tb.is_none() {
        run.tb = Some(Tablebase::open_with(
            &options.dir,
            options.rule_set,
            TablebaseOptions::with_cache_bytes(PROBER_CACHE_BYTES),
        )?);
    }
    let (Some(tb), Some(pair)) = (&run.tb, &mut run.pair) else {
        return Err(GenError::Internal("the pair was loaded above".into()));
    };
    let sample = options.sample.filter(|&f| f < 1.0);
    let keep = move |i: u64| sample.is_none_or(|f| in_sample(i, f));
    pair.derive_dtc(tb, &run.resolved, &keep)?;
    let (values, dtcs) = (Tally::default(), Tally::default());
    let count = format::MaterialIndex::new(material).count();
    let progress = Progress::new(&format!("verify {material}"), count, options.quiet);
    pair.check(
        tb,
        &run.resolved,
        material,
        &keep,
        (&values, &dtcs),
        &progress,
    )?;
    progress.finish();
    values.finish(table);
    if let Some(check) = dtc.filter(|d| d.problem.is_none()) {
        dtcs.finish(check);
    }
    Ok(())
}

/// Verifies the tables `options` names (or all in the directory), in
/// build order: every table gets its verdict, a missing or damaged one
/// included. An error only when the folder cannot be listed.
pub fn verify(options: &VerifyOptions) -> Result<Vec<TableCheck>, GenError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| GenError::BadOptions(format!("cannot start threads: {e}")))?;
    pool.install(|| match &options.unit {
        Some(id) => verify_unit(options, id),
        None => {
            let dir = table_dir(&options.dir, options.rule_set);
            let materials = if options.materials.is_empty() {
                format::list_tables(&dir)?
            } else {
                options.materials.clone()
            };
            Ok(verify_materials(options, materials))
        }
    })
}

/// Every table of `materials` (and its DTC file), in build order.
fn verify_materials(options: &VerifyOptions, mut materials: Vec<Material>) -> Vec<TableCheck> {
    let dir = table_dir(&options.dir, options.rule_set);
    materials.sort_by_key(|m| m.build_key());
    materials.dedup();
    let mut run = Run {
        tb: None,
        resolved: ResolvedTables::new(&dir, options.rule_set),
        pair: None,
        keep_below: materials.iter().map(|m| m.pieces()).max().unwrap_or(0),
        in_two_bits: false,
    };
    materials
        .into_iter()
        .flat_map(|m| check_material(options, m, &mut run))
        .collect()
}

/// The checks of one unit of the build plan (see [`VerifyOptions::unit`]).
fn verify_unit(options: &VerifyOptions, id: &str) -> Result<Vec<TableCheck>, GenError> {
    let gen_options = plan_options(options);
    let unit = find_unit(&gen_options, id)?;
    // The manifest's unit: `dtb verify` checks the manifest itself.
    let Some(pair) = unit.material else {
        return Ok(Vec::new());
    };
    let materials = pair_materials(pair);
    Ok(match unit.kind {
        UnitKind::Solve if without_men(pair) => verify_in_two_bits(options, materials)?,
        UnitKind::Solve => verify_materials(options, materials),
        UnitKind::Assemble => materials
            .into_iter()
            .flat_map(|m| check_files(options, m))
            .collect(),
        UnitKind::Group {
            advancement,
            part,
            reads,
            ..
        } => {
            let group = GroupChecked {
                pair,
                advancement,
                part,
                reads,
            };
            check_group(options, &gen_options, &group)
        }
        UnitKind::Manifest => Vec::new(),
    })
}

/// Whether `pair` has no men and is no counted ending: one slice, whose
/// unit the check holds at its values' bits alone
/// ([`verify_in_two_bits`]), the check's own choice (the builder's solver
/// for it is no concern of the check's).
fn without_men(pair: Material) -> bool {
    pair.men() == 0 && pair.counted_ending().is_none()
}

/// The check of a pair without men that the menless solver builds (a
/// `.solve` unit), as a cluster's job: its values are decoded at 2 bits
/// a position and nothing more (capture positions resolved in place, no
/// flags: see [`Holding::InPlace`]), and the smaller tables are resolved
/// within
/// [`VerifyOptions::preload_bytes`], the rest read through the prober.
/// About as fast as the whole check (`KK-KKK`: 1.13x its core-seconds),
/// in half its memory, so that the eight-piece pairs fit a node
/// (`KKK-KKKKK`: 14 GiB of values instead of 28 with flags). Every
/// position is checked, as in the whole check.
fn verify_in_two_bits(
    options: &VerifyOptions,
    materials: Vec<Material>,
) -> Result<Vec<TableCheck>, GenError> {
    let dir = table_dir(&options.dir, options.rule_set);
    let mut run = Run {
        tb: None,
        resolved: ResolvedTables::resolving_within(
            &dir,
            options.rule_set,
            options.preload_bytes,
            positioned_prober(options)?,
        ),
        pair: None,
        keep_below: 0,
        in_two_bits: true,
    };
    Ok(materials
        .into_iter()
        .flat_map(|m| check_material(options, m, &mut run))
        .collect())
}

/// A prober of `options`' tables that reads them with positioned reads
/// into its cache: the memory it takes is its cache's, whatever it reads
/// (mapped pages would count too), and a cluster's shared filesystem
/// serves them well.
fn positioned_prober(options: &VerifyOptions) -> Result<Tablebase, GenError> {
    let mut prober_options = TablebaseOptions::with_cache_bytes(PROBER_CACHE_BYTES);
    prober_options.storage = Storage::PositionedReads;
    Ok(Tablebase::open_with(
        &options.dir,
        options.rule_set,
        prober_options,
    )?)
}

/// The options of the build plan whose units `options` names.
fn plan_options(options: &VerifyOptions) -> GenOptions {
    let mut gen_options = GenOptions::new(options.dir.clone(), options.rule_set, 2);
    gen_options.split_groups_above = options.split_groups_above;
    gen_options
}

/// The slice group (or bin of its parts) a group unit checks.
struct GroupChecked {
    pair: Material,
    advancement: u32,
    /// The first part of the bin, in a pair built in parts.
    part: Option<u32>,
    /// The advancement of the group its man moves reach, if any.
    reads: Option<u32>,
}

impl GroupChecked {
    /// The placements of the men it checks, and those its man moves
    /// reach: the group's and the next group's, or the bin's and the bins
    /// of the next group that it reads.
    fn placements(
        &self,
        options: &GenOptions,
    ) -> Result<(Vec<PlacementKeys>, Vec<PlacementKeys>), GenError> {
        let (pair, a) = (self.pair, self.advancement);
        let indexes = pair_indexes(pair);
        let Some(bin) = bin_named(options, pair, a, self.part)? else {
            let next = self.reads.map(|r| group_keys(&indexes, r, None));
            return Ok((
                vec![group_keys(&indexes, a, None)],
                next.into_iter().collect(),
            ));
        };
        let next = match self.reads {
            Some(r) => {
                let own_bins = group_bins(options, &indexes, a);
                let next_bins = group_bins(options, &indexes, r);
                own_bins
                    .bins_read(bin, a, pair.is_symmetric(), &next_bins)
                    .into_iter()
                    .map(|b| group_keys(&indexes, r, Some(b)))
                    .collect()
            }
            None => Vec::new(),
        };
        Ok((vec![group_keys(&indexes, a, Some(bin))], next))
    }

    /// Its unit id.
    fn id(&self) -> String {
        group_id(self.pair, self.advancement, self.part)
    }
}

/// About the most memory a check of each of `units` (a build plan, or a
/// part of it that holds what each group reads) alone needs under
/// `rule_set` (see [`VerifyOptions::unit`]), in bytes, with the DTC files
/// if `dtc`: the positions it checks at their values' bits, 2 bits of
/// flags and a DTC byte (a whole pair, or a slice group or bin of parts;
/// no flags for a pair without men, see `verify_in_two_bits`);
/// for a group, the positions of the next group that it reads at their
/// values' bits; the smaller tables its captures reach (resolved whole for
/// a pair with men; otherwise decoded smallest first within `preload_bytes`, the
/// rest read through the prober); the prober's block cache and a base. A
/// batch job asks for this much.
pub fn verify_memory_bytes(
    units: &[Unit],
    rule_set: RuleSet,
    dtc: bool,
    preload_bytes: u64,
) -> Vec<u64> {
    let by_id: std::collections::HashMap<&str, &Unit> =
        units.iter().map(|u| (u.id.as_str(), u)).collect();
    units
        .iter()
        .map(|unit| {
            // What a group reads of its own pair: the next group (or bins).
            let next = unit
                .needs
                .iter()
                .filter_map(|id| by_id.get(id.as_str()))
                .filter(|n| n.material == unit.material)
                .filter(|n| matches!(n.kind, UnitKind::Group { .. }))
                .map(|n| n.positions)
                .sum();
            unit_memory_bytes(unit, next, rule_set, (dtc, preload_bytes))
        })
        .collect()
}

/// [`verify_memory_bytes`] of one unit, which reads `next` positions of
/// the next group.
fn unit_memory_bytes(
    unit: &Unit,
    next: u64,
    rule_set: RuleSet,
    (dtc, preload_bytes): (bool, u64),
) -> u64 {
    const BASE: u64 = 64 << 20;
    let Some(pair) = unit.material else {
        return BASE;
    };
    let value_bits = match format::value_kind(pair, rule_set) {
        ValueKind::Wdl => 2,
        ValueKind::Distance | ValueKind::Dtc => 8,
    };
    let checked_bits = value_bits + 2 + if dtc { 8 } else { 0 };
    let held_bits = match unit.kind {
        UnitKind::Solve if without_men(pair) => {
            // See `verify_in_two_bits`: no flags, smaller tables within
            // the budget.
            let positions: u64 = pair_materials(pair)
                .iter()
                .map(|&m| format::MaterialIndex::new(m).count())
                .sum();
            positions * (checked_bits - 2) + decoded_within(pair, rule_set, preload_bytes) * 8
        }
        UnitKind::Solve => {
            let positions: u64 = pair_materials(pair)
                .iter()
                .map(|&m| format::MaterialIndex::new(m).count())
                .sum();
            let smaller: u64 = captured_into(pair)
                .into_iter()
                .map(|m| decoded_bytes(m, rule_set))
                .sum();
            positions * checked_bits + smaller * 8
        }
        UnitKind::Group { .. } => {
            unit.positions * checked_bits
                + next * value_bits
                + decoded_within(pair, rule_set, preload_bytes) * 8
        }
        UnitKind::Assemble | UnitKind::Manifest => 0,
    };
    BASE + PROBER_CACHE_BYTES + held_bits / 8
}

/// The bytes of the smaller tables a group of `pair` decodes within
/// `budget`: smallest first, as [`ResolvedTables::prepare_for`] takes
/// them, skipping those that would pass it.
fn decoded_within(pair: Material, rule_set: RuleSet, budget: u64) -> u64 {
    let mut tables = captured_into(pair);
    tables.sort_by_key(|&m| format::MaterialIndex::new(m).count());
    tables.into_iter().fold(0, |decoded, m| {
        let bytes = decoded_bytes(m, rule_set);
        if decoded + bytes <= budget {
            decoded + bytes
        } else {
            decoded
        }
    })
}

/// The block cache of the prober a check opens for crownings.
const PROBER_CACHE_BYTES: u64 = 256 << 20;

/// Every smaller material a capture from `pair`'s materials leads to,
/// directly or after more captures (the tables a check resolves).
fn captured_into(pair: Material) -> Vec<Material> {
    let mut found: Vec<Material> = Vec::new();
    let mut todo = pair_materials(pair);
    while let Some(m) = todo.pop() {
        for exit in m.exits() {
            if exit.pieces() < m.pieces() && !found.contains(&exit) {
                found.push(exit);
                todo.push(exit);
            }
        }
    }
    found
}

/// The verdicts of `material`'s table and DTC file (if there is one),
/// nothing checked yet.
fn verdicts_of(options: &VerifyOptions, material: Material) -> (TableCheck, Option<TableCheck>) {
    let dir = table_dir(&options.dir, options.rule_set);
    let table = TableCheck::new(material, format::table_path(&dir, material));
    let dtc_path = format::dtc_path(&dir, material);
    let dtc = dtc_path
        .exists()
        .then(|| TableCheck::new(material, dtc_path));
    (table, dtc)
}

/// The file checks (header, block index, checksum) of `material`'s table
/// and DTC file, without their values.
fn check_files(options: &VerifyOptions, material: Material) -> Vec<TableCheck> {
    let (table, dtc) = verdicts_of(options, material);
    let kind = format::value_kind(material, options.rule_set);
    [Some((table, kind)), dtc.map(|d| (d, ValueKind::Dtc))]
        .into_iter()
        .flatten()
        .map(|(mut check, kind)| {
            let start = Instant::now();
            if let Err(e) = check_file(options, material, &check.path, kind) {
                check.problem = Some(TableProblem::of(&e));
            }
            check.seconds = start.elapsed().as_secs_f64();
            check
        })
        .collect()
}

/// The check of a slice group (or bin of its parts): the positions of its
/// placements of the men in both tables of the pair, against their moves,
/// with their DTC where both DTC files are there. A verdict per file,
/// counting that group's positions; a problem is recorded in all.
fn check_group(
    options: &VerifyOptions,
    gen_options: &GenOptions,
    group: &GroupChecked,
) -> Vec<TableCheck> {
    let start = Instant::now();
    let materials = pair_materials(group.pair);
    let mut verdicts: Vec<(TableCheck, Option<TableCheck>)> =
        materials.iter().map(|&m| verdicts_of(options, m)).collect();
    let with_dtc = verdicts.iter().all(|(_, dtc)| dtc.is_some());
    if !with_dtc {
        for (_, dtc) in &mut verdicts {
            if let Some(check) = dtc {
                check.problem = Some(TableProblem::Missing(format!(
                    "{}: the DTC file of the other side of the pair is missing",
                    check.path.display()
                )));
            }
        }
    }
    if let Err(e) = walk_group(options, gen_options, group, with_dtc, &mut verdicts) {
        let problem = TableProblem::of(&e);
        for (table, dtc) in &mut verdicts {
            for check in std::iter::once(table).chain(dtc.as_mut()) {
                check.problem.get_or_insert_with(|| problem.clone());
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    verdicts
        .into_iter()
        .flat_map(|(mut table, dtc)| {
            table.seconds = seconds;
            [Some(table), dtc]
        })
        .flatten()
        .collect()
}

/// The walk of [`check_group`], into `verdicts` (one per material of the
/// pair: the table's, the DTC file's).
fn walk_group(
    options: &VerifyOptions,
    gen_options: &GenOptions,
    group: &GroupChecked,
    with_dtc: bool,
    verdicts: &mut [(TableCheck, Option<TableCheck>)],
) -> Result<(), GenError> {
    let dir = table_dir(&options.dir, options.rule_set);
    let mut resolved = ResolvedTables::decoding_within(
        &dir,
        options.rule_set,
        options.preload_bytes,
        positioned_prober(options)?,
    );
    for (table, _) in verdicts.iter() {
        resolved.prepare_for(table.material)?;
    }
    let (own, next) = group.placements(gen_options)?;
    let name = format!("verify {}", group.id());
    let group = PairCheck::load_group(&resolved, group.pair, (&own, &next), with_dtc)?;
    drop((own, next));
    let tb = resolved
        .prober()
        .ok_or_else(|| GenError::Internal("a group's check has a prober".into()))?;
    let sample = options.sample.filter(|&f| f < 1.0);
    let keep = move |i: u64| sample.is_none_or(|f| in_sample(i, f));
    for (table, dtc) in verdicts.iter_mut() {
        let material = table.material;
        let (values, dtcs) = (Tally::default(), Tally::default());
        let positions = group.positions_checked(material);
        let progress = Progress::new(&name, positions, options.quiet);
        group.check(tb, &resolved, material, &keep, (&values, &dtcs), &progress)?;
        progress.finish();
        values.finish(table);
        if let Some(check) = dtc.as_mut().filter(|_| with_dtc) {
            dtcs.finish(check);
        }
    }
    Ok(())
}
