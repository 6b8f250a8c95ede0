//! Running one unit of the plan (see [`plan::units`]): check that it is not
//! done already, check its inputs, solve, write its output atomically.
//!
//! The same function runs a unit in `dtb gen` (one process, every unit in
//! order) and in `dtb gen --unit ID` (one unit a process, as a batch job
//! runs it). In one process a [`Session`] keeps what the next unit can
//! reuse: the reader of the pair being built and the group just solved
//! (the next group reads it); a unit run alone reads them from the table
//! directory.

use std::time::Instant;

use format::{Material, MaterialIndex, RuleSet};
use plan::groups::Bin;
use plan::units::{
    self, bin_named, exits_of_pair, group_file, pair_materials, tables_id, Unit, UnitKind,
};
use plan::{GenError, GenOptions, PlacementKeys, Progress};
use probe::Tablebase;

use crate::solvers::counted;
use crate::solvers::group::{self, GroupTarget, SolvedGroup};
use crate::tables::{files_are_valid, open_for_pair};
use crate::values::Layer;

mod assembly;
pub(crate) mod group_file;
pub(crate) mod pair_files;
pub(crate) mod pending;
pub(crate) mod table_writer;

use group_file::{ExpectedGroup, GroupId};
pub use pair_files::UnitReport;
use pair_files::{remove_group_files, rule_dir, write_pair_files};

/// What one process keeps from unit to unit.
#[derive(Default)]
pub(crate) struct Session {
    /// The reader opened for a pair, with its tables decoded.
    reader: Option<(Material, Tablebase)>,
    /// The last group solved, with its pair.
    last_group: Option<(Material, SolvedGroup)>,
    /// The values of a small pair (see [`plan::units::solves_in_pair_values`]).
    pair_values: Option<PairValues>,
    /// The pair whose input tables were checked complete.
    inputs_checked: Option<Material>,
}

impl Session {
    /// Forgets what belongs to other pairs than `pair`.
    fn keep_only(&mut self, pair: Material) {
        if self.reader.as_ref().is_some_and(|(m, _)| *m != pair) {
            self.reader = None;
        }
        if self.last_group.as_ref().is_some_and(|(m, _)| *m != pair) {
            self.last_group = None;
        }
        if self.pair_values.as_ref().is_some_and(|v| v.pair != pair) {
            self.pair_values = None;
        }
        if self.inputs_checked != Some(pair) {
            self.inputs_checked = None;
        }
    }

    /// The reader for `pair`, opened (and its tables decoded) if needed.
    fn reader(&mut self, options: &GenOptions, pair: Material) -> Result<&Tablebase, GenError> {
        if self.reader.is_none() {
            let tb = open_for_pair(
                &options.dir,
                options.rule_set,
                pair,
                options.cache_bytes,
                options.preload_bytes,
            )?;
            self.reader = Some((pair, tb));
        }
        match &self.reader {
            Some((_, tb)) => Ok(tb),
            None => Err(GenError::Internal("no reader".into())),
        }
    }
}

/// The values of a whole small pair, as its groups are solved into them.
pub(crate) struct PairValues {
    pair: Material,
    layer: Layer,
    /// The advancement of the last group solved into them.
    last: u32,
    /// Whether every group from the most advanced one on was solved into
    /// them, one after another (then they are the pair's values once the
    /// last group is solved).
    from_the_top: bool,
}

impl PairValues {
    /// The pair's sides, if every group of the pair was solved into them.
    pub(crate) fn into_complete_sides(self) -> Option<Vec<crate::values::PackedSide>> {
        let lowest = plan::groups::group_advancements(self.pair).last().copied();
        (self.from_the_top && lowest == Some(self.last))
            .then_some(self.layer)
            .and_then(Layer::into_sides)
    }
}

/// Whether every file of `pair`'s tables is there and valid.
pub(crate) fn pair_done(options: &GenOptions, pair: Material) -> bool {
    let dir = rule_dir(options);
    pair_materials(pair)
        .iter()
        .all(|m| files_are_valid(&dir, *m, options.rule_set, options.dtc))
}

