//! The solver for materials without men: bit-set retrograde analysis, by
//! levels, in 2 bits a position and a little (with DTC: 3 bits and two
//! bit sets, besides the DTC bytes).
//!
//! A material without men is one slice: every king move stays in the pair.
//! The slice solver ([`crate::solvers::slice`]) keeps a 16-bit counter and a
//! seed byte per position and 32-bit node numbers, which caps it at 4 G
//! positions and 3 bytes each: `KKKK-KKK` with its mirror (7.0 G
//! positions) needs 21 GB that way, and `KKK-KKKKK` with its mirror (60.1
//! G) 210 GB. This solver keeps no counters. A position's state is its
//! code in the pair's own values (2 bits), while solving:
//!
//! - `LOSS` and `WIN`: settled, lost or won for the side to move;
//! - `UNSETTLED` (the spare code 3): not settled yet, and also a capture
//!   position whose captures only draw (so that a draw code is free), which
//!   is never settled by a king move into it: a position that must capture
//!   has no king moves, and a capture test keeps it out;
//! - `NEXT_LOSS` (the draw code, free while solving): lost, settled in the
//!   pass that finds losses of the next level, so that the pass that
//!   finds wins from this level's losses does not take it for one.
//!
//! The levels are those of the slice solver: a position without moves is
//! lost at level 0, a capture position takes its value from smaller
//! tables at level 1, and from the positions settled at a level those of
//! the next one follow. First from the won ones: every predecessor not
//! settled is *verified*, its king moves generated again, and lost
//! (`NEXT_LOSS`) when every one leads to a won position, which can only be
//! one of this level or before. Then from the lost ones: every predecessor
//! not settled is won. Then the next level's `NEXT_LOSS` become `LOSS`.
//! What is never settled is drawn; so is what would settle past the
//! 25-move rule's limit (see [`crate::solvers::kings_only`]).
//!
//! *Fresh marks* say which positions settled at a level ([`Marks`]).
//! Exact marks are a bit a position for even levels and one for odd
//! ones; with DTC they are always exact, and the levels are the DTC. A
//! pair too big for exact marks without DTC gets a mark per block of
//! [`MARK_BLOCK`](plan::memory::MARK_BLOCK) positions (so two sets take 1/128 bit a position): a level
//! visits every settled position of a marked block, the fresh ones and
//! older ones beside them, but for capture positions at every level other
//! than theirs, 1 (visited at level 0, a lost one would give its
//! predecessors level 1 instead of 2). Visiting an older one again
//! settles nothing new: the predecessors of an older lost position are
//! won already (or must capture), and a predecessor an older won one
//! verifies again is lost only if every move of it leads to a won
//! position, which became true at this level only (had it been true
//! before, the last of those positions to settle would have settled it
//! then). Without DTC the capture marks are not kept while solving; the
//! table writer finds them again, a window at a time ([`capture_words`]).
//!
//! Pairs small enough for the slice solver's memory (at most
//! [`MENLESS_SLICE_FACTOR`](plan::memory::MENLESS_SLICE_FACTOR)
//! times [`GenOptions::bitset_slices_above`](crate::GenOptions)
//! positions: by default every material without men up to six pieces) are
//! solved by it instead, which is faster where it fits
//! ([`plan::memory::menless_in_two_bits`]).
//!
//! `tests` in [`crate::solvers::group`] compare this solver, with either
//! marks, with the slice solver value by value, with and without DTC.

use std::sync::atomic::{AtomicU64, Ordering};

use format::{Material, MaterialIndex, RuleSet, Wdl};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{dense, Color, Move, Position};

use crate::solvers::bit_codes::{
    field_mask, promote_word, settled_fields, KingMoves, LOSS, LOW, NEXT_LOSS, UNSETTLED, WIN,
};
use crate::solvers::captures::ChildTables;
use crate::values::PackedSide;
use plan::memory::Marks;
use plan::GenError;
use plan::Progress;

/// Positions a task takes at a time (a multiple of 64, so that no two
/// tasks share a word of codes or of capture marks).
const CHUNK: u64 = 1 << 16;

/// Empty values for the pair of `material` (without men) as this solver
/// keeps them: codes only without DTC, codes, capture marks and DTC bytes
/// with.
pub(crate) fn pair_sides(material: Material, with_dtc: bool) -> Result<Vec<PackedSide>, GenError> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    materials
        .into_iter()
        .map(|m| {
            if with_dtc {
                PackedSide::new(m, true)
            } else {
                PackedSide::codes_only(m)
            }
        })
        .collect()
}

