//! `verify`: re-derives every stored value.
//!
//! Tables of materials with men outside the counted endings (every table
//! of five pieces and more) are checked by solving their pair again, slice
//! by slice, from the smaller tables, and comparing every value that is
//! not "don't care": a complete check that costs about what building the
//! pair cost. With `--sample`, and for the other tables, the check below
//! applies.
//!
//! It shares nothing with the solver's propagation: it walks the index
//! forwards, generates every legal move, asks the prober for each
//! successor, and recomputes the value the way the rules define it (won if
//! some move leads to a position lost for the opponent, lost if every move
//! leads to a won one, distances one more than the best successor's, the
//! draw counter's caps applied). A mismatch names the position.
//!
//! A material's DTC file (`.dtc`), where there is one, gets a verdict of
//! its own: every DTC is derived again by walking the slices of the pair
//! with the results its tables state (`--sample`: each sampled DTC against
//! its moves' DTC, the definition applied once), and any result the moves
//! cannot give is reported too.
//!
//! For distance tables this check is complete: a distance that agrees with
//! its successors everywhere is the true one. For WLD tables it proves the
//! values are consistent; a set of positions that should be won but are all
//! stored as drawn and only lead to each other would pass (no WLD checker
//! can tell them from a real fortress without distances).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use format::{
    child_view, value_from_children, ChildView, Material, MaterialIndex, RuleSet, TableValue,
    ValueKind, Wdl,
};
use probe::generator::GeneratorHooks;
use probe::{table_dir, Tablebase, TablebaseOptions};
use rayon::prelude::*;

use crate::error::GenError;
use crate::group_solve::{self, uses_slices, PackedPair};
use crate::progress::Progress;

/// What to verify: start from [`VerifyOptions::new`] (more options may
/// come).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// The table directory.
    pub dir: PathBuf,
    /// The rule set.
    pub rule_set: RuleSet,
    /// These materials only (empty: every table in the directory).
    pub materials: Vec<Material>,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
    /// No progress bars.
    pub quiet: bool,
    /// Check only about this fraction of the positions of each table (a
    /// fixed pseudo-random choice: the same positions on every run), for a
    /// quick look at large sets; `None` (or 1): every position. The file
    /// checks (checksums, header) are always complete.
    pub sample: Option<f64>,
}

impl VerifyOptions {
    /// Every table of `rule_set` in `dir`, every position, all cores, no
    /// progress bars.
    pub fn new(dir: impl Into<PathBuf>, rule_set: RuleSet) -> VerifyOptions {
        VerifyOptions {
            dir: dir.into(),
            rule_set,
            materials: Vec::new(),
            threads: None,
            quiet: true,
            sample: None,
        }
    }
}

/// Whether position `index` is in a sample of `fraction` of the positions:
/// a hash of the index below `fraction` of the hash range (SplitMix64's
/// finaliser, so that sampled positions are spread over every block).
pub fn in_sample(index: u64, fraction: f64) -> bool {
    let mut z = index.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z as f64) < fraction * u64::MAX as f64
}

/// A stored value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The position, White to move, in PDN.
    pub fen: String,
    /// What the table says.
    pub stored: TableValue,
    /// What the moves say.
    pub expected: TableValue,
}

/// The verdict on one table.
#[derive(Clone, Debug)]
pub struct TableCheck {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// Positions checked (capture positions, whose stored value is "don't
    /// care", are skipped).
    pub checked: u64,
    /// The first mismatches found (at most 20).
    pub mismatches: Vec<Mismatch>,
    /// How many mismatches in all.
    pub mismatch_count: u64,
    /// Why the table could not be checked, or is damaged (checksum,
    /// header), if so.
    pub problem: Option<TableProblem>,
    /// Seconds spent.
    pub seconds: f64,
}

/// What kept a table from passing, besides mismatched values.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableProblem {
    /// The table, or one its moves lead to, is missing.
    Missing(String),
    /// The table, or one its moves lead to, is damaged.
    Corrupted(String),
    /// Anything else (an I/O error).
    Failed(String),
}

