//! Helpers shared by the end-to-end tests: table sets built once per test
//! binary, the oracle file, the `dtb` binary.

#![allow(dead_code)]

pub mod copy_dir;
mod tables;

#[allow(unused_imports)] // each test binary uses part of this module
pub use tables::tables;

use std::path::PathBuf;

use rules::{Color, Position};

/// One line of the Kingsrow example oracle.
pub struct OracleCase {
    pub fen: String,
    pub value: String,
    pub pieces: u32,
}

pub fn oracle() -> Vec<OracleCase> {
    include_str!("../data/egdb_example_wld.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            OracleCase {
                fen: c[0].to_string(),
                value: c[1].to_string(),
                pieces: c[2].parse().expect("piece count"),
            }
        })
        .collect()
}

/// The `dtb` binary built by cargo for these tests.
pub fn dtb() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dtb"))
}

/// Every position of material `m`, either side to move, found by placing
/// its pieces on every combination of squares (no index involved): a
/// brute-force solver's world.
pub fn all_placements(m: format::Material) -> Vec<Position> {
    let kinds: Vec<(Color, bool)> = [
        (Color::White, false, m.white_men),
        (Color::White, true, m.white_kings),
        (Color::Black, false, m.black_men),
        (Color::Black, true, m.black_kings),
    ]
    .iter()
    .flat_map(|&(c, k, n)| std::iter::repeat_n((c, k), n as usize))
    .collect();
    let mut out = Vec::new();
    let mut squares = Vec::new();
    fn rec(kinds: &[(Color, bool)], squares: &mut Vec<u8>, out: &mut Vec<Position>) {
        let i = squares.len();
        if i == kinds.len() {
            let mut masks = [0u64; 3];
            for (&(c, k), &s) in kinds.iter().zip(squares.iter()) {
                masks[(c == Color::Black) as usize] |= 1 << (s - 1);
                if k {
                    masks[2] |= 1 << (s - 1);
                }
            }
            for side in [Color::White, Color::Black] {
                if let Ok(p) = Position::from_dense_masks(side, masks[0], masks[1], masks[2]) {
                    out.push(p);
                }
            }
            return;
        }
        let from = if i > 0 && kinds[i] == kinds[i - 1] {
            squares[i - 1] + 1
        } else {
            1
        };
        for s in from..=50 {
            if !squares.contains(&s) {
                squares.push(s);
                rec(kinds, squares, out);
                squares.pop();
            }
        }
    }
    rec(&kinds, &mut squares, &mut out);
    out
}
