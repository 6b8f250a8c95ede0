//! Turning a solved pair into table files and statistics.

use std::path::{Path, PathBuf};

use format::{
    value_kind, DistanceValue, Material, MaterialIndex, RuleSet, TableSpec, TableStats,
    TableWriter, ValueKind, Wdl,
};

use rayon::prelude::*;

use crate::solvers::counted::{decode_state, Side, EXIT_CAPTURE};
use crate::values::{PackedSide, PackedValues};
use plan::GenError;

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
        if side.exit(i) == EXIT_CAPTURE {
            writer.push(None)?;
            continue;
        }
        let (wdl, plies) = decode_state(side.state(i));
        let code = match kind {
            ValueKind::Wdl => wdl.code(),
            ValueKind::Distance | ValueKind::Dtc => DistanceValue {
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

/// The zstd level of a build's WLD tables: the default, or with
/// `GenOptions::compact` a fast one ([`INTERIM_LEVEL`]).
pub(crate) fn wld_level(options: &plan::GenOptions) -> i32 {
    match options.compact {
        Some(_) => INTERIM_LEVEL,
        None => format::DEFAULT_LEVEL,
    }
}

/// The zstd level of the version-1 tables a compacting build writes
/// first: they are read by the pairs built after them, then rewritten
/// (or, where not compacted, recompressed at the default level), so
/// speed is what counts. Level 12 spends about 13 core-seconds on the
/// five-piece set, this one a fraction of it.
pub(crate) const INTERIM_LEVEL: i32 = 1;

/// Writes the table of one side of a slice-solved pair to `dir`,
/// atomically, compressed at zstd `level`: blocks are filled and
/// compressed in parallel, then written in order. At the default level
/// the file is the one [`TableWriter::push`] would write. A side kept as
/// codes only (a material without men, solved without DTC) has its
/// capture marks found again, a window at a time.
pub(crate) fn write_packed_side(
    side: &PackedSide,
    dir: &Path,
    (rule_set, level): (RuleSet, i32),
) -> Result<(PathBuf, TableStats), GenError> {
    let form = (rule_set, level);
    if side.has_captures() {
        return write_wdl_table(side.material, dir, form, |_, _| Ok(Window::Held(side)));
    }
    write_wdl_table(side.material, dir, form, |start, end| {
        let codes = (start / 32..end.div_ceil(32))
            .map(|w| side.code_word(w as usize))
            .collect();
        let marks = crate::solvers::menless::capture_words(&side.index, start, end - start);
        let values = PackedValues::from_words(end - start, codes, marks, Vec::new())
            .ok_or_else(|| GenError::Internal("a window of codes did not fit".into()))?;
        Ok(Window::Read(values, start))
    })
}

/// The values of some positions of a side: all of them, held in memory,
/// or those of a window read for the blocks being written.
pub(crate) enum Window<'a> {
    /// Every position of the side, position `i` at `i`.
    Held(&'a PackedValues),
    /// The positions from `.1` on, position `i` at `i - .1`.
    Read(PackedValues, u64),
}

impl Window<'_> {
    /// The values and the position their first one is.
    fn parts(&self) -> (&PackedValues, u64) {
        match self {
            Window::Held(values) => (values, 0),
            Window::Read(values, first) => (values, *first),
        }
    }
}

/// Blocks filled and compressed at a time (in parallel).
const BATCH: u64 = 64;

/// Writes the WLD table of `material` under `rule_set` to `dir`,
/// atomically, compressed at zstd `level`, from the windows
/// `window(start, end)` gives: one per batch of blocks, in order, holding
/// at least positions `start..end`. Capture positions take the value of
/// the last position before them that is not one.
pub(crate) fn write_wdl_table<'a>(
    material: Material,
    dir: &Path,
    (rule_set, level): (RuleSet, i32),
    mut window: impl FnMut(u64, u64) -> Result<Window<'a>, GenError>,
) -> Result<(PathBuf, TableStats), GenError> {
    let spec = TableSpec {
        level,
        ..TableSpec::new(material, rule_set, ValueKind::Wdl)
    };
    let len = MaterialIndex::new(material).count();
    let per_block = u64::from(spec.positions_per_block);
    debug_assert!(per_block.is_multiple_of(64));
    let path = dir.join(material.file_name());
    let mut writer = TableWriter::create(&path, spec)?;
    let mut stats = TableStats::default();
    let mut last = Wdl::Draw.code();
    for first in (0..len.div_ceil(per_block)).step_by(BATCH as usize) {
        let blocks = batch_blocks(first, len, per_block);
        let window = window(blocks[0].0, blocks[blocks.len() - 1].1)?;
        let (values, offset) = window.parts();
        let scans: Vec<BlockScan> = blocks
            .par_iter()
            .map(|&(start, end)| scan_block(values, start - offset, end - offset))
            .collect();
        let mut entering = Vec::with_capacity(scans.len());
        for scan in &scans {
            entering.push(last);
            last = scan.last.unwrap_or(last);
            stats.loss += scan.counts[0];
            stats.draw += scan.counts[1];
            stats.win += scan.counts[2];
        }
        let fill = |b: usize, (start, end): (u64, u64)| {
            (
                filled_block(values, start - offset, end - offset, entering[b]),
                (),
            )
        };
        write_batch(&mut writer, &path, spec, &blocks, fill, |()| {})?;
    }
    let path = writer.finish(stats)?;
    Ok((path, stats))
}

