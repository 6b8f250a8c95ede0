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
//!
//! Every position left to the search whose search would read more than
//! two blocks of the mirror's table is stored instead
//! (`format::FLAG_SPREAD_STORED`), so that a cold search reads at most two.
//!
//! With [`Sides::One`], a pair of mirror materials may keep one table
//! whole: the other leaves every quiet position to a one-ply search over
//! the kept one (`format::FLAG_QUIET_SEARCHED`), storing only those whose
//! search spreads. That is decided pair
//! by pair, by the bytes it saves against both tables as version 2, in
//! bits a position of the table left out (a probe of that table costs a
//! search, about 15 times a stored probe): so the pairs where one side
//! compresses far better than the other go first. The table weighed for
//! leaving out is the larger file of the two. Before a table is left out,
//! every one of its positions is searched and compared with its stored
//! value (all or nothing, as above).
//!
//! A build that compacts (`GenOptions::compact`) calls
//! [`compact_built_pair`] for each pair it wrote, without those searches:
//! there the solver has proved them exact
//! (`crate::solvers::kings_only::search_is_exact`). Either way each table
//! is compressed once for each form it may take (version 2; whole, in
//! larger blocks, for the table kept of a pair weighed), and the form
//! chosen is written from those blocks.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use format::{
    may_come_from_mirror, Header, Material, MaterialIndex, RuleSet, SearchScratch, TableReader,
    TableSpec, TableWriter, UnrankCursor, ValueKind,
};
use probe::generator::GeneratorHooks;
use probe::Tablebase;
use rayon::prelude::*;

use plan::GenError;
pub use plan::Sides;

/// What [`compact`] did to one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compaction {
    /// Rewritten as version 2.
    Rewritten {
        /// Bytes before.
        before: u64,
        /// Bytes after.
        after: u64,
        /// Threat positions left to the search (counted only where each
        /// was checked: `None` in a dry run or a build).
        searched: Option<u64>,
        /// Threat positions stored all the same, their search giving
        /// another value (`format::FLAG_THREATS_KEPT`; 0 unchecked).
        threats_kept: u64,
    },
    /// Left as it is: a distance table, or already version 2.
    Unchanged,
    /// Left as it is: this many threat positions have a value that the
    /// one-ply search would not give.
    NotSearchable(u64),
    /// Rewritten as a table that leaves its quiet positions to a one-ply
    /// search through its mirror's (`format::FLAG_QUIET_SEARCHED`),
    /// storing only those whose search would spread.
    LeftOut {
        /// Bytes before.
        before: u64,
        /// Bytes after.
        after: u64,
    },
    /// Kept whole (version 1) as its mirror was left out, rewritten in
    /// blocks of `format::SEARCHED_WDL_BLOCK` positions where that is
    /// smaller.
    KeptWhole {
        /// Bytes before.
        before: u64,
        /// Bytes after.
        after: u64,
    },
    /// Left as it is: its mirror stores no values, so it must store all.
    KeptForMirror,
    /// Not left out: this many positions have a value that a one-ply
    /// search through the mirror's table would not give.
    MirrorNotSearchable(u64),
}

/// One table's outcome.
#[derive(Clone, Debug)]
pub struct CompactedTable {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// With [`Sides::One`], for the table of a pair weighed for leaving
    /// out: the bits a position of it that leaving it out saves (or would
    /// save) against both tables as version 2.
    pub one_side_saving: Option<f64>,
    /// What happened.
    pub outcome: Compaction,
}

/// Rewrites every WLD table of `rule_set` under `dir` (which holds one
/// folder per rule set) as version 2, smallest first, after leaving out
/// one table of each pair where `sides` says so (see [`Sides`]), and the
/// manifest
/// if there is one. Each file is replaced atomically; a run stopped
/// halfway leaves every table valid, and a second run goes on.
///
/// # Errors
/// A table that cannot be read, or one the search needs that is missing.
pub fn compact(
    dir: &Path,
    rule_set: RuleSet,
    sides: Sides,
) -> Result<Vec<CompactedTable>, GenError> {
    run(dir, rule_set, sides, false)
}

/// What [`compact`] would do, without its checks and writing nothing:
/// each table's outcome with the bytes it would take if every check
/// passed (a table that a check keeps back takes its bytes as they are).
/// It costs what writing the tables costs, not the search of every
/// position left out: a quick look at what a set would save.
///
/// # Errors
/// A table that cannot be read.
pub fn compact_dry_run(
    dir: &Path,
    rule_set: RuleSet,
    sides: Sides,
) -> Result<Vec<CompactedTable>, GenError> {
    run(dir, rule_set, sides, true)
}

