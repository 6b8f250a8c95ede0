//! The slice solver: a material pair solved one placement of the men at a
//! time.
//!
//! Men only move forward, so a material splits by where its men stand. A
//! **slice** is one placement of the men of both colours with every
//! placement of the kings, for both sides to move: the White-to-move
//! positions of the material with that placement (one contiguous range of
//! the index, which keeps men outermost), and those of its mirror with the
//! colour-flipped placement. Inside a slice only kings move. A man move
//! leads to a slice of the same pair whose men stand one row further on, a
//! crowning to a material with one man fewer, a capture to a smaller
//! material: all of them solved before. So slices are solved most advanced
//! first (the *advancement* of a placement is the number of rows its men
//! have walked), and all slices of one advancement are independent: they run
//! in parallel.
//!
//! A slice is solved in memory of its own, one 16-bit cell per position:
//! 1. every position is looked at once: a capture position takes its value
//!    from smaller tables (the prober resolves the capture), a man step or a
//!    crowning is an *exit* whose value is known, and king moves are
//!    counted;
//! 2. values propagate backwards from the settled positions along king
//!    moves walked back (a lost position makes its predecessors won; a
//!    predecessor whose every king move leads to a won position, and whose
//!    exits all lose, is lost), level by level: since every exit is a
//!    conversion (a man move or a capture), the level at which a position
//!    settles is its distance to conversion, kept when `--dtc` asks;
//! 3. under `fmjd` and `fmjd-diagonal` the propagation stops after level
//!    50, the 25-move rule's limit (see [`crate::solvers::kings_only`]);
//! 4. what is never settled is drawn, and the slice's values go into the
//!    pair's finished values at 2 bits per position (and 1 bit marking
//!    capture positions, whose stored value is "don't care").
//!
//! A big slice is solved by all threads together (see
//! [`SliceSolver::solve_big`]), a huge one in 2 bits a position
//! (`SliceSolver::solve_bitset`, in `bitset.rs`). Only materials outside the counted
//! endings go this way: their tables keep a bare result, which does not
//! depend on the order in which values settle. The counted endings (at most
//! 4 pieces) keep distances and are solved whole by [`crate::solvers::counted`].
//! `docs/DESIGN.md` ("Slice groups and units of work", "Memory") describes
//! the unit of work and the memory it takes.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering};

use format::{child_view, Material, MaterialIndex, RuleSet, Wdl};
use probe::generator::GeneratorHooks;
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, CountedEnding, Move, Position};

use crate::solvers::captures::ChildTables;
use crate::solvers::kings_only;
use crate::values::{Layer, PackedValues};
use plan::groups::Slice;
use plan::GenError;
use plan::Progress;
use rules::dense;

mod bitset;

/// Node states inside a slice.
const NODE_UNKNOWN: u8 = 0;
const NODE_LOST: u8 = 1;
const NODE_DRAWN: u8 = 2;
const NODE_WON: u8 = 3;

/// Node flags: some exit draws (the node cannot be lost).
const FLAG_ESCAPE: u8 = 1;
/// Node flags: a capture position (its king moves are not legal).
const FLAG_CAPTURE: u8 = 2;

/// A node's cell: its counter of king moves not yet known to lose (bits
/// 0-7), its state (8-9) and flags (10-11), side by side so that a
/// predecessor costs one memory access.
type Cell = u16;

const STATE_SHIFT: u32 = 8;
const FLAGS_SHIFT: u32 = 10;

#[inline]
fn cell_of(init: &NodeInit) -> Cell {
    Cell::from(init.counter)
        | Cell::from(init.state) << STATE_SHIFT
        | Cell::from(init.flags) << FLAGS_SHIFT
}

#[inline]
fn state_in(cell: Cell) -> u8 {
    (cell >> STATE_SHIFT) as u8 & 3
}

#[inline]
fn flags_in(cell: Cell) -> u8 {
    (cell >> FLAGS_SHIFT) as u8 & 3
}

#[inline]
fn with_state(cell: Cell, state: u8) -> Cell {
    (cell & !(3 << STATE_SHIFT)) | Cell::from(state) << STATE_SHIFT
}

