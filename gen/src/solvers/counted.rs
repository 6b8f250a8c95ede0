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
//! Per position one 32-bit cell (a state byte, a counter byte, a byte of
//! exit information and the level of a possible exit win side by side, so
//! that a predecessor costs one memory access), and the lists of positions
//! settled at each level, within a budget (see [`crate::solvers::level_queue`]):
//! a level whose list would not fit is found by a sweep over the cells.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use format::{
    child_view, plies_cap, ChildView, Material, MaterialIndex, RuleSet, TableValue, UnrankCursor,
    Wdl,
};
use probe::generator::GeneratorHooks;
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, CountedEnding, Move, Position, SquareSet};

use crate::solvers::level_queue::{LevelQueue, LevelWork, FIRST_UNSCANNABLE};
use plan::GenError;
use plan::Progress;

/// State byte: not settled yet.
pub(crate) const STATE_UNSETTLED: u8 = 0;
/// State byte: drawn for good (a result that the counter cuts off, or a
/// drawn capture position).
pub(crate) const STATE_DRAWN: u8 = 255;
const STATE_LOSS_BASE: u8 = 128;
const MAX_LEVEL_CODE: u32 = 126;

/// Exit byte: a capture position (its value came from smaller tables).
pub(crate) const EXIT_CAPTURE: u8 = 254;
/// Exit byte: some move leaves the material to a result that is not a
/// win for the opponent, so this position can never be lost.
const EXIT_CANNOT_LOSE: u8 = 255;

/// Entry flag: a position that wins at this level through an exit, unless
/// settled earlier.
const CANDIDATE: u64 = 1 << 62;
const SIDE_BIT: u64 = 1 << 63;
const INDEX_MASK: u64 = CANDIDATE - 1;
/// Entry value of a candidate already settled at a smaller level.
const SKIP: u64 = u64::MAX;

/// Squares 6-10, from which a White man steps onto its crowning row.
const NEXT_TO_CROWNING: SquareSet = SquareSet::from_dense(0b11111 << 5);

fn win_code(level: u32) -> u8 {
    level.clamp(1, MAX_LEVEL_CODE) as u8
}

fn loss_code(level: u32) -> u8 {
    STATE_LOSS_BASE + level.min(MAX_LEVEL_CODE) as u8
}

/// The result and distance held in a settled state byte.
pub(crate) fn decode_state(state: u8) -> (Wdl, u32) {
    match state {
        STATE_UNSETTLED | STATE_DRAWN => (Wdl::Draw, 0),
        1..=127 => (Wdl::Win, state as u32),
        _ => (Wdl::Loss, (state - STATE_LOSS_BASE) as u32),
    }
}

/// One side to move of the pair being solved.
pub(crate) struct Side {
    pub(crate) material: Material,
    pub(crate) index: MaterialIndex,
    pub(crate) class: Option<CountedEnding>,
    /// Per position: state (bits 0-7), counter (8-15), exit (16-23), the
    /// level at which an exit wins if nothing settles it earlier (24-31;
    /// 0: none, or a level too high to scan for).
    cells: Vec<AtomicU32>,
}

const COUNTER_ONE: u32 = 1 << 8;

impl Side {
    /// The state byte of position `i`.
    pub(crate) fn state(&self, i: usize) -> u8 {
        self.cells[i].load(Ordering::Acquire) as u8
    }

    /// The exit byte of position `i`.
    pub(crate) fn exit(&self, i: usize) -> u8 {
        (self.cells[i].load(Ordering::Relaxed) >> 16) as u8
    }

    fn init(&self, i: usize, init: &Initial) {
        let v = init.state as u32
            | (init.counter as u32) << 8
            | (init.exit as u32) << 16
            | (init.candidate as u32) << 24;
        self.cells[i].store(v, Ordering::Relaxed);
    }