/// How a pass goes: with its checks (each value a search will replace is
/// searched through the tables first), trusting the values (a build whose
/// solver proved the search exact), or writing nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Checked,
    Trusted,
    DryRun,
}

/// What a pass works with.
struct Pass<'a> {
    /// The tables searches are checked against (in [`Mode::Checked`]).
    check: Option<&'a Tablebase>,
    folder: &'a Path,
    rule_set: RuleSet,
    mode: Mode,
}

impl Pass<'_> {
    /// Whether the pass writes files.
    fn writes(&self) -> bool {
        self.mode != Mode::DryRun
    }
}

/// [`compact`], or with `dry_run` [`compact_dry_run`].
fn run(
    dir: &Path,
    rule_set: RuleSet,
    sides: Sides,
    dry_run: bool,
) -> Result<Vec<CompactedTable>, GenError> {
    let folder = format::table_dir(dir, rule_set);
    let mut materials = format::list_tables(&folder)?;
    materials.sort_by_key(|m| m.build_key());
    let tb = if dry_run {
        None
    } else {
        Some(Tablebase::open(dir, rule_set)?)
    };
    let pass = Pass {
        check: tb.as_ref(),
        folder: &folder,
        rule_set,
        mode: if dry_run { Mode::DryRun } else { Mode::Checked },
    };
    let mut out = Vec::with_capacity(materials.len());
    for &material in &materials {
        let mirror = material.mirrored();
        let pair = if mirror == material || !materials.contains(&mirror) {
            vec![material]
        } else if material < mirror {
            vec![material, mirror]
        } else {
            continue;
        };
        out.extend(compact_pair(&pass, &pair, sides)?);
    }
    out.sort_by_key(|t| t.material.build_key());
    if !dry_run && folder.join(format::manifest::MANIFEST).exists() {
        format::manifest::write(&folder, rule_set)?;
    }
    Ok(out)
}

/// Compacts the tables of `pair` (a material and its mirror, or a
/// symmetric material) that a build has just written to `folder`, as
/// [`compact`] does but without its checks: the solver proved that a
/// one-ply search gives every stored value
/// (`crate::solvers::kings_only::search_is_exact`).
pub(crate) fn compact_built_pair(
    folder: &Path,
    pair: Material,
    rule_set: RuleSet,
    sides: Sides,
) -> Result<Vec<CompactedTable>, GenError> {
    let pass = Pass {
        check: None,
        folder,
        rule_set,
        mode: Mode::Trusted,
    };
    let materials = if pair.is_symmetric() {
        vec![pair]
    } else {
        vec![pair, pair.mirrored()]
    };
    compact_pair(&pass, &materials, sides)
}

/// Compacts the tables of `pair` (a material, or a material and its
/// mirror): one side left out where `sides` asks for it and it pays (see
/// [`Sides`]), every other table rewritten as version 2 where it can be.
fn compact_pair(
    pass: &Pass,
    pair: &[Material],
    sides: Sides,
) -> Result<Vec<CompactedTable>, GenError> {
    let mut v2: Vec<Option<BlockBytes>> = pair.iter().map(|_| None).collect();
    let mut weighed_out = None;
    if let (Sides::One { min_saving }, &[a, b]) = (sides, pair) {
        if let Some(w) = weigh_pair(pass, [a, b], min_saving)? {
            if w.saving > 0.0 && w.saving >= min_saving {
                return leave_out(pass, w);
            }
            weighed_out = Some((w.k, w.saving));
            v2 = w.v2.map(Some).into();
        }
    }
    let mut out = Vec::with_capacity(pair.len());
    for (s, &material) in pair.iter().enumerate() {
        let path = format::table_path(pass.folder, material);
        let outcome = if mirror_left_out(pass.folder, material) {
            keep_whole(pass, &path, material)?
        } else {
            compact_table(pass, &path, material, v2[s].take())?
        };
        let one_side_saving = weighed_out.filter(|&(k, _)| k == s).map(|(_, bits)| bits);
        out.push(CompactedTable {
            material,
            path,
            outcome,
            one_side_saving,
        });
    }
    Ok(out)
}