/// The most predecessors a node can have: 5 kings, 4 rays of at most 9
/// squares.
const MAX_PREDECESSORS: usize = 5 * 4 * 9;

/// One stored range of a slice: a side of the pair, where its positions
/// start in that side's index, and its men (dense masks, White to move).
#[derive(Clone, Copy)]
struct Part {
    /// The side of the pair (0, or 1 for the mirror material).
    side: usize,
    /// Where its values go: a store of the layer written, and the first
    /// position there.
    store: usize,
    base: u64,
    white_men: u64,
    black_men: u64,
    /// The steps White's men can make where no man blocks them (a king may
    /// still stand in the way), worked out once per slice.
    steps: [ManStep; MAX_STEPS],
    step_count: usize,
}

/// Nodes of a big slice a task examines or stores at once.
const BIG_CHUNK: usize = 1 << 14;

/// The stored ranges of one slice, one or two, kept on the stack (a slice
/// of a pair with few kings holds a handful of positions, so what a slice
/// costs on its own counts).
struct Parts {
    items: [Part; 2],
    len: usize,
}

impl std::ops::Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        &self.items[..self.len]
    }
}

/// The most man steps a part lists: two for each of up to 10 men (a table
/// has at most 10 pieces; generation refuses larger materials first).
const MAX_STEPS: usize = 20;

/// One step of a White man, and where the position it leads to is stored
/// (in the other part's side, colour-flipped), but for the kings.
#[derive(Clone, Copy, Default)]
struct ManStep {
    from: u8,
    to: u8,
    /// The men of the position reached, stored White to move.
    child_men: u64,
    /// Where the position reached with no kings placed is read: a store
    /// of the layer read, and the first position of its men placement
    /// there (unused for a crowning).
    child_store: usize,
    child_base: u64,
}

impl Part {
    fn men(&self) -> u64 {
        self.white_men | self.black_men
    }
}

/// Per-thread memory of slice solves, reused from slice to slice: a cell
/// per node, and the nodes settled but not yet propagated: those of the
/// level being walked and those of the next.
#[derive(Default)]
pub(crate) struct SliceScratch {
    moves: Vec<Move>,
    cells: Vec<Cell>,
    queue: Vec<u32>,
    next: Vec<u32>,
    /// The nodes settled past the 25-move rule's limit (drawn under it).
    past_limit: Vec<u32>,
}

/// Solves the slices of one pair, writing into `sides`.
///
/// Values propagate level by level, so the level at which a node settles
/// is its distance to conversion: a seed settles at level 1 (a capture
/// position, a win by a man move or crowning, a loss whose moves are all
/// such exits) or 0 (no move at all), and a node settled from a node of
/// level `t` gets `t + 1`: a win by its first lost successor (the nearest),
/// a loss by its last won one (the farthest).
pub(crate) struct SliceSolver<'a> {
    pub(crate) tb: &'a Tablebase,
    pub(crate) rule_set: RuleSet,
    /// The material of side 0 of the pair.
    pub(crate) material: Material,
    /// The indexes of the pair's sides (one if symmetric).
    pub(crate) indexes: &'a [MaterialIndex],
    /// Where the slices' values go.
    pub(crate) write: &'a Layer,
    /// Where the values of the slices one man step further are found
    /// (the same layer when the whole pair is in memory).
    pub(crate) read: &'a Layer,
    /// The counted ending of the pair, if it is one.
    pub(crate) class: Option<CountedEnding>,
    /// Labels mode: the results are known already (written in `write`
    /// beforehand) and the solve finds only distances to conversion (used
    /// for the counted endings, whose results the whole-material solver
    /// finds); a result that comes out different is an error.
    pub(crate) labels: bool,
    /// The tables captures and crownings lead to, read directly (outside
    /// the counted endings).
    pub(crate) children: ChildTables<'a>,
    /// The deepest level at which a node settled, over every slice solved
    /// (see [`SliceSolver::deepest`]).
    pub(crate) deepest: AtomicU32,
}

