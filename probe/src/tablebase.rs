//! The tablebase: a directory of tables of one rule set, opened lazily,
//! memory-mapped, with a shared cache of decoded blocks.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex};

use format::{
    child_view, move_outcome, plies_left_after, table_position, value_from_children, ChildView,
    DistanceValue, Material, RuleSet, SearchScratch, TableValue, ValueKind, Wdl,
};
use quick_cache::sync::Cache;
use quick_cache::Weighter;
use rules::{Color, CountedEnding, Move, Position};

use crate::error::ProbeError;
pub use crate::table::Storage;
use crate::table::{FileKind, Table};

/// The most pieces a table can hold (the limit of the material slots).
pub const MAX_TABLE_PIECES: u32 = 10;
const SLOT_RADIX: usize = 11;

/// Options of [`Tablebase::open_with`]: start from
/// [`TablebaseOptions::default`] (more options may come).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct TablebaseOptions {
    /// Bytes of decoded blocks kept in memory, shared by all threads.
    pub cache_bytes: u64,
    /// How files are read.
    pub storage: Storage,
}

impl TablebaseOptions {
    /// The default options with a block cache of `cache_bytes`.
    pub fn with_cache_bytes(cache_bytes: u64) -> TablebaseOptions {
        TablebaseOptions {
            cache_bytes,
            ..TablebaseOptions::default()
        }
    }

    /// These options, reading files as `storage` says.
    pub fn with_storage(self, storage: Storage) -> TablebaseOptions {
        TablebaseOptions { storage, ..self }
    }
}

impl Default for TablebaseOptions {
    fn default() -> TablebaseOptions {
        TablebaseOptions {
            cache_bytes: 64 << 20,
            storage: Storage::Mapped,
        }
    }
}

#[derive(Clone)]
struct BlockWeight;

impl Weighter<(u32, u64), Arc<[u8]>> for BlockWeight {
    fn weight(&self, _key: &(u32, u64), block: &Arc<[u8]>) -> u64 {
        block.len() as u64 + 64
    }
}

/// Whether a lookup may decode blocks or only use what is in memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Load,
    CachedOnly,
}

/// A move with the value it leads to, from the view of the side making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// The result for the side that plays it.
    pub wdl: Wdl,
    /// Plies to the result through this move, where the table keeps
    /// distances.
    pub plies: Option<u32>,
    /// The plies left on the draw counter after the move, where a count
    /// runs in the position it reaches (see `format::plies_left_after`).
    pub plies_left_after: Option<u8>,
    /// Distance to conversion through this move, in plies (see
    /// [`Tablebase::probe_dtc`]): 1 when the move itself converts (a
    /// capture or a man move), else one more than the DTC of the position
    /// reached. `None` for a draw, and when the DTC files are not there.
    pub dtc: Option<u32>,
}

/// The order of [`Tablebase::move_values`]: wins first, shortest (by
/// distance, then DTC), then draws, then losses, longest first.
pub(crate) fn move_order(m: &MoveValue) -> (u8, i64, i64) {
    let plies = i64::from(m.plies.unwrap_or(0));
    let dtc = i64::from(m.dtc.unwrap_or(u32::MAX));
    match m.wdl {
        Wdl::Win => (0, plies, dtc),
        Wdl::Draw => (1, 0, 0),
        Wdl::Loss => (2, -plies, -m.dtc.map_or(0, i64::from)),
    }
}

/// A position's answer: its result (for the given state of the draw
/// counter) and, where the table keeps one, the distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the result, for distance tables (None for draws).
    pub plies: Option<u32>,
}

thread_local! {
    static DECODER: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    /// What a search rule's test keeps from one probe to the next (the
    /// men of the last position it tested); never borrowed twice, as the
    /// test probes nothing.
    static SEARCH_SCRATCH: RefCell<SearchScratch> = RefCell::new(SearchScratch::default());
}

/// Why a stored value could not be read.
enum Miss {
    /// The file was rewritten in place since it was mapped.
    Changed,
    /// Anything else, as the caller will see it.
    Failed(ProbeError),
}

/// A table decoded whole into memory, read by index (see
/// [`crate::generator::GeneratorHooks::preloaded`]). It stays valid while its tablebase lives,
/// even if the file is replaced meanwhile.
#[derive(Clone, Copy)]
pub struct Preloaded<'a> {
    index: &'a format::MaterialIndex,
    data: &'a [u8],
    kind: ValueKind,
}

impl<'a> Preloaded<'a> {
    /// The table's index (White-to-move positions of its material).
    pub fn index(&self) -> &'a format::MaterialIndex {
        self.index
    }

    /// The value stored for position `i` of the index: what the table
    /// says of it, which means nothing for a capture position (those are
    /// resolved by search). `None` when `i` is out of range or the byte
    /// is not a value.
    #[inline]
    pub fn value(&self, i: u64) -> Option<TableValue> {
        let i = usize::try_from(i).ok()?;
        match self.kind {
            ValueKind::Wdl => {
                let byte = *self.data.get(i / 4)?;
                Wdl::from_code(byte >> (2 * (i % 4)) & 3).map(|wdl| TableValue {
                    wdl,
                    distance: None,
                })
            }
            ValueKind::Distance | ValueKind::Dtc => {
                let byte = *self.data.get(i)?;
                Some(TableValue::from_distance(DistanceValue::decode(byte)))
            }
        }
    }
}

