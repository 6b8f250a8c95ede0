//! Python bindings of draughts-tb: the extension module
//! `draughts_tb._draughts_tb`, re-exported by the `draughts_tb` package
//! (`python/draughts_tb/`, with its type stubs).
//!
//! - `Tablebase`: probe positions (a FEN string or a board object) for
//!   their result, distances, and the value of every move;
//! - `generate` and `verify`: build and check tables;
//! - `normalize_fen`: the canonical PDN form of a position;
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
    Ok(args::query(position, None)?.pos.to_string())
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
    use super::normalize_fen;
    #[pymodule_export]
    use super::tablebase::{ProbeResult, ProbedMove, PyTablebase};

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("BOARD_COUNTERS", super::args::BOARD_COUNTERS)?;
        Ok(())
    }
}
