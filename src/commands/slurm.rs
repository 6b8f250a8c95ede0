//! `dtb gen --slurm`: every unfinished unit of the plan submitted to a
//! Slurm cluster with `sbatch`, each depending (`afterok`) on the units it
//! needs; `--wait` follows them with `squeue`. Slurm schedules; this only
//! submits, throttles to `--max-jobs` queued jobs, and reports.
//!
//! Each job runs `dtb gen --unit ID` with the same table directory, which
//! must be on a filesystem every node sees, as must the `dtb` binary.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gen::unit_is_done;
use plan::{plan, GenOptions, Unit};

use crate::commands::common::{TableArgs, CLUSTER};
use crate::exit::{CliError, CliResult, FAILURE};
use crate::shell::quote;

/// Flags of `dtb gen` for Slurm.
#[derive(clap::Args, Clone, Debug)]
pub struct SlurmArgs {
    /// Submit every unfinished unit to Slurm instead of building here.
    ///
    /// One sbatch job a unit, each after the units it needs. Finished
    /// units are skipped, so a rerun resumes. The table directory and this
    /// binary must be on a filesystem every node sees.
    #[arg(long, help_heading = CLUSTER)]
    pub slurm: bool,
    #[command(flatten)]
    pub queue: QueueArgs,
    /// With `--slurm`, follow the jobs until none is left in the queue.
    ///
    /// Then report the units that did not finish, with their log files.
    #[arg(long, requires = "slurm", help_heading = CLUSTER)]
    pub wait: bool,
}

/// How jobs are queued, for `dtb gen --slurm` and `dtb verify --slurm`.
#[derive(clap::Args, Clone, Debug)]
pub struct QueueArgs {
    /// An argument passed to every sbatch call (e.g. --partition=big);
    /// repeat for more.
    #[arg(
        long = "sbatch-arg",
        value_name = "ARG",
        requires = "slurm",
        allow_hyphen_values = true,
        help_heading = CLUSTER
    )]
    pub sbatch_args: Vec<String>,
    /// Keep at most this many of our jobs queued or running at once.
    #[arg(long, value_name = "K", requires = "slurm", default_value_t = 1000,
          help_heading = CLUSTER)]
    pub max_jobs: usize,
}

/// The log folder (made if need be) and the `dtb` binary the jobs run,
/// once `queue` is checked.
fn prepare(
    dir: &Path,
    rule_set: format::RuleSet,
    queue: &QueueArgs,
) -> Result<(PathBuf, PathBuf), CliError> {
    if queue.max_jobs == 0 {
        return Err(CliError::bad_input("--max-jobs must be at least 1"));
    }
    let logs = format::table_dir(dir, rule_set).join("slurm");
    std::fs::create_dir_all(&logs)
        .map_err(|e| CliError::new(FAILURE, format!("{}: {e}", logs.display())))?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::new(FAILURE, format!("cannot find the dtb binary: {e}")))?;
    Ok((logs, exe))
}

/// One submitted unit.
pub struct Job {
    /// Slurm's job id.
    pub id: String,
    /// Its log file (standard output and error).
    pub log: PathBuf,
}

pub fn run(options: &GenOptions, args: &SlurmArgs, tables: &TableArgs) -> CliResult {
    let (logs, exe) = prepare(&options.dir, options.rule_set, &args.queue)?;
    let units = plan(options);
    let mut jobs: HashMap<String, Job> = HashMap::new();
    let mut done = 0;
    for unit in &units {
        // A unit after one that is submitted runs too: its output may be
        // valid for what is there now (the manifest), not for what comes.
        let after_submitted = unit.needs.iter().any(|n| jobs.contains_key(n));
        if !after_submitted && unit_is_done(options, unit) {
            done += 1;
            continue;
        }
        wait_for_room(&jobs, args.queue.max_jobs)?;
        let script = job_script(&exe, options, tables, unit);
        let cpus = options.threads.unwrap_or(1);
        let after: Vec<&str> = unit
            .needs
            .iter()
            .filter_map(|n| jobs.get(n).map(|j| j.id.as_str()))
            .collect();
        let spec = JobSpec {
            name: &unit.id,
            after: &after,
            memory_bytes: unit.memory_bytes,
            script: &script,
            cpus,
        };
        let job = submit(&spec, &logs, &args.queue.sbatch_args)?;
        jobs.insert(unit.id.clone(), job);
    }
    crate::outln!(
        "submitted {} units to Slurm, {} already done",
        jobs.len(),
        done
    );
    if !args.wait {
        return Ok(());
    }
    follow(&jobs)?;
    report_failures(options, &units, &jobs)
}

