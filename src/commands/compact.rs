//! `dtb compact`: rewrite a folder's WLD tables as format version 2
//! (threat positions found by search, larger blocks; see FORMAT.md).

use gen::{compact, Compaction};
use serde_json::json;

use crate::commands::common::{TableArgs, WorkArgs};
use crate::exit::CliResult;

/// Flags of `dtb compact`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    #[command(flatten)]
    work: WorkArgs,
    /// A JSON array, one object per table.
    #[arg(long)]
    json: bool,
}

/// Runs `dtb compact`.
pub fn run(args: Args) -> CliResult {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.work.threads.unwrap_or(0))
        .build()
        .map_err(|e| crate::exit::CliError::new(crate::exit::FAILURE, e.to_string()))?;
    let done = pool.install(|| compact(&args.tables.dir, args.tables.rule_set))?;
    if args.json {
        let rows: Vec<_> = done
            .iter()
            .map(|t| row_json(t.material, &t.outcome))
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    let (mut before, mut after) = (0, 0);
    for t in &done {
        match t.outcome {
            Compaction::Rewritten {
                before: b,
                after: a,
                searched,
            } => {
                before += b;
                after += a;
                if !args.work.quiet {
                    println!(
                        "{}: {b} -> {a} bytes ({:.3}x), {searched} threat positions searched",
                        t.material,
                        a as f64 / b as f64
                    );
                }
            }
            Compaction::Unchanged => {}
            Compaction::NotSearchable(n) => println!(
                "{}: kept as version 1 ({n} threat positions differ from their search)",
                t.material
            ),
        }
    }
    if before > 0 {
        println!(
            "rewritten: {before} -> {after} bytes ({:.3}x)",
            after as f64 / before as f64
        );
    }
    Ok(())
}

fn row_json(material: format::Material, outcome: &Compaction) -> serde_json::Value {
    match *outcome {
        Compaction::Rewritten {
            before,
            after,
            searched,
        } => json!({"material": material.to_string(), "outcome": "rewritten",
            "bytes_before": before, "bytes_after": after, "threats_searched": searched}),
        Compaction::Unchanged => json!({"material": material.to_string(), "outcome": "unchanged"}),
        Compaction::NotSearchable(n) => json!({"material": material.to_string(),
            "outcome": "kept", "threats_differing": n}),
    }
}
