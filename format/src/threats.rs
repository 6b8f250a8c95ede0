//! Threat positions a version-2 WLD table leaves "don't care" (header flag
//! [`crate::FLAG_THREATS_SEARCHED`]): the positions whose value a prober
//! finds by a one-ply search instead of reading it.
//!
//! A position is one when the side to move has no capture, the opponent
//! would have one if it were to move, and every move of the side to move
//! leads to a position where the opponent must capture or where the side
//! that moved could not capture. The search over its moves then meets only
//! positions that are stored or that are resolved by the capture search,
//! never another left-out threat, so it ends after one ply (plus the
//! capture search every prober already does).
//!
//! Such positions are common (a tenth to a third of a table) and their
//! values are scattered; leaving them out makes the runs around them
//! longer. `FORMAT.md`, "Version 2", gives the sizes.

use std::sync::Arc;

use rules::dense::{flip, RAYS, WHITE_FORWARD};
use rules::{Color, Move, Position};

use crate::{table_position, MaterialIndex};

/// Whether the side to move in `pos` would capture if it were `side`'s
/// move instead.
fn could_capture(pos: &Position, side: Color) -> bool {
    pos.with_side_to_move(side).has_capture()
}

/// Whether `pos` is a threat position that a version-2 WLD table with
/// [`crate::FLAG_THREATS_SEARCHED`] leaves "don't care" (see the module
/// docs). `moves` is scratch space for the position's moves.
pub fn is_searched_threat(pos: &Position, moves: &mut Vec<Move>) -> bool {
    !pos.has_capture() && is_threat_without_capture(pos, moves)
}

/// [`is_searched_threat`] of a position whose side to move is known to
/// have no capture.
fn is_threat_without_capture(pos: &Position, moves: &mut Vec<Move>) -> bool {
    let side = pos.side_to_move();
    if !could_capture(pos, side.opponent()) {
        return false;
    }
    moves.clear();
    pos.generate_quiet_moves(moves);
    moves.iter().all(|mv| {
        let child = pos.play(mv);
        child.has_capture() || !could_capture(&child, side)
    })
}

/// Whether a one-ply search of `pos` (whose side to move has no capture)
/// would read more than two blocks of its mirror's table: the positions
/// its moves lead to that stand in `mirror` (moves that crown lead
/// elsewhere) and do not have to capture (the capture search reads the
/// smaller tables), and for a material that is its own mirror `pos`
/// itself, lie in more than two blocks of `unit` positions. A table with
/// [`crate::FLAG_SPREAD_STORED`] stores such positions instead of leaving
/// them to the search, so that a cold search reads at most two blocks of
/// the mirror's table. `moves` is scratch space.
pub fn search_spreads(
    pos: &Position,
    mirror: &MaterialIndex,
    unit: u64,
    moves: &mut Vec<Move>,
) -> bool {
    let (material, normal) = table_position(pos);
    let search = Search::new(&normal, mirror, unit);
    let mut blocks = Blocks::default();
    if material == mirror.material() && blocks.meet(mirror.rank(&normal) / unit) {
        return true;
    }
    // Each man move leads to a placement of the men of its own.
    let occupied = search.wm | search.wk | search.bm | search.bk;
    if man_steps(search.wm, occupied).any(|(from, to)| search.meets_third(from, to, &mut blocks)) {
        return true;
    }
    // Every king move leads to the same placement of the men, whose
    // positions are one run of `king_placements` indices: where that run
    // lies in two blocks at most and they leave the count at two, no king
    // move can make it three.
    if !kings_can_step(search.wk, occupied) {
        return false;
    }
    let run = mirror.king_placements();
    let start = mirror.men_rank(flip(search.bm), flip(search.wm)) * run;
    let (low, high) = (start / unit, (start + run - 1) / unit);
    if high - low <= 1 && !blocks.with(low).with(high).more_than_two() {
        return false;
    }
    moves.clear();
    normal.generate_quiet_moves(moves);
    moves.iter().any(|mv| {
        let (from, to) = (mv.from().number() as u32 - 1, mv.to().number() as u32 - 1);
        search.wk >> from & 1 == 1 && search.meets_third(from, to, &mut blocks)
    })
}