/// Whether the mirror of `material` has a table in `folder` that stores
/// no values (then `material`'s must store all of its own).
fn mirror_left_out(folder: &Path, material: Material) -> bool {
    let path = format::table_path(folder, material.mirrored());
    format::read_header(&path).is_ok_and(|h| h.from_mirror || h.quiet_searched)
}

/// The header of a table to compact, read and checked whole.
pub(crate) fn read_table(path: &Path) -> Result<(u64, TableReader<Vec<u8>>), GenError> {
    let bytes = std::fs::metadata(path)
        .map_err(|e| GenError::io(path, e))?
        .len();
    let reader = TableReader::new(
        format::read_regular(path, bytes).map_err(|e| GenError::in_file(path, e))?,
    )
    .map_err(|e| GenError::in_file(path, e))?;
    Ok((bytes, reader))
}

/// Whether a table of header `h` is a version-1 WLD table storing all its
/// values (its threats included).
fn stores_all(h: &Header) -> bool {
    h.value_kind == ValueKind::Wdl && !h.threats_searched && !h.quiet_searched && !h.from_mirror
}

/// A pair of version-1 tables weighed for leaving one out: everything
/// either outcome writes, so that nothing is compressed twice.
struct Weighed {
    pair: [Material; 2],
    paths: [PathBuf; 2],
    /// Bytes of each file as it is.
    before: [u64; 2],
    /// Statistics of each table.
    stats: [format::TableStats; 2],
    /// The values of the side that would be left out (a version-1 stream).
    codes_out: Vec<u8>,
    /// The side that would be left out: the one whose leaving out saves
    /// more bits a position (the mirror where they save alike).
    k: usize,
    /// Both tables as version 2.
    v2: [BlockBytes; 2],
    /// The values of the other table (a version-1 stream).
    codes_kept: Vec<u8>,
    /// The bytes of the other table as a plain build writes it (version 1
    /// at the default block size and level), estimated as
    /// [`bytes_estimate`] does.
    kept_plain: u64,
    /// The bits a position of table `k` that leaving it out saves against
    /// both tables as version 2 (negative where it costs).
    saving: f64,
}

/// Weighs `pair` for leaving one table out (see [`Weighed`]); `None`
/// where it cannot be: a pair that may not, or whose tables are not both
/// version-1 WLD tables storing every value. A side whose leaving out
/// could not save `min_saving` bits a position even if its table took no
/// bytes is not weighed further: its saving is that bound.
fn weigh_pair(
    pass: &Pass,
    pair: [Material; 2],
    min_saving: f64,
) -> Result<Option<Weighed>, GenError> {
    if !may_come_from_mirror(pair[0]) {
        return Ok(None);
    }
    let paths = pair.map(|m| format::table_path(pass.folder, m));
    let [Ok(h0), Ok(h1)] = [&paths[0], &paths[1]].map(|p| format::read_header(p)) else {
        return Ok(None);
    };
    if !stores_all(&h0) || !stores_all(&h1) {
        return Ok(None);
    }
    let mut before = [0; 2];
    let mut codes = [Vec::new(), Vec::new()];
    for s in 0..2 {
        let (bytes, reader) = read_table(&paths[s])?;
        before[s] = bytes;
        codes[s] = reader
            .decode_all_raw()
            .map_err(|e| GenError::in_file(&paths[s], e))?;
    }
    let v2 = [0, 1].map(|s| v2_blocks(&threats_spec(pair[s], pass.rule_set), &codes[s], &paths[s]));
    let [v2_0, v2_1] = v2;
    let v2 = [v2_0?, v2_1?];
    // Each side weighed for leaving out, by sizes a build and a checked
    // run both know (not the files', which a build writes at a fast level
    // first), so that both decide alike.
    let both = v2[0].file_bytes() + v2[1].file_bytes();
    let positions = [h0.position_count, h1.position_count];
    // (saving, plain estimate of the side kept, whether the saving counts
    // the side left out's own bytes)
    let mut weighed = [(0.0, 0, false); 2];
    for (out, w) in weighed.iter_mut().enumerate() {
        let kept = 1 - out;
        let plain = plain_estimate(&codes[kept], pair[kept], pass.rule_set, &paths[kept])?;
        let whole = bytes_estimate(
            &codes[kept],
            whole_spec(pair[kept], pass.rule_set),
            &paths[kept],
        )?;
        let saving = |left: u64| {
            let one = whole.min(plain) + left;
            (both as f64 - one as f64) * 8.0 / positions[out].max(1) as f64
        };
        // What it saves at most (the side left out as small as a file
        // gets); only a side that could reach `min_saving` is weighed with
        // its spread positions stored.
        let most = saving(format::HEADER_LEN as u64 + 8);
        *w = if most > 0.0 && most >= min_saving {
            let quiet = quiet_spec(pair[out], pass.rule_set, format::SEARCHED_WDL_BLOCK);
            (
                saving(v2_estimate(&quiet, &codes[out], &paths[out])?),
                plain,
                true,
            )
        } else {
            (most, plain, false)
        };
    }
    // The side that saves more among those weighed whole (the mirror
    // where they save alike).
    let k = match (weighed[0].2, weighed[1].2) {
        (true, false) => 0,
        (false, true) => 1,
        _ => usize::from(weighed[1].0 >= weighed[0].0),
    };
    let (saving, kept_plain, _) = weighed[k];
    let [c0, c1] = codes;
    let (codes_out, codes_kept) = if k == 0 { (c0, c1) } else { (c1, c0) };
    Ok(Some(Weighed {
        pair,
        paths,
        before,
        stats: [h0.stats, h1.stats],
        codes_out,
        k,
        v2,
        codes_kept,
        kept_plain,
        saving,
    }))
}

