//! The answer to a probe, shared by `dtb probe` and `dtb serve`, and the
//! one place that words its distances.
//!
//! Each distance has its own name and meaning (and JSON field):
//! * `dtc`: distance to conversion, the plies until the next capture or
//!   man move on the best path (see `Tablebase::probe_dtc`): "converts in
//!   N plies";
//! * `counted_threshold`: in a 16-move or 5-move ending under the FMJD
//!   limits, the plies that must be left on the count for the result to
//!   hold: "win if at least N plies are left on the 16-move count";
//! * `lone_king_plies`: in a lone-king ending under `pure`, the plies until
//!   the game ends or leaves those endings with the result settled;
//! * `game_plies`: the length of a principal line, to the end of the game.

use probe::{Material, MoveValue, ProbeError, RuleSet, Tablebase, Wdl};
use rules::{CountedEnding, Position};
use serde_json::{json, Value};

use crate::exit::CliError;

/// A probed position: its value and every move's.
pub struct Answer {
    /// The position in canonical PDN.
    pub fen: String,
    /// Its result for the side to move.
    pub wdl: Wdl,
    /// Its distances.
    pub distances: Distances,
    /// Every legal move in PDN with its value, best first, and the
    /// distances through it.
    pub moves: Vec<(String, MoveValue, Distances)>,
    /// The counted ending it is in, if any.
    pub counted: Option<rules::CountedEnding>,
    /// The plies the draw counter allows here (caps applied), where a
    /// count runs.
    pub plies_left: Option<u32>,
    /// The position after each move, in the order of `moves`.
    pub after: Vec<String>,
    /// Whether the DTC files are there (`dtb gen --dtc`).
    pub dtc_available: bool,
}

/// The distances of a position or a move, each in plies, by metric; `None`
/// where the metric does not apply (or for a draw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Distances {
    /// Distance to conversion.
    pub dtc: Option<u32>,
    /// Plies the count must have left (counted endings, FMJD limits).
    pub counted_threshold: Option<u32>,
    /// Plies until the lone-king endings are left with the result settled
    /// or the game ends (`pure`).
    pub lone_king_plies: Option<u32>,
}

impl Distances {
    /// Splits a table distance by what it means in `class` under `rules`.
    fn of(
        rules: RuleSet,
        class: Option<CountedEnding>,
        plies: Option<u32>,
        dtc: Option<u32>,
    ) -> Distances {
        let limited = rules.has_move_limits() && class.is_some();
        Distances {
            dtc,
            counted_threshold: plies.filter(|_| limited),
            lone_king_plies: plies.filter(|_| !limited),
        }
    }
}

/// `1 ply`, `N plies`.
pub fn plies(n: u32) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}

/// The verdict in words: the result, then each distance that applies.
pub fn verdict(wdl: Wdl, d: &Distances, class: Option<CountedEnding>) -> String {
    if wdl == Wdl::Draw {
        return "draw".into();
    }
    let mut parts = vec![wdl.to_string()];
    if let (Some(n), Some(c)) = (d.counted_threshold, class) {
        parts.push(format!(
            "if at least {} left on the {}-move count",
            if n == 1 {
                "1 ply is".to_string()
            } else {
                format!("{n} plies are")
            },
            c.plies() / 2
        ));
    }
    if let Some(n) = d.lone_king_plies {
        parts.push(format!(
            "lone-king ending left or game over in {}",
            plies(n)
        ));
    }
    if let Some(n) = d.dtc {
        parts.push(format!("converts in {}", plies(n)));
    }
    parts.join(", ")
}

/// Probes `pos` and every move.
pub fn answer(tb: &Tablebase, pos: &Position, plies_left: Option<u8>) -> Result<Answer, CliError> {
    Ok(try_answer(tb, pos, plies_left)?)
}

/// The DTC of `pos`, `Ok(None)` also when the DTC files are missing;
/// the flag says whether they are there (for `pos`'s material).
fn dtc_if_built(tb: &Tablebase, pos: &Position) -> Result<(Option<u32>, bool), ProbeError> {
    let available = tb.has_dtc(format::table_position(pos).0);
    match tb.probe_dtc(pos) {
        Ok(d) => Ok((d, available)),
        Err(e) if e.is_missing_table() => Ok((None, false)),
        Err(e) => Err(e),
    }
}

