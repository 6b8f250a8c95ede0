//! One opened table file: memory-mapped or read with positioned reads
//! (see [`crate::Storage`]), validated, with an optional fully decoded
//! copy for the generator.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::SystemTime;

use format::{
    FormatError, HeaderMismatch, Material, MaterialIndex, PositionedFile, RuleSet, TableReader,
    TableSource, ValueKind,
};
use memmap2::Mmap;

use crate::error::ProbeError;
use crate::mapped::MappedRange;

/// How a [`Tablebase`](crate::Tablebase) reads its files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Storage {
    /// Memory-mapped (the default): blocks are read in place, the page
    /// cache is shared between processes. A file cut short by another
    /// process *during* a read raises SIGBUS (see
    /// [`crate::install_sigbus_guard`]).
    #[default]
    Mapped,
    /// Positioned reads (`pread`) of each block into the block cache:
    /// one system call per block decoded, no mapping, no signal ever (a
    /// file cut short gives an error). For tables on network
    /// filesystems, and for hosts that own SIGBUS.
    PositionedReads,
}

/// Which file of a material: its table, or its distances to conversion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FileKind {
    /// The `.dtb` table (WLD or distances).
    Values,
    /// The `.dtc` file.
    Dtc,
}

/// A table file's bytes: mapped, or read block by block.
pub(crate) enum Source {
    Mapped(Mmap),
    Read(PositionedFile),
}

impl TableSource for Source {
    fn byte_len(&self) -> u64 {
        match self {
            Source::Mapped(map) => map.len() as u64,
            Source::Read(file) => file.byte_len(),
        }
    }

    fn in_memory(&self) -> Option<&[u8]> {
        match self {
            Source::Mapped(map) => Some(map),
            Source::Read(_) => None,
        }
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), FormatError> {
        match self {
            Source::Mapped(map) => (&map[..]).read_at(offset, out),
            Source::Read(file) => file.read_at(offset, out),
        }
    }
}

/// Each opened table gets its own id, so that blocks decoded from a file
/// that was later replaced are never mistaken for the new file's.
static NEXT_TABLE_ID: AtomicU32 = AtomicU32::new(0);

/// What identifies the bytes of an open file: if its length, modification
/// or status-change time changes, it was rewritten in place (the inode and
/// device say it is the same file).
#[derive(Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    unix: (i64, i64, u64, u64),
}

impl FileStamp {
    fn of(file: &File) -> std::io::Result<FileStamp> {
        let meta = file.metadata()?;
        Ok(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            unix: {
                use std::os::unix::fs::MetadataExt;
                (meta.ctime(), meta.ctime_nsec(), meta.ino(), meta.dev())
            },
        })
    }
}

/// A validated, memory-mapped table.
pub(crate) struct Table {
    pub(crate) id: u32,
    pub(crate) path: PathBuf,
    pub(crate) reader: TableReader<Source>,
    pub(crate) kind: ValueKind,
    pub(crate) per_block: u64,
    /// A version-2 WLD table whose threat positions
    /// (`format::FLAG_THREATS_SEARCHED`) or quiet positions
    /// (`format::FLAG_QUIET_SEARCHED`) hold "don't care", less the
    /// spread ones it stores: the positions found by search.
    pub(crate) search_rule: Option<format::SearchRule>,
    /// A file that stores no values (`format::FLAG_FROM_MIRROR`): each is
    /// found by a one-ply search over the mirror material's file.
    pub(crate) from_mirror: bool,
    pub(crate) index: MaterialIndex,
    /// Every value decoded when the table was preloaded: the blocks'
    /// uncompressed streams joined (2 bits per position for WLD tables, a
    /// byte for distance tables; see `TableReader::decode_all_raw`).
    pub(crate) decoded: OnceLock<Vec<u8>>,
    /// Where the file is mapped (`None`: read with positioned reads).
    range: Option<MappedRange>,
    file: File,
    stamp: FileStamp,
}