/// Whether `unit`'s output is there and valid (running it would do
/// nothing).
pub(crate) fn is_done(options: &GenOptions, unit: &Unit) -> bool {
    match (unit.kind, unit.material) {
        (UnitKind::Manifest, _) => format::manifest::check(&rule_dir(options), options.rule_set)
            .is_ok_and(|p| p.is_empty()),
        (
            UnitKind::Group {
                advancement, part, ..
            },
            Some(pair),
        ) => pair_done(options, pair) || read_group(options, pair, advancement, part).is_ok(),
        (_, Some(pair)) => pair_done(options, pair),
        (_, None) => false,
    }
}

/// Reads the output of group `advancement` of `pair` (of its part `part`).
fn read_group(
    options: &GenOptions,
    pair: Material,
    advancement: u32,
    part: Option<u32>,
) -> Result<Layer, String> {
    let id = GroupId {
        material: pair,
        rule_set: options.rule_set,
        advancement,
        part,
    };
    let path = rule_dir(options).join(group_file(pair, advancement, part));
    let expected = ExpectedGroup {
        id,
        // Worked out only for a file that is there; a part that starts
        // no bin has no placements.
        keys: || match bin_named(options, pair, advancement, part) {
            Ok(bin) => group::placements_of_group(pair, advancement, bin),
            Err(_) => PlacementKeys::default(),
        },
        king_placements: MaterialIndex::new(pair).king_placements(),
    };
    group_file::read_group(&path, expected, options.dtc)
}

/// Reads the output of group `advancement` of `pair` (of its part
/// `part`) as `unit`'s input: missing or incomplete, an error naming it.
pub(crate) fn read_group_input(
    options: &GenOptions,
    unit: &str,
    pair: Material,
    (advancement, part): (u32, Option<u32>),
) -> Result<Layer, GenError> {
    read_group(options, pair, advancement, part).map_err(|reason| GenError::MissingInput {
        unit: unit.to_string(),
        path: rule_dir(options)
            .join(group_file(pair, advancement, part))
            .display()
            .to_string(),
        reason,
    })
}

/// Checks that the tables `pair`'s moves lead to are there and complete
/// (once a pair in a [`Session`]: tables are never rewritten).
fn check_exit_tables(
    options: &GenOptions,
    unit: &str,
    pair: Material,
    session: &mut Session,
) -> Result<(), GenError> {
    if session.inputs_checked == Some(pair) {
        return Ok(());
    }
    let dir = rule_dir(options);
    for exit in exits_of_pair(pair) {
        for m in pair_materials(exit) {
            let path = format::table_path(&dir, m);
            let kind = format::value_kind(m, options.rule_set);
            if let Err(problem) = format::check_file_of(&path, m, options.rule_set, kind) {
                return Err(GenError::MissingInput {
                    unit: unit.to_string(),
                    path: path.display().to_string(),
                    reason: format!("{problem} (built by unit {})", tables_id(options, exit)),
                });
            }
        }
    }
    session.inputs_checked = Some(pair);
    Ok(())
}