/// Leaves out table `w.k` of a weighed pair, keeping the other whole,
/// once (with checks) every position of it is found by the search; the
/// outcome of each side.
fn leave_out(pass: &Pass, w: Weighed) -> Result<Vec<CompactedTable>, GenError> {
    let (k, kept) = (w.k, 1 - w.k);
    let differing = match pass.check {
        Some(tb) => differing_from_search(tb, &w.codes_out, w.pair[k])?,
        None => 0,
    };
    let outcomes = if differing > 0 {
        [
            Compaction::MirrorNotSearchable(differing),
            Compaction::Unchanged,
        ]
    } else {
        // The table kept first: a run stopped between the two leaves a
        // pair that a second run completes.
        let path = &w.paths[kept];
        let whole = whole_blocks(&w.codes_kept, w.pair[kept], pass.rule_set, path)?;
        let kept_outcome = write_whole(
            pass,
            path,
            w.pair[kept],
            (w.before[kept], w.stats[kept]),
            (&whole, w.kept_plain),
        )?;
        let after = write_left_out(pass, &w, kept_block(pass, &w.paths[kept], &kept_outcome)?)?;
        let before = w.before[k];
        [Compaction::LeftOut { before, after }, kept_outcome]
    };
    let [left, kept_outcome] = outcomes;
    Ok(vec![
        CompactedTable {
            material: w.pair[k],
            path: w.paths[k].clone(),
            outcome: left,
            one_side_saving: Some(w.saving),
        },
        CompactedTable {
            material: w.pair[kept],
            path: w.paths[kept].clone(),
            outcome: kept_outcome,
            one_side_saving: None,
        },
    ])
}

/// The positions a block of the table kept holds, once written (with the
/// outcome `kept`; in a dry run, what it would hold).
fn kept_block(pass: &Pass, path: &Path, kept: &Compaction) -> Result<u32, GenError> {
    if pass.writes() {
        let header = format::read_header(path).map_err(|e| GenError::in_file(path, e))?;
        return Ok(header.positions_per_block);
    }
    Ok(match kept {
        Compaction::KeptWhole { .. } => format::SEARCHED_WDL_BLOCK,
        _ => format::DEFAULT_WDL_BLOCK,
    })
}

/// Writes table `w.k` of a weighed pair as the version-2 table that leaves
/// its quiet positions to the search through the table kept, whose blocks
/// hold `mirror_block` positions, storing those whose search would spread
/// over more of them; its bytes.
fn write_left_out(pass: &Pass, w: &Weighed, mirror_block: u32) -> Result<u64, GenError> {
    let (material, path) = (w.pair[w.k], &w.paths[w.k]);
    let spec = quiet_spec(material, pass.rule_set, mirror_block);
    let blocks = v2_blocks(&spec, &w.codes_out, path)?;
    if !pass.writes() {
        return Ok(blocks.file_bytes());
    }
    let count = MaterialIndex::new(material).count();
    blocks.write(path, spec, count, w.stats[w.k])
}