impl TableProblem {
    fn of(e: &GenError) -> TableProblem {
        let text = e.to_string();
        match e {
            GenError::Probe(p) if p.is_missing_table() => TableProblem::Missing(text),
            GenError::Probe(p) if p.is_corrupted() => TableProblem::Corrupted(text),
            GenError::Format(f) if f.is_not_found() => TableProblem::Missing(text),
            GenError::Format(f) if f.is_corruption() => TableProblem::Corrupted(text),
            _ => TableProblem::Failed(text),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            TableProblem::Missing(m) | TableProblem::Corrupted(m) | TableProblem::Failed(m) => m,
        }
    }
}

impl TableCheck {
    /// A verdict on `path` not reached yet: nothing checked, no problem.
    fn new(material: Material, path: PathBuf) -> TableCheck {
        TableCheck {
            material,
            path,
            checked: 0,
            mismatches: Vec::new(),
            mismatch_count: 0,
            problem: None,
            seconds: 0.0,
        }
    }

    /// Whether the table passed.
    pub fn ok(&self) -> bool {
        self.mismatch_count == 0 && self.problem.is_none()
    }
}

const KEEP: usize = 20;

/// The materials of every `.dtb` file in a rule set's folder.
pub fn materials_in(dir: &Path) -> Result<Vec<Material>, GenError> {
    Ok(format::list_tables(dir)?)
}

/// The value of `pos` recomputed from its moves.
fn expected(
    tb: &Tablebase,
    rule_set: RuleSet,
    pos: &rules::Position,
) -> Result<TableValue, GenError> {
    let class = Material::of(pos).counted_ending();
    let mut views = Vec::new();
    for mv in pos.legal_moves() {
        let child = pos.play(&mv);
        let view = if child.pieces(child.side_to_move()).is_empty() {
            ChildView::LOST
        } else {
            child_view(rule_set, class, Material::of(&child), tb.probe(&child)?)
        };
        views.push(view);
    }
    Ok(value_from_children(rule_set, class, pos, views))
}

/// Checks one table: its file, then every value. Whatever goes wrong is
/// recorded in the result, so that every table gets its verdict.
fn check_table(
    options: &VerifyOptions,
    material: Material,
    solved: &mut Option<PackedPair>,
) -> TableCheck {
    let start = Instant::now();
    let path = format::table_path(&table_dir(&options.dir, options.rule_set), material);
    let mut check = TableCheck::new(material, path.clone());
    let resolve = options.sample.is_none_or(|f| f >= 1.0) && uses_slices(material);
    if let Err(e) = check_file(options, material, &path).and_then(|()| {
        if resolve {
            check_by_solving(options, material, &path, solved, &mut check)
        } else {
            check_values(options, material, &mut check)
        }
    }) {
        check.problem = Some(TableProblem::of(&e));
    }
    check.seconds = start.elapsed().as_secs_f64();
    check
}

/// The file's header, block index and checksum.
fn check_file(options: &VerifyOptions, material: Material, path: &Path) -> Result<(), GenError> {
    let kind = format::value_kind(material, options.rule_set);
    format::check_file_of(path, material, options.rule_set, kind)?;
    Ok(())
}

/// Every value against the values of its moves.
fn check_values(
    options: &VerifyOptions,
    material: Material,
    check: &mut TableCheck,
) -> Result<(), GenError> {
    let tb = Tablebase::open_with(
        &options.dir,
        options.rule_set,
        TablebaseOptions::with_cache_bytes(256 << 20),
    )?;
    tb.preload(material)?;
    for exit in material.exits().into_iter().chain([material.mirrored()]) {
        // Missing neighbours show up as errors below, naming them.
        let _ = tb.preload(exit);
    }
    let index = MaterialIndex::new(material);
    let count = index.count();
    let progress = Progress::new(&format!("verify {material}"), count, options.quiet);
    let checked = AtomicU64::new(0);
    let found = AtomicU64::new(0);
    let kept = Mutex::new(Vec::new());
    const CHUNK: u64 = 4096;
    let sample = options.sample.filter(|&f| f < 1.0);
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|c| -> Result<(), GenError> {
            let end = ((c + 1) * CHUNK).min(count);
            let mut n = 0;
            for i in c * CHUNK..end {
                if sample.is_some_and(|f| !in_sample(i, f)) {
                    continue;
                }
                let pos = index.unrank(i);
                if pos.has_capture() {
                    continue;
                }
                n += 1;
                let stored = tb.probe(&pos)?;
                let expected = expected(&tb, options.rule_set, &pos)?;
                if stored != expected {
                    found.fetch_add(1, Ordering::Relaxed);
                    let mut k = kept.lock().expect("no panics while held");
                    if k.len() < KEEP {
                        k.push(Mismatch {
                            fen: pos.to_string(),
                            stored,
                            expected,
                        });
                    }
                }
            }
            checked.fetch_add(n, Ordering::Relaxed);
            progress.advance(end - c * CHUNK);
            Ok(())
        })?;
    progress.finish();
    finish_check(check, checked, found, kept);
    Ok(())
}

