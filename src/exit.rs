//! The command line's error type and exit codes.

/// Exit code for bad input (flags, FEN, moves, material names).
pub const BAD_INPUT: i32 = 2;

/// An error for the user: one line of text and the exit code.
#[derive(Debug)]
pub struct CliError {
    /// The line printed on stderr (after `dtb: `).
    pub message: String,
    /// The process exit code.
    pub code: i32,
}

impl CliError {
    /// Bad input: exit code 2.
    pub fn bad_input(message: impl std::fmt::Display) -> CliError {
        CliError {
            message: message.to_string(),
            code: BAD_INPUT,
        }
    }
}

/// Result of a subcommand.
pub type CliResult = Result<(), CliError>;
