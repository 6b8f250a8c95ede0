//! Huge slices in 2 bits a position: the bit-set method of the materials
//! without men ([`crate::solvers::menless`]), exits added.
//!
//! [`SliceSolver::solve_big`] keeps a 16-bit cell, a seed byte and 32-bit
//! node numbers in its waves: up to 10 bytes a position at its peak
//! (measured), and at most 4 G positions a slice. A slice of the one-man
//! pairs of seven kings at eight pieces (`KKK-KKKKM`: 3.0 G king
//! placements a side, 6.0 G positions) does not fit its numbers. This path keeps a
//! 2-bit code a position and a fresh mark per block of positions (exact
//! marks, a bit a position, where DTC bytes are kept), with the codes and
//! passes of the menless solver:
//!
//! - `LOSS`, `WIN`: settled; `UNSETTLED` (code 3): not settled yet, or a
//!   capture position whose captures only draw, or a position without
//!   king moves whose exits draw (neither is ever a predecessor: a capture
//!   test keeps the first out, the second has no king move);
//! - `NEXT_LOSS` (the draw code, free while solving): lost, found for the
//!   next level.
//!
//! The seeds are [`SliceSolver::examine`]'s: a capture position's value,
//! a win by an exit (a man step or a crowning into a lost position), a
//! loss without king moves, at level 1 (0 without any move). A position
//! verified from a won successor is lost when every king move of it leads
//! to a won position **and no exit of it draws**: its exits are examined
//! again then (an exit that wins would have settled it as a seed). So the
//! counters and escape flags of the slice solver are not kept, only found
//! again where they decide.
//!
//! Marks per block: a level visits every settled position of a marked
//! block, older ones too; the menless solver's argument holds (an older
//! lost position's predecessors are won already; an older won one verifies
//! a predecessor lost only if that became true at this level), but for
//! level 0, whose blocks may hold seeds of level 1: level 0 visits only
//! the positions without any move, and capture positions are visited at
//! level 1 only.
//!
//! The same values and levels as the other paths: `tests` in
//! [`crate::solvers::group`] compare them value by value, DTC too.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use rules::{dense, Move};

use super::{other_part, Parts, SliceSolver, FLAG_CAPTURE, FLAG_ESCAPE, NODE_LOST, NODE_WON};
use crate::solvers::bit_codes::{
    field_mask, promote_word, settled_fields, KingMoves, BLOCK, LOSS, NEXT_LOSS, UNSETTLED, WIN,
};
use crate::solvers::kings_only;
use plan::groups::Slice;
use plan::GenError;
use plan::Progress;

/// Positions a task of the seed and the finish takes at a time.
const CHUNK: u64 = 1 << 16;

/// Which settled positions of a level a pass visits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// The won ones: their predecessors are verified.
    Won,
    /// The lost ones: their predecessors are won (this pass clears the
    /// level's marks).
    Lost,
}

/// Per-thread lists reused from position to position.
#[derive(Default)]
struct Scratch {
    preds: Vec<(u64, u64)>,
    codes: Vec<u8>,
    children: Vec<(u64, u64)>,
    moves: Vec<Move>,
}

/// One slice being solved: its parts (see [`SliceSolver::parts`]), a code
/// per node (node `x * kings + k`: king placement `k` of part `x`) and
/// the fresh marks of even and odd levels.
struct BitsetSlice<'s, 'a> {
    solver: &'s SliceSolver<'a>,
    parts: Parts,
    kings: u64,
    nodes: u64,
    codes: Vec<AtomicU64>,
    /// A fresh mark stands for `1 << shift` nodes.
    shift: u32,
    marks: [Vec<AtomicU64>; 2],
}

impl SliceSolver<'_> {
    /// Solves one slice with every thread in 2 bits a position (see the
    /// module's comment); the same values, DTC too, as
    /// [`SliceSolver::solve_big`]. Returns its positions.
    pub(crate) fn solve_bitset(&self, slice: &Slice, progress: &Progress) -> Result<u64, GenError> {
        let parts = self.parts(slice)?;
        let kings = self.indexes[0].king_placements();
        let nodes = parts.len() as u64 * kings;
        let with_dtc = self.write.keeps_dtc();
        let per_mark = if with_dtc { 1 } else { BLOCK };
        let zeroed = |bits: u64| (0..bits.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let run = BitsetSlice {
            solver: self,
            parts,
            kings,
            nodes,
            codes: zeroed(2 * nodes),
            shift: per_mark.trailing_zeros(),
            marks: [
                zeroed(nodes.div_ceil(per_mark)),
                zeroed(nodes.div_ceil(per_mark)),
            ],
        };
        run.seed(progress)?;
        let limit = self.level_limit();
        let deepest = run.by_levels(self.propagation_bound(limit))?;
        self.deepest.fetch_max(deepest, Ordering::Relaxed);
        run.finish(limit, progress)?;
        Ok(nodes)
    }
}

