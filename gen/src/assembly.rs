//! The last unit of a pair solved group by group: its groups' outputs put
//! together, by index, into the pair's values, then its tables (and DTC
//! files) written, then the groups' files removed.

use std::time::Instant;

use format::Material;

use crate::error::GenError;
use crate::groups::group_advancements;
use crate::options::GenOptions;
use crate::progress::Progress;
use crate::unit::{read_group_input, remove_group_files, rule_dir, write_pair_files, UnitReport};
use crate::unit_output::Keep;
use crate::values::{Layer, PackedSide};

/// Writes `pair`'s missing tables from its groups' output files (unit
/// `unit`), or from `held`, the same values as a session that solved every
/// group into them holds them; then removes the groups' files.
pub(crate) fn assemble(
    options: &GenOptions,
    unit: &str,
    pair: Material,
    held: Option<Vec<PackedSide>>,
    progress: &Progress,
    report: &mut UnitReport,
) -> Result<(), GenError> {
    let start = Instant::now();
    let sides = match held {
        Some(sides) => sides,
        None => read_groups(options, unit, pair, progress)?,
    };
    progress.message("writing");
    let seconds = start.elapsed().as_secs_f64();
    let dir = rule_dir(options);
    let dtc_side = |k: usize| Ok(&sides[k]);
    let write_table =
        |k: usize| crate::output::write_packed_side(&sides[k], &dir, options.rule_set);
    write_pair_files(options, pair, seconds, report, dtc_side, write_table)?;
    remove_group_files(&dir, pair)
}

/// The values of `pair` put together from its groups' output files.
fn read_groups(
    options: &GenOptions,
    unit: &str,
    pair: Material,
    progress: &Progress,
) -> Result<Vec<PackedSide>, GenError> {
    let layer = Layer::Pair(crate::group_solve::pair_sides(pair, options.dtc)?);
    for advancement in group_advancements(pair) {
        progress.message(&format!("reading group {advancement}"));
        let group = read_group_input(options, unit, pair, advancement, Keep::All)?;
        crate::group_solve::copy_group_in(&layer, &group)?;
    }
    layer
        .into_sides()
        .ok_or_else(|| GenError::Internal("the assembly's layer is not a pair".into()))
}
