//! Reading a table from bytes (a memory map or a buffer). Everything read
//! is checked: a damaged file gives an error, never a panic.

use bitvec::field::BitField;
use bitvec::prelude::{BitSlice, Lsb0};

use crate::error::FormatError;
use crate::header::{Header, HEADER_LEN};
use crate::value::ValueKind;

/// Where a table's bytes come from: the whole file in memory (a
/// mapping or a buffer: every `AsRef<[u8]>` is one), or positioned reads
/// of an open file ([`PositionedFile`]). The reader asks for nothing
/// else, so both give the same checks and the same values.
pub trait TableSource {
    /// The length of the file in bytes.
    fn byte_len(&self) -> u64;

    /// Every byte, when the file is in memory (read in place); `None`
    /// when it must be read with [`TableSource::read_at`].
    fn in_memory(&self) -> Option<&[u8]>;

    /// Fills `out` with the bytes from `offset` on (only called when
    /// [`TableSource::in_memory`] is `None`).
    ///
    /// # Errors
    /// [`FormatError::Truncated`] when the file ends first, an I/O error
    /// otherwise.
    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), FormatError>;
}

impl<B: AsRef<[u8]>> TableSource for B {
    fn byte_len(&self) -> u64 {
        self.as_ref().len() as u64
    }

    fn in_memory(&self) -> Option<&[u8]> {
        Some(self.as_ref())
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), FormatError> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let bytes = start
            .checked_add(out.len())
            .and_then(|end| self.as_ref().get(start..end))
            .ok_or_else(|| FormatError::Truncated(format!("no {} bytes at {offset}", out.len())))?;
        out.copy_from_slice(bytes);
        Ok(())
    }
}

/// A table file read with positioned reads (`pread`), never mapped: a
/// file cut short under it gives an error on the next read, never a
/// signal.
#[derive(Debug)]
pub struct PositionedFile {
    file: std::fs::File,
    len: u64,
    path: std::path::PathBuf,
}

impl PositionedFile {
    /// The file `file` (at `path`, named in errors), `len` bytes long.
    pub fn new(file: std::fs::File, len: u64, path: &std::path::Path) -> PositionedFile {
        PositionedFile {
            file,
            len,
            path: path.to_path_buf(),
        }
    }

    /// The open file.
    pub fn file(&self) -> &std::fs::File {
        &self.file
    }
}

impl TableSource for PositionedFile {
    fn byte_len(&self) -> u64 {
        self.len
    }

    fn in_memory(&self) -> Option<&[u8]> {
        None
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), FormatError> {
        read_exact_at(&self.file, offset, out).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                FormatError::Truncated(format!(
                    "{}: the file ends before byte {}",
                    self.path.display(),
                    offset + out.len() as u64
                ))
            } else {
                FormatError::io(&self.path, e)
            }
        })
    }
}

