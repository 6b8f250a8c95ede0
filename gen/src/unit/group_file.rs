//! The output file of one slice group (`units/<pair>.a<advancement>.dtg`
//! in a rule set's folder), or of one part of it (`...a<advancement>.p<part>.dtg`,
//! see `plan::units::splits_groups`): the values of its men placements, as the
//! group's layer holds them, for the group one advancement lower (which
//! reads them) and for the assembly of the pair's tables.
//!
//! Layout: a 64-byte header (magic, version, rule set, whether DTC bytes
//! follow, the deepest level at which a position settled (bytes 14..16,
//! saturated at 65,535), the advancement, a CRC-32 of the group's men placements, king
//! placements per men placement, the number of men placements, the
//! payload's length and CRC-32, the header's own CRC-32, the material's
//! counts and the part, plus one, or 0 for a whole group), then one zstd frame holding the code words, the
//! capture-mark words and the DTC bytes of the placements in key order.
//! The placements themselves follow from the material and the advancement
//! (a reader finds them again and checks their count and CRC-32): stored,
//! they would outweigh the values where a placement has one position. Written under a temporary
//! name, then renamed; read only whole and checked, so a file cut short
//! by a crash is never taken for a value.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use format::{Material, RuleSet};

use crate::values::{Layer, PackedValues};
use plan::GenError;
use plan::{PlacementKey, PlacementKeys};

const MAGIC: [u8; 8] = *b"DTBGROUP";
/// Version 3 added the deepest level (a file of version 2 is solved again).
const VERSION: u32 = 3;
const HEADER_LEN: usize = 64;
/// zstd level of the payload: fast, and the values compress well anyway.
const LEVEL: i32 = 1;

/// Which group a file holds, and under which rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GroupId {
    /// Side 0 of the pair.
    pub(crate) material: Material,
    /// The rule set.
    pub(crate) rule_set: RuleSet,
    /// Rows its men have walked.
    pub(crate) advancement: u32,
    /// The part of the group it holds, if the pair is solved in parts.
    pub(crate) part: Option<u32>,
}

/// The file's header.
struct GroupHeader {
    id: GroupId,
    with_dtc: bool,
    /// The deepest level at which a position of the group settled.
    deepest: u16,
    keys_crc: u32,
    king_placements: u64,
    placements: u64,
    payload_len: u64,
    payload_crc: u32,
}

impl GroupHeader {
    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12] = self.id.rule_set.code();
        b[13] = u8::from(self.with_dtc);
        b[14..16].copy_from_slice(&self.deepest.to_le_bytes());
        b[16..20].copy_from_slice(&self.id.advancement.to_le_bytes());
        b[20..24].copy_from_slice(&self.keys_crc.to_le_bytes());
        b[24..32].copy_from_slice(&self.king_placements.to_le_bytes());
        b[32..40].copy_from_slice(&self.placements.to_le_bytes());
        b[40..48].copy_from_slice(&self.payload_len.to_le_bytes());
        b[48..52].copy_from_slice(&self.payload_crc.to_le_bytes());
        let m = self.id.material;
        b[56..60].copy_from_slice(&[m.white_men, m.white_kings, m.black_men, m.black_kings]);
        let part = self.id.part.map_or(0, |p| p + 1);
        b[60..64].copy_from_slice(&part.to_le_bytes());
        let crc = header_crc(&b);
        b[52..56].copy_from_slice(&crc.to_le_bytes());
        b
    }

    fn parse(b: &[u8; HEADER_LEN]) -> Result<GroupHeader, String> {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        if b[0..8] != MAGIC {
            return Err("not a slice-group file".into());
        }
        if u32_at(8) != VERSION {
            return Err(format!(
                "version {} (this build reads {VERSION})",
                u32_at(8)
            ));
        }
        if u32_at(52) != header_crc(b) {
            return Err("header checksum mismatch".into());
        }
        let rule_set = RuleSet::from_code(b[12]).ok_or("unknown rule set")?;
        let material =
            Material::new(b[56], b[57], b[58], b[59]).map_err(|e| format!("material: {e}"))?;
        Ok(GroupHeader {
            id: GroupId {
                material,
                rule_set,
                advancement: u32_at(16),
                part: u32_at(60).checked_sub(1),
            },
            with_dtc: b[13] == 1,
            deepest: u16::from_le_bytes([b[14], b[15]]),
            keys_crc: u32_at(20),
            king_placements: u64_at(24),
            placements: u64_at(32),
            payload_len: u64_at(40),
            payload_crc: u32_at(48),
        })
    }
}

