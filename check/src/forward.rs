//! The forward check: every stored value, and every stored DTC, against
//! the values of its moves, one ply forward.
//!
//! It shares no code with the solvers' propagation, levels or queues. A
//! pair's two tables are decoded whole into memory and walked twice:
//! first every position where the side to move must capture gets its
//! value from its captures (its stored value is "don't care"), once, in
//! place (see `resolved`); then every other position's moves are
//! generated with the move generator, each successor is looked up (in the
//! pair's resolved tables, or through the prober for a crowning), and the
//! position's value is recomputed as the rules define it (`format::value_from_children`: won if some move leads to a position
//! lost for the opponent, lost if every move leads to a won one, the draw
//! counter's caps applied) and the DTC as `Tablebase::probe_dtc` defines
//! it (a conversion counts 1, a king move one more than its successor's
//! DTC; the winner's least over moves that keep the win, the loser's most
//! over all).
//!
//! Under `fmjd` and `fmjd-diagonal`, outside the counted endings, a
//! result whose DTC over its moves is above 50 plies is a draw (the
//! 25-move rule, RULES.md): the check expects that where the DTC files
//! give every successor's DTC. Without them such a position shows as a
//! mismatch (none exists up to six pieces without men, nor up to five).
//!
//! With the DTC files this check is complete: a table and its DTC that
//! agree with their successors everywhere are the true ones (a win stored
//! as a draw would need, somewhere down its winning line, a loss or a
//! conversion that the check sees). Without them it proves the values
//! consistent, which a set of positions that should be won but are all
//! stored as drawn and only lead to each other would also be.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use format::{
    child_view_in, table_position, value_from_children, ChildView, Material, MaterialIndex,
    RuleSet, TableValue, UnrankCursor, ValueKind, Wdl,
};
use plan::{GenError, PlacementKeys, Progress};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{CountedEnding, Move, Position};

use crate::resolved::{
    bit, decode_window_raw, PositionFlags, ResolvedTable, ResolvedTables, Window, CHUNK,
};
use crate::verdict::Mismatch;

/// How many mismatches a verdict keeps (it counts them all).
pub(crate) const KEEP: usize = 20;

/// The running count of one file's check, shared by the worker threads.
#[derive(Default)]
pub(crate) struct Tally {
    /// Positions compared.
    pub(crate) checked: AtomicU64,
    /// Mismatches found.
    pub(crate) found: AtomicU64,
    /// The first mismatches (at most [`KEEP`], in no particular order).
    pub(crate) kept: Mutex<Vec<Mismatch>>,
}

impl Tally {
    /// Puts the counts and the first mismatches (sorted) into `check`.
    pub(crate) fn finish(self, check: &mut crate::verdict::TableCheck) {
        let mut mismatches = self.kept.into_inner().expect("no panics while held");
        mismatches.sort_by(|a, b| a.fen.cmp(&b.fen));
        check.checked = self.checked.into_inner();
        check.mismatch_count = self.found.into_inner();
        check.mismatches = mismatches;
    }

    /// Adds `other`'s counts and first mismatches to this one's.
    fn add(&self, other: &Tally) {
        self.checked
            .fetch_add(other.checked.load(Ordering::Relaxed), Ordering::Relaxed);
        let mut theirs = other.kept.lock().expect("no panics while held").clone();
        self.found.fetch_add(
            other.found.load(Ordering::Relaxed) - theirs.len() as u64,
            Ordering::Relaxed,
        );
        self.record(0, &mut theirs);
    }

    fn record(&self, checked: u64, mismatches: &mut Vec<Mismatch>) {
        self.checked.fetch_add(checked, Ordering::Relaxed);
        if mismatches.is_empty() {
            return;
        }
        self.found
            .fetch_add(mismatches.len() as u64, Ordering::Relaxed);
        let mut kept = self.kept.lock().expect("no panics while held");
        let room = KEEP.saturating_sub(kept.len());
        kept.extend(mismatches.drain(..).take(room));
        mismatches.clear();
    }
}

/// One side of the pair under check: its resolved table, which of its
/// positions must capture, and its DTC file's bytes when that is checked
/// (with 1 at capture positions and 0 where there is no move: what
/// `probe_dtc` answers there without reading the file).
struct PairSide {
    table: ResolvedTable,
    /// The table's material's counted ending, if any (asked for at every
    /// successor).
    class: Option<CountedEnding>,
    /// `None` when the table was only decoded (a sample check): its
    /// capture positions are then found and resolved one by one.
    capture: Option<Vec<u64>>,
    dtc: Option<Vec<u8>>,
    /// Whether the side's DTC file stores no values: `dtc` is then found
    /// from the mirror's by [`PairCheck::derive_dtc`].
    dtc_from_mirror: bool,
    /// The placements of the men whose positions are checked, sorted,
    /// when the check takes one slice group (`None`: every position).
    checked: Option<Vec<u64>>,
    /// Whether its capture positions hold their resolved values although
    /// `capture` does not flag them ([`Holding::InPlace`]).
    in_place: bool,
    /// The side's check (values, DTC), where it was done while its DTC
    /// was derived from its moves (see [`PairCheck::derive_dtc`]).
    checked_early: Option<(Tally, Tally)>,
}

/// How the tables of a pair are held for its check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holding {
    /// Decoded, and every capture position resolved and flagged (2 bits
    /// of flags a position besides the values): the whole check.
    Flagged,
    /// Decoded, and every capture position resolved in place, unflagged:
    /// a whole check in the values' bits alone. A successor that must
    /// capture is then told by its moves only where DTC is checked (which
    /// counts it apart); a value's check reads its resolved value.
    InPlace,
    /// Decoded only (a sample check): a successor that must capture is
    /// found by its moves and resolved then.
    Decoded,
}

/// A side's DTC bytes as the prober answers them: 1 at capture positions
/// and 0 where there is no move (`flags`, in the bytes' order), whatever
/// the file holds there.
fn dtc_as_probed(mut bytes: Vec<u8>, flags: &PositionFlags) -> Vec<u8> {
    for (i, byte) in bytes.iter_mut().enumerate() {
        if bit(&flags.capture, i as u64) {
            *byte = 1;
        } else if bit(&flags.no_moves, i as u64) {
            *byte = 0;
        }
    }
    bytes
}

