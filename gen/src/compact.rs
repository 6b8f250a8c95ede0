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
//! With [`Sides::One`], a pair of mirror materials may keep one table
//! only: the other stores nothing, and the prober answers each of its
//! positions by a one-ply search over the kept one. That is decided pair
//! by pair, by the bytes it saves against both tables as version 2, in
//! bits a position of the table left out (a probe of that table costs a
//! search, about 15 times a stored probe): so the pairs where one side
//! compresses far better than the other go first. Before a table is left
//! out, every one of its positions is searched and compared with its
//! stored value (all or nothing, as above).

use std::path::{Path, PathBuf};

use format::{
    is_searched_threat, may_come_from_mirror, Header, Material, MaterialIndex, RuleSet,
    TableReader, TableSpec, TableWriter, UnrankCursor, ValueKind,
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
        /// Threat positions left to the search (counted only where each
        /// was checked: `None` in a dry run or a build).
        searched: Option<u64>,
    },
    /// Left as it is: a distance table, or already version 2.
    Unchanged,
    /// Left as it is: this many threat positions have a value that the
    /// one-ply search would not give.
    NotSearchable(u64),
    /// Rewritten as a file that stores no values: its mirror's table
    /// answers every position by a one-ply search.
    LeftOut {
        /// Bytes before.
        before: u64,
        /// Bytes after (a header and an empty index).
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

/// Which sides of a pair of mirror materials keep a table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sides {
    /// Both (each rewritten as version 2 where it can be).
    Both,
    /// One table of a pair, the other left to a one-ply search over it
    /// (see the module docs), where that saves at least `min_saving` bits
    /// a position of the table left out against keeping both as version
    /// 2; both as version 2 elsewhere. The table left out is the one
    /// whose mirror, stored whole, takes fewer bytes.
    One {
        /// Bits a position of the table left out, at least; 0 leaves one
        /// side out wherever that makes the pair any smaller.
        min_saving: f64,
    },
}

impl Sides {
    /// One side of every pair where that makes the pair smaller.
    pub const SMALLER_ONLY: Sides = Sides::One { min_saving: 0.0 };
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

/// A table weighed for leaving out, with the bits a position of it that
/// leaving it out saves (see [`CompactedTable::one_side_saving`]).
type Weighed = (Material, f64);

/// Blocks compressed at a time (in parallel).
const BATCH: u64 = 16;

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
    let tb = Tablebase::open(dir, rule_set)?;
    let mut out = Vec::with_capacity(materials.len());
    let mut weighed = Vec::new();
    if let Sides::One { min_saving } = sides {
        for &material in &materials {
            let mirror = material.mirrored();
            if material < mirror && materials.contains(&mirror) {
                let pass = Pass {
                    tb: &tb,
                    folder: &folder,
                    rule_set,
                    dry_run,
                };
                let (done, saving) = leave_out_one(&pass, material, min_saving)?;
                out.extend(done);
                weighed.extend(saving);
            }
        }
    }
    for material in materials {
        if out.iter().any(|t| t.material == material) {
            continue;
        }
        let path = format::table_path(&folder, material);
        let outcome = if mirror_left_out(&folder, material) {
            keep_whole(&path, material, rule_set, dry_run)?
        } else {
            compact_table(&tb, &path, material, rule_set, dry_run)?
        };
        out.push(CompactedTable {
            material,
            path,
            outcome,
            one_side_saving: None,
        });
    }
    for t in &mut out {
        if let Some(&(_, bits)) = weighed.iter().find(|(m, _)| *m == t.material) {
            t.one_side_saving = Some(bits);
        }
    }
    out.sort_by_key(|t| t.material.build_key());
    if !dry_run && folder.join(format::manifest::MANIFEST).exists() {
        format::manifest::write(&folder, rule_set)?;
    }
    Ok(out)
}

/// Whether the mirror of `material` has a table in `folder` that stores
/// no values (then `material`'s must store all of its own).
fn mirror_left_out(folder: &Path, material: Material) -> bool {
    let path = format::table_path(folder, material.mirrored());
    format::read_header(&path).is_ok_and(|h| h.from_mirror)
}

/// The header of a table to compact, read and checked whole.
fn read_table(path: &Path) -> Result<(u64, TableReader<Vec<u8>>), GenError> {
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
    h.value_kind == ValueKind::Wdl && !h.threats_searched && !h.from_mirror
}

