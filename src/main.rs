//! `dtb`: the draughts-tb command line. Thin: it parses flags, calls the
//! library crates, prints, and maps errors to exit codes (0 success, 2 bad
//! input, 3 missing table, 4 corrupted table, 1 anything else).

mod commands;
mod exit;

use clap::{Parser, Subcommand};

/// Endgame tablebases for international draughts (FMJD rules).
#[derive(Parser)]
#[command(name = "dtb", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build tables by retrograde analysis.
    Gen(commands::gen::Args),
    /// The value of a position and of each of its moves.
    Probe(commands::probe::Args),
    /// List the tables of a directory with sizes and statistics.
    Info(commands::info::Args),
    /// Count move sequences (perft) to check the move generator.
    Perft(commands::perft::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Gen(args) => commands::gen::run(args),
        Command::Probe(args) => commands::probe::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Perft(args) => commands::perft::run(args),
    };
    if let Err(err) = result {
        eprintln!("dtb: {}", err.message);
        std::process::exit(err.code);
    }
}
