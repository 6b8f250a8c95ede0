//! The table directory on disk: where each rule set's tables live, which
//! files are tables, and how a table file (or the manifest) is opened: only
//! regular files, read with bounds, so that a FIFO, a device or a
//! directory in a table's place is an error naming it, never a hang.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::FormatError;
use crate::header::{Header, HEADER_LEN};
use crate::material::Material;
use crate::value::{RuleSet, ValueKind};

/// The extension of table files.
pub const TABLE_EXTENSION: &str = "dtb";

/// The folder of one rule set's tables under a table directory
/// (`<root>/<rule set name>/`).
pub fn table_dir(root: &Path, rule_set: RuleSet) -> PathBuf {
    root.join(rule_set.name())
}

/// The file of `material`'s table in a rule set's folder.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(material.file_name())
}

/// The extension of distance-to-conversion files, beside the tables.
pub const DTC_EXTENSION: &str = "dtc";

/// The file of `material`'s DTC values in a rule set's folder
/// (`KKM-K.dtc`).
pub fn dtc_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(dtc_file_name(material))
}

/// The name of `material`'s DTC file.
pub fn dtc_file_name(material: Material) -> String {
    format!("{material}.{DTC_EXTENSION}")
}

/// The material a file name stands for, if it is the canonical name of a
/// table file (`KKM-K.dtb`).
pub fn material_of_file_name(name: &str) -> Option<Material> {
    let stem = name.strip_suffix(".dtb")?;
    let material: Material = stem.parse().ok()?;
    (material.file_name() == name).then_some(material)
}

/// The material a file name stands for, if it is the canonical name of a
/// DTC file (`KKM-K.dtc`).
pub fn material_of_dtc_file_name(name: &str) -> Option<Material> {
    let stem = name.strip_suffix(".dtc")?;
    let material: Material = stem.parse().ok()?;
    (dtc_file_name(material) == name).then_some(material)
}

/// The materials of every table file in a rule set's folder (by name; the
/// files are not opened), in build order.
pub fn list_tables(dir: &Path) -> Result<Vec<Material>, FormatError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FormatError::io(dir, e))?;
    let mut out: Vec<Material> = entries
        .flatten()
        .filter_map(|e| material_of_file_name(e.file_name().to_str()?))
        .collect();
    out.sort_by_key(|m| m.build_key());
    Ok(out)
}