/// Every value of a slice-solved table against a new slice solve of its
/// pair (reused from `solved` when it holds the pair already).
fn check_by_solving(
    options: &VerifyOptions,
    material: Material,
    path: &Path,
    solved: &mut Option<PackedPair>,
    check: &mut TableCheck,
) -> Result<(), GenError> {
    if !solved
        .as_ref()
        .is_some_and(|p| p.sides.iter().any(|s| s.material == material))
    {
        *solved = None;
        let tb =
            crate::open_for_pair(&options.dir, options.rule_set, material, 256 << 20, 2 << 30)?;
        let positions = MaterialIndex::new(material).count() * 2;
        let progress = Progress::new(&format!("verify {material}"), positions, options.quiet);
        *solved = Some(group_solve::solve(
            &tb,
            options.rule_set,
            material,
            &progress,
            false,
        )?);
        progress.finish();
    }
    let pair = solved.as_ref().expect("solved above");
    let side = pair
        .sides
        .iter()
        .find(|s| s.material == material)
        .expect("the pair holds the material");
    // No more than the header says the file holds (it was checked just
    // before, but may have been replaced since).
    let length = format::read_header(path)?.file_length;
    let reader = format::TableReader::new(format::read_regular(path, length)?)?;
    let per_block = u64::from(reader.header().positions_per_block);
    let checked = AtomicU64::new(0);
    let found = AtomicU64::new(0);
    let kept = Mutex::new(Vec::new());
    (0..reader.header().block_count)
        .into_par_iter()
        .try_for_each_init(
            || (zstd::bulk::Decompressor::new(), Vec::new()),
            |(decompressor, raw), block| -> Result<(), GenError> {
                let decompressor = decompressor
                    .as_mut()
                    .map_err(|e| GenError::Internal(format!("zstd: {e}")))?;
                reader.decode_block(block, decompressor, raw)?;
                let first = block * per_block;
                let mut n = 0;
                for i in first..first + reader.header().positions_in_block(block) {
                    if side.is_capture(i) {
                        continue;
                    }
                    n += 1;
                    let stored = format::wdl_code(raw, (i - first) as usize);
                    let expected = side.code(i);
                    if stored != expected {
                        found.fetch_add(1, Ordering::Relaxed);
                        let mut k = kept.lock().expect("no panics while held");
                        if k.len() < KEEP {
                            k.push(Mismatch {
                                fen: side.index.unrank(i).to_string(),
                                stored: wdl_value(stored),
                                expected: wdl_value(expected),
                            });
                        }
                    }
                }
                checked.fetch_add(n, Ordering::Relaxed);
                Ok(())
            },
        )?;
    finish_check(check, checked, found, kept);
    Ok(())
}

/// Puts the counts and the first mismatches found into `check`.
fn finish_check(
    check: &mut TableCheck,
    checked: AtomicU64,
    found: AtomicU64,
    kept: Mutex<Vec<Mismatch>>,
) {
    let mut mismatches = kept.into_inner().expect("no panics while held");
    mismatches.sort_by(|a, b| a.fen.cmp(&b.fen));
    check.checked = checked.into_inner();
    check.mismatch_count = found.into_inner();
    check.mismatches = mismatches;
}

/// The table value of a WLD code.
fn wdl_value(code: u8) -> TableValue {
    TableValue {
        wdl: Wdl::from_code(code).unwrap_or(Wdl::Draw),
        distance: None,
    }
}