impl PairSide {
    /// Whether this side's values are read as they are, with no DTC
    /// beside them: held resolved in place, with no DTC file checked.
    fn values_alone(&self) -> bool {
        self.in_place && self.dtc.is_none() && !self.dtc_from_mirror
    }

    /// Whether the side to move must capture at position `i`, where the
    /// side's capture positions were resolved (`false` where they were
    /// not: a sample check).
    #[inline]
    fn must_capture(&self, i: u64) -> Result<bool, GenError> {
        match &self.capture {
            Some(capture) => {
                let local = self.table.local(i)? as u64;
                if local / 64 >= capture.len() as u64 {
                    return Err(self.not_resolved(i));
                }
                Ok(bit(capture, local))
            }
            None => Ok(false),
        }
    }

    /// The error for position `i`, which this side holds without its
    /// flags and DTC (one of the next group's, in a slice group's check).
    #[cold]
    fn not_resolved(&self, i: u64) -> GenError {
        GenError::Internal(format!(
            "{}: position {i} is not one of the group checked",
            self.table.material
        ))
    }

    /// The stored code of position `i` (see [`ResolvedTable::code_at`])
    /// and its DTC byte, if the side's DTC values are there.
    #[inline]
    fn read(&self, i: u64) -> Result<(u8, Option<u8>), GenError> {
        let local = self.table.local(i)?;
        let dtc = match &self.dtc {
            Some(dtc) => Some(*dtc.get(local).ok_or_else(|| self.not_resolved(i))?),
            None => None,
        };
        Ok((self.table.code_at(local), dtc))
    }

    /// [`PairSide::read`] of every position of `indices`, into `out`, in
    /// one tight loop before any is used. Successors fall anywhere in
    /// tables larger than the caches; read together, many of them are in
    /// flight at once instead of one after the other.
    fn gather(&self, indices: &[u64], out: &mut Vec<(u8, Option<u8>)>) -> Result<(), GenError> {
        out.clear();
        match (self.table.is_whole(), &self.dtc) {
            // The loops that matter: no call, no branch but the bound's.
            (true, Some(dtc)) => out.extend(indices.iter().map(|&i| {
                let i = i as usize;
                (self.table.code_at(i), dtc.get(i).copied())
            })),
            (true, None) => out.extend(
                indices
                    .iter()
                    .map(|&i| (self.table.code_at(i as usize), None)),
            ),
            (false, _) => {
                for &i in indices {
                    out.push(self.read(i)?);
                }
                return Ok(());
            }
        }
        match out
            .iter()
            .zip(indices)
            .find(|((_, dtc), _)| self.dtc.is_some() && dtc.is_none())
        {
            Some((_, &i)) => Err(self.not_resolved(i)),
            None => Ok(()),
        }
    }

    /// Starts reading the values (and DTC bytes) of positions `indices`
    /// into the caches, where the whole table is held (a window's
    /// positions are found by a search, not worth doing twice).
    fn prefetch(&self, indices: &[u64]) {
        if !self.table.is_whole() {
            return;
        }
        for &i in indices {
            self.table.prefetch(i as usize);
            if let Some(dtc) = &self.dtc {
                crate::resolved::prefetch(dtc, i as usize);
            }
        }
    }

    /// The DTC byte of position `i`, if the side's DTC values are there.
    #[inline]
    fn dtc_byte(&self, i: u64) -> Result<Option<u8>, GenError> {
        match &self.dtc {
            Some(dtc) => match dtc.get(self.table.local(i)?) {
                Some(&byte) => Ok(Some(byte)),
                None => Err(self.not_resolved(i)),
            },
            None => Ok(None),
        }
    }
}

/// A pair's tables (one for a symmetric material) resolved in memory,
/// ready for the second pass over either side.
pub(crate) struct PairCheck {
    rule_set: RuleSet,
    sides: Vec<PairSide>,
}

/// The DTC files of a pair, decoded: the material's and its mirror's
/// (the mirror's is empty for a symmetric material); `None` for a file
/// that stores no values (see `format::FLAG_FROM_MIRROR`).
pub(crate) type DtcPair = (Option<Vec<u8>>, Option<Vec<u8>>);

impl PairCheck {
    /// Decodes and resolves the tables of `material` and its mirror, with
    /// their DTC files if given; `resolved` must hold the tables their
    /// captures lead to (see [`ResolvedTables::prepare_for`]).
    ///
    /// Held as `holding` says: a sample check only decodes the tables
    /// (resolving every capture position would cost more than checking a
    /// sample).
    pub(crate) fn load(
        resolved: &ResolvedTables,
        material: Material,
        dtc: Option<DtcPair>,
        holding: Holding,
    ) -> Result<PairCheck, GenError> {
        let with_dtc = dtc.is_some();
        let (own_dtc, mirror_dtc) = match dtc {
            Some((own, mirror)) => (Some(own), Some(mirror)),
            None => (None, None),
        };
        let side = |m: Material, dtc: Option<Option<Vec<u8>>>| -> Result<PairSide, GenError> {
            let dtc_from_mirror = matches!(dtc, Some(None));
            let dtc = dtc.flatten();
            if holding != Holding::Flagged {
                let mut table = resolved.decode(m)?;
                let in_place = holding == Holding::InPlace;
                if in_place {
                    resolved.resolve_in_place(&mut table)?;
                }
                return Ok(PairSide {
                    class: m.counted_ending(),
                    table,
                    capture: None,
                    dtc,
                    dtc_from_mirror,
                    checked: None,
                    in_place,
                    checked_early: None,
                });
            }
            let (table, flags) = resolved.resolve(m, with_dtc)?;
            let dtc = dtc.map(|bytes| dtc_as_probed(bytes, &flags));
            Ok(PairSide {
                class: m.counted_ending(),
                table,
                capture: Some(flags.capture),
                dtc,
                dtc_from_mirror,
                checked: None,
                in_place: false,
                checked_early: None,
            })
        };
        let mut sides = vec![side(material, own_dtc)?];
        if !material.is_symmetric() {
            sides.push(side(material.mirrored(), mirror_dtc)?);
        }
        Ok(PairCheck {
            rule_set: resolved.rule_set(),
            sides,
        })
    }

