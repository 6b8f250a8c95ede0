//! The 128-byte table header (all integers little endian).
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 8 | magic `DRTB\r\n\x1a\n` |
//! | 8 | 4 | format version (1; 2 for a WLD table with flag bit 0 or 2) |
//! | 12 | 4 | white men, white kings, black men, black kings (one byte each) |
//! | 16 | 1 | rule set: 0 pure, 1 fmjd, 2 fmjd-diagonal |
//! | 17 | 1 | value kind: 0 WLD (2 bits), 1 distance (1 byte) |
//! | 18 | 1 | compression: 1 zstd |
//! | 19 | 1 | flags: bit 0 in a DTC file or (version 2) WLD table that stores nothing: its values come from its mirror's by a one-ply search (then 0 blocks); bit 1 in a DTC file that records the 25-move rule at a fresh count (bytes 104..116); bit 2 (version 2, WLD tables only) the threat positions of `format::is_searched_threat` are "don't care"; bit 4 (version 2, WLD, with bit 3) every position without a capture is "don't care", found through the mirror's table; bit 3 (version 2, WLD, with bit 2 or 4) of those, the positions whose search spreads (`format::search_spreads`) are stored, bytes 104..108 giving the blocks it counts in; bit 5 (version 2, WLD, with bit 2) the threats whose search would give another value are stored, their indices listed after the block index (bytes 108..116); any other bit is refused |
//! | 20 | 4 | positions per block |
//! | 24 | 8 | position count (White to move) |
//! | 32 | 8 | first position (0; reserved for slices of a material) |
//! | 40 | 8 | block count |
//! | 48 | 8 | offset of the block index |
//! | 56 | 24 | wins, draws, losses (White to move, captures resolved) |
//! | 80 | 4 | longest win in plies (`u32::MAX`: none or not a distance table) |
//! | 84 | 4 | longest loss in plies (same) |
//! | 88 | 8 | file length |
//! | 96 | 4 | CRC-32 of the block index |
//! | 100 | 4 | CRC-32 of bytes 128..file length |
//! | 104 | 8 | with flag bit 1: positions whose DTC at a fresh count is above the 25-move rule's 50 plies (zero otherwise) |
//! | 112 | 4 | with flag bit 1: the largest DTC at a fresh count, those included (zero otherwise) |
//! | 104 | 4 | with flag bit 3: the positions a block of the mirror's table holds, which `format::search_spreads` counts in (zero otherwise) |
//! | 108 | 4 | with flag bit 5: the count `E` of threats kept (zero otherwise) |
//! | 112 | 4 | with flag bit 5: the CRC-32 of the list of threats kept (zero otherwise) |
//! | 116 | 8 | reserved, zero (refused otherwise) |
//! | 124 | 4 | CRC-32 of bytes 0..124 |

