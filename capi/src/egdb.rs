//! The interface of Kingsrow's endgame database driver, `egdb_intl`, over
//! these tables (`include/dtb_egdb.h` for C, `include/egdb_intl.h` for
//! C++): an engine written against that driver relinks against libdtb and
//! reads our tables without a changed line.
//!
//! Written from the driver's documentation (its `doc/reference.md`): the
//! names, value codes, position layout and call semantics are the
//! documented ones. Where ours answer more (capture positions, the FMJD
//! draw limits) or differ (no value is ever guessed: what is not built
//! answers `EGDB_UNKNOWN`), docs/engines.md ("Engines written for
//! Kingsrow's driver") says so.

use std::cell::{Cell, RefCell, UnsafeCell};
use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_uint, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use format::ValueKind;
use probe::{Material, ProbeError, RuleSet, Tablebase, TablebaseOptions, Wdl};
use rules::{Color, Position};

use crate::last_error::set_error;
use crate::registry::{RecentHandle, Registry};

/// `EGDB_BLACK`: Black to move.
pub const DTB_EGDB_BLACK: c_int = 0;
/// `EGDB_WHITE`: White to move.
pub const DTB_EGDB_WHITE: c_int = 1;
/// `EGDB_SUBDB_UNAVAILABLE`: never returned by this library (what is not
/// built answers [`DTB_EGDB_UNKNOWN`]); defined for engines that test it.
pub const DTB_EGDB_SUBDB_UNAVAILABLE: c_int = -2;
/// `EGDB_NOT_IN_CACHE`: a conditional lookup would have read the disk.
pub const DTB_EGDB_NOT_IN_CACHE: c_int = -1;
/// `EGDB_UNKNOWN`: no value (not built, bad input, a damaged table).
pub const DTB_EGDB_UNKNOWN: c_int = 0;
/// `EGDB_WIN`: the side to move wins.
pub const DTB_EGDB_WIN: c_int = 1;
/// `EGDB_LOSS`: the side to move loses.
pub const DTB_EGDB_LOSS: c_int = 2;
/// `EGDB_DRAW`: a draw.
pub const DTB_EGDB_DRAW: c_int = 3;
/// `EGDB_DRAW_OR_LOSS`: never returned (our tables are complete).
pub const DTB_EGDB_DRAW_OR_LOSS: c_int = 4;
/// `EGDB_WIN_OR_DRAW`: never returned (our tables are complete).
pub const DTB_EGDB_WIN_OR_DRAW: c_int = 5;
/// `MTC_UNKNOWN`: no distance (a draw, or not built).
pub const DTB_EGDB_MTC_UNKNOWN: c_int = 0;
/// `MTC_LESS_THAN_THRESHOLD`: fewer than [`DTB_EGDB_MTC_THRESHOLD`] plies
/// to the conversion.
pub const DTB_EGDB_MTC_LESS_THAN_THRESHOLD: c_int = 1;
/// `MTC_THRESHOLD`: distances below this many plies are not told apart.
pub const DTB_EGDB_MTC_THRESHOLD: c_int = 10;
/// `EGDB_WLD_RUNLEN`.
pub const DTB_EGDB_WLD_RUNLEN: c_int = 0;
/// `EGDB_MTC_RUNLEN`.
pub const DTB_EGDB_MTC_RUNLEN: c_int = 1;
/// `EGDB_WLD_HUFFMAN`.
pub const DTB_EGDB_WLD_HUFFMAN: c_int = 2;
/// `EGDB_WLD_TUN_V1`.
pub const DTB_EGDB_WLD_TUN_V1: c_int = 3;
/// `EGDB_WLD_TUN_V2`: what `egdb_identify` reports for our tables (a WLD
/// database; the position layout and lookups are that driver's).
pub const DTB_EGDB_WLD_TUN_V2: c_int = 4;

/// `EGDB_POSITION`: Black's pieces, White's pieces and the kings of both,
/// square `s` on bit `(s-1) + (s-1)/10` (bits 10, 21, 32, 43 unused).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DtbEgdbPosition {
    /// Black's pieces.
    pub black: u64,
    /// White's pieces.
    pub white: u64,
    /// The kings of both colours.
    pub king: u64,
}