/// Runs `unit` (nothing when its output is valid already), reporting its
/// solving through `progress`.
pub(crate) fn run(
    options: &GenOptions,
    unit: &Unit,
    session: &mut Session,
    progress: &Progress,
) -> Result<UnitReport, GenError> {
    let start = Instant::now();
    let mut report = UnitReport {
        id: unit.id.clone(),
        ..UnitReport::default()
    };
    if is_done(options, unit) {
        report.already_done = true;
        tidy_finished(options, unit)?;
        return Ok(report);
    }
    match (unit.kind, unit.material) {
        (UnitKind::Manifest, _) => format::manifest::write(&rule_dir(options), options.rule_set)?,
        (UnitKind::Solve, Some(pair)) => {
            session.keep_only(pair);
            check_exit_tables(options, &unit.id, pair, session)?;
            solve_pair(options, pair, session, progress, &mut report)?;
        }
        (
            UnitKind::Group {
                advancement,
                part,
                reads,
                ..
            },
            Some(pair),
        ) => {
            session.keep_only(pair);
            check_exit_tables(options, &unit.id, pair, session)?;
            let work = GroupWork {
                options,
                unit: &unit.id,
                pair,
                advancement,
                part,
                reads,
            };
            run_group(&work, session, progress)?;
        }
        (UnitKind::Assemble, Some(pair)) => {
            session.keep_only(pair);
            session.last_group = None;
            let held = session
                .pair_values
                .take()
                .and_then(PairValues::into_complete_sides);
            assembly::assemble(options, &unit.id, pair, held, progress, &mut report)?;
        }
        (_, None) => return Err(GenError::Internal(format!("unit {} has no pair", unit.id))),
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// What a finished unit may still leave to do after a build stopped at
/// the wrong moment: DTC files to make compact (written before they were,
/// or by a build stopped in between), and an assembled pair's group files
/// to remove (a build stopped between writing the tables and removing
/// them).
fn tidy_finished(options: &GenOptions, unit: &Unit) -> Result<(), GenError> {
    let dir = rule_dir(options);
    let Some(pair) = unit.material else {
        return Ok(());
    };
    let pair_files = matches!(unit.kind, UnitKind::Assemble | UnitKind::Solve);
    if pair_files && options.dtc && options.compact_dtc {
        table_writer::compact_dtc_pair(&dir, pair, options.rule_set)?;
    }
    if unit.kind == UnitKind::Assemble {
        remove_group_files(&dir, pair)?;
    }
    Ok(())
}

/// One group unit being run: the group it solves and the one it reads.
struct GroupWork<'a> {
    options: &'a GenOptions,
    unit: &'a str,
    pair: Material,
    advancement: u32,
    /// The first part of the bin of the group it solves, in a pair
    /// solved in parts.
    part: Option<u32>,
    /// The advancement of the group one man step further, if any.
    reads: Option<u32>,
}

impl GroupWork<'_> {
    /// The output of the group one advancement further (of the parts of
    /// it that this part reads), read from its files (`None` for the most
    /// advanced group).
    fn read_input(&self) -> Result<Option<Layer>, GenError> {
        let Some(r) = self.reads else {
            return Ok(None);
        };
        let read = |part| read_group_input(self.options, self.unit, self.pair, (r, part));
        let Some(bin) = self.bin()? else {
            return read(None).map(Some);
        };
        let indexes = units::pair_indexes(self.pair);
        let own = units::group_bins(self.options, &indexes, self.advancement);
        let next = units::group_bins(self.options, &indexes, r);
        let symmetric = self.pair.is_symmetric();
        let parts = own
            .bins_read(bin, self.advancement, symmetric, &next)
            .into_iter()
            .map(|b| read(Some(b.first)))
            .collect::<Result<Vec<Layer>, GenError>>()?;
        Ok(Some(Layer::Parts(parts)))
    }

    /// The parts of the group this unit solves (`None`: all of it).
    fn bin(&self) -> Result<Option<Bin>, GenError> {
        bin_named(self.options, self.pair, self.advancement, self.part)
    }

    /// Solves the group into `target` with the reader `session` holds.
    fn solve(
        &self,
        session: &mut Session,
        target: GroupTarget,
        progress: &Progress,
    ) -> Result<SolvedGroup, GenError> {
        let tb = session.reader(self.options, self.pair)?;
        let o = self.options;
        let group = group::GroupOf {
            material: self.pair,
            advancement: self.advancement,
            bin: self.bin()?,
        };
        let how = (o.dtc, plan::SliceMode::of(o));
        group::solve_group(tb, o.rule_set, group, target, how, progress)
    }
}

/// Solves one group (or part) and writes its output file.
fn run_group(work: &GroupWork, session: &mut Session, progress: &Progress) -> Result<(), GenError> {
    let (options, pair) = (work.options, work.pair);
    let in_pair_values = units::solves_in_pair_values(options, pair);
    let solved = if in_pair_values {
        solve_in_pair_values(work, session, progress)?
    } else {
        solve_on_its_own(work, session, progress)?
    };
    progress.message("writing");
    let path = rule_dir(options).join(group_file(pair, work.advancement, work.part));
    group_file::remove_partials_of(&path)?;
    let id = GroupId {
        material: pair,
        rule_set: options.rule_set,
        advancement: work.advancement,
        part: work.part,
    };
    group_file::write_group(&path, id, &solved.layer, solved.deepest)?;
    // The next group reads this one whole; parts are read from their
    // files, several at a time.
    if !in_pair_values && work.part.is_none() {
        session.last_group = Some((pair, solved));
    }
    Ok(())
}

/// Solves a group into a layer of its own, reading the group one
/// advancement further from the [`Session`] or from its file.
fn solve_on_its_own(
    work: &GroupWork,
    session: &mut Session,
    progress: &Progress,
) -> Result<SolvedGroup, GenError> {
    let kept = session
        .last_group
        .take()
        .filter(|(_, g)| Some(g.advancement) == work.reads)
        .map(|(_, g)| g.layer);
    let read = match kept {
        Some(layer) => layer,
        None => work.read_input()?.unwrap_or_else(Layer::empty_group),
    };
    work.solve(session, GroupTarget::Own { read: &read }, progress)
}

