//! One module per subcommand.

pub mod common;
pub mod gen;
pub mod info;
pub mod perft;
pub mod probe;
pub mod serve;
pub mod verify;
