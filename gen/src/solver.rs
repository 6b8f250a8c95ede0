//! The retrograde solver for one material and its mirror.
//!
//! Both sides to move are solved together: the White-to-move positions of
//! the material and those of its mirror (which are its Black-to-move
//! positions, colour-flipped). Every position is stored White to move, so a
//! move from a position of one side leads to a position of the other.
//!
//! 1. **Initial pass** (parallel over index ranges): capture positions take
//!    their value from smaller tables (the prober resolves them); positions
//!    without a move are lost; for the others, moves that leave the
//!    material (crownings) are looked up, and the moves that stay inside
//!    are counted.
//! 2. **Propagation** by levels of distance, 0, 1, 2, ...: from every
//!    position settled at level `t`, the retro moves give its
//!    predecessors. A lost position makes its predecessors won at `t + 1`;
//!    a won one decrements their counters, and a predecessor whose every
//!    move inside the material leads to a won position is lost at
//!    `1 + max(t, worst exit)`. Exits join at the level their distance
//!    gives. Counted endings apply their caps (see `format`'s
//!    `draw_counter`): a result that needs more plies than the counter can
//!    hold there is a draw.
//! 3. What is never settled is drawn.
//!
//! Per position: one state byte, one counter byte and one byte of exit
//! information; the lists of positions settled at each level.

use std::sync::atomic::{AtomicU8, Ordering};

use format::{child_view, plies_cap, ChildView, Material, MaterialIndex, RuleSet, TableValue, Wdl};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{CountedEnding, Move, Position};

use crate::error::GenError;
use crate::progress::Progress;

/// State byte: not settled yet.
pub(crate) const UNKNOWN: u8 = 0;
/// State byte: drawn for good (a result that the counter cuts off, or a
/// drawn capture position).
pub(crate) const DRAWN: u8 = 255;
const LOSS_BASE: u8 = 128;
const MAX_LEVEL_CODE: u32 = 126;

/// Exit byte: a capture position (its value came from smaller tables).
pub(crate) const CAPTURE: u8 = 254;
/// Exit byte: some move leaves the material to a result that is not a
/// win for the opponent, so this position can never be lost.
const CANNOT_LOSE: u8 = 255;

/// Entry flag: a position that wins at this level through an exit, unless
/// settled earlier.
const CANDIDATE: u64 = 1 << 62;
const SIDE_BIT: u64 = 1 << 63;
const INDEX_MASK: u64 = CANDIDATE - 1;
/// Entry value of a candidate already settled at a smaller level.
const SKIP: u64 = u64::MAX;

fn win_code(level: u32) -> u8 {
    level.clamp(1, MAX_LEVEL_CODE) as u8
}

fn loss_code(level: u32) -> u8 {
    LOSS_BASE + level.min(MAX_LEVEL_CODE) as u8
}

/// The result and distance held in a settled state byte.
pub(crate) fn decode_state(state: u8) -> (Wdl, u32) {
    match state {
        UNKNOWN | DRAWN => (Wdl::Draw, 0),
        1..=127 => (Wdl::Win, state as u32),
        _ => (Wdl::Loss, (state - LOSS_BASE) as u32),
    }
}

/// One side to move of the pair being solved.
pub(crate) struct Side {
    pub(crate) material: Material,
    pub(crate) index: MaterialIndex,
    pub(crate) class: Option<CountedEnding>,
    pub(crate) state: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
    pub(crate) exit: Vec<u8>,
}

/// The solved pair: one [`Side`] per stored material (one if symmetric).
pub(crate) struct Solved {
    pub(crate) sides: Vec<Side>,
    /// Whether distances are exact (distance tables) or only levels.
    pub(crate) levels: u32,
}

struct Solver<'a> {
    tb: &'a Tablebase,
    rule_set: RuleSet,
    sides: Vec<Side>,
    progress: &'a Progress,
}

/// What the initial pass found for one position.
struct Initial {
    state: u8,
    counter: u8,
    exit: u8,
    /// (level, entry) to queue.
    queue: Option<(u32, u64)>,
}

impl<'a> Solver<'a> {
    fn other(&self, side: usize) -> usize {
        if self.sides.len() == 1 {
            0
        } else {
            1 - side
        }
    }

    /// The most plies the counter can hold in `pos` (None: no cap).
    fn cap(&self, side: usize, pos: &Position) -> Option<u32> {
        plies_cap(self.rule_set, self.sides[side].class, pos)
    }

    fn exit_view(
        &self,
        class: Option<CountedEnding>,
        child: &Position,
    ) -> Result<ChildView, GenError> {
        let value = self.tb.probe(child)?;
        Ok(child_view(self.rule_set, class, Material::of(child), value))
    }