use crate::error::FormatError;
use crate::index::MaterialIndex;
use crate::material::Material;
use crate::value::{RuleSet, ValueKind};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"DRTB\r\n\x1a\n";
/// The newest format version, written by this code for a WLD table whose
/// threat positions are searched ([`FLAG_THREATS_SEARCHED`]) or that
/// stores no values ([`FLAG_FROM_MIRROR`]); every other
/// file is written as version [`OLDEST_FORMAT_VERSION`], which readers
/// of both versions read.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this code reads (and writes where version 2
/// adds nothing).
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Bytes of the header.
pub const HEADER_LEN: usize = 128;
/// The compression code for zstd.
pub const COMPRESSION_ZSTD: u8 = 1;
const NONE32: u32 = u32::MAX;
/// The header flag of a file whose values are not stored: the prober
/// finds each one by a one-ply search over the mirror material's file of
/// the same kind (the position's moves that convert nothing all lead
/// there). DTC files (version 1) and WLD tables (version 2) may hold it.
pub const FLAG_FROM_MIRROR: u8 = 1;
/// The header flag of a DTC file that records, at a fresh count of the
/// 25-move rule, how many positions have a DTC above its limit and the
/// largest DTC ([`TableStats::dtc_above_limit`]).
pub const FLAG_KINGS_ONLY_COUNTS: u8 = 2;
/// The header flag of a version-2 WLD table whose threat positions
/// ([`crate::is_searched_threat`]) hold "don't care": the prober finds
/// their values by a one-ply search.
pub const FLAG_THREATS_SEARCHED: u8 = 4;
/// The header flag of a version-2 WLD table (with
/// [`FLAG_THREATS_SEARCHED`] or [`FLAG_QUIET_SEARCHED`]) that stores the
/// positions it would leave to the search where that search would read
/// more than two blocks of its mirror's table
/// ([`crate::search_spreads`]); bytes 104..108 hold the positions a block
/// of that table holds ([`Header::spread_unit`]).
pub const FLAG_SPREAD_STORED: u8 = 8;
/// The header flag of a version-2 WLD table that leaves every position
/// without a capture to a one-ply search through its mirror's table,
/// except those its [`FLAG_SPREAD_STORED`] (always set with it) keeps.
pub const FLAG_QUIET_SEARCHED: u8 = 16;
/// The header flag of a version-2 WLD table with
/// [`FLAG_THREATS_SEARCHED`] that stores some threat positions all the
/// same: those whose one-ply search would not give their value (at the
/// 25-move rule's limit, say). Their indices, `u64` each, strictly
/// increasing, follow the block index and end the file; bytes 108..112
/// hold how many ([`Header::threats_kept`], 1 to [`MAX_THREATS_KEPT`])
/// and bytes 112..116 the list's CRC-32.
pub const FLAG_THREATS_KEPT: u8 = 32;
/// The most threat positions a table may keep ([`FLAG_THREATS_KEPT`]):
/// the list takes at most 8 MiB of memory, whatever a header says.
pub const MAX_THREATS_KEPT: u32 = 1 << 20;
/// The most positions a block may hold: a block decodes into at most this
/// many bytes (4 MiB), whatever a header says.
pub const MAX_POSITIONS_PER_BLOCK: u32 = 1 << 22;

/// Whether `material`'s DTC file or WLD table may store no values and
/// take them from its mirror's ([`FLAG_FROM_MIRROR`]): a one-ply search
/// finds them there
/// when the material is not its own mirror and its values do not depend
/// on a counter (outside the counted endings).
pub fn may_come_from_mirror(material: Material) -> bool {
    !material.is_symmetric() && material.counted_ending().is_none()
}

/// Win/draw/loss counts of one side to move over every position of a
/// material (capture positions counted with their resolved value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Positions won by the side to move.
    pub win: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Positions lost by the side to move.
    pub loss: u64,
    /// The longest win in plies (distance tables only).
    pub longest_win: Option<u32>,
    /// The longest loss in plies (distance tables only).
    pub longest_loss: Option<u32>,
    /// DTC files that record it: the positions whose DTC at a freshly
    /// reset 25-move count is above the rule's 50 plies. Under `fmjd` and
    /// `fmjd-diagonal` the rule draws them (the file stores them as
    /// draws); under `pure` they keep their result. `None` where not
    /// recorded (WLD tables, DTC files written before it was).
    pub dtc_above_limit: Option<u64>,
    /// With [`TableStats::dtc_above_limit`]: the largest DTC at a fresh
    /// count in plies, those positions included (0 when no position is
    /// won or lost).
    pub longest_fresh_dtc: Option<u32>,
}

