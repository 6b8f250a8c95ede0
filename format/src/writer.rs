//! Writing a table file: values streamed in index order, blocks compressed
//! with zstd, the file written under a temporary name, synced, and renamed
//! into place so that a prober never sees half a table.

use std::fs::{self, File};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bitvec::field::BitField;
use bitvec::prelude::{BitVec, Lsb0};

use crate::error::FormatError;
use crate::header::{Header, TableStats, HEADER_LEN};
use crate::index::MaterialIndex;
use crate::material::Material;
use crate::value::{RuleSet, ValueKind};

/// Default positions per block for WLD tables (4 KiB uncompressed).
pub const DEFAULT_WDL_BLOCK: u32 = 16_384;
/// Default positions per block for distance tables (4 KiB uncompressed).
pub const DEFAULT_DISTANCE_BLOCK: u32 = 4_096;
/// Default positions per block for DTC files (64 KiB uncompressed): a
/// DTC probe is rarer than a value probe and its bytes vary more, so
/// larger blocks pay (the fmjd five-piece set's DTC files: 0.86x the
/// bytes of 16,384 positions a block, which were 0.75x those of 4,096;
/// `examples/dtc_study.rs`). Older files in blocks of 16,384 read as
/// they are: the header says the block size.
pub const DEFAULT_DTC_BLOCK: u32 = 65_536;
/// Positions per block of a WLD table whose threat positions are searched
/// (16 KiB uncompressed): the longer runs pay for bigger blocks (on the
/// five-piece set 0.86x the bytes of 16,384-position blocks).
pub const SEARCHED_WDL_BLOCK: u32 = 65_536;
/// Default zstd level.
pub const DEFAULT_LEVEL: i32 = 12;

/// What a table holds, fixed before the first value is written.
#[derive(Clone, Copy, Debug)]
pub struct TableSpec {
    /// The material (White to move).
    pub material: Material,
    /// The rules it was built under.
    pub rule_set: RuleSet,
    /// WLD or distance.
    pub value_kind: ValueKind,
    /// Positions per compressed block (a positive multiple of 4).
    pub positions_per_block: u32,
    /// zstd compression level.
    pub level: i32,
    /// A version-2 WLD table whose threat positions hold "don't care"
    /// ([`crate::FLAG_THREATS_SEARCHED`]).
    pub threats_searched: bool,
    /// A version-2 WLD table whose positions without a capture hold
    /// "don't care" ([`crate::FLAG_QUIET_SEARCHED`]).
    pub quiet_searched: bool,
    /// The positions a block of the mirror's table holds, where the
    /// positions whose search spreads are stored
    /// ([`crate::FLAG_SPREAD_STORED`]).
    pub spread_unit: Option<u32>,
}

impl TableSpec {
    /// A spec with the default block size and level for `value_kind`.
    pub fn new(material: Material, rule_set: RuleSet, value_kind: ValueKind) -> TableSpec {
        TableSpec {
            material,
            rule_set,
            value_kind,
            positions_per_block: match value_kind {
                ValueKind::Wdl => DEFAULT_WDL_BLOCK,
                ValueKind::Distance => DEFAULT_DISTANCE_BLOCK,
                ValueKind::Dtc => DEFAULT_DTC_BLOCK,
            },
            level: DEFAULT_LEVEL,
            threats_searched: false,
            quiet_searched: false,
            spread_unit: None,
        }
    }

    /// The spec of a version-2 WLD table whose threat positions are
    /// searched, in blocks of [`SEARCHED_WDL_BLOCK`] positions, those
    /// whose search spreads over blocks of `spread_unit` positions of the
    /// mirror's table stored where it is given.
    pub fn searched_threats(
        material: Material,
        rule_set: RuleSet,
        spread_unit: Option<u32>,
    ) -> TableSpec {
        TableSpec {
            positions_per_block: SEARCHED_WDL_BLOCK,
            threats_searched: true,
            spread_unit,
            ..TableSpec::new(material, rule_set, ValueKind::Wdl)
        }
    }