/// `EGDB_STATS`: counts since the driver was opened or its stats reset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DtbEgdbStats {
    /// Always 0: the block cache is the prober's and keeps no counts.
    pub lru_cache_hits: c_uint,
    /// Always 0 (as `lru_cache_hits`).
    pub lru_cache_loads: c_uint,
    /// Always 0: no table is loaded whole at open.
    pub autoload_hits: c_uint,
    /// Lookups.
    pub db_requests: c_uint,
    /// Lookups answered with a value (win, loss, draw; or a distance).
    pub db_returns: c_uint,
    /// Lookups of positions outside the tables (too many pieces, a
    /// material not built, a missing `.dtc` file).
    pub db_not_present_requests: c_uint,
    /// Always 0.
    pub avg_ht_list_length: f32,
}

/// `EGDB_VERIFY_MSGS`: the words `egdb_verify` reports with.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DtbEgdbVerifyMsgs {
    /// Said before a file whose checksum fails.
    pub crc_failed: [c_char; 80],
    /// Said after each file that passes.
    pub ok: [c_char; 80],
    /// Said at the end when some file failed.
    pub errors: [c_char; 80],
    /// Said at the end when every file passed.
    pub no_errors: [c_char; 80],
}

/// What an `EGDB_DRIVER *` names (opaque to C): a registry number with the
/// type of a pointer to this, never dereferenced.
pub struct DtbEgdbDriver {
    _opaque: [u8; 0],
}

/// The driver's message function.
pub type MsgFn = unsafe extern "C" fn(msg: *const c_char);

/// Which database a driver answers from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Database {
    /// Win, loss or draw (`db=wld`, the default).
    Wld,
    /// Kingsrow's "moves to conversion" from our `.dtc` files (`db=mtc`).
    Mtc,
}

/// The options of `egdb_open`.
#[derive(Debug, PartialEq, Eq)]
struct OpenOptions {
    max_pieces: Option<u32>,
    max_kings_1side_8pcs: Option<u32>,
    rules: Option<RuleSet>,
    database: Database,
}

impl OpenOptions {
    /// Parses `name = value; name = value` (names without regard to case,
    /// spaces anywhere around them).
    fn parse(text: &str) -> Result<OpenOptions, String> {
        let mut options = OpenOptions {
            max_pieces: None,
            max_kings_1side_8pcs: None,
            rules: None,
            database: Database::Wld,
        };
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("option \"{item}\" is not of the form name=value"))?;
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            let number = || {
                value
                    .parse::<u32>()
                    .map_err(|_| format!("option {name}: \"{value}\" is not a number"))
            };
            match name.as_str() {
                "maxpieces" => options.max_pieces = Some(number()?),
                "maxkings_1side_8pcs" => options.max_kings_1side_8pcs = Some(number()?),
                "rules" => {
                    options.rules = Some(value.parse().map_err(|_| {
                        format!("option rules: \"{value}\" is not pure, fmjd or fmjd-diagonal")
                    })?)
                }
                "db" => {
                    options.database = match value.to_ascii_lowercase().as_str() {
                        "wld" => Database::Wld,
                        "mtc" => Database::Mtc,
                        _ => return Err(format!("option db: \"{value}\" is not wld or mtc")),
                    }
                }
                _ => {
                    return Err(format!(
                    "unknown option \"{name}\" (known: maxpieces, maxkings_1side_8pcs, rules, db)"
                ))
                }
            }
        }
        Ok(options)
    }
}

/// Lookup counters, spread over cache lines so that threads counting at
/// once seldom write the same one.
struct Counters {
    shards: [Shard; SHARDS],
}

const SHARDS: usize = 8;

#[repr(align(64))]
#[derive(Default)]
struct Shard {
    requests: AtomicU32,
    returns: AtomicU32,
    not_present: AtomicU32,
}

/// Hands each thread a shard in turn.
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl Counters {
    fn new() -> Counters {
        Counters {
            shards: std::array::from_fn(|_| Shard::default()),
        }
    }

    fn shard(&self) -> &Shard {
        let i = SHARD
            .try_with(|s| {
                if s.get() == usize::MAX {
                    s.set(NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS);
                }
                s.get()
            })
            .unwrap_or(0);
        &self.shards[i]
    }

    fn total(&self, field: impl Fn(&Shard) -> &AtomicU32) -> c_uint {
        self.shards.iter().fold(0u32, |sum, s| {
            sum.wrapping_add(field(s).load(Ordering::Relaxed))
        })
    }

    fn reset(&self) {
        for s in &self.shards {
            for c in [&s.requests, &s.returns, &s.not_present] {
                c.store(0, Ordering::Relaxed);
            }
        }
    }
}

