//! `draughts_tb.Tablebase`: probing from Python.

use std::path::{Path, PathBuf};

use format::{RuleSet, Wdl};
use probe::{principal_line, MoveAnswer, ProbeError, Storage, Tablebase, TablebaseOptions};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use rules::Move;

use crate::args::{self, AnyInt, Query};
use crate::errors::{not_found, probe_error, value_error};

/// Opens the tables of `rule_set` under `root`: the one place that calls
/// the prober's `open`. A missing directory (or rule-set folder) is a
/// `FileNotFoundError`.
fn open_tables(
    root: &Path,
    rule_set: RuleSet,
    cache_bytes: u64,
    storage: Storage,
) -> PyResult<Tablebase> {
    if !root.is_dir() {
        return Err(not_found(root, "no such directory"));
    }
    let options = TablebaseOptions::with_cache_bytes(cache_bytes).with_storage(storage);
    Tablebase::open_with(root, rule_set, options).map_err(probe_error)
}

/// The storage mode named `name`: `"mmap"` or `"pread"`.
fn storage(name: &str) -> PyResult<Storage> {
    match name {
        "mmap" => Ok(Storage::Mapped),
        "pread" => Ok(Storage::PositionedReads),
        _ => Err(value_error(format!(
            "storage must be \"mmap\" or \"pread\", not {name:?}"
        ))),
    }
}