/// Solves a group into the values of the whole (small) pair, by index, as
/// the [`Session`] keeps them from the group before; or, in a fresh one,
/// with the group one advancement further read from its file.
fn solve_in_pair_values(
    work: &GroupWork,
    session: &mut Session,
    progress: &Progress,
) -> Result<SolvedGroup, GenError> {
    let kept = session
        .pair_values
        .take()
        .filter(|v| work.reads.is_some_and(|r| r == v.last));
    let (layer, from_the_top) = match kept {
        Some(v) => (v.layer, v.from_the_top),
        None => {
            let layer = Layer::Pair(group::pair_sides(work.pair, work.options.dtc)?);
            if let Some(group) = work.read_input()? {
                group::copy_group_in(&layer, &group)?;
            }
            (layer, work.reads.is_none())
        }
    };
    let solved = work.solve(session, GroupTarget::Pair(&layer), progress)?;
    session.pair_values = Some(PairValues {
        pair: work.pair,
        layer,
        last: work.advancement,
        from_the_top,
    });
    Ok(solved)
}

/// A solved pair, from either solver.
enum Solved {
    Whole(counted::Solved),
    Slices(group::PackedPair),
}

/// Solves a whole pair (a counted ending, a material without men, or any
/// pair when slices are off) and writes its missing tables.
fn solve_pair(
    options: &GenOptions,
    pair: Material,
    session: &mut Session,
    progress: &Progress,
    report: &mut UnitReport,
) -> Result<(), GenError> {
    let start = Instant::now();
    let rule_set = options.rule_set;
    let tb = session.reader(options, pair)?;
    let solved = if options.slices && group::uses_slices(pair) {
        Solved::Slices(group::solve(
            tb,
            rule_set,
            pair,
            progress,
            (options.dtc, plan::SliceMode::of(options)),
        )?)
    } else {
        let queue_budget = usize::try_from(options.queue_bytes / 8).unwrap_or(usize::MAX);
        Solved::Whole(counted::solve(tb, rule_set, pair, progress, queue_budget)?)
    };
    let dtc = match (&solved, options.dtc) {
        (Solved::Whole(whole), true) => Some(with_dtc(whole, tb, rule_set, progress)?),
        _ => None,
    };
    progress.message("writing");
    let seconds = start.elapsed().as_secs_f64();
    let dtc_side = |k: usize| match (&dtc, &solved) {
        (Some(p), _) | (None, Solved::Slices(p)) => Ok(&p.sides[k]),
        (None, Solved::Whole(_)) => Err(GenError::Internal("no DTC values were found".into())),
    };
    let dir = rule_dir(options);
    let write_table = |k: usize| match &solved {
        Solved::Whole(s) => table_writer::write_side(&s.sides[k], &dir, rule_set, s.levels),
        Solved::Slices(p) => {
            let form = (rule_set, table_writer::wld_level(options));
            table_writer::write_packed_side(&p.sides[k], &dir, form)
        }
    };
    let write_dtc = |k: usize| table_writer::write_dtc_side(dtc_side(k)?, &dir, rule_set);
    let deepest = match &solved {
        Solved::Slices(p) => Some(p.deepest),
        Solved::Whole(_) => None,
    };
    let solve = (seconds, deepest);
    write_pair_files(options, pair, solve, report, write_dtc, write_table)
}

/// The DTC values of a pair the whole-material solver solved: its
/// results (with a freshly entered count, in a counted ending) are taken as
/// known, and the slices are walked once more for the distances.
fn with_dtc(
    solved: &counted::Solved,
    tb: &Tablebase,
    rule_set: RuleSet,
    progress: &Progress,
) -> Result<group::PackedPair, GenError> {
    let material = solved.sides[0].material;
    let class = material.counted_ending();
    let sides = group::pair_sides(material, true)?;
    for (side, whole) in sides.iter().zip(&solved.sides) {
        // Capture positions too: a man step may lead to one.
        for i in 0..whole.len() {
            let (wdl, plies) = counted::decode_state(whole.state(i));
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
    group::solve_dtc_of_known(tb, rule_set, sides, progress)
}
