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
//! 3. what is never settled is drawn, and the slice's values go into the
//!    pair's finished values at 2 bits per position (and 1 bit marking
//!    capture positions, whose stored value is "don't care").
//!
//! A material without men is a single slice, solved by all threads together
//! (see [`SliceSolver::solve_big`]). Only materials outside the counted
//! endings go this way: their tables keep a bare result, which does not
//! depend on the order in which values settle. The counted endings (at most
//! 4 pieces) keep distances and are solved whole by [`crate::solver`].
//! `docs/SLICES.md` describes the unit of work and the memory it takes.

use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};

use format::{child_view, dtc_byte, Material, MaterialIndex, RuleSet, Wdl};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, CountedEnding, Move, Position};

use crate::captures::ChildTables;
use crate::dense;
use crate::error::GenError;
use crate::progress::Progress;

/// Whether `material` (and its mirror) is solved slice by slice.
pub(crate) fn uses_slices(material: Material) -> bool {
    material.counted_ending().is_none()
}

/// The finished values of one side of a pair: a WLD code per position (2
/// bits, 32 positions a word), a capture mark (1 bit) and, when asked for,
/// a DTC byte (see `format::dtc_byte`).
pub(crate) struct PackedSide {
    /// The material (White to move).
    pub(crate) material: Material,
    /// Its index.
    pub(crate) index: MaterialIndex,
    codes: Vec<AtomicU64>,
    captures: Vec<AtomicU64>,
    /// Empty when no DTC is wanted.
    dtc: Vec<AtomicU8>,
}