impl SliceSolver<'_> {
    /// The deepest level at which a node of the slices solved so far
    /// settled: the longest distance to conversion found, or, where the
    /// solve went past the 25-move rule's limit, a level above it. A
    /// one-ply search of this pair's values gives the stored value exactly
    /// when it is below the limit (`format::search_is_exact`).
    pub(crate) fn deepest(&self) -> u32 {
        self.deepest.load(Ordering::Relaxed)
    }

    /// Records that a node settled at `level`.
    fn reached(&self, level: u32) {
        self.deepest.fetch_max(level, Ordering::Relaxed);
    }

    /// The stored ranges of `slice` (one when both sides to move are the
    /// same range, in a symmetric material with a symmetric placement).
    fn parts(&self, slice: &Slice) -> Result<Parts, GenError> {
        let (white_men, black_men) = (slice.white_men, slice.black_men);
        let other = self.indexes.len() - 1;
        let (store, base) = self.written_at(0, slice.men)?;
        let a = Part {
            side: 0,
            store,
            base,
            white_men,
            black_men,
            steps: [ManStep::default(); MAX_STEPS],
            step_count: 0,
        };
        let (store, base) = self.written_at(other, slice.mirror_men)?;
        let b = Part {
            side: other,
            store,
            base,
            white_men: dense::flip(black_men),
            black_men: dense::flip(white_men),
            ..a
        };
        let len = if other == 0 && slice.men == slice.mirror_men {
            1
        } else {
            2
        };
        let mut parts = Parts { items: [a, b], len };
        for x in 0..len {
            let to = &parts.items[other_part(&parts, x)];
            let (to_side, to_white_men) = (to.side, to.white_men);
            self.list_steps(&mut parts.items[x], to_side, to_white_men)?;
        }
        Ok(parts)
    }

    /// Where the values of placement `men` of side `side` are written.
    fn written_at(&self, side: usize, men: u64) -> Result<(usize, u64), GenError> {
        self.write.locate(side, men).ok_or_else(|| {
            GenError::Internal(format!(
                "{}: men placement {men} of side {side} is not in the layer written",
                self.material
            ))
        })
    }

    /// Fills `part.steps`: its White men's steps, and where each leads in
    /// the part they lead into (side `to_side`, White men `to_white_men`).
    fn list_steps(
        &self,
        part: &mut Part,
        to_side: usize,
        to_white_men: u64,
    ) -> Result<(), GenError> {
        let to_index = &self.indexes[to_side];
        let mut men = part.white_men;
        while men != 0 {
            let from = men.trailing_zeros();
            men &= men - 1;
            for d in dense::WHITE_FORWARD {
                let Some(&square) = dense::RAYS[from as usize][d].squares().first() else {
                    continue;
                };
                if part.men() >> square & 1 == 1 {
                    continue;
                }
                // A table has at most 10 pieces, so at most 9 White men.
                debug_assert!(part.step_count < MAX_STEPS);
                let after = dense::flip(part.white_men ^ (1 << from) ^ (1 << square));
                // A crowning leads out of the pair: nothing to locate.
                let (child_store, child_base) = if square < 5 {
                    (0, 0)
                } else {
                    let placement =
                        to_index.rank_masks(to_white_men, 0, after, 0) / to_index.king_placements();
                    self.read.locate(to_side, placement).ok_or_else(|| {
                        GenError::Internal(format!(
                            "{}: a man step leads to men placement {placement} of side \
                             {to_side}, which the layer read does not hold",
                            self.material
                        ))
                    })?
                };
                part.steps[part.step_count] = ManStep {
                    from: from as u8,
                    to: square,
                    child_men: to_white_men | after,
                    child_store,
                    child_base,
                };
                part.step_count += 1;
            }
        }
        Ok(())
    }

    /// The nodes of a slice: its king placements in each of its parts.
    fn node_count(&self, parts: &[Part]) -> Result<usize, GenError> {
        let n = parts.len() as u64 * self.indexes[0].king_placements();
        u32::try_from(n)
            .map(|n| n as usize)
            .map_err(|_| GenError::TooLarge(self.material))
    }

    /// The part, king placement and kings of node `node`.
    #[inline]
    fn node_kings(&self, parts: &[Part], node: usize) -> (usize, u64, u64, u64) {
        let kings = self.indexes[0].king_placements();
        let x = (node as u64 / kings) as usize;
        let k = node as u64 % kings;
        let part = &parts[x];
        let (wk, bk) = self.indexes[part.side].unrank_kings(part.men(), k);
        (x, k, wk, bk)
    }

    /// Solves one slice in this thread and stores its values; returns its
    /// positions.
    pub(crate) fn solve(&self, slice: &Slice, scratch: &mut SliceScratch) -> Result<u64, GenError> {
        let parts = self.parts(slice)?;
        let n = self.node_count(&parts)?;
        scratch.cells.clear();
        scratch.queue.clear();
        scratch.next.clear();
        let keeps_dtc = self.write.keeps_dtc();
        self.for_each_node(&parts, 0..n, |node, kings| {
            let init = self.examine_node(&parts, node, kings, &mut scratch.moves)?;
            scratch.cells.push(cell_of(&init));
            if matches!(init.state, NODE_WON | NODE_LOST) {
                if keeps_dtc {
                    self.store_dtc(&parts, node, u32::from(init.level));
                }
                match init.level {
                    0 => scratch.queue.push(node as u32),
                    _ => scratch.next.push(node as u32),
                }
            }
            Ok(())
        })?;
        let cells = &mut scratch.cells;
        let mut preds = [0u32; MAX_PREDECESSORS];
        let limit = self.level_limit();
        let bound = self.propagation_bound(limit);
        scratch.past_limit.clear();
        let mut level = 0;
        while !kings_only::past(bound, level + 1) {
            for &c in &scratch.queue {
                let lost = state_in(cells[c as usize]) == NODE_LOST;
                let count = self.predecessors(&parts, c as usize, &mut preds);
                for &p in &preds[..count] {
                    let p = p as usize;
                    let cell = cells[p];
                    if state_in(cell) != NODE_UNKNOWN || flags_in(cell) & FLAG_CAPTURE != 0 {
                        continue;
                    }
                    if lost {
                        cells[p] = with_state(cell, NODE_WON);
                    } else if cell as u8 == 1 && flags_in(cell) & FLAG_ESCAPE == 0 {
                        cells[p] = with_state(cell - 1, NODE_LOST);
                    } else {
                        cells[p] = cell - 1;
                        continue;
                    }
                    scratch.next.push(p as u32);
                    if keeps_dtc {
                        self.store_dtc(&parts, p, level + 1);
                    }
                    if kings_only::past(limit, level + 1) {
                        scratch.past_limit.push(p as u32);
                    }
                }
            }
            if scratch.next.is_empty() {
                break;
            }
            std::mem::swap(&mut scratch.queue, &mut scratch.next);
            scratch.next.clear();
            level += 1;
        }
        self.reached(level);
        for &p in &scratch.past_limit {
            cells[p as usize] = with_state(cells[p as usize], NODE_DRAWN);
        }
        self.store_nodes(&parts, 0..n, |node| cells[node])?;
        Ok(n as u64)
    }

    /// Solves one big slice (a material without men is a single one) with
    /// every thread: nodes are examined in parallel, then values propagate
    /// wave by wave, with atomic updates. The same values as
    /// [`SliceSolver::solve`]: outside the counted endings a result does
    /// not depend on the order in which values settle.
    pub(crate) fn solve_big(&self, slice: &Slice, progress: &Progress) -> Result<u64, GenError> {
        let parts = self.parts(slice)?;
        let n = self.node_count(&parts)?;
        let cells: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(0)).collect();
        let (wave, later) = self.examine_big(&parts, &cells, progress)?;
        let past_limit = self.propagate_big(&parts, &cells, wave, later);
        past_limit.par_iter().for_each(|&p| {
            let cell = &cells[p as usize];
            cell.store(
                with_state(cell.load(Ordering::Relaxed), NODE_DRAWN),
                Ordering::Relaxed,
            );
        });
        cells
            .par_chunks(BIG_CHUNK)
            .enumerate()
            .try_for_each(|(c, chunk)| {
                let first = c * BIG_CHUNK;
                self.store_nodes(&parts, first..first + chunk.len(), |node| {
                    chunk[node - first].load(Ordering::Relaxed)
                })?;
                progress.advance(chunk.len() as u64 - chunk.len() as u64 / 2);
                Ok::<(), GenError>(())
            })?;
        Ok(n as u64)
    }

    /// The first pass of a big slice: every node examined into its cell,
    /// in parallel. Returns the nodes settled at level 0 (the first wave)
    /// and those settled at level 1 (added to the wave after the first
    /// propagation step).
    fn examine_big(
        &self,
        parts: &[Part],
        cells: &[AtomicU16],
        progress: &Progress,
    ) -> Result<(Vec<u32>, Vec<u32>), GenError> {
        // Seeds at level 1 are marked by their level until their wave.
        let seed_level: Vec<AtomicU8> = (0..cells.len()).map(|_| AtomicU8::new(0)).collect();
        cells.par_chunks(BIG_CHUNK).enumerate().try_for_each_init(
            Vec::new,
            |moves, (c, chunk)| {
                let first = c * BIG_CHUNK;
                self.for_each_node(parts, first..first + chunk.len(), |node, kings| {
                    let cell = &chunk[node - first];
                    let init = self.examine_node(parts, node, kings, moves)?;
                    cell.store(cell_of(&init), Ordering::Relaxed);
                    if matches!(init.state, NODE_WON | NODE_LOST) {
                        self.store_dtc(parts, node, u32::from(init.level));
                        seed_level[node].store(init.level, Ordering::Relaxed);
                    }
                    Ok(())
                })?;
                progress.advance(chunk.len() as u64 / 2);
                Ok::<(), GenError>(())
            },
        )?;
        let seeds = |level: u8| -> Vec<u32> {
            (0..cells.len() as u32)
                .into_par_iter()
                .filter(|&i| {
                    matches!(
                        state_in(cells[i as usize].load(Ordering::Relaxed)),
                        NODE_WON | NODE_LOST
                    ) && seed_level[i as usize].load(Ordering::Relaxed) == level
                })
                .collect()
        };
        Ok((seeds(0), seeds(1)))
    }

    /// Propagates a big slice's values wave by wave from `wave` (level 0;
    /// `later` joins after the first step), each wave's predecessors
    /// settled with atomic updates and their DTC stored. Returns the nodes
    /// settled past the 25-move rule's limit (drawn under it).
    fn propagate_big(
        &self,
        parts: &[Part],
        cells: &[AtomicU16],
        mut wave: Vec<u32>,
        later: Vec<u32>,
    ) -> Vec<u32> {
        let mut later = Some(later);
        let limit = self.level_limit();
        let bound = self.propagation_bound(limit);
        let mut past_limit = Vec::new();
        let mut level = 0;
        while !kings_only::past(bound, level + 1) {
            if wave.is_empty() && later.is_none() {
                break;
            }
            wave = wave
                .par_chunks(4096)
                .flat_map_iter(|chunk| {
                    let mut next = Vec::new();
                    let mut preds = [0u32; MAX_PREDECESSORS];
                    for &c in chunk {
                        let lost = state_in(cells[c as usize].load(Ordering::Relaxed)) == NODE_LOST;
                        let count = self.predecessors(parts, c as usize, &mut preds);
                        for &p in &preds[..count] {
                            if settle_predecessor(&cells[p as usize], lost) {
                                next.push(p);
                            }
                        }
                    }
                    next
                })
                .collect();
            level += 1;
            if !wave.is_empty() {
                self.reached(level);
            }
            wave.par_iter()
                .for_each(|&p| self.store_dtc(parts, p as usize, level));
            if kings_only::past(limit, level) {
                past_limit.extend_from_slice(&wave);
            }
            if let Some(seeds) = later.take() {
                wave.extend(seeds);
            }
        }
        past_limit
    }

    /// The last level at which a node may settle: the 25-move rule's
    /// limit where it applies (see [`crate::solvers::kings_only`]).
    fn level_limit(&self) -> Option<u32> {
        kings_only::level_limit(self.rule_set, self.class)
    }

    /// The last level propagated: the limit, or none where DTC bytes are
    /// kept, which record the nodes settled past it (drawn under the rule)
    /// with the level they would settle at without it.
    fn propagation_bound(&self, limit: Option<u32>) -> Option<u32> {
        kings_only::propagation_bound(limit, self.write.keeps_dtc())
    }

    /// Stores the values of nodes `nodes` (node `j`'s cell is `cell(j)`)
    /// in their sides' finished values, a word at a time. In labels mode,
    /// checks each against the known one.
    fn store_nodes(
        &self,
        parts: &[Part],
        nodes: std::ops::Range<usize>,
        cell: impl Fn(usize) -> Cell,
    ) -> Result<(), GenError> {
        let kings = self.indexes[0].king_placements() as usize;
        let mut node = nodes.start;
        while node < nodes.end {
            let x = node / kings;
            let end = nodes.end.min((x + 1) * kings);
            let part = &parts[x];
            let store = self.write.store(part.store);
            let first = part.base + (node - x * kings) as u64;
            if self.labels {
                for j in node..end {
                    self.check_label(store, first + (j - node) as u64, cell(j))?;
                }
            }
            store.store_run(first, (node..end).map(|j| node_value(cell(j))));
            node = end;
        }
        Ok(())
    }

    /// Labels mode: checks that position `i` of `side` solved (its cell
    /// `cell`) to the result its table states.
    fn check_label(&self, store: &PackedValues, i: u64, cell: Cell) -> Result<(), GenError> {
        let (code, capture) = node_value(cell);
        if capture || store.code(i) == code {
            return Ok(());
        }
        Err(GenError::Internal(format!(
            "{}: position {i} solves to WLD code {code}, its table says {}",
            self.material,
            store.code(i)
        )))
    }

    /// Records that node `node` settled at `level`: its DTC.
    #[inline]
    fn store_dtc(&self, parts: &[Part], node: usize, level: u32) {
        let kings = self.indexes[0].king_placements();
        let part = &parts[(node as u64 / kings) as usize];
        self.write
            .store(part.store)
            .store_dtc(part.base + node as u64 % kings, level);
    }

    /// Calls `visit` on the nodes `nodes` in order, each with its kings
    /// `(white, black)`: the king placements are walked, not unranked one
    /// by one, in a plain loop a part at a time that stays inline in the
    /// caller's loop (a chained iterator did not: its calls took 5% of the
    /// samples of five-piece pairs with men).
    #[inline(always)]
    fn for_each_node(
        &self,
        parts: &[Part],
        nodes: std::ops::Range<usize>,
        mut visit: impl FnMut(usize, (u64, u64)) -> Result<(), GenError>,
    ) -> Result<(), GenError> {
        let kings = self.indexes[0].king_placements() as usize;
        let (first, last) = (nodes.start / kings, nodes.end.div_ceil(kings));
        for (x, part) in parts.iter().enumerate().take(last).skip(first) {
            let start = nodes.start.max(x * kings);
            let end = nodes.end.min((x + 1) * kings);
            let mut walk =
                self.indexes[part.side].king_walk(part.men(), (start - x * kings) as u64);
            for node in start..end {
                let placement = walk.next().ok_or_else(|| {
                    GenError::Internal(format!("{}: a king walk ended early", self.material))
                })?;
                visit(node, placement)?;
            }
        }
        Ok(())
    }

    /// Step 1 for node `node` (its kings `(white, black)`), with its known
    /// result applied in labels mode.
    fn examine_node(
        &self,
        parts: &[Part],
        node: usize,
        (wk, bk): (u64, u64),
        moves: &mut Vec<Move>,
    ) -> Result<NodeInit, GenError> {
        let king_placements = self.indexes[0].king_placements();
        let x = (node as u64 / king_placements) as usize;
        let k = node as u64 % king_placements;
        let to = &parts[other_part(parts, x)];
        let init = self.examine(&parts[x], to, wk, bk, moves)?;
        if !self.labels || init.flags & FLAG_CAPTURE != 0 {
            return Ok(init);
        }
        let part = &parts[x];
        let store = self.write.store(part.store);
        let i = part.base + k;
        match (Wdl::from_code(store.code(i)), init.state) {
            (Some(Wdl::Draw), _) => Ok(NodeInit {
                state: NODE_DRAWN,
                ..init
            }),
            (Some(Wdl::Win), NODE_WON) => Ok(init),
            // Never lost: it waits for a lost successor.
            (Some(Wdl::Win), NODE_UNKNOWN) => Ok(NodeInit {
                flags: init.flags | FLAG_ESCAPE,
                ..init
            }),
            (Some(Wdl::Loss), NODE_LOST) => Ok(init),
            (Some(Wdl::Loss), NODE_UNKNOWN) if init.flags & FLAG_ESCAPE == 0 => Ok(init),
            _ => Err(GenError::Internal(format!(
                "{}: position {i} has WLD code {}, which its moves cannot give",
                self.material,
                store.code(i)
            ))),
        }
    }

    /// Step 1 for one node (White to move, kings `wk`, `bk` beside the men
    /// of `part`): its state if settled, the count of its king moves, its
    /// exits. `to` is the range its moves lead into. Inline in the walk
    /// over a slice's nodes, its hottest loop.
    #[inline(always)]
    fn examine(
        &self,
        part: &Part,
        to: &Part,
        wk: u64,
        bk: u64,
        moves: &mut Vec<Move>,
    ) -> Result<NodeInit, GenError> {
        let (wm, bm) = (part.white_men, part.black_men);
        let occupied = wm | wk | bm | bk;
        // Told on the dense masks (the move generator's answer, as a test
        // in `rules` checks); a position is built only to capture.
        if dense::can_capture(wm, wk, bm | bk, occupied) {
            let pos = Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
                .map_err(|e| GenError::Internal(format!("slice position: {e}")))?;
            let wdl = if self.class.is_none() {
                self.children.capture_value(&pos, moves)?
            } else {
                pos.generate_captures(moves);
                let value = self.tb.probe_capture(&pos, moves)?;
                value.wdl_with(self.rule_set, self.class, None)
            };
            return Ok(NodeInit {
                state: state_of(wdl),
                counter: 0,
                flags: FLAG_CAPTURE,
                level: 1,
            });
        }
        let inside = dense::king_move_count(wk, occupied);
        let mut escape = false;
        let mut wins = false;
        let mut exits = 0;
        let to_index = &self.indexes[to.side];
        let (flipped_wk, flipped_bk) = (dense::flip(wk), dense::flip(bk));
        for step in &part.steps[..part.step_count] {
            if occupied >> step.to & 1 == 1 {
                continue;
            }
            exits += 1;
            let wdl = if step.to < 5 {
                let after = wm ^ (1 << step.from) ^ (1 << step.to);
                let wdl = self.crowning_value(after, wk | 1 << step.to, bm, bk)?;
                self.crowning_as_read(part.side, wdl)
            } else {
                let i =
                    step.child_base + to_index.king_rank(step.child_men, flipped_bk, flipped_wk);
                let code = self.read.store(step.child_store).code(i);
                Wdl::from_code(code).unwrap_or(Wdl::Draw)
            };
            match wdl {
                Wdl::Loss => wins = true,
                Wdl::Draw => escape = true,
                Wdl::Win => {}
            }
        }
        let state = if wins {
            NODE_WON
        } else if inside == 0 {
            // No king move: drawn if an exit draws, else lost (every
            // move, if there is any, leads to a win for the opponent).
            if escape {
                NODE_DRAWN
            } else {
                NODE_LOST
            }
        } else {
            NODE_UNKNOWN
        };
        Ok(NodeInit {
            state,
            counter: u8::try_from(inside)
                .map_err(|_| GenError::Internal("more than 255 king moves".into()))?,
            flags: if escape { FLAG_ESCAPE } else { 0 },
            // No move at all ends the game: DTC 0.
            level: u8::from(inside + exits > 0),
        })
    }

    /// A crowning's value as the solver goes on with it: itself, unless a
    /// test switched on a deliberate fault (see `crate::fault`).
    #[cfg(feature = "fault-injection")]
    fn crowning_as_read(&self, side: usize, wdl: Wdl) -> Wdl {
        let material = if side == 0 {
            self.material
        } else {
            self.material.mirrored()
        };
        crate::fault::crowning_as_read(material, wdl)
    }

    /// A crowning's value as the solver goes on with it: itself (the
    /// `fault-injection` feature is off).
    #[cfg(not(feature = "fault-injection"))]
    #[inline(always)]
    fn crowning_as_read(&self, _side: usize, wdl: Wdl) -> Wdl {
        wdl
    }

    /// The value, for White, of the move that crowns a man (Black to move
    /// after it, in a material with one man fewer and one king more).
    fn crowning_value(&self, wm: u64, wk: u64, bm: u64, bk: u64) -> Result<Wdl, GenError> {
        let child = Position::from_dense_masks(Color::Black, wm | wk, bm | bk, wk | bk)
            .map_err(|e| GenError::Internal(format!("crowning: {e}")))?;
        if self.class.is_none() {
            return self.children.child_result(&child);
        }
        let value = self.tb.probe(&child)?;
        Ok(child_view(self.rule_set, None, Material::of(&child), value).wdl)
    }

    /// Writes to `out` every node from which a king move leads to node `c`
    /// (in `c`'s frame, a Black king that slid back to where it came
    /// from); returns how many. They are listed first and visited after,
    /// so that their cells are fetched from memory side by side.
    #[inline]
    fn predecessors(&self, parts: &[Part], c: usize, out: &mut [u32; MAX_PREDECESSORS]) -> usize {
        let kings = self.indexes[0].king_placements();
        let (x, _, wk, bk) = self.node_kings(parts, c);
        let part = &parts[x];
        let y = other_part(parts, x);
        let to = &parts[y];
        let occupied = part.men() | wk | bk;
        let to_index = &self.indexes[to.side];
        let first = y as u64 * kings;
        // The predecessor, stored White to move, has the flipped kings:
        // its white kings are our black kings with one moved back.
        let (their_kings, our_kings) = (dense::flip(bk), dense::flip(wk));
        let mut count = 0;
        let mut movers = bk;
        while movers != 0 {
            let b = movers.trailing_zeros();
            movers &= movers - 1;
            let others = their_kings ^ (1 << (49 - b));
            let ranks = to_index.king_move_ranks(to.men(), others, our_kings);
            for ray in &dense::RAYS[b as usize] {
                for &a in ray.squares() {
                    if occupied >> a & 1 == 1 {
                        break;
                    }
                    out[count] = (first + ranks.rank_with(49 - u32::from(a))) as u32;
                    count += 1;
                }
            }
        }
        count
    }
}