    /// The spec of a version-2 WLD table whose positions without a
    /// capture are searched through its mirror's table, except those whose
    /// search spreads over blocks of `spread_unit` positions of it, in
    /// blocks of [`SEARCHED_WDL_BLOCK`] positions.
    pub fn searched_quiet(material: Material, rule_set: RuleSet, spread_unit: u32) -> TableSpec {
        TableSpec {
            positions_per_block: SEARCHED_WDL_BLOCK,
            quiet_searched: true,
            spread_unit: Some(spread_unit),
            ..TableSpec::new(material, rule_set, ValueKind::Wdl)
        }
    }

    /// The rule by which a table of this spec leaves positions to the
    /// search (`None` where it leaves none).
    pub fn search_rule(&self) -> Option<crate::SearchRule> {
        crate::SearchRule::new(
            self.material,
            self.threats_searched,
            self.quiet_searched,
            self.spread_unit,
        )
    }
}

/// The name a table is written under before it is complete. It never ends
/// in `.dtb`, so no reader mistakes it for a table.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
}

/// Streams the values of one table into a file.
pub struct TableWriter {
    spec: TableSpec,
    count: u64,
    final_path: PathBuf,
    temp_path: PathBuf,
    out: Option<BufWriter<File>>,
    offset: u64,
    offsets: Vec<u64>,
    crcs: Vec<u32>,
    body_crc: crc32fast::Hasher,
    /// The uncompressed stream of the current block: distance bytes, or
    /// WLD codes packed two bits each (position `i` in bits `2i, 2i+1`).
    raw: Vec<u8>,
    codes: BitVec<u8, Lsb0>,
    in_block: u32,
    written: u64,
    last: u8,
    compressor: zstd::bulk::Compressor<'static>,
    finished: bool,
}

impl TableWriter {
    /// Starts writing the table that will appear at `path`.
    pub fn create(path: &Path, spec: TableSpec) -> Result<TableWriter, FormatError> {
        if spec.positions_per_block == 0
            || !spec.positions_per_block.is_multiple_of(4)
            || spec.positions_per_block > crate::header::MAX_POSITIONS_PER_BLOCK
        {
            return Err(FormatError::Writer(
                "block size must be a positive multiple of 4, at most 4 Mi positions".into(),
            ));
        }
        let temp_path = temporary_path(path);
        let file = File::create(&temp_path).map_err(|e| FormatError::io(&temp_path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0u8; HEADER_LEN])
            .map_err(|e| FormatError::io(&temp_path, e))?;
        let compressor =
            zstd::bulk::Compressor::new(spec.level).map_err(|e| FormatError::io(&temp_path, e))?;
        Ok(TableWriter {
            spec,
            count: MaterialIndex::new(spec.material).count(),
            final_path: path.to_path_buf(),
            temp_path,
            out: Some(out),
            offset: HEADER_LEN as u64,
            offsets: vec![HEADER_LEN as u64],
            crcs: Vec::new(),
            body_crc: crc32fast::Hasher::new(),
            raw: Vec::new(),
            codes: BitVec::new(),
            in_block: 0,
            written: 0,
            last: match spec.value_kind {
                ValueKind::Wdl => 1,
                ValueKind::Distance | ValueKind::Dtc => 0,
            },
            compressor,
            finished: false,
        })
    }

    /// Appends the value of the next position: a WLD code (0 loss, 1 draw,
    /// 2 win) or a distance byte, or `None` for a position whose stored
    /// value does not matter (a capture position, or a searched threat).
    pub fn push(&mut self, value: Option<u8>) -> Result<(), FormatError> {
        if self.written == self.count {
            return Err(FormatError::Writer(format!(
                "more than {} values for {}",
                self.count, self.spec.material
            )));
        }
        let v = value.unwrap_or(self.last);
        match self.spec.value_kind {
            ValueKind::Wdl => {
                if v > 2 {
                    return Err(FormatError::Writer(format!("WLD code {v} out of range")));
                }
                let at = self.codes.len();
                self.codes.resize(at + 2, false);
                self.codes[at..].store_le::<u8>(v);
            }
            ValueKind::Distance | ValueKind::Dtc => self.raw.push(v),
        }
        self.last = v;
        self.written += 1;
        self.in_block += 1;
        if self.in_block == self.spec.positions_per_block {
            self.flush_block()?;
        }
        Ok(())
    }