/// Verifies the tables `options` names (or all in the directory), in
/// build order: every table gets its verdict, a missing or damaged one
/// included. An error only when the folder cannot be listed.
pub fn verify(options: &VerifyOptions) -> Result<Vec<TableCheck>, GenError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| GenError::BadOptions(format!("cannot start threads: {e}")))?;
    pool.install(|| {
        let dir = table_dir(&options.dir, options.rule_set);
        let mut materials = if options.materials.is_empty() {
            materials_in(&dir)?
        } else {
            options.materials.clone()
        };
        materials.sort_by_key(|m| m.build_key());
        materials.dedup();
        // A pair solved for one table serves its mirror too.
        let mut solved = None;
        let mut checks = Vec::new();
        for m in materials {
            checks.push(check_table(options, m, &mut solved));
            if format::dtc_path(&dir, m).exists() {
                checks.push(check_dtc(options, m));
            }
        }
        Ok(checks)
    })
}

/// Checks one material's DTC file: its header, then every DTC (see the
/// module's documentation).
fn check_dtc(options: &VerifyOptions, material: Material) -> TableCheck {
    let start = Instant::now();
    let dir = table_dir(&options.dir, options.rule_set);
    let path = format::dtc_path(&dir, material);
    let mut check = TableCheck::new(material, path.clone());
    let full = options.sample.is_none_or(|f| f >= 1.0);
    let result = check_dtc_file(options, material, &path).and_then(|()| {
        if full {
            check_dtc_by_solving(options, material, &dir, &path, &mut check)
        } else {
            check_dtc_values(options, material, &mut check)
        }
    });
    if let Err(e) = result {
        check.problem = Some(TableProblem::of(&e));
    }
    check.seconds = start.elapsed().as_secs_f64();
    check
}

fn check_dtc_file(
    options: &VerifyOptions,
    material: Material,
    path: &Path,
) -> Result<(), GenError> {
    format::check_file_of(path, material, options.rule_set, ValueKind::Dtc)?;
    Ok(())
}

/// A DTC as a table value, for a mismatch report.
fn dtc_value(wdl: Wdl, dtc: u8) -> TableValue {
    TableValue {
        wdl,
        distance: Some(dtc),
    }
}

/// The file's bytes, no more than its header says it holds.
fn read_table(path: &Path) -> Result<format::TableReader<Vec<u8>>, GenError> {
    let length = format::read_header(path)?.file_length;
    Ok(format::TableReader::new(format::read_regular(
        path, length,
    )?)?)
}

/// Every DTC against a new walk of the pair's slices, with the results the
/// pair's tables state taken as known.
fn check_dtc_by_solving(
    options: &VerifyOptions,
    material: Material,
    dir: &Path,
    path: &Path,
    check: &mut TableCheck,
) -> Result<(), GenError> {
    let rule_set = options.rule_set;
    let tb = crate::open_for_pair(&options.dir, rule_set, material, 256 << 20, 2 << 30)?;
    let sides = group_solve::pair_sides(material, true)?;
    let class = material.counted_ending();
    for side in &sides {
        let values = read_table(&format::table_path(dir, side.material))?.decode_all()?;
        let kind = format::value_kind(side.material, rule_set);
        // A capture position's stored value is "don't care": the prober
        // resolves it (a man step may lead to one).
        values
            .par_iter()
            .enumerate()
            .try_for_each(|(i, &v)| -> Result<(), GenError> {
                let pos = side.index.unrank(i as u64);
                let wdl = if pos.has_capture() {
                    fresh(&tb, &pos)?
                } else if kind == ValueKind::Wdl {
                    Wdl::from_code(v).unwrap_or(Wdl::Draw)
                } else {
                    TableValue::from_distance(format::DistanceValue::decode(v))
                        .wdl_with(rule_set, class, None)
                };
                side.store(i as u64, wdl.code(), false);
                Ok(())
            })?;
    }
    let positions = sides.iter().map(|s| s.len()).sum();
    let progress = Progress::new(&format!("verify {material} DTC"), positions, options.quiet);
    let pair = group_solve::solve_dtc_of_known(&tb, rule_set, sides, &progress)?;
    progress.finish();
    let side = pair
        .sides
        .iter()
        .find(|s| s.material == material)
        .expect("the pair holds the material");
    let stored = read_table(path)?.decode_all()?;
    let mut checked = 0;
    let mut found = 0;
    let mut kept = Vec::new();
    for (i, &byte) in stored.iter().enumerate() {
        let i = i as u64;
        let wdl = Wdl::from_code(side.code(i)).unwrap_or(Wdl::Draw);
        if side.is_capture(i) || wdl == Wdl::Draw {
            continue;
        }
        checked += 1;
        if byte != side.dtc(i) {
            found += 1;
            if kept.len() < KEEP {
                kept.push(Mismatch {
                    fen: side.index.unrank(i).to_string(),
                    stored: dtc_value(wdl, byte),
                    expected: dtc_value(wdl, side.dtc(i)),
                });
            }
        }
    }
    finish_check(
        check,
        AtomicU64::new(checked),
        AtomicU64::new(found),
        Mutex::new(kept),
    );
    Ok(())
}

