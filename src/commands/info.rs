//! `dtb info`: what tables a directory holds, their sizes and statistics.

use std::path::{Path, PathBuf};

use format::{Header, Material, RuleSet, TableStats};
use probe::table_dir;
use serde_json::{json, Value};

use crate::commands::common::{parse_material, TableArgs};
use crate::exit::{CliError, CliResult, CORRUPTED_TABLE, FAILURE, MISSING_TABLE};

/// Flags of `dtb info`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    /// A JSON array, one object per material.
    #[arg(long)]
    json: bool,
    /// Show only these materials (default: every table in the folder).
    #[arg(value_parser = parse_material)]
    materials: Vec<Material>,
}

/// The header of the table at `path`, checked against the file's length
/// (only the header is read: `dtb verify` checks the rest).
fn read_header(path: &Path) -> Result<Header, CliError> {
    format::read_header(path).map_err(|e| {
        let code = if e.is_corruption() {
            CORRUPTED_TABLE
        } else {
            FAILURE
        };
        CliError::new(code, format!("table {}: {e}", path.display()))
    })
}

/// What a material's `.dtc` file header says of its distances.
#[derive(Clone, Copy)]
struct DtcSummary {
    /// The largest DTC stored (the longest win or loss).
    largest: u32,
    /// Positions whose DTC at a fresh 25-move count is above 50 plies,
    /// where known.
    above_limit: Option<u64>,
    /// The largest DTC at a fresh count, those included, where recorded.
    largest_fresh: Option<u32>,
}

/// The summary of a material's `.dtc` file, `None` when the file is not
/// there. Files written before the header recorded the count above 50
/// still tell it where it must be 0: a largest DTC below 50 plies (the
/// solver stopped below the rule's limit), or at most 50 under `pure`.
fn dtc_summary(dir: &Path, m: Material, rule_set: RuleSet) -> Result<Option<DtcSummary>, CliError> {
    let path = format::dtc_path(dir, m);
    if !path.exists() {
        return Ok(None);
    }
    let s = read_header(&path)?.stats;
    let largest = s.longest_win.unwrap_or(0).max(s.longest_loss.unwrap_or(0));
    let limit = format::KINGS_ONLY_LIMIT;
    let surely_none = largest < limit || (rule_set == RuleSet::Pure && largest <= limit);
    Ok(Some(DtcSummary {
        largest,
        above_limit: s.dtc_above_limit.or(surely_none.then_some(0)),
        largest_fresh: s.longest_fresh_dtc.or(surely_none.then_some(largest)),
    }))
}

/// The `dtc` object of `dtb info --json`: the largest DTC stored, how
/// many positions have a DTC above 50 plies at a fresh count of the
/// 25-move rule (under `fmjd` the rule draws them), and the largest DTC at
/// a fresh count, those included (null where the file does not tell).
fn dtc_json(dtc: Option<DtcSummary>) -> Value {
    match dtc {
        None => Value::Null,
        Some(d) => json!({
            "largest": d.largest,
            "above_50": d.above_limit,
            "largest_at_fresh_count": d.largest_fresh,
        }),
    }
}

fn stats_json(s: &TableStats) -> Value {
    json!({"win": s.win, "draw": s.draw, "loss": s.loss, "longest_win": s.longest_win})
}

pub fn run(args: Args) -> CliResult {
    let dir = table_dir(&args.tables.dir, args.tables.rule_set);
    let tables: Vec<(Material, PathBuf)> = format::list_tables(&dir)
        .map_err(|e| {
            let code = if e.is_not_found() {
                MISSING_TABLE
            } else {
                FAILURE
            };
            CliError::new(code, format!("{e} (build tables with dtb gen)"))
        })?
        .into_iter()
        .map(|m| (m, format::table_path(&dir, m)))
        .collect();
    let mut headers: Vec<(Material, PathBuf, Header)> = Vec::new();
    for (m, path) in tables {
        let header = read_header(&path)?;
        if header.material != m || header.rule_set != args.tables.rule_set {
            return Err(CliError::new(
                CORRUPTED_TABLE,
                format!(
                    "{} does not hold {m} under {}",
                    path.display(),
                    args.tables.rule_set
                ),
            ));
        }
        headers.push((m, path, header));
    }
    let stats_of = |m: Material| {
        headers
            .iter()
            .find(|(x, _, _)| *x == m)
            .map(|(_, _, h)| h.stats)
    };
    for m in &args.materials {
        if stats_of(*m).is_none() {
            return Err(CliError::new(
                MISSING_TABLE,
                format!("missing table {m} in {}", dir.display()),
            ));
        }
    }
    let shown: Vec<&(Material, PathBuf, Header)> = headers
        .iter()
        .filter(|(m, _, _)| args.materials.is_empty() || args.materials.contains(m))
        .collect();
    let mut largest = Vec::with_capacity(shown.len());
    for (m, _, _) in &shown {
        largest.push(dtc_summary(&dir, *m, args.tables.rule_set)?);
    }
    if args.json {
        let out: Vec<Value> = shown
            .iter()
            .zip(&largest)
            .map(|((m, path, h), dtc)| {
                json!({
                    "material": {
                        "white_men": m.white_men,
                        "white_kings": m.white_kings,
                        "black_men": m.black_men,
                        "black_kings": m.black_kings,
                    },
                    "file": path.display().to_string(),
                    "positions": h.position_count,
                    "bytes": h.file_length,
                    "stats": {
                        "white": stats_json(&h.stats),
                        "black": stats_of(m.mirrored()).map(|s| stats_json(&s)),
                    },
                    "dtc": dtc_json(*dtc),
                })
            })
            .collect();
        crate::outln!("{}", Value::Array(out));
        return Ok(());
    }
    crate::outln!(
        "{:<10} {:>12} {:>10} {:>6}  {:>44}  {:>44}  {:>7}  {:>10}",
        "material",
        "positions",
        "bytes",
        "bits/pos",
        "white to move w/d/l",
        "black to move w/d/l",
        "max dtc",
        "dtc > 50"
    );
    let wdl = |s: Option<TableStats>| match s {
        Some(s) => {
            let longest = s
                .longest_win
                .map(|l| format!(", longest win {l} {}", if l == 1 { "ply" } else { "plies" }))
                .unwrap_or_default();
            format!("{}/{}/{}{longest}", s.win, s.draw, s.loss)
        }
        None => "-".into(),
    };
    let (mut total_pos, mut total_bytes) = (0u64, 0u64);
    for ((m, _, h), dtc) in shown.iter().zip(&largest) {
        total_pos += h.position_count;
        total_bytes += h.file_length;
        crate::outln!(
            "{:<10} {:>12} {:>10} {:>6.3}  {:>44}  {:>44}  {:>7}  {:>10}",
            m.to_string(),
            h.position_count,
            h.file_length,
            h.file_length as f64 * 8.0 / h.position_count.max(1) as f64,
            wdl(Some(h.stats)),
            wdl(stats_of(m.mirrored())),
            dtc.map_or("-".to_string(), |d| d.largest.to_string()),
            dtc.map_or("-".to_string(), |d| d
                .above_limit
                .map_or("?".to_string(), |n| n.to_string())),
        );
    }
    crate::outln!(
        "{} tables in {}: {} positions, {} bytes, {:.3} bits per position",
        shown.len(),
        dir.display(),
        total_pos,
        total_bytes,
        total_bytes as f64 * 8.0 / total_pos.max(1) as f64
    );
    Ok(())
}
