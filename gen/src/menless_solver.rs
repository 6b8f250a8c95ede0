//! The solver for materials without men: bit-set retrograde analysis in
//! 3 bits per position (4 with DTC, besides the DTC bytes).
//!
//! A material without men is one slice: every king move stays in the pair.
//! The slice solver ([`crate::slice_solver`]) keeps a 16-bit counter and a
//! seed byte per position and 32-bit node numbers, which caps it at 4 G
//! positions and 3 bytes each: `KKKK-KKK` with its mirror (7.0 G
//! positions) needs 21 GB that way. This solver keeps no counters. Each
//! position's state lives in the pair's own finished values:
//!
//! - its WLD code (2 bits), with the spare code 3 meaning *not yet
//!   settled*; a capture position takes its value from smaller tables at
//!   once, and never has code 3, so it is never taken for a predecessor
//!   (its king moves are not legal);
//! - a *fresh* mark (1 bit): settled, but its predecessors not yet
//!   visited. Without DTC the capture-mark bits carry it while solving
//!   (the capture marks are found again at the end); with DTC two bit sets
//!   of their own do, one for the level being visited and one for the
//!   next, so that values settle level by level.
//!
//! From a fresh lost position, every predecessor not settled is won. From a
//! fresh won one, every predecessor not settled is *verified*: its king
//! moves are generated again, and it is lost when every one leads to a won
//! position (with DTC, one won at this level or before). What is never
//! settled is drawn.
//!
//! Without DTC the marks are visited in index order, again and again,
//! until none is left: a position may settle before or after the level
//! the slice solver would give it, but outside the counted endings a
//! result does not depend on the order in which values settle (a position
//! is won if some move leads to a lost one and lost if every move leads
//! to a won one, whatever came first). With DTC the visits go level by
//! level, as the slice solver's waves do, and give the same distances.
//! `tests` in [`crate::group_solve`] compare both solvers value by value.

use std::sync::atomic::{AtomicU64, Ordering};

use format::{BlackKingMoveRanks, KingMoveRanks, Material, MaterialIndex, RuleSet, Wdl};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{dense, Color, Move, Position};

use crate::captures::ChildTables;
use crate::error::GenError;
use crate::progress::Progress;
use crate::values::PackedSide;

/// The code of a position not settled yet (codes 0-2 are loss, draw, win).
const UNSETTLED: u8 = 3;

/// Positions a task takes at a time (a multiple of 64, so that no two
/// tasks share a word of marks or codes).
const CHUNK: u64 = 1 << 16;

/// Whether `material` (and its mirror) is solved by this solver: it has
/// no men and is not a counted ending (whose tables keep distances under
/// the draw counter, see [`crate::counted_solver`]).
pub(crate) fn applies(material: Material) -> bool {
    material.white_men == 0 && material.black_men == 0 && material.counted_ending().is_none()
}

/// Bytes of working memory beside the pair's values: the sets of fresh
/// marks of its own that a solve keeps (see [`own_mark_sets`]).
pub(crate) fn work_bytes(positions: u64, with_dtc: bool, rule_set: RuleSet) -> u64 {
    own_mark_sets(with_dtc, rule_set) as u64 * positions.div_ceil(64) * 8
}

/// The sets of fresh marks a solve keeps beside the pair's values: two
/// with DTC (even and odd levels); one under the 25-move rule without
/// DTC, which goes by levels too (the capture-mark words carry the odd
/// levels); none otherwise (the capture-mark words carry them all).
fn own_mark_sets(with_dtc: bool, rule_set: RuleSet) -> usize {
    if with_dtc {
        2
    } else if crate::kings_only::level_limit(rule_set, None).is_some() {
        1
    } else {
        0
    }
}

/// Solves the pair of `sides` (a material without men and its mirror, or
/// the material alone if symmetric; values empty), with DTC values if the
/// sides keep them, reading smaller tables through `tb`.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: &[PackedSide],
    progress: &Progress,
) -> Result<(), GenError> {
    let material = sides[0].material;
    let sets = own_mark_sets(sides[0].has_dtc(), rule_set);
    let solver = MenlessSolver {
        sides,
        indexes: sides.iter().map(|s| s.index.clone()).collect(),
        children: ChildTables::new(tb, rule_set, material),
        own_marks: (0..sets)
            .map(|_| sides.iter().map(|s| bit_set(s.len())).collect())
            .collect(),
    };
    let seeds = solver.seed(progress)?;
    let limit = crate::kings_only::level_limit(rule_set, None);
    if sets > 0 {
        let keeps_dtc = sides[0].has_dtc();
        solver.by_levels(
            seeds,
            crate::kings_only::propagation_bound(limit, keeps_dtc),
        );
    } else {
        while solver.visit(0, Visit::All) > 0 {}
    }
    solver.finish(limit, progress)
}

