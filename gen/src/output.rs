//! Turning a solved pair into table files and statistics.

use std::path::{Path, PathBuf};

use format::{
    value_kind, DistanceValue, RuleSet, TableSpec, TableStats, TableWriter, ValueKind, Wdl,
};

use crate::error::GenError;
use crate::solver::{decode_state, Side, CAPTURE};

/// Statistics of one side from its states (capture positions included).
pub(crate) fn side_stats(side: &Side, kind: ValueKind) -> TableStats {
    let mut stats = TableStats::default();
    for i in 0..side.len() {
        let (wdl, plies) = decode_state(side.state(i));
        match wdl {
            Wdl::Win => {
                stats.win += 1;
                stats.longest_win = Some(stats.longest_win.unwrap_or(0).max(plies));
            }
            Wdl::Draw => stats.draw += 1,
            Wdl::Loss => {
                stats.loss += 1;
                stats.longest_loss = Some(stats.longest_loss.unwrap_or(0).max(plies));
            }
        }
    }
    if kind == ValueKind::Wdl {
        stats.longest_win = None;
        stats.longest_loss = None;
    }
    stats
}

/// Writes the table of one side to `dir`, atomically.
pub(crate) fn write_side(
    side: &Side,
    dir: &Path,
    rule_set: RuleSet,
    levels: u32,
) -> Result<(PathBuf, TableStats), GenError> {
    let kind = value_kind(side.material, rule_set);
    if kind == ValueKind::Distance && levels > DistanceValue::MAX_PLIES as u32 {
        return Err(GenError::DistanceOverflow(side.material));
    }
    let stats = side_stats(side, kind);
    let path = dir.join(side.material.file_name());
    let mut writer = TableWriter::create(&path, TableSpec::new(side.material, rule_set, kind))?;
    for i in 0..side.len() {
        if side.exit(i) == CAPTURE {
            writer.push(None)?;
            continue;
        }
        let (wdl, plies) = decode_state(side.state(i));
        let code = match kind {
            ValueKind::Wdl => wdl.code(),
            ValueKind::Distance => DistanceValue {
                wdl,
                plies: plies as u8,
            }
            .encode(),
        };
        writer.push(Some(code))?;
    }
    let path = writer.finish(stats)?;
    Ok((path, stats))
}