impl Table {
    /// Opens and validates `path`, which must hold `material`'s file of
    /// `kind` built under `rule_set`, to be read as `storage` says.
    pub(crate) fn open(
        path: &Path,
        material: Material,
        rule_set: RuleSet,
        kind: FileKind,
        storage: Storage,
    ) -> Result<Table, ProbeError> {
        let (file, len) = format::open_regular(path).map_err(|e| open_error(e, path, material))?;
        let stamp = FileStamp::of(&file).map_err(|e| ProbeError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let (source, range) = match storage {
            Storage::Mapped => {
                let map = map_file(&file, path)?;
                let range = MappedRange::of(&map);
                (Source::Mapped(map), Some(range))
            }
            Storage::PositionedReads => {
                let read = file.try_clone().map_err(|e| ProbeError::Io {
                    path: path.to_path_buf(),
                    source: e,
                })?;
                (Source::Read(PositionedFile::new(read, len, path)), None)
            }
        };
        let truncated = || ProbeError::Corrupted {
            path: path.to_path_buf(),
            source: FormatError::Truncated("the file was cut short while it was read".into()),
        };
        let reader = guarded(range, || TableReader::new(source))
            .map_err(|_| truncated())?
            .map_err(|source| ProbeError::Corrupted {
                path: path.to_path_buf(),
                source,
            })?;
        let expected = match kind {
            FileKind::Values => format::value_kind(material, rule_set),
            FileKind::Dtc => ValueKind::Dtc,
        };
        check_header(reader.header(), path, material, rule_set, expected)?;
        Ok(Table {
            id: NEXT_TABLE_ID.fetch_add(1, Ordering::Relaxed),
            path: path.to_path_buf(),
            kind: reader.header().value_kind,
            per_block: reader.header().positions_per_block as u64,
            search_rule: format::SearchRule::of(&reader),
            from_mirror: reader.header().from_mirror,
            index: MaterialIndex::new(material),
            reader,
            decoded: OnceLock::new(),
            range,
            file,
            stamp,
        })
    }

    /// Whether the file is memory-mapped (else read with positioned
    /// reads).
    pub(crate) fn is_mapped(&self) -> bool {
        self.range.is_some()
    }

    /// Runs `read`, which reads this table's bytes, guarded against the
    /// file being cut short under a mapping (see `mapped::guarded`);
    /// positioned reads need no guard: a short read is an error.
    pub(crate) fn guarded<T>(
        &self,
        read: impl FnOnce() -> T,
    ) -> Result<T, crate::mapped::Truncated> {
        guarded(self.range, read)
    }

    /// Whether the file still has the length and modification time it had
    /// when mapped (one `fstat`; called before reading the mapping).
    pub(crate) fn unchanged(&self) -> bool {
        FileStamp::of(&self.file).is_ok_and(|s| s == self.stamp)
    }

    pub(crate) fn corrupted(&self, source: FormatError) -> ProbeError {
        ProbeError::Corrupted {
            path: self.path.clone(),
            source,
        }
    }
}

/// Runs `read` under the SIGBUS guard of the mapping `range`, if any.
fn guarded<T>(
    range: Option<MappedRange>,
    read: impl FnOnce() -> T,
) -> Result<T, crate::mapped::Truncated> {
    match range {
        Some(range) => crate::mapped::guarded(range, read),
        None => Ok(read()),
    }
}

/// Maps `file` (at `path`) into memory.
fn map_file(file: &File, path: &Path) -> Result<Mmap, ProbeError> {
    // SAFETY: mapping a file is sound as long as its bytes are not
    // changed or cut short while mapped. draughts-tb never does that
    // (finished tables are renamed into place and never rewritten).
    // Another process may: a rewrite in place is noticed by the file's
    // stamp, checked before every read of the mapping (see
    // `Table::unchanged`), and the table is then opened afresh; a cut
    // in the middle of a read raises SIGBUS, which `mapped::guarded`
    // turns into an error instead of the end of the process when the
    // host installed the guard (`install_sigbus_guard`), and which
    // ends the process otherwise (a signal, not undefined behaviour:
    // the read never returns), unless a handler of the host's own
    // resumes the read or jumps out of it, which is the host's
    // responsibility. Every byte read is bounds-checked against the
    // length validated here.
    unsafe { Mmap::map(file) }.map_err(|e| ProbeError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

fn open_error(e: FormatError, path: &Path, material: Material) -> ProbeError {
    let path = path.to_path_buf();
    match e {
        e if e.is_not_found() => ProbeError::MissingTable { material, path },
        FormatError::Io { source, .. } => ProbeError::Io { path, source },
        source => ProbeError::Corrupted { path, source },
    }
}

/// Refuses a file whose header is not that of `material`'s file of
/// `expected` under `rule_set`, naming what it holds instead.
fn check_header(
    header: &format::Header,
    path: &Path,
    material: Material,
    rule_set: RuleSet,
    expected: ValueKind,
) -> Result<(), ProbeError> {
    let Some(mismatch) = header.mismatch(material, rule_set, expected) else {
        return Ok(());
    };
    let path = path.to_path_buf();
    match mismatch {
        HeaderMismatch::Material(found) => Err(ProbeError::WrongMaterial {
            path,
            expected: material,
            found,
        }),
        HeaderMismatch::RuleSet(found) => Err(ProbeError::RuleSetMismatch {
            path,
            expected: rule_set,
            found,
        }),
        mismatch => Err(ProbeError::Corrupted {
            path,
            source: FormatError::Corrupt(format!("{material}: {mismatch}")),
        }),
    }
}