impl TableStats {
    /// Adds the counts of `part` (statistics of other positions of the
    /// same table) to these.
    pub fn add(&mut self, part: &TableStats) {
        self.win += part.win;
        self.draw += part.draw;
        self.loss += part.loss;
        let max = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.longest_win = max(self.longest_win, part.longest_win);
        self.longest_loss = max(self.longest_loss, part.longest_loss);
        self.longest_fresh_dtc = max(self.longest_fresh_dtc, part.longest_fresh_dtc);
        self.dtc_above_limit = match (self.dtc_above_limit, part.dtc_above_limit) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

/// The decoded header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The material (White to move).
    pub material: Material,
    /// The rules the table was built under.
    pub rule_set: RuleSet,
    /// WLD or distance.
    pub value_kind: ValueKind,
    /// Positions per compressed block (the last block may hold fewer).
    pub positions_per_block: u32,
    /// Positions in the table.
    pub position_count: u64,
    /// Number of compressed blocks.
    pub block_count: u64,
    /// File offset of the block index.
    pub index_offset: u64,
    /// Total file length.
    pub file_length: u64,
    /// Statistics for the side to move (White).
    pub stats: TableStats,
    /// CRC-32 of the block index.
    pub index_crc: u32,
    /// CRC-32 of everything after the header.
    pub body_crc: u32,
    /// A file with no blocks, whose values the prober finds from the
    /// mirror's file of the same kind ([`FLAG_FROM_MIRROR`]).
    pub from_mirror: bool,
    /// A version-2 WLD table whose threat positions hold "don't care"
    /// ([`FLAG_THREATS_SEARCHED`]).
    pub threats_searched: bool,
    /// A version-2 WLD table whose positions without a capture hold
    /// "don't care" ([`FLAG_QUIET_SEARCHED`]), found through its mirror.
    pub quiet_searched: bool,
    /// With [`FLAG_SPREAD_STORED`]: the positions a block of the mirror's
    /// table holds, in which [`crate::search_spreads`] counts; the
    /// positions whose search spreads are stored.
    pub spread_unit: Option<u32>,
    /// With [`FLAG_THREATS_KEPT`]: how many threat positions the table
    /// stores although its rule leaves threats to the search (0 without
    /// the flag); their indices end the file.
    pub threats_kept: u32,
    /// With [`FLAG_THREATS_KEPT`]: the CRC-32 of the list of those
    /// indices (0 without the flag).
    pub threats_kept_crc: u32,
}

/// How a header differs from the file its name promises (see
/// [`Header::mismatch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderMismatch {
    /// The header holds this other material.
    Material(Material),
    /// The header was built under these other rules.
    RuleSet(RuleSet),
    /// The header stores this other kind of value.
    ValueKind(ValueKind),
    /// A DTC file whose values come from its mirror's, for a material
    /// whose DTC file must store them ([`may_come_from_mirror`]).
    FromMirror,
}

impl std::fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderMismatch::Material(m) => write!(f, "the header says {m}"),
            HeaderMismatch::RuleSet(r) => write!(f, "the header says rules {r}"),
            HeaderMismatch::ValueKind(k) => write!(f, "the header says {} values", k.name()),
            HeaderMismatch::FromMirror => {
                f.write_str("its DTC values must be stored, not taken from its mirror")
            }
        }
    }
}

fn corrupt(what: &str) -> FormatError {
    FormatError::Corrupt(what.to_string())
}

/// The header's bytes once its magic, length, version and checksum hold.
fn sealed_header(bytes: &[u8]) -> Result<&[u8], FormatError> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        if bytes.len() < 8 && MAGIC.starts_with(bytes) {
            return Err(FormatError::Truncated("no complete magic".into()));
        }
        return Err(FormatError::BadMagic);
    }
    if bytes.len() < HEADER_LEN {
        return Err(FormatError::Truncated(format!(
            "{} bytes, the header alone has {HEADER_LEN}",
            bytes.len()
        )));
    }
    let b = &bytes[..HEADER_LEN];
    let version = u32_at(b, 8);
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(FormatError::UnsupportedVersion(version));
    }
    if crc32fast::hash(&b[..124]) != u32_at(b, 124) {
        return Err(FormatError::Checksum("header"));
    }
    Ok(b)
}

/// The flags a header holds.
struct Flags {
    from_mirror: bool,
    kings_only_counts: bool,
    threats_searched: bool,
    quiet_searched: bool,
    spread_unit: Option<u32>,
    threats_kept: Option<(u32, u32)>,
}

