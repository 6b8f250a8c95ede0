//! Compares two folders of the same tables (a plain set and one rewritten
//! by `dtb compact`): every table's header statistics, then `N` random
//! positions of the tables of `PIECES` pieces, probed in both (the check
//! that 10 M sampled five-piece positions answer alike), their DTC too
//! where both folders hold `.dtc` files; then every threat position a table
//! of `SMALL` keeps stored (`format::FLAG_THREATS_KEPT`: those whose search
//! would differ), probed in both.
//!
//! ```text
//! cargo run --release --example compare_sets -- PLAIN SMALL fmjd 5 10000000
//! ```
//!
//! Prints the counts compared and the mismatches (none expected); exits 1
//! on any difference.

use format::{Material, MaterialIndex, RuleSet};
use probe::Tablebase;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rayon::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        return Err("usage: compare_sets PLAIN SMALL RULES PIECES SAMPLES".into());
    }
    let (plain, small) = (&args[1], &args[2]);
    let rule_set: RuleSet = args[3].parse()?;
    let pieces: u32 = args[4].parse()?;
    let samples: u64 = args[5].parse()?;
    let folder = |dir: &str| format::table_dir(std::path::Path::new(dir), rule_set);
    let materials = format::list_tables(&folder(plain))?;
    let mut differing_stats = 0;
    for &m in &materials {
        let a = format::read_header(&format::table_path(&folder(plain), m))?;
        let b = format::read_header(&format::table_path(&folder(small), m))?;
        let dtc = |dir: &str| format::read_header(&format::dtc_path(&folder(dir), m)).ok();
        let dtc_differs = dtc(plain).map(|h| h.stats) != dtc(small).map(|h| h.stats);
        if a.stats != b.stats || dtc_differs {
            println!(
                "{m}: statistics differ: {:?} against {:?}",
                a.stats, b.stats
            );
            differing_stats += 1;
        }
    }
    println!(
        "{} tables: statistics equal in {}",
        materials.len(),
        materials.len() - differing_stats
    );
    let sampled: Vec<Material> = materials
        .into_iter()
        .filter(|m| m.pieces() == pieces)
        .collect();
    let a = Tablebase::open(plain, rule_set)?;
    let b = Tablebase::open(small, rule_set)?;
    const CHUNK: u64 = 100_000;
    let (differing, with_dtc): (u64, u64) = (0..samples.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut rng = SmallRng::seed_from_u64(c);
            let (mut differing, mut with_dtc) = (0, 0);
            for _ in 0..CHUNK.min(samples - c * CHUNK) {
                let m = sampled[rng.gen_range(0..sampled.len())];
                let index = MaterialIndex::new(m);
                let pos = index.unrank(rng.gen_range(0..index.count()));
                let (x, y) = (a.probe(&pos), b.probe(&pos));
                if x.as_ref().ok() != y.as_ref().ok() {
                    println!("{m} {pos}: {x:?} against {y:?}");
                    differing += 1;
                }
                // Where both folders hold DTC files (`dtb gen --dtc`).
                let (x, y) = (a.probe_dtc(&pos), b.probe_dtc(&pos));
                if x.as_ref().ok() != y.as_ref().ok() {
                    println!("{m} {pos}: DTC {x:?} against {y:?}");
                    differing += 1;
                }
                with_dtc += u64::from(matches!(x, Ok(Some(_))));
            }
            (differing, with_dtc)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!(
        "{samples} positions of {} tables of {pieces} pieces ({with_dtc} with a DTC): \
         {differing} differ",
        sampled.len()
    );
    let kept_differing = compare_kept(&a, &b, &folder(small), &sampled)?;
    if differing > 0 || differing_stats > 0 || kept_differing > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// Probes, in `a` and `b`, every threat position that a table of
/// `materials` in `small` keeps stored; prints the counts and returns how
/// many differ.
fn compare_kept(
    a: &Tablebase,
    b: &Tablebase,
    small: &std::path::Path,
    materials: &[Material],
) -> Result<u64, Box<dyn std::error::Error>> {
    let (mut kept, mut differing) = (0, 0);
    for &m in materials {
        let path = format::table_path(small, m);
        let reader = format::TableReader::new(format::read_regular(
            &path,
            std::fs::metadata(&path)?.len(),
        )?)?;
        let index = MaterialIndex::new(m);
        for &i in reader.threats_kept().iter() {
            let pos = index.unrank(i);
            let (x, y) = (a.probe(&pos), b.probe(&pos));
            if x.as_ref().ok() != y.as_ref().ok() {
                println!("{m} {pos} (kept): {x:?} against {y:?}");
                differing += 1;
            }
            kept += 1;
        }
    }
    println!("{kept} threat positions kept stored: {differing} differ");
    Ok(differing)
}