/// The CRC-32 of a header: of every byte but its own four (52..56).
fn header_crc(b: &[u8; HEADER_LEN]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..52]);
    crc.update(&b[56..]);
    crc.finalize()
}

/// A writer that keeps the CRC-32 and the length of what passes.
struct Checked<W> {
    inner: W,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that keeps the CRC-32 of what passes.
struct CheckedReader<R> {
    inner: R,
    crc: crc32fast::Hasher,
}

impl<R: Read> Read for CheckedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

/// The temporary name a group file is written under before the rename:
/// unique to this process.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".partial.{}", std::process::id()));
    PathBuf::from(name)
}

/// Removes the temporary files an interrupted writer of `path` left
/// (`<path>.partial.<pid>`, any process).
pub(crate) fn remove_partials_of(path: &Path) -> Result<(), GenError> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let prefix = format!("{name}.partial.");
    for e in entries.flatten() {
        if e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix))
        {
            std::fs::remove_file(e.path()).map_err(|err| GenError::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// Removes every temporary group file in `dir` (the `units` folder), as a
/// build that holds the folder's lock may.
pub(crate) fn remove_all_partials(dir: &Path) -> Result<(), GenError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        if e.file_name()
            .to_str()
            .is_some_and(|n| n.contains(".dtg.partial."))
        {
            std::fs::remove_file(e.path()).map_err(|err| GenError::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// Writes the group layer `layer` of `id`, whose deepest level of a
/// settled position is `deepest`, to `path`, atomically.
pub(crate) fn write_group(
    path: &Path,
    id: GroupId,
    layer: &Layer,
    deepest: u32,
) -> Result<(), GenError> {
    let Layer::Group {
        keys,
        king_placements,
        values,
    } = layer
    else {
        return Err(GenError::Internal(
            "only a group layer is written to a group file".into(),
        ));
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| GenError::io(dir, e))?;
    }
    let partial = partial_path(path);
    let io = |e: std::io::Error| GenError::io(&partial, e);
    let mut file = match File::create(&partial) {
        // An assembly removed the folder, empty, in between: once more.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| GenError::io(dir, e))?;
            }
            File::create(&partial).map_err(io)?
        }
        other => other.map_err(io)?,
    };
    file.write_all(&[0u8; HEADER_LEN]).map_err(io)?;
    let checked = Checked {
        inner: BufWriter::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
        len: 0,
    };
    let mut encoder = zstd::stream::write::Encoder::new(checked, LEVEL).map_err(io)?;
    write_payload(&mut encoder, values).map_err(io)?;
    let checked = encoder.finish().map_err(io)?;
    let header = GroupHeader {
        id,
        with_dtc: values.has_dtc(),
        deepest: u16::try_from(deepest).unwrap_or(u16::MAX),
        keys_crc: keys_crc(keys),
        king_placements: *king_placements,
        placements: keys.len() as u64,
        payload_len: checked.len,
        payload_crc: checked.crc.finalize(),
    };
    let mut file = checked.inner.into_inner().map_err(|e| io(e.into_error()))?;
    file.rewind().map_err(io)?;
    file.write_all(&header.to_bytes()).map_err(io)?;
    // Not synced: a file cut short by a crash fails its checksums when it
    // is read, and its unit runs again (a sync per group costs more than
    // the small groups take to solve).
    drop(file);
    std::fs::rename(&partial, path).map_err(|e| GenError::io(path, e))
}

/// The CRC-32 of a group's placements (each its side byte and men rank,
/// little-endian).
fn keys_crc(keys: &PlacementKeys) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    let mut buf = Vec::with_capacity(9 << 12);
    for (side, men) in keys.iter() {
        buf.push(side);
        buf.extend_from_slice(&men.to_le_bytes());
        if buf.len() == 9 << 12 {
            crc.update(&buf);
            buf.clear();
        }
    }
    crc.update(&buf);
    crc.finalize()
}

fn write_payload(out: &mut impl Write, values: &PackedValues) -> std::io::Result<()> {
    // Written a buffer at a time: a write to the encoder costs more than
    // a word.
    const CHUNK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(CHUNK + 16);
    let flush = |out: &mut dyn Write, buf: &mut Vec<u8>, force: bool| {
        if force || buf.len() >= CHUNK {
            out.write_all(buf)?;
            buf.clear();
        }
        Ok::<(), std::io::Error>(())
    };
    for w in 0..values.code_words() {
        buf.extend_from_slice(&values.code_word(w).to_le_bytes());
        flush(out, &mut buf, false)?;
    }
    for w in 0..values.capture_words() {
        buf.extend_from_slice(&values.capture_word(w).to_le_bytes());
        flush(out, &mut buf, false)?;
    }
    for byte in values.dtc_bytes() {
        buf.push(byte);
        flush(out, &mut buf, false)?;
    }
    flush(out, &mut buf, true)
}

