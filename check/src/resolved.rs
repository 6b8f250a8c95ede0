//! Tables decoded whole with every capture position resolved: the first
//! pass of the forward check (see `forward`).
//!
//! A stored value of a position where the side to move must capture is
//! "don't care"; its real value is the best of its captures, each leading
//! to a smaller material. Here each table is decoded into memory and each
//! of its capture positions gets that value, once, in place, from smaller
//! tables resolved the same way before it: after that, every successor's
//! value is one array read. The values are the ones the files state (the
//! prober's answers), found without the prober or the solvers.

use std::path::{Path, PathBuf};

use format::{
    child_view, table_position, value_from_children, ChildView, DistanceValue, Material,
    MaterialIndex, RuleSet, SearchScratch, TableValue, UnrankCursor, ValueKind, Wdl,
};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Move, Position};

use plan::GenError;

/// Positions per unit of parallel work (a multiple of 64, so that a
/// chunk's flags are whole words, and of 4, so that its WLD codes are
/// whole bytes).
pub(crate) const CHUNK: u64 = 4096;

/// One table decoded whole, every capture position holding its resolved
/// value.
pub(crate) struct ResolvedTable {
    pub(crate) material: Material,
    pub(crate) index: MaterialIndex,
    kind: ValueKind,
    /// The stored stream (2-bit WLD codes or distance bytes).
    values: Vec<u8>,
    /// Where only some placements of the men are decoded (a slice group
    /// checked on its own): which, and so where each position's value is.
    window: Option<Window>,
}

/// The placements of the men whose positions a check decodes when it
/// takes one slice group at a time: the group's own, sorted, then those
/// its man moves reach (the next group's), sorted. Position `i` of the
/// table is position `slot * K + i % K` of the decoded values, where
/// `slot` is where `i / K` is in that list and `K` the king placements
/// per placement of the men (the index is `men * K + kings`). The own
/// placements come first, so that what only they need (capture flags,
/// DTC bytes) is a prefix as long as their positions.
pub(crate) struct Window {
    placements: Vec<u64>,
    /// How many of `placements` are the group's own: those whose capture
    /// positions are resolved. The next group's are reached only by man
    /// moves, whose successors that must capture are resolved one by one
    /// (resolving them all would resolve each group twice).
    own: usize,
    king_placements: u64,
}

impl Window {
    /// The placements `own` (resolved) and `next` (not), in any order,
    /// of a material with `king_placements` king placements per placement
    /// of the men; a placement in both counts as `own`.
    pub(crate) fn new(own: &[u64], next: &[u64], king_placements: u64) -> Window {
        let mut placements = own.to_vec();
        placements.sort_unstable();
        placements.dedup();
        let own = placements.len();
        let mut rest: Vec<u64> = next
            .iter()
            .copied()
            .filter(|p| placements.binary_search(p).is_err())
            .collect();
        rest.sort_unstable();
        rest.dedup();
        placements.extend(rest);
        Window {
            placements,
            own,
            king_placements,
        }
    }

    /// The same window without the next group's placements.
    pub(crate) fn own_part(&self) -> Window {
        Window {
            placements: self.placements[..self.own].to_vec(),
            own: self.own,
            king_placements: self.king_placements,
        }
    }

    /// Whether the `local`-th position it holds has its captures resolved.
    #[inline]
    fn is_resolved(&self, local: u64) -> bool {
        local < self.own_positions()
    }

    /// Where position `i` is in the decoded values, if it is decoded.
    #[inline]
    fn local(&self, i: u64) -> Option<u64> {
        let k = self.king_placements;
        let men = i / k;
        let (own, next) = self.placements.split_at(self.own);
        let slot = match own.binary_search(&men) {
            Ok(slot) => slot,
            Err(_) => self.own + next.binary_search(&men).ok()?,
        };
        Some(slot as u64 * k + i % k)
    }

    /// The index in the table of the `local`-th position it holds.
    #[inline]
    fn global(&self, local: u64) -> u64 {
        let k = self.king_placements;
        self.placements[(local / k) as usize] * k + local % k
    }

    /// How many positions it holds.
    pub(crate) fn positions(&self) -> u64 {
        self.placements.len() as u64 * self.king_placements
    }

    /// How many of its positions are the group's own (the first ones).
    pub(crate) fn own_positions(&self) -> u64 {
        self.own as u64 * self.king_placements
    }