/// Solves the pair of `sides` (from [`pair_sides`]; a material without men
/// and its mirror, or the material alone if symmetric), with DTC values if
/// the sides keep them, with fresh marks as `marks` says (exact with DTC),
/// reading smaller tables through `tb`. Returns the deepest level at
/// which a position settled (see `SliceSolver::deepest`).
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: &[PackedSide],
    marks: Marks,
    progress: &Progress,
) -> Result<u32, GenError> {
    let material = sides[0].material;
    let with_dtc = sides[0].has_dtc();
    if with_dtc && marks != Marks::Exact {
        return Err(GenError::Internal(
            "a solve with DTC needs exact marks".into(),
        ));
    }
    let per_mark = marks.positions_per_mark();
    let solver = MenlessSolver {
        sides,
        indexes: sides.iter().map(|s| s.index.clone()).collect(),
        children: ChildTables::new(tb, rule_set, material),
        shift: per_mark.trailing_zeros(),
        marks: [0, 1].map(|_| {
            sides
                .iter()
                .map(|s| bit_set(s.len().div_ceil(per_mark)))
                .collect()
        }),
    };
    solver.seed(progress)?;
    let limit = crate::solvers::kings_only::level_limit(rule_set, None);
    let deepest = solver.by_levels(
        crate::solvers::kings_only::propagation_bound(limit, with_dtc),
        progress,
    );
    solver.finish(limit, progress)?;
    Ok(deepest)
}

/// One zeroed bit per item.
fn bit_set(len: u64) -> Vec<AtomicU64> {
    (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

/// The position of a side of a pair without men with the kings `(white,
/// black)`, White to move.
fn position(white: u64, black: u64) -> Result<Position, GenError> {
    Position::from_dense_masks(Color::White, white, black, white | black)
        .map_err(|e| GenError::Internal(format!("position without men: {e}")))
}

/// Whether White, to move with the kings `(white, black)`, must capture.
#[inline]
fn must_capture(white: u64, black: u64) -> bool {
    dense::kings_can_capture(white, black, white | black)
}

/// The capture marks of positions `start..start + count` of the material
/// without men whose index is `index` (`start` a multiple of 64): bit `j`
/// of word `w` for position `start + 64 w + j`.
pub(crate) fn capture_words(index: &MaterialIndex, start: u64, count: u64) -> Vec<u64> {
    debug_assert!(start.is_multiple_of(64));
    let chunks: Vec<u64> = (start..start + count).step_by(CHUNK as usize).collect();
    chunks
        .into_par_iter()
        .flat_map_iter(|first| {
            let n = CHUNK.min(start + count - first);
            let mut words = vec![0u64; n.div_ceil(64) as usize];
            let walk = index.king_walk(0, first).take(n as usize);
            for (j, (wk, bk)) in walk.enumerate() {
                words[j / 64] |= u64::from(must_capture(wk, bk)) << (j % 64);
            }
            words
        })
        .collect()
}

/// Per-thread lists reused from position to position: the predecessors
/// visited, their codes, and the moves of one being verified.
#[derive(Default)]
struct Scratch {
    preds: Vec<(u64, u64)>,
    codes: Vec<u8>,
    children: Vec<(u64, u64)>,
}

/// Which settled positions of a level a pass visits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// The won ones: their predecessors are verified (the first pass).
    Won,
    /// The lost ones: their predecessors are won (the second pass, which
    /// clears the level's marks).
    Lost,
}

/// What one solve works on.
struct MenlessSolver<'a> {
    /// The pair's values: side 0 the material, side 1 its mirror (absent
    /// if symmetric).
    sides: &'a [PackedSide],
    indexes: Vec<MaterialIndex>,
    children: ChildTables<'a>,
    /// A fresh mark stands for `1 << shift` positions.
    shift: u32,
    /// The fresh marks of even levels (`[0]`) and odd levels (`[1]`), per
    /// side.
    marks: [Vec<Vec<AtomicU64>>; 2],
}

