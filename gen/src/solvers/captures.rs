//! The generator's own path for the values of capture positions: the
//! prober's answer, without its layers. A capture leads to a smaller
//! material whose table is usually decoded whole in memory; the child is
//! ranked here and its value read from that array. A child that must
//! capture in turn, or whose table is not in memory, goes to the prober.
//!
//! A child that must capture in turn is reached from several parents (the
//! capturing piece came from different squares), and its search costs as
//! much as its parent's: each thread keeps the values it found in a small
//! memo ([`CaptureMemo`]).
//!
//! Only for positions outside the counted endings, which keep a bare
//! result: the value is won if some capture leads to a lost child, drawn if
//! none does but one draws, lost otherwise (as
//! `format::value_from_children` finds it without a class).

use std::sync::atomic::{AtomicU64, Ordering};

use format::{child_view, Material, RuleSet, Wdl};
use probe::generator::{GeneratorHooks, Preloaded};
use probe::Tablebase;
use rules::{Color, Move, Position};

use plan::GenError;
use rules::dense;

/// The tables a pair's captures and crownings lead to, by material.
pub(crate) struct ChildTables<'a> {
    tb: &'a Tablebase,
    rule_set: RuleSet,
    /// Count of pieces a side can have plus one: the radix of `slot`.
    radix: usize,
    tables: Vec<Option<Preloaded<'a>>>,
    /// Tells this reader's memo entries from those of readers before it
    /// (another rule set, other tables): unique in the process.
    memo_owner: u64,
}

/// Gives each [`ChildTables`] its own `memo_owner`.
static MEMO_OWNERS: AtomicU64 = AtomicU64::new(1);

