//! Lists the threat positions of one version-1 WLD table whose one-ply
//! search (as a version-2 table would leave them to it, spread ones
//! stored) differs from the stored value, searched through the tables of
//! a folder as they are: the positions `dtb compact` keeps stored.
//!
//! ```text
//! cargo run --release --example search_differing -- DIR RULES MATERIAL OUT
//! ```
//!
//! Writes one index a line to `OUT` (sorted) and prints the counts.

use format::{Material, MaterialIndex, RuleSet, SearchScratch, TableSpec, UnrankCursor};
use probe::generator::GeneratorHooks;
use probe::Tablebase;
use rayon::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        return Err("usage: search_differing DIR RULES MATERIAL OUT".into());
    }
    let rule_set: RuleSet = args[2].parse()?;
    let material: Material = args[3].parse()?;
    let folder = format::table_dir(std::path::Path::new(&args[1]), rule_set);
    let path = format::table_path(&folder, material);
    let len = std::fs::metadata(&path)?.len();
    let reader = format::TableReader::new(format::read_regular(&path, len)?)?;
    let codes = reader.decode_all_raw()?;
    let tb = Tablebase::open(&args[1], rule_set)?;
    let spec = TableSpec::searched_threats(material, rule_set, Some(format::SEARCHED_WDL_BLOCK));
    let rule = spec.search_rule().ok_or("no rule")?;
    let index = MaterialIndex::new(material);
    const CHUNK: u64 = 1 << 14;
    let parts: Vec<(u64, Vec<u64>)> = (0..index.count().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut cursor, mut scratch) = (UnrankCursor::default(), SearchScratch::default());
            let (mut searched, mut differing) = (0, Vec::new());
            for i in c * CHUNK..((c + 1) * CHUNK).min(index.count()) {
                let pos = index.unrank_with(i, &mut cursor);
                if pos.has_capture() || !rule.leaves(&pos, &mut scratch) {
                    continue;
                }
                searched += 1;
                let value = tb.probe_capture(&pos, &pos.legal_moves())?.wdl.code();
                if value != format::wdl_code(&codes, i as usize) {
                    differing.push(i);
                }
            }
            Ok((searched, differing))
        })
        .collect::<Result<_, probe::ProbeError>>()?;
    let searched: u64 = parts.iter().map(|p| p.0).sum();
    let differing: Vec<u64> = parts.into_iter().flat_map(|p| p.1).collect();
    let text: String = differing.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(&args[4], text)?;
    println!(
        "{material}: {searched} searched, {} differ",
        differing.len()
    );
    Ok(())
}