/// Leaves out one table of the pair `material` and its mirror where both
/// are version-1 WLD tables, that saves at least `min_saving` bits a
/// position of the table left out (see [`Sides::One`]), and every position
/// of that table is found by a search; the outcome of each side, or
/// nothing where the pair does not qualify, and the table weighed for
/// leaving out with the bits a position that saves (where weighed).
fn leave_out_one(
    pass: &Pass,
    material: Material,
    min_saving: f64,
) -> Result<(Vec<CompactedTable>, Option<Weighed>), GenError> {
    let Pass {
        tb,
        folder,
        rule_set,
        dry_run,
    } = *pass;
    let pair = [material, material.mirrored()];
    if !may_come_from_mirror(material) {
        return Ok((Vec::new(), None));
    }
    let paths = pair.map(|m| format::table_path(folder, m));
    let headers = [&paths[0], &paths[1]].map(|p| format::read_header(p));
    let [Ok(h0), Ok(h1)] = headers else {
        return Ok((Vec::new(), None));
    };
    if !stores_all(&h0) || !stores_all(&h1) {
        return Ok((Vec::new(), None));
    }
    let tables = [read_table(&paths[0])?, read_table(&paths[1])?];
    let (k, saving) = side_to_leave_out(&tables, pair, &paths, rule_set)?;
    let weighed = Some((pair[k], saving));
    if saving <= 0.0 || saving < min_saving {
        return Ok((Vec::new(), weighed));
    }
    let (before, reader) = &tables[k];
    let differing = if dry_run {
        0
    } else {
        differing_from_search(tb, reader, pair[k], &paths[k])?
    };
    let outcomes = if dry_run {
        let after = (format::HEADER_LEN + 8) as u64;
        let kept = keep_whole(&paths[1 - k], pair[1 - k], rule_set, true)?;
        [
            Compaction::LeftOut {
                before: *before,
                after,
            },
            kept,
        ]
    } else if differing > 0 {
        [
            Compaction::MirrorNotSearchable(differing),
            Compaction::Unchanged,
        ]
    } else {
        // The table kept first: a run stopped between the two leaves a
        // pair that a second run completes.
        let kept = keep_whole(&paths[1 - k], pair[1 - k], rule_set, false)?;
        format::write_from_mirror(
            &paths[k],
            pair[k],
            rule_set,
            ValueKind::Wdl,
            reader.header().stats,
        )
        .map_err(|e| GenError::in_file(&paths[k], e))?;
        let after = std::fs::metadata(&paths[k])
            .map_err(|e| GenError::io(&paths[k], e))?
            .len();
        [
            Compaction::LeftOut {
                before: *before,
                after,
            },
            kept,
        ]
    };
    let [left, kept] = outcomes;
    let done = vec![
        CompactedTable {
            material: pair[k],
            path: paths[k].clone(),
            outcome: left,
            one_side_saving: None,
        },
        CompactedTable {
            material: pair[1 - k],
            path: paths[1 - k].clone(),
            outcome: kept,
            one_side_saving: None,
        },
    ];
    Ok((done, weighed))
}

/// What a pass of [`compact`] works with.
struct Pass<'a> {
    tb: &'a Tablebase,
    folder: &'a Path,
    rule_set: RuleSet,
    /// Check nothing and write nothing (see [`compact_dry_run`]).
    dry_run: bool,
}

/// Which table of `pair` (version 1, read whole as `tables`) would be
/// left out: the one whose mirror takes fewer bytes stored whole; and the
/// bits a position of it that saves against both tables as version 2
/// (their sizes found by writing them to memory, threats unchecked;
/// negative where it costs bytes).
fn side_to_leave_out(
    tables: &[(u64, TableReader<Vec<u8>>); 2],
    pair: [Material; 2],
    paths: &[PathBuf; 2],
    rule_set: RuleSet,
) -> Result<(usize, f64), GenError> {
    let mut both = 0;
    let mut whole = [0; 2];
    for s in 0..2 {
        let (bytes, reader) = &tables[s];
        let codes = reader
            .decode_all_raw()
            .map_err(|e| GenError::in_file(&paths[s], e))?;
        let spec = TableSpec::searched_threats(pair[s], rule_set);
        let mut blocks = BlockBytes::default();
        each_v2_block(None, pair[s], &codes, spec, &paths[s], |b, _| {
            blocks.add(&b.bytes);
            Ok(())
        })?;
        both += blocks.file_bytes();
        whole[s] = whole_blocks(&codes, pair[s], rule_set, &paths[s])?
            .file_bytes()
            .min(*bytes);
    }
    // Leaving out side k keeps its mirror whole.
    let k = usize::from(whole[0] <= whole[1]);
    let one = whole[1 - k] + format::HEADER_LEN as u64 + 8;
    let positions = tables[k].1.header().position_count.max(1);
    Ok((k, (both as f64 - one as f64) * 8.0 / positions as f64))
}

