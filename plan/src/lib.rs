//! The plan of a build: what the work is, read by the builder (`gen`)
//! and by the checker (`check`) alike, and importing neither.
//!
//! - [`units`]: every unit of a build (solve, group, assembly,
//!   manifest), what each needs and writes, and the memory it needs;
//! - [`groups`]: how a pair with men falls into slice groups, slices and
//!   parts, and [`keys`], the men placements that key a group's values;
//! - [`memory`]: which solver takes a pair or a slice and in how many bits
//!   a position, the answers both the solvers and the memory model use;
//! - [`estimate`]: what a plan costs in core-seconds and wall time;
//! - [`GenOptions`], the build asked for; [`GenError`], why a build or a
//!   check stopped; [`Progress`], how a unit reports.
//!
//! ```
//! use format::RuleSet;
//! use plan::{plan, GenOptions, UnitKind};
//!
//! let units = plan(&GenOptions::new("data", RuleSet::Fmjd, 3));
//! assert_eq!(units.last().map(|u| u.kind), Some(UnitKind::Manifest));
//! ```
#![warn(missing_docs)]

mod error;
pub mod estimate;
pub mod groups;
pub mod keys;
pub mod memory;
mod options;
mod progress;
pub mod units;

pub use error::GenError;
pub use keys::{PlacementKey, PlacementKeys};
pub use memory::{values_bytes, SliceMode};
pub use options::{
    materials_to_build, GenOptions, Sides, DEFAULT_BITSET_SLICES_ABOVE, DEFAULT_SPLIT_GROUPS_ABOVE,
};
pub use progress::{peak_memory_bytes, Progress, SetProgress};
pub use units::{find_unit, pair_materials, pair_of, plan, Unit, UnitKind, UNITS_DIR};