/// The counts `egdb_get_stats` hands to C: memory at a fixed address that
/// the driver rewrites at each call, under its lock, through a raw
/// pointer (never a Rust reference, as C may hold the address).
#[derive(Default)]
struct StatsSnapshot {
    lock: Mutex<()>,
    cell: Box<UnsafeCell<DtbEgdbStats>>,
}

// SAFETY: the cell is written only under `lock`, through a raw pointer,
// and read by Rust never; C reads it as documented in dtb_egdb.h (one
// thread at a time calls egdb_get_stats and reads its result).
unsafe impl Sync for StatsSnapshot {}

impl StatsSnapshot {
    fn publish(&self, stats: DtbEgdbStats) -> *mut DtbEgdbStats {
        let _held = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let ptr = self.cell.get();
        // SAFETY: the cell is owned by this driver and valid; no Rust
        // reference to it exists; writers are serialised by `lock`.
        unsafe { ptr.write(stats) };
        ptr
    }
}

/// Slots of the table of materials on disk: each count 0..=8.
const MATERIAL_SLOTS: usize = 9 * 9 * 9 * 9;

/// A material's slot in [`Driver::present`]; `None` past 8 of a kind.
fn material_slot(m: Material) -> Option<usize> {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    counts.iter().try_fold(0usize, |slot, &c| {
        (c <= 8).then(|| slot * 9 + usize::from(c))
    })
}

/// An open driver.
pub(crate) struct Driver {
    tablebase: Tablebase,
    database: Database,
    /// The most pieces looked up: the option `maxpieces`, at most the
    /// largest table on disk.
    max_pieces: u32,
    /// The most pieces of one side in a table on disk (within `max_pieces`).
    max_pieces_1side: u32,
    max_kings_1side_8pcs: Option<u32>,
    /// The most kings of one side in an 8-piece table on disk, at most
    /// the option (0 where no 8-piece table is used).
    max_8pc_kings_1side: u32,
    msg_fn: Option<MsgFn>,
    /// Messages already sent: each problem is told once, not at every
    /// lookup of a search.
    said: Mutex<HashSet<String>>,
    counters: Counters,
    /// What `egdb_get_stats` last returned (its address is handed out).
    stats: StatsSnapshot,
    /// Which materials have a table on disk (by [`material_slot`]).
    present: Vec<bool>,
}

impl Driver {
    fn say(&self, message: &str) {
        let Some(msg_fn) = self.msg_fn else { return };
        let new = self
            .said
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(message.to_string());
        if new {
            send(msg_fn, message);
        }
    }

    fn lookup(&self, p: &DtbEgdbPosition, color: c_int, conditional: bool) -> c_int {
        let shard = self.counters.shard();
        shard.requests.fetch_add(1, Ordering::Relaxed);
        let side = match color {
            DTB_EGDB_BLACK => Color::Black,
            DTB_EGDB_WHITE => Color::White,
            _ => {
                self.say(&format!(
                    "egdb_lookup: color {color} is neither EGDB_BLACK (0) nor EGDB_WHITE (1)\n"
                ));
                return DTB_EGDB_UNKNOWN;
            }
        };
        let pos = match Position::from_ghost_masks(side, p.white, p.black, p.king) {
            Ok(pos) => pos,
            Err(e) => {
                self.say(&format!("egdb_lookup: not a position: {e}\n"));
                return DTB_EGDB_UNKNOWN;
            }
        };
        if !self.holds(&pos) {
            shard.not_present.fetch_add(1, Ordering::Relaxed);
            return DTB_EGDB_UNKNOWN;
        }
        let value = match self.database {
            Database::Wld => self.wld(&pos, conditional),
            Database::Mtc => self.mtc(&pos),
        };
        match value {
            Ok(v) => {
                shard.returns.fetch_add(1, Ordering::Relaxed);
                v
            }
            Err(Some(v)) => v,
            Err(None) => {
                shard.not_present.fetch_add(1, Ordering::Relaxed);
                DTB_EGDB_UNKNOWN
            }
        }
    }

    /// Whether `pos` is within what this driver looks up (`maxpieces`,
    /// `maxkings_1side_8pcs`).
    fn holds(&self, pos: &Position) -> bool {
        let pieces = pos.occupied().len();
        if pieces > self.max_pieces || !self.has_table_for(pos) {
            return false;
        }
        match self.max_kings_1side_8pcs {
            Some(k) if pieces == 8 => {
                pos.kings(Color::White).len() <= k && pos.kings(Color::Black).len() <= k
            }
            _ => true,
        }
    }

