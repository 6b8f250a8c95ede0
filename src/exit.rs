//! The command line's error type and exit codes.

use std::path::Path;

use probe::{ProbeError, RuleSet};

use crate::costs::build_hint;

/// Exit code for anything else that failed (I/O, a full disk).
pub const FAILURE: i32 = 1;
/// Exit code for bad input (flags, FEN, moves, material names).
pub const BAD_INPUT: i32 = 2;
/// Exit code for a missing table.
pub const MISSING_TABLE: i32 = 3;
/// Exit code for a corrupted table.
pub const CORRUPTED_TABLE: i32 = 4;

/// An error for the user: one line of text and the exit code.
#[derive(Debug)]
pub struct CliError {
    /// The line printed on stderr (after `dtb: `).
    pub message: String,
    /// The process exit code.
    pub code: i32,
}

impl CliError {
    /// Bad input: exit code 2.
    pub fn bad_input(message: impl std::fmt::Display) -> CliError {
        CliError {
            message: message.to_string(),
            code: BAD_INPUT,
        }
    }

    /// An error with an explicit exit code.
    pub fn new(code: i32, message: impl std::fmt::Display) -> CliError {
        CliError {
            message: one_line(&message.to_string()),
            code,
        }
    }
}

/// Keeps an error on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The exit code of a probe error.
pub fn probe_code(e: &ProbeError) -> i32 {
    if e.is_missing_table() {
        MISSING_TABLE
    } else if e.is_corrupted() {
        CORRUPTED_TABLE
    } else if matches!(
        e,
        ProbeError::InvalidPosition(_)
            | ProbeError::TooManyPieces { .. }
            | ProbeError::BadPliesLeft { .. }
            | ProbeError::BadKingsOnlyPlies { .. }
    ) {
        BAD_INPUT
    } else {
        // I/O errors, and any kind of error added later.
        FAILURE
    }
}

impl From<ProbeError> for CliError {
    fn from(e: ProbeError) -> CliError {
        let hint = match &e {
            ProbeError::MissingTable { material, path } => {
                // `path` is `<dir>/<rule set>/<material>.dtb`.
                let rules = path.parent();
                let rule_set = rules
                    .and_then(|r| r.file_name()?.to_str()?.parse().ok())
                    .unwrap_or(RuleSet::Fmjd);
                let dir = rules.and_then(Path::parent);
                Some(build_hint(material.pieces(), rule_set, dir))
            }
            ProbeError::MissingDirectory { rule_set, path, .. } => {
                Some(build_hint(4, *rule_set, path.parent()))
            }
            _ => None,
        };
        match hint {
            Some(h) => CliError::new(MISSING_TABLE, format!("{e}; {h}")),
            None => CliError::new(probe_code(&e), e),
        }
    }
}

impl From<plan::GenError> for CliError {
    fn from(e: plan::GenError) -> CliError {
        match e {
            plan::GenError::Probe(p) => CliError::from(p),
            plan::GenError::BadOptions(_) => CliError::new(BAD_INPUT, e),
            plan::GenError::MissingInput { .. } => CliError::new(MISSING_TABLE, e),
            plan::GenError::Table { .. } => CliError::new(CORRUPTED_TABLE, e),
            _ => CliError::new(FAILURE, e),
        }
    }
}

impl From<format::FormatError> for CliError {
    /// As the builder and the check report it (exit 1: an I/O error on
    /// the folder or the manifest).
    fn from(e: format::FormatError) -> CliError {
        CliError::from(plan::GenError::from(e))
    }
}

/// Result of a subcommand.
pub type CliResult = Result<(), CliError>;

/// Writes one line to stdout. A closed pipe (`dtb info | head`) ends the
/// program quietly; any other write error ends it with a message.
pub fn write_line(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("dtb: cannot write output: {e}");
        std::process::exit(FAILURE);
    }
}

/// `println!` through [`write_line`].
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::exit::write_line(format_args!($($arg)*))
    };
}