/// Endgame tables of one rule set in one directory. `Send + Sync`: share
/// one between all search threads.
pub struct Tablebase {
    root: PathBuf,
    dir: PathBuf,
    rule_set: RuleSet,
    /// The open table of each material and file kind (null: not open; see
    /// `slot`): one of `opened`.
    /// Replaced when its file was rewritten in place, emptied when it
    /// became unreadable; a probe reads it with one atomic load.
    slots: Box<[AtomicPtr<Table>]>,
    /// Every table opened by this tablebase, kept until it is dropped, so
    /// that a table replaced in its slot stays valid for the probes still
    /// using it (a replacement costs its mapping until then: rare, only
    /// when a file is rewritten under a running prober). The lock also
    /// serialises (re)opening.
    #[allow(clippy::vec_box)] // the boxes keep each table's address as the list grows
    opened: Mutex<Vec<Box<Table>>>,
    cache: Cache<(u32, u64), Arc<[u8]>, BlockWeight>,
    /// How files are read.
    storage: Storage,
}

/// What a values file holds for one position.
enum Stored {
    /// Its stored byte.
    Byte(u8),
    /// Nothing: the file stores no values (`format::FLAG_FROM_MIRROR`).
    Nothing,
    /// "Don't care": the file leaves the position to a one-ply search
    /// (`format::SearchRule`), through its mirror's file where `quiet`.
    Searched {
        /// Every quiet position is searched (`format::FLAG_QUIET_SEARCHED`).
        quiet: bool,
    },
}

/// A block of the cache: the table's id and the block's number.
type BlockKey = (u32, u64);

/// The last few blocks one search read, so that its children (most of
/// them in two or three blocks of one table) skip the shared cache's lock
/// and counts. Only searches keep one: a stored probe reads a single
/// value and pays nothing for it.
#[derive(Default)]
struct BlockMemo {
    blocks: [Option<(BlockKey, Arc<[u8]>)>; BlockMemo::SIZE],
    next: usize,
}

impl BlockMemo {
    /// Blocks kept.
    const SIZE: usize = 4;

    /// The block of `key`, if kept.
    fn get(&self, key: BlockKey) -> Option<&[u8]> {
        self.blocks
            .iter()
            .flatten()
            .find(|(k, _)| *k == key)
            .map(|(_, data)| &**data)
    }

    /// Keeps the block of `key` in place of the oldest (it is not kept:
    /// [`BlockMemo::get`] missed it).
    fn keep(&mut self, key: BlockKey, data: Arc<[u8]>) {
        self.blocks[self.next] = Some((key, data));
        self.next = (self.next + 1) % Self::SIZE;
    }
}

fn slot(m: Material, kind: FileKind) -> usize {
    let material = ((m.white_men as usize * SLOT_RADIX + m.white_kings as usize) * SLOT_RADIX
        + m.black_men as usize)
        * SLOT_RADIX
        + m.black_kings as usize;
    2 * material + kind as usize
}

impl Tablebase {
    /// Opens the tables of `rule_set` under `dir`, with default options:
    /// those of `dir/<rule set>/`, or of `dir` itself where it holds the
    /// tables, whatever its name (their headers must name `rule_set`).
    /// Tables are read at their first probe; the folder must exist and be
    /// readable now.
    ///
    /// # Errors
    /// [`ProbeError::MissingDirectory`] when there is no such folder,
    /// [`ProbeError::RuleSetMismatch`] when `dir` holds tables of another
    /// rule set (see [`crate::locate_tables`]).
    ///
    /// # Safety of the mappings
    /// Tables are memory-mapped. A table file rewritten in place by
    /// another process is noticed before the next read (its size and time
    /// stamp are checked) and opened afresh, and a damaged block fails its
    /// checksum; a file cut short *during* a read raises SIGBUS, which
    /// ends the process unless the host installed
    /// [`crate::install_sigbus_guard`]. The bytes read are always
    /// bounds-checked, so no value is ever read out of a stale mapping
    /// without its checksum.
    pub fn open(dir: impl AsRef<Path>, rule_set: RuleSet) -> Result<Tablebase, ProbeError> {
        Tablebase::open_with(dir, rule_set, TablebaseOptions::default())
    }

    /// Like [`Tablebase::open`], with options.
    ///
    /// # Errors
    /// As [`Tablebase::open`].
    pub fn open_with(
        dir: impl AsRef<Path>,
        rule_set: RuleSet,
        options: TablebaseOptions,
    ) -> Result<Tablebase, ProbeError> {
        let root = dir.as_ref().to_path_buf();
        let (folder, _) = crate::folder::locate_tables(&root, Some(rule_set))?;
        if let Err(source) = std::fs::read_dir(&folder) {
            return Err(ProbeError::MissingDirectory {
                path: folder,
                rule_set,
                source,
            });
        }
        let slots = (0..2 * SLOT_RADIX.pow(4))
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect();
        let estimated = (options.cache_bytes / 4096).max(16) as usize;
        Ok(Tablebase {
            dir: folder,
            root,
            rule_set,
            slots,
            opened: Mutex::new(Vec::new()),
            cache: Cache::with_weighter(estimated, options.cache_bytes.max(1), BlockWeight),
            storage: options.storage,
        })
    }

    /// The rule set of these tables.
    pub fn rule_set(&self) -> RuleSet {
        self.rule_set
    }

    /// The directory given to `open` (holding one folder per rule set, or
    /// the tables themselves).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder holding this rule set's tables.
    pub fn table_dir(&self) -> &Path {
        &self.dir
    }

    /// The file where `material`'s table lives.
    pub fn table_path(&self, material: Material) -> PathBuf {
        format::table_path(&self.dir, material)
    }

    /// The path of `material`'s file of `kind`.
    fn file_path(&self, material: Material, kind: FileKind) -> PathBuf {
        match kind {
            FileKind::Values => self.table_path(material),
            FileKind::Dtc => format::dtc_path(&self.dir, material),
        }
    }

