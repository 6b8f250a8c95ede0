//! The draughts-tb prober: answers win/draw/loss, distances and best moves
//! for positions of international draughts from tables built by `dtb gen`.
//!
//! An engine's use: open the tables once, probe with the draw counts of
//! the game, and keep the root moves that hold the result.
//!
//! ```
//! use probe::{DrawCounts, RuleSet, Tablebase, Wdl};
//! use rules::Position;
//! # let dir = tempfile::tempdir()?;
//! # let mut build = gen::GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
//! # build.materials = vec!["KKM-K".parse()?];
//! # build.quiet = true;
//! # gen::generate(&build)?;
//! # let data = dir.path();
//! // `dtb gen` built the tables into `data` (one folder a rule set).
//! let tb = Tablebase::open(data, RuleSet::Fmjd)?;
//! let pos: Position = "W:WK46,K47,28:BK5".parse()?;
//! // The 16-move ending just entered (None): White wins...
//! assert_eq!(tb.probe_wdl(&pos, None)?, Wdl::Win);
//! // ...but not with 2 plies left on its count.
//! assert_eq!(tb.probe_wdl(&pos, Some(2))?, Wdl::Draw);
//! // Both counts at once: 10 plies left, no king-only plies played.
//! let counts = DrawCounts::new(Some(10), 0);
//! // Every root move with its value, best first.
//! let winning: Vec<String> = tb
//!     .move_values_with(&pos, counts)?
//!     .iter()
//!     .filter(|m| m.wdl == Wdl::Win)
//!     .map(|m| pos.move_to_pdn(&m.mv))
//!     .collect();
//! assert!(winning.contains(&"28-22".to_string()), "{winning:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What the answers mean
//! Every value is from the view of the side to move. In the counted
//! endings of the FMJD rules (a lone king against three pieces or fewer
//! including a king) the result depends on the plies left on the draw
//! counter; `plies_left = None` means the ending was just entered (32 or 10
//! plies). See `format::TableValue` and the `draw_counter` module of the
//! format crate for the exact rules.
//!
//! The 25-move rule (50 plies in a row with only kings moving) is applied
//! from the distance to conversion: [`DrawCounts`] carries both counts into
//! [`Tablebase::probe_wdl_with`], [`Tablebase::move_values_with`] and
//! [`Tablebase::best_move_with`]; [`answer()`] builds the whole answer
//! (value, distances, every move) that the command line, the explorer and
//! Python show.
//!
//! Capture positions are resolved by the prober (captures are compulsory,
//! the majority rule applies): the caller may probe any position.
//!
//! # Errors
//! Missing tables, damaged files, tables of another rule set and impossible
//! positions are [`ProbeError`] values, never panics.
//!
//! # Signals
//! Tables are memory-mapped. The library installs no signal handler: a
//! table file cut short by another process in the middle of a read ends
//! the process with SIGBUS, as with any mapped file, unless the host asked
//! for [`install_sigbus_guard`], which turns it into an error.
#![warn(missing_docs)]

pub mod answer;
mod error;
mod folder;
pub mod generator;
mod kings_only;
mod mapped;
mod table;
mod tablebase;

pub use answer::{answer, principal_line, Answer, Distances, Line, MoveAnswer};
pub use error::ProbeError;
pub use folder::locate_tables;
pub use format::{table_dir, Material, RuleSet, TableValue, Wdl};
pub use kings_only::DrawCounts;
pub use mapped::{install_sigbus_guard, sigbus_guard_installed};
pub use tablebase::{MoveValue, Probe, Storage, Tablebase, TablebaseOptions, MAX_TABLE_PIECES};

#[cfg(test)]
mod tests {
    /// One tablebase is shared by all search threads.
    #[test]
    fn tablebase_is_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<crate::Tablebase>();
    }
}
