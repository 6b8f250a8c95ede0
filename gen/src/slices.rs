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
//! A slice is solved in memory of its own, sized by its king placements:
//! 1. every position is looked at once: a capture position takes its value
//!    from smaller tables (the prober resolves the capture), a man move or a
//!    crowning is an *exit* whose value is known, and each king move is an
//!    edge to another position of the slice;
//! 2. the edges are reversed and values propagate backwards from the
//!    settled positions (a lost position makes its predecessors won; a
//!    predecessor whose every king move leads to a won position, and whose
//!    exits all lose, is lost);
//! 3. what is never settled is drawn, and the slice's values go into the
//!    pair's finished values at 2 bits per position (and 1 bit marking
//!    capture positions, whose stored value is "don't care").
//!
//! Only materials outside the counted endings go this way: their tables
//! keep a bare result, which does not depend on the order in which values
//! settle. The counted endings (at most 4 pieces) keep distances, and the
//! materials without men are a single slice; both are solved whole by
//! [`crate::solver`].

use std::sync::atomic::{AtomicU64, Ordering};

use format::{child_view, Material, MaterialIndex, RuleSet, UnrankCursor, Wdl};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, Move, Position};

use crate::error::GenError;
use crate::progress::Progress;

/// Whether `material` (and its mirror) is solved slice by slice.
pub(crate) fn uses_slices(material: Material) -> bool {
    material.counted_ending().is_none() && material.men() > 0
}

/// The finished values of one side of a pair: a WLD code per position (2
/// bits, 32 positions a word) and a capture mark (1 bit).
pub(crate) struct PackedSide {
    /// The material (White to move).
    pub(crate) material: Material,
    /// Its index.
    pub(crate) index: MaterialIndex,
    codes: Vec<AtomicU64>,
    captures: Vec<AtomicU64>,
}