    fn table(&self, material: Material) -> Result<&Table, ProbeError> {
        self.file(material, FileKind::Values)
    }

    fn file(&self, material: Material, kind: FileKind) -> Result<&Table, ProbeError> {
        if material.pieces() > MAX_TABLE_PIECES {
            return Err(ProbeError::TooManyPieces {
                pieces: material.pieces(),
                max: MAX_TABLE_PIECES,
            });
        }
        match self.open_table(material, kind) {
            Some(table) => Ok(table),
            // Errors are not remembered: a table built later is found then.
            None => self.reopen(material, kind, std::ptr::null()),
        }
    }

    /// The table open in `material`'s slot, if any.
    fn open_table(&self, material: Material, kind: FileKind) -> Option<&Table> {
        let ptr = self
            .slots
            .get(slot(material, kind))?
            .load(Ordering::Acquire);
        // SAFETY: a non-null slot points into a `Box<Table>` owned by
        // `self.opened`, which only grows until `self` is dropped; the
        // returned reference borrows `self`, so the table outlives it.
        unsafe { ptr.as_ref() }
    }

    /// Opens `material`'s table afresh in place of `stale` (null: none was
    /// open) and puts it in its slot, or empties the slot when the file
    /// cannot be used. If another thread already replaced `stale`, its
    /// table is used.
    fn reopen(
        &self,
        material: Material,
        kind: FileKind,
        stale: *const Table,
    ) -> Result<&Table, ProbeError> {
        let cell = &self.slots[slot(material, kind)];
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        let current = cell.load(Ordering::Acquire);
        if !current.is_null() && !std::ptr::eq(current, stale) {
            // SAFETY: as in `open_table`.
            return Ok(unsafe { &*current });
        }
        let path = self.file_path(material, kind);
        match Table::open(&path, material, self.rule_set, kind, self.storage) {
            Ok(table) => {
                let table = Box::new(table);
                let ptr = &*table as *const Table as *mut Table;
                opened.push(table);
                cell.store(ptr, Ordering::Release);
                // SAFETY: `ptr` points into the box just pushed to
                // `opened`, kept until `self` is dropped.
                Ok(unsafe { &*ptr })
            }
            Err(e) => {
                cell.store(std::ptr::null_mut(), Ordering::Release);
                Err(e)
            }
        }
    }

    /// Whether `material`'s DTC file (`dtb gen --dtc`) exists and is
    /// valid (opens it).
    pub fn has_dtc(&self, material: Material) -> bool {
        material.pieces() <= MAX_TABLE_PIECES && self.file(material, FileKind::Dtc).is_ok()
    }

    /// Whether `material`'s table exists and is valid (opens it).
    pub fn has_table(&self, material: Material) -> bool {
        self.table(material).is_ok()
    }

    /// Decodes `material`'s whole table into memory (see
    /// [`crate::generator::GeneratorHooks::preload`]).
    pub(crate) fn preload_table(&self, material: Material) -> Result<(), ProbeError> {
        let mut table = self.table(material)?;
        if table.decoded.get().is_none() {
            if !table.unchanged() {
                table = self.reopen(material, FileKind::Values, table)?;
            }
            if table.from_mirror {
                let all = self.searched_whole(table)?;
                let _ = table.decoded.set(all);
                return Ok(());
            }
            let all = table
                .guarded(|| table.reader.decode_all_raw())
                .map_err(|_| {
                    table.corrupted(format::FormatError::Truncated(
                        "the file was cut short while it was read".into(),
                    ))
                })?
                .map_err(|e| table.corrupted(e))?;
            let all = if table.search_rule.is_some() {
                self.with_threats_resolved(table, all)?
            } else {
                all
            };
            let _ = table.decoded.set(all);
        }
        Ok(())
    }

    /// The decoded stream `all` of `table` (a table that leaves positions
    /// to the search, `format::SearchRule`) with each of those positions
    /// holding its value, found by the same search a probe makes: a
    /// preloaded table is read by index with no search.
    fn with_threats_resolved(&self, table: &Table, all: Vec<u8>) -> Result<Vec<u8>, ProbeError> {
        if table
            .search_rule
            .as_ref()
            .is_some_and(format::SearchRule::searches_quiet)
        {
            self.mirror_stores_values(table.index.material(), Mode::Load)?;
        }
        self.filled_by_search(table, all, false)
    }

    /// The values of every position of `table`, a WLD table that stores
    /// none (`format::FLAG_FROM_MIRROR`), each found by the search a probe
    /// makes (capture positions included), packed as a decoded stream.
    fn searched_whole(&self, table: &Table) -> Result<Vec<u8>, ProbeError> {
        self.mirror_stores_values(table.index.material(), Mode::Load)?;
        let all = vec![0u8; table.index.count().div_ceil(4) as usize];
        self.filled_by_search(table, all, true)
    }