impl PackedSide {
    fn new(material: Material, with_dtc: bool) -> Result<PackedSide, GenError> {
        let index = MaterialIndex::new(material);
        let n = usize::try_from(index.count()).map_err(|_| GenError::TooLarge(material))?;
        Ok(PackedSide {
            material,
            index,
            codes: (0..n.div_ceil(32)).map(|_| AtomicU64::new(0)).collect(),
            captures: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            dtc: if with_dtc {
                (0..n).map(|_| AtomicU8::new(0)).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// Whether DTC values are kept.
    pub(crate) fn has_dtc(&self) -> bool {
        !self.dtc.is_empty()
    }

    /// The DTC byte of position `i` (meaningful for decided positions that
    /// are not capture positions).
    #[inline]
    pub(crate) fn dtc(&self, i: u64) -> u8 {
        self.dtc[i as usize].load(Ordering::Relaxed)
    }

    #[inline]
    fn store_dtc(&self, i: u64, level: u32) {
        if let Some(cell) = self.dtc.get(i as usize) {
            cell.store(dtc_byte(level), Ordering::Relaxed);
        }
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> u64 {
        self.index.count()
    }

    /// The WLD code (0 loss, 1 draw, 2 win) of position `i`, once solved.
    #[inline]
    pub(crate) fn code(&self, i: u64) -> u8 {
        (self.codes[(i / 32) as usize].load(Ordering::Relaxed) >> (2 * (i % 32))) as u8 & 3
    }

    /// Whether the side to move must capture in position `i`.
    #[inline]
    pub(crate) fn is_capture(&self, i: u64) -> bool {
        self.captures[(i / 64) as usize].load(Ordering::Relaxed) >> (i % 64) & 1 == 1
    }

    /// The 32 codes of word `w` (position `32w + j` in bits `2j, 2j+1`).
    pub(crate) fn code_word(&self, w: usize) -> u64 {
        self.codes[w].load(Ordering::Relaxed)
    }

    /// The 64 capture marks of word `w`.
    pub(crate) fn capture_word(&self, w: usize) -> u64 {
        self.captures[w].load(Ordering::Relaxed)
    }

    /// Records the values `(code, capture)` of positions `start`,
    /// `start + 1`, ... as [`PackedSide::store`] does, one atomic `or` per
    /// word.
    pub(crate) fn store_run(&self, start: u64, values: impl Iterator<Item = (u8, bool)>) {
        let (mut code_word, mut codes) = (start / 32, 0u64);
        let (mut mark_word, mut marks) = (start / 64, 0u64);
        let flush = |words: &[AtomicU64], w: u64, bits: u64| {
            if bits != 0 {
                words[w as usize].fetch_or(bits, Ordering::Relaxed);
            }
        };
        for (i, (code, capture)) in (start..).zip(values) {
            if i / 32 != code_word {
                flush(&self.codes, code_word, codes);
                (code_word, codes) = (i / 32, 0);
            }
            if i / 64 != mark_word {
                flush(&self.captures, mark_word, marks);
                (mark_word, marks) = (i / 64, 0);
            }
            codes |= u64::from(code) << (2 * (i % 32));
            marks |= u64::from(capture) << (i % 64);
        }
        flush(&self.codes, code_word, codes);
        flush(&self.captures, mark_word, marks);
    }

    /// Records the value of position `i` (written once; slices running
    /// side by side may share a word, hence the atomic `or`).
    pub(crate) fn store(&self, i: u64, code: u8, capture: bool) {
        let bits = u64::from(code) << (2 * (i % 32));
        if bits != 0 {
            self.codes[(i / 32) as usize].fetch_or(bits, Ordering::Relaxed);
        }
        if capture {
            self.captures[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    }
}

/// The solved pair: one side per stored material (one if symmetric).
pub(crate) struct PackedPair {
    pub(crate) sides: Vec<PackedSide>,
}

/// The rows the men of a placement have walked: a White man on square `s`
/// has walked `9 - row(s)`, a Black man `row(s)` (rows 0-9 from White's
/// crowning row). A man move adds exactly one.
pub(crate) fn advancement(white_men: u64, black_men: u64) -> u32 {
    let mut total = 0;
    let mut w = white_men;
    while w != 0 {
        total += 9 - w.trailing_zeros() / 5;
        w &= w - 1;
    }
    let mut b = black_men;
    while b != 0 {
        total += b.trailing_zeros() / 5;
        b &= b - 1;
    }
    total
}

/// One slice: the men placement `men` of side 0 and, when the pair has two
/// stored ranges for it, the flipped placement `mirror_men` of the other
/// side (the mirror material, or the same material when symmetric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slice {
    /// Rows the men have walked.
    pub(crate) advancement: u32,
    /// Men placement of side 0.
    pub(crate) men: u64,
    /// Men placement, in the other stored side, of the same men with the
    /// other side to move.
    pub(crate) mirror_men: u64,
}

/// Every slice of a pair in one list, most advanced first, and where each
/// group (one advancement; its slices are independent of each other)
/// starts and ends in it. One list, filled in place: a men-only material
/// has a slice per position (`MM-MMMM`: 125 M of them, 3 GB).
pub(crate) struct SliceGroups {
    slices: Vec<Slice>,
    bounds: Vec<std::ops::Range<usize>>,
}

impl SliceGroups {
    /// The groups, most advanced first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[Slice]> {
        self.bounds.iter().map(|r| &self.slices[r.clone()])
    }

    /// Group `k`.
    pub(crate) fn group(&self, k: usize) -> &[Slice] {
        &self.slices[self.bounds[k].clone()]
    }

    /// The number of groups.
    pub(crate) fn len(&self) -> usize {
        self.bounds.len()
    }

    /// The number of slices.
    pub(crate) fn slice_count(&self) -> usize {
        self.slices.len()
    }
}

/// Every slice of the pair, most advanced first, grouped by advancement.
pub(crate) fn slice_groups(sides: &[PackedSide]) -> Result<SliceGroups, GenError> {
    let first = &sides[0].index;
    let other = &sides[sides.len() - 1].index;
    let symmetric = sides.len() == 1;
    let placements = first.men_placements();
    let capacity =
        usize::try_from(placements).map_err(|_| GenError::TooLarge(sides[0].material))?;
    let mut slices: Vec<Slice> = Vec::with_capacity(capacity);
    // Chunk by chunk into the one list, so that it is never held twice.
    const CHUNK: u64 = 1 << 20;
    for start in (0..placements).step_by(CHUNK as usize) {
        let chunk: Vec<Slice> = (start..(start + CHUNK).min(placements))
            .into_par_iter()
            .filter_map(|men| {
                let [wm, _, bm, _] = first.unrank_masks(men * first.king_placements());
                let mirror_men = other.rank_masks(dense::flip(bm), 0, dense::flip(wm), 0)
                    / other.king_placements();
                // A symmetric material meets each pair of placements twice.
                if symmetric && mirror_men < men {
                    return None;
                }
                Some(Slice {
                    advancement: advancement(wm, bm),
                    men,
                    mirror_men,
                })
            })
            .collect();
        slices.extend(chunk);
    }
    slices.par_sort_unstable_by_key(|s| (std::cmp::Reverse(s.advancement), s.men));
    let mut bounds = Vec::new();
    let mut start = 0;
    for i in 1..=slices.len() {
        if i == slices.len() || slices[i].advancement != slices[start].advancement {
            bounds.push(start..i);
            start = i;
        }
    }
    Ok(SliceGroups { slices, bounds })
}

/// Node states inside a slice.
const UNKNOWN: u8 = 0;
const LOST: u8 = 1;
const DRAWN: u8 = 2;
const WON: u8 = 3;

/// Node flags: some exit draws (the node cannot be lost).
const ESCAPE: u8 = 1;
/// Node flags: a capture position (its king moves are not legal).
const CAPTURE: u8 = 2;

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
    side: usize,
    base: u64,
    white_men: u64,
    black_men: u64,
    /// The steps White's men can make where no man blocks them (a king may
    /// still stand in the way), worked out once per slice.
    steps: [ManStep; MAX_STEPS],
    step_count: usize,
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
    /// Its index with no kings placed: `men_placement * king_placements`.
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
    pub(crate) sides: &'a [PackedSide],
    /// The counted ending of the pair, if it is one.
    pub(crate) class: Option<CountedEnding>,
    /// Labels mode: the results are known already (written in `sides`
    /// beforehand) and the solve finds only distances to conversion (used
    /// for the counted endings, whose results the whole-material solver
    /// finds); a result that comes out different is an error.
    pub(crate) labels: bool,
    /// The tables captures and crownings lead to, read directly (outside
    /// the counted endings).
    pub(crate) children: ChildTables<'a>,
}

impl SliceSolver<'_> {
    /// The stored ranges of `slice` (one when both sides to move are the
    /// same range, in a symmetric material with a symmetric placement).
    fn parts(&self, slice: &Slice) -> Vec<Part> {
        let first = &self.sides[0].index;
        let kings = first.king_placements();
        let [white_men, _, black_men, _] = first.unrank_masks(slice.men * kings);
        let other = self.sides.len() - 1;
        let a = Part {
            side: 0,
            base: slice.men * kings,
            white_men,
            black_men,
            steps: [ManStep::default(); MAX_STEPS],
            step_count: 0,
        };
        let b = Part {
            side: other,
            base: slice.mirror_men * kings,
            white_men: dense::flip(black_men),
            black_men: dense::flip(white_men),
            ..a
        };
        let mut parts = if other == 0 && slice.men == slice.mirror_men {
            vec![a]
        } else {
            vec![a, b]
        };
        for x in 0..parts.len() {
            let to = parts[other_part(&parts, x)];
            self.list_steps(&mut parts[x], &to);
        }
        parts
    }

    /// Fills `part.steps`: its White men's steps, and where each leads in
    /// `to`.
    fn list_steps(&self, part: &mut Part, to: &Part) {
        let to_index = &self.sides[to.side].index;
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
                part.steps[part.step_count] = ManStep {
                    from: from as u8,
                    to: square,
                    child_men: to.white_men | after,
                    child_base: to_index.rank_masks(to.white_men, 0, after, 0),
                };
                part.step_count += 1;
            }
        }
    }

    /// The nodes of a slice: its king placements in each of its parts.
    fn node_count(&self, parts: &[Part]) -> Result<usize, GenError> {
        let n = parts.len() as u64 * self.sides[0].index.king_placements();
        u32::try_from(n)
            .map(|n| n as usize)
            .map_err(|_| GenError::TooLarge(self.sides[0].material))
    }

    /// The part, king placement and kings of node `node`.
    #[inline]
    fn node_kings(&self, parts: &[Part], node: usize) -> (usize, u64, u64, u64) {
        let kings = self.sides[0].index.king_placements();
        let x = (node as u64 / kings) as usize;
        let k = node as u64 % kings;
        let part = &parts[x];
        let (wk, bk) = self.sides[part.side].index.unrank_kings(part.men(), k);
        (x, k, wk, bk)
    }

    /// Solves one slice in this thread and stores its values; returns its
    /// positions.
    pub(crate) fn solve(&self, slice: &Slice, scratch: &mut SliceScratch) -> Result<u64, GenError> {
        let parts = self.parts(slice);
        let n = self.node_count(&parts)?;
        scratch.cells.clear();
        scratch.queue.clear();
        scratch.next.clear();
        for (node, kings) in self.walk_nodes(&parts, 0..n) {
            let init = self.examine_node(&parts, node, kings, &mut scratch.moves)?;
            scratch.cells.push(cell_of(&init));
            if matches!(init.state, WON | LOST) {
                self.store_dtc(&parts, node, u32::from(init.level));
                match init.level {
                    0 => scratch.queue.push(node as u32),
                    _ => scratch.next.push(node as u32),
                }
            }
        }
        let cells = &mut scratch.cells;
        let mut preds = [0u32; MAX_PREDECESSORS];
        let mut level = 0;
        loop {
            for &c in &scratch.queue {
                let lost = state_in(cells[c as usize]) == LOST;
                let count = self.predecessors(&parts, c as usize, &mut preds);
                for &p in &preds[..count] {
                    let p = p as usize;
                    let cell = cells[p];
                    if state_in(cell) != UNKNOWN || flags_in(cell) & CAPTURE != 0 {
                        continue;
                    }
                    if lost {
                        cells[p] = with_state(cell, WON);
                    } else if cell as u8 == 1 && flags_in(cell) & ESCAPE == 0 {
                        cells[p] = with_state(cell - 1, LOST);
                    } else {
                        cells[p] = cell - 1;
                        continue;
                    }
                    scratch.next.push(p as u32);
                    self.store_dtc(&parts, p, level + 1);
                }
            }
            if scratch.next.is_empty() {
                break;
            }
            std::mem::swap(&mut scratch.queue, &mut scratch.next);
            scratch.next.clear();
            level += 1;
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
        const CHUNK: usize = 1 << 14;
        let parts = self.parts(slice);
        let n = self.node_count(&parts)?;
        let cells: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(0)).collect();
        // Seeds at level 1 are marked by their DTC byte until their wave.
        let level_one: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
        cells
            .par_chunks(CHUNK)
            .enumerate()
            .try_for_each_init(Vec::new, |moves, (c, chunk)| {
                let first = c * CHUNK;
                for (node, kings) in self.walk_nodes(&parts, first..first + chunk.len()) {
                    let cell = &chunk[node - first];
                    let init = self.examine_node(&parts, node, kings, moves)?;
                    cell.store(cell_of(&init), Ordering::Relaxed);
                    if matches!(init.state, WON | LOST) {
                        self.store_dtc(&parts, node, u32::from(init.level));
                        level_one[node].store(init.level, Ordering::Relaxed);
                    }
                }
                progress.advance(chunk.len() as u64 / 2);
                Ok::<(), GenError>(())
            })?;
        let seeds = |level: u8| -> Vec<u32> {
            (0..n as u32)
                .into_par_iter()
                .filter(|&i| {
                    matches!(
                        state_in(cells[i as usize].load(Ordering::Relaxed)),
                        WON | LOST
                    ) && level_one[i as usize].load(Ordering::Relaxed) == level
                })
                .collect()
        };
        let mut wave = seeds(0);
        let mut later = Some(seeds(1));
        drop(level_one);
        let mut level = 0;
        loop {
            if wave.is_empty() && later.is_none() {
                break;
            }
            wave = wave
                .par_chunks(4096)
                .flat_map_iter(|chunk| {
                    let mut next = Vec::new();
                    let mut preds = [0u32; MAX_PREDECESSORS];
                    for &c in chunk {
                        let lost = state_in(cells[c as usize].load(Ordering::Relaxed)) == LOST;
                        let count = self.predecessors(&parts, c as usize, &mut preds);
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
            wave.par_iter()
                .for_each(|&p| self.store_dtc(&parts, p as usize, level));
            if let Some(seeds) = later.take() {
                wave.extend(seeds);
            }
        }
        cells
            .par_chunks(CHUNK)
            .enumerate()
            .try_for_each(|(c, chunk)| {
                let first = c * CHUNK;
                self.store_nodes(&parts, first..first + chunk.len(), |node| {
                    chunk[node - first].load(Ordering::Relaxed)
                })?;
                progress.advance(chunk.len() as u64 - chunk.len() as u64 / 2);
                Ok::<(), GenError>(())
            })?;
        Ok(n as u64)
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
        let kings = self.sides[0].index.king_placements() as usize;
        let mut node = nodes.start;
        while node < nodes.end {
            let x = node / kings;
            let end = nodes.end.min((x + 1) * kings);
            let part = &parts[x];
            let side = &self.sides[part.side];
            let first = part.base + (node - x * kings) as u64;
            if self.labels {
                for j in node..end {
                    self.check_label(side, first + (j - node) as u64, cell(j))?;
                }
            }
            side.store_run(first, (node..end).map(|j| node_value(cell(j))));
            node = end;
        }
        Ok(())
    }

    /// Labels mode: checks that position `i` of `side` solved (its cell
    /// `cell`) to the result its table states.
    fn check_label(&self, side: &PackedSide, i: u64, cell: Cell) -> Result<(), GenError> {
        let (code, capture) = node_value(cell);
        if capture || side.code(i) == code {
            return Ok(());
        }
        Err(GenError::Internal(format!(
            "{}: position {i} solves to WLD code {code}, its table says {}",
            side.material,
            side.code(i)
        )))
    }

    /// Records that node `node` settled at `level`: its DTC.
    #[inline]
    fn store_dtc(&self, parts: &[Part], node: usize, level: u32) {
        let kings = self.sides[0].index.king_placements();
        let part = &parts[(node as u64 / kings) as usize];
        self.sides[part.side].store_dtc(part.base + node as u64 % kings, level);
    }

    /// The nodes `nodes` in order, each with its kings `(white, black)`:
    /// the king placements are walked, not unranked one by one.
    fn walk_nodes<'p>(
        &'p self,
        parts: &'p [Part],
        nodes: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, (u64, u64))> + 'p {
        let kings = self.sides[0].index.king_placements() as usize;
        let first_part = nodes.start / kings;
        let last_part = nodes.end.div_ceil(kings);
        (first_part..last_part).flat_map(move |x| {
            let start = nodes.start.max(x * kings);
            let end = nodes.end.min((x + 1) * kings);
            let part = &parts[x];
            self.sides[part.side]
                .index
                .king_walk(part.men(), (start - x * kings) as u64)
                .take(end - start)
                .enumerate()
                .map(move |(j, placement)| (start + j, placement))
        })
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
        let king_placements = self.sides[0].index.king_placements();
        let x = (node as u64 / king_placements) as usize;
        let k = node as u64 % king_placements;
        let to = &parts[other_part(parts, x)];
        let init = self.examine(&parts[x], to, wk, bk, moves)?;
        if !self.labels || init.flags & CAPTURE != 0 {
            return Ok(init);
        }
        let part = &parts[x];
        let side = &self.sides[part.side];
        let i = part.base + k;
        match (Wdl::from_code(side.code(i)), init.state) {
            (Some(Wdl::Draw), _) => Ok(NodeInit {
                state: DRAWN,
                ..init
            }),
            (Some(Wdl::Win), WON) => Ok(init),
            // Never lost: it waits for a lost successor.
            (Some(Wdl::Win), UNKNOWN) => Ok(NodeInit {
                flags: init.flags | ESCAPE,
                ..init
            }),
            (Some(Wdl::Loss), LOST) => Ok(init),
            (Some(Wdl::Loss), UNKNOWN) if init.flags & ESCAPE == 0 => Ok(init),
            _ => Err(GenError::Internal(format!(
                "{}: position {i} has WLD code {}, which its moves cannot give",
                side.material,
                side.code(i)
            ))),
        }
    }

    /// Step 1 for one node (White to move, kings `wk`, `bk` beside the men
    /// of `part`): its state if settled, the count of its king moves, its
    /// exits. `to` is the range its moves lead into.
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
        let pos = Position::from_dense_masks(Color::White, wm | wk, bm | bk, wk | bk)
            .map_err(|e| GenError::Internal(format!("slice position: {e}")))?;
        if pos.has_capture() {
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
                flags: CAPTURE,
                level: 1,
            });
        }
        let inside = dense::king_move_count(wk, occupied);
        let mut escape = false;
        let mut wins = false;
        let mut exits = 0;
        let to_side = &self.sides[to.side];
        let (flipped_wk, flipped_bk) = (dense::flip(wk), dense::flip(bk));
        for step in &part.steps[..part.step_count] {
            if occupied >> step.to & 1 == 1 {
                continue;
            }
            exits += 1;
            let wdl = if step.to < 5 {
                let after = wm ^ (1 << step.from) ^ (1 << step.to);
                self.crowning_value(after, wk | 1 << step.to, bm, bk)?
            } else {
                let i = step.child_base
                    + to_side
                        .index
                        .king_rank(step.child_men, flipped_bk, flipped_wk);
                Wdl::from_code(to_side.code(i)).unwrap_or(Wdl::Draw)
            };
            match wdl {
                Wdl::Loss => wins = true,
                Wdl::Draw => escape = true,
                Wdl::Win => {}
            }
        }
        let state = if wins {
            WON
        } else if inside == 0 {
            // No king move: drawn if an exit draws, else lost (every
            // move, if there is any, leads to a win for the opponent).
            if escape {
                DRAWN
            } else {
                LOST
            }
        } else {
            UNKNOWN
        };
        Ok(NodeInit {
            state,
            counter: u8::try_from(inside)
                .map_err(|_| GenError::Internal("more than 255 king moves".into()))?,
            flags: if escape { ESCAPE } else { 0 },
            // No move at all ends the game: DTC 0.
            level: u8::from(inside + exits > 0),
        })
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
        let kings = self.sides[0].index.king_placements();
        let (x, _, wk, bk) = self.node_kings(parts, c);
        let part = &parts[x];
        let y = other_part(parts, x);
        let to = &parts[y];
        let occupied = part.men() | wk | bk;
        let to_index = &self.sides[to.side].index;
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
        if state_in(v) != UNKNOWN || flags_in(v) & CAPTURE != 0 {
            return false;
        }
        let new = if lost {
            with_state(v, WON)
        } else if v as u8 == 1 && flags_in(v) & ESCAPE == 0 {
            with_state(v - 1, LOST)
        } else {
            v - 1
        };
        match cell.compare_exchange_weak(v, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return state_in(new) != UNKNOWN,
            Err(now) => v = now,
        }
    }
}

