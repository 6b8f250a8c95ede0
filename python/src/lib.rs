//! Python bindings of draughts-tb: the extension module
//! `draughts_tb._draughts_tb`, re-exported by the `draughts_tb` package
//! (`python/draughts_tb/`, with its type stubs).
//!
//! - `Tablebase`: probe positions (a FEN string or a board object) for
//!   their result, distances, and the value of every move;
//! - `generate` and `verify`: build and check tables;
//! - `normalize_fen`: the canonical PDN form of a position;
//! - `install_sigbus_guard`: opt in to errors instead of SIGBUS for a
//!   table cut short under a running probe;
//! - exceptions `TablebaseError`, `MissingTableError`,
//!   `CorruptedTableError` (bad input is a `ValueError`, I/O an `OSError`).
//!
//! The GIL is released during probes, generation and verification.
#![warn(missing_docs)]

mod args;
mod building;
mod errors;
mod tablebase;

use pyo3::prelude::*;

/// The canonical PDN FEN of `position` (a FEN string in any accepted form,
/// or an object with a `fen` attribute): squares in increasing order,
/// White's list first. Raises `ValueError` for a bad FEN.
#[pyfunction]
fn normalize_fen(position: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(args::query(position, None, args::AnyInt(Some(0)))?
        .pos
        .to_string())
}

/// Installs the SIGBUS guard: a process-wide SIGBUS handler that turns a
/// table file cut short by another process in the middle of a read into a
/// `CorruptedTableError` instead of the end of the interpreter. The module
/// never installs it by itself (importing it changes no signal handling).
/// Returns whether the guard was installed (only Linux has one).
#[pyfunction]
fn install_sigbus_guard() -> bool {
    probe::install_sigbus_guard();
    probe::sigbus_guard_installed()
}

/// Endgame tablebases for international draughts: probe and build them.
#[pymodule(name = "_draughts_tb")]
mod draughts_tb {
    #[pymodule_export]
    use super::building::{
        generate, verify, BuiltTableInfo, GenerateReport, Mismatch, TableCheckInfo, VerifyReport,
    };
    #[pymodule_export]
    use super::errors::{CorruptedTableError, MissingTableError, TablebaseError};
    #[pymodule_export]
    use super::tablebase::{ProbeResult, ProbedMove, PyTablebase};
    #[pymodule_export]
    use super::{install_sigbus_guard, normalize_fen};

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("BOARD_COUNTERS", super::args::BOARD_COUNTERS)?;
        Ok(())
    }
}