fn file_len(path: &Path) -> Result<u64, GenError> {
    Ok(std::fs::metadata(path)
        .map_err(|e| GenError::io(path, e))?
        .len())
}

/// The compressed blocks of a table about to be written, and what its
/// file will take.
#[derive(Default)]
pub(crate) struct BlockBytes {
    blocks: Vec<Vec<u8>>,
    pub(crate) payload: u64,
}

impl BlockBytes {
    /// Blocks in order.
    pub(crate) fn new(blocks: Vec<Vec<u8>>) -> BlockBytes {
        let payload = blocks.iter().map(|b| b.len() as u64).sum();
        BlockBytes { blocks, payload }
    }

    /// Bytes of the file: header, blocks, and the block index (an offset
    /// a block and one more, a CRC a block).
    fn file_bytes(&self) -> u64 {
        format::HEADER_LEN as u64 + self.payload + 12 * self.blocks.len() as u64 + 8
    }

    /// Writes them as the table `path` of `spec` (`count` positions),
    /// atomically; the bytes written.
    pub(crate) fn write(
        &self,
        path: &Path,
        spec: TableSpec,
        count: u64,
        stats: format::TableStats,
    ) -> Result<u64, GenError> {
        self.write_keeping(path, spec, count, stats, &[])
    }

    /// [`BlockBytes::write`] for a table that stores the threat positions
    /// of indices `threats_kept` all the same (`format::FLAG_THREATS_KEPT`;
    /// the blocks hold their values).
    pub(crate) fn write_keeping(
        &self,
        path: &Path,
        spec: TableSpec,
        count: u64,
        stats: format::TableStats,
        threats_kept: &[u64],
    ) -> Result<u64, GenError> {
        let per_block = u64::from(spec.positions_per_block);
        let mut writer = TableWriter::create(path, spec)?;
        for (b, bytes) in self.blocks.iter().enumerate() {
            let positions = (count - b as u64 * per_block).min(per_block);
            writer.push_compressed_block(bytes, positions)?;
        }
        writer.finish_keeping(stats, threats_kept)?;
        file_len(path)
    }
}

/// `raw_blocks` compressed at `level`, in parallel.
fn compressed(
    raw_blocks: impl IndexedParallelIterator<Item = Vec<u8>>,
    level: i32,
    path: &Path,
) -> Result<BlockBytes, GenError> {
    let blocks = raw_blocks
        .map_init(
            || zstd::bulk::Compressor::new(level),
            |compressor, raw| {
                let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                compressor.compress(&raw).map_err(|e| io_error(path, &e))
            },
        )
        .collect::<Result<_, GenError>>()?;
    Ok(BlockBytes::new(blocks))
}

/// `material`'s values `codes` (a version-1 stream) compressed in blocks
/// of `format::SEARCHED_WDL_BLOCK` positions, every value stored.
fn whole_blocks(
    codes: &[u8],
    material: Material,
    rule_set: RuleSet,
    path: &Path,
) -> Result<BlockBytes, GenError> {
    let spec = whole_spec(material, rule_set);
    let bytes_per_block = (spec.positions_per_block / 4) as usize;
    let raw = codes.par_chunks(bytes_per_block).map(<[u8]>::to_vec);
    compressed(raw, spec.level, path)
}

/// Blocks a table needs before [`bytes_estimate`] samples them.
const SAMPLED_ABOVE: usize = 32;

/// The bytes of the file of `codes` (a version-1 stream) written as
/// `spec` says, found from every eighth block where there are more than
/// [`SAMPLED_ABOVE`] (the payload scaled up), else exactly: a pair is
/// weighed at an eighth of the cost, and only a table kept whole is
/// compressed whole.
fn bytes_estimate(codes: &[u8], spec: TableSpec, path: &Path) -> Result<u64, GenError> {
    let bytes_per_block = (spec.positions_per_block / 4) as usize;
    let raw = codes.par_chunks(bytes_per_block).map(<[u8]>::to_vec);
    let blocks = raw.len();
    if blocks <= SAMPLED_ABOVE {
        return Ok(compressed(raw, spec.level, path)?.file_bytes());
    }
    let sampled: Vec<Vec<u8>> = codes
        .chunks(bytes_per_block)
        .step_by(8)
        .map(<[u8]>::to_vec)
        .collect();
    let count = sampled.len();
    let payload = compressed(sampled.into_par_iter(), spec.level, path)?.payload;
    let scaled = (payload as f64 * blocks as f64 / count as f64).round() as u64;
    Ok(format::HEADER_LEN as u64 + scaled + 12 * blocks as u64 + 8)
}