impl<'a> ChildTables<'a> {
    /// The preloaded tables among those `material`'s pair leads to.
    pub(crate) fn new(tb: &'a Tablebase, rule_set: RuleSet, material: Material) -> Self {
        let radix = material.pieces() as usize + 1;
        let mut tables = vec![None; radix.pow(4)];
        for exit in plan::units::reachable(material) {
            tables[slot(exit, radix)] = tb.preloaded(exit);
        }
        ChildTables {
            tb,
            rule_set,
            radix,
            tables,
            memo_owner: MEMO_OWNERS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The result, for the side to move in `pos` (which must capture and
    /// is outside the counted endings), of its best capture: its value.
    /// `moves` is scratch space.
    pub(crate) fn capture_value(
        &self,
        pos: &Position,
        moves: &mut Vec<Move>,
    ) -> Result<Wdl, GenError> {
        pos.generate_captures(moves);
        let mut draw = false;
        for mv in moves.iter() {
            match self.child_result(&pos.play(mv))? {
                Wdl::Loss => return Ok(Wdl::Win),
                Wdl::Draw => draw = true,
                Wdl::Win => {}
            }
        }
        Ok(if draw { Wdl::Draw } else { Wdl::Loss })
    }

    /// The result for the side to move in `child`, a position reached by
    /// a capture or a crowning from outside the counted endings, as that
    /// move sees it (see `format::child_view`). Inlined where the child is
    /// made, so that its masks need not go through memory.
    #[inline(always)]
    pub(crate) fn child_result(&self, child: &Position) -> Result<Wdl, GenError> {
        let mover = child.side_to_move();
        if child.pieces(mover).is_empty() {
            return Ok(Wdl::Loss);
        }
        let material = Material::of(child);
        let stored = match mover {
            Color::White => material,
            Color::Black => material.mirrored(),
        };
        if child.has_capture() {
            return self.capture_child_result(child, material);
        }
        let value = match self.stored_table(stored) {
            Some(table) => {
                let [wm, wk, bm, bk] = white_to_move_masks(child);
                let i = table.index().rank_masks(wm, wk, bm, bk);
                table
                    .value(i)
                    .ok_or_else(|| GenError::Internal(format!("{stored}: no value at index {i}")))?
            }
            _ => self.tb.probe(child)?,
        };
        Ok(child_view(self.rule_set, None, material, value).wdl)
    }

    /// [`ChildTables::child_result`] for a child that must capture in turn
    /// (kept out of line: it recurses).
    #[inline(never)]
    fn capture_child_result(&self, child: &Position, material: Material) -> Result<Wdl, GenError> {
        if material.counted_ending().is_some() {
            let value = self.tb.probe(child)?;
            return Ok(child_view(self.rule_set, None, material, value).wdl);
        }
        // Outside the counted endings the child's value is its bare
        // result, which is also how the parent sees it. The memo is not
        // borrowed across the search, which may use it too.
        let key = CaptureMemo::key(child);
        if let Some(wdl) = MEMO.with(|memo| memo.borrow_mut().get(self.memo_owner, &key)) {
            return Ok(wdl);
        }
        let wdl = with_spare_moves(|moves| self.capture_value(child, moves))?;
        MEMO.with(|memo| memo.borrow_mut().put(self.memo_owner, key, wdl));
        Ok(wdl)
    }

    /// The preloaded table of `material` (White to move).
    fn stored_table(&self, material: Material) -> Option<Preloaded<'a>> {
        *self.tables.get(slot(material, self.radix))?
    }
}

thread_local! {
    /// Move lists for captures answered by captures, one per depth in use.
    static SPARE_MOVES: std::cell::RefCell<Vec<Vec<Move>>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// This thread's values of positions that must capture.
    static MEMO: std::cell::RefCell<CaptureMemo> = const { std::cell::RefCell::new(CaptureMemo::empty()) };
}

/// A direct-mapped memo of the values of positions that must capture:
/// each slot holds one position (its key) and its value, the last one
/// stored there. It belongs to one [`ChildTables`] at a time (values depend
/// on the tables and the rule set) and is emptied when another one uses it.
pub(crate) struct CaptureMemo {
    owner: u64,
    /// Per slot: the position's key, its side to move in bit 63 of the
    /// third word and its WLD code plus one in bits 60-61 (0: empty).
    slots: Vec<[u64; 3]>,
}

impl CaptureMemo {
    /// Slots: 2^15 of 24 bytes, 768 KiB, which most of a core's L2 cache
    /// holds. Larger memos find more but miss the cache.
    const BITS: u32 = 15;
    const SIDE: u64 = 1 << 63;
    const VALUE_SHIFT: u32 = 60;
    const VALUE: u64 = 3 << Self::VALUE_SHIFT;

    const fn empty() -> CaptureMemo {
        CaptureMemo {
            owner: 0,
            slots: Vec::new(),
        }
    }

    /// The key of `pos`, side to move included.
    fn key(pos: &Position) -> [u64; 3] {
        let [white, black, kings] = pos.key();
        let side = match pos.side_to_move() {
            Color::White => 0,
            Color::Black => Self::SIDE,
        };
        [white, black, kings | side]
    }

    fn slot(key: &[u64; 3]) -> usize {
        let mixed = key[0] ^ key[1].rotate_left(21) ^ key[2].rotate_left(42);
        (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize
    }

    /// The value stored for `key` by `owner`, if it is still there.
    fn get(&mut self, owner: u64, key: &[u64; 3]) -> Option<Wdl> {
        if self.owner != owner {
            return None;
        }
        let entry = &self.slots[Self::slot(key)];
        let code = (entry[2] & Self::VALUE) >> Self::VALUE_SHIFT;
        let same = entry[0] == key[0] && entry[1] == key[1] && entry[2] & !Self::VALUE == key[2];
        if !same || code == 0 {
            return None;
        }
        Wdl::from_code(code as u8 - 1)
    }

    /// Stores `wdl` for `key` for `owner`, emptying the memo first if it
    /// was another owner's.
    fn put(&mut self, owner: u64, key: [u64; 3], wdl: Wdl) {
        if self.owner != owner {
            self.owner = owner;
            self.slots.clear();
            self.slots.resize(1 << Self::BITS, [0; 3]);
        }
        let code = u64::from(wdl.code()) + 1;
        self.slots[Self::slot(&key)] = [key[0], key[1], key[2] | code << Self::VALUE_SHIFT];
    }
}

/// Runs `f` with a move list of this thread's spares (returned after).
fn with_spare_moves<T>(f: impl FnOnce(&mut Vec<Move>) -> T) -> T {
    let mut moves = SPARE_MOVES
        .with(|spares| spares.borrow_mut().pop())
        .unwrap_or_default();
    let out = f(&mut moves);
    SPARE_MOVES.with(|spares| spares.borrow_mut().push(moves));
    out
}

/// The dense masks (White men, White kings, Black men, Black kings) of
/// `pos` as stored: White to move, the board turned when Black moves.
fn white_to_move_masks(pos: &Position) -> [u64; 4] {
    let mask = |color: Color, kings: bool| {
        let set = if kings {
            pos.kings(color)
        } else {
            pos.men(color)
        };
        set.to_dense()
    };
    match pos.side_to_move() {
        Color::White => [
            mask(Color::White, false),
            mask(Color::White, true),
            mask(Color::Black, false),
            mask(Color::Black, true),
        ],
        Color::Black => [
            dense::flip(mask(Color::Black, false)),
            dense::flip(mask(Color::Black, true)),
            dense::flip(mask(Color::White, false)),
            dense::flip(mask(Color::White, true)),
        ],
    }
}

/// Where `material` (White to move; the mirror of a Black-to-move one)
/// sits in `ChildTables::tables`, or past its end when a count is too big.
fn slot(m: Material, radix: usize) -> usize {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    if counts.iter().any(|&c| c as usize >= radix) {
        return usize::MAX;
    }
    counts.iter().fold(0, |acc, &c| acc * radix + c as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::open_for_pair;
    use crate::{generate, GenOptions};
    use format::MaterialIndex;

    /// The prober's view of `child`, the old path.
    fn probed(tb: &Tablebase, rule_set: RuleSet, child: &Position) -> Wdl {
        if child.pieces(child.side_to_move()).is_empty() {
            return Wdl::Loss;
        }
        let value = tb.probe(child).unwrap();
        child_view(rule_set, None, Material::of(child), value).wdl
    }

    #[test]
    fn the_memo_gives_back_only_what_its_owner_stored() {
        let mut memo = CaptureMemo::empty();
        let white: Position = "W:WK46,28:BK5,22".parse().unwrap();
        let black = white.with_side_to_move(Color::Black);
        let (w, b) = (CaptureMemo::key(&white), CaptureMemo::key(&black));
        assert_eq!(memo.get(1, &w), None);
        memo.put(1, w, Wdl::Loss);
        assert_eq!(memo.get(1, &w), Some(Wdl::Loss));
        // The same squares with the other side to move are another key.
        assert_eq!(memo.get(1, &b), None);
        assert_eq!(memo.get(2, &w), None);
        memo.put(2, b, Wdl::Win);
        assert_eq!(memo.get(2, &b), Some(Wdl::Win));
        // Another owner's values are gone.
        assert_eq!(memo.get(2, &w), None);
        assert_eq!(memo.get(1, &w), None);
        // A slot keeps the last position stored in it.
        let k = (0..1u64 << 22)
            .map(|i| [i, b[1], b[2]])
            .find(|k| CaptureMemo::slot(k) == CaptureMemo::slot(&b) && *k != b)
            .expect("a key in the same slot");
        memo.put(2, k, Wdl::Draw);
        assert_eq!(memo.get(2, &b), None);
        assert_eq!(memo.get(2, &k), Some(Wdl::Draw));
    }

    #[test]
    fn capture_and_crowning_values_agree_with_the_prober() {
        for rule_set in [RuleSet::Fmjd, RuleSet::FmjdDiagonal, RuleSet::Pure] {
            let dir = tempfile::tempdir().unwrap();
            generate(&GenOptions::new(dir.path(), rule_set, 4)).unwrap();
            // Outside the counted endings, with captures into them (KK-K,
            // KM-K), crownings, and chains of captures.
            for name in ["KK-KM", "KM-KM", "KM-MM", "KKM-M", "MM-MM", "M-KKM", "K-MM"] {
                let material: Material = name.parse().unwrap();
                assert!(material.counted_ending().is_none(), "{name}");
                let tb = open_for_pair(dir.path(), rule_set, material, 1 << 20, 1 << 30).unwrap();
                let children = ChildTables::new(&tb, rule_set, material);
                let index = MaterialIndex::new(material);
                let (mut moves, mut checked) = (Vec::new(), [0; 2]);
                for i in (0..index.count()).step_by(13) {
                    let pos = index.unrank(i);
                    if pos.has_capture() {
                        let fast = children.capture_value(&pos, &mut moves).unwrap();
                        let value = tb.probe_capture(&pos, &moves).unwrap();
                        assert_eq!(fast, value.wdl_with(rule_set, None, None), "{name} {i}");
                        checked[0] += 1;
                    }
                    for mv in pos.legal_moves() {
                        if mv.is_capture() || pos.is_crowning(&mv) {
                            let child = pos.play(&mv);
                            let fast = children.child_result(&child).unwrap();
                            assert_eq!(fast, probed(&tb, rule_set, &child), "{name} {i}");
                            checked[1] += 1;
                        }
                    }
                }
                assert!(checked[0] > 500 && checked[1] > 500, "{name}: {checked:?}");
            }
        }
    }
}
