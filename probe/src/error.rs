//! Errors of the prober. None of them is a panic: a bad file, a missing
//! table or an impossible position each come back as a value.

use std::path::PathBuf;

use format::{FormatError, Material, RuleSet};
use thiserror::Error;

/// Why a probe failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The position has more pieces than any table here.
    #[error("{pieces} pieces: tables go up to {max} pieces")]
    TooManyPieces {
        /// Pieces in the position.
        pieces: u32,
        /// The most pieces a table can have.
        max: u32,
    },
    /// A table the probe needs is not in the directory.
    #[error("missing table {material} ({})", path.display())]
    MissingTable {
        /// The material whose table is missing.
        material: Material,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A table file is damaged.
    #[error("corrupted table {}: {source}", path.display())]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: FormatError,
    },
    /// A table was built under other rules than the ones asked for.
    #[error("{} was built for rule set {found}, not {expected}", path.display())]
    RuleSetMismatch {
        /// The file.
        path: PathBuf,
        /// The rule set the prober was opened with.
        expected: RuleSet,
        /// The rule set in the file's header.
        found: RuleSet,
    },
    /// The file does not hold the material its name says.
    #[error("{} holds material {found}, not {expected}", path.display())]
    WrongMaterial {
        /// The file.
        path: PathBuf,
        /// The material named by the file name.
        expected: Material,
        /// The material in the header.
        found: Material,
    },
    /// A position no table can answer (for instance the side not to move
    /// has no pieces: the game is already over).
    #[error("{0}")]
    InvalidPosition(String),
    /// A bad plies-left value.
    #[error("plies left must be between 0 and {max} in this ending (got {got})")]
    BadPliesLeft {
        /// The value given.
        got: u32,
        /// The largest meaningful value.
        max: u32,
    },
    /// A bad count of king-only plies (the 25-move rule).
    #[error("king-only plies must be between 0 and 49 (got {got}): at 50 the game is drawn")]
    BadKingsOnlyPlies {
        /// The value given.
        got: u32,
    },
    /// The folder of a rule set's tables is missing or unreadable (at
    /// [`crate::Tablebase::open`]).
    #[error("no {rule_set} tables: {} cannot be read ({source})", path.display())]
    MissingDirectory {
        /// The folder looked for (`<dir>/<rule set>`).
        path: PathBuf,
        /// The rule set asked for.
        rule_set: RuleSet,
        /// What the system said.
        source: std::io::Error,
    },
    /// An I/O error other than a missing file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl ProbeError {
    /// Whether a table (or the whole folder of tables) is missing.
    pub fn is_missing_table(&self) -> bool {
        matches!(
            self,
            ProbeError::MissingTable { .. } | ProbeError::MissingDirectory { .. }
        )
    }

    /// Whether a table is damaged or not what its name says.
    pub fn is_corrupted(&self) -> bool {
        matches!(
            self,
            ProbeError::Corrupted { .. }
                | ProbeError::WrongMaterial { .. }
                | ProbeError::RuleSetMismatch { .. }
        )
    }
}
