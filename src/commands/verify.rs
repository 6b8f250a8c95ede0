//! `dtb verify`: checksums, the manifest, and every stored value against
//! the values of its moves.

use std::io::IsTerminal;

use check::{verify, TableCheck, TableProblem, VerifyOptions};
use format::manifest;
use format::Material;
use serde_json::json;

use crate::commands::common::{existing_table_folder, parse_material, TableArgs, WorkArgs};
use crate::commands::slurm::VerifySlurmArgs;
use crate::exit::{CliError, CliResult, CORRUPTED_TABLE, FAILURE, MISSING_TABLE};

/// Flags of `dtb verify`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    #[command(flatten)]
    work: WorkArgs,
    /// Machine-readable report.
    #[arg(long, conflicts_with = "slurm")]
    json: bool,
    /// Check only about this fraction of each table's positions.
    ///
    /// 0 < F <= 1; the same pseudo-random positions on every run, for a
    /// quick look at a large set. Checksums are always checked in full.
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction)]
    sample: Option<f64>,
    /// Check one unit of the build plan (an id `dtb plan` lists).
    ///
    /// A slice group's positions in both tables of its pair
    /// (`<pair>.a<N>`, only that group and the next one decoded), a pair
    /// solved whole (`<pair>.solve`; without men, held at 2 bits a position
    /// as its solver holds it), a pair's files (`<pair>.tables`: checksums
    /// and headers) or the manifest (`manifest`). Every unit of a plan
    /// checked so is a full verify, spread over as many jobs.
    #[arg(long, value_name = "ID", conflicts_with = "materials",
          help_heading = crate::commands::common::CLUSTER)]
    unit: Option<String>,
    /// MiB of smaller tables a group's check may decode whole.
    ///
    /// The check of a slice group (or of a `.solve` unit without men)
    /// decodes them smallest first; the others are read block by block
    /// through the prober (slower, the same verdicts); it counts in each
    /// group's memory. A whole check resolves them all.
    #[arg(long, value_name = "MIB", default_value_t = check::DEFAULT_VERIFY_PRELOAD_BYTES >> 20,
          help_heading = crate::commands::common::EXPERT)]
    preload_memory: u64,
    /// The `--split-groups-above` of the plan whose units are checked.
    ///
    /// As `dtb gen`'s (the default), for the ids of parts of groups
    /// (`<pair>.a<N>.p...`): a bin of parts is checked with the parts of
    /// the next group it reads, not whole groups.
    #[arg(long, value_name = "POSITIONS", default_value_t = plan::DEFAULT_SPLIT_GROUPS_ABOVE,
          help_heading = crate::commands::common::EXPERT)]
    split_groups_above: u64,
    #[command(flatten)]
    slurm: VerifySlurmArgs,
    /// Verify only these materials (default: every table in the folder).
    #[arg(value_parser = parse_material)]
    materials: Vec<Material>,
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!(
            "--sample takes a fraction above 0 and at most 1, not {s:?}"
        )),
    }
}

pub fn run(args: Args) -> CliResult {
    let dir = existing_table_folder(&args.tables.dir, args.tables.rule_set)?;
    let options = verify_options(&args);
    if args.slurm.slurm {
        return crate::commands::slurm::run_verify(&options, &args.slurm);
    }
    // A unit other than the manifest's leaves it alone: on a cluster it is
    // written last.
    let manifest_problems = match args.unit.as_deref() {
        None | Some("manifest") => manifest::check(&dir, args.tables.rule_set)?,
        Some(_) => Vec::new(),
    };
    let checks = verify(&options)?;
    if args.json {
        print_json(args.tables.rule_set.name(), &manifest_problems, &checks);
    } else {
        print_text(&manifest_problems, &checks);
    }
    verdict(&manifest_problems, &checks)
}

/// The options of the library's `verify` that the flags ask for.
fn verify_options(args: &Args) -> VerifyOptions {
    let mut options = VerifyOptions::new(args.tables.dir.clone(), args.tables.rule_set);
    options.materials = args.materials.clone();
    options.threads = args.work.threads;
    options.quiet = args.work.quiet || args.json || !std::io::stderr().is_terminal();
    options.sample = args.sample;
    options.unit = args.unit.clone();
    options.preload_bytes = args.preload_memory.saturating_mul(1 << 20);
    options.split_groups_above = Some(args.split_groups_above);
    options
}

/// Positions checked in all, and the seconds the checks took.
fn totals(checks: &[TableCheck]) -> (u64, f64) {
    let positions = checks.iter().map(|c| c.checked).sum();
    let seconds = checks.iter().map(|c| c.seconds).fold(0.0, |a, b| a + b);
    (positions, seconds)
}

