//! `dtb compact`: rewrite a folder's WLD tables as format version 2
//! (threat positions found by search, larger blocks; with `--one-side`,
//! the larger table of each pair left to a search; see FORMAT.md).

use gen::{compact, compact_dry_run, CompactedTable, Compaction, Sides};
use serde_json::json;

use crate::commands::common::{parse_saving, TableArgs, WorkArgs};
use crate::exit::CliResult;

/// Flags of `dtb compact`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    #[command(flatten)]
    work: WorkArgs,
    /// Keep only one table of each pair of mirror materials where the
    /// other can be answered by a one-ply search over it, leaving out the
    /// side whose absence saves more (smaller files, slower probes of the
    /// side left out).
    #[arg(long)]
    one_side: bool,
    /// With `--one-side`, leave a side out only where that saves at least
    /// this many bits a position of the table left out, against keeping
    /// both sides as version 2 (0.10 keeps the fmjd set up to 5 pieces
    /// at 0.44x its plain bytes, with 18 tables, 20% of its positions,
    /// left to their mirror; 0 leaves out one side of every pair where
    /// that saves anything).
    #[arg(long, value_name = "BITS", default_value_t = 0.0, requires = "one_side",
          value_parser = parse_saving)]
    min_saving: f64,
    /// Write nothing and check nothing: say what each table would take
    /// (as if every check passed), at the cost of compressing the tables
    /// once, without the search of every position left out.
    #[arg(long)]
    dry_run: bool,
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
    let sides = if args.one_side {
        Sides::One {
            min_saving: args.min_saving,
        }
    } else {
        Sides::Both
    };
    let pass = if args.dry_run {
        compact_dry_run
    } else {
        compact
    };
    let done = pool.install(|| pass(&args.tables.dir, args.tables.rule_set, sides))?;
    if args.json {
        let rows: Vec<_> = done
            .iter()
            .map(|t| {
                let mut row = row_json(t.material, &t.outcome);
                if let Some(bits) = t.one_side_saving {
                    row["one_side_saving_bits"] = json!(bits);
                }
                row
            })
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    let (mut before, mut after) = (0, 0);
    for t in &done {
        let (sizes, line) = report(t);
        if let Some((b, a)) = sizes {
            before += b;
            after += a;
        }
        // Tables kept back are always named; rewritten ones unless quiet.
        if let Some(line) = line.filter(|_| sizes.is_none() || !args.work.quiet) {
            match (t.one_side_saving, &t.outcome) {
                (Some(bits), Compaction::LeftOut { .. }) => {
                    println!("{line} (saving {bits:.3} bits a position against version 2)")
                }
                (Some(bits), _) => {
                    println!("{line}; leaving it out would save {bits:.3} bits a position")
                }
                (None, _) => println!("{line}"),
            }
        }
    }
    if before > 0 {
        let (done, what) = if args.dry_run {
            ("would be rewritten", ", nothing written or checked")
        } else {
            ("rewritten", "")
        };
        println!(
            "{done}: {before} -> {after} bytes ({:.3}x){what}",
            after as f64 / before as f64
        );
    }
    Ok(())
}

/// The bytes before and after of a table rewritten (`None` for one left
/// as it is), and the line that tells what happened to it, if any.
fn report(t: &CompactedTable) -> (Option<(u64, u64)>, Option<String>) {
    let m = t.material;
    match t.outcome {
        Compaction::Rewritten {
            before,
            after,
            searched,
        } => (
            Some((before, after)),
            Some(format!(
                "{m}: {before} -> {after} bytes ({:.3}x){}",
                after as f64 / before as f64,
                searched.map_or(String::new(), |n| format!(
                    ", {n} threat positions searched"
                ))
            )),
        ),
        Compaction::LeftOut { before, after } => (
            Some((before, after)),
            Some(format!(
                "{m}: {before} -> {after} bytes, quiet positions found by search over {} (those whose search spreads stored)",
                m.mirrored()
            )),
        ),
        Compaction::KeptWhole { before, after } => (
            Some((before, after)),
            Some(format!(
                "{m}: {before} -> {after} bytes, every value stored (its mirror searches it)"
            )),
        ),
        Compaction::Unchanged | Compaction::KeptForMirror => (None, None),
        Compaction::NotSearchable(n) => (
            None,
            Some(format!(
                "{m}: kept as version 1 ({n} threat positions differ from their search)"
            )),
        ),
        Compaction::MirrorNotSearchable(n) => (
            None,
            Some(format!(
                "{m}: kept ({n} positions differ from a search over {})",
                m.mirrored()
            )),
        ),
    }
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
        Compaction::LeftOut { before, after } => json!({"material": material.to_string(),
            "outcome": "left_out", "bytes_before": before, "bytes_after": after}),
        Compaction::KeptWhole { before, after } => json!({"material": material.to_string(),
            "outcome": "kept_whole", "bytes_before": before, "bytes_after": after}),
        Compaction::KeptForMirror => json!({"material": material.to_string(),
            "outcome": "kept_for_mirror"}),
        Compaction::MirrorNotSearchable(n) => json!({"material": material.to_string(),
            "outcome": "kept", "positions_differing": n}),
    }
}
