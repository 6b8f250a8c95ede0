//! The on-disk contract of draughts-tb: material names, the perfect index
//! of every material, the colour flip, value encodings and the table file
//! (header, block index, zstd blocks, checksums). `FORMAT.md` at the top of
//! the project describes the same byte by byte.
//!
//! ```
//! use format::{Material, MaterialIndex};
//! use rules::Position;
//!
//! let material: Material = "KM-K".parse()?;
//! let index = MaterialIndex::new(material);
//! let pos: Position = "W:WK1,28:BK50".parse()?;
//! let i = index.rank(&pos);
//! assert!(i < index.count());
//! assert_eq!(index.unrank(i), pos);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod counting;
mod draw_counter;
mod error;
mod files;
mod header;
mod index;
#[cfg(feature = "manifest")]
pub mod manifest;
mod material;
mod reader;
mod threats;
mod value;
mod writer;

pub use counting::binomial;
pub use draw_counter::{
    child_view, child_view_in, finish_value, holds_under_kings_only_rule, kings_only_plies_after,
    kings_only_rule_applies, move_outcome, plies_available, plies_cap, plies_left_after,
    value_from_children, value_kind, ChildView, MoveOutcome, TableValue, KINGS_ONLY_LIMIT,
};
pub use error::{FormatError, MaterialError};
pub use files::{
    check_file_of, check_table_file, dtc_file_name, dtc_path, list_tables,
    material_of_dtc_file_name, material_of_file_name, open_regular, read_chunks, read_header,
    read_regular, remove_partial_tables, table_dir, table_path, DTC_EXTENSION, TABLE_EXTENSION,
};
pub use header::{
    may_come_from_mirror, Header, HeaderMismatch, TableStats, FLAG_FROM_MIRROR,
    FLAG_KINGS_ONLY_COUNTS, FLAG_QUIET_SEARCHED, FLAG_SPREAD_STORED, FLAG_THREATS_KEPT,
    FLAG_THREATS_SEARCHED, FORMAT_VERSION, HEADER_LEN, MAGIC, MAX_POSITIONS_PER_BLOCK,
    MAX_THREATS_KEPT, OLDEST_FORMAT_VERSION,
};
pub use index::{
    table_position, BlackKingMoveRanks, KingMoveRanks, KingWalk, MaterialIndex, UnrankCursor,
};
pub use material::{Material, MAX_PIECES_PER_SIDE};
pub use reader::{wdl_code, PositionedFile, TableReader, TableSource};
pub use threats::{is_searched_threat, search_spreads, SearchRule, SearchScratch};
pub use value::{dtc_byte, DistanceValue, RuleSet, ValueKind, Wdl, DTC_SATURATED};
pub use writer::{
    sync_parent, temporary_path, write_from_mirror, TableSpec, TableWriter, DEFAULT_DISTANCE_BLOCK,
    DEFAULT_DTC_BLOCK, DEFAULT_LEVEL, DEFAULT_WDL_BLOCK, SEARCHED_WDL_BLOCK,
};