    /// One slice group of `pair` (or a bin of its parts), both sides to
    /// move, with its DTC values if `with_dtc`: the positions of its
    /// placements of the men (`own`), and those its man moves reach
    /// (`next`, of the group one advancement further), decoded block by
    /// block; the check then covers `own` alone. As in a sample check,
    /// capture positions are not resolved beforehand: a successor that
    /// must capture is, through `resolved`, which must be prepared for the
    /// pair's materials.
    pub(crate) fn load_group(
        resolved: &ResolvedTables,
        pair: Material,
        (own, next): (&[PlacementKeys], &[PlacementKeys]),
        with_dtc: bool,
    ) -> Result<PairCheck, GenError> {
        let materials = plan::pair_materials(pair);
        let indexes: Vec<MaterialIndex> =
            materials.iter().map(|&m| MaterialIndex::new(m)).collect();
        let by_side = |keys: &[PlacementKeys]| {
            let mut sides = vec![Vec::new(); materials.len()];
            for (side, men) in keys.iter().flat_map(PlacementKeys::iter) {
                sides[usize::from(side)].push(men);
            }
            sides
        };
        let (own, next) = (by_side(own), by_side(next));
        let mut sides = Vec::with_capacity(materials.len());
        for (s, &m) in materials.iter().enumerate() {
            let window = Window::new(&own[s], &next[s], indexes[s].king_placements());
            let (dtc, dtc_from_mirror) = if with_dtc {
                // The group's own positions only: a man move into the
                // next group is a conversion, whose DTC is 1.
                read_dtc_window(resolved, m, &window.own_part())?
            } else {
                (None, false)
            };
            let (table, flags) = resolved.resolve_window(m, window, with_dtc)?;
            let dtc = dtc.map(|bytes| dtc_as_probed(bytes, &flags));
            let mut checked = own[s].clone();
            checked.sort_unstable();
            sides.push(PairSide {
                class: m.counted_ending(),
                table,
                capture: Some(flags.capture),
                dtc,
                dtc_from_mirror,
                checked: Some(checked),
                in_place: false,
                checked_early: None,
            });
        }
        Ok(PairCheck {
            rule_set: resolved.rule_set(),
            sides,
        })
    }

    /// How many positions of `material` (a side of this pair) a check
    /// covers: those of its placements checked, or all.
    pub(crate) fn positions_checked(&self, material: Material) -> u64 {
        let side = self.side(material);
        let index = &side.table.index;
        match &side.checked {
            Some(placements) => placements.len() as u64 * index.king_placements(),
            None => index.count(),
        }
    }

    /// Whether this pair holds `material`, with DTC files if `with_dtc`.
    pub(crate) fn holds(&self, material: Material, with_dtc: bool) -> bool {
        self.sides.iter().any(|s| {
            s.table.material == material && (s.dtc.is_some() || s.dtc_from_mirror) == with_dtc
        })
    }

    /// Finds the DTC values of a side whose file stores none, from its
    /// mirror's, as the prober does: at each decided position the best
    /// over its moves. The mirror's values are then checked against them,
    /// which checks both: the DTC is the one solution of these equations.
    ///
    /// The side's own check (of the positions `keep` accepts) is done on
    /// the way, from the same successors, and kept for [`PairCheck::check`]:
    /// its positions are walked once, not twice.
    pub(crate) fn derive_dtc(
        &mut self,
        tb: &Tablebase,
        resolved: &ResolvedTables,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<(), GenError> {
        // A sample check (tables decoded, not resolved) finds the values
        // it needs one by one instead, and so does the check of one slice
        // group (see `check_position`); a pair held resolved in place is
        // derived whole.
        let wanted = |s: &PairSide| {
            let whole = s.capture.is_some() || s.in_place;
            s.dtc_from_mirror && s.dtc.is_none() && whole && s.checked.is_none()
        };
        let Some(k) = self.sides.iter().position(wanted) else {
            return Ok(());
        };
        let material = self.sides[k].table.material;
        let walk = Walk::new(
            tb,
            resolved,
            self.rule_set,
            &self.sides[k],
            self.side(material.mirrored()),
        );
        if walk.mirror.dtc.is_none() {
            return Err(corrupt(
                material,
                "its DTC file and its mirror's store no values",
            ));
        }
        let count = walk.own.table.index.count();
        let (values, dtcs) = (Tally::default(), Tally::default());
        let chunks: Vec<Vec<u8>> = (0..count.div_ceil(CHUNK))
            .into_par_iter()
            .map_init(Walker::default, |walker, c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(count);
                let derived = walker.derive_and_check_chunk(&walk, range, keep)?;
                values.record(walker.checked, &mut walker.value_mismatches);
                dtcs.record(walker.dtc_checked, &mut walker.dtc_mismatches);
                Ok(derived)
            })
            .collect::<Result<_, GenError>>()?;
        self.sides[k].dtc = Some(chunks.concat());
        self.sides[k].checked_early = Some((values, dtcs));
        Ok(())
    }

    /// The pair's resolved tables, for the materials whose captures lead
    /// to them (none after a sample check, which does not resolve them).
    pub(crate) fn into_tables(self) -> impl Iterator<Item = ResolvedTable> {
        self.sides
            .into_iter()
            .filter(|s| s.capture.is_some())
            .map(|s| s.table)
    }

    fn side(&self, material: Material) -> &PairSide {
        let at = self.sides.iter().position(|s| s.table.material == material);
        &self.sides[at.unwrap_or(0)]
    }