/// The WLD code and capture mark a node's final cell stores.
#[inline]
fn node_value(cell: Cell) -> (u8, bool) {
    let code = match state_in(cell) {
        WON => Wdl::Win,
        LOST => Wdl::Loss,
        _ => Wdl::Draw,
    };
    (code.code(), flags_in(cell) & CAPTURE != 0)
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
        Wdl::Win => WON,
        Wdl::Draw => DRAWN,
        Wdl::Loss => LOST,
    }
}

/// Empty finished values for `material` and its mirror (one side if
/// symmetric), with room for DTC values if `with_dtc`.
pub(crate) fn pair_sides(material: Material, with_dtc: bool) -> Result<Vec<PackedSide>, GenError> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    materials
        .into_iter()
        .map(|m| PackedSide::new(m, with_dtc))
        .collect()
}

/// Solves `material` and its mirror slice by slice under `rule_set`,
/// reading smaller tables through `tb`; with DTC values if `with_dtc`.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    material: Material,
    progress: &Progress,
    with_dtc: bool,
) -> Result<PackedPair, GenError> {
    let sides = pair_sides(material, with_dtc)?;
    solve_with(tb, rule_set, sides, false, progress, None)
}

/// Finds the DTC values of a pair whose results are known: `sides` hold
/// them (WLD codes) and room for DTC values. Used for the counted endings;
/// any result its moves do not give is an error.
pub(crate) fn solve_dtc_of_known(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: Vec<PackedSide>,
    progress: &Progress,
) -> Result<PackedPair, GenError> {
    solve_with(tb, rule_set, sides, true, progress, None)
}