    /// Whether the table that stores `pos` is on disk (positions with
    /// Black to move live in the mirrored material's table). Checked
    /// before probing, so that a search looking up a material that is not
    /// built pays no error path.
    fn has_table_for(&self, pos: &Position) -> bool {
        let m = Material::of(pos);
        let stored = match pos.side_to_move() {
            Color::White => m,
            Color::Black => m.mirrored(),
        };
        material_slot(stored).is_some_and(|i| self.present[i]) || game_over(pos).is_some()
    }

    /// Win, loss or draw: `Err(None)` for a position outside the tables,
    /// `Err(Some(code))` for an answer that is not a value.
    fn wld(&self, pos: &Position, conditional: bool) -> Result<c_int, Option<c_int>> {
        if let Some(over) = game_over(pos) {
            return over.map(wld_code).ok_or(Some(DTB_EGDB_UNKNOWN));
        }
        let result = if conditional {
            match self.tablebase.probe_wdl_if_cached(pos, None) {
                Ok(None) => return Err(Some(DTB_EGDB_NOT_IN_CACHE)),
                other => other.map(|w| w.expect("Some: None returned above")),
            }
        } else {
            self.tablebase.probe_wdl(pos, None)
        };
        result.map(wld_code).map_err(|e| self.failed(&e))
    }

    /// Kingsrow's MTC of `pos` from its distance to conversion.
    fn mtc(&self, pos: &Position) -> Result<c_int, Option<c_int>> {
        if game_over(pos).is_some() {
            return Ok(DTB_EGDB_MTC_LESS_THAN_THRESHOLD);
        }
        match self.tablebase.probe_dtc(pos) {
            Ok(dtc) => Ok(mtc_code(dtc)),
            Err(e) => Err(self.failed(&e)),
        }
    }

    /// What a failed probe answers: `None` (not present) for what was not
    /// built, else `EGDB_UNKNOWN` with a message.
    fn failed(&self, e: &ProbeError) -> Option<c_int> {
        match e {
            ProbeError::TooManyPieces { .. } => None,
            ProbeError::MissingTable { .. } => {
                self.say(&format!("egdb_lookup: {e} (answered EGDB_UNKNOWN)\n"));
                None
            }
            _ => {
                self.say(&format!("egdb_lookup: {e}\n"));
                Some(DTB_EGDB_UNKNOWN)
            }
        }
    }
}

/// The result of a finished game: `Some(Some(wdl))` when one side has no
/// pieces left and the other has some, `Some(None)` for an empty board.
fn game_over(pos: &Position) -> Option<Option<Wdl>> {
    let side = pos.side_to_move();
    match (
        pos.pieces(side).is_empty(),
        pos.pieces(side.opponent()).is_empty(),
    ) {
        (false, false) => None,
        (true, true) => Some(None),
        (true, false) => Some(Some(Wdl::Loss)),
        (false, true) => Some(Some(Wdl::Win)),
    }
}

fn wld_code(w: Wdl) -> c_int {
    match w {
        Wdl::Win => DTB_EGDB_WIN,
        Wdl::Loss => DTB_EGDB_LOSS,
        Wdl::Draw => DTB_EGDB_DRAW,
    }
}

/// Kingsrow's MTC of a distance to conversion `dtc` in plies (the
/// conversion included; `None` for a draw): `MTC_LESS_THAN_THRESHOLD`
/// below the threshold, else the plies rounded down to even (the true
/// distance is the value or the value plus one), as that driver decodes
/// its stored half-distances.
pub fn mtc_code(dtc: Option<u32>) -> c_int {
    match dtc {
        None => DTB_EGDB_MTC_UNKNOWN,
        Some(d) if d < DTB_EGDB_MTC_THRESHOLD as u32 => DTB_EGDB_MTC_LESS_THAN_THRESHOLD,
        Some(d) => (d & !1) as c_int,
    }
}

/// Sends `message` to a message function.
fn send(msg_fn: MsgFn, message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: the caller gave a function taking a NUL-terminated string
    // (header contract); `text` lives until it returns.
    unsafe { msg_fn(text.as_ptr()) };
}

thread_local! {
    static RECENT_DRIVER: RefCell<RecentHandle<Driver>> = const { RefCell::new(None) };
}

/// The open drivers by handle number.
static DRIVERS: Registry<Driver> = Registry::new(&RECENT_DRIVER);

