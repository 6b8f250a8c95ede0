//! `dtb probe`: the value of a position and of every move.

use std::io::BufRead;

use probe::{Tablebase, Wdl};
use serde_json::json;

use crate::commands::common::{parse_position, TableArgs};
use crate::exit::{CliError, CliResult};
use crate::report::{answer, to_json, Answer};

/// Flags of `dtb probe`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    /// Plies left on the draw counter of a counted ending (default: just
    /// entered, 32 or 10).
    #[arg(long)]
    plies_left: Option<u8>,
    /// One JSON object per position.
    #[arg(long)]
    json: bool,
    /// The position in PDN, or `-` to read one per line from stdin.
    fen: String,
}

fn verdict(wdl: Wdl, plies: Option<u32>) -> String {
    match (wdl, plies) {
        (Wdl::Draw, _) => "draw".into(),
        (w, Some(1)) => format!("{w} in 1 ply"),
        (w, Some(p)) => format!("{w} in {p} plies"),
        (w, None) => w.to_string(),
    }
}

fn print_text(a: &Answer, tb: &Tablebase, plies_left: Option<u8>) {
    crate::outln!("{}", a.fen);
    let counter = match (a.counted, tb.rule_set().has_move_limits()) {
        (Some(c), true) => format!(
            " ({}-move ending, {} plies left)",
            if c == rules::CountedEnding::SixteenMove {
                16
            } else {
                5
            },
            plies_left.unwrap_or(c.plies()).min(c.plies())
        ),
        _ => String::new(),
    };
    crate::outln!("{}{counter}", verdict(a.wdl, a.plies));
    for (text, m) in &a.moves {
        crate::outln!("  {text:<14} {}", verdict(m.wdl, m.plies));
    }
}

fn print_line(a: &Answer) {
    let best = a.moves.first().map(|(t, _)| t.as_str()).unwrap_or("-");
    crate::outln!("{}\t{}\t{}", a.fen, verdict(a.wdl, a.plies), best);
}

pub fn run(args: Args) -> CliResult {
    let tb = Tablebase::open(&args.tables.dir, args.tables.rule_set);
    if args.fen != "-" {
        let pos = parse_position(&args.fen)?;
        let a = answer(&tb, &pos, args.plies_left)?;
        if args.json {
            crate::outln!("{}", to_json(&a));
        } else {
            print_text(&a, &tb, args.plies_left);
        }
        return Ok(());
    }
    // Batch mode: one answer per line; errors in place; the exit code is
    // the worst error seen.
    let mut worst: Option<CliError> = None;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| CliError::new(crate::exit::FAILURE, format!("stdin: {e}")))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        match parse_position(text).and_then(|p| answer(&tb, &p, args.plies_left)) {
            Ok(a) => {
                if args.json {
                    crate::outln!("{}", to_json(&a));
                } else {
                    print_line(&a);
                }
            }
            Err(e) => {
                if args.json {
                    crate::outln!("{}", json!({"fen": text, "error": e.message}));
                } else {
                    crate::outln!("{text}\terror: {}", e.message);
                }
                if worst.as_ref().is_none_or(|w| e.code > w.code) {
                    worst = Some(e);
                }
            }
        }
    }
    match worst {
        Some(e) => Err(CliError::new(
            e.code,
            format!("some positions failed; worst: {}", e.message),
        )),
        None => Ok(()),
    }
}