    /// The second pass over `material` (a side of this pair): every
    /// position that `keep` accepts and that has no capture, against its
    /// moves, counted into `tallies` (values, DTC). `tb` answers for the
    /// crownings.
    pub(crate) fn check(
        &self,
        tb: &Tablebase,
        resolved: &ResolvedTables,
        material: Material,
        keep: &(dyn Fn(u64) -> bool + Sync),
        tallies: (&Tally, &Tally),
        progress: &Progress,
    ) -> Result<(), GenError> {
        let walk = Walk::new(
            tb,
            resolved,
            self.rule_set,
            self.side(material),
            self.side(material.mirrored()),
        );
        if let Some((values, dtcs)) = &walk.own.checked_early {
            tallies.0.add(values);
            tallies.1.add(dtcs);
            progress.advance(walk.own.table.index.count());
            return Ok(());
        }
        let check_range = |walker: &mut Walker, range: Range<u64>| -> Result<(), GenError> {
            let positions = range.end - range.start;
            walker.check_chunk(&walk, range, keep)?;
            tallies
                .0
                .record(walker.checked, &mut walker.value_mismatches);
            tallies
                .1
                .record(walker.dtc_checked, &mut walker.dtc_mismatches);
            progress.advance(positions);
            Ok(())
        };
        let Some(placements) = &walk.own.checked else {
            let count = walk.own.table.index.count();
            return (0..count.div_ceil(CHUNK))
                .into_par_iter()
                .try_for_each_init(Walker::default, |walker, c| {
                    check_range(walker, c * CHUNK..((c + 1) * CHUNK).min(count))
                });
        };
        // One slice group: the positions of its placements of the men, a
        // few placements to a piece of work where they hold few positions
        // each, a piece of one placement where they hold many.
        let k = walk.own.table.index.king_placements();
        let per_piece = (CHUNK / k).max(1) as usize;
        let pieces_per_placement = k.div_ceil(CHUNK);
        placements
            .par_chunks(per_piece)
            .flat_map(|chunk| {
                (0..pieces_per_placement)
                    .into_par_iter()
                    .map(move |j| (chunk, j))
            })
            .try_for_each_init(Walker::default, |walker, (chunk, j)| {
                for &men in chunk {
                    let start = men * k + j * CHUNK;
                    check_range(walker, start..(start + CHUNK).min((men + 1) * k))?;
                }
                Ok(())
            })
    }
}

/// What the second pass over one side reads.
struct Walk<'a> {
    tb: &'a Tablebase,
    /// The smaller tables, resolved (a sample check resolves the
    /// successors that must capture through them).
    resolved: &'a ResolvedTables,
    rule_set: RuleSet,
    own: &'a PairSide,
    mirror: &'a PairSide,
    /// What each code the mirror's table stores gives a king move into it
    /// (see [`CodeView`]), looked up instead of worked out per successor.
    mirror_codes: [CodeView; 256],
}

/// A successor's value as a stored code gives it, found once per code.
#[derive(Clone, Copy)]
struct CodeView {
    /// Its value as the parent sees it.
    view: ChildView,
    /// Its result with a freshly entered count.
    fresh: Wdl,
    /// Whether the code is one the table can store.
    valid: bool,
}

impl<'a> Walk<'a> {
    /// The walk over `own`, whose king moves lead into `mirror`.
    fn new(
        tb: &'a Tablebase,
        resolved: &'a ResolvedTables,
        rule_set: RuleSet,
        own: &'a PairSide,
        mirror: &'a PairSide,
    ) -> Walk<'a> {
        let invalid = CodeView {
            view: ChildView::DRAW,
            fresh: Wdl::Draw,
            valid: false,
        };
        let mut mirror_codes = [invalid; 256];
        for (code, slot) in (0..=u8::MAX).zip(mirror_codes.iter_mut()) {
            if let Ok(value) = mirror.table.decode(code) {
                *slot = CodeView {
                    view: child_view_in(rule_set, own.class, mirror.class, value),
                    fresh: value.wdl_with(rule_set, mirror.class, None),
                    valid: true,
                };
            }
        }
        Walk {
            tb,
            resolved,
            rule_set,
            own,
            mirror,
            mirror_codes,
        }
    }

    /// The walk over the mirror, whose king moves lead into `own`.
    fn turned(&self) -> Walk<'a> {
        Walk::new(self.tb, self.resolved, self.rule_set, self.mirror, self.own)
    }
}

impl Walk<'_> {
    /// Whether a king move's successor is one read of the mirror's values
    /// (and DTC): where its captures are resolved, or where the values
    /// were resolved in place and no DTC is checked (a successor is then
    /// read as it is, capture or not).
    #[inline]
    fn reads_king_moves_directly(&self) -> bool {
        self.mirror.capture.is_some() || (self.own.values_alone() && self.mirror.values_alone())
    }

    /// Whether a man move's successor that stays in the pair is one read
    /// of the mirror's value: where the mirror's captures are resolved and
    /// the whole mirror is held (in a slice group's check a man move leads
    /// into the next group, whose capture positions were not resolved).
    #[inline]
    fn reads_man_moves_directly(&self) -> bool {
        self.mirror.capture.is_some() && self.mirror.checked.is_none()
    }
}

/// A position seen from its king moves' successors: the mirror's frame
/// (the board turned, colours swapped), where the moving White king is a
/// Black king and nothing else changes, so that a successor's index is
/// the men's part, fixed, plus the rank of the kings.
#[derive(Clone, Copy, Default)]
struct MirrorFrame {
    /// The index of the position's men in the mirror, times the king
    /// placements per placement of the men, plus the part of the kings'
    /// rank that the mirror's White kings (the position's Black kings)
    /// give: what a king move leaves as it is.
    fixed_part: u64,
    /// The index of the position's men in the mirror, times the king
    /// placements per placement of the men.
    men_part: u64,
    /// The men of both colours (dense masks).
    men: u64,
    /// The mirror's Black men (the position's White men).
    black_men: u64,
    /// The mirror's White kings (the position's Black kings).
    white_kings: u64,
    /// The squares the mirror's Black kings do not take (dense masks):
    /// the men of both colours and the mirror's White kings.
    others: u64,
    /// The mirror's Black kings (the position's White kings).
    black_kings: u64,
}

impl MirrorFrame {
    /// The frame of `pos` in `mirror`; `men` keeps the rank of the last
    /// placement of the men asked for (consecutive positions mostly share
    /// theirs).
    fn of(pos: &Position, mirror: &ResolvedTable, men: &mut MenRank) -> MirrorFrame {
        use rules::{dense, Color};
        let white = dense::flip(pos.pieces(Color::White).to_dense());
        let black = dense::flip(pos.pieces(Color::Black).to_dense());
        let kings =
            dense::flip(pos.kings(Color::White).to_dense() | pos.kings(Color::Black).to_dense());
        // The mirror's White is the position's Black.
        let (white_men, white_kings) = (black & !kings, black & kings);
        let (black_men, black_kings) = (white & !kings, white & kings);
        let index = &mirror.index;
        if men.masks != Some((white_men, black_men)) {
            men.masks = Some((white_men, black_men));
            men.rank = index.men_rank(white_men, black_men);
            men.after_man_move.clear();
        }
        let all_men = white_men | black_men;
        let men_part = men.rank * index.king_placements();
        MirrorFrame {
            fixed_part: men_part + index.king_rank(all_men, white_kings, 0),
            men_part,
            men: all_men,
            black_men,
            white_kings,
            others: all_men | white_kings,
            black_kings,
        }
    }