/// The compressed blocks of a table about to be written, and what its
/// file will take.
#[derive(Default)]
struct BlockBytes {
    blocks: Vec<Vec<u8>>,
    payload: u64,
    count: u64,
}

impl BlockBytes {
    /// Counts a block without keeping it.
    fn add(&mut self, block: &[u8]) {
        self.payload += block.len() as u64;
        self.count += 1;
    }

    /// Bytes of the file: header, blocks, and the block index (an offset
    /// a block and one more, a CRC a block).
    fn file_bytes(&self) -> u64 {
        format::HEADER_LEN as u64 + self.payload + 12 * self.count + 8
    }
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
    let blocks: Vec<Vec<u8>> = codes
        .par_chunks(bytes_per_block)
        .map_init(
            || zstd::bulk::Compressor::new(spec.level),
            |compressor, raw| {
                let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                compressor.compress(raw).map_err(|e| io_error(path, &e))
            },
        )
        .collect::<Result<_, GenError>>()?;
    let mut out = BlockBytes::default();
    for b in &blocks {
        out.add(b);
    }
    out.blocks = blocks;
    Ok(out)
}

/// A version-1 WLD table of `material` in blocks of
/// `format::SEARCHED_WDL_BLOCK` positions.
fn whole_spec(material: Material, rule_set: RuleSet) -> TableSpec {
    TableSpec {
        positions_per_block: format::SEARCHED_WDL_BLOCK,
        ..TableSpec::new(material, rule_set, ValueKind::Wdl)
    }
}

/// Rewrites `material`'s version-1 table at `path`, whose mirror is left
/// out, in blocks of `format::SEARCHED_WDL_BLOCK` positions (still
/// version 1, every value stored) where it has smaller blocks and that
/// makes it smaller; [`Compaction::KeptForMirror`] where it is left as it
/// is. With `dry_run`, what that would give, writing nothing.
fn keep_whole(
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    dry_run: bool,
) -> Result<Compaction, GenError> {
    let (before, reader) = read_table(path)?;
    let header = reader.header();
    if !stores_all(header) || header.positions_per_block >= format::SEARCHED_WDL_BLOCK {
        return Ok(Compaction::KeptForMirror);
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let blocks = whole_blocks(&codes, material, rule_set, path)?;
    if blocks.file_bytes() >= before {
        return Ok(Compaction::KeptForMirror);
    }
    if dry_run {
        let after = blocks.file_bytes();
        return Ok(Compaction::KeptWhole { before, after });
    }
    let spec = whole_spec(material, rule_set);
    let per_block = u64::from(spec.positions_per_block);
    let count = header.position_count;
    let mut writer = TableWriter::create(path, spec)?;
    for (b, bytes) in blocks.blocks.iter().enumerate() {
        let positions = (count - b as u64 * per_block).min(per_block);
        writer.push_compressed_block(bytes, positions)?;
    }
    writer.finish(reader.header().stats)?;
    let after = std::fs::metadata(path)
        .map_err(|e| GenError::io(path, e))?
        .len();
    Ok(Compaction::KeptWhole { before, after })
}

/// How many positions of `material`'s table (`reader`, at `path`) that
/// store a value (capture positions do not) differ from the one-ply
/// search through the tables as they are.
fn differing_from_search(
    tb: &Tablebase,
    reader: &TableReader<Vec<u8>>,
    material: Material,
    path: &Path,
) -> Result<u64, GenError> {
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let index = MaterialIndex::new(material);
    const CHUNK: u64 = 1 << 14;
    (0..index.count().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut cursor = UnrankCursor::default();
            let mut differing = 0;
            for i in c * CHUNK..((c + 1) * CHUNK).min(index.count()) {
                let pos = index.unrank_with(i, &mut cursor);
                if pos.has_capture() {
                    continue;
                }
                let legal = pos.legal_moves();
                let searched = tb.probe_capture(&pos, &legal)?.wdl.code();
                differing += u64::from(searched != format::wdl_code(&codes, i as usize));
            }
            Ok(differing)
        })
        .sum()
}