impl MenlessSolver<'_> {
    /// The side a move from side `s` leads to.
    fn other(&self, s: usize) -> usize {
        (s + 1) % self.sides.len()
    }

    /// The fresh marks of side `s` for level `level`.
    fn marks(&self, level: u32, s: usize) -> &[AtomicU64] {
        &self.marks[level as usize % 2][s]
    }

    /// Marks position `i` of side `s` fresh at `level` (its block, without
    /// DTC).
    fn mark(&self, level: u32, s: usize, i: u64) {
        let unit = i >> self.shift;
        self.marks(level, s)[(unit / 64) as usize].fetch_or(1 << (unit % 64), Ordering::Relaxed);
    }

    /// Sets the code of position `i` of side `s` to `code` if it is not
    /// settled yet; returns whether it was set here.
    fn settle(&self, s: usize, i: u64, code: u8) -> bool {
        crate::solvers::bit_codes::settle(self.sides[s].code_atomics(), i, code)
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
    /// the smaller tables (level 1; one that only draws stays
    /// `UNSETTLED`), a position without a move lost (level 0), every other
    /// one not settled.
    fn seed(&self, progress: &Progress) -> Result<(), GenError> {
        self.chunks()
            .into_par_iter()
            .try_for_each_init(Vec::new, |moves, (s, start, count)| {
                self.seed_chunk(s, start, count, moves)?;
                progress.advance(count / 2);
                Ok(())
            })
    }

    fn seed_chunk(
        &self,
        s: usize,
        start: u64,
        count: u64,
        moves: &mut Vec<Move>,
    ) -> Result<(), GenError> {
        let side = &self.sides[s];
        let mut codes = 0u64;
        let walk = self.indexes[s].king_walk(0, start).take(count as usize);
        for (i, (wk, bk)) in (start..).zip(walk) {
            // The capture test on masks first: a position is built only
            // to find its captures' value.
            let code = if must_capture(wk, bk) {
                match self.children.capture_value(&position(wk, bk)?, moves)? {
                    Wdl::Draw => UNSETTLED,
                    wdl => {
                        self.mark(1, s, i);
                        side.store_dtc(i, 1);
                        wdl.code()
                    }
                }
            } else if dense::king_move_count(wk, wk | bk) == 0 {
                self.mark(0, s, i);
                side.store_dtc(i, 0);
                LOSS
            } else {
                UNSETTLED
            };
            codes |= u64::from(code) << (2 * (i % 32));
            if i % 32 == 31 || i + 1 == start + count {
                side.code_atomics()[(i / 32) as usize].store(codes, Ordering::Relaxed);
                codes = 0;
            }
        }
        Ok(())
    }

    /// Visits level after level up to the last level a position may settle
    /// at (`bound`; see [`crate::solvers::kings_only`]), until one settles nothing.
    /// The levels do not move `progress` (how many there will be is not
    /// known); its message names the level being visited. Returns the
    /// deepest level at which a position settled.
    fn by_levels(&self, bound: Option<u32>, progress: &Progress) -> u32 {
        let (mut level, mut deepest) = (0, 0);
        while !crate::solvers::kings_only::past(bound, level + 1) {
            progress.level(level);
            let settled = self.visit(level, Visit::Won) + self.visit(level, Visit::Lost);
            self.promote(level + 1);
            if settled > 0 {
                deepest = level + 1;
            }
            // Level 0 (positions without moves) may settle nothing while
            // level 1 holds the capture positions.
            if settled == 0 && level > 0 {
                break;
            }
            level += 1;
        }
        deepest
    }

    /// The units (positions, or blocks without DTC) marked fresh at
    /// `level`, a task's worth at a time: `(side, first mark word, end)`.
    fn mark_tasks(&self, level: u32) -> Vec<(usize, usize, usize)> {
        (0..self.sides.len())
            .flat_map(|s| {
                crate::solvers::bit_codes::mark_tasks(self.marks(level, s).len())
                    .map(move |(first, end)| (s, first, end))
            })
            .collect()
    }

    /// Visits the settled positions of the units marked at `level` that
    /// `which` names (see [`Visit`]); returns how many positions it
    /// settled (at `level + 1`).
    fn visit(&self, level: u32, which: Visit) -> u64 {
        self.mark_tasks(level)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (s, first, end)| {
                let marks = self.marks(level, s);
                let mut settled = 0;
                for (w, word) in marks.iter().enumerate().take(end).skip(first) {
                    let mut bits = match which {
                        Visit::Won => word.load(Ordering::Relaxed),
                        Visit::Lost => word.swap(0, Ordering::Relaxed),
                    };
                    while bits != 0 {
                        let unit = 64 * w as u64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        settled += self.visit_unit(level, which, (s, unit), scratch);
                    }
                }
                settled
            })
            .sum()
    }

    /// Visits the positions of unit `unit` of side `s` that `which` names.
    /// Without DTC a unit is a block, whose older settled positions are
    /// visited again (see the module's comment), but for capture
    /// positions, which are fresh only at level 1.
    fn visit_unit(
        &self,
        level: u32,
        which: Visit,
        (s, unit): (usize, u64),
        scratch: &mut Scratch,
    ) -> u64 {
        let side = &self.sides[s];
        let first = unit << self.shift;
        let end = ((unit + 1) << self.shift).min(side.len());
        let skip_captures = self.shift > 0 && level != 1;
        let mut settled = 0;
        for w in first / 32..end.div_ceil(32) {
            let codes = side.code_atomics()[w as usize].load(Ordering::Relaxed);
            let mut wanted =
                settled_fields(codes, which == Visit::Won) & field_mask(w * 32, first, end);
            while wanted != 0 {
                let i = 32 * w + u64::from(wanted.trailing_zeros() / 2);
                wanted &= wanted - 1;
                let kings = self.indexes[s].unrank_kings(0, i);
                if skip_captures && must_capture(kings.0, kings.1) {
                    continue;
                }
                let lost = which == Visit::Lost;
                settled += self.visit_position(level, (s, lost), kings, scratch);
            }
        }
        settled
    }

    /// Settles the predecessors of a position of side `s` with the kings
    /// `(wk, bk)`, lost (`lost`) or won, at `level + 1`; returns how many
    /// it settled.
    fn visit_position(
        &self,
        level: u32,
        (s, lost): (usize, bool),
        (wk, bk): (u64, u64),
        scratch: &mut Scratch,
    ) -> u64 {
        let t = self.other(s);
        // A predecessor, stored White to move, has the flipped kings: its
        // white kings are our black kings with one moved back.
        let Scratch {
            preds,
            codes,
            children,
        } = scratch;
        let black = dense::flip(wk);
        self.moves_in(t).all((dense::flip(bk), black), true, preds);
        // Their codes are read all at once, so that the reads (mostly
        // cache misses) overlap.
        codes.clear();
        codes.extend(preds.iter().map(|&(p, _)| self.sides[t].code(p)));
        let mut settled = 0;
        for (&code, &(p, white)) in codes.iter().zip(preds.iter()) {
            // A position that must capture (and only draws) has no king
            // moves to be settled by.
            if code != UNSETTLED || must_capture(white, black) {
                continue;
            }
            let code = if lost {
                WIN
            } else if self.every_move_wins_for_them(t, (white, black), children) {
                NEXT_LOSS
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

    /// The king moves between positions of side `t` (stored White to
    /// move): [`KingMoves::all`] with white moves lists the predecessors
    /// of a position whose colour-flipped kings it is given, with black
    /// moves the moves of one.
    fn moves_in(&self, t: usize) -> KingMoves<'_> {
        KingMoves {
            index: &self.indexes[t],
            men: 0,
            first: 0,
        }
    }

    /// Whether every king move of a position of side `t` (its kings
    /// `(wk, bk)`) leads to a position won for the side then to move. No
    /// position is won at the next level yet when this is asked.
    fn every_move_wins_for_them(
        &self,
        t: usize,
        (wk, bk): (u64, u64),
        children: &mut Vec<(u64, u64)>,
    ) -> bool {
        let u = self.other(t);
        // The moves' positions, stored White to move in side `u`: our
        // kings, flipped, are their black kings, one of them moved.
        let kings = (dense::flip(bk), dense::flip(wk));
        let codes = &self.sides[u];
        self.moves_in(u)
            .every_black_move(kings, children, |c| codes.code(c) == WIN)
    }

    /// Makes the positions found lost for `level` (`NEXT_LOSS`) lost.
    /// Every one is in a unit marked at `level`.
    fn promote(&self, level: u32) {
        self.mark_tasks(level)
            .into_par_iter()
            .for_each(|(s, first, end)| {
                let (side, marks) = (&self.sides[s], self.marks(level, s));
                for (w, word) in marks.iter().enumerate().take(end).skip(first) {
                    let mut bits = word.load(Ordering::Relaxed);
                    while bits != 0 {
                        let unit = 64 * w as u64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let first = unit << self.shift;
                        let end = ((unit + 1) << self.shift).min(side.len());
                        for c in first / 32..end.div_ceil(32) {
                            promote_word(&side.code_atomics()[c as usize]);
                        }
                    }
                }
            });
    }

    /// Ends the solve: what is not settled is drawn, and so is what
    /// settled past the 25-move rule's `limit` (only where DTC bytes are
    /// kept do the levels go on past it: see [`crate::solvers::kings_only`]); the
    /// capture marks are set where they are kept.
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
        let draw = u64::from(Wdl::Draw.code());
        for w in start / 32..(start + count).div_ceil(32) {
            let word = &side.code_atomics()[w as usize];
            let mut codes = word.load(Ordering::Relaxed);
            if codes & !(codes >> 1) & LOW != 0 {
                return Err(GenError::Internal(
                    "a position found lost was left unmarked".into(),
                ));
            }
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
        if side.has_captures() {
            let marks = capture_words(&self.indexes[s], start, count);
            for (w, marks) in (start / 64..).zip(marks) {
                side.capture_atomics()[w as usize].store(marks, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}