/// The position ranges of the blocks of a batch starting at block `first`.
fn batch_blocks(first: u64, len: u64, per_block: u64) -> Vec<(u64, u64)> {
    let last = (first + BATCH).min(len.div_ceil(per_block));
    (first..last)
        .map(|b| (b * per_block, ((b + 1) * per_block).min(len)))
        .collect()
}

/// Fills the blocks `blocks` of a table (`fill(j, block j's range)`: its
/// raw bytes and what it tells of them), compresses them in parallel and
/// writes them in order, handing each block's `T` to `each` in order too.
fn write_batch<T: Send>(
    writer: &mut TableWriter,
    path: &Path,
    spec: TableSpec,
    blocks: &[(u64, u64)],
    fill: impl Fn(usize, (u64, u64)) -> (Vec<u8>, T) + Sync,
    mut each: impl FnMut(T),
) -> Result<(), GenError> {
    let compressed: Vec<(Vec<u8>, u64, T)> = blocks
        .par_iter()
        .enumerate()
        .map_init(
            || zstd::bulk::Compressor::new(spec.level),
            |compressor, (j, &(start, end))| {
                let (raw, told) = fill(j, (start, end));
                let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                let bytes = compressor.compress(&raw).map_err(|e| io_error(path, &e))?;
                Ok((bytes, end - start, told))
            },
        )
        .collect::<Result<_, GenError>>()?;
    for (bytes, positions, told) in compressed {
        writer.push_compressed_block(&bytes, positions)?;
        each(told);
    }
    Ok(())
}

fn io_error(path: &Path, e: &std::io::Error) -> GenError {
    GenError::io(path, std::io::Error::new(e.kind(), e.to_string()))
}

/// What one block holds: its codes counted (capture positions included)
/// and the code of its last position that is not a capture position.
struct BlockScan {
    counts: [u64; 3],
    last: Option<u8>,
}

fn scan_block(side: &PackedValues, start: u64, end: u64) -> BlockScan {
    let mut scan = BlockScan {
        counts: [0; 3],
        last: None,
    };
    const LOW: u64 = 0x5555_5555_5555_5555;
    for w in (start / 32)..end.div_ceil(32) {
        let valid = (end - w * 32).min(32) as u32;
        let mask = if valid == 32 {
            u64::MAX
        } else {
            (1 << (2 * valid)) - 1
        };
        let codes = side.code_word(w as usize) & mask;
        let draw = u64::from((codes & LOW).count_ones());
        let win = u64::from((codes >> 1 & LOW).count_ones());
        scan.counts[1] += draw;
        scan.counts[2] += win;
        scan.counts[0] += u64::from(valid) - draw - win;
        let marks = (side.capture_word((w / 2) as usize) >> (32 * (w % 2))) as u32;
        let unmarked = !marks & (u32::MAX >> (32 - valid));
        if unmarked != 0 {
            let j = 31 - unmarked.leading_zeros();
            scan.last = Some((codes >> (2 * j)) as u8 & 3);
        }
    }
    scan
}

/// The packed codes of positions `start..end` (2 bits each, position `i`
/// in bits `2i, 2i+1` of the stream), capture positions filled with the
/// code before them (`last` entering the block).
fn filled_block(side: &PackedValues, start: u64, end: u64, mut last: u8) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((end - start) / 4 + 8) as usize);
    for w in (start / 32)..end.div_ceil(32) {
        let mut codes = side.code_word(w as usize);
        let marks = (side.capture_word((w / 2) as usize) >> (32 * (w % 2))) as u32;
        let valid = (end - w * 32).min(32) as u32;
        if marks == 0 {
            last = (codes >> (2 * (valid - 1))) as u8 & 3;
            raw.extend_from_slice(&codes.to_le_bytes());
            continue;
        }
        for j in 0..valid {
            let code = (codes >> (2 * j)) as u8 & 3;
            if marks >> j & 1 == 1 {
                codes = (codes & !(3 << (2 * j))) | u64::from(last) << (2 * j);
            } else {
                last = code;
            }
        }
        raw.extend_from_slice(&codes.to_le_bytes());
    }
    raw.truncate((end - start).div_ceil(4) as usize);
    raw
}

/// Writes the DTC file of one side of a pair to `dir`, atomically: a byte
/// per position (blocks filled and compressed in parallel). Draws and
/// capture positions hold the byte before them in the block (they are
/// never read), which compresses best. The header's statistics count the
/// results, and its longest win and loss are the largest DTC values.
pub(crate) fn write_dtc_side(
    side: &PackedSide,
    dir: &Path,
    rule_set: RuleSet,
) -> Result<(PathBuf, TableStats), GenError> {
    write_dtc_table(side.material, dir, rule_set, |_, _| Ok(Window::Held(side)))
}