    /// The placements, the own ones first.
    pub(crate) fn placements(&self) -> &[u64] {
        &self.placements
    }

    /// The king placements per placement of the men.
    pub(crate) fn king_placements(&self) -> u64 {
        self.king_placements
    }
}

/// What the first pass learnt of each position of a table besides its
/// value: a bit per position in each (of a window, its own positions
/// only: the next group's are not resolved).
pub(crate) struct PositionFlags {
    /// The side to move must capture.
    pub(crate) capture: Vec<u64>,
    /// The side to move has no move at all (only when asked for).
    pub(crate) no_moves: Vec<u64>,
}

/// Asks the processor to start loading `bytes[at]` into its caches (if
/// there is such a byte), to be read soon: a hint, which changes no
/// result. A no-op on processors other than x86-64.
#[inline(always)]
pub(crate) fn prefetch(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        // SAFETY: `_mm_prefetch` reads nothing the program sees and cannot
        // fault (any address may be prefetched; this one is a valid byte
        // besides); the SSE instructions it needs are part of every
        // x86-64 processor, so the target feature it requires is there.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (byte as *const u8).cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at);
}

/// Whether bit `i` of `words` is set.
#[inline]
pub(crate) fn bit(words: &[u64], i: u64) -> bool {
    words[(i / 64) as usize] >> (i % 64) & 1 == 1
}

impl ResolvedTable {
    /// The value of position `i`, captures resolved.
    #[inline]
    pub(crate) fn value(&self, i: u64) -> Result<TableValue, GenError> {
        self.decode(self.code_at(self.local(i)?))
    }

    /// The stored code of the `local`-th decoded position (a 2-bit WLD
    /// code or a distance byte), not yet decoded: a plain read, so that
    /// a loop of them keeps many memory reads in flight at once.
    #[inline]
    pub(crate) fn code_at(&self, local: usize) -> u8 {
        match self.kind {
            ValueKind::Wdl => format::wdl_code(&self.values, local),
            ValueKind::Distance | ValueKind::Dtc => self.values[local],
        }
    }

    /// Starts reading the code of the `local`-th decoded position into the
    /// caches (see [`prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, local: usize) {
        match self.kind {
            ValueKind::Wdl => prefetch(&self.values, local / 4),
            ValueKind::Distance | ValueKind::Dtc => prefetch(&self.values, local),
        }
    }

    /// The value that a code read by [`ResolvedTable::code_at`] stands for.
    #[inline]
    pub(crate) fn decode(&self, code: u8) -> Result<TableValue, GenError> {
        Ok(match self.kind {
            ValueKind::Wdl => TableValue {
                wdl: Wdl::from_code(code).ok_or_else(|| {
                    GenError::Internal(format!("{}: invalid WLD code", self.material))
                })?,
                distance: None,
            },
            ValueKind::Distance | ValueKind::Dtc => {
                TableValue::from_distance(DistanceValue::decode(code))
            }
        })
    }

    /// Whether every position is decoded (no window): position `i` is then
    /// the `i`-th.
    #[inline]
    pub(crate) fn is_whole(&self) -> bool {
        self.window.is_none()
    }

    /// How many positions are decoded: all, or those of the window.
    pub(crate) fn positions(&self) -> u64 {
        self.window
            .as_ref()
            .map_or(self.index.count(), Window::positions)
    }

    /// Where the value of position `i` is in `values` (and in a DTC
    /// stream decoded the same way): `i` itself unless only a window of
    /// the table is decoded.
    #[inline]
    pub(crate) fn local(&self, i: u64) -> Result<usize, GenError> {
        match &self.window {
            None => Ok(i as usize),
            Some(window) => window.local(i).map(|l| l as usize).ok_or_else(|| {
                GenError::Internal(format!(
                    "{}: position {i} is outside the placements decoded",
                    self.material
                ))
            }),
        }
    }
}

/// The bytes `material`'s values take decoded (2 bits a position in a
/// WLD table, a byte in a distance table).
pub(crate) fn decoded_bytes(material: Material, rule_set: RuleSet) -> u64 {
    format::value_kind(material, rule_set).raw_len(MaterialIndex::new(material).count())
}