/// The shell command a job runs.
fn job_script(exe: &Path, options: &GenOptions, tables: &TableArgs, unit: &Unit) -> String {
    let mut words = vec![
        quote(&exe.display().to_string()),
        "gen".into(),
        "--unit".into(),
        quote(&unit.id),
        "--dir".into(),
        quote(&absolute(&tables.dir).display().to_string()),
        "--rules".into(),
        options.rule_set.name().into(),
        "--threads".into(),
        options.threads.unwrap_or(1).to_string(),
        "--preload-memory".into(),
        (options.preload_bytes >> 20).to_string(),
        "--queue-memory".into(),
        (options.queue_bytes >> 20).to_string(),
        "--quiet".into(),
    ];
    if let Some(most) = options.split_groups_above {
        words.extend(["--split-groups-above".into(), most.to_string()]);
    }
    if options.bitset_slices_above != plan::DEFAULT_BITSET_SLICES_ABOVE {
        let most = options.bitset_slices_above.to_string();
        words.extend(["--bitset-slices-above".into(), most]);
    }
    if options.dtc {
        words.push("--dtc".into());
    }
    match options.compact {
        Some(plan::Sides::Both) => words.push("--compact".into()),
        Some(plan::Sides::One { min_saving }) => words.extend([
            "--compact".into(),
            "--one-side".into(),
            "--min-saving".into(),
            min_saving.to_string(),
        ]),
        None => {}
    }
    words.join(" ")
}

/// `path` made absolute (jobs start in another directory).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What one job runs, and on what.
pub struct JobSpec<'a> {
    /// The unit's id: the job's name and its log's.
    pub name: &'a str,
    /// The ids of the jobs it must wait for (`afterok`).
    pub after: &'a [&'a str],
    /// The memory the unit is expected to need.
    pub memory_bytes: u64,
    /// Its shell command.
    pub script: &'a str,
    /// Its cores.
    pub cpus: usize,
}

/// Submits `spec` with sbatch, its log in `logs`, with the user's extra
/// `sbatch_args`.
pub fn submit(spec: &JobSpec<'_>, logs: &Path, sbatch_args: &[String]) -> Result<Job, CliError> {
    let log = logs.join(format!("{}.%j.log", spec.name));
    // The plan's figure came within 25% of the measured peaks, and up to
    // about 12% under some: a quarter more, so that Slurm does not kill a
    // unit at its limit.
    let mem_mib = (spec.memory_bytes + spec.memory_bytes / 4)
        .div_ceil(1 << 20)
        .max(1);
    let mut cmd = Command::new("sbatch");
    cmd.arg("--parsable")
        .arg(format!("--job-name=dtb:{}", spec.name))
        .arg(format!("--mem={mem_mib}M"))
        .arg(format!("--cpus-per-task={}", spec.cpus))
        .arg("--kill-on-invalid-dep=yes")
        .arg(format!("--output={}", log.display()));
    if !spec.after.is_empty() {
        cmd.arg(format!("--dependency=afterok:{}", spec.after.join(":")));
    }
    cmd.args(sbatch_args).arg(format!("--wrap={}", spec.script));
    let out = run_command(&mut cmd, "sbatch")?;
    let id = out
        .trim()
        .split(';')
        .next()
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| CliError::new(FAILURE, format!("sbatch printed no job id: {out:?}")))?;
    Ok(Job {
        id: id.to_string(),
        log: PathBuf::from(log.display().to_string().replace("%j", id)),
    })
}

