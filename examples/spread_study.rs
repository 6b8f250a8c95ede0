//! What bounding a cold search's blocks costs in bytes: for every pair of
//! tables that may be split (`format::may_come_from_mirror`) it estimates
//! each side's bytes as version 1 in blocks of 65,536 (the side kept), as
//! version 2 with its threats searched, the same with the threats whose
//! search spreads stored (`format::search_spreads`: more than two blocks of
//! the mirror's table), and left to its mirror with only its spread quiet
//! positions stored; then the set's bytes, and the positions left out, if
//! each pair were decided as `dtb compact --one-side --min-saving BITS`
//! decides it, for several BITS, with and without the bound.
//!
//! ```text
//! cargo run --release --example spread_study -- PLAIN/fmjd COMPACT/fmjd [STRIDE]
//! ```
//!
//! `PLAIN` holds the version-1 tables of the set (every value stored),
//! `COMPACT` a compacted copy, whose block sizes the spread is counted in
//! and whose other tables (counted endings, materials that are their own
//! mirror) are taken as they are. Each table is studied on every
//! `STRIDE`-th block (default 8) of 65,536 positions, zstd level 12, the
//! payload scaled to the whole table. Successors that must capture are
//! left out of the count (the capture search reads the smaller tables, as
//! it does for a capture position of a plain table).

#[path = "support/layout.rs"]
mod layout;

use layout::Layout;
use std::path::{Path, PathBuf};

use format::{Material, MaterialIndex, TableReader};
use rules::{Move, Position};

const BLOCK: u64 = 1 << 16;

impl Layout {
    /// Whether the quiet successors of `pos` that do not have to capture
    /// lie in more than two blocks of some table.
    fn spread(&mut self, pos: &Position, moves: &mut Vec<Move>) -> bool {
        let mut blocks: Vec<(Material, u64)> = Vec::new();
        moves.clear();
        pos.generate_moves(moves);
        for mv in moves.iter() {
            let child = pos.play(mv);
            if child.has_capture() {
                continue;
            }
            let block = self.block_of(&child);
            if !blocks.contains(&block) {
                blocks.push(block);
                if blocks.iter().filter(|(m, _)| *m == block.0).count() > 2 {
                    return true;
                }
            }
        }
        false
    }
}

/// Compressed bytes of WLD codes `codes` (one block), packed 4 a byte.
fn packed_bytes(codes: &[u8], compressor: &mut zstd::bulk::Compressor) -> u64 {
    let raw: Vec<u8> = codes
        .chunks(4)
        .map(|four| {
            four.iter()
                .enumerate()
                .fold(0u8, |b, (i, v)| b | v << (2 * i))
        })
        .collect();
    compressor.compress(&raw).expect("zstd compresses").len() as u64
}

/// `codes` with the positions not `kept` set to the last kept value before
/// them (the block's first kept value at its start; 1 if none).
fn filled(codes: &[u8], kept: &[bool]) -> Vec<u8> {
    let mut last = codes
        .iter()
        .zip(kept)
        .find(|(_, k)| **k)
        .map_or(1, |(c, _)| *c);
    codes
        .iter()
        .zip(kept)
        .map(|(c, k)| {
            if *k {
                last = *c;
            }
            last
        })
        .collect()
}

/// One table's estimated payload bytes under each fill.
struct Sizes {
    positions: u64,
    /// Version 2, threats searched (as `dtb compact` writes it).
    threats: u64,
    /// The same with the threats whose search spreads stored.
    threats_bounded: u64,
    /// Left out, with the positions whose search spreads stored.
    left_out_bounded: u64,
    /// Positions searched when left out, and how many of them spread.
    quiet: u64,
    quiet_spread: u64,
    /// Captures only don't care, blocks of 65,536 (the kept side, whole).
    kept: u64,
}