/// [`search_spreads`] with `scratch` remembering what one placement of the
/// men settles for every position that shares it: the blocks its man
/// moves lead to, the run its king moves stay in, and whether those leave
/// no room for a third block at all (then no position of the placement
/// spreads). Positions come mostly in index order, where runs of
/// thousands share their men; the answer is [`search_spreads`]'s.
fn search_spreads_memo(
    pos: &Position,
    mirror: &MaterialIndex,
    unit: u64,
    scratch: &mut SearchScratch,
) -> bool {
    let (material, normal) = table_position(pos);
    if material == mirror.material() {
        return search_spreads(pos, mirror, unit, &mut scratch.moves);
    }
    spreads_from(&Search::new(&normal, mirror, unit), &mut scratch.memo)
}

/// [`search_spreads_memo`] of the White-to-move position `search` holds,
/// of a material that is not its own mirror.
fn spreads_from(search: &Search, memo: &mut SpreadMemo) -> bool {
    memo.settle(search);
    if memo.settled {
        return false;
    }
    // The blocks the moves lead to first, without capture tests: a
    // position whose moves meet two blocks at most does not spread.
    let SpreadMemo {
        steps, children, ..
    } = memo;
    children.clear();
    let mut candidates = Blocks::default();
    let kings = search.wk | search.bk;
    for step in steps.iter() {
        if kings >> step.to & 1 == 1 {
            continue;
        }
        let men = search.wm & !(1 << step.from) | 1 << step.to;
        let block = step.block.unwrap_or_else(|| {
            let others = flip(search.bm) | flip(men);
            let rank = search
                .mirror
                .king_rank(others, flip(search.bk), flip(search.wk));
            search.block_of(step.base + rank)
        });
        candidates = candidates.with(block);
        children.push((block, men));
    }
    let king_run =
        kings_can_step(search.wk, search.occupied()).then(|| king_run(search, memo.king_base));
    match king_run {
        Some((low, high)) if high - low > 1 => candidates.third = true,
        Some((low, high)) => candidates = candidates.with(low).with(high),
        None => {}
    }
    if !candidates.more_than_two() {
        return false;
    }
    // Then the capture test of each block's first successor.
    let mut blocks = Blocks::default();
    for &(block, men) in &memo.children {
        if search.meets_child(men, search.wk, block, &mut blocks) {
            return true;
        }
    }
    let Some((low, high)) = king_run else {
        return false;
    };
    if high - low <= 1 && !blocks.with(low).with(high).more_than_two() {
        return false;
    }
    king_moves_meet_third(search, memo.king_base, &mut blocks)
}

/// The first and last block of the mirror's indices that White's king
/// moves in `search` can lead to: they keep Black's kings too, so in the
/// mirror they lead to one run of its black king placements
/// (`king_base` is the mirror's index of the first king placement of the
/// men).
fn king_run(search: &Search, king_base: u64) -> (u64, u64) {
    let mirror = search.mirror;
    let men = flip(search.bm) | flip(search.wm);
    let first = king_base + mirror.king_rank(men, flip(search.bk), 0);
    (
        search.block_of(first),
        search.block_of(first + mirror.black_king_placements() - 1),
    )
}

/// Whether White's king moves in `search` meet a third block (with
/// `blocks` met already); `king_base` is the mirror's index of the first
/// king placement of the men. Each king's moves are walked along its
/// rays, ranked as the mirror's black king moving.
fn king_moves_meet_third(search: &Search, king_base: u64, blocks: &mut Blocks) -> bool {
    let (mirror, occupied) = (search.mirror, search.occupied());
    let men = flip(search.bm) | flip(search.wm);
    let mut kings = search.wk;
    while kings != 0 {
        let from = kings.trailing_zeros();
        kings &= kings - 1;
        let others = search.wk & !(1 << from);
        let ranks = mirror.black_king_move_ranks(men, flip(search.bk), flip(others));
        for ray in &RAYS[from as usize] {
            for &to in ray.squares() {
                if occupied >> to & 1 == 1 {
                    break;
                }
                let block = search.block_of(king_base + ranks.rank_with(49 - u32::from(to)));
                if search.meets_child(search.wm, others | 1 << to, block, blocks) {
                    return true;
                }
            }
        }
    }
    false
}