    fn initial(&self, side: usize, i: u64, moves: &mut Vec<Move>) -> Result<Initial, GenError> {
        let s = &self.sides[side];
        let pos = s.index.unrank(i);
        let entry = ((side as u64) << 63) | i;
        if pos.has_capture() {
            let value: TableValue = self.tb.probe(&pos)?;
            let (state, queue) = match (value.wdl, value.distance) {
                (Wdl::Draw, _) => (DRAWN, None),
                (wdl, d) => {
                    // WLD tables keep no distance: a capture position is
                    // one ply from settled values.
                    let level = d.map_or(1, u32::from);
                    let code = if wdl == Wdl::Win {
                        win_code(level.max(1))
                    } else {
                        loss_code(level)
                    };
                    (code, Some((level, entry)))
                }
            };
            return Ok(Initial {
                state,
                counter: 0,
                exit: CAPTURE,
                queue,
            });
        }
        pos.generate_moves(moves);
        if moves.is_empty() {
            return Ok(Initial {
                state: loss_code(0),
                counter: 0,
                exit: 0,
                queue: Some((0, entry)),
            });
        }
        let mut inside = 0u32;
        let mut best_exit_win: Option<u32> = None;
        let mut worst_exit: u32 = 0;
        let mut can_lose = true;
        for mv in moves.iter() {
            if !pos.is_crowning(mv) {
                inside += 1;
                continue;
            }
            let view = self.exit_view(s.class, &pos.play(mv))?;
            match view.wdl {
                Wdl::Loss => {
                    best_exit_win = Some(best_exit_win.map_or(view.plies, |b| b.min(view.plies)));
                    can_lose = false;
                }
                Wdl::Draw => can_lose = false,
                Wdl::Win => worst_exit = worst_exit.max(view.plies),
            }
        }
        let counter =
            u8::try_from(inside).map_err(|_| GenError::Internal("more than 255 moves".into()))?;
        let exit = if can_lose {
            u8::try_from(worst_exit)
                .unwrap_or(CAPTURE - 1)
                .min(CAPTURE - 1)
        } else {
            CANNOT_LOSE
        };
        let mut init = Initial {
            state: UNKNOWN,
            counter,
            exit,
            queue: None,
        };
        if let Some(w) = best_exit_win {
            init.queue = Some((w + 1, entry | CANDIDATE));
        } else if inside == 0 && can_lose {
            // Every move crowns into a position won for the opponent.
            let level = worst_exit + 1;
            if self.cap(side, &pos).is_some_and(|c| level > c) {
                init.state = DRAWN;
            } else {
                init.state = loss_code(level);
                init.queue = Some((level, entry));
            }
        }
        Ok(init)
    }

    /// The initial pass over both sides; returns the queue by level.
    fn initial_pass(&mut self) -> Result<Vec<Vec<u64>>, GenError> {
        const CHUNK: usize = 4096;
        let mut queue: Vec<Vec<u64>> = Vec::new();
        for side in 0..self.sides.len() {
            let count = self.sides[side].index.count() as usize;
            let mut exits = vec![0u8; count];
            let results: Vec<Result<Vec<(u32, u64)>, GenError>> = exits
                .par_chunks_mut(CHUNK)
                .enumerate()
                .map_init(Vec::new, |moves, (c, exit_chunk)| {
                    let start = c * CHUNK;
                    let s = &self.sides[side];
                    let mut local = Vec::new();
                    for (k, exit) in exit_chunk.iter_mut().enumerate() {
                        let i = start + k;
                        let init = self.initial(side, i as u64, moves)?;
                        s.state[i].store(init.state, Ordering::Relaxed);
                        s.counter[i].store(init.counter, Ordering::Relaxed);
                        *exit = init.exit;
                        if let Some(q) = init.queue {
                            local.push(q);
                        }
                    }
                    self.progress.advance(exit_chunk.len() as u64);
                    Ok(local)
                })
                .collect();
            for r in results {
                for (level, entry) in r? {
                    let level = level as usize;
                    if queue.len() <= level {
                        queue.resize_with(level + 1, Vec::new);
                    }
                    queue[level].push(entry);
                }
            }
            self.sides[side].exit = exits;
        }
        Ok(queue)
    }

