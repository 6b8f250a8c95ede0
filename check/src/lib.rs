//! The check of built tables, apart from the builder: every table file's
//! header, block index and checksums, then every stored value and
//! distance against the values its moves lead to, and the folder's
//! manifest. It reads the plan (crate `plan`) to know the units a batch
//! job checks, and never the solvers: this crate does not depend on
//! `gen`, and CI fails if it ever does.
//!
//! - [`verify()`] walks the materials in build order ([`VerifyOptions`]);
//!   `forward` checks a pair's values position by position, against the
//!   `resolved` values of the tables its moves lead to (decoded whole,
//!   capture positions resolved by search), read through `files`;
//! - [`TableCheck`] is the verdict on one file.
//!
//! ```no_run
//! use check::{verify, VerifyOptions};
//! use format::RuleSet;
//!
//! let verdicts = verify(&VerifyOptions::new("data", RuleSet::Fmjd))?;
//! assert!(verdicts.iter().all(|v| v.ok()));
//! # Ok::<(), plan::GenError>(())
//! ```
#![warn(missing_docs)]

#[cfg(feature = "fault-injection")]
pub mod fault;
mod files;
mod forward;
mod kings_only;
mod resolved;
mod verdict;
mod verify;

pub use verdict::{Mismatch, TableCheck, TableProblem};
pub use verify::{
    in_sample, verify, verify_memory_bytes, VerifyOptions,
    DEFAULT_PRELOAD_BYTES as DEFAULT_VERIFY_PRELOAD_BYTES,
};
