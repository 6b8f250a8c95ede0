//! One module per subcommand.

pub mod common;
pub mod compact;
pub mod gen;
pub mod info;
pub mod perft;
pub mod plan;
pub mod probe;
pub mod serve;
pub mod slurm;
pub mod verify;