impl BitsetSlice<'_, '_> {
    #[inline]
    fn code(&self, node: u64) -> u8 {
        crate::solvers::bit_codes::code(&self.codes, node)
    }

    /// Sets node `node`'s code to `code` if it is not settled yet; returns
    /// whether it was set here.
    fn settle(&self, node: u64, code: u8) -> bool {
        crate::solvers::bit_codes::settle(&self.codes, node, code)
    }

    fn marks(&self, level: u32) -> &[AtomicU64] {
        &self.marks[level as usize % 2]
    }

    /// Marks node `node` (its block, without DTC) fresh at `level`.
    fn mark(&self, level: u32, node: u64) {
        let unit = node >> self.shift;
        self.marks(level)[(unit / 64) as usize].fetch_or(1 << (unit % 64), Ordering::Relaxed);
    }

    /// Records that node `node` settled at `level`: its mark and its DTC.
    fn settled_at(&self, level: u32, node: u64) {
        self.mark(level, node);
        self.solver.store_dtc(&self.parts, node as usize, level);
    }

    /// The part of node `node`, and its kings `(white, black)`.
    fn kings_of(&self, node: u64) -> (usize, (u64, u64)) {
        let (x, _, wk, bk) = self.solver.node_kings(&self.parts, node as usize);
        (x, (wk, bk))
    }

    /// Whether the side to move in part `x` with the kings `(wk, bk)`
    /// must capture.
    #[inline]
    fn must_capture(&self, x: usize, (wk, bk): (u64, u64)) -> bool {
        let part = &self.parts[x];
        let occupied = part.men() | wk | bk;
        dense::can_capture(part.white_men, wk, part.black_men | bk, occupied)
    }

    /// The tasks of the seed and the finish: node ranges.
    fn chunks(&self) -> Vec<(u64, u64)> {
        (0..self.nodes.div_ceil(CHUNK))
            .map(|c| (c * CHUNK, self.nodes.min((c + 1) * CHUNK)))
            .collect()
    }

    /// The first look at every node ([`SliceSolver::examine`]): the
    /// seeds settled and marked, every other node `UNSETTLED`.
    fn seed(&self, progress: &Progress) -> Result<(), GenError> {
        self.chunks()
            .into_par_iter()
            .try_for_each_init(Vec::new, |moves, (start, end)| {
                self.seed_chunk(start, end, moves)?;
                progress.advance((end - start) / 2);
                Ok(())
            })
    }

    fn seed_chunk(&self, start: u64, end: u64, moves: &mut Vec<Move>) -> Result<(), GenError> {
        let mut codes = 0u64;
        let nodes = start as usize..end as usize;
        self.solver
            .for_each_node(&self.parts, nodes, |node, (wk, bk)| {
                let node = node as u64;
                let x = (node / self.kings) as usize;
                let to = &self.parts[other_part(&self.parts, x)];
                let init = self.solver.examine(&self.parts[x], to, wk, bk, moves)?;
                let code = match init.state {
                    NODE_WON => WIN,
                    NODE_LOST => LOSS,
                    _ => UNSETTLED,
                };
                if code != UNSETTLED {
                    self.settled_at(u32::from(init.level), node);
                }
                codes |= u64::from(code) << (2 * (node % 32));
                if node % 32 == 31 || node + 1 == end {
                    // Chunks start at multiples of 64, so a word is one task's.
                    self.codes[(node / 32) as usize].store(codes, Ordering::Relaxed);
                    codes = 0;
                }
                Ok(())
            })
    }

    /// Visits level after level up to `bound` (see [`crate::solvers::kings_only`]),
    /// until one settles nothing; returns the deepest level at which a
    /// node settled.
    fn by_levels(&self, bound: Option<u32>) -> Result<u32, GenError> {
        let (mut level, mut deepest) = (0, 0);
        while !kings_only::past(bound, level + 1) {
            // Nothing is won at level 0 (a win takes a move).
            let won = if level == 0 {
                0
            } else {
                self.visit(level, Visit::Won)?
            };
            let settled = won + self.visit(level, Visit::Lost)?;
            self.promote(level + 1);
            if settled > 0 {
                deepest = level + 1;
            }
            // Level 0 may settle nothing while level 1 holds the seeds.
            if settled == 0 && level > 0 {
                break;
            }
            level += 1;
        }
        Ok(deepest)
    }

