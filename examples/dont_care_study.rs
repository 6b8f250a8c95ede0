//! A size study for smaller tables: how much the table files of a rule
//! set's folder would shrink if more positions were "don't care".
//!
//! ```text
//! cargo run --release --example dont_care_study -- data/fmjd
//! ```
//!
//! For every table (`.dtb`) in the folder it decodes the stored values,
//! finds for each position whether the side to move must capture (stored
//! "don't care" today) and whether the side not to move could capture if
//! it were to move, and compresses the value stream again (zstd, blocks of
//! the file's own size and level 12, as the writer does) under these fills:
//!
//! - `stored`: the values as stored (the file's own payload, re-encoded:
//!   a check that the study compresses as the writer does);
//! - `threat`: positions where only the side not to move could capture are
//!   made "don't care" too, filled as the writer fills capture positions
//!   (the value of the last position kept in the block);
//! - `threat-64k`: the same in blocks of 65,536 positions;
//! - `threat-l19`: the same at zstd level 19;
//! - `safe`: only the threat positions that a one-ply search resolves
//!   without meeting another left-out position: every quiet move of the
//!   side to move leads to a position where the opponent must capture
//!   (resolved by the capture search) or where the side that moved could
//!   not capture (stored);
//! - `safe-64k`: the same in blocks of 65,536 positions.
//!
//! The `threat` fill is an upper bound on what that don't-care set can
//! give: a prober would resolve those positions by a search of the side to
//! move's replies, and a reply may lead to a position that is itself left
//! out; `safe` leaves out only those a prober resolves in one ply. The
//! study changes no file: it prints sizes, per material and in total, with
//! the total when only the smaller side of each pair were kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use format::{Material, MaterialIndex, TableReader, ValueKind};
use rules::{dense, Color, Move, Position};

/// Which positions a fill leaves "don't care".
#[derive(Clone, Copy)]
enum Fill {
    /// Capture positions of the side to move (today's files).
    MoverCaptures,
    /// Those, and positions where only the side not to move could capture.
    Threats,
    /// Those of [`Fill::Threats`] that a one-ply search resolves.
    SafeThreats,
}

/// What a position is to a fill.
const STORED: u8 = 0;
const MOVER_CAPTURES: u8 = 1;
const SAFE_THREAT: u8 = 2;
const UNSAFE_THREAT: u8 = 3;

/// One table's study.
struct Study {
    material: Material,
    positions: u64,
    file_bytes: u64,
    mover_captures: u64,
    threats_only: u64,
    safe_threats: u64,
    /// Payload bytes by variant name.
    sizes: BTreeMap<&'static str, u64>,
}

/// Whether the side to move (White, in a table's own index) must capture,
/// and whether Black could capture if it were to move.
fn captures(masks: [u64; 4]) -> (bool, bool) {
    let [wm, wk, bm, bk] = masks;
    let white = wm | wk;
    let black = bm | bk;
    let occupied = white | black;
    (
        dense::can_capture(wm, wk, black, occupied),
        dense::can_capture(bm, bk, white, occupied),
    )
}

/// Whether every quiet move of White (to move, with no capture) in the
/// position of dense masks `masks` leads to a position where Black must
/// capture or White could not: a one-ply search then meets only stored
/// positions and capture positions.
fn resolved_in_one_ply(masks: [u64; 4], moves: &mut Vec<Move>) -> bool {
    let [wm, wk, bm, bk] = masks;
    let pos = Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
        .expect("a table's placement");
    moves.clear();
    pos.generate_quiet_moves(moves);
    moves.iter().all(|mv| {
        let from = 1u64 << (mv.from().number() - 1);
        let to = 1u64 << (mv.to().number() - 1);
        let (men, kings) = if wm & from != 0 {
            let crowned = pos.is_crowning(mv);
            (
                wm & !from | if crowned { 0 } else { to },
                wk | if crowned { to } else { 0 },
            )
        } else {
            (wm, wk & !from | to)
        };
        let white = men | kings;
        let black = bm | bk;
        let occupied = white | black;
        dense::can_capture(bm, bk, white, occupied)
            || !dense::can_capture(men, kings, black, occupied)
    })
}

/// `values` with the positions `fill` leaves out set, block by block, to
/// the last value kept before them (or the block's first kept value).
fn filled(values: &[u8], kinds: &[u8], fill: Fill, block: usize) -> Vec<u8> {
    let left_out = |k: u8| match fill {
        Fill::MoverCaptures => k == MOVER_CAPTURES,
        Fill::Threats => k != STORED,
        Fill::SafeThreats => k == MOVER_CAPTURES || k == SAFE_THREAT,
    };
    let mut out = values.to_vec();
    for (vals, ks) in out.chunks_mut(block).zip(kinds.chunks(block)) {
        let first_kept = vals
            .iter()
            .zip(ks)
            .find(|(_, k)| !left_out(**k))
            .map_or(1, |(v, _)| *v);
        let mut last = first_kept;
        for (v, k) in vals.iter_mut().zip(ks) {
            if left_out(*k) {
                *v = last;
            } else {
                last = *v;
            }
        }
    }
    out
}