/// Runs `f` on the driver of a handle: `None` for NULL and for a closed or
/// unknown handle (with `dtb_last_error` set). Only the address is read.
fn with_driver<R>(handle: *const DtbEgdbDriver, f: impl FnOnce(&Driver) -> R) -> Option<R> {
    if handle.is_null() {
        set_error("EGDB_DRIVER handle is NULL");
        return None;
    }
    let result = DRIVERS.with(handle.addr(), f);
    if result.is_none() {
        set_error("closed or unknown EGDB_DRIVER handle");
    }
    result
}

/// Runs `f`, turning a panic into `fallback`.
fn guarded<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        set_error("internal error (a bug in draughts-tb)");
        fallback
    })
}

/// A C string argument as text: `None` for NULL or text that is not UTF-8.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string.
unsafe fn text_arg<'a>(text: *const c_char) -> Option<&'a str> {
    if text.is_null() {
        return None;
    }
    // SAFETY: NUL-terminated (caller contract).
    unsafe { CStr::from_ptr(text) }.to_str().ok()
}

/// The materials on disk within `max_pieces`, and the largest piece counts
/// (all, one side) among them.
fn extent(tb: &Tablebase, max_pieces: u32) -> (u32, u32) {
    tb.materials_on_disk()
        .iter()
        .filter(|m| m.pieces() <= max_pieces)
        .fold((0, 0), |(all, side), m| {
            let one_side = (m.white_men + m.white_kings).max(m.black_men + m.black_kings);
            (all.max(m.pieces()), side.max(u32::from(one_side)))
        })
}

/// Opens a driver: the body of `dtb_egdb_open` (errors as messages).
fn open_driver(
    options: &str,
    cache_mb: c_int,
    directory: &str,
    msg_fn: Option<MsgFn>,
) -> Result<Driver, String> {
    let options = OpenOptions::parse(options)?;
    let root = Path::new(directory);
    let (_, rules) = probe::locate_tables(root, options.rules).map_err(|e| e.to_string())?;
    let cache = match u64::try_from(cache_mb) {
        Ok(mb) if mb > 0 => TablebaseOptions::with_cache_bytes(mb << 20),
        _ => TablebaseOptions::default(),
    };
    let tablebase = Tablebase::open_with(root, rules, cache).map_err(|e| e.to_string())?;
    let limit = options.max_pieces.unwrap_or(u32::MAX);
    let (max_pieces, max_pieces_1side) = extent(&tablebase, limit);
    if max_pieces == 0 {
        return Err(format!(
            "no {rules} tables in {} (build them with: dtb gen --rules {rules} --dir {})",
            tablebase.table_dir().display(),
            root.display()
        ));
    }
    let max_8pc_kings_1side =
        eight_piece_kings(&tablebase, max_pieces, options.max_kings_1side_8pcs);
    let mut present = vec![false; MATERIAL_SLOTS];
    for m in tablebase.materials_on_disk() {
        if let Some(i) = material_slot(m) {
            present[i] = true;
        }
    }
    if options.database == Database::Mtc && !has_any_dtc(&tablebase) {
        return Err(format!(
            "db=mtc needs the .dtc files, and {} has none (build them with: dtb gen --dtc --rules {rules})",
            tablebase.table_dir().display()
        ));
    }
    Ok(Driver {
        tablebase,
        database: options.database,
        max_pieces,
        max_pieces_1side,
        max_kings_1side_8pcs: options.max_kings_1side_8pcs,
        max_8pc_kings_1side,
        msg_fn,
        said: Mutex::new(HashSet::new()),
        counters: Counters::new(),
        stats: StatsSnapshot::default(),
        present,
    })
}

/// The most kings of one side in the 8-piece tables on disk (0 when none
/// is used), at most `option`.
fn eight_piece_kings(tb: &Tablebase, max_pieces: u32, option: Option<u32>) -> u32 {
    if max_pieces < 8 {
        return 0;
    }
    let on_disk = tb
        .materials_on_disk()
        .iter()
        .filter(|m| m.pieces() == 8)
        .map(|m| u32::from(m.white_kings.max(m.black_kings)))
        .max()
        .unwrap_or(0);
    option.map_or(on_disk, |k| k.min(on_disk))
}

fn has_any_dtc(tb: &Tablebase) -> bool {
    tb.materials_on_disk().into_iter().any(|m| tb.has_dtc(m))
}