/// Writes `value` as position `local` of a stream of `kind`.
fn store(kind: ValueKind, values: &mut [u8], local: usize, value: TableValue) {
    match kind {
        ValueKind::Wdl => {
            let shift = 2 * (local % 4);
            let byte = &mut values[local / 4];
            *byte = *byte & !(3 << shift) | value.wdl.code() << shift;
        }
        ValueKind::Distance | ValueKind::Dtc => {
            values[local] = DistanceValue {
                wdl: value.wdl,
                plies: value.distance.unwrap_or(0),
            }
            .encode();
        }
    }
}

/// The values of the positions `window` holds, read from `reader` block
/// by block, one after the other in the window's order, as the file
/// streams them (2-bit WLD codes, or a byte a position).
pub(crate) fn decode_window_raw<B: format::TableSource>(
    reader: &format::TableReader<B>,
    window: &Window,
) -> Result<Vec<u8>, format::FormatError> {
    let kind = reader.header().value_kind;
    let mut out = vec![0u8; kind.raw_len(window.positions()) as usize];
    let mut decompressor = zstd::bulk::Decompressor::new()
        .map_err(|e| format::FormatError::Corrupt(format!("zstd: {e}")))?;
    let (mut raw, mut decoded) = (Vec::new(), None);
    let k = window.king_placements();
    let mut local = 0usize;
    for &men in window.placements() {
        for i in men * k..(men + 1) * k {
            let (block, at) = reader.locate(i);
            if decoded != Some(block) {
                reader.decode_block(block, &mut decompressor, &mut raw)?;
                decoded = Some(block);
            }
            match kind {
                ValueKind::Wdl => {
                    let shift = 2 * (local % 4);
                    out[local / 4] |= format::wdl_code(&raw, at) << shift;
                }
                ValueKind::Distance | ValueKind::Dtc => out[local] = raw[at],
            }
            local += 1;
        }
    }
    Ok(out)
}

/// The resolved tables of one rule set's folder that captures lead to,
/// kept for a whole run (smaller materials first).
pub(crate) struct ResolvedTables {
    dir: PathBuf,
    rule_set: RuleSet,
    /// By [`slot`] of the material.
    tables: Vec<Option<ResolvedTable>>,
    /// Whether the smaller tables are only decoded, their capture
    /// positions resolved when a capture reaches one (see
    /// [`ResolvedTables::decoding_within`]).
    decoded_only: bool,
    /// Bytes of smaller tables to decode at most (decoding only).
    budget: u64,
    /// Bytes of smaller tables decoded so far (decoding only).
    decoded_bytes: u64,
    /// What reads the smaller tables left out of the budget, captures
    /// and all.
    prober: Option<Tablebase>,
}

/// The most pieces of one kind a side of a resolved table has, plus one.
const RADIX: usize = probe::MAX_TABLE_PIECES as usize + 1;

/// Where a material's table is kept (a direct index: this lookup is on
/// the hot path of the first pass).
fn slot(m: Material) -> usize {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    counts
        .iter()
        .fold(0, |at, &c| at * RADIX + usize::from(c).min(RADIX - 1))
}

impl ResolvedTables {
    /// None yet, for the tables of `rule_set` in `dir` (the rule set's
    /// folder).
    pub(crate) fn new(dir: &Path, rule_set: RuleSet) -> ResolvedTables {
        ResolvedTables {
            dir: dir.to_path_buf(),
            rule_set,
            tables: std::iter::repeat_with(|| None).take(RADIX.pow(4)).collect(),
            decoded_only: false,
            budget: u64::MAX,
            decoded_bytes: 0,
            prober: None,
        }
    }

    /// The same, but [`ResolvedTables::prepare_for`] only decodes the
    /// smaller tables, smallest first, while their decoded values fit in
    /// `budget` bytes: a capture that reaches a position where the other
    /// side must capture again finds its value then, from its captures,
    /// and one that reaches a table left out is answered by `prober`
    /// (block by block, through its cache). For a check of one slice
    /// group, which reaches few of their positions, this is cheaper than
    /// resolving them whole, and its memory stays within the budget.
    pub(crate) fn decoding_within(
        dir: &Path,
        rule_set: RuleSet,
        budget: u64,
        prober: Tablebase,
    ) -> ResolvedTables {
        ResolvedTables {
            decoded_only: true,
            ..ResolvedTables::resolving_within(dir, rule_set, budget, prober)
        }
    }

