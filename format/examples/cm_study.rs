//! A coder study for smaller tables: what an adaptive context model would
//! take to code the WLD value streams of a folder's tables, against the
//! files.
//!
//! ```text
//! cargo run --release -p draughts-format --example cm_study -- DIR/fmjd [SHIFT]
//! ```
//!
//! Each table's stored codes (as decoded, don't-care positions filled as
//! the file fills them) are coded in blocks of 65,536 positions, the model
//! started afresh in each block (a probe decodes one block): a code is two
//! binary decisions (draw or not; then win or loss), each with an adaptive
//! probability per context (two estimators, of rates 1/2^SHIFT and 1/128,
//! averaged). The sizes are ideal code lengths (what an arithmetic coder
//! writes, within a few bytes a block). Contexts: `o2` the two codes
//! before; `v1+s+k` the code before, the code one step of the next
//! piece's placement back (`s`) and one men placement back (`k`);
//! `v12+s+k` both. `best` takes per block the smallest of zstd and the
//! models (a coder byte a block would say which).
use format::{binomial, MaterialIndex, TableReader, ValueKind};
use std::path::PathBuf;

const BLOCK: usize = 1 << 16;

/// Adaptive binary probability, 12 bits, LZMA-like.
#[derive(Clone, Copy)]
struct Bit(u32, u32);
impl Bit {
    fn cost(&mut self, bit: bool, shift: u32) -> f64 {
        let p0 = (self.0 + self.1) as f64 / 131072.0;
        let c = if bit { -(1.0 - p0).log2() } else { -p0.log2() };
        if bit {
            self.0 -= self.0 >> shift;
            self.1 -= self.1 >> 7;
        } else {
            self.0 += (65536 - self.0) >> shift;
            self.1 += (65536 - self.1) >> 7;
        }
        c
    }
}

/// Cost in bits of coding `vals` (codes 0..3) in blocks, with context
/// function `ctx(vals, i, block_start) -> usize < nctx`.
fn cost(
    vals: &[u8],
    nctx: usize,
    shift: u32,
    ctx: &dyn Fn(&[u8], usize, usize) -> usize,
) -> Vec<f64> {
    let mut out = Vec::new();
    for start in (0..vals.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(vals.len());
        let mut total = 0.0;
        let mut m = vec![[Bit(32768, 32768), Bit(32768, 32768)]; nctx];
        for i in start..end {
            let c = ctx(vals, i, start);
            let v = vals[i];
            // first: draw (1) or not; then win (2) or loss (0)
            total += m[c][0].cost(v != 1, shift);
            if v != 1 {
                total += m[c][1].cost(v == 2, shift);
            }
        }
        total += 32.0; // block overhead (offset)
        out.push(total);
    }
    out
}

fn zstd_blocks(vals: &[u8]) -> Vec<f64> {
    let mut c = zstd::bulk::Compressor::new(12).unwrap();
    vals.chunks(BLOCK)
        .map(|ch| {
            let raw: Vec<u8> = ch
                .chunks(4)
                .map(|f| f.iter().enumerate().fold(0u8, |b, (i, v)| b | v << (2 * i)))
                .collect();
            8.0 * (c.compress(&raw).unwrap().len() + 4) as f64
        })
        .collect()
}

fn at(vals: &[u8], i: usize, back: usize, start: usize) -> usize {
    if back == 0 || i < start + back {
        3
    } else {
        vals[i - back] as usize
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap());
    let shift: u32 = std::env::args().nth(2).map_or(4, |s| s.parse().unwrap());
    let materials = format::list_tables(&dir)?;
    let names = ["file", "zstd64k", "o2", "v1+s+k", "v12+s+k", "best"];
    let mut totals = vec![0f64; names.len()];
    let mut positions = 0u64;
    println!("material {}", names.join(" "));
    for m in materials {
        let path = format::table_path(&dir, m);
        let bytes = std::fs::read(&path)?;
        let file = bytes.len() as f64;
        let reader = TableReader::new(bytes)?;
        if reader.header().value_kind != ValueKind::Wdl {
            continue;
        }
        let raw = reader.decode_all_raw()?;
        let n = reader.header().position_count as usize;
        let vals: Vec<u8> = (0..n).map(|i| format::wdl_code(&raw, i)).collect();
        let index = MaterialIndex::new(m);
        let kp = index.king_placements() as usize;
        let free = 50 - m.white_men as u32 - m.black_men as u32;
        let bkp = binomial(free - m.white_kings as u32, m.black_kings as u32) as usize;
        let s = if bkp > 1 {
            bkp
        } else if kp > 1 {
            kp
        } else {
            binomial(45 - m.white_men as u32, m.black_men as u32 - 1) as usize
        };
        let k = if kp > 1 && kp != s { kp } else { s * 40 };
        let z = zstd_blocks(&vals);
        let models = [
            cost(&vals, 16, shift, &|v, i, st| {
                at(v, i, 1, st) * 4 + at(v, i, 2, st)
            }),
            cost(&vals, 64, shift, &|v, i, st| {
                (at(v, i, 1, st) * 4 + at(v, i, s, st)) * 4 + at(v, i, k, st)
            }),
            cost(&vals, 256, shift, &|v, i, st| {
                ((at(v, i, 1, st) * 4 + at(v, i, 2, st)) * 4 + at(v, i, s, st)) * 4
                    + at(v, i, k, st)
            }),
        ];
        let best: f64 = (0..z.len())
            .map(|b| models.iter().map(|m| m[b]).fold(z[b], f64::min))
            .sum();
        let sum = |v: &Vec<f64>| v.iter().sum::<f64>();
        let sizes = [
            file * 8.0,
            sum(&z),
            sum(&models[0]),
            sum(&models[1]),
            sum(&models[2]),
            best,
        ];
        positions += n as u64;
        let row: Vec<String> = sizes.iter().map(|b| format!("{:.0}", b / 8.0)).collect();
        println!("{m} {n} s={s} k={k} {}", row.join(" "));
        for (t, b) in totals.iter_mut().zip(sizes) {
            *t += b / 8.0;
        }
    }
    for (name, t) in names.iter().zip(&totals) {
        println!(
            "{name}: {t:.0} bytes, {:.3}x file, {:.4} bits/pos",
            t / totals[0],
            8.0 * t / positions as f64
        );
    }
    Ok(())
}
