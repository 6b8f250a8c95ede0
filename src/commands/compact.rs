//! `dtb compact`: rewrite a folder's WLD tables as format version 2
//! (threat positions found by search, larger blocks; with `--one-side`,
//! the larger table of each pair left to a search; see FORMAT.md).

use gen::{compact, compact_dry_run, recompress, CompactedTable, Compaction, Recompressed, Sides};
use serde_json::json;

use crate::commands::common::{existing_table_folder, parse_saving, TableArgs, WorkArgs};
use crate::exit::CliResult;

/// Flags of `dtb compact`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    #[command(flatten)]
    work: WorkArgs,
    /// Keep one table of a pair where a search answers the other.
    ///
    /// Of each pair of mirror materials where a one-ply search over one
    /// table answers the other, the side whose absence saves more is left
    /// out: smaller files, slower probes of the side left out.
    #[arg(long)]
    one_side: bool,
    /// With `--one-side`, leave a side out only where that saves at least
    /// this many bits a position.
    ///
    /// Bits a position of the table left out, against keeping both sides
    /// as version 2; 0 leaves out one side of every pair where that saves
    /// anything (docs/building.md weighs the choice).
    #[arg(long, value_name = "BITS", default_value_t = 0.0, requires = "one_side",
          value_parser = parse_saving)]
    min_saving: f64,
    /// Write nothing: say what each table would take.
    ///
    /// As if every check passed: it costs compressing the tables once,
    /// without the search of every position left out.
    #[arg(long, conflicts_with = "level")]
    dry_run: bool,
    /// Then recompress every table at this zstd level (1 to 22).
    ///
    /// Block by block, keeping each block's smaller frame: the same values
    /// in fewer bytes than the build's level 12 at level 19, decoded as
    /// fast, written several times slower (docs/building.md).
    #[arg(long, value_name = "LEVEL",
          value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,
    /// With `--level`, only recompress: no compaction pass.
    ///
    /// No table is rewritten as version 2 and none is searched: a folder
    /// compacted already is recompressed without being checked again.
    #[arg(long, requires = "level", conflicts_with = "one_side")]
    recompress_only: bool,
    /// A JSON array, one object per table.
    #[arg(long)]
    json: bool,
}

/// Runs `dtb compact`.
pub fn run(args: Args) -> CliResult {
    existing_table_folder(&args.tables.dir, args.tables.rule_set)?;
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
    let done = if args.recompress_only {
        Vec::new()
    } else {
        pool.install(|| pass(&args.tables.dir, args.tables.rule_set, sides))?
    };
    let recompressed = match args.level {
        Some(level) => {
            pool.install(|| recompress(&args.tables.dir, args.tables.rule_set, level))?
        }
        None => Vec::new(),
    };
    if args.json && args.recompress_only {
        let level = args.level.unwrap_or_default();
        let rows: Vec<_> = recompressed
            .iter()
            .map(|r| recompressed_json(r, level))
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    if args.json {
        let rows: Vec<_> = done
            .iter()
            .map(|t| {
                let mut row = row_json(t.material, &t.outcome);
                if let Some(bits) = t.one_side_saving {
                    row["one_side_saving_bits"] = json!(bits);
                }
                if let (Some(level), Some(r)) = (args.level, recompressed_of(&recompressed, t)) {
                    row["recompressed"] = json!({"level": level,
                        "bytes_before": r.before, "bytes_after": r.after});
                }
                row
            })
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    report_compaction(&args, &done);
    if let Some(level) = args.level {
        report_recompression(&recompressed, level, args.work.quiet);
    }
    Ok(())
}

/// The JSON row of a table `dtb compact --recompress-only` recompressed.
fn recompressed_json(r: &Recompressed, level: i32) -> serde_json::Value {
    json!({"material": r.material.to_string(), "recompressed": {"level": level,
        "bytes_before": r.before, "bytes_after": r.after}})
}

/// What recompressing did to the table of `t`.
fn recompressed_of<'a>(all: &'a [Recompressed], t: &CompactedTable) -> Option<&'a Recompressed> {
    all.iter().find(|r| r.material == t.material)
}

/// The lines of `dtb compact --level`: a table's (unless `quiet`) and the
/// folder's.
fn report_recompression(all: &[Recompressed], level: i32, quiet: bool) {
    let (mut before, mut after) = (0, 0);
    for r in all.iter().filter(|r| r.after < r.before) {
        if !quiet {
            println!(
                "{}: {} -> {} bytes at zstd level {level}",
                r.material, r.before, r.after
            );
        }
        before += r.before;
        after += r.after;
    }
    let whole: u64 = all.iter().map(|r| r.before).sum();
    println!(
        "recompressed at zstd level {level}: {} of {} tables, {before} -> {after} bytes; the folder's tables {whole} -> {} bytes",
        all.iter().filter(|r| r.after < r.before).count(),
        all.len(),
        whole - before + after
    );
}

/// The lines of the compaction: each table rewritten (unless quiet) or
/// kept back, and the totals.
fn report_compaction(args: &Args, done: &[CompactedTable]) {
    let (mut before, mut after) = (0, 0);
    for t in done {
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
            threats_kept,
        } => (
            Some((before, after)),
            Some(format!(
                "{m}: {before} -> {after} bytes ({:.3}x){}{}",
                after as f64 / before as f64,
                searched.map_or(String::new(), |n| format!(
                    ", {n} threat positions searched"
                )),
                match threats_kept {
                    0 => String::new(),
                    n => format!(", {n} stored as their search differs"),
                }
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
            threats_kept,
        } => json!({"material": material.to_string(), "outcome": "rewritten",
            "bytes_before": before, "bytes_after": after, "threats_searched": searched,
            "threats_kept": threats_kept}),
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
