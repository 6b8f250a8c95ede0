//! `dtb perft FEN DEPTH [--divide]`.

use std::time::Instant;

use rules::{perft, perft_divide, perft_parallel, Position};
use serde::Serialize;

use crate::commands::common::parse_position;
use crate::exit::{CliError, CliResult};

/// Flags of `dtb perft`.
#[derive(clap::Args)]
pub struct Args {
    /// The position in PDN, e.g. `W:W31-50:B1-20` (or `start`).
    fen: String,
    /// Count to this many plies (prints every depth from 1).
    depth: u32,
    /// Print the count below each root move at DEPTH instead.
    #[arg(long)]
    divide: bool,
    /// Worker threads (default: all cores); 1 runs single-threaded.
    #[arg(long)]
    threads: Option<usize>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct DepthLine {
    depth: u32,
    nodes: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct DivideLine {
    #[serde(rename = "move")]
    mv: String,
    nodes: u64,
}

pub fn run(args: Args) -> CliResult {
    let pos: Position = parse_position(&args.fen)?;
    if args.depth == 0 || args.depth > 30 {
        return Err(CliError::bad_input("DEPTH must be between 1 and 30"));
    }
    let threads = args.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::bad_input(format!("cannot start {threads} threads: {e}")))?;
    let single = threads == 1;
    if args.divide {
        let lines: Vec<DivideLine> = pool.install(|| {
            let rows = if single {
                perft_divide(&pos, args.depth)
            } else {
                use rayon::prelude::*;
                pos.legal_moves()
                    .into_par_iter()
                    .map(|m| (m, perft(&pos.play(&m), args.depth - 1)))
                    .collect()
            };
            rows.into_iter()
                .map(|(m, nodes)| DivideLine {
                    mv: pos.move_to_pdn(&m),
                    nodes,
                })
                .collect()
        });
        let total: u64 = lines.iter().map(|l| l.nodes).sum();
        if args.json {
            let out = serde_json::json!({"fen": pos.to_string(), "depth": args.depth, "moves": lines, "nodes": total});
            crate::outln!("{out}");
        } else {
            for l in &lines {
                crate::outln!("{:<12} {}", l.mv, l.nodes);
            }
            crate::outln!("total        {total}");
        }
        return Ok(());
    }
    let mut rows = Vec::new();
    for depth in 1..=args.depth {
        let start = Instant::now();
        let nodes = pool.install(|| {
            if single {
                perft(&pos, depth)
            } else {
                perft_parallel(&pos, depth)
            }
        });
        let seconds = start.elapsed().as_secs_f64();
        if !args.json {
            let rate = if seconds > 0.0 {
                nodes as f64 / seconds / 1e6
            } else {
                0.0
            };
            crate::outln!("perft({depth:2}) = {nodes:>14}   {seconds:9.3} s  {rate:8.1} Mnodes/s");
        }
        rows.push(DepthLine {
            depth,
            nodes,
            seconds,
        });
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::json!({"fen": pos.to_string(), "depths": rows})
        );
    }
    Ok(())
}
