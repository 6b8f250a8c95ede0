//! `dtb info`: what tables a directory holds, their sizes and statistics.

use std::path::{Path, PathBuf};

use format::{Header, Material, TableStats};
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

/// The largest DTC of a material's `.dtc` file (its header keeps the
/// longest win and loss), `None` when the file is not there.
fn largest_dtc(dir: &Path, m: Material) -> Result<Option<u32>, CliError> {
    let path = format::dtc_path(dir, m);
    if !path.exists() {
        return Ok(None);
    }
    let h = read_header(&path)?;
    Ok(Some(
        h.stats
            .longest_win
            .unwrap_or(0)
            .max(h.stats.longest_loss.unwrap_or(0)),
    ))
}

/// The `dtc` object of `dtb info --json`: the largest DTC, and how many
/// positions have a DTC above 50 plies, where the 25-move rule would change
/// a freshly reset count (0 when the largest is 50 or less; null when it
/// is more, as the files do not count them).
fn dtc_json(largest: Option<u32>) -> Value {
    match largest {
        None => Value::Null,
        Some(l) => json!({
            "largest": l,
            "above_50": (l <= format::KINGS_ONLY_LIMIT).then_some(0),
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
        largest.push(largest_dtc(&dir, *m)?);
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
        "{:<10} {:>12} {:>10} {:>6}  {:>44}  {:>44}  {:>7}",
        "material",
        "positions",
        "bytes",
        "bits/pos",
        "white to move w/d/l",
        "black to move w/d/l",
        "max dtc"
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
            "{:<10} {:>12} {:>10} {:>6.3}  {:>44}  {:>44}  {:>7}",
            m.to_string(),
            h.position_count,
            h.file_length,
            h.file_length as f64 * 8.0 / h.position_count.max(1) as f64,
            wdl(Some(h.stats)),
            wdl(stats_of(m.mirrored())),
            dtc.map_or("-".to_string(), |d| d.to_string()),
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