/// Solves the pair of `sides` (see [`SliceSolver::labels`] for `labels`),
/// with every slice solved by all threads together (`big`: `Some(true)`),
/// each by one thread (`Some(false)`), or as its size says (`None`).
fn solve_with(
    tb: &Tablebase,
    rule_set: RuleSet,
    sides: Vec<PackedSide>,
    labels: bool,
    progress: &Progress,
    big: Option<bool>,
) -> Result<PackedPair, GenError> {
    let material = sides[0].material;
    let solver = SliceSolver {
        tb,
        rule_set,
        sides: &sides,
        class: material.counted_ending(),
        labels,
        children: ChildTables::new(tb, rule_set, material),
    };
    let t0 = std::time::Instant::now();
    let groups = slice_groups(&sides)?;
    let slices = groups.slice_count();
    // Slices this big are solved one at a time by every thread; so are
    // those of groups too small to keep every thread busy (a one-man
    // material has 5 slices a group), unless tiny.
    const BIG: u64 = 1 << 23;
    const SMALL: u64 = 1 << 16;
    let nodes = 2 * sides[0].index.king_placements();
    let threads = rayon::current_num_threads();
    for group in groups.iter() {
        let few = group.len() < 4 * threads && nodes > SMALL;
        if big.unwrap_or(nodes > BIG || few) {
            for slice in group {
                solver.solve_big(slice, progress)?;
            }
            continue;
        }
        group
            .par_iter()
            .try_for_each_init(SliceScratch::default, |scratch, slice| {
                let n = solver.solve(slice, scratch)?;
                progress.advance(n);
                Ok::<(), GenError>(())
            })?;
    }
    if std::env::var_os("DTB_TIMING").is_some() {
        let positions: u64 = sides.iter().map(PackedSide::len).sum();
        let seconds = t0.elapsed().as_secs_f64();
        eprintln!(
            "{material}: {slices} slices, {positions} positions, {seconds:.2}s, {:.2} M positions/s",
            positions as f64 / seconds / 1e6
        );
    }
    Ok(PackedPair { sides })
}