    /// The mirror's indices of the successors of the king moves among
    /// `moves` (those `pos.is_conversion` rejects), in move order, into
    /// `out`: the ranks of one king's moves are found from what the other
    /// kings give once (see [`MaterialIndex::black_king_move_ranks`]), as
    /// the moves of a king come one after the other.
    fn king_move_indices(
        &self,
        pos: &Position,
        moves: &[Move],
        mirror: &ResolvedTable,
        out: &mut Vec<u64>,
    ) {
        let place = |sq: rules::Square| 50 - u32::from(sq.number());
        let mut from = None;
        let mut ranks = None;
        for mv in moves.iter().filter(|mv| !pos.is_conversion(mv)) {
            if from != Some(mv.from()) || ranks.is_none() {
                from = Some(mv.from());
                let others = self.black_kings & !(1u64 << place(mv.from()));
                ranks = Some(mirror.index.black_king_move_ranks(
                    self.men,
                    self.white_kings,
                    others,
                ));
            }
            if let Some(ranks) = &ranks {
                out.push(self.men_part + ranks.rank_with(place(mv.to())));
            }
        }
    }

    /// The mirror's indices of the successors of the man moves among
    /// `moves` that do not crown (they stay in the pair), in move order,
    /// into `out`; `men` is the cache [`MirrorFrame::of`] was given.
    fn man_move_indices(
        &self,
        pos: &Position,
        moves: &[Move],
        mirror: &ResolvedTable,
        men: &mut MenRank,
        out: &mut Vec<u64>,
    ) {
        let bit = |sq: rules::Square| 1u64 << (50 - u32::from(sq.number()));
        let index = &mirror.index;
        let white_men = self.men & !self.black_men;
        for mv in moves.iter().filter(|mv| is_man_step(pos, mv)) {
            let black_men = self.black_men ^ bit(mv.from()) ^ bit(mv.to());
            let men_rank = men.after_man_move(index, white_men, black_men);
            let kings = index.king_rank(white_men | black_men, self.white_kings, self.black_kings);
            out.push(men_rank * index.king_placements() + kings);
        }
    }

    /// The mirror's index of the successor of king move `mv`.
    #[inline]
    fn king_move_index(&self, mv: &Move, mirror: &ResolvedTable) -> u64 {
        let flipped = |sq: rules::Square| 1u64 << (50 - u32::from(sq.number()));
        let black_kings = self.black_kings ^ flipped(mv.from()) ^ flipped(mv.to());
        self.fixed_part + mirror.index.black_king_rank(self.others, black_kings)
    }
}

/// Whether quiet move `mv` of `pos` moves a man without crowning it: its
/// successor is in the mirror of `pos`'s material.
#[inline]
fn is_man_step(pos: &Position, mv: &Move) -> bool {
    pos.is_conversion(mv) && !pos.is_crowning(mv)
}

/// The mirror's rank of a placement of the men (see [`MirrorFrame::of`]),
/// and of those its man moves lead to.
#[derive(Clone, Default)]
struct MenRank {
    /// The mirror's White and Black men (dense), if any was ranked yet.
    masks: Option<(u64, u64)>,
    rank: u64,
    /// The mirror's Black men after a man move of the position, and the
    /// rank of the men then, as found so far for this placement.
    after_man_move: Vec<(u64, u64)>,
}

impl MenRank {
    /// The mirror's rank of the men `white_men` (those of `masks`) and
    /// `black_men` (after a man move), found once per placement.
    fn after_man_move(&mut self, index: &MaterialIndex, white_men: u64, black_men: u64) -> u64 {
        match self
            .after_man_move
            .iter()
            .find(|(men, _)| *men == black_men)
        {
            Some(&(_, rank)) => rank,
            None => {
                let rank = index.men_rank(white_men, black_men);
                self.after_man_move.push((black_men, rank));
                rank
            }
        }
    }
}

/// The DTC values of `material` at the positions `window` holds, and
/// whether its file stores none (they come from its mirror's).
fn read_dtc_window(
    resolved: &ResolvedTables,
    material: Material,
    window: &Window,
) -> Result<(Option<Vec<u8>>, bool), GenError> {
    let path = format::dtc_path(resolved.dir(), material);
    let rule_set = resolved.rule_set();
    let reader = crate::files::open_positioned(&path, material, rule_set, ValueKind::Dtc)?;
    if reader.header().from_mirror {
        return Ok((None, true));
    }
    let values = decode_window_raw(&reader, window).map_err(|e| GenError::in_file(&path, e))?;
    Ok((Some(values), false))
}

fn corrupt(material: Material, what: &str) -> GenError {
    GenError::Internal(format!("{material}: {what}"))
}

/// One successor, as the checks need it.
struct Successor {
    /// Its value as the parent sees it (the counter passed on).
    view: ChildView,
    /// Its result with a freshly entered count (what a DTC keeps).
    fresh: Wdl,
    /// The DTC through this move: 1 for a conversion, else one more than
    /// the successor's (`None` where the successor has none: a draw).
    dtc: Option<u32>,
}

impl Successor {
    /// The successor of `material` whose table value is `value`, as the
    /// position under check sees it; `dtc` gives the DTC through the move
    /// from the successor's fresh result.
    #[inline(always)]
    fn new(
        walk: &Walk<'_>,
        material: Material,
        value: TableValue,
        dtc: impl FnOnce(Wdl) -> Option<u32>,
    ) -> Successor {
        let rule_set = walk.rule_set;
        let parent = walk.own.class;
        let class = if material == walk.mirror.table.material {
            walk.mirror.class
        } else {
            material.counted_ending()
        };
        let fresh = value.wdl_with(rule_set, class, None);
        Successor {
            view: child_view_in(rule_set, parent, class, value),
            fresh,
            dtc: dtc(fresh),
        }
    }
}

/// The DTC of position `i` of `walk`'s mirror, whose file stores none,
/// found from its moves (into `walk`'s own side, whose values are there).
fn derive_one(walk: &Walk<'_>, i: u64) -> Result<u8, GenError> {
    let values = Walker::default().derive_and_check_chunk(&walk.turned(), i..i + 1, &|_| false)?;
    Ok(values[0])
}

