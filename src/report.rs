//! The answer to a probe, shared by `dtb probe` and `dtb serve`.

use probe::{Material, MoveValue, ProbeError, Tablebase, Wdl};
use rules::Position;
use serde_json::{json, Value};

use crate::exit::CliError;

/// A probed position: its value and every move's.
pub struct Answer {
    /// The position in canonical PDN.
    pub fen: String,
    /// Its result for the side to move.
    pub wdl: Wdl,
    /// Its distance, where the table keeps one.
    pub plies: Option<u32>,
    /// Every legal move in PDN with its value, best first.
    pub moves: Vec<(String, MoveValue)>,
    /// The counted ending it is in, if any.
    pub counted: Option<rules::CountedEnding>,
    /// The plies the draw counter allows here (caps applied), where a
    /// count runs.
    pub plies_left: Option<u32>,
    /// The position after each move, in the order of `moves`.
    pub after: Vec<String>,
}

/// Probes `pos` and every move.
pub fn answer(tb: &Tablebase, pos: &Position, plies_left: Option<u8>) -> Result<Answer, CliError> {
    Ok(try_answer(tb, pos, plies_left)?)
}

/// [`answer`] with the prober's own error (for callers that word it
/// themselves, as `dtb serve` does).
pub fn try_answer(
    tb: &Tablebase,
    pos: &Position,
    plies_left: Option<u8>,
) -> Result<Answer, ProbeError> {
    let probe = tb.probe_counted(pos, plies_left)?;
    let moves: Vec<(String, MoveValue)> = tb
        .move_values(pos, plies_left)?
        .into_iter()
        .map(|m| (pos.move_to_pdn(&m.mv), m))
        .collect();
    let after = moves
        .iter()
        .map(|(_, m)| pos.play(&m.mv).to_string())
        .collect();
    Ok(Answer {
        fen: pos.to_string(),
        wdl: probe.wdl,
        plies: probe.plies,
        moves,
        counted: Material::of(pos).counted_ending(),
        plies_left: tb.plies_available(pos, plies_left),
        after,
    })
}

/// The JSON object of `dtb probe --json` and of `GET /api/probe`.
pub fn to_json(a: &Answer) -> Value {
    json!({
        "fen": a.fen,
        "result": a.wdl.as_str(),
        "plies": a.plies,
        "plies_left": a.plies_left,
        "moves": a.moves.iter().zip(&a.after).map(|((text, m), after)| json!({
            "move": text,
            "result": m.wdl.as_str(),
            "plies": m.plies,
            "plies_left_after": m.plies_left_after,
            "from": m.mv.from().number(),
            "to": m.mv.to().number(),
            "captures": m.mv.captured().iter().map(|s| s.number()).collect::<Vec<_>>(),
            "after": after,
        })).collect::<Vec<_>>(),
    })
}