/// One group of slices (one advancement) of a material pair, ready to be
/// solved again and again: a unit of work, for benchmarks.
pub struct SliceGroup {
    tb: Tablebase,
    rule_set: RuleSet,
    sides: Vec<PackedSide>,
    group: Vec<Slice>,
}

impl SliceGroup {
    /// Group `which` (0: the most advanced) of `material`'s pair, with the
    /// groups before it solved; the tables its moves lead to must be in
    /// `dir`. `None` when the pair has fewer groups, or is not solved by
    /// slices (the counted endings).
    pub fn prepare(
        dir: &std::path::Path,
        rule_set: RuleSet,
        material: Material,
        which: usize,
    ) -> Result<Option<SliceGroup>, GenError> {
        if !uses_slices(material) {
            return Ok(None);
        }
        let tb = crate::open_for_pair(dir, rule_set, material, 256 << 20, 2 << 30)?;
        let sides = pair_sides(material, false)?;
        let groups = slice_groups(&sides)?;
        if which >= groups.len() {
            return Ok(None);
        }
        let mut prepared = SliceGroup {
            tb,
            rule_set,
            sides,
            group: Vec::new(),
        };
        for earlier in 0..which {
            prepared.group = groups.group(earlier).to_vec();
            prepared.solve()?;
        }
        prepared.group = groups.group(which).to_vec();
        Ok(Some(prepared))
    }

