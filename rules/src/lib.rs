//! International draughts under the FMJD rules: the board, positions,
//! legal moves (majority capture, flying kings, captured pieces removed at
//! the end of the move), PDN notation, perft, and the counted endings of
//! the 16-move and 5-move limits.
//!
//! ```
//! use rules::{perft, Position};
//!
//! let pos: Position = "W:W31-50:B1-20".parse()?;
//! assert_eq!(pos, Position::initial());
//! assert_eq!(perft(&pos, 3), 658);
//! let mv = pos.parse_move("32-28")?;
//! assert_eq!(pos.play(&mv).to_string().len() > 0, true);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod board;
mod counted;
pub mod dense;
mod error;
mod fen;
mod movegen;
mod notation;
mod perft;
mod position;
mod retro;

pub use board::{Direction, Square, SquareIter, SquareSet};
pub use counted::{lone_king_alone_on_long_diagonal, lone_king_side, CountedEnding};
pub use error::{FenError, MoveError, PositionError};
pub use movegen::Move;
pub use perft::{perft, perft_divide, perft_parallel};
pub use position::{Color, PieceCounts, Position, Role};