/// Reads `count` records of `size` bytes from `input`, a buffer at a time,
/// handing each to `each`.
fn read_records(
    input: &mut impl Read,
    count: u64,
    size: usize,
    mut each: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    const CHUNK: u64 = 1 << 13;
    let mut buf = vec![0u8; CHUNK as usize * size];
    let mut left = count;
    while left > 0 {
        let n = left.min(CHUNK) as usize;
        input
            .read_exact(&mut buf[..n * size])
            .map_err(|e| format!("payload: {e}"))?;
        for record in buf[..n * size].chunks_exact(size) {
            each(record)?;
        }
        left -= n as u64;
    }
    Ok(())
}

/// `count` little-endian words from `input`.
fn read_words(input: &mut impl Read, count: u64) -> Result<Vec<u64>, String> {
    let mut out = Vec::with_capacity(usize::try_from(count).map_err(|_| "too many words")?);
    read_records(input, count, 8, |b| {
        out.push(u64::from_le_bytes(b.try_into().unwrap_or_default()));
        Ok(())
    })?;
    Ok(out)
}

/// The group a reader expects: which, its placements (`keys`, sorted;
/// found only once the header is read) and king placements per men
/// placement.
pub(crate) struct ExpectedGroup<K> {
    /// Which group.
    pub(crate) id: GroupId,
    /// Its men placements, sorted.
    pub(crate) keys: K,
    /// King placements per men placement.
    pub(crate) king_placements: u64,
}

/// Reads the group file `path` of the group `expected`, checking it whole
/// (header, placements, the payload's CRC-32, lengths, and DTC bytes if
/// `need_dtc`). The error is a line saying what is wrong.
pub(crate) fn read_group(
    path: &Path,
    expected: ExpectedGroup<impl FnOnce() -> PlacementKeys>,
    need_dtc: bool,
) -> Result<Layer, String> {
    let (header, mut reader) = open_header(path, expected.id, expected.king_placements, need_dtc)?;
    let keys = (expected.keys)();
    if header.placements != keys.len() as u64 || header.keys_crc != keys_crc(&keys) {
        return Err("holds other men placements than its group has".into());
    }
    read_checked_payload(&mut reader, &header, |mut input| {
        read_payload(&mut input, &header, keys)
    })
}

/// Opens the group file `path` and reads its header, checking that it is
/// that of group `id` with `king_placements` per men placement (and DTC
/// bytes if `with_dtc`); returns it and the reader, at the payload.
fn open_header(
    path: &Path,
    id: GroupId,
    king_placements: u64,
    with_dtc: bool,
) -> Result<(GroupHeader, BufReader<File>), String> {
    let (file, _) = format::open_regular(path).map_err(|e| e.to_string())?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; HEADER_LEN];
    reader
        .read_exact(&mut head)
        .map_err(|e| format!("header: {e}"))?;
    let header = GroupHeader::parse(&head)?;
    if header.id != id {
        return Err(format!("holds {:?}, not {:?}", header.id, id));
    }
    if with_dtc && !header.with_dtc {
        return Err("has no DTC values".into());
    }
    if header.king_placements != king_placements {
        return Err("holds other men placements than its group has".into());
    }
    Ok((header, reader))
}

/// Reads the payload that follows in `reader` with `read`, then checks
/// its length and CRC-32 and that nothing follows it.
fn read_checked_payload<T>(
    reader: &mut BufReader<File>,
    header: &GroupHeader,
    read: impl FnOnce(&mut dyn Read) -> Result<T, String>,
) -> Result<T, String> {
    let mut checked = CheckedReader {
        inner: reader.by_ref().take(header.payload_len),
        crc: crc32fast::Hasher::new(),
    };
    let value = read(&mut checked)?;
    // A decoder may stop at the frame's end before the last bytes.
    std::io::copy(&mut checked, &mut std::io::sink()).map_err(|e| e.to_string())?;
    if checked.inner.limit() != 0 {
        return Err("shorter than its header says".into());
    }
    if checked.crc.finalize() != header.payload_crc {
        return Err("payload checksum mismatch".into());
    }
    let mut rest = [0u8; 1];
    if reader.read(&mut rest).map_err(|e| e.to_string())? != 0 {
        return Err("bytes after the payload".into());
    }
    Ok(value)
}

