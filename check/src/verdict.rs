//! What a check finds: a verdict per table file, with the first values
//! its moves contradict and what kept it from being checked.

use std::path::PathBuf;

use format::{Material, TableValue};
use plan::GenError;

/// A stored value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The position, White to move, in PDN.
    pub fen: String,
    /// What the table says.
    pub stored: TableValue,
    /// What the moves say.
    pub expected: TableValue,
}

/// The verdict on one table.
#[derive(Clone, Debug)]
pub struct TableCheck {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// Positions checked (capture positions, whose stored value is "don't
    /// care", are skipped).
    pub checked: u64,
    /// The first mismatches found (at most 20).
    pub mismatches: Vec<Mismatch>,
    /// How many mismatches in all.
    pub mismatch_count: u64,
    /// Why the table could not be checked, or is damaged (checksum,
    /// header), if so.
    pub problem: Option<TableProblem>,
    /// Seconds spent.
    pub seconds: f64,
}

/// What kept a table from passing, besides mismatched values.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableProblem {
    /// The table, or one its moves lead to, is missing.
    Missing(String),
    /// The table, or one its moves lead to, is damaged.
    Corrupted(String),
    /// Anything else (an I/O error).
    Failed(String),
}

impl TableProblem {
    /// The problem error `e` stands for.
    pub(crate) fn of(e: &GenError) -> TableProblem {
        let text = e.to_string();
        match e {
            GenError::Probe(p) if p.is_missing_table() => TableProblem::Missing(text),
            GenError::Probe(p) if p.is_corrupted() => TableProblem::Corrupted(text),
            GenError::Format(f) if f.is_not_found() => TableProblem::Missing(text),
            GenError::Format(f) if f.is_corruption() => TableProblem::Corrupted(text),
            GenError::Table { source, .. } if source.is_corruption() => {
                TableProblem::Corrupted(text)
            }
            _ => TableProblem::Failed(text),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            TableProblem::Missing(m) | TableProblem::Corrupted(m) | TableProblem::Failed(m) => m,
        }
    }
}

impl TableCheck {
    /// A verdict on `path` not reached yet: nothing checked, no problem.
    pub(crate) fn new(material: Material, path: PathBuf) -> TableCheck {
        TableCheck {
            material,
            path,
            checked: 0,
            mismatches: Vec::new(),
            mismatch_count: 0,
            problem: None,
            seconds: 0.0,
        }
    }

    /// Whether the table passed.
    pub fn ok(&self) -> bool {
        self.mismatch_count == 0 && self.problem.is_none()
    }
}
