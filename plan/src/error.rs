//! Errors of a build and of its check (the builder, the checker and the
//! plan's lookups all return [`GenError`]).

use format::{FormatError, Material};
use probe::ProbeError;
use thiserror::Error;

/// Why a build, a unit or a check stopped.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GenError {
    /// Reading a smaller table failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// Reading or writing a table file failed.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A table file read whole is damaged or cut short.
    #[error("{path}: {source}")]
    Table {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: FormatError,
    },
    /// A file system operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The material does not fit in memory on this machine's address space.
    #[error("material {0} is too large to solve in memory")]
    TooLarge(Material),
    /// A distance exceeds what a distance table can store.
    #[error("material {0}: a distance exceeds 126 plies")]
    DistanceOverflow(Material),
    /// A unit's input is missing or incomplete (a table or a group's
    /// output that the units before it write).
    #[error("unit {unit} cannot run: {path}: {reason}")]
    MissingInput {
        /// The unit.
        unit: String,
        /// The input.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Bad options.
    #[error("{0}")]
    BadOptions(String),
    /// A broken invariant (a bug).
    #[error("internal error: {0}")]
    Internal(String),
}

impl GenError {
    /// Names the file `path` in an error met while reading it (an I/O
    /// error names it already).
    pub fn in_file(path: &std::path::Path, source: FormatError) -> GenError {
        match source {
            FormatError::Io { .. } => GenError::Format(source),
            source => GenError::Table {
                path: path.display().to_string(),
                source,
            },
        }
    }

    /// Wraps an I/O error with its path.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> GenError {
        GenError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