/// The codes of a group's payload (what a group that reads its man steps'
/// values keeps); the capture marks and DTC bytes are decoded and passed
/// over (the assembly reads them through a [`GroupStream`]).
fn read_payload(
    input: &mut impl Read,
    header: &GroupHeader,
    keys: PlacementKeys,
) -> Result<Layer, String> {
    let short = |e: std::io::Error| format!("payload: {e}");
    let mut decoder = zstd::stream::read::Decoder::new(input).map_err(short)?;
    let positions = header
        .placements
        .checked_mul(header.king_placements)
        .ok_or("too many positions")?;
    let codes = read_words(&mut decoder, positions.div_ceil(32))?;
    let rest = positions.div_ceil(64) * 8 + if header.with_dtc { positions } else { 0 };
    let passed =
        std::io::copy(&mut decoder.by_ref().take(rest), &mut std::io::sink()).map_err(short)?;
    if passed != rest {
        return Err("payload shorter than its header says".into());
    }
    let mut end = [0u8; 1];
    if decoder.read(&mut end).map_err(short)? != 0 {
        return Err("payload longer than its header says".into());
    }
    let values = PackedValues::from_words(positions, codes, Vec::new(), Vec::new())
        .ok_or("payload lengths do not match")?;
    Ok(Layer::Group {
        keys,
        king_placements: header.king_placements,
        values,
    })
}

/// A group file read front to back, a window of positions at a time: the
/// assembly's view of a group, which never holds the group whole. Opening
/// checks the header and the payload's length and CRC-32 (a pass over the
/// compressed bytes); [`GroupStream::holds`] checks its placements against
/// those the reader expects.
pub(crate) struct GroupStream {
    header: GroupHeader,
    positions: u64,
    codes: Box<dyn Read + Send>,
    marks: Box<dyn Read + Send>,
    dtc: Option<Box<dyn Read + Send>>,
    /// Positions `window_first..` of the group.
    window: PackedValues,
    window_first: u64,
    /// The next position to hand over.
    next: u64,
}

/// Positions a [`GroupStream`] decodes at a time (a multiple of 64).
const STREAM_WINDOW: u64 = 1 << 20;

impl GroupStream {
    /// Opens the group file `path` of group `id` (`king_placements` per
    /// men placement), with its DTC bytes if `with_dtc`. The error is a
    /// line saying what is wrong.
    pub(crate) fn open(
        path: &Path,
        id: GroupId,
        king_placements: u64,
        with_dtc: bool,
    ) -> Result<GroupStream, String> {
        let header = check_whole_file(path, id, king_placements, with_dtc)?;
        let positions = header
            .placements
            .checked_mul(king_placements)
            .ok_or("too many positions")?;
        let code_bytes = positions.div_ceil(32) * 8;
        let mark_bytes = positions.div_ceil(64) * 8;
        let dtc = if with_dtc {
            Some(payload_from(path, &header, code_bytes + mark_bytes)?)
        } else {
            None
        };
        Ok(GroupStream {
            positions,
            codes: payload_from(path, &header, 0)?,
            marks: payload_from(path, &header, code_bytes)?,
            dtc,
            window: PackedValues::from_words(0, Vec::new(), Vec::new(), Vec::new())
                .ok_or("an empty window")?,
            window_first: 0,
            next: 0,
            header,
        })
    }

    /// The deepest level at which a position of the group settled.
    pub(crate) fn deepest(&self) -> u32 {
        u32::from(self.header.deepest)
    }

    /// Checks that the file holds `placements` men placements whose keys,
    /// in order, hash to `keys_crc` (see [`KeysCrc`]).
    pub(crate) fn holds(&self, placements: u64, keys_crc: u32) -> Result<(), String> {
        if self.header.placements != placements || self.header.keys_crc != keys_crc {
            return Err("holds other men placements than its group has".into());
        }
        Ok(())
    }

    /// Hands over the next `count` positions, copied to `dst` from
    /// `dst_start` on (or skipped, when `dst` is `None`).
    pub(crate) fn copy_next(
        &mut self,
        dst: Option<(&PackedValues, u64)>,
        count: u64,
    ) -> Result<(), String> {
        let mut copied = 0;
        while copied < count {
            if self.next >= self.window_first + self.window.len() {
                self.read_window(self.next)?;
            }
            let n = (count - copied).min(self.window_first + self.window.len() - self.next);
            if let Some((dst, dst_start)) = dst {
                dst.copy_run(
                    dst_start + copied,
                    &self.window,
                    self.next - self.window_first,
                    n,
                );
            }
            copied += n;
            self.next += n;
        }
        Ok(())
    }

