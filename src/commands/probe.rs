//! `dtb probe`: the value of a position and of every move.

use std::io::{BufRead, Read};

use probe::{principal_line, Answer, DrawCounts, Line, Tablebase, Wdl};
use serde_json::json;

use crate::commands::common::{parse_fen, parse_position, shortened, TableArgs};
use crate::exit::{CliError, CliResult};
use crate::report::{answer, plies, to_json, verdict, with_line};

/// What each distance counts (`dtb probe --help`; docs/engines.md says the same).
pub const METRICS: &str = "\
Distances, each in plies (a ply is one move of one side), each with its own
JSON field (null where it does not apply, or for a draw):
  dtc                \"converts in N plies\": plies, the conversion included,
                     until the next capture or man move on the best path
                     that keeps the result (winner shortest, loser longest).
                     Needs the .dtc files (dtb gen --dtc).
  counted_threshold  \"win, if at least N plies are left on the 16-move
                     count\": in a 16- or 5-move ending under fmjd and
                     fmjd-diagonal, the plies the count must have left.
  lone_king_plies    under pure, in the same endings: plies until the game
                     ends or leaves them with the result settled.
  game_plies         with --line: plies until the end of the game.";

/// Flags of `dtb probe`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    /// Plies left on the 16- or 5-move count (default: just entered).
    ///
    /// In a counted ending, the plies that may still be played before the
    /// count declares the draw (a win completed on the last of them
    /// counts); without it the ending counts as just entered: 32 plies in a
    /// 16-move ending, 10 in a 5-move one.
    #[arg(long, value_name = "N")]
    plies_left: Option<u8>,
    /// Plies played in a row with only kings moving (the 25-move rule).
    ///
    /// 0 to 49: the plies already played with no capture and no man move;
    /// the rule draws a win that cannot convert by the 50th. Needs the DTC
    /// files for a decided position when above 0. Ignored in the 16- and
    /// 5-move endings and under `pure`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    kings_only_plies: u8,
    /// One JSON object per position.
    #[arg(long)]
    json: bool,
    /// Also print a principal line to the end of the game.
    ///
    /// Best moves for both sides, in PDN move notation, from the DTC files
    /// (`dtb gen --dtc`). Not in batch mode.
    #[arg(long)]
    line: bool,
    /// The position in PDN, or `-` to read one per line from stdin.
    fen: String,
}

fn print_text(a: &Answer) {
    crate::outln!("{}", a.fen);
    let counter = match (a.counted, a.plies_left) {
        (Some(c), Some(r)) => format!(" ({}-move ending, {} left)", c.plies() / 2, plies(r)),
        _ => String::new(),
    };
    let kings_only = match a.kings_only_plies {
        Some(n) if n > 0 => format!(" ({} played with only kings moving)", plies(n)),
        _ => String::new(),
    };
    crate::outln!(
        "{}{counter}{kings_only}",
        verdict(a.wdl, &a.distances, a.counted)
    );
    for m in &a.moves {
        let text = &m.pdn;
        crate::outln!(
            "  {text:<14} {}",
            verdict(m.value.wdl, &m.distances, a.counted)
        );
    }
    if !a.dtc_available && a.wdl != Wdl::Draw {
        crate::outln!("(no DTC files here: `dtb gen --dtc` adds distances to conversion)");
    }
}

fn print_line(a: &Answer) {
    let best = a.moves.first().map(|m| m.pdn.as_str()).unwrap_or("-");
    crate::outln!(
        "{}\t{}\t{}",
        a.fen,
        verdict(a.wdl, &a.distances, a.counted),
        best
    );
}

fn print_principal_line(line: Option<&Line>) {
    match line {
        Some(l) => {
            crate::outln!("line, game ends in {}:", plies(l.moves.len() as u32));
            crate::outln!("{}", l.pdn());
        }
        None => crate::outln!("no line: the position is drawn"),
    }
}

