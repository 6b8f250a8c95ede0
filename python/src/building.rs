//! `draughts_tb.generate` and `draughts_tb.verify`: building and checking
//! tables from Python, through the generator library `dtb gen` and
//! `dtb verify` use.

use std::path::PathBuf;

use check::{TableCheck, VerifyOptions};
use format::manifest;
use format::TableValue;
use gen::{BuiltTable, GenOptions, GenReport};
use probe::{table_dir, MAX_TABLE_PIECES};
use pyo3::prelude::*;

use crate::args;
use crate::errors::{gen_error, not_found, value_error};

/// One table written by `generate`.
///
/// Attributes: `material` (e.g. `"KKM-K"`), `path`, `positions` (White to
/// move), `bytes` (file size) and `seconds` (spent on its material pair).
#[pyclass(frozen, get_all, module = "draughts_tb")]
#[derive(Clone)]
pub struct BuiltTableInfo {
    material: String,
    path: PathBuf,
    positions: u64,
    bytes: u64,
    seconds: f64,
}

impl From<&BuiltTable> for BuiltTableInfo {
    fn from(b: &BuiltTable) -> BuiltTableInfo {
        BuiltTableInfo {
            material: b.material.to_string(),
            path: b.path.clone(),
            positions: b.positions,
            bytes: b.bytes,
            seconds: b.seconds,
        }
    }
}

#[pymethods]
impl BuiltTableInfo {
    fn __repr__(&self) -> String {
        format!(
            "<BuiltTableInfo {} {} positions {} bytes>",
            self.material, self.positions, self.bytes
        )
    }
}

/// What `generate` did.
///
/// Attributes: `built` (a list of `BuiltTableInfo`), `skipped` (materials
/// whose valid tables were already there), `seconds` (wall time) and
/// `peak_memory_bytes` (of the process, where the system tells; else None).
#[pyclass(frozen, get_all, module = "draughts_tb")]
pub struct GenerateReport {
    built: Vec<BuiltTableInfo>,
    skipped: Vec<String>,
    seconds: f64,
    peak_memory_bytes: Option<u64>,
}

impl From<GenReport> for GenerateReport {
    fn from(r: GenReport) -> GenerateReport {
        GenerateReport {
            built: r.built.iter().map(BuiltTableInfo::from).collect(),
            skipped: r.skipped.iter().map(|m| m.to_string()).collect(),
            seconds: r.seconds,
            peak_memory_bytes: r.peak_memory_bytes,
        }
    }
}

#[pymethods]
impl GenerateReport {
    fn __repr__(&self) -> String {
        format!(
            "<GenerateReport built {} tables, skipped {}, {:.1} s>",
            self.built.len(),
            self.skipped.len(),
            self.seconds
        )
    }
}

/// Builds tables: every material of up to `pieces` pieces, or the named
/// `materials` (e.g. `["KKM-K"]`) and what they depend on, into
/// `path/<rules>/`. Tables already present and valid are kept, so an
/// interrupted run resumes. `progress` shows progress bars on a terminal's
/// stderr; `threads` (default: all cores) sets the worker threads; `dtc`
/// also writes the distance-to-conversion files (`dtb gen --dtc`). Returns
/// a `GenerateReport`. The GIL is released while building.
#[pyfunction]
#[pyo3(signature = (path, pieces = 4, rules = "fmjd", progress = true, *, materials = None, threads = None, dtc = false))]
#[allow(clippy::too_many_arguments)]
pub fn generate(
    py: Python<'_>,
    path: PathBuf,
    pieces: u32,
    rules: &str,
    progress: bool,
    materials: Option<Vec<String>>,
    threads: Option<usize>,
    dtc: bool,
) -> PyResult<GenerateReport> {
    if !(2..=MAX_TABLE_PIECES).contains(&pieces) {
        return Err(value_error(format!(
            "pieces must be between 2 and {MAX_TABLE_PIECES} (got {pieces})"
        )));
    }
    let mut options = GenOptions::new(path, args::rule_set(rules)?, pieces);
    options.materials = args::materials(materials)?;
    options.threads = args::threads(threads)?;
    options.quiet = !progress;
    options.dtc = dtc;
    let report = py.detach(|| gen::generate(&options)).map_err(gen_error)?;
    Ok(report.into())
}

