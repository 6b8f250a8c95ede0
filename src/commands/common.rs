//! Flags shared by the subcommands that read or write tables.

use std::path::PathBuf;

use format::RuleSet;

use crate::exit::CliError;

/// `--dir` and `--rules`.
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// Table directory (tables of each rule set live in a folder of it).
    #[arg(long, default_value = "data")]
    pub dir: PathBuf,
    /// Rule set: fmjd (16- and 5-move limits), fmjd-diagonal (plus the
    /// long-diagonal cap) or pure (no move limits).
    #[arg(long = "rules", default_value = "fmjd", value_parser = parse_rule_set)]
    pub rule_set: RuleSet,
}

fn parse_rule_set(s: &str) -> Result<RuleSet, String> {
    s.parse::<RuleSet>().map_err(|e| e.to_string())
}

/// Reads a PDN position, `start` for the initial one; the error quotes the
/// input (cut short when long).
pub fn parse_position(text: &str) -> Result<rules::Position, CliError> {
    parse_fen(text).map_err(|e| CliError::bad_input(format!("bad FEN {}: {e}", echo(text.trim()))))
}

/// Reads a PDN position, `start` for the initial one; the error does not
/// repeat the input (for lines that show it already).
pub fn parse_fen(text: &str) -> Result<rules::Position, rules::FenError> {
    if text.trim().eq_ignore_ascii_case("start") {
        return Ok(rules::Position::initial());
    }
    text.parse()
}

/// User input quoted in a message, cut short when long (an error line must
/// not repeat a megabyte of input).
pub fn echo(text: &str) -> String {
    match shortened(text) {
        (head, true) => format!("{head:?}... ({} bytes)", text.len()),
        (head, false) => format!("{head:?}"),
    }
}

/// The first 60 characters of `text`, and whether it was longer.
pub fn shortened(text: &str) -> (&str, bool) {
    const MAX_CHARS: usize = 60;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => (&text[..cut], true),
        None => (text, false),
    }
}

/// `--threads` and `--quiet`, for the commands that do long work.
#[derive(clap::Args, Clone, Debug)]
pub struct WorkArgs {
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("--threads must be a number of at least 1".into()),
    }
}

/// A material name on the command line, e.g. `KKM-K`.
pub fn parse_material(s: &str) -> Result<format::Material, String> {
    s.parse::<format::Material>().map_err(|e| e.to_string())
}
