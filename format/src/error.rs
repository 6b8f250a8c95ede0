//! Errors of the format crate.

use thiserror::Error;

/// A material name or count that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MaterialError {
    /// Not of the form `KKM-K`.
    #[error(
        "{0:?} is not a material name (write it like KKM-K: White's kings and men, '-', Black's)"
    )]
    BadName(String),
    /// A side without pieces.
    #[error("material {0} gives a side no pieces (each side needs at least one)")]
    EmptySide(String),
    /// More pieces than a side can have.
    #[error("material {0} has more than 20 pieces on a side")]
    TooManyPieces(String),
    /// More positions than a 64-bit index can number.
    #[error("material {0} has more positions than a 64-bit index can number")]
    TooManyPositions(String),
}

/// A table file that cannot be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FormatError {
    /// An I/O error, with the file it happened on.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A FIFO, a device, a directory... where a table file should be.
    #[error("{0} is not a regular file")]
    NotRegularFile(String),
    /// The file does not start with the table magic.
    #[error("not a draughts-tb table (wrong magic bytes)")]
    BadMagic,
    /// A format version this code does not read.
    #[error("table format version {0} is not supported (this build reads version 1)")]
    UnsupportedVersion(u32),
    /// The file is shorter than its header says.
    #[error("table is truncated ({0})")]
    Truncated(String),
    /// A checksum does not match.
    #[error("checksum mismatch in the {0}")]
    Checksum(&'static str),
    /// Any other inconsistency.
    #[error("corrupted table: {0}")]
    Corrupt(String),
    /// A rule set name that does not exist.
    #[error("unknown rule set {0:?} (use fmjd, fmjd-diagonal or pure)")]
    UnknownRuleSet(String),
    /// The writer was used wrongly (too many or too few values).
    #[error("table writer: {0}")]
    Writer(String),
}

impl FormatError {
    /// Wraps an I/O error with its path.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> FormatError {
        FormatError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// Whether the error says the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, FormatError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// Whether the error means the file's bytes are damaged (as opposed to
    /// an I/O failure).
    pub fn is_corruption(&self) -> bool {
        !matches!(
            self,
            FormatError::Io { .. } | FormatError::UnknownRuleSet(_) | FormatError::Writer(_)
        )
    }
}