    /// `all`, the packed WLD stream of `table`, with the value a probe's
    /// search finds written at every position (`every`) or at each
    /// position its search rule leaves to the search; in parallel, on the
    /// current rayon pool.
    fn filled_by_search(
        &self,
        table: &Table,
        mut all: Vec<u8>,
        every: bool,
    ) -> Result<Vec<u8>, ProbeError> {
        use rayon::prelude::*;
        const CHUNK_BYTES: usize = 4096;
        let count = table.index.count();
        all.par_chunks_mut(CHUNK_BYTES)
            .enumerate()
            .try_for_each_init(
                || (format::UnrankCursor::default(), SearchScratch::default()),
                |(cursor, scratch), (c, bytes)| {
                    let first = (c * CHUNK_BYTES * 4) as u64;
                    for i in first..(first + (bytes.len() * 4) as u64).min(count) {
                        let pos = table.index.unrank_with(i, cursor);
                        let searched = every
                            || table
                                .search_rule
                                .as_ref()
                                .is_some_and(|rule| rule.leaves(&pos, scratch));
                        if !searched {
                            continue;
                        }
                        let value = self
                            .resolve_by_search(&pos, &pos.legal_moves(), Mode::Load)?
                            .expect("loading mode always answers");
                        let (byte, shift) = ((i - first) as usize / 4, 2 * (i % 4));
                        bytes[byte] = bytes[byte] & !(3 << shift) | value.wdl.code() << shift;
                    }
                    Ok(())
                },
            )?;
        Ok(all)
    }