    /// Settles `state` at `code` if it was unknown.
    fn settle(state: &AtomicU8, code: u8) -> bool {
        state
            .compare_exchange(UNKNOWN, code, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Settles a position that wins at `level` through an exit, unless a
    /// smaller level settled it already. Returns whether it was settled
    /// here as a win (and must be propagated).
    fn settle_candidate(&self, level: u32, entry: u64) -> bool {
        let side = usize::from(entry & SIDE_BIT != 0);
        let i = entry & INDEX_MASK;
        let s = &self.sides[side];
        if s.state[i as usize].load(Ordering::Acquire) != UNKNOWN {
            return false;
        }
        let code = match self.cap(side, &s.index.unrank(i)) {
            Some(c) if level > c => DRAWN,
            _ => win_code(level),
        };
        Self::settle(&s.state[i as usize], code) && code != DRAWN
    }

    /// Processes one queued entry at `level`; pushes newly settled
    /// predecessors to `next` as (level, entry).
    fn process(
        &self,
        level: u32,
        entry: u64,
        scratch: &mut Vec<Position>,
        next: &mut Vec<(u32, u64)>,
    ) {
        let side = usize::from(entry & SIDE_BIT != 0);
        let i = entry & INDEX_MASK;
        let s = &self.sides[side];
        let pos = s.index.unrank(i);
        let (wdl, _) = decode_state(s.state[i as usize].load(Ordering::Acquire));
        if wdl == Wdl::Draw {
            return;
        }
        let pred_side = self.other(side);
        let p = &self.sides[pred_side];
        scratch.clear();
        pos.flipped().quiet_unmoves(scratch);
        for prev in scratch.iter() {
            let j = p.index.rank(prev) as usize;
            if p.exit[j] == CAPTURE {
                continue;
            }
            if wdl == Wdl::Loss {
                let win_level = level + 1;
                let code = match self.cap(pred_side, prev) {
                    Some(c) if win_level > c => DRAWN,
                    _ => win_code(win_level),
                };
                if Self::settle(&p.state[j], code) && code != DRAWN {
                    next.push((win_level, ((pred_side as u64) << 63) | j as u64));
                }
            } else {
                let before = p.counter[j].fetch_sub(1, Ordering::AcqRel);
                if before != 1 || p.exit[j] == CANNOT_LOSE {
                    continue;
                }
                let loss_level = 1 + level.max(p.exit[j] as u32);
                let code = match self.cap(pred_side, prev) {
                    Some(c) if loss_level > c => DRAWN,
                    _ => loss_code(loss_level),
                };
                if Self::settle(&p.state[j], code) && code != DRAWN {
                    next.push((loss_level, ((pred_side as u64) << 63) | j as u64));
                }
            }
        }
    }

    fn propagate(&self, mut queue: Vec<Vec<u64>>) -> u32 {
        let mut level = 0usize;
        while level < queue.len() {
            let mut entries = std::mem::take(&mut queue[level]);
            // Exit wins of this level first: a position reached at this
            // level both by an exit and by a lost child one level down
            // must get this level, not the next.
            entries.par_iter_mut().for_each(|e| {
                if *e & CANDIDATE != 0 {
                    *e = if self.settle_candidate(level as u32, *e) {
                        *e & !CANDIDATE
                    } else {
                        SKIP
                    };
                }
            });
            entries.retain(|&e| e != SKIP);
            if !entries.is_empty() {
                let found: Vec<Vec<(u32, u64)>> = entries
                    .par_chunks(2048)
                    .map_init(Vec::new, |scratch, chunk| {
                        let mut next = Vec::new();
                        for &e in chunk {
                            self.process(level as u32, e, scratch, &mut next);
                        }
                        next
                    })
                    .collect();
                for (l, e) in found.into_iter().flatten() {
                    let l = l as usize;
                    if queue.len() <= l {
                        queue.resize_with(l + 1, Vec::new);
                    }
                    queue[l].push(e);
                }
                self.progress.level(level as u32);
            }
            level += 1;
        }
        level as u32
    }
}

/// Solves `material` and its mirror under `rule_set`, reading smaller
/// tables through `tb`.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    material: Material,
    progress: &Progress,
) -> Result<Solved, GenError> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    let sides = materials
        .into_iter()
        .map(|m| {
            let index = MaterialIndex::new(m);
            let n = usize::try_from(index.count()).map_err(|_| GenError::TooLarge(m))?;
            Ok(Side {
                material: m,
                class: m.counted_ending(),
                state: (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect(),
                counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
                exit: Vec::new(),
                index,
            })
        })
        .collect::<Result<Vec<Side>, GenError>>()?;
    let mut solver = Solver {
        tb,
        rule_set,
        sides,
        progress,
    };
    let queue = solver.initial_pass()?;
    let levels = solver.propagate(queue);
    Ok(Solved {
        sides: solver.sides,
        levels,
    })
}
