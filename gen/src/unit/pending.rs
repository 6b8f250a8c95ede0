//! Pairs whose tables a compacting build wrote and has not compacted yet
//! (`GenOptions::compact`): one small file each in the build's units
//! folder, `<pair>.compact`, holding the deepest level at which the
//! pair's solve settled a position (`deepest 17`, or `deepest unknown`).
//! The solve that found it is gone once the tables are written, so a
//! build stopped before compacting a pair finds the proof here when it
//! runs again, and a resumed build writes the files an unbroken one
//! writes. A record that cannot be read proves nothing: its pair is kept
//! as version 1, as where the proof fails.

use std::io::Write;
use std::path::{Path, PathBuf};

use format::Material;
use plan::GenError;

/// The ending of a record's name.
const SUFFIX: &str = ".compact";

/// The record of `pair` in the rule set's folder `dir`.
fn record_path(dir: &Path, pair: Material) -> PathBuf {
    dir.join(plan::units::UNITS_DIR)
        .join(format!("{pair}{SUFFIX}"))
}

/// Records, atomically, that `pair`'s tables in `dir` await compaction,
/// its solve having settled its deepest position at level `deepest`.
pub(crate) fn record(dir: &Path, pair: Material, deepest: Option<u32>) -> Result<(), GenError> {
    let path = record_path(dir, pair);
    let units = dir.join(plan::units::UNITS_DIR);
    std::fs::create_dir_all(&units).map_err(|e| GenError::io(&units, e))?;
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".partial.{}", std::process::id()));
    let temp = PathBuf::from(temp);
    let text = match deepest {
        Some(level) => format!("deepest {level}\n"),
        None => "deepest unknown\n".to_owned(),
    };
    let io = |e| GenError::io(&temp, e);
    let mut file = std::fs::File::create(&temp).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(&temp, &path).map_err(|e| GenError::io(&path, e))?;
    format::sync_parent(&path);
    Ok(())
}

/// The deepest level a record's text holds (`None`: unknown or not
/// readable).
fn parse(text: &str) -> Option<u32> {
    text.trim().strip_prefix("deepest ")?.parse().ok()
}

/// The pairs recorded in `dir` as awaiting compaction, with their deepest
/// levels, in the order of their names.
pub(crate) fn list(dir: &Path) -> Vec<(Material, Option<u32>)> {
    let Ok(entries) = std::fs::read_dir(dir.join(plan::units::UNITS_DIR)) else {
        return Vec::new();
    };
    let mut pairs: Vec<(Material, Option<u32>)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let pair: Material = name.to_str()?.strip_suffix(SUFFIX)?.parse().ok()?;
            // Only the names a build writes (a pair's first material).
            (plan::pair_of(pair) == pair).then_some(())?;
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            Some((pair, parse(&text)))
        })
        .collect();
    pairs.sort();
    pairs.dedup_by_key(|p| p.0);
    pairs
}

/// The deepest level recorded for `pair` in `dir`, if it is recorded
/// (`Some(None)`: recorded, level unknown).
pub(crate) fn find(dir: &Path, pair: Material) -> Option<Option<u32>> {
    let text = std::fs::read_to_string(record_path(dir, pair)).ok()?;
    Some(parse(&text))
}

/// Removes `pair`'s record from `dir` (done: its tables are compacted or
/// kept), and the units folder if that leaves it empty.
pub(crate) fn clear(dir: &Path, pair: Material) -> Result<(), GenError> {
    let path = record_path(dir, pair);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(GenError::io(&path, e)),
    }
    let _ = std::fs::remove_dir(dir.join(plan::units::UNITS_DIR));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_goes() {
        let dir = tempfile::tempdir().unwrap();
        let pair: Material = "KK-KM".parse().unwrap();
        let other: Material = "K-M".parse().unwrap();
        record(dir.path(), pair, Some(17)).unwrap();
        record(dir.path(), other, None).unwrap();
        assert_eq!(find(dir.path(), pair), Some(Some(17)));
        assert_eq!(list(dir.path()), vec![(other, None), (pair, Some(17))]);
        clear(dir.path(), pair).unwrap();
        clear(dir.path(), pair).unwrap();
        assert_eq!(find(dir.path(), pair), None);
        clear(dir.path(), other).unwrap();
        assert!(!dir.path().join(plan::units::UNITS_DIR).exists());
    }

    #[test]
    fn a_damaged_record_proves_nothing() {
        assert_eq!(parse("deepest 22\n"), Some(22));
        for text in ["", "deepest", "deepest unknown", "deepest -1", "22"] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}