    /// Decodes the window that starts at `first` (the end of the last).
    fn read_window(&mut self, first: u64) -> Result<(), String> {
        if first >= self.positions {
            return Err("holds fewer positions than its group has".into());
        }
        let n = STREAM_WINDOW.min(self.positions - first);
        let codes = read_words(&mut self.codes, n.div_ceil(32))?;
        let marks = read_words(&mut self.marks, n.div_ceil(64))?;
        let mut dtc = Vec::new();
        if let Some(input) = &mut self.dtc {
            dtc = vec![0u8; n as usize];
            input
                .read_exact(&mut dtc)
                .map_err(|e| format!("payload: {e}"))?;
        }
        self.window =
            PackedValues::from_words(n, codes, marks, dtc).ok_or("payload lengths do not match")?;
        self.window_first = first;
        Ok(())
    }
}

/// The CRC-32 of a group's placements, fed one at a time in key order (as
/// [`keys_crc`] finds it of a list).
#[derive(Default)]
pub(crate) struct KeysCrc {
    crc: crc32fast::Hasher,
    count: u64,
}

impl KeysCrc {
    /// Adds the next placement.
    pub(crate) fn push(&mut self, (side, men): PlacementKey) {
        let mut bytes = [0u8; 9];
        bytes[0] = side;
        bytes[1..].copy_from_slice(&men.to_le_bytes());
        self.crc.update(&bytes);
        self.count += 1;
    }

    /// The placements pushed, and their CRC-32.
    pub(crate) fn finish(self) -> (u64, u32) {
        (self.count, self.crc.finalize())
    }
}

/// Reads the header of the group file `path`, checks it is that of `id`
/// (`king_placements`, DTC bytes if `with_dtc`), and checks the payload's
/// length and CRC-32 over the whole file.
fn check_whole_file(
    path: &Path,
    id: GroupId,
    king_placements: u64,
    with_dtc: bool,
) -> Result<GroupHeader, String> {
    let (header, mut reader) = open_header(path, id, king_placements, with_dtc)?;
    read_checked_payload(&mut reader, &header, |_| Ok(()))?;
    Ok(header)
}