/// [`bytes_estimate`] of `material`'s table as a plain build writes it
/// (version 1 at the default block size and level).
fn plain_estimate(
    codes: &[u8],
    material: Material,
    rule_set: RuleSet,
    path: &Path,
) -> Result<u64, GenError> {
    let spec = TableSpec::new(material, rule_set, ValueKind::Wdl);
    bytes_estimate(codes, spec, path)
}

/// The spec of `material`'s version-2 table that searches its threats,
/// storing those whose search spreads over more than two blocks of its
/// mirror's table (a version-2 table too, or itself).
fn threats_spec(material: Material, rule_set: RuleSet) -> TableSpec {
    TableSpec::searched_threats(material, rule_set, Some(format::SEARCHED_WDL_BLOCK))
}

/// The spec of `material`'s version-2 table that leaves its quiet
/// positions to a search through its mirror's table, whose blocks hold
/// `mirror_block` positions.
fn quiet_spec(material: Material, rule_set: RuleSet, mirror_block: u32) -> TableSpec {
    TableSpec::searched_quiet(material, rule_set, mirror_block)
}

/// `material`'s values `codes` (a version-1 stream) as the compressed
/// blocks of its version-2 table of `spec` (`crate::fill`).
fn v2_blocks(spec: &TableSpec, codes: &[u8], path: &Path) -> Result<BlockBytes, GenError> {
    v2_blocks_keeping(spec, codes, Arc::from([]), path)
}

/// [`v2_blocks`] of a table that stores the threat positions of indices
/// `threats_kept` all the same (`format::FLAG_THREATS_KEPT`).
fn v2_blocks_keeping(
    spec: &TableSpec,
    codes: &[u8],
    threats_kept: Arc<[u64]>,
    path: &Path,
) -> Result<BlockBytes, GenError> {
    let (raw, _) = v2_raw_blocks_keeping(spec, codes, 1, threats_kept)?;
    compressed(raw, spec.level, path)
}

/// The raw blocks of [`v2_blocks`], every `stride`-th one (0, stride,
/// ...), with the count of all blocks.
fn v2_raw_blocks<'a>(
    spec: &'a TableSpec,
    codes: &'a [u8],
    stride: usize,
) -> Result<(impl IndexedParallelIterator<Item = Vec<u8>> + 'a, usize), GenError> {
    v2_raw_blocks_keeping(spec, codes, stride, Arc::from([]))
}

/// [`v2_raw_blocks`] of a table that stores the threat positions of
/// indices `threats_kept` all the same.
fn v2_raw_blocks_keeping<'a>(
    spec: &'a TableSpec,
    codes: &'a [u8],
    stride: usize,
    threats_kept: Arc<[u64]>,
) -> Result<(impl IndexedParallelIterator<Item = Vec<u8>> + 'a, usize), GenError> {
    let material = spec.material;
    let rule = spec
        .search_rule()
        .ok_or_else(|| GenError::Internal("a version-2 spec searches positions".into()))?
        .keeping(threats_kept);
    let index = MaterialIndex::new(material);
    let per_block = u64::from(spec.positions_per_block);
    let count = index.count();
    let blocks = usize::try_from(count.div_ceil(per_block))
        .map_err(|_| GenError::Internal("too many blocks".into()))?;
    let raw = (0..blocks.div_ceil(stride)).into_par_iter().map(move |b| {
        let start = (b * stride) as u64 * per_block;
        let end = (start + per_block).min(count);
        crate::fill::searched_block(&rule, &index, &V1Codes(codes), start, end)
    });
    Ok((raw, blocks))
}

/// The bytes of `material`'s version-2 table of `spec` (values `codes`),
/// found from every eighth block where there are more than
/// [`SAMPLED_ABOVE`], as [`bytes_estimate`] does.
fn v2_estimate(spec: &TableSpec, codes: &[u8], path: &Path) -> Result<u64, GenError> {
    let (_, blocks) = v2_raw_blocks(spec, codes, 1)?;
    if blocks <= SAMPLED_ABOVE {
        return Ok(v2_blocks(spec, codes, path)?.file_bytes());
    }
    let (sampled, _) = v2_raw_blocks(spec, codes, 8)?;
    let count = sampled.len();
    let payload = compressed(sampled, spec.level, path)?.payload;
    let scaled = (payload as f64 * blocks as f64 / count as f64).round() as u64;
    Ok(format::HEADER_LEN as u64 + scaled + 12 * blocks as u64 + 8)
}

