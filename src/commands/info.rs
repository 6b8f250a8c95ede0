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

/// A table of the folder: its material, file and header.
struct Listed {
    material: Material,
    path: PathBuf,
    header: Header,
}

pub fn run(args: Args) -> CliResult {
    let rule_set = args.tables.rule_set;
    let dir = table_dir(&args.tables.dir, rule_set);
    let listed = list(&dir, rule_set)?;
    let stats_of = |m: Material| {
        listed
            .iter()
            .find(|t| t.material == m)
            .map(|t| t.header.stats)
    };
    if let Some(m) = args.materials.iter().find(|m| stats_of(**m).is_none()) {
        return Err(CliError::new(
            MISSING_TABLE,
            format!("missing table {m} in {}", dir.display()),
        ));
    }
    let shown: Vec<&Listed> = listed
        .iter()
        .filter(|t| args.materials.is_empty() || args.materials.contains(&t.material))
        .collect();
    let mut dtc = Vec::with_capacity(shown.len());
    for t in &shown {
        dtc.push(dtc_summary(&dir, t.material, rule_set)?);
    }
    if args.json {
        let out: Vec<Value> = shown
            .iter()
            .zip(&dtc)
            .map(|(t, d)| table_json(t, stats_of(t.material.mirrored()), *d))
            .collect();
        crate::outln!("{}", Value::Array(out));
    } else {
        print_text(&dir, &shown, &dtc, stats_of);
    }
    Ok(())
}

/// Every table of the folder with its header, each checked to be the
/// file its name says.
fn list(dir: &Path, rule_set: RuleSet) -> Result<Vec<Listed>, CliError> {
    let materials = format::list_tables(dir).map_err(|e| {
        let code = if e.is_not_found() {
            MISSING_TABLE
        } else {
            FAILURE
        };
        CliError::new(code, format!("{e} (build tables with dtb gen)"))
    })?;
    let mut listed = Vec::with_capacity(materials.len());
    for material in materials {
        let path = format::table_path(dir, material);
        let header = read_header(&path)?;
        let kind = format::value_kind(material, rule_set);
        if let Some(mismatch) = header.mismatch(material, rule_set, kind) {
            return Err(CliError::new(
                CORRUPTED_TABLE,
                format!(
                    "{} is not the table of {material} under {rule_set}: {mismatch}",
                    path.display()
                ),
            ));
        }
        listed.push(Listed {
            material,
            path,
            header,
        });
    }
    Ok(listed)
}

/// One table's object in `dtb info --json`; `mirror` is the statistics of
/// the mirror material's table (Black to move), where there is one.
fn table_json(t: &Listed, mirror: Option<TableStats>, dtc: Option<DtcSummary>) -> Value {
    let (m, h) = (t.material, &t.header);
    json!({
        "material": {
            "white_men": m.white_men,
            "white_kings": m.white_kings,
            "black_men": m.black_men,
            "black_kings": m.black_kings,
        },
        "file": t.path.display().to_string(),
        "positions": h.position_count,
        "bytes": h.file_length,
        "format_version": h.version(),
        "threats_searched": h.threats_searched,
        "quiet_searched": h.quiet_searched,
        "spread_stored": h.spread_unit.is_some(),
        "threats_kept": h.threats_kept,
        "from_mirror": h.from_mirror,
        "stats": {
            "white": stats_json(&h.stats),
            "black": mirror.map(|s| stats_json(&s)),
        },
        "dtc": dtc_json(dtc),
    })
}

/// Wins, draws and losses, and the longest win, of one side to move.
fn wdl_text(s: Option<TableStats>) -> String {
    match s {
        Some(s) => {
            let longest = s
                .longest_win
                .map(|l| format!(", longest win {l} {}", if l == 1 { "ply" } else { "plies" }))
                .unwrap_or_default();
            format!("{}/{}/{}{longest}", s.win, s.draw, s.loss)
        }
        None => "-".into(),
    }
}

/// What a table stores: every value (capture positions aside), all but
/// its searched threats (version 2), only the quiet positions whose search
/// would spread (its mirror's table answers the others by search), or
/// nothing.
fn stores_text(h: &Header) -> &'static str {
    if h.from_mirror {
        "nothing"
    } else if h.quiet_searched {
        "spread"
    } else if h.threats_searched {
        "no threats"
    } else {
        "all"
    }
}

/// The readable table: a line a material, then the totals.
fn print_text(
    dir: &Path,
    shown: &[&Listed],
    dtc: &[Option<DtcSummary>],
    stats_of: impl Fn(Material) -> Option<TableStats>,
) {
    crate::outln!(
        "{:<10} {:>12} {:>10} {:>6}  {:<10}  {:>44}  {:>44}  {:>7}  {:>10}",
        "material",
        "positions",
        "bytes",
        "bits/pos",
        "stores",
        "white to move w/d/l",
        "black to move w/d/l",
        "max dtc",
        "dtc > 50"
    );
    let (mut total_pos, mut total_bytes) = (0u64, 0u64);
    for (t, d) in shown.iter().zip(dtc) {
        let (m, h) = (t.material, &t.header);
        total_pos += h.position_count;
        total_bytes += h.file_length;
        crate::outln!(
            "{:<10} {:>12} {:>10} {:>6.3}  {:<10}  {:>44}  {:>44}  {:>7}  {:>10}",
            m.to_string(),
            h.position_count,
            h.file_length,
            h.file_length as f64 * 8.0 / h.position_count.max(1) as f64,
            stores_text(h),
            wdl_text(Some(h.stats)),
            wdl_text(stats_of(m.mirrored())),
            d.map_or("-".to_string(), |d| d.largest.to_string()),
            d.map_or("-".to_string(), |d| d
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
}
