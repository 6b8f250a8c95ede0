//! Python exceptions of the module, and how the Rust errors map to them.
//!
//! | Rust error | Python exception |
//! |---|---|
//! | a bad FEN, rule set, material name, `plies_left` or option | `ValueError` |
//! | `ProbeError::InvalidPosition`, `TooManyPieces`, `BadPliesLeft`, `BadKingsOnlyPlies` | `ValueError` |
//! | `ProbeError::MissingTable`, `GenError::MissingInput` | `MissingTableError` |
//! | `ProbeError::Corrupted`, `RuleSetMismatch`, `WrongMaterial` | `CorruptedTableError` |
//! | I/O errors | `OSError` (with `errno` and `filename` where known) |
//! | `GenError::TooLarge` | `MemoryError` |
//! | anything else | `TablebaseError` |

use std::path::Path;

use gen::GenError;
use probe::ProbeError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    draughts_tb,
    TablebaseError,
    PyException,
    "Base class of the table errors of draughts_tb (bad input is a ValueError, I/O an OSError)."
);
create_exception!(
    draughts_tb,
    MissingTableError,
    TablebaseError,
    "A table the answer needs is not in the directory. Attributes: material (e.g. 'KKM-K') and path (where it was looked for)."
);
create_exception!(
    draughts_tb,
    CorruptedTableError,
    TablebaseError,
    "A table file is damaged, or holds another material or rule set than its name says. Attribute: path."
);

/// Sets attributes on the exception object of `err` (best effort: an
/// attribute that cannot be set leaves the message intact).
fn with_attributes(err: PyErr, attributes: &[(&str, String)]) -> PyErr {
    Python::attach(|py| {
        let value = err.value(py);
        for (name, v) in attributes {
            let _ = value.setattr(*name, v);
        }
    });
    err
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// An `OSError` for `source` on `path`, with `errno` and `filename` set.
pub fn os_error(path: &str, source: &std::io::Error) -> PyErr {
    match source.raw_os_error() {
        Some(code) => {
            let message = source.to_string();
            let message = match message.find(" (os error") {
                Some(end) => message[..end].to_string(),
                None => message,
            };
            if source.kind() == std::io::ErrorKind::NotFound {
                PyFileNotFoundError::new_err((code, message, path.to_string()))
            } else {
                PyOSError::new_err((code, message, path.to_string()))
            }
        }
        None => PyOSError::new_err(format!("{path}: {source}")),
    }
}

/// A `FileNotFoundError` for a directory that is not there.
pub fn not_found(path: &Path, message: &str) -> PyErr {
    const ENOENT: i32 = 2;
    PyFileNotFoundError::new_err((ENOENT, message.to_string(), path_text(path)))
}

/// The Python exception for a prober error.
pub fn probe_error(e: ProbeError) -> PyErr {
    let message = e.to_string();
    match e {
        ProbeError::MissingTable { material, path } => with_attributes(
            MissingTableError::new_err(message),
            &[
                ("material", material.to_string()),
                ("path", path_text(&path)),
            ],
        ),
        ProbeError::Corrupted { path, .. }
        | ProbeError::RuleSetMismatch { path, .. }
        | ProbeError::WrongMaterial { path, .. } => with_attributes(
            CorruptedTableError::new_err(message),
            &[("path", path_text(&path))],
        ),
        ProbeError::InvalidPosition(_)
        | ProbeError::TooManyPieces { .. }
        | ProbeError::BadPliesLeft { .. }
        | ProbeError::BadKingsOnlyPlies { .. } => PyValueError::new_err(message),
        ProbeError::Io { path, source } => os_error(&path_text(&path), &source),
        ProbeError::MissingDirectory { path, rule_set, .. } => not_found(
            &path,
            &format!("no {rule_set} tables here (build them with draughts_tb.generate)"),
        ),
        // A kind of error added later: the base class, with its message.
        _ => TablebaseError::new_err(message),
    }
}

/// The Python exception for a generator error.
pub fn gen_error(e: GenError) -> PyErr {
    match e {
        GenError::Probe(p) => probe_error(p),
        GenError::Io { path, source } => os_error(&path, &source),
        GenError::Format(format::FormatError::Io { path, source }) => os_error(&path, &source),
        GenError::BadOptions(m) => PyValueError::new_err(m),
        GenError::TooLarge(_) => PyMemoryError::new_err(e.to_string()),
        GenError::MissingInput { .. } => MissingTableError::new_err(e.to_string()),
        other => TablebaseError::new_err(other.to_string()),
    }
}

/// A `ValueError` with `message`.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
