//! Rewriting a folder's WLD tables as version 2 (`dtb compact`): the
//! threat positions of `format::is_searched_threat` become "don't care"
//! (a prober finds them by a one-ply search) and the blocks grow to
//! `format::SEARCHED_WDL_BLOCK` positions. Every value a probe returns
//! stays the same, and the header's statistics are copied.
//!
//! Before a table is rewritten, each of its searched threat positions is
//! searched exactly as the prober will search it (`probe_capture` over its
//! moves, through the tables as they are), and the result is compared with
//! the stored value. Where one differs (a position the 25-move rule draws
//! at a used count, say), the table is left as it is: the flag is all or
//! nothing. Distance tables (counted endings) and tables already of
//! version 2 are left as they are too.

use std::path::{Path, PathBuf};

use format::{
    is_searched_threat, Material, MaterialIndex, RuleSet, TableReader, TableSpec, TableWriter,
    UnrankCursor, ValueKind,
};
use probe::generator::GeneratorHooks;
use probe::Tablebase;
use rayon::prelude::*;

use plan::GenError;

/// What [`compact`] did to one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compaction {
    /// Rewritten as version 2.
    Rewritten {
        /// Bytes before.
        before: u64,
        /// Bytes after.
        after: u64,
        /// Threat positions left to the search.
        searched: u64,
    },
    /// Left as it is: a distance table, or already version 2.
    Unchanged,
    /// Left as it is: this many threat positions have a value that the
    /// one-ply search would not give.
    NotSearchable(u64),
}

/// One table's outcome.
#[derive(Clone, Debug)]
pub struct CompactedTable {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// What happened.
    pub outcome: Compaction,
}

/// Blocks compressed at a time (in parallel).
const BATCH: u64 = 16;

/// Rewrites every WLD table of `rule_set` under `dir` (which holds one
/// folder per rule set) as version 2, smallest first, and the manifest
/// if there is one. Each file is replaced atomically; a run stopped
/// halfway leaves every table valid, and a second run goes on.
///
/// # Errors
/// A table that cannot be read, or one the search needs that is missing.
pub fn compact(dir: &Path, rule_set: RuleSet) -> Result<Vec<CompactedTable>, GenError> {
    let folder = format::table_dir(dir, rule_set);
    let mut materials = format::list_tables(&folder)?;
    materials.sort_by_key(|m| m.build_key());
    let tb = Tablebase::open(dir, rule_set)?;
    let mut out = Vec::with_capacity(materials.len());
    for material in materials {
        let path = format::table_path(&folder, material);
        let outcome = compact_table(&tb, &path, material, rule_set)?;
        out.push(CompactedTable {
            material,
            path,
            outcome,
        });
    }
    if folder.join(format::manifest::MANIFEST).exists() {
        format::manifest::write(&folder, rule_set)?;
    }
    Ok(out)
}

/// Rewrites one table as version 2 where it can (see the module docs).
fn compact_table(
    tb: &Tablebase,
    path: &Path,
    material: Material,
    rule_set: RuleSet,
) -> Result<Compaction, GenError> {
    let before = std::fs::metadata(path)
        .map_err(|e| GenError::io(path, e))?
        .len();
    let reader = TableReader::new(
        format::read_regular(path, before).map_err(|e| GenError::in_file(path, e))?,
    )
    .map_err(|e| GenError::in_file(path, e))?;
    let header = reader.header().clone();
    if header.value_kind != ValueKind::Wdl || header.threats_searched {
        return Ok(Compaction::Unchanged);
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let spec = TableSpec::searched_threats(material, rule_set);
    let index = MaterialIndex::new(material);
    let per_block = u64::from(spec.positions_per_block);
    let blocks = index.count().div_ceil(per_block);
    let mut writer = TableWriter::create(path, spec)?;
    let (mut searched, mut differing) = (0, 0);
    for first in (0..blocks).step_by(BATCH as usize) {
        let range: Vec<u64> = (first..(first + BATCH).min(blocks)).collect();
        let done: Vec<BlockOut> = range
            .par_iter()
            .map_init(
                || zstd::bulk::Compressor::new(spec.level),
                |compressor, &b| {
                    let start = b * per_block;
                    let end = (start + per_block).min(index.count());
                    let block = fill_block(tb, &index, &codes, start, end)?;
                    let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                    let bytes = compressor
                        .compress(&block.raw)
                        .map_err(|e| io_error(path, &e))?;
                    Ok(BlockOut { bytes, ..block })
                },
            )
            .collect::<Result<_, GenError>>()?;
        for (block, b) in done.iter().zip(&range) {
            searched += block.searched;
            differing += block.differing;
            let positions = (index.count() - b * per_block).min(per_block);
            writer.push_compressed_block(&block.bytes, positions)?;
        }
    }
    if differing > 0 {
        // Dropping the writer removes its temporary file.
        return Ok(Compaction::NotSearchable(differing));
    }
    writer.finish(header.stats)?;
    let after = std::fs::metadata(path)
        .map_err(|e| GenError::io(path, e))?
        .len();
    Ok(Compaction::Rewritten {
        before,
        after,
        searched,
    })
}

fn io_error(path: &Path, e: &std::io::Error) -> GenError {
    GenError::io(path, std::io::Error::new(e.kind(), e.to_string()))
}

/// One output block: its packed codes (then compressed), how many of its
/// positions are left to the search, and how many of those the search
/// would get wrong.
struct BlockOut {
    raw: Vec<u8>,
    bytes: Vec<u8>,
    searched: u64,
    differing: u64,
}

/// The packed codes of positions `start..end` (a multiple of 4 from
/// `start`), read from the version-1 stream `codes`: capture positions and
/// searched threats take the code of the last position kept before them
/// in the block (its first kept one at its start), each searched threat
/// checked against the search that will replace it.
fn fill_block(
    tb: &Tablebase,
    index: &MaterialIndex,
    codes: &[u8],
    start: u64,
    end: u64,
) -> Result<BlockOut, GenError> {
    let mut cursor = UnrankCursor::default();
    let mut moves = Vec::new();
    let mut kept: Vec<Option<u8>> = Vec::with_capacity((end - start) as usize);
    let (mut searched, mut differing) = (0, 0);
    for i in start..end {
        let pos = index.unrank_with(i, &mut cursor);
        let code = format::wdl_code(codes, i as usize);
        if pos.has_capture() {
            kept.push(None);
        } else if is_searched_threat(&pos, &mut moves) {
            searched += 1;
            let legal = pos.legal_moves();
            if tb.probe_capture(&pos, &legal)?.wdl.code() != code {
                differing += 1;
            }
            kept.push(None);
        } else {
            kept.push(Some(code));
        }
    }
    let mut last = kept.iter().flatten().next().copied().unwrap_or(1);
    let mut raw = vec![0u8; kept.len().div_ceil(4)];
    for (j, code) in kept.iter().enumerate() {
        let code = code.unwrap_or(last);
        last = code;
        raw[j / 4] |= code << (2 * (j % 4));
    }
    Ok(BlockOut {
        raw,
        bytes: Vec::new(),
        searched,
        differing,
    })
}