/// A stored value that the values of its moves contradict.
///
/// Attributes: `fen` (White to move), `stored` and `expected` (each a
/// `(result, distance)` pair, distance None for WLD tables and draws).
#[pyclass(frozen, get_all, module = "draughts_tb")]
#[derive(Clone)]
pub struct Mismatch {
    fen: String,
    stored: (&'static str, Option<u8>),
    expected: (&'static str, Option<u8>),
}

fn value_pair(v: TableValue) -> (&'static str, Option<u8>) {
    (v.wdl.as_str(), v.distance)
}

#[pymethods]
impl Mismatch {
    fn __repr__(&self) -> String {
        format!(
            "<Mismatch {} stored {:?} expected {:?}>",
            self.fen, self.stored, self.expected
        )
    }
}

/// The verdict on one table.
///
/// Attributes: `material`, `path`, `ok`, `checked` (positions checked;
/// capture positions are skipped: the prober resolves them), `mismatches`
/// (the first ones, a list of `Mismatch`), `mismatch_count` (in all),
/// `problem` (why the table could not be checked or is damaged: itself
/// or a table its moves lead to, else None) and `seconds`.
#[pyclass(frozen, get_all, module = "draughts_tb")]
#[derive(Clone)]
pub struct TableCheckInfo {
    material: String,
    path: PathBuf,
    ok: bool,
    checked: u64,
    mismatches: Vec<Mismatch>,
    mismatch_count: u64,
    problem: Option<String>,
    seconds: f64,
}

impl From<&TableCheck> for TableCheckInfo {
    fn from(c: &TableCheck) -> TableCheckInfo {
        TableCheckInfo {
            material: c.material.to_string(),
            path: c.path.clone(),
            ok: c.ok(),
            checked: c.checked,
            mismatches: c
                .mismatches
                .iter()
                .map(|m| Mismatch {
                    fen: m.fen.clone(),
                    stored: value_pair(m.stored),
                    expected: value_pair(m.expected),
                })
                .collect(),
            mismatch_count: c.mismatch_count,
            problem: c.problem.as_ref().map(|p| p.message().to_string()),
            seconds: c.seconds,
        }
    }
}

#[pymethods]
impl TableCheckInfo {
    fn __repr__(&self) -> String {
        let status = if self.ok { "ok" } else { "FAILED" };
        format!(
            "<TableCheckInfo {} {status}, {} positions>",
            self.material, self.checked
        )
    }
}

/// What `verify` found.
///
/// Attributes: `ok` (every table and the manifest passed), `tables` (a
/// list of `TableCheckInfo`), `manifest_problems` (a list of messages) and
/// `positions` (checked in all).
#[pyclass(frozen, get_all, module = "draughts_tb")]
pub struct VerifyReport {
    ok: bool,
    tables: Vec<TableCheckInfo>,
    manifest_problems: Vec<String>,
    positions: u64,
}

#[pymethods]
impl VerifyReport {
    fn __repr__(&self) -> String {
        let bad = self.tables.iter().filter(|t| !t.ok).count();
        format!(
            "<VerifyReport ok={} ({} tables, {bad} failed, {} manifest problems)>",
            if self.ok { "True" } else { "False" },
            self.tables.len(),
            self.manifest_problems.len()
        )
    }
}

/// Checks tables as `dtb verify` does: checksums, the manifest, and every
/// stored value against the values of its moves. `materials` limits it to
/// some tables (default: every table in `path/<rules>/`). Returns a
/// `VerifyReport`: every table gets its verdict there, a missing or damaged
/// one (or one whose moves lead to a missing or damaged table) included.
/// Raises `FileNotFoundError` when there are no tables of these rules at
/// `path`. `sample` (0 < sample <= 1): check only about that fraction of
/// each table's positions (the same ones on every run); `ValueError`
/// otherwise. The GIL is released while checking.
#[pyfunction]
#[pyo3(signature = (path, rules = "fmjd", progress = true, *, materials = None, threads = None, sample = None))]
pub fn verify(
    py: Python<'_>,
    path: PathBuf,
    rules: &str,
    progress: bool,
    materials: Option<Vec<String>>,
    threads: Option<usize>,
    sample: Option<f64>,
) -> PyResult<VerifyReport> {
    let rule_set = args::rule_set(rules)?;
    if sample.is_some_and(|f| !(f > 0.0 && f <= 1.0)) {
        return Err(value_error("sample must be above 0 and at most 1"));
    }
    let mut options = VerifyOptions::new(path, rule_set);
    options.materials = args::materials(materials)?;
    options.threads = args::threads(threads)?;
    options.quiet = !progress;
    options.sample = sample;
    let dir = table_dir(&options.dir, rule_set);
    if !dir.is_dir() {
        let message = format!("no {} tables here", rule_set.name());
        return Err(not_found(&dir, &message));
    }
    let (checks, manifest_problems) = py
        .detach(|| {
            let problems = manifest::check(&dir, rule_set)?;
            Ok((check::verify(&options)?, problems))
        })
        .map_err(gen_error)?;
    let tables: Vec<TableCheckInfo> = checks.iter().map(TableCheckInfo::from).collect();
    Ok(VerifyReport {
        ok: manifest_problems.is_empty() && tables.iter().all(|t| t.ok),
        positions: tables.iter().map(|t| t.checked).sum(),
        tables,
        manifest_problems,
    })
}