    /// The same, but [`ResolvedTables::prepare_for`] resolves the tables
    /// it takes within `budget` (smallest first), so that a capture
    /// reaching them is one lookup: for a check that reads most of their
    /// positions (a whole pair without men), this is cheaper than finding
    /// values again and again. Those left out are answered by `prober`.
    pub(crate) fn resolving_within(
        dir: &Path,
        rule_set: RuleSet,
        budget: u64,
        prober: Tablebase,
    ) -> ResolvedTables {
        ResolvedTables {
            budget,
            prober: Some(prober),
            ..ResolvedTables::new(dir, rule_set)
        }
    }

    /// The prober of [`ResolvedTables::decoding_within`].
    pub(crate) fn prober(&self) -> Option<&Tablebase> {
        self.prober.as_ref()
    }

    /// The rule set.
    pub(crate) fn rule_set(&self) -> RuleSet {
        self.rule_set
    }

    /// The rule set's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// `material`'s table, if resolved and kept.
    #[inline]
    fn get(&self, material: Material) -> Option<&ResolvedTable> {
        self.tables[slot(material)]
            .as_ref()
            .filter(|t| t.material == material)
    }

    /// The value of `pos` (any side to move) where its table is held here
    /// whole with its capture positions resolved: what the prober answers
    /// there, read at once. `None` where it is not so held.
    pub(crate) fn held_value(&self, pos: &Position) -> Result<Option<TableValue>, GenError> {
        if self.decoded_only {
            return Ok(None);
        }
        let (material, normal) = table_position(pos);
        match self.get(material).filter(|t| t.is_whole()) {
            Some(table) => table.value(table.index.rank(&normal)).map(Some),
            None => Ok(None),
        }
    }

    /// Keeps `table` for the materials whose captures lead to it.
    pub(crate) fn keep(&mut self, table: ResolvedTable) {
        let at = slot(table.material);
        self.tables[at] = Some(table);
    }

    /// Resolves, smallest first, every table that a capture from
    /// `material` leads to (directly or after more captures) and that is
    /// not resolved yet.
    pub(crate) fn prepare_for(&mut self, material: Material) -> Result<(), GenError> {
        let mut needed = Vec::new();
        let mut todo = vec![material];
        while let Some(m) = todo.pop() {
            for exit in m.exits() {
                if exit.pieces() < m.pieces() && self.get(exit).is_none() && !needed.contains(&exit)
                {
                    needed.push(exit);
                    todo.push(exit);
                }
            }
        }
        // Smallest first within the budget, as the generator preloads: the
        // tables that chains of captures reach are small and read often.
        needed.sort_by_key(|&m| MaterialIndex::new(m).count());
        needed.retain(|&m| {
            let bytes = decoded_bytes(m, self.rule_set);
            let fits = self.decoded_bytes + bytes <= self.budget;
            if fits {
                self.decoded_bytes += bytes;
            }
            fits
        });
        if self.decoded_only {
            for m in needed {
                let table = self.decode(m)?;
                self.keep(table);
            }
            return Ok(());
        }
        // Resolved in build order: each from those it captures into (or
        // the prober, for those left out of the budget).
        needed.sort_by_key(|m| m.build_key());
        for m in needed {
            let table = self.resolve(m, false)?.0;
            self.keep(table);
        }
        Ok(())
    }

    /// Decodes `material`'s table and resolves its capture positions from
    /// the smaller tables (which [`ResolvedTables::prepare_for`] readied),
    /// flagging the positions without a move too if `no_moves`.
    pub(crate) fn resolve(
        &self,
        material: Material,
        no_moves: bool,
    ) -> Result<(ResolvedTable, PositionFlags), GenError> {
        self.resolve_decoded(self.decode(material)?, no_moves)
    }

    /// [`ResolvedTables::resolve`] for the positions `window` holds: the
    /// flags are then in the window's order too.
    pub(crate) fn resolve_window(
        &self,
        material: Material,
        window: Window,
        no_moves: bool,
    ) -> Result<(ResolvedTable, PositionFlags), GenError> {
        self.resolve_decoded(self.decode_window(material, window)?, no_moves)
    }

    fn resolve_decoded(
        &self,
        mut table: ResolvedTable,
        no_moves: bool,
    ) -> Result<(ResolvedTable, PositionFlags), GenError> {
        // Whole chunks: the first pass takes the flags a chunk at a time.
        let resolved = table
            .window
            .as_ref()
            .map_or(table.positions(), Window::own_positions);
        let words = (resolved.div_ceil(CHUNK) * CHUNK / 64) as usize;
        let mut flags = PositionFlags {
            capture: vec![0; words],
            no_moves: vec![0; words],
        };
        self.resolve_captures(&mut table, &mut flags, no_moves)?;
        Ok((table, flags))
    }