/// Scratch space for the tests of a [`SearchRule`], reused from one
/// position to the next (one a thread).
#[derive(Default)]
pub struct SearchScratch {
    /// A position's moves.
    moves: Vec<Move>,
    /// What the last placement of the men settled.
    memo: SpreadMemo,
}

/// What [`search_spreads_memo`] works out once a placement of the men.
#[derive(Default)]
struct SpreadMemo {
    /// The mirror's material, the unit and the men (White's, Black's;
    /// White to move) the rest is for.
    key: Option<(crate::Material, u64, u64, u64)>,
    /// White's man moves onto squares the men leave free, that do not
    /// crown.
    steps: Vec<ManStep>,
    /// Scratch for one position: the block and White's men after each of
    /// its man moves.
    children: Vec<(u64, u64)>,
    /// The mirror's index of the first king placement of these men: White's
    /// king moves (the men stay) lead to the run of `king_placements()`
    /// indices from there.
    king_base: u64,
    /// Whether the blocks of every step and of the king moves' run, taken
    /// together, are two at most: no position of these men spreads.
    settled: bool,
}

/// A man move of [`SpreadMemo`]: dense squares, the index in the mirror
/// of the first king placement its men have, and its block where all its
/// king placements lie in one.
struct ManStep {
    from: u32,
    to: u32,
    base: u64,
    block: Option<u64>,
}

impl SpreadMemo {
    /// Works out the men of `search` unless they are the ones it holds.
    fn settle(&mut self, search: &Search) {
        let key = (search.mirror.material(), search.unit, search.wm, search.bm);
        if self.key == Some(key) {
            return;
        }
        self.key = Some(key);
        let (mirror, unit) = (search.mirror, search.unit);
        let run = mirror.king_placements();
        let blocks_of = |base: u64| (base / unit, (base + run - 1) / unit);
        self.steps.clear();
        let men = search.wm | search.bm;
        let mut candidates = Blocks::default();
        let mut wide = false;
        for (from, to) in man_steps(search.wm, men) {
            if rules::dense::row(to) == 0 {
                continue;
            }
            let moved = search.wm & !(1 << from) | 1 << to;
            let base = mirror.men_rank(flip(search.bm), flip(moved)) * run;
            let (low, high) = blocks_of(base);
            wide |= high - low > 1;
            candidates = candidates.with(low).with(high);
            let block = (low == high).then_some(low);
            self.steps.push(ManStep {
                from,
                to,
                base,
                block,
            });
        }
        self.king_base = mirror.men_rank(flip(search.bm), flip(search.wm)) * run;
        // The king moves of one position stay in a run of the mirror's
        // black king placements; no longer than a block, it meets two at
        // most, which is room enough where the men step nowhere.
        let short_runs = mirror.black_king_placements() <= unit;
        if search.wk != 0 && !(short_runs && candidates.none()) {
            let (low, high) = blocks_of(self.king_base);
            wide |= high - low > 1;
            candidates = candidates.with(low).with(high);
        }
        self.settled = !wide && !candidates.more_than_two();
    }
}

/// White's man steps `(from, to)` (dense squares) of the men `men` onto
/// squares `blocked` leaves free (crowning ones too).
fn man_steps(men: u64, blocked: u64) -> impl Iterator<Item = (u32, u32)> {
    let froms = std::iter::successors((men != 0).then_some(men), |&m| {
        let rest = m & (m - 1);
        (rest != 0).then_some(rest)
    })
    .map(u64::trailing_zeros);
    froms.flat_map(move |from| {
        WHITE_FORWARD.into_iter().filter_map(move |d| {
            let to = u32::from(*RAYS[from as usize][d].squares().first()?);
            (blocked >> to & 1 == 0).then_some((from, to))
        })
    })
}

/// Whether one of the kings `kings` has an empty square next to it.
fn kings_can_step(kings: u64, occupied: u64) -> bool {
    let mut ks = kings;
    while ks != 0 {
        let k = ks.trailing_zeros() as usize;
        ks &= ks - 1;
        let free = |ray: &rules::dense::Ray| {
            ray.squares()
                .first()
                .is_some_and(|&next| occupied >> next & 1 == 0)
        };
        if RAYS[k].iter().any(free) {
            return true;
        }
    }
    false
}

/// What [`search_spreads`] works from: a White-to-move position's dense
/// masks, the mirror's index and the unit.
struct Search<'a> {
    wm: u64,
    wk: u64,
    bm: u64,
    bk: u64,
    mirror: &'a MaterialIndex,
    unit: u64,
}