    /// The positions of a full block.
    pub fn positions_per_block(&self) -> u32 {
        self.spec.positions_per_block
    }

    /// Appends a whole block of `positions` values compressed elsewhere
    /// (with zstd at this writer's level, from the same uncompressed stream
    /// [`TableWriter::push`] would build, capture positions filled in), so
    /// that blocks can be compressed in parallel. Blocks must come whole:
    /// `positions_per_block` values each, fewer only for the last.
    pub fn push_compressed_block(
        &mut self,
        compressed: &[u8],
        positions: u64,
    ) -> Result<(), FormatError> {
        let full = u64::from(self.spec.positions_per_block);
        let left = self.count - self.written;
        if self.in_block != 0
            || positions == 0
            || positions > left
            || (positions < full && positions != left)
        {
            return Err(FormatError::Writer(format!(
                "a compressed block of {positions} values does not fit at value {}",
                self.written
            )));
        }
        self.crcs.push(crc32fast::hash(compressed));
        self.write_body(compressed)?;
        self.offsets.push(self.offset);
        self.written += positions;
        Ok(())
    }

    fn write_body(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        self.body_crc.update(bytes);
        self.offset += bytes.len() as u64;
        let out = self.out.as_mut().expect("open until finish");
        out.write_all(bytes)
            .map_err(|e| FormatError::io(&self.temp_path, e))
    }

    fn flush_block(&mut self) -> Result<(), FormatError> {
        if self.in_block == 0 {
            return Ok(());
        }
        if self.spec.value_kind == ValueKind::Wdl {
            self.raw.clear();
            self.raw.extend_from_slice(self.codes.as_raw_slice());
            self.codes.clear();
        }
        let compressed = self
            .compressor
            .compress(&self.raw)
            .map_err(|e| FormatError::io(&self.temp_path, e))?;
        self.crcs.push(crc32fast::hash(&compressed));
        self.write_body(&compressed)?;
        self.offsets.push(self.offset);
        self.raw.clear();
        self.in_block = 0;
        Ok(())
    }

    /// Writes the block index and header, syncs, and renames the file into
    /// place. `stats` are the statistics for White to move.
    pub fn finish(self, stats: TableStats) -> Result<PathBuf, FormatError> {
        self.finish_keeping(stats, &[])
    }