/// A version-1 WLD table of `material` in blocks of
/// `format::SEARCHED_WDL_BLOCK` positions.
fn whole_spec(material: Material, rule_set: RuleSet) -> TableSpec {
    TableSpec {
        positions_per_block: format::SEARCHED_WDL_BLOCK,
        ..TableSpec::new(material, rule_set, ValueKind::Wdl)
    }
}

/// Writes `material`'s version-1 table at `path` (`before` bytes, with
/// statistics `stats`), whose mirror is left out, as `whole` (still
/// version 1, every value stored, larger blocks) where that is smaller
/// than `plain` bytes (the table as a plain build writes it);
/// [`Compaction::KeptForMirror`] where it stays as it is, or, in a build
/// (whose file was written at a fast level), becomes the plain build's.
fn write_whole(
    pass: &Pass,
    path: &Path,
    material: Material,
    (before, stats): (u64, format::TableStats),
    (whole, plain): (&BlockBytes, u64),
) -> Result<Compaction, GenError> {
    if whole.file_bytes() >= plain {
        if pass.mode == Mode::Trusted {
            let folder = path.parent().unwrap_or(Path::new("."));
            recompress(folder, material, pass.rule_set)?;
        }
        return Ok(Compaction::KeptForMirror);
    }
    let after = if pass.writes() {
        let spec = whole_spec(material, pass.rule_set);
        whole.write(path, spec, MaterialIndex::new(material).count(), stats)?
    } else {
        whole.file_bytes()
    };
    Ok(Compaction::KeptWhole { before, after })
}

/// Rewrites `material`'s version-1 WLD table in `folder` (written at a
/// build's fast zstd level) at the default level: the file a build that
/// does not compact writes, byte for byte.
pub(crate) fn recompress(
    folder: &Path,
    material: Material,
    rule_set: RuleSet,
) -> Result<(), GenError> {
    let path = format::table_path(folder, material);
    let (_, reader) = read_table(&path)?;
    let header = reader.header().clone();
    if !stores_all(&header) {
        return Ok(());
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(&path, e))?;
    let spec = TableSpec::new(material, rule_set, ValueKind::Wdl);
    let bytes_per_block = (spec.positions_per_block / 4) as usize;
    let raw = codes.par_chunks(bytes_per_block).map(<[u8]>::to_vec);
    let blocks = compressed(raw, spec.level, &path)?;
    blocks.write(&path, spec, header.position_count, header.stats)?;
    Ok(())
}

/// [`write_whole`] for a table whose mirror a run before this one left
/// out, where it is still a version-1 table in smaller blocks.
fn keep_whole(pass: &Pass, path: &Path, material: Material) -> Result<Compaction, GenError> {
    let (before, reader) = read_table(path)?;
    let header = reader.header();
    if !stores_all(header) || header.positions_per_block >= format::SEARCHED_WDL_BLOCK {
        return Ok(Compaction::KeptForMirror);
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let whole = whole_blocks(&codes, material, pass.rule_set, path)?;
    write_whole(
        pass,
        path,
        material,
        (before, header.stats),
        (&whole, before),
    )
}

/// How many positions of `material`'s table (values `codes`, a version-1
/// stream) that store a value (capture positions do not) differ from the
/// one-ply search through the tables as they are.
fn differing_from_search(
    tb: &Tablebase,
    codes: &[u8],
    material: Material,
) -> Result<u64, GenError> {
    let (_, differing) = each_position(material, |pos, i, _| {
        if pos.has_capture() {
            return Ok(Look::Skipped);
        }
        let searched = tb.probe_capture(pos, &pos.legal_moves())?.wdl.code();
        Ok(Look::compared(
            searched,
            format::wdl_code(codes, i as usize),
        ))
    })?;
    Ok(differing.len() as u64)
}

/// The positions of `material`'s table (values `codes`) that its version-2
/// table leaves to the search, and the indices, increasing, of those whose
/// search through the tables as they are gives another value.
fn threats_differing(
    tb: &Tablebase,
    codes: &[u8],
    material: Material,
    rule_set: RuleSet,
) -> Result<(u64, Vec<u64>), GenError> {
    let rule = threats_spec(material, rule_set)
        .search_rule()
        .ok_or_else(|| GenError::Internal("a version-2 spec searches positions".into()))?;
    each_position(material, |pos, i, scratch| {
        if pos.has_capture() || !rule.leaves(pos, scratch) {
            return Ok(Look::Skipped);
        }
        let searched = tb.probe_capture(pos, &pos.legal_moves())?.wdl.code();
        Ok(Look::compared(
            searched,
            format::wdl_code(codes, i as usize),
        ))
    })
}

/// What [`each_position`]'s look found at one position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Not looked at.
    Skipped,
    /// The search gives the stored value.
    Agrees,
    /// The search gives another value.
    Differs,
}