    /// Sets the state of position `i` to `code` if it is unknown.
    fn settle(&self, i: usize, code: u8) -> bool {
        let cell = &self.cells[i];
        let mut v = cell.load(Ordering::Acquire);
        loop {
            if v as u8 != STATE_UNSETTLED {
                return false;
            }
            match cell.compare_exchange_weak(
                v,
                (v & !0xFF) | code as u32,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
    }

    /// Decrements the counter of position `i`; returns the counter before
    /// and the exit byte.
    fn decrement(&self, i: usize) -> (u8, u8) {
        let before = self.cells[i].fetch_sub(COUNTER_ONE, Ordering::AcqRel);
        ((before >> 8) as u8, (before >> 16) as u8)
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }
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

/// Per-thread buffers of the initial pass.
#[derive(Default)]
struct Scratch {
    moves: Vec<Move>,
    cursor: UnrankCursor,
}

/// What the initial pass found for one position.
struct Initial {
    state: u8,
    counter: u8,
    exit: u8,
    /// The level of an exit win, for the cell's candidate byte.
    candidate: u8,
    /// (level, entry) to queue.
    queue: Option<(u32, u64)>,
}

/// The crowning moves of a position without a capture, as the initial
/// pass sees them.
struct CrowningExits {
    /// How many quiet moves crown (and so leave the material).
    crownings: u32,
    /// The fewest plies to the end among crownings that reach a loss for
    /// the opponent (a win for the mover), if any.
    best_loss: Option<u32>,
    /// The most plies to the end among crownings that reach a win for the
    /// opponent.
    worst_win: u32,
    /// Whether every crowning reaches a win for the opponent (none draws
    /// or wins for the mover).
    can_lose: bool,
}

/// The initial state of a capture position: its value, resolved through
/// the capture, settled at once.
fn capture_initial(value: TableValue, entry: u64) -> Initial {
    let (state, queue) = match (value.wdl, value.distance) {
        (Wdl::Draw, _) => (STATE_DRAWN, None),
        (wdl, d) => {
            // WLD tables keep no distance: a capture position is
            // one ply from settled values.
            let level = d.map_or(1, u32::from);
            let (level, code) = if wdl == Wdl::Win {
                (level.max(1), win_code(level.max(1)))
            } else {
                (level, loss_code(level))
            };
            (code, Some((level, entry)))
        }
    };
    Initial {
        state,
        counter: 0,
        exit: EXIT_CAPTURE,
        candidate: 0,
        queue,
    }
}

/// Locks the queue; a worker that panicked has already failed the run, so
/// a poisoned lock is taken as it is.
fn lock(queue: &Mutex<LevelQueue>) -> MutexGuard<'_, LevelQueue> {
    queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The entry of position `i` of side `side` in a level list.
fn entry_of(side: usize, i: usize) -> u64 {
    ((side as u64) << 63) | i as u64
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

    fn initial(&self, side: usize, i: u64, scratch: &mut Scratch) -> Result<Initial, GenError> {
        let s = &self.sides[side];
        let pos = s.index.unrank_with(i, &mut scratch.cursor);
        let moves = &mut scratch.moves;
        let entry = ((side as u64) << 63) | i;
        if pos.has_capture() {
            pos.generate_moves(moves);
            let value: TableValue = self.tb.probe_capture(&pos, moves)?;
            return Ok(capture_initial(value, entry));
        }
        let quiet = pos.quiet_move_count() as u32;
        if quiet == 0 {
            return Ok(Initial {
                state: loss_code(0),
                counter: 0,
                exit: 0,
                candidate: 0,
                queue: Some((0, entry)),
            });
        }
        let exits = self.crowning_exits(s.class, &pos, moves)?;
        let inside = quiet - exits.crownings;
        let counter =
            u8::try_from(inside).map_err(|_| GenError::Internal("more than 255 moves".into()))?;
        let exit = if exits.can_lose {
            u8::try_from(exits.worst_win)
                .unwrap_or(EXIT_CAPTURE - 1)
                .min(EXIT_CAPTURE - 1)
        } else {
            EXIT_CANNOT_LOSE
        };
        let mut init = Initial {
            state: STATE_UNSETTLED,
            counter,
            exit,
            candidate: 0,
            queue: None,
        };
        if let Some(w) = exits.best_loss {
            if ((w + 1) as usize) < FIRST_UNSCANNABLE {
                init.candidate = (w + 1) as u8;
            }
            init.queue = Some((w + 1, entry | CANDIDATE));
        } else if inside == 0 && exits.can_lose {
            // Every move crowns into a position won for the opponent.
            let level = exits.worst_win + 1;
            if self.cap(side, &pos).is_some_and(|c| level > c) {
                init.state = STATE_DRAWN;
            } else {
                init.state = loss_code(level);
                init.queue = Some((level, entry));
            }
        }
        Ok(init)
    }

    /// The quiet moves of `pos` that leave the material (a White man
    /// crowning) and the values they reach.
    fn crowning_exits(
        &self,
        class: Option<CountedEnding>,
        pos: &Position,
        moves: &mut Vec<Move>,
    ) -> Result<CrowningExits, GenError> {
        let mut exits = CrowningExits {
            crownings: 0,
            best_loss: None,
            worst_win: 0,
            can_lose: true,
        };
        // Only White men next to the crowning row (squares 6-10) can leave
        // the material by a quiet move; list moves only then.
        if (pos.men(Color::White) & NEXT_TO_CROWNING).is_empty() {
            return Ok(exits);
        }
        pos.generate_moves(moves);
        for mv in moves.iter().filter(|mv| pos.is_crowning(mv)) {
            exits.crownings += 1;
            let view = self.exit_view(class, &pos.play(mv))?;
            match view.wdl {
                Wdl::Loss => {
                    exits.best_loss =
                        Some(exits.best_loss.map_or(view.plies, |b| b.min(view.plies)));
                    exits.can_lose = false;
                }
                Wdl::Draw => exits.can_lose = false,
                Wdl::Win => exits.worst_win = exits.worst_win.max(view.plies),
            }
        }
        Ok(exits)
    }

    /// The initial pass over both sides: fills the cells and `queue`.
    fn initial_pass(&self, queue: &Mutex<LevelQueue>) -> Result<(), GenError> {
        const CHUNK: u64 = 4096;
        for side in 0..self.sides.len() {
            let count = self.sides[side].index.count();
            (0..count.div_ceil(CHUNK))
                .into_par_iter()
                .try_for_each_init(
                    || (Scratch::default(), Vec::new()),
                    |(scratch, local), c| {
                        let start = c * CHUNK;
                        let end = (start + CHUNK).min(count);
                        let s = &self.sides[side];
                        for i in start..end {
                            let init = self.initial(side, i, scratch)?;
                            s.init(i as usize, &init);
                            local.extend(init.queue);
                        }
                        lock(queue).extend(local.drain(..));
                        self.progress.advance(end - start);
                        Ok::<(), GenError>(())
                    },
                )?;
        }
        Ok(())
    }

    /// Settles a position that wins at `level` through an exit, unless a
    /// smaller level settled it already. Returns whether it was settled
    /// here as a win (and must be propagated).
    fn settle_candidate(&self, level: u32, entry: u64) -> bool {
        let side = usize::from(entry & SIDE_BIT != 0);
        let i = entry & INDEX_MASK;
        let s = &self.sides[side];
        if s.state(i as usize) != STATE_UNSETTLED {
            return false;
        }
        let code = match self.cap(side, &s.index.unrank(i)) {
            Some(c) if level > c => STATE_DRAWN,
            _ => win_code(level),
        };
        s.settle(i as usize, code) && code != STATE_DRAWN
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
        let (wdl, _) = decode_state(s.state(i as usize));
        if wdl == Wdl::Draw {
            return;
        }
        let pred_side = self.other(side);
        let p = &self.sides[pred_side];
        scratch.clear();
        pos.flipped().quiet_unmoves(scratch);
        for prev in scratch.iter() {
            let j = p.index.rank(prev) as usize;
            // A capture position is settled already, and its move here is
            // not legal anyway (captures are compulsory).
            if p.exit(j) == EXIT_CAPTURE {
                continue;
            }
            if wdl == Wdl::Loss {
                let win_level = level + 1;
                let code = match self.cap(pred_side, prev) {
                    Some(c) if win_level > c => STATE_DRAWN,
                    _ => win_code(win_level),
                };
                if p.settle(j, code) && code != STATE_DRAWN {
                    next.push((win_level, ((pred_side as u64) << 63) | j as u64));
                }
            } else {
                let (before, exit) = p.decrement(j);
                if before != 1 || exit == EXIT_CANNOT_LOSE {
                    continue;
                }
                let loss_level = 1 + level.max(exit as u32);
                let code = match self.cap(pred_side, prev) {
                    Some(c) if loss_level > c => STATE_DRAWN,
                    _ => loss_code(loss_level),
                };
                if p.settle(j, code) && code != STATE_DRAWN {
                    next.push((loss_level, ((pred_side as u64) << 63) | j as u64));
                }
            }
        }
    }

    /// Settles and processes level by level until no level is left;
    /// returns the number of levels.
    fn propagate(&self, queue: &Mutex<LevelQueue>) -> u32 {
        let mut levels = 0;
        loop {
            let Some((level, work)) = lock(queue).take() else {
                break;
            };
            levels = level + 1;
            let what = match work {
                LevelWork::List(entries) => {
                    let n = entries.len();
                    self.run_list(level, entries, queue);
                    format!("{n} entries")
                }
                LevelWork::Scan => {
                    self.run_scan(level, queue);
                    "scanned".to_string()
                }
            };
            self.progress.level(level);
            self.progress.message(&format!("level {level}: {what}"));
        }
        levels
    }

    /// One level from its list.
    fn run_list(&self, level: u32, mut entries: Vec<u64>, queue: &Mutex<LevelQueue>) {
        // Exit wins of this level first: a position reached at this level
        // both by an exit and by a lost child one level down must get this
        // level, not the next.
        entries.par_iter_mut().for_each(|e| {
            if *e & CANDIDATE != 0 {
                *e = if self.settle_candidate(level, *e) {
                    *e & !CANDIDATE
                } else {
                    SKIP
                };
            }
        });
        entries.retain(|&e| e != SKIP);
        entries.par_chunks(2048).for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, next), chunk| {
                for &e in chunk {
                    self.process(level, e, scratch, next);
                }
                lock(queue).extend(next.drain(..));
            },
        );
    }

    /// One level by sweeps over the cells: the exit wins of the level
    /// (candidate byte) first, then every position whose state says it
    /// was settled at this level.
    fn run_scan(&self, level: u32, queue: &Mutex<LevelQueue>) {
        const CHUNK: usize = 1 << 14;
        debug_assert!((level as usize) < FIRST_UNSCANNABLE);
        let level_byte = level as u8;
        // Candidate byte 0 means none: exit wins start at level 1.
        let candidate_sides = if level == 0 { 0 } else { self.sides.len() };
        for side in 0..candidate_sides {
            let s = &self.sides[side];
            (0..s.len().div_ceil(CHUNK)).into_par_iter().for_each(|c| {
                for i in c * CHUNK..((c + 1) * CHUNK).min(s.len()) {
                    let v = s.cells[i].load(Ordering::Relaxed);
                    if (v >> 24) as u8 == level_byte && v as u8 == STATE_UNSETTLED {
                        self.settle_candidate(level, entry_of(side, i));
                    }
                }
            });
        }
        // Only losses are settled at level 0 (and win_code clamps 0 to 1).
        let win = (level > 0).then(|| win_code(level));
        let loss = loss_code(level);
        for side in 0..self.sides.len() {
            let s = &self.sides[side];
            (0..s.len().div_ceil(CHUNK)).into_par_iter().for_each_init(
                || (Vec::new(), Vec::new()),
                |(scratch, next), c| {
                    for i in c * CHUNK..((c + 1) * CHUNK).min(s.len()) {
                        let state = s.state(i);
                        if state == loss || Some(state) == win {
                            self.process(level, entry_of(side, i), scratch, next);
                        }
                    }
                    lock(queue).extend(next.drain(..));
                },
            );
        }
    }
}

/// Solves `material` and its mirror under `rule_set`, reading smaller
/// tables through `tb`, with at most `queue_budget` entries in level lists.
pub(crate) fn solve(
    tb: &Tablebase,
    rule_set: RuleSet,
    material: Material,
    progress: &Progress,
    queue_budget: usize,
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
                cells: (0..n).map(|_| AtomicU32::new(0)).collect(),
                index,
            })
        })
        .collect::<Result<Vec<Side>, GenError>>()?;
    let solver = Solver {
        tb,
        rule_set,
        sides,
        progress,
    };
    let queue = Mutex::new(LevelQueue::new(queue_budget));
    solver.initial_pass(&queue)?;
    let levels = solver.propagate(&queue);
    Ok(Solved {
        sides: solver.sides,
        levels,
    })
}