/// Runs `cmd`, returning its standard output; a failure is an error
/// quoting its standard error.
fn run_command(cmd: &mut Command, name: &str) -> Result<String, CliError> {
    let out = cmd.output().map_err(|e| {
        CliError::new(
            FAILURE,
            format!("cannot run {name} (is Slurm's client installed?): {e}"),
        )
    })?;
    if !out.status.success() {
        return Err(CliError::new(
            FAILURE,
            format!(
                "{name} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Our jobs still in the queue (pending or running), from squeue.
fn queued(jobs: &HashMap<String, Job>) -> Result<HashSet<String>, CliError> {
    if jobs.is_empty() {
        return Ok(HashSet::new());
    }
    let ids: Vec<&str> = jobs.values().map(|j| j.id.as_str()).collect();
    let mut cmd = Command::new("squeue");
    cmd.args(["-h", "-o", "%i", "-j", &ids.join(",")]);
    let out = run_command(&mut cmd, "squeue")?;
    Ok(out.lines().map(|l| l.trim().to_string()).collect())
}

/// Waits until fewer than `max_jobs` of our jobs are queued.
pub fn wait_for_room(jobs: &HashMap<String, Job>, max_jobs: usize) -> Result<(), CliError> {
    if jobs.len() < max_jobs {
        return Ok(());
    }
    while queued(jobs)?.len() >= max_jobs {
        std::thread::sleep(Duration::from_secs(2));
    }
    Ok(())
}

/// Polls squeue until none of our jobs is left, printing how many remain.
pub fn follow(jobs: &HashMap<String, Job>) -> Result<(), CliError> {
    let mut last = usize::MAX;
    loop {
        let left = queued(jobs)?.len();
        if left == 0 {
            return Ok(());
        }
        if left != last {
            eprintln!("dtb: {left} of {} jobs still queued or running", jobs.len());
            last = left;
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// After the jobs: every submitted unit whose output is not there failed
/// (or never ran, a unit it needs having failed). Exit 1 if any.
fn report_failures(options: &GenOptions, units: &[Unit], jobs: &HashMap<String, Job>) -> CliResult {
    let failed: Vec<&Unit> = units
        .iter()
        .filter(|u| jobs.contains_key(&u.id) && !unit_is_done(options, u))
        .collect();
    if failed.is_empty() {
        crate::outln!("all {} units finished", jobs.len());
        return Ok(());
    }
    for u in &failed {
        let job = &jobs[&u.id];
        let ran = job.log.exists();
        crate::outln!(
            "unit {} (job {}) did not finish: {}",
            u.id,
            job.id,
            if ran {
                format!("see {}", job.log.display())
            } else {
                "it never ran (a unit it needs failed)".into()
            }
        );
    }
    Err(CliError::new(
        FAILURE,
        format!(
            "{} of {} units did not finish; run the same command again to resubmit them",
            failed.len(),
            jobs.len()
        ),
    ))
}

/// Flags of `dtb verify` for Slurm.
#[derive(clap::Args, Clone, Debug)]
pub struct VerifySlurmArgs {
    /// Check every unit as a Slurm job instead of here.
    ///
    /// The units of the plan of these tables (all in the folder, or the
    /// pairs of MATERIALS), one `dtb verify --unit` job each, with no order
    /// among them. The table directory and this binary must be on a
    /// filesystem every node sees.
    #[arg(long, conflicts_with = "unit", help_heading = CLUSTER)]
    pub slurm: bool,
    #[command(flatten)]
    pub queue: QueueArgs,
    /// With `--slurm`, follow the jobs until none is left in the queue.
    ///
    /// Then gather their verdicts from their logs and report as a verify
    /// here would.
    #[arg(long, requires = "slurm", help_heading = CLUSTER)]
    pub wait: bool,
}

/// `dtb verify --slurm`: a `dtb verify --unit` job for every unit of the
/// plan of `options`' tables; with `--wait`, their verdicts gathered.
pub fn run_verify(options: &check::VerifyOptions, args: &VerifySlurmArgs) -> CliResult {
    let (logs, exe) = prepare(&options.dir, options.rule_set, &args.queue)?;
    let rule_dir = format::table_dir(&options.dir, options.rule_set);
    let mut gen_options = GenOptions::new(options.dir.clone(), options.rule_set, 2);
    gen_options.split_groups_above = options.split_groups_above;
    gen_options.materials = if options.materials.is_empty() {
        format::list_tables(&rule_dir)?
    } else {
        options.materials.clone()
    };
    let dtc = gen_options
        .materials
        .iter()
        .any(|&m| format::dtc_path(&rule_dir, m).exists());
    // Named materials: their pairs' units (and the manifest's), not
    // those of the tables they need, as a verify here checks them.
    let named: Vec<format::Material> = options
        .materials
        .iter()
        .map(|&m| plan::pair_of(m))
        .collect();
    let units: Vec<Unit> = plan(&gen_options)
        .into_iter()
        .filter(|u| named.is_empty() || u.material.is_none_or(|p| named.contains(&p)))
        .collect();
    let memory = check::verify_memory_bytes(&units, options.rule_set, dtc, options.preload_bytes);
    let mut jobs: HashMap<String, Job> = HashMap::new();
    for (unit, &memory_bytes) in units.iter().zip(&memory) {
        wait_for_room(&jobs, args.queue.max_jobs)?;
        let script = verify_script(&exe, options, &unit.id);
        let spec = JobSpec {
            name: &format!("verify-{}", unit.id),
            after: &[],
            memory_bytes,
            script: &script,
            cpus: options.threads.unwrap_or(1),
        };
        jobs.insert(
            unit.id.clone(),
            submit(&spec, &logs, &args.queue.sbatch_args)?,
        );
    }
    crate::outln!("submitted {} verify units to Slurm", jobs.len());
    if !args.wait {
        return Ok(());
    }
    follow(&jobs)?;
    report_verdicts(&units, &jobs)
}

/// The shell command of the job that checks unit `id`.
fn verify_script(exe: &Path, options: &check::VerifyOptions, id: &str) -> String {
    let mut words = vec![
        quote(&exe.display().to_string()),
        "verify".into(),
        "--unit".into(),
        quote(id),
        "--dir".into(),
        quote(&absolute(&options.dir).display().to_string()),
        "--rules".into(),
        options.rule_set.name().into(),
        "--threads".into(),
        options.threads.unwrap_or(1).to_string(),
        "--json".into(),
        "--quiet".into(),
    ];
    if let Some(fraction) = options.sample {
        words.extend(["--sample".into(), fraction.to_string()]);
    }
    words.extend([
        "--preload-memory".into(),
        (options.preload_bytes >> 20).to_string(),
    ]);
    if let Some(above) = options.split_groups_above {
        words.extend(["--split-groups-above".into(), above.to_string()]);
    }
    words.join(" ")
}

/// The verdicts in the jobs' logs: a line per unit that failed or left no
/// verdict, then a summary. Exit 4 if a table failed (3 if one is
/// missing), 1 if a unit left no verdict.
fn report_verdicts(units: &[Unit], jobs: &HashMap<String, Job>) -> CliResult {
    let (mut positions, mut failed, mut silent, mut missing) = (0u64, 0, 0, false);
    for unit in units {
        let job = &jobs[&unit.id];
        let Some(report) = verdict_in(&job.log) else {
            silent += 1;
            crate::outln!(
                "unit {} (job {}) left no verdict: see {}",
                unit.id,
                job.id,
                job.log.display()
            );
            continue;
        };
        for table in report["tables"].as_array().into_iter().flatten() {
            positions += table["checked"].as_u64().unwrap_or(0);
            if table["ok"] != true {
                failed += 1;
                let problem = table["problem"].as_str().unwrap_or("");
                missing |= table["problem_kind"] == "missing";
                let first = table["mismatches"][0]["fen"].as_str().unwrap_or("");
                crate::outln!(
                    "unit {}: {} FAILED: {} mismatches{}{} (see {})",
                    unit.id,
                    table["file"].as_str().unwrap_or("?"),
                    table["mismatch_count"],
                    if first.is_empty() {
                        String::new()
                    } else {
                        format!(", first at {first}")
                    },
                    if problem.is_empty() {
                        String::new()
                    } else {
                        format!("; {problem}")
                    },
                    job.log.display()
                );
            }
        }
        for problem in report["manifest_problems"].as_array().into_iter().flatten() {
            failed += 1;
            crate::outln!("manifest: {}", problem.as_str().unwrap_or("?"));
        }
    }
    crate::outln!(
        "{} units, {positions} positions checked: {failed} failed verdicts, {silent} units without a verdict",
        units.len()
    );
    match (failed, silent) {
        (0, 0) => Ok(()),
        (0, _) => Err(CliError::new(
            FAILURE,
            format!("{silent} verify units left no verdict; run the same command again"),
        )),
        _ => Err(CliError::new(
            if missing {
                crate::exit::MISSING_TABLE
            } else {
                crate::exit::CORRUPTED_TABLE
            },
            format!("verification failed: {failed} failed verdicts (listed above)"),
        )),
    }
}

/// The JSON verdict a verify job printed in its log, if any.
fn verdict_in(log: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .filter(|l| l.starts_with('{'))
        .find_map(|l| serde_json::from_str(l).ok())
}
