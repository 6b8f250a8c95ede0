//! The 25-move rule made to bite on small tables.
//!
//! Up to five pieces no position needs more than 22 king-only plies before
//! a conversion, so at the real limit (50 plies) the rule changes no table
//! value. Here the generator runs with a lower limit (a test-only switch,
//! `gen::fault::lower_kings_only_limit`) and its tables are compared with
//! a brute force whose state holds the count, which shares nothing with
//! the solvers but the move generator:
//!
//! * its world is every position of the materials outside the counted
//!   endings that a build reaches, found by placing pieces on squares;
//! * `f(p, c)`, the value of `p` with `c` king-only plies played, is found
//!   by recursion with a memo: a king move that captures nothing leads to
//!   `(child, c + 1)`, any other move (a capture or a man move) to
//!   `(child, 0)`; at `c = limit` the game is drawn unless the side to
//!   move has no move (then it has lost: RULES.md, the game over before
//!   the count). A king move raises the count, so the recursion ends;
//! * a child in a counted ending is entered with both counts fresh (the
//!   25-move count binds there never: RULES.md), and its value is read
//!   from the tables, which `tests/simple_solver.rs` checks on its own.
//!
//! The tables must give `f(p, 0)` for every position, and with the DTC
//! files, `f(p, c)` for every count below the limit: the stored result if
//! `c + dtc <= limit`, else a draw. A brute force whose limit is one ply
//! more or less must disagree somewhere, or the test could not see an
//! off-by-one.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use common::all_placements;
use format::{Material, RuleSet, Wdl};
use gen::{generate, GenOptions};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, Position};
use rustc_hash::FxHashMap as HashMap;

/// The lowered limit is process-wide: one build at a time.
static LIMIT_SWITCH: Mutex<()> = Mutex::new(());

const UNKNOWN: u8 = 0;

fn code(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Loss => 1,
        Wdl::Draw => 2,
        Wdl::Win => 3,
    }
}

fn wdl(code: u8) -> Wdl {
    match code {
        1 => Wdl::Loss,
        3 => Wdl::Win,
        _ => Wdl::Draw,
    }
}

/// The positions outside the counted endings with their values by count.
struct BruteForce<'a> {
    limit: u32,
    ids: HashMap<Position, u32>,
    positions: Vec<Position>,
    /// `f(p, c)` at `p * (limit + 1) + c`, [`UNKNOWN`] until found.
    memo: Vec<AtomicU8>,
    /// The tables, read only for children in counted endings.
    tb: &'a Tablebase,
}

