//! One opened table file: memory-mapped, validated, with an optional fully
//! decoded copy for the generator.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use format::{Material, MaterialIndex, RuleSet, TableReader, ValueKind};
use memmap2::Mmap;

use crate::error::ProbeError;

/// A validated, memory-mapped table.
pub(crate) struct Table {
    pub(crate) id: u32,
    pub(crate) path: PathBuf,
    pub(crate) reader: TableReader<Mmap>,
    pub(crate) kind: ValueKind,
    pub(crate) per_block: u64,
    pub(crate) index: MaterialIndex,
    /// Every value decoded, one byte per position (WLD code or distance
    /// byte), when the table was preloaded.
    pub(crate) decoded: OnceLock<Vec<u8>>,
}

impl Table {
    /// Opens and validates `path`, which must hold `material` built under
    /// `rule_set`.
    pub(crate) fn open(
        id: u32,
        path: &Path,
        material: Material,
        rule_set: RuleSet,
    ) -> Result<Table, ProbeError> {
        let file = File::open(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                ProbeError::MissingTable {
                    material,
                    path: path.to_path_buf(),
                }
            } else {
                ProbeError::Io {
                    path: path.to_path_buf(),
                    source: e,
                }
            }
        })?;
        // SAFETY: table files are written under a temporary name and
        // renamed into place when complete; draughts-tb never modifies or
        // truncates a finished table, so the mapped bytes do not change
        // while mapped. Another process truncating the file would be the
        // one way to break this (as for every memory-mapped reader); every
        // byte read is bounds-checked against the length validated here.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| ProbeError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let reader = TableReader::new(map).map_err(|source| ProbeError::Corrupted {
            path: path.to_path_buf(),
            source,
        })?;
        let header = reader.header();
        if header.material != material {
            return Err(ProbeError::WrongMaterial {
                path: path.to_path_buf(),
                expected: material,
                found: header.material,
            });
        }
        if header.rule_set != rule_set {
            return Err(ProbeError::RuleSetMismatch {
                path: path.to_path_buf(),
                expected: rule_set,
                found: header.rule_set,
            });
        }
        if header.value_kind != format::value_kind(material, rule_set) {
            return Err(ProbeError::Corrupted {
                path: path.to_path_buf(),
                source: format::FormatError::Corrupt(
                    "value kind does not match the material".into(),
                ),
            });
        }
        Ok(Table {
            id,
            path: path.to_path_buf(),
            kind: header.value_kind,
            per_block: header.positions_per_block as u64,
            index: MaterialIndex::new(material),
            reader,
            decoded: OnceLock::new(),
        })
    }

    pub(crate) fn corrupted(&self, source: format::FormatError) -> ProbeError {
        ProbeError::Corrupted {
            path: self.path.clone(),
            source,
        }
    }
}
