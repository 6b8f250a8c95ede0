//! The words and the JSON of a probe's answer (`probe::Answer`, built by
//! the prober), shared by `dtb probe` and `dtb serve`: the one place that
//! words its distances.
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

use probe::{Answer, Distances, DrawCounts, Line, Tablebase, Wdl};
use rules::{CountedEnding, Position};
use serde_json::{json, Value};

use crate::exit::CliError;

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
pub fn answer(tb: &Tablebase, pos: &Position, counts: DrawCounts) -> Result<Answer, CliError> {
    Ok(probe::answer(tb, pos, counts)?)
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
        "kings_only_plies": a.kings_only_plies,
        "dtc_available": a.dtc_available,
        "moves": a.moves.iter().map(|m| {
            let mut v = json!({
                "move": m.pdn,
                "result": m.value.wdl.as_str(),
                "plies_left_after": m.value.plies_left_after,
                "kings_only_plies_after": m.kings_only_plies_after,
                "from": m.value.mv.from().number(),
                "to": m.value.mv.to().number(),
                "captures": m.value.mv.captured().iter().map(|s| s.number()).collect::<Vec<_>>(),
                "after": m.after,
            });
            merge(&mut v, distance_fields(&m.distances));
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

/// The JSON fields of a line.
fn line_json(line: &Line) -> Value {
    json!({
        "line": line.moves,
        "line_pdn": line.pdn(),
        "game_plies": line.moves.len(),
    })
}

/// Adds `line` (or its absence: a draw) to a probe's JSON object.
pub fn with_line(mut out: Value, line: Option<&Line>) -> Value {
    match line {
        Some(l) => merge(&mut out, line_json(l)),
        None => merge(
            &mut out,
            json!({"line": null, "line_pdn": null, "game_plies": null}),
        ),
    }
    out
}