impl<'a> BruteForce<'a> {
    fn new(materials: &[Material], limit: u32, tb: &'a Tablebase) -> BruteForce<'a> {
        let positions: Vec<Position> = materials
            .iter()
            .filter(|m| m.counted_ending().is_none())
            .flat_map(|&m| all_placements(m))
            .collect();
        let ids = positions
            .iter()
            .enumerate()
            .map(|(i, p)| (*p, i as u32))
            .collect();
        let memo = (0..positions.len() * (limit as usize + 1))
            .map(|_| AtomicU8::new(UNKNOWN))
            .collect();
        BruteForce {
            limit,
            ids,
            positions,
            memo,
            tb,
        }
    }

    /// `f(p, c)` for position `id`.
    fn value(&self, id: usize, c: u32) -> Wdl {
        let slot = &self.memo[id * (self.limit as usize + 1) + c as usize];
        let known = slot.load(Ordering::Relaxed);
        if known != UNKNOWN {
            return wdl(known);
        }
        let p = &self.positions[id];
        let moves = p.legal_moves();
        let value = if moves.is_empty() {
            Wdl::Loss
        } else if c == self.limit {
            Wdl::Draw
        } else {
            let mut all_won = true;
            let mut won = false;
            for mv in &moves {
                match self.child_value(p, &p.play(mv), c) {
                    Wdl::Loss => {
                        won = true;
                        break;
                    }
                    Wdl::Draw => all_won = false,
                    Wdl::Win => {}
                }
            }
            match (won, all_won) {
                (true, _) => Wdl::Win,
                (false, true) => Wdl::Loss,
                (false, false) => Wdl::Draw,
            }
        };
        slot.store(code(value), Ordering::Relaxed);
        value
    }

    /// The value of `child`, reached from `parent` with `c` king-only
    /// plies played before the move.
    fn child_value(&self, parent: &Position, child: &Position, c: u32) -> Wdl {
        if child.pieces(child.side_to_move()).is_empty() {
            return Wdl::Loss;
        }
        let men = |p: &Position| (p.men(Color::White), p.men(Color::Black));
        let kings_only =
            parent.occupied().len() == child.occupied().len() && men(parent) == men(child);
        match self.ids.get(child) {
            Some(&id) => self.value(id as usize, if kings_only { c + 1 } else { 0 }),
            None => {
                assert!(
                    Material::of(child).counted_ending().is_some(),
                    "{child} is outside the world"
                );
                self.tb.probe_wdl(child, None).unwrap()
            }
        }
    }

    /// Every position's values, all counts, worked out in parallel (a
    /// value found twice is the same value).
    fn solve(&self) {
        (0..self.positions.len()).into_par_iter().for_each(|id| {
            for c in 0..=self.limit {
                self.value(id, c);
            }
        });
    }
}

/// What the tables say for `p` with `c` king-only plies played under a
/// limit of `limit`: at a fresh count the stored result itself; later the
/// stored result if its DTC fits in what is left, else a draw.
fn from_tables(tb: &Tablebase, p: &Position, c: u32, limit: u32) -> Wdl {
    let fresh = tb.probe_wdl(p, None).unwrap();
    if fresh == Wdl::Draw || c == 0 {
        return fresh;
    }
    let dtc = tb
        .probe_dtc(p)
        .unwrap()
        .expect("a decided position has a DTC");
    if c + dtc <= limit {
        fresh
    } else {
        Wdl::Draw
    }
}

/// Positions and counts where the brute force with limit `limit` and the
/// tables built with `built_limit` disagree; the first few described.
fn disagreements(bf: &BruteForce, built_limit: u32) -> (usize, Vec<String>) {
    let counts = bf.limit.min(built_limit);
    let found: Vec<String> = bf
        .positions
        .par_iter()
        .enumerate()
        .flat_map_iter(|(id, p)| {
            (0..counts.max(1)).filter_map(move |c| {
                let mine = bf.value(id, c);
                let theirs = from_tables(bf.tb, p, c, built_limit);
                (mine != theirs).then(|| {
                    format!(
                        "{p} after {c} king-only plies: tables {theirs:?}, brute force {mine:?}"
                    )
                })
            })
        })
        .collect();
    let n = found.len();
    (n, found.into_iter().take(5).collect())
}

/// What a child of a position is to the count of positions drawn by the
/// rule: a conversion, with its value from the tables at a fresh count,
/// or a king move to position `id` of the world.
enum Child {
    Converted(Wdl),
    KingMove(usize),
}

/// Per material of the world: the positions the tables store as draws
/// that win or lose when king moves are not limited (a conversion still
/// reads the tables at a fresh count: the rule applied after it), and the
/// largest DTC at a fresh count, those included, capture positions left
/// out (as the DTC files' headers count them). Found by rounds: a
/// position decided in round `r` has DTC `r`.
fn drawn_by_the_rule(bf: &BruteForce) -> HashMap<Material, (u64, u32)> {
    let children: Vec<Vec<Child>> = bf
        .positions
        .par_iter()
        .map(|p| {
            let men = |p: &Position| (p.men(Color::White), p.men(Color::Black));
            p.legal_moves()
                .iter()
                .map(|mv| {
                    let child = p.play(mv);
                    let kings_only =
                        p.occupied().len() == child.occupied().len() && men(p) == men(&child);
                    if kings_only {
                        Child::KingMove(bf.ids[&child] as usize)
                    } else if child.pieces(child.side_to_move()).is_empty() {
                        Child::Converted(Wdl::Loss)
                    } else {
                        Child::Converted(bf.tb.probe_wdl(&child, None).unwrap())
                    }
                })
                .collect()
        })
        .collect();
    // `(result, round)` of the positions decided so far.
    let mut decided: Vec<Option<(Wdl, u32)>> = children
        .iter()
        .map(|c| c.is_empty().then_some((Wdl::Loss, 0)))
        .collect();
    for round in 1.. {
        let before = |c: &Child| match *c {
            Child::Converted(w) => Some(w),
            Child::KingMove(id) => decided[id].filter(|d| d.1 < round).map(|d| d.0),
        };
        let now: Vec<Option<(Wdl, u32)>> = (0..children.len())
            .into_par_iter()
            .map(|id| {
                if decided[id].is_some() {
                    return decided[id];
                }
                let values: Vec<Option<Wdl>> = children[id].iter().map(before).collect();
                if values.contains(&Some(Wdl::Loss)) {
                    Some((Wdl::Win, round))
                } else if values.iter().all(|v| *v == Some(Wdl::Win)) {
                    Some((Wdl::Loss, round))
                } else {
                    None
                }
            })
            .collect();
        let changed = now != decided;
        decided = now;
        if !changed {
            break;
        }
    }
    let mut per_material: HashMap<Material, (u64, u32)> = HashMap::default();
    for (id, (p, d)) in bf.positions.iter().zip(&decided).enumerate() {
        // A table's position is in the world twice, as it is stored
        // (White to move) and colour-flipped (from its mirror material),
        // and once more for each order two pieces alike were placed in:
        // counted once.
        if p.side_to_move() == Color::Black || bf.ids[p] as usize != id {
            continue;
        }
        let entry = per_material.entry(Material::of(p)).or_default();
        let Some((_, dtc)) = d else { continue };
        if bf.tb.probe_wdl(p, None).unwrap() == Wdl::Draw {
            entry.0 += 1;
        }
        if !p.has_capture() {
            entry.1 = entry.1.max(*dtc);
        }
    }
    per_material
}

/// The DTC files' headers of the world's materials record what
/// [`drawn_by_the_rule`] finds; some position is drawn by the rule.
fn headers_count_the_draws_of_the_rule(dir: &Path, rule_set: RuleSet, bf: &BruteForce) {
    let expected = drawn_by_the_rule(bf);
    let folder = format::table_dir(dir, rule_set);
    let mut drawn = 0;
    for (m, (count, longest)) in &expected {
        let header = format::read_header(&format::dtc_path(&folder, *m)).unwrap();
        let recorded = (header.stats.dtc_above_limit, header.stats.longest_fresh_dtc);
        assert_eq!(recorded, (Some(*count), Some(*longest)), "{rule_set} {m}");
        drawn += count;
    }
    assert!(drawn > 0, "{rule_set}: the rule draws no position");
}

/// The materials a build of `names` makes (with mirrors and exits).
fn closure(names: &[&str]) -> Vec<Material> {
    let mut options = GenOptions::new("unused", RuleSet::Fmjd, 0);
    options.materials = names.iter().map(|m| m.parse().unwrap()).collect();
    gen::materials_to_build(&options)
}

/// Builds `names` (with DTC if `dtc`) under `rule_set` in `dir`, the
/// king-only limit lowered to `limit`.
fn build(dir: &Path, rule_set: RuleSet, names: &[&str], limit: Option<u32>, dtc: bool) {
    let mut options = GenOptions::new(dir, rule_set, 0);
    options.materials = names.iter().map(|m| m.parse().unwrap()).collect();
    options.dtc = dtc;
    options.threads = Some(2);
    gen::fault::lower_kings_only_limit(limit);
    let built = generate(&options);
    gen::fault::lower_kings_only_limit(None);
    built.unwrap();
}

/// The tables of `names` built with limit `limit` against the brute force
/// at `limit` (no disagreement) and at one ply more and less (some).
fn rule_bites(rule_set: RuleSet, names: &[&str], limit: u32) {
    let _one_build = LIMIT_SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), rule_set, names, Some(limit), true);
    let tb = Tablebase::open(dir.path(), rule_set).unwrap();
    let materials = closure(names);
    let exact = BruteForce::new(&materials, limit, &tb);
    assert!(exact.positions.len() > 10_000, "{}", exact.positions.len());
    exact.solve();
    let (n, first) = disagreements(&exact, limit);
    assert_eq!(n, 0, "{rule_set}, limit {limit}: {first:#?}");
    headers_count_the_draws_of_the_rule(dir.path(), rule_set, &exact);
    for moved in [limit - 1, limit + 1] {
        let shifted = BruteForce::new(&materials, moved, &tb);
        shifted.solve();
        let (n, _) = disagreements(&shifted, limit);
        assert!(
            n > 0,
            "{rule_set}: a brute force with limit {moved} agrees with tables built with {limit}"
        );
    }
    // Without DTC the solvers go the same way (the materials without men
    // by levels with one bit set of marks fewer).
    let wld_only = tempfile::tempdir().unwrap();
    build(wld_only.path(), rule_set, names, Some(limit), false);
    let wld_tb = Tablebase::open(wld_only.path(), rule_set).unwrap();
    let differ = (0..exact.positions.len())
        .into_par_iter()
        .filter(|&id| wld_tb.probe_wdl(&exact.positions[id], None).unwrap() != exact.value(id, 0))
        .count();
    assert_eq!(differ, 0, "{rule_set}, limit {limit}, tables without DTC");
    drop(exact);
    drop(tb);
    verify_judges_the_rule_by_the_dtc(dir.path(), rule_set, limit);
}