/// The machine-readable report: one object on stdout.
fn print_json(rules: &str, manifest_problems: &[String], checks: &[TableCheck]) {
    let (positions, seconds) = totals(checks);
    let tables: Vec<_> = checks.iter().map(table_json).collect();
    crate::outln!(
        "{}",
        json!({"rules": rules, "manifest_problems": manifest_problems, "tables": tables, "positions": positions, "seconds": seconds})
    );
}

/// One table's check as the JSON report gives it.
fn table_json(check: &TableCheck) -> serde_json::Value {
    let mismatches: Vec<_> = check
        .mismatches
        .iter()
        .map(|m| {
            json!({
                "fen": m.fen,
                "stored": {"result": m.stored.wdl.as_str(), "plies": m.stored.distance},
                "expected": {"result": m.expected.wdl.as_str(), "plies": m.expected.distance},
            })
        })
        .collect();
    json!({
        "material": check.material.to_string(),
        "file": check.path.display().to_string(),
        "checked": check.checked,
        "ok": check.ok(),
        "problem": check.problem.as_ref().map(|p| p.message()),
        "problem_kind": check.problem.as_ref().map(problem_kind),
        "mismatch_count": check.mismatch_count,
        "mismatches": mismatches,
        "seconds": check.seconds,
    })
}

/// The readable report: a line a table, its problem and first mismatches
/// under it, then the totals.
fn print_text(manifest_problems: &[String], checks: &[TableCheck]) {
    for p in manifest_problems {
        crate::outln!("manifest: {p}");
    }
    for c in checks {
        print_table_text(c);
    }
    let (positions, seconds) = totals(checks);
    let rate = if seconds > 0.0 {
        positions as f64 / seconds / 1e6
    } else {
        0.0
    };
    crate::outln!(
        "{} tables, {} positions checked in {:.1} s ({:.2} M positions/s)",
        checks.len(),
        positions,
        seconds,
        rate
    );
}

/// One table's lines of the readable report.
fn print_table_text(c: &TableCheck) {
    let status = if c.ok() { "ok" } else { "FAILED" };
    crate::outln!(
        "{:<10} {status:<6} {:>12} positions checked in {:.1} s",
        c.material.to_string(),
        c.checked,
        c.seconds
    );
    if let Some(p) = &c.problem {
        crate::outln!("  {}", p.message());
    }
    for m in &c.mismatches {
        crate::outln!(
            "  mismatch {}: stored {} {:?}, moves give {} {:?}",
            m.fen,
            m.stored.wdl,
            m.stored.distance,
            m.expected.wdl,
            m.expected.distance
        );
    }
    if c.mismatch_count > c.mismatches.len() as u64 {
        crate::outln!("  ... {} mismatches in all", c.mismatch_count);
    }
}

/// Success, or the one-line error (with the exit code of the worst table)
/// when a table or the manifest failed.
fn verdict(manifest_problems: &[String], checks: &[TableCheck]) -> CliResult {
    let bad_tables = checks.iter().filter(|c| !c.ok()).count();
    if bad_tables == 0 && manifest_problems.is_empty() {
        return Ok(());
    }
    let worst = checks
        .iter()
        .filter(|c| !c.ok())
        .max_by_key(|c| exit_code(c));
    let code = worst.map_or(CORRUPTED_TABLE, exit_code);
    let first = worst
        .map(first_problem)
        .or_else(|| manifest_problems.first().cloned())
        .unwrap_or_default();
    Err(CliError::new(
        code,
        format!(
            "verification failed ({bad_tables} bad tables, {} manifest problems); worst: {first}",
            manifest_problems.len()
        ),
    ))
}

/// A failed table's problem, or its first mismatch, in a few words.
fn first_problem(c: &TableCheck) -> String {
    match (&c.problem, c.mismatches.first()) {
        (Some(p), _) => format!("{}: {}", c.path.display(), p.message()),
        (None, Some(m)) => format!(
            "{}: {} mismatches, first at {}",
            c.material, c.mismatch_count, m.fen
        ),
        _ => c.material.to_string(),
    }
}

/// The kind of a problem, as the JSON report names it.
fn problem_kind(problem: &TableProblem) -> &'static str {
    match problem {
        TableProblem::Missing(_) => "missing",
        TableProblem::Corrupted(_) => "corrupted",
        _ => "failed",
    }
}

/// The exit code a failed table calls for: a damaged table or wrong values
/// 4, a missing one 3, anything else 1 (the worst of all tables is used).
fn exit_code(check: &TableCheck) -> i32 {
    match &check.problem {
        Some(TableProblem::Missing(_)) => MISSING_TABLE,
        Some(TableProblem::Corrupted(_)) => CORRUPTED_TABLE,
        Some(_) => FAILURE,
        None if check.mismatch_count > 0 => CORRUPTED_TABLE,
        None => 0,
    }
}
