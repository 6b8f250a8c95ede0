//! `dtb`: the draughts-tb command line. Thin: it parses flags, calls the
//! library crates, prints, and maps errors to exit codes (0 success, 2 bad
//! input, 3 missing table, 4 corrupted table, 1 anything else).

mod commands;
mod costs;
mod exit;
mod report;
mod shell;

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
    /// What is left of a build: its units of work and their cost.
    Plan(commands::plan::Args),
    /// The value of a position and of each of its moves.
    #[command(after_long_help = commands::probe::METRICS)]
    Probe(commands::probe::Args),
    /// Check checksums, the manifest and every stored value.
    Verify(commands::verify::Args),
    /// Explore the tables in a browser (and an HTTP probe API).
    Serve(commands::serve::Args),
    /// List a folder's tables with sizes and win/draw/loss counts.
    Info(commands::info::Args),
    /// Rewrite a folder's tables smaller (format version 2, same answers).
    Compact(commands::compact::Args),
    /// Count move sequences (perft) to check the move generator.
    Perft(commands::perft::Args),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                std::process::exit(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        exit::BAD_INPUT
                    } else {
                        0
                    },
                );
            }
            // Usage errors: one line, exit code 2.
            let text = e.to_string();
            let line: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty())
                .collect();
            let line = line.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            eprintln!("dtb: {line} (see dtb --help)");
            std::process::exit(exit::BAD_INPUT);
        }
    };
    // The binary owns its process: a table cut short under it by another
    // process gives an error rather than the end of `dtb serve`.
    probe::install_sigbus_guard();
    let result = match cli.command {
        Command::Gen(args) => commands::gen::run(args),
        Command::Plan(args) => commands::plan::run(args),
        Command::Probe(args) => commands::probe::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Serve(args) => commands::serve::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Compact(args) => commands::compact::run(args),
        Command::Perft(args) => commands::perft::run(args),
    };
    if let Err(err) = result {
        eprintln!("dtb: {}", err.message);
        std::process::exit(err.code);
    }
}
