//! Perft: the number of move sequences of each length, the standard check
//! of a move generator against published counts.

use rayon::prelude::*;

use crate::movegen::Move;
use crate::position::Position;

/// The number of legal move sequences of `depth` plies from `pos`
/// (leaves counted in bulk at the last ply).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<Move>> = (0..depth.max(1)).map(|_| Vec::with_capacity(64)).collect();
    walk(pos, depth, &mut buffers)
}

fn walk(pos: &Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (buf, rest) = buffers.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        return pos.count_moves(buf) as u64;
    }
    pos.generate_moves(buf);
    let mut total = 0;
    for mv in buf.iter() {
        total += walk(&pos.play(mv), depth - 1, rest);
    }
    total
}

/// Perft per root move: each legal move with the count below it.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| (mv, perft(&pos.play(&mv), depth - 1)))
        .collect()
}

/// Perft spread over the rayon thread pool; the same counts as [`perft`].
pub fn perft_parallel(pos: &Position, depth: u32) -> u64 {
    // Split two plies deep so that the work is balanced over the threads
    // even when the root has few moves.
    if depth <= 2 {
        return perft(pos, depth);
    }
    pos.legal_moves()
        .par_iter()
        .map(|mv| {
            let child = pos.play(mv);
            child
                .legal_moves()
                .par_iter()
                .map(|m2| perft(&child.play(m2), depth - 2))
                .sum::<u64>()
        })
        .sum()
}