/// Removes the temporary files (`<material>.dtb.partial` and
/// `<material>.dtc.partial`, see
/// [`crate::temporary_path`]) that an interrupted writer left in a rule
/// set's folder.
pub fn remove_partial_tables(dir: &Path) -> Result<(), FormatError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FormatError::io(dir, e))?;
    for e in entries.flatten() {
        let partial = e
            .file_name()
            .to_str()
            .and_then(|name| name.strip_suffix(".partial"))
            .is_some_and(|stem| {
                material_of_file_name(stem).is_some() || material_of_dtc_file_name(stem).is_some()
            });
        if partial {
            std::fs::remove_file(e.path()).map_err(|err| FormatError::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// Opens `path` for reading if it is a regular file (following symbolic
/// links), with its length. Opening does not block on a FIFO; anything
/// but a regular file is [`FormatError::NotRegularFile`].
pub fn open_regular(path: &Path) -> Result<(File, u64), FormatError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Without O_NONBLOCK, opening a FIFO waits for a writer forever.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| FormatError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FormatError::io(path, e))?;
    if !meta.is_file() {
        return Err(FormatError::NotRegularFile(path.display().to_string()));
    }
    Ok((file, meta.len()))
}

/// Reads the whole regular file `path`, refusing files longer than
/// `max_bytes`; reads at most the length the file had when opened.
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Vec<u8>, FormatError> {
    let (file, len) = open_regular(path)?;
    if len > max_bytes {
        return Err(FormatError::Corrupt(format!(
            "{} is {len} bytes, more than the {max_bytes} expected",
            path.display()
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| FormatError::io(path, e))?;
    Ok(bytes)
}

/// Reads and checks the header of the table file at `path` against the
/// file's length (only the header is read).
pub fn read_header(path: &Path) -> Result<Header, FormatError> {
    let (file, len) = open_regular(path)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    file.take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| FormatError::io(path, e))?;
    let header = Header::parse(&bytes)?;
    if header.file_length != len {
        return Err(FormatError::Truncated(format!(
            "{len} bytes, the header says {}",
            header.file_length
        )));
    }
    Ok(header)
}

/// Feeds the bytes of the regular file `path` from `from` on to `chunk`,
/// a mebibyte at a time (memory stays bounded whatever the file's size),
/// up to the length the file had when opened.
pub fn read_chunks(
    path: &Path,
    from: u64,
    mut chunk: impl FnMut(&[u8]),
) -> Result<u64, FormatError> {
    use std::io::{Seek, SeekFrom};
    let (mut file, len) = open_regular(path)?;
    file.seek(SeekFrom::Start(from.min(len)))
        .map_err(|e| FormatError::io(path, e))?;
    let mut rest = file.take(len.saturating_sub(from));
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0;
    loop {
        let n = rest
            .read(&mut buffer)
            .map_err(|e| FormatError::io(path, e))?;
        if n == 0 {
            return Ok(total);
        }
        chunk(&buffer[..n]);
        total += n as u64;
    }
}

/// Checks the table file at `path` without holding it in memory: its
/// header (against the file's length) and the CRC-32 of everything after
/// it. The blocks' own checksums are checked when they are decoded.
pub fn check_table_file(path: &Path) -> Result<Header, FormatError> {
    let header = read_header(path)?;
    let mut crc = crc32fast::Hasher::new();
    let read = read_chunks(path, HEADER_LEN as u64, |bytes| crc.update(bytes))?;
    if read + HEADER_LEN as u64 != header.file_length {
        return Err(FormatError::Truncated(
            "the file changed length while it was read".into(),
        ));
    }
    if crc.finalize() != header.body_crc {
        return Err(FormatError::Checksum("table body"));
    }
    Ok(header)
}

/// Checks the file at `path` whole (see [`check_table_file`]) and that
/// its header is that of `material`'s file of `kind` under `rule_set`:
/// the one check that a file is what its name says.
///
/// # Errors
/// Those of [`check_table_file`], and [`FormatError::Corrupt`] naming
/// what the header says instead.
pub fn check_file_of(
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    kind: ValueKind,
) -> Result<Header, FormatError> {
    let h = check_table_file(path)?;
    match h.mismatch(material, rule_set, kind) {
        Some(mismatch) => Err(FormatError::Corrupt(format!(
            "not the {} file of {material} under {rule_set}: {mismatch}",
            kind.name()
        ))),
        None => Ok(h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_regular(dir.path()).unwrap_err();
        assert!(matches!(err, FormatError::NotRegularFile(_)), "{err}");
        #[cfg(unix)]
        {
            let dev_zero = Path::new("/dev/zero");
            if dev_zero.exists() {
                let err = read_regular(dev_zero, 1 << 20).unwrap_err();
                assert!(matches!(err, FormatError::NotRegularFile(_)), "{err}");
            }
        }
        let file = dir.path().join("KM-K.dtb");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_regular(&file, 10).unwrap().len(), 10);
        assert!(read_regular(&file, 9).is_err());
        assert!(matches!(
            read_header(&file),
            Err(FormatError::BadMagic | FormatError::Truncated(_))
        ));
        let missing = open_regular(&dir.path().join("K-K.dtb")).unwrap_err();
        assert!(missing.is_not_found());
    }

    #[test]
    fn table_names() {
        assert_eq!(
            material_of_file_name("KM-K.dtb"),
            Some("KM-K".parse().unwrap())
        );
        assert_eq!(material_of_file_name("km-k.dtb"), None);
        assert_eq!(material_of_file_name("KM-K.dtb.partial"), None);
        assert_eq!(
            material_of_dtc_file_name("KM-K.dtc"),
            Some("KM-K".parse().unwrap())
        );
        assert_eq!(material_of_dtc_file_name("KM-K.dtb"), None);
    }
}