/// `dtb verify`, with the same lowered limit, accepts the draws the rule
/// makes in tables built with it when the DTC files are there (every
/// move's DTC is known), and without them cannot tell them from a
/// solver's error: some table fails.
fn verify_judges_the_rule_by_the_dtc(dir: &Path, rule_set: RuleSet, limit: u32) {
    // The check judges the tables by the rule they were built with.
    check::fault::lower_kings_only_limit(Some(limit));
    let with_dtc = check::verify(&check::VerifyOptions::new(dir, rule_set));
    // A sample check too: a side whose DTC comes from its mirror has no
    // values of its own to read there.
    let mut sampled = check::VerifyOptions::new(dir, rule_set);
    sampled.sample = Some(0.3);
    let sampled = check::verify(&sampled);
    for entry in std::fs::read_dir(dir.join(rule_set.to_string())).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "dtc") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let without = check::verify(&check::VerifyOptions::new(dir, rule_set));
    check::fault::lower_kings_only_limit(None);
    let with_dtc = with_dtc.unwrap();
    assert!(with_dtc.len() > 5);
    for check in with_dtc.iter().chain(&sampled.unwrap()) {
        assert!(check.ok(), "{rule_set}, limit {limit}: {check:?}");
    }
    assert!(
        without.unwrap().iter().any(|c| c.mismatch_count > 0),
        "without DTC files a draw held by the rule should show as a mismatch"
    );
}