/// What a driver says when it opens.
fn opening_message(d: &Driver) -> String {
    let what = match d.database {
        Database::Wld => "win/loss/draw",
        Database::Mtc => "moves to conversion (from .dtc files)",
    };
    format!(
        "draughts-tb {} egdb driver: {} {what} tables in {}, up to {} pieces\n",
        env!("CARGO_PKG_VERSION"),
        d.tablebase.rule_set(),
        d.tablebase.table_dir().display(),
        d.max_pieces
    )
}

/// `egdb_open`: opens the tables in `directory` (a rule set's folder such
/// as `data/pure`, or the folder above it) with `options`
/// (`maxpieces=N; maxkings_1side_8pcs=N; rules=pure|fmjd|fmjd-diagonal;
/// db=wld|mtc`). NULL on error, told through `msg_fn` (which may be NULL)
/// and `dtb_last_error`.
///
/// # Safety
/// `options` and `directory` are NULL or NUL-terminated strings; `msg_fn`
/// is NULL or a function taking a NUL-terminated string, callable from
/// any thread for as long as the driver is open.
#[no_mangle]
pub unsafe extern "C" fn dtb_egdb_open(
    options: *const c_char,
    cache_mb: c_int,
    directory: *const c_char,
    msg_fn: Option<MsgFn>,
) -> *mut DtbEgdbDriver {
    guarded(std::ptr::null_mut(), || {
        let tell = |message: String| {
            set_error(message.trim_end());
            if let Some(f) = msg_fn {
                send(f, &format!("egdb_open: {}\n", message.trim_end()));
            }
            std::ptr::null_mut()
        };
        // SAFETY: forwarded caller contract.
        let options_text = if options.is_null() {
            Some("")
        } else {
            unsafe { text_arg(options) }
        };
        let Some(options_text) = options_text else {
            return tell("options are not UTF-8".into());
        };
        // SAFETY: forwarded caller contract.
        let Some(directory) = (unsafe { text_arg(directory) }) else {
            return tell("directory is NULL or not UTF-8".into());
        };
        match open_driver(options_text, cache_mb, directory, msg_fn) {
            Ok(driver) => {
                if let Some(f) = msg_fn {
                    send(f, &opening_message(&driver));
                }
                std::ptr::without_provenance_mut(DRIVERS.register(driver))
            }
            Err(message) => tell(message),
        }
    })
}

/// `egdb_lookup`: the value of `position` with `color` to move:
/// `EGDB_WIN`, `EGDB_LOSS`, `EGDB_DRAW` (for a driver opened with
/// `db=mtc`, Kingsrow's MTC: see [`mtc_code`]), `EGDB_NOT_IN_CACHE` for a
/// conditional lookup (`cl` non-zero) that would read the disk, and
/// `EGDB_UNKNOWN` for everything else. Capture positions are answered
/// too. Thread-safe.
///
/// # Safety
/// `position` is NULL or points to a readable `EGDB_POSITION`.
#[no_mangle]
pub unsafe extern "C" fn dtb_egdb_lookup(
    handle: *mut DtbEgdbDriver,
    position: *const DtbEgdbPosition,
    color: c_int,
    cl: c_int,
) -> c_int {
    guarded(DTB_EGDB_UNKNOWN, || {
        with_driver(handle, |d| {
            if position.is_null() {
                d.say("egdb_lookup: position is NULL\n");
                return DTB_EGDB_UNKNOWN;
            }
            // SAFETY: non-null, readable (caller contract).
            let p = unsafe { position.read_unaligned() };
            d.lookup(&p, color, cl != 0)
        })
        .unwrap_or(DTB_EGDB_UNKNOWN)
    })
}

/// `egdb_close`: 0 on success, non-zero (-1) for NULL or a handle already
/// closed or never opened.
#[no_mangle]
pub extern "C" fn dtb_egdb_close(handle: *mut DtbEgdbDriver) -> c_int {
    guarded(-1, || {
        if handle.is_null() {
            set_error("EGDB_DRIVER handle is NULL");
            return -1;
        }
        match DRIVERS.unregister(handle.addr()) {
            Some(_) => 0,
            None => {
                set_error("closed or unknown EGDB_DRIVER handle");
                -1
            }
        }
    })
}

/// The most pieces of a table in the folder `egdb_open` would read for
/// `directory` without options.
fn identify(directory: &Path) -> Option<u32> {
    let (folder, _) = probe::locate_tables(directory, None).ok()?;
    let tables = format::list_tables(&folder).ok()?;
    tables.into_iter().map(Material::pieces).max()
}