    /// Decodes `material`'s table as stored: its capture positions are
    /// not resolved (their values mean nothing until they are).
    pub(crate) fn decode(&self, material: Material) -> Result<ResolvedTable, GenError> {
        let path = format::table_path(&self.dir, material);
        let kind = format::value_kind(material, self.rule_set);
        let reader = crate::files::read_whole(&path, material, self.rule_set, kind)?;
        let from_mirror = reader.header().from_mirror;
        let mut table = ResolvedTable {
            material,
            kind,
            values: if from_mirror {
                vec![0; kind.raw_len(reader.header().position_count) as usize]
            } else {
                reader
                    .decode_all_raw()
                    .map_err(|e| GenError::in_file(&path, e))?
            },
            index: MaterialIndex::new(material),
            window: None,
        };
        self.resolve_left_out(&mut table, &reader)?;
        Ok(table)
    }

    /// Gives every position that `table`'s file (of header `header`)
    /// leaves to the search the value the prober finds for it, in place:
    /// the positions a version-2 table's rule leaves to the search
    /// (`format::SearchRule`: its searched threats, or its quiet positions,
    /// less the spread ones it stores), or every position of one that
    /// stores no values (`format::FLAG_FROM_MIRROR`). From then on each
    /// reads as a stored value, and the forward check compares it with its
    /// moves like any other.
    fn resolve_left_out<B: format::TableSource>(
        &self,
        table: &mut ResolvedTable,
        reader: &format::TableReader<B>,
    ) -> Result<(), GenError> {
        let header = reader.header();
        let rule = format::SearchRule::of(reader);
        if rule.is_none() && !header.from_mirror {
            return Ok(());
        }
        let every_position = header.from_mirror;
        let fresh;
        let prober = match &self.prober {
            Some(prober) => prober,
            None => {
                let root = self.dir.parent().unwrap_or(Path::new("."));
                fresh = Tablebase::open(root, self.rule_set)?;
                &fresh
            }
        };
        let count = table.positions();
        let (index, kind, window) = (&table.index, table.kind, &table.window);
        table
            .values
            .par_chunks_mut(kind.raw_len(CHUNK) as usize)
            .enumerate()
            .try_for_each_init(
                || (UnrankCursor::default(), SearchScratch::default()),
                |(cursor, scratch), (c, values)| {
                    let first = c as u64 * CHUNK;
                    for i in first..(first + CHUNK).min(count) {
                        let global = window.as_ref().map_or(i, |w| w.global(i));
                        let pos = index.unrank_with(global, cursor);
                        let searched = every_position
                            || rule.as_ref().is_some_and(|r| r.leaves(&pos, scratch));
                        if searched {
                            let value = prober.probe(&pos)?;
                            store(kind, values, (i - first) as usize, value);
                        }
                    }
                    Ok(())
                },
            )
    }

    /// Decodes the positions of `material`'s table that `window` holds,
    /// reading only their blocks: its capture positions are not resolved.
    pub(crate) fn decode_window(
        &self,
        material: Material,
        window: Window,
    ) -> Result<ResolvedTable, GenError> {
        let path = format::table_path(&self.dir, material);
        let kind = format::value_kind(material, self.rule_set);
        let reader = crate::files::open_positioned(&path, material, self.rule_set, kind)?;
        let values = if reader.header().from_mirror {
            vec![0; kind.raw_len(window.positions()) as usize]
        } else {
            decode_window_raw(&reader, &window).map_err(|e| GenError::in_file(&path, e))?
        };
        let mut table = ResolvedTable {
            material,
            kind,
            values,
            index: MaterialIndex::new(material),
            window: Some(window),
        };
        self.resolve_left_out(&mut table, &reader)?;
        Ok(table)
    }