/// A position prepared for its check (see [`Walker::prepare_ahead`]).
#[derive(Default)]
struct Prepared {
    /// Its index in its table.
    i: u64,
    pos: Option<Position>,
    moves: Vec<Move>,
    frame: MirrorFrame,
    /// The mirror's indices of the successors of the king moves read
    /// directly (see [`Walk::reads_king_moves_directly`]), in move order.
    direct: Vec<u64>,
    /// The mirror's indices of the successors of the man moves that do
    /// not crown, where they are read directly (see
    /// [`Walk::reads_man_moves_directly`]), in move order.
    man_steps: Vec<u64>,
}

/// How many positions a walker prepares ahead of the one it checks (see
/// [`Walker::pipelined`]): enough for their reads to arrive in time.
const PREPARED_AHEAD: usize = 2;

/// The slots a walker prepares positions in: the one checked, those
/// prepared ahead, and one to prepare the next in while the one checked
/// last is no longer needed.
const SLOTS: usize = PREPARED_AHEAD + 2;

/// One worker's buffers and counts.
#[derive(Default)]
struct Walker {
    cursor: UnrankCursor,
    men: MenRank,
    /// A ring of prepared positions, used in place (a [`Prepared`] holds
    /// buffers and is too large to move per position): the one being
    /// checked at `now`, then `ahead` more (at most one past
    /// [`PREPARED_AHEAD`], the oldest first).
    slots: [Prepared; SLOTS],
    now: usize,
    ahead: usize,
    captures: Vec<Move>,
    successors: Vec<Successor>,
    /// [`Walker::best_dtc`] of `successors`, once found, and the result
    /// it was asked for.
    best: Option<(Wdl, Option<Option<u32>>)>,
    /// What was read at `now.direct` (see [`PairSide::read`]).
    read: Vec<(u8, Option<u8>)>,
    checked: u64,
    dtc_checked: u64,
    value_mismatches: Vec<Mismatch>,
    dtc_mismatches: Vec<Mismatch>,
}

