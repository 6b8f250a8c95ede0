//! How many blocks a cold probe reads: for positions a prober answers by a
//! one-ply search (every quiet position of a WLD table left to its mirror,
//! every searched threat of a version-2 table), the distinct blocks of each
//! table that the search's stored successors lie in.
//!
//! ```text
//! cargo run --release --example cold_blocks -- data/fmjd 20000
//! ```
//!
//! For each such table it samples the positions it leaves to the search
//! (the given count, at random; a prober decides that before it reads a
//! block, so it reads none of the table itself), and counts, per probe,
//! the blocks of each table its quiet successors are stored in
//! ("direct"). Successors that must
//! capture are resolved by the capture search, which reads the smaller
//! tables its captures reach, as a probe of that successor would in a
//! plain set too: counted apart ("with captures"). It prints, per table
//! and in total, how many probes read at most one block of every table,
//! two, three, or more.

#[path = "support/layout.rs"]
mod layout;

use layout::Layout;
use std::collections::HashMap;
use std::path::PathBuf;

use format::{Material, MaterialIndex, SearchScratch};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rules::{Move, Position};

/// Blocks read per table by one probe.
#[derive(Default)]
struct Reads {
    /// Those of stored positions the search meets directly: its quiet
    /// successors'.
    direct: HashMap<Material, Vec<u64>>,
    /// Those and the blocks the capture search of a successor that must
    /// capture reads (as a stored probe of that successor would too).
    all: HashMap<Material, Vec<u64>>,
}

impl Reads {
    fn add(&mut self, (material, block): (Material, u64), direct: bool) {
        let maps = if direct {
            vec![&mut self.direct, &mut self.all]
        } else {
            vec![&mut self.all]
        };
        for map in maps {
            let blocks = map.entry(material).or_default();
            if !blocks.contains(&block) {
                blocks.push(block);
            }
        }
    }

    /// The most blocks of one table, directly and in all.
    fn most(&self) -> (usize, usize) {
        let most =
            |map: &HashMap<Material, Vec<u64>>| map.values().map(Vec::len).max().unwrap_or(0);
        (most(&self.direct), most(&self.all))
    }
}

impl Layout {
    /// Records the blocks a probe of stored or capture position `pos`
    /// reads: its own (`direct`: met by the one-ply search itself), or
    /// those of its captures' successors.
    fn record(&mut self, pos: &Position, reads: &mut Reads, direct: bool) {
        if pos.has_capture() {
            let mut captures = Vec::new();
            pos.generate_captures(&mut captures);
            for mv in &captures {
                let child = pos.play(mv);
                if child.pieces(child.side_to_move()).is_empty() {
                    continue;
                }
                self.record(&child, reads, false);
            }
            return;
        }
        let block = self.block_of(pos);
        reads.add(block, direct);
    }
}

/// The most blocks of one table that a one-ply search of `pos` reads: met
/// directly, and in all.
fn most_blocks(layout: &mut Layout, pos: &Position, moves: &mut Vec<Move>) -> (usize, usize) {
    let mut reads = Reads::default();
    moves.clear();
    pos.generate_moves(moves);
    for mv in moves.clone() {
        let child = pos.play(&mv);
        if child.pieces(child.side_to_move()).is_empty() {
            continue;
        }
        layout.record(&child, &mut reads, true);
    }
    reads.most()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).map_or("data/fmjd", String::as_str));
    let samples: u64 = args.get(2).map_or(Ok(20_000), |s| s.parse())?;
    let mut layout = Layout::new(dir.clone());
    let mut rng = SmallRng::seed_from_u64(51);
    let mut moves = Vec::new();
    let mut scratch = SearchScratch::default();
    // [kind][direct or all][1, 2, 3, more blocks]
    let mut totals = [[[0u64; 4]; 2]; 2];
    println!("table kind probes: at most 1 block a table, 2, 3, more (direct; with captures)");
    for m in format::list_tables(&dir)? {
        let path = format::table_path(&dir, m);
        let reader = format::TableReader::new(format::read_regular(
            &path,
            std::fs::metadata(&path)?.len(),
        )?)?;
        let header = reader.header().clone();
        let rule = format::SearchRule::of(&reader);
        let kind = match (header.from_mirror || header.quiet_searched, rule.is_some()) {
            (true, _) => 0,
            (_, true) => 1,
            _ => continue,
        };
        let index = MaterialIndex::new(m);
        let mut histograms = [[0u64; 4]; 2];
        let mut tries = 0;
        while histograms[0].iter().sum::<u64>() < samples && tries < 100 * samples {
            tries += 1;
            let pos = index.unrank(rng.gen_range(0..index.count()));
            let searched = match &rule {
                Some(rule) => rule.leaves(&pos, &mut scratch),
                None => !pos.has_capture(),
            };
            if !searched {
                continue;
            }
            let (direct, all) = most_blocks(&mut layout, &pos, &mut moves);
            histograms[0][direct.clamp(1, 4) - 1] += 1;
            histograms[1][all.clamp(1, 4) - 1] += 1;
        }
        let name = ["left out", "threats searched"][kind];
        println!("{m} {name} {:?} {:?}", histograms[0], histograms[1]);
        for (t, h) in totals[kind].iter_mut().zip(histograms) {
            for (t, h) in t.iter_mut().zip(h) {
                *t += h;
            }
        }
    }
    for (name, kind) in ["left out", "threats searched"].iter().zip(totals) {
        for (reads, h) in ["direct", "with captures"].iter().zip(kind) {
            let all = h.iter().sum::<u64>().max(1) as f64;
            println!(
                "{name}, {reads}: {} probes; at most 1 block a table {:.1}%, 2 {:.1}%, \
                 3 {:.1}%, more {:.1}%",
                h.iter().sum::<u64>(),
                100.0 * h[0] as f64 / all,
                100.0 * h[1] as f64 / all,
                100.0 * h[2] as f64 / all,
                100.0 * h[3] as f64 / all
            );
        }
    }
    Ok(())
}
