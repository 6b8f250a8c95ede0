//! What the two bit-set solvers share ([`crate::solvers::menless`] and the
//! 2-bit slice path, `solvers/slice/bitset.rs`): the 2-bit codes a
//! position takes while they solve, word by word, and the ranks of king
//! moves.

use std::sync::atomic::{AtomicU64, Ordering};

use format::{BlackKingMoveRanks, KingMoveRanks, MaterialIndex};
use rules::dense;

/// Lost for the side to move.
pub(crate) const LOSS: u8 = 0;
/// Lost, settled at the next level (the draw code, free while solving).
pub(crate) const NEXT_LOSS: u8 = 1;
/// Won for the side to move.
pub(crate) const WIN: u8 = 2;
/// Not settled yet (or never to be: see each solver).
pub(crate) const UNSETTLED: u8 = 3;

/// Each of the 32 2-bit fields' low bit.
pub(crate) const LOW: u64 = 0x5555_5555_5555_5555;

/// Positions a fresh mark stands for without DTC (see
/// [`plan::memory::MARK_BLOCK`], by which the plan sizes the marks).
pub(crate) const BLOCK: u64 = plan::memory::MARK_BLOCK;

/// The code of position `i` in the code words `codes`.
#[inline]
pub(crate) fn code(codes: &[AtomicU64], i: u64) -> u8 {
    (codes[(i / 32) as usize].load(Ordering::Relaxed) >> (2 * (i % 32))) as u8 & 3
}

/// Sets the code of position `i` to `code` if it is `UNSETTLED`; returns
/// whether it was set here.
pub(crate) fn settle(codes: &[AtomicU64], i: u64, code: u8) -> bool {
    let word = &codes[(i / 32) as usize];
    let shift = 2 * (i % 32);
    let mut old = word.load(Ordering::Relaxed);
    loop {
        if (old >> shift) & 3 != u64::from(UNSETTLED) {
            return false;
        }
        let new = old & !(3 << shift) | u64::from(code) << shift;
        match word.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(now) => old = now,
        }
    }
}

/// The fields of a code word that hold won positions (`won`) or lost
/// ones, as a mask of their low bits' pairs.
#[inline]
pub(crate) fn settled_fields(codes: u64, won: bool) -> u64 {
    let (high, low) = (codes >> 1 & LOW, codes & LOW);
    if won {
        high & !low
    } else {
        !high & !low & LOW
    }
}

/// Turns the `NEXT_LOSS` codes of `word` into `LOSS`.
#[inline]
pub(crate) fn promote_word(word: &AtomicU64) {
    let codes = word.load(Ordering::Relaxed);
    // Code 1 (low bit only) becomes 0.
    let next_loss = codes & !(codes >> 1) & LOW;
    if next_loss != 0 {
        word.fetch_and(!next_loss, Ordering::Relaxed);
    }
}

/// The mask of the 2-bit fields of the code word whose first position is
/// `base` that hold positions `first..end`.
pub(crate) fn field_mask(base: u64, first: u64, end: u64) -> u64 {
    let from = first.saturating_sub(base).min(32);
    let to = end.saturating_sub(base).min(32);
    let below = |n: u64| {
        if n == 32 {
            u64::MAX
        } else {
            (1u64 << (2 * n)) - 1
        }
    };
    below(to) & !below(from)
}

/// Mark words a task of a level's visit takes at most.
const MARK_WORDS: usize = 1024;

/// Tasks a thread gets at least in a level's visit, when there are mark
/// words enough: fresh marks bunch up, so few large tasks leave threads
/// idle.
const TASKS_A_THREAD: usize = 16;

/// The tasks of a level's visit over `words` mark words: ranges of at
/// most [`MARK_WORDS`] words, and [`TASKS_A_THREAD`] tasks a thread of
/// the current pool at least. (A slice of 28 M positions has 1,709 mark
/// words without DTC: tasks of 1,024 words made two, and a two-thread
/// build of `KKKKKK-M` before commit e297719 (2026-12-03) kept 136% of two
/// cores busy on such slices.)
pub(crate) fn mark_tasks(words: usize) -> impl Iterator<Item = (usize, usize)> {
    let tasks = TASKS_A_THREAD * rayon::current_num_threads();
    let size = words.div_ceil(tasks).clamp(1, MARK_WORDS);
    (0..words.div_ceil(size)).map(move |c| (c * size, words.min((c + 1) * size)))
}