/// The integer of a result: 1 win, 0 draw, -1 loss.
fn wdl_int(wdl: Wdl) -> i8 {
    match wdl {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// Warns that `plies` is deprecated (one release): its meaning is split
/// into `counted_threshold` and `lone_king_plies`, beside `dtc`.
fn warn_plies_deprecated(py: Python<'_>) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
    PyErr::warn(
        py,
        &category,
        c"`plies` is deprecated: use `counted_threshold`, `lone_king_plies` or `dtc`",
        1,
    )
}

/// A legal move with the result it leads to.
///
/// Attributes: `move` (PDN: `32-28`, `28x39`, or `46x37x28` where two
/// captures share start and end), `result` (`"win"`, `"draw"` or `"loss"`
/// for the side playing it), `wdl` (1, 0, -1), the distances through it in
/// plies (`dtc`, `counted_threshold`, `lone_king_plies`: see
/// `ProbeResult`), `plies_left_after` and `kings_only_plies_after` (the
/// draw counts in the position reached, None where none runs), `fen` (the
/// position after the move), `from_square`, `to_square` and `captures`
/// (the squares of the captured pieces, ascending). `plies` is the
/// deprecated name of `counted_threshold` or `lone_king_plies`.
#[pyclass(frozen, module = "draughts_tb")]
#[derive(Clone)]
pub struct ProbedMove {
    #[pyo3(get, name = "move")]
    mv: String,
    #[pyo3(get)]
    result: &'static str,
    #[pyo3(get)]
    wdl: i8,
    #[pyo3(get)]
    dtc: Option<u32>,
    #[pyo3(get)]
    counted_threshold: Option<u32>,
    #[pyo3(get)]
    lone_king_plies: Option<u32>,
    #[pyo3(get)]
    plies_left_after: Option<u8>,
    #[pyo3(get)]
    kings_only_plies_after: Option<u32>,
    #[pyo3(get)]
    fen: String,
    #[pyo3(get)]
    from_square: u8,
    #[pyo3(get)]
    to_square: u8,
    #[pyo3(get)]
    captures: Vec<u32>,
    table_plies: Option<u32>,
}

impl ProbedMove {
    fn new(m: &MoveAnswer) -> ProbedMove {
        let mv: &Move = &m.value.mv;
        ProbedMove {
            mv: m.pdn.clone(),
            result: m.value.wdl.as_str(),
            wdl: wdl_int(m.value.wdl),
            dtc: m.distances.dtc,
            counted_threshold: m.distances.counted_threshold,
            lone_king_plies: m.distances.lone_king_plies,
            plies_left_after: m.value.plies_left_after,
            kings_only_plies_after: m.kings_only_plies_after,
            fen: m.after.clone(),
            from_square: mv.from().number(),
            to_square: mv.to().number(),
            captures: mv
                .captured()
                .iter()
                .map(|s| u32::from(s.number()))
                .collect(),
            table_plies: m.value.plies,
        }
    }
}

#[pymethods]
impl ProbedMove {
    /// Deprecated: `counted_threshold` or `lone_king_plies`.
    #[getter]
    fn plies(&self, py: Python<'_>) -> PyResult<Option<u32>> {
        warn_plies_deprecated(py)?;
        Ok(self.table_plies)
    }

    fn __repr__(&self) -> String {
        let dtc = self
            .dtc
            .map(|p| format!(", converts in {p}"))
            .unwrap_or_default();
        format!("<ProbedMove {} {}{dtc}>", self.mv, self.result)
    }

    fn __str__(&self) -> String {
        self.mv.clone()
    }
}

/// The answer of `Tablebase.probe`.
///
/// Attributes: `fen` (the position, canonical PDN), `result` (`"win"`,
/// `"draw"` or `"loss"` for the side to move with the draw counts given),
/// `wdl` (1, 0, -1); distances, each in plies and None where it does not
/// apply or for a draw: `dtc` (distance to conversion: plies, the
/// conversion included, to the next capture or man move on the best path;
/// needs the DTC files, `dtb gen --dtc`), `counted_threshold` (in a 16- or
/// 5-move ending under the FMJD limits, the plies the count must have left
/// for the result to hold), `lone_king_plies` (under `pure`, in those
/// endings: plies until the game ends or leaves them with the result
/// settled); `distance` (the table's stored distance, also when the count
/// left is too short and the result is therefore a draw; None for draws
/// and WLD tables), `counted_ending` (16 or 5 for the FMJD 16- and 5-move
/// endings, else None), `plies_left` (the count the answer assumes; None
/// outside counted endings), `kings_only_plies` (the king-only plies of
/// the 25-move rule the answer assumes; None where the rule does not
/// apply), `dtc_available`, `line` (with `probe(..., line=True)`: the
/// principal line to the end of the game, a list of PDN moves; None for a
/// draw or when not asked for) and `moves` (a tuple of `ProbedMove`: every
/// legal move, best first: wins shortest first, draws, losses longest
/// first). `plies` is the deprecated name of `counted_threshold` or
/// `lone_king_plies`.
#[pyclass(frozen, module = "draughts_tb")]
pub struct ProbeResult {
    #[pyo3(get)]
    fen: String,
    #[pyo3(get)]
    result: &'static str,
    #[pyo3(get)]
    wdl: i8,
    #[pyo3(get)]
    dtc: Option<u32>,
    #[pyo3(get)]
    counted_threshold: Option<u32>,
    #[pyo3(get)]
    lone_king_plies: Option<u32>,
    #[pyo3(get)]
    distance: Option<u8>,
    #[pyo3(get)]
    counted_ending: Option<u8>,
    #[pyo3(get)]
    plies_left: Option<u8>,
    #[pyo3(get)]
    kings_only_plies: Option<u32>,
    #[pyo3(get)]
    dtc_available: bool,
    #[pyo3(get)]
    line: Option<Vec<String>>,
    table_plies: Option<u32>,
    moves: Vec<ProbedMove>,
    /// The moves as Python objects, made on first access.
    moves_tuple: PyOnceLock<Py<PyTuple>>,
}

#[pymethods]
impl ProbeResult {
    /// Every legal move (a tuple of `ProbedMove`), best first.
    #[getter]
    fn moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let tuple = self.moves_tuple.get_or_try_init(py, || {
            PyTuple::new(py, self.moves.clone()).map(Bound::unbind)
        })?;
        Ok(tuple.bind(py).clone())
    }

    /// Deprecated: `counted_threshold` or `lone_king_plies`.
    #[getter]
    fn plies(&self, py: Python<'_>) -> PyResult<Option<u32>> {
        warn_plies_deprecated(py)?;
        Ok(self.table_plies)
    }

    fn __repr__(&self) -> String {
        let dtc = self
            .dtc
            .map(|p| format!(", converts in {p} plies"))
            .unwrap_or_default();
        format!(
            "<ProbeResult {} {}{dtc}, {} moves>",
            self.fen,
            self.result,
            self.moves.len()
        )
    }
}

/// Everything `probe` answers, computed without the GIL (the moves become
/// Python objects when first asked for): the prober's own answer.
fn answer(tb: &Tablebase, q: &Query, with_line: bool) -> Result<ProbeResult, ProbeError> {
    let counts = q.counts();
    let a = probe::answer(tb, &q.pos, counts)?;
    let stored = tb.probe(&q.pos)?;
    let ending = a.counted.filter(|_| tb.rule_set().has_move_limits());
    let line = match with_line && a.wdl != Wdl::Draw {
        true => principal_line(tb, &q.pos, counts)?.map(|l| l.moves),
        false => None,
    };
    Ok(ProbeResult {
        fen: a.fen.clone(),
        result: a.wdl.as_str(),
        wdl: wdl_int(a.wdl),
        dtc: a.distances.dtc,
        counted_threshold: a.distances.counted_threshold,
        lone_king_plies: a.distances.lone_king_plies,
        distance: stored.distance,
        counted_ending: ending.map(|c| c.plies() / 2),
        plies_left: ending.and(a.plies_left).map(|r| r as u8),
        kings_only_plies: a.kings_only_plies,
        dtc_available: a.dtc_available,
        line,
        table_plies: a
            .distances
            .counted_threshold
            .or(a.distances.lone_king_plies),
        moves: a.moves.iter().map(ProbedMove::new).collect(),
        moves_tuple: PyOnceLock::new(),
    })
}

/// Endgame tables of international draughts, opened for probing.
///
/// `Tablebase(path, rules="fmjd", *, cache_mb=64, storage="mmap")` opens
/// the tables that `generate(path, rules=rules)` (or `dtb gen --dir path`)
/// built: they live in `path/<rules>/`. Nothing is read until the first
/// probe; tables are memory-mapped (`storage="pread"`: read block by block
/// with positioned reads, never mapped, so a file cut short under the
/// process is an error, never a SIGBUS) and decoded blocks are cached
/// (`cache_mb` MiB, shared).
///
/// Raises `FileNotFoundError` when the directory (or its folder for these
/// rules) does not exist and `ValueError` for an unknown rule set (`fmjd`,
/// `fmjd-diagonal` or `pure`).
///
/// A position is a PDN FEN string (`"W:WK46,K47,28:BK5"`, also the
/// `[FEN "..."]` tag form) or any object with a `fen` attribute, such as a
/// py-draughts board. Values are for the side to move. `plies_left` is the
/// state of the FMJD draw counter in a 16- or 5-move ending: the plies that
/// may still be played (None: the ending was just entered, 32 or 10). For
/// a board object without `plies_left`, the board's own counters are used
/// when it has them (py-draughts: `board._endgame_remaining`).
///
/// The GIL is released while probing; one Tablebase may be shared by any
/// number of threads.
#[pyclass(frozen, module = "draughts_tb", name = "Tablebase")]
pub struct PyTablebase {
    tb: Tablebase,
    path: PathBuf,
}

#[pymethods]
impl PyTablebase {
    #[new]
    #[pyo3(signature = (path, rules = "fmjd", *, cache_mb = 64, storage = "mmap"))]
    fn new(path: PathBuf, rules: &str, cache_mb: u64, storage: &str) -> PyResult<PyTablebase> {
        let rule_set = args::rule_set(rules)?;
        let cache_bytes = cache_mb
            .checked_mul(1 << 20)
            .ok_or_else(|| value_error("cache_mb is too large"))?;
        let tb = open_tables(&path, rule_set, cache_bytes, self::storage(storage)?)?;
        Ok(PyTablebase { tb, path })
    }

    /// The directory given when opening.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The rule set: `"fmjd"`, `"fmjd-diagonal"` or `"pure"`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.tb.rule_set().name()
    }

    /// The largest n such that every table of up to n pieces is present.
    #[getter]
    fn max_pieces(&self) -> u32 {
        self.tb.max_pieces_available()
    }

    /// The materials whose table files are present, e.g. `["K-K", ...]`.
    fn materials(&self) -> Vec<String> {
        self.tb
            .materials_on_disk()
            .iter()
            .map(|m| m.to_string())
            .collect()
    }

    /// Whether the table of `material` (e.g. `"KKM-K"`) is present and
    /// valid.
    fn has_table(&self, py: Python<'_>, material: &str) -> PyResult<bool> {
        let m = args::material(material)?;
        Ok(py.detach(|| self.tb.has_table(m)))
    }

    /// The result of `position` and of every legal move (see
    /// `ProbeResult`); `line=True` adds the principal line.
    #[pyo3(signature = (position, plies_left = None, *, kings_only_plies = AnyInt(Some(0)), line = false))]
    #[pyo3(
        text_signature = "($self, position, plies_left=None, *, kings_only_plies=0, line=False)"
    )]
    fn probe(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        plies_left: Option<&Bound<'_, PyAny>>,
        kings_only_plies: AnyInt,
        line: bool,
    ) -> PyResult<ProbeResult> {
        let q = args::query(position, plies_left, kings_only_plies)?;
        py.detach(|| answer(&self.tb, &q, line))
            .map_err(probe_error)
    }

    /// The result for the side to move: 1 win, 0 draw, -1 loss.
    #[pyo3(signature = (position, plies_left = None, *, kings_only_plies = AnyInt(Some(0))))]
    #[pyo3(text_signature = "($self, position, plies_left=None, *, kings_only_plies=0)")]
    fn wdl(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        plies_left: Option<&Bound<'_, PyAny>>,
        kings_only_plies: AnyInt,
    ) -> PyResult<i8> {
        let q = args::query(position, plies_left, kings_only_plies)?;
        py.detach(|| self.tb.probe_wdl_with(&q.pos, q.counts()))
            .map(wdl_int)
            .map_err(probe_error)
    }

    /// Like `wdl`, but only from blocks already in memory: None when a
    /// table block would have to be read (for use inside a search).
    #[pyo3(signature = (position, plies_left = None))]
    fn wdl_if_cached(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        plies_left: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<i8>> {
        let q = args::query(position, plies_left, AnyInt(Some(0)))?;
        py.detach(|| self.tb.probe_wdl_if_cached(&q.pos, q.plies_left))
            .map(|w| w.map(wdl_int))
            .map_err(probe_error)
    }

    /// A best move (a `ProbedMove`): the shortest win or longest defence
    /// where the table keeps distances, a move that keeps the result
    /// elsewhere. None when the side to move has no legal move.
    #[pyo3(signature = (position, plies_left = None, *, kings_only_plies = AnyInt(Some(0))))]
    #[pyo3(text_signature = "($self, position, plies_left=None, *, kings_only_plies=0)")]
    fn best_move(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        plies_left: Option<&Bound<'_, PyAny>>,
        kings_only_plies: AnyInt,
    ) -> PyResult<Option<ProbedMove>> {
        let q = args::query(position, plies_left, kings_only_plies)?;
        py.detach(|| {
            let a = probe::answer(&self.tb, &q.pos, q.counts())?;
            Ok(a.moves.first().map(ProbedMove::new))
        })
        .map_err(probe_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase({:?}, rules={:?})",
            self.path.display().to_string(),
            self.rules()
        )
    }
}