/// The flags, refused where unknown to files of `kind` (searched threats:
/// version-2 WLD tables only) or where the reserved bytes after the
/// fields they enable are not zero.
fn flags(b: &[u8], kind: ValueKind) -> Result<Flags, FormatError> {
    let known = match kind {
        ValueKind::Dtc => FLAG_FROM_MIRROR | FLAG_KINGS_ONLY_COUNTS,
        ValueKind::Wdl => {
            FLAG_THREATS_SEARCHED
                | FLAG_FROM_MIRROR
                | FLAG_SPREAD_STORED
                | FLAG_QUIET_SEARCHED
                | FLAG_THREATS_KEPT
        }
        ValueKind::Distance => 0,
    };
    if b[19] & !known != 0 {
        return Err(corrupt("unknown flags"));
    }
    let flags = Flags {
        from_mirror: b[19] & FLAG_FROM_MIRROR != 0,
        kings_only_counts: b[19] & FLAG_KINGS_ONLY_COUNTS != 0,
        threats_searched: b[19] & FLAG_THREATS_SEARCHED != 0,
        quiet_searched: b[19] & FLAG_QUIET_SEARCHED != 0,
        spread_unit: (b[19] & FLAG_SPREAD_STORED != 0).then(|| u32_at(b, 104)),
        threats_kept: (b[19] & FLAG_THREATS_KEPT != 0).then(|| (u32_at(b, 108), u32_at(b, 112))),
    };
    let searches = flags.threats_searched || flags.quiet_searched;
    let needs_version_2 = searches || (kind == ValueKind::Wdl && flags.from_mirror);
    if needs_version_2 != (u32_at(b, 8) == 2) {
        return Err(corrupt(
            "a WLD table that searches positions or stores nothing is version 2, and only it",
        ));
    }
    if flags.from_mirror as u8 + flags.threats_searched as u8 + flags.quiet_searched as u8 > 1 {
        return Err(corrupt(
            "a table stores nothing, searches its threats or searches its quiet positions: one",
        ));
    }
    if flags.spread_unit.is_some() != flags.quiet_searched && !flags.threats_searched {
        return Err(corrupt(
            "spread positions are stored by a table that searches positions, always where it searches every quiet one",
        ));
    }
    if let Some(unit) = flags.spread_unit {
        if unit == 0 || unit > MAX_POSITIONS_PER_BLOCK {
            return Err(corrupt("the spread unit is out of range"));
        }
    }
    if let Some((kept, _)) = flags.threats_kept {
        if !flags.threats_searched || kept == 0 || kept > MAX_THREATS_KEPT {
            return Err(corrupt(
                "threats are kept by a table that searches its threats, 1 to 2^20 of them",
            ));
        }
    }
    let reserved = if flags.kings_only_counts || flags.threats_kept.is_some() {
        116
    } else if flags.spread_unit.is_some() {
        108
    } else {
        104
    };
    if b[reserved..124].iter().any(|&x| x != 0) {
        return Err(corrupt("reserved bytes are not zero"));
    }
    Ok(flags)
}

/// Positions per block: a positive multiple of 4, at most
/// [`MAX_POSITIONS_PER_BLOCK`].
fn block_size(b: &[u8]) -> Result<u32, FormatError> {
    let positions_per_block = u32_at(b, 20);
    if positions_per_block == 0
        || !positions_per_block.is_multiple_of(4)
        || positions_per_block > MAX_POSITIONS_PER_BLOCK
    {
        return Err(corrupt(
            "block size must be a positive multiple of 4, at most 4 Mi positions",
        ));
    }
    Ok(positions_per_block)
}

/// The block index (12 bytes a block and an 8-byte tail), then the list
/// of `threats_kept` indices (8 bytes each), must lie after the header
/// and end the file.
fn check_block_index(
    block_count: u64,
    threats_kept: u32,
    index_offset: u64,
    file_length: u64,
) -> Result<(), FormatError> {
    let index_len = block_count
        .checked_mul(12)
        .and_then(|n| n.checked_add(8 + 8 * u64::from(threats_kept)))
        .ok_or_else(|| corrupt("block count overflows"))?;
    if index_offset < HEADER_LEN as u64 || index_offset.checked_add(index_len) != Some(file_length)
    {
        return Err(corrupt(
            "block index (and the threats kept) does not end the file",
        ));
    }
    Ok(())
}