impl Walker {
    fn check_chunk(
        &mut self,
        walk: &Walk<'_>,
        range: Range<u64>,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<(), GenError> {
        self.checked = 0;
        self.dtc_checked = 0;
        let select = |walker: &mut Walker, i: u64| {
            if !keep(i) || walk.own.must_capture(i)? {
                return Ok(None);
            }
            let pos = walk.own.table.index.unrank_with(i, &mut walker.cursor);
            Ok((walk.own.capture.is_some() || !pos.has_capture()).then_some(pos))
        };
        self.pipelined(walk, range, select, |walker, i, pos| {
            walker.check_position(walk, i, &pos).map(|_| ())
        })
    }

    /// The DTC values of positions `range` of a side whose file stores
    /// none: what its moves give (1 where it must capture, 0 where it has
    /// no move or the position is drawn). The positions `keep` accepts
    /// are checked on the way, as [`Walker::check_chunk`] checks them.
    fn derive_and_check_chunk(
        &mut self,
        walk: &Walk<'_>,
        range: Range<u64>,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<Vec<u8>, GenError> {
        self.checked = 0;
        self.dtc_checked = 0;
        let class = walk.own.class;
        let start = range.start;
        // 1 where the side to move must capture; the others are set below.
        let mut out = vec![1u8; (range.end - range.start) as usize];
        let select = |walker: &mut Walker, i: u64| {
            if walk.own.must_capture(i)? {
                return Ok(None);
            }
            let pos = walk.own.table.index.unrank_with(i, &mut walker.cursor);
            Ok((walk.own.capture.is_some() || !pos.has_capture()).then_some(pos))
        };
        self.pipelined(walk, range, select, |walker, i, pos| {
            out[(i - start) as usize] = if keep(i) {
                walker.check_position(walk, i, &pos)?
            } else {
                let fresh = walk
                    .own
                    .table
                    .value(i)?
                    .wdl_with(walk.rule_set, class, None);
                walker.collect_successors(walk, false)?;
                walker.derived_dtc(fresh)
            };
            Ok(())
        })?;
        Ok(out)
    }

    /// The DTC byte that the successors collected give a position of
    /// result `fresh` (0 for a draw, or where they give none).
    fn derived_dtc(&mut self, fresh: Wdl) -> u8 {
        match fresh {
            Wdl::Draw => 0,
            _ => self.best_dtc(fresh).flatten().map_or(0, format::dtc_byte),
        }
    }

    /// Compares the stored value (and DTC) of position `i` with what its
    /// moves give; returns the DTC byte its moves give (see
    /// [`Walker::derived_dtc`]) where its side's DTC file stores none,
    /// else 0.
    fn check_position(&mut self, walk: &Walk<'_>, i: u64, pos: &Position) -> Result<u8, GenError> {
        let rule_set = walk.rule_set;
        let class = walk.own.class;
        let stored = walk.own.table.value(i)?;
        // A side whose DTC file stores none, when not derived whole (see
        // `derive_dtc`), has its DTC found here from its moves, as the
        // prober finds it: the mirror's are checked against them.
        let derives_dtc = walk.own.dtc.is_none() && walk.own.dtc_from_mirror;
        let with_dtc = walk.own.dtc.is_some() || derives_dtc;
        // In a WLD table without DTC one lost successor settles the value
        // (a win, whatever the other moves give): the rest are not read.
        let settles_early = class.is_none() && !with_dtc;
        self.collect_successors(walk, settles_early)?;
        let mut expected =
            value_from_children(rule_set, class, pos, self.successors.iter().map(|s| s.view));
        if self.held_by_kings_only_rule(walk, expected, settles_early)? {
            expected = TableValue::DRAW;
        }
        self.checked += 1;
        if stored != expected {
            self.value_mismatches.push(Mismatch {
                fen: pos.to_string(),
                stored,
                expected,
            });
        }
        let fresh = stored.wdl_with(rule_set, class, None);
        let derived = if derives_dtc {
            self.derived_dtc(fresh)
        } else {
            0
        };
        // A wrong value is reported as such; its DTC means nothing.
        // Where there is no move the DTC is 0 without reading the file.
        if with_dtc && stored == expected && fresh != Wdl::Draw && !self.successors.is_empty() {
            let dtc = walk.own.dtc_byte(i)?.unwrap_or(derived);
            self.check_dtc(dtc, fresh, pos);
        }
        Ok(derived)
    }

    /// Whether the 25-move rule holds `expected`, the result the
    /// successors of the position prepared give, to a draw at a fresh
    /// count: its DTC over them is above the 50 king-only plies
    /// (RULES.md). Known only where
    /// the pair has DTC files (then every successor's DTC is known); if
    /// the successors were cut short at the first lost one
    /// (`settled_early`), all are collected again first.
    fn held_by_kings_only_rule(
        &mut self,
        walk: &Walk<'_>,
        expected: TableValue,
        settled_early: bool,
    ) -> Result<bool, GenError> {
        let class = walk.own.class;
        let Some(limit) = crate::kings_only::level_limit(walk.rule_set, class) else {
            return Ok(false);
        };
        let fresh = expected.wdl_with(walk.rule_set, class, None);
        if fresh == Wdl::Draw || (walk.own.dtc.is_none() && !walk.own.dtc_from_mirror) {
            return Ok(false);
        }
        if settled_early {
            self.collect_successors(walk, false)?;
        }
        Ok(matches!(self.best_dtc(fresh), Some(Some(d)) if d > limit))
    }

    /// Prepares position `i`, `pos`, in the slot after the last one
    /// prepared: its moves, and the mirror's indices of the successors
    /// read directly (see [`Walk::reads_king_moves_directly`]), whose
    /// reads it starts.
    fn prepare_ahead(&mut self, walk: &Walk<'_>, i: u64, pos: Position) {
        self.ahead += 1;
        let slot = &mut self.slots[(self.now + self.ahead) % SLOTS];
        slot.i = i;
        slot.pos = Some(pos);
        // The walks select positions without a capture only.
        debug_assert!(!pos.has_capture());
        pos.generate_quiet_moves(&mut slot.moves);
        slot.frame = MirrorFrame::of(&pos, &walk.mirror.table, &mut self.men);
        slot.direct.clear();
        if walk.reads_king_moves_directly() {
            let mirror = &walk.mirror.table;
            slot.frame
                .king_move_indices(&pos, &slot.moves, mirror, &mut slot.direct);
            debug_assert!(slot
                .moves
                .iter()
                .filter(|mv| !pos.is_conversion(mv))
                .zip(&slot.direct)
                .all(|(mv, &i)| i == mirror.index.rank(&table_position(&pos.play(mv)).1)));
        }
        slot.man_steps.clear();
        if walk.reads_man_moves_directly() {
            let mirror = &walk.mirror.table;
            slot.frame.man_move_indices(
                &pos,
                &slot.moves,
                mirror,
                &mut self.men,
                &mut slot.man_steps,
            );
            debug_assert!(slot
                .moves
                .iter()
                .filter(|mv| is_man_step(&pos, mv))
                .zip(&slot.man_steps)
                .all(|(mv, &i)| i == mirror.index.rank(&table_position(&pos.play(mv)).1)));
        }
        walk.mirror.prefetch(&slot.direct);
        walk.mirror.prefetch(&slot.man_steps);
    }

    /// Runs `finish` on each position of `range` that `select` gives,
    /// in order, each prepared (see [`Walker::prepare_ahead`]) while the
    /// [`PREPARED_AHEAD`] before it are finished: the reads of a
    /// position's successors, which fall anywhere in tables larger than
    /// the caches, are then on their way while the work on those before
    /// goes on.
    fn pipelined(
        &mut self,
        walk: &Walk<'_>,
        range: Range<u64>,
        mut select: impl FnMut(&mut Walker, u64) -> Result<Option<Position>, GenError>,
        mut finish: impl FnMut(&mut Walker, u64, Position) -> Result<(), GenError>,
    ) -> Result<(), GenError> {
        // What a failed call left prepared is not finished.
        self.ahead = 0;
        for i in range {
            let Some(pos) = select(self, i)? else {
                continue;
            };
            self.prepare_ahead(walk, i, pos);
            if self.ahead > PREPARED_AHEAD {
                self.finish_next(&mut finish)?;
            }
        }
        while self.ahead > 0 {
            self.finish_next(&mut finish)?;
        }
        Ok(())
    }

    /// `finish` on the oldest position prepared, made the one checked.
    fn finish_next(
        &mut self,
        finish: &mut impl FnMut(&mut Walker, u64, Position) -> Result<(), GenError>,
    ) -> Result<(), GenError> {
        if self.ahead > 0 {
            self.now = (self.now + 1) % SLOTS;
            self.ahead -= 1;
        }
        self.finish_now(finish)
    }

    /// The position being checked, as prepared.
    fn now(&mut self) -> &mut Prepared {
        &mut self.slots[self.now]
    }

    /// `finish` on the position being checked.
    fn finish_now(
        &mut self,
        finish: &mut impl FnMut(&mut Walker, u64, Position) -> Result<(), GenError>,
    ) -> Result<(), GenError> {
        let now = self.now();
        match now.pos {
            Some(pos) => {
                let i = now.i;
                finish(self, i, pos)
            }
            None => Err(GenError::Internal("no position was prepared".into())),
        }
    }

    /// The successors of the position being checked into
    /// `self.successors`; with `settles_early`, only up to the first
    /// lost one.
    fn collect_successors(&mut self, walk: &Walk<'_>, settles_early: bool) -> Result<(), GenError> {
        let Some(pos) = self.now().pos else {
            return Err(GenError::Internal("no position was prepared".into()));
        };
        let now = self.now();
        let moves = std::mem::take(&mut now.moves);
        let direct = std::mem::take(&mut now.direct);
        let man_steps = std::mem::take(&mut now.man_steps);
        let frame = now.frame;
        self.successors.clear();
        self.best = None;
        let gathered = walk.mirror.gather(&direct, &mut self.read);
        let collected = gathered.and_then(|()| {
            let (mut next_read, mut next_step) = (0, 0);
            for mv in &moves {
                let successor = if walk.reads_king_moves_directly() && !pos.is_conversion(mv) {
                    let (i, read) = (direct[next_read], self.read[next_read]);
                    next_read += 1;
                    self.king_move_successor(walk, i, read)?
                } else if !walk.reads_man_moves_directly() {
                    // Unresolved, or one slice group: a man move leads
                    // into the next group, whose capture positions were
                    // not resolved.
                    self.unresolved_successor(walk, &pos, mv, &frame)?
                } else if is_man_step(&pos, mv) {
                    let i = man_steps[next_step];
                    next_step += 1;
                    let material = walk.mirror.table.material;
                    let value = walk.mirror.table.value(i)?;
                    Successor::new(walk, material, value, |_| Some(1))
                } else {
                    self.conversion_successor(walk, &pos.play(mv))?
                };
                let lost = successor.view.wdl == Wdl::Loss;
                self.successors.push(successor);
                if lost && settles_early {
                    break;
                }
            }
            Ok(())
        });
        let now = self.now();
        now.moves = moves;
        now.direct = direct;
        now.man_steps = man_steps;
        collected
    }

    /// The successor `child`, reached by a conversion (a man move, in
    /// the mirror, or a crowning, in another material): its DTC through
    /// the move is 1.
    fn conversion_successor(
        &self,
        walk: &Walk<'_>,
        child: &Position,
    ) -> Result<Successor, GenError> {
        let (material, normal) = table_position(child);
        let value = if material == walk.mirror.table.material {
            walk.mirror
                .table
                .value(walk.mirror.table.index.rank(&normal))?
        } else if material.pieces() == walk.own.table.material.pieces() {
            // A crowning: that table, where it is held resolved, else the
            // prober reads it.
            match walk.resolved.held_value(child)? {
                Some(value) => value,
                None => walk.tb.probe(child)?,
            }
        } else {
            return Err(corrupt(material, "reached by a quiet move"));
        };
        Ok(Successor::new(walk, material, value, |_| Some(1)))
    }

    /// The successor of `mv` when the pair's capture positions were not
    /// resolved beforehand (a sample check): one that must capture is
    /// resolved here, from the smaller tables.
    fn unresolved_successor(
        &mut self,
        walk: &Walk<'_>,
        pos: &Position,
        mv: &Move,
        frame: &MirrorFrame,
    ) -> Result<Successor, GenError> {
        let child = pos.play(mv);
        if pos.is_crowning(mv) {
            // Another material: the prober reads it, captures and all.
            return self.conversion_successor(walk, &child);
        }
        let conversion = pos.is_conversion(mv);
        if child.has_capture() {
            let value = if walk.mirror.in_place && !conversion {
                // Its value was resolved in place.
                let i = frame.king_move_index(mv, &walk.mirror.table);
                walk.mirror.table.value(i)?
            } else {
                child.generate_captures(&mut self.captures);
                walk.resolved.capture_value(&child, &self.captures)?
            };
            // A capture position's own DTC is 1.
            let through = if conversion { 1 } else { 2 };
            return Ok(Successor::new(walk, Material::of(&child), value, |fresh| {
                (conversion || fresh != Wdl::Draw).then_some(through)
            }));
        }
        if conversion {
            return self.conversion_successor(walk, &child);
        }
        let i = frame.king_move_index(mv, &walk.mirror.table);
        if walk.mirror.dtc.is_some() && child.is_lost_by_no_moves() {
            // No move: DTC 0, whatever the file holds there.
            let value = walk.mirror.table.value(i)?;
            let material = walk.mirror.table.material;
            return Ok(Successor::new(walk, material, value, |fresh| {
                (fresh != Wdl::Draw).then_some(1)
            }));
        }
        self.king_move_successor(walk, i, walk.mirror.read(i)?)
    }

    /// The successor at index `i` of the mirror, reached by a king move,
    /// from what [`PairSide::read`] read there: as [`Successor::new`]
    /// finds it, through the code's [`CodeView`].
    #[inline(always)]
    fn king_move_successor(
        &self,
        walk: &Walk<'_>,
        i: u64,
        (code, dtc): (u8, Option<u8>),
    ) -> Result<Successor, GenError> {
        let CodeView { view, fresh, valid } = walk.mirror_codes[usize::from(code)];
        if !valid {
            // The table's own error for the code.
            walk.mirror.table.decode(code)?;
        }
        let decided = fresh != Wdl::Draw;
        let mirror_dtc = match dtc {
            Some(dtc) => Some(dtc),
            // A sample check finds the few it needs one by one.
            None if decided && walk.mirror.dtc_from_mirror && walk.own.dtc.is_some() => {
                Some(derive_one(walk, i)?)
            }
            None => None,
        };
        let dtc = mirror_dtc
            .filter(|_| decided)
            .map(|dtc| (u32::from(dtc) + 1).min(u32::from(format::DTC_SATURATED)));
        Ok(Successor { view, fresh, dtc })
    }

    /// Compares a stored DTC byte of a decided position (whose value its
    /// moves confirm) with the DTC its moves give: the winner's least over
    /// the moves that keep the win, the loser's most over all.
    fn check_dtc(&mut self, stored: u8, fresh: Wdl, pos: &Position) {
        self.dtc_checked += 1;
        let expected = self.best_dtc(fresh).flatten().map(format::dtc_byte);
        if expected != Some(stored) {
            self.dtc_mismatch(pos, fresh, stored, expected);
        }
    }

    /// The DTC that the successors give a position of result `fresh`:
    /// the winner's least over the moves that keep the win, the loser's
    /// most over all. `None` when a move that counts has no DTC (a drawn
    /// one, which a confirmed loss cannot have): nothing can be expected.
    ///
    /// Asked up to three times a position (the 25-move rule, the check,
    /// the derived DTC), it is found once: `self.best` keeps it until the
    /// successors change.
    fn best_dtc(&mut self, fresh: Wdl) -> Option<Option<u32>> {
        if let Some((asked, best)) = self.best {
            if asked == fresh {
                return best;
            }
        }
        let best = self.best_dtc_over_successors(fresh);
        self.best = Some((fresh, best));
        best
    }

    /// [`Walker::best_dtc`], worked out.
    fn best_dtc_over_successors(&self, fresh: Wdl) -> Option<Option<u32>> {
        let mut best: Option<u32> = None;
        for s in &self.successors {
            if fresh == Wdl::Win && s.fresh != Wdl::Loss {
                continue;
            }
            let d = s.dtc?;
            best = Some(match (best, fresh) {
                (None, _) => d,
                (Some(b), Wdl::Win) => b.min(d),
                (Some(b), _) => b.max(d),
            });
        }
        Some(best)
    }

    fn dtc_mismatch(&mut self, pos: &Position, fresh: Wdl, stored: u8, expected: Option<u8>) {
        self.dtc_mismatches.push(Mismatch {
            fen: pos.to_string(),
            stored: TableValue {
                wdl: fresh,
                distance: Some(stored),
            },
            expected: TableValue {
                wdl: fresh,
                distance: expected,
            },
        });
    }
}