    /// `material`'s table if it was decoded whole into memory (see
    /// [`crate::generator::GeneratorHooks::preloaded`]).
    pub(crate) fn preloaded_table(&self, material: Material) -> Option<Preloaded<'_>> {
        if material.pieces() > MAX_TABLE_PIECES {
            return None;
        }
        let table = self.open_table(material, FileKind::Values)?;
        let data = table.decoded.get()?;
        Some(Preloaded {
            index: &table.index,
            data,
            kind: table.kind,
        })
    }

    /// The stored byte of position `pos` (White to move) of `material`'s table (a WLD
    /// code or a distance byte); `None` in cached-only mode when the block
    /// is not in memory. A table rewritten in place since it was opened is
    /// opened again (and answers from its new content if that is valid).
    fn stored(
        &self,
        material: Material,
        kind: FileKind,
        pos: &Position,
        mode: Mode,
    ) -> Result<Option<u8>, ProbeError> {
        match self.stored_with_flag(material, kind, pos, mode, None)? {
            Some(Stored::Byte(byte)) => Ok(Some(byte)),
            Some(Stored::Nothing | Stored::Searched { .. }) => Err(ProbeError::Corrupted {
                path: self.file_path(material, kind),
                source: format::FormatError::Corrupt("the file stores no values".into()),
            }),
            None => Ok(None),
        }
    }

    /// What `material`'s file of `kind` holds for `pos` (see [`Stored`]),
    /// read from one open table (so a file replaced meanwhile cannot mix
    /// the byte and the flags); `None` in cached-only mode when it is not
    /// in memory. `memo` keeps the blocks a search reads (see
    /// [`BlockMemo`]).
    fn stored_with_flag(
        &self,
        material: Material,
        kind: FileKind,
        pos: &Position,
        mode: Mode,
        mut memo: Option<&mut BlockMemo>,
    ) -> Result<Option<Stored>, ProbeError> {
        let table = match mode {
            Mode::Load => self.file(material, kind)?,
            // Opening a table reads its header and index: not in memory yet.
            Mode::CachedOnly => match self.open_table(material, kind) {
                Some(t) if material.pieces() <= MAX_TABLE_PIECES => t,
                _ => return Ok(None),
            },
        };
        match self.stored_by(table, pos, mode, memo.as_deref_mut()) {
            Ok(stored) => Ok(stored),
            Err(Miss::Failed(e)) => Err(e),
            Err(Miss::Changed) => {
                let fresh = self.reopen(material, kind, table)?;
                match self.stored_by(fresh, pos, mode, memo) {
                    Ok(stored) => Ok(stored),
                    Err(Miss::Failed(e)) => Err(e),
                    Err(Miss::Changed) => Err(fresh.corrupted(format::FormatError::Corrupt(
                        "the file keeps changing while it is read".into(),
                    ))),
                }
            }
        }
    }

    /// What `table` holds for `pos` (see [`Tablebase::stored_with_flag`]).
    fn stored_by(
        &self,
        table: &Table,
        pos: &Position,
        mode: Mode,
        memo: Option<&mut BlockMemo>,
    ) -> Result<Option<Stored>, Miss> {
        if table.decoded.get().is_none() {
            if table.from_mirror {
                return Ok(Some(Stored::Nothing));
            }
            if let Some(rule) = &table.search_rule {
                if SEARCH_SCRATCH.with(|scratch| rule.leaves(pos, &mut scratch.borrow_mut())) {
                    let quiet = rule.searches_quiet();
                    return Ok(Some(Stored::Searched { quiet }));
                }
            }
        }
        Ok(self.stored_in(table, pos, mode, memo)?.map(Stored::Byte))
    }

    fn stored_in(
        &self,
        table: &Table,
        pos: &Position,
        mode: Mode,
        memo: Option<&mut BlockMemo>,
    ) -> Result<Option<u8>, Miss> {
        let index = table.index.rank(pos);
        if let Some(all) = table.decoded.get() {
            let i = index as usize;
            return Ok(match table.kind {
                ValueKind::Wdl => (i / 4 < all.len()).then(|| format::wdl_code(all, i)),
                ValueKind::Distance | ValueKind::Dtc => all.get(i).copied(),
            });
        }
        let block = index / table.per_block;
        let offset = (index % table.per_block) as usize;
        let key = (table.id, block);
        if let Some(memo) = memo {
            return self.stored_through(memo, table, key, offset, mode);
        }
        let data = match mode {
            Mode::CachedOnly => match self.cache.get(&key) {
                Some(d) => d,
                None => return Ok(None),
            },
            Mode::Load => self
                .cache
                .get_or_insert_with(&key, || Self::decode_block(table, block))?,
        };
        Self::byte_in(table, &data, offset).map(Some)
    }

    /// [`Tablebase::stored_in`] for block `key` of a search, read from
    /// `memo` where it holds it, else from the cache and kept there.
    #[inline(never)]
    fn stored_through(
        &self,
        memo: &mut BlockMemo,
        table: &Table,
        key: BlockKey,
        offset: usize,
        mode: Mode,
    ) -> Result<Option<u8>, Miss> {
        if let Some(data) = memo.get(key) {
            return Self::byte_in(table, data, offset).map(Some);
        }
        let data = match mode {
            Mode::CachedOnly => match self.cache.get(&key) {
                Some(d) => d,
                None => return Ok(None),
            },
            Mode::Load => self
                .cache
                .get_or_insert_with(&key, || Self::decode_block(table, key.1))?,
        };
        let byte = Self::byte_in(table, &data, offset)?;
        memo.keep(key, data);
        Ok(Some(byte))
    }

    /// The stored byte at `offset` of a decoded block of `table`.
    fn byte_in(table: &Table, data: &[u8], offset: usize) -> Result<u8, Miss> {
        let byte = match table.kind {
            ValueKind::Wdl => (offset / 4 < data.len()).then(|| format::wdl_code(data, offset)),
            ValueKind::Distance | ValueKind::Dtc => data.get(offset).copied(),
        };
        byte.ok_or_else(|| {
            Miss::Failed(table.corrupted(format::FormatError::Corrupt("block too short".into())))
        })
    }

    /// Decodes one block, after checking that a mapped file was not
    /// rewritten since it was opened (a positioned read needs no check
    /// first: bytes that changed fail their checksum, and the stamp is
    /// checked then).
    fn decode_block(table: &Table, block: u64) -> Result<Arc<[u8]>, Miss> {
        if table.is_mapped() && !table.unchanged() {
            return Err(Miss::Changed);
        }
        Self::decode_read(table, block)
    }

    /// Decodes one block from the mapping or with a positioned read; a
    /// file cut short during the read (SIGBUS under a mapping, see
    /// `mapped`; a short read otherwise) or rewritten meanwhile is
    /// `Miss::Changed`.
    fn decode_read(table: &Table, block: u64) -> Result<Arc<[u8]>, Miss> {
        DECODER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                let d = zstd::bulk::Decompressor::new().map_err(|e| {
                    Miss::Failed(ProbeError::Io {
                        path: table.path.clone(),
                        source: e,
                    })
                })?;
                *slot = Some(d);
            }
            let mut raw = Vec::new();
            let decoder = slot.as_mut().expect("set");
            let decoded = table
                .guarded(|| table.reader.decode_block(block, decoder, &mut raw))
                .map_err(|_| Miss::Changed)?;
            match decoded {
                Ok(()) => {}
                // Bytes that changed during the read fail their checksum:
                // a rewrite, not damage, if the stamp moved meanwhile.
                Err(_) if !table.unchanged() => return Err(Miss::Changed),
                Err(e) => return Err(Miss::Failed(table.corrupted(e))),
            }
            Ok(raw.into())
        })
    }

    fn decode(&self, material: Material, byte: u8) -> Result<TableValue, ProbeError> {
        match format::value_kind(material, self.rule_set) {
            ValueKind::Wdl => Wdl::from_code(byte)
                .map(|wdl| TableValue {
                    wdl,
                    distance: None,
                })
                .ok_or_else(|| ProbeError::Corrupted {
                    path: self.table_path(material),
                    source: format::FormatError::Corrupt("invalid WLD code".into()),
                }),
            ValueKind::Distance | ValueKind::Dtc => {
                Ok(TableValue::from_distance(DistanceValue::decode(byte)))
            }
        }
    }

    /// Checks the position can be answered at all.
    fn check(&self, pos: &Position) -> Result<(), ProbeError> {
        let side = pos.side_to_move();
        if pos.pieces(side.opponent()).is_empty() {
            let name = if side == Color::White {
                "Black"
            } else {
                "White"
            };
            return Err(ProbeError::InvalidPosition(format!(
                "{name} has no pieces: the game is already over"
            )));
        }
        let pieces = pos.occupied().len();
        if pieces > MAX_TABLE_PIECES {
            return Err(ProbeError::TooManyPieces {
                pieces,
                max: MAX_TABLE_PIECES,
            });
        }
        Ok(())
    }

    /// The value of `pos` (any side to move), resolving captures by search.
    #[inline]
    fn value(&self, pos: &Position, mode: Mode) -> Result<Option<TableValue>, ProbeError> {
        self.value_with(pos, mode, None)
    }

    /// [`Tablebase::value`], reading blocks through `memo` where given (a
    /// search's children: see [`BlockMemo`]).
    fn value_with(
        &self,
        pos: &Position,
        mode: Mode,
        memo: Option<&mut BlockMemo>,
    ) -> Result<Option<TableValue>, ProbeError> {
        if pos.pieces(pos.side_to_move()).is_empty() {
            return Ok(Some(self.no_move_value(pos)));
        }
        if pos.has_capture() {
            return self.resolve_by_search(pos, &pos.legal_moves(), mode);
        }
        let (material, normal) = table_position(pos);
        if material.pieces() > MAX_TABLE_PIECES {
            return Err(ProbeError::TooManyPieces {
                pieces: material.pieces(),
                max: MAX_TABLE_PIECES,
            });
        }
        match self.stored_with_flag(material, FileKind::Values, &normal, mode, memo)? {
            Some(Stored::Nothing | Stored::Searched { quiet: true }) => {
                if !self.mirror_stores_values(material, mode)? {
                    return Ok(None);
                }
                self.resolve_by_search(pos, &pos.legal_moves(), mode)
            }
            Some(Stored::Searched { quiet: false }) => {
                self.resolve_by_search(pos, &pos.legal_moves(), mode)
            }
            Some(Stored::Byte(byte)) => Ok(Some(self.decode(material, byte)?)),
            None => Ok(None),
        }
    }

    /// Checks that the mirror of `material`, whose table stores no values
    /// or leaves its quiet positions to the search, stores every value a
    /// one-ply search from `material` reads: it may neither store nothing
    /// itself nor leave positions to a search (either would let the
    /// searches call each other without end). `false` in
    /// cached-only mode when the mirror is not open.
    fn mirror_stores_values(&self, material: Material, mode: Mode) -> Result<bool, ProbeError> {
        let mirror = material.mirrored();
        let table = match mode {
            Mode::Load => self.file(mirror, FileKind::Values)?,
            Mode::CachedOnly => match self.open_table(mirror, FileKind::Values) {
                Some(t) => t,
                None => return Ok(false),
            },
        };
        if (table.from_mirror || table.search_rule.is_some()) && table.decoded.get().is_none() {
            return Err(ProbeError::Corrupted {
                path: self.table_path(material),
                source: format::FormatError::Corrupt(format!(
                    "{material} is answered through {mirror}, which does not store all of its own values"
                )),
            });
        }
        Ok(true)
    }

    /// The value of a position from its legal moves `moves`: a capture
    /// position (its moves all capture), or a threat position its table
    /// leaves to the search (`format::is_searched_threat`).
    fn resolve_by_search(
        &self,
        pos: &Position,
        moves: &[Move],
        mode: Mode,
    ) -> Result<Option<TableValue>, ProbeError> {
        let class = Material::of(pos).counted_ending();
        let mut views = Vec::with_capacity(moves.len());
        let mut memo = BlockMemo::default();
        for mv in moves {
            match self.child_view(class, &pos.play(mv), mode, Some(&mut memo))? {
                // Outside the counted endings no distance is kept: one
                // move to a lost child settles it (the generator resolves
                // many capture positions; this spares it the other moves).
                Some(v) if class.is_none() && v.wdl == Wdl::Loss => {
                    return Ok(Some(value_from_children(self.rule_set, class, pos, [v])));
                }
                Some(v) => views.push(v),
                None => return Ok(None),
            }
        }
        Ok(Some(value_from_children(self.rule_set, class, pos, views)))
    }

    /// The value of a capture position given its moves (see
    /// [`crate::generator::GeneratorHooks::probe_capture`]).
    pub(crate) fn capture_value(
        &self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<TableValue, ProbeError> {
        self.check(pos)?;
        Ok(self
            .resolve_by_search(pos, moves, Mode::Load)?
            .expect("loading mode always answers"))
    }

    /// The value of a position whose side to move has no move.
    fn no_move_value(&self, pos: &Position) -> TableValue {
        value_from_children(self.rule_set, Material::of(pos).counted_ending(), pos, [])
    }

    /// How the parent (of class `parent`) sees the child `child`.
    fn child_view(
        &self,
        parent: Option<CountedEnding>,
        child: &Position,
        mode: Mode,
        memo: Option<&mut BlockMemo>,
    ) -> Result<Option<ChildView>, ProbeError> {
        if child.pieces(child.side_to_move()).is_empty() {
            return Ok(Some(ChildView::LOST));
        }
        Ok(self
            .value_with(child, mode, memo)?
            .map(|v| child_view(self.rule_set, parent, Material::of(child), v)))
    }

    /// The value of `pos` as its table states it (captures resolved): the
    /// result and, for distance tables, the distance. For counted endings
    /// the result holds once at least `distance` plies are left.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe(&self, pos: &Position) -> Result<TableValue, ProbeError> {
        self.check(pos)?;
        Ok(self
            .value(pos, Mode::Load)?
            .expect("loading mode always answers"))
    }

    /// Checks `plies_left` against the position's counted ending.
    fn plies_for(
        &self,
        pos: &Position,
        plies_left: Option<u8>,
    ) -> Result<Option<CountedEnding>, ProbeError> {
        let class = Material::of(pos).counted_ending();
        if let (Some(c), Some(r)) = (class, plies_left) {
            if self.rule_set.has_move_limits() && r > c.plies() {
                return Err(ProbeError::BadPliesLeft {
                    got: r as u32,
                    max: c.plies() as u32,
                });
            }
        }
        Ok(class)
    }

    /// Win, draw or loss for the side to move with `plies_left` plies left
    /// on the draw counter (`None`: the counted ending, if it is one, was
    /// just entered; ignored outside counted endings and under `pure`).
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::BadPliesLeft`] for a
    /// counter its counted ending cannot have, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe_wdl(&self, pos: &Position, plies_left: Option<u8>) -> Result<Wdl, ProbeError> {
        Ok(self.probe_counted(pos, plies_left)?.wdl)
    }

    /// The result with its distance where the table keeps one.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::BadPliesLeft`] for a
    /// counter its counted ending cannot have, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe_counted(
        &self,
        pos: &Position,
        plies_left: Option<u8>,
    ) -> Result<Probe, ProbeError> {
        self.check(pos)?;
        let class = self.plies_for(pos, plies_left)?;
        let v = self
            .value(pos, Mode::Load)?
            .expect("loading mode always answers");
        Ok(Self::answer(self.rule_set, class, v, plies_left))
    }

    fn answer(
        rule_set: RuleSet,
        class: Option<CountedEnding>,
        v: TableValue,
        plies_left: Option<u8>,
    ) -> Probe {
        let wdl = v.wdl_with(rule_set, class, plies_left);
        Probe {
            wdl,
            plies: if wdl == Wdl::Draw {
                None
            } else {
                v.distance.map(u32::from)
            },
        }
    }

    /// Like [`Tablebase::probe_wdl`], but answers only from memory already
    /// decoded (for use deep in a search): `Ok(None)` when a block would
    /// have to be read.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::BadPliesLeft`] for a
    /// counter its counted ending cannot have, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe_wdl_if_cached(
        &self,
        pos: &Position,
        plies_left: Option<u8>,
    ) -> Result<Option<Wdl>, ProbeError> {
        self.check(pos)?;
        let class = self.plies_for(pos, plies_left)?;
        Ok(self
            .value(pos, Mode::CachedOnly)?
            .map(|v| v.wdl_with(self.rule_set, class, plies_left)))
    }

    /// The distance of `pos` where its table keeps one (counted endings,
    /// and the lone-king endings under `pure`); `None` for draws and WLD
    /// tables.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe_distance(&self, pos: &Position) -> Result<Option<u8>, ProbeError> {
        Ok(self.probe(pos)?.distance)
    }

    /// The plies the draw counter allows in `pos` with `plies_left` on it
    /// (`None`: the counted ending was just entered), caps included (the
    /// long diagonal under `fmjd-diagonal`); `None` when no count runs
    /// (outside the counted endings, or under `pure`). See
    /// `format::plies_available`.
    pub fn plies_available(&self, pos: &Position, plies_left: Option<u8>) -> Option<u32> {
        let class = Material::of(pos).counted_ending();
        format::plies_available(self.rule_set, class, pos, plies_left)
    }

    /// The distance to conversion (DTC) of `pos`, in plies: how many plies,
    /// the conversion included, until the next capture or man move on the
    /// best path that keeps the result (the winner converts as soon as it
    /// can, the loser holds out longest). 0 when the side to move has no
    /// move (the game is over), 1 in a capture position; `None` for a
    /// draw. 255 stands for 255 plies or more.
    ///
    /// Inside the counted endings the result kept is the one with a freshly
    /// entered count, and the DTC counts plies as if the count did not run
    /// out first; [`Tablebase::probe_counted`] says how many plies the
    /// count must have left (see `format::dtc_byte`).
    ///
    /// Reads the material's `.dtc` file, which `dtb gen --dtc` writes;
    /// [`ProbeError::MissingTable`] names it when it is not there. Where
    /// that file stores no values (one side of most pairs: see
    /// `format::FLAG_FROM_MIRROR`), a one-ply search over the mirror's DTC
    /// file finds the same distance.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn probe_dtc(&self, pos: &Position) -> Result<Option<u32>, ProbeError> {
        let value = self.probe(pos)?;
        let class = Material::of(pos).counted_ending();
        if value.wdl_with(self.rule_set, class, None) == Wdl::Draw {
            return Ok(None);
        }
        if pos.pieces(pos.side_to_move()).is_empty() || pos.is_lost_by_no_moves() {
            return Ok(Some(0));
        }
        if pos.has_capture() {
            return Ok(Some(1));
        }
        let (material, normal) = table_position(pos);
        if self
            .file(material, FileKind::Dtc)?
            .reader
            .header()
            .from_mirror
        {
            return self.dtc_from_mirror(pos, material);
        }
        let byte = self
            .stored(material, FileKind::Dtc, &normal, Mode::Load)?
            .expect("loading mode always answers");
        Ok(Some(u32::from(byte)))
    }

    /// The DTC of decided `pos`, of `material`, whose DTC file stores no
    /// values: that of its best move (a win of least DTC; in a loss, the
    /// longest defence), one more than the DTC its move leads to, or 1
    /// for a conversion. The moves that convert nothing reach the mirror
    /// material, whose file must store its values.
    fn dtc_from_mirror(
        &self,
        pos: &Position,
        material: Material,
    ) -> Result<Option<u32>, ProbeError> {
        let mirror = material.mirrored();
        if self
            .file(mirror, FileKind::Dtc)?
            .reader
            .header()
            .from_mirror
        {
            return Err(ProbeError::Corrupted {
                path: self.file_path(mirror, FileKind::Dtc),
                source: format::FormatError::Corrupt(format!(
                    "neither {material} nor {mirror} stores its DTC values"
                )),
            });
        }
        let best = self.move_values(pos, None)?.into_iter().next();
        Ok(best.and_then(|m| m.dtc))
    }

    /// The DTC through move `mv` of `pos` leading to `child`, for a move
    /// whose result is decided; `None` when the DTC files are missing.
    /// `child_file`: whether the DTC file of the position's moves that
    /// convert nothing is there, found out once per position (they all
    /// reach the same material, and a missing file is looked for on disk
    /// at every probe).
    fn dtc_through(
        &self,
        pos: &Position,
        mv: &Move,
        child: &Position,
        child_file: &mut Option<bool>,
    ) -> Result<Option<u32>, ProbeError> {
        if pos.is_conversion(mv) {
            return Ok(Some(1));
        }
        let there = match *child_file {
            Some(there) => there,
            None => {
                let there = match self.file(table_position(child).0, FileKind::Dtc) {
                    Ok(_) => true,
                    Err(e) if e.is_missing_table() => false,
                    Err(e) => return Err(e),
                };
                *child_file.insert(there)
            }
        };
        if !there {
            return Ok(None);
        }
        match self.probe_dtc(child) {
            Ok(dtc) => Ok(dtc.map(|d| d.saturating_add(1).min(u32::from(format::DTC_SATURATED)))),
            Err(e) if e.is_missing_table() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every legal move with the value it leads to for the side making it,
    /// best first: wins, draws, losses. Wins come shortest first: in a
    /// distance table by its distance, then by DTC; elsewhere by DTC, so
    /// that playing the first move always makes progress. Losses come
    /// longest first in the same order of keys.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::BadPliesLeft`] for a
    /// counter its counted ending cannot have, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn move_values(
        &self,
        pos: &Position,
        plies_left: Option<u8>,
    ) -> Result<Vec<MoveValue>, ProbeError> {
        self.check(pos)?;
        let class = self.plies_for(pos, plies_left)?;
        let mut out = Vec::new();
        let mut child_file = None;
        for mv in pos.legal_moves() {
            let child = pos.play(&mv);
            let view = self
                .child_view(class, &child, Mode::Load, None)?
                .expect("loading mode always answers");
            let outcome = move_outcome(self.rule_set, class, pos, plies_left, view);
            let dtc = match outcome.wdl {
                Wdl::Draw => None,
                _ => self.dtc_through(pos, &mv, &child, &mut child_file)?,
            };
            out.push(MoveValue {
                mv,
                wdl: outcome.wdl,
                plies: outcome.plies,
                plies_left_after: plies_left_after(self.rule_set, class, pos, plies_left, &child),
                dtc,
            });
        }
        out.sort_by_key(move_order);
        Ok(out)
    }

    /// A best move (the first of [`Tablebase::move_values`]): a win of
    /// least distance, then least DTC; a draw; or the longest defence.
    /// Following it in a won position always makes progress: the DTC
    /// falls by one each move until a conversion, and conversions cannot
    /// go on for ever. Without DTC files a winning move is still played,
    /// but outside the distance tables it may wander. `None` when there is
    /// no legal move.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] or [`ProbeError::TooManyPieces`] for a
    /// position these tables do not hold, [`ProbeError::BadPliesLeft`] for a
    /// counter its counted ending cannot have, [`ProbeError::MissingTable`]
    /// when a table it needs is not there, [`ProbeError::Corrupted`] (or a
    /// rule-set or material mismatch) when one is damaged, and
    /// [`ProbeError::Io`] when a file cannot be read.
    pub fn best_move(
        &self,
        pos: &Position,
        plies_left: Option<u8>,
    ) -> Result<Option<MoveValue>, ProbeError> {
        Ok(self.move_values(pos, plies_left)?.into_iter().next())
    }

    /// Every material whose table file is in the directory, valid or not
    /// (by file name).
    pub fn materials_on_disk(&self) -> Vec<Material> {
        format::list_tables(&self.dir).unwrap_or_default()
    }

    /// The largest `n` such that the table of every material of up to `n`
    /// pieces is on disk (0 if not even the 2-piece ones are).
    pub fn max_pieces_available(&self) -> u32 {
        let on_disk = self.materials_on_disk();
        (2..=MAX_TABLE_PIECES)
            .take_while(|&n| {
                Material::all_up_to(n)
                    .iter()
                    .filter(|m| m.pieces() == n)
                    .all(|m| on_disk.contains(m))
            })
            .last()
            .unwrap_or(0)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use format::{table_dir, TableSpec, TableStats, TableWriter};

    /// A KM-KM table (WLD under every rule set) of arbitrary values, many
    /// pages long.
    fn write_table(dir: &Path) -> PathBuf {
        let material: Material = "KM-KM".parse().unwrap();
        let count = format::MaterialIndex::new(material).count();
        let folder = table_dir(dir, RuleSet::Pure);
        std::fs::create_dir_all(&folder).unwrap();
        let path = format::table_path(&folder, material);
        let spec = TableSpec::new(material, RuleSet::Pure, ValueKind::Wdl);
        let mut writer = TableWriter::create(&path, spec).unwrap();
        let mut x: u64 = 1;
        for _ in 0..count {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            writer.push(Some(((x >> 33) % 3) as u8)).unwrap();
        }
        let stats = TableStats {
            draw: count,
            ..TableStats::default()
        };
        writer.finish(stats).unwrap()
    }

    /// The SIGBUS path on a real table: the file is cut short after it was
    /// opened and the stamp check is skipped, so the read of a lost block
    /// faults; the guard (installed here: the library never installs it
    /// by itself) turns that into `Changed` (and the process lives).
    #[test]
    fn a_block_read_from_a_file_cut_short_is_changed_not_fatal() {
        crate::install_sigbus_guard();
        for storage in [Storage::Mapped, Storage::PositionedReads] {
            let dir = tempfile::tempdir().unwrap();
            let path = write_table(dir.path());
            let len = std::fs::metadata(&path).unwrap().len();
            assert!(len > 4 * 4096, "{len} bytes: too short for the test");
            let material: Material = "KM-KM".parse().unwrap();
            let table =
                Table::open(&path, material, RuleSet::Pure, FileKind::Values, storage).unwrap();
            let last = table.reader.header().block_count - 1;
            assert!(Tablebase::decode_read(&table, last).is_ok());
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(4096).unwrap();
            assert!(!table.unchanged());
            match Tablebase::decode_read(&table, last) {
                Err(Miss::Changed) => {}
                Err(Miss::Failed(e)) => panic!("{storage:?}: reported as {e}, not as a change"),
                Ok(_) => panic!("{storage:?}: a lost block decoded"),
            }
            // Through the prober: the table is opened again and found
            // damaged.
            let options = TablebaseOptions::default().with_storage(storage);
            let tb = Tablebase::open_with(dir.path(), RuleSet::Pure, options).unwrap();
            let pos: Position = "W:WK1,28:BK50,13".parse().unwrap();
            assert!(tb.probe_wdl(&pos, None).unwrap_err().is_corrupted());
        }
    }
}
