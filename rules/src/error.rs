//! Errors of the rules crate: impossible positions, bad FEN, bad moves.

use thiserror::Error;

/// Why a placement of pieces cannot stand on a board.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PositionError {
    /// A square set held a bit that is no square.
    #[error("a piece is off the board (only squares 1-50 exist)")]
    NotASquare,
    /// Two pieces on one square.
    #[error("square {0} is listed twice")]
    SquareTwice(u8),
    /// A king flag with no piece under it.
    #[error("king on square {0} has no colour")]
    KingWithoutColour(u8),
    /// A white man where it would already have been crowned.
    #[error("white man on square {0}: a white man cannot stand on its crowning row 1-5")]
    WhiteManOnCrowningRow(u8),
    /// A black man where it would already have been crowned.
    #[error("black man on square {0}: a black man cannot stand on its crowning row 46-50")]
    BlackManOnCrowningRow(u8),
}

/// Why a PDN position (FEN) could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FenError {
    /// Nothing to read.
    #[error("empty FEN")]
    Empty,
    /// The side to move is missing or not W/B.
    #[error("FEN must start with the side to move, W or B, then ':' (found {0:?})")]
    BadSideToMove(String),
    /// A character that has no place in a FEN.
    #[error("unexpected character {ch:?} at position {pos} of the FEN")]
    UnexpectedChar {
        /// The character.
        ch: char,
        /// Its 1-based character position.
        pos: usize,
    },
    /// A colour list is missing or its colour letter is not W/B.
    #[error("expected a colour list starting with W or B after ':' (found {0:?})")]
    BadColourList(String),
    /// The same colour given twice.
    #[error("the {0} pieces are listed twice")]
    ColourTwice(&'static str),
    /// More than two colour lists.
    #[error("too many ':'-separated fields (a FEN has a side to move and two colour lists)")]
    TooManyFields,
    /// A list item that is not a square number.
    #[error("{0:?} is not a square number")]
    NotANumber(String),
    /// A square number outside 1..=50.
    #[error("square {0} does not exist (squares are 1-50)")]
    SquareOutOfRange(u32),
    /// A range written high to low or otherwise empty.
    #[error("range {0}-{1} is empty (write the low square first)")]
    EmptyRange(u32, u32),
    /// The placement cannot stand on a board.
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// Why a move in PDN could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MoveError {
    /// The text is not of the form `32-28`, `28x39` or `46x37x28`.
    #[error("{0:?} is not a move (write it as 32-28, 28x39 or 46x37x28)")]
    Syntax(String),
    /// A square number outside 1..=50.
    #[error("square {0} does not exist (squares are 1-50)")]
    SquareOutOfRange(u32),
    /// Well formed, but no legal move matches.
    #[error("{0} is not a legal move in this position")]
    Illegal(String),
    /// Several legal moves match; landing squares are needed.
    #[error("{0} is ambiguous here: give the landing squares ({1})")]
    Ambiguous(String, String),
}