#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(out, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut offset: u64, mut out: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !out.is_empty() {
        match file.seek_read(out, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                out = &mut out[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// A validated table over its bytes.
#[derive(Debug)]
pub struct TableReader<B> {
    bytes: B,
    header: Header,
    /// The block index (offsets, then checksums), read once when the
    /// source is not in memory.
    read_index: Option<Box<[u8]>>,
    /// The threat positions stored although the rule leaves threats to the
    /// search ([`crate::FLAG_THREATS_KEPT`]), strictly increasing.
    threats_kept: std::sync::Arc<[u64]>,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Bytes `start..start + len` of `source`: in place when it is in memory,
/// else read into `scratch`.
fn bytes_at<'a, B: TableSource>(
    source: &'a B,
    start: u64,
    len: usize,
    scratch: &'a mut Vec<u8>,
) -> Result<&'a [u8], FormatError> {
    let short = || FormatError::Truncated(format!("no {len} bytes at {start}"));
    match source.in_memory() {
        Some(all) => {
            let start = usize::try_from(start).map_err(|_| short())?;
            all.get(start..start.checked_add(len).ok_or_else(short)?)
                .ok_or_else(short)
        }
        None => {
            scratch.clear();
            scratch.resize(len, 0);
            source.read_at(start, scratch)?;
            Ok(scratch)
        }
    }
}

/// Checks the block index (`index`: the bytes from the header's index
/// offset to the end): its checksum, and offsets that start after the
/// header, never go back and end where the index starts.
fn check_index(header: &Header, index: &[u8]) -> Result<(), FormatError> {
    if crc32fast::hash(index) != header.index_crc {
        return Err(FormatError::Checksum("block index"));
    }
    let blocks = header.block_count as usize;
    if index.len() < 8 * (blocks + 1) + 4 * blocks {
        return Err(FormatError::Corrupt("the block index is cut short".into()));
    }
    let mut previous = HEADER_LEN as u64;
    for i in 0..=blocks {
        let off = u64_at(index, 8 * i);
        let first_or_last_ok = match i {
            0 => off == HEADER_LEN as u64,
            _ if i == blocks => off == header.index_offset,
            _ => true,
        };
        if off < previous || off > header.index_offset || !first_or_last_ok {
            return Err(FormatError::Corrupt(format!(
                "block offset {i} out of order"
            )));
        }
        previous = off;
    }
    Ok(())
}

/// The list of threats kept (`bytes`, 8 bytes an index), once its
/// checksum holds and its indices increase strictly below the position
/// count.
fn threats_kept(header: &Header, bytes: &[u8]) -> Result<std::sync::Arc<[u64]>, FormatError> {
    if header.threats_kept > 0 && crc32fast::hash(bytes) != header.threats_kept_crc {
        return Err(FormatError::Checksum("list of threats kept"));
    }
    let kept: Vec<u64> = bytes.chunks_exact(8).map(|b| u64_at(b, 0)).collect();
    let increasing = kept.windows(2).all(|w| w[0] < w[1]);
    if !increasing || kept.last().is_some_and(|&i| i >= header.position_count) {
        return Err(FormatError::Corrupt(
            "the threats kept are not increasing indices of the table".into(),
        ));
    }
    Ok(kept.into())
}

impl<B: TableSource> TableReader<B> {
    /// Checks the header, the file length and the block index.
    pub fn new(bytes: B) -> Result<TableReader<B>, FormatError> {
        let mut scratch = Vec::new();
        let len = bytes.byte_len();
        let head = bytes_at(&bytes, 0, HEADER_LEN.min(len as usize), &mut scratch)?;
        let header = Header::parse(head)?;
        if len < header.file_length {
            return Err(FormatError::Truncated(format!(
                "{len} bytes, the header says {}",
                header.file_length
            )));
        }
        if len > header.file_length {
            return Err(FormatError::Corrupt(format!(
                "{len} bytes, the header says {}",
                header.file_length
            )));
        }
        let kept_len = 8 * u64::from(header.threats_kept);
        let index_len = header
            .file_length
            .checked_sub(header.index_offset)
            .and_then(|n| n.checked_sub(kept_len))
            .ok_or_else(|| FormatError::Corrupt("the block index starts past the end".into()))?
            as usize;
        let index = bytes_at(&bytes, header.index_offset, index_len, &mut scratch)?;
        check_index(&header, index)?;
        let read_index = bytes.in_memory().is_none().then(|| index.into());
        let kept_at = header.file_length - kept_len;
        let kept = bytes_at(&bytes, kept_at, kept_len as usize, &mut scratch)?;
        let threats_kept = threats_kept(&header, kept)?;
        Ok(TableReader {
            bytes,
            header,
            read_index,
            threats_kept,
        })
    }

    /// The indices of the threat positions the table stores although its
    /// rule leaves threats to the search ([`crate::FLAG_THREATS_KEPT`]),
    /// strictly increasing; empty without the flag.
    pub fn threats_kept(&self) -> &std::sync::Arc<[u64]> {
        &self.threats_kept
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Where the bytes come from.
    pub fn source(&self) -> &B {
        &self.bytes
    }

    /// The block index: offsets, then checksums.
    fn index(&self) -> &[u8] {
        match (&self.read_index, self.bytes.in_memory()) {
            (Some(index), _) => index,
            (None, Some(all)) => all.get(self.header.index_offset as usize..).unwrap_or(&[]),
            (None, None) => &[],
        }
    }

    /// The block holding `position` and the position's place in it.
    pub fn locate(&self, position: u64) -> (u64, usize) {
        let per = self.header.positions_per_block as u64;
        (position / per, (position % per) as usize)
    }

    /// The compressed bytes of a block (in place, or read into `scratch`)
    /// and their checksum.
    fn block_slice<'a>(
        &'a self,
        block: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<(&'a [u8], u32), FormatError> {
        if block >= self.header.block_count {
            return Err(FormatError::Corrupt(format!(
                "block {block} does not exist"
            )));
        }
        // Offsets were checked when the reader was made; they are read
        // again here, so bytes that changed since (a mapped file rewritten
        // under us) are an error too, never an out-of-bounds panic.
        let b = self.index();
        let changed = || FormatError::Corrupt(format!("block {block}: the block index changed"));
        let at = |i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
        };
        let start = at(8 * block as usize).ok_or_else(changed)?;
        let end = at(8 * (block as usize + 1)).ok_or_else(changed)?;
        let crc_at = 8 * (self.header.block_count as usize + 1) + 4 * block as usize;
        let crc = b
            .get(crc_at..crc_at + 4)
            .and_then(|c| c.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(changed)?;
        let len = end.checked_sub(start).ok_or_else(changed)? as usize;
        let compressed = bytes_at(&self.bytes, start, len, scratch).map_err(|e| match e {
            FormatError::Truncated(_) => e,
            _ => changed(),
        })?;
        Ok((compressed, crc))
    }

    /// The compressed bytes of block `block` (in place, or read into
    /// `scratch`), their checksum checked: a frame to copy as it is.
    pub fn compressed_block<'a>(
        &'a self,
        block: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], FormatError> {
        let (compressed, crc) = self.block_slice(block, scratch)?;
        if crc32fast::hash(compressed) != crc {
            return Err(FormatError::Checksum("a compressed block"));
        }
        Ok(compressed)
    }

    /// Uncompressed length of a block.
    pub fn raw_block_len(&self, block: u64) -> usize {
        self.header
            .value_kind
            .raw_len(self.header.positions_in_block(block)) as usize
    }

    /// Decompresses block `block` into `out` (replacing its contents),
    /// checking its checksum and length.
    pub fn decode_block(
        &self,
        block: u64,
        decompressor: &mut zstd::bulk::Decompressor<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        // Empty, hence never allocated, when the file is in memory.
        let mut scratch = Vec::new();
        let (compressed, crc) = self.block_slice(block, &mut scratch)?;
        if crc32fast::hash(compressed) != crc {
            return Err(FormatError::Checksum("a compressed block"));
        }
        let expected = self.raw_block_len(block);
        out.clear();
        out.resize(expected, 0);
        let n = decompressor
            .decompress_to_buffer(compressed, out.as_mut_slice())
            .map_err(|e| FormatError::Corrupt(format!("block {block} does not decompress: {e}")))?;
        if n != expected {
            return Err(FormatError::Corrupt(format!(
                "block {block} holds {n} bytes, expected {expected}"
            )));
        }
        if self.header.value_kind == ValueKind::Wdl {
            // A code 3 has both bits of its pair set.
            let bad = out.iter().any(|b| b & (b >> 1) & 0x55 != 0);
            if bad {
                return Err(FormatError::Corrupt(format!(
                    "block {block} holds an invalid WLD code"
                )));
            }
        }
        Ok(())
    }

    /// An error for a DTC file whose values come from its mirror's
    /// ([`crate::FLAG_FROM_MIRROR`]): it has nothing to decode.
    fn check_stores_values(&self) -> Result<(), FormatError> {
        if self.header.from_mirror {
            return Err(FormatError::Corrupt(format!(
                "the DTC file of {} stores no values: they come from its mirror's",
                self.header.material
            )));
        }
        Ok(())
    }

    /// Checks the CRC-32 of everything after the header (reads the whole
    /// file).
    pub fn verify_checksum(&self) -> Result<(), FormatError> {
        const PIECE: u64 = 1 << 20;
        let mut hasher = crc32fast::Hasher::new();
        let mut scratch = Vec::new();
        let mut at = HEADER_LEN as u64;
        while at < self.header.file_length {
            let len = PIECE.min(self.header.file_length - at);
            hasher.update(bytes_at(&self.bytes, at, len as usize, &mut scratch)?);
            at += len;
        }
        if hasher.finalize() != self.header.body_crc {
            return Err(FormatError::Checksum("table body"));
        }
        Ok(())
    }

    /// The uncompressed streams of every block, one after the other: for
    /// WLD tables 2 bits per position (position `i` in bits `2(i % 4)` of
    /// byte `i / 4`, as [`wdl_code`] reads them), for distance tables a
    /// byte per position. Blocks hold a multiple of 4 positions, so the
    /// streams join without gaps.
    pub fn decode_all_raw(&self) -> Result<Vec<u8>, FormatError> {
        self.check_stores_values()?;
        let kind = self.header.value_kind;
        let mut out = Vec::with_capacity(kind.raw_len(self.header.position_count) as usize);
        let mut d = zstd::bulk::Decompressor::new()
            .map_err(|e| FormatError::Corrupt(format!("zstd: {e}")))?;
        let mut raw = Vec::new();
        for block in 0..self.header.block_count {
            self.decode_block(block, &mut d, &mut raw)?;
            out.extend_from_slice(&raw);
        }
        Ok(out)
    }

    /// Every stored value, decoded (for tests and verification; a prober
    /// should decode single blocks). WLD codes for WLD tables, distance
    /// bytes for distance tables.
    pub fn decode_all(&self) -> Result<Vec<u8>, FormatError> {
        self.check_stores_values()?;
        let mut out = Vec::with_capacity(self.header.position_count as usize);
        let mut d = zstd::bulk::Decompressor::new()
            .map_err(|e| FormatError::Corrupt(format!("zstd: {e}")))?;
        let mut raw = Vec::new();
        for block in 0..self.header.block_count {
            self.decode_block(block, &mut d, &mut raw)?;
            let n = self.header.positions_in_block(block) as usize;
            match self.header.value_kind {
                ValueKind::Wdl => {
                    let codes = BitSlice::<u8, Lsb0>::from_slice(&raw);
                    out.extend(codes.chunks_exact(2).take(n).map(|c| c.load_le::<u8>()));
                }
                ValueKind::Distance | ValueKind::Dtc => out.extend_from_slice(&raw[..n]),
            }
        }
        Ok(out)
    }
}

/// The WLD code of position `i` of a decoded WLD block (the same 2-bit
/// little-endian layout the writer packs with `bitvec`, read with one shift
/// on the prober's hot path).
#[inline(always)]
pub fn wdl_code(raw: &[u8], i: usize) -> u8 {
    (raw[i / 4] >> (2 * (i % 4))) & 3
}