/// Under `pure` the rule does not exist: the lowered limit changes no
/// byte of any table.
fn pure_ignores_the_limit(names: &[&str], limit: u32) {
    let _one_build = LIMIT_SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let lowered = tempfile::tempdir().unwrap();
    let normal = tempfile::tempdir().unwrap();
    build(lowered.path(), RuleSet::Pure, names, Some(limit), true);
    build(normal.path(), RuleSet::Pure, names, None, true);
    let files = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir.join("pure"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| {
                n.to_string_lossy().ends_with(".dtb") || n.to_string_lossy().ends_with(".dtc")
            })
            .collect();
        names.sort();
        names
    };
    let listed = files(lowered.path());
    assert_eq!(listed, files(normal.path()));
    assert!(listed.len() > 10);
    for name in listed {
        let a = std::fs::read(lowered.path().join("pure").join(&name)).unwrap();
        let b = std::fs::read(normal.path().join("pure").join(&name)).unwrap();
        assert!(a == b, "pure {name:?} differs with the limit lowered");
    }
}

/// Three pieces outside the counted endings, with what they reach: the
/// longest DTC there is 2 plies, so a limit of 1 bites (and 0, one less,
/// leaves only positions without a move decided).
const THREE: [&str; 6] = ["KK-M", "KM-M", "MM-M", "MM-K", "K-M", "M-M"];

#[test]
fn the_rule_bites_at_three_pieces_fmjd() {
    rule_bites(RuleSet::Fmjd, &THREE, 1);
}

#[test]
fn the_rule_bites_at_three_pieces_diagonal() {
    rule_bites(RuleSet::FmjdDiagonal, &THREE, 1);
}

#[test]
fn pure_tables_ignore_a_lowered_limit() {
    pure_ignores_the_limit(&THREE, 1);
}