/// One zeroed bit per position.
fn bit_set(len: u64) -> Vec<AtomicU64> {
    (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

/// Per-thread lists reused from position to position: the predecessors
/// visited, their codes, and the moves of one being verified.
#[derive(Default)]
struct Scratch {
    preds: Vec<(u64, u64)>,
    codes: Vec<u8>,
    children: Vec<(u64, u64)>,
}

/// Which fresh positions a pass over the marks visits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// The lost ones, leaving their marks (the first half of a level).
    Lost,
    /// The won ones, clearing every mark (the second half).
    Won,
    /// All, clearing their marks (without DTC).
    All,
}

/// What one solve works on.
struct MenlessSolver<'a> {
    /// The pair's values: side 0 the material, side 1 its mirror (absent
    /// if symmetric).
    sides: &'a [PackedSide],
    indexes: Vec<MaterialIndex>,
    children: ChildTables<'a>,
    /// The fresh marks of even levels (`[0]`) and odd levels (`[1]`), per
    /// side, as far as they are kept here (see [`own_mark_sets`]); the
    /// capture-mark words of the values carry the others.
    own_marks: Vec<Vec<Vec<AtomicU64>>>,
}

impl MenlessSolver<'_> {
    /// The side a move from side `s` leads to.
    fn other(&self, s: usize) -> usize {
        (s + 1) % self.sides.len()
    }

    /// The fresh marks of side `s` for level `level`.
    fn marks(&self, level: u32, s: usize) -> &[AtomicU64] {
        // With one set of its own, the capture-mark words take the odd
        // levels.
        match self.own_marks.get(level as usize % 2) {
            Some(sets) => &sets[s],
            None => self.sides[s].capture_atomics(),
        }
    }

    fn mark(&self, level: u32, s: usize, i: u64) {
        self.marks(level, s)[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }

    fn is_marked(&self, level: u32, s: usize, i: u64) -> bool {
        self.marks(level, s)[(i / 64) as usize].load(Ordering::Relaxed) >> (i % 64) & 1 == 1
    }

    /// Sets the code of position `i` of side `s` to `code` if it is not
    /// settled yet; returns whether it was set here.
    fn settle(&self, s: usize, i: u64, code: u8) -> bool {
        let word = &self.sides[s].code_atomics()[(i / 32) as usize];
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

    /// The chunks of every side: `(side, first position, count)`.
    fn chunks(&self) -> Vec<(usize, u64, u64)> {
        let mut chunks = Vec::new();
        for (s, side) in self.sides.iter().enumerate() {
            let mut start = 0;
            while start < side.len() {
                let count = CHUNK.min(side.len() - start);
                chunks.push((s, start, count));
                start += count;
            }
        }
        chunks
    }

    /// The first look at every position: a capture position's value from
    /// the smaller tables (level 1), a position without a move lost (level
    /// 0), every other one not settled. Marks the settled ones fresh at
    /// their level; returns how many were marked at level 1.
    fn seed(&self, progress: &Progress) -> Result<u64, GenError> {
        self.chunks()
            .into_par_iter()
            .map_init(Vec::new, |moves, (s, start, count)| {
                let seeded = self.seed_chunk(s, start, count, moves)?;
                progress.advance(count / 2);
                Ok(seeded)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }

    fn seed_chunk(
        &self,
        s: usize,
        start: u64,
        count: u64,
        moves: &mut Vec<Move>,
    ) -> Result<u64, GenError> {
        let side = &self.sides[s];
        let mut codes = 0u64;
        let mut seeded = 0;
        let walk = self.indexes[s].king_walk(0, start).take(count as usize);
        for (i, (wk, bk)) in (start..).zip(walk) {
            let pos = Position::from_dense_masks(Color::White, wk, bk, wk | bk)
                .map_err(|e| GenError::Internal(format!("position without men: {e}")))?;
            let code = if pos.has_capture() {
                let wdl = self.children.capture_value(&pos, moves)?;
                if wdl != Wdl::Draw {
                    self.mark(1, s, i);
                    side.store_dtc(i, 1);
                    seeded += 1;
                }
                wdl.code()
            } else if dense::king_move_count(wk, wk | bk) == 0 {
                self.mark(0, s, i);
                side.store_dtc(i, 0);
                Wdl::Loss.code()
            } else {
                UNSETTLED
            };
            codes |= u64::from(code) << (2 * (i % 32));
            if i % 32 == 31 || i + 1 == start + count {
                side.code_atomics()[(i / 32) as usize].store(codes, Ordering::Relaxed);
                codes = 0;
            }
        }
        Ok(seeded)
    }

    /// Visits level after level, the lost positions of a level before its
    /// won ones (so that a position found lost has every move leading to a
    /// position won at that level or before), up to the last level a
    /// position may settle at (`limit`, the 25-move rule's; see
    /// [`crate::kings_only`]). `seeds` were marked at level 1 before level
    /// 0 was visited.
    fn by_levels(&self, seeds: u64, limit: Option<u32>) {
        let mut level = 0;
        while !crate::kings_only::past(limit, level + 1) {
            let settled = self.visit(level, Visit::Lost) + self.visit(level, Visit::Won);
            if settled == 0 && !(level == 0 && seeds > 0) {
                break;
            }
            level += 1;
        }
    }

    /// Visits the fresh positions of `level` that `which` names; returns
    /// how many positions it settled (marked fresh at `level + 1`).
    fn visit(&self, level: u32, which: Visit) -> u64 {
        let words: Vec<(usize, usize)> = (0..self.sides.len())
            .flat_map(|s| {
                let n = self.marks(level, s).len();
                (0..n.div_ceil(1024)).map(move |c| (s, c * 1024))
            })
            .collect();
        words
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (s, first)| {
                let marks = self.marks(level, s);
                let end = marks.len().min(first + 1024);
                let mut settled = 0;
                for (w, word) in marks.iter().enumerate().take(end).skip(first) {
                    let bits = if which == Visit::Lost {
                        word.load(Ordering::Relaxed)
                    } else {
                        word.swap(0, Ordering::Relaxed)
                    };
                    settled += self.visit_word(level, which, (s, w as u64, bits), scratch);
                }
                settled
            })
            .sum()
    }

    /// Visits the fresh positions `64 * w + j` of side `s` for the bits
    /// `j` of `bits`.
    fn visit_word(
        &self,
        level: u32,
        which: Visit,
        (s, w, mut bits): (usize, u64, u64),
        scratch: &mut Scratch,
    ) -> u64 {
        let mut settled = 0;
        while bits != 0 {
            let i = 64 * w + u64::from(bits.trailing_zeros());
            bits &= bits - 1;
            let lost = self.sides[s].code(i) == Wdl::Loss.code();
            let wanted = match which {
                Visit::Lost => lost,
                Visit::Won => !lost,
                Visit::All => true,
            };
            if wanted {
                settled += self.visit_position(level, (s, i, lost), scratch);
            }
        }
        settled
    }

    /// Settles the predecessors of position `i` of side `s`, which is
    /// lost (`lost`) or won; returns how many it settled.
    fn visit_position(
        &self,
        level: u32,
        (s, i, lost): (usize, u64, bool),
        scratch: &mut Scratch,
    ) -> u64 {
        let t = self.other(s);
        let (wk, bk) = self.indexes[s].unrank_kings(0, i);
        // A predecessor, stored White to move, has the flipped kings: its
        // white kings are our black kings with one moved back.
        let Scratch {
            preds,
            codes,
            children,
        } = scratch;
        self.king_moves(t, (dense::flip(bk), dense::flip(wk)), true, preds);
        // Their codes are read all at once, so that the reads (mostly
        // cache misses) overlap.
        codes.clear();
        codes.extend(preds.iter().map(|&(p, _)| self.sides[t].code(p)));
        let mut settled = 0;
        for (&code, &(p, p_white)) in codes.iter().zip(preds.iter()) {
            if code != UNSETTLED {
                continue;
            }
            let code = if lost {
                Wdl::Win.code()
            } else if self.every_move_wins_for_them(level, t, (p_white, dense::flip(wk)), children)
            {
                Wdl::Loss.code()
            } else {
                continue;
            };
            if self.settle(t, p, code) {
                self.mark(level + 1, t, p);
                self.sides[t].store_dtc(p, level + 1);
                settled += 1;
            }
        }
        settled
    }

    /// Lists in `out` the positions of side `t` (stored White to move) one
    /// king move away from the kings `(white, black)`: a white king moved
    /// if `white_moves` (the predecessors of a position whose
    /// colour-flipped kings these are), else a black king (the moves of a
    /// position whose colour-flipped kings these are). Each comes as its
    /// index and the new kings of the colour moved. Returns how many.
    fn king_moves(
        &self,
        t: usize,
        (white, black): (u64, u64),
        white_moves: bool,
        out: &mut Vec<(u64, u64)>,
    ) {
        out.clear();
        let occupied = white | black;
        let movers = if white_moves { white } else { black };
        let mut rest = movers;
        while rest != 0 {
            let from = rest.trailing_zeros();
            rest &= rest - 1;
            let others = movers ^ (1 << from);
            let index = &self.indexes[t];
            let ranks = if white_moves {
                MoveRanks::White(index.king_move_ranks(0, others, black))
            } else {
                MoveRanks::Black(index.black_king_move_ranks(0, white, others))
            };
            for ray in &dense::RAYS[from as usize] {
                for &to in ray.squares() {
                    if occupied >> to & 1 == 1 {
                        break;
                    }
                    let to = u32::from(to);
                    out.push((ranks.rank_with(to), others | 1 << to));
                }
            }
        }
    }

    /// Whether every king move of a position of side `t` (its kings
    /// `(wk, bk)`) leads to a position won for the side then to move (with
    /// DTC: won at `level` or before, not marked fresh for the next level).
    fn every_move_wins_for_them(
        &self,
        level: u32,
        t: usize,
        (wk, bk): (u64, u64),
        children: &mut Vec<(u64, u64)>,
    ) -> bool {
        let u = self.other(t);
        // The moves' positions, stored White to move in side `u`: our
        // kings, flipped, are their black kings, one of them moved.
        self.king_moves(u, (dense::flip(bk), dense::flip(wk)), false, children);
        // Read together (see `visit_position`), then looked at.
        let mut wins = true;
        for &(c, _) in children.iter() {
            wins &= self.sides[u].code(c) == Wdl::Win.code();
        }
        if !wins {
            return false;
        }
        let levels = !self.own_marks.is_empty();
        !levels
            || children
                .iter()
                .all(|&(c, _)| !self.is_marked(level + 1, u, c))
    }

    /// Ends the solve: what is not settled is drawn, and so is what
    /// settled past the 25-move rule's `limit` (only where DTC bytes are
    /// kept do the levels go on past it: see [`crate::kings_only`]); the
    /// capture marks are set (without DTC their bits carried the fresh
    /// marks).
    fn finish(&self, limit: Option<u32>, progress: &Progress) -> Result<(), GenError> {
        self.chunks()
            .into_par_iter()
            .try_for_each(|(s, start, count)| {
                self.finish_chunk(s, (start, count), limit)?;
                progress.advance(count - count / 2);
                Ok(())
            })
    }

    fn finish_chunk(
        &self,
        s: usize,
        (start, count): (u64, u64),
        limit: Option<u32>,
    ) -> Result<(), GenError> {
        let side = &self.sides[s];
        const LOW: u64 = 0x5555_5555_5555_5555;
        let draw = u64::from(Wdl::Draw.code());
        for w in start / 32..(start + count).div_ceil(32) {
            let word = &side.code_atomics()[w as usize];
            let mut codes = word.load(Ordering::Relaxed);
            // Code 3 (both bits) becomes 1: its high bit cleared.
            let unsettled = codes & (codes >> 1) & LOW;
            codes &= !(unsettled << 1);
            if let Some(limit) = limit.filter(|_| side.has_dtc()) {
                for j in 0..32.min(side.len() - 32 * w) {
                    if u32::from(side.dtc(32 * w + j)) > limit && (codes >> (2 * j)) & 3 != draw {
                        codes = codes & !(3 << (2 * j)) | draw << (2 * j);
                    }
                }
            }
            word.store(codes, Ordering::Relaxed);
        }
        let mut marks = 0u64;
        let walk = self.indexes[s].king_walk(0, start).take(count as usize);
        for (i, (wk, bk)) in (start..).zip(walk) {
            let pos = Position::from_dense_masks(Color::White, wk, bk, wk | bk)
                .map_err(|e| GenError::Internal(format!("position without men: {e}")))?;
            marks |= u64::from(pos.has_capture()) << (i % 64);
            if i % 64 == 63 || i + 1 == start + count {
                side.capture_atomics()[(i / 64) as usize].store(marks, Ordering::Relaxed);
                marks = 0;
            }
        }
        Ok(())
    }
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