impl Search<'_> {
    fn new<'a>(normal: &Position, mirror: &'a MaterialIndex, unit: u64) -> Search<'a> {
        let white = normal.pieces(Color::White).to_dense();
        let black = normal.pieces(Color::Black).to_dense();
        let kings = normal.kings(Color::White).to_dense() | normal.kings(Color::Black).to_dense();
        let masks = [white & !kings, white & kings, black & !kings, black & kings];
        Search::from_masks(masks, mirror, unit)
    }

    /// From the dense masks `[white men, white kings, black men, black
    /// kings]` of a White-to-move position.
    fn from_masks(masks: [u64; 4], mirror: &MaterialIndex, unit: u64) -> Search<'_> {
        let [wm, wk, bm, bk] = masks;
        Search {
            wm,
            wk,
            bm,
            bk,
            mirror,
            unit,
        }
    }

    /// Meets the block of the position White's quiet move from dense
    /// square `from` to `to` leads to, where it stands in the mirror's
    /// table (the move does not crown) and Black there does not have to
    /// capture (tested only for a block not met yet); whether that makes
    /// three.
    fn meets_third(&self, from: u32, to: u32, blocks: &mut Blocks) -> bool {
        let (from, to_bit) = (1u64 << from, 1u64 << to);
        let (men, kings) = if self.wk & from != 0 {
            (self.wm, self.wk & !from | to_bit)
        } else if rules::dense::row(to) == 0 {
            return false;
        } else {
            (self.wm & !from | to_bit, self.wk)
        };
        // Seen from Black, who moves next: its pieces are White's there.
        let index = self
            .mirror
            .rank_masks(flip(self.bm), flip(self.bk), flip(men), flip(kings));
        self.meets_child(men, kings, self.block_of(index), blocks)
    }

    /// Meets `block`, that of the position where White's men and kings
    /// stand on `men` and `kings` after a quiet move, unless Black has to
    /// capture there (tested only for a block not met yet); whether that
    /// makes three.
    fn meets_child(&self, men: u64, kings: u64, block: u64, blocks: &mut Blocks) -> bool {
        if blocks.holds(block) {
            return false;
        }
        let occupied = men | kings | self.bm | self.bk;
        if rules::dense::can_capture(self.bm, self.bk, men | kings, occupied) {
            return false;
        }
        blocks.meet(block)
    }

    /// The block of the mirror's index `index`.
    fn block_of(&self, index: u64) -> u64 {
        if self.unit.is_power_of_two() {
            index >> self.unit.trailing_zeros()
        } else {
            index / self.unit
        }
    }

    /// Every square a piece stands on.
    fn occupied(&self) -> u64 {
        self.wm | self.wk | self.bm | self.bk
    }
}

/// The distinct blocks a search meets, up to three (kept in two words and
/// a flag, so that they stay in registers).
#[derive(Clone, Copy)]
struct Blocks {
    /// The first two blocks met, [`Blocks::NONE`] where not met yet.
    first: u64,
    second: u64,
    /// Whether a third one was met (or may be).
    third: bool,
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks {
            first: Blocks::NONE,
            second: Blocks::NONE,
            third: false,
        }
    }
}

impl Blocks {
    /// No block (an index divided by a unit never reaches it).
    const NONE: u64 = u64::MAX;

    /// Meets `block`; whether that makes three.
    fn meet(&mut self, block: u64) -> bool {
        *self = self.with(block);
        self.third
    }

    /// These blocks and `block`.
    fn with(mut self, block: u64) -> Blocks {
        if !self.holds(block) {
            if self.first == Blocks::NONE {
                self.first = block;
            } else if self.second == Blocks::NONE {
                self.second = block;
            } else {
                self.third = true;
            }
        }
        self
    }

    /// Whether `block` is one of the first two met.
    fn holds(&self, block: u64) -> bool {
        block == self.first || block == self.second
    }

    /// Whether more than two blocks were met.
    fn more_than_two(&self) -> bool {
        self.third
    }

    /// Whether no block was met.
    fn none(&self) -> bool {
        self.first == Blocks::NONE
    }
}

