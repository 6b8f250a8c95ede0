//! The solver's positions to propagate, by level, within a memory budget.
//!
//! A level's list holds the positions settled at that level (and the
//! candidates that may win there through an exit). Lists cost 8 bytes an
//! entry; on the biggest materials they would outgrow the cells
//! themselves. When the lists together pass the budget, the biggest one is
//! dropped and its level marked *scanned*: when the solver reaches it, it
//! finds the level's positions by a sweep over the cells instead (their
//! state bytes say the level, and the candidate byte says the exit wins),
//! trading one pass over memory for the list.

/// Levels from this one up cannot be scanned: their state codes saturate.
pub(crate) const FIRST_UNSCANNABLE: usize = 126;

/// How a level's positions are found.
pub(crate) enum LevelWork {
    /// From this list of entries.
    List(Vec<u64>),
    /// By a sweep over the cells.
    Scan,
}

/// Lists of entries by level, with a budget in entries.
pub(crate) struct LevelQueue {
    lists: Vec<Vec<u64>>,
    scanned: Vec<bool>,
    held: usize,
    budget: usize,
    /// The next level [`take`](LevelQueue::take) hands out; lists below it
    /// are gone and take no more entries.
    next: usize,
}

impl LevelQueue {
    /// An empty queue that holds at most `budget` entries in lists (more
    /// only at levels that cannot be scanned).
    pub(crate) fn new(budget: usize) -> LevelQueue {
        LevelQueue {
            lists: Vec::new(),
            scanned: Vec::new(),
            held: 0,
            budget,
            next: 0,
        }
    }

    /// Adds (level, entry) pairs.
    pub(crate) fn extend(&mut self, items: impl IntoIterator<Item = (u32, u64)>) {
        for (level, entry) in items {
            let level = level as usize;
            debug_assert!(level >= self.next, "entry for a level already done");
            if self.lists.len() <= level {
                self.lists.resize_with(level + 1, Vec::new);
                self.scanned.resize(level + 1, false);
            }
            if self.scanned[level] {
                continue;
            }
            self.lists[level].push(entry);
            self.held += 1;
            if self.held > self.budget {
                self.scan_biggest();
            }
        }
    }

    /// Drops the biggest scannable list still to come.
    fn scan_biggest(&mut self) {
        let end = self.lists.len().min(FIRST_UNSCANNABLE);
        let biggest = (self.next..end)
            .filter(|&l| !self.lists[l].is_empty())
            .max_by_key(|&l| self.lists[l].len());
        if let Some(l) = biggest {
            self.held -= self.lists[l].len();
            self.lists[l] = Vec::new();
            self.scanned[l] = true;
        }
    }

    /// The work of the next level, or None when no level is left.
    pub(crate) fn take(&mut self) -> Option<(u32, LevelWork)> {
        let level = self.next;
        if level >= self.lists.len() {
            return None;
        }
        self.next += 1;
        let work = if self.scanned[level] {
            LevelWork::Scan
        } else {
            let list = std::mem::take(&mut self.lists[level]);
            self.held -= list.len();
            LevelWork::List(list)
        };
        Some((level as u32, work))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl LevelQueue {
        /// Number of levels dropped to scans so far.
        fn scanned_levels(&self) -> usize {
            self.scanned.iter().filter(|&&s| s).count()
        }
    }

    fn drain(q: &mut LevelQueue) -> Vec<(u32, Option<Vec<u64>>)> {
        let mut out = Vec::new();
        while let Some((l, w)) = q.take() {
            out.push((
                l,
                match w {
                    LevelWork::List(v) => Some(v),
                    LevelWork::Scan => None,
                },
            ));
        }
        out
    }

    #[test]
    fn within_budget_everything_is_listed() {
        let mut q = LevelQueue::new(10);
        q.extend([(2, 7), (0, 1), (2, 8)]);
        assert_eq!(
            drain(&mut q),
            vec![(0, Some(vec![1])), (1, Some(vec![])), (2, Some(vec![7, 8]))]
        );
        assert_eq!(q.scanned_levels(), 0);
    }

    #[test]
    fn over_budget_the_biggest_level_is_scanned() {
        let mut q = LevelQueue::new(3);
        q.extend([(1, 1), (1, 2), (1, 3), (2, 4)]);
        // Level 1 held three of four entries: it goes.
        q.extend([(1, 5), (3, 6)]);
        assert_eq!(
            drain(&mut q),
            vec![
                (0, Some(vec![])),
                (1, None),
                (2, Some(vec![4])),
                (3, Some(vec![6]))
            ]
        );
        assert_eq!(q.scanned_levels(), 1);
    }

    #[test]
    fn levels_already_taken_are_never_scanned() {
        let mut q = LevelQueue::new(1);
        q.extend([(0, 1)]);
        assert!(matches!(q.take(), Some((0, LevelWork::List(_)))));
        q.extend([(1, 2), (1, 3)]);
        assert!(matches!(q.take(), Some((1, LevelWork::Scan))));
        assert!(q.take().is_none());
    }

    #[test]
    fn unscannable_levels_stay_listed_past_the_budget() {
        let mut q = LevelQueue::new(0);
        let high = FIRST_UNSCANNABLE as u32;
        q.extend([(high, 1), (high, 2)]);
        let out = drain(&mut q);
        assert_eq!(out.last(), Some(&(high, Some(vec![1, 2]))));
    }
}