/// A sample of DTC values, each against its moves: the definition of DTC
/// applied once (see `format::dtc_byte`).
fn check_dtc_values(
    options: &VerifyOptions,
    material: Material,
    check: &mut TableCheck,
) -> Result<(), GenError> {
    let tb = Tablebase::open(&options.dir, options.rule_set)?;
    let index = MaterialIndex::new(material);
    let fraction = options.sample.unwrap_or(1.0);
    let checked = AtomicU64::new(0);
    let found = AtomicU64::new(0);
    let kept = Mutex::new(Vec::new());
    let sampled: Vec<u64> = (0..index.count())
        .into_par_iter()
        .filter(|&i| in_sample(i, fraction))
        .collect();
    sampled
        .par_iter()
        .try_for_each(|&i| -> Result<(), GenError> {
            let pos = index.unrank(i);
            let Some(stored) = tb.probe_dtc(&pos)? else {
                return Ok(());
            };
            if pos.has_capture() || pos.is_lost_by_no_moves() {
                return Ok(());
            }
            checked.fetch_add(1, Ordering::Relaxed);
            let (wdl, expected) = dtc_from_moves(&tb, &pos)?;
            if expected != Some(stored) {
                found.fetch_add(1, Ordering::Relaxed);
                let mut k = kept.lock().expect("no panics while held");
                if k.len() < KEEP {
                    k.push(Mismatch {
                        fen: pos.to_string(),
                        stored: dtc_value(wdl, format::dtc_byte(stored)),
                        expected: dtc_value(wdl, format::dtc_byte(expected.unwrap_or(0))),
                    });
                }
            }
            Ok(())
        })?;
    finish_check(check, checked, found, kept);
    Ok(())
}

/// The result of `pos` with a freshly entered count (what a DTC keeps).
fn fresh(tb: &Tablebase, pos: &rules::Position) -> Result<Wdl, GenError> {
    if pos.pieces(pos.side_to_move()).is_empty() {
        return Ok(Wdl::Loss);
    }
    let class = Material::of(pos).counted_ending();
    Ok(tb.probe(pos)?.wdl_with(tb.rule_set(), class, None))
}

/// The DTC of a decided position without a capture, from its moves: the
/// winner's least over moves that keep the win, the loser's most over all
/// (a conversion counts 1, a king move one more than its successor's DTC).
fn dtc_from_moves(tb: &Tablebase, pos: &rules::Position) -> Result<(Wdl, Option<u32>), GenError> {
    let wdl = fresh(tb, pos)?;
    let mut best: Option<u32> = None;
    for mv in pos.legal_moves() {
        let child = pos.play(&mv);
        if wdl == Wdl::Win && fresh(tb, &child)? != Wdl::Loss {
            continue;
        }
        let through = if pos.is_conversion(&mv) {
            1
        } else {
            match tb.probe_dtc(&child)? {
                Some(d) => (d + 1).min(u32::from(format::DTC_SATURATED)),
                None => return Ok((wdl, None)),
            }
        };
        best = Some(match (best, wdl) {
            (None, _) => through,
            (Some(b), Wdl::Win) => b.min(through),
            (Some(b), _) => b.max(through),
        });
    }
    Ok((wdl, best))
}