/// Which positions of a version-2 WLD table a prober finds by a one-ply
/// search rather than reads: the table's [`crate::FLAG_THREATS_SEARCHED`]
/// or [`crate::FLAG_QUIET_SEARCHED`], less what its
/// [`crate::FLAG_SPREAD_STORED`] and [`crate::FLAG_THREATS_KEPT`] keep.
#[derive(Clone, Debug)]
pub struct SearchRule {
    /// The table's material.
    material: crate::Material,
    /// Every position without a capture, not only the searched threats.
    quiet: bool,
    /// With spread positions stored: the mirror's index and the unit.
    spread: Option<(MaterialIndex, u64)>,
    /// With threats kept: the table's own index and the kept positions'
    /// indices, strictly increasing.
    kept: Option<(MaterialIndex, Arc<[u64]>)>,
}

impl SearchRule {
    /// The rule of the table `reader` reads; `None` where it leaves no
    /// position to the search by rule (a version-1 table, one that stores
    /// nothing).
    pub fn of<B: crate::TableSource>(reader: &crate::TableReader<B>) -> Option<SearchRule> {
        let header = reader.header();
        let rule = SearchRule::new(
            header.material,
            header.threats_searched,
            header.quiet_searched,
            header.spread_unit,
        )?;
        Some(rule.keeping(reader.threats_kept().clone()))
    }

    /// This rule, with the threat positions of indices `kept` (strictly
    /// increasing) stored rather than left to the search
    /// ([`crate::FLAG_THREATS_KEPT`]); the rule as it is where `kept` is
    /// empty.
    pub fn keeping(self, kept: Arc<[u64]>) -> SearchRule {
        if kept.is_empty() {
            return self;
        }
        SearchRule {
            kept: Some((MaterialIndex::new(self.material), kept)),
            ..self
        }
    }

    /// The indices of the threat positions this rule stores all the same.
    pub fn threats_kept(&self) -> &[u64] {
        self.kept.as_ref().map_or(&[], |(_, kept)| kept)
    }

    /// The rule of a table of `material` searching its threats or its
    /// quiet positions, with spread ones stored where `spread_unit` says
    /// in what blocks they count; `None` where it searches neither.
    pub fn new(
        material: crate::Material,
        threats: bool,
        quiet: bool,
        spread_unit: Option<u32>,
    ) -> Option<SearchRule> {
        (threats || quiet).then(|| SearchRule {
            material,
            quiet,
            spread: spread_unit
                .map(|unit| (MaterialIndex::new(material.mirrored()), u64::from(unit))),
            kept: None,
        })
    }

    /// Whether the table leaves `pos` (one of its positions) to a one-ply
    /// search; never a capture position (the capture search resolves
    /// those in every table).
    pub fn leaves(&self, pos: &Position, scratch: &mut SearchScratch) -> bool {
        let in_set = if self.quiet {
            !pos.has_capture()
        } else {
            is_searched_threat(pos, &mut scratch.moves)
        };
        in_set && !self.spreads(pos, scratch) && !self.keeps(pos)
    }

    /// Whether `pos` is one of the threat positions kept (stored).
    fn keeps(&self, pos: &Position) -> bool {
        self.kept.as_ref().is_some_and(|(index, kept)| {
            let (_, normal) = table_position(pos);
            kept.binary_search(&index.rank(&normal)).is_ok()
        })
    }

    /// Whether the table stores `pos`'s value: not a capture position,
    /// not left to the search ([`SearchRule::leaves`], with one capture
    /// test).
    pub fn stores(&self, pos: &Position, scratch: &mut SearchScratch) -> bool {
        if self.quiet {
            // The spread test first: where the men settle it, it answers
            // without the capture test.
            return self.spreads(pos, scratch) && !pos.has_capture();
        }
        if pos.has_capture() {
            return false;
        }
        !is_threat_without_capture(pos, &mut scratch.moves)
            || self.spreads(pos, scratch)
            || self.keeps(pos)
    }