/// The ranks of the positions where one king of a colour moves (on the
/// stack: one is made for each king of a position visited, so boxing the
/// larger one would cost an allocation each time).
#[allow(clippy::large_enum_variant)]
enum MoveRanks {
    White(KingMoveRanks),
    Black(BlackKingMoveRanks),
}

impl MoveRanks {
    #[inline]
    fn rank_with(&self, square: u32) -> u64 {
        match self {
            MoveRanks::White(r) => r.rank_with(square),
            MoveRanks::Black(r) => r.rank_with(square),
        }
    }
}

/// The king moves between the positions a bit-set solver numbers: those
/// of a material (White to move) with the men `men` fixed and the kings
/// placed, numbered from `first` by their kings' rank in `index`.
pub(crate) struct KingMoves<'i> {
    pub(crate) index: &'i MaterialIndex,
    pub(crate) men: u64,
    pub(crate) first: u64,
}

impl KingMoves<'_> {
    /// Lists in `out` the positions one king move away from the kings
    /// `(white, black)`: a white king moved if `white_moves`, else a
    /// black one. Each comes as its number and the new kings of the
    /// colour moved.
    pub(crate) fn all(
        &self,
        (white, black): (u64, u64),
        white_moves: bool,
        out: &mut Vec<(u64, u64)>,
    ) {
        out.clear();
        let mut rest = if white_moves { white } else { black };
        while rest != 0 {
            let from = rest.trailing_zeros();
            rest &= rest - 1;
            self.of_king((white, black), (from, white_moves), out);
        }
    }

    /// Whether `wins` holds for every position a black king's move
    /// reaches from the kings `(white, black)`. Most positions asked have
    /// a move for which it does not, so the moves are listed (in
    /// `scratch`) a king at a time and the first such move ends the look.
    pub(crate) fn every_black_move(
        &self,
        (white, black): (u64, u64),
        scratch: &mut Vec<(u64, u64)>,
        wins: impl Fn(u64) -> bool,
    ) -> bool {
        let mut rest = black;
        while rest != 0 {
            let from = rest.trailing_zeros();
            rest &= rest - 1;
            scratch.clear();
            self.of_king((white, black), (from, false), scratch);
            if !scratch.iter().all(|&(c, _)| wins(c)) {
                return false;
            }
        }
        true
    }

    /// Appends to `out` the positions that the king on `from` (white if
    /// `white_moves`, else black) reaches in one move from the kings
    /// `(white, black)`, as [`KingMoves::all`] lists them.
    #[inline]
    fn of_king(
        &self,
        (white, black): (u64, u64),
        (from, white_moves): (u32, bool),
        out: &mut Vec<(u64, u64)>,
    ) {
        let occupied = self.men | white | black;
        let movers = if white_moves { white } else { black };
        let others = movers ^ (1 << from);
        let ranks = if white_moves {
            MoveRanks::White(self.index.king_move_ranks(self.men, others, black))
        } else {
            MoveRanks::Black(self.index.black_king_move_ranks(self.men, white, others))
        };
        for ray in &dense::RAYS[from as usize] {
            for &to in ray.squares() {
                if occupied >> to & 1 == 1 {
                    break;
                }
                let to = u32::from(to);
                out.push((self.first + ranks.rank_with(to), others | 1 << to));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tasks cover the words once, in order, each within the limit, and
    /// there are enough of them for every thread when words allow.
    #[test]
    fn mark_tasks_cover_the_words_in_enough_pieces() {
        let threads = rayon::current_num_threads();
        for words in [0, 1, 7, 1_709, 100_000, 3_000_000] {
            let tasks: Vec<(usize, usize)> = mark_tasks(words).collect();
            let mut next = 0;
            for &(first, end) in &tasks {
                assert_eq!(first, next);
                assert!(end > first && end - first <= MARK_WORDS);
                next = end;
            }
            assert_eq!(next, words);
            assert!(tasks.len() >= words.min(TASKS_A_THREAD * threads));
        }
    }
}
