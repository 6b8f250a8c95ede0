//! Reading the arguments Python passes: positions (a FEN string or a board
//! object), the draw counter, rule sets and material names.

use format::{Material, RuleSet};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use rules::Position;

use crate::errors::value_error;

/// The attribute of a py-draughts board that holds its FMJD endgame
/// counters: `(plies left in the 16-move ending, plies left in the 5-move
/// ending)`, `-1` where that ending has not been reached.
pub const BOARD_COUNTERS: &str = "_endgame_remaining";

/// Reads a PDN FEN (the `[FEN "..."]` tag form too).
pub fn parse_fen(text: &str) -> PyResult<Position> {
    text.parse()
        .map_err(|e| value_error(format!("bad FEN {:?}: {e}", text.trim())))
}

/// The FEN text of `position`: the string itself, or its `fen` attribute
/// (called if it is a method).
fn fen_text(position: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = position.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    let Ok(mut fen) = position.getattr("fen") else {
        return Err(PyTypeError::new_err(format!(
            "position must be a FEN string or an object with a fen attribute, not {}",
            position.get_type().name()?
        )));
    };
    if fen.is_callable() {
        fen = fen.call0()?;
    }
    match fen.cast::<PyString>() {
        Ok(text) => Ok(text.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "the fen attribute of the position must be a string, not {}",
            fen.get_type().name()?
        ))),
    }
}

/// A position with the draw counter to probe it with.
pub struct Query {
    /// The position.
    pub pos: Position,
    /// Plies left on the counter of its counted ending (`None`: just
    /// entered, or not a counted ending).
    pub plies_left: Option<u8>,
    /// King-only plies of the 25-move rule (the prober checks the range).
    pub kings_only_plies: u8,
}

impl Query {
    /// Both draw counts, for the prober.
    pub fn counts(&self) -> probe::DrawCounts {
        probe::DrawCounts::new(self.plies_left, self.kings_only_plies)
    }
}

/// A count argument from Python: any `int`, however large; a value out of
/// the count's range becomes a `ValueError` saying so, never an
/// `OverflowError` from the conversion. Anything else is a `TypeError`.
pub struct AnyInt(pub Option<i64>);

impl<'a, 'py> FromPyObject<'a, 'py> for AnyInt {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<AnyInt> {
        if !obj.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "an int is needed, not {}",
                obj.get_type().name()?
            )));
        }
        Ok(AnyInt(obj.extract::<i64>().ok()))
    }
}

/// Reads `position` and the counters: `plies_left` when given, else a
/// board's own counters, else none (a freshly entered ending); the
/// king-only plies of the 25-move rule as given.
pub fn query(
    position: &Bound<'_, PyAny>,
    plies_left: Option<&Bound<'_, PyAny>>,
    kings_only_plies: AnyInt,
) -> PyResult<Query> {
    let kings_only_plies = match kings_only_plies.0.map(u8::try_from) {
        Some(Ok(n)) if n < 50 => n,
        _ => {
            return Err(value_error(
                "kings_only_plies must be between 0 and 49 (at 50 the game is drawn)",
            ))
        }
    };
    if let Ok(text) = position.cast::<PyString>() {
        // The fast path: a FEN string.
        let pos = parse_fen(&text.to_cow()?)?;
        return Ok(Query {
            pos,
            plies_left: plies_arg(plies_left)?,
            kings_only_plies,
        });
    }
    let pos = parse_fen(&fen_text(position)?)?;
    let plies_left = match plies_left {
        Some(_) => plies_arg(plies_left)?,
        None => board_plies_left(position, &pos),
    };
    Ok(Query {
        pos,
        plies_left,
        kings_only_plies,
    })
}

/// Checks a `plies_left` argument (the prober checks it against the
/// ending): None, or an int; any int out of range, however large, is a
/// `ValueError` saying so (not an `OverflowError` from the conversion).
fn plies_arg(plies_left: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u8>> {
    let Some(obj) = plies_left.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err("plies_left must be an int or None"));
    }
    match obj.extract::<i64>().ok().and_then(|p| u8::try_from(p).ok()) {
        Some(p) => Ok(Some(p)),
        None => Err(value_error(format!(
            "plies_left must be between 0 and 32 (got {obj})"
        ))),
    }
}

/// The plies left on a py-draughts board's counters for the counted ending
/// of `pos`: the smaller of the counters that run, at most the ending's
/// limit. `None` when the board has no such counters, none runs, or `pos`
/// is not a counted ending.
fn board_plies_left(board: &Bound<'_, PyAny>, pos: &Position) -> Option<u8> {
    let ending = Material::of(pos).counted_ending()?;
    let (sixteen, five): (i64, i64) = board.getattr(BOARD_COUNTERS).ok()?.extract().ok()?;
    let left = [sixteen, five].into_iter().filter(|&p| p >= 0).min()?;
    Some(left.min(i64::from(ending.plies())) as u8)
}

/// Reads a rule set name.
pub fn rule_set(name: &str) -> PyResult<RuleSet> {
    name.parse::<RuleSet>()
        .map_err(|e| value_error(e.to_string()))
}

/// Reads a material name such as `KKM-K`.
pub fn material(name: &str) -> PyResult<Material> {
    name.parse::<Material>()
        .map_err(|e| value_error(format!("bad material {name:?}: {e}")))
}

/// Reads a list of material names (none: an empty list).
pub fn materials(names: Option<Vec<String>>) -> PyResult<Vec<Material>> {
    names
        .unwrap_or_default()
        .iter()
        .map(|n| material(n))
        .collect()
}

/// Checks a `threads` argument.
pub fn threads(threads: Option<usize>) -> PyResult<Option<usize>> {
    match threads {
        Some(0) => Err(value_error("threads must be at least 1")),
        t => Ok(t),
    }
}