impl Look {
    /// Whether the `searched` code agrees with the `stored` one.
    fn compared(searched: u8, stored: u8) -> Look {
        if searched == stored {
            Look::Agrees
        } else {
            Look::Differs
        }
    }
}

/// Runs `look` on every position of `material` (in parallel); the
/// positions it looked at and the indices, increasing, of those where it
/// found the search differs.
fn each_position(
    material: Material,
    look: impl Fn(&rules::Position, u64, &mut SearchScratch) -> Result<Look, GenError> + Sync,
) -> Result<(u64, Vec<u64>), GenError> {
    let index = MaterialIndex::new(material);
    const CHUNK: u64 = 1 << 14;
    let parts: Vec<(u64, Vec<u64>)> = (0..index.count().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut cursor = UnrankCursor::default();
            let mut scratch = SearchScratch::default();
            let (mut looked, mut differing) = (0, Vec::new());
            for i in c * CHUNK..((c + 1) * CHUNK).min(index.count()) {
                let pos = index.unrank_with(i, &mut cursor);
                let seen = look(&pos, i, &mut scratch)?;
                looked += u64::from(seen != Look::Skipped);
                if seen == Look::Differs {
                    differing.push(i);
                }
            }
            Ok((looked, differing))
        })
        .collect::<Result<_, GenError>>()?;
    let looked = parts.iter().map(|p| p.0).sum();
    Ok((looked, parts.into_iter().flat_map(|p| p.1).collect()))
}

/// Rewrites one table as version 2 where it can (see the module docs),
/// from `v2` if its blocks were compressed already; in a dry run, says
/// what that would give, writing nothing.
fn compact_table(
    pass: &Pass,
    path: &Path,
    material: Material,
    v2: Option<BlockBytes>,
) -> Result<Compaction, GenError> {
    let (before, reader) = read_table(path)?;
    let header = reader.header().clone();
    if !stores_all(&header) {
        return Ok(Compaction::Unchanged);
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let spec = threats_spec(material, pass.rule_set);
    let (searched, threats_kept) = match pass.check {
        Some(tb) => {
            let (searched, differing) = threats_differing(tb, &codes, material, pass.rule_set)?;
            if differing.len() > format::MAX_THREATS_KEPT as usize {
                return Ok(Compaction::NotSearchable(differing.len() as u64));
            }
            (Some(searched), differing)
        }
        None => (None, Vec::new()),
    };
    let blocks = match v2 {
        Some(blocks) if threats_kept.is_empty() => blocks,
        _ => v2_blocks_keeping(&spec, &codes, threats_kept.clone().into(), path)?,
    };
    let after = if pass.writes() {
        blocks.write_keeping(
            path,
            spec,
            header.position_count,
            header.stats,
            &threats_kept,
        )?
    } else {
        blocks.file_bytes()
    };
    Ok(Compaction::Rewritten {
        before,
        after,
        searched,
        threats_kept: threats_kept.len() as u64,
    })
}

pub(crate) fn io_error(path: &Path, e: &std::io::Error) -> GenError {
    GenError::io(path, std::io::Error::new(e.kind(), e.to_string()))
}

/// A version-1 stream of codes, read as the source of version-2 blocks
/// (capture positions are not marked: they are found where it matters).
struct V1Codes<'a>(&'a [u8]);

impl crate::fill::BlockSource for V1Codes<'_> {
    fn code(&self, i: u64) -> u8 {
        format::wdl_code(self.0, i as usize)
    }

    fn marked_capture(&self, _: u64) -> bool {
        false
    }

    fn next_differing(&self, from: u64, end: u64, code: u8) -> u64 {
        crate::fill::next_differing_packed(self.0, from, end, code)
    }
}