/// Writes the DTC file of `material` to `dir`, atomically, from windows
/// as [`write_wdl_table`] takes them (see [`write_dtc_side`]).
pub(crate) fn write_dtc_table<'a>(
    material: Material,
    dir: &Path,
    rule_set: RuleSet,
    mut window: impl FnMut(u64, u64) -> Result<Window<'a>, GenError>,
) -> Result<(PathBuf, TableStats), GenError> {
    let spec = TableSpec::new(material, rule_set, ValueKind::Dtc);
    let len = MaterialIndex::new(material).count();
    let per_block = u64::from(spec.positions_per_block);
    let path = format::dtc_path(dir, material);
    let mut writer = TableWriter::create(&path, spec)?;
    let mut stats = TableStats::default();
    // The count above the rule's limit: the one in force where the rule
    // applies, 50 plies elsewhere (a lowered limit changes no pure file).
    let limit = crate::solvers::kings_only::level_limit(rule_set, material.counted_ending())
        .unwrap_or(format::KINGS_ONLY_LIMIT);
    for first in (0..len.div_ceil(per_block)).step_by(BATCH as usize) {
        let blocks = batch_blocks(first, len, per_block);
        let window = window(blocks[0].0, blocks[blocks.len() - 1].1)?;
        let (values, offset) = window.parts();
        let fill =
            |_, (start, end): (u64, u64)| dtc_block(values, (start - offset, end - offset), limit);
        write_batch(&mut writer, &path, spec, &blocks, fill, |block_stats| {
            add_stats(&mut stats, &block_stats)
        })?;
    }
    let path = writer.finish(stats)?;
    Ok((path, stats))
}

/// The DTC bytes of positions `start..end`, and their statistics. A draw
/// whose DTC byte is above the 25-move rule's `limit` (50 plies, or a
/// test's lower one) is a position the rule draws, the byte its DTC at a fresh
/// count (see [`crate::solvers::kings_only`]): counted with the results whose DTC
/// is above the limit (under `pure`).
fn dtc_block(side: &PackedValues, (start, end): (u64, u64), limit: u32) -> (Vec<u8>, TableStats) {
    let mut raw = Vec::with_capacity((end - start) as usize);
    let mut stats = TableStats {
        dtc_above_limit: Some(0),
        longest_fresh_dtc: Some(0),
        ..TableStats::default()
    };
    let mut above = 0;
    let mut longest_fresh = 0;
    let mut last = 0;
    for i in start..end {
        let wdl = Wdl::from_code(side.code(i)).unwrap_or(Wdl::Draw);
        let longest = match wdl {
            Wdl::Win => {
                stats.win += 1;
                &mut stats.longest_win
            }
            Wdl::Loss => {
                stats.loss += 1;
                &mut stats.longest_loss
            }
            Wdl::Draw => {
                stats.draw += 1;
                let fresh = u32::from(side.dtc(i));
                if fresh > limit {
                    above += 1;
                    longest_fresh = longest_fresh.max(fresh);
                }
                raw.push(last);
                continue;
            }
        };
        if side.is_capture(i) {
            raw.push(last);
            continue;
        }
        last = side.dtc(i);
        *longest = Some(longest.unwrap_or(0).max(u32::from(last)));
        above += u64::from(u32::from(last) > limit);
        longest_fresh = longest_fresh.max(u32::from(last));
        raw.push(last);
    }
    stats.dtc_above_limit = Some(above);
    stats.longest_fresh_dtc = Some(longest_fresh);
    (raw, stats)
}

fn add_stats(total: &mut TableStats, part: &TableStats) {
    total.add(part);
}

/// Makes the larger of `pair`'s two DTC files in `dir` one that stores no
/// values (`format::FLAG_FROM_MIRROR`: the prober finds them by a one-ply
/// search over the other), where the pair allows it and neither is one
/// yet; the one it made, if any. The larger of equal files is the
/// mirror's.
pub(crate) fn compact_dtc_pair(
    dir: &Path,
    pair: Material,
    rule_set: RuleSet,
) -> Result<Option<Material>, GenError> {
    if !format::may_come_from_mirror(pair) {
        return Ok(None);
    }
    let sides = [pair, pair.mirrored()];
    let mut headers = Vec::with_capacity(2);
    for m in sides {
        let path = format::dtc_path(dir, m);
        let header = format::check_file_of(&path, m, rule_set, ValueKind::Dtc)
            .map_err(|e| GenError::in_file(&path, e))?;
        headers.push(header);
    }
    if headers.iter().any(|h| h.from_mirror) {
        return Ok(None);
    }
    let k = usize::from(headers[1].file_length >= headers[0].file_length);
    let path = format::dtc_path(dir, sides[k]);
    format::write_from_mirror(&path, sides[k], rule_set, ValueKind::Dtc, headers[k].stats)
        .map_err(|e| GenError::in_file(&path, e))?;
    Ok(Some(sides[k]))
}
