//! The files a check reads: a table or DTC file opened whole or for
//! positioned reads, after checking that its header is that of the
//! material, rule set and kind asked for.

use std::path::Path;

use format::{Material, RuleSet, ValueKind};
use plan::GenError;

/// The table or DTC file at `path`, read whole (no more than its header
/// says it holds) and checked to hold `material`'s values of `kind` under
/// `rule_set`, ready to decode.
pub(crate) fn read_whole(
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    kind: ValueKind,
) -> Result<format::TableReader<Vec<u8>>, GenError> {
    let read = || -> Result<_, format::FormatError> {
        let length = format::read_header(path)?.file_length;
        let reader = format::TableReader::new(format::read_regular(path, length)?)?;
        check_holds(reader.header(), material, rule_set, kind)?;
        Ok(reader)
    };
    read().map_err(|e| GenError::in_file(path, e))
}

/// The table or DTC file at `path`, opened for positioned reads of the
/// blocks asked for (a slice group's, not the whole file), and checked as
/// [`read_whole`] checks it.
pub(crate) fn open_positioned(
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    kind: ValueKind,
) -> Result<format::TableReader<format::PositionedFile>, GenError> {
    let open = || -> Result<_, format::FormatError> {
        let (file, len) = format::open_regular(path)?;
        let reader = format::TableReader::new(format::PositionedFile::new(file, len, path))?;
        check_holds(reader.header(), material, rule_set, kind)?;
        Ok(reader)
    };
    open().map_err(|e| GenError::in_file(path, e))
}

/// Whether `header` is that of `material`'s values of `kind` under
/// `rule_set`, with as many positions as the material has.
fn check_holds(
    header: &format::Header,
    material: Material,
    rule_set: RuleSet,
    kind: ValueKind,
) -> Result<(), format::FormatError> {
    let h = header;
    if let Some(mismatch) = h.mismatch(material, rule_set, kind) {
        return Err(format::FormatError::Corrupt(format!(
            "not the {} file of {material} under {rule_set}: {mismatch}",
            kind.name()
        )));
    }
    let positions = format::MaterialIndex::try_new(material).map(|i| i.count());
    if positions != Some(h.position_count) {
        return Err(format::FormatError::Corrupt(format!(
            "holds {} positions, not the {} of {material}",
            h.position_count,
            positions.unwrap_or(0)
        )));
    }
    Ok(())
}