/// The bytes of `values` compressed in blocks of `block` positions at
/// zstd `level`, WLD values packed 4 to a byte as in the files.
fn compressed_bytes(values: &[u8], kind: ValueKind, block: usize, level: i32) -> u64 {
    let mut compressor = zstd::bulk::Compressor::new(level).expect("zstd starts");
    values
        .chunks(block)
        .map(|chunk| {
            let raw = match kind {
                ValueKind::Wdl => chunk
                    .chunks(4)
                    .map(|four| {
                        four.iter()
                            .enumerate()
                            .fold(0u8, |b, (i, v)| b | v << (2 * i))
                    })
                    .collect::<Vec<u8>>(),
                _ => chunk.to_vec(),
            };
            compressor.compress(&raw).expect("zstd compresses").len() as u64
        })
        .sum()
}

fn study(path: &Path) -> Result<Study, Box<dyn std::error::Error>> {
    let file_bytes = std::fs::metadata(path)?.len();
    let reader = TableReader::new(std::fs::read(path)?)?;
    let header = reader.header().clone();
    let material = header.material;
    let values = reader.decode_all()?;
    let index = MaterialIndex::new(material);
    let mut moves = Vec::new();
    let kinds: Vec<u8> = (0..index.count())
        .map(|i| {
            let masks = index.unrank_masks(i);
            match captures(masks) {
                (true, _) => MOVER_CAPTURES,
                (false, true) if resolved_in_one_ply(masks, &mut moves) => SAFE_THREAT,
                (false, true) => UNSAFE_THREAT,
                (false, false) => STORED,
            }
        })
        .collect();
    let block = header.positions_per_block as usize;
    let kind = header.value_kind;
    let stored = filled(&values, &kinds, Fill::MoverCaptures, block);
    let threat = filled(&values, &kinds, Fill::Threats, block);
    let threat_big = filled(&values, &kinds, Fill::Threats, 1 << 16);
    let safe = filled(&values, &kinds, Fill::SafeThreats, block);
    let safe_big = filled(&values, &kinds, Fill::SafeThreats, 1 << 16);
    let mut sizes = BTreeMap::new();
    sizes.insert("stored", compressed_bytes(&stored, kind, block, 12));
    sizes.insert("threat", compressed_bytes(&threat, kind, block, 12));
    sizes.insert(
        "threat-64k",
        compressed_bytes(&threat_big, kind, 1 << 16, 12),
    );
    sizes.insert("threat-l19", compressed_bytes(&threat, kind, block, 19));
    sizes.insert("safe", compressed_bytes(&safe, kind, block, 12));
    sizes.insert("safe-64k", compressed_bytes(&safe_big, kind, 1 << 16, 12));
    Ok(Study {
        material,
        positions: index.count(),
        file_bytes,
        mover_captures: kinds.iter().filter(|k| **k == MOVER_CAPTURES).count() as u64,
        threats_only: kinds.iter().filter(|k| **k >= SAFE_THREAT).count() as u64,
        safe_threats: kinds.iter().filter(|k| **k == SAFE_THREAT).count() as u64,
        sizes,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "data/fmjd".into()),
    );
    let materials = format::list_tables(&dir)?;
    let variants = [
        "stored",
        "threat",
        "threat-64k",
        "threat-l19",
        "safe",
        "safe-64k",
    ];
    println!(
        "material positions file mover-capture% threat-only% safe-threat% {}",
        variants.join(" ")
    );
    let mut studies = Vec::new();
    for m in materials {
        let s = study(&format::table_path(&dir, m))?;
        println!(
            "{} {} {} {:.1} {:.1} {:.1} {}",
            s.material,
            s.positions,
            s.file_bytes,
            100.0 * s.mover_captures as f64 / s.positions as f64,
            100.0 * s.threats_only as f64 / s.positions as f64,
            100.0 * s.safe_threats as f64 / s.positions as f64,
            variants.map(|v| s.sizes[v].to_string()).join(" ")
        );
        studies.push(s);
    }
    let positions: u64 = studies.iter().map(|s| s.positions).sum();
    let files: u64 = studies.iter().map(|s| s.file_bytes).sum();
    println!(
        "total: {} tables, {positions} positions, files {files} bytes ({:.4} bits a position)",
        studies.len(),
        8.0 * files as f64 / positions as f64
    );
    for v in variants {
        let bytes: u64 = studies.iter().map(|s| s.sizes[v]).sum();
        let one_side: u64 = studies
            .iter()
            .filter(|s| s.material <= s.material.mirrored())
            .map(|s| {
                let mirror = studies.iter().find(|t| t.material == s.material.mirrored());
                s.sizes[v].min(mirror.map_or(u64::MAX, |t| t.sizes[v]))
            })
            .sum();
        println!(
            "{v}: payload {bytes} bytes ({:.4} bits a position, {:.3}x the files); \
             the smaller side of each pair only: {one_side} bytes ({:.3}x)",
            8.0 * bytes as f64 / positions as f64,
            bytes as f64 / files as f64,
            one_side as f64 / files as f64
        );
    }
    Ok(())
}