fn study(
    plain: &Path,
    layout: &mut Layout,
    material: Material,
    stride: u64,
) -> Result<Sizes, Box<dyn std::error::Error>> {
    let codes =
        TableReader::new(std::fs::read(format::table_path(plain, material))?)?.decode_all()?;
    let index = MaterialIndex::new(material);
    let blocks = index.count().div_ceil(BLOCK);
    let mut compressor = zstd::bulk::Compressor::new(12)?;
    let mut moves = Vec::new();
    let mut sums = [0u64; 6];
    let mut sampled = 0;
    for block in (0..blocks).step_by(stride as usize) {
        let range = block * BLOCK..((block + 1) * BLOCK).min(index.count());
        // kept by: version 1, version 2, version 2 bounded, left out bounded
        let mut kept: [Vec<bool>; 4] = Default::default();
        for i in range.clone() {
            let pos = index.unrank(i);
            let capture = pos.has_capture();
            let threat = !capture && format::is_searched_threat(&pos, &mut moves);
            let spreads = !capture && layout.spread(&pos, &mut moves);
            sums[4] += u64::from(!capture);
            sums[5] += u64::from(spreads);
            kept[0].push(!capture);
            kept[1].push(!capture && !threat);
            kept[2].push(!capture && (!threat || spreads));
            kept[3].push(spreads);
        }
        let block_codes = &codes[range.start as usize..range.end as usize];
        for (sum, k) in sums.iter_mut().zip(&kept) {
            *sum += packed_bytes(&filled(block_codes, k), &mut compressor);
        }
        sampled += 1;
    }
    let scale = |b: u64| b * blocks / sampled.max(1);
    Ok(Sizes {
        positions: index.count(),
        kept: scale(sums[0]),
        threats: scale(sums[1]),
        threats_bounded: scale(sums[2]),
        left_out_bounded: scale(sums[3]),
        quiet: scale(sums[4]),
        quiet_spread: scale(sums[5]),
    })
}

/// The bytes a pair takes at saving threshold `min_saving` (bits a
/// position of the table left out), and the positions left out.
fn pair_choice(
    sizes: &[Sizes; 2],
    plain_bytes: [u64; 2],
    min_saving: f64,
    bounded: bool,
) -> (u64, u64) {
    let v2 = |s: &Sizes| {
        if bounded {
            s.threats_bounded
        } else {
            s.threats
        }
    };
    let both = v2(&sizes[0]) + v2(&sizes[1]);
    let one = |out: usize| {
        let kept = 1 - out;
        let left = if bounded {
            sizes[out].left_out_bounded
        } else {
            0
        };
        sizes[kept].kept.min(plain_bytes[kept]) + left
    };
    let saving =
        |out: usize| (both as f64 - one(out) as f64) * 8.0 / sizes[out].positions.max(1) as f64;
    let out = usize::from(saving(1) >= saving(0));
    if saving(out) > 0.0 && saving(out) >= min_saving {
        (one(out), sizes[out].positions)
    } else {
        (both, 0)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: PLAIN COMPACT [STRIDE]";
    let plain = PathBuf::from(args.get(1).ok_or(usage)?);
    let compact = PathBuf::from(args.get(2).ok_or(usage)?);
    let stride: u64 = args.get(3).map_or(Ok(8), |s| s.parse())?;
    let mut layout = Layout::new(compact.clone());
    let size_of = |dir: &Path, m: Material| std::fs::metadata(format::table_path(dir, m));
    let (mut fixed, mut plain_total, mut positions) = (0u64, 0u64, 0u64);
    let mut pairs = Vec::new();
    println!(
        "pair: per side positions quiet spread% kept threats threats-bounded left-out-bounded"
    );
    for m in format::list_tables(&plain)? {
        plain_total += size_of(&plain, m)?.len();
        positions += MaterialIndex::new(m).count();
        if !format::may_come_from_mirror(m) {
            fixed += size_of(&compact, m)?.len();
            continue;
        }
        if m > m.mirrored() {
            continue;
        }
        let sizes = [
            study(&plain, &mut layout, m, stride)?,
            study(&plain, &mut layout, m.mirrored(), stride)?,
        ];
        for (side, s) in [m, m.mirrored()].iter().zip(&sizes) {
            println!(
                "{side} {} {} {:.2} {} {} {} {}",
                s.positions,
                s.quiet,
                100.0 * s.quiet_spread as f64 / s.quiet.max(1) as f64,
                s.kept,
                s.threats,
                s.threats_bounded,
                s.left_out_bounded
            );
        }
        let plain_bytes = [
            size_of(&plain, m)?.len(),
            size_of(&plain, m.mirrored())?.len(),
        ];
        pairs.push((sizes, plain_bytes));
    }
    println!("plain files {plain_total} bytes; tables kept as they are {fixed} bytes");
    for bounded in [false, true] {
        for min_saving in [0.0, 0.05, 0.10, 0.15, 0.20, 0.30] {
            let (bytes, out) = pairs.iter().fold((fixed, 0), |(b, o), (s, p)| {
                let (pb, po) = pair_choice(s, *p, min_saving, bounded);
                (b + pb, o + po)
            });
            println!(
                "bounded {bounded} min-saving {min_saving:.2}: {bytes} bytes ({:.3}x), \
                 {:.1}% of positions left out",
                bytes as f64 / plain_total as f64,
                100.0 * out as f64 / positions as f64
            );
        }
    }
    Ok(())
}