/// The statistics, which must add up to the position count.
fn stats_at(
    b: &[u8],
    kings_only_counts: bool,
    position_count: u64,
) -> Result<TableStats, FormatError> {
    let stats = TableStats {
        win: u64_at(b, 56),
        draw: u64_at(b, 64),
        loss: u64_at(b, 72),
        longest_win: opt(u32_at(b, 80)),
        longest_loss: opt(u32_at(b, 84)),
        dtc_above_limit: kings_only_counts.then(|| u64_at(b, 104)),
        longest_fresh_dtc: kings_only_counts.then(|| u32_at(b, 112)),
    };
    let total = stats
        .win
        .checked_add(stats.draw)
        .and_then(|n| n.checked_add(stats.loss));
    if total != Some(position_count) {
        return Err(corrupt("statistics do not add up to the position count"));
    }
    Ok(stats)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn opt(v: u32) -> Option<u32> {
    (v != NONE32).then_some(v)
}

impl Header {
    /// The first way this header differs from that of `material`'s file of
    /// `kind` under `rule_set`, `None` when it is that file's: the one check
    /// that a file is what its name says.
    pub fn mismatch(
        &self,
        material: Material,
        rule_set: RuleSet,
        kind: ValueKind,
    ) -> Option<HeaderMismatch> {
        if self.material != material {
            Some(HeaderMismatch::Material(self.material))
        } else if self.rule_set != rule_set {
            Some(HeaderMismatch::RuleSet(self.rule_set))
        } else if self.value_kind != kind {
            Some(HeaderMismatch::ValueKind(self.value_kind))
        } else if self.from_mirror && !may_come_from_mirror(material) {
            Some(HeaderMismatch::FromMirror)
        } else {
            None
        }
    }

    /// The header bytes, checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.version().to_le_bytes());
        let m = self.material;
        b[12..16].copy_from_slice(&[m.white_men, m.white_kings, m.black_men, m.black_kings]);
        b[16] = self.rule_set.code();
        b[17] = self.value_kind.code();
        b[18] = COMPRESSION_ZSTD;
        b[19] = if self.from_mirror {
            FLAG_FROM_MIRROR
        } else {
            0
        };
        if self.threats_searched {
            b[19] |= FLAG_THREATS_SEARCHED;
        }
        if self.quiet_searched {
            b[19] |= FLAG_QUIET_SEARCHED;
        }
        if let Some(unit) = self.spread_unit {
            b[19] |= FLAG_SPREAD_STORED;
            b[104..108].copy_from_slice(&unit.to_le_bytes());
        }
        if self.threats_kept > 0 {
            b[19] |= FLAG_THREATS_KEPT;
            b[108..112].copy_from_slice(&self.threats_kept.to_le_bytes());
            b[112..116].copy_from_slice(&self.threats_kept_crc.to_le_bytes());
        }
        if let (Some(above), Some(longest)) =
            (self.stats.dtc_above_limit, self.stats.longest_fresh_dtc)
        {
            b[19] |= FLAG_KINGS_ONLY_COUNTS;
            b[104..112].copy_from_slice(&above.to_le_bytes());
            b[112..116].copy_from_slice(&longest.to_le_bytes());
        }
        b[20..24].copy_from_slice(&self.positions_per_block.to_le_bytes());
        b[24..32].copy_from_slice(&self.position_count.to_le_bytes());
        b[40..48].copy_from_slice(&self.block_count.to_le_bytes());
        b[48..56].copy_from_slice(&self.index_offset.to_le_bytes());
        b[56..64].copy_from_slice(&self.stats.win.to_le_bytes());
        b[64..72].copy_from_slice(&self.stats.draw.to_le_bytes());
        b[72..80].copy_from_slice(&self.stats.loss.to_le_bytes());
        b[80..84].copy_from_slice(&self.stats.longest_win.unwrap_or(NONE32).to_le_bytes());
        b[84..88].copy_from_slice(&self.stats.longest_loss.unwrap_or(NONE32).to_le_bytes());
        b[88..96].copy_from_slice(&self.file_length.to_le_bytes());
        b[96..100].copy_from_slice(&self.index_crc.to_le_bytes());
        b[100..104].copy_from_slice(&self.body_crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..124]);
        b[124..128].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Reads and checks a header: magic, version, checksum, every field in
    /// range and consistent with the material's index.
    pub fn parse(bytes: &[u8]) -> Result<Header, FormatError> {
        let b = sealed_header(bytes)?;
        let material = Material::new(b[12], b[13], b[14], b[15])
            .map_err(|e| FormatError::Corrupt(format!("header material: {e}")))?;
        let rule_set = RuleSet::from_code(b[16]).ok_or_else(|| corrupt("unknown rule set code"))?;
        let value_kind =
            ValueKind::from_code(b[17]).ok_or_else(|| corrupt("unknown value kind code"))?;
        if b[18] != COMPRESSION_ZSTD {
            return Err(corrupt("unknown compression code"));
        }
        let flags = flags(b, value_kind)?;
        if flags.quiet_searched && !may_come_from_mirror(material) {
            return Err(corrupt(
                "a table that is its own mirror or a counted ending searches no quiet positions",
            ));
        }
        let from_mirror = flags.from_mirror;
        let positions_per_block = block_size(b)?;
        let position_count = u64_at(b, 24);
        if position_count != MaterialIndex::new(material).count() {
            return Err(corrupt("position count does not match the material"));
        }
        if u64_at(b, 32) != 0 {
            return Err(corrupt(
                "slices of a material are not supported by this version",
            ));
        }
        let block_count = u64_at(b, 40);
        let blocks = if from_mirror {
            0
        } else {
            position_count.div_ceil(positions_per_block as u64)
        };
        if block_count != blocks {
            return Err(corrupt("block count does not match the position count"));
        }
        let (index_offset, file_length) = (u64_at(b, 48), u64_at(b, 88));
        let (threats_kept, threats_kept_crc) = flags.threats_kept.unwrap_or((0, 0));
        check_block_index(block_count, threats_kept, index_offset, file_length)?;
        Ok(Header {
            material,
            rule_set,
            value_kind,
            positions_per_block,
            position_count,
            block_count,
            index_offset,
            file_length,
            stats: stats_at(b, flags.kings_only_counts, position_count)?,
            index_crc: u32_at(b, 96),
            body_crc: u32_at(b, 100),
            from_mirror,
            threats_searched: flags.threats_searched,
            quiet_searched: flags.quiet_searched,
            spread_unit: flags.spread_unit,
            threats_kept,
            threats_kept_crc,
        })
    }

    /// The format version this header is written with: 2 for a WLD table
    /// that searches positions or stores no values, 1 otherwise.
    pub fn version(&self) -> u32 {
        let wdl_from_mirror = self.from_mirror && self.value_kind == ValueKind::Wdl;
        if self.threats_searched || self.quiet_searched || wdl_from_mirror {
            FORMAT_VERSION
        } else {
            OLDEST_FORMAT_VERSION
        }
    }

    /// Positions in block `block`.
    pub fn positions_in_block(&self, block: u64) -> u64 {
        let start = block * self.positions_per_block as u64;
        (self.position_count - start).min(self.positions_per_block as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(kind: ValueKind, threats_searched: bool) -> Header {
        let material: Material = "KM-K".parse().expect("material");
        let count = MaterialIndex::new(material).count();
        Header {
            material,
            rule_set: RuleSet::Pure,
            value_kind: kind,
            positions_per_block: 1 << 20,
            position_count: count,
            block_count: 1,
            index_offset: 200,
            file_length: 200 + 20,
            stats: TableStats {
                draw: count,
                ..TableStats::default()
            },
            index_crc: 0,
            body_crc: 0,
            from_mirror: false,
            threats_searched,
            quiet_searched: false,
            spread_unit: None,
            threats_kept: 0,
            threats_kept_crc: 0,
        }
    }

    /// A WLD table leaving positions to the search with spread ones
    /// stored: its threats (`quiet` false) or every quiet position.
    fn spread(quiet: bool) -> Header {
        let material: Material = "MM-K".parse().expect("material");
        let count = MaterialIndex::new(material).count();
        Header {
            material,
            position_count: count,
            stats: TableStats {
                draw: count,
                ..TableStats::default()
            },
            threats_searched: !quiet,
            quiet_searched: quiet,
            spread_unit: Some(65_536),
            ..header(ValueKind::Wdl, false)
        }
    }

    #[test]
    fn spread_tables_are_version_2_and_round_trip() {
        for quiet in [false, true] {
            let h = spread(quiet);
            let b = h.to_bytes();
            assert_eq!(u32_at(&b, 8), FORMAT_VERSION);
            assert_eq!(u32_at(&b, 104), 65_536);
            assert_eq!(Header::parse(&b).expect("valid"), h);
        }
    }

    #[test]
    fn spread_flags_are_refused_where_they_mean_nothing() {
        let refused =
            |b: [u8; HEADER_LEN]| matches!(Header::parse(&b), Err(FormatError::Corrupt(_)));
        // Quiet positions searched without spread ones stored, spread ones
        // stored where nothing is searched, a zero unit, both searches.
        assert!(refused(edited(&spread(true), 19, FLAG_QUIET_SEARCHED)));
        assert!(refused(edited(&spread(true), 19, FLAG_SPREAD_STORED)));
        let mut zero_unit = spread(false).to_bytes();
        zero_unit[104..108].fill(0);
        let crc = crc32fast::hash(&zero_unit[..124]);
        zero_unit[124..128].copy_from_slice(&crc.to_le_bytes());
        assert!(refused(zero_unit));
        let all = FLAG_QUIET_SEARCHED | FLAG_THREATS_SEARCHED | FLAG_SPREAD_STORED;
        assert!(refused(edited(&spread(true), 19, all)));
        // A unit without the flag is a reserved byte that is not zero.
        assert!(refused(edited(&header(ValueKind::Wdl, true), 105, 1)));
        // Quiet positions of a material that is its own mirror.
        let symmetric: Material = "KM-KM".parse().expect("material");
        let own_mirror = Header {
            material: symmetric,
            position_count: MaterialIndex::new(symmetric).count(),
            block_count: MaterialIndex::new(symmetric).count().div_ceil(1 << 20),
            file_length: 200 + 12 * MaterialIndex::new(symmetric).count().div_ceil(1 << 20) + 8,
            stats: TableStats {
                draw: MaterialIndex::new(symmetric).count(),
                ..TableStats::default()
            },
            ..spread(true)
        };
        let Err(FormatError::Corrupt(why)) = Header::parse(&own_mirror.to_bytes()) else {
            panic!("a quiet search of a symmetric material is refused");
        };
        assert!(why.contains("own mirror"), "{why}");
        // Version 1 with them.
        assert!(refused(edited(&spread(true), 8, 1)));
    }

    /// The bytes of `h` with byte `at` set to `value` and the header
    /// checksum sealed again.
    fn edited(h: &Header, at: usize, value: u8) -> [u8; HEADER_LEN] {
        let mut b = h.to_bytes();
        b[at] = value;
        let crc = crc32fast::hash(&b[..124]);
        b[124..128].copy_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn searched_threats_are_version_2_and_round_trip() {
        let h = header(ValueKind::Wdl, true);
        let b = h.to_bytes();
        assert_eq!(u32_at(&b, 8), FORMAT_VERSION);
        assert_eq!(Header::parse(&b).expect("valid"), h);
        let plain = header(ValueKind::Wdl, false);
        assert_eq!(u32_at(&plain.to_bytes(), 8), OLDEST_FORMAT_VERSION);
        assert_eq!(Header::parse(&plain.to_bytes()).expect("valid"), plain);
    }

    #[test]
    fn threats_kept_round_trip_and_need_searched_threats_and_a_count() {
        let kept = Header {
            threats_kept: 2,
            threats_kept_crc: 77,
            file_length: 200 + 20 + 16,
            ..header(ValueKind::Wdl, true)
        };
        let b = kept.to_bytes();
        assert_eq!(b[19] & FLAG_THREATS_KEPT, FLAG_THREATS_KEPT);
        assert_eq!(Header::parse(&b).expect("valid"), kept);
        let refused =
            |b: [u8; HEADER_LEN]| matches!(Header::parse(&b), Err(FormatError::Corrupt(_)));
        // The flag without searched threats, a count of 0 or above the
        // most, a count without the flag, a file length without the list.
        assert!(refused(edited(&kept, 19, FLAG_THREATS_KEPT)));
        assert!(refused(edited(&kept, 108, 0)));
        assert!(refused(edited(&kept, 111, 1)));
        assert!(refused(edited(&header(ValueKind::Wdl, true), 108, 1)));
        assert!(refused(edited(&kept, 88, (200 + 20) as u8)));
    }

    #[test]
    fn the_flag_and_the_version_must_agree() {
        // Version 1 with the flag, version 2 without it.
        let flagged_v1 = edited(&header(ValueKind::Wdl, true), 8, 1);
        assert!(matches!(
            Header::parse(&flagged_v1),
            Err(FormatError::Corrupt(_))
        ));
        let plain_v2 = edited(&header(ValueKind::Wdl, false), 8, 2);
        assert!(matches!(
            Header::parse(&plain_v2),
            Err(FormatError::Corrupt(_))
        ));
    }

    #[test]
    fn only_wdl_tables_search_threats() {
        let distance = edited(
            &header(ValueKind::Distance, false),
            19,
            FLAG_THREATS_SEARCHED,
        );
        assert!(matches!(
            Header::parse(&distance),
            Err(FormatError::Corrupt(_))
        ));
    }

    #[test]
    fn a_later_version_is_refused_by_name() {
        let later = edited(&header(ValueKind::Wdl, true), 8, 3);
        assert!(matches!(
            Header::parse(&later),
            Err(FormatError::UnsupportedVersion(3))
        ));
    }

    /// A WLD table that stores nothing: no blocks, an index of one offset.
    fn left_out(kind: ValueKind) -> Header {
        Header {
            block_count: 0,
            index_offset: HEADER_LEN as u64,
            file_length: HEADER_LEN as u64 + 8,
            from_mirror: true,
            ..header(kind, false)
        }
    }

    #[test]
    fn a_wdl_table_storing_nothing_is_version_2_and_round_trips() {
        let h = left_out(ValueKind::Wdl);
        assert_eq!(h.version(), FORMAT_VERSION);
        let b = h.to_bytes();
        assert_eq!(u32_at(&b, 8), FORMAT_VERSION);
        assert_eq!(Header::parse(&b).expect("valid"), h);
        // A DTC file storing nothing stays version 1.
        let dtc = left_out(ValueKind::Dtc);
        assert_eq!(dtc.version(), OLDEST_FORMAT_VERSION);
        assert_eq!(Header::parse(&dtc.to_bytes()).expect("valid"), dtc);
    }

    #[test]
    fn a_wdl_table_storing_nothing_is_refused_as_version_1_or_searching_threats() {
        let as_v1 = edited(&left_out(ValueKind::Wdl), 8, 1);
        assert!(matches!(
            Header::parse(&as_v1),
            Err(FormatError::Corrupt(_))
        ));
        let both = edited(
            &left_out(ValueKind::Wdl),
            19,
            FLAG_FROM_MIRROR | FLAG_THREATS_SEARCHED,
        );
        assert!(matches!(Header::parse(&both), Err(FormatError::Corrupt(_))));
        let distance = edited(&left_out(ValueKind::Distance), 19, FLAG_FROM_MIRROR);
        assert!(matches!(
            Header::parse(&distance),
            Err(FormatError::Corrupt(_))
        ));
    }

    #[test]
    fn a_symmetric_material_never_stores_nothing() {
        let symmetric: Material = "KM-KM".parse().expect("material");
        let h = Header {
            material: symmetric,
            position_count: MaterialIndex::new(symmetric).count(),
            block_count: MaterialIndex::new(symmetric).count().div_ceil(1 << 20),
            file_length: 200 + 12 * MaterialIndex::new(symmetric).count().div_ceil(1 << 20) + 8,
            stats: TableStats {
                draw: MaterialIndex::new(symmetric).count(),
                ..TableStats::default()
            },
            ..left_out(ValueKind::Wdl)
        };
        assert_eq!(
            h.mismatch(symmetric, RuleSet::Pure, ValueKind::Wdl),
            Some(HeaderMismatch::FromMirror)
        );
    }
}