impl PackedSide {
    fn new(material: Material) -> Result<PackedSide, GenError> {
        let index = MaterialIndex::new(material);
        let n = usize::try_from(index.count()).map_err(|_| GenError::TooLarge(material))?;
        Ok(PackedSide {
            material,
            index,
            codes: (0..n.div_ceil(32)).map(|_| AtomicU64::new(0)).collect(),
            captures: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        })
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

    /// Records the value of position `i` (written once; slices running
    /// side by side may share a word, hence the atomic `or`).
    fn store(&self, i: u64, code: u8, capture: bool) {
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

/// A dense mask (bit `i` = square `i + 1`) seen from the other side of the
/// board (square `s` becomes `51 - s`).
#[inline]
fn flip_dense(mask: u64) -> u64 {
    mask.reverse_bits() >> 14
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

/// Every slice of the pair, most advanced first, grouped by advancement
/// (each group's slices are independent of each other).
pub(crate) fn slice_groups(sides: &[PackedSide]) -> Vec<Vec<Slice>> {
    let first = &sides[0].index;
    let other = &sides[sides.len() - 1].index;
    let symmetric = sides.len() == 1;
    let mut slices: Vec<Slice> = (0..first.men_placements())
        .into_par_iter()
        .filter_map(|men| {
            let [wm, _, bm, _] = first.unrank_masks(men * first.king_placements());
            let mirror_men =
                other.rank_masks(flip_dense(bm), 0, flip_dense(wm), 0) / other.king_placements();
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
    slices.sort_by_key(|s| (std::cmp::Reverse(s.advancement), s.men));
    let mut groups: Vec<Vec<Slice>> = Vec::new();
    for s in slices {
        match groups.last_mut() {
            Some(g) if g[0].advancement == s.advancement => g.push(s),
            _ => groups.push(vec![s]),
        }
    }
    groups
}

/// Node states inside a slice.
const UNKNOWN: u8 = 0;
const LOST: u8 = 1;
const DRAWN: u8 = 2;
const WON: u8 = 3;

/// One stored range of a slice: a side of the pair and where its positions
/// start in that side's index.
#[derive(Clone, Copy)]
struct Part {
    side: usize,
    base: u64,
}

/// Per-thread memory of slice solves, reused from slice to slice.
#[derive(Default)]
pub(crate) struct SliceScratch {
    moves: Vec<Move>,
    state: Vec<u8>,
    counter: Vec<u8>,
    escape: Vec<bool>,
    capture: Vec<bool>,
    edge_start: Vec<u32>,
    edges: Vec<u32>,
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    queue: Vec<u32>,
}

/// Solves the slices of one pair, writing into `sides`.
pub(crate) struct SliceSolver<'a> {
    pub(crate) tb: &'a Tablebase,
    pub(crate) rule_set: RuleSet,
    pub(crate) sides: &'a [PackedSide],
}

impl SliceSolver<'_> {
    /// The stored ranges of `slice` (one when both sides to move are the
    /// same range, in a symmetric material with a symmetric placement).
    fn parts(&self, slice: &Slice) -> Vec<Part> {
        let kings = self.sides[0].index.king_placements();
        let other = self.sides.len() - 1;
        let a = Part {
            side: 0,
            base: slice.men * kings,
        };
        let b = Part {
            side: other,
            base: slice.mirror_men * kings,
        };
        if other == 0 && slice.men == slice.mirror_men {
            vec![a]
        } else {
            vec![a, b]
        }
    }

    /// Solves one slice and stores its values; returns its positions.
    pub(crate) fn solve(&self, slice: &Slice, scratch: &mut SliceScratch) -> Result<u64, GenError> {
        let parts = self.parts(slice);
        let kings = self.sides[0].index.king_placements();
        let n = parts.len() as u64 * kings;
        if n > u32::MAX as u64 {
            return Err(GenError::TooLarge(self.sides[0].material));
        }
        self.look_at_every_position(&parts, kings, scratch)?;
        reverse_edges(scratch);
        propagate(scratch);
        for (x, part) in parts.iter().enumerate() {
            let side = &self.sides[part.side];
            for k in 0..kings {
                let node = (x as u64 * kings + k) as usize;
                let code = match scratch.state[node] {
                    WON => Wdl::Win,
                    LOST => Wdl::Loss,
                    _ => Wdl::Draw,
                }
                .code();
                side.store(part.base + k, code, scratch.capture[node]);
            }
        }
        Ok(n)
    }

    /// Step 1: states, counters, exits and king-move edges of every node.
    fn look_at_every_position(
        &self,
        parts: &[Part],
        kings: u64,
        s: &mut SliceScratch,
    ) -> Result<(), GenError> {
        let n = parts.len() * kings as usize;
        s.state.clear();
        s.state.resize(n, UNKNOWN);
        s.counter.clear();
        s.counter.resize(n, 0);
        s.escape.clear();
        s.escape.resize(n, false);
        s.capture.clear();
        s.capture.resize(n, false);
        s.edge_start.clear();
        s.edges.clear();
        for (x, part) in parts.iter().enumerate() {
            let y = if parts.len() == 2 { 1 - x } else { 0 };
            let to = parts[y];
            let index = &self.sides[part.side].index;
            let mut cursor = UnrankCursor::default();
            for k in 0..kings {
                let node = x * kings as usize + k as usize;
                s.edge_start.push(s.edges.len() as u32);
                let pos = index.unrank_with(part.base + k, &mut cursor);
                self.look_at(&pos, node, to, y as u64 * kings, s)?;
            }
        }
        s.edge_start.push(s.edges.len() as u32);
        Ok(())
    }

    /// Step 1 for one node: `to` is the range its king moves lead into,
    /// starting at node `to_first`.
    fn look_at(
        &self,
        pos: &Position,
        node: usize,
        to: Part,
        to_first: u64,
        s: &mut SliceScratch,
    ) -> Result<(), GenError> {
        pos.generate_moves(&mut s.moves);
        if s.moves.first().is_some_and(|m| m.is_capture()) {
            let value = self.tb.probe_capture(pos, &s.moves)?;
            s.capture[node] = true;
            s.state[node] = state_of(value.wdl);
            return Ok(());
        }
        if s.moves.is_empty() {
            s.state[node] = LOST;
            return Ok(());
        }
        let own_kings = pos.kings(Color::White);
        let to_side = &self.sides[to.side];
        let mut inside = 0u32;
        let mut escape = false;
        let mut wins = false;
        for mv in &s.moves {
            let child = pos.play(mv);
            if own_kings.contains(mv.from()) {
                let stored = child.flipped();
                let local = to_side.index.rank(&stored) - to.base;
                s.edges.push((to_first + local) as u32);
                inside += 1;
                continue;
            }
            let wdl = if pos.is_crowning(mv) {
                let value = self.tb.probe(&child)?;
                child_view(self.rule_set, None, Material::of(&child), value).wdl
            } else {
                let stored = child.flipped();
                let code = to_side.code(to_side.index.rank(&stored));
                Wdl::from_code(code).unwrap_or(Wdl::Draw)
            };
            match wdl {
                Wdl::Loss => wins = true,
                Wdl::Draw => escape = true,
                Wdl::Win => {}
            }
        }
        s.state[node] = if wins {
            WON
        } else if inside == 0 {
            if escape {
                DRAWN
            } else {
                LOST
            }
        } else {
            UNKNOWN
        };
        s.counter[node] = u8::try_from(inside)
            .map_err(|_| GenError::Internal("more than 255 king moves".into()))?;
        s.escape[node] = escape;
        Ok(())
    }
}

fn state_of(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Win => WON,
        Wdl::Draw => DRAWN,
        Wdl::Loss => LOST,
    }
}

/// Step 2a: the predecessors of every node, from the edges (counting sort).
fn reverse_edges(s: &mut SliceScratch) {
    let n = s.state.len();
    s.pred_start.clear();
    s.pred_start.resize(n + 1, 0);
    for &t in &s.edges {
        s.pred_start[t as usize + 1] += 1;
    }
    for i in 0..n {
        s.pred_start[i + 1] += s.pred_start[i];
    }
    s.preds.clear();
    s.preds.resize(s.edges.len(), 0);
    // Fill from the back of each range, walking sources downwards so that
    // each list ends sorted (not needed, but deterministic).
    let mut fill: Vec<u32> = s.pred_start[1..].to_vec();
    for from in (0..n).rev() {
        let (a, b) = (s.edge_start[from] as usize, s.edge_start[from + 1] as usize);
        for &t in &s.edges[a..b] {
            fill[t as usize] -= 1;
            s.preds[fill[t as usize] as usize] = from as u32;
        }
    }
}

/// Step 2b: propagation from every settled win and loss.
fn propagate(s: &mut SliceScratch) {
    s.queue.clear();
    s.queue.extend(
        (0..s.state.len() as u32).filter(|&i| matches!(s.state[i as usize], WON | LOST)),
    );
    while let Some(c) = s.queue.pop() {
        let lost = s.state[c as usize] == LOST;
        let (a, b) = (
            s.pred_start[c as usize] as usize,
            s.pred_start[c as usize + 1] as usize,
        );
        for &p in &s.preds[a..b] {
            let p = p as usize;
            if s.state[p] != UNKNOWN {
                continue;
            }
            if lost {
                s.state[p] = WON;
                s.queue.push(p as u32);
            } else {
                s.counter[p] -= 1;
                if s.counter[p] == 0 && !s.escape[p] {
                    s.state[p] = LOST;
                    s.queue.push(p as u32);
                }
            }
        }
    }
}

/// Solves `material` and its mirror slice by slice under `rule_set`,
/// reading smaller tables through `tb`.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    material: Material,
    progress: &Progress,
) -> Result<PackedPair, GenError> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    let sides = materials
        .into_iter()
        .map(PackedSide::new)
        .collect::<Result<Vec<_>, _>>()?;
    let solver = SliceSolver {
        tb,
        rule_set,
        sides: &sides,
    };
    for group in slice_groups(&sides) {
        group.par_iter().try_for_each_init(SliceScratch::default, |scratch, slice| {
            let n = solver.solve(slice, scratch)?;
            progress.advance(n);
            Ok::<(), GenError>(())
        })?;
    }
    Ok(PackedPair { sides })
}