/// Rewrites one table as version 2 where it can (see the module docs);
/// with `dry_run`, says what that would give (threats unchecked), writing
/// nothing.
fn compact_table(
    tb: &Tablebase,
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    dry_run: bool,
) -> Result<Compaction, GenError> {
    let (before, reader) = read_table(path)?;
    let header = reader.header().clone();
    if !stores_all(&header) {
        return Ok(Compaction::Unchanged);
    }
    let codes = reader
        .decode_all_raw()
        .map_err(|e| GenError::in_file(path, e))?;
    let spec = TableSpec::searched_threats(material, rule_set);
    if dry_run {
        let mut blocks = BlockBytes::default();
        each_v2_block(None, material, &codes, spec, path, |block, _| {
            blocks.add(&block.bytes);
            Ok(())
        })?;
        let after = blocks.file_bytes();
        return Ok(Compaction::Rewritten {
            before,
            after,
            searched: None,
        });
    }
    let mut writer = TableWriter::create(path, spec)?;
    let (mut searched, mut differing) = (0, 0);
    each_v2_block(
        Some(tb),
        material,
        &codes,
        spec,
        path,
        |block, positions| {
            searched += block.searched;
            differing += block.differing;
            writer.push_compressed_block(&block.bytes, positions)?;
            Ok(())
        },
    )?;
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
        searched: Some(searched),
    })
}

/// Hands each block of `material`'s version-2 table (values from the
/// version-1 stream `codes`, laid out by `spec`), compressed, to `sink` in
/// order with its number of positions, `BATCH` blocks compressed at a
/// time. With `check`, each searched threat is searched through it and
/// compared with its stored value.
fn each_v2_block(
    check: Option<&Tablebase>,
    material: Material,
    codes: &[u8],
    spec: TableSpec,
    path: &Path,
    mut sink: impl FnMut(&BlockOut, u64) -> Result<(), GenError>,
) -> Result<(), GenError> {
    let index = MaterialIndex::new(material);
    let per_block = u64::from(spec.positions_per_block);
    let blocks = index.count().div_ceil(per_block);
    for first in (0..blocks).step_by(BATCH as usize) {
        let range: Vec<u64> = (first..(first + BATCH).min(blocks)).collect();
        let done: Vec<BlockOut> = range
            .par_iter()
            .map_init(
                || zstd::bulk::Compressor::new(spec.level),
                |compressor, &b| {
                    let start = b * per_block;
                    let end = (start + per_block).min(index.count());
                    let block = fill_block(check, &index, codes, start, end)?;
                    let compressor = compressor.as_mut().map_err(|e| io_error(path, e))?;
                    let bytes = compressor
                        .compress(&block.raw)
                        .map_err(|e| io_error(path, &e))?;
                    Ok(BlockOut { bytes, ..block })
                },
            )
            .collect::<Result<_, GenError>>()?;
        for (block, b) in done.iter().zip(&range) {
            sink(block, (index.count() - b * per_block).min(per_block))?;
        }
    }
    Ok(())
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
}

/// The packed codes of positions `start..end` (a multiple of 4 from
/// `start`), read from the version-1 stream `codes`, as version 2 stores
/// them (`crate::fill`). With `check`, every searched threat is counted
/// and searched, and the search compared with its stored value; without,
/// the fill is lazy and counts nothing.
fn fill_block(
    check: Option<&Tablebase>,
    index: &MaterialIndex,
    codes: &[u8],
    start: u64,
    end: u64,
) -> Result<BlockOut, GenError> {
    let raw = crate::fill::searched_block(index, &V1Codes(codes), start, end);
    let Some(tb) = check else {
        return Ok(BlockOut {
            raw,
            bytes: Vec::new(),
            searched: 0,
            differing: 0,
        });
    };
    let mut cursor = UnrankCursor::default();
    let mut moves = Vec::new();
    let (mut searched, mut differing) = (0, 0);
    for i in start..end {
        let pos = index.unrank_with(i, &mut cursor);
        if !pos.has_capture() && is_searched_threat(&pos, &mut moves) {
            searched += 1;
            let legal = pos.legal_moves();
            let code = format::wdl_code(codes, i as usize);
            differing += u64::from(tb.probe_capture(&pos, &legal)?.wdl.code() != code);
        }
    }
    Ok(BlockOut {
        raw,
        bytes: Vec::new(),
        searched,
        differing,
    })
}