    /// The first pass over `table`: flags and resolves every capture
    /// position (and flags those without a move if `no_moves`).
    fn resolve_captures(
        &self,
        table: &mut ResolvedTable,
        flags: &mut PositionFlags,
        no_moves: bool,
    ) -> Result<(), GenError> {
        let (index, kind, window) = (&table.index, table.kind, &table.window);
        let count = table
            .window
            .as_ref()
            .map_or(index.count(), Window::positions);
        let value_bytes = kind.raw_len(CHUNK) as usize;
        let flag_words = (CHUNK / 64) as usize;
        // The flags cover the chunks that hold positions to resolve (a
        // window's own, the first): the zip ends with them.
        table
            .values
            .par_chunks_mut(value_bytes)
            .zip(flags.capture.par_chunks_mut(flag_words))
            .zip(flags.no_moves.par_chunks_mut(flag_words))
            .enumerate()
            .try_for_each_init(
                || (UnrankCursor::default(), Vec::new()),
                |(cursor, moves), (c, ((values, capture), none))| {
                    let first = c as u64 * CHUNK;
                    for i in first..(first + CHUNK).min(count) {
                        if window.as_ref().is_some_and(|w| !w.is_resolved(i)) {
                            continue;
                        }
                        let global = window.as_ref().map_or(i, |w| w.global(i));
                        let pos = index.unrank_with(global, cursor);
                        let local = (i - first) as usize;
                        if pos.has_capture() {
                            capture[local / 64] |= 1 << (local % 64);
                            pos.generate_captures(moves);
                            store(kind, values, local, self.capture_value(&pos, moves)?);
                        } else if no_moves && pos.quiet_move_count() == 0 {
                            none[local / 64] |= 1 << (local % 64);
                        }
                    }
                    Ok(())
                },
            )
    }

    /// Resolves every capture position of `table` (decoded whole) in
    /// place, flagging none: their stored values ("don't care") become
    /// their captures' values, which the smaller tables give.
    pub(crate) fn resolve_in_place(&self, table: &mut ResolvedTable) -> Result<(), GenError> {
        if table.window.is_some() {
            return Err(GenError::Internal(format!(
                "{}: a window is not resolved in place",
                table.material
            )));
        }
        let (index, kind) = (&table.index, table.kind);
        let count = index.count();
        table
            .values
            .par_chunks_mut(kind.raw_len(CHUNK) as usize)
            .enumerate()
            .try_for_each_init(
                || (UnrankCursor::default(), Vec::new()),
                |(cursor, moves), (c, values)| {
                    let first = c as u64 * CHUNK;
                    for i in first..(first + CHUNK).min(count) {
                        let pos = index.unrank_with(i, cursor);
                        if pos.has_capture() {
                            pos.generate_captures(moves);
                            let value = self.capture_value(&pos, moves)?;
                            store(kind, values, (i - first) as usize, value);
                        }
                    }
                    Ok(())
                },
            )
    }

    /// The value of `pos`, whose legal moves are the captures `captures`:
    /// the best of them, each successor read from its resolved table.
    pub(crate) fn capture_value(
        &self,
        pos: &Position,
        captures: &[Move],
    ) -> Result<TableValue, GenError> {
        let class = Material::of(pos).counted_ending();
        let mut failure = None;
        let mut settled = false;
        let views = captures.iter().map_while(|mv| {
            if settled {
                return None;
            }
            match self.capture_successor(class, &pos.play(mv)) {
                Ok(view) => {
                    // Outside the counted endings no distance is kept: one
                    // lost successor settles the value.
                    settled = class.is_none() && view.wdl == Wdl::Loss;
                    Some(view)
                }
                Err(e) => {
                    failure = Some(e);
                    None
                }
            }
        });
        let value = value_from_children(self.rule_set, class, pos, views);
        match failure {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }

    /// How a parent of class `class` sees `child`, reached by a capture.
    fn capture_successor(
        &self,
        class: Option<rules::CountedEnding>,
        child: &Position,
    ) -> Result<ChildView, GenError> {
        if child.pieces(child.side_to_move()).is_empty() {
            return Ok(ChildView::LOST);
        }
        let (material, normal) = table_position(child);
        let value = match (self.get(material), &self.prober) {
            (Some(_), _) if self.decoded_only && child.has_capture() => {
                let mut captures = Vec::new();
                child.generate_captures(&mut captures);
                self.capture_value(child, &captures)?
            }
            (Some(table), _) => table.value(table.index.rank(&normal))?,
            // Left out of the budget: the prober reads it.
            (None, Some(prober)) => prober.probe(child)?,
            (None, None) => {
                return Err(GenError::Internal(format!(
                    "{material} was not resolved before its use"
                )))
            }
        };
        Ok(child_view(self.rule_set, class, material, value))
    }
}