    /// [`SearchRule::stores`] answered from the dense masks `[white men,
    /// white kings, black men, black kings]` of one of the table's
    /// White-to-move positions, without building it, where the rule
    /// searches every quiet position through a mirror that is another
    /// material; with it, whether the table leaves every position whose
    /// men stand so to the search (the men settle that no search from
    /// them spreads), which lets a fill skip the rest of their run.
    /// `None` where the position must be built.
    pub fn stores_by_masks(
        &self,
        masks: [u64; 4],
        scratch: &mut SearchScratch,
    ) -> Option<(bool, bool)> {
        if !self.quiet || self.kept.is_some() {
            return None;
        }
        let Some((mirror, unit)) = &self.spread else {
            return Some((false, true));
        };
        if self.material == mirror.material() {
            return None;
        }
        let search = Search::from_masks(masks, mirror, *unit);
        let spreads = spreads_from(&search, &mut scratch.memo);
        let [wm, wk, bm, bk] = masks;
        let stores = spreads && !rules::dense::can_capture(wm, wk, bm | bk, search.occupied());
        Some((stores, scratch.memo.settled))
    }

    /// Whether the search of `pos` spreads where the rule stores those
    /// (an answer without meaning for a capture position).
    fn spreads(&self, pos: &Position, scratch: &mut SearchScratch) -> bool {
        self.spread
            .as_ref()
            .is_some_and(|(mirror, unit)| search_spreads_memo(pos, mirror, *unit, scratch))
    }