/// Two kings against two, the smallest material without men outside the
/// counted endings (longest DTC 3 plies), with the limit lowered to 2: its
/// solve by levels keeps one bit set of marks without DTC and two with,
/// and both give the same tables, which the rule changed.
#[test]
fn a_material_without_men_solves_alike_with_and_without_dtc_under_the_rule() {
    let _one_build = LIMIT_SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    build(dirs[0].path(), RuleSet::Fmjd, &["KK-KK"], Some(2), false);
    build(dirs[1].path(), RuleSet::Fmjd, &["KK-KK"], Some(2), true);
    build(dirs[2].path(), RuleSet::Fmjd, &["KK-KK"], None, true);
    let table = |d: usize| std::fs::read(dirs[d].path().join("fmjd/KK-KK.dtb")).unwrap();
    assert!(table(0) == table(1), "KK-KK differs with and without DTC");
    assert!(
        table(0) != table(2),
        "a limit of 2 plies changed nothing in KK-KK"
    );
    // Its exits (counted endings) do not change with the limit, so the
    // positions the rule draws are those decided at the real limit and
    // drawn at 2 plies, and the largest DTC at a fresh count is the real
    // largest DTC: what the DTC file's header, found past the limit by
    // the solver for materials without men, must say.
    let stats = |d: usize, file: &str| {
        format::read_header(&dirs[d].path().join("fmjd").join(file))
            .unwrap()
            .stats
    };
    let (limited, real) = (stats(1, "KK-KK.dtb"), stats(2, "KK-KK.dtb"));
    let drawn = (real.win + real.loss) - (limited.win + limited.loss);
    let real_dtc = stats(2, "KK-KK.dtc");
    let real_longest = real_dtc.longest_win.max(real_dtc.longest_loss);
    let counted = stats(1, "KK-KK.dtc");
    assert!(drawn > 0);
    assert_eq!(counted.dtc_above_limit, Some(drawn));
    assert_eq!(counted.longest_fresh_dtc, real_longest);
    assert_eq!(real_dtc.dtc_above_limit, Some(0));
}

/// Four pieces: two kings against two (reaching only the counted
/// endings), whose longest DTC is 3 plies.
#[test]
#[ignore = "a few core-minutes: four pieces by brute force"]
fn the_rule_bites_at_four_pieces_fmjd() {
    rule_bites(RuleSet::Fmjd, &["KK-KK"], 2);
}

/// Two kings against king and man, with what they reach (`KK-KK`, `KK-M`
/// and the counted endings): 13 million positions, longest DTC 10 plies.
#[test]
#[ignore = "several minutes: four pieces with a man by brute force"]
fn the_rule_bites_at_four_pieces_with_a_man_fmjd() {
    rule_bites(RuleSet::Fmjd, &["KK-KM"], 6);
}

#[test]
#[ignore = "a few core-minutes: four pieces by brute force"]
fn the_rule_bites_at_four_pieces_diagonal() {
    rule_bites(RuleSet::FmjdDiagonal, &["KK-KK"], 2);
}

#[test]
#[ignore = "several minutes: four pieces with a man by brute force"]
fn the_rule_bites_at_four_pieces_with_a_man_diagonal() {
    rule_bites(RuleSet::FmjdDiagonal, &["KK-KM"], 6);
}

/// A compacting build (`GenOptions::compact`) writes a pair compacted only
/// where its solve proves a one-ply search exact: at a lowered limit, the
/// pairs whose deepest settled level reaches it stay version 1 (byte for
/// byte the plain build's), and the set answers every position as a plain
/// build at that limit. The proof is not idle: at 2 plies a checked
/// `compact` of the plain set finds a search that differs, in a pair the
/// build kept; at 6 plies the build compacts some pairs. The proof is
/// sufficient, not necessary: at 6 plies it keeps `KK-KM` whole, where a
/// check finds the search exact. A checked `compact` stores the threats
/// whose search differs (`format::FLAG_THREATS_KEPT`) and the set answers
/// every position as before it.
#[test]
fn a_compacting_build_compacts_only_what_its_solve_proves() {
    let _one_build = LIMIT_SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let fmjd = RuleSet::Fmjd;
    let (refused, compacted) = (compacting_build(fmjd, 2), compacting_build(fmjd, 6));
    assert!(
        refused.0 > 0,
        "no search differs at 2 plies: the test proves nothing"
    );
    assert!(
        refused.1 > 0,
        "no threat kept at 2 plies: the list is not tried"
    );
    assert!(compacted.2 > 0, "no pair was compacted at 6 plies");
    // The rule set with the long-diagonal cap passes the count on alike.
    let diagonal = compacting_build(RuleSet::FmjdDiagonal, 2);
    assert!(diagonal.1 > 0, "no threat kept under fmjd-diagonal");
}

