//! `dtb plan`: the units of work of a build (see the `plan` crate), in an order
//! that runs each after what it needs.

use plan::{plan, GenOptions, Unit};

use crate::commands::common::BuildArgs;
use crate::exit::CliResult;

/// Flags of `dtb plan`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    build: BuildArgs,
    /// Every unit with what it needs and writes, as JSON.
    #[arg(long, conflicts_with = "ids")]
    json: bool,
    /// The unit ids only, one a line, in order (for a shell loop of
    /// `dtb gen --unit ID`).
    #[arg(long)]
    ids: bool,
}

pub fn run(args: Args) -> CliResult {
    let options = args.build.options()?;
    let units = plan(&options);
    let done: Vec<bool> = units
        .iter()
        .map(|u| gen::unit_is_done(&options, u))
        .collect();
    if args.ids {
        for u in &units {
            crate::outln!("{}", u.id);
        }
    } else if args.json {
        crate::outln!("{}", plan_json(&units, &done));
    } else {
        let left: Vec<Unit> = units
            .iter()
            .zip(&done)
            .filter(|(_, &done)| !done)
            .map(|(u, _)| u.clone())
            .collect();
        summary(&left, units.len(), &options);
    }
    Ok(())
}

/// `{"units": [...]}` with every unit's id, material, needs, writes,
/// positions and memory, and whether its output is there already.
fn plan_json(units: &[Unit], done: &[bool]) -> serde_json::Value {
    let list: Vec<serde_json::Value> = units
        .iter()
        .zip(done)
        .map(|(u, done)| {
            serde_json::json!({
                "id": u.id,
                "done": done,
                "kind": kind_name(u),
                "material": u.material.map(|m| m.to_string()),
                "needs": u.needs,
                "writes": u.writes.iter().map(|w| w.display().to_string()).collect::<Vec<_>>(),
                "positions": u.positions,
                "memory_bytes": u.memory_bytes,
            })
        })
        .collect();
    serde_json::json!({ "units": list })
}

fn kind_name(unit: &Unit) -> &'static str {
    match unit.kind {
        plan::UnitKind::Solve => "solve",
        plan::UnitKind::Group { .. } => "group",
        plan::UnitKind::Assemble => "assemble",
        plan::UnitKind::Manifest => "manifest",
    }
}

/// The longest chain of units that must run one after another, weighed
/// by positions solved: its units, first to last.
fn critical_path(units: &[Unit]) -> Vec<usize> {
    let at: std::collections::HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.id.as_str(), i))
        .collect();
    // Units come after what they need, so one pass in order is enough.
    let mut best: Vec<(u64, Option<usize>)> = Vec::with_capacity(units.len());
    for u in units {
        let before = u
            .needs
            .iter()
            .filter_map(|n| at.get(n.as_str()).copied())
            .max_by_key(|&i| best[i].0);
        let weight = before.map_or(0, |i| best[i].0);
        best.push((weight + u.positions, before));
    }
    let mut path = Vec::new();
    let mut next = (0..units.len()).max_by_key(|&i| best[i].0);
    while let Some(i) = next {
        path.push(i);
        next = best[i].1;
    }
    path.reverse();
    path
}

/// What is left of the build: `units` are the unfinished ones of `all`.
fn summary(units: &[Unit], all: usize, options: &GenOptions) {
    let folder = format::table_dir(&options.dir, options.rule_set);
    if units.is_empty() {
        crate::outln!(
            "nothing left to build: all {all} units of this build are done in {}",
            folder.display()
        );
        return;
    }
    let solved: u64 = units
        .iter()
        .filter(|u| matches!(u.kind, plan::UnitKind::Solve | plan::UnitKind::Group { .. }))
        .map(|u| u.positions)
        .sum();
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    crate::outln!(
        "{} of {all} units left to build in {} ({} rule set{}): {} positions to solve",
        units.len(),
        folder.display(),
        options.rule_set,
        if options.dtc { ", with DTC files" } else { "" },
        solved
    );
    if let Some(u) = units.iter().max_by_key(|u| u.memory_bytes) {
        crate::outln!(
            "largest unit: {} ({} positions, {:.2} GiB of memory)",
            u.id,
            u.positions,
            gib(u.memory_bytes)
        );
    }
    if let Some(u) = units.iter().max_by_key(|u| u.positions) {
        crate::outln!("most positions: {} ({} positions)", u.id, u.positions);
    }
    let path = critical_path(units);
    let positions: u64 = path.iter().map(|&i| units[i].positions).sum();
    crate::outln!(
        "critical path: {} units in a row, {} positions ({:.0}% of the work; \
         the least wall time with unlimited nodes)",
        path.len(),
        positions,
        100.0 * positions as f64 / solved.max(1) as f64
    );
    cost(units);
}

/// Core-hours at the rates measured on two cores, and the wall time on 1,
/// 16 and 100 nodes of 16 cores.
fn cost(units: &[Unit]) {
    let rates = plan::estimate::MEASURED;
    let core_seconds: f64 = units
        .iter()
        .map(|u| plan::estimate::core_seconds(u, &rates))
        .sum();
    crate::outln!(
        "estimated cost: {:.1} core-hours at the rates measured on two cores (docs/building.md)",
        core_seconds / 3600.0
    );
    let hours = |s: f64| format!("{:.1} h", s / 3600.0);
    let mut walls = Vec::new();
    let mut critical = 0.0;
    for nodes in [1, 16, 100] {
        let s = plan::estimate::schedule(units, nodes, 16, &rates);
        walls.push(format!(
            "{nodes} node{}: {}",
            if nodes == 1 { "" } else { "s" },
            hours(s.wall_seconds)
        ));
        critical = s.critical_seconds;
    }
    crate::outln!(
        "wall time on nodes of 16 cores: {}; the critical path alone {}",
        walls.join(", "),
        hours(critical)
    );
}