    /// The positions of the group (both sides to move).
    pub fn positions(&self) -> u64 {
        self.sides[0].index.king_placements()
            * self
                .group
                .iter()
                .map(|s| {
                    if s.men == s.mirror_men && self.sides.len() == 1 {
                        1
                    } else {
                        2
                    }
                })
                .sum::<u64>()
    }

    /// Solves the group (storing the same values again); returns the
    /// positions solved.
    pub fn solve(&self) -> Result<u64, GenError> {
        let solver = SliceSolver {
            tb: &self.tb,
            rule_set: self.rule_set,
            sides: &self.sides,
            class: None,
            labels: false,
            children: ChildTables::new(&self.tb, self.rule_set, self.sides[0].material),
        };
        self.group
            .par_iter()
            .map_init(SliceScratch::default, |scratch, slice| {
                solver.solve(slice, scratch)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, GenOptions};

    #[test]
    fn advancement_counts_rows_walked() {
        // A White man on square 46 (dense 45) has walked 0 rows, on 6
        // (dense 5) 8; a Black man on 5 (dense 4) 0, on 45 (dense 44) 8.
        assert_eq!(advancement(1 << 45, 1 << 4), 0);
        assert_eq!(advancement(1 << 5, 1 << 44), 16);
    }

    #[test]
    fn big_slices_solve_to_the_same_values_as_small_ones() {
        let dir = tempfile::tempdir().unwrap();
        generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 4)).unwrap();
        let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
        for name in ["KK-KK", "KK-KM", "KM-MM", "MM-MM", "KKM-M"] {
            let m: Material = name.parse().unwrap();
            let progress = Progress::hidden();
            let solve = |big| {
                let sides = pair_sides(m, true).unwrap();
                solve_with(&tb, RuleSet::Fmjd, sides, false, &progress, Some(big)).unwrap()
            };
            let (small, big) = (solve(false), solve(true));
            for (a, b) in small.sides.iter().zip(&big.sides) {
                let words = a.len().div_ceil(32) as usize;
                assert!(
                    (0..words).all(|w| a.code_word(w) == b.code_word(w)),
                    "{name}"
                );
                let marks = a.len().div_ceil(64) as usize;
                assert!(
                    (0..marks).all(|w| a.capture_word(w) == b.capture_word(w)),
                    "{name}"
                );
                let decided = |i: u64| !a.is_capture(i) && a.code(i) != Wdl::Draw.code();
                assert!(
                    (0..a.len()).all(|i| !decided(i) || a.dtc(i) == b.dtc(i)),
                    "{name}: DTC"
                );
            }
            // And the table built before says the same.
            let side = &small.sides[0];
            for i in (0..side.len()).step_by(97) {
                if !side.is_capture(i) {
                    let stored = tb.probe(&side.index.unrank(i)).unwrap().wdl;
                    assert_eq!(stored.code(), side.code(i), "{name} {i}");
                }
            }
        }
    }
}