/// `egdb_identify`: 0 when `directory` holds tables (then `*egdb_type` is
/// `EGDB_WLD_TUN_V2` and `*max_pieces` the most pieces of any table),
/// non-zero otherwise (the out-parameters unchanged). NULL out-pointers
/// are skipped.
///
/// # Safety
/// `directory` is NULL or a NUL-terminated string; the out-pointers are
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dtb_egdb_identify(
    directory: *const c_char,
    egdb_type: *mut c_int,
    max_pieces: *mut c_int,
) -> c_int {
    guarded(1, || {
        // SAFETY: forwarded caller contract.
        let Some(directory) = (unsafe { text_arg(directory) }) else {
            set_error("directory is NULL or not UTF-8");
            return 1;
        };
        let Some(pieces) = identify(Path::new(directory)) else {
            set_error(&format!("no tables in {directory}"));
            return 1;
        };
        // SAFETY: NULL or writable (caller contract).
        unsafe {
            write(egdb_type, DTB_EGDB_WLD_TUN_V2);
            write(max_pieces, pieces as c_int);
        }
        0
    })
}

/// Writes through `ptr` unless it is NULL.
///
/// # Safety
/// `ptr` is NULL or writable.
unsafe fn write<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-null and writable (caller contract).
        unsafe { ptr.write_unaligned(value) };
    }
}

/// `egdb_get_pieces`: the most pieces looked up, the most of one side, the
/// most kings of 9-piece positions (0: none) and of one side in the
/// 8-piece tables used (at most the option; 0 where none is used). 0 on
/// success, -1 for a bad handle.
///
/// # Safety
/// The out-pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dtb_egdb_get_pieces(
    handle: *const DtbEgdbDriver,
    max_pieces: *mut c_int,
    max_pieces_1side: *mut c_int,
    max_9pc_kings: *mut c_int,
    max_8pc_kings_1side: *mut c_int,
) -> c_int {
    guarded(-1, || {
        with_driver(handle, |d| {
            // SAFETY: NULL or writable (caller contract).
            unsafe {
                write(max_pieces, d.max_pieces as c_int);
                write(max_pieces_1side, d.max_pieces_1side as c_int);
                write(max_9pc_kings, 0);
                write(max_8pc_kings_1side, d.max_8pc_kings_1side as c_int);
            }
            0
        })
        .unwrap_or(-1)
    })
}

/// `egdb_get_stats`: the counts since the driver opened or was reset, in
/// memory the driver owns (valid until the next `egdb_get_stats` of this
/// driver or its close); NULL for a bad handle.
#[no_mangle]
pub extern "C" fn dtb_egdb_get_stats(handle: *const DtbEgdbDriver) -> *mut DtbEgdbStats {
    guarded(std::ptr::null_mut(), || {
        with_driver(handle, |d| {
            let c = &d.counters;
            d.stats.publish(DtbEgdbStats {
                db_requests: c.total(|s| &s.requests),
                db_returns: c.total(|s| &s.returns),
                db_not_present_requests: c.total(|s| &s.not_present),
                ..DtbEgdbStats::default()
            })
        })
        .unwrap_or(std::ptr::null_mut())
    })
}

/// `egdb_reset_stats`: sets the counts to 0.
#[no_mangle]
pub extern "C" fn dtb_egdb_reset_stats(handle: *mut DtbEgdbDriver) {
    guarded((), || {
        let _ = with_driver(handle, |d| d.counters.reset());
    })
}

/// One of the words of `msgs` (up to its NUL or its 80 bytes), or
/// `default` when `msgs` is NULL.
fn word(field: Option<&[c_char; 80]>, default: &str) -> String {
    match field {
        None => default.to_string(),
        Some(bytes) => {
            let bytes: Vec<u8> = bytes
                .iter()
                .map(|&c| c as u8)
                .take_while(|&b| b != 0)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }
}

/// `egdb_verify`: checks the checksums of every file the driver reads
/// (tables within `maxpieces`, and their `.dtc` files for `db=mtc`),
/// telling each through `msg_fn` with the words of `msgs` (English when
/// NULL). Stops early when `*abort` becomes non-zero. 0 when every file
/// passed, non-zero otherwise (also for a bad handle or an abort).
///
/// # Safety
/// `msg_fn` is NULL or a function taking a NUL-terminated string; `abort`
/// is NULL or readable for the whole call (another thread may set it);
/// `msgs` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn dtb_egdb_verify(
    handle: *const DtbEgdbDriver,
    msg_fn: Option<MsgFn>,
    abort: *const c_int,
    msgs: *const DtbEgdbVerifyMsgs,
) -> c_int {
    guarded(1, || {
        // SAFETY: NULL or readable (caller contract).
        let msgs = unsafe { msgs.as_ref() };
        let aborted = || {
            // SAFETY: NULL or readable; read volatile as another thread
            // may set it (caller contract).
            !abort.is_null() && unsafe { abort.read_volatile() } != 0
        };
        with_driver(handle, |d| verify_files(d, msg_fn, msgs, &aborted)).unwrap_or(1)
    })
}