    /// Whether the table searches every position without a capture.
    pub fn searches_quiet(&self) -> bool {
        self.quiet
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threat(fen: &str) -> bool {
        let pos: Position = fen.parse().expect("FEN");
        is_searched_threat(&pos, &mut Vec::new())
    }

    #[test]
    fn a_capture_of_the_side_to_move_is_not_a_searched_threat() {
        // White's man on 28 takes 23 (the capture search resolves it).
        assert!(!threat("W:W28:B23"));
    }

    #[test]
    fn a_quiet_position_is_not_a_searched_threat() {
        assert!(!threat("W:W46:B5"));
    }

    #[test]
    fn the_predicate_follows_its_definition() {
        // Every placement of a small material: the predicate against the
        // definition written out with the move generator's full move list.
        let index = crate::MaterialIndex::new("KM-M".parse().expect("material"));
        let mut moves = Vec::new();
        let mut found = 0;
        for i in 0..index.count() {
            let pos = index.unrank(i);
            let opponent = pos.with_side_to_move(Color::Black);
            let expected = !pos.has_capture()
                && opponent.has_capture()
                && pos.legal_moves().iter().all(|mv| {
                    let child = pos.play(mv);
                    child.has_capture() || !child.with_side_to_move(Color::White).has_capture()
                });
            assert_eq!(is_searched_threat(&pos, &mut moves), expected, "{i}");
            found += u64::from(expected);
        }
        assert!(found > 0 && found < index.count());
    }

    #[test]
    fn a_threat_kept_is_stored_and_the_others_left_to_the_search() {
        let material: crate::Material = "KM-M".parse().expect("material");
        let index = crate::MaterialIndex::new(material);
        let mut moves = Vec::new();
        let threats: Vec<u64> = (0..index.count())
            .filter(|&i| is_searched_threat(&index.unrank(i), &mut moves))
            .collect();
        assert!(threats.len() > 2);
        let kept = [threats[0], threats[threats.len() / 2]];
        let rule = SearchRule::new(material, true, false, None)
            .expect("a rule")
            .keeping(Arc::from(kept));
        assert_eq!(rule.threats_kept(), &kept);
        let mut scratch = SearchScratch::default();
        for &i in &threats {
            let pos = index.unrank(i);
            let is_kept = kept.contains(&i);
            assert_eq!(rule.leaves(&pos, &mut scratch), !is_kept, "{i}");
            assert_eq!(rule.stores(&pos, &mut scratch), is_kept, "{i}");
            // The same position with Black to move, as its mirror's
            // search meets it.
            let flipped = pos.flipped();
            assert_eq!(rule.leaves(&flipped, &mut scratch), !is_kept, "{i} flipped");
        }
        // An empty list is the rule as it was.
        let plain = SearchRule::new(material, true, false, None).expect("a rule");
        assert!(plain.keeping(Arc::from([])).threats_kept().is_empty());
    }

    /// The blocks of `unit` positions a search of `pos` reads in `mirror`,
    /// written out from the legal moves.
    fn blocks_read(pos: &Position, mirror: &MaterialIndex, unit: u64) -> usize {
        let mut blocks: Vec<u64> = pos
            .legal_moves()
            .iter()
            .map(|mv| pos.play(mv))
            .filter(|child| !child.has_capture())
            .map(|child| table_position(&child))
            .filter(|(m, _)| *m == mirror.material())
            .map(|(_, normal)| mirror.rank(&normal) / unit)
            .collect();
        let (m, normal) = table_position(pos);
        if m == mirror.material() {
            blocks.push(mirror.rank(&normal) / unit);
        }
        blocks.sort_unstable();
        blocks.dedup();
        blocks.len()
    }

    #[test]
    fn a_search_spreads_where_it_meets_more_than_two_blocks() {
        let mut moves = Vec::new();
        for (name, unit) in [("MM-K", 64), ("KM-M", 256), ("KM-KM", 4096), ("KK-M", 512)] {
            let material: crate::Material = name.parse().expect("material");
            let index = MaterialIndex::new(material);
            let mirror = MaterialIndex::new(material.mirrored());
            let (mut spread, mut quiet) = (0, 0);
            for i in 0..index.count() {
                let pos = index.unrank(i);
                if pos.has_capture() {
                    continue;
                }
                quiet += 1;
                let expected = blocks_read(&pos, &mirror, unit) > 2;
                assert_eq!(
                    search_spreads(&pos, &mirror, unit, &mut moves),
                    expected,
                    "{name} {i}"
                );
                spread += u64::from(expected);
            }
            assert!(spread > 0 && spread < quiet, "{name}: {spread} of {quiet}");
        }
    }

    #[test]
    fn a_rule_leaves_its_set_less_the_spread_positions() {
        let material: crate::Material = "MM-K".parse().expect("material");
        let index = MaterialIndex::new(material);
        let mirror = MaterialIndex::new(material.mirrored());
        let quiet = SearchRule::new(material, false, true, Some(64)).expect("a rule");
        let threats = SearchRule::new(material, true, false, None).expect("a rule");
        assert!(SearchRule::new(material, false, false, Some(64)).is_none());
        let (mut moves, mut scratch) = (Vec::new(), SearchScratch::default());
        for i in 0..index.count() {
            let pos = index.unrank(i);
            let spreads = !pos.has_capture() && blocks_read(&pos, &mirror, 64) > 2;
            assert_eq!(
                quiet.leaves(&pos, &mut scratch),
                !pos.has_capture() && !spreads
            );
            let threat = is_searched_threat(&pos, &mut moves);
            assert_eq!(threats.leaves(&pos, &mut scratch), threat);
            assert_eq!(
                threats.stores(&pos, &mut scratch),
                !pos.has_capture() && !threat
            );
        }
    }

    #[test]
    fn the_memo_of_the_men_answers_as_the_spread_test() {
        // In index order (runs sharing their men, as a fill meets them)
        // and in a scattered order (the memo worked out anew or reused
        // across materials and units), at units below and above the runs
        // of king placements.
        let mut moves = Vec::new();
        let mut scratch = SearchScratch::default();
        let (mut spread, mut settled) = (0, 0);
        for (name, unit) in [
            ("MM-K", 64),
            ("KM-M", 256),
            ("KM-KM", 4096),
            ("KK-M", 512),
            ("MM-KM", 65_536),
            ("KMM-M", 1024),
            ("MMM-K", 64),
            ("KK-KM", 65_536),
            ("KKK-K", 16_384),
        ] {
            let material: crate::Material = name.parse().expect("material");
            let index = MaterialIndex::new(material);
            let mirror = MaterialIndex::new(material.mirrored());
            let step = (index.count() / 200_000).max(1);
            let scattered = (0..index.count()).map(|i| i * 7_919 % index.count());
            for i in (0..index.count())
                .step_by(step as usize)
                .chain(scattered.step_by(97))
            {
                let pos = index.unrank(i);
                if pos.has_capture() {
                    continue;
                }
                let expected = search_spreads(&pos, &mirror, unit, &mut moves);
                let memo = search_spreads_memo(&pos, &mirror, unit, &mut scratch);
                assert_eq!(memo, expected, "{name} {i} at {unit}");
                spread += u64::from(expected);
                settled += u64::from(scratch.memo.settled);
            }
        }
        // Both ways of answering were taken.
        assert!(
            spread > 0 && settled > 0,
            "{spread} spread, {settled} settled"
        );
    }
}