/// Builds `KK-KM` under `rule_set` at lowered limit `limit` plainly and compacting, checks
/// what the compacting build kept and every answer, and returns how many
/// tables a checked `compact` of the plain set found a differing search
/// in, how many of those it rewrote keeping such threats stored, and how
/// many the build compacted.
fn compacting_build(rule_set: RuleSet, limit: u32) -> (usize, usize, usize) {
    let names = ["KK-KM"];
    let plain = tempfile::tempdir().unwrap();
    build(plain.path(), rule_set, &names, Some(limit), false);
    let small = tempfile::tempdir().unwrap();
    let mut options = GenOptions::new(small.path(), rule_set, 0);
    options.materials = names.iter().map(|m| m.parse().unwrap()).collect();
    options.compact = Some(gen::Sides::SMALLER_ONLY);
    gen::fault::lower_kings_only_limit(Some(limit));
    let report = generate(&options);
    gen::fault::lower_kings_only_limit(None);
    let report = report.unwrap();
    assert!(
        !report.not_compacted.is_empty(),
        "{limit}: every pair was compacted"
    );
    for &pair in &report.not_compacted {
        for m in [pair, pair.mirrored()] {
            let read = |dir: &Path| {
                std::fs::read(format::table_path(&format::table_dir(dir, rule_set), m)).unwrap()
            };
            assert!(read(plain.path()) == read(small.path()), "{limit}: {m}");
        }
    }
    assert_same_answers(plain.path(), small.path(), rule_set, &names);
    let before = tempfile::tempdir().unwrap();
    common::copy_dir::copy_dir(plain.path(), before.path());
    let checked = gen::compact(plain.path(), rule_set, gen::Sides::SMALLER_ONLY).unwrap();
    assert_same_answers(before.path(), plain.path(), rule_set, &names);
    let pair_of = |m: Material| [m, m.mirrored()].into_iter().min().unwrap();
    let refused: Vec<Material> = checked
        .iter()
        .filter(|t| searches_differ(&t.outcome))
        .map(|t| t.material)
        .collect();
    for &m in &refused {
        assert!(
            report.not_compacted.contains(&pair_of(m)),
            "{limit}: {m} compacted, yet its search differs"
        );
    }
    let kept_in = |path: &Path| u64::from(format::read_header(path).unwrap().threats_kept);
    for t in &checked {
        if let gen::Compaction::Rewritten { threats_kept, .. } = t.outcome {
            assert_eq!(kept_in(&t.path), threats_kept, "{}", t.material);
        }
    }
    // Recompressed, each file keeps its list and the set its answers.
    for r in gen::recompress(plain.path(), rule_set, 19).unwrap() {
        let t = checked.iter().find(|t| t.material == r.material).unwrap();
        if let gen::Compaction::Rewritten { threats_kept, .. } = t.outcome {
            assert_eq!(kept_in(&r.path), threats_kept, "{}", r.material);
        }
    }
    assert_same_answers(before.path(), plain.path(), rule_set, &names);
    let compacted = report
        .compacted
        .iter()
        .filter(|t| !matches!(t.outcome, gen::Compaction::Unchanged))
        .count();
    let kept = checked
        .iter()
        .filter(|t| matches!(t.outcome, gen::Compaction::Rewritten { threats_kept, .. } if threats_kept > 0))
        .count();
    (refused.len(), kept, compacted)
}

/// Whether a checked `compact` found a search that differs from a stored
/// value: a table kept as it was, or one that keeps such threats stored.
fn searches_differ(outcome: &gen::Compaction) -> bool {
    match *outcome {
        gen::Compaction::NotSearchable(_) | gen::Compaction::MirrorNotSearchable(_) => true,
        gen::Compaction::Rewritten { threats_kept, .. } => threats_kept > 0,
        _ => false,
    }
}

/// Every position of `names`' closure has the same value in both sets.
fn assert_same_answers(plain: &Path, small: &Path, rule_set: RuleSet, names: &[&str]) {
    let (a, b) = (
        Tablebase::open(plain, rule_set).unwrap(),
        Tablebase::open(small, rule_set).unwrap(),
    );
    for m in closure(names) {
        let index = format::MaterialIndex::new(m);
        (0..index.count()).into_par_iter().for_each(|i| {
            let pos = index.unrank(i);
            assert_eq!(
                a.probe_wdl(&pos, None).unwrap(),
                b.probe_wdl(&pos, None).unwrap(),
                "{m} position {i} ({pos})"
            );
        });
    }
}