fn verify_files(
    d: &Driver,
    msg_fn: Option<MsgFn>,
    msgs: Option<&DtbEgdbVerifyMsgs>,
    aborted: &dyn Fn() -> bool,
) -> c_int {
    let tell = |text: String| {
        if let Some(f) = msg_fn {
            send(f, &text);
        }
    };
    let tb = &d.tablebase;
    let rules = tb.rule_set();
    let mut failed = 0;
    for m in tb.materials_on_disk() {
        if m.pieces() > d.max_pieces {
            continue;
        }
        let mut files = vec![(
            format::table_path(tb.table_dir(), m),
            format::value_kind(m, rules),
        )];
        if d.database == Database::Mtc && tb.has_dtc(m) {
            files.push((format::dtc_path(tb.table_dir(), m), ValueKind::Dtc));
        }
        for (path, kind) in files {
            if aborted() {
                return 1;
            }
            let name = path.display();
            match format::check_file_of(&path, m, rules, kind) {
                Ok(_) => tell(format!("{name} {}\n", word(msgs.map(|m| &m.ok), "ok"))),
                Err(e) => {
                    failed += 1;
                    tell(format!(
                        "{} {name}: {e}\n",
                        word(msgs.map(|m| &m.crc_failed), "CRC failed:")
                    ));
                }
            }
        }
    }
    let (summary, code) = match failed {
        0 => (word(msgs.map(|m| &m.no_errors), "no errors"), 0),
        _ => (word(msgs.map(|m| &m.errors), "errors"), 1),
    };
    tell(format!("{summary}\n"));
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let o = OpenOptions::parse(" maxpieces = 6 ; RULES=fmjd;db=mtc;").unwrap();
        assert_eq!(o.max_pieces, Some(6));
        assert_eq!(o.rules, Some(RuleSet::Fmjd));
        assert_eq!(o.database, Database::Mtc);
        assert_eq!(OpenOptions::parse("").unwrap().database, Database::Wld);
        for bad in [
            "maxpieces",
            "maxpieces=six",
            "rules=english",
            "db=dtw",
            "cache=5",
        ] {
            assert!(OpenOptions::parse(bad).is_err(), "{bad}");
        }
    }

    /// The layouts C and C++ see (`dtb_egdb.h`, `egdb_intl.h`).
    #[test]
    fn struct_layouts() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<DtbEgdbPosition>(), 24);
        assert_eq!(offset_of!(DtbEgdbPosition, white), 8);
        assert_eq!(offset_of!(DtbEgdbPosition, king), 16);
        assert_eq!(size_of::<DtbEgdbStats>(), 28);
        assert_eq!(offset_of!(DtbEgdbStats, db_not_present_requests), 20);
        assert_eq!(offset_of!(DtbEgdbStats, avg_ht_list_length), 24);
        assert_eq!(size_of::<DtbEgdbVerifyMsgs>(), 320);
    }

    #[test]
    fn material_slots_are_distinct() {
        let all = Material::all_up_to(8);
        let slots: HashSet<usize> = all.iter().filter_map(|&m| material_slot(m)).collect();
        assert_eq!(slots.len(), all.len());
        assert!(slots.iter().all(|&i| i < MATERIAL_SLOTS));
    }

    #[test]
    fn mtc_codes() {
        assert_eq!(mtc_code(None), DTB_EGDB_MTC_UNKNOWN);
        assert_eq!(mtc_code(Some(1)), DTB_EGDB_MTC_LESS_THAN_THRESHOLD);
        assert_eq!(mtc_code(Some(9)), DTB_EGDB_MTC_LESS_THAN_THRESHOLD);
        assert_eq!(mtc_code(Some(10)), 10);
        assert_eq!(mtc_code(Some(11)), 10);
        assert_eq!(mtc_code(Some(12)), 12);
    }
}