pub fn run(args: Args) -> CliResult {
    let tb = Tablebase::open(&args.tables.dir, args.tables.rule_set)?;
    if args.fen != "-" {
        let pos = parse_position(&args.fen)?;
        let counts = DrawCounts::new(args.plies_left, args.kings_only_plies);
        let a = answer(&tb, &pos, counts)?;
        if args.line && !a.dtc_available {
            let pieces = pos.piece_counts().total().max(4);
            let command =
                crate::costs::gen_command(pieces, args.tables.rule_set, Some(&args.tables.dir));
            return Err(CliError::new(
                crate::exit::MISSING_TABLE,
                format!(
                    "--line needs the DTC files, which are not there: build them with `{command} --dtc`"
                ),
            ));
        }
        let line = match args.line {
            true => Some(principal_line(&tb, &pos, counts)?),
            false => None,
        };
        if args.json {
            let out = to_json(&a);
            match &line {
                Some(l) => crate::outln!("{}", with_line(out, l.as_ref())),
                None => crate::outln!("{out}"),
            }
        } else {
            print_text(&a);
            if let Some(l) = &line {
                print_principal_line(l.as_ref());
            }
        }
        return Ok(());
    }
    if args.line {
        return Err(CliError::bad_input(
            "--line takes one position, not `-` (batch mode)",
        ));
    }
    batch(&tb, &args)
}

/// The longest line read in batch mode (a FEN is a few hundred bytes).
const MAX_LINE: u64 = 1 << 16;

/// Batch mode: one answer per line of stdin; a bad line (a bad FEN, bytes
/// that are not UTF-8) gets its error line in place; the exit code is the
/// worst error seen.
fn batch(tb: &Tablebase, args: &Args) -> CliResult {
    let mut worst: Option<CliError> = None;
    let mut stdin = std::io::stdin().lock();
    let mut raw = Vec::new();
    let io = |e: std::io::Error| CliError::new(crate::exit::FAILURE, format!("stdin: {e}"));
    loop {
        raw.clear();
        let n = (&mut stdin)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut raw)
            .map_err(io)?;
        if n == 0 {
            break;
        }
        let too_long = raw.len() as u64 > MAX_LINE && raw.last() != Some(&b'\n');
        if too_long {
            // The rest of the line is skipped, not held in memory.
            stdin.skip_until(b'\n').map_err(io)?;
        }
        let (text, result) = match std::str::from_utf8(&raw) {
            _ if too_long => (
                String::from_utf8_lossy(&raw[..64]).into_owned(),
                Err(CliError::bad_input(format!(
                    "the line is longer than {MAX_LINE} bytes"
                ))),
            ),
            Ok(line) => {
                let text = line.trim();
                if text.is_empty() || text.starts_with('#') {
                    continue;
                }
                (
                    text.to_string(),
                    parse_fen(text)
                        .map_err(|e| CliError::bad_input(format!("bad FEN: {e}")))
                        .and_then(|p| {
                            answer(
                                tb,
                                &p,
                                DrawCounts::new(args.plies_left, args.kings_only_plies),
                            )
                        }),
                )
            }
            Err(_) => (
                String::from_utf8_lossy(&raw).trim().to_string(),
                Err(CliError::bad_input("the line is not UTF-8 text")),
            ),
        };
        if let Err(e) = print_batch_answer(&text, result, args.json) {
            if worst.as_ref().is_none_or(|w| e.code > w.code) {
                worst = Some(e);
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

/// Prints one batch line: the answer, or the error (returned).
fn print_batch_answer(text: &str, result: Result<Answer, CliError>, json: bool) -> CliResult {
    let (head, cut) = shortened(text);
    let shown = if cut {
        format!("{head}...")
    } else {
        head.to_string()
    };
    match result {
        Ok(a) if json => crate::outln!("{}", to_json(&a)),
        Ok(a) => print_line(&a),
        Err(e) => {
            if json {
                crate::outln!("{}", json!({"fen": shown, "error": e.message}));
            } else {
                crate::outln!("{shown}\terror: {}", e.message);
            }
            return Err(e);
        }
    }
    Ok(())
}
