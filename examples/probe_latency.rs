//! Per-position probe latency of one or more folders of the same tables
//! (a plain set and sets rewritten by `dtb compact`), side by side, with
//! every block they read already in memory: the medians the smaller tables
//! are held to (a position without captures at most 1.2 times version 1's,
//! one whose side not to move could capture at most 1.5 us; see
//! docs/MEASUREMENTS.md, Probing), measured a position at a time rather
//! than as criterion's mean over a batch (`benches/probe.rs`, group
//! `compacted`, is the batch view).
//!
//! ```text
//! cargo run --release --example probe_latency -- RULES PIECES N DIR...
//! ```
//!
//! Draws `N` positions of each kind from the tables of exactly `PIECES`
//! pieces (a table drawn in proportion to its positions, then a position
//! of it, seeded): "quiet" (neither side could capture), "threat" (only
//! the side not to move could capture) and "mixed" (any position of the
//! index). Every set must answer each position alike. Each position is
//! probed once to load its blocks, then timed over 32 probes; the median,
//! 90th percentile and mean of the per-position times are printed, with
//! the share of positions whose table stores nothing (answered by search
//! over its mirror).

use std::path::Path;
use std::time::Instant;

use format::{Material, MaterialIndex, RuleSet};
use probe::{Tablebase, TablebaseOptions};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rules::Position;

/// Which positions a kind takes.
type Filter = Box<dyn FnMut(&Position) -> bool>;

/// Probes timed per position.
const REPEATS: u32 = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err("usage: probe_latency RULES PIECES N DIR...".into());
    }
    let rule_set: RuleSet = args[1].parse()?;
    let pieces: u32 = args[2].parse()?;
    let n: usize = args[3].parse()?;
    let dirs = &args[4..];
    let folder = format::table_dir(Path::new(&dirs[0]), rule_set);
    let materials: Vec<Material> = format::list_tables(&folder)?
        .into_iter()
        .filter(|m| m.pieces() == pieces)
        .collect();
    let sets: Vec<Tablebase> = dirs
        .iter()
        .map(|d| Tablebase::open_with(d, rule_set, TablebaseOptions::with_cache_bytes(8 << 30)))
        .collect::<Result<_, _>>()?;
    let mut moves = Vec::new();
    let kinds: [(&str, Filter); 3] = [
        (
            "quiet",
            Box::new(|p: &Position| {
                !p.has_capture()
                    && !p
                        .with_side_to_move(p.side_to_move().opponent())
                        .has_capture()
            }),
        ),
        (
            "threat",
            Box::new(move |p: &Position| format::is_searched_threat(p, &mut moves)),
        ),
        ("mixed", Box::new(|_: &Position| true)),
    ];
    println!("kind\tset\tmedian ns\tp90 ns\tmean ns\tleft out");
    for (seed, (kind, mut keep)) in kinds.into_iter().enumerate() {
        let positions = sample(&materials, n, seed as u64, &mut keep);
        for p in &positions {
            let first = sets[0].probe_wdl(p, None)?;
            for tb in &sets[1..] {
                if tb.probe_wdl(p, None)? != first {
                    return Err(format!("{p}: the sets answer differently").into());
                }
            }
        }
        for (tb, dir) in sets.iter().zip(dirs) {
            report(kind, dir, tb, &positions, rule_set)?;
        }
    }
    Ok(())
}

/// `n` positions of `materials` that `keep` accepts, White or Black to
/// move.
fn sample(
    materials: &[Material],
    n: usize,
    seed: u64,
    keep: &mut dyn FnMut(&Position) -> bool,
) -> Vec<Position> {
    let indexes: Vec<MaterialIndex> = materials.iter().map(|&m| MaterialIndex::new(m)).collect();
    let total: u64 = indexes.iter().map(|i| i.count()).sum();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut r = rng.gen_range(0..total);
        let index = indexes
            .iter()
            .find(|i| {
                let found = r < i.count();
                r -= if found { 0 } else { i.count() };
                found
            })
            .expect("r < total");
        let p = index.unrank(r);
        let p = if rng.gen::<bool>() { p.flipped() } else { p };
        if keep(&p) {
            out.push(p);
        }
    }
    out
}

/// Times every position of `positions` in `tb` and prints one line.
fn report(
    kind: &str,
    dir: &str,
    tb: &Tablebase,
    positions: &[Position],
    rule_set: RuleSet,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut times = Vec::with_capacity(positions.len());
    let mut left_out = 0;
    for p in positions {
        tb.probe_wdl(p, None)?;
        let start = Instant::now();
        for _ in 0..REPEATS {
            std::hint::black_box(tb.probe_wdl(std::hint::black_box(p), None)?);
        }
        times.push(start.elapsed().as_nanos() as f64 / f64::from(REPEATS));
        left_out += usize::from(stores_nothing(dir, p, rule_set));
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{kind}\t{dir}\t{:.0}\t{:.0}\t{mean:.0}\t{:.1}%",
        at(0.5),
        at(0.9),
        100.0 * left_out as f64 / positions.len() as f64
    );
    Ok(())
}

/// Whether the table `p` is stored in (White to move after normalising)
/// stores no values of its own.
fn stores_nothing(dir: &str, p: &Position, rule_set: RuleSet) -> bool {
    if p.has_capture() {
        return false;
    }
    let (m, _) = format::table_position(p);
    let folder = format::table_dir(Path::new(dir), rule_set);
    format::read_header(&format::table_path(&folder, m))
        .is_ok_and(|h| h.from_mirror || h.quiet_searched)
}
