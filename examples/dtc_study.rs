//! A size study for DTC files: what block size, zstd level and
//! don't-care fill make a rule set's `.dtc` files smallest.
//!
//! ```text
//! cargo run --release --example dtc_study -- data/fmjd
//! ```
//!
//! For every DTC file of the folder that stores its values (a file left to
//! its mirror stores none), it decodes the stored bytes, finds the
//! positions whose byte is "don't care" (the side to move must capture,
//! or the material's WLD table says draw) and compresses the stream again
//! (zstd, as the writer does) under these choices:
//!
//! - `stored`: the bytes as stored, in the file's own blocks at level 12
//!   (a check that the study compresses as the writer does);
//! - `32k`, `64k`: blocks of 32,768 and 65,536 positions, level 12;
//! - `l19`, `64k-l19`: level 19, the file's blocks and 65,536;
//! - `next-64k`: each don't-care byte takes the next stored byte of its
//!   block instead of the last (65,536 positions a block);
//! - `one-64k`: the positions whose DTC is 1 without a capture (the side
//!   to move wins by a man move, or has only man moves and loses) are
//!   don't care too, filled with the last stored byte (a prober would find
//!   them by testing the man moves): what that would save.
//!
//! The study changes no file: it prints sizes per material and in total,
//! with the seconds each choice took to compress (one thread).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use format::{Material, MaterialIndex, TableReader};
use rules::dense;

/// Positions of a block in the larger layouts.
const BIG: usize = 1 << 16;

/// One DTC file's study.
struct Study {
    material: Material,
    positions: u64,
    file_bytes: u64,
    dont_care: u64,
    sizes: BTreeMap<&'static str, (u64, f64)>,
}

/// Whether the side to move (White in the table's own index) must capture.
fn must_capture(masks: [u64; 4]) -> bool {
    let [wm, wk, bm, bk] = masks;
    dense::can_capture(wm, wk, bm | bk, wm | wk | bm | bk)
}

/// `bytes` with the positions `left_out` marks set to the last byte kept
/// before them in their block (`forward`) or the next one after them.
fn filled(bytes: &[u8], left_out: &[bool], block: usize, forward: bool) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for (vals, out_of) in out.chunks_mut(block).zip(left_out.chunks(block)) {
        let order: Vec<usize> = if forward {
            (0..vals.len()).collect()
        } else {
            (0..vals.len()).rev().collect()
        };
        let first_kept = order.iter().find(|&&i| !out_of[i]).map_or(0, |&i| vals[i]);
        let mut last = first_kept;
        for i in order {
            if out_of[i] {
                vals[i] = last;
            } else {
                last = vals[i];
            }
        }
    }
    out
}

/// The bytes of `stream` compressed in blocks of `block` at zstd `level`,
/// and the seconds that took.
fn compressed(stream: &[u8], block: usize, level: i32) -> (u64, f64) {
    let start = std::time::Instant::now();
    let mut c = zstd::bulk::Compressor::new(level).expect("zstd starts");
    let bytes = stream
        .chunks(block)
        .map(|b| c.compress(b).expect("zstd compresses").len() as u64)
        .sum();
    (bytes, start.elapsed().as_secs_f64())
}

fn study(dir: &Path, material: Material) -> Result<Option<Study>, Box<dyn std::error::Error>> {
    let path = format::dtc_path(dir, material);
    let file_bytes = std::fs::metadata(&path)?.len();
    let reader = TableReader::new(std::fs::read(&path)?)?;
    let header = reader.header().clone();
    if header.from_mirror {
        return Ok(None);
    }
    let stored = reader.decode_all()?;
    let wdl = TableReader::new(std::fs::read(format::table_path(dir, material))?)?;
    let codes = wdl.decode_all()?;
    let index = MaterialIndex::new(material);
    let captures: Vec<bool> = (0..index.count())
        .map(|i| must_capture(index.unrank_masks(i)))
        .collect();
    let dont_care: Vec<bool> = captures
        .iter()
        .zip(&codes)
        .map(|(&c, &v)| c || v == 1)
        .collect();
    let with_ones: Vec<bool> = dont_care
        .iter()
        .zip(&stored)
        .map(|(&d, &b)| d || b == 1)
        .collect();
    let block = header.positions_per_block as usize;
    let last_big = filled(&stored, &dont_care, BIG, true);
    let next_big = filled(&stored, &dont_care, BIG, false);
    let ones_big = filled(&stored, &with_ones, BIG, true);
    let mut sizes = BTreeMap::new();
    sizes.insert("stored", compressed(&stored, block, 12));
    sizes.insert(
        "32k",
        compressed(&filled(&stored, &dont_care, 1 << 15, true), 1 << 15, 12),
    );
    sizes.insert("64k", compressed(&last_big, BIG, 12));
    sizes.insert("l19", compressed(&stored, block, 19));
    sizes.insert("64k-l19", compressed(&last_big, BIG, 19));
    sizes.insert("next-64k", compressed(&next_big, BIG, 12));
    sizes.insert("one-64k", compressed(&ones_big, BIG, 12));
    Ok(Some(Study {
        material,
        positions: index.count(),
        file_bytes,
        dont_care: dont_care.iter().filter(|&&d| d).count() as u64,
        sizes,
    }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "data/fmjd".into()),
    );
    let variants = [
        "stored", "32k", "64k", "l19", "64k-l19", "next-64k", "one-64k",
    ];
    println!("material positions file dont-care% {}", variants.join(" "));
    let mut studies = Vec::new();
    let mut all_files = 0;
    for m in format::list_tables(&dir)? {
        let path = format::dtc_path(&dir, m);
        if !path.exists() {
            continue;
        }
        all_files += std::fs::metadata(&path)?.len();
        let Some(s) = study(&dir, m)? else { continue };
        println!(
            "{} {} {} {:.1} {}",
            s.material,
            s.positions,
            s.file_bytes,
            100.0 * s.dont_care as f64 / s.positions as f64,
            variants.map(|v| s.sizes[v].0.to_string()).join(" ")
        );
        studies.push(s);
    }
    let files: u64 = studies.iter().map(|s| s.file_bytes).sum();
    let positions: u64 = studies.iter().map(|s| s.positions).sum();
    println!(
        "total: {} files storing values ({positions} positions, {files} bytes); \
         every DTC file, those storing nothing included: {all_files} bytes",
        studies.len()
    );
    for v in variants {
        let bytes: u64 = studies.iter().map(|s| s.sizes[v].0).sum();
        let seconds: f64 = studies.iter().map(|s| s.sizes[v].1).sum();
        println!(
            "{v}: payload {bytes} bytes ({:.4} bits a stored position, {:.3}x the files), \
             compressed in {seconds:.1} s",
            8.0 * bytes as f64 / positions as f64,
            bytes as f64 / files as f64
        );
    }
    Ok(())
}
