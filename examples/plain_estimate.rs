//! What each table of a compacted set would take as a plain build writes
//! it (version 1: every value stored, capture positions filled with the
//! value before, blocks of 16,384 positions at zstd level 12), estimated
//! from `SAMPLES` blocks of each table spread evenly (every block of a
//! table that has no more): the values of its positions are probed
//! through the set (searched positions found by their search), packed as
//! a plain build packs them and compressed; the payload is scaled up. It
//! gives the "beside today's" column per material where the plain files
//! are gone; checked against real plain files where they exist
//! (`PLAIN`: the estimate and the file side by side).
//!
//! ```text
//! cargo run --release --example plain_estimate -- RULES PIECES SAMPLES DIR [PLAIN]
//! ```
//!
//! Prints one line per table of `PIECES` pieces (`0`: every table) with
//! its positions, the set's bytes and bits a position, the plain estimate
//! (and the plain file's bytes where `PLAIN` holds it), then the totals.
//! Distance tables are the same in both forms: their own bytes count.

use std::path::Path;

use format::{Material, MaterialIndex, RuleSet, ValueKind};
use probe::Tablebase;
use rayon::prelude::*;

/// Positions of a plain WLD block.
const PLAIN_BLOCK: u64 = format::DEFAULT_WDL_BLOCK as u64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err("usage: plain_estimate RULES PIECES SAMPLES DIR [PLAIN]".into());
    }
    let rule_set: RuleSet = args[1].parse()?;
    let pieces: u32 = args[2].parse()?;
    let samples: u64 = args[3].parse()?;
    let dir = Path::new(&args[4]);
    let plain = args
        .get(5)
        .map(|p| format::table_dir(Path::new(p), rule_set));
    let folder = format::table_dir(dir, rule_set);
    let tb = Tablebase::open(dir, rule_set)?;
    let mut materials = format::list_tables(&folder)?;
    materials.retain(|m| pieces == 0 || m.pieces() == pieces);
    materials.sort_by_key(|m| m.build_key());
    let (mut positions, mut set_bytes, mut estimate, mut plain_bytes) = (0u64, 0u64, 0u64, 0u64);
    println!("material positions set_bytes set_bits plain_estimate plain_bits plain_file");
    for m in materials {
        let path = format::table_path(&folder, m);
        let bytes = std::fs::metadata(&path)?.len();
        let header = format::read_header(&path)?;
        let est = if header.value_kind == ValueKind::Wdl {
            estimate_plain(&tb, m, samples)?
        } else {
            bytes
        };
        let file = plain
            .as_ref()
            .and_then(|p| std::fs::metadata(format::table_path(p, m)).ok())
            .map(|f| f.len());
        let n = header.position_count;
        let bits = |b: u64| b as f64 * 8.0 / n.max(1) as f64;
        println!(
            "{m} {n} {bytes} {:.4} {est} {:.4} {}",
            bits(bytes),
            bits(est),
            file.map_or("-".into(), |f| f.to_string())
        );
        positions += n;
        set_bytes += bytes;
        estimate += est;
        plain_bytes += file.unwrap_or(0);
    }
    let bits = |b: u64| b as f64 * 8.0 / positions.max(1) as f64;
    println!(
        "total {positions} {set_bytes} {:.4} {estimate} {:.4} {plain_bytes}",
        bits(set_bytes),
        bits(estimate)
    );
    Ok(())
}

/// The bytes of `m`'s plain table, from `samples` of its blocks.
fn estimate_plain(tb: &Tablebase, m: Material, samples: u64) -> Result<u64, probe::ProbeError> {
    let index = MaterialIndex::new(m);
    let count = index.count();
    let blocks = count.div_ceil(PLAIN_BLOCK);
    let stride = (blocks / samples.max(1)).max(1);
    let sampled: Vec<u64> = (0..blocks).step_by(stride as usize).collect();
    let payload = sampled
        .par_iter()
        .map_init(
            || zstd::bulk::Compressor::new(format::DEFAULT_LEVEL).expect("zstd"),
            |zstd, &b| -> Result<u64, probe::ProbeError> {
                let raw = plain_block(tb, &index, b * PLAIN_BLOCK, count)?;
                Ok(zstd.compress(&raw).expect("zstd").len() as u64)
            },
        )
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    let scaled = (payload as f64 * blocks as f64 / sampled.len().max(1) as f64).round() as u64;
    Ok(format::HEADER_LEN as u64 + scaled + 12 * blocks + 8)
}

/// The uncompressed plain block starting at position `start`: 2-bit codes,
/// a capture position holding the code before it (at a block's start, the
/// value of the last position before the block without a capture, as the
/// writer carries it over; a draw where none is near).
fn plain_block(
    tb: &Tablebase,
    index: &MaterialIndex,
    start: u64,
    count: u64,
) -> Result<Vec<u8>, probe::ProbeError> {
    let end = (start + PLAIN_BLOCK).min(count);
    let mut raw = vec![0u8; (end - start).div_ceil(4) as usize];
    let mut last = format::Wdl::Draw.code();
    for i in (start.saturating_sub(1024)..start).rev() {
        let pos = index.unrank(i);
        if !pos.has_capture() {
            last = tb.probe_wdl(&pos, None)?.code();
            break;
        }
    }
    for i in start..end {
        let pos = index.unrank(i);
        if !pos.has_capture() {
            last = tb.probe_wdl(&pos, None)?.code();
        }
        let k = (i - start) as usize;
        raw[k / 4] |= last << (2 * (k % 4));
    }
    Ok(raw)
}