    /// [`TableWriter::finish`] for a table with searched threats that
    /// stores the threat positions of indices `threats_kept` all the same
    /// ([`crate::FLAG_THREATS_KEPT`]: strictly increasing, at most
    /// [`crate::MAX_THREATS_KEPT`]); the caller pushed their values.
    pub fn finish_keeping(
        mut self,
        stats: TableStats,
        threats_kept: &[u64],
    ) -> Result<PathBuf, FormatError> {
        self.check_threats_kept(threats_kept)?;
        if self.written != self.count {
            return Err(FormatError::Writer(format!(
                "{} values written, {} has {}",
                self.written, self.spec.material, self.count
            )));
        }
        self.flush_block()?;
        let index_offset = self.offset;
        let mut index = Vec::with_capacity(self.offsets.len() * 8 + self.crcs.len() * 4);
        for o in &self.offsets {
            index.extend_from_slice(&o.to_le_bytes());
        }
        for c in &self.crcs {
            index.extend_from_slice(&c.to_le_bytes());
        }
        let index_crc = crc32fast::hash(&index);
        self.write_body(&index)?;
        let kept: Vec<u8> = threats_kept.iter().flat_map(|i| i.to_le_bytes()).collect();
        self.write_body(&kept)?;
        let header = Header {
            material: self.spec.material,
            rule_set: self.spec.rule_set,
            value_kind: self.spec.value_kind,
            positions_per_block: self.spec.positions_per_block,
            position_count: self.count,
            block_count: self.crcs.len() as u64,
            index_offset,
            file_length: self.offset,
            stats,
            index_crc,
            body_crc: self.body_crc.clone().finalize(),
            from_mirror: false,
            threats_searched: self.spec.threats_searched,
            quiet_searched: self.spec.quiet_searched,
            spread_unit: self.spec.spread_unit,
            threats_kept: threats_kept.len() as u32,
            threats_kept_crc: if threats_kept.is_empty() {
                0
            } else {
                crc32fast::hash(&kept)
            },
        };
        let temp = self.temp_path.clone();
        let io = |e| FormatError::io(&temp, e);
        let out = self.out.take().expect("open until finish");
        let mut file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&header.to_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        fs::rename(&temp, &self.final_path).map_err(|e| FormatError::io(&self.final_path, e))?;
        sync_parent(&self.final_path);
        self.finished = true;
        Ok(self.final_path.clone())
    }
}

/// Writes, atomically, the DTC file (`kind` [`ValueKind::Dtc`]) or WLD
/// table ([`ValueKind::Wdl`], version 2) of `material` that stores no
/// values (see [`crate::header::FLAG_FROM_MIRROR`]): its header, with
/// `stats` (those of the values it stands for), and an empty block index.
pub fn write_from_mirror(
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    kind: ValueKind,
    stats: TableStats,
) -> Result<PathBuf, FormatError> {
    let index = (HEADER_LEN as u64).to_le_bytes();
    let header = Header {
        material,
        rule_set,
        value_kind: kind,
        positions_per_block: TableSpec::new(material, rule_set, kind).positions_per_block,
        position_count: MaterialIndex::new(material).count(),
        block_count: 0,
        index_offset: HEADER_LEN as u64,
        file_length: (HEADER_LEN + index.len()) as u64,
        stats,
        index_crc: crc32fast::hash(&index),
        body_crc: crc32fast::hash(&index),
        from_mirror: true,
        threats_searched: false,
        quiet_searched: false,
        spread_unit: None,
        threats_kept: 0,
        threats_kept_crc: 0,
    };
    let temp = temporary_path(path);
    let io = |e| FormatError::io(&temp, e);
    let mut file = File::create(&temp).map_err(io)?;
    file.write_all(&header.to_bytes()).map_err(io)?;
    file.write_all(&index).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    fs::rename(&temp, path).map_err(|e| FormatError::io(path, e))?;
    sync_parent(path);
    Ok(path.to_path_buf())
}

impl TableWriter {
    /// Threats may be kept by a table that searches its threats, in
    /// strictly increasing order of index below its count, at most
    /// [`crate::MAX_THREATS_KEPT`] of them.
    fn check_threats_kept(&self, kept: &[u64]) -> Result<(), FormatError> {
        if kept.is_empty() {
            return Ok(());
        }
        let fits = self.spec.threats_searched
            && kept.len() <= crate::MAX_THREATS_KEPT as usize
            && kept.windows(2).all(|w| w[0] < w[1])
            && kept.last().is_some_and(|&i| i < self.count);
        if !fits {
            return Err(FormatError::Writer(
                "threats are kept by a table that searches its threats, in increasing order of index, at most 2^20 of them".into(),
            ));
        }
        Ok(())
    }
}

impl Drop for TableWriter {
    /// An unfinished table leaves no file behind.
    fn drop(&mut self) {
        if !self.finished {
            let _ = fs::remove_file(&self.temp_path);
        }
    }
}

/// Syncs the directory holding `path` so the rename survives a crash
/// (best effort: not every platform can open a directory).
pub fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}
