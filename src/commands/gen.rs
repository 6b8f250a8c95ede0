//! `dtb gen`: build tables.

use std::io::IsTerminal;

use gen::{generate, run_unit as run_one_unit, GenOptions};

use crate::commands::common::BuildArgs;
use crate::commands::slurm::SlurmArgs;
use crate::exit::{CliError, CliResult};

/// Flags of `dtb gen`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    build: BuildArgs,
    /// Machine-readable summary.
    #[arg(long)]
    json: bool,
    /// Run one unit of the plan and nothing else (`dtb plan` lists them).
    ///
    /// The command a batch job runs. Its inputs must be complete (exit 3
    /// naming the first that is not); nothing is done when its output is
    /// there and valid.
    #[arg(long, value_name = "ID", conflicts_with_all = ["slurm", "materials"],
          help_heading = crate::commands::common::CLUSTER)]
    unit: Option<String>,
    #[command(flatten)]
    slurm: SlurmArgs,
}

/// The build the flags describe.
fn options(args: &Args) -> Result<GenOptions, CliError> {
    let mut options = args.build.options()?;
    options.quiet = options.quiet || args.json || !std::io::stderr().is_terminal();
    Ok(options)
}

pub fn run(args: Args) -> CliResult {
    let options = options(&args)?;
    if let Some(id) = &args.unit {
        return run_unit(&options, id, args.json);
    }
    if args.slurm.slurm {
        return crate::commands::slurm::run(&options, &args.slurm, &args.build.tables);
    }
    let report = generate(&options)?;
    let bytes: u64 = report.built.iter().map(|b| b.bytes).sum();
    let positions: u64 = report.built.iter().map(|b| b.positions).sum();
    let dtc_bytes: u64 = report.dtc_built.iter().map(|b| b.bytes).sum();
    if args.json {
        let built: Vec<serde_json::Value> = report
            .built
            .iter()
            .map(|b| {
                serde_json::json!({
                    "material": b.material.to_string(),
                    "file": b.path.display().to_string(),
                    "positions": b.positions,
                    "bytes": b.bytes,
                    "seconds": b.seconds,
                })
            })
            .collect();
        let out = serde_json::json!({
            "rules": args.build.tables.rule_set.name(),
            "built": built,
            "skipped": report.skipped.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "seconds": report.seconds,
            "peak_memory_bytes": report.peak_memory_bytes,
            "bytes": bytes,
            "positions": positions,
            "dtc_files": report.dtc_built.len(),
            "dtc_bytes": dtc_bytes,
            "left_out": left_out(&report).iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "not_compacted": report.not_compacted.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        });
        crate::outln!("{out}");
        return Ok(());
    }
    for b in &report.built {
        crate::outln!(
            "{:<10} {:>12} positions {:>10} bytes {:6.3} bits/position",
            b.material.to_string(),
            b.positions,
            b.bytes,
            b.bytes as f64 * 8.0 / b.positions.max(1) as f64
        );
    }
    let peak = report
        .peak_memory_bytes
        .map(|b| format!("{:.1} MiB", b as f64 / (1 << 20) as f64))
        .unwrap_or_else(|| "unknown".into());
    crate::outln!(
        "built {} tables ({} positions, {} bytes), skipped {} already present; {:.1} s, peak memory {}",
        report.built.len(),
        positions,
        bytes,
        report.skipped.len(),
        report.seconds,
        peak
    );
    if args.build.compact {
        let left = left_out(&report);
        crate::outln!(
            "compacted: {} tables left to a search over their mirror{}{}",
            left.len(),
            names(&left, ": "),
            names(
                &report.not_compacted,
                "; kept as version 1 (search not proved exact): "
            )
        );
    }
    if args.build.dtc {
        crate::outln!(
            "wrote {} DTC files ({} bytes)",
            report.dtc_built.len(),
            dtc_bytes
        );
    }
    Ok(())
}

/// The tables a compacting build left to a search over their mirror.
fn left_out(report: &gen::GenReport) -> Vec<format::Material> {
    report
        .compacted
        .iter()
        .filter(|t| matches!(t.outcome, gen::Compaction::LeftOut { .. }))
        .map(|t| t.material)
        .collect()
}

/// `materials` listed after `lead`, or nothing if there are none.
fn names(materials: &[format::Material], lead: &str) -> String {
    if materials.is_empty() {
        return String::new();
    }
    let list: Vec<String> = materials.iter().map(|m| m.to_string()).collect();
    format!("{lead}{}", list.join(" "))
}

/// `dtb gen --unit ID`.
fn run_unit(options: &GenOptions, id: &str, json: bool) -> CliResult {
    let report = run_one_unit(options, id)?;
    let tables: Vec<String> = report
        .built
        .iter()
        .chain(&report.dtc_built)
        .map(|b| b.path.display().to_string())
        .collect();
    if json {
        let out = serde_json::json!({
            "unit": report.id,
            "already_done": report.already_done,
            "wrote": tables,
            "seconds": report.seconds,
            "peak_memory_bytes": plan::peak_memory_bytes(),
        });
        crate::outln!("{out}");
    } else if report.already_done {
        crate::outln!("{}: already done", report.id);
    } else {
        let peak = plan::peak_memory_bytes()
            .map(|b| format!("{:.1} MiB", b as f64 / (1 << 20) as f64))
            .unwrap_or_else(|| "unknown".into());
        crate::outln!(
            "{}: done in {:.1} s, peak memory {peak}{}",
            report.id,
            report.seconds,
            if tables.is_empty() {
                String::new()
            } else {
                format!("; wrote {}", tables.join(", "))
            }
        );
    }
    Ok(())
}
