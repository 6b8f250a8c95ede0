//! Recompressing a folder's tables at another zstd level (`dtb compact
//! --level`): each block is decoded and compressed again, and the smaller
//! of its two frames is kept, so a file never grows. The values do not
//! change (the same stream, compressed again), and each rewritten file is
//! decoded whole and compared with the one it replaces before the run
//! goes on. zstd decodes a frame at about the same speed whatever the
//! level it was written at, so a probe pays nothing for a higher one; a
//! build pays the compression time (level 19 about eight times level
//! 12's), which is why a build writes at the default level and a set
//! meant to be shipped is recompressed once.

use std::path::{Path, PathBuf};

use format::{Header, Material, RuleSet, TableReader, TableSpec};
use rayon::prelude::*;

use crate::compact::{io_error, read_table, BlockBytes};
use plan::GenError;

/// What [`recompress`] did to one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recompressed {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// Bytes before.
    pub before: u64,
    /// Bytes after (`before` where the file was left as it is: no block
    /// got smaller, or a file that stores no blocks).
    pub after: u64,
}

/// The zstd levels [`recompress`] takes (zstd's own range, its "ultra"
/// levels included).
pub const RECOMPRESS_LEVELS: std::ops::RangeInclusive<i32> = 1..=22;

/// Recompresses every table (`.dtb`: WLD and distance tables, of either
/// version) of `rule_set` under `dir` at zstd level `level`, block by
/// block, keeping the smaller frame of each block (see the module docs),
/// and rewrites the manifest if there is one. Each file is replaced
/// atomically; a run stopped halfway leaves every table valid.
///
/// # Errors
/// A level out of [`RECOMPRESS_LEVELS`], a table that cannot be read, a
/// failed write, or a rewritten file that does not decode to the values
/// of the one it replaced.
pub fn recompress(
    dir: &Path,
    rule_set: RuleSet,
    level: i32,
) -> Result<Vec<Recompressed>, GenError> {
    if !RECOMPRESS_LEVELS.contains(&level) {
        return Err(GenError::BadOptions(format!(
            "zstd level {level} is out of range {}..={}",
            RECOMPRESS_LEVELS.start(),
            RECOMPRESS_LEVELS.end()
        )));
    }
    let folder = format::table_dir(dir, rule_set);
    let mut materials = format::list_tables(&folder)?;
    materials.sort_by_key(|m| m.build_key());
    let mut out = Vec::with_capacity(materials.len());
    for material in materials {
        let path = format::table_path(&folder, material);
        let (before, after) = recompress_table(&path, level)?;
        out.push(Recompressed {
            material,
            path,
            before,
            after,
        });
    }
    if folder.join(format::manifest::MANIFEST).exists() {
        format::manifest::write(&folder, rule_set)?;
    }
    Ok(out)
}

/// Recompresses one table at `level` where that makes it smaller; its
/// bytes before and after.
fn recompress_table(path: &Path, level: i32) -> Result<(u64, u64), GenError> {
    let (before, reader) = read_table(path)?;
    let header = reader.header().clone();
    if header.block_count == 0 {
        return Ok((before, before));
    }
    let blocks = smaller_frames(&reader, level, path)?;
    let old_payload = header.index_offset - format::HEADER_LEN as u64;
    if blocks.payload >= old_payload {
        return Ok((before, before));
    }
    let old_values = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let threats_kept = reader.threats_kept().clone();
    drop(reader);
    let after = blocks.write_keeping(
        path,
        spec_of(&header, level),
        header.position_count,
        header.stats,
        &threats_kept,
    )?;
    let (_, written) = read_table(path)?;
    let new_values = written
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    if new_values != old_values
        || written.header().stats != header.stats
        || written.threats_kept() != &threats_kept
    {
        return Err(GenError::Internal(format!(
            "{}: the recompressed table does not hold the values it replaced",
            path.display()
        )));
    }
    Ok((before, after))
}

/// Each block of `reader` compressed again at `level`, or its frame as it
/// is where that is no larger.
fn smaller_frames(
    reader: &TableReader<Vec<u8>>,
    level: i32,
    path: &Path,
) -> Result<BlockBytes, GenError> {
    let blocks = (0..reader.header().block_count)
        .into_par_iter()
        .map_init(
            || {
                let decompressor = zstd::bulk::Decompressor::new();
                let compressor = zstd::bulk::Compressor::new(level);
                (decompressor, compressor, Vec::new(), Vec::new())
            },
            |(decompressor, compressor, raw, scratch), block| {
                let decompressor = decompressor.as_mut().map_err(|e| io_error(path, e))?;
                let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                reader
                    .decode_block(block, decompressor, raw)
                    .map_err(|e| GenError::in_file(path, e))?;
                let fresh = compressor.compress(raw).map_err(|e| io_error(path, &e))?;
                let old = reader
                    .compressed_block(block, scratch)
                    .map_err(|e| GenError::in_file(path, e))?;
                Ok(if fresh.len() < old.len() {
                    fresh
                } else {
                    old.to_vec()
                })
            },
        )
        .collect::<Result<_, GenError>>()?;
    Ok(BlockBytes::new(blocks))
}

/// The spec that writes a table of `header` again, at `level`.
fn spec_of(header: &Header, level: i32) -> TableSpec {
    TableSpec {
        positions_per_block: header.positions_per_block,
        level,
        threats_searched: header.threats_searched,
        quiet_searched: header.quiet_searched,
        spread_unit: header.spread_unit,
        ..TableSpec::new(header.material, header.rule_set, header.value_kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_out_of_range_is_refused() {
        let dir = std::env::temp_dir();
        for level in [0, 23, -5] {
            let err = recompress(&dir, RuleSet::Fmjd, level).unwrap_err();
            assert!(matches!(err, GenError::BadOptions(_)), "{err}");
        }
    }
}