/// [`answer`] with the prober's own error (for callers that word it
/// themselves, as `dtb serve` does).
pub fn try_answer(
    tb: &Tablebase,
    pos: &Position,
    plies_left: Option<u8>,
) -> Result<Answer, ProbeError> {
    let probe = tb.probe_counted(pos, plies_left)?;
    let class = Material::of(pos).counted_ending();
    let rules = tb.rule_set();
    let (dtc, dtc_available) = dtc_if_built(tb, pos)?;
    let moves: Vec<(String, MoveValue, Distances)> = tb
        .move_values(pos, plies_left)?
        .into_iter()
        .map(|m| {
            let d = Distances::of(rules, class, m.plies, m.dtc);
            (pos.move_to_pdn(&m.mv), m, d)
        })
        .collect();
    let after = moves
        .iter()
        .map(|(_, m, _)| pos.play(&m.mv).to_string())
        .collect();
    Ok(Answer {
        fen: pos.to_string(),
        wdl: probe.wdl,
        distances: Distances::of(rules, class, probe.plies, dtc),
        moves,
        counted: class,
        plies_left: tb.plies_available(pos, plies_left),
        after,
        dtc_available,
    })
}

/// The JSON fields of a set of distances.
fn distance_fields(d: &Distances) -> Value {
    json!({
        "dtc": d.dtc,
        "counted_threshold": d.counted_threshold,
        "lone_king_plies": d.lone_king_plies,
    })
}

/// The JSON object of `dtb probe --json` and of `GET /api/probe`.
pub fn to_json(a: &Answer) -> Value {
    let mut out = json!({
        "fen": a.fen,
        "result": a.wdl.as_str(),
        "plies_left": a.plies_left,
        "dtc_available": a.dtc_available,
        "moves": a.moves.iter().zip(&a.after).map(|((text, m, d), after)| {
            let mut v = json!({
                "move": text,
                "result": m.wdl.as_str(),
                "plies_left_after": m.plies_left_after,
                "from": m.mv.from().number(),
                "to": m.mv.to().number(),
                "captures": m.mv.captured().iter().map(|s| s.number()).collect::<Vec<_>>(),
                "after": after,
            });
            merge(&mut v, distance_fields(d));
            v
        }).collect::<Vec<_>>(),
    });
    merge(&mut out, distance_fields(&a.distances));
    out
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

/// A principal line: best moves for both sides from a position to the end
/// of the game.
pub struct Line {
    /// The moves in PDN, in order.
    pub moves: Vec<String>,
    /// The side to move at the start (for move numbers).
    pub white_first: bool,
}

/// The most plies a line may take before it is taken for a fault.
const MAX_LINE_PLIES: usize = 5000;

/// Plays [`Tablebase::best_move`] for both sides from `pos` to the end of
/// the game (the side to move has no move). Needs the DTC files where
/// results are bare (else a winner may wander); `None` for a draw.
pub fn principal_line(
    tb: &Tablebase,
    pos: &Position,
    plies_left: Option<u8>,
) -> Result<Option<Line>, ProbeError> {
    let wdl = tb.probe_wdl(pos, plies_left)?;
    if wdl == Wdl::Draw {
        return Ok(None);
    }
    let mut line = Line {
        moves: Vec::new(),
        white_first: pos.side_to_move() == rules::Color::White,
    };
    let (mut pos, mut left) = (*pos, plies_left);
    while let Some(best) = best_of(tb, &pos, left)? {
        if line.moves.len() == MAX_LINE_PLIES {
            return Err(ProbeError::InvalidPosition(format!(
                "the line did not end within {MAX_LINE_PLIES} plies"
            )));
        }
        line.moves.push(pos.move_to_pdn(&best.mv));
        left = best.plies_left_after;
        pos = pos.play(&best.mv);
    }
    Ok(Some(line))
}

/// The best move, or `None` when the game is over.
fn best_of(
    tb: &Tablebase,
    pos: &Position,
    plies_left: Option<u8>,
) -> Result<Option<MoveValue>, ProbeError> {
    if pos.pieces(pos.side_to_move()).is_empty()
        || pos.pieces(pos.side_to_move().opponent()).is_empty()
    {
        return Ok(None);
    }
    tb.best_move(pos, plies_left)
}

impl Line {
    /// The line in PDN movetext: `1. 26x19 42-37 2. 19-14`, or `1... 23-28`
    /// when Black starts.
    pub fn pdn(&self) -> String {
        let mut out = Vec::new();
        let offset = usize::from(!self.white_first);
        for (i, mv) in self.moves.iter().enumerate() {
            let ply = i + offset;
            let number = ply / 2 + 1;
            if ply % 2 == 0 {
                out.push(format!("{number}. {mv}"));
            } else if i == 0 {
                out.push(format!("{number}... {mv}"));
            } else {
                out.push(mv.clone());
            }
        }
        out.join(" ")
    }

    /// The JSON fields of a line.
    pub fn to_json(&self) -> Value {
        json!({
            "line": self.moves,
            "line_pdn": self.pdn(),
            "game_plies": self.moves.len(),
        })
    }
}

/// Adds `line` (or its absence: a draw) to a probe's JSON object.
pub fn with_line(mut out: Value, line: Option<&Line>) -> Value {
    match line {
        Some(l) => merge(&mut out, l.to_json()),
        None => merge(
            &mut out,
            json!({"line": null, "line_pdn": null, "game_plies": null}),
        ),
    }
    out
}
