//! Reading a table from bytes (a memory map or a buffer). Everything read
//! is checked: a damaged file gives an error, never a panic.

use bitvec::field::BitField;
use bitvec::prelude::{BitSlice, Lsb0};

use crate::error::FormatError;
use crate::header::{Header, HEADER_LEN};
use crate::value::ValueKind;

/// A validated table over its bytes.
#[derive(Debug)]
pub struct TableReader<B> {
    bytes: B,
    header: Header,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl<B: AsRef<[u8]>> TableReader<B> {
    /// Checks the header, the file length and the block index.
    pub fn new(bytes: B) -> Result<TableReader<B>, FormatError> {
        let b = bytes.as_ref();
        let header = Header::parse(b)?;
        if (b.len() as u64) < header.file_length {
            return Err(FormatError::Truncated(format!(
                "{} bytes, the header says {}",
                b.len(),
                header.file_length
            )));
        }
        if (b.len() as u64) > header.file_length {
            return Err(FormatError::Corrupt(format!(
                "{} bytes, the header says {}",
                b.len(),
                header.file_length
            )));
        }
        let index = &b[header.index_offset as usize..];
        if crc32fast::hash(index) != header.index_crc {
            return Err(FormatError::Checksum("block index"));
        }
        let blocks = header.block_count as usize;
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
        Ok(TableReader { bytes, header })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The underlying bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// The block holding `position` and the position's place in it.
    pub fn locate(&self, position: u64) -> (u64, usize) {
        let per = self.header.positions_per_block as u64;
        (position / per, (position % per) as usize)
    }

    /// The compressed bytes of a block and their checksum.
    fn block_slice(&self, block: u64) -> Result<(&[u8], u32), FormatError> {
        if block >= self.header.block_count {
            return Err(FormatError::Corrupt(format!(
                "block {block} does not exist"
            )));
        }
        // Offsets were checked when the reader was made; they are read
        // again here, so bytes that changed since (a mapped file rewritten
        // under us) are an error too, never an out-of-bounds panic.
        let b = self.bytes.as_ref();
        let changed = || FormatError::Corrupt(format!("block {block}: the block index changed"));
        let index = self.header.index_offset as usize;
        let at = |i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
        };
        let start = at(index + 8 * block as usize).ok_or_else(changed)? as usize;
        let end = at(index + 8 * (block as usize + 1)).ok_or_else(changed)? as usize;
        let crc_at = index + 8 * (self.header.block_count as usize + 1) + 4 * block as usize;
        let crc = b
            .get(crc_at..crc_at + 4)
            .and_then(|c| c.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(changed)?;
        let compressed = b.get(start..end).ok_or_else(changed)?;
        Ok((compressed, crc))
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
        let (compressed, crc) = self.block_slice(block)?;
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

    /// Checks the CRC-32 of everything after the header (reads the whole
    /// file).
    pub fn verify_checksum(&self) -> Result<(), FormatError> {
        let b = self.bytes.as_ref();
        if crc32fast::hash(&b[HEADER_LEN..]) != self.header.body_crc {
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