    /// The mark words of `level`, a task's worth at a time (see
    /// [`crate::solvers::bit_codes::mark_tasks`]).
    fn mark_tasks(&self, level: u32) -> Vec<(usize, usize)> {
        crate::solvers::bit_codes::mark_tasks(self.marks(level).len()).collect()
    }

    /// Visits the settled nodes of the units marked at `level` that
    /// `which` names; returns how many nodes it settled (at `level + 1`).
    fn visit(&self, level: u32, which: Visit) -> Result<u64, GenError> {
        self.mark_tasks(level)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (first, end)| {
                let marks = self.marks(level);
                let mut settled = 0;
                for (w, word) in marks.iter().enumerate().take(end).skip(first) {
                    let mut bits = match which {
                        Visit::Won => word.load(Ordering::Relaxed),
                        Visit::Lost => word.swap(0, Ordering::Relaxed),
                    };
                    while bits != 0 {
                        let unit = 64 * w as u64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        settled += self.visit_unit(level, which, unit, scratch)?;
                    }
                }
                Ok(settled)
            })
            .sum()
    }

    /// Visits the nodes of unit `unit` that `which` names. Without DTC a
    /// unit is a block: level 0 takes only its nodes without any move, and
    /// levels past 1 skip its capture positions (see the module's
    /// comment).
    fn visit_unit(
        &self,
        level: u32,
        which: Visit,
        unit: u64,
        scratch: &mut Scratch,
    ) -> Result<u64, GenError> {
        let first = unit << self.shift;
        let end = ((unit + 1) << self.shift).min(self.nodes);
        let blocks = self.shift > 0;
        let mut settled = 0;
        for w in first / 32..end.div_ceil(32) {
            let codes = self.codes[w as usize].load(Ordering::Relaxed);
            let mut wanted =
                settled_fields(codes, which == Visit::Won) & field_mask(w * 32, first, end);
            while wanted != 0 {
                let node = 32 * w + u64::from(wanted.trailing_zeros() / 2);
                wanted &= wanted - 1;
                let (x, kings) = self.kings_of(node);
                if blocks && level == 0 && !self.has_no_move(x, kings, scratch)? {
                    continue;
                }
                if blocks && level > 1 && self.must_capture(x, kings) {
                    continue;
                }
                let lost = which == Visit::Lost;
                settled += self.visit_node(level, (x, lost), kings, scratch)?;
            }
        }
        Ok(settled)
    }

    /// Whether the node of part `x` with the kings `kings` has no move at
    /// all (lost at level 0).
    fn has_no_move(
        &self,
        x: usize,
        (wk, bk): (u64, u64),
        scratch: &mut Scratch,
    ) -> Result<bool, GenError> {
        let to = &self.parts[other_part(&self.parts, x)];
        let init = self
            .solver
            .examine(&self.parts[x], to, wk, bk, &mut scratch.moves)?;
        Ok(init.level == 0)
    }

    /// Settles the predecessors of a node of part `x` with the kings
    /// `(wk, bk)`, lost (`lost`) or won, at `level + 1`; returns how many
    /// it settled.
    fn visit_node(
        &self,
        level: u32,
        (x, lost): (usize, bool),
        (wk, bk): (u64, u64),
        scratch: &mut Scratch,
    ) -> Result<u64, GenError> {
        let y = other_part(&self.parts, x);
        // A predecessor, stored White to move, has the flipped kings: its
        // white kings are our black kings with one moved back.
        let black = dense::flip(wk);
        let mut preds = std::mem::take(&mut scratch.preds);
        self.moves_in(y)
            .all((dense::flip(bk), black), true, &mut preds);
        // Their codes are read all at once, so that the reads (mostly
        // cache misses) overlap.
        scratch.codes.clear();
        scratch
            .codes
            .extend(preds.iter().map(|&(p, _)| self.code(p)));
        let mut settled = 0;
        for (j, &(p, white)) in preds.iter().enumerate() {
            if scratch.codes[j] != UNSETTLED || self.must_capture(y, (white, black)) {
                continue;
            }
            let code = if lost {
                WIN
            } else if self.is_lost(y, (white, black), scratch)? {
                NEXT_LOSS
            } else {
                continue;
            };
            if self.settle(p, code) {
                self.settled_at(level + 1, p);
                settled += 1;
            }
        }
        scratch.preds = preds;
        Ok(settled)
    }

    /// Whether the unsettled node of part `y` with the kings `(wk, bk)`
    /// (not a capture position) is lost now: every king move leads to a
    /// won position (none is won at the next level yet when this is
    /// asked), and no exit draws (none wins, or it would be settled).
    fn is_lost(
        &self,
        y: usize,
        (wk, bk): (u64, u64),
        scratch: &mut Scratch,
    ) -> Result<bool, GenError> {
        let x = other_part(&self.parts, y);
        // The moves' positions, stored White to move in part `x`: our
        // kings, flipped, are their black kings, one of them moved.
        let kings = (dense::flip(bk), dense::flip(wk));
        let wins = |c| self.code(c) == WIN;
        if !self
            .moves_in(x)
            .every_black_move(kings, &mut scratch.children, wins)
        {
            return Ok(false);
        }
        let init =
            self.solver
                .examine(&self.parts[y], &self.parts[x], wk, bk, &mut scratch.moves)?;
        Ok(init.flags & (FLAG_ESCAPE | FLAG_CAPTURE) == 0)
    }

    /// The king moves between nodes of part `t` (in `t`'s frame, beside
    /// its men): [`KingMoves::all`] with white moves lists the
    /// predecessors of a node whose colour-flipped kings it is given, with
    /// black moves the moves of one.
    fn moves_in(&self, t: usize) -> KingMoves<'_> {
        let part = &self.parts[t];
        KingMoves {
            index: &self.solver.indexes[part.side],
            men: part.men(),
            first: t as u64 * self.kings,
        }
    }

    /// Makes the nodes found lost for `level` (`NEXT_LOSS`) lost; every
    /// one is in a unit marked at `level`.
    fn promote(&self, level: u32) {
        self.mark_tasks(level)
            .into_par_iter()
            .for_each(|(first, end)| {
                let marks = self.marks(level);
                for (w, word) in marks.iter().enumerate().take(end).skip(first) {
                    let mut bits = word.load(Ordering::Relaxed);
                    while bits != 0 {
                        let unit = 64 * w as u64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let first = unit << self.shift;
                        let end = ((unit + 1) << self.shift).min(self.nodes);
                        for c in first / 32..end.div_ceil(32) {
                            promote_word(&self.codes[c as usize]);
                        }
                    }
                }
            });
    }

    /// Stores the values in the layer written: what is not settled is
    /// drawn, and so is what settled past the 25-move rule's `limit`
    /// (only where DTC bytes are kept do the levels go on past it); the
    /// capture marks are found again.
    fn finish(&self, limit: Option<u32>, progress: &Progress) -> Result<(), GenError> {
        self.chunks().into_par_iter().try_for_each(|(start, end)| {
            self.finish_chunk(start, end, limit)?;
            progress.advance((end - start) - (end - start) / 2);
            Ok(())
        })
    }

    fn finish_chunk(&self, start: u64, end: u64, limit: Option<u32>) -> Result<(), GenError> {
        let draw = format::Wdl::Draw.code();
        let mut node = start;
        while node < end {
            let x = (node / self.kings) as usize;
            let run_end = end.min((x as u64 + 1) * self.kings);
            let part = &self.parts[x];
            let store = self.solver.write.store(part.store);
            let base = part.base + (node - x as u64 * self.kings);
            let mut values = Vec::with_capacity((run_end - node) as usize);
            let nodes = node as usize..run_end as usize;
            self.solver.for_each_node(&self.parts, nodes, |n, kings| {
                let j = n as u64 - node;
                let code = match self.code(n as u64) {
                    NEXT_LOSS => {
                        return Err(GenError::Internal(
                            "a position found lost was left unmarked".into(),
                        ))
                    }
                    UNSETTLED => draw,
                    code if limit.is_some() && store.has_dtc() => {
                        let past = kings_only::past(limit, u32::from(store.dtc(base + j)));
                        if past {
                            draw
                        } else {
                            code
                        }
                    }
                    code => code,
                };
                values.push((code, self.must_capture(x, kings)));
                Ok(())
            })?;
            store.store_run(base, values.into_iter());
            node = run_end;
        }
        Ok(())
    }
}