/// Settles predecessor `cell` of a node that is lost (`lost`) or won, if
/// it is not settled yet; returns whether it was settled here.
fn settle_predecessor(cell: &AtomicU16, lost: bool) -> bool {
    let mut v = cell.load(Ordering::Relaxed);
    loop {
        if state_in(v) != NODE_UNKNOWN || flags_in(v) & FLAG_CAPTURE != 0 {
            return false;
        }
        let new = if lost {
            with_state(v, NODE_WON)
        } else if v as u8 == 1 && flags_in(v) & FLAG_ESCAPE == 0 {
            with_state(v - 1, NODE_LOST)
        } else {
            v - 1
        };
        match cell.compare_exchange_weak(v, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return state_in(new) != NODE_UNKNOWN,
            Err(now) => v = now,
        }
    }
}

/// The WLD code and capture mark a node's final cell stores.
#[inline]
fn node_value(cell: Cell) -> (u8, bool) {
    let code = match state_in(cell) {
        NODE_WON => Wdl::Win,
        NODE_LOST => Wdl::Loss,
        _ => Wdl::Draw,
    };
    (code.code(), flags_in(cell) & FLAG_CAPTURE != 0)
}

/// What step 1 finds for a node.
struct NodeInit {
    state: u8,
    counter: u8,
    flags: u8,
    /// The DTC of a node settled here: 1, or 0 when it has no move.
    level: u8,
}

/// The part that the moves of part `x`'s nodes lead into.
fn other_part(parts: &[Part], x: usize) -> usize {
    if parts.len() == 2 {
        1 - x
    } else {
        0
    }
}

fn state_of(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Win => NODE_WON,
        Wdl::Draw => NODE_DRAWN,
        Wdl::Loss => NODE_LOST,
    }
}