/// The payload of the group file `path` (checked), decoded and read from
/// byte `skip` of the decoded stream on.
fn payload_from(
    path: &Path,
    header: &GroupHeader,
    skip: u64,
) -> Result<Box<dyn Read + Send>, String> {
    let (mut file, _) = format::open_regular(path).map_err(|e| e.to_string())?;
    file.seek(std::io::SeekFrom::Start(HEADER_LEN as u64))
        .map_err(|e| e.to_string())?;
    let compressed = BufReader::with_capacity(1 << 16, file.take(header.payload_len));
    let mut decoder = zstd::stream::read::Decoder::with_buffer(compressed)
        .map_err(|e| format!("payload: {e}"))?;
    let skipped = std::io::copy(&mut decoder.by_ref().take(skip), &mut std::io::sink())
        .map_err(|e| format!("payload: {e}"))?;
    if skipped != skip {
        return Err("payload shorter than its header says".into());
    }
    Ok(Box::new(decoder))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_layer(with_dtc: bool) -> Layer {
        let keys = [(0, 3), (0, 7), (1, 2)].into_iter().collect();
        let values = PackedValues::new(3 * 45, with_dtc).unwrap();
        for i in 0..values.len() {
            values.store(i, (i % 3) as u8, i % 5 == 0);
            values.store_dtc(i, (i % 200) as u32);
        }
        Layer::Group {
            keys,
            king_placements: 45,
            values,
        }
    }

    fn expected(id: GroupId) -> ExpectedGroup<impl FnOnce() -> PlacementKeys> {
        with_keys(id, vec![(0, 3), (0, 7), (1, 2)])
    }

    fn with_keys(
        id: GroupId,
        keys: Vec<PlacementKey>,
    ) -> ExpectedGroup<impl FnOnce() -> PlacementKeys> {
        ExpectedGroup {
            id,
            keys: move || keys.into_iter().collect(),
            king_placements: 45,
        }
    }

    fn id() -> GroupId {
        GroupId {
            material: "KM-K".parse().unwrap(),
            rule_set: RuleSet::Fmjd,
            advancement: 5,
            part: None,
        }
    }

    #[test]
    fn a_group_file_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("units/KM-K.a5.dtg");
        let layer = sample_layer(true);
        write_group(&path, id(), &layer, 51).unwrap();
        let back = read_group(&path, expected(id()), true).unwrap();
        let stream = GroupStream::open(&path, id(), 45, true).unwrap();
        assert_eq!(stream.deepest(), 51);
        let (
            Layer::Group {
                keys: ka,
                values: va,
                ..
            },
            Layer::Group {
                keys: kb,
                values: vb,
                ..
            },
        ) = (&layer, &back)
        else {
            panic!("group layers expected");
        };
        assert_eq!(ka, kb);
        for i in 0..va.len() {
            assert_eq!(va.code(i), vb.code(i));
        }
        // No temporary file is left.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }

    /// The keys of `sample_layer`, hashed as a stream's reader does.
    fn sample_keys_crc() -> (u64, u32) {
        let mut crc = KeysCrc::default();
        for key in [(0, 3), (0, 7), (1, 2)] {
            crc.push(key);
        }
        crc.finish()
    }

    #[test]
    fn a_group_file_streams_back_as_written_in_any_pieces() {
        // Over a million positions: the stream reads several windows.
        let keys = [(0, 3), (0, 7), (1, 2)].into_iter().collect();
        let kings = 400_003;
        let values = PackedValues::new(3 * kings, true).unwrap();
        for i in 0..values.len() {
            values.store(i, (i % 3) as u8, i % 5 == 0);
            values.store_dtc(i, (i % 200) as u32);
        }
        let layer = Layer::Group {
            keys,
            king_placements: kings,
            values,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.dtg");
        write_group(&path, id(), &layer, 0).unwrap();
        let Layer::Group { values, .. } = &layer else {
            unreachable!("built above");
        };
        let (count, crc) = sample_keys_crc();
        let mut stream = GroupStream::open(&path, id(), kings, true).unwrap();
        stream.holds(count, crc).unwrap();
        assert!(stream.holds(count, crc ^ 1).is_err());
        // The first 1001 positions passed over, the rest in uneven pieces.
        stream.copy_next(None, 1001).unwrap();
        let back = PackedValues::new(values.len() - 1001, true).unwrap();
        let mut at = 0;
        for piece in (1..).map(|j: u64| j * j * 977) {
            let n = piece.min(back.len() - at);
            stream.copy_next(Some((&back, at)), n).unwrap();
            at += n;
            if at == back.len() {
                break;
            }
        }
        for i in 0..back.len() {
            let j = i + 1001;
            assert_eq!(back.code(i), values.code(j), "code {j}");
            assert_eq!(back.is_capture(i), values.is_capture(j), "mark {j}");
            assert_eq!(back.dtc(i), values.dtc(j), "dtc {j}");
        }
        assert!(stream.copy_next(None, 1).is_err(), "past the end");
    }

    #[test]
    fn a_damaged_or_other_group_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.dtg");
        write_group(&path, id(), &sample_layer(false), 0).unwrap();
        assert!(
            read_group(&path, expected(id()), true).is_err(),
            "no DTC in it"
        );
        let other = GroupId {
            advancement: 6,
            ..id()
        };
        assert!(read_group(&path, expected(other), false).is_err());
        let a_part = GroupId {
            part: Some(0x312),
            ..id()
        };
        assert!(read_group(&path, expected(a_part), false).is_err());
        let moved = with_keys(id(), vec![(0, 3), (0, 8), (1, 2)]);
        assert!(read_group(&path, moved, false).is_err());
        let bytes = std::fs::read(&path).unwrap();
        for cut in [10, HEADER_LEN, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(
                read_group(&path, expected(id()), false).is_err(),
                "cut at {cut}"
            );
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x10;
        std::fs::write(&path, &flipped).unwrap();
        assert!(read_group(&path, expected(id()), false).is_err());
        assert!(GroupStream::open(&path, id(), 45, false).is_err());
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_group(&path, expected(id()), false).is_ok());
        assert!(GroupStream::open(&path, id(), 45, false).is_ok());
        assert!(GroupStream::open(&path, id(), 45, true).is_err(), "no DTC");
        assert!(GroupStream::open(&path, id(), 46, false).is_err());
        for cut in [10, HEADER_LEN, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(GroupStream::open(&path, id(), 45, false).is_err(), "{cut}");
        }
    }
}
